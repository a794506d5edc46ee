//! Model hierarchy property (thesis 003 ch. 5; Herding cats §4): on
//! generated small programs and on the own litmus tests in
//! `tests/litmus/`, the final states form a chain
//! SC ⊆ TSO ⊆ PSO ⊆ RMO, TSO ⊆ Power, TSO ⊆ ARM and TSO ⊆ RISC-V (for
//! the Power run, `mfence` and `membar #StoreLoad` are mapped to `sync`,
//! other membars to `lwsync`: see [`to_power`]; for the Arm and RISC-V
//! runs, the fences TSO honours become the native full fence (`DMB SY`,
//! `fence rw,rw`) and the others `nop`: see [`to_arm`]). Programs fenced
//! at every po pair ([`fenced`]) have exactly the SC final states under
//! every model. Final states are enumerated with the bounded engine
//! ([`bmc_rmm::engines::bounded::enumerate_final`]). Needs no corpus.

use crate::common;
use bmc_rmm::cat::{self, Model};
use bmc_rmm::diag::SourceFile;
use bmc_rmm::engines::bounded::Deadline;
use bmc_rmm::frontend::native;
use bmc_rmm::litmus::run;
use bmc_rmm::program::{Command, Fence, GExpr, MembarMask, Program, Width};
use proptest::prelude::*;
use std::collections::BTreeSet;
use std::path::PathBuf;

type States = BTreeSet<Vec<i64>>;

struct Models {
    sc: Model,
    tso: Model,
    pso: Model,
    rmo: Model,
    power: Model,
    arm: Model,
    riscv: Model,
}

fn models() -> Models {
    let m = |n| cat::builtin(n).unwrap();
    Models {
        sc: m("sc"),
        tso: m("tso"),
        pso: m("pso"),
        rmo: m("rmo"),
        power: m("power"),
        arm: m("arm"),
        riscv: m("riscv"),
    }
}

/// `mfence` and every `membar` with `#StoreLoad` become `sync`; a
/// `membar` without `#StoreLoad` becomes `lwsync` (also inside atomic
/// blocks). A membar without #StoreLoad is a no-op under TSO; mapping it
/// to `sync` would make Power stronger than TSO at that point (the
/// property test found SB with `membar #LoadLoad`: TSO allows the weak
/// outcome, Power with a sync would not).
fn to_power(p: &Program) -> Program {
    map_commands(p, &|c| match c {
        Command::Fence(f @ Fence::MFence) => *f = Fence::Sync,
        Command::Fence(f @ Fence::Membar(_)) => {
            let Fence::Membar(m) = *f else { unreachable!() };
            *f = if m.0 & MembarMask::SL != 0 {
                Fence::Sync
            } else {
                Fence::LwSync
            };
        }
        _ => {}
    })
}

/// Every command of every thread (inside atomic blocks too) through `f`.
fn map_commands(p: &Program, f: &dyn Fn(&mut Command)) -> Program {
    fn go(c: &mut Command, f: &dyn Fn(&mut Command)) {
        match c {
            Command::Atomic(cs) => cs.iter_mut().for_each(|c| go(c, f)),
            c => f(c),
        }
    }
    let mut q = p.clone();
    for t in &mut q.threads {
        for i in &mut t.instrs {
            go(&mut i.cmd, f);
        }
    }
    q
}

/// For Arm and RISC-V: the fences `tso.cat` honours (`mfence`, `sync`,
/// `membar #StoreLoad…`) become the native full fence (`DMB SY` under
/// `arm`, `fence rw,rw` under `riscv`: docs/models.md); every other
/// fence, which TSO ignores, becomes `nop`.
fn to_arm(p: &Program) -> Program {
    map_commands(p, &|c| {
        if let Command::Fence(f) = *c {
            let full = match f {
                Fence::MFence | Fence::Sync => true,
                Fence::Membar(m) => m.0 & MembarMask::SL != 0,
                _ => false,
            };
            *c = if full {
                Command::Fence(Fence::MFence)
            } else {
                Command::Nop
            };
        }
    })
}

