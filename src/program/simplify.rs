//! IR simplification before encoding: passes over a thread's automaton
//! that keep its reachable memory behaviour (the events and their values)
//! and its goals, and shrink what every engine has to unroll or explore.
//!
//! The C front-end (docs/c.md) lowers each C expression through
//! temporaries and each inlined call through parameter and return
//! registers, so its threads are long chains of register moves
//! (`tmp.1 = id; instance.id = tmp.1; tmp.3 = instance.id; lock.id =
//! tmp.3; assume(lock.id)`), every one a step of the bounded engine and of
//! the SMC engine. The passes, run in this order by [`simplify_thread`]:
//!
//! 1. **copy and constant propagation** ([`propagate`]): a forward
//!    dataflow analysis (must-facts, intersection at joins, to a
//!    fixpoint, so cycles are fine) of "register r holds constant c" and
//!    "register r holds the value of register s"; every expression is
//!    rewritten with the facts at its instruction and its constant
//!    subexpressions folded at the program's width ([`BinOp::apply`], the
//!    arithmetic every engine uses). Only variable-free subexpressions are
//!    folded, so `r ^ r` keeps its dependency on `r`'s read (Power/Arm
//!    `addr`/`data` stay syntactic); facts come from assignments and
//!    initial values only, never from `assume`s, for the same reason.
//! 2. **dead branches** ([`prune_branches`]): `assume(c)` / guards whose
//!    condition folded to a nonzero constant become `nop`; those that
//!    folded to 0 are removed (a state left with none keeps one: it is
//!    blocked, not terminated), then the instructions of states no longer
//!    reachable from the initial state.
//! 3. **dead registers** ([`remove_dead`]): strong ("faint variable")
//!    liveness, [`crate::program::liveness`]; an assignment or select to a
//!    register that nothing later uses — no memory access, condition or
//!    live definition reads it, no goal condition names it — becomes
//!    `nop`, including counters and chains that only feed themselves.
//!    Loads stay (they are events).
//! 4. **nop contraction** ([`contract_nops`]): a state whose only outgoing
//!    instruction is a `nop` is merged into that `nop`'s target (edges into
//!    it are redirected; the target of a merged initial state becomes
//!    initial), unless it is a kept (goal) state.
//! 5. **compaction**: states that no instruction touches are dropped
//!    (except the initial and kept ones) and the rest renumbered in order.
//!
//! What changes: the instruction count of paths (so `--bound`, which
//! counts instructions, means less on a simplified thread; the C
//! front-end runs the passes before computing the longest path, its
//! default bound, so that bound still cuts nothing), final values of dead
//! registers (witnesses print them), and state names of contracted
//! states. What does not: the memory accesses, fences and atomic steps of
//! every path in order, the values they read and write, and which goal
//! states (and goal-condition registers) are reachable. `tests/engines/simplify.rs`
//! checks this on generated programs by comparing final memories and goal
//! answers before and after with the SMC engine.

use crate::program::{Command, Expr, LExpr, Program, RegId, StateId, Thread, Width};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// A must-fact about a register's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fact {
    /// It holds this constant.
    Const(i64),
    /// It holds the value of this register (which has no fact of its own
    /// of the same kind: copies point at roots).
    Copy(RegId),
}

/// Facts at a state: `None` until the state is reached by the analysis.
type Facts = Option<BTreeMap<RegId, Fact>>;

/// Simplifies every thread of `p` with the passes of this module (at
/// width `w`): goal states and the registers named in goal conditions
/// are kept; goal state ids are renumbered with their threads.
pub fn simplify(p: &mut Program, w: Width) {
    for (ti, th) in p.threads.iter_mut().enumerate() {
        let mut keep = Vec::new();
        for g in &p.goals {
            if let crate::program::GoalAt::States(v) = &g.at {
                keep.extend(v.iter().filter(|(t, _)| t.0 as usize == ti).map(|x| x.1));
            }
        }
        let mut observed = Vec::new();
        for g in &p.goals {
            if let Some(c) = &g.cond {
                c.for_each_var(&mut |v| {
                    if let crate::program::GVar::Reg(t, r) = v {
                        if t.0 as usize == ti {
                            observed.push(r);
                        }
                    }
                });
            }
        }
        let map = simplify_thread(th, w, &keep, &observed);
        for g in &mut p.goals {
            if let crate::program::GoalAt::States(v) = &mut g.at {
                for (t, q) in v.iter_mut() {
                    if t.0 as usize == ti {
                        *q = map[q.0 as usize].expect("kept states survive");
                    }
                }
            }
        }
    }
}

