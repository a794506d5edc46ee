//! AArch64 front-end tests that need no corpus: each small test's final
//! states (under `sc`, one thread, so no reordering) are the values the
//! Arm ARM's instruction descriptions give (C6: ADD (shifted / extended
//! register), ASR, MOVZ, MOVK, MADD, B.cond with unsigned conditions,
//! STR post-index), computed by hand in the comments.

use crate::common::litmus_states as states_under;
use bmc_rmm::cat;
use bmc_rmm::diag::SourceFile;
use bmc_rmm::engines::bounded::{Deadline, SolverKind};
use bmc_rmm::litmus::run;
use bmc_rmm::program::Width;

/// The sorted final state lines of `text` under sc.
fn states(text: &str) -> Vec<String> {
    states_under(text, "sc")
}

#[test]
fn shifted_and_extended_operands() {
    // 42 + (1 << 4) = 58; 42 + (32 >> 2) = 50; 2 + sxtb(255) << 2 = 2 - 4;
    // cmp 0, 1 asr 1 = 0 → EQ taken, X5 stays 0.
    let s = states(
        "AArch64 T\n{ 0:X0=42; 0:X1=1; 0:X2=32; 0:X3=255; 0:X6=2; }\n P0 ;\n\
         ADD X4,X0,X1,LSL #4 ;\n ADD X7,X0,X2,ASR #2 ;\n ADD X8,X6,W3,SXTB 2 ;\n\
         CMP XZR,X1,ASR #1 ;\n B.EQ L ;\n MOV X5,#1 ;\n L: NOP ;\n\
         locations [0:X4;0:X7;0:X8;0:X5;]\nexists (0:X4=0)\n",
    );
    assert_eq!(s, ["0:X4=58; 0:X5=0; 0:X7=50; 0:X8=-2;"]);
}

#[test]
fn asr_rounds_down_movz_movk_madd() {
    // -7 asr 1 = -4 (floor); movz #3, lsl #16 = 196608;
    // movk #1 into 0x20002 at bits 16..31 = 0x10002 = 65538; madd 2*3+3 = 9,
    // msub 3-2*3 = -3.
    let s = states(
        "AArch64 T\n{ 0:X0=-7; 0:X1=0x20002; 0:X2=2; 0:X3=3; }\n P0 ;\n\
         ASR X4,X0,#1 ;\n MOVZ X5,#3,LSL #16 ;\n MOVK W1,#1,LSL #16 ;\n MADD X6,X2,X3,X3 ;\n\
         MSUB X7,X2,X3,X3 ;\n\
         locations [0:X4;0:X5;0:X1;0:X6;0:X7;]\nexists (0:X4=0)\n",
    );
    assert_eq!(s, ["0:X1=65538; 0:X4=-4; 0:X5=196608; 0:X6=9; 0:X7=-3;"]);
}

#[test]
fn unsigned_conditions_treat_negative_values_as_large() {
    // -1 is 0xff…f unsigned: -1 HI 1 holds, -1 LO 1 does not; signed GT not.
    let s = states(
        "AArch64 T\n{ 0:X0=-1; 0:X1=1; }\n P0 ;\n CMP X0,X1 ;\n CSET X2,HI ;\n\
         CSET X3,LO ;\n CSET X4,GT ;\n CSET X5,HS ;\n CSET X6,LS ;\n\
         locations [0:X2;0:X3;0:X4;0:X5;0:X6;]\nexists (0:X2=0)\n",
    );
    assert_eq!(s, ["0:X2=1; 0:X3=0; 0:X4=0; 0:X5=1; 0:X6=0;"]);
}

#[test]
fn add_and_subtract_flags_are_exact() {
    // At 32 bits (the constant 0x7fffffff): -1 + 1 = 0 with a carry, no
    // overflow (CS, EQ, not VS); 0x7fffffff + 0x7fffffff = 0xfffffffe
    // (-2 as herd's `int`) overflows without a carry (VS, N = V so GE,
    // MI, not HI); 0 - 1 borrows (CC) and is negative without overflow
    // (LT); CMN 0x7fffffff, #1 overflows (VS) and is still greater than
    // zero (N = V: not LE); adding 0 never carries.
    let s = states(
        "AArch64 T\n{ 0:X0=-1; 0:X1=1; 0:X4=0x7fffffff; 0:X12=0; }\n P0 ;\n\
         ADDS W2,W0,W1 ;\n CSET W5,CS ;\n CSET W6,EQ ;\n CSET W7,VS ;\n\
         ADDS W3,W4,W4 ;\n CSET W8,VS ;\n CSET W9,GE ;\n CSET W10,MI ;\n CSET W11,HI ;\n\
         SUBS W13,W12,W1 ;\n CSET W14,CC ;\n CSET W15,LT ;\n CSET W16,VC ;\n\
         CMN W4,#1 ;\n CSET W17,VS ;\n CSET W18,LE ;\n\
         ADDS W19,W0,WZR ;\n CSET W20,CS ;\n CSET W21,PL ;\n\
         locations [0:X2;0:X3;0:X5;0:X6;0:X7;0:X8;0:X9;0:X10;0:X11;0:X13;0:X14;0:X15;\
         0:X16;0:X17;0:X18;0:X20;0:X21;]\nexists (0:X2=0)\n",
    );
    assert_eq!(
        s,
        [
            "0:X2=0; 0:X3=-2; 0:X5=1; 0:X6=1; 0:X7=0; 0:X8=1; 0:X9=1; 0:X10=1; 0:X11=0; \
          0:X13=-1; 0:X14=1; 0:X15=1; 0:X16=1; 0:X17=1; 0:X18=0; 0:X20=0; 0:X21=0;"
        ]
    );
}

#[test]
fn untyped_registers_print_and_compare_as_herd_int() {
    // herd's locations are `int` (32 bits) unless typed: 2^32 + 5 in an
    // untyped register prints as 5; an `int64_t` one keeps it; -1 equals
    // the condition's 0xffffffff on an `int` register.
    let s = states(
        "AArch64 T\n{ int64_t 0:X3; }\n P0 ;\n MOVZ X2,#1,LSL #32 ;\n ADD X2,X2,#5 ;\n\
         MOVZ X3,#1,LSL #32 ;\n EON X1,X0,X0 ;\n\
         locations [0:X1;0:X2;0:X3;]\nforall (0:X1=0xffffffff)\n",
    );
    assert_eq!(s, ["0:X1=-1; 0:X2=5; 0:X3=4294967296;"]);
    let t = bmc_rmm::frontend::litmus::parse(
        &SourceFile::new(
            "t.litmus",
            "AArch64 T\n{ }\n P0 ;\n MOVZ X2,#1,LSL #32 ;\n EON X1,X0,X0 ;\n\
             forall (0:X1=0xffffffff /\\ 0:X2=0)\n",
        ),
        Width(64),
    )
    .unwrap();
    let m = cat::builtin("arm").unwrap();
    let r = run::run(
        &t,
        &m,
        12,
        run::auto_width(&t),
        Deadline(None),
        SolverKind::Varisat,
    )
    .unwrap();
    assert_eq!(r.observation.unwrap().verdict().as_str(), "Allowed");
}

