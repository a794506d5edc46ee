//! AArch64 instructions → IR commands: `LDR`/`STR` (W and X registers,
//! `[Xn]`, `[Xn,#0]`, `[Xn,Xm]`, `[Xn,Wm,SXTW]`), the acquire/release
//! forms `LDAR`, `LDAPR`, `STLR`, the exclusives `LDXR`/`LDAXR`/`STXR`/
//! `STLXR` (load-reserve / store-conditional with the status register
//! 0 on success), the LSE atomics `SWP`, `CAS`, `LDADD`, `LDCLR`,
//! `LDEOR`, `LDSET` (and `STADD`, …) with their `A`/`L`/`AL` variants,
//! `MOV`/`MOVZ`/`MOVK`/`MVN`, `ADD`/`SUB`/`EOR`/`EON`/`AND`/`ORR` (and
//! the flag-setting `ADDS`/`SUBS`/`CMP`/`CMN`/`TST`) with shifted or
//! extended register operands, `LSL`/`LSR`/`ASR`, `MADD`/`MSUB`/`MUL`/`MNEG`, the
//! bitfield moves `UBFM`/`SBFM` and their aliases `UBFX`/`SBFX`/`UBFIZ`/
//! `SBFIZ`/`UXTB`/`UXTH`/`SXTB`/`SXTH`/`SXTW`, `EXTR` and `ROR`
//! (immediate), `LDUR`/`STUR` (as `LDR`/`STR`), the byte and half-word
//! loads and stores (`LDRB`, `LDRSH`, `STRH`, `LDARB`, `STLXRH`, …: the
//! low bits of the location's cell; sizes checked in `Variant=mixed`),
//! post-indexed `LDR`/`STR`, the ordered pairs `STILP`/`LDIAPP` (on
//! arrays), the conditional
//! selects `CSEL`/`CSINC`/`CSINV`/`CSNEG`/`CSET`, branches `B`,
//! `B.cond`, `CBZ`, `CBNZ`, `TBZ`, `TBNZ`, calls and returns `BL`, `BLR`,
//! `BR`, `RET` with code addresses (`ADR`, labels as values), and the
//! barriers `DMB`,
//! `DSB`, `ISB`.
//!
//! Data flows through registers as written (`EOR W2,W0,W0` keeps W0's
//! dependency, as herd computes dependencies); the flags are two
//! pseudo-registers (the compared operands), so a `B.cond` depending on
//! a loaded value is a control dependency, and a `CSEL` gives its result
//! the dependencies of the selected register and *pick* dependencies
//! (Arm ARM B2.3.2) on the flags' reads ([`Command::Select`]). A
//! compare-and-swap's comparison creates no control dependency
//! ([`Command::Guard`]); a successful one writes Rt's value picked by the
//! comparison (pick data dependencies on its read and on Rs) and leaves
//! Rs picked by it, a failing one gives Rs the read's value (data). W and X views of a register are
//! one register (`X3` in states), values are at most the `--width`.
//!
//! Instruction semantics: Arm Architecture Reference Manual for A-profile
//! (DDI 0487), C6 "A64 Base Instruction Descriptions" (each instruction
//! above) and B2.3 "Definition of the Arm memory model" (acquire,
//! acquirePC, release, exclusives, atomics, barriers, dependencies). The
//! instruction forms are those of herd's AArch64 litmus tests (herdtools7
//! documentation, <http://diy.inria.fr/doc/litmus.html>).

use super::ctx::Ctx;
use super::ops::{
    arity, bin, is_name, min_max, mnemonic, refuse, shl, shr, split_ops, ult, CallTarget, Low, Op,
};
use crate::diag::{Error, Span};
use crate::frontend::litmus::parse_int;
use crate::program::{Ann, BinOp, Command, Expr, Fence, LExpr, RegId, UnOp};

/// A register operand: `Wn`, `Xn` (n ≤ 30), `WZR`/`XZR` (None: the zero
/// register), or a symbolic `%name`.
fn reg_opt(cx: &mut Ctx, op: &Op) -> Result<Option<RegId>, Error> {
    let t = op.text;
    let u = t.to_ascii_uppercase();
    if u == "WZR" || u == "XZR" {
        return Ok(None);
    }
    // The stack pointer is an ordinary register here (herd tests only use
    // it as a base address set in the init block).
    if u == "SP" || u == "WSP" {
        return Ok(Some(cx.reg("SP")));
    }
    if let Some(s) = t.strip_prefix('%') {
        if is_name(s) {
            return Ok(Some(cx.reg(t)));
        }
    }
    let num = u
        .strip_prefix('W')
        .or_else(|| u.strip_prefix('X'))
        .and_then(|d| d.parse::<u32>().ok())
        .filter(|n| *n <= 30);
    match num {
        Some(n) => Ok(Some(cx.reg(&format!("X{n}")))),
        None => Err(cx.src.error(
            op.span,
            format!("expected an AArch64 register, found `{t}`"),
        )),
    }
}

/// A register read as a value (the zero register reads 0).
fn rval(cx: &mut Ctx, op: &Op) -> Result<LExpr, Error> {
    Ok(match reg_opt(cx, op)? {
        Some(r) => Expr::Var(r),
        None => Expr::Const(0),
    })
}

/// `#imm` or a register.
fn operand(cx: &mut Ctx, op: &Op) -> Result<LExpr, Error> {
    if let Some(i) = op.text.strip_prefix('#') {
        return match parse_int(i) {
            Some(v) => cx.int(v, op.span),
            None => Err(cx.src.error(
                op.span,
                format!("expected an immediate, found `{}`", op.text),
            )),
        };
    }
    if parse_int(op.text).is_some() {
        return cx.int(parse_int(op.text).unwrap_or(0), op.span);
    }
    rval(cx, op)
}

/// `[Xn]`, `[Xn,#0]`, `[Xn,Xm]`, `[Xn,Wm,SXTW]` / `UXTW` / `LSL #0`: the
/// address expression.
fn mem_addr(cx: &mut Ctx, op: &Op) -> Result<LExpr, Error> {
    let t = op.text;
    let inner = t
        .strip_prefix('[')
        .and_then(|s| s.strip_suffix(']'))
        .ok_or_else(|| {
            cx.src.error(
                op.span,
                format!("expected a memory operand `[Xn…]`, found `{t}`"),
            )
        })?;
    let parts = split_ops(inner, op.span.start + 1);
    if parts.is_empty() {
        return Err(cx.src.error(op.span, "empty memory operand"));
    }
    let base = rval(cx, &parts[0])?;
    let mut addr = base;
    if let Some(p) = parts.get(1) {
        if let Some(i) = p.text.strip_prefix('#') {
            match parse_int(i) {
                Some(0) => {}
                // A byte offset into an array of the init block (elements
                // are at their byte addresses; docs/litmus.md).
                // In herd's mixed-size variant any byte offset.
                // Outside it, a byte offset into a scalar is a mixed-size
                // access (herd7 without `-variant mixed` rejects the test):
                // the test is read again in the variant.
                Some(k) if k > 0 => {
                    if !(cx.vars.mixed || !cx.vars.arrays.is_empty() && k % 4 == 0) {
                        cx.vars.mixed_needed = true;
                    }
                    addr = Expr::bin(BinOp::Add, addr, cx.int(k, p.span)?);
                }
                _ => {
                    return Err(refuse(
                        cx,
                        "immediate offset",
                        "memory cells are not byte-addressed",
                        p.span,
                    ))
                }
            }
        } else {
            let off = rval(cx, p)?;
            if let Some(ext) = parts.get(2) {
                let e = ext.text.to_ascii_uppercase();
                let ok = matches!(e.as_str(), "SXTW" | "UXTW" | "SXTX" | "UXTX")
                    || matches!(
                        e.split_whitespace().collect::<Vec<_>>()[..],
                        ["LSL", "#0" | "0"]
                    );
                if !ok {
                    return Err(refuse(
                        cx,
                        "scaled index",
                        "memory cells are not byte-addressed",
                        ext.span,
                    ));
                }
            }
            addr = bin(BinOp::Add, addr, off);
        }
    }
    if parts.len() > 3 {
        return Err(cx.src.error(op.span, format!("bad memory operand `{t}`")));
    }
    Ok(addr)
}

/// The flags pseudo-registers: `#nzcv.a` and `#nzcv.b` hold two values
/// whose difference is the result of the last flag-setting instruction
/// (its N and Z), `#nzcv.c` and `#nzcv.v` its carry and overflow (0/1).
fn flags(cx: &mut Ctx) -> [RegId; 4] {
    [
        cx.reg("#nzcv.a"),
        cx.reg("#nzcv.b"),
        cx.reg("#nzcv.c"),
        cx.reg("#nzcv.v"),
    ]
}

