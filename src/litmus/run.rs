//! Running litmus tests: every final state reachable under a model,
//! enumerated by a bounded backend ([`crate::engines::bounded::enumerate_final`]),
//! with herd's conventions for the bound (loop-free code runs to the end)
//! and the width.
//!
//! The states, the condition and the quantifier give herd's `Ok`/`No` and
//! `Observation` ([`super::herd`]).

use super::herd::{self, Observation};
use crate::cat::Model;
use crate::diag::Error;
use crate::engines::bounded::varisat::enumerate::DEFAULT_BUDGET;
use crate::engines::bounded::{
    backend, enumerate_final_with, Deadline, FinalStates, Limits, Query, SolverKind, Stats,
};
use crate::engines::Switches;
use crate::frontend::litmus::{Arch, LitmusTest};
use crate::program::concrete::concrete_prefix;
use crate::program::{GExpr, StateId, Thread, Width};
use std::time::Instant;

/// The result of one litmus test.
#[derive(Clone, Debug)]
pub struct LitmusResult {
    /// All reachable final states (values of the observed locations).
    pub states: Vec<Vec<i64>>,
    /// herd's observation (None when unknown).
    pub observation: Option<Observation>,
    /// Why the answer is unknown (timeout).
    pub unknown: Option<String>,
    /// Seconds.
    pub time: f64,
    /// The width used.
    pub width: u32,
    /// Engine statistics.
    pub stats: Stats,
    /// herd's flags over the consistent executions, when decided
    /// ([`crate::engines::bounded::FinalStates::flags`]).
    pub flags: Option<crate::engines::bounded::Flags>,
}

impl LitmusResult {
    /// This result as an [`Answer`](crate::answer::Answer): a violation
    /// when some final state satisfies the condition's proposition
    /// (herd's `Sometimes` or `Always`), none when no state does
    /// (`Never`), unknown with the reason when the enumeration stopped; a
    /// "no violation" holds up to `bound` steps per thread (the
    /// effective bound, [`effective_bound`]).
    pub fn answer(&self, bound: u32) -> crate::answer::Answer {
        use crate::answer::{Answer, Scope, Verdict};
        let verdict = match self.observation {
            None => Verdict::Unknown,
            Some(Observation::Never) => Verdict::NoViolation,
            Some(Observation::Sometimes | Observation::Always) => Verdict::Violation,
        };
        let mut a = Answer::new(verdict, Scope::Bound(bound));
        a.reason = self.unknown.clone();
        a.stats = vec![("states", self.states.len() as u64)];
        a
    }
}

/// The model herd means by `model` for this test: the built-in `sc` is
/// `sc-instr` (po between instructions only: an atomic instruction's read
/// and write are unordered) on AArch64 tests, as herd7's sc.cat behaves
/// there (on RISC-V herd orders an AMO's read before its write); any other
/// model is itself.
///
/// Errors: the test has a byte-addressed location accessed by two threads
/// ([`LitmusTest::shared_bytes`]) and the model does not read `si`; the
/// test has a load or store pair and two threads
/// ([`LitmusTest::pair_access`]) and the model is not the built-in
/// `aarch64.cat`.
pub fn herd_model<'m>(t: &LitmusTest, model: &'m Model) -> Result<&'m Model, Error> {
    static SC_INSTR: std::sync::OnceLock<Model> = std::sync::OnceLock::new();
    if let Some(e) = &t.shared_bytes {
        if !model.uses(crate::cat::base::BaseRel::Si) {
            return Err(e.clone());
        }
    }
    if let Some(e) = &t.pair_access {
        if &*model.source.path != "encodings/aarch64.cat" {
            return Err(e.clone());
        }
    }
    let is_sc = &*model.source.path == "encodings/sc.cat";
    if !is_sc || t.arch != Arch::AArch64 {
        return Ok(model);
    }
    if SC_INSTR.get().is_none() {
        let m = crate::cat::builtin("sc-instr")?;
        let _ = SC_INSTR.set(m);
    }
    Ok(SC_INSTR.get().expect("set above"))
}

