//! The registers' values known statically at each instruction of a
//! lowered litmus thread, and the address of a memory access when it is
//! known statically: a forward constant propagation over the thread's
//! control states (each register known or not; at a join, known when
//! every incoming path gives the same value), with the identities that
//! give zero whatever the operands (`x ^ x`, `x - x`, `x & 0`, `x * 0`:
//! herd's dependency zeros, `EOR X3,X1,X1` on a value read). The address
//! of `LDR W5,[X4]` after `EOR X3,X1,X1; ADD X4,X2,X3` is then X2's
//! initial value: the location herd's execution accesses whatever the
//! value read, as herd computes `x ⊕ x = 0` on every value.
//!
//! Used by the mixed-size checks of [`super::lower`] (which location an
//! access addresses, at which byte offset).

use super::flow::{access_states, forward};
use crate::diag::Span;
use crate::program::{BinOp, Command, Expr, LExpr, RegId, Thread};

/// Per register, its value when known statically (`None`: not known).
type Regs = Vec<Option<i64>>;

/// The registers known at each control state of a thread, computed once.
pub(super) struct Known {
    /// Per state: the registers before its outgoing instructions (`None`:
    /// no path reaches it).
    at: Vec<Option<Regs>>,
}

impl Known {
    /// Runs the propagation over `t` to a fixpoint (a register only goes
    /// from known to not known, so it terminates on cycles too).
    pub(super) fn new(t: &Thread) -> Known {
        let init: Regs = (0..t.regs.len())
            .map(|r| Some(t.reg_init.get(r).copied().unwrap_or(0)))
            .collect();
        let at = forward(
            t,
            init,
            |ins, regs| transfer(&ins.cmd, regs),
            |old, new| {
                let mut changed = false;
                for (a, b) in old.iter_mut().zip(new) {
                    if a.is_some() && *a != b {
                        *a = None;
                        changed = true;
                    }
                }
                changed
            },
        );
        Known { at }
    }

    /// The value of the address `addr` of the access written at `span`
    /// (its mnemonic) in thread `t`, when known statically: `addr`
    /// evaluated before every reachable instruction written there that
    /// accesses memory, all giving the same value. `None` otherwise (or
    /// when no such instruction is reachable).
    pub(super) fn address(&self, t: &Thread, addr: &LExpr, span: Span) -> Option<i64> {
        let mut value = None;
        for q in access_states(t, span) {
            let Some(Some(regs)) = self.at.get(q) else {
                continue;
            };
            let v = const_value(addr, regs)?;
            if value.is_some_and(|x| x != v) {
                return None;
            }
            value = Some(v);
        }
        value
    }
}

/// The registers after `c`: an assignment of an expression
/// [`const_value`] evaluates gives its register that value; every other
/// write (a load, a select, a store-conditional's flag, an assignment of
/// anything else) makes its register unknown.
fn transfer(c: &Command, regs: &mut Regs) {
    let mut set = |r: RegId, v: Option<i64>| {
        if let Some(x) = regs.get_mut(r.0 as usize) {
            *x = v;
        }
    };
    match c {
        Command::Assign { reg, value } => {
            let v = const_value(value, regs);
            if let Some(x) = regs.get_mut(reg.0 as usize) {
                *x = v;
            }
        }
        Command::Load { reg, .. }
        | Command::LoadReserve { reg, .. }
        | Command::Select { reg, .. } => set(*reg, None),
        Command::StoreCond { flag, .. } => set(*flag, None),
        Command::Atomic(cs) => cs.iter().for_each(|c| transfer(c, regs)),
        Command::Ann(_, c) => transfer(c, regs),
        _ => {}
    }
}

/// The value of `e` when it is known statically from `regs`: constants,
/// known registers, `+`, `-`, `^`, `&`, `|`, and the identities that give
/// zero whatever the operands (`x ^ x`, `x - x`, `x & 0`, `x * 0`:
/// herd's dependency zeros). None otherwise.
pub(super) fn const_value(e: &LExpr, regs: &[Option<i64>]) -> Option<i64> {
    match e {
        Expr::Const(c) => Some(*c),
        Expr::Var(r) => regs.get(r.0 as usize).copied().flatten(),
        Expr::Bin(op, a, b) => {
            let (x, y) = (const_value(a, regs), const_value(b, regs));
            match op {
                BinOp::BitXor | BinOp::Sub if a == b => Some(0),
                BinOp::BitAnd | BinOp::Mul if x == Some(0) || y == Some(0) => Some(0),
                BinOp::Add => Some(x?.wrapping_add(y?)),
                BinOp::Sub => Some(x?.wrapping_sub(y?)),
                BinOp::BitXor => Some(x? ^ y?),
                BinOp::BitAnd => Some(x? & y?),
                BinOp::BitOr => Some(x? | y?),
                _ => None,
            }
        }
        _ => None,
    }
}
