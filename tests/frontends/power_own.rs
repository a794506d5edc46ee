//! Own tests of the Power, PSO and RMO models: classic litmus shapes
//! (`tests/litmus/PPC-*.litmus`) with their known Power verdicts
//! (Herding cats §6; the PPC catalogue), and robustness of small programs
//! under PSO (thesis 003 §5.2). The Trencher `pso.txt` check needs the
//! shared corpus and is skipped without it.

use crate::common;

use bmc_rmm::cat;
use bmc_rmm::diag::SourceFile;
use bmc_rmm::engines::bounded::Deadline;
use bmc_rmm::litmus::herd::Verdict;
use bmc_rmm::litmus::run;
use bmc_rmm::program::Width;
use std::path::PathBuf;

fn verdict(model: &str, file: &str) -> Verdict {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/litmus")
        .join(format!("{file}.litmus"));
    let src = SourceFile::read(p.to_str().unwrap()).unwrap();
    let t = bmc_rmm::frontend::litmus::parse(&src, Width(32)).unwrap();
    let m = cat::builtin(model).unwrap();
    let r = run::run(
        &t,
        &m,
        12,
        run::auto_width(&t),
        Deadline(None),
        bmc_rmm::engines::bounded::SolverKind::Varisat,
    )
    .expect("varisat");
    r.observation.expect("no timeout").verdict()
}

/// (file, verdict under power)
const POWER: &[(&str, Verdict)] = &[
    ("PPC-MP", Verdict::Allowed),
    ("PPC-MP+lwsyncs", Verdict::Forbidden),
    ("PPC-MP+lwsync+addr", Verdict::Forbidden),
    ("PPC-MP+sync+ctrl", Verdict::Allowed),
    ("PPC-MP+sync+ctrlisync", Verdict::Forbidden),
    ("PPC-MP+rmw", Verdict::Forbidden),
    ("PPC-WRC", Verdict::Allowed),
    ("PPC-WRC+addrs", Verdict::Allowed),
    ("PPC-WRC+lwsync+addr", Verdict::Forbidden),
    ("PPC-WRC+sync+addr", Verdict::Forbidden),
    ("PPC-IRIW", Verdict::Allowed),
    ("PPC-IRIW+lwsyncs", Verdict::Allowed),
    ("PPC-IRIW+syncs", Verdict::Forbidden),
    ("PPC-ISA2", Verdict::Allowed),
    ("PPC-ISA2+lwsync+data+addr", Verdict::Forbidden),
    ("PPC-LB", Verdict::Allowed),
    ("PPC-LB+datas", Verdict::Forbidden),
    ("PPC-LB+ctrls", Verdict::Forbidden),
    ("PPC-SB+lwsyncs", Verdict::Allowed),
    ("PPC-SB+syncs", Verdict::Forbidden),
    ("PPC-2+2W+lwsyncs", Verdict::Forbidden),
    ("PPC-CoRR", Verdict::Forbidden),
];

