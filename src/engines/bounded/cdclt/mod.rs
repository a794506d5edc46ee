//! The CDCL(T) backend (`--solver cdclt`): the model's axioms as a theory
//! inside the SAT solver's search instead of a loop of solves around it.
//!
//! * The encoding (unrolling, rf, co, base relations as literals, goals,
//!   the hb cycle) is the varisat backend's
//!   ([`crate::engines::bounded::varisat::Encoder`]), recorded as clauses
//!   ([`crate::engines::bounded::varisat::cnf::Cnf::recording`]) and handed to
//!   batsat, a pure-Rust CDCL solver with a theory interface; the
//!   propagator is what is new.
//! * [`theory`]: the propagator. During search it checks the model on the
//!   partial assignment with the concrete evaluator and raises the
//!   explanation of a violation as a conflict clause; `co` cycles are
//!   found incrementally ([`graph`], Pearce–Kelly) as edges are assigned.
//!   At full assignments the check is exact, so a model found is a
//!   consistent execution.
//! * Sessions are incremental: clauses added between solves (goals,
//!   blocking clauses) are appended, learnt clauses and theory lemmas are
//!   kept across the solves of one session (the queries' iterative
//!   deepening solves the same unrolling under `stop_before` assumptions).
//!
//! [`Cdclt`] implements [`Backend`].

pub mod graph;
pub mod theory;

use crate::cat::base::{BaseRel, BaseSet};
use crate::cat::Model;
use crate::diag::Error;
use crate::engines::bounded::varisat::cnf::Cnf;
use crate::engines::bounded::varisat::encoder::ExternalSolve;
use crate::engines::bounded::varisat::{Encoder, VarisatSession};
use crate::engines::bounded::{Backend, Deadline, Query, Session};
use crate::engines::Switches;
use batsat::{lbool, BasicSolver, Lit, SolverInterface, Var};
use std::time::Instant;
use theory::{ModelTheory, Tables};

/// The CDCL(T) backend.
#[derive(Clone, Copy, Debug, Default)]
pub struct Cdclt {
    /// Narrow the hb-cycle query to shortest cycles
    /// ([`Encoder::shortest_cycles`]); `None`: as the query's switches say.
    pub shortest: Option<bool>,
    /// See [`crate::engines::bounded::varisat::Varisat::escape_yield`].
    pub escape_yield: Option<usize>,
    /// In a race of backends ([`crate::engines::bounded::queries::check_race_solvers`]):
    /// answer unknown at once, leaving the race to varisat, when the
    /// encoding has more than this many clauses before the propagator's
    /// tables are built (the tables hold every base-relation pair and
    /// grow with it: `indexer.c` of the Nidhugg benchmarks, 1.1M clauses,
    /// times out with cdclt and takes 2 s with varisat). `None`: never.
    pub clause_yield: Option<usize>,
}

impl Backend for Cdclt {
    fn validate(&self, model: &Model) -> Result<(), Error> {
        model.refuse_init_writes("`--solver cdclt`")
    }

    fn session(
        &self,
        q: &Query,
        f: &mut dyn FnMut(&mut dyn Session) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let model = q.encoded_model();
        self.validate(&model)?;
        let mut enc = Encoder::lazy_in(
            Cnf::recording(),
            q.program,
            &model,
            q.limits.bound,
            q.limits.width,
            Some(q.limits.deadline),
        );
        enc.set_switches(q.limits.switches);
        if let Some(s) = self.shortest {
            enc.shortest_cycles = s;
        }
        enc.escape_yield = self.escape_yield;
        enc.plain_model = Some(q.model);
        enc.enable_tso_witness();
        if let Some(m) = self.clause_yield {
            let clauses = enc.cnf.stats().1;
            if enc.aborted.is_none() && clauses > m {
                enc.aborted = Some(Error::Unknown(format!(
                    "cdclt leaves an encoding of {clauses} clauses (over {m}) to varisat"
                )));
            }
        }
        if enc.aborted.is_none() {
            let tab = tables(&mut enc, &model);
            enc.external = Some(Box::new(TheorySolver::new(&model, tab, &q.limits.switches)));
        }
        let mut s = VarisatSession::new(enc);
        f(&mut s)
    }
}

