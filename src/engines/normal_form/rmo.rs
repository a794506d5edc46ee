//! The RMO transitions of the multiheaded automaton (thesis `003_…` §5.1,
//! with the construction of §4.4.1 and the barrier bookkeeping of
//! §4.4.3 that §5.1 refers to).
//!
//! RMO is the Power semantics of §4.1 made store-atomic: a store's commit
//! is at once propagated to every thread, so one memory per part serves
//! every thread (the memory machinery of [`super::automaton`]), a store
//! has one memory event (its commit) and a load one (the load event). An
//! instruction is fetched in part 1 and, as the automaton executes it,
//! gets a part `h2` where its result is computed (a load's load event)
//! and a part `h3 ≥ h2` where it is committed (a store's write to
//! memory). The parts are bounded below by what the automaton tracks per
//! thread (§4.4.1, relaxed for RMO as §5.1 says):
//!
//! * per register, the part where its value is computed and the part
//!   where the instruction producing it commits (`reg-comp-head`,
//!   `reg-comm-head`): a load's event follows the computation of its
//!   address; an instruction commits after its address and data
//!   dependencies commit;
//! * the commit part of the latest `assume` (`assume-comm-head`, control
//!   dependencies): every later commit follows it — a store's write, not
//!   a load's event (loads are speculated past branches);
//! * the part from which the addresses of all fetched accesses are
//!   computed (`addr-comp-head`): stores commit there or later. A load's
//!   address is computed where its address registers are (SND-L; the
//!   text of MH-LOAD updates the head with the load's event part, which
//!   would order every load before every later store and lose the load
//!   buffering computations that Power and RMO allow);
//! * per address, the latest commit of a store and of a load of the
//!   thread (§5.1 in place of `addr-comm-head`): a load that reads
//!   memory commits after the thread's earlier stores to its address, a
//!   store after its earlier loads and stores to its address; earlier
//!   loads of the same address are not ordered (no POW-FIN-LD: RMO lets
//!   loads of one address read out of coherence order). A load that
//!   reads its thread's in-flight store early does not wait for that
//!   store's commit: POW-COMMIT and MH-LOAD as written would make it
//!   wait, which forbids `x = 1; a = x; y = a` showing `y` before `x`
//!   — allowed under PSO (an early read from the store buffer), and PSO
//!   is RMO with `membar #LoadLoad | #LoadStore` after every load (§5.2);
//! * the in-flight stores (`early-mem-value`): per address and part,
//!   none (read memory), the value of the newest earlier uncommitted
//!   store to it (the load reads it early), or unknown (`⊤`: that store's
//!   value is not computed yet, or a later store's address is not — the
//!   load cannot happen in that part);
//! * the `membar` floors (§5.1): the latest load event and store commit
//!   of the thread, and the parts from which its next loads happen and
//!   its next stores commit. `#LoadLoad`/`#StoreLoad` raise the loads'
//!   floor to the latest load event / store commit, `#LoadStore`/
//!   `#StoreStore` the stores' floor; `mfence` and `sync` are all four
//!   (as `rmo.cat` reads them); under Power an `isync` raises both to
//!   its commit (after the earlier `assume`s: ctrl+isync). An atomic step (`lock`, `unlock`, a
//!   single-address read-modify-write) is ordered with every access
//!   before and after it, all its events in one part.
//!
//! Every constraint is a lower bound on a part, so a local instruction
//! takes the least parts it may (a later part only removes
//! computations); loads and stores choose their memory part freely above
//! the bound. Local instructions emit no memory event. Heads at or below
//! the lowest open part bound nothing and are kept as 0 (no bound), so
//! that states differing only there are one.

use super::automaton::{Automaton, Cell, Early, Ev, Heads, InFlight, Partial, Read3, State, PARTS};
use super::profile::{Acc, Src};
use super::program_class::{Micro, Op};
use super::Model;
use crate::program::{Command, LExpr, RegId};

