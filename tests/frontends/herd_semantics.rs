//! herd7's semantics on small tests that need no corpus: RISC-V
//! dependencies into and out of an AMO (herd makes an AMO one event, in R
//! and W, whose register reads all precede it), herd's `filter` before a
//! `~exists` condition, the order an AArch64 atomic with acquire and release
//! semantics gives its write, a header comment herd's splitter skips line by line
//! (`(*` not closed), and AArch64 mixed-size accesses: answered where
//! modelled (a dependency's zero offset), refused with a located error
//! where not (a register offset computed from a read value, a location
//! accessed at two sizes by two threads, a test without a `Variant` line).
//! The expected states are herd7 7.58's (`riscv.cat`; `aarch64.cat
//! -variant mixed`), run on these texts.

use crate::common::litmus_states as states;
use bmc_rmm::diag::{Error, SourceFile};
use bmc_rmm::program::Width;

/// `(location, message)` of the located error `text` gives.
fn refused(text: &str) -> (String, String) {
    match bmc_rmm::frontend::litmus::parse(&SourceFile::new("t.litmus", text), Width(64)) {
        Ok(_) => panic!("expected a located error for:\n{text}"),
        Err(Error::Input(e)) => (e.location(), e.message.clone()),
        Err(e) => panic!("not a located error: {e}"),
    }
}

/// An MP or LB test whose thread 1 reads y, has `dep_in` into an AMO on z
/// and `dep_out` from its result to an access of x (bench/gen_riscv_amo.py
/// writes the whole family).
fn riscv_amo(shape: &str, dep_in: &str, amo: &str, dep_out: &str) -> String {
    let p0 = if shape == "MP" {
        [
            "ori x5,x0,1",
            "sw x5,0(x8)",
            "fence rw,rw",
            "ori x7,x0,1",
            "sw x7,0(x6)",
        ]
        .as_slice()
    } else {
        ["lw x5,0(x8)", "fence rw,rw", "ori x7,x0,1", "sw x7,0(x6)"].as_slice()
    };
    let mut p1 = vec!["lw x5,0(x6)".to_string()];
    p1.extend(dep_in.split(';').map(str::to_string));
    p1.push(format!("{amo} x2,x1,(x3)"));
    p1.extend(dep_out.split(';').map(str::to_string));
    let n = p0.len().max(p1.len());
    let mut rows = String::new();
    for i in 0..n {
        let a = p0.get(i).copied().unwrap_or("");
        let b = p1.get(i).map(String::as_str).unwrap_or("");
        rows += &format!(" {a:<14} | {b:<14} ;\n");
    }
    let cond = if shape == "MP" {
        "exists (1:x5=1 /\\ 1:x10=0)"
    } else {
        "exists (0:x5=1 /\\ 1:x5=1)"
    };
    format!("RISCV T\n{{\n0:x6=y; 0:x8=x;\n1:x6=y; 1:x3=z; 1:x8=x;\n}}\n P0 | P1 ;\n{rows}{cond}\n")
}

const MP_NEVER: [&str; 3] = ["1:x5=0; 1:x10=0;", "1:x5=0; 1:x10=1;", "1:x5=1; 1:x10=1;"];
const LB_NEVER: [&str; 3] = ["0:x5=0; 1:x5=0;", "0:x5=0; 1:x5=1;", "0:x5=1; 1:x5=0;"];

#[test]
fn data_into_amo_then_address_out_orders_the_reads() {
    // Dat3M's MP+fence.rw.rw+data-amoswap-addr: herd7 Never.
    let t = riscv_amo(
        "MP",
        "xor x1,x5,x5;ori x1,x1,1",
        "amoswap.w",
        "xor x7,x2,x2;add x9,x8,x7;lw x10,0(x9)",
    );
    assert_eq!(states(&t, "riscv"), MP_NEVER);
}

#[test]
fn control_into_amo_then_address_out_orders_the_reads() {
    let t = riscv_amo(
        "MP",
        "bne x5,x0,LC00;LC00:;ori x1,x0,1",
        "amoor.w",
        "xor x7,x2,x2;add x9,x8,x7;lw x10,0(x9)",
    );
    assert_eq!(states(&t, "riscv"), MP_NEVER);
}

