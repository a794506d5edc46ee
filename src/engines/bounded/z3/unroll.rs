//! Unrolling for the z3 backend: Program IR + bound K → events whose kind,
//! address and value are z3 terms, as a *transition relation*.
//!
//! Per thread and step i (0 ≤ i < K): an integer `ins[i]` names the
//! instruction executed at step i (−1: the thread has stopped; stopping is
//! final, so computations are prefix-closed, thesis §2.4, DESIGN.md
//! "Bound"); integers `pc[i]`, `pc[i+1]` are the control states around it;
//! the registers after the step are fresh bit-vector constants, tied to
//! the ones before by the executed instruction's effect or by a frame
//! condition. An event's address and value are fresh constants fixed by
//! the instruction executed at its step; a load's register takes the
//! event's value, which the encoder ties to a write (`rf`).
//!
//! This is deliberately a different encoding from the varisat unrolling
//! ([`crate::engines::bounded::varisat::unroll`]: one-hot selection literals, values as
//! bit-blasted functions of the selection); the instructions' meaning is
//! the same (docs/language.md): `lock` reads 0 from the lock cell and
//! writes 1 atomically, `unlock` writes 0; `atomic { … }` makes its
//! accesses one indivisible instruction (set A, `rmw` from each of its
//! reads to each later write); `lwarx`/`stwcx.` keep a per-thread
//! reservation (a store-conditional may succeed only while the
//! reservation of the same address is live, and consumes it).
//!
//! Dependencies (thesis §4.1): a register carries the set of reads its
//! value came from (taint, one Boolean per register and read, per step);
//! `addr`/`data` go from those reads to an access using the register in
//! its address/stored value; `ctrl` from a read that flowed into an
//! `assume` to every event of the later steps (with `Thread::ctrl_reg`,
//! herd's C `if`: from the reads in that register's taint). A second taint per
//! register (`pick`) holds the reads whose value reached it through the
//! condition of a `select` (Arm ARM B2.3.2 pick dependencies); it gives
//! `pick-addr`, `pick-data` and `pick-ctrl` the same way.

use super::{and, or, ZBool, ZBv};
use crate::cat::base::{fence_sets, BaseSet};
use crate::diag::Error;
use crate::program::{
    Ann, BinOp, Command, Expr, LExpr, PgasCmd, Program, RegId, StateId, ThreadId,
};
use std::collections::{BTreeMap, BTreeSet};
use z3::ast::{Ast, Bool, Int, BV};
use z3::Context;

