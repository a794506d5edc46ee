//! Unbounded robustness against Power (in part), RMO, PSO and TSO by normal-form
//! computations (thesis `003_…` ch. 3 and 5): a program is robust iff it has no
//! normal-form computation of degree 3 with a cyclic happens-before
//! relation, and the normal-form computations are the language of a
//! multiheaded automaton whose emptiness, intersected with the cycle
//! checks of a profile, is a reachability question in a finite graph.
//!
//! * Semantics: the store-buffer semantics of §2.4.2 (Table 2.2) with
//!   one FIFO per thread and address for PSO (§5.2: PSO is RMO with
//!   #LoadLoad | #LoadStore after every load) and TSO as PSO with
//!   #StoreStore after every store (§5.3, Theorem 5.5), barriers and
//!   atomic steps as [`program_class`] says. RMO (§5.1, Theorem 5.1) is
//!   the Power semantics of §4.1 made store-atomic, with loads reordered
//!   except as dependencies and `membar` masks order them ([`rmo`]).
//!   Power (§4.1) is decided where at most two threads access memory and
//!   `sync` is the only barrier: a store committed by one thread and not
//!   yet propagated to the other is seen by its own thread only, as an
//!   early read, so the store-atomic automaton of [`rmo`] serves, with
//!   the rules RMO drops put back (coherence of loads of one address,
//!   POW-FIN-LD; load commits ordered as POW-COMMIT says).
//! * Normal form (§3.1): a shortest computation with a cyclic hb loses
//!   its cycle when the last instruction of some thread is undone; the
//!   rest has an SC trace (Lemma 2.16) and its events, reordered inside
//!   each part as that SC computation orders them, give a computation
//!   `w1·e1·w2·e2·w3` with the same trace, where `e1, e2` are the
//!   undone instruction's events. An instruction has at most two events
//!   (a store's issue and flush), so three parts suffice (the degree-3
//!   bound of §5.1 for store-atomic models); under RMO an instruction's
//!   events are its fetch (part 1), its load or computation, and its
//!   commit, and store atomicity gives degree 3 as well (Theorem 5.1).
//! * The automaton ([`automaton`], §3.2.1, Example 3.5) generates exactly
//!   these computations, one instruction at a time with its events placed
//!   in parts; cycles are found through profiles ([`profile`], §3.2.2,
//!   Lemma 3.7) and the product with their checks is searched
//!   exhaustively ([`search`], Lemmas 3.3–3.4).
//!
//! The search is complete for every accepted program (W-bit values, so
//! finitely many states): "robust" means no computation of any length has
//! a cyclic hb. A witness is replayed into an [`Execution`] whose hb cycle
//! is recomputed from the execution alone ([`witness`]); a limit gives
//! "unknown", never "robust".

mod automaton;
mod pgas;
mod profile;
mod program_class;
mod rmo;
mod search;
mod witness;

use crate::answer::{Answer, Scope, STEPS_PER_THREAD};
use crate::diag::Error;
use crate::engines::bounded::{Cycle, Execution};
use crate::engines::explicit::Limits;
use crate::program::{Program, ThreadId, Width};
use rayon::prelude::*;
use std::fmt;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;

/// The models the engine decides (SPARC, and Power in part).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Model {
    /// Total store order: one FIFO store buffer per thread.
    Tso,
    /// Partial store order: one FIFO store buffer per thread and address.
    Pso,
    /// Relaxed memory order (thesis §5.1): store-atomic, loads and stores
    /// reordered except as dependencies and `membar` masks order them.
    Rmo,
    /// IBM Power (thesis §4.1) for programs where at most two threads
    /// access memory and the only barrier is `sync`: there every store
    /// reaches the one other thread at once or is read early by its own
    /// thread only, so Power is RMO with loads of one address in
    /// coherence order (POW-FIN-LD), load commits after the earlier
    /// accesses to their address and to unknown addresses (POW-COMMIT),
    /// and `sync` a full barrier (the RMO transitions with their Power
    /// rules; the rest of Power is refused as an unmodelled construct).
    Power,
    /// PGAS (thesis §8.1.2, Table 8.1) on the program lowered for its N
    /// ranks: remote reads and writes complete through FIFO queues, so
    /// the normal form has degree 4 and its later parts hold only the
    /// queue pops (§8.3–8.4, Theorem 8.26).
    Pgas,
}

