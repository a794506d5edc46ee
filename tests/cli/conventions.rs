//! Command-line conventions: man pages and shell completions
//! generated from the clap definitions, `--version` naming the backends
//! and features, `-q`/`-v`/`--color`/`NO_COLOR` accepted the same way by
//! every command, and `--json` on every checking command. Built without
//! the `z3` feature, `--solver z3` is a usage error (CI runs this file on
//! the default build too: README, "Run the tests").

use crate::common;

fn bmc_env(args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut c = common::bin();
    c.args(args);
    c.env_remove("NO_COLOR");
    for (k, v) in env {
        c.env(k, v);
    }
    common::output(c)
}

fn bmc(args: &[&str]) -> (i32, String, String) {
    bmc_env(args, &[])
}

/// One invocation of every command on a small input (exit status 0 or 1).
fn commands() -> Vec<Vec<&'static str>> {
    vec![
        vec!["parse", "examples/sb.rmm"],
        vec!["reach", "examples/sb.rmm"],
        vec!["robust", "examples/sb.rmm"],
        vec!["robust", "--engine", "explicit", "examples/sb.rmm"],
        vec!["reach", "--engine", "smc", "-m", "pso", "examples/sb.rmm"],
        vec!["robust", "--engine", "smc", "examples/sb.rmm"],
        vec!["examples/sb.rmm"],
        vec![
            "litmus",
            "tests/litmus/X86-SB.litmus",
            "tests/litmus/X86-SB+mfences.litmus",
        ],
        vec!["fences", "examples/sb.rmm"],
        vec!["crosscheck", "examples/sb.rmm"],
        vec![
            "diff",
            "--models",
            "sc,tso",
            "examples/sb.rmm",
            "examples/mp.rmm",
        ],
    ]
}

#[test]
fn man_pages_and_completions_come_from_the_clap_definitions() {
    let (code, man, err) = bmc(&["man"]);
    assert_eq!(code, 0, "{err}");
    assert!(man.contains(".TH bmc-rmm 1"), "{man}");
    // Every subcommand is listed in the page.
    for sub in ["litmus", "merge", "crosscheck", "completions"] {
        assert!(man.contains(sub), "{sub}");
    }
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("man1");
    let (code, _, err) = bmc(&["man", "--dir", &dir.to_string_lossy()]);
    assert_eq!(code, 0, "{err}");
    for page in ["bmc-rmm.1", "bmc-rmm-litmus.1", "bmc-rmm-merge.1"] {
        let text = std::fs::read_to_string(dir.join(page)).unwrap_or_default();
        assert!(text.contains(".TH"), "{page}");
    }
    let litmus = std::fs::read_to_string(dir.join("bmc-rmm-litmus.1")).unwrap();
    assert!(
        litmus.contains("herd\\-log"),
        "litmus page lists --herd-log"
    );
    for (shell, marker) in [
        ("bash", "complete -F _bmc"),
        ("zsh", "#compdef bmc-rmm"),
        ("fish", "complete -c bmc-rmm"),
    ] {
        let (code, out, err) = bmc(&["completions", shell]);
        assert_eq!(code, 0, "{shell}: {err}");
        assert!(out.contains(marker), "{shell}");
        assert!(out.contains("shard") && out.contains("litmus"), "{shell}");
    }
    let (code, _, err) = bmc(&["completions", "tcsh"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn version_names_solvers_and_features() {
    let (code, out, _) = bmc(&["--version"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("bmc-rmm 0."), "{out}");
    assert!(out.contains("solvers: varisat"), "{out}");
    assert!(out.contains("features: cli"), "{out}");
    assert_eq!(out.contains("z3"), cfg!(feature = "z3"), "{out}");
}

#[cfg(not(feature = "z3"))]
#[test]
fn z3_solver_is_a_usage_error_without_the_feature() {
    let ex = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/sb.rmm");
    let out = common::bin()
        .args(["robust", "--solver", "z3", ex])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("built without z3"), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn quiet_verbose_and_json_on_every_command() {
    for args in commands() {
        let (code, _, err) = bmc(&args);
        assert!(code == 0 || code == 1, "{args:?}: {err}");
        for flag in ["-q", "-v", "--color=never"] {
            // Before and after the subcommand.
            let mut after = args.clone();
            after.push(flag);
            let mut before = vec![flag];
            before.extend(&args);
            for a in [after, before] {
                let (c, _, e) = bmc(&a);
                assert_eq!(c, code, "{a:?}: {e}");
            }
        }
        let mut q = args.clone();
        q.push("-q");
        let (_, _, e) = bmc(&q);
        assert!(!e.contains("summary:"), "{q:?}: {e}");
        let mut j = args.clone();
        j.push("--json");
        let (c, out, e) = bmc(&j);
        assert_eq!(c, code, "{j:?}: {e}");
        assert!(!out.trim().is_empty(), "{j:?}");
        for l in out.lines().filter(|l| !l.trim().is_empty()) {
            let v: Result<serde_json::Value, _> = serde_json::from_str(l);
            assert!(v.is_ok(), "{j:?}: not JSON: {l}");
        }
    }
    // -v: one line per completed input; -q and -v exclude each other.
    let (_, _, e) = bmc(&["litmus", "-v", "tests/litmus"]);
    let n = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/litmus"))
        .unwrap()
        .count();
    assert_eq!(
        e.lines().filter(|l| l.starts_with("done: ")).count(),
        n,
        "{e}"
    );
    assert!(e.contains("summary:"));
    let (code, _, _) = bmc(&["litmus", "-q", "-v", "tests/litmus"]);
    assert_eq!(code, 2);
}

#[test]
fn color_follows_the_flag_and_no_color() {
    let esc = |s: &str| s.contains('\u{1b}');
    // A usage error (misspelt subcommand) is what clap colours.
    let (c, _, e) = bmc(&["--color", "always", "litmsu"]);
    assert_eq!(c, 2);
    assert!(esc(&e), "{e}");
    let (_, _, e) = bmc(&["--color=never", "litmsu"]);
    assert!(!esc(&e), "{e}");
    let (_, _, e) = bmc_env(&["litmsu"], &[("NO_COLOR", "1")]);
    assert!(!esc(&e), "{e}");
    let (_, _, e) = bmc_env(&["--color", "always", "litmsu"], &[("NO_COLOR", "1")]);
    assert!(esc(&e), "--color always wins over NO_COLOR: {e}");
    let (c, _, _) = bmc(&["--color", "sometimes", "litmus"]);
    assert_eq!(c, 2);
}
