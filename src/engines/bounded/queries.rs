//! The bounded queries, written once over [`Backend`] / [`Session`]:
//!
//! * [`check`] runs `reach` (is a goal or assertion failure reachable in
//!   an execution consistent with the model, within the bound?) and
//!   `robust` (is there one whose happens-before po ∪ rf ∪ co ∪ fr is
//!   cyclic? thesis 003 §2.8, Lemma 2.16) on one encoding;
//! * [`enumerate_final`] lists every final state (litmus tests) by
//!   blocking each one found and solving again;
//! * [`reach_each`] decides every goal of a list separately (state
//!   robustness, `crate::engines::derived::state_robust`);
//! * [`replay`] checks that an execution found by any backend is one of
//!   the program, consistent with the model, within the bound.
//!
//! Witnesses are searched shortest first ([`solve_shortest`]).

use super::{
    backend, backend_enumerating, backend_with, Backend, CheckKind, CheckResult, Cond, Deadline,
    Execution, FinalStates, Limits, Query, Session, SolverKind, Stats, Verdict,
};
use crate::cat::Model;
use crate::diag::Error;
use crate::program::{GExpr, Program, ThreadId};
use std::time::Instant;

/// Checks that `solver` is built in and can encode `model` (once, before
/// a batch starts, so that nothing is half-printed).
///
/// Errors: the backend is not built in; a model construct its encoding
/// does not support.
pub fn validate(solver: SolverKind, model: &Model) -> Result<(), Error> {
    backend(solver, false)?.validate(model)
}

/// Runs the checks `kinds` on `prog` with `solver` (one encoding for all
/// of them); `eager` is varisat's `--eager`.
///
/// Errors: see [`validate`]; timeouts are `Unknown` verdicts, not errors.
pub fn check(
    solver: SolverKind,
    prog: &Program,
    model: &Model,
    lim: Limits,
    eager: bool,
    kinds: &[CheckKind],
) -> Result<Vec<CheckResult>, Error> {
    let q = Query {
        program: prog,
        model,
        limits: lim,
    };
    check_on(&*backend(solver, eager)?, &q, kinds)
}

/// In [`check_race`], the narrowed query answers unknown (and leaves the
/// race to the plain one) when more than this many escape edges survive
/// its probe (`Encoder::escape_yield`, docs/models.md).
pub const RACE_ESCAPE_YIELD: usize = 64;

/// [`check`] with the `robust` check's two hb-cycle queries (plain and
/// narrowed to shortest cycles, docs/models.md) raced on two threads:
/// the first answer that is not `unknown` wins and the other query is
/// cancelled ([`super::with_cancel`]; it stops at its next resource
/// check, the loser's thread may finish its current SAT call detached).
/// Both queries answer alike (the narrowing keeps the answer), so the
/// result is that of [`check`], sooner: the narrowed query is 10× faster
/// on some programs and 10× slower on others (docs/performance.md).
/// Falls back to [`check`] when there is nothing to race (no `robust`
/// among `kinds`, z3, PGAS programs, a model whose own axiom makes hb
/// acyclic).
///
/// Errors: those of [`check`] (of the first query to answer when both
/// fail).
pub fn check_race(
    solver: SolverKind,
    prog: &Program,
    model: &Model,
    lim: Limits,
    eager: bool,
    kinds: &[CheckKind],
) -> Result<Vec<CheckResult>, Error> {
    let pointless = !kinds.contains(&CheckKind::Robust)
        || solver == SolverKind::Z3
        || prog.nodes.is_some()
        || model.acyclic_contains_hb().is_some();
    if pointless {
        return check(solver, prog, model, lim, eager, kinds);
    }
    let jobs = [false, true].map(|shortest| {
        // The narrowed side leaves programs with many possible escape
        // edges (violations, mostly) to the plain one instead of sharing
        // the CPU with it.
        let give_up = shortest.then_some(RACE_ESCAPE_YIELD);
        move || backend_with(solver, eager, Some(shortest), give_up)
    });
    race(prog, model, lim, kinds, "hb-query", jobs).map(|(_, r)| r)
}

/// In [`check_race_solvers`], cdclt answers unknown (and leaves the race
/// to varisat) when its encoding has more clauses than this before its
/// propagator's tables are built ([`super::backend_yielding`]).
pub const RACE_CLAUSE_YIELD: usize = 500_000;

