//! Unrolling: Program IR + bound K → symbolic events over a [`Cnf`].
//!
//! Each thread is unrolled for K steps (at most K instructions executed
//! per thread, DESIGN.md "Bound"). Step i selects at most one instruction
//! among those enabled at the control states reachable in i steps
//! (`sel(i, ins)`); a thread may stop after any prefix (`exec(i+1) →
//! exec(i)`), so computations are prefix-closed (thesis §2.4). Register
//! values are bit-vectors per step (SSA); loads take the value of their
//! event, which the encoder ties to a write through `rf`.
//!
//! An instruction yields one event per memory access or fence, in slots
//! 0, 1, … of its step; an event's kind (read, write, fence), address and
//! value are literals/bit-vectors that depend on which instruction the
//! step selected. `lock` is a locked read-modify-write of a reserved lock
//! cell that must read 0 and writes 1; `unlock` a locked write of 0 to it
//! (Trencher's global lock, thesis §7.1.1); the lock cell lives outside
//! the program's address space (an extra address bit).
//!
//! Dependencies (thesis §4.1 addrdep/datadep/ctrldep) follow register
//! dataflow syntactically: a register is tainted by the reads whose value
//! flowed into it through loads and assignments (`xor r,r,r` keeps the
//! taint); `ctrl` goes from a read to every event po-after an `assume`
//! whose condition is tainted by it.

use crate::bounded::varisat::bv::Bv;
use crate::bounded::varisat::cnf::Cnf;
use crate::program::{Command, Expr, Fence, LExpr, PgasCmd, Program, RegId, StateId, ThreadId};
use std::collections::{BTreeMap, BTreeSet};
use varisat::Lit;

/// Where a micro-operation's address comes from.
#[derive(Clone, Debug)]
enum AddrSrc {
    Expr(LExpr),
    Lock,
}

/// One step of a command, in execution order.
#[derive(Clone, Debug)]
enum Micro {
    Load {
        reg: Option<RegId>,
        addr: AddrSrc,
        expect: Option<i64>,
        reserve: bool,
    },
    Store {
        addr: AddrSrc,
        value: LExpr,
        cond_flag: Option<RegId>,
    },
    Assign {
        reg: RegId,
        value: LExpr,
    },
    Assume(LExpr),
    Fence(Fence),
    /// PGAS (thesis §8.1.2, Table 8.1 read/write): the issue event (set
    /// ISSUE, value = the queue id).
    Issue(LExpr),
    /// PGAS `popa`: reads the source cell (global address).
    PopA(LExpr),
    /// PGAS `popb`: writes the value read by the step's `popa`.
    PopB(LExpr),
    /// PGAS barrier (set BAR).
    Barrier,
}

fn micro_ops(cmd: &Command, nodes: Option<u32>, out: &mut Vec<Micro>) {
    match cmd {
        Command::Load { reg, addr } => out.push(Micro::Load {
            reg: Some(*reg),
            addr: AddrSrc::Expr(addr.clone()),
            expect: None,
            reserve: false,
        }),
        Command::Store { addr, value } => out.push(Micro::Store {
            addr: AddrSrc::Expr(addr.clone()),
            value: value.clone(),
            cond_flag: None,
        }),
        Command::Assign { reg, value } => out.push(Micro::Assign {
            reg: *reg,
            value: value.clone(),
        }),
        Command::Assume(e) => out.push(Micro::Assume(e.clone())),
        Command::Fence(f) => out.push(Micro::Fence(*f)),
        Command::Lock => {
            out.push(Micro::Load {
                reg: None,
                addr: AddrSrc::Lock,
                expect: Some(0),
                reserve: false,
            });
            out.push(Micro::Store {
                addr: AddrSrc::Lock,
                value: Expr::Const(1),
                cond_flag: None,
            });
        }
        Command::Unlock => out.push(Micro::Store {
            addr: AddrSrc::Lock,
            value: Expr::Const(0),
            cond_flag: None,
        }),
        Command::Atomic(cs) => cs.iter().for_each(|c| micro_ops(c, nodes, out)),
        Command::Nop => {}
        Command::LoadReserve { reg, addr } => out.push(Micro::Load {
            reg: Some(*reg),
            addr: AddrSrc::Expr(addr.clone()),
            expect: None,
            reserve: true,
        }),
        Command::StoreCond { addr, value, flag } => out.push(Micro::Store {
            addr: AddrSrc::Expr(addr.clone()),
            value: value.clone(),
            cond_flag: Some(*flag),
        }),
        // PGAS (src/pgas.rs lowers the program first: `local`/`remote` are
        // global addresses here). A remote rank outside 1..N blocks.
        Command::Pgas(PgasCmd::Barrier) => out.push(Micro::Barrier),
        Command::Pgas(PgasCmd::Read {
            local,
            rank,
            remote,
            queue,
        }) => pgas_op(rank, queue, remote, local, nodes, out),
        Command::Pgas(PgasCmd::Write {
            local,
            rank,
            remote,
            queue,
        }) => pgas_op(rank, queue, local, remote, nodes, out),
    }
}

