//! The bounded-checking core: what a bounded query is ([`Query`]: program,
//! model, [`Limits`]), what it answers ([`CheckKind`], [`Verdict`],
//! [`CheckResult`], [`FinalStates`], [`Stats`]), and the one interface a
//! solver backend implements ([`Backend`], [`Session`]).
//!
//! The queries themselves — `reach`, `robust` (a happens-before cycle,
//! thesis 003 §2.8, Lemma 2.16), final-state enumeration for litmus tests,
//! and witness replay — are written once, over that interface, in
//! [`queries`]. Witnesses are backend-neutral [`Execution`]s
//! ([`execution`]).
//!
//! Backends (each one folder; they never import each other):
//! * [`varisat`]: the embedded SAT solver; a bit-blasted unrolling, base
//!   relations as literals, the model's axioms checked lazily on each
//!   candidate (or `acyclic` encoded eagerly with `--eager`);
//! * [`cdclt`]: the same CNF encoding solved by batsat with the model's
//!   axioms as a theory checked during search (CDCL(T));
//! * `z3` (Cargo feature `z3`): an independent SMT encoding (integer
//!   program counters, rf source selectors, co clocks, every axiom eager).

pub mod cdclt;
#[cfg(feature = "certify")]
pub mod certify;
pub mod execution;
pub mod queries;
pub mod varisat;
#[cfg(feature = "z3")]
pub mod z3;

pub use execution::{Cycle, EventInfo, Execution};
pub use queries::{check, enumerate_final, enumerate_final_with, replay, validate};

use crate::cat::Model;
use crate::diag::Error;
use crate::engines::Switches;
use crate::program::{GExpr, Program, ThreadId};
use std::time::Instant;

/// Default `--bound` of program checks (instructions per thread).
pub const DEFAULT_BOUND: u32 = 20;
/// Default `--bound` of litmus tests (loop unrolling; loop-free code is
/// always executed completely, [`crate::litmus::run::effective_bound`]).
pub const DEFAULT_LITMUS_BOUND: u32 = 12;

/// Statistics of one query.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Stats {
    /// Solver calls.
    pub solves: usize,
    /// Candidates rejected by the model (lazy clauses added).
    pub refinements: usize,
    /// Variables and clauses of the CNF.
    pub vars: usize,
    /// Clauses.
    pub clauses: usize,
    /// Events of the unrolling.
    pub events: usize,
    /// Seconds in the SAT solver.
    pub solve_time: f64,
    /// Seconds checking candidates against the model.
    pub check_time: f64,
    /// The backend that answered when several were raced
    /// ([`queries::check_race_solvers`]); `None` otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub solver: Option<SolverKind>,
    /// Candidate executions visited by the enumeration engine
    /// (`varisat::enumerate`; 0 when the SAT path answered).
    pub candidates: usize,
}

/// A deadline for a query (`None`: no limit).
#[derive(Clone, Copy, Debug)]
pub struct Deadline(pub Option<Instant>);

impl Deadline {
    /// True once the deadline is in the past.
    pub fn passed(&self) -> bool {
        self.0.is_some_and(|d| Instant::now() >= d)
    }

    /// The resource check of the encoders' growth points and solver
    /// loops: this deadline and the process's memory budget
    /// ([`crate::resources`]).
    ///
    /// Errors: [`Error::Unknown`] naming the limit that was reached.
    pub fn check(&self) -> Result<(), Error> {
        if cancelled() {
            return Err(Error::Unknown(
                "cancelled (another query answered first)".into(),
            ));
        }
        crate::resources::check_limits(self.0).map_err(Error::Unknown)
    }
}

thread_local! {
    /// The cancel flag of the current thread's query ([`with_cancel`]).
    static CANCEL: std::cell::RefCell<Option<std::sync::Arc<std::sync::atomic::AtomicBool>>> =
        const { std::cell::RefCell::new(None) };
}

