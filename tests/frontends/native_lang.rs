//! Tests of the native `.rmm` front-end and of the native printer:
//! shapes of the IR, desugaring of structured statements, errors, and
//! round trips `parse(print(p)) == p` (by fingerprint) for the examples,
//! hand-built IR and the Trencher corpus.

use crate::common;

use bmc_rmm::diag::{SourceFile, Span};
use bmc_rmm::frontend::{native, trencher};
use bmc_rmm::program::{
    Ann, BinOp, Command, Expr, Fence, GVar, Goal, GoalAt, GoalKind, Instr, LExpr, MembarMask,
    PgasCmd, Program, RegId, SharedVar, StateId, Thread, ThreadId, UnOp, Width,
};
use std::path::{Path, PathBuf};

fn parse(s: &str) -> Program {
    match native::parse(&SourceFile::new("t.rmm", s), Width::DEFAULT) {
        Ok(p) => p,
        Err(e) => panic!("parse failed: {e}"),
    }
}

fn parse_w(s: &str, w: u32) -> Result<Program, String> {
    native::parse(&SourceFile::new("t.rmm", s), Width(w)).map_err(|e| e.to_string())
}

fn err(s: &str) -> String {
    match parse_w(s, 16) {
        Ok(_) => panic!("expected an error for:\n{s}"),
        Err(e) => e,
    }
}

/// Prints, re-parses and compares fingerprints.
fn round_trip(p: &Program) -> String {
    let text = bmc_rmm::program::render::native(p);
    let q = match native::parse(&SourceFile::new("printed.rmm", text.clone()), Width(32)) {
        Ok(q) => q,
        Err(e) => panic!("printed program does not parse: {e}\n--- printed:\n{text}"),
    };
    assert_eq!(
        p.fingerprint(),
        q.fingerprint(),
        "round trip changed the IR; printed:\n{text}"
    );
    text
}

/// Transitions of thread `t` as `(from-name, to-name, cmd)`.
fn trans(p: &Program, t: u32) -> Vec<(String, String, Command)> {
    let tid = ThreadId(t);
    p.threads[t as usize]
        .instrs
        .iter()
        .map(|i| {
            (
                p.state_name(tid, i.from).to_string(),
                p.state_name(tid, i.to).to_string(),
                i.cmd.clone(),
            )
        })
        .collect()
}

fn r(i: u32) -> LExpr {
    Expr::Var(RegId(i))
}

fn c(v: i64) -> LExpr {
    Expr::Const(v)
}

fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples")
}

#[test]
fn sb_shape() {
    let p = parse(
        "shared x, y;\nthread t0 { x = 1; r1 = y; }\nthread t1 { y = 1; r2 = x; }\n\
         goal final where t0.r1 == 0 && t1.r2 == 0;",
    );
    assert_eq!(p.vars.len(), 2);
    assert_eq!((p.vars[0].addr, p.vars[1].addr), (0, 1));
    assert!(p.init.is_empty());
    let t = trans(&p, 0);
    assert_eq!(
        t,
        vec![
            (
                "q0".into(),
                "q1".into(),
                Command::Store {
                    addr: c(0),
                    value: c(1)
                }
            ),
            (
                "q1".into(),
                "end".into(),
                Command::Load {
                    reg: RegId(0),
                    addr: c(1)
                }
            ),
        ]
    );
    assert_eq!(p.threads[0].initial, StateId(0));
    let g = &p.goals[0];
    assert_eq!(g.kind, GoalKind::Goal);
    assert_eq!(g.at, GoalAt::Final);
    assert_eq!(
        g.cond,
        Some(Expr::bin(
            BinOp::And,
            Expr::bin(
                BinOp::Eq,
                Expr::Var(GVar::Reg(ThreadId(0), RegId(0))),
                Expr::Const(0)
            ),
            Expr::bin(
                BinOp::Eq,
                Expr::Var(GVar::Reg(ThreadId(1), RegId(0))),
                Expr::Const(0)
            ),
        ))
    );
}

#[test]
fn addresses_and_initial_memory() {
    let p = parse(
        "shared x = 1, y, buf[4]; shared z @ 7 = 1, w; init mem[20] = 3; init buf[2] = 5;\n\
         shared p = &z;\n\
         thread t { r = buf[1]; buf[r] = 2; }",
    );
    let addrs: Vec<(String, i64, i64)> = p
        .vars
        .iter()
        .map(|v| (p.name(v.name).to_string(), v.addr, v.init))
        .collect();
    assert_eq!(
        addrs,
        vec![
            ("x".into(), 0, 1),
            ("y".into(), 1, 0),
            ("buf".into(), 2, 0),
            ("z".into(), 7, 1),
            ("w".into(), 8, 0),
            ("p".into(), 9, 7),
        ]
    );
    let init: Vec<(i64, i64)> = p.init.iter().map(|(a, v)| (*a, *v)).collect();
    assert_eq!(init, vec![(0, 1), (4, 5), (7, 1), (9, 7), (20, 3)]);
    let t = trans(&p, 0);
    assert_eq!(
        t[0].2,
        Command::Load {
            reg: RegId(0),
            addr: c(3)
        }
    );
    assert_eq!(
        t[1].2,
        Command::Store {
            addr: Expr::bin(BinOp::Add, c(2), r(0)),
            value: c(2)
        }
    );
}

