//! The PGAS part of the encoder (thesis 003 §8.1.2, Table 8.1; §8.2).
//!
//! The program reaching the encoder is already lowered by [`crate::program::pgas`]:
//! one thread per (rank, thread of the SPMD program), addresses global.
//! A remote operation's step yields three events ([`super::unroll`]):
//! the issue event (set `ISSUE`, its value is the queue id, in program
//! order) and `popa` (set `POPA`, a read of the source) / `popb` (set
//! `POPB`, a write of the destination), which are outside program order.
//! This module adds:
//!
//! * `op`: issue → popa → popb of one remote operation (and issue → popb);
//! * `fifo`: popa → popa' and popb → popb' of two operations of the same
//!   thread (rank) and queue, in issue order (Table 8.1: `fa`/`fb` are FIFO);
//! * `bar`: the k-th barrier events of different threads (symmetric);
//!   the clauses "a thread executes its k-th barrier only if every thread
//!   executes its k-th barrier" (rule (bar) is one joint transition);
//! * the happens-before cycle query of §8.2: hb = po ∪ cf ∪ bar on the
//!   trace, whose nodes identify popa/popb with their issue event and (by
//!   contracting ↔bar) the barrier events of one round.

use super::Encoder;
use crate::cat::base::{BaseRel, BaseSet};
use crate::collections::HashMap;
use crate::engines::bounded::varisat::bv::Bv;
use crate::engines::bounded::varisat::cnf::Cnf;
use std::collections::BTreeMap;
use varisat::Lit;

use super::unroll::{Event, Unrolled};

/// Literal of fence or PGAS set `s` on event `ev` (None = never): the
/// unrolling tags such events with the set's name.
pub fn set_of(ev: &Event, s: BaseSet) -> Option<Lit> {
    ev.fences.iter().find(|(n, _)| *n == s.name()).map(|x| x.1)
}

/// The PGAS relations of an unrolled program.
#[derive(Clone, Debug, Default)]
pub struct PgasEnc {
    /// Remote operations: (issue, popa, popb) event ids (one step).
    pub ops: Vec<(usize, usize, usize)>,
    op: HashMap<(usize, usize), Lit>,
    fifo: HashMap<(usize, usize), Lit>,
    bar: HashMap<(usize, usize), Lit>,
    /// Barrier-capable events with their round index (number of barriers
    /// the thread executed before).
    pub bars: Vec<(usize, Bv)>,
    /// Largest number of barrier-capable events of one thread.
    pub rounds: usize,
}

