//! X86 (Intel syntax) and X86_64 (AT&T syntax) instructions → IR
//! commands. Operands are normalised to Intel order (destination first);
//! data flows through registers exactly as written, so that address, data
//! and control dependencies can be computed from the IR later. Arithmetic
//! sets `flags` to the sign of its result, `CMP`/`TEST` set it from the
//! comparison, conditional jumps test it; `LOCK`ed read-modify-writes,
//! `XCHG` with memory and `LOCK CMPXCHG` are atomic.
//!
//! Instruction semantics: Intel® 64 and IA-32 Architectures Software
//! Developer's Manual, Vol. 2 (instruction set reference: `MOV`, `XCHG`,
//! `XADD`, `CMPXCHG`, `Jcc`, `MFENCE`, the `LOCK` prefix) and Vol. 3A,
//! "Locked Atomic Operations" (locked instructions are atomic; `XCHG` with
//! memory is locked implicitly). AT&T syntax (source operand first,
//! `%reg`, `$imm`, size suffixes, `d(%reg)`): the GNU assembler manual,
//! "AT&T Syntax versus Intel Syntax" (i386-Syntax).
//! The instruction forms are those of herd's X86/X86_64 litmus tests
//! (herdtools7 documentation, <http://diy.inria.fr/doc/litmus.html>).

use super::ctx::Ctx;
use super::ops::{
    arity, bin, compare, is_name, mnemonic, refuse, split_ops, unsupported, var, Low, Op,
};
use super::regs::{x64_reg, X86_REGS};
use crate::diag::{Error, Span};
use crate::frontend::litmus::parse_int;
use crate::program::{BinOp, Command, Expr, Fence, LExpr, RegId};

enum XOp {
    Reg(RegId),
    Mem(LExpr),
    Imm(LExpr),
}

fn x86_operand(cx: &mut Ctx, op: &Op, att: bool) -> Result<XOp, Error> {
    let t = op.text;
    let bad = |cx: &Ctx| {
        cx.src.error(
            op.span,
            format!("unsupported {} operand `{t}`", cx.arch.keyword()),
        )
    };
    if !att {
        if let Some(inner) = t.strip_prefix('[').and_then(|x| x.strip_suffix(']')) {
            let inner = inner.trim();
            let up = inner.to_ascii_uppercase();
            if X86_REGS.contains(&up.as_str()) {
                return Ok(XOp::Mem(var(cx.reg(&up))));
            }
            if is_name(inner) {
                let a = cx.vars.addr(inner, op.span);
                return Ok(XOp::Mem(Expr::Const(a)));
            }
            return Err(bad(cx));
        }
        let up = t.to_ascii_uppercase();
        if X86_REGS.contains(&up.as_str()) {
            return Ok(XOp::Reg(cx.reg(&up)));
        }
        let num = t.strip_prefix('$').unwrap_or(t);
        if let Some(v) = parse_int(num) {
            return Ok(XOp::Imm(cx.int(v, op.span)?));
        }
        return Err(bad(cx));
    }
    // AT&T.
    if let Some(r) = t.strip_prefix('%') {
        return match x64_reg(r) {
            Some(c) => Ok(XOp::Reg(cx.reg(c))),
            None => Err(bad(cx)),
        };
    }
    if let Some(num) = t.strip_prefix('$') {
        return match parse_int(num) {
            Some(v) => Ok(XOp::Imm(cx.int(v, op.span)?)),
            None => Err(bad(cx)),
        };
    }
    if let Some(v) = parse_int(t) {
        return Ok(XOp::Imm(cx.int(v, op.span)?));
    }
    if let Some(open) = t.find('(') {
        let disp = t[..open].trim();
        let inner = t[open + 1..]
            .strip_suffix(')')
            .ok_or_else(|| bad(cx))?
            .trim();
        if inner.eq_ignore_ascii_case("%rip") && is_name(disp) {
            let a = cx.vars.addr(disp, op.span);
            return Ok(XOp::Mem(Expr::Const(a)));
        }
        if !(disp.is_empty() || parse_int(disp) == Some(0)) {
            return Err(bad(cx));
        }
        // `(%base,%index,scale)` into an array of the init block (its
        // elements are at their byte addresses; docs/litmus.md).
        let parts: Vec<&str> = inner.split(',').map(str::trim).collect();
        if parts.len() == 3 && !cx.vars.arrays.is_empty() {
            let reg = |cx: &mut Ctx, x: &str| -> Option<RegId> {
                let c = x64_reg(x.strip_prefix('%')?)?;
                (c != "rip").then(|| cx.reg(c))
            };
            let scale = parse_int(parts[2]).filter(|s| [1, 2, 4, 8].contains(s));
            if let (Some(b), Some(i), Some(k)) = (reg(cx, parts[0]), reg(cx, parts[1]), scale) {
                let off = Expr::bin(BinOp::Mul, var(i), Expr::Const(k));
                return Ok(XOp::Mem(Expr::bin(BinOp::Add, var(b), off)));
            }
            return Err(bad(cx));
        }
        if let Some(r) = inner.strip_prefix('%') {
            return match x64_reg(r) {
                Some(c) if c != "rip" => Ok(XOp::Mem(var(cx.reg(c)))),
                _ => Err(bad(cx)),
            };
        }
        if is_name(inner) {
            let a = cx.vars.addr(inner, op.span);
            return Ok(XOp::Mem(Expr::Const(a)));
        }
        return Err(bad(cx));
    }
    if is_name(t) {
        let a = cx.vars.addr(t, op.span);
        return Ok(XOp::Mem(Expr::Const(a)));
    }
    Err(bad(cx))
}

