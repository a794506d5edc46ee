//! The SMC engine (`bmc_rmm::engines::smc`, `--engine smc`): Source-DPOR against
//! exhaustive exploration on generated programs (same final states, same
//! Shasha–Snir traces, no more executions); its reach and robust answers
//! against the SAT engine's on the own examples (native and C: SB, MP,
//! Dekker, Peterson with and without fences, sc/tso/pso); its TSO
//! witnesses replayed on `reach::tso`; unsupported input and bad options.

use crate::common;

use bmc_rmm::diag::SourceFile;
use bmc_rmm::engines::bounded::{check, CheckKind, Deadline, Limits, SolverKind, Verdict};
use bmc_rmm::engines::smc::semantics::{Model, Step};
use bmc_rmm::engines::smc::{self, Reduction, SmcCheck, SmcOptions, SmcResult, SmcVerdict};
use bmc_rmm::frontend::{self, Format};
use bmc_rmm::program::{Program, Width};

const W: Width = Width(8);

fn opts(model: Model, check: SmcCheck, reduction: Reduction, bound: u32) -> SmcOptions {
    SmcOptions {
        model,
        width: W,
        bound,
        check,
        reduction,
        deadline: None,
        collect: true,
    }
}

fn run(p: &Program, o: &SmcOptions) -> SmcResult {
    smc::check(p, o).expect("supported program")
}