/// Runs the passes on one thread (at width `w`), keeping the states
/// `keep` and the final values of the registers `observed`. Returns the
/// map from old state ids to new ones (`None`: the state was merged away
/// or unreachable). Idempotent up to renumbering.
pub fn simplify_thread(
    t: &mut Thread,
    w: Width,
    keep: &[StateId],
    observed: &[RegId],
) -> Vec<Option<StateId>> {
    propagate(t, w);
    prune_branches(t);
    remove_dead(t, observed);
    contract_nops(t, keep);
    compact(t, keep)
}

/// The registers a command writes.
pub(crate) fn writes(c: &Command, out: &mut Vec<RegId>) {
    match c {
        Command::Load { reg, .. }
        | Command::Assign { reg, .. }
        | Command::LoadReserve { reg, .. }
        | Command::Select { reg, .. } => out.push(*reg),
        Command::StoreCond { flag, .. } => out.push(*flag),
        Command::Atomic(cs) => cs.iter().for_each(|c| writes(c, out)),
        Command::Ann(_, c) | Command::Tagged(_, c) => writes(c, out),
        _ => {}
    }
}

/// `e` with the facts substituted and variable-free subexpressions folded.
fn rewrite(e: &LExpr, facts: &BTreeMap<RegId, Fact>, w: Width) -> LExpr {
    match e {
        Expr::Var(r) => match facts.get(r) {
            Some(Fact::Const(c)) => Expr::Const(*c),
            Some(Fact::Copy(s)) => Expr::Var(*s),
            None => e.clone(),
        },
        Expr::Const(_) | Expr::Rank | Expr::Nodes => e.clone(),
        Expr::Un(op, a) => match rewrite(a, facts, w) {
            Expr::Const(v) => Expr::Const(op.apply(v, w)),
            a => Expr::un(*op, a),
        },
        Expr::Bin(op, a, b) => match (rewrite(a, facts, w), rewrite(b, facts, w)) {
            (Expr::Const(x), Expr::Const(y)) => Expr::Const(op.apply(x, y, w)),
            (a, b) => Expr::bin(*op, a, b),
        },
    }
}

/// `e` with register `r` replaced by the constant `k` and variable-free
/// subexpressions folded at width `w` (used by `program::specialize`).
pub(crate) fn fold_subst(e: &LExpr, r: RegId, k: i64, w: Width) -> LExpr {
    let mut facts = BTreeMap::new();
    facts.insert(r, Fact::Const(k));
    rewrite(e, &facts, w)
}

/// `c` rewritten with `facts` (only the plain commands whose expressions
/// are evaluated once, in order; atomic, annotated and PGAS commands are
/// left as they are).
fn rewrite_cmd(c: &Command, facts: &BTreeMap<RegId, Fact>, w: Width) -> Command {
    let r = |e: &LExpr| rewrite(e, facts, w);
    match c {
        Command::Load { reg, addr } => Command::Load {
            reg: *reg,
            addr: r(addr),
        },
        Command::Store { addr, value } => Command::Store {
            addr: r(addr),
            value: r(value),
        },
        Command::Assign { reg, value } => Command::Assign {
            reg: *reg,
            value: r(value),
        },
        Command::Assume(e) => Command::Assume(r(e)),
        Command::Guard(e) => Command::Guard(r(e)),
        Command::Select {
            reg,
            cond,
            then,
            else_,
        } => Command::Select {
            reg: *reg,
            cond: r(cond),
            then: r(then),
            else_: r(else_),
        },
        other => other.clone(),
    }
}

/// The facts after `c` (already rewritten) given the facts before.
fn transfer(c: &Command, before: &BTreeMap<RegId, Fact>) -> BTreeMap<RegId, Fact> {
    let mut f = before.clone();
    let mut ws = Vec::new();
    writes(c, &mut ws);
    for r in &ws {
        f.remove(r);
        f.retain(|_, v| *v != Fact::Copy(*r));
    }
    if let Command::Assign { reg, value } = c {
        match value {
            Expr::Const(v) => {
                f.insert(*reg, Fact::Const(*v));
            }
            Expr::Var(s) if s != reg => {
                f.insert(*reg, Fact::Copy(*s));
            }
            _ => {}
        }
    }
    f
}

