//! Event slots of a step and the events built from them. A step has one
//! slot per event (access, fence, PGAS issue or barrier) of its longest
//! candidate, in execution order, then two slots for PGAS pops if a
//! candidate is a remote operation; each
//! candidate contributes to the slots it uses ([`SlotContrib`]), and a
//! slot's [`Event`] has the kind, address and value of whichever
//! contributing candidate is selected.

use super::micro::ThreadCode;
use super::Event;
use crate::cat::base::{fence_sets, BaseSet, Tag};
use crate::engines::bounded::varisat::bv::Bv;
use crate::engines::bounded::varisat::cnf::Cnf;
use crate::program::{Fence, ThreadId};
use std::collections::BTreeMap;
use varisat::Lit;

/// What a contribution to a slot is.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum SlotKind {
    Read,
    Write,
    /// A store-conditional: a write if it succeeds.
    CondWrite,
    Fence(Fence),
    Issue,
    PopA,
    PopB,
    Barrier,
}

/// Per slot of a step, what one candidate instruction contributes.
pub(super) struct SlotContrib {
    /// The candidate's sel literal.
    pub(super) sel: Lit,
    /// The candidate (index in `Thread::instrs`).
    pub(super) instr: usize,
    pub(super) kind: SlotKind,
    /// The address (W+1 bits), for accesses.
    pub(super) addr: Option<Bv>,
    /// The value read or written (a read's is its slot's fresh value).
    pub(super) value: Option<Bv>,
    /// The candidate is locked/atomic.
    pub(super) atomic: bool,
    /// The access's ordering annotations ([`crate::program::Ann`] bits).
    pub(super) ann: u16,
    /// The access is exclusive (load-reserve, store-conditional).
    pub(super) excl: bool,
    /// herd's tags of the access or fence (C litmus tests).
    pub(super) tags: Vec<Tag>,
}

impl SlotContrib {
    /// A contribution without address, value or registers.
    pub(super) fn new(sel: Lit, instr: usize, kind: SlotKind, atomic: bool) -> SlotContrib {
        SlotContrib {
            sel,
            instr,
            kind,
            addr: None,
            value: None,
            atomic,
            ann: 0,
            excl: false,
            tags: Vec::new(),
        }
    }
}

/// The slots of one step and the fresh literals they share: output of
/// [`SlotLayout::new`].
pub(super) struct SlotLayout {
    /// The id of the step's first event (slot 0).
    pub(super) base_id: usize,
    /// The first of the two PGAS pop slots (`popa`, then `popb`), after
    /// every ordinary slot.
    pub(super) pop_base: usize,
    /// Per slot: a fresh W-bit value, the value a read in that slot
    /// returns (the encoder ties it to a write through `rf`).
    pub(super) read_vals: Vec<Bv>,
    /// The step's store-conditional, if any, succeeds.
    pub(super) sc_success: Lit,
}

impl SlotLayout {
    /// Slot layout phase of a step: counts the slots the candidates
    /// `sels` need (`code`: the thread's micro-ops) and creates a fresh
    /// W-bit read value per slot, then the fresh store-conditional success
    /// literal; `base_id` is the id the step's first event will have.
    pub(super) fn new(
        cnf: &mut Cnf,
        code: &ThreadCode,
        sels: &[(usize, Lit)],
        base_id: usize,
        w: u32,
    ) -> SlotLayout {
        let max_slots = sels.iter().map(|(i, _)| code.slots(*i)).max().unwrap_or(0);
        // PGAS pops get two slots of their own after every other slot,
        // so that a slot is either a pop for every candidate or none.
        let has_pops = sels.iter().any(|(i, _)| code.has_pops(*i));
        let n_vals = max_slots + if has_pops { 2 } else { 0 };
        let read_vals: Vec<Bv> = (0..n_vals)
            .map(|_| (0..w).map(|_| cnf.fresh()).collect())
            .collect();
        let sc_success = cnf.fresh();
        SlotLayout {
            base_id,
            pop_base: max_slots,
            read_vals,
            sc_success,
        }
    }
}

/// Appends `c` to the contributions of slot `slot`.
pub(super) fn push_slot(slots: &mut Vec<Vec<SlotContrib>>, slot: usize, c: SlotContrib) {
    while slots.len() <= slot {
        slots.push(Vec::new());
    }
    slots[slot].push(c);
}

