//! The IR simplification passes (`bmc_rmm::program::simplify`) keep a
//! program's behaviour: on generated programs full of register moves,
//! constant branches and dead assignments, the final memories of all
//! ended executions (SMC engine, exhaustive exploration, sc/tso/pso) and
//! the answers to goals over final memory and registers are the same
//! before and after; the simplified programs are smaller. A C program
//! of the corpus style is simplified by the front-end and keeps its
//! answers (tests/frontends/c_frontend.rs checks the whole Nidhugg table).

use crate::common;

use bmc_rmm::diag::SourceFile;
use bmc_rmm::engines::smc::semantics::Model;
use bmc_rmm::engines::smc::{self, Reduction, SmcCheck, SmcOptions, SmcVerdict};
use bmc_rmm::frontend::{self, Format};
use bmc_rmm::program::simplify::simplify;
use bmc_rmm::program::{Program, Width};
use std::collections::BTreeSet;

const W: Width = Width(8);

fn native(text: &str) -> Program {
    frontend::parse_program(&SourceFile::new("t.rmm", text), Some(Format::Native), W)
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn opts(model: Model, check: SmcCheck) -> SmcOptions {
    SmcOptions {
        model,
        width: W,
        bound: 60,
        check,
        reduction: Reduction::Dpor,
        deadline: None,
        collect: true,
    }
}

/// The final memories of the ended executions (the part of SMC's final
/// words after the control states and registers), goals ignored (a goal
/// reached stops the exploration). DPOR keeps the final states of
/// exhaustive exploration (tests/engines/smc.rs).
fn final_memories(p: &Program, m: Model) -> BTreeSet<String> {
    let mut p = p.clone();
    p.goals.clear();
    let r = smc::check(&p, &opts(m, SmcCheck::Reach)).expect("supported program");
    r.finals
        .iter()
        .map(|f| f[f.rfind(" {").expect("memory part")..].to_string())
        .collect()
}

fn reachable(p: &Program, m: Model) -> bool {
    let r = smc::check(p, &opts(m, SmcCheck::Reach)).expect("supported program");
    matches!(r.verdict, SmcVerdict::Reachable { .. })
}

fn instructions(p: &Program) -> usize {
    p.threads.iter().map(|t| t.instrs.len()).sum()
}

/// A small random program over x, y with registers a, b, c: loads,
/// stores of register expressions, register moves and constants,
/// branches on registers (some constant), choices, fences, atomic
/// increments; and a goal on the final memory and a register.
fn generate(rnd: &mut impl FnMut(u64) -> u64) -> String {
    let mut text = String::from("shared x, y;\n");
    let threads = 2 + rnd(2);
    for t in 0..threads {
        text.push_str(&format!("thread t{t} {{\n  reg a;\n  reg b;\n  reg c;\n"));
        for _ in 0..2 + rnd(if threads == 2 { 4 } else { 2 }) {
            let v = ["x", "y"][rnd(2) as usize];
            let r = ["a", "b", "c"][rnd(3) as usize];
            let r2 = ["a", "b", "c"][rnd(3) as usize];
            let s = match rnd(16) {
                0 | 1 => format!("{r} = {r2};"),
                2 => format!("{r} = {};", rnd(3)),
                3 => format!("{r} = {r2} + {};", rnd(2)),
                4 | 5 => format!("{r} = {v};"),
                6 | 7 => format!("{v} = {r};"),
                8 => format!("{v} = {r} + {r2};"),
                9 => format!("if ({r} == {}) {{ {v} = {}; }}", rnd(2), 1 + rnd(2)),
                10 => format!("if ({r} == {r2}) {{ {r} = 2; }} else {{ {r2} = {v}; }}"),
                11 => "mfence;".into(),
                12 => format!("choose {{ {v} = 1; }} or {{ {r} = {v}; }}"),
                13 => format!("atomic {{ {r} = {v}; {v} = {r} + 1; }};"),
                14 => format!("{r} = {r2}; {r2} = {r}; {v} = {r2};"),
                _ => format!("{v} = {};", 1 + rnd(2)),
            };
            text.push_str(&format!("  {s}\n"));
        }
        text.push_str("}\n");
    }
    text.push_str(&format!(
        "goal final where x == {} && t0.{} == {};\n",
        rnd(3),
        ["a", "b", "c"][rnd(3) as usize],
        rnd(3)
    ));
    text
}

#[test]
fn simplified_programs_keep_final_memories_and_goal_answers() {
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut rnd = |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    let (mut before, mut after, mut reach) = (0, 0, 0);
    for case in 0..100 {
        let text = generate(&mut rnd);
        let p = native(&text);
        let mut q = p.clone();
        simplify(&mut q, W);
        before += instructions(&p);
        after += instructions(&q);
        for m in [Model::Sc, Model::Tso, Model::Pso] {
            assert_eq!(
                final_memories(&p, m),
                final_memories(&q, m),
                "case {case} {m:?}: final memories differ\n{text}"
            );
            let r = reachable(&p, m);
            assert_eq!(
                r,
                reachable(&q, m),
                "case {case} {m:?}: goal answer differs\n{text}"
            );
            reach += r as usize;
        }
    }
    eprintln!("instructions: {before} before, {after} after; {reach} reachable goals");
    assert!(after < before);
    // The goals are not all alike (the comparison can fail both ways).
    assert!(reach > 0 && reach < 300);
}

#[test]
fn goal_states_and_registers_survive() {
    let text =
        "shared x;\nthread t {\n  reg a;\n  reg b;\n  a = 1;\n  b = a;\n  x = b;\n  b = 0;\n}\n\
                goal final where t.a == 1 && x == 1;\n";
    let p = native(text);
    let mut q = p.clone();
    simplify(&mut q, W);
    // `b = a` and `b = 0` are dead (b is not observed): only the store
    // `x = 1` and the observed `a = 1` remain.
    assert_eq!(instructions(&q), 2, "{:?}", q.threads[0].instrs);
    for m in [Model::Sc, Model::Tso] {
        assert!(reachable(&p, m) && reachable(&q, m));
    }
}

#[test]
fn a_counter_only_feeding_itself_is_removed_and_answers_stay() {
    // `c` counts loop iterations and nothing reads it: strong liveness
    // (program::liveness) removes its increment even around the loop.
    let text = "shared x, y;\nthread t {\n  reg a;\n  reg c;\n  \
                while (a == 0) { c = c + 1; a = y; }\n  x = a;\n}\n\
                thread u {\n  y = 1;\n}\ngoal final where x == 1;\n";
    let p = native(text);
    let mut q = p.clone();
    simplify(&mut q, W);
    let c = q.threads[0]
        .regs
        .iter()
        .position(|r| q.name(*r) == "c")
        .unwrap();
    assert_eq!(q.threads[0].unkept, vec![bmc_rmm::program::RegId(c as u32)]);
    assert_eq!(instructions(&q), instructions(&p) - 1);
    for m in [Model::Sc, Model::Tso] {
        assert!(reachable(&p, m) && reachable(&q, m));
    }
}

#[test]
fn a_c_witness_leaves_removed_registers_out_of_its_final_line() {
    if bmc_rmm::frontend::c::preprocess::find().is_none() {
        eprintln!("skipped: no C preprocessor");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let file = dir.join("stale.c");
    std::fs::write(
        &file,
        "#include <assert.h>\n#include <pthread.h>\nvolatile int x;\n\
         int main(void) { int k = 5; int z = 7; k = k + 1; z = x; assert(z == 1); return 0; }\n",
    )
    .unwrap();
    let out = common::bin()
        .args(["reach", "--model", "sc"])
        .arg(&file)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let fin = text.lines().find(|l| l.trim_start().starts_with("final:"));
    let fin = fin.unwrap_or_else(|| panic!("no final line:\n{text}"));
    // `k` is only ever assigned (dead): its final value would be stale.
    assert!(!fin.contains(" k="), "{fin}");
    assert!(fin.contains("main: @"), "{fin}");
}
