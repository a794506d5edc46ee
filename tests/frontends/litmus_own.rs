//! Litmus front-end tests on the project's own classic tests
//! (`tests/litmus/*.litmus`) and on malformed inputs. These do not need
//! the shared corpus.

use bmc_rmm::diag::{Error, SourceFile};
use bmc_rmm::frontend::litmus::{Arch, LitmusTest, LocKind, Quantifier};
use bmc_rmm::litmus::herd::{self, Counts, Observation, Verdict};
use bmc_rmm::program::{BinOp, Command, Expr, Fence, GoalAt, Width};
use std::path::PathBuf;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/litmus")
}

fn own(name: &str) -> LitmusTest {
    let p = dir().join(format!("{name}.litmus"));
    let src = SourceFile::read(p.to_str().unwrap()).unwrap();
    bmc_rmm::frontend::litmus::parse(&src, Width::DEFAULT).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn parse_str(text: &str) -> Result<LitmusTest, Error> {
    bmc_rmm::frontend::litmus::parse(&SourceFile::new("t.litmus", text), Width::DEFAULT)
}

/// `(location, message)` of a located error.
fn err_of(text: &str) -> (String, String) {
    match parse_str(text) {
        Ok(_) => panic!("expected an error for:\n{text}"),
        Err(Error::Input(e)) => (e.location(), e.message.clone()),
        Err(e) => panic!("not a located error: {e}"),
    }
}

fn names(t: &LitmusTest) -> Vec<&str> {
    t.observed.iter().map(|l| l.name.as_str()).collect()
}

#[test]
fn all_own_tests_parse() {
    let mut n = 0;
    for e in std::fs::read_dir(dir()).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "litmus") {
            let src = SourceFile::read(p.to_str().unwrap()).unwrap();
            let t = bmc_rmm::frontend::litmus::parse(&src, Width::DEFAULT)
                .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            let stem = p.file_stem().unwrap().to_str().unwrap();
            let (arch, name) = stem.split_once('-').unwrap();
            assert_eq!(t.name, name);
            assert_eq!(t.arch.keyword(), arch);
            assert_eq!(t.program.goals.len(), 1);
            assert_eq!(t.program.goals[0].at, GoalAt::Final);
            for (i, th) in t.program.threads.iter().enumerate() {
                assert_eq!(t.program.name(th.name), format!("P{i}"));
            }
            n += 1;
        }
    }
    assert!(n >= 12, "{n}");
}

#[test]
fn sb_lowering_and_herd_block() {
    let t = own("X86-SB");
    assert_eq!(t.arch, Arch::X86);
    assert_eq!(
        t.doc.as_deref(),
        Some("Store buffering: each thread writes one variable and reads the other.")
    );
    assert_eq!(t.program.threads.len(), 2);
    // Two instructions per thread: a chain q0 -> q1 -> q2.
    let th = &t.program.threads[0];
    assert_eq!(th.instrs.len(), 2);
    let x = t.var_addr("x").unwrap();
    let y = t.var_addr("y").unwrap();
    assert_eq!(y, x + 1, "sequential addresses");
    let eax = th.find_reg(t.program.names.get("EAX").unwrap()).unwrap();
    assert_eq!(
        th.instrs[0].cmd,
        Command::Store {
            addr: Expr::Const(x),
            value: Expr::Const(1)
        }
    );
    assert_eq!(
        th.instrs[1].cmd,
        Command::Load {
            reg: eax,
            addr: Expr::Const(y)
        }
    );
    assert!(th.outgoing()[2].is_empty(), "last state terminated");
    assert_eq!(names(&t), ["0:EAX", "1:EAX"]);
    assert_eq!(t.quantifier, Quantifier::Exists);
    assert!(t.eval(&[0, 0]));
    assert!(!t.eval(&[1, 0]));
    // The TSO outcomes, given in any order with a duplicate.
    let states = vec![vec![1, 1], vec![0, 1], vec![1, 0], vec![0, 0], vec![1, 1]];
    let out = herd::render(&t, &states, None, 0.0);
    assert_eq!(
        out,
        "Test SB Allowed\nStates 4\n0:EAX=0; 1:EAX=0;\n0:EAX=0; 1:EAX=1;\n0:EAX=1; 1:EAX=0;\n0:EAX=1; 1:EAX=1;\nOk\nWitnesses\nPositive: 1 Negative: 3\nCondition exists (0:EAX=0 /\\ 1:EAX=0)\nObservation SB Sometimes 1 3\nTime SB 0.00\n"
    );
    // SC outcomes: never.
    let sc = vec![vec![0, 1], vec![1, 0], vec![1, 1]];
    assert_eq!(herd::observe(&t, &sc), Observation::Never);
    assert_eq!(herd::observe(&t, &sc).verdict(), Verdict::Forbidden);
    assert!(herd::render(&t, &sc, None, 1.5).contains("\nNo\n"));
    assert!(herd::render(&t, &sc, None, 1.5).ends_with("Time SB 1.50\n"));
}

