//! Lazy TSO reachability (Bouajjani, Calin, Derevenetc, Meyer: "Lazy TSO
//! Reachability", FASE 2015; `shared/seeds/000_…`): Algorithm 1 with the
//! robustness-based oracle of §4.
//!
//! R := P; loop: if a goal is SC-reachable in R ([`sc_reach`]), it is
//! TSO-reachable in P; else ask the oracle ([`check_robustness`] on R): a
//! robust R has the same SC- and TSO-reachable states, so no goal is
//! TSO-reachable; otherwise the witness' attacker path σ = inst_1 … inst_n
//! (delayed store … overtaking load) is emulated under SC by the
//! extension R ⊕ σ (§3) and the loop repeats.
//!
//! R ⊕ σ for thread t: inst_1 is removed; fresh states q̄_1 … q̄_n follow
//! σ with the stores kept in auxiliary registers `lJ.arK`/`lJ.vrK`
//! (address, value) and loads reading the latest matching auxiliary store
//! or else memory; out of q̄_n the buffered stores are recreated in order
//! (real stores) and the thread returns to dst(inst_n); out of q̄_{i−1}
//! every other instruction of src(inst_i) is taken after recreating the
//! stores buffered so far; before every load inst_i (and out of q̄_1) the
//! first store is recreated and fenced, the others recreated, and the
//! thread returns to src(inst_i) (dst(inst_1) out of q̄_1). The extension
//! neither adds nor removes TSO-reachable states (Lemma 1) and the oracle
//! cannot return the same path again (Lemma 2).
//!
//! A semi-decision procedure: it halts when a goal is reachable (with a
//! TSO computation of P, replayed on [`super::tso`]); for programs with
//! loops it may refine forever, so `max_refinements` and the deadline end
//! it with "unknown". Goals that read memory are not supported.

use super::kround::Answer;
use super::tso::{check_witness, TsoStep};
use super::{unsupported, ReachError};
use crate::engines::explicit::{check_robustness, sc_reach, Options, ReachVerdict, Robustness};
use crate::program::buffers::reads_memory;
use crate::program::{
    BinOp, Command, Expr, Fence, Instr, LExpr, Program, RegId, StateId, ThreadId, UnOp,
};
use std::time::Instant;

/// What an instruction of R stands for in P (to map an SC computation of R
/// to a TSO computation of P).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Meaning {
    /// The instruction of P it issues (a TSO instruction step), if any.
    issue: Option<usize>,
    /// A real store of R whose write to memory is a flush of P's buffer.
    flushes: bool,
}

/// Options of [`lazy_reach`].
#[derive(Clone, Debug)]
pub struct LazyOptions {
    /// Width and per-search limits of the SC and robustness searches.
    pub explicit: Options,
    /// Most refinements (extensions of R); `None` = unbounded.
    pub max_refinements: Option<u32>,
    /// Wall-clock deadline of the whole run.
    pub deadline: Option<Instant>,
}

/// Result of [`lazy_reach`].
#[derive(Clone, Debug)]
pub struct LazyResult {
    /// The answer for P.
    pub answer: Answer,
    /// Refinements made (extensions of R).
    pub refinements: u32,
    /// States visited by all SC and robustness searches.
    pub states: u64,
}

struct Ext<'a> {
    r: &'a mut Program,
    meanings: &'a mut Vec<Vec<Meaning>>,
    t: usize,
    iter: u32,
}

impl Ext<'_> {
    fn state(&mut self, base: &str) -> StateId {
        let th = &mut self.r.threads[self.t];
        let mut n = base.to_string();
        while self
            .r
            .names
            .get(&n)
            .is_some_and(|s| th.find_state(s).is_some())
        {
            n.push('\'');
        }
        let s = self.r.names.intern(&n);
        th.state(s)
    }
    fn reg(&mut self, base: &str) -> RegId {
        let th = &mut self.r.threads[self.t];
        let mut n = base.to_string();
        while self
            .r
            .names
            .get(&n)
            .is_some_and(|s| th.find_reg(s).is_some())
        {
            n.push('\'');
        }
        let s = self.r.names.intern(&n);
        th.reg(s)
    }
    fn add(&mut self, from: StateId, to: StateId, cmd: Command, m: Meaning) {
        let span = self.r.threads[self.t].span;
        self.r.threads[self.t].instrs.push(Instr {
            from,
            to,
            cmd,
            span,
        });
        self.meanings[self.t].push(m);
    }
    /// Recreates the buffered stores `aux` in order from `from`, fencing
    /// after the first if `fence_first`, then runs `last` (or nothing) to
    /// `to`.
    fn recreate(
        &mut self,
        from: StateId,
        to: StateId,
        aux: &[(RegId, RegId)],
        fence_first: bool,
        last: Option<(Command, Meaning)>,
    ) {
        let none = Meaning {
            issue: None,
            flushes: false,
        };
        let mut steps: Vec<(Command, Meaning)> = Vec::new();
        for (k, (ar, vr)) in aux.iter().enumerate() {
            steps.push((
                Command::Store {
                    addr: Expr::Var(*ar),
                    value: Expr::Var(*vr),
                },
                Meaning {
                    issue: None,
                    flushes: true,
                },
            ));
            if k == 0 && fence_first {
                steps.push((Command::Fence(Fence::MFence), none));
            }
        }
        steps.extend(last);
        let mut cur = from;
        let n = steps.len();
        for (k, (cmd, m)) in steps.into_iter().enumerate() {
            let next = if k + 1 == n {
                to
            } else {
                let name = format!("l{}.w{}", self.iter, self.r.threads[self.t].states.len());
                self.state(&name)
            };
            self.add(cur, next, cmd, m);
            cur = next;
        }
    }
}