/// Micro-ops of a remote operation copying `src` to `dst` (global
/// addresses): range check of the remote rank, issue, popa, popb.
fn pgas_op(
    rank: &LExpr,
    queue: &LExpr,
    src: &LExpr,
    dst: &LExpr,
    nodes: Option<u32>,
    out: &mut Vec<Micro>,
) {
    use crate::program::BinOp;
    if let Some(n) = nodes {
        let lo = Expr::bin(BinOp::Le, Expr::Const(1), rank.clone());
        let hi = Expr::bin(BinOp::Le, rank.clone(), Expr::Const(n as i64));
        out.push(Micro::Assume(Expr::bin(BinOp::And, lo, hi)));
    }
    out.push(Micro::Issue(queue.clone()));
    out.push(Micro::PopA(src.clone()));
    out.push(Micro::PopB(dst.clone()));
}

/// Kind-specific literals of an event. Each implies [`Event::exec`].
#[derive(Clone, Debug)]
pub struct Event {
    /// Index in [`Unrolled::events`].
    pub id: usize,
    /// The thread.
    pub thread: ThreadId,
    /// The step (0-based instruction count of the thread).
    pub step: u32,
    /// The slot within the step (access number within the instruction).
    pub slot: u32,
    /// The event happens.
    pub exec: Lit,
    /// It is a read (R).
    pub read: Lit,
    /// It is a write (W). A failing store-conditional is no write.
    pub write: Lit,
    /// It is a fence, by kind (F, MFENCE, SYNC, ...), or a PGAS event
    /// (ISSUE, POPA, POPB, BAR): (set name, literal).
    pub fences: Vec<(&'static str, Lit)>,
    /// A PGAS `popa`/`popb` slot: outside program order (thesis §8.2).
    pub pop: bool,
    /// It belongs to a locked/atomic instruction (set A).
    pub atomic: Lit,
    /// Address: W+1 bits; the top bit marks the lock cell.
    pub addr: Bv,
    /// Value read or written (W bits).
    pub value: Bv,
    /// The instructions that may produce it: (index in `Thread::instrs`, sel literal).
    pub instrs: Vec<(usize, Lit)>,
    /// Can be a read / a write at all (static over-approximation).
    pub may_read: bool,
    /// See `may_read`.
    pub may_write: bool,
}

/// The unrolling of one thread.
#[derive(Clone, Debug)]
pub struct ThreadUnroll {
    /// Per step: candidate instructions (index, sel literal).
    pub sel: Vec<Vec<(usize, Lit)>>,
    /// Per step: the step executes.
    pub exec: Vec<Lit>,
    /// Control state after the last executed step: (state, literal).
    pub at_end: Vec<(StateId, Lit)>,
    /// Register values after the last executed step.
    pub regs_end: Vec<Bv>,
    /// True when some path is longer than the bound (a state reachable in
    /// exactly K steps still has outgoing instructions).
    pub truncated: bool,
}

/// A dependency edge from a read to a later event of the same thread.
pub type DepEdge = (usize, usize, Lit);

/// The unrolled program.
pub struct Unrolled {
    /// All events, thread by thread, in po order within a thread.
    pub events: Vec<Event>,
    /// Per thread.
    pub threads: Vec<ThreadUnroll>,
    /// rmw pairs (read, write, literal).
    pub rmw: Vec<DepEdge>,
    /// addr dependencies (read, event, literal).
    pub addr_dep: Vec<DepEdge>,
    /// data dependencies.
    pub data_dep: Vec<DepEdge>,
    /// ctrl dependencies.
    pub ctrl_dep: Vec<DepEdge>,
    /// The value width W.
    pub width: u32,
    /// The bound K.
    pub bound: u32,
}

/// Options of the unrolling.
#[derive(Clone, Copy, Debug)]
pub struct UnrollOpts {
    /// K.
    pub bound: u32,
    /// W.
    pub width: u32,
    /// Compute addr/data/ctrl.
    pub deps: bool,
}

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
                let mut v = self.eval(e, regs);
                v.push(self.cnf.ff());
                v
            }
            AddrSrc::Lock => {
                let mut v = self.cnf.bv_const(0, self.w);
                v.push(self.cnf.tt());
                v
            }
        }
    }
}

