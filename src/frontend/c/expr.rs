//! Expressions: values and lvalues, pointer arithmetic in cells, the
//! short-circuit operators and `?:` as control flow when an operand has
//! side effects, and calls — inlined user functions and the built-ins
//! (pthreads, the SV-COMP `__VERIFIER_*` conventions, fences, atomic
//! read-modify-writes). docs/c.md lists each one's meaning.
//!
//! Every read of memory (a global, a `volatile`, a local whose address is
//! taken, `*p`, `a[i]`, `s.f`) is one load into a temporary register;
//! every write one store.

use super::builder::{is_boolean, negate};
use super::ctx::{Ctx, Local, ThreadArg};
use super::stmt::convert;
use super::types::CType;
use crate::diag::Error;
use crate::program::{BinOp, Command, Expr, Fence, LExpr, MembarMask, UnOp};
use lang_c::ast::{
    BinaryOperator as B, CallExpression, Expression, MemberOperator, UnaryOperator as U,
};
use lang_c::span::{Node, Span};

/// A value and its C type.
#[derive(Clone, Debug)]
pub struct Val {
    /// The value.
    pub e: LExpr,
    /// Its type.
    pub ty: CType,
}

impl Val {
    fn int(e: LExpr) -> Val {
        Val { e, ty: CType::Int }
    }
}

/// A place that can be read and written.
#[derive(Clone, Debug)]
pub enum LVal {
    /// A register local.
    Reg(crate::program::RegId, CType),
    /// Memory at an address (`atomic`: stores are locked).
    Mem(LExpr, CType, bool),
}

/// Most cells `memset`/`memcpy`/`memmove` write.
pub const MAX_BLOCK: i64 = 1024;

/// The read-modify-write operations of the atomic built-ins.
#[derive(Clone, Copy, Debug)]
enum Rmw {
    Add,
    Sub,
    Or,
    And,
    Xor,
    Xchg,
}

impl<'a> Ctx<'a> {
    /// Evaluates `e` for its side effects.
    ///
    /// Errors: see [`Ctx::rvalue`].
    pub fn effect(&mut self, e: &'a Node<Expression>) -> Result<(), Error> {
        self.rvalue(e).map(|_| ())
    }

    /// The value of `e`, its side effects emitted.
    ///
    /// Errors: constructs outside the subset (located).
    pub fn rvalue(&mut self, e: &'a Node<Expression>) -> Result<Val, Error> {
        self.nested(e.span, |c| c.rvalue_inner(e))
    }

    fn rvalue_inner(&mut self, e: &'a Node<Expression>) -> Result<Val, Error> {
        let s = e.span;
        match &e.node {
            Expression::Identifier(i) => {
                let name = &i.node.name;
                if let Some(v) = self.types.enum_consts.get(name) {
                    if self.lookup(name).is_none() {
                        return Ok(Val::int(Expr::Const(self.width.wrap(*v))));
                    }
                }
                if self.is_function_name(name) {
                    return self.function_value(name, s);
                }
                let lv = self.lvalue(e)?;
                self.read(lv, s)
            }
            Expression::Constant(c) => {
                let v = super::types::constant_value(&c.node).ok_or_else(|| {
                    self.err(s, "floating-point or over-long constants are not supported")
                })?;
                if !self.width.fits(v) {
                    return Err(self.err(
                        s,
                        format!(
                            "constant {v} does not fit --width {}; {}",
                            self.width.0,
                            self.width.raise_hint()
                        ),
                    ));
                }
                Ok(Val {
                    e: Expr::Const(self.width.wrap(v)),
                    ty: super::types::constant_type(&c.node, v, self.width),
                })
            }
            Expression::StringLiteral(_) => {
                let lv = self.lvalue(e)?;
                self.read(lv, s)
            }
            Expression::Member(_) => {
                let lv = self.lvalue(e)?;
                self.read(lv, s)
            }
            Expression::Call(c) => self.call(&c.node, s),
            Expression::SizeOfTy(t) => {
                let r = self.types.resolve_sq(
                    &t.node.0.node.specifiers,
                    t.node.0.node.declarator.as_ref(),
                    self.src,
                )?;
                let size = self.size_of(&r.ty, s)?;
                Ok(Val::int(Expr::Const(size)))
            }
            Expression::SizeOfVal(v) => {
                // Not evaluated (C11 6.5.3.4): its type, its size in cells.
                let ty = self.type_of(&v.node.0)?;
                let size = self.size_of(&ty, s)?;
                Ok(Val::int(Expr::Const(size)))
            }
            Expression::UnaryOperator(u) => self.unary(&u.node.operator.node, &u.node.operand, s),
            Expression::Cast(c) => {
                let r = self.types.resolve_sq(
                    &c.node.type_name.node.specifiers,
                    c.node.type_name.node.declarator.as_ref(),
                    self.src,
                )?;
                let v = self.rvalue(&c.node.expression)?;
                Ok(match r.ty {
                    CType::Void => Val {
                        e: Expr::Const(0),
                        ty: CType::Void,
                    },
                    CType::Bool => Val {
                        e: convert(v.e, &CType::Bool),
                        ty: CType::Bool,
                    },
                    t => Val { e: v.e, ty: t },
                })
            }
            Expression::BinaryOperator(b) => {
                self.binary(&b.node.operator.node, &b.node.lhs, &b.node.rhs, s)
            }
            Expression::Conditional(c) => {
                let cv = self.cond(&c.node.condition)?;
                let cv = self.b.fold(&cv);
                if let Some(k) = cv.as_const(self.width) {
                    return if k != 0 {
                        self.rvalue(&c.node.then_expression)
                    } else {
                        self.rvalue(&c.node.else_expression)
                    };
                }
                let t = self.b.temp();
                let (pt, pe) = self.b.branch(&cv, self.span(s))?;
                let join = self.b.label();
                self.b.goto_pos(pt);
                let a = self.rvalue(&c.node.then_expression)?;
                self.emit(Command::Assign { reg: t, value: a.e }, s)?;
                self.b.jump(join);
                self.b.goto_pos(pe);
                let b = self.rvalue(&c.node.else_expression)?;
                self.emit(Command::Assign { reg: t, value: b.e }, s)?;
                self.b.place(join);
                let ty = if a.ty.is_pointer() {
                    a.ty
                } else {
                    common(&a.ty, &b.ty)
                };
                Ok(Val {
                    e: self.known_or(t),
                    ty,
                })
            }
            Expression::Comma(es) => {
                let mut last = Val::int(Expr::Const(0));
                for x in es.iter() {
                    last = self.rvalue(x)?;
                }
                Ok(last)
            }
            Expression::Statement(st) => {
                // GNU statement expression: the value of its last
                // expression statement.
                let lang_c::ast::Statement::Compound(items) = &st.node else {
                    return Err(self.err(s, "unsupported statement expression"));
                };
                self.frame().scopes.push(std::collections::HashMap::new());
                let mut val = Val {
                    e: Expr::Const(0),
                    ty: CType::Void,
                };
                let mut r = Ok(());
                for (k, it) in items.iter().enumerate() {
                    let last = k + 1 == items.len();
                    r = match &it.node {
                        lang_c::ast::BlockItem::Statement(x) if last => match &x.node {
                            lang_c::ast::Statement::Expression(Some(ex)) => {
                                self.rvalue(ex).map(|v| val = v)
                            }
                            _ => self.stmt(x),
                        },
                        lang_c::ast::BlockItem::Statement(x) => self.stmt(x),
                        lang_c::ast::BlockItem::Declaration(_) => Err(self.err(
                            it.span,
                            "declarations inside statement expressions are not supported",
                        )),
                        lang_c::ast::BlockItem::StaticAssert(_) => Ok(()),
                    };
                    if r.is_err() {
                        break;
                    }
                }
                self.frame().scopes.pop();
                r.map(|_| val)
            }
            Expression::GenericSelection(_) => Err(self.err(s, "`_Generic` is not supported")),
            Expression::CompoundLiteral(_) => {
                Err(self.err(s, "compound literals are not supported"))
            }
            Expression::AlignOf(_) => Err(self.err(s, "`_Alignof` is not supported")),
            Expression::OffsetOf(_) => Err(self.err(s, "`offsetof` is not supported")),
            Expression::VaArg(_) => Err(self.err(s, "`va_arg` is not supported")),
        }
    }

    /// The register's known constant, else the register.
    /// The size of `ty` in cells (`sizeof`).
    ///
    /// Errors: an incomplete struct (located at `s`).
    fn size_of(&self, ty: &CType, s: Span) -> Result<i64, Error> {
        if let Some(tag) = self.types.incomplete(ty) {
            return Err(self.err(s, format!("`sizeof` of the incomplete type `struct {tag}`")));
        }
        Ok(self.types.size(ty) as i64)
    }

    /// The type of `e` without evaluating it (the operand of `sizeof`):
    /// `e` is lowered into a scratch automaton that is then dropped, so
    /// nothing is emitted; arrays keep their array type.
    ///
    /// Errors: `e` has side effects (assignments, calls: not supported
    /// under `sizeof`); those of lowering `e`.
    pub fn type_of(&mut self, e: &'a Node<Expression>) -> Result<CType, Error> {
        self.nested(e.span, |c| c.type_of_inner(e))
    }

