//! Index specialization: a state entered only by `assume(r == k)` edges
//! (one per value `k` of register `r`) whose next instructions access
//! memory at an address that depends on `r` gets one copy of those
//! instructions per edge, with `r` replaced by that edge's `k`.
//!
//! The C front-end (docs/c.md, "Array indices") branches on every value of
//! a non-constant array index (`assume(i == 0)`, …, `assume(i == n-1)`,
//! and the out-of-bounds rest to the thread's error state) and joins the
//! branches again; after this pass each branch accesses a constant
//! address. The bounded engine's static relation analysis
//! (`bounded::varisat::analysis`) only knows constant addresses: an access
//! at `arr + i` may alias every cell, one at `arr + 2` only that cell, so
//! that rf, co and fr literals exist only between accesses of one array
//! element.
//!
//! Exact: on an edge `assume(r == k)` the register holds `k`, so the copy
//! computes the same addresses and values, and the path's instructions and
//! steps are the same (each copy replaces one instruction of the chain).
//! What changes is syntactic: the copies no longer read `r`, so an address
//! dependency on `r`'s load becomes the control dependency of the
//! `assume` (relevant only to models that order by dependencies — Power,
//! Arm, RMO — not to sc, tso, pso, the C front-end's models).

use crate::program::intern::Interner;
use crate::program::simplify::{fold_subst, writes};
use crate::program::{Command, Expr, Instr, LExpr, RegId, StateId, Thread, Width};

/// Longest chain of instructions from the join to the access copied per
/// edge.
pub const MAX_CHAIN: usize = 8;

/// `e` is `r == k` or `k == r`: (r, k).
fn eq_const(e: &LExpr) -> Option<(RegId, i64)> {
    if let Expr::Bin(crate::program::BinOp::Eq, a, b) = e {
        match (&**a, &**b) {
            (Expr::Var(r), Expr::Const(k)) | (Expr::Const(k), Expr::Var(r)) => Some((*r, *k)),
            _ => None,
        }
    } else {
        None
    }
}

/// Does `e` name `r`?
fn mentions(e: &LExpr, r: RegId) -> bool {
    let mut found = false;
    e.for_each_var(&mut |v| found |= v == r);
    found
}

/// Does `c` access memory at an address that names `r`?
fn address_uses(c: &Command, r: RegId) -> bool {
    match c {
        Command::Load { addr, .. }
        | Command::LoadReserve { addr, .. }
        | Command::Store { addr, .. }
        | Command::StoreCond { addr, .. } => mentions(addr, r),
        Command::Atomic(cs) => cs.iter().any(|c| address_uses(c, r)),
        Command::Ann(_, c) | Command::Tagged(_, c) => address_uses(c, r),
        _ => false,
    }
}

/// `c` with `r` replaced by `k` (folded at width `w`) up to the first
/// write of `r`; `None` for commands this pass does not rewrite (PGAS).
/// `live` says whether `r` still holds `k` and becomes false after a
/// write of `r`.
fn subst(c: &Command, r: RegId, k: i64, w: Width, live: &mut bool) -> Option<Command> {
    let s = |e: &LExpr, live: bool| {
        if live {
            fold_subst(e, r, k, w)
        } else {
            e.clone()
        }
    };
    let out = match c {
        Command::Load { reg, addr } => Command::Load {
            reg: *reg,
            addr: s(addr, *live),
        },
        Command::LoadReserve { reg, addr } => Command::LoadReserve {
            reg: *reg,
            addr: s(addr, *live),
        },
        Command::Store { addr, value } => Command::Store {
            addr: s(addr, *live),
            value: s(value, *live),
        },
        Command::StoreCond { addr, value, flag } => Command::StoreCond {
            addr: s(addr, *live),
            value: s(value, *live),
            flag: *flag,
        },
        Command::Assign { reg, value } => Command::Assign {
            reg: *reg,
            value: s(value, *live),
        },
        Command::Assume(e) => Command::Assume(s(e, *live)),
        Command::Guard(e) => Command::Guard(s(e, *live)),
        Command::Select {
            reg,
            cond,
            then,
            else_,
        } => Command::Select {
            reg: *reg,
            cond: s(cond, *live),
            then: s(then, *live),
            else_: s(else_, *live),
        },
        Command::Atomic(cs) => {
            let mut v = Vec::with_capacity(cs.len());
            for c in cs {
                v.push(subst(c, r, k, w, live)?);
            }
            // `live` was updated by the inner commands.
            return Some(Command::Atomic(v));
        }
        Command::Ann(a, c) => Command::Ann(*a, Box::new(subst(c, r, k, w, live)?)),
        Command::Tagged(t, c) => Command::Tagged(t.clone(), Box::new(subst(c, r, k, w, live)?)),
        // A located event names its address by a register: not rewritten.
        Command::Fence(crate::program::Fence::Located(x)) if *x == r && *live => return None,
        Command::Fence(_) | Command::Lock | Command::Unlock | Command::Nop => c.clone(),
        Command::Pgas(_) => return None,
    };
    let mut ws = Vec::new();
    writes(c, &mut ws);
    if ws.contains(&r) {
        *live = false;
    }
    Some(out)
}

