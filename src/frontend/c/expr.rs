//! Expressions: values and lvalues, pointer arithmetic in cells, the
//! short-circuit operators and `?:` as control flow when an operand has
//! side effects, GNU statement expressions. Calls are lowered by module
//! `call`, built-in functions by module `builtins`. docs/c.md lists each
//! construct's meaning.
//!
//! Every read of memory (a global, a `volatile`, a local whose address is
//! taken, `*p`, `a[i]`, `s.f`) is one load into a temporary register;
//! every write one store.

use super::builder::{is_boolean, negate};
use super::ctx::{Ctx, Local};
use super::stmt::convert;
use super::types::CType;
use crate::diag::Error;
use crate::program::{BinOp, Command, Expr, LExpr, UnOp};
use lang_c::ast::{BinaryOperator as B, Expression, MemberOperator, UnaryOperator as U};
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
    /// An `int` value.
    pub fn int(e: LExpr) -> Val {
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

impl<'a> Ctx<'a> {
    /// Evaluates `e` for its side effects.
    ///
    /// Errors: see [`Ctx::rvalue`].
    pub fn effect(&mut self, e: &'a Node<Expression>) -> Result<(), Error> {
        // A value nobody uses: `__VERIFIER_nondet_*();` draws nothing
        // (any value, none observed), and `f();` tells `f`'s `return`.
        if self.is_nondet_call(e) {
            return Ok(());
        }
        if let Some((c, f)) = self.discarded_call(e) {
            let Expression::Identifier(i) = &c.callee.node else {
                return self.rvalue(e).map(|_| ());
            };
            let name = i.node.name.as_str();
            return self
                .nested(e.span, |cx| {
                    cx.inline_call(name, f, &c.arguments, e.span, true)
                })
                .map(|_| ());
        }
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
            Expression::Conditional(c) => self.conditional(&c.node, s),
            Expression::Comma(es) => {
                let mut last = Val::int(Expr::Const(0));
                for x in es.iter() {
                    last = self.rvalue(x)?;
                }
                Ok(last)
            }
            Expression::Statement(st) => self.statement_expr(st, s),
            Expression::GenericSelection(_) => Err(self.err(s, "`_Generic` is not supported")),
            Expression::CompoundLiteral(_) => {
                Err(self.err(s, "compound literals are not supported"))
            }
            Expression::AlignOf(_) => Err(self.err(s, "`_Alignof` is not supported")),
            Expression::OffsetOf(_) => Err(self.err(s, "`offsetof` is not supported")),
            Expression::VaArg(_) => Err(self.err(s, "`va_arg` is not supported")),
        }
    }

    /// `c ? a : b`: one of the operands when the condition is a known
    /// constant, else a branch whose arms assign a temporary.
    fn conditional(
        &mut self,
        c: &'a lang_c::ast::ConditionalExpression,
        s: Span,
    ) -> Result<Val, Error> {
        let cv = self.cond(&c.condition)?;
        let cv = self.b.fold(&cv);
        if let Some(k) = cv.as_const(self.width) {
            return if k != 0 {
                self.rvalue(&c.then_expression)
            } else {
                self.rvalue(&c.else_expression)
            };
        }
        let t = self.b.temp();
        let (pt, pe) = self.b.branch(&cv, self.span(s))?;
        let join = self.b.label();
        self.b.goto_pos(pt);
        let a = self.rvalue(&c.then_expression)?;
        self.emit(Command::Assign { reg: t, value: a.e }, s)?;
        self.b.jump(join);
        self.b.goto_pos(pe);
        let b = self.rvalue(&c.else_expression)?;
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

    /// A GNU statement expression `({ ... })`: the value of its last
    /// expression statement.
    ///
    /// Errors: declarations inside it; those of its statements.
    fn statement_expr(
        &mut self,
        st: &'a Node<lang_c::ast::Statement>,
        s: Span,
    ) -> Result<Val, Error> {
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

    /// The register's known constant, else the register.
    pub(super) fn known_or(&self, r: crate::program::RegId) -> LExpr {
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
}

/// Most elements an object may have for its non-constant indices to be
/// split into one branch per index (docs/c.md, "Array indices").
pub const MAX_INDEX_SPLIT: i64 = 16;

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
