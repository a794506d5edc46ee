//! The memory-model propagator: the model's axioms as a theory of the SAT
//! solver (CDCL(T); the design of Dartagnan's CAAT, Haas, Meyer, Ponce de
//! León, "CAAT: consistency as a theory", OOPSLA 2022, without its
//! derived-edge propagation).
//!
//! The propagator knows, for every base set and relation the model names,
//! the literal of each event or pair that can be in it ([`Tables`], built
//! before search from the encoding). During search it evaluates the model
//! with [`crate::cat::eval`] on the *partial* assignment, reading an
//! unassigned literal as "absent" (an under-approximation of every
//! positive use), and raises as a conflict every explanation whose facts
//! are all assigned true: such a clause is a valid lemma (an explanation
//! entails the violation in every candidate where its facts hold) and is
//! false on the current trail, whatever the model's negations did. At a
//! full assignment the same evaluation is exact, so every candidate the
//! solver returns is consistent (the check of the lazy loop, done inside
//! the search instead of after it). `co` must be a strict order per
//! location: its cycles are found incrementally over the assigned `co`
//! edges ([`super::graph`], Pearce–Kelly), as soon as the closing edge
//! is assigned.

use super::graph::Graph;
use crate::cat::base::{BaseRel, BaseSet};
use crate::cat::eval::{Base, Bits, Evaluator, Mat};
use crate::cat::Model;
use crate::collections::HashMap;
use batsat::{lbool, Lit, Theory, TheoryArg};

/// The literals of the base sets and relations of one encoding (batsat
/// literals), indexed for evaluation and explanation.
pub struct Tables {
    /// Number of events.
    pub n: usize,
    /// The constant-true literal (asserted at level 0).
    pub tt: Lit,
    /// "Event e is executed", per event.
    pub exec: Vec<Lit>,
    /// Per base set: (event, literal) of every event that may be in it.
    pub sets: HashMap<BaseSet, Vec<(usize, Lit)>>,
    /// Per base relation: (a, b, literal) of every pair that may be in it.
    pub rels: HashMap<BaseRel, Vec<(usize, usize, Lit)>>,
    /// The literal of a pair, by (relation, a, b).
    pub pair: HashMap<(BaseRel, usize, usize), Lit>,
    /// The literal of a set membership, by (set, e).
    pub member: HashMap<(BaseSet, usize), Lit>,
    /// The co pair of a variable (for the incremental co graph): the
    /// (a, b) whose `co(a, b)` literal is the positive literal of the var.
    pub co_of_var: HashMap<u32, Vec<(usize, usize, Lit)>>,
    /// Variables whose assignment can change the model's verdict.
    pub relevant: Vec<bool>,
}

impl Tables {
    /// Empty tables for `n` events.
    pub fn new(n: usize, tt: Lit) -> Tables {
        Tables {
            n,
            tt,
            exec: Vec::new(),
            sets: HashMap::default(),
            rels: HashMap::default(),
            pair: HashMap::default(),
            member: HashMap::default(),
            co_of_var: HashMap::default(),
            relevant: Vec::new(),
        }
    }

    /// Marks the variables of every table literal relevant (`nvars`:
    /// the solver's variable count).
    pub fn finish(&mut self, nvars: usize) {
        let mut rel = vec![false; nvars];
        let mut mark = |l: Lit| {
            if let Some(x) = rel.get_mut(l.var().idx() as usize) {
                *x = true;
            }
        };
        self.exec.iter().for_each(|l| mark(*l));
        self.sets.values().flatten().for_each(|x| mark(x.1));
        self.rels.values().flatten().for_each(|x| mark(x.2));
        self.relevant = rel;
        let mut co: HashMap<u32, Vec<(usize, usize, Lit)>> = HashMap::default();
        for &(a, b, l) in self.rels.get(&BaseRel::Co).into_iter().flatten() {
            co.entry(l.var().idx()).or_default().push((a, b, l));
        }
        self.co_of_var = co;
    }
}

/// Counters of the propagator.
#[derive(Clone, Copy, Debug, Default)]
pub struct TheoryStats {
    /// Conflicts raised (lemmas learnt).
    pub conflicts: usize,
    /// Model evaluations on partial assignments.
    pub partial_evals: usize,
    /// Model evaluations on full assignments.
    pub final_evals: usize,
    /// co cycles found by the incremental graph.
    pub co_cycles: usize,
    /// Seconds inside the propagator.
    pub time: f64,
}

/// The propagator of one session (see the module documentation).
pub struct ModelTheory<'m> {
    model: &'m Model,
    /// The tables.
    pub tab: Tables,
    /// Trail positions already looked at.
    seen: usize,
    /// `seen` when each open decision level was created.
    marks: Vec<usize>,
    /// The assigned co edges as an incrementally ordered graph.
    co: Graph,
    /// Trail length of each co edge added (to undo on backtracking).
    co_trail: Vec<usize>,
    /// Some relevant literal was assigned since the last evaluation.
    dirty: bool,
    /// Evaluate at partial assignments at all.
    pub eager_eval: bool,
    /// Counters.
    pub stats: TheoryStats,
}