/// Runs `f` with `flag` as this thread's cancel flag: once `flag` is set
/// (by another thread), every [`Deadline::check`] in `f` fails with
/// [`Error::Unknown`], so the query stops at its next resource check
/// (the racing of hb-cycle queries, [`queries::check_race`]).
pub fn with_cancel<R>(
    flag: std::sync::Arc<std::sync::atomic::AtomicBool>,
    f: impl FnOnce() -> R,
) -> R {
    let old = CANCEL.with(|c| c.replace(Some(flag)));
    let r = f();
    CANCEL.with(|c| *c.borrow_mut() = old);
    r
}

/// True when this thread's query was cancelled ([`with_cancel`]).
fn cancelled() -> bool {
    CANCEL.with(|c| {
        (c.borrow().as_ref()).is_some_and(|f| f.load(std::sync::atomic::Ordering::Relaxed))
    })
}

/// The bound (steps per thread), value width (bits) and deadline of a
/// query, and the developer switches it runs with.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// K.
    pub bound: u32,
    /// W.
    pub width: u32,
    /// When to give up (`unknown`).
    pub deadline: Deadline,
    /// Developer switches of the encoders and solvers (diagnostics and
    /// alternative strategies; [`Switches::default`] for none).
    pub switches: Switches,
}

/// One bounded question's inputs: a program (after PGAS lowering), a
/// model, and the limits.
#[derive(Clone, Copy)]
pub struct Query<'a> {
    /// The program.
    pub program: &'a Program,
    /// The memory model.
    pub model: &'a Model,
    /// Bound, width, deadline.
    pub limits: Limits,
}

impl Query<'_> {
    /// The model the backends encode: [`Query::model`] with its `acyclic`
    /// axioms contracted over the program's atomic steps over several
    /// locations ([`crate::cat::atomic_steps`]) when it has such a step
    /// ([`Program::atomic_step_thread`]), else the model itself. Every
    /// backend encodes the base relation `stxn` of those steps itself.
    pub fn encoded_model(&self) -> std::borrow::Cow<'_, Model> {
        if self.program.atomic_step_thread().is_some() {
            std::borrow::Cow::Owned(crate::cat::atomic_steps::contract_atomic_steps(self.model))
        } else {
            std::borrow::Cow::Borrowed(self.model)
        }
    }
}

/// The answer of a check ([`crate::answer::Verdict`], the verdict of
/// every engine).
pub use crate::answer::Verdict;

/// Which check a user runs on a program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CheckKind {
    /// Goal reachability.
    Reach,
    /// Robustness (acyclic happens-before, po ∪ rf ∪ co ∪ fr).
    Robust,
}

impl CheckKind {
    /// The command name (`reach`, `robust`).
    pub fn name(self) -> &'static str {
        match self {
            CheckKind::Reach => "reach",
            CheckKind::Robust => "robust",
        }
    }
}

/// Result of one check on one program.
#[derive(Clone, Debug, serde::Serialize)]
pub struct CheckResult {
    /// Which check.
    pub check: CheckKind,
    /// The answer.
    pub verdict: Verdict,
    /// The goal reached (index into `Program::goals`) for `reach`.
    pub goal: Option<usize>,
    /// The witness execution.
    pub witness: Option<Execution>,
    /// The hb cycle for `robust`.
    pub cycle: Option<Cycle>,
    /// The TSO attack pair (delayed store, overtaking load) if any.
    pub attack: Option<(usize, usize)>,
    /// fr edges of the witness (for DOT).
    #[serde(skip)]
    pub fr: Vec<(usize, usize)>,
    /// Threads whose paths the bound cut.
    pub truncated: Vec<String>,
    /// Why unknown.
    pub reason: Option<String>,
    /// Seconds from the start of the query to this answer, the encoding
    /// included.
    pub time: f64,
    /// Engine statistics.
    pub stats: Stats,
}

impl CheckResult {
    /// A result of `check` with no violation, no witness and no time yet
    /// (the start of every answer).
    pub fn new(check: CheckKind) -> CheckResult {
        CheckResult {
            check,
            verdict: Verdict::NoViolation,
            goal: None,
            witness: None,
            cycle: None,
            attack: None,
            fr: Vec::new(),
            truncated: Vec::new(),
            reason: None,
            time: 0.0,
            stats: Stats::default(),
        }
    }

