//! herd's `si` (same instruction) between the byte events of one access
//! to a byte-addressed location (herd's mixed-size variant): the
//! unrolled pairs of [`Thread::si_groups`] (one instruction per byte),
//! and those of an atomic instruction's read and write, each one event
//! per byte in the instruction's own step ([`step_pairs`]).

use super::events::{SlotContrib, SlotKind};
use super::{DepEdge, Event};
use crate::program::{Ann, Thread};

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

/// The `si` pairs of one step (`slots`: its contributions; `base_id`: the
/// id of its first event) inside an atomic instruction whose read and
/// write are one event per byte: per candidate, each access without
/// [`Ann::SI`] starts a group (an access of n bytes: herd's
/// single-copy-atomic group, `sca`) that the following accesses with it
/// continue; every two distinct events of a group pair under the
/// candidate's sel literal. The read group and the write group of one
/// atomic are two groups (herd's read and write of an atomic are two
/// accesses). Appends to `si`; creates no literal.
pub(super) fn step_pairs(slots: &[Vec<SlotContrib>], base_id: usize, si: &mut Vec<DepEdge>) {
    let mem = |k: &SlotKind| matches!(k, SlotKind::Read | SlotKind::Write | SlotKind::CondWrite);
    let mut sels = Vec::new();
    for c in slots.iter().flatten() {
        if c.ann & Ann::SI != 0 && mem(&c.kind) && !sels.contains(&c.sel) {
            sels.push(c.sel);
        }
    }
    for sel in sels {
        let mut groups: Vec<Vec<usize>> = Vec::new();
        for (s, cs) in slots.iter().enumerate() {
            let Some(c) = cs.iter().find(|c| c.sel == sel && mem(&c.kind)) else {
                continue;
            };
            match groups.last_mut() {
                Some(g) if c.ann & Ann::SI != 0 => g.push(base_id + s),
                _ => groups.push(vec![base_id + s]),
            }
        }
        for g in groups.iter().filter(|g| g.len() > 1) {
            for &a in g {
                for &b in g.iter().filter(|&&b| b != a) {
                    si.push((a, b, sel));
                }
            }
        }
    }
}
