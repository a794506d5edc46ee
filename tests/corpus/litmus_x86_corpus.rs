//! Corpus validation of `bmc-rmm litmus` on herd's X86 tests: for every
//! test, under `tso` and `sc`, the verdict equals `EXPECTED.tsv` and the
//! set of final states equals the one in herd7's log. Rows flagged
//! `HERD-SC-RMW-QUIRK` (herd's sc.cat does not make XCHG atomic, see the
//! corpus README and docs/litmus.md) must have the same verdict and a
//! subset of herd's states. Skips when `../shared/corpus` is absent.

use crate::common;

use bmc_rmm::diag::SourceFile;
use bmc_rmm::engines::bounded::Deadline;
use bmc_rmm::litmus::herd::log::{parse_expected, parse_log};
use bmc_rmm::litmus::run;
use bmc_rmm::program::Width;
use rayon::prelude::*;
use std::collections::BTreeSet;

fn corpus() -> Option<String> {
    common::corpus("litmus")?;
    Some(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus/litmus").to_string())
}

fn quirk_files(dir: &str) -> BTreeSet<String> {
    let text = std::fs::read_to_string(format!("{dir}/EXPECTED.detail.tsv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let fi = header.iter().position(|h| *h == "features").unwrap();
    lines
        .filter(|l| l.contains("HERD-SC-RMW-QUIRK"))
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .filter(|c| c.len() > fi && c[fi].contains("HERD-SC-RMW-QUIRK"))
        .map(|c| c[1].to_string())
        .collect()
}

fn check(arch: &str, model: &str, herd_model: &str) {
    let Some(dir) = corpus() else {
        return;
    };
    let rows: Vec<_> =
        parse_expected(&std::fs::read_to_string(format!("{dir}/EXPECTED.tsv")).unwrap())
            .unwrap()
            .into_iter()
            .filter(|r| r.arch == arch && r.model == herd_model)
            .collect();
    let log = parse_log(
        &std::fs::read_to_string(format!("{dir}/herd7-logs/{arch}.{herd_model}.log")).unwrap(),
    )
    .unwrap();
    assert_eq!(rows.len(), log.len(), "log blocks follow EXPECTED rows");
    let quirks = if model == "sc" {
        quirk_files(&dir)
    } else {
        BTreeSet::new()
    };
    let m = bmc_rmm::cat::builtin(model).unwrap();
    let failures: Vec<String> = rows
        .par_iter()
        .zip(log.par_iter())
        .filter_map(|(row, block)| {
            let src = SourceFile::read(&format!("{dir}/{}", row.file)).unwrap();
            let t = match bmc_rmm::frontend::litmus::parse(&src, Width::MAX) {
                Ok(t) => t,
                Err(e) => return Some(format!("{}: does not parse: {e}", row.file)),
            };
            let r = run::run(&t, &m, 12, run::auto_width(&t), Deadline(None), bmc_rmm::engines::bounded::SolverKind::Varisat).expect("varisat");
            let ours: BTreeSet<String> = r.states.iter().map(|s| t.state_line(s)).collect();
            let theirs: BTreeSet<String> = block.states.iter().cloned().collect();
            let verdict = r.observation.map(|o| o.verdict().as_str().to_string()).unwrap_or_default();
            let quirk = quirks.contains(&row.file);
            let states_ok = if quirk { ours.is_subset(&theirs) } else { ours == theirs };
            if verdict != row.verdict || !states_ok {
                Some(format!(
                    "{} [{model}]: verdict {verdict} (expected {}), states ours-only {:?} herd-only {:?}",
                    row.file,
                    row.verdict,
                    ours.difference(&theirs).collect::<Vec<_>>(),
                    theirs.difference(&ours).collect::<Vec<_>>()
                ))
            } else {
                None
            }
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn x86_tso_matches_herd() {
    check("X86", "tso", "x86tso.cat");
}

#[test]
fn x86_sc_matches_herd() {
    check("X86", "sc", "sc.cat");
}
