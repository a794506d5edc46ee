//! RISC-V instructions → IR commands: loads and stores `lb`/`lbu`/`lh`/
//! `lhu`/`sb`/`sh` (on the location's cell), `lw`/`ld`/`lwu`/
//! `sw`/`sd` with `.aq`/`.rl` annotations, `lr`/`sc` (load-reserve /
//! store-conditional; `rd` is 0 on success, 1 on failure), the AMOs
//! `amoswap`, `amoadd`, `amoand`, `amoor`, `amoxor`, `amomax`, `amomin`,
//! `amomaxu`, `amominu` (`.w`/`.d`, `.aq`,
//! `.rl`, `.aqrl`: both accesses of the AMO carry its annotations), the
//! integer operations `li`, `mv`, `addi(w)`, `ori`, `xori`, `andi`,
//! `add(w)`, `sub(w)`, `xor`, `or`, `and`, `sext.w`, `slli`, `slt(i)(u)`,
//! `neg`, `not`, `seqz`, `snez`, branches `beq`, `bne`, `blt`, `bge`,
//! `bltu`, `bgeu`, `bgt(u)`, `ble(u)`, `beqz`, `bnez`, `blez`, `bgez`,
//! `bltz`, `bgtz`, `j`, and the
//! fences `fence pred,succ` (`i`/`o` ignored: no device memory),
//! `fence.tso`, `fence` (= `fence iorw,iorw`) and `fence.i` (no memory
//! ordering: a no-op here). Registers are `x0`..`x31` or their ABI names
//! (`a0`, `t0`, …), printed as `xN`; `x0` reads 0 and ignores writes.
//!
//! Instruction semantics: The RISC-V Instruction Set Manual, Volume I:
//! Unprivileged ISA, chapters "RV32I/RV64I Base Integer Instruction Set"
//! (loads, stores, operations, branches, FENCE), "Zifencei" (fence.i),
//! "A" standard extension (LR/SC, AMOs, aq/rl bits) and "RVWMO Memory
//! Consistency Model". The instruction forms are those of herd's RISCV
//! litmus tests (herdtools7 documentation,
//! <http://diy.inria.fr/doc/litmus.html>).

use super::ctx::Ctx;
use super::ops::{
    arity, bin, ext32, is_name, min_max, mnemonic, refuse, shl, shr, split_ops, unsupported, Low,
    Op,
};
use super::regs::rv_reg;
use crate::diag::{Error, Span};
use crate::frontend::litmus::parse_int;
use crate::program::{Ann, BinOp, Command, Expr, Fence, LExpr, MembarMask, RegId};

/// A register operand: `Some(reg)`, or `None` for `x0`/`zero`.
fn reg_opt(cx: &mut Ctx, op: &Op) -> Result<Option<RegId>, Error> {
    match rv_reg(op.text) {
        Some(r) if r == "x0" => Ok(None),
        Some(r) => Ok(Some(cx.reg(&r))),
        None => Err(cx.src.error(
            op.span,
            format!("expected a RISC-V register, found `{}`", op.text),
        )),
    }
}

fn rval(cx: &mut Ctx, op: &Op) -> Result<LExpr, Error> {
    Ok(reg_opt(cx, op)?.map(Expr::Var).unwrap_or(Expr::Const(0)))
}

fn imm(cx: &mut Ctx, op: &Op) -> Result<LExpr, Error> {
    match parse_int(op.text) {
        Some(v) => cx.int(v, op.span),
        None => Err(cx.src.error(
            op.span,
            format!("expected an immediate, found `{}`", op.text),
        )),
    }
}

/// `d(rs)` or `(rs)` with d = 0: the address expression.
fn mem_addr(cx: &mut Ctx, op: &Op) -> Result<LExpr, Error> {
    let t = op.text;
    let open = t.find('(').ok_or_else(|| {
        cx.src
            .error(op.span, format!("expected `d(rs)`, found `{t}`"))
    })?;
    let inner = t[open + 1..].strip_suffix(')').ok_or_else(|| {
        cx.src
            .error(op.span, format!("expected `d(rs)`, found `{t}`"))
    })?;
    let d = t[..open].trim();
    if !(d.is_empty() || parse_int(d) == Some(0)) {
        return Err(refuse(
            cx,
            "nonzero displacement",
            "memory cells are not byte-addressed",
            op.span,
        ));
    }
    let s = op.span.start + open + 1;
    let r = Op {
        text: inner.trim(),
        span: Span::new(s, s + inner.len().max(1)),
    };
    rval(cx, &r)
}