#[test]
fn loops_on_concrete_values_run_to_the_end() {
    // 20 iterations (62 instructions) whatever the bound, as herd runs a
    // branch on constants; no `Loop` then. A loop on a loaded value is
    // still a loop.
    let text = "AArch64 T\n{ }\n P0 ;\n MOV W0,#20 ;\n MOV W1,#0 ;\n L0: ;\n\
                ADD W1,W1,#2 ;\n SUB W0,W0,#1 ;\n CBNZ W0,L0 ;\nforall 0:X1=40\n";
    assert_eq!(states(text), ["0:X1=40;"]);
    let t =
        bmc_rmm::frontend::litmus::parse(&SourceFile::new("t.litmus", text), Width(64)).unwrap();
    assert!(!t.has_loop);
    assert_eq!(run::effective_bound(&t, 12), 62);
    let spin = "AArch64 T\n{ 0:X2=x; }\n P0 ;\n L0: ;\n LDR W0,[X2] ;\n CBZ W0,L0 ;\n\
                exists 0:X0=1\n";
    let t =
        bmc_rmm::frontend::litmus::parse(&SourceFile::new("t.litmus", spin), Width(64)).unwrap();
    assert!(t.has_loop);
    assert_eq!(run::effective_bound(&t, 12), 12);
}

#[test]
fn post_index_store_updates_the_base() {
    let s = states(
        "AArch64 T\n{ 0:X0=x; 0:X1=5; }\n P0 ;\n STR W1,[X0],#4 ;\n\
         locations [x;]\nexists (x=0)\n",
    );
    assert_eq!(s, ["[x]=5;"]);
}

#[test]
fn unscaled_loads_and_stores_are_ldr_and_str() {
    // LDUR/STUR (and the byte forms) access Xn + offset as LDR/STR do.
    let s = states(
        "AArch64 T\n{ int64_t a[2] = {5,7}; 0:X1=a; 0:X2=9; int8_t b; 0:X3=b; }\n P0 ;\n\
         LDUR X0,[X1,#8] ;\n STUR X2,[X1] ;\n STURB W2,[X3] ;\n LDURB W4,[X3] ;\n\
         locations [0:X0;0:X4;a;]\nexists (0:X0=0)\n",
    );
    assert_eq!(s, ["0:X0=7; 0:X4=9; a={9,7};"]);
}

#[test]
fn extr_and_ror_immediate_are_exact() {
    // EXTR W: (W1:W0) >> 8; ROR X of 16 and of -256 (a logical shift of a
    // negative value), ROR W, and EXTR #0 (= Rm).
    let s = states(
        "AArch64 T\n{ 0:X0=0xCAFEBABE; 0:X1=0x12345678; int64_t 0:X4=16; int64_t 0:X6=-256;\n\
         uint64_t 0:X2; int64_t 0:X3; int64_t 0:X5; uint64_t 0:X7; uint64_t 0:X8; }\n P0 ;\n\
         EXTR W2,W1,W0,#8 ;\n ROR X5,X4,#8 ;\n ROR X3,X6,#4 ;\n ROR W7,W0,#16 ;\n\
         EXTR W8,W1,W0,#0 ;\nlocations [0:X2;0:X3;0:X5;0:X7;0:X8;]\nexists (0:X2=0)\n",
    );
    assert_eq!(
        s,
        ["0:X2=2026569402; 0:X3=1152921504606846960; 0:X5=1152921504606846976; 0:X7=3133065982; 0:X8=3405691582;"]
    );
    // A rotate by a register is refused where the register is.
    let text = "AArch64 T\n{ }\n P0 ;\n ROR W5,W1,W2 ;\nexists (0:X5=0)\n";
    let e = bmc_rmm::frontend::litmus::parse(&SourceFile::new("t.litmus", text), Width(64))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("t.litmus:4:12") && e.contains("`ROR` by a register"),
        "{e}"
    );
}

#[test]
fn lsr_is_logical() {
    // LSR shifts in zeros at the register's size (the UBFM alias): -16 >> 2
    // at 64 bits, -16 >> 4 at 32 bits (W), and as a shifted operand.
    let s = states(
        "AArch64 T\n{ int64_t 0:X0=-16; int64_t 0:X1; uint64_t 0:X2; int64_t 0:X3; }\n P0 ;\n\
         LSR X1,X0,#2 ;\n LSR W2,W0,#4 ;\n ADD X3,XZR,X0,LSR #60 ;\n\
         locations [0:X1;0:X2;0:X3;]\nexists (0:X1=0)\n",
    );
    assert_eq!(s, ["0:X1=4611686018427387900; 0:X2=268435455; 0:X3=15;"]);
}

#[test]
fn w_results_are_zero_extended_into_64_bit_registers() {
    // ADD W into an int64_t register keeps the low word, zero-extended;
    // the X subtraction stays a signed 64-bit value.
    let s = states(
        "AArch64 T\n{ 0:X0=3; 0:X1=-5; int64_t 0:X2; int64_t 0:X3; }\n P0 ;\n\
         ADD W2,W1,W0 ;\n SUB X3,X1,X0 ;\nlocations [0:X2;0:X3;]\nexists (0:X2=0)\n",
    );
    assert_eq!(s, ["0:X2=4294967294; 0:X3=-8;"]);
}

#[test]
fn mul_and_mneg_are_madd_and_msub_with_zero() {
    // 7 * -3 = -21; MNEG 7 * -3 = 21; W: 65537 * 65537 wraps to 131073.
    let s = states(
        "AArch64 T\n{ int64_t 0:X0=7; int64_t 0:X1=-3; 0:X2=65537; int64_t 0:X3; int64_t 0:X4; }\n P0 ;\n\
         MUL X3,X0,X1 ;\n MNEG X4,X0,X1 ;\n MUL W5,W2,W2 ;\n\
         locations [0:X3;0:X4;0:X5;]\nexists (0:X3=0)\n",
    );
    assert_eq!(s, ["0:X3=-21; 0:X4=21; 0:X5=131073;"]);
}

#[test]
fn w_loads_are_zero_extended_into_64_bit_registers() {
    // A plain and an atomic W load of negative words into int64_t
    // registers (herd's LDSMIN01: the word read is zero-extended).
    let s = states(
        "AArch64 T\n{ int x=-1; 0:X1=x; int64_t 0:X2; int64_t 0:X3; 0:X4=5; int y=-2; 0:X5=y; }\n\
         P0 ;\n LDR W2,[X1] ;\n LDADD W4,W3,[X5] ;\nlocations [0:X2;0:X3;y;]\nexists (0:X2=0)\n",
    );
    assert_eq!(s, ["0:X2=4294967295; 0:X3=4294967294; [y]=3;"]);
}

#[test]
fn pc_relative_branches() {
    // `B .+8` skips one instruction, `B .-4` goes one back, `B .` would
    // loop: B L0 → B .-4 → B .+8 → the last ADD, so X0 = 1.
    let s = states(
        "AArch64 T\n{ }\n P0 ;\n B L0 ;\n ADD W0,W0,#1 ;\n B .+8 ;\n L0: ;\n B .-4 ;\n\
         ADD W0,W0,#1 ;\nforall 0:X0=1\n",
    );
    assert_eq!(s, ["0:X0=1;"]);
    // A target outside the code, or not a multiple of 4, is a located error.
    for t in ["B .+12", "B .+2", "B .-8"] {
        let text = format!("AArch64 T\n{{ }}\n P0 ;\n NOP ;\n {t} ;\nexists (0:X0=0)\n");
        let src = SourceFile::new("t.litmus", &text);
        let e = bmc_rmm::frontend::litmus::parse(&src, Width(64)).unwrap_err();
        assert!(e.to_string().contains("t.litmus:5:4"), "{t}: {e}");
        assert!(e.to_string().contains("undefined label"), "{t}: {e}");
    }
}

#[test]
fn bad_shift_is_located() {
    let r = bmc_rmm::frontend::litmus::parse(
        &SourceFile::new(
            "t.litmus",
            "AArch64 T\n{ }\n P0 ;\n ADD X0,X0,X1,ROR #1 ;\nexists (0:X0=0)\n",
        ),
        Width(64),
    );
    let Err(e) = r else {
        panic!("expected an error")
    };
    let e = e.to_string();
    assert!(
        e.contains("t.litmus:4:") && e.contains("expected a shift"),
        "{e}"
    );
}

