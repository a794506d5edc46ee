//! The atomic built-ins: read-modify-writes (`__sync_*`, `__atomic_*`,
//! C11 `atomic_*`) as locked instructions, compare-and-swap, C11 loads
//! and stores by memory order, and the fences. docs/c.md, "C11 atomics".

use super::ctx::Ctx;
use super::expr::{LVal, Val};
use super::types::CType;
use crate::diag::Error;
use crate::program::{BinOp, Command, Expr, Fence, LExpr, MembarMask};
use lang_c::ast::Expression;
use lang_c::span::{Node, Span};

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

/// The read-modify-write of an atomic built-in's `base` name (without
/// `_explicit`/`_n`) and whether it returns the new value; `None`: not a
/// read-modify-write (GCC's generic `__atomic_exchange` passes values
/// through pointers and is not one either).
fn rmw_of(base: &str, generic: bool) -> Option<(Rmw, bool)> {
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
    if generic && base == "__atomic_exchange" {
        None
    } else if let Some(x) = base.strip_prefix("__sync_fetch_and_") {
        op(x).map(|r| (r, false))
    } else if let Some(x) = base
        .strip_prefix("__sync_")
        .and_then(|x| x.strip_suffix("_and_fetch"))
    {
        op(x).map(|r| (r, true))
    } else if let Some(x) = base.strip_prefix("__atomic_fetch_") {
        op(x).map(|r| (r, false))
    } else if let Some(x) = base
        .strip_prefix("__atomic_")
        .and_then(|x| x.strip_suffix("_fetch"))
    {
        op(x).map(|r| (r, true))
    } else if let Some(x) = base.strip_prefix("atomic_fetch_") {
        op(x).map(|r| (r, false))
    } else if matches!(
        base,
        "__sync_lock_test_and_set" | "__atomic_exchange" | "atomic_exchange"
    ) {
        Some((Rmw::Xchg, false))
    } else {
        None
    }
}

impl<'a> Ctx<'a> {
    /// The atomic built-ins: fences, read-modify-writes (`__sync_*`,
    /// `__atomic_*`, C11 `atomic_*`) as locked instructions (`Atomic`),
    /// C11 loads, stores, exchanges and compare-exchanges. `None`: not
    /// one.
    ///
    /// Errors: too few arguments (located at `s`); those of the
    /// arguments.
    pub(super) fn atomic_builtin(
        &mut self,
        n: &str,
        args: &'a [Node<Expression>],
        s: Span,
    ) -> Result<Option<Val>, Error> {
        match n {
            "__sync_synchronize" => {
                self.emit(Command::Fence(Fence::MFence), s)?;
                return Ok(Some(Val::int(Expr::Const(0))));
            }
            "atomic_thread_fence" | "__atomic_thread_fence" => {
                if let Some(f) = self.order(args.first()).fence() {
                    self.emit(Command::Fence(f), s)?;
                }
                return Ok(Some(Val::int(Expr::Const(0))));
            }
            _ => {}
        }
        let base = n
            .strip_suffix("_explicit")
            .or_else(|| n.strip_suffix("_n"))
            .unwrap_or(n);
        // GCC's generic `__atomic_load/store/exchange/compare_exchange`
        // pass values through pointers (`__atomic_store(p, &v, mo)`).
        let generic = n == base && n.starts_with("__atomic_");
        if let Some((rmw, new)) = rmw_of(base, generic) {
            if args.len() < 2 {
                return Err(self.err(s, format!("`{n}` needs 2 arguments")));
            }
            return self.rmw(rmw, new, args, s).map(Some);
        }
        self.atomic_access(n, base, generic, args, s)
    }

    /// A read-modify-write `op` on `*args[0]` with operand `args[1]`: one
    /// locked load and store; its value is the new value when `new`,
    /// else the old one.
    fn rmw(
        &mut self,
        rmw: Rmw,
        new: bool,
        args: &'a [Node<Expression>],
        s: Span,
    ) -> Result<Val, Error> {
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
        Ok(Val {
            e: if new { nv } else { Expr::Var(old) },
            ty,
        })
    }

    /// The atomic built-ins other than read-modify-writes: `n` the called
    /// name, `base` it without `_explicit`/`_n`, `generic` for GCC's
    /// pointer-passing forms. `None`: not one.
    fn atomic_access(
        &mut self,
        n: &str,
        base: &str,
        generic: bool,
        args: &'a [Node<Expression>],
        s: Span,
    ) -> Result<Option<Val>, Error> {
        let need = |cx: &Ctx<'a>, k: usize| -> Result<(), Error> {
            if args.len() < k {
                Err(cx.err(s, format!("`{n}` needs {k} arguments")))
            } else {
                Ok(())
            }
        };
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