impl PgasEnc {
    /// Builds the relations and adds the barrier clauses to `cnf`.
    pub fn build(cnf: &mut Cnf, un: &Unrolled) -> PgasEnc {
        let mut pe = PgasEnc::default();
        let evs = &un.events;
        for (i, e) in evs.iter().enumerate() {
            let Some(li) = set_of(e, BaseSet::Issue) else {
                continue;
            };
            let same = |name: BaseSet| {
                evs.iter().position(|x| {
                    x.pop && x.thread == e.thread && x.step == e.step && set_of(x, name).is_some()
                })
            };
            let (Some(a), Some(b)) = (same(BaseSet::PopA), same(BaseSet::PopB)) else {
                continue;
            };
            let (la, lb) = (
                set_of(&evs[a], BaseSet::PopA),
                set_of(&evs[b], BaseSet::PopB),
            );
            let (la, lb) = (la.unwrap_or(cnf.ff()), lb.unwrap_or(cnf.ff()));
            let x = cnf.and(li, la);
            pe.op.insert((i, a), x);
            let x = cnf.and(li, lb);
            pe.op.insert((i, b), x);
            let x = cnf.and(la, lb);
            pe.op.insert((a, b), x);
            pe.ops.push((i, a, b));
        }
        for (k, &(i1, a1, b1)) in pe.ops.clone().iter().enumerate() {
            for &(i2, a2, b2) in &pe.ops[k + 1..].to_vec() {
                if evs[i1].thread != evs[i2].thread || evs[i1].step >= evs[i2].step {
                    continue;
                }
                let sameq = cnf.bv_eq(&evs[i1].value, &evs[i2].value);
                for (x, y, n) in [(a1, a2, BaseSet::PopA), (b1, b2, BaseSet::PopB)] {
                    let lx = set_of(&evs[x], n).unwrap_or(cnf.ff());
                    let ly = set_of(&evs[y], n).unwrap_or(cnf.ff());
                    let l = cnf.and_all(&[lx, ly, sameq]);
                    pe.fifo.insert((x, y), l);
                }
            }
        }
        // Barrier rounds.
        let cw = (32 - (un.bound + 1).leading_zeros()).max(1);
        let mut per_thread: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
        for (i, e) in evs.iter().enumerate() {
            if let Some(l) = set_of(e, BaseSet::Bar) {
                let cnt = per_thread.entry(e.thread.0).or_default();
                let prev = cnt.last().map(|&j| {
                    let idx: Bv = pe
                        .bars
                        .iter()
                        .find(|b| b.0 == j)
                        .map(|b| b.1.clone())
                        .unwrap_or_default();
                    let lj = set_of(&evs[j], BaseSet::Bar).unwrap_or(l);
                    (idx, lj)
                });
                let idx = match prev {
                    None => cnf.bv_const(0, cw),
                    Some((pidx, pl)) => {
                        let inc = cnf.bv_from_bool(pl, cw);
                        cnf.bv_add(&pidx, &inc)
                    }
                };
                cnt.push(i);
                pe.bars.push((i, idx));
            }
        }
        pe.rounds = per_thread.values().map(Vec::len).max().unwrap_or(0);
        let nthreads = un.threads.len() as u32;
        for &(a, ref ia) in &pe.bars.clone() {
            let ta = evs[a].thread.0;
            let la = set_of(&evs[a], BaseSet::Bar).unwrap_or(cnf.ff());
            for tb in (0..nthreads).filter(|&t| t != ta) {
                let mut matches = vec![!la];
                for &(b, ref ib) in pe.bars.clone().iter().filter(|x| evs[x.0].thread.0 == tb) {
                    let l = match pe.bar.get(&(b, a)) {
                        Some(l) => *l,
                        None => {
                            let lb = set_of(&evs[b], BaseSet::Bar).unwrap_or(cnf.ff());
                            let eq = cnf.bv_eq(ia, ib);
                            cnf.and_all(&[la, lb, eq])
                        }
                    };
                    pe.bar.insert((a, b), l);
                    matches.push(l);
                }
                // Rule (bar): every thread takes part in the k-th barrier.
                cnf.clause(&matches);
            }
        }
        pe
    }

    /// The pairs of PGAS base relation `r` (`op`, `fifo`, `bar`; None for
    /// the others), with their literals.
    fn rel(&self, r: BaseRel) -> Option<&HashMap<(usize, usize), Lit>> {
        match r {
            BaseRel::Op => Some(&self.op),
            BaseRel::Fifo => Some(&self.fifo),
            BaseRel::Bar => Some(&self.bar),
            _ => None,
        }
    }

    /// Literal of PGAS base relation `r` (`op`, `fifo`, `bar`; None for
    /// the others and for pairs never related).
    pub fn rel_lit(&self, r: BaseRel, a: usize, b: usize) -> Option<Lit> {
        self.rel(r)?.get(&(a, b)).copied()
    }

    /// All candidate pairs of relation `r` (empty for non-PGAS relations).
    pub fn pairs(&self, r: BaseRel) -> Vec<(usize, usize)> {
        self.rel(r)
            .map(|m| m.keys().copied().collect())
            .unwrap_or_default()
    }

    /// The node of each event in the trace graph: popa/popb map to their
    /// issue event, every other event to itself.
    fn node_of(&self, n: usize) -> Vec<usize> {
        let mut v: Vec<usize> = (0..n).collect();
        for &(i, a, b) in &self.ops {
            v[a] = i;
            v[b] = i;
        }
        v
    }
}

