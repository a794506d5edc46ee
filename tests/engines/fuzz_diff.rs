//! The differential runner (`bmc-rmm fuzz-diff`, `bmc_rmm::fuzz`): on a
//! few seeded programs every applicable engine and backend agrees (and
//! the comparisons are not vacuous); a deliberately wrong stand-in engine
//! is caught, its disagreement shrunk to a small reproducer that still
//! shows it; the command's table and exit status; the same for C
//! programs (`--lang c`).

use crate::common;
use bmc_rmm::answer::{Answer, Scope, Verdict};
use bmc_rmm::ask::Question;
use bmc_rmm::fuzz::run::{Options, Runner, Stub, Summary};
use bmc_rmm::program::Program;
use std::time::Duration;

fn options(seed: u64) -> Options {
    Options {
        seed,
        timeout: Duration::from_secs(2),
        ..Options::default()
    }
}

#[test]
fn twenty_programs_agree_on_every_engine_pair() {
    let runner = Runner::new(options(11)).expect("built-in models");
    let mut s = Summary::default();
    let mut found = Vec::new();
    for i in 0..20 {
        found.extend(runner.check(i, &mut s));
    }
    let table = s.table();
    assert!(found.is_empty(), "disagreements: {found:#?}\n{table}");
    assert!(s.failures.is_empty(), "{:#?}", s.failures);
    assert_eq!(s.programs, 20);
    // Not vacuous: the engines of tso reachability and robustness were
    // compared, and witnesses were replayed.
    let compared = |m: &str, q: &str, pair: &str| {
        s.rows
            .get(&(m.to_string(), q.to_string(), pair.to_string()))
            .map_or(0, |c| c.compared)
    };
    assert!(compared("tso", "reach", "varisat / lazy") > 0, "{table}");
    assert!(
        compared("tso", "reach", "varisat / simulator") > 0,
        "{table}"
    );
    assert!(
        compared("tso", "robust", "explicit / normal-form") > 0,
        "{table}"
    );
    assert!(compared("power", "reach", "varisat / cdclt") > 0, "{table}");
    assert!(
        compared("sc", "reach", "varisat witness -> cdclt") > 0,
        "{table}"
    );
}

/// C programs (`--lang c`): the generator gives one program per seed;
/// on a few programs under sc and pso every pair of engines agrees, the
/// comparisons are not vacuous (the bounded engine against SMC and
/// against the SV-COMP runner's explicit-state search, witnesses
/// replayed), and nothing fails.
#[test]
fn c_programs_agree_on_every_engine_pair() {
    use bmc_rmm::fuzz::gen_c::CGen;
    use bmc_rmm::fuzz::lang::Lang;
    let g = CGen::default();
    assert_eq!(g.program(42), g.program(42));
    assert_ne!(g.program(42).render(), g.program(43).render());
    let mut o = options(2026);
    o.timeout = Duration::from_secs(1);
    o.lang = Lang::C;
    o.width = 6;
    o.models = vec!["sc".into(), "pso".into()];
    o.questions = vec![Question::Reach];
    let runner = Runner::new(o).expect("built-in models");
    assert_eq!(runner.program(5).2, runner.program(5).2);
    let mut s = Summary::default();
    let mut found = Vec::new();
    for i in 0..10 {
        found.extend(runner.check(i, &mut s));
    }
    let table = s.table();
    assert!(found.is_empty(), "disagreements: {found:#?}\n{table}");
    assert!(s.failures.is_empty(), "{:#?}\n{table}", s.failures);
    let compared = |m: &str, pair: &str| {
        s.rows
            .get(&(m.to_string(), "reach".to_string(), pair.to_string()))
            .map_or(0, |c| c.compared)
    };
    assert!(compared("sc", "varisat / smc") >= 3, "{table}");
    assert!(compared("sc", "varisat / svcomp-explicit") >= 3, "{table}");
    assert!(compared("pso", "varisat / cdclt") >= 3, "{table}");
    assert!(compared("pso", "varisat witness -> cdclt") > 0, "{table}");
}

/// A wrong engine: "no goal is reachable, for every execution".
fn never(_: &Program, model: &str, q: Question) -> Option<Answer> {
    (model == "tso" && q == Question::Reach)
        .then(|| Answer::new(Verdict::NoViolation, Scope::Complete))
}