/// Strips an AT&T size suffix (`movl` → `mov`) when the base is known.
fn att_base(mn: &str) -> &str {
    const BASES: [&str; 14] = [
        "mov", "xchg", "add", "sub", "and", "or", "xor", "cmp", "test", "inc", "dec", "shl", "sal",
        "xadd",
    ];
    if BASES.contains(&mn) {
        return mn;
    }
    for suf in ["q", "l", "w", "b"] {
        if let Some(b) = mn.strip_suffix(suf) {
            if BASES.contains(&b) || b == "cmpxchg" {
                return b;
            }
        }
    }
    mn
}

/// One instruction as written, after its `LOCK` prefix: what the
/// lowerings of its classes read.
struct Insn<'a> {
    /// The mnemonic as written (without `LOCK`), for messages.
    mn0: &'a str,
    /// The mnemonic lower-case, an AT&T size suffix stripped.
    mn: &'a str,
    /// The operands as written (AT&T order for X86_64).
    ops: &'a [Op<'a>],
    /// AT&T syntax (X86_64).
    att: bool,
    /// Prefixed with `LOCK`.
    locked: bool,
    /// The mnemonic's span.
    sp: Span,
}

/// Lowers one X86 (`att` false) or X86_64 (`att` true) instruction
/// written at offset `base` of the source.
pub(super) fn lower_instr(cx: &mut Ctx, text: &str, base: usize, att: bool) -> Result<Low, Error> {
    let lead = text.len() - text.trim_start().len();
    let (mn0, rest, mlen) = mnemonic(text);
    let mspan = Span::new(base + lead, base + lead + mlen);
    let mut mn = mn0.to_ascii_lowercase();
    let mut rest = rest;
    let mut rest_off = base + lead + mlen;
    let mut locked = false;
    if mn == "lock" {
        locked = true;
        let (m2, r2, l2) = mnemonic(rest);
        let lead2 = rest.len() - rest.trim_start().len();
        rest_off += lead2 + l2;
        mn = m2.to_ascii_lowercase();
        rest = r2;
        if mn.is_empty() {
            return Err(cx.src.error(mspan, "`LOCK` without an instruction"));
        }
    }
    // No-operation forms (operands ignored).
    if mn == "nop" || mn == "endbr64" || (att && (mn.starts_with("nop"))) {
        return Ok(Low::Cmds(vec![Command::Nop]));
    }
    let ops = split_ops(rest, rest_off);
    let base_mn = if att {
        att_base(&mn).to_string()
    } else {
        mn.clone()
    };
    let i = Insn {
        mn0,
        mn: &base_mn,
        ops: &ops,
        att,
        locked,
        sp: mspan,
    };
    match base_mn.as_str() {
        "mfence" => {
            arity(cx, mn0, &ops, 0, mspan)?;
            return Ok(Low::Cmds(vec![Command::Fence(Fence::MFence)]));
        }
        "ret" => return Ok(Low::Ret),
        "jmp" | "je" | "jz" | "jne" | "jnz" | "jl" | "js" | "jg" | "jle" | "jge" | "jns" => {
            return lower_jump(cx, &i);
        }
        _ => {}
    }
    // Two-operand forms, normalised to Intel order (dst, src).
    let mut xs = Vec::new();
    for o in &ops {
        xs.push(x86_operand(cx, o, att)?);
    }
    if att {
        xs.reverse();
    }
    match base_mn.as_str() {
        "mov" => lower_mov(cx, &i, xs),
        "xchg" => lower_xchg(cx, &i, xs),
        "add" | "sub" | "and" | "or" | "xor" | "cmp" | "test" | "inc" | "dec" | "shl" | "sal"
        | "xadd" => lower_arith(cx, &i, xs),
        "cmpxchg" if locked => lower_cmpxchg(cx, &i, xs),
        _ => Err(unsupported(
            cx,
            &if locked {
                format!("LOCK {mn0}")
            } else {
                mn0.to_string()
            },
            mspan,
        )),
    }
}

