//! PGAS in the bounded engine (thesis 003 ch. 8).
//!
//! * Acceptance: OneToOne (Figure 8.2) on 2 nodes is not robust and its
//!   assertion fails; with a wait on the queue before the barrier it is
//!   robust and the assertion holds.
//! * Generated programs: under `sc` no execution has an hb cycle; every
//!   SC outcome is a PGAS outcome; and a small explicit-state simulator of
//!   Table 8.1 (below, independent of the encoder: it shares only the IR)
//!   agrees with the SAT engine on the reachability of every final state.
//! * Bad input: located errors, exit 2.

use crate::common;
use bmc_rmm::diag::SourceFile;
use bmc_rmm::engines::bounded::Verdict;
use bmc_rmm::engines::bounded::{varisat::Encoder, Deadline};
use bmc_rmm::frontend::native;
use bmc_rmm::program::{
    BinOp, Command, Expr, GExpr, GVar, Goal, GoalAt, GoalKind, PgasCmd, Program, RegId, Spmd,
    ThreadId, Width,
};
use common::check1;
use std::collections::{BTreeMap, BTreeSet, HashSet, VecDeque};
use std::process::Command as Proc;

const W: Width = Width::DEFAULT;

pub(crate) fn parse(src: &str) -> Program {
    native::parse(&SourceFile::new("t.rmm", src), W).expect("parses")
}