fn assign(d: Option<RegId>, value: LExpr) -> Vec<Command> {
    match d {
        Some(reg) => vec![Command::Assign { reg, value }],
        None => Vec::new(),
    }
}

fn ann(bits: u16, c: Command) -> Command {
    if bits == 0 {
        c
    } else {
        Command::Ann(Ann(bits), Box::new(c))
    }
}

/// The access-set of a fence operand: `r` = 1, `w` = 2 (`i`, `o` ignored).
fn fence_set(cx: &Ctx, op: &Op) -> Result<u8, Error> {
    let mut m = 0;
    for c in op.text.chars() {
        match c {
            'r' => m |= 1,
            'w' => m |= 2,
            'i' | 'o' => {}
            _ => {
                return Err(cx
                    .src
                    .error(op.span, format!("bad fence set `{}`", op.text)))
            }
        }
    }
    Ok(m)
}

/// Splits `.aq`, `.rl`, `.aqrl` off a mnemonic: (base, annotation bits).
fn split_aqrl(mn: &str) -> (&str, u16) {
    for (suf, bits) in [
        (".aqrl", Ann::ACQ | Ann::REL),
        (".aq.rl", Ann::ACQ | Ann::REL),
        (".aq", Ann::ACQ),
        (".rl", Ann::REL),
    ] {
        if let Some(b) = mn.strip_suffix(suf) {
            return (b, bits);
        }
    }
    (mn, 0)
}

/// Lowers one RISC-V instruction written at offset `base` of the source.
pub(super) fn lower_instr(cx: &mut Ctx, text: &str, base: usize) -> Result<Low, Error> {
    let lead = text.len() - text.trim_start().len();
    let (mn0, rest, mlen) = mnemonic(text);
    let sp = Span::new(base + lead, base + lead + mlen);
    let lower = mn0.to_ascii_lowercase();
    let ops = split_ops(rest, base + lead + mlen);
    let (mn, bits) = split_aqrl(&lower);
    match mn {
        "fence" | "fence.tso" | "fence.i" | "nop" => lower_fence(cx, mn0, mn, &ops, sp),
        "li" | "lui" => lower_const(cx, mn0, mn, &ops, sp),
        "addi" | "addiw" | "ori" | "xori" | "andi" | "slli" | "srli" | "srai" => {
            lower_imm_arith(cx, mn0, mn, &ops, sp)
        }
        "mv" | "sext.w" | "add" | "addw" | "sub" | "subw" | "xor" | "or" | "and" | "mul"
        | "neg" | "not" | "seqz" | "snez" => lower_reg_arith(cx, mn0, mn, &ops, sp),
        "slt" | "sltu" | "slti" | "sltiu" => lower_set_less(cx, mn0, mn, &ops, sp),
        "j" => {
            arity(cx, mn0, &ops, 1, sp)?;
            Ok(Low::Jump(None, ops[0].text.to_string(), ops[0].span))
        }
        "ret" => Ok(Low::Ret),
        "blez" | "bgez" | "bltz" | "bgtz" | "beqz" | "bnez" => {
            lower_branch_zero(cx, mn0, mn, &ops, sp)
        }
        "beq" | "bne" | "blt" | "bge" | "bltu" | "bgeu" | "bgt" | "ble" | "bgtu" | "bleu" => {
            lower_branch_cmp(cx, mn0, mn, &ops, sp)
        }
        "lw" | "ld" | "lwu" | "lb" | "lbu" | "lh" | "lhu" => {
            lower_load(cx, mn0, mn, bits, &ops, sp)
        }
        "sw" | "sd" | "sb" | "sh" => lower_store(cx, mn0, mn, bits, &ops, sp),
        "lr.w" | "lr.d" | "sc.w" | "sc.d" => lower_reserved(cx, mn0, mn, bits, &ops, sp),
        _ => lower_amo(cx, mn0, mn, bits, &ops, sp),
    }
}