/// `e < 0` (the sign bit of `e`), 0 or 1.
fn neg(e: LExpr) -> LExpr {
    bin(BinOp::Lt, e, Expr::Const(0))
}

/// The condition `cond` (EQ, NE, …) on the flags, as an expression that
/// is ≠ 0 when it holds (Arm ARM C1.2.4, "Condition code": N, Z, C, V).
fn condition(cx: &mut Ctx, cond: &str, span: Span) -> Result<LExpr, Error> {
    let [fa, fb, fc, fv] = flags(cx);
    let (a, b) = (Expr::Var(fa), Expr::Var(fb));
    let n = || neg(bin(BinOp::Sub, Expr::Var(fa), Expr::Var(fb)));
    let z = || bin(BinOp::Eq, Expr::Var(fa), Expr::Var(fb));
    let c = || bin(BinOp::Ne, Expr::Var(fc), Expr::Const(0));
    let v = || bin(BinOp::Ne, Expr::Var(fv), Expr::Const(0));
    let not = |e| Expr::un(UnOp::Not, e);
    // N = V (signed ≥ of the last compare, overflow included).
    let ge = || bin(BinOp::Eq, n(), v());
    Ok(match cond.to_ascii_uppercase().as_str() {
        "EQ" => bin(BinOp::Eq, a, b),
        "NE" => bin(BinOp::Ne, a, b),
        "GE" => ge(),
        "LT" => not(ge()),
        "GT" => bin(BinOp::And, not(z()), ge()),
        "LE" => bin(BinOp::Or, z(), not(ge())),
        "HI" => bin(BinOp::And, c(), not(z())),
        "LS" => bin(BinOp::Or, not(c()), z()),
        "CS" | "HS" => c(),
        "CC" | "LO" => not(c()),
        "MI" => n(),
        "PL" => not(n()),
        "VS" => v(),
        "VC" => not(v()),
        "AL" | "NV" => Expr::Const(1),
        other => {
            return Err(cx
                .src
                .error(span, format!("unknown condition code `{other}`")))
        }
    })
}

/// What a flag-setting instruction computes (Arm ARM C6, `ADDS`, `SUBS`,
/// `ANDS`; the pseudocode `AddWithCarry`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum FlagOp {
    /// `a + b` (ADDS, CMN).
    Add,
    /// `a - b` (SUBS, CMP): `a + ~b + 1`.
    Sub,
    /// `a & b` (ANDS, TST): C = V = 0.
    And,
}

/// Sets the four flags from `a op b`, at the width the test runs at: N
/// and Z from the result; for `Add` C is the unsigned carry (result
/// unsigned-below `a`) and V the signed overflow (operands of one sign, the
/// result of the other); for `Sub` C is "no borrow" (`a ≥ b` unsigned)
/// and V the overflow of the subtraction; `And` clears C and V.
fn set_flags(cx: &mut Ctx, op: FlagOp, a: LExpr, b: LExpr) -> Vec<Command> {
    let [fa, fb, fc, fv] = flags(cx);
    let (x, y, c, v) = match op {
        FlagOp::Sub => {
            let r = bin(BinOp::Sub, a.clone(), b.clone());
            let c = Expr::un(UnOp::Not, ult(&a, &b));
            let v = neg(bin(
                BinOp::BitAnd,
                bin(BinOp::BitXor, a.clone(), b.clone()),
                bin(BinOp::BitXor, a.clone(), r),
            ));
            (a, b, c, v)
        }
        FlagOp::Add => {
            let r = bin(BinOp::Add, a.clone(), b.clone());
            let c = ult(&r, &a);
            let v = neg(bin(
                BinOp::BitAnd,
                bin(BinOp::BitXor, a.clone(), r.clone()),
                bin(BinOp::BitXor, b.clone(), r),
            ));
            // a - (-b) = a + b at every width (negation wraps).
            (a, Expr::un(UnOp::Neg, b), c, v)
        }
        FlagOp::And => (
            bin(BinOp::BitAnd, a, b),
            Expr::Const(0),
            Expr::Const(0),
            Expr::Const(0),
        ),
    };
    vec![
        Command::Assign { reg: fc, value: c },
        Command::Assign { reg: fv, value: v },
        Command::Assign { reg: fa, value: x },
        Command::Assign { reg: fb, value: y },
    ]
}

fn assign(d: Option<RegId>, value: LExpr) -> Vec<Command> {
    match d {
        Some(reg) => vec![Command::Assign { reg, value }],
        None => Vec::new(),
    }
}

/// `~x` as `-x - 1`.
fn not(x: LExpr) -> LExpr {
    bin(BinOp::Sub, Expr::un(UnOp::Neg, x), Expr::Const(1))
}

/// A shift amount `#k` (or `k`), 0 ≤ k < 63.
fn amount(cx: &Ctx, text: &str, span: Span) -> Result<u32, Error> {
    let t = text.trim();
    parse_int(t.strip_prefix('#').unwrap_or(t))
        .filter(|k| (0..63).contains(k))
        .map(|k| k as u32)
        .ok_or_else(|| {
            cx.src
                .error(span, format!("expected a shift amount `#n`, found `{t}`"))
        })
}

/// The shifted or extended register operand `v, op` (of a `ds`-bit
/// register) of the data-processing
/// instructions: `LSL #k`, `LSR #k` (logical: the `UBFM` alias, exact at
/// `ds` bits), `ASR #k`, `SXTB`/`UXTB`/`SXTH`/`UXTH`
/// (sign/zero extension of the low byte/half-word), `SXTW`/`UXTW`/`SXTX`/
/// `UXTX` (no change: values fit the width), each extension with an
/// optional left shift (Arm ARM C6, "ADD (shifted register)", "ADD
/// (extended register)").
fn shifted(cx: &mut Ctx, v: LExpr, op: &Op, ds: u32) -> Result<LExpr, Error> {
    let t = op.text.trim();
    let (kind, rest) = t.split_once(char::is_whitespace).unwrap_or((t, ""));
    let kind = kind.to_ascii_uppercase();
    let k = if rest.trim().is_empty() {
        0
    } else {
        amount(cx, rest, op.span)?
    };
    match kind.as_str() {
        "LSL" => shl(cx, v, k, op.span),
        "LSR" => lsr(cx, v, k, ds, op.span),
        "ASR" => shr(cx, v, k, op.span),
        "SXTB" | "UXTB" | "SXTH" | "UXTH" => {
            let bits = if kind.ends_with('B') { 8 } else { 16 };
            let mask = cx.int((1i64 << bits) - 1, op.span)?;
            let low = bin(BinOp::BitAnd, v, mask);
            let e = if kind.starts_with('S') {
                let top = cx.int(1i64 << (bits - 1), op.span)?;
                bin(BinOp::Sub, bin(BinOp::BitXor, low, top.clone()), top)
            } else {
                low
            };
            shl(cx, e, k, op.span)
        }
        "SXTW" | "UXTW" | "SXTX" | "UXTX" => shl(cx, v, k, op.span),
        _ => Err(cx.src.error(
            op.span,
            format!(
                "expected a shift (`LSL #n`, `ASR #n`, …) or an extension (`SXTW`, …), found `{t}`"
            ),
        )),
    }
}

/// `#n` (or `n`) with 0 ≤ n < `limit`.
fn imm_below(cx: &Ctx, op: &Op, limit: u32) -> Result<u32, Error> {
    let t = op.text.trim();
    parse_int(t.strip_prefix('#').unwrap_or(t))
        .filter(|k| (0..i64::from(limit)).contains(k))
        .map(|k| k as u32)
        .ok_or_else(|| {
            cx.src.error(
                op.span,
                format!("expected an immediate `#n` with 0 ≤ n < {limit}, found `{t}`"),
            )
        })
}

/// The bitfield move `UBFM`/`SBFM Rd, Rn, #immr, #imms` at `ds` bits (32
/// for W registers, 64 for X) on the value `v` of Rn (Arm ARM C6.2,
/// "UBFM", "SBFM"): when imms ≥ immr, bits imms..immr of Rn go to the
/// bottom of Rd (`UBFX`, `LSR`); otherwise bits imms..0 go to bit
/// ds − immr upwards (`UBFIZ`, `LSL`); the rest of Rd is zero (UBFM) or
/// copies of the field's top bit (SBFM). A W result is zero-extended.
fn bitfield(
    cx: &mut Ctx,
    signed: bool,
    v: LExpr,
    immr: u32,
    imms: u32,
    ds: u32,
    span: Span,
) -> Result<LExpr, Error> {
    // The field: `f` bits taken from bit `lo` of Rn, put at bit `at`.
    let (lo, f, at) = if imms >= immr {
        (immr, imms - immr + 1, 0)
    } else {
        (0, imms + 1, ds - immr)
    };
    let x = shr(cx, v, lo, span)?;
    let field = if f >= 64 {
        x
    } else {
        let m = cx.int((1i64 << f) - 1, span)?;
        let low = bin(BinOp::BitAnd, x, m);
        if signed {
            // Sign extension from bit f-1: (low ^ top) - top.
            let top = cx.int(1i64 << (f - 1), span)?;
            bin(BinOp::Sub, bin(BinOp::BitXor, low, top.clone()), top)
        } else {
            low
        }
    };
    let r = shl(cx, field, at, span)?;
    Ok(if ds == 32 {
        super::ops::ext32(cx, r, false)
    } else {
        r
    })
}

