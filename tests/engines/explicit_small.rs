//! Small programs for the explicit engines (SC reachability, TSO robustness
//! by attacks, fence insertion), written here in Trencher syntax.

use bmc_rmm::diag::{SourceFile, Span};
use bmc_rmm::engines::explicit::{
    check_robustness, enumerate_attacks, fence_insertion, insert_fences, sc_reach, AttackStatus,
    ExplicitError, FenceCosts, FenceLocation, FenceVerdict, Limits, Options, ReachVerdict,
    Robustness, SearchOrder, TsoEventKind,
};
use bmc_rmm::frontend::trencher::parse;
use bmc_rmm::program::{
    BinOp, Command, Expr, GExpr, GVar, Goal, GoalAt, GoalKind, Instr, Program, RegId, StateId,
    ThreadId, Width,
};

fn prog(text: &str) -> Program {
    parse(&SourceFile::new("test.txt", text), Width::DEFAULT).expect("test program parses")
}

fn opts() -> Options {
    Options::default()
}

fn fences(p: &Program) -> Vec<FenceLocation> {
    let r = fence_insertion(p, &opts(), &FenceCosts::default()).unwrap();
    assert!(r.optimal, "fence set should be proven optimal");
    match r.verdict {
        FenceVerdict::Robust => vec![],
        FenceVerdict::Fences(v) => v,
        FenceVerdict::Unknown(u) => panic!("unknown: {u}"),
    }
}

fn is_robust(p: &Program) -> bool {
    match check_robustness(p, &opts()).unwrap().verdict {
        Robustness::Robust => true,
        Robustness::NotRobust(_) => false,
        Robustness::Unknown(u) => panic!("unknown: {u}"),
    }
}

fn fenced(p: &Program, f: &[FenceLocation]) -> Program {
    let locs: Vec<(ThreadId, StateId)> = f.iter().map(|l| (l.thread, l.state)).collect();
    insert_fences(p, &locs)
}

/// Store buffering (SB): x := 1; r := y  ||  y := 1; s := x.
const SB: &str = "
thread t1 initial q0
  transition q0 q1 write 1 0
  transition q1 q2 read r 1
end
thread t2 initial q0
  transition q0 q1 write 1 1
  transition q1 q2 read r 0
end";

const SB_FENCED: &str = "
thread t1 initial q0
  transition q0 q1 write 1 0
  transition q1 q2 mfence
  transition q2 q3 read r 1
end
thread t2 initial q0
  transition q0 q1 write 1 1
  transition q1 q2 mfence
  transition q2 q3 read r 0
end";

/// Message passing: data := 1; flag := 1  ||  r := flag; s := data.
const MP: &str = "
thread writer initial q0
  transition q0 q1 write 42 0
  transition q1 q2 write 1 1
end
thread reader initial q0
  transition q0 q1 read f 1
  transition q1 q2 check == f 1
  transition q2 q3 read d 0
end";

/// Dekker's mutual exclusion: flag0 at 0, flag1 at 1, turn at 2.
const DEKKER: &str = "
thread p0 initial a0
  transition a0 a1 write 1 0
  transition a1 a2 read f 1
  transition a2 cs check == f 0
  transition a2 a3 check != f 0
  transition a3 a4 read t 2
  transition a4 a1 check == t 0
  transition a4 a5 check != t 0
  transition a5 a6 write 0 0
  transition a6 a7 read t 2
  transition a7 a6 check != t 0
  transition a7 a0 check == t 0
  transition cs a8 write 1 2
  transition a8 a0 write 0 0
end
thread p1 initial b0
  transition b0 b1 write 1 1
  transition b1 b2 read f 0
  transition b2 cs check == f 0
  transition b2 b3 check != f 0
  transition b3 b4 read t 2
  transition b4 b1 check == t 1
  transition b4 b5 check != t 1
  transition b5 b6 write 0 1
  transition b6 b7 read t 2
  transition b7 b6 check != t 1
  transition b7 b0 check == t 1
  transition cs b8 write 0 2
  transition b8 b0 write 0 1
end";

