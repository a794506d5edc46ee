//! Value sets of registers, for constant addresses: when every store of
//! the program that may write a cell stores a constant, a load of that
//! cell returns one of those constants or the cell's initial value — in
//! every execution, under every memory model (a read reads some write to
//! its address, or the initial memory). A forward dataflow analysis per
//! thread carries, per register, a small set of possible values (loads of
//! such cells, assignments evaluated over the sets, `assume`s filtering
//! them); an access whose address evaluates to a single value gets that
//! constant as its address ([`constant_addresses`]).
//!
//! The C front-end runs it after lowering (docs/c.md, "Pointers read from
//! memory"): `_instance = &theobject; … tmp = _instance; if (tmp)
//! tmp->data …` reads `mem[tmp]` with `tmp ∈ {0, &theobject}` filtered by
//! `tmp != 0` to `{&theobject}`, so the access is `theobject`, and the
//! bounded engine's static relation analysis sees one address instead of
//! any. Exact: the address has that value on every path; only the
//! syntactic address dependency on the pointer's load is gone (relevant
//! to models ordering by dependencies — power, arm, rmo — not to sc, tso,
//! pso).

use crate::program::{Command, Expr, LExpr, Program, RegId, Thread, Width};
use std::collections::{BTreeMap, BTreeSet};

/// Most values a set holds before it becomes "any value".
pub const MAX_VALUES: usize = 16;

/// A set of possible values; `None`: any value.
type Vals = Option<BTreeSet<i64>>;

/// Possible values per register at a state (`None`: not reached yet).
type Facts = Option<Vec<Vals>>;

/// Per cell: its possible values in every execution (cells absent from
/// the map may hold anything). `None` when some store's address is not a
/// constant and its value is not (it may write any cell), or the program
/// is PGAS.
fn cell_values(p: &Program) -> Option<BTreeMap<i64, Vals>> {
    if p.nodes.is_some() {
        return None;
    }
    let mut cells: BTreeMap<i64, Vals> = BTreeMap::new();
    let mut anywhere: BTreeSet<i64> = BTreeSet::new();
    let mut any_top = false;
    fn visit(
        c: &Command,
        cells: &mut BTreeMap<i64, Vals>,
        anywhere: &mut BTreeSet<i64>,
        any_top: &mut bool,
    ) {
        match c {
            Command::Store { addr, value } | Command::StoreCond { addr, value, .. } => {
                let v = match value {
                    Expr::Const(k) => Some(*k),
                    _ => None,
                };
                match addr {
                    Expr::Const(a) => {
                        let e = cells.entry(*a).or_insert_with(|| Some(BTreeSet::new()));
                        match (e.as_mut(), v) {
                            (Some(s), Some(k)) => {
                                s.insert(k);
                            }
                            _ => *e = None,
                        }
                    }
                    _ => match v {
                        Some(k) => {
                            anywhere.insert(k);
                        }
                        None => *any_top = true,
                    },
                }
            }
            Command::Atomic(cs) => cs.iter().for_each(|c| visit(c, cells, anywhere, any_top)),
            Command::Ann(_, c) | Command::Tagged(_, c) => visit(c, cells, anywhere, any_top),
            Command::Pgas(_) => *any_top = true,
            _ => {}
        }
    }
    for t in &p.threads {
        for i in &t.instrs {
            visit(&i.cmd, &mut cells, &mut anywhere, &mut any_top);
        }
    }
    if any_top {
        return None;
    }
    // Initial values, and the constant stores whose address is unknown.
    let addrs: BTreeSet<i64> = cells
        .keys()
        .copied()
        .chain(p.init.keys().copied())
        .collect();
    let mut out = BTreeMap::new();
    for a in addrs {
        let mut s = match cells.get(&a) {
            Some(None) => {
                out.insert(a, None);
                continue;
            }
            Some(Some(s)) => s.clone(),
            None => BTreeSet::new(),
        };
        s.insert(p.init.get(&a).copied().unwrap_or(0));
        s.extend(anywhere.iter().copied());
        out.insert(a, cap(Some(s)));
    }
    // A cell that neither a store nor the initial memory names: 0, or a
    // constant stored at an unknown address.
    let mut s = anywhere;
    s.insert(0);
    out.insert(UNNAMED, cap(Some(s)));
    Some(out)
}

