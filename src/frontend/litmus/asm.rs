//! Instruction lowering for X86 (Intel syntax), X86_64 (AT&T syntax) and
//! PPC: each source instruction becomes a short chain of IR commands or a
//! (conditional) jump. Data flows through registers exactly as written
//! (`xor r3,r1,r1` is `r3 := r1 ^ r1`), so that address, data and control
//! dependencies can be computed from the IR later.

use super::lower::{push_instr, Ctx};
use super::syntax::Cell;
use crate::diag::{Error, Span};
use crate::litmus::parse_int;
use crate::litmus::Arch;
use crate::program::{BinOp, Command, Expr, Fence, LExpr, RegId, StateId, UnOp};
use std::collections::BTreeMap;

/// What one source instruction lowers to.
enum Low {
    /// A chain of commands (empty = `Nop`).
    Cmds(Vec<Command>),
    /// A jump to a label, conditional when `Some(cond)` (taken if cond ≠ 0).
    Jump(Option<LExpr>, String, Span),
    /// Jump to the end of the thread (`ret`, `blr`).
    Ret,
    /// Alternatives from the same state (e.g. `CMPXCHG` success/failure),
    /// each a chain of commands, all continuing at the next instruction.
    Choice(Vec<Vec<Command>>),
}

struct Op<'a> {
    text: &'a str,
    span: Span,
}

fn split_ops<'a>(s: &'a str, base: usize) -> Vec<Op<'a>> {
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

fn var(r: RegId) -> LExpr {
    Expr::Var(r)
}

fn bin(op: BinOp, a: LExpr, b: LExpr) -> LExpr {
    Expr::bin(op, a, b)
}

/// sign(a - b) as `(a > b) - (a < b)`.
fn compare(a: LExpr, b: LExpr) -> LExpr {
    bin(
        BinOp::Sub,
        bin(BinOp::Gt, a.clone(), b.clone()),
        bin(BinOp::Lt, a, b),
    )
}

/// Lowers the cells of one thread; returns true when its control graph
/// has a cycle.
pub(super) fn lower_thread(cx: &mut Ctx, cells: &[Cell]) -> Result<bool, Error> {
    // Positions and labels.
    let mut labels: BTreeMap<String, usize> = BTreeMap::new();
    let mut instrs: Vec<(&str, Span)> = Vec::new();
    for c in cells {
        for (l, sp) in &c.labels {
            if labels.insert(l.clone(), instrs.len()).is_some() {
                return Err(cx.src.error(*sp, format!("label `{l}` defined twice")));
            }
        }
        if let Some((t, sp)) = &c.instr {
            instrs.push((t.as_str(), *sp));
        }
    }
    let n = instrs.len();
    let mut state_names: Vec<String> = (0..=n).map(|k| format!("q{k}")).collect();
    for (l, k) in &labels {
        if state_names[*k].starts_with('q') && !labels.contains_key(&state_names[*k]) {
            state_names[*k] = l.clone();
        }
    }
    cx.thread.states = state_names.iter().map(|s| cx.names.intern(s)).collect();
    cx.thread.initial = StateId(0);
    for (k, (text, span)) in instrs.iter().enumerate() {
        let low = match cx.arch {
            Arch::X86 => x86(cx, text, span.start, false)?,
            Arch::X86_64 => x86(cx, text, span.start, true)?,
            Arch::Ppc => ppc(cx, text, span.start)?,
        };
        let from = StateId(k as u32);
        let next = StateId(k as u32 + 1);
        let chain = |cx: &mut Ctx, cmds: Vec<Command>, tag: &str| {
            let cmds = if cmds.is_empty() {
                vec![Command::Nop]
            } else {
                cmds
            };
            let m = cmds.len();
            let mut cur = from;
            for (j, c) in cmds.into_iter().enumerate() {
                let to = if j + 1 == m {
                    next
                } else {
                    let s = cx.names.intern(&format!("q{k}{tag}.{}", j + 1));
                    cx.thread.states.push(s);
                    StateId(cx.thread.states.len() as u32 - 1)
                };
                push_instr(cx.thread, cur, to, c, *span);
                cur = to;
            }
        };
        match low {
            Low::Cmds(cmds) => chain(cx, cmds, ""),
            Low::Choice(alts) => {
                for (a, cmds) in alts.into_iter().enumerate() {
                    chain(cx, cmds, &format!("{}", (b'a' + a as u8) as char));
                }
            }
            Low::Ret => push_instr(cx.thread, from, StateId(n as u32), Command::Nop, *span),
            Low::Jump(cond, label, lspan) => {
                let Some(&tk) = labels.get(&label) else {
                    return Err(cx.src.error(lspan, format!("undefined label `{label}`")));
                };
                let target = StateId(tk as u32);
                match cond {
                    None => push_instr(cx.thread, from, target, Command::Nop, *span),
                    Some(c) => {
                        push_instr(cx.thread, from, target, Command::Assume(c.clone()), *span);
                        push_instr(
                            cx.thread,
                            from,
                            next,
                            Command::Assume(Expr::un(UnOp::Not, c)),
                            *span,
                        );
                    }
                }
            }
        }
    }
    Ok(has_cycle(cx.thread))
}