/// One event slot of the unrolling: the `ord`-th event of the
/// instruction executed at (`thread`, `step`).
pub struct ZEvent {
    /// Index in [`ZUnrolled::events`].
    pub id: usize,
    /// The thread.
    pub thread: ThreadId,
    /// The step.
    pub step: u32,
    /// Position among the events of its instruction (see
    /// [`crate::engines::bounded::execution::EventInfo::ord`]).
    pub ord: u32,
    /// The event happens (a failing store-conditional does not).
    pub exec: ZBool,
    /// It is a read.
    pub read: ZBool,
    /// It is a write.
    pub write: ZBool,
    /// Fence sets it belongs to (`F`, `MFENCE`, …): (set, condition).
    pub fences: Vec<(&'static str, ZBool)>,
    /// It belongs to a locked/atomic instruction (set A).
    pub atomic: ZBool,
    /// The access is to the lock cell (outside the address space).
    pub lock: ZBool,
    /// The address (W bits; 0 for the lock cell and for fences).
    pub addr: ZBv,
    /// The value read or written (W bits).
    pub value: ZBv,
    /// Some instruction makes it a read / a write.
    pub may_read: bool,
    /// See `may_read`.
    pub may_write: bool,
    /// A PGAS `popa`/`popb` event: outside program order (thesis §8.2).
    /// Pops have events of their own (never shared with another
    /// candidate's non-pop event of the same `ord`).
    pub pop: bool,
}

/// A PGAS remote operation (thesis 003 §8.1.2, Table 8.1 read/write) that
/// a candidate instruction executes at one step: its issue event (set
/// ISSUE, value = queue id, `ord` 0), popa (set POPA, a read of the
/// source, `ord` 1) and popb (set POPB, a write of the destination with the
/// value popa read, `ord` 2).
pub struct ZRemote {
    /// The thread.
    pub thread: ThreadId,
    /// The step.
    pub step: u32,
    /// The candidate instruction is the one executed.
    pub sel: ZBool,
    /// The issue event.
    pub issue: usize,
    /// The popa event.
    pub popa: usize,
    /// The popb event.
    pub popb: usize,
}

/// The unrolling of one thread.
pub struct ZThread {
    /// Per step: the executed instruction's index, −1 when stopped.
    pub ins: Vec<Int<'static>>,
    /// Per step: the candidate instructions.
    pub cands: Vec<Vec<usize>>,
    /// Control state after the last executed step.
    pub pc_end: Int<'static>,
    /// Registers after the last executed step.
    pub regs_end: Vec<ZBv>,
    /// Some path is longer than the bound.
    pub truncated: bool,
}

/// A relation edge (from, to, condition).
pub type ZEdge = (usize, usize, ZBool);

/// The unrolled program: events, threads and the constraints tying them.
pub struct ZUnrolled {
    /// Events, thread by thread, step by step.
    pub events: Vec<ZEvent>,
    /// Per thread.
    pub threads: Vec<ZThread>,
    /// Constraints (to be asserted).
    pub constraints: Vec<ZBool>,
    /// rmw pairs (read, write).
    pub rmw: Vec<ZEdge>,
    /// addr dependencies (read, event).
    pub addr: Vec<ZEdge>,
    /// data dependencies (read, write).
    pub data: Vec<ZEdge>,
    /// ctrl dependencies (read, event).
    pub ctrl: Vec<ZEdge>,
    /// pick-addr dependencies (read, event).
    pub pick_addr: Vec<ZEdge>,
    /// pick-data dependencies (read, write).
    pub pick_data: Vec<ZEdge>,
    /// pick-ctrl dependencies (read, event).
    pub pick_ctrl: Vec<ZEdge>,
    /// PGAS remote operations per (step, candidate).
    pub remote: Vec<ZRemote>,
    /// W.
    pub width: u32,
}

/// Taint of a register: read event id → condition.
type Taint = BTreeMap<usize, ZBool>;

/// The symbolic state of one candidate instruction while it is
/// interpreted.
struct Local {
    sel: ZBool,
    regs: Vec<ZBv>,
    taint: Vec<Taint>,
    /// Per register: the reads reaching it through a select's condition.
    pick: Vec<Taint>,
    /// Reservation: (valid, address, reserving read id as Int).
    resv: Option<(ZBool, ZBv, Int<'static>)>,
    /// Reads of this instruction so far (for rmw of atomic instructions).
    reads: Vec<usize>,
    /// Writes of this instruction so far (pairs of writes: Arm `STILP`).
    writes: Vec<usize>,
    atomic: bool,
    /// Ordering annotations of the enclosing `Command::Ann` (bits).
    ann: u16,
    ord: u32,
}

/// What a candidate contributes to an event slot.
#[derive(Default)]
struct Slot {
    exec: Vec<ZBool>,
    read: Vec<ZBool>,
    write: Vec<ZBool>,
    fences: BTreeMap<&'static str, Vec<ZBool>>,
    atomic: Vec<ZBool>,
}

struct Builder<'p> {
    ctx: &'static Context,
    prog: &'p Program,
    w: u32,
    deps: bool,
    out: ZUnrolled,
    /// Slots of the current step: (event id, contributions).
    slots: Vec<(usize, Slot)>,
    /// The PGAS pop events of the current step (popa, popb), if any.
    pslots: Vec<(usize, Slot)>,
    ctrl_now: Taint,
    /// The reads reaching an executed assume through a select's condition.
    pick_ctrl_now: Taint,
    thread: ThreadId,
    step: u32,
    /// Read events of the current thread so far.
    thread_reads: Vec<usize>,
    /// Store-conditionals of the current thread whose flag depends on
    /// them ([`Ann::SCDEP`]): taint sources besides the reads.
    thread_scs: Vec<usize>,
    /// The current thread's `Thread::ctrl_reg`: when set, an assume adds
    /// its condition's taints to this register's and the ctrl prefix is
    /// its taint (herd's C `if`).
    ctrl_reg: Option<RegId>,
}

impl Builder<'_> {
    fn c(&self, v: i64) -> ZBv {
        BV::from_i64(self.ctx, v, self.w)
    }

    fn tt(&self) -> ZBool {
        Bool::from_bool(self.ctx, true)
    }

    /// An expression's value (the W-bit semantics of `BinOp::apply`).
    fn eval(&self, e: &LExpr, regs: &[ZBv]) -> ZBv {
        match e {
            Expr::Const(c) => self.c(*c),
            Expr::Var(r) => regs[r.0 as usize].clone(),
            Expr::Un(op, a) => super::unop(self.ctx, *op, &self.eval(a, regs)),
            Expr::Bin(op, a, b) => {
                super::binop(self.ctx, *op, &self.eval(a, regs), &self.eval(b, regs))
            }
            Expr::Rank | Expr::Nodes => self.c(0),
        }
    }

    fn taint_of(&self, e: &LExpr, taint: &[Taint]) -> Taint {
        let mut regs = BTreeSet::new();
        e.for_each_var(&mut |r| {
            regs.insert(r);
        });
        let mut acc: BTreeMap<usize, Vec<ZBool>> = BTreeMap::new();
        for r in regs {
            for (src, c) in &taint[r.0 as usize] {
                acc.entry(*src).or_default().push(c.clone());
            }
        }
        acc.into_iter()
            .map(|(s, v)| (s, or(self.ctx, &v)))
            .collect()
    }

    /// `into ∪= from` (conditions of a common read or-ed).
    fn merge_into(&self, into: &mut Taint, from: Taint) {
        for (src, c) in from {
            let nv = match into.remove(&src) {
                Some(p) => Bool::or(self.ctx, &[&p, &c]),
                None => c,
            };
            into.insert(src, nv);
        }
    }

    /// Appends a fresh event of the current step (no kind yet: the
    /// step's candidates add theirs) and returns its id.
    fn new_event(&mut self, ord: u32, pop: bool) -> usize {
        let id = self.out.events.len();
        let (ctx, w) = (self.ctx, self.w);
        let ff = Bool::from_bool(ctx, false);
        self.out.events.push(ZEvent {
            id,
            thread: self.thread,
            step: self.step,
            ord,
            exec: ff.clone(),
            read: ff.clone(),
            write: ff.clone(),
            fences: Vec::new(),
            atomic: ff,
            lock: Bool::fresh_const(ctx, "lock"),
            addr: BV::fresh_const(ctx, "addr", w),
            value: BV::fresh_const(ctx, "val", w),
            may_read: false,
            may_write: false,
            pop,
        });
        id
    }

