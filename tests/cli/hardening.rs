//! The failure classes of the hardening issue, one test each, through the
//! binary: every bad input or option ends in one clear message and exit
//! 2 (or "unknown" and exit 3), never a panic, an abort or a damaged file
//! (docs/reliability.md).

use std::path::Path;
use std::process::{Command, Output};

use crate::common;

fn bmc(args: &[&str]) -> Output {
    let out = common::bin().args(args).output().expect("run bmc-rmm");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "panic on {args:?}: {err}");
    assert_ne!(out.status.code(), Some(101), "{args:?}");
    out
}

fn code(o: &Output) -> i32 {
    o.status.code().unwrap_or(-1)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// One duration parser: huge, infinite, zero and malformed timeouts are
/// usage errors on every command (they used to panic in
/// `Duration::from_secs_f64`).
#[test]
fn timeouts_out_of_range_are_usage_errors() {
    for t in [
        "1e20",
        "inf",
        "1e300",
        "18446744073709551616",
        "0",
        "NaN",
        "abc",
    ] {
        for cmd in [
            vec!["reach", "--timeout", t, "examples/sb.rmm"],
            vec!["litmus", "--timeout", t, "tests/litmus"],
            vec!["diff", "--models", "sc,tso", "--timeout", t, "examples"],
            vec![
                "robust",
                "--engine",
                "explicit",
                "--timeout",
                t,
                "examples/sb.rmm",
            ],
        ] {
            let o = bmc(&cmd);
            assert_eq!(code(&o), 2, "{cmd:?}: {}", stderr(&o));
            assert!(stderr(&o).contains("--timeout"), "{cmd:?}: {}", stderr(&o));
        }
    }
    // A large but finite timeout is accepted.
    assert_eq!(
        code(&bmc(&["reach", "--timeout", "1e6", "examples/sb.rmm"])),
        1
    );
}

/// Output files: write errors are reported (exit 2), special files are
/// written through and never replaced, symlinks stay links.
#[test]
fn output_files_are_never_clobbered() {
    if Path::new("/dev/full").exists() {
        let o = bmc(&["robust", "--write-expect", "/dev/full", "examples/sb.rmm"]);
        assert_eq!(code(&o), 2, "{}", stderr(&o));
        assert!(stderr(&o).contains("/dev/full"), "{}", stderr(&o));
        assert!(!std::fs::metadata("/dev/full").unwrap().is_file());
    }
    let d = tempfile::tempdir().unwrap();
    let target = d.path().join("target.tsv");
    std::fs::write(&target, "old").unwrap();
    #[cfg(unix)]
    {
        let link = d.path().join("link.tsv");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let o = bmc(&[
            "robust",
            "--write-expect",
            link.to_str().unwrap(),
            "examples/sb.rmm",
        ]);
        assert_eq!(code(&o), 1, "{}", stderr(&o));
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
        assert!(std::fs::read_to_string(&target)
            .unwrap()
            .contains("not-robust"));
    }
    // No temporary file is left in the directory.
    for e in std::fs::read_dir(d.path()).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        assert!(!name.ends_with(".tmp"), "stray {name}");
    }
}