/// herd's verdict word (`Allowed`/`Forbidden`) of `text` under `--model
/// arm`, checked to be the same on every available solver (varisat, cdclt,
/// z3 when built in).
fn arm_verdict(text: &str) -> String {
    verdict("arm", text)
}

/// [`arm_verdict`] under `model`.
fn verdict(model: &str, text: &str) -> String {
    let t = bmc_rmm::frontend::litmus::parse(&SourceFile::new("t.litmus", text), Width(64))
        .unwrap_or_else(|e| panic!("{e}"));
    let m = cat::builtin(model).unwrap();
    let mut out: Option<String> = None;
    for s in [SolverKind::Varisat, SolverKind::Cdclt, SolverKind::Z3] {
        if s.available().is_err() {
            continue;
        }
        let r = run::run(&t, &m, 12, run::auto_width(&t), Deadline(None), s).unwrap();
        let v = r.observation.unwrap().verdict().as_str().to_string();
        if let Some(o) = &out {
            assert_eq!(o, &v, "{s:?} disagrees");
        }
        out = Some(v);
    }
    out.unwrap()
}

const MP_P0: &str = "MOV W0,#1 | STR W0,[X1] | MOV W2,#1 | STLR W2,[X3]";

/// An MP test whose reader is `reader` (instructions separated by `|`,
/// reading flag y through X3 and data x through X1).
fn mp(reader: &str) -> String {
    let p0: Vec<&str> = MP_P0.split(" | ").collect();
    let p1: Vec<&str> = reader.split(" | ").collect();
    let n = p0.len().max(p1.len());
    let mut s = String::from("AArch64 T\n{ 0:X1=x; 0:X3=y; 1:X1=x; 1:X3=y; }\n P0 | P1 ;\n");
    for i in 0..n {
        s.push_str(&format!(
            " {} | {} ;\n",
            p0.get(i).unwrap_or(&""),
            p1.get(i).unwrap_or(&"")
        ));
    }
    s.push_str("exists (1:X0=1 /\\ 1:X6=0)\n");
    s
}

#[test]
fn pick_address_dependency_orders_no_read() {
    // Arm ARM B2.3.2: the flags' read reaches the address only through the
    // CSEL condition (a pick address dependency), which orders writes
    // only; with the selected register itself loaded, it is an address
    // dependency and the load is ordered.
    let pick = "LDR W0,[X3] | CMP W0,#1 | MOV W5,#0 | CSEL W2,WZR,W5,EQ | LDR W6,[X1,W2,SXTW]";
    assert_eq!(arm_verdict(&mp(pick)), "Allowed");
    let addr = "LDR W0,[X3] | CMP W0,#1 | EOR W5,W0,W0 | CSEL W2,W5,W5,EQ | LDR W6,[X1,W2,SXTW]";
    assert_eq!(arm_verdict(&mp(addr)), "Forbidden");
}

#[test]
fn pick_dependency_orders_a_write() {
    // LB: the write's value is picked by a condition on the read (pick data
    // dependency): ordered, the outcome is forbidden.
    let t = "AArch64 T\n{ 0:X1=x; 0:X3=y; 1:X1=x; 1:X3=y; 1:X5=5; }\n P0 | P1 ;\n\
             LDR W0,[X1] | LDR W0,[X3] ;\n MOV W9,#1 | CMP W0,#1 ;\n\
             STLR W9,[X3] | CSEL W2,W5,W4,EQ ;\n | STR W2,[X1] ;\n\
             exists (0:X0=5 /\\ 1:X0=1)\n";
    assert_eq!(arm_verdict(t), "Forbidden");
}

#[test]
fn compare_and_swap_dependencies() {
    // A successful CAS writes Rt through its comparison: a pick data
    // dependency from the read of Rs's value (LB+rel+CAS, herd Never).
    let lb = "AArch64 T\n{ 0:X1=x; 0:X3=y; 1:X1=x; 1:X3=y; }\n P0 | P1 ;\n\
              MOV W9,#1 | MOV W4,#1 ;\n LDR W0,[X3] | LDR W5,[X1] ;\n\
              STLR W9,[X1] | AND W10,W5,#2 ;\n | CAS W10,W4,[X3] ;\n\
              exists (1:X5=1 /\\ 0:X0=1)\n";
    assert_eq!(arm_verdict(lb), "Forbidden");
    // Rs after a successful CAS depends on the read by a pick dependency
    // only: an address dependency from it to a read orders nothing
    // (MP+rel+CAS-ok-MRs-addr, herd Sometimes).
    let mp = "AArch64 T\n{ 0:X0=x; 0:X1=y; 1:X0=x; 1:X1=y; }\n P0 | P1 ;\n\
              MOV W2,#1 | MOV W2,#1 ;\n STR W2,[X1] | CAS W2,WZR,[X0] ;\n\
              STLR W2,[X0] | EOR W3,W2,W2 ;\n | LDR W4,[X1,W3,SXTW] ;\n\
              exists (1:X2=1 /\\ 1:X4=0)\n";
    assert_eq!(arm_verdict(mp), "Allowed");
    // A comparison is no control dependency (CAS+data1, herd Sometimes).
    let ctrl = "AArch64 T\n{ 0:X1=x; 0:X3=y; 1:X1=x; 1:X3=y; }\n P0 | P1 ;\n\
                MOV W0,#1 | LDR W0,[X1] ;\n STR W0,[X3] | MOV W5,W0 ;\n\
                STLR W0,[X1] | MOV W6,#1 ;\n | CAS W0,W6,[X1] ;\n | STR W4,[X3] ;\n\
                exists (1:X5=1 /\\ y=1)\n";
    assert_eq!(arm_verdict(ctrl), "Allowed");
}

#[test]
fn pick_path_through_memory_orders_a_later_write() {
    // CSEL → STR z → LDAR z (rfi) → acquire → STR y: the picked value is
    // read back, and the chain of local orders from there ends in a write
    // (T7 of herd's aarch64-pick tests, Never); ending in a read instead
    // it orders nothing (TLDAR, Sometimes).
    let t7 = "AArch64 T\n{ 0:X1=x; 0:X9=y; 0:X5=z; 1:X1=y; 1:X3=x; }\n P0 | P1 ;\n\
              LDR W0,[X1] | LDAR W0,[X1] ;\n CMP W0,#1 | MOV W2,#1 ;\n\
              MOV W3,#0 | STR W2,[X3] ;\n MOV W4,#1 | ;\n CSEL W2,W3,W4,EQ | ;\n\
              STR W2,[X5] | ;\n LDAR W2,[X5] | ;\n MOV W2,#1 | ;\n STR W2,[X9] | ;\n\
              exists (0:X0=1 /\\ 1:X0=1)\n";
    assert_eq!(arm_verdict(t7), "Forbidden");
    let tldar = "AArch64 T\n{ 0:X1=x; 0:X3=y; 1:X1=y; 1:X11=x; 1:X5=z; }\n P0 | P1 ;\n\
                 MOV W0,#1 | LDR W0,[X1] ;\n STR W0,[X1] | CMP W0,#1 ;\n\
                 MOV W2,#1 | CSEL W2,W3,W4,EQ ;\n STLR W2,[X3] | STR W2,[X5] ;\n\
                 | LDAR W9,[X5] ;\n | LDR W10,[X11] ;\n\
                 exists (1:X0=1 /\\ 1:X10=0)\n";
    assert_eq!(arm_verdict(tldar), "Allowed");
}