    /// The event of the current step at `ord`, created on first use.
    fn slot(&mut self, ord: u32) -> usize {
        while self.slots.len() <= ord as usize {
            let id = self.new_event(self.slots.len() as u32, false);
            self.slots.push((id, Slot::default()));
        }
        self.slots[ord as usize].0
    }

    /// The pop event `k` (0 = popa, 1 = popb) of the current step, created
    /// on first use with `ord`.
    fn pop_slot(&mut self, k: usize, ord: u32) -> usize {
        while self.pslots.len() <= k {
            let id = self.new_event(ord, true);
            self.pslots.push((id, Slot::default()));
        }
        self.pslots[k].0
    }

    /// The PGAS remote operation of candidate `l` copying cell `src` to
    /// cell `dst` (global addresses) through queue `queue` of the remote
    /// rank `rank`: the rank must lie in 1..N (else the process blocks),
    /// then issue, popa, popb.
    fn remote_op(
        &mut self,
        l: &mut Local,
        rank: &LExpr,
        queue: &LExpr,
        src: &LExpr,
        dst: &LExpr,
    ) -> Result<(), Error> {
        if let Some(n) = self.prog.nodes {
            let lo = Expr::bin(BinOp::Le, Expr::Const(1), rank.clone());
            let hi = Expr::bin(BinOp::Le, rank.clone(), Expr::Const(n as i64));
            self.exec(&Command::Assume(Expr::bin(BinOp::And, lo, hi)), l)?;
        }
        // Issue: no memory access, value = the queue.
        let qv = self.eval(queue, &l.regs);
        let issue = self.slot(l.ord);
        l.ord += 1;
        let ev = &self.out.events[issue];
        let fix = Bool::and(
            self.ctx,
            &[&ev.lock.not(), &ev.addr._eq(&self.c(0)), &ev.value._eq(&qv)],
        );
        self.out.constraints.push(l.sel.implies(&fix));
        let slot = &mut self.slots[l.ord as usize - 1].1;
        slot.exec.push(l.sel.clone());
        slot.fences
            .entry(BaseSet::Issue.name())
            .or_default()
            .push(l.sel.clone());
        // popa reads the source, popb writes popa's value to the destination.
        let mut pops = [0usize; 2];
        for (k, (a, set)) in [(src, BaseSet::PopA.name()), (dst, BaseSet::PopB.name())]
            .into_iter()
            .enumerate()
        {
            let e = self.pop_slot(k, l.ord);
            l.ord += 1;
            pops[k] = e;
            let av = self.eval(a, &l.regs);
            let ev = &self.out.events[e];
            let mut fix = vec![ev.lock.not(), ev.addr._eq(&av)];
            if k == 1 {
                fix.push(ev.value._eq(&self.out.events[pops[0]].value));
            }
            let fix = and(self.ctx, &fix);
            self.out.constraints.push(l.sel.implies(&fix));
            if self.deps {
                for (s, c) in self.taint_of(a, &l.taint) {
                    let cond = Bool::and(self.ctx, &[&l.sel, &c]);
                    self.out.addr.push((s, e, cond));
                }
                for (s, c) in self.taint_of(a, &l.pick) {
                    let cond = Bool::and(self.ctx, &[&l.sel, &c]);
                    self.out.pick_addr.push((s, e, cond));
                }
            }
            let slot = &mut self.pslots[k].1;
            slot.exec.push(l.sel.clone());
            if k == 0 {
                slot.read.push(l.sel.clone());
            } else {
                slot.write.push(l.sel.clone());
            }
            slot.fences.entry(set).or_default().push(l.sel.clone());
            let ev = &mut self.out.events[e];
            ev.may_read |= k == 0;
            ev.may_write |= k == 1;
        }
        self.out.remote.push(ZRemote {
            thread: self.thread,
            step: self.step,
            sel: l.sel.clone(),
            issue,
            popa: pops[0],
            popb: pops[1],
        });
        Ok(())
    }

    /// Records an access of the candidate `l` at its next ord: fixes the
    /// event's lock flag and address under `l.sel`; returns the event id.
    fn access(&mut self, l: &mut Local, addr: Option<&LExpr>) -> usize {
        let e = self.slot(l.ord);
        l.ord += 1;
        let (is_lock, a) = match addr {
            Some(x) => (false, self.eval(x, &l.regs)),
            None => (true, self.c(0)),
        };
        let ev = &self.out.events[e];
        let fix = Bool::and(
            self.ctx,
            &[
                &ev.lock._eq(&Bool::from_bool(self.ctx, is_lock)),
                &ev.addr._eq(&a),
            ],
        );
        self.out.constraints.push(l.sel.implies(&fix));
        if self.deps {
            if let Some(x) = addr {
                for (src, c) in self.taint_of(x, &l.taint) {
                    let cond = Bool::and(self.ctx, &[&l.sel, &c]);
                    self.out.addr.push((src, e, cond));
                }
                for (src, c) in self.taint_of(x, &l.pick) {
                    let cond = Bool::and(self.ctx, &[&l.sel, &c]);
                    self.out.pick_addr.push((src, e, cond));
                }
            }
        }
        if l.atomic {
            self.slots[l.ord as usize - 1].1.atomic.push(l.sel.clone());
        }
        e
    }

