//! The enumeration engine: every candidate execution of a small encoding
//! visited directly, as herd7 does (control paths × rf × co), and the
//! model checked on each with the caching evaluator, instead of one SAT
//! solve per final state ([`crate::engines::bounded::queries::enumerate_final`]).
//!
//! The encoding is the varisat backend's, recorded as clauses
//! ([`Cnf::recording`]). A depth-first search with unit propagation (two
//! watched literals, no learning) decides the *candidate variables* —
//! selection literals (the control path), `rf`, `co` orientations, then
//! every literal the model's evaluation or the observed values read
//! (events' kinds, addresses, values, dependencies): both values of each,
//! so every candidate the SAT path could return is visited once — except
//! where the value cannot matter (an event's kinds, address and value
//! when it is not executed, a co orientation unless both are writes, a
//! dependency unless both ends are executed: those are completed once,
//! not decided). The
//! remaining (auxiliary) variables only need one completion that
//! satisfies the clauses. At each complete candidate whose observed
//! values are not yet a final state (or while some flag of the model,
//! `flag ~empty … as NAME`, has not held yet), the encoder's consistency check
//! (`co` acyclic, then the model's axioms, the same
//! [`crate::cat::eval::Evaluator`] the lazy loop runs) decides whether
//! they become one; a consistent one with a cycle of rf and data
//! dependencies (values out of thin air, which herd keeps symbolic)
//! stops the search with an "unsupported" error; on a consistent one, the flags not yet seen are
//! evaluated (herd's `Flag` lines: a flag holds when its expression is
//! non-empty on some consistent execution).
//!
//! Explanations of inconsistent candidates are learnt as clauses (as the
//! lazy loop's refinements are), so one explanation prunes every
//! candidate that shares it. The search does not start when an upper
//! bound on the candidates ([`Encoder::candidate_bound`]) exceeds
//! `budget`, and gives up after `min(budget, MAX_VISITS)` candidates (the
//! caller then solves: [`Cnf::stop_recording`] hands the same clauses to
//! varisat), so it is
//! chosen only where it pays: tests with few candidates, where a SAT
//! solve per state and per refinement costs more than visiting them all.

use super::bv::Bv;
use super::cnf::Cnf;
use super::Encoder;
use crate::collections::HashSet;
use crate::diag::Error;
use crate::engines::bounded::{Deadline, Flags};
use varisat::Lit;

/// Default budget of candidates (`litmus --enumerate auto`): above it the
/// SAT path answers. Chosen by measurement on the litmus corpora
/// (CHANGELOG.md: 64 and 1,000 leave X86's
/// `pso.litmus` to the solver, twice as slow there).
pub const DEFAULT_BUDGET: usize = 30_000;

/// The most candidates one search visits before it gives up (unless the
/// budget is unlimited, `usize::MAX`): with the explanations learnt the
/// visits are far fewer than [`Encoder::candidate_bound`] (X86
/// `pso.litmus`: 3,432 of 26,244), except in tests with loops, where the
/// bound counts paths that cannot all be taken.
pub const MAX_VISITS: usize = 4096;

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
    /// Per variable: the index of the level that assigned it (-1: root).
    lvl: Vec<i32>,
    /// Recorded clauses of the CNF loaded so far.
    loaded: usize,
    /// Clauses added during the search ([`Dpll::add_clause`]): their
    /// watches may miss a unit after a backtrack, so
    /// [`Dpll::propagate_all`] scans them.
    added: Vec<u32>,
    /// Clause literals, flat; clause `c` is `lits[start[c]..start[c+1]]`
    /// with its two watched literals first.
    lits: Vec<Lit>,
    start: Vec<usize>,
    /// Per literal code: the clauses watching it.
    watch: Vec<Vec<u32>>,
    trail: Vec<Lit>,
    head: usize,
    levels: Vec<Level>,
    /// A learnt clause was false at the root: no candidate is left.
    root_conflict: bool,
}

