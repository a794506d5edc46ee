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

use super::semantics::{Actor, Effect, Loc, Step, LOCK_ADDR};
use crate::collections::HashMap;

/// A vector clock: entry `a` counts the events of actor `a` observed
/// (missing entries are 0). Inline up to 8 actors (no allocation).
pub type Clock = smallvec::SmallVec<[u32; 8]>;

fn join(a: &mut Clock, b: &[u32]) {
    if a.len() < b.len() {
        a.resize(b.len(), 0);
    }
    for (x, y) in a.iter_mut().zip(b) {
        *x = (*x).max(*y);
    }
}

/// Candidate events of a race (inline: a step has few).
type Cands = smallvec::SmallVec<[usize; 8]>;

/// Actor numbering, stable across the executions of one exploration.
#[derive(Clone, Debug, Default)]
pub struct Actors {
    ids: HashMap<Actor, u32>,
    /// The numbers of `Thread(t)` and `Upd(t)` by `t` (a cache of `ids`).
    fast: Vec<[Option<u32>; 2]>,
    /// The actors, by number.
    pub list: Vec<Actor>,
}

impl Actors {
    /// The number of `a`, assigned on first use.
    pub fn id(&mut self, a: Actor) -> u32 {
        let slot = match a {
            Actor::Thread(t) => Some((t as usize, 0)),
            Actor::Upd(t) => Some((t as usize, 1)),
            Actor::UpdVar(..) => None,
        };
        if let Some((t, k)) = slot {
            if let Some(i) = self.fast.get(t).and_then(|f| f[k]) {
                return i;
            }
        }
        let i = match self.ids.get(&a) {
            Some(&i) => i,
            None => {
                let i = self.list.len() as u32;
                self.ids.insert(a, i);
                self.list.push(a);
                i
            }
        };
        if let Some((t, k)) = slot {
            if self.fast.len() <= t {
                self.fast.resize(t + 1, [None; 2]);
            }
            self.fast[t][k] = Some(i);
        }
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
    /// Per actor: its last event.
    actor_last: Vec<Option<usize>>,
    last: HashMap<Loc, usize>,
    readers: HashMap<Loc, Vec<(u32, usize)>>,
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
    writes: HashMap<Loc, Vec<usize>>,
    /// How to undo the changes of each step, newest last ([`Chrono::mark`],
    /// [`Chrono::undo_to`]).
    undo: Vec<Undo>,
}

/// One change of [`Chrono::push`], as what restores it.
#[derive(Clone, Debug)]
enum Undo {
    /// An event was pushed.
    Event,
    /// The actor's last event was this.
    ActorLast(u32, Option<usize>),
    /// The address' last write was this.
    Last(Loc, Option<usize>),
    /// The address' readers were these.
    Readers(Loc, Vec<(u32, usize)>),
    /// A reader entry of the actor was this event (`None`: pushed).
    Reader(Loc, u32, Option<usize>),
    /// A buffer entry was pushed on the thread's buffer.
    BufPush(u32),
    /// The buffer entry at the position had this forwarded load.
    BufFwd(u32, usize, Option<usize>),
    /// This buffer entry was removed from the position.
    BufRemove(u32, usize, (usize, Option<usize>, u32)),
    /// The thread's epoch clock was this (`None`: absent).
    Epoch(u32, u32, Option<Clock>),
    /// The thread's flushed clock was this.
    Flushed(u32, Clock),
    /// The thread's last lock was this.
    Locked(u32, Option<usize>),
    /// A write event was pushed on the address' list.
    Write(Loc),
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

    /// A mark of the current configuration for [`Chrono::undo_to`].
    pub fn mark(&self) -> usize {
        self.undo.len()
    }

