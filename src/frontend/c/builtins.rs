//! The built-in functions: the dispatch of a called name that the file
//! does not define (or that is reserved) to its group — SV-COMP's
//! `__VERIFIER_*` conventions and `assert` (here), the pthreads API
//! (module `pthreads`), memory (module `memory`), atomics and fences
//! (module `atomics`) — and the calls that do nothing in the model
//! (`printf`, `sleep`, ...). docs/c.md lists each one's meaning.

use super::ctx::Ctx;
use super::expr::Val;
use super::types::CType;
use crate::diag::Error;
use crate::program::{BinOp, Command, Expr};
use lang_c::ast::{CallExpression, Expression};
use lang_c::span::{Node, Span};

/// The value of a built-in that returns nothing useful.
fn zero() -> Val {
    Val::int(Expr::Const(0))
}

impl<'a> Ctx<'a> {
    /// A call of `name`, which is not a user function (or is reserved):
    /// a built-in, or a function only declared in the file (the path
    /// reports reaching it; docs/c.md, "Functions declared but not
    /// defined").
    ///
    /// Errors: a name that is neither (located at the callee); missing
    /// arguments; those of the built-in.
    pub(super) fn builtin(
        &mut self,
        name: &str,
        c: &'a CallExpression,
        s: Span,
    ) -> Result<Val, Error> {
        let args = &c.arguments;
        if let Some(v) = self.verifier_builtin(name, args, s)? {
            return Ok(v);
        }
        if let Some(v) = self.thread_builtin(name, args, s)? {
            return Ok(v);
        }
        if let Some(v) = self.memory_builtin(name, args, s)? {
            return Ok(v);
        }
        if let Some(v) = self.atomic_builtin(name, args, s)? {
            return Ok(v);
        }
        if no_effect(name) {
            return Ok(zero());
        }
        if self.fn_decls.contains(name) && self.in_atomic == 0 {
            // Declared, not defined: the path reports reaching it
            // (docs/c.md, "Functions declared but not defined").
            for a in args {
                self.rvalue(a)?;
            }
            let sp = self.span(c.callee.span);
            self.b.jump_shared(&mut self.extern_call, sp);
            return Ok(zero());
        }
        Err(self.err(
            c.callee.span,
            format!("call of `{name}`, which is neither defined in the file nor a supported built-in (docs/c.md)"),
        ))
    }