fn vars_of(e: &LExpr) -> BTreeSet<RegId> {
    let mut s = BTreeSet::new();
    e.for_each_var(&mut |r| {
        s.insert(r);
    });
    s
}

/// Per slot of a step, what one candidate instruction contributes.
struct SlotContrib {
    sel: Lit,
    kind: SlotKind,
    addr: Option<Bv>,
    value: Option<Bv>,
    addr_regs: BTreeSet<RegId>,
    value_regs: BTreeSet<RegId>,
    atomic: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum SlotKind {
    Read,
    Write,
    CondWrite,
    Fence(Fence),
    Issue,
    PopA,
    PopB,
    Barrier,
}

/// Unrolls `p` to `opts.bound` steps per thread, adding the control-flow,
/// dataflow and event-kind constraints to `cnf`.
pub fn unroll(p: &Program, cnf: &mut Cnf, opts: UnrollOpts) -> Unrolled {
    let w = opts.width;
    let k = opts.bound as usize;
    let mut events: Vec<Event> = Vec::new();
    let mut threads = Vec::new();
    let mut rmw = Vec::new();
    let (mut addr_dep, mut data_dep, mut ctrl_dep) = (Vec::new(), Vec::new(), Vec::new());
    for (ti, th) in p.threads.iter().enumerate() {
        let tid = ThreadId(ti as u32);
        let out = th.outgoing();
        let micro: Vec<Vec<Micro>> = th
            .instrs
            .iter()
            .map(|ins| {
                let mut v = Vec::new();
                micro_ops(&ins.cmd, p.nodes, &mut v);
                v
            })
            .collect();
        let is_atomic: Vec<bool> = th
            .instrs
            .iter()
            .map(|i| matches!(i.cmd, Command::Atomic(_) | Command::Lock | Command::Unlock))
            .collect();
        let mut ctx = Ctx { cnf, w };
        let mut regs: Vec<Bv> = th
            .reg_init
            .iter()
            .map(|v| ctx.cnf.bv_const(*v, w))
            .collect();
        // Taint: per register, read event id → literal.
        let mut taint: Vec<BTreeMap<usize, Lit>> = vec![BTreeMap::new(); th.regs.len()];
        // Reads that reached an assume so far (ctrl prefix): read id → literal.
        let mut ctrl_prefix: BTreeMap<usize, Lit> = BTreeMap::new();
        // Load-reserve tracking: candidate reservations (read event id → "is the live reservation").
        let mut reservations: Vec<(usize, Lit)> = Vec::new();
        // `at`: control state after min(i, executed steps) steps (for goals);
        // `cur`: control state after exactly i executed steps (candidates).
        let mut at: BTreeMap<StateId, Lit> = BTreeMap::new();
        at.insert(th.initial, ctx.cnf.tt());
        let mut cur: BTreeMap<StateId, Lit> = at.clone();
        let mut sel_steps = Vec::new();
        let mut exec_steps: Vec<Lit> = Vec::new();
        let mut prev_exec = ctx.cnf.tt();
        for step in 0..k {
            let cands: Vec<usize> = cur
                .keys()
                .flat_map(|q| out[q.0 as usize].iter().copied())
                .collect();
            if cands.is_empty() {
                break;
            }
            let sels: Vec<(usize, Lit)> = cands.iter().map(|&i| (i, ctx.cnf.fresh())).collect();
            let sel_lits: Vec<Lit> = sels.iter().map(|s| s.1).collect();
            ctx.cnf.at_most_one(&sel_lits);
            let ex = ctx.cnf.or_all(&sel_lits);
            ctx.cnf.implies(ex, prev_exec);
            for &(i, s) in &sels {
                let from = th.instrs[i].from;
                let a = cur[&from];
                ctx.cnf.implies(s, a);
            }
            // Execute each candidate's micro-ops symbolically.
            let mut slots: Vec<Vec<SlotContrib>> = Vec::new();
            let mut new_regs: Vec<Vec<(Lit, Bv)>> = vec![Vec::new(); th.regs.len()];
            let mut new_taint: Vec<Vec<(Lit, BTreeMap<usize, Lit>)>> =
                vec![Vec::new(); th.regs.len()];
            // Events of this step are allocated after slot contributions are known;
            // reads' values are fresh bit-vectors created per slot.
            let base_id = events.len();
            let max_slots = sels
                .iter()
                .map(|(i, _)| {
                    micro[*i]
                        .iter()
                        .filter(|m| {
                            !matches!(
                                m,
                                Micro::Assign { .. }
                                    | Micro::Assume(_)
                                    | Micro::PopA(_)
                                    | Micro::PopB(_)
                            )
                        })
                        .count()
                })
                .max()
                .unwrap_or(0);
            // PGAS pops get two slots of their own after every other slot,
            // so that a slot is either a pop for every candidate or none.
            let has_pops = sels
                .iter()
                .any(|(i, _)| micro[*i].iter().any(|m| matches!(m, Micro::PopA(_))));
            let pop_base = max_slots;
            let n_vals = max_slots + if has_pops { 2 } else { 0 };
            let read_vals: Vec<Bv> = (0..n_vals)
                .map(|_| (0..w).map(|_| ctx.cnf.fresh()).collect())
                .collect();
            let sc_success: Lit = ctx.cnf.fresh();
            let mut assume_taint: Vec<(Lit, BTreeMap<usize, Lit>)> = Vec::new();
            for &(i, s) in &sels {
                let mut local = regs.clone();
                let mut ltaint = taint.clone();
                let mut written: BTreeSet<RegId> = BTreeSet::new();
                let mut slot = 0usize;
                let mut popa_val: Option<Bv> = None;
                for m in &micro[i] {
                    match m {
                        Micro::Issue(q) => {
                            let v = ctx.eval(q, &local);
                            push_slot(
                                &mut slots,
                                slot,
                                SlotContrib {
                                    sel: s,
                                    kind: SlotKind::Issue,
                                    addr: None,
                                    value: Some(v),
                                    addr_regs: BTreeSet::new(),
                                    value_regs: BTreeSet::new(),
                                    atomic: is_atomic[i],
                                },
                            );
                            slot += 1;
                        }
                        Micro::Barrier => {
                            push_slot(
                                &mut slots,
                                slot,
                                SlotContrib {
                                    sel: s,
                                    kind: SlotKind::Barrier,
                                    addr: None,
                                    value: None,
                                    addr_regs: BTreeSet::new(),
                                    value_regs: BTreeSet::new(),
                                    atomic: is_atomic[i],
                                },
                            );
                            slot += 1;
                        }
                        Micro::PopA(e) | Micro::PopB(e) => {
                            let is_a = matches!(m, Micro::PopA(_));
                            let ps = pop_base + usize::from(!is_a);
                            let a = ctx.addr(&AddrSrc::Expr(e.clone()), &local);
                            let value = if is_a {
                                popa_val = Some(read_vals[ps].clone());
                                None
                            } else {
                                popa_val.clone()
                            };
                            push_slot(
                                &mut slots,
                                ps,
                                SlotContrib {
                                    sel: s,
                                    kind: if is_a { SlotKind::PopA } else { SlotKind::PopB },
                                    addr: Some(a),
                                    value,
                                    addr_regs: vars_of(e),
                                    value_regs: BTreeSet::new(),
                                    atomic: false,
                                },
                            );
                        }
                        Micro::Assign { reg, value } => {
                            let v = ctx.eval(value, &local);
                            if opts.deps {
                                ltaint[reg.0 as usize] =
                                    union_taint(ctx.cnf, &ltaint, &vars_of(value));
                            }
                            local[reg.0 as usize] = v;
                            written.insert(*reg);
                        }
                        Micro::Assume(e) => {
                            let v = ctx.eval(e, &local);
                            let nz = ctx.cnf.bv_nonzero(&v);
                            ctx.cnf.implies(s, nz);
                            if opts.deps {
                                let t = union_taint(ctx.cnf, &ltaint, &vars_of(e));
                                assume_taint.push((s, t));
                            }
                        }
                        Micro::Fence(f) => {
                            push_slot(
                                &mut slots,
                                slot,
                                SlotContrib {
                                    sel: s,
                                    kind: SlotKind::Fence(*f),
                                    addr: None,
                                    value: None,
                                    addr_regs: BTreeSet::new(),
                                    value_regs: BTreeSet::new(),
                                    atomic: is_atomic[i],
                                },
                            );
                            slot += 1;
                        }
                        Micro::Load {
                            reg,
                            addr,
                            expect,
                            reserve,
                        } => {
                            let a = ctx.addr(addr, &local);
                            let v = read_vals[slot].clone();
                            if let Some(x) = expect {
                                let c = ctx.cnf.bv_const(*x, w);
                                let eq = ctx.cnf.bv_eq(&v, &c);
                                ctx.cnf.implies(s, eq);
                            }
                            let addr_regs = match addr {
                                AddrSrc::Expr(e) => vars_of(e),
                                AddrSrc::Lock => BTreeSet::new(),
                            };
                            if let Some(r) = reg {
                                local[r.0 as usize] = v;
                                written.insert(*r);
                                if opts.deps {
                                    let mut t = BTreeMap::new();
                                    t.insert(base_id + slot, ctx.cnf.tt());
                                    ltaint[r.0 as usize] = t;
                                }
                            }
                            if *reserve {
                                reservations.push((base_id + slot, s));
                            }
                            push_slot(
                                &mut slots,
                                slot,
                                SlotContrib {
                                    sel: s,
                                    kind: SlotKind::Read,
                                    addr: Some(a),
                                    value: None,
                                    addr_regs,
                                    value_regs: BTreeSet::new(),
                                    atomic: is_atomic[i],
                                },
                            );
                            slot += 1;
                        }
                        Micro::Store {
                            addr,
                            value,
                            cond_flag,
                        } => {
                            let a = ctx.addr(addr, &local);
                            let v = ctx.eval(value, &local);
                            let addr_regs = match addr {
                                AddrSrc::Expr(e) => vars_of(e),
                                AddrSrc::Lock => BTreeSet::new(),
                            };
                            let kind = if let Some(f) = cond_flag {
                                local[f.0 as usize] = ctx.cnf.bv_from_bool(sc_success, w);
                                written.insert(*f);
                                if opts.deps {
                                    ltaint[f.0 as usize] = BTreeMap::new();
                                }
                                SlotKind::CondWrite
                            } else {
                                SlotKind::Write
                            };
                            push_slot(
                                &mut slots,
                                slot,
                                SlotContrib {
                                    sel: s,
                                    kind,
                                    addr: Some(a),
                                    value: Some(v),
                                    addr_regs,
                                    value_regs: vars_of(value),
                                    atomic: is_atomic[i],
                                },
                            );
                            slot += 1;
                        }
                    }
                }
                for r in written {
                    new_regs[r.0 as usize].push((s, local[r.0 as usize].clone()));
                    if opts.deps {
                        new_taint[r.0 as usize].push((s, ltaint[r.0 as usize].clone()));
                    }
                }
            }
            // Build the events of this step.
            let mut cond_write_event: Option<(usize, Lit)> = None;
            for (si, contribs) in slots.iter().enumerate() {
                let id = events.len();
                debug_assert_eq!(id, base_id + si);
                let mut reads = Vec::new();
                let mut writes = Vec::new();
                let mut fences: BTreeMap<&'static str, Vec<Lit>> = BTreeMap::new();
                let mut atomic = Vec::new();
                let mut addr: Option<Bv> = None;
                let mut value: Option<Bv> = None;
                for c in contribs {
                    match c.kind {
                        SlotKind::Read => reads.push(c.sel),
                        SlotKind::Write => writes.push(c.sel),
                        SlotKind::CondWrite => {
                            let l = ctx.cnf.and(c.sel, sc_success);
                            writes.push(l);
                            cond_write_event = Some((id, c.sel));
                        }
                        SlotKind::Fence(f) => {
                            fences.entry("F").or_default().push(c.sel);
                            for name in fence_sets(f) {
                                fences.entry(name).or_default().push(c.sel);
                            }
                        }
                        SlotKind::Issue => fences.entry("ISSUE").or_default().push(c.sel),
                        SlotKind::Barrier => fences.entry("BAR").or_default().push(c.sel),
                        SlotKind::PopA => {
                            reads.push(c.sel);
                            fences.entry("POPA").or_default().push(c.sel);
                        }
                        SlotKind::PopB => {
                            writes.push(c.sel);
                            fences.entry("POPB").or_default().push(c.sel);
                        }
                    }
                    if c.atomic {
                        atomic.push(c.sel);
                    }
                    if let Some(a) = &c.addr {
                        addr = Some(match addr {
                            None => a.clone(),
                            Some(prev) => ctx.cnf.bv_ite(c.sel, a, &prev),
                        });
                    }
                    if matches!(c.kind, SlotKind::Read | SlotKind::PopA) {
                        value = Some(match value {
                            None => read_vals[si].clone(),
                            Some(prev) => ctx.cnf.bv_ite(c.sel, &read_vals[si], &prev),
                        });
                    } else if let Some(v) = &c.value {
                        value = Some(match value {
                            None => v.clone(),
                            Some(prev) => ctx.cnf.bv_ite(c.sel, v, &prev),
                        });
                    }
                }
                let read = ctx.cnf.or_all(&reads);
                let write = ctx.cnf.or_all(&writes);
                let all: Vec<Lit> = contribs.iter().map(|c| c.sel).collect();
                let mut exec = ctx.cnf.or_all(&all);
                if cond_write_event.map(|e| e.0) == Some(id) && contribs.len() == 1 {
                    exec = write;
                }
                let fences: Vec<(&'static str, Lit)> = fences
                    .into_iter()
                    .map(|(n, ls)| (n, ctx.cnf.or_all(&ls)))
                    .collect();
                let atomic = ctx.cnf.or_all(&atomic);
                let zero_addr = {
                    let mut z = ctx.cnf.bv_const(0, w);
                    z.push(ctx.cnf.ff());
                    z
                };
                events.push(Event {
                    id,
                    thread: tid,
                    step: step as u32,
                    slot: si as u32,
                    exec,
                    read,
                    write,
                    fences,
                    atomic,
                    addr: addr.unwrap_or(zero_addr),
                    value: value.unwrap_or_else(|| ctx.cnf.bv_const(0, w)),
                    instrs: contribs
                        .iter()
                        .map(|c| {
                            (
                                sels.iter().find(|s| s.1 == c.sel).map(|s| s.0).unwrap_or(0),
                                c.sel,
                            )
                        })
                        .collect(),
                    pop: contribs
                        .iter()
                        .any(|c| matches!(c.kind, SlotKind::PopA | SlotKind::PopB)),
                    may_read: !reads.is_empty(),
                    may_write: !writes.is_empty(),
                });
                // Static rmw pairs of atomic instructions: read slot r, write slot w of one instruction.
                for c in contribs
                    .iter()
                    .filter(|c| c.atomic && matches!(c.kind, SlotKind::Write))
                {
                    for (ri, rc) in slots.iter().enumerate().take(si) {
                        if rc
                            .iter()
                            .any(|x| x.sel == c.sel && matches!(x.kind, SlotKind::Read))
                        {
                            rmw.push((base_id + ri, id, c.sel));
                        }
                    }
                }
                // Dependencies into this event.
                if opts.deps {
                    for c in contribs {
                        for (src, l) in union_taint(ctx.cnf, &taint, &c.addr_regs) {
                            let e = ctx.cnf.and(l, c.sel);
                            addr_dep.push((src, id, e));
                        }
                        if matches!(c.kind, SlotKind::Write | SlotKind::CondWrite) {
                            for (src, l) in union_taint(ctx.cnf, &taint, &c.value_regs) {
                                let e = ctx.cnf.and(l, c.sel);
                                data_dep.push((src, id, e));
                            }
                        }
                    }
                    let ev_exec = events[id].exec;
                    for (&src, &l) in &ctrl_prefix {
                        let e = ctx.cnf.and(l, ev_exec);
                        ctrl_dep.push((src, id, e));
                    }
                }
            }
            // Store-conditional: success needs the live reservation (same address).
            if let Some((wid, wsel)) = cond_write_event {
                let mut pair_lits = Vec::new();
                for &(rid, rsel) in reservations.iter().filter(|r| r.0 < wid) {
                    // Live: no later reservation/store-conditional selected in between.
                    let mut live = rsel;
                    for &(_, rsel2) in reservations.iter().filter(|r| r.0 > rid && r.0 < wid) {
                        live = ctx.cnf.and(live, !rsel2);
                    }
                    let eq = ctx.cnf.bv_eq(&events[rid].addr, &events[wid].addr);
                    let l = ctx.cnf.and_all(&[live, eq, sc_success, wsel]);
                    rmw.push((rid, wid, l));
                    pair_lits.push(l);
                }
                let any = ctx.cnf.or_all(&pair_lits);
                let succ_here = ctx.cnf.and(sc_success, wsel);
                ctx.cnf.implies(succ_here, any);
                // A store-conditional consumes the reservation.
                let consumed: Vec<(usize, Lit)> = reservations
                    .iter()
                    .map(|&(r, l)| (r, ctx.cnf.and(l, !wsel)))
                    .collect();
                reservations = consumed;
            }
            // ctrl prefix grows with assumes of this step.
            if opts.deps {
                for (s, t) in &assume_taint {
                    for (&src, &l) in t {
                        let e = ctx.cnf.and(*s, l);
                        let prev = ctrl_prefix.get(&src).copied().unwrap_or(ctx.cnf.ff());
                        ctrl_prefix.insert(src, ctx.cnf.or(prev, e));
                    }
                }
            }
            // Register update.
            for (r, ups) in new_regs.into_iter().enumerate() {
                let mut v = regs[r].clone();
                for (s, nv) in ups {
                    v = ctx.cnf.bv_ite(s, &nv, &v);
                }
                regs[r] = v;
            }
            if opts.deps {
                for (r, ups) in new_taint.into_iter().enumerate() {
                    if ups.is_empty() {
                        continue;
                    }
                    let mut t = taint[r].clone();
                    let any: Vec<Lit> = ups.iter().map(|u| u.0).collect();
                    let anyl = ctx.cnf.or_all(&any);
                    for v in t.values_mut() {
                        *v = ctx.cnf.and(*v, !anyl);
                    }
                    for (s, nt) in ups {
                        for (src, l) in nt {
                            let e = ctx.cnf.and(s, l);
                            let prev = t.get(&src).copied().unwrap_or(ctx.cnf.ff());
                            t.insert(src, ctx.cnf.or(prev, e));
                        }
                    }
                    taint[r] = t;
                }
            }
            // Control state after this step.
            let mut next: BTreeMap<StateId, Vec<Lit>> = BTreeMap::new();
            for &(i, s) in &sels {
                next.entry(th.instrs[i].to).or_default().push(s);
            }
            cur = next
                .iter()
                .map(|(q, ls)| (*q, ctx.cnf.or_all(ls)))
                .collect();
            for (&q, &l) in &at {
                let stay = ctx.cnf.and(l, !ex);
                next.entry(q).or_default().push(stay);
            }
            at = next
                .into_iter()
                .map(|(q, ls)| (q, ctx.cnf.or_all(&ls)))
                .collect();
            at.retain(|_, l| !ctx.cnf.is_false(*l));
            sel_steps.push(sels);
            exec_steps.push(ex);
            prev_exec = ex;
        }
        let truncated = sel_steps.len() == k && cur.keys().any(|q| !out[q.0 as usize].is_empty());
        threads.push(ThreadUnroll {
            sel: sel_steps,
            exec: exec_steps,
            at_end: at.into_iter().collect(),
            regs_end: regs,
            truncated,
        });
    }
    Unrolled {
        events,
        threads,
        rmw,
        addr_dep,
        data_dep,
        ctrl_dep,
        width: w,
        bound: opts.bound,
    }
}

fn union_taint(
    cnf: &mut Cnf,
    taint: &[BTreeMap<usize, Lit>],
    regs: &BTreeSet<RegId>,
) -> BTreeMap<usize, Lit> {
    let mut out: BTreeMap<usize, Vec<Lit>> = BTreeMap::new();
    for r in regs {
        for (&src, &l) in &taint[r.0 as usize] {
            out.entry(src).or_default().push(l);
        }
    }
    out.into_iter()
        .map(|(s, ls)| (s, cnf.or_all(&ls)))
        .collect()
}

fn push_slot(slots: &mut Vec<Vec<SlotContrib>>, slot: usize, c: SlotContrib) {
    while slots.len() <= slot {
        slots.push(Vec::new());
    }
    slots[slot].push(c);
}

/// The fence sets an event of fence `f` belongs to (besides `F`).
pub fn fence_sets(f: Fence) -> Vec<&'static str> {
    use crate::program::MembarMask as M;
    match f {
        Fence::MFence => vec!["MFENCE"],
        Fence::Sync => vec!["SYNC"],
        Fence::LwSync => vec!["LWSYNC"],
        Fence::ISync => vec!["ISYNC"],
        Fence::Eieio => vec!["EIEIO"],
        Fence::Membar(m) => {
            let mut v = vec!["MEMBAR"];
            for (name, bit) in [
                ("MembarLL", M::LL),
                ("MembarLS", M::LS),
                ("MembarSL", M::SL),
                ("MembarSS", M::SS),
            ] {
                if m.0 & bit != 0 {
                    v.push(name);
                }
            }
            v
        }
    }
}
