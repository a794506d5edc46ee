//! The multiheaded automaton M(P) of degree 3 for the store-buffer models
//! (thesis `003_…` §3.2.1, Example 3.5, extended to three parts, PSO's
//! per-address buffers and TSO's implicit #StoreStore, §5.2–5.3),
//! intersected on the fly with the cycle marks of a profile
//! ([`super::profile`]).
//!
//! The automaton executes instructions one at a time, each thread in
//! program order (the order σ of the normal form, NF-B), and appends every
//! event of the instruction to one of the parts 1, 2, 3 of the
//! computation `w = w1·w2·w3` (NF-A: a thread's non-flush events in
//! non-decreasing parts). A store's issue goes to the thread's current
//! part (without loss of generality: it touches no memory) and its flush
//! to any part not before the issue, the per-address FIFO order, the
//! #StoreStore floor (TSO: every earlier store) allows; when flush and
//! issue share a part the flush follows the issue at once (σ is SC). A
//! load reads the thread's newest buffered store to its address when that
//! store's flush is in a later part (early read), else the memory of its
//! part at that point.
//!
//! Memory per part: part 1 starts from the initial memory; parts 2 and 3
//! start from the memory the previous part ends with, which is not known
//! yet when a later part is read (the heads run in parallel). A read of a
//! cell that the part has not written yet *guesses* the cell (value and
//! tag) lazily; [`State::consistent`] checks the guesses against the ends
//! of the previous parts (the joins of Lemma 3.3's construction). Guessed
//! values range over the values the search has seen written to the cell
//! ([`super::search`] closes this set).
//!
//! Under RMO the same parts and memories serve, but an instruction's
//! events are placed by the rules of [`super::rmo`] (a thread's loads and
//! commits are not in non-decreasing parts); `cur` then holds the least
//! part where the thread may still add a memory event, which is what
//! closing parts needs.

use super::profile::{hop, Acc, Src};
use super::program_class::{Addr, Footprint, Micro, Op, LOCK_ADDR};
use super::Model;
use crate::collections::{HashMap, HashSet};
use crate::program::regfile::RegFile;
use crate::program::{Command, LExpr, Program, RegId, Width};

/// The tag of a guessed cell whose tag no read needed: only the load
/// entering a segment looks at tags (the src hop), so the other reads
/// guess the value alone and the join check accepts any tag.
pub(crate) const ANY_TAG: u8 = u8::MAX;

/// The access a mark keeps once the hop through it is checked
/// ([`Automaton::canonical`]): only that the mark is made is read then.
pub(crate) const CHECKED: Acc = Acc::Store { addr: 0, flush: 0 };

/// Number of parts of the normal form (degree 3: §3.1 with two events per
/// instruction, §5.1).
pub(crate) const PARTS: u8 = 3;

/// A memory cell: its value and its tag (`k + 1`: written by the store
/// that leaves segment `k` of the profile; 0: any other store or the
/// initial value; [`ANY_TAG`]: a guess whose tag no read has looked at).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Cell {
    /// The value.
    pub v: i64,
    /// The tag.
    pub tag: u8,
}

/// A cell of part 2 or 3: the guessed value at the start of the part (set
/// by a read before any write of the part) and the value written last in
/// the part.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Later {
    /// Address.
    pub addr: i64,
    /// Guessed start of the part.
    pub start: Option<Cell>,
    /// Last write of the part.
    pub now: Option<Cell>,
}

/// The values a read of part 2 or 3 may guess, per part (index `p - 2`)
/// and address; an address without an entry guesses its initial value
/// only, and an entry holds the initial value.
///
/// A guess of part `p` is the value part `p - 1` ends with: the initial
/// value or a value written in a part before `p`. So part 2 guesses among
/// the values part 1 writes and part 3 among those parts 1 and 2 write
/// ([`super::search::close_candidates`]): the values a part writes depend
/// on the reads of that part and the earlier ones only (a thread's events
/// that feed a write are not after it), so the sets close part by part
/// instead of through a fixpoint over all parts, which a counter (`x =
/// x + 1`) would grow to every value of the width.
#[derive(Clone, Debug, Default)]
pub(crate) struct Candidates {
    /// Per part 2 and 3, the values per address (sorted).
    pub parts: [HashMap<i64, Vec<i64>>; 2],
}

impl Candidates {
    /// The same values for both parts (a superset of what each may
    /// guess: a guess no run writes never passes the join check).
    pub fn both(per_addr: HashMap<i64, Vec<i64>>) -> Candidates {
        Candidates {
            parts: [per_addr.clone(), per_addr],
        }
    }

    /// The number of (part, address, value) candidates.
    pub fn len(&self) -> usize {
        self.parts
            .iter()
            .flat_map(|m| m.values())
            .map(Vec::len)
            .sum()
    }

    /// Adds the writes of `written` ((part, address) → values) to the
    /// parts after theirs, with `init(a)` the initial value of `a`; true
    /// when a value was new.
    pub fn absorb(
        &mut self,
        written: &HashMap<(u8, i64), HashSet<i64>>,
        init: impl Fn(i64) -> i64,
    ) -> bool {
        let mut grew = false;
        for (&(q, a), vs) in written {
            for p in (q + 1).max(2)..=PARTS {
                let c = self.parts[p as usize - 2]
                    .entry(a)
                    .or_insert_with(|| vec![init(a)]);
                for &v in vs {
                    if !c.contains(&v) {
                        c.push(v);
                        grew = true;
                    }
                }
                c.sort_unstable();
            }
        }
        grew
    }
}

