//! The Shasha–Snir trace of an execution (seed `001_…` §3, "Shasha-Snir
//! Traces", after Bouajjani et al.): its events are the threads' steps
//! (updates excluded); its edges program order (po), store order (co:
//! the order in which stores reach memory, per address), source (rf: the
//! store a load read, through memory or by buffer forwarding) and
//! conflict (fr: the load before the next store of its address in co).
//!
//! [`SsTrace`] is built on the fly from the steps' effects; [`SsTrace::key`]
//! is a canonical 128-bit key (two executions have the same key iff they
//! have the same trace, up to hash collisions), used to count distinct
//! traces; [`SsTrace::hb_cycle`] finds a cycle of po ∪ rf ∪ co ∪ fr (a
//! trace no SC execution has: the robustness question of "Stateless model checking for TSO and PSO" (TACAS 2015) and
//! thesis `003_…` §2.8).
//!
//! The global lock is the pseudo-address [`super::semantics::LOCK_ADDR`]:
//! `lock` is a read-modify-write of it, `unlock` a write.

use super::semantics::{Effect, Loc, Step, LOCK_ADDR};
use crate::collections::HashMap;
use crate::program::Program;
use std::collections::BTreeMap;

/// A store of the trace: `(thread, index of the step in the thread)`.
pub type StoreId = (u32, u32);

/// One event of the trace: a thread's step with its shared accesses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SsEvent {
    /// The step (always [`Step::Instr`]).
    pub step: Step,
    /// Reads: `(address, source store or None for the initial value)`.
    pub reads: smallvec::SmallVec<[(Loc, Option<StoreId>); 1]>,
    /// Addresses written (stores: when they reach memory).
    pub writes: smallvec::SmallVec<[Loc; 1]>,
}

/// The Shasha–Snir trace of an execution, built step by step.
#[derive(Clone, Debug, Default)]
pub struct SsTrace {
    /// Events per thread, in program order.
    pub threads: Vec<Vec<SsEvent>>,
    /// Per address, the stores in the order they reached memory (co).
    pub co: BTreeMap<Loc, Vec<StoreId>>,
    /// The store whose value memory holds, per address.
    src: HashMap<Loc, StoreId>,
    /// Per thread, the stores in its buffer(s), oldest first.
    buf: Vec<Vec<StoreId>>,
    /// How to undo each change, newest last ([`SsTrace::mark`],
    /// [`SsTrace::undo_to`]).
    undo: Vec<SsUndo>,
    /// The key so far: the sum (two 64-bit lanes) of the hashes of the
    /// trace's elements ([`SsTrace::key`]).
    sum: [u64; 2],
}

/// The splitmix64 finalizer: a bijective mix of 64 bits.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A hash of a word sequence, spread over two lanes.
fn hash2(words: impl Iterator<Item = i64>) -> [u64; 2] {
    let h = words.fold(0x243f_6a88_85a3_08d3, |h: u64, w| {
        (h.rotate_left(23) ^ w as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)
    });
    [mix(h), mix(h ^ 0x1319_8a2e_0370_7344)]
}

/// The hash of event number `i` of thread `t`: its instruction and each
/// read's address and source.
fn event_hash(t: u32, i: u32, e: &SsEvent) -> [u64; 2] {
    let instr = match e.step {
        Step::Instr { instr, .. } => instr as i64,
        Step::Flush { .. } => -4,
    };
    let reads = e.reads.iter().flat_map(|(a, s)| {
        let (x, y) = match s {
            Some((st, i)) => (*st as i64, *i as i64),
            None => (-2, -2),
        };
        [*a as i64, (*a >> 64) as i64, x, y]
    });
    hash2([-1, t as i64, i as i64, instr].into_iter().chain(reads))
}

/// The hash of store `id` at position `pos` of address `a`'s co.
fn co_hash(a: Loc, pos: usize, id: StoreId) -> [u64; 2] {
    let words = [
        -3,
        a as i64,
        (a >> 64) as i64,
        pos as i64,
        id.0 as i64,
        id.1 as i64,
    ];
    hash2(words.into_iter())
}