/// Peterson's mutual exclusion: flag0 at 0, flag1 at 1, victim at 2.
const PETERSON: &str = "
thread p0 initial a0
  transition a0 a1 write 1 0
  transition a1 a2 write 0 2
  transition a2 a3 read f 1
  transition a3 cs check == f 0
  transition a3 a4 check != f 0
  transition a4 a5 read v 2
  transition a5 cs check != v 0
  transition a5 a2 check == v 0
  transition cs a0 write 0 0
end
thread p1 initial b0
  transition b0 b1 write 1 1
  transition b1 b2 write 1 2
  transition b2 b3 read f 0
  transition b3 cs check == f 0
  transition b3 b4 check != f 0
  transition b4 b5 read v 2
  transition b5 cs check != v 1
  transition b5 b2 check == v 1
  transition cs b0 write 0 1
end";

#[test]
fn sb_is_not_robust_with_a_readable_witness() {
    let p = prog(SB);
    let rep = check_robustness(&p, &opts()).unwrap();
    assert_eq!(rep.stats.attacks_total, 2);
    let Robustness::NotRobust(w) = rep.verdict else {
        panic!("SB must not be robust: {:?}", rep.verdict)
    };
    let kinds: Vec<TsoEventKind> = w.events.iter().map(|e| e.kind).collect();
    assert_eq!(kinds.first(), Some(&TsoEventKind::DelayedStore), "{w}");
    assert_eq!(kinds.get(1), Some(&TsoEventKind::OvertakingLoad), "{w}");
    assert_eq!(kinds.last(), Some(&TsoEventKind::DelayedFlush), "{w}");
    assert!(kinds.contains(&TsoEventKind::HbPath), "{w}");
    // The overtaking load read the initial 0; the flush closes the cycle by fr.
    let text = w.to_string();
    assert!(text.contains("reads 0 from memory"), "{text}");
    assert!(
        w.events
            .last()
            .unwrap()
            .hb
            .as_deref()
            .unwrap_or("")
            .starts_with("fr from"),
        "{text}"
    );
}

#[test]
fn sb_needs_two_fences_and_fenced_sb_is_robust() {
    let p = prog(SB);
    let f = fences(&p);
    let names: Vec<String> = f.iter().map(|l| l.describe(&p)).collect();
    assert_eq!(names, vec!["(t1,q1)", "(t2,q1)"]);
    assert!(is_robust(&fenced(&p, &f)));
    assert!(is_robust(&prog(SB_FENCED)));
    // Fenced SB: both attacks are answered without search.
    let rep = check_robustness(&prog(SB_FENCED), &opts()).unwrap();
    assert_eq!(rep.stats.answered_without_search, 2);
    assert_eq!(rep.stats.states_visited, 0);
}

#[test]
fn mp_is_robust() {
    let p = prog(MP);
    let rep = check_robustness(&p, &opts()).unwrap();
    assert_eq!(rep.verdict, Robustness::Robust);
    assert!(fences(&p).is_empty());
}

#[test]
fn dekker_is_not_robust_and_its_fenced_version_is() {
    let p = prog(DEKKER);
    assert!(!is_robust(&p));
    let f = fences(&p);
    assert!(!f.is_empty());
    // Each thread needs at least the fence after its flag := 1 store.
    for t in 0..2u32 {
        assert!(f.iter().any(|l| l.thread == ThreadId(t)), "{f:?}");
    }
    assert!(is_robust(&fenced(&p, &f)));
    // Mutual exclusion holds under SC (both threads in `cs`).
    let mut q = p.clone();
    let cs0 = q.threads[0].find_state(q.names.get("cs").unwrap()).unwrap();
    let cs1 = q.threads[1].find_state(q.names.get("cs").unwrap()).unwrap();
    q.goals.push(goal(
        GoalAt::States(vec![(ThreadId(0), cs0), (ThreadId(1), cs1)]),
        None,
    ));
    let r = sc_reach(&q, &opts()).unwrap();
    assert_eq!(r.verdict, ReachVerdict::Unreachable);
    assert!(!r.restricted, "two-thread goal must use plain SC");
}