#[test]
fn native_pick_annotation_round_trips_and_is_checked() {
    let src = "shared x;\nthread t { a = x; [pick] b = a + 1; }\n";
    let p = bmc_rmm::frontend::native::parse(&SourceFile::new("t.rmm", src), Width(16))
        .unwrap_or_else(|e| panic!("{e}"));
    let text = bmc_rmm::program::render::native(&p);
    assert!(text.contains("[pick] b = a + 1"), "{text}");
    let q = bmc_rmm::frontend::native::parse(&SourceFile::new("p.rmm", text.clone()), Width(16))
        .unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(p.fingerprint(), q.fingerprint());
    let bad = "shared x;\nthread t { a = x; [pick, acq] b = a; }\n";
    let e = bmc_rmm::frontend::native::parse(&SourceFile::new("bad.rmm", bad), Width(16))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("bad.rmm:2:") && e.contains("`[pick]` alone"),
        "{e}"
    );
}

#[test]
fn arrays_in_init_are_byte_addressed_and_print_as_herd() {
    // Elements at byte offsets (int: 4 bytes); an element named in the
    // condition prints as `v[1]=…`, a whole array as `v={…}`.
    let s = states(
        "AArch64 T\n{ int v[3] = {1,2,3}; 0:X2=v; }\n P0 ;\n LDR W0,[X2] ;\n\
         LDR W1,[X2,#8] ;\n STR W0,[X2,#8] ;\n STR W1,[X2] ;\nlocations [v;]\nexists (0:X0=1)\n",
    );
    assert_eq!(s, ["0:X0=1; v={3,2,1};"]);
    let s = states(
        "AArch64 T\n{ int64_t 0:X0 = 42; 0:X2 = v; int64_t v[2] = {1, 2}; }\n P0 ;\n\
         STR X0,[X2,#8] ;\nforall (v[0]=1 /\\ v[1]=42)\n",
    );
    assert_eq!(s, ["v[0]=1; v[1]=42;"]);
    // X86_64 scaled index into an int64_t array.
    let s = states(
        "X86_64 T\n{ int64_t t[2]={1,-1}; 0:rax=t; 0:rbx=1; int64_t 0:rcx; }\n P0 ;\n\
         movq 0(%rax,%rbx,8),%rcx ;\nforall (0:rcx=-1 /\\ t={1,-1})\n",
    );
    assert_eq!(s, ["0:rcx=-1; t={1,-1};"]);
}

#[test]
fn bad_arrays_are_located() {
    for (text, want) in [
        ("{ int v[0]; 0:X2=v; }", "1 ≤ N"),
        ("{ int v[2] = {1,2,3}; 0:X2=v; }", "2 elements but 3"),
        ("{ int v[2] = 5; 0:X2=v; }", "expected `{a, b, …}`"),
        (
            "{ uint8_t v[8]; 0:X2=v; }\n P0 ;\n LDR W0,[X2,#1] ;\nexists (0:X0=0)",
            "(mixed-size: unaligned accesses)",
        ),
        (
            "{ int v[2]; 0:X2=v; }\n P0 ;\n LDR W0,[X2] ;\nexists (v[2]=0)",
            "outside the array",
        ),
        (
            "{ int v; 0:X2=v; }\n P0 ;\n LDR W0,[X2] ;\nexists (v[1]=0)",
            "not an array",
        ),
    ] {
        let full = if text.contains("P0") {
            format!("AArch64 T\n{text}\n")
        } else {
            format!("AArch64 T\n{text}\n P0 ;\n LDR W0,[X2] ;\nexists (0:X0=0)\n")
        };
        let e = bmc_rmm::frontend::litmus::parse(&SourceFile::new("bad.litmus", full), Width(64))
            .err()
            .unwrap_or_else(|| panic!("accepted: {text}"))
            .to_string();
        assert!(e.contains("bad.litmus:") && e.contains(want), "{text}: {e}");
    }
}

#[test]
fn riscv_store_conditional_result_carries_a_dependency() {
    // MP where the reader's second access depends on the result register
    // of a successful sc.w whose data came from the first read (RVWMO
    // rules 9/10 with the SC as source): ordered, so Forbidden; without
    // the sc's data dependency (x0 stored) the SC itself is not ordered
    // after the first read, and the outcome is Allowed.
    let mp = |data: &str| {
        format!(
            "RISCV T\n{{ 0:x6=x; 0:x8=y; 1:x6=x; 1:x8=y; 1:x10=z; }}\n\
             P0 | P1 ;\n ori x5,x0,2 | lw x2,0(x8) ;\n sw x5,0(x6) | lr.w x3,0(x10) ;\n\
             fence w,w | sc.w x4,{data},0(x10) ;\n ori x7,x0,1 | amoswap.w x5,x4,0(x6) ;\n\
             sw x7,0(x8) | ;\nexists (1:x2=1 /\\ 1:x4=0 /\\ 1:x5=0)\n"
        )
    };
    assert_eq!(verdict("riscv", &mp("x2")), "Forbidden");
    assert_eq!(verdict("riscv", &mp("x0")), "Allowed");
}

#[test]
fn bitfield_moves_and_their_aliases() {
    // UBFX 0x1234 bits 15..8 = 0x12; SBFX bits 7..4 of 0x1234 = 3; SBFX
    // of 0xf (4 bits) = -1; UBFIZ puts 0x1234's low nibble 4 at bit 4 =
    // 0x40; SXTB 0x80 = -128; UXTH -1 = 65535; UBFM W, #4, #31 of
    // 0x55667788 = 0x5566778 and UBFM W, #24, #7 = 0x8800 (herd's A228).
    let s = states(
        "AArch64 T\n{ 0:X0=0x1234; 0:X5=0xf; 0:X7=0x80; 0:X9=-1; 0:X19=0x55667788; }\n P0 ;\n\
         UBFX X1,X0,#8,#8 ;\n SBFX X2,X0,#4,#4 ;\n SBFX X3,X5,#0,#4 ;\n UBFIZ W4,W0,#4,#4 ;\n\
         SXTB W6,W7 ;\n UXTH W8,W9 ;\n UBFM W20,W19,#4,#31 ;\n UBFM W21,W19,#24,#7 ;\n\
         locations [0:X1;0:X2;0:X3;0:X4;0:X6;0:X8;0:X20;0:X21;]\nexists (0:X1=0)\n",
    );
    assert_eq!(
        s,
        ["0:X1=18; 0:X2=3; 0:X3=-1; 0:X4=64; 0:X6=-128; 0:X8=65535; 0:X20=89548664; 0:X21=34816;"]
    );
    for bad in [
        "UBFX X1,X0,#60,#8",
        "UBFM W1,W0,#4,#32",
        "SBFIZ X1,X0,#1,#0",
    ] {
        let r = bmc_rmm::frontend::litmus::parse(
            &SourceFile::new(
                "t.litmus",
                format!("AArch64 T\n{{ }}\n P0 ;\n {bad} ;\nexists (0:X1=0)\n"),
            ),
            Width(64),
        );
        let e = r.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(e.contains("t.litmus:4:"), "{bad}: {e}");
    }
}

