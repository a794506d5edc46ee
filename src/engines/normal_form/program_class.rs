//! The programs the normal-form engine decides, and their commands
//! reduced to the operations of the store-buffer semantics (thesis `003_…`
//! §2.4.2, Table 2.2, with the per-address buffers of PSO, §5.2) and of
//! RMO (§5.1).
//!
//! Accepted: loads, stores, local commands (assignments, `assume`,
//! guards, selects, `nop`), barriers, `lock`/`unlock` and single-location
//! atomic steps. Everything else is refused with a located error naming
//! the construct (never answered wrongly): `lwarx`/`stwcx.`, PGAS
//! commands and `rank`/`nodes`, atomic steps over several addresses and
//! lock sections with more than a load then a store of one address
//! (robustness takes hb with each such section contracted to one node,
//! `Program::section_beyond_rmw`; this engine's hb is over events),
//! nested atomics; under RMO also guards, selects and pick assignments
//! outside atomic steps (their dependencies are not RMO's). Values are
//! W-bit integers
//! (W ≤ 32), so the data domain is finite (thesis §2.3) for every
//! accepted program.
//!
//! Under Power (the part the engine decides) also: `lwsync` and `eieio`,
//! `lock`/`unlock` and atomic steps, and a third thread with memory
//! accesses; barriers `power.cat` does not read (`mfence`, `membar`, Arm
//! and RISC-V barriers) order nothing there, as in the bounded engine.
//!
//! Barriers as the `tso.cat` / `pso.cat` / `rmo.cat` models read them:
//! `mfence` and `sync` order every pair; a `membar` orders the pairs its
//! mask names (#StoreLoad: stores before later loads, #StoreStore: stores
//! before later stores; #LoadLoad and #LoadStore are implied by the
//! store-buffer models, RMO reads them);
//! every other barrier orders nothing. `lock` is an atomic
//! read-modify-write of a reserved lock cell that must read 0 and writes
//! 1, `unlock` an atomic write of 0 (docs/models.md, "Locks"); atomic
//! steps drain the thread's buffers before and after (the set `A`).

use super::Model;
use crate::diag::Error;
use crate::program::{
    Ann, Command, Expr, Fence, Instr, LExpr, MembarMask, Program, RegId, ThreadId, Width,
};

/// The address of the lock cell: outside every W-bit address (W ≤ 32).
pub(crate) const LOCK_ADDR: i64 = i64::MIN;

/// The address of an access: an expression over the thread's registers,
/// or the lock cell.
#[derive(Clone, Debug)]
pub(crate) enum Addr {
    /// `mem[e]`.
    Expr(LExpr),
    /// The lock cell ([`LOCK_ADDR`]).
    Lock,
}

/// One step inside an atomic block.
#[derive(Clone, Debug)]
pub(crate) enum Micro {
    /// A read into `reg` (none for the lock), blocking unless it reads
    /// `expect` when given.
    Load {
        /// Destination register.
        reg: Option<RegId>,
        /// Address.
        addr: Addr,
        /// The value the read must return (`lock` reads 0).
        expect: Option<i64>,
    },
    /// A write of `value` to `addr`.
    Store {
        /// Address.
        addr: Addr,
        /// Value.
        value: LExpr,
    },
    /// A local command (assignment, assume, guard, select, nop).
    Local(Command),
}