/// In [`check_race_solvers`], cdclt starts this long after varisat (a
/// head start: on a shared machine the race costs a second core only
/// for the queries that are not answered at once).
pub const RACE_CDCLT_DELAY: std::time::Duration = std::time::Duration::from_millis(500);

/// `reach` with the two backends of the same CNF, varisat (lazy
/// refinement between solves) and cdclt (the model as a theory inside
/// the search), raced on two threads like [`check_race`]: the first
/// answer that is not `unknown` wins, the other is cancelled. Neither
/// wins everywhere on the Nidhugg benchmarks (cdclt 2–30× faster on
/// `lamport`, varisat 5× faster on `indexer`, docs/performance.md) and no
/// rule on the program's shape separated them, so `--solver auto` (the
/// default for a single input) races them, cdclt starting
/// [`RACE_CDCLT_DELAY`] after varisat. The winner is named in
/// `Stats::solver` of each result. cdclt leaves encodings of more than
/// [`RACE_CLAUSE_YIELD`] clauses to varisat. Falls back to [`check`] with varisat
/// when `eager` (varisat only) or the program has PGAS nodes.
///
/// Errors: those of [`check`] (of the first backend to answer when both
/// fail).
pub fn check_race_solvers(
    prog: &Program,
    model: &Model,
    lim: Limits,
    eager: bool,
    kinds: &[CheckKind],
) -> Result<Vec<CheckResult>, Error> {
    if eager || prog.nodes.is_some() {
        return check(SolverKind::Varisat, prog, model, lim, eager, kinds);
    }
    let jobs = [SolverKind::Varisat, SolverKind::Cdclt].map(|k| {
        move || -> Result<Box<dyn Backend>, Error> {
            match k {
                SolverKind::Cdclt => {
                    // varisat's head start: quick answers never pay for
                    // a second encoding and a second core.
                    let start = Instant::now();
                    while start.elapsed() < RACE_CDCLT_DELAY {
                        lim.deadline.check()?;
                        std::thread::sleep(std::time::Duration::from_millis(5));
                    }
                    super::backend_yielding(k, RACE_CLAUSE_YIELD)
                }
                _ => backend(k, false),
            }
        }
    });
    let (winner, mut rs) = race(prog, model, lim, kinds, "reach-solver", jobs)?;
    let kind = [SolverKind::Varisat, SolverKind::Cdclt][winner];
    rs.iter_mut().for_each(|r| r.stats.solver = Some(kind));
    Ok(rs)
}

/// Runs [`check_on`] with each backend `jobs` builds, each on its own
/// thread (named `{name}-{i}`) with a cancel flag ([`super::with_cancel`]):
/// returns the index and results of the first that answers every check
/// (no `unknown`) and cancels the others (they stop at their next
/// resource check; a thread inside one long SAT call finishes it
/// detached). When none answers, the last one's results (its reason).
/// Without a second thread, the first backend on this one.
///
/// Errors: those of the backend's encoding (of the first to finish
/// when all fail).
fn race<F>(
    prog: &Program,
    model: &Model,
    lim: Limits,
    kinds: &[CheckKind],
    name: &str,
    jobs: [F; 2],
) -> Result<(usize, Vec<CheckResult>), Error>
where
    F: FnOnce() -> Result<Box<dyn Backend>, Error> + Send + 'static,
{
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{mpsc, Arc};
    let (prog, model) = (Arc::new(prog.clone()), Arc::new(model.clone()));
    let kinds = kinds.to_vec();
    let (tx, rx) = mpsc::channel();
    let flags: Vec<Arc<AtomicBool>> = (0..jobs.len())
        .map(|_| Arc::new(AtomicBool::new(false)))
        .collect();
    let mut spawned = 0;
    for (i, make) in jobs.into_iter().enumerate() {
        let (p, m, ks, tx, flag) = (
            prog.clone(),
            model.clone(),
            kinds.clone(),
            tx.clone(),
            flags[i].clone(),
        );
        let run = move || {
            super::with_cancel(flag, || {
                let q = Query {
                    program: &p,
                    model: &m,
                    limits: lim,
                };
                check_on(&*make()?, &q, &ks)
            })
        };
        if spawned < i {
            break;
        }
        let ok = std::thread::Builder::new()
            .name(format!("{name}-{i}"))
            .spawn(move || {
                let _ = tx.send((i, run()));
            });
        if ok.is_ok() {
            spawned += 1;
        }
    }
    drop(tx);
    if spawned == 0 {
        return Err(Error::Unknown("no thread for the query".into()));
    }
    let known = |r: &Result<Vec<CheckResult>, Error>| {
        r.as_ref()
            .is_ok_and(|v| v.iter().all(|x| x.verdict != Verdict::Unknown))
    };
    let mut last = None;
    for (i, r) in rx.iter() {
        if known(&r) {
            flags.iter().for_each(|f| f.store(true, Ordering::Relaxed));
            return r.map(|v| (i, v));
        }
        // Not known: the later one's reason (the narrowed query may have
        // given up early, leaving the race to the other).
        last = Some((i, r));
    }
    match last {
        Some((i, r)) => r.map(|v| (i, v)),
        None => Err(Error::Unknown("the racing queries stopped".into())),
    }
}