/// The logical shift right `LSR #k` of the `ds`-bit value `v`: the alias
/// `UBFM Rd, Rn, #k, #(ds-1)` (Arm ARM C6.2, "LSR (immediate)"), so a
/// negative (top-bit-set) value shifts in zeros; `k` ≥ `ds` (not
/// encodable) keeps the arithmetic shift.
fn lsr(cx: &mut Ctx, v: LExpr, k: u32, ds: u32, span: Span) -> Result<LExpr, Error> {
    if k == 0 || k >= ds {
        return shr(cx, v, k, span);
    }
    bitfield(cx, false, v, k, ds - 1, ds, span)
}

/// `EXTR Rd, Rn, Rm, #lsb` at `ds` bits on the values `hi` of Rn and `lo`
/// of Rm (Arm ARM C6.2, "EXTR": `result = (Rn:Rm)<lsb+datasize-1:lsb>`):
/// bits ds−1..lsb of Rm at the bottom, bits lsb−1..0 of Rn above them —
/// the two bitfield moves `UBFX Rm, #lsb, #(ds−lsb)` and `UBFIZ Rn,
/// #(ds−lsb), #lsb` ORed, so the logical shift is exact at `ds` bits. `ROR
/// Rd, Rs, #k` is `EXTR Rd, Rs, Rs, #k` (Arm ARM, "ROR (immediate)").
fn extract(
    cx: &mut Ctx,
    hi: LExpr,
    lo: LExpr,
    lsb: u32,
    ds: u32,
    span: Span,
) -> Result<LExpr, Error> {
    if lsb == 0 {
        return bitfield(cx, false, lo, 0, ds - 1, ds, span);
    }
    let low = bitfield(cx, false, lo, lsb, ds - 1, ds, span)?;
    let high = bitfield(cx, false, hi, lsb, lsb - 1, ds, span)?;
    Ok(bin(BinOp::BitOr, low, high))
}

/// The data size of a register operand: 32 for `Wn`/`WZR`, else 64.
fn size_of(op: &Op) -> u32 {
    if op.text.starts_with(['W', 'w']) {
        32
    } else {
        64
    }
}

/// The byte (`B`), half-word (`H`) and sign-extending (`LDRSB`, `LDRSH`,
/// `LDRSW`) forms of the loads and stores (Arm ARM C6.2, "LDRB", "LDRSH",
/// "STRH", "LDARB", "LDXRH", …): (the mnemonic of the register-sized
/// form, the bits accessed, whether a load sign-extends).
fn sized_form(mn: &str) -> Option<(&str, u32, bool)> {
    if let Some(k) = mn.strip_prefix("LDRS") {
        let bits = match k {
            "B" => 8,
            "H" => 16,
            "W" => 32,
            _ => return None,
        };
        return Some(("LDR", bits, true));
    }
    let (base, bits) = match mn.as_bytes().last() {
        Some(b'B') => (&mn[..mn.len() - 1], 8),
        Some(b'H') => (&mn[..mn.len() - 1], 16),
        _ => return None,
    };
    matches!(
        base,
        "LDR" | "LDAR" | "LDAPR" | "LDXR" | "LDAXR" | "STR" | "STLR" | "STXR" | "STLXR"
    )
    .then_some((base, bits, false))
}

/// The value a load of `bits` bits puts in a `ds`-bit register from the
/// value `v` read: its low `bits` bits zero- or sign-extended (`signed`) to
/// the register, a W register then zero-extended to 64 bits (Arm ARM C6.2,
/// "LDRB": `ZeroExtend(data, regsize)`, "LDRSH": `SignExtend(data,
/// regsize)`). A sign-extending load into a W register makes the test
/// run at 64 bits, where the zero-extension shows (`0:X4=4294967295`).
fn extend(
    cx: &mut Ctx,
    v: LExpr,
    bits: u32,
    signed: bool,
    ds: u32,
    sp: Span,
) -> Result<LExpr, Error> {
    if signed && ds == 32 {
        cx.vars.min_width = cx.vars.min_width.max(64);
    }
    if bits >= ds {
        // A W destination: the word read, zero-extended (shows in a test
        // with a register typed wider than 32 bits: `Vars::result32`).
        if ds == 32 {
            cx.vars.result32();
            return Ok(super::ops::ext32(cx, v, false));
        }
        return Ok(v);
    }
    bitfield(cx, signed, v, 0, bits - 1, ds, sp)
}

/// The value a store of `bits` bits (None: the register's size, `ds`)
/// writes: the low `bits` bits of `v` (Arm ARM C6.2, "STRB": `data =
/// X[t]<7:0>`; a W register's low 32 bits in a test that runs at 64
/// bits), as herd writes it into the location's cell.
fn truncate(cx: &mut Ctx, v: LExpr, bits: Option<u32>, ds: u32, sp: Span) -> Result<LExpr, Error> {
    match bits.unwrap_or(ds) {
        b if b < 32 => super::ops::low_bits(cx, v, b, false, sp),
        32 => {
            cx.vars.store32();
            Ok(super::ops::ext32(cx, v, false))
        }
        _ => Ok(v),
    }
}

/// The post-index update `[Xn], #imm` of a load or store: `Xn += imm`;
/// anything but an immediate is refused, located.
fn post_index(cx: &mut Ctx, mem: &Op, imm: &Op) -> Result<Vec<Command>, Error> {
    let inner = mem.text.trim_start_matches('[').trim_end_matches(']');
    let parts = split_ops(inner, mem.span.start + 1);
    let Some(base) = parts.first() else {
        return Err(cx.src.error(mem.span, "empty memory operand"));
    };
    let b = reg_opt(cx, base)?;
    // herd's grammar (and the Arm ARM's LDR/STR) takes an immediate here.
    if !imm.text.trim_start().starts_with('#') {
        return Err(cx.src.error(
            imm.span,
            format!(
                "post-index by `{}`: expected an immediate `#imm` (herd7 refuses a register too)",
                imm.text
            ),
        ));
    }
    let v = operand(cx, imm)?;
    Ok(assign(
        b,
        bin(BinOp::Add, b.map(Expr::Var).unwrap_or(Expr::Const(0)), v),
    ))
}

fn ann(bits: u16, c: Command) -> Command {
    if bits == 0 {
        c
    } else {
        Command::Ann(Ann(bits), Box::new(c))
    }
}

/// The acquire/release suffix of an atomic mnemonic after its base
/// (`""`, `"A"`, `"L"`, `"AL"`): (read annotation, write annotation).
fn al_suffix(s: &str) -> Option<(u16, u16)> {
    Some(match s {
        "" => (0, 0),
        "A" => (Ann::ACQ, 0),
        "L" => (0, Ann::REL),
        "AL" => (Ann::ACQ, Ann::REL),
        _ => return None,
    })
}

/// The unscaled-offset loads and stores `LDUR`, `STUR` and their byte,
/// half-word and sign-extending forms (`LDURB`, `LDURSH`, `STURH`, …) as
/// the register-sized `LDR`/`STR` forms: they access `Xn + imm` exactly as
/// `LDR Rt,[Xn,#imm]` does and differ only in the encoding of the offset
/// (a signed 9-bit byte offset instead of a scaled unsigned one; Arm ARM
/// C6.2, "LDUR", "STUR": `address = X[n] + offset`). Other mnemonics are
/// returned unchanged.
fn unscaled(mn: &str) -> String {
    match mn
        .strip_prefix("LDUR")
        .map(|r| ("LDR", r))
        .or_else(|| mn.strip_prefix("STUR").map(|r| ("STR", r)))
    {
        Some((base, r @ ("" | "B" | "H" | "SB" | "SH" | "SW")))
            if base == "LDR" || !r.starts_with('S') =>
        {
            format!("{base}{r}")
        }
        _ => mn.to_string(),
    }
}