/// Lowers the fences: `fence pred,succ` (`i`/`o` ignored), `fence` alone
/// (= `fence iorw,iorw`), `fence.tso`; and `fence.i` and `nop`, no-ops
/// here (`mn` lower-case without `.aq`/`.rl`, `mn0` as written).
fn lower_fence(cx: &mut Ctx, mn0: &str, mn: &str, ops: &[Op], sp: Span) -> Result<Low, Error> {
    match mn {
        "fence" => {
            let m = match ops.len() {
                0 => MembarMask::rv(3, 3),
                2 => {
                    let p = fence_set(cx, &ops[0])?;
                    let s = fence_set(cx, &ops[1])?;
                    MembarMask::rv(p, s)
                }
                n => {
                    return Err(cx
                        .src
                        .error(sp, format!("`fence` expects 0 or 2 operands, found {n}")))
                }
            };
            Ok(Low::Cmds(vec![Command::Fence(Fence::RvFence(m))]))
        }
        "fence.tso" => {
            arity(cx, mn0, ops, 0, sp)?;
            Ok(Low::Cmds(vec![Command::Fence(Fence::RvFence(
                MembarMask::TSO,
            ))]))
        }
        _ => Ok(Low::Cmds(vec![Command::Nop])),
    }
}

/// Lowers the constant loads `li rd,imm` and `lui rd,imm` (imm × 4096).
fn lower_const(cx: &mut Ctx, mn0: &str, mn: &str, ops: &[Op], sp: Span) -> Result<Low, Error> {
    arity(cx, mn0, ops, 2, sp)?;
    let d = reg_opt(cx, &ops[0])?;
    if mn == "li" {
        let v = imm(cx, &ops[1])?;
        return Ok(Low::Cmds(assign(d, v)));
    }
    let v =
        parse_int(ops[1].text).ok_or_else(|| cx.src.error(ops[1].span, "expected an immediate"))?;
    let v = cx.int(v.wrapping_mul(4096), ops[1].span)?;
    Ok(Low::Cmds(assign(d, v)))
}

/// Lowers the register-immediate operations `addi`, `addiw` (the sum
/// sign-extended from 32 bits), `ori`, `xori`, `andi` and the shifts by a
/// constant `slli`, `srli`, `srai`.
fn lower_imm_arith(cx: &mut Ctx, mn0: &str, mn: &str, ops: &[Op], sp: Span) -> Result<Low, Error> {
    arity(cx, mn0, ops, 3, sp)?;
    let d = reg_opt(cx, &ops[0])?;
    let a = rval(cx, &ops[1])?;
    let v = if matches!(mn, "slli" | "srli" | "srai") {
        let k = parse_int(ops[2].text)
            .filter(|k| (0..63).contains(k))
            .ok_or_else(|| cx.src.error(ops[2].span, "expected a shift amount"))?;
        // `srli` is computed as `srai` (they differ only on
        // negative values, as AArch64 LSR: docs/litmus.md).
        if mn == "slli" {
            shl(cx, a, k as u32, ops[2].span)?
        } else {
            shr(cx, a, k as u32, ops[2].span)?
        }
    } else {
        let b = imm(cx, &ops[2])?;
        let op = match mn {
            "addi" | "addiw" => BinOp::Add,
            "ori" => BinOp::BitOr,
            "xori" => BinOp::BitXor,
            _ => BinOp::BitAnd,
        };
        bin(op, a, b)
    };
    let v = if mn == "addiw" { ext32(cx, v, true) } else { v };
    Ok(Low::Cmds(assign(d, v)))
}