#[test]
fn data_into_amo_orders_later_stores() {
    // herd: the dependency into the AMO's value is an address dependency
    // of the AMO (one event, a load), so rule 13 orders the read before
    // every later store.
    let dep = riscv_amo(
        "LB",
        "xor x1,x5,x5;ori x1,x1,1",
        "amoadd.w",
        "ori x10,x0,1;sw x10,0(x8)",
    );
    assert_eq!(states(&dep, "riscv"), LB_NEVER);
    // Without the dependency the cycle is allowed (4 states).
    let none = riscv_amo("LB", "ori x1,x0,1", "amoadd.w", "ori x10,x0,1;sw x10,0(x8)");
    let mut all: Vec<&str> = LB_NEVER.to_vec();
    all.push("0:x5=1; 1:x5=1;");
    all.sort();
    assert_eq!(states(&none, "riscv"), all);
}

#[test]
fn filter_before_not_exists() {
    // Dat3M's ISA03+SB01: the filter keeps the executions where both
    // swaps read 0.
    let t = "RISCV F\n{\n0:a0=lock; 0:a1=x; 0:a2=y;\n1:a0=lock; 1:a1=x; 1:a2=y;\n}\n\
     P0 | P1 ;\n li t0,1 | li t0,1 ;\n amoswap.w.aq t0,t0,(a0) | amoswap.w.aq t0,t0,(a0) ;\n\
     li t1,1 | li t1,1 ;\n sw t1,0(a1) | sw t1,0(a2) ;\n lw t2,0(a2) | lw t2,0(a1) ;\n\
     amoswap.w.rl x0,x0,(a0) | amoswap.w.rl x0,x0,(a0) ;\n\
     filter (0:t0=0 /\\ 1:t0=0)\n~exists (0:t2=0 /\\ 1:t2=0)\n";
    assert_eq!(states(t, "riscv"), ["0:x7=0; 1:x7=1;", "0:x7=1; 1:x7=0;"]);
}

#[test]
fn header_comment_without_close_is_header_text() {
    // herd's splitter reads `(* ...` before the init block as header text
    // (Dat3M's ISA-LB-DEP-ADDR2-SUCCESS).
    let t = "RISCV H\n(* a note never closed\n   As a result: Allow (where SC fails)\n\
             {\n0:x6=x;\n1:x6=x;\n}\n P0 | P1 ;\n ori x5,x0,1 | lw x7,0(x6) ;\n\
             sw x5,0(x6) | ;\nexists (1:x7=1)\n";
    assert_eq!(states(t, "riscv"), ["1:x7=0;", "1:x7=1;"]);
    // A `(*` at the end of a header line opens a comment, closed or not.
    let open = "RISCV H\n(*\n{ *)\n{\n0:x6=x;\n}\n P0 ;\n lw x7,0(x6) ;\nexists (0:x7=0)\n";
    assert_eq!(states(open, "riscv"), ["0:x7=0;"]);
}

#[test]
fn mixed_size_dependency_zero_offset_is_answered() {
    // A word store at a dependency's zero offset into a 64-bit location
    // one thread accesses: herd7 -variant mixed gives x = 0x100000004.
    let t = "AArch64 ZOFF\n{\nuint64_t x; uint64_t 0:X2; uint64_t 0:X5;\n\
             0:X0=0x100000002; 0:X1=x; 0:X3=0x300000004;\n}\n P0 ;\n STR X0,[X1] ;\n\
             LDR W2,[X1] ;\n EOR X4,X2,X2 ;\n STR W3,[X1,X4] ;\n LDR X5,[X1] ;\n\
             locations [x;0:X5;]\nexists (0:X2=2)\n";
    let want = ["0:X2=2; 0:X5=4294967300; [x]=4294967300;"];
    assert_eq!(states(t, "arm"), want);
    assert_eq!(states(t, "sc"), want);
}

#[test]
fn mixed_size_offset_from_a_read_is_refused() {
    // Dat3M's MP+QW+addr reads the upper word through a register offset
    // computed from a read value (herd: 0:X5=1); not known statically.
    let t = "AArch64 ROFF\n{\nuint64_t x; uint64_t 0:X2; uint64_t 0:X5;\n\
             0:X0=0x100000002; 0:X1=x;\n}\n P0 ;\n STR X0,[X1] ;\n LDR W2,[X1] ;\n\
             ADD W4,W2,#2 ;\n LDR W5,[X1,W4,SXTW] ;\nexists (0:X5=1)\n";
    let (at, msg) = refused(t);
    assert!(at.starts_with("t.litmus:10:"), "{at}");
    assert!(msg.contains("not known statically"), "{msg}");
}

