//! PPC instructions → IR commands: loads and stores (`d(rA)`, the old
//! `d,rA` pair and indexed forms), arithmetic and logical operations,
//! comparisons into a condition register field (`cr0` unless `crN,` is
//! given), branches on it, `lwarx`/`stwcx.` as load-reserve and
//! store-conditional, and the fences `sync`, `lwsync`, `isync`, `eieio`.
//! Data flows through registers exactly as written (`xor r3,r1,r1` is
//! `r3 := r1 ^ r1`), so that address, data and control dependencies can
//! be computed from the IR later.
//!
//! Instruction semantics: Power ISA Version 3.0, Book I, "Fixed-Point
//! Facility" (loads, stores, arithmetic, compares into CR fields) and
//! "Branch Facility" (conditional branches on CR fields); Book II,
//! "Load and Reserve and Store Conditional Instructions" (`lwarx`,
//! `stwcx.`), "Instruction Synchronize" (`isync`) and "Memory Barrier
//! Instructions" (`sync`, `lwsync`, `eieio`). The instruction forms are
//! those of herd's PPC litmus tests (herdtools7 documentation,
//! <http://diy.inria.fr/doc/litmus.html>).

use super::ctx::Ctx;
use super::ops::{
    arity, bin, compare, ext32, is_name, mnemonic, split_ops, unsupported, var, Low, Op,
};
use super::regs::norm_reg;
use crate::diag::{Error, Span};
use crate::frontend::litmus::parse_int;
use crate::frontend::litmus::Arch;
use crate::program::{BinOp, Command, Expr, Fence, LExpr, RegId, UnOp};

fn ppc_reg(cx: &mut Ctx, op: &Op) -> Result<RegId, Error> {
    let t = op.text;
    let ok = if let Some(s) = t.strip_prefix('%') {
        is_name(s)
    } else {
        let l = t.to_ascii_lowercase();
        l.strip_prefix('r')
            .and_then(|d| d.parse::<u32>().ok())
            .is_some_and(|n| n < 32)
    };
    if !ok {
        return Err(cx
            .src
            .error(op.span, format!("expected a PPC register, found `{t}`")));
    }
    let name = norm_reg(Arch::Ppc, t);
    Ok(cx.reg(&name))
}

/// The value of a base register operand `rA` of the forms that read
/// `(rA|0)` (Power ISA Book I, 1.6.2: "if RA = 0 then b ← 0"): the
/// indexed loads and stores, `lwarx`/`stwcx.`, `addi`, `addis`; `r0`
/// there is the constant 0, as herd7 reads it (herd7 7.58: `li r0,8;
/// lwzx r1,r0,r2` loads from `r2`'s address; `addi r3,r0,1` gives 1).
/// herd reads `r0`'s value in the displacement forms (`lwz r4,0(r0)`).
/// `None` for `r0`, else the register.
fn base_reg(cx: &mut Ctx, op: &Op) -> Result<Option<RegId>, Error> {
    let r = ppc_reg(cx, op)?;
    Ok((norm_reg(Arch::Ppc, op.text) != norm_reg(Arch::Ppc, "r0")).then_some(r))
}

/// `(rA|0)` as an expression ([`base_reg`]).
fn base_val(a: Option<RegId>) -> LExpr {
    a.map_or(Expr::Const(0), var)
}

fn ppc_imm(cx: &mut Ctx, op: &Op) -> Result<(i64, LExpr), Error> {
    match parse_int(op.text) {
        Some(v) => Ok((v, cx.int(v, op.span)?)),
        None => Err(cx.src.error(
            op.span,
            format!("expected an immediate, found `{}`", op.text),
        )),
    }
}

/// `d(rA)` or the old `d,rA` pair: the address expression `rA`.
fn ppc_disp_addr(cx: &mut Ctx, ops: &[Op], mn: &str, span: Span) -> Result<LExpr, Error> {
    let (disp, reg_op) = match ops.len() {
        2 => {
            let t = ops[1].text;
            let open = t.find('(').ok_or_else(|| {
                cx.src.error(
                    ops[1].span,
                    format!("`{mn}`: expected `d(rA)`, found `{t}`"),
                )
            })?;
            let inner = t[open + 1..].strip_suffix(')').ok_or_else(|| {
                cx.src.error(
                    ops[1].span,
                    format!("`{mn}`: expected `d(rA)`, found `{t}`"),
                )
            })?;
            let s = ops[1].span.start + open + 1;
            (
                (t[..open].trim(), ops[1].span),
                Op {
                    text: inner.trim(),
                    span: Span::new(s, s + inner.len().max(1)),
                },
            )
        }
        3 => (
            (ops[1].text, ops[1].span),
            Op {
                text: ops[2].text,
                span: ops[2].span,
            },
        ),
        n => {
            return Err(cx.src.error(
                span,
                format!("`{mn}` expects 2 operands `rX,d(rA)`, found {n}"),
            ));
        }
    };
    match parse_int(disp.0) {
        Some(0) => {}
        Some(_) => {
            return Err(cx.src.error(
                disp.1,
                format!("`{mn}`: nonzero displacements are not supported (memory cells are not byte-addressed)"),
            ))
        }
        None if disp.0.is_empty() => {}
        None => return Err(cx.src.error(disp.1, format!("`{mn}`: bad displacement `{}`", disp.0))),
    }
    Ok(var(ppc_reg(cx, &reg_op)?))
}

