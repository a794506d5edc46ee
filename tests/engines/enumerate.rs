//! The enumeration engine (`litmus --enumerate`, `varisat::enumerate`)
//! against the SAT path: the same final states, test by test. Own tests
//! always run; the corpus part (X86 under tso with no budget limit, PPC
//! under power with the default budget) skips when `../shared/corpus` is
//! absent.

use crate::common;

use bmc_rmm::diag::SourceFile;
use bmc_rmm::engines::bounded::{Deadline, Limits, SolverKind};
use bmc_rmm::frontend::litmus::LitmusTest;
use bmc_rmm::litmus::run::{self, LitmusResult};
use bmc_rmm::program::Width;
use rayon::prelude::*;

fn answer(t: &LitmusTest, model: &str, budget: Option<usize>) -> LitmusResult {
    let m = bmc_rmm::cat::builtin(model).unwrap();
    let w = run::auto_width(t);
    let lim = Limits {
        bound: 12,
        width: w.0,
        deadline: Deadline(None),
        switches: Default::default(),
    };
    run::run_with(t, &m, lim, SolverKind::Varisat, budget).unwrap()
}

fn parse(name: &str, text: &str) -> LitmusTest {
    let src = SourceFile::new(name, text.to_string());
    bmc_rmm::frontend::litmus::parse(&src, Width::MAX).unwrap()
}

const SB: &str = "X86 SB\n{ x=0; y=0; }\n P0 | P1 ;\n MOV [x],$1 | MOV [y],$1 ;\n MOV EAX,[y] | MOV EAX,[x] ;\nexists (0:EAX=0 /\\ 1:EAX=0)\n";

const MP_PPC: &str = "PPC MP+lwsync+addr\n{ 0:r2=x; 0:r4=y; 1:r2=y; 1:r4=x; }\n P0 | P1 ;\n li r1,1 | lwz r1,0(r2) ;\n stw r1,0(r2) | xor r3,r1,r1 ;\n lwsync | lwzx r5,r3,r4 ;\n stw r1,0(r4) | ;\nexists (1:r1=1 /\\ 1:r5=0)\n";

#[test]
fn own_tests_same_states_both_ways() {
    for (name, text, model, states) in [
        ("SB.litmus", SB, "tso", 4),
        ("SB.litmus", SB, "sc", 3),
        ("MP.litmus", MP_PPC, "power", 3),
        ("MP.litmus", MP_PPC, "sc", 3),
    ] {
        let t = parse(name, text);
        let solved = answer(&t, model, None);
        let visited = answer(&t, model, Some(usize::MAX));
        assert_eq!(solved.stats.candidates, 0, "{name} {model}: solved");
        assert!(visited.stats.candidates > 0, "{name} {model}: enumerated");
        assert_eq!(visited.stats.solves, 0, "{name} {model}: no solve");
        assert_eq!(solved.states, visited.states, "{name} {model}");
        assert_eq!(visited.states.len(), states, "{name} {model}");
        // A budget below the candidates leaves the test to the solver.
        let small = answer(&t, model, Some(1));
        assert!(small.stats.solves > 0, "{name} {model}: over budget");
        assert_eq!(small.states, solved.states, "{name} {model}");
    }
}

fn corpus_dir(arch: &str) -> Option<String> {
    let d = format!(
        "{}/../shared/corpus/litmus/{arch}",
        env!("CARGO_MANIFEST_DIR")
    );
    common::corpus(&format!("litmus/{arch}"))?;
    Some(d)
}

fn corpus(arch: &str, model: &str, budget: usize) {
    let Some(dir) = corpus_dir(arch) else {
        return;
    };
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "litmus"))
        .collect();
    files.sort();
    let rows: Vec<(String, bool)> = files
        .par_iter()
        .filter_map(|p| {
            let src = SourceFile::read(p.to_str().unwrap()).ok()?;
            let t = bmc_rmm::frontend::litmus::parse(&src, Width::MAX).ok()?;
            let solved = answer(&t, model, None);
            let visited = answer(&t, model, Some(budget));
            let same = solved.states == visited.states && solved.observation == visited.observation;
            Some((
                format!("{}: {same}", p.display()),
                visited.stats.candidates > 0,
            ))
        })
        .collect();
    let bad: Vec<&String> = rows
        .iter()
        .map(|r| &r.0)
        .filter(|s| s.ends_with("false"))
        .collect();
    assert!(bad.is_empty(), "different states: {bad:?}");
    let enumerated = rows.iter().filter(|r| r.1).count();
    assert!(
        enumerated * 10 >= rows.len() * 9,
        "{enumerated} of {} enumerated",
        rows.len()
    );
}

#[test]
fn x86_corpus_same_states_both_ways() {
    corpus("X86", "tso", usize::MAX);
}

#[test]
fn ppc_corpus_same_states_both_ways() {
    corpus(
        "PPC",
        "power",
        bmc_rmm::engines::bounded::varisat::enumerate::DEFAULT_BUDGET,
    );
}
