//! Robustness against PSO and TSO by normal-form computations (thesis
//! ch. 3 and 5) against two oracles: the attack-based explicit TSO
//! engine (thesis ch. 6) must give the same verdict under TSO, and the
//! bounded engine must confirm every verdict — a witness at the number of
//! steps per thread it needs, "robust" by finding no cycle within a
//! bound. On hand-written programs, the Trencher corpus and seeded random
//! programs (`common::random_programs`).

use crate::common;
use crate::common::random_programs::{trencher_program, Shape};
use bmc_rmm::diag::{Error, SourceFile};
use bmc_rmm::engines::bounded::{CheckKind, Deadline, Verdict as Bv};
use bmc_rmm::engines::explicit::{self, Limits, Robustness};
use bmc_rmm::engines::normal_form::{check_robustness, Model, Options, Report, Verdict};
use bmc_rmm::program::{Program, Width};
use std::time::{Duration, Instant};

const W: Width = Width::DEFAULT;

fn trencher(name: &str, text: &str) -> Program {
    bmc_rmm::frontend::trencher::parse(&SourceFile::new(name, text), W).expect("parses")
}

fn native(name: &str, text: &str) -> Program {
    bmc_rmm::frontend::parse_program(&SourceFile::new(name, text), None, W).expect("parses")
}

/// States one search of the normal-form engine may visit in the corpus
/// and random cases: a state limit (not a time limit) so that every case
/// decides, or gives "unknown", the same way on every machine, and the
/// file runs in seconds. A case the limit cuts counts as undecided.
const STATES: usize = 5_000;

/// The same for one search of the attack-based explicit engine.
const ATTACK_STATES: usize = 5_000;

/// Limits of `states` states per search and no time limit (deterministic).
fn states(states: usize) -> Limits {
    Limits {
        timeout: None,
        max_states: Some(states),
        ..Limits::default()
    }
}

fn nf(p: &Program, model: Model, max_states: usize) -> Report {
    let opts = Options {
        width: W,
        limits: states(max_states),
    };
    check_robustness(p, model, &opts).expect("in the engine's program class")
}

/// The bounded engine's robustness verdict at `bound` (varisat).
fn bounded(p: &Program, model: Model, bound: u32, secs: u64) -> Bv {
    let m = bmc_rmm::cat::builtin(model.name()).expect("built-in model");
    let d = Deadline(Some(Instant::now() + Duration::from_secs(secs)));
    common::check1(CheckKind::Robust, p, &m, bound, W.0, false, d).verdict
}

/// What the bounded engine said of a normal-form verdict.
#[derive(Debug, PartialEq, Eq)]
enum Confirmed {
    Yes,
    /// The bounded engine ran out of time.
    Unknown,
    /// The normal-form engine gave no verdict.
    Undecided,
}

/// Checks a normal-form verdict with the bounded engine: a witness must
/// have a cycle at its size, "robust" no cycle at `robust_bound`.
fn confirm(p: &Program, model: Model, r: &Report, robust_bound: u32, name: &str) -> Confirmed {
    let (bound, want) = match &r.verdict {
        Verdict::NotRobust(w) => (w.steps_per_thread() as u32, Bv::Violation),
        Verdict::Robust => (robust_bound, Bv::NoViolation),
        Verdict::Unknown(_) => return Confirmed::Undecided,
    };
    match bounded(p, model, bound.max(1), 30) {
        Bv::Unknown => Confirmed::Unknown,
        v => {
            assert_eq!(
                v,
                want,
                "{name} [{}]: bounded at {bound}: {:?}",
                model.name(),
                r.verdict
            );
            Confirmed::Yes
        }
    }
}

const SB: &str = "thread t1\ninitial q0\ntransition q0 q1 write 1 0\ntransition q1 q2 read r 1\nend\n\
                  thread t2\ninitial q0\ntransition q0 q1 write 1 1\ntransition q1 q2 read r 0\nend\n";
const MP: &str = "thread t1\ninitial q0\ntransition q0 q1 write 1 0\ntransition q1 q2 write 1 1\nend\n\
                  thread t2\ninitial q0\ntransition q0 q1 read r 1\ntransition q1 q2 read s 0\nend\n";

#[test]
fn store_buffering_is_not_robust_and_the_witness_replays() {
    let p = trencher("sb.txt", SB);
    for model in [Model::Tso, Model::Pso] {
        let r = nf(&p, model, 1_000_000);
        let Verdict::NotRobust(w) = &r.verdict else {
            panic!("{:?}", r.verdict)
        };
        assert_eq!(w.steps_per_thread(), 2);
        assert!(w.text.contains("-fr->"), "{w}");
        assert_eq!(confirm(&p, model, &r, 10, "sb"), Confirmed::Yes);
    }
}

#[test]
fn message_passing_separates_tso_from_pso() {
    let p = trencher("mp.txt", MP);
    let tso = nf(&p, Model::Tso, 1_000_000);
    assert!(matches!(tso.verdict, Verdict::Robust), "{:?}", tso.verdict);
    let pso = nf(&p, Model::Pso, 1_000_000);
    assert!(
        matches!(pso.verdict, Verdict::NotRobust(_)),
        "{:?}",
        pso.verdict
    );
    for (m, r) in [(Model::Tso, &tso), (Model::Pso, &pso)] {
        assert_eq!(confirm(&p, m, r, 6, "mp"), Confirmed::Yes);
    }
}

