//! Static relation analysis: which pairs of unrolled events may be in a
//! relation, and which must be, computed before the relations are
//! encoded, so that literals exist only for may-pairs (after Gavrilenko,
//! Ponce de León, Furbach, Heljanko, Meyer, "BMC for weak memory models:
//! relation analysis for compact SMT encodings", CAV 2019).
//!
//! * Event level ([`Analysis`]): the addresses each event may access
//!   (`unroll::Event::addr_set`, the constant addresses of the candidate
//!   instructions of its step) give the may-alias relation; `rf` may
//!   relate a write and a read that may alias (not a po-later write,
//!   the built-in restriction of the encoder), `co` two writes that may
//!   alias, `fr` a read and a write that may alias, `loc` two accesses
//!   that may alias. No value analysis: a read's value is whatever it
//!   reads, so values prune nothing without path conditions.
//! * hb ([`Analysis::hb_components`]): the strongly connected components
//!   of the may-graph of po ∪ rf ∪ co ∪ fr over memory events; an hb
//!   cycle lies inside one component, so the hb-cycle query only needs
//!   events of components with a cycle and edges inside them.
//! * Model level (`super::bounds::model_bounds`): for every `let` and axiom of a cat model,
//!   a may-relation and a must-relation (a pair is *must* when it is in
//!   the relation whenever both events are executed), evaluated over the
//!   AST from the base relations' bounds by [`crate::cat::bounds`];
//!   [`cyclic_part`] keeps the pairs of an
//!   `acyclic` axiom's may-relation that lie on a may-cycle (the others
//!   can never be on a cycle of the relation).
//!
//! Every bound is an over-approximation (may) or under-approximation
//! (must) of every execution of the unrolling; the tests check both on
//! enumerated executions.

use super::unroll::Unrolled;
use crate::cat::eval::Mat;

/// Event-level facts of one unrolling.
#[derive(Clone, Debug)]
pub struct Analysis {
    /// Per event: the addresses it may access, sorted (`None`: any).
    addrs: Vec<Option<Vec<u128>>>,
    may_read: Vec<bool>,
    may_write: Vec<bool>,
    /// Per event: it may be a located event (herd's `__srcu`).
    may_locate: Vec<bool>,
    /// Per event: (thread, step, slot, pop), for program order.
    place: Vec<(u32, u32, u32, bool)>,
}

impl Analysis {
    /// The analysis of `un`'s events.
    pub fn new(un: &Unrolled) -> Analysis {
        let ev = &un.events;
        Analysis {
            addrs: ev.iter().map(|e| e.addr_set.clone()).collect(),
            may_read: ev.iter().map(|e| e.may_read).collect(),
            may_write: ev.iter().map(|e| e.may_write).collect(),
            may_locate: ev.iter().map(|e| e.may_locate).collect(),
            place: ev
                .iter()
                .map(|e| (e.thread.0, e.step, e.slot, e.pop))
                .collect(),
        }
    }

    /// Number of events.
    pub fn n(&self) -> usize {
        self.addrs.len()
    }

    /// `a` is po-before `b` when both are executed (same thread, earlier
    /// step or slot, no PGAS pop: the encoder's `same_po`).
    pub fn po(&self, a: usize, b: usize) -> bool {
        let (x, y) = (self.place[a], self.place[b]);
        x.0 == y.0 && (x.1, x.2) < (y.1, y.2) && !x.3 && !y.3
    }

    /// The addresses `e` may access, sorted (`None`: not known
    /// statically).
    pub fn addresses(&self, e: usize) -> Option<&[u128]> {
        self.addrs[e].as_deref()
    }

    /// `a` may access memory (a read or a write).
    pub fn may_access(&self, a: usize) -> bool {
        self.may_read[a] || self.may_write[a]
    }

    /// `a` and `b` may access one address (their address sets meet, or
    /// one is not known statically).
    pub fn may_alias(&self, a: usize, b: usize) -> bool {
        match (&self.addrs[a], &self.addrs[b]) {
            (Some(x), Some(y)) => {
                let (mut i, mut j) = (0, 0);
                while i < x.len() && j < y.len() {
                    match x[i].cmp(&y[j]) {
                        std::cmp::Ordering::Less => i += 1,
                        std::cmp::Ordering::Greater => j += 1,
                        std::cmp::Ordering::Equal => return true,
                    }
                }
                false
            }
            _ => true,
        }
    }

    /// `a` and `b` access one address whenever both are accesses (each
    /// has one possible address, the same).
    pub fn must_alias(&self, a: usize, b: usize) -> bool {
        matches!((&self.addrs[a], &self.addrs[b]), (Some(x), Some(y)) if x.len() == 1 && x == y)
    }