fn native(text: &str) -> Program {
    frontend::parse_program(&SourceFile::new("t.rmm", text), Some(Format::Native), W)
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// A small random program: 2–3 threads of 1–4 statements over x, y
/// (stores, loads, fences, #StoreStore membars, atomic increments,
/// choices, lock/unlock around a store, conditional stores).
fn generate(rnd: &mut impl FnMut(u64) -> u64) -> String {
    let mut text = String::from("shared x, y;\n");
    let threads = 2 + rnd(2);
    for t in 0..threads {
        text.push_str(&format!("thread t{t} {{\n  reg a;\n  reg b;\n"));
        for _ in 0..1 + rnd(if threads == 2 { 4 } else { 2 }) {
            let v = ["x", "y"][rnd(2) as usize];
            let r = ["a", "b"][rnd(2) as usize];
            let s = match rnd(if threads == 2 { 22 } else { 20 }) {
                20 | 21 => format!(
                    "atomic {{ {r} = y; assume({r} == 0); y = 1; }}; x = {}; atomic {{ y = 0; }};",
                    1 + rnd(2)
                ),
                0..=5 => format!("{v} = {};", 1 + rnd(2)),
                6..=11 => format!("{r} = {v};"),
                12 => "mfence;".into(),
                13 => "membar #StoreStore;".into(),
                14 => format!("atomic {{ {r} = {v}; {v} = {r} + 1; }};"),
                15 => format!("choose {{ {v} = 1; }} or {{ {r} = {v}; }}"),
                16 => format!("lock; {v} = 2; unlock;"),
                17 => format!("if ({r} == 1) {{ {v} = 2; }}"),
                _ => format!("{r} = {v}; {v} = {r} + 1;"),
            };
            text.push_str(&format!("  {s}\n"));
        }
        text.push_str("}\n");
    }
    text
}

#[test]
fn dpor_finds_the_final_states_and_traces_of_exhaustive_exploration() {
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut rnd = |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    // Per model (sc, tso, pso): DPOR executions, exhaustive executions,
    // distinct traces.
    let mut sums = [[0u64; 3]; 3];
    for case in 0..100 {
        let text = generate(&mut rnd);
        let p = native(&text);
        for (k, m) in [Model::Sc, Model::Tso, Model::Pso].into_iter().enumerate() {
            let a = run(&p, &opts(m, SmcCheck::Reach, Reduction::Dpor, 30));
            let b = run(&p, &opts(m, SmcCheck::Reach, Reduction::None, 30));
            assert_eq!(
                a.verdict,
                SmcVerdict::Unreachable,
                "case {case} {m:?}\n{text}"
            );
            assert_eq!(
                a.finals, b.finals,
                "case {case}, {m:?}: final states differ\n{text}"
            );
            let missing: Vec<String> = b
                .keys
                .iter()
                .filter(|(k, _)| !a.keys.contains_key(k))
                .map(|(_, path)| {
                    path.iter()
                        .map(|s| s.describe(&p))
                        .collect::<Vec<_>>()
                        .join("\n  ")
                })
                .collect();
            assert!(
                missing.is_empty() && a.keys.len() == b.keys.len(),
                "case {case}, {m:?}: Shasha–Snir traces differ\n{text}\nmissing:\n  {}",
                missing.join("\n----\n  ")
            );
            assert!(
                a.stats.executions <= b.stats.executions,
                "case {case}, {m:?}: DPOR ran more executions\n{text}"
            );
            assert_eq!(b.stats.traces, b.keys.len() as u64);
            sums[k][0] += a.stats.executions;
            sums[k][1] += b.stats.executions;
            sums[k][2] += a.stats.traces;
        }
    }
    for (k, m) in ["sc", "tso", "pso"].iter().enumerate() {
        eprintln!(
            "{m}: DPOR {} executions, exhaustive {} executions, {} traces",
            sums[k][0], sums[k][1], sums[k][2]
        );
        assert!(sums[k][0] < sums[k][1]);
    }
}

/// A small random program with read-only regions (bounded spin-like
/// reads into `c`, dead unless a later `a = c;` reads it) and one goal:
/// an assertion on `a`/`b` at the end of a thread, or a final goal.
fn generate_with_regions(rnd: &mut impl FnMut(u64) -> u64) -> String {
    let mut text = String::from("shared x, y;\n");
    let threads = 2 + u64::from(rnd(4) == 0);
    for t in 0..threads {
        text.push_str(&format!("thread t{t} {{\n  reg a;\n  reg b;\n  reg c;\n"));
        for _ in 0..1 + rnd(if threads == 2 { 4 } else { 2 }) {
            let v = ["x", "y"][rnd(2) as usize];
            let w = ["x", "y"][rnd(2) as usize];
            let r = ["a", "b"][rnd(2) as usize];
            let s = match rnd(12) {
                0..=2 => format!("{v} = {};", 1 + rnd(2)),
                3..=4 => format!("{r} = {v};"),
                5 => "mfence;".into(),
                6..=8 => format!("c = {v}; if (c == 0) {{ c = {w}; if (c != 1) {{ c = {v}; }} }}"),
                9 => format!("c = {v}; if (c == 1) {{ c = {w}; }} else {{ c = 2; }}"),
                10 => format!("{r} = c;"),
                _ => format!("if ({r} == 1) {{ {v} = 2; }}"),
            };
            text.push_str(&format!("  {s}\n"));
        }
        if rnd(2) == 0 {
            text.push_str(&format!("  assert(a != {} || b != {});\n", rnd(3), rnd(3)));
        }
        text.push_str("}\n");
    }
    if !text.contains("assert") {
        text.push_str(&format!(
            "goal final where t0.a == {} && t1.b == {};\n",
            rnd(3),
            rnd(3)
        ));
    }
    text
}

#[test]
fn skipping_read_only_regions_keeps_the_reachable_goals() {
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut rnd = |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    let (mut skipped, mut reachable, mut fewer) = (0, 0, 0);
    for case in 0..100 {
        let text = generate_with_regions(&mut rnd);
        let t0 = std::time::Instant::now();
        let p = native(&text);
        let Some((q, n)) = smc::regions::skip_read_only(&p, 30) else {
            continue;
        };
        assert!(n > 0);
        skipped += 1;
        for m in [Model::Sc, Model::Tso, Model::Pso] {
            let a = run(&p, &opts(m, SmcCheck::Reach, Reduction::Dpor, 30));
            let b = run(&q, &opts(m, SmcCheck::Reach, Reduction::Dpor, 30));
            let reach = |r: &SmcResult| matches!(r.verdict, SmcVerdict::Reachable { .. });
            assert_eq!(
                reach(&a),
                reach(&b),
                "case {case} {m:?}: {:?} vs {:?} with {n} regions skipped\n{text}",
                a.verdict,
                b.verdict
            );
            reachable += usize::from(reach(&a));
            if let (Model::Tso, SmcVerdict::Reachable { goal, steps }) = (m, &b.verdict) {
                replays_on_reach_tso(&q, steps, *goal);
            }
            // Exhaustive exploration of the original program agrees too
            // (under SC: under TSO/PSO it takes minutes).
            if m == Model::Sc && p.threads.len() == 2 {
                let c = run(&p, &opts(m, SmcCheck::Reach, Reduction::None, 30));
                assert_eq!(reach(&a), reach(&c), "case {case} {m:?}\n{text}");
            }
            if !reach(&a) {
                assert!(b.stats.executions <= a.stats.executions);
                fewer += usize::from(b.stats.executions < a.stats.executions);
            }
        }
        if t0.elapsed().as_secs_f64() > 1.0 {
            eprintln!("case {case}: {:?}\n{text}", t0.elapsed());
        }
    }
    eprintln!("{skipped} programs with regions, {reachable} reachable answers, {fewer} with fewer executions");
    assert!(skipped > 30 && reachable > 10 && fewer > 20);
}

/// A region whose register is read afterwards, a region with a goal
/// inside, a cyclic thread and a program with `lock` are left alone.
#[test]
fn read_only_regions_that_matter_are_kept() {
    let dead =
        native("shared x;\nthread t0 {\n reg c;\n c = x; if (c == 0) { c = x; }\n x = 1;\n}\n");
    let (q, n) = smc::regions::skip_read_only(&dead, 20).expect("a dead region");
    assert_eq!(n, 1);
    assert!(q.threads[0].instrs.len() < dead.threads[0].instrs.len());
    for text in [
        "shared x;\nthread t0 {\n reg c;\n reg a;\n c = x; if (c == 0) { c = x; }\n a = c;\n x = a;\n}\n",
        "shared x;\nthread t0 {\n reg c;\n c = x; if (c == 0) { c = x; assert(c != 0); }\n x = 1;\n}\n",
        "shared x;\nthread t0 {\n reg c;\n c = x; while (c == 0) { c = x; }\n x = 1;\n}\n",
        "shared x;\nthread t0 {\n reg c;\n c = x; if (c == 0) { c = x; }\n lock; x = 1; unlock;\n}\n",
        "shared x;\nthread t0 {\n reg c;\n c = x; assume(c == 0);\n x = 1;\n}\n",
    ] {
        assert!(smc::regions::skip_read_only(&native(text), 20).is_none(), "{text}");
    }
    // A bound shorter than the thread's longest path: left alone.
    assert!(smc::regions::skip_read_only(&dead, 2).is_none());
}

/// The SAT engine's verdict on `p` under `model` within `bound`.
fn sat(p: &Program, model: &str, kind: CheckKind, bound: u32) -> Verdict {
    let m = bmc_rmm::cat::load_model(model, None).unwrap();
    let lim = Limits {
        bound,
        width: W.0,
        deadline: Deadline(None),
        switches: Default::default(),
    };
    check(SolverKind::Varisat, p, &m, lim, false, &[kind]).unwrap()[0].verdict
}

fn replays_on_reach_tso(p: &Program, steps: &[Step], goal: usize) {
    use bmc_rmm::engines::tso_reach::tso::{check_witness, TsoStep};
    let w: Vec<TsoStep> = steps
        .iter()
        .map(|s| match *s {
            Step::Instr { thread, instr } => TsoStep::Instr {
                thread: bmc_rmm::program::ThreadId(thread),
                instr: instr as usize,
            },
            Step::Flush { thread, .. } => TsoStep::Flush {
                thread: bmc_rmm::program::ThreadId(thread),
            },
        })
        .collect();
    check_witness(p, W, &w, goal).expect("the SMC witness replays on reach::tso");
}

fn agree_with_sat(name: &str, p: &Program, bound: u32) {
    for (m, mname) in [(Model::Sc, "sc"), (Model::Tso, "tso"), (Model::Pso, "pso")] {
        let r = run(p, &opts(m, SmcCheck::Reach, Reduction::Dpor, bound));
        let s = sat(p, mname, CheckKind::Reach, bound);
        match &r.verdict {
            SmcVerdict::Reachable { goal, steps } => {
                assert_eq!(
                    s,
                    Verdict::Violation,
                    "{name} {mname}: smc reachable, sat not"
                );
                if m == Model::Tso {
                    replays_on_reach_tso(p, steps, *goal);
                }
            }
            SmcVerdict::Unreachable => {
                assert_eq!(
                    s,
                    Verdict::NoViolation,
                    "{name} {mname}: sat reachable, smc not"
                )
            }
            v => panic!("{name} {mname}: {v:?}"),
        }
        if m != Model::Sc {
            let r = run(p, &opts(m, SmcCheck::Robust, Reduction::Dpor, bound));
            let s = sat(p, mname, CheckKind::Robust, bound);
            let ours = matches!(r.verdict, SmcVerdict::NotRobust { .. });
            assert_eq!(
                ours,
                s == Verdict::Violation,
                "{name} {mname}: robust smc {:?} vs sat {s:?}",
                r.verdict
            );
        }
    }
}

#[test]
fn native_examples_agree_with_the_sat_engine() {
    for f in ["sb", "sb-fenced", "mp", "lb", "iriw", "dekker", "peterson"] {
        let p = frontend::load_program(&format!("examples/{f}.rmm"), None, W).unwrap();
        agree_with_sat(f, &p, 12);
    }
}

#[test]
fn c_examples_agree_with_the_sat_engine() {
    if bmc_rmm::frontend::c::preprocess::find().is_none() {
        eprintln!("skipped: no C preprocessor on PATH");
        return;
    }
    for (f, d) in [
        ("sb", vec![]),
        ("sb", vec!["FENCE"]),
        ("mp", vec![]),
        ("mp", vec!["FENCE"]),
        ("dekker", vec![]),
        ("dekker", vec!["FENCE"]),
        ("peterson", vec![]),
        ("peterson", vec!["TSO_FENCE"]),
        ("peterson", vec!["TSO_FENCE", "PSO_FENCE"]),
    ] {
        let o = bmc_rmm::frontend::c::Options {
            defines: d.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        };
        let p = frontend::load_program_with(&format!("examples/c/{f}.c"), None, W, &o).unwrap();
        let bound = p.max_path.unwrap();
        agree_with_sat(&format!("{f}.c {d:?}"), &p, bound);
    }
}

#[test]
fn robust_programs_have_as_many_traces_under_tso_and_pso_as_under_sc() {
    let p = frontend::load_program("examples/sb-fenced.rmm", None, W).unwrap();
    let n: Vec<u64> = [Model::Sc, Model::Tso, Model::Pso]
        .iter()
        .map(|m| {
            run(&p, &opts(*m, SmcCheck::Reach, Reduction::Dpor, 12))
                .stats
                .traces
        })
        .collect();
    assert_eq!(n[0], n[1]);
    assert_eq!(n[0], n[2]);
    // SB without fences has more TSO traces than SC traces.
    let p = frontend::load_program("examples/sb.rmm", None, W).unwrap();
    let mut p = p;
    p.goals.clear();
    let sc = run(&p, &opts(Model::Sc, SmcCheck::Reach, Reduction::Dpor, 12));
    let tso = run(&p, &opts(Model::Tso, SmcCheck::Reach, Reduction::Dpor, 12));
    assert!(tso.stats.traces > sc.stats.traces);
}

fn bin(args: &[&str]) -> (i32, String) {
    let (code, out, err) = common::run(args);
    (code, format!("{out}{err}"))
}

#[test]
fn cli_answers_errors_and_limits() {
    let (c, out) = bin(&["reach", "--engine", "smc", "-m", "tso", "examples/sb.rmm"]);
    assert_eq!(c, 1, "{out}");
    assert!(out.contains("REACHABLE") && out.contains("flush"), "{out}");
    let (c, out) = bin(&["robust", "--engine", "smc", "-m", "tso", "examples/sb.rmm"]);
    assert_eq!(c, 1, "{out}");
    assert!(
        out.contains("NOT ROBUST") && out.contains("cycle:"),
        "{out}"
    );
    // The cycle names its edges as the thesis does (§2.8): SB is
    // po; fr; po; fr. MP under PSO is po; rf; po; fr.
    let cycle = out.lines().find(|l| l.contains("cycle:")).unwrap_or("");
    let edges: Vec<&str> = cycle
        .split_whitespace()
        .filter(|w| w.len() > 2 && w.starts_with('-'))
        .collect();
    assert_eq!(edges, ["-po->", "-fr->", "-po->", "-fr->"], "{out}");
    let (c, out) = bin(&[
        "robust",
        "--engine",
        "smc",
        "-m",
        "pso",
        "--json",
        "examples/mp.rmm",
    ]);
    assert_eq!(c, 1, "{out}");
    let j: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON record");
    assert_eq!(
        j["edges"],
        serde_json::json!(["po", "rf", "po", "fr"]),
        "{out}"
    );
    let (c, out) = bin(&[
        "robust",
        "--engine",
        "smc",
        "-m",
        "tso",
        "examples/sb-fenced.rmm",
    ]);
    assert_eq!(c, 0, "{out}");
    let (c, out) = bin(&[
        "reach",
        "--engine",
        "smc",
        "-m",
        "sc",
        "--json",
        "examples/sb.rmm",
    ]);
    assert_eq!(c, 0, "{out}");
    let j: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(j["verdict"], "unreachable");
    assert!(j["stats"]["executions"].as_u64().unwrap() >= 1);
    // A loop cut by the bound is said.
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("loop.rmm");
    std::fs::write(&f, "shared x;\nthread t { while (1) { x = 1; } }\n").unwrap();
    let (c, out) = bin(&["reach", "--engine", "smc", "-k", "5", f.to_str().unwrap()]);
    assert_eq!(c, 0, "{out}");
    assert!(
        out.contains("--bound 5 (instructions per thread) cut"),
        "{out}"
    );
    // Unsupported commands: a located error, exit 2.
    let g = dir.path().join("ll.rmm");
    std::fs::write(&g, "shared x;\nthread t {\n  r = lwarx(x);\n}\n").unwrap();
    let (c, out) = bin(&["reach", "--engine", "smc", g.to_str().unwrap()]);
    assert_eq!(c, 2, "{out}");
    assert!(
        out.contains("ll.rmm:3:") && out.contains("not supported"),
        "{out}"
    );
    // Models the engine does not run.
    let (c, out) = bin(&["reach", "--engine", "smc", "-m", "power", "examples/sb.rmm"]);
    assert_eq!(c, 2, "{out}");
    let (c, _) = bin(&["robust", "--engine", "smc", "-m", "sc", "examples/sb.rmm"]);
    assert_eq!(c, 2);
    // A timeout is "unknown", exit 3.
    let h = dir.path().join("big.rmm");
    let mut t = String::from("shared x, y, z;\n");
    for i in 0..5 {
        t.push_str(&format!(
            "thread t{i} {{ while (1) {{ x = {i}; a = y; z = a; b = x; y = b; }} }}\n"
        ));
    }
    std::fs::write(&h, t).unwrap();
    let (c, out) = bin(&[
        "reach",
        "--engine",
        "smc",
        "-m",
        "tso",
        "-k",
        "40",
        "--timeout",
        "0.5",
        h.to_str().unwrap(),
    ]);
    assert_eq!(c, 3, "{out}");
    assert!(out.contains("unknown"), "{out}");
    assert!(!out.contains("panicked"), "{out}");
}

/// `reach --engine smc` says how many read-only regions it replaced;
/// `--smc-keep-reads` explores them (same answer, more executions);
/// `robust` never replaces them.
#[test]
fn cli_reports_read_only_regions() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("spin.rmm");
    std::fs::write(
        &f,
        "shared x, y;\nthread t0 {\n reg c;\n reg a;\n c = x; if (c == 0) { c = x; if (c == 0) { c = x; } }\n a = y;\n assert(a == 0 || a == 1);\n}\nthread t1 {\n x = 1;\n y = 1;\n}\n",
    )
    .unwrap();
    let f = f.to_str().unwrap();
    let execs = |out: &str| -> u64 {
        let v: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
        v["stats"]["executions"].as_u64().unwrap()
    };
    for m in ["sc", "tso", "pso"] {
        let args = ["reach", "--engine", "smc", "--model", m, "--json", f];
        let (code, out) = bin(&args);
        assert_eq!(code, 0, "{out}");
        assert!(out.contains("1 read-only region(s)"), "{out}");
        let (code2, out2) = bin(&[&args[..], &["--smc-keep-reads"]].concat());
        assert_eq!(code2, 0, "{out2}");
        assert!(!out2.contains("read-only region"), "{out2}");
        assert!(execs(&out) < execs(&out2), "{out}\n{out2}");
    }
    let (_, out) = bin(&["robust", "--engine", "smc", "--model", "tso", f]);
    assert!(!out.contains("read-only region"), "{out}");
}

