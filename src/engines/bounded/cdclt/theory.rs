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
//!
//! What runs by default: the incremental `co` cycle detection on every
//! assignment, and the model's evaluation at full assignments (a
//! conflict, then backjumping, instead of a new solve). The evaluation at
//! partial assignments and theory propagation (an unassigned rf/co/fr
//! literal whose pair would close a cycle of an `acyclic` axiom is
//! propagated false, explained by the path) are implemented but off: on
//! the Trencher programs neither reduced the solver's conflicts enough to
//! pay for itself, and the partial evaluation made litmus suites 2.5×
//! slower (docs/performance.md). So is the rotation of lemmas across the
//! unrolling ([`Rotation`]; `BMC_CDCLT_ROTATE=1`): it cut theory
//! conflicts tenfold, not the solver's. Environment switches for such
//! measurements only: `BMC_CDCLT_PARTIAL=1`, `BMC_CDCLT_PROPAGATE=1`
//! (propagation happens at partial checks, so it needs both);
//! `BMC_CDCLT_DEBUG=1` prints the solver's and the propagator's counters
//! per solve on stderr.

use super::graph::Graph;
use crate::cat::base::Builtin;
use crate::cat::base::{BaseRel, BaseSet};
use crate::cat::eval::{Base, Bits, Evaluator, Mat};
use crate::cat::{AxiomKind, ExprKind, Model, Node, Stmt};
use crate::collections::HashMap;
use crate::engines::Switches;
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
    /// The thread of each event (for the static `int`/`ext`).
    pub thread: Vec<u32>,
    /// The (step, slot) of each event in its thread's unrolling (for
    /// [`Rotation`]s of lemmas).
    pub place: Vec<(u32, u32)>,
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
    /// Per thread: its events by (step, slot).
    pub at: Vec<HashMap<(u32, u32), usize>>,
    /// Per thread: the number of steps of its unrolling (1 + the last
    /// step of an event).
    pub steps: Vec<u32>,
}

/// What a fact of an explanation is about (events by index).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Key {
    /// "e is executed".
    Exec(u32),
    /// "e is in the set".
    Set(BaseSet, u32),
    /// "(a, b) is in the relation".
    Rel(BaseRel, u32, u32),
}

/// A fact of an explanation: what it is about, whether it states
/// presence (`holds`) or absence, and its literal in this encoding (the
/// constant-false literal for a presence that can never hold, so that
/// static absences are facts too and survive a [`Rotation`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Fact {
    /// The literal that is true when the fact holds.
    pub lit: Lit,
    /// The key.
    pub key: Key,
    /// Presence (true) or absence.
    pub holds: bool,
}

impl std::ops::Not for Fact {
    type Output = Fact;
    fn not(self) -> Fact {
        Fact {
            lit: !self.lit,
            key: self.key,
            holds: !self.holds,
        }
    }
}

