//! The SV-COMP task runner (`bmc_rmm::svcomp`, `bmc-rmm svcomp`):
//!
//! * on small tasks of `../shared/corpus/svcomp` (skipped without it),
//!   under the engines `auto`, `bounded` (cdclt) and `smc`: every task
//!   answered as its label says (but the one whose label is disputed,
//!   docs/svcomp.md), and every FALSE's witness (format 2.0 YAML)
//!   replays on the operational SC semantics of the program at the
//!   unwinding the witness names; the whole corpus with
//!   `BMC_SVCOMP_FULL=SECONDS`;
//! * the C front-end's lowering stops at a deadline and reports the loops
//!   the unwinding cut;
//! * a small program whose bug needs a nondeterministic value and one
//!   interleaving: the witness replays; changing the value or the order of
//!   the threads makes the replay reject it;
//! * deepening: a loop bounded by a constant number larger than the first
//!   unwinding gives TRUE (a proof); a loop with a nondeterministic bound
//!   gives UNKNOWN (bounded), and its buggy variant FALSE;
//! * the command: the answer word first, the witness file, the batch
//!   table with SV-COMP's points.

use crate::{c_common, common};

use bmc_rmm::diag::SourceFile;
use bmc_rmm::svcomp::score::Answer;
use bmc_rmm::svcomp::task::Task;
use bmc_rmm::svcomp::witness::{self, Kind};
use bmc_rmm::svcomp::{verify, VerifyOptions};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn corpus() -> Option<PathBuf> {
    common::corpus("svcomp")
}

/// Replays `text` (a witness of `task`) on the task's program parsed
/// again at the witness's unwinding; the goal reached.
fn replay(task: &Task, text: &str) -> Result<usize, String> {
    let (wps, unwind) = witness::read(text)?;
    assert!(wps.last().is_some_and(|w| w.kind == Kind::Target), "{text}");
    let p = program_of(task, unwind.expect("the witness names its unwinding"));
    witness::replay(&p, task.data_model.width(), &wps)
}

/// The program a witness of `task` at `unwind` replays on.
fn program_of(task: &Task, unwind: u32) -> bmc_rmm::program::Program {
    let src = SourceFile::read(&task.input_files[0].to_string_lossy()).unwrap();
    let copts = bmc_rmm::frontend::c::Options {
        unwind,
        ..Default::default()
    };
    bmc_rmm::svcomp::deepen::program_at(&src, task.data_model.width(), &copts).unwrap()
}

/// Runs `verify` on the corpus tasks `names` (all of them when empty)
/// with `opts`; checks that no answer contradicts the task's label except
/// against a disputed label, and that every FALSE's witness replays.
/// Returns (TRUE, FALSE) counts and the answers by task file.
fn check_corpus(names: &[&str], opts: &VerifyOptions) -> (usize, usize, Vec<(String, Answer)>) {
    let dir = corpus().expect("corpus");
    let tsv = std::fs::read_to_string(dir.join("TASKS.tsv")).unwrap();
    let (mut bad, mut falses, mut trues, mut answers) = (Vec::new(), 0, 0, Vec::new());
    for line in tsv.lines().skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        if !names.is_empty() && !names.contains(&f[1]) {
            continue;
        }
        let task = Task::read(&dir.join(f[0]).join(f[1])).unwrap();
        assert_eq!(task.expected(), Some(f[3] == "safe"), "{line}");
        let v = verify(&task, opts).unwrap();
        let wrong = bmc_rmm::svcomp::score::wrong(v.answer, task.expected());
        if wrong && task.disputed_label().is_none() {
            bad.push(format!(
                "{}: wrong {} ({})",
                f[1],
                v.answer.word(),
                v.reason
            ));
        }
        match v.answer {
            Answer::False => {
                falses += 1;
                let w = v.witness.as_deref().expect("FALSE writes a witness");
                if let Err(e) = replay(&task, w) {
                    bad.push(format!("{}: witness rejected: {e}", f[1]));
                }
            }
            Answer::True => trues += 1,
            Answer::Unknown => {}
        }
        answers.push((f[1].to_string(), v.answer));
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    (trues, falses, answers)
}

/// Small corpus tasks, each answered in well under a second: buggy ones
/// (FALSE, the witness replays), safe ones with bounded loops (TRUE), and
/// the task whose label is disputed (FALSE, shown as a disagreement),
/// and `27_Boop_simple_vf` (FALSE; two nondeterministic values in a loop,
/// four threads), whose witness once exhausted the replay's search.
const SMALL: &[&str] = &[
    "read_write_lock-2.yml",
    "fkp2013_variant-2.yml",
    "lazy01.yml",
    "27_Boop_simple_vf.yml",
    "peterson.yml",
    "16_peterson-b.yml",
    "19_time_var_mutex.yml",
    "23_lu-fig2.fixed.yml",
    "37_stack_lock_p0_vs_concur.yml",
];

