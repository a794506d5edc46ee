//! The PGAS programs the normal-form engine decides, and their commands
//! as the operations of the PGAS semantics (thesis `003_…` §8.1.2,
//! Table 8.1) on a program lowered for N ranks
//! ([`crate::program::pgas::lower`]: one thread per rank and thread of
//! the SPMD program, global addresses).
//!
//! Accepted: loads, stores, local commands (assignments, `assume`,
//! guards, selects, `nop`), remote `read`/`write`, `barrier`, atomic
//! steps with at most one memory access (a wait such as `atomic { d =
//! h; assume(d == 1); }`), and barriers of the CPU models, which
//! `pgas.cat` orders nothing with (a no-op). Refused with a located error
//! naming the construct: `lwarx`/`stwcx.`, `lock`/`unlock`, herd's tagged
//! accesses, atomic steps with two or more accesses (the trace of §8.2
//! has one node per access; a section over several is a node of its own
//! elsewhere in the tool, so no answer is given), and PGAS commands or
//! barriers inside an atomic step.

use crate::diag::Error;
use crate::engines::normal_form::program_class::refuse;
use crate::program::{Command, LExpr, PgasCmd, Program, RegId, ThreadId};

/// One step inside an atomic step.
#[derive(Clone, Debug)]
pub(crate) enum PMicro {
    /// `reg <- mem[addr]`.
    Load {
        /// Destination register.
        reg: RegId,
        /// Address.
        addr: LExpr,
    },
    /// `mem[addr] <- value`.
    Store {
        /// Address.
        addr: LExpr,
        /// Value.
        value: LExpr,
    },
    /// A local command.
    Local(Command),
}

/// The operation of one instruction in the PGAS semantics.
#[derive(Clone, Debug)]
pub(crate) enum POp {
    /// A local command (rules (assign), (assume)); barriers of the CPU
    /// models are `nop`.
    Local(Command),
    /// Rule (load) on the rank's memory.
    Load {
        /// Destination register.
        reg: RegId,
        /// Global address.
        addr: LExpr,
    },
    /// Rule (store) on the rank's memory.
    Store {
        /// Global address.
        addr: LExpr,
        /// Value.
        value: LExpr,
    },
    /// An indivisible sequence with at most one memory access.
    Atomic(Vec<PMicro>),
    /// Rules (read)/(write): the request enters queue `queue` of the
    /// thread; its `popa` reads the source, its `popb` writes the
    /// destination.
    Remote {
        /// `read` (source remote, destination local); else `write`.
        get: bool,
        /// Local global address.
        local: LExpr,
        /// The remote rank (1..=N; otherwise the operation blocks).
        rank: LExpr,
        /// Remote global address.
        remote: LExpr,
        /// Queue identifier.
        queue: LExpr,
    },
    /// Rule (bar): every thread takes part.
    Barrier,
}

/// The operations of every instruction of `p`, thread after thread.
///
/// Errors: the first construct outside the accepted class, located at its
/// instruction; an SPMD program not lowered ([`crate::program::pgas::lower`]).
pub(crate) fn classify(p: &Program) -> Result<Vec<Vec<POp>>, Error> {
    if p.nodes.is_none() && crate::program::pgas::is_spmd(p) {
        return Err(Error::Unsupported(
            "a PGAS program that is not lowered for its ranks (give the number of nodes)".into(),
        ));
    }
    let mut out = Vec::new();
    for (ti, t) in p.threads.iter().enumerate() {
        let mut ops = Vec::new();
        for ins in &t.instrs {
            let op = op_of(&ins.cmd).map_err(|what| refuse(p, ThreadId(ti as u32), ins, &what))?;
            ops.push(op);
        }
        out.push(ops);
    }
    Ok(out)
}

fn op_of(c: &Command) -> Result<POp, String> {
    Ok(match c {
        Command::Load { reg, addr } => POp::Load {
            reg: *reg,
            addr: addr.clone(),
        },
        Command::Store { addr, value } => POp::Store {
            addr: addr.clone(),
            value: value.clone(),
        },
        Command::Fence(_) => POp::Local(Command::Nop),
        Command::Atomic(cs) => {
            let ms = cs.iter().map(micro_of).collect::<Result<Vec<_>, _>>()?;
            let accesses = ms.iter().filter(|m| !matches!(m, PMicro::Local(_))).count();
            if accesses > 1 {
                return Err("an atomic step with two or more memory accesses (PGAS)".into());
            }
            POp::Atomic(ms)
        }
        Command::Pgas(PgasCmd::Barrier) => POp::Barrier,
        Command::Pgas(pc) => {
            let Some([local, rank, remote, queue]) = pc.operands() else {
                return Err("a PGAS command".into());
            };
            POp::Remote {
                get: matches!(pc, PgasCmd::Read { .. }),
                local: local.clone(),
                rank: rank.clone(),
                remote: remote.clone(),
                queue: queue.clone(),
            }
        }
        Command::Ann(_, inner) => op_of(inner)?,
        _ => POp::Local(local(c)?),
    })
}

fn micro_of(c: &Command) -> Result<PMicro, String> {
    Ok(match c {
        Command::Load { reg, addr } => PMicro::Load {
            reg: *reg,
            addr: addr.clone(),
        },
        Command::Store { addr, value } => PMicro::Store {
            addr: addr.clone(),
            value: value.clone(),
        },
        Command::Ann(_, inner) => micro_of(inner)?,
        Command::Fence(_) => return Err("a barrier inside an atomic step".into()),
        Command::Pgas(_) => return Err("a PGAS command inside an atomic step".into()),
        Command::Atomic(_) => return Err("a nested atomic step".into()),
        _ => PMicro::Local(local(c)?),
    })
}

fn local(c: &Command) -> Result<Command, String> {
    match c {
        Command::Assign { .. }
        | Command::Assume(_)
        | Command::Guard(_)
        | Command::Select { .. }
        | Command::Nop => Ok(c.clone()),
        Command::LoadReserve { .. } => Err("`lwarx` (load-reserve) in a PGAS program".into()),
        Command::StoreCond { .. } => Err("`stwcx.` (store-conditional) in a PGAS program".into()),
        Command::Lock | Command::Unlock => Err("`lock`/`unlock` in a PGAS program".into()),
        Command::Tagged(..) => Err("a tagged access (herd's C) in a PGAS program".into()),
        _ => Err("this command in a PGAS program".into()),
    }
}
