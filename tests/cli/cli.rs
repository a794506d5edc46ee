//! The command line end to end: exit statuses, outputs, bad options.

use crate::common;
use common::run as bmc;

#[test]
fn default_command_runs_both_checks() {
    let (code, out, _) = bmc(&["--model", "tso", "--bound", "20", "examples/sb.rmm"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("reach [tso]: REACHABLE"), "{out}");
    assert!(out.contains("robust [tso]: NOT ROBUST"), "{out}");
    assert!(out.contains(" -fr-> "), "{out}");
    assert!(out.contains("attack: the store"), "{out}");
    let (code, out, _) = bmc(&["--model", "sc", "examples/sb.rmm"]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("unreachable") && out.contains("robust"),
        "{out}"
    );
}

#[test]
fn json_records_and_dot() {
    let dir = tempfile::tempdir().unwrap();
    let dot = dir.path().join("w.dot");
    let (code, out, _) = bmc(&[
        "robust",
        "--json",
        "--dot",
        dot.to_str().unwrap(),
        "--model",
        "tso",
        "examples/peterson.rmm",
    ]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(v["verdict"], "violation");
    assert_eq!(v["model"], "tso");
    assert_eq!(v["bound"], 20);
    assert!(v["cycle"].as_str().unwrap().contains("-po->"));
    assert!(v["witness"]["events"].as_array().unwrap().len() >= 4);
    let d = std::fs::read_to_string(dot).unwrap();
    assert!(d.starts_with("digraph") && d.contains("color=red"));
}

#[test]
fn explicit_engine_fences_and_crosscheck() {
    let dir = tempfile::tempdir().unwrap();
    let emit = dir.path().join("fenced.rmm");
    let (code, out, _) = bmc(&["robust", "--engine", "explicit", "examples/dekker.rmm"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("TSO witness for attack"), "{out}");
    let (code, out, _) = bmc(&[
        "fences",
        "--emit",
        emit.to_str().unwrap(),
        "examples/sb.rmm",
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("2 fence(s)"), "{out}");
    let (code, out, _) = bmc(&["robust", "--engine", "explicit", emit.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    let (code, out, _) = bmc(&["robust", "--engine", "sat", emit.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    let (code, out, _) = bmc(&[
        "crosscheck",
        "--bound",
        "8",
        "examples/sb.rmm",
        "examples/mp.rmm",
        "examples/sb-fenced.rmm",
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("3 file(s), 0 disagreement(s)"), "{out}");
}

#[test]
fn litmus_command_prints_herd_blocks() {
    let (code, out, err) = bmc(&["litmus", "--model", "tso", "tests/litmus"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("Test SB Allowed") || out.contains("Test SB "),
        "{out}"
    );
    assert!(out.contains("Observation"), "{out}");
    assert!(err.contains("summary:"), "{err}");
    let (code, out, _) = bmc(&["litmus", "--json", "--model", "sc", "tests/litmus"]);
    assert_eq!(code, 0);
    for l in out.lines() {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        assert!(v["verdict"].is_string() || v["error"].is_string(), "{l}");
    }
}

#[test]
fn bad_options_exit_2_with_a_message() {
    for (args, msg) in [
        (
            vec!["--model", "nosuch", "examples/sb.rmm"],
            "unknown model `nosuch`",
        ),
        (
            vec!["--bound", "0", "examples/sb.rmm"],
            "--bound must be at least 1",
        ),
        (vec!["reach"], "no input FILE"),
        (vec!["--timeout=-1", "examples/sb.rmm"], "--timeout"),
        (
            vec![
                "robust",
                "--engine",
                "explicit",
                "--model",
                "sc",
                "examples/sb.rmm",
            ],
            "TSO, PSO, RMO, Power and PGAS only",
        ),
        (vec!["reach", "no/such/file.rmm"], "No such file"),
        (vec!["--width", "0", "examples/sb.rmm"], "0"),
    ] {
        let (code, out, err) = bmc(&args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(err.contains(msg), "{args:?}: {err}");
    }
}

#[test]
fn bad_model_file_is_located() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("bad.cat");
    std::fs::write(&m, "\"bad\"\nlet x = po |\nacyclic x").unwrap();
    let (code, _, err) = bmc(&["--model-file", m.to_str().unwrap(), "examples/sb.rmm"]);
    assert_eq!(code, 2);
    assert!(err.contains("bad.cat:3:1: error"), "{err}");
    // A user's model: TSO without the mfence/implied orders.
    std::fs::write(
        &m,
        "let ppo = ([M]; po; [M]) \\ (W * R)\nacyclic ppo | rfe | co | fr as weak\n",
    )
    .unwrap();
    let (code, out, _) = bmc(&[
        "reach",
        "--model-file",
        m.to_str().unwrap(),
        "examples/sb-fenced.rmm",
    ]);
    assert_eq!(code, 1, "fences are ignored by this model: {out}");
    // A `let rec` that is not monotone has no least fixed point: it is
    // iterated as herd does (po, then the empty relation, which adds
    // nothing: `a` is empty), so this model orders nothing.
    std::fs::write(&m, "\"bad\"\nlet rec a = po \\ a\nacyclic a\n").unwrap();
    let (code, out, err) = bmc(&["--model-file", m.to_str().unwrap(), "examples/sb.rmm"]);
    assert_eq!(code, 1, "{out}{err}");
}

#[test]
fn bad_cost_file_is_located() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("costs");
    std::fs::write(&c, "t0 q0 3\nnosuch q0 1\n").unwrap();
    let (code, _, err) = bmc(&["fences", "--cost", c.to_str().unwrap(), "examples/sb.rmm"]);
    assert_eq!(code, 2);
    assert!(
        err.contains(":2:1: error: unknown thread `nosuch`"),
        "{err}"
    );
}

/// An atomic step over two locations is indivisible under every solver
/// (docs/models.md, "Atomic steps over several locations"): no other
/// thread's write comes between two of its reads, and the answer carries
/// no note about it.
#[test]
fn atomic_step_thread_steps_are_indivisible() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("two.rmm");
    let text =
        "shared x, y;\nthread a { atomic { r1 = x; y = 1; r2 = x; }; }\nthread b { x = 1; }\n\
                goal final where a.r1 == 0 && a.r2 == 1;\n";
    std::fs::write(&f, text).unwrap();
    for model in ["sc", "tso", "pso"] {
        for solver in ["varisat", "cdclt"] {
            let (code, out, err) = bmc(&[
                "reach",
                "--model",
                model,
                "--solver",
                solver,
                f.to_str().unwrap(),
            ]);
            assert_eq!(code, 0, "{model} {solver}: {out}{err}");
            assert!(!out.contains("note:"), "{out}");
        }
    }
}

/// Values out of thin air: under a model that lets two data-dependent
/// loads read each other's stores (LB+datas), the values on the cycle are
/// determined by nothing; herd keeps them symbolic (`S…`, equal to no
/// constant) where the encoding would let them take any value, so the
/// test is refused, located at an instruction of the cycle. A model that
/// forbids the cycle answers it.
#[test]
fn values_out_of_thin_air_are_refused_located() {
    let dir = tempfile::tempdir().unwrap();
    let m = dir.path().join("loc.cat");
    std::fs::write(&m, "acyclic po-loc | rf | co | fr as sc-per-location\n").unwrap();
    let t = dir.path().join("LB+datas.litmus");
    std::fs::write(
        &t,
        "AArch64 LB+datas\n{ 0:X1=x; 0:X3=y; 1:X1=y; 1:X3=x; }\n \
         P0          | P1          ;\n \
         LDR W0,[X1] | LDR W0,[X1] ;\n \
         STR W0,[X3] | STR W0,[X3] ;\n\
         exists (0:X0=42 /\\ 1:X0=42)\n",
    )
    .unwrap();
    let (code, out, err) = bmc(&[
        "litmus",
        "--model-file",
        m.to_str().unwrap(),
        t.to_str().unwrap(),
    ]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(err.contains("values out of thin air"), "{err}");
    assert!(
        err.contains("LB+datas.litmus:4:"),
        "located at a load: {err}"
    );
    let (code, out, err) = bmc(&["litmus", "--model", "aarch64", t.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("Observation LB+datas Never"), "{out}");
}
