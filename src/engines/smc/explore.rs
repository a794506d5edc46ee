//! Exhaustive exploration without reduction: every interleaving of every
//! actor's steps (every execution), depth-first with an explicit stack.
//! The oracle of the Source-DPOR explorer ([`super::dpor`]): both must
//! find the same final states and the same Shasha–Snir traces. With
//! `memo`, configurations already visited are not explored again (a
//! stateful search for reachability, used when a goal is not determined
//! by the trace; execution and trace counts are then partial).

use super::semantics::{Semantics, State, Step};
use super::trace::SsTrace;
use super::Sink;
use crate::collections::HashSet;

struct Frame {
    state: State,
    ss: SsTrace,
    alts: Vec<Step>,
    next: usize,
}

/// Explores every execution of `sem` (with `memo`: every configuration
/// once), reporting to `sink`.
///
/// Errors: a limit (time, memory), as the reason of an "unknown" answer.
pub(super) fn explore(sem: &Semantics, sink: &mut Sink, memo: bool) -> Result<(), String> {
    let s0 = sem.initial();
    if sink.at(sem, &s0, &Vec::new) {
        return Ok(());
    }
    let mut seen: HashSet<State> = HashSet::default();
    let mut cut = false;
    let en = sem.enabled(&s0, &mut cut);
    sink.cut |= cut;
    let ss0 = SsTrace::new(sem.prog.threads.len());
    if en.is_empty() {
        sink.end(sem, &s0, &ss0, &[]);
        return Ok(());
    }
    if memo {
        seen.insert(s0.clone());
        sink.states += 1;
    }
    let mut stack = vec![Frame {
        state: s0,
        ss: ss0,
        alts: en,
        next: 0,
    }];
    let mut path: Vec<Step> = Vec::new();
    while let Some(top) = stack.last_mut() {
        sink.tick()?;
        if top.next >= top.alts.len() {
            stack.pop();
            continue;
        }
        let step = top.alts[top.next];
        top.next += 1;
        let mut s = top.state.clone();
        let Ok(eff) = sem.apply(&mut s, step) else {
            continue;
        };
        let mut ss = top.ss.clone();
        ss.push(step, &eff);
        path.truncate(stack.len() - 1);
        path.push(step);
        if sink.at(sem, &s, &|| path.clone()) {
            return Ok(());
        }
        if memo {
            if seen.contains(&s) {
                continue;
            }
            seen.insert(s.clone());
            sink.states += 1;
        }
        let mut cut = false;
        let en = sem.enabled(&s, &mut cut);
        sink.cut |= cut;
        if en.is_empty() {
            if sink.end(sem, &s, &ss, &path) {
                return Ok(());
            }
            continue;
        }
        stack.push(Frame {
            state: s,
            ss,
            alts: en,
            next: 0,
        });
    }
    Ok(())
}
