//! What the instruction lowerings of every architecture share: the result
//! of lowering one source instruction ([`Low`]), operand splitting
//! ([`split_ops`]: commas outside brackets, each operand with its span),
//! the mnemonic, expression helpers (`var`, `bin`, `compare`, the unsigned
//! order [`ult`], [`min_max`] of the min/max atomics), label-name
//! syntax ([`is_name`]) and the common errors (an unsupported instruction,
//! a wrong number of operands).
//!
//! An instruction is a mnemonic followed by comma-separated operands, as in
//! the code columns of herd's litmus tests (herdtools7 documentation,
//! <http://diy.inria.fr/doc/litmus.html>).

use super::ctx::Ctx;
use crate::diag::{Error, Span};
use crate::program::{Ann, BinOp, Command, Expr, LExpr, RegId, UnOp};

/// What one source instruction lowers to.
pub(super) enum Low {
    /// A chain of commands (empty = `Nop`).
    Cmds(Vec<Command>),
    /// A jump to a label, conditional when `Some(cond)` (taken if cond ≠ 0).
    Jump(Option<LExpr>, String, Span),
    /// Jump to the end of the thread (`ret`, `blr`).
    Ret,
    /// Alternatives from the same state (e.g. `CMPXCHG` success/failure),
    /// each a chain of commands, all continuing at the next instruction.
    Choice(Vec<Vec<Command>>),
    /// A return through a link register (AArch64 `RET`): to the code
    /// address it holds when the test uses code addresses, else to the end.
    RetVia(RegId),
    /// A call (AArch64 `BL`, `BLR`): the link register gets the code
    /// address of the next instruction, then a jump to the target.
    Call(RegId, CallTarget),
    /// An indirect jump to the code address a value holds (`BR`).
    JumpReg(LExpr),
}

/// The target of a call ([`Low::Call`]).
pub(super) enum CallTarget {
    /// `BL label`.
    Label(String, Span),
    /// `BLR Xn`: the code address in a register.
    Reg(LExpr),
}

/// One operand: its text (trimmed) and its span in the source.
pub(super) struct Op<'a> {
    pub text: &'a str,
    pub span: Span,
}

/// Splits the operand text `s` (starting at offset `base` of the source)
/// at the commas outside parentheses and brackets.
pub(super) fn split_ops<'a>(s: &'a str, base: usize) -> Vec<Op<'a>> {
    let mut out = Vec::new();
    if s.trim().is_empty() {
        return out;
    }
    let mut depth = 0i32;
    let mut last = 0;
    let push = |from: usize, to: usize, out: &mut Vec<Op<'a>>| {
        let piece = &s[from..to];
        let lead = piece.len() - piece.trim_start().len();
        let t = piece.trim();
        let st = base + from + lead;
        out.push(Op {
            text: t,
            span: Span::new(st, st + t.len().max(1)),
        });
    };
    for (i, b) in s.bytes().enumerate() {
        match b {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b',' if depth == 0 => {
                push(last, i, &mut out);
                last = i + 1;
            }
            _ => {}
        }
    }
    push(last, s.len(), &mut out);
    out
}

pub(super) fn var(r: RegId) -> LExpr {
    Expr::Var(r)
}

pub(super) fn bin(op: BinOp, a: LExpr, b: LExpr) -> LExpr {
    Expr::bin(op, a, b)
}

/// sign(a - b) as `(a > b) - (a < b)`.
pub(super) fn compare(a: LExpr, b: LExpr) -> LExpr {
    bin(
        BinOp::Sub,
        bin(BinOp::Gt, a.clone(), b.clone()),
        bin(BinOp::Lt, a, b),
    )
}

/// The error for an instruction this front-end does not lower.
pub(super) fn unsupported(cx: &Ctx, mn: &str, span: Span) -> Error {
    cx.src.error_help(
        span,
        format!("unsupported {} instruction `{mn}`", cx.arch.keyword()),
        "see docs/litmus.md for the supported instructions",
    )
}

