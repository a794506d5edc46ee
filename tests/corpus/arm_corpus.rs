//! Validation of `encodings/aarch64.cat`, `encodings/riscv.cat` and
//! `encodings/sc.cat` against herd7 on the AArch64 and RISCV litmus corpus
//! (`../shared/corpus/litmus-arm`): for every test the verdict must equal
//! `EXPECTED.detail.tsv` and the set of final states the `States` of
//! `herd7-logs/<arch>.<model>.log`. Tests tagged with a feature the
//! front-end refuses (`cache/tlb`, `byte/half-access`, `mixed-width-regs`,
//! `casp`, `ldp/stp`) may instead fail with a located "unsupported …"
//! error; every other test must be answered. Skipped (with a message) when
//! the corpus is absent.

use crate::common;

use bmc_rmm::cat;
use bmc_rmm::diag::SourceFile;
use bmc_rmm::engines::bounded::Deadline;
use bmc_rmm::litmus::herd::log::{by_name, parse_log};
use bmc_rmm::litmus::run;
use bmc_rmm::program::Width;
use rayon::prelude::*;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The `features` tags whose tests may be refused.
const REFUSABLE: &[&str] = &[
    "cache/tlb",
    "byte/half-access",
    "mixed-width-regs",
    "casp",
    "ldp/stp",
];

/// Known disagreements with herd (file stems), listed with their causes
/// in docs/litmus.md ("Known mismatches with herd7"): tests the front-end
/// refuses (herd's instruction-fetch variant, a mixed-size access).
/// A test in this list that agrees, or a disagreement outside it, fails.
const KNOWN_AARCH64_ARM: &[&str] = &[];
const KNOWN_AARCH64_SC: &[&str] = &[];
const KNOWN_RISCV_RISCV: &[&str] = &[];
const KNOWN_RISCV_SC: &[&str] = &[];

