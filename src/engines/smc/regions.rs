//! Read-only regions (an SMC pre-pass for `reach`, docs/engines.md): a
//! part of a thread's acyclic automaton, from an entry state `q` to a
//! post-dominator `q'` of it (the farthest that fits), whose instructions only load shared
//! memory into registers, assign registers, `assume` and `nop`, that can
//! never block (every state has an instruction that always runs, or two
//! `assume`s of a condition and its negation; loads from constant,
//! declared addresses), whose written registers are dead at `q'` and that
//! holds no goal state but `q`. Such a region's only effect is the path
//! it takes, and every path ends at `q'`: replacing it by one `nop`
//! `q -> q'` keeps the reachable goals under SC, TSO and PSO (a load
//! changes neither memory nor buffers; an execution of the original
//! program minus the region's steps is one of the new program, and an
//! execution of the new program with the region's loads inserted at the
//! `nop`, reading anything, is one of the original). The bounded spin
//! loops of C benchmarks (`for (j = 0; !latch && j < N; j++);`, whose
//! counter is dead after the loop) are such regions; each failed read of
//! a spin loop is otherwise a separate Shasha–Snir trace.
//!
//! Not applied (the caller's choice, see [`skip_read_only`]) to
//! robustness (removing loads removes fr/rf edges of hb cycles), to
//! programs with `lock` (a load waits while another thread holds the
//! lock, so a region may block), or to threads with a cycle or a path
//! longer than the bound (the bound counts instructions).

use crate::program::{Command, Expr, GVar, GoalAt, Program, RegId, StateId, Thread, UnOp};

/// The register a command of the region's vocabulary writes.
fn written(c: &Command) -> Option<RegId> {
    match c {
        Command::Load { reg, .. } | Command::Assign { reg, .. } => Some(*reg),
        _ => None,
    }
}

/// Whether `c` may be inside a region: a load from a declared constant
/// address, a register assignment, an `assume`, a `nop`.
fn allowed(p: &Program, c: &Command) -> bool {
    match c {
        Command::Load { addr, .. } => {
            matches!(addr, Expr::Const(a) if p.var_at(*a).is_some())
        }
        Command::Assign { .. } | Command::Assume(_) | Command::Nop => true,
        _ => false,
    }
}

/// Whether one of the instructions `outs` (of one state) can always run:
/// a non-`assume`, or `assume(c)` next to `assume(!c)`.
fn never_blocks(t: &Thread, outs: &[usize]) -> bool {
    let conds: Vec<&crate::program::LExpr> = outs
        .iter()
        .filter_map(|&i| match &t.instrs[i].cmd {
            Command::Assume(e) => Some(e),
            _ => None,
        })
        .collect();
    if conds.len() < outs.len() {
        return !outs.is_empty();
    }
    conds.iter().any(|a| {
        conds
            .iter()
            .any(|b| matches!(b, Expr::Un(UnOp::Not, x) if x.as_ref() == *a))
    })
}

/// The states of `t` in topological order (sources first), or `None` if
/// the automaton has a cycle.
fn topological(t: &Thread, out: &[Vec<usize>]) -> Option<Vec<usize>> {
    let n = t.states.len();
    let mut indeg = vec![0usize; n];
    for ins in &t.instrs {
        indeg[ins.to.0 as usize] += 1;
    }
    let mut order: Vec<usize> = (0..n).filter(|&q| indeg[q] == 0).collect();
    let mut k = 0;
    while k < order.len() {
        let q = order[k];
        k += 1;
        for &i in &out[q] {
            let to = t.instrs[i].to.0 as usize;
            indeg[to] -= 1;
            if indeg[to] == 0 {
                order.push(to);
            }
        }
    }
    (order.len() == n).then_some(order)
}