/// The operation of one instruction in the store-buffer semantics.
#[derive(Clone, Debug)]
pub(crate) enum Op {
    /// A local command: no memory event.
    Local(Command),
    /// `reg <- mem[addr]`: reads the thread's newest buffered store to
    /// the address, else memory.
    Load {
        /// Destination register.
        reg: RegId,
        /// Address.
        addr: LExpr,
    },
    /// `mem[addr] <- value`: enters the buffer, reaches memory later.
    Store {
        /// Address.
        addr: LExpr,
        /// Value.
        value: LExpr,
    },
    /// A barrier: the pairs of access kinds (earlier, later) it orders.
    /// The store-buffer models read `sl` and `ss` only (their loads are
    /// ordered with every later access already); RMO reads all four.
    Fence {
        /// #LoadLoad: earlier loads before later loads.
        ll: bool,
        /// #LoadStore: earlier loads before later stores.
        ls: bool,
        /// #StoreLoad: earlier stores before later loads.
        sl: bool,
        /// #StoreStore: earlier stores before later stores.
        ss: bool,
        /// Power `isync` (thesis §4.1, POW-COMMIT and POW-LOAD): it
        /// commits after the earlier `assume`s commit and the earlier
        /// accesses' addresses are computed, and later loads happen and
        /// later accesses commit after it. Read by Power only; the other
        /// models read `isync` as ordering nothing.
        isync: bool,
    },
    /// An atomic step on memory, after the thread's buffers drained.
    Atomic(Vec<Micro>),
}

impl Op {
    /// The number of memory events of the operation (marks of the cycle
    /// search pick one of them by its index).
    pub(crate) fn accesses(&self) -> usize {
        match self {
            Op::Load { .. } | Op::Store { .. } => 1,
            Op::Atomic(ms) => ms.iter().filter(|m| !matches!(m, Micro::Local(_))).count(),
            _ => 0,
        }
    }
}

/// The operations of every instruction: `ops[t][i]` for instruction `i`
/// of thread `t`.
///
/// Errors: a construct outside the accepted class, located at its
/// instruction when the program has a source (`Error::Input`), else
/// `Error::Unsupported`.
pub(crate) fn classify(p: &Program, model: Model) -> Result<Vec<Vec<Op>>, Error> {
    if p.nodes.is_some() {
        return Err(Error::Unsupported(
            "a PGAS program: the normal-form engine decides it under --model pgas".into(),
        ));
    }
    // Its hb is over events; a section over which a contracted cycle can
    // pass is beyond it (docs/models.md, "Robustness and indivisible
    // sections").
    if let Some((t, i, what)) = p.section_beyond_rmw() {
        return Err(refuse(p, t, &p.threads[t.0 as usize].instrs[i], &what));
    }
    // Under Power the barriers are read as the built-in Power model
    // (`power.cat`, the bounded engine's) reads them.
    let power = match model {
        Model::Power => Some(crate::cat::builtin("power")?),
        _ => None,
    };
    let mut out = Vec::new();
    for (ti, t) in p.threads.iter().enumerate() {
        // Its ctrldep reaches every event after an assume (thesis §4.1).
        if model == Model::Rmo && t.ctrl_reg.is_some() {
            return Err(Error::Unsupported(format!(
                "thread `{}`: herd's C `if` (ctrl to the events of its branches only) is not \
                 modelled by the normal-form robustness engine",
                p.thread_name(ThreadId(ti as u32))
            )));
        }
        let mut ops = Vec::new();
        for ins in &t.instrs {
            let op = op_of(&ins.cmd)
                .and_then(|op| {
                    if model.commits() {
                        rmo_local(&ins.cmd)?;
                    }
                    match &power {
                        Some(m) => power_op(&ins.cmd, op, m),
                        None => Ok(op),
                    }
                })
                .map_err(|what| refuse(p, ThreadId(ti as u32), ins, &what))?;
            ops.push(op);
        }
        out.push(ops);
    }
    if model == Model::Power {
        power_threads(p, &out)?;
    }
    Ok(out)
}

/// The most threads with memory accesses a Power program may have: with
/// two, a store is seen by the other thread from one point on and by its
/// own thread earlier only as an early read, so the store-atomic
/// automaton serves (thesis §4.1 read with one other thread; the
/// propagation events of §4.4.1 are needed from three threads on).
pub(crate) const POWER_MAX_THREADS: usize = 2;

