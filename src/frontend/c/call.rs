//! Calls: user functions inlined (arguments evaluated left to right),
//! calls through function pointers (one branch per possible target),
//! `__VERIFIER_atomic_*` functions as atomic sections, and the dispatch
//! of every other name to the built-ins (module `builtins`).

use super::ctx::Ctx;
use super::expr::Val;
use super::types::CType;
use crate::diag::Error;
use crate::program::{BinOp, Command, Expr, LExpr};
use lang_c::ast::{CallExpression, Expression};
use lang_c::span::{Node, Span};

impl<'a> Ctx<'a> {
    /// A function used as a value: its address (docs/c.md, "Function
    /// pointers").
    ///
    /// Errors: the memory does not fit the width.
    pub(super) fn function_value(&mut self, name: &str, s: Span) -> Result<Val, Error> {
        let a = self.func_addr(name, s)?;
        Ok(Val {
            e: Expr::Const(a),
            ty: CType::Ptr(Box::new(CType::Func)),
        })
    }

    /// True when `e` has a function-pointer type, judged syntactically
    /// without evaluating it: a function name, or a variable, member or
    /// call whose declared type is a pointer to a function.
    pub(super) fn callee_is_pointer(&mut self, e: &'a Node<Expression>) -> bool {
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
    pub(super) fn call(&mut self, c: &'a CallExpression, s: Span) -> Result<Val, Error> {
        let name = match &c.callee.node {
            Expression::Identifier(i) if self.lookup(&i.node.name).is_none() => i.node.name.clone(),
            _ => return self.indirect_call(&c.callee, &c.arguments, s),
        };
        let args = &c.arguments;
        if !super::ctx::reserved(&name) {
            if let Some(&f) = self.funcs.get(&name) {
                if name.starts_with("__VERIFIER_atomic_") {
                    return self.atomic_call(&name, f, args, s);
                }
                return self.inline_call(&name, f, args, s, false);
            }
        }
        self.builtin(&name, c, s)
    }

    /// A cell that no object of the program uses (`atomic.unused`), the
    /// target of the accesses an atomic section's step does not take
    /// (module `atomic_section`); allocated on first use.
    ///
    /// Errors: the memory does not fit the width.
    fn unused_cell(&mut self, s: Span) -> Result<i64, Error> {
        if let Some(a) = self.unused {
            return Ok(a);
        }
        let a = self.alloc("atomic.unused", 1, &[], s)?;
        self.unused = Some(a);
        Ok(a)
    }

    /// The arguments of a call evaluated left to right, each made stable
    /// ([`Self::stable`]) so that later arguments cannot change it.
    ///
    /// Errors: those of the arguments' expressions.
    pub(super) fn stable_args(
        &mut self,
        args: &'a [Node<Expression>],
    ) -> Result<Vec<LExpr>, Error> {
        self.args_of(None, args)
    }

    /// The arguments of a call, as [`Self::stable_args`] evaluates them;
    /// for a call of the file's function `func`, a
    /// `__VERIFIER_nondet_*()` argument to a parameter that is only
    /// tested draws one bit ([`Ctx::arg_draw`]).
    ///
    /// Errors: those of the arguments' expressions.
    fn args_of(
        &mut self,
        func: Option<&str>,
        args: &'a [Node<Expression>],
    ) -> Result<Vec<LExpr>, Error> {
        let mut vals = Vec::new();
        for (i, a) in args.iter().enumerate() {
            let drawn = match func {
                Some(f) => self.arg_draw(f, i, a)?,
                None => None,
            };
            let v = match drawn {
                Some(v) => v,
                None => self.rvalue(a)?.e,
            };
            vals.push(self.stable(v, a.span)?);
        }
        Ok(vals)
    }

    /// The file's (not atomic) function a call statement `f(...);`
    /// calls by name, whose value it discards.
    pub(super) fn discarded_call(
        &self,
        e: &'a Node<Expression>,
    ) -> Option<(
        &'a CallExpression,
        &'a Node<lang_c::ast::FunctionDefinition>,
    )> {
        let Expression::Call(c) = &e.node else {
            return None;
        };
        let Expression::Identifier(i) = &c.node.callee.node else {
            return None;
        };
        let name = i.node.name.as_str();
        if self.lookup(name).is_some()
            || super::ctx::reserved(name)
            || name.starts_with("__VERIFIER_atomic_")
        {
            return None;
        }
        self.funcs.get(name).map(|&f| (&c.node, f))
    }

    /// Inlines a user function: arguments evaluated in order, the body
    /// lowered, the returned value copied to a temporary; `discard`: the
    /// caller does not use the value (the body's `return` then draws no
    /// `__VERIFIER_nondet_*()` value).
    pub(super) fn inline_call(
        &mut self,
        name: &str,
        f: &'a Node<lang_c::ast::FunctionDefinition>,
        args: &'a [Node<Expression>],
        s: Span,
        discard: bool,
    ) -> Result<Val, Error> {
        let vals = self.args_of(Some(name), args)?;
        self.discard_result = discard;
        self.inline_values(f, vals, s)
    }

    /// Inlines a user function with the argument values `vals`.
    pub(super) fn inline_values(
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
    /// apart (loops unwound, calls inlined) and becomes one `Atomic` step
    /// from here, its paths if-converted (module `atomic_section`): the
    /// thread first makes the section's choices, then runs the step, then
    /// goes to the return, or to the error state when the step's path
    /// failed an assertion.
    ///
    /// Errors: a mutex, `__VERIFIER_atomic_begin` or `pthread_exit` in
    /// the body; those of the body.
    fn atomic_call(
        &mut self,
        name: &str,
        f: &'a Node<lang_c::ast::FunctionDefinition>,
        args: &'a [Node<Expression>],
        s: Span,
    ) -> Result<Val, Error> {
        let vals = self.args_of(Some(name), args)?;
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
        let done = sub.cur;
        let mut fail_state = None;
        if let Some((l, _)) = sub_err {
            sub.cur = None;
            sub.place(l);
            fail_state = sub.cur;
        }
        let unused = self.unused_cell(s)?;
        let st = super::atomic_section::straighten(&mut sub, done, fail_state, unused)
            .map_err(|e| self.err(s, format!("atomic section: {e}")))?;
        self.b.adopt_regs(&sub);
        let sp = self.span(s);
        for (r, n) in st.selectors {
            let alts = (0..n)
                .map(|k| Command::Assign {
                    reg: r,
                    value: Expr::Const(k as i64),
                })
                .collect();
            self.b.choice(alts, sp)?;
        }
        self.emit(Command::Atomic(st.body), s)?;
        if st.fail != Expr::Const(0) {
            let (f, ok) = self.b.branch(&st.fail, sp)?;
            self.b.goto_pos(f);
            self.fail(s);
            self.b.goto_pos(ok);
        }
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
}