    /// `rf(w, r)` is possible: a write and a read that may alias, not
    /// one event, `w` not po-after `r`.
    pub fn may_rf(&self, w: usize, r: usize) -> bool {
        w != r && self.may_write[w] && self.may_read[r] && !self.po(r, w) && self.may_alias(w, r)
    }

    /// `co(a, b)` is possible: two writes that may alias, `b` not
    /// po-before `a` (co agrees with po).
    pub fn may_co(&self, a: usize, b: usize) -> bool {
        a != b && self.may_write[a] && self.may_write[b] && !self.po(b, a) && self.may_alias(a, b)
    }

    /// `fr(r, w)` is possible: a read and a write that may alias.
    pub fn may_fr(&self, r: usize, w: usize) -> bool {
        r != w && self.may_read[r] && self.may_write[w] && self.may_alias(r, w)
    }

    /// `a` may have a location: an access or a located event (herd's
    /// `__srcu`, [`crate::program::Fence::Located`]).
    pub fn may_have_loc(&self, a: usize) -> bool {
        self.may_access(a) || self.may_locate[a]
    }

    /// `loc(a, b)` is possible: two events with a location (accesses or
    /// located events) that may alias.
    pub fn may_loc(&self, a: usize, b: usize) -> bool {
        self.may_have_loc(a) && self.may_have_loc(b) && self.may_alias(a, b)
    }

    /// The may-graph of hb = po ∪ rf ∪ co ∪ fr over memory events.
    pub fn may_hb(&self) -> Mat {
        let n = self.n();
        let mut m = Mat::new(n);
        for a in (0..n).filter(|&a| self.may_access(a)) {
            for b in (0..n).filter(|&b| self.may_access(b)) {
                if self.po(a, b) || self.may_rf(a, b) || self.may_co(a, b) || self.may_fr(a, b) {
                    m.set(a, b);
                }
            }
        }
        m
    }

    /// Per event, its strongly connected component in [`Analysis::may_hb`]
    /// when that component has a cycle (`None` otherwise): every hb cycle
    /// of every execution lies inside one component.
    pub fn hb_components(&self) -> Vec<Option<usize>> {
        cyclic_components(&self.may_hb())
    }
}

/// Per node, its strongly connected component in `m` when the component
/// has a cycle (two or more nodes, or a self-loop); `None` otherwise.
/// Iterative Tarjan (no recursion on the input's size).
pub fn cyclic_components(m: &Mat) -> Vec<Option<usize>> {
    let n = m.n();
    // The successor of `v` at or after position `i` (rows are scanned in
    // place: no edge lists, whose size is the square of the events).
    let succ_from = |v: usize, i: usize| -> Option<usize> {
        let words = &m.0[v].0;
        let mut w = i / 64;
        let mut bits = words.get(w)? & (!0u64).checked_shl((i % 64) as u32).unwrap_or(0);
        loop {
            if bits != 0 {
                let j = w * 64 + bits.trailing_zeros() as usize;
                return (j < n).then_some(j);
            }
            w += 1;
            bits = *words.get(w)?;
        }
    };
    let mut index = vec![usize::MAX; n];
    let mut low = vec![0; n];
    let mut on = vec![false; n];
    let mut stack = Vec::new();
    let mut comp = vec![None; n];
    let (mut next, mut ncomp) = (0, 0);
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        // (node, position of its next successor to visit)
        let mut work = vec![(root, 0usize)];
        index[root] = next;
        low[root] = next;
        next += 1;
        stack.push(root);
        on[root] = true;
        while let Some(&mut (v, ref mut i)) = work.last_mut() {
            if let Some(w) = succ_from(v, *i) {
                *i = w + 1;
                if index[w] == usize::MAX {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    stack.push(w);
                    on[w] = true;
                    work.push((w, 0));
                } else if on[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(u, _)) = work.last() {
                low[u] = low[u].min(low[v]);
            }
            if low[v] == index[v] {
                let mut members = Vec::new();
                loop {
                    let w = stack.pop().expect("Tarjan stack");
                    on[w] = false;
                    members.push(w);
                    if w == v {
                        break;
                    }
                }
                if members.len() > 1 || m.get(v, v) {
                    for w in members {
                        comp[w] = Some(ncomp);
                    }
                    ncomp += 1;
                }
            }
        }
    }
    comp
}

/// The pairs of `m` inside one cyclic strongly connected component of
/// `m`: those that can lie on a cycle of a relation contained in `m`.
pub fn cyclic_part(m: &Mat) -> Mat {
    let comp = cyclic_components(m);
    let n = m.n();
    let mut out = Mat::new(n);
    for a in 0..n {
        for b in m.0[a].iter() {
            if comp[a].is_some() && comp[a] == comp[b] {
                out.set(a, b);
            }
        }
    }
    out
}