/// The narrowest width ≥ 8 that represents every constant and address of
/// the test as a signed value, up to 32 bits; 64 bits for constants beyond
/// 32 bits unsigned (litmus values are small; herd's are
/// unbounded integers, so arithmetic never wraps in practice).
pub fn auto_width(t: &LitmusTest) -> Width {
    let m = t.program.max_abs_constant();
    let mut w = 8;
    while w < 32 && (m > Width(w).max() || w < t.min_width.0) {
        w += 4;
    }
    // Beyond 32 bits (an unsigned 32-bit constant still runs at 32 bits,
    // where 32-bit operations wrap as herd's do): 64 bits.
    if m as u64 > Width(32).umax() || t.min_width.0 >= 64 {
        w = 64;
    }
    Width(w)
}

/// The number of instructions on the longest path of `th`'s control
/// graph once the back edges of a depth-first search from the initial
/// state are removed (for a loop-free thread: its longest path; for a
/// thread with loops: the longest path that enters each loop body once).
pub fn loop_free_depth(th: &Thread) -> u32 {
    loop_free_depth_from(th, th.initial)
}

/// [`loop_free_depth`] from control state `from` instead of the initial
/// one.
pub fn loop_free_depth_from(th: &Thread, from: StateId) -> u32 {
    let out = th.outgoing();
    let n = th.states.len();
    // Iterative DFS: colour 1 = on stack, 2 = done; depth[q] = longest
    // path from q in the DAG without back edges.
    let mut colour = vec![0u8; n];
    let mut depth = vec![0u32; n];
    let s0 = from.0 as usize;
    if s0 >= n {
        return 0;
    }
    let mut stack: Vec<(usize, usize)> = vec![(s0, 0)];
    colour[s0] = 1;
    while let Some(&mut (q, ref mut k)) = stack.last_mut() {
        if *k < out[q].len() {
            let to = th.instrs[out[q][*k]].to.0 as usize;
            *k += 1;
            if to < n && colour[to] == 0 {
                colour[to] = 1;
                stack.push((to, 0));
            }
        } else {
            colour[q] = 2;
            stack.pop();
            depth[q] = out[q]
                .iter()
                .map(|&i| th.instrs[i].to.0 as usize)
                // Targets still on the stack are back edges (loops).
                .filter(|&to| to < n && colour[to] == 2)
                .map(|to| depth[to] + 1)
                .max()
                .unwrap_or(0);
        }
    }
    depth[s0]
}

/// The number of instructions a thread may need: its concrete prefix
/// ([`concrete_prefix`]) followed by the longest loop-free path from
/// where that prefix stops (0 when the prefix is too long).
pub fn concrete_depth(th: &Thread, w: Width) -> u32 {
    match concrete_prefix(th, w) {
        Some((steps, q)) => steps + loop_free_depth_from(th, q),
        None => 0,
    }
}

/// The unrolling bound used for `t`: `bound`, raised to the longest
/// loop-free path of a thread (herd executes loop-free code completely;
/// the bound only limits how often loops are unrolled) and to the length
/// of a thread's run on concrete values ([`concrete_depth`]: herd runs
/// loops on constants to their end).
pub fn effective_bound(t: &LitmusTest, bound: u32) -> u32 {
    let w = auto_width(t);
    t.program
        .threads
        .iter()
        .map(|th| loop_free_depth(th).max(concrete_depth(th, w)))
        .fold(bound, u32::max)
}

/// Enumerates the final states of `t` under `model` with `solver`,
/// unrolling loops to `bound` steps per thread (at least the longest
/// loop-free path of each thread, [`effective_bound`]); tests with at
/// most [`DEFAULT_BUDGET`] candidate executions are answered by visiting
/// them ([`run_with`]).
///
/// Errors: the backend is not built in or cannot encode the model
/// ([`crate::engines::bounded::validate`]).
pub fn run(
    t: &LitmusTest,
    model: &Model,
    bound: u32,
    width: Width,
    deadline: Deadline,
    solver: SolverKind,
) -> Result<LitmusResult, Error> {
    let lim = Limits {
        bound,
        width: width.0,
        deadline,
        switches: Switches::default(),
    };
    run_with(t, model, lim, solver, Some(DEFAULT_BUDGET))
}