#[test]
fn small_corpus_tasks_right_under_every_engine_and_witnesses_replay() {
    if !c_common::cpp_available() || corpus().is_none() {
        eprintln!("skipped: no C preprocessor or no ../shared/corpus/svcomp");
        return;
    }
    use bmc_rmm::engines::bounded::SolverKind;
    use bmc_rmm::svcomp::deepen::Engine;
    // The SMC engine on the tasks without nondeterministic ints (it runs
    // every value of one, docs/c.md, "Atomic sections").
    let smc_small: &[&str] = &[
        "read_write_lock-2.yml",
        "lazy01.yml",
        "peterson.yml",
        "19_time_var_mutex.yml",
        "37_stack_lock_p0_vs_concur.yml",
    ];
    for (engine, solver, tasks, want) in [
        (Engine::Auto, SolverKind::Varisat, SMALL, (4, 5)),
        (Engine::Bounded, SolverKind::Cdclt, SMALL, (4, 5)),
        (Engine::Smc, SolverKind::Varisat, smc_small, (2, 3)),
    ] {
        let opts = VerifyOptions {
            timeout: Duration::from_secs(20),
            engine,
            solver,
            ..VerifyOptions::default()
        };
        let (trues, falses, answers) = check_corpus(tasks, &opts);
        let label = format!("{} {}: {answers:?}", engine.name(), solver.name());
        assert_eq!(answers.len(), tasks.len(), "{label}");
        // Every task here is answered, as its label says (but the
        // disputed one, answered FALSE).
        assert_eq!((trues, falses), want, "{label}");
        let disputed = answers.iter().find(|(t, _)| t.starts_with("37_")).unwrap();
        assert_eq!(disputed.1, Answer::False, "{label}");
    }
}

/// The whole corpus (slow: `BMC_SVCOMP_FULL=SECONDS` per task; skipped
/// without it): no wrong answer but against a disputed label, every
/// witness replays.
#[test]
fn full_corpus_answers_are_never_wrong_and_witnesses_replay() {
    let Some(secs) = std::env::var("BMC_SVCOMP_FULL")
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
    else {
        eprintln!("skipped: set BMC_SVCOMP_FULL=SECONDS to run the whole corpus");
        return;
    };
    if !c_common::cpp_available() || corpus().is_none() {
        eprintln!("skipped: no C preprocessor or no ../shared/corpus/svcomp");
        return;
    }
    let opts = VerifyOptions {
        timeout: Duration::from_secs_f64(secs),
        ..VerifyOptions::default()
    };
    let (trues, falses, _) = check_corpus(&[], &opts);
    eprintln!("corpus at {secs} s per task: {trues} TRUE, {falses} FALSE");
    assert!(falses > 0 && trues > 0, "the corpus gives both answers");
}

#[test]
fn the_lowering_stops_at_the_deadline() {
    if !c_common::cpp_available() {
        eprintln!("skipped: no C preprocessor on PATH");
        return;
    }
    let prog =
        format!("{HEADER}int main() {{\n  int i = 0;\n  while (i < 100) i++;\n  return 0;\n}}\n");
    let (d, _) = task_of(&prog, true);
    let src = SourceFile::read(&d.path().join("t.i").to_string_lossy()).unwrap();
    let w = bmc_rmm::program::Width(32);
    let o = bmc_rmm::frontend::c::Options::default();
    let past = std::time::Instant::now();
    match bmc_rmm::frontend::c::lower_until(&src, w, &o, Some(past), false) {
        Err(bmc_rmm::diag::Error::Unknown(why)) => assert!(why.contains("lowering"), "{why}"),
        other => panic!("expected a time limit, got {other:?}"),
    }
    // Without a deadline: lowered; the constant loop is unrolled, no cut.
    let l = bmc_rmm::frontend::c::lower_until(&src, w, &o, None, false).unwrap();
    assert!(l.cut_loops.is_empty(), "{:?}", l.cut_loops);
    let o2 = bmc_rmm::frontend::c::Options {
        unwind: 2,
        ..Default::default()
    };
    let prog2 = prog.replace(
        "while (i < 100) i++;",
        "while (__VERIFIER_nondet_int()) i++;",
    );
    std::fs::write(d.path().join("t.i"), &prog2).unwrap();
    let src = SourceFile::read(&d.path().join("t.i").to_string_lossy()).unwrap();
    let l = bmc_rmm::frontend::c::lower_until(&src, w, &o2, None, true).unwrap();
    assert_eq!(l.cut_loops, vec![8], "the loop's line");
    // With unwinding goals: one goal for main's cut, after its assertion goals.
    assert_eq!(l.unwind_goals.len(), 1);
    assert!(!l.unchecked_cut);
    let g = &l.program.goals[l.unwind_goals[0]];
    assert_eq!(g.name.as_deref(), Some("unwinding assertion in main"));
}

/// Writes `program` as `t.i` with its task `t.yml` into a temporary
/// directory; returns (directory guard, task).
/// A program whose lowering alone takes far longer than the limit
/// (10^9 iterations of constant-bound loops, each unrolled): `svcomp`
/// answers UNKNOWN naming the limit it reached first (the time, or the
/// thread's instruction cap of the lowering), `reach` answers
/// "unknown" with exit 3, both within a small multiple of `--timeout`
/// (a generous bound: the machine may be loaded).
#[test]
fn an_expensive_lowering_ends_in_unknown_at_the_time_limit() {
    if !c_common::cpp_available() {
        eprintln!("skipped: no C preprocessor on PATH");
        return;
    }
    let prog = format!(
        "{HEADER}int main() {{\n  int x = 0;\n  for (int i = 0; i < 1000; i++)\n    \
         for (int j = 0; j < 1000; j++)\n      for (int k = 0; k < 1000; k++)\n        \
         x = x + 1;\n  if (x == 5) reach_error();\n  return 0;\n}}\n"
    );
    let (d, _) = task_of(&prog, true);
    let limit = Duration::from_secs(2);
    let t0 = std::time::Instant::now();
    let (code, out, err) = bmc(&["-q", "svcomp", "--timeout", "2", "t.yml"], d.path());
    assert!(t0.elapsed() < 10 * limit, "took {:?}", t0.elapsed());
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.starts_with("UNKNOWN"), "{out}{err}");
    assert!(
        out.contains("limit reached") || out.contains("instructions after unwinding"),
        "{out}"
    );
    let t0 = std::time::Instant::now();
    let (code, out, err) = bmc(
        &[
            "reach",
            "--format",
            "c",
            "--width",
            "32",
            "--timeout",
            "2",
            "t.i",
        ],
        d.path(),
    );
    assert!(t0.elapsed() < 10 * limit, "took {:?}", t0.elapsed());
    assert_eq!(code, 3, "{out}{err}");
    assert!(
        format!("{out}{err}").to_lowercase().contains("unknown"),
        "{out}{err}"
    );
}

