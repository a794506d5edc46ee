//! Robustness against PGAS by normal-form computations (thesis 003
//! §8.3–8.4) against the bounded PGAS encoding (`pgas.cat`, §8.2's
//! happens-before): the thesis' OneToOne program (Figure 8.2) and its
//! fixed version and the repository's examples on 2, 3 and 4 nodes,
//! seeded straight-line SPMD programs (the generator of `pgas.rs`), for
//! which the bounded engine at the program's length is complete — so the
//! two verdicts must be equal, both ways — and seeded programs with
//! branches and spin loops (each verdict confirmed within a bound). Bad
//! input: located errors.

use super::pgas::{gen, parse, Rng};
use crate::common;
use bmc_rmm::engines::bounded::{CheckKind, Deadline, Verdict as Bv};
use bmc_rmm::engines::explicit::Limits;
use bmc_rmm::engines::normal_form::{check_robustness, Model, Options, Report, Verdict};
use bmc_rmm::program::{pgas, Program, Width};

const W: Width = Width::DEFAULT;

fn example(name: &str, nodes: u32) -> Program {
    let path = format!("{}/examples/pgas/{name}", env!("CARGO_MANIFEST_DIR"));
    let p = bmc_rmm::frontend::load_program(&path, None, W).unwrap();
    pgas::prepare(p, Some(nodes), W).unwrap()
}

/// The normal-form verdict within `states` states per search (a state
/// limit, not a time limit: the same answer on every machine).
fn nf(p: &Program, states: usize) -> Report {
    let opts = Options {
        width: W,
        limits: Limits {
            timeout: None,
            max_states: Some(states),
            ..Limits::default()
        },
        ..Options::default()
    };
    check_robustness(p, Model::Pgas, &opts).expect("in the engine's program class")
}

fn bounded(p: &Program, bound: u32) -> Bv {
    let m = bmc_rmm::cat::builtin("pgas").unwrap();
    common::check1(CheckKind::Robust, p, &m, bound, W.0, false, Deadline(None)).verdict
}

#[test]
fn one_to_one_is_not_robust_on_2_3_4_nodes_and_the_bounded_engine_confirms() {
    for nodes in [2, 3, 4] {
        let p = example("one_to_one.rmm", nodes);
        let r = nf(&p, 2_000_000);
        let Verdict::NotRobust(w) = &r.verdict else {
            panic!("{nodes} nodes: {:?}", r.verdict);
        };
        // The cycle goes through a popb that the barrier did not wait for.
        let text = w.to_string();
        assert!(text.contains(":popb y@"), "{text}");
        assert!(text.contains("normal form of degree 4"), "{text}");
        let k = w.steps_per_thread() as u32;
        assert_eq!(bounded(&p, k), Bv::Violation, "{nodes} nodes, bound {k}");
    }
}

#[test]
fn one_to_one_with_a_wait_is_robust_and_the_bounded_engine_finds_no_cycle() {
    for nodes in [2, 3] {
        let p = example("one_to_one_wait.rmm", nodes);
        let r = nf(&p, 2_000_000);
        assert!(
            matches!(r.verdict, Verdict::Robust),
            "{nodes}: {:?}",
            r.verdict
        );
        for k in [10, 20] {
            assert_eq!(bounded(&p, k), Bv::NoViolation, "{nodes} nodes, bound {k}");
        }
    }
}

#[test]
fn the_other_examples_agree_with_the_bounded_engine() {
    for (name, robust) in [("two_queues.rmm", false), ("blocking_get.rmm", true)] {
        for nodes in [2, 3, 4] {
            let p = example(name, nodes);
            let r = nf(&p, 2_000_000);
            match &r.verdict {
                Verdict::Robust => {
                    assert!(robust, "{name} on {nodes}");
                    assert_eq!(bounded(&p, 10), Bv::NoViolation, "{name} on {nodes}");
                }
                Verdict::NotRobust(w) => {
                    assert!(!robust, "{name} on {nodes}");
                    let k = w.steps_per_thread() as u32;
                    assert_eq!(bounded(&p, k), Bv::Violation, "{name} on {nodes}");
                }
                Verdict::Unknown(why) => panic!("{name} on {nodes}: {why}"),
            }
        }
    }
}