    fn type_of_inner(&mut self, e: &'a Node<Expression>) -> Result<CType, Error> {
        if self.has_effects(e, 0) {
            // Typed by its shape, nothing lowered (a call may create
            // threads or objects).
            return match &e.node {
                Expression::Conditional(c) => self.type_of(&c.node.then_expression),
                Expression::Comma(es) => match es.last() {
                    Some(x) => self.type_of(x),
                    None => Ok(CType::Int),
                },
                Expression::BinaryOperator(b)
                    if !matches!(
                        b.node.operator.node,
                        B::Index | B::Plus | B::Minus | B::LogicalAnd | B::LogicalOr
                    ) && !self.has_effects(&b.node.lhs, 0) =>
                {
                    let t = self.type_of(&b.node.lhs)?;
                    Ok(if t.is_pointer() { t } else { CType::Int })
                }
                Expression::UnaryOperator(u)
                    if matches!(
                        u.node.operator.node,
                        U::PostIncrement | U::PostDecrement | U::PreIncrement | U::PreDecrement
                    ) =>
                {
                    self.type_of(&u.node.operand)
                }
                Expression::Call(c) => match &c.node.callee.node {
                    Expression::Identifier(i) if self.funcs.contains_key(&i.node.name) => {
                        let f = self.funcs[&i.node.name];
                        self.types
                            .function_return(&f.node.specifiers, &f.node.declarator, self.src)
                    }
                    _ => Ok(CType::Int),
                },
                _ => Err(self.err(
                    e.span,
                    "`sizeof` of this expression with side effects is not supported",
                )),
            };
        }
        let scratch = self.b.sub();
        let main = std::mem::replace(&mut self.b, scratch);
        let saved = (
            self.error.take(),
            self.bounds.take(),
            self.bad_call.take(),
            self.extern_call.take(),
            self.in_atomic,
        );
        // Inside the scratch automaton indices are not split.
        self.in_atomic += 1;
        let lv = match &e.node {
            Expression::Identifier(_)
            | Expression::Member(_)
            | Expression::UnaryOperator(_)
            | Expression::BinaryOperator(_) => match self.lvalue(e) {
                Ok(LVal::Mem(_, t, _)) | Ok(LVal::Reg(_, t)) => Ok(t),
                Err(_) => self.rvalue(e).map(|v| v.ty),
            },
            _ => self.rvalue(e).map(|v| v.ty),
        };
        self.b = main;
        (
            self.error,
            self.bounds,
            self.bad_call,
            self.extern_call,
            self.in_atomic,
        ) = saved;
        lv
    }

    fn known_or(&self, r: crate::program::RegId) -> LExpr {
        match self.b.known(r) {
            Some(c) => Expr::Const(c),
            None => Expr::Var(r),
        }
    }

    /// The place `e` denotes.
    ///
    /// Errors: not an lvalue; an undeclared name (located).
    pub fn lvalue(&mut self, e: &'a Node<Expression>) -> Result<LVal, Error> {
        self.nested(e.span, |c| c.lvalue_inner(e))
    }

    fn lvalue_inner(&mut self, e: &'a Node<Expression>) -> Result<LVal, Error> {
        let s = e.span;
        match &e.node {
            Expression::Identifier(i) => match self.lookup(&i.node.name) {
                Some(Local::Reg(r, t)) => Ok(LVal::Reg(r, t)),
                Some(Local::Mem(a, t, at)) => Ok(LVal::Mem(Expr::Const(a), t, at)),
                None if self.funcs.contains_key(&i.node.name) => Err(self.err(
                    s,
                    format!(
                        "function `{}` used as a value (function pointers are not supported)",
                        i.node.name
                    ),
                )),
                None => match self.externs.get(&i.node.name).copied() {
                    Some((specs, id)) if !self.globals.contains_key(&i.node.name) => {
                        // An `extern` object the file does not define.
                        let n = i.node.name.clone();
                        self.define_global(&n, &n, specs, id)?;
                        self.lvalue_inner(e)
                    }
                    _ => Err(self.err(s, format!("undeclared identifier `{}`", i.node.name))),
                },
            },
            Expression::UnaryOperator(u) if u.node.operator.node == U::Indirection => {
                let p = self.rvalue(&u.node.operand)?;
                let ty = match p.ty.pointee() {
                    Some(CType::Void) | None => CType::Int,
                    Some(t) => t.clone(),
                };
                Ok(LVal::Mem(p.e, ty, false))
            }
            Expression::BinaryOperator(b) if b.node.operator.node == B::Index => {
                self.lvalue_index(&b.node.lhs, &b.node.rhs, s)
            }
            Expression::Member(m) => {
                let (addr, sty) = match m.node.operator.node {
                    MemberOperator::Direct => match self.lvalue(&m.node.expression)? {
                        LVal::Mem(a, t, _) => (a, t),
                        LVal::Reg(..) => return Err(self.err(s, "member of a non-struct")),
                    },
                    MemberOperator::Indirect => {
                        let p = self.rvalue(&m.node.expression)?;
                        let t = p.ty.pointee().cloned().unwrap_or(CType::Int);
                        (p.e, t)
                    }
                };
                let CType::Struct(si) = sty else {
                    return Err(self.err(s, "member access on a value that is not a struct"));
                };
                if !self.types.structs[si].complete {
                    return Err(self.err(
                        s,
                        format!(
                            "member access through the incomplete type `struct {}` (declared, never defined)",
                            self.types.structs[si].name
                        ),
                    ));
                }
                let f = &m.node.identifier.node.name;
                let Some((_, fty, off)) = self.types.structs[si]
                    .fields
                    .iter()
                    .find(|x| &x.0 == f)
                    .cloned()
                else {
                    return Err(self.err(
                        m.node.identifier.span,
                        format!("struct {} has no field `{f}`", self.types.structs[si].name),
                    ));
                };
                Ok(LVal::Mem(
                    Expr::bin(BinOp::Add, addr, Expr::Const(off as i64)),
                    fty,
                    false,
                ))
            }
            Expression::Cast(c) => self.lvalue(&c.node.expression),
            Expression::StringLiteral(p) => {
                let (a, n) = self.string_addr(&p.node, s)?;
                Ok(LVal::Mem(
                    Expr::Const(a),
                    CType::Array(Box::new(CType::Int), n),
                    false,
                ))
            }
            _ => Err(self.err(s, "not an assignable place (lvalue)")),
        }
    }

    /// Reads a place: registers directly, memory by a load (arrays decay
    /// to their address).
    ///
    /// Errors: reading a whole struct.
    pub fn read(&mut self, lv: LVal, s: Span) -> Result<Val, Error> {
        match lv {
            LVal::Reg(r, ty) => Ok(Val {
                e: self.known_or(r),
                ty,
            }),
            LVal::Mem(a, CType::Array(elem, _), _) => Ok(Val {
                e: a,
                ty: CType::Ptr(elem),
            }),
            LVal::Mem(_, CType::Struct(_), _) => Err(self.err(
                s,
                "struct values are not supported (use fields or pointers)",
            )),
            LVal::Mem(a, ty, _) => {
                let t = self.b.temp();
                self.emit(Command::Load { reg: t, addr: a }, s)?;
                Ok(Val {
                    e: self.known_or(t),
                    ty,
                })
            }
        }
    }

    /// Writes `v` to a place (converted to its type).
    ///
    /// Errors: assigning a whole array or struct.
    pub fn write(&mut self, lv: &LVal, v: LExpr, s: Span) -> Result<LExpr, Error> {
        match lv {
            LVal::Reg(r, ty) => {
                let v = convert(v, ty);
                self.emit(Command::Assign { reg: *r, value: v }, s)?;
                Ok(self.known_or(*r))
            }
            LVal::Mem(_, CType::Array(..) | CType::Struct(_), _) => {
                Err(self.err(s, "assigning whole arrays or structs is not supported"))
            }
            LVal::Mem(a, ty, atomic) => {
                let v = self.b.fold(&convert(v, ty));
                let st = Command::Store {
                    addr: a.clone(),
                    value: v.clone(),
                };
                self.emit(
                    if *atomic {
                        Command::Atomic(vec![st])
                    } else {
                        st
                    },
                    s,
                )?;
                Ok(v)
            }
        }
    }

    fn unary(&mut self, op: &U, x: &'a Node<Expression>, s: Span) -> Result<Val, Error> {
        match op {
            U::PostIncrement | U::PostDecrement | U::PreIncrement | U::PreDecrement => {
                let lv = self.lvalue(x)?;
                let old = self.read(lv.clone(), s)?;
                let old_e = self.stable(old.e, s)?;
                let step = match old.ty.pointee() {
                    Some(t) => self.types.size(t) as i64,
                    None => 1,
                };
                let op2 = if matches!(op, U::PostIncrement | U::PreIncrement) {
                    BinOp::Add
                } else {
                    BinOp::Sub
                };
                let new = Expr::bin(op2, old_e.clone(), Expr::Const(step));
                let written = self.write(&lv, new, s)?;
                Ok(Val {
                    e: if matches!(op, U::PostIncrement | U::PostDecrement) {
                        old_e
                    } else {
                        written
                    },
                    ty: old.ty,
                })
            }
            U::Address => {
                if let Expression::Identifier(i) = &x.node {
                    if self.is_function_name(&i.node.name) {
                        return self.function_value(&i.node.name, s);
                    }
                }
                self.addr_of = true;
                let lv = self.lvalue(x);
                self.addr_of = false;
                match lv? {
                    LVal::Mem(a, t, _) => Ok(Val {
                        e: a,
                        ty: CType::Ptr(Box::new(t)),
                    }),
                    LVal::Reg(..) => {
                        Err(self.err(s, "the address of this local cannot be taken here"))
                    }
                }
            }
            U::Indirection => {
                // `*fp` of a function pointer designates the function,
                // which decays back to its address.
                if self.callee_is_pointer(x) {
                    return self.rvalue(x);
                }
                let lv = self.lvalue_from_unary(x, s)?;
                self.read(lv, s)
            }
            U::Plus => self.rvalue(x),
            U::Minus => {
                let v = self.rvalue(x)?;
                Ok(Val {
                    e: Expr::un(UnOp::Neg, v.e),
                    ty: common(&v.ty, &CType::Int),
                })
            }
            U::Complement => {
                let v = self.rvalue(x)?;
                Ok(Val {
                    e: Expr::bin(BinOp::Sub, Expr::un(UnOp::Neg, v.e), Expr::Const(1)),
                    ty: common(&v.ty, &CType::Int),
                })
            }
            U::Negate => {
                let v = self.rvalue(x)?;
                Ok(Val::int(negate(v.e)))
            }
        }
    }