/// True when the thread's control graph has a cycle (herd prints `Loop`).
fn has_cycle(t: &crate::program::Thread) -> bool {
    let out = t.outgoing();
    // 0 = unvisited, 1 = on the stack, 2 = done; iterative DFS.
    let mut mark = vec![0u8; t.states.len()];
    for root in 0..t.states.len() {
        if mark[root] != 0 {
            continue;
        }
        let mut stack = vec![(root, 0usize)];
        mark[root] = 1;
        while let Some((q, i)) = stack.pop() {
            if let Some(&ix) = out[q].get(i) {
                stack.push((q, i + 1));
                let r = t.instrs[ix].to.0 as usize;
                match mark[r] {
                    0 => {
                        mark[r] = 1;
                        stack.push((r, 0));
                    }
                    1 => return true,
                    _ => {}
                }
            } else {
                mark[q] = 2;
            }
        }
    }
    false
}

fn unsupported(cx: &Ctx, mn: &str, span: Span) -> Error {
    cx.src.error_help(
        span,
        format!("unsupported {} instruction `{mn}`", cx.arch.keyword()),
        "see docs/litmus.md for the supported instructions",
    )
}

fn arity(cx: &Ctx, mn: &str, ops: &[Op], n: usize, span: Span) -> Result<(), Error> {
    if ops.len() != n {
        return Err(cx.src.error(
            span,
            format!("`{mn}` expects {n} operand(s), found {}", ops.len()),
        ));
    }
    Ok(())
}

fn mnemonic(text: &str) -> (&str, &str, usize) {
    let t = text.trim_start();
    let end = t.find(char::is_whitespace).unwrap_or(t.len());
    (&t[..end], &t[end..], end)
}

// ------------------------------------------------------------------ x86

/// Canonical 64-bit name of an X86_64 register (`eax` → `rax`).
pub(super) fn x64_reg(r: &str) -> Option<&'static str> {
    let r = r.to_ascii_lowercase();
    const LEGACY: [(&str, [&str; 4]); 8] = [
        ("rax", ["rax", "eax", "ax", "al"]),
        ("rbx", ["rbx", "ebx", "bx", "bl"]),
        ("rcx", ["rcx", "ecx", "cx", "cl"]),
        ("rdx", ["rdx", "edx", "dx", "dl"]),
        ("rsi", ["rsi", "esi", "si", "sil"]),
        ("rdi", ["rdi", "edi", "di", "dil"]),
        ("rbp", ["rbp", "ebp", "bp", "bpl"]),
        ("rsp", ["rsp", "esp", "sp", "spl"]),
    ];
    for (canon, forms) in LEGACY {
        if forms.contains(&r.as_str()) {
            return Some(canon);
        }
    }
    const NEW: [&str; 9] = ["r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip"];
    for c in NEW {
        if r == c {
            return Some(c);
        }
        if let Some(s) = r.strip_prefix(c) {
            if c != "rip" && ["d", "w", "b"].contains(&s) {
                return Some(c);
            }
        }
    }
    None
}

const X86_REGS: [&str; 8] = ["EAX", "EBX", "ECX", "EDX", "ESI", "EDI", "EBP", "ESP"];

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

