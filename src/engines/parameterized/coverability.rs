//! Backward coverability of Petri nets (thesis `003_…` §2.2, Lemma 2.2;
//! the classical backward algorithm of Abdulla, Čerāns, Jonsson and Tsay,
//! "General decidability theorems for infinite-state systems", LICS 1996):
//! the set of markings from which a target can be covered is upward
//! closed, so it is represented by its finite set of minimal elements (a
//! *basis*), computed as a fixpoint of pre-images.
//!
//! The loop is iterative (a work list, no recursion), checks the deadline
//! and the process memory budget ([`crate::resources`]) as it grows, and
//! prunes elements that violate known place invariants (groups of places
//! holding at most `bound` tokens together in every reachable marking —
//! memory cells, the lock, single threads), which keeps the basis small
//! without losing any reachable marking.

use super::petri::{covers, pre_image, Marking, Net, Place};
use std::time::Instant;

/// A place invariant used for pruning: in every reachable marking the
/// places of the group hold at most `bound` tokens together.
#[derive(Clone, Debug)]
pub struct Group {
    /// The places.
    pub places: Vec<Place>,
    /// The bound on their total.
    pub bound: u32,
}

/// A second kind of invariant used for pruning: no reachable marking puts
/// tokens both in some place of `left` and in some place of `right` (e.g.
/// "before the attacker's load, no access level is set").
#[derive(Clone, Debug)]
pub struct Conflict {
    /// One side.
    pub left: Vec<Place>,
    /// The other side.
    pub right: Vec<Place>,
}

/// Resource bounds of one fixpoint computation.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// Wall-clock deadline (`None` = none).
    pub deadline: Option<Instant>,
    /// Most basis elements created (each a pre-image kept at the time).
    pub max_elements: usize,
    /// Print the search's progress on stderr every 20 000 elements taken
    /// from the work queue ([`crate::engines::Switches::param_debug`]).
    pub debug: bool,
}

/// One element ever added to the basis: a marking and how it leads to a
/// target — firing `via.0` in a marking covering it yields a marking
/// covering element `via.1` (`None` for a target).
#[derive(Clone, Debug)]
pub struct Elem {
    /// The marking (a minimal element at the time it was added).
    pub marking: Marking,
    /// `(transition, next element)`.
    pub via: Option<(usize, usize)>,
}

/// The result of [`backward`]: every element created (later ones may
/// subsume earlier ones) and the indices of the minimal ones at the
/// fixpoint — the basis of the upward-closed set of markings from which a
/// target marking is coverable.
#[derive(Clone, Debug)]
pub struct Basis {
    /// All elements created, in creation order.
    pub elems: Vec<Elem>,
    /// Indices of the basis at the fixpoint (or at the early stop).
    pub minimal: Vec<usize>,
    /// Pre-images computed (including discarded ones).
    pub pre_images: u64,
}

impl Basis {
    /// Basis elements covered by `init` (an initial marking, possibly with
    /// ω): the target is coverable from `init` iff this is non-empty.
    pub fn covered_by(&self, init: &Marking) -> Vec<usize> {
        self.minimal
            .iter()
            .copied()
            .filter(|&i| covers(init, &self.elems[i].marking))
            .collect()
    }

    /// The transitions leading from element `i` to a target, in firing
    /// order (at most `elems.len()` of them).
    pub fn path(&self, mut i: usize) -> Vec<usize> {
        let mut out = Vec::new();
        while let Some((t, next)) = self.elems.get(i).and_then(|e| e.via) {
            out.push(t);
            i = next;
            if out.len() > self.elems.len() {
                break; // cannot happen: `next` was created before `i`
            }
        }
        out
    }
}

/// Why [`backward`] stopped without a fixpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LimitHit(pub String);

/// The invariants of [`backward`] in a form fast to test: per place, its
/// groups and its conflict sides.
struct Invariants<'a> {
    groups: &'a [Group],
    group_of: Vec<Vec<usize>>,
    /// Per place: bit 0 = on some left side, bit 1 = on some right side
    /// of conflict `k` (`sides[p]` lists `(k, bits)`).
    sides: Vec<Vec<(usize, u8)>>,
    conflicts: usize,
}

