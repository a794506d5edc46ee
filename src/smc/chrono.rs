//! The happens-before relation of chronological traces (seed `001_…` §3
//! and Appendix 0.B), computed on the fly with vector clocks over actors
//! (threads and their auxiliary update threads), and the races Source-DPOR
//! reverses.
//!
//! Edges (for events of an execution): program order of each actor;
//! store → its update (su); update → next update of the address (uu);
//! update → load that reads it from memory, when the update is another
//! thread's (src); load → the update that overwrites the value it read
//! (cf; a load satisfied by buffer forwarding joins the address' readers
//! only when its buffer entry reaches memory); the thread's updates →
//! a fence, atomic or lock step (uf); PSO: updates of an earlier
//! #StoreStore epoch → updates of a later one. The global lock is a
//! pseudo-address every memory access of another thread reads and
//! `lock`/`unlock` write.
//!
//! Races are the src, cf and uu edges (and their equivalents for atomics,
//! SC stores and the lock) between events of different threads whose
//! source is an immediate happens-before predecessor of the target.

use super::semantics::{Actor, Effect, Step, LOCK_ADDR};
use crate::collections::HashMap;

/// A vector clock: entry `a` counts the events of actor `a` observed
/// (missing entries are 0).
pub type Clock = Vec<u32>;

fn join(a: &mut Clock, b: &[u32]) {
    if a.len() < b.len() {
        a.resize(b.len(), 0);
    }
    for (x, y) in a.iter_mut().zip(b) {
        *x = (*x).max(*y);
    }
}

/// Actor numbering, stable across the executions of one exploration.
#[derive(Clone, Debug, Default)]
pub struct Actors {
    ids: HashMap<Actor, u32>,
    /// The actors, by number.
    pub list: Vec<Actor>,
}

impl Actors {
    /// The number of `a`, assigned on first use.
    pub fn id(&mut self, a: Actor) -> u32 {
        if let Some(&i) = self.ids.get(&a) {
            return i;
        }
        let i = self.list.len() as u32;
        self.ids.insert(a, i);
        self.list.push(a);
        i
    }
}

/// One event of the chronological trace.
#[derive(Clone, Debug)]
pub struct Event {
    /// Actor number.
    pub actor: u32,
    /// 1 + the number of earlier events of the actor.
    pub idx: u32,
    /// The program thread (the buffer's owner for an update).
    pub thread: u32,
    /// Its vector clock (includes itself).
    pub clock: Clock,
    /// For an `unlock`: the position of the thread's `lock` before it.
    pub lock_of: Option<usize>,
}

impl Event {
    /// Whether this event happens before (or is) the event with clock `c`.
    pub fn before(&self, c: &[u32]) -> bool {
        c.get(self.actor as usize).is_some_and(|&x| x >= self.idx)
    }
}

/// The auxiliary configuration of the paper's Appendix 0.B: clocks,
/// the last update and the readers of each address, the buffer entries'
/// stores and forwarded loads.
#[derive(Clone, Debug, Default)]
pub struct Chrono {
    /// The events, in execution order.
    pub events: Vec<Event>,
    clock: Vec<Clock>,
    last: HashMap<i64, usize>,
    readers: HashMap<i64, Vec<(u32, usize)>>,
    /// Per thread: `(store event, latest forwarded load, epoch)` of each
    /// buffered store, oldest first (parallel to the semantics' buffer).
    buf: Vec<Vec<(usize, Option<usize>, u32)>>,
    /// Per thread: the join of its updates' clocks.
    flushed: Vec<Clock>,
    /// Per thread and PSO epoch: the join of its updates' clocks.
    epochs: Vec<BTreeMapClock>,
    /// Per thread: its last `lock` event.
    locked: Vec<Option<usize>>,
    /// Every write event per address (for steps that may wait).
    writes: HashMap<i64, Vec<usize>>,
}

type BTreeMapClock = std::collections::BTreeMap<u32, Clock>;

/// A step that has not run (a waiting thread's read at the end of an
/// execution): its actor, index and clock, for race reversal.
#[derive(Clone, Debug)]
pub struct Pending {
    /// Actor number.
    pub actor: u32,
    /// Its index.
    pub idx: u32,
    /// Its clock.
    pub clock: Clock,
}