/// The base relations the propagator must know: those the model names,
/// and po, rf, co, fr (`co` must be an order; `fencerel` reads po).
fn needed_rels(model: &Model) -> Vec<BaseRel> {
    BaseRel::all()
        .filter(|&r| {
            matches!(r, BaseRel::Po | BaseRel::Rf | BaseRel::Co | BaseRel::Fr) || model.uses(r)
        })
        .collect()
}

/// Converts an encoder literal to the batsat literal of the same
/// variable index.
pub fn to_bat(l: varisat::Lit) -> Lit {
    Lit::new(Var::unsafe_from_idx(l.index() as u32), l.is_positive())
}

/// Builds the propagator's tables: the literal of every event and pair
/// that may be in a base set or relation the model names (gates are
/// created now, before the search, so that every fact an explanation
/// names exists in the solver).
fn tables(enc: &mut Encoder<'_>, model: &Model) -> Tables {
    let n = enc.un.events.len();
    let mut t = Tables::new(n, to_bat(enc.cnf.tt()));
    t.exec = (0..n).map(|e| to_bat(enc.exec_lit(e))).collect();
    t.thread = enc.un.events.iter().map(|e| e.thread.0).collect();
    t.place = enc.un.events.iter().map(|e| (e.step, e.slot)).collect();
    for s in BaseSet::all() {
        let mut v = Vec::new();
        for e in 0..n {
            if let Some(l) = enc.set_lit(s, e) {
                if !enc.cnf.is_false(l) {
                    v.push((e, to_bat(l)));
                    t.member.insert((s, e), to_bat(l));
                }
            }
        }
        t.sets.insert(s, v);
    }
    for r in needed_rels(model) {
        let mut v = Vec::new();
        for a in 0..n {
            for b in 0..n {
                if let Some(l) = enc.rel_lit(r, a, b) {
                    if !enc.cnf.is_false(l) {
                        v.push((a, b, to_bat(l)));
                        t.pair.insert((r, a, b), to_bat(l));
                    }
                }
            }
        }
        t.rels.insert(r, v);
    }
    t
}

/// batsat with the model's propagator, answering [`Encoder::solve`].
pub struct TheorySolver<'m> {
    sat: BasicSolver,
    theory: ModelTheory<'m>,
    /// Clauses of the recording already given to batsat.
    synced: usize,
}

impl<'m> TheorySolver<'m> {
    /// A solver for `model` whose propagator reads `tab`, with the cdclt
    /// strategies `switches` turn on.
    pub fn new(model: &'m Model, tab: Tables, switches: &Switches) -> TheorySolver<'m> {
        TheorySolver {
            sat: BasicSolver::default(),
            theory: ModelTheory::new(model, tab, switches),
            synced: 0,
        }
    }

    /// Gives batsat the variables and clauses recorded since the last
    /// solve.
    fn sync(&mut self, cnf: &Cnf) {
        let (nvars, _) = cnf.stats();
        while (self.sat.num_vars() as usize) < nvars + 1 {
            self.sat.new_var_default();
        }
        let new = cnf.clauses_since(self.synced);
        self.synced += new.len();
        let mut buf = Vec::new();
        for c in new {
            buf.clear();
            buf.extend(c.iter().map(|l| to_bat(*l)));
            self.sat.add_clause_reuse(&mut buf);
        }
        if self.theory.tab.relevant.len() < nvars + 1 {
            self.theory.tab.finish(nvars + 1);
        }
    }
}

impl TheorySolver<'_> {
    /// The values of all variables while batsat holds a model (between
    /// the solve and `pop_model`).
    fn model_values(&self) -> Vec<bool> {
        let nv = self.sat.num_vars() as usize;
        (0..nv)
            .map(|i| {
                self.sat
                    .raw_value_lit(Lit::new(Var::unsafe_from_idx(i as u32), true))
                    == lbool::TRUE
            })
            .collect()
    }

