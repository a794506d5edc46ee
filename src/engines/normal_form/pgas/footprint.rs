//! What each thread of a lowered PGAS program accesses, over every
//! computation: its accesses (address, write, a pop) and whether it takes
//! part in barriers. A hop of a cycle (thesis §8.4.2) needs two
//! conflicting accesses — same address, one a write — or two barriers,
//! so profiles and marks that no pair of footprints allows are skipped,
//! and a step of a thread outside the profile whose accesses conflict
//! with no other thread's commutes with every other step, so the search
//! takes it alone (a persistent set of one thread; see
//! [`super::Pgas`]).
//!
//! Footprints come from the program text where every address is a
//! constant once the registers are propagated as constants along each
//! thread's control graph ([`Footprint::of_program`]); otherwise from the
//! search without marks, which reports every event it generates
//! ([`Footprint::collect`]).

use super::class::{PMicro, POp};
use super::{Kind, PEv};
use crate::collections::{HashMap, HashSet};
use crate::program::{Command, LExpr, Program, RegId, Spmd, Width};

/// One thread's footprint.
#[derive(Clone, Debug, Default)]
pub(crate) struct Footprint {
    /// (address, write, a pop), sorted.
    acc: Vec<(i64, bool, bool)>,
    /// Takes part in barriers.
    bar: bool,
}

/// Addresses whose pops conflict with no event: a `popa` of an address
/// no instruction writes, a `popb` of an address no other event accesses
/// (its instruction on no control cycle, so it runs at most once). Such a pop's position changes no conflict of the trace and
/// its value reaches no read, so the search places it in the least part
/// its queue allows (the most permissive for the queue's later pops).
#[derive(Clone, Debug, Default)]
pub(crate) struct Quiet {
    /// Addresses read but never written.
    pub unwritten: HashSet<i64>,
    /// Addresses with a single access, a write.
    pub lone_write: HashSet<i64>,
}

/// Registers as constants (`None`: not a constant).
type Consts = Vec<Option<i64>>;

impl Footprint {
    /// The footprints of `threads` threads from the events the search
    /// without marks reported (`(key, address)`, [`Footprint::key`]).
    pub(crate) fn collect(threads: usize, seen: &HashMap<i64, HashSet<i64>>) -> Vec<Footprint> {
        let mut fp = vec![Footprint::default(); threads];
        for (&key, addrs) in seen {
            let (t, kind) = ((key >> 3) as usize, key & 7);
            let Some(f) = fp.get_mut(t) else { continue };
            match kind {
                4 => f.bar = true,
                5 => {}
                _ => f
                    .acc
                    .extend(addrs.iter().map(|&a| (a, kind & 1 != 0, kind & 2 != 0))),
            }
        }
        for f in &mut fp {
            f.acc.sort_unstable();
            f.acc.dedup();
        }
        fp
    }

    /// The key under which the search reports event `e` (thread and kind).
    pub(crate) fn key(e: &PEv) -> i64 {
        let kind = match e.kind {
            Kind::Load => 0,
            Kind::Store => 1,
            Kind::PopA => 2,
            Kind::PopB => 3,
            Kind::Bar => 4,
            Kind::Issue => 5,
        };
        ((e.thread as i64) << 3) | kind
    }

    /// The footprints of `p`'s threads from its text, when every address
    /// of every instruction reachable in its thread's control graph is a
    /// constant under constant propagation of the registers, with the
    /// addresses whose pops can be placed freely; `None` otherwise.
    pub(crate) fn of_program(
        p: &Program,
        ops: &[Vec<POp>],
        w: Width,
    ) -> Option<(Vec<Footprint>, Quiet)> {
        let mut out = Vec::new();
        let cyclic: Vec<Vec<bool>> = p.threads.iter().map(super::on_cycles).collect();
        // Per address: the accesses of all instructions (one per event).
        let mut all: HashMap<i64, Vec<bool>> = HashMap::default();
        for (t, th) in p.threads.iter().enumerate() {
            let vals = propagate(p, ops, t, w);
            let mut f = Footprint::default();
            for (i, ins) in th.instrs.iter().enumerate() {
                let Some(v) = &vals[ins.from.0 as usize] else {
                    continue;
                };
                let before = f.acc.len();
                accesses(&ops[t][i], v.clone(), w, &mut f)?;
                // An instruction on a control cycle runs more than once.
                let runs = if cyclic[t][i] { 2 } else { 1 };
                for &(a, write, _) in &f.acc[before..] {
                    for _ in 0..runs {
                        all.entry(a).or_default().push(write);
                    }
                }
            }
            f.acc.sort_unstable();
            f.acc.dedup();
            out.push(f);
        }
        let quiet = Quiet {
            unwritten: (all.iter())
                .filter(|(_, ws)| ws.iter().all(|w| !w))
                .map(|(&a, _)| a)
                .collect(),
            lone_write: (all.iter())
                .filter(|(_, ws)| ws.as_slice() == [true])
                .map(|(&a, _)| a)
                .collect(),
        };
        Some((out, quiet))
    }

    /// Whether an access or barrier of this footprint can be the other
    /// end of a hop with `e` (or fail to commute with it).
    pub(crate) fn meets(&self, e: &PEv) -> bool {
        if e.kind == Kind::Bar {
            return self.bar;
        }
        if !e.kind.accesses() {
            return false;
        }
        let w = e.kind.writes();
        self.acc.iter().any(|&(a, w2, _)| a == e.addr && (w || w2))
    }

