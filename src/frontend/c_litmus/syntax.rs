//! The C part of herd's C litmus dialect and of its macro files: tokens,
//! the AST of expressions and statements, the thread functions
//! (`P0(int *x, int **y) { … }`) and the macro file (`.def`: one
//! `NAME(params) body` per line, the body an expression or a `{ … }`
//! block over herd's primitives `__load{tag}`, `__store{tag}`, …).
//! Purely syntactic: macros are expanded and names resolved by
//! [`super::lower`].

use crate::diag::{Error, SourceFile, Span};

/// A token of C.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Tok {
    /// An identifier or keyword.
    Ident(String),
    /// An integer literal (decimal or `0x` hexadecimal).
    Int(i64),
    /// A punctuator (`(`, `==`, `&~`, …).
    Punct(&'static str),
}

const PUNCTS: [&str; 33] = [
    "&~", "==", "!=", "<=", ">=", "&&", "||", "<<", ">>", "->", "++", "--", "(", ")", "{", "}",
    "[", "]", ",", ";", "*", "&", "=", "+", "-", "!", "~", "<", ">", "|", "^", "/", "%",
];

/// Splits `text[start..end]` of `src` into tokens with their spans;
/// `//` and `/* */` comments are skipped.
///
/// Errors: an unterminated comment, a character that starts no token.
pub(crate) fn lex(src: &SourceFile, start: usize, end: usize) -> Result<Vec<(Tok, Span)>, Error> {
    let s = &src.text.as_bytes()[..end];
    let mut i = start;
    let mut out = Vec::new();
    while i < end {
        let c = s[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if c == b'/' && s.get(i + 1) == Some(&b'/') {
            while i < end && s[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if c == b'/' && s.get(i + 1) == Some(&b'*') {
            let close = src.text[i + 2..end]
                .find("*/")
                .ok_or_else(|| src.error(Span::new(i, i + 2), "unterminated comment `/*`"))?;
            i += close + 4;
            continue;
        }
        let st = i;
        if c.is_ascii_alphabetic() || c == b'_' {
            while i < end && (s[i].is_ascii_alphanumeric() || s[i] == b'_') {
                i += 1;
            }
            out.push((Tok::Ident(src.text[st..i].to_string()), Span::new(st, i)));
            continue;
        }
        if c.is_ascii_digit() {
            while i < end && s[i].is_ascii_alphanumeric() {
                i += 1;
            }
            let t = &src.text[st..i];
            let v = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
                Some(h) => i64::from_str_radix(h, 16).ok(),
                None => t.parse().ok(),
            };
            let v =
                v.ok_or_else(|| src.error(Span::new(st, i), format!("bad integer literal `{t}`")))?;
            out.push((Tok::Int(v), Span::new(st, i)));
            continue;
        }
        match PUNCTS.iter().find(|p| src.text[i..end].starts_with(**p)) {
            Some(p) => {
                i += p.len();
                out.push((Tok::Punct(p), Span::new(st, i)));
            }
            None => {
                let ch = src.text[i..].chars().next().unwrap_or(' ');
                return Err(src.error(
                    Span::new(i, i + ch.len_utf8()),
                    format!("unexpected character `{ch}` in C code"),
                ));
            }
        }
    }
    Ok(out)
}

/// A binary operator of C expressions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum COp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    And,
    Or,
    Xor,
    AndNot,
    Shl,
    Shr,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    LAnd,
    LOr,
}

/// A C expression.
#[derive(Clone, Debug)]
pub(crate) enum Ex {
    /// An integer constant.
    Int(i64),
    /// A name: a local, a parameter (a pointer to the global of the same
    /// name) or, inside a macro body, a macro parameter.
    Name(String),
    /// `*e`
    Deref(Box<Ex>),
    /// `&e`
    AddrOf(Box<Ex>),
    /// `!e`
    Not(Box<Ex>),
    /// `-e`
    Neg(Box<Ex>),
    /// `~e`
    Compl(Box<Ex>),
    /// `a op b`
    Bin(COp, Box<Ex>, Box<Ex>),
    /// `NAME(args)`: a macro of the macro file (or an unknown function).
    Call(String, Vec<(Ex, Span)>),
    /// `__prim{tag}(args)`: one of herd's primitives, with its tag (the
    /// text between the braces, empty when there are none).
    Prim {
        /// The primitive (`__load`, `__xchg`, …).
        name: String,
        /// Its tag (`ONCE`, `rcu-lock`), or empty.
        tag: String,
        /// Its arguments; an operator argument of `__atomic_op` is
        /// [`Ex::Op`].
        args: Vec<(Ex, Span)>,
    },
    /// The operator argument of `__atomic_op{…}(X,+,V)`.
    Op(COp),
}

/// A C statement.
#[derive(Clone, Debug)]
pub(crate) enum St {
    /// `int r0;`, `int *r1 = e;` (the type is not needed).
    Decl(String, Option<(Ex, Span)>),
    /// `lhs = rhs;`
    Assign((Ex, Span), (Ex, Span)),
    /// `e;`
    Expr(Ex, Span),
    /// `if (c) s1 else s2`
    If((Ex, Span), Vec<(St, Span)>, Vec<(St, Span)>),
    /// `{ … }`
    Block(Vec<(St, Span)>),
}

/// One thread function `Pn(params) { body }`.
#[derive(Clone, Debug)]
pub(crate) struct Func {
    /// n of `Pn`.
    pub index: usize,
    /// Its parameters' names (each a pointer to the global of that name).
    pub params: Vec<(String, Span)>,
    /// The body.
    pub body: Vec<(St, Span)>,
    /// The name's span.
    pub span: Span,
}

/// The C types herd's C dialect writes in declarations and casts.
const TYPE_WORDS: [&str; 16] = [
    "int",
    "long",
    "short",
    "char",
    "unsigned",
    "signed",
    "const",
    "volatile",
    "intptr_t",
    "uintptr_t",
    "atomic_t",
    "atomic_int",
    "_Atomic",
    "spinlock_t",
    "struct",
    "void",
];

/// A recursive-descent parser over tokens.
pub(crate) struct Parser<'a> {
    src: &'a SourceFile,
    toks: Vec<(Tok, Span)>,
    pos: usize,
    end: usize,
    /// Statements and unary expressions being parsed, one inside the
    /// other (at most [`MAX_DEPTH`]).
    depth: usize,
}

