//! Explicit-state engines: the independent oracle of bmc-rmm.
//!
//! These engines share only the Program IR ([`crate::program`]) with the
//! SAT/SMT encoder; they never build an event graph or call a solver.
//!
//! * [`sc_reach`]: SC reachability with locks (thesis `003_…` §7.1.1,
//!   Table 7.1), with Trencher's reductions: restricted SC with locks
//!   (§7.1.2, Table 7.2), live-register reset (§7.1.3) and atomic
//!   execution of instrumented sequences (§7.1.4).
//! * [`check_robustness`]: robustness against TSO by attacks (§6.1–6.2):
//!   every attack `(attacker, store, load)` is checked for a TSO witness by
//!   SC reachability of the instrumented program, in parallel (rayon).
//! * [`counting::counting_reach`]: SC reachability with any number of
//!   copies of some threads (the counting abstraction, ω-acceleration).
//! * [`fence_insertion`]: irreducible eliminating fence sets per feasible
//!   attack and an optimal valid fence set (§6.5); [`insert_fences`]
//!   builds the fenced program.
//!
//! All searches are iterative (breadth-first by default, so witnesses are
//! shortest), keep a visited set of packed states and stop with an
//! `Unknown` verdict when a [`Limits`] bound is hit; they never panic on
//! user input.
//!
//! Instrumentation is applied *on the fly*: the SC state of the
//! instrumented program `P_A` (shadow cells `(a, d)`, access levels
//! `(a, hb)`, the attacker register `r_a`, hat copies of control states)
//! is a state of the search, and each instrumented instruction (e.g. rule
//! (6.1) `r_a ← e_a; mem[(r_a,d)] ← (e_v,d)`) is one atomic step (§7.1.4).

pub mod counting;
mod fences;
mod state_space;
mod tso;

pub use fences::{
    fence_insertion, insert_fences, AttackFenceSets, FenceCosts, FenceLocation, FenceReport,
    FenceVerdict,
};
pub use state_space::{sc_reach, GoalHit, ReachResult, ReachVerdict, ScStep};
pub use tso::{
    check_robustness, enumerate_attacks, witness_from_steps, Attack, AttackStatus, Robustness,
    RobustnessReport, Separation, TsoEvent, TsoEventKind, TsoWitness,
};

pub(crate) use state_space::{check_cmd, validate};

use crate::program::{ThreadId, Width};
use std::time::Duration;

/// Resource bounds of a search. A bound that is hit ends the search with an
/// `Unknown` verdict (never a crash).
#[derive(Clone, Debug)]
pub struct Limits {
    /// Wall-clock budget of the whole call ([`sc_reach`],
    /// [`check_robustness`] or [`fence_insertion`]); `None` = unlimited.
    pub timeout: Option<Duration>,
    /// Maximum number of distinct states visited by *one* reachability
    /// search (one attack, one candidate fence set); `None` = unlimited.
    pub max_states: Option<usize>,
    /// Approximate bound, in bytes, on the memory of one search (visited
    /// set, parent links and frontier); `None` = unlimited.
    pub max_memory_bytes: Option<usize>,
}

impl Default for Limits {
    /// 60 s, 20 million states, 2 GiB per search.
    fn default() -> Self {
        Limits {
            timeout: Some(Duration::from_secs(60)),
            max_states: Some(20_000_000),
            max_memory_bytes: Some(2 << 30),
        }
    }
}

impl Limits {
    /// No bounds at all.
    pub fn unlimited() -> Limits {
        Limits {
            timeout: None,
            max_states: None,
            max_memory_bytes: None,
        }
    }
}

/// Order in which the state space is explored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SearchOrder {
    /// Breadth-first: witnesses are shortest (default).
    #[default]
    Bfs,
    /// Depth-first (iterative, explicit stack), as Trencher's checker.
    Dfs,
}