/// Lowers one PPC instruction written at offset `base` of the source.
pub(super) fn lower_instr(cx: &mut Ctx, text: &str, base: usize) -> Result<Low, Error> {
    let lead = text.len() - text.trim_start().len();
    let (mn0, rest, mlen) = mnemonic(text);
    let sp = Span::new(base + lead, base + lead + mlen);
    let mn = mn0.to_ascii_lowercase();
    let ops = split_ops(rest, base + lead + mlen);
    // Simple fences and nop.
    let fence = match mn.as_str() {
        "sync" | "hwsync" => Some(Fence::Sync),
        "lwsync" => Some(Fence::LwSync),
        "isync" => Some(Fence::ISync),
        "eieio" => Some(Fence::Eieio),
        _ => None,
    };
    if let Some(f) = fence {
        arity(cx, mn0, &ops, 0, sp)?;
        return Ok(Low::Cmds(vec![Command::Fence(f)]));
    }
    match mn.as_str() {
        "nop" => Ok(Low::Cmds(vec![Command::Nop])),
        "li" | "lis" | "addi" | "addis" | "xori" | "ori" | "andi." | "mulli" => {
            lower_imm_arith(cx, mn0, &mn, &ops, sp)
        }
        "rlwinm" | "rlwimi" => lower_rotate(cx, mn0, &mn, &ops, sp),
        "add" | "sub" | "subf" | "xor" | "and" | "or" | "mullw" | "mulld" | "mr" | "extsw"
        | "neg" | "clrldi" => lower_reg_arith(cx, mn0, &mn, &ops, sp),
        "cmpw" | "cmpd" | "cmplw" | "cmpld" | "cmpwi" | "cmpdi" | "cmplwi" | "cmpldi" => {
            lower_compare(cx, mn0, &mn, &ops, sp)
        }
        "b" => {
            arity(cx, mn0, &ops, 1, sp)?;
            Ok(Low::Jump(None, ops[0].text.to_string(), ops[0].span))
        }
        "blr" => Ok(Low::Ret),
        "beq" | "bne" | "blt" | "bgt" | "ble" | "bge" => lower_cond_branch(cx, mn0, &mn, &ops, sp),
        "lwz" | "ld" | "lwa" | "stw" | "std" => lower_disp_access(cx, mn0, &mn, &ops, sp),
        "lwzx" | "lwax" | "ldx" | "stwx" | "stdx" | "lwarx" | "ldarx" | "stwcx." | "stdcx." => {
            lower_indexed_access(cx, mn0, &mn, &ops, sp)
        }
        _ => Err(unsupported(cx, mn0, sp)),
    }
}

/// `reg := value` as the lowering of one instruction.
fn assign(reg: RegId, value: LExpr) -> Low {
    Low::Cmds(vec![Command::Assign { reg, value }])
}