    /// Argument `k` of a call of `name`.
    ///
    /// Errors: the call has fewer arguments (located at `s`).
    pub(super) fn arg_of(
        &self,
        name: &str,
        args: &'a [Node<Expression>],
        k: usize,
        s: Span,
    ) -> Result<&'a Node<Expression>, Error> {
        args.get(k)
            .ok_or_else(|| self.err(s, format!("`{name}` needs at least {} argument(s)", k + 1)))
    }

    /// SV-COMP's conventions and the C library's assertions and exits:
    /// `__VERIFIER_assume`, `assert`, the error functions, `abort`/`exit`,
    /// atomic-section markers, `__VERIFIER_nondet_*`, `__builtin_expect`.
    /// `None`: not one of them.
    fn verifier_builtin(
        &mut self,
        name: &str,
        args: &'a [Node<Expression>],
        s: Span,
    ) -> Result<Option<Val>, Error> {
        match name {
            "__VERIFIER_assume" | "assume" | "__CPROVER_assume" => {
                let v = self.cond(self.arg_of(name, args, 0, s)?)?;
                self.emit(Command::Assume(v), s)?;
            }
            "assert" | "__VERIFIER_assert" => {
                let v = self.cond(self.arg_of(name, args, 0, s)?)?;
                let (t, e) = self.b.branch(&v, self.span(s))?;
                self.b.goto_pos(e);
                self.fail(s);
                self.b.goto_pos(t);
            }
            "__assert_fail"
            | "__assert_perror_fail"
            | "__assert"
            | "__assert_rtn"
            | "reach_error"
            | "__VERIFIER_error" => self.fail(s),
            "abort" | "exit" | "_exit" | "_Exit" => self.b.cur = None,
            "__VERIFIER_atomic_begin" => self.emit(Command::Lock, s)?,
            "__VERIFIER_atomic_end" => self.emit(Command::Unlock, s)?,
            "__builtin_expect" => return self.rvalue(self.arg_of(name, args, 0, s)?).map(Some),
            n if n.starts_with("__VERIFIER_nondet_") || n.starts_with("nondet_") => {
                return self.nondet(n, s).map(Some)
            }
            _ => return Ok(None),
        }
        Ok(Some(zero()))
    }

    /// The pthreads API: threads, mutexes, condition variables.
    /// `None`: not one of them.
    fn thread_builtin(
        &mut self,
        name: &str,
        args: &'a [Node<Expression>],
        s: Span,
    ) -> Result<Option<Val>, Error> {
        match name {
            "pthread_exit" => {
                let Some(end) = self.end else {
                    return Err(self.err(
                        s,
                        "`pthread_exit` inside an atomic section is not supported",
                    ));
                };
                self.b.jump(end);
            }
            "pthread_create" => return self.pthread_create(args, s).map(Some),
            "pthread_join" => return self.pthread_join(args, s).map(Some),
            "pthread_mutex_lock" | "pthread_mutex_unlock" | "pthread_mutex_trylock" => {
                return self
                    .mutex(name, self.arg_of(name, args, 0, s)?, s)
                    .map(Some)
            }
            "pthread_cond_wait" | "pthread_cond_timedwait" => {
                // POSIX allows spurious wakeups: waiting is releasing the
                // mutex and taking it again (docs/c.md, "Threads").
                let (c, m) = (
                    self.arg_of(name, args, 0, s)?,
                    self.arg_of(name, args, 1, s)?,
                );
                self.rvalue(c)?;
                self.mutex("pthread_mutex_unlock", m, s)?;
                self.mutex("pthread_mutex_lock", m, s)?;
                if let Some(t) = args.get(2) {
                    self.rvalue(t)?;
                }
            }
            "pthread_cond_signal"
            | "pthread_cond_broadcast"
            | "pthread_cond_init"
            | "pthread_cond_destroy" => {
                for a in args {
                    self.rvalue(a)?;
                }
            }
            _ => return Ok(None),
        }
        Ok(Some(zero()))
    }

    /// Dynamic memory and block copies (module `memory`), `atexit`.
    /// `None`: not one of them.
    fn memory_builtin(
        &mut self,
        name: &str,
        args: &'a [Node<Expression>],
        s: Span,
    ) -> Result<Option<Val>, Error> {
        match name {
            "malloc" | "calloc" | "alloca" | "__builtin_alloca" | "__builtin_malloc" => {
                self.allocate(name, args, s).map(Some)
            }
            "atexit" => {
                // Handlers would run after `main` returns, which ends only
                // thread `main` here (docs/c.md, "Threads"): not run.
                self.rvalue(self.arg_of(name, args, 0, s)?)?;
                Ok(Some(zero()))
            }
            "free" => {
                // Memory is not reused (docs/c.md, "Dynamic memory").
                self.rvalue(self.arg_of(name, args, 0, s)?)?;
                Ok(Some(zero()))
            }
            "memset" | "memcpy" | "memmove" | "__builtin_memset" | "__builtin_memcpy" => {
                self.mem_block(name, args, s).map(Some)
            }
            "strcpy" | "__builtin_strcpy" => self.strcpy(args, s).map(Some),
            "realloc" => Err(self.err(
                s,
                "`realloc` is not supported (docs/c.md, \"Dynamic memory\")",
            )),
            _ => Ok(None),
        }
    }

    /// `__VERIFIER_nondet_T()`: any value of the width (`_Bool`/`bool`:
    /// 0 or 1), chosen bit by bit — or, for a draw into a register local
    /// that the next statement bounds ([`super::draws`]), `lo` plus as
    /// many bits as the range `[lo, hi]` needs.
    pub(super) fn nondet(&mut self, name: &str, s: Span) -> Result<Val, Error> {
        let range = self.draw.take().and_then(|d| match self.lookup(&d.name) {
            Some(super::ctx::Local::Reg(_, CType::Int)) => d.range(false, self.width.0),
            Some(super::ctx::Local::Reg(_, CType::UInt)) => d.range(true, self.width.0),
            _ => None,
        });
        self.nondet_in(name, s, range)
    }

    /// `__VERIFIER_nondet_T()` drawing from `range` (`lo` plus as many
    /// bits as `[lo, hi]` needs; every value drawn is one the call may
    /// return) or, for `None`, any value of the width (`_Bool`/`bool`: 0
    /// or 1), bit by bit. The caller guarantees that the values left out
    /// take no path the drawn ones do not (a bounded draw, a `switch`'s
    /// representatives).
    pub(super) fn nondet_in(
        &mut self,
        name: &str,
        s: Span,
        range: Option<(i64, i64)>,
    ) -> Result<Val, Error> {
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
        } else if let Some((lo, hi)) = range {
            // The fewest bits k with 2^k > hi - lo.
            64 - ((hi - lo) as u64).leading_zeros()
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
        if let Some((lo, _)) = range.filter(|_| !name.ends_with("bool")) {
            self.emit(
                Command::Assign {
                    reg: t,
                    value: Expr::bin(BinOp::Add, Expr::Var(t), Expr::Const(self.width.wrap(lo))),
                },
                s,
            )?;
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
}

/// Calls that do nothing in the model (initialisations of objects the
/// model does not need, output, scheduling hints, sleeping).
fn no_effect(n: &str) -> bool {
    matches!(
        n,
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
            | "sleep"
            | "atomic_signal_fence"
            | "__atomic_signal_fence"
    )
}
