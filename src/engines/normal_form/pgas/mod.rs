//! Robustness against PGAS by normal-form computations (thesis `003_…`
//! §8.3–8.4): the multiheaded automaton M(P, N) of Table 8.2 generating
//! the normal-form computations of degree 4, intersected on the fly with
//! the marks of a cycle profile and the hop checks H^θ (§8.4.2).
//!
//! * Normal form (§8.3, Theorem 8.7): a program is robust iff no
//!   computation `τ1·τ2·τ3·τ4` has a cyclic happens-before, where parts 2
//!   to 4 hold only `popa`/`popb` events (PGAS-NF-A) and pops of one
//!   queue keep their issue order in every part (PGAS-NF-B).
//! * The automaton (§8.4.1): part 1 is an SC run of the program on the
//!   ranks' memories (control states, registers, memory); a remote
//!   `read`/`write` appends its issue to part 1 and, in one shot, its
//!   `popa` to part `m` and its `popb` to part `n ≥ m`, where `m`, `n` are
//!   at least the heads `pa`, `pb` of its queue (rules (gha'), (ghb'),
//!   (read'), (write')); a pop in part 1 reads or writes part 1's memory
//!   at once. Pops in parts 2–4 are executable whatever the memory holds
//!   and feed nothing back into part 1, so their values are not tracked
//!   (the witness recomputes them).
//! * Cycles (§8.4.2, Lemma 8.18): a cycle can be taken beautiful — one
//!   po segment per rank (thread of the lowered program), ranks distinct
//!   — so each profile (a sequence of at least one thread, up to
//!   rotation) is searched alone. Trace nodes (§8.2) identify a
//!   `popa`/`popb` with its issue, so within one remote operation the
//!   entering and leaving marks may be placed on its two pops in either
//!   order (rules M3–M6). A hop is a conflict edge (`cf`: one write, same
//!   address, no write to it in between, in the order of `τ1·τ2·τ3·τ4`)
//!   or a barrier edge between two barriers of one round. The automata
//!   H^{r,r'} read the whole word; here each hop is decided from what the
//!   state remembers of its two ends (part, address, whether a write to
//!   the address follows the leaving event in its part, whether one
//!   precedes the entering event in its part, and which was generated
//!   first) and of the addresses written in parts 2–4 — the same language
//!   (Lemma 8.23). A cycle within one round of barriers, or of one
//!   remote operation with itself, is trivial (§8.2) and not a witness.
//!
//! Events generated into a part follow the part's earlier events, so
//! the order within a part is the order of generation.

mod class;
mod footprint;
mod witness;

use super::search::Generator;
use crate::program::regfile::RegFile;
use crate::program::{Command, LExpr, Program, RegId, Width};
pub(crate) use class::classify;
use class::{PMicro, POp};
pub(crate) use footprint::{Footprint, Quiet};
pub(crate) use witness::witness;

/// Number of parts of the normal form (degree 4, Theorem 8.7).
pub(crate) const PARTS: u8 = 4;

/// The address of a barrier mark (no memory address).
const NO_ADDR: i64 = i64::MIN;

/// The kind of an event (thesis Table 8.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Kind {
    /// Rule (load).
    Load,
    /// Rule (store).
    Store,
    /// Rules (read)/(write): the request enters its queue.
    Issue,
    /// Rule (popa): the source is read.
    PopA,
    /// Rule (popb): the destination is written.
    PopB,
    /// Rule (bar), one event per thread.
    Bar,
}

impl Kind {
    pub(crate) fn writes(self) -> bool {
        matches!(self, Kind::Store | Kind::PopB)
    }

    pub(crate) fn accesses(self) -> bool {
        matches!(self, Kind::Load | Kind::Store | Kind::PopA | Kind::PopB)
    }

    fn markable(self) -> bool {
        self.accesses() || self == Kind::Bar
    }
}

/// One generated event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PEv {
    /// Thread.
    pub thread: usize,
    /// Instruction index in the thread.
    pub instr: usize,
    /// Kind.
    pub kind: Kind,
    /// Global address ([`NO_ADDR`] for issues and barriers).
    pub addr: i64,
    /// Value of a load or store of part 1; the queue of an issue.
    pub value: i64,
    /// Part (1..=4).
    pub part: u8,
}