/// Runs the pass on `t` (width `w`); states in `keep` (goal and end
/// states) are never copied or bypassed. New states are named after the
/// join (`J_k<k>_<i>`). Returns how many joins were specialized.
///
/// Linear in the thread's size (times [`MAX_CHAIN`] and the copies
/// made): the edges into and out of every state are indexed once and
/// kept up to date; the instructions of a rewritten chain are marked and
/// removed together at the end (the survivors keep their order, the
/// copies follow in the order they were made).
pub fn specialize(t: &mut Thread, w: Width, keep: &[StateId], names: &mut Interner) -> usize {
    let mut done = 0;
    let n = t.states.len();
    // Live instruction indices (ascending) by target and by source state.
    let mut into: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, ins) in t.instrs.iter().enumerate() {
        into[ins.to.0 as usize].push(i);
        out[ins.from.0 as usize].push(i);
    }
    let mut dead = vec![false; t.instrs.len()];
    for j in 0..n as u32 {
        let j = StateId(j);
        if keep.contains(&j) || j == t.initial {
            continue;
        }
        // Every edge into j is `assume(r == k)` for one register r.
        let inc = into[j.0 as usize].clone();
        if inc.len() < 2 {
            continue;
        }
        let mut reg = None;
        let mut ks = Vec::new();
        for &i in &inc {
            match &t.instrs[i].cmd {
                Command::Assume(e) => match eq_const(e) {
                    Some((r, k)) if reg.is_none_or(|x| x == r) => {
                        reg = Some(r);
                        ks.push(k);
                    }
                    _ => break,
                },
                _ => break,
            }
        }
        let Some(r) = reg else { continue };
        if ks.len() != inc.len() {
            continue;
        }
        // The chain from j: single successors, interior states entered
        // once, up to the first access whose address names r.
        let mut chain = Vec::new();
        let mut q = j;
        let mut found = false;
        while chain.len() < MAX_CHAIN {
            let from_q = &out[q.0 as usize];
            if from_q.len() != 1 || (q != j && keep.contains(&q)) {
                break;
            }
            if q != j && into[q.0 as usize].len() != 1 {
                break;
            }
            let i = from_q[0];
            chain.push(i);
            if address_uses(&t.instrs[i].cmd, r) {
                found = true;
                break;
            }
            let mut ws = Vec::new();
            writes(&t.instrs[i].cmd, &mut ws);
            if ws.contains(&r) {
                break;
            }
            q = t.instrs[i].to;
            if q == j {
                break;
            }
        }
        if !found {
            continue;
        }
        // Each copy must be rewritable.
        let mut copies = Vec::new();
        for &k in &ks {
            let mut live = true;
            let mut v = Vec::new();
            for &i in &chain {
                match subst(&t.instrs[i].cmd, r, k, w, &mut live) {
                    Some(c) => v.push(c),
                    None => break,
                }
            }
            if v.len() != chain.len() {
                break;
            }
            copies.push(v);
        }
        if copies.len() != ks.len() {
            continue;
        }
        let jname = names.name(t.states[j.0 as usize]).to_string();
        let last_to = t.instrs[*chain.last().expect("non-empty chain")].to;
        for ((&e, &k), cmds) in inc.iter().zip(&ks).zip(copies) {
            let mut prev = None;
            for (m, (cmd, &i)) in cmds.into_iter().zip(&chain).enumerate() {
                let from = match prev {
                    None => {
                        let s = new_state(t, names, &format!("{jname}_k{k}_{m}"));
                        into.push(Vec::new());
                        out.push(Vec::new());
                        let old = t.instrs[e].to;
                        into[old.0 as usize].retain(|&x| x != e);
                        into[s.0 as usize].push(e);
                        t.instrs[e].to = s;
                        s
                    }
                    Some(s) => s,
                };
                let to = if m + 1 == chain.len() {
                    last_to
                } else {
                    let s = new_state(t, names, &format!("{jname}_k{k}_{}", m + 1));
                    into.push(Vec::new());
                    out.push(Vec::new());
                    s
                };
                let span = t.instrs[i].span;
                let x = t.instrs.len();
                t.instrs.push(Instr {
                    from,
                    to,
                    cmd,
                    span,
                });
                dead.push(false);
                out[from.0 as usize].push(x);
                into[to.0 as usize].push(x);
                prev = Some(to);
            }
        }
        // The original chain is now unreachable.
        for i in chain {
            dead[i] = true;
            let (f, to) = (t.instrs[i].from.0 as usize, t.instrs[i].to.0 as usize);
            out[f].retain(|&x| x != i);
            into[to].retain(|&x| x != i);
        }
        done += 1;
    }
    if done > 0 {
        let mut k = 0;
        t.instrs.retain(|_| {
            k += 1;
            !dead[k - 1]
        });
    }
    done
}