#[test]
fn peterson_is_not_robust_and_two_fences_fix_it() {
    let p = prog(PETERSON);
    assert!(!is_robust(&p));
    let f = fences(&p);
    assert_eq!(f.len(), 2, "{f:?}");
    assert!(is_robust(&fenced(&p, &f)));
}

fn goal(at: GoalAt, cond: Option<GExpr>) -> Goal {
    Goal {
        name: None,
        kind: GoalKind::Goal,
        at,
        cond,
        span: Span::default(),
    }
}

#[test]
fn sc_reach_sb_outcomes() {
    let mut p = prog(SB);
    let r0 = GExpr::Var(GVar::Reg(ThreadId(0), RegId(0)));
    let r1 = GExpr::Var(GVar::Reg(ThreadId(1), RegId(0)));
    let both_zero = Expr::bin(
        BinOp::And,
        Expr::bin(BinOp::Eq, r0.clone(), Expr::Const(0)),
        Expr::bin(BinOp::Eq, r1.clone(), Expr::Const(0)),
    );
    p.goals.push(goal(GoalAt::Final, Some(both_zero)));
    let r = sc_reach(&p, &opts()).unwrap();
    assert_eq!(
        r.verdict,
        ReachVerdict::Unreachable,
        "SB's 0/0 is forbidden under SC"
    );
    // 1/1 is reachable, with a trace.
    let both_one = Expr::bin(
        BinOp::And,
        Expr::bin(BinOp::Eq, r0, Expr::Const(1)),
        Expr::bin(BinOp::Eq, r1, Expr::Const(1)),
    );
    p.goals[0] = goal(GoalAt::Final, Some(both_one));
    let r = sc_reach(&p, &opts()).unwrap();
    let ReachVerdict::Reachable(hit) = r.verdict else {
        panic!("{:?}", r.verdict)
    };
    assert_eq!(hit.trace.len(), 4);
}

#[test]
fn restricted_semantics_and_live_registers_agree_and_reduce() {
    // Single-thread goal: p0 in its critical section.
    let mut p = prog(PETERSON);
    let cs = p.threads[0].find_state(p.names.get("cs").unwrap()).unwrap();
    p.goals
        .push(goal(GoalAt::States(vec![(ThreadId(0), cs)]), None));
    let mut counts = Vec::new();
    for (restricted, live) in [(false, false), (true, false), (false, true), (true, true)] {
        let o = Options {
            restricted,
            live_registers: live,
            ..opts()
        };
        let r = sc_reach(&p, &o).unwrap();
        assert!(matches!(r.verdict, ReachVerdict::Reachable(_)));
        assert_eq!(r.restricted, restricted);
        counts.push(r.stats.states_visited);
    }
    // Exhaustive count without goals: reductions shrink the state space.
    let mut q = prog(PETERSON);
    q.goals.clear();
    let full = |restricted, live| {
        let o = Options {
            restricted,
            live_registers: live,
            ..opts()
        };
        let r = sc_reach(&q, &o).unwrap();
        assert_eq!(r.verdict, ReachVerdict::Unreachable);
        r.stats.states_visited
    };
    let (plain, red) = (full(false, false), full(true, true));
    assert!(red < plain, "reduced {red} vs plain {plain}");
    // DFS gives the same verdict.
    let o = Options {
        order: SearchOrder::Dfs,
        ..opts()
    };
    assert!(matches!(
        sc_reach(&p, &o).unwrap().verdict,
        ReachVerdict::Reachable(_)
    ));
}