/// Under Power, the operation of a command, or the construct outside the
/// modelled part: barriers other than `sync` and `isync` that the Power
/// model `power` reads (`lwsync`, `eieio`), `lock`/`unlock` and atomic
/// steps (a Power read-modify-write is `lwarx`/`stwcx.`, which orders
/// nothing by itself). A barrier `power` does not read (x86 `mfence`,
/// SPARC `membar`, Arm and RISC-V barriers: `power.cat` orders nothing
/// with them, [`crate::cat::base::reads_fence`]) is a step that orders
/// nothing, as the bounded engine's Power reads it.
///
/// `isync` is in (thesis §4.1, POW-COMMIT, POW-LOAD; §4.4.3 "Fourth"):
/// it orders only the thread's own commits and load events and has no
/// propagation, so the two-thread argument of [`POWER_MAX_THREADS`]
/// holds with it (see `rmo.rs`, `Automaton::exec_rmo`).
///
/// `lwsync` is out: with two threads its ordering of the stores before
/// it and after it holds for their propagation to the other thread only
/// (POW-PROP-SYNC, POW-PROP-STORE), not for their places in the
/// coherence order (a store commits after the `lwsync` commits, which
/// waits for the earlier stores' commits, not their propagation). A
/// store that the other thread never sees can so be coherence-before
/// that thread's store while an earlier store of its thread is still
/// unseen there: `R+lwsync+sync` (`x = 1; lwsync; y = 1 ‖ y = 2; sync;
/// r = x` with `y = 2` last and `r = 0`) is a Power computation with no
/// store-atomic counterpart, so the one-memory automaton would miss it.
/// Deciding `lwsync` needs a store's commit and its propagation as two
/// events (the per-thread memories of §4.4.1).
fn power_op(c: &Command, op: Op, power: &crate::cat::Model) -> Result<Op, String> {
    match (c, &op) {
        (Command::Ann(_, inner) | Command::Tagged(_, inner), _) => power_op(inner, op, power),
        (Command::Fence(Fence::Sync | Fence::ISync), _) => Ok(op),
        (Command::Fence(Fence::LwSync), _) => Err(
            "`lwsync` under Power (its cumulativity separates a store's coherence place from \
             its propagation, which the engine does not model; it decides `sync` and `isync`)"
                .into(),
        ),
        (Command::Fence(f), _) if !crate::cat::base::reads_fence(power, *f) => {
            Ok(fence_op(Fence::Marker))
        }
        (Command::Fence(f), _) => Err(format!(
            "`{}` under Power (the engine models the barriers `sync` and `isync` only)",
            f.keyword()
        )),
        (_, Op::Atomic(_)) => Err("an atomic step or `lock`/`unlock` under Power".into()),
        _ => Ok(op),
    }
}

/// Refuses a Power program with more than [`POWER_MAX_THREADS`] threads
/// that access memory, located at the first access of the first thread
/// beyond them.
fn power_threads(p: &Program, ops: &[Vec<Op>]) -> Result<(), Error> {
    let mut seen = 0;
    for (ti, o) in ops.iter().enumerate() {
        let Some(i) = o.iter().position(|op| op.accesses() > 0) else {
            continue;
        };
        seen += 1;
        if seen > POWER_MAX_THREADS {
            let what = format!(
                "a third thread with memory accesses under Power (the engine decides \
                 Power for at most {POWER_MAX_THREADS} such threads: the propagation of \
                 stores between three or more threads is not modelled)"
            );
            return Err(refuse(
                p,
                ThreadId(ti as u32),
                &p.threads[ti].instrs[i],
                &what,
            ));
        }
    }
    Ok(())
}

pub(super) fn refuse(p: &Program, t: ThreadId, ins: &Instr, what: &str) -> Error {
    let msg = format!(
        "{what} is not modelled by the normal-form robustness engine (thread `{}`, {} -> {})",
        p.thread_name(t),
        p.state_name(t, ins.from),
        p.state_name(t, ins.to)
    );
    match &p.source {
        Some(f) if ins.span.end > ins.span.start || ins.span.start > 0 => f.error(ins.span, msg),
        _ => Error::Unsupported(msg),
    }
}

fn no_spmd(es: &[&LExpr]) -> Result<(), String> {
    if es.iter().any(|e| e.mentions_spmd()) {
        Err("`rank`/`nodes`".into())
    } else {
        Ok(())
    }
}

