//! State-robustness (thesis 003 §2.6, Problem 2.10) on the bounded
//! engine: for each thread and control state, is it reachable under the
//! model but not under SC, within the bound? The program is state-robust
//! up to the bound iff no such state exists; each one comes with a
//! witness (an execution under the model reaching it).
//!
//! Decided as the upper-bound proof of Theorem 2.12 does: one reachability
//! question per (thread, control state), under SC and under the model
//! ([`crate::engines::bounded::queries::reach_each`], one encoding per model).
//! SC-reachable states are reachable under every model here (SC's
//! executions are the model's), so only the SC-unreachable states are
//! asked under the model. Initial states are reached by the empty
//! execution and are not asked.
//!
//! Both sides are bounded by the same K instructions per thread. By
//! Theorem 2.19 a trace-robust program (no hb cycle) is state-robust, and
//! the bounded versions agree: an execution without hb cycle has an SC
//! execution with the same events per thread, hence within the same
//! bound.

use crate::cat::Model;
use crate::diag::{Error, Span};
use crate::engines::bounded::queries::{reach_each, GoalAnswer};
use crate::engines::bounded::{Execution, Limits, Query, SolverKind};
use crate::program::{Goal, GoalAt, GoalKind, Program, StateId, ThreadId};
use std::time::Instant;

/// A control state reachable under the model but not under SC.
#[derive(Clone, Debug)]
pub struct StateViolation {
    /// The thread.
    pub thread: ThreadId,
    /// Its control state.
    pub state: StateId,
    /// An execution under the model in which `thread` reaches `state`.
    pub witness: Execution,
}

/// The answer of [`state_robustness`].
#[derive(Clone, Debug)]
pub struct StateReport {
    /// The states reachable under the model but not under SC, in thread
    /// and state order; empty iff state-robust up to the bound (when
    /// `unknown` is empty too).
    pub violations: Vec<StateViolation>,
    /// States left undecided by a limit, with the reason.
    pub unknown: Vec<(ThreadId, StateId, String)>,
    /// Control states asked (all but the initial ones).
    pub asked: usize,
    /// Of those, reachable under SC within the bound.
    pub sc_reachable: usize,
    /// Seconds.
    pub time: f64,
}

impl StateReport {
    /// This report as an [`Answer`](crate::answer::Answer): a violation
    /// when a state is reachable under the model only (the witness: its
    /// count), unknown when a limit left a state undecided, else no
    /// violation up to `bound`.
    pub fn answer(&self, bound: u32) -> crate::answer::Answer {
        use crate::answer::{Answer, Scope, Verdict};
        let verdict = if !self.violations.is_empty() {
            Verdict::Violation
        } else if !self.unknown.is_empty() {
            Verdict::Unknown
        } else {
            Verdict::NoViolation
        };
        let mut a = Answer::new(verdict, Scope::Bound(bound));
        if verdict == Verdict::Unknown {
            a.reason = self.unknown.first().map(|(_, _, why)| why.clone());
        }
        a.stats = vec![
            ("violations", self.violations.len() as u64),
            ("asked", self.asked as u64),
            ("sc_reachable", self.sc_reachable as u64),
        ];
        a
    }

    /// State-robust up to the bound: no violation and nothing unknown.
    pub fn robust(&self) -> bool {
        self.violations.is_empty() && self.unknown.is_empty()
    }
}

/// `prog` with its goals replaced by one goal "thread `t` at `q`" per
/// listed location (no condition).
fn probe(prog: &Program, locs: &[(ThreadId, StateId)]) -> Program {
    let mut p = prog.clone();
    p.goals = locs
        .iter()
        .map(|&(t, q)| Goal {
            name: Some(format!("{}@{}", p.thread_name(t), p.state_name(t, q))),
            kind: GoalKind::Goal,
            at: GoalAt::States(vec![(t, q)]),
            cond: None,
            span: Span::default(),
        })
        .collect();
    p
}

/// Decides state-robustness of `prog` against `model` up to
/// `limits.bound` with backend `solver` (module docs).
///
/// Errors: those of the bounded engine's encoding (under `model` or SC).
pub fn state_robustness(
    solver: SolverKind,
    prog: &Program,
    model: &Model,
    limits: Limits,
) -> Result<StateReport, Error> {
    let start = Instant::now();
    let sc = crate::cat::builtin("sc")?;
    let locs: Vec<(ThreadId, StateId)> = prog
        .thread_ids()
        .flat_map(|t| {
            let th = &prog.threads[t.0 as usize];
            (0..th.states.len() as u32)
                .map(StateId)
                .filter(move |q| *q != th.initial)
                .map(move |q| (t, q))
        })
        .collect();
    let mut report = StateReport {
        violations: Vec::new(),
        unknown: Vec::new(),
        asked: locs.len(),
        sc_reachable: 0,
        time: 0.0,
    };
    let p = probe(prog, &locs);
    let all: Vec<usize> = (0..locs.len()).collect();
    let q_sc = Query {
        program: &p,
        model: &sc,
        limits,
    };
    let sc_answers = reach_each(solver, &q_sc, &all)?;
    let mut ask = Vec::new();
    for (g, a) in sc_answers.into_iter().enumerate() {
        match a {
            GoalAnswer::Reachable(_) => report.sc_reachable += 1,
            GoalAnswer::Unreachable => ask.push(g),
            GoalAnswer::Unknown(why) => report.unknown.push((locs[g].0, locs[g].1, why)),
        }
    }
    if !ask.is_empty() {
        let q_m = Query {
            program: &p,
            model,
            limits,
        };
        for (g, a) in ask.iter().zip(reach_each(solver, &q_m, &ask)?) {
            let (thread, state) = locs[*g];
            match a {
                GoalAnswer::Reachable(x) => report.violations.push(StateViolation {
                    thread,
                    state,
                    witness: *x,
                }),
                GoalAnswer::Unreachable => {}
                GoalAnswer::Unknown(why) => report.unknown.push((thread, state, why)),
            }
        }
    }
    report.time = start.elapsed().as_secs_f64();
    Ok(report)
}
