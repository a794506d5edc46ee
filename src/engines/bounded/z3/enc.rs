//! The z3 encoding of one program under one model and bound: the
//! unrolling ([`super::unroll`]), the communication relations and the
//! model's axioms ([`super::cat`]), goals over the final state, and the
//! hb-cycle constraint of robustness.
//!
//! * `rf`: per read an integer source `src[r]`: −1 reads the initial
//!   value (a function of the address; the lock cell starts at 0), else
//!   the id of a write to the same location with the same value.
//! * `co`: per write an integer clock; `co(a, b)` iff both are writes to
//!   one location and `clk[a] < clk[b]`; writes to one location get
//!   distinct clocks, so `co` is a strict total order per location.
//! * `fr(r, w)`: `r` reads the initial value of `w`'s location, or from a
//!   write co-before `w` (herd: `fr = rf⁻¹; co` with implicit initial
//!   writes).
//!
//! Built-in restriction shared with the varisat engine (every shipped
//! model implies it, SC per location): a read never reads from a po-later
//! write of its own thread, and `co` agrees with `po` on one thread's
//! writes.

use super::unroll::{unroll, ZEdge, ZUnrolled};
use super::{and, or, ZBase, ZBool, ZBv, ZRel, ZSet};
use crate::cat::base::{BaseRel, BaseSet};
use crate::cat::Model;
use crate::collections::HashMap;
use crate::diag::Error;
use crate::program::{Command, Expr, GExpr, GVar, GoalAt, Program};
use z3::ast::{Ast, Bool, Int, BV};
use z3::Context;

/// The relations whose union is happens-before (thesis 003 §2.8).
const HB: [BaseRel; 4] = [BaseRel::Po, BaseRel::Rf, BaseRel::Co, BaseRel::Fr];

/// The encoding of one program under one model and bound.
pub struct ZEnc<'p> {
    /// The context.
    pub ctx: &'static Context,
    /// The program.
    pub prog: &'p Program,
    /// The unrolling.
    pub un: ZUnrolled,
    /// Per event: the rf source selector (reads only).
    pub src: Vec<Option<Int<'static>>>,
    /// Per read: the writes it may read from.
    pub srcs: Vec<Vec<usize>>,
    /// Per event: the co clock (writes only).
    pub clk: Vec<Option<Int<'static>>>,
    /// Constraints to assert (unrolling, rf/co, model).
    pub constraints: Vec<ZBool>,
    /// The PGAS part (barrier rounds) of an SPMD program.
    pub pgas: Option<super::pgas::ZPgas>,
    cache: HashMap<BaseRel, ZRel>,
}