impl<'m> ModelTheory<'m> {
    /// A propagator for `model` over `tab`.
    pub fn new(model: &'m Model, tab: Tables) -> ModelTheory<'m> {
        let n = tab.n;
        ModelTheory {
            model,
            tab,
            seen: 0,
            marks: Vec::new(),
            co: Graph::new(n),
            co_trail: Vec::new(),
            dirty: true,
            eager_eval: true,
            stats: TheoryStats::default(),
        }
    }

    /// Resets the search state (between solves: the solver's trail is
    /// empty then).
    pub fn reset(&mut self) {
        self.seen = 0;
        self.marks.clear();
        self.co = Graph::new(self.tab.n);
        self.co_trail.clear();
        self.dirty = true;
    }

    /// Reads the new part of the trail: adds assigned co edges to the
    /// graph; on a cycle, returns it as a conflict clause.
    fn scan(&mut self, acts: &TheoryArg) -> Option<Vec<Lit>> {
        let trail = acts.model();
        let start = self.seen.min(trail.len());
        let mut conflict = None;
        let mut pos = start;
        while pos < trail.len() {
            let l = trail[pos];
            pos += 1;
            let v = l.var().idx() as usize;
            if !self.tab.relevant.get(v).copied().unwrap_or(false) {
                continue;
            }
            self.dirty = true;
            let Some(edges) = self.tab.co_of_var.get(&(v as u32)) else {
                continue;
            };
            for &(a, b, el) in edges {
                if acts.value(el.var()) != lbool::from(el.sign()) {
                    continue;
                }
                match self.co.add_edge(a, b, el) {
                    Ok(()) => self.co_trail.push(pos),
                    Err(cycle) => {
                        self.stats.co_cycles += 1;
                        conflict = Some(cycle.iter().map(|l| !*l).collect());
                        break;
                    }
                }
            }
            if conflict.is_some() {
                break;
            }
        }
        self.seen = pos;
        conflict
    }

    /// Evaluates the model on the current assignment; the first violation
    /// whose facts are all true, as a clause.
    fn evaluate(&mut self, acts: &TheoryArg) -> Option<Vec<Lit>> {
        let base = TBase {
            tab: &self.tab,
            acts,
        };
        let mut ev = Evaluator::new(self.model, base);
        for v in ev.check_all(1) {
            if v.facts
                .iter()
                .all(|f| acts.value(f.var()) == lbool::from(f.sign()))
            {
                return Some(v.facts.iter().map(|f| !*f).collect());
            }
        }
        None
    }

    fn check(&mut self, acts: &mut TheoryArg, full: bool) {
        let t0 = std::time::Instant::now();
        let mut conflict = self.scan(acts);
        if conflict.is_none() && self.dirty && (full || self.eager_eval) {
            self.dirty = false;
            if full {
                self.stats.final_evals += 1;
            } else {
                self.stats.partial_evals += 1;
            }
            conflict = self.evaluate(acts);
            if conflict.is_some() {
                // Re-evaluate after the backjump.
                self.dirty = true;
            }
        }
        if let Some(mut c) = conflict {
            self.stats.conflicts += 1;
            if c.is_empty() {
                // A violation with no facts: the model fails on every
                // candidate. batsat takes no empty clause; the negated
                // constant-true literal (asserted at level 0) is the same
                // contradiction.
                c.push(!self.tab.tt);
            }
            acts.raise_conflict(&c, true);
        }
        self.stats.time += t0.elapsed().as_secs_f64();
    }
}

impl Theory for ModelTheory<'_> {
    fn final_check(&mut self, acts: &mut TheoryArg) {
        // Full assignment: the evaluation is exact.
        self.dirty = true;
        self.check(acts, true);
    }

    fn partial_check(&mut self, acts: &mut TheoryArg) {
        self.check(acts, false);
    }

    fn create_level(&mut self) {
        self.marks.push(self.seen);
    }

    fn pop_levels(&mut self, n: usize) {
        let keep = self.marks.len().saturating_sub(n);
        if let Some(&m) = self.marks.get(keep) {
            self.seen = self.seen.min(m);
        }
        self.marks.truncate(keep);
        while self.co_trail.last().is_some_and(|&p| p > self.seen) {
            self.co_trail.pop();
            self.co.pop_edge();
        }
        self.dirty = true;
    }

    fn n_levels(&self) -> usize {
        self.marks.len()
    }

    fn explain_propagation(&mut self, _p: Lit) -> &[Lit] {
        // This propagator raises conflicts only; it never propagates.
        &[]
    }
}

/// The candidate seen by the evaluator: a base fact holds when its
/// literal is assigned true (unassigned reads as absent).
struct TBase<'t, 'a> {
    tab: &'t Tables,
    acts: &'t TheoryArg<'a>,
}

impl TBase<'_, '_> {
    fn holds(&self, l: Lit) -> bool {
        self.acts.value(l.var()) == lbool::from(l.sign())
    }
}

impl Base for TBase<'_, '_> {
    type Fact = Lit;

    fn n(&self) -> usize {
        self.tab.n
    }

    fn executed(&mut self) -> Bits {
        let mut s = Bits::new(self.tab.n);
        for (e, &l) in self.tab.exec.iter().enumerate() {
            if self.holds(l) {
                s.set(e);
            }
        }
        s
    }

    fn set(&mut self, set: BaseSet) -> Bits {
        let mut s = Bits::new(self.tab.n);
        for &(e, l) in self.tab.sets.get(&set).into_iter().flatten() {
            if self.holds(l) {
                s.set(e);
            }
        }
        s
    }

    fn rel(&mut self, rel: BaseRel) -> Mat {
        let mut m = Mat::new(self.tab.n);
        for &(a, b, l) in self.tab.rels.get(&rel).into_iter().flatten() {
            if self.holds(l) {
                m.set(a, b);
            }
        }
        m
    }

    fn exec_fact(&mut self, e: usize) -> Option<Lit> {
        self.tab.exec.get(e).copied()
    }

    fn set_fact(&mut self, s: BaseSet, e: usize) -> Option<Lit> {
        self.tab.member.get(&(s, e)).copied()
    }

    fn rel_fact(&mut self, r: BaseRel, a: usize, b: usize) -> Option<Lit> {
        self.tab.pair.get(&(r, a, b)).copied()
    }
}
