//! Sharded batches: `--shard I/N`, `--jsonl OUT`, `--resume`
//! and `bmc-rmm merge`. The merged report of N shards must equal the
//! report of one process (times aside), under GNU parallel, after a
//! shard was killed and resumed, and for every batch command; `merge`
//! must refuse a missing shard, a missing input and an input recorded
//! twice. The GNU parallel test uses the litmus corpus when
//! `../shared/corpus` exists and the bundled tests otherwise.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

use crate::common;
use common::run as bmc;

/// Text output without herd's `Time` lines (the only part that varies).
fn strip_times(s: &str) -> String {
    s.lines()
        .filter(|l| !l.starts_with("Time "))
        .collect::<Vec<_>>()
        .join("\n")
}

/// JSON lines without their times and statistics.
fn strip_json(s: &str) -> Vec<serde_json::Value> {
    s.lines()
        .map(|l| {
            let mut v: serde_json::Value = serde_json::from_str(l).expect("a JSON line");
            if let Some(o) = v.as_object_mut() {
                o.remove("time");
                o.remove("stats");
            }
            v
        })
        .collect()
}

fn result_lines(path: &Path) -> usize {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains("\"kind\":\"result\""))
        .count()
}

fn p(x: &Path) -> String {
    x.to_string_lossy().into_owned()
}

/// The litmus inputs of the GNU parallel test and their model: the
/// corpus' X86 and PPC tests, or the bundled tests/litmus when the corpus
/// is absent (a failure under CI: common::corpus).
fn suite() -> (Vec<String>, &'static str) {
    match (common::corpus("litmus/X86"), common::corpus("litmus/PPC")) {
        (Some(x86), Some(ppc)) => (vec![p(&x86), p(&ppc)], "power"),
        _ => {
            eprintln!("note: ../shared/corpus absent; using the bundled tests/litmus");
            (vec!["tests/litmus".to_string()], "power")
        }
    }
}

/// Runs the 4 shards of `litmus` on `inputs` under GNU parallel, writing
/// `dir/out.{i}.jsonl`. `None` when `parallel` is not installed.
fn parallel_shards(dir: &Path, inputs: &[String], model: &str) -> Option<Vec<String>> {
    let have = Command::new("parallel")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !have {
        return None;
    }
    let out = format!("{}/out.{{}}.jsonl", dir.display());
    let status = Command::new("parallel")
        .args([
            "--will-cite",
            "--halt",
            "never",
            common::bin_path(),
            "litmus",
            "-q",
            "-m",
            model,
        ])
        .args(["--shard", "{}/4", "--jsonl", &out])
        .args(inputs)
        .args([":::", "1", "2", "3", "4"])
        .current_dir(ROOT)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("parallel runs");
    // parallel exits with the number of failed jobs; shards exit 2 when a
    // test is malformed, which the merged status must reproduce.
    assert!(status.code().is_some(), "parallel was killed");
    Some(
        (1..=4)
            .map(|i| format!("{}/out.{i}.jsonl", dir.display()))
            .collect(),
    )
}