impl<'p> ZEnc<'p> {
    /// Unrolls and encodes `prog` under `model`.
    ///
    /// Errors: models this backend does not encode (see
    /// [`super::cat::encode_axioms`]).
    pub fn new(
        ctx: &'static Context,
        prog: &'p Program,
        model: &Model,
        bound: u32,
        width: u32,
    ) -> Result<ZEnc<'p>, Error> {
        let deps = BaseRel::DEPENDENCIES.into_iter().any(|r| model.uses(r));
        let mut un = unroll(ctx, prog, bound, width, deps)?;
        let n = un.events.len();
        let constraints = std::mem::take(&mut un.constraints);
        let mut enc = ZEnc {
            ctx,
            prog,
            un,
            src: vec![None; n],
            srcs: vec![Vec::new(); n],
            clk: vec![None; n],
            constraints,
            pgas: None,
            cache: HashMap::default(),
        };
        if prog.nodes.is_some() {
            let (pg, cs) = super::pgas::ZPgas::build(ctx, &enc.un);
            enc.pgas = Some(pg);
            enc.constraints.extend(cs);
        }
        enc.encode_rf_co();
        if prog.atomic_step_thread().is_some() {
            let open = enc.open_sections();
            enc.constraints.extend(open);
        }
        let axioms = super::cat::encode_axioms(model, &mut enc)?;
        enc.constraints.extend(axioms);
        Ok(enc)
    }

    /// Same thread and `a` before `b` in program order (by step, then
    /// position within the instruction). PGAS pops are in no po pair
    /// (thesis §8.2).
    pub fn po_before(&self, a: usize, b: usize) -> bool {
        let (x, y) = (&self.un.events[a], &self.un.events[b]);
        x.thread == y.thread && !x.pop && !y.pop && (x.step, x.ord) < (y.step, y.ord)
    }

    /// The two events access the same location (both the lock cell, or
    /// both ordinary addresses and equal).
    pub fn same_loc(&self, a: usize, b: usize) -> ZBool {
        let (x, y) = (&self.un.events[a], &self.un.events[b]);
        Bool::and(self.ctx, &[&x.lock._eq(&y.lock), &x.addr._eq(&y.addr)])
    }

    /// The event is a read or a write.
    pub fn mem(&self, e: usize) -> ZBool {
        let ev = &self.un.events[e];
        Bool::or(self.ctx, &[&ev.read, &ev.write])
    }

    /// The initial value of a location.
    fn init_value(&self, lock: &ZBool, addr: &ZBv) -> ZBv {
        let w = self.un.width;
        let mut v = BV::from_i64(self.ctx, 0, w);
        for (&a, &x) in self.prog.init.iter().rev() {
            v = addr
                ._eq(&BV::from_i64(self.ctx, a, w))
                .ite(&BV::from_i64(self.ctx, x, w), &v);
        }
        lock.ite(&BV::from_i64(self.ctx, 0, w), &v)
    }

    fn encode_rf_co(&mut self) {
        let ctx = self.ctx;
        let n = self.un.events.len();
        let reads: Vec<usize> = (0..n).filter(|&e| self.un.events[e].may_read).collect();
        let writes: Vec<usize> = (0..n).filter(|&e| self.un.events[e].may_write).collect();
        for &w in &writes {
            self.clk[w] = Some(Int::fresh_const(ctx, "co"));
        }
        for &r in &reads {
            let s = Int::fresh_const(ctx, "rf");
            let cands: Vec<usize> = writes
                .iter()
                .copied()
                .filter(|&w| w != r && !self.po_before(r, w))
                .collect();
            let ev = &self.un.events[r];
            let mut dom = vec![s._eq(&Int::from_i64(ctx, -1))];
            let init = self.init_value(&ev.lock, &ev.addr);
            let mut cs = vec![s._eq(&Int::from_i64(ctx, -1)).implies(&ev.value._eq(&init))];
            for &w in &cands {
                let is = s._eq(&Int::from_i64(ctx, w as i64));
                dom.push(is.clone());
                let wv = &self.un.events[w];
                let ok = and(
                    ctx,
                    &[
                        wv.write.clone(),
                        self.same_loc(w, r),
                        wv.value._eq(&ev.value),
                    ],
                );
                cs.push(is.implies(&ok));
            }
            let c = ev.read.implies(&and(ctx, &[or(ctx, &dom), and(ctx, &cs)]));
            self.constraints.push(c);
            self.src[r] = Some(s);
            self.srcs[r] = cands;
        }
        for (i, &a) in writes.iter().enumerate() {
            for &b in &writes[i + 1..] {
                let (x, y) = (&self.un.events[a], &self.un.events[b]);
                let both = and(
                    ctx,
                    &[x.write.clone(), y.write.clone(), self.same_loc(a, b)],
                );
                let (ca, cb) = (self.clk[a].clone().unwrap(), self.clk[b].clone().unwrap());
                let rule = if self.po_before(a, b) {
                    ca.lt(&cb)
                } else if self.po_before(b, a) {
                    cb.lt(&ca)
                } else {
                    ca._eq(&cb).not()
                };
                self.constraints.push(both.implies(&rule));
            }
        }
    }

    fn rf_pair(&self, w: usize, r: usize) -> Option<ZBool> {
        let s = self.src[r].as_ref()?;
        if !self.srcs[r].contains(&w) {
            return None;
        }
        Some(Bool::and(
            self.ctx,
            &[
                &self.un.events[r].read,
                &s._eq(&Int::from_i64(self.ctx, w as i64)),
            ],
        ))
    }

    fn co_pair(&self, a: usize, b: usize) -> Option<ZBool> {
        if a == b || self.po_before(b, a) {
            return None;
        }
        let (ca, cb) = (self.clk[a].as_ref()?, self.clk[b].as_ref()?);
        let (x, y) = (&self.un.events[a], &self.un.events[b]);
        Some(and(
            self.ctx,
            &[
                x.write.clone(),
                y.write.clone(),
                self.same_loc(a, b),
                ca.lt(cb),
            ],
        ))
    }

    fn fr_pair(&self, r: usize, w: usize) -> Option<ZBool> {
        let s = self.src[r].as_ref()?;
        let cw = self.clk[w].as_ref()?;
        if r == w {
            return None;
        }
        let ctx = self.ctx;
        let mut alts = vec![s._eq(&Int::from_i64(ctx, -1))];
        for &w2 in &self.srcs[r] {
            if w2 == w {
                continue;
            }
            if let Some(c2) = &self.clk[w2] {
                alts.push(Bool::and(
                    ctx,
                    &[&s._eq(&Int::from_i64(ctx, w2 as i64)), &c2.lt(cw)],
                ));
            }
        }
        let (x, y) = (&self.un.events[r], &self.un.events[w]);
        Some(and(
            ctx,
            &[
                x.read.clone(),
                y.write.clone(),
                self.same_loc(r, w),
                or(ctx, &alts),
            ],
        ))
    }

    fn edges(&self, list: &[ZEdge]) -> ZRel {
        let mut m: HashMap<(usize, usize), Vec<ZBool>> = HashMap::default();
        for (a, b, c) in list {
            m.entry((*a, *b)).or_default().push(c.clone());
        }
        m.into_iter().map(|(k, v)| (k, or(self.ctx, &v))).collect()
    }

    /// Base relation `rel` (cached).
    pub fn relation(&mut self, rel: BaseRel) -> ZRel {
        if let Some(r) = self.cache.get(&rel) {
            return r.clone();
        }
        let n = self.un.events.len();
        let ctx = self.ctx;
        let ev = &self.un.events;
        let mut m = ZRel::default();
        let pairs = (0..n).flat_map(|a| (0..n).map(move |b| (a, b)));
        match rel {
            BaseRel::Po => {
                for (a, b) in pairs {
                    if self.po_before(a, b) {
                        m.insert((a, b), Bool::and(ctx, &[&ev[a].exec, &ev[b].exec]));
                    }
                }
            }
            BaseRel::Rf => {
                for r in 0..n {
                    for &w in &self.srcs[r] {
                        if let Some(c) = self.rf_pair(w, r) {
                            m.insert((w, r), c);
                        }
                    }
                }
            }
            BaseRel::Co | BaseRel::Fr => {
                for (a, b) in pairs {
                    let c = if rel == BaseRel::Co {
                        self.co_pair(a, b)
                    } else {
                        self.fr_pair(a, b)
                    };
                    if let Some(c) = c {
                        m.insert((a, b), c);
                    }
                }
            }
            BaseRel::Loc => {
                let acc: Vec<usize> = (0..n)
                    .filter(|&e| ev[e].may_read || ev[e].may_write)
                    .collect();
                for &a in &acc {
                    for &b in &acc {
                        let c = and(ctx, &[self.mem(a), self.mem(b), self.same_loc(a, b)]);
                        m.insert((a, b), c);
                    }
                }
            }
            BaseRel::Int | BaseRel::Ext | BaseRel::Id | BaseRel::Univ => {
                for (a, b) in pairs {
                    if rel.static_pair(a == b, ev[a].thread == ev[b].thread) == Some(true) {
                        m.insert((a, b), Bool::and(ctx, &[&ev[a].exec, &ev[b].exec]));
                    }
                }
            }
            BaseRel::Addr => m = self.edges(&self.un.addr),
            BaseRel::Data => m = self.edges(&self.un.data),
            BaseRel::Ctrl => m = self.edges(&self.un.ctrl),
            BaseRel::Rmw => m = self.edges(&self.un.rmw),
            BaseRel::PickAddr => m = self.edges(&self.un.pick_addr),
            BaseRel::PickData => m = self.edges(&self.un.pick_data),
            BaseRel::PickCtrl => m = self.edges(&self.un.pick_ctrl),
            BaseRel::Op | BaseRel::Fifo | BaseRel::Bar => {
                m = super::pgas::relation(self.ctx, &self.un, self.pgas.as_ref(), rel)
            }
            BaseRel::Stxn => m = self.stxn(),
            BaseRel::Si => m = self.si(),
        }
        self.cache.insert(rel, m.clone());
        m
    }

    /// Per step of thread `t`: `held(s)` (the lock is held when step s
    /// starts), `sect(s) = held(s) ∨ lock(s)`, "step s executes an atomic
    /// step over several locations" (`None`: false), and `held` after the
    /// last unrolled step ([`ZEnc::stxn`]).
    #[allow(clippy::type_complexity)]
    fn lock_steps(
        &self,
        t: usize,
    ) -> (
        Vec<Option<ZBool>>,
        Vec<Option<ZBool>>,
        Vec<Option<ZBool>>,
        Option<ZBool>,
    ) {
        let ctx = self.ctx;
        let ff = Bool::from_bool(ctx, false);
        let zt = &self.un.threads[t];
        let instrs = &self.prog.threads[t].instrs;
        let is = |step: usize, f: &dyn Fn(&Command) -> bool| -> Option<ZBool> {
            let v: Vec<ZBool> = (zt.cands[step].iter())
                .filter(|&&j| f(&instrs[j].cmd))
                .map(|&j| zt.ins[step]._eq(&Int::from_i64(ctx, j as i64)))
                .collect();
            (!v.is_empty()).then(|| or(ctx, &v))
        };
        let (mut held, mut sect, mut at) = (Vec::new(), Vec::new(), Vec::new());
        let mut h: Option<ZBool> = None;
        let either = |a: &Option<ZBool>, b: &Option<ZBool>| match (a, b) {
            (None, None) => None,
            _ => Some(or(
                ctx,
                &[
                    a.clone().unwrap_or(ff.clone()),
                    b.clone().unwrap_or(ff.clone()),
                ],
            )),
        };
        for s in 0..zt.cands.len() {
            let l = is(s, &|c| c.lock_bound() == Some(true));
            let u = is(s, &|c| c.lock_bound() == Some(false));
            held.push(h.clone());
            sect.push(either(&h, &l));
            at.push(is(s, &|c| c.is_atomic_step()));
            let kept = match (&h, &u) {
                (Some(h), Some(u)) => Some(and(ctx, &[h.clone(), u.not()])),
                (h, _) => h.clone(),
            };
            h = either(&kept, &l);
        }
        (held, sect, at, h)
    }

    /// A thread that stops holding the lock blocks the other threads'
    /// loads and stores from its `lock` on (thesis 003 §7.1.1, Table 7.1):
    /// no hb edge leaves such a section for another thread (as the
    /// varisat encoder states it).
    fn open_sections(&mut self) -> Vec<ZBool> {
        let ctx = self.ctx;
        let mut hb: HashMap<(usize, usize), Vec<ZBool>> = HashMap::default();
        for r in HB {
            for (k, c) in self.relation(r) {
                hb.entry(k).or_default().push(c);
            }
        }
        let mut out = Vec::new();
        for t in 0..self.un.threads.len() {
            let (held, sect, _, end) = self.lock_steps(t);
            let Some(end) = end else { continue };
            let zt = &self.un.threads[t];
            let steps = zt.cands.len();
            let mut still: Vec<ZBool> = vec![end; steps + 1];
            for s in (0..steps).rev() {
                let stopped = zt.ins[s].lt(&Int::from_i64(ctx, 0));
                let h = held[s].clone().unwrap_or(Bool::from_bool(ctx, false));
                still[s] = and(ctx, &[h, or(ctx, &[stopped, still[s + 1].clone()])]);
            }
            let ev = &self.un.events;
            for a in (0..ev.len()).filter(|&a| ev[a].thread.0 as usize == t) {
                let sa = ev[a].step as usize;
                let Some(sec) = sect[sa].clone() else {
                    continue;
                };
                let open = and(ctx, &[sec, still[sa + 1].clone()]);
                for b in (0..ev.len()).filter(|&b| ev[b].thread != ev[a].thread) {
                    if let Some(h) = hb.get(&(a, b)) {
                        let c = and(ctx, &[open.clone(), self.mem(a), self.mem(b), or(ctx, h)]);
                        out.push(c.not());
                    }
                }
            }
        }
        out
    }

    /// `stxn`: two different executed events of one thread in one
    /// indivisible section ([`crate::program::Program::indivisible_sections`]):
    /// one step executing an atomic step over several locations
    /// ([`crate::program::Command::is_atomic_step`]), or steps of one lock
    /// section, as the varisat encoder states it: `held(s+1) = held(s) ∧
    /// ¬unlock(s) ∨ lock(s)`, `sect(s) = held(s) ∨ lock(s)`, and steps
    /// s1 < s2 are in one section iff `sect(s1) ∧ held(s1+1) ∧ … ∧
    /// held(s2)`.
    fn stxn(&self) -> ZRel {
        let ctx = self.ctx;
        let ev = &self.un.events;
        let mut m = ZRel::default();
        for t in 0..self.un.threads.len() {
            let (held, sect, at, _) = self.lock_steps(t);
            let evs: Vec<usize> = (0..ev.len())
                .filter(|&a| ev[a].thread.0 as usize == t)
                .collect();
            for (x, &a) in evs.iter().enumerate() {
                for &b in &evs[x + 1..] {
                    let (sa, sb) = (ev[a].step as usize, ev[b].step as usize);
                    let mut one: Vec<ZBool> = Vec::new();
                    let lock_run: Option<Vec<ZBool>> = std::iter::once(&sect[sa])
                        .chain(&held[sa + 1..=sb])
                        .cloned()
                        .collect();
                    if let Some(run) = lock_run {
                        one.push(and(ctx, &run));
                    }
                    if sa == sb {
                        one.extend(at[sa].clone());
                    }
                    if one.is_empty() {
                        continue;
                    }
                    let c = and(
                        ctx,
                        &[ev[a].exec.clone(), ev[b].exec.clone(), or(ctx, &one)],
                    );
                    m.insert((a, b), c.clone());
                    m.insert((b, a), c);
                }
            }
        }
        m
    }

    /// `si` (herd's same instruction): every executed memory event with
    /// itself, and the byte events of one access to a byte-addressed
    /// location ([`crate::program::Thread::si_groups`]): byte `k` of a
    /// group executed at step `s` with the event of byte `j` at step
    /// `s − k + j` (the varisat unroller's `si` pairs).
    fn si(&self) -> ZRel {
        let ctx = self.ctx;
        let ev = &self.un.events;
        let mut m = ZRel::default();
        let mem = |e: usize| ev[e].may_read || ev[e].may_write;
        for a in (0..ev.len()).filter(|&a| mem(a)) {
            m.insert((a, a), self.mem(a));
        }
        for (t, zt) in self.un.threads.iter().enumerate() {
            let (of, groups) = self.prog.threads[t].si_groups();
            if groups.is_empty() {
                continue;
            }
            let own = |e: usize| ev[e].thread.0 as usize == t && mem(e);
            for a in (0..ev.len()).filter(|&a| own(a)) {
                let s = ev[a].step;
                for &i in zt.cands.get(s as usize).into_iter().flatten() {
                    let Some((g, k)) = of[i] else { continue };
                    let is_i = zt.ins[s as usize]._eq(&Int::from_i64(ctx, i as i64));
                    for j in (0..groups[g].len() as u32).filter(|&j| j != k) {
                        let Some(sb) = (s + j).checked_sub(k) else {
                            continue;
                        };
                        for b in (0..ev.len()).filter(|&b| own(b) && ev[b].step == sb) {
                            let c =
                                and(ctx, &[ev[a].exec.clone(), ev[b].exec.clone(), is_i.clone()]);
                            let c = match m.remove(&(a, b)) {
                                Some(old) => or(ctx, &[old, c]),
                                None => c,
                            };
                            m.insert((a, b), c);
                        }
                    }
                }
            }
        }
        m
    }

    /// The final value of memory cell `addr`: the co-last write to it,
    /// else its initial value.
    pub fn final_mem(&mut self, addr: i64) -> ZBv {
        let ctx = self.ctx;
        let w = self.un.width;
        let a = BV::from_i64(ctx, addr, w);
        let writes: Vec<usize> = (0..self.un.events.len())
            .filter(|&e| self.un.events[e].may_write)
            .collect();
        let mut v = BV::from_i64(ctx, self.prog.init_value(addr), w);
        for &x in &writes {
            let ev = &self.un.events[x];
            let mut conds = vec![ev.write.clone(), ev.lock.not(), ev.addr._eq(&a)];
            for &y in &writes {
                if let Some(c) = self.co_pair(x, y) {
                    conds.push(c.not());
                }
            }
            v = and(ctx, &conds).ite(&ev.value, &v);
        }
        v
    }

    /// A goal expression over the final state.
    pub fn gexpr(&mut self, e: &GExpr) -> ZBv {
        let ctx = self.ctx;
        let w = self.un.width;
        match e {
            Expr::Const(c) => BV::from_i64(ctx, *c, w),
            Expr::Var(GVar::Reg(t, r)) => {
                self.un.threads[t.0 as usize].regs_end[r.0 as usize].clone()
            }
            Expr::Var(GVar::Mem(a)) => self.final_mem(*a),
            Expr::Un(op, a) => {
                let x = self.gexpr(a);
                super::unop(ctx, *op, &x)
            }
            Expr::Bin(op, a, b) => {
                let (x, y) = (self.gexpr(a), self.gexpr(b));
                super::binop(ctx, *op, &x, &y)
            }
            Expr::Rank | Expr::Nodes => BV::from_i64(ctx, 0, w),
        }
    }

    /// Every thread has stopped at a state without outgoing instructions.
    pub fn all_final(&self) -> ZBool {
        let ctx = self.ctx;
        let mut per = Vec::new();
        for (ti, t) in self.prog.threads.iter().enumerate() {
            let out = t.outgoing();
            let fin: Vec<ZBool> = (0..t.states.len())
                .filter(|&q| out[q].is_empty())
                .map(|q| {
                    self.un.threads[ti]
                        .pc_end
                        ._eq(&Int::from_i64(ctx, q as i64))
                })
                .collect();
            per.push(or(ctx, &fin));
        }
        and(ctx, &per)
    }

    /// Goal `g` holds at the end of the execution.
    pub fn goal(&mut self, g: usize) -> ZBool {
        let ctx = self.ctx;
        let goal = self.prog.goals[g].clone();
        let at = match &goal.at {
            GoalAt::Final => self.all_final(),
            GoalAt::States(v) => {
                let cs: Vec<ZBool> = v
                    .iter()
                    .map(|(t, q)| {
                        self.un.threads[t.0 as usize]
                            .pc_end
                            ._eq(&Int::from_i64(ctx, q.0 as i64))
                    })
                    .collect();
                and(ctx, &cs)
            }
        };
        match &goal.cond {
            Some(e) => {
                let v = self.gexpr(e);
                let zero = BV::from_i64(ctx, 0, self.un.width);
                Bool::and(ctx, &[&at, &v._eq(&zero).not()])
            }
            None => at,
        }
    }

    /// An hb = po ∪ rf ∪ co ∪ fr cycle among the memory events: a nonempty
    /// set of events, each with a chosen hb-successor (an integer) in the
    /// set. Returns the condition (to assume). PGAS programs: the cycle on
    /// the trace graph ([`super::pgas::trace_cycle`]).
    ///
    /// Indivisible sections are contracted (docs/models.md, "Robustness
    /// and indivisible sections": a cycle of `stxn? ; (hb \ stxn) ;
    /// stxn?` between threads, po within one) by hand-overs: an event may
    /// instead choose a successor in its own section (`stxn`) when that
    /// successor's own choice is an hb edge to another thread. A cycle
    /// of the contracted relation passes each section it visits once,
    /// entering at some event and leaving either by po (from any of its
    /// events, the section being contiguous in po) or by an edge to
    /// another thread from some event of it, reached by one hand-over;
    /// and every cycle with hand-overs maps to a closed walk of the
    /// contracted relation with an edge between threads. The hand-overs
    /// add a formula per pair of one section, not per pair of sections'
    /// events as lifting each edge would.
    pub fn hb_cycle(&mut self) -> ZBool {
        if self.pgas.is_some() {
            let rels = HB.map(|r| self.relation(r));
            if let Some(pg) = &self.pgas {
                return super::pgas::trace_cycle(self.ctx, &self.un, pg, &rels);
            }
        }
        let ctx = self.ctx;
        let mut hb: HashMap<(usize, usize), Vec<ZBool>> = HashMap::default();
        for r in HB {
            for (k, c) in self.relation(r) {
                hb.entry(k).or_default().push(c);
            }
        }
        let stxn = self.relation(BaseRel::Stxn);
        let ev = &self.un.events;
        let mem: Vec<usize> = (0..ev.len())
            .filter(|&e| ev[e].may_read || ev[e].may_write)
            .collect();
        let inset: HashMap<usize, ZBool> = mem
            .iter()
            .map(|&e| (e, Bool::fresh_const(ctx, "cyc")))
            .collect();
        let next: HashMap<usize, Int> = mem
            .iter()
            .map(|&e| (e, Int::fresh_const(ctx, "succ")))
            .collect();
        // Per event that a hand-over may reach: its chosen successor is
        // an event of another thread.
        let leaves: HashMap<usize, ZBool> = (stxn.keys())
            .map(|&(_, b)| b)
            .collect::<std::collections::BTreeSet<usize>>()
            .into_iter()
            .filter(|b| next.contains_key(b))
            .map(|b| {
                let out: Vec<ZBool> = (mem.iter())
                    .filter(|&&c| ev[c].thread != ev[b].thread)
                    .map(|&c| next[&b]._eq(&Int::from_i64(ctx, c as i64)))
                    .collect();
                (b, or(ctx, &out))
            })
            .collect();
        let mut cs = vec![or(ctx, &inset.values().cloned().collect::<Vec<_>>())];
        for &a in &mem {
            let mut alts = Vec::new();
            for &b in &mem {
                let mut edge: Vec<ZBool> = hb.get(&(a, b)).cloned().unwrap_or_default();
                if let Some(h) = stxn.get(&(a, b)) {
                    edge.push(and(ctx, &[h.clone(), leaves[&b].clone()]));
                }
                if edge.is_empty() {
                    continue;
                }
                alts.push(and(
                    ctx,
                    &[
                        next[&a]._eq(&Int::from_i64(ctx, b as i64)),
                        inset[&b].clone(),
                        self.mem(a),
                        self.mem(b),
                        or(ctx, &edge),
                    ],
                ));
            }
            cs.push(inset[&a].implies(&or(ctx, &alts)));
        }
        and(ctx, &cs)
    }
}

