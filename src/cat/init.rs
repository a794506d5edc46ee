//! herd's initial writes as events, for the models that need them
//! ([`crate::cat::Model::init_writes`]: a model that inverts rf, as
//! herd's `cos-opt.cat` does with `fr = rf^-1 ; co`, or reads `co0`).
//!
//! Elsewhere initial writes are implicit: a read of an initial value has
//! no rf pair, `fr` relates it to every write of its location, `IW` is
//! empty. herd instead makes one initial write per location (herd's
//! `mk_init_write`: a store with no annotation, so no tag set holds it),
//! on no thread (`proc_of` is none), and its candidates give it
//! * `IW`, `W` and `M` membership;
//! * rf to every read of the location's initial value;
//! * co to every other write of its location (the initial write is
//!   co-first: herd's `co0`);
//! * `loc` with every access of its location (and itself), `id` with
//!   itself, `ext` with every event of a thread (herd's `comp_ext`: the
//!   initial writes form one group of their own, so two initial writes are
//!   not `ext`), `univ` with every event; no `po`, `int`, dependency or
//!   `rmw` pair.
//!
//! herd's `fr` (`rf^-1 ; co`) then equals the base `fr` on every event, so
//! the base `fr` is kept. [`InitWrites`] adds these events after a
//! backend's events (indices `n..n + k`, one per location in increasing
//! address order) for the evaluator ([`crate::cat::eval`]); the facts of
//! its pairs come from the backend ([`Located`]).

use super::base::{BaseRel, BaseSet};
use super::eval::{Base, Bits, Mat};
use super::Model;
use crate::diag::Error;

impl Model {
    /// `Ok` unless the model needs herd's initial writes as events
    /// ([`Model::init_writes`]), which `what` (a backend or procedure)
    /// does not have: then the located error naming the construct.
    ///
    /// Errors: the model's first `rf^-1` or `co0`, located.
    pub fn refuse_init_writes(&self, what: &str) -> Result<(), Error> {
        match self.init_writes {
            None => Ok(()),
            Some((file, span)) => Err(self.files[file].error(
                span,
                format!(
                    "unsupported with {what}: this model needs herd's initial writes as events \
                     (`rf^-1`, `co0`), which only the varisat backend's lazy encoding and \
                     enumeration have (docs/models.md)"
                ),
            )),
        }
    }
}

/// What a backend's candidate says about locations, for [`InitWrites`].
pub trait Located: Base {
    /// The locations of the program that have an initial write even when
    /// the candidate does not access them (the declared cells); the
    /// addresses the candidate's accesses name are added.
    fn cells(&self) -> Vec<i128>;
    /// The address of event `e` in the candidate when it has a location
    /// (a memory access, read or write, or a located event, herd's
    /// `__srcu`), else `None`.
    fn address(&mut self, e: usize) -> Option<i128>;
    /// A fact equivalent to "`e` is a `kind` access (`R`, `W`) of
    /// location `x`", for `M`: "`e` has location `x`" (an access or a
    /// located event: `loc`) (`None` when static).
    fn access_fact(&mut self, e: usize, kind: BaseSet, x: i128) -> Option<Self::Fact>;
    /// A fact equivalent to "`r` reads the initial value of location
    /// `x`" (`None` when static).
    fn reads_init_fact(&mut self, r: usize, x: i128) -> Option<Self::Fact>;
}

/// A backend's candidate with herd's initial writes added: events
/// `0..n` are the backend's, `n..n + k` the initial writes of
/// [`InitWrites::cells`].
pub struct InitWrites<B> {
    inner: B,
    /// The backend's number of events.
    n0: usize,
    /// The locations, sorted: initial write `n0 + i` writes `cells[i]`.
    cells: Vec<i128>,
    /// The address of each backend event that is a memory access.
    addr: Vec<Option<i128>>,
}

impl<B: Located> InitWrites<B> {
    /// The candidate `inner` with one initial write per location: the
    /// declared cells and every address an access of the candidate names.
    pub fn new(mut inner: B) -> InitWrites<B> {
        let n0 = inner.n();
        let addr: Vec<Option<i128>> = (0..n0).map(|e| inner.address(e)).collect();
        let mut cells = inner.cells();
        cells.extend(addr.iter().flatten().copied());
        cells.sort_unstable();
        cells.dedup();
        InitWrites {
            inner,
            n0,
            cells,
            addr,
        }
    }

