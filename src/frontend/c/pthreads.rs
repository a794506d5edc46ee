//! The pthreads built-ins: `pthread_create` (a new thread of the
//! program, its start routine lowered later), `pthread_join` (waiting
//! for the thread's done flag) and the mutexes. docs/c.md, "Threads".

use super::ctx::{Ctx, ThreadArg};
use super::expr::{LVal, Val};
use super::types::CType;
use crate::diag::Error;
use crate::program::{BinOp, Command, Expr, Fence};
use lang_c::ast::{Expression, UnaryOperator as U};
use lang_c::span::{Node, Span};

impl<'a> Ctx<'a> {
    /// `pthread_create(&h, attr, f, arg)`: a new thread (module doc of
    /// `ctx`); the handle receives the thread's id.
    pub(super) fn pthread_create(
        &mut self,
        args: &'a [Node<Expression>],
        s: Span,
    ) -> Result<Val, Error> {
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
        let replicated = self.replicating > 0;
        if replicated && self.uses_join {
            return Err(self.err(
                s,
                "a thread created in a loop kept as a cycle, in a program that joins threads",
            ));
        }
        let id = self.new_thread_slot(fname.as_deref().unwrap_or("thread"), s)?;
        let targ = match arg.as_const(self.width) {
            Some(v) => ThreadArg::Const(v),
            None if replicated => {
                return Err(self.err(
                    args[3].span,
                    "a thread created in a loop kept as a cycle takes an argument that is not a constant",
                ))
            }
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
            replicated,
        });
        Ok(Val::int(Expr::Const(0)))
    }

    /// `pthread_join(h, ret)`: waits for the thread's done flag; a handle
    /// that is not a known constant chooses among the threads created so
    /// far.
    pub(super) fn pthread_join(
        &mut self,
        args: &'a [Node<Expression>],
        s: Span,
    ) -> Result<Val, Error> {
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

    /// Mutexes: a cell taken by a locked compare-and-swap 0 → 1 and
    /// released by a locked write of 0 (POSIX: a mutex excludes the
    /// other holders of that mutex only; the IR's `lock`, which blocks
    /// every other thread's memory accesses (thesis 003 §7.1.1), would
    /// hide the races of accesses outside the critical sections).
    pub(super) fn mutex(
        &mut self,
        name: &str,
        m: &'a Node<Expression>,
        s: Span,
    ) -> Result<Val, Error> {
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
}