/// Lowers the immediate forms: `li`, `lis` (a constant, shifted left 16
/// bits for `lis`), `addi`, `addis`, `xori`, `ori`, `andi.` (which also
/// sets `cr0` from the result) and `mulli` (`mn` lower-case, `mn0` as
/// written).
fn lower_imm_arith(cx: &mut Ctx, mn0: &str, mn: &str, ops: &[Op], sp: Span) -> Result<Low, Error> {
    if mn == "li" || mn == "lis" {
        arity(cx, mn0, ops, 2, sp)?;
        let d = ppc_reg(cx, &ops[0])?;
        let (v, e) = ppc_imm(cx, &ops[1])?;
        if mn == "lis" {
            let s = v.wrapping_mul(65536);
            return Ok(assign(d, cx.int(s, ops[1].span)?));
        }
        return Ok(assign(d, e));
    }
    arity(cx, mn0, ops, 3, sp)?;
    let d = ppc_reg(cx, &ops[0])?;
    let a = ppc_reg(cx, &ops[1])?;
    let (v, mut e) = ppc_imm(cx, &ops[2])?;
    if mn == "addis" {
        e = cx.int(v.wrapping_mul(65536), ops[2].span)?;
    }
    if matches!(mn, "addi" | "addis") {
        // `(rA|0) + SIMM`: `addi rD,r0,v` is `li rD,v`.
        let value = match base_reg(cx, &ops[1])? {
            Some(a) => bin(BinOp::Add, var(a), e),
            None => e,
        };
        return Ok(assign(d, value));
    }
    let op = match mn {
        "addi" | "addis" => BinOp::Add,
        "xori" => BinOp::BitXor,
        "ori" => BinOp::BitOr,
        "mulli" => BinOp::Mul,
        _ => BinOp::BitAnd,
    };
    let mut cmds = vec![Command::Assign {
        reg: d,
        value: bin(op, var(a), e),
    }];
    if mn == "andi." {
        let c = cx.reg("cr0");
        cmds.push(Command::Assign {
            reg: c,
            value: compare(var(d), Expr::Const(0)),
        });
    }
    Ok(Low::Cmds(cmds))
}

/// Lowers `rlwinm` / `rlwimi`: rotate the low word left by SH, keep the
/// mask of bits MB..ME (big-endian numbering of the word), zero-extended
/// (Power ISA 3.3.14, "Rotate and Shift"); `rlwimi` inserts the kept bits
/// into rA under the mask, rA's other bits (its high word included)
/// unchanged.
fn lower_rotate(cx: &mut Ctx, mn0: &str, mn: &str, ops: &[Op], sp: Span) -> Result<Low, Error> {
    arity(cx, mn0, ops, 5, sp)?;
    let d = ppc_reg(cx, &ops[0])?;
    let src_reg = ppc_reg(cx, &ops[1])?;
    let mut f = [0u32; 3];
    for (k, o) in ops[2..5].iter().enumerate() {
        f[k] = parse_int(o.text.trim())
            .filter(|v| (0..32).contains(v))
            .ok_or_else(|| cx.src.error(o.span, format!("`{mn0}`: expected 0..31")))?
            as u32;
    }
    let [sh, mb, me] = f;
    if mb > me {
        return Err(cx.src.error(
            ops[3].span,
            format!("unsupported `{mn0}` with MB > ME (a wrapping mask)"),
        ));
    }
    // The rotation computes with the word zero-extended: 64 bits.
    cx.vars.min_width = cx.vars.min_width.max(64);
    let low = cx.int(0xffff_ffff, sp)?;
    let x = bin(BinOp::BitAnd, var(src_reg), low.clone());
    let rot = if sh == 0 {
        x
    } else {
        let up = bin(BinOp::Mul, x.clone(), cx.int(1i64 << sh, sp)?);
        let down = bin(BinOp::Div, x, cx.int(1i64 << (32 - sh), sp)?);
        bin(BinOp::BitAnd, bin(BinOp::BitOr, up, down), low)
    };
    let mask: i64 = (mb..=me).map(|i| 1i64 << (31 - i)).sum();
    let kept = bin(BinOp::BitAnd, rot, cx.int(mask, sp)?);
    if mn == "rlwimi" {
        let rest = bin(BinOp::BitAnd, var(d), cx.int(!mask, sp)?);
        return Ok(assign(d, bin(BinOp::BitOr, kept, rest)));
    }
    Ok(assign(d, kept))
}