fn is_name(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
        && !s.starts_with(|c: char| c.is_ascii_digit())
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

fn x86(cx: &mut Ctx, text: &str, base: usize, att: bool) -> Result<Low, Error> {
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

// ------------------------------------------------------------------ PPC

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
    let name = super::lower::norm_reg(Arch::Ppc, t);
    Ok(cx.reg(&name))
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

fn ppc(cx: &mut Ctx, text: &str, base: usize) -> Result<Low, Error> {
    let lead = text.len() - text.trim_start().len();
    let (mn0, rest, mlen) = mnemonic(text);
    let sp = Span::new(base + lead, base + lead + mlen);
    let mn = mn0.to_ascii_lowercase();
    let ops = split_ops(rest, base + lead + mlen);
    let n = ops.len();
    let w = cx.width;
    let cr0 = |cx: &mut Ctx| cx.reg("cr0");
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
    let assign = |reg: RegId, value: LExpr| Low::Cmds(vec![Command::Assign { reg, value }]);
    match mn.as_str() {
        "nop" => Ok(Low::Cmds(vec![Command::Nop])),
        "li" | "lis" => {
            arity(cx, mn0, &ops, 2, sp)?;
            let d = ppc_reg(cx, &ops[0])?;
            let (v, e) = ppc_imm(cx, &ops[1])?;
            if mn == "lis" {
                let s = v.wrapping_mul(65536);
                return Ok(assign(d, cx.int(s, ops[1].span)?));
            }
            Ok(assign(d, e))
        }
        "addi" | "addis" | "xori" | "ori" | "andi." | "mulli" => {
            arity(cx, mn0, &ops, 3, sp)?;
            let d = ppc_reg(cx, &ops[0])?;
            let a = ppc_reg(cx, &ops[1])?;
            let (v, mut e) = ppc_imm(cx, &ops[2])?;
            if mn == "addis" {
                e = cx.int(v.wrapping_mul(65536), ops[2].span)?;
            }
            let op = match mn.as_str() {
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
                let c = cr0(cx);
                cmds.push(Command::Assign {
                    reg: c,
                    value: compare(var(d), Expr::Const(0)),
                });
            }
            Ok(Low::Cmds(cmds))
        }
        "add" | "sub" | "subf" | "xor" | "and" | "or" | "mullw" | "mulld" => {
            arity(cx, mn0, &ops, 3, sp)?;
            let d = ppc_reg(cx, &ops[0])?;
            let a = ppc_reg(cx, &ops[1])?;
            let b = ppc_reg(cx, &ops[2])?;
            let value = match mn.as_str() {
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
        "mr" | "extsw" | "neg" => {
            arity(cx, mn0, &ops, 2, sp)?;
            let d = ppc_reg(cx, &ops[0])?;
            let s = ppc_reg(cx, &ops[1])?;
            let value = if mn == "neg" {
                Expr::un(UnOp::Neg, var(s))
            } else {
                // extsw: sign-extension of the low word is the identity on
                // values of at most 32 bits.
                if mn == "extsw" && w.0 > 32 {
                    return Err(unsupported(cx, "extsw (with --width above 32)", sp));
                }
                var(s)
            };
            Ok(assign(d, value))
        }
        "clrldi" => {
            arity(cx, mn0, &ops, 3, sp)?;
            let d = ppc_reg(cx, &ops[0])?;
            let s = ppc_reg(cx, &ops[1])?;
            let k = parse_int(ops[2].text).unwrap_or(-1);
            if !(0..=64).contains(&k) || 64 - k < w.0 as i64 {
                return Err(cx.src.error(
                    ops[2].span,
                    format!("`clrldi` clearing {} high bits is not supported at width {}", ops[2].text, w.0),
                ));
            }
            Ok(assign(d, var(s)))
        }
        "cmpw" | "cmpd" | "cmplw" | "cmpld" | "cmpwi" | "cmpdi" | "cmplwi" | "cmpldi" => {
            let (crname, ops) = if n == 3 { (ops[0].text.to_ascii_lowercase(), &ops[1..]) } else { ("cr0".to_string(), &ops[..]) };
            if ops.len() != 2 || !crname.starts_with("cr") {
                return Err(cx.src.error(sp, format!("`{mn0}` expects operands `[crN,]rA,{}`", if mn.ends_with('i') { "imm" } else { "rB" })));
            }
            let c = cx.reg(&crname);
            let a = var(ppc_reg(cx, &ops[0])?);
            let b = if mn.ends_with('i') { ppc_imm(cx, &ops[1])?.1 } else { var(ppc_reg(cx, &ops[1])?) };
            let value = if mn.starts_with("cmpl") {
                // Unsigned: flip the sign bit, then compare signed.
                let m = Expr::Const(w.min());
                compare(bin(BinOp::BitXor, a, m.clone()), bin(BinOp::BitXor, b, m))
            } else {
                compare(a, b)
            };
            Ok(assign(c, value))
        }
        "b" => {
            arity(cx, mn0, &ops, 1, sp)?;
            Ok(Low::Jump(None, ops[0].text.to_string(), ops[0].span))
        }
        "blr" => Ok(Low::Ret),
        "beq" | "bne" | "blt" | "bgt" | "ble" | "bge" => {
            let (crname, target) = match n {
                1 => ("cr0".to_string(), &ops[0]),
                2 => (ops[0].text.to_ascii_lowercase(), &ops[1]),
                _ => return Err(cx.src.error(sp, format!("`{mn0}` expects `[crN,]label`"))),
            };
            if !crname.starts_with("cr") || !is_name(target.text) {
                return Err(cx.src.error(sp, format!("`{mn0}` expects `[crN,]label`")));
            }
            let c = var(cx.reg(&crname));
            let op = match mn.as_str() {
                "beq" => BinOp::Eq,
                "bne" => BinOp::Ne,
                "blt" => BinOp::Lt,
                "bgt" => BinOp::Gt,
                "ble" => BinOp::Le,
                _ => BinOp::Ge,
            };
            Ok(Low::Jump(Some(bin(op, c, Expr::Const(0))), target.text.to_string(), target.span))
        }
        "lwa" | "lwax" => Err(cx.src.error_help(
            sp,
            format!("unsupported PPC instruction `{mn0}`"),
            "sign-extending word loads need mixed-size (32/64-bit) registers, which are not modelled",
        )),
        "lwz" | "ld" => {
            if n == 0 {
                return Err(cx.src.error(sp, format!("`{mn0}` expects `rD,d(rA)`")));
            }
            let d = ppc_reg(cx, &ops[0])?;
            let addr = ppc_disp_addr(cx, &ops, mn0, sp)?;
            Ok(Low::Cmds(vec![Command::Load { reg: d, addr }]))
        }
        "stw" | "std" => {
            if n == 0 {
                return Err(cx.src.error(sp, format!("`{mn0}` expects `rS,d(rA)`")));
            }
            let s = ppc_reg(cx, &ops[0])?;
            let addr = ppc_disp_addr(cx, &ops, mn0, sp)?;
            Ok(Low::Cmds(vec![Command::Store { addr, value: var(s) }]))
        }
        "lwzx" | "ldx" | "stwx" | "stdx" | "lwarx" | "ldarx" | "stwcx." | "stdcx." => {
            arity(cx, mn0, &ops, 3, sp)?;
            let x = ppc_reg(cx, &ops[0])?;
            let a = ppc_reg(cx, &ops[1])?;
            let b = ppc_reg(cx, &ops[2])?;
            let addr = bin(BinOp::Add, var(a), var(b));
            Ok(Low::Cmds(match mn.as_str() {
                "lwzx" | "ldx" => vec![Command::Load { reg: x, addr }],
                "stwx" | "stdx" => vec![Command::Store { addr, value: var(x) }],
                "lwarx" | "ldarx" => vec![Command::LoadReserve { reg: x, addr }],
                _ => {
                    // stwcx. sets cr0 to "equal" (0) on success.
                    let flag = cx.reg("#stcx");
                    let c = cr0(cx);
                    vec![
                        Command::StoreCond { addr, value: var(x), flag },
                        Command::Assign {
                            reg: c,
                            value: bin(BinOp::Eq, var(flag), Expr::Const(0)),
                        },
                    ]
                }
            }))
        }
        _ => Err(unsupported(cx, mn0, sp)),
    }
}
