//! The C11 litmus tests of litmus-dat3m (`C11/`) run with herd's C11
//! macro file and its RC11 model (`c11.def`, `rc11.cat` of herd's
//! library, as herd7 `-conf cpp11.cfg -model rc11.cat`). A test is
//! answered with the expected result of EXPECTED.tsv (`expected_rc11`,
//! else `expected`: 1 when the condition holds), or refused with one
//! located error naming the construct (C11 atomics are not read yet).
//! Prints the counts. Skips when the corpus is absent, unless `CI` is
//! set (`common::corpus`).

use crate::common;
use crate::lkmm_corpus::located;

#[test]
fn c11_tests_are_answered_as_expected_or_refused_located() {
    let Some(root) =
        common::corpus("litmus-dat3m/EXPECTED.tsv").and(common::corpus("litmus-dat3m"))
    else {
        return;
    };
    let libdir = root.join("../../tools/herd7/libdir");
    // (file, expected: "1" the condition holds, "0" not).
    let rows: Vec<(String, String)> = std::fs::read_to_string(root.join("EXPECTED.tsv"))
        .unwrap()
        .lines()
        .skip(1)
        .filter(|l| l.starts_with("C11/"))
        .filter_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            let rc11 = f.get(2).copied().unwrap_or("");
            let exp = if rc11.is_empty() { f.get(1)? } else { &rc11 };
            Some((f[0].to_string(), exp.to_string()))
        })
        .collect();
    assert!(rows.len() >= 70, "EXPECTED.tsv has {} C11 rows", rows.len());
    let dir = tempfile::tempdir().expect("temp dir");
    let cfg = dir.path().join("rc11.cfg");
    std::fs::write(
        &cfg,
        format!(
            "macros {}\nmodel {}\n",
            libdir.join("c11.def").display(),
            libdir.join("rc11.cat").display()
        ),
    )
    .unwrap();
    let (mut agree, mut refused) = (0, 0);
    let mut wrong = Vec::new();
    for (rel, want) in &rows {
        let f = root.join(rel).display().to_string();
        let (code, out, err) = common::run(&[
            "litmus",
            "--timeout",
            "5",
            "--conf",
            &cfg.to_string_lossy(),
            "-I",
            &libdir.to_string_lossy(),
            &f,
        ]);
        assert!(!err.contains("panicked"), "{err}");
        let prefix = format!("{f}: ");
        match err.lines().find(|l| l.starts_with(&prefix)) {
            Some(l) if code == 2 && located(&l[prefix.len()..]) => refused += 1,
            Some(l) if l[prefix.len()..].starts_with("unknown: ") => {}
            Some(l) => wrong.push(format!("{rel}: not located: {l}")),
            None => {
                let holds = if out.lines().any(|l| l == "Ok") {
                    "1"
                } else {
                    "0"
                };
                if want.is_empty() || holds == want {
                    agree += 1;
                } else {
                    wrong.push(format!("{rel}: condition {holds}, expected {want}"));
                }
            }
        }
    }
    eprintln!(
        "c11: {} tests, {agree} answered as expected, {refused} refused",
        rows.len()
    );
    assert!(wrong.is_empty(), "{wrong:#?}");
}