#[test]
fn calls_returns_and_labels_as_values() {
    // BL/RET twice (4 + 1 + 1), ADR + BLR into a subroutine (3 - 1), a
    // branch into the other thread's code through an init value
    // `P1:Ldbl` (the code runs on P0's registers: 5 * 2), and a label
    // printed as herd prints it.
    let s = states(
        "AArch64 T\n{ 0:X5=P1:Ldbl; }\n P0 | P1 ;\n\
         MOV W0,#4 | ADR X1,Ldec ;\n BL Linc | MOV W0,#3 ;\n BL Linc | BLR X1 ;\n\
         MOV W6,#5 | ADR X2,Lend ;\n BLR X5 | B Lend ;\n B Lz | Ldec: ;\n\
         Linc: | SUB W0,W0,#1 ;\n ADD W0,W0,#1 | RET ;\n RET | Ldbl: ;\n\
         Lz: | ADD W6,W6,W6 ;\n NOP | RET ;\n | Lend: ;\n\
         locations [0:X0;0:X6;1:X0;1:X2;]\nexists (1:X2=label:\"1:Lend\")\n",
    );
    assert_eq!(s, ["0:X0=6; 0:X6=10; 1:X0=2; 1:X2=label:\"P1:Lend\";"]);
    for (bad, what) in [
        ("BL Lnone", "undefined label `Lnone`"),
        ("ADR X0,Lnone", "undefined label `Lnone`"),
        ("BLR X0,X1", "expects 1 operand"),
    ] {
        let r = bmc_rmm::frontend::litmus::parse(
            &SourceFile::new(
                "t.litmus",
                format!("AArch64 T\n{{ }}\n P0 ;\n {bad} ;\nexists (0:X1=0)\n"),
            ),
            Width(64),
        );
        let e = r.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(e.contains("t.litmus:4:") && e.contains(what), "{bad}: {e}");
    }
    let r = bmc_rmm::frontend::litmus::parse(
        &SourceFile::new(
            "t.litmus",
            "AArch64 T\n{ 0:X1=P0:Lnone; }\n P0 ;\n BLR X1 ;\nexists (0:X1=0)\n",
        ),
        Width(64),
    );
    let e = r.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(
        e.contains("t.litmus:2:") && e.contains("no label `Lnone`"),
        "{e}"
    );
}

#[test]
fn ordered_pairs_stilp_and_ldiapp() {
    // STILP writes x[0] then x[1] (release, ordered under arm; one
    // instruction, so unordered under herd's sc); LDIAPP reads them in
    // order (acquirePC).
    let stilp = "AArch64 T\n{ int x[2]={0,0}; 0:X0=1; 0:X1=1; 0:X2=x; 1:X2=x; }\n\
                 P0 | P1 ;\n STILP W0,W1,[X2] | LDR W0,[X2,#4] ;\n | DMB LD ;\n\
                 | LDR W1,[X2] ;\nexists (1:X0=1 /\\ 1:X1=0)\n";
    assert_eq!(verdict("arm", stilp), "Forbidden");
    assert_eq!(verdict("sc", stilp), "Allowed");
    let ldiapp = "AArch64 T\n{ int x[2]={0,0}; 0:X2=x; 1:X2=x; }\n P0 | P1 ;\n\
                  MOV W1,#1 | LDIAPP W0,W1,[X2] ;\n STR W1,[X2,#4] | ;\n DMB ST | ;\n\
                  MOV W0,#1 | ;\n STLR W0,[X2] | ;\nexists (1:X0=1 /\\ 1:X1=0)\n";
    assert_eq!(verdict("arm", ldiapp), "Forbidden");
    assert_eq!(verdict("sc", ldiapp), "Allowed");
    for (init, ins) in [
        ("0:X2=x;", "STILP W0,W1,[X2]"),
        ("int x[2];", "STILP W0,W1,[X2,#8]"),
    ] {
        let r = bmc_rmm::frontend::litmus::parse(
            &SourceFile::new(
                "t.litmus",
                format!("AArch64 T\n{{ {init} }}\n P0 ;\n {ins} ;\nexists (0:X1=0)\n"),
            ),
            Width(64),
        );
        let e = r.err().map(|e| e.to_string()).unwrap_or_default();
        assert!(
            e.contains("t.litmus:4:") && e.contains("ldp/stp"),
            "{ins}: {e}"
        );
    }
}

#[test]
fn byte_and_half_word_loads_extend_and_stores_truncate() {
    // Arm ARM C6.2: LDRB zero-extends 200; LDRSB X sign-extends it to
    // 200 - 256 = -56; LDRSH W of -2 is 0xfffffffe, zero-extended to 64
    // bits (4294967294 in an int64_t register); STRH keeps the low 16 bits
    // of 0x12345 (0x2345 = 9029); STLRB the low 8 bits of 300 (44).
    let s = states(
        "AArch64 T\n{ uint8_t x = 200; int16_t y = -2; uint16_t z; 0:X1=x; 0:X2=y; 0:X3=z;\n\
         int64_t 0:X5; int64_t 0:X6; }\n P0 ;\n\
         LDRB W4,[X1] ;\n LDRSB X5,[X1] ;\n LDRSH W6,[X2] ;\n MOV W7,#0x12345 ;\n\
         STRH W7,[X3] ;\n LDRH W8,[X3,XZR] ;\n MOV W9,#300 ;\n STLRB W9,[X1] ;\n\
         locations [0:X4;0:X5;0:X6;0:X8;z;]\nexists ([x]=44)\n",
    );
    assert_eq!(
        s,
        ["0:X4=200; 0:X5=-56; 0:X6=4294967294; 0:X8=9029; [x]=44; [z]=9029;"]
    );
}

#[test]
fn byte_message_passing_is_ordered_by_barriers_only() {
    let t = |fence: &str| {
        format!(
            "AArch64 T\n{{ uint8_t x; uint8_t y; 0:X1=x; 0:X3=y; 1:X1=y; 1:X3=x; }}\n\
             P0 | P1 ;\n MOV W0,#1 | LDRB W0,[X1] ;\n STRB W0,[X1] | {fence} ;\n\
             {fence} | LDRB W2,[X3] ;\n STRB W0,[X3] | ;\nexists (1:X0=1 /\\ 1:X2=0)\n"
        )
    };
    assert_eq!(arm_verdict(&t("DMB SY")), "Forbidden");
    assert_eq!(arm_verdict(&t("NOP")), "Allowed");
}

#[test]
fn narrow_accesses_to_wider_cells_outside_variant_mixed_are_herd_cells() {
    // herd's memory is one cell per location outside `Variant=mixed`
    // (its RISC-V A014: `sh` of -1 into an `int` gives 65535): a narrow
    // store writes its low bits to the whole cell, a narrow load reads
    // the cell's low bits; a W store into an int64_t cell zero-extends.
    let s = states(
        "AArch64 T\n{ 0:X1=x; 0:X2=-1; 0:X3=y; int64_t z; 0:X5=z; }\n P0 ;\n\
         STRH W2,[X1] ;\n LDRSB W4,[X1] ;\n STR W2,[X5] ;\n MOV X6,#0x1ff ;\n\
         STRB W6,[X3] ;\n\
         locations [0:X4;x;y;z;]\nexists (0:X0=0)\n",
    );
    assert_eq!(s, ["0:X0=0; 0:X4=-1; [x]=65535; [y]=255; [z]=4294967295;"]);
}