fn task_of(program: &str, expected: bool) -> (tempfile::TempDir, Task) {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("t.i"), program).unwrap();
    let yml = format!(
        "format_version: '2.0'\ninput_files: 't.i'\nproperties:\n  - property_file: ../properties/unreach-call.prp\n    expected_verdict: {expected}\noptions:\n  language: C\n  data_model: ILP32\n"
    );
    std::fs::write(d.path().join("t.yml"), yml).unwrap();
    let t = Task::read(&d.path().join("t.yml")).unwrap();
    (d, t)
}

const HEADER: &str = "typedef unsigned long pthread_t;\n\
    extern int pthread_create(pthread_t *, void *, void *(*)(void *), void *);\n\
    extern int pthread_join(pthread_t, void **);\n\
    extern void reach_error(void);\n\
    extern int __VERIFIER_nondet_int(void);\n";

fn quick() -> VerifyOptions {
    VerifyOptions {
        timeout: Duration::from_secs(60),
        ..VerifyOptions::default()
    }
}

#[test]
fn witness_names_values_and_interleaving_and_mutants_are_rejected() {
    if !c_common::cpp_available() {
        eprintln!("skipped: no C preprocessor on PATH");
        return;
    }
    let prog = format!(
        "{HEADER}int x;\nvoid *t(void *a) {{\n  x = x + 1;\n  return 0;\n}}\n\
         int main() {{\n  pthread_t h;\n  int v = __VERIFIER_nondet_int();\n  \
         pthread_create(&h, 0, t, 0);\n  int r = x;\n  if (v == 5 && r == 1) reach_error();\n  \
         return 0;\n}}\n"
    );
    let (_d, task) = task_of(&prog, false);
    let v = verify(&task, &quick()).unwrap();
    assert_eq!(v.answer, Answer::False, "{}", v.reason);
    let text = v.witness.unwrap();
    assert!(text.contains("entry_type: violation_sequence"), "{text}");
    assert!(
        text.contains("format_version: \"2.0\"")
            || text.contains("format_version: '2.0'")
            || text.contains("format_version: 2.0"),
        "{text}"
    );
    assert!(text.contains("\\result == 5"), "{text}");
    assert_eq!(replay(&task, &text), Ok(0), "{text}");
    let (wps, _) = witness::read(&text).unwrap();
    assert!(
        wps.iter().any(|w| w.thread == 1) && wps.iter().any(|w| w.thread == 0),
        "both threads named: {wps:?}"
    );
    // Another value: rejected.
    let other = text.replace("\\result == 5", "\\result == 4");
    assert!(replay(&task, &other).is_err(), "{other}");
    // Without the worker's run (main alone cannot read x == 1): rejected.
    let (wps, unwind) = witness::read(&text).unwrap();
    let only_main: Vec<_> = wps
        .iter()
        .filter(|w| w.thread == 0 || w.kind == Kind::Target)
        .cloned()
        .collect();
    let p = program_of(&task, unwind.unwrap());
    assert!(witness::replay(&p, task.data_model.width(), &only_main).is_err());
}

#[test]
fn deepening_proves_bounded_loops_and_stays_bounded_otherwise() {
    if !c_common::cpp_available() {
        eprintln!("skipped: no C preprocessor on PATH");
        return;
    }
    // A loop whose bound (n ≤ 5) only the deepening covers: TRUE.
    let bounded = format!(
        "{HEADER}int main() {{\n  int n = __VERIFIER_nondet_int();\n  if (n < 0 || n > 5) return 0;\n  \
         int i = 0;\n  while (i < n) i++;\n  if (i > 5) reach_error();\n  return 0;\n}}\n"
    );
    let (_d, task) = task_of(&bounded, true);
    let v = verify(&task, &quick()).unwrap();
    assert_eq!(v.answer, Answer::True, "{}", v.reason);
    assert!(v.reason.contains("proof"), "{}", v.reason);
    // The same loop at a fixed unwinding of 2: bounded, not a proof.
    let fixed = VerifyOptions {
        unwind: Some(2),
        ..quick()
    };
    let v = verify(&task, &fixed).unwrap();
    assert_eq!(v.answer, Answer::Unknown, "{}", v.reason);
    assert!(v.reason.contains("bounded"), "{}", v.reason);
    // The bug needs 5 iterations: FALSE once the unwinding reaches 8.
    let (_d2, task) = task_of(&bounded.replace("i > 5", "i == 5"), false);
    let v = verify(&task, &quick()).unwrap();
    assert_eq!(v.answer, Answer::False, "{}", v.reason);
    assert_eq!(replay(&task, v.witness.as_deref().unwrap()), Ok(0));
    // An unbounded loop: UNKNOWN (bounded) at the largest unwinding.
    let unbounded = format!(
        "{HEADER}int main() {{\n  int i = 0;\n  while (__VERIFIER_nondet_int()) i++;\n  \
         if (i < 0) reach_error();\n  return 0;\n}}\n"
    );
    let (_d3, task) = task_of(&unbounded, true);
    let small = VerifyOptions {
        max_unwind: 4,
        ..quick()
    };
    let v = verify(&task, &small).unwrap();
    assert_eq!(v.answer, Answer::Unknown, "{}", v.reason);
    assert!(
        v.reason.starts_with("bounded") && v.reason.contains("--unwind 4"),
        "{}",
        v.reason
    );
}