/// The cycle query of §8.2 (activation literal): a nonempty set of trace
/// nodes (memory events, remote operations with their pops, barrier
/// rounds) each with an hb-successor in the set, hb = po ∪ rf ∪ co ∪ fr
/// between different nodes plus po into / out of a barrier round.
pub fn robust_act(enc: &mut Encoder) -> Lit {
    let pe = enc.pgas.clone().unwrap_or_default();
    let n = enc.un.events.len();
    let node_of = pe.node_of(n);
    // Representatives: non-pop events that access memory or issue.
    let reps: Vec<usize> = (0..n)
        .filter(|&e| {
            let ev = &enc.un.events[e];
            !ev.pop && (ev.may_read || ev.may_write || set_of(ev, BaseSet::Issue).is_some())
        })
        .collect();
    let members: HashMap<usize, Vec<usize>> = reps
        .iter()
        .map(|&r| (r, (0..n).filter(|&e| node_of[e] == r).collect()))
        .collect();
    let act = enc.cnf.fresh();
    let k = pe.rounds;
    let mut ins: HashMap<usize, Lit> = HashMap::default();
    for &r in &reps {
        ins.insert(r, enc.cnf.fresh());
    }
    let round_ins: Vec<Lit> = (0..k).map(|_| enc.cnf.fresh()).collect();
    let mut all: Vec<Lit> = reps.iter().map(|r| ins[r]).collect();
    all.extend(&round_ins);
    all.push(!act);
    enc.cnf.clause(&all);
    // Round membership literals: barrier b is in round j.
    let cw = (32 - (enc.un.bound + 1).leading_zeros()).max(1);
    let mut in_round: Vec<(usize, usize, Lit)> = Vec::new();
    for (b, idx) in &pe.bars {
        let lb = set_of(&enc.un.events[*b], BaseSet::Bar).unwrap_or(enc.cnf.ff());
        for j in 0..k {
            let c = enc.cnf.bv_const(j as i64, cw);
            let eq = enc.cnf.bv_eq(idx, &c);
            let l = enc.cnf.and(lb, eq);
            if !enc.cnf.is_false(l) {
                in_round.push((*b, j, l));
            }
        }
    }
    let mut succ_round: Vec<Vec<Lit>> = vec![vec![]; k];
    for &x in &reps {
        let mut succ = vec![!ins[&x]];
        for &y in &reps {
            if x == y {
                continue;
            }
            let mut ls = Vec::new();
            for &a in &members[&x] {
                for &b in &members[&y] {
                    for rel in [BaseRel::Po, BaseRel::Rf, BaseRel::Co, BaseRel::Fr] {
                        if let Some(l) = enc.rel_lit(rel, a, b) {
                            if !enc.cnf.is_false(l) {
                                ls.push(l);
                            }
                        }
                    }
                }
            }
            if ls.is_empty() {
                continue;
            }
            let e = enc.cnf.or_all(&ls);
            let s = enc.cnf.fresh();
            enc.cnf.implies(s, e);
            enc.cnf.implies(s, ins[&y]);
            succ.push(s);
        }
        // x →po a barrier of round j; a barrier of round j →po x.
        for &(b, j, l) in &in_round {
            if let Some(po) = enc.rel_lit(BaseRel::Po, x, b) {
                let s = enc.cnf.and_all(&[po, l, round_ins[j]]);
                succ.push(s);
            }
            if let Some(po) = enc.rel_lit(BaseRel::Po, b, x) {
                let s = enc.cnf.and_all(&[po, l, ins[&x]]);
                succ_round[j].push(s);
            }
        }
        enc.cnf.clause(&succ);
    }
    for (j, mut v) in succ_round.into_iter().enumerate() {
        v.push(!round_ins[j]);
        enc.cnf.clause(&v);
    }
    act
}