#[test]
fn not_exists_and_forall_blocks() {
    let t = own("X86-2+2W");
    assert_eq!(t.quantifier, Quantifier::NotExists);
    assert_eq!(names(&t), ["[x]", "[y]"]);
    assert_eq!(t.condition_text(), "~exists ([x]=2 /\\ [y]=2)");
    let out = herd::render(&t, &[vec![1, 2], vec![2, 1], vec![1, 1]], None, 0.0);
    assert!(
        out.starts_with("Test 2+2W Forbidden\nStates 3\n[x]=1; [y]=1;\n"),
        "{out}"
    );
    // For ~exists, Positive counts states where P fails.
    assert!(
        out.contains("Ok\nWitnesses\nPositive: 3 Negative: 0\n"),
        "{out}"
    );
    assert!(out.contains("Observation 2+2W Never 0 3\n"), "{out}");
    let f = own("X86-SB+xchgs");
    assert_eq!(f.quantifier, Quantifier::Forall);
    assert_eq!(f.condition_text(), "forall (0:EBX=1 \\/ 1:EBX=1)");
    let out = herd::render(&f, &[vec![1, 1], vec![0, 1]], None, 0.0);
    assert!(out.starts_with("Test SB+xchgs Required\n"), "{out}");
    assert!(out.contains("Observation SB+xchgs Always 2 0\n"), "{out}");
    let out = herd::render(
        &f,
        &[vec![0, 0], vec![0, 1]],
        Some(Counts { pos: 5, neg: 7 }),
        0.0,
    );
    assert!(
        out.contains("\nNo\n") && out.contains("Positive: 5 Negative: 7"),
        "{out}"
    );
}

#[test]
fn xchg_is_atomic_and_init_registers() {
    let t = own("X86-SB+xchgs");
    let th = &t.program.threads[0];
    let eax = th.find_reg(t.program.names.get("EAX").unwrap()).unwrap();
    assert_eq!(th.reg_init[eax.0 as usize], 1);
    let Command::Atomic(cs) = &th.instrs[0].cmd else {
        panic!("{:?}", th.instrs[0].cmd)
    };
    assert!(matches!(cs[0], Command::Load { .. }));
    assert!(matches!(cs[1], Command::Store { value: Expr::Var(r), .. } if r == eax));
    assert!(matches!(cs[2], Command::Assign { reg, .. } if reg == eax));
}

#[test]
fn fences_are_lowered() {
    let t = own("X86-SB+mfences");
    assert_eq!(
        t.program.threads[0].instrs[1].cmd,
        Command::Fence(Fence::MFence)
    );
    let p = own("PPC-SB+syncs");
    assert!(p.program.threads[1]
        .instrs
        .iter()
        .any(|i| i.cmd == Command::Fence(Fence::Sync)));
    let m = own("PPC-MP+lwsync+addr");
    assert!(m.program.threads[0]
        .instrs
        .iter()
        .any(|i| i.cmd == Command::Fence(Fence::LwSync)));
}