    fn lvalue_from_unary(&mut self, x: &'a Node<Expression>, _s: Span) -> Result<LVal, Error> {
        let p = self.rvalue(x)?;
        let ty = match p.ty.pointee() {
            Some(CType::Void) | None => CType::Int,
            Some(t) => t.clone(),
        };
        Ok(LVal::Mem(p.e, ty, false))
    }

    fn binary(
        &mut self,
        op: &B,
        l: &'a Node<Expression>,
        r: &'a Node<Expression>,
        s: Span,
    ) -> Result<Val, Error> {
        let arith = |op: &B| -> Option<BinOp> {
            Some(match op {
                B::Multiply | B::AssignMultiply => BinOp::Mul,
                B::Divide | B::AssignDivide => BinOp::Div,
                B::Modulo | B::AssignModulo => BinOp::Rem,
                B::Plus | B::AssignPlus => BinOp::Add,
                B::Minus | B::AssignMinus => BinOp::Sub,
                B::BitwiseAnd | B::AssignBitwiseAnd => BinOp::BitAnd,
                B::BitwiseXor | B::AssignBitwiseXor => BinOp::BitXor,
                B::BitwiseOr | B::AssignBitwiseOr => BinOp::BitOr,
                _ => return None,
            })
        };
        match op {
            B::Index => {
                let lv = self.lvalue_index(l, r, s)?;
                self.read(lv, s)
            }
            B::Assign => {
                let lv = self.lvalue(l)?;
                let v = self.rvalue(r)?;
                let e = self.write(&lv, v.e, s)?;
                Ok(Val { e, ty: v.ty })
            }
            B::AssignShiftLeft | B::AssignShiftRight => {
                let lv = self.lvalue(l)?;
                let old = self.read(lv.clone(), s)?;
                let new = self.shift(old.clone(), r, *op == B::AssignShiftLeft)?;
                let e = self.write(&lv, new.e, s)?;
                Ok(Val { e, ty: old.ty })
            }
            B::LogicalAnd | B::LogicalOr => {
                let a = self.rvalue(l)?;
                let bop = if *op == B::LogicalAnd {
                    BinOp::And
                } else {
                    BinOp::Or
                };
                if !self.may_trap(r) {
                    let b = self.rvalue(r)?;
                    return Ok(Val::int(self.b.fold(&Expr::bin(bop, a.e, b.e))));
                }
                let a = self.b.fold(&a.e);
                if let Some(k) = a.as_const(self.width) {
                    let short = (*op == B::LogicalAnd && k == 0) || (*op == B::LogicalOr && k != 0);
                    if short {
                        return Ok(Val::int(Expr::Const((k != 0) as i64)));
                    }
                    let b = self.rvalue(r)?;
                    return Ok(Val::int(bool_of(b.e)));
                }
                let t = self.b.temp();
                let (pt, pe) = self.b.branch(&a, self.span(s))?;
                let join = self.b.label();
                let (eval_side, short_side, short_val) = if *op == B::LogicalAnd {
                    (pt, pe, 0)
                } else {
                    (pe, pt, 1)
                };
                self.b.goto_pos(short_side);
                self.emit(
                    Command::Assign {
                        reg: t,
                        value: Expr::Const(short_val),
                    },
                    s,
                )?;
                self.b.jump(join);
                self.b.goto_pos(eval_side);
                let b = self.rvalue(r)?;
                self.emit(
                    Command::Assign {
                        reg: t,
                        value: bool_of(b.e),
                    },
                    s,
                )?;
                self.b.place(join);
                Ok(Val::int(self.known_or(t)))
            }
            B::ShiftLeft | B::ShiftRight => {
                let a = self.rvalue(l)?;
                self.shift(a, r, *op == B::ShiftLeft)
            }
            B::Less
            | B::Greater
            | B::LessOrEqual
            | B::GreaterOrEqual
            | B::Equals
            | B::NotEquals => {
                let a = self.rvalue(l)?;
                let b = self.rvalue(r)?;
                let bop = match op {
                    B::Less => BinOp::Lt,
                    B::Greater => BinOp::Gt,
                    B::LessOrEqual => BinOp::Le,
                    B::GreaterOrEqual => BinOp::Ge,
                    B::Equals => BinOp::Eq,
                    _ => BinOp::Ne,
                };
                let bop = if common(&a.ty, &b.ty).is_unsigned() {
                    bop.unsigned()
                } else {
                    bop
                };
                Ok(Val::int(Expr::bin(bop, a.e, b.e)))
            }
            B::AssignMultiply
            | B::AssignDivide
            | B::AssignModulo
            | B::AssignPlus
            | B::AssignMinus
            | B::AssignBitwiseAnd
            | B::AssignBitwiseXor
            | B::AssignBitwiseOr => {
                let bop = arith(op).expect("compound assignment");
                let lv = self.lvalue(l)?;
                let old = self.read(lv.clone(), s)?;
                let v = self.rvalue(r)?;
                let new = self.arith(bop, old.clone(), v);
                let e = self.write(&lv, new.e, s)?;
                Ok(Val { e, ty: old.ty })
            }
            _ => {
                let bop = arith(op).expect("arithmetic operator");
                let a = self.rvalue(l)?;
                let b = self.rvalue(r)?;
                Ok(self.arith(bop, a, b))
            }
        }
    }

    fn lvalue_index(
        &mut self,
        l: &'a Node<Expression>,
        r: &'a Node<Expression>,
        s: Span,
    ) -> Result<LVal, Error> {
        let addr_of = std::mem::take(&mut self.addr_of);
        let base = self.rvalue(l)?;
        let idx = self.rvalue(r)?;
        let (base, idx) = if base.ty.is_pointer() {
            (base, idx)
        } else {
            (idx, base)
        };
        let elem = match base.ty.pointee() {
            Some(CType::Void) | None => CType::Int,
            Some(t) => t.clone(),
        };
        let size = self.types.size(&elem) as i64;
        let idx_e = self.checked_index(base.e.clone(), idx.e, size, addr_of, s)?;
        Ok(LVal::Mem(
            Expr::bin(BinOp::Add, base.e, scale(idx_e, size)),
            elem,
            false,
        ))
    }

    /// Array indices (docs/c.md, "Array indices"): `base[idx]` where
    /// `base` is a known address inside an object of at most
    /// [`MAX_INDEX_SPLIT`] elements of `size` cells and `idx` is not a
    /// constant. The index is kept in a register `r` and the thread
    /// branches: one `assume(r == k)` per index `k` that stays inside the
    /// object (with `addr_of`, `&base[idx]`, also one past its end) into
    /// one join, and `assume` of any other value into the thread's
    /// out-of-bounds error state (a violation). `program::specialize`
    /// then gives each branch the access with a constant address. Returns
    /// the index expression to use (`r`, or `idx` unchanged when the rule
    /// does not apply: inside `__VERIFIER_atomic_*` bodies, unknown bases,
    /// bases outside every object, too many elements).
    ///
    /// Errors: see [`Ctx::emit`].
    fn checked_index(
        &mut self,
        base: LExpr,
        idx: LExpr,
        size: i64,
        addr_of: bool,
        s: Span,
    ) -> Result<LExpr, Error> {
        let idx = self.b.fold(&idx);
        let (Some(lo), None) = (
            self.b.fold(&base).as_const(self.width),
            idx.as_const(self.width),
        ) else {
            return Ok(idx);
        };
        if self.in_atomic > 0 || size <= 0 || !self.b.live() {
            return Ok(idx);
        }
        let Some(&(start, end)) = self.objects.iter().find(|(a, b)| *a <= lo && lo < *b) else {
            return Ok(idx);
        };
        // Indices k with start <= lo + k·size and lo + (k+1)·size <= end.
        let kmin = -((lo - start) / size);
        let kmax = (end - lo) / size - 1 + i64::from(addr_of);
        if kmax < kmin || kmax - kmin + 1 > MAX_INDEX_SPLIT {
            return Ok(idx);
        }
        let r = match idx {
            Expr::Var(r) => r,
            e => {
                let t = self.b.temp();
                self.emit(Command::Assign { reg: t, value: e }, s)?;
                t
            }
        };
        let v = Expr::Var(r);
        let mut cmds: Vec<Command> = (kmin..=kmax)
            .map(|k| Command::Assume(Expr::bin(BinOp::Eq, v.clone(), Expr::Const(k))))
            .collect();
        cmds.push(Command::Assume(Expr::bin(
            BinOp::Or,
            Expr::bin(BinOp::Lt, v.clone(), Expr::Const(kmin)),
            Expr::bin(BinOp::Gt, v.clone(), Expr::Const(kmax)),
        )));
        let sp = self.span(s);
        let mut pos = self.b.split(cmds, sp)?;
        let out = pos.pop().flatten();
        let join = self.b.label();
        for p in pos {
            self.b.goto_pos(p);
            self.b.jump(join);
        }
        self.b.goto_pos(out);
        self.b.jump_shared(&mut self.bounds, sp);
        self.b.place(join);
        Ok(v)
    }

