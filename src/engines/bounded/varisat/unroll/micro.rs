//! Micro-operations: each instruction's command lowered to the steps it
//! performs in execution order (loads, stores, register assignments,
//! assumes, fences, PGAS issue/pop/barrier), and which instructions are
//! locked/atomic. Pure: creates no literals.

use crate::cat::base::Tag;
use crate::program::{Ann, BinOp, Command, Expr, Fence, LExpr, PgasCmd, RegId, Thread};
use std::collections::BTreeSet;

/// Where a micro-operation's address comes from.
#[derive(Clone, Debug)]
pub(super) enum AddrSrc {
    Expr(LExpr),
    Lock,
}

impl AddrSrc {
    /// The registers the address is computed from.
    pub(super) fn regs(&self) -> BTreeSet<RegId> {
        match self {
            AddrSrc::Expr(e) => vars_of(e),
            AddrSrc::Lock => BTreeSet::new(),
        }
    }
}

/// One step of a command, in execution order.
#[derive(Clone, Debug)]
pub(super) enum Micro {
    Load {
        reg: Option<RegId>,
        addr: AddrSrc,
        expect: Option<i64>,
        reserve: bool,
        /// Ordering annotations ([`crate::program::Ann`] bits).
        ann: u16,
        /// herd's tags ([`crate::program::Command::Tagged`]).
        tags: Vec<Tag>,
    },
    Store {
        addr: AddrSrc,
        value: LExpr,
        cond_flag: Option<RegId>,
        /// Ordering annotations ([`crate::program::Ann`] bits).
        ann: u16,
        /// herd's tags ([`crate::program::Command::Tagged`]).
        tags: Vec<Tag>,
    },
    /// `reg := cond ? then : else_` (taint: cond's, as pick paths, and
    /// the selected operand's).
    Select {
        reg: RegId,
        cond: LExpr,
        then: LExpr,
        else_: LExpr,
    },
    /// An assume without control dependency.
    Guard(LExpr),
    /// `reg := value`; `pick`: under [`crate::program::Ann::PICK`], every
    /// path from a read to `reg` becomes a pick path.
    Assign {
        reg: RegId,
        value: LExpr,
        pick: bool,
    },
    Assume(LExpr),
    /// A fence with herd's tags ([`crate::program::Command::Tagged`]).
    Fence(Fence, Vec<Tag>),
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

impl Micro {
    /// Whether it has an event in one of the step's ordinary slots
    /// (numbered in execution order); assignments and assumes have no
    /// event, and PGAS pops have slots of their own after the ordinary ones.
    pub(super) fn takes_slot(&self) -> bool {
        !matches!(
            self,
            Micro::Assign { .. }
                | Micro::Assume(_)
                | Micro::Guard(_)
                | Micro::Select { .. }
                | Micro::PopA(_)
                | Micro::PopB(_)
        )
    }
}

/// A thread's instructions as micro-operations.
pub(super) struct ThreadCode {
    /// Per instruction (index in `Thread::instrs`): its micro-ops.
    pub(super) micro: Vec<Vec<Micro>>,
    /// Per instruction: it is locked/atomic (`atomic {…}`, `lock`,
    /// `unlock`; its events are in set A).
    pub(super) atomic: Vec<bool>,
    /// [`Thread::ctrl_reg`]: the register whose taint is the ctrl prefix
    /// (herd's C `if`), or `None` (every executed assume's reads reach
    /// every later event).
    pub(super) ctrl_reg: Option<crate::program::RegId>,
}

impl ThreadCode {
    /// Lowers the instructions of `th`; `nodes` is the PGAS node count
    /// (`Program::nodes`), which bounds the remote rank of PGAS operations.
    pub(super) fn new(th: &Thread, nodes: Option<u32>) -> ThreadCode {
        let micro = th
            .instrs
            .iter()
            .map(|ins| {
                let mut v = Vec::new();
                micro_ops(&ins.cmd, nodes, (0, &[]), &mut v);
                v
            })
            .collect();
        let atomic = th
            .instrs
            .iter()
            .map(|i| matches!(i.cmd, Command::Atomic(_) | Command::Lock | Command::Unlock))
            .collect();
        ThreadCode {
            micro,
            atomic,
            ctrl_reg: th.ctrl_reg,
        }
    }

    /// The number of ordinary slots instruction `i` uses.
    pub(super) fn slots(&self, i: usize) -> usize {
        self.micro[i].iter().filter(|m| m.takes_slot()).count()
    }