    /// Restores the configuration at `mark` (a value of [`Chrono::mark`]
    /// taken earlier; the steps since are forgotten).
    pub fn undo_to(&mut self, mark: usize) {
        while self.undo.len() > mark {
            let Some(u) = self.undo.pop() else { break };
            match u {
                Undo::Event => {
                    self.events.pop();
                }
                Undo::ActorLast(a, e) => self.actor_last[a as usize] = e,
                Undo::Last(x, None) => {
                    self.last.remove(&x);
                }
                Undo::Last(x, Some(e)) => {
                    self.last.insert(x, e);
                }
                Undo::Readers(x, v) => {
                    self.readers.insert(x, v);
                }
                Undo::Reader(x, a, old) => {
                    if let Some(r) = self.readers.get_mut(&x) {
                        match (old, r.iter().position(|p| p.0 == a)) {
                            (Some(e), Some(i)) => r[i].1 = e,
                            (None, Some(i)) => {
                                r.remove(i);
                            }
                            _ => {}
                        }
                    }
                }
                Undo::BufPush(t) => {
                    self.buf[t as usize].pop();
                }
                Undo::BufFwd(t, pos, old) => {
                    if let Some(e) = self.buf[t as usize].get_mut(pos) {
                        e.1 = old;
                    }
                }
                Undo::BufRemove(t, pos, e) => self.buf[t as usize].insert(pos, e),
                Undo::Epoch(t, ep, None) => {
                    self.epochs[t as usize].remove(&ep);
                }
                Undo::Epoch(t, ep, Some(c)) => {
                    self.epochs[t as usize].insert(ep, c);
                }
                Undo::Flushed(t, c) => self.flushed[t as usize] = c,
                Undo::Locked(t, e) => self.locked[t as usize] = e,
                Undo::Write(x) => {
                    if let Some(w) = self.writes.get_mut(&x) {
                        w.pop();
                    }
                }
            }
        }
    }

    /// The clock of actor `a`'s last event (empty before its first).
    fn actor_clock(&self, a: u32) -> Clock {
        match self.actor_last.get(a as usize).copied().flatten() {
            Some(e) => self.events[e].clock.clone(),
            None => Clock::new(),
        }
    }

    fn reader(&mut self, x: Loc, actor: u32, ev: usize) {
        let r = self.readers.entry(x).or_default();
        match r.iter_mut().find(|p| p.0 == actor) {
            Some(p) => {
                self.undo.push(Undo::Reader(x, actor, Some(p.1)));
                p.1 = ev
            }
            None => {
                self.undo.push(Undo::Reader(x, actor, None));
                r.push((actor, ev))
            }
        }
    }

    fn set_last(&mut self, x: Loc, ev: usize) {
        let old = self.last.insert(x, ev);
        self.undo.push(Undo::Last(x, old));
    }

    fn clear_readers(&mut self, x: Loc) {
        let old = std::mem::take(self.readers.entry(x).or_default());
        self.undo.push(Undo::Readers(x, old));
    }

    fn add_write(&mut self, x: Loc, ev: usize) {
        self.writes.entry(x).or_default().push(ev);
        self.undo.push(Undo::Write(x));
    }

    /// Candidates for a read of `x` by thread `t`: the last write, if
    /// another thread's.
    fn read_cands(&self, x: Loc, t: u32, out: &mut Cands) {
        if let Some(&u) = self.last.get(&x) {
            if self.events[u].thread != t {
                out.push(u);
            }
        }
    }

    /// Candidates for a write of `x` by thread `t`: the last write and the
    /// readers, if other threads'.
    fn write_cands(&self, x: Loc, t: u32, out: &mut Cands) {
        self.read_cands(x, t, out);
        for &(_, r) in self.readers.get(&x).into_iter().flatten() {
            if self.events[r].thread != t {
                out.push(r);
            }
        }
    }

    /// The candidates that are races: those not already ordered before
    /// the new event (clock `pre` without them) or before another
    /// candidate.
    fn immediate(&self, cands: &[usize], pre: &[u32], found: &mut Vec<usize>) {
        for &c in cands {
            let e = &self.events[c];
            let covered = e.before(pre)
                || cands
                    .iter()
                    .any(|&d| d != c && e.before(&self.events[d].clock));
            if !covered {
                found.push(c);
            }
        }
    }