#[test]
fn locks_give_mutual_exclusion_under_sc() {
    // Both threads increment x (address 0) under the lock; x == 1 at the
    // end is impossible, x == 2 is reachable.
    let text = "
thread a initial q0
  transition q0 q1 lock
  transition q1 q2 read r 0
  transition q2 q3 write + r 1 0
  transition q3 q4 unlock
end
thread b initial q0
  transition q0 q1 lock
  transition q1 q2 read r 0
  transition q2 q3 write + r 1 0
  transition q3 q4 unlock
end";
    let mut p = prog(text);
    let x = GExpr::Var(GVar::Mem(0));
    p.goals.push(goal(
        GoalAt::Final,
        Some(Expr::bin(BinOp::Eq, x.clone(), Expr::Const(1))),
    ));
    assert_eq!(
        sc_reach(&p, &opts()).unwrap().verdict,
        ReachVerdict::Unreachable
    );
    p.goals[0] = goal(GoalAt::Final, Some(Expr::bin(BinOp::Eq, x, Expr::Const(2))));
    assert!(matches!(
        sc_reach(&p, &opts()).unwrap().verdict,
        ReachVerdict::Reachable(_)
    ));
    // Without the locks, the lost update is reachable.
    let mut q = prog(&text.replace("lock", "noop").replace("unnoop", "noop"));
    q.goals.push(goal(
        GoalAt::Final,
        Some(Expr::bin(
            BinOp::Eq,
            GExpr::Var(GVar::Mem(0)),
            Expr::Const(1),
        )),
    ));
    assert!(matches!(
        sc_reach(&q, &opts()).unwrap().verdict,
        ReachVerdict::Reachable(_)
    ));
    // Lock-protected accesses are robust.
    assert!(is_robust(&p));
}

#[test]
fn atomic_cas_runs_in_one_step_and_drains_the_buffer() {
    // Two threads: x := 1 then CAS(y, 0 -> 1) as one atomic instruction
    // then r := x. Atomics drain the buffer, so SB-like cycles vanish.
    let mut p = prog(SB);
    for t in 0..2 {
        let th = &mut p.threads[t];
        let r = th.reg(p.names.intern("old"));
        let other = 1 - t as i64;
        th.instrs[1].cmd = Command::Atomic(vec![
            Command::Load {
                reg: r,
                addr: Expr::Const(other),
            },
            Command::Assume(Expr::bin(BinOp::Eq, Expr::Var(r), Expr::Const(0))),
            Command::Store {
                addr: Expr::Const(other),
                value: Expr::Const(1),
            },
        ]);
    }
    let rep = check_robustness(&p, &opts()).unwrap();
    assert_eq!(rep.verdict, Robustness::Robust);
    // A blocked CAS blocks the whole instruction: both cannot succeed after
    // both stores, since each CAS writes the other's flag.
    let mut q = p.clone();
    q.goals.push(goal(
        GoalAt::States(vec![(ThreadId(0), StateId(2)), (ThreadId(1), StateId(2))]),
        None,
    ));
    assert_eq!(
        sc_reach(&q, &opts()).unwrap().verdict,
        ReachVerdict::Unreachable
    );
}

#[test]
fn values_wrap_at_the_width() {
    // r counts 0,1,...; at width 4, 7 + 1 wraps to -8.
    let text = "
thread t initial q0
  transition q0 q0 local r + r 1
  transition q0 q1 check == r -8
end";
    let src = SourceFile::new("w.txt", text);
    let mut p = parse(&src, Width(4)).unwrap();
    p.goals
        .push(goal(GoalAt::States(vec![(ThreadId(0), StateId(1))]), None));
    let o = Options {
        width: Width(4),
        ..opts()
    };
    assert!(matches!(
        sc_reach(&p, &o).unwrap().verdict,
        ReachVerdict::Reachable(_)
    ));
}

#[test]
fn limits_give_unknown_not_a_crash() {
    // An unbounded counter at width 16 with a tiny state limit.
    let mut p = prog(
        "thread t initial q0 transition q0 q0 local r + r 1 transition q0 q1 check == r 30000 end",
    );
    p.goals
        .push(goal(GoalAt::States(vec![(ThreadId(0), StateId(1))]), None));
    let o = Options {
        limits: Limits {
            max_states: Some(100),
            ..Limits::default()
        },
        ..opts()
    };
    assert!(matches!(
        sc_reach(&p, &o).unwrap().verdict,
        ReachVerdict::Unknown(_)
    ));
    let o = Options {
        limits: Limits {
            max_memory_bytes: Some(10_000),
            ..Limits::default()
        },
        ..opts()
    };
    assert!(matches!(
        sc_reach(&p, &o).unwrap().verdict,
        ReachVerdict::Unknown(_)
    ));
}

