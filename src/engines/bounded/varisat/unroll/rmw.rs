//! Read-modify-writes: the static rmw pairs of locked/atomic instructions
//! (`lock`, `atomic {…}`), and load-reserve/store-conditional
//! (`lwarx`/`stwcx.`, AArch64 `LDXR`/`STXR`): the thread's reservations
//! (one per load-reserve instruction, its bytes at a byte-addressed
//! location), and the rmw pairs from the live reservation to a successful
//! store-conditional of the same address and size.

use super::dataflow::StepRun;
use super::events::{SlotContrib, SlotKind, SlotLayout};
use super::{DepEdge, Event};
use crate::engines::bounded::varisat::cnf::Cnf;
use crate::program::Ann;
use varisat::Lit;

/// Atomic rmw phase of a step: in each atomic candidate, a pair from each
/// of its read slots to each later plain write slot, under its sel
/// literal (`slots`: the step's contributions; `base_id`: the id of its
/// first event). Appends to `rmw`; creates no literal.
/// A block without a read (two writes: Arm `STILP`) or without a write
/// (two reads: `LDIAPP`) relates its accesses in order instead: the
/// accesses of one instruction, which herd's program order does not
/// relate (`sc-instr.cat`'s `po \ amo`) and `aarch64.cat` orders (`aob`).
/// A block whose read and write are one event per byte (an atomic at a
/// byte-addressed location: accesses annotated [`Ann::SI`] after the
/// first byte) pairs only the read and the write of the same byte, the
/// k-th read with the k-th write (herd pairs an instruction's atomic read
/// and write per location: `mem.ml`, `make_atomic_load_store`).
/// Exclusive accesses in a block (the bytes of one load- or
/// store-exclusive at a byte-addressed location) are left to
/// [`Reservations`].
pub(super) fn atomic_pairs(slots: &[Vec<SlotContrib>], base_id: usize, rmw: &mut Vec<DepEdge>) {
    let kind_in = |sel: Lit, k: fn(&SlotKind) -> bool| {
        slots.iter().any(|cs| {
            cs.iter()
                .any(|x| x.sel == sel && x.atomic && !x.excl && k(&x.kind))
        })
    };
    let bytes = |sel: Lit| {
        slots
            .iter()
            .any(|cs| cs.iter().any(|x| x.sel == sel && x.ann & Ann::SI != 0))
    };
    // The rank of slot `si` among the earlier slots of `sel` of kind `k`.
    let rank = |sel: Lit, si: usize, k: fn(&SlotKind) -> bool| {
        slots[..si]
            .iter()
            .filter(|cs| cs.iter().any(|x| x.sel == sel && k(&x.kind)))
            .count()
    };
    let is_read = |k: &SlotKind| matches!(k, SlotKind::Read);
    let is_write = |k: &SlotKind| matches!(k, SlotKind::Write);
    for (si, contribs) in slots.iter().enumerate() {
        for c in contribs.iter().filter(|c| c.atomic && !c.excl) {
            // The earlier accesses this one pairs with.
            let (from, per_byte): (fn(&SlotKind) -> bool, bool) = match c.kind {
                SlotKind::Write if kind_in(c.sel, is_read) => (is_read, bytes(c.sel)),
                SlotKind::Write => (is_write, false),
                SlotKind::Read if !kind_in(c.sel, is_write) => (is_read, false),
                _ => continue,
            };
            let byte = rank(c.sel, si, is_write);
            for (ri, rc) in slots.iter().enumerate().take(si) {
                if rc
                    .iter()
                    .any(|x| x.sel == c.sel && !x.excl && from(&x.kind))
                    && (!per_byte || rank(c.sel, ri, is_read) == byte)
                {
                    rmw.push((base_id + ri, base_id + si, c.sel));
                }
            }
        }
    }
}

/// The load-reserves of a thread that may hold its reservation: (the
/// read events of one load-reserve — its bytes at a byte-addressed
/// location, else one —, literal: its reservation was taken and not
/// consumed since).
#[derive(Default)]
pub(super) struct Reservations(Vec<(Vec<usize>, Lit)>);