/// A store of a thread whose flush is in a later part than the thread's
/// current part (the newest per address).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Buffered {
    /// Thread.
    pub thread: u8,
    /// Address.
    pub addr: i64,
    /// Part of the flush.
    pub flush: u8,
    /// Value.
    pub v: i64,
    /// Enter marks recorded before the store.
    pub before: u16,
}

/// The marks of one segment of the profile.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub(crate) struct Mark {
    /// The access entering the segment.
    pub enter: Option<Acc>,
    /// The access leaving the segment.
    pub leave: Option<Acc>,
}

/// A state of the automaton intersected with the marks.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct State {
    /// Control state per thread.
    pub pc: Vec<u32>,
    /// All registers, thread after thread (dead ones reset to 0).
    pub regs: Vec<i64>,
    /// Per thread: the part of its last non-flush event (1..=3).
    pub cur: Vec<u8>,
    /// Per thread: the latest part of a flush of its stores (0: none).
    pub maxflush: Vec<u8>,
    /// Per thread: loads go to this part or later (#StoreLoad).
    pub load_floor: Vec<u8>,
    /// Per thread: flushes go to this part or later (#StoreStore).
    pub flush_floor: Vec<u8>,
    /// Buffered stores, sorted by (thread, address).
    pub buf: Vec<Buffered>,
    /// The lowest open part (1..=3): the parts before it are closed (no
    /// thread can add an event to them) and folded into `mem1`.
    pub base: u8,
    /// The memory of part `base` so far (the end of the closed parts with
    /// the writes of part `base`): cells other than (initial value, tag
    /// 0), sorted.
    pub mem1: Vec<(i64, Cell)>,
    /// Parts 2 and 3, sorted by address (empty for a part `≤ base`).
    pub later: [Vec<Later>; 2],
    /// Marks per segment of the profile.
    pub marks: Vec<Mark>,
    /// Enter marks recorded so far (bit k = segment k).
    pub seen: u16,
    /// RMO only (empty otherwise): per register, thread after thread,
    /// the part where its value is computed and the part where its
    /// producer commits (0: no bound; [`super::rmo`]).
    pub heads: Vec<(u8, u8)>,
    /// RMO only: per thread, the parts that order its next events.
    pub rmo: Vec<Heads>,
    /// RMO only: the newest in-flight store per thread and address,
    /// sorted by (thread, address).
    pub inflight: Vec<InFlight>,
    /// Power only: the addresses part 2 writes no more (sorted): a load
    /// read the cell there after a program-order-earlier load of its
    /// thread read part 3's start, so both read the same store
    /// (POW-FIN-LD).
    pub frozen: Vec<i64>,
}

/// One event of a step, for the witness.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Ev {
    /// A write (else a read).
    pub write: bool,
    /// Address ([`LOCK_ADDR`] for the lock cell).
    pub addr: i64,
    /// Value read or written.
    pub value: i64,
    /// Part of the read, or of the store's issue.
    pub part: u8,
    /// Part of the store's flush (the read's part for reads).
    pub flush: u8,
    /// A read from the thread's own buffer.
    pub early: bool,
}

/// One transition: an instruction with its events and marks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Step {
    /// Thread.
    pub thread: usize,
    /// Instruction index in the thread.
    pub instr: usize,
    /// Memory events in the instruction's order.
    pub events: Vec<Ev>,
    /// Index of the event marked as entering, and leaving, its segment.
    pub marks: (Option<usize>, Option<usize>),
    /// The local instructions the thread ran right after it, in order
    /// ([`Automaton::run_locals`]).
    pub locals: Vec<usize>,
}

/// The automaton of one program, model and profile.
pub(crate) struct Automaton<'p> {
    /// The program.
    pub prog: &'p Program,
    ops: &'p [Vec<Op>],
    out: Vec<Vec<Vec<usize>>>,
    pub(super) rf: RegFile,
    w: Width,
    pub(super) model: Model,
    /// The profile's threads.
    pub profile: Vec<u32>,
    pub(super) seg_of: Vec<Option<usize>>,
    /// Values a guess may take per part and address.
    pub cands: Candidates,
    /// Per thread, its footprint when every address is constant.
    foot: Vec<Option<Footprint>>,
    /// The distinguished thread (store-buffer models): the thread whose
    /// last instruction separates the parts ([`Automaton::successors`]).
    pub dist: Option<usize>,
    /// Whether deterministic local instructions run with the step before
    /// them ([`Automaton::run_locals`]) and states forget what no
    /// extension reads ([`Automaton::canonical`]): the reductions of a
    /// search that is not plain.
    pub merge_locals: bool,
}

/// A partial successor inside one instruction: the state, the events so
/// far and the accesses for the marks.
pub(super) type Partial = (State, Vec<Ev>, Vec<Acc>);

