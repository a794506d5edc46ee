//! The forward dataflow fixpoint over one lowered litmus thread's control
//! states, shared by the static analyses of this front-end (the
//! registers known at each instruction, [`super::known`]; the values a
//! register may hold, [`super::values`]), and the lookup of the control
//! states from which an access written at a given place runs.

use crate::diag::Span;
use crate::program::{Instr, Thread};

/// Runs a forward analysis over `t` to a fixpoint: the facts `init` hold
/// at the initial state; an instruction maps the facts before it to the
/// facts after it with `step`; where several paths meet, `join(old,
/// new)` merges `new` into `old` and returns true when `old` changed. The
/// result holds, per control state, the facts before its outgoing
/// instructions (`None`: no path reaches it). Terminates when `join` can
/// change a state's facts only finitely often (a lattice of finite
/// height, or one capped by the analysis).
pub(super) fn forward<R: Clone>(
    t: &Thread,
    init: R,
    mut step: impl FnMut(&Instr, &mut R),
    join: impl Fn(&mut R, R) -> bool,
) -> Vec<Option<R>> {
    let n = t.states.len();
    let mut at: Vec<Option<R>> = vec![None; n];
    let start = t.initial.0 as usize;
    if start >= n {
        return at;
    }
    at[start] = Some(init);
    let out = t.outgoing();
    let mut work = vec![start];
    while let Some(q) = work.pop() {
        let Some(before) = at[q].clone() else {
            continue;
        };
        for &i in &out[q] {
            let ins = &t.instrs[i];
            let mut after = before.clone();
            step(ins, &mut after);
            let to = ins.to.0 as usize;
            let grew = match &mut at[to] {
                slot @ None => {
                    *slot = Some(after);
                    true
                }
                Some(old) => join(old, after),
            };
            if grew {
                work.push(to);
            }
        }
    }
    at
}

/// The control states (indices into `t.states`) from which the
/// instructions of `t` written at `span` (an access's mnemonic) that read
/// or write memory run, in instruction order.
pub(super) fn access_states(t: &Thread, span: Span) -> impl Iterator<Item = usize> + '_ {
    t.instrs
        .iter()
        .filter(move |ins| {
            let here =
                ins.span.start <= span.start && span.start < ins.span.end.max(ins.span.start + 1);
            here && ins.cmd.accesses_memory()
        })
        .map(|ins| ins.from.0 as usize)
}
