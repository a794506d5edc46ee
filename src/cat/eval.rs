//! Concrete evaluation of a model on one candidate execution, with
//! explanations.
//!
//! A backend finds a candidate execution (events, rf, co, values) with
//! its solver; this module evaluates the model's sets and relations on
//! it as bit matrices (as herd does for one candidate) and, when an axiom
//! fails, *explains* the failure: the set of base facts (for the varisat
//! backend, literals true in the candidate: an rf choice, a co
//! orientation, an event kind, a dependency, ...) that make the cycle /
//! pair exist. The negation of the explanation is a clause that rules out
//! every candidate sharing those facts (lazy encoding of the axioms,
//! DESIGN.md "Solvers"). The fact type is the [`Base`]'s: this module
//! names no solver.
//!
//! Soundness of explanations: presence of a pair is explained by one
//! derivation; absence (under `\` and `~`) by the absence of every
//! derivation. For `let rec` (least fixed points) presence uses the
//! iteration at which a pair first appears; absence at the fixed point is
//! explained coinductively (a pair already being explained is assumed
//! absent), which is sound because those recursive definitions are
//! monotone in the recursive names. A group that is not (herd's
//! `rcu-rscs` matching) is computed by herd's own iteration and explained
//! by every fact of its inputs.

use super::base::{BaseRel, BaseSet, Builtin};
use super::{AxiomKind, ExprKind, Model, Node, Stmt, Ty};
use crate::collections::{HashMap, HashSet};
use std::rc::Rc;

/// A set of events as a bit vector (shape: n bits; inline, without heap
/// allocation, up to 128 events).
#[derive(Debug, Eq)]
pub struct Bits(pub smallvec::SmallVec<[u64; 2]>);

impl PartialEq for Bits {
    /// Word by word (rows are one or two words: a loop beats a call to
    /// `memcmp`).
    fn eq(&self, o: &Bits) -> bool {
        self.0.len() == o.0.len() && self.0.iter().zip(o.0.iter()).all(|(a, b)| a == b)
    }
}

impl Clone for Bits {
    /// A copy of the words (`SmallVec`'s own `clone` goes through an
    /// iterator; the matrices of the evaluator copy rows constantly).
    fn clone(&self) -> Bits {
        Bits(smallvec::SmallVec::from_slice(&self.0))
    }
}

impl Bits {
    /// The empty set over n events.
    pub fn new(n: usize) -> Bits {
        Bits(smallvec::smallvec![0; n.div_ceil(64)])
    }
    /// Membership.
    pub fn get(&self, i: usize) -> bool {
        self.0[i / 64] >> (i % 64) & 1 == 1
    }
    /// Adds i.
    pub fn set(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }
    /// Removes i.
    pub fn clear(&mut self, i: usize) {
        self.0[i / 64] &= !(1 << (i % 64));
    }
    /// In-place union; true if something was added.
    pub fn union_with(&mut self, o: &Bits) -> bool {
        let mut ch = false;
        for (a, b) in self.0.iter_mut().zip(&o.0) {
            let n = *a | b;
            ch |= n != *a;
            *a = n;
        }
        ch
    }
    /// The members in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(w, &x)| {
            let mut x = x;
            std::iter::from_fn(move || {
                if x == 0 {
                    None
                } else {
                    let t = x.trailing_zeros() as usize;
                    x &= x - 1;
                    Some(w * 64 + t)
                }
            })
        })
    }
    /// The least member ≥ i.
    pub fn next_from(&self, i: usize) -> Option<usize> {
        let mut w = i / 64;
        let mut x = *self.0.get(w)? & (u64::MAX << (i % 64));
        loop {
            if x != 0 {
                return Some(w * 64 + x.trailing_zeros() as usize);
            }
            w += 1;
            x = *self.0.get(w)?;
        }
    }
    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|w| *w == 0)
    }
    /// `f` word by word (the same length).
    pub(crate) fn zip(&self, o: &Bits, f: impl Fn(u64, u64) -> u64) -> Bits {
        let mut out = self.clone();
        for (a, b) in out.0.iter_mut().zip(o.0.iter()) {
            *a = f(*a, *b);
        }
        out
    }
}

/// A relation over n events as n rows of bits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mat(pub Vec<Bits>);

impl Mat {
    /// The empty relation.
    pub fn new(n: usize) -> Mat {
        Mat(vec![Bits::new(n); n])
    }
    /// Number of events.
    pub fn n(&self) -> usize {
        self.0.len()
    }
    /// Membership of (a, b).
    pub fn get(&self, a: usize, b: usize) -> bool {
        self.0[a].get(b)
    }
    /// Adds (a, b).
    pub fn set(&mut self, a: usize, b: usize) {
        self.0[a].set(b)
    }
    /// `f` word by word, row by row (the same shape).
    pub(crate) fn zip(&self, o: &Mat, f: impl Fn(u64, u64) -> u64 + Copy) -> Mat {
        Mat(self.0.iter().zip(&o.0).map(|(a, b)| a.zip(b, f)).collect())
    }
    /// Composition `self ; o`.
    pub(crate) fn seq(&self, o: &Mat) -> Mat {
        let n = self.n();
        let mut out = Mat::new(n);
        for a in 0..n {
            for c in self.0[a].iter() {
                out.0[a].union_with(&o.0[c]);
            }
        }
        out
    }
    /// The inverse relation.
    pub(crate) fn inv(&self) -> Mat {
        let n = self.n();
        let mut out = Mat::new(n);
        for a in 0..n {
            for b in self.0[a].iter() {
                out.set(b, a);
            }
        }
        out
    }
    /// `range(self)` when `range`, else `domain(self)`.
    pub(crate) fn project(&self, range: bool) -> Bits {
        let n = self.n();
        let mut s = Bits::new(n);
        if range {
            for row in &self.0 {
                s.union_with(row);
            }
        } else {
            for i in 0..n {
                if !self.0[i].is_empty() {
                    s.set(i);
                }
            }
        }
        s
    }
    /// Transitive closure (Warshall on bit rows).
    pub fn plus(&self) -> Mat {
        let mut m = self.clone();
        let n = self.n();
        for k in 0..n {
            let rk = m.0[k].clone();
            for i in 0..n {
                if m.0[i].get(k) {
                    m.0[i].union_with(&rk);
                }
            }
        }
        m
    }
    /// A shortest cycle (list of events, first ≠ repeated) if the
    /// relation has one: a breadth-first search from every node
    /// (O(n·(n + edges))). Shorter cycles give more general lemmas.
    pub fn shortest_cycle(&self) -> Option<Vec<usize>> {
        self.shortest_cycle_through(0..self.n(), None)
    }

    /// The shortest among the cycles through `sources` (list of events,
    /// first ≠ repeated; the first event is one of `sources`), if any is
    /// shorter than `limit` events: a breadth-first search from each
    /// source, cut at the best length found so far (O(|sources|·(n +
    /// edges)) at worst). With the events of a cycle found by
    /// [`Mat::find_cycle`] as sources, it shortens that cycle.
    pub fn shortest_cycle_through(
        &self,
        sources: impl IntoIterator<Item = usize>,
        limit: Option<usize>,
    ) -> Option<Vec<usize>> {
        let n = self.n();
        let mut best: Option<Vec<usize>> = None;
        let mut parent = vec![usize::MAX; n];
        let mut depth = vec![0usize; n];
        let mut queue = Vec::with_capacity(n);
        for s in sources {
            if self.0[s].is_empty() {
                continue;
            }
            parent.iter_mut().for_each(|p| *p = usize::MAX);
            queue.clear();
            queue.push(s);
            depth[s] = 0;
            let mut head = 0;
            let limit = best
                .as_ref()
                .map_or(limit.unwrap_or(usize::MAX), |c| c.len());
            'bfs: while head < queue.len() {
                let u = queue[head];
                head += 1;
                if depth[u] + 1 >= limit {
                    break;
                }
                for v in self.0[u].iter() {
                    if v == s {
                        let mut cyc = vec![u];
                        let mut x = u;
                        while x != s {
                            x = parent[x];
                            cyc.push(x);
                        }
                        cyc.reverse();
                        best = Some(cyc);
                        break 'bfs;
                    }
                    if parent[v] == usize::MAX && v != s {
                        parent[v] = u;
                        depth[v] = depth[u] + 1;
                        queue.push(v);
                    }
                }
            }
            if best.as_ref().is_some_and(|c| c.len() == 1) {
                break;
            }
        }
        best
    }

    /// A cycle (list of events, first ≠ repeated) if the relation has one:
    /// a depth-first search from each event in increasing order, taking
    /// successors in increasing order; the first back edge closes the cycle.
    pub fn find_cycle(&self) -> Option<Vec<usize>> {
        let n = self.n();
        let mut color = vec![0u8; n];
        let mut parent = vec![usize::MAX; n];
        // (event, next successor to look at)
        let mut stack: Vec<(usize, usize)> = Vec::new();
        for s in 0..n {
            if color[s] != 0 {
                continue;
            }
            stack.push((s, 0));
            color[s] = 1;
            while let Some(top) = stack.last_mut() {
                let (u, from) = *top;
                match self.0[u].next_from(from) {
                    Some(v) => {
                        top.1 = v + 1;
                        if color[v] == 1 {
                            let mut cyc = vec![u];
                            let mut x = u;
                            while x != v {
                                x = parent[x];
                                cyc.push(x);
                            }
                            cyc.reverse();
                            return Some(cyc);
                        }
                        if color[v] == 0 {
                            color[v] = 1;
                            parent[v] = u;
                            stack.push((v, 0));
                        }
                    }
                    None => {
                        color[u] = 2;
                        stack.pop();
                    }
                }
            }
        }
        None
    }
}