#[test]
fn shared_variable_in_expression_is_an_error() {
    let e = err("shared x, y;\nthread t { r = x + 1; }");
    assert!(
        e.starts_with("t.rmm:2:16: error: shared variable `x` used inside an expression"),
        "{e}"
    );
    assert!(e.contains("load it into a register first"), "{e}");
    let e = err("shared x, y;\nthread t { x = y; }");
    assert!(e.contains("`y` used inside an expression"), "{e}");
    let e = err("shared x;\nthread t { assume(mem[0] == 1); }");
    assert!(
        e.contains("memory access `mem[...]` inside an expression"),
        "{e}"
    );
}

#[test]
fn expressions_precedence_unary_and_hex() {
    let p = parse("thread t { reg a, b; r = a + b * 2 - -1; s = (a - b) - 0x10; u = !a || -a < -(3) && a == b == 1; }");
    let t = trans(&p, 0);
    assert_eq!(
        t[0].2,
        Command::Assign {
            reg: RegId(2),
            value: Expr::bin(
                BinOp::Sub,
                Expr::bin(BinOp::Add, r(0), Expr::bin(BinOp::Mul, r(1), c(2))),
                c(-1)
            )
        }
    );
    assert_eq!(
        t[1].2,
        Command::Assign {
            reg: RegId(3),
            value: Expr::bin(BinOp::Sub, Expr::bin(BinOp::Sub, r(0), r(1)), c(16))
        }
    );
    let want = Expr::bin(
        BinOp::Or,
        Expr::un(UnOp::Not, r(0)),
        Expr::bin(
            BinOp::And,
            Expr::bin(
                BinOp::Lt,
                Expr::un(UnOp::Neg, r(0)),
                Expr::un(UnOp::Neg, c(3)),
            ),
            Expr::bin(BinOp::Eq, Expr::bin(BinOp::Eq, r(0), r(1)), c(1)),
        ),
    );
    assert_eq!(
        t[2].2,
        Command::Assign {
            reg: RegId(4),
            value: want
        }
    );
}

/// The unsigned operators and shifts (docs/language.md, "Operators and
/// their values"): precedence, the lexing rule for a `u` after the
/// symbol, printing and re-parsing, and located errors.
#[test]
fn unsigned_operators_and_shifts() {
    let p = parse(
        "thread t { reg a, b, u1, u; \
         r = a <u b <= 1; s = a<u1; v = a >>u 2 + b << 1 >> a; \
         w = a /u b %u 3 * a; x = a >= u; y = a>=u(b); z = a <=u -1 == a >u b; q = a >=u b >u a; }",
    );
    let t = trans(&p, 0);
    let bin = |op, a, b| Expr::bin(op, a, b);
    let want = [
        bin(BinOp::Le, bin(BinOp::Ult, r(0), r(1)), c(1)),
        bin(BinOp::Lt, r(0), r(2)),
        bin(
            BinOp::Sar,
            bin(
                BinOp::Shl,
                bin(BinOp::Shr, r(0), bin(BinOp::Add, c(2), r(1))),
                c(1),
            ),
            r(0),
        ),
        bin(
            BinOp::Mul,
            bin(BinOp::Urem, bin(BinOp::Udiv, r(0), r(1)), c(3)),
            r(0),
        ),
        bin(BinOp::Ge, r(0), r(3)),
        bin(BinOp::Uge, r(0), r(1)),
        bin(
            BinOp::Eq,
            bin(BinOp::Ule, r(0), c(-1)),
            bin(BinOp::Ugt, r(0), r(1)),
        ),
        bin(BinOp::Ugt, bin(BinOp::Uge, r(0), r(1)), r(0)),
    ];
    for (i, w) in want.into_iter().enumerate() {
        match &t[i].2 {
            Command::Assign { value, .. } => assert_eq!(value, &w, "assignment {i}"),
            c => panic!("{c:?}"),
        }
    }
    let text = round_trip(&p);
    assert!(text.contains("a <u b <= 1"), "{text}");
    assert!(text.contains("a >>u 2 + b << 1 >> a"), "{text}");
    assert!(text.contains("a /u b %u 3 * a"), "{text}");
    // Malformed uses: located errors.
    for (src, col, what) in [
        ("thread t { r = a <u; }", 20, "expected"),
        ("thread t { r = a <<< b; }", 20, "expected"),
        ("thread t { r = a >>u >> b; }", 22, "expected"),
        ("thread t { r = a u< b; }", 18, "expected"),
    ] {
        let e = err(src);
        assert!(
            e.contains(&format!("t.rmm:1:{col}:")) && e.contains(what),
            "{src}: {e}"
        );
    }
}

#[test]
fn constants_must_fit_the_width() {
    let e = parse_w("thread t { r = 300; }", 8).unwrap_err();
    assert!(
        e.starts_with("t.rmm:1:16: error: constant 300 does not fit in 8 bits"),
        "{e}"
    );
    // 255 fits as unsigned and wraps to -1; -128 fits.
    let p = parse_w("thread t { r = 255; s = -128; }", 8).unwrap();
    let t = trans(&p, 0);
    assert_eq!(
        t[0].2,
        Command::Assign {
            reg: RegId(0),
            value: c(-1)
        }
    );
    assert_eq!(
        t[1].2,
        Command::Assign {
            reg: RegId(1),
            value: c(-128)
        }
    );
    let e = parse_w("thread t { r = -129; }", 8).unwrap_err();
    assert!(e.contains("constant -129 does not fit in 8 bits"), "{e}");
    let e = parse_w("thread t { r = 99999999999999999999999; }", 16).unwrap_err();
    assert!(e.contains("does not fit in 16 bits"), "{e}");
}

