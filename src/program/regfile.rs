//! The registers of every thread of a program as one flat vector (thread
//! after thread), as the explicit-state engines keep them in their states:
//! offsets, evaluation of expressions over a thread's registers, writes
//! wrapped to the width, local commands, and the reset of registers that
//! are dead at a control state (so that states differing only there are
//! one; liveness from [`super::liveness`]).

use super::{Command, LExpr, Program, RegId, Spmd, Width};
use std::ops::Range;

/// The register layout of one program at one width.
#[derive(Clone, Debug)]
pub struct RegFile {
    /// `off[t]..off[t + 1]`: thread `t`'s registers.
    off: Vec<usize>,
    /// Per thread, control state and register: live there.
    live: Vec<Vec<Vec<bool>>>,
    w: Width,
}

impl RegFile {
    /// The layout of `p`'s registers at width `w`, with their liveness.
    pub fn new(p: &Program, w: Width) -> RegFile {
        let mut off = vec![0];
        for t in &p.threads {
            off.push(off.last().copied().unwrap_or(0) + t.regs.len());
        }
        RegFile {
            off,
            live: super::liveness::program_liveness(p, &[]),
            w,
        }
    }

    /// The initial registers of `p` (its `reg_init`, wrapped).
    pub fn initial(&self, p: &Program) -> Vec<i64> {
        p.threads
            .iter()
            .flat_map(|t| t.reg_init.iter().map(|v| self.w.wrap(*v)))
            .collect()
    }

    /// Thread `t`'s slice of the flat vector.
    pub fn span(&self, t: usize) -> Range<usize> {
        self.off[t]..self.off[t + 1]
    }

    /// The flat index of thread `t`'s register `r` (`None`: no such
    /// register).
    pub fn index(&self, t: usize, r: RegId) -> Option<usize> {
        let i = self.off[t] + r.0 as usize;
        (i < self.off[t + 1]).then_some(i)
    }

    /// The value of `e` over thread `t`'s registers in `regs`.
    pub fn eval(&self, regs: &[i64], t: usize, e: &LExpr) -> i64 {
        let mine = &regs[self.span(t)];
        e.eval(self.w, Spmd::default(), &mut |r: RegId| {
            mine.get(r.0 as usize).copied().unwrap_or(0)
        })
    }

    /// Sets thread `t`'s register `r` to `v` wrapped to the width.
    pub fn set(&self, regs: &mut [i64], t: usize, r: RegId, v: i64) {
        if let Some(i) = self.index(t, r) {
            regs[i] = self.w.wrap(v);
        }
    }

    /// Whether thread `t`'s `r`-th register is live at control state `q`.
    pub fn is_live(&self, t: usize, q: usize, r: usize) -> bool {
        self.live[t].get(q).is_some_and(|l| l[r])
    }

    /// The flat indices of thread `t`'s registers dead at control state
    /// `q`.
    pub fn dead(&self, t: usize, q: usize) -> impl Iterator<Item = usize> + '_ {
        self.span(t)
            .filter(move |&i| !self.is_live(t, q, i - self.off[t]))
    }

    /// Runs the local command `c` of thread `t` on `regs` (assignments,
    /// selects; `assume` and guards test); false when it blocks. Other
    /// commands change no register here.
    pub fn local(&self, regs: &mut [i64], t: usize, c: &Command) -> bool {
        match c {
            Command::Assign { reg, value } => {
                let v = self.eval(regs, t, value);
                self.set(regs, t, *reg, v);
                true
            }
            Command::Assume(e) | Command::Guard(e) => self.eval(regs, t, e) != 0,
            Command::Select {
                reg,
                cond,
                then,
                else_,
            } => {
                let c = self.eval(regs, t, cond);
                let v = self.eval(regs, t, if c != 0 { then } else { else_ });
                self.set(regs, t, *reg, v);
                true
            }
            Command::Ann(_, c) | Command::Tagged(_, c) => self.local(regs, t, c),
            _ => true,
        }
    }
}