    fn load(
        &mut self,
        l: &mut Local,
        reg: Option<crate::program::RegId>,
        addr: Option<&LExpr>,
    ) -> usize {
        let e = self.access(l, addr);
        let slot = &mut self.slots[l.ord as usize - 1].1;
        slot.exec.push(l.sel.clone());
        slot.read.push(l.sel.clone());
        self.out.events[e].may_read = true;
        let v = self.out.events[e].value.clone();
        if let Some(r) = reg {
            l.regs[r.0 as usize] = v;
            if self.deps {
                let mut t = Taint::new();
                t.insert(e, self.tt());
                l.taint[r.0 as usize] = t;
                l.pick[r.0 as usize] = Taint::new();
            }
        }
        let sel = l.sel.clone();
        self.tag_access(l, &sel, false);
        // Two reads of an atomic block without a write (Arm `LDIAPP`): in
        // rmw, in order (as the varisat unroller's `atomic_pairs`).
        if l.atomic && l.writes.is_empty() {
            for &r in &l.reads {
                self.out.rmw.push((r, e, sel.clone()));
            }
        }
        l.reads.push(e);
        if !self.thread_reads.contains(&e) {
            self.thread_reads.push(e);
        }
        e
    }

    /// A write of `value` (already evaluated) under condition `ok` (the
    /// success of a store-conditional, else true); `vexpr`: the value's
    /// expression, whose reads it depends on, and whether those are pick
    /// dependencies only (a `nodata` store-conditional).
    fn store(
        &mut self,
        l: &mut Local,
        addr: Option<&LExpr>,
        value: ZBv,
        vexpr: Option<(&LExpr, bool)>,
        ok: Option<ZBool>,
    ) -> usize {
        let e = self.access(l, addr);
        let cond = match &ok {
            Some(s) => Bool::and(self.ctx, &[&l.sel, s]),
            None => l.sel.clone(),
        };
        let slot = &mut self.slots[l.ord as usize - 1].1;
        slot.exec.push(cond.clone());
        slot.write.push(cond.clone());
        self.out.events[e].may_write = true;
        let fix = self.out.events[e].value._eq(&value);
        self.out.constraints.push(l.sel.implies(&fix));
        if self.deps {
            if let Some((x, pick_only)) = vexpr {
                for (src, c) in self.taint_of(x, &l.taint) {
                    let cc = Bool::and(self.ctx, &[&cond, &c]);
                    if pick_only {
                        self.out.pick_data.push((src, e, cc));
                    } else {
                        self.out.data.push((src, e, cc));
                    }
                }
                for (src, c) in self.taint_of(x, &l.pick) {
                    let cc = Bool::and(self.ctx, &[&cond, &c]);
                    self.out.pick_data.push((src, e, cc));
                }
            }
        }
        if l.atomic {
            // After the block's reads, or its earlier writes when it has
            // none (Arm `STILP`).
            let from = if l.reads.is_empty() {
                &l.writes
            } else {
                &l.reads
            };
            for &r in from {
                self.out.rmw.push((r, e, cond.clone()));
            }
        }
        l.writes.push(e);
        self.tag_access(l, &cond, ok.is_some());
        e
    }

    /// Tags the event of `l`'s last access with its annotation sets (and
    /// `X` when `excl`) under `cond`.
    fn tag_access(&mut self, l: &Local, cond: &ZBool, excl: bool) {
        let slot = &mut self.slots[l.ord as usize - 1].1;
        for set in BaseSet::ANNOTATED {
            if set.ann_bit().is_some_and(|b| l.ann & b != 0) {
                slot.fences
                    .entry(set.name())
                    .or_default()
                    .push(cond.clone());
            }
        }
        if excl {
            slot.fences
                .entry(BaseSet::X.name())
                .or_default()
                .push(cond.clone());
        }
    }