impl Chrono {
    /// The empty configuration for `threads` threads.
    pub fn new(threads: usize) -> Chrono {
        Chrono {
            buf: vec![Vec::new(); threads],
            flushed: vec![Clock::new(); threads],
            epochs: vec![BTreeMapClock::new(); threads],
            locked: vec![None; threads],
            ..Chrono::default()
        }
    }

    fn actor_clock(&mut self, a: u32) -> &mut Clock {
        let a = a as usize;
        if self.clock.len() <= a {
            self.clock.resize(a + 1, Clock::new());
        }
        &mut self.clock[a]
    }

    fn reader(&mut self, x: i64, actor: u32, ev: usize) {
        let r = self.readers.entry(x).or_default();
        match r.iter_mut().find(|p| p.0 == actor) {
            Some(p) => p.1 = ev,
            None => r.push((actor, ev)),
        }
    }

    /// Candidates for a read of `x` by thread `t`: the last write, if
    /// another thread's.
    fn read_cands(&self, x: i64, t: u32, out: &mut Vec<usize>) {
        if let Some(&u) = self.last.get(&x) {
            if self.events[u].thread != t {
                out.push(u);
            }
        }
    }

    /// Candidates for a write of `x` by thread `t`: the last write and the
    /// readers, if other threads'.
    fn write_cands(&self, x: i64, t: u32, out: &mut Vec<usize>) {
        self.read_cands(x, t, out);
        for &(_, r) in self.readers.get(&x).into_iter().flatten() {
            if self.events[r].thread != t {
                out.push(r);
            }
        }
    }

    /// Adds the step `step` (actor number `actor`) with effect `eff`;
    /// returns the positions of the earlier events it races with (empty
    /// when `races` is false: replays).
    ///
    /// A step that may wait for other actors (`waits`: an atomic with a
    /// condition, `lock`) also races with every earlier write of another
    /// thread to an address it reads, immediate or not: one of them may be
    /// the write that let it run, and running it before that write is
    /// another execution.
    pub fn push(
        &mut self,
        actor: u32,
        step: Step,
        eff: &Effect,
        races: bool,
        waits: bool,
    ) -> Vec<usize> {
        let t = step.thread();
        let tu = t as usize;
        let id = self.events.len();
        let mut pre = self.actor_clock(actor).clone();
        if pre.len() <= actor as usize {
            pre.resize(actor as usize + 1, 0);
        }
        pre[actor as usize] += 1;
        let idx = pre[actor as usize];
        let mut cands: Vec<usize> = Vec::new();
        let mut lock_of = None;
        let is_update = matches!(step, Step::Flush { .. });
        match eff {
            Effect::Local => {}
            Effect::Fence => join(&mut pre, &self.flushed[tu]),
            Effect::Buffered { epoch, .. } => self.buf[tu].push((id, None, *epoch)),
            Effect::LoadFwd { pos, .. } => {
                if let Some(e) = self.buf[tu].get_mut(*pos) {
                    e.1 = Some(id);
                }
            }
            Effect::LoadMem { addr, .. } => {
                self.read_cands(*addr, t, &mut cands);
                self.read_cands(LOCK_ADDR, t, &mut cands);
            }
            Effect::Update { addr, pos, .. } => {
                if *pos < self.buf[tu].len() {
                    let (st, _, ep) = self.buf[tu][*pos];
                    join(&mut pre, &self.events[st].clock.clone());
                    let earlier: Vec<Clock> = self.epochs[tu]
                        .range(..ep)
                        .map(|(_, c)| c.clone())
                        .collect();
                    for c in earlier {
                        join(&mut pre, &c);
                    }
                }
                self.write_cands(*addr, t, &mut cands);
                self.read_cands(LOCK_ADDR, t, &mut cands);
            }
            Effect::Direct(acc) => {
                join(&mut pre, &self.flushed[tu]);
                for &(a, _, w) in acc {
                    if w {
                        self.write_cands(a, t, &mut cands);
                    } else {
                        self.read_cands(a, t, &mut cands);
                    }
                }
                self.read_cands(LOCK_ADDR, t, &mut cands);
            }
            Effect::Lock | Effect::Unlock => {
                join(&mut pre, &self.flushed[tu]);
                self.write_cands(LOCK_ADDR, t, &mut cands);
                if matches!(eff, Effect::Unlock) {
                    lock_of = self.locked[tu];
                }
            }
        }
        cands.sort_unstable();
        cands.dedup();
        let mut found = Vec::new();
        if races {
            for &c in &cands {
                let e = &self.events[c];
                let covered = e.before(&pre)
                    || cands
                        .iter()
                        .any(|&d| d != c && e.before(&self.events[d].clock));
                if !covered {
                    found.push(c);
                }
            }
        }
        if races && waits {
            let reads: Vec<i64> = match eff {
                Effect::Direct(acc) => acc.iter().filter(|x| !x.2).map(|x| x.0).collect(),
                Effect::Lock => vec![LOCK_ADDR],
                _ => Vec::new(),
            };
            self.weak_races(&reads, t, &mut found);
        }
        let mut clock = pre;
        for &c in &cands {
            let cc = self.events[c].clock.clone();
            join(&mut clock, &cc);
        }
        match eff {
            Effect::Update { addr, .. } => self.writes.entry(*addr).or_default().push(id),
            Effect::Direct(acc) => {
                for &(a, _, w) in acc {
                    if w {
                        self.writes.entry(a).or_default().push(id);
                    }
                }
            }
            Effect::Lock | Effect::Unlock => self.writes.entry(LOCK_ADDR).or_default().push(id),
            _ => {}
        }
        // Bookkeeping after the step.
        match eff {
            Effect::LoadMem { addr, .. } => {
                self.reader(*addr, actor, id);
                self.reader(LOCK_ADDR, actor, id);
            }
            Effect::Update { addr, pos, .. } => {
                let fwd = if *pos < self.buf[tu].len() {
                    let (_, fwd, ep) = self.buf[tu].remove(*pos);
                    join(self.epochs[tu].entry(ep).or_default(), &clock);
                    fwd
                } else {
                    None
                };
                self.last.insert(*addr, id);
                let fr = self.readers.entry(*addr).or_default();
                fr.clear();
                if let Some(l) = fwd {
                    fr.push((self.events[l].actor, l));
                }
                join(&mut self.flushed[tu], &clock);
                self.reader(LOCK_ADDR, actor, id);
            }
            Effect::Direct(acc) => {
                for &(a, _, w) in acc {
                    if w {
                        self.last.insert(a, id);
                        self.readers.entry(a).or_default().clear();
                    }
                }
                for &(a, _, w) in acc {
                    if !w && !acc.iter().any(|x| x.0 == a && x.2) {
                        self.reader(a, actor, id);
                    }
                }
                self.reader(LOCK_ADDR, actor, id);
            }
            Effect::Lock | Effect::Unlock => {
                self.last.insert(LOCK_ADDR, id);
                self.readers.entry(LOCK_ADDR).or_default().clear();
                if matches!(eff, Effect::Lock) {
                    self.locked[tu] = Some(id);
                }
            }
            _ => {}
        }
        let _ = is_update;
        *self.actor_clock(actor) = clock.clone();
        self.events.push(Event {
            actor,
            idx,
            thread: t,
            clock,
            lock_of,
        });
        found
    }