fn eq(a: LExpr, b: LExpr) -> LExpr {
    Expr::bin(BinOp::Eq, a, b)
}
fn and(a: LExpr, b: LExpr) -> LExpr {
    Expr::bin(BinOp::And, a, b)
}

/// R ⊕ σ (module docs). `path`: instruction indices of thread `t` of R.
fn extend(
    r: &mut Program,
    meanings: &mut Vec<Vec<Meaning>>,
    t: usize,
    path: &[usize],
    iter: u32,
) -> Result<(), ReachError> {
    let th = r.threads[t].clone();
    let ok = path.len() >= 2
        && path
            .windows(2)
            .all(|w| th.instrs[w[0]].to == th.instrs[w[1]].from)
        && matches!(th.instrs[path[0]].cmd, Command::Store { .. });
    if !ok {
        return Err(ReachError::Unsupported(
            "internal error: the oracle's attacker path is not a store-to-load path".into(),
        ));
    }
    let old_m = meanings[t].clone();
    let mut e = Ext {
        r,
        meanings,
        t,
        iter,
    };
    let none = Meaning {
        issue: None,
        flushes: false,
    };
    let n = path.len();
    let mut qbar = vec![th.instrs[path[0]].from];
    for i in 1..=n {
        let s = e.state(&format!("l{iter}.q{i}"));
        qbar.push(s);
    }
    let mut aux: Vec<(RegId, RegId)> = Vec::new();
    for (i0, &ix) in path.iter().enumerate() {
        let i = i0 + 1;
        let ins = &th.instrs[ix];
        let m = old_m[ix];
        let (from, to) = (qbar[i - 1], qbar[i]);
        // Leaving the path (i ≥ 2): recreate, then any other instruction.
        if i >= 2 {
            for (k, other) in th.instrs.iter().enumerate() {
                if other.from == ins.from && k != ix {
                    let last = Some((other.cmd.clone(), old_m[k]));
                    e.recreate(from, other.to, &aux.clone(), false, last);
                }
            }
        }
        match &ins.cmd {
            Command::Store { addr, value } => {
                let k = aux.len() + 1;
                let ar = e.reg(&format!("l{iter}.ar{k}"));
                let vr = e.reg(&format!("l{iter}.vr{k}"));
                let mid = e.state(&format!("l{iter}.s{i}"));
                let m1 = Meaning {
                    issue: m.issue,
                    flushes: false,
                };
                e.add(
                    from,
                    mid,
                    Command::Assign {
                        reg: ar,
                        value: addr.clone(),
                    },
                    m1,
                );
                e.add(
                    mid,
                    to,
                    Command::Assign {
                        reg: vr,
                        value: value.clone(),
                    },
                    none,
                );
                aux.push((ar, vr));
            }
            Command::Load { reg, addr } => {
                // Not delayed past this load: recreate with the first fenced.
                if i > 2 {
                    e.recreate(from, ins.from, &aux.clone(), true, None);
                }
                let m1 = Meaning {
                    issue: m.issue,
                    flushes: false,
                };
                let mut no_match = Expr::Const(1);
                for j in (0..aux.len()).rev() {
                    let (ar, vr) = aux[j];
                    let mut cond = eq(Expr::Var(ar), addr.clone());
                    for (later, _) in &aux[j + 1..] {
                        cond = and(
                            cond,
                            Expr::un(UnOp::Not, eq(Expr::Var(*later), addr.clone())),
                        );
                    }
                    no_match = and(
                        no_match,
                        Expr::un(UnOp::Not, eq(Expr::Var(ar), addr.clone())),
                    );
                    let mid = e.state(&format!("l{iter}.b{i}.{j}"));
                    e.add(from, mid, Command::Assume(cond), none);
                    e.add(
                        mid,
                        to,
                        Command::Assign {
                            reg: *reg,
                            value: Expr::Var(vr),
                        },
                        m1,
                    );
                }
                let mid = e.state(&format!("l{iter}.m{i}"));
                e.add(from, mid, Command::Assume(no_match), none);
                e.add(mid, to, ins.cmd.clone(), m1);
            }
            Command::Assign { .. } | Command::Assume(_) | Command::Nop => {
                e.add(from, to, ins.cmd.clone(), m);
            }
            Command::Fence(f) if !crate::program::buffers::drains_buffer(&Command::Fence(*f)) => {
                e.add(from, to, ins.cmd.clone(), m);
            }
            _ => {
                return Err(ReachError::Unsupported(
                    "internal error: a draining instruction on the oracle's attacker path".into(),
                ))
            }
        }
    }
    // Out of q̄_1: the first store not delayed past the first load.
    e.recreate(qbar[1], th.instrs[path[0]].to, &aux[..1], true, None);
    // Out of q̄_n: recreate everything, back to dst(inst_n).
    e.recreate(
        qbar[n],
        th.instrs[path[n - 1]].to,
        &aux.clone(),
        false,
        None,
    );
    // Remove inst_1 from the original flow.
    r.threads[t].instrs.remove(path[0]);
    meanings[t].remove(path[0]);
    Ok(())
}

