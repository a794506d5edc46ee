//! Dependencies (thesis §4.1 addrdep/datadep/ctrldep), by taint: a
//! register is tainted by the reads whose value flowed into it through
//! loads and assignments (per read, a literal: the value came from that
//! read). `addr`/`data` go from the reads tainting the registers of an
//! access's address/stored value to the access; `ctrl` from a read that
//! tainted an executed `assume` (the ctrl prefix) to every later event.
//! Only with [`UnrollOpts::deps`](super::UnrollOpts::deps).

use super::events::{SlotContrib, SlotKind};
use super::{DepEdge, Event, Unrolled};
use crate::bounded::varisat::cnf::Cnf;
use crate::program::RegId;
use std::collections::{BTreeMap, BTreeSet};
use varisat::Lit;

/// The taint of a value: read event id → the literal under which the value
/// came from that read.
pub(super) type Taint = BTreeMap<usize, Lit>;

/// The taint of a value computed from registers `regs`: the union of
/// their taints in `taint` (a read's literals are or-ed).
pub(super) fn union_taint(cnf: &mut Cnf, taint: &[Taint], regs: &BTreeSet<RegId>) -> Taint {
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

/// The dependency state of a thread between steps.
pub(super) struct DepState {
    /// Per register: its taint.
    pub(super) taint: Vec<Taint>,
    /// The reads that reached an executed assume so far.
    ctrl_prefix: Taint,
}

impl DepState {
    /// No taint, for `nregs` registers.
    pub(super) fn new(nregs: usize) -> DepState {
        DepState {
            taint: vec![Taint::new(); nregs],
            ctrl_prefix: Taint::new(),
        }
    }

    /// Dependency phase, per event (after it is built): the `addr` edges
    /// (from the reads tainting each contribution's address registers) and
    /// `data` edges (its stored value's registers, for writes) into `ev`,
    /// each under the contribution's sel literal, then the `ctrl` edges
    /// from the ctrl prefix, under `ev`'s exec literal. Uses the taint
    /// before the step; appends to `un`'s dependency lists.
    pub(super) fn event_deps(
        &self,
        cnf: &mut Cnf,
        ev: &Event,
        contribs: &[SlotContrib],
        un: &mut Unrolled,
    ) {
        for c in contribs {
            let t = union_taint(cnf, &self.taint, &c.addr_regs);
            edges(cnf, &t, ev.id, c.sel, &mut un.addr_dep);
            if matches!(c.kind, SlotKind::Write | SlotKind::CondWrite) {
                let t = union_taint(cnf, &self.taint, &c.value_regs);
                edges(cnf, &t, ev.id, c.sel, &mut un.data_dep);
            }
        }
        edges(cnf, &self.ctrl_prefix, ev.id, ev.exec, &mut un.ctrl_dep);
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

/// Appends an edge (read, `to`, taint literal ∧ `guard`) to `out` for each
/// read of `from`.
fn edges(cnf: &mut Cnf, from: &Taint, to: usize, guard: Lit, out: &mut Vec<DepEdge>) {
    for (&src, &l) in from {
        let e = cnf.and(l, guard);
        out.push((src, to, e));
    }
}
