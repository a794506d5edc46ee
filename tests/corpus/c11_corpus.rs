//! The C11 litmus tests of litmus-dat3m (`C11/`) run with herd's C11
//! macro file and its RC11 model (`c11.def`, `rc11.cat` of herd's
//! library, as herd7 `-conf cpp11.cfg -model rc11.cat`). A test is
//! answered with the expected result of EXPECTED.tsv (`expected_rc11`,
//! else `expected`: 1 when the condition holds, read off herd's
//! Observation since a data race prints `Undef` in place of `Ok`/`No`),
//! refused with one located error naming the construct (`while`, which
//! herd7 7.58 refuses too), or unknown at the timeout. Prints the
//! counts. Skips when the corpus is absent, unless `CI` is
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
    // One process for all tests (two jobs): blocks on stdout in input
    // order, refusals and unknowns on stderr, `FILE: …`.
    let files: Vec<String> = rows
        .iter()
        .map(|(rel, _)| root.join(rel).display().to_string())
        .collect();
    let (cfg_s, lib_s) = (cfg.to_string_lossy(), libdir.to_string_lossy());
    let mut args = vec![
        "litmus",
        "-j",
        "2",
        "--timeout",
        "1",
        "--conf",
        &cfg_s,
        "-I",
        &lib_s,
    ];
    args.extend(files.iter().map(String::as_str));
    let (code, out, err) = common::run(&args);
    assert!(!err.contains("panicked"), "{err}");
    assert!(matches!(code, 0 | 2 | 3), "exit {code}: {err}");
    // Each answered test's block: (name, herd's kind, Observation word).
    let mut blocks = std::collections::VecDeque::new();
    let mut kind = String::new();
    for l in out.lines() {
        let w: Vec<&str> = l.split_whitespace().collect();
        match w.as_slice() {
            ["Test", _, k] => kind = k.to_string(),
            ["Observation", name, obs, _, _] => {
                blocks.push_back((name.to_string(), kind.clone(), obs.to_string()))
            }
            _ => {}
        }
    }
    let (mut agree, mut refused, mut unknown) = (0, 0, 0);
    let mut wrong = Vec::new();
    for ((rel, want), f) in rows.iter().zip(&files) {
        let prefix = format!("{f}: ");
        match err.lines().find(|l| l.starts_with(&prefix)) {
            Some(l) if located(&l[prefix.len()..]) => refused += 1,
            Some(l) if l[prefix.len()..].starts_with("unknown: ") => unknown += 1,
            Some(l) => wrong.push(format!("{rel}: not located: {l}")),
            None => {
                let Some((name, kind, obs)) = blocks.pop_front() else {
                    wrong.push(format!("{rel}: no answer"));
                    continue;
                };
                let header = std::fs::read_to_string(f).unwrap_or_default();
                assert_eq!(header.split_whitespace().nth(1), Some(name.as_str()));
                // herd's `Undef` replaces Ok/No: the condition's truth is
                // read off the Observation and the quantifier.
                let holds = match kind.as_str() {
                    "Allowed" => obs != "Never",
                    "Forbidden" => obs == "Never",
                    _ => obs == "Always",
                };
                let holds = if holds { "1" } else { "0" };
                if want.is_empty() || holds == want {
                    agree += 1;
                } else {
                    wrong.push(format!("{rel}: condition {holds}, expected {want}"));
                }
            }
        }
    }
    eprintln!(
        "c11: {} tests, {agree} answered as expected, {refused} refused, {unknown} unknown",
        rows.len()
    );
    assert!(wrong.is_empty(), "{wrong:#?}");
    // 72 answered on the project's machine (the C11 read-modify-writes
    // included); refused: TSan's `while` and `linearisation`'s statement
    // with two loads (herd leaves them unordered in po); a margin for a
    // loaded machine.
    assert!(agree >= 70, "only {agree} answered as expected");
    assert!(refused <= 2, "{refused} refused");
}