/// Maps an SC computation of R to a TSO computation of P.
fn to_tso(meanings: &[Vec<Meaning>], steps: &[(ThreadId, usize)]) -> Vec<TsoStep> {
    let mut out = Vec::new();
    for &(t, i) in steps {
        let m = meanings[t.0 as usize][i];
        if let Some(k) = m.issue {
            out.push(TsoStep::Instr {
                thread: t,
                instr: k,
            });
        }
        if m.flushes {
            out.push(TsoStep::Flush { thread: t });
        }
    }
    out
}

/// Least state budget of the breadth-first search that shortens a
/// depth-first witness (20 times the depth-first search's states
/// otherwise).
pub const SHORTEST_WITNESS_STATES: usize = 200_000;

/// Refinements the goal threads' sub-program gets before the whole
/// program is searched ([`lazy_reach`]).
pub const GOAL_THREADS_REFINEMENTS: u32 = 64;

/// Is a goal of P reachable under TSO? Algorithm 1 of the lazy TSO
/// reachability paper (module docs).
///
/// When every goal names a strict subset of the threads (its control
/// states and registers), the engine first runs on P with the other
/// threads frozen at their initial states (at most
/// [`GOAL_THREADS_REFINEMENTS`] refinements and half the remaining time):
/// a goal reachable there is reachable in P by the same computation (the
/// frozen threads never move), replayed on P. Otherwise, or when that run
/// finds nothing, it runs on P itself. This is a sound under-approximation
/// first, not part of the paper: it makes bugs that need few threads fast
/// to find in programs with many (Lamport's fast mutex for N threads).
///
/// Errors: commands the TSO engines do not model, goals that read memory,
/// the explicit searches' errors, an internal error if a witness does not
/// replay on the TSO semantics.
pub fn lazy_reach(p: &Program, o: &LazyOptions) -> Result<LazyResult, ReachError> {
    let Some(sub) = super::goal_threads_only(p) else {
        return lazy_run(p, o);
    };
    let now = Instant::now();
    let so = LazyOptions {
        explicit: o.explicit.clone(),
        max_refinements: Some(o.max_refinements.map_or(GOAL_THREADS_REFINEMENTS, |m| {
            m.min(GOAL_THREADS_REFINEMENTS)
        })),
        deadline: o
            .deadline
            .map(|d| now + d.saturating_duration_since(now) / 2),
    };
    let first = lazy_run(&sub, &so)?;
    if let Answer::Reachable { goal, witness } = &first.answer {
        check_witness(p, o.explicit.width, witness, *goal).map_err(|e| {
            ReachError::Unsupported(format!(
                "internal error: the goal threads' witness does not replay on the program: {e}"
            ))
        })?;
        return Ok(first);
    }
    let mut r = lazy_run(p, o)?;
    r.states += first.states;
    Ok(r)
}

