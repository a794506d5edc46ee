//! The bounded SAT engine on classic programs with known verdicts under SC
//! and TSO (always run), and on the Trencher corpus (when present).

use bmc_rmm::diag::SourceFile;
use bmc_rmm::engines::bounded::Verdict;
use bmc_rmm::engines::bounded::{
    varisat::{Encoder, Lit},
    Deadline,
};
use bmc_rmm::frontend::{native, trencher};
use bmc_rmm::program::{Program, Width};

fn prog(src: &str) -> Program {
    native::parse(&SourceFile::new("t.rmm", src), Width::DEFAULT).expect("parses")
}

fn run(p: &Program, model: &str, bound: u32) -> (Verdict, Verdict) {
    let m = bmc_rmm::cat::builtin(model).unwrap();
    let r = check1(
        bmc_rmm::engines::bounded::CheckKind::Reach,
        p,
        &m,
        bound,
        Width::DEFAULT.0,
        false,
        Deadline(None),
    );
    let b = check1(
        bmc_rmm::engines::bounded::CheckKind::Robust,
        p,
        &m,
        bound,
        Width::DEFAULT.0,
        false,
        Deadline(None),
    );
    (r.verdict, b.verdict)
}

fn example(name: &str) -> Program {
    let path = format!("{}/examples/{name}", env!("CARGO_MANIFEST_DIR"));
    bmc_rmm::frontend::load_program(&path, None, Width::DEFAULT).unwrap()
}

use crate::common;
use common::check1;
use Verdict::{NoViolation as No, Violation as Yes};

#[test]
fn classic_examples_sc_and_tso() {
    // (file, reach SC, robust SC, reach TSO, robust TSO)
    let table = [
        ("sb.rmm", No, No, Yes, Yes),
        ("sb-fenced.rmm", No, No, No, No),
        ("mp.rmm", No, No, No, No),
        ("lb.rmm", No, No, No, No),
        ("iriw.rmm", No, No, No, No),
        ("dekker.rmm", No, No, Yes, Yes),
        ("peterson.rmm", No, No, Yes, Yes),
    ];
    for (f, rsc, bsc, rtso, btso) in table {
        let p = example(f);
        assert_eq!(run(&p, "sc", 10), (rsc, bsc), "{f} under sc");
        assert_eq!(run(&p, "tso", 10), (rtso, btso), "{f} under tso");
    }
}

#[test]
fn two_plus_two_w_and_lock_xchg() {
    // 2+2W: forbidden under TSO (stores leave the buffer in order).
    let p = prog(
        "shared x, y; thread t0 { x = 1; y = 2; } thread t1 { y = 1; x = 2; }
         goal final where x == 1 && y == 1;",
    );
    assert_eq!(run(&p, "sc", 5).0, No);
    assert_eq!(run(&p, "tso", 5).0, No);
    // SB with xchg (locked instruction) instead of plain stores: robust under TSO.
    let p = prog(
        "shared x, y; thread t0 { a = xchg(x, 1); r1 = y; } thread t1 { b = xchg(y, 1); r2 = x; }
         goal final where t0.r1 == 0 && t1.r2 == 0;",
    );
    assert_eq!(run(&p, "tso", 5), (No, No));
    // Mutual exclusion with lock/unlock holds under TSO.
    let p = prog(
        "shared c; thread t0 { lock; r = c; c = r + 1; unlock; } thread t1 { lock; s = c; c = s + 1; unlock; }
         goal final where c != 2;",
    );
    assert_eq!(run(&p, "tso", 6).0, No);
    // Without the lock, an increment is lost.
    let p = prog(
        "shared c; thread t0 { r = c; c = r + 1; } thread t1 { s = c; c = s + 1; }
         goal final where c != 2;",
    );
    assert_eq!(run(&p, "sc", 6).0, Yes);
}

#[test]
fn store_forwarding_and_values() {
    // A thread reads its own buffered store early: SB+rfi shape allowed under TSO.
    let p = prog(
        "shared x, y; thread t0 { x = 1; a = x; b = y; } thread t1 { y = 1; c = y; d = x; }
         goal final where t0.a == 1 && t0.b == 0 && t1.c == 1 && t1.d == 0;",
    );
    assert_eq!(run(&p, "tso", 6).0, Yes);
    assert_eq!(run(&p, "sc", 6).0, No);
    // Arithmetic and address computation: pointer chasing.
    let p = prog(
        "shared x = 7, p; thread t0 { p = &x; } thread t1 { a = p; b = mem[a]; }
         goal final where t1.a == 0 && t1.b != 0;",
    );
    // t1 reads p = 0 then mem[0] = x's cell... x is at address 0 and holds 7.
    assert_eq!(run(&p, "sc", 4).0, Yes);
    let p = prog("shared x; thread t { x = 5 * 3 - 20 / 3; r = x; } goal final where t.r == 9;");
    assert_eq!(run(&p, "sc", 3).0, Yes);
}