impl Model {
    /// The model's name (`tso`, `pso`, `rmo`, `power`, `pgas`).
    pub fn name(self) -> &'static str {
        match self {
            Model::Tso => "tso",
            Model::Pso => "pso",
            Model::Rmo => "rmo",
            Model::Power => "power",
            Model::Pgas => "pgas",
        }
    }

    /// Whether the engine runs the commit-based transitions of [`rmo`]
    /// (RMO and Power) rather than the store buffers.
    pub(crate) fn commits(self) -> bool {
        matches!(self, Model::Rmo | Model::Power)
    }

    /// The model named `s` (`tso`, `pso`, `rmo`, `power`, `pgas`), if the engine
    /// decides it.
    pub fn from_name(s: &str) -> Option<Model> {
        match s {
            "tso" => Some(Model::Tso),
            "pso" => Some(Model::Pso),
            "rmo" => Some(Model::Rmo),
            "power" => Some(Model::Power),
            "pgas" => Some(Model::Pgas),
            _ => None,
        }
    }
}

/// Options of [`check_robustness`].
#[derive(Clone, Debug)]
pub struct Options {
    /// The bit-width W of values and addresses (1..=32).
    pub width: Width,
    /// Time and size limits (a limit hit gives "unknown"): the timeout
    /// covers the whole call, the state and memory bounds each search.
    pub limits: Limits,
    /// Search the construction as the thesis states it, without the
    /// reductions (no distinguished thread, candidates by the search
    /// without marks, local instructions one step each): slower, the same
    /// answers; for cross-checks of the reductions.
    pub plain: bool,
}

impl Default for Options {
    /// Width 16, the explicit engines' default limits, the reductions on.
    fn default() -> Self {
        Options {
            width: Width::DEFAULT,
            limits: Limits::default(),
            plain: false,
        }
    }
}

/// A non-robustness witness: a normal-form computation with a cyclic
/// happens-before.
#[derive(Clone, Debug)]
pub struct Witness {
    /// The threads of the cycle's segments (the profile), in cycle order.
    pub profile: Vec<ThreadId>,
    /// The computation as an execution (events in thread and program
    /// order, rf, co, final state), in the bounded engine's form.
    pub execution: Execution,
    /// The hb cycle recomputed from the execution.
    pub cycle: Cycle,
    /// The computation `w1·w2·w3` part by part (text).
    pub computation: String,
    /// The rendered cycle and execution (the bounded engine's format).
    pub text: String,
}

impl Witness {
    /// The most instructions one thread executes in the witness: the
    /// bound at which the bounded engine finds the same execution.
    pub fn steps_per_thread(&self) -> usize {
        self.execution.steps.iter().copied().max().unwrap_or(0)
    }
}

impl fmt::Display for Witness {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.text)
    }
}

/// The verdict of [`check_robustness`].
#[derive(Clone, Debug)]
pub enum Verdict {
    /// No computation of any length has a cyclic happens-before.
    Robust,
    /// A computation with a cyclic happens-before.
    NotRobust(Box<Witness>),
    /// A limit was hit before the search ended (the reason).
    Unknown(String),
}

/// Counters of one call.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Stats {
    /// Profiles of the program (cycle shapes searched).
    pub profiles: usize,
    /// States visited over all searches.
    pub states: u64,
    /// Guess candidates: values over all addresses.
    pub candidates: usize,
    /// Wall-clock time of the call, in microseconds.
    pub time_us: u64,
}

/// The result of [`check_robustness`].
#[derive(Clone, Debug)]
pub struct Report {
    /// The model.
    pub model: Model,
    /// The verdict.
    pub verdict: Verdict,
    /// Counters.
    pub stats: Stats,
}