#[test]
fn if_while_desugaring() {
    let p =
        parse("thread t { reg a; if (a) { a = 1; } else { a = 2; } while (a < 3) { a = a + 1; } }");
    let t = trans(&p, 0);
    let s = |a: &str, b: &str| (a.to_string(), b.to_string());
    let got: Vec<(String, String)> = t.iter().map(|(f, to, _)| s(f, to)).collect();
    // if at q0 (then q2, else q3, join q1); while head q1 (body q4, exit end).
    assert_eq!(
        got,
        vec![
            s("q0", "q2"),
            s("q0", "q3"),
            s("q2", "q1"),
            s("q3", "q1"),
            s("q1", "q4"),
            s("q1", "end"),
            s("q4", "q1"),
        ]
    );
    assert_eq!(t[0].2, Command::Assume(r(0)));
    assert_eq!(t[1].2, Command::Assume(Expr::un(UnOp::Not, r(0))));
    assert_eq!(
        t[5].2,
        Command::Assume(Expr::un(UnOp::Not, Expr::bin(BinOp::Lt, r(0), c(3))))
    );
    assert_eq!(p.threads[0].initial, StateId(0));
    assert_eq!(p.state_name(ThreadId(0), StateId(0)), "q0");
}

#[test]
fn if_without_else_and_empty_bodies() {
    let p = parse("thread t { reg a; if (a) { } while (a) { } }");
    let t = trans(&p, 0);
    let got: Vec<(&str, &str)> = t
        .iter()
        .map(|(f, to, _)| (f.as_str(), to.as_str()))
        .collect();
    assert_eq!(
        got,
        vec![("q0", "q1"), ("q0", "q1"), ("q1", "q1"), ("q1", "end")]
    );
}

#[test]
fn choose_labels_goto_assert() {
    let p = parse(
        "shared x;\nthread t { reg a;\n top: choose { x = 1; } or { x = 2; goto top; }\n assert(a == 0);\n }\n\
         goal t@top;",
    );
    let t = trans(&p, 0);
    let got: Vec<(&str, &str, &Command)> = t
        .iter()
        .map(|(f, to, cmd)| (f.as_str(), to.as_str(), cmd))
        .collect();
    assert_eq!(got[0], ("top", "q1", &Command::Nop));
    assert_eq!(got[1], ("top", "q2", &Command::Nop));
    assert_eq!(got[2].0, "q1");
    assert_eq!(got[2].1, "q0");
    assert_eq!(got[3].0, "q2");
    assert_eq!(got[4], ("q3", "top", &Command::Nop));
    // assert: continue with assume(e), fail with assume(!e) to fresh q4.
    let e = Expr::bin(BinOp::Eq, r(0), c(0));
    assert_eq!(got[5], ("q0", "end", &Command::Assume(e.clone())));
    assert_eq!(
        got[6],
        ("q0", "q4", &Command::Assume(Expr::un(UnOp::Not, e)))
    );
    assert_eq!(p.goals.len(), 2);
    let q4 = p.threads[0]
        .states
        .iter()
        .position(|s| p.name(*s) == "q4")
        .unwrap();
    assert_eq!(p.goals[0].kind, GoalKind::Assertion);
    assert_eq!(
        p.goals[0].at,
        GoalAt::States(vec![(ThreadId(0), StateId(q4 as u32))])
    );
    assert_eq!(p.goals[1].kind, GoalKind::Goal);
    assert_eq!(p.state_name(ThreadId(0), p.threads[0].initial), "top");
}

#[test]
fn generated_names_skip_labels() {
    let p = parse("thread t { nop; q0: nop; goto q0; }");
    let names: Vec<&str> = p.threads[0].states.iter().map(|s| p.name(*s)).collect();
    assert_eq!(names, vec!["q1", "q0", "q2", "end"]);
}

#[test]
fn cas_xchg_and_reservations() {
    let p = parse(
        "shared x, l;\nthread t { r = cas(x, 0, 1); s = xchg(l, 1); u = lwarx(x); stwcx(x, u + 1) -> ok; }",
    );
    let t = trans(&p, 0);
    assert_eq!(t.len(), 5);
    assert_eq!((t[0].0.as_str(), t[0].1.as_str()), ("q0", "q1"));
    assert_eq!((t[1].0.as_str(), t[1].1.as_str()), ("q0", "q1"));
    let load = Command::Load {
        reg: RegId(0),
        addr: c(0),
    };
    assert_eq!(
        t[0].2,
        Command::Atomic(vec![
            load.clone(),
            Command::Assume(Expr::bin(BinOp::Eq, r(0), c(0))),
            Command::Store {
                addr: c(0),
                value: c(1)
            },
        ])
    );
    assert_eq!(
        t[1].2,
        Command::Atomic(vec![
            load,
            Command::Assume(Expr::bin(BinOp::Ne, r(0), c(0)))
        ])
    );
    assert_eq!(
        t[2].2,
        Command::Atomic(vec![
            Command::Load {
                reg: RegId(1),
                addr: c(1)
            },
            Command::Store {
                addr: c(1),
                value: c(1)
            },
        ])
    );
    assert_eq!(
        t[3].2,
        Command::LoadReserve {
            reg: RegId(2),
            addr: c(0)
        }
    );
    assert_eq!(
        t[4].2,
        Command::StoreCond {
            addr: c(0),
            value: Expr::bin(BinOp::Add, r(2), c(1)),
            flag: RegId(3)
        }
    );
    let e = err("shared x;\nthread t { r = cas(x, r, 1); }");
    assert!(
        e.contains("must not mention the target register `r`"),
        "{e}"
    );
    let e = err("shared x;\nthread t { r = xchg(x, r + 1); }");
    assert!(
        e.contains("must not mention the target register `r`"),
        "{e}"
    );
}