/// A concrete value.
#[derive(Clone, Debug)]
pub enum Val {
    /// A set.
    Set(Bits),
    /// A relation.
    Rel(Mat),
}

impl Val {
    /// The relation (the type checker guarantees it).
    pub(crate) fn rel(&self) -> &Mat {
        match self {
            Val::Rel(m) => m,
            Val::Set(_) => unreachable!("type-checked"),
        }
    }
    /// The set (the type checker guarantees it).
    pub(crate) fn set(&self) -> &Bits {
        match self {
            Val::Set(s) => s,
            Val::Rel(_) => unreachable!("type-checked"),
        }
    }
}

/// The candidate execution's base sets and relations
/// ([`super::base`]), with the facts that decide them.
///
/// Every set and relation contains executed events only.
pub trait Base {
    /// A base fact of the candidate that an explanation is made of (the
    /// varisat backend: a literal). `!f` is the opposite fact (used to
    /// explain an absence); the order only sorts and deduplicates an
    /// explanation.
    type Fact: Copy + Ord + std::ops::Not<Output = Self::Fact>;
    /// Number of events.
    fn n(&self) -> usize;
    /// The executed events (the universe of `~`, `*`, `?`).
    fn executed(&mut self) -> Bits;
    /// Concrete base set.
    fn set(&mut self, s: BaseSet) -> Bits;
    /// Concrete base relation.
    fn rel(&mut self, r: BaseRel) -> Mat;
    /// A fact equivalent to "e is executed" (None when static; by default
    /// every fact is static: explanations are then empty).
    fn exec_fact(&mut self, _e: usize) -> Option<Self::Fact> {
        None
    }
    /// A fact equivalent to "e ∈ s" (None when static).
    fn set_fact(&mut self, _s: BaseSet, _e: usize) -> Option<Self::Fact> {
        None
    }
    /// A fact equivalent to "(a, b) ∈ r" (None when static).
    fn rel_fact(&mut self, _r: BaseRel, _a: usize, _b: usize) -> Option<Self::Fact> {
        None
    }
}

/// A failed axiom: its name and the explanation (facts true in the
/// candidate that together entail the failure).
#[derive(Clone, Debug)]
pub struct Violation<F> {
    /// Axiom name.
    pub axiom: String,
    /// Facts, sorted, without duplicates.
    pub facts: Vec<F>,
    /// The offending cycle / pair (events).
    pub events: Vec<usize>,
}

type Env = Option<(usize, usize)>;

/// What a `Name` node refers to: (statement, binding, in a `let rec`).
type NameRef = (usize, usize, bool);

/// The static tables of one model that the evaluator needs by node id
/// (built once per model and thread, kept in [`Memo`]).
#[derive(Default)]
struct Plan {
    /// Per `Name` node: its definition.
    name_ref: Vec<Option<NameRef>>,
    /// Per node: inside the body of a `let rec` group and mentioning a
    /// name of that group (its value differs from one fixed-point
    /// iteration to the next).
    env_dep: Vec<bool>,
    /// The `let rec` groups (statement indices) that are not monotone in
    /// their own names (one is used under `~` or right of `\\`): herd's
    /// iteration, [`Evaluator::fixpoint_herd`], computes them, and an
    /// explanation through one holds every fact of its inputs.
    nonmono: HashSet<usize>,
}

impl Plan {
    fn new(model: &Model) -> Plan {
        fn walk(
            n: &Node,
            model: &Model,
            group: Option<usize>,
            plan: &mut Plan,
            depth: usize,
        ) -> bool {
            use ExprKind::*;
            if n.id >= plan.env_dep.len() {
                plan.env_dep.resize(n.id + 1, false);
                plan.name_ref.resize(n.id + 1, None);
            }
            // The parser bounds the depth of expressions (`check_eval_depth`).
            debug_assert!(depth < 100_000);
            let dep = match &n.kind {
                Name(s) => {
                    let r = model.defs.get(s).map(|&(si, bi)| {
                        let rec = matches!(model.stmts[si], Stmt::Let { rec: true, .. });
                        (si, bi, rec)
                    });
                    plan.name_ref[n.id] = r;
                    r.is_some_and(|(si, _, rec)| rec && Some(si) == group)
                }
                Base(_) | Empty => false,
                Union(x, y) | Inter(x, y) | Seq(x, y) | Diff(x, y) | Cart(x, y) => {
                    let a = walk(x, model, group, plan, depth + 1);
                    let b = walk(y, model, group, plan, depth + 1);
                    a || b
                }
                Compl(x) | Plus(x) | Star(x) | Opt(x) | Inv(x) | Bracket(x) | Domain(x)
                | Range(x) | FenceRel(x) => walk(x, model, group, plan, depth + 1),
            };
            plan.env_dep[n.id] = dep;
            dep
        }
        let mut plan = Plan {
            name_ref: vec![None; model.nodes],
            env_dep: vec![false; model.nodes],
            nonmono: HashSet::default(),
        };
        for (si, st) in model.stmts.iter().enumerate() {
            match st {
                Stmt::Let { rec, binds } => {
                    let keys: Vec<String> = binds.iter().map(|(k, _)| k.clone()).collect();
                    if *rec
                        && binds
                            .iter()
                            .any(|(_, e)| super::parse::negative_use(e, &keys, true).is_some())
                    {
                        plan.nonmono.insert(si);
                    }
                    let group = rec.then_some(si);
                    for (_, e) in binds {
                        walk(e, model, group, &mut plan, 0);
                    }
                }
                Stmt::Check { expr, .. } => {
                    walk(expr, model, None, &mut plan, 0);
                }
            }
        }
        plan
    }
}

/// A value kept between candidates: the revision it was last checked
/// at and the revision it last changed at.
#[derive(Clone)]
struct Slot<V> {
    val: Option<V>,
    changed: u64,
    verified: u64,
}

impl<V> Default for Slot<V> {
    fn default() -> Self {
        Slot {
            val: None,
            changed: 0,
            verified: 0,
        }
    }
}

impl<V: PartialEq> Slot<V> {
    /// Stores the value computed at revision `rev`; keeps the old one
    /// (and its change revision) when equal.
    fn store(&mut self, v: V, rev: u64) {
        self.verified = rev;
        if self.val.as_ref() != Some(&v) {
            self.val = Some(v);
            self.changed = rev;
        }
    }
}

/// A `let rec` group's fixed point, kept between candidates.
#[derive(Default)]
struct Group {
    verified: u64,
    /// Per binding: revision its fixed point last changed at.
    changed: Vec<u64>,
    /// Per binding: the Kleene iterates (index 0 = empty).
    iters: Vec<Vec<Rc<Val>>>,
    /// (node id, iteration) → value of an iteration-dependent node.
    at: HashMap<(usize, usize), Rc<Val>>,
}

/// The evaluator's values, kept from one candidate to the next on the
/// same thread (one [`Evaluator`] is made per candidate). Every value
/// is a function of the model and of the candidate's base sets and
/// relations; at each candidate (a new revision) the base values are
/// computed again and compared, and a derived value is recomputed only
/// when one of its operands changed since it was last checked (the
/// change/verification revisions of incremental build systems). Sound
/// for any [`Base`]: nothing but the base values is trusted, and the
/// tables are keyed by the model's uid and the number of events.
#[derive(Default)]
struct Memo {
    uid: u64,
    n: usize,
    rev: u64,
    plan: Plan,
    nodes: Vec<Slot<Rc<Val>>>,
    bases: HashMap<Builtin, Slot<Rc<Val>>>,
    universe: Slot<Bits>,
    groups: HashMap<usize, Group>,
}

impl Memo {
    /// The memo for `model` over `n` events, reusing `self` when it is
    /// for the same model and size.
    fn renew(mut self, model: &Model, n: usize) -> Memo {
        if self.uid != model.uid || self.plan.env_dep.len() < model.nodes {
            self = Memo {
                uid: model.uid,
                plan: Plan::new(model),
                rev: self.rev,
                ..Memo::default()
            };
        }
        if self.n != n || self.nodes.len() != self.plan.env_dep.len() {
            self.n = n;
            self.nodes = vec![Slot::default(); self.plan.env_dep.len()];
            self.bases.clear();
            self.universe = Slot::default();
            self.groups.clear();
        }
        self.rev += 1;
        self
    }
}