    /// `a op b` with pointer arithmetic in cells.
    fn arith(&mut self, op: BinOp, a: Val, b: Val) -> Val {
        match (op, a.ty.pointee().cloned(), b.ty.pointee().cloned()) {
            (BinOp::Add | BinOp::Sub, Some(t), None) => {
                let size = self.types.size(&t) as i64;
                Val {
                    e: Expr::bin(op, a.e, scale(b.e, size)),
                    ty: CType::Ptr(Box::new(t)),
                }
            }
            (BinOp::Add, None, Some(t)) => {
                let size = self.types.size(&t) as i64;
                Val {
                    e: Expr::bin(op, scale(a.e, size), b.e),
                    ty: CType::Ptr(Box::new(t)),
                }
            }
            (BinOp::Sub, Some(t), Some(_)) => {
                let size = self.types.size(&t) as i64;
                let d = Expr::bin(BinOp::Sub, a.e, b.e);
                Val::int(if size == 1 {
                    d
                } else {
                    Expr::bin(BinOp::Div, d, Expr::Const(size))
                })
            }
            _ => {
                let ty = common(&a.ty, &b.ty);
                let op = if ty.is_unsigned() { op.unsigned() } else { op };
                Val {
                    e: Expr::bin(op, a.e, b.e),
                    ty,
                }
            }
        }
    }

    /// `a << r` (`left`) or `a >> r`: `<<`, and `>>` arithmetic for a
    /// signed `a` (what gcc and clang do; implementation-defined in C11
    /// 6.5.7p5), logical for an unsigned one; the type is `a`'s promoted
    /// type (C11 6.5.7p3). A variable amount outside 0..W (undefined in C)
    /// shifts by the IR's rule (everything out, docs/language.md).
    ///
    /// Errors: a constant amount outside 0..W (located at `r`).
    fn shift(&mut self, a: Val, r: &'a Node<Expression>, left: bool) -> Result<Val, Error> {
        let k = self.rvalue(r)?;
        if let Some(k) = self.b.fold(&k.e).as_const(self.width) {
            if !(0..self.width.0 as i64).contains(&k) {
                return Err(self.err(
                    r.span,
                    format!(
                        "shift by {k}, outside 0..{} (--width {}): undefined in C",
                        self.width.0, self.width.0
                    ),
                ));
            }
        }
        let ty = common(&a.ty, &CType::Int);
        let op = match (left, ty.is_unsigned()) {
            (true, _) => BinOp::Shl,
            (false, false) => BinOp::Sar,
            (false, true) => BinOp::Shr,
        };
        Ok(Val {
            e: Expr::bin(op, a.e, k.e),
            ty,
        })
    }

    /// True when evaluating `e` may do more than read: assignments,
    /// increments, calls, statement expressions.
    pub fn has_effects(&self, e: &Node<Expression>, depth: usize) -> bool {
        self.effects(e, depth, false)
    }

    /// [`Ctx::has_effects`], or `e` indexes an array by a non-literal
    /// index (which may branch to the out-of-bounds violation, docs/c.md
    /// "Array indices", so it must not be evaluated where C would not:
    /// the right operand of `&&` and `||`).
    pub fn may_trap(&self, e: &Node<Expression>) -> bool {
        self.effects(e, 0, true)
    }

    fn effects(&self, e: &Node<Expression>, depth: usize, index: bool) -> bool {
        if depth > super::ctx::MAX_DEPTH {
            return true;
        }
        let d = depth + 1;
        match &e.node {
            Expression::Call(_) | Expression::Statement(_) => true,
            Expression::UnaryOperator(u) => {
                matches!(
                    u.node.operator.node,
                    U::PostIncrement | U::PostDecrement | U::PreIncrement | U::PreDecrement
                ) || self.effects(&u.node.operand, d, index)
            }
            Expression::BinaryOperator(b) => {
                (index
                    && b.node.operator.node == B::Index
                    && !matches!(b.node.rhs.node, Expression::Constant(_))
                    && !matches!(b.node.lhs.node, Expression::Constant(_)))
                    || matches!(
                        b.node.operator.node,
                        B::Assign
                            | B::AssignMultiply
                            | B::AssignDivide
                            | B::AssignModulo
                            | B::AssignPlus
                            | B::AssignMinus
                            | B::AssignShiftLeft
                            | B::AssignShiftRight
                            | B::AssignBitwiseAnd
                            | B::AssignBitwiseXor
                            | B::AssignBitwiseOr
                    )
                    || self.effects(&b.node.lhs, d, index)
                    || self.effects(&b.node.rhs, d, index)
            }
            Expression::Cast(c) => self.effects(&c.node.expression, d, index),
            Expression::Member(m) => self.effects(&m.node.expression, d, index),
            Expression::Conditional(c) => {
                self.effects(&c.node.condition, d, index)
                    || self.effects(&c.node.then_expression, d, index)
                    || self.effects(&c.node.else_expression, d, index)
            }
            Expression::Comma(es) => es.iter().any(|x| self.effects(x, d, index)),
            _ => false,
        }
    }

    /// A function used as a value: its address (docs/c.md, "Function
    /// pointers").
    ///
    /// Errors: the memory does not fit the width.
    fn function_value(&mut self, name: &str, s: Span) -> Result<Val, Error> {
        let a = self.func_addr(name, s)?;
        Ok(Val {
            e: Expr::Const(a),
            ty: CType::Ptr(Box::new(CType::Func)),
        })
    }

    /// True when `e` has a function-pointer type, judged syntactically
    /// without evaluating it: a function name, or a variable, member or
    /// call whose declared type is a pointer to a function.
    fn callee_is_pointer(&mut self, e: &'a Node<Expression>) -> bool {
        match &e.node {
            Expression::Identifier(i) if self.is_function_name(&i.node.name) => true,
            Expression::Identifier(_) | Expression::Member(_) => {
                !self.has_effects(e, 0)
                    && matches!(self.type_of(e), Ok(CType::Ptr(t)) if *t == CType::Func)
            }
            Expression::Cast(c) => self.callee_is_pointer(&c.node.expression),
            _ => false,
        }
    }

    /// A call through a function pointer `callee` (docs/c.md, "Function
    /// pointers"): arguments evaluated left to right, then the function
    /// the pointer holds inlined — at once when constant propagation knows
    /// it, else one branch `assume(p == &f)` per target `f` of the module
    /// `funptr` taking as many parameters, and a branch for any other
    /// value into the thread's invalid-call violation.
    ///
    /// Errors: a known pointer to a function declared but not defined in
    /// the file; those of inlining.
    fn indirect_call(
        &mut self,
        callee: &'a Node<Expression>,
        args: &'a [Node<Expression>],
        s: Span,
    ) -> Result<Val, Error> {
        let fv = self.rvalue(callee)?;
        let p = self.stable(fv.e, callee.span)?;
        let vals = self.stable_args(args)?;
        if !self.b.live() {
            return Ok(Val::int(Expr::Const(0)));
        }
        if let Some(k) = self.b.fold(&p).as_const(self.width) {
            if let Some(name) = self.fn_names.get(&k).cloned() {
                let Some(&f) = self.funcs.get(&name) else {
                    return Err(self.err(
                        callee.span,
                        format!(
                            "call through a pointer to `{name}`, which is not defined in the file"
                        ),
                    ));
                };
                return self.inline_values(f, vals, s);
            }
            // Null or not a function: no candidate.
        }
        let targets: Vec<String> = if self.b.fold(&p).as_const(self.width).is_some() {
            Vec::new()
        } else {
            // A target active in an enclosing frame would recurse
            // (outside the subset): its value joins the invalid ones.
            self.fn_targets
                .iter()
                .filter(|n| super::stmt::parameters(self.funcs[*n]).len() == args.len())
                .filter(|n| !self.frames.iter().any(|f| &f.func == *n))
                .cloned()
                .collect()
        };
        let mut addrs = Vec::new();
        for n in &targets {
            addrs.push(self.func_addr(n, s)?);
        }
        let mut cmds: Vec<Command> = addrs
            .iter()
            .map(|&a| Command::Assume(Expr::bin(BinOp::Eq, p.clone(), Expr::Const(a))))
            .collect();
        let none = addrs
            .iter()
            .map(|&a| Expr::bin(BinOp::Ne, p.clone(), Expr::Const(a)))
            .reduce(|x, y| Expr::bin(BinOp::And, x, y))
            .unwrap_or(Expr::Const(1));
        cmds.push(Command::Assume(none));
        let sp = self.span(s);
        let mut pos = self.b.split(cmds, sp)?;
        let bad = pos.pop().flatten();
        let join = self.b.label();
        let res = self.b.reg(&format!("call.{}", self.src.line(s)));
        let mut ty = CType::Int;
        for (n, at) in targets.iter().zip(pos) {
            self.b.goto_pos(at);
            if !self.b.live() {
                continue;
            }
            let f = self.funcs[n];
            let v = self.inline_values(f, vals.clone(), s)?;
            ty = v.ty.clone();
            self.emit(
                Command::Assign {
                    reg: res,
                    value: v.e,
                },
                s,
            )?;
            self.b.jump(join);
        }
        self.b.goto_pos(bad);
        if self.in_atomic > 0 {
            self.fail(s);
        } else {
            self.b.jump_shared(&mut self.bad_call, sp);
        }
        self.b.place(join);
        // A copy: another call on this line may reuse `res`.
        let e = self.known_or(res);
        let e = self.stable(e, s)?;
        Ok(Val { e, ty })
    }