/// Lowers one AArch64 instruction written at offset `base` of the source.
pub(super) fn lower_instr(cx: &mut Ctx, text: &str, base: usize) -> Result<Low, Error> {
    let lead = text.len() - text.trim_start().len();
    let (mn0, rest, mlen) = mnemonic(text);
    let sp = Span::new(base + lead, base + lead + mlen);
    let mn = unscaled(&mn0.to_ascii_uppercase());
    let ops = split_ops(rest, base + lead + mlen);
    // Barriers.
    if mn == "DMB" || mn == "DSB" {
        arity(cx, mn0, &ops, 1, sp)?;
        let o = ops[0].text.to_ascii_uppercase();
        let f = match o.as_str() {
            "SY" | "ISH" | "OSH" | "NSH" => Fence::Dmb,
            "LD" | "ISHLD" | "OSHLD" | "NSHLD" => Fence::DmbLd,
            "ST" | "ISHST" | "OSHST" | "NSHST" if mn == "DSB" => Fence::DsbSt,
            "ST" | "ISHST" | "OSHST" | "NSHST" => Fence::DmbSt,
            _ => {
                return Err(cx.src.error(
                    ops[0].span,
                    format!("unknown barrier option `{}`", ops[0].text),
                ))
            }
        };
        return Ok(Low::Cmds(vec![Command::Fence(f)]));
    }
    if let Some(c) = mn.strip_prefix("B.") {
        arity(cx, mn0, &ops, 1, sp)?;
        let cond = condition(cx, c, sp)?;
        return Ok(Low::Jump(Some(cond), ops[0].text.to_string(), ops[0].span));
    }
    // Byte, half-word and sign-extending forms of the loads and stores.
    let (mn, size, signed) = match sized_form(&mn) {
        Some((base, bits, signed)) => (base.to_string(), Some(bits), signed),
        None => (mn, None, false),
    };
    match mn.as_str() {
        "ISB" | "NOP" | "RET" | "BL" | "BLR" | "BR" | "ADR" | "B" | "CBZ" | "CBNZ" | "TBZ"
        | "TBNZ" => lower_control(cx, mn0, &mn, &ops, sp),
        "MOV" | "MOVZ" | "MOVK" | "LSL" | "LSR" | "ASR" | "EXTR" | "ROR" | "UBFM" | "SBFM"
        | "UBFX" | "SBFX" | "UBFIZ" | "SBFIZ" | "UXTB" | "UXTH" | "SXTB" | "SXTH" | "SXTW"
        | "MADD" | "MSUB" | "MUL" | "MNEG" | "MVN" => lower_bits(cx, mn0, &mn, &ops, sp),
        "ADD" | "SUB" | "EOR" | "EON" | "AND" | "ORR" | "ADDS" | "SUBS" | "ANDS" | "CMP"
        | "CMN" | "TST" | "CSEL" | "CSINC" | "CSINV" | "CSNEG" | "CSET" | "CSETM" => {
            lower_arith(cx, mn0, &mn, &ops, sp)
        }
        "LDR" | "LDAR" | "LDAPR" | "LDXR" | "LDAXR" | "STR" | "STLR" | "STXR" | "STLXR" => {
            lower_load_store(cx, mn0, &mn, size, signed, &ops, sp)
        }
        "STILP" | "LDIAPP" | "LDP" | "STP" | "LDXP" | "STXP" | "LDAXP" | "STLXP" | "DC" | "IC"
        | "TLBI" => lower_pair(cx, mn0, &mn, &ops, sp),
        _ => lower_atomic(cx, mn0, &mn, &ops, sp),
    }
}

/// Branches, calls, returns, `ADR`, `ISB` and `NOP`.
fn lower_control(cx: &mut Ctx, mn0: &str, mn: &str, ops: &[Op], sp: Span) -> Result<Low, Error> {
    match mn {
        "ISB" => {
            arity(cx, mn0, ops, 0, sp)?;
            Ok(Low::Cmds(vec![Command::Fence(Fence::Isb)]))
        }
        "NOP" => Ok(Low::Cmds(vec![Command::Nop])),
        "RET" => {
            // `RET` returns through X30, `RET Xn` through Xn.
            let r = match ops.first() {
                Some(o) => reg_opt(cx, o)?,
                None => Some(cx.reg("X30")),
            };
            Ok(match r {
                Some(r) => Low::RetVia(r),
                None => Low::Ret,
            })
        }
        "BL" => {
            arity(cx, mn0, ops, 1, sp)?;
            let lr = cx.reg("X30");
            Ok(Low::Call(
                lr,
                CallTarget::Label(ops[0].text.to_string(), ops[0].span),
            ))
        }
        "BLR" | "BR" => {
            arity(cx, mn0, ops, 1, sp)?;
            let t = rval(cx, &ops[0])?;
            Ok(if mn == "BLR" {
                Low::Call(cx.reg("X30"), CallTarget::Reg(t))
            } else {
                Low::JumpReg(t)
            })
        }
        "ADR" => {
            arity(cx, mn0, ops, 2, sp)?;
            let d = reg_opt(cx, &ops[0])?;
            let l = ops[1].text;
            let a = cx
                .vars
                .code
                .label_addr(cx.seg, l)
                .ok_or_else(|| cx.src.error(ops[1].span, format!("undefined label `{l}`")))?;
            let v = cx.int(a, ops[1].span)?;
            Ok(Low::Cmds(assign(d, v)))
        }
        "B" => {
            arity(cx, mn0, ops, 1, sp)?;
            Ok(Low::Jump(None, ops[0].text.to_string(), ops[0].span))
        }
        "CBZ" | "CBNZ" => {
            arity(cx, mn0, ops, 2, sp)?;
            let r = rval(cx, &ops[0])?;
            let op = if mn == "CBZ" { BinOp::Eq } else { BinOp::Ne };
            Ok(Low::Jump(
                Some(bin(op, r, Expr::Const(0))),
                ops[1].text.to_string(),
                ops[1].span,
            ))
        }
        "TBZ" | "TBNZ" => {
            arity(cx, mn0, ops, 3, sp)?;
            let r = rval(cx, &ops[0])?;
            let bit = ops[1]
                .text
                .strip_prefix('#')
                .and_then(parse_int)
                .filter(|b| (0..63).contains(b) && (*b as u32) < cx.width.0)
                .ok_or_else(|| {
                    cx.src
                        .error(ops[1].span, "expected a bit number `#n` below the width")
                })?;
            let m = Expr::Const(cx.width.wrap(1i64 << bit));
            let t = bin(BinOp::BitAnd, r, m);
            let op = if mn == "TBZ" { BinOp::Eq } else { BinOp::Ne };
            Ok(Low::Jump(
                Some(bin(op, t, Expr::Const(0))),
                ops[2].text.to_string(),
                ops[2].span,
            ))
        }
        _ => Err(super::ops::unsupported(cx, mn0, sp)),
    }
}

