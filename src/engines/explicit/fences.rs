//! Fence insertion (thesis `003_…` §6.5): irreducible eliminating fence
//! sets per feasible attack (§6.5.1) and an optimal valid fence set
//! (§6.5.2, the 0/1-ILP (6.12)–(6.14), solved here by branch and bound).

use super::state_space::{validate, Control, Outcome};
use super::tso::{
    build_witness, enumerate_attacks, hat_left_states, involved, is_cut, search_attack, Attack,
    TsoWitness,
};
use super::{ExplicitError, Options, Stats};
use crate::program::{Fence, Program, StateId, ThreadId};
use rayon::prelude::*;
use std::collections::{BTreeSet, HashMap};
use std::time::Instant;

/// A fence location `(thread, state)`: an `mfence` placed at that control
/// state, before all its outgoing instructions (§6.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct FenceLocation {
    /// The thread.
    pub thread: ThreadId,
    /// The control state.
    pub state: StateId,
}

impl FenceLocation {
    /// `(t0,q1)` with the program's names, as Trencher prints it.
    pub fn describe(&self, p: &Program) -> String {
        format!(
            "({},{})",
            p.thread_name(self.thread),
            p.state_name(self.thread, self.state)
        )
    }
}

/// Cost function `C: FENCES → ℕ` of Problem 6.15: 1 per fence unless a
/// location has its own cost.
#[derive(Clone, Debug, Default)]
pub struct FenceCosts {
    /// Per-location costs; missing locations cost `default`.
    pub per_location: HashMap<FenceLocation, u64>,
    /// Cost of any other location (0 is read as 1).
    pub default: u64,
}

impl FenceCosts {
    /// The cost of a location.
    pub fn cost(&self, f: &FenceLocation) -> u64 {
        self.per_location
            .get(f)
            .copied()
            .unwrap_or(self.default.max(1))
    }
}

/// The irreducible eliminating fence sets of one feasible attack.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct AttackFenceSets {
    /// The attack.
    pub attack: Attack,
    /// Its TSO witness (in the unfenced program).
    pub witness: TsoWitness,
    /// The irreducible eliminating fence sets, smallest first.
    pub sets: Vec<Vec<FenceLocation>>,
    /// False when the enumeration was cut short (candidate cap, a limit):
    /// `sets` may then miss some sets (every listed set is eliminating).
    pub complete: bool,
}

/// Verdict of [`fence_insertion`].
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub enum FenceVerdict {
    /// The program is robust: no fence is needed.
    Robust,
    /// Inserting these fences makes the program robust.
    Fences(Vec<FenceLocation>),
    /// Some attack could not be decided within the limits.
    Unknown(String),
}

/// Result of [`fence_insertion`].
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct FenceReport {
    /// The verdict.
    pub verdict: FenceVerdict,
    /// Total cost of the chosen fences.
    pub cost: u64,
    /// True when the set is proven optimal (all attacks' irreducible sets
    /// enumerated and the branch and bound finished).
    pub optimal: bool,
    /// Per feasible attack, its irreducible eliminating fence sets.
    pub feasible: Vec<AttackFenceSets>,
    /// Attack counts, states visited, time. `searches_*` include the
    /// candidate fence-set checks.
    pub stats: Stats,
}

/// Maximum number of candidate fence sets considered per attack.
const MAX_CANDIDATES: usize = 200_000;
/// Maximum number of candidate fence sets that need a search, per attack.
const MAX_CANDIDATE_SEARCHES: usize = 2_000;
/// Maximum number of branch-and-bound nodes.
const MAX_NODES: usize = 2_000_000;

