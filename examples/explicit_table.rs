//! Runs the explicit TSO robustness checker and fence insertion on every
//! Trencher corpus file and prints a table (docs/explicit.md).
//!
//! Usage: `cargo run --release --example explicit_table [CORPUS_DIR] [RUNS] [TIMEOUT_S]`
//! (defaults: `../shared/corpus/trencher`, 3 runs, 60 s per file and run).
//! `EXPLICIT_REDUCTIONS=none|restricted|live|all` (default `all`) selects
//! Trencher's reductions (§7.1.2, §7.1.3) for ablation runs.

use bmc_rmm::diag::SourceFile;
use bmc_rmm::engines::explicit::{
    check_robustness, fence_insertion, FenceCosts, FenceVerdict, Limits, Options, Robustness,
};
use bmc_rmm::frontend::trencher;
use bmc_rmm::program::Width;
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = args.get(1).cloned().unwrap_or_else(|| {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus/trencher").to_string()
    });
    let runs: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(3);
    let timeout: u64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(60);
    let expected = std::fs::read_to_string(format!("{dir}/EXPECTED.tsv")).unwrap_or_default();
    let rows: Vec<Vec<&str>> = expected
        .lines()
        .skip(1)
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .filter(|r| r.len() >= 3)
        .collect();
    let opts = Options {
        width: Width::DEFAULT,
        limits: Limits {
            timeout: Some(Duration::from_secs(timeout)),
            max_states: Some(5_000_000),
            max_memory_bytes: Some(1 << 30),
        },
        ..Options::default()
    };
    let red = std::env::var("EXPLICIT_REDUCTIONS").unwrap_or_else(|_| "all".into());
    let opts = Options {
        restricted: matches!(red.as_str(), "all" | "restricted"),
        live_registers: matches!(red.as_str(), "all" | "live"),
        ..opts
    };
    println!(
        "| file | expected | robust (-r) | fences (-f) | expected fences | attacks | no search | searches (unreach/reach/unknown) | states (-f) | median -r ms | median -f ms |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for r in rows {
        let path = format!("{dir}/{}", r[0]);
        let Ok(src) = SourceFile::read(&path) else {
            println!("| {} | {} | unreadable | | | | | | | | |", r[0], r[1]);
            continue;
        };
        let prog = match trencher::parse(&src, Width::DEFAULT) {
            Ok(p) => p,
            Err(e) => {
                println!("| {} | {} | parse error: {e} | | | | | | | | |", r[0], r[1]);
                continue;
            }
        };
        let mut tr = Vec::new();
        let mut tf = Vec::new();
        let mut rob = String::new();
        let mut fen = String::new();
        let mut line = String::new();
        for _ in 0..runs {
            let t0 = Instant::now();
            let rep = match check_robustness(&prog, &opts) {
                Ok(x) => x,
                Err(e) => {
                    rob = format!("error: {e}");
                    break;
                }
            };
            tr.push(t0.elapsed().as_secs_f64() * 1e3);
            rob = match rep.verdict {
                Robustness::Robust => "yes".into(),
                Robustness::NotRobust(_) => "no".into(),
                Robustness::Unknown(u) => format!("unknown ({u})"),
            };
            let t1 = Instant::now();
            let f = match fence_insertion(&prog, &opts, &FenceCosts::default()) {
                Ok(x) => x,
                Err(e) => {
                    fen = format!("error: {e}");
                    break;
                }
            };
            tf.push(t1.elapsed().as_secs_f64() * 1e3);
            fen = match &f.verdict {
                FenceVerdict::Robust => "0".into(),
                FenceVerdict::Fences(v) => format!(
                    "{}{} {}",
                    v.len(),
                    if f.optimal {
                        ""
                    } else {
                        " (not proven optimal)"
                    },
                    v.iter()
                        .map(|l| l.describe(&prog))
                        .collect::<Vec<_>>()
                        .join(" ")
                ),
                FenceVerdict::Unknown(u) => format!("unknown ({u})"),
            };
            let s = &f.stats;
            line = format!(
                "{} | {} | {}/{}/{} | {}",
                s.attacks_total,
                s.answered_without_search,
                s.searches_unreachable,
                s.searches_reachable,
                s.searches_unknown,
                s.states_visited
            );
        }
        let med = |v: &mut Vec<f64>| {
            if v.is_empty() {
                return "-".to_string();
            }
            v.sort_by(|a, b| a.total_cmp(b));
            format!("{:.1}", v[v.len() / 2])
        };
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            r[0],
            r[1],
            rob,
            fen,
            r[2],
            if line.is_empty() {
                "| | |".to_string()
            } else {
                line
            },
            med(&mut tr),
            med(&mut tf)
        );
    }
}