impl<'p> Automaton<'p> {
    /// The event and the access of a load of value `v` from address `a`
    /// in part `p`, reading from `src` (early when `src` is an in-flight
    /// store of its own thread).
    pub(super) fn load_event(a: i64, v: i64, p: u8, src: Src) -> (Ev, Acc) {
        let ev = Ev {
            write: false,
            addr: a,
            value: v,
            part: p,
            flush: p,
            early: matches!(src, Src::Early { .. }),
        };
        (
            ev,
            Acc::Load {
                addr: a,
                part: p,
                src,
            },
        )
    }

    /// The automaton for `profile` (threads of the cycle's segments).
    pub fn new(
        prog: &'p Program,
        ops: &'p [Vec<Op>],
        w: Width,
        model: Model,
        profile: Vec<u32>,
    ) -> Automaton<'p> {
        let mut seg_of = vec![None; prog.threads.len()];
        for (k, &t) in profile.iter().enumerate() {
            seg_of[t as usize] = Some(k);
        }
        Automaton {
            prog,
            ops,
            out: prog.threads.iter().map(|t| t.outgoing()).collect(),
            rf: RegFile::new(prog, w),
            w,
            model,
            profile,
            seg_of,
            cands: Candidates::default(),
            foot: ops.iter().map(|o| Footprint::of(o, w)).collect(),
            dist: None,
            merge_locals: true,
        }
    }

    /// The initial state: every thread at its initial state in part 1.
    pub fn initial(&self) -> State {
        let n = self.prog.threads.len();
        let regs = self.rf.initial(self.prog);
        let mut s = State {
            pc: self.prog.threads.iter().map(|t| t.initial.0).collect(),
            regs,
            cur: vec![1; n],
            maxflush: vec![0; n],
            load_floor: vec![0; n],
            flush_floor: vec![0; n],
            buf: Vec::new(),
            base: 1,
            mem1: Vec::new(),
            later: [Vec::new(), Vec::new()],
            marks: vec![Mark::default(); self.profile.len()],
            seen: 0,
            heads: Vec::new(),
            rmo: Vec::new(),
            inflight: Vec::new(),
            frozen: Vec::new(),
        };
        if self.model.commits() {
            s.heads = vec![(0, 0); s.regs.len()];
            s.rmo = vec![Heads::default(); n];
            // Part 1 of an RMO normal form holds the fetches only (the
            // proof of Theorem 5.1 with POW-NF-A: the fetches go first,
            // the undone instruction's last; its commit, when it is not
            // a store, last of all): part 1 is closed from the start and
            // ends with the initial memory.
            s.base = 2;
        }
        for t in 0..n {
            self.reset_dead(&mut s, t);
        }
        // Threads without instructions close parts at once (a false
        // answer only means that no goal is reachable).
        self.close_parts(&mut s);
        s
    }

    /// The initial value of a cell (the lock cell: 0).
    pub fn init_val(&self, a: i64) -> i64 {
        if a == LOCK_ADDR {
            0
        } else {
            self.w.wrap(self.prog.init_value(a))
        }
    }

    /// Adds the writes of a search (part and address → values) to the
    /// guess candidates of the later parts; true when one was new.
    pub fn absorb(&mut self, written: &HashMap<(u8, i64), HashSet<i64>>) -> bool {
        let mut cands = std::mem::take(&mut self.cands);
        let grew = cands.absorb(written, |a| self.init_val(a));
        self.cands = cands;
        grew
    }

    pub(super) fn eval(&self, s: &State, t: usize, e: &LExpr) -> i64 {
        self.rf.eval(&s.regs, t, e)
    }

    pub(super) fn set_reg(&self, s: &mut State, t: usize, r: RegId, v: i64) {
        self.rf.set(&mut s.regs, t, r, v);
    }

    fn reset_dead(&self, s: &mut State, t: usize) {
        for i in self.rf.dead(t, s.pc[t] as usize) {
            s.regs[i] = 0;
            if let Some(h) = s.heads.get_mut(i) {
                *h = (0, 0);
            }
        }
    }

    /// Runs a local command; false when it blocks.
    pub(super) fn local(&self, s: &mut State, t: usize, c: &Command) -> bool {
        self.rf.local(&mut s.regs, t, c)
    }

    fn buffered(s: &State, t: usize, a: i64) -> Option<&Buffered> {
        s.buf.iter().find(|b| b.thread as usize == t && b.addr == a)
    }

    /// The cells a read of `a` in part `p` may see, with whether each is a
    /// new (or refined) guess; `want`: the tag the read needs (the load
    /// entering a segment after a store), which a guess takes.
    pub(super) fn read_options(
        &self,
        s: &State,
        p: u8,
        a: i64,
        want: Option<u8>,
    ) -> Vec<(Cell, bool)> {
        debug_assert!(p >= s.base);
        if p <= s.base {
            return vec![(self.mem_cell(s, a), false)];
        }
        let part = &s.later[p as usize - 2];
        if let Ok(i) = part.binary_search_by_key(&a, |e| e.addr) {
            if let Some(c) = part[i].now {
                return vec![(c, false)];
            }
            if let Some(c) = part[i].start {
                return match want {
                    Some(tag) if c.tag == ANY_TAG => vec![(Cell { v: c.v, tag }, true)],
                    _ => vec![(c, false)],
                };
            }
        }
        let init = [self.init_val(a)];
        let vals = self.cands.parts[p as usize - 2]
            .get(&a)
            .map_or(&init[..], |v| v.as_slice());
        let tag = want.unwrap_or(ANY_TAG);
        vals.iter().map(|&v| (Cell { v, tag }, true)).collect()
    }

    pub(super) fn record_guess(s: &mut State, p: u8, a: i64, c: Cell) {
        let part = &mut s.later[p as usize - 2];
        match part.binary_search_by_key(&a, |e| e.addr) {
            Ok(i) => part[i].start = Some(c),
            Err(i) => part.insert(
                i,
                Later {
                    addr: a,
                    start: Some(c),
                    now: None,
                },
            ),
        }
    }

    /// The cell `a` of `mem1` (the memory of part `base` so far).
    fn mem_cell(&self, s: &State, a: i64) -> Cell {
        match s.mem1.binary_search_by_key(&a, |e| e.0) {
            Ok(i) => s.mem1[i].1,
            Err(_) => Cell {
                v: self.init_val(a),
                tag: 0,
            },
        }
    }

    pub(super) fn write(&self, s: &mut State, p: u8, a: i64, c: Cell) {
        debug_assert!(p >= s.base);
        if p <= s.base {
            let dflt = c.tag == 0 && c.v == self.init_val(a);
            match s.mem1.binary_search_by_key(&a, |e| e.0) {
                Ok(i) if dflt => {
                    s.mem1.remove(i);
                }
                Ok(i) => s.mem1[i].1 = c,
                Err(_) if dflt => {}
                Err(i) => s.mem1.insert(i, (a, c)),
            }
            return;
        }
        let part = &mut s.later[p as usize - 2];
        match part.binary_search_by_key(&a, |e| e.addr) {
            Ok(i) => part[i].now = Some(c),
            Err(i) => part.insert(
                i,
                Later {
                    addr: a,
                    start: None,
                    now: Some(c),
                },
            ),
        }
    }

    /// Whether the guesses of parts 2 and 3 agree with the memory the
    /// previous parts end with (the join check).
    pub fn consistent(&self, s: &State) -> bool {
        // The parts before `base` are folded into `mem1` (their guesses
        // were checked when they closed) and `later` is empty for them.
        let end1 = |a: i64| self.mem_cell(s, a);
        let find = |p: usize, a: i64| {
            let part = &s.later[p];
            part.binary_search_by_key(&a, |e| e.addr)
                .ok()
                .map(|i| &part[i])
        };
        // A cell part 2 only read ends as part 1 ends it (its guess agrees,
        // and the concrete tag is part 1's).
        let end2 = |a: i64| match find(0, a).and_then(|l| l.now) {
            Some(c) => c,
            None => end1(a),
        };
        let agrees = |g: Cell, e: Cell| g.v == e.v && (g.tag == ANY_TAG || g.tag == e.tag);
        s.later[0]
            .iter()
            .all(|l| l.start.is_none_or(|g| agrees(g, end1(l.addr))))
            && s.later[1]
                .iter()
                .all(|l| l.start.is_none_or(|g| agrees(g, end2(l.addr))))
    }

    /// Whether every segment of the profile is entered and left (each hop
    /// was checked when its second end was marked).
    pub fn cycle_closed(s: &State) -> bool {
        s.marks.iter().all(|m| m.leave.is_some())
    }

    /// Every successor of `s`, with its step; `wrote(q, a, v)` is told
    /// every write the successors make (part, address, value).
    ///
    /// With a distinguished thread `d` ([`Automaton::dist`], store-buffer
    /// models), only the computations of the shape §3.1 constructs are
    /// generated. There the parts are separated by the events of one
    /// instruction `x`, the last executed instruction of its thread `d`,
    /// chosen (as in Lemma 4.10) to be a load or a store no load reads —
    /// the last instructions of all threads cannot all be stores read by
    /// another thread, since a store is read after its flush, which
    /// follows its issue, and the reading load precedes its own thread's
    /// last issue: the issue times would increase along a cycle of
    /// threads. Undoing `x` changes no rf arc, so `τ \ x` has the trace
    /// of `τ` without `x`; being shorter it is acyclic, so every hb cycle
    /// of `τ` passes through `x`, and `x`, last in program order, leaves
    /// `d`'s segment of the beautiful cycle (Lemma 3.7). In the normal
    /// form `(σ↓τ1·x1)·(σ↓τ2·x2)·σ↓τ3` every non-flush event of `d` is in
    /// part 1 (before `x1`), and generating the instructions in the order
    /// of the SC computation `σ` followed by `x` (each part is ordered as
    /// `σ`, `x`'s events are last in their parts) makes `x` the last
    /// step. So `d` never leaves part 1 and its leaving mark is the last
    /// step: a state where it is made without closing the cycle with
    /// consistent guesses is dropped.
    pub fn successors(
        &self,
        s: &State,
        wrote: &mut impl FnMut(u8, i64, i64),
    ) -> Vec<(State, Step)> {
        let mut res = Vec::new();
        for t in 0..self.prog.threads.len() {
            let q = s.pc[t] as usize;
            let Some(outs) = self.out[t].get(q) else {
                continue;
            };
            let dist = self.dist == Some(t);
            for &i in outs {
                let ins = &self.prog.threads[t].instrs[i];
                let op = &self.ops[t][i];
                for marks in self.mark_choices(s, t, op.accesses()) {
                    for (mut ns, events, accs) in self.exec(s, t, op, marks, wrote) {
                        if dist && (ns.cur[t] > 1 || self.tso_late_flush(&ns, t)) {
                            continue;
                        }
                        if !self.apply_marks(&mut ns, t, marks, &accs) {
                            continue;
                        }
                        ns.pc[t] = ins.to.0;
                        self.reset_dead(&mut ns, t);
                        if !self.close_parts(&mut ns) {
                            continue;
                        }
                        let mut locals = Vec::new();
                        if !self.run_locals(&mut ns, t, &mut locals, wrote) {
                            continue;
                        }
                        if dist
                            && marks.1.is_some()
                            && !(Self::cycle_closed(&ns) && self.consistent(&ns))
                        {
                            continue;
                        }
                        if self.merge_locals {
                            self.canonical(&mut ns);
                        }
                        let step = Step {
                            thread: t,
                            instr: i,
                            events,
                            marks,
                            locals,
                        };
                        res.push((ns, step));
                    }
                }
            }
        }
        res
    }

    /// Forgets what no extension of `s` reads, so that states differing
    /// only there are one (each rule keeps every successor and goal):
    ///
    /// * a hop whose two ends are marked was checked when the second was
    ///   made; its ends are read only as "marked" from then on, so their
    ///   accesses become [`CHECKED`];
    /// * of the enter marks recorded before a thread's buffered or
    ///   in-flight store, only the one of the segment after the thread's
    ///   is read (by the hop from a load that reads the store early and
    ///   leaves the thread's segment, [`hop`]);
    /// * store-buffer models: a thread's floors (`maxflush`,
    ///   `load_floor`, `flush_floor`) are lower bounds taken together with
    ///   its part `cur`, which never decreases: one at most `cur` bounds
    ///   nothing and becomes 0.
    fn canonical(&self, s: &mut State) {
        let n = s.marks.len();
        for k in 0..n {
            let next = (k + 1) % n;
            if s.marks[k].leave.is_some() && s.marks[next].enter.is_some() {
                s.marks[k].leave = Some(CHECKED);
                s.marks[next].enter = Some(CHECKED);
            }
        }
        let mask = |t: u8| match self.seg_of[t as usize] {
            Some(k) => 1u16 << ((k + 1) % n),
            None => 0,
        };
        for b in &mut s.buf {
            b.before &= mask(b.thread);
        }
        for f in &mut s.inflight {
            f.before &= mask(f.thread);
        }
        if !self.model.commits() {
            for t in 0..s.cur.len() {
                let cur = s.cur[t];
                for x in [
                    &mut s.maxflush[t],
                    &mut s.load_floor[t],
                    &mut s.flush_floor[t],
                ] {
                    if *x <= cur {
                        *x = 0;
                    }
                }
            }
        }
    }

    /// Under TSO, whether the distinguished thread `d` has a flush in part
    /// 3: no computation of the shape [`Automaton::successors`] describes
    /// has one. There part 2 ends with `x2`, the flush of `x` when `x` is
    /// a store, and `d`'s buffer is one FIFO, so its earlier stores flush
    /// before; when `x` is a load it has one event and part 3 is empty.
    fn tso_late_flush(&self, s: &State, d: usize) -> bool {
        self.model == Model::Tso && s.maxflush[d] > 2
    }

    /// Runs thread `t`'s local instructions while its control state has
    /// only local instructions and exactly one of them is enabled
    /// (appending them to `locals`); false when the state is dropped
    /// ([`Automaton::close_parts`]). A local command has no memory event
    /// (§2.4: it changes the thread's registers and control state only),
    /// so it commutes with every step of another thread and leaves the
    /// parts and the order of the events of the computation as they are:
    /// every computation the automaton generates is also generated with
    /// the thread's deterministic local steps taken at once, with the
    /// same trace. Stops at a control state with a memory access, a
    /// barrier, a choice or no enabled instruction, and after as many
    /// steps as the thread has instructions (a loop of local commands).
    fn run_locals(
        &self,
        s: &mut State,
        t: usize,
        locals: &mut Vec<usize>,
        wrote: &mut impl FnMut(u8, i64, i64),
    ) -> bool {
        let instrs = &self.prog.threads[t].instrs;
        while self.merge_locals && locals.len() < instrs.len() {
            let Some(outs) = self.out[t].get(s.pc[t] as usize) else {
                return true;
            };
            if outs.is_empty() || !outs.iter().all(|&i| matches!(self.ops[t][i], Op::Local(_))) {
                return true;
            }
            let mut next = None;
            for &i in outs {
                for (ns, ..) in self.exec(s, t, &self.ops[t][i], (None, None), wrote) {
                    if next.is_some() {
                        return true;
                    }
                    next = Some((i, ns));
                }
            }
            let Some((i, mut ns)) = next else {
                return true;
            };
            ns.pc[t] = instrs[i].to.0;
            self.reset_dead(&mut ns, t);
            if !self.close_parts(&mut ns) {
                return false;
            }
            *s = ns;
            locals.push(i);
        }
        true
    }

    /// Whether thread `t` has no instruction left at its control state
    /// (it adds no event to any part any more).
    fn terminated(&self, s: &State, t: usize) -> bool {
        self.out[t]
            .get(s.pc[t] as usize)
            .is_none_or(|o| o.is_empty())
    }

    /// Closes the parts no thread can add an event to any more (every
    /// thread is in a later part or terminated; a thread's events are in
    /// parts `≥ cur`): the guesses of the next part are checked against
    /// the closed part's end now (it never changes; false: they disagree,
    /// so no extension of the state is consistent) and the next part's
    /// writes are folded into `mem1`, so its later reads see memory
    /// instead of guessing. A state whose profile thread terminated
    /// before leaving its segment is dropped. A terminated thread's part, floors and
    /// buffer summary are reset (nothing reads them any more), so states
    /// that differ only there are one.
    fn close_parts(&self, s: &mut State) -> bool {
        for t in 0..s.pc.len() {
            if self.terminated(s, t) {
                // A segment its thread can no longer leave never closes
                // the cycle: no extension of the state is a goal.
                if self.seg_of[t].is_some_and(|k| s.marks[k].leave.is_none()) {
                    return false;
                }
                s.cur[t] = PARTS;
                s.maxflush[t] = 0;
                s.load_floor[t] = 0;
                s.flush_floor[t] = 0;
                s.buf.retain(|b| b.thread as usize != t);
                if self.model.commits() {
                    Self::rmo_terminate(s, t);
                }
            } else if self.model.commits() {
                // Under RMO a thread's events are not in non-decreasing
                // parts: its next events are bounded below by its floor.
                s.cur[t] = Self::rmo_floor(s, t);
            }
        }
        while s.base < PARTS && s.cur.iter().all(|&c| c > s.base) {
            let next = std::mem::take(&mut s.later[s.base as usize - 1]);
            for l in &next {
                if let Some(g) = l.start {
                    let e = self.mem_cell(s, l.addr);
                    if g.v != e.v || (g.tag != ANY_TAG && g.tag != e.tag) {
                        return false;
                    }
                }
            }
            s.base += 1;
            for l in next {
                if let Some(c) = l.now {
                    self.write(s, s.base, l.addr, c);
                }
            }
        }
        if self.model.commits() {
            Self::rmo_normalize(s);
        }
        true
    }

    /// The mark choices of an instruction of thread `t` with `n`
    /// accesses: (enter at, leave at), leave not before enter.
    fn mark_choices(&self, s: &State, t: usize, n: usize) -> Vec<(Option<usize>, Option<usize>)> {
        let mut out = vec![(None, None)];
        let Some(k) = self.seg_of[t] else {
            return out;
        };
        let m = s.marks[k];
        match (m.enter.is_some(), m.leave.is_some()) {
            (false, _) => {
                for e in 0..n {
                    out.push((Some(e), None));
                    for l in e..n {
                        out.push((Some(e), Some(l)));
                    }
                }
            }
            (true, false) => out.extend((0..n).map(|l| (None, Some(l)))),
            (true, true) => {}
        }
        out
    }

    /// Records the marks of a step and checks the hops they complete.
    fn apply_marks(
        &self,
        s: &mut State,
        t: usize,
        (enter, leave): (Option<usize>, Option<usize>),
        accs: &[Acc],
    ) -> bool {
        let Some(k) = self.seg_of[t] else {
            return true;
        };
        let n = self.profile.len();
        // A mark whose access no access of the neighbouring segment's
        // thread can meet closes no hop.
        let meets = |other: usize, acc: &Acc| {
            let (write, a) = match *acc {
                Acc::Store { addr, .. } => (true, addr),
                Acc::Load { addr, .. } => (false, addr),
            };
            self.foot[self.profile[other] as usize]
                .as_ref()
                .is_none_or(|f| f.meets(write, a))
        };
        if enter.is_some_and(|e| !meets((k + n - 1) % n, &accs[e]))
            || leave.is_some_and(|l| !meets((k + 1) % n, &accs[l]))
        {
            return false;
        }
        if let Some(e) = enter {
            let acc = accs[e];
            s.marks[k].enter = Some(acc);
            s.seen |= 1 << k;
            let prev = (k + n - 1) % n;
            if let Some(l) = s.marks[prev].leave {
                if !hop(prev, k, l, acc, true) {
                    return false;
                }
            }
        }
        if let Some(l) = leave {
            let acc = accs[l];
            s.marks[k].leave = Some(acc);
            let next = (k + 1) % n;
            if let Some(e) = s.marks[next].enter {
                if !hop(k, next, acc, e, false) {
                    return false;
                }
            }
        }
        true
    }

    /// The tag a write carries: `k + 1` when it is the access leaving
    /// segment `k`.
    pub(super) fn tag(&self, t: usize, leave: Option<usize>, idx: usize) -> u8 {
        match (self.seg_of[t], leave) {
            (Some(k), Some(l)) if l == idx => k as u8 + 1,
            _ => 0,
        }
    }

    /// The tag the access `idx` of thread `t` needs to read when it is
    /// marked as entering its segment (the tag of the previous segment's
    /// leaving store, for a src hop).
    pub(super) fn want(&self, t: usize, enter: Option<usize>, idx: usize) -> Option<u8> {
        match (self.seg_of[t], enter) {
            (Some(k), Some(e)) if e == idx => {
                let n = self.profile.len();
                Some(((k + n - 1) % n) as u8 + 1)
            }
            _ => None,
        }
    }

    /// Executes operation `op` of thread `t` in every way the parts
    /// allow; `(enter, leave)`: the indices of the accesses marked as
    /// entering (its read needs the previous segment's tag) and leaving
    /// (its write is tagged).
    fn exec(
        &self,
        s: &State,
        t: usize,
        op: &Op,
        (enter, leave): (Option<usize>, Option<usize>),
        wrote: &mut impl FnMut(u8, i64, i64),
    ) -> Vec<Partial> {
        if self.model.commits() {
            return self.exec_rmo(s, t, op, (enter, leave), wrote);
        }
        let mut out = Vec::new();
        match op {
            Op::Local(c) => {
                let mut ns = s.clone();
                if self.local(&mut ns, t, c) {
                    out.push((ns, Vec::new(), Vec::new()));
                }
            }
            Op::Fence { sl, ss, .. } => {
                let mut ns = s.clone();
                if *sl {
                    ns.load_floor[t] = ns.load_floor[t].max(ns.maxflush[t]);
                }
                if *ss {
                    ns.flush_floor[t] = ns.flush_floor[t].max(ns.maxflush[t]);
                }
                out.push((ns, Vec::new(), Vec::new()));
            }
            Op::Load { reg, addr } => {
                let a = self.eval(s, t, addr);
                let lo = s.cur[t].max(s.load_floor[t]);
                for p in lo..=PARTS {
                    let mut reads = Vec::new();
                    match Self::buffered(s, t, a) {
                        Some(b) if b.flush > p => reads.push((
                            b.v,
                            Src::Early {
                                flush: b.flush,
                                before: b.before,
                            },
                            None,
                        )),
                        _ => {
                            for (c, g) in self.read_options(s, p, a, self.want(t, enter, 0)) {
                                reads.push((c.v, Src::Mem { tag: c.tag }, g.then_some(c)));
                            }
                        }
                    }
                    for (v, src, guess) in reads {
                        let mut ns = s.clone();
                        if let Some(c) = guess {
                            Self::record_guess(&mut ns, p, a, c);
                        }
                        self.set_reg(&mut ns, t, *reg, v);
                        Self::advance(&mut ns, t, p);
                        let (ev, acc) = Self::load_event(a, v, p, src);
                        out.push((ns, vec![ev], vec![acc]));
                    }
                }
            }
            Op::Store { addr, value } => {
                let a = self.eval(s, t, addr);
                let v = self.eval(s, t, value);
                let cur = s.cur[t];
                let fifo = Self::buffered(s, t, a).map_or(0, |b| b.flush);
                let lo = cur.max(s.flush_floor[t]).max(fifo);
                let tag = self.tag(t, leave, 0);
                for q in lo..=PARTS {
                    let mut ns = s.clone();
                    self.write(&mut ns, q, a, Cell { v, tag });
                    wrote(q, a, v);
                    ns.maxflush[t] = ns.maxflush[t].max(q);
                    if self.model == Model::Tso {
                        ns.flush_floor[t] = ns.flush_floor[t].max(q);
                    }
                    ns.buf.retain(|b| !(b.thread as usize == t && b.addr == a));
                    if q > cur {
                        // The enter marks before the store matter only
                        // while its thread may still mark a leaving load.
                        let open = self.seg_of[t].is_some_and(|k| s.marks[k].leave.is_none());
                        let b = Buffered {
                            thread: t as u8,
                            addr: a,
                            flush: q,
                            v,
                            before: if open { s.seen } else { 0 },
                        };
                        let at = ns
                            .buf
                            .partition_point(|x| (x.thread, x.addr) < (b.thread, b.addr));
                        ns.buf.insert(at, b);
                    }
                    let ev = Ev {
                        write: true,
                        addr: a,
                        value: v,
                        part: cur,
                        flush: q,
                        early: false,
                    };
                    out.push((ns, vec![ev], vec![Acc::Store { addr: a, flush: q }]));
                }
            }
            Op::Atomic(ms) => {
                let lo = s.cur[t].max(s.maxflush[t]).max(s.load_floor[t]);
                for p in lo..=PARTS {
                    let mut ns = s.clone();
                    Self::advance(&mut ns, t, p);
                    ns.maxflush[t] = p;
                    let mut partial = vec![(ns, Vec::new(), Vec::new())];
                    for m in ms {
                        partial = partial
                            .into_iter()
                            .flat_map(|x| self.micro(x, t, p, m, (enter, leave), wrote))
                            .collect();
                    }
                    out.extend(partial);
                }
            }
        }
        out
    }

    /// Moves thread `t` to part `p` (its buffered stores flushed by then
    /// leave the buffer summary).
    fn advance(s: &mut State, t: usize, p: u8) {
        s.cur[t] = p;
        s.buf.retain(|b| b.thread as usize != t || b.flush > p);
    }

    /// One step of an atomic block in part `p`.
    pub(super) fn micro(
        &self,
        (s, evs, accs): Partial,
        t: usize,
        p: u8,
        m: &Micro,
        (enter, leave): (Option<usize>, Option<usize>),
        wrote: &mut impl FnMut(u8, i64, i64),
    ) -> Vec<Partial> {
        let addr_of = |s: &State, a: &Addr| match a {
            Addr::Expr(e) => self.eval(s, t, e),
            Addr::Lock => LOCK_ADDR,
        };
        match m {
            Micro::Local(c) => {
                let mut ns = s;
                if self.local(&mut ns, t, c) {
                    vec![(ns, evs, accs)]
                } else {
                    Vec::new()
                }
            }
            Micro::Load { reg, addr, expect } => {
                let a = addr_of(&s, addr);
                let mut out = Vec::new();
                let want = self.want(t, enter, accs.len());
                for (c, g) in self.read_options(&s, p, a, want) {
                    if expect.is_some_and(|e| e != c.v) {
                        continue;
                    }
                    let mut ns = s.clone();
                    if g {
                        Self::record_guess(&mut ns, p, a, c);
                    }
                    if let Some(r) = reg {
                        self.set_reg(&mut ns, t, *r, c.v);
                    }
                    let mut evs = evs.clone();
                    evs.push(Ev {
                        write: false,
                        addr: a,
                        value: c.v,
                        part: p,
                        flush: p,
                        early: false,
                    });
                    let mut accs = accs.clone();
                    accs.push(Acc::Load {
                        addr: a,
                        part: p,
                        src: Src::Mem { tag: c.tag },
                    });
                    out.push((ns, evs, accs));
                }
                out
            }
            Micro::Store { addr, value } => {
                let (mut ns, mut evs, mut accs) = (s, evs, accs);
                let a = addr_of(&ns, addr);
                let v = self.eval(&ns, t, value);
                let tag = self.tag(t, leave, accs.len());
                self.write(&mut ns, p, a, Cell { v, tag });
                wrote(p, a, v);
                evs.push(Ev {
                    write: true,
                    addr: a,
                    value: v,
                    part: p,
                    flush: p,
                    early: false,
                });
                accs.push(Acc::Store { addr: a, flush: p });
                vec![(ns, evs, accs)]
            }
        }
    }
}

