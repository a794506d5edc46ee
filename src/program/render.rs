//! Printing the Program IR back in the native syntax (`bmc-rmm parse`).
//!
//! Names that the native language reserves ([`KEYWORDS`]) are its
//! keywords; every engine renders commands and steps with [`command`].
//! The output re-parses (with [`crate::frontend::native::parse`]) to the
//! same IR, as compared by [`Program::fingerprint`]: shared variables (with
//! `@addr` when not the default sequential address), initial cells, each
//! thread in automaton form with `reg` declarations for all registers (in
//! order, with initial values), a `states` list (so state order and
//! isolated states round-trip), `initial`, and the transitions in order;
//! then the goals in order. Names that are not plain identifiers (or are
//! keywords) are written in backquotes.

use crate::program::{
    Ann, Command, Expr, Fence, GVar, Goal, GoalAt, GoalKind, LExpr, MembarMask, PgasCmd, Program,
    ThreadId, UnOp,
};
use std::fmt::Write;

/// Reserved words. Any name equal to one (or not an identifier) must be
/// written in backquotes, e.g. `` `lock` ``.
pub const KEYWORDS: &[&str] = &[
    "shared", "init", "nodes", "thread", "reg", "states", "initial", "goal", "error", "final",
    "anywhere", "where", "if", "else", "while", "choose", "or", "goto", "assert", "assume",
    "mfence", "fence", "sync", "lwsync", "isync", "eieio", "membar", "lock", "unlock", "nop",
    "atomic", "cas", "xchg", "lwarx", "stwcx", "read", "write", "barrier", "mem", "rank", "dmb",
    "isb", "ldar", "ldapr", "stlr", "guard", "select",
];

/// True when `s` can be written bare as a register, variable or thread
/// name: an identifier that is not a keyword.
pub fn is_plain_name(s: &str) -> bool {
    let mut cs = s.chars();
    match cs.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' => {}
        _ => return false,
    }
    cs.all(|c| c.is_ascii_alphanumeric() || c == '_') && !KEYWORDS.contains(&s)
}

/// A register, variable, thread or goal name as written in the source.
pub fn name(s: &str) -> String {
    if is_plain_name(s) {
        s.to_string()
    } else {
        let mut out = String::from("`");
        for c in s.chars() {
            if c == '`' || c == '\\' {
                out.push('\\');
            }
            out.push(c);
        }
        out.push('`');
        out
    }
}

/// A state name: like [`name`], but integers (`12`) stay bare.
pub fn state_name(s: &str) -> String {
    if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
        s.to_string()
    } else {
        name(s)
    }
}

/// Prints an expression with minimal parentheses; `var` prints a variable.
pub fn expr<V>(e: &Expr<V>, var: &impl Fn(&V) -> String) -> String {
    let mut s = String::new();
    write_expr(&mut s, e, var);
    s
}

fn write_expr<V>(out: &mut String, e: &Expr<V>, var: &impl Fn(&V) -> String) {
    match e {
        Expr::Const(c) => {
            let _ = write!(out, "{c}");
        }
        Expr::Var(v) => out.push_str(&var(v)),
        Expr::Rank => out.push_str("rank"),
        Expr::Nodes => out.push_str("nodes"),
        Expr::Un(op, a) => {
            out.push_str(op.symbol());
            // `-5` would re-parse as the constant -5, so parenthesise a
            // constant operand; binary operands need parentheses too.
            if matches!(**a, Expr::Bin(..))
                || (matches!(op, UnOp::Neg) && matches!(**a, Expr::Const(_)))
            {
                out.push('(');
                write_expr(out, a, var);
                out.push(')');
            } else {
                write_expr(out, a, var);
            }
        }
        Expr::Bin(op, a, b) => {
            let p = op.precedence();
            let lp = matches!(&**a, Expr::Bin(o, ..) if o.precedence() < p);
            let rp = matches!(&**b, Expr::Bin(o, ..) if o.precedence() <= p);
            if lp {
                out.push('(');
            }
            write_expr(out, a, var);
            if lp {
                out.push(')');
            }
            let _ = write!(out, " {} ", op.symbol());
            if rp {
                out.push('(');
            }
            write_expr(out, b, var);
            if rp {
                out.push(')');
            }
        }
    }
}

/// Per-thread printing context.
struct Tp<'a> {
    p: &'a Program,
    t: ThreadId,
}