#[test]
fn fences_atomic_pgas() {
    let p = parse(
        "shared x;\nnodes 3;\nthread t { mfence; fence; sync; lwsync; isync; eieio; membar #StoreLoad | #StoreStore; \
         lock; unlock; nop; atomic { r = x; assume(r == 0); x = 1; }; read(0, rank, 1, 2); write(1, nodes - 1, 0, 0); barrier; }",
    );
    assert_eq!(p.nodes, Some(3));
    let cmds: Vec<Command> = trans(&p, 0).into_iter().map(|t| t.2).collect();
    assert_eq!(cmds[0], Command::Fence(Fence::MFence));
    assert_eq!(cmds[1], Command::Fence(Fence::MFence));
    assert_eq!(cmds[2], Command::Fence(Fence::Sync));
    assert_eq!(cmds[3], Command::Fence(Fence::LwSync));
    assert_eq!(cmds[4], Command::Fence(Fence::ISync));
    assert_eq!(cmds[5], Command::Fence(Fence::Eieio));
    assert_eq!(
        cmds[6],
        Command::Fence(Fence::Membar(MembarMask(MembarMask::SL | MembarMask::SS)))
    );
    assert_eq!(cmds[7..10], [Command::Lock, Command::Unlock, Command::Nop]);
    assert!(matches!(&cmds[10], Command::Atomic(v) if v.len() == 3));
    assert_eq!(
        cmds[11],
        Command::Pgas(PgasCmd::Read {
            local: c(0),
            rank: Expr::Rank,
            remote: c(1),
            queue: c(2)
        })
    );
    assert!(
        matches!(&cmds[12], Command::Pgas(PgasCmd::Write { rank, .. })
        if *rank == Expr::bin(BinOp::Sub, Expr::Nodes, c(1)))
    );
    assert_eq!(cmds[13], Command::Pgas(PgasCmd::Barrier));
    let e = err("thread t { atomic { mfence; } }");
    assert!(e.contains("not allowed inside `atomic`"), "{e}");
    let e = err("thread t { membar #Foo; }");
    assert!(e.contains("unknown membar mask `#Foo`"), "{e}");
}

/// The Arm/RISC-V fences, annotated accesses, `guard` and `select`: their
/// IR, their errors, and that the printed text parses back to the same IR.
#[test]
fn arm_riscv_commands_parse_print_and_round_trip() {
    let p = parse(
        "shared x, y;\nthread t { dmb; dmb ld; dmb st; dmb sy; isb; fence r,rw; fence.tso; \
         fence w,r; fence #LoadLoad | #StoreStore; r = ldar(x); s = ldapr(y); stlr(x, r + 1); \
         [acq, rel] u = lwarx(x); [rel] stwcx(x, 2) -> f; [acqpc] y = 3; [] v = y; \
         atomic { [acq] w = x; guard(w == 0); [rel] x = 1; }; guard(f); z = select(r, s, 7); }",
    );
    let cmds: Vec<Command> = trans(&p, 0).into_iter().map(|t| t.2).collect();
    let f = |f| Command::Fence(f);
    let ann = |b, c| Command::Ann(Ann(b), Box::new(c));
    let mm = MembarMask;
    assert_eq!(
        cmds[..9],
        [
            f(Fence::Dmb),
            f(Fence::DmbLd),
            f(Fence::DmbSt),
            f(Fence::Dmb),
            f(Fence::Isb),
            f(Fence::RvFence(mm(MembarMask::LL | MembarMask::LS))),
            f(Fence::RvFence(MembarMask::TSO)),
            f(Fence::RvFence(mm(MembarMask::SL))),
            f(Fence::RvFence(mm(MembarMask::LL | MembarMask::SS))),
        ]
    );
    assert_eq!(
        cmds[9],
        ann(
            Ann::ACQ,
            Command::Load {
                reg: RegId(0),
                addr: c(0)
            }
        )
    );
    assert_eq!(
        cmds[10],
        ann(
            Ann::ACQPC,
            Command::Load {
                reg: RegId(1),
                addr: c(1)
            }
        )
    );
    assert_eq!(
        cmds[11],
        ann(
            Ann::REL,
            Command::Store {
                addr: c(0),
                value: Expr::bin(BinOp::Add, r(0), c(1))
            }
        )
    );
    assert!(matches!(&cmds[12], Command::Ann(Ann(b), c)
            if *b == Ann::ACQ | Ann::REL && matches!(**c, Command::LoadReserve { .. })));
    assert!(
        matches!(&cmds[13], Command::Ann(Ann(Ann::REL), c) if matches!(**c, Command::StoreCond { .. }))
    );
    assert!(
        matches!(&cmds[14], Command::Ann(Ann(Ann::ACQPC), c) if matches!(**c, Command::Store { .. }))
    );
    assert!(matches!(&cmds[15], Command::Ann(Ann(0), c) if matches!(**c, Command::Load { .. })));
    match &cmds[16] {
        Command::Atomic(v) => {
            assert!(matches!(&v[0], Command::Ann(Ann(Ann::ACQ), _)));
            assert!(matches!(&v[1], Command::Guard(_)));
            assert!(matches!(&v[2], Command::Ann(Ann(Ann::REL), _)));
        }
        c => panic!("{c:?}"),
    }
    assert!(matches!(&cmds[17], Command::Guard(Expr::Var(_))));
    assert!(matches!(
        &cmds[18],
        Command::Select {
            else_: Expr::Const(7),
            ..
        }
    ));
    let text = round_trip(&p);
    for needle in [
        "dmb;",
        "dmb ld;",
        "dmb st;",
        "isb;",
        "fence r,rw;",
        "fence.tso;",
        "fence #LoadLoad | #StoreStore;",
        "r = ldar(x);",
        "s = ldapr(y);",
        "stlr(x, r + 1);",
        "[acq, rel] u = lwarx(x);",
        "guard(w == 0)",
        "z = select(r, s, 7);",
    ] {
        assert!(text.contains(needle), "{needle} not in\n{text}");
    }
    for (src, msg) in [
        ("thread t { dmb foo; }", "expected `;`"),
        ("thread t { fence.x; }", "expected `tso`"),
        ("thread t { fence r,x; }", "expected a fence set"),
        ("thread t { [foo] r = 1; }", "unknown annotation `foo`"),
        ("thread t { [acq] r = 1; }", "applies to one access"),
        ("thread t { [acq] dmb; }", "applies to one access"),
        ("thread t { [600] r = mem[0]; }", "must be 0..=511"),
        ("thread t { r = select(1, 2); }", "expected `,`"),
        (
            "thread t { atomic { dmb; }; }",
            "not allowed inside `atomic`",
        ),
    ] {
        let e = err(src);
        assert!(e.contains(msg) && e.contains("t.rmm:1:"), "{src}: {e}");
    }
}

