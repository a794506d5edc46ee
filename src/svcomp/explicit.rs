//! Complete answers for C programs whose loops do not end: the program
//! lowered with its loops kept as cycles ([`crate::frontend::c::Options::cyclic`])
//! and searched by the explicit-state SC engine
//! ([`crate::engines::explicit::sc_reach`]: breadth-first over the
//! program's reachable SC states with a visited set, so every cycle is
//! followed until it repeats a state).
//!
//! The search is exhaustive exactly when the reachable state space is
//! finite and fits the limits: a spin or retry loop `while (1) { … }`
//! over finitely many values then needs no unwinding bound, and "no
//! error call reachable" is a proof for the C program — provided the
//! lowering left nothing out: no goto loop or recursion was cut (those are
//! still unwound) and no loop inside an atomic section was cut. A loop
//! that may create threads is unwound too (the program's threads are
//! fixed), so a cut there also rules the proof out. A counter that grows
//! without bound makes the state space too large: the search stops at its
//! limits and says so ([`Searched::Unknown`]), never guesses; a
//! nondeterministic value of more than [`MAX_DRAW_BITS`] bits (any
//! `int`: the front-end draws it bit by bit) is refused at once.
//!
//! The semantics is that of the other engines (SC with the global lock;
//! an `Atomic` step, an atomic section, runs in one step), with
//! Trencher's reductions, which keep goal reachability: restricted SC
//! with locks when every goal is one thread's control state (the error
//! calls), and the reset of dead registers.

use crate::diag::{Error, SourceFile};
use crate::engines::explicit::{self, Limits, ReachVerdict, SearchOrder};
use crate::engines::smc::semantics::Step;
use crate::program::{Program, Width};
use std::time::Instant;

/// At most this many distinct states per search (then: unknown).
pub const MAX_STATES: usize = 20_000_000;

/// At most this much memory per search (bytes; then: unknown).
pub const MAX_MEMORY: usize = 1 << 30;

/// The unwinding of the cyclic lowering: loops run this many iterations
/// unrolled (with the front-end's constant propagation) before their
/// cycle.
pub const PEELED: u32 = 1;

/// A draw of more bits than this (one `__VERIFIER_nondet_*()` call,
/// [`widest_draw`]) makes [`search`] give up at once: the front-end draws
/// a value bit by bit, so a 32-bit value alone is 2^32 states.
pub const MAX_DRAW_BITS: usize = 16;

/// The bits of the widest nondeterministic draw of `p` when it has more
/// than [`MAX_DRAW_BITS`]: the choice states
/// ([`super::witness::nondet_choice`]) of one thread at one source
/// location (a call unrolled twice counts twice).
pub fn widest_draw(p: &crate::program::Program) -> Option<usize> {
    let mut most = 0usize;
    for th in &p.threads {
        let mut per: crate::collections::HashMap<usize, crate::collections::HashSet<u32>> =
            Default::default();
        let out = th.outgoing();
        for ins in &th.instrs {
            if super::witness::nondet_choice_among(th, &out[ins.from.0 as usize]).is_some() {
                per.entry(ins.span.start).or_default().insert(ins.from.0);
            }
        }
        most = most.max(per.values().map(|s| s.len()).max().unwrap_or(0));
    }
    (most > MAX_DRAW_BITS).then_some(most)
}

/// An execution of the cyclic program reaching an error call.
#[derive(Clone, Debug)]
pub struct Path {
    /// The cyclic program.
    pub program: Program,
    /// The goal reached (index into `program.goals`).
    pub goal: usize,
    /// The interleaving (SC: instructions only).
    pub steps: Vec<Step>,
    /// An unwinding whose program has this execution too: one more than
    /// the most times the execution runs one instruction (a loop cannot
    /// iterate more often than its condition runs).
    pub unwind: u32,
}

/// What [`search`] found.
#[derive(Clone, Debug)]
pub enum Searched {
    /// No error call is reachable, and the search was exhaustive over a
    /// program that left nothing out: a proof.
    Proof {
        /// Distinct states visited (with replicated threads: states of
        /// the counting abstraction's invariant).
        states: u64,
        /// Threads whose automaton has a cycle (a loop kept as one).
        cyclic_threads: usize,
        /// Threads created in loops that never end, proved for any
        /// number of copies ([`search_replicated`]); 0: none.
        replicated: usize,
    },
    /// An error call is reachable: the search's execution, as steps of
    /// the SMC engine's SC semantics on the cyclic program.
    Reachable(Box<Path>),
    /// No answer: a limit, a lowering that cut goto loops or recursion,
    /// or a construct the engine does not model (the reason).
    Unknown(String),
}