#[test]
fn a_wrong_engine_is_detected_and_shrunk() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let mut o = options(3);
    o.models = vec!["tso".into()];
    o.questions = vec![Question::Reach];
    o.stub = Some(Stub {
        name: "never",
        answer: never,
    });
    o.out = Some(dir.path().to_path_buf());
    let runner = Runner::new(o).expect("built-in models");
    let mut s = Summary::default();
    let found: Vec<_> = (0..6).flat_map(|i| runner.check(i, &mut s)).collect();
    assert!(s.disagreements() > 0, "{}", s.table());
    let f = found
        .iter()
        .find(|f| f.pair == "varisat / never")
        .expect("varisat finds a goal the stand-in denies");
    assert_eq!(f.shrunk_said.1, "no violation");
    assert_eq!(f.shrunk_said.0, "violation");
    // Shrunk: one thread, nothing left to drop (a goal that is reachable
    // on any program with one thread and no statement is `goal final`).
    assert!(f.shrunk.size() < f.original.size() || f.original.size() == 0);
    assert_eq!(f.shrunk.threads(), 1, "{}", f.shrunk.render());
    assert_eq!(f.shrunk.size(), 0, "{}", f.shrunk.render());
    // The reproducer parses and says what disagrees.
    let file = f.file.as_ref().expect("written");
    let text = std::fs::read_to_string(file).expect("readable");
    assert!(text.contains("varisat / never"), "{text}");
    let (code, out, err) = common::run(&["reach", "--model", "tso", file.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}{err}");
    // Every pair of real engines agreed on these programs.
    for ((_, _, pair), c) in &s.rows {
        if !pair.contains("never") {
            assert_eq!(c.disagree, 0, "{pair}\n{}", s.table());
        }
    }
}

/// A wrong engine for C programs: "no goal is reachable under sc".
fn never_sc(_: &Program, model: &str, q: Question) -> Option<Answer> {
    (model == "sc" && q == Question::Reach)
        .then(|| Answer::new(Verdict::NoViolation, Scope::Complete))
}

/// On C programs a wrong engine is caught too: the disagreement is shrunk
/// by the C shrinker and written as a `.c` reproducer that the command
/// line reads and answers as the bounded engine did.
#[test]
fn a_wrong_engine_on_c_programs_is_shrunk_to_a_c_reproducer() {
    use bmc_rmm::fuzz::lang::Lang;
    let dir = tempfile::tempdir().expect("temporary directory");
    let mut o = options(2026);
    o.lang = Lang::C;
    o.width = 6;
    o.models = vec!["sc".into()];
    o.questions = vec![Question::Reach];
    o.shrink_budget = 60;
    o.stub = Some(Stub {
        name: "never",
        answer: never_sc,
    });
    o.out = Some(dir.path().to_path_buf());
    let runner = Runner::new(o).expect("built-in models");
    let mut s = Summary::default();
    let f = (0..6)
        .find_map(|i| {
            runner
                .check(i, &mut s)
                .into_iter()
                .find(|f| f.pair == "varisat / never")
        })
        .expect("varisat finds a goal the stand-in denies");
    assert_eq!(f.shrunk_said.0, "violation");
    assert!(f.shrunk.size() <= f.original.size());
    let file = f.file.as_ref().expect("written");
    assert_eq!(file.extension().and_then(|e| e.to_str()), Some("c"));
    let text = std::fs::read_to_string(file).expect("readable");
    assert!(text.contains("pthread_create"), "{text}");
    let path = file.to_str().unwrap();
    let (code, out, err) = common::run(&[
        "reach", "--model", "sc", "--width", "6", "--unwind", "3", path,
    ]);
    assert_eq!(code, 1, "{out}{err}\n{text}");
}

