//! The encoding's base items as bounds over every candidate execution
//! ([`crate::cat::bounds::BoundsBase`]), from the static relation
//! analysis ([`super::analysis::Analysis`]: program order, the addresses
//! each event may access) and the literals the encoding built, without
//! building any: an item *may* hold when it has a literal that is not the
//! constant false (or the analysis allows it); it *must* hold (whenever
//! its events are executed) when its literal is the constant true or the
//! event's own execution literal, or the analysis makes it static (po,
//! `int`/`ext`/`id`/`univ`, `loc` of two accesses of one known address).
//! herd's initial writes ([`crate::cat::init`]) are added as the
//! evaluator adds them when every access's possible addresses are known.
//!
//! Uses: [`Encoder::flags_never_hold`] (herd's flags decided without
//! visiting a candidate) and [`model_bounds`] (the eager encoding's
//! relation analysis).

use super::encoder::StaticMayOf;
use super::Encoder;
use crate::cat::base::{BaseRel, BaseSet};
use crate::cat::bounds::{Bound, Bounds, BoundsBase};
use crate::cat::eval::{Bits, Mat, Val};
use crate::cat::{AxiomKind, Model, Stmt};
use crate::collections::HashMap;
use varisat::Lit;

/// One initial write per location (as [`crate::cat::init::InitWrites`]).
pub(super) struct Cells {
    /// The locations, sorted: initial write `n0 + i` writes `cells[i]`.
    cells: Vec<i128>,
    /// Per location: it has an initial write on every candidate
    /// (declared, or accessed by an event that accesses it whenever
    /// executed and is always executed).
    always: Vec<bool>,
}

/// The encoder's base bounds: events `0..n0` and, with [`Cells`], the
/// initial writes `n0..n0 + k`.
pub(super) struct EncBounds<'e, 'a> {
    pub(super) enc: &'e mut Encoder<'a>,
    pub(super) cells: Option<Cells>,
    /// Literals fixed on every candidate beyond the constants (the
    /// enumeration's root propagation), `None` when not fixed.
    pub(super) root: &'e dyn Fn(Lit) -> Option<bool>,
}

impl EncBounds<'_, '_> {
    fn n0(&self) -> usize {
        self.enc.un.events.len()
    }

    fn n_all(&self) -> usize {
        self.n0() + self.cells.as_ref().map_or(0, |c| c.cells.len())
    }

    fn exec(&self, e: usize) -> Lit {
        self.enc.un.events[e].exec
    }

    /// `l` holds on every candidate.
    fn always(&self, l: Lit) -> bool {
        self.enc.cnf.is_true(l) || (self.root)(l) == Some(true)
    }

    /// `l` may be true (it exists and is not always false).
    fn may(&self, l: Option<Lit>) -> bool {
        l.is_some_and(|l| !self.enc.cnf.is_false(l) && (self.root)(l) != Some(false))
    }

    /// `l` holds whenever `e` is executed.
    fn must1(&self, l: Option<Lit>, e: usize) -> bool {
        l.is_some_and(|l| self.always(l) || l == self.exec(e))
    }

    /// `l` holds whenever `a` and `b` are executed.
    fn must2(&self, l: Option<Lit>, a: usize, b: usize) -> bool {
        let (xa, xb) = (self.exec(a), self.exec(b));
        l.is_some_and(|l| {
            self.always(l)
                || (l == xa && (self.always(xb) || xb == xa))
                || (l == xb && self.always(xa))
        })
    }

    /// (must, may) that `e` is a memory access.
    fn mem(&self, e: usize) -> (bool, bool) {
        let ev = &self.enc.un.events[e];
        let (r, w) = (Some(ev.read), Some(ev.write));
        (
            self.must1(r, e) || self.must1(w, e),
            self.enc.analysis.may_access(e),
        )
    }

    /// (must, may) that `e` has a location (`loc`): a memory access or a
    /// located event (herd's `__srcu`).
    fn has_loc(&self, e: usize) -> (bool, bool) {
        let (must, _) = self.mem(e);
        let l = Some(self.enc.un.events[e].located);
        (must || self.must1(l, e), self.enc.analysis.may_have_loc(e))
    }