#[test]
fn mixed_size_accesses_are_byte_accesses() {
    // herd's M001: a word store of -1 into a byte array writes its four
    // bytes (printed unsigned, the array's type).
    let s = states(
        "AArch64 M001\nVariant=mixed\n{ uint8_t t[4]={ 0,0,0,0 }; 0:X2=t; }\n P0 ;\n\
         MOV W0,#1 ;\n SUB W0,WZR,W0 ;\n STR W0,[X2] ;\nlocations [t;]\n",
    );
    assert_eq!(s, ["t={255,255,255,255};"]);
    // Little-endian bytes of an `int`: byte 0 is 4, byte 3 is 1, the
    // half-word at byte 2 is 0x0102; a byte store at byte 1 changes that
    // byte only (0x0102ff04), a sign-extending byte load of it gives −1.
    let s = states(
        "AArch64 T\nVariant=mixed\n{ int x = 0x01020304; 0:X1=x; }\n P0 ;\n\
         LDRB W0,[X1] ;\n LDRB W2,[X1,#3] ;\n LDRH W3,[X1,#2] ;\n MOV W4,#255 ;\n\
         STRB W4,[X1,#1] ;\n LDR W5,[X1] ;\n LDRSB X6,[X1,#1] ;\n\
         locations [0:X0;0:X2;0:X3;0:X5;0:X6;x;]\n",
    );
    assert_eq!(
        s,
        ["0:X0=4; 0:X2=1; 0:X3=258; 0:X5=16973572; 0:X6=-1; [x]=16973572;"]
    );
    // A half-word array overwritten by a byte store, read back by a word
    // load across both elements; a 64-bit location of another thread is
    // not byte-addressed (accessed at its size only).
    let s = states(
        "AArch64 T\nVariant=mixed\n{ uint16_t t[2]={ 0x1234,0x5678 }; int64_t y=0;\n\
         0:X1=t; 0:X3=y; 1:X1=y; }\n P0 | P1 ;\n LDR W0,[X1] | MOV X2,#-1 ;\n\
         STRB W0,[X1,#1] | STR X2,[X1] ;\n LDR X4,[X3] | ;\nlocations [0:X0;0:X4;t;]\n",
    );
    assert_eq!(
        s,
        [
            "0:X0=1450709556; 0:X4=-1; t={13364,22136};",
            "0:X0=1450709556; 0:X4=0; t={13364,22136};"
        ]
    );
    // A data dependency through a byte-addressed location: under sc the
    // other thread's outcome is ordered.
    let s = states(
        "AArch64 T\nVariant=mixed\n{ uint8_t t[2]; 0:X1=t; 0:X3=y; 1:X3=y; }\n P0 | P1 ;\n\
         MOV W0,#513 | MOV W2,#7 ;\n STRH W0,[X1] | STR W2,[X3] ;\n LDRB W5,[X1,#1] | ;\n\
         LDR W6,[X3] | ;\nlocations [0:X5;0:X6;t;]\n",
    );
    assert_eq!(s, ["0:X5=2; 0:X6=0; t={1,2};", "0:X5=2; 0:X6=7; t={1,2};"]);
    // A word store to the high half of a 64-bit location.
    let s = states(
        "AArch64 T\nVariant=mixed\n{ int64_t y = 5; 0:X2=y; int64_t 0:X1; }\n P0 ;\n MOV W0,#1 ;\n\
         STR W0,[X2,#4] ;\n LDR X1,[X2] ;\nlocations [0:X1;y;]\n",
    );
    assert_eq!(s, ["0:X1=4294967301; [y]=4294967301;"]);
}

#[test]
fn mixed_size_accesses_are_refused_located() {
    for (text, at, want) in [
        (
            "{ int x; 0:X2=x; }\n P0 ;\n LDRH W0,[X2,#1] ;",
            "5:2",
            "not aligned to its size (mixed-size: unaligned accesses)",
        ),
        (
            "{ uint8_t t[8]; 0:X2=t; }\n P0 ;\n STILP W0,W1,[X2] ;",
            "5:2",
            "(mixed-size: STILP/LDIAPP at byte-addressed locations)",
        ),
        (
            "{ int x; 0:X2=x; }\n P0 ;\n LDR X0,[X2] ;\n STRB W0,[X2] ;",
            "5:2",
            "crosses the location's end (mixed-size: accesses across locations)",
        ),
        (
            "{ uint8_t x; 0:X1=x; }\n P0 ;\n LDR X1,[X1] ;",
            "5:2",
            "a location of 1 bytes: it crosses the location's end",
        ),
        (
            "{ int x; 0:X2=x; }\n P0 ;\n LDR X0,[X2] ;",
            "5:2",
            "64-bit access at byte 0 of `x`, a location of 4 bytes",
        ),
        (
            "{ int64_t y; 0:X2=y; 0:X3=0x1000; }\n P0 ;\n STR X3,[X2] ;\n LDR W0,[X2] ;\n\
             ADD X5,X2,X0 ;\n LDR X6,[X5] ;",
            "8:2",
            "not known statically in a test with mixed-size accesses",
        ),
    ] {
        let full = format!("AArch64 T\nVariant=mixed\n{text}\nexists (0:X0=0)\n");
        let e = bmc_rmm::frontend::litmus::parse(&SourceFile::new("bad.litmus", full), Width(64))
            .err()
            .unwrap_or_else(|| panic!("accepted: {text}"))
            .to_string();
        assert!(
            e.contains(&format!("bad.litmus:{at}"))
                && e.contains("unsupported")
                && e.contains(want),
            "{text}: {e}"
        );
    }
}

#[test]
fn code_holds_its_instructions_as_values() {
    // herd's L062 shape: a load from a code address reads the instruction
    // there; a branch to a label is PC-relative (`B .+4` one instruction
    // ahead); instruction values compare equal when their texts are.
    let s = states(
        "AArch64 T\n{ ins_t 0:X1=instr:\"B .+4\"; ins_t 0:X2; ins_t 0:X4; 0:X5=P0:L1; }\n P0 ;\n\
         ADR X0,L0 ;\n LDR W2,[X0] ;\n L0: B L1 ;\n L1: CMP W2,W1 ;\n CSINC W3,WZR,WZR,EQ ;\n\
         LDR W4,[X5] ;\n\
         locations [0:X2;0:X4;]\nforall (0:X3=0)\n",
    );
    assert_eq!(
        s,
        ["0:X2=instr:\"B .+4\"; 0:X3=0; 0:X4=instr:\"CMP W2,W1\";"]
    );
}

#[test]
fn instruction_fetches_of_modified_code() {
    // herd's DIC1.MP.FF+dmb.st+po: P0 writes NOP over P1's two branches,
    // the second one first in P1's program order; with coherent
    // instruction caches P1's fetches are in program order, so seeing the
    // second NOP (X10=1) but not the first (X11=0) is forbidden under arm
    // as under sc (`sc-instr`, herd's sc.cat for AArch64: 3 states).
    let dic1 = "AArch64 T\nVariant=ifetch\nCacheType=DIC\n\
        { ins_t 0:X0=NOP; 0:X1=1:Lself00; 0:X2=1:Lself01; 1:X1=1:Lself00; }\n\
        P0 | P1 ;\n STR W0,[X1] | Lself01: ;\n DMB ST | B Lself00 ;\n\
        STR W0,[X2] | MOV W10,#1 ;\n | Lself00: ;\n | B L01 ;\n | MOV W11,#1 ;\n\
        | L01: ;\nexists (1:X10=1 /\\ 1:X11=0)\n";
    let three = [
        "1:X10=0; 1:X11=0;",
        "1:X10=0; 1:X11=1;",
        "1:X10=1; 1:X11=1;",
    ];
    assert_eq!(states_under(dic1, "arm"), three);
    assert_eq!(states_under(dic1, "sc-instr"), three);
    // Without the barrier the writes are unordered: all four under arm.
    let plain = dic1.replace(" DMB ST |", " NOP |");
    assert_eq!(states_under(&plain, "arm").len(), 4);
    assert_eq!(states_under(&plain, "sc-instr"), three);
    // A modified plain instruction runs as the value fetched.
    let mov = "AArch64 T\nVariant=ifetch\nCacheType=DIC\n\
        { ins_t 0:X0=NOP; 0:X1=1:L; }\n P0 | P1 ;\n STR W0,[X1] | L: MOV W10,#1 ;\n\
        exists (1:X10=0)\n";
    assert_eq!(states_under(mov, "arm"), ["1:X10=0;", "1:X10=1;"]);
}