fn corpus() -> Option<PathBuf> {
    common::corpus("litmus-arm/EXPECTED.detail.tsv")?;
    Some(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/litmus-arm"))
}

/// One row of `EXPECTED.detail.tsv`: (file, verdict, features).
fn rows(dir: &std::path::Path, arch: &str, herd_model: &str) -> Vec<(String, String, Vec<String>)> {
    let text = std::fs::read_to_string(dir.join("EXPECTED.detail.tsv")).expect("detail tsv");
    text.lines()
        .skip(1)
        .filter_map(|l| {
            let c: Vec<&str> = l.split('\t').collect();
            (c.len() >= 19 && c[0] == arch && c[2] == herd_model).then(|| {
                (
                    c[1].to_string(),
                    c[3].to_string(),
                    c[18].split(',').map(str::to_string).collect(),
                )
            })
        })
        .collect()
}

/// Runs every `arch` test under `model`, compares with herd's
/// `herd_model` rows and log. Returns (agreeing, refused, mismatches).
fn compare(arch: &str, model: &str, herd_model: &str) -> Option<(usize, usize, Vec<String>)> {
    let dir = corpus()?;
    let log = std::fs::read_to_string(dir.join(format!("herd7-logs/{arch}.{herd_model}.log")))
        .expect("herd log");
    let blocks = by_name(parse_log(&log).expect("herd log parses"));
    let rows = rows(&dir, arch, herd_model);
    assert!(!rows.is_empty(), "{arch} rows for {herd_model}");
    let m = cat::builtin(model).expect("built-in model");
    let results: Vec<Result<bool, String>> = rows
        .par_iter()
        .map(|(file, verdict, features)| {
            let path = dir.join(file);
            let src = SourceFile::read(path.to_str().unwrap()).map_err(|e| e.to_string())?;
            let refusable = features.iter().any(|f| REFUSABLE.contains(&f.as_str()));
            let t = match bmc_rmm::frontend::litmus::parse(&src, Width(64)) {
                Ok(t) => t,
                Err(e) => {
                    let msg = e.to_string();
                    if refusable && msg.contains("unsupported") && msg.contains(file.as_str()) {
                        return Ok(false);
                    }
                    return Err(format!("{file}: parse error {msg}"));
                }
            };
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
            .map_err(|e| format!("{file}: {e}"))?;
            let obs = r
                .observation
                .ok_or(format!("{file}: unknown ({:?})", r.unknown))?;
            let mut errs = Vec::new();
            if obs.verdict().as_str() != verdict {
                errs.push(format!(
                    "verdict {} (herd {verdict})",
                    obs.verdict().as_str()
                ));
            }
            let block = blocks
                .get(&t.name)
                .ok_or(format!("{file}: no herd block for {}", t.name))?;
            let mut ours: Vec<String> = r
                .states
                .iter()
                .map(|s| t.state_line(s).trim().to_string())
                .collect();
            let mut theirs: Vec<String> =
                block.states.iter().map(|s| s.trim().to_string()).collect();
            ours.sort();
            theirs.sort();
            if t.has_loop != block.has_loop {
                errs.push(format!("Loop {} (herd {})", t.has_loop, block.has_loop));
            }
            if ours != theirs {
                let extra: Vec<_> = ours.iter().filter(|s| !theirs.contains(s)).collect();
                let missing: Vec<_> = theirs.iter().filter(|s| !ours.contains(s)).collect();
                errs.push(format!("states: extra {extra:?}, missing {missing:?}"));
            }
            if errs.is_empty() {
                Ok(true)
            } else {
                Err(format!("{file} ({}): {}", t.name, errs.join("; ")))
            }
        })
        .collect();
    let ok = results.iter().filter(|r| matches!(r, Ok(true))).count();
    let refused = results.iter().filter(|r| matches!(r, Ok(false))).count();
    let bad = results.into_iter().filter_map(|r| r.err()).collect();
    Some((ok, refused, bad))
}

fn check(arch: &str, model: &str, herd_model: &str, known: &[&str]) {
    let Some((ok, refused, bad)) = compare(arch, model, herd_model) else {
        return;
    };
    eprintln!(
        "{arch} {model} vs herd {herd_model}: {ok} agree, {refused} refused, {} known mismatches",
        bad.len()
    );
    let stem = |m: &String| {
        let f = m.split([' ', ':']).next().unwrap_or("");
        f.rsplit('/')
            .next()
            .unwrap_or("")
            .trim_end_matches(".litmus")
            .to_string()
    };
    for m in &bad {
        eprintln!("MISMATCH {model} {m}");
    }
    let new: Vec<&String> = bad
        .iter()
        .filter(|m| !known.contains(&stem(m).as_str()))
        .collect();
    assert!(new.is_empty(), "new mismatches under {model}:\n{new:?}");
    let fixed: Vec<&&str> = known
        .iter()
        .filter(|k| !bad.iter().any(|m| stem(m) == **k))
        .collect();
    assert!(
        fixed.is_empty(),
        "listed as known but agree now (remove them): {fixed:?}"
    );
}

#[test]
fn aarch64_corpus_arm_matches_herd_aarch64_cat() {
    check("AArch64", "arm", "aarch64.cat", KNOWN_AARCH64_ARM);
}

#[test]
fn aarch64_corpus_sc_matches_herd_sc_cat() {
    check("AArch64", "sc", "sc.cat", KNOWN_AARCH64_SC);
}

#[test]
fn riscv_corpus_riscv_matches_herd_riscv_cat() {
    check("RISCV", "riscv", "riscv.cat", KNOWN_RISCV_RISCV);
}

#[test]
fn riscv_corpus_sc_matches_herd_sc_cat() {
    check("RISCV", "sc", "sc.cat", KNOWN_RISCV_SC);
}

#[test]
fn model_aliases() {
    for (a, b) in [("arm", "aarch64"), ("armv8", "aarch64"), ("rvwmo", "riscv")] {
        assert_eq!(cat::builtin(a).unwrap().name, cat::builtin(b).unwrap().name);
    }
}

/// Every corpus test the front-end reads prints in the native language
/// (`bmc-rmm parse`) and parses back to the same IR: the native syntax
/// covers Arm/RISC-V fences, annotated accesses, guards and selects.
#[test]
fn corpus_programs_round_trip_through_the_native_language() {
    let Some(dir) = corpus() else {
        return;
    };
    let (mut n, mut wide, mut unsigned) = (0, 0, 0);
    for arch in ["AArch64", "RISCV"] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join(arch))
            .expect("corpus dir")
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "litmus"))
            .collect();
        files.sort();
        for f in files {
            let src = SourceFile::read(f.to_str().unwrap()).expect("readable");
            let Ok(t) = bmc_rmm::frontend::litmus::parse(&src, Width(64)) else {
                continue;
            };
            // Constants beyond the largest --width cannot be written yet
            // (64-bit values: docs/litmus.md).
            if !Width::MAX.fits(t.program.max_abs_constant()) {
                wide += 1;
                continue;
            }
            let w = run::auto_width(&t);
            let reparse = |p: &bmc_rmm::program::Program| {
                let text = bmc_rmm::program::render::native(p);
                match bmc_rmm::frontend::native::parse(
                    &SourceFile::new("printed.rmm", text.clone()),
                    w,
                ) {
                    Ok(q) => (text, q),
                    Err(e) => panic!(
                        "{}: printed program does not parse: {e}\n{text}",
                        f.display()
                    ),
                }
            };
            let (text, q) = reparse(&t.program);
            // The parser stores constants wrapped to the width (an unsigned
            // 0xffffffff becomes -1 at 32 bits): same value, other IR. Such
            // programs must print to a fixed point.
            let expected = if t.program.max_abs_constant() > w.max() {
                unsigned += 1;
                reparse(&q).1.fingerprint()
            } else {
                t.program.fingerprint()
            };
            assert_eq!(
                expected,
                q.fingerprint(),
                "{}: round trip changed the IR:\n{text}",
                f.display()
            );
            n += 1;
        }
    }
    eprintln!(
        "{n} corpus programs round-trip ({unsigned} with unsigned constants), \
         {wide} need values wider than the largest --width"
    );
    assert!(n > 800 && wide < 10, "{n} round-trip, {wide} too wide");
}
