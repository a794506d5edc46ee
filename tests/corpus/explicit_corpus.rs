//! Compares the explicit TSO robustness checker and fence insertion with
//! the Trencher corpus (`../shared/corpus/trencher/EXPECTED.tsv`). Skipped
//! (with a message) when the corpus is absent.
//!
//! For every row with a known `robust_tso` the verdict must match; for
//! every row with a known `min_fences` the computed optimal fence set must
//! have that size, and inserting it must give a robust program. Rows with
//! `?` are reported, never failed; a per-file time limit bounds them.

use crate::common;

use bmc_rmm::diag::SourceFile;
use bmc_rmm::engines::explicit::{
    check_robustness, fence_insertion, insert_fences, FenceCosts, FenceVerdict, Limits, Options,
    Robustness, TsoEventKind, TsoWitness,
};
use bmc_rmm::frontend::trencher;
use bmc_rmm::program::Width;
use std::time::{Duration, Instant};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus/trencher");

fn opts(secs: u64) -> Options {
    Options {
        limits: Limits {
            timeout: Some(Duration::from_secs(secs)),
            max_states: Some(3_000_000),
            max_memory_bytes: Some(1 << 30),
        },
        ..Options::default()
    }
}

#[test]
fn trencher_corpus_matches_expected() {
    let Some(tsv) = common::corpus("trencher/EXPECTED.tsv") else {
        return;
    };
    let tsv = std::fs::read_to_string(tsv).unwrap();
    let mut failures = Vec::new();
    let mut checked = 0;
    for line in tsv.lines().skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        if cols.len() < 3 {
            continue;
        }
        let (file, robust, min_f) = (cols[0], cols[1], cols[2]);
        let known = robust != "?";
        let src = SourceFile::read(&format!("{DIR}/{file}")).expect("corpus file readable");
        let p = trencher::parse(&src, Width::DEFAULT).expect("corpus file parses");
        // Unknown rows get a short budget; known rows a generous one.
        let o = opts(if known && min_f != "?" { 120 } else { 10 });
        let t0 = Instant::now();
        let rep = check_robustness(&p, &o).expect("supported program");
        let got = match &rep.verdict {
            Robustness::Robust => "yes",
            Robustness::NotRobust(_) => "no",
            Robustness::Unknown(_) => "unknown",
        };
        let mut line = format!(
            "{file}: robust expected {robust} got {got} ({} attacks, {} without search, {} states, {:?})",
            rep.stats.attacks_total,
            rep.stats.answered_without_search,
            rep.stats.states_visited,
            t0.elapsed()
        );
        if let Robustness::NotRobust(w) = &rep.verdict {
            if let Err(e) = check_witness_shape(w) {
                failures.push(format!("{file}: malformed witness ({e}):\n{w}"));
            }
        }
        if known && got != robust {
            failures.push(format!("{file}: robustness expected {robust}, got {got}"));
        }
        if min_f != "?" || robust == "?" {
            let t1 = Instant::now();
            let f = fence_insertion(&p, &o, &FenceCosts::default()).expect("supported program");
            let (n, set) = match &f.verdict {
                FenceVerdict::Robust => (Some(0), vec![]),
                FenceVerdict::Fences(v) => (Some(v.len()), v.clone()),
                FenceVerdict::Unknown(_) => (None, vec![]),
            };
            line.push_str(&format!(
                "; fences expected {min_f} got {} {} (optimal: {}, {:?})",
                n.map_or("unknown".to_string(), |n| n.to_string()),
                set.iter()
                    .map(|l| l.describe(&p))
                    .collect::<Vec<_>>()
                    .join(" "),
                f.optimal,
                t1.elapsed()
            ));
            if min_f != "?" {
                let want: usize = min_f.parse().expect("min_fences is a number");
                if n != Some(want) || !f.optimal {
                    failures.push(format!(
                        "{file}: fences expected {want}, got {n:?} (optimal {})",
                        f.optimal
                    ));
                }
                if !set.is_empty() {
                    let locs: Vec<_> = set.iter().map(|l| (l.thread, l.state)).collect();
                    let q = insert_fences(&p, &locs);
                    let r = check_robustness(&q, &o).expect("supported program");
                    if r.verdict != Robustness::Robust {
                        failures.push(format!(
                            "{file}: fenced program is not robust: {:?}",
                            r.verdict
                        ));
                    }
                }
            }
        }
        eprintln!("{line}");
        checked += 1;
    }
    assert!(checked >= 39, "only {checked} rows checked");
    assert!(failures.is_empty(), "mismatches:\n{}", failures.join("\n"));
}

