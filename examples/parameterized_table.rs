//! Times parameterized robustness (docs/parameterized.md) on the examples
//! of `examples/parameterized/` and, side by side, the finite explicit
//! engine on the instances with N = 1..4 copies of every template; then,
//! when the Trencher corpus is present, the parameterized check with every
//! thread a template (`robust --parameterized`). Prints Markdown tables
//! (docs/performance.md).
//!
//! Usage: `cargo run --release --example parameterized_table [RUNS] [TIMEOUT_S]`
//! (defaults: 3 runs, 10 s per check); `bench/parameterized_table.sh`.

use bmc_rmm::diag::SourceFile;
use bmc_rmm::engines::explicit::{self, Robustness};
use bmc_rmm::engines::parameterized::{check, instance, Options, Verdict};
use bmc_rmm::frontend;
use bmc_rmm::program::{Program, ThreadId, Width};
use std::time::{Duration, Instant};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn param(p: &Program, t: &[ThreadId], w: Width, timeout: u64) -> (String, u64, f64) {
    let o = Options {
        width: w,
        timeout: Some(Duration::from_secs(timeout)),
        ..Options::default()
    };
    let t0 = Instant::now();
    let r = check(p, t, &o).expect("supported");
    let dt = t0.elapsed().as_secs_f64();
    let names = |c: &[u32]| {
        t.iter()
            .zip(c)
            .map(|(t, n)| format!("{}={n}", p.thread_name(*t)))
            .collect::<Vec<_>>()
            .join(",")
    };
    let v = match &r.verdict {
        Verdict::Robust => "robust ∀N".to_string(),
        Verdict::NotRobust(v) => format!(
            "not robust from {{{}}}{}",
            names(&v.instance),
            if v.minimal_exact {
                ""
            } else {
                " (not all attacks decided)"
            }
        ),
        Verdict::Unknown(u) => format!("unknown ({u})"),
    };
    (v, r.stats.basis_elements, dt)
}

fn finite(p: &Program, t: &[ThreadId], n: u32, w: Width, timeout: u64) -> String {
    let (inst, _) = instance(p, t, &vec![n; t.len()]);
    let o = explicit::Options {
        width: w,
        limits: explicit::Limits {
            timeout: Some(Duration::from_secs(timeout)),
            ..explicit::Limits::default()
        },
        ..explicit::Options::default()
    };
    let t0 = Instant::now();
    let r = explicit::check_robustness(&inst, &o).expect("supported");
    let dt = t0.elapsed().as_secs_f64();
    let v = match r.verdict {
        Robustness::Robust => "R",
        Robustness::NotRobust(_) => "NR",
        Robustness::Unknown(_) => "?",
    };
    format!("{v} {dt:.3}")
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let runs: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(3);
    let timeout: u64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(10);
    let root = env!("CARGO_MANIFEST_DIR");
    let mut files: Vec<_> = std::fs::read_dir(format!("{root}/examples/parameterized"))
        .expect("examples")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    files.sort();
    println!("| example | parameterized answer | basis elements | time (s, median of {runs}) | finite N=1 | N=2 | N=3 | N=4 |");
    println!("|---|---|---:|---:|---|---|---|---|");
    for f in &files {
        let path = f.to_string_lossy().into_owned();
        let text = std::fs::read_to_string(f).expect("readable");
        let p = frontend::native::parse(&SourceFile::new(path.clone(), text), Width::DEFAULT)
            .expect("parses");
        let t = p.templates.clone();
        let mut times = Vec::new();
        let mut last = (String::new(), 0);
        for _ in 0..runs {
            let (v, el, dt) = param(&p, &t, Width::DEFAULT, timeout);
            times.push(dt);
            last = (v, el);
        }
        let fin: Vec<String> = (1..=4)
            .map(|n| finite(&p, &t, n, Width::DEFAULT, timeout))
            .collect();
        println!(
            "| {} | {} | {} | {:.3} | {} |",
            f.file_name().unwrap().to_string_lossy(),
            last.0,
            last.1,
            median(times),
            fin.join(" | ")
        );
    }
    let dir = format!("{root}/../shared/corpus/trencher");
    let Ok(rd) = std::fs::read_dir(&dir) else {
        println!("\n(Trencher corpus not found at {dir}: corpus rows skipped)");
        return;
    };
    let mut corpus: Vec<_> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    corpus.sort();
    let w = Width(8);
    println!("\n| Trencher program, every thread a template (--width 8) | answer | basis elements | time (s, 1 run) |");
    println!("|---|---|---:|---:|");
    for f in &corpus {
        let path = f.to_string_lossy().into_owned();
        let Ok(p) = frontend::load_program(&path, None, w) else {
            continue;
        };
        let t: Vec<ThreadId> = p.thread_ids().collect();
        let (v, el, dt) = param(&p, &t, w, timeout);
        println!(
            "| {} | {v} | {el} | {dt:.3} |",
            f.file_name().unwrap().to_string_lossy()
        );
    }
}