    /// Whether instruction `i` is a PGAS remote operation (has a `popa`).
    pub(super) fn has_pops(&self, i: usize) -> bool {
        self.micro[i].iter().any(|m| matches!(m, Micro::PopA(_)))
    }
}

/// The registers `e` reads.
pub(super) fn vars_of(e: &LExpr) -> BTreeSet<RegId> {
    let mut s = BTreeSet::new();
    e.for_each_var(&mut |r| {
        s.insert(r);
    });
    s
}

/// Appends the micro-ops of `cmd` to `out`; `ann`: the annotations of an
/// enclosing [`Command::Ann`], `tags` the tags of an enclosing
/// [`Command::Tagged`].
fn micro_ops(cmd: &Command, nodes: Option<u32>, (ann, tags): (u16, &[Tag]), out: &mut Vec<Micro>) {
    let ctx = (ann, tags);
    let tags = tags.to_vec();
    match cmd {
        Command::Ann(a, c) => micro_ops(c, nodes, (ann | a.0, ctx.1), out),
        Command::Tagged(t, c) => {
            let mut all = ctx.1.to_vec();
            all.extend(t.names().iter().map(|n| Tag::new(n)));
            all.sort();
            all.dedup();
            micro_ops(c, nodes, (ann, &all), out)
        }
        Command::Guard(e) => out.push(Micro::Guard(e.clone())),
        Command::Select {
            reg,
            cond,
            then,
            else_,
        } => out.push(Micro::Select {
            reg: *reg,
            cond: cond.clone(),
            then: then.clone(),
            else_: else_.clone(),
        }),
        Command::Load { reg, addr } => out.push(Micro::Load {
            reg: Some(*reg),
            addr: AddrSrc::Expr(addr.clone()),
            expect: None,
            reserve: false,
            ann,
            tags: tags.clone(),
        }),
        Command::Store { addr, value } => out.push(Micro::Store {
            addr: AddrSrc::Expr(addr.clone()),
            value: value.clone(),
            cond_flag: None,
            ann,
            tags: tags.clone(),
        }),
        Command::Assign { reg, value } => out.push(Micro::Assign {
            reg: *reg,
            value: value.clone(),
            pick: ann & Ann::PICK != 0,
        }),
        Command::Assume(e) => out.push(Micro::Assume(e.clone())),
        Command::Fence(f) => out.push(Micro::Fence(*f, tags)),
        Command::Lock => {
            out.push(Micro::Load {
                reg: None,
                addr: AddrSrc::Lock,
                expect: Some(0),
                reserve: false,
                ann,
                tags: tags.clone(),
            });
            out.push(Micro::Store {
                addr: AddrSrc::Lock,
                value: Expr::Const(1),
                cond_flag: None,
                ann,
                tags: tags.clone(),
            });
        }
        Command::Unlock => out.push(Micro::Store {
            addr: AddrSrc::Lock,
            value: Expr::Const(0),
            cond_flag: None,
            ann,
            tags: tags.clone(),
        }),
        Command::Atomic(cs) => cs.iter().for_each(|c| micro_ops(c, nodes, ctx, out)),
        Command::Nop => {}
        Command::LoadReserve { reg, addr } => out.push(Micro::Load {
            reg: Some(*reg),
            addr: AddrSrc::Expr(addr.clone()),
            expect: None,
            reserve: true,
            ann,
            tags: tags.clone(),
        }),
        Command::StoreCond { addr, value, flag } => out.push(Micro::Store {
            addr: AddrSrc::Expr(addr.clone()),
            value: value.clone(),
            cond_flag: Some(*flag),
            ann,
            tags: tags.clone(),
        }),
        // PGAS (src/program/pgas.rs lowers the program first: `local`/`remote`
        // are global addresses here). A remote rank outside 1..N blocks.
        Command::Pgas(PgasCmd::Barrier) => out.push(Micro::Barrier),
        Command::Pgas(pc) => {
            if let Some([local, rank, remote, queue]) = pc.operands() {
                // A read copies remote → local; a write local → remote.
                let (src, dst) = match pc {
                    PgasCmd::Read { .. } => (remote, local),
                    _ => (local, remote),
                };
                pgas_op(rank, queue, src, dst, nodes, out)
            }
        }
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
    if let Some(n) = nodes {
        let lo = Expr::bin(BinOp::Le, Expr::Const(1), rank.clone());
        let hi = Expr::bin(BinOp::Le, rank.clone(), Expr::Const(n as i64));
        out.push(Micro::Assume(Expr::bin(BinOp::And, lo, hi)));
    }
    out.push(Micro::Issue(queue.clone()));
    out.push(Micro::PopA(src.clone()));
    out.push(Micro::PopB(dst.clone()));
}
