//! Dataflow: registers as bit-vectors per step (SSA). Each candidate
//! instruction of a step runs its micro-ops symbolically on the registers
//! before the step, which yields its slot contributions (addresses,
//! values), its register writes and their taint; the registers after the
//! step are the selected candidate's (a multiplexer over the sel
//! literals).

use super::deps::{as_ctrl, as_pick, merge_taints, union_taint, AccessTaint, Taint, Via};
use super::events::{address, push_slot, SlotContrib, SlotKind, SlotLayout};
use super::micro::{vars_of, AddrSrc, Micro, ThreadCode};
use super::UnrollOpts;
use crate::cat::base::Tag;
use crate::engines::bounded::varisat::bv::Bv;
use crate::engines::bounded::varisat::cnf::Cnf;
use crate::program::{Expr, Fence, LExpr, RegId, Thread};
use std::collections::BTreeSet;
use varisat::Lit;

/// Symbolic evaluation over a [`Cnf`] at width `w`.
struct Ctx<'a> {
    cnf: &'a mut Cnf,
    w: u32,
}

impl Ctx<'_> {
    fn eval(&mut self, e: &LExpr, regs: &[Bv]) -> Bv {
        match e {
            Expr::Const(c) => self.cnf.bv_const(*c, self.w),
            Expr::Var(r) => regs[r.0 as usize].clone(),
            Expr::Un(op, a) => {
                let x = self.eval(a, regs);
                self.cnf.bv_unop(*op, &x)
            }
            Expr::Bin(op, a, b) => {
                let x = self.eval(a, regs);
                let y = self.eval(b, regs);
                self.cnf.bv_binop(*op, &x, &y)
            }
            // SPMD pseudo-variables are substituted before unrolling.
            Expr::Rank | Expr::Nodes => self.cnf.bv_const(0, self.w),
        }
    }

    /// Address bit-vector (W+1 bits) of an address source.
    fn addr(&mut self, a: &AddrSrc, regs: &[Bv]) -> Bv {
        match a {
            AddrSrc::Expr(e) => {
                let v = self.eval(e, regs);
                address(self.cnf, v, false)
            }
            AddrSrc::Lock => address(self.cnf, self.cnf.bv_const(0, self.w), true),
        }
    }
}

/// The registers of `th` before its first step: their initial values.
pub(super) fn initial_regs(cnf: &Cnf, th: &Thread, w: u32) -> Vec<Bv> {
    th.reg_init.iter().map(|v| cnf.bv_const(*v, w)).collect()
}

/// What the candidates of one step do: output of [`execute_step`].
pub(super) struct StepRun {
    /// Per slot: the contributions of the candidates with an event there.
    pub(super) slots: Vec<Vec<SlotContrib>>,
    /// Per slot and contribution (as `slots`): the taint of its operands.
    pub(super) taints: Vec<Vec<AccessTaint>>,
    /// Per register: (sel, value after the step) of each candidate that
    /// writes it.
    pub(super) new_regs: Vec<Vec<(Lit, Bv)>>,
    /// Per register: (sel, taint after the step) of each candidate that
    /// writes it (only with dependencies).
    pub(super) new_taint: Vec<Vec<(Lit, Taint)>>,
    /// (sel, taint of the condition) of each assume (only with
    /// dependencies).
    pub(super) assume_taint: Vec<(Lit, Taint)>,
    /// The reservations taken by load-reserves: (read event id, sel).
    pub(super) reserved: Vec<(usize, Lit)>,
}

/// Execution phase of a step: runs the micro-ops (`code`) of each
/// candidate of `sels` in order on the registers `regs` and their taint
/// `taint` before the step, in the slots of `layout`. Adds each assume's
/// constraint (sel → condition ≠ 0) and each expected load value
/// (`lock` reads 0) to the CNF; returns the slot contributions and the
/// register writes (see [`StepRun`]).
pub(super) fn execute_step(
    cnf: &mut Cnf,
    code: &ThreadCode,
    sels: &[(usize, Lit)],
    layout: &SlotLayout,
    regs: &[Bv],
    taint: &[Taint],
    opts: UnrollOpts,
) -> StepRun {
    let mut ctx = Ctx { cnf, w: opts.width };
    let mut run = StepRun {
        slots: Vec::new(),
        taints: Vec::new(),
        new_regs: vec![Vec::new(); taint.len()],
        new_taint: vec![Vec::new(); taint.len()],
        assume_taint: Vec::new(),
        reserved: Vec::new(),
    };
    for &(instr, sel) in sels {
        let mut c = Candidate {
            instr,
            sel,
            atomic: code.atomic[instr],
            regs: regs.to_vec(),
            taint: taint.to_vec(),
            written: BTreeSet::new(),
            slot: 0,
            popa_val: None,
            ctrl_reg: code.ctrl_reg,
        };
        for m in &code.micro[instr] {
            c.exec(&mut ctx, m, layout, opts.deps, &mut run);
        }
        for r in c.written {
            run.new_regs[r.0 as usize].push((sel, c.regs[r.0 as usize].clone()));
            if opts.deps {
                run.new_taint[r.0 as usize].push((sel, c.taint[r.0 as usize].clone()));
            }
        }
    }
    run
}

