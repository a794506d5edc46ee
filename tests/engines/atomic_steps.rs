//! Atomic steps over several locations (`atomic { }` over two or three
//! variables): the bounded backends (varisat, cdclt; z3 under the `z3`
//! feature), which contract the model's `acyclic` axioms over each such
//! step (docs/models.md, "Atomic steps over several locations"), give
//! the same reach verdicts as the SMC engine (which executes the step
//! indivisibly) under sc, tso and pso, and as the explicit engine's SC
//! search, on generated native programs.

use bmc_rmm::diag::SourceFile;
use bmc_rmm::engines::bounded::{check, CheckKind, Deadline, Limits, SolverKind, Verdict};
use bmc_rmm::engines::explicit::{self, ReachVerdict};
use bmc_rmm::engines::smc::semantics::Model;
use bmc_rmm::engines::smc::{self, Reduction, SmcCheck, SmcOptions, SmcVerdict};
use bmc_rmm::frontend::{self, Format};
use bmc_rmm::program::{Program, Width};
use proptest::prelude::*;

const W: Width = Width(8);

/// The backends compared (z3 only when built in).
fn solvers() -> Vec<SolverKind> {
    let mut v = vec![SolverKind::Varisat, SolverKind::Cdclt];
    if cfg!(feature = "z3") {
        v.push(SolverKind::Z3);
    }
    v
}

/// One statement of a generated thread: stores, loads, fences and
/// atomic steps over two or three of x, y, z (reading and writing,
/// with a test-and-set guard, reading a location twice around a write).
fn stmt() -> impl Strategy<Value = String> {
    let v = || prop::sample::select(vec!["x", "y", "z"]);
    let r = || prop::sample::select(vec!["a", "b"]);
    let c = || 1..3i64;
    prop_oneof![
        (v(), c()).prop_map(|(v, c)| format!("{v} = {c};")),
        (r(), v()).prop_map(|(r, v)| format!("{r} = {v};")),
        Just("mfence;".to_string()),
        (v(), v(), c(), c())
            .prop_filter("two locations", |(p, q, _, _)| p != q)
            .prop_map(|(p, q, c, d)| format!("atomic {{ {p} = {c}; {q} = {d}; }};")),
        (v(), v())
            .prop_filter("two locations", |(p, q)| p != q)
            .prop_map(|(p, q)| format!("atomic {{ a = {p}; b = {q}; }};")),
        (r(), v(), v(), c())
            .prop_filter("two locations", |(_, p, q, _)| p != q)
            .prop_map(|(r, p, q, c)| format!("atomic {{ {r} = {p}; {q} = {r} + {c}; }};")),
        (v(), v())
            .prop_filter("two locations", |(p, q)| p != q)
            .prop_map(|(p, q)| format!("atomic {{ a = {p}; {q} = 1; b = {p}; }};")),
        (v(), v(), c())
            .prop_filter("two locations", |(p, q, _)| p != q)
            .prop_map(|(p, q, c)| {
                format!("atomic {{ a = {p}; assume(a == 0); {p} = 1; {q} = {c}; }};")
            }),
    ]
}

/// A program: 2–3 threads of 1–3 statements over x, y, z (at least one
/// atomic step over several locations), and a final goal on two
/// registers.
fn program() -> impl Strategy<Value = String> {
    let thread = prop::collection::vec(stmt(), 1..4);
    (
        prop::collection::vec(thread, 2..4),
        0..3usize,
        0..3usize,
        0..3i64,
        0..3i64,
    )
        .prop_filter("an atomic step", |(ts, ..)| {
            ts.iter().flatten().any(|s| s.starts_with("atomic"))
        })
        .prop_map(|(ts, t1, t2, v1, v2)| {
            let n = ts.len();
            let mut text = String::from("shared x, y, z;\n");
            for (t, body) in ts.iter().enumerate() {
                text.push_str(&format!("thread t{t} {{\n  reg a;\n  reg b;\n"));
                for s in body {
                    text.push_str(&format!("  {s}\n"));
                }
                text.push_str("}\n");
            }
            text.push_str(&format!(
                "goal final where t{}.a == {v1} && t{}.b == {v2};\n",
                t1 % n,
                t2 % n
            ));
            text
        })
}