/// Key of [`cell_values`]' entry for cells that neither a store nor the
/// initial memory names (they hold 0 or a constant stored at an unknown
/// address).
const UNNAMED: i64 = i64::MIN;

fn cap(v: Vals) -> Vals {
    v.filter(|s| s.len() <= MAX_VALUES)
}

fn union(a: &Vals, b: &Vals) -> Vals {
    match (a, b) {
        (Some(x), Some(y)) => cap(Some(x.union(y).copied().collect())),
        _ => None,
    }
}

/// The values of `e` given the registers' sets (`None`: any).
fn eval(e: &LExpr, regs: &[Vals], w: Width) -> Vals {
    match e {
        Expr::Const(k) => Some(BTreeSet::from([*k])),
        Expr::Var(r) => regs.get(r.0 as usize).cloned().flatten(),
        Expr::Rank | Expr::Nodes => None,
        Expr::Un(op, a) => Some(
            eval(a, regs, w)?
                .into_iter()
                .map(|x| op.apply(x, w))
                .collect(),
        ),
        Expr::Bin(op, a, b) => {
            let (x, y) = (eval(a, regs, w)?, eval(b, regs, w)?);
            if x.len() * y.len() > MAX_VALUES * MAX_VALUES {
                return None;
            }
            let mut s = BTreeSet::new();
            for &u in &x {
                for &v in &y {
                    s.insert(op.apply(u, v, w));
                }
            }
            cap(Some(s))
        }
    }
}

/// The possible values loaded from the addresses `addr` may take.
fn load(addr: &LExpr, regs: &[Vals], cells: &BTreeMap<i64, Vals>, w: Width) -> Vals {
    let mut out = Some(BTreeSet::new());
    for a in eval(addr, regs, w)? {
        let v = cells.get(&a).unwrap_or(&cells[&UNNAMED]);
        out = union(&out, v);
    }
    out
}

/// Registers after `c` on a path where `regs` held before; `None` when
/// an `assume` (or guard) cannot hold.
fn transfer(
    c: &Command,
    mut regs: Vec<Vals>,
    cells: &BTreeMap<i64, Vals>,
    w: Width,
) -> Option<Vec<Vals>> {
    let set = |regs: &mut Vec<Vals>, r: RegId, v: Vals| {
        if let Some(x) = regs.get_mut(r.0 as usize) {
            *x = v;
        }
    };
    match c {
        Command::Load { reg, addr } | Command::LoadReserve { reg, addr } => {
            let v = load(addr, &regs, cells, w);
            set(&mut regs, *reg, v);
        }
        Command::Assign { reg, value } => {
            let v = eval(value, &regs, w);
            set(&mut regs, *reg, v);
        }
        Command::Select { reg, .. } => set(&mut regs, *reg, None),
        Command::StoreCond { flag, .. } => set(&mut regs, *flag, Some(BTreeSet::from([0, 1]))),
        Command::Assume(e) | Command::Guard(e) => {
            // Filter a register the condition alone depends on.
            let mut vars = BTreeSet::new();
            e.for_each_var(&mut |r| {
                vars.insert(r);
            });
            if vars.len() == 1 {
                let r = *vars.iter().next().expect("one register");
                if let Some(Some(s)) = regs.get(r.0 as usize) {
                    let keep: BTreeSet<i64> = s
                        .iter()
                        .copied()
                        .filter(|&v| {
                            let mut one = regs.clone();
                            one[r.0 as usize] = Some(BTreeSet::from([v]));
                            eval(e, &one, w).is_none_or(|x| x.iter().any(|&y| y != 0))
                        })
                        .collect();
                    if keep.is_empty() {
                        return None;
                    }
                    regs[r.0 as usize] = Some(keep);
                }
            } else if let Some(x) = eval(e, &regs, w) {
                if x.iter().all(|&y| y == 0) {
                    return None;
                }
            }
        }
        Command::Atomic(cs) => {
            for c in cs {
                regs = transfer(c, regs, cells, w)?;
            }
        }
        Command::Ann(_, c) | Command::Tagged(_, c) => return transfer(c, regs, cells, w),
        Command::Pgas(_) => regs.iter_mut().for_each(|x| *x = None),
        Command::Store { .. }
        | Command::Fence(_)
        | Command::Lock
        | Command::Unlock
        | Command::Nop => {}
    }
    Some(regs)
}