#[test]
fn ppc_address_dependency_flows_through_registers() {
    let t = own("PPC-MP+lwsync+addr");
    let th = &t.program.threads[1];
    let r = |n: &str| th.find_reg(t.program.names.get(n).unwrap()).unwrap();
    // r2 holds the address of y, r5 that of x.
    assert_eq!(th.reg_init[r("r2").0 as usize], t.var_addr("y").unwrap());
    assert_eq!(th.reg_init[r("r5").0 as usize], t.var_addr("x").unwrap());
    assert_eq!(
        th.instrs[0].cmd,
        Command::Load {
            reg: r("r1"),
            addr: Expr::Var(r("r2"))
        }
    );
    // xor r3,r1,r1 is r3 := r1 ^ r1, not the constant 0.
    assert_eq!(
        th.instrs[1].cmd,
        Command::Assign {
            reg: r("r3"),
            value: Expr::bin(BinOp::BitXor, Expr::Var(r("r1")), Expr::Var(r("r1")))
        }
    );
    assert_eq!(
        th.instrs[2].cmd,
        Command::Load {
            reg: r("r4"),
            addr: Expr::bin(BinOp::Add, Expr::Var(r("r3")), Expr::Var(r("r5")))
        }
    );
    assert_eq!(names(&t), ["1:r1", "1:r4"]);
}

#[test]
fn ppc_branch_is_two_assumes() {
    let t = own("PPC-MP+sync+ctrlisync");
    let th = &t.program.threads[1];
    let cr0 = th.find_reg(t.program.names.get("cr0").unwrap()).unwrap();
    let r1 = th.find_reg(t.program.names.get("r1").unwrap()).unwrap();
    let v = || Expr::Var(r1);
    assert_eq!(
        th.instrs[1].cmd,
        Command::Assign {
            reg: cr0,
            value: Expr::bin(
                BinOp::Sub,
                Expr::bin(BinOp::Gt, v(), v()),
                Expr::bin(BinOp::Lt, v(), v())
            ),
        }
    );
    // beq LC00: from the same state, assume(cr0 == 0) to the label and
    // assume(!(cr0 == 0)) to the next instruction (here the same state).
    let b: Vec<_> = th
        .instrs
        .iter()
        .filter(|i| matches!(i.cmd, Command::Assume(_)))
        .collect();
    assert_eq!(b.len(), 2);
    assert_eq!(b[0].from, b[1].from);
    let eq = Expr::bin(BinOp::Eq, Expr::Var(cr0), Expr::Const(0));
    assert_eq!(b[0].cmd, Command::Assume(eq.clone()));
    assert_eq!(
        b[1].cmd,
        Command::Assume(Expr::un(bmc_rmm::program::UnOp::Not, eq))
    );
    assert_eq!(t.program.name(th.states[b[0].to.0 as usize]), "LC00");
    assert!(!t.has_loop);
}

#[test]
fn ppc_lwarx_stwcx_loop() {
    let t = own("PPC-MP+rmw");
    assert!(t.has_loop);
    let th = &t.program.threads[0];
    // lwarx: the reservation address (herd's RESADDR, which the stwcx.'s
    // cr0 depends on), then the load-reserve.
    assert!(matches!(th.instrs[0].cmd, Command::Assign { .. }));
    assert!(matches!(th.instrs[1].cmd, Command::LoadReserve { .. }));
    assert!(th
        .instrs
        .iter()
        .any(|i| matches!(i.cmd, Command::StoreCond { .. })));
    assert_eq!(names(&t), ["[x]"]);
    let out = herd::render(&t, &[vec![2]], None, 0.0);
    assert!(out.contains("\nLoop No\n"), "{out}");
}

#[test]
fn x86_64_registers_are_normalised() {
    let t = own("X86_64-SB");
    assert_eq!(t.arch, Arch::X86_64);
    assert_eq!(names(&t), ["0:rax", "1:rax"]);
    let th = &t.program.threads[0];
    assert!(matches!(th.instrs[1].cmd, Command::Load { .. }));
}

