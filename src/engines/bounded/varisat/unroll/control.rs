//! Control flow of one thread: per step, the selection literals of the
//! candidate instructions (those leaving a control state reachable in
//! exactly that many steps) and the step's exec literal; the control
//! states after each step; and, at the end, the thread's
//! [`ThreadUnroll`].

use super::ThreadUnroll;
use crate::engines::bounded::varisat::bv::Bv;
use crate::engines::bounded::varisat::cnf::Cnf;
use crate::program::{StateId, Thread};
use std::collections::BTreeMap;
use varisat::Lit;

/// The instructions a step may execute: output of [`Control::select`].
pub(super) struct Selection {
    /// The candidates: (index in `Thread::instrs`, sel literal).
    pub(super) sels: Vec<(usize, Lit)>,
    /// The step executes (one candidate is selected).
    pub(super) exec: Lit,
}

/// The control-flow state of a thread between steps.
pub(super) struct Control<'t> {
    th: &'t Thread,
    /// Per control state: the instructions leaving it.
    out: Vec<Vec<usize>>,
    /// Per i ≤ steps so far: the control states after exactly i executed
    /// steps, each with its literal (for the states at the end).
    levels: Vec<Vec<(StateId, Lit)>>,
    /// Control state after exactly i executed steps (candidates).
    cur: BTreeMap<StateId, Lit>,
    /// The exec literal of the previous step (true before step 0).
    prev_exec: Lit,
    /// Per step so far: the selection.
    sel: Vec<Vec<(usize, Lit)>>,
    /// Per step so far: the exec literal.
    exec: Vec<Lit>,
}

impl<'t> Control<'t> {
    /// Thread `th` before its first step: in its initial state.
    pub(super) fn new(th: &'t Thread, cnf: &Cnf) -> Control<'t> {
        let mut at = BTreeMap::new();
        at.insert(th.initial, cnf.tt());
        Control {
            th,
            out: th.outgoing(),
            levels: vec![vec![(th.initial, cnf.tt())]],
            cur: at,
            prev_exec: cnf.tt(),
            sel: Vec::new(),
            exec: Vec::new(),
        }
    }

    /// Selection phase of a step: a fresh sel literal per candidate
    /// instruction (an instruction leaving a state reachable in exactly
    /// the steps so far), at most one selected, the step's exec literal
    /// (some candidate is selected), which implies the previous step's
    /// (prefix closure), and each sel implies its source state. `None`
    /// when there is no candidate: the thread ends before the bound.
    pub(super) fn select(&self, cnf: &mut Cnf) -> Option<Selection> {
        let cands: Vec<usize> = self
            .cur
            .keys()
            .flat_map(|q| self.out[q.0 as usize].iter().copied())
            .collect();
        if cands.is_empty() {
            return None;
        }
        let sels: Vec<(usize, Lit)> = cands.iter().map(|&i| (i, cnf.fresh())).collect();
        let sel_lits: Vec<Lit> = sels.iter().map(|s| s.1).collect();
        cnf.at_most_one(&sel_lits);
        let exec = cnf.or_all(&sel_lits);
        cnf.implies(exec, self.prev_exec);
        for &(i, s) in &sels {
            let from = self.th.instrs[i].from;
            cnf.implies(s, self.cur[&from]);
        }
        Some(Selection { sels, exec })
    }

    /// Control-state phase, last of a step: the states after exactly
    /// one more executed step (the targets of the selected candidates);
    /// records the step's selection. (The state at the end of the
    /// execution is built on demand, [`ThreadUnroll::end_lit`], only for
    /// the states a goal names: a literal per state and step for every
    /// state would be quadratic in the bound on long unwound C threads.)
    pub(super) fn advance(&mut self, cnf: &mut Cnf, step: Selection) {
        let mut next: BTreeMap<StateId, Vec<Lit>> = BTreeMap::new();
        for &(i, s) in &step.sels {
            next.entry(self.th.instrs[i].to).or_default().push(s);
        }
        self.cur = next.iter().map(|(q, ls)| (*q, cnf.or_all(ls))).collect();
        self.levels
            .push(self.cur.iter().map(|(q, l)| (*q, *l)).collect());
        self.sel.push(step.sels);
        self.exec.push(step.exec);
        self.prev_exec = step.exec;
    }

    /// The thread's unrolling after its last step, with `regs_end` its
    /// registers then; `bound` is K (truncation: the thread ran K steps
    /// and could run more).
    pub(super) fn finish(self, bound: u32, regs_end: Vec<Bv>) -> ThreadUnroll {
        let truncated = self.sel.len() == bound as usize
            && self.cur.keys().any(|q| !self.out[q.0 as usize].is_empty());
        ThreadUnroll {
            sel: self.sel,
            exec: self.exec,
            levels: self.levels,
            regs_end,
            truncated,
        }
    }
}