/// [`lazy_reach`] on P itself (Algorithm 1).
fn lazy_run(p: &Program, o: &LazyOptions) -> Result<LazyResult, ReachError> {
    if let Some(m) = unsupported(p) {
        return Err(ReachError::Unsupported(m));
    }
    if p.goals.iter().any(reads_memory) {
        return Err(ReachError::Unsupported(
            "a goal condition on memory is not supported by the lazy engine (conditions on registers are)"
                .into(),
        ));
    }
    let mut r = p.clone();
    let mut meanings: Vec<Vec<Meaning>> = p
        .threads
        .iter()
        .map(|th| {
            th.instrs
                .iter()
                .enumerate()
                .map(|(i, ins)| Meaning {
                    issue: Some(i),
                    flushes: matches!(ins.cmd, Command::Store { .. }),
                })
                .collect()
        })
        .collect();
    let mut states = 0u64;
    let mut refinements = 0u32;
    let opts_now = || {
        let mut x = o.explicit.clone();
        if let Some(d) = o.deadline {
            let left = d.saturating_duration_since(Instant::now());
            x.limits.timeout = Some(x.limits.timeout.map_or(left, |t| t.min(left)));
        }
        x
    };
    let unknown = |why: String, refinements, states| LazyResult {
        answer: Answer::Unknown(why),
        refinements,
        states,
    };
    // The SC check of R (Algorithm 1, line 3) is made after each oracle
    // call instead of before it: an SC-reachable state of R stays
    // SC-reachable in R ⊕ σ (the extension emulates inst_1 by a store
    // and a fence), so the order loses nothing, and a goal reachable only
    // under TSO is found without first exhausting the SC state space of P.
    // Only the final check, after the oracle found R robust, must be
    // exhaustive; the others search depth-first and stop at a goal.
    let (mut batch, mut since_check) = (1u32, 0u32);
    loop {
        if o.deadline.is_some_and(|d| Instant::now() >= d) {
            return Ok(unknown("time limit reached".into(), refinements, states));
        }
        let rob = check_robustness(&r, &opts_now())?;
        states += rob.stats.states_visited;
        let w = match rob.verdict {
            Robustness::Robust => None,
            Robustness::Unknown(why) => return Ok(unknown(why, refinements, states)),
            Robustness::NotRobust(w) => Some(w),
        };
        let Some(w) = w else {
            let sc = sc_reach(&r, &opts_now())?;
            states += sc.stats.states_visited;
            return match sc.verdict {
                ReachVerdict::Reachable(hit) => found(p, o, &meanings, hit, refinements, states),
                ReachVerdict::Unreachable => Ok(LazyResult {
                    answer: Answer::Unreachable,
                    refinements,
                    states,
                }),
                ReachVerdict::Unknown(why) => Ok(unknown(why, refinements, states)),
            };
        };
        if o.max_refinements.is_some_and(|m| refinements >= m) {
            return Ok(unknown(
                format!("no goal reachable after {refinements} refinements (--rounds)"),
                refinements,
                states,
            ));
        }
        refinements += 1;
        extend(
            &mut r,
            &mut meanings,
            w.attack.thread.0 as usize,
            &w.attacker_path,
            refinements,
        )?;
        // Several refinements between SC checks (a batch that doubles
        // each time): refining is cheap, an SC check that fails is not,
        // and refinements only add SC-reachable states.
        since_check += 1;
        if since_check < batch {
            continue;
        }
        since_check = 0;
        batch *= 2;
        let mut dfs = opts_now();
        dfs.order = crate::engines::explicit::SearchOrder::Dfs;
        let sc = sc_reach(&r, &dfs)?;
        states += sc.stats.states_visited;
        match sc.verdict {
            ReachVerdict::Reachable(hit) => {
                // The depth-first path can be thousands of steps long; a
                // breadth-first search with a budget of states gives the
                // shortest one when it fits.
                let mut bfs = opts_now();
                let budget = (sc.stats.states_visited as usize).saturating_mul(20);
                let budget = budget.max(SHORTEST_WITNESS_STATES);
                bfs.limits.max_states =
                    Some(bfs.limits.max_states.map_or(budget, |m| m.min(budget)));
                let short = sc_reach(&r, &bfs)?;
                states += short.stats.states_visited;
                let hit = match short.verdict {
                    ReachVerdict::Reachable(h) => h,
                    _ => hit,
                };
                return found(p, o, &meanings, hit, refinements, states);
            }
            ReachVerdict::Unknown(why) => return Ok(unknown(why, refinements, states)),
            ReachVerdict::Unreachable => {}
        }
    }
}

/// The answer for a goal SC-reachable in R: the TSO computation of P,
/// replayed.
fn found(
    p: &Program,
    o: &LazyOptions,
    meanings: &[Vec<Meaning>],
    hit: crate::engines::explicit::GoalHit,
    refinements: u32,
    states: u64,
) -> Result<LazyResult, ReachError> {
    let steps: Vec<(ThreadId, usize)> = hit.trace.iter().map(|s| (s.thread, s.instr)).collect();
    let witness = to_tso(meanings, &steps);
    check_witness(p, o.explicit.width, &witness, hit.goal).map_err(|e| {
        ReachError::Unsupported(format!(
            "internal error: the lazy witness does not replay: {e}"
        ))
    })?;
    Ok(LazyResult {
        answer: Answer::Reachable {
            goal: hit.goal,
            witness,
        },
        refinements,
        states,
    })
}