/// [`check`] on a given backend, deepening by encodings: each check is
/// first asked of the program unrolled to 2, 4, 8, … steps per thread
/// (a fresh, small session each, [`check_staged`]), and only the checks
/// no smaller unrolling answered reach the unrolling to the full bound.
/// The levels are those of [`solve_shortest`] and the answers the same
/// (computations are prefix-closed, so the unrolling to `m` steps has
/// exactly the executions of the full one in which every thread stops
/// before step `m`); what changes is the cost of a short witness: a
/// solve on a formula of `m` steps instead of `stop_before(m)` on the
/// full one (cubic in the bound). The statistics of an answer add up
/// its sessions' solves, refinements and times; the sizes (variables,
/// clauses, events) are those of the session that answered. PGAS
/// programs keep one session ([`check_on_one`]).
///
/// Errors: those of the backend's encoding.
pub fn check_on(
    b: &dyn Backend,
    q: &Query,
    kinds: &[CheckKind],
) -> Result<Vec<CheckResult>, Error> {
    if q.program.nodes.is_some() {
        return check_on_one(b, q, kinds);
    }
    check_staged(b, q, kinds)
}

/// [`check_on`] on one session at the full bound, deepening by
/// `stop_before` assumptions ([`solve_shortest`]): the lazy loop's lemmas
/// all refer to that one encoding (certificates, `certify::produce`).
///
/// Errors: those of the backend's encoding.
pub fn check_on_one(
    b: &dyn Backend,
    q: &Query,
    kinds: &[CheckKind],
) -> Result<Vec<CheckResult>, Error> {
    let mut out = Vec::new();
    // Each answer's time counts from here: the encoding included.
    let start = Instant::now();
    b.session(q, &mut |s| {
        let truncated = truncated_names(q, s.truncated());
        for &k in kinds {
            let mut res = CheckResult {
                truncated: truncated.clone(),
                ..CheckResult::new(k)
            };
            ask_one(s, q, k, &mut res, Deepen::Assumptions);
            res.time = start.elapsed().as_secs_f64();
            out.push(res);
        }
        Ok(())
    })?;
    Ok(out)
}

/// How a check searches for short witnesses first.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Deepen {
    /// [`solve_shortest`] on the session.
    Assumptions,
    /// One solve: the smaller levels were asked of smaller sessions.
    No,
}

/// The threads' names.
fn truncated_names(q: &Query, ts: Vec<ThreadId>) -> Vec<String> {
    ts.into_iter()
        .map(|t| q.program.thread_name(t).to_string())
        .collect()
}

/// Runs check `k` on session `s`, filling `res`.
fn ask_one(s: &mut dyn Session, q: &Query, k: CheckKind, res: &mut CheckResult, d: Deepen) {
    match k {
        CheckKind::Reach => reach(s, q, res, d),
        CheckKind::Robust => robust(s, q, res, d),
    }
}

/// The deepening levels of [`check_on`] below `bound`: 2, 4, 8, … (those
/// of [`solve_shortest`]).
pub fn stage_bounds(bound: u32) -> Vec<u32> {
    std::iter::successors(Some(2u32), |m| m.checked_mul(2))
        .take_while(|&m| m < bound)
        .collect()
}

