//! Stateless model checking (SMC) under SC, TSO and PSO with
//! chronological traces (seed `001_…`: Abdulla, Aronis, Atig, Jonsson,
//! Leonardsson, Sagonas, "Stateless model checking for TSO and PSO";
//! docs/engines.md). Shares only the Program IR with the rest of the
//! crate (and the TSO draining rule of [`crate::program::buffers::drains_buffer`]).
//!
//! * [`semantics`]: the operational SC/TSO/PSO semantics with store
//!   buffers and update actors; the steps' effects.
//! * [`trace`]: the Shasha–Snir trace of an execution, its canonical key
//!   and its po ∪ rf ∪ co ∪ fr cycles.
//! * [`chrono`]: the happens-before of chronological traces (vector
//!   clocks) and the races it induces.
//! * [`dpor`]: Source-DPOR with sleep sets over chronological traces.
//! * [`explore`]: exhaustive exploration without reduction (the oracle).
//! * [`regions`]: read-only regions (bounded spin loops whose reads
//!   nothing uses) replaced by a `nop` before `reach`.
//!
//! [`check`] answers reachability of the program's goals or robustness
//! (every trace of the TSO/PSO executions is an SC trace, i.e. has an
//! acyclic po ∪ rf ∪ co ∪ fr) within `bound` instructions per thread.

pub mod chrono;
pub mod dpor;
pub mod explore;
pub mod regions;
pub mod semantics;
pub mod trace;

use crate::collections::HashSet;
use crate::program::{GVar, GoalAt, Program, ThreadId, Width};
use semantics::{Model, Semantics, State, Step};
use std::collections::BTreeSet;
use std::time::Instant;
use trace::SsTrace;

/// What [`check`] answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum SmcCheck {
    /// Is a goal (assertion failure) reachable?
    Reach,
    /// Is every trace an SC trace?
    Robust,
}

/// How executions are explored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Reduction {
    /// Source-DPOR over chronological traces (default).
    Dpor,
    /// Every execution (no reduction): the oracle.
    None,
    /// Every configuration once (a stateful search): reachability of goals
    /// the trace does not determine.
    States,
}

/// Options of [`check`].
#[derive(Clone, Debug)]
pub struct SmcOptions {
    /// The memory model.
    pub model: Model,
    /// Width of values (bits).
    pub width: Width,
    /// At most this many instructions per thread.
    pub bound: u32,
    /// The question.
    pub check: SmcCheck,
    /// The exploration; `Dpor` falls back to `States` for a reachability
    /// goal the trace does not determine (see [`goals_trace_determined`]).
    pub reduction: Reduction,
    /// Wall-clock deadline ("unknown" when reached).
    pub deadline: Option<Instant>,
    /// Collect every final state and trace key (tests).
    pub collect: bool,
}

/// The answer of [`check`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SmcVerdict {
    /// Goal `goal` is reachable; the execution reaching it.
    Reachable {
        /// Index into `Program::goals`.
        goal: usize,
        /// The steps (instructions and buffer updates).
        steps: Vec<Step>,
    },
    /// No goal is reachable within the bound.
    Unreachable,
    /// An execution whose trace has a cyclic po ∪ rf ∪ co ∪ fr.
    NotRobust {
        /// The steps of the execution.
        steps: Vec<Step>,
        /// The cycle, one text per event (`t0: q0 -> q1  x = 1`).
        cycle: Vec<String>,
        /// `edges[i]`: the hb edge (`po`, `rf`, `co`, `fr`) from event
        /// `cycle[i]` to the next one (the last to the first).
        edges: Vec<&'static str>,
    },
    /// Every trace within the bound is an SC trace.
    Robust,
    /// A limit was reached first (the reason).
    Unknown(String),
}

/// Numbers of one [`check`].
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct SmcStats {
    /// Executions run to their end (maximal within the bound).
    pub executions: u64,
    /// Executions abandoned because every enabled step was asleep.
    pub sleep_blocked: u64,
    /// Distinct Shasha–Snir traces among the ended executions.
    pub traces: u64,
    /// Steps executed, replays excluded.
    pub events: u64,
    /// Configurations visited (`Reduction::States` only).
    pub states: u64,
    /// Whether the bound stopped a thread that could go on.
    pub bound_cut: bool,
    /// The exploration used.
    pub reduction: String,
    /// Wall-clock time in microseconds.
    pub time_us: u64,
}