#[test]
fn barriers_restore_robustness() {
    // SB with mfence: robust under both; MP with #StoreStore: robust
    // under PSO.
    let sb =
        "shared x, y;\nthread t1 { x = 1; mfence; a = y; }\nthread t2 { y = 1; mfence; b = x; }\n";
    let mp = "shared x, y;\nthread t1 { x = 1; membar #StoreStore; y = 1; }\nthread t2 { a = y; b = x; }\n";
    for (name, text, models) in [
        ("sb.rmm", sb, &[Model::Tso, Model::Pso][..]),
        ("mp.rmm", mp, &[Model::Pso][..]),
    ] {
        let p = native(name, text);
        for &m in models {
            let r = nf(&p, m, 1_000_000);
            assert!(
                matches!(r.verdict, Verdict::Robust),
                "{name} {m:?}: {:?}",
                r.verdict
            );
            assert_eq!(confirm(&p, m, &r, 6, name), Confirmed::Yes);
        }
    }
}

#[test]
fn unmodelled_constructs_are_refused_with_their_location() {
    let p = native(
        "two.rmm",
        "shared x, y;\nthread t1 { atomic { x = 1; y = 1; }; }\nthread t2 { a = y; b = x; }\n",
    );
    match check_robustness(&p, Model::Pso, &Options::default()) {
        Err(Error::Input(e)) => {
            assert!(e.location().starts_with("two.rmm:2:"), "{}", e.location());
            assert!(e.message.contains("several addresses"), "{}", e.message);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_limit_gives_unknown_never_robust() {
    let p = trencher("mp.txt", MP);
    let opts = Options {
        width: W,
        limits: Limits {
            max_states: Some(3),
            ..Limits::default()
        },
    };
    let r = check_robustness(&p, Model::Tso, &opts).expect("accepted");
    assert!(matches!(r.verdict, Verdict::Unknown(_)), "{:?}", r.verdict);
}

/// Normal form under TSO against the attacks: the same verdict wherever
/// both decide.
fn against_attacks(p: &Program, name: &str) -> (bool, Option<bool>) {
    // Both engines refuse a section over which a contracted hb cycle can
    // pass (docs/models.md, "Robustness and indivisible sections").
    if p.section_beyond_rmw().is_some() {
        return (false, None);
    }
    let r = nf(p, Model::Tso, STATES);
    let mine = match &r.verdict {
        Verdict::Robust => Some(true),
        Verdict::NotRobust(_) => Some(false),
        Verdict::Unknown(_) => None,
    };
    let opts = explicit::Options {
        limits: states(ATTACK_STATES),
        ..explicit::Options::default()
    };
    let theirs = match explicit::check_robustness(p, &opts)
        .expect("attacks")
        .verdict
    {
        Robustness::Robust => Some(true),
        Robustness::NotRobust(_) => Some(false),
        Robustness::Unknown(_) => None,
    };
    if let (Some(a), Some(b)) = (mine, theirs) {
        assert_eq!(
            a, b,
            "{name}: normal form says robust={a}, attacks robust={b}"
        );
    }
    (mine.is_some() && theirs.is_some(), mine)
}

#[test]
fn trencher_corpus_tso_verdicts_agree_with_attacks() {
    let Some(dir) = common::corpus("trencher") else {
        return;
    };
    let mut files: Vec<_> = ["", "memorax"]
        .iter()
        .flat_map(|d| std::fs::read_dir(dir.join(d)).expect("corpus dir"))
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 39);
    let (mut both, mut robust, mut not) = (0, 0, 0);
    for f in &files {
        let name = f.display().to_string();
        let p = bmc_rmm::frontend::load_program(&name, None, W).expect("loads");
        let (decided, v) = against_attacks(&p, &name);
        both += usize::from(decided);
        match v {
            Some(true) => robust += 1,
            Some(false) => not += 1,
            None => {}
        }
    }
    eprintln!("trencher corpus: {both}/39 decided by both engines; normal form: {robust} robust, {not} not robust");
    assert!(robust > 0 && not > 0);
}

#[test]
fn random_programs_agree_with_attacks_and_the_bounded_engine() {
    let shape = Shape {
        max_instrs: 3,
        max_threads: 3,
        ..Shape::default()
    };
    let (mut agreed, mut confirmed) = (0, 0);
    let n = 20;
    for seed in 0..n {
        let text = trencher_program(seed, &shape);
        let name = format!("random seed {seed}");
        let p = trencher(&name, &text);
        agreed += usize::from(against_attacks(&p, &name).0);
        let r = nf(&p, Model::Pso, STATES);
        confirmed += usize::from(confirm(&p, Model::Pso, &r, 8, &name) == Confirmed::Yes);
    }
    eprintln!("random programs: {agreed}/{n} TSO verdicts compared with attacks, {confirmed}/{n} PSO verdicts confirmed by the bounded engine");
    // Disagreements fail above; here: the comparison did take place.
    assert!(agreed > 0 && confirmed > 0);
}