/// One candidate instruction while its micro-ops run.
struct Candidate {
    /// Index in `Thread::instrs`.
    instr: usize,
    /// Its sel literal.
    sel: Lit,
    /// It is locked/atomic.
    atomic: bool,
    /// The registers after the micro-ops so far.
    regs: Vec<Bv>,
    /// Their taint.
    taint: Vec<Taint>,
    /// The registers written so far.
    written: BTreeSet<RegId>,
    /// The next ordinary slot.
    slot: usize,
    /// The value read by its `popa`.
    popa_val: Option<Bv>,
    /// `Thread::ctrl_reg`: an assume adds its condition's taint to this
    /// register's instead of the thread's ctrl prefix.
    ctrl_reg: Option<RegId>,
}

impl Candidate {
    /// A contribution of this candidate without address or value.
    fn contrib(&self, kind: SlotKind) -> SlotContrib {
        SlotContrib::new(self.sel, self.instr, kind, self.atomic)
    }

    /// Puts `c` (operand taint `t`) in the next ordinary slot.
    fn push(&mut self, run: &mut StepRun, c: SlotContrib, t: AccessTaint) {
        push_at(run, self.slot, c, t);
        self.slot += 1;
    }

    /// The taint of an operand computed from `regs` (empty without
    /// dependencies).
    fn taint_of(&self, cnf: &mut Cnf, deps: bool, regs: &BTreeSet<RegId>) -> Taint {
        if deps {
            union_taint(cnf, &self.taint, regs)
        } else {
            Taint::new()
        }
    }

    /// `t` (the new taint of register `reg`, written from registers
    /// `from`) with the ctrl prefix as control-only paths (herd's C: a
    /// register written inside a branch depends on the enclosing
    /// conditions' reads for `ctrl` only; [`Via::Ctrl`]). Unchanged
    /// without `Thread::ctrl_reg`, for the prefix register itself, and for
    /// the front-end's save of the prefix (`from` holds it).
    fn in_branch(&self, cnf: &mut Cnf, reg: RegId, from: &BTreeSet<RegId>, t: Taint) -> Taint {
        match self.ctrl_reg {
            Some(cr) if cr != reg && !from.contains(&cr) => {
                let prefix = as_ctrl(cnf, self.taint[cr.0 as usize].clone());
                merge_taints(cnf, t, prefix)
            }
            _ => t,
        }
    }

    /// Runs micro-op `m`.
    fn exec(
        &mut self,
        ctx: &mut Ctx,
        m: &Micro,
        layout: &SlotLayout,
        deps: bool,
        run: &mut StepRun,
    ) {
        match m {
            Micro::Issue(q) => {
                let v = ctx.eval(q, &self.regs);
                let c = SlotContrib {
                    value: Some(v),
                    ..self.contrib(SlotKind::Issue)
                };
                self.push(run, c, AccessTaint::default());
            }
            Micro::Barrier => {
                self.push(run, self.contrib(SlotKind::Barrier), AccessTaint::default())
            }
            Micro::PopA(e) => self.pop(ctx, e, false, layout, deps, run),
            Micro::PopB(e) => self.pop(ctx, e, true, layout, deps, run),
            Micro::Assign { reg, value, pick } => {
                let v = ctx.eval(value, &self.regs);
                if deps {
                    let from = vars_of(value);
                    let t = union_taint(ctx.cnf, &self.taint, &from);
                    let t = if *pick { as_pick(ctx.cnf, t) } else { t };
                    self.taint[reg.0 as usize] = self.in_branch(ctx.cnf, *reg, &from, t);
                }
                self.regs[reg.0 as usize] = v;
                self.written.insert(*reg);
            }
            Micro::Assume(e) => {
                let v = ctx.eval(e, &self.regs);
                let nz = ctx.cnf.bv_nonzero(&v);
                ctx.cnf.implies(self.sel, nz);
                if deps {
                    let mut regs = vars_of(e);
                    match self.ctrl_reg {
                        Some(cr) => {
                            regs.insert(cr);
                            self.taint[cr.0 as usize] = union_taint(ctx.cnf, &self.taint, &regs);
                            self.written.insert(cr);
                        }
                        None => {
                            let t = union_taint(ctx.cnf, &self.taint, &regs);
                            run.assume_taint.push((self.sel, t));
                        }
                    }
                }
            }
            Micro::Guard(e) => {
                let v = ctx.eval(e, &self.regs);
                let nz = ctx.cnf.bv_nonzero(&v);
                ctx.cnf.implies(self.sel, nz);
            }
            Micro::Select {
                reg,
                cond,
                then,
                else_,
            } => self.select(ctx, reg, [cond, then, else_], deps),
            // A located event (`Fence::Located`): the register's value
            // is its address; no dependency reaches it (herd's `__srcu`
            // reads its argument without a port).
            Micro::Fence(f, tags) => {
                let addr = match f {
                    Fence::Located(r) => Some(ctx.addr(&AddrSrc::Expr(Expr::Var(*r)), &self.regs)),
                    _ => None,
                };
                self.push(
                    run,
                    SlotContrib {
                        tags: tags.clone(),
                        addr,
                        ..self.contrib(SlotKind::Fence(*f))
                    },
                    AccessTaint::default(),
                )
            }
            Micro::Load {
                reg,
                addr,
                expect,
                reserve,
                ann,
                tags,
            } => self.load(
                ctx,
                (reg, addr),
                (expect, reserve, ann, tags),
                layout,
                deps,
                run,
            ),
            Micro::Store {
                addr,
                value,
                cond_flag,
                ann,
                tags,
            } => self.store(
                ctx,
                (addr, value),
                (cond_flag, ann, tags),
                layout,
                deps,
                run,
            ),
        }
    }

