//! Criterion benchmarks of the bounded engine: `robust` and `reach` under
//! TSO on the bundled examples, and litmus state enumeration. Run with
//! `cargo bench --bench engine`; the corpus-wide tables come from the
//! scripts `bench/sat_table.sh`, `bench/litmus_table.sh` and
//! `bench/explicit_table.sh` (docs/performance.md).

use bmc_rmm::diag::SourceFile;
use bmc_rmm::engines::bounded::Deadline;
use bmc_rmm::program::Width;
use criterion::{criterion_group, criterion_main, Criterion};
#[path = "../tests/common/mod.rs"]
mod common;
use common::check1;

fn example(name: &str) -> bmc_rmm::program::Program {
    let path = format!("{}/examples/{name}", env!("CARGO_MANIFEST_DIR"));
    bmc_rmm::frontend::load_program(&path, None, Width::DEFAULT).expect("example parses")
}

fn robust_tso(c: &mut Criterion) {
    let tso = bmc_rmm::cat::builtin("tso").unwrap();
    for (f, k) in [
        ("sb.rmm", 10),
        ("dekker.rmm", 12),
        ("peterson.rmm", 12),
        ("mp.rmm", 10),
    ] {
        let p = example(f);
        for (name, kind) in [
            ("robust", bmc_rmm::engines::bounded::CheckKind::Robust),
            ("reach", bmc_rmm::engines::bounded::CheckKind::Reach),
        ] {
            c.bench_function(&format!("{name} tso {f} k={k}"), |b| {
                b.iter(|| check1(kind, &p, &tso, k, 16, false, Deadline(None)).verdict)
            });
        }
    }
}

fn litmus_states(c: &mut Criterion) {
    let tso = bmc_rmm::cat::builtin("tso").unwrap();
    for f in ["X86-SB.litmus", "X86-IRIW.litmus", "X86-SB+xchgs.litmus"] {
        let path = format!("{}/tests/litmus/{f}", env!("CARGO_MANIFEST_DIR"));
        let t =
            bmc_rmm::frontend::litmus::parse(&SourceFile::read(&path).unwrap(), Width(32)).unwrap();
        let w = bmc_rmm::litmus::run::auto_width(&t);
        c.bench_function(&format!("litmus tso {f}"), |b| {
            b.iter(|| {
                bmc_rmm::litmus::run::run(
                    &t,
                    &tso,
                    12,
                    w,
                    Deadline(None),
                    bmc_rmm::engines::bounded::SolverKind::Varisat,
                )
                .expect("varisat")
                .states
                .len()
            })
        });
    }
}

criterion_group!(benches, robust_tso, litmus_states);
criterion_main!(benches);