#[test]
fn generated_programs_agree_with_the_complete_bounded_engine() {
    let mut rng = Rng(0x0bad_5eed_1234_5677);
    let (mut robust, mut not_robust, mut undecided) = (0, 0, 0);
    // `NF_PGAS_PROGRAMS=N` runs N programs (default 60).
    let cases: u32 = std::env::var("NF_PGAS_PROGRAMS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(60);
    for case in 0..cases {
        let src = gen(&mut rng);
        for nodes in [2, 3] {
            let p = pgas::prepare(parse(&src), Some(nodes), W).unwrap();
            // Straight-line threads: this bound covers every execution.
            let len = p.threads.iter().map(|t| t.instrs.len()).max().unwrap_or(0) as u32;
            let b = bounded(&p, len.max(1));
            let r = nf(&p, 200_000);
            match &r.verdict {
                Verdict::Robust => {
                    robust += 1;
                    assert_eq!(b, Bv::NoViolation, "case {case}, {nodes} nodes\n{src}");
                }
                Verdict::NotRobust(w) => {
                    not_robust += 1;
                    assert_eq!(b, Bv::Violation, "case {case}, {nodes} nodes\n{src}");
                    let k = w.steps_per_thread() as u32;
                    assert_eq!(bounded(&p, k), Bv::Violation, "case {case}: witness size");
                }
                Verdict::Unknown(_) => undecided += 1,
            }
        }
    }
    eprintln!("{robust} robust, {not_robust} not robust, {undecided} undecided");
    // Both verdicts occur, and the limit cuts few cases.
    assert!(
        robust >= cases / 6 && not_robust >= cases / 6,
        "{robust} robust, {not_robust} not"
    );
    assert!(undecided <= cases / 5, "{undecided} undecided");
}

/// A random SPMD program with rank-dependent branches and a spin loop
/// (a wait on a flag that a remote write sets), so that control cycles,
/// blocked threads and the persistent steps meet.
fn gen_looping(rng: &mut Rng) -> String {
    let vars = ["a", "b", "f"];
    let op = |rng: &mut Rng| match rng.next() % 4 {
        0 => format!("r0 = {};", rng.pick(&vars)),
        1 => format!("{} = {};", rng.pick(&vars), rng.pick(&["1", "2", "r0"])),
        _ => format!(
            "{}(&{}, {}, &{}, {});",
            rng.pick(&["read", "write"]),
            rng.pick(&vars),
            rng.pick(&["1", "2", "rank % nodes + 1"]),
            rng.pick(&vars),
            rng.pick(&["0", "1"])
        ),
    };
    let mut body = String::new();
    for _ in 0..1 + rng.next() % 2 {
        body.push_str(&format!(
            "  {}
",
            op(rng)
        ));
    }
    body.push_str(&format!(
        "  if (rank == 1) {{
    {}
  }} else {{
    {}
  }}
",
        op(rng),
        op(rng)
    ));
    if rng.next().is_multiple_of(2) {
        body.push_str(
            "  r1 = f;
  while (r1 == 0) { r1 = f; }
",
        );
    } else {
        body.push_str(
            "  barrier;
",
        );
    }
    body.push_str(&format!(
        "  r0 = {};
",
        rng.pick(&vars)
    ));
    format!("nodes 2;\nshared a = 3, b, f;\nthread P {{\n  reg r0, r1;\n{body}}}\n")
}

#[test]
fn generated_programs_with_loops_agree_with_the_bounded_engine() {
    let mut rng = Rng(0x1357_9bdf_2468_ace1);
    let (mut robust, mut not_robust, mut undecided) = (0, 0, 0);
    let cases: u32 = std::env::var("NF_PGAS_PROGRAMS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40);
    for case in 0..cases {
        let src = gen_looping(&mut rng);
        let p = pgas::prepare(parse(&src), None, W).unwrap();
        let r = nf(&p, 200_000);
        match &r.verdict {
            // Loops: the bounded engine confirms within a bound only.
            Verdict::Robust => {
                robust += 1;
                assert_eq!(bounded(&p, 10), Bv::NoViolation, "case {case}\n{src}");
            }
            Verdict::NotRobust(w) => {
                not_robust += 1;
                let k = w.steps_per_thread() as u32;
                assert_eq!(bounded(&p, k), Bv::Violation, "case {case}: witness\n{src}");
            }
            Verdict::Unknown(_) => undecided += 1,
        }
    }
    eprintln!("{robust} robust, {not_robust} not robust, {undecided} undecided");
    assert!(
        robust >= cases / 8 && not_robust >= cases / 8,
        "{robust} robust, {not_robust} not"
    );
    assert!(undecided <= cases / 5, "{undecided} undecided");
}

#[test]
fn constructs_outside_the_class_are_located_errors() {
    for (src, what) in [
        (
            "nodes 2;\nshared x, y;\nthread P {\n  atomic { a = x; y = a; };\n}\n",
            "two or more memory accesses",
        ),
        (
            "nodes 2;\nshared x;\nthread P {\n  lock;\n  x = 1;\n  unlock;\n}\n",
            "lock",
        ),
    ] {
        let f = std::env::temp_dir().join(format!("nf_pgas_{}.rmm", what.len()));
        std::fs::write(&f, src).unwrap();
        let out = common::bin()
            .args(["robust", "--engine", "normal-form", "--model", "pgas"])
            .arg(&f)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains(what) && err.contains(":4:"), "{err}");
    }
}