/// Pass 1: copy and constant propagation to a fixpoint, then every
/// instruction rewritten with the facts at its source state.
pub fn propagate(t: &mut Thread, w: Width) {
    let n = t.states.len();
    let out = t.outgoing();
    let mut facts: Vec<Facts> = vec![None; n];
    let init: BTreeMap<RegId, Fact> = (t.reg_init.iter().enumerate())
        .map(|(r, &v)| (RegId(r as u32), Fact::Const(v)))
        .collect();
    facts[t.initial.0 as usize] = Some(init);
    let mut queue: VecDeque<usize> = VecDeque::from([t.initial.0 as usize]);
    let mut queued = vec![false; n];
    queued[t.initial.0 as usize] = true;
    while let Some(q) = queue.pop_front() {
        queued[q] = false;
        let Some(here) = facts[q].clone() else {
            continue;
        };
        for &i in &out[q] {
            let ins = &t.instrs[i];
            let after = transfer(&rewrite_cmd(&ins.cmd, &here, w), &here);
            let to = ins.to.0 as usize;
            let merged = match &facts[to] {
                None => after,
                Some(old) => old
                    .iter()
                    .filter(|(r, v)| after.get(r) == Some(v))
                    .map(|(r, v)| (*r, *v))
                    .collect(),
            };
            if facts[to].as_ref() != Some(&merged) {
                facts[to] = Some(merged);
                if !queued[to] {
                    queued[to] = true;
                    queue.push_back(to);
                }
            }
        }
    }
    for ins in &mut t.instrs {
        if let Some(f) = &facts[ins.from.0 as usize] {
            ins.cmd = rewrite_cmd(&ins.cmd, f, w);
        }
    }
}

/// Pass 2: constant `assume`s and guards: true ones become `nop`, false
/// ones are removed; then the instructions of unreachable states.
pub fn prune_branches(t: &mut Thread) {
    let is_false = |c: &Command| {
        matches!(
            c,
            Command::Assume(Expr::Const(0)) | Command::Guard(Expr::Const(0))
        )
    };
    // A state whose every instruction is blocked keeps one: it is a
    // blocked state, not a terminated one (`goal final`).
    let mut open = vec![false; t.states.len()];
    for ins in &t.instrs {
        open[ins.from.0 as usize] |= !is_false(&ins.cmd);
    }
    let mut kept_blocked = vec![false; t.states.len()];
    t.instrs.retain_mut(|ins| match &ins.cmd {
        Command::Assume(Expr::Const(c)) | Command::Guard(Expr::Const(c)) if *c != 0 => {
            ins.cmd = Command::Nop;
            true
        }
        c if is_false(c) => {
            let q = ins.from.0 as usize;
            let keep = !open[q] && !kept_blocked[q];
            kept_blocked[q] |= keep;
            keep
        }
        _ => true,
    });
    let out = t.outgoing();
    let mut seen = vec![false; t.states.len()];
    let mut stack = vec![t.initial.0 as usize];
    seen[t.initial.0 as usize] = true;
    while let Some(q) = stack.pop() {
        for &i in &out[q] {
            let to = t.instrs[i].to.0 as usize;
            if !seen[to] {
                seen[to] = true;
                stack.push(to);
            }
        }
    }
    t.instrs.retain(|ins| seen[ins.from.0 as usize]);
}

/// Pass 3: assignments and selects to registers that are not live
/// afterwards (strong liveness, [`crate::program::liveness`]: not read
/// by a memory access, a condition or a live definition before being
/// overwritten on some path, not in `observed`) become `nop`. One round
/// reaches the fixpoint (the removed definitions' reads did not count).
/// The registers written by a removed definition are added to
/// [`Thread::unkept`]: their final values may be stale.
pub fn remove_dead(t: &mut Thread, observed: &[RegId]) {
    let live = crate::program::liveness::live_registers(t, observed);
    for ins in &mut t.instrs {
        let dead = match &ins.cmd {
            Command::Assign { reg, .. } | Command::Select { reg, .. } => live
                .get(ins.to.0 as usize)
                .and_then(|l| l.get(reg.0 as usize))
                .is_some_and(|l| !l),
            _ => false,
        };
        if dead {
            if let Command::Assign { reg, .. } | Command::Select { reg, .. } = ins.cmd {
                if !t.unkept.contains(&reg) {
                    t.unkept.push(reg);
                }
            }
            ins.cmd = Command::Nop;
        }
    }
    t.unkept.sort_unstable();
}