/// Every binary operator, on values another thread writes (so the SAT
/// engine's bit-blasting evaluates them symbolically, not by folding),
/// gives `BinOp::apply`'s value under the SAT and the SMC engine: the
/// goal `t.r == apply(a, b)` is reachable and `t.r != apply(a, b)` (with
/// both loads seeing the written values) is not.
#[test]
fn every_operator_evaluates_alike_in_sat_and_smc() {
    use bmc_rmm::program::BinOp;
    let pairs = [
        (-1i64, 0i64),
        (-128, 7),
        (100, 9),
        (-3, 2),
        (5, -1),
        (77, 8),
        (-77, 200),
    ];
    for op in BinOp::ALL {
        for (a, b) in pairs {
            let want = op.apply(W.wrap(a), W.wrap(b), W);
            for (rel, reach) in [("==", true), ("!=", false)] {
                let text = format!(
                    "shared x, y;\nthread w {{ x = {a}; y = {b}; }}\n\
                     thread t {{ p = x; q = y; r = p {op} q; }}\n\
                     goal final where t.p == {a} && t.q == {b} && t.r {rel} {want};\n"
                );
                let p = native(&text);
                let r = run(&p, &opts(Model::Sc, SmcCheck::Reach, Reduction::Dpor, 8));
                let smc_reach = matches!(r.verdict, SmcVerdict::Reachable { .. });
                let sat_reach = sat(&p, "sc", CheckKind::Reach, 8) == Verdict::Violation;
                assert_eq!((smc_reach, sat_reach), (reach, reach), "{text}");
            }
        }
    }
}

