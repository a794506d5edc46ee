//! The emptiness check of the automaton intersected with a profile's
//! marks (Lemma 3.4: reachability in a finite graph), breadth-first so
//! that witnesses are shortest, under the limits; and the closure of the
//! guess candidates.
//!
//! Guess candidates: a read of part 2 or 3 before the part writes the
//! cell guesses the value the previous part ends with. Every value a
//! part ends with was written by a flush of that part or an earlier one
//! (or is initial), and a flush in part `p` stores a value computed from
//! reads of parts `≤ p` only (a thread's events are in non-decreasing
//! parts; under RMO a store commits after its value is computed). So the
//! runs restricted to the instructions issued in parts `≤ p` are runs of
//! the automaton whose guesses of part `p' ≤ p` are values written in
//! parts `< p'` — by induction on `p`, guessing in part `p` only values
//! that some explored run writes in a part before `p` loses no run.
//! [`close_candidates`] repeats the search without marks until the
//! values written are all candidates of the later parts (marks change no
//! value): part 1's writes read no guess, part 2's only guesses of part
//! 2, so the closure ends after at most three searches.

use super::automaton::{Automaton, Candidates, State, Step};
use crate::collections::{HashMap, HashSet};
use crate::engines::explicit::Limits;
use std::hash::Hash;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// A multiheaded automaton intersected with a profile's marks, as the
/// search sees it: a finite graph of states (Lemma 3.4).
pub(crate) trait Generator {
    /// A state.
    type State: Clone + Eq + Hash + Send + Sync + 'static;
    /// A transition's record (for the witness).
    type Step;
    /// The key under which the successors report what they write (the
    /// automaton: part and address; PGAS: thread and kind of event).
    type Key: Eq + Hash + Send + 'static;
    /// The initial state.
    fn initial(&self) -> Self::State;
    /// Every successor of `s` with its step; `wrote(k, v)` is told the
    /// writes the successors make (the guess candidates).
    fn successors(
        &self,
        s: &Self::State,
        wrote: &mut dyn FnMut(Self::Key, i64),
    ) -> Vec<(Self::State, Self::Step)>;
    /// Whether `s` closes the profile's cycle (a witness).
    fn goal(&self, s: &Self::State) -> bool;
    /// The approximate size of `s` in bytes (the memory limit).
    fn bytes(&self, s: &Self::State) -> usize;
}

impl Generator for Automaton<'_> {
    type State = State;
    type Step = Step;
    type Key = (u8, i64);
    fn initial(&self) -> State {
        Automaton::initial(self)
    }
    fn successors(&self, s: &State, wrote: &mut dyn FnMut((u8, i64), i64)) -> Vec<(State, Step)> {
        Automaton::successors(self, s, &mut |q, a, v| wrote((q, a), v))
    }
    fn goal(&self, s: &State) -> bool {
        Automaton::cycle_closed(s) && self.consistent(s)
    }
    fn bytes(&self, s: &State) -> usize {
        approx_bytes(s)
    }
}

/// How one search ended.
pub(crate) enum Outcome<S, St, K = i64> {
    /// A state closing the cycle with consistent guesses: the steps from
    /// the initial state.
    Found(Vec<St>, Box<S>),
    /// Every reachable state visited; the values reported, per key.
    Exhausted(HashMap<K, HashSet<i64>>),
    /// A limit was hit (or another search found a witness first).
    Cut(String),
}

/// Shared bookkeeping of the searches of one call.
pub(crate) struct Budget<'a> {
    /// The limits.
    pub limits: &'a Limits,
    /// Start of the call.
    pub start: Instant,
    /// The least index of a profile whose search found a witness: the
    /// searches of later profiles stop (the earliest witness is reported,
    /// so the answer does not depend on the schedule).
    pub found_at: &'a AtomicUsize,
    /// This search's profile index (`usize::MAX`: never stopped by a
    /// witness).
    pub me: usize,
    /// States visited over all searches.
    pub states: &'a AtomicU64,
}

impl Budget<'_> {
    pub(crate) fn exceeded(&self, visited: usize, bytes: usize) -> Option<String> {
        if self.me != usize::MAX && self.found_at.load(Ordering::Relaxed) < self.me {
            return Some("stopped: another profile found a witness".into());
        }
        if let Some(t) = self.limits.timeout {
            if self.start.elapsed() > t {
                return Some(format!("timeout after {:.1}s", t.as_secs_f64()));
            }
        }
        if self.limits.max_states.is_some_and(|m| visited > m) {
            return Some(format!("state limit of {visited} states"));
        }
        if self.limits.max_memory_bytes.is_some_and(|m| bytes > m)
            || crate::resources::over_memory_limit()
        {
            return Some("memory limit".into());
        }
        None
    }
}

