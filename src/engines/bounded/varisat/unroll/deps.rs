//! Dependencies (thesis §4.1 addrdep/datadep/ctrldep), by taint: a
//! register is tainted by the reads whose value flowed into it through
//! loads and assignments (per read, a literal: the value came from that
//! read). `addr`/`data` go from the reads tainting the registers of an
//! access's address/stored value to the access; `ctrl` from a read that
//! tainted an executed `assume` (the ctrl prefix) to every later event;
//! with `Thread::ctrl_reg` (herd's C `if`) the ctrl prefix is that
//! register's taint, which the front-end saves and restores around a
//! branch.
//!
//! Two kinds of taint (Arm ARM B2.3.2): a value that came from a read
//! through data flow only is tainted [`Via::Data`] (giving addr, data,
//! ctrl); one whose path went through the condition of a select (Arm
//! `CSEL`, a compare-and-swap's comparison) is tainted [`Via::Pick`]
//! (giving pick-addr, pick-data, pick-ctrl). A register may carry both
//! kinds for one read (two paths).
//!
//! A third kind, [`Via::Ctrl`], for herd's C (`Thread::ctrl_reg`): a
//! register written inside a branch depends on the reads of the enclosing
//! conditions for `ctrl` only. herd's `ctrl` (`herd/modelUtils.ml`,
//! `make_procrels_nodeps`: `ddplus ; control_from_load`, `ddplus` the
//! closure of register data flow and of `control` out of reads) passes
//! through the `control` edges from a condition's register reads to every
//! event of the branch (`herd/event.ml`, `cond_comp`), register writes
//! included, while `addr` and `data` follow register data flow only
//! (`dd_pre`). So a later `if` on such a register makes its branch's
//! events `ctrl`-dependent on the outer condition's reads, and an access
//! whose address or value uses it gets no `addr`/`data` from them.
//! Only with [`UnrollOpts::deps`](super::UnrollOpts::deps).

use super::events::{SlotContrib, SlotKind};
use super::{DepEdge, Event, Unrolled};
use crate::engines::bounded::varisat::cnf::Cnf;
use crate::program::RegId;
use std::collections::{BTreeMap, BTreeSet};
use varisat::Lit;

/// How a value came from a read: by data flow only, or through a
/// select's condition on the way (a "pick" path, Arm ARM B2.3.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Via {
    /// Register data flow only (addr, data, ctrl).
    Data,
    /// Through a select's condition (pick-addr, pick-data, pick-ctrl).
    Pick,
    /// Through the condition of a branch the register was written in
    /// (herd's C): ctrl only.
    Ctrl,
}

/// The taint of a value: (read event id, path kind) → the literal under
/// which the value came from that read that way.
pub(super) type Taint = BTreeMap<(usize, Via), Lit>;

/// `t` with every path made a pick path (the taint of a select's
/// condition as seen by its result; a control-only path stays one),
/// literals of merged keys or-ed.
pub(super) fn as_pick(cnf: &mut Cnf, t: Taint) -> Taint {
    as_via(cnf, t, Via::Pick)
}

/// `t` with every path made a control-only path ([`Via::Ctrl`]: the ctrl
/// prefix as seen by a register written in the branch), literals of
/// merged keys or-ed.
pub(super) fn as_ctrl(cnf: &mut Cnf, t: Taint) -> Taint {
    as_via(cnf, t, Via::Ctrl)
}

/// `t` with its data and pick paths made `via` paths.
fn as_via(cnf: &mut Cnf, t: Taint, via: Via) -> Taint {
    let mut out: BTreeMap<(usize, Via), Vec<Lit>> = BTreeMap::new();
    for ((src, v), l) in t {
        let v = if v == Via::Ctrl { v } else { via };
        out.entry((src, v)).or_default().push(l);
    }
    out.into_iter()
        .map(|(s, ls)| (s, cnf.or_all(&ls)))
        .collect()
}

/// `a ∪ b`, the literals of a read in both or-ed.
pub(super) fn merge_taints(cnf: &mut Cnf, mut a: Taint, b: Taint) -> Taint {
    for (src, l) in b {
        let l = match a.get(&src) {
            Some(&p) => cnf.or(p, l),
            None => l,
        };
        a.insert(src, l);
    }
    a
}

/// The taint of a value computed from registers `regs`: the union of
/// their taints in `taint` (a read's literals are or-ed).
pub(super) fn union_taint(cnf: &mut Cnf, taint: &[Taint], regs: &BTreeSet<RegId>) -> Taint {
    let mut out: BTreeMap<(usize, Via), Vec<Lit>> = BTreeMap::new();
    for r in regs {
        for (&src, &l) in &taint[r.0 as usize] {
            out.entry(src).or_default().push(l);
        }
    }
    out.into_iter()
        .map(|(s, ls)| (s, cnf.or_all(&ls)))
        .collect()
}

/// The taint of an access's operands (empty without dependencies).
#[derive(Clone, Debug, Default)]
pub(super) struct AccessTaint {
    /// Of its address.
    pub(super) addr: Taint,
    /// Of the value it writes (writes only).
    pub(super) value: Taint,
}