    /// A call: a user function (inlined), a built-in, or a call through a
    /// function pointer ([`Ctx::indirect_call`]).
    fn call(&mut self, c: &'a CallExpression, s: Span) -> Result<Val, Error> {
        let name = match &c.callee.node {
            Expression::Identifier(i) if self.lookup(&i.node.name).is_none() => i.node.name.clone(),
            _ => return self.indirect_call(&c.callee, &c.arguments, s),
        };
        let args = &c.arguments;
        if !reserved(&name) {
            if let Some(&f) = self.funcs.get(&name) {
                if name.starts_with("__VERIFIER_atomic_") {
                    return self.atomic_call(f, args, s);
                }
                return self.inline_call(f, args, s);
            }
        }
        let argn = |k: usize| -> Result<&'a Node<Expression>, Error> {
            args.get(k).ok_or_else(|| {
                self.err(s, format!("`{name}` needs at least {} argument(s)", k + 1))
            })
        };
        let zero = Ok(Val::int(Expr::Const(0)));
        match name.as_str() {
            "__VERIFIER_assume" | "assume" | "__CPROVER_assume" => {
                let v = self.cond(argn(0)?)?;
                self.emit(Command::Assume(v), s)?;
                zero
            }
            "assert" | "__VERIFIER_assert" => {
                let v = self.cond(argn(0)?)?;
                let (t, e) = self.b.branch(&v, self.span(s))?;
                self.b.goto_pos(e);
                self.fail(s);
                self.b.goto_pos(t);
                zero
            }
            "__assert_fail"
            | "__assert_perror_fail"
            | "__assert"
            | "__assert_rtn"
            | "reach_error"
            | "__VERIFIER_error" => {
                self.fail(s);
                zero
            }
            "abort" | "exit" | "_exit" | "_Exit" => {
                self.b.cur = None;
                zero
            }
            "pthread_exit" => {
                let Some(end) = self.end else {
                    return Err(self.err(
                        s,
                        "`pthread_exit` inside an atomic section is not supported",
                    ));
                };
                self.b.jump(end);
                zero
            }
            "pthread_create" => self.pthread_create(args, s),
            "pthread_join" => self.pthread_join(args, s),
            "pthread_mutex_lock" | "pthread_mutex_unlock" | "pthread_mutex_trylock" => {
                self.mutex(&name, argn(0)?, s)
            }
            "pthread_cond_wait" | "pthread_cond_timedwait" => {
                // POSIX allows spurious wakeups: waiting is releasing the
                // mutex and taking it again (docs/c.md, "Threads").
                let (c, m) = (argn(0)?, argn(1)?);
                self.rvalue(c)?;
                self.mutex("pthread_mutex_unlock", m, s)?;
                self.mutex("pthread_mutex_lock", m, s)?;
                if let Some(t) = args.get(2) {
                    self.rvalue(t)?;
                }
                zero
            }
            "pthread_cond_signal"
            | "pthread_cond_broadcast"
            | "pthread_cond_init"
            | "pthread_cond_destroy" => {
                for a in args {
                    self.rvalue(a)?;
                }
                zero
            }
            "pthread_mutex_init"
            | "pthread_mutex_destroy"
            | "pthread_attr_init"
            | "pthread_attr_destroy"
            | "pthread_mutexattr_init"
            | "pthread_mutexattr_destroy"
            | "pthread_attr_setdetachstate"
            | "printf"
            | "puts"
            | "putchar"
            | "fprintf"
            | "fflush"
            | "sched_yield"
            | "pthread_yield"
            | "usleep"
            | "sleep" => zero,
            "__VERIFIER_atomic_begin" => {
                self.emit(Command::Lock, s)?;
                zero
            }
            "__VERIFIER_atomic_end" => {
                self.emit(Command::Unlock, s)?;
                zero
            }
            "__sync_synchronize" => {
                self.emit(Command::Fence(Fence::MFence), s)?;
                zero
            }
            "atomic_thread_fence" | "__atomic_thread_fence" => {
                if let Some(f) = self.order(c.arguments.first()).fence() {
                    self.emit(Command::Fence(f), s)?;
                }
                zero
            }
            "atomic_signal_fence" | "__atomic_signal_fence" => zero,
            "__builtin_expect" => self.rvalue(argn(0)?),
            "malloc" | "calloc" | "alloca" | "__builtin_alloca" | "__builtin_malloc" => {
                self.allocate(&name, args, s)
            }
            "atexit" => {
                // Handlers would run after `main` returns, which ends only
                // thread `main` here (docs/c.md, "Threads"): not run.
                self.rvalue(argn(0)?)?;
                zero
            }
            "free" => {
                // Memory is not reused (docs/c.md, "Dynamic memory").
                self.rvalue(argn(0)?)?;
                zero
            }
            "memset" | "memcpy" | "memmove" | "__builtin_memset" | "__builtin_memcpy" => {
                self.mem_block(&name, args, s)
            }
            "strcpy" | "__builtin_strcpy" => self.strcpy(args, s),
            "realloc" => Err(self.err(
                s,
                "`realloc` is not supported (docs/c.md, \"Dynamic memory\")",
            )),
            n if n.starts_with("__VERIFIER_nondet_") || n.starts_with("nondet_") => {
                self.nondet(n, s)
            }
            n => {
                if let Some(v) = self.atomic_builtin(n, args, s)? {
                    return Ok(v);
                }
                if self.fn_decls.contains(n) && self.in_atomic == 0 {
                    // Declared, not defined: the path reports reaching it
                    // (docs/c.md, "Functions declared but not defined").
                    for a in args {
                        self.rvalue(a)?;
                    }
                    let sp = self.span(c.callee.span);
                    self.b.jump_shared(&mut self.extern_call, sp);
                    return zero;
                }
                Err(self.err(
                    c.callee.span,
                    format!("call of `{n}`, which is neither defined in the file nor a supported built-in (docs/c.md)"),
                ))
            }
        }
    }

    /// The arguments of a call evaluated left to right, each made stable
    /// ([`Self::stable`]) so that later arguments cannot change it.
    ///
    /// Errors: those of the arguments' expressions.
    fn stable_args(&mut self, args: &'a [Node<Expression>]) -> Result<Vec<LExpr>, Error> {
        let mut vals = Vec::new();
        for a in args {
            let v = self.rvalue(a)?;
            vals.push(self.stable(v.e, a.span)?);
        }
        Ok(vals)
    }

    /// Inlines a user function: arguments evaluated in order, the body
    /// lowered, the returned value copied to a temporary.
    fn inline_call(
        &mut self,
        f: &'a Node<lang_c::ast::FunctionDefinition>,
        args: &'a [Node<Expression>],
        s: Span,
    ) -> Result<Val, Error> {
        let vals = self.stable_args(args)?;
        self.inline_values(f, vals, s)
    }

    /// `malloc(n)`, `calloc(k, n)`, `alloca(n)` (docs/c.md, "Dynamic
    /// memory"): a fresh object of `n` (`k·n`) cells, allocated at this
    /// call site of the unwound program (which runs at most once per
    /// execution, so one object per site is exact), its cells 0 at the
    /// start; the call returns its address and never fails.
    ///
    /// Errors: a size that constant propagation does not know, or outside
    /// 1..=`MAX_CELLS`; memory beyond the width's addresses.
    fn allocate(
        &mut self,
        name: &str,
        args: &'a [Node<Expression>],
        s: Span,
    ) -> Result<Val, Error> {
        let want = if name == "calloc" { 2 } else { 1 };
        if args.len() != want {
            return Err(self.err(s, format!("`{name}` takes {want} argument(s)")));
        }
        let mut size: i64 = 1;
        for a in args {
            let v = self.rvalue(a)?;
            if !self.b.live() {
                return Ok(Val::int(Expr::Const(0)));
            }
            let Some(k) = self.b.fold(&v.e).as_const(self.width) else {
                return Err(self.err(
                    a.span,
                    format!("`{name}` of a size that is not a constant here (docs/c.md, \"Dynamic memory\")"),
                ));
            };
            size = size.saturating_mul(k);
        }
        let max = super::types::MAX_CELLS as i64;
        if !(0..=max).contains(&size) {
            return Err(self.err(s, format!("`{name}` of {size} cells (at most {max})")));
        }
        if !self.b.live() {
            return Ok(Val::int(Expr::Const(0)));
        }
        let line = self.src.line(s);
        let a = self.alloc(&format!("heap.{line}"), size.max(1) as u64, &[], s)?;
        Ok(Val {
            e: Expr::Const(a),
            ty: CType::Ptr(Box::new(CType::Void)),
        })
    }

    /// `memset(p, v, n)`, `memcpy(d, s, n)`, `memmove(d, s, n)` with `n`
    /// a constant of at most [`MAX_BLOCK`] cells: one store per cell
    /// (`memcpy`/`memmove`: all loads first, then the stores, in cell
    /// order); returns `p`/`d`.
    ///
    /// Errors: a size that is not a constant here or above the limit.
    /// `strcpy(d, "literal")`: one store per character of the literal
    /// and its terminating 0, at `d`, `d + 1`, …; returns `d`.
    ///
    /// Errors: a source that is not a string literal (its length would
    /// be a loop over memory), or a wrong number of arguments.
    fn strcpy(&mut self, args: &'a [Node<Expression>], s: Span) -> Result<Val, Error> {
        if args.len() != 2 {
            return Err(self.err(s, "`strcpy` takes 2 arguments"));
        }
        let chars = match &args[1].node {
            Expression::StringLiteral(p) => super::types::string_value(&p.node),
            _ => None,
        };
        let Some(chars) = chars else {
            return Err(self.err(
                args[1].span,
                "`strcpy` from a source that is not a string literal is not supported",
            ));
        };
        let d = self.rvalue(&args[0])?;
        let d = Val {
            e: self.stable(d.e, args[0].span)?,
            ty: d.ty,
        };
        for (k, c) in chars.iter().chain(std::iter::once(&0)).enumerate() {
            self.emit(
                Command::Store {
                    addr: Expr::bin(BinOp::Add, d.e.clone(), Expr::Const(k as i64)),
                    value: Expr::Const(self.width.wrap(*c)),
                },
                s,
            )?;
        }
        Ok(d)
    }

    fn mem_block(
        &mut self,
        name: &str,
        args: &'a [Node<Expression>],
        s: Span,
    ) -> Result<Val, Error> {
        if args.len() != 3 {
            return Err(self.err(s, format!("`{name}` takes 3 arguments")));
        }
        let d = self.rvalue(&args[0])?;
        let d = Val {
            e: self.stable(d.e, args[0].span)?,
            ty: d.ty,
        };
        let v = self.rvalue(&args[1])?;
        let v = self.stable(v.e, args[1].span)?;
        let n = self.rvalue(&args[2])?;
        if !self.b.live() {
            return Ok(d);
        }
        let n = match self.b.fold(&n.e).as_const(self.width) {
            Some(k) if (0..=MAX_BLOCK).contains(&k) => k,
            _ => {
                return Err(self.err(
                    args[2].span,
                    format!(
                    "`{name}` of a size that is not a constant of at most {MAX_BLOCK} cells here"
                ),
                ))
            }
        };
        let at = |base: &LExpr, k: i64| Expr::bin(BinOp::Add, base.clone(), Expr::Const(k));
        if name.ends_with("memset") {
            for k in 0..n {
                self.emit(
                    Command::Store {
                        addr: at(&d.e, k),
                        value: v.clone(),
                    },
                    s,
                )?;
            }
        } else {
            let mut loaded = Vec::new();
            for k in 0..n {
                let t = self.b.reg(&format!("copy.{}.{k}", s.start));
                self.emit(
                    Command::Load {
                        reg: t,
                        addr: at(&v, k),
                    },
                    s,
                )?;
                loaded.push(t);
            }
            for (k, t) in loaded.into_iter().enumerate() {
                self.emit(
                    Command::Store {
                        addr: at(&d.e, k as i64),
                        value: Expr::Var(t),
                    },
                    s,
                )?;
            }
        }
        Ok(d)
    }

    /// Inlines a user function with the argument values `vals`.
    fn inline_values(
        &mut self,
        f: &'a Node<lang_c::ast::FunctionDefinition>,
        vals: Vec<LExpr>,
        s: Span,
    ) -> Result<Val, Error> {
        let ret = self.inline_body(f, vals, None, s)?;
        match ret {
            Some((r, ty)) => {
                let v = self.known_or(r);
                let e = self.stable(v, s)?;
                Ok(Val { e, ty })
            }
            None => Ok(Val {
                e: Expr::Const(0),
                ty: CType::Void,
            }),
        }
    }

    /// A call of a `__VERIFIER_atomic_*` function: its body is lowered
    /// apart, and each of its paths (at most [`MAX_ATOMIC_PATHS`])
    /// becomes one `Atomic` step from here: to the return, or to the
    /// error state when the path fails an assertion.
    fn atomic_call(
        &mut self,
        f: &'a Node<lang_c::ast::FunctionDefinition>,
        args: &'a [Node<Expression>],
        s: Span,
    ) -> Result<Val, Error> {
        let vals = self.stable_args(args)?;
        if !self.b.live() {
            return Ok(Val::int(Expr::Const(0)));
        }
        let sub = self.b.sub();
        let main = std::mem::replace(&mut self.b, sub);
        let saved_err = self.error.take();
        let saved_end = self.end.take();
        self.in_atomic += 1;
        let r = self.inline_body(f, vals, None, s);
        self.in_atomic -= 1;
        self.end = saved_end;
        let mut sub = std::mem::replace(&mut self.b, main);
        let sub_err = std::mem::replace(&mut self.error, saved_err);
        let ret = r?;
        self.b.adopt_regs(&sub);
        let done = sub.cur;
        let mut fail_state = None;
        if let Some((l, _)) = sub_err {
            sub.cur = None;
            sub.place(l);
            fail_state = sub.cur;
        }
        let sp = self.span(s);
        let why = |e: String| self.err(s, format!("atomic section: {e}"));
        let ok_paths = match done {
            Some(d) => sub.paths_to(d, MAX_ATOMIC_PATHS).map_err(why)?,
            None => Vec::new(),
        };
        let fail_paths = match fail_state {
            Some(st) => sub.paths_to(st, MAX_ATOMIC_PATHS).map_err(why)?,
            None => Vec::new(),
        };
        let n_ok = ok_paths.len();
        let cmds: Vec<Command> = ok_paths
            .into_iter()
            .chain(fail_paths)
            .map(Command::Atomic)
            .collect();
        let pos = self.b.split(cmds, sp)?;
        let join = self.b.label();
        for (k, p) in pos.into_iter().enumerate() {
            self.b.goto_pos(p);
            if k < n_ok {
                self.b.jump(join);
            } else {
                self.fail(s);
            }
        }
        self.b.place(join);
        match ret {
            Some((r, ty)) => {
                let e = self.stable(Expr::Var(r), s)?;
                Ok(Val { e, ty })
            }
            None => Ok(Val {
                e: Expr::Const(0),
                ty: CType::Void,
            }),
        }
    }

    /// `__VERIFIER_nondet_T()`: any value of the width (`_Bool`/`bool`:
    /// 0 or 1), chosen bit by bit.
    fn nondet(&mut self, name: &str, s: Span) -> Result<Val, Error> {
        let t = self.b.temp();
        self.emit(
            Command::Assign {
                reg: t,
                value: Expr::Const(0),
            },
            s,
        )?;
        let bits = if name.ends_with("bool") {
            1
        } else {
            self.width.0
        };
        for i in 0..bits {
            let bit = self.width.wrap(1i64 << i);
            let set = Command::Assign {
                reg: t,
                value: Expr::bin(BinOp::BitOr, Expr::Var(t), Expr::Const(bit)),
            };
            let sp = self.span(s);
            self.b.choice(vec![set, Command::Nop], sp)?;
        }
        let ty = if name.ends_with("bool") {
            CType::Bool
        } else {
            super::types::int_named(name.rsplit("nondet_").next().unwrap_or(""))
        };
        Ok(Val {
            e: Expr::Var(t),
            ty,
        })
    }

    /// `pthread_create(&h, attr, f, arg)`: a new thread (module doc of
    /// `ctx`); the handle receives the thread's id.
    fn pthread_create(&mut self, args: &'a [Node<Expression>], s: Span) -> Result<Val, Error> {
        // Another thread may run from here on (builder::Builder::init_mem).
        self.b.init_mem = None;
        if args.len() != 4 {
            return Err(self.err(s, "`pthread_create` takes 4 arguments"));
        }
        let fname = match &args[2].node {
            Expression::Identifier(i) => Some(i.node.name.clone()),
            Expression::UnaryOperator(u) if u.node.operator.node == U::Address => {
                match &u.node.operand.node {
                    Expression::Identifier(i) => Some(i.node.name.clone()),
                    _ => None,
                }
            }
            Expression::Cast(c) => match &c.node.expression.node {
                Expression::Identifier(i) => Some(i.node.name.clone()),
                _ => None,
            },
            _ => None,
        };
        let Some(f) = fname.as_ref().and_then(|n| self.funcs.get(n).copied()) else {
            return Err(self.err(
                args[2].span,
                "the start routine must name a function defined in the file",
            ));
        };
        let arg = self.rvalue(&args[3])?;
        let arg = self.b.fold(&arg.e);
        let id = self.new_thread_slot(fname.as_deref().unwrap_or("thread"), s)?;
        let targ = match arg.as_const(self.width) {
            Some(v) => ThreadArg::Const(v),
            None => {
                let tn = self.thread_names[id].clone();
                let cell = self.alloc(&format!("{tn}.arg"), 1, &[], s)?;
                self.emit(
                    Command::Store {
                        addr: Expr::Const(cell),
                        value: arg,
                    },
                    s,
                )?;
                ThreadArg::Cell(cell)
            }
        };
        // The handle: `&local` stays a register; anything else is memory.
        let handle = &args[0];
        match &handle.node {
            Expression::UnaryOperator(u) if u.node.operator.node == U::Address => {
                let lv = self.lvalue(&u.node.operand)?;
                self.write(&lv, Expr::Const(id as i64), s)?;
            }
            Expression::Constant(_) => {}
            _ => {
                let p = self.rvalue(handle)?;
                self.write(
                    &LVal::Mem(p.e, CType::Int, false),
                    Expr::Const(id as i64),
                    s,
                )?;
            }
        }
        let flag = self.start_flags[id];
        self.emit(Command::Fence(Fence::MFence), s)?;
        self.emit(
            Command::Store {
                addr: Expr::Const(flag),
                value: Expr::Const(1),
            },
            s,
        )?;
        self.pending.push_back(super::ctx::PendingThread {
            id,
            func: f,
            arg: targ,
        });
        Ok(Val::int(Expr::Const(0)))
    }

    /// `pthread_join(h, ret)`: waits for the thread's done flag; a handle
    /// that is not a known constant chooses among the threads created so
    /// far.
    fn pthread_join(&mut self, args: &'a [Node<Expression>], s: Span) -> Result<Val, Error> {
        let Some(h) = args.first() else {
            return Err(self.err(s, "`pthread_join` takes 2 arguments"));
        };
        let v = self.rvalue(h)?;
        let v = self.b.fold(&v.e);
        let wait = |cx: &mut Ctx<'a>, id: usize| -> Result<(), Error> {
            let t = cx.b.temp();
            let flag = cx.done_flags[id];
            cx.emit(
                Command::Load {
                    reg: t,
                    addr: Expr::Const(flag),
                },
                s,
            )?;
            cx.emit(
                Command::Assume(Expr::bin(BinOp::Eq, Expr::Var(t), Expr::Const(1))),
                s,
            )
        };
        match v.as_const(self.width) {
            Some(id) if id > 0 && (id as usize) < self.thread_names.len() => {
                wait(self, id as usize)?
            }
            Some(_) => {
                return Err(self.err(
                    h.span,
                    "`pthread_join` of a handle that names no created thread",
                ))
            }
            None => {
                let ids: Vec<usize> = (1..self.thread_names.len()).collect();
                if ids.is_empty() {
                    return Err(self.err(h.span, "`pthread_join` before any thread was created"));
                }
                let join = self.b.label();
                let sp = self.span(s);
                let alts: Vec<Command> = ids
                    .iter()
                    .map(|&i| {
                        Command::Assume(Expr::bin(BinOp::Eq, v.clone(), Expr::Const(i as i64)))
                    })
                    .collect();
                let pos = self.b.split(alts, sp)?;
                for (p, &i) in pos.into_iter().zip(&ids) {
                    self.b.goto_pos(p);
                    wait(self, i)?;
                    self.b.jump(join);
                }
                self.b.place(join);
            }
        }
        Ok(Val::int(Expr::Const(0)))
    }

    /// Mutexes: the IR's lock when the program has one mutex (a global
    /// named in every call), else a cell taken by a locked
    /// compare-and-swap 0 → 1 and released by a locked write of 0.
    fn mutex(&mut self, name: &str, m: &'a Node<Expression>, s: Span) -> Result<Val, Error> {
        if self.single_mutex.is_some() && name != "pthread_mutex_trylock" {
            self.emit(
                if name == "pthread_mutex_lock" {
                    Command::Lock
                } else {
                    Command::Unlock
                },
                s,
            )?;
            return Ok(Val::int(Expr::Const(0)));
        }
        let p = self.rvalue(m)?;
        let t = self.b.temp();
        let load = Command::Load {
            reg: t,
            addr: p.e.clone(),
        };
        match name {
            "pthread_mutex_lock" => {
                let cmd = Command::Atomic(vec![
                    load,
                    Command::Assume(Expr::bin(BinOp::Eq, Expr::Var(t), Expr::Const(0))),
                    Command::Store {
                        addr: p.e,
                        value: Expr::Const(1),
                    },
                ]);
                self.emit(cmd, s)?;
                Ok(Val::int(Expr::Const(0)))
            }
            "pthread_mutex_unlock" => {
                let cmd = Command::Atomic(vec![
                    load,
                    Command::Store {
                        addr: p.e,
                        value: Expr::Const(0),
                    },
                ]);
                self.emit(cmd, s)?;
                Ok(Val::int(Expr::Const(0)))
            }
            _ => {
                // trylock: 0 on success, 1 when held.
                let r = self.b.temp();
                let ok = Command::Atomic(vec![
                    load.clone(),
                    Command::Assume(Expr::bin(BinOp::Eq, Expr::Var(t), Expr::Const(0))),
                    Command::Store {
                        addr: p.e.clone(),
                        value: Expr::Const(1),
                    },
                    Command::Assign {
                        reg: r,
                        value: Expr::Const(0),
                    },
                ]);
                let busy = Command::Atomic(vec![
                    load,
                    Command::Assume(Expr::bin(BinOp::Ne, Expr::Var(t), Expr::Const(0))),
                    Command::Assign {
                        reg: r,
                        value: Expr::Const(1),
                    },
                ]);
                let sp = self.span(s);
                self.b.choice(vec![ok, busy], sp)?;
                Ok(Val::int(Expr::Var(r)))
            }
        }
    }

    /// The atomic read-modify-write built-ins (`__sync_*`, `__atomic_*`,
    /// C11 `atomic_*`): locked instructions (`Atomic`). `None`: not one.
    fn atomic_builtin(
        &mut self,
        n: &str,
        args: &'a [Node<Expression>],
        s: Span,
    ) -> Result<Option<Val>, Error> {
        let base = n
            .strip_suffix("_explicit")
            .or_else(|| n.strip_suffix("_n"))
            .unwrap_or(n);
        let op = |x: &str| -> Option<Rmw> {
            Some(match x {
                "add" => Rmw::Add,
                "sub" => Rmw::Sub,
                "or" => Rmw::Or,
                "and" => Rmw::And,
                "xor" => Rmw::Xor,
                _ => return None,
            })
        };
        // GCC's generic `__atomic_load/store/exchange/compare_exchange`
        // pass values through pointers (`__atomic_store(p, &v, mo)`).
        let generic = n == base && n.starts_with("__atomic_");
        // (operation, returns the new value)
        let (rmw, new): (Option<Rmw>, bool) = if generic && base == "__atomic_exchange" {
            (None, false)
        } else if let Some(x) = base.strip_prefix("__sync_fetch_and_") {
            (op(x), false)
        } else if let Some(x) = base
            .strip_prefix("__sync_")
            .and_then(|x| x.strip_suffix("_and_fetch"))
        {
            (op(x), true)
        } else if let Some(x) = base.strip_prefix("__atomic_fetch_") {
            (op(x), false)
        } else if let Some(x) = base
            .strip_prefix("__atomic_")
            .and_then(|x| x.strip_suffix("_fetch"))
        {
            (op(x), true)
        } else if let Some(x) = base.strip_prefix("atomic_fetch_") {
            (op(x), false)
        } else if matches!(
            base,
            "__sync_lock_test_and_set" | "__atomic_exchange" | "atomic_exchange"
        ) {
            (Some(Rmw::Xchg), false)
        } else {
            (None, false)
        };
        let need = |cx: &Ctx<'a>, k: usize| -> Result<(), Error> {
            if args.len() < k {
                Err(cx.err(s, format!("`{n}` needs {k} arguments")))
            } else {
                Ok(())
            }
        };
        if let Some(rmw) = rmw {
            need(self, 2)?;
            let p = self.rvalue(&args[0])?;
            let v = self.rvalue(&args[1])?;
            let old = self.b.temp();
            let nv = match rmw {
                Rmw::Add => Expr::bin(BinOp::Add, Expr::Var(old), v.e.clone()),
                Rmw::Sub => Expr::bin(BinOp::Sub, Expr::Var(old), v.e.clone()),
                Rmw::Or => Expr::bin(BinOp::BitOr, Expr::Var(old), v.e.clone()),
                Rmw::And => Expr::bin(BinOp::BitAnd, Expr::Var(old), v.e.clone()),
                Rmw::Xor => Expr::bin(BinOp::BitXor, Expr::Var(old), v.e.clone()),
                Rmw::Xchg => v.e.clone(),
            };
            let cmd = Command::Atomic(vec![
                Command::Load {
                    reg: old,
                    addr: p.e.clone(),
                },
                Command::Store {
                    addr: p.e,
                    value: nv.clone(),
                },
            ]);
            self.emit(cmd, s)?;
            let ty = p.ty.pointee().cloned().unwrap_or(CType::Int);
            return Ok(Some(Val {
                e: if new { nv } else { Expr::Var(old) },
                ty,
            }));
        }
        match base {
            "__sync_lock_release" => {
                need(self, 1)?;
                let p = self.rvalue(&args[0])?;
                self.emit(
                    Command::Atomic(vec![Command::Store {
                        addr: p.e,
                        value: Expr::Const(0),
                    }]),
                    s,
                )?;
                Ok(Some(Val::int(Expr::Const(0))))
            }
            "__atomic_load" | "atomic_load" => {
                // Every order is a plain load (docs/c.md, "C11 atomics").
                need(self, if generic { 2 } else { 1 })?;
                let p = self.rvalue(&args[0])?;
                let ty = p.ty.pointee().cloned().unwrap_or(CType::Int);
                let v = self.read(LVal::Mem(p.e, ty.clone(), false), s)?;
                if generic {
                    let out = self.rvalue(&args[1])?;
                    self.emit(
                        Command::Store {
                            addr: out.e,
                            value: v.e,
                        },
                        s,
                    )?;
                    return Ok(Some(Val::int(Expr::Const(0))));
                }
                Ok(Some(v))
            }
            "__atomic_store" | "atomic_store" => {
                need(self, 2)?;
                let p = self.rvalue(&args[0])?;
                let v = self.rvalue(&args[1])?;
                let v = if generic {
                    let ty = v.ty.pointee().cloned().unwrap_or(CType::Int);
                    self.read(LVal::Mem(v.e, ty, false), s)?
                } else {
                    v
                };
                let store = Command::Store {
                    addr: p.e,
                    value: v.e,
                };
                match self.order(args.get(2)) {
                    Order::SeqCst => self.emit(Command::Atomic(vec![store]), s)?,
                    mo => {
                        if let Some(f) = mo.release_fence() {
                            self.emit(Command::Fence(f), s)?;
                        }
                        self.emit(store, s)?;
                    }
                }
                Ok(Some(Val::int(Expr::Const(0))))
            }
            "__atomic_exchange" => {
                // Generic: (ptr, &value, &old, mo); a locked exchange.
                need(self, 3)?;
                let p = self.rvalue(&args[0])?;
                let vp = self.rvalue(&args[1])?;
                let ty = vp.ty.pointee().cloned().unwrap_or(CType::Int);
                let v = self.read(LVal::Mem(vp.e, ty, false), s)?;
                let out = self.rvalue(&args[2])?;
                let old = self.b.temp();
                self.emit(
                    Command::Atomic(vec![
                        Command::Load {
                            reg: old,
                            addr: p.e.clone(),
                        },
                        Command::Store {
                            addr: p.e,
                            value: v.e,
                        },
                    ]),
                    s,
                )?;
                self.emit(
                    Command::Store {
                        addr: out.e,
                        value: Expr::Var(old),
                    },
                    s,
                )?;
                Ok(Some(Val::int(Expr::Const(0))))
            }
            "__sync_bool_compare_and_swap" | "__sync_val_compare_and_swap" => {
                need(self, 3)?;
                let p = self.rvalue(&args[0])?;
                let o = self.rvalue(&args[1])?;
                let nv = self.rvalue(&args[2])?;
                let (old, ok) = self.cas(p.e, o.e, nv.e, None, s)?;
                Ok(Some(Val::int(if base.contains("bool") { ok } else { old })))
            }
            "__atomic_compare_exchange"
            | "atomic_compare_exchange_strong"
            | "atomic_compare_exchange_weak" => {
                // (ptr, &expected, desired, …): on failure *expected = old.
                need(self, 3)?;
                let p = self.rvalue(&args[0])?;
                let ep = self.rvalue(&args[1])?;
                let expected = self.read(LVal::Mem(ep.e.clone(), CType::Int, false), s)?;
                let nv = self.rvalue(&args[2])?;
                let nv = if generic {
                    let ty = nv.ty.pointee().cloned().unwrap_or(CType::Int);
                    self.read(LVal::Mem(nv.e, ty, false), s)?
                } else {
                    nv
                };
                let (_, ok) = self.cas(p.e, expected.e, nv.e, Some(ep.e), s)?;
                Ok(Some(Val::int(ok)))
            }
            _ => Ok(None),
        }
    }

    /// A compare-and-swap of `*p` from `o` to `nv`: two locked
    /// alternatives; on failure `old` is written to `*fail_out` if given.
    /// Returns (old value, success flag).
    fn cas(
        &mut self,
        p: LExpr,
        o: LExpr,
        nv: LExpr,
        fail_out: Option<LExpr>,
        s: Span,
    ) -> Result<(LExpr, LExpr), Error> {
        let old = self.b.temp();
        let ok = self.b.temp();
        let o = self.stable(o, s)?;
        let succ = Command::Atomic(vec![
            Command::Load {
                reg: old,
                addr: p.clone(),
            },
            Command::Assume(Expr::bin(BinOp::Eq, Expr::Var(old), o.clone())),
            Command::Store {
                addr: p.clone(),
                value: nv,
            },
            Command::Assign {
                reg: ok,
                value: Expr::Const(1),
            },
        ]);
        let fail = Command::Atomic(vec![
            Command::Load { reg: old, addr: p },
            Command::Assume(Expr::bin(BinOp::Ne, Expr::Var(old), o)),
            Command::Assign {
                reg: ok,
                value: Expr::Const(0),
            },
        ]);
        let sp = self.span(s);
        let pos = self.b.split(vec![succ, fail], sp)?;
        let join = self.b.label();
        let mut it = pos.into_iter();
        self.b.jump_from(it.next().flatten(), join);
        self.b.goto_pos(it.next().flatten());
        if let Some(out) = fail_out {
            self.emit(
                Command::Store {
                    addr: out,
                    value: Expr::Var(old),
                },
                s,
            )?;
        }
        self.b.place(join);
        Ok((Expr::Var(old), self.known_or(ok)))
    }
}

