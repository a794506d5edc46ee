//! AArch64 front-end tests that need no corpus: each small test's final
//! states (under `sc`, one thread, so no reordering) are the values the
//! Arm ARM's instruction descriptions give (C6: ADD (shifted / extended
//! register), ASR, MOVZ, MOVK, MADD, B.cond with unsigned conditions,
//! STR post-index), computed by hand in the comments.

use bmc_rmm::bounded::{Deadline, SolverKind};
use bmc_rmm::cat;
use bmc_rmm::diag::SourceFile;
use bmc_rmm::litmus::run;
use bmc_rmm::program::Width;

/// The sorted final state lines of `text` under sc.
fn states(text: &str) -> Vec<String> {
    let t = bmc_rmm::frontend::litmus::parse(&SourceFile::new("t.litmus", text), Width(64))
        .unwrap_or_else(|e| panic!("{e}"));
    let m = cat::builtin("sc").unwrap();
    let r = run::run(
        &t,
        &m,
        12,
        run::auto_width(&t),
        Deadline(None),
        SolverKind::Varisat,
    )
    .unwrap();
    let mut v: Vec<String> = r.states.iter().map(|s| t.state_line(s)).collect();
    v.sort();
    v
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
fn post_index_store_updates_the_base() {
    let s = states(
        "AArch64 T\n{ 0:X0=x; 0:X1=5; }\n P0 ;\n STR W1,[X0],#4 ;\n\
         locations [x;]\nexists (x=0)\n",
    );
    assert_eq!(s, ["[x]=5;"]);
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
