//! Litmus front-end tests: the corpus (when `../shared/corpus` exists)
//! parses and lowers, observed locations match herd's logs, the herd
//! printer reproduces herd's blocks, and malformed inputs give located
//! errors.

use crate::common;

use bmc_rmm::diag::{Error, SourceFile};
use bmc_rmm::frontend::litmus::LitmusTest;
use bmc_rmm::litmus::herd::{self, log, Counts};
use bmc_rmm::program::Width;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn corpus() -> Option<PathBuf> {
    common::corpus("litmus/EXPECTED.tsv")?;
    Some(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/litmus"))
}

/// Corpus tests we knowingly do not support, with a word of the expected
/// error message.
const UNSUPPORTED: [(&str, &str); 0] = [];

/// Width the corpus is read with: 64 bits, as `bmc-rmm litmus` (runs use
/// `run::auto_width`).
const W: Width = Width::MAX;

fn corpus_files(root: &Path) -> Vec<(String, String)> {
    let rows =
        log::parse_expected(&std::fs::read_to_string(root.join("EXPECTED.tsv")).unwrap()).unwrap();
    let mut seen = BTreeSet::new();
    rows.into_iter()
        .filter(|r| seen.insert(r.file.clone()))
        .map(|r| (r.arch, r.file))
        .collect()
}

fn load(root: &Path, file: &str) -> Result<LitmusTest, Error> {
    let src = SourceFile::read(root.join(file).to_str().unwrap())?;
    bmc_rmm::frontend::litmus::parse(&src, W)
}

fn render_err(e: &Error) -> String {
    match e {
        Error::Input(ie) => format!("{}: {}", ie.location(), ie.message),
        other => other.to_string(),
    }
}

#[test]
fn corpus_parses_and_lowers() {
    let Some(root) = corpus() else { return };
    let files = corpus_files(&root);
    assert_eq!(files.len(), 525 + 919 + 41);
    let mut failures = Vec::new();
    let mut ok = 0;
    for (_, f) in &files {
        let expected_fail = UNSUPPORTED.iter().find(|(n, _)| n == f);
        match (load(&root, f), expected_fail) {
            (Ok(t), None) => {
                ok += 1;
                // Each thread's last state has no outgoing instructions.
                for th in &t.program.threads {
                    let out = th.outgoing();
                    assert!(
                        out.iter().any(|o| o.is_empty()),
                        "{f}: a thread never terminates"
                    );
                }
                assert_eq!(t.program.goals.len(), 1);
            }
            (Ok(_), Some(_)) => failures.push(format!("{f}: expected an error")),
            (Err(e), Some((_, word))) => {
                let Error::Input(ie) = &e else {
                    panic!("{f}: not an input error")
                };
                assert!(ie.location().contains(f.as_str()), "{f}: {}", ie.location());
                assert!(ie.message.contains(word), "{f}: {}", ie.message);
            }
            (Err(e), None) => failures.push(render_err(&e)),
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(ok, files.len() - UNSUPPORTED.len());
}

fn log_file(arch: &str) -> [&'static str; 2] {
    match arch {
        "X86" => ["X86.x86tso.cat.log", "X86.sc.cat.log"],
        "PPC" => ["PPC.ppc.cat.log", "PPC.sc.cat.log"],
        _ => ["X86_64.x86tso-mixed.cat.log", "X86_64.sc.cat.log"],
    }
}

fn logs(root: &Path) -> BTreeMap<String, Vec<log::LogBlock>> {
    let mut m = BTreeMap::new();
    for name in [
        "X86.x86tso.cat.log",
        "X86.sc.cat.log",
        "PPC.ppc.cat.log",
        "PPC.sc.cat.log",
        "X86_64.x86tso-mixed.cat.log",
        "X86_64.sc.cat.log",
    ] {
        let text = std::fs::read_to_string(root.join("herd7-logs").join(name)).unwrap();
        m.insert(name.to_string(), log::parse_log(&text).unwrap());
    }
    m
}

fn names_of(line: &str) -> Vec<String> {
    line.split(';')
        .filter_map(|b| b.split_once('=').map(|(l, _)| l.trim().to_string()))
        .filter(|s| !s.is_empty())
        .collect()
}

#[test]
fn observed_locations_match_herd() {
    let Some(root) = corpus() else { return };
    let logs = logs(&root);
    let files = corpus_files(&root);
    let mut bad = Vec::new();
    let mut checked = 0;
    for (arch, f) in &files {
        let Ok(t) = load(&root, f) else { continue };
        for lf in log_file(arch) {
            let Some(b) = logs[lf].iter().find(|b| b.name == t.name) else {
                bad.push(format!("{f}: no block named {} in {lf}", t.name));
                continue;
            };
            let Some(first) = b.states.first() else {
                continue;
            };
            let ours: Vec<String> = t.observed.iter().map(|l| l.name.clone()).collect();
            let theirs = names_of(first);
            // Same names, in the same order.
            if ours != theirs {
                bad.push(format!("{f} ({lf}): ours {ours:?} herd {theirs:?}"));
            }
            checked += 1;
        }
    }
    assert!(
        bad.is_empty(),
        "{} mismatches:\n{}",
        bad.len(),
        bad.join("\n")
    );
    assert!(checked > 2900, "{checked}");
}

#[test]
fn herd_printer_round_trips_logs() {
    let Some(root) = corpus() else { return };
    let logs = logs(&root);
    let files = corpus_files(&root);
    let mut bad = Vec::new();
    let mut checked = 0;
    for (arch, f) in &files {
        let Ok(t) = load(&root, f) else { continue };
        for lf in log_file(arch) {
            let Some(b) = logs[lf].iter().find(|b| b.name == t.name) else {
                continue;
            };
            let mut states = Vec::new();
            let mut parse_ok = true;
            for l in &b.states {
                match herd::parse_state_line(&t, l) {
                    Some(s) => states.push(s),
                    None => parse_ok = false,
                }
            }
            if !parse_ok {
                bad.push(format!("{f} ({lf}): cannot read states {:?}", b.states));
                continue;
            }
            let mut tt = t.clone();
            tt.has_loop = b.has_loop;
            let counts = Counts {
                pos: b.obs_pos,
                neg: b.obs_neg,
            };
            let out = herd::render(&tt, &states, Some(counts), 0.0);
            let ours: Vec<&str> = out.lines().collect();
            let theirs: Vec<&str> = b.lines.iter().map(String::as_str).collect();
            // Compare every line but `Time` (run time differs).
            let strip = |v: &[&str]| -> Vec<String> {
                v.iter()
                    .filter(|l| !l.starts_with("Time "))
                    .map(|s| s.to_string())
                    .collect()
            };
            if strip(&ours) != strip(&theirs) {
                bad.push(format!(
                    "{f} ({lf}):\n--- ours\n{}\n--- herd\n{}",
                    ours.join("\n"),
                    theirs.join("\n")
                ));
            }
            // Our evaluation of P agrees with herd's observation when herd
            // counted states (positive + negative = number of states).
            if (b.obs_pos + b.obs_neg) as usize == states.len() {
                let obs = herd::observe(&t, &states);
                if obs.as_str() != b.observation {
                    bad.push(format!(
                        "{f} ({lf}): observation {obs:?} vs {}",
                        b.observation
                    ));
                }
            }
            checked += 1;
        }
    }
    let n = bad.len();
    bad.truncate(15);
    assert!(n == 0, "{n} mismatches, first:\n{}", bad.join("\n"));
    assert!(checked > 2900, "{checked}");
}

#[test]
fn has_loop_matches_herd() {
    let Some(root) = corpus() else { return };
    let logs = logs(&root);
    let mut bad = Vec::new();
    for (arch, f) in corpus_files(&root) {
        let Ok(t) = load(&root, &f) else { continue };
        let b = logs[log_file(&arch)[0]]
            .iter()
            .find(|b| b.name == t.name)
            .unwrap();
        if b.has_loop != t.has_loop {
            bad.push(format!("{f}: ours {} herd {}", t.has_loop, b.has_loop));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn expected_tsv_matches_log_observations() {
    let Some(root) = corpus() else { return };
    let logs = logs(&root);
    let rows =
        log::parse_expected(&std::fs::read_to_string(root.join("EXPECTED.tsv")).unwrap()).unwrap();
    assert_eq!(rows.len(), 2 * (525 + 919 + 41));
    for r in rows {
        let lf = format!("{}.{}.log", r.arch, r.model);
        let t = load(&root, &r.file);
        let name = match &t {
            Ok(t) => t.name.clone(),
            Err(_) => continue,
        };
        let b = logs[&lf].iter().find(|b| b.name == name).unwrap();
        let obs = match b.observation.as_str() {
            "Never" => herd::Observation::Never,
            "Always" => herd::Observation::Always,
            _ => herd::Observation::Sometimes,
        };
        assert_eq!(obs.verdict().as_str(), r.verdict, "{} {}", r.file, r.model);
    }
}

/// Random local mutations of every corpus file (deterministic xorshift):
/// the parser returns Ok or a located error, never panics.
#[test]
fn corpus_mutations_never_panic() {
    let Some(root) = corpus() else { return };
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut rnd = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let toks = [
        "|",
        ";",
        "{",
        "}",
        "(*",
        "*)",
        "[",
        "]",
        "(",
        ")",
        ",",
        ":",
        "\"",
        "~",
        "0x",
        "é",
        "L0:",
        "<<",
        ">>",
        "/\\",
        "\\/",
        "=",
        "-",
        "%",
        "$",
        "\n",
        " ",
        "P9:",
        "beq L",
        "b ",
        "exists",
        "locations [",
        "",
        "99999999999999999999999",
    ];
    for (_, f) in corpus_files(&root) {
        let text = std::fs::read_to_string(root.join(&f)).unwrap();
        for _ in 0..10 {
            let mut s = text.clone();
            for _ in 0..(1 + rnd() % 3) {
                let idxs: Vec<usize> = s.char_indices().map(|(i, _)| i).collect();
                if idxs.is_empty() {
                    break;
                }
                let i = idxs[(rnd() as usize) % idxs.len()];
                let len = s[i..].chars().next().unwrap().len_utf8();
                s.replace_range(i..i + len, toks[(rnd() as usize) % toks.len()]);
            }
            let src = SourceFile::new("f.litmus", s.clone());
            let r = std::panic::catch_unwind(|| {
                bmc_rmm::frontend::litmus::parse(&src, Width::DEFAULT).is_ok()
            });
            assert!(r.is_ok(), "panic on a mutation of {f}:\n{s}");
        }
    }
}