#[test]
fn assertion_and_truncation_are_reported() {
    let p = prog("shared x; thread t { while (1) { x = 1; } } thread u { r = x; assert(r == 0); }");
    let m = bmc_rmm::cat::builtin("sc").unwrap();
    let r = check1(
        bmc_rmm::engines::bounded::CheckKind::Reach,
        &p,
        &m,
        4,
        16,
        false,
        Deadline(None),
    );
    assert_eq!(r.verdict, Yes);
    assert_eq!(r.truncated, vec!["t".to_string()]);
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("t.rmm");
    std::fs::write(&f, bmc_rmm::program::render::native(&p)).unwrap();
    let out = common::bin()
        .args(["reach", "--model", "sc", "--bound", "4"])
        .arg(&f)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("an assertion failure is reachable"), "{text}");
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn robust_witness_is_a_readable_cycle() {
    let p = example("sb.rmm");
    let m = bmc_rmm::cat::builtin("tso").unwrap();
    let r = check1(
        bmc_rmm::engines::bounded::CheckKind::Robust,
        &p,
        &m,
        10,
        16,
        false,
        Deadline(None),
    );
    assert_eq!(r.verdict, Yes);
    let x = r.witness.as_ref().unwrap();
    let chain = x.render_cycle(r.cycle.as_ref().unwrap());
    assert_eq!(chain.matches(" -po-> ").count(), 2, "{chain}");
    assert_eq!(chain.matches(" -fr-> ").count(), 2, "{chain}");
    let (w, l) = r.attack.unwrap();
    assert_eq!(x.event(w).unwrap().kind, "W");
    assert_eq!(x.event(l).unwrap().kind, "R");
    let dot = x.to_dot(&p, r.cycle.as_ref(), &r.fr);
    assert!(
        dot.starts_with("digraph") && dot.contains("color=red"),
        "{dot}"
    );
}

#[test]
fn eager_and_lazy_agree() {
    for f in ["sb.rmm", "mp.rmm", "dekker.rmm", "iriw.rmm"] {
        let p = example(f);
        for model in ["sc", "tso"] {
            let m = bmc_rmm::cat::builtin(model).unwrap();
            let b = Encoder::new(&p, &m, 8, 16, true);
            assert!(!b.eager.is_empty());
            let reach = bmc_rmm::engines::bounded::CheckKind::Reach;
            assert_eq!(
                check1(reach, &p, &m, 8, 16, false, Deadline(None)).verdict,
                check1(reach, &p, &m, 8, 16, true, Deadline(None)).verdict,
                "{f} {model}"
            );
        }
    }
}

/// An axiom that reads a `let` the eager encoder cannot evaluate
/// symbolically (here a closure below the top level) stays lazy. The
/// encoder used to read such a `let` as the empty relation, which turned
/// `(po | co) \ h` (always empty) into `po | co` and lost 2+2W.
#[test]
fn eager_keeps_axioms_over_unevaluable_lets_lazy() {
    let p = prog(
        "shared x, y;
        thread t0 { x = 1; y = 2; }
        thread t1 { y = 1; x = 2; }
        goal final where x == 1 && y == 1;",
    );
    let m = bmc_rmm::cat::parse::parse_model(&SourceFile::new(
        "weak.cat",
        "let h = (po | co)+
         acyclic (po | co) \\ h as a
         acyclic po-loc | com as sc-per-location",
    ))
    .unwrap();
    let b = Encoder::new(&p, &m, 6, 16, true);
    assert_eq!(b.eager, ["sc-per-location"]);
    let reach = bmc_rmm::engines::bounded::CheckKind::Reach;
    for eager in [false, true] {
        let r = check1(reach, &p, &m, 6, 16, eager, Deadline(None));
        assert_eq!(r.verdict, Yes, "eager = {eager}");
    }
}

/// Corpus: every Trencher file marked not robust has an hb cycle under TSO
/// within bound 20 (found at the smallest depth by iterative deepening);
/// files marked robust have none up to bound 6 (larger bounds are in the
/// benchmark table of docs/performance.md).
#[test]
fn trencher_corpus_tso() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpus/trencher");
    let Some(tsv) = common::corpus("trencher/EXPECTED.tsv") else {
        return;
    };
    let tsv = std::fs::read_to_string(tsv).unwrap();
    let m = bmc_rmm::cat::builtin("tso").unwrap();
    for line in tsv.lines().skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        let (file, robust) = (cols[0], cols[1]);
        if robust == "?" {
            continue;
        }
        let src = SourceFile::read(&format!("{dir}/{file}")).unwrap();
        let p = trencher::parse(&src, Width::DEFAULT).unwrap();
        let bound = if robust == "no" { 20 } else { 6 };
        let deadline = Deadline(Some(
            std::time::Instant::now() + std::time::Duration::from_secs(60),
        ));
        let r = check1(
            bmc_rmm::engines::bounded::CheckKind::Robust,
            &p,
            &m,
            bound,
            16,
            false,
            deadline,
        );
        let want = if robust == "no" { Yes } else { No };
        assert_eq!(r.verdict, want, "{file} (bound {bound})");
    }
}