/// Computes an optimal valid fence set for `prog` (Problem 6.15; Trencher's
/// `-f`). Every attack is decided (in parallel); for each feasible attack
/// the irreducible eliminating fence sets are found by trying subsets of
/// the involved locations `D_A` by increasing size (a candidate that cuts
/// every non-draining path is eliminating without a search; otherwise the
/// attack is re-searched with the attacker's hat copy unable to leave the
/// fenced states). Then one set per attack is chosen minimising the total
/// cost (Lemma 6.18, ILP (6.12)–(6.14)).
///
/// Errors: [`ExplicitError`] for commands outside TSO with locks.
pub fn fence_insertion(
    prog: &Program,
    opts: &Options,
    costs: &FenceCosts,
) -> Result<FenceReport, ExplicitError> {
    let start = Instant::now();
    validate(prog, opts.width)?;
    let attacks = enumerate_attacks(prog);
    let ctl = Control {
        deadline: opts.limits.timeout.map(|d| start + d),
        cancel: None,
    };
    let per: Vec<(Stats, Option<AttackFenceSets>, Option<String>)> = attacks
        .par_iter()
        .map(|a| one_attack(prog, opts, a, &ctl))
        .collect();
    let mut stats = Stats {
        attacks_total: attacks.len(),
        ..Stats::default()
    };
    let mut feasible = Vec::new();
    let mut unknown = None;
    for (s, f, u) in per {
        stats.absorb(&s);
        if let Some(f) = f {
            feasible.push(f);
        }
        if let Some(u) = u {
            unknown.get_or_insert(u);
        }
    }
    let (verdict, cost, optimal) = match unknown {
        Some(u) => (FenceVerdict::Unknown(u), 0, false),
        None if feasible.is_empty() => (FenceVerdict::Robust, 0, true),
        None => {
            let families: Vec<Vec<Vec<FenceLocation>>> =
                feasible.iter().map(|f| f.sets.clone()).collect();
            let (set, cost, opt) = choose(&families, costs);
            (
                FenceVerdict::Fences(set),
                cost,
                opt && feasible.iter().all(|f| f.complete),
            )
        }
    };
    stats.time_us = start.elapsed().as_micros() as u64;
    Ok(FenceReport {
        verdict,
        cost,
        optimal,
        feasible,
        stats,
    })
}

/// Decides one attack and, if feasible, enumerates its irreducible
/// eliminating fence sets. Returns statistics, the sets, and an unknown
/// reason.
fn one_attack(
    p: &Program,
    opts: &Options,
    a: &Attack,
    ctl: &Control,
) -> (Stats, Option<AttackFenceSets>, Option<String>) {
    let mut st = Stats::default();
    let d = involved(p, a);
    if d.is_empty() {
        st.answered_without_search = 1;
        return (st, None, None);
    }
    let nq = p.threads[a.thread.0 as usize].states.len();
    let none = vec![false; nq];
    let (o, n) = search_attack(p, opts, a, &none, ctl);
    st.states_visited += n;
    let steps = match o {
        Outcome::Exhausted => {
            st.searches_unreachable += 1;
            return (st, None, None);
        }
        Outcome::Limit(r) => {
            st.searches_unknown += 1;
            return (st, None, Some(format!("{r} on attack {}", a.describe(p))));
        }
        Outcome::Found(_, steps) => {
            st.searches_reachable += 1;
            steps
        }
    };
    let witness = build_witness(p, opts, a, &steps);
    // Known witnesses, as the attacker states their hat copy leaves: a
    // candidate missing one of these sets keeps that witness (no search).
    let mut known: Vec<Vec<bool>> = vec![hat_left_states(p, a, &steps)];
    let mut sets: Vec<Vec<usize>> = Vec::new(); // indices into d
    let mut complete = true;
    let mut tried = 0usize;
    let mut searched = 0usize;
    'sizes: for k in 1..=d.len() {
        for comb in itertools::Itertools::combinations(0..d.len(), k) {
            if sets.iter().any(|s| s.iter().all(|x| comb.contains(x))) {
                continue; // a superset of an eliminating set: reducible
            }
            tried += 1;
            if tried > MAX_CANDIDATES {
                complete = false;
                break 'sizes;
            }
            let mut fenced = vec![false; nq];
            for &i in &comb {
                fenced[d[i].0 as usize] = true;
            }
            let eliminating = if is_cut(p, a, &fenced) {
                true
            } else if known
                .iter()
                .any(|w| !w.iter().zip(&fenced).any(|(x, y)| *x && *y))
            {
                false
            } else {
                searched += 1;
                if searched > MAX_CANDIDATE_SEARCHES {
                    complete = false;
                    break 'sizes;
                }
                let (o, n) = search_attack(p, opts, a, &fenced, ctl);
                st.states_visited += n;
                match o {
                    Outcome::Exhausted => {
                        st.searches_unreachable += 1;
                        true
                    }
                    Outcome::Found(_, steps) => {
                        st.searches_reachable += 1;
                        known.push(hat_left_states(p, a, &steps));
                        false
                    }
                    Outcome::Limit(_) => {
                        st.searches_unknown += 1;
                        complete = false;
                        false
                    }
                }
            };
            if eliminating {
                sets.push(comb);
            }
        }
    }
    let sets = sets
        .into_iter()
        .map(|s| {
            s.into_iter()
                .map(|i| FenceLocation {
                    thread: a.thread,
                    state: d[i],
                })
                .collect()
        })
        .collect();
    (
        st,
        Some(AttackFenceSets {
            attack: *a,
            witness,
            sets,
            complete,
        }),
        None,
    )
}