#[test]
fn power_classic_shapes() {
    let mut bad = Vec::new();
    for (f, v) in POWER {
        let got = verdict("power", f);
        if got != *v {
            bad.push(format!("{f}: {got:?}, expected {v:?}"));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn ppc_alias_and_sc_forbids_every_weak_shape() {
    assert_eq!(verdict("ppc", "PPC-MP"), Verdict::Allowed);
    for (f, _) in POWER {
        assert_eq!(verdict("sc", f), Verdict::Forbidden, "{f} under sc");
    }
}

#[test]
fn sparc_models_on_classic_shapes() {
    // PSO reorders stores (MP allowed) but not loads; RMO also reorders
    // loads, even to the same address (CoRR allowed), but keeps
    // dependencies.
    assert_eq!(verdict("tso", "PPC-MP"), Verdict::Forbidden);
    assert_eq!(verdict("pso", "PPC-MP"), Verdict::Allowed);
    assert_eq!(verdict("pso", "PPC-LB"), Verdict::Forbidden);
    assert_eq!(verdict("pso", "PPC-CoRR"), Verdict::Forbidden);
    assert_eq!(verdict("rmo", "PPC-LB"), Verdict::Allowed);
    assert_eq!(verdict("rmo", "PPC-LB+datas"), Verdict::Forbidden);
    assert_eq!(verdict("rmo", "PPC-CoRR"), Verdict::Allowed);
    assert_eq!(verdict("rmo", "PPC-IRIW+syncs"), Verdict::Forbidden);
    assert_eq!(verdict("rmo", "PPC-IRIW+lwsyncs"), Verdict::Allowed);
    assert_eq!(verdict("pso", "PPC-IRIW"), Verdict::Forbidden);
}

fn robust(model: &str, file: &str) -> i32 {
    let out = common::bin()
        .args(["robust", "--model", model, file])
        .output()
        .unwrap();
    out.status.code().unwrap_or(-1)
}

fn write(dir: &tempfile::TempDir, name: &str, text: &str) -> String {
    let p = dir.path().join(name);
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

#[test]
fn pso_robustness() {
    let d = tempfile::tempdir().unwrap();
    let mp = write(
        &d,
        "mp.rmm",
        "shared x, y;\nthread t0 { x = 1; y = 1; }\nthread t1 { r1 = y; r2 = x; }\n",
    );
    let mp_ss = write(
        &d,
        "mpss.rmm",
        "shared x, y;\nthread t0 { x = 1; membar #StoreStore; y = 1; }\nthread t1 { r1 = y; r2 = x; }\n",
    );
    let sb_m = write(
        &d,
        "sbm.rmm",
        "shared x, y;\nthread t0 { x = 1; membar #StoreLoad; r1 = y; }\nthread t1 { y = 1; membar #StoreLoad; r2 = x; }\n",
    );
    let sb = write(
        &d,
        "sb.rmm",
        "shared x, y;\nthread t0 { x = 1; r1 = y; }\nthread t1 { y = 1; r2 = x; }\n",
    );
    // Exit status: 0 robust, 1 not robust.
    assert_eq!(robust("tso", &mp), 0, "MP robust under TSO");
    assert_eq!(robust("pso", &mp), 1, "MP not robust under PSO");
    assert_eq!(
        robust("pso", &mp_ss),
        0,
        "MP+membar #StoreStore robust under PSO"
    );
    assert_eq!(robust("pso", &sb), 1, "SB not robust under PSO");
    assert_eq!(
        robust("pso", &sb_m),
        0,
        "SB+membar #StoreLoad robust under PSO"
    );
    assert_eq!(
        robust("rmo", &mp_ss),
        1,
        "MP+membar #StoreStore not robust under RMO (loads reorder)"
    );
}

#[test]
fn trencher_pso_txt_robust_under_tso_not_pso() {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/trencher/pso.txt");
    if common::corpus("trencher/pso.txt").is_none() {
        return;
    }
    let f = p.to_str().unwrap();
    assert_eq!(robust("tso", f), 0);
    assert_eq!(robust("pso", f), 1);
}

fn reach(model: &str, file: &str) -> i32 {
    let out = common::bin()
        .args(["reach", "--model", model, file])
        .output()
        .unwrap();
    out.status.code().unwrap_or(-1)
}

/// Two store-conditionals at the same step (the two arms of a branch):
/// each succeeds only with a live reservation of its own address (PowerISA
/// Book II §4.4.2). A regression test: the bounded engine once constrained
/// only the last store-conditional candidate of a step.
#[test]
fn store_conditional_in_both_arms_of_a_branch_needs_its_reservation() {
    let d = tempfile::tempdir().unwrap();
    let prog = |first: &str, second: &str, goal: &str| {
        format!(
            "shared x, y, z;\nthread t0 {{\n  r = lwarx(x);\n  s = y;\n  \
             if (s == 0) {{ stwcx({first}, 5) -> f; }} else {{ stwcx({second}, 5) -> f; }}\n}}\n\
             goal final where t0.f == 1 && {goal} == 5;\n"
        )
    };
    // The arm that runs (y == 0) has no reservation of z: it must fail.
    let z_first = write(&d, "zfirst.rmm", &prog("z", "x", "z"));
    let z_second = write(&d, "zsecond.rmm", &prog("x", "z", "z"));
    // The reservation of x makes the x arm succeed.
    let x_first = write(&d, "xfirst.rmm", &prog("x", "z", "x"));
    for model in ["sc", "power"] {
        // Exit status: 0 unreachable, 1 reachable.
        assert_eq!(
            reach(model, &z_first),
            0,
            "{model}: stwcx z without reservation"
        );
        assert_eq!(
            reach(model, &z_second),
            0,
            "{model}: stwcx z in the other arm"
        );
        assert_eq!(
            reach(model, &x_first),
            1,
            "{model}: stwcx x with its reservation"
        );
    }
}

#[test]
fn rlwinm_rotates_the_low_word_and_masks() {
    // Power ISA 3.3.14: rotl32(0xffffffff, 4) & MASK(30,31) = 3;
    // rotl32(0x80000001, 1) = 0x00000003, & MASK(0,31) = 3;
    // rotl32(0x0000ffff, 16) & MASK(0,15) = 0xffff0000 (zero-extended:
    // r8 is typed 64-bit, an untyped one would print as herd's `int`).
    let t = "PPC T\n{ 0:r4=-1; 0:r7=0x80000001; 0:r9=0xffff; uint64_t 0:r8; }\n P0 ;\n\
             rlwinm r3,r4,4,30,31 ;\n rlwinm r6,r7,1,0,31 ;\n rlwinm r8,r9,16,0,15 ;\n\
             locations [0:r3; 0:r6; 0:r8;]\nexists (0:r3=0)\n";
    let src = bmc_rmm::diag::SourceFile::new("t.litmus", t);
    let lt = bmc_rmm::frontend::litmus::parse(&src, bmc_rmm::program::Width(64)).unwrap();
    let m = bmc_rmm::cat::builtin("sc").unwrap();
    let w = bmc_rmm::litmus::run::auto_width(&lt);
    assert_eq!(w.0, 64);
    let r = bmc_rmm::litmus::run::run(
        &lt,
        &m,
        12,
        w,
        bmc_rmm::engines::bounded::Deadline(None),
        bmc_rmm::engines::bounded::SolverKind::Varisat,
    )
    .unwrap();
    let lines: Vec<String> = r.states.iter().map(|s| lt.state_line(s)).collect();
    assert_eq!(lines, ["0:r3=3; 0:r6=3; 0:r8=4294901760;"]);
}

#[test]
fn rlwimi_inserts_the_rotated_word_under_the_mask() {
    // r3 = 0xaaaaaaaaaaaaaaaa; inserting the rotated -1 under MB..ME = 30..31
    // sets the two low bits: low word 0xaaaaaaab, printed as herd's 32-bit
    // `int` (-1431655765); SH 16 under 0..15 sets the high half-word:
    // 0xffffaaaa = -21846. A `uint64_t` register keeps its high word.
    let src = SourceFile::new(
        "t.litmus",
        "PPC T\n{ 0:r3=0xaaaaaaaaaaaaaaaa; 0:r6=0xaaaaaaaaaaaaaaaa; uint64_t 0:r7; \
         0:r7=0xaaaaaaaaaaaaaaaa; }\n P0 ;\n li r4,-1 ;\n rlwimi r3,r4,4,30,31 ;\n\
         rlwimi r6,r4,16,0,15 ;\n rlwimi r7,r4,0,31,31 ;\nlocations [0:r3; 0:r6; 0:r7;]\n",
    );
    let t = bmc_rmm::frontend::litmus::parse(&src, Width(64)).unwrap();
    let m = cat::builtin("power").unwrap();
    let r = run::run(
        &t,
        &m,
        12,
        run::auto_width(&t),
        Deadline(None),
        bmc_rmm::engines::bounded::SolverKind::Varisat,
    )
    .unwrap();
    let lines: Vec<String> = r.states.iter().map(|s| t.state_line(s)).collect();
    assert_eq!(
        lines,
        ["0:r3=-1431655765; 0:r6=-21846; 0:r7=12297829382473034411;"]
    );
}

#[test]
fn instruction_values_are_opaque_values_printed_as_herd() {
    // herd's `ins_t`: an instruction is a value that can be stored, loaded
    // and compared, printed `NOP` or `instr:"…"`; two of them are equal
    // when their texts are (blanks after commas do not count).
    let t = "PPC T\n{ ins_t x=NOP; 0:r1=instr:\"add r1, r1,r1\"; 0:r2=x; 1:r2=x; }\n\
             P0 | P1 ;\n stw r1,0(r2) | lwz r1,0(r2) ;\n\
             exists (1:r1=instr:\"add r1,r1,r1\")\n";
    let src = bmc_rmm::diag::SourceFile::new("t.litmus", t);
    let lt = bmc_rmm::frontend::litmus::parse(&src, bmc_rmm::program::Width(64)).unwrap();
    let m = bmc_rmm::cat::builtin("power").unwrap();
    let r = bmc_rmm::litmus::run::run(
        &lt,
        &m,
        12,
        bmc_rmm::litmus::run::auto_width(&lt),
        bmc_rmm::engines::bounded::Deadline(None),
        bmc_rmm::engines::bounded::SolverKind::Varisat,
    )
    .unwrap();
    let mut lines: Vec<String> = r.states.iter().map(|s| lt.state_line(s)).collect();
    lines.sort();
    assert_eq!(lines, ["1:r1=NOP;", "1:r1=instr:\"add r1,r1,r1\";"]);
    assert_eq!(lt.condition_text(), "exists (1:r1=instr:\"add r1,r1,r1\")");
}