/// `threads` with an `mfence` between every two statements of a thread
/// (and none else): the TSO fence placement that makes any program SC.
fn fenced(threads: &[Vec<Op>]) -> Vec<Vec<Op>> {
    threads
        .iter()
        .map(|ops| {
            let mut v = Vec::new();
            for o in ops.iter().filter(|o| !matches!(o, Op::Fence(_))) {
                if !v.is_empty() {
                    v.push(Op::Fence(0));
                }
                v.push(o.clone());
            }
            v
        })
        .collect()
}

fn states(
    p: &Program,
    m: &Model,
    bound: u32,
    filter: Option<&GExpr>,
    obs: &[GExpr],
    w: Width,
) -> States {
    let q = bmc_rmm::engines::bounded::Query {
        program: p,
        model: m,
        limits: bmc_rmm::engines::bounded::Limits {
            bound,
            width: w.0,
            deadline: Deadline(None),
            switches: Default::default(),
        },
    };
    let varisat = bmc_rmm::engines::bounded::SolverKind::Varisat;
    let r = bmc_rmm::engines::bounded::enumerate_final(varisat, &q, filter, obs).expect("varisat");
    assert!(r.unknown.is_none(), "{:?}", r.unknown);
    r.states.into_iter().collect()
}

/// Checks the chain on one program; Err describes the first violation.
fn check_chain(
    ms: &Models,
    p: &Program,
    bound: u32,
    filter: Option<&GExpr>,
    obs: &[GExpr],
    w: Width,
) -> Result<(), String> {
    let sc = states(p, &ms.sc, bound, filter, obs, w);
    let tso = states(p, &ms.tso, bound, filter, obs, w);
    let pso = states(p, &ms.pso, bound, filter, obs, w);
    let rmo = states(p, &ms.rmo, bound, filter, obs, w);
    let power = states(&to_power(p), &ms.power, bound, filter, obs, w);
    let arm = states(&to_arm(p), &ms.arm, bound, filter, obs, w);
    let riscv = states(&to_arm(p), &ms.riscv, bound, filter, obs, w);
    if sc.is_empty() {
        return Err("no final state under SC".into());
    }
    for (a, an, b, bn) in [
        (&sc, "SC", &tso, "TSO"),
        (&tso, "TSO", &pso, "PSO"),
        (&pso, "PSO", &rmo, "RMO"),
        (&tso, "TSO", &power, "Power"),
        (&tso, "TSO", &arm, "ARM"),
        (&tso, "TSO", &riscv, "RISC-V"),
    ] {
        if let Some(s) = a.difference(b).next() {
            return Err(format!("state {s:?} allowed under {an} but not under {bn}"));
        }
    }
    Ok(())
}

/// One generated statement.
#[derive(Clone, Debug)]
enum Op {
    Store(usize, u8),
    Load(usize),
    /// Store the thread's last loaded register (data dependency).
    StoreReg(usize),
    /// `if (last == 1) { var = val; }` (control dependency).
    IfStore(usize, u8),
    /// 0: mfence, 1..=4: membar with one mask bit, 5: lwsync, 6: isync.
    Fence(u8),
    Xchg(usize, u8),
}

const VARS: [&str; 3] = ["x", "y", "z"];

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0..3usize, 1..3u8).prop_map(|(v, c)| Op::Store(v, c)),
        3 => (0..3usize).prop_map(Op::Load),
        1 => (0..3usize).prop_map(Op::StoreReg),
        1 => (0..3usize, 1..3u8).prop_map(|(v, c)| Op::IfStore(v, c)),
        2 => (0..7u8).prop_map(Op::Fence),
        1 => (0..3usize, 1..3u8).prop_map(|(v, c)| Op::Xchg(v, c)),
    ]
}

fn source(threads: &[Vec<Op>]) -> String {
    let mut s = String::from("shared x, y, z;\n");
    for (t, ops) in threads.iter().enumerate() {
        s.push_str(&format!("thread t{t} {{\n"));
        let mut last: Option<String> = None;
        for (i, o) in ops.iter().enumerate() {
            let r = format!("r{i}");
            let line = match o {
                Op::Store(v, c) => format!("{} = {c};", VARS[*v]),
                Op::Load(v) => {
                    last = Some(r.clone());
                    format!("{r} = {};", VARS[*v])
                }
                Op::StoreReg(v) => match &last {
                    Some(l) => format!("{} = {l};", VARS[*v]),
                    None => format!("{} = 3;", VARS[*v]),
                },
                Op::IfStore(v, c) => match &last {
                    Some(l) => format!("if ({l} == 1) {{ {} = {c}; }}", VARS[*v]),
                    None => format!("{} = {c};", VARS[*v]),
                },
                Op::Fence(k) => match k {
                    0 => "mfence;".into(),
                    1 => "membar #LoadLoad;".into(),
                    2 => "membar #LoadStore;".into(),
                    3 => "membar #StoreLoad;".into(),
                    4 => "membar #StoreStore;".into(),
                    5 => "lwsync;".into(),
                    _ => "isync;".into(),
                },
                Op::Xchg(v, c) => {
                    last = Some(r.clone());
                    format!("{r} = xchg({}, {c});", VARS[*v])
                }
            };
            s.push_str("  ");
            s.push_str(&line);
            s.push('\n');
        }
        s.push_str("}\n");
    }
    s
}

