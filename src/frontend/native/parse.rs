//! Parser of the native `.rmm` language: tokens ([`super::lex`]) → the
//! Program IR, with structured statements desugared to automata.

use super::lex::{Tok, T};
use crate::diag::{Error, SourceFile, Span};
use crate::program::render::KEYWORDS;
use crate::program::{
    Ann, BinOp, Command, Expr, Fence, GExpr, GVar, Goal, GoalAt, GoalKind, Instr, LExpr,
    MembarMask, PgasCmd, Program, RegId, SharedVar, StateId, Thread, ThreadId, UnOp, Width,
};
use std::collections::{HashMap, HashSet};

/// Deepest nesting of parentheses, unary operators, expression trees and
/// structured statements accepted.
pub const MAX_DEPTH: usize = 256;

/// Parses a native program.
///
/// Shape: the returned [`Program`] has the declared variables (sequential
/// addresses from 0 unless `@addr`), the initial values written in the
/// source in `init`, one thread per `thread` item (structured bodies are
/// desugared as documented in docs/language.md), and the goals in source
/// order (assertion goals at the point of their thread).
///
/// Errors (all located): lexical and syntax errors, unknown or
/// misused names (unknown register, undefined label, unknown thread or
/// state in a goal, shared variable inside an expression), duplicate
/// thread/label/variable names, overlapping variables, constants that do
/// not fit `width`, nesting deeper than [`MAX_DEPTH`], an empty program.
pub fn parse(src: &SourceFile, width: Width) -> Result<Program, Error> {
    let toks = super::lex::tokenize(src)?;
    let mut p = Parser {
        src,
        toks,
        pos: 0,
        width,
        prog: Program {
            source: Some(src.clone()),
            ..Program::default()
        },
        depth: 0,
        var_index: HashMap::new(),
        thread_index: HashMap::new(),
        var_cells: Vec::new(),
        next_addr: 0,
    };
    p.program()?;
    Ok(p.prog)
}

/// A parsed expression before name resolution.
#[derive(Debug)]
struct Pe {
    k: Pk,
    span: Span,
    depth: usize,
}

#[derive(Debug)]
enum Pk {
    Const(i64),
    Name(String),
    Index(String, Box<Pe>),
    Mem(Box<Pe>),
    AddrOf(String),
    Field(String, Span, String, Span),
    Un(UnOp, Box<Pe>),
    Bin(BinOp, Box<Pe>, Box<Pe>),
    Rank,
    Nodes,
}

/// What a name in a thread stands for.
enum Res {
    Reg(RegId),
    Var(usize),
}

/// Per-thread parsing state.
struct Ctx {
    t: Thread,
    tid: u32,
    /// Declared with `reg`.
    declared: Vec<bool>,
    /// Target of a load/assignment somewhere.
    assigned: Vec<bool>,
    /// First use in an expression.
    first_use: Vec<Option<Span>>,
    /// State name → id (avoids the linear search of `Thread::state`).
    state_ids: HashMap<crate::program::intern::Sym, StateId>,
}

impl Ctx {
    /// The state named `sym`, created on first mention.
    fn state(&mut self, sym: crate::program::intern::Sym) -> StateId {
        if let Some(q) = self.state_ids.get(&sym) {
            return *q;
        }
        let q = StateId(self.t.states.len() as u32);
        self.t.states.push(sym);
        self.state_ids.insert(sym, q);
        q
    }
}

/// A structured statement (control structure only: commands are already
/// resolved).
enum St {
    Cmd(Vec<Command>, Span),
    Label(String, Box<St>),
    If(LExpr, Vec<St>, Option<Vec<St>>, Span),
    While(LExpr, Vec<St>, Span),
    Choose(Vec<Vec<St>>, Span),
    Goto(String, Span),
    Assert(LExpr, Span),
}

struct Parser<'a> {
    src: &'a SourceFile,
    toks: Vec<Tok>,
    pos: usize,
    width: Width,
    prog: Program,
    depth: usize,
    var_index: HashMap<String, usize>,
    /// Thread by name (so that many threads parse in linear time).
    thread_index: HashMap<crate::program::intern::Sym, usize>,
    /// Cells of each variable: (first, count).
    var_cells: Vec<(i64, i64)>,
    next_addr: i64,
}

type R<T> = Result<T, Error>;

impl<'a> Parser<'a> {
    // ---------------------------------------------------------------- tokens

    fn peek(&self) -> &T {
        &self.toks[self.pos.min(self.toks.len() - 1)].t
    }

    fn peek_at(&self, k: usize) -> &T {
        &self.toks[(self.pos + k).min(self.toks.len() - 1)].t
    }

    fn span(&self) -> Span {
        self.toks[self.pos.min(self.toks.len() - 1)].span
    }

    fn prev_span(&self) -> Span {
        if self.pos == 0 {
            Span::new(0, 0)
        } else {
            self.toks[(self.pos - 1).min(self.toks.len() - 1)].span
        }
    }

    fn bump(&mut self) -> Tok {
        let t = self.toks[self.pos.min(self.toks.len() - 1)].clone();
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
        t
    }

    fn is_p(&self, p: &str) -> bool {
        matches!(self.peek(), T::P(q) if *q == p)
    }

    fn is_kw(&self, k: &str) -> bool {
        matches!(self.peek(), T::Ident(q) if q == k)
    }