impl Heads {
    /// The latest (store, load) commit to `a`.
    fn at(&self, a: i64) -> (u8, u8) {
        match self.per_addr.binary_search_by_key(&a, |e| e.0) {
            Ok(i) => (self.per_addr[i].1, self.per_addr[i].2),
            Err(_) => (0, 0),
        }
    }

    /// Raises the latest store (`store`) or load commit to `a` to `h`.
    fn commit_at(&mut self, a: i64, store: bool, h: u8) {
        let i = match self.per_addr.binary_search_by_key(&a, |e| e.0) {
            Ok(i) => i,
            Err(i) => {
                self.per_addr.insert(i, (a, 0, 0));
                i
            }
        };
        let e = &mut self.per_addr[i];
        if store {
            e.1 = e.1.max(h);
        } else {
            e.2 = e.2.max(h);
        }
    }

    /// Records a Power load of `a` in part `p` committing in `commit`
    /// that read `read` when `p` is part 3.
    fn loaded(&mut self, a: i64, p: u8, read: Read3, commit: u8) {
        self.max_load_comm = self.max_load_comm.max(commit);
        match self.ld3.binary_search_by_key(&a, |e| e.0) {
            Ok(i) if p == PARTS => self.ld3[i].1 = read,
            Ok(i) => {
                self.ld3.remove(i);
            }
            Err(i) if p == PARTS => self.ld3.insert(i, (a, read)),
            Err(_) => {}
        }
    }

    /// The least part of any later memory event of the thread: a load's
    /// event (at least the loads' floor) or a store's commit (at least
    /// the control, address and barrier bounds).
    fn floor(&self) -> u8 {
        let store = self.assume_comm.max(self.addr_comp).max(self.store_floor);
        self.load_floor.min(store)
    }

    /// A Power `isync` (thesis §4.1: POW-COMMIT commits it after its
    /// control dependencies — every earlier `assume` — and the earlier
    /// barriers commit; POW-LOAD and POW-EARLY let a later load happen,
    /// and POW-COMMIT a later load or store commit, only after it
    /// commits; §4.4.3, "Fourth", `isync-comm-head`). Its commit part is
    /// the least these allow (every constraint is a lower bound); it
    /// becomes the floor of the later loads' events and stores' commits
    /// (a load's commit is at or after its event). So `ctrl; isync`
    /// orders a load feeding a branch before the later loads: herd's
    /// `ctrl; [ISYNC]; po` in `ppc.cat`.
    ///
    /// POW-COMMIT also makes `isync` wait until every earlier access's
    /// address is computed (§4.4.3: `h3 ≥ addr-comp-head`). `ppc.cat`,
    /// the tool's Power (`robust --model power`), has no such order
    /// (`a = y; c = mem[&z + a - a]; isync; b = x` lets `b` read before
    /// `a`), so the engine leaves it out and decides `ppc.cat`'s Power:
    /// it admits every computation the thesis' rule admits, so its
    /// "robust" holds under the thesis' rule too.
    ///
    /// Exact for two threads: `isync` takes part in no propagation and
    /// waits for no store's commit, so moving a store's commit to its
    /// propagation to the other thread (the argument of
    /// `POWER_MAX_THREADS`) breaks none of its conditions; and the later
    /// `sync`s commit after it already (their commit waits for the
    /// earlier loads' commits, which bound every control dependency
    /// before them, and the floors only grow).
    fn isync(&mut self) {
        let commit = self.assume_comm.max(self.load_floor).max(self.store_floor);
        self.load_floor = commit;
        self.store_floor = commit;
    }

    /// Bounds at or below `base` bound nothing: 0.
    fn normalize(&mut self, base: u8) {
        for h in [
            &mut self.assume_comm,
            &mut self.addr_comp,
            &mut self.max_load,
            &mut self.max_store,
            &mut self.load_floor,
            &mut self.store_floor,
            &mut self.max_load_comm,
        ] {
            if *h <= base {
                *h = 0;
            }
        }
        // No load is in part 2 any more once it is closed.
        if base >= PARTS {
            self.ld3.clear();
        }
        for e in &mut self.per_addr {
            if e.1 <= base {
                e.1 = 0;
            }
            if e.2 <= base {
                e.2 = 0;
            }
        }
        self.per_addr.retain(|e| e.1 != 0 || e.2 != 0);
    }
}