/// Chooses one set per family minimising the cost of the union (ILP
/// (6.12)–(6.14)) by branch and bound. Returns the union (sorted), its
/// cost, and whether optimality is proven.
fn choose(
    families: &[Vec<Vec<FenceLocation>>],
    costs: &FenceCosts,
) -> (Vec<FenceLocation>, u64, bool) {
    // Deduplicate families; an empty family cannot be satisfied, skip it
    // (cannot happen: {dst(store)} always eliminates).
    let mut fams: Vec<Vec<BTreeSet<FenceLocation>>> = Vec::new();
    for f in families {
        let f: Vec<BTreeSet<FenceLocation>> =
            f.iter().map(|s| s.iter().copied().collect()).collect();
        if !f.is_empty() && !fams.contains(&f) {
            fams.push(f);
        }
    }
    fams.sort_by_key(|f| f.len());
    let cost_of = |s: &BTreeSet<FenceLocation>| {
        s.iter()
            .fold(0u64, |acc, f| acc.saturating_add(costs.cost(f)))
    };
    // Greedy initial solution.
    let mut greedy = BTreeSet::new();
    for f in &fams {
        if f.iter().any(|s| s.is_subset(&greedy)) {
            continue;
        }
        if let Some(best) = f
            .iter()
            .min_by_key(|s| cost_of(&s.difference(&greedy).copied().collect()))
        {
            greedy.extend(best.iter().copied());
        }
    }
    let mut best = (cost_of(&greedy), greedy);
    let mut nodes = 0usize;
    let mut stack: Vec<BTreeSet<FenceLocation>> = vec![BTreeSet::new()];
    let mut exhausted = true;
    while let Some(cur) = stack.pop() {
        nodes += 1;
        if nodes > MAX_NODES {
            exhausted = false;
            break;
        }
        let c = cost_of(&cur);
        if c >= best.0 {
            continue;
        }
        match fams.iter().find(|f| !f.iter().any(|s| s.is_subset(&cur))) {
            None => best = (c, cur),
            Some(f) => {
                let mut next: Vec<BTreeSet<FenceLocation>> = f
                    .iter()
                    .map(|s| cur.union(s).copied().collect())
                    .filter(|n: &BTreeSet<FenceLocation>| cost_of(n) < best.0)
                    .collect();
                // Cheapest explored first (stack: push it last).
                next.sort_by_key(|n| std::cmp::Reverse(cost_of(n)));
                stack.extend(next);
            }
        }
    }
    // A saturated sum cannot be compared: never claim it optimal.
    let optimal = exhausted && best.0 < u64::MAX;
    (best.1.into_iter().collect(), best.0, optimal)
}

/// Inserts an `mfence` at each location (§6.5): a fresh state `q_x` takes
/// over all outgoing instructions of `q`, and `q --mfence--> q_x` is added.
/// Locations naming a missing thread or state are ignored; duplicates are
/// fenced once. The fresh state is named `<q>_fence` (with a numeric
/// suffix if taken).
pub fn insert_fences(prog: &Program, locs: &[(ThreadId, StateId)]) -> Program {
    let locs: Vec<_> = locs.iter().map(|&(t, q)| (t, q, Fence::MFence)).collect();
    prog.insert_fences(&locs).0
}