impl<'a> Invariants<'a> {
    fn new(np: usize, groups: &'a [Group], conflicts: &[Conflict]) -> Invariants<'a> {
        let mut group_of: Vec<Vec<usize>> = vec![Vec::new(); np];
        for (gi, g) in groups.iter().enumerate() {
            for &p in &g.places {
                if let Some(v) = group_of.get_mut(p as usize) {
                    v.push(gi);
                }
            }
        }
        let mut sides: Vec<Vec<(usize, u8)>> = vec![Vec::new(); np];
        for (k, c) in conflicts.iter().enumerate() {
            for (list, bit) in [(&c.left, 1u8), (&c.right, 2u8)] {
                for &p in list {
                    if let Some(v) = sides.get_mut(p as usize) {
                        v.push((k, bit));
                    }
                }
            }
        }
        Invariants {
            groups,
            group_of,
            sides,
            conflicts: conflicts.len(),
        }
    }

    /// True when no reachable marking covers `m`.
    fn violated(&self, m: &Marking, sums: &mut Vec<u32>, seen: &mut Vec<u8>) -> bool {
        seen.clear();
        seen.resize(self.conflicts, 0);
        for &(p, _) in m {
            if let Some(v) = self.sides.get(p as usize) {
                for &(k, bit) in v {
                    seen[k] |= bit;
                    if seen[k] == 3 {
                        return true;
                    }
                }
            }
        }
        violates(m, self.groups, &self.group_of, sums)
    }
}

fn violates(m: &Marking, groups: &[Group], group_of: &[Vec<usize>], sums: &mut Vec<u32>) -> bool {
    sums.clear();
    sums.resize(groups.len(), 0);
    for &(p, c) in m {
        if let Some(gs) = group_of.get(p as usize) {
            for &g in gs {
                sums[g] = sums[g].saturating_add(c);
                if sums[g] > groups[g].bound {
                    return true;
                }
            }
        }
    }
    false
}

/// The backward coverability fixpoint: the minimal markings from which
/// some marking of `targets` can be covered in `net`, pruned by the place
/// invariants `groups` and `conflicts`. With `stop_at = Some(init)` the loop ends as soon
/// as an element covered by `init` appears (then `minimal` is not the
/// whole basis, but [`Basis::covered_by`] finds that element).
///
/// Shape: markings are over `net.places`; the returned basis indexes
/// `elems`. Terminates on every net (Dickson's lemma) unless a limit is
/// hit first.
///
/// Errors: [`LimitHit`] when the deadline passes, the memory budget is
/// exceeded, or more than `budget.max_elements` elements are created.
pub fn backward(
    net: &Net,
    targets: &[Marking],
    groups: &[Group],
    conflicts: &[Conflict],
    budget: Budget,
    stop_at: Option<&Marking>,
) -> Result<Basis, LimitHit> {
    let np = net.places.len();
    let mut post_index: Vec<Vec<usize>> = vec![Vec::new(); np];
    for (ti, t) in net.transitions.iter().enumerate() {
        for &(p, _) in &t.post {
            post_index[p as usize].push(ti);
        }
    }
    let inv = Invariants::new(np, groups, conflicts);
    let mut seen_sides = Vec::new();
    let mut b = Basis {
        elems: Vec::new(),
        minimal: Vec::new(),
        pre_images: 0,
    };
    let mut active: Vec<bool> = Vec::new();
    let mut work: std::collections::VecDeque<usize> = Default::default();
    let mut sums = Vec::new();
    let mut bytes = 0usize;
    // Indices over the elements (inactive ones are skipped): by one place
    // of their support (an element below `m` has that place in `m`'s
    // support), and by every place of their support (an element above `m`
    // contains every place of `m`).
    let mut idx = Index {
        by_first: vec![Vec::new(); np],
        by_place: vec![Vec::new(); np],
    };
    for t in targets {
        if !inv.violated(t, &mut sums, &mut seen_sides) {
            add_element(&mut b, &mut active, &mut idx, &mut work, t.clone(), None);
        }
    }
    if let Some(init) = stop_at {
        if b.elems.iter().any(|e| covers(init, &e.marking)) {
            b.minimal = live(&active);
            return Ok(b);
        }
    }
    let mut seen: Vec<usize> = vec![usize::MAX; net.transitions.len()];
    let mut cand: Vec<usize> = Vec::new();
    let mut tick = 0u64;
    let debug = budget.debug;
    while let Some(i) = work.pop_front() {
        if !active[i] {
            continue;
        }
        tick += 1;
        if debug && tick.is_multiple_of(20_000) {
            eprintln!(
                "  backward: {} elements, {} minimal-ish, {} queued, {} pre-images",
                b.elems.len(),
                active.iter().filter(|a| **a).count(),
                work.len(),
                b.pre_images
            );
            if let Some(e) = b.elems.last() {
                eprintln!("    last: {}", net.show(&e.marking));
            }
        }
        if tick.is_multiple_of(64) {
            if budget.deadline.is_some_and(|d| Instant::now() >= d) {
                return Err(LimitHit("time limit reached".into()));
            }
            crate::resources::check_memory().map_err(LimitHit)?;
        }
        let m = b.elems[i].marking.clone();
        // Only transitions producing into the support of `m` give a
        // pre-image not covering `m` itself.
        cand.clear();
        for &(p, _) in &m {
            for &t in &post_index[p as usize] {
                if seen[t] != i {
                    seen[t] = i;
                    cand.push(t);
                }
            }
        }
        cand.sort_unstable();
        for &t in &cand {
            b.pre_images += 1;
            let pre = pre_image(&m, &net.transitions[t]);
            if inv.violated(&pre, &mut sums, &mut seen_sides) {
                continue;
            }
            let len = pre.len();
            if let Some(k) =
                add_element(&mut b, &mut active, &mut idx, &mut work, pre, Some((t, i)))
            {
                bytes += 48 + 8 * len;
                if b.elems.len() > budget.max_elements {
                    return Err(LimitHit(format!(
                        "coverability limit ({} basis elements, ~{} MiB)",
                        b.elems.len(),
                        bytes >> 20
                    )));
                }
                if stop_at.is_some_and(|init| covers(init, &b.elems[k].marking)) {
                    b.minimal = live(&active);
                    return Ok(b);
                }
            }
        }
    }
    b.minimal = live(&active);
    Ok(b)
}

/// Indices over the basis elements (inactive ones are skipped): by one
/// place of their support (an element below `m` has that place in `m`'s
/// support), and by every place of their support (an element above `m`
/// contains every place of `m`).
struct Index {
    by_first: Vec<Vec<usize>>,
    by_place: Vec<Vec<usize>>,
}

/// Adds `m` (reached by `via`) to the basis `b` unless an active element
/// is below it, deactivating the active elements above it, registering it
/// in `idx` and queueing it in `work`; returns its index when added.
fn add_element(
    b: &mut Basis,
    active: &mut Vec<bool>,
    idx: &mut Index,
    work: &mut std::collections::VecDeque<usize>,
    m: Marking,
    via: Option<(usize, usize)>,
) -> Option<usize> {
    for &(p, _) in &m {
        if idx.by_first[p as usize]
            .iter()
            .any(|&j| active[j] && covers(&m, &b.elems[j].marking))
        {
            return None;
        }
    }
    if let Some(&(rare, _)) = m
        .iter()
        .min_by_key(|(p, _)| idx.by_place[*p as usize].len())
    {
        for &j in &idx.by_place[rare as usize] {
            if active[j] && covers(&b.elems[j].marking, &m) {
                active[j] = false;
            }
        }
    } else {
        // The empty marking covers everything: it is the whole basis.
        active.iter_mut().for_each(|a| *a = false);
    }
    let i = b.elems.len();
    // Registered under its place with the fewest registrations.
    if let Some(&(p, _)) = m
        .iter()
        .min_by_key(|(p, _)| idx.by_first[*p as usize].len())
    {
        idx.by_first[p as usize].push(i);
    }
    for &(p, _) in &m {
        idx.by_place[p as usize].push(i);
    }
    b.elems.push(Elem { marking: m, via });
    active.push(true);
    work.push_back(i);
    Some(i)
}

fn live(active: &[bool]) -> Vec<usize> {
    (0..active.len()).filter(|&i| active[i]).collect()
}

#[cfg(test)]
mod tests {
    use super::super::petri::{fire, Net, OMEGA};
    use super::*;