#[test]
fn registers_declared_implicit_unknown() {
    let p = parse("thread t { reg a = 5, b = -2; c = a; d = c + b; }");
    let t = &p.threads[0];
    let names: Vec<&str> = t.regs.iter().map(|s| p.name(*s)).collect();
    assert_eq!(names, vec!["a", "b", "c", "d"]);
    assert_eq!(t.reg_init, vec![5, -2, 0, 0]);
    // A register assigned later in the thread may be used earlier.
    parse("thread t { while (1) { assume(x == 0); x = 1; } }");
    let e = err("thread t {\n  a = b + 1;\n}");
    assert!(
        e.starts_with("t.rmm:2:7: error: unknown register `b`"),
        "{e}"
    );
    let e = err("thread t { reg a; reg a; }");
    assert!(e.contains("register `a` declared twice"), "{e}");
    // A declared register shadows a shared variable of the same name.
    let p = parse("shared x;\nthread t { reg x; x = 1; r = x + 1; }");
    assert!(matches!(trans(&p, 0)[0].2, Command::Assign { .. }));
}

#[test]
fn automaton_form() {
    let p = parse(
        "shared x;\nthread t {\n reg r;\n states 12, a;\n initial `a-b`;\n `a-b` -> 12: x = 1;\n 12 -> 007: r = x;\n}\n\
         goal t@007 where t.r == 1 && x == 1;\nerror boom: t@12;\ngoal where mem[0] == 1;\ngoal anywhere;\ngoal;",
    );
    let names: Vec<&str> = p.threads[0].states.iter().map(|s| p.name(*s)).collect();
    assert_eq!(names, vec!["12", "a", "a-b", "007"]);
    assert_eq!(p.threads[0].initial, StateId(2));
    assert_eq!(p.goals.len(), 5);
    assert_eq!(
        (p.goals[4].at.clone(), p.goals[4].cond.clone()),
        (GoalAt::Final, None)
    );
    assert_eq!(
        p.goals[0].at,
        GoalAt::States(vec![(ThreadId(0), StateId(3))])
    );
    assert_eq!(
        p.goals[0].cond,
        Some(Expr::bin(
            BinOp::And,
            Expr::bin(
                BinOp::Eq,
                Expr::Var(GVar::Reg(ThreadId(0), RegId(0))),
                Expr::Const(1)
            ),
            Expr::bin(BinOp::Eq, Expr::Var(GVar::Mem(0)), Expr::Const(1)),
        ))
    );
    assert_eq!(p.goals[1].name.as_deref(), Some("boom"));
    assert_eq!(p.goals[1].kind, GoalKind::Assertion);
    assert_eq!(p.goals[2].at, GoalAt::Final);
    assert_eq!(p.goals[3].at, GoalAt::States(vec![]));
    let e = err("thread t { a -> b: nop; }");
    assert!(e.contains("thread `t` has no `initial` state"), "{e}");
}