/// Result of [`check`].
#[derive(Clone, Debug)]
pub struct SmcResult {
    /// The answer.
    pub verdict: SmcVerdict,
    /// The numbers.
    pub stats: SmcStats,
    /// With `collect`: the keys of the traces of ended executions, each
    /// with the first execution that had it.
    pub keys: std::collections::BTreeMap<u128, Vec<Step>>,
    /// With `collect`: the final configurations of ended executions
    /// (control states, registers, memory), as printable words.
    pub finals: BTreeSet<String>,
}

/// The collector both explorers report to: goal checks after every step,
/// ended executions (trace key, robustness), limits.
pub(crate) struct Sink {
    check: SmcCheck,
    collect: bool,
    deadline: Option<Instant>,
    keys: HashSet<u128>,
    all_keys: std::collections::BTreeMap<u128, Vec<Step>>,
    finals: BTreeSet<String>,
    verdict: Option<SmcVerdict>,
    executions: u64,
    pub(crate) blocked: u64,
    pub(crate) states: u64,
    pub(crate) cut: bool,
    ticks: u64,
}

impl Sink {
    /// Called every step: the limits.
    fn tick(&mut self) -> Result<(), String> {
        self.ticks += 1;
        if self.ticks.is_multiple_of(512) {
            if self.deadline.is_some_and(|d| Instant::now() >= d) {
                return Err("time limit reached".into());
            }
            crate::resources::check_memory()?;
        }
        Ok(())
    }

    /// Called at every configuration reached; true to stop.
    fn at(&mut self, sem: &Semantics, s: &State, path: &dyn Fn() -> Vec<Step>) -> bool {
        if self.check == SmcCheck::Reach && !sem.prog.goals.is_empty() {
            if let Some(g) = sem.goal(s) {
                self.verdict = Some(SmcVerdict::Reachable {
                    goal: g,
                    steps: path(),
                });
                return true;
            }
        }
        false
    }

    /// Called at the end of an execution; true to stop.
    fn end(&mut self, sem: &Semantics, s: &State, ss: &SsTrace, path: &[Step]) -> bool {
        self.executions += 1;
        let key = ss.key();
        self.keys.insert(key);
        if self.collect {
            self.all_keys.entry(key).or_insert_with(|| path.to_vec());
            // Memory printed as a map (`{addr: value, …}`), as before the
            // flat list: tests and the crosscheck read this form.
            let mem: std::collections::BTreeMap<i64, i64> = s.mem.iter().copied().collect();
            self.finals
                .insert(format!("{:?} {:?} {:?}", s.pc, s.regs, mem));
        }
        if self.check == SmcCheck::Robust {
            if let Some(c) = ss.hb_cycle() {
                self.verdict = Some(SmcVerdict::NotRobust {
                    steps: path.to_vec(),
                    cycle: c.iter().map(|e| ss.describe(sem.prog, *e)).collect(),
                    edges: (0..c.len())
                        .map(|i| ss.edge(c[i], c[(i + 1) % c.len()]))
                        .collect(),
                });
                return true;
            }
        }
        false
    }
}

/// Whether every goal is decided by the Shasha–Snir trace of a complete
/// execution, so that exploring one execution per trace finds it: a
/// `final` goal; or a goal whose control states and register conditions
/// concern one thread and that reads no memory; or a goal that reads no
/// memory whose named control states have no outgoing instruction and
/// whose registers belong to the threads it names (they stay put).
pub fn goals_trace_determined(p: &Program) -> bool {
    p.goals.iter().all(|g| {
        let GoalAt::States(at) = &g.at else {
            return true;
        };
        if crate::program::buffers::reads_memory(g) {
            return false;
        }
        let mut regs: Vec<ThreadId> = Vec::new();
        if let Some(c) = &g.cond {
            c.for_each_var(&mut |v| {
                if let GVar::Reg(t, _) = v {
                    regs.push(t)
                }
            });
        }
        let named: Vec<ThreadId> = at.iter().map(|x| x.0).collect();
        let mut all = named.clone();
        all.extend(&regs);
        all.sort_unstable();
        all.dedup();
        if all.len() <= 1 {
            return true;
        }
        let terminal = at.iter().all(|(t, q)| {
            p.threads
                .get(t.0 as usize)
                .is_some_and(|th| th.instrs.iter().all(|i| i.from != *q))
        });
        terminal && regs.iter().all(|t| named.contains(t))
    })
}