impl Tp<'_> {
    fn reg(&self, r: &crate::program::RegId) -> String {
        name(self.p.reg_name(self.t, *r))
    }

    fn e(&self, e: &LExpr) -> String {
        expr(e, &|r| self.reg(r))
    }

    /// A memory location: a variable name for its constant address (when
    /// no register of the thread has that name), else `mem[e]`.
    fn loc(&self, a: &LExpr) -> String {
        if let Expr::Const(c) = a {
            if let Some(v) = self.p.var_at(*c) {
                let vn = self.p.name(v.name);
                let th = &self.p.threads[self.t.0 as usize];
                if !th.regs.iter().any(|r| self.p.name(*r) == vn) {
                    return name(vn);
                }
            }
        }
        format!("mem[{}]", self.e(a))
    }

    fn cmd(&self, c: &Command) -> String {
        match c {
            Command::Load { reg, addr } => format!("{} = {}", self.reg(reg), self.loc(addr)),
            Command::Store { addr, value } => format!("{} = {}", self.loc(addr), self.e(value)),
            Command::Assign { reg, value } => format!("{} = {}", self.reg(reg), self.e(value)),
            Command::Assume(e) => format!("assume({})", self.e(e)),
            Command::Fence(Fence::Membar(m)) => membar(*m),
            Command::Fence(Fence::RvFence(m)) => m.rv_text().unwrap_or_else(|| {
                // No pred × succ spelling: the pairs as a membar-style mask.
                format!("fence {}", &membar(*m)["membar ".len()..])
            }),
            Command::Fence(Fence::Located(r)) => format!("located({})", self.reg(r)),
            Command::Fence(f) => f.keyword().to_string(),
            Command::Ann(a, c) => match (a.0, &**c) {
                (Ann::ACQ, Command::Load { reg, addr }) => {
                    format!("{} = ldar({})", self.reg(reg), self.loc(addr))
                }
                (Ann::ACQPC, Command::Load { reg, addr }) => {
                    format!("{} = ldapr({})", self.reg(reg), self.loc(addr))
                }
                (Ann::REL, Command::Store { addr, value }) => {
                    format!("stlr({}, {})", self.loc(addr), self.e(value))
                }
                _ => format!("{} {}", ann(*a), self.cmd(c)),
            },
            Command::Tagged(t, c) => format!("tagged({}) {}", t.names().join(", "), self.cmd(c)),
            Command::Guard(e) => format!("guard({})", self.e(e)),
            Command::Select {
                reg,
                cond,
                then,
                else_,
            } => format!(
                "{} = select({}, {}, {})",
                self.reg(reg),
                self.e(cond),
                self.e(then),
                self.e(else_)
            ),
            Command::Lock => "lock".into(),
            Command::Unlock => "unlock".into(),
            Command::Nop => "nop".into(),
            Command::Atomic(cs) => {
                let mut s = String::from("atomic {");
                for c in cs {
                    let _ = write!(s, " {};", self.cmd(c));
                }
                s.push_str(" }");
                s
            }
            Command::LoadReserve { reg, addr } => {
                format!("{} = lwarx({})", self.reg(reg), self.loc(addr))
            }
            Command::StoreCond { addr, value, flag } => format!(
                "stwcx({}, {}) -> {}",
                self.loc(addr),
                self.e(value),
                self.reg(flag)
            ),
            Command::Pgas(PgasCmd::Barrier) => "barrier".into(),
            Command::Pgas(p) => {
                let kw = if matches!(p, PgasCmd::Read { .. }) {
                    "read"
                } else {
                    "write"
                };
                let ops: Vec<String> = p
                    .operands()
                    .into_iter()
                    .flatten()
                    .map(|e| self.e(e))
                    .collect();
                format!("{kw}({})", ops.join(", "))
            }
        }
    }
}

/// One command of thread `t` in native syntax (as in an automaton line,
/// without the `;`), e.g. `x = 1` or `atomic { r = x; x = 2; }`.
pub fn command(p: &Program, t: ThreadId, c: &Command) -> String {
    Tp { p, t }.cmd(c)
}

/// `[acq, rel]`: the names of the known bits, then any other bits as a
/// number.
fn ann(a: Ann) -> String {
    let mut parts: Vec<String> = Ann::NAMES
        .iter()
        .filter(|(_, b)| a.has(*b))
        .map(|(n, _)| n.to_string())
        .collect();
    let known = Ann::NAMES.iter().fold(0, |m, (_, b)| m | b);
    if a.0 & !known != 0 {
        parts.push((a.0 & !known).to_string());
    }
    format!("[{}]", parts.join(", "))
}

