//! Static bounds on a model's sets and relations over *every* candidate
//! execution of an encoding: for each expression a *may* value (every
//! pair in its value on some candidate, or more) and a *must* value (pairs
//! in its value on every candidate in which their events are executed).
//! Interval evaluation over the cat AST.
//!
//! The base items come as bounds from a [`BoundsBase`] (a backend: what
//! its encoding makes possible, and what it makes hold whenever the
//! events are executed), with the executed events themselves: *may* the
//! events some candidate executes, *must* those every candidate executes.
//! Every value of [`super::eval`] relates executed events only, so the
//! bounds compose (for each operator, the concrete value on a candidate
//! within the operands' bounds lies within the result's):
//!
//! * union, intersection, inverse, `[S]`, `S * T` map may to may and
//!   must to must; `a \ b` is `[must(a) \ may(b), may(a) \ must(b)]`;
//!   `~a` is `[may(U) \ may(a), may(U) \ must(a)]` (U the executed
//!   events); `r?` and `r*` add the identity on may(U) to both.
//! * Where an event is existentially in between — `a ; b`, `r+`, `r*`,
//!   `domain`, `range`, `fencerel` — the must part only goes through
//!   events every candidate executes (must(U)): an event that may be
//!   missing breaks the derivation.
//!
//! A `let rec` group monotone in its own names is iterated from the empty
//! bounds until both are stable: each concrete iterate lies within the
//! bound iterate of the same rank, so the concrete least fixed point lies
//! within the limits. A group that is not (herd's iteration,
//! `eval`'s `fixpoint_herd`) is iterated the same way when every iterate
//! is exact over events every candidate executes (must = may, both within
//! must(U): then every candidate computes the very same iterates and
//! stops at the same round); otherwise it gets the widest bounds (must
//! empty, may every pair of possibly executed events).
//!
//! Uses: herd's flags (`flag ~empty E as NAME`): a flag whose expression
//! has an empty may value holds on no candidate, consistent or not, so it
//! is decided without visiting any (docs/litmus.md, "C litmus tests");
//! the relation analysis of the varisat backend's eager encoding
//! (`engines::bounded::varisat::bounds::model_bounds`); the lemma check
//! of certificates (`engines::bounded::certify::justify`: the bounds a
//! lemma's facts give the base items).

use super::base::{BaseRel, BaseSet, Builtin};
use super::eval::{Bits, Mat, Val};
use super::{AxiomKind, ExprKind, Model, Node, Stmt};
use crate::collections::HashMap;

/// Bounds of one value over every candidate: `must ⊆ v ⊆ may` for the
/// value `v` on a candidate, `must` restricted to the candidate's
/// executed events (see the module doc).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bound<T> {
    /// Present whenever the events are executed.
    pub must: T,
    /// Present on some candidate (or more).
    pub may: T,
}

/// A backend's base items as bounds over every candidate execution of
/// its encoding (module doc). Shapes: `n()` events, sets of `n` bits,
/// relations `n × n`.
pub trait BoundsBase {
    /// Number of events.
    fn n(&self) -> usize;
    /// The executed events: `must` on every candidate, `may` on some.
    fn executed(&mut self) -> Bound<Bits>;
    /// A base set.
    fn set(&mut self, s: BaseSet) -> Bound<Bits>;
    /// A base relation.
    fn rel(&mut self, r: BaseRel) -> Bound<Mat>;
}

type Iv = Bound<Val>;

fn same_val(a: &Val, b: &Val) -> bool {
    match (a, b) {
        (Val::Set(x), Val::Set(y)) => x == y,
        (Val::Rel(x), Val::Rel(y)) => x == y,
        _ => false,
    }
}

/// The events a value relates (its members, or both ends of its pairs).
fn support(v: &Val, n: usize) -> Bits {
    match v {
        Val::Set(s) => s.clone(),
        Val::Rel(m) => {
            let mut s = m.project(true);
            s.union_with(&m.project(false));
            debug_assert!(s.0.len() == n.div_ceil(64));
            s
        }
    }
}

/// The interval evaluator of one model over one [`BoundsBase`].
pub struct Bounds<'m, B> {
    model: &'m Model,
    base: B,
    n: usize,
    universe: Option<Bound<Bits>>,
    bases: HashMap<Builtin, Iv>,
    /// Values of the bindings evaluated so far: (statement, binding).
    vals: HashMap<(usize, usize), Iv>,
    /// Statements evaluated: every binding of `stmts[..done]` is in
    /// `vals`.
    done: usize,
}

