//! The enumeration engine: every candidate execution of a small encoding
//! visited directly, as herd7 does (control paths × rf × co), and the
//! model checked on each with the caching evaluator, instead of one SAT
//! solve per final state ([`crate::bounded::queries::enumerate_final`]).
//!
//! The encoding is the varisat backend's, recorded as clauses
//! ([`Cnf::recording`]). A depth-first search with unit propagation (two
//! watched literals, no learning) decides the *candidate variables* —
//! selection literals (the control path), `rf`, `co` orientations, then
//! every literal the model's evaluation or the observed values read
//! (events' kinds, addresses, values, dependencies): both values of each,
//! so every candidate the SAT path could return is visited once. The
//! remaining (auxiliary) variables only need one completion that
//! satisfies the clauses. At each complete candidate the encoder's
//! consistency check (`co` acyclic, then the model's axioms, the same
//! [`crate::cat::eval::Evaluator`] the lazy loop runs) decides, and a
//! consistent candidate's observed values are a final state.
//!
//! The search gives up after `budget` candidates (the caller then solves:
//! [`Cnf::stop_recording`] hands the same clauses to varisat), so it is
//! chosen only where it pays: tests with few candidates, where a SAT
//! solve per state and per refinement costs more than visiting them all.

use super::bv::Bv;
use super::cnf::Cnf;
use super::Encoder;
use crate::bounded::Deadline;
use crate::collections::HashSet;
use crate::diag::Error;
use varisat::Lit;

/// Default budget of candidates (`litmus --enumerate auto`): above it the
/// SAT path answers. Chosen by measurement on the litmus corpora
/// (docs/performance.md, "round 5").
pub const DEFAULT_BUDGET: usize = 96;

const UNSET: i8 = 0;

/// One decision level: where its assignments start on the trail, its
/// decision literal, whether the other value was tried, and whether it
/// decides an auxiliary variable (completion) rather than a candidate one.
#[derive(Clone, Copy)]
struct Level {
    start: usize,
    lit: Lit,
    flipped: bool,
    aux: bool,
}

/// Unit propagation over a clause list, with a trail and levels.
struct Dpll {
    /// Per variable: 1 true, -1 false, 0 unassigned.
    val: Vec<i8>,
    /// Clause literals, flat; clause `c` is `lits[start[c]..start[c+1]]`
    /// with its two watched literals first.
    lits: Vec<Lit>,
    start: Vec<usize>,
    /// Per literal code: the clauses watching it.
    watch: Vec<Vec<u32>>,
    trail: Vec<Lit>,
    head: usize,
    levels: Vec<Level>,
}

impl Dpll {
    /// The clauses of `cnf` (recording mode) over its variables; `None`
    /// when a clause is empty or two units clash (no candidate at all).
    fn new(cnf: &Cnf) -> Option<Dpll> {
        let nv = cnf.num_vars() + 1;
        let mut d = Dpll {
            val: vec![UNSET; nv],
            lits: Vec::new(),
            start: vec![0],
            watch: vec![Vec::new(); 2 * nv],
            trail: Vec::with_capacity(nv),
            head: 0,
            levels: Vec::new(),
        };
        let mut units = Vec::new();
        for c in cnf.clauses_since(0) {
            match c.len() {
                0 => return None,
                1 => units.push(c[0]),
                _ => {
                    let id = (d.start.len() - 1) as u32;
                    d.watch[c[0].code()].push(id);
                    d.watch[c[1].code()].push(id);
                    d.lits.extend_from_slice(c);
                    d.start.push(d.lits.len());
                }
            }
        }
        for u in units {
            match d.value(u) {
                Some(true) => {}
                Some(false) => return None,
                None => d.assign(u),
            }
        }
        Some(d)
    }

    fn value(&self, l: Lit) -> Option<bool> {
        match self.val.get(l.index()).copied().unwrap_or(UNSET) {
            UNSET => None,
            v => Some((v > 0) != l.is_negative()),
        }
    }

    fn assign(&mut self, l: Lit) {
        self.val[l.index()] = if l.is_negative() { -1 } else { 1 };
        self.trail.push(l);
    }