/// Event phase, per slot: the event of slot `slot` of step `step` of
/// thread `tid`, from the candidates' contributions `contribs`: it happens
/// when a contributing candidate is selected (a lone store-conditional:
/// when it succeeds), its kind literals (read, write, fence sets, atomic)
/// are the disjunctions of the sel literals of the candidates of that
/// kind, and its address and value are multiplexed by the sel literals
/// (address 0 and value 0 without any). `w` is the value width W.
pub(super) fn build_event(
    cnf: &mut Cnf,
    layout: &SlotLayout,
    tid: ThreadId,
    step: u32,
    slot: usize,
    contribs: &[SlotContrib],
    w: u32,
) -> Event {
    let mut reads = Vec::new();
    let mut writes = Vec::new();
    let mut located = Vec::new();
    let mut fences: BTreeMap<&'static str, Vec<Lit>> = BTreeMap::new();
    let mut atomic = Vec::new();
    let mut addr: Option<Bv> = None;
    let mut value: Option<Bv> = None;
    let mut cond_write = false;
    let mut addr_set: Option<Vec<u128>> = Some(Vec::new());
    for c in contribs {
        match c.kind {
            SlotKind::Read => reads.push(c.sel),
            SlotKind::Write => writes.push(c.sel),
            SlotKind::CondWrite => {
                let l = cnf.and(c.sel, layout.sc_success);
                writes.push(l);
                cond_write = true;
            }
            SlotKind::Fence(Fence::Located(_)) => located.push(c.sel),
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
        // Annotation and exclusive sets (ACQ, ACQPC, REL, X), by name like
        // the fence sets.
        // A store-conditional is in them only when it succeeds.
        if c.ann != 0 || c.excl {
            let lit = if c.kind == SlotKind::CondWrite {
                cnf.and(c.sel, layout.sc_success)
            } else {
                c.sel
            };
            for s in BaseSet::ANNOTATED {
                if s.ann_bit().is_some_and(|b| c.ann & b != 0) {
                    fences.entry(s.name()).or_default().push(lit);
                }
            }
            if c.excl {
                fences.entry(BaseSet::X.name()).or_default().push(lit);
            }
        }
        // herd's tags (C litmus tests), by their key like the fence sets;
        // a tagged store-conditional does not occur (C has none).
        for t in &c.tags {
            fences.entry(t.key()).or_default().push(c.sel);
        }
        let access = matches!(
            c.kind,
            SlotKind::Read
                | SlotKind::Write
                | SlotKind::CondWrite
                | SlotKind::PopA
                | SlotKind::PopB
                | SlotKind::Fence(Fence::Located(_))
        );
        if access && c.addr.is_none() {
            addr_set = None;
        }
        if let Some(a) = &c.addr {
            let k = const_value(cnf, a);
            match (&mut addr_set, k) {
                (Some(set), Some(k)) => set.push(k),
                _ => addr_set = None,
            }
            mux(cnf, &mut addr, c.sel, a);
        }
        if let Some(v) = &c.value {
            mux(cnf, &mut value, c.sel, v);
        }
    }
    let read = cnf.or_all(&reads);
    let write = cnf.or_all(&writes);
    let may_locate = !located.is_empty();
    let located = cnf.or_all(&located);
    let all: Vec<Lit> = contribs.iter().map(|c| c.sel).collect();
    let mut exec = cnf.or_all(&all);
    if cond_write && contribs.len() == 1 {
        exec = write;
    }
    let fences: Vec<(&'static str, Lit)> = fences
        .into_iter()
        .map(|(n, ls)| (n, cnf.or_all(&ls)))
        .collect();
    let atomic = cnf.or_all(&atomic);
    Event {
        id: layout.base_id + slot,
        thread: tid,
        step,
        slot: slot as u32,
        exec,
        read,
        write,
        fences,
        atomic,
        addr: addr.unwrap_or_else(|| address(cnf, cnf.bv_const(0, w), false)),
        value: value.unwrap_or_else(|| cnf.bv_const(0, w)),
        instrs: contribs.iter().map(|c| (c.instr, c.sel)).collect(),
        pop: contribs
            .iter()
            .any(|c| matches!(c.kind, SlotKind::PopA | SlotKind::PopB)),
        may_read: !reads.is_empty(),
        may_write: !writes.is_empty(),
        located,
        may_locate,
        addr_set: addr_set.map(|mut v| {
            v.sort_unstable();
            v.dedup();
            v
        }),
    }
}

/// The value of `v` (unsigned, at most 128 bits) when every bit is a
/// constant of `cnf`, else `None`.
fn const_value(cnf: &Cnf, v: &Bv) -> Option<u128> {
    let mut k = 0u128;
    for (i, &b) in v.iter().enumerate() {
        if !cnf.is_const(b) || i >= 128 {
            return None;
        }
        if cnf.is_true(b) {
            k |= 1 << i;
        }
    }
    Some(k)
}

/// `acc := v` for the first contribution, else `ite(sel, v, acc)`: the
/// bit-vector of whichever contributing candidate is selected.
fn mux(cnf: &mut Cnf, acc: &mut Option<Bv>, sel: Lit, v: &Bv) {
    *acc = Some(match acc.take() {
        None => v.clone(),
        Some(prev) => cnf.bv_ite(sel, v, &prev),
    });
}

/// The W+1-bit address of cell `v` (W bits) of the program's memory, or
/// of the lock cell's space (`lock`: the top bit).
pub(super) fn address(cnf: &Cnf, mut v: Bv, lock: bool) -> Bv {
    v.push(cnf.constant(lock));
    v
}

/// The static kind of one ordinary slot of one instruction: what
/// [`build_event`] makes of that instruction's contribution to the slot
/// (for [`super::slot_shapes`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SlotShape {
    /// A read (set R).
    pub read: bool,
    /// A write (set W); for a store-conditional only when it succeeds
    /// (`cond`).
    pub write: bool,
    /// A store-conditional: the slot is a write only when it succeeds
    /// (and, alone in its slot, no event otherwise).
    pub cond: bool,
    /// Of a locked/atomic instruction (set A).
    pub atomic: bool,
    /// Accesses the reserved lock cell (`lock`, `unlock`).
    pub lock: bool,
    /// The address when it is a constant of the program (not the lock
    /// cell).
    pub addr: Option<i64>,
    /// The other base sets it is in, by name (`F`, the fence sets of
    /// [`fence_sets`], `ISSUE`, `BAR`, the annotation sets, `X`, the
    /// keys of herd's tags), as in
    /// [`Event::fences`].
    pub sets: Vec<&'static str>,
}

/// The shapes of instruction `i`'s ordinary slots, in slot order; `None`
/// when it has PGAS pop slots (outside program order).
pub(super) fn instr_shapes(code: &ThreadCode, i: usize) -> Option<Vec<SlotShape>> {
    use super::micro::{AddrSrc, Micro};
    if code.has_pops(i) {
        return None;
    }
    let atomic = code.atomic[i];
    let ann_sets = |ann: u16, excl: bool| {
        let mut v: Vec<&'static str> = BaseSet::ANNOTATED
            .into_iter()
            .filter(|s| s.ann_bit().is_some_and(|b| ann & b != 0))
            .map(BaseSet::name)
            .collect();
        if excl {
            v.push(BaseSet::X.name());
        }
        v
    };
    let with_tags = |mut sets: Vec<&'static str>, tags: &[Tag]| {
        sets.extend(tags.iter().map(|t| t.key()));
        sets
    };
    let mut out = Vec::new();
    for m in code.micro[i].iter().filter(|m| m.takes_slot()) {
        let blank = SlotShape {
            read: false,
            write: false,
            cond: false,
            atomic,
            lock: false,
            addr: None,
            sets: Vec::new(),
        };
        let konst = |a: &AddrSrc| match a {
            AddrSrc::Expr(crate::program::Expr::Const(k)) => Some(*k),
            _ => None,
        };
        out.push(match m {
            Micro::Load {
                addr,
                reserve,
                ann,
                tags,
                ..
            } => SlotShape {
                read: true,
                lock: matches!(addr, AddrSrc::Lock),
                addr: konst(addr),
                sets: with_tags(ann_sets(*ann, *reserve), tags),
                ..blank
            },
            Micro::Store {
                addr,
                cond_flag,
                ann,
                tags,
                ..
            } => SlotShape {
                write: true,
                cond: cond_flag.is_some(),
                lock: matches!(addr, AddrSrc::Lock),
                addr: konst(addr),
                sets: with_tags(ann_sets(*ann, cond_flag.is_some()), tags),
                ..blank
            },
            Micro::Fence(f, tags) => {
                let mut sets = if matches!(f, Fence::Located(_)) {
                    vec![]
                } else {
                    vec!["F"]
                };
                sets.extend(fence_sets(*f));
                SlotShape {
                    sets: with_tags(sets, tags),
                    ..blank
                }
            }
            Micro::Issue(_) => SlotShape {
                sets: vec!["ISSUE"],
                ..blank
            },
            Micro::Barrier => SlotShape {
                sets: vec!["BAR"],
                ..blank
            },
            _ => return None,
        });
    }
    Some(out)
}