impl PartialEq for Val {
    fn eq(&self, o: &Val) -> bool {
        match (self, o) {
            (Val::Set(a), Val::Set(b)) => a == b,
            (Val::Rel(a), Val::Rel(b)) => a == b,
            _ => false,
        }
    }
}

/// The may value of every `let` binding of a model over every candidate
/// of one encoding ([`super::bounds::Bounds::static_may`]): a pair (or
/// member) outside it is absent on every candidate, so its absence needs
/// no fact in an explanation. Shape: `vals[stmt][binding]` over `n`
/// events (the evaluator's numbering, herd's initial writes included).
#[derive(Clone, Debug)]
pub struct StaticMay {
    /// The number of events the values relate.
    pub n: usize,
    /// Per statement of [`Model::stmts`], per binding: its may value
    /// (`None` for a check, or where no bound is known).
    pub vals: Vec<Vec<Option<Val>>>,
}

thread_local! {
    /// The [`Memo`] of the last evaluator dropped on this thread.
    static MEMO: std::cell::RefCell<Option<Memo>> = const { std::cell::RefCell::new(None) };
}

/// Evaluator of one model on one candidate.
///
/// Values of the previous candidate evaluated on the same thread with
/// the same model are reused where their operands are unchanged (see
/// [`Memo`]); the answers are those of a fresh evaluation.
pub struct Evaluator<'m, B: Base> {
    model: &'m Model,
    base: B,
    n: usize,
    /// name key → (stmt index, bind index)
    defs: &'m HashMap<String, (usize, usize)>,
    memo: Memo,
    /// Explain `acyclic` violations with shortest cycles
    /// ([`Mat::shortest_cycle`]) instead of the first one found.
    pub shortest_cycles: bool,
    /// The absences `(group, binding, a, b)` of a `let rec` binding whose
    /// explanation is in progress (on the stack of [`Self::abs`]): an
    /// explanation that reaches one again through a complement or a
    /// difference (which start their own `seen` sets) adds nothing there
    /// — "(a, b) is absent because (a, b) is absent" holds no fact — and
    /// would otherwise recurse without end.
    abs_active: HashSet<(usize, usize, usize, usize)>,
    /// Static may values of the bindings ([`Evaluator::with_static_may`]).
    may: Option<Rc<StaticMay>>,
}

impl<B: Base> Drop for Evaluator<'_, B> {
    fn drop(&mut self) {
        // A panic may have left a fixed point half computed: forget it.
        if std::thread::panicking() {
            return;
        }
        let memo = std::mem::take(&mut self.memo);
        let _ = MEMO.try_with(|m| {
            if let Ok(mut m) = m.try_borrow_mut() {
                *m = Some(memo);
            }
        });
    }
}

impl<'m, B: Base> Evaluator<'m, B> {
    /// Prepares an evaluator (nothing computed yet).
    pub fn new(model: &'m Model, base: B) -> Self {
        let n = base.n();
        let defs = &model.defs;
        let memo = MEMO
            .try_with(|m| m.try_borrow_mut().ok().and_then(|mut m| m.take()))
            .ok()
            .flatten()
            .unwrap_or_default()
            .renew(model, n);
        Evaluator {
            model,
            base,
            n,
            defs,
            memo,
            shortest_cycles: false,
            abs_active: HashSet::default(),
            may: None,
        }
    }

    /// Uses `may` to leave out of absence explanations the pairs and
    /// members no candidate of the encoding has: the explanation of a
    /// failed axiom then holds the facts of the pairs that could be
    /// present only (a stronger lemma, found faster: herd's `lock.cat`
    /// explains `co` through `(co | critical | critical^-1 ; co)+`,
    /// whose absence otherwise visits every pair of events). `may` must
    /// bound the values on every candidate this evaluator sees, over the
    /// same events ([`super::bounds::Bounds::static_may`] on the encoding
    /// whose candidate is the base); ignored when its number of events
    /// differs.
    pub fn with_static_may(mut self, may: Rc<StaticMay>) -> Self {
        if may.n == self.n {
            self.may = Some(may);
        }
        self
    }

    /// Whether the binding `(si, bi)` holds `(a, b)` (a relation) or `a`
    /// (a set, `b` ignored) on no candidate ([`Self::with_static_may`]).
    fn statically_absent(&self, si: usize, bi: usize, a: usize, b: usize) -> bool {
        let Some(m) = &self.may else { return false };
        match m
            .vals
            .get(si)
            .and_then(|v| v.get(bi))
            .and_then(|v| v.as_ref())
        {
            Some(Val::Rel(r)) => !r.get(a, b),
            Some(Val::Set(s)) => !s.get(a),
            None => false,
        }
    }

    /// The base (to read literals after checking).
    pub fn base_mut(&mut self) -> &mut B {
        &mut self.base
    }

    fn name_ref(&self, node: &Node) -> NameRef {
        match self.memo.plan.name_ref.get(node.id).copied().flatten() {
            Some(r) => r,
            None => unreachable!(
                "`{:?}` is not a `let` binding (the parser resolves names)",
                node.kind
            ),
        }
    }

