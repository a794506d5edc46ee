//! Batch mode end to end: `diff`, `--expect`/`--write-expect`,
//! parallel runs with stable output, per-input timeouts, `--dot DIR`, and
//! bad inputs. Corpus tests skip when `../shared/corpus` is absent.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::common;
use common::run as bmc;

fn corpus() -> Option<String> {
    common::corpus("litmus")?;
    Some(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus/litmus").to_string())
}

fn base(f: &str) -> String {
    Path::new(f)
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned()
}

/// The rows of the verdict section of a text `diff` table (file names).
fn verdict_section(out: &str) -> BTreeSet<String> {
    let mut in_section = false;
    let mut files = BTreeSet::new();
    for l in out.lines() {
        if l.starts_with("verdict differs (") {
            in_section = true;
            continue;
        }
        if in_section && (l.is_empty() || l.ends_with("):")) {
            break;
        }
        if in_section && !l.starts_with("FILE") && !l.starts_with(' ') {
            files.insert(base(l.split_whitespace().next().unwrap()));
        }
    }
    files
}

#[test]
fn diff_sc_tso_lists_the_expected_verdict_changes() {
    let Some(dir) = corpus() else { return };
    // Expected list: X86 tests whose sc.cat and x86tso.cat verdicts differ.
    let text = std::fs::read_to_string(format!("{dir}/EXPECTED.tsv")).unwrap();
    let mut by_file: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for l in text.lines().skip(1) {
        let c: Vec<&str> = l.split('\t').collect();
        if c.len() >= 4 && c[0] == "X86" {
            by_file
                .entry(base(c[1]))
                .or_default()
                .insert(c[2].to_string(), c[3].to_string());
        }
    }
    let expected: BTreeSet<String> = by_file
        .iter()
        .filter(|(_, m)| m.get("sc.cat") != m.get("x86tso.cat"))
        .map(|(f, _)| f.clone())
        .collect();
    assert!(expected.len() > 10, "{expected:?}");

    let x86 = format!("{dir}/X86");
    let (code, out, err) = bmc(&["diff", "--models", "sc,tso", &x86]);
    assert_eq!(code, 1, "{err}");
    assert_eq!(verdict_section(&out), expected, "{out}");
    assert!(
        out.contains(&format!("verdict differs ({}):", expected.len())),
        "{out}"
    );
    assert!(err.contains("summary: 525 inputs:"), "{err}");

    // JSON: the records flagged verdict_differs are exactly the same tests.
    let (code, out, _) = bmc(&["diff", "--models", "sc,tso", "--json", &x86]);
    assert_eq!(code, 1);
    let got: BTreeSet<String> = out
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|r| r["verdict_differs"] == true)
        .map(|r| base(r["file"].as_str().unwrap()))
        .collect();
    assert_eq!(got, expected);

    // --verdicts-only lists nothing else.
    let (code, out, _) = bmc(&["diff", "--models", "sc,tso", "--verdicts-only", &x86]);
    assert_eq!(code, 1);
    assert!(!out.contains("same verdict"), "{out}");
    let rows: BTreeSet<String> = out
        .lines()
        .skip(1)
        .filter(|l| !l.is_empty() && !l.starts_with(' ') && !l.starts_with("FILE"))
        .filter(|l| !l.ends_with("):"))
        .map(|l| base(l.split_whitespace().next().unwrap()))
        .collect();
    assert_eq!(rows, expected);
}