fn native(text: &str) -> Program {
    frontend::parse_program(&SourceFile::new("t.rmm", text), Some(Format::Native), W)
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// The bounded backend's reach verdict (bound 16: every generated
/// thread's path is shorter, so nothing is cut).
fn sat(p: &Program, model: &str, solver: SolverKind) -> bool {
    let m = bmc_rmm::cat::load_model(model, None).unwrap();
    let lim = Limits {
        bound: 16,
        width: W.0,
        deadline: Deadline(None),
        switches: Default::default(),
    };
    let r = check(solver, p, &m, lim, false, &[CheckKind::Reach]).unwrap();
    match r[0].verdict {
        Verdict::Violation => true,
        Verdict::NoViolation => false,
        Verdict::Unknown => panic!("{} {model}: unknown", solver.name()),
    }
}

/// The SMC engine's reach verdict.
fn smc_reach(p: &Program, model: Model) -> bool {
    let o = SmcOptions {
        model,
        width: W,
        bound: 16,
        check: SmcCheck::Reach,
        reduction: Reduction::Dpor,
        deadline: None,
        collect: false,
    };
    match smc::check(p, &o).expect("supported program").verdict {
        SmcVerdict::Reachable { .. } => true,
        SmcVerdict::Unreachable => false,
        v => panic!("smc: {v:?}"),
    }
}

/// The explicit engine's SC reach verdict.
fn explicit_sc(p: &Program) -> bool {
    let o = explicit::Options {
        width: W,
        ..explicit::Options::default()
    };
    match explicit::sc_reach(p, &o)
        .expect("supported program")
        .verdict
    {
        ReachVerdict::Reachable(_) => true,
        ReachVerdict::Unreachable => false,
        v => panic!("explicit: {v:?}"),
    }
}

/// Every engine's verdicts on `text` agree; returns the SC verdict.
fn agree(text: &str) -> bool {
    let p = native(text);
    assert!(p.atomic_step_thread().is_some(), "{text}");
    let sc = explicit_sc(&p);
    for (m, name) in [(Model::Sc, "sc"), (Model::Tso, "tso"), (Model::Pso, "pso")] {
        let want = smc_reach(&p, m);
        if m == Model::Sc {
            assert_eq!(want, sc, "smc vs explicit under sc\n{text}");
        }
        for s in solvers() {
            assert_eq!(
                sat(&p, name, s),
                want,
                "{} vs smc under {name}\n{text}",
                s.name()
            );
        }
    }
    sc
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn bounded_smc_and_explicit_engines_agree_on_atomic_steps(text in program()) {
        agree(&text);
    }
}

/// Shapes where per-location atomicity and indivisibility differ: a
/// step reading a location twice around another thread's write, a step
/// writing two locations read in between by another thread, and
/// read_write_lock's reader/writer counters (SV-COMP
/// `pthread-atomic/read_write_lock-1.c`). The goal is unreachable under
/// every model only when the step is indivisible.
#[test]
fn classic_shapes_are_indivisible() {
    let cases = [
        "shared x, y;\nthread t0 { reg a; reg b; atomic { a = x; y = 1; b = x; }; }\n\
         thread t1 { reg a; reg b; x = 1; }\ngoal final where t0.a == 0 && t0.b == 1;\n",
        "shared x, y;\nthread t0 { reg a; reg b; atomic { x = 1; y = 1; }; }\n\
         thread t1 { reg a; reg b; atomic { a = x; b = y; }; }\n\
         goal final where t1.a == 1 && t1.b == 0;\n",
        "shared w, r, x;\n\
         thread t0 { reg a; reg b; atomic { a = w; assume(a == 0); b = r; assume(b == 0); w = 1; }; \
         x = 3; x = 0; atomic { w = 0; }; }\n\
         thread t1 { reg a; reg b; atomic { a = w; assume(a == 0); b = r; r = b + 1; }; \
         a = x; atomic { b = r; r = b - 1; }; }\n\
         goal final where t1.a == 3;\n",
    ];
    for text in cases {
        assert!(!agree(text), "reachable under sc\n{text}");
    }
}

/// A lock section holding at most one access on every path is
/// indivisible by itself (`Program::sections_hold_one_access`): the
/// bounded hb-cycle query then takes hb over events (and may prove
/// acyclicity statically). Its robustness verdicts (varisat, cdclt) equal
/// the SMC engine's, which executes the section indivisibly, under sc,
/// tso and pso; a section with two accesses, an atomic step over two
/// locations or an `unlock` without the lock keeps the contraction.
#[test]
fn sections_of_one_access_are_indivisible_by_themselves() {
    let one = [
        "shared x, y;\nthread t0 { reg a; lock; x = 1; unlock; a = y; }\n\
         thread t1 { reg a; lock; y = 1; unlock; a = x; }\n",
        "shared x, y;\nthread t0 { reg a; x = 1; lock; a = y; unlock; }\n\
         thread t1 { reg a; y = 1; lock; a = x; unlock; }\n",
        "shared x, y;\nthread t0 { reg a; x = 1; a = y; lock; unlock; }\n\
         thread t1 { reg a; lock; y = 1; unlock; a = x; }\n",
    ];
    let more = [
        "shared x, y;\nthread t0 { reg a; lock; x = 1; a = y; unlock; }\n\
         thread t1 { reg a; y = 1; a = x; }\n",
        "shared x, y;\nthread t0 { reg a; atomic { x = 1; y = 1; }; }\n\
         thread t1 { reg a; a = y; a = x; }\n",
        "shared x, y;\nthread t0 { reg a; x = 1; unlock; a = y; }\n\
         thread t1 { reg a; y = 1; a = x; }\n",
    ];
    for text in more {
        assert!(!native(text).sections_hold_one_access(), "{text}");
    }
    for text in one {
        let p = native(text);
        assert!(p.sections_hold_one_access(), "{text}");
        for (m, name) in [(Model::Sc, "sc"), (Model::Tso, "tso"), (Model::Pso, "pso")] {
            let o = SmcOptions {
                model: m,
                width: W,
                bound: 16,
                check: SmcCheck::Robust,
                reduction: Reduction::Dpor,
                deadline: None,
                collect: false,
            };
            let want = match smc::check(&p, &o).expect("supported program").verdict {
                SmcVerdict::Robust => false,
                SmcVerdict::NotRobust { .. } => true,
                v => panic!("smc: {v:?}"),
            };
            let model = bmc_rmm::cat::load_model(name, None).unwrap();
            let lim = Limits {
                bound: 16,
                width: W.0,
                deadline: Deadline(None),
                switches: Default::default(),
            };
            for s in solvers() {
                let r = check(s, &p, &model, lim, false, &[CheckKind::Robust]).unwrap();
                let got = match r[0].verdict {
                    Verdict::Violation => true,
                    Verdict::NoViolation => false,
                    Verdict::Unknown => panic!("{} {name}: unknown", s.name()),
                };
                assert_eq!(got, want, "{} vs smc under {name}\n{text}", s.name());
            }
        }
    }
}