#[test]
fn gnu_parallel_four_shards_merge_to_the_single_process_report() {
    let (inputs, model) = suite();
    let d = tempfile::tempdir().unwrap();
    let Some(outs) = parallel_shards(d.path(), &inputs, model) else {
        eprintln!(
            "skipping: GNU parallel not installed (Debian package `parallel`; .ci/run installs it)"
        );
        return;
    };
    let mut single = vec!["litmus", "-q", "-m", model];
    single.extend(inputs.iter().map(String::as_str));
    let (code1, text1, _) = bmc(&single);
    let mut merge: Vec<&str> = vec!["merge"];
    merge.extend(outs.iter().map(String::as_str));
    let (code2, text2, err2) = bmc(&merge);
    assert_eq!(code1, code2, "{err2}");
    assert!(err2.contains("summary: "), "{err2}");
    assert_eq!(strip_times(&text1), strip_times(&text2));
    assert!(text1.matches("\nTest ").count() > 20);
    // JSON records and herd logs agree too.
    let mut json1 = single.clone();
    json1.push("--json");
    let mut json2 = merge.clone();
    json2.push("--json");
    assert_eq!(strip_json(&bmc(&json1).1), strip_json(&bmc(&json2).1));
    let mut herd1 = single.clone();
    herd1.push("--herd-log");
    let mut herd2 = merge.clone();
    herd2.push("--herd");
    let (h1, h2) = (bmc(&herd1).1, bmc(&herd2).1);
    assert_eq!(strip_times(&h1), strip_times(&h2));
    assert!(h1.contains("\nHash="), "{h1}");
    // --expect on the merged records gives the single run's comparison.
    if let Some(tsv) = common::corpus("litmus/EXPECTED.tsv") {
        let tsv = p(&tsv);
        let mut e1: Vec<&str> = single.iter().copied().filter(|a| *a != "-q").collect();
        e1.extend(["--expect", &tsv]);
        let mut e2 = merge.clone();
        e2.extend(["--expect", &tsv]);
        let ((c1, o1, s1), (c2, o2, s2)) = (bmc(&e1), bmc(&e2));
        assert_eq!(c1, c2);
        assert_eq!(strip_times(&o1), strip_times(&o2));
        let expect_line = |s: &str| {
            s.lines()
                .find(|l| l.starts_with("expect: "))
                .map(str::to_string)
        };
        assert_eq!(expect_line(&s1), expect_line(&s2));
        assert!(expect_line(&s1).is_some(), "{s1}");
    }
}

/// Runs the 4 shards of `args` (without the `--shard`/`--jsonl` options)
/// in turn, writing `dir/o.{i}.jsonl`.
fn shards(dir: &Path, args: &[&str]) -> Vec<String> {
    (1..=4)
        .map(|i| {
            let out = format!("{}/o.{i}.jsonl", dir.display());
            let spec = format!("{i}/4");
            let mut a = args.to_vec();
            a.extend(["-q", "--shard", &spec, "--jsonl", &out]);
            let (code, _, err) = bmc(&a);
            assert!(code != 2 || err.contains("error"), "{err}");
            out
        })
        .collect()
}

#[test]
fn every_batch_command_merges_to_its_single_process_output() {
    let d = tempfile::tempdir().unwrap();
    let cases: [&[&str]; 8] = [
        &["litmus", "-m", "tso", "tests/litmus"],
        &["reach", "examples"],
        &[
            "robust",
            "--engine",
            "explicit",
            "examples/sb.rmm",
            "examples/mp.rmm",
            "examples/lb.rmm",
            "examples/dekker.rmm",
        ],
        &[
            "diff",
            "--models",
            "sc,tso",
            "tests/litmus",
            "examples/sb.rmm",
            "examples/mp.rmm",
        ],
        &[
            "crosscheck",
            "examples/sb.rmm",
            "examples/mp.rmm",
            "examples/lb.rmm",
            "examples/iriw.rmm",
        ],
        &[
            "reach",
            "--engine",
            "lazy",
            "examples/lazy/loop2.rmm",
            "examples/lazy/loop4.rmm",
            "examples/lazy/dekker_diamond2.rmm",
            "examples/lazy/lamport2.rmm",
        ],
        &[
            "reach",
            "--engine",
            "smc",
            "-m",
            "pso",
            "examples/sb.rmm",
            "examples/mp.rmm",
            "examples/lb.rmm",
            "examples/dekker.rmm",
        ],
        &[
            "crosscheck",
            "--reach",
            "--bound",
            "8",
            "examples/lazy/loop2.rmm",
            "examples/lazy/dekker_diamond1.rmm",
            "examples/lazy/dekker_diamond2.rmm",
        ],
    ];
    for (n, args) in cases.iter().enumerate() {
        let sub = d.path().join(n.to_string());
        std::fs::create_dir(&sub).unwrap();
        let outs = shards(&sub, args);
        let mut single = args.to_vec();
        single.extend(["-q", "--json"]);
        let (c1, j1, _) = bmc(&single);
        let mut merge = vec!["merge", "--json"];
        merge.extend(outs.iter().map(String::as_str));
        let (c2, j2, e2) = bmc(&merge);
        assert_eq!(c1, c2, "{args:?}: {e2}");
        assert_eq!(strip_json(&j1), strip_json(&j2), "{args:?}");
        if args[0] == "diff" || (args[0] == "reach" && !args.contains(&"--engine")) {
            // Text output equals too (no times in these).
            let mut single = args.to_vec();
            single.push("-q");
            let t1 = bmc(&single).1;
            let t2 = bmc(&merge[..1]
                .iter()
                .chain(&merge[2..])
                .copied()
                .collect::<Vec<_>>())
            .1;
            assert_eq!(t1, t2, "{args:?}");
        }
    }
}

