//! The PGAS part of the z3 encoding (thesis 003 §8.1.2, Table 8.1; §8.2),
//! written independently of the varisat one ([`crate::engines::bounded::varisat::pgas`]).
//!
//! The program is already lowered by [`crate::program::pgas`] (one thread per rank,
//! global addresses); the unrolling ([`super::unroll`]) gives each remote
//! operation an issue event and two pop events of their own
//! ([`super::unroll::ZRemote`]), and each barrier an event in set BAR.
//! This module adds:
//!
//! * barrier rounds: an integer term per barrier-capable event, the number
//!   of BAR events its thread executed before it; rule (bar) of Table 8.1
//!   (a joint step of all ranks) as "an executed BAR event of round k has,
//!   in every other thread, an executed BAR event of round k";
//! * `op` (issue → popa → popb of one executed remote operation), `fifo`
//!   (popa → popa', popb → popb' of two operations of one thread with
//!   equal queue values, the earlier step first), `bar` (executed BAR
//!   events of one round in different threads);
//! * the robustness query of §8.2 on the trace graph: nodes are the trace
//!   events (reads, writes, issues; a remote operation's pops belong to
//!   its issue's node) and one node per barrier round; edges are
//!   po ∪ rf ∪ co ∪ fr between events of different nodes, and po from an
//!   event to a barrier of a round / from a barrier of a round to an event.
//!   A cycle is a nonempty set of nodes each with an integer-chosen
//!   successor in the set.

use super::unroll::{ZEvent, ZUnrolled};
use super::{and, or, ZBool, ZRel};
use crate::cat::base::{BaseRel, BaseSet};
use crate::collections::HashMap;
use std::collections::BTreeMap;
use z3::ast::{Ast, Bool, Int};
use z3::Context;

/// The condition of event `ev` being in fence or PGAS set `s` (None:
/// never): the unrolling tags such events with the set's name.
pub fn set_of(ev: &ZEvent, s: BaseSet) -> Option<ZBool> {
    ev.fences
        .iter()
        .find(|(n, _)| *n == s.name())
        .map(|x| x.1.clone())
}

