//! Bounded fence synthesis (`bmc_rmm::engines::derived::fence_synth`, `fences --model M --bound
//! K`): the textbook placements on examples/fences/ under Power, SPARC
//! PSO/RMO, Arm and RISC-V; every synthesized program re-checked robust
//! by the bounded engine (and the unfenced one not robust); cost files;
//! bad input located, exit 2; and, on the Trencher corpus (skipped when
//! `../shared/corpus` is absent), TSO costs equal to the explicit
//! engine's optimal fence sets, the emitted programs robust by the
//! explicit engine.

use bmc_rmm::cat;
use bmc_rmm::engines::bounded::{queries, CheckKind, Deadline, Limits, SolverKind, Verdict};
use bmc_rmm::engines::derived::fence_synth::{self, Costs, Outcome};
use bmc_rmm::engines::explicit;
use bmc_rmm::frontend;
use bmc_rmm::program::{Program, Width};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn load(path: &str) -> Program {
    frontend::load_program(&format!("{ROOT}/{path}"), None, Width::DEFAULT).expect("loads")
}

fn limits(bound: u32) -> Limits {
    Limits {
        bound,
        width: Width::DEFAULT.0,
        deadline: Deadline(None),
        switches: Default::default(),
    }
}

fn robust(p: &Program, model: &str, bound: u32) -> Verdict {
    let m = cat::builtin(model).unwrap();
    queries::check(
        SolverKind::Varisat,
        p,
        &m,
        limits(bound),
        false,
        &[CheckKind::Robust],
    )
    .unwrap()[0]
        .verdict
}

/// Synthesizes under `model` at bound 10; returns the placements as
/// `kind@(thread,state)` and checks the fenced program is robust and, if
/// fences were needed, the input is not.
fn synth(path: &str, model: &str) -> (Vec<String>, u64) {
    let p = load(path);
    let m = fence_synth::menu(cat::builtin_name(model).unwrap()).unwrap();
    let model_ = cat::builtin(model).unwrap();
    let opts = fence_synth::Options {
        solver: SolverKind::Varisat,
        limits: limits(10),
        max_iterations: 200,
    };
    let r = fence_synth::synthesize(&p, &model_, &m, &Costs::defaults(&m), &opts).unwrap();
    assert!(
        matches!(r.outcome, Outcome::Robust),
        "{path} {model}: {:?}",
        r.outcome
    );
    assert!(r.optimal);
    let (fenced, _) = fence_synth::apply(&p, &m, &r.fences);
    assert_eq!(
        robust(&fenced, model, 10),
        Verdict::NoViolation,
        "{path} {model}"
    );
    // The emitted text parses back to a robust program.
    let text = bmc_rmm::program::render::native(&fenced);
    let src = bmc_rmm::diag::SourceFile::new("fenced.rmm", text);
    let back = frontend::native::parse(&src, Width::DEFAULT).expect("reparses");
    assert_eq!(robust(&back, model, 10), Verdict::NoViolation);
    let expect_input = if r.fences.is_empty() {
        Verdict::NoViolation
    } else {
        Verdict::Violation
    };
    assert_eq!(robust(&p, model, 10), expect_input, "{path} {model}");
    (
        r.fences.iter().map(|f| f.describe(&p, &m)).collect(),
        r.cost,
    )
}

fn s(v: &[&str]) -> Vec<String> {
    v.iter().map(|x| x.to_string()).collect()
}

#[test]
fn power_textbook_placements() {
    let e = "examples/fences";
    let cases: [(&str, &[&str], u64); 8] = [
        ("mp", &["lwsync@(t0,q1)", "lwsync@(t1,q1)"], 2),
        ("mp-addr", &["lwsync@(t0,q1)"], 1),
        ("sb", &["sync@(t0,q1)", "sync@(t1,q1)"], 4),
        ("iriw", &["sync@(r0,q1)", "sync@(r1,q1)"], 4),
        ("wrc", &["lwsync@(t1,q1)", "lwsync@(t2,q1)"], 2),
        (
            "isa2",
            &["lwsync@(t0,q1)", "lwsync@(t1,q1)", "lwsync@(t2,q1)"],
            3,
        ),
        ("lb", &["lwsync@(t0,q1)", "lwsync@(t1,q1)"], 2),
        ("2+2w", &["lwsync@(t0,q1)", "lwsync@(t1,q1)"], 2),
    ];
    for (name, want, cost) in cases {
        let (got, c) = synth(&format!("{e}/{name}.rmm"), "power");
        assert_eq!(got, s(want), "{name}");
        assert_eq!(c, cost, "{name}");
    }
}