/// The error for a construct this front-end refuses, naming the feature
/// (`unsupported AArch64 instruction `LDRB` (byte/half-access)`).
pub(super) fn refuse(cx: &Ctx, what: &str, feature: &str, span: Span) -> Error {
    cx.src.error_help(
        span,
        format!("unsupported {} {what} ({feature})", cx.arch.keyword()),
        "see docs/litmus.md for the supported instructions",
    )
}

/// Checks that `mn` has `n` operands.
pub(super) fn arity(cx: &Ctx, mn: &str, ops: &[Op], n: usize, span: Span) -> Result<(), Error> {
    if ops.len() != n {
        return Err(cx.src.error(
            span,
            format!("`{mn}` expects {n} operand(s), found {}", ops.len()),
        ));
    }
    Ok(())
}

/// Splits off the mnemonic: `(mnemonic, rest, length of the mnemonic
/// after leading blanks)`.
pub(super) fn mnemonic(text: &str) -> (&str, &str, usize) {
    let t = text.trim_start();
    let end = t.find(char::is_whitespace).unwrap_or(t.len());
    (&t[..end], &t[end..], end)
}

/// A label or variable name: letters, digits, `_` and `.`, not starting
/// with a digit.
pub(super) fn is_name(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
        && !s.starts_with(|c: char| c.is_ascii_digit())
}

/// `v * 2^k` (`LSL #k`).
pub(super) fn shl(cx: &mut Ctx, v: LExpr, k: u32, span: Span) -> Result<LExpr, Error> {
    if k == 0 {
        return Ok(v);
    }
    let m = cx.int(1i64 << k, span)?;
    Ok(bin(BinOp::Mul, v, m))
}

/// `⌊v / 2^k⌋` (`ASR #k`; also `LSR #k`, which agrees on non-negative
/// values).
pub(super) fn shr(cx: &mut Ctx, v: LExpr, k: u32, span: Span) -> Result<LExpr, Error> {
    if k == 0 {
        return Ok(v);
    }
    let m = cx.int(1i64 << k, span)?;
    let adj = cx.int((1i64 << k) - 1, span)?;
    // Truncating division rounds negative values up: subtract 2^k - 1 first.
    let neg = bin(BinOp::Lt, v.clone(), Expr::Const(0));
    let v = bin(BinOp::Sub, v, bin(BinOp::Mul, neg, adj));
    Ok(bin(BinOp::Div, v, m))
}

/// The low `bits` bits of `v` (`bits` < 32: a byte or half-word load or
/// store) sign-extended (`signed`) or zero-extended at the width the test
/// runs at: `(v & mask) ^ top) - top` for the sign extension.
pub(super) fn low_bits(
    cx: &mut Ctx,
    v: LExpr,
    bits: u32,
    signed: bool,
    span: Span,
) -> Result<LExpr, Error> {
    let m = cx.int((1i64 << bits) - 1, span)?;
    let low = bin(BinOp::BitAnd, v, m);
    if !signed {
        return Ok(low);
    }
    let top = cx.int(1i64 << (bits - 1), span)?;
    Ok(bin(BinOp::Sub, bin(BinOp::BitXor, low, top.clone()), top))
}

/// The low 32 bits of `v` sign-extended (`signed`) or zero-extended: the
/// result of a 32-bit operation on a 64-bit register (RISC-V `lw`,
/// `addw`, `lwu`). The identity unless the test has values beyond 32 bits
/// ([`Ctx::wide`]), where it would only cost width.
pub(super) fn ext32(cx: &mut Ctx, v: LExpr, signed: bool) -> LExpr {
    if !cx.wide() {
        return v;
    }
    let mask = Expr::Const(cx.width.wrap(0xffff_ffff));
    if signed {
        let top = Expr::Const(1i64 << 31);
        let low = bin(BinOp::BitAnd, bin(BinOp::Add, v, top.clone()), mask);
        bin(BinOp::Sub, low, top)
    } else {
        bin(BinOp::BitAnd, v, mask)
    }
}

