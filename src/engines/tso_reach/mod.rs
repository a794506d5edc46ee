//! TSO reachability beyond the bound: engines that answer "is a goal
//! reachable under TSO?" for programs with unbounded loops, sharing only
//! the Program IR and the explicit SC search ([`crate::engines::explicit::sc_reach`])
//! with the rest of the crate.
//!
//! * [`tso`]: the operational TSO semantics with per-thread FIFO store
//!   buffers (thesis `003_…` §2.4.2): one step, the replay of a TSO
//!   computation (the witness checker), and an explicit search bounded by
//!   rounds and buffer length.
//! * [`kround`]: the k-round reduction of TSO to SC (Atig, Bouajjani,
//!   Parlato CAV 2011; lecture `002_…` §9): the code-to-code translation P'
//!   and the engine that checks P' with the explicit SC search.
//! * [`lazy`]: lazy TSO reachability (Bouajjani, Calin, Derevenetc, Meyer,
//!   FASE 2015; seed `000_…`): SC search, robustness oracle, refinement.
//!
//! A *round* of a thread is a maximal segment of a computation in which
//! only that thread moves (its instructions and the flushes of its own
//! buffer); a computation is K-round when every thread has at most K
//! rounds. docs/engines.md says what each engine decides.

pub mod kround;
pub mod lazy;
pub mod tso;

use crate::program::{Command, Program, ThreadId};

/// Errors of the reachability engines: the program uses something they
/// do not model.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReachError {
    /// A command or goal the engine does not model.
    #[error("{0}")]
    Unsupported(String),
    /// The explicit SC search rejected the (translated) program.
    #[error(transparent)]
    Explicit(#[from] crate::engines::explicit::ExplicitError),
}

/// The first command the TSO engines cannot model (`lwarx`/`stwcx.`,
/// PGAS commands, `lock`/`unlock` inside an atomic), as a message.
pub fn unsupported(p: &Program) -> Option<String> {
    if p.nodes.is_some() {
        return Some("PGAS programs are not supported by the TSO reachability engines".into());
    }
    for (ti, t) in p.threads.iter().enumerate() {
        for ins in &t.instrs {
            let bad = match &ins.cmd {
                Command::LoadReserve { .. } => Some("`lwarx`"),
                Command::StoreCond { .. } => Some("`stwcx`"),
                Command::Pgas(_) => Some("a PGAS command"),
                Command::Atomic(cs) => cs
                    .iter()
                    .any(|c| {
                        !matches!(
                            c,
                            Command::Load { .. }
                                | Command::Store { .. }
                                | Command::Assign { .. }
                                | Command::Assume(_)
                                | Command::Nop
                        )
                    })
                    .then_some("a lock or fence inside `atomic`"),
                _ => None,
            };
            if let Some(b) = bad {
                let tid = ThreadId(ti as u32);
                return Some(format!(
                    "thread `{}`, instruction {} -> {}: {b} is not supported by the TSO reachability engines",
                    p.thread_name(tid),
                    p.state_name(tid, ins.from),
                    p.state_name(tid, ins.to)
                ));
            }
        }
    }
    None
}

/// The threads a goal constrains: those whose control state it names and
/// those whose registers its condition reads; `None` when it constrains
/// every thread (a `final` goal).
fn goal_threads(g: &crate::program::Goal) -> Option<std::collections::BTreeSet<usize>> {
    let crate::program::GoalAt::States(at) = &g.at else {
        return None;
    };
    let mut s: std::collections::BTreeSet<usize> = at.iter().map(|(t, _)| t.0 as usize).collect();
    if let Some(c) = &g.cond {
        c.for_each_var(&mut |v| {
            if let crate::program::GVar::Reg(t, _) = v {
                s.insert(t.0 as usize);
            }
        });
    }
    Some(s)
}

/// P with every thread outside `keep` frozen at its initial state (its
/// instructions removed): every computation of it is a computation of P
/// in which those threads never move.
fn freeze_others(p: &Program, keep: &std::collections::BTreeSet<usize>) -> Program {
    let mut q = p.clone();
    for (t, th) in q.threads.iter_mut().enumerate() {
        if !keep.contains(&t) {
            th.instrs.clear();
        }
    }
    q
}

/// P restricted to the threads its goals constrain, the others frozen at
/// their initial states, when that is a strict subset of the threads
/// (`None` otherwise, e.g. for a `final` goal). A goal reachable in it is
/// reachable in P by the same computation; used by [`lazy`] and
/// [`kround`] to try the goal threads first.
pub fn goal_threads_only(p: &Program) -> Option<Program> {
    let keep = p.goals.iter().map(goal_threads).try_fold(
        std::collections::BTreeSet::new(),
        |mut acc, s| {
            acc.extend(s?);
            Some(acc)
        },
    )?;
    (!p.goals.is_empty() && keep.len() < p.threads.len()).then(|| freeze_others(p, &keep))
}

impl kround::Answer {
    /// This answer as an [`Answer`](crate::answer::Answer) holding for
    /// `scope` (every execution for the lazy engine, `Rounds(K)` for
    /// kround).
    pub fn answer(&self, scope: crate::answer::Scope) -> crate::answer::Answer {
        use crate::answer::{Answer, Verdict};
        match self {
            kround::Answer::Reachable { .. } => Answer::new(Verdict::Violation, scope),
            kround::Answer::Unreachable => Answer::new(Verdict::NoViolation, scope),
            kround::Answer::Unknown(why) => Answer {
                reason: Some(why.clone()),
                ..Answer::new(Verdict::Unknown, scope)
            },
        }
    }
}

impl kround::KroundResult {
    /// This result as an [`Answer`](crate::answer::Answer): a "not
    /// reachable" holds within `k` rounds per thread.
    pub fn answer(&self, k: u32) -> crate::answer::Answer {
        let mut a = self.answer.answer(crate::answer::Scope::Rounds(k));
        a.stats = vec![("states", self.states)];
        a
    }
}

impl From<&lazy::LazyResult> for crate::answer::Answer {
    /// The lazy engine's answer holds for every execution (it is
    /// unbounded; a limit makes it unknown).
    fn from(r: &lazy::LazyResult) -> crate::answer::Answer {
        let mut a = r.answer.answer(crate::answer::Scope::Complete);
        a.stats = vec![
            ("refinements", u64::from(r.refinements)),
            ("states", r.states),
        ];
        a
    }
}

impl tso::SimVerdict {
    /// This verdict as an [`Answer`](crate::answer::Answer): "not
    /// reachable" holds within `max_rounds` rounds if the search was
    /// given them, else for every execution.
    pub fn answer(&self, max_rounds: Option<u32>) -> crate::answer::Answer {
        use crate::answer::{Answer, Scope, Verdict};
        let scope = max_rounds.map_or(Scope::Complete, Scope::Rounds);
        match self {
            tso::SimVerdict::Reachable { .. } => Answer::new(Verdict::Violation, scope),
            tso::SimVerdict::Unreachable => Answer::new(Verdict::NoViolation, scope),
            tso::SimVerdict::Unknown(why) => Answer {
                reason: Some(why.clone()),
                ..Answer::new(Verdict::Unknown, scope)
            },
        }
    }
}