/// Lowers the register forms: the three-register operations `add`,
/// `sub`, `subf`, `xor`, `and`, `or`, `mullw`, `mulld`; the two-register
/// `mr`, `extsw`, `neg`; and `clrldi` (clear the high bits).
fn lower_reg_arith(cx: &mut Ctx, mn0: &str, mn: &str, ops: &[Op], sp: Span) -> Result<Low, Error> {
    match mn {
        "mr" | "extsw" | "neg" => {
            arity(cx, mn0, ops, 2, sp)?;
            let d = ppc_reg(cx, &ops[0])?;
            let s = ppc_reg(cx, &ops[1])?;
            let value = if mn == "neg" {
                Expr::un(UnOp::Neg, var(s))
            } else {
                // extsw: sign-extension of the low word (the identity on
                // values of at most 32 bits).
                ext32(cx, var(s), mn == "extsw")
            };
            Ok(assign(d, value))
        }
        "clrldi" => {
            arity(cx, mn0, ops, 3, sp)?;
            let d = ppc_reg(cx, &ops[0])?;
            let s = ppc_reg(cx, &ops[1])?;
            let k = parse_int(ops[2].text).unwrap_or(-1);
            if !(0..64).contains(&k) {
                return Err(cx.src.error(
                    ops[2].span,
                    format!(
                        "`clrldi` expects 0..63 bits to clear, found `{}`",
                        ops[2].text
                    ),
                ));
            }
            // Keeps the low 64-k bits: an AND with 2^(64-k)-1 (the identity
            // when the test runs at a width of at most 64-k bits).
            let value = if k == 0 || (k < 32 && !cx.wide()) {
                var(s)
            } else {
                let mask = (u64::MAX >> k) as i64;
                bin(BinOp::BitAnd, var(s), Expr::Const(cx.width.wrap(mask)))
            };
            Ok(assign(d, value))
        }
        _ => {
            arity(cx, mn0, ops, 3, sp)?;
            let d = ppc_reg(cx, &ops[0])?;
            let a = ppc_reg(cx, &ops[1])?;
            let b = ppc_reg(cx, &ops[2])?;
            let value = match mn {
                "add" => bin(BinOp::Add, var(a), var(b)),
                "sub" => bin(BinOp::Sub, var(a), var(b)),
                "subf" => bin(BinOp::Sub, var(b), var(a)),
                "xor" => bin(BinOp::BitXor, var(a), var(b)),
                "and" => bin(BinOp::BitAnd, var(a), var(b)),
                "or" => bin(BinOp::BitOr, var(a), var(b)),
                _ => bin(BinOp::Mul, var(a), var(b)),
            };
            Ok(assign(d, value))
        }
    }
}

/// Lowers the comparisons `cmpw`, `cmpd`, `cmplw`, `cmpld` and their
/// immediate forms into the condition register field `crN` (`cr0` when
/// not given): the signed comparison, or for `cmpl*` the unsigned one
/// (sign bits flipped, then compared signed).
fn lower_compare(cx: &mut Ctx, mn0: &str, mn: &str, ops: &[Op], sp: Span) -> Result<Low, Error> {
    let (crname, ops) = if ops.len() == 3 {
        (ops[0].text.to_ascii_lowercase(), &ops[1..])
    } else {
        ("cr0".to_string(), ops)
    };
    if ops.len() != 2 || !crname.starts_with("cr") {
        return Err(cx.src.error(
            sp,
            format!(
                "`{mn0}` expects operands `[crN,]rA,{}`",
                if mn.ends_with('i') { "imm" } else { "rB" }
            ),
        ));
    }
    let c = cx.reg(&crname);
    let a = var(ppc_reg(cx, &ops[0])?);
    let b = if mn.ends_with('i') {
        ppc_imm(cx, &ops[1])?.1
    } else {
        var(ppc_reg(cx, &ops[1])?)
    };
    let value = if mn.starts_with("cmpl") {
        // Unsigned: flip the sign bit, then compare signed.
        let m = Expr::Const(cx.width.min());
        compare(bin(BinOp::BitXor, a, m.clone()), bin(BinOp::BitXor, b, m))
    } else {
        compare(a, b)
    };
    Ok(assign(c, value))
}

/// Lowers the conditional branches `beq`, `bne`, `blt`, `bgt`, `ble`,
/// `bge` on the condition register field `crN` (`cr0` when not given).
fn lower_cond_branch(
    cx: &mut Ctx,
    mn0: &str,
    mn: &str,
    ops: &[Op],
    sp: Span,
) -> Result<Low, Error> {
    let (crname, target) = match ops.len() {
        1 => ("cr0".to_string(), &ops[0]),
        2 => (ops[0].text.to_ascii_lowercase(), &ops[1]),
        _ => return Err(cx.src.error(sp, format!("`{mn0}` expects `[crN,]label`"))),
    };
    if !crname.starts_with("cr") || !is_name(target.text) {
        return Err(cx.src.error(sp, format!("`{mn0}` expects `[crN,]label`")));
    }
    let c = var(cx.reg(&crname));
    let op = match mn {
        "beq" => BinOp::Eq,
        "bne" => BinOp::Ne,
        "blt" => BinOp::Lt,
        "bgt" => BinOp::Gt,
        "ble" => BinOp::Le,
        _ => BinOp::Ge,
    };
    Ok(Low::Jump(
        Some(bin(op, c, Expr::Const(0))),
        target.text.to_string(),
        target.span,
    ))
}