    /// The locations with an initial write, in event order.
    pub fn cells(&self) -> &[i128] {
        &self.cells
    }

    /// The initial write of location `x`.
    fn iw(&self, x: i128) -> Option<usize> {
        self.cells.binary_search(&x).ok().map(|i| self.n0 + i)
    }

    /// The location of initial write `e` (`e ≥ n0`).
    fn cell(&self, e: usize) -> i128 {
        self.cells[e - self.n0]
    }

    /// `b` over the `n0 + k` events.
    fn widen(&self, b: &Bits) -> Bits {
        let mut out = Bits::new(self.n());
        for e in b.iter() {
            out.set(e);
        }
        out
    }

    /// `m` over the `n0 + k` events.
    fn widen_mat(&self, m: &Mat) -> Mat {
        let n = self.n();
        let mut out = Mat::new(n);
        for (a, row) in m.0.iter().enumerate() {
            out.0[a] = self.widen(row);
        }
        out
    }

    /// The initial writes as a set.
    fn iw_set(&self) -> Bits {
        let mut s = Bits::new(self.n());
        for e in self.n0..self.n() {
            s.set(e);
        }
        s
    }
}

impl<B: Located> Base for InitWrites<B> {
    type Fact = B::Fact;

    fn n(&self) -> usize {
        self.n0 + self.cells.len()
    }

    fn executed(&mut self) -> Bits {
        let inner = self.inner.executed();
        let mut s = self.widen(&inner);
        s.union_with(&self.iw_set());
        s
    }

    fn set(&mut self, s: BaseSet) -> Bits {
        if s == BaseSet::IW {
            return self.iw_set();
        }
        let inner = self.inner.set(s);
        let mut out = self.widen(&inner);
        if matches!(s, BaseSet::W | BaseSet::M) {
            out.union_with(&self.iw_set());
        }
        out
    }

    fn rel(&mut self, r: BaseRel) -> Mat {
        let inner = self.inner.rel(r);
        let mut m = self.widen_mat(&inner);
        let n = self.n();
        match r {
            BaseRel::Rf => {
                let reads = self.inner.set(BaseSet::R);
                let has_src: Vec<bool> = {
                    let mut v = vec![false; self.n0];
                    for row in &m.0 {
                        for b in row.iter() {
                            v[b] = true;
                        }
                    }
                    v
                };
                for r in reads.iter() {
                    if let (false, Some(x)) = (has_src[r], self.addr[r]) {
                        if let Some(iw) = self.iw(x) {
                            m.set(iw, r);
                        }
                    }
                }
            }
            BaseRel::Co => {
                let writes = self.inner.set(BaseSet::W);
                for w in writes.iter() {
                    if let Some(iw) = self.addr[w].and_then(|x| self.iw(x)) {
                        m.set(iw, w);
                    }
                }
            }
            BaseRel::Loc => {
                for e in 0..self.n0 {
                    if let Some(iw) = self.addr[e].and_then(|x| self.iw(x)) {
                        m.set(iw, e);
                        m.set(e, iw);
                    }
                }
                for iw in self.n0..n {
                    m.set(iw, iw);
                }
            }
            BaseRel::Id => {
                for iw in self.n0..n {
                    m.set(iw, iw);
                }
            }
            BaseRel::Ext | BaseRel::Univ => {
                let exec = self.inner.executed();
                for iw in self.n0..n {
                    for e in exec.iter() {
                        m.set(iw, e);
                        m.set(e, iw);
                    }
                    if r == BaseRel::Univ {
                        for iw2 in self.n0..n {
                            m.set(iw, iw2);
                        }
                    }
                }
            }
            _ => {}
        }
        m
    }

    fn exec_fact(&mut self, e: usize) -> Option<B::Fact> {
        (e < self.n0).then(|| self.inner.exec_fact(e)).flatten()
    }

    fn set_fact(&mut self, s: BaseSet, e: usize) -> Option<B::Fact> {
        (e < self.n0).then(|| self.inner.set_fact(s, e)).flatten()
    }

