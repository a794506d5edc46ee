//! Running litmus tests: every final state reachable under a model,
//! enumerated with the bounded engine (issue 8).
//!
//! For a test, the engine searches executions in which every thread has
//! terminated and the `filter` holds; each consistent execution gives a
//! final state (the values of the observed locations); a blocking clause
//! excludes that state and the search repeats until none is left. The
//! states, the condition and the quantifier give herd's `Ok`/`No` and
//! `Observation` ([`super::herd`]).

use super::herd::{self, Observation};
use super::LitmusTest;
use crate::cat::Model;
use crate::engine::{Deadline, Encoder, Stats};
use crate::program::{Expr, GExpr, Program, Width};
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
}

/// The narrowest width ≥ 8 that represents every constant and address of
/// the test as a signed value (litmus values are small; herd's are
/// unbounded integers, so arithmetic never wraps in practice).
pub fn auto_width(t: &LitmusTest) -> Width {
    let m = t.program.max_abs_constant();
    let mut w = 8;
    while w < 32 && m > (1i64 << (w - 1)) - 1 {
        w += 4;
    }
    Width(w)
}

/// The number of instructions on the longest path of `th`'s control
/// graph once the back edges of a depth-first search from the initial
/// state are removed (for a loop-free thread: its longest path; for a
/// thread with loops: the longest path that enters each loop body once).
pub fn loop_free_depth(th: &crate::program::Thread) -> u32 {
    let out = th.outgoing();
    let n = th.states.len();
    // Iterative DFS: colour 1 = on stack, 2 = done; depth[q] = longest
    // path from q in the DAG without back edges.
    let mut colour = vec![0u8; n];
    let mut depth = vec![0u32; n];
    let s0 = th.initial.0 as usize;
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

/// The unrolling bound used for `t`: `bound`, raised to the longest
/// loop-free path of a thread (herd executes loop-free code completely;
/// the bound only limits how often loops are unrolled).
pub fn effective_bound(t: &LitmusTest, bound: u32) -> u32 {
    t.program
        .threads
        .iter()
        .map(loop_free_depth)
        .fold(bound, u32::max)
}

/// Enumerates the final states of `t` under `model`, unrolling loops to
/// `bound` steps per thread (at least the longest loop-free path of each
/// thread, [`effective_bound`]).
pub fn run(
    t: &LitmusTest,
    model: &Model,
    bound: u32,
    width: Width,
    deadline: Deadline,
) -> LitmusResult {
    let start = Instant::now();
    let bound = effective_bound(t, bound);
    let obs: Vec<GExpr> = t.observed.iter().map(|l| Expr::Var(l.gvar())).collect();
    let e = enumerate_final(
        &t.program,
        model,
        bound,
        width,
        t.filter_expr.as_ref(),
        &obs,
        deadline,
    );
    finish(t, e, width, start)
}

/// [`run`] on the given solver backend.
///
/// Errors: the backend is not built in or cannot encode the model
/// ([`crate::backend::validate`]).
pub fn run_with(
    t: &LitmusTest,
    model: &Model,
    bound: u32,
    width: Width,
    deadline: Deadline,
    solver: crate::backend::SolverKind,
) -> Result<LitmusResult, crate::diag::Error> {
    if solver == crate::backend::SolverKind::Varisat {
        return Ok(run(t, model, bound, width, deadline));
    }
    let start = Instant::now();
    let obs: Vec<GExpr> = t.observed.iter().map(|l| Expr::Var(l.gvar())).collect();
    let e = crate::backend::enumerate_final(
        solver,
        &t.program,
        model,
        effective_bound(t, bound),
        width,
        t.filter_expr.as_ref(),
        &obs,
        deadline,
    )?;
    Ok(finish(t, e, width, start))
}

fn finish(t: &LitmusTest, e: FinalStates, width: Width, start: Instant) -> LitmusResult {
    let (mut states, unknown) = (e.states, e.unknown);
    states.sort_by(|a, b| t.compare_states(a, b));
    let observation = unknown.is_none().then(|| herd::observe(t, &states));
    LitmusResult {
        states,
        observation,
        unknown,
        time: start.elapsed().as_secs_f64(),
        width: width.0,
        stats: e.stats,
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
}

/// Enumerates, with the bounded engine, every distinct tuple of values of
/// `exprs` (over final registers and memory) in the executions of `prog`
/// consistent with `model` in which every thread has terminated within
/// `bound` steps and `filter` (if any) is nonzero. Values are read as
/// signed `width`-bit numbers.
///
/// Errors are reported in [`FinalStates::unknown`] (deadline reached);
/// the function does not panic on any program.
pub fn enumerate_final(
    prog: &Program,
    model: &Model,
    bound: u32,
    width: Width,
    filter: Option<&GExpr>,
    exprs: &[GExpr],
    deadline: Deadline,
) -> FinalStates {
    let mut enc = Encoder::new(prog, model, bound, width.0, false);
    let fin = enc.all_final();
    let mut goal = fin;
    if let Some(f) = filter {
        let v = enc.gexpr(f);
        let nz = enc.cnf.bv_nonzero(&v);
        goal = enc.cnf.and(fin, nz);
    }
    let obs: Vec<_> = exprs.iter().map(|e| enc.gexpr(e)).collect();
    let mut states = Vec::new();
    let mut unknown = None;
    loop {
        match enc.find(&[goal], deadline) {
            Ok(Some(_)) => {
                let vals: Vec<i64> = obs.iter().map(|b| enc.cnf.bv_value(b)).collect();
                let mut block = vec![!goal];
                for (b, v) in obs.iter().zip(&vals) {
                    for (k, bit) in b.iter().enumerate() {
                        block.push(if (v >> k) & 1 == 1 { !*bit } else { *bit });
                    }
                }
                states.push(vals);
                if block.len() == 1 {
                    // Nothing observed: one (empty) state.
                    break;
                }
                enc.cnf.clause(&block);
            }
            Ok(None) => break,
            Err(e) => {
                unknown = Some(e.to_string());
                break;
            }
        }
    }
    FinalStates {
        states,
        unknown,
        stats: enc.stats,
    }
}