/// `--width 64` (the largest, `Width::MAX`) works in the SMC engine, and
/// the lock's pseudo-location is not the address 2^63 (`i64::MIN`, a
/// real address at 64 bits): a program guarding that cell with the lock
/// gets the SAT engine's answers under sc, tso and pso.
#[test]
fn width_64_with_the_lock_and_address_2_63() {
    let w = Width(64);
    let text = "shared x;\n\
                thread a { lock; mem[-9223372036854775807 - 1] = 1; x = 1; unlock; }\n\
                thread b { lock; r1 = x; r2 = mem[-9223372036854775807 - 1]; unlock; }\n\
                goal torn: final where b.r1 == 1 && b.r2 == 0;\n\
                goal before: final where b.r1 == 0 && b.r2 == 0;\n";
    let p = frontend::parse_program(&SourceFile::new("t.rmm", text), Some(Format::Native), w)
        .unwrap_or_else(|e| panic!("{e}"));
    for (m, mname) in [(Model::Sc, "sc"), (Model::Tso, "tso"), (Model::Pso, "pso")] {
        let o = SmcOptions {
            width: w,
            ..opts(m, SmcCheck::Reach, Reduction::Dpor, 8)
        };
        let r = run(&p, &o);
        // Only `before` is reachable: the goal found is #2 (index 1).
        assert!(
            matches!(r.verdict, SmcVerdict::Reachable { goal: 1, .. }),
            "{mname}: {:?}",
            r.verdict
        );
        let cat = bmc_rmm::cat::load_model(mname, None).unwrap();
        let v = common::check1(CheckKind::Reach, &p, &cat, 8, 64, false, Deadline(None));
        assert_eq!(v.verdict, Verdict::Violation, "{mname}");
    }
    // The torn outcome alone: unreachable in both engines.
    let torn = text.replace("goal before: final where b.r1 == 0 && b.r2 == 0;\n", "");
    let p =
        frontend::parse_program(&SourceFile::new("t.rmm", torn), Some(Format::Native), w).unwrap();
    for (m, mname) in [(Model::Sc, "sc"), (Model::Tso, "tso"), (Model::Pso, "pso")] {
        let o = SmcOptions {
            width: w,
            ..opts(m, SmcCheck::Reach, Reduction::Dpor, 8)
        };
        assert!(
            matches!(run(&p, &o).verdict, SmcVerdict::Unreachable),
            "{mname}"
        );
        let cat = bmc_rmm::cat::load_model(mname, None).unwrap();
        let v = common::check1(CheckKind::Reach, &p, &cat, 8, 64, false, Deadline(None));
        assert_eq!(v.verdict, Verdict::NoViolation, "{mname}");
    }
    // Through the CLI: 64 accepted, 65 a usage error.
    let ex = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/sb.rmm");
    let (code, out) = bin(&["reach", "--engine", "smc", "--width", "64", ex]);
    assert_eq!(code, 1, "{out}");
    let (code, out) = bin(&["reach", "--engine", "smc", "--width", "65", ex]);
    assert_eq!(code, 2, "{out}");
}