    fn fence_event(&mut self, l: &mut Local, sets: &[&'static str]) {
        let e = self.access_nomem(l);
        let slot = &mut self.slots[l.ord as usize - 1].1;
        slot.exec.push(l.sel.clone());
        for s in sets {
            slot.fences.entry(s).or_default().push(l.sel.clone());
        }
        let _ = e;
    }

    /// An event without memory access (fence): address 0, value 0.
    fn access_nomem(&mut self, l: &mut Local) -> usize {
        let e = self.slot(l.ord);
        l.ord += 1;
        let ev = &self.out.events[e];
        let fix = Bool::and(
            self.ctx,
            &[
                &ev.lock.not(),
                &ev.addr._eq(&self.c(0)),
                &ev.value._eq(&self.c(0)),
            ],
        );
        self.out.constraints.push(l.sel.implies(&fix));
        if l.atomic {
            self.slots[l.ord as usize - 1].1.atomic.push(l.sel.clone());
        }
        e
    }

    /// `assume(e)`: the candidate's selector implies `e ≠ 0`; with
    /// dependencies, `e`'s reads become control (and pick-control)
    /// sources of the later events.
    fn assume(&mut self, e: &LExpr, l: &mut Local) {
        let v = self.eval(e, &l.regs);
        let nz = v._eq(&self.c(0)).not();
        self.out.constraints.push(l.sel.implies(&nz));
        if let (true, Some(cr)) = (self.deps, self.ctrl_reg) {
            let (t, p) = (self.taint_of(e, &l.taint), self.taint_of(e, &l.pick));
            let (mut lt, mut lp) = (
                l.taint[cr.0 as usize].clone(),
                l.pick[cr.0 as usize].clone(),
            );
            self.merge_into(&mut lt, t);
            self.merge_into(&mut lp, p);
            l.taint[cr.0 as usize] = lt;
            l.pick[cr.0 as usize] = lp;
        } else if self.deps {
            for (src, c) in self.taint_of(e, &l.taint) {
                let cc = Bool::and(self.ctx, &[&l.sel, &c]);
                let prev = self.ctrl_now.remove(&src);
                let nv = match prev {
                    Some(p) => Bool::or(self.ctx, &[&p, &cc]),
                    None => cc,
                };
                self.ctrl_now.insert(src, nv);
            }
            let guarded: Taint = self
                .taint_of(e, &l.pick)
                .into_iter()
                .map(|(src, c)| (src, Bool::and(self.ctx, &[&l.sel, &c])))
                .collect();
            let mut pc = std::mem::take(&mut self.pick_ctrl_now);
            self.merge_into(&mut pc, guarded);
            self.pick_ctrl_now = pc;
        }
    }

    /// `reg := cond ? then : else_`: with dependencies, the selected
    /// operand's taints as they are, every read of the condition as a pick
    /// path.
    fn select(&mut self, reg: RegId, [cond, then, else_]: [&LExpr; 3], l: &mut Local) {
        let c = self.eval(cond, &l.regs);
        let nz = c._eq(&self.c(0)).not();
        let a = self.eval(then, &l.regs);
        let b = self.eval(else_, &l.regs);
        let v = nz.ite(&a, &b);
        if self.deps {
            // The selected operand's taints as they are; every
            // read of the condition as a pick path.
            let not_nz = nz.not();
            let mut t = Taint::new();
            let mut p = self.taint_of(cond, &l.taint);
            let cp = self.taint_of(cond, &l.pick);
            self.merge_into(&mut p, cp);
            for (x, g) in [(then, &nz), (else_, &not_nz)] {
                let guard = |m: Taint| -> Taint {
                    m.into_iter()
                        .map(|(src, c)| (src, Bool::and(self.ctx, &[g, &c])))
                        .collect()
                };
                let xt = guard(self.taint_of(x, &l.taint));
                let xp = guard(self.taint_of(x, &l.pick));
                self.merge_into(&mut t, xt);
                self.merge_into(&mut p, xp);
            }
            l.taint[reg.0 as usize] = t;
            l.pick[reg.0 as usize] = p;
        }
        l.regs[reg.0 as usize] = v;
    }

    /// `stwcx.`/`sc`: a store that succeeds (fresh `stcx`) only when the
    /// reservation is valid and on the same address; a success pairs the
    /// store with the reserving reads (rmw), clears the reservation and
    /// sets `flag` (1/0), which under `scdep` depends on the write.
    fn store_cond(&mut self, addr: &LExpr, value: &LExpr, flag: RegId, l: &mut Local) {
        let succ = Bool::fresh_const(self.ctx, "stcx");
        let v = self.eval(value, &l.regs);
        // A `nodata` store-conditional (Arm `STXR`) reads its value
        // register on no data port: its dependencies are pick ones.
        let pick_only = l.ann & Ann::NODATA != 0;
        let e = self.store(
            l,
            Some(addr),
            v,
            Some((value, pick_only)),
            Some(succ.clone()),
        );
        let ev_addr = self.out.events[e].addr.clone();
        let ok = match &l.resv {
            Some((valid, ra, _)) => Bool::and(self.ctx, &[valid, &ra._eq(&ev_addr)]),
            None => Bool::from_bool(self.ctx, false),
        };
        self.out.constraints.push(l.sel.implies(&succ.implies(&ok)));
        if let Some((_, _, rid)) = &l.resv {
            for &r in &self.thread_reads {
                if r == e {
                    continue;
                }
                let c = Bool::and(
                    self.ctx,
                    &[&l.sel, &succ, &rid._eq(&Int::from_i64(self.ctx, r as i64))],
                );
                self.out.rmw.push((r, e, c));
            }
        }
        if let Some((valid, ra, rid)) = l.resv.take() {
            let _ = valid;
            l.resv = Some((Bool::from_bool(self.ctx, false), ra, rid));
        }
        l.regs[flag.0 as usize] = succ.ite(&self.c(1), &self.c(0));
        if self.deps {
            // Under `scdep` the flag depends on the write when it
            // is performed (RVWMO syntactic dependencies).
            let mut t = Taint::new();
            if l.ann & Ann::SCDEP != 0 {
                t.insert(e, succ.clone());
                if !self.thread_scs.contains(&e) {
                    self.thread_scs.push(e);
                }
            }
            l.taint[flag.0 as usize] = t;
            l.pick[flag.0 as usize] = Taint::new();
        }
    }

    /// Interprets one command for the candidate `l`.
    fn exec(&mut self, cmd: &Command, l: &mut Local) -> Result<(), Error> {
        match cmd {
            Command::Nop => {}
            Command::Assign { reg, value } => {
                let v = self.eval(value, &l.regs);
                if self.deps {
                    let t = self.taint_of(value, &l.taint);
                    let mut p = self.taint_of(value, &l.pick);
                    if l.ann & Ann::PICK != 0 {
                        // Every path to `reg` becomes a pick path.
                        self.merge_into(&mut p, t);
                        l.taint[reg.0 as usize] = Taint::new();
                    } else {
                        l.taint[reg.0 as usize] = t;
                    }
                    l.pick[reg.0 as usize] = p;
                }
                l.regs[reg.0 as usize] = v;
            }
            Command::Assume(e) => self.assume(e, l),
            Command::Load { reg, addr } => {
                self.load(l, Some(*reg), Some(addr));
            }
            Command::Ann(a, c) => {
                let saved = l.ann;
                l.ann |= a.0;
                let r = self.exec(c, l);
                l.ann = saved;
                r?;
            }
            // Refused by `unroll` before any thread is unrolled.
            Command::Tagged(_, c) => self.exec(c, l)?,
            Command::Guard(e) => {
                let v = self.eval(e, &l.regs);
                let nz = v._eq(&self.c(0)).not();
                self.out.constraints.push(l.sel.implies(&nz));
            }
            Command::Select {
                reg,
                cond,
                then,
                else_,
            } => self.select(*reg, [cond, then, else_], l),
            Command::Store { addr, value } => {
                let v = self.eval(value, &l.regs);
                self.store(l, Some(addr), v, Some((value, false)), None);
            }
            Command::Fence(f) => {
                let mut sets = vec![BaseSet::F.name()];
                sets.extend(fence_sets(*f));
                self.fence_event(l, &sets);
            }
            Command::Lock => {
                let saved = l.atomic;
                l.atomic = true;
                let e = self.load(l, None, None);
                let z = self.out.events[e].value._eq(&self.c(0));
                self.out.constraints.push(l.sel.implies(&z));
                let one = self.c(1);
                self.store(l, None, one, None, None);
                l.atomic = saved;
            }
            Command::Unlock => {
                let saved = l.atomic;
                l.atomic = true;
                let zero = self.c(0);
                self.store(l, None, zero, None, None);
                l.atomic = saved;
            }
            Command::Atomic(cs) => {
                let saved = l.atomic;
                l.atomic = true;
                for c in cs {
                    self.exec(c, l)?;
                }
                l.atomic = saved;
            }
            Command::LoadReserve { reg, addr } => {
                let e = self.load(l, Some(*reg), Some(addr));
                let sel = l.sel.clone();
                self.tag_access(l, &sel, true);
                let a = self.out.events[e].addr.clone();
                l.resv = Some((self.tt(), a, Int::from_i64(self.ctx, e as i64)));
            }
            Command::StoreCond { addr, value, flag } => self.store_cond(addr, value, *flag, l),
            Command::Pgas(PgasCmd::Barrier) => self.fence_event(l, &[BaseSet::Bar.name()]),
            Command::Pgas(PgasCmd::Read {
                local,
                rank,
                remote,
                queue,
            }) => self.remote_op(l, rank, queue, remote, local)?,
            Command::Pgas(PgasCmd::Write {
                local,
                rank,
                remote,
                queue,
            }) => self.remote_op(l, rank, queue, local, remote)?,
        }
        Ok(())
    }
}

/// Unrolls `p` to `bound` steps per thread with values of `width` bits.
/// `deps`: compute addr/data/ctrl (the model uses them).
///
/// PGAS programs (already lowered by [`crate::program::pgas`]) are unrolled with
/// their remote operations ([`ZRemote`]) and barriers (set BAR).
///
/// Errors ([`Error::Unsupported`]): an atomic instruction whose read and
/// write are one event per byte (an LSE atomic at a byte-addressed
/// location, herd's mixed-size variant), whose per-byte `si` and rmw
/// pairs only the varisat unroller builds; a tagged access or fence
/// (herd's tags, whose sets only the varisat unroller builds).
pub fn unroll(
    ctx: &'static Context,
    p: &Program,
    bound: u32,
    width: u32,
    deps: bool,
) -> Result<ZUnrolled, Error> {
    let bytes = |c: &Command| matches!(c, Command::Ann(a, _) if a.has(crate::program::Ann::SI));
    let byte_atomic = p
        .threads
        .iter()
        .flat_map(|t| &t.instrs)
        .find(|i| matches!(&i.cmd, Command::Atomic(cs) if cs.iter().any(bytes)));
    if let Some(i) = byte_atomic {
        let msg = "unsupported atomic access to a byte-addressed location in the z3 backend (mixed-size: atomic byte accesses); the default backend answers it";
        return Err(match &p.source {
            Some(src) => src.error(i.span, msg),
            None => Error::Unsupported(msg.to_string()),
        });
    }
    let tagged = p.threads.iter().flat_map(|t| &t.instrs).find(|i| {
        let mut any = false;
        i.cmd.for_each(&mut |c| {
            any |= matches!(
                c,
                Command::Tagged(..) | Command::Fence(crate::program::Fence::Located(_))
            )
        });
        any
    });
    if let Some(i) = tagged {
        let msg = "unsupported tagged access or fence in the z3 backend (herd's tags of a C litmus test); the default backend answers it";
        return Err(match &p.source {
            Some(src) => src.error(i.span, msg),
            None => Error::Unsupported(msg.to_string()),
        });
    }
    let mut b = Builder::new(ctx, p, width, deps);
    for (ti, th) in b.prog.threads.iter().enumerate() {
        b.thread = ThreadId(ti as u32);
        b.thread_reads.clear();
        b.thread_scs.clear();
        b.unroll_thread(th, bound)?;
    }
    Ok(b.out)
}

impl<'p> Builder<'p> {
    /// A builder for `p` with no event yet.
    fn new(ctx: &'static Context, p: &'p Program, width: u32, deps: bool) -> Builder<'p> {
        Builder {
            ctx,
            prog: p,
            w: width,
            deps,
            out: ZUnrolled {
                events: Vec::new(),
                threads: Vec::new(),
                constraints: Vec::new(),
                rmw: Vec::new(),
                addr: Vec::new(),
                data: Vec::new(),
                ctrl: Vec::new(),
                pick_addr: Vec::new(),
                pick_data: Vec::new(),
                pick_ctrl: Vec::new(),
                remote: Vec::new(),
                width,
            },
            slots: Vec::new(),
            pslots: Vec::new(),
            ctrl_now: Taint::new(),
            pick_ctrl_now: Taint::new(),
            thread: ThreadId(0),
            step: 0,
            thread_reads: Vec::new(),
            thread_scs: Vec::new(),
            ctrl_reg: None,
        }
    }