    fn bind(&self, si: usize, bi: usize) -> &'m Node {
        let model = self.model;
        match &model.stmts[si] {
            Stmt::Let { binds, .. } => &binds[bi].1,
            Stmt::Check { .. } => unreachable!("a name refers to a `let`"),
        }
    }

    /// The value of a `Name` node.
    fn lookup(&mut self, node: &Node, env: Env) -> Rc<Val> {
        let (si, bi, rec) = self.name_ref(node);
        if !rec {
            return self.eval(self.bind(si, bi), None);
        }
        if let Some((g, i)) = env {
            if g == si {
                return self.memo.groups[&si].iters[bi][i].clone();
            }
        }
        self.ensure_group(si);
        self.memo.groups[&si].iters[bi]
            .last()
            .expect("a fixed point has iterates")
            .clone()
    }

    /// The revision at which the value of `node` (evaluated outside
    /// any fixed-point iteration) last changed; evaluates it.
    fn changed_at(&mut self, node: &Node) -> u64 {
        match &node.kind {
            ExprKind::Name(_) => {
                let (si, bi, rec) = self.name_ref(node);
                if rec {
                    self.ensure_group(si);
                    self.memo.groups[&si].changed[bi]
                } else {
                    self.changed_at(self.bind(si, bi))
                }
            }
            ExprKind::Base(b) => {
                self.base_val(*b);
                self.memo.bases[b].changed
            }
            _ => {
                self.eval_memo(node);
                self.memo.nodes[node.id].changed
            }
        }
    }

    /// Did an operand of `node` change after revision `since`? (Its
    /// children, and what the operation itself reads: the executed
    /// events, po.)
    fn operands_changed(&mut self, node: &Node, since: u64) -> bool {
        use ExprKind::*;
        match &node.kind {
            Name(_) | Base(_) => self.changed_at(node) > since,
            Empty => false,
            Union(x, y) | Inter(x, y) | Seq(x, y) | Diff(x, y) | Cart(x, y) => {
                self.changed_at(x) > since || self.changed_at(y) > since
            }
            Compl(x) | Star(x) | Opt(x) => {
                self.universe();
                self.memo.universe.changed > since || self.changed_at(x) > since
            }
            FenceRel(x) => {
                self.base_val(Builtin::Rel(BaseRel::Po));
                self.memo.bases[&Builtin::Rel(BaseRel::Po)].changed > since
                    || self.changed_at(x) > since
            }
            Plus(x) | Inv(x) | Bracket(x) | Domain(x) | Range(x) => self.changed_at(x) > since,
        }
    }

    /// Did an input of the `let rec` group at statement `si` (a value
    /// its bodies read that does not depend on the group) change after
    /// revision `since`?
    fn group_inputs_changed(&mut self, si: usize, since: u64) -> bool {
        fn walk<B: Base>(ev: &mut Evaluator<'_, B>, n: &Node, since: u64) -> bool {
            use ExprKind::*;
            if !ev.memo.plan.env_dep[n.id] {
                return ev.changed_at(n) > since;
            }
            match &n.kind {
                Name(_) | Base(_) | Empty => false,
                Union(x, y) | Inter(x, y) | Seq(x, y) | Diff(x, y) | Cart(x, y) => {
                    walk(ev, x, since) || walk(ev, y, since)
                }
                Compl(x) | Star(x) | Opt(x) => {
                    ev.universe();
                    ev.memo.universe.changed > since || walk(ev, x, since)
                }
                FenceRel(x) => {
                    ev.base_val(Builtin::Rel(BaseRel::Po));
                    ev.memo.bases[&Builtin::Rel(BaseRel::Po)].changed > since || walk(ev, x, since)
                }
                Plus(x) | Inv(x) | Bracket(x) | Domain(x) | Range(x) => walk(ev, x, since),
            }
        }
        let model = self.model;
        let Stmt::Let { binds, .. } = &model.stmts[si] else {
            return true;
        };
        binds.iter().any(|(_, e)| walk(self, e, since))
    }

    /// Makes the fixed point of the `let rec` group at statement `si`
    /// current (recomputing it only when an input changed).
    fn ensure_group(&mut self, si: usize) {
        let rev = self.memo.rev;
        let since = match self.memo.groups.get(&si) {
            Some(g) if g.verified == rev => return,
            Some(g) => Some(g.verified),
            None => None,
        };
        if let Some(since) = since {
            if !self.group_inputs_changed(si, since) {
                if let Some(g) = self.memo.groups.get_mut(&si) {
                    g.verified = rev;
                }
                return;
            }
        }
        let model = self.model;
        if let Stmt::Let { binds, .. } = &model.stmts[si] {
            if self.memo.plan.nonmono.contains(&si) {
                self.fixpoint_herd(si, binds);
            } else {
                self.fixpoint(si, binds);
            }
        }
    }

    /// The value of a base set or relation (computed once per
    /// candidate).
    fn base_val(&mut self, b: Builtin) -> Rc<Val> {
        let rev = self.memo.rev;
        if let Some(s) = self.memo.bases.get(&b) {
            if s.verified == rev {
                if let Some(v) = &s.val {
                    return v.clone();
                }
            }
        }
        let v = Rc::new(match b {
            Builtin::Set(s) => Val::Set(self.base.set(s)),
            Builtin::Rel(r) => Val::Rel(self.base.rel(r)),
        });
        let slot = self.memo.bases.entry(b).or_default();
        slot.store(v, rev);
        slot.val.clone().expect("stored")
    }

    /// The executed events (computed once per candidate).
    fn universe(&mut self) -> Bits {
        let rev = self.memo.rev;
        if self.memo.universe.verified != rev || self.memo.universe.val.is_none() {
            let u = self.base.executed();
            self.memo.universe.store(u, rev);
        }
        self.memo.universe.val.clone().expect("stored")
    }

    fn eval(&mut self, node: &Node, env: Env) -> Rc<Val> {
        match &node.kind {
            ExprKind::Name(_) => return self.lookup(node, env),
            ExprKind::Base(b) => return self.base_val(*b),
            _ => {}
        }
        if let Some((g, i)) = env {
            if self.memo.plan.env_dep[node.id] {
                if let Some(v) = self
                    .memo
                    .groups
                    .get(&g)
                    .and_then(|gr| gr.at.get(&(node.id, i)))
                {
                    return v.clone();
                }
                let v = Rc::new(self.compute(node, env));
                if let Some(gr) = self.memo.groups.get_mut(&g) {
                    gr.at.insert((node.id, i), v.clone());
                }
                return v;
            }
        }
        self.eval_memo(node)
    }

    /// The value of `node` outside any fixed-point iteration: the
    /// previous candidate's when its operands did not change.
    fn eval_memo(&mut self, node: &Node) -> Rc<Val> {
        let rev = self.memo.rev;
        let slot = &self.memo.nodes[node.id];
        if let Some(old) = &slot.val {
            if slot.verified == rev {
                return old.clone();
            }
            let (old, since) = (old.clone(), slot.verified);
            if !self.operands_changed(node, since) {
                self.memo.nodes[node.id].verified = rev;
                return old;
            }
        }
        let v = Rc::new(self.compute(node, None));
        let slot = &mut self.memo.nodes[node.id];
        slot.store(v, rev);
        slot.val.clone().expect("stored")
    }

    /// Computes the value of an operation node from its operands.
    fn compute(&mut self, node: &Node, env: Env) -> Val {
        use ExprKind::*;
        match &node.kind {
            Name(_) => (*self.lookup(node, env)).clone(),
            Base(b) => (*self.base_val(*b)).clone(),
            Empty => Val::Rel(Mat::new(self.n)),
            Union(a, b) | Inter(a, b) | Diff(a, b) => {
                let x = self.eval(a, env);
                let y = self.eval(b, env);
                let f: fn(u64, u64) -> u64 = match &node.kind {
                    Union(..) => |p, q| p | q,
                    Inter(..) => |p, q| p & q,
                    _ => |p, q| p & !q,
                };
                match (&*x, &*y) {
                    (Val::Set(p), Val::Set(q)) => Val::Set(p.zip(q, f)),
                    (Val::Rel(p), Val::Rel(q)) => Val::Rel(p.zip(q, f)),
                    _ => unreachable!("type-checked"),
                }
            }
            Seq(a, b) => {
                let x = self.eval(a, env);
                let y = self.eval(b, env);
                Val::Rel(x.rel().seq(y.rel()))
            }
            Cart(a, b) => {
                let x = self.eval(a, env);
                let y = self.eval(b, env);
                let mut m = Mat::new(self.n);
                for i in x.set().iter() {
                    m.0[i] = y.set().clone();
                }
                Val::Rel(m)
            }
            Compl(a) => {
                let u = self.universe();
                match &*self.eval(a, env) {
                    Val::Set(s) => Val::Set(u.zip(s, |p, q| p & !q)),
                    Val::Rel(r) => {
                        let mut m = Mat::new(self.n);
                        for i in u.iter() {
                            m.0[i] = u.zip(&r.0[i], |p, q| p & !q);
                        }
                        Val::Rel(m)
                    }
                }
            }
            Plus(a) => Val::Rel(self.eval(a, env).rel().plus()),
            Star(a) | Opt(a) => {
                let mut m = match &node.kind {
                    Star(_) => self.eval(a, env).rel().plus(),
                    _ => self.eval(a, env).rel().clone(),
                };
                for i in self.universe().iter() {
                    m.set(i, i);
                }
                Val::Rel(m)
            }
            Inv(a) => Val::Rel(self.eval(a, env).rel().inv()),
            Bracket(a) => {
                let s = self.eval(a, env);
                let mut m = Mat::new(self.n);
                for i in s.set().iter() {
                    m.set(i, i);
                }
                Val::Rel(m)
            }
            Domain(a) | Range(a) => {
                let r = self.eval(a, env);
                Val::Set(r.rel().project(matches!(node.kind, Range(_))))
            }
            FenceRel(a) => {
                let s = self.eval(a, env);
                let po = self.base_val(Builtin::Rel(BaseRel::Po));
                let po = po.rel();
                let mut mid = Mat::new(self.n);
                for i in s.set().iter() {
                    mid.set(i, i);
                }
                Val::Rel(po.seq(&mid).seq(po))
            }
        }
    }

    /// Computes the least fixed point of the `let rec` group at statement
    /// `si` by Kleene iteration from the empty relations, keeping every
    /// iterate (explanations use the iteration a pair first appears in).
    fn fixpoint(&mut self, si: usize, binds: &'m [(String, Node)]) {
        let rev = self.memo.rev;
        let old = self.memo.groups.remove(&si);
        self.memo.groups.insert(
            si,
            Group {
                verified: rev,
                changed: vec![rev; binds.len()],
                iters: binds
                    .iter()
                    .map(|_| vec![Rc::new(Val::Rel(Mat::new(self.n)))])
                    .collect(),
                at: HashMap::default(),
            },
        );
        let mut i = 0;
        loop {
            let mut changed = false;
            let mut next = Vec::with_capacity(binds.len());
            for (bi, (_, e)) in binds.iter().enumerate() {
                let v = self.eval(e, Some((si, i)));
                if v.rel() != self.memo.groups[&si].iters[bi][i].rel() {
                    changed = true;
                }
                next.push(v);
            }
            let g = self.memo.groups.get_mut(&si).expect("inserted above");
            for (bi, v) in next.into_iter().enumerate() {
                g.iters[bi].push(v);
            }
            i += 1;
            if !changed {
                break;
            }
        }
        // A binding whose fixed point equals the previous candidate's
        // keeps its change revision.
        if let Some(old) = old {
            let g = self.memo.groups.get_mut(&si).expect("inserted above");
            for bi in 0..binds.len() {
                if old.iters[bi].last() == g.iters[bi].last() {
                    g.changed[bi] = old.changed[bi];
                }
            }
        }
    }

    /// herd's iteration of a `let rec` group that is not monotone in its
    /// own names (herd's `lib/interpreter.ml`, `env_rec_vals`): from the
    /// empty values, each round evaluates the bindings in order, each
    /// seeing the values the earlier ones got in this round; it stops
    /// after the first round whose every value is included in the value
    /// the round started from. Each binding's evaluation is one iterate
    /// (index k: the values after k evaluations), so the iteration's
    /// memo ([`Group::at`]) stays keyed by iterate. A monotone group
    /// reaches the same least fixed point either way; one that never
    /// settles (herd loops) is cut after `2·n² + 8` rounds.
    fn fixpoint_herd(&mut self, si: usize, binds: &'m [(String, Node)]) {
        let rev = self.memo.rev;
        let m = binds.len();
        let old = self.memo.groups.remove(&si);
        self.memo.groups.insert(
            si,
            Group {
                verified: rev,
                changed: vec![rev; m],
                iters: binds
                    .iter()
                    .map(|_| vec![Rc::new(Val::Rel(Mat::new(self.n)))])
                    .collect(),
                at: HashMap::default(),
            },
        );
        let subset = |a: &Val, b: &Val| match (a, b) {
            (Val::Rel(x), Val::Rel(y)) => {
                x.0.iter()
                    .zip(&y.0)
                    .all(|(p, q)| p.0.iter().zip(&q.0).all(|(u, v)| u & !v == 0))
            }
            (Val::Set(x), Val::Set(y)) => x.0.iter().zip(&y.0).all(|(u, v)| u & !v == 0),
            _ => false,
        };
        let max_rounds = 2 * self.n * self.n + 8;
        let mut k = 0;
        for round in 0.. {
            let start = k;
            for (bi, (_, e)) in binds.iter().enumerate() {
                let v = self.eval(e, Some((si, k)));
                let g = self.memo.groups.get_mut(&si).expect("inserted above");
                for (bj, it) in g.iters.iter_mut().enumerate() {
                    let x = if bj == bi { v.clone() } else { it[k].clone() };
                    it.push(x);
                }
                k += 1;
            }
            let g = &self.memo.groups[&si];
            let settled = g.iters.iter().all(|it| subset(&it[k], &it[start]));
            if settled || round >= max_rounds {
                break;
            }
        }
        if let Some(old) = old {
            let g = self.memo.groups.get_mut(&si).expect("inserted above");
            for bi in 0..m {
                if old.iters[bi].last() == g.iters[bi].last() {
                    g.changed[bi] = old.changed[bi];
                }
            }
        }
    }

    /// Explains the value of the non-monotone `let rec` group at
    /// statement `si` ([`Plan::nonmono`]) by every fact of its inputs:
    /// the full value (each pair or element, present or absent) of every
    /// maximal sub-expression of its bodies that does not mention the
    /// group, and the executed events and po where a body's operator
    /// reads them. Any candidate with the same facts gives the group the
    /// same value (herd's iteration is a function of its inputs).
    fn group_facts(&mut self, si: usize, facts: &mut Vec<B::Fact>) {
        fn walk<B: Base>(
            ev: &mut Evaluator<'_, B>,
            n: &Node,
            done: &mut HashSet<usize>,
            facts: &mut Vec<B::Fact>,
        ) {
            use ExprKind::*;
            if !done.insert(n.id) {
                return;
            }
            if !ev.memo.plan.env_dep[n.id] {
                ev.full_value(n, facts);
                return;
            }
            match &n.kind {
                Name(_) | Base(_) | Empty => {}
                Union(x, y) | Inter(x, y) | Seq(x, y) | Diff(x, y) | Cart(x, y) => {
                    walk(ev, x, done, facts);
                    walk(ev, y, done, facts);
                }
                Compl(x) | Star(x) | Opt(x) => {
                    for e in 0..ev.n {
                        ev.exec_fact(e, facts);
                    }
                    walk(ev, x, done, facts);
                }
                FenceRel(x) => {
                    let po = ev.model.nodes; // a key no node has
                    if done.insert(po) {
                        ev.full_base_rel(BaseRel::Po, facts);
                    }
                    walk(ev, x, done, facts);
                }
                Plus(x) | Inv(x) | Bracket(x) | Domain(x) | Range(x) => walk(ev, x, done, facts),
            }
        }
        let model = self.model;
        let Stmt::Let { binds, .. } = &model.stmts[si] else {
            return;
        };
        let mut done = HashSet::default();
        for (_, e) in binds {
            walk(self, e, &mut done, facts);
        }
    }

    /// Every fact of the value of `n` (outside any iteration): each pair
    /// or element explained present or absent.
    fn full_value(&mut self, n: &Node, facts: &mut Vec<B::Fact>) {
        let v = self.eval(n, None);
        for a in 0..self.n {
            match &*v {
                Val::Set(s) => {
                    if s.get(a) {
                        self.pres_set(n, None, a, facts);
                    } else {
                        let mut seen = HashSet::default();
                        self.abs_set(n, None, a, facts, &mut seen);
                    }
                }
                Val::Rel(r) => {
                    for b in 0..self.n {
                        if r.get(a, b) {
                            self.pres(n, None, a, b, facts);
                        } else {
                            let mut seen = HashSet::default();
                            self.abs(n, None, a, b, facts, &mut seen);
                        }
                    }
                }
            }
        }
    }

    /// Every fact of base relation `r`.
    fn full_base_rel(&mut self, r: BaseRel, facts: &mut Vec<B::Fact>) {
        let v = self.base_val(Builtin::Rel(r));
        for a in 0..self.n {
            for b in 0..self.n {
                let present = v.rel().get(a, b);
                let l = self.base.rel_fact(r, a, b);
                self.fact(l, present, facts);
            }
        }
    }

    /// Evaluates the definitions the axioms need (lazily) and checks every
    /// axiom in order; returns
    /// the first violation with its explanation, or None when the
    /// candidate is consistent.
    pub fn check(&mut self) -> Option<Violation<B::Fact>> {
        self.check_all(1).into_iter().next()
    }

    /// Like [`Evaluator::check`], but collects up to `per_axiom` distinct
    /// violations of every axiom (for an `acyclic` axiom: a cycle, then
    /// another one after deleting an edge of the first, ...). More lemmas
    /// per candidate mean fewer solver rounds in the lazy loop.
    /// A cycle of `m` to explain an `acyclic` violation: the shortest one
    /// ([`Mat::shortest_cycle`]) when [`Evaluator::shortest_cycles`] is
    /// set; otherwise the first one found by depth-first search
    /// ([`Mat::find_cycle`]), shortened to the shortest cycle through
    /// one of its events ([`Mat::shortest_cycle_through`]). A depth-first
    /// cycle can run through most of the events (lemmas of 120 literals
    /// on `stack_safe`); the shortened ones are what a short explanation
    /// needs at the price of a few breadth-first searches: the refinements
    /// of the Nidhugg `pgsql` sc row fell from 304 to 69 (docs/performance.md).
    fn cycle(&self, m: &Mat) -> Option<Vec<usize>> {
        if self.shortest_cycles {
            return m.shortest_cycle();
        }
        let c = m.find_cycle()?;
        let len = c.len();
        Some(
            m.shortest_cycle_through(c.iter().copied(), Some(len))
                .unwrap_or(c),
        )
    }

    pub fn check_all(&mut self, per_axiom: usize) -> Vec<Violation<B::Fact>> {
        let model = self.model;
        let mut out = Vec::new();
        for st in model.stmts.iter() {
            let Stmt::Check {
                kind, expr, name, ..
            } = st
            else {
                continue;
            };
            let v = self.eval(expr, None);
            let mut found: Vec<Vec<(usize, usize)>> = Vec::new();
            match (kind, &*v) {
                (AxiomKind::Acyclic, Val::Rel(m)) if per_axiom > 0 => {
                    let first = self.cycle(m);
                    // Most candidates satisfy the axiom: copy the
                    // relation only to look for further cycles.
                    let Some(c) = first else { continue };
                    let mut m = m.clone();
                    let mut next = Some(c);
                    while let Some(c) = next.take() {
                        let pairs: Vec<(usize, usize)> =
                            (0..c.len()).map(|i| (c[i], c[(i + 1) % c.len()])).collect();
                        let (a, b) = pairs[pairs.len() - 1];
                        m.0[a].clear(b);
                        found.push(pairs);
                        if found.len() >= per_axiom {
                            break;
                        }
                        next = self.cycle(&m);
                    }
                }
                (AxiomKind::Irreflexive, Val::Rel(m)) => {
                    found.extend(
                        (0..self.n)
                            .filter(|&i| m.get(i, i))
                            .take(per_axiom)
                            .map(|i| vec![(i, i)]),
                    );
                }
                (AxiomKind::Empty, Val::Rel(m)) => found.extend(
                    (0..self.n)
                        .flat_map(|i| m.0[i].iter().map(move |j| (i, j)))
                        .take(per_axiom)
                        .map(|p| vec![p]),
                ),
                (AxiomKind::Empty, Val::Set(s)) => {
                    found.extend(s.iter().take(per_axiom).map(|i| vec![(i, i)]))
                }
                _ => {}
            }
            for pairs in found {
                let mut facts = Vec::new();
                let set_mode = expr.ty == Ty::Set;
                for &(a, b) in &pairs {
                    if set_mode {
                        self.pres_set(expr, None, a, &mut facts);
                    } else {
                        self.pres(expr, None, a, b, &mut facts);
                    }
                }
                facts.sort();
                facts.dedup();
                let events = pairs.iter().map(|p| p.0).collect();
                out.push(Violation {
                    axiom: name.clone(),
                    facts,
                    events,
                });
            }
        }
        out
    }

    /// The relation of the `acyclic` axiom at statement `stmt` of the
    /// model on this candidate (None for another statement).
    pub fn acyclic_value(&mut self, stmt: usize) -> Option<Mat> {
        let model = self.model;
        match model.stmts.get(stmt)? {
            Stmt::Check {
                kind: AxiomKind::Acyclic,
                expr,
                ..
            } => match &*self.eval(expr, None) {
                Val::Rel(m) => Some(m.clone()),
                Val::Set(_) => None,
            },
            _ => None,
        }
    }

    /// Facts (sorted, deduplicated) that put every pair of `pairs` in the
    /// relation of the axiom at statement `stmt` on every candidate where
    /// they hold (each pair must be in it on this candidate).
    pub fn explain_pairs(&mut self, stmt: usize, pairs: &[(usize, usize)]) -> Vec<B::Fact> {
        let model = self.model;
        let mut facts = Vec::new();
        if let Some(Stmt::Check { expr, .. }) = model.stmts.get(stmt) {
            for &(a, b) in pairs {
                self.pres(expr, None, a, b, &mut facts);
            }
        }
        facts.sort();
        facts.dedup();
        facts
    }

    /// Whether the value of the `let` binding with key `key` (a flag's
    /// expression, [`super::Flag::key`]) is non-empty on this candidate;
    /// false for an unknown key.
    pub fn nonempty(&mut self, key: &str) -> bool {
        let Some(&(si, bi)) = self.defs.get(key) else {
            return false;
        };
        let v = self.eval(self.bind(si, bi), None);
        match &*v {
            Val::Set(s) => !s.is_empty(),
            Val::Rel(m) => m.0.iter().any(|r| !r.is_empty()),
        }
    }

    /// Why the value of the `let` binding with key `key` is empty on this
    /// candidate: facts of the candidate under which it is empty on
    /// every candidate (the absence of each pair, or member, explained as
    /// a failed axiom's `\` and `~` are; pairs no candidate has, by
    /// [`Self::with_static_may`], need none). `None` when it is not
    /// empty, the key is unknown, or the binding is recursive.
    pub fn explain_empty(&mut self, key: &str) -> Option<Vec<B::Fact>> {
        let &(si, bi) = self.defs.get(key)?;
        if matches!(self.model.stmts[si], Stmt::Let { rec: true, .. }) || self.nonempty(key) {
            return None;
        }
        let node = self.bind(si, bi);
        let is_set = matches!(&*self.eval(node, None), Val::Set(_));
        let mut facts = Vec::new();
        let mut seen = HashSet::default();
        for a in 0..self.n {
            if is_set {
                if !self.statically_absent(si, bi, a, a) {
                    self.abs_set(node, None, a, &mut facts, &mut seen);
                }
                continue;
            }
            for b in 0..self.n {
                if !self.statically_absent(si, bi, a, b) {
                    self.abs(node, None, a, b, &mut facts, &mut seen);
                }
            }
        }
        Some(facts)
    }

    /// Whether the value of the `let` binding with key `key` has a pair
    /// (a, b) with `keep(a, b)` (an element e of a set: `keep(e, e)`);
    /// false for an unknown key. herd's `different-values(r)` right after
    /// a flag's test ([`super::Flag::different_values`]) is the binding `r`
    /// with `keep` "the two events do not have one value".
    pub fn nonempty_where(&mut self, key: &str, keep: &dyn Fn(usize, usize) -> bool) -> bool {
        let Some(&(si, bi)) = self.defs.get(key) else {
            return false;
        };
        let v = self.eval(self.bind(si, bi), None);
        match &*v {
            Val::Set(s) => s.iter().any(|e| keep(e, e)),
            Val::Rel(m) => (m.0.iter().enumerate()).any(|(a, r)| r.iter().any(|b| keep(a, b))),
        }
    }

    /// Concrete value of a defined or built-in relation (after `check`),
    /// by the user's name (the last definition of that name, else the base
    /// relation); None for a set or an unknown name.
    pub fn relation(&mut self, user_name: &str) -> Option<Mat> {
        let key = self
            .defs
            .keys()
            .filter(|k| k.split('#').next() == Some(user_name))
            .max_by_key(|k| {
                k.split('#')
                    .nth(1)
                    .and_then(|x| x.parse::<usize>().ok())
                    .unwrap_or(0)
            });
        let v = match key.and_then(|k| self.defs.get(k)).copied() {
            Some((si, bi)) => {
                if matches!(self.model.stmts[si], Stmt::Let { rec: true, .. }) {
                    self.ensure_group(si);
                    self.memo.groups[&si].iters[bi]
                        .last()
                        .expect("a fixed point has iterates")
                        .clone()
                } else {
                    self.eval(self.bind(si, bi), None)
                }
            }
            None => self.base_val(Builtin::from_name(user_name)?),
        };
        match &*v {
            Val::Rel(m) => Some(m.clone()),
            Val::Set(_) => None,
        }
    }

    fn fact(&mut self, l: Option<B::Fact>, present: bool, facts: &mut Vec<B::Fact>) {
        if let Some(l) = l {
            facts.push(if present { l } else { !l });
        }
    }

    fn exec_fact(&mut self, a: usize, facts: &mut Vec<B::Fact>) {
        let present = self.universe().get(a);
        let l = self.base.exec_fact(a);
        self.fact(l, present, facts);
    }

    /// Explains (a, b) ∈ node.
    fn pres(&mut self, node: &Node, env: Env, a: usize, b: usize, facts: &mut Vec<B::Fact>) {
        use ExprKind::*;
        match &node.kind {
            Name(_) => {
                let (g, bi, rec) = self.name_ref(node);
                let def = self.bind(g, bi);
                if rec && self.memo.plan.nonmono.contains(&g) {
                    self.ensure_group(g);
                    self.group_facts(g, facts);
                } else if rec {
                    self.ensure_group(g);
                    let iters = &self.memo.groups[&g].iters[bi];
                    let upto = match env {
                        Some((g2, i)) if g2 == g => i,
                        _ => iters.len() - 1,
                    };
                    let j = (1..=upto)
                        .find(|&j| iters[j].rel().get(a, b))
                        .unwrap_or(upto);
                    self.pres(def, Some((g, j - 1)), a, b, facts);
                } else {
                    self.pres(def, None, a, b, facts)
                }
            }
            Base(Builtin::Rel(r)) => {
                let l = self.base.rel_fact(*r, a, b);
                self.fact(l, true, facts);
            }
            Base(Builtin::Set(_)) => unreachable!("set in relation position"),
            Empty => {}
            Union(x, y) => {
                if self.eval(x, env).rel().get(a, b) {
                    self.pres(x, env, a, b, facts)
                } else {
                    self.pres(y, env, a, b, facts)
                }
            }
            Inter(x, y) => {
                self.pres(x, env, a, b, facts);
                self.pres(y, env, a, b, facts);
            }
            Diff(x, y) => {
                self.pres(x, env, a, b, facts);
                let mut seen = HashSet::default();
                self.abs(y, env, a, b, facts, &mut seen);
            }
            Seq(x, y) => {
                let rx = self.eval(x, env);
                let ry = self.eval(y, env);
                let mid = rx.rel().0[a].iter().find(|&c| ry.rel().get(c, b));
                if let Some(c) = mid {
                    self.pres(x, env, a, c, facts);
                    self.pres(y, env, c, b, facts);
                }
            }
            Cart(x, y) => {
                self.pres_set(x, env, a, facts);
                self.pres_set(y, env, b, facts);
            }
            Compl(x) => {
                self.exec_fact(a, facts);
                self.exec_fact(b, facts);
                let mut seen = HashSet::default();
                self.abs(x, env, a, b, facts, &mut seen);
            }
            Plus(x) | Star(x) | Opt(x) => {
                if a == b && !matches!(node.kind, Plus(_)) {
                    self.exec_fact(a, facts);
                    return;
                }
                if matches!(node.kind, Opt(_)) {
                    self.pres(x, env, a, b, facts);
                    return;
                }
                // Shortest path a → b in r.
                let path = bfs_path(self.eval(x, env).rel(), a, b);
                for w in path.windows(2) {
                    self.pres(x, env, w[0], w[1], facts);
                }
            }
            Inv(x) => self.pres(x, env, b, a, facts),
            Bracket(x) => self.pres_set(x, env, a, facts),
            Domain(_) | Range(_) => unreachable!("set in relation position"),
            FenceRel(x) => {
                let s = self.eval(x, env);
                let s = s.set();
                let po = self.base_val(Builtin::Rel(BaseRel::Po));
                let po = po.rel();
                let mid = s.iter().find(|&c| po.get(a, c) && po.get(c, b));
                if let Some(c) = mid {
                    let l = self.base.rel_fact(BaseRel::Po, a, c);
                    self.fact(l, true, facts);
                    self.pres_set(x, env, c, facts);
                    let l = self.base.rel_fact(BaseRel::Po, c, b);
                    self.fact(l, true, facts);
                }
            }
        }
    }

    /// Explains (a, b) ∉ node.
    fn abs(
        &mut self,
        node: &Node,
        env: Env,
        a: usize,
        b: usize,
        facts: &mut Vec<B::Fact>,
        seen: &mut HashSet<(usize, usize, usize, usize)>,
    ) {
        use ExprKind::*;
        // A sequence's or closure's absence explained once per
        // explanation, as a name's below: its facts are already in
        // `facts` (without this, a chain `r1 ; r2 ; … ; rk` of the
        // kernel's RCU relations is explained through every one of the
        // n^(k-1) paths). Keyed by the node's address with the top bit
        // set (a binding's key below is its group's index) and the
        // iterate of the recursion being explained.
        // (An iterate is encoded one-to-one: none is 0, (g, i) is
        // 1 + g·2^32 + i; beyond that range no memo is kept.)
        let iterate = match env {
            None => Some(0),
            Some((g, i)) if g < 1 << 30 && i < 1 << 32 => Some(1 + (g << 32) + i),
            Some(_) => None,
        };
        if let (Seq(..) | Plus(_) | Star(_), Some(iterate)) = (&node.kind, iterate) {
            let id = (node as *const Node as usize) | (1 << (usize::BITS - 1));
            if !seen.insert((id, iterate, a, b)) {
                return;
            }
        }
        match &node.kind {
            Name(_) => {
                let (g, bi, rec) = self.name_ref(node);
                // Absent on every candidate (a monotone group's iterates
                // lie within its fixed point, and so within its bound).
                if !(rec && self.memo.plan.nonmono.contains(&g))
                    && self.statically_absent(g, bi, a, b)
                {
                    return;
                }
                let def = self.bind(g, bi);
                match env {
                    _ if rec && self.memo.plan.nonmono.contains(&g) => {
                        self.ensure_group(g);
                        self.group_facts(g, facts);
                    }
                    Some((g2, i)) if rec && g2 == g => {
                        if i > 0 {
                            self.abs(def, Some((g, i - 1)), a, b, facts, seen);
                        }
                    }
                    _ if rec => {
                        let key = (g, bi, a, b);
                        if seen.insert(key) && self.abs_active.insert(key) {
                            self.abs(def, None, a, b, facts, seen);
                            self.abs_active.remove(&key);
                        }
                    }
                    // A name's absence explained once per explanation:
                    // its facts are already in `facts` (herd's lock.cat
                    // closes `critical^-1 ; co` under `+`, whose
                    // explanation asks for the same pairs again and again).
                    _ => {
                        if seen.insert((g, bi, a, b)) {
                            self.abs(def, None, a, b, facts, seen)
                        }
                    }
                }
            }
            Base(Builtin::Rel(r)) => {
                let l = self.base.rel_fact(*r, a, b);
                self.fact(l, false, facts);
            }
            Base(Builtin::Set(_)) => unreachable!("set in relation position"),
            Empty => {}
            Union(x, y) => {
                self.abs(x, env, a, b, facts, seen);
                self.abs(y, env, a, b, facts, seen);
            }
            Inter(x, y) => {
                if !self.eval(x, env).rel().get(a, b) {
                    self.abs(x, env, a, b, facts, seen)
                } else {
                    self.abs(y, env, a, b, facts, seen)
                }
            }
            Diff(x, y) => {
                if !self.eval(x, env).rel().get(a, b) {
                    self.abs(x, env, a, b, facts, seen)
                } else {
                    self.pres(y, env, a, b, facts)
                }
            }
            Seq(x, y) => {
                let rx = self.eval(x, env);
                for c in 0..self.n {
                    if !rx.rel().get(a, c) {
                        self.abs(x, env, a, c, facts, seen);
                    } else {
                        self.abs(y, env, c, b, facts, seen);
                    }
                }
            }
            Cart(x, y) => {
                if !self.eval(x, env).set().get(a) {
                    self.abs_set(x, env, a, facts, seen)
                } else {
                    self.abs_set(y, env, b, facts, seen)
                }
            }
            Compl(x) => {
                let u = self.universe();
                if !u.get(a) {
                    self.exec_fact(a, facts);
                } else if !u.get(b) {
                    self.exec_fact(b, facts);
                } else {
                    self.pres(x, env, a, b, facts);
                }
            }
            Plus(x) | Star(x) | Opt(x) => {
                if a == b && !matches!(node.kind, Plus(_)) {
                    self.exec_fact(a, facts);
                    if !self.universe().get(a) {
                        // Not executed: no edge can exist either.
                    }
                }
                if matches!(node.kind, Opt(_)) {
                    self.abs(x, env, a, b, facts, seen);
                    return;
                }
                let r = self.eval(x, env);
                let r = r.rel();
                let mut reach = Bits::new(self.n);
                let mut stack = vec![a];
                let mut inset = Bits::new(self.n);
                inset.set(a);
                while let Some(u) = stack.pop() {
                    for v in r.0[u].iter() {
                        if !inset.get(v) {
                            inset.set(v);
                            reach.set(v);
                            stack.push(v);
                        }
                    }
                }
                for u in inset.iter().collect::<Vec<_>>() {
                    for v in 0..self.n {
                        if !inset.get(v) {
                            self.abs(x, env, u, v, facts, seen);
                        }
                    }
                }
                let _ = reach;
            }
            Inv(x) => self.abs(x, env, b, a, facts, seen),
            Bracket(x) => {
                if a == b {
                    self.abs_set(x, env, a, facts, seen)
                }
            }
            Domain(_) | Range(_) => unreachable!("set in relation position"),
            FenceRel(x) => {
                let s = self.eval(x, env);
                let s = s.set();
                let po = self.base_val(Builtin::Rel(BaseRel::Po));
                let po = po.rel();
                for c in 0..self.n {
                    if !po.get(a, c) {
                        let l = self.base.rel_fact(BaseRel::Po, a, c);
                        self.fact(l, false, facts);
                    } else if !s.get(c) {
                        self.abs_set(x, env, c, facts, seen);
                    } else {
                        let l = self.base.rel_fact(BaseRel::Po, c, b);
                        self.fact(l, false, facts);
                    }
                }
            }
        }
    }

    fn pres_set(&mut self, node: &Node, env: Env, e: usize, facts: &mut Vec<B::Fact>) {
        use ExprKind::*;
        match &node.kind {
            Name(_) => {
                let (si, bi, _) = self.name_ref(node);
                self.pres_set(self.bind(si, bi), None, e, facts)
            }
            Base(Builtin::Set(s)) => {
                let l = self.base.set_fact(*s, e);
                self.fact(l, true, facts);
            }
            Union(x, y) => {
                if self.eval(x, env).set().get(e) {
                    self.pres_set(x, env, e, facts)
                } else {
                    self.pres_set(y, env, e, facts)
                }
            }
            Inter(x, y) => {
                self.pres_set(x, env, e, facts);
                self.pres_set(y, env, e, facts);
            }
            Diff(x, y) => {
                self.pres_set(x, env, e, facts);
                let mut seen = HashSet::default();
                self.abs_set(y, env, e, facts, &mut seen);
            }
            Compl(x) => {
                self.exec_fact(e, facts);
                let mut seen = HashSet::default();
                self.abs_set(x, env, e, facts, &mut seen);
            }
            Domain(r) | Range(r) => {
                let m = self.eval(r, env);
                let m = m.rel();
                let dom = matches!(node.kind, Domain(_));
                let other = (0..self.n).find(|&o| if dom { m.get(e, o) } else { m.get(o, e) });
                if let Some(o) = other {
                    if dom {
                        self.pres(r, env, e, o, facts)
                    } else {
                        self.pres(r, env, o, e, facts)
                    }
                }
            }
            _ => {}
        }
    }

    fn abs_set(
        &mut self,
        node: &Node,
        env: Env,
        e: usize,
        facts: &mut Vec<B::Fact>,
        seen: &mut HashSet<(usize, usize, usize, usize)>,
    ) {
        use ExprKind::*;
        match &node.kind {
            Name(_) => {
                let (si, bi, rec) = self.name_ref(node);
                if !(rec && self.memo.plan.nonmono.contains(&si))
                    && self.statically_absent(si, bi, e, e)
                {
                    return;
                }
                self.abs_set(self.bind(si, bi), None, e, facts, seen)
            }
            Base(Builtin::Set(s)) => {
                let l = self.base.set_fact(*s, e);
                self.fact(l, false, facts);
            }
            Union(x, y) => {
                self.abs_set(x, env, e, facts, seen);
                self.abs_set(y, env, e, facts, seen);
            }
            Inter(x, y) => {
                if !self.eval(x, env).set().get(e) {
                    self.abs_set(x, env, e, facts, seen)
                } else {
                    self.abs_set(y, env, e, facts, seen)
                }
            }
            Diff(x, y) => {
                if !self.eval(x, env).set().get(e) {
                    self.abs_set(x, env, e, facts, seen)
                } else {
                    self.pres_set(y, env, e, facts)
                }
            }
            Compl(x) => {
                if !self.universe().get(e) {
                    self.exec_fact(e, facts)
                } else {
                    self.pres_set(x, env, e, facts)
                }
            }
            Domain(r) | Range(r) => {
                let dom = matches!(node.kind, Domain(_));
                for o in 0..self.n {
                    if dom {
                        self.abs(r, env, e, o, facts, seen)
                    } else {
                        self.abs(r, env, o, e, facts, seen)
                    }
                }
            }
            _ => {}
        }
    }
}

