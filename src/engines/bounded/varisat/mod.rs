//! The varisat backend (`--solver varisat`, the default): the embedded
//! pure-Rust SAT solver.
//!
//! * [`analysis`]: static relation analysis (may/must pairs) of the
//!   unrolled events and of the model's relations, before encoding;
//! * [`cnf`], [`bv`]: clauses, Tseitin gates and bit-blasted arithmetic;
//! * [`unroll`]: each thread unrolled to the bound with one-hot selection
//!   literals per step and functional bit-vector dataflow;
//! * [`encoder`]: rf (a literal per (write, read) pair), co (orientation
//!   literals), the base relations as literals, goals, the hb cycle, and
//!   the lazy loop (solve → check the candidate against the model with
//!   [`crate::cat::eval`] → add the explanation → solve again);
//! * [`coherence`]: SC per location's small violations forbidden up
//!   front when the model requires it;
//! * [`eager`]: `--eager`, `acyclic` axioms encoded up front with clocks;
//! * [`escape_cfg`]: the CFG pre-filter of the narrowed query's escape
//!   candidates (pairs ordered by the model on every control path);
//! * [`tso_witness`]: under `tso`, the hb-cycle query restricted to one
//!   attacker thread (thesis 003 §6.1, TSO witnesses);
//! * [`pgas`]: PGAS queues and barriers (op, fifo, bar), the trace cycle;
//! * [`lemmas`]: the lemma log of the lazy loop (certificates);
//! * [`extract`]: the witness [`Execution`] of a solver model;
//! * [`enumerate`]: the enumeration engine (every candidate of a small
//!   encoding visited directly, the model checked on each).
//!
//! [`Varisat`] implements [`Backend`]; [`VarisatSession`] implements
//! [`Session`].

pub mod analysis;
pub mod bounds;
pub mod bv;
pub mod cnf;
pub mod coherence;
pub mod eager;
pub mod encoder;
pub mod enumerate;
pub mod escape_cfg;
pub mod extract;
pub mod lemmas;
pub mod pgas;
pub mod tso_witness;
pub mod unroll;

pub use encoder::Encoder;
pub use varisat::Lit;

use crate::cat::Model;
use crate::diag::Error;
use crate::engines::bounded::{Backend, Cond, Deadline, Execution, Query, Session, Stats};
use crate::engines::Switches;
use crate::program::{GExpr, Program, ThreadId};
use bv::Bv;

impl<'a> Encoder<'a> {
    /// Unrolls and encodes the base constraints; the model's axioms are
    /// all lazy ([`Encoder::new`] adds the eager ones), except the
    /// coherence clauses a model requiring SC per location implies
    /// ([`coherence`]). `limit` is checked at the growth points of the
    /// encoding (each step of each thread, each read's sources, each event
    /// of the hb-cycle constraints): the first limit reached is kept in
    /// [`Encoder::aborted`], the encoding stops growing, and every
    /// [`Encoder::solve`] answers with that limit.
    pub fn lazy(
        prog: &'a Program,
        model: &'a Model,
        bound: u32,
        width: u32,
        limit: Option<Deadline>,
    ) -> Encoder<'a> {
        Encoder::lazy_in(cnf::Cnf::for_limit(limit), prog, model, bound, width, limit)
    }

    /// [`Encoder::lazy`] into the given `cnf` (e.g. [`cnf::Cnf::recording`],
    /// for a backend that solves with another SAT solver through
    /// [`Encoder::external`]).
    pub fn lazy_in(
        cnf: cnf::Cnf,
        prog: &'a Program,
        model: &'a Model,
        bound: u32,
        width: u32,
        limit: Option<Deadline>,
    ) -> Encoder<'a> {
        let mut enc = Encoder::base_in(cnf, prog, model, bound, width, limit);
        if enc.pgas.is_none() && crate::cat::implied::sc_per_location(model) {
            coherence::encode(&mut enc);
        }
        enc
    }

    /// Unrolls and encodes the base constraints; `eager` encodes the
    /// model's `acyclic` axioms with clocks up front ([`eager`]; otherwise
    /// all axioms are lazy).
    pub fn new(
        prog: &'a Program,
        model: &'a Model,
        bound: u32,
        width: u32,
        eager: bool,
    ) -> Encoder<'a> {
        Encoder::limited(prog, model, bound, width, eager, None, Switches::default())
    }

    /// [`Encoder::new`] with resource limits checked while encoding
    /// ([`Encoder::lazy`]).
    pub fn limited(
        prog: &'a Program,
        model: &'a Model,
        bound: u32,
        width: u32,
        eager: bool,
        limit: Option<Deadline>,
        switches: Switches,
    ) -> Encoder<'a> {
        Encoder::limited_in(
            cnf::Cnf::for_limit(limit),
            prog,
            model,
            bound,
            width,
            eager,
            limit,
            switches,
        )
    }

    /// [`Encoder::limited`] into the given `cnf` (e.g.
    /// [`cnf::Cnf::recording`]: the clauses of the encoding without
    /// solving, as a certificate's formula is re-derived).
    #[allow(clippy::too_many_arguments)]
    pub fn limited_in(
        cnf: cnf::Cnf,
        prog: &'a Program,
        model: &'a Model,
        bound: u32,
        width: u32,
        eager: bool,
        limit: Option<Deadline>,
        switches: Switches,
    ) -> Encoder<'a> {
        let mut enc = Encoder::lazy_in(cnf, prog, model, bound, width, limit);
        enc.set_switches(switches);
        enc.enable_tso_witness();
        if eager && enc.aborted.is_none() {
            enc.eager = eager::encode_acyclic(&mut enc, model);
        }
        enc
    }
}