/// One transition: the events of an instruction (or of a round of
/// barriers, one per thread) in generation order, and the marks placed
/// (event index, segment, entering).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PStep {
    /// The instructions executed: (thread, instruction index); one per
    /// thread for a round of barriers.
    pub moves: Vec<(usize, usize)>,
    /// Events.
    pub events: Vec<PEv>,
    /// Marks: (event index, segment, true = enter / false = leave).
    pub marks: Vec<(usize, usize, bool)>,
}

/// What the state remembers of a marked event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Mk {
    part: u8,
    addr: i64,
    write: bool,
    bar: bool,
    /// A write to `addr` was generated into `part` after this event
    /// (kept for leaving marks).
    after: bool,
    /// `addr` was written in `part` (2..=4) before this event (entering
    /// marks).
    before: bool,
}

/// The marks of one segment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
struct Seg {
    enter: Option<Mk>,
    leave: Option<Mk>,
    /// Entered and left in different instructions (the segment spans two
    /// trace nodes).
    span: bool,
}

/// Which end of a hop was generated first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
enum First {
    #[default]
    Unknown,
    Leave,
    Enter,
}

/// The hop from segment `k`'s leaving event to segment `k + 1`'s
/// entering event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
struct Hop {
    first: First,
    /// When both ends are in one part and the leaving one came first: no
    /// write to the address between them.
    clean: bool,
    /// Both ends are barriers of one round.
    bar: bool,
}

/// A state of M(P, N) with the marks of a profile.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct PState {
    /// Control state per thread.
    pub pc: Vec<u32>,
    /// All registers, thread after thread (dead ones reset to 0).
    pub regs: Vec<i64>,
    /// Part 1's memory: cells that differ from the initial value, sorted.
    mem: Vec<(i64, i64)>,
    /// Queue heads (thread, queue, pa, pb), sorted; (1, 1) left out.
    heads: Vec<(u32, i64, u8, u8)>,
    /// Addresses written in parts 2, 3, 4 (sorted).
    written: [Vec<i64>; 3],
    segs: Vec<Seg>,
    hops: Vec<Hop>,
}

/// The automaton of one lowered PGAS program and profile.
pub(crate) struct Pgas<'p> {
    prog: &'p Program,
    ops: &'p [Vec<POp>],
    out: Vec<Vec<Vec<usize>>>,
    rf: RegFile,
    w: Width,
    nodes: i64,
    profile: Vec<u32>,
    seg_of: Vec<Option<usize>>,
    /// The threads' footprints (none: every mark is tried, no step is
    /// taken alone).
    pub fp: Option<Vec<Footprint>>,
    /// Per thread and instruction: on a cycle of the control graph.
    cyclic: Vec<Vec<bool>>,
    /// Addresses whose pops go to the least part allowed.
    pub quiet: Quiet,
}

/// A successor under construction: the state and the events so far.
type Partial = (PState, Vec<PEv>);

/// A run of one step: the successor under construction and the moves.
type Run = (Partial, Vec<(usize, usize)>);

