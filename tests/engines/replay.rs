//! Witness replay (`Encoder::pin`) and the encoder-free hb cycle
//! (`Execution::hb_cycle`).
//!
//! * Round trip: for the examples (`examples/*.rmm`, PGAS ones under
//!   `pgas`) and the litmus tests of `tests/litmus`, under sc, tso, pso and
//!   power, witnesses (robustness, goals, any terminated execution) pinned
//!   on a fresh encoder replay to the same execution, also with the ids
//!   renumbered as another backend would.
//! * Mutations (a read's value, an rf edge, a co chain, a path step) are
//!   rejected (`None` or `Err`); a TSO witness of SB does not replay under
//!   SC; a path longer than the bound is an `Err`.
//! * `Execution::hb_cycle` agrees with the encoder-based cycle.

use bmc_rmm::cat::Model;
use bmc_rmm::diag::SourceFile;
use bmc_rmm::engines::bounded::queries::solve_shortest;
use bmc_rmm::engines::bounded::varisat::{Encoder, Lit, VarisatSession};
use bmc_rmm::engines::bounded::{Deadline, Execution, Session};
use bmc_rmm::frontend::native;
use bmc_rmm::litmus;
use bmc_rmm::program::{Program, Width};
use std::path::PathBuf;

const MODELS: [&str; 4] = ["sc", "tso", "pso", "power"];