#[test]
fn addresses_print_as_names() {
    let t = parse_str(
        "PPC ptr\n{ 0:r2=x; x=y; }\n P0 ;\n lwz r1,0(r2) ;\nlocations [0:r2;]\nexists (0:r1=y)\n",
    )
    .unwrap();
    assert_eq!(names(&t), ["0:r1", "0:r2"]);
    assert!(t.observed.iter().all(|l| l.holds_address));
    let x = t.var_addr("x").unwrap();
    let y = t.var_addr("y").unwrap();
    assert_eq!(t.program.init_value(x), y);
    assert_eq!(t.state_line(&[y, x]), "0:r1=y; 0:r2=x;");
    assert_eq!(t.condition_text(), "exists (0:r1=y)");
    assert!(t.eval(&[y, x]));
    assert_eq!(
        herd::parse_state_line(&t, "0:r1=y; 0:r2=x;"),
        Some(vec![y, x])
    );
    // Plain values are not addresses: no collision with small constants.
    assert!(x > 2 && y > 2);
    assert!(matches!(t.observed[1].kind, LocKind::Reg { .. }));
}

#[test]
fn old_final_style_and_metadata() {
    let t = parse_str(
        "X86 old (oldStyle) \"doc\"\nCycle=Rfe Fre\n{x = 0; y = 0; P0:EAX = 1};\n P0 | P1 ;\n mov [x], 1 | mov EBX,[x] ;\n\nfinal (P1:EBX = 1);\nwith\ntso: ~exists;\ndefault: exists;\n<<\nshow 0\n>>\n",
    )
    .unwrap();
    assert_eq!(t.quantifier, Quantifier::Exists);
    assert_eq!(
        t.metadata,
        vec![("Cycle".to_string(), "Rfe Fre".to_string())]
    );
    assert_eq!(t.condition_text(), "exists (1:EBX=1)");
    let t = parse_str("X86 n\n{ }\n P0 ;\n MOV [x],$1 ;\nexists (not x=1 /\\ ~(x=3) \\/ false)\n")
        .unwrap();
    assert_eq!(
        t.condition_text(),
        "exists (not ([x]=1) /\\ not ([x]=3) \\/ false)"
    );
    assert!(t.eval(&[2]) && !t.eval(&[1]) && !t.eval(&[3]));
}

#[test]
fn header_text_before_init_is_skipped_as_herd_does() {
    // An unquoted cycle line, a doc string over two lines (one of them
    // looking like `key=value`) and metadata, before the init block.
    let t = parse_str(
        "PPC H\nLwSyncdWW Rfe SyncdRR Fre\n\"first line\nsecond=line\"\nCycle=Rfe Fre\n{ 0:r2=x; }\n P0 ;\n li r1,1 ;\n stw r1,0(r2) ;\nexists (x=1)\n",
    )
    .unwrap();
    assert_eq!(t.doc.as_deref(), Some("first line\nsecond=line"));
    assert_eq!(
        t.metadata,
        vec![("Cycle".to_string(), "Rfe Fre".to_string())]
    );
    // Text and a `{` on the same line: the init block starts at the `{`.
    let t = parse_str("PPC H2\nsome words { 0:r2=x; }\n P0 ;\n stw r1,0(r2) ;\nexists (x=0)\n")
        .unwrap();
    assert_eq!(t.name, "H2");
    // No final condition: `forall (true)`, as herd reads it.
    let t = parse_str("X86 T\n{ }\n P0 ;\n MOV EAX,$1 ;\n").unwrap();
    assert_eq!(t.condition_text(), "forall (true)");
    // `v[0]` as an init value is the array's address; `v[1]` is refused
    // where it is written.
    let t = parse_str(
        "AArch64 A\n{ 0:X2=v[0]; int64_t v[2] = {22,44}; }\n P0 ;\n LDR X0,[X2] ;\nexists (0:X0=22)\n",
    )
    .unwrap();
    assert_eq!(t.name, "A");
    let (loc, msg) = err_of(
        "AArch64 A\n{ 0:X2=v[1]; int64_t v[2] = {22,44}; }\n P0 ;\n LDR X0,[X2] ;\nexists (0:X0=44)\n",
    );
    assert_eq!(loc, "t.litmus:2:8");
    assert!(msg.contains("unsupported init value `v[1]`"), "{msg}");
    // No init block at all stays a located error.
    let (_, msg) = err_of("PPC H3\nwords only\n");
    assert!(msg.contains("expected the init block"), "{msg}");
}

// ---------------------------------------------------------- malformed

