//! One thread column of a litmus test → one IR thread: control states
//! (`q0 .. qN`, a labelled position named after its label), each
//! instruction lowered by its architecture ([`super::x86`],
//! [`super::ppc`], [`super::aarch64`], [`super::riscv`]) into a chain of commands or a (conditional) jump, and
//! whether the control graph has a cycle (herd then prints `Loop`, see
//! herdtools7's herd documentation, <http://diy.inria.fr/doc/herd.html>).

use super::ctx::{push_instr, Ctx};
use super::ops::Low;
use super::syntax::Cell;
use super::{aarch64, ppc, riscv, x86};
use crate::diag::{Error, Span};
use crate::litmus::Arch;
use crate::program::{Command, Expr, StateId, UnOp};
use std::collections::BTreeMap;

/// Lowers the cells of one thread; returns true when its control graph
/// has a cycle.
pub(super) fn lower_thread(cx: &mut Ctx, cells: &[Cell]) -> Result<bool, Error> {
    // Positions and labels.
    let mut labels: BTreeMap<String, usize> = BTreeMap::new();
    let mut instrs: Vec<(&str, Span)> = Vec::new();
    for c in cells {
        for (l, sp) in &c.labels {
            if labels.insert(l.clone(), instrs.len()).is_some() {
                return Err(cx.src.error(*sp, format!("label `{l}` defined twice")));
            }
        }
        if let Some((t, sp)) = &c.instr {
            instrs.push((t.as_str(), *sp));
        }
    }
    let n = instrs.len();
    let mut state_names: Vec<String> = (0..=n).map(|k| format!("q{k}")).collect();
    for (l, k) in &labels {
        if state_names[*k].starts_with('q') && !labels.contains_key(&state_names[*k]) {
            state_names[*k] = l.clone();
        }
    }
    cx.thread.states = state_names.iter().map(|s| cx.names.intern(s)).collect();
    cx.thread.initial = StateId(0);
    for (k, (text, span)) in instrs.iter().enumerate() {
        let low = match cx.arch {
            Arch::X86 => x86::lower_instr(cx, text, span.start, false)?,
            Arch::X86_64 => x86::lower_instr(cx, text, span.start, true)?,
            Arch::Ppc => ppc::lower_instr(cx, text, span.start)?,
            Arch::AArch64 => aarch64::lower_instr(cx, text, span.start)?,
            Arch::RiscV => riscv::lower_instr(cx, text, span.start)?,
        };
        let from = StateId(k as u32);
        let next = StateId(k as u32 + 1);
        let chain = |cx: &mut Ctx, cmds: Vec<Command>, tag: &str| {
            let cmds = if cmds.is_empty() {
                vec![Command::Nop]
            } else {
                cmds
            };
            let m = cmds.len();
            let mut cur = from;
            for (j, c) in cmds.into_iter().enumerate() {
                let to = if j + 1 == m {
                    next
                } else {
                    let s = cx.names.intern(&format!("q{k}{tag}.{}", j + 1));
                    cx.thread.states.push(s);
                    StateId(cx.thread.states.len() as u32 - 1)
                };
                push_instr(cx.thread, cur, to, c, *span);
                cur = to;
            }
        };
        match low {
            Low::Cmds(cmds) => chain(cx, cmds, ""),
            Low::Choice(alts) => {
                for (a, cmds) in alts.into_iter().enumerate() {
                    chain(cx, cmds, &format!("{}", (b'a' + a as u8) as char));
                }
            }
            Low::Ret => push_instr(cx.thread, from, StateId(n as u32), Command::Nop, *span),
            Low::Jump(cond, label, lspan) => {
                let Some(&tk) = labels.get(&label) else {
                    return Err(cx.src.error(lspan, format!("undefined label `{label}`")));
                };
                let target = StateId(tk as u32);
                match cond {
                    None => push_instr(cx.thread, from, target, Command::Nop, *span),
                    Some(c) => {
                        push_instr(cx.thread, from, target, Command::Assume(c.clone()), *span);
                        push_instr(
                            cx.thread,
                            from,
                            next,
                            Command::Assume(Expr::un(UnOp::Not, c)),
                            *span,
                        );
                    }
                }
            }
        }
    }
    Ok(has_cycle(cx.thread))
}

/// True when the thread's control graph has a cycle (herd prints `Loop`).
fn has_cycle(t: &crate::program::Thread) -> bool {
    let out = t.outgoing();
    // 0 = unvisited, 1 = on the stack, 2 = done; iterative DFS.
    let mut mark = vec![0u8; t.states.len()];
    for root in 0..t.states.len() {
        if mark[root] != 0 {
            continue;
        }
        let mut stack = vec![(root, 0usize)];
        mark[root] = 1;
        while let Some((q, i)) = stack.pop() {
            if let Some(&ix) = out[q].get(i) {
                stack.push((q, i + 1));
                let r = t.instrs[ix].to.0 as usize;
                match mark[r] {
                    0 => {
                        mark[r] = 1;
                        stack.push((r, 0));
                    }
                    1 => return true,
                    _ => {}
                }
            } else {
                mark[q] = 2;
            }
        }
    }
    false
}