#[test]
fn unsupported_commands_are_errors() {
    let mut p = prog(SB);
    p.threads[0].instrs[1].cmd = Command::LoadReserve {
        reg: RegId(0),
        addr: Expr::Const(1),
    };
    let e = check_robustness(&p, &opts()).unwrap_err();
    assert!(matches!(e, ExplicitError::Unsupported { .. }), "{e}");
    assert!(e.to_string().contains("lwarx"), "{e}");
    assert!(sc_reach(&p, &opts()).is_err());
    let o = Options {
        width: Width(40),
        ..opts()
    };
    assert_eq!(
        sc_reach(&prog(SB), &o).unwrap_err(),
        ExplicitError::BadWidth(40)
    );
}

#[test]
fn insert_fences_reroutes_outgoing_instructions() {
    let p = prog(SB);
    let q = insert_fences(
        &p,
        &[
            (ThreadId(0), StateId(1)),
            (ThreadId(0), StateId(1)),
            (ThreadId(9), StateId(0)),
        ],
    );
    let t = &q.threads[0];
    assert_eq!(t.states.len(), 4);
    let qx = StateId(3);
    assert_eq!(q.state_name(ThreadId(0), qx), "q1_fence");
    let fence: Vec<&Instr> = t
        .instrs
        .iter()
        .filter(|i| matches!(i.cmd, Command::Fence(_)))
        .collect();
    assert_eq!(fence.len(), 1);
    assert_eq!((fence[0].from, fence[0].to), (StateId(1), qx));
    assert!(t
        .instrs
        .iter()
        .all(|i| i.from != StateId(1) || matches!(i.cmd, Command::Fence(_))));
    assert_eq!(q.threads[1], p.threads[1]);
}

#[test]
fn fence_costs_steer_the_choice() {
    // In SB each attack can be killed at q1 (after the store) only, so the
    // cost cannot change the set but it changes the reported cost.
    let p = prog(SB);
    let mut c = FenceCosts::default();
    c.per_location.insert(
        FenceLocation {
            thread: ThreadId(0),
            state: StateId(1),
        },
        5,
    );
    let r = fence_insertion(&p, &opts(), &c).unwrap();
    assert_eq!(r.cost, 6);
    // Every feasible attack lists {dst(store)} among its sets.
    for f in &r.feasible {
        let dst = p.threads[f.attack.thread.0 as usize].instrs[f.attack.store].to;
        assert!(f.sets.iter().any(|s| s.len() == 1 && s[0].state == dst));
    }
}

#[test]
fn attacks_are_store_load_pairs_and_fenced_ones_need_no_search() {
    let p = prog(SB_FENCED);
    assert_eq!(enumerate_attacks(&p).len(), 2);
    let rep = check_robustness(&p, &opts()).unwrap();
    assert!(rep
        .attacks
        .iter()
        .all(|(_, s)| *s == AttackStatus::SeparatedByFence));
}

/// Strong liveness (§7.1.3 in its strong form): a counter that only feeds
/// itself is dead, so its 2^16 values do not multiply the state space;
/// the same counter written to memory stays live.
#[test]
fn a_register_that_only_feeds_itself_is_dead() {
    let counter = |store: &str| {
        format!(
            "thread t0\ninitial q0\ntransition q0 q1 local r0 + r0 1\n\
             transition q1 q0 write {store} 0\nend\n\
             thread t1\ninitial q0\ntransition q0 q1 read r1 0\n\
             transition q1 q0 write 1 1\nend\n"
        )
    };
    let small = Options {
        limits: Limits {
            max_states: Some(2_000),
            ..Limits::default()
        },
        ..Options::default()
    };
    let dead = prog(&counter("1"));
    let r = check_robustness(&dead, &small).unwrap();
    assert_eq!(r.verdict, Robustness::Robust, "{:?}", r.verdict);
    let live = prog(&counter("r0"));
    let r = check_robustness(&live, &small).unwrap();
    assert!(
        matches!(r.verdict, Robustness::Unknown(_)),
        "a counter written to memory must be tracked: {:?}",
        r.verdict
    );
}