impl<'m, B: BoundsBase> Bounds<'m, B> {
    /// An evaluator of `model` over `base` (nothing computed yet).
    pub fn new(model: &'m Model, base: B) -> Self {
        let n = base.n();
        Bounds {
            model,
            base,
            n,
            universe: None,
            bases: HashMap::default(),
            vals: HashMap::default(),
            done: 0,
        }
    }

    /// The bounds of the `let` binding with key `key` (its unique key,
    /// `name#k`); `None` for an unknown key.
    pub fn binding(&mut self, key: &str) -> Option<Bound<Val>> {
        let &(si, bi) = self.model.defs.get(key)?;
        while self.done <= si {
            self.statement(self.done);
            self.done += 1;
        }
        self.vals.get(&(si, bi)).cloned()
    }

    /// Whether the binding `key` (a flag's expression,
    /// [`super::Flag::key`]) may be non-empty on some candidate: false
    /// when its may value is empty; true for an unknown key.
    pub fn may_be_nonempty(&mut self, key: &str) -> bool {
        match self.binding(key).map(|v| v.may) {
            Some(Val::Set(s)) => !s.is_empty(),
            Some(Val::Rel(m)) => m.0.iter().any(|r| !r.is_empty()),
            None => true,
        }
    }

    /// The may value of every `let` binding of the model
    /// ([`super::eval::StaticMay`], for
    /// [`super::eval::Evaluator::with_static_may`]); evaluates every
    /// statement.
    pub fn static_may(&mut self) -> super::eval::StaticMay {
        let model = self.model;
        while self.done < model.stmts.len() {
            self.statement(self.done);
            self.done += 1;
        }
        let vals = (model.stmts.iter().enumerate())
            .map(|(si, st)| match st {
                Stmt::Let { binds, .. } => (0..binds.len())
                    .map(|bi| self.vals.get(&(si, bi)).map(|v| v.may.clone()))
                    .collect(),
                Stmt::Check { .. } => Vec::new(),
            })
            .collect();
        super::eval::StaticMay { n: self.n, vals }
    }

    /// The bounds of the expression of the axiom at statement `si` (the
    /// bindings before it evaluated first); `None` when `si` is not an
    /// axiom. An `acyclic r+` is bounded as `r`.
    pub fn axiom(&mut self, si: usize) -> Option<(AxiomKind, Bound<Val>)> {
        let model = self.model;
        let Stmt::Check { kind, expr, .. } = &model.stmts.get(si)? else {
            return None;
        };
        while self.done < si {
            self.statement(self.done);
            self.done += 1;
        }
        let mut e = expr;
        if *kind == AxiomKind::Acyclic {
            while let ExprKind::Plus(x) = &e.kind {
                e = x;
            }
        }
        Some((*kind, self.eval(e)))
    }

    /// Evaluates the bindings of statement `si` (checks have none).
    fn statement(&mut self, si: usize) {
        let model = self.model;
        let Stmt::Let { rec, binds } = &model.stmts[si] else {
            return;
        };
        if !*rec {
            for (bi, (_, e)) in binds.iter().enumerate() {
                let v = self.eval(e);
                self.vals.insert((si, bi), v);
            }
            return;
        }
        let keys: Vec<String> = binds.iter().map(|(k, _)| k.clone()).collect();
        let monotone = binds
            .iter()
            .all(|(_, e)| super::parse::negative_use(e, &keys, true).is_none());
        for (bi, (_, e)) in binds.iter().enumerate() {
            let empty = self.empty_like(e);
            self.vals.insert((si, bi), empty);
        }
        let must_exec = self.universe().must;
        // Each round evaluates the bindings in order, each seeing the
        // values the earlier ones got in this round (herd's iteration;
        // for a monotone group it reaches the same limits as Kleene's).
        let max_rounds = 2 * self.n * self.n + 8;
        for _ in 0..=max_rounds {
            let mut stable = true;
            for (bi, (_, e)) in binds.iter().enumerate() {
                let v = self.eval(e);
                if !monotone {
                    let sup = support(&v.may, self.n);
                    let within = sup.zip(&must_exec, |p, q| p & !q).is_empty();
                    if !within || !same_val(&v.must, &v.may) {
                        return self.widest(si);
                    }
                }
                let old = &self.vals[&(si, bi)];
                if !same_val(&v.must, &old.must) || !same_val(&v.may, &old.may) {
                    stable = false;
                }
                self.vals.insert((si, bi), v);
            }
            if stable {
                return;
            }
        }
        self.widest(si);
    }

