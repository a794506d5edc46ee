//! A non-robustness witness: the normal-form computation the automaton
//! found, as an [`Execution`] of the bounded engine (events in thread and
//! program order, rf, co, final registers and control states), so that it
//! renders in the bounded engine's witness format and its happens-before
//! cycle is recomputed from the execution alone
//! ([`Execution::hb_cycle`]) — an independent check of the automaton's
//! marks.
//!
//! rf and co come from the computation `w = w1·w2·w3` (events ordered by
//! part, then by the automaton's order): a load from memory reads the
//! last flush to its address before it in `w` (or the initial value), an
//! early read reads its thread's newest earlier store to the address; co
//! orders each address's flushes as `w` does.

use super::automaton::{State, Step};
use super::program_class::LOCK_ADDR;
use crate::engines::bounded::{EventInfo, Execution};
use crate::program::Program;

/// Position of an event in `w`: (part, step index, event index).
type Pos = (u8, usize, usize);

/// An event of the witness with its positions in `w`.
#[derive(Clone)]
struct Placed {
    /// The event.
    info: EventInfo,
    /// Where the read or the store's issue is.
    at: Pos,
    /// Where the store's flush is (`at` for reads).
    flush: Pos,
    /// A read from the thread's own buffer.
    early: bool,
}

/// The execution of `steps`, ending in `last` (for final registers and
/// control states), and the id of each step's events (`ids[step][event]`).
pub(crate) fn execution(p: &Program, steps: &[Step], last: &State) -> (Execution, Vec<Vec<usize>>) {
    let n = p.threads.len();
    // Events per thread in program order, with their positions.
    let mut per_thread: Vec<Vec<Placed>> = vec![Vec::new(); n];
    let mut path: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (si, st) in steps.iter().enumerate() {
        let t = st.thread;
        let step = path[t].len() as u32;
        path[t].push(st.instr);
        for (ei, e) in st.events.iter().enumerate() {
            let lock = e.addr == LOCK_ADDR;
            let info = EventInfo {
                id: 0,
                thread: t as u32,
                step,
                kind: if e.write { "W" } else { "R" }.into(),
                addr: (!lock).then_some(e.addr),
                lock,
                value: e.value,
                instr: st.instr,
                ord: ei as u32,
                pop: false,
                label: String::new(),
            };
            per_thread[t].push(Placed {
                info,
                at: (e.part, si, ei),
                flush: (e.flush, si, ei),
                early: e.early,
            });
        }
        path[t].extend(&st.locals);
    }
    let mut all: Vec<Placed> = Vec::new();
    for evs in per_thread {
        all.extend(evs);
    }
    let mut ids: Vec<Vec<usize>> = steps.iter().map(|st| vec![0; st.events.len()]).collect();
    for (i, e) in all.iter_mut().enumerate() {
        e.info.id = i;
        ids[e.at.1][e.at.2] = i;
    }
    let loc = |e: &EventInfo| (e.lock, e.addr);
    let mut rf = Vec::new();
    let mut rf_init = Vec::new();
    let is_write_to =
        |j: usize, r: &EventInfo| all[j].info.kind == "W" && loc(&all[j].info) == loc(r);
    for (i, e) in all.iter().enumerate() {
        let r = &e.info;
        if r.kind != "R" {
            continue;
        }
        let src = if e.early {
            // The thread's newest earlier store to the address.
            (0..i)
                .rev()
                .find(|&j| all[j].info.thread == r.thread && is_write_to(j, r))
        } else {
            (0..all.len())
                .filter(|&j| is_write_to(j, r) && all[j].flush < e.at)
                .max_by_key(|&j| all[j].flush)
        };
        match src {
            Some(j) => rf.push((j, i)),
            None => rf_init.push(i),
        }
    }
    let mut locs: Vec<(bool, Option<i64>)> = all
        .iter()
        .filter(|e| e.info.kind == "W")
        .map(|e| loc(&e.info))
        .collect();
    locs.sort();
    locs.dedup();
    let co = locs
        .iter()
        .map(|l| {
            let mut ws: Vec<usize> = (0..all.len())
                .filter(|&j| all[j].info.kind == "W" && loc(&all[j].info) == *l)
                .collect();
            ws.sort_by_key(|&j| all[j].flush);
            ws
        })
        .collect();
    let mut regs = Vec::new();
    let mut off = 0;
    for t in &p.threads {
        regs.push(last.regs[off..off + t.regs.len()].to_vec());
        off += t.regs.len();
    }
    let events = all.into_iter().map(|e| e.info.labelled(p)).collect();
    let exec = Execution::new(events, rf, rf_init, co, regs, last.pc.clone(), path);
    (exec, ids)
}

/// The computation `w` as text: each part's events in order, a store's
/// issue and flush apart when they are in different parts.
pub(crate) fn computation_text(
    p: &Program,
    steps: &[Step],
    exec: &Execution,
    ids: &[Vec<usize>],
) -> String {
    use std::fmt::Write;
    let mut rows: Vec<((u8, usize, usize, u8), String)> = Vec::new();
    for (si, st) in steps.iter().enumerate() {
        let t = crate::program::ThreadId(st.thread as u32);
        let ins = &p.threads[st.thread].instrs[st.instr];
        let at = format!(
            "[{} -> {}]",
            p.state_name(t, ins.from),
            p.state_name(t, ins.to)
        );
        for (ei, e) in st.events.iter().enumerate() {
            let label = exec
                .event(ids[si][ei])
                .map(|x| x.label.clone())
                .unwrap_or_default();
            if e.write && e.flush != e.part {
                let issue = format!("{label:<24} {at}  (issue; flush in part {})", e.flush);
                rows.push(((e.part, si, ei, 0), issue));
                rows.push(((e.flush, si, ei, 1), format!("{label:<24} {at}  (flush)")));
            } else {
                let how = if e.early {
                    "  (early read from own buffer)"
                } else {
                    ""
                };
                rows.push(((e.part, si, ei, 0), format!("{label:<24} {at}{how}")));
            }
        }
    }
    rows.sort_by_key(|r| r.0);
    let mut s = String::new();
    let mut part = 0;
    for ((pt, ..), text) in rows {
        if pt != part {
            part = pt;
            let _ = writeln!(s, "  part {part}:");
        }
        let _ = writeln!(s, "    {text}");
    }
    s
}