    fn rel_fact(&mut self, r: BaseRel, a: usize, b: usize) -> Option<B::Fact> {
        let n0 = self.n0;
        match (a < n0, b < n0) {
            (true, true) => self.inner.rel_fact(r, a, b),
            // Two initial writes: static.
            (false, false) => None,
            (a_real, _) => {
                let (e, iw) = if a_real { (a, b) } else { (b, a) };
                let x = self.cell(iw);
                match r {
                    BaseRel::Rf if !a_real => self.inner.reads_init_fact(e, x),
                    BaseRel::Co if !a_real => self.inner.access_fact(e, BaseSet::W, x),
                    BaseRel::Loc => self.inner.access_fact(e, BaseSet::M, x),
                    BaseRel::Ext | BaseRel::Univ => self.inner.exec_fact(e),
                    _ => None,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cat::eval::Evaluator;
    use crate::cat::parse::parse_model;
    use crate::diag::SourceFile;

    /// Two threads, `W x=1` (event 0) and `R x` (event 1) reading the
    /// initial value, and `W y` (event 2) on the first thread; no fact
    /// is dynamic.
    struct Cand;

    impl Base for Cand {
        type Fact = i64;
        fn n(&self) -> usize {
            3
        }
        fn executed(&mut self) -> Bits {
            let mut s = Bits::new(3);
            (0..3).for_each(|e| s.set(e));
            s
        }
        fn set(&mut self, s: BaseSet) -> Bits {
            let mut b = Bits::new(3);
            let mem: &[usize] = match s {
                BaseSet::R => &[1],
                BaseSet::W => &[0, 2],
                BaseSet::M => &[0, 1, 2],
                _ => &[],
            };
            mem.iter().for_each(|&e| b.set(e));
            b
        }
        fn rel(&mut self, r: BaseRel) -> Mat {
            let mut m = Mat::new(3);
            match r {
                BaseRel::Po => m.set(0, 2),
                BaseRel::Fr => m.set(1, 0),
                BaseRel::Loc => [(0, 0), (0, 1), (1, 0), (1, 1), (2, 2)]
                    .into_iter()
                    .for_each(|(a, b)| m.set(a, b)),
                _ => {}
            }
            m
        }
    }

    impl Located for Cand {
        fn cells(&self) -> Vec<i128> {
            vec![10, 20, 30]
        }
        fn address(&mut self, e: usize) -> Option<i128> {
            Some([10, 10, 20][e])
        }
        fn access_fact(&mut self, _: usize, _: BaseSet, _: i128) -> Option<Self::Fact> {
            None
        }
        fn reads_init_fact(&mut self, _: usize, _: i128) -> Option<Self::Fact> {
            None
        }
    }

    fn holds(body: &str) -> bool {
        let m = parse_model(&SourceFile::new("m.cat", body)).unwrap();
        assert!(m.init_writes.is_some(), "{body}");
        let ok = Evaluator::new(&m, InitWrites::new(Cand)).check().is_none();
        ok
    }

    #[test]
    fn initial_writes_are_rf_and_co_sources() {
        let c = InitWrites::new(Cand);
        assert_eq!(c.cells(), &[10, 20, 30]);
        // herd's fr is rf^-1 ; co minus id, the base fr.
        assert!(holds(
            "let fr2 = rf^-1 ; co\nempty fr2 \\ fr\nempty fr \\ fr2"
        ));
        // One initial write per location, each co-first, on no thread.
        assert!(holds("empty co0 \\ ([IW] ; co)\nempty IW \\ W\nempty (IW * IW) & (int | ext | po)\nlet r = rf^-1\nempty [IW] ; co^-1"));
        // x's initial write is the source of the read and co-before the
        // write; z's has neither.
        assert!(holds(
            "let a = [IW] ; rf\nempty a \\ (a ; [R])\nempty ~(domain(rf^-1 ; [IW]))  & R"
        ));
        assert!(!holds("let i = rf^-1\nempty [IW] ; co"));
        assert!(!holds(
            "let i = rf^-1\nempty IW & ~(domain(co) | range(loc \\ id))"
        ));
    }
}