#[test]
fn unknown_instruction_is_located() {
    let (loc, msg) = err_of("X86 T\n{ }\n P0 ;\n FOO [x],$1 ;\nexists (x=1)\n");
    assert_eq!(loc, "t.litmus:4:2");
    assert!(msg.contains("unsupported X86 instruction `FOO`"), "{msg}");
    let (loc, msg) =
        err_of("PPC T\n{ }\n P0 | P1 ;\n li r1,1 | rlwnm r3,r4,r5,0,31 ;\nexists (0:r1=1)\n");
    assert_eq!(loc, "t.litmus:4:12");
    assert!(msg.contains("`rlwnm`"), "{msg}");
}

#[test]
fn bad_inputs_are_located_errors() {
    let cases: &[(&str, &str)] = &[
        ("", "empty"),
        (
            "X86 T\n{ 0:EAX= ; }\n P0 ;\n MOV EAX,$1 ;\nexists (0:EAX=1)\n",
            "missing value",
        ),
        (
            "X86 T\n{ 0:EAX=$$ ; }\n P0 ;\n MOV EAX,$1 ;\nexists (0:EAX=1)\n",
            "unsupported init value",
        ),
        (
            "X86 T\n{ 3:EAX=1; }\n P0 ;\n MOV EAX,$1 ;\nexists (0:EAX=1)\n",
            "thread 3",
        ),
        ("X86 T\n{ }\n P0 ;\n MOV EAX,$1\n", "without terminating"),
        ("X86 T\n{ x=1;\n", "unterminated init"),
        ("X86 T\n", "truncated"),
        (
            "ARM T\n{ }\n P0 ;\n MOV EAX,$1 ;\nexists (0:EAX=1)\n",
            "unsupported architecture",
        ),
        (
            "X86 T\n{ }\n P1 ;\n MOV EAX,$1 ;\nexists (0:EAX=1)\n",
            "expected thread name `P0`",
        ),
        (
            "X86 T\n{ }\n P0 ;\n MOV EAX,$1 | MOV EAX,$2 ;\nexists (0:EAX=1)\n",
            "more columns",
        ),
        (
            "X86 T\n{ }\n P0 ;\n MOV EAX,$1 ;\nexists (5:EAX=1)\n",
            "thread 5 does not exist",
        ),
        (
            "X86 T\n{ }\n P0 ;\n MOV EAX,$1 ;\nexists (0:EAX=1\n",
            "expected `)`",
        ),
        (
            "X86 T\n{ }\n P0 ;\n MOV EAX,$1 ;\nexists (0:EAX=1 /\\ )\n",
            "expected a proposition",
        ),
        (
            "X86 T\n{ }\n P0 ;\n MOV EAX,$100000 ;\nexists (0:EAX=1)\n",
            "does not fit",
        ),
        // `(*` opens a comment before the init block when a newline follows
        // it (herd's splitter; `(* text` there is a doc line).
        ("X86 T\n(*\n{ }\n", "unterminated comment"),
        (
            "PPC T\n{ }\n P0 ;\n beq L9 ;\nexists (0:r1=1)\n",
            "undefined label `L9`",
        ),
        (
            "PPC T\n{ }\n P0 ;\n lwz r1,4(r2) ;\nexists (0:r1=1)\n",
            "nonzero displacement",
        ),
        (
            "PPC T\n{ }\n P0 ;\n li r1 ;\nexists (0:r1=1)\n",
            "expects 2 operand",
        ),
        (
            "X86 T\n{ }\n P0 ;\n MOV [x],[y] ;\nexists (0:EAX=1)\n",
            "operand combination",
        ),
        (
            "X86 T\n{ }\n P0 ;\n MOV EAX,$1 ;\nexists (0:EAX=1) garbage\n",
            "unexpected",
        ),
        (
            "X86 T\n{ }\n P0 ;\n MOV EAX,$1 ;\nexists (0:EAX=pte:\"x\")\n",
            "unsupported value",
        ),
    ];
    for (text, want) in cases {
        let (loc, msg) = err_of(text);
        assert!(loc.starts_with("t.litmus:"), "{loc}");
        assert!(msg.contains(want), "{text:?}: got {msg:?}, want {want:?}");
    }
}