#[test]
fn goal_errors_are_located() {
    let e = err("thread t { nop; }\ngoal u@end;");
    assert!(e.starts_with("t.rmm:2:6: error: unknown thread `u`"), "{e}");
    let e = err("thread t { nop; }\ngoal t@nowhere;");
    assert!(
        e.starts_with("t.rmm:2:8: error: thread `t` has no state `nowhere`"),
        "{e}"
    );
    let e = err("thread t { nop; }\ngoal final where t.zz == 1;");
    assert!(e.contains("thread `t` has no register `zz`"), "{e}");
    let e = err("thread t { nop; }\ngoal final where zz == 1;");
    assert!(e.contains("unknown shared variable `zz`"), "{e}");
}

#[test]
fn other_errors() {
    let e = err("thread t { goto nowhere; }");
    assert!(
        e.starts_with("t.rmm:1:12: error: undefined label `nowhere`"),
        "{e}"
    );
    let e = err("thread t { a: nop; a: nop; }");
    assert!(e.contains("label `a` defined twice"), "{e}");
    let e = err("thread t { nop; }\nthread t { nop; }");
    assert!(
        e.starts_with("t.rmm:2:8: error: duplicate thread name `t`"),
        "{e}"
    );
    let e = err("// nothing\n");
    assert!(e.contains("empty program"), "{e}");
    let e = err("shared x, x;");
    assert!(e.contains("declared twice"), "{e}");
    let e = err("shared x @ 3, y @ 3; thread t { nop; }");
    assert!(e.contains("overlaps shared variable `x`"), "{e}");
    let e = err("thread lock { nop; }");
    assert!(e.contains("found keyword `lock`"), "{e}");
    let e = err("thread t { nop }");
    assert!(e.contains("expected `;`, found `}`"), "{e}");
    let e = err("thread t { r = 1; /* unterminated");
    assert!(e.contains("unterminated `/*` comment"), "{e}");
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let deep = format!(
        "thread t {{ r = {}1{}; }}",
        "(".repeat(100_000),
        ")".repeat(100_000)
    );
    let e = err(&deep);
    assert!(e.contains("nesting too deep"), "{e}");
    let long = format!("thread t {{ r = 1{}; }}", " + 1".repeat(100_000));
    let e = err(&long);
    assert!(e.contains("expression too deep"), "{e}");
    let negs = format!("thread t {{ r = {}1; }}", "!".repeat(100_000));
    assert!(err(&negs).contains("too deep"));
    let stmts = format!("thread t {{ {} }}", "while (1) {".repeat(100_000));
    assert!(err(&stmts).contains("nesting too deep"));
    // Up to the limit is fine.
    let ok = format!(
        "thread t {{ r = {}1{}; }}",
        "(".repeat(200),
        ")".repeat(200)
    );
    parse(&ok);
}

#[test]
fn examples_parse_and_round_trip() {
    let dir = examples_dir();
    let mut n = 0;
    for name in [
        "sb.rmm",
        "sb-fenced.rmm",
        "mp.rmm",
        "lb.rmm",
        "iriw.rmm",
        "dekker.rmm",
        "peterson.rmm",
    ] {
        let path = dir.join(name);
        let text = std::fs::read_to_string(&path).expect("example exists");
        let p = native::parse(&SourceFile::new(name, text), Width::DEFAULT)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(!p.goals.is_empty(), "{name} has a goal");
        round_trip(&p);
        n += 1;
    }
    assert_eq!(n, 7);
    // The mutual-exclusion goals name the critical-section label.
    let text = std::fs::read_to_string(dir.join("dekker.rmm")).unwrap();
    let p = parse(&text);
    let GoalAt::States(v) = &p.goals[0].at else {
        panic!("dekker goal is at states")
    };
    assert_eq!(v.len(), 2);
    assert!(v.iter().all(|(t, q)| p.state_name(*t, *q) == "cs"));
}

#[test]
fn round_trip_of_structured_programs() {
    let p = parse(
        "shared x = 3, buf[3], y @ 10;\ninit mem[40] = 0;\nthread t { reg a = 1;\n l: if (a > 0) { x = a; a = buf[a]; } else { goto l; }\n\
         while (a) { a = a - 1; assert(a != 5); }\n choose { r = cas(y, 0, 1); } or { s = xchg(y, 2); } }\n\
         goal g: t@end where t.a == 0 && y == 1 && mem[40] == 0;",
    );
    let text = round_trip(&p);
    assert!(text.contains("shared y @ 10;"), "{text}");
    assert!(text.contains("init mem[40] = 0;"), "{text}");
    assert!(text.contains("error t@"), "{text}");
}

fn sym_thread(p: &mut Program, name: &str, states: &[&str], regs: &[(&str, i64)]) -> Thread {
    let n = p.names.intern(name);
    let q = p.names.intern(states[0]);
    let mut t = Thread::new(n, q, Span::default());
    for s in &states[1..] {
        let s = p.names.intern(s);
        t.state(s);
    }
    for (r, v) in regs {
        let s = p.names.intern(r);
        let id = t.reg(s);
        t.reg_init[id.0 as usize] = *v;
    }
    t
}

