//! The k-round reduction of TSO to SC (`bmc_rmm::engines::tso_reach::kround`) against
//! the operational TSO semantics with per-thread store buffers restricted
//! to K rounds (`bmc_rmm::engines::tso_reach::tso::explore`), on generated small
//! programs (the theorem Reach_TSO^K(P) = Reach_SC(P')), on the classic
//! shapes (SB, MP, Dekker, Peterson) together with the bounded SAT engine
//! and the lazy TSO engine, and on a family that needs exactly K+1 rounds.

use crate::common;

use bmc_rmm::diag::SourceFile;
use bmc_rmm::engines::bounded::{CheckKind, Deadline, Verdict};
use bmc_rmm::engines::explicit::Options;
use bmc_rmm::engines::tso_reach::kround::{kround_reach, translate, Answer};
use bmc_rmm::engines::tso_reach::lazy::{lazy_reach, LazyOptions};
use bmc_rmm::engines::tso_reach::tso::{check_witness, explore, SimOptions, SimVerdict};
use bmc_rmm::frontend::native;
use bmc_rmm::program::{Program, Width};

const W: Width = Width::DEFAULT;

fn parse(text: &str) -> Program {
    native::parse(&SourceFile::new("t.rmm", text), W).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// (k-round engine, TSO simulator within K rounds): reachable?
fn both(p: &Program, k: u32) -> (bool, bool) {
    let kr = kround_reach(p, k, &Options::default()).expect("supported");
    let kr = match kr.answer {
        Answer::Reachable { goal, witness } => {
            check_witness(p, W, &witness, goal).expect("witness replays");
            true
        }
        Answer::Unreachable => false,
        Answer::Unknown(u) => panic!("kround unknown: {u}"),
    };
    let sim = explore(
        p,
        &SimOptions {
            max_rounds: Some(k),
            max_buffer: 64,
            ..SimOptions::default()
        },
    );
    let sim = match sim {
        SimVerdict::Reachable { goal, steps } => {
            check_witness(p, W, &steps, goal).expect("simulator witness replays");
            true
        }
        SimVerdict::Unreachable => false,
        SimVerdict::Unknown(u) => panic!("simulator unknown: {u}"),
    };
    (kr, sim)
}

/// The lazy engine's answer (its witness replayed).
fn lazy(p: &Program) -> bool {
    let o = LazyOptions {
        explicit: Options::default(),
        max_refinements: Some(50),
        deadline: None,
    };
    match lazy_reach(p, &o).expect("supported").answer {
        Answer::Reachable { goal, witness } => {
            check_witness(p, W, &witness, goal).expect("lazy witness replays");
            true
        }
        Answer::Unreachable => false,
        Answer::Unknown(u) => panic!("lazy unknown: {u}"),
    }
}

fn bounded(p: &Program, model: &str) -> bool {
    let m = bmc_rmm::cat::load_model(model, None).unwrap();
    let r = common::check1(CheckKind::Reach, p, &m, 20, W.0, false, Deadline(None));
    match r.verdict {
        Verdict::Violation => true,
        Verdict::NoViolation => false,
        Verdict::Unknown => panic!("bounded unknown"),
    }
}

/// A tiny deterministic generator (xorshift).
struct Rng(u64);
impl Rng {
    fn next(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// A random loop-free program: 2 or 3 threads of 1–3 commands over
/// x, y (stores of 1 or 2, loads, mfence), goal on the final registers.
fn random_program(rng: &mut Rng) -> String {
    let threads = 2 + rng.next(2);
    let mut s = String::from("shared x, y;\n");
    let mut regs = Vec::new();
    for t in 0..threads {
        s.push_str(&format!("thread t{t} {{\n"));
        let n = 1 + rng.next(3);
        for i in 0..n {
            let var = if rng.next(2) == 0 { "x" } else { "y" };
            match rng.next(5) {
                0 | 1 => s.push_str(&format!("  {var} = {};\n", 1 + rng.next(2))),
                2 | 3 => {
                    s.push_str(&format!("  r{i} = {var};\n"));
                    regs.push(format!("t{t}.r{i}"));
                }
                _ => s.push_str("  mfence;\n"),
            }
        }
        s.push_str("}\n");
    }
    let mut cond = Vec::new();
    for r in &regs {
        if rng.next(2) == 0 {
            cond.push(format!("{r} == {}", rng.next(3)));
        }
    }
    if cond.is_empty() {
        s.push_str("goal final;\n");
    } else {
        s.push_str(&format!("goal final where {};\n", cond.join(" && ")));
    }
    s
}

#[test]
fn kround_equals_tso_within_k_rounds_on_generated_programs() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut reachable = [0usize; 4];
    const CASES: usize = 50;
    for case in 0..CASES {
        let text = random_program(&mut rng);
        let p = parse(&text);
        for k in 1..=3u32 {
            let (kr, sim) = both(&p, k);
            assert_eq!(kr, sim, "case {case}, K = {k}:\n{text}");
            reachable[k as usize] += kr as usize;
        }
        // Unbounded: the lazy engine against the simulator (loop-free
        // programs: every buffer fits).
        let sim = matches!(
            explore(&p, &SimOptions::default()),
            SimVerdict::Reachable { .. }
        );
        assert_eq!(lazy(&p), sim, "case {case}, lazy:\n{text}");
    }
    // The generator is not degenerate: some goals are reachable, some not.
    assert!(reachable[1] > 2 && reachable[3] < CASES, "{reachable:?}");
}

#[test]
fn translation_prints_as_a_native_program() {
    let p = parse(&random_program(&mut Rng(7)));
    let tr = translate(&p, 2).unwrap();
    let text = bmc_rmm::program::render::native(&tr.program);
    let q = parse(&text);
    assert_eq!(q.fingerprint(), tr.program.fingerprint());
}

/// A handshake chain: t0 and t1 alternate `m` times, each waiting for the
/// other's last store; the goal (t1 at the end) needs m rounds of each
/// thread (every round ends when the thread waits for the other).
fn handshakes(m: u32) -> String {
    let mut a = String::new();
    let mut b = String::new();
    for i in 1..=m {
        a.push_str(&format!("  x = {i};\n  r = y;\n  assume(r == {i});\n"));
        b.push_str(&format!("  s = x;\n  assume(s == {i});\n  y = {i};\n"));
    }
    format!("shared x, y;\nthread t0 {{\n{a}}}\nthread t1 {{\n{b}  done: nop;\n}}\ngoal t1@done;\n")
}

#[test]
fn k_rounds_are_not_enough_when_k_plus_1_are_needed() {
    for k in 1..=3u32 {
        let p = parse(&handshakes(k + 1));
        assert_eq!(both(&p, k), (false, false), "K = {k}");
        assert_eq!(both(&p, k + 1), (true, true), "K = {}", k + 1);
        assert!(bounded(&p, "tso"), "reachable under TSO (bound 20)");
        assert!(lazy(&p), "lazy: reachable under TSO");
    }
}

const SB: &str = "shared x, y;
thread t0 { x = 1; r1 = y; }
thread t1 { y = 1; r2 = x; }
goal final where t0.r1 == 0 && t1.r2 == 0;";

const MP: &str = "shared x, y;
thread t0 { x = 1; y = 1; }
thread t1 { r1 = y; r2 = x; }
goal final where t1.r1 == 1 && t1.r2 == 0;";

const DEKKER: &str = "shared f0, f1;
thread t0 { f0 = 1; r = f1; if (r == 0) { cs: nop; } }
thread t1 { f1 = 1; r = f0; if (r == 0) { cs: nop; } }
goal t0@cs, t1@cs;";

const PETERSON: &str = "shared f0, f1, turn;
thread t0 { f0 = 1; turn = 1; a = f1; b = turn; if (a == 0 || b == 0) { cs: nop; } }
thread t1 { f1 = 1; turn = 0; a = f0; b = turn; if (a == 0 || b == 1) { cs: nop; } }
goal t0@cs, t1@cs;";

#[test]
fn classic_shapes_agree_across_engines() {
    // (name, program, reachable under TSO, reachable under SC)
    let fenced = |s: &str, after: &str| s.replacen(after, &format!("{after} mfence;"), 2);
    let cases = [
        ("SB", SB.to_string(), true, false),
        ("SB+mfences", fenced(SB, "= 1;"), false, false),
        ("MP", MP.to_string(), false, false),
        ("Dekker", DEKKER.to_string(), true, false),
        ("Dekker+mfences", fenced(DEKKER, "= 1;"), false, false),
        ("Peterson", PETERSON.to_string(), true, false),
    ];
    for (name, text, tso, sc) in cases {
        let p = parse(&text);
        assert_eq!(bounded(&p, "tso"), tso, "{name}: bounded tso");
        assert_eq!(bounded(&p, "sc"), sc, "{name}: bounded sc");
        assert_eq!(lazy(&p), tso, "{name}: lazy");
        for k in 2..=3 {
            assert_eq!(both(&p, k), (tso, tso), "{name}: kround/simulator K = {k}");
        }
        let unbounded = explore(&p, &SimOptions::default());
        assert_eq!(
            matches!(unbounded, SimVerdict::Reachable { .. }),
            tso,
            "{name}: simulator"
        );
    }
}

#[test]
fn unsupported_programs_are_errors() {
    let p = parse("shared x; thread t { lock; x = 1; unlock; } goal anywhere;");
    let e = translate(&p, 2).unwrap_err().to_string();
    assert!(e.contains("lock"), "{e}");
    let p = parse("shared x; thread t { x = 1; } goal final where x == 1;");
    let e = translate(&p, 2).unwrap_err().to_string();
    assert!(e.contains("memory"), "{e}");
    assert!(translate(&parse(SB), 0).is_err());
}