fn bmc(args: &[&str], cwd: &Path) -> (i32, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_bmc-rmm"))
        .args(args)
        .current_dir(cwd)
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn command_prints_answer_witness_and_score_table() {
    if !c_common::cpp_available() {
        eprintln!("skipped: no C preprocessor on PATH");
        return;
    }
    let bug = format!(
        "{HEADER}int x;\nvoid *t(void *a) {{ x = 1; return 0; }}\n\
         int main() {{ pthread_t h; pthread_create(&h, 0, t, 0); if (x == 1) reach_error(); return 0; }}\n"
    );
    let (d, _) = task_of(&bug, false);
    let (code, out, err) = bmc(&["svcomp", "--timeout", "60", "t.yml"], d.path());
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(out.lines().next(), Some("FALSE"), "{out}");
    let w = d.path().join("t.witness.yml");
    assert!(out.contains("witness: ./t.witness.yml"), "{out}");
    let task = Task::read(&d.path().join("t.yml")).unwrap();
    assert_eq!(replay(&task, &std::fs::read_to_string(&w).unwrap()), Ok(0));
    // The same task twice, one expecting the wrong verdict: a table.
    let safe = bug.replace("x == 1", "x == 2");
    std::fs::write(d.path().join("s.i"), safe).unwrap();
    let yml = std::fs::read_to_string(d.path().join("t.yml"))
        .unwrap()
        .replace("t.i", "s.i")
        .replace("false", "true");
    std::fs::write(d.path().join("s.yml"), yml).unwrap();
    let (code, out, err) = bmc(
        &[
            "svcomp",
            "--timeout",
            "60",
            "--witness-dir",
            "w",
            "t.yml",
            "s.yml",
        ],
        d.path(),
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.lines()
            .any(|l| l.starts_with("t.yml") && l.contains("FALSE") && l.contains("+1")),
        "{out}"
    );
    assert!(
        out.lines()
            .any(|l| l.starts_with("s.yml") && l.contains("TRUE") && l.contains("+2")),
        "{out}"
    );
    assert!(
        out.contains("total: score 3 (2 tasks: TRUE 1, FALSE 1, UNKNOWN 0; wrong 0)"),
        "{out}"
    );
    assert!(d.path().join("w/t.witness.yml").exists());
    // The task whose label is disputed: a disagreement, explained.
    if let Some(dir) = corpus() {
        let t = dir.join("pthread-ext/37_stack_lock_p0_vs_concur.yml");
        let t = t.to_string_lossy();
        let (code, out, err) = bmc(
            &["svcomp", "--timeout", "60", "--witness-dir", "w", &t, &t],
            d.path(),
        );
        assert_eq!(code, 0, "{out}{err}");
        assert!(
            out.lines().any(|l| l.contains("FALSE")
                && l.contains("-16")
                && l.contains("label `true` disputed")),
            "{out}"
        );
        assert!(
            out.contains("wrong 2, 2 of them against a disputed label"),
            "{out}"
        );
    }
    // The explicit-state search alone, by name; an unknown engine or
    // solver is a usage error (exit 2).
    let (code, out, err) = bmc(
        &["svcomp", "--timeout", "60", "--engine", "explicit", "s.yml"],
        d.path(),
    );
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(out.lines().next(), Some("TRUE"), "{out}");
    for bad in [["--engine", "nope"], ["--solver", "minisat"]] {
        let (code, _, err) = bmc(&["svcomp", bad[0], bad[1], "s.yml"], d.path());
        assert_eq!(code, 2, "{err}");
        assert!(err.contains(bad[1]), "{err}");
    }
    // A malformed task: a located error, exit 2.
    std::fs::write(d.path().join("bad.yml"), "input_files: [1]\n").unwrap();
    let (code, _, err) = bmc(&["svcomp", "bad.yml"], d.path());
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("bad.yml"), "{err}");
}

/// A spin lock taken by compare-and-swap in a `while (1)` retry loop, two
/// threads, a critical section asserting mutual exclusion: every
/// unwinding cuts the retry loop, so only the explicit-state search of
/// the program with its loops kept as cycles proves it.
fn spin_lock(bug: bool) -> String {
    let release = if bug { "" } else { "lock = 0;" };
    format!(
        "{HEADER}int lock = 0; int in = 0;\n\
         void __VERIFIER_atomic_cas(int *r) {{ if (lock == 0) {{ lock = 1; *r = 1; }} else *r = 0; }}\n\
         void *t(void *a) {{\n  while (1) {{\n    int got;\n    __VERIFIER_atomic_cas(&got);\n    \
         if (got) break;\n  }}\n  in = in + 1;\n  if (in != 1) reach_error();\n  in = in - 1;\n  \
         {release}\n  return 0;\n}}\n\
         int main() {{ pthread_t a, b; pthread_create(&a, 0, t, 0); pthread_create(&b, 0, t, 0); \
         return 0; }}\n"
    )
}