/// The facts at each state of `t` (to a fixpoint; sets only grow, and
/// past [`MAX_VALUES`] become "any", so it terminates on cycles too).
fn analyse(t: &Thread, cells: &BTreeMap<i64, Vals>, w: Width) -> Vec<Facts> {
    let n = t.states.len();
    let mut facts: Vec<Facts> = vec![None; n];
    facts[t.initial.0 as usize] = Some(
        (0..t.regs.len())
            .map(|r| Some(BTreeSet::from([t.reg_init.get(r).copied().unwrap_or(0)])))
            .collect(),
    );
    let out = t.outgoing();
    let mut work = vec![t.initial.0 as usize];
    let mut queued = vec![false; n];
    queued[t.initial.0 as usize] = true;
    while let Some(q) = work.pop() {
        queued[q] = false;
        let Some(before) = facts[q].clone() else {
            continue;
        };
        for &i in &out[q] {
            let ins = &t.instrs[i];
            let Some(after) = transfer(&ins.cmd, before.clone(), cells, w) else {
                continue;
            };
            let to = ins.to.0 as usize;
            let merged = match &facts[to] {
                None => after,
                Some(old) => old.iter().zip(&after).map(|(a, b)| union(a, b)).collect(),
            };
            if facts[to].as_ref() != Some(&merged) {
                facts[to] = Some(merged);
                if !queued[to] {
                    queued[to] = true;
                    work.push(to);
                }
            }
        }
    }
    facts
}

/// `addr` rewritten to a constant when it has one possible value.
fn fix(addr: &mut LExpr, regs: &[Vals], w: Width, changed: &mut usize) {
    if matches!(addr, Expr::Const(_)) {
        return;
    }
    if let Some(s) = eval(addr, regs, w) {
        if s.len() == 1 {
            *addr = Expr::Const(*s.iter().next().expect("one value"));
            *changed += 1;
        }
    }
}

/// Rewrites the addresses of `c` (registers `regs` before it); returns
/// the registers after it (`None`: it cannot complete).
fn rewrite(
    c: &mut Command,
    regs: Vec<Vals>,
    cells: &BTreeMap<i64, Vals>,
    w: Width,
    changed: &mut usize,
) -> Option<Vec<Vals>> {
    match c {
        Command::Load { addr, .. }
        | Command::LoadReserve { addr, .. }
        | Command::Store { addr, .. }
        | Command::StoreCond { addr, .. } => fix(addr, &regs, w, changed),
        Command::Atomic(cs) => {
            let mut regs = regs;
            for c in cs.iter_mut() {
                regs = rewrite(c, regs, cells, w, changed)?;
            }
            return Some(regs);
        }
        Command::Ann(_, c) | Command::Tagged(_, c) => return rewrite(c, regs, cells, w, changed),
        _ => {}
    }
    transfer(c, regs, cells, w)
}