    fn budget() -> Budget {
        Budget {
            deadline: None,
            max_elements: 100_000,
            debug: false,
        }
    }

    /// p0 --t0--> p1; p1 + p1 --t1--> p2: covering p2 needs two tokens
    /// in p0.
    #[test]
    fn two_tokens_needed() {
        let mut n = Net::default();
        for i in 0..3 {
            n.add_place(format!("p{i}"));
        }
        n.add_transition(vec![(0, 1)], vec![(1, 1)]);
        n.add_transition(vec![(1, 2)], vec![(2, 1)]);
        let b = backward(&n, &[vec![(2, 1)]], &[], &[], budget(), None).unwrap();
        assert!(b.covered_by(&vec![(0, 1)]).is_empty());
        let hit = b.covered_by(&vec![(0, OMEGA)]);
        assert_eq!(hit.len(), 1);
        assert_eq!(b.elems[hit[0]].marking, vec![(0, 2)]);
        // The path fires from the element to the target.
        let mut m = b.elems[hit[0]].marking.clone();
        for t in b.path(hit[0]) {
            m = fire(&m, &n.transitions[t]).unwrap();
        }
        assert!(covers(&m, &vec![(2, 1)]));
    }

    /// A group bound of 1 on {p0, p1} prunes the only way to p2.
    #[test]
    fn invariants_prune() {
        let mut n = Net::default();
        for i in 0..3 {
            n.add_place(format!("p{i}"));
        }
        n.add_transition(vec![(0, 1)], vec![(1, 1)]);
        n.add_transition(vec![(1, 2)], vec![(2, 1)]);
        let g = [Group {
            places: vec![0, 1],
            bound: 1,
        }];
        let b = backward(&n, &[vec![(2, 1)]], &g, &[], budget(), None).unwrap();
        assert!(b.covered_by(&vec![(0, OMEGA)]).is_empty());
    }

    #[test]
    fn limits_are_reported() {
        // A counter that needs many tokens: p0 --> p1; p1×k covers target.
        let mut n = Net::default();
        for i in 0..2 {
            n.add_place(format!("p{i}"));
        }
        n.add_transition(vec![(0, 1)], vec![(1, 1)]);
        n.add_transition(vec![(1, 1)], vec![(0, 1)]);
        let tiny = Budget {
            deadline: None,
            max_elements: 0,
            debug: false,
        };
        assert!(backward(&n, &[vec![(1, 5)]], &[], &[], tiny, None).is_err());
    }
}