#[test]
fn round_trip_of_hand_built_ir_with_every_command() {
    let mut p = Program::default();
    for (name, addr, init) in [
        ("x", 0, 0),
        ("lock", 5, 2),
        ("y", 6, 0),
        ("weird`n\\", -3, -1),
    ] {
        let s = p.names.intern(name);
        p.vars.push(SharedVar {
            name: s,
            addr,
            init,
            span: Span::default(),
        });
        if init != 0 {
            p.init.insert(addr, init);
        }
    }
    p.init.insert(0, 0); // an explicit zero entry must survive
    p.init.insert(100, 7);
    p.nodes = Some(2);
    let mut t = sym_thread(
        &mut p,
        "thread",
        &["s1", "12", "end", "a b", "isolated"],
        &[("r", 0), ("x", -5), ("mem", 3)],
    );
    t.initial = StateId(1);
    let cmds = vec![
        Command::Load {
            reg: RegId(0),
            addr: c(0),
        },
        Command::Load {
            reg: RegId(0),
            addr: c(6),
        },
        Command::Store {
            addr: c(5),
            value: Expr::un(UnOp::Neg, c(1)),
        },
        Command::Store {
            addr: Expr::bin(BinOp::Mul, r(2), c(-1)),
            value: c(-7),
        },
        Command::Assign {
            reg: RegId(1),
            value: Expr::bin(
                BinOp::Sub,
                r(0),
                Expr::bin(
                    BinOp::Sub,
                    r(1),
                    Expr::un(UnOp::Neg, Expr::un(UnOp::Neg, r(2))),
                ),
            ),
        },
        Command::Assume(Expr::un(UnOp::Not, Expr::bin(BinOp::Or, r(0), c(0)))),
        Command::Fence(Fence::MFence),
        Command::Fence(Fence::Sync),
        Command::Fence(Fence::LwSync),
        Command::Fence(Fence::ISync),
        Command::Fence(Fence::Eieio),
        Command::Fence(Fence::Membar(MembarMask(0))),
        Command::Fence(Fence::Membar(MembarMask(0xff))),
        Command::Fence(Fence::Membar(MembarMask(MembarMask::LL | MembarMask::LS))),
        Command::Lock,
        Command::Unlock,
        Command::Nop,
        Command::Atomic(vec![
            Command::Load {
                reg: RegId(0),
                addr: c(-3),
            },
            Command::Assume(Expr::bin(BinOp::Eq, r(0), c(0))),
            Command::Store {
                addr: c(-3),
                value: c(1),
            },
        ]),
        Command::LoadReserve {
            reg: RegId(2),
            addr: Expr::bin(BinOp::Add, r(0), c(1)),
        },
        Command::StoreCond {
            addr: c(6),
            value: r(2),
            flag: RegId(1),
        },
        Command::Pgas(PgasCmd::Read {
            local: c(0),
            rank: Expr::Rank,
            remote: c(1),
            queue: c(0),
        }),
        Command::Pgas(PgasCmd::Write {
            local: c(0),
            rank: Expr::Nodes,
            remote: r(0),
            queue: c(1),
        }),
        Command::Pgas(PgasCmd::Barrier),
    ];
    for (i, cmd) in cmds.into_iter().enumerate() {
        t.instrs.push(Instr {
            from: StateId((i % 4) as u32),
            to: StateId(((i + 1) % 4) as u32),
            cmd,
            span: Span::default(),
        });
    }
    p.threads.push(t);
    let t2 = sym_thread(&mut p, "0", &["q"], &[]);
    p.threads.push(t2);
    p.goals.push(Goal {
        name: Some("final".into()),
        kind: GoalKind::Goal,
        at: GoalAt::States(vec![(ThreadId(0), StateId(3)), (ThreadId(1), StateId(0))]),
        cond: Some(Expr::bin(
            BinOp::And,
            Expr::Var(GVar::Mem(6)),
            Expr::bin(
                BinOp::Eq,
                Expr::Var(GVar::Reg(ThreadId(0), RegId(2))),
                Expr::Var(GVar::Mem(1000)),
            ),
        )),
        span: Span::default(),
    });
    p.goals.push(Goal {
        name: None,
        kind: GoalKind::Assertion,
        at: GoalAt::Final,
        cond: None,
        span: Span::default(),
    });
    p.goals.push(Goal {
        name: None,
        kind: GoalKind::Goal,
        at: GoalAt::States(vec![]),
        cond: Some(Expr::Rank),
        span: Span::default(),
    });
    let text = round_trip(&p);
    // A register named like a variable makes the printer fall back to mem[..].
    assert!(text.contains("r = mem[0]"), "{text}");
    assert!(text.contains("r = y"), "{text}");
    assert!(text.contains("`lock` = -(1)"), "{text}");
    assert!(text.contains("shared `weird\\`n\\\\` @ -3 = -1;"), "{text}");
    assert!(text.contains("thread `0` {"), "{text}");
    assert!(
        text.contains("states s1, 12, end, `a b`, isolated;"),
        "{text}"
    );
    assert!(text.contains("membar #LoadLoad | #LoadStore"), "{text}");
}

/// Random expressions (deterministic xorshift) print and re-parse to the
/// same tree.
#[test]
fn random_expressions_round_trip() {
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut rnd = move |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    fn gen(rnd: &mut impl FnMut(u64) -> u64, d: u32) -> LExpr {
        if d == 0 || rnd(4) == 0 {
            return match rnd(3) {
                0 => Expr::Const(rnd(21) as i64 - 10),
                1 => Expr::Var(RegId(rnd(3) as u32)),
                _ => Expr::Const(rnd(3) as i64),
            };
        }
        match rnd(5) {
            0 => Expr::un(
                if rnd(2) == 0 { UnOp::Neg } else { UnOp::Not },
                gen(rnd, d - 1),
            ),
            _ => Expr::bin(
                BinOp::ALL[rnd(BinOp::ALL.len() as u64) as usize],
                gen(rnd, d - 1),
                gen(rnd, d - 1),
            ),
        }
    }
    let mut p = Program::default();
    let mut t = sym_thread(&mut p, "t", &["a", "b"], &[("r0", 0), ("r1", 0), ("r2", 0)]);
    for _ in 0..300 {
        let value = gen(&mut rnd, 6);
        t.instrs.push(Instr {
            from: StateId(0),
            to: StateId(1),
            cmd: Command::Assign {
                reg: RegId(0),
                value,
            },
            span: Span::default(),
        });
    }
    p.threads.push(t);
    round_trip(&p);
}

