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
//! absent), which is sound because recursive definitions are monotone in
//! the recursive names.

use super::base::{BaseRel, BaseSet, Builtin};
use super::{AxiomKind, ExprKind, Model, Node, Stmt, Ty};
use crate::collections::{HashMap, HashSet};
use std::rc::Rc;

/// A set of events as a bit vector (shape: n bits; inline, without heap
/// allocation, up to 128 events).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bits(pub smallvec::SmallVec<[u64; 2]>);

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
    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|w| *w == 0)
    }
    fn zip(&self, o: &Bits, f: impl Fn(u64, u64) -> u64) -> Bits {
        Bits(self.0.iter().zip(&o.0).map(|(a, b)| f(*a, *b)).collect())
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
    fn zip(&self, o: &Mat, f: impl Fn(u64, u64) -> u64 + Copy) -> Mat {
        Mat(self.0.iter().zip(&o.0).map(|(a, b)| a.zip(b, f)).collect())
    }
    fn seq(&self, o: &Mat) -> Mat {
        let n = self.n();
        let mut out = Mat::new(n);
        for a in 0..n {
            for c in self.0[a].iter() {
                out.0[a].union_with(&o.0[c]);
            }
        }
        out
    }
    fn inv(&self) -> Mat {
        let n = self.n();
        let mut out = Mat::new(n);
        for a in 0..n {
            for b in self.0[a].iter() {
                out.set(b, a);
            }
        }
        out
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
        let n = self.n();
        let mut best: Option<Vec<usize>> = None;
        let mut parent = vec![usize::MAX; n];
        let mut queue = Vec::with_capacity(n);
        for s in 0..n {
            if self.0[s].is_empty() {
                continue;
            }
            parent.iter_mut().for_each(|p| *p = usize::MAX);
            queue.clear();
            queue.push(s);
            let mut head = 0;
            let limit = best.as_ref().map_or(usize::MAX, |c| c.len());
            let mut depth = vec![0usize; 0];
            depth.resize(n, 0);
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

    /// A cycle (list of events, first ≠ repeated) if the relation has one.
    pub fn find_cycle(&self) -> Option<Vec<usize>> {
        let n = self.n();
        let mut color = vec![0u8; n];
        let mut parent = vec![usize::MAX; n];
        for s in 0..n {
            if color[s] != 0 {
                continue;
            }
            let mut stack: Vec<(usize, Vec<usize>, usize)> =
                vec![(s, self.0[s].iter().collect(), 0)];
            color[s] = 1;
            while let Some(top) = stack.last_mut() {
                let (u, ref succ, ref mut i) = *top;
                if *i < succ.len() {
                    let v = succ[*i];
                    *i += 1;
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
                        stack.push((v, self.0[v].iter().collect(), 0));
                    }
                } else {
                    color[u] = 2;
                    stack.pop();
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
    fn rel(&self) -> &Mat {
        match self {
            Val::Rel(m) => m,
            Val::Set(_) => unreachable!("type-checked"),
        }
    }
    fn set(&self) -> &Bits {
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

/// Evaluator of one model on one candidate.
pub struct Evaluator<'m, B: Base> {
    model: &'m Model,
    base: B,
    n: usize,
    /// name key → (stmt index, bind index)
    defs: &'m HashMap<String, (usize, usize)>,
    /// rec name key → values per iteration (index 0 = empty).
    iters: HashMap<String, Vec<Rc<Val>>>,
    fix: HashMap<String, Rc<Val>>,
    cache: HashMap<(usize, Env), Rc<Val>>,
    basecache: HashMap<Builtin, Rc<Val>>,
    universe: Option<Bits>,
    /// Explain `acyclic` violations with shortest cycles
    /// ([`Mat::shortest_cycle`]) instead of the first one found.
    pub shortest_cycles: bool,
}

impl<'m, B: Base> Evaluator<'m, B> {
    /// Prepares an evaluator (nothing computed yet).
    pub fn new(model: &'m Model, base: B) -> Self {
        let n = base.n();
        let defs = &model.defs;
        Evaluator {
            model,
            base,
            n,
            defs,
            iters: HashMap::default(),
            fix: HashMap::default(),
            cache: HashMap::default(),
            basecache: HashMap::default(),
            universe: None,
            shortest_cycles: false,
        }
    }

    /// The base (to read literals after checking).
    pub fn base_mut(&mut self) -> &mut B {
        &mut self.base
    }

    fn group_of(&self, name: &str) -> Option<usize> {
        let (si, _) = self.defs.get(name)?;
        match &self.model.stmts[*si] {
            Stmt::Let { rec: true, .. } => Some(*si),
            _ => None,
        }
    }

    fn lookup(&mut self, name: &str, env: Env) -> Rc<Val> {
        if let Some((g, i)) = env {
            if self.group_of(name) == Some(g) {
                return self.iters[name][i].clone();
            }
        }
        if let Some(v) = self.fix.get(name) {
            return v.clone();
        }
        // `let` definitions are evaluated on first use (lazily).
        if let Some(&(si, bi)) = self.defs.get(name) {
            let model = self.model;
            match &model.stmts[si] {
                Stmt::Let { rec: false, binds } => {
                    let v = self.eval(&binds[bi].1, None);
                    self.fix.insert(name.to_string(), v.clone());
                    return v;
                }
                Stmt::Let { rec: true, binds } => {
                    self.fixpoint(si, binds);
                    return self.fix[name].clone();
                }
                Stmt::Check { .. } => {}
            }
        }
        unreachable!("`{name}` is not a `let` binding (the parser resolves names)")
    }

    /// The value of a base set or relation (cached).
    fn base_val(&mut self, b: Builtin) -> Rc<Val> {
        if let Some(v) = self.basecache.get(&b) {
            return v.clone();
        }
        let v = Rc::new(match b {
            Builtin::Set(s) => Val::Set(self.base.set(s)),
            Builtin::Rel(r) => Val::Rel(self.base.rel(r)),
        });
        self.basecache.insert(b, v.clone());
        v
    }

    /// The executed events (cached).
    fn universe(&mut self) -> Bits {
        match &self.universe {
            Some(u) => u.clone(),
            None => {
                let u = self.base.executed();
                self.universe = Some(u.clone());
                u
            }
        }
    }

    fn eval(&mut self, node: &Node, env: Env) -> Rc<Val> {
        let key = (node.id, env);
        if let Some(v) = self.cache.get(&key) {
            return v.clone();
        }
        use ExprKind::*;
        let v = match &node.kind {
            Name(s) => return self.lookup(s, env),
            Base(b) => return self.base_val(*b),
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
                let x = self.eval(a, env).set().clone();
                let y = self.eval(b, env).set().clone();
                let mut m = Mat::new(self.n);
                for i in x.iter() {
                    m.0[i] = y.clone();
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
                let s = self.eval(a, env).set().clone();
                let mut m = Mat::new(self.n);
                for i in s.iter() {
                    m.set(i, i);
                }
                Val::Rel(m)
            }
            Domain(a) | Range(a) => {
                let r = self.eval(a, env).rel().clone();
                let r = if matches!(node.kind, Range(_)) {
                    r.inv()
                } else {
                    r
                };
                let mut s = Bits::new(self.n);
                for i in 0..self.n {
                    if !r.0[i].is_empty() {
                        s.set(i);
                    }
                }
                Val::Set(s)
            }
            FenceRel(a) => {
                let s = self.eval(a, env).set().clone();
                let po = self.base_val(Builtin::Rel(BaseRel::Po)).rel().clone();
                let mut mid = Mat::new(self.n);
                for i in s.iter() {
                    mid.set(i, i);
                }
                Val::Rel(po.seq(&mid).seq(&po))
            }
        };
        let v = Rc::new(v);
        self.cache.insert(key, v.clone());
        v
    }

    /// Computes the least fixed point of the `let rec` group at statement
    /// `si` by Kleene iteration from the empty relations, keeping every
    /// iterate (explanations use the iteration a pair first appears in).
    fn fixpoint(&mut self, si: usize, binds: &'m [(String, Node)]) {
        for (name, _) in binds {
            self.iters
                .insert(name.clone(), vec![Rc::new(Val::Rel(Mat::new(self.n)))]);
        }
        let mut i = 0;
        loop {
            let mut changed = false;
            let mut next = Vec::new();
            for (name, e) in binds {
                let v = self.eval(e, Some((si, i)));
                if v.rel() != self.iters[name][i].rel() {
                    changed = true;
                }
                next.push((name.clone(), v));
            }
            for (name, v) in next {
                if let Some(vs) = self.iters.get_mut(&name) {
                    vs.push(v);
                }
            }
            i += 1;
            if !changed {
                break;
            }
        }
        for (name, _) in binds {
            let v = self.iters[name][i].clone();
            self.fix.insert(name.clone(), v);
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
                (AxiomKind::Acyclic, Val::Rel(m)) => {
                    let mut m = m.clone();
                    while found.len() < per_axiom {
                        let c = if self.shortest_cycles {
                            m.shortest_cycle()
                        } else {
                            m.find_cycle()
                        };
                        let Some(c) = c else { break };
                        let pairs: Vec<(usize, usize)> =
                            (0..c.len()).map(|i| (c[i], c[(i + 1) % c.len()])).collect();
                        let (a, b) = pairs[pairs.len() - 1];
                        m.0[a].clear(b);
                        found.push(pairs);
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
        let v = match key.cloned() {
            Some(key) => self.lookup(&key, None),
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

    fn def_node(&self, name: &str) -> Option<&'m Node> {
        let (si, bi) = *self.defs.get(name)?;
        match &self.model.stmts[si] {
            Stmt::Let { binds, .. } => Some(&binds[bi].1),
            _ => None,
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
            Name(s) => {
                if let Some(def) = self.def_node(s) {
                    match (self.group_of(s), env) {
                        (Some(g), e) => {
                            let upto = match e {
                                Some((g2, i)) if g2 == g => i,
                                _ => self.iters[s].len() - 1,
                            };
                            let j = (1..=upto)
                                .find(|&j| self.iters[s][j].rel().get(a, b))
                                .unwrap_or(upto);
                            self.pres(def, Some((g, j - 1)), a, b, facts);
                        }
                        (None, _) => self.pres(def, None, a, b, facts),
                    }
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
                let rx = self.eval(x, env).rel().clone();
                let ry = self.eval(y, env).rel().clone();
                let mid = rx.0[a].iter().find(|&c| ry.get(c, b));
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
                let r = self.eval(x, env).rel().clone();
                if matches!(node.kind, Opt(_)) {
                    self.pres(x, env, a, b, facts);
                    return;
                }
                // Shortest path a → b in r.
                let path = bfs_path(&r, a, b);
                for w in path.windows(2) {
                    self.pres(x, env, w[0], w[1], facts);
                }
            }
            Inv(x) => self.pres(x, env, b, a, facts),
            Bracket(x) => self.pres_set(x, env, a, facts),
            Domain(_) | Range(_) => unreachable!("set in relation position"),
            FenceRel(x) => {
                let s = self.eval(x, env).set().clone();
                let po = self.base_val(Builtin::Rel(BaseRel::Po)).rel().clone();
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
        seen: &mut HashSet<(String, usize, usize, Env)>,
    ) {
        use ExprKind::*;
        match &node.kind {
            Name(s) => {
                if let Some(def) = self.def_node(s) {
                    match (self.group_of(s), env) {
                        (Some(g), Some((g2, i))) if g2 == g => {
                            if i > 0 {
                                self.abs(def, Some((g, i - 1)), a, b, facts, seen);
                            }
                        }
                        (Some(_), _) => {
                            if seen.insert((s.clone(), a, b, None)) {
                                self.abs(def, None, a, b, facts, seen);
                            }
                        }
                        (None, _) => self.abs(def, None, a, b, facts, seen),
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
                let rx = self.eval(x, env).rel().clone();
                for c in 0..self.n {
                    if !rx.get(a, c) {
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
                let r = self.eval(x, env).rel().clone();
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
                let s = self.eval(x, env).set().clone();
                let po = self.base_val(Builtin::Rel(BaseRel::Po)).rel().clone();
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
            Name(s) => {
                if let Some(def) = self.def_node(s) {
                    self.pres_set(def, None, e, facts)
                }
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
                let m = self.eval(r, env).rel().clone();
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
        seen: &mut HashSet<(String, usize, usize, Env)>,
    ) {
        use ExprKind::*;
        match &node.kind {
            Name(s) => {
                if let Some(def) = self.def_node(s) {
                    self.abs_set(def, None, e, facts, seen)
                }
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