    /// Propagates the trail; false on a conflict.
    fn propagate(&mut self) -> bool {
        while self.head < self.trail.len() {
            let falsified = !self.trail[self.head];
            self.head += 1;
            let code = falsified.code();
            let mut ws = std::mem::take(&mut self.watch[code]);
            let mut i = 0;
            let mut ok = true;
            while i < ws.len() {
                let c = ws[i] as usize;
                let (s, e) = (self.start[c], self.start[c + 1]);
                // Keep the falsified watch in position 1.
                if self.lits[s] == falsified {
                    self.lits.swap(s, s + 1);
                }
                let first = self.lits[s];
                if self.value(first) == Some(true) {
                    i += 1;
                    continue;
                }
                // A replacement watch.
                let mut moved = false;
                for k in s + 2..e {
                    if self.value(self.lits[k]) != Some(false) {
                        self.lits.swap(s + 1, k);
                        self.watch[self.lits[s + 1].code()].push(c as u32);
                        ws.swap_remove(i);
                        moved = true;
                        break;
                    }
                }
                if moved {
                    continue;
                }
                match self.value(first) {
                    None => {
                        self.assign(first);
                        i += 1;
                    }
                    Some(false) => {
                        ok = false;
                        break;
                    }
                    Some(true) => i += 1,
                }
            }
            self.watch[code] = ws;
            if !ok {
                return false;
            }
        }
        true
    }

    fn undo_to(&mut self, n: usize) {
        for l in self.trail.drain(n..) {
            self.val[l.index()] = UNSET;
        }
        self.head = self.head.min(n);
    }

    fn decide(&mut self, l: Lit, aux: bool) {
        self.levels.push(Level {
            start: self.trail.len(),
            lit: l,
            flipped: false,
            aux,
        });
        self.assign(l);
    }

    /// Undoes levels down to the deepest one (auxiliary ones only when
    /// `aux_only`) whose other value is untried, and tries it; false when
    /// there is none.
    fn backtrack(&mut self, aux_only: bool) -> bool {
        while let Some(lv) = self.levels.pop() {
            if aux_only && !lv.aux {
                self.levels.push(lv);
                return false;
            }
            self.undo_to(lv.start);
            if !lv.flipped {
                self.levels.push(Level {
                    flipped: true,
                    lit: !lv.lit,
                    ..lv
                });
                self.assign(!lv.lit);
                return true;
            }
        }
        false
    }

    /// Drops the auxiliary levels on top (a completion).
    fn drop_aux(&mut self) {
        while let Some(lv) = self.levels.last().copied() {
            if !lv.aux {
                break;
            }
            self.levels.pop();
            self.undo_to(lv.start);
        }
    }

    /// Assigns every unassigned variable (index order) so that all
    /// clauses hold, on auxiliary levels; false when no completion exists.
    fn complete(&mut self) -> bool {
        let mut next = 0;
        loop {
            if !self.propagate() {
                if !self.backtrack(true) {
                    return false;
                }
                next = 0;
                continue;
            }
            while next < self.val.len() && self.val[next] != UNSET {
                next += 1;
            }
            if next == self.val.len() {
                return true;
            }
            self.decide(Lit::from_index(next, false), true);
        }
    }
}

/// What [`Encoder::enumerate_observed`] found.
pub enum Enumerated {
    /// The distinct observed values of the consistent candidates, in the
    /// order found.
    States(Vec<Vec<i64>>),
    /// More than the budget of candidates: nothing decided.
    OverBudget,
}

