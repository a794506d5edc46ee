//! herd's `si` (same instruction) between the byte events of one access
//! to a byte-addressed location (herd's mixed-size variant): the
//! unrolled pairs of [`Thread::si_groups`].

use super::{DepEdge, Event};
use crate::program::Thread;

/// The `si` pairs of distinct events of thread `th` (its events are
/// `events`, in step order): byte `k` of a group executed at step `s`
/// (candidate literal `sel`) pairs with the event of byte `j` at step
/// `s − k + j` when that event may come from byte `j`'s instruction, under
/// `sel` (a group is a straight line, so byte `k` at step `s` is executed
/// only after bytes `0..k` at the steps before it, and bytes after it run
/// at the steps after it when they run at all). Appends to `si`; creates
/// no literal. The identity part of `si` is the encoders'.
pub(super) fn pairs(th: &Thread, events: &[Event], si: &mut Vec<DepEdge>) {
    let (of, groups) = th.si_groups();
    if groups.is_empty() {
        return;
    }
    for a in events {
        for &(i, sel) in &a.instrs {
            let Some((g, k)) = of[i] else { continue };
            for (j, &ij) in groups[g].iter().enumerate() {
                let Some(step) = (a.step + j as u32).checked_sub(k) else {
                    continue;
                };
                if j as u32 == k {
                    continue;
                }
                for b in events.iter().filter(|b| b.step == step) {
                    if b.instrs.iter().any(|&(x, _)| x == ij) {
                        si.push((a.id, b.id, sel));
                    }
                }
            }
        }
    }
}
