//! Criterion benchmarks of the CDCL(T) propagator's parts
//! (`bounded::cdclt`): incremental cycle detection per edge added (and
//! undone, as on backtracking), per conflict (an edge closing a long
//! cycle, its explanation returned), and whole checks on the cdclt
//! backend against the lazy varisat loop, and the narrowed hb-cycle
//! query with and without its escape probe. Run with
//! `cargo bench --bench propagator`; docs/performance.md.

use bmc_rmm::engines::bounded::cdclt::graph::Graph;
use bmc_rmm::engines::bounded::{CheckKind, Limits, SolverKind};
use bmc_rmm::program::Width;
use criterion::{criterion_group, criterion_main, Criterion};

/// Pseudo-random edges of a DAG on `n` nodes (a < b in a hidden order),
/// inserted in random order: most need a reordering.
fn dag_edges(n: usize, m: usize) -> Vec<(usize, usize)> {
    let mut seed = 12345u64;
    let mut next = move || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as usize
    };
    let perm: Vec<usize> = {
        let mut p: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            p.swap(i, next() % (i + 1));
        }
        p
    };
    (0..m)
        .map(|_| {
            let (a, b) = (next() % n, next() % n);
            let (a, b) = (a.min(b), a.max(b).max(a.min(b) + 1).min(n - 1));
            (perm[a], perm[b])
        })
        .filter(|(a, b)| a != b)
        .collect()
}

fn cycle_detection(c: &mut Criterion) {
    let edges = dag_edges(64, 400);
    c.bench_function(
        &format!("graph: add+pop {} edges, 64 nodes (per run)", edges.len()),
        |b| {
            b.iter(|| {
                let mut g: Graph<u32> = Graph::new(64);
                let mut added = 0;
                for (i, &(a, b)) in edges.iter().enumerate() {
                    if g.add_edge(a, b, i as u32).is_ok() {
                        added += 1;
                    }
                }
                for _ in 0..added {
                    g.pop_edge();
                }
                added
            })
        },
    );
    c.bench_function(
        "graph: conflict closing a 63-edge cycle (per conflict)",
        |b| {
            let mut g: Graph<u32> = Graph::new(64);
            for i in 0..63 {
                g.add_edge(i, i + 1, i as u32).unwrap();
            }
            b.iter(|| g.add_edge(63, 0, 99).unwrap_err().len())
        },
    );
}

fn checks(c: &mut Criterion) {
    let tso = bmc_rmm::cat::builtin("tso").unwrap();
    let path = format!("{}/examples/dekker.rmm", env!("CARGO_MANIFEST_DIR"));
    let p = bmc_rmm::frontend::load_program(&path, None, Width::DEFAULT).unwrap();
    for solver in [SolverKind::Varisat, SolverKind::Cdclt] {
        c.bench_function(
            &format!("robust tso dekker.rmm k=12 {}", solver.name()),
            |b| {
                b.iter(|| {
                    let lim = Limits {
                        bound: 12,
                        width: 16,
                        deadline: bmc_rmm::engines::bounded::Deadline(None),
                        switches: Default::default(),
                    };
                    bmc_rmm::engines::bounded::check(
                        solver,
                        &p,
                        &tso,
                        lim,
                        false,
                        &[CheckKind::Robust],
                    )
                    .unwrap()
                    .len()
                })
            },
        );
    }
}

/// The narrowed hb-cycle query on examples/sb-fenced.rmm (tso, k=12,
/// lazy loop) with and without the escape probe
/// (`eager::encode_escape`, `Encoder::escape_probe`): encoding, probe
/// and solve.
fn escape_probe(c: &mut Criterion) {
    use bmc_rmm::engines::bounded::varisat::{eager, Encoder};
    let tso = bmc_rmm::cat::builtin("tso").unwrap();
    let path = format!("{}/examples/sb-fenced.rmm", env!("CARGO_MANIFEST_DIR"));
    let p = bmc_rmm::frontend::load_program(&path, None, Width::DEFAULT).unwrap();
    for probe in [0, 32] {
        c.bench_function(
            &format!("narrowed robust tso sb-fenced.rmm k=12 probe={probe}"),
            |b| {
                b.iter(|| {
                    let mut enc = Encoder::lazy(&p, &tso, 12, 16, None);
                    enc.shortest_cycles = true;
                    enc.escape_probe = probe;
                    let act = enc.robust_act();
                    eager::encode_escape(&mut enc, &tso, act);
                    enc.solve(&[act], bmc_rmm::engines::bounded::Deadline(None))
                        .unwrap()
                })
            },
        );
    }
}

criterion_group!(benches, cycle_detection, checks, escape_probe);
criterion_main!(benches);