fn new_state(t: &mut Thread, names: &mut Interner, name: &str) -> StateId {
    t.states.push(names.intern(name));
    StateId(t.states.len() as u32 - 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::BinOp;

    const W: Width = Width(16);
    const R: RegId = RegId(0);

    /// A thread with states q0..q(n-1) (q0 initial), one register `r0`
    /// and the given instructions.
    fn thread(names: &mut Interner, n: u32, instrs: Vec<(u32, u32, Command)>) -> Thread {
        crate::program::test_thread(names, n, 1, instrs)
    }

    fn is(k: i64) -> Command {
        Command::Assume(Expr::bin(BinOp::Eq, Expr::Var(R), Expr::Const(k)))
    }

    fn store_at(base: i64) -> Command {
        Command::Store {
            addr: Expr::bin(BinOp::Add, Expr::Const(base), Expr::Var(R)),
            value: Expr::Var(R),
        }
    }

    /// q0 -load r0-> q1 -{r0==0, r0==1}-> q2 -mem[5+r0] = r0-> q3.
    fn indexed(names: &mut Interner, access: Command) -> Thread {
        let load = Command::Load {
            reg: R,
            addr: Expr::Const(1),
        };
        thread(
            names,
            4,
            vec![(0, 1, load), (1, 2, is(0)), (1, 2, is(1)), (2, 3, access)],
        )
    }

    #[test]
    fn each_branch_gets_a_constant_address() {
        let mut names = Interner::default();
        let mut t = indexed(&mut names, store_at(5));
        assert_eq!(specialize(&mut t, W, &[StateId(3)], &mut names), 1);
        let mut stores: Vec<(i64, i64)> = t
            .instrs
            .iter()
            .filter_map(|i| match &i.cmd {
                Command::Store { addr, value } => Some((addr.as_const(W)?, value.as_const(W)?)),
                _ => None,
            })
            .collect();
        stores.sort_unstable();
        assert_eq!(stores, vec![(5, 0), (6, 1)]);
        // Every store ends where the old one did, after its own assume.
        for i in &t.instrs {
            if let Command::Store { .. } = i.cmd {
                assert_eq!(i.to, StateId(3));
                let into: Vec<_> = t.instrs.iter().filter(|x| x.to == i.from).collect();
                assert_eq!(into.len(), 1);
                assert!(matches!(into[0].cmd, Command::Assume(_)));
            }
        }
        // Nothing leaves the old join any more.
        assert!(t.instrs.iter().all(|i| i.from != StateId(2)));
    }

    #[test]
    fn atomic_accesses_are_rewritten_up_to_a_write_of_the_register() {
        let mut names = Interner::default();
        let cas = Command::Atomic(vec![
            Command::Load {
                reg: R,
                addr: Expr::bin(BinOp::Add, Expr::Const(5), Expr::Var(R)),
            },
            store_at(5),
        ]);
        let mut t = indexed(&mut names, cas);
        assert_eq!(specialize(&mut t, W, &[StateId(3)], &mut names), 1);
        for i in &t.instrs {
            if let Command::Atomic(cs) = &i.cmd {
                // The load's address is constant; after the load writes
                // r0, the store keeps r0.
                let Command::Load { addr, .. } = &cs[0] else {
                    panic!("a load first")
                };
                assert!(addr.as_const(W).is_some());
                let Command::Store { addr, .. } = &cs[1] else {
                    panic!("a store second")
                };
                assert!(addr.as_const(W).is_none());
            }
        }
    }

    #[test]
    fn does_not_fire_without_an_access_or_with_other_edges() {
        let mut names = Interner::default();
        // The address does not name r0.
        let mut t = indexed(
            &mut names,
            Command::Store {
                addr: Expr::Const(7),
                value: Expr::Var(R),
            },
        );
        let before = t.instrs.len();
        assert_eq!(specialize(&mut t, W, &[StateId(3)], &mut names), 0);
        assert_eq!(t.instrs.len(), before);
        // One edge into the join is not an `assume(r0 == k)`.
        let mut t = indexed(&mut names, store_at(5));
        t.instrs[2].cmd = Command::Nop;
        assert_eq!(specialize(&mut t, W, &[StateId(3)], &mut names), 0);
        // The register is overwritten before the access.
        let mut names2 = Interner::default();
        let mut t = thread(
            &mut names2,
            5,
            vec![
                (0, 1, is(0)),
                (0, 1, is(1)),
                (
                    1,
                    2,
                    Command::Load {
                        reg: R,
                        addr: Expr::Const(1),
                    },
                ),
                (2, 3, store_at(5)),
            ],
        );
        // q0 is initial; put the join at q1 reached from q4 instead.
        t.initial = StateId(4);
        for i in t.instrs.iter_mut().take(2) {
            i.from = StateId(4);
        }
        assert_eq!(specialize(&mut t, W, &[StateId(3)], &mut names2), 0);
    }
}
