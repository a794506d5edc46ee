//! TSO witnesses (thesis 003 §6.1–6.2) in `robust` under tso:
//!
//! * the bounded hb-cycle query restricted to one attacker thread
//!   (`bounded::varisat::tso_witness`) against the unrestricted query
//!   (`Switches::tso_witness`, `BMC_TSO_WITNESS=1`, against off): same verdicts on every backend and query form,
//!   on programs whose violations need a helper's write → read pair on the
//!   cycle (SB), an attacker that is not the first thread (SB with the
//!   first thread fenced), three threads, loops; every witness replays
//!   under tso without the restriction;
//! * `queries::robust_along` on the explicit engine's TSO witness: a
//!   violation whose witness replays; a path longer than the bound is no
//!   answer;
//! * the CLI's explicit-first step (`--solver auto`): same verdicts as
//!   `BMC_EXPLICIT_FIRST=0`, including a program that is not robust
//!   but robust within a small bound (its TSO witness needs more steps).

mod common;

use bmc_rmm::cat::builtin;
use bmc_rmm::diag::SourceFile;
use bmc_rmm::engines::bounded::queries::{self, robust_along};
use bmc_rmm::engines::bounded::{backend, CheckKind, Deadline, Limits, Query, SolverKind, Verdict};
use bmc_rmm::engines::explicit::{check_robustness, Options, Robustness};
use bmc_rmm::engines::Switches;
use bmc_rmm::frontend::native;
use bmc_rmm::program::{Command, Program, Width};

/// SB: the cycle Wx →po Ry →fr Wy →po Rx →fr Wx needs t1's write → read
/// pair on it while only t0 delays (thesis Example 6.6).
const SB: &str = "shared x, y;
thread t0 { x = 1; r = y; }
thread t1 { y = 1; s = x; }";

/// SB with t0 fenced: only t1 can be the attacker.
const SB_T0_FENCED: &str = "shared x, y;
thread t0 { x = 1; mfence; r = y; }
thread t1 { y = 1; s = x; }";

/// Both fenced: robust.
const SB_FENCED: &str = "shared x, y;
thread t0 { x = 1; mfence; r = y; }
thread t1 { y = 1; mfence; s = x; }";

/// MP: robust under tso.
const MP: &str = "shared d, f;
thread t0 { d = 1; f = 1; }
thread t1 { a = f; b = d; }";

/// IRIW: readers only read, robust under tso.
const IRIW: &str = "shared x, y;
thread w0 { x = 1; }
thread w1 { y = 1; }
thread r0 { a = x; b = y; }
thread r1 { c = y; d = x; }";

/// Three threads in a ring (the attacker is the last one; t0 and t1
/// fenced): W z; R x in t2 closes the cycle through both helpers.
const RING3: &str = "shared x, y, z;
thread t0 { x = 1; mfence; a = y; }
thread t1 { y = 1; mfence; b = z; }
thread t2 { z = 1; c = x; }";

/// A loop around SB's pair with a flag: the violation needs iterations.
const LOOP_SB: &str = "shared x, y, g;
thread t0 { h = g; while (h == 0) { x = 1; r = y; x = 0; h = g; } }
thread t1 { y = 1; s = x; g = 1; }";

/// SB after a long local prefix of t0: not robust, but robust within a
/// bound that does not reach t0's store and load.
const LATE_SB: &str = "shared x, y;
thread t0 { a = 1; a = 2; a = 3; a = 4; a = 5; a = 6; x = 1; r = y; }
thread t1 { y = 1; s = x; }";

const ALL: [(&str, &str); 8] = [
    ("sb", SB),
    ("sb_t0_fenced", SB_T0_FENCED),
    ("sb_fenced", SB_FENCED),
    ("mp", MP),
    ("iriw", IRIW),
    ("ring3", RING3),
    ("loop_sb", LOOP_SB),
    ("late_sb", LATE_SB),
];

