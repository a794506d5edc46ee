//! Validation of `encodings/power.cat` and `encodings/sc.cat` against
//! herd7 on the PPC litmus corpus (`../shared/corpus/litmus`): for every
//! PPC test, the verdict must equal `EXPECTED.tsv` (herd's `ppc.cat` /
//! `sc.cat`) and the set of final states must equal the `States` of
//! `herd7-logs/PPC.<model>.log`. Skipped (with a message) when the corpus
//! is absent.

use crate::common;

use bmc_rmm::cat;
use bmc_rmm::diag::SourceFile;
use bmc_rmm::engines::bounded::Deadline;
use bmc_rmm::litmus::herd::log::{by_name, parse_expected, parse_log};
use bmc_rmm::litmus::run;
use bmc_rmm::program::Width;
use rayon::prelude::*;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// PPC corpus files the litmus front-end does not support (each gives a
/// located error; checked below).
const UNSUPPORTED: &[&str] = &[];

fn corpus() -> Option<PathBuf> {
    common::corpus("litmus/EXPECTED.tsv")?;
    Some(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/litmus"))
}

/// Runs every PPC test under `model` and compares with herd's `herd_model`
/// rows and log. Returns (agreeing tests, mismatch descriptions).
fn compare(model: &str, herd_model: &str) -> Option<(usize, Vec<String>)> {
    let dir = corpus()?;
    let expected = parse_expected(&std::fs::read_to_string(dir.join("EXPECTED.tsv")).unwrap())
        .expect("EXPECTED.tsv");
    let log = std::fs::read_to_string(dir.join(format!("herd7-logs/PPC.{herd_model}.log")))
        .expect("herd log");
    let blocks = by_name(parse_log(&log).expect("herd log parses"));
    let rows: Vec<_> = expected
        .into_iter()
        .filter(|r| r.arch == "PPC" && r.model == herd_model)
        .collect();
    assert_eq!(rows.len(), 919, "PPC rows for {herd_model}");
    let m = cat::builtin(model).expect("built-in model");
    let results: Vec<Result<(), String>> = rows
        .par_iter()
        .map(|row| {
            let path = dir.join(&row.file);
            let stem = path.file_stem().unwrap().to_string_lossy().to_string();
            let src = SourceFile::read(path.to_str().unwrap()).map_err(|e| e.to_string())?;
            let t = match bmc_rmm::frontend::litmus::parse(&src, Width::MAX) {
                Ok(t) => t,
                Err(e) if UNSUPPORTED.contains(&stem.as_str()) => {
                    let msg = e.to_string();
                    assert!(msg.contains(&row.file) || msg.contains(&stem), "{msg}");
                    return Ok(());
                }
                Err(e) => return Err(format!("{}: parse error {e}", row.file)),
            };
            if UNSUPPORTED.contains(&stem.as_str()) {
                return Err(format!("{}: listed as unsupported but parses", row.file));
            }
            let w = run::auto_width(&t);
            let deadline = Deadline(Some(Instant::now() + Duration::from_secs(60)));
            let r = run::run(
                &t,
                &m,
                12,
                w,
                deadline,
                bmc_rmm::engines::bounded::SolverKind::Varisat,
            )
            .expect("varisat");
            let obs = r
                .observation
                .ok_or(format!("{}: unknown ({:?})", row.file, r.unknown))?;
            let mut errs = Vec::new();
            if obs.verdict().as_str() != row.verdict {
                errs.push(format!(
                    "verdict {} (herd {})",
                    obs.verdict().as_str(),
                    row.verdict
                ));
            }
            let block = blocks
                .get(&t.name)
                .ok_or(format!("{}: no herd block for {}", row.file, t.name))?;
            let mut ours: Vec<String> = r.states.iter().map(|s| t.state_line(s)).collect();
            let mut theirs: Vec<String> =
                block.states.iter().map(|s| s.trim().to_string()).collect();
            ours.iter_mut().for_each(|s| *s = s.trim().to_string());
            ours.sort();
            theirs.sort();
            if ours != theirs {
                let extra: Vec<_> = ours.iter().filter(|s| !theirs.contains(s)).collect();
                let missing: Vec<_> = theirs.iter().filter(|s| !ours.contains(s)).collect();
                errs.push(format!("states: extra {extra:?}, missing {missing:?}"));
            }
            if errs.is_empty() {
                Ok(())
            } else {
                Err(format!("{} ({}): {}", row.file, t.name, errs.join("; ")))
            }
        })
        .collect();
    let ok = results.iter().filter(|r| r.is_ok()).count();
    let bad = results.into_iter().filter_map(|r| r.err()).collect();
    Some((ok, bad))
}

fn check(model: &str, herd_model: &str) {
    let Some((ok, bad)) = compare(model, herd_model) else {
        return;
    };
    eprintln!(
        "{model} vs herd {herd_model}: {ok} of 919 agree ({} unsupported)",
        UNSUPPORTED.len()
    );
    assert!(
        bad.is_empty(),
        "{} mismatches under {model}:\n{}",
        bad.len(),
        bad.join("\n")
    );
    assert_eq!(ok, 919);
}

#[test]
fn ppc_corpus_power_matches_herd_ppc_cat() {
    check("power", "ppc.cat");
}

#[test]
fn ppc_corpus_sc_matches_herd_sc_cat() {
    check("sc", "sc.cat");
}

#[test]
fn ppc_alias_is_power() {
    let a = cat::builtin("ppc").unwrap();
    let b = cat::builtin("power").unwrap();
    assert_eq!(a.name, b.name);
}