#[test]
fn explicit_search_proves_retry_loops_and_never_proves_what_it_cannot() {
    if !c_common::cpp_available() {
        eprintln!("skipped: no C preprocessor on PATH");
        return;
    }
    use bmc_rmm::svcomp::deepen::Engine;
    use bmc_rmm::svcomp::explicit::{search, Searched};
    let explicit = VerifyOptions {
        engine: Engine::Explicit,
        ..quick()
    };
    // Safe, retry loop: TRUE under `auto` and `explicit`, by the search.
    let (_d, task) = task_of(&spin_lock(false), true);
    for o in [quick(), explicit.clone()] {
        let v = verify(&task, &o).unwrap();
        assert_eq!(v.answer, Answer::True, "{}", v.reason);
        assert!(
            v.reason.contains("explicit-state SC search"),
            "{}",
            v.reason
        );
    }
    // The bounded engine alone cannot prove it (the loop is cut at every
    // unwinding).
    let bounded = VerifyOptions {
        engine: Engine::Bounded,
        max_unwind: 4,
        ..quick()
    };
    let v = verify(&task, &bounded).unwrap();
    assert_eq!(v.answer, Answer::Unknown, "{}", v.reason);
    // The lock never released: the second thread spins forever, the
    // program is still safe (mutual exclusion holds).
    let (_d, task) = task_of(&spin_lock(true), true);
    assert_eq!(verify(&task, &explicit).unwrap().answer, Answer::True);
    // A real bug inside a cyclic program: FALSE (found by the search,
    // the witness from the bounded engine replays).
    let racy = spin_lock(false).replace("if (got) break;", "break;");
    let (_d, task) = task_of(&racy, false);
    let src = SourceFile::read(&task.input_files[0].to_string_lossy()).unwrap();
    let w = task.data_model.width();
    let c = bmc_rmm::frontend::c::Options::default();
    let Searched::Reachable(path) = search(&src, w, &c, None).unwrap() else {
        panic!("the race is reachable");
    };
    assert!(path.unwind >= 2 && !path.steps.is_empty());
    let v = verify(&task, &explicit).unwrap();
    assert_eq!(v.answer, Answer::False, "{}", v.reason);
    assert!(v.reason.contains("explicit-state search"), "{}", v.reason);
    assert_eq!(replay(&task, v.witness.as_deref().unwrap()), Ok(0));
    // A violation after many iterations of a loop that never ends: the
    // witness replays at the unwinding the search's execution needs.
    let late = format!(
        "{HEADER}int x;
void *t(void *a) {{ while (1) {{ if (x < 7) x = x + 1; }} return 0; }}
         int main() {{ pthread_t h; pthread_create(&h, 0, t, 0); while (1) {{ if (x == 7) reach_error(); }} return 0; }}
"
    );
    let (_d, task) = task_of(&late, false);
    let v = verify(&task, &explicit).unwrap();
    assert_eq!(v.answer, Answer::False, "{}", v.reason);
    assert_eq!(replay(&task, v.witness.as_deref().unwrap()), Ok(0));
    // A counter that grows without bound: the search stops at its limit
    // (here the deadline), never TRUE.
    let counter = format!(
        "{HEADER}int main() {{\n  int i = 0;\n  while (1) {{ i++; if (i == -1) reach_error(); }}\n  return 0;\n}}\n"
    );
    let (_d, task) = task_of(&counter, false);
    let src = SourceFile::read(&task.input_files[0].to_string_lossy()).unwrap();
    let soon = std::time::Instant::now() + Duration::from_secs(2);
    match search(&src, w, &c, Some(soon)).unwrap() {
        Searched::Unknown(why) => assert!(why.contains("explicit-state search"), "{why}"),
        other => panic!("{other:?}"),
    }
    // A goto loop is still unwound and cut: no proof.
    let goto_loop = format!(
        "{HEADER}int x;\nint main() {{\n  int i = 0;\n again:\n  i = (i + 1) % 3;\n  \
         if (__VERIFIER_nondet_int()) goto again;\n  if (i > 2) reach_error();\n  return 0;\n}}\n"
    );
    let (_d, task) = task_of(&goto_loop, true);
    let src = SourceFile::read(&task.input_files[0].to_string_lossy()).unwrap();
    match search(&src, w, &c, None).unwrap() {
        Searched::Unknown(why) => assert!(why.contains("cut at lines"), "{why}"),
        other => panic!("{other:?}"),
    }
    // A loop that creates threads is unwound (the threads are fixed):
    // cut, no proof.
    let spawner = format!(
        "{HEADER}int x;\nvoid *t(void *a) {{ x = 1; return 0; }}\n\
         int main() {{ pthread_t h; while (1) pthread_create(&h, 0, t, 0); return 0; }}\n"
    );
    let (_d, task) = task_of(&spawner, true);
    let src = SourceFile::read(&task.input_files[0].to_string_lossy()).unwrap();
    match search(&src, w, &c, None).unwrap() {
        Searched::Unknown(why) => assert!(why.contains("cut at lines"), "{why}"),
        other => panic!("{other:?}"),
    }
    // LP64 values: not handled by the explicit engine, said so.
    match search(&src, bmc_rmm::program::Width(64), &c, None).unwrap() {
        Searched::Unknown(why) => assert!(why.contains("32 bits"), "{why}"),
        other => panic!("{other:?}"),
    }
    // Bad input: a syntax error is an unknown of the search (the runner
    // then reports the front-end's located error), never a proof.
    let (_d, task) = task_of("int main( {", true);
    let src = SourceFile::read(&task.input_files[0].to_string_lossy()).unwrap();
    assert!(matches!(
        search(&src, w, &c, None).unwrap(),
        Searched::Unknown(_)
    ));
}