    /// The widest bounds for every binding of the group at `si`.
    fn widest(&mut self, si: usize) {
        let model = self.model;
        let Stmt::Let { binds, .. } = &model.stmts[si] else {
            return;
        };
        let u = self.universe().may;
        for (bi, (_, e)) in binds.iter().enumerate() {
            let mut v = self.empty_like(e);
            v.may = match v.may {
                Val::Set(_) => Val::Set(u.clone()),
                Val::Rel(_) => Val::Rel(cart(&u, &u, self.n)),
            };
            self.vals.insert((si, bi), v);
        }
    }

    fn empty_like(&self, e: &Node) -> Iv {
        let v = match e.ty {
            super::Ty::Set => Val::Set(Bits::new(self.n)),
            super::Ty::Rel => Val::Rel(Mat::new(self.n)),
        };
        Bound {
            must: v.clone(),
            may: v,
        }
    }

    fn universe(&mut self) -> Bound<Bits> {
        if self.universe.is_none() {
            self.universe = Some(self.base.executed());
        }
        self.universe.clone().expect("set above")
    }

    fn base_iv(&mut self, b: Builtin) -> Iv {
        if let Some(v) = self.bases.get(&b) {
            return v.clone();
        }
        let v = match b {
            Builtin::Set(s) => {
                let x = self.base.set(s);
                Bound {
                    must: Val::Set(x.must),
                    may: Val::Set(x.may),
                }
            }
            Builtin::Rel(r) => {
                let x = self.base.rel(r);
                Bound {
                    must: Val::Rel(x.must),
                    may: Val::Rel(x.may),
                }
            }
        };
        self.bases.insert(b, v.clone());
        v
    }

    /// The bounds of `node` (names read from [`Bounds::vals`]: a name of
    /// the group being iterated has its current iterate there).
    fn eval(&mut self, node: &Node) -> Iv {
        use ExprKind::*;
        let n = self.n;
        match &node.kind {
            Name(k) => match self.model.defs.get(k).and_then(|d| self.vals.get(d)) {
                Some(v) => v.clone(),
                None => self.empty_like(node),
            },
            Base(b) => self.base_iv(*b),
            Empty => self.empty_like(node),
            Union(a, b) | Inter(a, b) => {
                let (x, y) = (self.eval(a), self.eval(b));
                let f: fn(u64, u64) -> u64 = match &node.kind {
                    Union(..) => |p, q| p | q,
                    _ => |p, q| p & q,
                };
                Bound {
                    must: zip(&x.must, &y.must, f),
                    may: zip(&x.may, &y.may, f),
                }
            }
            Diff(a, b) => {
                let (x, y) = (self.eval(a), self.eval(b));
                let f = |p: u64, q: u64| p & !q;
                Bound {
                    must: zip(&x.must, &y.may, f),
                    may: zip(&x.may, &y.must, f),
                }
            }
            Compl(a) => {
                let u = self.universe().may;
                let x = self.eval(a);
                Bound {
                    must: compl(&u, &x.may, n),
                    may: compl(&u, &x.must, n),
                }
            }
            Seq(a, b) => {
                let (x, y) = (self.eval(a), self.eval(b));
                let via = self.universe().must;
                Bound {
                    must: Val::Rel(seq_via(x.must.rel(), &via, y.must.rel())),
                    may: Val::Rel(x.may.rel().seq(y.may.rel())),
                }
            }
            Cart(a, b) => {
                let (x, y) = (self.eval(a), self.eval(b));
                Bound {
                    must: Val::Rel(cart(x.must.set(), y.must.set(), n)),
                    may: Val::Rel(cart(x.may.set(), y.may.set(), n)),
                }
            }
            Plus(a) | Star(a) | Opt(a) => {
                let x = self.eval(a);
                let u = self.universe();
                let (mut must, mut may) = (x.must.rel().clone(), x.may.rel().clone());
                if !matches!(node.kind, Opt(_)) {
                    must = plus_via(&must, &u.must);
                    may = may.plus();
                }
                if !matches!(node.kind, Plus(_)) {
                    for i in u.may.iter() {
                        must.set(i, i);
                        may.set(i, i);
                    }
                }
                Bound {
                    must: Val::Rel(must),
                    may: Val::Rel(may),
                }
            }
            Inv(a) => {
                let x = self.eval(a);
                Bound {
                    must: Val::Rel(x.must.rel().inv()),
                    may: Val::Rel(x.may.rel().inv()),
                }
            }
            Bracket(a) => {
                let x = self.eval(a);
                Bound {
                    must: Val::Rel(diag(x.must.set(), n)),
                    may: Val::Rel(diag(x.may.set(), n)),
                }
            }
            Domain(a) | Range(a) => {
                let x = self.eval(a);
                let range = matches!(node.kind, Range(_));
                let via = self.universe().must;
                let m = x.must.rel();
                // The other end must be executed on every candidate.
                let must = if range {
                    diag(&via, n).seq(m).project(true)
                } else {
                    m.seq(&diag(&via, n)).project(false)
                };
                Bound {
                    must: Val::Set(must),
                    may: Val::Set(x.may.rel().project(range)),
                }
            }
            FenceRel(a) => {
                let x = self.eval(a);
                let po = self.base_iv(Builtin::Rel(BaseRel::Po));
                let via = self.universe().must;
                let fence_must = x.must.set().zip(&via, |p, q| p & q);
                let (pm, pv) = (po.must.rel(), po.may.rel());
                Bound {
                    must: Val::Rel(seq_via(&pm.seq(&diag(&fence_must, n)), &via, pm)),
                    may: Val::Rel(pv.seq(&diag(x.may.set(), n)).seq(pv)),
                }
            }
        }
    }
}