/// A thread that stops holding the lock (its `assume` fails inside the
/// section, or the bound cuts the section) blocks the other thread's
/// buffered stores from reaching memory: DPOR must count those updates
/// as racing with the `lock` that blocks them and explore the order in
/// which they run before it. Here t1's stores run before t0's `lock` in
/// a prefix, and under pso (x0's store first) t0 reads x0 = 2 and x1 = 0:
/// the message-passing cycle, not robust, as the SAT engine says.
#[test]
fn an_update_blocked_by_the_lock_races_with_the_lock() {
    let cases = [
        (
            "assume",
            "shared x0, x1;
             thread t0 { reg r1, r2; r2 = x0; r1 = x1; lock; assume(r1 == 2); unlock; }
             thread t1 { x1 = 2; x0 = 2; }",
            20,
        ),
        (
            "bound",
            "shared x0, x1;
             thread t0 { reg r1, r2; r2 = x0; r1 = x1; lock; r1 = 1; r1 = 2; r1 = 3; unlock; }
             thread t1 { x1 = 2; x0 = 2; }",
            4,
        ),
    ];
    for (name, text, bound) in cases {
        let p = native(text);
        let r = run(
            &p,
            &opts(Model::Pso, SmcCheck::Robust, Reduction::Dpor, bound),
        );
        assert!(
            matches!(r.verdict, SmcVerdict::NotRobust { .. }),
            "{name}: {:?}",
            r.verdict
        );
        assert_eq!(
            sat(&p, "pso", CheckKind::Robust, bound),
            Verdict::Violation,
            "{name}"
        );
    }
}