/// Decides whether `p` is robust against `model` (every computation has
/// an SC trace, thesis §2.8) for computations of any length. A PGAS
/// program is given lowered for its ranks
/// ([`crate::program::pgas::prepare`]).
///
/// Errors: a construct outside the accepted class (located at its
/// instruction), a width outside 1..=32, a PGAS program under a model
/// other than [`Model::Pgas`]. Limits are not errors: they give
/// [`Verdict::Unknown`].
pub fn check_robustness(p: &Program, model: Model, opts: &Options) -> Result<Report, Error> {
    let start = Instant::now();
    if opts.width.0 == 0 || opts.width.0 > 32 {
        return Err(Error::Unsupported(format!(
            "width {} is outside 1..=32 (the normal-form engine)",
            opts.width.0
        )));
    }
    let states = AtomicU64::new(0);
    let found_at = AtomicUsize::new(usize::MAX);
    let finish = |verdict, mut stats: Stats| {
        stats.states = states.load(Ordering::Relaxed);
        stats.time_us = start.elapsed().as_micros() as u64;
        Ok(Report {
            model,
            verdict,
            stats,
        })
    };
    let budget = |me: usize| search::Budget {
        limits: &opts.limits,
        start,
        found_at: &found_at,
        me,
        states: &states,
    };
    if model == Model::Pgas {
        let ops = pgas::classify(p)?;
        let n = p.threads.len();
        if n > profile::MAX_PROFILE {
            return finish(too_many_threads(), Stats::default());
        }
        // The search without marks gives each thread's footprint; a
        // profile needs a possible hop between neighbours (a cycle may
        // pass one thread only: through its own remote operation, whose
        // pops are outside program order).
        let (fp, quiet) = match pgas::Footprint::of_program(p, &ops, opts.width) {
            Some(fq) => fq,
            None => {
                let plain = pgas::Pgas::new(p, &ops, opts.width, Vec::new());
                match search::bfs(&plain, false, &budget(usize::MAX)) {
                    search::Outcome::Exhausted(seen) => {
                        (pgas::Footprint::collect(n, &seen), pgas::Quiet::default())
                    }
                    search::Outcome::Cut(why) => {
                        return finish(Verdict::Unknown(why), Stats::default())
                    }
                    search::Outcome::Found(..) => {
                        let why = "internal: a goal without marks".to_string();
                        return finish(Verdict::Unknown(why), Stats::default());
                    }
                }
            }
        };
        let related = |a: u32, b: u32| fp[a as usize].related(&fp[b as usize], a == b);
        let stop = |bytes| budget(usize::MAX).exceeded(0, bytes);
        let profiles = match profile::profiles(n, 1, &related, &stop) {
            Ok(p) => p,
            Err(why) => return finish(Verdict::Unknown(why), Stats::default()),
        };
        let stats = Stats {
            profiles: profiles.len(),
            ..Stats::default()
        };
        let run = run_profiles(&profiles, &found_at, |i, prof| {
            let mut a = pgas::Pgas::new(p, &ops, opts.width, prof.clone());
            a.fp = Some(fp.clone());
            a.quiet = quiet.clone();
            search::bfs(&a, true, &budget(i))
        });
        let verdict = match run {
            Ok(None) => Verdict::Robust,
            Ok(Some((i, steps, last))) => {
                let prof = profiles[i].iter().map(|&t| ThreadId(t)).collect();
                match pgas::witness(p, opts.width, prof, &steps, &last) {
                    Some(w) => Verdict::NotRobust(Box::new(w)),
                    None => replay_failed(),
                }
            }
            Err(why) => Verdict::Unknown(why),
        };
        return finish(verdict, stats);
    }
    let ops = program_class::classify(p, model)?;
    // Profiles whose neighbouring threads share no address have no hop.
    let foot: Vec<_> = ops
        .iter()
        .map(|o| program_class::Footprint::of(o, opts.width))
        .collect();
    let related = |a: u32, b: u32| match (&foot[a as usize], &foot[b as usize]) {
        (Some(x), Some(y)) => x.conflicts(y),
        _ => true,
    };
    if p.threads.len() > profile::MAX_PROFILE {
        return finish(too_many_threads(), Stats::default());
    }
    let stop = |bytes| budget(usize::MAX).exceeded(0, bytes);
    let profiles = match profile::profiles(p.threads.len(), 2, &related, &stop) {
        Ok(p) => p,
        Err(why) => return finish(Verdict::Unknown(why), Stats::default()),
    };
    let mut stats = Stats {
        profiles: profiles.len(),
        ..Stats::default()
    };
    let mut plain = automaton::Automaton::new(p, &ops, opts.width, model, Vec::new());
    plain.merge_locals = !opts.plain;
    let stored = program_class::stored_constants(&ops, opts.width).filter(|_| !opts.plain);
    let cands = match stored {
        Some(stored) => search::static_candidates(&plain, &stored),
        None => match search::close_candidates(&mut plain, &budget(usize::MAX)) {
            Ok(c) => c,
            Err(why) => return finish(Verdict::Unknown(why), stats),
        },
    };
    stats.candidates = cands.len();
    let tasks = tasks(&profiles, model, opts.plain);
    let run = run_profiles(&tasks, &found_at, |i, &(pi, dist)| {
        let prof = profiles[pi].clone();
        let mut a = automaton::Automaton::new(p, &ops, opts.width, model, prof);
        a.dist = dist;
        a.merge_locals = !opts.plain;
        a.cands = cands.clone();
        loop {
            match search::bfs(&a, true, &budget(i)) {
                // Marks change no value: the candidates are closed
                // already; a new value would mean another round.
                search::Outcome::Exhausted(w) if a.absorb(&w) => {}
                other => return other,
            }
        }
    });
    let verdict = match run {
        Ok(None) => Verdict::Robust,
        Ok(Some((i, steps, last))) => {
            let prof = profiles[tasks[i].0].iter().map(|&t| ThreadId(t)).collect();
            match witness_of(p, prof, &steps, &last) {
                Some(w) => Verdict::NotRobust(Box::new(w)),
                None => replay_failed(),
            }
        }
        Err(why) => Verdict::Unknown(why),
    };
    finish(verdict, stats)
}