#[test]
fn bad_instruction_values_and_ifetch_are_located() {
    for (text, at, want) in [
        (
            "AArch64 T\n{ ins_t 0:X1=instr:\"B .+4; }\n P0 ;\n NOP ;\nexists (0:X0=0)\n",
            "bad.litmus:2:",
            "",
        ),
        (
            "AArch64 T\nVariant=ifetch\n{ ins_t 0:X1=NOP; }\n P0 ;\n NOP ;\nexists (0:X0=0)\n",
            "bad.litmus:2:1",
            "unsupported variant `ifetch`",
        ),
        (
            "AArch64 T\n{ 0:X1=NOP; }\n P0 ;\n NOP ;\nexists (0:X1=instr:\"NOP)\n",
            "bad.litmus:5:",
            "",
        ),
        (
            "AArch64 T\nVariant=ifetch\nCacheType=IDC\n{ ins_t 0:X1=NOP; }\n P0 ;\n NOP ;\nexists (0:X0=0)\n",
            "bad.litmus:2:1",
            "without `CacheType=DIC` (instruction fetch: self-modifying code)",
        ),
        (
            "RISCV T\nVariant=ifetch\nCacheType=DIC\n{ }\n P0 ;\n nop ;\nexists (0:x1=0)\n",
            "bad.litmus:2:1",
            "not an AArch64 test",
        ),
        (
            "AArch64 T\nVariant=ifetch\nCacheType=DIC\n{ ins_t 0:X0=NOP; 0:X1=0:L; }\n P0 ;\n\
             STR W0,[X1] ;\n L: MOV W2,#1 ;\nexists (0:X2=0)\n",
            "bad.litmus:2:1",
            "thread 0 stores and holds the address of its own code",
        ),
        (
            "AArch64 T\nVariant=ifetch\nCacheType=DIC\n{ ins_t 0:X0=NOP; 0:X1=1:L; }\n P0 | P1 ;\n\
             STR W0,[X1] | L: RET ;\nexists (1:X2=0)\n",
            "bad.litmus:6:",
            "unsupported modifiable instruction `RET`",
        ),
    ] {
        let e = bmc_rmm::frontend::litmus::parse(&SourceFile::new("bad.litmus", text), Width(64))
            .err()
            .unwrap_or_else(|| panic!("accepted: {text}"))
            .to_string();
        assert!(e.contains(at) && e.contains(want), "{text}: {e}");
    }
}

#[test]
fn riscv_byte_and_half_word_loads_and_stores() {
    // lb sign-extends the low byte of 0x1a5 (0xa5 → -91), lbu zero-extends
    // it (165), lh of the cell; sh keeps the low 16 bits of -1 (65535 in
    // an int location); sw of -1 into a uint64_t location is 4294967295.
    let s = states(
        "RISCV T\n{ int x=0x1a5; 0:x1=x; 0:x2=-1; 0:x6=y; uint64_t z; 0:x7=z; }\n P0 ;\n\
         lb x3,0(x1) ;\n lbu x4,0(x1) ;\n lh x5,0(x1) ;\n sh x2,0(x6) ;\n sw x2,0(x7) ;\n\
         locations [0:x3;0:x4;0:x5;y;z;]\nexists (0:x3=0)\n",
    );
    assert_eq!(
        s,
        ["0:x3=-91; 0:x4=165; 0:x5=421; [y]=65535; [z]=4294967295;"]
    );
}

#[test]
fn byte_and_half_word_atomics_read_and_write_the_low_bits() {
    // Arm ARM C6.2, on locations of the access's size (herd7 7.58 gives
    // these states): SWPALB writes 257's low byte (1) and reads 255;
    // LDADDB reads 1 and writes (1 + 257) mod 256 = 2; CASH compares
    // Rs<15:0> = 1 with h = 1, succeeds and writes 257, Rs := 1; LDUMAXH
    // reads 257 and writes umax(257, 257).
    let s = states(
        "AArch64 T\n{ uint8_t x = 255; uint16_t h = 1; 0:X1=x; 0:X2=257; 0:X9=h; }\n P0 ;\n\
         SWPALB W2,W0,[X1] ;\n LDADDB W2,W3,[X1] ;\n MOV W8,W3 ;\n CASH W8,W2,[X9] ;\n\
         LDUMAXH W2,W4,[X9] ;\n locations [0:X0;0:X3;0:X8;0:X4;x;h;]\nexists (0:X0=0)\n",
    );
    assert_eq!(s, ["0:X0=255; 0:X3=1; 0:X4=257; 0:X8=1; [h]=257; [x]=2;"]);
    // A narrow atomic on a wider location is a mixed-size access: herd7
    // rejects the test without `-variant mixed`; in the variant the
    // atomic reads and writes the location's low byte only (herd7 7.58:
    // Never, 0:X0=255; [x]=1).
    let s = states(
        "AArch64 T\n{ int x = 255; 0:X1=x; 0:X2=257; }\n P0 ;\n SWPALB W2,W0,[X1] ;\n\
         locations [x;]\nexists (0:X0=0)\n",
    );
    assert_eq!(s, ["0:X0=255; [x]=1;"]);
}

#[test]
fn byte_swap_message_passing_is_ordered_by_acquire() {
    // herd7 7.58: Never, Sometimes, Never.
    let t = |swp: &str, ty: &str, sz: &str| {
        format!(
            "AArch64 T\n{{ {ty} x; {ty} y; 0:X1=x; 0:X3=y; 1:X1=y; 1:X3=x; 1:X4=2; }}\n\
             P0 | P1 ;\n MOV W0,#1 | {swp} W4,W0,[X1] ;\n STR{sz} W0,[X1] | LDR{sz} W2,[X3] ;\n\
             STLR{sz} W0,[X3] | ;\nexists (1:X0=1 /\\ 1:X2=0)\n"
        )
    };
    assert_eq!(arm_verdict(&t("SWPAB", "uint8_t", "B")), "Forbidden");
    assert_eq!(arm_verdict(&t("SWPB", "uint8_t", "B")), "Allowed");
    assert_eq!(arm_verdict(&t("LDADDAH", "uint16_t", "H")), "Forbidden");
}

#[test]
fn unknown_atomic_suffixes_are_located_errors() {
    for text in ["SWPX W0,W1,[X2]", "LDADDQB W0,W1,[X2]", "STADDA W0,[X2]"] {
        let full = format!("AArch64 T\n{{ 0:X2=x; }}\n P0 ;\n {text} ;\nexists (0:X0=0)\n");
        let e = bmc_rmm::frontend::litmus::parse(&SourceFile::new("bad.litmus", full), Width(64))
            .err()
            .unwrap_or_else(|| panic!("accepted: {text}"))
            .to_string();
        assert!(e.contains("bad.litmus:4:2"), "{text}: {e}");
    }
}

#[test]
fn riscv_min_max_amos() {
    // RISC-V unprivileged ISA, "Atomic Memory Operations": amomax.w of 3
    // and -2 writes 3; amomin.w of 3 and -2 writes -2; amomaxu.w of -2 and
    // 5 writes -2 (the larger unsigned value); amominu.w of -2 and 5
    // writes 5. Each rd gets the value read.
    let s = states(
        "RISCV T\n{ int x=3; 0:x1=x; 0:x2=-2; 0:x3=5; }\n P0 ;\n\
         amomax.w x4,x2,(x1) ;\n amomin.w.aq x5,x2,(x1) ;\n amomaxu.w.rl x6,x3,(x1) ;\n\
         amominu.w.aqrl x7,x3,(x1) ;\n locations [0:x4;0:x5;0:x6;0:x7;x;]\nexists (0:x4=0)\n",
    );
    assert_eq!(s, ["0:x4=3; 0:x5=3; 0:x6=-2; 0:x7=-2; [x]=5;"]);
}