/// The deepest nesting of statements and expressions a test may have: a
/// located error beyond it, never a stack overflow.
pub const MAX_DEPTH: usize = 256;

impl<'a> Parser<'a> {
    /// A parser of `text[start..end]`.
    pub(crate) fn new(src: &'a SourceFile, start: usize, end: usize) -> Result<Self, Error> {
        Ok(Parser {
            src,
            toks: lex(src, start, end)?,
            pos: 0,
            end,
            depth: 0,
        })
    }

    /// Runs `f` one level deeper.
    ///
    /// Errors: deeper than [`MAX_DEPTH`] (located at the current token);
    /// those of `f`.
    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T, Error>) -> Result<T, Error> {
        if self.depth >= MAX_DEPTH {
            return Err(self.src.error(
                self.span(),
                format!("statements or expressions nested deeper than {MAX_DEPTH}"),
            ));
        }
        self.depth += 1;
        let r = f(self);
        self.depth -= 1;
        r
    }

    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.0)
    }

    fn span(&self) -> Span {
        self.toks
            .get(self.pos)
            .map(|t| t.1)
            .unwrap_or(Span::new(self.end, self.end))
    }

    fn prev_end(&self) -> usize {
        self.pos
            .checked_sub(1)
            .and_then(|p| self.toks.get(p))
            .map(|t| t.1.end)
            .unwrap_or(self.end)
    }

    fn at_end(&self) -> bool {
        self.pos >= self.toks.len()
    }

    fn is(&self, p: &str) -> bool {
        matches!(self.peek(), Some(Tok::Punct(q)) if *q == p)
    }

    fn eat(&mut self, p: &str) -> bool {
        let y = self.is(p);
        if y {
            self.pos += 1;
        }
        y
    }

    fn expect(&mut self, p: &str) -> Result<Span, Error> {
        let sp = self.span();
        if self.eat(p) {
            Ok(sp)
        } else {
            Err(self.unexpected(&format!("`{p}`")))
        }
    }

    fn unexpected(&self, what: &str) -> Error {
        let found = match self.peek() {
            Some(Tok::Ident(s)) => format!("`{s}`"),
            Some(Tok::Int(v)) => format!("`{v}`"),
            Some(Tok::Punct(p)) => format!("`{p}`"),
            None => "the end".to_string(),
        };
        self.src
            .error(self.span(), format!("expected {what}, found {found}"))
    }

    fn ident(&mut self) -> Result<(String, Span), Error> {
        match self.peek() {
            Some(Tok::Ident(s)) => {
                let r = (s.clone(), self.span());
                self.pos += 1;
                Ok(r)
            }
            _ => Err(self.unexpected("a name")),
        }
    }

    fn is_type_word(&self) -> bool {
        matches!(self.peek(), Some(Tok::Ident(s)) if TYPE_WORDS.contains(&s.as_str()))
    }

    /// Skips a type: its words, then any `*`.
    fn skip_type(&mut self) {
        while self.is_type_word() {
            let struct_kw = matches!(self.peek(), Some(Tok::Ident(s)) if s == "struct");
            self.pos += 1;
            if struct_kw && matches!(self.peek(), Some(Tok::Ident(_))) {
                self.pos += 1;
            }
        }
        while self.eat("*") {}
    }

    /// The thread functions `P0(…) {…} P1(…) {…} …` up to the end.
    ///
    /// Errors: a function not named `Pn` in order, syntax errors.
    pub(crate) fn functions(&mut self) -> Result<Vec<Func>, Error> {
        let mut out = Vec::new();
        while !self.at_end() {
            // herd accepts an optional `void` return type.
            if matches!(self.peek(), Some(Tok::Ident(s)) if s == "void") {
                self.pos += 1;
            }
            let (name, span) = self.ident()?;
            let want = format!("P{}", out.len());
            if name != want {
                return Err(self.src.error(
                    span,
                    format!("expected the thread function `{want}`, found `{name}`"),
                ));
            }
            self.expect("(")?;
            let mut params = Vec::new();
            while !self.eat(")") {
                if !params.is_empty() {
                    self.expect(",")?;
                }
                if !self.is_type_word() {
                    return Err(self.unexpected("a parameter type"));
                }
                self.skip_type();
                params.push(self.ident()?);
            }
            self.expect("{")?;
            let body = self.block_rest()?;
            out.push(Func {
                index: out.len(),
                params,
                body,
                span,
            });
        }
        Ok(out)
    }

    /// Statements up to and including the closing `}`.
    fn block_rest(&mut self) -> Result<Vec<(St, Span)>, Error> {
        let mut v = Vec::new();
        while !self.eat("}") {
            if self.at_end() {
                return Err(self.unexpected("`}`"));
            }
            self.stmt_into(&mut v)?;
        }
        Ok(v)
    }

    /// One statement (a declaration of several names gives several).
    ///
    /// Errors: syntax errors; nesting deeper than [`MAX_DEPTH`].
    fn stmt_into(&mut self, out: &mut Vec<(St, Span)>) -> Result<(), Error> {
        self.nested(|p| p.stmt_at(out))
    }

    fn stmt_at(&mut self, out: &mut Vec<(St, Span)>) -> Result<(), Error> {
        let start = self.span().start;
        if self.eat(";") {
            return Ok(());
        }
        if self.eat("{") {
            let b = self.block_rest()?;
            out.push((St::Block(b), Span::new(start, self.prev_end())));
            return Ok(());
        }
        if self.is_type_word() {
            self.skip_type();
            loop {
                while self.eat("*") {}
                let (name, nsp) = self.ident()?;
                let init = if self.eat("=") {
                    Some(self.expr_sp()?)
                } else {
                    None
                };
                out.push((St::Decl(name, init), Span::new(nsp.start, self.prev_end())));
                if !self.eat(",") {
                    break;
                }
            }
            self.expect(";")?;
            return Ok(());
        }
        if let Some(Tok::Ident(k)) = self.peek() {
            match k.as_str() {
                "if" => {
                    self.pos += 1;
                    self.expect("(")?;
                    let c = self.expr_sp()?;
                    self.expect(")")?;
                    let mut th = Vec::new();
                    self.stmt_into(&mut th)?;
                    let mut el = Vec::new();
                    if matches!(self.peek(), Some(Tok::Ident(e)) if e == "else") {
                        self.pos += 1;
                        self.stmt_into(&mut el)?;
                    }
                    out.push((St::If(c, th, el), Span::new(start, self.prev_end())));
                    return Ok(());
                }
                "while" | "for" | "do" | "goto" | "return" | "switch" | "break" | "continue" => {
                    return Err(self.src.error(
                        self.span(),
                        format!("`{k}` in a C litmus test is not supported (straight-line code with `if`/`else` only)"),
                    ));
                }
                _ => {}
            }
        }
        let lhs = self.expr_sp()?;
        if self.eat("=") {
            let rhs = self.expr_sp()?;
            self.expect(";")?;
            out.push((St::Assign(lhs, rhs), Span::new(start, self.prev_end())));
        } else {
            self.expect(";")?;
            out.push((St::Expr(lhs.0, lhs.1), Span::new(start, self.prev_end())));
        }
        Ok(())
    }

    /// An expression with its span.
    pub(crate) fn expr_sp(&mut self) -> Result<(Ex, Span), Error> {
        let start = self.span().start;
        let e = self.binary(0)?;
        Ok((e, Span::new(start, self.prev_end())))
    }

    fn binop(&self) -> Option<(COp, u8)> {
        let Some(Tok::Punct(p)) = self.peek() else {
            return None;
        };
        Some(match *p {
            "||" => (COp::LOr, 1),
            "&&" => (COp::LAnd, 2),
            "|" => (COp::Or, 3),
            "^" => (COp::Xor, 4),
            "&" => (COp::And, 5),
            "==" => (COp::Eq, 6),
            "!=" => (COp::Ne, 6),
            "<" => (COp::Lt, 7),
            "<=" => (COp::Le, 7),
            ">" => (COp::Gt, 7),
            ">=" => (COp::Ge, 7),
            "<<" => (COp::Shl, 8),
            ">>" => (COp::Shr, 8),
            "+" => (COp::Add, 9),
            "-" => (COp::Sub, 9),
            "*" => (COp::Mul, 10),
            "/" => (COp::Div, 10),
            "%" => (COp::Rem, 10),
            _ => return None,
        })
    }

    fn binary(&mut self, min: u8) -> Result<Ex, Error> {
        let mut a = self.unary()?;
        while let Some((op, prec)) = self.binop() {
            if prec <= min {
                break;
            }
            self.pos += 1;
            let b = self.binary(prec)?;
            a = Ex::Bin(op, Box::new(a), Box::new(b));
        }
        Ok(a)
    }

    /// A unary expression (a parenthesized one included).
    ///
    /// Errors: syntax errors; nesting deeper than [`MAX_DEPTH`].
    fn unary(&mut self) -> Result<Ex, Error> {
        self.nested(|p| p.unary_at())
    }

    fn unary_at(&mut self) -> Result<Ex, Error> {
        for (p, f) in [
            ("*", Ex::Deref as fn(Box<Ex>) -> Ex),
            ("&", Ex::AddrOf),
            ("!", Ex::Not),
            ("-", Ex::Neg),
            ("~", Ex::Compl),
        ] {
            if self.eat(p) {
                return Ok(f(Box::new(self.unary()?)));
            }
        }
        if self.eat("+") {
            return self.unary();
        }
        if self.is("(") {
            // A cast `(int *)e` or a parenthesized expression.
            let save = self.pos;
            self.pos += 1;
            if self.is_type_word() {
                self.skip_type();
                self.expect(")")?;
                return self.unary();
            }
            self.pos = save + 1;
            let e = self.binary(0)?;
            self.expect(")")?;
            return Ok(e);
        }
        match self.peek().cloned() {
            Some(Tok::Int(v)) => {
                self.pos += 1;
                Ok(Ex::Int(v))
            }
            Some(Tok::Ident(name)) => {
                self.pos += 1;
                if name.starts_with("__") && self.is("{") {
                    let open = self.span();
                    let close = (self.pos..self.toks.len())
                        .find(|&k| self.toks[k].0 == Tok::Punct("}"))
                        .ok_or_else(|| self.src.error(open, "unterminated tag `{`"))?;
                    let tag = self.src.text[open.end..self.toks[close].1.start]
                        .trim()
                        .to_string();
                    self.pos = close + 1;
                    // `__fence{MB}` takes no argument list.
                    let args = if self.is("(") {
                        self.args(true)?
                    } else {
                        Vec::new()
                    };
                    return Ok(Ex::Prim { name, tag, args });
                }
                if self.is("(") {
                    let args = self.args(name.starts_with("__"))?;
                    if name.starts_with("__") {
                        return Ok(Ex::Prim {
                            name,
                            tag: String::new(),
                            args,
                        });
                    }
                    return Ok(Ex::Call(name, args));
                }
                Ok(Ex::Name(name))
            }
            _ => Err(self.unexpected("an expression")),
        }
    }

    /// `( a, b, … )`; with `ops`, an argument may be a bare operator.
    fn args(&mut self, ops: bool) -> Result<Vec<(Ex, Span)>, Error> {
        self.expect("(")?;
        let mut v = Vec::new();
        while !self.eat(")") {
            if !v.is_empty() {
                self.expect(",")?;
            }
            let sp = self.span();
            let next_ends = matches!(
                self.toks.get(self.pos + 1),
                Some((Tok::Punct(",") | Tok::Punct(")"), _))
            );
            if ops && next_ends {
                let op = match self.peek() {
                    Some(Tok::Punct("+")) => Some(COp::Add),
                    Some(Tok::Punct("-")) => Some(COp::Sub),
                    Some(Tok::Punct("&")) => Some(COp::And),
                    Some(Tok::Punct("|")) => Some(COp::Or),
                    Some(Tok::Punct("^")) => Some(COp::Xor),
                    Some(Tok::Punct("&~")) => Some(COp::AndNot),
                    _ => None,
                };
                if let Some(op) = op {
                    self.pos += 1;
                    v.push((Ex::Op(op), sp));
                    continue;
                }
            }
            v.push(self.expr_sp()?);
        }
        Ok(v)
    }
}