/// `flags := compare(e, 0)`: the sign of `e` (-1, 0 or 1).
fn set_flags(cx: &mut Ctx, e: LExpr) -> Command {
    Command::Assign {
        reg: cx.reg("flags"),
        value: compare(e, Expr::Const(0)),
    }
}

/// Lowers `JMP label` and the conditional jumps `JE`/`JZ`, `JNE`/`JNZ`,
/// `JL`/`JS`, `JG`, `JLE`, `JGE`/`JNS`, which test `flags` against 0.
fn lower_jump(cx: &mut Ctx, i: &Insn) -> Result<Low, Error> {
    let ops = i.ops;
    arity(cx, i.mn0, ops, 1, i.sp)?;
    let label = ops[0].text.to_string();
    if !is_name(&label) {
        return Err(cx
            .src
            .error(ops[0].span, format!("bad jump target `{label}`")));
    }
    if i.mn == "jmp" {
        return Ok(Low::Jump(None, label, ops[0].span));
    }
    let f = var(cx.reg("flags"));
    let z = Expr::Const(0);
    let op = match i.mn {
        "je" | "jz" => BinOp::Eq,
        "jne" | "jnz" => BinOp::Ne,
        "jl" | "js" => BinOp::Lt,
        "jg" => BinOp::Gt,
        "jle" => BinOp::Le,
        _ => BinOp::Ge,
    };
    Ok(Low::Jump(Some(bin(op, f, z)), label, ops[0].span))
}

/// Lowers `MOV dst,src` (operands `xs` in Intel order): a register
/// assignment, a load or a store; `LOCK MOV` is refused.
fn lower_mov(cx: &mut Ctx, i: &Insn, mut xs: Vec<XOp>) -> Result<Low, Error> {
    let (mn0, sp) = (i.mn0, i.sp);
    arity(cx, mn0, i.ops, 2, sp)?;
    if i.locked {
        return Err(unsupported(cx, "LOCK MOV", sp));
    }
    let src = xs.pop().expect("arity 2");
    let dst = xs.pop().expect("arity 2");
    Ok(Low::Cmds(vec![match (dst, src) {
        (XOp::Reg(r), XOp::Reg(s)) => Command::Assign {
            reg: r,
            value: var(s),
        },
        (XOp::Reg(r), XOp::Imm(v)) => Command::Assign { reg: r, value: v },
        (XOp::Reg(r), XOp::Mem(a)) => Command::Load { reg: r, addr: a },
        (XOp::Mem(a), XOp::Reg(s)) => Command::Store {
            addr: a,
            value: var(s),
        },
        (XOp::Mem(a), XOp::Imm(v)) => Command::Store { addr: a, value: v },
        _ => {
            return Err(cx
                .src
                .error(sp, format!("`{mn0}`: unsupported operand combination")))
        }
    }]))
}