/// Whether part `p` (> the lowest open part) has written `a` so far.
fn wrote_in(s: &State, p: u8, a: i64) -> bool {
    let part = &s.later[p as usize - 2];
    part.binary_search_by_key(&a, |e| e.addr)
        .is_ok_and(|i| part[i].now.is_some())
}

/// The registers `e` reads.
fn regs(e: &LExpr) -> Vec<RegId> {
    let mut out = Vec::new();
    e.for_each_var(&mut |r| out.push(r));
    out
}

impl Automaton<'_> {
    /// The index of register `r` of thread `t` in the state's register
    /// vectors (none for a register the thread does not have).
    fn reg_index(&self, t: usize, r: RegId) -> Option<usize> {
        self.rf.index(t, r)
    }

    /// The latest part where a register of `e` is computed, and the
    /// latest where its producer commits.
    fn deps(&self, s: &State, t: usize, e: &LExpr) -> (u8, u8) {
        regs(e)
            .into_iter()
            .filter_map(|r| self.reg_index(t, r))
            .fold((0, 0), |(c, m), i| {
                (c.max(s.heads[i].0), m.max(s.heads[i].1))
            })
    }

    fn set_heads(&self, s: &mut State, t: usize, r: RegId, comp: u8, comm: u8) {
        if let Some(i) = self.reg_index(t, r) {
            s.heads[i] = (comp, comm);
        }
    }

    fn in_flight(s: &State, t: usize, a: i64) -> Option<&InFlight> {
        s.inflight
            .iter()
            .find(|f| f.thread as usize == t && f.addr == a)
    }

    /// The least part where thread `t` may still add a memory event.
    pub(super) fn rmo_floor(s: &State, t: usize) -> u8 {
        s.rmo[t].floor().max(s.base)
    }

    /// Forgets what a terminated thread `t` tracks (nothing reads it).
    pub(super) fn rmo_terminate(s: &mut State, t: usize) {
        s.rmo[t] = Heads::default();
        s.inflight.retain(|f| f.thread as usize != t);
    }

    /// Drops bounds at or below the lowest open part and what loads
    /// would see in closed parts.
    pub(super) fn rmo_normalize(s: &mut State) {
        let base = s.base;
        for h in &mut s.rmo {
            h.normalize(base);
        }
        for h in &mut s.heads {
            if h.0 <= base {
                h.0 = 0;
            }
            if h.1 <= base {
                h.1 = 0;
            }
        }
        for f in &mut s.inflight {
            for p in 1..base {
                f.parts[p as usize - 1] = Early::None;
            }
        }
        s.inflight
            .retain(|f| f.parts.iter().any(|e| *e != Early::None));
        if base >= PARTS {
            s.frozen.clear();
        }
    }

    /// Executes operation `op` of thread `t` under RMO (or Power) in
    /// every way the parts allow; `(enter, leave)` as for the
    /// store-buffer models.
    pub(super) fn exec_rmo(
        &self,
        s: &State,
        t: usize,
        op: &Op,
        marks: (Option<usize>, Option<usize>),
        wrote: &mut impl FnMut(u8, i64, i64),
    ) -> Vec<Partial> {
        match op {
            Op::Local(c) => {
                let mut ns = s.clone();
                if self.rmo_local(&mut ns, t, c) {
                    vec![(ns, Vec::new(), Vec::new())]
                } else {
                    Vec::new()
                }
            }
            Op::Fence {
                ll,
                ls,
                sl,
                ss,
                isync,
            } => {
                let mut ns = s.clone();
                let h = &mut ns.rmo[t];
                if *isync && self.model == Model::Power {
                    h.isync();
                }
                let pick = |on: bool, bound: u8| if on { bound } else { 0 };
                // Power: a `sync` commits after the earlier loads commit
                // (POW-COMMIT), and the later accesses wait for it.
                let (ld, st) = (h.max_load.max(h.max_load_comm), h.max_store);
                h.load_floor = h.load_floor.max(pick(*ll, ld)).max(pick(*sl, st));
                h.store_floor = h.store_floor.max(pick(*ls, ld)).max(pick(*ss, st));
                vec![(ns, Vec::new(), Vec::new())]
            }
            Op::Load { reg, addr } => self.rmo_load(s, t, *reg, addr, marks.0),
            Op::Store { addr, value } => self.rmo_store(s, t, addr, value, marks.1, wrote),
            Op::Atomic(ms) => self.rmo_atomic(s, t, ms, marks, wrote),
        }
    }

    /// A load (MH-LOAD): its event in any part from the computation of
    /// its address and the loads' floor on, reading memory or its
    /// thread's newest in-flight store to the address early. Under Power
    /// also POW-COMMIT's order of the commit after the earlier accesses
    /// to its address and to addresses not computed yet, and POW-FIN-LD:
    /// a load in part 2 after a load of the address in part 3 (with no
    /// store of the thread to the address between them) reads the store
    /// that one read — part 3's start, read from memory, part 2 writing
    /// the address no more; or the thread's newest store, read early. A
    /// store of the thread between the two loads commits after the
    /// first, so in part 3 after it: the second reads it early, with no
    /// check.
    fn rmo_load(
        &self,
        s: &State,
        t: usize,
        reg: RegId,
        addr: &LExpr,
        enter: Option<usize>,
    ) -> Vec<Partial> {
        let power = self.model == Model::Power;
        let a = self.eval(s, t, addr);
        let (comp, comm) = self.deps(s, t, addr);
        let h = &s.rmo[t];
        let lo = s.base.max(comp).max(h.load_floor).max(1);
        let mut commit_lo = comm.max(h.assume_comm);
        if power {
            commit_lo = commit_lo.max(h.at(a).1).max(h.addr_comp);
        }
        let after3 = h
            .ld3
            .binary_search_by_key(&a, |e| e.0)
            .ok()
            .filter(|_| power)
            .map(|i| h.ld3[i].1);
        let early = Self::in_flight(s, t, a);
        let mut out = Vec::new();
        for p in lo..=PARTS {
            let mut reads = Vec::new();
            // A load that reads memory commits after the thread's
            // earlier stores to its address (coherence); one that reads
            // its thread's in-flight store early does not wait for that
            // store's commit.
            let mut commit = p.max(commit_lo);
            let mut freeze = false;
            match early.map_or(Early::None, |f| f.parts[p as usize - 1]) {
                Early::Unknown => continue,
                Early::Value => {
                    if p < PARTS && after3.is_some_and(|r| r != Read3::Own) {
                        continue;
                    }
                    let f = early.expect("an in-flight store");
                    let src = Src::Early {
                        flush: f.flush,
                        before: f.before,
                    };
                    reads.push((f.v, src, None));
                }
                Early::None => {
                    if p < PARTS {
                        match after3 {
                            Some(Read3::Start) => freeze = true,
                            // The earlier load read a store of part 3.
                            Some(_) => continue,
                            None => {}
                        }
                    }
                    commit = commit.max(h.at(a).0);
                    for (c, g) in self.read_options(s, p, a, self.want(t, enter, 0)) {
                        reads.push((c.v, Src::Mem { tag: c.tag }, g.then_some(c)));
                    }
                }
            }
            let read = if p < PARTS || p <= s.base {
                Read3::Other
            } else if !wrote_in(s, p, a) {
                Read3::Start
            } else if early.is_some_and(|f| f.flush == p && f.newest) {
                Read3::Own
            } else {
                Read3::Other
            };
            for (v, src, guess) in reads {
                let mut ns = s.clone();
                if let Some(c) = guess {
                    Automaton::record_guess(&mut ns, p, a, c);
                }
                self.set_reg(&mut ns, t, reg, v);
                self.set_heads(&mut ns, t, reg, p, commit);
                if power {
                    if freeze {
                        if let Err(i) = ns.frozen.binary_search(&a) {
                            ns.frozen.insert(i, a);
                        }
                    }
                    ns.rmo[t].loaded(a, p, read, commit);
                }
                let h = &mut ns.rmo[t];
                h.max_load = h.max_load.max(p);
                h.addr_comp = h.addr_comp.max(comp);
                h.commit_at(a, false, commit);
                let (ev, acc) = Automaton::load_event(a, v, p, src);
                out.push((ns, vec![ev], vec![acc]));
            }
        }
        out
    }

    /// A store (MH-STORE): its commit in any part from the bounds of
    /// §5.1 on (under Power not in part 2 once a load froze its address
    /// there, [`State::frozen`]); until it commits, later loads of the
    /// thread read it early.
    fn rmo_store(
        &self,
        s: &State,
        t: usize,
        addr: &LExpr,
        value: &LExpr,
        leave: Option<usize>,
        wrote: &mut impl FnMut(u8, i64, i64),
    ) -> Vec<Partial> {
        let mut out = Vec::new();
        let a = self.eval(s, t, addr);
        let v = self.eval(s, t, value);
        let (acomp, acomm) = self.deps(s, t, addr);
        let (vcomp, vcomm) = self.deps(s, t, value);
        // The part from which the store's value is known.
        let known = acomp.max(vcomp).max(1);
        let h = &s.rmo[t];
        let (st_a, ld_a) = h.at(a);
        let lo = [
            s.base,
            known,
            acomm,
            vcomm,
            h.assume_comm,
            h.addr_comp,
            h.store_floor,
            st_a,
            ld_a,
        ]
        .into_iter()
        .max()
        .unwrap_or(1);
        let tag = self.tag(t, leave, 0);
        let open = self.seg_of[t].is_some_and(|k| s.marks[k].leave.is_none());
        for q in lo..=PARTS {
            if q < PARTS && s.frozen.binary_search(&a).is_ok() {
                continue;
            }
            let mut ns = s.clone();
            self.write(&mut ns, q, a, Cell { v, tag });
            wrote(q, a, v);
            for f in ns.inflight.iter_mut() {
                if f.addr == a && f.flush == q {
                    f.newest = false;
                }
            }
            if let Ok(i) = ns.rmo[t].ld3.binary_search_by_key(&a, |e| e.0) {
                ns.rmo[t].ld3.remove(i);
            }
            // Until its address is computed, the store hides the
            // earlier in-flight stores to other addresses.
            for f in ns.inflight.iter_mut() {
                if f.thread as usize == t && f.addr != a {
                    for p in 1..acomp.max(1) {
                        if f.parts[p as usize - 1] == Early::Value {
                            f.parts[p as usize - 1] = Early::Unknown;
                        }
                    }
                }
            }
            ns.inflight
                .retain(|f| !(f.thread as usize == t && f.addr == a));
            let mut parts = [Early::None; PARTS as usize];
            for p in s.base..q {
                parts[p as usize - 1] = if p < known {
                    Early::Unknown
                } else {
                    Early::Value
                };
            }
            if parts.iter().any(|e| *e != Early::None) {
                let f = InFlight {
                    thread: t as u8,
                    addr: a,
                    parts,
                    v,
                    flush: q,
                    before: if open { s.seen } else { 0 },
                    newest: self.model == Model::Power,
                };
                let at = ns
                    .inflight
                    .partition_point(|x| (x.thread, x.addr) < (f.thread, f.addr));
                ns.inflight.insert(at, f);
            }
            let h = &mut ns.rmo[t];
            h.max_store = h.max_store.max(q);
            h.addr_comp = h.addr_comp.max(acomp);
            h.commit_at(a, true, q);
            let ev = Ev {
                write: true,
                addr: a,
                value: v,
                part: q,
                flush: q,
                early: false,
            };
            out.push((ns, vec![ev], vec![Acc::Store { addr: a, flush: q }]));
        }
        out
    }

    /// An atomic step: ordered with every access before and after it,
    /// all its events in one part (RMO only; Power refuses it).
    fn rmo_atomic(
        &self,
        s: &State,
        t: usize,
        ms: &[Micro],
        marks: (Option<usize>, Option<usize>),
        wrote: &mut impl FnMut(u8, i64, i64),
    ) -> Vec<Partial> {
        let mut out = Vec::new();
        // Ordered with every access before it: after every load event,
        // store commit, control and address bound. Every register's
        // heads are at most these (by induction).
        let h = &s.rmo[t];
        let lo = [
            s.base,
            1,
            h.load_floor,
            h.store_floor,
            h.max_load,
            h.max_store,
            h.assume_comm,
            h.addr_comp,
        ]
        .into_iter()
        .max()
        .unwrap_or(1);
        for p in lo..=PARTS {
            let mut partial = vec![(s.clone(), Vec::new(), Vec::new())];
            for m in ms {
                partial = partial
                    .into_iter()
                    .flat_map(|x| self.micro(x, t, p, m, marks, wrote))
                    .collect();
            }
            for (mut ns, evs, accs) in partial {
                for m in ms {
                    let written = match m {
                        Micro::Load { reg, .. } => *reg,
                        Micro::Local(c) => assigned(c),
                        Micro::Store { .. } => None,
                    };
                    if let Some(r) = written {
                        self.set_heads(&mut ns, t, r, p, p);
                    }
                }
                // Ordered with every access after it; every earlier
                // store is committed.
                let h = &mut ns.rmo[t];
                for x in [
                    &mut h.max_load,
                    &mut h.max_store,
                    &mut h.load_floor,
                    &mut h.store_floor,
                ] {
                    *x = (*x).max(p);
                }
                if ms
                    .iter()
                    .any(|m| matches!(m, Micro::Local(c) if is_assume(c)))
                {
                    h.assume_comm = h.assume_comm.max(p);
                }
                ns.inflight.retain(|f| f.thread as usize != t);
                out.push((ns, evs, accs));
            }
        }
        out
    }

    /// A local command under RMO (MH-ASSIGN, MH-ASSUME): computed where
    /// its registers are, committed after their producers and the latest
    /// `assume`; false when it blocks.
    fn rmo_local(&self, s: &mut State, t: usize, c: &Command) -> bool {
        match c {
            Command::Assign { reg, value } => {
                let (comp, comm) = self.deps(s, t, value);
                let commit = comp.max(comm).max(s.rmo[t].assume_comm);
                if !self.local(s, t, c) {
                    return false;
                }
                self.set_heads(s, t, *reg, comp, commit);
                true
            }
            Command::Assume(e) => {
                let (_, comm) = self.deps(s, t, e);
                if !self.local(s, t, c) {
                    return false;
                }
                let h = &mut s.rmo[t];
                h.assume_comm = h.assume_comm.max(comm);
                true
            }
            Command::Ann(_, inner) | Command::Tagged(_, inner) => self.rmo_local(s, t, inner),
            // `guard`, `select` and pick assignments are refused under RMO
            // (program_class); `nop` is `assume(1)`.
            _ => self.local(s, t, c),
        }
    }
}

/// The register a local command assigns.
fn assigned(c: &Command) -> Option<RegId> {
    match c {
        Command::Assign { reg, .. } | Command::Select { reg, .. } => Some(*reg),
        Command::Ann(_, inner) | Command::Tagged(_, inner) => assigned(inner),
        _ => None,
    }
}

fn is_assume(c: &Command) -> bool {
    match c {
        Command::Assume(_) => true,
        Command::Ann(_, inner) | Command::Tagged(_, inner) => is_assume(inner),
        _ => false,
    }
}