/// One change of [`SsTrace::push`], as what restores it.
#[derive(Clone, Debug)]
enum SsUndo {
    /// An event was pushed on the thread's list (its hash).
    Event(u32, [u64; 2]),
    /// A store was appended to the address' co (its hash); memory held
    /// this store.
    Co(Loc, Option<StoreId>, [u64; 2]),
    /// A store was pushed on the thread's buffer.
    BufPush(u32),
    /// This store was removed from the thread's buffer at the position.
    BufRemove(u32, usize, StoreId),
}

impl SsTrace {
    /// The empty trace of a program with `threads` threads.
    pub fn new(threads: usize) -> SsTrace {
        SsTrace {
            threads: vec![Vec::new(); threads],
            buf: vec![Vec::new(); threads],
            ..SsTrace::default()
        }
    }

    fn add(&mut self, h: [u64; 2]) {
        self.sum[0] = self.sum[0].wrapping_add(h[0]);
        self.sum[1] = self.sum[1].wrapping_add(h[1]);
    }

    fn sub(&mut self, h: [u64; 2]) {
        self.sum[0] = self.sum[0].wrapping_sub(h[0]);
        self.sum[1] = self.sum[1].wrapping_sub(h[1]);
    }

    fn write(&mut self, a: Loc, id: StoreId) {
        let l = self.co.entry(a).or_default();
        l.push(id);
        let h = co_hash(a, l.len() - 1, id);
        self.add(h);
        let old = self.src.insert(a, id);
        self.undo.push(SsUndo::Co(a, old, h));
    }

    /// A mark of the current trace for [`SsTrace::undo_to`].
    pub fn mark(&self) -> usize {
        self.undo.len()
    }

    /// Restores the trace at `mark` (a value of [`SsTrace::mark`] taken
    /// earlier; the steps since are forgotten).
    pub fn undo_to(&mut self, mark: usize) {
        while self.undo.len() > mark {
            let Some(u) = self.undo.pop() else { break };
            match u {
                SsUndo::Event(t, h) => {
                    self.threads[t as usize].pop();
                    self.sub(h);
                }
                SsUndo::Co(a, old, h) => {
                    if let Some(l) = self.co.get_mut(&a) {
                        l.pop();
                        if l.is_empty() {
                            self.co.remove(&a);
                        }
                    }
                    self.sub(h);
                    match old {
                        Some(s) => self.src.insert(a, s),
                        None => self.src.remove(&a),
                    };
                }
                SsUndo::BufPush(t) => {
                    self.buf[t as usize].pop();
                }
                SsUndo::BufRemove(t, pos, id) => self.buf[t as usize].insert(pos, id),
            }
        }
    }

    /// Adds the step `step` with effect `eff`.
    pub fn push(&mut self, step: Step, eff: &Effect) {
        let t = step.thread() as usize;
        if let Step::Flush { .. } = step {
            if let Effect::Update { addr, pos, .. } = *eff {
                if pos < self.buf[t].len() {
                    let id = self.buf[t].remove(pos);
                    self.undo.push(SsUndo::BufRemove(t as u32, pos, id));
                    self.write(Loc::from(addr), id);
                }
            }
            return;
        }
        let id: StoreId = (t as u32, self.threads[t].len() as u32);
        let mut ev = SsEvent {
            step,
            reads: Default::default(),
            writes: Default::default(),
        };
        match eff {
            Effect::Local | Effect::Fence | Effect::Update { .. } => {}
            Effect::Buffered { addr, .. } => {
                ev.writes.push(Loc::from(*addr));
                self.buf[t].push(id);
                self.undo.push(SsUndo::BufPush(t as u32));
            }
            Effect::LoadMem { addr, .. } => {
                let a = Loc::from(*addr);
                ev.reads.push((a, self.src.get(&a).copied()))
            }
            Effect::LoadFwd { addr, pos, .. } => ev
                .reads
                .push((Loc::from(*addr), self.buf[t].get(*pos).copied())),
            Effect::Direct(acc) => {
                for &(a, _, w) in acc {
                    let a = Loc::from(a);
                    if w {
                        ev.writes.push(a);
                        self.write(a, id);
                    } else {
                        ev.reads.push((a, self.src.get(&a).copied()));
                    }
                }
            }
            Effect::Lock => {
                ev.reads
                    .push((LOCK_ADDR, self.src.get(&LOCK_ADDR).copied()));
                ev.writes.push(LOCK_ADDR);
                self.write(LOCK_ADDR, id);
            }
            Effect::Unlock => {
                ev.writes.push(LOCK_ADDR);
                self.write(LOCK_ADDR, id);
            }
        }
        let h = event_hash(t as u32, self.threads[t].len() as u32, &ev);
        self.add(h);
        self.threads[t].push(ev);
        self.undo.push(SsUndo::Event(t as u32, h));
    }