impl<'p> Pgas<'p> {
    /// The automaton of `prog` (lowered for its `nodes`; 1 when it has no
    /// PGAS command) with operations `ops` for `profile`.
    pub fn new(prog: &'p Program, ops: &'p [Vec<POp>], w: Width, profile: Vec<u32>) -> Pgas<'p> {
        let mut seg_of = vec![None; prog.threads.len()];
        for (k, &t) in profile.iter().enumerate() {
            seg_of[t as usize] = Some(k);
        }
        Pgas {
            prog,
            ops,
            out: prog.threads.iter().map(|t| t.outgoing()).collect(),
            rf: RegFile::new(prog, w),
            w,
            nodes: i64::from(prog.nodes.unwrap_or(1)),
            profile,
            seg_of,
            fp: None,
            cyclic: prog.threads.iter().map(on_cycles).collect(),
            quiet: Quiet::default(),
        }
    }

    fn eval(&self, s: &PState, t: usize, e: &LExpr) -> i64 {
        self.rf.eval(&s.regs, t, e)
    }

    fn set_reg(&self, s: &mut PState, t: usize, r: RegId, v: i64) {
        self.rf.set(&mut s.regs, t, r, v);
    }

    fn reset_dead(&self, s: &mut PState, t: usize) {
        for i in self.rf.dead(t, s.pc[t] as usize) {
            s.regs[i] = 0;
        }
    }

    fn read(&self, s: &PState, a: i64) -> i64 {
        match s.mem.binary_search_by_key(&a, |c| c.0) {
            Ok(i) => s.mem[i].1,
            Err(_) => self.w.wrap(self.prog.init_value(a)),
        }
    }

    fn write(&self, s: &mut PState, a: i64, v: i64) {
        let init = self.w.wrap(self.prog.init_value(a));
        match s.mem.binary_search_by_key(&a, |c| c.0) {
            Ok(i) if v == init => {
                s.mem.remove(i);
            }
            Ok(i) => s.mem[i].1 = v,
            Err(i) if v != init => s.mem.insert(i, (a, v)),
            Err(_) => {}
        }
    }

    /// Runs a local command; false when it blocks.
    fn local(&self, s: &mut PState, t: usize, c: &Command) -> bool {
        self.rf.local(&mut s.regs, t, c)
    }

    fn heads(s: &PState, t: usize, q: i64) -> (u8, u8) {
        s.heads
            .iter()
            .find(|h| h.0 as usize == t && h.1 == q)
            .map_or((1, 1), |h| (h.2, h.3))
    }

    fn set_heads(s: &mut PState, t: usize, q: i64, pa: u8, pb: u8) {
        let key = (t as u32, q);
        match s.heads.binary_search_by_key(&key, |h| (h.0, h.1)) {
            Ok(i) => {
                s.heads[i].2 = pa;
                s.heads[i].3 = pb;
            }
            Err(i) => s.heads.insert(i, (key.0, key.1, pa, pb)),
        }
    }

    /// The runs of instruction `op` of thread `t` from `s` in part 1 (one
    /// per placement of a remote operation's pops), before marks.
    fn exec(&self, s: &PState, t: usize, instr: usize, op: &POp) -> Vec<Partial> {
        let ev = |kind, addr, value, part| PEv {
            thread: t,
            instr,
            kind,
            addr,
            value,
            part,
        };
        let mut ns = s.clone();
        match op {
            POp::Local(c) => {
                if !self.local(&mut ns, t, c) {
                    return Vec::new();
                }
                vec![(ns, Vec::new())]
            }
            POp::Load { reg, addr } => {
                let a = self.eval(s, t, addr);
                let v = self.read(s, a);
                self.set_reg(&mut ns, t, *reg, v);
                vec![(ns, vec![ev(Kind::Load, a, v, 1)])]
            }
            POp::Store { addr, value } => {
                let (a, v) = (self.eval(s, t, addr), self.eval(s, t, value));
                self.write(&mut ns, a, v);
                vec![(ns, vec![ev(Kind::Store, a, v, 1)])]
            }
            POp::Atomic(ms) => {
                let mut evs = Vec::new();
                for m in ms {
                    match m {
                        PMicro::Load { reg, addr } => {
                            let a = self.eval(&ns, t, addr);
                            let v = self.read(&ns, a);
                            self.set_reg(&mut ns, t, *reg, v);
                            evs.push(ev(Kind::Load, a, v, 1));
                        }
                        PMicro::Store { addr, value } => {
                            let (a, v) = (self.eval(&ns, t, addr), self.eval(&ns, t, value));
                            self.write(&mut ns, a, v);
                            evs.push(ev(Kind::Store, a, v, 1));
                        }
                        PMicro::Local(c) => {
                            if !self.local(&mut ns, t, c) {
                                return Vec::new();
                            }
                        }
                    }
                }
                vec![(ns, evs)]
            }
            POp::Remote {
                get,
                local,
                rank,
                remote,
                queue,
            } => {
                let rk = self.eval(s, t, rank);
                if rk < 1 || rk > self.nodes {
                    // Table 8.1 has no rule for a rank outside 1..N: the
                    // thread blocks (as in the bounded encoding).
                    return Vec::new();
                }
                let (l, r, q) = (
                    self.eval(s, t, local),
                    self.eval(s, t, remote),
                    self.eval(s, t, queue),
                );
                let (src, dst) = if *get { (r, l) } else { (l, r) };
                let (pa, pb) = Self::heads(s, t, q);
                let mut res = Vec::new();
                let m_max = if self.quiet.unwritten.contains(&src) {
                    pa
                } else {
                    PARTS
                };
                for m in pa..=m_max {
                    let n_max = if self.quiet.lone_write.contains(&dst) {
                        pb.max(m)
                    } else {
                        PARTS
                    };
                    for n in pb.max(m)..=n_max {
                        let mut ns = s.clone();
                        Self::set_heads(&mut ns, t, q, m, n);
                        let v = self.read(s, src);
                        let shown = if m == 1 { v } else { 0 };
                        if n == 1 {
                            self.write(&mut ns, dst, v);
                        }
                        let evs = vec![
                            ev(Kind::Issue, NO_ADDR, q, 1),
                            ev(Kind::PopA, src, shown, m),
                            ev(Kind::PopB, dst, shown, n),
                        ];
                        res.push((ns, evs));
                    }
                }
                res
            }
            POp::Barrier => Vec::new(),
        }
    }

    /// The joint steps of the barrier rounds from `s`: every thread at a
    /// `barrier` takes one (rule (bar)).
    fn barrier_rounds(&self, s: &PState) -> Vec<Run> {
        let n = self.prog.threads.len();
        let mut combos: Vec<Vec<(usize, usize)>> = vec![Vec::new()];
        for t in 0..n {
            let bars: Vec<usize> = self.out[t]
                .get(s.pc[t] as usize)
                .into_iter()
                .flatten()
                .copied()
                .filter(|&i| matches!(self.ops[t][i], POp::Barrier))
                .collect();
            if bars.is_empty() {
                return Vec::new();
            }
            combos = combos
                .into_iter()
                .flat_map(|c| {
                    bars.iter().map(move |&i| {
                        let mut c = c.clone();
                        c.push((t, i));
                        c
                    })
                })
                .collect();
        }
        combos
            .into_iter()
            .map(|c| {
                let evs = c
                    .iter()
                    .map(|&(t, i)| PEv {
                        thread: t,
                        instr: i,
                        kind: Kind::Bar,
                        addr: NO_ADDR,
                        value: 0,
                        part: 1,
                    })
                    .collect();
                ((s.clone(), evs), c)
            })
            .collect()
    }

    /// The ways to mark the events `evs` of one step: per profile thread
    /// taking part, none, an entering mark, or (segment not left yet) a
    /// leaving mark, or both — on any of its markable events of the step
    /// (one trace node per thread and step: M3–M6).
    fn mark_choices(&self, s: &PState, evs: &[PEv]) -> Vec<Vec<(usize, usize, bool)>> {
        let mut combos: Vec<Vec<(usize, usize, bool)>> = vec![Vec::new()];
        let mut threads: Vec<usize> = evs.iter().map(|e| e.thread).collect();
        threads.dedup();
        for t in threads {
            let Some(k) = self.seg_of[t] else { continue };
            let n = self.profile.len();
            let (prev, next) = (
                self.profile[(k + n - 1) % n] as usize,
                self.profile[(k + 1) % n] as usize,
            );
            // An event can enter (leave) the segment only if the previous
            // (next) thread has an access or barrier to hop from (to).
            let can =
                |i: usize, other: usize| self.fp.as_ref().is_none_or(|fp| fp[other].meets(&evs[i]));
            let idx: Vec<usize> = (0..evs.len())
                .filter(|&i| evs[i].thread == t && evs[i].kind.markable())
                .collect();
            let seg = &s.segs[k];
            let mut opts: Vec<Vec<(usize, usize, bool)>> = vec![Vec::new()];
            match (seg.enter.is_some(), seg.leave.is_some()) {
                (false, _) => {
                    for &i in idx.iter().filter(|&&i| can(i, prev)) {
                        opts.push(vec![(i, k, true)]);
                        for &j in idx.iter().filter(|&&j| can(j, next)) {
                            opts.push(vec![(i, k, true), (j, k, false)]);
                        }
                    }
                }
                (true, false) => opts.extend(
                    idx.iter()
                        .filter(|&&j| can(j, next))
                        .map(|&j| vec![(j, k, false)]),
                ),
                (true, true) => {}
            }
            combos = combos
                .into_iter()
                .flat_map(|c| {
                    opts.iter().map(move |o| {
                        let mut c = c.clone();
                        c.extend(o.iter().copied());
                        c
                    })
                })
                .collect();
        }
        combos
    }

    /// Applies the events `evs` with the marks `marks` to `s` (their
    /// effects on the hop bookkeeping, in generation order); `None` when
    /// a hop can no longer hold.
    fn apply(&self, mut s: PState, evs: &[PEv], marks: &[(usize, usize, bool)]) -> Option<PState> {
        let n = s.segs.len();
        let mut now_enter = vec![false; n];
        let mut now_leave = vec![false; n];
        for (i, e) in evs.iter().enumerate() {
            let mk = Mk {
                part: e.part,
                addr: if e.kind.accesses() { e.addr } else { NO_ADDR },
                write: e.kind.writes(),
                bar: e.kind == Kind::Bar,
                after: false,
                before: e.kind.accesses()
                    && e.part >= 2
                    && s.written[e.part as usize - 2]
                        .binary_search(&e.addr)
                        .is_ok(),
            };
            let mut pending: Vec<(usize, bool)> = Vec::new();
            for &(_, k, enter) in marks.iter().filter(|m| m.0 == i) {
                if enter {
                    let h = (k + n - 1) % n;
                    let hop = &mut s.hops[h];
                    match s.segs[h].leave {
                        Some(l) => {
                            hop.first = First::Leave;
                            hop.clean = !l.after;
                            hop.bar = n >= 2 && l.bar && mk.bar && now_leave[h];
                        }
                        None => hop.first = First::Enter,
                    }
                } else {
                    let next = (k + 1) % n;
                    if let Some(en) = s.segs[next].enter {
                        let hop = &mut s.hops[k];
                        hop.first = First::Enter;
                        hop.bar = n >= 2 && en.bar && mk.bar && now_enter[next];
                    } else if pending.contains(&(next, true)) {
                        s.hops[k].first = First::Enter;
                    }
                }
                pending.push((k, enter));
            }
            if e.kind.writes() {
                for seg in &mut s.segs {
                    if let Some(l) = seg.leave.as_mut() {
                        if l.part == e.part && l.addr == e.addr {
                            l.after = true;
                        }
                    }
                }
                if e.part >= 2 {
                    let w = &mut s.written[e.part as usize - 2];
                    if let Err(j) = w.binary_search(&e.addr) {
                        w.insert(j, e.addr);
                    }
                }
            }
            for (k, enter) in pending {
                if enter {
                    s.segs[k].enter = Some(mk);
                    now_enter[k] = true;
                } else {
                    s.segs[k].span = s.segs[k].enter.is_some() && !now_enter[k];
                    s.segs[k].leave = Some(mk);
                    now_leave[k] = true;
                }
            }
        }
        (0..n)
            .all(|k| self.hop_holds(&s, k) != Some(false))
            .then_some(s)
    }

    /// Whether the hop out of segment `k` holds (`None`: an end is not
    /// marked yet). Once both ends are marked the answer only turns from
    /// true to false as events are added, never back.
    fn hop_holds(&self, s: &PState, k: usize) -> Option<bool> {
        let n = s.segs.len();
        let l = s.segs[k].leave?;
        let e = s.segs[(k + 1) % n].enter?;
        let hop = s.hops[k];
        if hop.bar {
            return Some(true);
        }
        if l.bar || e.bar || l.addr != e.addr || !(l.write || e.write) {
            return Some(false);
        }
        Some(match l.part.cmp(&e.part) {
            std::cmp::Ordering::Less => {
                !l.after
                    && !e.before
                    && (l.part + 1..e.part)
                        .all(|p| s.written[p as usize - 2].binary_search(&l.addr).is_err())
            }
            std::cmp::Ordering::Equal => hop.first == First::Leave && hop.clean,
            std::cmp::Ordering::Greater => false,
        })
    }

    /// Whether every segment is left.
    fn all_marked(s: &PState) -> bool {
        !s.segs.is_empty() && s.segs.iter().all(|g| g.leave.is_some())
    }

    /// Whether the marks close a non-trivial cycle: every hop holds, and
    /// the cycle is not one remote operation with itself (one segment
    /// within one trace node) nor one round of barriers (every segment a
    /// single barrier, every hop a barrier edge).
    fn closed(&self, s: &PState) -> bool {
        if !Self::all_marked(s) || !(0..s.segs.len()).all(|k| self.hop_holds(s, k) == Some(true)) {
            return false;
        }
        if s.segs.len() == 1 {
            return s.segs[0].span;
        }
        !(s.hops.iter().all(|h| h.bar) && s.segs.iter().all(|g| !g.span))
    }

    /// Whether thread `t`'s steps `mine` from `s` form a persistent set:
    /// no event of them can be marked (`t` is outside the profile, or no
    /// neighbour of its segment has an access to hop with), its
    /// instructions there are on no control cycle (so it takes such steps
    /// finitely often: no other thread's step is postponed forever), at
    /// least one is enabled, none is a barrier, and none of their events
    /// conflicts with an access of another thread (by the footprints), so
    /// each commutes with every step of the others and stays enabled.
    fn persistent(&self, s: &PState, t: usize, mine: &[Run]) -> bool {
        let Some(fp) = &self.fp else { return false };
        if mine.is_empty() {
            return false;
        }
        // A profile thread's step may not be markable (marks are visible).
        if self.seg_of[t].is_some()
            && mine
                .iter()
                .any(|((ns, evs), _)| self.mark_choices(ns, evs).len() > 1)
        {
            return false;
        }
        let outs = self.out[t]
            .get(s.pc[t] as usize)
            .map_or(&[][..], |o| o.as_slice());
        if outs
            .iter()
            .any(|&i| self.cyclic[t][i] || matches!(self.ops[t][i], POp::Barrier))
        {
            return false;
        }
        mine.iter().all(|((_, evs), _)| {
            evs.iter()
                .all(|e| (0..fp.len()).all(|u| u == t || !fp[u].meets(e)))
        })
    }

    /// Advances the threads of the step's last moves (the instructions
    /// with events; the local ones before them moved already).
    fn finish(&self, ns: &mut PState, moves: &[(usize, usize)]) {
        let mut done = vec![false; ns.pc.len()];
        for &(t, i) in moves.iter().rev() {
            if !std::mem::replace(&mut done[t], true) {
                ns.pc[t] = self.prog.threads[t].instrs[i].to.0;
                self.reset_dead(ns, t);
            }
        }
    }

    /// Runs thread `t`'s local commands from its control state while
    /// exactly one is enabled and every instruction there is local
    /// (registers are the thread's own, so this never changes), recording
    /// the moves.
    fn settle(&self, s: &mut PState, t: usize, moves: &mut Vec<(usize, usize)>) {
        let threads = &self.prog.threads[t];
        // A loop of local commands alone would never end.
        for _ in 0..threads.instrs.len() + 1 {
            let outs = match self.out[t].get(s.pc[t] as usize) {
                Some(o) if !o.is_empty() => o,
                _ => return,
            };
            if !outs
                .iter()
                .all(|&i| matches!(self.ops[t][i], POp::Local(_)))
            {
                return;
            }
            let mut enabled = outs.iter().filter_map(|&i| {
                let POp::Local(c) = &self.ops[t][i] else {
                    return None;
                };
                let mut ns = s.clone();
                self.local(&mut ns, t, c).then_some((ns, i))
            });
            let (Some((ns, i)), None) = (enabled.next(), enabled.next()) else {
                return;
            };
            *s = ns;
            s.pc[t] = threads.instrs[i].to.0;
            self.reset_dead(s, t);
            moves.push((t, i));
        }
    }
}