/// A C11 memory order (`memory_order_*`; GCC's `__ATOMIC_*` have the same
/// values 0..=5). docs/c.md, "C11 atomics", gives each one's lowering:
/// the x86 and SPARC mappings (plain loads; relaxed stores plain, release
/// stores after `membar #LoadStore|#StoreStore`, seq_cst stores locked).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// `memory_order_relaxed` (0).
    Relaxed,
    /// `memory_order_consume` (1).
    Consume,
    /// `memory_order_acquire` (2).
    Acquire,
    /// `memory_order_release` (3).
    Release,
    /// `memory_order_acq_rel` (4).
    AcqRel,
    /// `memory_order_seq_cst` (5), and any order that is not a constant.
    SeqCst,
}

impl Order {
    /// The order of a constant `memory_order` value; others are `SeqCst`.
    pub fn of(v: i64) -> Order {
        match v {
            0 => Order::Relaxed,
            1 => Order::Consume,
            2 => Order::Acquire,
            3 => Order::Release,
            4 => Order::AcqRel,
            _ => Order::SeqCst,
        }
    }

    /// The fence a store of this order needs before it (release:
    /// `membar #LoadStore|#StoreStore`, SPARC's release mapping).
    fn release_fence(self) -> Option<Fence> {
        matches!(self, Order::Release | Order::AcqRel)
            .then_some(Fence::Membar(MembarMask(MembarMask::LS | MembarMask::SS)))
    }