/// The barrier of `f` as the SPARC models read it: `mfence` and `sync`
/// order every pair, `membar` the pairs of its mask, every other barrier
/// nothing (under TSO the automaton adds #StoreStore after every store,
/// thesis §5.3).
fn fence_op(f: Fence) -> Op {
    let bits = |m: MembarMask| Op::Fence {
        ll: m.orders(false, false),
        ls: m.orders(false, true),
        sl: m.orders(true, false),
        ss: m.orders(true, true),
        isync: false,
    };
    match f {
        Fence::MFence | Fence::Sync => bits(MembarMask(
            MembarMask::LL | MembarMask::LS | MembarMask::SL | MembarMask::SS,
        )),
        Fence::Membar(m) => bits(m),
        Fence::ISync => Op::Fence {
            ll: false,
            ls: false,
            sl: false,
            ss: false,
            isync: true,
        },
        _ => bits(MembarMask(0)),
    }
}

fn op_of(c: &Command) -> Result<Op, String> {
    match c {
        Command::Load { reg, addr } => {
            no_spmd(&[addr])?;
            Ok(Op::Load {
                reg: *reg,
                addr: addr.clone(),
            })
        }
        Command::Store { addr, value } => {
            no_spmd(&[addr, value])?;
            Ok(Op::Store {
                addr: addr.clone(),
                value: value.clone(),
            })
        }
        Command::Fence(f) => Ok(fence_op(*f)),
        Command::Lock => Ok(Op::Atomic(vec![
            Micro::Load {
                reg: None,
                addr: Addr::Lock,
                expect: Some(0),
            },
            Micro::Store {
                addr: Addr::Lock,
                value: Expr::Const(1),
            },
        ])),
        Command::Unlock => Ok(Op::Atomic(vec![Micro::Store {
            addr: Addr::Lock,
            value: Expr::Const(0),
        }])),
        Command::Atomic(cs) => {
            let ms = cs.iter().map(micro_of).collect::<Result<Vec<_>, _>>()?;
            Ok(Op::Atomic(ms))
        }
        Command::Ann(_, inner) | Command::Tagged(_, inner) => op_of(inner),
        _ => {
            local(c)?;
            Ok(Op::Local(c.clone()))
        }
    }
}

/// The local commands RMO's dependencies are not defined for (thesis
/// §4.1 defines addrdep, datadep and ctrldep over assignments and
/// `assume` only): outside an atomic step a `guard` (an `assume` without
/// a control dependency), a `select` and a pick-annotated assignment
/// (whose dependencies are Arm's pick dependencies) are refused. Inside
/// an atomic step they are harmless: the step is ordered with every
/// access before and after it.
fn rmo_local(c: &Command) -> Result<(), String> {
    match c {
        Command::Guard(_) => Err("`guard` (an assume without control dependency) under RMO".into()),
        Command::Select { .. } => Err("`select` (pick dependencies) under RMO".into()),
        Command::Ann(a, inner)
            if a.0 & Ann::PICK != 0 && matches!(**inner, Command::Assign { .. }) =>
        {
            Err("a pick-annotated assignment under RMO".into())
        }
        Command::Ann(_, inner) | Command::Tagged(_, inner) => rmo_local(inner),
        _ => Ok(()),
    }
}

fn local(c: &Command) -> Result<(), String> {
    match c {
        Command::Assign { value, .. } => no_spmd(&[value]),
        Command::Assume(e) | Command::Guard(e) => no_spmd(&[e]),
        Command::Select {
            cond, then, else_, ..
        } => no_spmd(&[cond, then, else_]),
        Command::Nop => Ok(()),
        Command::LoadReserve { .. } => Err("`lwarx` (load-reserve)".into()),
        Command::StoreCond { .. } => Err("`stwcx.` (store-conditional)".into()),
        Command::Pgas(_) => Err("a PGAS command".into()),
        Command::Atomic(_) => Err("a nested atomic step".into()),
        Command::Lock | Command::Unlock => Err("`lock`/`unlock` inside an atomic step".into()),
        Command::Fence(_) => Err("a barrier inside an atomic step".into()),
        Command::Ann(_, c) | Command::Tagged(_, c) => local(c),
        Command::Load { .. } | Command::Store { .. } => Ok(()),
    }
}

