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

use crate::diag::Span;
use crate::program::{BinOp, Command, Expr, LExpr, RegId, StateId, Thread};

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
        let n = t.states.len();
        let mut at: Vec<Option<Regs>> = vec![None; n];
        let init: Regs = (0..t.regs.len())
            .map(|r| Some(t.reg_init.get(r).copied().unwrap_or(0)))
            .collect();
        let start = t.initial.0 as usize;
        if start >= n {
            return Known { at };
        }
        at[start] = Some(init);
        let out = t.outgoing();
        let mut work = vec![start];
        while let Some(q) = work.pop() {
            let Some(before) = at[q].clone() else {
                continue;
            };
            for &i in &out[q] {
                let ins = &t.instrs[i];
                let mut after = before.clone();
                transfer(&ins.cmd, &mut after);
                let to = ins.to.0 as usize;
                let merged: Regs = match &at[to] {
                    None => after,
                    Some(old) => old
                        .iter()
                        .zip(&after)
                        .map(|(a, b)| if a == b { *a } else { None })
                        .collect(),
                };
                if at[to].as_ref() != Some(&merged) {
                    at[to] = Some(merged);
                    work.push(to);
                }
            }
        }
        Known { at }
    }

    /// The value of the address `addr` of the access written at `span`
    /// (its mnemonic) in thread `t`, when known statically: `addr`
    /// evaluated before every reachable instruction written there that
    /// accesses memory, all giving the same value. `None` otherwise (or
    /// when no such instruction is reachable).
    pub(super) fn address(&self, t: &Thread, addr: &LExpr, span: Span) -> Option<i64> {
        let mut value = None;
        for ins in &t.instrs {
            let here =
                ins.span.start <= span.start && span.start < ins.span.end.max(ins.span.start + 1);
            if !(here && accesses_memory(&ins.cmd)) {
                continue;
            }
            let Some(Some(regs)) = self.at.get(state(ins.from)) else {
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

fn state(s: StateId) -> usize {
    s.0 as usize
}

/// True when `c` reads or writes memory.
fn accesses_memory(c: &Command) -> bool {
    match c {
        Command::Load { .. }
        | Command::LoadReserve { .. }
        | Command::Store { .. }
        | Command::StoreCond { .. } => true,
        Command::Atomic(cs) => cs.iter().any(accesses_memory),
        Command::Ann(_, c) => accesses_memory(c),
        _ => false,
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