    fn put(b: &mut Bound<Mat>, x: usize, y: usize, must: bool, may: bool) {
        if must {
            b.must.set(x, y);
        }
        if must || may {
            b.may.set(x, y);
        }
    }

    /// The pairs of `r` between two of the encoder's events.
    fn event_pairs(&mut self, r: BaseRel, b: &mut Bound<Mat>) {
        let n = self.n0();
        if let Some(k) = super::encoder::dep_code(r) {
            let deps: Vec<((usize, usize), Lit)> = (self.enc.deps.iter())
                .filter(|(d, _)| d.0 == k)
                .map(|(d, &l)| ((d.1, d.2), l))
                .collect();
            for ((x, y), l) in deps {
                let must = self.must2(Some(l), x, y);
                Self::put(b, x, y, must, self.may(Some(l)));
            }
            if r == BaseRel::Si {
                // herd's si is reflexive on memory events.
                for e in 0..n {
                    let (must, may) = self.mem(e);
                    Self::put(b, e, e, must, may);
                }
            }
            return;
        }
        let an = &self.enc.analysis;
        match r {
            BaseRel::Po => {
                for x in 0..n {
                    for y in (0..n).filter(|&y| an.po(x, y)) {
                        Self::put(b, x, y, true, true);
                    }
                }
            }
            BaseRel::Int | BaseRel::Ext | BaseRel::Id | BaseRel::Univ => {
                let ev = &self.enc.un.events;
                for x in 0..n {
                    for y in 0..n {
                        let same = ev[x].thread == ev[y].thread;
                        if r.static_pair(x == y, same) == Some(true) {
                            Self::put(b, x, y, true, true);
                        }
                    }
                }
            }
            BaseRel::Fr => {
                for x in 0..n {
                    for y in (0..n).filter(|&y| an.may_fr(x, y)) {
                        Self::put(b, x, y, false, true);
                    }
                }
            }
            BaseRel::Loc => {
                let mem: Vec<(bool, bool)> = (0..n).map(|e| self.has_loc(e)).collect();
                let an = &self.enc.analysis;
                for x in 0..n {
                    for y in (0..n).filter(|&y| an.may_loc(x, y)) {
                        let must = mem[x].0 && mem[y].0 && an.must_alias(x, y);
                        Self::put(b, x, y, must, true);
                    }
                }
            }
            BaseRel::Rf => {
                let pairs: Vec<((usize, usize), Lit)> =
                    self.enc.rf.iter().map(|(&k, &l)| (k, l)).collect();
                for ((x, y), l) in pairs {
                    let must = self.must2(Some(l), x, y);
                    Self::put(b, x, y, must, self.may(Some(l)));
                }
            }
            BaseRel::Co => {
                let pairs: Vec<(usize, usize)> = self.enc.co_var.keys().copied().collect();
                for (x, y) in pairs {
                    Self::put(b, x, y, false, true);
                    Self::put(b, y, x, false, true);
                }
            }
            BaseRel::Op | BaseRel::Fifo | BaseRel::Bar => {
                if let Some(p) = &self.enc.pgas {
                    for (x, y) in p.pairs(r) {
                        Self::put(b, x, y, false, true);
                    }
                }
            }
            BaseRel::Stxn => {
                for (x, y) in self.enc.stxn_pairs() {
                    Self::put(b, x, y, false, true);
                }
            }
            // The dependencies, above.
            _ => {}
        }
    }

