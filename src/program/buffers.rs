//! The store-buffer rules of the operational TSO and PSO semantics
//! (thesis §2.4.2, §7.1.1) that the explicit, TSO-reachability and SMC
//! engines share: which commands drain a thread's buffer, and which goals
//! read final memory (and so need every buffer drained first).

use crate::program::{Command, Fence, GVar, Goal};

/// True when `cmd` drains the store buffer under TSO (thesis §2.4.2,
/// §7.1.1): `mfence`, Power `sync`, a `membar` with #StoreLoad, `lock`,
/// `unlock`, and atomic (locked) instructions. Other barriers order only
/// what TSO already keeps in order, so they are no-ops under TSO.
pub fn drains_buffer(cmd: &Command) -> bool {
    match cmd {
        Command::Fence(Fence::MFence | Fence::Sync) => true,
        Command::Fence(Fence::Membar(m)) => m.orders(true, false),
        Command::Lock | Command::Unlock | Command::Atomic(_) => true,
        _ => false,
    }
}

/// True when the goal's condition reads final memory.
pub fn reads_memory(g: &Goal) -> bool {
    let mut m = false;
    if let Some(c) = &g.cond {
        c.for_each_var(&mut |v| m |= matches!(v, GVar::Mem(_)));
    }
    m
}
