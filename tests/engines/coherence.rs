//! Eager coherence (`bounded::varisat::coherence`): the clauses added
//! when the model requires SC per location keep every consistent
//! execution. Each built-in model that requires it is compared with a
//! copy whose `acyclic` axioms are written `(r) \ 0`: the same model, but
//! `cat::implied` no longer sees the coherence axiom, so that copy is
//! decided by the lazy loop alone. Needs no corpus.

use crate::common;
use bmc_rmm::cat::{implied::sc_per_location, parse::parse_model, Model};
use bmc_rmm::diag::SourceFile;
use bmc_rmm::engines::bounded::{enumerate_final, Deadline, Limits, Query, SolverKind};
use bmc_rmm::program::{GExpr, Program, Width};

/// Coherence shapes: coRR, coWR, coRW with a third writer, a mix with a
/// second location, read-modify-writes.
const PROGRAMS: [&str; 5] = [
    "shared x; thread a { x = 1; x = 2; } thread b { r1 = x; r2 = x; r3 = x; }",
    "shared x, y; thread a { x = 1; r1 = x; r2 = y; } thread b { y = 1; x = 2; r1 = x; }",
    "shared x; thread a { r1 = x; x = 1; r2 = x; } thread b { r1 = x; x = 2; r2 = x; } thread c { x = 3; }",
    "shared x, y; thread a { x = 1; y = 1; r1 = x; } thread b { r1 = y; r2 = x; x = 2; r3 = x; }",
    "shared x; thread a { r1 = x; atomic { r2 = x; x = r2 + 1; }; r3 = x; } thread b { atomic { r1 = x; x = r1 + 1; }; r2 = x; }",
];

/// The built-in model `name` with every `acyclic r as n` written
/// `acyclic (r) \ 0 as n`.
fn hidden(name: &str) -> Model {
    let (path, text) = bmc_rmm::cat::builtin_file(&format!("{name}.cat")).expect("built in");
    let text: String = text
        .lines()
        .map(|l| {
            match l
                .strip_prefix("acyclic ")
                .and_then(|r| r.rsplit_once(" as "))
            {
                Some((r, n)) => format!("acyclic ({r}) \\ 0 as {n}\n"),
                None => format!("{l}\n"),
            }
        })
        .collect();
    parse_model(&SourceFile::new(path, text)).expect("parses")
}

/// The final states and the number of clauses of the last solve.
fn finals(p: &Program, m: &Model, obs: &[GExpr]) -> (Vec<Vec<i64>>, usize) {
    let q = Query {
        program: p,
        model: m,
        limits: Limits {
            bound: 8,
            width: 4,
            deadline: Deadline(None),
            switches: Default::default(),
        },
    };
    let r = enumerate_final(SolverKind::Varisat, &q, None, obs).expect("varisat");
    assert!(r.unknown.is_none(), "{:?}", r.unknown);
    let mut states = r.states;
    states.sort();
    (states, r.stats.clauses)
}

#[test]
fn eager_coherence_keeps_every_consistent_execution() {
    for name in ["sc", "tso", "pso", "power", "aarch64", "riscv"] {
        let m = bmc_rmm::cat::builtin(name).expect("built in");
        let h = hidden(name);
        assert!(sc_per_location(&m), "{name}");
        assert!(!sc_per_location(&h), "{name}: still recognized");
        let mut active = 0;
        for text in PROGRAMS {
            let p = bmc_rmm::frontend::native::parse(&SourceFile::new("t.rmm", text), Width(4))
                .expect("parses");
            let obs = common::all_locations(&p);
            let (eager, c1) = finals(&p, &m, &obs);
            let (lazy, c2) = finals(&p, &h, &obs);
            assert!(!lazy.is_empty(), "{name}: {text}");
            assert_eq!(eager, lazy, "{name}: {text}");
            active += usize::from(c1 != c2);
        }
        // The clauses were added (at a first refinement) somewhere.
        assert!(active > 0, "{name}: no program refined");
    }
}