    /// Adds the step `step` (actor number `actor`) with effect `eff`;
    /// appends to `found` the positions of the earlier events it races
    /// with (none when `races` is false).
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
        found: &mut Vec<usize>,
    ) {
        let t = step.thread();
        let id = self.events.len();
        let mut pre = self.actor_clock(actor);
        if pre.len() <= actor as usize {
            pre.resize(actor as usize + 1, 0);
        }
        pre[actor as usize] += 1;
        let idx = pre[actor as usize];
        let mut cv = Cands::new();
        let lock_of = self.step_orders(t, id, eff, &mut pre, &mut cv);
        cv.sort_unstable();
        cv.dedup();
        let cands = cv;
        if races {
            self.immediate(&cands, &pre, found);
        }
        if races && waits {
            match eff {
                Effect::Direct(acc) => {
                    for x in acc.iter().filter(|x| !x.2) {
                        self.weak_races(&[Loc::from(x.0)], t, found);
                    }
                }
                Effect::Lock => self.weak_races(&[LOCK_ADDR], t, found),
                _ => {}
            }
        }
        let mut clock = pre;
        for &c in &cands {
            join(&mut clock, &self.events[c].clock);
        }
        match eff {
            Effect::Update { addr, .. } => self.add_write(Loc::from(*addr), id),
            Effect::Direct(acc) => {
                for &(a, _, w) in acc {
                    if w {
                        self.add_write(Loc::from(a), id);
                    }
                }
            }
            Effect::Lock | Effect::Unlock => self.add_write(LOCK_ADDR, id),
            _ => {}
        }
        self.after_step(actor, t, id, eff, &clock);
        let au = actor as usize;
        if self.actor_last.len() <= au {
            self.actor_last.resize(au + 1, None);
        }
        self.undo.push(Undo::ActorLast(actor, self.actor_last[au]));
        self.actor_last[au] = Some(id);
        self.events.push(Event {
            actor,
            idx,
            thread: t,
            clock,
            lock_of,
        });
        self.undo.push(Undo::Event);
    }

    /// The first phase of [`Chrono::push`] for event `id` of thread `t`
    /// with effect `eff`: joins into `pre` what the step is ordered after
    /// (the thread's flushed writes before a fence or direct access, the
    /// buffered store an update flushes and earlier epochs), records the
    /// buffer changes, and collects in `cv` the earlier events the step
    /// may race with. Returns the lock event an `unlock` releases.
    fn step_orders(
        &mut self,
        t: u32,
        id: usize,
        eff: &Effect,
        pre: &mut Clock,
        cv: &mut Cands,
    ) -> Option<usize> {
        let tu = t as usize;
        match eff {
            Effect::Local => {}
            Effect::Fence => join(pre, &self.flushed[tu]),
            Effect::Buffered { epoch, .. } => {
                self.buf[tu].push((id, None, *epoch));
                self.undo.push(Undo::BufPush(t));
            }
            Effect::LoadFwd { pos, .. } => {
                if let Some(e) = self.buf[tu].get_mut(*pos) {
                    self.undo.push(Undo::BufFwd(t, *pos, e.1));
                    e.1 = Some(id);
                }
            }
            Effect::LoadMem { addr, .. } => {
                self.read_cands(Loc::from(*addr), t, cv);
                self.read_cands(LOCK_ADDR, t, cv);
            }
            Effect::Update { addr, pos, .. } => {
                if *pos < self.buf[tu].len() {
                    let (st, _, ep) = self.buf[tu][*pos];
                    join(pre, &self.events[st].clock);
                    for c in self.epochs[tu].range(..ep).map(|(_, c)| c) {
                        join(pre, c);
                    }
                }
                self.write_cands(Loc::from(*addr), t, cv);
                self.read_cands(LOCK_ADDR, t, cv);
            }
            Effect::Direct(acc) => {
                join(pre, &self.flushed[tu]);
                for &(a, _, w) in acc {
                    if w {
                        self.write_cands(Loc::from(a), t, cv);
                    } else {
                        self.read_cands(Loc::from(a), t, cv);
                    }
                }
                self.read_cands(LOCK_ADDR, t, cv);
            }
            Effect::Lock | Effect::Unlock => {
                join(pre, &self.flushed[tu]);
                self.write_cands(LOCK_ADDR, t, cv);
                if matches!(eff, Effect::Unlock) {
                    return self.locked[tu];
                }
            }
        }
        None
    }