fn membar(m: MembarMask) -> String {
    if m.0 == 0 || m.0 & !0x0f != 0 {
        return format!("membar {}", m.0);
    }
    let names: Vec<&str> = MembarMask::NAMES
        .iter()
        .filter(|(_, b)| m.0 & b != 0)
        .map(|(n, _)| *n)
        .collect();
    format!("membar {}", names.join(" | "))
}

fn gvar(p: &Program, v: &GVar) -> String {
    match v {
        GVar::Reg(t, r) => format!("{}.{}", name(p.thread_name(*t)), name(p.reg_name(*t, *r))),
        GVar::Mem(a) => match p.var_at(*a) {
            Some(v) => name(p.name(v.name)),
            None => format!("mem[{a}]"),
        },
    }
}

fn goal(p: &Program, g: &Goal) -> String {
    let mut s = String::from(match g.kind {
        GoalKind::Goal => "goal ",
        GoalKind::Assertion => "error ",
    });
    if let Some(n) = &g.name {
        let _ = write!(s, "{}: ", name(n));
    }
    match &g.at {
        GoalAt::Final => s.push_str("final"),
        GoalAt::States(v) if v.is_empty() => s.push_str("anywhere"),
        GoalAt::States(v) => {
            let locs: Vec<String> = v
                .iter()
                .map(|(t, q)| {
                    format!(
                        "{}@{}",
                        name(p.thread_name(*t)),
                        state_name(p.state_name(*t, *q))
                    )
                })
                .collect();
            s.push_str(&locs.join(", "));
        }
    }
    if let Some(c) = &g.cond {
        let _ = write!(s, " where {}", expr(c, &|v| gvar(p, v)));
    }
    s.push(';');
    s
}

/// Prints `p` in the native language; `parse(native(p))` has the same
/// [`Program::fingerprint`] as `p` for every IR whose names contain no
/// newline and whose variables are at distinct addresses.
pub fn native(p: &Program) -> String {
    let mut out = String::new();
    let mut next = 0i64;
    for v in &p.vars {
        let _ = write!(out, "shared {}", name(p.name(v.name)));
        if v.addr != next {
            let _ = write!(out, " @ {}", v.addr);
        }
        if let Some(val) = p.init.get(&v.addr) {
            let _ = write!(out, " = {val}");
        }
        out.push_str(";\n");
        next = v.addr.saturating_add(1);
    }
    for (a, val) in &p.init {
        if p.var_at(*a).is_none() {
            let _ = writeln!(out, "init mem[{a}] = {val};");
        }
    }
    if let Some(n) = p.nodes {
        let _ = writeln!(out, "nodes {n};");
    }
    for tid in p.thread_ids() {
        let t = &p.threads[tid.0 as usize];
        let tp = Tp { p, t: tid };
        if !out.is_empty() {
            out.push('\n');
        }
        let star = if p.templates.contains(&tid) { " *" } else { "" };
        let _ = writeln!(out, "thread {}{star} {{", name(p.name(t.name)));
        if !t.regs.is_empty() {
            let regs: Vec<String> = t
                .regs
                .iter()
                .zip(&t.reg_init)
                .map(|(r, v)| {
                    let n = name(p.name(*r));
                    if *v == 0 {
                        n
                    } else {
                        format!("{n} = {v}")
                    }
                })
                .collect();
            let _ = writeln!(out, "  reg {};", regs.join(", "));
        }
        let states: Vec<String> = t.states.iter().map(|q| state_name(p.name(*q))).collect();
        let _ = writeln!(out, "  states {};", states.join(", "));
        let st = |q: crate::program::StateId| states.get(q.0 as usize).cloned().unwrap_or_default();
        let _ = writeln!(out, "  initial {};", st(t.initial));
        for i in &t.instrs {
            let _ = writeln!(out, "  {} -> {}: {};", st(i.from), st(i.to), tp.cmd(&i.cmd));
        }
        out.push_str("}\n");
    }
    if !p.goals.is_empty() {
        out.push('\n');
    }
    for g in &p.goals {
        let _ = writeln!(out, "{}", goal(p, g));
    }
    out
}