    /// `atomic_thread_fence(order)`: seq_cst a full fence, the others
    /// the SPARC masks of their order (acquire `#LoadLoad|#LoadStore`,
    /// release `#LoadStore|#StoreStore`, acq_rel the three), relaxed none.
    fn fence(self) -> Option<Fence> {
        let m = |bits| Some(Fence::Membar(MembarMask(bits)));
        match self {
            Order::Relaxed => None,
            Order::Consume | Order::Acquire => m(MembarMask::LL | MembarMask::LS),
            Order::Release => m(MembarMask::LS | MembarMask::SS),
            Order::AcqRel => m(MembarMask::LL | MembarMask::LS | MembarMask::SS),
            Order::SeqCst => Some(Fence::MFence),
        }
    }
}

impl<'a> Ctx<'a> {
    /// The memory order of an optional order argument (absent or not a
    /// constant: seq_cst).
    fn order(&mut self, arg: Option<&'a Node<Expression>>) -> Order {
        arg.and_then(|e| self.const_value(e).ok())
            .map_or(Order::SeqCst, Order::of)
    }
}

/// Most paths of an atomic section (each becomes one `Atomic` step).
pub const MAX_ATOMIC_PATHS: usize = 256;

/// Most elements an object may have for its non-constant indices to be
/// split into one branch per index (docs/c.md, "Array indices").
pub const MAX_INDEX_SPLIT: i64 = 16;