    fn eat_p(&mut self, p: &str) -> bool {
        if self.is_p(p) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn eat_kw(&mut self, k: &str) -> bool {
        if self.is_kw(k) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn unexpected(&self, what: &str) -> Error {
        let t = self.peek();
        if *t == T::Eof {
            self.src.error(
                self.span(),
                format!("unexpected end of file, expected {what}"),
            )
        } else {
            self.src
                .error(self.span(), format!("expected {what}, found {}", t.show()))
        }
    }

    fn expect_p(&mut self, p: &str) -> R<Span> {
        if self.is_p(p) {
            Ok(self.bump().span)
        } else {
            Err(self.unexpected(&format!("`{p}`")))
        }
    }

    fn expect_kw(&mut self, k: &str) -> R<Span> {
        if self.is_kw(k) {
            Ok(self.bump().span)
        } else {
            Err(self.unexpected(&format!("`{k}`")))
        }
    }

    /// A name: identifier (not a keyword) or backquoted.
    fn is_name(&self) -> bool {
        match self.peek() {
            T::Ident(s) => !KEYWORDS.contains(&s.as_str()),
            T::Quoted(_) => true,
            _ => false,
        }
    }

    fn name(&mut self, what: &str) -> R<(String, Span)> {
        if !self.is_name() {
            if let T::Ident(s) = self.peek() {
                return Err(self.src.error_help(
                    self.span(),
                    format!("expected {what}, found keyword `{s}`"),
                    format!("write `` `{s}` `` to use a keyword as a name"),
                ));
            }
            return Err(self.unexpected(what));
        }
        let t = self.bump();
        match t.t {
            T::Ident(s) | T::Quoted(s) => Ok((s, t.span)),
            _ => Err(self.src.error(t.span, format!("expected {what}"))),
        }
    }

    /// A state or label name: a name or an integer (its text).
    fn is_state_name(&self) -> bool {
        self.is_name() || matches!(self.peek(), T::Int(..))
    }

    fn state_name(&mut self, what: &str) -> R<(String, Span)> {
        if let T::Int(_, text) = self.peek() {
            let text = text.clone();
            let sp = self.bump().span;
            return Ok((text, sp));
        }
        self.name(what)
    }

    fn int_literal(&mut self, what: &str) -> R<(i64, Span)> {
        let neg = self.eat_p("-");
        let start = self.prev_span();
        match self.peek().clone() {
            T::Int(v, text) => {
                let sp = self.bump().span;
                let sp = if neg { start.join(sp) } else { sp };
                let v = v.and_then(|v| if neg { v.checked_neg() } else { Some(v) });
                match v {
                    Some(v) => Ok((v, sp)),
                    None => Err(self.src.error(sp, format!("number {text} is too large"))),
                }
            }
            _ => Err(self.unexpected(what)),
        }
    }

    fn enter(&mut self) -> R<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.src.error_help(
                self.span(),
                format!("nesting too deep (more than {MAX_DEPTH} levels)"),
                "simplify the expression or statement",
            ));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    // ---------------------------------------------------------- constants

    fn fit(&self, v: Option<i64>, text: &str, span: Span) -> R<i64> {
        match v {
            Some(v) if self.width.fits(v) => Ok(self.width.wrap(v)),
            _ => Err(self.src.error_help(
                span,
                format!("constant {text} does not fit in {} bits", self.width.0),
                format!(
                    "values range over {}..={}; {}",
                    self.width.min(),
                    self.width.umax(),
                    self.width.raise_hint()
                ),
            )),
        }
    }

    // --------------------------------------------------------- expressions

    fn mk(&self, k: Pk, span: Span, depth: usize) -> R<Pe> {
        if depth > MAX_DEPTH {
            return Err(self.src.error_help(
                span,
                format!("expression too deep (more than {MAX_DEPTH} levels)"),
                "split it into several assignments",
            ));
        }
        Ok(Pe { k, span, depth })
    }

    fn expr(&mut self) -> R<Pe> {
        self.enter()?;
        let r = self.bin(1);
        self.leave();
        r
    }

    fn peek_binop(&self) -> Option<BinOp> {
        match self.peek() {
            T::P(s) => BinOp::from_symbol(s),
            _ => None,
        }
    }

    fn bin(&mut self, min: u8) -> R<Pe> {
        let mut lhs = self.unary()?;
        while let Some(op) = self.peek_binop() {
            if op.precedence() < min {
                break;
            }
            self.bump();
            let rhs = self.bin(op.precedence() + 1)?;
            let span = lhs.span.join(rhs.span);
            let d = 1 + lhs.depth.max(rhs.depth);
            lhs = self.mk(Pk::Bin(op, Box::new(lhs), Box::new(rhs)), span, d)?;
        }
        Ok(lhs)
    }

    fn unary(&mut self) -> R<Pe> {
        let start = self.span();
        match self.peek().clone() {
            T::P("!") | T::P("-") => {
                let op = if self.is_p("!") { UnOp::Not } else { UnOp::Neg };
                self.bump();
                if op == UnOp::Neg {
                    if let T::Int(v, text) = self.peek().clone() {
                        let sp = start.join(self.bump().span);
                        let v = v.and_then(i64::checked_neg);
                        let c = self.fit(v, &format!("-{text}"), sp)?;
                        return self.mk(Pk::Const(c), sp, 1);
                    }
                }
                self.enter()?;
                let a = self.unary();
                self.leave();
                let a = a?;
                let sp = start.join(a.span);
                let d = a.depth + 1;
                self.mk(Pk::Un(op, Box::new(a)), sp, d)
            }
            T::P("&") => {
                self.bump();
                let (n, sp) = self.name("a shared variable name after `&`")?;
                self.mk(Pk::AddrOf(n), start.join(sp), 1)
            }
            T::P("(") => {
                self.bump();
                let e = self.expr()?;
                self.expect_p(")")?;
                Ok(e)
            }
            T::Int(v, text) => {
                let sp = self.bump().span;
                let c = self.fit(v, &text, sp)?;
                self.mk(Pk::Const(c), sp, 1)
            }
            T::Ident(k) if k == "mem" => {
                self.bump();
                self.expect_p("[")?;
                let e = self.expr()?;
                let end = self.expect_p("]")?;
                let d = e.depth + 1;
                self.mk(Pk::Mem(Box::new(e)), start.join(end), d)
            }
            T::Ident(k) if k == "rank" => {
                self.bump();
                self.mk(Pk::Rank, start, 1)
            }
            T::Ident(k) if k == "nodes" => {
                self.bump();
                self.mk(Pk::Nodes, start, 1)
            }
            T::Ident(_) | T::Quoted(_) if self.is_name() => {
                let (n, sp) = self.name("a name")?;
                if self.eat_p("[") {
                    let e = self.expr()?;
                    let end = self.expect_p("]")?;
                    let d = e.depth + 1;
                    return self.mk(Pk::Index(n, Box::new(e)), sp.join(end), d);
                }
                if self.eat_p(".") {
                    let (r, rsp) = self.name("a register name after `.`")?;
                    return self.mk(Pk::Field(n, sp, r, rsp), sp.join(rsp), 1);
                }
                self.mk(Pk::Name(n), sp, 1)
            }
            _ => Err(self.unexpected("an expression")),
        }
    }

    // -------------------------------------------------- name resolution

    fn var(&self, name: &str) -> Option<&SharedVar> {
        self.var_index.get(name).map(|i| &self.prog.vars[*i])
    }

    fn var_addr(&self, name: &str, span: Span) -> R<i64> {
        match self.var(name) {
            Some(v) => Ok(v.addr),
            None => Err(self
                .src
                .error(span, format!("unknown shared variable `{name}`"))),
        }
    }

    fn ctx_reg(&mut self, ctx: &mut Ctx, name: &str) -> RegId {
        let sym = self.prog.names.intern(name);
        let r = ctx.t.reg(sym);
        while ctx.declared.len() < ctx.t.regs.len() {
            ctx.declared.push(false);
            ctx.assigned.push(false);
            ctx.first_use.push(None);
        }
        r
    }

    fn resolve(&mut self, ctx: &mut Ctx, name: &str) -> Res {
        if let Some(sym) = self.prog.names.get(name) {
            if let Some(r) = ctx.t.find_reg(sym) {
                if ctx.declared[r.0 as usize] {
                    return Res::Reg(r);
                }
            }
        }
        if let Some(i) = self.var_index.get(name) {
            return Res::Var(*i);
        }
        Res::Reg(self.ctx_reg(ctx, name))
    }

    /// Whether the blocks of `n` cells from `a` and `m` cells from `b`
    /// (1 ≤ n, m < 2^W, addresses wrapping around at the width) share a
    /// cell: one block then contains the other's first cell.
    fn cells_overlap(&self, a: i64, n: i64, b: i64, m: i64) -> bool {
        let modulus = 1i128 << self.width.0;
        let (a, n, b, m) = (i128::from(a), i128::from(n), i128::from(b), i128::from(m));
        (b - a).rem_euclid(modulus) < n || (a - b).rem_euclid(modulus) < m
    }

    fn wrap_add(&self, a: i64, b: i64) -> i64 {
        self.width.wrap(a.wrapping_add(b))
    }

    /// Lowers an expression of a thread (registers, constants, `&x`).
    fn lower_l(&mut self, ctx: &mut Ctx, e: &Pe) -> R<LExpr> {
        Ok(match &e.k {
            Pk::Const(c) => Expr::Const(*c),
            Pk::Rank => Expr::Rank,
            Pk::Nodes => Expr::Nodes,
            Pk::AddrOf(n) => Expr::Const(self.var_addr(n, e.span)?),
            Pk::Name(n) => match self.resolve(ctx, n) {
                Res::Reg(r) => {
                    let u = &mut ctx.first_use[r.0 as usize];
                    if u.is_none() {
                        *u = Some(e.span);
                    }
                    Expr::Var(r)
                }
                Res::Var(_) => {
                    return Err(self.src.error_help(
                        e.span,
                        format!("shared variable `{n}` used inside an expression"),
                        format!("load it into a register first (`r = {n};`) and use the register"),
                    ))
                }
            },
            Pk::Index(n, _) if self.var(n).is_none() => {
                return Err(self.src.error(
                    e.span,
                    format!("`{n}` is not a shared variable and cannot be indexed"),
                ))
            }
            Pk::Index(..) | Pk::Mem(_) => {
                let what = match &e.k {
                    Pk::Index(n, _) => format!("`{n}[...]`"),
                    _ => "`mem[...]`".to_string(),
                };
                return Err(self.src.error_help(
                    e.span,
                    format!("memory access {what} inside an expression"),
                    "load it into a register first (`r = ...;`) and use the register",
                ));
            }
            Pk::Field(..) => {
                return Err(self.src.error(
                    e.span,
                    "`thread.register` references are only allowed in goals",
                ))
            }
            Pk::Un(op, a) => Expr::un(*op, self.lower_l(ctx, a)?),
            Pk::Bin(op, a, b) => {
                let a = self.lower_l(ctx, a)?;
                Expr::bin(*op, a, self.lower_l(ctx, b)?)
            }
        })
    }

    /// If `e` denotes a memory location (a shared variable, `v[e]`,
    /// `mem[e]`), its address expression.
    fn memref(&mut self, ctx: &mut Ctx, e: &Pe) -> R<Option<LExpr>> {
        match &e.k {
            Pk::Mem(a) => Ok(Some(self.lower_l(ctx, a)?)),
            Pk::Name(n) => match self.resolve(ctx, n) {
                Res::Var(i) => Ok(Some(Expr::Const(self.prog.vars[i].addr))),
                Res::Reg(_) => Ok(None),
            },
            Pk::Index(n, ix) => {
                let Some(base) = self.var(n).map(|v| v.addr) else {
                    return Err(self.src.error(
                        e.span,
                        format!("`{n}` is not a shared variable and cannot be indexed"),
                    ));
                };
                let ix = self.lower_l(ctx, ix)?;
                Ok(Some(match ix.as_const(self.width) {
                    Some(c) => Expr::Const(self.wrap_add(base, c)),
                    None => Expr::bin(BinOp::Add, Expr::Const(base), ix),
                }))
            }
            _ => Ok(None),
        }
    }

    fn location(&mut self, ctx: &mut Ctx) -> R<LExpr> {
        let e = self.expr()?;
        match self.memref(ctx, &e)? {
            Some(a) => Ok(a),
            None => Err(self.src.error_help(
                e.span,
                "expected a shared location",
                "write a shared variable, `v[e]` or `mem[e]`",
            )),
        }
    }

    /// Lowers a goal condition / constant expression.
    fn lower_g(&mut self, e: &Pe) -> R<GExpr> {
        Ok(match &e.k {
            Pk::Const(c) => Expr::Const(*c),
            Pk::Rank => Expr::Rank,
            Pk::Nodes => Expr::Nodes,
            Pk::AddrOf(n) => Expr::Const(self.var_addr(n, e.span)?),
            Pk::Name(n) => match self.var(n) {
                Some(v) => Expr::Var(GVar::Mem(v.addr)),
                None => {
                    return Err(self.src.error_help(
                        e.span,
                        format!("unknown shared variable `{n}`"),
                        "write THREAD.REGISTER for a register of a thread",
                    ))
                }
            },
            Pk::Index(n, ix) => {
                let base = self.var_addr(n, e.span)?;
                let c = self.const_of(ix)?;
                Expr::Var(GVar::Mem(self.wrap_add(base, c)))
            }
            Pk::Mem(a) => Expr::Var(GVar::Mem(self.const_of(a)?)),
            Pk::Field(t, tsp, r, rsp) => {
                let tid = self.thread_id(t, *tsp)?;
                let th = &self.prog.threads[tid.0 as usize];
                let reg = self.prog.names.get(r).and_then(|s| th.find_reg(s));
                match reg {
                    Some(reg) => Expr::Var(GVar::Reg(tid, reg)),
                    None => {
                        return Err(self
                            .src
                            .error(*rsp, format!("thread `{t}` has no register `{r}`")))
                    }
                }
            }
            Pk::Un(op, a) => Expr::un(*op, self.lower_g(a)?),
            Pk::Bin(op, a, b) => {
                let a = self.lower_g(a)?;
                Expr::bin(*op, a, self.lower_g(b)?)
            }
        })
    }

    fn const_of(&mut self, e: &Pe) -> R<i64> {
        let g = self.lower_g(e)?;
        match g.as_const(self.width) {
            Some(c) => Ok(c),
            None => Err(self.src.error(e.span, "expected a constant expression")),
        }
    }

    fn const_expr(&mut self) -> R<i64> {
        let e = self.expr()?;
        self.const_of(&e)
    }

    fn thread_id(&self, name: &str, span: Span) -> R<ThreadId> {
        let sym = self.prog.names.get(name);
        match sym.and_then(|s| self.thread_index.get(&s)) {
            Some(&i) => Ok(ThreadId(i as u32)),
            None => Err(self.src.error_help(
                span,
                format!("unknown thread `{name}`"),
                "threads must be declared before the goals that mention them",
            )),
        }
    }

    // ------------------------------------------------------------ program

    fn program(&mut self) -> R<()> {
        loop {
            match self.peek().clone() {
                T::Eof => break,
                T::Ident(k) => match k.as_str() {
                    "shared" => self.shared()?,
                    "init" => self.init()?,
                    "nodes" => {
                        self.bump();
                        let (v, sp) = self.int_literal("the number of nodes")?;
                        if !(1..=65535).contains(&v) {
                            return Err(self
                                .src
                                .error(sp, "the number of nodes must be 1..=65535"));
                        }
                        self.prog.nodes = Some(v as u32);
                        self.expect_p(";")?;
                    }
                    "thread" => self.thread()?,
                    "goal" => self.goal(GoalKind::Goal)?,
                    "error" => self.goal(GoalKind::Assertion)?,
                    _ => return Err(self.top_unexpected()),
                },
                _ => return Err(self.top_unexpected()),
            }
        }
        if self.prog.threads.is_empty() {
            return Err(self
                .src
                .error(self.span(), "empty program: no `thread` found"));
        }
        Ok(())
    }

    fn top_unexpected(&self) -> Error {
        self.unexpected("`shared`, `init`, `nodes`, `thread`, `goal` or `error`")
    }

    fn shared(&mut self) -> R<()> {
        self.expect_kw("shared")?;
        loop {
            let (name, nsp) = self.name("a shared variable name")?;
            if self.var_index.contains_key(&name) {
                return Err(self
                    .src
                    .error(nsp, format!("shared variable `{name}` declared twice")));
            }
            let mut size = 1i64;
            if self.eat_p("[") {
                let (n, sp) = self.int_literal("an array size")?;
                if n < 1 || !self.width.fits(n) {
                    return Err(self
                        .src
                        .error(sp, format!("array size must be 1..={}", self.width.umax())));
                }
                size = n;
                self.expect_p("]")?;
            }
            // `addr` as allocated (the next free address, or the one after
            // `@`); the variable gets its canonical W-bit form below.
            let mut addr = self.next_addr;
            let mut asp = nsp;
            if self.eat_p("@") {
                let (a, sp) = self.int_literal("an address")?;
                if !self.width.fits(a) {
                    return Err(self.src.error(
                        sp,
                        format!("address {a} does not fit in {} bits", self.width.0),
                    ));
                }
                addr = self.width.wrap(a);
                asp = sp;
            }
            let last = addr.saturating_add(size - 1);
            if !self.width.fits(addr) || !self.width.fits(last) {
                return Err(self.src.error_help(
                    asp,
                    format!(
                        "`{name}` would occupy addresses {addr}..={last}, which do not fit in {} bits",
                        self.width.0
                    ),
                    format!(
                        "{}, or give an explicit address with `@`",
                        self.width.raise_hint()
                    ),
                ));
            }
            // Addresses are W-bit values, written sign-extended (as every
            // constant, `Width::wrap`): a variable allocated past the signed
            // maximum (at 2..=3 for 2 bits) is at its wrapped address, the
            // one `mem[3]` and `&x` denote, and the ones printed back.
            let next = addr + size;
            let addr = self.width.wrap(addr);
            for (i, (a0, n0)) in self.var_cells.iter().enumerate() {
                if self.cells_overlap(addr, size, *a0, *n0) {
                    let other = self.prog.name(self.prog.vars[i].name).to_string();
                    return Err(self.src.error(
                        asp,
                        format!("`{name}` overlaps shared variable `{other}` (address {a0})"),
                    ));
                }
            }
            let mut init = 0;
            if self.eat_p("=") {
                let vsp = self.span();
                init = self.const_expr()?;
                if size > 1 {
                    return Err(self.src.error_help(
                        vsp,
                        "an array takes no initial value here",
                        format!("use `init {name}[i] = v;` for each cell"),
                    ));
                }
                self.prog.init.insert(addr, init);
            }
            let sym = self.prog.names.intern(&name);
            self.var_index.insert(name, self.prog.vars.len());
            self.prog.vars.push(SharedVar {
                name: sym,
                addr,
                init,
                span: nsp,
            });
            self.var_cells.push((addr, size));
            self.next_addr = next;
            if !self.eat_p(",") {
                break;
            }
        }
        self.expect_p(";")?;
        Ok(())
    }

    fn init(&mut self) -> R<()> {
        self.expect_kw("init")?;
        let loc = self.unary()?;
        let addr = match (&loc.k, self.lower_g(&loc)?) {
            (Pk::Name(_) | Pk::Index(..) | Pk::Mem(_), Expr::Var(GVar::Mem(a))) => a,
            _ => {
                return Err(self.src.error_help(
                    loc.span,
                    "expected a memory cell",
                    "write `init x = v;`, `init buf[2] = v;` or `init mem[5] = v;`",
                ))
            }
        };
        self.expect_p("=")?;
        let v = self.const_expr()?;
        self.expect_p(";")?;
        if self.prog.init.contains_key(&addr) {
            return Err(self.src.error(
                loc.span,
                format!("the initial value of cell {addr} is given twice"),
            ));
        }
        self.prog.init.insert(addr, v);
        if let Some(var) = self.prog.vars.iter_mut().find(|v| v.addr == addr) {
            var.init = v;
        }
        Ok(())
    }

    // ------------------------------------------------------------- threads

    fn thread(&mut self) -> R<()> {
        let start = self.expect_kw("thread")?;
        let (name, nsp) = self.name("a thread name")?;
        let sym = self.prog.names.intern(&name);
        if self.thread_index.contains_key(&sym) {
            return Err(self
                .src
                .error(nsp, format!("duplicate thread name `{name}`")));
        }
        // `thread t *`: a template, any number of copies (docs/parameterized.md).
        let template = self.eat_p("*");
        self.expect_p("{")?;
        let mut t = Thread::new(sym, sym, start);
        t.states.clear();
        let mut ctx = Ctx {
            t,
            tid: self.prog.threads.len() as u32,
            declared: Vec::new(),
            assigned: Vec::new(),
            first_use: Vec::new(),
            state_ids: HashMap::new(),
        };
        while self.is_kw("reg") {
            self.reg_decl(&mut ctx)?;
        }
        let automaton = self.is_kw("initial")
            || self.is_kw("states")
            || (self.is_state_name() && matches!(self.peek_at(1), T::P("->")));
        if automaton {
            self.automaton(&mut ctx, &name, nsp)?;
        } else {
            self.structured(&mut ctx)?;
        }
        let end = self.expect_p("}")?;
        self.eat_p(";");
        for (i, r) in ctx.t.regs.iter().enumerate() {
            if !ctx.declared[i] && !ctx.assigned[i] {
                let rn = self.prog.name(*r).to_string();
                let sp = ctx.first_use[i].unwrap_or(nsp);
                return Err(self.src.error_help(
                    sp,
                    format!("unknown register `{rn}`"),
                    format!("declare it (`reg {rn};`) or assign it somewhere in thread `{name}`"),
                ));
            }
        }
        ctx.t.span = start.join(end);
        self.thread_index
            .insert(ctx.t.name, self.prog.threads.len());
        if template {
            self.prog
                .templates
                .push(ThreadId(self.prog.threads.len() as u32));
            if self.prog.templates.len() == 1 {
                self.prog.notes.push(
                    "threads marked `*` are templates: `robust --engine explicit` checks every \
                     number of copies; other commands run one copy of each"
                        .into(),
                );
            }
        }
        self.prog.threads.push(ctx.t);
        Ok(())
    }

    fn reg_decl(&mut self, ctx: &mut Ctx) -> R<()> {
        self.expect_kw("reg")?;
        loop {
            let (n, sp) = self.name("a register name")?;
            let had = self
                .prog
                .names
                .get(&n)
                .and_then(|s| ctx.t.find_reg(s))
                .is_some();
            if had {
                return Err(self.src.error(sp, format!("register `{n}` declared twice")));
            }
            let r = self.ctx_reg(ctx, &n);
            ctx.declared[r.0 as usize] = true;
            if self.eat_p("=") {
                let v = self.const_expr()?;
                ctx.t.reg_init[r.0 as usize] = v;
            }
            if !self.eat_p(",") {
                break;
            }
        }
        self.expect_p(";")?;
        Ok(())
    }

    fn automaton(&mut self, ctx: &mut Ctx, name: &str, nsp: Span) -> R<()> {
        let mut initial: Option<StateId> = None;
        while !self.is_p("}") {
            if self.eat_kw("states") {
                loop {
                    let (s, _) = self.state_name("a state name")?;
                    let sym = self.prog.names.intern(&s);
                    ctx.state(sym);
                    if !self.eat_p(",") {
                        break;
                    }
                }
                self.expect_p(";")?;
            } else if self.is_kw("initial") {
                let sp = self.bump().span;
                let (s, _) = self.state_name("a state name")?;
                if initial.is_some() {
                    return Err(self
                        .src
                        .error(sp, format!("thread `{name}` has two `initial` states")));
                }
                let sym = self.prog.names.intern(&s);
                initial = Some(ctx.state(sym));
                self.expect_p(";")?;
            } else if self.is_state_name() {
                let (from, fsp) = self.state_name("a state name")?;
                let from = self.prog.names.intern(&from);
                let from = ctx.state(from);
                self.expect_p("->")?;
                let (to, _) = self.state_name("a target state name")?;
                let to = self.prog.names.intern(&to);
                let to = ctx.state(to);
                self.expect_p(":")?;
                let (cmds, csp) = self.command(ctx, false)?;
                self.expect_p(";")?;
                for cmd in cmds {
                    ctx.t.instrs.push(Instr {
                        from,
                        to,
                        cmd,
                        span: fsp.join(csp),
                    });
                }
            } else if self.is_kw("reg") {
                return Err(self.src.error(
                    self.span(),
                    "`reg` declarations must come first in a thread body",
                ));
            } else {
                return Err(
                    self.unexpected("`initial`, `states`, a transition `q -> q': ...;` or `}`")
                );
            }
        }
        match initial {
            Some(q) => ctx.t.initial = q,
            None => {
                return Err(self
                    .src
                    .error(nsp, format!("thread `{name}` has no `initial` state")))
            }
        }
        Ok(())
    }

    // ---------------------------------------------------------- commands

    /// Parses one command (without the `;`). Returns one command, or two
    /// for `cas` (success and failure transitions).
    fn command(&mut self, ctx: &mut Ctx, in_atomic: bool) -> R<(Vec<Command>, Span)> {
        let start = self.span();
        if self.is_p("[") {
            let mut bits = 0u16;
            while self.eat_p("[") {
                bits |= self.ann_bits()?;
            }
            let (mut cs, csp) = self.command_plain(ctx, in_atomic)?;
            let c = match cs.pop() {
                Some(c) if cs.is_empty() => c,
                _ => return Err(self.not_annotatable(csp)),
            };
            let c = match c {
                Command::Ann(Ann(b), c) => Command::Ann(Ann(b | bits), c),
                c @ (Command::Load { .. }
                | Command::Store { .. }
                | Command::LoadReserve { .. }
                | Command::StoreCond { .. }) => Command::Ann(Ann(bits), Box::new(c)),
                c @ Command::Assign { .. } if bits == Ann::PICK => {
                    Command::Ann(Ann(bits), Box::new(c))
                }
                _ => return Err(self.not_annotatable(csp)),
            };
            return Ok((vec![c], start.join(self.prev_span())));
        }
        self.command_plain(ctx, in_atomic)
    }

    fn not_annotatable(&self, sp: Span) -> Error {
        self.src.error_help(
            sp,
            "an annotation `[acq]`, `[acqpc]`, `[rel]`, `[noret]` applies to one access, `[pick]` alone to one assignment",
            "annotate a load, a store, `lwarx` or `stwcx`, or write `[pick] r = e`",
        )
    }

    /// The inside of `[acq, rel]` (after `[`, through `]`): names of
    /// [`Ann::NAMES`] or raw bit masks 0..=511.
    fn ann_bits(&mut self) -> R<u16> {
        let mut bits = 0u16;
        if self.eat_p("]") {
            return Ok(0);
        }
        loop {
            let sp = self.span();
            match self.peek().clone() {
                T::Int(..) => {
                    let (v, sp) = self.int_literal("an annotation")?;
                    if !(0..=i64::from(Ann::ALL)).contains(&v) {
                        return Err(self
                            .src
                            .error(sp, format!("a numeric annotation must be 0..={}", Ann::ALL)));
                    }
                    bits |= v as u16;
                }
                T::Ident(w) => match Ann::NAMES.iter().find(|(n, _)| *n == w) {
                    Some((_, b)) => {
                        bits |= b;
                        self.bump();
                    }
                    None => {
                        let names: Vec<&str> = Ann::NAMES.iter().map(|(n, _)| *n).collect();
                        return Err(self.src.error_help(
                            sp,
                            format!("unknown annotation `{w}`"),
                            format!("annotations are {}", names.join(", ")),
                        ));
                    }
                },
                _ => return Err(self.unexpected("an annotation (acq, acqpc, rel, noret)")),
            }
            if !self.eat_p(",") {
                break;
            }
        }
        self.expect_p("]")?;
        Ok(bits)
    }

    /// A RISC-V fence set after `fence`: `r`, `w` or `rw` (1, 2, 3).
    fn rv_set(&mut self) -> R<u8> {
        let sp = self.span();
        let v = match self.peek() {
            T::Ident(w) if w == "r" => 1,
            T::Ident(w) if w == "w" => 2,
            T::Ident(w) if w == "rw" => 3,
            _ => return Err(self.src.error(sp, "expected a fence set `r`, `w` or `rw`")),
        };
        self.bump();
        Ok(v)
    }

    /// The body of `atomic { … }` (after the keyword, at `start`):
    /// (annotated) loads and stores, assignments, selects, assumes, guards
    /// and nops.
    ///
    /// Errors: a nested `atomic` (`in_atomic`), another command inside.
    fn atomic_block(&mut self, ctx: &mut Ctx, start: Span, in_atomic: bool) -> R<Vec<Command>> {
        if in_atomic {
            return Err(self.src.error(start, "`atomic` blocks cannot be nested"));
        }
        self.expect_p("{")?;
        let mut body = Vec::new();
        while !self.is_p("}") {
            let (mut cs, csp) = self.command(ctx, true)?;
            self.expect_p(";")?;
            let ok = cs.len() == 1
                && matches!(
                    cs[0],
                    Command::Load { .. }
                        | Command::Store { .. }
                        | Command::Assign { .. }
                        | Command::Assume(_)
                        | Command::Guard(_)
                        | Command::Select { .. }
                        | Command::Nop
                )
                || matches!(&cs[0], Command::Ann(_, c)
                    if matches!(**c, Command::Load { .. } | Command::Store { .. }));
            if !ok {
                return Err(self.src.error_help(
                    csp,
                    "not allowed inside `atomic`",
                    "an atomic block holds (annotated) loads and stores, assignments, selects, assumes, guards and nops",
                ));
            }
            body.append(&mut cs);
        }
        self.expect_p("}")?;
        Ok(vec![Command::Atomic(body)])
    }

    /// The arguments of PGAS `read(local, rank, remote, queue)` or `write`
    /// (`k`, the keyword at `start`; thesis §8.1).
    ///
    /// Errors: not four expressions.
    fn pgas_remote(&mut self, ctx: &mut Ctx, k: &str, start: Span) -> R<Vec<Command>> {
        self.expect_p("(")?;
        let mut args = Vec::new();
        for i in 0..4 {
            if i > 0 {
                self.expect_p(",")?;
            }
            let e = self.expr()?;
            args.push(self.lower_l(ctx, &e)?);
        }
        self.expect_p(")")?;
        let mut it = args.into_iter();
        let (Some(local), Some(rank), Some(remote), Some(queue)) =
            (it.next(), it.next(), it.next(), it.next())
        else {
            return Err(self.src.error(start, "expected four arguments"));
        };
        Ok(vec![Command::Pgas(if k == "read" {
            PgasCmd::Read {
                local,
                rank,
                remote,
                queue,
            }
        } else {
            PgasCmd::Write {
                local,
                rank,
                remote,
                queue,
            }
        })])
    }

    /// One command without its annotation prefix: a keyword command
    /// (fences, `assume`, `atomic { … }`, PGAS `read`/`write`, …) or an
    /// assignment, with its span; `in_atomic` inside an `atomic` block.
    fn command_plain(&mut self, ctx: &mut Ctx, in_atomic: bool) -> R<(Vec<Command>, Span)> {
        let start = self.span();
        let kw = match self.peek() {
            T::Ident(k) if KEYWORDS.contains(&k.as_str()) && k != "mem" => Some(k.clone()),
            _ => None,
        };
        let cmds = if let Some(k) = kw {
            self.bump();
            let fence = |f| vec![Command::Fence(f)];
            match k.as_str() {
                "assume" => {
                    self.expect_p("(")?;
                    let e = self.expr()?;
                    self.expect_p(")")?;
                    vec![Command::Assume(self.lower_l(ctx, &e)?)]
                }
                "guard" => {
                    self.expect_p("(")?;
                    let e = self.expr()?;
                    self.expect_p(")")?;
                    vec![Command::Guard(self.lower_l(ctx, &e)?)]
                }
                "fence" if self.eat_p(".") => {
                    let sp = self.span();
                    match self.peek() {
                        T::Ident(w) if w == "tso" => {
                            self.bump();
                            fence(Fence::RvFence(MembarMask::TSO))
                        }
                        _ => return Err(self.src.error(sp, "expected `tso` after `fence.`")),
                    }
                }
                "fence" if matches!(self.peek(), T::Ident(_)) => {
                    let pred = self.rv_set()?;
                    self.expect_p(",")?;
                    let succ = self.rv_set()?;
                    fence(Fence::RvFence(MembarMask::rv(pred, succ)))
                }
                "fence" if matches!(self.peek(), T::Hash(_) | T::Int(..)) => {
                    fence(Fence::RvFence(self.membar_mask()?))
                }
                "mfence" | "fence" => fence(Fence::MFence),
                "dmb" => {
                    let f = match self.peek() {
                        T::Ident(w) if w == "ld" => Some(Fence::DmbLd),
                        T::Ident(w) if w == "st" => Some(Fence::DmbSt),
                        T::Ident(w) if w == "sy" => Some(Fence::Dmb),
                        _ => None,
                    };
                    if f.is_some() {
                        self.bump();
                    }
                    fence(f.unwrap_or(Fence::Dmb))
                }
                "dsb" if matches!(self.peek(), T::Ident(w) if w == "st") => {
                    self.bump();
                    fence(Fence::DsbSt)
                }
                "isb" => fence(Fence::Isb),
                "stlr" => {
                    self.expect_p("(")?;
                    let addr = self.location(ctx)?;
                    self.expect_p(",")?;
                    let v = self.expr()?;
                    let value = self.lower_l(ctx, &v)?;
                    self.expect_p(")")?;
                    vec![Command::Ann(
                        Ann(Ann::REL),
                        Box::new(Command::Store { addr, value }),
                    )]
                }
                "sync" => fence(Fence::Sync),
                "lwsync" => fence(Fence::LwSync),
                "isync" => fence(Fence::ISync),
                "eieio" => fence(Fence::Eieio),
                "membar" => fence(Fence::Membar(self.membar_mask()?)),
                "lock" => vec![Command::Lock],
                "unlock" => vec![Command::Unlock],
                "nop" => vec![Command::Nop],
                "barrier" => vec![Command::Pgas(PgasCmd::Barrier)],
                "atomic" => self.atomic_block(ctx, start, in_atomic)?,
                "stwcx" => {
                    self.expect_p("(")?;
                    let addr = self.location(ctx)?;
                    self.expect_p(",")?;
                    let v = self.expr()?;
                    let value = self.lower_l(ctx, &v)?;
                    self.expect_p(")")?;
                    self.expect_p("->")?;
                    let flag = self.target_reg(ctx)?;
                    vec![Command::StoreCond { addr, value, flag }]
                }
                "read" | "write" => self.pgas_remote(ctx, &k, start)?,
                _ => {
                    return Err(self.src.error_help(
                        start,
                        format!("expected a command, found keyword `{k}`"),
                        format!("write `` `{k}` `` to use it as a name"),
                    ))
                }
            }
        } else if self.is_name() || self.is_kw("mem") {
            self.assignment(ctx)?
        } else {
            return Err(self.unexpected("a command"));
        };
        Ok((cmds, start.join(self.prev_span())))
    }

    fn membar_mask(&mut self) -> R<MembarMask> {
        if let T::Int(..) = self.peek() {
            let (v, sp) = self.int_literal("a mask")?;
            if !(0..=255).contains(&v) {
                return Err(self.src.error(sp, "a numeric membar mask must be 0..=255"));
            }
            return Ok(MembarMask(v as u8));
        }
        let mut m = 0u8;
        loop {
            let sp = self.span();
            let T::Hash(w) = self.peek().clone() else {
                return Err(self.unexpected("a membar mask like `#StoreLoad`"));
            };
            let full = format!("#{w}");
            match MembarMask::NAMES.iter().find(|(n, _)| *n == full) {
                Some((_, b)) => m |= b,
                None => {
                    return Err(self.src.error_help(
                        sp,
                        format!("unknown membar mask `{full}`"),
                        "masks are #LoadLoad, #LoadStore, #StoreLoad, #StoreStore",
                    ))
                }
            }
            self.bump();
            if !self.eat_p("|") {
                break;
            }
        }
        Ok(MembarMask(m))
    }

    /// A register as a target (`-> r` of `stwcx`).
    fn target_reg(&mut self, ctx: &mut Ctx) -> R<RegId> {
        let (n, sp) = self.name("a register name")?;
        match self.resolve(ctx, &n) {
            Res::Reg(r) => {
                ctx.assigned[r.0 as usize] = true;
                Ok(r)
            }
            Res::Var(_) => Err(self.src.error(
                sp,
                format!("`{n}` is a shared variable, expected a register"),
            )),
        }
    }

    fn assignment(&mut self, ctx: &mut Ctx) -> R<Vec<Command>> {
        let lhs = self.unary()?;
        self.expect_p("=")?;
        // Store?
        let reg = match &lhs.k {
            Pk::Name(n) => match self.resolve(ctx, n) {
                Res::Reg(r) => Some(r),
                Res::Var(_) => None,
            },
            Pk::Index(..) | Pk::Mem(_) => None,
            _ => {
                return Err(self.src.error_help(
                    lhs.span,
                    "cannot assign to this",
                    "the left side is a register, a shared variable, `v[e]` or `mem[e]`",
                ))
            }
        };
        let Some(r) = reg else {
            let addr = self.memref(ctx, &lhs)?;
            let v = self.expr()?;
            let value = self.lower_l(ctx, &v)?;
            let Some(addr) = addr else {
                return Err(self.src.error(lhs.span, "cannot assign to this"));
            };
            return Ok(vec![Command::Store { addr, value }]);
        };
        ctx.assigned[r.0 as usize] = true;
        let special = match (self.peek(), self.peek_at(1)) {
            (T::Ident(k), T::P("("))
                if matches!(
                    k.as_str(),
                    "cas" | "xchg" | "lwarx" | "ldar" | "ldapr" | "select"
                ) =>
            {
                Some(k.clone())
            }
            _ => None,
        };
        let rname = self.prog.name(ctx.t.regs[r.0 as usize]).to_string();
        let no_r = |p: &Self, e: &LExpr, sp: Span, what: &str| -> R<()> {
            let mut bad = false;
            e.for_each_var(&mut |v| bad |= v == r);
            if bad {
                Err(p.src.error_help(
                    sp,
                    format!("the {what} must not mention the target register `{rname}`"),
                    "it is read after the load overwrote the register; copy it to another register first",
                ))
            } else {
                Ok(())
            }
        };
        if special.as_deref() == Some("select") {
            self.bump();
            self.bump();
            let mut args = Vec::new();
            for i in 0..3 {
                if i > 0 {
                    self.expect_p(",")?;
                }
                let e = self.expr()?;
                args.push(self.lower_l(ctx, &e)?);
            }
            self.expect_p(")")?;
            let [cond, then, else_]: [LExpr; 3] = match args.try_into() {
                Ok(a) => a,
                Err(_) => return Err(self.unexpected("three arguments")),
            };
            return Ok(vec![Command::Select {
                reg: r,
                cond,
                then,
                else_,
            }]);
        }
        if let Some(k) = special {
            self.bump();
            self.bump();
            let lsp = self.span();
            let addr = self.location(ctx)?;
            let lsp = lsp.join(self.prev_span());
            let cmds = match k.as_str() {
                "lwarx" => vec![Command::LoadReserve { reg: r, addr }],
                "ldar" | "ldapr" => {
                    let bits = if k == "ldar" { Ann::ACQ } else { Ann::ACQPC };
                    vec![Command::Ann(
                        Ann(bits),
                        Box::new(Command::Load { reg: r, addr }),
                    )]
                }
                "xchg" => {
                    no_r(self, &addr, lsp, "address")?;
                    self.expect_p(",")?;
                    let v = self.expr()?;
                    let value = self.lower_l(ctx, &v)?;
                    no_r(self, &value, v.span, "stored value")?;
                    vec![Command::Atomic(vec![
                        Command::Load {
                            reg: r,
                            addr: addr.clone(),
                        },
                        Command::Store { addr, value },
                    ])]
                }
                _ => {
                    no_r(self, &addr, lsp, "address")?;
                    self.expect_p(",")?;
                    let o = self.expr()?;
                    let old = self.lower_l(ctx, &o)?;
                    no_r(self, &old, o.span, "expected value")?;
                    self.expect_p(",")?;
                    let n = self.expr()?;
                    let new = self.lower_l(ctx, &n)?;
                    no_r(self, &new, n.span, "new value")?;
                    let load = Command::Load {
                        reg: r,
                        addr: addr.clone(),
                    };
                    vec![
                        Command::Atomic(vec![
                            load.clone(),
                            Command::Assume(Expr::bin(BinOp::Eq, Expr::Var(r), old.clone())),
                            Command::Store { addr, value: new },
                        ]),
                        Command::Atomic(vec![
                            load,
                            Command::Assume(Expr::bin(BinOp::Ne, Expr::Var(r), old)),
                        ]),
                    ]
                }
            };
            self.expect_p(")")?;
            return Ok(cmds);
        }
        let rhs = self.expr()?;
        if let Some(addr) = self.memref(ctx, &rhs)? {
            return Ok(vec![Command::Load { reg: r, addr }]);
        }
        let value = self.lower_l(ctx, &rhs)?;
        Ok(vec![Command::Assign { reg: r, value }])
    }

    // ---------------------------------------------------------- structured

    fn structured(&mut self, ctx: &mut Ctx) -> R<()> {
        let mut labels: HashSet<String> = HashSet::new();
        let mut body = Vec::new();
        while !self.is_p("}") {
            if self.is_kw("reg") {
                return Err(self.src.error(
                    self.span(),
                    "`reg` declarations must come first in a thread body",
                ));
            }
            body.push(self.stmt(ctx, &mut labels)?);
        }
        let label_set = labels;
        let mut low = Lower {
            labels: label_set,
            next: 0,
            goals: Vec::new(),
        };
        let init = low.entry_of_seq(&body, "end");
        let s = self.prog.names.intern(&init);
        ctx.state(s);
        ctx.t.initial = StateId(0);
        self.lower_seq(ctx, &mut low, &body, &init, "end")?;
        let end = self.prog.names.intern("end");
        ctx.state(end);
        for (q, span) in low.goals {
            let sym = self.prog.names.intern(&q);
            let q = ctx.state(sym);
            self.prog.goals.push(Goal {
                name: None,
                kind: GoalKind::Assertion,
                at: GoalAt::States(vec![(ThreadId(ctx.tid), q)]),
                cond: None,
                span,
            });
        }
        Ok(())
    }

    fn block(&mut self, ctx: &mut Ctx, labels: &mut HashSet<String>) -> R<Vec<St>> {
        self.expect_p("{")?;
        let mut v = Vec::new();
        while !self.is_p("}") {
            v.push(self.stmt(ctx, labels)?);
        }
        self.expect_p("}")?;
        Ok(v)
    }

    fn cond(&mut self, ctx: &mut Ctx) -> R<LExpr> {
        self.expect_p("(")?;
        let e = self.expr()?;
        self.expect_p(")")?;
        self.lower_l(ctx, &e)
    }

    fn stmt(&mut self, ctx: &mut Ctx, labels: &mut HashSet<String>) -> R<St> {
        self.enter()?;
        let r = self.stmt_inner(ctx, labels);
        self.leave();
        r
    }

    fn stmt_inner(&mut self, ctx: &mut Ctx, labels: &mut HashSet<String>) -> R<St> {
        let start = self.span();
        if self.is_state_name() && matches!(self.peek_at(1), T::P(":")) {
            let (l, sp) = self.state_name("a label")?;
            self.bump();
            if l == "end" {
                return Err(self.src.error(
                    sp,
                    "`end` is reserved for the state after the last statement",
                ));
            }
            if labels.contains(&l) {
                return Err(self.src.error(sp, format!("label `{l}` defined twice")));
            }
            labels.insert(l.clone());
            let s = self.stmt(ctx, labels)?;
            return Ok(St::Label(l, Box::new(s)));
        }
        if self.eat_kw("if") {
            let c = self.cond(ctx)?;
            let then = self.block(ctx, labels)?;
            let els = if self.eat_kw("else") {
                if self.is_kw("if") {
                    Some(vec![self.stmt(ctx, labels)?])
                } else {
                    Some(self.block(ctx, labels)?)
                }
            } else {
                None
            };
            return Ok(St::If(c, then, els, start));
        }
        if self.eat_kw("while") {
            let c = self.cond(ctx)?;
            let body = self.block(ctx, labels)?;
            return Ok(St::While(c, body, start));
        }
        if self.eat_kw("choose") {
            let mut bs = vec![self.block(ctx, labels)?];
            if !self.is_kw("or") {
                return Err(self.unexpected("`or` (a `choose` needs at least two branches)"));
            }
            while self.eat_kw("or") {
                bs.push(self.block(ctx, labels)?);
            }
            return Ok(St::Choose(bs, start));
        }
        if self.eat_kw("goto") {
            let (l, sp) = self.state_name("a label")?;
            self.expect_p(";")?;
            return Ok(St::Goto(l, start.join(sp)));
        }
        if self.eat_kw("assert") {
            let c = self.cond(ctx)?;
            self.expect_p(";")?;
            return Ok(St::Assert(c, start.join(self.prev_span())));
        }
        if self.is_kw("else") || self.is_kw("or") {
            return Err(self.unexpected("a statement"));
        }
        let (cmds, sp) = self.command(ctx, false)?;
        self.expect_p(";")?;
        Ok(St::Cmd(cmds, sp))
    }

    fn emit(&mut self, ctx: &mut Ctx, from: &str, to: &str, cmd: Command, span: Span) {
        let f = self.prog.names.intern(from);
        let f = ctx.state(f);
        let t = self.prog.names.intern(to);
        let t = ctx.state(t);
        ctx.t.instrs.push(Instr {
            from: f,
            to: t,
            cmd,
            span,
        });
    }

    fn lower_seq(
        &mut self,
        ctx: &mut Ctx,
        low: &mut Lower,
        stmts: &[St],
        entry: &str,
        exit: &str,
    ) -> R<()> {
        let mut cur = entry.to_string();
        for (i, s) in stmts.iter().enumerate() {
            let next = match stmts.get(i + 1) {
                Some(n) => low.entry_of(n),
                None => exit.to_string(),
            };
            self.lower(ctx, low, s, &cur, &next)?;
            cur = next;
        }
        Ok(())
    }

    fn lower(&mut self, ctx: &mut Ctx, low: &mut Lower, s: &St, entry: &str, exit: &str) -> R<()> {
        match s {
            St::Label(l, inner) => {
                if entry != l {
                    self.emit(ctx, entry, l, Command::Nop, Span::default());
                }
                self.lower(ctx, low, inner, l, exit)?;
            }
            St::Cmd(cmds, sp) => {
                for c in cmds {
                    self.emit(ctx, entry, exit, c.clone(), *sp);
                }
            }
            St::If(c, then, els, sp) => {
                let te = low.entry_of_seq(then, exit);
                self.emit(ctx, entry, &te, Command::Assume(c.clone()), *sp);
                let not = Command::Assume(Expr::un(UnOp::Not, c.clone()));
                match els {
                    Some(els) => {
                        let ee = low.entry_of_seq(els, exit);
                        self.emit(ctx, entry, &ee, not, *sp);
                        self.lower_seq(ctx, low, then, &te, exit)?;
                        self.lower_seq(ctx, low, els, &ee, exit)?;
                    }
                    None => {
                        self.emit(ctx, entry, exit, not, *sp);
                        self.lower_seq(ctx, low, then, &te, exit)?;
                    }
                }
            }
            St::While(c, body, sp) => {
                let be = low.entry_of_seq(body, entry);
                self.emit(ctx, entry, &be, Command::Assume(c.clone()), *sp);
                let not = Command::Assume(Expr::un(UnOp::Not, c.clone()));
                self.emit(ctx, entry, exit, not, *sp);
                self.lower_seq(ctx, low, body, &be, entry)?;
            }
            St::Choose(bs, sp) => {
                let entries: Vec<String> = bs.iter().map(|b| low.entry_of_seq(b, exit)).collect();
                for e in &entries {
                    self.emit(ctx, entry, e, Command::Nop, *sp);
                }
                for (b, e) in bs.iter().zip(&entries) {
                    self.lower_seq(ctx, low, b, e, exit)?;
                }
            }
            St::Goto(l, sp) => {
                if !low.labels.contains(l) {
                    return Err(self.src.error(*sp, format!("undefined label `{l}`")));
                }
                self.emit(ctx, entry, l, Command::Nop, *sp);
            }
            St::Assert(c, sp) => {
                let f = low.fresh();
                self.emit(ctx, entry, exit, Command::Assume(c.clone()), *sp);
                let not = Command::Assume(Expr::un(UnOp::Not, c.clone()));
                self.emit(ctx, entry, &f, not, *sp);
                low.goals.push((f, *sp));
            }
        }
        Ok(())
    }

    // --------------------------------------------------------------- goals

    fn goal(&mut self, kind: GoalKind) -> R<()> {
        let start = self.bump().span;
        let mut name = None;
        if self.is_name() && matches!(self.peek_at(1), T::P(":")) {
            name = Some(self.name("a goal name")?.0);
            self.bump();
        }
        let at = if self.eat_kw("final") || self.is_kw("where") || self.is_p(";") {
            GoalAt::Final
        } else if self.eat_kw("anywhere") {
            GoalAt::States(Vec::new())
        } else {
            let mut v = Vec::new();
            loop {
                let (t, tsp) = self.name("a thread name (or `final`)")?;
                let tid = self.thread_id(&t, tsp)?;
                self.expect_p("@")?;
                let (q, qsp) = self.state_name("a state name")?;
                let th = &self.prog.threads[tid.0 as usize];
                let st = self.prog.names.get(&q).and_then(|s| th.find_state(s));
                match st {
                    Some(st) => v.push((tid, st)),
                    None => {
                        return Err(self
                            .src
                            .error(qsp, format!("thread `{t}` has no state `{q}`")))
                    }
                }
                if !self.eat_p(",") {
                    break;
                }
            }
            GoalAt::States(v)
        };
        let cond = if self.eat_kw("where") {
            let e = self.expr()?;
            Some(self.lower_g(&e)?)
        } else {
            None
        };
        let end = self.expect_p(";")?;
        self.prog.goals.push(Goal {
            name,
            kind,
            at,
            cond,
            span: start.join(end),
        });
        Ok(())
    }
}

/// State naming while desugaring a structured body.
struct Lower {
    labels: HashSet<String>,
    next: usize,
    /// Assertion failure states, with the `assert` span.
    goals: Vec<(String, Span)>,
}

impl Lower {
    fn fresh(&mut self) -> String {
        loop {
            let n = format!("q{}", self.next);
            self.next += 1;
            if !self.labels.contains(&n) {
                return n;
            }
        }
    }

    fn entry_of(&mut self, s: &St) -> String {
        match s {
            St::Label(l, _) => l.clone(),
            _ => self.fresh(),
        }
    }

    fn entry_of_seq(&mut self, b: &[St], exit: &str) -> String {
        match b.first() {
            Some(s) => self.entry_of(s),
            None => exit.to_string(),
        }
    }
}