/// Pass 4: a state (not in `keep`) whose only outgoing instruction is a
/// `nop` to another state is merged into that target (chains at once; a
/// cycle of such states keeps one of its `nop`s; an initial state merged
/// away makes its target initial).
pub fn contract_nops(t: &mut Thread, keep: &[StateId]) {
    let n = t.states.len();
    let out = t.outgoing();
    let mut fwd: Vec<Option<usize>> = (0..n)
        .map(|q| {
            let sid = StateId(q as u32);
            let only = (out[q].len() == 1).then(|| &t.instrs[out[q][0]])?;
            (!keep.contains(&sid) && only.cmd == Command::Nop && only.to != sid)
                .then_some(only.to.0 as usize)
        })
        .collect();
    // Break cycles of nop states: a walk longer than n is on a cycle.
    for q in 0..n {
        let (mut cur, mut steps) = (q, 0);
        while let Some(nx) = fwd[cur] {
            cur = nx;
            steps += 1;
            if steps > n {
                fwd[q] = None;
                break;
            }
        }
    }
    let target: Vec<usize> = (0..n)
        .map(|q| {
            let mut cur = q;
            while let Some(nx) = fwd[cur] {
                cur = nx;
            }
            cur
        })
        .collect();
    let gone: BTreeSet<usize> = (0..n)
        .filter(|&q| fwd[q].is_some())
        .map(|q| out[q][0])
        .collect();
    let mut k = 0;
    t.instrs.retain(|_| {
        k += 1;
        !gone.contains(&(k - 1))
    });
    for ins in &mut t.instrs {
        ins.to = StateId(target[ins.to.0 as usize] as u32);
    }
    t.initial = StateId(target[t.initial.0 as usize] as u32);
}

