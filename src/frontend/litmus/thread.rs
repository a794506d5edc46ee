//! One thread column of a litmus test → one IR thread: control states
//! (`q0 .. qN`, a labelled position named after its label), each
//! instruction lowered by its architecture ([`super::x86`],
//! [`super::ppc`], [`super::aarch64`], [`super::riscv`]) into a chain of commands or a (conditional) jump, and
//! whether the control graph has a cycle (herd then prints `Loop`, see
//! herdtools7's herd documentation, <http://diy.inria.fr/doc/herd.html>).

use super::ctx::{push_instr, Ctx};
use super::ops::{CallTarget, Low};
use super::syntax::Cell;
use super::{aarch64, ppc, riscv, x86};
use crate::diag::{Error, Span};
use crate::frontend::litmus::Arch;
use crate::program::{BinOp, Command, Expr, LExpr, StateId, UnOp};
use std::collections::BTreeMap;

/// Lowers the cells of thread `me` (`all[me]`); returns true when its
/// control graph has a cycle. When the test uses code addresses
/// ([`super::ctx::CodeMap`]: `BL`, `BLR`, `BR`, `ADR`, labels as values)
/// the thread also holds a copy of every other thread's code (herd lets a
/// thread branch into another's code, `BLR X1` with `X1=P1:L1`), each
/// copy's end a final state like the thread's own end.
pub(super) fn lower_thread(cx: &mut Ctx, all: &[Vec<Cell>], me: usize) -> Result<bool, Error> {
    let segs = segments(cx, all, me)?;
    let (label_addrs, ret_addrs) = code_addrs(cx, &segs);
    for seg in &segs {
        let (j, first, n) = (seg.thread, seg.first, seg.instrs.len());
        cx.seg = j;
        for k in 0..n {
            let (text, span) = seg.instrs[k];
            let low = match cx.arch {
                Arch::X86 => x86::lower_instr(cx, text, span.start, false)?,
                Arch::X86_64 => x86::lower_instr(cx, text, span.start, true)?,
                Arch::Ppc => ppc::lower_instr(cx, text, span.start)?,
                Arch::AArch64 => aarch64::lower_instr(cx, text, span.start)?,
                Arch::RiscV => riscv::lower_instr(cx, text, span.start)?,
                // C tests are read by the C litmus front-end.
                Arch::C => unreachable!("no assembly thread in a C litmus test"),
            };
            let tag0 = if j == me {
                String::new()
            } else {
                format!("P{j}:")
            };
            let at = StateId(first + k as u32);
            let (start, alts) = fetch_alts(cx, seg, k, &tag0, at, low)?;
            for (ai, (guard, low)) in alts.into_iter().enumerate() {
                let alt_tag = if ai == 0 {
                    String::new()
                } else {
                    format!("i{ai}")
                };
                let site = Site {
                    segs: &segs,
                    seg,
                    k,
                    span,
                    from: start,
                    next: StateId(first + k as u32 + 1),
                    end: StateId(first + n as u32),
                    tag: format!("{tag0}{alt_tag}"),
                };
                if let Some(low) = site.guarded(cx, guard, low, text)? {
                    site.place(cx, low, &label_addrs, &ret_addrs)?;
                }
            }
        }
    }
    cx.seg = me;
    Ok(has_cycle(cx.thread))
}

/// Lays out the code of thread `me` and, when the test uses code
/// addresses, of every other thread after it: one [`Segment`] each, and
/// the thread's control states (`q0 .. qN` per segment, a labelled
/// position named after its label, other threads' prefixed `Pj:`), the
/// first the initial state. A label defined twice in one thread is an
/// error.
fn segments<'c>(cx: &mut Ctx, all: &'c [Vec<Cell>], me: usize) -> Result<Vec<Segment<'c>>, Error> {
    let code = cx.vars.code.enabled;
    let order: Vec<usize> = std::iter::once(me)
        .chain((0..all.len()).filter(|&j| code && j != me))
        .collect();
    // Per segment (thread j's code): its instructions and labels, and the
    // state of its position 0.
    let mut segs: Vec<Segment> = Vec::new();
    let mut names: Vec<String> = Vec::new();
    for &j in &order {
        let mut labels: BTreeMap<String, usize> = BTreeMap::new();
        let mut instrs: Vec<(&str, Span)> = Vec::new();
        for c in &all[j] {
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
        let prefix = if j == me {
            String::new()
        } else {
            format!("P{j}:")
        };
        let mut st: Vec<String> = (0..=n).map(|k| format!("{prefix}q{k}")).collect();
        for (l, k) in &labels {
            if st[*k].starts_with(&format!("{prefix}q"))
                && !labels.contains_key(&st[*k][prefix.len()..])
            {
                st[*k] = format!("{prefix}{l}");
            }
        }
        segs.push(Segment {
            thread: j,
            first: names.len() as u32,
            labels,
            instrs,
        });
        names.extend(st);
    }
    cx.thread.states = names.iter().map(|s| cx.names.intern(s)).collect();
    cx.thread.initial = StateId(0);
    Ok(segs)
}