fn example(name: &str) -> String {
    format!("{}/examples/pgas/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn lowered(path: &str) -> Program {
    let p = bmc_rmm::frontend::load_program(path, None, W).unwrap();
    bmc_rmm::program::pgas::prepare(p, None, W).unwrap()
}

fn verdicts(p: &Program, model: &str, k: u32) -> (Verdict, Verdict) {
    let m = bmc_rmm::cat::builtin(model).unwrap();
    let r = check1(
        bmc_rmm::engines::bounded::CheckKind::Reach,
        p,
        &m,
        k,
        W.0,
        false,
        Deadline(None),
    );
    let b = check1(
        bmc_rmm::engines::bounded::CheckKind::Robust,
        p,
        &m,
        k,
        W.0,
        false,
        Deadline(None),
    );
    (r.verdict, b.verdict)
}

fn bin() -> Proc {
    common::bin()
}

#[test]
fn one_to_one_is_not_robust_and_fails_its_assertion() {
    let p = lowered(&example("one_to_one.rmm"));
    assert_eq!(p.threads.len(), 2);
    assert_eq!(
        verdicts(&p, "pgas", 8),
        (Verdict::Violation, Verdict::Violation)
    );
    // Under SC (remote operations complete at once) it is correct.
    assert_eq!(
        verdicts(&p, "sc", 8),
        (Verdict::NoViolation, Verdict::NoViolation)
    );
}

#[test]
fn one_to_one_with_wait_is_robust() {
    let p = lowered(&example("one_to_one_wait.rmm"));
    assert_eq!(
        verdicts(&p, "pgas", 10),
        (Verdict::NoViolation, Verdict::NoViolation)
    );
}

#[test]
fn cli_one_to_one_witness_names_ranks_queues_and_pops() {
    let out = bin()
        .args(["robust", "--model", "pgas", "-k", "8"])
        .arg(example("one_to_one.rmm"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(s.contains("NOT ROBUST"), "{s}");
    let cycle = s.lines().find(|l| l.contains("cycle:")).unwrap();
    for needle in ["popb y@", "-rop->", "issue queue=0", "-bar->", "P@1", "P@2"] {
        assert!(cycle.contains(needle), "{needle} missing in {cycle}");
    }
    let out = bin()
        .args(["reach", "--model", "pgas", "-k", "8"])
        .arg(example("one_to_one.rmm"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let out = bin()
        .args(["robust", "--model", "pgas", "-k", "10"])
        .arg(example("one_to_one_wait.rmm"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn nodes_option_overrides_the_file() {
    // On 3 nodes OneToOne is still not robust.
    let out = bin()
        .args(["robust", "--model", "pgas", "-k", "6", "--nodes", "3"])
        .arg(example("one_to_one.rmm"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("P@3"));
}

#[test]
fn every_example_runs() {
    let dir = format!("{}/examples/pgas", env!("CARGO_MANIFEST_DIR"));
    let mut n = 0;
    for e in std::fs::read_dir(dir).unwrap() {
        let path = e.unwrap().path();
        let p = lowered(path.to_str().unwrap());
        let (r, b) = verdicts(&p, "pgas", 10);
        let (rs, bs) = verdicts(&p, "sc", 10);
        // SC for PGAS has no hb cycle, and fewer behaviours.
        assert_eq!(bs, Verdict::NoViolation, "{path:?}");
        if rs == Verdict::Violation {
            assert_eq!(r, Verdict::Violation, "{path:?}");
        }
        let _ = b;
        n += 1;
    }
    assert!(n >= 4);
}

// ---------------------------------------------------------------------
// Bad input.

fn run_src(src: &str, extra: &[&str]) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("bad.rmm");
    std::fs::write(&f, src).unwrap();
    let out = bin()
        .args(["reach", "--model", "pgas"])
        .args(extra)
        .arg(&f)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout),
    )
}

#[test]
fn remote_rank_outside_the_nodes_is_a_located_error() {
    let (code, msg) = run_src(
        "nodes 2;\nshared x, y;\nthread P {\n  write(&x, 3, &y, 0);\n}\n",
        &[],
    );
    assert_eq!(code, Some(2), "{msg}");
    assert!(msg.contains("bad.rmm:4:3"), "{msg}");
    assert!(msg.contains("remote rank 3 is outside 1..2"), "{msg}");
}

#[test]
fn unknown_queue_name_is_a_located_error() {
    let (code, msg) = run_src(
        "nodes 2;\nshared x, y;\nthread P {\n  write(&x, 1, &y, Queue0);\n}\n",
        &[],
    );
    assert_eq!(code, Some(2), "{msg}");
    assert!(msg.contains("bad.rmm:4:"), "{msg}");
}

#[test]
fn pgas_program_without_nodes_is_a_usage_error() {
    let (code, msg) = run_src("shared x, y;\nthread P {\n  write(&x, 1, &y, 0);\n}\n", &[]);
    assert_eq!(code, Some(2), "{msg}");
    assert!(msg.contains("--nodes"), "{msg}");
}

#[test]
fn pgas_program_under_a_model_without_pgas_semantics_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("p.rmm");
    std::fs::write(&f, "nodes 2;\nshared x;\nthread P { barrier; }\n").unwrap();
    let out = bin()
        .args(["reach", "--model", "tso"])
        .arg(&f)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no PGAS semantics"));
}

#[test]
fn variable_outside_a_nodes_memory_is_a_located_error() {
    // 2 nodes at width 4: 8 cells per node.
    let (code, msg) = run_src(
        "nodes 2;\nshared x @ 9;\nthread P { barrier; }\n",
        &["--width", "4"],
    );
    assert_eq!(code, Some(2), "{msg}");
    assert!(msg.contains("bad.rmm:2:"), "{msg}");
    assert!(msg.contains("outside the 8 cells"), "{msg}");
}

#[test]
fn barrier_skipped_by_some_ranks_matches_their_next_barrier() {
    // Rank 1 takes the first barrier, rank 2 the second one: they
    // synchronise (k-th barrier of each rank, Table 8.1 rule (bar)), so
    // rank 2's store precedes rank 1's load.
    let src =
        "nodes 2;\nshared x = 1, y;\nthread P {\n  if (rank == 1) { barrier; r = y; assert(r == 1); } \
               else { write(&x, 1, &y, 0); barrier; }\n}\n";
    let p = bmc_rmm::program::pgas::prepare(parse(src), None, W).unwrap();
    // write's popb may still be pending at the barrier: reachable under pgas ...
    assert_eq!(verdicts(&p, "pgas", 6).0, Verdict::Violation);
    // ... not under SC: x = 1 is copied before the barrier, so r == 1.
    assert_eq!(verdicts(&p, "sc", 6).0, Verdict::NoViolation);
    // A barrier only rank 1 reaches blocks rank 1 forever.
    let src = "nodes 2;\nshared x;\nthread P {\n  if (rank == 1) { barrier; assert(0); }\n}\n";
    let p = bmc_rmm::program::pgas::prepare(parse(src), None, W).unwrap();
    assert_eq!(verdicts(&p, "pgas", 6).0, Verdict::NoViolation);
}

// ---------------------------------------------------------------------
// An explicit-state simulator of Table 8.1, used as an oracle.

type Req = (i64, i64, i64, i64); // src rank, src addr, dst rank, dst addr
type Item = (i64, i64, i64); // dst rank, dst addr, value

#[derive(Clone, PartialEq, Eq, Hash)]
struct St {
    pc: Vec<u32>,
    steps: Vec<u32>,
    regs: Vec<Vec<i64>>,
    mem: BTreeMap<(i64, i64), i64>,
    fa: Vec<BTreeMap<i64, VecDeque<Req>>>,
    fb: Vec<BTreeMap<i64, VecDeque<Item>>>,
}

/// Final register valuations (rank-major) of every terminated computation
/// with empty queues; `immediate` = SC for PGAS (remote operations complete
/// in the issuing step). One thread per rank, bound `k` per rank.
fn simulate(p: &Program, n: u32, k: u32, immediate: bool) -> BTreeSet<Vec<i64>> {
    let t = &p.threads[0];
    let out = t.outgoing();
    let n = n as usize;
    let init = St {
        pc: vec![t.initial.0; n],
        steps: vec![0; n],
        regs: vec![t.reg_init.clone(); n],
        mem: p
            .init
            .iter()
            .flat_map(|(&a, &v)| (1..=n as i64).map(move |r| ((r, a), v)))
            .collect(),
        fa: vec![BTreeMap::new(); n],
        fb: vec![BTreeMap::new(); n],
    };
    let mut seen = HashSet::new();
    let mut todo = vec![init];
    let mut finals = BTreeSet::new();
    let ev = |e: &Expr<RegId>, r: usize, regs: &[i64]| {
        e.eval(
            W,
            Spmd {
                rank: r as i64 + 1,
                nodes: n as i64,
            },
            &mut |x: RegId| regs[x.0 as usize],
        )
    };
    while let Some(s) = todo.pop() {
        if !seen.insert(s.clone()) {
            continue;
        }
        let mut succ = Vec::new();
        let queues_empty = s.fa.iter().all(|m| m.values().all(|q| q.is_empty()))
            && s.fb.iter().all(|m| m.values().all(|q| q.is_empty()));
        if queues_empty && (0..n).all(|r| out[s.pc[r] as usize].is_empty()) {
            finals.insert(s.regs.concat());
        }
        for r in 0..n {
            // popa / popb.
            for (&q, dq) in &s.fa[r] {
                if let Some(&(sr, sa, dr, da)) = dq.front() {
                    let mut s2 = s.clone();
                    s2.fa[r].get_mut(&q).unwrap().pop_front();
                    let v = *s.mem.get(&(sr, sa)).unwrap_or(&0);
                    s2.fb[r].entry(q).or_default().push_back((dr, da, v));
                    succ.push(s2);
                }
            }
            for (&q, dq) in &s.fb[r] {
                if let Some(&(dr, da, v)) = dq.front() {
                    let mut s2 = s.clone();
                    s2.fb[r].get_mut(&q).unwrap().pop_front();
                    s2.mem.insert((dr, da), v);
                    succ.push(s2);
                }
            }
            if s.steps[r] >= k {
                continue;
            }
            for &i in &out[s.pc[r] as usize] {
                let ins = &t.instrs[i];
                let mut s2 = s.clone();
                s2.pc[r] = ins.to.0;
                s2.steps[r] += 1;
                let me = r as i64 + 1;
                match &ins.cmd {
                    Command::Load { reg, addr } => {
                        let a = ev(addr, r, &s.regs[r]);
                        s2.regs[r][reg.0 as usize] = *s.mem.get(&(me, a)).unwrap_or(&0);
                    }
                    Command::Store { addr, value } => {
                        let a = ev(addr, r, &s.regs[r]);
                        s2.mem.insert((me, a), ev(value, r, &s.regs[r]));
                    }
                    Command::Assign { reg, value } => {
                        s2.regs[r][reg.0 as usize] = ev(value, r, &s.regs[r]);
                    }
                    Command::Assume(e) => {
                        if ev(e, r, &s.regs[r]) == 0 {
                            continue;
                        }
                    }
                    Command::Nop => {}
                    Command::Pgas(PgasCmd::Barrier) => {
                        // Joint step of all ranks (rule (bar)).
                        let mut ok = true;
                        for o in 0..n {
                            if o == r {
                                continue;
                            }
                            let b = out[s.pc[o] as usize].iter().find(|&&j| {
                                matches!(t.instrs[j].cmd, Command::Pgas(PgasCmd::Barrier))
                            });
                            match b {
                                Some(&j) if s.steps[o] < k => {
                                    s2.pc[o] = t.instrs[j].to.0;
                                    s2.steps[o] += 1;
                                }
                                _ => ok = false,
                            }
                        }
                        if !ok {
                            continue;
                        }
                    }
                    Command::Pgas(
                        pc @ (PgasCmd::Read {
                            local,
                            rank,
                            remote,
                            queue,
                        }
                        | PgasCmd::Write {
                            local,
                            rank,
                            remote,
                            queue,
                        }),
                    ) => {
                        let regs = &s.regs[r];
                        let (l, k2, m, q) = (
                            ev(local, r, regs),
                            ev(rank, r, regs),
                            ev(remote, r, regs),
                            ev(queue, r, regs),
                        );
                        let req = if matches!(pc, PgasCmd::Read { .. }) {
                            (k2, m, me, l)
                        } else {
                            (me, l, k2, m)
                        };
                        if immediate {
                            let v = *s.mem.get(&(req.0, req.1)).unwrap_or(&0);
                            s2.mem.insert((req.2, req.3), v);
                        } else {
                            s2.fa[r].entry(q).or_default().push_back(req);
                        }
                    }
                    other => panic!("simulator: unsupported {other:?}"),
                }
                succ.push(s2);
            }
        }
        todo.extend(succ);
    }
    finals
}

pub(crate) struct Rng(pub u64);
impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub(crate) fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[(self.next() % v.len() as u64) as usize]
    }
}

/// A small random SPMD program (one thread, straight-line, 2 registers).
pub(crate) fn gen(rng: &mut Rng) -> String {
    let vars = ["a", "b", "c"];
    let regs = ["r0", "r1"];
    let ranks = ["1", "2", "rank % nodes + 1"];
    let mut body = String::new();
    let len = 2 + rng.next() % 3;
    for _ in 0..len {
        let line = match rng.next() % 6 {
            0 => format!("{} = {};", rng.pick(&regs), rng.pick(&vars)),
            1 => {
                let v = *rng.pick(&["1", "2", "rank", "r0", "r1"]);
                format!("{} = {};", rng.pick(&vars), v)
            }
            2 | 3 => format!(
                "{}(&{}, {}, &{}, {});",
                rng.pick(&["read", "write"]),
                rng.pick(&vars),
                rng.pick(&ranks),
                rng.pick(&vars),
                rng.pick(&["0", "1"])
            ),
            4 => "barrier;".to_string(),
            _ => format!("{} = {};", rng.pick(&regs), rng.pick(&vars)),
        };
        body.push_str("  ");
        body.push_str(&line);
        body.push('\n');
    }
    // Observe the memory at the end.
    body.push_str(&format!("  r0 = {};\n", rng.pick(&vars)));
    format!("nodes 2;\nshared a = 3, b, c;\nthread P {{\n  reg r0, r1;\n{body}}}\n")
}

/// The goal "all threads terminated with these register values"
/// (rank-major: rank 1's r0, r1, rank 2's r0, r1).
fn outcome_goal(o: &[i64]) -> Goal {
    let mut cond: Option<GExpr> = None;
    for (i, v) in o.iter().enumerate() {
        let t = ThreadId((i / 2) as u32);
        let eq = Expr::bin(
            BinOp::Eq,
            Expr::Var(GVar::Reg(t, RegId((i % 2) as u32))),
            Expr::Const(*v),
        );
        cond = Some(match cond {
            None => eq,
            Some(c) => Expr::bin(BinOp::And, c, eq),
        });
    }
    Goal {
        name: None,
        kind: GoalKind::Goal,
        at: GoalAt::Final,
        cond,
        span: Default::default(),
    }
}

/// Which goals of `p` are reachable under `model`.
fn reachable(p: &Program, model: &str, k: u32) -> Vec<bool> {
    let m = bmc_rmm::cat::builtin(model).unwrap();
    let mut enc = Encoder::new(p, &m, k, W.0, false);
    (0..p.goals.len())
        .map(|g| {
            let l = enc.goal_lit(g);
            enc.find(&[l], Deadline(None)).unwrap().is_some()
        })
        .collect()
}

#[test]
fn generated_programs_sat_engine_agrees_with_table_8_1_simulator() {
    let mut rng = Rng(0x9e3779b97f4a7c15);
    let k = 6;
    let cases = 40;
    let mut pgas_only = 0;
    for case in 0..cases {
        let src = gen(&mut rng);
        let p = parse(&src);
        let sc = simulate(&p, 2, k, true);
        let pg = simulate(&p, 2, k, false);
        assert!(!sc.is_empty(), "{src}");
        assert!(sc.is_subset(&pg), "simulator: SC ⊄ PGAS\n{src}");
        pgas_only += pg.difference(&sc).count();
        // Candidate outcomes: every PGAS outcome and some perturbations.
        let mut cands: BTreeSet<Vec<i64>> = pg.clone();
        for o in pg.iter().take(4) {
            for i in 0..o.len() {
                let mut x = o.clone();
                x[i] = (x[i] + 1) % 4;
                cands.insert(x);
            }
        }
        let cands: Vec<Vec<i64>> = cands.into_iter().collect();
        let mut low = bmc_rmm::program::pgas::prepare(p.clone(), None, W).unwrap();
        low.goals = cands.iter().map(|o| outcome_goal(o)).collect();
        let r_pg = reachable(&low, "pgas", k);
        let r_sc = reachable(&low, "sc", k);
        for (i, o) in cands.iter().enumerate() {
            assert_eq!(
                r_pg[i],
                pg.contains(o),
                "case {case}: pgas outcome {o:?}: SAT {} vs simulator {}\n{src}",
                r_pg[i],
                pg.contains(o)
            );
            assert_eq!(
                r_sc[i],
                sc.contains(o),
                "case {case}: sc outcome {o:?}: SAT {} vs simulator {}\n{src}",
                r_sc[i],
                sc.contains(o)
            );
            // Every SC outcome is a PGAS outcome (on the SAT side too).
            assert!(!r_sc[i] || r_pg[i], "case {case}: {o:?}\n{src}");
        }
    }
    // The generator does produce relaxed behaviours.
    assert!(pgas_only > 0);
}

#[test]
fn generated_programs_have_no_hb_cycle_under_sc() {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let m = bmc_rmm::cat::builtin("sc").unwrap();
    let mp = bmc_rmm::cat::builtin("pgas").unwrap();
    let mut cyclic_under_pgas = 0;
    for _ in 0..40 {
        let src = gen(&mut rng);
        let p = bmc_rmm::program::pgas::prepare(parse(&src), None, W).unwrap();
        // Straight to the cycle query (check::robust would answer from
        // the axiom for non-PGAS programs).
        let mut enc = Encoder::new(&p, &m, 6, W.0, false);
        let act = enc.robust_act();
        assert!(
            enc.find(&[act], Deadline(None)).unwrap().is_none(),
            "hb cycle under sc:\n{src}"
        );
        let mut enc = Encoder::new(&p, &mp, 6, W.0, false);
        let act = enc.robust_act();
        if enc.find(&[act], Deadline(None)).unwrap().is_some() {
            cyclic_under_pgas += 1;
        }
    }
    assert!(cyclic_under_pgas > 0);
}

// ---------------------------------------------------------------------
// Both solver backends (varisat, z3) on generated programs.

/// Generated programs give identical verdicts on varisat and z3: the
/// reachability of each candidate outcome (which must also match the
/// Table 8.1 simulator) and robustness, under pgas and sc; every witness
/// replays on the other backend.
#[cfg(feature = "z3")]
#[test]
fn generated_programs_same_verdicts_on_both_backends() {
    use bmc_rmm::engines::bounded::CheckKind;
    use bmc_rmm::engines::bounded::{self, Limits, SolverKind};
    const BOTH: [SolverKind; 2] = [SolverKind::Varisat, SolverKind::Z3];
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let k = 6;
    let lim = Limits {
        bound: k,
        width: W.0,
        deadline: Deadline(None),
        switches: Default::default(),
    };
    let mut checked = 0;
    for case in 0..24 {
        let src = gen(&mut rng);
        let p = parse(&src);
        let pg = simulate(&p, 2, k, false);
        let sc = simulate(&p, 2, k, true);
        let mut cands: BTreeSet<Vec<i64>> = pg.iter().take(3).cloned().collect();
        if let Some(o) = pg.iter().next() {
            for i in 0..o.len().min(3) {
                let mut x = o.clone();
                x[i] = (x[i] + 1) % 4;
                cands.insert(x);
            }
        }
        let low = bmc_rmm::program::pgas::prepare(p.clone(), None, W).unwrap();
        for model in ["pgas", "sc"] {
            let m = bmc_rmm::cat::builtin(model).unwrap();
            let oracle = if model == "pgas" { &pg } else { &sc };
            let mut runs: Vec<(Program, CheckKind, Option<bool>)> = cands
                .iter()
                .map(|o| {
                    let mut q = low.clone();
                    q.goals = vec![outcome_goal(o)];
                    (q, CheckKind::Reach, Some(oracle.contains(o)))
                })
                .collect();
            runs.push((low.clone(), CheckKind::Robust, None));
            for (q, kind, expect) in &runs {
                let rs: Vec<_> = BOTH
                    .iter()
                    .map(|&s| bounded::check(s, q, &m, lim, false, &[*kind]).unwrap())
                    .collect();
                let (a, b) = (&rs[0][0], &rs[1][0]);
                assert_eq!(
                    a.verdict, b.verdict,
                    "case {case} [{model}] {kind:?}: varisat vs z3\n{src}"
                );
                if let Some(e) = expect {
                    assert_eq!(
                        b.verdict == Verdict::Violation,
                        *e,
                        "case {case} [{model}] z3 vs simulator\n{src}"
                    );
                }
                for (i, r) in [a, b].into_iter().enumerate() {
                    if let Some(x) = &r.witness {
                        let other = BOTH[1 - i];
                        let rep = bounded::replay(other, q, &m, lim, x).unwrap();
                        assert!(
                            rep.is_ok(),
                            "case {case} [{model}] {kind:?}: witness of {} rejected by {}: {rep:?}\n{src}",
                            BOTH[i].name(),
                            other.name()
                        );
                    }
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 100);
}