#[test]
fn cyclic_lowering_keeps_loops_as_cycles_and_a_nondet_condition_draws_one_bit() {
    if !c_common::cpp_available() {
        eprintln!("skipped: no C preprocessor on PATH");
        return;
    }
    let (_d, task) = task_of(&spin_lock(false), true);
    let src = SourceFile::read(&task.input_files[0].to_string_lossy()).unwrap();
    let w = task.data_model.width();
    let cyclic = bmc_rmm::frontend::c::Options {
        cyclic: true,
        unwind: 1,
        ..Default::default()
    };
    let l = bmc_rmm::frontend::c::lower_until(&src, w, &cyclic, None, false).unwrap();
    assert!(l.cut_loops.is_empty() && !l.unchecked_cut);
    assert_eq!(
        l.program.max_path, None,
        "a cyclic program has no longest path"
    );
    let acyclic = bmc_rmm::frontend::c::Options {
        unwind: 1,
        ..Default::default()
    };
    let l = bmc_rmm::frontend::c::lower_until(&src, w, &acyclic, None, false).unwrap();
    assert!(!l.cut_loops.is_empty() && l.program.max_path.is_some());
    // `if (__VERIFIER_nondet_int())`: one choice, not 32.
    let coin = format!(
        "{HEADER}int x;\nint main() {{ if (__VERIFIER_nondet_int()) x = 1; if (x) reach_error(); return 0; }}\n"
    );
    let (_d, task) = task_of(&coin, false);
    let p = program_of(&task, 1);
    let choices = p.threads[0]
        .instrs
        .iter()
        .enumerate()
        .filter(|(i, _)| witness::nondet_choice(&p.threads[0], *i).is_some())
        .count();
    assert_eq!(choices, 2, "one bit: the assignment and the nop");
    let v = verify(&task, &quick()).unwrap();
    assert_eq!(v.answer, Answer::False, "{}", v.reason);
    assert!(v.witness.as_deref().unwrap().contains("\\result == 1"));
    assert_eq!(replay(&task, v.witness.as_deref().unwrap()), Ok(0));
    // A variable that holds such a value and is only ever tested: one
    // bit too; compared with a constant (or assigned, or passed on): the
    // whole value.
    let choices_of = |body: &str| {
        let prog = format!(
            "{HEADER}int x;\nint main() {{ int r = __VERIFIER_nondet_int(); {body} return 0; }}\n"
        );
        let (_d, task) = task_of(&prog, false);
        let p = program_of(&task, 1);
        let n = (p.threads[0].instrs.iter().enumerate())
            .filter(|(i, _)| witness::nondet_choice(&p.threads[0], *i).is_some())
            .count();
        let v = verify(&task, &quick()).unwrap();
        assert_eq!(v.answer, Answer::False, "{body}: {}", v.reason);
        assert_eq!(
            replay(&task, v.witness.as_deref().unwrap()),
            Ok(0),
            "{body}"
        );
        n
    };
    assert_eq!(choices_of("if (r) x = 1; if (!r || x) reach_error();"), 2);
    assert_eq!(
        choices_of("while (r && !x) x = 1; if (x) reach_error();"),
        2
    );
    assert!(choices_of("if (r == 5) reach_error();") > 2);
    assert!(choices_of("x = r; if (x) reach_error();") > 2);
}

/// A program whose `main` creates threads running `body` in a loop that
/// never ends (`globals` declared before).
fn spawning(globals: &str, body: &str) -> String {
    format!(
        "{HEADER}extern void __VERIFIER_assume(int);\n{globals}\n\
         void *t(void *a) {{\n{body}\n  return 0;\n}}\n\
         int main() {{ pthread_t h; while (1) pthread_create(&h, 0, t, 0); return 0; }}\n"
    )
}