/// Lowers `XCHG a,b` (operands `xs`): with memory, an atomic read and
/// write (locked implicitly); between registers, a swap through `#tmp`.
fn lower_xchg(cx: &mut Ctx, i: &Insn, mut xs: Vec<XOp>) -> Result<Low, Error> {
    let (mn0, sp) = (i.mn0, i.sp);
    arity(cx, mn0, i.ops, 2, sp)?;
    let b = xs.pop().expect("arity 2");
    let a = xs.pop().expect("arity 2");
    let t = cx.reg("#tmp");
    match (a, b) {
        (XOp::Mem(m), XOp::Reg(r)) | (XOp::Reg(r), XOp::Mem(m)) => {
            Ok(Low::Cmds(vec![Command::Atomic(vec![
                Command::Load {
                    reg: t,
                    addr: m.clone(),
                },
                Command::Store {
                    addr: m,
                    value: var(r),
                },
                Command::Assign {
                    reg: r,
                    value: var(t),
                },
            ])]))
        }
        (XOp::Reg(r), XOp::Reg(s)) => Ok(Low::Cmds(vec![
            Command::Assign {
                reg: t,
                value: var(r),
            },
            Command::Assign {
                reg: r,
                value: var(s),
            },
            Command::Assign {
                reg: s,
                value: var(t),
            },
        ])),
        _ => Err(cx
            .src
            .error(sp, format!("`{mn0}`: unsupported operand combination"))),
    }
}

/// Lowers the arithmetic `ADD`, `SUB`, `AND`, `OR`, `XOR`, `INC`, `DEC`,
/// `SHL`/`SAL` by a constant (a multiplication by 2^k), the comparisons
/// `CMP`, `TEST` (which only set `flags`) and `XADD` (operands `xs` in
/// Intel order; the source a register or an immediate): on a register
/// ([`arith_reg`]) or on memory ([`arith_mem`]).
fn lower_arith(cx: &mut Ctx, i: &Insn, mut xs: Vec<XOp>) -> Result<Low, Error> {
    let (mn0, mn, sp) = (i.mn0, i.mn, i.sp);
    let unary = matches!(mn, "inc" | "dec");
    arity(cx, mn0, i.ops, if unary { 1 } else { 2 }, sp)?;
    let src = if unary {
        Expr::Const(1)
    } else {
        match xs.pop().expect("arity 2") {
            XOp::Reg(r) => var(r),
            XOp::Imm(v) => v,
            XOp::Mem(_) => {
                return Err(cx.src.error(
                    i.ops[if i.att { 0 } else { 1 }].span,
                    format!("`{mn0}` with a memory source operand is not supported"),
                ))
            }
        }
    };
    let dst = xs.pop().expect("arity ≥ 1");
    let op = match mn {
        "add" | "inc" | "xadd" => BinOp::Add,
        "sub" | "dec" | "cmp" => BinOp::Sub,
        "and" | "test" => BinOp::BitAnd,
        "or" => BinOp::BitOr,
        "xor" => BinOp::BitXor,
        _ => BinOp::Mul,
    };
    let src = if op == BinOp::Mul {
        // Shift by a constant: multiply by 2^k.
        match src.as_const(cx.width) {
            Some(k) if (0..63).contains(&k) => Expr::Const(cx.width.wrap(1i64 << k)),
            _ => {
                return Err(cx.src.error(
                    sp,
                    format!("`{mn0}`: only constant shift amounts are supported"),
                ))
            }
        }
    } else {
        src
    };
    match dst {
        XOp::Reg(r) => arith_reg(cx, i, r, bin(op, var(r), src)),
        XOp::Mem(a) => arith_mem(cx, i, a, op, src),
        XOp::Imm(_) => Err(cx
            .src
            .error(sp, format!("`{mn0}`: destination cannot be an immediate"))),
    }
}

/// True when the arithmetic instruction `mn` writes its destination
/// (all but `CMP` and `TEST`).
fn writes(mn: &str) -> bool {
    !matches!(mn, "cmp" | "test")
}

/// [`lower_arith`] on register `r`, `e` the result: `r := e` and `flags`
/// from `r`, or only `flags` from `e` for `CMP`/`TEST`; refused when
/// `LOCK`ed or `XADD`.
fn arith_reg(cx: &mut Ctx, i: &Insn, r: RegId, e: LExpr) -> Result<Low, Error> {
    if i.locked || i.mn == "xadd" {
        return Err(unsupported(cx, &format!("{} on a register", i.mn0), i.sp));
    }
    if writes(i.mn) {
        let f = set_flags(cx, var(r));
        Ok(Low::Cmds(vec![Command::Assign { reg: r, value: e }, f]))
    } else {
        let c = set_flags(cx, e);
        Ok(Low::Cmds(vec![c]))
    }
}