    /// A read of `addrs` by `actor` (of thread `t`) that has not run (it
    /// waits): its clock and the events it would race with.
    pub fn pending_read(&self, actor: u32, t: u32, addrs: &[i64]) -> (Pending, Vec<usize>) {
        let mut pre = self.clock.get(actor as usize).cloned().unwrap_or_default();
        if pre.len() <= actor as usize {
            pre.resize(actor as usize + 1, 0);
        }
        pre[actor as usize] += 1;
        let idx = pre[actor as usize];
        join(&mut pre, &self.flushed[t as usize]);
        let mut cands = Vec::new();
        for &a in addrs {
            self.read_cands(a, t, &mut cands);
        }
        cands.sort_unstable();
        cands.dedup();
        let mut found = Vec::new();
        for &c in &cands {
            let e = &self.events[c];
            let covered = e.before(&pre)
                || cands
                    .iter()
                    .any(|&d| d != c && e.before(&self.events[d].clock));
            if !covered {
                found.push(c);
            }
        }
        self.weak_races(addrs, t, &mut found);
        let mut clock = pre;
        for &c in &cands {
            join(&mut clock, &self.events[c].clock);
        }
        (Pending { actor, idx, clock }, found)
    }

    /// Adds every earlier write of another thread to `addrs` to `found`.
    fn weak_races(&self, addrs: &[i64], t: u32, found: &mut Vec<usize>) {
        for a in addrs {
            for &w in self.writes.get(a).into_iter().flatten() {
                if self.events[w].thread != t && !found.contains(&w) {
                    found.push(w);
                }
            }
        }
    }
}