/// One macro of a macro file: `NAME(params) body`.
#[derive(Clone, Debug)]
pub struct Macro {
    /// Its parameters.
    pub(crate) params: Vec<String>,
    /// Its body: an expression, or a block of statements.
    pub(crate) body: MacroBody,
    /// Where it is defined (in [`MacroFile::source`]).
    pub span: Span,
}

/// A macro's body.
#[derive(Clone, Debug)]
pub(crate) enum MacroBody {
    /// `NAME(X) __load{ONCE}(X)`: a value.
    Expr(Ex),
    /// `NAME(X,V) { __store{ONCE}(X,V); }`: statements.
    Block(Vec<(St, Span)>),
}

/// herd's macro file (`linux-kernel.def`): what each kernel macro of a C
/// litmus test means, in herd's primitives. Read as data: a changed file
/// changes the meaning of the tests.
#[derive(Clone, Debug)]
pub struct MacroFile {
    /// The file.
    pub source: SourceFile,
    /// The macros by name.
    pub macros: std::collections::BTreeMap<String, Macro>,
}

impl MacroFile {
    /// Parses a macro file: `//` comments, blank lines, and one
    /// `NAME(params) body` per line (the body an expression or a `{ … }`
    /// block spanning lines).
    ///
    /// Errors: a located syntax error; a macro defined twice.
    pub fn parse(src: &SourceFile) -> Result<MacroFile, Error> {
        let mut p = Parser::new(src, 0, src.text.len())?;
        let mut macros = std::collections::BTreeMap::new();
        while !p.at_end() {
            let (name, span) = p.ident()?;
            let mut params = Vec::new();
            if p.is("(") {
                p.pos += 1;
                while !p.eat(")") {
                    if !params.is_empty() {
                        p.expect(",")?;
                    }
                    params.push(p.ident()?.0);
                }
            }
            let body = if p.eat("{") {
                MacroBody::Block(p.block_rest()?)
            } else {
                MacroBody::Expr(p.expr_sp()?.0)
            };
            if macros.contains_key(&name) {
                return Err(src.error(span, format!("macro `{name}` defined twice")));
            }
            macros.insert(name, Macro { params, body, span });
        }
        Ok(MacroFile {
            source: src.clone(),
            macros,
        })
    }
}