    /// `reg := cond ? then : else_` ([`Micro::Select`]): the value by an
    /// if-then-else of bit-vectors; with dependencies, the condition's
    /// taint as a pick and each operand's under its side of the condition.
    fn select(&mut self, ctx: &mut Ctx, reg: &RegId, [cond, then, else_]: [&LExpr; 3], deps: bool) {
        let c = ctx.eval(cond, &self.regs);
        let nz = ctx.cnf.bv_nonzero(&c);
        let a = ctx.eval(then, &self.regs);
        let b = ctx.eval(else_, &self.regs);
        let v = ctx.cnf.bv_ite(nz, &a, &b);
        if deps {
            // The condition's reads by pick paths, the selected
            // operand's as they are (Arm ARM B2.3.2).
            let tc = union_taint(ctx.cnf, &self.taint, &vars_of(cond));
            let tc = as_pick(ctx.cnf, tc);
            let ta = union_taint(ctx.cnf, &self.taint, &vars_of(then));
            let tb = union_taint(ctx.cnf, &self.taint, &vars_of(else_));
            let mut all: std::collections::BTreeMap<(usize, Via), Vec<Lit>> =
                std::collections::BTreeMap::new();
            for (s, l) in tc {
                all.entry(s).or_default().push(l);
            }
            for (s, l) in ta {
                let g = ctx.cnf.and(nz, l);
                all.entry(s).or_default().push(g);
            }
            for (s, l) in tb {
                let g = ctx.cnf.and(!nz, l);
                all.entry(s).or_default().push(g);
            }
            let t = all
                .into_iter()
                .map(|(s, ls)| (s, ctx.cnf.or_all(&ls)))
                .collect();
            self.taint[reg.0 as usize] = self.in_branch(ctx.cnf, *reg, &BTreeSet::new(), t);
        }
        self.regs[reg.0 as usize] = v;
        self.written.insert(*reg);
    }

    /// A load ([`Micro::Load`]) into `reg` (if any) from `addr`: the
    /// slot's read value, pinned to `expect` when given; `reserve` marks a
    /// load-reserve (the step's reservation); `ann` the access's
    /// annotations.
    fn load(
        &mut self,
        ctx: &mut Ctx,
        (reg, addr): (&Option<RegId>, &AddrSrc),
        (expect, reserve, ann, tags): (&Option<i64>, &bool, &u16, &Vec<Tag>),
        layout: &SlotLayout,
        deps: bool,
        run: &mut StepRun,
    ) {
        let a = ctx.addr(addr, &self.regs);
        let at = AccessTaint {
            addr: self.taint_of(ctx.cnf, deps, &addr.regs()),
            value: Taint::new(),
        };
        let v = layout.read_vals[self.slot].clone();
        if let Some(x) = expect {
            let c = ctx.cnf.bv_const(*x, ctx.w);
            let eq = ctx.cnf.bv_eq(&v, &c);
            ctx.cnf.implies(self.sel, eq);
        }
        let id = layout.base_id + self.slot;
        if let Some(r) = reg {
            self.regs[r.0 as usize] = v.clone();
            self.written.insert(*r);
            if deps {
                let mut t = Taint::new();
                t.insert((id, Via::Data), ctx.cnf.tt());
                self.taint[r.0 as usize] = self.in_branch(ctx.cnf, *r, &BTreeSet::new(), t);
            }
        }
        if *reserve {
            run.reserved.push((id, self.sel));
        }
        let c = SlotContrib {
            addr: Some(a),
            value: Some(v),
            ann: *ann,
            excl: *reserve,
            tags: tags.clone(),
            ..self.contrib(SlotKind::Read)
        };
        self.push(run, c, at);
    }