/// Unsigned `x < y` at any width: when the signs differ, the negative one
/// (top bit set) is the larger; otherwise the signed order.
pub(super) fn ult(x: &LExpr, y: &LExpr) -> LExpr {
    let z = Expr::Const(0);
    let differ = bin(
        BinOp::Lt,
        bin(BinOp::BitXor, x.clone(), y.clone()),
        z.clone(),
    );
    bin(
        BinOp::Or,
        bin(BinOp::And, differ.clone(), bin(BinOp::Lt, y.clone(), z)),
        bin(
            BinOp::And,
            Expr::un(UnOp::Not, differ),
            bin(BinOp::Lt, x.clone(), y.clone()),
        ),
    )
}

/// The maximum (`max`) or minimum of `a` and `b`, signed or unsigned, as
/// `(a & -(a wins)) | (b & -(b wins))`: no select, so the result has data
/// dependencies on both operands (the value of the AArch64 `LDSMAX`/
/// `LDUMIN`… and RISC-V `amomax`/`amominu`… atomics: Arm ARM C6.2, RISC-V
/// unprivileged ISA "Atomic Memory Operations").
pub(super) fn min_max(signed: bool, max: bool, a: LExpr, b: LExpr) -> LExpr {
    // a wins when a ≥ b (max) or a ≤ b (min).
    let lt = |x: &LExpr, y: &LExpr| {
        if signed {
            bin(BinOp::Lt, x.clone(), y.clone())
        } else {
            ult(x, y)
        }
    };
    let b_wins = if max { lt(&a, &b) } else { lt(&b, &a) };
    let all = |c: LExpr| Expr::un(UnOp::Neg, c);
    bin(
        BinOp::BitOr,
        bin(BinOp::BitAnd, a, all(Expr::un(UnOp::Not, b_wins.clone()))),
        bin(BinOp::BitAnd, b, all(b_wins)),
    )
}

/// The byte accesses of a load of `n` bytes at `addr` from a
/// byte-addressed location (herd's mixed-size variant; Flur et al.,
/// "Mixed-size concurrency: ARM, POWER, C/C++11, and SC", POPL 2017: an
/// access is a set of byte accesses): byte k is read from `addr + k` into
/// a helper register `#b<k>`, then `reg` gets the bytes little-endian,
/// `Σ #b<k> · 2^(8k)` (wrapping at the test's width, as the register
/// would). Each byte read keeps the address dependencies of `addr` and
/// the ordering annotations `ann` ([`Ann`] bits: herd's byte events of an
/// `LDAR` are each an acquire); `reg` depends on every byte read.
pub(super) fn byte_load(cx: &mut Ctx, reg: RegId, addr: &LExpr, n: u32, ann: u16) -> Vec<Command> {
    byte_read(cx, reg, addr, n, ann, false)
}

/// [`byte_load`] for a load-exclusive (`LDXR`, `LDAXR` and their forms):
/// each byte read is a [`Command::LoadReserve`], the bytes one
/// reservation of `n` bytes at `addr` (herd's `read_mem_reserve`: the
/// reservation is the access's address and size). The caller puts them
/// in one step.
pub(super) fn byte_load_reserve(
    cx: &mut Ctx,
    reg: RegId,
    addr: &LExpr,
    n: u32,
    ann: u16,
) -> Vec<Command> {
    byte_read(cx, reg, addr, n, ann, true)
}

/// [`byte_load`], the byte reads load-reserves when `reserve`.
fn byte_read(
    cx: &mut Ctx,
    reg: RegId,
    addr: &LExpr,
    n: u32,
    ann: u16,
    reserve: bool,
) -> Vec<Command> {
    wide_bytes(cx, n);
    let mut cmds = Vec::new();
    let mut value: Option<LExpr> = None;
    for k in 0..n {
        let b = cx.reg(&format!("#b{k}"));
        let addr = byte_addr(addr, k);
        let read = if reserve {
            Command::LoadReserve { reg: b, addr }
        } else {
            Command::Load { reg: b, addr }
        };
        cmds.push(same_instr(k, ann, read));
        let part = if k == 0 {
            Expr::Var(b)
        } else {
            bin(
                BinOp::Mul,
                Expr::Var(b),
                Expr::Const(cx.width.wrap(1i64 << (8 * k))),
            )
        };
        value = Some(match value {
            None => part,
            Some(v) => bin(BinOp::BitOr, v, part),
        });
    }
    cmds.push(Command::Assign {
        reg,
        value: value.unwrap_or(Expr::Const(0)),
    });
    cmds
}