/// Names the C front-end always treats as built-ins, even if the file
/// defines a function of that name: the pthreads API, the atomic
/// section markers, and SV-COMP's error functions (the `unreach-call`
/// property is the call itself; the benchmarks define `reach_error` with
/// an empty body or `assert(0)`).
fn reserved(n: &str) -> bool {
    n.starts_with("pthread_")
        || matches!(
            n,
            "__VERIFIER_atomic_begin"
                | "__VERIFIER_atomic_end"
                | "reach_error"
                | "__VERIFIER_error"
        )
}

/// `i * size` (no multiplication for size 1).
fn scale(i: LExpr, size: i64) -> LExpr {
    if size == 1 {
        i
    } else {
        Expr::bin(BinOp::Mul, i, Expr::Const(size))
    }
}

/// The type of an arithmetic operation on integer operands of types `a`
/// and `b` (C11 6.3.1.8, usual arithmetic conversions, simplified: every
/// integer type has W bits, so the result is unsigned when either
/// operand is, else `int`; `_Bool` and pointers used as integers count
/// as `int`).
fn common(a: &CType, b: &CType) -> CType {
    if a.is_unsigned() || b.is_unsigned() {
        CType::UInt
    } else {
        CType::Int
    }
}

/// `e != 0` as 0/1.
fn bool_of(e: LExpr) -> LExpr {
    if is_boolean(&e) {
        e
    } else {
        Expr::bin(BinOp::Ne, e, Expr::Const(0))
    }
}
