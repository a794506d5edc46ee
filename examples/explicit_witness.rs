//! Prints the TSO robustness verdict, a TSO witness and the optimal fence
//! set of one Trencher file: `cargo run --release --example explicit_witness FILE`.

use bmc_rmm::diag::SourceFile;
use bmc_rmm::engines::explicit::{
    check_robustness, fence_insertion, FenceCosts, Options, Robustness,
};
use bmc_rmm::frontend::trencher;
use bmc_rmm::program::Width;

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: explicit_witness FILE");
        std::process::exit(2);
    };
    let prog = match SourceFile::read(&path).and_then(|s| trencher::parse(&s, Width::DEFAULT)) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let opts = Options::default();
    match check_robustness(&prog, &opts) {
        Ok(r) => {
            match &r.verdict {
                Robustness::Robust => println!("robust"),
                Robustness::NotRobust(w) => print!("not robust\n{w}"),
                Robustness::Unknown(u) => println!("unknown: {u}"),
            }
            println!("stats: {:?}", r.stats);
        }
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    }
    if let Ok(f) = fence_insertion(&prog, &opts, &FenceCosts::default()) {
        println!(
            "fences: {:?} (cost {}, optimal {})",
            f.verdict, f.cost, f.optimal
        );
        for a in &f.feasible {
            let sets: Vec<String> = a
                .sets
                .iter()
                .map(|s| {
                    s.iter()
                        .map(|l| l.describe(&prog))
                        .collect::<Vec<_>>()
                        .join("")
                })
                .collect();
            println!("  {}: {{{}}}", a.attack.describe(&prog), sets.join(", "));
        }
    }
}
