//! Bounded-exact fence synthesis for every built-in model:
//! a minimum-cost set of fence insertions that makes a program robust
//! (no happens-before cycle, thesis 003 §2.8) against a model up to a
//! bound K.
//!
//! Cycle-guided (counterexample-guided) loop over the bounded engine:
//!
//! 1. check robustness of the program with the current fences
//!    ([`crate::engines::bounded::queries::check`]); robust up to K: done;
//! 2. otherwise take the witness' hb cycle; every po edge `a → b` of the
//!    cycle whose access pair (read/write → read/write) the model may
//!    reorder ([`Menu::relaxed`]) gives candidate placements: each
//!    control state the thread passes between `a` and `b`, with each
//!    fence kind of the model's menu that orders that pair
//!    ([`menu::Kind::orders`]);
//! 3. the clause "one of these placements" — less those the current set
//!    already has or dominates (a kind ordering no more pairs at the same
//!    point), since they did not break this cycle — is added; a minimum
//!    cost set hitting every clause so far is solved exactly
//!    ([`hitting::min_hitting_set`], a 0-1 ILP) and becomes the current
//!    fence set; repeat.
//!
//! Every iteration excludes the current set, so the loop ends; the final
//! set is robust up to K, and minimal among the sets meeting every
//! clause learned. A clause assumes that fences placed off the cycle
//! (not between its po-consecutive events) do not forbid its execution —
//! the critical-cycle restriction of Musketeer and of the thesis'
//! fence placement (§6.5: fences on the attack's paths); under that
//! assumption the answer is optimal for the bound.
//!
//! A placement is an insertion at a control state, before all its
//! outgoing instructions (as [`crate::program::Program::insert_fences`]
//! does and the explicit engine's `mfence` locations, §6.5).

pub mod hitting;
pub mod menu;

pub use menu::{menu, Kind, Menu};

use crate::cat::Model;
use crate::collections::HashMap;
use crate::diag::Error;
use crate::engines::bounded::{queries, CheckKind, CheckResult, Limits, SolverKind, Verdict};
use crate::program::{Fence, Program, StateId, ThreadId};
use std::time::Instant;

/// A fence placement: kind `kind` (index into [`Menu::kinds`]) at control
/// state `state` of `thread`, before all outgoing instructions of
/// `state`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct Placement {
    /// The thread.
    pub thread: ThreadId,
    /// The control state (of the input program).
    pub state: StateId,
    /// Index into the menu's kinds.
    pub kind: usize,
}

impl Placement {
    /// `lwsync@(t0,q1)` with the program's names.
    pub fn describe(&self, p: &Program, m: &Menu) -> String {
        format!(
            "{}@({},{})",
            m.kinds[self.kind].name,
            p.thread_name(self.thread),
            p.state_name(self.thread, self.state)
        )
    }
}

/// Fence costs (cost units): per kind, overridden per location (any
/// kind) and per location and kind (`--cost FILE`, docs/fences.md).
#[derive(Clone, Debug)]
pub struct Costs {
    /// Cost of each kind of the menu (index = kind).
    pub kind: Vec<u64>,
    /// A fence of any kind at this location.
    pub at: HashMap<(ThreadId, StateId), u64>,
    /// A fence of this kind at this location.
    pub at_kind: HashMap<(ThreadId, StateId, usize), u64>,
}

impl Costs {
    /// The menu's default costs.
    pub fn defaults(m: &Menu) -> Costs {
        Costs {
            kind: m.kinds.iter().map(|k| k.cost).collect(),
            at: HashMap::default(),
            at_kind: HashMap::default(),
        }
    }

    /// The cost of a placement: its (location, kind) entry, else its
    /// location's, else its kind's.
    pub fn cost(&self, p: &Placement) -> u64 {
        self.at_kind
            .get(&(p.thread, p.state, p.kind))
            .or_else(|| self.at.get(&(p.thread, p.state)))
            .copied()
            .unwrap_or(self.kind[p.kind])
    }
}

/// Options of [`synthesize`].
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// The bounded engine's backend.
    pub solver: SolverKind,
    /// Bound K, width, deadline (the whole synthesis).
    pub limits: Limits,
    /// At most this many robustness checks (then `Unknown`).
    pub max_iterations: usize,
}

/// How a synthesis ended.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// Robust up to the bound with [`Report::fences`] inserted.
    Robust,
    /// A violating cycle that no fence of the menu can break (no po edge
    /// of a pair the model reorders, or every candidate already placed):
    /// [`Report::last`] is its check.
    Unfixable,
    /// A limit (deadline, iterations, solver); the reason.
    Unknown(String),
}

/// The answer of [`synthesize`].
#[derive(Clone, Debug)]
pub struct Report {
    /// How it ended.
    pub outcome: Outcome,
    /// The fences (with [`Outcome::Robust`]: a robust set; otherwise the
    /// last set tried), sorted.
    pub fences: Vec<Placement>,
    /// Their total cost.
    pub cost: u64,
    /// The set is minimal among those hitting every learned clause
    /// (module docs); false unless the outcome is robust.
    pub optimal: bool,
    /// Robustness checks run.
    pub checks: usize,
    /// Clauses (violating cycles) learned.
    pub cycles: usize,
    /// Distinct candidate placements seen.
    pub candidates: usize,
    /// Seconds.
    pub time: f64,
    /// The last robustness check (on the fenced program).
    pub last: Option<CheckResult>,
}