fn approx_bytes(s: &State) -> usize {
    160 + 8 * (s.pc.len() + s.regs.len())
        + 4 * s.cur.len()
        + 40 * s.buf.len()
        + 24 * s.mem1.len()
        + 32 * (s.later[0].len() + s.later[1].len())
        + 40 * s.marks.len()
}

/// Breadth-first search of `a`'s states; with `goal` the search stops at
/// the first state that closes the cycle with consistent guesses.
pub(crate) fn bfs<G: Generator>(
    a: &G,
    goal: bool,
    budget: &Budget,
) -> Outcome<G::State, G::Step, G::Key> {
    let init = Arc::new(a.initial());
    let mut index: HashMap<Arc<G::State>, u32> = HashMap::default();
    let mut nodes: Vec<(Arc<G::State>, u32)> = Vec::new();
    index.insert(init.clone(), 0);
    nodes.push((init, u32::MAX));
    let mut written: HashMap<G::Key, HashSet<i64>> = HashMap::default();
    let mut bytes = 0usize;
    let mut next = 0usize;
    while next < nodes.len() {
        // A state's successors can take milliseconds (many guess
        // candidates): the limits are checked every few states.
        if next.is_multiple_of(8) {
            if let Some(why) = budget.exceeded(nodes.len(), bytes) {
                // Freeing millions of states takes seconds: not before
                // the answer.
                crate::resources::drop_in_background((index, nodes, written));
                return Outcome::Cut(why);
            }
        }
        let cur = nodes[next].0.clone();
        let succ = a.successors(&cur, &mut |addr, v| {
            written.entry(addr).or_default().insert(v);
        });
        for (ns, _) in succ {
            if index.contains_key(&ns) {
                continue;
            }
            let found = goal && a.goal(&ns);
            bytes += 2 * a.bytes(&ns);
            let ns = Arc::new(ns);
            let id = nodes.len() as u32;
            index.insert(ns.clone(), id);
            nodes.push((ns.clone(), next as u32));
            budget.states.fetch_add(1, Ordering::Relaxed);
            if found {
                return Outcome::Found(path(a, &nodes, id), Box::new((*ns).clone()));
            }
            // The state limit exactly (the other limits every 8 states).
            if let Some(m) = budget.limits.max_states.filter(|&m| nodes.len() > m) {
                return Outcome::Cut(format!("state limit of {m} states"));
            }
        }
        next += 1;
    }
    Outcome::Exhausted(written)
}

/// The steps from the initial state to node `id` (each regenerated from
/// its parent's successors).
fn path<G: Generator>(a: &G, nodes: &[(Arc<G::State>, u32)], id: u32) -> Vec<G::Step> {
    let mut ids = vec![id];
    while let Some(&last) = ids.last() {
        let parent = nodes[last as usize].1;
        if parent == u32::MAX {
            break;
        }
        ids.push(parent);
    }
    ids.reverse();
    let mut steps = Vec::new();
    for w in ids.windows(2) {
        let (from, to) = (&nodes[w[0] as usize].0, &nodes[w[1] as usize].0);
        if let Some((_, st)) = a
            .successors(from, &mut |_, _| {})
            .into_iter()
            .find(|(s, _)| s == &**to)
        {
            steps.push(st);
        }
    }
    steps
}

/// The guess candidates of the program: the search without marks
/// (profile of no thread) repeated until every value written in a part
/// is a candidate of the later parts. `Err`: a limit was hit.
pub(crate) fn close_candidates(
    a: &mut Automaton<'_>,
    budget: &Budget,
) -> Result<Candidates, String> {
    loop {
        match bfs(a, false, budget) {
            Outcome::Exhausted(w) => {
                if !a.absorb(&w) {
                    return Ok(a.cands.clone());
                }
            }
            Outcome::Cut(why) => return Err(why),
            // No goal without marks: the search never stops at one.
            Outcome::Found(..) => return Err("internal: a goal without marks".into()),
        }
    }
}

/// The guess candidates from the program text, when every store writes a
/// constant to a constant address (`stored`: the (address, value) pairs,
/// [`super::program_class::stored_constants`]): per address its initial
/// value and the values stored to it. A superset of the values some run
/// writes, so no run is lost (the argument above), and a guess no run
/// writes never agrees with the end of the previous part, so none is
/// added either: the join check (Lemma 3.3) drops it.
pub(crate) fn static_candidates(a: &Automaton<'_>, stored: &[(i64, i64)]) -> Candidates {
    let mut cands: HashMap<i64, Vec<i64>> = HashMap::default();
    for &(addr, v) in stored {
        let c = cands.entry(addr).or_insert_with(|| vec![a.init_val(addr)]);
        if !c.contains(&v) {
            c.push(v);
        }
    }
    for c in cands.values_mut() {
        c.sort_unstable();
    }
    Candidates::both(cands)
}