/// Moves, shifts, bitfield moves, extensions, multiplications and `MVN`.
fn lower_bits(cx: &mut Ctx, mn0: &str, mn: &str, ops: &[Op], sp: Span) -> Result<Low, Error> {
    let n = ops.len();
    match mn {
        "MOV" | "MOVZ" | "MOVK" => {
            if !(n == 3 && mn != "MOV") {
                arity(cx, mn0, ops, 2, sp)?;
            }
            let d = reg_opt(cx, &ops[0])?;
            let imm = operand(cx, &ops[1])?;
            let k = match ops.get(2) {
                Some(o) => match o.text.trim().split_once(char::is_whitespace) {
                    Some((l, a)) if l.eq_ignore_ascii_case("LSL") => amount(cx, a, o.span)?,
                    _ => return Err(cx.src.error(o.span, "expected `LSL #n`")),
                },
                None => 0,
            };
            let v = shl(cx, imm, k, sp)?;
            if mn != "MOVK" {
                return Ok(Low::Cmds(assign(d, v)));
            }
            // MOVK keeps the other bits: d - (d & (0xffff << k)) + (imm << k).
            let Some(r) = d else {
                return Ok(Low::Cmds(Vec::new()));
            };
            let field = cx.int(0xffffi64 << k, sp)?;
            let old = bin(BinOp::BitAnd, Expr::Var(r), field);
            Ok(Low::Cmds(assign(
                d,
                bin(BinOp::Add, bin(BinOp::Sub, Expr::Var(r), old), v),
            )))
        }
        "LSL" | "LSR" | "ASR" => {
            arity(cx, mn0, ops, 3, sp)?;
            let d = reg_opt(cx, &ops[0])?;
            let a = rval(cx, &ops[1])?;
            let k = amount(cx, ops[2].text, ops[2].span)?;
            let v = match mn {
                "LSL" => shl(cx, a, k, ops[2].span)?,
                "LSR" => lsr(cx, a, k, size_of(&ops[0]), ops[2].span)?,
                _ => shr(cx, a, k, ops[2].span)?,
            };
            Ok(Low::Cmds(assign(d, v)))
        }
        "EXTR" | "ROR" => {
            // EXTR Rd,Rn,Rm,#lsb; ROR Rd,Rs,#k is EXTR Rd,Rs,Rs,#k (the
            // register-amount ROR has no immediate: a located error).
            let extr = mn == "EXTR";
            arity(cx, mn0, ops, if extr { 4 } else { 3 }, sp)?;
            let d = reg_opt(cx, &ops[0])?;
            let ds = size_of(&ops[0]);
            let hi = rval(cx, &ops[1])?;
            let lo = rval(cx, &ops[if extr { 2 } else { 1 }])?;
            let amt = &ops[if extr { 3 } else { 2 }];
            if !extr && reg_opt(cx, amt).is_ok() {
                return Err(cx.src.error(
                    amt.span,
                    "unsupported AArch64 `ROR` by a register (no variable shifts; `ROR #n` is read)",
                ));
            }
            let lsb = imm_below(cx, amt, ds)?;
            let r = extract(cx, hi, lo, lsb, ds, sp)?;
            Ok(Low::Cmds(assign(d, r)))
        }
        "UBFM" | "SBFM" | "UBFX" | "SBFX" | "UBFIZ" | "SBFIZ" => {
            arity(cx, mn0, ops, 4, sp)?;
            let d = reg_opt(cx, &ops[0])?;
            let ds = size_of(&ops[0]);
            let v = rval(cx, &ops[1])?;
            let a = imm_below(cx, &ops[2], ds)?;
            let b = imm_below(cx, &ops[3], ds + 1)?;
            // The aliases (Arm ARM C6.2): UBFX/SBFX #lsb, #width; UBFIZ/SBFIZ
            // #lsb, #width.
            let (immr, imms) = match &mn[1..] {
                "BFM" => (a, b),
                "BFX" => (a, a + b.max(1) - 1),
                _ => ((ds - a) % ds, b.max(1) - 1),
            };
            let ok = match &mn[1..] {
                "BFM" => b < ds,
                _ => b >= 1 && a + b <= ds,
            };
            if !ok {
                return Err(cx.src.error(
                    ops[3].span,
                    format!("bitfield beyond the {ds}-bit register"),
                ));
            }
            let r = bitfield(cx, mn.starts_with('S'), v, immr, imms, ds, sp)?;
            Ok(Low::Cmds(assign(d, r)))
        }
        "UXTB" | "UXTH" | "SXTB" | "SXTH" | "SXTW" => {
            arity(cx, mn0, ops, 2, sp)?;
            let d = reg_opt(cx, &ops[0])?;
            let ds = size_of(&ops[0]);
            let v = rval(cx, &ops[1])?;
            let imms = match &mn[3..] {
                "B" => 7,
                "H" => 15,
                _ => 31,
            };
            let r = bitfield(cx, mn.starts_with('S'), v, 0, imms, ds, sp)?;
            Ok(Low::Cmds(assign(d, r)))
        }
        "MADD" | "MSUB" | "MUL" | "MNEG" => {
            // MUL Rd,Rn,Rm and MNEG Rd,Rn,Rm are MADD/MSUB Rd,Rn,Rm,ZR
            // (Arm ARM C6.2, "MUL", "MNEG": aliases).
            let alias = mn == "MUL" || mn == "MNEG";
            arity(cx, mn0, ops, if alias { 3 } else { 4 }, sp)?;
            let d = reg_opt(cx, &ops[0])?;
            let p = bin(BinOp::Mul, rval(cx, &ops[1])?, rval(cx, &ops[2])?);
            let a = if alias {
                Expr::Const(0)
            } else {
                rval(cx, &ops[3])?
            };
            let v = if mn == "MADD" || mn == "MUL" {
                bin(BinOp::Add, a, p)
            } else {
                bin(BinOp::Sub, a, p)
            };
            let v = if size_of(&ops[0]) == 32 {
                cx.vars.result32();
                super::ops::ext32(cx, v, false)
            } else {
                v
            };
            Ok(Low::Cmds(assign(d, v)))
        }
        "MVN" => {
            arity(cx, mn0, ops, 2, sp)?;
            let d = reg_opt(cx, &ops[0])?;
            let v = rval(cx, &ops[1])?;
            Ok(Low::Cmds(assign(d, not(v))))
        }
        _ => Err(super::ops::unsupported(cx, mn0, sp)),
    }
}

/// Additions and logical operations (and their flag-setting forms), compares and conditional selects.
fn lower_arith(cx: &mut Ctx, mn0: &str, mn: &str, ops: &[Op], sp: Span) -> Result<Low, Error> {
    let n = ops.len();
    match mn {
        "ADD" | "SUB" | "EOR" | "EON" | "AND" | "ORR" | "ADDS" | "SUBS" | "ANDS" => {
            if n != 4 {
                arity(cx, mn0, ops, 3, sp)?;
            }
            let d = reg_opt(cx, &ops[0])?;
            let a = rval(cx, &ops[1])?;
            let mut b = operand(cx, &ops[2])?;
            if let Some(sh) = ops.get(3) {
                b = shifted(cx, b, sh, size_of(&ops[2]))?;
            }
            let fl = match mn {
                "SUBS" => Some(FlagOp::Sub),
                "ADDS" => Some(FlagOp::Add),
                "ANDS" => Some(FlagOp::And),
                _ => None,
            };
            let (x, y) = (a.clone(), b.clone());
            let v = match mn.trim_end_matches('S') {
                "ADD" => bin(BinOp::Add, x, y),
                "SUB" => bin(BinOp::Sub, x, y),
                "EOR" => bin(BinOp::BitXor, x, y),
                "EON" => bin(BinOp::BitXor, x, not(y)),
                "AND" => bin(BinOp::BitAnd, x, y),
                _ => bin(BinOp::BitOr, x, y),
            };
            // A W destination keeps the low word, zero-extended.
            let v = if size_of(&ops[0]) == 32 {
                if fl.is_none() {
                    cx.vars.result32();
                }
                super::ops::ext32(cx, v, false)
            } else {
                v
            };
            // Flags first (the destination may be an operand).
            let mut cmds = Vec::new();
            if let Some(op) = fl {
                cmds.extend(set_flags(cx, op, a, b));
            }
            cmds.extend(assign(d, v));
            Ok(Low::Cmds(cmds))
        }
        "CMP" | "CMN" | "TST" => {
            if n != 3 {
                arity(cx, mn0, ops, 2, sp)?;
            }
            let a = rval(cx, &ops[0])?;
            let mut b = operand(cx, &ops[1])?;
            if let Some(sh) = ops.get(2) {
                b = shifted(cx, b, sh, size_of(&ops[1]))?;
            }
            let op = match mn {
                "CMP" => FlagOp::Sub,
                "CMN" => FlagOp::Add,
                _ => FlagOp::And,
            };
            Ok(Low::Cmds(set_flags(cx, op, a, b)))
        }
        "CSEL" | "CSINC" | "CSINV" | "CSNEG" => {
            arity(cx, mn0, ops, 4, sp)?;
            let d = reg_opt(cx, &ops[0])?;
            let a = rval(cx, &ops[1])?;
            let b = rval(cx, &ops[2])?;
            let cond = condition(cx, ops[3].text, ops[3].span)?;
            let b = match mn {
                "CSEL" => b,
                "CSINC" => bin(BinOp::Add, b, Expr::Const(1)),
                "CSINV" => not(b),
                _ => Expr::un(UnOp::Neg, b),
            };
            Ok(Low::Cmds(match d {
                Some(reg) => vec![Command::Select {
                    reg,
                    cond,
                    then: a,
                    else_: b,
                }],
                None => Vec::new(),
            }))
        }
        "CSET" | "CSETM" => {
            arity(cx, mn0, ops, 2, sp)?;
            let d = reg_opt(cx, &ops[0])?;
            let cond = condition(cx, ops[1].text, ops[1].span)?;
            let one = if mn == "CSET" { 1 } else { -1 };
            Ok(Low::Cmds(match d {
                Some(reg) => vec![Command::Select {
                    reg,
                    cond,
                    then: Expr::Const(one),
                    else_: Expr::Const(0),
                }],
                None => Vec::new(),
            }))
        }
        _ => Err(super::ops::unsupported(cx, mn0, sp)),
    }
}