/// `membar #StoreLoad` under PSO orders a thread's stores before its
/// later loads only: its later stores may still reach memory before its
/// earlier ones (`pso.cat`). The engine drains the buffers at such a
/// barrier, which would keep that order and answer "robust" on a program
/// that is not (fuzz-diff seed 2026, programs 6932, 7347, 8697); it
/// refuses the barrier under PSO and keeps it under TSO, where stores
/// leave the buffer in order anyway.
#[test]
fn a_store_load_membar_is_refused_under_pso() {
    let text = "shared x0, x1;
         thread t0 { x1 = 2; membar #StoreLoad; x0 = 1; }
         thread t3 { reg r1; atomic { r1 = x0; }; r1 = x1; }";
    let p = native(text);
    let e = smc::check(&p, &opts(Model::Pso, SmcCheck::Robust, Reduction::Dpor, 6))
        .expect_err("refused under PSO");
    assert!(e.to_string().contains("#StoreLoad"), "{e}");
    // The bounded engine finds the message-passing cycle of the
    // reordered stores.
    assert_eq!(sat(&p, "pso", CheckKind::Robust, 6), Verdict::Violation);
    // With #StoreStore too, the drained buffers are exact.
    let both = native(&text.replace("#StoreLoad", "#StoreLoad | #StoreStore"));
    let r = run(
        &both,
        &opts(Model::Pso, SmcCheck::Robust, Reduction::Dpor, 6),
    );
    assert_eq!(r.verdict, SmcVerdict::Robust);
    assert_eq!(
        sat(&both, "pso", CheckKind::Robust, 6),
        Verdict::NoViolation
    );
    // Under TSO the barrier is kept.
    let r = run(&p, &opts(Model::Tso, SmcCheck::Robust, Reduction::Dpor, 6));
    assert_eq!(r.verdict, SmcVerdict::Robust);
}