#[test]
fn no_panic_on_any_prefix() {
    for e in std::fs::read_dir(dir()).unwrap() {
        let p = e.unwrap().path();
        let text = std::fs::read_to_string(&p).unwrap();
        for (i, _) in text.char_indices() {
            let _ = parse_str(&text[..i]);
        }
        // Also with every single byte replaced by characters that matter.
        for (i, _) in text.char_indices().step_by(3) {
            for c in [
                "|", ";", "{", "}", "(*", "[", "(", ",", ":", "\"", "~", "0x", "é", "λ:", "<<",
                "/\\", "=",
            ] {
                let mut s = text.clone();
                s.replace_range(i..i + text[i..].chars().next().unwrap().len_utf8(), c);
                let _ = parse_str(&s);
            }
        }
    }
}

#[test]
fn non_ascii_in_condition_is_an_error_not_a_panic() {
    let (loc, _) = err_of("X86 T\n{ }\n P0 ;\n MOV EAX,$1 ;\nexists (0:EAX=é /\\ x=1)\n");
    assert!(loc.starts_with("t.litmus:5:"), "{loc}");
    let (_, msg) = err_of("X86 T\n{ }\n P0 ;\n MOVé EAX,$1 ;\nexists (0:EAX=1)\n");
    assert!(msg.contains("MOVé"), "{msg}");
    assert!(matches!(
        bmc_rmm::frontend::litmus::parse(&SourceFile::new("t.litmus", "X86 T\n"), Width(0)),
        Err(Error::Unsupported(_))
    ));
}

/// herd's location-to-location atoms: `0:EAX=1:EAX` and `x=[y]` compare
/// two final values (both locations are observed and printed), while a
/// bare name on the right (`0:EAX=x`) is the address of `x`; the
/// goal expression and the evaluation on states agree (herd7 7.58:
/// Sometimes 2 2, Always, Never on the TSO outcomes).
#[test]
fn conditions_compare_two_locations() {
    let sb = |cond: &str| {
        parse_str(&format!(
            "X86 RR\n{{ x=0; y=0; }}\n P0          | P1          ;\n MOV [x],$1  | MOV [y],$1  ;\n MOV EAX,[y] | MOV EAX,[x] ;\nexists ({cond})\n"
        ))
        .unwrap_or_else(|e| panic!("{cond}: {e}"))
    };
    let t = sb("0:EAX=1:EAX");
    assert_eq!(names(&t), ["0:EAX", "1:EAX"]);
    let states = vec![vec![0, 0], vec![0, 1], vec![1, 0], vec![1, 1]];
    assert_eq!(herd::observe(&t, &states), Observation::Sometimes);
    assert!(herd::render(&t, &states, None, 0.0).contains("Condition exists (0:EAX=1:EAX)\n"));
    let t = sb("~0:EAX=1:EAX");
    assert!(t.eval(&[0, 1]) && !t.eval(&[1, 1]));
    let t = sb("x=[y]");
    assert_eq!(names(&t), ["[x]", "[y]"]);
    assert!(t.eval(&[1, 1]) && !t.eval(&[1, 0]));
    let t = sb("0:EAX=x");
    assert_eq!(names(&t), ["0:EAX"]);
    assert!(!t.eval(&[1]) && t.eval(&[t.var_addr("x").unwrap()]));
}

/// The goal expression of `0:EAX=1:EAX /\ 0:EAX=0` (both registers 0:
/// SB's relaxed outcome) is reachable under TSO and not under SC.
#[test]
fn a_location_to_location_goal_is_reached_as_the_model_allows() {
    let dir = tempfile::tempdir().expect("temp dir");
    let f = dir.path().join("rr.litmus");
    std::fs::write(
        &f,
        "X86 RR\n{ x=0; y=0; }\n P0          | P1          ;\n MOV [x],$1  | MOV [y],$1  ;\n MOV EAX,[y] | MOV EAX,[x] ;\nexists (0:EAX=1:EAX /\\ 0:EAX=0)\n",
    )
    .unwrap();
    let f = f.to_string_lossy().into_owned();
    let (code, out, err) = crate::common::run(&["reach", "--model", "tso", &f]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("REACHABLE"), "{out}");
    let (code, out, err) = crate::common::run(&["reach", "--model", "sc", &f]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("unreachable"), "{out}");
}