fn corpus_dir() -> Option<PathBuf> {
    common::corpus("trencher")
}

#[test]
fn trencher_corpus_round_trips() {
    let Some(dir) = corpus_dir() else {
        return;
    };
    let mut files = Vec::new();
    for sub in [dir.clone(), dir.join("memorax")] {
        let Ok(rd) = std::fs::read_dir(&sub) else {
            continue;
        };
        for e in rd.flatten() {
            let path = e.path();
            if path.extension().is_some_and(|x| x == "txt") {
                files.push(path);
            }
        }
    }
    files.sort();
    assert!(files.len() >= 30, "found {} corpus files", files.len());
    for f in &files {
        let src = SourceFile::read(&f.to_string_lossy()).expect("readable");
        let p = trencher::parse(&src, Width::DEFAULT).unwrap_or_else(|e| panic!("{e}"));
        let text = bmc_rmm::program::render::native(&p);
        let q = native::parse(
            &SourceFile::new("printed.rmm", text.clone()),
            Width::DEFAULT,
        )
        .unwrap_or_else(|e| panic!("{}: printed program does not parse: {e}", f.display()));
        assert_eq!(p.fingerprint(), q.fingerprint(), "{}", f.display());
    }
}

/// Random bytes, random token soup and every truncation of an example:
/// the parser returns (Ok or a located error) and never panics.
#[test]
fn fuzz_never_panics() {
    let text = std::fs::read_to_string(examples_dir().join("dekker.rmm")).unwrap();
    for (i, _) in text.char_indices() {
        let src = SourceFile::new("trunc.rmm", &text[..i]);
        if let Err(e) = native::parse(&src, Width::DEFAULT) {
            assert!(e.to_string().starts_with("trunc.rmm:"), "{e}");
        }
    }
    let mut seed: u64 = 88172645463325252;
    let mut rnd = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let words = [
        "thread",
        "t",
        "{",
        "}",
        "(",
        ")",
        "[",
        "]",
        ";",
        ",",
        ":",
        "->",
        "=",
        "==",
        "+",
        "-",
        "!",
        "&",
        "x",
        "r",
        "mem",
        "if",
        "else",
        "while",
        "choose",
        "or",
        "goto",
        "assert",
        "cas",
        "xchg",
        "atomic",
        "goal",
        "final",
        "where",
        "@",
        ".",
        "0",
        "1",
        "300",
        "shared",
        "reg",
        "initial",
        "states",
        "membar",
        "#StoreLoad",
        "|",
        "`q`",
        "error",
        "init",
        "end",
        "lwarx",
        "stwcx",
        "read",
        "barrier",
        "rank",
        "nodes",
        "99999999999999999999",
    ];
    for _ in 0..3000 {
        let n = (rnd() % 40) as usize;
        let mut s = String::from("shared x; thread t { ");
        for _ in 0..n {
            s.push_str(words[(rnd() % words.len() as u64) as usize]);
            s.push(' ');
        }
        let _ = native::parse(&SourceFile::new("soup.rmm", s), Width(8));
        let bytes: Vec<u8> = (0..(rnd() % 64)).map(|_| rnd() as u8).collect();
        let s = String::from_utf8_lossy(&bytes).into_owned();
        let _ = native::parse(&SourceFile::new("bytes.rmm", s), Width::DEFAULT);
    }
}

/// Random edits of the examples: every edited text either fails with a
/// located error or parses to a program that round-trips through the
/// printer.
#[test]
fn mutated_examples_error_or_round_trip() {
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut rnd = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let alphabet: Vec<char> = "{}()[];:,=!-+*&|@.`#x0129 \nrtqabc_/".chars().collect();
    let mut parsed = 0;
    for name in ["sb.rmm", "dekker.rmm", "peterson.rmm", "iriw.rmm"] {
        let text = std::fs::read_to_string(examples_dir().join(name)).unwrap();
        let base: Vec<char> = text.chars().collect();
        for _ in 0..400 {
            let mut cs = base.clone();
            for _ in 0..(1 + rnd() % 3) {
                let i = (rnd() as usize) % cs.len();
                let ch = alphabet[(rnd() as usize) % alphabet.len()];
                match rnd() % 3 {
                    0 => {
                        cs.remove(i);
                    }
                    1 => cs.insert(i, ch),
                    _ => cs[i] = ch,
                }
            }
            let s: String = cs.into_iter().collect();
            match native::parse(&SourceFile::new("m.rmm", s.clone()), Width::DEFAULT) {
                Ok(p) => {
                    parsed += 1;
                    round_trip(&p);
                }
                Err(e) => assert!(e.to_string().starts_with("m.rmm:"), "{e}"),
            }
        }
    }
    assert!(parsed > 0, "some mutants should still parse");
}