/// The byte accesses of a store of the low `n` bytes of `value` at `addr`
/// to a byte-addressed location (see [`byte_load`]): byte k of the value,
/// `(value & 255·2^(8k)) / 2^(8k) & 255` (exact: the division of a
/// multiple of 2^(8k)), is written at `addr + k`, so each byte write has
/// the data dependencies of `value`, the address dependencies of `addr`
/// and the ordering annotations `ann`.
pub(super) fn byte_store(
    cx: &mut Ctx,
    addr: &LExpr,
    value: &LExpr,
    n: u32,
    ann: u16,
) -> Vec<Command> {
    byte_write(cx, addr, value, n, ann, None)
}

/// [`byte_store`] for a store-exclusive (`STXR`, `STLXR` and their
/// forms): each byte write is a [`Command::StoreCond`] setting `flag`.
/// The caller puts them in one step, where they succeed or fail together
/// (herd's store-exclusive of `n` bytes: one success, n byte writes).
pub(super) fn byte_store_cond(
    cx: &mut Ctx,
    addr: &LExpr,
    value: &LExpr,
    n: u32,
    ann: u16,
    flag: RegId,
) -> Vec<Command> {
    byte_write(cx, addr, value, n, ann, Some(flag))
}

/// [`byte_store`], the byte writes store-conditionals setting `flag`
/// when given.
fn byte_write(
    cx: &mut Ctx,
    addr: &LExpr,
    value: &LExpr,
    n: u32,
    ann: u16,
    flag: Option<RegId>,
) -> Vec<Command> {
    wide_bytes(cx, n);
    (0..n)
        .map(|k| {
            let byte = if k == 0 {
                bin(BinOp::BitAnd, value.clone(), Expr::Const(255))
            } else {
                let unit = cx.width.wrap(1i64 << (8 * k));
                let mask = cx.width.wrap(255i64 << (8 * k));
                bin(
                    BinOp::BitAnd,
                    bin(
                        BinOp::Div,
                        bin(BinOp::BitAnd, value.clone(), Expr::Const(mask)),
                        Expr::Const(unit),
                    ),
                    Expr::Const(255),
                )
            };
            let addr = byte_addr(addr, k);
            let write = match flag {
                Some(flag) => Command::StoreCond {
                    addr,
                    value: byte,
                    flag,
                },
                None => Command::Store { addr, value: byte },
            };
            same_instr(k, ann, write)
        })
        .collect()
}

/// Byte `k` of an access with ordering annotations `ann`: after the
/// first, annotated [`Ann::SI`] too (the byte events of one instruction,
/// related by `si`).
fn same_instr(k: u32, ann: u16, c: Command) -> Command {
    let bits = if k == 0 { ann } else { ann | Ann::SI };
    if bits == 0 {
        c
    } else {
        Command::Ann(Ann(bits), Box::new(c))
    }
}

/// The width an access of `n` bytes needs for its bytes to combine
/// exactly: 64 bits beyond 4 bytes, 32 for 4 (a W register, wrapping as
/// herd's `int`), else room for the unsigned value (`run::auto_width`).
fn wide_bytes(cx: &mut Ctx, n: u32) {
    let w = match n {
        0..=3 => 8 * n + 4,
        4 => 32,
        _ => 64,
    };
    cx.vars.min_width = cx.vars.min_width.max(w);
}

/// The address of byte `k` of an access at `addr`.
fn byte_addr(addr: &LExpr, k: u32) -> LExpr {
    if k == 0 {
        addr.clone()
    } else {
        bin(BinOp::Add, addr.clone(), Expr::Const(i64::from(k)))
    }
}