/// [`lower_arith`] on memory at `a` with operation `op` and source `src`:
/// a read into `#tmp`, then the write of the result (`XADD [m],r`:
/// `[m] := tmp + r; r := tmp`) or, for `CMP`/`TEST`, `flags`; atomic when
/// `LOCK`ed (`XADD` without `LOCK` is refused).
fn arith_mem(cx: &mut Ctx, i: &Insn, a: LExpr, op: BinOp, src: LExpr) -> Result<Low, Error> {
    let sp = i.sp;
    if !i.locked && writes(i.mn) && i.mn != "xadd" {
        // herd relates the read and the write of one instruction by no
        // `po`: under every herd model the read may read a write
        // co-after the instruction's own (herd7 7.58, x86tso.cat and
        // sc.cat: `MOV EAX,[y]; MOV [y],$1 | INC [y]` reaches `EAX=2 /\
        // y=1`); lowered in sequence they would be ordered.
        return Err(refuse(
            cx,
            &format!("{} to memory without LOCK", i.mn0),
            "herd leaves the instruction's read and write unordered in po",
            sp,
        ));
    }
    let t = cx.reg("#tmp");
    let mut body = vec![Command::Load {
        reg: t,
        addr: a.clone(),
    }];
    if i.mn == "xadd" {
        // xadd [m], r: tmp := [m]; [m] := tmp + r; r := tmp.
        let Expr::Var(r) = src else {
            return Err(cx.src.error(sp, "`XADD` needs a register source"));
        };
        body.push(Command::Store {
            addr: a,
            value: bin(BinOp::Add, var(t), var(r)),
        });
        body.push(Command::Assign {
            reg: r,
            value: var(t),
        });
    } else if writes(i.mn) {
        body.push(Command::Store {
            addr: a,
            value: bin(op, var(t), src),
        });
    } else {
        body.push(set_flags(cx, bin(op, var(t), src)));
    }
    if i.locked {
        Ok(Low::Cmds(vec![Command::Atomic(body)]))
    } else {
        if i.mn == "xadd" {
            return Err(unsupported(cx, "XADD without LOCK", sp));
        }
        Ok(Low::Cmds(body))
    }
}

/// Lowers `LOCK CMPXCHG [m],r` (operands `xs`): two atomic alternatives,
/// success (`[m]` equals the accumulator: `[m] := r`, `flags := 0`) and
/// failure (the accumulator gets `[m]`, `flags := 1`).
fn lower_cmpxchg(cx: &mut Ctx, i: &Insn, mut xs: Vec<XOp>) -> Result<Low, Error> {
    let sp = i.sp;
    arity(cx, i.mn0, i.ops, 2, sp)?;
    let src = xs.pop().expect("arity 2");
    let dst = xs.pop().expect("arity 2");
    let (XOp::Mem(a), XOp::Reg(r)) = (dst, src) else {
        return Err(cx.src.error(
            sp,
            "`LOCK CMPXCHG` expects a memory destination and a register source",
        ));
    };
    let acc = cx.reg(if i.att { "rax" } else { "EAX" });
    let t = cx.reg("#tmp");
    let f = cx.reg("flags");
    Ok(Low::Choice(vec![
        vec![Command::Atomic(vec![
            Command::Load {
                reg: t,
                addr: a.clone(),
            },
            Command::Assume(bin(BinOp::Eq, var(t), var(acc))),
            Command::Store {
                addr: a.clone(),
                value: var(r),
            },
            Command::Assign {
                reg: f,
                value: Expr::Const(0),
            },
        ])],
        vec![Command::Atomic(vec![
            Command::Load { reg: t, addr: a },
            Command::Assume(bin(BinOp::Ne, var(t), var(acc))),
            Command::Assign {
                reg: acc,
                value: var(t),
            },
            Command::Assign {
                reg: f,
                value: Expr::Const(1),
            },
        ])],
    ]))
}