/// The parts that order a thread's next events (0: no bound).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub(crate) struct Heads {
    /// `assume-comm-head`: the commit of the latest `assume`.
    pub assume_comm: u8,
    /// `addr-comp-head`: the addresses of every fetched access are
    /// computed from this part on.
    pub addr_comp: u8,
    /// The latest load event.
    pub max_load: u8,
    /// The latest store commit.
    pub max_store: u8,
    /// The next loads happen in this part or later (barriers).
    pub load_floor: u8,
    /// The next stores commit in this part or later (barriers).
    pub store_floor: u8,
    /// Per address (sorted): the latest store commit and the latest load
    /// commit of the thread to it.
    pub per_addr: Vec<(i64, u8, u8)>,
    /// Power only: the latest load commit (a `sync` commits after it).
    pub max_load_comm: u8,
    /// Power only: the addresses (sorted) whose latest load of the thread
    /// is in part 3 with no store of the thread to the address after it,
    /// with what it read: a later load of the address in part 2 reads the
    /// same store or breaks POW-FIN-LD.
    pub ld3: Vec<(i64, Read3)>,
}

/// What a Power load in part 3 read (see [`Heads::ld3`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Read3 {
    /// Part 3's start: no store of part 3 to the address before it.
    Start,
    /// Its thread's newest store to the address, committed in part 3 and
    /// not overwritten there before the load.
    Own,
    /// Another store of part 3.
    Other,
}