    /// The initial-write pairs of `r` (herd's `mk_init_write`, as
    /// [`crate::cat::init::InitWrites::rel`] gives them).
    fn init_pairs(&self, r: BaseRel, b: &mut Bound<Mat>) {
        let Some(c) = &self.cells else {
            return;
        };
        let n0 = self.n0();
        let iw_of = |x: u128| c.cells.binary_search(&(x as i128)).ok().map(|i| n0 + i);
        for e in 0..n0 {
            let addrs = self.enc.analysis.addresses(e).unwrap_or(&[]);
            let one = addrs.len() == 1;
            let ev = &self.enc.un.events[e];
            for &x in addrs {
                let Some(iw) = iw_of(x) else { continue };
                match r {
                    BaseRel::Rf => {
                        let init = self.enc.rf_init.get(e).copied().flatten();
                        let may = self.may(Some(ev.read)) && self.may(init);
                        Self::put(b, iw, e, false, may);
                    }
                    BaseRel::Co => {
                        let w = Some(ev.write);
                        Self::put(b, iw, e, one && self.must1(w, e), self.may(w));
                    }
                    BaseRel::Loc => {
                        let (must, may) = self.has_loc(e);
                        Self::put(b, iw, e, one && must, may);
                        Self::put(b, e, iw, one && must, may);
                    }
                    _ => {}
                }
            }
            if matches!(r, BaseRel::Ext | BaseRel::Univ) {
                for iw in n0..self.n_all() {
                    Self::put(b, iw, e, true, true);
                    Self::put(b, e, iw, true, true);
                }
            }
        }
        for iw in n0..self.n_all() {
            match r {
                BaseRel::Loc | BaseRel::Id => Self::put(b, iw, iw, true, true),
                BaseRel::Univ => (n0..self.n_all()).for_each(|j| Self::put(b, iw, j, true, true)),
                _ => {}
            }
        }
    }

    /// The initial writes as a set (each is one whenever it exists).
    fn init_set(&self, b: &mut Bound<Bits>) {
        for e in self.n0()..self.n_all() {
            b.must.set(e);
            b.may.set(e);
        }
    }
}

impl BoundsBase for EncBounds<'_, '_> {
    fn n(&self) -> usize {
        self.n_all()
    }

    fn executed(&mut self) -> Bound<Bits> {
        let n = self.n_all();
        let mut b = Bound {
            must: Bits::new(n),
            may: Bits::new(n),
        };
        for e in 0..self.n0() {
            let x = Some(self.exec(e));
            if self.always(self.exec(e)) {
                b.must.set(e);
            }
            if self.may(x) {
                b.may.set(e);
            }
        }
        if let Some(c) = &self.cells {
            for (i, &always) in c.always.iter().enumerate() {
                if always {
                    b.must.set(self.n0() + i);
                }
                b.may.set(self.n0() + i);
            }
        }
        b
    }

    fn set(&mut self, s: BaseSet) -> Bound<Bits> {
        let n = self.n_all();
        let mut b = Bound {
            must: Bits::new(n),
            may: Bits::new(n),
        };
        if s == BaseSet::IW {
            self.init_set(&mut b);
            return b;
        }
        for e in 0..self.n0() {
            let (must, may) = if s == BaseSet::M {
                self.mem(e)
            } else {
                let l = self.enc.set_lit(s, e);
                (self.must1(l, e), self.may(l))
            };
            if must {
                b.must.set(e);
            }
            if must || may {
                b.may.set(e);
            }
        }
        if matches!(s, BaseSet::W | BaseSet::M) {
            self.init_set(&mut b);
        }
        b
    }

    fn rel(&mut self, r: BaseRel) -> Bound<Mat> {
        let n = self.n_all();
        let mut b = Bound {
            must: Mat::new(n),
            may: Mat::new(n),
        };
        self.event_pairs(r, &mut b);
        self.init_pairs(r, &mut b);
        b
    }
}