/// The staged search of [`check_on`]: a session per level of
/// [`stage_bounds`], then the full bound, each asked only the checks
/// still open; at a level that cuts no thread's path
/// ([`Thread::cut_by`](crate::program::Thread::cut_by)) the unrolling is
/// the full one and answers every open check. An answer found below the
/// full bound reports the full bound's truncated threads.
fn check_staged(
    b: &dyn Backend,
    q: &Query,
    kinds: &[CheckKind],
) -> Result<Vec<CheckResult>, Error> {
    let start = Instant::now();
    let full_cut: Vec<ThreadId> = (0..q.program.threads.len())
        .map(|t| ThreadId(t as u32))
        .filter(|&t| q.program.threads[t.0 as usize].cut_by(q.limits.bound))
        .collect();
    let mut out: Vec<Option<CheckResult>> = vec![None; kinds.len()];
    let mut spent = vec![Stats::default(); kinds.len()];
    let levels = stage_bounds(q.limits.bound);
    for (li, &m) in levels.iter().chain([&q.limits.bound]).enumerate() {
        if out.iter().all(Option::is_some) {
            break;
        }
        let last = li == levels.len();
        let mut sub = *q;
        sub.limits.bound = m;
        b.session(&sub, &mut |s| {
            // The full unrolling when every thread ends within `m` steps.
            let whole = last || !q.program.threads.iter().any(|t| t.cut_by(m));
            for (i, &k) in kinds.iter().enumerate() {
                if out[i].is_some() {
                    continue;
                }
                let mut res = CheckResult::new(k);
                ask_one(s, q, k, &mut res, Deepen::No);
                add_stats(&mut res.stats, &spent[i]);
                spent[i] = res.stats.clone();
                if whole || res.verdict != Verdict::NoViolation || res.reason.is_some() {
                    res.truncated = truncated_names(q, full_cut.clone());
                    res.time = start.elapsed().as_secs_f64();
                    out[i] = Some(res);
                }
            }
            Ok(())
        })?;
    }
    Ok(out.into_iter().flatten().collect())
}

/// Adds the counts and times of `earlier` sessions to `s` (the sizes stay
/// those of `s`).
fn add_stats(s: &mut Stats, earlier: &Stats) {
    s.solves += earlier.solves;
    s.refinements += earlier.refinements;
    s.solve_time += earlier.solve_time;
    s.check_time += earlier.check_time;
    s.candidates += earlier.candidates;
}

/// `reach`: is some goal reachable? One (shortest-first) search for the
/// disjunction of all goals, so that a violation of a later goal is not
/// found only after every earlier one was proved unreachable at each
/// deepening level (`stack_unsafe` of the Nidhugg benchmarks); the answer
/// names the first goal, in declaration order, that holds in the
/// witness. Fills `res`.
fn reach(s: &mut dyn Session, q: &Query, res: &mut CheckResult, d: Deepen) {
    if q.program.goals.is_empty() {
        res.reason = Some("the program declares no goal or assertion".into());
        res.stats = s.stats();
        return;
    }
    let goals: Vec<Cond> = (0..q.program.goals.len()).map(|g| s.goal(g)).collect();
    let any = s.any_of(&goals);
    match deepen(s, &[any], q.limits.deadline, d) {
        Ok(true) => {
            res.verdict = Verdict::Violation;
            res.goal = Some(goals.iter().position(|&c| s.holds(c)).unwrap_or(0));
            res.witness = Some(s.execution());
        }
        Ok(false) => res.verdict = Verdict::NoViolation,
        Err(e) => {
            res.verdict = Verdict::Unknown;
            res.reason = Some(e.to_string());
        }
    }
    res.stats = s.stats();
}

/// `robust`: an execution consistent with the model whose hb is cyclic;
/// fills `res`. A model whose own axiom makes po ∪ rf ∪ co ∪ fr acyclic
/// answers without solving (not for PGAS, whose hb is taken on the trace,
/// thesis §8.2, which `acyclic po | com` does not cover).
fn robust(s: &mut dyn Session, q: &Query, res: &mut CheckResult, d: Deepen) {
    let pgas = q.program.nodes.is_some();
    if let Some(ax) = q.model.acyclic_contains_hb().filter(|_| !pgas) {
        res.reason = Some(format!(
            "the model's axiom `{ax}` makes po ∪ rf ∪ co ∪ fr acyclic in every execution"
        ));
        return;
    }
    let c = s.hb_cycle();
    match deepen(s, &[c], q.limits.deadline, d) {
        Ok(true) => {
            let x = s.execution();
            res.set_cycle_witness(x, pgas);
        }
        Ok(false) => res.verdict = Verdict::NoViolation,
        Err(e) => {
            res.verdict = Verdict::Unknown;
            res.reason = Some(e.to_string());
        }
    }
    res.stats = s.stats();
}