/// Explores the executions of `p` under `o.model` within `o.bound`
/// instructions per thread and answers `o.check`.
///
/// Errors: the program uses a command the engine does not model
/// (`lwarx`/`stwcx.`, PGAS, a lock or fence inside an atomic, under PSO
/// a `membar` with #StoreLoad and without #StoreStore): a located
/// error when the program has a source, else [`Error::Unsupported`](crate::diag::Error::Unsupported); a width
/// outside 1..=64 ([`Width::MAX`](crate::program::Width::MAX)).
pub fn check(p: &Program, o: &SmcOptions) -> Result<SmcResult, crate::diag::Error> {
    let t0 = Instant::now();
    if o.width.0 == 0 || o.width.0 > crate::program::Width::MAX.0 {
        return Err(crate::diag::Error::Unsupported(format!(
            "width {} is outside 1..={}",
            o.width.0,
            crate::program::Width::MAX.0
        )));
    }
    if let Some((t, i, what)) = semantics::unsupported(p, o.model) {
        let tid = ThreadId(t as u32);
        let msg = match p.threads.get(t).and_then(|th| th.instrs.get(i)) {
            Some(ins) => format!(
                "thread `{}`, instruction {} -> {}: {what} is not supported by the SMC engine",
                p.thread_name(tid),
                p.state_name(tid, ins.from),
                p.state_name(tid, ins.to)
            ),
            None => format!("{what} is not supported by the SMC engine"),
        };
        let span = p
            .threads
            .get(t)
            .and_then(|th| th.instrs.get(i))
            .map(|x| x.span);
        return Err(match (&p.source, span) {
            (Some(src), Some(sp)) => src.error(sp, msg),
            _ => crate::diag::Error::Unsupported(msg),
        });
    }
    let sem = Semantics::new(p, o.model, o.width, o.bound);
    let reduction = match o.reduction {
        Reduction::Dpor if o.check == SmcCheck::Reach && !goals_trace_determined(p) => {
            Reduction::States
        }
        r => r,
    };
    let mut sink = Sink {
        check: o.check,
        collect: o.collect,
        deadline: o.deadline,
        keys: HashSet::default(),
        all_keys: Default::default(),
        finals: BTreeSet::new(),
        verdict: None,
        executions: 0,
        blocked: 0,
        states: 0,
        cut: false,
        ticks: 0,
    };
    let run = match reduction {
        Reduction::Dpor => dpor::explore(&sem, &mut sink),
        Reduction::None => explore::explore(&sem, &mut sink, false),
        Reduction::States => explore::explore(&sem, &mut sink, true),
    };
    let verdict = match (run, sink.verdict.take()) {
        (_, Some(v)) => v,
        (Err(why), None) => SmcVerdict::Unknown(why),
        (Ok(()), None) => match o.check {
            SmcCheck::Reach => SmcVerdict::Unreachable,
            SmcCheck::Robust => SmcVerdict::Robust,
        },
    };
    let stats = SmcStats {
        executions: sink.executions,
        sleep_blocked: sink.blocked,
        traces: sink.keys.len() as u64,
        events: sink.ticks,
        states: sink.states,
        bound_cut: sink.cut,
        reduction: match reduction {
            Reduction::Dpor => "source-dpor",
            Reduction::None => "none",
            Reduction::States => "states",
        }
        .into(),
        time_us: t0.elapsed().as_micros() as u64,
    };
    Ok(SmcResult {
        verdict,
        stats,
        keys: sink.all_keys,
        finals: sink.finals,
    })
}

impl SmcResult {
    /// This result as an [`Answer`](crate::answer::Answer): a "no
    /// violation" holds for every execution unless the bound `bound`
    /// cut a path ([`SmcStats::bound_cut`]); the witness is the cycle of
    /// a robustness violation, one event per line.
    pub fn answer(&self, bound: u32) -> crate::answer::Answer {
        use crate::answer::{Answer, Scope, Verdict};
        let scope = if self.stats.bound_cut {
            Scope::Bound(bound)
        } else {
            Scope::Complete
        };
        let mut a = match &self.verdict {
            SmcVerdict::Reachable { .. } => Answer::new(Verdict::Violation, scope),
            SmcVerdict::NotRobust { cycle, .. } => Answer {
                witness: Some(cycle.join("\n")),
                ..Answer::new(Verdict::Violation, scope)
            },
            SmcVerdict::Unreachable | SmcVerdict::Robust => {
                Answer::new(Verdict::NoViolation, scope)
            }
            SmcVerdict::Unknown(why) => Answer {
                reason: Some(why.clone()),
                ..Answer::new(Verdict::Unknown, scope)
            },
        };
        a.stats = vec![
            ("executions", self.stats.executions),
            ("traces", self.stats.traces),
            ("states", self.stats.states),
        ];
        a
    }
}