    /// A solve's result `r` as satisfiable (`Some(true)`, the model handed
    /// to `enc`'s CNF), unsatisfiable (`Some(false)`) or stopped (`None`);
    /// call before `pop_model`.
    fn take_model(&self, enc: &mut Encoder<'_>, r: lbool) -> Option<bool> {
        if r == lbool::TRUE {
            enc.cnf.set_model(self.model_values());
            Some(true)
        } else if r == lbool::FALSE {
            Some(false)
        } else {
            None
        }
    }
}

impl ExternalSolve for TheorySolver<'_> {
    fn solve_boolean(
        &mut self,
        enc: &mut Encoder<'_>,
        assumptions: &[varisat::Lit],
        deadline: Deadline,
    ) -> Result<bool, Error> {
        deadline.check()?;
        self.sync(&enc.cnf);
        self.sat
            .cb_mut()
            .set_stop(move || deadline.check().is_err());
        let assumps: Vec<Lit> = assumptions.iter().map(|l| to_bat(*l)).collect();
        let mut none = batsat::theory::EmptyTheory::new();
        let r = self
            .sat
            .solve_limited_preserving_trail_th(&mut none, &assumps);
        let sat = self.take_model(enc, r);
        self.sat.pop_model(&mut none);
        answer(sat, deadline)
    }

    fn solve(
        &mut self,
        enc: &mut Encoder<'_>,
        assumptions: &[varisat::Lit],
        deadline: Deadline,
    ) -> Result<bool, Error> {
        deadline.check()?;
        self.sync(&enc.cnf);
        enc.stats.solves += 1;
        let t0 = Instant::now();
        let before = self.theory.stats;
        let restart = self.theory.wants_restart.clone();
        self.sat
            .cb_mut()
            .set_stop(move || restart.get() || deadline.check().is_err());
        let assumps: Vec<Lit> = assumptions.iter().map(|l| to_bat(*l)).collect();
        let r = loop {
            self.theory.reset();
            let r = self
                .sat
                .solve_limited_preserving_trail_th(&mut self.theory, &assumps);
            if r != lbool::UNDEF || !self.theory.wants_restart.get() || deadline.check().is_err() {
                break r;
            }
            // Stopped to learn the rotated lemmas (at level 0) and go on.
            self.sat.pop_model(&mut self.theory);
            self.theory.wants_restart.set(false);
            let mut buf = Vec::new();
            for c in std::mem::take(&mut self.theory.pending) {
                buf.clear();
                buf.extend(c);
                self.sat.add_clause_reuse(&mut buf);
            }
        };
        let sat = self.take_model(enc, r);
        self.sat.pop_model(&mut self.theory);
        let after = self.theory.stats;
        if enc.switches.cdclt_debug {
            eprintln!(
                "cdclt: {:?} sat conflicts {} decisions {} props {} {:?}",
                r,
                self.sat.num_conflicts(),
                self.sat.num_decisions(),
                self.sat.num_propagations(),
                after
            );
        }
        enc.stats.refinements += after.conflicts - before.conflicts;
        enc.stats.check_time += after.time - before.time;
        enc.stats.solve_time += t0.elapsed().as_secs_f64() - (after.time - before.time);
        let (v, c) = enc.cnf.stats();
        enc.stats.vars = v;
        enc.stats.clauses = c;
        answer(sat, deadline)
    }
}

/// A solve's answer: satisfiable or not; `None` (the solver stopped) is
/// the deadline's error when it has passed, else "unknown".
fn answer(sat: Option<bool>, deadline: Deadline) -> Result<bool, Error> {
    match sat {
        Some(s) => Ok(s),
        None => {
            deadline.check()?;
            Err(Error::Unknown("the SAT solver gave up".into()))
        }
    }
}