/// Lowers the register operations: `mv`, `sext.w`; `add(w)`, `sub(w)`
/// (the `w` forms sign-extended from 32 bits), `xor`, `or`, `and`, `mul`;
/// and the pseudo-instructions `neg`, `not`, `seqz`, `snez`.
fn lower_reg_arith(cx: &mut Ctx, mn0: &str, mn: &str, ops: &[Op], sp: Span) -> Result<Low, Error> {
    match mn {
        "mv" | "sext.w" => {
            arity(cx, mn0, ops, 2, sp)?;
            let d = reg_opt(cx, &ops[0])?;
            let v = rval(cx, &ops[1])?;
            let v = if mn == "sext.w" {
                ext32(cx, v, true)
            } else {
                v
            };
            Ok(Low::Cmds(assign(d, v)))
        }
        "neg" | "not" | "seqz" | "snez" => {
            // Pseudo-instructions (ISA manual, "RISC-V Assembly Programmer's
            // Handbook"): sub rd,x0,rs; xori rd,rs,-1; sltiu rd,rs,1;
            // sltu rd,x0,rs.
            arity(cx, mn0, ops, 2, sp)?;
            let d = reg_opt(cx, &ops[0])?;
            let a = rval(cx, &ops[1])?;
            let v = match mn {
                "neg" => bin(BinOp::Sub, Expr::Const(0), a),
                "not" => bin(BinOp::BitXor, a, Expr::Const(-1)),
                "seqz" => bin(BinOp::Eq, a, Expr::Const(0)),
                _ => bin(BinOp::Ne, a, Expr::Const(0)),
            };
            Ok(Low::Cmds(assign(d, v)))
        }
        _ => {
            arity(cx, mn0, ops, 3, sp)?;
            let d = reg_opt(cx, &ops[0])?;
            let a = rval(cx, &ops[1])?;
            let b = rval(cx, &ops[2])?;
            let op = match mn {
                "add" | "addw" => BinOp::Add,
                "sub" | "subw" => BinOp::Sub,
                "xor" => BinOp::BitXor,
                "or" => BinOp::BitOr,
                "and" => BinOp::BitAnd,
                _ => BinOp::Mul,
            };
            let v = bin(op, a, b);
            let v = if mn.ends_with('w') {
                ext32(cx, v, true)
            } else {
                v
            };
            Ok(Low::Cmds(assign(d, v)))
        }
    }
}

/// Lowers `slt`, `sltu`, `slti`, `sltiu`: rd = (rs1 < op2), signed or
/// unsigned (RV32I "Integer Computational Instructions").
fn lower_set_less(cx: &mut Ctx, mn0: &str, mn: &str, ops: &[Op], sp: Span) -> Result<Low, Error> {
    arity(cx, mn0, ops, 3, sp)?;
    let d = reg_opt(cx, &ops[0])?;
    let a = rval(cx, &ops[1])?;
    let b = if mn.starts_with("slti") {
        imm(cx, &ops[2])?
    } else {
        rval(cx, &ops[2])?
    };
    let v = if mn.ends_with('u') {
        super::ops::ult(&a, &b)
    } else {
        bin(BinOp::Lt, a, b)
    };
    Ok(Low::Cmds(assign(d, v)))
}

/// Lowers the branches comparing one register with zero, `rs,label`: the
/// pseudo-instructions `beqz`, `bnez`, `blez` (bge x0,rs), `bgez`
/// (bge rs,x0), `bltz` (blt rs,x0), `bgtz` (blt x0,rs).
fn lower_branch_zero(
    cx: &mut Ctx,
    mn0: &str,
    mn: &str,
    ops: &[Op],
    sp: Span,
) -> Result<Low, Error> {
    arity(cx, mn0, ops, 2, sp)?;
    let a = rval(cx, &ops[0])?;
    if !is_name(ops[1].text) {
        return Err(cx.src.error(ops[1].span, "expected a label"));
    }
    let op = match mn {
        "beqz" => BinOp::Eq,
        "bnez" => BinOp::Ne,
        "blez" => BinOp::Le,
        "bgez" => BinOp::Ge,
        "bltz" => BinOp::Lt,
        _ => BinOp::Gt,
    };
    Ok(Low::Jump(
        Some(bin(op, a, Expr::Const(0))),
        ops[1].text.to_string(),
        ops[1].span,
    ))
}