#[test]
fn counting_abstraction_proves_any_number_of_threads_and_never_proves_a_bug() {
    if !c_common::cpp_available() {
        eprintln!("skipped: no C preprocessor on PATH");
        return;
    }
    use bmc_rmm::svcomp::deepen::Engine;
    use bmc_rmm::svcomp::explicit::{search, Searched};
    let lock = "int m = 0; int in = 0;\n\
        void __VERIFIER_atomic_acquire() { __VERIFIER_assume(m == 0); m = 1; }\n\
        void __VERIFIER_atomic_release() { m = 0; }";
    let cases: Vec<(&str, String, bool)> = vec![
        // Mutual exclusion by an atomic lock: safe for any number.
        (
            "lock",
            spawning(
                lock,
                "  __VERIFIER_atomic_acquire(); in = in + 1; if (in != 1) reach_error();\n  \
                 in = in - 1; __VERIFIER_atomic_release();",
            ),
            true,
        ),
        // Without the lock: two copies break it.
        (
            "race",
            spawning(lock, "  in = in + 1; if (in != 1) reach_error(); in = in - 1;"),
            false,
        ),
        // A bug only the fourth copy reaches (the count matters).
        (
            "fourth",
            spawning(
                "int c = 0;",
                "  __VERIFIER_atomic_acquire_c();",
            )
            .replace(
                "void *t",
                "void __VERIFIER_atomic_acquire_c() { if (c < 3) c = c + 1; else reach_error(); }\nvoid *t",
            ),
            false,
        ),
        // Each copy's own local, reached through its address: safe (a
        // shared cell would be incremented by every copy).
        (
            "own local",
            spawning(
                "void inc(int *p) { *p = *p + 1; }",
                "  int l = 0; inc(&l); if (l != 1) reach_error();",
            ),
            true,
        ),
        // The same with a global: the second copy sees 2.
        (
            "global",
            spawning(
                "int l = 0; void inc(int *p) { *p = *p + 1; }",
                "  inc(&l); if (l != 1) reach_error();",
            ),
            false,
        ),
    ];
    let w = bmc_rmm::program::Width(32);
    let c = bmc_rmm::frontend::c::Options::default();
    let bounded = VerifyOptions {
        engine: Engine::Bounded,
        max_unwind: 5,
        ..quick()
    };
    for (name, prog, safe) in &cases {
        let (_d, task) = task_of(prog, *safe);
        let src = SourceFile::read(&task.input_files[0].to_string_lossy()).unwrap();
        let found = search(&src, w, &c, None).unwrap();
        // The oracle: the bounded engine with a fixed number of threads.
        let b = verify(&task, &bounded).unwrap();
        if *safe {
            match &found {
                Searched::Proof { replicated, .. } => assert_eq!(*replicated, 1, "{name}"),
                other => panic!("{name}: {other:?}"),
            }
            assert_ne!(b.answer, Answer::False, "{name}: {}", b.reason);
            let v = verify(&task, &quick()).unwrap();
            assert_eq!(v.answer, Answer::True, "{name}: {}", v.reason);
            assert!(v.reason.contains("any number of threads"), "{}", v.reason);
        } else {
            match &found {
                Searched::Unknown(why) => {
                    assert!(why.contains("counting abstraction"), "{name}: {why}")
                }
                other => panic!("{name}: a bug must never be proved: {other:?}"),
            }
            assert_eq!(b.answer, Answer::False, "{name}: {}", b.reason);
        }
    }
    // Outside the abstraction, said so: a copy's local whose address
    // reaches memory; a thread created in a loop that is joined.
    let escape = spawning("int *p;", "  int l = 0; p = &l; if (*p) reach_error();");
    let (_d, task) = task_of(&escape, true);
    let src = SourceFile::read(&task.input_files[0].to_string_lossy()).unwrap();
    match search(&src, w, &c, None).unwrap() {
        Searched::Unknown(why) => assert!(why.contains("stored to memory"), "{why}"),
        other => panic!("{other:?}"),
    }
    let joined = spawning("int x;", "  x = 1; if (x != 1) reach_error();").replace(
        "pthread_create(&h, 0, t, 0);",
        "{ pthread_create(&h, 0, t, 0); pthread_join(h, 0); }",
    );
    let (_d, task) = task_of(&joined, true);
    let src = SourceFile::read(&task.input_files[0].to_string_lossy()).unwrap();
    match search(&src, w, &c, None).unwrap() {
        Searched::Unknown(why) => assert!(why.contains("cut at lines"), "{why}"),
        other => panic!("{other:?}"),
    }
}

/// A thread draws a value that the next statement bounds (`if (!(C))
/// abort();`): the explicit-state search draws only the values the bound
/// lets through, so it proves the safe variant and finds the bug — over
/// every value, not 2^32 of them; with a statement between the draw and
/// the bound, the draw stays whole and the search says so (UNKNOWN).
#[test]
fn a_bounded_draw_is_searched_over_its_range_only() {
    let prog = |draw: &str, check: &str| {
        format!(
            "{HEADER}extern void abort(void);\nextern unsigned int __VERIFIER_nondet_uint(void);\n\
             int g;\nvoid *t(void *a) {{\n  {draw}\n  if ({check}) reach_error();\n  g = 1;\n  return 0;\n}}\n\
             int main() {{\n  pthread_t h;\n  pthread_create(&h, 0, t, 0);\n  return 0;\n}}\n"
        )
    };
    let explicit = VerifyOptions {
        engine: bmc_rmm::svcomp::deepen::Engine::Explicit,
        ..quick()
    };
    let unsigned = "unsigned tmp = __VERIFIER_nondet_uint();\n  if (!(tmp < 5)) { abort(); }";
    let signed = "int off;\n  off = __VERIFIER_nondet_int();\n  \
                  if (!(off % 2 == 0 && off >= 0 && off < 2*3)) abort();";
    for (draw, check, want) in [
        (unsigned, "tmp > 4", Answer::True),
        (unsigned, "tmp == 4", Answer::False),
        (signed, "off == 5 || off == 6 || off < 0", Answer::True),
        (signed, "off == 4", Answer::False),
        // `3 < x` and `x <= 7` bound it too.
        (
            "int v = __VERIFIER_nondet_int();\n  __VERIFIER_assume(3 < v && v <= 7);",
            "v == 8 || v == 3",
            Answer::True,
        ),
    ] {
        let (_d, task) = task_of(&prog(draw, check), want == Answer::True);
        let v = verify(&task, &explicit).unwrap();
        assert_eq!(v.answer, want, "{draw} / {check}: {}", v.reason);
    }
    // Not bounded by the next statement: the whole value is drawn.
    let apart = "unsigned tmp = __VERIFIER_nondet_uint();\n  g = 2;\n  if (!(tmp < 5)) abort();";
    let (_d, task) = task_of(&prog(apart, "tmp > 4"), true);
    let v = verify(&task, &explicit).unwrap();
    assert_eq!(v.answer, Answer::Unknown, "{}", v.reason);
    assert!(v.reason.contains("32 bits"), "{}", v.reason);
}

