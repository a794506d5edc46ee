//! The SV-COMP concurrency tasks of `../shared/corpus/svcomp`
//! (`TASKS.tsv`): every task's `.i` input is read as C by its extension
//! and parses and lowers (`bmc-rmm parse --width 32 --unwind 2`, the tasks' ILP32
//! `int`). Skips when the corpus is absent, except under CI (`CI` set),
//! where a missing corpus is a failure (`common::corpus`).

use crate::common;
use std::process::Command;

#[test]
fn every_svcomp_task_parses() {
    let Some(tsv) = common::corpus("svcomp/TASKS.tsv") else {
        return;
    };
    let dir = tsv.parent().expect("TASKS.tsv is in the corpus folder");
    let tasks = std::fs::read_to_string(&tsv).expect("TASKS.tsv readable");
    let mut inputs: Vec<String> = tasks
        .lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f.len() > 2).then(|| format!("{}/{}", f[0], f[2]))
        })
        .collect();
    inputs.sort();
    inputs.dedup();
    assert!(
        inputs.len() >= 40,
        "TASKS.tsv lists {} inputs",
        inputs.len()
    );
    let mut bad = Vec::new();
    for input in &inputs {
        let out = Command::new(env!("CARGO_BIN_EXE_bmc-rmm"))
            .args(["parse", "--width", "32", "--unwind", "2"])
            .arg(dir.join(input))
            .output()
            .expect("run bmc-rmm");
        if !out.status.success() {
            bad.push(format!(
                "{input}: exit {:?}: {}",
                out.status.code(),
                String::from_utf8_lossy(&out.stderr)
                    .lines()
                    .next()
                    .unwrap_or("")
            ));
        }
    }
    assert!(
        bad.is_empty(),
        "{} of {} tasks do not parse:\n{}",
        bad.len(),
        inputs.len(),
        bad.join("\n")
    );
}