/// Rewrites one thread (`goal_states`: its goal states; `observed`: its
/// registers named by goal conditions); returns the number of regions
/// with a load that were replaced, or `None` when the thread is cyclic or
/// has a path longer than `bound`.
fn thread(
    p: &Program,
    t: &mut Thread,
    goal_states: &[StateId],
    observed: &[RegId],
    bound: u32,
) -> Option<usize> {
    let n = t.states.len();
    let out = t.outgoing();
    let order = topological(t, &out)?;
    // Longest path (instructions) from each state.
    let mut longest = vec![0u32; n];
    for &q in order.iter().rev() {
        longest[q] = out[q]
            .iter()
            .map(|&i| longest[t.instrs[i].to.0 as usize] + 1)
            .max()
            .unwrap_or(0);
    }
    if longest[t.initial.0 as usize] > bound {
        return None;
    }
    // Live registers at each state (strong liveness, shared with the
    // simplifier and the explicit engine).
    let live = crate::program::liveness::live_registers(t, observed);
    // Immediate post-dominators (`n` = the virtual exit after every
    // state without instructions), with their depth in the tree.
    let mut ipdom = vec![n; n];
    let mut depth = vec![0usize; n + 1];
    for &q in order.iter().rev() {
        let mut acc: Option<usize> = None;
        for &i in &out[q] {
            let mut b = t.instrs[i].to.0 as usize;
            acc = Some(match acc {
                None => b,
                Some(mut a) => {
                    while a != b {
                        if depth[a] >= depth[b] {
                            a = ipdom[a];
                        } else {
                            b = ipdom[b];
                        }
                    }
                    a
                }
            });
        }
        ipdom[q] = acc.unwrap_or(n);
        depth[q] = depth[ipdom[q]] + 1;
    }
    let mut nop_of: Vec<Option<usize>> = vec![None; n];
    let mut with_load = vec![false; n];
    // The region from q to exit: `Some((loads, steps))` when read-only,
    // `None` when a written register is live at the exit (a farther exit
    // may do), `Err(())` when an instruction is not allowed, a state may
    // block or a goal state is inside (no farther exit can do).
    let region = |q: usize, exit: usize| -> Result<Option<(bool, usize)>, ()> {
        let mut inside = vec![false; n];
        let mut stack = vec![q];
        inside[q] = true;
        let (mut loads, mut steps, mut dead) = (false, 0, true);
        while let Some(s) = stack.pop() {
            if s != q && goal_states.contains(&StateId(s as u32)) {
                return Err(());
            }
            if !never_blocks(t, &out[s]) {
                return Err(());
            }
            for &i in &out[s] {
                let ins = &t.instrs[i];
                if !allowed(p, &ins.cmd) {
                    return Err(());
                }
                dead &= !written(&ins.cmd).is_some_and(|r| live[exit][r.0 as usize]);
                loads |= matches!(ins.cmd, Command::Load { .. });
                steps += 1;
                let to = ins.to.0 as usize;
                if to != exit && !inside[to] {
                    inside[to] = true;
                    stack.push(to);
                }
            }
        }
        Ok(dead.then_some((loads, steps)))
    };
    for q in 0..n {
        // The farthest exit on q's post-dominator chain (at most 64
        // tried) whose region is read-only.
        let mut exit = ipdom[q];
        for _ in 0..64 {
            if exit == n {
                break;
            }
            match region(q, exit) {
                Err(()) => break,
                Ok(Some((loads, steps))) if loads || steps > 1 => {
                    nop_of[q] = Some(exit);
                    with_load[q] = loads;
                }
                Ok(_) => {}
            }
            exit = ipdom[exit];
        }
    }
    if !with_load.contains(&true) {
        return Some(0);
    }
    let old = std::mem::take(&mut t.instrs);
    let mut done = vec![false; n];
    for ins in old {
        let q = ins.from.0 as usize;
        match nop_of[q] {
            None => t.instrs.push(ins),
            Some(exit) if !done[q] => {
                done[q] = true;
                t.instrs.push(crate::program::Instr {
                    from: ins.from,
                    to: StateId(exit as u32),
                    cmd: Command::Nop,
                    span: ins.span,
                });
            }
            Some(_) => {}
        }
    }
    // Count the replaced regions with a load still reachable (a region
    // inside a replaced one is replaced too, but no longer entered).
    let out = t.outgoing();
    let mut seen = vec![false; n];
    let mut stack = vec![t.initial.0 as usize];
    seen[t.initial.0 as usize] = true;
    while let Some(s) = stack.pop() {
        for &i in &out[s] {
            let to = t.instrs[i].to.0 as usize;
            if !seen[to] {
                seen[to] = true;
                stack.push(to);
            }
        }
    }
    Some((0..n).filter(|&q| seen[q] && with_load[q]).count())
}

/// `p` with every read-only region (module doc) replaced by a `nop`,
/// and the number of regions with a load replaced; `None` when nothing
/// was replaced or `p` has a `lock` (then a load may wait). Threads with
/// a cycle or a path longer than `bound` instructions are left alone.
/// For `reach` only: the goals reachable in the result within `bound`
/// are those of `p`; traces and final register values differ.
pub fn skip_read_only(p: &Program, bound: u32) -> Option<(Program, usize)> {
    let has_lock = p
        .threads
        .iter()
        .any(|t| t.instrs.iter().any(|i| matches!(i.cmd, Command::Lock)));
    if has_lock {
        return None;
    }
    let mut q = p.clone();
    let mut total = 0;
    for ti in 0..q.threads.len() {
        let mut goal_states = Vec::new();
        let mut observed = Vec::new();
        for g in &p.goals {
            if let GoalAt::States(v) = &g.at {
                goal_states.extend(v.iter().filter(|(t, _)| t.0 as usize == ti).map(|x| x.1));
            }
            if let Some(c) = &g.cond {
                c.for_each_var(&mut |v| {
                    if let GVar::Reg(t, r) = v {
                        if t.0 as usize == ti {
                            observed.push(r);
                        }
                    }
                });
            }
        }
        let mut th = std::mem::replace(&mut q.threads[ti], p.threads[ti].clone());
        total += thread(p, &mut th, &goal_states, &observed, bound).unwrap_or(0);
        q.threads[ti] = th;
    }
    (total > 0).then_some((q, total))
}