/// `robust` along given thread paths: is there an execution in which
/// thread `t` executes exactly `paths[t]` (instruction indices, one per
/// step; e.g. the explicit engine's TSO witness, thesis 003 §6.2) that
/// is consistent with the model and has a cyclic hb? One solve; `Ok(Some)`
/// is a violation with its witness (found by `b`, so it replays like any
/// other), `Ok(None)` means "not along these paths" (the full query must
/// still run: no conclusion about the program).
///
/// Errors: those of the backend's encoding; a deadline passed is
/// `Ok(None)`.
pub fn robust_along(
    b: &dyn Backend,
    q: &Query,
    paths: &[Vec<usize>],
) -> Result<Option<CheckResult>, Error> {
    let mut out = None;
    b.session(q, &mut |s| {
        let start = Instant::now();
        let Ok(mut conds) = s.follow(paths) else {
            return Ok(());
        };
        conds.push(s.hb_cycle());
        if let Ok(true) = s.solve(&conds, q.limits.deadline) {
            let mut res = CheckResult::new(CheckKind::Robust);
            res.set_cycle_witness(s.execution(), q.program.nodes.is_some());
            res.stats = s.stats();
            res.time = start.elapsed().as_secs_f64();
            out = Some(res);
        }
        Ok(())
    })?;
    Ok(out)
}

/// The answer of [`reach_each`] for one goal.
#[derive(Clone, Debug)]
pub enum GoalAnswer {
    /// Reachable within the bound; the (shortest-first) witness.
    Reachable(Box<Execution>),
    /// Not reachable within the bound.
    Unreachable,
    /// A limit was reached first; why.
    Unknown(String),
}

/// Decides each goal of `goals` (indices into `Program::goals`) separately
/// on one encoding of `q` (unlike `reach`, which stops at the first goal
/// reached): per goal, is it reachable within the bound, with a witness.
/// Once the deadline passes, the remaining goals are `Unknown`.
///
/// Errors: those of the backend's encoding (see [`validate`]).
pub fn reach_each(
    solver: SolverKind,
    q: &Query,
    goals: &[usize],
) -> Result<Vec<GoalAnswer>, Error> {
    let mut out = Vec::with_capacity(goals.len());
    backend(solver, false)?.session(q, &mut |s| {
        for &g in goals {
            let c = s.goal(g);
            out.push(match solve_shortest(s, &[c], q.limits.deadline) {
                Ok(true) => GoalAnswer::Reachable(Box::new(s.execution())),
                Ok(false) => GoalAnswer::Unreachable,
                Err(e @ Error::Unknown(_)) => GoalAnswer::Unknown(e.to_string()),
                Err(e) => return Err(e),
            });
        }
        Ok(())
    })?;
    Ok(out)
}

/// [`solve_shortest`] or one [`Session::solve`], as `d` says.
fn deepen(
    s: &mut dyn Session,
    assumptions: &[Cond],
    deadline: Deadline,
    d: Deepen,
) -> Result<bool, Error> {
    match d {
        Deepen::Assumptions => solve_shortest(s, assumptions, deadline),
        Deepen::No => s.solve(assumptions, deadline),
    }
}

/// Like [`Session::solve`], but first with every thread limited to 2, 4,
/// 8, … steps (iterative deepening), so that witnesses are short; then
/// with the full bound.
///
/// Errors: see [`Session::solve`].
pub fn solve_shortest(
    s: &mut dyn Session,
    assumptions: &[Cond],
    deadline: Deadline,
) -> Result<bool, Error> {
    let mut m = 2usize;
    while m < s.depth() {
        let mut a = assumptions.to_vec();
        a.push(s.stop_before(m));
        if s.solve(&a, deadline)? {
            return Ok(true);
        }
        m *= 2;
    }
    s.solve(assumptions, deadline)
}

/// Enumerates, with `solver`, every distinct tuple of values of `exprs`
/// (over final registers and memory) in the executions of `prog`
/// consistent with `model` in which every thread has terminated within
/// the bound and `filter` (if any) is nonzero. Values are read as signed
/// W-bit numbers.
///
/// Errors: see [`validate`]; a deadline reached is reported in
/// [`FinalStates::unknown`] (the states found so far are kept).
pub fn enumerate_final(
    solver: SolverKind,
    q: &Query,
    filter: Option<&GExpr>,
    exprs: &[GExpr],
) -> Result<FinalStates, Error> {
    enumerate_final_with(solver, None, q, filter, exprs)
}