    /// The bookkeeping of [`Chrono::push`] after event `id` (of `actor`,
    /// thread `t`, with effect `eff` and clock `clock`): last writes and
    /// readers per location, the flushed buffer entry and its epoch, the
    /// thread's flushed clock, the lock held.
    fn after_step(&mut self, actor: u32, t: u32, id: usize, eff: &Effect, clock: &[u32]) {
        let tu = t as usize;
        match eff {
            Effect::LoadMem { addr, .. } => {
                self.reader(Loc::from(*addr), actor, id);
                self.reader(LOCK_ADDR, actor, id);
            }
            Effect::Update { addr, pos, .. } => {
                let fwd = if *pos < self.buf[tu].len() {
                    let entry = self.buf[tu].remove(*pos);
                    self.undo.push(Undo::BufRemove(t, *pos, entry));
                    let (_, fwd, ep) = entry;
                    let old = self.epochs[tu].get(&ep).cloned();
                    self.undo.push(Undo::Epoch(t, ep, old));
                    join(self.epochs[tu].entry(ep).or_default(), clock);
                    fwd
                } else {
                    None
                };
                let x = Loc::from(*addr);
                self.set_last(x, id);
                self.clear_readers(x);
                if let Some(l) = fwd {
                    let a = self.events[l].actor;
                    self.readers.entry(x).or_default().push((a, l));
                }
                let old = self.flushed[tu].clone();
                self.undo.push(Undo::Flushed(t, old));
                join(&mut self.flushed[tu], clock);
                self.reader(LOCK_ADDR, actor, id);
            }
            Effect::Direct(acc) => {
                for &(a, _, w) in acc {
                    if w {
                        self.set_last(Loc::from(a), id);
                        self.clear_readers(Loc::from(a));
                    }
                }
                for &(a, _, w) in acc {
                    if !w && !acc.iter().any(|x| x.0 == a && x.2) {
                        self.reader(Loc::from(a), actor, id);
                    }
                }
                self.reader(LOCK_ADDR, actor, id);
            }
            Effect::Lock | Effect::Unlock => {
                self.set_last(LOCK_ADDR, id);
                self.clear_readers(LOCK_ADDR);
                if matches!(eff, Effect::Lock) {
                    self.undo.push(Undo::Locked(t, self.locked[tu]));
                    self.locked[tu] = Some(id);
                }
            }
            _ => {}
        }
    }

    /// A read of `addrs` by `actor` (of thread `t`) that has not run (it
    /// waits): its clock and the events it would race with.
    pub fn pending_read(&self, actor: u32, t: u32, addrs: &[Loc]) -> (Pending, Vec<usize>) {
        let mut pre = self.actor_clock(actor);
        if pre.len() <= actor as usize {
            pre.resize(actor as usize + 1, 0);
        }
        pre[actor as usize] += 1;
        let idx = pre[actor as usize];
        join(&mut pre, &self.flushed[t as usize]);
        let mut cands = Cands::new();
        for &a in addrs {
            self.read_cands(a, t, &mut cands);
        }
        cands.sort_unstable();
        cands.dedup();
        let mut found = Vec::new();
        self.immediate(&cands, &pre, &mut found);
        self.weak_races(addrs, t, &mut found);
        let mut clock = pre;
        for &c in &cands {
            join(&mut clock, &self.events[c].clock);
        }
        (Pending { actor, idx, clock }, found)
    }

    /// Adds every earlier write of another thread to `addrs` to `found`.
    fn weak_races(&self, addrs: &[Loc], t: u32, found: &mut Vec<usize>) {
        for a in addrs {
            for &w in self.writes.get(a).into_iter().flatten() {
                if self.events[w].thread != t && !found.contains(&w) {
                    found.push(w);
                }
            }
        }
    }
}