    /// The canonical key of the trace: two 64-bit lanes, each the sum of
    /// the hashes of the trace's elements (each thread's events with their
    /// instruction and each read's source; each address's stores with
    /// their co position). A sum does not depend on the order the
    /// elements were added in, so the key is kept up to date step by step
    /// (and undone) in constant time per step.
    pub fn key(&self) -> u128 {
        ((self.sum[0] as u128) << 64) | self.sum[1] as u128
    }

    /// A cycle of po ∪ rf ∪ co ∪ fr (thesis `003_…` §2.8's hb) on the
    /// events that access memory, as a list of `(thread, index)` events in
    /// cycle order; `None` when the relation is acyclic (the trace is an
    /// SC trace). Stores still buffered (no co position) take no part in
    /// co and fr. A lock section (a `lock`, the thread's events after it
    /// and the `unlock` that ends it, or the thread's last event) is one
    /// node, as an atomic step is: the computation must be equivalent to
    /// an SC one in which each is indivisible (thesis 003 §7.1.1, Table
    /// 7.1; docs/models.md, "Robustness and indivisible sections"); the
    /// section is named by its `lock`. Iterative (no recursion on the
    /// trace's size).
    pub fn hb_cycle(&self) -> Option<Vec<StoreId>> {
        // Nodes: (thread, index) of events with accesses; every event of
        // a lock section maps to the section's node.
        let mut ids: HashMap<StoreId, usize> = HashMap::default();
        let mut nodes: Vec<StoreId> = Vec::new();
        for (t, evs) in self.threads.iter().enumerate() {
            let mut section: Option<usize> = None;
            for (i, e) in evs.iter().enumerate() {
                if e.reads.is_empty() && e.writes.is_empty() {
                    continue;
                }
                let lock = e.reads.iter().any(|(a, _)| *a == LOCK_ADDR);
                let unlock = !lock && e.writes.contains(&LOCK_ADDR);
                let node = match section {
                    Some(n) => n,
                    None => {
                        nodes.push((t as u32, i as u32));
                        nodes.len() - 1
                    }
                };
                ids.insert((t as u32, i as u32), node);
                if lock {
                    section = Some(node);
                } else if unlock {
                    section = None;
                }
            }
        }
        let mut succ: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
        // po
        for w in nodes.windows(2) {
            if w[0].0 == w[1].0 {
                succ[ids[&w[0]]].push(ids[&w[1]]);
            }
        }
        // co, and each store's co successor
        let mut next: HashMap<(Loc, StoreId), StoreId> = HashMap::default();
        for (a, l) in &self.co {
            for w in l.windows(2) {
                if w[0] == w[1] {
                    // Two stores of one atomic step to this address: one
                    // event, no edge (the later one is what others see).
                    continue;
                }
                if let (Some(&x), Some(&y)) = (ids.get(&w[0]), ids.get(&w[1])) {
                    if x != y {
                        succ[x].push(y);
                    }
                }
                next.insert((*a, w[0]), w[1]);
            }
        }
        // rf, fr
        for (t, evs) in self.threads.iter().enumerate() {
            for (i, e) in evs.iter().enumerate() {
                let Some(&me) = ids.get(&(t as u32, i as u32)) else {
                    continue;
                };
                for (a, s) in &e.reads {
                    let after = match s {
                        Some(s) => {
                            if let Some(&x) = ids.get(s) {
                                if x != me {
                                    succ[x].push(me);
                                }
                            }
                            next.get(&(*a, *s)).copied()
                        }
                        None => self.co.get(a).and_then(|l| l.first().copied()),
                    };
                    if let Some(&y) = after.as_ref().and_then(|n| ids.get(n)) {
                        if y != me {
                            succ[me].push(y);
                        }
                    }
                }
            }
        }
        find_cycle(&succ).map(|c| c.into_iter().map(|k| nodes[k]).collect())
    }

