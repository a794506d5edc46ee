//! Reading the witness [`Execution`] off the SAT solver's current model
//! (events, rf, co, final registers and states, paths), in the
//! backend-neutral form of [`crate::engines::bounded::execution`].

use super::Encoder;
use crate::engines::bounded::{Cycle, EventInfo, Execution};

/// Reads the execution off the solver's current model.
pub fn extract(enc: &Encoder) -> Execution {
    let p = enc.prog;
    let cnf = &enc.cnf;
    let mut events = Vec::new();
    for ev in &enc.un.events {
        if !cnf.value(ev.exec) {
            continue;
        }
        let (r, w) = (cnf.value(ev.read), cnf.value(ev.write));
        let kind = if r {
            "R".to_string()
        } else if w {
            "W".to_string()
        } else if let Some((n, _)) = ev.fences.iter().find(|(n, l)| *n != "F" && cnf.value(*l)) {
            n.to_string()
        } else {
            // A failed store-conditional: no access.
            continue;
        };
        let raw = cnf.bv_value(&ev.addr[..ev.addr.len() - 1].to_vec());
        let lock = cnf.value(ev.addr[ev.addr.len() - 1]);
        let value = cnf.bv_value(&ev.value);
        let instr = ev
            .instrs
            .iter()
            .find(|(_, l)| cnf.value(*l))
            .map(|x| x.0)
            .unwrap_or(0);
        let is_access = r || w;
        // Pops sit in the step's last two slots; the instruction's other
        // events in slots 0, 1, ….
        let ord = if ev.pop {
            let same_instr = |o: &&super::unroll::Event| {
                o.thread == ev.thread
                    && o.step == ev.step
                    && o.instrs.iter().any(|(i, _)| *i == instr)
            };
            let plain = enc
                .un
                .events
                .iter()
                .filter(same_instr)
                .filter(|o| !o.pop)
                .count();
            let pops_before = enc
                .un
                .events
                .iter()
                .filter(same_instr)
                .filter(|o| o.pop && o.slot < ev.slot)
                .count();
            (plain + pops_before) as u32
        } else {
            ev.slot
        };
        events.push(
            EventInfo {
                id: ev.id,
                thread: ev.thread.0,
                step: ev.step,
                kind,
                addr: if is_access && !lock { Some(raw) } else { None },
                lock,
                value,
                instr,
                ord,
                pop: ev.pop,
                label: String::new(),
            }
            .labelled(p),
        );
    }
    let mut rf: Vec<(usize, usize)> = enc
        .rf
        .iter()
        .filter(|(_, l)| cnf.value(**l))
        .map(|(k, _)| *k)
        .collect();
    rf.sort_by_key(|x| (x.1, x.0));
    let rf_init: Vec<usize> = enc
        .rf_init
        .iter()
        .enumerate()
        .filter(|(i, l)| l.is_some_and(|l| cnf.value(l)) && events.iter().any(|e| e.id == *i))
        .map(|(i, _)| i)
        .collect();
    // co per location: sort writes of each location by number of co-predecessors.
    let mut by_loc: std::collections::BTreeMap<(bool, Option<i64>), Vec<usize>> =
        Default::default();
    for e in events.iter().filter(|e| e.kind == "W") {
        by_loc.entry((e.lock, e.addr)).or_default().push(e.id);
    }
    let mut co = Vec::new();
    for (_, ws) in by_loc {
        let mut ws2: Vec<(usize, usize)> = ws
            .iter()
            .map(|&w| {
                let before = ws
                    .iter()
                    .filter(|&&o| {
                        o != w && {
                            let (lo, hi) = (o.min(w), o.max(w));
                            enc.co_var
                                .get(&(lo, hi))
                                .is_some_and(|l| cnf.value(*l) == (o < w))
                        }
                    })
                    .count();
                (before, w)
            })
            .collect();
        ws2.sort();
        co.push(ws2.into_iter().map(|x| x.1).collect());
    }
    let regs = enc
        .un
        .threads
        .iter()
        .map(|t| t.regs_end.iter().map(|b| cnf.bv_value(b)).collect())
        .collect();
    let path: Vec<Vec<usize>> = enc
        .un
        .threads
        .iter()
        .map(|t| {
            t.sel
                .iter()
                .filter_map(|cands| cands.iter().find(|(_, l)| cnf.value(*l)).map(|x| x.0))
                .collect()
        })
        .collect();
    // The state at the end: the target of the last selected instruction.
    let states = path
        .iter()
        .enumerate()
        .map(|(ti, steps)| {
            let th = &p.threads[ti];
            steps.last().map_or(th.initial.0, |&i| th.instrs[i].to.0)
        })
        .collect();
    Execution::new(events, rf, rf_init, co, regs, states, path).with_sections(p)
}

/// The shortest hb cycle of the encoder's current candidate (over the
/// executed memory events of `x`, its extraction), and its fr edges, from
/// the encoder's concrete relations. [`Execution::hb_cycle`] computes the
/// same from the execution alone and is what [`crate::engines::bounded::queries`] uses; this is kept
/// as its reference (tests/engines/replay.rs compares them).
pub fn hb_cycle_of_candidate(
    enc: &mut Encoder,
    x: &Execution,
) -> (Option<Cycle>, Vec<(usize, usize)>) {
    use crate::cat::base::BaseRel;
    let rels: Vec<(&str, crate::cat::eval::Mat)> =
        [BaseRel::Po, BaseRel::Rf, BaseRel::Co, BaseRel::Fr]
            .into_iter()
            .map(|r| (r.name(), enc.concrete_rel(r)))
            .collect();
    let mem: Vec<usize> = x
        .events
        .iter()
        .filter(|e| e.kind == "R" || e.kind == "W")
        .map(|e| e.id)
        .collect();
    let fr: Vec<(usize, usize)> = mem
        .iter()
        .flat_map(|&a| mem.iter().map(move |&b| (a, b)))
        .filter(|&(a, b)| rels[3].1.get(a, b))
        .collect();
    let edge = |a: usize, b: usize| {
        rels.iter()
            .find(|(_, m)| m.get(a, b))
            .map(|(n, _)| n.to_string())
    };
    let best = crate::engines::bounded::execution::shortest_cycle(mem.len(), |i, j| {
        edge(mem[i], mem[j]).is_some()
    })
    .map(|p| p.into_iter().map(|i| mem[i]).collect::<Vec<usize>>());
    let cycle = best.map(|p| Cycle {
        edges: (0..p.len())
            .map(|i| {
                let (a, b) = (p[i], p[(i + 1) % p.len()]);
                (a, edge(a, b).unwrap_or_default(), b)
            })
            .collect(),
    });
    (cycle, fr)
}