/// Pass 5: drops the states no instruction touches (but the initial and
/// kept ones), renumbering the rest in order; returns old → new.
fn compact(t: &mut Thread, keep: &[StateId]) -> Vec<Option<StateId>> {
    let n = t.states.len();
    let mut used = vec![false; n];
    used[t.initial.0 as usize] = true;
    for q in keep {
        used[q.0 as usize] = true;
    }
    for ins in &t.instrs {
        used[ins.from.0 as usize] = true;
        used[ins.to.0 as usize] = true;
    }
    let mut map = vec![None; n];
    let mut states = Vec::new();
    for q in 0..n {
        if used[q] {
            map[q] = Some(StateId(states.len() as u32));
            states.push(t.states[q]);
        }
    }
    t.states = states;
    t.initial = map[t.initial.0 as usize].expect("initial kept");
    for ins in &mut t.instrs {
        ins.from = map[ins.from.0 as usize].expect("used");
        ins.to = map[ins.to.0 as usize].expect("used");
    }
    map
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::intern::Interner;
    use crate::program::BinOp;

    const W: Width = Width(16);

    /// A thread with states 0..n (0 initial), registers r0..r(k-1) and
    /// the given instructions.
    fn thread(n: u32, k: u32, instrs: Vec<(u32, u32, Command)>) -> Thread {
        crate::program::test_thread(&mut Interner::default(), n, k, instrs)
    }

    fn reg(r: u32) -> LExpr {
        Expr::Var(RegId(r))
    }

    fn assign(r: u32, e: LExpr) -> Command {
        Command::Assign {
            reg: RegId(r),
            value: e,
        }
    }

    fn load(r: u32, a: i64) -> Command {
        Command::Load {
            reg: RegId(r),
            addr: Expr::Const(a),
        }
    }

    fn store(a: i64, e: LExpr) -> Command {
        Command::Store {
            addr: Expr::Const(a),
            value: e,
        }
    }

    fn cmds(t: &Thread) -> Vec<Command> {
        t.instrs.iter().map(|i| i.cmd.clone()).collect()
    }

    #[test]
    fn copies_and_constants_reach_the_store_and_moves_vanish() {
        // r0 = load 1; r1 = r0; r2 = 5; store 2 (r1 + r2)
        let mut t = thread(
            5,
            3,
            vec![
                (0, 1, load(0, 1)),
                (1, 2, assign(1, reg(0))),
                (2, 3, assign(2, Expr::Const(5))),
                (3, 4, store(2, Expr::bin(BinOp::Add, reg(1), reg(2)))),
            ],
        );
        simplify_thread(&mut t, W, &[], &[]);
        assert_eq!(
            cmds(&t),
            vec![
                load(0, 1),
                store(2, Expr::bin(BinOp::Add, reg(0), Expr::Const(5)))
            ]
        );
        assert_eq!(t.states.len(), 3);
    }

    #[test]
    fn a_copy_dies_when_its_source_is_overwritten() {
        // r0 = load 1; r1 = r0; r0 = load 2; store 3 r1: r1 must stay.
        let mut t = thread(
            5,
            2,
            vec![
                (0, 1, load(0, 1)),
                (1, 2, assign(1, reg(0))),
                (2, 3, load(0, 2)),
                (3, 4, store(3, reg(1))),
            ],
        );
        simplify_thread(&mut t, W, &[], &[]);
        assert_eq!(
            cmds(&t),
            vec![load(0, 1), assign(1, reg(0)), load(0, 2), store(3, reg(1))]
        );
    }

    #[test]
    fn facts_meet_at_joins() {
        // Two branches set r0 to 1 and 2; the store after the join keeps r0.
        let mut t = thread(
            5,
            1,
            vec![
                (0, 1, Command::Nop),
                (0, 2, Command::Nop),
                (1, 3, assign(0, Expr::Const(1))),
                (2, 3, assign(0, Expr::Const(2))),
                (3, 4, store(1, reg(0))),
            ],
        );
        simplify_thread(&mut t, W, &[], &[]);
        assert!(cmds(&t).contains(&store(1, reg(0))), "{:?}", cmds(&t));
        assert!(cmds(&t).contains(&assign(0, Expr::Const(2))));
    }

    #[test]
    fn constant_branches_are_pruned_and_blocked_states_stay_blocked() {
        // r0 = 0 (initial); assume(r0 == 1) → store 1 1 is unreachable;
        // assume(r0 == 0) → store 2 1 stays. State 4 only has a false
        // assume: it stays blocked.
        let eq = |v| Expr::bin(BinOp::Eq, reg(0), Expr::Const(v));
        let mut t = thread(
            6,
            1,
            vec![
                (0, 1, Command::Assume(eq(1))),
                (1, 2, store(1, Expr::Const(1))),
                (0, 3, Command::Assume(eq(0))),
                (3, 4, store(2, Expr::Const(1))),
                (4, 5, Command::Assume(eq(7))),
            ],
        );
        simplify_thread(&mut t, W, &[], &[]);
        assert_eq!(
            cmds(&t),
            vec![store(2, Expr::Const(1)), Command::Assume(Expr::Const(0))]
        );
        assert_eq!(t.instrs[0].from, t.initial);
    }

    #[test]
    fn observed_registers_and_kept_states_survive() {
        let mut t = thread(
            4,
            2,
            vec![
                (0, 1, assign(0, Expr::Const(3))),
                (1, 2, assign(1, Expr::Const(4))),
                (2, 3, Command::Nop),
            ],
        );
        let map = simplify_thread(&mut t, W, &[StateId(2)], &[RegId(0)]);
        assert_eq!(cmds(&t), vec![assign(0, Expr::Const(3)), Command::Nop]);
        assert!(map[2].is_some());
    }

    #[test]
    fn a_counter_only_feeding_itself_is_removed() {
        // q0: r0 := r0 + 1 -> q1; q1: load r1 [1] -> q0; q1: store [2] r1 -> q2.
        // Classic liveness keeps r0 live around the loop; strong liveness
        // does not.
        let mut t = thread(
            3,
            2,
            vec![
                (
                    0,
                    1,
                    assign(0, Expr::bin(BinOp::Add, reg(0), Expr::Const(1))),
                ),
                (1, 0, load(1, 1)),
                (1, 2, store(2, reg(1))),
            ],
        );
        simplify_thread(&mut t, W, &[StateId(2)], &[]);
        assert_eq!(cmds(&t), vec![load(1, 1), store(2, reg(1))]);
    }

    #[test]
    fn nop_cycles_terminate() {
        let mut t = thread(
            3,
            0,
            vec![
                (0, 1, Command::Nop),
                (1, 2, Command::Nop),
                (2, 1, Command::Nop),
            ],
        );
        simplify_thread(&mut t, W, &[], &[]);
        assert!(!t.instrs.is_empty());
    }
}