/// Barrier rounds of an unrolled SPMD program.
pub struct ZPgas {
    /// Per barrier-capable event (in thread, step, ord order): its round,
    /// the number of BAR events of its thread before it.
    pub round: Vec<(usize, Int<'static>)>,
    /// The largest number of barrier-capable events of one thread (an
    /// upper bound on the number of rounds).
    pub rounds: usize,
}

impl ZPgas {
    /// The round counters and the constraints of rule (bar).
    pub fn build(ctx: &'static Context, un: &ZUnrolled) -> (ZPgas, Vec<ZBool>) {
        let mut bars: Vec<usize> = (0..un.events.len())
            .filter(|&e| set_of(&un.events[e], BaseSet::Bar).is_some())
            .collect();
        bars.sort_by_key(|&e| {
            let ev = &un.events[e];
            (ev.thread.0, ev.step, ev.ord)
        });
        let zero = Int::from_i64(ctx, 0);
        let one = Int::from_i64(ctx, 1);
        let mut count: BTreeMap<u32, (Int<'static>, usize)> = BTreeMap::new();
        let mut round = Vec::new();
        for &e in &bars {
            let ev = &un.events[e];
            let (c, k) = count
                .get(&ev.thread.0)
                .cloned()
                .unwrap_or((zero.clone(), 0));
            round.push((e, c.clone()));
            let is_bar = set_of(ev, BaseSet::Bar).expect("a barrier-capable event");
            let next = Int::add(ctx, &[&c, &is_bar.ite(&one, &zero)]);
            count.insert(ev.thread.0, (next, k + 1));
        }
        let rounds = count.values().map(|x| x.1).max().unwrap_or(0);
        let mut cs = Vec::new();
        let nthreads = un.threads.len() as u32;
        for (a, ra) in &round {
            let ea = &un.events[*a];
            let mut need = Vec::new();
            for tb in (0..nthreads).filter(|&t| t != ea.thread.0) {
                let alts: Vec<ZBool> = round
                    .iter()
                    .filter(|(b, _)| un.events[*b].thread.0 == tb)
                    .map(|(b, rb)| {
                        let bb = set_of(&un.events[*b], BaseSet::Bar).expect("barrier");
                        Bool::and(ctx, &[&bb, &rb._eq(ra)])
                    })
                    .collect();
                need.push(or(ctx, &alts));
            }
            let ba = set_of(ea, BaseSet::Bar).expect("barrier");
            cs.push(ba.implies(&and(ctx, &need)));
        }
        (ZPgas { round, rounds }, cs)
    }
}

/// PGAS base relation `rel` (`op`, `fifo`, `bar`; others are empty).
pub fn relation(ctx: &'static Context, un: &ZUnrolled, pgas: Option<&ZPgas>, rel: BaseRel) -> ZRel {
    let mut m: HashMap<(usize, usize), Vec<ZBool>> = HashMap::default();
    match rel {
        BaseRel::Op => {
            for r in &un.remote {
                for k in [(r.issue, r.popa), (r.issue, r.popb), (r.popa, r.popb)] {
                    m.entry(k).or_default().push(r.sel.clone());
                }
            }
        }
        BaseRel::Fifo => {
            for r1 in &un.remote {
                for r2 in &un.remote {
                    if r1.thread != r2.thread || r1.step >= r2.step {
                        continue;
                    }
                    let q = un.events[r1.issue].value._eq(&un.events[r2.issue].value);
                    let c = Bool::and(ctx, &[&r1.sel, &r2.sel, &q]);
                    m.entry((r1.popa, r2.popa)).or_default().push(c.clone());
                    m.entry((r1.popb, r2.popb)).or_default().push(c);
                }
            }
        }
        BaseRel::Bar => {
            if let Some(pg) = pgas {
                for (a, ra) in &pg.round {
                    for (b, rb) in &pg.round {
                        let (ea, eb) = (&un.events[*a], &un.events[*b]);
                        if ea.thread == eb.thread {
                            continue;
                        }
                        let (ba, bb) = (set_of(ea, BaseSet::Bar), set_of(eb, BaseSet::Bar));
                        if let (Some(ba), Some(bb)) = (ba, bb) {
                            m.entry((*a, *b))
                                .or_default()
                                .push(Bool::and(ctx, &[&ba, &bb, &ra._eq(rb)]));
                        }
                    }
                }
            }
        }
        _ => {}
    }
    m.into_iter().map(|(k, v)| (k, or(ctx, &v))).collect()
}

/// The §8.2 cycle condition on the trace graph (module docs): to assume.
/// `rels` are the candidate's po, rf, co and fr, in that order.
pub fn trace_cycle(ctx: &'static Context, un: &ZUnrolled, pg: &ZPgas, rels: &[ZRel; 4]) -> ZBool {
    let n = un.events.len();
    // The node of each event: pops belong to their issue.
    let mut node: Vec<usize> = (0..n).collect();
    for r in &un.remote {
        node[r.popa] = r.issue;
        node[r.popb] = r.issue;
    }
    // A trace event: a read, a write or an issue.
    let act: Vec<ZBool> = un
        .events
        .iter()
        .map(|ev| {
            let mut v = vec![ev.read.clone(), ev.write.clone()];
            v.extend(set_of(ev, BaseSet::Issue));
            or(ctx, &v)
        })
        .collect();
    let is_trace = |e: usize| {
        let ev = &un.events[e];
        ev.may_read || ev.may_write || set_of(ev, BaseSet::Issue).is_some()
    };
    let reps: Vec<usize> = (0..n)
        .filter(|&e| !un.events[e].pop && is_trace(e))
        .collect();
    let mut edges: BTreeMap<(usize, usize), Vec<ZBool>> = BTreeMap::new();
    for a in (0..n).filter(|&e| is_trace(e)) {
        for b in (0..n).filter(|&e| is_trace(e)) {
            let (x, y) = (node[a], node[b]);
            if x == y {
                continue;
            }
            for rel in rels {
                if let Some(c) = rel.get(&(a, b)) {
                    edges
                        .entry((x, y))
                        .or_default()
                        .push(and(ctx, &[c.clone(), act[a].clone(), act[b].clone()]));
                }
            }
        }
    }
    // Rounds are nodes n + j.
    let po = &rels[0];
    for &x in &reps {
        for (b, rb) in &pg.round {
            let Some(bar) = set_of(&un.events[*b], BaseSet::Bar) else {
                continue;
            };
            for j in 0..pg.rounds {
                let in_j = Bool::and(ctx, &[&bar, &rb._eq(&Int::from_i64(ctx, j as i64))]);
                if let Some(c) = po.get(&(x, *b)) {
                    edges
                        .entry((x, n + j))
                        .or_default()
                        .push(and(ctx, &[c.clone(), act[x].clone(), in_j.clone()]));
                }
                if let Some(c) = po.get(&(*b, x)) {
                    edges
                        .entry((n + j, x))
                        .or_default()
                        .push(and(ctx, &[c.clone(), act[x].clone(), in_j]));
                }
            }
        }
    }
    let mut nodes = reps.clone();
    nodes.extend((0..pg.rounds).map(|j| n + j));
    let inset: HashMap<usize, ZBool> = nodes
        .iter()
        .map(|&u| (u, Bool::fresh_const(ctx, "tcyc")))
        .collect();
    let mut cs = vec![or(
        ctx,
        &nodes.iter().map(|u| inset[u].clone()).collect::<Vec<_>>(),
    )];
    let mut out: BTreeMap<usize, Vec<(usize, ZBool)>> = BTreeMap::new();
    for ((x, y), v) in edges {
        out.entry(x).or_default().push((y, or(ctx, &v)));
    }
    for &u in &nodes {
        let succ = Int::fresh_const(ctx, "tsucc");
        let alts: Vec<ZBool> = out
            .get(&u)
            .into_iter()
            .flatten()
            .map(|(v, c)| {
                and(
                    ctx,
                    &[
                        succ._eq(&Int::from_i64(ctx, *v as i64)),
                        inset[v].clone(),
                        c.clone(),
                    ],
                )
            })
            .collect();
        cs.push(inset[&u].implies(&or(ctx, &alts)));
    }
    and(ctx, &cs)
}