/// Options of the explicit engines.
#[derive(Clone, Debug)]
pub struct Options {
    /// The bit-width W of values and addresses (wrap-around arithmetic).
    pub width: Width,
    /// Use the restricted SC semantics with locks (Table 7.2) instead of
    /// plain SC with locks (Table 7.1). [`sc_reach`] falls back to plain SC
    /// when a goal is not a single-thread goal (see its docs).
    pub restricted: bool,
    /// Reset dead registers to 0 after every step (§7.1.3).
    pub live_registers: bool,
    /// Exploration order.
    pub order: SearchOrder,
    /// Resource bounds.
    pub limits: Limits,
}

impl Default for Options {
    /// Width 16, all reductions on, breadth-first, default limits.
    fn default() -> Self {
        Options {
            width: Width::DEFAULT,
            restricted: true,
            live_registers: true,
            order: SearchOrder::Bfs,
            limits: Limits::default(),
        }
    }
}

/// Statistics of one engine call.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Stats {
    /// Number of attacks enumerated (0 for [`sc_reach`]).
    pub attacks_total: usize,
    /// Attacks answered without a search: store and load separated by a
    /// draining instruction on every path (thesis Table 7.3 column RQ1).
    pub answered_without_search: usize,
    /// Searches that proved the goal unreachable (RQ2).
    pub searches_unreachable: usize,
    /// Searches that reached the goal (RQ3).
    pub searches_reachable: usize,
    /// Searches stopped by a limit.
    pub searches_unknown: usize,
    /// Distinct states visited, summed over all searches.
    pub states_visited: u64,
    /// Wall-clock time of the call, in microseconds.
    pub time_us: u64,
}

impl Stats {
    pub(crate) fn absorb(&mut self, o: &Stats) {
        self.attacks_total += o.attacks_total;
        self.answered_without_search += o.answered_without_search;
        self.searches_unreachable += o.searches_unreachable;
        self.searches_reachable += o.searches_reachable;
        self.searches_unknown += o.searches_unknown;
        self.states_visited += o.states_visited;
    }
}

/// Errors of the explicit engines: the program uses something they do not
/// model. (Limits are not errors: they give `Unknown` verdicts.)
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ExplicitError {
    /// A command outside SC/TSO with locks (`lwarx`/`stwcx.`, PGAS, a lock
    /// inside an atomic sequence, ...).
    #[error("thread `{thread}`, instruction {from} -> {to}: {what} is not supported by the explicit SC/TSO engines")]
    Unsupported {
        /// Thread name.
        thread: String,
        /// Source state name.
        from: String,
        /// Target state name.
        to: String,
        /// What is unsupported.
        what: String,
    },
    /// The program is a PGAS (SPMD) program.
    #[error("PGAS programs are not supported by the explicit SC/TSO engines")]
    Pgas,
    /// The width is outside 1..=32.
    #[error("width {0} is outside 1..=32")]
    BadWidth(u32),
}

/// A thread id and control state naming, e.g., an attack's instruction.
pub(crate) fn tid(t: usize) -> ThreadId {
    ThreadId(t as u32)
}

impl From<&RobustnessReport> for crate::answer::Answer {
    /// Robustness against TSO for every execution (the engine is
    /// unbounded); the witness is the TSO computation of the feasible
    /// attack ([`TsoWitness`]'s text).
    fn from(r: &RobustnessReport) -> crate::answer::Answer {
        use crate::answer::{Answer, Scope, Verdict};
        let mut a = match &r.verdict {
            Robustness::Robust => Answer::new(Verdict::NoViolation, Scope::Complete),
            Robustness::NotRobust(w) => Answer {
                witness: Some(w.to_string()),
                ..Answer::new(Verdict::Violation, Scope::Complete)
            },
            Robustness::Unknown(why) => Answer {
                reason: Some(why.clone()),
                ..Answer::new(Verdict::Unknown, Scope::Complete)
            },
        };
        a.stats = vec![
            ("attacks", r.stats.attacks_total as u64),
            ("states", r.stats.states_visited),
        ];
        a
    }
}
