//! herd's C11 read-modify-writes (`atomic_fetch_<op>_explicit`,
//! `atomic_exchange_explicit`, `atomic_compare_exchange_*`): what they
//! lower to, each kind answered under herd's `rc11.cat` as herd7 7.58
//! answers it (its States, `Ok`/`No`/`Undef`, flags and Observation,
//! recorded here), and the refusals, located.

use crate::common;
use bmc_rmm::diag::SourceFile;
use bmc_rmm::frontend::c_litmus::{parse, MacroFile};
use bmc_rmm::program::{render, ThreadId};

/// A test of one thread `P0(x, e)`, `body` its statements.
fn one(body: &str) -> String {
    format!(
        "C one\n{{ [x] = 0; [e] = 1; }}\nP0 (atomic_int* x, atomic_int* e) {{\n  {body}\n}}\nexists (x=1)\n"
    )
}

fn lower(text: &str) -> Result<bmc_rmm::frontend::c_litmus::CLitmus, bmc_rmm::diag::Error> {
    let none = MacroFile::parse(&SourceFile::new("none.def", "")).expect("macro file");
    parse(&SourceFile::new("t.litmus", text), &none)
}

/// Thread 0's rendered commands.
fn cmds(text: &str) -> Vec<String> {
    let c = lower(text).expect("parses");
    let p = &c.program;
    let t = &p.threads[0];
    t.instrs
        .iter()
        .map(|i| render::command(p, ThreadId(0), &i.cmd))
        .collect()
}

/// A fetch operation and an exchange: one atomic step, its read and write
/// tagged with the order; the fetch writes the value read `op` the
/// operand.
#[test]
fn fetch_and_exchange_are_one_atomic_step_tagged_with_their_order() {
    for (call, op) in [
        (
            "atomic_fetch_add_explicit(x, 2, memory_order_acq_rel)",
            "+ 2",
        ),
        (
            "atomic_fetch_sub_explicit(x, 2, memory_order_acq_rel)",
            "- 2",
        ),
        (
            "atomic_fetch_or_explicit(x, 2, memory_order_acq_rel)",
            "| 2",
        ),
        (
            "atomic_fetch_xor_explicit(x, 2, memory_order_acq_rel)",
            "^ 2",
        ),
        (
            "atomic_fetch_and_explicit(x, 2, memory_order_acq_rel)",
            "& 2",
        ),
        ("atomic_exchange_explicit(x, 2, memory_order_acq_rel)", ""),
    ] {
        let c = cmds(&one(&format!("int r0 = {call};")));
        let step = c
            .iter()
            .find(|s| s.starts_with("atomic"))
            .expect("an atomic step");
        assert_eq!(step.matches("tagged(acq_rel)").count(), 2, "{step}");
        assert!(
            step.contains("= mem[x];") && step.contains(" mem[x] = "),
            "{step}"
        );
        assert!(step.contains(op), "{call}: {step}");
    }
}

/// A compare-exchange: the plain read of the expected value, then the
/// success step (tagged with the success order) or the failure read
/// (tagged with the failure order) and the plain write of the value read
/// to the expected location; a strong one fails only on another value.
#[test]
fn compare_exchange_succeeds_in_one_step_or_fails_with_its_failure_order() {
    let strong = cmds(&one(
        "int r0 = atomic_compare_exchange_strong_explicit(x, e, 5, memory_order_release, memory_order_acquire);",
    ));
    let all = strong.join("\n");
    let step = strong
        .iter()
        .find(|s| s.starts_with("atomic"))
        .expect("the success step");
    assert_eq!(step.matches("tagged(rel)").count(), 2, "{step}");
    assert!(step.contains("guard"), "{step}");
    assert_eq!(all.matches("tagged(acq) ").count(), 1, "{all}");
    assert!(all.contains("mem[e] = "), "{all}");
    assert_eq!(all.matches("guard").count(), 2, "{all}");
    assert_eq!(all.matches("tagged(").count(), 3, "{all}");
    // The weak one may fail on the expected value: no guard there.
    let weak = cmds(&one(
        "int r0 = atomic_compare_exchange_weak_explicit(x, e, 5, memory_order_release, memory_order_acquire);",
    ))
    .join("\n");
    assert_eq!(weak.matches("guard").count(), 1, "{weak}");
    // Without orders: both `sc`.
    let sc = cmds(&one("int r0 = atomic_compare_exchange_strong(x, e, 5);")).join("\n");
    assert_eq!(sc.matches("tagged(sc)").count(), 3, "{sc}");
}