    /// Records a robustness violation with its witness `x`: the shortest
    /// hb cycle, computed from the execution alone so that every backend
    /// renders it alike (for PGAS, `pgas`, on the trace graph, thesis
    /// 003 §8.2), the TSO attack pair on it, and the fr edges (for DOT).
    pub fn set_cycle_witness(&mut self, x: Execution, pgas: bool) {
        let (cycle, fr) = x.hb_cycle();
        let cycle = if pgas { x.pgas_hb_cycle() } else { cycle };
        self.verdict = Verdict::Violation;
        self.attack = cycle.as_ref().and_then(|c| x.attack_pair(c));
        self.cycle = cycle;
        self.fr = fr;
        self.witness = Some(x);
    }
}

/// The result of [`enumerate_final`].
#[derive(Clone, Debug)]
pub struct FinalStates {
    /// Each distinct tuple of values of the given expressions over the
    /// final states (unsorted; in the order found).
    pub states: Vec<Vec<i64>>,
    /// Why the enumeration stopped early (deadline); `states` is then
    /// incomplete.
    pub unknown: Option<String>,
    /// Engine statistics.
    pub stats: Stats,
    /// herd's flags over every consistent execution, when decided: always
    /// for a model without flags; for one with flags only when every
    /// candidate execution was visited (the enumeration engine), `None`
    /// otherwise.
    pub flags: Option<Flags>,
}

/// Which solver backend answers (`--solver`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SolverKind {
    /// The embedded SAT solver (pure Rust; always available).
    #[default]
    Varisat,
    /// z3 through libz3 (builds with `--features z3`).
    Z3,
    /// batsat with the model as a theory during search (pure Rust).
    Cdclt,
}

impl SolverKind {
    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            SolverKind::Varisat => "varisat",
            SolverKind::Z3 => "z3",
            SolverKind::Cdclt => "cdclt",
        }
    }

    /// Errors: [`Error::Unsupported`] when this build lacks the backend.
    pub fn available(self) -> Result<(), Error> {
        if self == SolverKind::Z3 && !cfg!(feature = "z3") {
            return Err(no_z3());
        }
        Ok(())
    }

    /// Parses a comma-separated list such as `varisat,z3`.
    ///
    /// Errors: an unknown name.
    pub fn parse_list(s: &str) -> Result<Vec<SolverKind>, Error> {
        s.split(',').map(|n| n.trim().parse()).collect()
    }
}

impl std::str::FromStr for SolverKind {
    type Err = Error;

    /// `varisat` (alias `sat`), `cdclt` or `z3`.
    fn from_str(s: &str) -> Result<SolverKind, Error> {
        match s {
            "varisat" | "sat" => Ok(SolverKind::Varisat),
            "cdclt" => Ok(SolverKind::Cdclt),
            "z3" => Ok(SolverKind::Z3),
            other => Err(Error::UnknownName(format!(
                "unknown solver `{other}`; solvers: varisat, cdclt, z3"
            ))),
        }
    }
}

/// The error of a build without the z3 backend.
fn no_z3() -> Error {
    Error::Unsupported(
        "this bmc-rmm was built without z3; rebuild with `cargo build --release --features z3` \
         (needs libz3-dev and libclang-dev, docs/solvers.md)"
            .into(),
    )
}

/// A condition over the candidate execution of a [`Session`] (a goal, the
/// hb cycle, "all threads terminated", a pinned event…): an opaque
/// handle, valid in the session that made it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cond(pub usize);