/// The program with `fences` inserted (masks at one point merged,
/// [`menu::merge_at_point`]) and, per thread, each new state's original
/// state ([`Program::insert_fences`]).
pub fn apply(prog: &Program, m: &Menu, fences: &[Placement]) -> (Program, Vec<Vec<StateId>>) {
    let mut at: std::collections::BTreeMap<(ThreadId, StateId), Vec<Fence>> = Default::default();
    for f in fences {
        at.entry((f.thread, f.state))
            .or_default()
            .push(m.kinds[f.kind].fence);
    }
    let locs: Vec<(ThreadId, StateId, Fence)> = at
        .into_iter()
        .flat_map(|((t, q), fs)| {
            menu::merge_at_point(&fs)
                .into_iter()
                .map(move |f| (t, q, f))
        })
        .collect();
    prog.insert_fences(&locs)
}

/// The candidate placements that could break the hb cycle of `res` (a
/// violating robustness check of `fenced`, whose states map to the input
/// program's by `origin`): module docs, step 2. Sorted, deduplicated.
pub fn candidates(
    fenced: &Program,
    origin: &[Vec<StateId>],
    m: &Menu,
    res: &CheckResult,
) -> Vec<Placement> {
    let (Some(x), Some(cycle)) = (&res.witness, &res.cycle) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (a, rel, b) in &cycle.edges {
        if rel != "po" {
            continue;
        }
        let (Some(ea), Some(eb)) = (x.event(*a), x.event(*b)) else {
            continue;
        };
        let bit = menu::pair(ea.kind == "W", eb.kind == "W");
        if m.relaxed & bit == 0 || ea.thread != eb.thread {
            continue;
        }
        let t = ea.thread as usize;
        let th = &fenced.threads[t];
        for s in ea.step as usize + 1..=eb.step as usize {
            let Some(&i) = x.path[t].get(s) else { break };
            let q = th.instrs[i].from;
            let q = origin[t][q.0 as usize];
            for (k, kind) in m.kinds.iter().enumerate() {
                if kind.orders & bit != 0 {
                    out.push(Placement {
                        thread: ThreadId(t as u32),
                        state: q,
                        kind: k,
                    });
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Synthesizes a minimum-cost fence set making `prog` robust against
/// `model` (whose menu is `m`) up to `opts.limits.bound` (module docs).
///
/// Errors: those of the bounded engine (model constructs it cannot
/// encode); limits are [`Outcome::Unknown`], not errors.
pub fn synthesize(
    prog: &Program,
    model: &Model,
    m: &Menu,
    costs: &Costs,
    opts: &Options,
) -> Result<Report, Error> {
    let start = Instant::now();
    let mut ids: HashMap<Placement, usize> = HashMap::default();
    let mut placements: Vec<Placement> = Vec::new();
    let mut clauses: Vec<Vec<usize>> = Vec::new();
    let mut current: Vec<Placement> = Vec::new();
    let mut report = Report {
        outcome: Outcome::Unknown("not started".into()),
        fences: Vec::new(),
        cost: 0,
        optimal: false,
        checks: 0,
        cycles: 0,
        candidates: 0,
        time: 0.0,
        last: None,
    };
    let outcome = loop {
        if report.checks >= opts.max_iterations {
            break Outcome::Unknown(format!(
                "{} robustness checks without a robust fence set",
                report.checks
            ));
        }
        if let Err(e) = opts.limits.deadline.check() {
            break Outcome::Unknown(e.to_string());
        }
        let (fenced, origin) = apply(prog, m, &current);
        let res = queries::check(
            opts.solver,
            &fenced,
            model,
            opts.limits,
            false,
            &[CheckKind::Robust],
        )?
        .pop()
        .ok_or_else(|| Error::Unknown("the backend ran no check".into()))?;
        report.checks += 1;
        let verdict = res.verdict;
        let cands = if verdict == Verdict::Violation {
            candidates(&fenced, &origin, m, &res)
        } else {
            Vec::new()
        };
        let reason = res.reason.clone();
        report.last = Some(res);
        match verdict {
            Verdict::NoViolation => break Outcome::Robust,
            Verdict::Unknown => break Outcome::Unknown(reason.unwrap_or_default()),
            Verdict::Violation => {}
        }
        // Candidates the current set already has or dominates failed.
        let clause: Vec<usize> = cands
            .into_iter()
            .filter(|c| {
                !current.iter().any(|f| {
                    f.thread == c.thread && f.state == c.state && m.dominates(f.kind, c.kind)
                })
            })
            .map(|c| {
                let n = ids.len();
                *ids.entry(c).or_insert_with(|| {
                    placements.push(c);
                    n
                })
            })
            .collect();
        if clause.is_empty() {
            break Outcome::Unfixable;
        }
        clauses.push(clause);
        report.cycles = clauses.len();
        let costs_v: Vec<u64> = placements.iter().map(|p| costs.cost(p)).collect();
        match hitting::min_hitting_set(&costs_v, &clauses) {
            Ok((set, _)) => {
                current = set.into_iter().map(|i| placements[i]).collect();
                current.sort();
            }
            Err(e) => break Outcome::Unknown(e.to_string()),
        }
    };
    report.optimal = matches!(outcome, Outcome::Robust);
    report.outcome = outcome;
    report.cost = current.iter().map(|p| costs.cost(p)).sum();
    report.fences = current;
    report.candidates = placements.len();
    report.time = start.elapsed().as_secs_f64();
    Ok(report)
}