impl Generator for Pgas<'_> {
    type State = PState;
    type Step = PStep;
    type Key = i64;

    fn initial(&self) -> PState {
        let regs = self.rf.initial(self.prog);
        let n = self.profile.len();
        let mut s = PState {
            pc: self.prog.threads.iter().map(|t| t.initial.0).collect(),
            regs,
            mem: Vec::new(),
            heads: Vec::new(),
            written: [Vec::new(), Vec::new(), Vec::new()],
            segs: vec![Seg::default(); n],
            hops: vec![Hop::default(); n],
        };
        for t in 0..self.prog.threads.len() {
            self.reset_dead(&mut s, t);
        }
        s
    }

    /// Reports each event of the successors to `wrote` as (4·2 · thread
    /// + kind, address) for [`Footprint::collect`].
    fn successors(&self, s: &PState, wrote: &mut dyn FnMut(i64, i64)) -> Vec<(PState, PStep)> {
        // With every segment marked, later events can only break hops.
        if Self::all_marked(s) {
            return Vec::new();
        }
        // Each thread's deterministic local commands run with its next
        // step (they have no event and commute with every other step).
        let mut pre = s.clone();
        let mut lead: Vec<Vec<(usize, usize)>> = Vec::new();
        for t in 0..self.prog.threads.len() {
            let mut moves = Vec::new();
            self.settle(&mut pre, t, &mut moves);
            lead.push(moves);
        }
        let mut per_thread: Vec<Vec<Run>> = Vec::new();
        for (t, lead_t) in lead.iter().enumerate() {
            // The other threads' local commands stay undone.
            let mut from = s.clone();
            from.pc[t] = pre.pc[t];
            let span = self.rf.span(t);
            from.regs[span.clone()].copy_from_slice(&pre.regs[span]);
            let mut mine = Vec::new();
            for &i in self.out[t].get(from.pc[t] as usize).into_iter().flatten() {
                let op = &self.ops[t][i];
                if matches!(op, POp::Barrier) {
                    continue;
                }
                mine.extend(self.exec(&from, t, i, op).into_iter().map(|r| {
                    let mut moves = lead_t.clone();
                    moves.push((t, i));
                    (r, moves)
                }));
            }
            if self.persistent(&from, t, &mine) {
                per_thread = vec![mine];
                break;
            }
            per_thread.push(mine);
        }
        let mut runs: Vec<Run> = Vec::new();
        if per_thread.len() == self.prog.threads.len() {
            runs.extend(self.barrier_rounds(&pre).into_iter().map(|(r, bars)| {
                let mut moves: Vec<(usize, usize)> = lead.iter().flatten().copied().collect();
                moves.extend(bars);
                (r, moves)
            }));
        }
        runs.extend(per_thread.into_iter().flatten());
        let mut res = Vec::new();
        for ((mut ns, evs), moves) in runs {
            for e in &evs {
                wrote(Footprint::key(e), e.addr);
            }
            self.finish(&mut ns, &moves);
            for marks in self.mark_choices(&ns, &evs) {
                if let Some(next) = self.apply(ns.clone(), &evs, &marks) {
                    res.push((
                        next,
                        PStep {
                            moves: moves.clone(),
                            events: evs.clone(),
                            marks,
                        },
                    ));
                }
            }
        }
        res
    }

    fn goal(&self, s: &PState) -> bool {
        self.closed(s)
    }

    fn bytes(&self, s: &PState) -> usize {
        120 + 8 * (s.pc.len() + s.regs.len())
            + 16 * s.mem.len()
            + 24 * s.heads.len()
            + 8 * s.written.iter().map(Vec::len).sum::<usize>()
            + 48 * s.segs.len()
    }
}

/// Per instruction of `t`: whether it lies on a cycle of the control
/// graph (its target reaches its source).
fn on_cycles(t: &crate::program::Thread) -> Vec<bool> {
    let out = t.outgoing();
    t.instrs
        .iter()
        .map(|ins| {
            let mut seen = vec![false; t.states.len()];
            let mut work = vec![ins.to.0 as usize];
            while let Some(q) = work.pop() {
                if q == ins.from.0 as usize {
                    return true;
                }
                if std::mem::replace(&mut seen[q], true) {
                    continue;
                }
                work.extend(out[q].iter().map(|&i| t.instrs[i].to.0 as usize));
            }
            false
        })
        .collect()
}
