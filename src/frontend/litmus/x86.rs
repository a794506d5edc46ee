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
use super::ops::{arity, bin, compare, is_name, mnemonic, split_ops, unsupported, var, Low, Op};
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
    match base_mn.as_str() {
        "mfence" => {
            arity(cx, mn0, &ops, 0, mspan)?;
            return Ok(Low::Cmds(vec![Command::Fence(Fence::MFence)]));
        }
        "ret" => return Ok(Low::Ret),
        "jmp" | "je" | "jz" | "jne" | "jnz" | "jl" | "js" | "jg" | "jle" | "jge" | "jns" => {
            arity(cx, mn0, &ops, 1, mspan)?;
            let label = ops[0].text.to_string();
            if !is_name(&label) {
                return Err(cx
                    .src
                    .error(ops[0].span, format!("bad jump target `{label}`")));
            }
            if base_mn == "jmp" {
                return Ok(Low::Jump(None, label, ops[0].span));
            }
            let f = var(cx.reg("flags"));
            let z = Expr::Const(0);
            let op = match base_mn.as_str() {
                "je" | "jz" => BinOp::Eq,
                "jne" | "jnz" => BinOp::Ne,
                "jl" | "js" => BinOp::Lt,
                "jg" => BinOp::Gt,
                "jle" => BinOp::Le,
                _ => BinOp::Ge,
            };
            return Ok(Low::Jump(Some(bin(op, f, z)), label, ops[0].span));
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
    let sp = mspan;
    let tmp = |cx: &mut Ctx| cx.reg("#tmp");
    let flags = |cx: &mut Ctx, e: LExpr| Command::Assign {
        reg: cx.reg("flags"),
        value: compare(e, Expr::Const(0)),
    };
    match base_mn.as_str() {
        "mov" => {
            arity(cx, mn0, &ops, 2, sp)?;
            if locked {
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
        "xchg" => {
            arity(cx, mn0, &ops, 2, sp)?;
            let b = xs.pop().expect("arity 2");
            let a = xs.pop().expect("arity 2");
            let t = tmp(cx);
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
        "add" | "sub" | "and" | "or" | "xor" | "cmp" | "test" | "inc" | "dec" | "shl" | "sal"
        | "xadd" => {
            let unary = matches!(base_mn.as_str(), "inc" | "dec");
            arity(cx, mn0, &ops, if unary { 1 } else { 2 }, sp)?;
            let src = if unary {
                Expr::Const(1)
            } else {
                match xs.pop().expect("arity 2") {
                    XOp::Reg(r) => var(r),
                    XOp::Imm(v) => v,
                    XOp::Mem(_) => {
                        return Err(cx.src.error(
                            ops[if att { 0 } else { 1 }].span,
                            format!("`{mn0}` with a memory source operand is not supported"),
                        ))
                    }
                }
            };
            let dst = xs.pop().expect("arity ≥ 1");
            let op = match base_mn.as_str() {
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
            let writes = !matches!(base_mn.as_str(), "cmp" | "test");
            match dst {
                XOp::Reg(r) => {
                    if locked || base_mn == "xadd" {
                        return Err(unsupported(cx, &format!("{mn0} on a register"), sp));
                    }
                    let e = bin(op, var(r), src);
                    if writes {
                        let f = cx.reg("flags");
                        Ok(Low::Cmds(vec![
                            Command::Assign { reg: r, value: e },
                            Command::Assign {
                                reg: f,
                                value: compare(var(r), Expr::Const(0)),
                            },
                        ]))
                    } else {
                        let c = flags(cx, e);
                        Ok(Low::Cmds(vec![c]))
                    }
                }
                XOp::Mem(a) => {
                    let t = tmp(cx);
                    let mut body = vec![Command::Load {
                        reg: t,
                        addr: a.clone(),
                    }];
                    if base_mn == "xadd" {
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
                    } else if writes {
                        body.push(Command::Store {
                            addr: a,
                            value: bin(op, var(t), src),
                        });
                    } else {
                        body.push(flags(cx, bin(op, var(t), src)));
                    }
                    if locked {
                        Ok(Low::Cmds(vec![Command::Atomic(body)]))
                    } else {
                        if base_mn == "xadd" {
                            return Err(unsupported(cx, "XADD without LOCK", sp));
                        }
                        Ok(Low::Cmds(body))
                    }
                }
                XOp::Imm(_) => Err(cx
                    .src
                    .error(sp, format!("`{mn0}`: destination cannot be an immediate"))),
            }
        }
        "cmpxchg" if locked => {
            arity(cx, mn0, &ops, 2, sp)?;
            let src = xs.pop().expect("arity 2");
            let dst = xs.pop().expect("arity 2");
            let (XOp::Mem(a), XOp::Reg(r)) = (dst, src) else {
                return Err(cx.src.error(
                    sp,
                    "`LOCK CMPXCHG` expects a memory destination and a register source",
                ));
            };
            let acc = cx.reg(if att { "rax" } else { "EAX" });
            let t = tmp(cx);
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