struct Case {
    name: String,
    prog: Program,
    width: u32,
    bound: u32,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn files(dir: &str, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    v.sort();
    v
}

fn examples() -> Vec<Case> {
    files("examples", "rmm")
        .into_iter()
        .map(|p| Case {
            name: p.file_name().unwrap().to_string_lossy().into(),
            prog: bmc_rmm::frontend::load_program(p.to_str().unwrap(), None, Width::DEFAULT)
                .unwrap(),
            width: Width::DEFAULT.0,
            bound: 6,
        })
        .collect()
}

fn litmus_tests() -> Vec<Case> {
    files("tests/litmus", "litmus")
        .into_iter()
        .map(|p| {
            let t = bmc_rmm::frontend::litmus::parse(
                &SourceFile::read(p.to_str().unwrap()).unwrap(),
                Width::DEFAULT,
            )
            .unwrap();
            Case {
                name: p.file_name().unwrap().to_string_lossy().into(),
                width: litmus::run::auto_width(&t).0,
                bound: litmus::run::effective_bound(&t, 2),
                prog: t.program,
            }
        })
        .collect()
}

fn pgas_examples() -> Vec<Case> {
    files("examples/pgas", "rmm")
        .into_iter()
        .map(|p| {
            let prog =
                bmc_rmm::frontend::load_program(p.to_str().unwrap(), None, Width::DEFAULT).unwrap();
            Case {
                name: p.file_name().unwrap().to_string_lossy().into(),
                prog: bmc_rmm::program::pgas::prepare(prog, None, Width::DEFAULT).unwrap(),
                width: Width::DEFAULT.0,
                bound: 8,
            }
        })
        .collect()
}

fn model(name: &str) -> Model {
    bmc_rmm::cat::builtin(name).unwrap()
}

/// The shortest execution satisfying `lit` (iterative deepening, as the
/// queries search), with the encoder for inspecting the candidate.
fn find_shortest(e: Encoder<'_>, lit: Lit) -> (Encoder<'_>, Option<Execution>) {
    let mut s = VarisatSession::new(e);
    let c = s.cond(lit);
    let found = solve_shortest(&mut s, &[c], Deadline(None)).unwrap();
    let x = found.then(|| s.execution());
    (s.enc, x)
}

fn enc<'a>(c: &'a Case, m: &'a Model) -> Encoder<'a> {
    Encoder::new(&c.prog, m, c.bound, c.width, false)
}

/// Replays `x` on a fresh encoder: Ok(Some(replayed)), Ok(None) (not an
/// execution of the model), Err (cannot be mapped).
fn replay(c: &Case, m: &Model, x: &Execution) -> Result<Option<Execution>, String> {
    let mut e = enc(c, m);
    let lits = e.pin(x)?;
    Ok(e.find(&lits, Deadline(None)).unwrap())
}

fn rejected(c: &Case, m: &Model, x: &Execution) -> bool {
    !matches!(replay(c, m, x), Ok(Some(_)))
}

/// The execution with every id shifted and permuted (another backend's
/// numbering); names (thread, step, ord) are unchanged.
fn renumbered(x: &Execution) -> Execution {
    let n = x.events.len();
    let new_id = |id: usize| {
        let pos = x.events.iter().position(|e| e.id == id).unwrap();
        1000 + (n - 1 - pos) * 7
    };
    let mut y = x.clone();
    for e in &mut y.events {
        e.id = new_id(e.id);
    }
    y.rf = x.rf.iter().map(|&(w, r)| (new_id(w), new_id(r))).collect();
    y.rf_init = x.rf_init.iter().map(|&r| new_id(r)).collect();
    y.co =
        x.co.iter()
            .map(|c| c.iter().map(|&i| new_id(i)).collect())
            .collect();
    y
}

/// Witnesses of `c` under `m`: a robustness witness, a witness per goal,
/// and some terminated execution. For robustness witnesses, also checks
/// `Execution::hb_cycle` against the encoder-based cycle.
fn witnesses(c: &Case, m: &Model, hb_checked: &mut usize) -> Vec<(String, Execution)> {
    let mut out = Vec::new();
    let mut e = enc(c, m);
    let act = e.robust_act();
    let (mut e, found) = find_shortest(e, act);
    if let Some(x) = found {
        if e.pgas.is_none() {
            let (cyc, fr) =
                bmc_rmm::engines::bounded::varisat::extract::hb_cycle_of_candidate(&mut e, &x);
            let (cyc2, fr2) = x.hb_cycle();
            assert_eq!(fr, fr2, "{}: fr", c.name);
            assert_eq!(
                cyc.map(|c| c.edges),
                cyc2.map(|c| c.edges),
                "{}: cycle",
                c.name
            );
            *hb_checked += 1;
        } else {
            assert_eq!(
                bmc_rmm::engines::bounded::varisat::extract::hb_cycle_of_candidate(&mut e, &x).1,
                x.hb_cycle().1
            );
        }
        out.push(("robust".to_string(), x));
    }
    for g in 0..c.prog.goals.len() {
        let mut e = enc(c, m);
        let l = e.goal_lit(g);
        let (_, found) = find_shortest(e, l);
        if let Some(x) = found {
            out.push((format!("goal {g}"), x));
        }
    }
    let mut e = enc(c, m);
    let fin = e.all_final();
    if let Some(x) = e.find(&[fin], Deadline(None)).unwrap() {
        out.push(("final".to_string(), x));
    }
    out
}

fn json(x: &Execution) -> String {
    serde_json::to_string(x).unwrap()
}

/// Round trip and mutations for one case under one model; returns the
/// number of (witnesses, rejected mutations).
fn check_case(c: &Case, mname: &str, hb_checked: &mut usize) -> (usize, usize) {
    let m = model(mname);
    let ws = witnesses(c, &m, hb_checked);
    let mut mutations = 0;
    for (what, x) in &ws {
        let ctx = format!("{} [{mname}] {what}", c.name);
        // Same backend: the replay is the execution itself.
        let y = replay(c, &m, x)
            .unwrap_or_else(|e| panic!("{ctx}: {e}"))
            .unwrap_or_else(|| panic!("{ctx}: replay found no execution"));
        assert_eq!(json(x), json(&y), "{ctx}");
        // Another backend's ids.
        let z = replay(c, &m, &renumbered(x))
            .unwrap_or_else(|e| panic!("{ctx} (renumbered): {e}"))
            .unwrap_or_else(|| panic!("{ctx} (renumbered): no execution"));
        assert_eq!(json(x), json(&z), "{ctx} (renumbered)");

        // A read's value.
        if let Some(i) = x.events.iter().position(|e| e.kind == "R") {
            let mut y = x.clone();
            y.events[i].value ^= 1;
            assert!(
                matches!(replay(c, &m, &y), Ok(None)),
                "{ctx}: changed read value accepted"
            );
            mutations += 1;
        }
        // An rf edge redirected to another write of the location with
        // another value (from a write, or from the initial value).
        for r in x.events.iter().filter(|e| e.kind == "R") {
            let src = x.rf.iter().find(|p| p.1 == r.id).map(|p| p.0);
            let other = x.events.iter().find(|w| {
                w.kind == "W"
                    && Some(w.id) != src
                    && (w.lock, w.addr) == (r.lock, r.addr)
                    && w.value != r.value
            });
            if let Some(w) = other {
                let mut y = x.clone();
                y.rf.retain(|p| p.1 != r.id);
                y.rf_init.retain(|&i| i != r.id);
                y.rf.push((w.id, r.id));
                match replay(c, &m, &y) {
                    Ok(None) => {}
                    Err(e) => assert!(e.contains("never"), "{ctx}: {e}"),
                    Ok(Some(_)) => panic!("{ctx}: redirected rf accepted"),
                }
                mutations += 1;
                break;
            }
        }
        // A co chain of two writes of one thread reversed (po and co agree).
        for (ci, chain) in x.co.iter().enumerate() {
            if chain.len() == 2
                && x.event(chain[0]).unwrap().thread == x.event(chain[1]).unwrap().thread
            {
                let mut y = x.clone();
                y.co[ci].reverse();
                assert!(
                    matches!(replay(c, &m, &y), Ok(None)),
                    "{ctx}: reversed co accepted"
                );
                mutations += 1;
            }
        }
        // A step dropped from a path: the first, or the last one (keeping
        // the events).
        if let Some(t) = x.path.iter().position(|p| !p.is_empty()) {
            let mut y = x.clone();
            y.path[t].remove(0);
            y.steps[t] -= 1;
            assert!(rejected(c, &m, &y), "{ctx}: dropped first step accepted");
            if x.events.iter().any(|e| e.thread as usize == t) {
                let mut y = x.clone();
                y.path[t].pop();
                y.steps[t] -= 1;
                let last = y.path[t].len() as u32;
                if x.events
                    .iter()
                    .any(|e| e.thread as usize == t && e.step == last)
                {
                    assert!(rejected(c, &m, &y), "{ctx}: dropped last step accepted");
                }
            }
            mutations += 1;
        }
    }
    (ws.len(), mutations)
}

fn run_all(cases: &[Case], models: &[&str]) {
    let (mut n, mut muts, mut hb) = (0, 0, 0);
    for c in cases {
        for m in models {
            let (a, b) = check_case(c, m, &mut hb);
            n += a;
            muts += b;
        }
    }
    eprintln!("{n} witnesses replayed, {muts} mutations rejected, {hb} hb cycles compared");
    assert!(n >= cases.len() * models.len());
    assert!(muts > 0);
}

#[test]
fn examples_round_trip_and_mutations() {
    run_all(&examples(), &MODELS);
}

#[test]
fn litmus_round_trip_and_mutations() {
    run_all(&litmus_tests(), &MODELS);
}

#[test]
fn pgas_round_trip_and_mutations() {
    run_all(&pgas_examples(), &["pgas", "sc"]);
}

fn native(name: &str, src: &str, bound: u32) -> Case {
    Case {
        name: name.into(),
        prog: native::parse(&SourceFile::new("t.rmm", src), Width::DEFAULT).unwrap(),
        width: Width::DEFAULT.0,
        bound,
    }
}

#[test]
fn tso_witness_of_sb_does_not_replay_under_sc() {
    let mut cases = examples()
        .into_iter()
        .filter(|c| c.name == "sb.rmm" || c.name == "dekker.rmm")
        .collect::<Vec<_>>();
    cases.extend(
        litmus_tests()
            .into_iter()
            .filter(|c| c.name == "X86-SB.litmus"),
    );
    assert_eq!(cases.len(), 3);
    let (tso, sc) = (model("tso"), model("sc"));
    for c in &cases {
        let mut e = enc(c, &tso);
        let act = e.robust_act();
        let x = find_shortest(e, act)
            .1
            .unwrap_or_else(|| panic!("{}: robust under tso", c.name));
        assert!(replay(c, &tso, &x).unwrap().is_some(), "{}", c.name);
        assert!(
            replay(c, &model("pso"), &x).unwrap().is_some(),
            "{}",
            c.name
        );
        assert!(replay(c, &sc, &x).unwrap().is_none(), "{}", c.name);
    }
}

#[test]
fn reversed_co_breaking_coherence_is_rejected() {
    // CoRR-like: t2 reads 1 then 2, so co must be x=1 before x=2 (writes
    // of different threads).
    let c = native(
        "corr",
        "shared x; thread t0 { x = 1; } thread t1 { x = 2; }
         thread t2 { a = x; b = x; }
         goal final where t2.a == 1 && t2.b == 2;",
        3,
    );
    for mname in MODELS {
        let m = model(mname);
        let mut e = enc(&c, &m);
        let g = e.goal_lit(0);
        let x = e.find(&[g], Deadline(None)).unwrap().unwrap();
        assert!(replay(&c, &m, &x).unwrap().is_some());
        let ci = x.co.iter().position(|ch| ch.len() == 2).unwrap();
        let mut y = x.clone();
        y.co[ci].reverse();
        assert!(matches!(replay(&c, &m, &y), Ok(None)), "{mname}");
    }
}

#[test]
fn unmappable_executions_are_errors() {
    const SB: &str = "shared x, y; thread t0 { x = 1; r1 = y; } thread t1 { y = 1; r2 = x; }";
    let c = native("sb", SB, 4);
    let m = model("sc");
    let mut e = enc(&c, &m);
    let fin = e.all_final();
    let x = e.find(&[fin], Deadline(None)).unwrap().unwrap();
    let short = Case {
        bound: 1,
        ..native("sb", SB, 1)
    };
    let err = |y: &Execution, cc: &Case| {
        let mut e = enc(cc, &m);
        e.pin(y).expect_err("should not map")
    };
    // Longer than the bound.
    assert!(err(&x, &short).contains("bound"), "{}", err(&x, &short));
    // Not a candidate instruction.
    let mut y = x.clone();
    y.path[0][1] = 0;
    assert!(err(&y, &c).contains("candidate"));
    // No such event (ord too large).
    let mut y = x.clone();
    y.events[0].ord = 5;
    assert!(err(&y, &c).contains("no such event"));
    // An rf edge from an unknown event.
    let mut y = x.clone();
    let r = y.events.iter().find(|e| e.kind == "R").unwrap().id;
    y.rf.retain(|p| p.1 != r);
    y.rf_init.retain(|&i| i != r);
    y.rf.push((9999, r));
    assert!(err(&y, &c).contains("not in the execution"));
    // A read without source.
    y.rf.pop();
    assert!(err(&y, &c).contains("no rf source"));
    // Wrong number of threads.
    let mut y = x.clone();
    y.path.pop();
    assert!(err(&y, &c).contains("threads"));
    // A value that does not fit the width.
    let mut y = x.clone();
    y.events[0].value = 1 << 40;
    assert!(err(&y, &c).contains("fit"));
    // An rf pair that can never be rf-related (x = 1 and r1 = y: two
    // constant, different addresses).
    let mut y = x.clone();
    let (wr, rd) = {
        let t0: Vec<_> = y.events.iter().filter(|e| e.thread == 0).collect();
        (t0[0].id, t0[1].id)
    };
    y.rf.retain(|p| p.1 != rd);
    y.rf_init.retain(|&i| i != rd);
    y.rf.push((wr, rd));
    assert!(err(&y, &c).contains("never"));
}

#[test]
fn hb_cycle_from_execution_matches_the_encoder() {
    let mut n = 0;
    let cases: Vec<Case> = examples().into_iter().chain(litmus_tests()).collect();
    for c in &cases {
        for mname in ["tso", "power"] {
            let m = model(mname);
            let mut e = enc(c, &m);
            let act = e.robust_act();
            let (mut e, found) = find_shortest(e, act);
            if let Some(x) = found {
                let (cyc, fr) =
                    bmc_rmm::engines::bounded::varisat::extract::hb_cycle_of_candidate(&mut e, &x);
                let (cyc2, fr2) = x.hb_cycle();
                assert!(cyc.is_some(), "{}", c.name);
                assert_eq!(fr, fr2, "{} [{mname}]", c.name);
                assert_eq!(
                    cyc.map(|c| c.edges),
                    cyc2.map(|c| c.edges),
                    "{} [{mname}]",
                    c.name
                );
                n += 1;
            }
        }
    }
    assert!(n >= 5, "{n}");
}

#[test]
fn atomics_locks_and_store_conditionals() {
    let c = native(
        "atomics",
        "shared x, y, l;
         thread t0 { u = lwarx(x); stwcx(x, u + 1) -> ok; lock; y = 1; unlock; }
         thread t1 { v = lwarx(x); stwcx(x, v + 2) -> ok; r = cas(y, 0, 2); s = xchg(l, 3); }
         goal final where t0.ok == 0;
         goal final where t0.ok == 1 && t1.ok == 1;",
        6,
    );
    for mname in MODELS {
        let m = model(mname);
        let mut hb = 0;
        let (n, _) = check_case(&c, mname, &mut hb);
        assert!(n >= 3, "{mname}: {n}");
        // A successful store-conditional of t0 removed from the execution:
        // the replay makes it fail (it is absent, so no write), which is
        // an execution too, with t0.ok == 0.
        let mut e = enc(&c, &m);
        let g = e.goal_lit(1);
        let x = e.find(&[g], Deadline(None)).unwrap().unwrap();
        assert!(x.events.iter().any(|e| e.lock), "{mname}: lock cell");
        // The store-conditional (step 1) whose write nobody reads.
        let (t, sc) = x
            .events
            .iter()
            .filter(|e| e.step == 1 && e.kind == "W" && e.thread < 2)
            .find(|e| x.rf.iter().all(|p| p.0 != e.id))
            .map(|e| (e.thread as usize, e.id))
            .unwrap();
        let mut y = x.clone();
        y.events.retain(|e| e.id != sc);
        for ch in &mut y.co {
            ch.retain(|&i| i != sc);
        }
        let z = replay(&c, &m, &y).unwrap().expect("failing stwcx");
        assert_eq!(z.regs[t][1], 0, "{mname}: ok of thread {t}");
        assert!(z.event(sc).is_none());
        // The lock read's value changed: the lock must read 0.
        let mut y = x.clone();
        let i = y
            .events
            .iter()
            .position(|e| e.lock && e.kind == "R")
            .unwrap();
        y.events[i].value = 1;
        assert!(rejected(&c, &m, &y), "{mname}: lock read 1");
    }
}