impl ZBase for ZEnc<'_> {
    fn ctx(&self) -> &'static Context {
        self.ctx
    }

    fn n(&self) -> usize {
        self.un.events.len()
    }

    fn executed(&mut self) -> ZSet {
        self.un
            .events
            .iter()
            .map(|ev| Some(ev.exec.clone()))
            .collect()
    }

    fn set(&mut self, s: BaseSet) -> ZSet {
        self.un
            .events
            .iter()
            .map(|ev| match s {
                BaseSet::R => ev.may_read.then(|| ev.read.clone()),
                BaseSet::W => ev.may_write.then(|| ev.write.clone()),
                BaseSet::M => (ev.may_read || ev.may_write)
                    .then(|| Bool::or(self.ctx, &[&ev.read, &ev.write])),
                BaseSet::A => Some(ev.atomic.clone()),
                // Initial writes are implicit.
                BaseSet::IW => None,
                // An access of a location the test observes.
                BaseSet::Observed => (ev.may_read || ev.may_write).then(|| {
                    let m = Bool::or(self.ctx, &[&ev.read, &ev.write]);
                    match &self.prog.observed {
                        None => m,
                        Some(xs) => {
                            let w = self.un.width;
                            let at: Vec<ZBool> = (xs.iter())
                                .map(|&x| {
                                    let a = BV::from_i64(self.ctx, x, w);
                                    Bool::and(self.ctx, &[&ev.lock.not(), &ev.addr._eq(&a)])
                                })
                                .collect();
                            let at: Vec<&ZBool> = at.iter().collect();
                            Bool::and(self.ctx, &[&m, &Bool::or(self.ctx, &at)])
                        }
                    }
                }),
                // The unrolling tags fence and PGAS events with the set names.
                BaseSet::F
                | BaseSet::MFence
                | BaseSet::Sync
                | BaseSet::LwSync
                | BaseSet::ISync
                | BaseSet::Eieio
                | BaseSet::Membar
                | BaseSet::MembarLL
                | BaseSet::MembarLS
                | BaseSet::MembarSL
                | BaseSet::MembarSS
                | BaseSet::Issue
                | BaseSet::PopA
                | BaseSet::PopB
                | BaseSet::Bar
                | BaseSet::Dmb
                | BaseSet::DmbLd
                | BaseSet::DmbSt
                | BaseSet::DsbSt
                | BaseSet::Isb
                | BaseSet::FenceRR
                | BaseSet::FenceRW
                | BaseSet::FenceWR
                | BaseSet::FenceWW
                // Access annotations and exclusives are tagged the same way.
                | BaseSet::Acq
                | BaseSet::AcqPC
                | BaseSet::Rel
                | BaseSet::X
                | BaseSet::NoRet
                | BaseSet::IFetch
                // No event carries a tag (`unroll` refuses tagged commands).
                | BaseSet::Tag(_) => super::pgas::set_of(ev, s),
            })
            .collect()
    }

    fn rel(&mut self, r: BaseRel) -> ZRel {
        self.relation(r)
    }
}