/// The code addresses an indirect jump may go to: (the addresses of the
/// labels of every segment, the return sites: the positions after a call
/// `BL`/`BLR`, in any segment).
fn code_addrs(cx: &Ctx, segs: &[Segment]) -> (Vec<i64>, Vec<i64>) {
    let mut label_addrs: Vec<i64> = Vec::new();
    let mut ret_addrs: Vec<i64> = Vec::new();
    for s in segs {
        for l in s.labels.keys() {
            label_addrs.extend(cx.vars.code.label_addr(s.thread, l));
        }
        for (k, (t, _)) in s.instrs.iter().enumerate() {
            let m = super::ops::mnemonic(t).0.to_ascii_uppercase();
            if m == "BL" || m == "BLR" {
                ret_addrs.push(cx.vars.code.pos_addr(s.thread, k + 1));
            }
        }
    }
    (label_addrs, ret_addrs)
}

/// The alternatives of instruction `k` of `seg` (its lowering `low`, its
/// state `at`): `low` alone from `at` when the instruction is not
/// modifiable; else (herd's ifetch variant) a fetch from its code address
/// into a new state `{tag0}q{k}.f`, then one alternative per instruction
/// value it may hold, each guarded by an assume on the value read. Returns
/// the state the alternatives start from and the alternatives.
fn fetch_alts(
    cx: &mut Ctx,
    seg: &Segment,
    k: usize,
    tag0: &str,
    at: StateId,
    low: Low,
) -> Result<(StateId, Vec<Alt>), Error> {
    let (j, span) = (seg.thread, seg.instrs[k].1);
    let Some(orig) = cx.vars.fetch.get(&cx.vars.code.pos_addr(j, k)).copied() else {
        return Ok((at, vec![(None, low)]));
    };
    let reg = cx.reg("#if");
    let s = cx.names.intern(&format!("{tag0}q{k}.f"));
    cx.thread.states.push(s);
    let fq = StateId(cx.thread.states.len() as u32 - 1);
    let addr = Expr::Const(cx.vars.code.pos_addr(j, k));
    let fetch = Command::Ann(
        crate::program::Ann(crate::program::Ann::IFETCH),
        Box::new(Command::Load { reg, addr }),
    );
    push_instr(cx.thread, at, fq, fetch, span);
    let is = |v: i64| Command::Assume(Expr::bin(BinOp::Eq, Expr::Var(reg), Expr::Const(v)));
    let mut alts = vec![(Some(is(orig)), low)];
    for (v, alt) in cx.vars.fetch_alts.clone() {
        if v != orig {
            let l = aarch64::lower_instr(cx, &alt, span.start)?;
            alts.push((Some(is(v)), l));
        }
    }
    Ok((fq, alts))
}

/// One alternative of an instruction: the assume guarding it (a fetched
/// instruction value; None when the instruction is not modifiable) and
/// its lowering.
type Alt = (Option<Command>, Low);

/// Where one alternative of one lowered instruction goes in the thread.
struct Site<'s, 'c> {
    /// Every segment of the thread (for code addresses).
    segs: &'s [Segment<'c>],
    /// The segment of the instruction.
    seg: &'s Segment<'c>,
    /// The instruction's position in its segment.
    k: usize,
    /// The instruction's span.
    span: Span,
    /// The state the alternative starts from.
    from: StateId,
    /// The state of the next instruction.
    next: StateId,
    /// The end of the segment.
    end: StateId,
    /// The prefix of the names of the intermediate states (`Pj:` for
    /// another thread's code, `iN` for a fetch alternative after the first).
    tag: String,
}