#[test]
fn merge_refuses_missing_shards_missing_inputs_and_duplicates() {
    let d = tempfile::tempdir().unwrap();
    let outs = shards(d.path(), &["litmus", "tests/litmus"]);
    let merge = |files: &[&str]| {
        let mut a = vec!["merge"];
        a.extend(files);
        bmc(&a)
    };
    let all: Vec<&str> = outs.iter().map(String::as_str).collect();
    assert_eq!(merge(&all).0, 0);
    // A missing shard.
    let (code, _, err) = merge(&[all[0], all[1], all[3]]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("missing shard 3/4"), "{err}");
    // A duplicated input: a record of shard 1 also in shard 2's file.
    let one = std::fs::read_to_string(all[0]).unwrap();
    let rec = one
        .lines()
        .find(|l| l.contains("\"kind\":\"result\""))
        .unwrap();
    let name = serde_json::from_str::<serde_json::Value>(rec).unwrap()["input"]
        .as_str()
        .unwrap()
        .to_string();
    let dup = d.path().join("dup.jsonl");
    let two = std::fs::read_to_string(all[1]).unwrap();
    std::fs::write(&dup, format!("{two}{rec}\n")).unwrap();
    let dup = p(&dup);
    let (code, _, err) = merge(&[all[0], &dup, all[2], all[3]]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains(&format!("duplicated input {name}")), "{err}");
    // A missing input: shard 1 without its first record.
    let cut = d.path().join("cut.jsonl");
    std::fs::write(&cut, one.replacen(&format!("{rec}\n"), "", 1)).unwrap();
    let cut = p(&cut);
    let (code, _, err) = merge(&[&cut, all[1], all[2], all[3]]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(&format!("missing input {name} (shard 1/4)")),
        "{err}"
    );
    // Shards of another run (another shard count).
    let other = d.path().join("other.jsonl");
    let (c, _, e) = bmc(&[
        "litmus",
        "-q",
        "--shard",
        "1/3",
        "--jsonl",
        &p(&other),
        "tests/litmus",
    ]);
    assert_eq!(c, 0, "{e}");
    let (code, _, err) = merge(&[all[0], all[1], all[2], all[3], &p(&other)]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("not shards of one run"), "{err}");
    // A file that is not a record file, and a missing one.
    let junk = d.path().join("junk.jsonl");
    std::fs::write(&junk, "{\"kind\":\"shard\"}\n").unwrap();
    let (code, _, err) = merge(&[&p(&junk)]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("junk.jsonl:1:1") && err.contains("not a bmc-rmm record line"),
        "{err}"
    );
    let (code, _, err) = merge(&["/nonexistent/o.jsonl"]);
    assert_eq!(code, 2, "{err}");
    // Bad options.
    for bad in [
        vec!["litmus", "--shard", "5/4", "tests/litmus"],
        vec!["litmus", "--shard", "0/4", "tests/litmus"],
        vec!["litmus", "--resume", "tests/litmus"],
        vec![
            "litmus",
            "--jsonl",
            "/nonexistent/dir/o.jsonl",
            "tests/litmus",
        ],
        vec![
            "diff",
            "--models",
            "sc,tso",
            "--jsonl",
            "/nonexistent/dir/o.jsonl",
            "examples/sb.rmm",
        ],
        vec![
            "litmus",
            "--jsonl",
            "o.jsonl",
            "tests/litmus/X86-SB.litmus",
            "tests/litmus/X86-SB.litmus",
        ],
    ] {
        let (code, _, err) = bmc(&bad);
        assert_eq!(code, 2, "{bad:?}: {err}");
    }
    // --resume on a file of another shard.
    let (code, _, err) = bmc(&[
        "litmus",
        "--shard",
        "2/4",
        "--jsonl",
        all[0],
        "--resume",
        "tests/litmus",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("remove it or drop --resume"), "{err}");
}

#[test]
fn a_killed_shard_resumed_gives_the_same_merged_result() {
    // 16 inputs of about 0.3 s each (`reach -k 150` on Peterson's
    // algorithm under TSO), one worker: slow enough to kill mid-run.
    let d = tempfile::tempdir().unwrap();
    let src = std::fs::read_to_string(Path::new(ROOT).join("examples/peterson.rmm")).unwrap();
    let inputs = d.path().join("inputs");
    std::fs::create_dir(&inputs).unwrap();
    for i in 0..16 {
        std::fs::write(inputs.join(format!("p{i:02}.rmm")), &src).unwrap();
    }
    let inp = p(&inputs);
    let base = ["reach", "-k", "150", "-j", "1", "-q"];
    let outs: Vec<PathBuf> = (1..=2)
        .map(|i| d.path().join(format!("o.{i}.jsonl")))
        .collect();
    // Shard 1 runs to the end.
    let mut a = base.to_vec();
    let o1 = p(&outs[0]);
    a.extend(["--shard", "1/2", "--jsonl", &o1, &inp]);
    assert_eq!(bmc(&a).0, 1);
    // Shard 2 is killed (SIGKILL) once it has recorded two inputs.
    let o2 = p(&outs[1]);
    let mut child = common::bin()
        .args(base)
        .args(["--shard", "2/2", "--jsonl", &o2, &inp])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while result_lines(&outs[1]) < 2 && start.elapsed() < Duration::from_secs(120) {
        std::thread::sleep(Duration::from_millis(10));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let recorded = result_lines(&outs[1]);
    let header: serde_json::Value = serde_json::from_str(
        std::fs::read_to_string(&outs[1])
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    let in_shard = header["inputs"].as_array().unwrap().len();
    assert!(recorded >= 2, "{recorded}");
    assert!(
        recorded < in_shard,
        "the shard finished before it was killed"
    );
    // Merging now fails: the killed shard's other inputs are missing.
    let (code, _, err) = bmc(&["merge", &o1, &o2]);
    assert_eq!(code, 2);
    assert!(err.contains("missing input"), "{err}");
    // A torn last line (killed while writing) is cut off by --resume.
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(&outs[1])
        .unwrap();
    std::io::Write::write_all(&mut f, b"{\"kind\":\"result\",\"ind").unwrap();
    drop(f);
    let mut a = base.to_vec();
    a.extend(["--shard", "2/2", "--jsonl", &o2, "--resume", &inp]);
    let (code, _, err) = bmc(&a);
    assert_eq!(code, 1, "{err}");
    assert_eq!(result_lines(&outs[1]), in_shard);
    // The merged report equals one process's.
    let mut single = base.to_vec();
    single.extend(["--json", &inp]);
    let (c1, j1, _) = bmc(&single);
    let (c2, j2, e2) = bmc(&["merge", "--json", &o1, &o2]);
    assert_eq!(c1, c2, "{e2}");
    assert_eq!(strip_json(&j1), strip_json(&j2));
    assert_eq!(j1.lines().count(), 16);
}