/// Refuses `t` when a consistent execution under `model` within `lim`
/// reaches one of its [`LitmusTest::address_probes`]: an access at an
/// integer address, which herd7 refuses ("Non symbolic address"; herd
/// answers the test when only executions its model forbids make the
/// access, as herd's own tests A260/A262 show).
///
/// Errors: the located refusal; the backend's errors, [`Error::Unknown`]
/// at the deadline.
fn refuse_integer_addresses(
    t: &LitmusTest,
    model: &Model,
    lim: Limits,
    solver: SolverKind,
) -> Result<(), Error> {
    if t.address_probes.is_empty() {
        return Ok(());
    }
    // One encoding, one goal per probe, solved in turn.
    let mut program = t.program.clone();
    program.goals = t.address_probes.iter().map(|p| p.goal.clone()).collect();
    let q = Query {
        program: &program,
        model,
        limits: lim,
    };
    let mut made = None;
    backend(solver, false)?.session(&q, &mut |s| {
        for i in 0..program.goals.len() {
            let g = s.goal(i);
            if s.solve(&[g], lim.deadline)? {
                made = Some(i);
                break;
            }
        }
        Ok(())
    })?;
    let Some(i) = made else {
        return Ok(());
    };
    let msg = "access at an integer address (a value that is no location's address is dereferenced in an execution the model allows)";
    let help = "herd7 refuses the test too (\"Non symbolic address\"); see docs/litmus.md";
    Err(match &t.program.source {
        Some(src) => src.error_help(t.address_probes[i].span, msg, help),
        None => Error::Unsupported(msg.into()),
    })
}

/// [`run`] with the limits given as one value (`lim.bound` before
/// [`effective_bound`]; the query's developer switches) and the
/// enumeration engine's budget: the varisat backend visits the candidate
/// executions directly when there are at most `budget` of them and
/// otherwise solves once per final state
/// (`crate::engines::bounded::varisat::enumerate`); `None`: always solve.
/// Same states either way.
///
/// Errors: see [`run`].
pub fn run_with(
    t: &LitmusTest,
    model: &Model,
    lim: Limits,
    solver: SolverKind,
    budget: Option<usize>,
) -> Result<LitmusResult, Error> {
    run_by(t, model, (lim, solver), &mut |q, filter, obs| {
        enumerate_final_with(solver, budget, q, filter, obs)
    })
}

/// How [`run_by`] enumerates the final states of a query: the filter and
/// the observed expressions given.
pub type Enumerate<'e> =
    dyn FnMut(&Query, Option<&GExpr>, &[GExpr]) -> Result<FinalStates, Error> + 'e;

/// [`run_with`] with the enumeration done by `enumerate` (e.g. with
/// certificates, `engines::bounded::certify::produce::final_states`);
/// `solver` decides the refusal of integer addresses. The states
/// `enumerate` returns (values of the observed locations, signed W-bit)
/// are typed, sorted and deduplicated as printed.
///
/// Errors: see [`run`]; those of `enumerate`.
pub fn run_by(
    t: &LitmusTest,
    model: &Model,
    (lim, solver): (Limits, SolverKind),
    enumerate: &mut Enumerate,
) -> Result<LitmusResult, Error> {
    let start = Instant::now();
    let model = herd_model(t, model)?;
    let lim = Limits {
        bound: effective_bound(t, lim.bound),
        ..lim
    };
    refuse_integer_addresses(t, model, lim, solver)?;
    let obs: Vec<GExpr> = t.observed.iter().map(|l| l.expr()).collect();
    let q = Query {
        program: &t.program,
        model,
        limits: lim,
    };
    let e = enumerate(&q, t.filter_expr.as_ref(), &obs)?;
    let (mut states, unknown) = (e.states, e.unknown);
    // Values in the locations' types (herd's `int` registers: 32 bits);
    // addresses stay addresses.
    for s in &mut states {
        for (i, l) in t.observed.iter().enumerate() {
            if let Some(v) = s.get_mut(i) {
                if !(l.holds_address && t.addr_text(*v).is_some()) {
                    *v = l.typed(*v);
                }
            }
        }
    }
    states.sort_by(|a, b| t.compare_states(a, b));
    // States that differ only in filter-only locations print alike.
    let mut seen = std::collections::HashSet::new();
    states.retain(|s| seen.insert(t.state_line(s)));
    let observation = unknown.is_none().then(|| herd::observe(t, &states));
    Ok(LitmusResult {
        states,
        observation,
        unknown,
        time: start.elapsed().as_secs_f64(),
        width: lim.width,
        stats: e.stats,
        flags: e.flags,
    })
}