/// One test per kind, with herd7 7.58's answer under `rc11.cat`
/// (`herd7 -set-libdir LIBDIR -model rc11.cat T.litmus`): the sorted
/// state lines, `Ok`/`No`/`Undef`, and the Observation.
const HERD: &[(&str, &str, &[&str], &str, &str)] = &[
    (
        // A release sequence continued by another thread's fetch_add.
        "RS",
        "{ [x] = 0; [y] = 0; }\nP0 (atomic_int* x, atomic_int* y) {\n  atomic_store_explicit(x, 1, memory_order_relaxed);\n  atomic_store_explicit(y, 1, memory_order_release);\n}\nP1 (atomic_int* y) {\n  int r0 = atomic_fetch_add_explicit(y, 2, memory_order_relaxed);\n}\nP2 (atomic_int* x, atomic_int* y) {\n  int r0 = atomic_load_explicit(y, memory_order_acquire);\n  int r1 = atomic_load_explicit(x, memory_order_relaxed);\n}\nexists (2:r0=2 /\\ 2:r1=0)\n",
        &["2:r0=0; 2:r1=0;", "2:r0=0; 2:r1=1;", "2:r0=1; 2:r1=1;", "2:r0=2; 2:r1=0;", "2:r0=2; 2:r1=1;", "2:r0=3; 2:r1=1;"],
        "Ok",
        "Sometimes",
    ),
    (
        // A failed strong compare-exchange whose read acquires.
        "CASfail",
        "{ [x] = 0; [y] = 0; [e] = 0; }\nP0 (atomic_int* x, atomic_int* y) {\n  atomic_store_explicit(x, 1, memory_order_relaxed);\n  atomic_store_explicit(y, 1, memory_order_release);\n}\nP1 (atomic_int* x, atomic_int* y, atomic_int* e) {\n  int r0 = atomic_compare_exchange_strong_explicit(y, e, 2, memory_order_relaxed, memory_order_acquire);\n  int r1 = atomic_load_explicit(x, memory_order_relaxed);\n  int r2 = *e;\n}\nexists (1:r0=0 /\\ 1:r1=0 /\\ 1:r2=1)\n",
        &["1:r0=0; 1:r1=1; 1:r2=1;", "1:r0=1; 1:r1=0; 1:r2=0;", "1:r0=1; 1:r1=1; 1:r2=0;"],
        "No",
        "Never",
    ),
    (
        // A weak one may fail on the expected value.
        "CASweak",
        "{ [x] = 0; [y] = 0; [e] = 0; }\nP0 (atomic_int* x, atomic_int* y) {\n  atomic_store_explicit(x, 1, memory_order_relaxed);\n  atomic_store_explicit(y, 1, memory_order_release);\n}\nP1 (atomic_int* x, atomic_int* y, atomic_int* e) {\n  int r0 = atomic_compare_exchange_weak_explicit(y, e, 2, memory_order_relaxed, memory_order_relaxed);\n  int r1 = atomic_load_explicit(x, memory_order_relaxed);\n  int r2 = *e;\n}\nexists (1:r0=0 /\\ 1:r1=0 /\\ 1:r2=1)\n",
        &["1:r0=0; 1:r1=0; 1:r2=0;", "1:r0=0; 1:r1=0; 1:r2=1;", "1:r0=0; 1:r1=1; 1:r2=0;", "1:r0=0; 1:r1=1; 1:r2=1;", "1:r0=1; 1:r1=0; 1:r2=0;", "1:r0=1; 1:r1=1; 1:r2=0;"],
        "Ok",
        "Sometimes",
    ),
    (
        // An exchange and a weak compare-exchange of one location.
        "XCHGCAS",
        "{ [x] = 1; [e] = 1; [f] = 3; }\nP0 (atomic_int* x, atomic_int* e) {\n  int r0 = atomic_exchange_explicit(x, 3, memory_order_relaxed);\n}\nP1 (atomic_int* x, atomic_int* f) {\n  int r0 = atomic_compare_exchange_weak_explicit(x, f, 2, memory_order_relaxed, memory_order_relaxed);\n}\nlocations [x; e; f;]\nexists (0:r0=1 /\\ 1:r0=1)\n",
        &["0:r0=1; 1:r0=0; [e]=1; [f]=1; [x]=3;", "0:r0=1; 1:r0=0; [e]=1; [f]=3; [x]=3;", "0:r0=1; 1:r0=1; [e]=1; [f]=3; [x]=2;"],
        "Ok",
        "Sometimes",
    ),
    (
        // fetch_sub acquiring the flag.
        "SUB",
        "{ [x] = 0; [y] = 0; }\nP0 (atomic_int* x, atomic_int* y) {\n  atomic_store_explicit(x, 1, memory_order_relaxed);\n  atomic_store_explicit(y, 1, memory_order_release);\n}\nP1 (atomic_int* x, atomic_int* y) {\n  int r0 = atomic_fetch_sub_explicit(y, 2, memory_order_acq_rel);\n  int r1 = atomic_load_explicit(x, memory_order_relaxed);\n}\nexists (1:r0=1 /\\ 1:r1=0)\n",
        &["1:r0=0; 1:r1=0;", "1:r0=0; 1:r1=1;", "1:r0=1; 1:r1=1;"],
        "No",
        "Never",
    ),
    (
        // fetch_or's value in a later store.
        "OR",
        "{ [x] = 0; [y] = 0; }\nP0 (atomic_int* x, atomic_int* y) {\n  int r0 = atomic_fetch_or_explicit(x, 1, memory_order_relaxed);\n  atomic_store_explicit(y, r0 + 1, memory_order_release);\n}\nP1 (atomic_int* x, atomic_int* y) {\n  int r0 = atomic_load_explicit(y, memory_order_acquire);\n  atomic_store_explicit(x, r0, memory_order_relaxed);\n}\nexists (0:r0=1 /\\ 1:r0=2)\n",
        &["0:r0=0; 1:r0=0;", "0:r0=0; 1:r0=1;"],
        "No",
        "Never",
    ),
    (
        // SB with seq_cst fetch_xor.
        "XOR",
        "{ [x] = 0; [y] = 0; }\nP0 (atomic_int* x, atomic_int* y) {\n  int r1 = atomic_fetch_xor_explicit(x, 1, memory_order_seq_cst);\n  int r0 = atomic_load_explicit(y, memory_order_seq_cst);\n}\nP1 (atomic_int* x, atomic_int* y) {\n  int r1 = atomic_fetch_xor_explicit(y, 1, memory_order_seq_cst);\n  int r0 = atomic_load_explicit(x, memory_order_seq_cst);\n}\nexists (0:r0=0 /\\ 1:r0=0)\n",
        &["0:r0=0; 1:r0=1;", "0:r0=1; 1:r0=0;", "0:r0=1; 1:r0=1;"],
        "No",
        "Never",
    ),
    (
        // fetch_and publishing a non-atomic write: a data race.
        "AND",
        "{ [x] = 0; [y] = 0; }\nP0 (atomic_int* x, atomic_int* y) {\n  *x = 1;\n  int r0 = atomic_fetch_and_explicit(y, 1, memory_order_release);\n}\nP1 (atomic_int* x, atomic_int* y) {\n  int r0 = atomic_fetch_and_explicit(y, 2, memory_order_acquire);\n  int r1 = *x;\n}\nexists (1:r1=0)\n",
        &["1:r1=0;", "1:r1=1;"],
        "Undef",
        "Sometimes",
    ),
    (
        // The compare-exchange without orders (seq_cst) writes the flag.
        "SCAS",
        "{ [x] = 0; [y] = 0; [e] = 0; }\nP0 (atomic_int* x, atomic_int* y, atomic_int* e) {\n  atomic_store_explicit(x, 1, memory_order_relaxed);\n  int r0 = atomic_compare_exchange_strong(y, e, 1);\n}\nP1 (atomic_int* x, atomic_int* y) {\n  int r0 = atomic_load_explicit(y, memory_order_acquire);\n  int r1 = atomic_load_explicit(x, memory_order_relaxed);\n}\nexists (1:r0=1 /\\ 1:r1=0)\n",
        &["1:r0=0; 1:r1=0;", "1:r0=0; 1:r1=1;", "1:r0=1; 1:r1=1;"],
        "No",
        "Never",
    ),
];