impl Tables {
    /// Empty tables for `n` events.
    pub fn new(n: usize, tt: Lit) -> Tables {
        Tables {
            n,
            tt,
            exec: Vec::new(),
            thread: Vec::new(),
            place: Vec::new(),
            sets: HashMap::default(),
            rels: HashMap::default(),
            pair: HashMap::default(),
            member: HashMap::default(),
            co_of_var: HashMap::default(),
            relevant: Vec::new(),
            at: Vec::new(),
            steps: Vec::new(),
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
        let nt = self
            .thread
            .iter()
            .map(|&t| t as usize + 1)
            .max()
            .unwrap_or(0);
        self.at = vec![HashMap::default(); nt];
        self.steps = vec![0; nt];
        for (e, (&t, &(step, slot))) in self.thread.iter().zip(&self.place).enumerate() {
            self.at[t as usize].insert((step, slot), e);
            self.steps[t as usize] = self.steps[t as usize].max(step + 1);
        }
    }

    /// The literal of `key` (constant false when it can never hold).
    pub fn lookup(&self, key: Key) -> Lit {
        let ff = !self.tt;
        match key {
            Key::Exec(e) => self.exec.get(e as usize).copied().unwrap_or(ff),
            Key::Set(s, e) => self.member.get(&(s, e as usize)).copied().unwrap_or(ff),
            Key::Rel(r, a, b) => {
                (self.pair.get(&(r, a as usize, b as usize)).copied()).unwrap_or(ff)
            }
        }
    }

    /// The fact of `key` (present).
    pub fn fact(&self, key: Key) -> Fact {
        Fact {
            lit: self.lookup(key),
            key,
            holds: true,
        }
    }

    /// The events of thread `t` rotated by `d` steps: (step, slot) goes
    /// to ((step + d) mod steps, slot) where that event exists; the
    /// events left over are paired in order, so the result is a
    /// permutation of the thread's events (indexed by event, identity
    /// elsewhere).
    pub fn rotation(&self, t: u32, d: u32) -> Vec<u32> {
        let mut perm: Vec<u32> = (0..self.n as u32).collect();
        let k = self.steps[t as usize].max(1);
        let at = &self.at[t as usize];
        let mut evs: Vec<(&(u32, u32), &usize)> = at.iter().collect();
        evs.sort_unstable();
        let mut taken = vec![false; self.n];
        let mut left = Vec::new();
        for &(&(step, slot), &e) in &evs {
            match at.get(&((step + d) % k, slot)) {
                Some(&f) => {
                    perm[e] = f as u32;
                    taken[f] = true;
                }
                None => left.push(e),
            }
        }
        let free = evs.iter().map(|x| *x.1).filter(|&f| !taken[f]);
        for (e, f) in left.into_iter().zip(free) {
            perm[e] = f as u32;
        }
        perm
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
    /// Literals propagated.
    pub propagations: usize,
    /// co cycles found by the incremental graph.
    pub co_cycles: usize,
    /// Lemmas learnt by rotating others ([`Rotation`]).
    pub rotated: usize,
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
    /// Explain with shortest cycles.
    pub shortest: bool,
    /// Counters.
    pub stats: TheoryStats,
    /// Per `acyclic` axiom (statement index): its direct components.
    direct: Vec<(usize, Vec<Component>)>,
    /// Explanation of each literal this propagator propagated.
    expl: HashMap<Lit, Vec<Lit>>,
    /// Propagate (not only detect) cycle-closing edges.
    pub propagate: bool,
    /// Learn the rotations of each lemma too ([`Rotation`]).
    pub rotate: bool,
    /// Rotated lemmas not yet given to the solver (the solver stops
    /// when `wants_restart` is set and adds them at level 0).
    pub pending: Vec<Vec<Lit>>,
    /// Set when `pending` is worth a restart.
    pub wants_restart: std::rc::Rc<std::cell::Cell<bool>>,
    /// Lemmas learnt by rotation (to learn each once).
    learnt: crate::collections::HashSet<Vec<Lit>>,
    /// Rotations by (thread, offset).
    rotations: HashMap<(u32, u32), Vec<u32>>,
}

/// Rotations of a lemma (lemma generalisation across the unrolling).
///
/// An explanation is a set of base facts (execution, set membership,
/// relation pairs, present or absent — static ones included, [`Fact`])
/// that entails a violation in every candidate where they hold: the
/// model's evaluation depends on the events only through the base
/// relations, and is invariant under renaming events. So for any
/// permutation σ of the events that keeps every event in its thread
/// (which keeps the static `int`, `ext`, `id`), the facts renamed by σ
/// also entail a violation: a lemma learnt at one iteration of a loop
/// holds at every other. The rotations used move a thread's events by
/// `d` steps (modulo the unrolling; [`Tables::rotation`]) for every
/// combination of offsets of the threads the lemma's present facts
/// name (capped at [`MAX_ROTATIONS`] per lemma); a rotated lemma one of
/// whose facts can never hold is dropped.
pub struct Rotation;

/// At most this many offset combinations are tried per lemma.
pub const MAX_ROTATIONS: usize = 4096;

/// A base relation whose pairs are in an axiom's relation as soon as
/// their literal holds (a union member of the axiom, possibly through
/// `let`s, possibly intersected with the static `int` or `ext`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Component {
    /// The base relation.
    pub rel: BaseRel,
    /// `Some(true)`: same thread only (`int`), `Some(false)`: different
    /// threads only (`ext`).
    pub same_thread: Option<bool>,
}

/// The direct components of `node` (see [`Component`]); `depth` bounds
/// the `let` chain followed.
pub fn components(model: &Model, node: &Node, depth: usize, out: &mut Vec<Component>) {
    if depth > 64 {
        return;
    }
    let dynamic =
        |r: BaseRel| !matches!(r, BaseRel::Int | BaseRel::Ext | BaseRel::Id | BaseRel::Univ);
    match &node.kind {
        ExprKind::Union(x, y) => {
            components(model, x, depth + 1, out);
            components(model, y, depth + 1, out);
        }
        ExprKind::Name(key) => {
            if let Some(&(si, bi)) = model.defs.get(key) {
                if let Stmt::Let { rec: false, binds } = &model.stmts[si] {
                    components(model, &binds[bi].1, depth + 1, out);
                }
            }
        }
        ExprKind::Base(Builtin::Rel(r)) if dynamic(*r) => out.push(Component {
            rel: *r,
            same_thread: None,
        }),
        ExprKind::Inter(x, y) => {
            let filt = |n: &Node| match &n.kind {
                ExprKind::Base(Builtin::Rel(BaseRel::Int)) => Some(true),
                ExprKind::Base(Builtin::Rel(BaseRel::Ext)) => Some(false),
                _ => None,
            };
            for (f, other) in [(filt(x), y), (filt(y), x)] {
                let Some(f) = f else { continue };
                let mut inner = Vec::new();
                components(model, other, depth + 1, &mut inner);
                for c in inner {
                    match c.same_thread {
                        None => out.push(Component {
                            rel: c.rel,
                            same_thread: Some(f),
                        }),
                        Some(g) if g == f => out.push(c),
                        Some(_) => {}
                    }
                }
                return;
            }
        }
        _ => {}
    }
}

/// A path from `from` to `to` in `m` (pairs), by breadth-first search.
fn path(m: &Mat, from: usize, to: usize) -> Option<Vec<(usize, usize)>> {
    let n = m.n();
    let mut parent = vec![usize::MAX; n];
    let mut queue = vec![from];
    parent[from] = from;
    let mut head = 0;
    while head < queue.len() {
        let u = queue[head];
        head += 1;
        for v in m.0[u].iter() {
            if parent[v] != usize::MAX {
                continue;
            }
            parent[v] = u;
            if v == to {
                let mut out = Vec::new();
                let mut x = to;
                while x != from {
                    out.push((parent[x], x));
                    x = parent[x];
                }
                out.reverse();
                return Some(out);
            }
            queue.push(v);
        }
    }
    None
}

impl<'m> ModelTheory<'m> {
    /// A propagator for `model` over `tab`; `switches` turn on partial
    /// evaluation, theory propagation and lemma rotation.
    pub fn new(model: &'m Model, tab: Tables, switches: &Switches) -> ModelTheory<'m> {
        let n = tab.n;
        let mut direct = Vec::new();
        for (si, st) in model.stmts.iter().enumerate() {
            if let Stmt::Check {
                kind: AxiomKind::Acyclic,
                expr,
                ..
            } = st
            {
                let mut cs = Vec::new();
                components(model, expr, 0, &mut cs);
                cs.dedup();
                if !cs.is_empty() {
                    direct.push((si, cs));
                }
            }
        }
        ModelTheory {
            model,
            tab,
            seen: 0,
            marks: Vec::new(),
            co: Graph::new(n),
            co_trail: Vec::new(),
            dirty: true,
            eager_eval: switches.cdclt_partial,
            shortest: true,
            stats: TheoryStats::default(),
            direct,
            expl: HashMap::default(),
            propagate: switches.cdclt_propagate,
            rotate: switches.cdclt_rotate,
            pending: Vec::new(),
            wants_restart: Default::default(),
            learnt: Default::default(),
            rotations: HashMap::default(),
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
    /// Evaluates the model on the current assignment: the first violation
    /// whose facts are all true, as a clause (`Err`); else (`Ok`) the
    /// literals to propagate with their explanations (with `propagate`:
    /// the unassigned pairs of a direct component of an `acyclic` axiom
    /// whose reverse is already a path of the axiom's relation).
    fn evaluate(
        &mut self,
        acts: &TheoryArg,
        propagate: bool,
    ) -> Result<Vec<(Lit, Vec<Lit>)>, Vec<Fact>> {
        let holds = |f: &Fact| acts.value(f.lit.var()) == lbool::from(f.lit.sign());
        let base = TBase {
            tab: &self.tab,
            acts,
        };
        let mut ev = Evaluator::new(self.model, base);
        ev.shortest_cycles = self.shortest;
        for v in ev.check_all(1) {
            if v.facts.iter().all(holds) {
                return Err(v.facts);
            }
        }
        let mut props = Vec::new();
        if !propagate {
            return Ok(props);
        }
        for (si, comps) in &self.direct {
            let Some(m) = ev.acyclic_value(*si) else {
                continue;
            };
            let closure = m.plus();
            for c in comps {
                for &(a, b, l) in self.tab.rels.get(&c.rel).into_iter().flatten() {
                    if acts.value(l.var()) != lbool::UNDEF {
                        continue;
                    }
                    if c.same_thread
                        .is_some_and(|st| st != (self.tab.thread[a] == self.tab.thread[b]))
                    {
                        continue;
                    }
                    let pairs = if a == b {
                        Vec::new()
                    } else if closure.get(b, a) {
                        match path(&m, b, a) {
                            Some(p) => p,
                            None => continue,
                        }
                    } else {
                        continue;
                    };
                    let facts = ev.explain_pairs(*si, &pairs);
                    if facts.iter().all(holds) {
                        let tt = self.tab.tt;
                        let lits = facts.iter().map(|f| f.lit).filter(|&x| x != tt);
                        props.push((!l, lits.collect()));
                    }
                }
            }
        }
        Ok(props)
    }

    /// Queues the rotations of the lemma of `facts` ([`Rotation`]).
    fn rotate_lemma(&mut self, facts: &[Fact]) {
        let tab = &self.tab;
        let ff = !tab.tt;
        let mut threads: Vec<u32> = Vec::new();
        let events = |k: Key| -> [Option<u32>; 2] {
            match k {
                Key::Exec(e) | Key::Set(_, e) => [Some(e), None],
                Key::Rel(_, a, b) => [Some(a), Some(b)],
            }
        };
        for f in facts.iter().filter(|f| f.holds) {
            for e in events(f.key).into_iter().flatten() {
                let t = tab.thread[e as usize];
                if !threads.contains(&t) {
                    threads.push(t);
                }
            }
        }
        threads.sort_unstable();
        let ks: Vec<u32> = threads
            .iter()
            .map(|&t| tab.steps[t as usize].max(1))
            .collect();
        let total: usize = ks.iter().map(|&k| k as usize).product();
        // Present facts first: most rotations fail on one of them.
        let mut order: Vec<Fact> = facts.to_vec();
        order.sort_by_key(|f| !f.holds);
        let mut offs = vec![0u32; threads.len()];
        for _ in 0..total.min(MAX_ROTATIONS) {
            // Next combination (skips the identity, which comes first).
            let mut i = 0;
            while i < offs.len() {
                offs[i] += 1;
                if offs[i] < ks[i] {
                    break;
                }
                offs[i] = 0;
                i += 1;
            }
            if i == offs.len() {
                break;
            }
            for (j, &t) in threads.iter().enumerate() {
                let tab = &self.tab;
                self.rotations
                    .entry((t, offs[j]))
                    .or_insert_with(|| tab.rotation(t, offs[j]));
            }
            let tab = &self.tab;
            let sigma = |e: u32| -> u32 {
                let t = tab.thread[e as usize];
                match threads.iter().position(|&x| x == t) {
                    Some(j) => self.rotations[&(t, offs[j])][e as usize],
                    None => e,
                }
            };
            let mut clause = Vec::with_capacity(order.len());
            let mut ok = true;
            for f in &order {
                let key = match f.key {
                    Key::Exec(e) => Key::Exec(sigma(e)),
                    Key::Set(s, e) => Key::Set(s, sigma(e)),
                    Key::Rel(r, a, b) => Key::Rel(r, sigma(a), sigma(b)),
                };
                let l = tab.lookup(key);
                let fl = if f.holds { l } else { !l };
                if fl == ff {
                    ok = false;
                    break;
                }
                if fl != !ff {
                    clause.push(!fl);
                }
            }
            if !ok || clause.is_empty() {
                continue;
            }
            clause.sort_unstable();
            clause.dedup();
            if self.learnt.insert(clause.clone()) {
                self.stats.rotated += 1;
                self.pending.push(clause);
            }
        }
        if !self.pending.is_empty() {
            self.wants_restart.set(true);
        }
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
            match self.evaluate(acts, self.propagate && !full) {
                Err(facts) => {
                    let tt = self.tab.tt;
                    let c = facts.iter().map(|f| !f.lit).filter(|&x| x != !tt);
                    conflict = Some(c.collect());
                    if self.rotate {
                        self.rotate_lemma(&facts);
                    }
                    // Re-evaluate after the backjump.
                    self.dirty = true;
                }
                Ok(props) => {
                    for (p, facts) in props {
                        if acts.value(p.var()) != lbool::UNDEF {
                            continue;
                        }
                        self.stats.propagations += 1;
                        self.expl.insert(p, facts);
                        if !acts.propagate(p) {
                            break;
                        }
                    }
                }
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

    fn explain_propagation(&mut self, p: Lit) -> &[Lit] {
        self.expl.get(&p).map_or(&[], |v| v.as_slice())
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
    type Fact = Fact;

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

    // Every fact is returned, static ones with a constant literal, so
    // that an explanation names every fact it rests on (needed to rotate
    // it, [`Rotation`]); constant literals are dropped from clauses.
    fn exec_fact(&mut self, e: usize) -> Option<Fact> {
        Some(self.tab.fact(Key::Exec(e as u32)))
    }

    fn set_fact(&mut self, s: BaseSet, e: usize) -> Option<Fact> {
        Some(self.tab.fact(Key::Set(s, e as u32)))
    }

    fn rel_fact(&mut self, r: BaseRel, a: usize, b: usize) -> Option<Fact> {
        Some(self.tab.fact(Key::Rel(r, a as u32, b as u32)))
    }
}