/// Loads and stores (plain, acquire/release, exclusive; byte, half-word and sign-extending forms via `size`/`signed`).
fn lower_load_store(
    cx: &mut Ctx,
    mn0: &str,
    mn: &str,
    size: Option<u32>,
    signed: bool,
    ops: &[Op],
    sp: Span,
) -> Result<Low, Error> {
    let n = ops.len();
    let tmp = |cx: &mut Ctx| cx.reg("#tmp");
    match mn {
        "LDR" | "LDAR" | "LDAPR" | "LDXR" | "LDAXR" => {
            if !(n == 3 && mn == "LDR") {
                arity(cx, mn0, ops, 2, sp)?;
            }
            let d = reg_opt(cx, &ops[0])?;
            let addr = mem_addr(cx, &ops[1])?;
            let ds = size_of(&ops[0]);
            let bits = size.unwrap_or(ds);
            let a = match mn {
                "LDAR" | "LDAXR" => Ann::ACQ,
                "LDAPR" => Ann::ACQPC,
                _ => 0,
            };
            let exclusive = mn.contains('X');
            if matches!(mn, "LDAR" | "LDAPR") {
                cx.vars.access_ordered(&addr, bits, sp);
            } else if exclusive {
                cx.vars.access_exclusive(&addr, bits, sp);
            } else {
                cx.vars.access(&addr, bits, mn == "LDR", sp);
            }
            if cx.vars.split_spans.contains(&(sp.start, sp.end)) {
                // A byte-addressed location (herd's mixed-size variant).
                let reg = d.unwrap_or_else(|| tmp(cx));
                let mut cmds = if exclusive {
                    // One step: the bytes are one reservation.
                    one_step(super::ops::byte_load_reserve(cx, reg, &addr, bits / 8, a))
                } else {
                    super::ops::byte_load(cx, reg, &addr, bits / 8, a)
                };
                if let Some(bits) = size {
                    cmds.extend(assign(d, extend(cx, Expr::Var(reg), bits, signed, ds, sp)?));
                }
                if let Some(imm) = ops.get(2) {
                    cmds.extend(post_index(cx, &ops[1], imm)?);
                }
                return Ok(Low::Cmds(cmds));
            }
            let reg = d.unwrap_or_else(|| tmp(cx));
            let c = if mn.contains('X') {
                Command::LoadReserve { reg, addr }
            } else {
                Command::Load { reg, addr }
            };
            let mut cmds = vec![ann(a, c)];
            if let (Some(bits), Some(r)) = (size, d) {
                cmds.extend(assign(d, extend(cx, Expr::Var(r), bits, signed, ds, sp)?));
            } else if let (None, Some(r), 32) = (size, d, ds) {
                // A W load zero-extends the word read (Arm ARM C6.2, "LDR
                // (immediate)": `X[t] = ZeroExtend(data, regsize)`); it
                // shows only at 64 bits.
                cx.vars.result32();
                if cx.wide() {
                    cmds.extend(assign(d, extend(cx, Expr::Var(r), 32, false, 32, sp)?));
                }
            }
            if let Some(imm) = ops.get(2) {
                cmds.extend(post_index(cx, &ops[1], imm)?);
            }
            Ok(Low::Cmds(cmds))
        }
        "STR" | "STLR" => {
            if !(n == 3 && mn == "STR") {
                arity(cx, mn0, ops, 2, sp)?;
            }
            let v = rval(cx, &ops[0])?;
            let v = truncate(cx, v, size, size_of(&ops[0]), sp)?;
            let addr = mem_addr(cx, &ops[1])?;
            let bits = size.unwrap_or(size_of(&ops[0]));
            let a = if mn == "STLR" { Ann::REL } else { 0 };
            if a == 0 {
                cx.vars.access(&addr, bits, true, sp);
            } else {
                cx.vars.access_ordered(&addr, bits, sp);
            }
            let mut cmds = if cx.vars.split_spans.contains(&(sp.start, sp.end)) {
                // A byte-addressed location (herd's mixed-size variant).
                super::ops::byte_store(cx, &addr, &v, bits / 8, a)
            } else {
                vec![ann(a, Command::Store { addr, value: v })]
            };
            if let Some(imm) = ops.get(2) {
                cmds.extend(post_index(cx, &ops[1], imm)?);
            }
            Ok(Low::Cmds(cmds))
        }
        "STXR" | "STLXR" => {
            arity(cx, mn0, ops, 3, sp)?;
            let status = reg_opt(cx, &ops[0])?;
            let v = rval(cx, &ops[1])?;
            let v = truncate(cx, v, size, size_of(&ops[1]), sp)?;
            let addr = mem_addr(cx, &ops[2])?;
            let bits = size.unwrap_or(size_of(&ops[1]));
            cx.vars.access_exclusive(&addr, bits, sp);
            let flag = cx.reg("#stxr");
            // herd reads the stored register on no dependency port: no
            // data dependency into a store-exclusive (`nodata`).
            let a = Ann::NODATA | if mn == "STLXR" { Ann::REL } else { 0 };
            let mut cmds = if cx.vars.split_spans.contains(&(sp.start, sp.end)) {
                // A byte-addressed location (herd's mixed-size variant):
                // the bytes in one step, written together or not at all.
                one_step(super::ops::byte_store_cond(
                    cx,
                    &addr,
                    &v,
                    bits / 8,
                    a,
                    flag,
                ))
            } else {
                vec![ann(
                    a,
                    Command::StoreCond {
                        addr,
                        value: v,
                        flag,
                    },
                )]
            };
            // The status register is 0 on success, 1 on failure.
            cmds.extend(assign(
                status,
                bin(BinOp::Eq, Expr::Var(flag), Expr::Const(0)),
            ));
            Ok(Low::Cmds(cmds))
        }
        _ => Err(super::ops::unsupported(cx, mn0, sp)),
    }
}

/// The byte accesses of one exclusive access (`ops::byte_load_reserve`,
/// `ops::byte_store_cond`) as one step: an `Atomic` block of more than
/// one access (the engine pairs exclusives by reservation, not by the
/// block: `rmw` is herd's `lxsx`), else the commands as they are.
fn one_step(cmds: Vec<Command>) -> Vec<Command> {
    if cmds.iter().filter(|c| c.accesses_memory()).count() > 1 {
        vec![Command::Atomic(cmds)]
    } else {
        cmds
    }
}

/// The ordered pairs `STILP`/`LDIAPP`; the other pair instructions and cache/TLB maintenance are refused.
fn lower_pair(cx: &mut Ctx, mn0: &str, mn: &str, ops: &[Op], sp: Span) -> Result<Low, Error> {
    let tmp = |cx: &mut Ctx| cx.reg("#tmp");
    match mn {
        "STILP" | "LDIAPP" => {
            // Release / acquirePC ordered pairs (Arm ARM C6.2, FEAT_LRCPC3):
            // Rt at [Xn], Rt2 at the next element (+4 or +8 bytes), both
            // in one instruction (one atomic block: herd's sc orders
            // neither before the other) with the first element's access
            // ordered before the second's by the release / acquirePC of
            // each.
            arity(cx, mn0, ops, 3, sp)?;
            if cx.vars.arrays.is_empty() || ops[2].text.contains(',') {
                return Err(refuse(
                    cx,
                    &format!("`{mn0}` outside an array of the init block, or with an offset"),
                    "ldp/stp",
                    sp,
                ));
            }
            let bytes = if size_of(&ops[0]) == 32 { 4 } else { 8 };
            let a0 = mem_addr(cx, &ops[2])?;
            let a1 = bin(BinOp::Add, a0.clone(), cx.int(bytes, sp)?);
            cx.vars.access(&a0, bytes as u32 * 8, false, sp);
            cx.vars.access(&a1, bytes as u32 * 8, false, sp);
            let body = if mn == "STILP" {
                let (v0, v1) = (rval(cx, &ops[0])?, rval(cx, &ops[1])?);
                vec![
                    ann(
                        Ann::REL,
                        Command::Store {
                            addr: a0,
                            value: v0,
                        },
                    ),
                    ann(
                        Ann::REL,
                        Command::Store {
                            addr: a1,
                            value: v1,
                        },
                    ),
                ]
            } else {
                let r0 = reg_opt(cx, &ops[0])?.unwrap_or_else(|| tmp(cx));
                let r1 = reg_opt(cx, &ops[1])?.unwrap_or_else(|| tmp(cx));
                vec![
                    ann(Ann::ACQPC, Command::Load { reg: r0, addr: a0 }),
                    ann(Ann::ACQPC, Command::Load { reg: r1, addr: a1 }),
                ]
            };
            Ok(Low::Cmds(vec![Command::Atomic(body)]))
        }
        "LDP" | "STP" => lower_ldp_stp(cx, mn0, mn, ops, sp),
        "LDXP" | "STXP" | "LDAXP" | "STLXP" => {
            Err(refuse(cx, &format!("instruction `{mn0}`"), "ldp/stp", sp))
        }
        "DC" | "IC" | "TLBI" => Err(refuse(cx, &format!("instruction `{mn0}`"), "cache/tlb", sp)),
        _ => Err(super::ops::unsupported(cx, mn0, sp)),
    }
}