/// Lowers the branches comparing two registers, `rs1,rs2,label`: `beq`,
/// `bne`, `blt`, `bge`, `bltu`, `bgeu`, and the pseudo-instructions
/// `bgt`, `ble`, `bgtu`, `bleu` (`blt`/`bge` with the operands swapped).
/// The unsigned forms compare with the sign bits flipped.
fn lower_branch_cmp(cx: &mut Ctx, mn0: &str, mn: &str, ops: &[Op], sp: Span) -> Result<Low, Error> {
    arity(cx, mn0, ops, 3, sp)?;
    let a = rval(cx, &ops[0])?;
    let b = rval(cx, &ops[1])?;
    // bgt/ble (and the unsigned forms) are blt/bge with the operands
    // swapped (pseudo-instructions).
    let (mn, a, b) = match mn {
        "bgt" => ("blt", b, a),
        "ble" => ("bge", b, a),
        "bgtu" => ("bltu", b, a),
        "bleu" => ("bgeu", b, a),
        m => (m, a, b),
    };
    if !is_name(ops[2].text) {
        return Err(cx.src.error(ops[2].span, "expected a label"));
    }
    let m = Expr::Const(cx.width.min());
    let (a, b) = if mn.ends_with('u') {
        (bin(BinOp::BitXor, a, m.clone()), bin(BinOp::BitXor, b, m))
    } else {
        (a, b)
    };
    let op = match mn.trim_end_matches('u') {
        "beq" => BinOp::Eq,
        "bne" => BinOp::Ne,
        "blt" => BinOp::Lt,
        _ => BinOp::Ge,
    };
    Ok(Low::Jump(
        Some(bin(op, a, b)),
        ops[2].text.to_string(),
        ops[2].span,
    ))
}

/// Lowers the loads `lw`, `lwu`, `ld` (a 32-bit load of a wider cell reads
/// its low half, sign- or zero-extended) and `lb`, `lbu`, `lh`, `lhu` (the
/// low byte / half-word of the location's cell, sign- or zero-extended:
/// RISC-V unprivileged ISA 2.6 "Load and Store Instructions"; herd's
/// memory is one cell per location), annotated with `bits` (`.aq`/`.rl`).
fn lower_load(
    cx: &mut Ctx,
    mn0: &str,
    mn: &str,
    bits: u16,
    ops: &[Op],
    sp: Span,
) -> Result<Low, Error> {
    arity(cx, mn0, ops, 2, sp)?;
    let d = reg_opt(cx, &ops[0])?;
    let addr = mem_addr(cx, &ops[1])?;
    let reg = d.unwrap_or_else(|| cx.reg("#tmp"));
    let mut cmds = vec![ann(bits, Command::Load { reg, addr })];
    if mn.starts_with("lb") || mn.starts_with("lh") {
        let b = if mn.starts_with("lb") { 8 } else { 16 };
        let v = super::ops::low_bits(cx, Expr::Var(reg), b, !mn.ends_with('u'), sp)?;
        if d.is_some() {
            cmds.push(Command::Assign { reg, value: v });
        }
    } else if mn != "ld" && cx.wide() {
        // A 32-bit load of a wider cell reads its low half.
        let v = ext32(cx, Expr::Var(reg), mn == "lw");
        cmds.push(Command::Assign { reg, value: v });
    }
    Ok(Low::Cmds(cmds))
}

/// Lowers the stores `sw` (the low 32 bits, zero-extended in the
/// location's cell), `sd`, and `sb`, `sh` (the low byte / half-word of
/// rs2, zero-extended in the cell), annotated with `bits` (`.aq`/`.rl`).
fn lower_store(
    cx: &mut Ctx,
    mn0: &str,
    mn: &str,
    bits: u16,
    ops: &[Op],
    sp: Span,
) -> Result<Low, Error> {
    arity(cx, mn0, ops, 2, sp)?;
    let mut v = rval(cx, &ops[0])?;
    match mn {
        "sw" => {
            // The low 32 bits (zero-extended in the location's cell).
            cx.vars.store32();
            v = ext32(cx, v, false);
        }
        "sb" | "sh" => {
            let b = if mn == "sb" { 8 } else { 16 };
            v = super::ops::low_bits(cx, v, b, false, sp)?;
        }
        _ => {}
    }
    let addr = mem_addr(cx, &ops[1])?;
    Ok(Low::Cmds(vec![ann(
        bits,
        Command::Store { addr, value: v },
    )]))
}

