//! A thread's concrete prefix: how far it runs from its initial registers
//! before its control flow depends on a value read from memory. herd
//! evaluates such branches during its symbolic execution, so the litmus
//! front-end (herd's `Loop` flag) and the litmus bound both use it.

use crate::program::{Command, LExpr, RegId, Spmd, StateId, Thread, Width};

/// The longest run [`concrete_prefix`] follows (instructions): a thread
/// whose concrete control flow goes further (`L: B L`) keeps the plain
/// bound.
pub const CONCRETE_MAX: u32 = 256;

/// How far `th` runs before its control flow depends on memory: starting
/// from its initial registers, the instructions are executed with concrete
/// values while exactly one outgoing instruction of the current state is
/// enabled and that is decided by known values (a branch on a register
/// computed from constants; a loaded value is unknown). Returns (steps,
/// state reached), or None when the run exceeds [`CONCRETE_MAX`] steps.
/// herd evaluates such branches during its symbolic execution, so loops
/// on concrete values run to their end whatever its `-unroll` (herd's
/// test `L028`: a 10-iteration loop).
pub fn concrete_prefix(th: &Thread, w: Width) -> Option<(u32, StateId)> {
    let out = th.outgoing();
    let mut regs: Vec<Option<i64>> = th.reg_init.iter().map(|v| Some(w.wrap(*v))).collect();
    let mut q = th.initial;
    for steps in 0..=CONCRETE_MAX {
        let outs = out.get(q.0 as usize).map(Vec::as_slice).unwrap_or(&[]);
        let mut taken = None;
        for &i in outs {
            let mut r = regs.clone();
            match exec(&th.instrs[i].cmd, &mut r, w) {
                Some(true) if taken.is_none() => taken = Some((i, r)),
                Some(false) => {}
                // Unknown, or a second enabled instruction: stop here.
                _ => return Some((steps, q)),
            }
        }
        match taken {
            Some((i, r)) => {
                regs = r;
                q = th.instrs[i].to;
            }
            None => return Some((steps, q)),
        }
    }
    None
}

/// Executes `c` on concrete registers (None = unknown): Some(enabled), or
/// None when whether it is enabled depends on an unknown value.
fn exec(c: &Command, regs: &mut [Option<i64>], w: Width) -> Option<bool> {
    let val = |e: &LExpr, regs: &[Option<i64>]| -> Option<i64> {
        let mut known = true;
        let v = e.eval(w, Spmd::default(), &mut |r: RegId| {
            regs.get(r.0 as usize)
                .copied()
                .flatten()
                .unwrap_or_else(|| {
                    known = false;
                    0
                })
        });
        known.then_some(v)
    };
    let set = |regs: &mut [Option<i64>], r: RegId, v: Option<i64>| {
        if let Some(x) = regs.get_mut(r.0 as usize) {
            *x = v;
        }
    };
    match c {
        Command::Assume(e) | Command::Guard(e) => val(e, regs).map(|v| v != 0),
        Command::Assign { reg, value } => {
            let v = val(value, regs);
            set(regs, *reg, v);
            Some(true)
        }
        Command::Select {
            reg,
            cond,
            then,
            else_,
        } => {
            let v = match val(cond, regs) {
                Some(0) => val(else_, regs),
                Some(_) => val(then, regs),
                None => None,
            };
            set(regs, *reg, v);
            Some(true)
        }
        Command::Load { reg, .. } | Command::LoadReserve { reg, .. } => {
            set(regs, *reg, None);
            Some(true)
        }
        Command::StoreCond { flag, .. } => {
            set(regs, *flag, None);
            Some(true)
        }
        Command::Ann(_, c) | Command::Tagged(_, c) => exec(c, regs, w),
        Command::Atomic(cs) => {
            for c in cs {
                if !exec(c, regs, w)? {
                    return Some(false);
                }
            }
            Some(true)
        }
        Command::Pgas(_) => None,
        _ => Some(true),
    }
}