fn micro_of(c: &Command) -> Result<Micro, String> {
    match c {
        Command::Load { reg, addr } => {
            no_spmd(&[addr])?;
            Ok(Micro::Load {
                reg: Some(*reg),
                addr: Addr::Expr(addr.clone()),
                expect: None,
            })
        }
        Command::Store { addr, value } => {
            no_spmd(&[addr, value])?;
            Ok(Micro::Store {
                addr: Addr::Expr(addr.clone()),
                value: value.clone(),
            })
        }
        Command::Ann(_, inner) | Command::Tagged(_, inner) => micro_of(inner),
        _ => {
            local(c)?;
            Ok(Micro::Local(c.clone()))
        }
    }
}

/// Every (address, value) pair a store of the program writes, when every
/// store and atomic write of every thread writes a constant to a constant
/// address (`None` otherwise): the values written are then known from the
/// program text (the lock cell: `lock` writes 1, `unlock` 0).
pub(crate) fn stored_constants(ops: &[Vec<Op>], w: Width) -> Option<Vec<(i64, i64)>> {
    let mut out = Vec::new();
    for op in ops.iter().flatten() {
        match op {
            Op::Store { addr, value } => out.push((addr.as_const(w)?, value.as_const(w)?)),
            Op::Atomic(ms) => {
                for m in ms {
                    if let Micro::Store { addr, value } = m {
                        let a = match addr {
                            Addr::Expr(e) => e.as_const(w)?,
                            Addr::Lock => LOCK_ADDR,
                        };
                        out.push((a, value.as_const(w)?));
                    }
                }
            }
            Op::Load { .. } | Op::Local(_) | Op::Fence { .. } => {}
        }
    }
    out.sort_unstable();
    out.dedup();
    Some(out)
}

/// The addresses a thread may read and write, when every address of the
/// thread is a constant (`None` otherwise): a static over-approximation
/// that rules out hops (and so profiles and marks) between threads that
/// share no address.
#[derive(Clone, Debug, Default)]
pub(crate) struct Footprint {
    /// Addresses read.
    pub reads: Vec<i64>,
    /// Addresses written.
    pub writes: Vec<i64>,
}

impl Footprint {
    /// The footprint of the operations `ops` (`None`: some address is not
    /// a constant).
    pub(crate) fn of(ops: &[Op], w: crate::program::Width) -> Option<Footprint> {
        let mut f = Footprint::default();
        let konst = |a: &LExpr| a.as_const(w);
        for op in ops {
            match op {
                Op::Load { addr, .. } => f.reads.push(konst(addr)?),
                Op::Store { addr, .. } => f.writes.push(konst(addr)?),
                Op::Atomic(ms) => {
                    for m in ms {
                        let at = |a: &Addr| match a {
                            Addr::Expr(e) => konst(e),
                            Addr::Lock => Some(LOCK_ADDR),
                        };
                        match m {
                            Micro::Load { addr, .. } => f.reads.push(at(addr)?),
                            Micro::Store { addr, .. } => f.writes.push(at(addr)?),
                            Micro::Local(_) => {}
                        }
                    }
                }
                Op::Local(_) | Op::Fence { .. } => {}
            }
        }
        f.reads.sort_unstable();
        f.reads.dedup();
        f.writes.sort_unstable();
        f.writes.dedup();
        Some(f)
    }

    /// Whether an access (`write`, address `a`) of another thread can be
    /// related to this thread by co, rf or fr (in either direction).
    pub(crate) fn meets(&self, write: bool, a: i64) -> bool {
        self.writes.binary_search(&a).is_ok() || (write && self.reads.binary_search(&a).is_ok())
    }

    /// Whether some access of `self` can be related to some access of
    /// `other`.
    pub(crate) fn conflicts(&self, other: &Footprint) -> bool {
        self.reads.iter().any(|&a| other.meets(false, a))
            || self.writes.iter().any(|&a| other.meets(true, a))
    }
}