/// The dependency state of a thread between steps.
pub(super) struct DepState {
    /// Per register: its taint.
    pub(super) taint: Vec<Taint>,
    /// The reads that reached an executed assume so far.
    ctrl_prefix: Taint,
    /// `Thread::ctrl_reg`: when set, the ctrl prefix is this register's
    /// taint (herd's C `if`) and `ctrl_prefix` stays empty.
    ctrl_reg: Option<RegId>,
}

impl DepState {
    /// No taint, for `nregs` registers; `ctrl_reg`: `Thread::ctrl_reg`.
    pub(super) fn new(nregs: usize, ctrl_reg: Option<RegId>) -> DepState {
        DepState {
            taint: vec![Taint::new(); nregs],
            ctrl_prefix: Taint::new(),
            ctrl_reg,
        }
    }

    /// Dependency phase, per event (after it is built): the `addr` edges
    /// (from the reads tainting each contribution's address) and `data`
    /// edges (its stored value, for writes) into `ev`, and their pick
    /// forms, each under the contribution's sel literal, then the `ctrl`
    /// and `pick-ctrl` edges from the ctrl prefix, under `ev`'s exec
    /// literal. `taints[i]` is the taint of `contribs[i]`'s operands when
    /// its micro-op ran (registers written earlier in the same
    /// instruction count); appends to `un`'s dependency lists.
    pub(super) fn event_deps(
        &self,
        cnf: &mut Cnf,
        ev: &Event,
        contribs: &[SlotContrib],
        taints: &[AccessTaint],
        un: &mut Unrolled,
    ) {
        for (c, t) in contribs.iter().zip(taints) {
            edges(
                cnf,
                &t.addr,
                (ev.id, c.sel, false),
                [&mut un.addr_dep, &mut un.pick_addr_dep],
            );
            if matches!(c.kind, SlotKind::Write | SlotKind::CondWrite) {
                edges(
                    cnf,
                    &t.value,
                    (ev.id, c.sel, false),
                    [&mut un.data_dep, &mut un.pick_data_dep],
                );
            }
        }
        let prefix = match self.ctrl_reg {
            Some(cr) => &self.taint[cr.0 as usize],
            None => &self.ctrl_prefix,
        };
        edges(
            cnf,
            prefix,
            (ev.id, ev.exec, true),
            [&mut un.ctrl_dep, &mut un.pick_ctrl_dep],
        );
    }

    /// Ctrl-prefix phase of a step: adds the reads tainting the condition
    /// of each assume of the step (`assume_taint`: sel, taint) under its
    /// candidate's sel literal.
    pub(super) fn extend_ctrl_prefix(&mut self, cnf: &mut Cnf, assume_taint: &[(Lit, Taint)]) {
        for (s, t) in assume_taint {
            add_guarded(cnf, &mut self.ctrl_prefix, *s, t);
        }
    }

    /// Taint phase of a step: each register written by some candidate
    /// (`new_taint`: per register, sel and taint after the step) keeps its
    /// old taint only when no writer is selected, and gets each writer's
    /// taint under its sel literal.
    pub(super) fn merge_taint(&mut self, cnf: &mut Cnf, new_taint: Vec<Vec<(Lit, Taint)>>) {
        for (r, ups) in new_taint.into_iter().enumerate() {
            if ups.is_empty() {
                continue;
            }
            let t = &mut self.taint[r];
            let any: Vec<Lit> = ups.iter().map(|u| u.0).collect();
            let anyl = cnf.or_all(&any);
            for v in t.values_mut() {
                *v = cnf.and(*v, !anyl);
            }
            for (s, nt) in &ups {
                add_guarded(cnf, t, *s, nt);
            }
        }
    }
}

/// `into ∪= guard ∧ from`: each read of `from` is added to `into` under
/// `guard` and its literal, or-ed with its literal in `into`.
fn add_guarded(cnf: &mut Cnf, into: &mut Taint, guard: Lit, from: &Taint) {
    for (&src, &l) in from {
        let e = cnf.and(guard, l);
        let prev = into.get(&src).copied().unwrap_or(cnf.ff());
        into.insert(src, cnf.or(prev, e));
    }
}

/// Appends an edge (read, `to`, taint literal ∧ `guard`) for each entry
/// of `from`: to `out[0]` for a data path, to `out[1]` for a pick path;
/// a control-only path ([`Via::Ctrl`]) to `out[0]` when `ctrl` (the
/// edges are `ctrl` ones), else to neither.
fn edges(
    cnf: &mut Cnf,
    from: &Taint,
    (to, guard, ctrl): (usize, Lit, bool),
    out: [&mut Vec<DepEdge>; 2],
) {
    let [plain, pick] = out;
    for (&(src, via), &l) in from {
        match via {
            Via::Data => plain.push((src, to, cnf.and(l, guard))),
            Via::Pick => pick.push((src, to, cnf.and(l, guard))),
            Via::Ctrl if ctrl => plain.push((src, to, cnf.and(l, guard))),
            Via::Ctrl => {}
        }
    }
}