/// The varisat backend; `eager` encodes `acyclic` axioms up front.
#[derive(Clone, Copy, Debug, Default)]
pub struct Varisat {
    /// `--eager`.
    pub eager: bool,
    /// Narrow the hb-cycle query to shortest cycles
    /// ([`Encoder::shortest_cycles`]); `None`: as the query's switches say.
    pub shortest: Option<bool>,
    /// In a race ([`crate::engines::bounded::queries::check_race`]): the narrowed
    /// query gives up (unknown) when more escape edges than this survive
    /// its probe ([`Encoder::escape_yield`]).
    pub escape_yield: Option<usize>,
    /// Sessions enumerate final states directly when there are at most
    /// this many candidate executions ([`enumerate`]; the encoding is then
    /// recorded first and handed to varisat only when that fails); `None`:
    /// solve.
    pub enumerate: Option<usize>,
}

impl Backend for Varisat {
    fn validate(&self, model: &Model) -> Result<(), Error> {
        if self.eager {
            model.refuse_init_writes("`--eager`")?;
        }
        Ok(())
    }

    fn session(
        &self,
        q: &Query,
        f: &mut dyn FnMut(&mut dyn Session) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let model = q.encoded_model();
        self.validate(&model)?;
        let mut enc = if self.enumerate.is_some() && !self.eager {
            let mut enc = Encoder::lazy_in(
                cnf::Cnf::recording(),
                q.program,
                &model,
                q.limits.bound,
                q.limits.width,
                Some(q.limits.deadline),
            );
            enc.set_switches(q.limits.switches);
            enc
        } else {
            Encoder::limited(
                q.program,
                &model,
                q.limits.bound,
                q.limits.width,
                self.eager,
                Some(q.limits.deadline),
                q.limits.switches,
            )
        };
        if let Some(s) = self.shortest {
            enc.shortest_cycles = s;
        }
        enc.escape_yield = self.escape_yield;
        enc.plain_model = Some(q.model);
        let mut s = VarisatSession::new(enc);
        s.enumerate = self.enumerate;
        f(&mut s)
    }
}

/// An [`Encoder`] behind the [`Session`] interface: a condition is a
/// conjunction of literals (solver assumptions), kept in a table.
pub struct VarisatSession<'a> {
    /// The encoding.
    pub enc: Encoder<'a>,
    conds: Vec<Vec<Lit>>,
    obs: Vec<Bv>,
    /// The enumeration budget ([`Varisat::enumerate`]).
    pub enumerate: Option<usize>,
}

impl<'a> VarisatSession<'a> {
    /// Wraps `enc`.
    pub fn new(enc: Encoder<'a>) -> VarisatSession<'a> {
        VarisatSession {
            enc,
            conds: Vec::new(),
            obs: Vec::new(),
            enumerate: None,
        }
    }

    /// The condition of literal `l`.
    pub fn cond(&mut self, l: Lit) -> Cond {
        self.all_of(vec![l])
    }

    /// The condition "all of `lits`".
    pub fn all_of(&mut self, lits: Vec<Lit>) -> Cond {
        self.conds.push(lits);
        Cond(self.conds.len() - 1)
    }

    /// The literals of condition `c`.
    pub fn lits(&self, c: Cond) -> &[Lit] {
        &self.conds[c.0]
    }
}

impl Session for VarisatSession<'_> {
    fn goal(&mut self, g: usize) -> Cond {
        let l = self.enc.goal_lit(g);
        self.cond(l)
    }