/// What a load sees, in one part, of its thread's in-flight stores to
/// its address (`early-mem-value`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Early {
    /// No earlier uncommitted store: the load reads memory.
    None,
    /// The newest earlier uncommitted store's value, or a later store's
    /// address, is not computed yet: no load of the address here.
    Unknown,
    /// The load reads the newest earlier uncommitted store early.
    Value,
}

/// The newest store of a thread to an address while it is in flight.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct InFlight {
    /// Thread.
    pub thread: u8,
    /// Address.
    pub addr: i64,
    /// Per part (index `part - 1`), what a load of the address sees.
    pub parts: [Early; PARTS as usize],
    /// The store's value.
    pub v: i64,
    /// The part of its commit.
    pub flush: u8,
    /// Enter marks recorded before the store (bit k = segment k).
    pub before: u16,
    /// Power only: no other store to the address has followed its commit
    /// in the part of the commit (always false under RMO).
    pub newest: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_is_a_candidate_of_the_later_parts_only() {
        let mut c = Candidates::default();
        let mut w: HashMap<(u8, i64), HashSet<i64>> = HashMap::default();
        w.entry((1, 7)).or_default().insert(1);
        w.entry((2, 7)).or_default().insert(2);
        w.entry((3, 7)).or_default().insert(3);
        assert!(c.absorb(&w, |_| 0));
        assert_eq!(c.parts[0][&7], vec![0, 1]);
        assert_eq!(c.parts[1][&7], vec![0, 1, 2]);
        assert_eq!(c.len(), 5);
        // Nothing new: the closure has reached its fixpoint.
        assert!(!c.absorb(&w, |_| 0));
        // A write of the initial value adds no guess.
        let mut c = Candidates::default();
        let mut w: HashMap<(u8, i64), HashSet<i64>> = HashMap::default();
        w.entry((1, 4)).or_default().insert(9);
        assert!(!c.absorb(&w, |_| 9));
    }
}