/// `LDP`/`STP` `Rt1,Rt2,<mem>` with `<mem>` `[Xn]`, `[Xn,#imm]`, the
/// pre-indexed `[Xn,#imm]!` or the post-indexed `[Xn],#imm`: an access
/// of Rt1's size at the address and one of Rt2 at the address plus that
/// size, each lowered as `LDR`/`STR` is (byte-addressed locations
/// included), then the base's write-back (Arm ARM C6.2 "LDP", "STP").
/// herd's two accesses of a pair are one instruction's, unordered by its
/// po (`AArch64Sem.ml`, `ldp`/`stp`: the two accesses in parallel), here
/// two steps in po, which `aarch64.cat` cannot tell apart (it orders
/// accesses to different locations of one thread only through
/// dependencies, barriers, acquire and release, none of which a plain
/// pair has between its two accesses); under another model the test is
/// refused ([`super::LitmusTest::pair_access`]). When Rt1 is the base
/// register, the second access is lowered first (the two read the base
/// before either writes its register).
fn lower_ldp_stp(cx: &mut Ctx, mn0: &str, mn: &str, ops: &[Op], sp: Span) -> Result<Low, Error> {
    let (mem, post) = match ops {
        [_, _, m] => (m, None),
        [_, _, m, imm] => (m, Some(imm)),
        _ => return Err(cx.src.error(sp, format!("`{mn0}` takes 3 or 4 operands"))),
    };
    let bytes = i64::from(size_of(&ops[0]) / 8);
    if size_of(&ops[1]) != size_of(&ops[0]) {
        return Err(cx.src.error(
            ops[1].span,
            format!("`{mn0}`: both registers must be W or both X"),
        ));
    }
    let pre = mem.text.ends_with('!');
    let inner = mem
        .text
        .trim_end_matches('!')
        .strip_prefix('[')
        .and_then(|t| t.strip_suffix(']'))
        .ok_or_else(|| {
            cx.src.error(
                mem.span,
                format!("expected a memory operand `[Xn…]`, found `{}`", mem.text),
            )
        })?;
    let parts = split_ops(inner, mem.span.start + 1);
    let (base, offset) = match &parts[..] {
        [b] => (b.text, 0),
        [b, o] => match o.text.strip_prefix('#').and_then(parse_int) {
            Some(k) => (b.text, k),
            None => {
                return Err(refuse(
                    cx,
                    &format!("`{mn0}` offset `{}`", o.text),
                    "ldp/stp",
                    o.span,
                ))
            }
        },
        _ => {
            return Err(cx
                .src
                .error(mem.span, format!("bad memory operand `{}`", mem.text)))
        }
    };
    if post.is_some() && (pre || offset != 0) {
        return Err(cx
            .src
            .error(mem.span, format!("bad memory operand `{}`", mem.text)));
    }
    cx.vars.pair_access.get_or_insert(sp);
    // The two accesses' operands as `LDR`/`STR` reads them.
    let at = |k: i64| {
        if k == 0 {
            format!("[{base}]")
        } else {
            format!("[{base},#{k}]")
        }
    };
    let texts = [at(offset), at(offset + bytes)];
    let mut order = [0, 1];
    let arch = cx.arch;
    let is_base = |o: &Op| super::regs::norm_reg(arch, o.text) == super::regs::norm_reg(arch, base);
    if mn == "LDP" && is_base(&ops[0]) {
        if is_base(&ops[1]) {
            return Err(cx.src.error(
                ops[1].span,
                format!("`{mn0}` loads both registers and the base into one register"),
            ));
        }
        order = [1, 0];
    }
    let single = if mn == "LDP" { "LDR" } else { "STR" };
    let mut cmds = Vec::new();
    for k in order {
        let one = [
            Op {
                text: ops[k].text,
                span: ops[k].span,
            },
            Op {
                text: &texts[k],
                span: mem.span,
            },
        ];
        match lower_load_store(cx, mn0, single, None, false, &one, sp)? {
            Low::Cmds(c) => cmds.extend(c),
            _ => return Err(cx.src.error(sp, format!("unsupported `{mn0}`"))),
        }
    }
    // Write-back: pre-indexed by the offset, post-indexed by the immediate.
    let b = reg_opt(cx, &parts[0])?;
    let step = match post {
        Some(imm) => Some(operand(cx, imm)?),
        None if pre => Some(cx.int(offset, mem.span)?),
        None => None,
    };
    if let Some(v) = step {
        cmds.extend(assign(
            b,
            bin(BinOp::Add, b.map(Expr::Var).unwrap_or(Expr::Const(0)), v),
        ));
    }
    Ok(Low::Cmds(cmds))
}

/// The size suffix of an atomic mnemonic after its base: (the rest, the
/// bits accessed when `B` (8) or `H` (16); None: the register's size).
/// `SWPALB` → (`AL`, Some(8)), `CASH` → (``, Some(16)).
fn atomic_size(s: &str) -> (&str, Option<u32>) {
    if let Some(r) = s.strip_suffix('B') {
        (r, Some(8))
    } else if let Some(r) = s.strip_suffix('H') {
        (r, Some(16))
    } else {
        (s, None)
    }
}

/// The new value of an `LD<op>` / `ST<op>` atomic from the value read
/// `old` and the register operand `s` (Arm ARM C6.2, "LDADD", "LDCLR",
/// "LDEOR", "LDSET", "LDSMAX", "LDSMIN", "LDUMAX", "LDUMIN").
fn atomic_value(op: &str, old: LExpr, s: LExpr) -> LExpr {
    match op {
        "ADD" => bin(BinOp::Add, old, s),
        "EOR" => bin(BinOp::BitXor, old, s),
        "SET" => bin(BinOp::BitOr, old, s),
        "CLR" => bin(BinOp::BitAnd, old, not(s)),
        "SMAX" => min_max(true, true, old, s),
        "SMIN" => min_max(true, false, old, s),
        "UMAX" => min_max(false, true, old, s),
        _ => min_max(false, false, old, s),
    }
}

/// The LSE atomics: `SWP`, `CAS`, `LD<op>`, `ST<op>` (`<op>` one of
/// `ADD`, `CLR`, `EOR`, `SET`, `SMAX`, `SMIN`, `UMAX`, `UMIN`) with
/// `A`/`L`/`AL`, and their byte (`B`) and half-word (`H`) forms, which
/// read and write the low 8/16 bits of the location's cell as the plain
/// byte and half-word accesses do ([`extend`], [`truncate`]; Arm ARM C6.2,
/// "SWPB", "CASH", "LDADDB": the value read zero-extended to the
/// register, a compare-and-swap comparing `Rs<7:0>` / `Rs<15:0>`).
fn lower_atomic(cx: &mut Ctx, mn0: &str, mn: &str, ops: &[Op], sp: Span) -> Result<Low, Error> {
    if mn.starts_with("CASP") {
        return Err(refuse(cx, &format!("instruction `{mn0}`"), "casp", sp));
    }
    if let Some(suf) = mn.strip_prefix("SWP") {
        return lower_swp(cx, mn0, suf, ops, sp);
    }
    if let Some(suf) = mn.strip_prefix("CAS") {
        return lower_cas(cx, mn0, suf, ops, sp);
    }
    lower_ldop(cx, mn0, mn, ops, sp)
}

/// The located error for an atomic mnemonic with an unknown suffix.
fn unknown_atomic(cx: &Ctx, mn0: &str, sp: Span) -> Error {
    cx.src.error(sp, format!("unknown instruction `{mn0}`"))
}

/// The value an atomic read into `#tmp`, as the destination register
/// gets it (the low bits of a byte or half-word access, zero-extended).
fn atomic_read(cx: &mut Ctx, bits: Option<u32>, ds: u32, sp: Span) -> Result<LExpr, Error> {
    let tmp = cx.reg("#tmp");
    extend(cx, Expr::Var(tmp), bits.unwrap_or(ds), false, ds, sp)
}

/// The value an atomic writes: a byte or half-word access writes the low
/// bits of `v`.
fn atomic_written(
    cx: &mut Ctx,
    v: LExpr,
    bits: Option<u32>,
    ds: u32,
    sp: Span,
) -> Result<LExpr, Error> {
    match bits {
        Some(_) => truncate(cx, v, bits, ds, sp),
        None => Ok(v),
    }
}