#[test]
fn sparc_membar_masks() {
    let e = "examples/fences";
    let pso: [(&str, &[&str]); 5] = [
        ("mp", &["#StoreStore@(t0,q1)"]),
        ("sb", &["#StoreLoad@(t0,q1)", "#StoreLoad@(t1,q1)"]),
        ("2+2w", &["#StoreStore@(t0,q1)", "#StoreStore@(t1,q1)"]),
        ("iriw", &[]),
        ("lb", &[]),
    ];
    for (name, want) in pso {
        assert_eq!(
            synth(&format!("{e}/{name}.rmm"), "pso").0,
            s(want),
            "pso {name}"
        );
    }
    let rmo: [(&str, &[&str]); 4] = [
        ("mp", &["#StoreStore@(t0,q1)", "#LoadLoad@(t1,q1)"]),
        ("iriw", &["#LoadLoad@(r0,q1)", "#LoadLoad@(r1,q1)"]),
        ("lb", &["#LoadStore@(t0,q1)", "#LoadStore@(t1,q1)"]),
        ("wrc", &["#LoadStore@(t1,q1)", "#LoadLoad@(t2,q1)"]),
    ];
    for (name, want) in rmo {
        assert_eq!(
            synth(&format!("{e}/{name}.rmm"), "rmo").0,
            s(want),
            "rmo {name}"
        );
    }
}

#[test]
fn tso_arm_riscv() {
    let e = "examples/fences";
    assert_eq!(
        synth(&format!("{e}/sb.rmm"), "tso").0,
        s(&["mfence@(t0,q1)", "mfence@(t1,q1)"])
    );
    assert!(synth(&format!("{e}/mp.rmm"), "tso").0.is_empty());
    assert_eq!(
        synth(&format!("{e}/mp.rmm"), "arm").0,
        s(&["dmb.st@(t0,q1)", "dmb.ld@(t1,q1)"])
    );
    assert_eq!(
        synth(&format!("{e}/sb.rmm"), "arm").0,
        s(&["dmb.sy@(t0,q1)", "dmb.sy@(t1,q1)"])
    );
    assert_eq!(
        synth(&format!("{e}/iriw.rmm"), "riscv").0,
        s(&["fence.r.r@(r0,q1)", "fence.r.r@(r1,q1)"])
    );
}

use crate::common;
use common::bin;

fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> String {
    let p = dir.path().join(name);
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

#[test]
fn cost_file_changes_the_choice_and_emit_is_robust() {
    let d = tempfile::tempdir().unwrap();
    // lwsync made dearer than sync: MP gets two syncs.
    let c = write(&d, "c.txt", "# costs\nkind lwsync 5\nkind sync 2\n");
    let out = d.path().join("mp-fenced.rmm");
    let o = bin()
        .args([
            "fences", "--model", "power", "--bound", "10", "--cost", &c, "--emit",
        ])
        .arg(&out)
        .arg(format!("{ROOT}/examples/fences/mp.rmm"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{text}");
    assert!(
        text.contains("cost 4") && text.contains("sync@(t0,q1) sync@(t1,q1)"),
        "{text}"
    );
    let o = bin()
        .args(["robust", "--model", "power", "--bound", "10"])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    // A location cost: the writer's point priced out under PSO has no
    // alternative, so the cost shows it; per-kind location lines parse.
    let c = write(&d, "c2.txt", "t0 q1 #StoreStore 7\n");
    let o = bin()
        .args(["fences", "--model", "pso", "--bound", "10", "--cost", &c])
        .arg(format!("{ROOT}/examples/fences/mp.rmm"))
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&o.stdout).contains("cost 7"));
}

#[test]
fn fences_are_checked_for_every_bound_by_the_normal_form_engine() {
    let d = tempfile::tempdir().unwrap();
    // MP with the writer's stores after a loop: bound 1 sees no store at
    // all, so the bounded synthesis places nothing; the normal-form
    // engine finds the cycle beyond the bound (exit 1).
    let f = write(
        &d,
        "mp.rmm",
        "shared x, y;\nthread t0 {\n  r = 0;\n  while (r < 1) { r = r + 1; }\n  x = 1;\n  y = 1;\n}\nthread t1 {\n  a = y;\n  b = x;\n}\n",
    );
    let run = |bound: &str| {
        let o = bin()
            .args(["fences", "--model", "pso", "--bound", bound, "--json"])
            .arg(&f)
            .output()
            .unwrap();
        let j: serde_json::Value =
            serde_json::from_str(String::from_utf8_lossy(&o.stdout).lines().next().unwrap())
                .unwrap();
        (o.status.code(), j)
    };
    let (code, j) = run("1");
    assert_eq!(code, Some(1), "{j}");
    assert_eq!(j["every_bound"]["verdict"], "not robust", "{j}");
    assert!(j["every_bound"]["reason"]
        .as_str()
        .unwrap()
        .contains("beyond bound 1"));
    // At bound 10 the fences found hold for every bound.
    let (code, j) = run("10");
    assert_eq!(code, Some(0), "{j}");
    assert_eq!(j["every_bound"]["verdict"], "robust", "{j}");
    // Under a model the engine does not decide, no such check is made.
    let o = bin()
        .args(["fences", "--model", "arm", "--bound", "10", "--json"])
        .arg(&f)
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&o.stdout).contains("every_bound"));
}