/// The accesses `(event id, sel)` of one step grouped by instruction: the
/// consecutive entries of one candidate (its bytes) form one group.
fn by_instruction(accesses: impl Iterator<Item = (usize, Lit)>) -> Vec<(Vec<usize>, Lit)> {
    let mut groups: Vec<(Vec<usize>, Lit)> = Vec::new();
    for (id, sel) in accesses {
        match groups.iter_mut().find(|g| g.1 == sel) {
            Some(g) => g.0.push(id),
            None => groups.push((vec![id], sel)),
        }
    }
    groups
}

impl Reservations {
    /// Store-conditional phase of a step: records the step's reservations
    /// (`run.reserved`, one per load-reserve instruction). For every
    /// store-conditional candidate of the step (one per control state
    /// that may be current: several when branches meet at the same step),
    /// its success (`layout.sc_success`) needs a live reservation of the
    /// same address and size: rmw pairs from each earlier reservation,
    /// under "live (no later reservation selected before it), same
    /// address, success, selected"; success implies one of them; and a
    /// selected store-conditional consumes every reservation (PowerISA
    /// Book II §4.4.2 "lwarx/stwcx.": one reservation per thread, cleared
    /// by any `stwcx.`; herd's AArch64 store-exclusive, `do_stxr`: it
    /// fails without a load-exclusive since the last store-exclusive,
    /// and when its size or address differs from the reservation's).
    /// A store-conditional of n bytes (one event per byte at a
    /// byte-addressed location) is one instruction: its bytes succeed
    /// together, need a reservation of n bytes at the address of its
    /// first byte, and each read byte of the reservation pairs with each
    /// written byte (herd's `lxsx`, `[R & X] ; po ; [W & X]` between
    /// instructions, whatever their bytes' locations).
    /// `events` must hold the step's events; appends to `rmw`.
    pub(super) fn store_conditional(
        &mut self,
        cnf: &mut Cnf,
        run: &StepRun,
        layout: &SlotLayout,
        events: &[Event],
        rmw: &mut Vec<DepEdge>,
    ) {
        self.0.extend(by_instruction(run.reserved.iter().copied()));
        let cond_writes = by_instruction(
            run.slots
                .iter()
                .enumerate()
                .flat_map(|(si, cs)| cs.iter().map(move |c| (si, c)))
                .filter(|(_, c)| c.kind == SlotKind::CondWrite)
                .map(|(si, c)| (layout.base_id + si, c.sel)),
        );
        if cond_writes.is_empty() {
            return;
        }
        let reservations = &self.0;
        for (wids, wsel) in &cond_writes {
            let (wid, wsel) = (wids[0], *wsel);
            let mut pair_lits = Vec::new();
            for (rids, rsel) in reservations.iter().filter(|r| r.0[0] < wid) {
                let rid = rids[0];
                if rids.len() != wids.len() {
                    // Another size: the store-conditional fails.
                    continue;
                }
                // Live: no later reservation/store-conditional selected in between.
                let mut live = *rsel;
                for (_, rsel2) in reservations.iter().filter(|r| r.0[0] > rid && r.0[0] < wid) {
                    live = cnf.and(live, !*rsel2);
                }
                let eq = cnf.bv_eq(&events[rid].addr, &events[wid].addr);
                let l = cnf.and_all(&[live, eq, layout.sc_success, wsel]);
                for &r in rids {
                    for &w in wids {
                        rmw.push((r, w, l));
                    }
                }
                pair_lits.push(l);
            }
            let any = cnf.or_all(&pair_lits);
            let succ_here = cnf.and(layout.sc_success, wsel);
            cnf.implies(succ_here, any);
        }
        // A store-conditional consumes the reservation.
        let selected: Vec<Lit> = cond_writes.iter().map(|&(_, sel)| sel).collect();
        let consumed = cnf.or_all(&selected);
        self.0 = reservations
            .iter()
            .map(|(r, l)| (r.clone(), cnf.and(*l, !consumed)))
            .collect();
    }
}