impl Dpll {
    /// The clauses of `cnf` (recording mode) over its variables; `None`
    /// when a clause is empty or two units clash (no candidate at all).
    fn new(cnf: &Cnf) -> Option<Dpll> {
        let nv = cnf.num_vars() + 1;
        let mut d = Dpll {
            val: vec![UNSET; nv],
            lvl: vec![-1; nv],
            loaded: cnf.clauses_since(0).len(),
            added: Vec::new(),
            lits: Vec::new(),
            start: vec![0],
            watch: vec![Vec::new(); 2 * nv],
            trail: Vec::with_capacity(nv),
            head: 0,
            levels: Vec::new(),
            root_conflict: false,
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
        self.lvl[l.index()] = self.levels.len() as i32 - 1;
        self.trail.push(l);
    }

    /// Makes room for the variables `cnf` has now.
    fn grow(&mut self, cnf: &Cnf) {
        let nv = cnf.num_vars() + 1;
        if nv > self.val.len() {
            self.val.resize(nv, UNSET);
            self.lvl.resize(nv, -1);
            self.watch.resize(2 * nv, Vec::new());
        }
    }

    /// Adds clause `c` in the middle of the search (all its variables
    /// known to [`Dpll::grow`]): its watches are its literals that are
    /// not false, else the false ones assigned last. Returns the level
    /// that falsifies it (the deepest level of its literals; -1: the
    /// root) when every literal is false, so that the caller backtracks
    /// below it; a unit clause watches its literal twice.
    fn add_clause(&mut self, c: &[Lit]) -> Option<i32> {
        if c.is_empty() {
            return Some(-1);
        }
        let mut ls: Vec<Lit> = c.to_vec();
        // Not false first, then false by decreasing level.
        let rank = |d: &Dpll, l: Lit| match d.value(l) {
            Some(false) => d.lvl[l.index()],
            _ => i32::MAX,
        };
        ls.sort_by_key(|&l| std::cmp::Reverse(rank(self, l)));
        let falsified = (self.value(ls[0]) == Some(false)).then(|| self.lvl[ls[0].index()]);
        if ls.len() == 1 {
            ls.push(ls[0]);
        }
        let id = (self.start.len() - 1) as u32;
        self.watch[ls[0].code()].push(id);
        self.watch[ls[1].code()].push(id);
        self.lits.extend_from_slice(&ls);
        self.start.push(self.lits.len());
        self.added.push(id);
        falsified
    }

    /// Loads the clauses `cnf` recorded since the last load (gates the
    /// model's checks defined); the deepest level that falsifies one, if
    /// any.
    fn sync(&mut self, cnf: &Cnf) -> Option<i32> {
        self.grow(cnf);
        let mut target: Option<i32> = None;
        let new: Vec<Vec<Lit>> = cnf.clauses_since(self.loaded).to_vec();
        self.loaded += new.len();
        for c in &new {
            if let Some(l) = self.add_clause(c) {
                target = Some(target.map_or(l, |t| t.min(l)));
            }
        }
        target
    }

    /// [`Dpll::propagate`], and with `scan` the units and conflicts of
    /// the clauses added during the search (needed after a backtrack
    /// only: watches miss a unit when a backtrack unassigns one watch and
    /// leaves the other false); false on a conflict.
    fn propagate_all(&mut self, scan: bool) -> bool {
        loop {
            if !self.propagate() {
                return false;
            }
            if !scan {
                return true;
            }
            let mut unit = None;
            for &c in &self.added {
                let (s, e) = (self.start[c as usize], self.start[c as usize + 1]);
                let mut free = None;
                let mut n_free = 0;
                let mut sat = false;
                for &l in &self.lits[s..e] {
                    match self.value(l) {
                        Some(true) => {
                            sat = true;
                            break;
                        }
                        None if free != Some(l) => {
                            free = Some(l);
                            n_free += 1;
                        }
                        _ => {}
                    }
                }
                if sat || n_free > 1 {
                    continue;
                }
                match free {
                    None => return false,
                    Some(l) => {
                        unit = Some(l);
                        break;
                    }
                }
            }
            match unit {
                Some(l) => self.assign(l),
                None => return true,
            }
        }
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

    /// Undoes every level above `level` (without trying their other
    /// values), keeping levels `0..=level`.
    fn cut_above(&mut self, level: i32) {
        let keep = (level + 1).max(0) as usize;
        if self.levels.len() > keep {
            let start = self.levels[keep].start;
            self.levels.truncate(keep);
            self.undo_to(start);
        }
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
        let mut scan = false;
        loop {
            if !self.propagate_all(scan) {
                if !self.backtrack(true) {
                    return false;
                }
                next = 0;
                scan = true;
                continue;
            }
            scan = false;
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

/// Adds the learnt clauses `clauses` (after the clauses `cnf` recorded
/// since the last load) to the search at a complete candidate that
/// falsifies them, and backtracks below the deepest candidate level they
/// need; false when the search is over (a clause false at the root, or
/// no untried value left).
fn learn(d: &mut Dpll, cnf: &Cnf, clauses: &[Vec<Lit>]) -> bool {
    let top = d.levels.iter().rposition(|l| !l.aux);
    let top = top.map_or(-1, |i| i as i32);
    let mut target = d.sync(cnf);
    for c in clauses {
        if let Some(l) = d.add_clause(c) {
            target = Some(target.map_or(l, |t| t.min(l)));
        }
    }
    d.drop_aux();
    if let Some(t) = target {
        if t < 0 {
            d.root_conflict = true;
            return false;
        }
        d.cut_above(t.min(top));
    }
    d.backtrack(false)
}

/// The first candidate variable of `order` from `next` on that is
/// unassigned and live (no guard false: [`Encoder::candidate_vars`]), or
/// `order.len()` when none is left.
fn next_decision(d: &Dpll, order: &[(Lit, [Option<Lit>; 2])], mut next: usize) -> usize {
    let dead = |gs: &[Option<Lit>; 2]| {
        gs.iter()
            .any(|g| g.is_some_and(|g| d.value(g) == Some(false)))
    };
    while next < order.len() && (d.value(order[next].0).is_some() || dead(&order[next].1)) {
        next += 1;
    }
    next
}

/// The search's root: the encoding with `goal` assigned and propagated
/// (what every candidate has); `None` when no candidate satisfies it.
fn root(cnf: &Cnf, goal: &[Lit]) -> Option<Dpll> {
    let mut d = Dpll::new(cnf)?;
    for &g in goal {
        match d.value(g) {
            Some(true) => {}
            Some(false) => return None,
            None => d.assign(g),
        }
    }
    d.propagate_all(false).then_some(d)
}

/// The observed values of the search's assignment at a leaf: the
/// observed bits are candidate variables without guards
/// ([`Encoder::candidate_vars`]), all decided there.
fn observed(d: &Dpll, obs: &[Bv]) -> Vec<i64> {
    (obs.iter())
        .map(|x| super::bv::fold_bits(x.iter().map(|&b| d.value(b) == Some(true)), x.len()))
        .collect()
}

/// What the enumeration has found so far (the final states, in the
/// order found, and as a set; the flags not yet decided; the flags that
/// held).
struct Found<'f> {
    states: &'f mut Vec<Vec<i64>>,
    seen: &'f mut HashSet<Vec<i64>>,
    open: &'f mut Vec<usize>,
    flags: &'f mut Flags,
}

/// The outcome of checking one complete candidate.
enum Leaf {
    /// Clauses to learn (lemmas, or the open flags' emptiness).
    Learn(Vec<Vec<Lit>>),
    /// Nothing to learn: the next candidate.
    Next,
    /// Every flag decided: the flags' pass is over.
    Done,
}

/// What [`Encoder::enumerate_observed`] found.
pub enum Enumerated {
    /// The distinct observed values of the consistent candidates, in the
    /// order found, and the model's flags over them.
    States(Vec<Vec<i64>>, Flags),
    /// More than the budget of candidates: nothing decided.
    OverBudget,
}

impl Encoder<'_> {
    /// Checks the complete candidate of the solver's model, whose
    /// observed values are `vals`: inconsistent, its lemmas to learn;
    /// consistent, a final state (when new) and the open flags that hold
    /// on it, and in the flags' pass the explanation of the others'
    /// emptiness to learn ([`Encoder::flags_holding`]); [`Leaf::Done`]
    /// when that pass has no open flag left.
    ///
    /// Errors: the deadline passed; values out of thin air
    /// ([`Encoder::thin_air`]).
    fn check_leaf(
        &mut self,
        vals: Vec<i64>,
        found: &mut Found<'_>,
        flags_pass: bool,
        deadline: Deadline,
    ) -> Result<Leaf, Error> {
        // A check of the model can take long (the kernel's lock.cat): the
        // time limit before each one.
        if deadline.passed() {
            deadline.check()?;
        }
        let t = std::time::Instant::now();
        let refuted = self.refute();
        self.stats.check_time += t.elapsed().as_secs_f64();
        if let Some(lemmas) = refuted {
            self.stats.refinements += 1;
            return Ok(Leaf::Learn(lemmas));
        }
        if let Some(e) = self.thin_air() {
            return Err(e);
        }
        if found.seen.insert(vals.clone()) {
            found.states.push(vals);
        }
        if found.open.is_empty() {
            return Ok(Leaf::Next);
        }
        let (holding, empty) = self.flags_holding(found.open, flags_pass);
        for i in holding {
            found.flags.fired.push(self.model.flags[i].name.clone());
            found.open.retain(|&j| j != i);
        }
        if flags_pass && found.open.is_empty() {
            return Ok(Leaf::Done);
        }
        Ok(empty.map_or(Leaf::Next, |c| Leaf::Learn(vec![c])))
    }

    /// Makes the search's (complete) assignment the solver's model, for
    /// the model's check.
    fn load_model(&mut self, d: &Dpll, nv: usize) {
        let m = self.cnf.model_mut();
        m.clear();
        m.extend(d.val.iter().map(|&v| v > 0));
        m.resize(nv, false);
    }

    /// The candidate variables in decision order (see the module doc),
    /// each once, the observed bits and `goal` last; with each, its
    /// *guards*: literals that must all hold for its value to matter (an
    /// event's kinds, address and value matter only when it is executed,
    /// a co orientation only between two writes, a dependency only
    /// between two executed events). A variable whose guard is false is
    /// not decided: every value gives the same candidate (the model reads
    /// only executed events), so one completion stands for all.
    fn candidate_vars(&self, obs: &[Bv], goal: &[Lit]) -> Vec<(Lit, [Option<Lit>; 2])> {
        let mut out: Vec<(Lit, [Option<Lit>; 2])> = Vec::new();
        let free = |l: Lit| (l, [None, None]);
        for t in &self.un.threads {
            for step in &t.sel {
                out.extend(step.iter().map(|&(_, l)| free(l)));
            }
            out.extend(t.exec.iter().map(|&l| free(l)));
        }
        let ev = &self.un.events;
        let mut rf: Vec<_> = self.rf.iter().map(|(k, &l)| (*k, l)).collect();
        rf.sort_unstable_by_key(|&((w, r), _)| (r, w));
        out.extend(
            rf.into_iter()
                .map(|((_, r), l)| (l, [Some(ev[r].exec), None])),
        );
        out.extend(
            (self.rf_init.iter().enumerate())
                .filter_map(|(r, l)| l.map(|l| (l, [Some(ev[r].exec), None]))),
        );
        let mut co: Vec<_> = self.co_var.iter().map(|(k, &l)| (*k, l)).collect();
        co.sort_unstable_by_key(|&(k, _)| k);
        out.extend(
            co.into_iter()
                .map(|((a, b), l)| (l, [Some(ev[a].write), Some(ev[b].write)])),
        );
        for e in ev {
            out.push(free(e.exec));
            let g = [Some(e.exec), None];
            out.extend([e.read, e.write, e.atomic].map(|l| (l, g)));
            out.extend(e.fences.iter().map(|&(_, l)| (l, g)));
            out.extend(e.addr.iter().map(|&l| (l, g)));
            out.extend(e.value.iter().map(|&l| (l, g)));
        }
        let mut deps: Vec<_> = self.deps.iter().map(|(k, &l)| (*k, l)).collect();
        deps.sort_unstable_by_key(|&(k, _)| k);
        out.extend(
            deps.into_iter()
                .map(|((_, a, b), l)| (l, [Some(ev[a].exec), Some(ev[b].exec)])),
        );
        out.extend(obs.iter().flatten().map(|&l| free(l)));
        out.extend(goal.iter().map(|&l| free(l)));
        let mut seen = vec![false; self.cnf.num_vars() + 1];
        out.retain(|(l, _)| {
            let v = l.index();
            let fresh = v < seen.len() && !seen[v] && !self.cnf.is_const(*l);
            if fresh {
                seen[v] = true;
            }
            fresh
        });
        out
    }

    /// An upper bound on the number of candidate executions: the product
    /// of the selection alternatives of every step, of the rf sources of
    /// every read (the initial value included) and of both orientations
    /// of every co pair (saturating).
    pub fn candidate_bound(&self) -> usize {
        let mut n: usize = 1;
        for t in &self.un.threads {
            for step in &t.sel {
                n = n.saturating_mul(step.len().max(1));
            }
        }
        let mut srcs = vec![0usize; self.un.events.len()];
        for &(_, r) in self.rf.keys() {
            srcs[r] += 1;
        }
        for (r, i) in self.rf_init.iter().enumerate() {
            srcs[r] += usize::from(i.is_some());
        }
        for s in srcs {
            n = n.saturating_mul(s.max(1));
        }
        let co = u32::try_from(self.co_var.len()).unwrap_or(u32::MAX);
        n.saturating_mul(2usize.checked_pow(co).unwrap_or(usize::MAX))
    }

    /// Every final state of the encoding (recorded with
    /// [`Cnf::recording`]) under `goal` (literals that must hold), as the
    /// values of `obs`, by visiting each candidate execution and checking
    /// the model on it (module doc). [`Enumerated::OverBudget`] after
    /// `budget` candidates; the encoding is unchanged then (apart from
    /// gates the checks defined), for a SAT solve to take over. While a
    /// flag of the model that may hold ([`Encoder::flags_never_hold`])
    /// is undecided, every candidate is visited whatever the budget.
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
        // The bound is tight on the litmus corpora (equal on the median
        // test, at most 2× on 90 %): above the budget, do not start.
        let over = self.candidate_bound() > budget;
        if over && self.model.flags.is_empty() {
            return Ok(Enumerated::OverBudget);
        }
        let mut states: Vec<Vec<i64>> = Vec::new();
        let mut seen: HashSet<Vec<i64>> = HashSet::default();
        let Some(mut d) = root(&self.cnf, goal) else {
            return Ok(Enumerated::States(states, Flags::default()));
        };
        // herd's flags: those that hold on no candidate are decided
        // here; the others are checked on every consistent candidate
        // until each one holds (indices into the model's flags), so the
        // search visits every candidate while one is open.
        let never = self.flags_never_hold(&|l| d.value(l));
        let mut open: Vec<usize> = (0..self.model.flags.len())
            .filter(|i| !never.contains(i))
            .collect();
        self.flags_never = open.is_empty();
        if over && open.is_empty() {
            return Ok(Enumerated::OverBudget);
        }
        let budget = if open.is_empty() { budget } else { usize::MAX };
        let order = self.candidate_vars(obs, goal);
        let visits = if budget == usize::MAX {
            budget
        } else {
            budget.min(MAX_VISITS)
        };
        let nv = d.val.len();
        let mut flags = Flags::default();
        let mut candidates = 0usize;
        let mut next = 0usize;
        let mut scan = false;
        // Two passes over the candidates. The first finds the final
        // states: a candidate whose values are a state already found is
        // not checked. The second, only while some flag is open, decides
        // the flags: on a consistent candidate where no open flag holds,
        // the explanation of their emptiness is learnt like an
        // inconsistency (it prunes every candidate that shares it, on
        // which each open flag is empty too), so the pass visits far
        // fewer candidates than there are consistent executions.
        let mut flags_pass = false;
        // Steps of the search, for the deadline: a search whose every
        // branch ends in a conflict reaches no leaf for a long time.
        let mut steps = 0u32;
        // Decisions on candidate variables: `next` indexes `order`; on a
        // backtrack it restarts from the first unassigned one.
        loop {
            steps = steps.wrapping_add(1);
            if steps.is_multiple_of(256) {
                deadline.check()?;
            }
            let ok = d.propagate_all(scan);
            scan = false;
            let leaf = ok && {
                next = next_decision(&d, &order, next);
                next == order.len()
            };
            if ok && !leaf {
                d.decide(!order[next].0, false);
                continue;
            }
            let mut learnt = None;
            // The observed bits are candidate variables, decided at a
            // leaf: a state already found needs no second witness, so
            // such a leaf is neither completed nor checked (outside the
            // flags' pass).
            let vals = leaf.then(|| observed(&d, obs));
            let known = !flags_pass && vals.as_ref().is_some_and(|v| seen.contains(v));
            let complete = leaf && !known && d.complete();
            if known || complete {
                candidates += 1;
                if candidates > visits {
                    self.stats.candidates += visits;
                    return Ok(Enumerated::OverBudget);
                }
                if candidates.is_multiple_of(64) {
                    deadline.check()?;
                }
            }
            // Completed: its values are a new state, or the flags' pass.
            if let (true, Some(vals)) = (complete, vals) {
                self.load_model(&d, nv);
                let mut found = Found {
                    states: &mut states,
                    seen: &mut seen,
                    open: &mut open,
                    flags: &mut flags,
                };
                match self.check_leaf(vals, &mut found, flags_pass, deadline)? {
                    Leaf::Learn(c) => learnt = Some(c),
                    Leaf::Next => {}
                    Leaf::Done => break,
                }
            }
            let more = match learnt {
                // The explanations prune every candidate that shares
                // them; the search resumes below the deepest candidate
                // level they need.
                Some(clauses) => learn(&mut d, &self.cnf, &clauses),
                None => {
                    d.drop_aux();
                    d.backtrack(false)
                }
            };
            if more {
                next = 0;
                scan = true;
                continue;
            }
            // Every candidate visited (or none left): the flags' pass
            // starts over from the root with what was learnt.
            if flags_pass || open.is_empty() || d.root_conflict {
                break;
            }
            flags_pass = true;
            next = 0;
            scan = true;
        }
        self.stats.candidates += candidates;
        let (v, c) = self.cnf.stats();
        self.stats.vars = v;
        self.stats.clauses = c;
        Ok(Enumerated::States(states, flags))
    }
}