impl Site<'_, '_> {
    /// Applies the fetch guard `guard` (an assume) to `low`: the guard
    /// first in each chain of commands; a jump is placed here, both
    /// branches under the guard (None returned); a call, return or
    /// indirect jump of instruction `text` is refused.
    fn guarded(
        &self,
        cx: &mut Ctx,
        guard: Option<Command>,
        low: Low,
        text: &str,
    ) -> Result<Option<Low>, Error> {
        let span = self.span;
        Ok(Some(match (guard, low) {
            (None, low) => low,
            (Some(g), Low::Cmds(mut cmds)) => {
                cmds.insert(0, g);
                Low::Cmds(cmds)
            }
            (Some(g), Low::Choice(alts)) => Low::Choice(
                alts.into_iter()
                    .map(|mut c| {
                        c.insert(0, g.clone());
                        c
                    })
                    .collect(),
            ),
            (Some(g), Low::Jump(cond, l, lspan)) => {
                let Command::Assume(ge) = g else {
                    unreachable!("a fetch guard is an assume")
                };
                let target = self.label(cx, &l, lspan)?;
                let from = self.from;
                match cond {
                    None => push_instr(cx.thread, from, target, Command::Assume(ge), span),
                    Some(c) => {
                        let both =
                            |x: LExpr| Command::Assume(Expr::bin(BinOp::And, ge.clone(), x));
                        push_instr(cx.thread, from, target, both(c.clone()), span);
                        push_instr(cx.thread, from, self.next, both(Expr::un(UnOp::Not, c)), span);
                    }
                }
                return Ok(None);
            }
            (Some(_), _) => {
                return Err(cx.src.error_help(
                    span,
                    format!("unsupported modifiable instruction `{text}`: a call, return or indirect jump (instruction fetch: self-modifying code)"),
                    "a fetched instruction may be a plain instruction or a branch to a label; see docs/litmus.md",
                ))
            }
        }))
    }

    /// Places `low` as transitions from [`Site::from`]: chains of
    /// commands to the next instruction, a return to the end (or, with
    /// code addresses, through the link register to a return site in
    /// `ret_addrs`), a call or jump to a label, or an indirect one to any
    /// of `label_addrs`.
    fn place(
        &self,
        cx: &mut Ctx,
        low: Low,
        label_addrs: &[i64],
        ret_addrs: &[i64],
    ) -> Result<(), Error> {
        let (from, span, next, end) = (self.from, self.span, self.next, self.end);
        match low {
            Low::Cmds(cmds) => self.chain(cx, cmds, "", next),
            Low::Choice(alts) => {
                for (a, cmds) in alts.into_iter().enumerate() {
                    self.chain(cx, cmds, &format!("{}", (b'a' + a as u8) as char), next);
                }
            }
            Low::Ret => push_instr(cx.thread, from, end, Command::Nop, span),
            Low::RetVia(r) if cx.vars.code.enabled => {
                // Back to a return site, or the end when the link
                // register holds none (0, its initial value).
                let t = Expr::Var(r);
                self.indirect(cx, Vec::new(), t.clone(), ret_addrs, "r");
                let stop = Command::Assume(Expr::bin(BinOp::Eq, t, Expr::Const(0)));
                self.chain(cx, vec![stop], "r", end);
            }
            Low::RetVia(_) => push_instr(cx.thread, from, end, Command::Nop, span),
            Low::Call(link, target) => {
                let ret = cx.vars.code.pos_addr(self.seg.thread, self.k + 1);
                let set = Command::Assign {
                    reg: link,
                    value: Expr::Const(ret),
                };
                match target {
                    CallTarget::Label(l, lspan) => {
                        let to = self.label(cx, &l, lspan)?;
                        self.chain(cx, vec![set], "", to);
                    }
                    CallTarget::Reg(e) => self.indirect(cx, vec![set], e, label_addrs, "c"),
                }
            }
            Low::JumpReg(e) => self.indirect(cx, Vec::new(), e, label_addrs, "b"),
            Low::Jump(cond, l, lspan) => {
                let target = self.label(cx, &l, lspan)?;
                match cond {
                    None => push_instr(cx.thread, from, target, Command::Nop, span),
                    Some(c) => {
                        push_instr(cx.thread, from, target, Command::Assume(c.clone()), span);
                        push_instr(
                            cx.thread,
                            from,
                            next,
                            Command::Assume(Expr::un(UnOp::Not, c)),
                            span,
                        );
                    }
                }
            }
        }
        Ok(())
    }