/// WIT-A..E shape: one delayed store `e1` of the attacker before the
/// overtaking load `e2`; after `e2` only helper events; the flush `e3` of
/// `e1` comes right after and is hb-linked to an hb-path event or to `e2`,
/// and every hb-path event is linked to an earlier event at or after `e2`.
fn check_witness_shape(w: &TsoWitness) -> Result<(), String> {
    let pos = |k: TsoEventKind| w.events.iter().position(|e| e.kind == k);
    let e1 = pos(TsoEventKind::DelayedStore).ok_or("no e1")?;
    let e2 = pos(TsoEventKind::OvertakingLoad).ok_or("no e2")?;
    let e3 = pos(TsoEventKind::DelayedFlush).ok_or("no e3")?;
    if !(e1 < e2 && e2 < e3) {
        return Err("order e1 < e2 < e3 violated".into());
    }
    for e in &w.events[e1..e2] {
        if e.thread != w.attack.thread {
            continue;
        }
        if matches!(
            e.kind,
            TsoEventKind::OvertakingLoad | TsoEventKind::DelayedFlush
        ) {
            return Err("attacker event out of place".into());
        }
    }
    let link = |i: usize| -> Result<usize, String> {
        let h = w.events[i]
            .hb
            .as_deref()
            .ok_or(format!("#{} has no hb edge", i + 1))?;
        let n: usize = h
            .split('#')
            .nth(1)
            .and_then(|x| x.split_whitespace().next())
            .and_then(|x| x.parse().ok())
            .ok_or(format!("#{}: bad hb edge {h}", i + 1))?;
        if n < e2 + 1 || n > i {
            return Err(format!("#{}: hb edge {h} points outside [e2, here)", i + 1));
        }
        Ok(n)
    };
    for (i, e) in w.events.iter().enumerate().skip(e2 + 1) {
        if i < e3 && e.thread == w.attack.thread {
            return Err(format!("#{}: attacker event after e2", i + 1));
        }
        if e.kind == TsoEventKind::HbPath {
            // An event of a lock section that joins the hb path at a
            // later event of the section (the section is one node).
            let later = (e.hb.as_deref())
                .and_then(|h| h.strip_prefix("in the section of #"))
                .and_then(|x| x.split_whitespace().next())
                .and_then(|x| x.parse::<usize>().ok());
            match later {
                Some(n) if n > i + 1 && n <= w.events.len() => {
                    let entry = &w.events[n - 1];
                    if entry.thread != e.thread || entry.kind != TsoEventKind::HbPath {
                        return Err(format!("#{}: section entry #{n} is not on the path", i + 1));
                    }
                }
                _ => {
                    link(i)?;
                }
            }
        }
    }
    link(e3)?;
    Ok(())
}

/// The reductions (restricted SC, live registers) and the search order
/// must not change any verdict: robustness with every combination agrees
/// on every corpus file decided by all of them.
#[test]
fn reductions_do_not_change_corpus_verdicts() {
    let Some(tsv) = common::corpus("trencher/EXPECTED.tsv") else {
        return;
    };
    let tsv = std::fs::read_to_string(tsv).unwrap();
    use bmc_rmm::engines::explicit::SearchOrder;
    for line in tsv.lines().skip(1) {
        let file = line.split('\t').next().unwrap_or("");
        let Ok(src) = SourceFile::read(&format!("{DIR}/{file}")) else {
            continue;
        };
        let p = trencher::parse(&src, Width::DEFAULT).expect("corpus file parses");
        let mut verdicts = Vec::new();
        for (restricted, live, order) in [
            (true, true, SearchOrder::Bfs),
            (false, false, SearchOrder::Bfs),
            (true, false, SearchOrder::Dfs),
            (false, true, SearchOrder::Dfs),
        ] {
            let o = Options {
                restricted,
                live_registers: live,
                order,
                ..opts(5)
            };
            let r = check_robustness(&p, &o).expect("supported program");
            let v = match r.verdict {
                Robustness::Robust => Some(true),
                Robustness::NotRobust(_) => Some(false),
                Robustness::Unknown(_) => None,
            };
            verdicts.push(v);
        }
        let decided: Vec<bool> = verdicts.iter().flatten().copied().collect();
        eprintln!("{file}: {verdicts:?}");
        assert!(
            decided.windows(2).all(|w| w[0] == w[1]),
            "{file}: verdicts differ across reductions: {verdicts:?}"
        );
    }
}