impl Encoder<'_> {
    /// The model's flags (indices into [`crate::cat::Model::flags`]) that
    /// hold on no candidate execution of this encoding, consistent or
    /// not: their expression's may value ([`crate::cat::bounds`]) is
    /// empty. None is listed when the model needs herd's initial writes
    /// and an access's possible addresses are not known statically.
    /// `root` gives the literals fixed on every candidate beyond the
    /// encoding's constants (the enumeration's root propagation; `None`
    /// for a literal not fixed).
    pub(super) fn flags_never_hold(&mut self, root: &dyn Fn(Lit) -> Option<bool>) -> Vec<usize> {
        let model = self.model;
        if model.flags.is_empty() {
            return Vec::new();
        }
        let cells = match model.init_writes {
            None => None,
            Some(_) => match self.init_cells(root) {
                Some(c) => Some(c),
                None => return Vec::new(),
            },
        };
        let mut b = Bounds::new(
            model,
            EncBounds {
                enc: self,
                cells,
                root,
            },
        );
        (0..model.flags.len())
            .filter(|&i| !b.may_be_nonempty(&model.flags[i].key))
            .collect()
    }

    /// The static may values of the model's bindings over this
    /// encoding's candidates ([`crate::cat::bounds::Bounds::static_may`],
    /// for the explanations of [`Encoder::refute`]), with herd's initial
    /// writes numbered by every location an access may name when the
    /// model has them; `None` when it has them and an access's possible
    /// addresses are not known statically.
    pub(super) fn static_may(&mut self) -> Option<StaticMayOf> {
        let model = self.model;
        let cells = match model.init_writes {
            None => None,
            Some(_) => Some(self.init_cells(&|_| None)?),
        };
        let locations = cells.as_ref().map(|c| c.cells.clone());
        let mut b = Bounds::new(
            model,
            EncBounds {
                enc: self,
                cells,
                root: &|_| None,
            },
        );
        Some(StaticMayOf {
            may: std::rc::Rc::new(b.static_may()),
            cells: locations,
        })
    }

    /// The initial writes' locations (the declared cells and every
    /// address an access may name) when every event that may be an
    /// access has its possible addresses known; `None` otherwise.
    fn init_cells(&self, root: &dyn Fn(Lit) -> Option<bool>) -> Option<Cells> {
        let p = self.prog;
        let declared: Vec<i128> = (p.vars.iter().map(|v| v.addr as i128))
            .chain(p.init.keys().map(|&a| a as i128))
            .collect();
        let mut cells = declared.clone();
        let mut accessed = Vec::new();
        for e in (0..self.un.events.len()).filter(|&e| self.analysis.may_have_loc(e)) {
            let addrs = self.analysis.addresses(e)?;
            cells.extend(addrs.iter().map(|&x| x as i128));
            let ev = &self.un.events[e];
            let t = |l: Lit| self.cnf.is_true(l) || root(l) == Some(true);
            let always = t(ev.exec)
                && (t(ev.read) || t(ev.write) || ev.read == ev.exec || ev.write == ev.exec);
            if always && addrs.len() == 1 {
                accessed.push(addrs[0] as i128);
            }
        }
        cells.sort_unstable();
        cells.dedup();
        let always = (cells.iter())
            .map(|x| declared.contains(x) || accessed.contains(x))
            .collect();
        Some(Cells { cells, always })
    }
}

/// The bounds of a model's relations on one unrolling.
#[derive(Clone, Debug, Default)]
pub struct ModelBounds {
    /// Per `let` name (unique key `name#k`): (may, must) of relations.
    pub lets: HashMap<String, (Mat, Mat)>,
    /// Per axiom, by its index in [`Model::stmts`]: its kind and (may,
    /// must) relation (`acyclic r+` as `acyclic r`); axioms over sets are
    /// left out.
    pub axioms: HashMap<usize, (AxiomKind, Mat, Mat)>,
}

impl ModelBounds {
    /// The may-relation of the `acyclic` axiom at `stmt` (an index in
    /// [`Model::stmts`]).
    pub fn acyclic_may(&self, stmt: usize) -> Option<&Mat> {
        (self.axioms.get(&stmt))
            .filter(|x| x.0 == AxiomKind::Acyclic)
            .map(|x| &x.1)
    }
}

/// The may- and must-relations of every `let` and axiom of `model` over
/// `enc`'s unrolling (the evaluation of [`crate::cat::bounds`] over
/// [`EncBounds`]; must-pairs hold whenever both events are executed):
/// the relation analysis of the eager encoding.
pub fn model_bounds(model: &Model, enc: &mut Encoder) -> ModelBounds {
    let mut ev = Bounds::new(
        model,
        EncBounds {
            enc,
            cells: None,
            root: &|_| None,
        },
    );
    let mut out = ModelBounds::default();
    for (i, st) in model.stmts.iter().enumerate() {
        match st {
            Stmt::Let { binds, .. } => {
                for (name, _) in binds {
                    if let Some(Bound {
                        must: Val::Rel(must),
                        may: Val::Rel(may),
                    }) = ev.binding(name)
                    {
                        out.lets.insert(name.clone(), (may, must));
                    }
                }
            }
            Stmt::Check { .. } => {
                if let Some((
                    kind,
                    Bound {
                        must: Val::Rel(must),
                        may: Val::Rel(may),
                    },
                )) = ev.axiom(i)
                {
                    out.axioms.insert(i, (kind, may, must));
                }
            }
        }
    }
    out
}