    /// Whether a hop can go from a thread of this footprint to one of
    /// footprint `other`; `same`: the same thread, whose cycle must pass
    /// one of its pops (the only events outside its program order).
    pub(crate) fn related(&self, other: &Footprint, same: bool) -> bool {
        if same {
            return self.acc.iter().any(|&(a, w, pop)| {
                self.acc
                    .iter()
                    .any(|&(b, w2, pop2)| a == b && (w || w2) && (pop || pop2))
            });
        }
        (self.bar && other.bar)
            || self
                .acc
                .iter()
                .any(|&(a, w, _)| other.acc.iter().any(|&(b, w2, _)| a == b && (w || w2)))
    }
}

fn eval(e: &LExpr, v: &Consts, w: Width) -> Option<i64> {
    let mut top = false;
    let x = e.eval(
        w,
        Spmd::default(),
        &mut |r: RegId| match v.get(r.0 as usize) {
            Some(Some(c)) => *c,
            _ => {
                top = true;
                0
            }
        },
    );
    (!top).then_some(x)
}

fn assign_local(c: &Command, v: &mut Consts, w: Width) {
    let set = |v: &mut Consts, r: RegId, x: Option<i64>| {
        if let Some(slot) = v.get_mut(r.0 as usize) {
            *slot = x;
        }
    };
    match c {
        Command::Assign { reg, value } => {
            let x = eval(value, v, w);
            set(v, *reg, x);
        }
        Command::Select { reg, .. } => set(v, *reg, None),
        Command::Ann(_, c) => assign_local(c, v, w),
        _ => {}
    }
}

/// The registers after `op` from `v`.
fn transfer(op: &POp, mut v: Consts, w: Width) -> Consts {
    match op {
        POp::Local(c) => assign_local(c, &mut v, w),
        POp::Load { reg, .. } => {
            if let Some(slot) = v.get_mut(reg.0 as usize) {
                *slot = None;
            }
        }
        POp::Atomic(ms) => {
            for m in ms {
                match m {
                    PMicro::Load { reg, .. } => {
                        if let Some(slot) = v.get_mut(reg.0 as usize) {
                            *slot = None;
                        }
                    }
                    PMicro::Local(c) => assign_local(c, &mut v, w),
                    PMicro::Store { .. } => {}
                }
            }
        }
        POp::Store { .. } | POp::Remote { .. } | POp::Barrier => {}
    }
    v
}

/// Constant propagation over thread `t`'s control graph: per control
/// state, the registers' constants (`None`: unreachable).
fn propagate(p: &Program, ops: &[Vec<POp>], t: usize, w: Width) -> Vec<Option<Consts>> {
    let th = &p.threads[t];
    let mut vals: Vec<Option<Consts>> = vec![None; th.states.len()];
    let init: Consts = th.reg_init.iter().map(|&x| Some(w.wrap(x))).collect();
    vals[th.initial.0 as usize] = Some(init);
    let out = th.outgoing();
    let mut work = vec![th.initial.0 as usize];
    while let Some(q) = work.pop() {
        let Some(v) = vals[q].clone() else { continue };
        for &i in &out[q] {
            let nv = transfer(&ops[t][i], v.clone(), w);
            let to = th.instrs[i].to.0 as usize;
            let joined = match &vals[to] {
                None => nv,
                Some(old) => old
                    .iter()
                    .zip(&nv)
                    .map(|(a, b)| if a == b { *a } else { None })
                    .collect(),
            };
            if vals[to].as_ref() != Some(&joined) {
                vals[to] = Some(joined);
                work.push(to);
            }
        }
    }
    vals
}

/// Adds the accesses of `op` from registers `v` to `f`; `None` when an
/// address is not a constant.
fn accesses(op: &POp, mut v: Consts, w: Width, f: &mut Footprint) -> Option<()> {
    match op {
        POp::Load { addr, .. } => f.acc.push((eval(addr, &v, w)?, false, false)),
        POp::Store { addr, .. } => f.acc.push((eval(addr, &v, w)?, true, false)),
        POp::Atomic(ms) => {
            for m in ms {
                match m {
                    PMicro::Load { reg, addr } => {
                        f.acc.push((eval(addr, &v, w)?, false, false));
                        if let Some(slot) = v.get_mut(reg.0 as usize) {
                            *slot = None;
                        }
                    }
                    PMicro::Store { addr, .. } => f.acc.push((eval(addr, &v, w)?, true, false)),
                    PMicro::Local(c) => assign_local(c, &mut v, w),
                }
            }
        }
        POp::Remote {
            get,
            local,
            rank,
            remote,
            ..
        } => {
            let (l, r) = (eval(local, &v, w)?, eval(remote, &v, w)?);
            // A constant rank outside 1..N never executes; any other rank
            // is covered by the address, which already names the rank.
            let _ = eval(rank, &v, w)?;
            let (src, dst) = if *get { (r, l) } else { (l, r) };
            f.acc.push((src, false, true));
            f.acc.push((dst, true, true));
        }
        POp::Barrier => f.bar = true,
        POp::Local(_) => {}
    }
    Some(())
}
