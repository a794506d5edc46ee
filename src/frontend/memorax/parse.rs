//! The RMM grammar (README of the Memorax corpus) over expanded tokens →
//! [`File`](super::File). Recursive descent; statements, expressions and
//! brackets nest at most [`MAX_DEPTH`] deep (an error, never a stack
//! overflow). VIPS-M statements are rejected here, at their keyword.

use super::lex::{Tok, Token};
use super::{Decl, File, Init, LStmt, MExpr, MemLoc, Process, Stmt};
use crate::diag::{Error, SourceFile, Span};
use crate::program::BinOp;

/// The deepest nesting of statements and expressions accepted.
pub const MAX_DEPTH: usize = 256;

/// Reserved words (not labels or variable names).
const KEYWORDS: [&str; 31] = [
    "forbidden",
    "predicates",
    "data",
    "process",
    "registers",
    "text",
    "nop",
    "fence",
    "ssfence",
    "llfence",
    "assume",
    "read",
    "syncrd",
    "write",
    "syncwr",
    "locked",
    "slocked",
    "either",
    "or",
    "cas",
    "goto",
    "if",
    "then",
    "else",
    "while",
    "do",
    "not",
    "true",
    "false",
    "my",
    "macro",
];

struct P<'a> {
    src: &'a SourceFile,
    toks: &'a [Token],
    pos: usize,
    depth: usize,
}

/// Parses expanded tokens.
///
/// Errors: syntax errors, VIPS-M constructs (`syncrd`, `syncwr`,
/// `slocked`), nesting deeper than [`MAX_DEPTH`] (located).
pub fn parse(src: &SourceFile, toks: &[Token]) -> Result<File, Error> {
    let mut p = P {
        src,
        toks,
        pos: 0,
        depth: 0,
    };
    p.file()
}