/// Searches the C program `src` (values of `width` bits, front-end
/// options `c` but for the unwinding and the cycles) for a reachable
/// error call until `deadline` (module doc).
///
/// Errors: the input cannot be read ([`Error::Io`]); every other problem
/// (a refusal of the front-end or of the engine, a limit) is
/// [`Searched::Unknown`].
pub fn search(
    src: &SourceFile,
    width: Width,
    c: &crate::frontend::c::Options,
    deadline: Option<Instant>,
) -> Result<Searched, Error> {
    if width.0 > 32 {
        return Ok(Searched::Unknown(format!(
            "the explicit-state search handles values of at most 32 bits, not {}",
            width.0
        )));
    }
    let mut c = c.clone();
    c.cyclic = true;
    c.unwind = PEELED;
    let l = match crate::frontend::c::lower_until(src, width, &c, deadline, false) {
        Ok(l) => l,
        Err(e @ Error::Io { .. }) => return Err(e),
        Err(e) => {
            let msg = e.to_string();
            let first = msg.lines().next().unwrap_or("").trim().to_string();
            return Ok(Searched::Unknown(first));
        }
    };
    if !l.cut_loops.is_empty() || l.unchecked_cut {
        if let Some(found) = search_replicated(src, width, &c, deadline)? {
            return Ok(found);
        }
        return Ok(Searched::Unknown(format!(
            "goto loops, recursion or loops creating threads or inside atomic sections were cut at lines {}",
            l.cut_loops
                .iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let p = l.program;
    if p.goals.is_empty() {
        return Ok(Searched::Unknown(
            "the program calls no error function".into(),
        ));
    }
    if let Some(too_wide) = too_wide(&p) {
        return Ok(too_wide);
    }
    let cyclic_threads = cyclic_threads(&p);
    let opts = search_options(width, deadline, true);
    let r = match explicit::sc_reach(&p, &opts) {
        Ok(r) => r,
        Err(e) => return Ok(Searched::Unknown(e.to_string())),
    };
    Ok(match r.verdict {
        ReachVerdict::Unreachable => Searched::Proof {
            states: r.stats.states_visited,
            cyclic_threads,
            replicated: 0,
        },
        ReachVerdict::Reachable(hit) => {
            let steps: Vec<Step> = hit
                .trace
                .iter()
                .map(|x| Step::Instr {
                    thread: x.thread.0,
                    instr: x.instr as u32,
                })
                .collect();
            let mut runs: crate::collections::HashMap<(u32, usize), u32> = Default::default();
            for x in &hit.trace {
                *runs.entry((x.thread.0, x.instr)).or_default() += 1;
            }
            let unwind = runs.values().copied().max().unwrap_or(0).saturating_add(1);
            Searched::Reachable(Box::new(Path {
                program: p,
                goal: hit.goal,
                steps,
                unwind: unwind.max(PEELED + 1),
            }))
        }
        ReachVerdict::Unknown(why) => Searched::Unknown(format!(
            "explicit-state search: {why} after {} states",
            r.stats.states_visited
        )),
    })
}

/// The search for a program whose loops creating threads never end: the
/// program lowered with those loops kept as cycles and their threads
/// replicated ([`crate::frontend::c::Options::replicate`]), decided for
/// any number of copies by the counting abstraction
/// ([`explicit::counting::counting_reach`]). `None` when that lowering
/// still cuts a loop or replicates no thread (the caller's reason
/// stands); an answer is a proof or unknown, never a violation (those
/// come with a fixed number of threads from the other engines).
///
/// Errors: the input cannot be read ([`Error::Io`]).
fn search_replicated(
    src: &SourceFile,
    width: Width,
    c: &crate::frontend::c::Options,
    deadline: Option<Instant>,
) -> Result<Option<Searched>, Error> {
    let mut c = c.clone();
    c.replicate = true;
    let l = match crate::frontend::c::lower_until(src, width, &c, deadline, false) {
        Ok(l) => l,
        Err(e @ Error::Io { .. }) => return Err(e),
        Err(_) => return Ok(None),
    };
    if !l.cut_loops.is_empty()
        || l.unchecked_cut
        || l.replicated.is_empty()
        || l.program.goals.is_empty()
    {
        return Ok(None);
    }
    let p = l.program;
    if let Some(too_wide) = too_wide(&p) {
        return Ok(Some(too_wide));
    }
    let opts = search_options(width, deadline, false);
    let cyclic_threads = cyclic_threads(&p);
    let r = match explicit::counting::counting_reach(&p, &l.replicated, &opts) {
        Ok(r) => r,
        Err(e) => return Ok(Some(Searched::Unknown(e.to_string()))),
    };
    Ok(Some(match r.verdict {
        explicit::counting::CountingVerdict::Unreachable => Searched::Proof {
            states: r.stats.states_visited,
            cyclic_threads,
            replicated: l.replicated.len(),
        },
        explicit::counting::CountingVerdict::Unknown(why) => Searched::Unknown(format!(
            "threads created in endless loops, counting abstraction: {why} after {} states",
            r.stats.states_visited
        )),
    }))
}

/// The unknown answer for a program with a nondeterministic draw wider
/// than [`MAX_DRAW_BITS`] ([`widest_draw`]), if it has one.
fn too_wide(p: &Program) -> Option<Searched> {
    widest_draw(p).map(|bits| {
        Searched::Unknown(format!(
            "a nondeterministic value of {bits} bits: too many states for the explicit-state search"
        ))
    })
}

/// The threads of `p` whose automaton has a cycle.
fn cyclic_threads(p: &Program) -> usize {
    (p.threads.iter())
        .filter(|t| crate::frontend::c::builder::longest_path(t).is_none())
        .count()
}

/// The explicit engines' options of both searches: breadth-first, dead
/// registers reset, the module's limits, the time left until `deadline`;
/// `restricted`: Trencher's restricted SC (not for the counting
/// abstraction, whose copies share one thread's slot).
fn search_options(width: Width, deadline: Option<Instant>, restricted: bool) -> explicit::Options {
    let now = Instant::now();
    explicit::Options {
        width,
        restricted,
        live_registers: true,
        order: SearchOrder::Bfs,
        limits: Limits {
            timeout: deadline.map(|d| d.saturating_duration_since(now)),
            max_states: Some(MAX_STATES),
            max_memory_bytes: Some(MAX_MEMORY),
        },
    }
}