fn zip(a: &Val, b: &Val, f: fn(u64, u64) -> u64) -> Val {
    match (a, b) {
        (Val::Set(p), Val::Set(q)) => Val::Set(p.zip(q, f)),
        (Val::Rel(p), Val::Rel(q)) => Val::Rel(p.zip(q, f)),
        _ => unreachable!("type-checked"),
    }
}

/// `u \ a` for a set, `(u × u) \ a` for a relation.
fn compl(u: &Bits, a: &Val, n: usize) -> Val {
    match a {
        Val::Set(s) => Val::Set(u.zip(s, |p, q| p & !q)),
        Val::Rel(r) => {
            let mut m = Mat::new(n);
            for i in u.iter() {
                m.0[i] = u.zip(&r.0[i], |p, q| p & !q);
            }
            Val::Rel(m)
        }
    }
}

/// `a ; [via] ; b`.
fn seq_via(a: &Mat, via: &Bits, b: &Mat) -> Mat {
    let n = a.n();
    let mut out = Mat::new(n);
    for i in 0..n {
        for c in a.0[i].iter().filter(|&c| via.get(c)) {
            out.0[i].union_with(&b.0[c]);
        }
    }
    out
}

/// The transitive closure of `m` through intermediate events of `via`
/// only (Warshall over those).
fn plus_via(m: &Mat, via: &Bits) -> Mat {
    let mut m = m.clone();
    for k in via.iter() {
        let rk = m.0[k].clone();
        for i in 0..m.n() {
            if m.0[i].get(k) {
                m.0[i].union_with(&rk);
            }
        }
    }
    m
}

fn cart(s: &Bits, t: &Bits, n: usize) -> Mat {
    let mut m = Mat::new(n);
    for i in s.iter() {
        m.0[i] = t.clone();
    }
    m
}