/// [`enumerate_final`] where the backend may visit the candidate
/// executions directly when there are at most `budget` of them
/// ([`Session::enumerate_observed`], [`backend_enumerating`]; same
/// states, in another order); `None`: one solve per state.
///
/// Errors: see [`enumerate_final`].
pub fn enumerate_final_with(
    solver: SolverKind,
    budget: Option<usize>,
    q: &Query,
    filter: Option<&GExpr>,
    exprs: &[GExpr],
) -> Result<FinalStates, Error> {
    let b = backend_enumerating(solver, budget)?;
    enumerate_final_on(&*b, q, (filter, exprs), false)
}

/// [`enumerate_final`] on backend `b` (e.g. the certifying one,
/// `certify::produce`): the session's direct enumeration when it has
/// one ([`Session::enumerate_observed`]), else blocks each final state
/// found and solves again until unsatisfiable. `close`: after a direct
/// enumeration, that last query is solved too, with every state found
/// blocked (the query a certificate proves unsatisfiable; a state the
/// solver still finds is added, and the flags are then decided as after
/// solving); not when nothing is observed and a state was found (the
/// enumeration has no last query then).
///
/// Errors: see [`enumerate_final`].
pub fn enumerate_final_on(
    b: &dyn Backend,
    q: &Query,
    (filter, exprs): (Option<&GExpr>, &[GExpr]),
    close: bool,
) -> Result<FinalStates, Error> {
    let mut out = None;
    b.session(q, &mut |s| {
        let goal = s.final_state(filter);
        s.observe(exprs);
        let mut states = Vec::new();
        let mut unknown = None;
        // The direct enumeration's flags, and how many states it found.
        let mut enumerated = None;
        match s.enumerate_observed(goal, q.limits.deadline) {
            Some(Ok((found, flags))) if !close || (exprs.is_empty() && !found.is_empty()) => {
                out = Some(FinalStates {
                    states: found,
                    unknown,
                    stats: s.stats(),
                    flags: Some(flags),
                });
                return Ok(());
            }
            Some(Ok((found, flags))) => {
                for vals in &found {
                    s.exclude_observed(goal, vals);
                }
                enumerated = Some((found.len(), flags));
                states = found;
            }
            Some(Err(e @ Error::Unknown(_))) => {
                out = Some(FinalStates {
                    states,
                    unknown: Some(e.to_string()),
                    stats: s.stats(),
                    flags: None,
                });
                return Ok(());
            }
            Some(Err(e)) => return Err(e),
            None => {}
        }
        loop {
            match s.solve(&[goal], q.limits.deadline) {
                Ok(true) => {
                    if let Some(e) = s.thin_air() {
                        return Err(e);
                    }
                    let vals = s.observed();
                    states.push(vals.clone());
                    if exprs.is_empty() {
                        // Nothing observed: one (empty) state.
                        break;
                    }
                    s.exclude_observed(goal, &vals);
                }
                Ok(false) => break,
                Err(e @ Error::Unknown(_)) => {
                    unknown = Some(e.to_string());
                    break;
                }
                Err(e) => return Err(e),
            }
        }
        // The solver visits some executions only: flags are decided
        // when the model has none, or when none holds on any candidate.
        let flags = match enumerated {
            Some((n, flags)) if n == states.len() && unknown.is_none() => Some(flags),
            _ => {
                let decided = q.model.flags.is_empty() || s.flags_never_hold();
                decided.then(super::Flags::default)
            }
        };
        out = Some(FinalStates {
            states,
            unknown,
            stats: s.stats(),
            flags,
        });
        Ok(())
    })?;
    out.ok_or_else(|| Error::Unknown("the backend ran no session".into()))
}

/// Replays an execution found by some backend on `solver`: `Ok(Ok(()))`
/// when it is an execution of `prog` consistent with `model` within
/// `bound`, `Ok(Err(why))` when it is not (or cannot be mapped onto this
/// backend's unrolling).
///
/// Errors: see [`validate`]; the deadline passing.
pub fn replay(
    solver: SolverKind,
    prog: &Program,
    model: &Model,
    lim: Limits,
    x: &Execution,
) -> Result<Result<(), String>, Error> {
    let q = Query {
        program: prog,
        model,
        limits: lim,
    };
    let mut out = Ok(());
    backend(solver, false)?.session(&q, &mut |s| {
        out = match s.pin(x) {
            // An encoding cut short by the deadline has no steps to pin:
            // that is an unknown, not a rejected witness.
            Err(why) => {
                lim.deadline.check()?;
                Err(why)
            }
            Ok(pins) if s.solve(&pins, lim.deadline)? => Ok(()),
            Ok(_) => Err("not an execution consistent with the model".into()),
        };
        Ok(())
    })?;
    Ok(out)
}