#[test]
fn the_command_prints_the_table_and_exits_0_on_agreement() {
    let (code, out, err) = common::run(&[
        "fuzz-diff",
        "--seed",
        "5",
        "--count",
        "4",
        "--models",
        "tso,pso",
        "--timeout",
        "5",
    ]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("compared"), "{out}");
    assert!(
        out.contains("4 program(s) (pso 2, tso 2), 0 disagreement(s)"),
        "{out}"
    );
    let (code, _, err) = common::run(&["fuzz-diff", "--models", "nosuch"]);
    assert_eq!(code, 2, "{err}");
    let (code, _, err) = common::run(&["fuzz-diff", "--lang", "java"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--lang"), "{err}");
}

/// The verdict of `engine` on `robust` under `model` for `text`.
fn robust_verdict(text: &str, model: &str, engine: bmc_rmm::ask::EngineChoice) -> Verdict {
    let p = bmc_rmm::frontend::parse_program(
        &bmc_rmm::diag::SourceFile::new("found.rmm", text),
        None,
        bmc_rmm::program::Width(4),
    )
    .expect("parses");
    let m = bmc_rmm::cat::builtin(model).expect("built-in");
    let qs = [Question::Robust];
    let mut req = bmc_rmm::ask::Request::new(&p, &m, Some(model), &qs, 6);
    req.engine = engine;
    req.alone = false;
    req.width = 4;
    bmc_rmm::ask::ask(&req)
        .expect("answers")
        .remove(0)
        .answer
        .verdict
}

/// Found by fuzz-diff (`--seed 2026`, program 1046, shrunk to this):
/// SMC's robustness check drew a co edge from an atomic step to itself
/// when the step stores twice to one address, a cycle of one event; the
/// bounded, explicit and normal-form engines say robust (one thread has
/// no hb cycle).
#[test]
fn an_atomic_step_storing_twice_to_one_address_is_robust_for_smc() {
    use bmc_rmm::ask::EngineChoice;
    use bmc_rmm::engines::bounded::SolverKind;
    let text = "shared x0, x1;\nthread t2 {\n  atomic { x0 = 1; x0 = 2; };\n  r0 = x0;\n}\nthread t3 {\n  r1 = x0;\n  x0 = 3;\n}\n";
    for model in ["tso", "pso"] {
        for engine in [
            EngineChoice::Smc,
            EngineChoice::Bounded(Some(SolverKind::Varisat)),
            EngineChoice::NormalForm,
        ] {
            assert_eq!(
                robust_verdict(text, model, engine),
                Verdict::NoViolation,
                "{model} {engine:?}"
            );
        }
    }
}

/// Found by fuzz-diff (`--seed 2026`, shrunk): an atomic step at one
/// address that writes and then reads was atomic for the operational
/// engines only; the bounded engine let the other thread's write come
/// between (herd's `rmw` covers a read then a write), so the assertion
/// failed under sc. Every backend now contracts such a step (`stxn`).
#[test]
fn an_atomic_write_then_read_at_one_address_is_indivisible() {
    use bmc_rmm::ask::EngineChoice;
    use bmc_rmm::engines::bounded::SolverKind;
    let text = "shared x;\nthread t0 {\n  x = 1;\n}\nthread t1 {\n  atomic { x = 2; r = x; };\n  assert(r == 2);\n}\n";
    let p = bmc_rmm::frontend::parse_program(
        &bmc_rmm::diag::SourceFile::new("found.rmm", text),
        None,
        bmc_rmm::program::Width(4),
    )
    .expect("parses");
    for model in ["sc", "tso", "power"] {
        let m = bmc_rmm::cat::builtin(model).expect("built-in");
        let qs = [Question::Reach];
        for engine in [
            EngineChoice::Bounded(Some(SolverKind::Varisat)),
            EngineChoice::Bounded(Some(SolverKind::Cdclt)),
        ] {
            let mut req = bmc_rmm::ask::Request::new(&p, &m, Some(model), &qs, 6);
            req.engine = engine;
            req.alone = false;
            req.width = 4;
            let v = bmc_rmm::ask::ask(&req)
                .expect("answers")
                .remove(0)
                .answer
                .verdict;
            assert_eq!(v, Verdict::NoViolation, "{model} {engine:?}");
        }
    }
}

/// The SAT backends of this build (z3 with the `z3` feature).
fn sat_engines() -> Vec<bmc_rmm::ask::EngineChoice> {
    use bmc_rmm::ask::EngineChoice;
    use bmc_rmm::engines::bounded::SolverKind;
    let mut v = vec![
        EngineChoice::Bounded(Some(SolverKind::Varisat)),
        EngineChoice::Bounded(Some(SolverKind::Cdclt)),
    ];
    if cfg!(feature = "z3") {
        v.push(EngineChoice::Bounded(Some(SolverKind::Z3)));
    }
    v
}

/// One question on `text` under `model` at bound 6: the verdict, or the
/// engine's error (a refusal).
fn ask_one(
    text: &str,
    model: &str,
    q: Question,
    engine: bmc_rmm::ask::EngineChoice,
) -> Result<Verdict, bmc_rmm::diag::Error> {
    let p = bmc_rmm::frontend::parse_program(
        &bmc_rmm::diag::SourceFile::new("found.rmm", text),
        None,
        bmc_rmm::program::Width(4),
    )
    .expect("parses");
    let m = bmc_rmm::cat::builtin(model).expect("built-in");
    let qs = [q];
    let mut req = bmc_rmm::ask::Request::new(&p, &m, Some(model), &qs, 6);
    req.engine = engine;
    req.alone = false;
    req.width = 4;
    Ok(bmc_rmm::ask::ask(&req)?.remove(0).answer.verdict)
}

/// Found by fuzz-diff (`--seed 2026`, shrunk): the bounded engine took
/// `lock`/`unlock` as a mutex on a lock cell, so t2's writes could come
/// between the lock section's write and read, and it found an hb cycle
/// under tso. Thesis 003 §7.1.1, Table 7.1: `lock` takes an exclusive
/// lock on memory (the other threads' loads and stores block), so the
/// section is indivisible, as the explicit engine and SMC have it. Under
/// pso t2's stores may be reordered around the section: not robust for
/// every engine.
#[test]
fn a_lock_section_is_indivisible_for_robustness() {
    use bmc_rmm::ask::EngineChoice;
    let text = "shared x0, x1;\nthread t0 { lock; x0 = 2; r0 = x1; unlock; }\nthread t2 { x1 = 2; x0 = 1; }\n";
    let mut engines = sat_engines();
    engines.push(EngineChoice::Smc);
    for engine in engines {
        let v = |m| ask_one(text, m, Question::Robust, engine).expect("answers");
        assert_eq!(v("tso"), Verdict::NoViolation, "tso {engine:?}");
        assert_eq!(v("pso"), Verdict::Violation, "pso {engine:?}");
    }
}

/// A lock section is indivisible for reachability too: another thread
/// never reads the value between two stores of the section, under any
/// model (docs/models.md, "Locks"); without the section it does.
#[test]
fn a_lock_section_is_indivisible_for_reachability() {
    use bmc_rmm::ask::EngineChoice;
    let locked = "shared x;\nthread t0 { lock; x = 1; x = 2; unlock; }\nthread t1 { r = x; assert(r != 1); }\n";
    let plain = "shared x;\nthread t0 { x = 1; x = 2; }\nthread t1 { r = x; assert(r != 1); }\n";
    for model in ["sc", "tso", "pso", "power"] {
        let mut engines = sat_engines();
        if model != "power" {
            engines.push(EngineChoice::Smc);
        }
        for engine in engines {
            let v = |t| ask_one(t, model, Question::Reach, engine).expect("answers");
            assert_eq!(v(locked), Verdict::NoViolation, "{model} {engine:?}");
            assert_eq!(v(plain), Verdict::Violation, "{model} {engine:?}");
        }
    }
}

/// Found by fuzz-diff (`--seed 2026`, shrunk): under pso t0's stores may
/// reach memory out of order, so the atomic step reads x0 = 0 while its
/// x1 store is co-after t0's. hb over events is acyclic (po inside the
/// step goes from the read to the write), but no SC computation in which
/// the step is indivisible has this trace: robustness contracts each
/// indivisible section to one node (SMC's, and now the bounded engine's,
/// hb). Under tso the stores stay in order: robust (the explicit TSO
/// engine's attacks contract the step too). The normal-form engine, whose
/// hb is over events, refuses the program for robustness.
#[test]
fn robustness_contracts_an_atomic_step_over_two_addresses() {
    use bmc_rmm::ask::EngineChoice;
    let text = "shared x0, x1;\nthread t0 { x0 = 1; x1 = 2; }\nthread t1 { atomic { r2 = x0; x1 = 2; }; }\n";
    let mut engines = sat_engines();
    engines.push(EngineChoice::Smc);
    for engine in engines {
        let v = |m| ask_one(text, m, Question::Robust, engine).expect("answers");
        assert_eq!(v("pso"), Verdict::Violation, "pso {engine:?}");
        assert_eq!(v("tso"), Verdict::NoViolation, "tso {engine:?}");
    }
    let explicit = ask_one(text, "tso", Question::Robust, EngineChoice::Explicit);
    assert_eq!(explicit.expect("answers"), Verdict::NoViolation);
    for (engine, model) in [
        (EngineChoice::NormalForm, "tso"),
        (EngineChoice::NormalForm, "pso"),
    ] {
        let e = ask_one(text, model, Question::Robust, engine).expect_err("refused");
        assert!(
            e.to_string()
                .contains("an atomic step over several addresses"),
            "{model} {engine:?}: {e}"
        );
    }
}

/// A lock section that only reads and then writes one address (the
/// compare-and-swap shape of the Trencher examples) is decided by every
/// engine; a lock section with two reads (a contracted cycle may enter at
/// the second read and leave at the first) is decided by the explicit
/// TSO engine, whose attacks contract the section, as by the bounded
/// engine, and refused by the normal-form engine, whose hb is over
/// events.
#[test]
fn lock_sections_beyond_a_read_modify_write_are_contracted_or_refused() {
    use bmc_rmm::ask::EngineChoice;
    let cas = "shared x, y;\nthread t0 { lock; r = x; x = 1; unlock; y = 1; }\nthread t1 { y = 2; r1 = x; }\n";
    let two =
        "shared x, y;\nthread t0 { lock; r = x; r1 = y; unlock; }\nthread t1 { y = 1; x = 1; }\n";
    let sat = |text| ask_one(text, "tso", Question::Robust, sat_engines()[0]).expect("answers");
    for engine in [EngineChoice::Explicit, EngineChoice::NormalForm] {
        let cas_v = ask_one(cas, "tso", Question::Robust, engine).expect("answers");
        assert_eq!(cas_v, sat(cas), "{engine:?}");
    }
    let two_v = ask_one(two, "tso", Question::Robust, EngineChoice::Explicit).expect("answers");
    assert_eq!(two_v, sat(two));
    let e = ask_one(two, "tso", Question::Robust, EngineChoice::NormalForm).expect_err("refused");
    assert!(e.to_string().contains("a lock section"), "{e}");
}

/// Found by fuzz-diff after lock sections became indivisible (`--seed
/// 2026`, program 1232, shrunk): t0 stops inside its lock section (the
/// assertion fails), holding the lock; the bounded engine still let t3's
/// stores come after the section's. A thread that stops holding the lock
/// blocks the others from its `lock` on: no hb edge leaves the section.
#[test]
fn a_thread_stopped_in_its_lock_section_blocks_the_others() {
    use bmc_rmm::ask::EngineChoice;
    let text = "shared x0, x1;\nthread t0 {\n  reg r1, r2;\n  r2 = x0;\n  lock;\n  x1 = 2;\n  assert(r1 == 2);\n  unlock;\n}\nthread t3 {\n  x1 = 2;\n  x0 = 2;\n}\ngoal final;\n";
    let mut engines = sat_engines();
    engines.push(EngineChoice::Smc);
    for engine in engines {
        let v = ask_one(text, "pso", Question::Robust, engine).expect("answers");
        assert_eq!(v, Verdict::NoViolation, "{engine:?}");
    }
}

/// PGAS programs (SPMD programs on 2 or 3 nodes with remote operations
/// and barriers): the SAT backends and the normal-form engine agree on
/// robustness, the backends on reachability, every witness replays, and
/// the comparisons are not vacuous.
#[test]
fn pgas_programs_agree_on_every_engine_pair() {
    let mut o = options(2027);
    o.models = vec!["pgas".into()];
    let runner = Runner::new(o).expect("built-in models");
    let mut s = Summary::default();
    let mut found = Vec::new();
    for i in 0..12 {
        found.extend(runner.check(i, &mut s));
    }
    let table = s.table();
    assert!(found.is_empty(), "disagreements: {found:#?}\n{table}");
    assert!(s.failures.is_empty(), "{:#?}", s.failures);
    let row = |q: &str, pair: &str| {
        s.rows
            .get(&("pgas".to_string(), q.to_string(), pair.to_string()))
            .copied()
            .unwrap_or_default()
    };
    assert!(
        row("robust", "varisat / normal-form").compared >= 6,
        "{table}"
    );
    assert!(row("reach", "varisat / cdclt").compared >= 10, "{table}");
    assert!(
        row("robust", "varisat witness -> cdclt").compared > 0,
        "{table}"
    );
}