#[test]
fn mixed_size_location_shared_between_threads_is_refused() {
    // Dat3M's CO-MIXED-W0Q0-01 (herd: Sometimes): a word store and a
    // quad store to one location from two threads.
    let t = "AArch64 CO-MIXED\n{\nuint64_t x;\n0:X1=x; 1:X1=x;\nuint32_t 0:X2=0x1;\n\
             uint64_t 0:X4;\nuint64_t 0:X5;\nuint64_t 1:X3=0x200000002;\n}\n\
             P0 | P1 ;\nSTR W2,[X1] | STR X3,[X1] ;\nLDR X4,[X1] | ;\nLDR X5,[X1] | ;\n\
             exists(0:X4 = 0x1 /\\ 0:X5=0x200000001)\n";
    let (_, msg) = refused(t);
    assert!(msg.contains("mixed-size"), "{msg}");
}

#[test]
fn narrow_accesses_without_variant_line_are_mixed_size() {
    // Dat3M's R+wsib0h0+rfib0h0-posh0b0 has no `Variant` line; herd7
    // without `-variant mixed` rejects it ("Illegal mixed-size test"),
    // with it answers x = 0x203: byte and half-word stores to one word by
    // two threads, which is refused, never answered as one cell.
    let t = "AArch64 R\n{\nuint32_t x; uint32_t 1:X3; uint32_t 1:X2;\n0:X1=x;\n1:X1=x;\n}\n\
             P0 | P1 ;\n MOV W0,#1 | MOV W0,#3 ;\n STRB W0,[X1] | STRB W0,[X1] ;\n\
             MOV W2,#514 | LDRH W2,[X1] ;\n STRH W2,[X1] | LDRB W3,[X1] ;\n\
             exists (1:X2=0x3 /\\ 1:X3=0x3 /\\ x=0x203)\n";
    let (_, msg) = refused(t);
    assert!(msg.contains("mixed-size"), "{msg}");
}

/// An MP test whose writer does `rmw` (an atomic or an exclusive pair) on
/// y, then stores x; the reader reads x, DMB SY, reads y. `cond` is
/// added to the final condition.
fn aarch64_rmw_then_store(rmw: &str, cond: &str) -> String {
    format!(
        "AArch64 RMW-po\n{{\n0:X0=y; 0:X3=x; 1:X0=x; 1:X2=y;\n}}\n P0 | P1 ;\n\
         MOV W1,#1 | LDR W1,[X0] ;\n{rmw} | DMB SY ;\n MOV W5,#1 | LDR W3,[X2] ;\n\
         STR W5,[X3] | ;\nexists (0:X2=0 /\\ 1:X1=1 /\\ 1:X3=0{cond})\n"
    )
}

#[test]
fn atomic_with_acquire_and_release_orders_its_write_before_later_accesses() {
    // aarch64.cat's bob: [range([A]; amo; [L])]; po. Found by
    // bench/gen_litmus.py; herd7 (aarch64.cat): Never for SWPAL.
    let never = [
        "0:X2=0; 1:X1=0; 1:X3=0;",
        "0:X2=0; 1:X1=0; 1:X3=1;",
        "0:X2=0; 1:X1=1; 1:X3=1;",
    ];
    assert_eq!(
        states(&aarch64_rmw_then_store(" SWPAL W1,W2,[X0]", ""), "arm"),
        never
    );
    assert_eq!(
        states(&aarch64_rmw_then_store(" LDADDAL W1,W2,[X0]", ""), "arm"),
        never
    );
    // Acquire only or release only: herd7 Sometimes (the fourth state).
    let mut all = never.to_vec();
    all.push("0:X2=0; 1:X1=1; 1:X3=0;");
    all.sort();
    assert_eq!(
        states(&aarch64_rmw_then_store(" SWPA W1,W2,[X0]", ""), "arm"),
        all
    );
    assert_eq!(
        states(&aarch64_rmw_then_store(" SWPL W1,W2,[X0]", ""), "arm"),
        all
    );
    // An exclusive pair LDAXR/STLXR is no amo: herd7 Sometimes.
    let pair = aarch64_rmw_then_store(" LDAXR W2,[X0] | ;\n STLXR W4,W1,[X0]", " /\\ 0:X4=0");
    let herd = [
        "0:X2=0; 0:X4=0; 1:X1=0; 1:X3=0;",
        "0:X2=0; 0:X4=0; 1:X1=0; 1:X3=1;",
        "0:X2=0; 0:X4=0; 1:X1=1; 1:X3=0;",
        "0:X2=0; 0:X4=0; 1:X1=1; 1:X3=1;",
        "0:X2=0; 0:X4=1; 1:X1=0; 1:X3=0;",
        "0:X2=0; 0:X4=1; 1:X1=1; 1:X3=0;",
    ];
    assert_eq!(states(&pair, "arm"), herd);
}