impl<'a> P<'a> {
    fn peek(&self) -> Option<&'a Tok> {
        self.toks.get(self.pos).map(|t| &t.tok)
    }
    fn peek2(&self) -> Option<&'a Tok> {
        self.toks.get(self.pos + 1).map(|t| &t.tok)
    }
    fn span(&self) -> Span {
        match self.toks.get(self.pos) {
            Some(t) => t.span,
            None => Span::new(self.src.text.len(), self.src.text.len()),
        }
    }
    fn is_kw(&self, k: &str) -> bool {
        matches!(self.peek(), Some(Tok::Id(s)) if s == k)
    }
    fn is_sym(&self, s: &str) -> bool {
        matches!(self.peek(), Some(Tok::Sym(x)) if *x == s)
    }
    fn err(&self, msg: impl Into<String>) -> Error {
        let found = match self.peek() {
            Some(t) => t.show(),
            None => "the end of the file".into(),
        };
        self.src
            .error(self.span(), format!("{}, found {found}", msg.into()))
    }
    fn kw(&mut self, k: &str) -> Result<Span, Error> {
        if self.is_kw(k) {
            self.pos += 1;
            Ok(self.toks[self.pos - 1].span)
        } else {
            Err(self.err(format!("expected `{k}`")))
        }
    }
    fn sym(&mut self, s: &str) -> Result<Span, Error> {
        if self.is_sym(s) {
            self.pos += 1;
            Ok(self.toks[self.pos - 1].span)
        } else {
            Err(self.err(format!("expected `{s}`")))
        }
    }
    fn name(&mut self, what: &str) -> Result<(String, Span), Error> {
        match self.peek() {
            Some(Tok::Id(s)) if !KEYWORDS.contains(&s.as_str()) => {
                self.pos += 1;
                Ok((s.clone(), self.toks[self.pos - 1].span))
            }
            _ => Err(self.err(format!("expected {what}"))),
        }
    }
    fn reg(&mut self) -> Result<(String, Span), Error> {
        match self.peek() {
            Some(Tok::Reg(s)) => {
                self.pos += 1;
                Ok((s.clone(), self.toks[self.pos - 1].span))
            }
            _ => Err(self.err("expected a register `$name`")),
        }
    }
    fn int(&mut self) -> Result<i64, Error> {
        let neg = self.is_sym("-");
        if neg {
            self.pos += 1;
        }
        match self.peek() {
            Some(Tok::Nat(n)) => {
                self.pos += 1;
                Ok(if neg { -n } else { *n })
            }
            _ => Err(self.err("expected an integer")),
        }
    }
    fn enter(&mut self) -> Result<(), Error> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self
                .src
                .error(self.span(), format!("nesting deeper than {MAX_DEPTH}")));
        }
        Ok(())
    }

    fn file(&mut self) -> Result<File, Error> {
        self.kw("forbidden")?;
        let mut forbidden = Vec::new();
        let mut spans = Vec::new();
        loop {
            let mut row = Vec::new();
            let start = self.span();
            loop {
                match self.peek() {
                    Some(Tok::Sym("*")) => {
                        self.pos += 1;
                        row.push(None);
                    }
                    Some(Tok::Id(s)) if !KEYWORDS.contains(&s.as_str()) => {
                        row.push(Some(self.name("a label")?));
                    }
                    _ => break,
                }
            }
            if row.is_empty() {
                return Err(self.err("expected a label or `*` in the `forbidden` list"));
            }
            forbidden.push(row);
            spans.push(start);
            if self.is_sym(";") {
                self.pos += 1;
            } else {
                break;
            }
        }
        if self.is_kw("predicates") {
            // Hints for Memorax's predicate abstraction: parsed, not used.
            self.pos += 1;
            loop {
                self.bexpr()?;
                if self.is_sym(";") {
                    self.pos += 1;
                } else {
                    break;
                }
            }
        }
        let mut data = Vec::new();
        if self.is_kw("data") {
            self.pos += 1;
            data = self.decls(false)?;
        }
        let mut processes = Vec::new();
        while self.is_kw("process") {
            processes.push(self.process()?);
        }
        if self.pos < self.toks.len() {
            return Err(self.err("expected `process`"));
        }
        if processes.is_empty() {
            return Err(self.err("expected at least one `process`"));
        }
        Ok(File {
            forbidden,
            forbidden_spans: spans,
            data,
            processes,
        })
    }

    /// `NAME = init [: dom]` (or `$REG = …`) repeated.
    fn decls(&mut self, regs: bool) -> Result<Vec<Decl>, Error> {
        let mut out = Vec::new();
        loop {
            let starts = if regs {
                matches!(self.peek(), Some(Tok::Reg(_)))
            } else {
                matches!(self.peek(), Some(Tok::Id(s)) if !KEYWORDS.contains(&s.as_str()))
                    && self.peek2() == Some(&Tok::Sym("="))
            };
            if !starts {
                break;
            }
            let (name, span) = if regs {
                self.reg()?
            } else {
                self.name("a variable name")?
            };
            self.sym("=")?;
            let init = if self.is_sym("*") {
                self.pos += 1;
                Init::Any
            } else {
                Init::Value(self.int()?)
            };
            let mut domain = None;
            if self.is_sym(":") {
                self.pos += 1;
                if self.is_kw("Z") {
                    self.pos += 1;
                } else {
                    self.sym("[")?;
                    let lo = self.int()?;
                    self.sym(":")?;
                    let hi = self.int()?;
                    self.sym("]")?;
                    if lo > hi {
                        return Err(self.src.error(span, format!("empty domain [{lo}:{hi}]")));
                    }
                    domain = Some((lo, hi));
                }
            }
            out.push(Decl {
                name,
                init,
                domain,
                span,
            });
        }
        if out.is_empty() {
            return Err(self.err(if regs {
                "expected a register declaration `$r = value`"
            } else {
                "expected a declaration `name = value`"
            }));
        }
        Ok(out)
    }

    fn process(&mut self) -> Result<Process, Error> {
        let span = self.kw("process")?;
        let mut copies = 1;
        if self.is_sym("(") {
            self.pos += 1;
            let n = self.int()?;
            if !(1..=64).contains(&n) {
                return Err(self
                    .src
                    .error(span, "the number of copies must be between 1 and 64"));
            }
            copies = n as u32;
            self.sym(")")?;
        }
        let (mut data, mut regs) = (Vec::new(), Vec::new());
        loop {
            if self.is_kw("data") {
                self.pos += 1;
                data.extend(self.decls(false)?);
            } else if self.is_kw("registers") {
                self.pos += 1;
                regs.extend(self.decls(true)?);
            } else {
                break;
            }
        }
        self.kw("text")?;
        let text = self.slist()?;
        Ok(Process {
            copies,
            data,
            regs,
            text,
            span,
        })
    }

    /// `lstmt (';' lstmt)*`; a `;` before `}`, `or`, `process` or the end
    /// is accepted.
    fn slist(&mut self) -> Result<Vec<LStmt>, Error> {
        let mut out = vec![self.lstmt()?];
        while self.is_sym(";") {
            self.pos += 1;
            if self.peek().is_none()
                || self.is_sym("}")
                || self.is_kw("or")
                || self.is_kw("process")
            {
                break;
            }
            out.push(self.lstmt()?);
        }
        Ok(out)
    }

    fn lstmt(&mut self) -> Result<LStmt, Error> {
        self.enter()?;
        let span = self.span();
        let mut labels = Vec::new();
        while matches!(self.peek(), Some(Tok::Id(s)) if !KEYWORDS.contains(&s.as_str()))
            && self.peek2() == Some(&Tok::Sym(":"))
        {
            labels.push(self.name("a label")?);
            self.pos += 1;
        }
        let stmt = self.stmt()?;
        self.depth -= 1;
        Ok(LStmt { labels, stmt, span })
    }

    fn vips(&self, what: &str) -> Error {
        self.src.error_help(
            self.span(),
            format!("`{what}` is a VIPS-M construct, which bmc-rmm does not model"),
            "only TSO/PSO-style programs are read; remove the VIPS-M synchronisation (docs/memorax.md)",
        )
    }

    fn alternatives(&mut self) -> Result<Vec<Vec<LStmt>>, Error> {
        self.sym("{")?;
        let mut alts = vec![self.slist()?];
        while self.is_kw("or") {
            self.pos += 1;
            alts.push(self.slist()?);
        }
        self.sym("}")?;
        Ok(alts)
    }

    fn stmt(&mut self) -> Result<Stmt, Error> {
        if let Some(Tok::Reg(_)) = self.peek() {
            let (r, _) = self.reg()?;
            self.sym(":=")?;
            return Ok(Stmt::Assign(r, self.expr()?));
        }
        if self.is_sym("{") {
            self.pos += 1;
            let b = self.slist()?;
            self.sym("}")?;
            return Ok(Stmt::Block(b));
        }
        let word = match self.peek() {
            Some(Tok::Id(s)) => s.as_str(),
            _ => return Err(self.err("expected a statement")),
        };
        match word {
            "syncrd" | "syncwr" | "slocked" => return Err(self.vips(word)),
            _ => {}
        }
        let kw_span = self.span();
        self.pos += 1;
        Ok(match word {
            "nop" => Stmt::Nop,
            "fence" => Stmt::Fence,
            "ssfence" => Stmt::SsFence,
            "llfence" => Stmt::LlFence,
            "assume" => {
                self.sym(":")?;
                Stmt::Assume(self.bexpr()?)
            }
            "read" => {
                self.sym(":")?;
                if let Some(Tok::Reg(_)) = self.peek() {
                    let (r, _) = self.reg()?;
                    self.sym(":=")?;
                    Stmt::Load(r, self.memloc()?)
                } else {
                    let m = self.memloc()?;
                    self.sym("=")?;
                    Stmt::ReadEq(m, self.expr()?)
                }
            }
            "write" => {
                self.sym(":")?;
                let m = self.memloc()?;
                self.sym(":=")?;
                Stmt::Store(m, self.expr()?)
            }
            "locked" => {
                if self.is_kw("write") {
                    self.pos += 1;
                    self.sym(":")?;
                    let m = self.memloc()?;
                    self.sym(":=")?;
                    Stmt::LockedWrite(m, self.expr()?)
                } else {
                    Stmt::Locked(self.alternatives()?)
                }
            }
            "either" => Stmt::Either(self.alternatives()?),
            "cas" => {
                self.sym("(")?;
                let m = self.memloc()?;
                self.sym(",")?;
                let a = self.expr()?;
                self.sym(",")?;
                let b = self.expr()?;
                self.sym(")")?;
                Stmt::Cas(m, a, b)
            }
            "goto" => {
                let (l, s) = self.name("a label after `goto`")?;
                Stmt::Goto(l, s)
            }
            "if" => {
                let c = self.bexpr()?;
                self.kw("then")?;
                let a = self.lstmt()?;
                let b = if self.is_kw("else") {
                    self.pos += 1;
                    Some(Box::new(self.lstmt()?))
                } else {
                    None
                };
                Stmt::If(c, Box::new(a), b)
            }
            "while" => {
                let c = self.bexpr()?;
                self.kw("do")?;
                Stmt::While(c, Box::new(self.lstmt()?))
            }
            _ => {
                self.pos -= 1;
                let _ = kw_span;
                return Err(self.err("expected a statement"));
            }
        })
    }

    fn memloc(&mut self) -> Result<MemLoc, Error> {
        let span = self.span();
        if self.is_sym("[") {
            self.pos += 1;
            let e = self.expr()?;
            self.sym("]")?;
            return Ok(MemLoc::Pointer(e, span));
        }
        let (n, span) = self.name("a memory location")?;
        if !self.is_sym("[") {
            return Ok(MemLoc::Global(n, span));
        }
        self.pos += 1;
        let loc = if self.is_kw("my") {
            self.pos += 1;
            MemLoc::Mine(n, span)
        } else {
            match self.peek() {
                Some(Tok::Nat(k)) => {
                    self.pos += 1;
                    MemLoc::Other(n, *k, span)
                }
                _ => return Err(self.err("expected `my` or a process number")),
            }
        };
        self.sym("]")?;
        Ok(loc)
    }

    fn expr(&mut self) -> Result<MExpr, Error> {
        self.enter()?;
        let mut e = self.unit()?;
        loop {
            let op = if self.is_sym("+") {
                BinOp::Add
            } else if self.is_sym("-") {
                BinOp::Sub
            } else {
                break;
            };
            self.pos += 1;
            e = MExpr::Bin(op, Box::new(e), Box::new(self.unit()?));
        }
        self.depth -= 1;
        Ok(e)
    }

    fn unit(&mut self) -> Result<MExpr, Error> {
        let span = self.span();
        match self.peek() {
            Some(Tok::Reg(r)) => {
                self.pos += 1;
                Ok(MExpr::Reg(r.clone(), span))
            }
            Some(Tok::Nat(n)) => {
                self.pos += 1;
                Ok(MExpr::Const(*n, span))
            }
            Some(Tok::Sym("-")) => {
                self.pos += 1;
                self.enter()?;
                let u = self.unit()?;
                self.depth -= 1;
                Ok(match u {
                    MExpr::Const(n, s) => MExpr::Const(-n, span.join(s)),
                    u => MExpr::Neg(Box::new(u)),
                })
            }
            Some(Tok::Sym("(")) => {
                self.pos += 1;
                let e = self.expr()?;
                self.sym(")")?;
                Ok(e)
            }
            _ => Err(self.err("expected an expression")),
        }
    }

    fn bexpr(&mut self) -> Result<MExpr, Error> {
        self.enter()?;
        let mut e = self.band()?;
        while self.is_sym("||") {
            self.pos += 1;
            e = MExpr::Bin(BinOp::Or, Box::new(e), Box::new(self.band()?));
        }
        self.depth -= 1;
        Ok(e)
    }

    fn band(&mut self) -> Result<MExpr, Error> {
        let mut e = self.negatom()?;
        while self.is_sym("&&") {
            self.pos += 1;
            e = MExpr::Bin(BinOp::And, Box::new(e), Box::new(self.negatom()?));
        }
        Ok(e)
    }

    fn negatom(&mut self) -> Result<MExpr, Error> {
        if self.is_kw("not") {
            self.pos += 1;
            return Ok(MExpr::Not(Box::new(self.atom()?)));
        }
        self.atom()
    }

    fn atom(&mut self) -> Result<MExpr, Error> {
        let span = self.span();
        if self.is_kw("true") || self.is_kw("false") {
            let v = self.is_kw("true") as i64;
            self.pos += 1;
            return Ok(MExpr::Const(v, span));
        }
        if self.is_sym("[") {
            self.pos += 1;
            let e = self.bexpr()?;
            self.sym("]")?;
            return Ok(e);
        }
        let a = self.expr()?;
        let op = match self.peek() {
            Some(Tok::Sym("=")) => BinOp::Eq,
            Some(Tok::Sym("!=")) => BinOp::Ne,
            Some(Tok::Sym("<")) => BinOp::Lt,
            Some(Tok::Sym(">")) => BinOp::Gt,
            Some(Tok::Sym("<=")) => BinOp::Le,
            Some(Tok::Sym(">=")) => BinOp::Ge,
            _ => return Err(self.err("expected a comparison (`=`, `!=`, `<`, `>`, `<=`, `>=`)")),
        };
        self.pos += 1;
        let b = self.expr()?;
        Ok(MExpr::Bin(op, Box::new(a), Box::new(b)))
    }
}