/// The searches of the profiles: one per profile and distinguished thread
/// of it under the store-buffer models (`Automaton::successors`), one per
/// profile under RMO and Power and for the plain search (index of the
/// profile, distinguished thread).
fn tasks(profiles: &[Vec<u32>], model: Model, plain: bool) -> Vec<(usize, Option<usize>)> {
    profiles
        .iter()
        .enumerate()
        .flat_map(|(i, pr)| {
            let ds: Vec<Option<usize>> = if model.commits() || plain {
                vec![None]
            } else {
                pr.iter().map(|&d| Some(d as usize)).collect()
            };
            ds.into_iter().map(move |d| (i, d))
        })
        .collect()
}

fn too_many_threads() -> Verdict {
    Verdict::Unknown(format!(
        "more than {} threads: not every profile can be searched",
        profile::MAX_PROFILE
    ))
}

fn replay_failed() -> Verdict {
    Verdict::Unknown("internal: the computation found has no hb cycle when replayed".into())
}

/// A found witness: the profile's index, the steps and the last state.
type Found<S, St> = (usize, Vec<St>, Box<S>);

/// Runs `search(i, task)` for every task (a profile, with its
/// distinguished thread under the store-buffer models), one task per
/// search on the available cores (a search stops once an earlier task
/// found a witness, through `found_at`). `Ok(Some)`: the earliest task's
/// witness (the answer does not depend on the schedule); `Ok(None)`:
/// every search ended without one; `Err`: a search was cut by a limit.
fn run_profiles<T: Sync, S: Send, St: Send, K: Send>(
    profiles: &[T],
    found_at: &AtomicUsize,
    search: impl Fn(usize, &T) -> search::Outcome<S, St, K> + Sync,
) -> Result<Option<Found<S, St>>, String> {
    let results: Vec<search::Outcome<S, St, K>> = profiles
        .par_iter()
        .enumerate()
        .map(|(i, prof)| {
            let r = search(i, prof);
            if matches!(r, search::Outcome::Found(..)) {
                found_at.fetch_min(i, Ordering::Relaxed);
            }
            r
        })
        .collect();
    let mut unknown = None;
    for (i, r) in results.into_iter().enumerate() {
        match r {
            search::Outcome::Found(steps, last) => return Ok(Some((i, steps, last))),
            search::Outcome::Cut(why) if unknown.is_none() => unknown = Some(why),
            _ => {}
        }
    }
    match unknown {
        Some(why) => Err(why),
        None => Ok(None),
    }
}

fn witness_of(
    p: &Program,
    profile: Vec<ThreadId>,
    steps: &[automaton::Step],
    last: &automaton::State,
) -> Option<Witness> {
    let (execution, ids) = witness::execution(p, steps, last);
    let (cycle, _) = execution.hb_cycle();
    let cycle = cycle?;
    let computation = witness::computation_text(p, steps, &execution, &ids);
    Some(Witness::new(p, profile, execution, cycle, computation, 3))
}

impl Witness {
    /// The witness with its text: the cycle, the profile, the computation
    /// part by part (a normal form of `degree`) and the execution.
    fn new(
        p: &Program,
        profile: Vec<ThreadId>,
        execution: Execution,
        cycle: Cycle,
        computation: String,
        degree: u8,
    ) -> Witness {
        let names: Vec<&str> = profile.iter().map(|&t| p.thread_name(t)).collect();
        let text = format!(
            "  cycle: {}\n  profile: {}\n  computation (normal form of degree {degree}, parts in order):\n{}  execution:\n{}",
            execution.render_cycle(&cycle),
            names.join(" -> "),
            computation,
            execution.render(p)
        );
        Witness {
            profile,
            execution,
            cycle,
            computation,
            text,
        }
    }
}

impl From<&Report> for Answer {
    /// Robustness for every execution (the engine is unbounded); a
    /// violation carries its witness and its size in steps per thread.
    fn from(r: &Report) -> Answer {
        use crate::answer::Verdict as V;
        let mut a = match &r.verdict {
            Verdict::Robust => Answer::new(V::NoViolation, Scope::Complete),
            Verdict::NotRobust(w) => {
                let mut a = Answer::new(V::Violation, Scope::Complete);
                a.witness = Some(w.to_string());
                a
            }
            Verdict::Unknown(why) => {
                let mut a = Answer::new(V::Unknown, Scope::Complete);
                a.reason = Some(why.clone());
                a
            }
        };
        a.stats = vec![
            ("profiles", r.stats.profiles as u64),
            ("states", r.stats.states),
        ];
        if let Verdict::NotRobust(w) = &r.verdict {
            a.stats
                .push((STEPS_PER_THREAD, w.steps_per_thread() as u64));
        }
        a
    }
}