/// herd's library (its `rc11.cat`), beside the corpus.
fn libdir() -> Option<std::path::PathBuf> {
    common::corpus("litmus-dat3m")?;
    let l = common::corpus("../tools/herd7/libdir")?;
    l.join("rc11.cat").exists().then_some(l)
}

#[test]
fn each_kind_is_answered_under_rc11_as_herd7() {
    let Some(lib) = libdir() else { return };
    let dir = tempfile::tempdir().expect("temp dir");
    let d = dir.path();
    let cfg = d.join("rc11.cfg");
    std::fs::write(&cfg, format!("model {}\n", lib.join("rc11.cat").display())).unwrap();
    for (name, body, states, verdict, obs) in HERD {
        let p = d.join(format!("{name}.litmus"));
        std::fs::write(&p, format!("C {name}\n{body}")).unwrap();
        let (code, out, err) = common::run(&[
            "litmus",
            "--conf",
            &cfg.to_string_lossy(),
            &p.to_string_lossy(),
        ]);
        assert_eq!(code, 0, "{name}: {out}{err}");
        let lines: Vec<&str> = out.lines().collect();
        let i = lines
            .iter()
            .position(|l| l.starts_with("States "))
            .expect(&out);
        assert_eq!(
            lines[i],
            format!("States {}", states.len()),
            "{name}: {out}"
        );
        let mut got: Vec<String> = lines[i + 1..=i + states.len()]
            .iter()
            .map(|l| l.trim().to_string())
            .collect();
        got.sort();
        assert_eq!(got, *states, "{name}: {out}");
        assert_eq!(lines[i + 1 + states.len()], *verdict, "{name}: {out}");
        assert_eq!(
            out.contains("Flag *undef*"),
            *verdict == "Undef",
            "{name}: {out}"
        );
        assert!(
            out.contains(&format!("Observation {name} {obs} ")),
            "{name}: {out}"
        );
    }
}