/// Gives every memory access whose address has a single possible value
/// that constant as its address (module doc). Returns how many addresses
/// were rewritten. Does nothing for PGAS programs or when a store with a
/// non-constant address stores a non-constant value.
pub fn constant_addresses(p: &mut Program, w: Width) -> usize {
    let Some(cells) = cell_values(p) else {
        return 0;
    };
    let mut changed = 0;
    for t in &mut p.threads {
        let facts = analyse(t, &cells, w);
        for i in 0..t.instrs.len() {
            let Some(before) = facts[t.instrs[i].from.0 as usize].clone() else {
                continue;
            };
            let mut cmd = t.instrs[i].cmd.clone();
            rewrite(&mut cmd, before, &cells, w, &mut changed);
            t.instrs[i].cmd = cmd;
        }
    }
    changed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::Span;
    use crate::program::{Instr, StateId};

    const W: Width = Width(16);

    /// One thread: q0 -r0 = mem[1]-> q1 -assume(r0)-> q2 -r0 = mem[r0]-> q3,
    /// plus q1 -assume(!r0)-> q3; and a second thread storing `p` to cell 1.
    fn program(p: LExpr) -> Program {
        let mut prog = Program::default();
        let mut t = Thread::new(
            prog.names.intern("t"),
            prog.names.intern("q0"),
            Span::default(),
        );
        for q in 1..4 {
            t.state(prog.names.intern(&format!("q{q}")));
        }
        let r = t.reg(prog.names.intern("r0"));
        let ins = |f: u32, to: u32, cmd: Command| Instr {
            from: StateId(f),
            to: StateId(to),
            cmd,
            span: Span::default(),
        };
        t.instrs = vec![
            ins(
                0,
                1,
                Command::Load {
                    reg: r,
                    addr: Expr::Const(1),
                },
            ),
            ins(1, 2, Command::Assume(Expr::Var(r))),
            ins(
                1,
                3,
                Command::Assume(Expr::un(crate::program::UnOp::Not, Expr::Var(r))),
            ),
            ins(
                2,
                3,
                Command::Load {
                    reg: r,
                    addr: Expr::Var(r),
                },
            ),
        ];
        let mut u = Thread::new(
            prog.names.intern("u"),
            prog.names.intern("q0"),
            Span::default(),
        );
        u.state(prog.names.intern("q1"));
        u.instrs = vec![ins(
            0,
            1,
            Command::Store {
                addr: Expr::Const(1),
                value: p,
            },
        )];
        prog.threads = vec![t, u];
        prog
    }

    fn access_addr(p: &Program) -> &LExpr {
        match &p.threads[0].instrs[3].cmd {
            Command::Load { addr, .. } | Command::Store { addr, .. } => addr,
            c => panic!("an access, not {c:?}"),
        }
    }

    #[test]
    fn a_pointer_with_one_possible_nonzero_value_becomes_constant() {
        // Cell 1 holds 0 (initially) or 7: after `assume(r0)`, r0 is 7.
        let mut p = program(Expr::Const(7));
        assert_eq!(constant_addresses(&mut p, W), 1);
        assert_eq!(access_addr(&p), &Expr::Const(7));
    }

    #[test]
    fn does_not_fire_when_the_cell_may_hold_other_values() {
        // The other thread stores a register (any value).
        let mut p = program(Expr::Var(RegId(0)));
        p.threads[1].reg_init.push(0);
        assert_eq!(constant_addresses(&mut p, W), 0);
        assert_eq!(access_addr(&p), &Expr::Var(RegId(0)));
        // Two nonzero values possible: 7, or 9 initially.
        let mut p = program(Expr::Const(7));
        p.init.insert(1, 9);
        assert_eq!(constant_addresses(&mut p, W), 0);
        // A store of a register at an unknown address may write cell 1.
        let mut p = program(Expr::Const(7));
        p.threads[0].instrs[3].cmd = Command::Store {
            addr: Expr::Var(RegId(0)),
            value: Expr::Var(RegId(0)),
        };
        let before = p.threads[0].instrs.clone();
        assert_eq!(constant_addresses(&mut p, W), 0);
        assert_eq!(format!("{:?}", p.threads[0].instrs), format!("{before:?}"));
        // A constant stored at an unknown address counts for every cell:
        // cell 1 may hold 0, 7 or 8.
        let mut p = program(Expr::Const(7));
        let mut extra = p.threads[1].instrs[0].clone();
        extra.cmd = Command::Store {
            addr: Expr::Var(RegId(0)),
            value: Expr::Const(8),
        };
        p.threads[1].instrs.push(extra);
        p.threads[1].reg_init.push(0);
        assert_eq!(constant_addresses(&mut p, W), 0);
    }
}