impl Encoder<'_> {
    /// The candidate variables in decision order (see the module doc),
    /// each once, the observed bits and `goal` last.
    fn candidate_vars(&self, obs: &[Bv], goal: &[Lit]) -> Vec<Lit> {
        let mut out = Vec::new();
        for t in &self.un.threads {
            for step in &t.sel {
                out.extend(step.iter().map(|&(_, l)| l));
            }
            out.extend(t.exec.iter().copied());
        }
        let mut rf: Vec<_> = self.rf.iter().map(|(k, &l)| (*k, l)).collect();
        rf.sort_unstable_by_key(|&((w, r), _)| (r, w));
        out.extend(rf.into_iter().map(|(_, l)| l));
        out.extend(self.rf_init.iter().flatten().copied());
        let mut co: Vec<_> = self.co_var.iter().map(|(k, &l)| (*k, l)).collect();
        co.sort_unstable_by_key(|&(k, _)| k);
        out.extend(co.into_iter().map(|(_, l)| l));
        for e in &self.un.events {
            out.extend([e.exec, e.read, e.write, e.atomic]);
            out.extend(e.fences.iter().map(|&(_, l)| l));
            out.extend(e.addr.iter().copied());
            out.extend(e.value.iter().copied());
        }
        let mut deps: Vec<_> = self.deps.iter().map(|(k, &l)| (*k, l)).collect();
        deps.sort_unstable_by_key(|&(k, _)| k);
        out.extend(deps.into_iter().map(|(_, l)| l));
        out.extend(obs.iter().flatten().copied());
        out.extend(goal.iter().copied());
        let mut seen = vec![false; self.cnf.num_vars() + 1];
        out.retain(|l| {
            let v = l.index();
            let fresh = v < seen.len() && !seen[v] && !self.cnf.is_const(*l);
            if fresh {
                seen[v] = true;
            }
            fresh
        });
        out
    }

    /// Every final state of the encoding (recorded with
    /// [`Cnf::recording`]) under `goal` (literals that must hold), as the
    /// values of `obs`, by visiting each candidate execution and checking
    /// the model on it (module doc). [`Enumerated::OverBudget`] after
    /// `budget` candidates; the encoding is unchanged then (apart from
    /// gates the checks defined), for a SAT solve to take over.
    ///
    /// Errors: [`Error::Unknown`] when the deadline passes.
    pub fn enumerate_observed(
        &mut self,
        goal: &[Lit],
        obs: &[Bv],
        budget: usize,
        deadline: Deadline,
    ) -> Result<Enumerated, Error> {
        if let Some(e) = &self.aborted {
            return Err(e.clone());
        }
        let mut states: Vec<Vec<i64>> = Vec::new();
        let mut seen: HashSet<Vec<i64>> = HashSet::default();
        let Some(mut d) = Dpll::new(&self.cnf) else {
            return Ok(Enumerated::States(states));
        };
        // The goal as root assignments.
        for &g in goal {
            match d.value(g) {
                Some(true) => {}
                Some(false) => return Ok(Enumerated::States(states)),
                None => d.assign(g),
            }
        }
        let order = self.candidate_vars(obs, goal);
        let nv = d.val.len();
        let mut candidates = 0usize;
        let mut next = 0usize;
        // Decisions on candidate variables: `next` indexes `order`; on a
        // backtrack it restarts from the first unassigned one.
        loop {
            let ok = d.propagate();
            let leaf = ok && {
                while next < order.len() && d.value(order[next]).is_some() {
                    next += 1;
                }
                next == order.len()
            };
            if ok && !leaf {
                d.decide(!order[next], false);
                continue;
            }
            if leaf && d.complete() {
                candidates += 1;
                if candidates > budget {
                    return Ok(Enumerated::OverBudget);
                }
                if candidates % 64 == 0 {
                    deadline.check()?;
                }
                let m = self.cnf.model_mut();
                m.clear();
                m.extend(d.val.iter().map(|&v| v > 0));
                m.resize(nv, false);
                let t = std::time::Instant::now();
                let refuted = self.refute().is_some();
                self.stats.check_time += t.elapsed().as_secs_f64();
                if refuted {
                    self.stats.refinements += 1;
                } else {
                    let vals: Vec<i64> = obs.iter().map(|b| self.cnf.bv_value(b)).collect();
                    if seen.insert(vals.clone()) {
                        states.push(vals);
                    }
                }
            }
            d.drop_aux();
            if !d.backtrack(false) {
                break;
            }
            next = 0;
        }
        self.stats.candidates += candidates;
        let (v, c) = self.cnf.stats();
        self.stats.vars = v;
        self.stats.clauses = c;
        Ok(Enumerated::States(states))
    }
}