    /// The hb edge from event `a` to event `b` of a cycle found by
    /// [`SsTrace::hb_cycle`], named as the thesis names them (§2.8): `po`
    /// (same thread, `a` first), `rf` (`b` reads `a`'s store), `co` (both
    /// stores, `a` first in memory order of one address), otherwise `fr`.
    pub fn edge(&self, a: StoreId, b: StoreId) -> &'static str {
        if a.0 == b.0 && a.1 < b.1 {
            return "po";
        }
        let ev = |e: StoreId| self.threads.get(e.0 as usize)?.get(e.1 as usize);
        if ev(b).is_some_and(|e| e.reads.iter().any(|&(_, s)| s == Some(a))) {
            return "rf";
        }
        let co_before = self.co.values().any(|l| {
            let pos = |x| l.iter().position(|&y| y == x);
            matches!((pos(a), pos(b)), (Some(i), Some(j)) if i < j)
        });
        if co_before {
            "co"
        } else {
            "fr"
        }
    }

    /// The text of event `(thread, index)`: `t0: q0 -> q1  x = 1`.
    pub fn describe(&self, p: &Program, e: StoreId) -> String {
        self.threads
            .get(e.0 as usize)
            .and_then(|v| v.get(e.1 as usize))
            .map_or_else(String::new, |ev| ev.step.describe(p))
    }
}

/// A cycle of the graph `succ` (node lists), found by an iterative
/// depth-first search; `None` if the graph is acyclic.
pub fn find_cycle(succ: &[Vec<usize>]) -> Option<Vec<usize>> {
    let n = succ.len();
    // 0 = new, 1 = on the stack, 2 = done
    let mut color = vec![0u8; n];
    for root in 0..n {
        if color[root] != 0 {
            continue;
        }
        let mut stack: Vec<(usize, usize)> = vec![(root, 0)];
        color[root] = 1;
        while let Some(&mut (v, ref mut k)) = stack.last_mut() {
            if let Some(&w) = succ[v].get(*k) {
                *k += 1;
                match color[w] {
                    0 => {
                        color[w] = 1;
                        stack.push((w, 0));
                    }
                    1 => {
                        let from = stack.iter().position(|x| x.0 == w).unwrap_or(0);
                        return Some(stack[from..].iter().map(|x| x.0).collect());
                    }
                    _ => {}
                }
            } else {
                color[v] = 2;
                stack.pop();
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(thread: u32, instr: u32) -> Step {
        Step::Instr { thread, instr }
    }

    #[test]
    fn keys_ignore_the_order_of_independent_steps_and_undo_restores_them() {
        let flush = |thread| Step::Flush { thread, addr: None };
        let store = |addr, val| Effect::Buffered {
            addr,
            val,
            epoch: 0,
        };
        let upd = |addr, val| Effect::Update { addr, val, pos: 0 };
        // t0: x = 1 (flushed); t1: r = y (initial value).
        let mut a = SsTrace::new(2);
        a.push(st(0, 0), &store(1, 1));
        a.push(flush(0), &upd(1, 1));
        a.push(st(1, 0), &Effect::LoadMem { addr: 2, val: 0 });
        let mut b = SsTrace::new(2);
        b.push(st(1, 0), &Effect::LoadMem { addr: 2, val: 0 });
        b.push(st(0, 0), &store(1, 1));
        let m = b.mark();
        let k = b.key();
        b.push(flush(0), &upd(1, 1));
        assert_eq!(a.key(), b.key());
        // The load reading x after the update is another trace.
        let mut c = SsTrace::new(2);
        c.push(st(0, 0), &store(1, 1));
        c.push(flush(0), &upd(1, 1));
        c.push(st(1, 0), &Effect::LoadMem { addr: 1, val: 1 });
        assert_ne!(a.key(), c.key());
        b.undo_to(m);
        assert_eq!(b.key(), k);
        assert!(b.co.is_empty());
        assert_eq!(b.threads[0].len(), 1);
        b.push(flush(0), &upd(1, 1));
        assert_eq!(a.key(), b.key());
        assert_eq!(a.co, b.co);
    }

    #[test]
    fn cycles_are_found_and_dags_pass() {
        assert_eq!(find_cycle(&[vec![1], vec![2], vec![]]), None);
        let c = find_cycle(&[vec![1], vec![2], vec![0]]).unwrap();
        assert_eq!(c.len(), 3);
        assert!(find_cycle(&[vec![0]]).is_some());
    }
}