/// The read and the write of an LSE atomic (`SWP`, `LD<op>`, `ST<op>`)
/// of `bits` bits at `addr`: the read into `#tmp` annotated `ra`, then
/// the write of `value` (an expression that may read `#tmp`) annotated
/// `wa`, recorded as an atomic access ([`super::ctx::Vars::access_atomic`]).
/// At a byte-addressed location (herd's mixed-size variant) each is one
/// event per byte (`ops::byte_load`, `ops::byte_store`): herd's atomic
/// read and write of n bytes are n byte reads, one single-copy-atomic
/// group (`si`), and n byte writes, another, `#tmp` the bytes read
/// little-endian; each byte's read and write to the same byte form the
/// rmw pair (herd's `make_atomic_load_store` pairs an instruction's
/// atomic read and write per location).
fn atomic_rw(
    cx: &mut Ctx,
    addr: &LExpr,
    bits: u32,
    (ra, wa): (u16, u16),
    value: LExpr,
    sp: Span,
) -> Vec<Command> {
    cx.vars.access_atomic(addr, bits, sp);
    let tmp = cx.reg("#tmp");
    if cx.vars.split_spans.contains(&(sp.start, sp.end)) {
        let mut cmds = super::ops::byte_load(cx, tmp, addr, bits / 8, ra);
        cmds.extend(super::ops::byte_store(cx, addr, &value, bits / 8, wa));
        return cmds;
    }
    vec![
        ann(
            ra,
            Command::Load {
                reg: tmp,
                addr: addr.clone(),
            },
        ),
        ann(
            wa,
            Command::Store {
                addr: addr.clone(),
                value,
            },
        ),
    ]
}

/// `SWP` and its `A`/`L`/`AL` and byte/half-word forms (`suf`: the
/// mnemonic after `SWP`).
fn lower_swp(cx: &mut Ctx, mn0: &str, suf: &str, ops: &[Op], sp: Span) -> Result<Low, Error> {
    let (suf, bits) = atomic_size(suf);
    let Some((ra, wa)) = al_suffix(suf) else {
        return Err(unknown_atomic(cx, mn0, sp));
    };
    arity(cx, mn0, ops, 3, sp)?;
    let ds = size_of(&ops[1]);
    let s = rval(cx, &ops[0])?;
    let s = atomic_written(cx, s, bits, ds, sp)?;
    let t = reg_opt(cx, &ops[1])?;
    let addr = mem_addr(cx, &ops[2])?;
    // No acquire when the destination is the zero register (as herd),
    // and the read is a no-return one.
    let ra = if t.is_none() { Ann::NORET } else { ra };
    let bits = bits.unwrap_or(ds);
    let mut body = atomic_rw(cx, &addr, bits, (ra, wa), s, sp);
    let v = atomic_read(cx, Some(bits), ds, sp)?;
    body.extend(assign(t, v));
    Ok(Low::Cmds(vec![Command::Atomic(body)]))
}

/// `CAS` and its `A`/`L`/`AL` and byte/half-word forms (`suf`: the
/// mnemonic after `CAS`): a choice between success and failure.
fn lower_cas(cx: &mut Ctx, mn0: &str, suf: &str, ops: &[Op], sp: Span) -> Result<Low, Error> {
    let tmp = cx.reg("#tmp");
    let (suf, bits) = atomic_size(suf);
    let Some((ra, wa)) = al_suffix(suf) else {
        return Err(unknown_atomic(cx, mn0, sp));
    };
    arity(cx, mn0, ops, 3, sp)?;
    let ds = size_of(&ops[1]);
    let s = reg_opt(cx, &ops[0])?;
    let sv = s.map(Expr::Var).unwrap_or(Expr::Const(0));
    let sv = atomic_written(cx, sv, bits, ds, sp)?;
    let ra = if s.is_none() { Ann::NORET } else { ra };
    let t = rval(cx, &ops[1])?;
    let t = atomic_written(cx, t, bits, ds, sp)?;
    let addr = mem_addr(cx, &ops[2])?;
    let size = bits.unwrap_or(ds);
    cx.vars.access_atomic(&addr, size, sp);
    // At a byte-addressed location (herd's mixed-size variant) the read
    // and the write are one event per byte, each an si group, and a
    // successful CAS pairs the read and the write of each byte by rmw
    // (herd's `make_atomic_load_store`, per location), as `atomic_rw`.
    let split = cx.vars.split_spans.contains(&(sp.start, sp.end));
    let load = if split {
        super::ops::byte_load(cx, tmp, &addr, size / 8, ra)
    } else {
        vec![ann(
            ra,
            Command::Load {
                reg: tmp,
                addr: addr.clone(),
            },
        )]
    };
    let old = atomic_read(cx, bits, ds, sp)?;
    // On success the write takes Rt's value through the comparison (a
    // pick data dependency on the read and on Rs), and Rs keeps its
    // value, now picked by the comparison: later accesses depend on the
    // read by pick dependencies only (herd's aarch64-cas tests).
    let same = bin(BinOp::Eq, old.clone(), sv.clone());
    let picked = cx.reg("#cas");
    let mut body = load.clone();
    body.push(Command::Guard(same.clone()));
    body.push(Command::Select {
        reg: picked,
        cond: same.clone(),
        then: t.clone(),
        else_: t,
    });
    if split {
        body.extend(super::ops::byte_store(
            cx,
            &addr,
            &Expr::Var(picked),
            size / 8,
            wa,
        ));
    } else {
        body.push(ann(
            wa,
            Command::Store {
                addr,
                value: Expr::Var(picked),
            },
        ));
    }
    let ok = vec![Command::Atomic(body)];
    // Rs after a success holds the value read (= its old value), picked
    // by the comparison, and its data comes either from Rs's old value
    // or from the read: herd builds both event structures, so an
    // outcome is allowed when either allows it (herd's
    // `aarch64_cas_ok`, `DataFromRRs` and `DataFromRx`; herdtools7
    // catalogue `aarch64-cas`: `MP+rel+CAS-ok-bothRs-addr` is ordered by
    // both, `MP+rel+CAS-ok-RsRs-addr` by the first only).
    let mut alts = Vec::new();
    match s {
        Some(s) => {
            let mut from_rs = ok.clone();
            from_rs.push(Command::Select {
                reg: s,
                cond: bin(BinOp::Eq, old.clone(), old.clone()),
                // = the value read on success (the low bits of a
                // byte or half-word Rs), with Rs's dependencies.
                then: sv.clone(),
                else_: sv.clone(),
            });
            alts.push(from_rs);
            let mut from_read = ok;
            from_read.extend(assign(Some(s), old.clone()));
            alts.push(from_read);
        }
        None => alts.push(ok),
    }
    // A failing CAS reads only (its bytes one si group, as a load's).
    let mut fail = load;
    fail.push(Command::Guard(bin(BinOp::Ne, old.clone(), sv)));
    fail.extend(assign(s, old));
    alts.push(fail);
    Ok(Low::Choice(alts))
}

/// `LD<op>` and `ST<op>` (`<op>` one of `ADD`, `CLR`, `EOR`, `SET`,
/// `SMAX`, `SMIN`, `UMAX`, `UMIN`) with their suffixes.
fn lower_ldop(cx: &mut Ctx, mn0: &str, mn: &str, ops: &[Op], sp: Span) -> Result<Low, Error> {
    const OPS: [&str; 8] = ["ADD", "CLR", "EOR", "SET", "SMAX", "SMIN", "UMAX", "UMIN"];
    let form = mn
        .strip_prefix("LD")
        .map(|r| (false, r))
        .or_else(|| mn.strip_prefix("ST").map(|r| (true, r)));
    if let Some((store_form, rest)) = form {
        if let Some(op) = OPS.iter().find(|o| rest.starts_with(**o)) {
            let (suf, bits) = atomic_size(&rest[op.len()..]);
            let Some((mut ra, wa)) = al_suffix(suf) else {
                return Err(unknown_atomic(cx, mn0, sp));
            };
            if store_form && ra != 0 {
                return Err(unknown_atomic(cx, mn0, sp));
            }
            let (s, t, m) = if store_form {
                arity(cx, mn0, ops, 2, sp)?;
                (rval(cx, &ops[0])?, None, &ops[1])
            } else {
                arity(cx, mn0, ops, 3, sp)?;
                (rval(cx, &ops[0])?, reg_opt(cx, &ops[1])?, &ops[2])
            };
            let ds = size_of(&ops[0]);
            if t.is_none() {
                // A load form whose destination is the zero register has
                // no acquire semantics (Arm ARM C6, LDADD: "ST<op>").
                ra = Ann::NORET;
            }
            let addr = mem_addr(cx, m)?;
            let old = atomic_read(cx, bits, ds, sp)?;
            let value = atomic_value(op, old.clone(), s);
            let value = atomic_written(cx, value, bits, ds, sp)?;
            let mut body = atomic_rw(cx, &addr, bits.unwrap_or(ds), (ra, wa), value, sp);
            body.extend(assign(t, old));
            return Ok(Low::Cmds(vec![Command::Atomic(body)]));
        }
    }
    Err(super::ops::unsupported(cx, mn0, sp))
}