fn diag(s: &Bits, n: usize) -> Mat {
    let mut m = Mat::new(n);
    for i in s.iter() {
        m.set(i, i);
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cat::eval::{Base, Evaluator};
    use crate::cat::parse::parse_model;
    use crate::diag::SourceFile;

    /// Three events: 0 a write (always executed), 1 a read (always), 2 a
    /// write executed on some candidates only; rf (0, 1) on some
    /// candidates; po (0, 2) whenever 2 is executed.
    struct Iv3;

    fn bits(xs: &[usize]) -> Bits {
        let mut b = Bits::new(3);
        xs.iter().for_each(|&x| b.set(x));
        b
    }

    fn mat(xs: &[(usize, usize)]) -> Mat {
        let mut m = Mat::new(3);
        xs.iter().for_each(|&(a, b)| m.set(a, b));
        m
    }

    fn b<T>(must: T, may: T) -> Bound<T> {
        Bound { must, may }
    }

    impl BoundsBase for Iv3 {
        fn n(&self) -> usize {
            3
        }
        fn executed(&mut self) -> Bound<Bits> {
            b(bits(&[0, 1]), bits(&[0, 1, 2]))
        }
        fn set(&mut self, s: BaseSet) -> Bound<Bits> {
            // Event 2 is a write whenever it is executed.
            match s {
                BaseSet::W => b(bits(&[0, 2]), bits(&[0, 2])),
                BaseSet::R => b(bits(&[1]), bits(&[1])),
                BaseSet::M => b(bits(&[0, 1, 2]), bits(&[0, 1, 2])),
                _ => b(bits(&[]), bits(&[])),
            }
        }
        fn rel(&mut self, r: BaseRel) -> Bound<Mat> {
            match r {
                BaseRel::Rf => b(mat(&[]), mat(&[(0, 1)])),
                BaseRel::Po => b(mat(&[(0, 2)]), mat(&[(0, 2)])),
                _ => b(mat(&[]), mat(&[])),
            }
        }
    }

    /// One candidate within [`Iv3`]'s bounds: event 2 executed or not,
    /// rf (0, 1) or not.
    struct Cand {
        e2: bool,
        rf: bool,
    }

    impl Base for Cand {
        type Fact = bool;
        fn n(&self) -> usize {
            3
        }
        fn executed(&mut self) -> Bits {
            if self.e2 {
                bits(&[0, 1, 2])
            } else {
                bits(&[0, 1])
            }
        }
        fn set(&mut self, s: BaseSet) -> Bits {
            let e2: &[usize] = if self.e2 { &[2] } else { &[] };
            match s {
                BaseSet::W => bits(&[&[0][..], e2].concat()),
                BaseSet::R => bits(&[1]),
                BaseSet::M => bits(&[&[0, 1][..], e2].concat()),
                _ => bits(&[]),
            }
        }
        fn rel(&mut self, r: BaseRel) -> Mat {
            match r {
                BaseRel::Rf if self.rf => mat(&[(0, 1)]),
                BaseRel::Po if self.e2 => mat(&[(0, 2)]),
                _ => mat(&[]),
            }
        }
    }

    /// Whether `key` of `body` may be non-empty by the bounds, and
    /// whether it is on some candidate by the concrete evaluator.
    fn both(body: &str, key: &str) -> (bool, bool) {
        let body = format!("{body}\nacyclic po");
        let m = parse_model(&SourceFile::new("m.cat", &body)).unwrap();
        let key = m
            .defs
            .keys()
            .find(|k| k.split('#').next() == Some(key))
            .unwrap()
            .clone();
        let may = Bounds::new(&m, Iv3).may_be_nonempty(&key);
        let mut some = false;
        for (e2, rf) in [(false, false), (false, true), (true, false), (true, true)] {
            some |= Evaluator::new(&m, Cand { e2, rf }).nonempty(&key);
        }
        (may, some)
    }

    #[test]
    fn an_empty_upper_bound_means_empty_on_every_candidate() {
        // Sound on each shape: never "empty" where a candidate has a pair.
        for (body, key) in [
            ("let a = rf \\ rf", "a"),
            ("let a = (W * R) \\ rf", "a"),
            ("let a = [R] ; rf", "a"),
            ("let a = rf ; [R]", "a"),
            ("let a = W \\ domain(po)", "a"),
            ("let a = ~M", "a"),
            ("let a = ~(W | R)", "a"),
            ("let a = (po | rf)+ & id", "a"),
            ("let a = rf? & id", "a"),
            ("let rec a = rf | (a ; po)\nlet b = a \\ rf", "b"),
            ("let rec a = rf \\ b and b = W * R \\ a\nlet c = a", "c"),
            ("let a = fencerel(W) & (W * R)", "a"),
            // A must pair through event 2, which may be missing.
            ("let a = ([W] \\ (po ; po^-1)) & (rf ; rf^-1)", "a"),
            ("let a = ([W] \\ (po ; po^-1)+) & (rf ; rf^-1)", "a"),
            ("let a = W \\ range(po^-1)", "a"),
        ] {
            let (may, some) = both(body, key);
            assert!(
                may || !some,
                "{body}: a candidate has a pair, the bound says none"
            );
        }
        // And precise where the interval is exact enough.
        assert_eq!(both("let a = [R] ; rf", "a"), (false, false));
        // Intervals do not relate two occurrences of one item: `x \ x`
        // is empty only where `x` is exact.
        assert_eq!(both("let a = (R * R) \\ (R * R)", "a"), (false, false));
        assert_eq!(both("let a = (W * R) \\ (W * R)", "a"), (false, false));
        assert_eq!(both("let a = rf \\ rf", "a"), (true, false));
        assert_eq!(both("let a = [R] ; po", "a"), (false, false));
        assert_eq!(both("let a = rf ; [R]", "a"), (true, true));
        assert_eq!(both("let a = ~R", "a"), (true, true));
        assert_eq!(both("let a = ~(R | W) & R", "a"), (false, false));
        // Event 2 is a write whenever it is executed, so never outside M.
        assert_eq!(both("let a = ~M", "a"), (false, false));
    }
}