/// One program encoded under one model and bound by a backend, ready for
/// the queries of [`queries`]. A session is incremental: conditions made
/// and constraints added stay for its later solves.
pub trait Session {
    /// Goal `g` (index into `Program::goals`): its control states and
    /// condition hold at the end of the execution.
    fn goal(&mut self, g: usize) -> Cond;
    /// The execution's happens-before po ∪ rf ∪ co ∪ fr is cyclic over its
    /// memory events (thesis 003 §2.8; for PGAS on the trace graph, §8.2).
    fn hb_cycle(&mut self) -> Cond;
    /// Every thread has terminated (at a state without outgoing
    /// instructions) and `filter`, if any, is nonzero.
    fn final_state(&mut self, filter: Option<&GExpr>) -> Cond;
    /// Every thread stops before step `m` (for iterative deepening).
    fn stop_before(&mut self, m: usize) -> Cond;
    /// At least one of `conds` holds (false for none).
    fn any_of(&mut self, conds: &[Cond]) -> Cond;
    /// Whether `c` holds in the execution found by the last successful
    /// [`Session::solve`].
    fn holds(&self, c: Cond) -> bool;
    /// The unrolling depth (steps of the longest unrolled thread).
    fn depth(&self) -> usize;
    /// Sets the expressions (over final registers and memory) whose values
    /// [`Session::observed`] reads and [`Session::exclude_observed`]
    /// blocks.
    fn observe(&mut self, exprs: &[GExpr]);
    /// Is there an execution consistent with the model under
    /// `assumptions`? Keeps it for [`Session::execution`] and
    /// [`Session::observed`].
    ///
    /// Errors: [`Error::Unknown`] when the deadline passes or the solver
    /// gives up.
    fn solve(&mut self, assumptions: &[Cond], deadline: Deadline) -> Result<bool, Error>;
    /// The execution found by the last successful [`Session::solve`].
    fn execution(&mut self) -> Execution;
    /// The observed expressions' values (signed W-bit) in that execution.
    fn observed(&self) -> Vec<i64>;
    /// From now on, excludes executions satisfying `under` whose observed
    /// values are `values`.
    fn exclude_observed(&mut self, under: Cond, values: &[i64]);
    /// Conditions that make the candidate exactly `x`, an execution found
    /// by any backend (events matched by thread, step and `ord`).
    ///
    /// Errors: `x` does not fit this unrolling; the message says why.
    fn pin(&mut self, x: &Execution) -> Result<Vec<Cond>, String>;
    /// Conditions that make thread `t` execute exactly the instructions
    /// `paths[t]` (indices into `Thread::instrs`, one per step) and stop;
    /// values, rf and co stay free (`queries::robust_along`).
    ///
    /// Errors: a path that does not fit this unrolling; a backend without
    /// it (the default).
    fn follow(&mut self, paths: &[Vec<usize>]) -> Result<Vec<Cond>, String> {
        let _ = paths;
        Err("this backend does not constrain paths".into())
    }
    /// Statistics so far.
    fn stats(&self) -> Stats;
    /// Threads whose paths the bound cut.
    fn truncated(&self) -> Vec<ThreadId>;
    /// Every final state under `under` (the observed values of each
    /// consistent execution, distinct, in the order found) by visiting the
    /// candidate executions directly, when this session was made for it
    /// and they are few; `None` when it was not, or when there are more
    /// than its budget (then [`Session::solve`] answers as usual).
    ///
    /// Errors: [`Error::Unknown`] when the deadline passes.
    /// With the states, herd's flags over the consistent executions
    /// visited ([`Flags`]).
    fn enumerate_observed(
        &mut self,
        _under: Cond,
        _deadline: Deadline,
    ) -> Option<Result<Observed, Error>> {
        None
    }
    /// True when no flag of the model (`flag ~empty E as NAME`) holds on
    /// any candidate execution of this session's encoding, consistent or
    /// not (static bounds, [`crate::cat::bounds`]): the flags are then
    /// decided without visiting a candidate. False when the backend cannot
    /// tell.
    fn flags_never_hold(&mut self) -> bool {
        false
    }
    /// After a satisfiable [`Session::solve`]: the refusal (located at an
    /// instruction of the cycle when the program has a source) when the
    /// execution found has values no computation determines (a cycle of
    /// rf and data dependencies, "out of thin air": herd keeps them
    /// symbolic), or `None`. Backends that cannot tell answer `None`.
    fn thin_air(&mut self) -> Option<Error> {
        None
    }
}

/// The final states of the consistent executions visited (each the
/// observed values, distinct, in the order found) with herd's flags over
/// them ([`Session::enumerate_observed`]).
pub type Observed = (Vec<Vec<i64>>, Flags);

/// herd's flags (`flag ~empty E as NAME`, [`crate::cat::Flag`]) over
/// every consistent execution: which hold on one of them (herd's
/// `Flag NAME` lines), in the order found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Flags {
    /// Flags that hold on some consistent execution.
    pub fired: Vec<String>,
}