/// `Thread::cut_by`: a loop-free thread of 2 steps is cut by bound 1 but
/// not by 2 or more; a looping thread is cut by every bound.
#[test]
fn cut_by_follows_the_control_flow() {
    let p = prog("shared x, y; thread t { x = 1; y = 1; } thread u { while (1) { x = 2; } }");
    let (t, u) = (&p.threads[0], &p.threads[1]);
    assert!(t.cut_by(1));
    assert!(!t.cut_by(2) && !t.cut_by(3) && !t.cut_by(30));
    assert!(u.cut_by(1) && u.cut_by(7) && u.cut_by(30));
}

/// The staged search of `check_on` (a session per deepening level, then
/// the full bound) answers as one session at the full bound deepening by
/// assumptions (`check_on_one`): reach and robust under sc, tso, pso and
/// power at bounds 3, 9 and 12 on the classic examples, the same
/// verdicts and truncated threads, and a violation's witness within the
/// bound.
#[test]
fn staged_and_one_session_agree() {
    use bmc_rmm::engines::bounded::queries::{check_on, check_on_one};
    use bmc_rmm::engines::bounded::{backend, CheckKind, Limits, Query, SolverKind};
    let files = ["sb.rmm", "dekker.rmm", "peterson.rmm", "mp.rmm", "iriw.rmm"];
    let kinds = [CheckKind::Reach, CheckKind::Robust];
    let b = backend(SolverKind::Varisat, false).unwrap();
    let mut violations = 0;
    for f in files {
        let p = example(f);
        for model in ["sc", "tso", "pso", "power"] {
            let m = bmc_rmm::cat::builtin(model).unwrap();
            for bound in [3, 9, 12] {
                let limits = Limits {
                    bound,
                    width: Width::DEFAULT.0,
                    deadline: Deadline(None),
                    switches: Default::default(),
                };
                let q = Query {
                    program: &p,
                    model: &m,
                    limits,
                };
                let staged = check_on(&*b, &q, &kinds).unwrap();
                let one = check_on_one(&*b, &q, &kinds).unwrap();
                for (s, o) in staged.iter().zip(&one) {
                    let at = format!("{f} {model} bound {bound} {:?}", s.check);
                    assert_eq!(s.verdict, o.verdict, "{at}");
                    assert_eq!(s.truncated, o.truncated, "{at}");
                    if let Some(x) = &s.witness {
                        violations += 1;
                        let steps = x.events.iter().map(|e| e.step + 1).max().unwrap_or(0);
                        assert!(steps <= bound, "{at}: a step beyond the bound");
                    }
                }
            }
        }
    }
    assert!(
        violations > 10,
        "only {violations} violations: the test lost its cases"
    );
}

/// co's transitivity is encoded up front for the 67,525 co triangles of
/// three threads with 25 writes to `x` each (over the former limit of
/// 20,000, under the current 200,000): the encoding alone, without the
/// model's axioms, admits no co 3-cycle of three writes of different
/// threads, while the same three writes ordered one way are a candidate.
#[test]
fn co_transitivity_is_eager_for_tens_of_thousands_of_triangles() {
    let body = |v: u32| format!("{{ {} }}", format!("x = {v}; ").repeat(25));
    let src = format!(
        "shared x; thread a {} thread b {} thread c {}",
        body(1),
        body(2),
        body(3)
    );
    let p = prog(&src);
    let m = bmc_rmm::cat::builtin("sc").unwrap();
    let mut enc = Encoder::lazy(&p, &m, 25, Width::DEFAULT.0, None);
    let write = |t: u32, step: u32| {
        (enc.un.events.iter())
            .find(|e| e.thread.0 == t && e.step == step && e.may_write)
            .map(|e| e.id)
            .expect("a write")
    };
    let (a, b, c) = (write(0, 3), write(1, 7), write(2, 11));
    let exec: Vec<_> = [a, b, c].iter().map(|&e| enc.exec_lit(e)).collect();
    let mut co = |x: usize, y: usize| enc.co_lit(x, y).expect("may be co-related");
    let (ab, bc, ca, ac) = (co(a, b), co(b, c), co(c, a), co(a, c));
    let solve = |enc: &mut Encoder, ls: &[Lit]| {
        let all: Vec<_> = exec.iter().chain(ls).copied().collect();
        enc.solve_boolean(&all, Deadline(None)).unwrap()
    };
    assert!(solve(&mut enc, &[ab, bc, ac]), "an order of three writes");
    assert!(!solve(&mut enc, &[ab, bc, ca]), "a co cycle");
}