/// Lowers the displacement loads `lwz`, `ld`, `lwa` and stores `stw`,
/// `std` (`rX,d(rA)` or the old `rX,d,rA`).
fn lower_disp_access(
    cx: &mut Ctx,
    mn0: &str,
    mn: &str,
    ops: &[Op],
    sp: Span,
) -> Result<Low, Error> {
    let load = mn.starts_with('l');
    if ops.is_empty() {
        let form = if load { "rD,d(rA)" } else { "rS,d(rA)" };
        return Err(cx.src.error(sp, format!("`{mn0}` expects `{form}`")));
    }
    let x = ppc_reg(cx, &ops[0])?;
    let addr = ppc_disp_addr(cx, ops, mn0, sp)?;
    if load {
        let mut cmds = vec![Command::Load { reg: x, addr }];
        cmds.extend(word_load(cx, mn, x));
        return Ok(Low::Cmds(cmds));
    }
    Ok(Low::Cmds(vec![Command::Store {
        addr,
        value: var(x),
    }]))
}

/// Lowers the indexed forms `rX,rA,rB` (address `rA + rB`): the loads
/// `lwzx`, `lwax`, `ldx`, the stores `stwx`, `stdx`, the load-reserves
/// `lwarx`, `ldarx` and the store-conditionals `stwcx.`, `stdcx.` (which
/// set `cr0` to "equal", 0, on success, dependent on the stored value,
/// the address and the reservation's address, as herd's).
fn lower_indexed_access(
    cx: &mut Ctx,
    mn0: &str,
    mn: &str,
    ops: &[Op],
    sp: Span,
) -> Result<Low, Error> {
    arity(cx, mn0, ops, 3, sp)?;
    let x = ppc_reg(cx, &ops[0])?;
    let a = base_reg(cx, &ops[1])?;
    let b = ppc_reg(cx, &ops[2])?;
    let addr = bin(BinOp::Add, base_val(a), var(b));
    Ok(Low::Cmds(match mn {
        "lwzx" | "lwax" | "ldx" => {
            let mut cmds = vec![Command::Load { reg: x, addr }];
            cmds.extend(word_load(cx, mn, x));
            cmds
        }
        "stwx" | "stdx" => vec![Command::Store {
            addr,
            value: var(x),
        }],
        "lwarx" | "ldarx" => {
            // herd's lwarx also writes the reservation address (its
            // register RESADDR), which the stwcx. reads: see below.
            let res = cx.reg("#resaddr");
            vec![
                Command::Assign {
                    reg: res,
                    value: addr.clone(),
                },
                Command::LoadReserve { reg: x, addr },
            ]
        }
        _ => {
            // stwcx. sets cr0 to "equal" (0) on success. herd's stwcx.
            // writes CR0 after reading rS, rA, rB and the reservation
            // address RESADDR (PPCSem: the success choice is bound after
            // those register reads), so a branch on cr0 depends on the
            // reads that fed them: `r ^ r` terms, 0 in value, carry that
            // dependency (herd7 7.58, ppc.cat: LB with a data dependency
            // into a stwcx., a bne on its cr0, then a store, is Never; so
            // is MP with an address dependency into the lwarx, a bne on
            // the stwcx.'s cr0, isync, then a load).
            let flag = cx.reg("#stcx");
            let c = cx.reg("cr0");
            let res = cx.reg("#resaddr");
            let operands = [Some(x), a, Some(b), Some(res)]
                .into_iter()
                .flatten()
                .map(|r| bin(BinOp::BitXor, var(r), var(r)))
                .reduce(|p, q| bin(BinOp::BitOr, p, q))
                .unwrap_or(Expr::Const(0));
            vec![
                Command::StoreCond {
                    addr,
                    value: var(x),
                    flag,
                },
                Command::Assign {
                    reg: c,
                    value: bin(
                        BinOp::BitOr,
                        bin(BinOp::Eq, var(flag), Expr::Const(0)),
                        operands,
                    ),
                },
            ]
        }
    }))
}

/// After a word load into `d` (`lwz`, `lwzx`: zero-extending; `lwa`,
/// `lwax`: sign-extending) of a test where that matters
/// ([`Ctx::word_loads_extend`]): `d := ext32(d)`. Power ISA 3.0 B, "Load
/// Word and Zero", "Load Word Algebraic".
fn word_load(cx: &mut Ctx, mn: &str, d: RegId) -> Option<Command> {
    if mn.starts_with("ld") || !cx.word_loads_extend() {
        return None;
    }
    let value = ext32(cx, var(d), mn.starts_with("lwa"));
    Some(Command::Assign { reg: d, value })
}
