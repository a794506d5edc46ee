//! The Linux-kernel memory model corpus (`../shared/corpus/lkmm`): every
//! C litmus test of its EXPECTED.tsv run with `bmc-rmm litmus --conf
//! model/linux-kernel.cfg -I <herd's libdir>`. A test is answered with
//! herd7's Observation, or refused with one located error
//! (`file:line:column: error: …`) naming the construct — never answered
//! differently. Today the kernel's model files are read to their end and
//! refused at the first construct no engine evaluates yet (the bell
//! file's `RMW`, herd's set of the events of C read-modify-write
//! primitives), so every test is refused: by the C
//! front-end for what it does not read (spinlocks, SRCU, …), else by the
//! model. Skips when the corpus is
//! absent, unless `CI` is set (then it fails: `common::corpus`).

use crate::common;
use std::collections::BTreeMap;
use std::process::Command;

#[test]
fn lkmm_tests_are_refused_located_never_answered_wrongly() {
    let Some(root) = common::corpus("lkmm/EXPECTED.tsv").and(common::corpus("lkmm")) else {
        return;
    };
    let expected: BTreeMap<String, String> = std::fs::read_to_string(root.join("EXPECTED.tsv"))
        .unwrap()
        .lines()
        .skip(1)
        .filter_map(|l| {
            let mut f = l.split('\t');
            Some((f.next()?.to_string(), f.next()?.to_string()))
        })
        .collect();
    assert!(
        expected.len() > 1000,
        "EXPECTED.tsv has {} rows",
        expected.len()
    );
    let files: Vec<String> = expected
        .keys()
        .map(|rel| root.join(rel).display().to_string())
        .collect();
    let list = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(list.path(), files.join("\n")).unwrap();
    let libdir = root.join("../../tools/herd7/libdir");
    let out = Command::new(env!("CARGO_BIN_EXE_bmc-rmm"))
        .args(["litmus", "-q", "--conf"])
        .arg(root.join("model/linux-kernel.cfg"))
        .arg("-I")
        .arg(&libdir)
        .arg(format!("@{}", list.path().display()))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    // No answers yet: nothing on stdout, so nothing disagrees with herd7.
    assert!(stdout.trim().is_empty(), "unexpected answers: {stdout}");
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let located = |line: &str| {
        // `PATH:LINE:COL: error: …`
        let Some((loc, _)) = line.split_once(": error: ") else {
            return false;
        };
        let mut parts = loc.rsplitn(3, ':');
        let col = parts.next().unwrap_or("");
        let ln = parts.next().unwrap_or("");
        !col.is_empty()
            && col.bytes().all(|b| b.is_ascii_digit())
            && !ln.is_empty()
            && ln.bytes().all(|b| b.is_ascii_digit())
    };
    let mut refused = 0;
    let mut unlocated = Vec::new();
    let mut by_model = 0;
    for f in &files {
        let prefix = format!("{f}: ");
        match stderr.lines().find(|l| l.starts_with(&prefix)) {
            Some(l) if located(&l[prefix.len()..]) => {
                refused += 1;
                if l.contains("linux-kernel.bell:") {
                    // Read past the `enum`s: refused at `RMW`.
                    assert!(l.contains("linux-kernel.bell:44:17: error: `RMW`"), "{l}");
                    by_model += 1;
                }
            }
            _ => unlocated.push(f.clone()),
        }
    }
    eprintln!(
        "lkmm: 0 answered, {refused} refused ({by_model} by the model, {} by the C front-end), 0 disagree",
        refused - by_model
    );
    assert!(
        unlocated.is_empty(),
        "not refused with a located error: {unlocated:?}"
    );
    assert_eq!(refused, files.len());
    // The C front-end reads most tests; what remains is the model's.
    assert!(
        by_model > files.len() / 2,
        "{by_model} refused by the model"
    );
}