    /// Unrolls thread `th` (the current [`Builder::thread`]) to `bound`
    /// steps: per step, the candidate instructions' selector, the frame
    /// when stopped, each candidate interpreted ([`Builder::exec`]), the
    /// taint after the step and the step's events.
    fn unroll_thread(&mut self, th: &crate::program::Thread, bound: u32) -> Result<(), Error> {
        let b = self;
        b.ctrl_reg = th.ctrl_reg;
        let (ctx, width, deps) = (b.ctx, b.w, b.deps);
        let out = th.outgoing();
        let has_resv = th.instrs.iter().any(|i| is_reservation(&i.cmd));
        let int = |v: i64| Int::from_i64(ctx, v);
        let mut pc = int(th.initial.0 as i64);
        let mut regs: Vec<ZBv> = th.reg_init.iter().map(|v| b.c(*v)).collect();
        let mut taint: Vec<Taint> = vec![Taint::new(); th.regs.len()];
        let mut ctrl: Taint = Taint::new();
        let mut pick: Vec<Taint> = vec![Taint::new(); th.regs.len()];
        let mut pick_ctrl: Taint = Taint::new();
        let mut resv = has_resv.then(|| (Bool::from_bool(ctx, false), b.c(0), int(-1)));
        let mut reach: BTreeSet<StateId> = BTreeSet::from([th.initial]);
        let mut ins_vars = Vec::new();
        let mut cands_all = Vec::new();
        let mut prev_ins: Option<Int<'static>> = None;
        for step in 0..bound {
            let cands: Vec<usize> = reach
                .iter()
                .flat_map(|q| out[q.0 as usize].iter().copied())
                .collect();
            if cands.is_empty() {
                break;
            }
            b.step = step;
            b.slots.clear();
            b.pslots.clear();
            b.ctrl_now = ctrl.clone();
            b.pick_ctrl_now = pick_ctrl.clone();
            let ins = Int::fresh_const(ctx, "ins");
            let stopped = ins._eq(&int(-1));
            let mut dom = vec![stopped.clone()];
            dom.extend(cands.iter().map(|&j| ins._eq(&int(j as i64))));
            b.out.constraints.push(or(ctx, &dom));
            if let Some(pi) = &prev_ins {
                b.out.constraints.push(pi._eq(&int(-1)).implies(&stopped));
            }
            let next_pc = Int::fresh_const(ctx, "pc");
            let next_regs: Vec<ZBv> = (0..regs.len())
                .map(|_| BV::fresh_const(ctx, "reg", width))
                .collect();
            let next_resv = resv.as_ref().map(|_| {
                (
                    Bool::fresh_const(ctx, "resv"),
                    BV::fresh_const(ctx, "resv_addr", width),
                    Int::fresh_const(ctx, "resv_read"),
                )
            });
            // Frame when stopped.
            let mut frame = vec![next_pc._eq(&pc)];
            for (a, r) in next_regs.iter().zip(&regs) {
                frame.push(a._eq(r));
            }
            if let (Some(n), Some(o)) = (&next_resv, &resv) {
                frame.push(n.0._eq(&o.0));
                frame.push(n.1._eq(&o.1));
                frame.push(n.2._eq(&o.2));
            }
            let fr = and(ctx, &frame);
            b.out.constraints.push(stopped.implies(&fr));
            let mut locals = Vec::new();
            for &j in &cands {
                let instr = &th.instrs[j];
                let sel = ins._eq(&int(j as i64));
                b.out.constraints.push(sel.implies(&Bool::and(
                    ctx,
                    &[
                        &pc._eq(&int(instr.from.0 as i64)),
                        &next_pc._eq(&int(instr.to.0 as i64)),
                    ],
                )));
                let mut l = Local {
                    sel: sel.clone(),
                    regs: regs.clone(),
                    taint: taint.clone(),
                    pick: pick.clone(),
                    resv: resv.clone(),
                    reads: Vec::new(),
                    writes: Vec::new(),
                    atomic: false,
                    ann: 0,
                    ord: 0,
                };
                b.exec(&instr.cmd, &mut l)?;
                let mut eqs: Vec<ZBool> = next_regs
                    .iter()
                    .zip(&l.regs)
                    .map(|(a, v)| a._eq(v))
                    .collect();
                if let (Some(n), Some(o)) = (&next_resv, &l.resv) {
                    eqs.push(n.0._eq(&o.0));
                    eqs.push(n.1._eq(&o.1));
                    eqs.push(n.2._eq(&o.2));
                }
                let e = and(ctx, &eqs);
                b.out.constraints.push(sel.implies(&e));
                locals.push(l);
            }
            let fresh = |name: &str| -> Vec<Taint> {
                if !deps {
                    return vec![Taint::new(); regs.len()];
                }
                (0..regs.len())
                    .map(|_| {
                        b.thread_reads
                            .iter()
                            .chain(&b.thread_scs)
                            .map(|&r| (r, Bool::fresh_const(ctx, name)))
                            .collect()
                    })
                    .collect()
            };
            let next_taint = fresh("taint");
            let next_pick = fresh("pick");
            if deps {
                b.step_taint(&stopped, &locals, &next_taint, &taint, false);
                b.step_taint(&stopped, &locals, &next_pick, &pick, true);
            }
            match th.ctrl_reg {
                Some(cr) => b.step_events(&taint[cr.0 as usize], &pick[cr.0 as usize]),
                None => b.step_events(&ctrl, &pick_ctrl),
            }
            ctrl = std::mem::take(&mut b.ctrl_now);
            pick_ctrl = std::mem::take(&mut b.pick_ctrl_now);
            ins_vars.push(ins.clone());
            cands_all.push(cands.clone());
            prev_ins = Some(ins);
            pc = next_pc;
            regs = next_regs;
            taint = next_taint;
            pick = next_pick;
            resv = next_resv;
            reach = cands.iter().map(|&j| th.instrs[j].to).collect();
        }
        let truncated =
            ins_vars.len() == bound as usize && reach.iter().any(|q| !out[q.0 as usize].is_empty());
        b.out.threads.push(ZThread {
            ins: ins_vars,
            cands: cands_all,
            pc_end: pc,
            regs_end: regs,
            truncated,
        });
        Ok(())
    }