/// `--dot FILE` without a subcommand writes one file per check instead
/// of overwriting the reach witness with the robust one; with the
/// explicit engine it is a usage error, not silently ignored.
#[test]
fn dot_files_are_not_overwritten_or_ignored() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("sb.dot");
    let o = bmc(&["--dot", f.to_str().unwrap(), "examples/sb.rmm"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    for check in ["reach", "robust"] {
        let p = d.path().join(format!("sb.{check}.dot"));
        let text = std::fs::read_to_string(&p).unwrap_or_default();
        assert!(text.starts_with("digraph"), "{}", p.display());
    }
    let o = bmc(&[
        "robust",
        "--engine",
        "explicit",
        "--dot",
        f.to_str().unwrap(),
        "examples/sb.rmm",
    ]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("--dot"), "{}", stderr(&o));
}

/// Options may precede the subcommand; a mistyped subcommand gets a
/// suggestion instead of "no such file".
#[test]
fn subcommands_after_options_and_typos() {
    let o = bmc(&["--json", "--model", "sc", "reach", "examples/sb.rmm"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let rec: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(rec["check"], "reach");
    assert_eq!(rec["model"], "sc");
    let o = bmc(&["robst", "examples/sb.rmm"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("robust"), "{}", stderr(&o));
}

/// `crosscheck --json` prints JSON; unknown answers give exit 3.
#[test]
fn crosscheck_json_and_unknown_exit() {
    let o = bmc(&["crosscheck", "--json", "--bound", "6", "examples/sb.rmm"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let rec: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(rec["agree"], "yes");
    assert_eq!(rec["explicit"], "violation");
    let o = bmc(&[
        "crosscheck",
        "--timeout",
        "0.000001",
        "--bound",
        "20",
        "examples/dekker.rmm",
    ]);
    assert_eq!(code(&o), 3, "{}", stdout(&o));
}

/// One rendering per error, and a long line is clipped.
#[test]
fn errors_are_printed_once_and_clipped() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("long.rmm");
    let mut text = String::from("shared x;\nthread t { ");
    for _ in 0..20_000 {
        text.push_str("x = 1; ");
    }
    text.push_str("x = ; }\n");
    std::fs::write(&f, text).unwrap();
    let o = bmc(&["parse", f.to_str().unwrap()]);
    assert_eq!(code(&o), 2);
    let err = stderr(&o);
    assert_eq!(err.matches("expected an expression").count(), 1, "{err}");
    assert!(err.len() < 1000, "{} bytes", err.len());
    assert!(err.lines().next().unwrap().contains("long.rmm:2:"), "{err}");
}

/// `--model` and `--model-file` together are a usage error.
#[test]
fn model_and_model_file_conflict() {
    let o = bmc(&[
        "--model",
        "sc",
        "--model-file",
        "encodings/tso.cat",
        "examples/sb.rmm",
    ]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("--model-file"), "{}", stderr(&o));
}

/// A list file that includes itself is a located error, not a stack
/// overflow.
#[test]
fn self_including_list_is_located() {
    let d = tempfile::tempdir().unwrap();
    let l = d.path().join("self.lst");
    std::fs::write(&l, "@self.lst\n").unwrap();
    let o = bmc(&["litmus", &format!("@{}", l.display())]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("self.lst:1:1: error:"),
        "{}",
        stderr(&o)
    );
}

/// Parsing is linear in the number of threads (200,000 threads parse in
/// well under the time the old quadratic lookup needed for 40,000).
#[test]
fn many_threads_parse() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("many.rmm");
    let mut text = String::from("shared x;\n");
    for i in 0..100_000 {
        text.push_str(&format!("thread t{i} {{ x = 1; }}\n"));
    }
    std::fs::write(&f, text).unwrap();
    let o = bmc(&["parse", "--json", f.to_str().unwrap()]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let rec: serde_json::Value = serde_json::from_str(stdout(&o).trim()).unwrap();
    assert_eq!(rec["threads"], 100_000);
}

/// `--expect` matches rows by path: an X86_64 test is not compared with
/// the X86 row of the same name.
#[test]
fn expectations_match_by_path() {
    let c = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/litmus");
    if common::corpus("litmus/EXPECTED.tsv").is_none() {
        return;
    }
    let exp = c.join("EXPECTED.tsv");
    let o = bmc(&[
        "litmus",
        "-q",
        "--model",
        "tso",
        "--expect",
        exp.to_str().unwrap(),
        c.join("X86_64").to_str().unwrap(),
    ]);
    let err = stderr(&o);
    assert!(err.contains(" 0 mismatches"), "{err}");
    assert!(err.contains("0 without expectation"), "{err}");
}

/// Deeply nested litmus conditions are located errors; long flat chains
/// of `\/` are fine (they used to overflow the stack).
#[test]
fn litmus_conditions_never_overflow() {
    let hdr = "X86 T\n{ x=0; y=0; }\n P0          | P1          ;\n MOV [x],$1  | MOV [y],$1  ;\n MOV EAX,[y] | MOV EAX,[x] ;\n";
    let d = tempfile::tempdir().unwrap();
    let cases = [
        (
            "paren",
            format!("exists {}0:EAX=0{}\n", "(".repeat(3000), ")".repeat(3000)),
            2,
        ),
        (
            "not",
            format!("exists ({}0:EAX=0)\n", "~".repeat(100_000)),
            2,
        ),
        (
            "or",
            format!("exists ({})\n", vec!["0:EAX=0"; 10_000].join(" \\/ ")),
            0,
        ),
    ];
    for (name, cond, want) in cases {
        let f = d.path().join(format!("{name}.litmus"));
        std::fs::write(&f, format!("{hdr}{cond}")).unwrap();
        let o = bmc(&["parse", f.to_str().unwrap()]);
        assert_eq!(code(&o), want, "{name}: {}", stderr(&o));
        if want == 2 {
            assert!(stderr(&o).contains("nested more than"), "{}", stderr(&o));
            assert!(
                stderr(&o).contains(&format!("{name}.litmus:6:")),
                "{}",
                stderr(&o)
            );
        }
    }
}

/// Models: non-ASCII text after a symbol, very long operator chains and
/// definition chains are located errors, not panics or stack overflows.
#[test]
fn cat_models_never_crash() {
    let d = tempfile::tempdir().unwrap();
    let chain = |op: &str| format!("acyclic {}\n", vec!["po"; 20_000].join(op));
    let mut lets = String::from("let a0 = po\n");
    for i in 1..5000 {
        lets.push_str(&format!("let a{i} = a{} | po\n", i - 1));
    }
    lets.push_str("acyclic a4999\n");
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "utf8",
            b"acyclic po\n\xf0\x9f\x98\x80\n".to_vec(),
            "unexpected character",
        ),
        ("union", chain(" | ").into_bytes(), "nested too deeply"),
        ("seq", chain(" ; ").into_bytes(), "nested too deeply"),
        (
            "inverse",
            format!("acyclic po{}\n", "^-1".repeat(20_000)).into_bytes(),
            "nested too deeply",
        ),
        ("lets", lets.into_bytes(), "nested too deeply"),
    ];
    for (name, text, msg) in cases {
        let f = d.path().join(format!("{name}.cat"));
        std::fs::write(&f, text).unwrap();
        let o = bmc(&[
            "reach",
            "--model-file",
            f.to_str().unwrap(),
            "examples/sb.rmm",
        ]);
        assert_eq!(code(&o), 2, "{name}: {}", stderr(&o));
        assert!(stderr(&o).contains(msg), "{name}: {}", stderr(&o));
        assert!(
            stderr(&o).starts_with(&format!("{}:", f.display())),
            "{name}: {}",
            stderr(&o)
        );
    }
}

/// A program with `n` threads that each store to one variable: its
/// encoding grows with the square of `n` (every pair of writes may be
/// co-related).
fn many_writers(dir: &Path, n: usize) -> String {
    let f = dir.join(format!("writers{n}.rmm"));
    let mut text = String::from("shared x;\n");
    for i in 0..n {
        text.push_str(&format!("thread t{i} {{ x = 1; }}\n"));
    }
    std::fs::write(&f, text).unwrap();
    f.to_string_lossy().into_owned()
}

/// Resource limits end in "unknown" and exit 3, also while encoding: a
/// memory budget (`--memory`), the address-space limit (`ulimit -v`,
/// which used to abort with "memory allocation failed"), and a timeout
/// that used to be checked only once the encoding was done.
#[test]
fn resource_limits_answer_unknown() {
    let d = tempfile::tempdir().unwrap();
    let f = many_writers(d.path(), 3000);
    // The default solver would first ask the explicit engine, which
    // proves this load-free program robust at once (tests/tso_witness.rs);
    // the limits here are those of the bounded encoding.
    let o = bmc(&["robust", "--solver", "varisat", "--memory", "64", &f]);
    assert_eq!(code(&o), 3, "{}", stdout(&o));
    assert!(
        stdout(&o).contains("memory limit reached"),
        "{}",
        stdout(&o)
    );
    let o = bmc(&["robust", "--solver", "varisat", "--timeout", "0.5", &f]);
    assert_eq!(code(&o), 3, "{}", stdout(&o));
    assert!(stdout(&o).contains("time limit reached"), "{}", stdout(&o));
    #[cfg(target_os = "linux")]
    {
        // Under an address-space limit the default budget (a third of
        // what the limit leaves beyond the process's own mappings) stops
        // the check before an allocation can fail (800 MB: with half of
        // the limit as the budget, a growing table aborted the process).
        let f = many_writers(d.path(), 6000);
        let out = Command::new("sh")
            .arg("-c")
            .arg("ulimit -v 800000 && exec \"$0\" robust --solver varisat \"$1\"")
            .arg(common::bin_path())
            .arg(&f)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            out.status.code(),
            Some(3),
            "{text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(text.contains("memory limit reached"), "{text}");
    }
}

/// A program whose `reach` is one hard unsatisfiable SAT solve and an
/// encoding of milliseconds: two `bits`-bit numbers, each built by one
/// `choose` per bit, whose product is a prime without either being 1 (a
/// multiplier circuit proved to have no such inputs). Check it with
/// `--width 48 --bound 100`.
fn hard_solve(dir: &Path, name: &str, bits: u32) -> String {
    let is_prime = |n: u64| {
        n > 1
            && (2..)
                .take_while(|d| d * d <= n)
                .all(|d| !n.is_multiple_of(d))
    };
    // A prime whose factors would both have `bits` bits.
    let p = (1u64 << (2 * bits - 2)..).find(|&n| is_prime(n)).unwrap();
    let mut text = String::from("thread t0 {\n  a = 0;\n  b = 0;\n");
    for v in ["a", "b"] {
        for _ in 0..bits {
            text.push_str(&format!(
                "  choose {{ {v} = {v} * 2; }} or {{ {v} = {v} * 2 + 1; }}\n"
            ));
        }
    }
    text.push_str(&format!(
        "  c = a * b;\n}}\ngoal final where t0.c == {p} && t0.a != 1 && t0.b != 1;\n"
    ));
    let f = dir.join(name);
    std::fs::write(&f, text).unwrap();
    f.to_string_lossy().into_owned()
}

/// Runs `cmd` (a shell command; `$0` is the binary) and returns its exit
/// status, stdout, wall seconds and the CPU seconds (user + system) of
/// the binary and all its threads (the shell's `times`: its children's
/// times).
#[cfg(target_os = "linux")]
fn timed_shell(cmd: &str, args: &[String]) -> (i32, String, f64, f64) {
    let t0 = std::time::Instant::now();
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("{cmd}\ns=$?\ntimes >&2\nexit $s"))
        .arg(common::bin_path())
        .args(args)
        .current_dir(common::ROOT)
        .output()
        .unwrap();
    let wall = t0.elapsed().as_secs_f64();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!err.contains("panicked"), "{err}");
    // The last line: children's user and system time, `0m1.230000s 0m0.010000s`.
    let cpu: f64 = (err.lines().last().unwrap_or(""))
        .split_whitespace()
        .map(|t| {
            let (m, s) = t.trim_end_matches('s').split_once('m').unwrap();
            m.parse::<f64>().unwrap() * 60.0 + s.parse::<f64>().unwrap()
        })
        .sum();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    (out.status.code().unwrap_or(-1), text, wall, cpu)
}

/// A solve stopped by `--timeout` stops working, not only answering: a
/// batch of inputs that each time out inside one SAT solve ends with
/// every answer "unknown: time limit reached", each within its limit and
/// no solver left running (CPU time at most what `-j` threads can use,
/// with a margin; a solve left running once took a core per input), also
/// under an address-space limit (no abort).
#[cfg(target_os = "linux")]
#[test]
fn timed_out_solves_stop() {
    let d = tempfile::tempdir().unwrap();
    let files: Vec<String> = (0..6)
        .map(|i| hard_solve(d.path(), &format!("hard{i}.rmm"), 20))
        .collect();
    let check =
        "exec_check() { \"$0\" reach --solver varisat --model sc --width 48 --bound 100 \"$@\"; }";
    for (jobs, ratio, ulimit) in [
        ("2", 2.5, ""),
        ("1", 1.6, ""),
        ("2", 2.5, "ulimit -v 4194304 && "),
    ] {
        let cmd = format!("{check}\n{ulimit}exec_check --timeout 1 -j {jobs} \"$@\"");
        let (code, text, wall, cpu) = timed_shell(&cmd, &files);
        assert_eq!(code, 3, "-j {jobs} {ulimit}: {text}");
        assert_eq!(
            text.matches("unknown: time limit reached").count(),
            files.len(),
            "{text}"
        );
        // 6 answers of 1 s on `jobs` threads; generous for a loaded machine.
        let jobs: f64 = jobs.parse().unwrap();
        assert!(wall < 6.0 / jobs + 8.0, "-j {jobs}: {wall:.2} s");
        assert!(
            cpu <= ratio * wall + 0.5,
            "-j {jobs} {ulimit}: {cpu:.2} s CPU in {wall:.2} s"
        );
    }
    // One input: the answer arrives within the limit and a margin.
    let (code, text, wall, _) = timed_shell(
        &format!("{check}\nexec_check --timeout 1 \"$1\""),
        &files[..1],
    );
    assert_eq!(code, 3, "{text}");
    assert!(text.contains("unknown: time limit reached"), "{text}");
    assert!(wall < 3.0, "{wall:.2} s");
}

/// A program of many threads (each stores its variable and reads the
/// next thread's): work that grows with the threads before or between the
/// engines' periodic checks of the limit (the explicit TSO engine's 300
/// attack searches, the normal-form engine's profiles, the k-round
/// translation's liveness and its SC search, the P' encoding of
/// `crosscheck --reach`) once ran 40-60 s past `--timeout 1` and took up
/// to 14 GB, and under `ulimit -v` the k-round search aborted. Each
/// answer is "unknown" (exit 3) within the limit and a margin generous
/// for a loaded machine.
#[test]
fn many_threads_stop_at_the_time_limit() {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("many.rmm");
    let n = 300;
    let mut text = format!(
        "shared {};\n",
        (0..n)
            .map(|i| format!("x{i}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    for i in 0..n {
        text += &format!("thread t{i} {{ x{i} = 1; r0 = x{}; }}\n", (i + 1) % n);
    }
    text += "goal final where t0.r0 == 7;\n";
    std::fs::write(&f, text).unwrap();
    let f = f.to_string_lossy().into_owned();
    for (args, limit) in [
        ("robust --engine explicit --model tso", 6.0),
        ("robust --engine normal-form --model pso", 6.0),
        ("reach --engine kround", 6.0),
        // Six engines, each with its own limit.
        ("crosscheck --reach", 6.0 * 4.0),
    ] {
        let cmd = format!("\"$0\" {args} --timeout 1 \"$1\"");
        let (code, out, wall, _) = timed_shell(&cmd, std::slice::from_ref(&f));
        assert_eq!(code, 3, "{args}: {out}");
        assert!(out.contains("unknown"), "{args}: {out}");
        assert!(wall < limit, "{args}: {wall:.2} s");
    }
    // One thread of 5,000 stores and loads: 25 million attacks, each once
    // sorted out by two reachability passes over the whole thread
    // (minutes); now one pass per store, the limits checked between.
    let long = d.path().join("long.rmm");
    let mut text = "shared x;\nthread t0 {\n".to_string();
    for i in 0..5000 {
        text += &format!("  x = {}; r0 = x;\n", i % 7);
    }
    text += "}\nthread t1 { x = 9; }\n";
    std::fs::write(&long, text).unwrap();
    let long = long.to_string_lossy().into_owned();
    for args in [
        "robust --engine explicit --model tso",
        "robust --parameterized",
    ] {
        let cmd = format!("\"$0\" {args} --timeout 1 \"$1\"");
        let (code, out, wall, _) = timed_shell(&cmd, std::slice::from_ref(&long));
        assert_eq!(code, 3, "{args}: {out}");
        assert!(wall < 8.0, "{args}: {wall:.2} s");
    }
    // Under an address-space limit the k-round engine's SC search (states
    // of megabytes, a successor per thread) stops at the memory budget:
    // "unknown", exit 3, not an allocation failure (SIGABRT).
    let cmd = "ulimit -v 2097152 && \"$0\" reach --engine kround --timeout 20 \"$1\"";
    let (code, out, _, _) = timed_shell(cmd, std::slice::from_ref(&f));
    assert_eq!(code, 3, "{out}");
    assert!(out.contains("unknown: memory limit"), "{out}");
}

/// The memory budget stops a SAT solve of a query with a time limit that
/// outgrows it (not only the encoding): "unknown: memory limit reached",
/// exit 3 (the solve's learned clauses pass 16 MB after a few seconds).
#[test]
fn memory_budget_stops_a_solve() {
    let d = tempfile::tempdir().unwrap();
    let f = hard_solve(d.path(), "hard.rmm", 20);
    let o = bmc(&[
        "reach",
        "--solver",
        "varisat",
        "--model",
        "sc",
        "--width",
        "48",
        "--bound",
        "100",
        "--memory",
        "16",
        "--timeout",
        "300",
        &f,
    ]);
    assert_eq!(code(&o), 3, "{}{}", stdout(&o), stderr(&o));
    assert!(
        stdout(&o).contains("memory limit reached"),
        "{}",
        stdout(&o)
    );
}

/// A fence the model gives no meaning to is reported once per program
/// (under power, `mfence` orders nothing; under tso it is a fence).
#[test]
fn ignored_fences_are_reported() {
    let o = bmc(&["--model", "power", "--bound", "6", "examples/sb-fenced.rmm"]);
    let err = stderr(&o);
    assert_eq!(err.matches("warning:").count(), 1, "{err}");
    assert!(
        err.contains("`mfence`") && err.contains("orders nothing"),
        "{err}"
    );
    let o = bmc(&["--model", "tso", "--bound", "6", "examples/sb-fenced.rmm"]);
    assert!(!stderr(&o).contains("warning"), "{}", stderr(&o));
}

/// A reader that goes away (`bmc-rmm … | head -1`): the process ends by
/// SIGPIPE as Unix tools do, never with a panic about a failed write.
#[test]
fn closed_stdout_ends_quietly() {
    use std::process::Stdio;
    let mut child = common::bin()
        .args([
            "litmus",
            "-q",
            "tests/litmus",
            "tests/litmus",
            "tests/litmus",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run bmc-rmm");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("wait for bmc-rmm");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_ne!(out.status.code(), Some(101), "{err}");
}