    /// Places `cmds` (a `Nop` when empty) as a chain of transitions from
    /// [`Site::from`] to `to_last`, through new states
    /// `{tag}q{k}{tag_suffix}.1`, `.2`, ...
    fn chain(&self, cx: &mut Ctx, cmds: Vec<Command>, tag_suffix: &str, to_last: StateId) {
        let cmds = if cmds.is_empty() {
            vec![Command::Nop]
        } else {
            cmds
        };
        let m = cmds.len();
        let mut cur = self.from;
        for (i, c) in cmds.into_iter().enumerate() {
            let to = if i + 1 == m {
                to_last
            } else {
                let s = cx
                    .names
                    .intern(&format!("{}q{}{tag_suffix}.{}", self.tag, self.k, i + 1));
                cx.thread.states.push(s);
                StateId(cx.thread.states.len() as u32 - 1)
            };
            push_instr(cx.thread, cur, to, c, self.span);
            cur = to;
        }
    }

    /// The state a branch of this instruction to `label` (at `lspan`)
    /// goes to ([`Segment::target`]); an undefined label is an error.
    fn label(&self, cx: &Ctx, label: &str, lspan: Span) -> Result<StateId, Error> {
        match self.seg.target(label, self.k) {
            Some(tk) => Ok(StateId(self.seg.first + tk as u32)),
            None => Err(cx.src.error(lspan, format!("undefined label `{label}`"))),
        }
    }

    /// Places an indirect jump on `target`: one alternative per code
    /// address in `addrs` that leads into the thread, each assuming the
    /// target holds it (the target read first, `BLR X30`), then `pre`.
    fn indirect(&self, cx: &mut Ctx, pre: Vec<Command>, target: LExpr, addrs: &[i64], tag: &str) {
        for (a, &v) in addrs.iter().enumerate() {
            if let Some(to) = state_of(cx, self.segs, v) {
                let mut cmds = vec![Command::Assume(Expr::bin(
                    BinOp::Eq,
                    target.clone(),
                    Expr::Const(v),
                ))];
                cmds.extend(pre.iter().cloned());
                self.chain(cx, cmds, &format!("{tag}{a}"), to);
            }
        }
    }
}

/// The state code address `addr` leads to in the thread of `segs`, if
/// any.
fn state_of(cx: &Ctx, segs: &[Segment], addr: i64) -> Option<StateId> {
    let (j, pos) = cx.vars.code.position(addr)?;
    let s = segs.iter().find(|s| s.thread == j)?;
    Some(StateId(s.first + pos as u32))
}

/// One thread's code inside the thread being lowered.
struct Segment<'c> {
    /// Whose code.
    thread: usize,
    /// The state of its position 0.
    first: u32,
    /// Its labels → positions.
    labels: BTreeMap<String, usize>,
    /// Its instructions (text, span).
    instrs: Vec<(&'c str, Span)>,
}

impl Segment<'_> {
    /// The position a branch at position `k` to `label` goes to: a label
    /// of the segment, or a PC-relative target `.+N` / `.-N` / `.` (N
    /// bytes, 4 per instruction, as herd's AArch64 parser reads them:
    /// `B .+8` skips one instruction), within the code or at its end.
    /// None for anything else.
    fn target(&self, label: &str, k: usize) -> Option<usize> {
        if let Some(&tk) = self.labels.get(label) {
            return Some(tk);
        }
        let rel = label.strip_prefix('.')?.replace(' ', "");
        let off: i64 = if rel.is_empty() {
            0
        } else {
            rel.strip_prefix('+').unwrap_or(&rel).parse().ok()?
        };
        if off % 4 != 0 {
            return None;
        }
        let t = k as i64 + off / 4;
        (0..=self.instrs.len() as i64)
            .contains(&t)
            .then_some(t as usize)
    }
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
