//! A PGAS non-robustness witness: the normal-form computation the
//! automaton found, as an [`Execution`] of the bounded engine (issue,
//! `popa`, `popb` and barrier events as the PGAS encoding names them), so
//! that it renders in the bounded engine's witness format and its
//! happens-before cycle is recomputed from the execution alone
//! ([`Execution::pgas_hb_cycle`]) — an independent check of the marks.
//!
//! Values and rf/co come from replaying the word `τ1·τ2·τ3·τ4` (events
//! ordered by part, then by generation) on the ranks' memories from the
//! initial state (thesis Table 8.1): a read takes the last write to its
//! address before it, a `popb` writes what its `popa` read, co orders
//! each address's writes as the word does. A load of part 1 that the
//! replay gives another value than the automaton did is an internal
//! error (no witness).

use super::{Kind, PState, PStep, PARTS};
use crate::engines::bounded::{EventInfo, Execution};
use crate::engines::normal_form::Witness;
use crate::program::regfile::RegFile;
use crate::program::{Program, ThreadId, Width};
use std::collections::{BTreeMap, HashMap};

/// An event with its position in the word: (part, step, index in step).
struct Placed {
    info: EventInfo,
    pos: (u8, usize, usize),
    kind: Kind,
}

/// The witness of `steps` (ending in `last`) for `profile`, or `None`
/// when the replayed execution has no hb cycle or disagrees with the
/// automaton.
pub(crate) fn witness(
    p: &Program,
    w: Width,
    profile: Vec<ThreadId>,
    steps: &[PStep],
    last: &PState,
) -> Option<Witness> {
    let n = p.threads.len();
    let mut path: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut per_thread: Vec<Vec<Placed>> = (0..n).map(|_| Vec::new()).collect();
    for (si, st) in steps.iter().enumerate() {
        // A thread's events belong to its last move of the step (the
        // local commands before it have none).
        let last_move = |t: usize| st.moves.iter().rposition(|m| m.0 == t);
        for (mi, &(t, instr)) in st.moves.iter().enumerate() {
            let step = path[t].len() as u32;
            path[t].push(instr);
            if last_move(t) != Some(mi) {
                continue;
            }
            let mine: Vec<usize> = (0..st.events.len())
                .filter(|&i| st.events[i].thread == t)
                .collect();
            let is_pop = |k: Kind| matches!(k, Kind::PopA | Kind::PopB);
            let plain = mine.iter().filter(|&&i| !is_pop(st.events[i].kind)).count();
            let (mut ord_plain, mut pops) = (0, 0);
            for ei in mine {
                let e = st.events[ei];
                let pop = is_pop(e.kind);
                let ord = if pop {
                    pops += 1;
                    plain + pops - 1
                } else {
                    ord_plain += 1;
                    ord_plain - 1
                };
                let kind = match e.kind {
                    Kind::Load | Kind::PopA => "R",
                    Kind::Store | Kind::PopB => "W",
                    Kind::Issue => "ISSUE",
                    Kind::Bar => "BAR",
                };
                per_thread[t].push(Placed {
                    info: EventInfo {
                        id: 0,
                        thread: t as u32,
                        step,
                        kind: kind.into(),
                        addr: e.kind.accesses().then_some(e.addr),
                        lock: false,
                        value: e.value,
                        instr,
                        ord: ord as u32,
                        pop,
                        label: String::new(),
                    },
                    pos: (e.part, si, ei),
                    kind: e.kind,
                });
            }
        }
    }
    let mut all: Vec<Placed> = per_thread.into_iter().flatten().collect();
    for (i, e) in all.iter_mut().enumerate() {
        e.info.id = i;
    }
    let (rf, rf_init, co) = replay(p, w, &mut all)?;
    let file = RegFile::new(p, w);
    let regs = (0..n).map(|t| last.regs[file.span(t)].to_vec()).collect();
    let mut word: Vec<&Placed> = all.iter().collect();
    word.sort_by_key(|e| e.pos);
    let events: Vec<EventInfo> = all.iter().map(|e| e.info.clone().labelled(p)).collect();
    let mut computation = String::new();
    for part in 1..=PARTS {
        let labels: Vec<&str> = word
            .iter()
            .filter(|e| e.pos.0 == part)
            .map(|e| events[e.info.id].label.as_str())
            .collect();
        let shown = if labels.is_empty() {
            "(empty)".to_string()
        } else {
            labels.join(", ")
        };
        computation.push_str(&format!("    part {part}: {shown}\n"));
    }
    let execution = Execution::new(events, rf, rf_init, co, regs, last.pc.clone(), path);
    let cycle = execution.pgas_hb_cycle()?;
    Some(Witness::new(
        p,
        profile,
        execution,
        cycle,
        computation,
        PARTS,
    ))
}

type Replayed = (Vec<(usize, usize)>, Vec<usize>, Vec<Vec<usize>>);

/// Replays the word on memory: fills in the values of the pops and
/// returns rf, the reads of initial values and co per address; `None`
/// when a load of part 1 reads another value than the automaton's.
fn replay(p: &Program, w: Width, all: &mut [Placed]) -> Option<Replayed> {
    let mut order: Vec<usize> = (0..all.len()).collect();
    order.sort_by_key(|&i| all[i].pos);
    let mut mem: HashMap<i64, (i64, usize)> = HashMap::new();
    let mut popa_val: HashMap<(usize, u32), i64> = HashMap::new();
    let (mut rf, mut rf_init) = (Vec::new(), Vec::new());
    let mut co: BTreeMap<i64, Vec<usize>> = BTreeMap::new();
    for i in order {
        let Some(a) = all[i].info.addr else { continue };
        let id = all[i].info.id;
        let key = (all[i].pos.1, all[i].info.thread);
        match all[i].kind {
            Kind::Load | Kind::PopA => {
                let v = match mem.get(&a) {
                    Some(&(v, w)) => {
                        rf.push((w, id));
                        v
                    }
                    None => {
                        rf_init.push(id);
                        w.wrap(p.init_value(a))
                    }
                };
                if all[i].kind == Kind::Load && v != all[i].info.value {
                    return None;
                }
                all[i].info.value = v;
                popa_val.insert(key, v);
            }
            Kind::Store | Kind::PopB => {
                if all[i].kind == Kind::PopB {
                    all[i].info.value = *popa_val.get(&key)?;
                }
                mem.insert(a, (all[i].info.value, id));
                co.entry(a).or_default().push(id);
            }
            Kind::Issue | Kind::Bar => {}
        }
    }
    rf.sort_by_key(|x| (x.1, x.0));
    Some((rf, rf_init, co.into_values().collect()))
}