/// Lowers the load-reserve `lr.w`/`lr.d rd,(rs)` and the
/// store-conditional `sc.w`/`sc.d rd,rs2,(rs1)` (rd is 0 on success, 1 on
/// failure, and depends on the SC's write), annotated with `bits`.
fn lower_reserved(
    cx: &mut Ctx,
    mn0: &str,
    mn: &str,
    bits: u16,
    ops: &[Op],
    sp: Span,
) -> Result<Low, Error> {
    if mn.starts_with("lr") {
        arity(cx, mn0, ops, 2, sp)?;
        let d = reg_opt(cx, &ops[0])?;
        let addr = mem_addr(cx, &ops[1])?;
        let reg = d.unwrap_or_else(|| cx.reg("#tmp"));
        return Ok(Low::Cmds(vec![ann(
            bits,
            Command::LoadReserve { reg, addr },
        )]));
    }
    arity(cx, mn0, ops, 3, sp)?;
    let d = reg_opt(cx, &ops[0])?;
    let v = rval(cx, &ops[1])?;
    let addr = mem_addr(cx, &ops[2])?;
    let flag = cx.reg("#sc");
    // rd depends on the SC's write (RVWMO syntactic dependencies).
    let mut cmds = vec![ann(
        bits | Ann::SCDEP,
        Command::StoreCond {
            addr,
            value: v,
            flag,
        },
    )];
    // rd is 0 on success, 1 on failure.
    cmds.extend(assign(d, bin(BinOp::Eq, Expr::Var(flag), Expr::Const(0))));
    Ok(Low::Cmds(cmds))
}

/// Lowers the AMOs `amoswap`, `amoadd`, `amoand`, `amoor`, `amoxor`,
/// `amomax`, `amomin`, `amomaxu`, `amominu` (`.w`/`.d`) into an atomic
/// read and write both annotated with `bits`; any other mnemonic is
/// refused as unsupported.
fn lower_amo(
    cx: &mut Ctx,
    mn0: &str,
    mn: &str,
    bits: u16,
    ops: &[Op],
    sp: Span,
) -> Result<Low, Error> {
    let amo = [
        "amoswap", "amoadd", "amoand", "amoor", "amoxor", "amomax", "amomin", "amomaxu", "amominu",
    ]
    .iter()
    .find(|b| mn == format!("{b}.w") || mn == format!("{b}.d"));
    let Some(kind) = amo else {
        return Err(unsupported(cx, mn0, sp));
    };
    arity(cx, mn0, ops, 3, sp)?;
    let d = reg_opt(cx, &ops[0])?;
    let s = rval(cx, &ops[1])?;
    let addr = mem_addr(cx, &ops[2])?;
    let tmp = cx.reg("#tmp");
    let old = Expr::Var(tmp);
    let value = match *kind {
        "amoswap" => s,
        "amoadd" => bin(BinOp::Add, old, s),
        "amoand" => bin(BinOp::BitAnd, old, s),
        "amoor" => bin(BinOp::BitOr, old, s),
        "amoxor" => bin(BinOp::BitXor, old, s),
        "amomax" => min_max(true, true, old, s),
        "amomin" => min_max(true, false, old, s),
        "amomaxu" => min_max(false, true, old, s),
        _ => min_max(false, false, old, s),
    };
    let mut body = vec![
        ann(
            bits,
            Command::Load {
                reg: tmp,
                addr: addr.clone(),
            },
        ),
        ann(bits, Command::Store { addr, value }),
    ];
    body.extend(assign(d, Expr::Var(tmp)));
    Ok(Low::Cmds(vec![Command::Atomic(body)]))
}