/// Bad arguments, an expected location another thread reaches, and a
/// model other than RC11: one located error each.
#[test]
fn bad_read_modify_writes_are_located() {
    let bad = |body: &str, col: usize, msg: &str| {
        let e = lower(&one(body)).expect_err("refused");
        let s = e.to_string();
        assert!(s.starts_with(&format!("t.litmus:4:{col}: error: ")), "{s}");
        assert!(s.contains(msg), "{s}");
        assert_eq!(e.exit_code(), 2, "{s}");
    };
    bad(
        "int r = atomic_compare_exchange_strong_explicit(x, e, 1, memory_order_relaxed);",
        11,
        "`atomic_compare_exchange_strong_explicit` takes 5 arguments, found 4",
    );
    bad(
        "int r = atomic_compare_exchange_weak_explicit(x, e, 1, memory_order_relaxed, memory_order_strong);",
        80,
        "expected a memory order",
    );
    bad(
        "int r = atomic_fetch_add_explicit(x, 1);",
        11,
        "`atomic_fetch_add_explicit` takes 3 arguments, found 2",
    );
    bad(
        "int r = atomic_compare_exchange_strong(x, x, 1);",
        11,
        "the same location as object and expected value",
    );
    bad(
        "int *p = e; int r = atomic_compare_exchange_strong(x, p, 1);",
        23,
        "an expected argument other than a parameter",
    );
    // The expected location is P1's too.
    let shared = "C s\n{ [x] = 0; [e] = 1; }\nP0 (atomic_int* x, atomic_int* e) {\n  int r = atomic_compare_exchange_strong(x, e, 1);\n}\nP1 (atomic_int* e) {\n  *e = 2;\n}\nexists (x=1)\n";
    let e = lower(shared).expect_err("refused").to_string();
    assert!(e.starts_with("t.litmus:4:11: error: "), "{e}");
    assert!(e.contains("thread P1 also reaches"), "{e}");
    // Under a model other than herd's RC11: exit status 2, located.
    let dir = tempfile::tempdir().expect("temp dir");
    let d = dir.path();
    std::fs::write(d.join("m.cat"), "C other\nacyclic po | rf as hb\n").unwrap();
    std::fs::write(d.join("m.cfg"), "model m.cat\n").unwrap();
    let p = d.join("t.litmus");
    std::fs::write(
        &p,
        one("int r = atomic_exchange_explicit(x, 1, memory_order_relaxed);"),
    )
    .unwrap();
    let (code, _, err) = common::run(&[
        "litmus",
        "--conf",
        &d.join("m.cfg").to_string_lossy(),
        &p.to_string_lossy(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("t.litmus:4:11: error: `atomic_exchange_explicit`"),
        "{err}"
    );
    assert!(err.contains("under herd's RC11 model"), "{err}");
}