/// A solver backend: turns a [`Query`] into a [`Session`].
pub trait Backend {
    /// Checks that this backend can encode `model` (once, before a batch
    /// starts, so that nothing is half-printed).
    ///
    /// Errors: a model construct the backend does not support.
    fn validate(&self, model: &Model) -> Result<(), Error>;
    /// Encodes `q` and runs `f` on the session.
    ///
    /// Errors: those of the encoding (see [`Backend::validate`]) and of `f`.
    fn session(
        &self,
        q: &Query,
        f: &mut dyn FnMut(&mut dyn Session) -> Result<(), Error>,
    ) -> Result<(), Error>;
}

/// The backend `kind`; `eager` (varisat only) encodes the model's
/// `acyclic` axioms up front instead of lazily.
///
/// Errors: [`Error::Unsupported`] when this build lacks the backend.
pub fn backend(kind: SolverKind, eager: bool) -> Result<Box<dyn Backend>, Error> {
    backend_with(kind, eager, None, None)
}

/// [`backend`] for a race of backends: cdclt answers unknown at once on
/// an encoding of more than `clause_yield` clauses
/// ([`cdclt::Cdclt::clause_yield`]); other backends as [`backend`].
///
/// Errors: [`Error::Unsupported`] when this build lacks the backend.
pub fn backend_yielding(kind: SolverKind, clause_yield: usize) -> Result<Box<dyn Backend>, Error> {
    match kind {
        SolverKind::Cdclt => Ok(Box::new(cdclt::Cdclt {
            clause_yield: Some(clause_yield),
            ..Default::default()
        })),
        _ => backend(kind, false),
    }
}

/// [`backend`] (lazy) whose sessions enumerate final states directly
/// when a test has at most `budget` candidate executions
/// ([`Session::enumerate_observed`]; the varisat backend only, others
/// ignore it); `None`: always by solving.
///
/// Errors: [`Error::Unsupported`] when this build lacks the backend.
pub fn backend_enumerating(
    kind: SolverKind,
    budget: Option<usize>,
) -> Result<Box<dyn Backend>, Error> {
    match (kind, budget) {
        (SolverKind::Varisat, Some(_)) => Ok(Box::new(varisat::Varisat {
            enumerate: budget,
            ..varisat::Varisat::default()
        })),
        _ => backend(kind, false),
    }
}

/// [`backend`] with the hb-cycle query of `robust` narrowed to shortest
/// cycles (`Some(true)`, docs/models.md), plain (`Some(false)`), or as the
/// query's switches say (`None`: [`Switches::shortest_cycles`]); z3 has
/// one query.
///
/// Errors: [`Error::Unsupported`] when this build lacks the backend.
pub fn backend_with(
    kind: SolverKind,
    eager: bool,
    shortest: Option<bool>,
    escape_yield: Option<usize>,
) -> Result<Box<dyn Backend>, Error> {
    match kind {
        SolverKind::Varisat => Ok(Box::new(varisat::Varisat {
            eager,
            shortest,
            escape_yield,
            enumerate: None,
        })),
        SolverKind::Cdclt => Ok(Box::new(cdclt::Cdclt {
            shortest,
            escape_yield,
            clause_yield: None,
        })),
        #[cfg(feature = "z3")]
        SolverKind::Z3 => Ok(Box::new(z3::Z3)),
        #[cfg(not(feature = "z3"))]
        SolverKind::Z3 => Err(no_z3()),
    }
}

impl CheckResult {
    /// This result as an [`Answer`](crate::answer::Answer): a "no
    /// violation" holds up to `bound`; the witness is the hb cycle of a
    /// robustness violation (as [`Execution::render_cycle`] prints it).
    pub fn answer(&self, bound: u32) -> crate::answer::Answer {
        crate::answer::Answer {
            verdict: self.verdict,
            reason: self.reason.clone(),
            scope: crate::answer::Scope::Bound(bound),
            stats: Vec::new(),
            witness: self
                .witness
                .as_ref()
                .zip(self.cycle.as_ref())
                .map(|(x, c)| x.render_cycle(c)),
        }
    }
}
