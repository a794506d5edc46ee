//! The command line of the TSO reachability engines: `reach --engine
//! lazy|kround`, `translate --kround`, `crosscheck --reach`, and their
//! usage errors.

use crate::common;
use common::run as bmc;

/// Writes `text` to `dir/name` (the directory is removed when the test
/// drops it).
fn tmp(dir: &tempfile::TempDir, name: &str, text: &str) -> String {
    let p = dir.path().join(name);
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

const SB: &str = "shared x, y;
thread t0 { x = 1; r1 = y; }
thread t1 { y = 1; r2 = x; }
goal final where t0.r1 == 0 && t1.r2 == 0;";

const MP: &str = "shared x, y;
thread t0 { x = 1; y = 1; }
thread t1 { r1 = y; r2 = x; }
goal final where t1.r1 == 1 && t1.r2 == 0;";

#[test]
fn engines_answer_with_exit_codes() {
    let d = tempfile::tempdir().unwrap();
    let sb = tmp(&d, "sb.rmm", SB);
    let mp = tmp(&d, "mp.rmm", MP);
    let (c, out, _) = bmc(&["reach", "--engine", "lazy", &sb]);
    assert_eq!(c, 1, "{out}");
    assert!(
        out.contains("REACHABLE") && out.contains("t0: flush"),
        "{out}"
    );
    let (c, out, _) = bmc(&["reach", "--engine", "lazy", &mp]);
    assert_eq!(c, 0, "{out}");
    let (c, out, _) = bmc(&["reach", "--engine", "kround", "--rounds", "1", &sb]);
    assert_eq!(c, 1, "{out}");
    assert!(out.contains("within 1 rounds per thread"), "{out}");
    let (c, out, _) = bmc(&["reach", "--engine", "kround", "--json", &mp]);
    assert_eq!(c, 0, "{out}");
    let rec: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(rec["verdict"], "unreachable");
    assert_eq!(rec["rounds"], 2);
    // A refinement cap ends the lazy engine with "unknown" (exit 3) on a
    // program that needs refinements.
    let (c, out, _) = bmc(&["reach", "--engine", "lazy", "--rounds", "0", &sb]);
    assert_eq!(c, 3, "{out}");
    assert!(out.contains("unknown"), "{out}");
}

#[test]
fn translate_prints_a_native_program() {
    let d = tempfile::tempdir().unwrap();
    let sb = tmp(&d, "sb2.rmm", SB);
    let (c, out, err) = bmc(&["translate", "--kround", "2", &sb]);
    assert_eq!(c, 0, "{err}");
    let (c, js, _) = bmc(&["translate", "--kround", "2", "--json", &sb]);
    assert_eq!(c, 0);
    let rec: serde_json::Value = serde_json::from_str(js.trim()).unwrap();
    assert_eq!(
        rec["program"].as_str(),
        Some(out.split_once('\n').unwrap().1)
    );
    assert_eq!(rec["rounds"], 2);
    let p = tmp(&d, "sb_k2.rmm", &out);
    // P' under SC (bounded) reaches the goal as P does under TSO.
    let (c, out, _) = bmc(&["reach", "-m", "sc", "-k", "40", &p]);
    assert_eq!(c, 1, "{out}");
}

#[test]
fn crosscheck_reach_agrees() {
    let d = tempfile::tempdir().unwrap();
    let sb = tmp(&d, "sb3.rmm", SB);
    let mp = tmp(&d, "mp3.rmm", MP);
    let (c, out, _) = bmc(&["crosscheck", "--reach", "--timeout", "60", &sb, &mp]);
    assert_eq!(c, 0, "{out}");
    assert!(out.contains("0 disagreement(s)"), "{out}");
    // A program with the lock: the k-round engine (and its P') is left
    // out for it, the other engines still answer, and the batch goes on.
    let lk = tmp(
        &d,
        "lock3.rmm",
        "shared x; thread t { lock; x = 1; unlock; } thread u { r = x; } goal final where u.r == 1;",
    );
    let (c, out, err) = bmc(&["crosscheck", "--reach", "--timeout", "60", &lk, &mp]);
    assert_eq!(c, 0, "{out}{err}");
    let row = out.lines().find(|l| l.contains("lock3.rmm")).expect(&out);
    assert!(row.contains("n/a") && row.contains("reachable"), "{row}");
    assert!(
        out.contains("left out:") && out.contains("k-round"),
        "{out}"
    );
    assert!(out.lines().any(|l| l.contains("mp3.rmm")), "{out}");
}

#[test]
fn usage_errors() {
    let d = tempfile::tempdir().unwrap();
    let sb = tmp(&d, "sb4.rmm", SB);
    let (c, _, err) = bmc(&["reach", "--engine", "lazy", "-m", "pso", &sb]);
    assert_eq!(c, 2, "{err}");
    let (c, _, err) = bmc(&["robust", "--engine", "kround", &sb]);
    assert_eq!(c, 2, "{err}");
    let (c, _, err) = bmc(&["reach", "--rounds", "2", &sb]);
    assert_eq!(c, 2, "{err}");
    let lk = tmp(
        &d,
        "lock.rmm",
        "shared x; thread t { lock; x = 1; unlock; } goal anywhere;",
    );
    let (c, _, err) = bmc(&["translate", "--kround", "2", &lk]);
    assert_eq!(c, 2, "{err}");
    assert!(err.contains("lock"), "{err}");
}

/// The goal threads first (reach::lazy::lazy_reach): a bug that needs
/// only the goal's threads is found with the others never moving; a bug
/// that needs a third thread is still found (the whole program is
/// searched next); both witnesses replay on the TSO semantics.
#[test]
fn lazy_tries_the_goal_threads_first_and_then_every_thread() {
    let d = tempfile::tempdir().unwrap();
    let idle = tmp(
        &d,
        "idle3.rmm",
        "shared x, y, z;
thread t0 { x = 1; r1 = y; }
thread t1 { y = 1; r2 = x; }
thread t2 { z = 1; z = 2; z = 3; }
goal g: t0@end, t1@end where t0.r1 == 0 && t1.r2 == 0;",
    );
    let (c, out, _) = bmc(&["reach", "--engine", "lazy", "--json", &idle]);
    assert_eq!(c, 1, "{out}");
    let rec: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let steps = rec["witness"].as_array().unwrap();
    assert!(!steps.is_empty());
    assert!(
        steps.iter().all(|s| !s.as_str().unwrap().starts_with("t2")),
        "{out}"
    );
    let needed = tmp(
        &d,
        "sb3f.rmm",
        "shared x, y, f;
thread t0 { r0 = f; assume(r0 == 1); x = 1; r1 = y; }
thread t1 { y = 1; r2 = x; }
thread t2 { f = 1; }
goal g: t0@end, t1@end where t0.r1 == 0 && t1.r2 == 0;",
    );
    let (c, out, _) = bmc(&["reach", "--engine", "lazy", "--json", &needed]);
    assert_eq!(c, 1, "{out}");
    let rec: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    let steps = rec["witness"].as_array().unwrap();
    assert!(
        steps.iter().any(|s| s.as_str().unwrap().starts_with("t2")),
        "{out}"
    );
    // Without t2's store the goal is unreachable under TSO.
    let blocked = needed.replace("sb3f", "sb3b");
    std::fs::write(
        &blocked,
        std::fs::read_to_string(&needed)
            .unwrap()
            .replace("thread t2 { f = 1; }", "thread t2 { f = 2; }"),
    )
    .unwrap();
    let (c, out, _) = bmc(&["reach", "--engine", "lazy", &blocked]);
    assert_eq!(c, 0, "{out}");
}

/// P′ keeps a thread's control state in its `k.pc` register: a thread
/// with more states than `--width` bits tell apart is refused (two states
/// would share a value and a resumed round could jump to the wrong one),
/// and answered at a width that fits.
#[test]
fn kround_refuses_a_width_too_narrow_for_its_control_states() {
    let d = tempfile::tempdir().unwrap();
    let sb = tmp(&d, "sb3.rmm", SB);
    let (c, out, err) = bmc(&[
        "reach", "--engine", "kround", "--rounds", "2", "--width", "2", &sb,
    ]);
    assert_eq!(c, 2, "{out}{err}");
    assert!(
        err.contains("thread t0: the k-round translation has")
            && err.contains("cannot tell apart in 2-bit values"),
        "{err}"
    );
    let (c, out, err) = bmc(&[
        "reach", "--engine", "kround", "--rounds", "2", "--width", "6", &sb,
    ]);
    assert_eq!(c, 1, "{out}{err}");
}