/// Draws whose value matters only through a few outcomes take those
/// outcomes, not 2^32 values: `switch (__VERIFIER_nondet_int())` draws
/// one value per case and one that is none of them; a draw passed to a
/// parameter that is only tested (also passed on) draws one bit; a
/// `return __VERIFIER_nondet_int();` whose value the caller discards
/// draws nothing. The explicit search then answers (a whole 32-bit draw:
/// UNKNOWN at once), right both ways, and every FALSE witness replays.
#[test]
fn draws_used_only_through_cases_tests_or_not_at_all_take_only_their_outcomes() {
    let prog = |funcs: &str, body: &str| {
        format!(
            "{HEADER}int g;\n{funcs}\nvoid *t(void *a) {{\n  {body}\n  return 0;\n}}\n\
             int main() {{\n  pthread_t h;\n  pthread_create(&h, 0, t, 0);\n  return 0;\n}}\n"
        )
    };
    let explicit = VerifyOptions {
        engine: bmc_rmm::svcomp::deepen::Engine::Explicit,
        ..quick()
    };
    let sw = |default: &str| {
        format!(
            "switch (__VERIFIER_nondet_int()) {{ case 0: g = 1; break; case 2: g = 3; break; \
             case 5: g = 2; break; {default} }}"
        )
    };
    let tested = "void f(int w) { if (w && !g) g = 7; }\nvoid pass(int w) { f(w); }";
    let rets =
        "int r(void) { if (g) return __VERIFIER_nondet_int(); return __VERIFIER_nondet_int(); }";
    for (funcs, body, want) in [
        ("", sw("") + "\n  if (g == 4) reach_error();", Answer::True),
        ("", sw("") + "\n  if (g == 2) reach_error();", Answer::False),
        // The value that is none of the cases takes `default`.
        (
            "",
            sw("default: g = 4;") + "\n  if (g == 4) reach_error();",
            Answer::False,
        ),
        (
            "",
            sw("default: g = 4;") + "\n  if (g == 0) reach_error();",
            Answer::True,
        ),
        (
            tested,
            "pass(__VERIFIER_nondet_int());\n  if (g == 7) reach_error();".into(),
            Answer::False,
        ),
        (
            tested,
            "f(__VERIFIER_nondet_int());\n  if (g == 6) reach_error();".into(),
            Answer::True,
        ),
        (
            rets,
            "r(); r();\n  if (g) reach_error();".into(),
            Answer::True,
        ),
    ] {
        let (_d, task) = task_of(&prog(funcs, &body), want == Answer::True);
        let v = verify(&task, &explicit).unwrap();
        assert_eq!(v.answer, want, "{funcs} / {body}: {}", v.reason);
        if want == Answer::False {
            assert_eq!(
                replay(&task, v.witness.as_deref().unwrap()),
                Ok(0),
                "{body}"
            );
        }
    }
    // Used otherwise (compared with a constant in the callee, the
    // returned value kept): the whole value, and the search says so.
    for (funcs, body) in [
        (
            "void f(int w) { if (w == 3) g = 7; }",
            "f(__VERIFIER_nondet_int());\n  if (g == 9) reach_error();",
        ),
        (rets, "g = r();\n  if (g == 9 && g == 8) reach_error();"),
    ] {
        let (_d, task) = task_of(&prog(funcs, body), true);
        let v = verify(&task, &explicit).unwrap();
        assert_eq!(v.answer, Answer::Unknown, "{body}: {}", v.reason);
        assert!(v.reason.contains("32 bits"), "{body}: {}", v.reason);
    }
}

/// Hostile task files end in one located error: collections nested
/// deeper than the loader's limit (the YAML loader recurses per level),
/// aliases (nested ones grow exponentially), and a YAML error after a
/// multi-byte character (the parser counts characters, spans bytes).
#[test]
fn hostile_task_files_are_located_errors() {
    let deep = format!("{}x\n", "- ".repeat(100_000));
    let e = Task::parse(&SourceFile::new("deep.yml", deep)).expect_err("refused");
    let shown = e.to_string();
    assert!(shown.starts_with("deep.yml:1:"), "{shown}");
    assert!(shown.contains("nested deeper than 64"), "{shown}");
    let bomb = "a: &a [x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a]\n\
                input_files: [*b, *b]\n";
    let e = Task::parse(&SourceFile::new("bomb.yml", bomb)).expect_err("refused");
    let shown = e.to_string();
    assert!(shown.starts_with("bomb.yml:2:"), "{shown}");
    assert!(shown.contains("aliases"), "{shown}");
    let e = Task::parse(&SourceFile::new("utf.yml", "a: 'é€𝄞\n")).expect_err("refused");
    let shown = e.to_string();
    assert!(shown.starts_with("utf.yml:"), "{shown}");
    assert!(shown.contains("YAML"), "{shown}");
}