fn bfs_path(r: &Mat, a: usize, b: usize) -> Vec<usize> {
    let n = r.n();
    let mut prev = vec![usize::MAX; n];
    let mut q = std::collections::VecDeque::new();
    q.push_back(a);
    let mut seen = Bits::new(n);
    while let Some(u) = q.pop_front() {
        for v in r.0[u].iter() {
            if v == b {
                let mut path = vec![b];
                let mut x = u;
                while x != a {
                    path.push(x);
                    x = prev[x];
                }
                path.push(a);
                path.reverse();
                return path;
            }
            if !seen.get(v) {
                seen.set(v);
                prev[v] = u;
                q.push_back(v);
            }
        }
    }
    vec![a, b]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A random candidate: every base set and relation as explicit bits;
    /// facts name (relation or set, events) so that explanations can be
    /// compared.
    #[derive(Clone)]
    struct Cand {
        n: usize,
        exec: Bits,
        sets: Vec<Bits>,
        rels: Vec<Mat>,
    }

    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            self.0 >> 33
        }
        fn chance(&mut self, pct: u64) -> bool {
            self.next() % 100 < pct
        }
    }

    fn random_cand(rng: &mut Rng, n: usize) -> Cand {
        let mut exec = Bits::new(n);
        for i in 0..n {
            if rng.chance(90) {
                exec.set(i);
            }
        }
        let sets = BaseSet::all()
            .map(|_| {
                let mut b = Bits::new(n);
                for i in exec.iter() {
                    if rng.chance(40) {
                        b.set(i);
                    }
                }
                b
            })
            .collect();
        let rels = BaseRel::all()
            .map(|r| {
                let mut m = Mat::new(n);
                for a in exec.iter() {
                    for b in exec.iter() {
                        let on = match r {
                            BaseRel::Po => a < b && a % 2 == b % 2,
                            BaseRel::Id => a == b,
                            BaseRel::Int => a % 2 == b % 2,
                            BaseRel::Ext => a % 2 != b % 2,
                            _ => rng.chance(25),
                        };
                        if on {
                            m.set(a, b);
                        }
                    }
                }
                m
            })
            .collect();
        Cand {
            n,
            exec,
            sets,
            rels,
        }
    }

    /// The candidate with a few rf/co/fr/data pairs flipped (what
    /// changes between consecutive candidates of a solver).
    fn mutate(rng: &mut Rng, c: &Cand) -> Cand {
        let mut c = c.clone();
        for r in [BaseRel::Rf, BaseRel::Co, BaseRel::Fr, BaseRel::Data] {
            let ri = BaseRel::all()
                .position(|x| x == r)
                .expect("a base relation");
            if rng.chance(50) {
                let (a, b) = (rng.next() as usize % c.n, rng.next() as usize % c.n);
                if c.rels[ri].get(a, b) {
                    c.rels[ri].0[a].clear(b);
                } else {
                    c.rels[ri].set(a, b);
                }
            }
        }
        c
    }

    struct Concrete<'a>(&'a Cand);

    impl Base for Concrete<'_> {
        type Fact = i64;
        fn n(&self) -> usize {
            self.0.n
        }
        fn executed(&mut self) -> Bits {
            self.0.exec.clone()
        }
        fn set(&mut self, s: BaseSet) -> Bits {
            self.0.sets[BaseSet::all().position(|x| x == s).expect("a base set")].clone()
        }
        fn rel(&mut self, r: BaseRel) -> Mat {
            self.0.rels[BaseRel::all()
                .position(|x| x == r)
                .expect("a base relation")]
            .clone()
        }
        fn exec_fact(&mut self, e: usize) -> Option<i64> {
            Some(1 + e as i64)
        }
        fn set_fact(&mut self, s: BaseSet, e: usize) -> Option<i64> {
            let si = BaseSet::all().position(|x| x == s).expect("a base set");
            Some(1_000 * (1 + si as i64) + e as i64)
        }
        fn rel_fact(&mut self, r: BaseRel, a: usize, b: usize) -> Option<i64> {
            let ri = BaseRel::all()
                .position(|x| x == r)
                .expect("a base relation");
            Some(1_000_000 * (1 + ri as i64) + 100 * a as i64 + b as i64)
        }
    }

    type Answer = Vec<(String, Vec<i64>, Vec<usize>)>;

    fn answer(model: &Model, c: &Cand) -> Answer {
        Evaluator::new(model, Concrete(c))
            .check_all(3)
            .into_iter()
            .map(|v| (v.axiom, v.facts, v.events))
            .collect()
    }

    /// Values kept from the previous candidate (the memo) give the same
    /// violations and explanations as a fresh evaluation, for every
    /// built-in model, on sequences of candidates that differ in a few
    /// pairs (and sometimes entirely, or in size).
    #[test]
    fn kept_values_give_the_answers_of_a_fresh_evaluation() {
        let mut rng = Rng(7);
        let mut violations = 0;
        for (name, _) in super::super::BUILTIN_MODELS {
            let model = super::super::builtin(name).expect("a built-in model");
            let mut c = random_cand(&mut rng, 5);
            MEMO.with(|m| *m.borrow_mut() = None);
            for step in 0..60 {
                c = match step % 20 {
                    0 => random_cand(&mut rng, 4 + step % 3),
                    _ => mutate(&mut rng, &c),
                };
                let kept = answer(&model, &c);
                let memo = MEMO.with(|m| m.borrow_mut().take());
                let fresh = answer(&model, &c);
                MEMO.with(|m| *m.borrow_mut() = memo);
                assert_eq!(kept, fresh, "model {name}, candidate {step}");
                violations += kept.len();
            }
        }
        // The candidates exercise the explanations, not only consistency.
        assert!(violations > 50, "only {violations} violations");
    }

    /// A `let rec` group that is not monotone (the kernel's rcu-rscs
    /// matching of nested lock/unlock pairs) is computed by herd's
    /// iteration: bindings in order, each seeing this round's earlier
    /// values, until a round adds nothing. Kleene iteration with all
    /// bindings at once would match every lock with every unlock.
    /// Its explanation holds the facts of its inputs.
    #[test]
    fn a_group_that_is_not_monotone_is_iterated_as_herd_does() {
        let text = "\"m\"\n\
            let rec ul = R \\ domain(m)\n\
            and uu = W \\ range(m)\n\
            and un = ul | uu\n\
            and upo = [un] ; po ; [un]\n\
            and ultu = [ul] ; po ; [uu]\n\
            and m = m | (ultu \\ (upo ; upo))\n\
            empty m as matched\n";
        let model = crate::cat::parse::parse_model(&crate::diag::SourceFile::new("m.cat", text))
            .expect("a model");
        // One thread: lock, lock, unlock, unlock.
        let n = 4;
        let mut exec = Bits::new(n);
        (0..n).for_each(|i| exec.set(i));
        let set_of = |s: BaseSet| {
            let mut b = Bits::new(n);
            match s {
                BaseSet::R => [0, 1].iter().for_each(|&i| b.set(i)),
                BaseSet::W => [2, 3].iter().for_each(|&i| b.set(i)),
                _ => {}
            }
            b
        };
        let rel_of = |r: BaseRel| {
            let mut m = Mat::new(n);
            for a in 0..n {
                for b in 0..n {
                    if (r == BaseRel::Po && a < b) || (r == BaseRel::Id && a == b) {
                        m.set(a, b);
                    }
                }
            }
            m
        };
        let c = Cand {
            n,
            exec,
            sets: BaseSet::all().map(set_of).collect(),
            rels: BaseRel::all().map(rel_of).collect(),
        };
        MEMO.with(|m| *m.borrow_mut() = None);
        let mut ev = Evaluator::new(&model, Concrete(&c));
        let v = ev.check();
        let m = ev.relation("m").expect("a relation");
        let pairs: Vec<(usize, usize)> = (0..n)
            .flat_map(|a| (0..n).map(move |b| (a, b)))
            .filter(|&(a, b)| m.get(a, b))
            .collect();
        assert_eq!(pairs, vec![(0, 3), (1, 2)]);
        // The explanation holds po's facts (absent pairs too) and the
        // sets' (members and non-members).
        let v = v.expect("`empty m` fails");
        assert_eq!(v.axiom, "matched");
        let po = |a: i64, b: i64| 1_000_000 + 100 * a + b;
        assert!(v.facts.contains(&po(1, 2)), "{:?}", v.facts);
        assert!(v.facts.contains(&!po(2, 1)), "{:?}", v.facts);
        // `let rec a = po \ a`: herd stops after the round that adds
        // nothing (po, then the empty relation).
        let model = crate::cat::parse::parse_model(&crate::diag::SourceFile::new(
            "m.cat",
            "\"m\"\nlet rec a = po \\ a\nempty a as e\n",
        ))
        .expect("a model");
        MEMO.with(|m| *m.borrow_mut() = None);
        assert!(Evaluator::new(&model, Concrete(&c)).check().is_none());
    }
}