    /// The register taints (`pick`: the pick taints) after a step: per
    /// register and source in `next`, the executed candidate's local taint
    /// (`locals`), or the one `before` when the thread has `stopped`.
    fn step_taint(
        &mut self,
        stopped: &ZBool,
        locals: &[Local],
        next: &[Taint],
        before: &[Taint],
        pick: bool,
    ) {
        let ctx = self.ctx;
        for (r, nt) in next.iter().enumerate() {
            for (src, v) in nt {
                let old = before[r].get(src).cloned();
                let mut cases = vec![old.map_or_else(
                    || Bool::from_bool(ctx, false),
                    |o| Bool::and(ctx, &[stopped, &o]),
                )];
                for l in locals {
                    let lt = if pick { &l.pick } else { &l.taint };
                    if let Some(c) = lt[r].get(src) {
                        cases.push(Bool::and(ctx, &[&l.sel, c]));
                    }
                }
                self.out.constraints.push(v._eq(&or(ctx, &cases)));
            }
        }
    }

    /// Closes the step's event slots (ordinary and PGAS pops): each
    /// event's exec, read, write, atomic and fence conditions are the
    /// disjunctions of the candidates' contributions; with dependencies,
    /// the control (and pick-control) sources before the step reach it.
    fn step_events(&mut self, ctrl_step: &Taint, pick_ctrl_step: &Taint) {
        let (ctx, deps) = (self.ctx, self.deps);
        let b = self;
        let mut step_slots = std::mem::take(&mut b.slots);
        step_slots.append(&mut b.pslots);
        for (id, s) in step_slots {
            let ev = &mut b.out.events[id];
            ev.exec = or(ctx, &s.exec);
            ev.read = or(ctx, &s.read);
            ev.write = or(ctx, &s.write);
            ev.atomic = or(ctx, &s.atomic);
            ev.fences = s
                .fences
                .into_iter()
                .map(|(n, v)| (n, or(ctx, &v)))
                .collect();
            if deps {
                for (src, c) in ctrl_step {
                    let cc = Bool::and(ctx, &[c, &b.out.events[id].exec]);
                    b.out.ctrl.push((*src, id, cc));
                }
                for (src, c) in pick_ctrl_step {
                    let cc = Bool::and(ctx, &[c, &b.out.events[id].exec]);
                    b.out.pick_ctrl.push((*src, id, cc));
                }
            }
        }
    }
}

/// True for a load-reserve or store-conditional, also under ordering
/// annotations (`lr.w.aq`, and every RISC-V `sc.*`, which carries the
/// `scdep` annotation, are `Command::Ann` around one): the thread then
/// tracks a reservation.
fn is_reservation(cmd: &Command) -> bool {
    match cmd {
        Command::LoadReserve { .. } | Command::StoreCond { .. } => true,
        Command::Ann(_, c) | Command::Tagged(_, c) => is_reservation(c),
        _ => false,
    }
}