#[test]
fn bad_input_is_located_exit_2() {
    let d = tempfile::tempdir().unwrap();
    let mp = format!("{ROOT}/examples/fences/mp.rmm");
    let cases = [
        ("kind sync 2\n", "tso", ":1:6", "not placed under tso"),
        ("kind lwsync x\n", "power", ":1:13", "bad cost"),
        ("t9 q1 3\n", "power", ":1:1", "unknown thread"),
        ("t0 q9 3\n", "power", ":1:4", "unknown state"),
        ("t0 q1 lwsync 2 3\n", "power", ":1:1", "malformed"),
    ];
    for (text, model, at, msg) in cases {
        let c = write(&d, "bad.txt", text);
        let o = bin()
            .args([
                "fences", "--model", model, "--bound", "5", "--cost", &c, &mp,
            ])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{text}: {err}");
        assert!(
            err.contains(&format!("bad.txt{at}")) && err.contains(msg),
            "{text}: {err}"
        );
    }
    // A model without fence kinds.
    let o = bin()
        .args(["fences", "--model", "pgas", "--bound", "5", &mp])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    // Limits: unknown, exit 3.
    let o = bin()
        .args([
            "fences",
            "--model",
            "power",
            "--bound",
            "10",
            "--timeout",
            "0.000001",
        ])
        .arg(format!("{ROOT}/examples/fences/iriw.rmm"))
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
}

/// For every Trencher corpus program of the top folder: the bounded TSO
/// synthesis at bound 20 costs what the explicit engine's optimal
/// (unbounded) fence set costs, and its output is robust by the explicit
/// engine. ~3 min on 2 cores (release).
#[test]
fn tso_cost_equals_explicit_on_trencher_corpus() {
    corpus_compare("", 24);
}

/// The same on the Memorax translations (`memorax/`); ~6 min, so not run
/// by default: `cargo test --release --test engines -- fences_synth:: --ignored`.
#[test]
#[ignore]
fn tso_cost_equals_explicit_on_memorax_translations() {
    corpus_compare("memorax", 15);
}

fn corpus_compare(sub: &str, expect_files: usize) {
    use rayon::prelude::*;
    let dir = format!("{ROOT}/../shared/corpus/trencher/{sub}");
    if common::corpus(&format!("trencher/{sub}")).is_none() {
        return;
    }
    let rd = std::fs::read_dir(&dir).unwrap();
    let mut files: Vec<String> = rd
        .filter_map(|e| e.ok())
        .map(|e| e.path().to_string_lossy().to_string())
        .filter(|f| f.ends_with(".txt"))
        .collect();
    files.sort();
    assert_eq!(files.len(), expect_files, "{files:?}");
    let model = cat::builtin("tso").unwrap();
    let m = fence_synth::menu("tso").unwrap();
    let lines: Vec<Result<String, String>> = files
        .par_iter()
        .map(|f| {
            let p = frontend::load_program(f, None, Width::DEFAULT).unwrap();
            let opts = fence_synth::Options {
                solver: SolverKind::Varisat,
                limits: limits(20),
                max_iterations: 500,
            };
            let r = fence_synth::synthesize(&p, &model, &m, &Costs::defaults(&m), &opts).unwrap();
            if !matches!(r.outcome, Outcome::Robust) {
                return Err(format!("{f}: {:?}", r.outcome));
            }
            let eo = explicit::Options {
                limits: explicit::Limits {
                    timeout: Some(std::time::Duration::from_secs(60)),
                    max_states: Some(5_000_000),
                    max_memory_bytes: Some(1 << 30),
                },
                ..explicit::Options::default()
            };
            let costs = explicit::FenceCosts {
                per_location: Default::default(),
                default: 1,
            };
            let e = explicit::fence_insertion(&p, &eo, &costs).unwrap();
            if let explicit::FenceVerdict::Unknown(why) = &e.verdict {
                return Ok(format!(
                    "{f}: bounded cost {} (explicit unknown: {why})",
                    r.cost
                ));
            }
            if e.cost != r.cost {
                return Err(format!("{f}: bounded cost {} explicit {}", r.cost, e.cost));
            }
            let (fenced, _) = fence_synth::apply(&p, &m, &r.fences);
            match explicit::check_robustness(&fenced, &eo).unwrap().verdict {
                explicit::Robustness::Robust => {}
                other => return Err(format!("{f}: fenced program not robust: {other:?}")),
            }
            Ok(format!("{f}: cost {} = explicit, {:.1}s", r.cost, r.time))
        })
        .collect();
    let mut bad = Vec::new();
    for l in lines {
        match l {
            Ok(s) => eprintln!("{s}"),
            Err(s) => bad.push(s),
        }
    }
    assert!(bad.is_empty(), "{bad:#?}");
}