    fn hb_cycle(&mut self) -> Cond {
        // The static proof reasons on plain hb edges, not on the
        // contracted ones of indivisible sections; the escape edges count
        // a contracted edge that is no plain edge of the axiom's relation
        // as one (eager::encode_escape).
        let fresh = self.enc.robust_succ.is_empty();
        let plain = !self.enc.has_sections();
        if fresh && plain && self.enc.escape_cfg && self.enc.robust_act.is_none() {
            let model = self.enc.plain_model.unwrap_or(self.enc.model);
            if let Some(ax) = escape_cfg::statically_acyclic(&self.enc, model) {
                // No hb cycle in any consistent execution: the query is
                // false without solving (docs/models.md).
                self.enc.static_robust = Some(ax);
                let ff = self.enc.cnf.ff();
                self.enc.robust_act = Some(ff);
                return self.cond(ff);
            }
        }
        let l = self.enc.robust_act();
        if fresh && self.enc.shortest_cycles {
            let model = self.enc.model;
            eager::encode_escape(&mut self.enc, model, l);
        }
        self.cond(l)
    }

    fn final_state(&mut self, filter: Option<&GExpr>) -> Cond {
        let mut l = self.enc.all_final();
        if let Some(f) = filter {
            let v = self.enc.gexpr(f);
            let nz = self.enc.cnf.bv_nonzero(&v);
            l = self.enc.cnf.and(l, nz);
        }
        self.cond(l)
    }

    fn stop_before(&mut self, m: usize) -> Cond {
        let stops: Vec<Lit> = (self.enc.un.threads.iter())
            .filter_map(|t| t.exec.get(m).map(|l| !*l))
            .collect();
        self.all_of(stops)
    }

    fn depth(&self) -> usize {
        self.enc.un.bound as usize
    }

    fn any_of(&mut self, conds: &[Cond]) -> Cond {
        let alts: Vec<Lit> = conds
            .iter()
            .map(|&c| {
                let ls = self.lits(c).to_vec();
                self.enc.cnf.and_all(&ls)
            })
            .collect();
        let l = self.enc.cnf.or_all(&alts);
        self.cond(l)
    }

    fn holds(&self, c: Cond) -> bool {
        self.lits(c).iter().all(|&l| self.enc.cnf.value(l))
    }

    fn observe(&mut self, exprs: &[GExpr]) {
        self.obs = exprs.iter().map(|e| self.enc.gexpr(e)).collect();
    }

    fn solve(&mut self, assumptions: &[Cond], deadline: Deadline) -> Result<bool, Error> {
        let lits: Vec<Lit> = (assumptions.iter())
            .flat_map(|c| self.lits(*c).iter().copied())
            .collect();
        self.enc.solve(&lits, deadline)
    }

    fn execution(&mut self) -> Execution {
        extract::extract(&self.enc)
    }

    fn observed(&self) -> Vec<i64> {
        self.obs.iter().map(|b| self.enc.cnf.bv_value(b)).collect()
    }

    fn exclude_observed(&mut self, under: Cond, values: &[i64]) {
        let mut block: Vec<Lit> = self.lits(under).iter().map(|l| !*l).collect();
        for (b, v) in self.obs.iter().zip(values) {
            for (k, bit) in b.iter().enumerate() {
                block.push(if (v >> k) & 1 == 1 { !*bit } else { *bit });
            }
        }
        self.enc.cnf.clause(&block);
    }

    fn pin(&mut self, x: &Execution) -> Result<Vec<Cond>, String> {
        let lits = self.enc.pin(x)?;
        Ok(lits.into_iter().map(|l| self.cond(l)).collect())
    }

    fn follow(&mut self, paths: &[Vec<usize>]) -> Result<Vec<Cond>, String> {
        let lits = self.enc.follow(paths)?;
        Ok(lits.into_iter().map(|l| self.cond(l)).collect())
    }

    fn stats(&self) -> Stats {
        self.enc.stats.clone()
    }

    fn truncated(&self) -> Vec<ThreadId> {
        self.enc.truncated()
    }

    fn thin_air(&mut self) -> Option<Error> {
        self.enc.thin_air()
    }

    fn flags_never_hold(&mut self) -> bool {
        self.enc.flags_never
            || self.enc.flags_never_hold(&|_| None).len() == self.enc.model.flags.len()
    }

    fn enumerate_observed(
        &mut self,
        under: Cond,
        deadline: Deadline,
    ) -> Option<Result<super::Observed, Error>> {
        let budget = self.enumerate?;
        if !self.enc.cnf.is_recording() || self.enc.external.is_some() {
            return None;
        }
        let goal = self.lits(under).to_vec();
        let obs = std::mem::take(&mut self.obs);
        let r = self.enc.enumerate_observed(&goal, &obs, budget, deadline);
        self.obs = obs;
        match r {
            Ok(enumerate::Enumerated::States(s, f)) => Some(Ok((s, f))),
            Ok(enumerate::Enumerated::OverBudget) => {
                self.enc.cnf.stop_recording();
                None
            }
            Err(e) => Some(Err(e)),
        }
    }
}