#[test]
fn riscv_compare_and_pseudo_instructions() {
    // slt -1 < 2 = 1; sltu: -1 is the largest unsigned, 0; slti 2 < 3 = 1;
    // sltiu 2 < 1 = 0; neg 2 = -2; not 2 = -3; seqz 0 = 1; snez 2 = 1;
    // bgt 2 > -1 taken (skips x13 := 7); ble -1 <= 2 taken; bgtz -1 not
    // taken (x15 := 9); bleu 2 <= -1 (unsigned) taken.
    let s = states(
        "RISCV T\n{ 0:x1=-1; 0:x2=2; }\n P0 ;\n slt x3,x1,x2 ;\n sltu x4,x1,x2 ;\n\
         slti x5,x2,3 ;\n sltiu x6,x2,1 ;\n neg x7,x2 ;\n not x8,x2 ;\n seqz x9,x0 ;\n\
         snez x10,x2 ;\n bgt x2,x1,L1 ;\n li x13,7 ;\n L1: ble x1,x2,L2 ;\n li x14,8 ;\n\
         L2: bgtz x1,L3 ;\n li x15,9 ;\n L3: bleu x2,x1,L4 ;\n li x16,1 ;\n L4: nop ;\n\
         locations [0:x3;0:x4;0:x5;0:x6;0:x7;0:x8;0:x9;0:x10;0:x13;0:x14;0:x15;0:x16;]\n\
         exists (0:x3=0)\n",
    );
    assert_eq!(
        s,
        ["0:x3=1; 0:x4=0; 0:x5=1; 0:x6=0; 0:x7=-2; 0:x8=-3; 0:x9=1; 0:x10=1; 0:x13=0; 0:x14=0; 0:x15=9; 0:x16=0;"]
    );
}

#[test]
fn flags_at_the_most_negative_64_bit_value() {
    // A 64-bit register holding -2^63 runs the test at 64 bits (its
    // magnitude does not fit in fewer). -2^63 + -1 wraps to 2^63 - 1:
    // positive (PL), a carry out (CS) and a signed overflow (VS);
    // -2^63 - 1 likewise (no borrow: CS; overflow: VS).
    let s = states(
        "AArch64 T\n{ int64_t 0:X1=-9223372036854775808; int64_t 0:X2=-1; int64_t 0:X7=1; }\n\
         P0 ;\n ADDS X0,X1,X2 ;\n CSET W3,MI ;\n CSET W4,CS ;\n CSET W5,VS ;\n\
         SUBS X6,X1,X7 ;\n CSET W8,MI ;\n CSET W9,CS ;\n CSET W10,VS ;\n\
         locations [0:X3;0:X4;0:X5;0:X8;0:X9;0:X10;]\nexists (0:X3=0)\n",
    );
    assert_eq!(s, ["0:X3=0; 0:X4=1; 0:X5=1; 0:X8=0; 0:X9=1; 0:X10=1;"]);
}

#[test]
fn register_offset_past_a_scalar_addresses_its_bytes() {
    // X3 = 4: the word store writes bytes 4..7 of the 64-bit x (herd's
    // mixed-size memory), never another location.
    let s = states(
        "AArch64 T\n{ uint64_t x; uint64_t y; 0:X0=1; 0:X2=x; 0:X3=4; }\n P0 ;\n\
         STR W0,[X2,X3] ;\nlocations [x;y;]\nexists (x=0)\n",
    );
    assert_eq!(s, ["[x]=4294967296; [y]=0;"]);
}

#[test]
fn dsb_st_orders_a_write_before_a_later_read() {
    // SB: DMB ST orders only write→write, so both reads may see 0; DSB ST
    // orders the write before the read (DSB-ordered-before), as DMB SY.
    let sb = |barrier: &str| {
        states_under(
            &format!(
                "AArch64 T\n{{ 0:X1=x; 0:X2=y; 1:X1=y; 1:X2=x; }}\n\
                 P0 | P1 ;\n MOV W0,#1 | MOV W0,#1 ;\n STR W0,[X1] | STR W0,[X1] ;\n\
                 {barrier} | {barrier} ;\n LDR W3,[X2] | LDR W3,[X2] ;\n\
                 exists (0:X3=0 /\\ 1:X3=0)\n"
            ),
            "arm",
        )
    };
    let both_zero = "0:X3=0; 1:X3=0;".to_string();
    assert!(sb("DMB ST").contains(&both_zero));
    assert!(!sb("DSB ST").contains(&both_zero));
    assert!(!sb("DSB ISHST").contains(&both_zero));
    assert!(!sb("DMB SY").contains(&both_zero));
}

#[test]
fn a_condition_on_a_location_nowhere_else_is_refused() {
    let text = "AArch64 T\n{ 0:X1=y; }\n P0 ;\n MOV W0,#1 ;\n STR W0,[X1] ;\nexists (x=1)\n";
    match bmc_rmm::frontend::litmus::parse(&SourceFile::new("t.litmus", text), Width(64)) {
        Err(bmc_rmm::diag::Error::Input(e)) => {
            assert_eq!(e.location(), "t.litmus:6:9");
            assert!(e.message.contains("`x`"), "{}", e.message);
        }
        other => panic!("expected a located error, got {:?}", other.map(|_| ())),
    }
}

/// An address plus an offset prints as herd prints it, `x+4` (herd7
/// 7.58 on these two tests: `0:X2=x+4; 0:X3=0;` and, with `Variant=mixed`
/// and 64-bit elements, `0:X2=x+8; 0:X3=0;`); an address outside every
/// variable stays a number.
#[test]
fn an_address_plus_an_offset_prints_as_herd_prints_it() {
    let s = states(
        "AArch64 OFF\n{ int x[2]; 0:X1=x; }\n P0 ;\n ADD X2,X1,#4 ;\n LDR W3,[X2] ;\n\
         locations [0:X2;]\nexists (0:X3=0)\n",
    );
    assert_eq!(s, ["0:X2=x+4; 0:X3=0;"]);
    let s = states(
        "AArch64 OFF\nVariant=mixed\n{ int64_t x[2]; 0:X1=x; }\n P0 ;\n ADD X2,X1,#8 ;\n\
         LDR X3,[X2] ;\nlocations [0:X2;]\nexists (0:X3=0)\n",
    );
    assert_eq!(s, ["0:X2=x+8; 0:X3=0;"]);
    // One past the array: herd would print `x+8`, which no variable
    // here spans; the number is printed.
    let s = states(
        "AArch64 OFF\n{ int x[2]; 0:X1=x; }\n P0 ;\n ADD X2,X1,#8 ;\n\
         locations [0:X2;]\nexists (0:X2=0)\n",
    );
    assert_eq!(s.len(), 1);
    assert!(!s[0].contains('+'), "{s:?}");
    // States are ordered by the printed address, as herd orders them
    // (herd7 7.58: `2:X0=0;`, `2:X0=x+16;`, `2:X0=x+4;`).
    let s = states(
        "AArch64 ORD
{ uint64_t x[4]; uint64_t p; 0:X1=x; 0:X3=p; 1:X1=x; 1:X3=p; 2:X3=p; }
         P0 | P1 | P2 ;
 ADD X2,X1,#16 | ADD X2,X1,#4 | LDR X0,[X3] ;
         STR X2,[X3] | STR X2,[X3] | ;
exists (2:X0=x)
",
    );
    assert_eq!(s, ["2:X0=0;", "2:X0=x+16;", "2:X0=x+4;"]);
}