    /// A store ([`Micro::Store`]) of `value` to `addr`; a conditional
    /// store (`cond_flag`) writes its success flag (the layout's
    /// `sc_success`) to that register, which depends on the write under
    /// `scdep`.
    fn store(
        &mut self,
        ctx: &mut Ctx,
        (addr, value): (&AddrSrc, &LExpr),
        (cond_flag, ann, tags): (&Option<RegId>, &u16, &Vec<Tag>),
        layout: &SlotLayout,
        deps: bool,
        run: &mut StepRun,
    ) {
        let a = ctx.addr(addr, &self.regs);
        let v = ctx.eval(value, &self.regs);
        // A `nodata` store-conditional (Arm `STXR`) reads its value
        // register on no data port: its dependencies are pick ones.
        let mut value_taint = self.taint_of(ctx.cnf, deps, &vars_of(value));
        if *ann & crate::program::Ann::NODATA != 0 {
            value_taint = as_pick(ctx.cnf, value_taint);
        }
        let at = AccessTaint {
            addr: self.taint_of(ctx.cnf, deps, &addr.regs()),
            value: value_taint,
        };
        let kind = if let Some(f) = cond_flag {
            self.regs[f.0 as usize] = ctx.cnf.bv_from_bool(layout.sc_success, ctx.w);
            self.written.insert(*f);
            if deps {
                // Under `scdep` the flag depends on the write
                // (when it is performed), else on nothing.
                let mut t = Taint::new();
                if *ann & crate::program::Ann::SCDEP != 0 {
                    t.insert((layout.base_id + self.slot, Via::Data), layout.sc_success);
                }
                self.taint[f.0 as usize] = t;
            }
            SlotKind::CondWrite
        } else {
            SlotKind::Write
        };
        let c = SlotContrib {
            addr: Some(a),
            value: Some(v),
            ann: *ann,
            excl: cond_flag.is_some(),
            tags: tags.clone(),
            ..self.contrib(kind)
        };
        self.push(run, c, at);
    }

    /// A PGAS pop at global address `e`, in the step's first pop slot
    /// (`popa`, which reads) or second (`popb`, which writes what the
    /// `popa` read). Pops are outside the instruction's atomicity.
    fn pop(
        &mut self,
        ctx: &mut Ctx,
        e: &LExpr,
        is_b: bool,
        layout: &SlotLayout,
        deps: bool,
        run: &mut StepRun,
    ) {
        let ps = layout.pop_base + usize::from(is_b);
        let a = ctx.addr(&AddrSrc::Expr(e.clone()), &self.regs);
        let value = if is_b {
            self.popa_val.clone()
        } else {
            self.popa_val = Some(layout.read_vals[ps].clone());
            self.popa_val.clone()
        };
        let kind = if is_b { SlotKind::PopB } else { SlotKind::PopA };
        let c = SlotContrib {
            addr: Some(a),
            value,
            ..SlotContrib::new(self.sel, self.instr, kind, false)
        };
        let at = AccessTaint {
            addr: self.taint_of(ctx.cnf, deps, &vars_of(e)),
            value: Taint::new(),
        };
        push_at(run, ps, c, at);
    }
}

/// Puts contribution `c` with operand taint `t` in slot `slot` of `run`.
fn push_at(run: &mut StepRun, slot: usize, c: SlotContrib, t: AccessTaint) {
    push_slot(&mut run.slots, slot, c);
    while run.taints.len() <= slot {
        run.taints.push(Vec::new());
    }
    run.taints[slot].push(t);
}

/// Register phase of a step: each register after the step is the value
/// written by the selected candidate (`new_regs`, from [`execute_step`])
/// if it writes the register, else its value before (`regs`, updated in
/// place).
pub(super) fn merge_registers(cnf: &mut Cnf, regs: &mut [Bv], new_regs: Vec<Vec<(Lit, Bv)>>) {
    for (r, ups) in new_regs.into_iter().enumerate() {
        let mut v = regs[r].clone();
        for (s, nv) in ups {
            v = cnf.bv_ite(s, &nv, &v);
        }
        regs[r] = v;
    }
}