fn program() -> impl Strategy<Value = Vec<Vec<Op>>> {
    prop::collection::vec(prop::collection::vec(op(), 1..=4), 2..=3)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn generated_programs_respect_the_hierarchy(threads in program()) {
        let text = source(&threads);
        let p = native::parse(&SourceFile::new("gen.rmm", text.clone()), Width(8))
            .unwrap_or_else(|e| panic!("generated program does not parse: {e}\n{text}"));
        let ms = models();
        let obs = common::all_locations(&p);
        if let Err(e) = check_chain(&ms, &p, 16, None, &obs, Width(8)) {
            panic!("{e}\nprogram:\n{text}");
        }
    }

    #[test]
    fn programs_fenced_at_every_po_pair_are_sc_under_every_model(threads in program()) {
        let text = source(&fenced(&threads));
        let p = native::parse(&SourceFile::new("fenced.rmm", text.clone()), Width(8))
            .unwrap_or_else(|e| panic!("generated program does not parse: {e}\n{text}"));
        let ms = models();
        let obs = common::all_locations(&p);
        let w = Width(8);
        let sc = states(&p, &ms.sc, 24, None, &obs, w);
        for (name, m, q) in [
            ("TSO", &ms.tso, p.clone()),
            ("PSO", &ms.pso, p.clone()),
            ("RMO", &ms.rmo, p.clone()),
            ("Power", &ms.power, to_power(&p)),
            ("ARM", &ms.arm, to_arm(&p)),
            ("RISC-V", &ms.riscv, to_arm(&p)),
        ] {
            let weak = states(&q, m, 24, None, &obs, w);
            prop_assert_eq!(&weak, &sc, "{} differs from SC on\n{}", name, text);
        }
    }
}

#[test]
fn classic_shapes_are_strict_where_expected() {
    // MP: SC and TSO forbid r1=1,r2=0; PSO, RMO and Power allow it.
    let text = "shared x, y;\nthread t0 { x = 1; y = 1; }\nthread t1 { r1 = y; r2 = x; }\n";
    let p = native::parse(&SourceFile::new("mp.rmm", text), Width(8)).unwrap();
    let ms = models();
    let obs = common::all_locations(&p);
    let w = Width(8);
    let weak = |m: &Model, p: &Program| states(p, m, 8, None, &obs, w).contains(&vec![1, 0, 1, 1]);
    assert!(!weak(&ms.sc, &p));
    assert!(!weak(&ms.tso, &p));
    assert!(weak(&ms.pso, &p));
    assert!(weak(&ms.rmo, &p));
    assert!(weak(&ms.power, &p));
    check_chain(&ms, &p, 8, None, &obs, w).unwrap();
}

#[test]
fn own_litmus_tests_respect_the_hierarchy() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/litmus");
    let ms = models();
    let mut n = 0;
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "litmus"))
        .collect();
    paths.sort();
    for path in paths {
        let src = SourceFile::read(path.to_str().unwrap()).unwrap();
        let t = bmc_rmm::frontend::litmus::parse(&src, Width(32)).unwrap();
        let w = run::auto_width(&t);
        let obs: Vec<GExpr> = t.observed.iter().map(|l| l.expr()).collect();
        let bound = run::effective_bound(&t, 12);
        if let Err(e) = check_chain(&ms, &t.program, bound, t.filter_expr.as_ref(), &obs, w) {
            panic!("{}: {e}\n{}", path.display(), src.text);
        }
        n += 1;
    }
    assert!(n >= 12, "{n}");
}