#[test]
fn litmus_expect_matches_the_corpus() {
    let Some(dir) = corpus() else { return };
    let tsv = format!("{dir}/EXPECTED.tsv");
    let x86 = format!("{dir}/X86");
    let (code, _, err) = bmc(&["litmus", "--model", "tso", "--expect", &tsv, &x86]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("expect: 525 matched, 0 mismatches, 0 without expectation"),
        "{err}"
    );
    // sc: the herd name sc.cat is matched too.
    let (code, _, err) = bmc(&["litmus", "--model", "sc", "--expect", &tsv, &x86]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn expect_mismatch_and_write_expect_round_trip() {
    let d = tempfile::tempdir().unwrap();
    let tsv = d.path().join("exp.tsv");
    let tsv_s = tsv.to_str().unwrap();
    // Record the tso verdicts of our own tests, then compare: all match.
    let (code, _, err) = bmc(&[
        "litmus",
        "--model",
        "tso",
        "--write-expect",
        tsv_s,
        "tests/litmus",
    ]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&tsv).unwrap();
    assert!(text.starts_with("arch\tfile\tmodel\tverdict\n"), "{text}");
    assert!(text.contains("\tx86tso.cat\tAllowed\n"), "{text}");
    let (code, _, err) = bmc(&[
        "litmus",
        "--model",
        "tso",
        "--expect",
        tsv_s,
        "tests/litmus",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("0 mismatches"), "{err}");
    // Under sc the same expectations do not apply (model x86tso.cat).
    let (code, _, err) = bmc(&["litmus", "--model", "sc", "--expect", tsv_s, "tests/litmus"]);
    assert_eq!(code, 0, "{err}");
    let n = own_tests();
    assert!(
        err.contains(&format!("0 matched, 0 mismatches, {n} without")),
        "{err}"
    );
    // Edit one verdict: one mismatch with the TSV's location, exit 1.
    let edited = text.replace(
        "X86-SB+mfences.litmus\tx86tso.cat\tForbidden",
        "X86-SB+mfences.litmus\tx86tso.cat\tAllowed",
    );
    assert_ne!(edited, text);
    std::fs::write(&tsv, &edited).unwrap();
    let (code, out, _) = bmc(&[
        "litmus",
        "--model",
        "tso",
        "--expect",
        tsv_s,
        "tests/litmus",
    ]);
    assert_eq!(code, 1, "{out}");
    let m: Vec<&str> = out.lines().filter(|l| l.starts_with("mismatch:")).collect();
    assert_eq!(m.len(), 1, "{out}");
    assert!(
        m[0].contains("X86-SB+mfences.litmus [tso] litmus: expected Allowed"),
        "{}",
        m[0]
    );
    assert!(
        m[0].contains("exp.tsv:") && m[0].ends_with("got Forbidden"),
        "{}",
        m[0]
    );

    // Programs: our verdict words, two rows per file (reach and robust).
    let (code, _, err) = bmc(&["--model", "tso", "--write-expect", tsv_s, "examples"]);
    assert_eq!(code, 1, "{err}");
    let text = std::fs::read_to_string(&tsv).unwrap();
    assert!(text.contains("\tx86tso.cat\treachable\n"), "{text}");
    assert!(text.contains("\tx86tso.cat\tnot-robust\n"), "{text}");
    let (code, _, err) = bmc(&["--model", "tso", "--expect", tsv_s, "examples"]);
    assert_eq!(code, 0, "{err}");
    let (code, out, _) = bmc(&["robust", "--model", "sc", "--expect", tsv_s, "examples"]);
    assert_eq!(code, 0, "no sc rows: {out}");
    // Rows written with our own model name also match.
    std::fs::write(
        &tsv,
        "arch\tfile\tmodel\tverdict\nnative\texamples/sb.rmm\tsc\tnot-robust\n",
    )
    .unwrap();
    let (code, out, _) = bmc(&[
        "robust",
        "--model",
        "sc",
        "--expect",
        tsv_s,
        "examples/sb.rmm",
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("mismatch: examples/sb.rmm [sc] robust: expected not-robust"),
        "{out}"
    );
}

#[test]
fn diff_against_a_model_without_an_axiom() {
    let d = tempfile::tempdir().unwrap();
    let tso =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/encodings/tso.cat")).unwrap();
    assert!(tso.contains("acyclic ghb as tso"));
    let edited = d.path().join("tso-no-ghb.cat");
    std::fs::write(&edited, tso.replace("acyclic ghb as tso", "")).unwrap();
    let models = format!("encodings/tso.cat,{}", edited.display());
    let tests = [
        "tests/litmus/X86-2+2W.litmus",
        "tests/litmus/X86-CoRR.litmus",
        "tests/litmus/X86-IRIW.litmus",
        "tests/litmus/X86-LB.litmus",
        "tests/litmus/X86-MP.litmus",
        "tests/litmus/X86-SB+mfences.litmus",
    ];
    let mut args = vec!["diff", "--models", &models, "--json"];
    args.extend(tests);
    let (code, out, err) = bmc(&args);
    assert_eq!(code, 1, "{err}");
    let recs: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let got: BTreeSet<String> = recs
        .iter()
        .map(|r| base(r["file"].as_str().unwrap()))
        .collect();
    // The ghb axiom forbids these classic shapes; CoRR stays forbidden by
    // sc-per-location.
    let want: BTreeSet<String> = ["X86-2+2W", "X86-IRIW", "X86-LB", "X86-MP", "X86-SB+mfences"]
        .iter()
        .map(|s| format!("{s}.litmus"))
        .collect();
    assert_eq!(got, want, "{out}");
    for r in &recs {
        assert_eq!(
            r["verdicts"][0]["verdicts"],
            serde_json::json!(["Forbidden", "Allowed"])
        );
        assert!(r["only"][0].as_array().unwrap().is_empty());
        assert!(!r["only"][1].as_array().unwrap().is_empty());
    }
    // MP: the edited model allows exactly the stale read.
    let mp = recs
        .iter()
        .find(|r| r["file"].as_str().unwrap().ends_with("X86-MP.litmus"))
        .unwrap();
    assert_eq!(mp["only"][1], serde_json::json!(["1:EAX=1; 1:EBX=0;"]));
    // A model diffed against itself: no difference, exit 0.
    let (code, out, _) = bmc(&[
        "diff",
        "--models",
        "tso,encodings/tso.cat",
        "tests/litmus/X86-MP.litmus",
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("no verdict differs"), "{out}");
}

#[test]
fn diff_programs() {
    let (code, out, _) = bmc(&[
        "diff",
        "--models",
        "sc,tso",
        "examples/sb.rmm",
        "examples/mp.rmm",
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("examples/sb.rmm  reach   unreachable  reachable"),
        "{out}"
    );
    assert!(
        out.contains("examples/sb.rmm  robust  robust       not-robust"),
        "{out}"
    );
    assert!(!out.contains("examples/mp.rmm"), "{out}");
}

/// The number of own litmus tests in `tests/litmus`.
fn own_tests() -> usize {
    std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/litmus"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "litmus")
        })
        .count()
}

fn strip_times(s: &str) -> String {
    s.lines()
        .filter(|l| !l.starts_with("Time "))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn output_is_identical_across_thread_counts() {
    let runs: &[&[&str]] = &[
        &["diff", "--models", "sc,tso", "examples", "tests/litmus"],
        &["--model", "tso", "examples"],
        &["litmus", "--model", "tso", "tests/litmus"],
    ];
    for args in runs {
        let mut outs = Vec::new();
        for j in ["1", "2", "3"] {
            let mut a = args.to_vec();
            a.extend(["-j", j]);
            let (code, out, err) = bmc(&a);
            assert!(code == 0 || code == 1, "{args:?}: {err}");
            outs.push(strip_times(&out));
        }
        assert!(!outs[0].is_empty());
        assert_eq!(outs[0], outs[1], "{args:?}");
        assert_eq!(outs[0], outs[2], "{args:?}");
    }
    let (code, _, err) = bmc(&["litmus", "-j", "0", "tests/litmus"]);
    assert_eq!(code, 2, "{err}");
}

#[test]
fn timeout_gives_unknown_per_input_and_the_run_goes_on() {
    let (code, out, err) = bmc(&["litmus", "--timeout", "0.000001", "tests/litmus"]);
    assert_eq!(code, 3, "{err}");
    let n = own_tests();
    assert_eq!(out.matches(" unknown: time limit").count(), n, "{out}");
    assert!(
        err.contains(&format!(
            "summary: {n} tests: 0 allowed, 0 forbidden, {n} unknown"
        )),
        "{err}"
    );
    let (code, out, err) = bmc(&["reach", "--timeout", "0.000001", "examples"]);
    assert_eq!(code, 3, "{err}");
    assert_eq!(
        out.lines()
            .filter(|l| l.contains(": reach [tso]: unknown: time limit"))
            .count(),
        7,
        "{out}"
    );
    assert!(err.contains("summary: 7 results: 7 unknown"), "{err}");
}

#[test]
fn dot_dir_writes_one_graph_per_input_and_check() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().join("dots");
    let (code, _, err) = bmc(&[
        "--model",
        "tso",
        "--dot",
        dir.to_str().unwrap(),
        "examples/sb.rmm",
        "examples/sb-fenced.rmm",
    ]);
    assert_eq!(code, 1, "{err}");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["sb.reach.dot", "sb.robust.dot"]);
    let g = std::fs::read_to_string(dir.join("sb.robust.dot")).unwrap();
    assert!(g.starts_with("digraph") && g.contains("color=red"), "{g}");
    // One input, a directory given with a trailing slash.
    let dir2 = format!("{}/", d.path().join("one").display());
    let (code, _, _) = bmc(&["robust", "--dot", &dir2, "examples/sb.rmm"]);
    assert_eq!(code, 1);
    assert!(d.path().join("one/sb.robust.dot").exists());
}

#[test]
fn bad_inputs_exit_2_with_a_message() {
    let (code, _, err) = bmc(&[
        "diff",
        "--models",
        "sc,nosuch",
        "tests/litmus/X86-MP.litmus",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown model `nosuch`"), "{err}");
    let (code, _, err) = bmc(&["diff", "--models", "sc", "tests/litmus/X86-MP.litmus"]);
    assert_eq!(code, 2);
    assert!(err.contains("two models"), "{err}");
    let (code, _, err) = bmc(&["diff", "--models", "sc,tso", "nosuch.litmus"]);
    assert_eq!(code, 2);
    assert!(err.contains("nosuch.litmus"), "{err}");
    let (code, _, err) = bmc(&[
        "diff",
        "--models",
        "sc,missing.cat",
        "tests/litmus/X86-MP.litmus",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("missing.cat"), "{err}");

    let d = tempfile::tempdir().unwrap();
    let tsv = d.path().join("bad.tsv");
    std::fs::write(
        &tsv,
        "arch\tfile\tmodel\tverdict\nX86\tX86/MP.litmus\tx86tso.cat\tPerhaps\n",
    )
    .unwrap();
    let tsv_s = tsv.to_str().unwrap();
    for args in [
        vec!["litmus", "--expect", tsv_s, "tests/litmus/X86-MP.litmus"],
        vec!["reach", "--expect", tsv_s, "examples/sb.rmm"],
    ] {
        let (code, out, err) = bmc(&args);
        assert_eq!(code, 2, "{err}");
        assert!(out.is_empty(), "nothing runs before the TSV is read: {out}");
        assert!(
            err.starts_with(&format!("{tsv_s}:2:30: error: unknown verdict `Perhaps`")),
            "{err}"
        );
    }
    std::fs::write(&tsv, "X86\tX86/MP.litmus\n").unwrap();
    let (code, _, err) = bmc(&["litmus", "--expect", tsv_s, "tests/litmus/X86-MP.litmus"]);
    assert_eq!(code, 2);
    assert!(
        err.starts_with(&format!("{tsv_s}:1:18: error: expected 4 columns")),
        "{err}"
    );
    let (code, _, err) = bmc(&[
        "litmus",
        "--expect",
        "nosuch.tsv",
        "tests/litmus/X86-MP.litmus",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("nosuch.tsv"), "{err}");
    let (code, _, err) = bmc(&["reach", "examples/nosuch.rmm"]);
    assert_eq!(code, 2);
    assert!(err.contains("examples/nosuch.rmm"), "{err}");
    let (code, _, err) = bmc(&[
        "litmus",
        "--write-expect",
        "/nonexistent-dir/x.tsv",
        "tests/litmus/X86-MP.litmus",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("/nonexistent-dir/x.tsv"), "{err}");
}