fn parse(name: &str, text: &str) -> Program {
    native::parse(
        &SourceFile::new(format!("{name}.rmm"), text),
        Width::DEFAULT,
    )
    .unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn limits(bound: u32) -> Limits {
    Limits {
        bound,
        width: 16,
        deadline: Deadline(None),
        switches: Default::default(),
    }
}

/// The robust verdict of every backend and hb-query form, with the
/// TSO-witness restriction on (`tso_witness`) or off, and the witnesses
/// (replayed under tso on varisat with the same switches; the replay
/// pins the whole execution, so the restriction's free `sc` literals
/// cannot reject it either way).
fn verdicts(p: &Program, bound: u32, tso_witness: bool) -> Vec<Verdict> {
    let lim = Limits {
        switches: Switches {
            tso_witness,
            ..Switches::default()
        },
        ..limits(bound)
    };
    let model = builtin("tso").unwrap();
    let mut out = Vec::new();
    for (solver, shortest) in [
        (SolverKind::Varisat, Some(false)),
        (SolverKind::Varisat, Some(true)),
        (SolverKind::Cdclt, Some(false)),
        (SolverKind::Cdclt, Some(true)),
    ] {
        let b = bmc_rmm::engines::bounded::backend_with(solver, false, shortest, None).unwrap();
        let q = Query {
            program: p,
            model: &model,
            limits: lim,
        };
        let r = queries::check_on(&*b, &q, &[CheckKind::Robust]).unwrap();
        let r = &r[0];
        if let Some(x) = &r.witness {
            let replay = queries::replay(SolverKind::Varisat, p, &model, lim, x).unwrap();
            assert_eq!(replay, Ok(()), "{solver:?} witness does not replay");
            assert!(r.cycle.is_some());
        }
        out.push(r.verdict);
    }
    out
}

#[test]
fn one_attacker_keeps_every_verdict() {
    // Violations the restriction must keep: SB needs a helper's W → R pair
    // on the cycle; SB with t0 fenced needs t1 as the attacker; the ring
    // the last of three threads.
    for (name, text) in ALL {
        let p = parse(name, text);
        for bound in [4, 8, 14] {
            let on = verdicts(&p, bound, true);
            let off = verdicts(&p, bound, false);
            assert_eq!(
                on, off,
                "{name} at bound {bound}: restricted vs unrestricted"
            );
            assert!(
                on.iter().all(|v| *v == on[0]),
                "{name} at bound {bound}: backends disagree: {on:?}"
            );
            // The textbook answers (thesis Example 6.6 and its fenced forms).
            let expect_violation = match name {
                "sb" | "sb_t0_fenced" | "ring3" => Some(true),
                "sb_fenced" | "mp" | "iriw" => Some(false),
                _ => None,
            };
            if let Some(v) = expect_violation {
                assert_eq!(on[0] == Verdict::Violation, v, "{name} at bound {bound}");
            }
        }
    }
    // The restriction is the only change between the two runs above: the
    // late SB is robust within 4 steps and not within 14 either way.
    let p = parse("late_sb", LATE_SB);
    assert_eq!(verdicts(&p, 4, false)[0], Verdict::NoViolation);
    assert_eq!(verdicts(&p, 14, false)[0], Verdict::Violation);
}

#[test]
fn along_the_explicit_witness() {
    let model = builtin("tso").unwrap();
    for (name, text) in [
        ("sb", SB),
        ("ring3", RING3),
        ("loop_sb", LOOP_SB),
        ("late_sb", LATE_SB),
    ] {
        let p = parse(name, text);
        let rep = check_robustness(&p, &Options::default()).unwrap();
        let Robustness::NotRobust(w) = rep.verdict else {
            panic!("{name}: the explicit engine finds no TSO witness");
        };
        let mut paths = vec![Vec::new(); p.threads.len()];
        for e in &w.events {
            if let Some(i) = e.instr {
                paths[e.thread.0 as usize].push(i);
            }
        }
        let longest = paths.iter().map(Vec::len).max().unwrap();
        let b = backend(SolverKind::Varisat, false).unwrap();
        for bound in [longest as u32, longest as u32 + 3] {
            let q = Query {
                program: &p,
                model: &model,
                limits: limits(bound),
            };
            let r = robust_along(&*b, &q, &paths)
                .unwrap()
                .unwrap_or_else(|| panic!("{name}: no bounded cycle along the TSO witness"));
            assert_eq!(r.verdict, Verdict::Violation);
            let x = r.witness.as_ref().unwrap();
            for (t, path) in paths.iter().enumerate() {
                assert_eq!(&x.path[t], path, "{name}: thread {t} left the path");
            }
            let replay = queries::replay(SolverKind::Cdclt, &p, &model, limits(bound), x).unwrap();
            assert_eq!(
                replay,
                Ok(()),
                "{name}: witness along the path does not replay"
            );
        }
        if longest > 1 {
            // A bound that cuts the path: no answer (not a wrong one).
            let q = Query {
                program: &p,
                model: &model,
                limits: limits(longest as u32 - 1),
            };
            assert!(robust_along(&*b, &q, &paths).unwrap().is_none(), "{name}");
        }
    }
}

fn cli(file: &std::path::Path, bound: u32, explicit_first: bool) -> (i32, String) {
    let out = common::bin()
        .args(["robust", "--model", "tso", "--bound", &bound.to_string()])
        .arg(file)
        .env("BMC_EXPLICIT_FIRST", if explicit_first { "1" } else { "0" })
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn explicit_first_keeps_every_verdict() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    for (name, text) in ALL {
        let f = dir.join(format!("{name}.rmm"));
        std::fs::write(&f, text).unwrap();
        for bound in [4, 14] {
            let (code, text) = cli(&f, bound, true);
            let (code0, text0) = cli(&f, bound, false);
            assert_eq!(code, code0, "{name} at bound {bound}:\n{text}\n{text0}");
            if text.contains("explicit engine") {
                assert_eq!(code, 0, "{name}: the explicit proof is a robust answer");
            }
            if code == 1 {
                assert!(text.contains("cycle:"), "{name}: {text}");
            }
        }
    }
    // Not robust, robust within 4 steps: the explicit witness (8 steps of
    // t0) does not fit, and the bounded answer stands.
    let f = dir.join("late_sb.rmm");
    assert_eq!(cli(&f, 4, true).0, 0);
    assert_eq!(cli(&f, 14, true).0, 1);
    // Fenced SB: the explicit engine proves it for every bound.
    let (code, text) = cli(&dir.join("sb_fenced.rmm"), 14, true);
    assert_eq!(code, 0);
    assert!(text.contains("explicit engine"), "{text}");
}

/// The Trencher corpus (skipped when `../shared/corpus` is absent): every
/// TSO witness of the explicit engine that fits bound 20 gives a bounded
/// witness along its paths, and that witness replays under tso on cdclt
/// (and, when built with z3, on z3, whose encoding is independent).
#[test]
fn corpus_witnesses_along_paths_replay() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/trencher");
    if common::corpus("trencher").is_none() {
        return;
    }
    let mut files: Vec<_> = ["", "memorax"]
        .iter()
        .flat_map(|sub| std::fs::read_dir(dir.join(sub)).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    let model = builtin("tso").unwrap();
    let b = backend(SolverKind::Varisat, false).unwrap();
    let mut along = 0;
    for f in &files {
        let p = bmc_rmm::frontend::load_program(f.to_str().unwrap(), None, Width::DEFAULT).unwrap();
        let Ok(rep) = check_robustness(&p, &Options::default()) else {
            continue;
        };
        let Robustness::NotRobust(w) = rep.verdict else {
            continue;
        };
        let mut paths = vec![Vec::new(); p.threads.len()];
        for e in &w.events {
            if let Some(i) = e.instr {
                paths[e.thread.0 as usize].push(i);
            }
        }
        if paths.iter().any(|x| x.len() > 20) {
            continue;
        }
        let q = Query {
            program: &p,
            model: &model,
            limits: limits(20),
        };
        let r = robust_along(&*b, &q, &paths)
            .unwrap()
            .unwrap_or_else(|| panic!("{}: no bounded cycle along the TSO witness", f.display()));
        let x = r.witness.as_ref().unwrap();
        // z3 replays the witnesses of programs without `lock`: its
        // replay through lock sections (the model's axioms contracted over
        // them) takes minutes at bound 20 (`memorax/bakery.bound2.fenced`:
        // 143 s; docs/performance.md); cdclt replays every witness.
        let locks = p
            .threads
            .iter()
            .any(|t| (t.instrs.iter()).any(|i| matches!(i.cmd, Command::Lock | Command::Unlock)));
        let mut solvers = vec![SolverKind::Cdclt];
        if SolverKind::Z3.available().is_ok() && !locks {
            solvers.push(SolverKind::Z3);
        }
        for s in solvers {
            let replay = queries::replay(s, &p, &model, limits(20), x).unwrap();
            assert_eq!(replay, Ok(()), "{}: {s:?} rejects the witness", f.display());
        }
        along += 1;
    }
    assert!(along > 0, "no TSO witness in the corpus fits bound 20");
}

/// The restriction is a value the caller passes: on with
/// `Switches::tso_witness` (whatever the environment says), off by
/// default, and only for programs it applies to.
#[test]
fn the_switch_turns_the_restriction_on() {
    use bmc_rmm::engines::bounded::varisat::Encoder;
    let model = builtin("tso").unwrap();
    let p = parse("sb", SB);
    let on = Switches {
        tso_witness: true,
        ..Switches::default()
    };
    let built = |switches: Switches, m: &bmc_rmm::cat::Model| {
        Encoder::limited(&p, m, 6, 16, false, None, switches)
            .tso_witness
            .is_some()
    };
    assert!(built(on, &model));
    assert!(!built(Switches::default(), &model));
    assert!(!built(on, &builtin("pso").unwrap()));
}
