//! Parser, `include` resolution, name resolution and type checking of the
//! cat dialect (grammar in the parent module's docs and docs/models.md).
//! Owns how a model's files are found: the stdlib first, then the model's
//! file, with each `include` spliced in place.

use super::base::{BaseRel, Builtin, RELS, SETS};
use super::{AxiomKind, ExprKind, Model, Node, Stmt, Ty, STDLIB};
use crate::collections::HashMap;
use crate::diag::{Error, SourceFile, Span};
use std::path::Path;

pub mod herd;

#[derive(Clone, Debug, PartialEq)]
enum T {
    Name(String),
    Str(String),
    Sym(&'static str),
    Eof,
}

fn lex(src: &SourceFile) -> Result<Vec<(T, Span)>, Error> {
    let s = src.text.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    while i < s.len() {
        let c = s[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        // herd's lexer also reads `//` line comments (the kernel's model
        // files start with one).
        if c == b'/' && s.get(i + 1) == Some(&b'/') {
            while i < s.len() && s[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if c == b'(' && s.get(i + 1) == Some(&b'*') {
            let start = i;
            let mut depth = 0;
            while i < s.len() {
                if s[i] == b'(' && s.get(i + 1) == Some(&b'*') {
                    depth += 1;
                    i += 2;
                } else if s[i] == b'*' && s.get(i + 1) == Some(&b')') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            if depth != 0 {
                return Err(src.error(Span::new(start, start + 2), "unterminated comment `(*`"));
            }
            continue;
        }
        let start = i;
        if c == b'"' {
            i += 1;
            while i < s.len() && s[i] != b'"' {
                i += 1;
            }
            if i >= s.len() {
                return Err(src.error(Span::new(start, start + 1), "unterminated string"));
            }
            i += 1;
            out.push((
                T::Str(src.text[start + 1..i - 1].to_string()),
                Span::new(start, i),
            ));
            continue;
        }
        // herd's tags (`'ONCE`, `'rcu-lock`): read as names with the quote,
        // which no statement this dialect reads accepts.
        if c == b'\'' && s.get(i + 1).is_some_and(|b| b.is_ascii_alphabetic()) {
            i += 1;
            while i < s.len() && (s[i].is_ascii_alphanumeric() || matches!(s[i], b'_' | b'-')) {
                i += 1;
            }
            out.push((T::Name(src.text[start..i].to_string()), Span::new(start, i)));
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' {
            while i < s.len()
                && (s[i].is_ascii_alphanumeric() || matches!(s[i], b'_' | b'.' | b'-'))
            {
                i += 1;
            }
            // A trailing '-' belongs to `^-1` never to a name; names never end with '-'.
            while src.text.as_bytes()[i - 1] == b'-' {
                i -= 1;
            }
            out.push((T::Name(src.text[start..i].to_string()), Span::new(start, i)));
            continue;
        }
        // Bytes, not text: the next character may be multi-byte.
        let rest = &s[i..];
        let sym: Option<&'static str> = if rest.starts_with(b"^-1") {
            Some("^-1")
        } else if rest.starts_with(b"^+") {
            Some("^+")
        } else if rest.starts_with(b"^*") {
            Some("^*")
        } else if rest.starts_with(b"++") {
            Some("++")
        } else if rest.starts_with(b"->") {
            Some("->")
        } else {
            [
                "|", ";", "\\", "&", "*", "~", "+", "?", "(", ")", "[", "]", "=", ",", "0", "{",
                "}",
            ]
            .iter()
            .find(|t| t.as_bytes()[0] == c)
            .copied()
        };
        match sym {
            Some(t) => {
                i += t.len();
                out.push((T::Sym(t), Span::new(start, i)));
            }
            None => {
                let ch = src.text[i..].chars().next().unwrap_or('?');
                return Err(src.error(
                    Span::new(i, i + ch.len_utf8()),
                    format!("unexpected character {ch:?}"),
                ));
            }
        }
    }
    out.push((T::Eof, Span::new(s.len(), s.len())));
    Ok(out)
}

/// Highest expression tree accepted (longer chains of `|`, `;`, `&`,
/// postfix operators or `~` must be split with `let`).
pub const MAX_TREE_HEIGHT: u32 = 500;

/// Deepest evaluation accepted: an expression's tree height with each
/// `let` name counted as the evaluation depth of its definition (every
/// evaluator recurses through definitions), so that a chain of thousands
/// of `let`s is a located error, not a stack overflow.
pub const MAX_EVAL_DEPTH: u32 = 1000;

/// The evaluation depth of `e` ([`MAX_EVAL_DEPTH`]) given those of the
/// `let` keys defined before it. Recursion is bounded by the tree height
/// ([`MAX_TREE_HEIGHT`]).
fn eval_depth(e: &Node, depth: &HashMap<String, u32>) -> u32 {
    use ExprKind::*;
    1 + match &e.kind {
        Name(k) => depth.get(k).copied().unwrap_or(0),
        Base(_) | Empty => 0,
        Union(a, b) | Inter(a, b) | Seq(a, b) | Diff(a, b) | Cart(a, b) => {
            eval_depth(a, depth).max(eval_depth(b, depth))
        }
        Compl(a) | Plus(a) | Star(a) | Opt(a) | Inv(a) | Bracket(a) | Domain(a) | Range(a)
        | FenceRel(a) => eval_depth(a, depth),
    }
}

/// Errors: a definition or axiom deeper than [`MAX_EVAL_DEPTH`] (located
/// at it).
fn check_eval_depth(files: &[SourceFile], stmts: &[Stmt]) -> Result<(), Error> {
    let mut depth: HashMap<String, u32> = HashMap::default();
    let too_deep = |e: &Node| {
        files[e.file].error_help(
            e.span,
            format!("definitions nested too deeply (more than {MAX_EVAL_DEPTH} levels)"),
            "shorten the chain of `let` definitions",
        )
    };
    for st in stmts {
        match st {
            Stmt::Let { binds, .. } => {
                for (k, e) in binds {
                    let d = eval_depth(e, &depth);
                    if d > MAX_EVAL_DEPTH {
                        return Err(too_deep(e));
                    }
                    depth.insert(k.clone(), d);
                }
            }
            Stmt::Check { expr, .. } => {
                if eval_depth(expr, &depth) > MAX_EVAL_DEPTH {
                    return Err(too_deep(expr));
                }
            }
        }
    }
    Ok(())
}

/// Most files being read at once: the model's file and the files it
/// includes, nested (an `include` beyond it is an error, as is a cycle).
pub const MAX_INCLUDE_DEPTH: usize = 16;

/// Where a model's file comes from, which decides how its `include`s are
/// found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// A compiled-in file ([`super::builtin_file`]): includes name
    /// compiled-in files only, so built-in models never read the disk.
    Builtin,
    /// A file on disk (or given as text with a path): `include "F"` reads
    /// `F` relative to the directory of the including file if that file
    /// exists, else the compiled-in file named `F`.
    Disk,
}

/// The state of reading one model: its files, statements and counters.
struct Loader {
    files: Vec<SourceFile>,
    stmts: Vec<Stmt>,
    checks: usize,
    next_id: usize,
    /// Height of each node's expression tree, by node id.
    heights: Vec<u32>,
    /// The first node built higher than [`MAX_TREE_HEIGHT`], if any.
    too_high: Option<Span>,
    /// The files being read, outermost first: (identity, path shown).
    stack: Vec<(String, String)>,
    /// herd's language beyond relations: scopes, functions, tags
    /// ([`herd`]).
    herd: herd::State,
}

impl Loader {
    /// Reads file `src` (of `origin`, with `identity` for cycle detection)
    /// and appends its items; returns its title if it has one.
    fn file(
        &mut self,
        src: SourceFile,
        origin: Origin,
        identity: String,
    ) -> Result<Option<String>, Error> {
        let toks = lex(&src)?;
        self.files.push(src.clone());
        self.stack.push((identity, src.path.to_string()));
        let mut p = P {
            file: self.files.len() - 1,
            src,
            origin,
            toks,
            pos: 0,
            depth: 0,
            if_depth: 0,
            ld: self,
        };
        // herd's `identity` (`lib/modelParser.mly`): `NAME`, `"TITLE"`,
        // or an architecture then a name or title (`C RC11`).
        let title = match p.peek().clone() {
            T::Str(s) => {
                p.bump();
                Some(s)
            }
            T::Name(n) if !is_keyword(&n) => {
                p.bump();
                match p.peek().clone() {
                    T::Str(s) => {
                        p.bump();
                        Some(s)
                    }
                    T::Name(m) if !is_keyword(&m) => {
                        p.bump();
                        Some(m)
                    }
                    _ => Some(n),
                }
            }
            _ => None,
        };
        p.items()?;
        self.stack.pop();
        Ok(title)
    }
}

/// The identity of a file on disk for cycle detection (its canonical
/// path when it exists).
fn disk_identity(path: &str) -> String {
    std::fs::canonicalize(path)
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_else(|_| path.to_string())
}

/// The identity of a compiled-in file.
fn builtin_identity(name: &str) -> String {
    format!("<built-in>/{name}")
}

/// Finds the file `include "name"` in `from` (of `origin`) denotes: see
/// [`Origin`]. Returns the file, its origin and identity, or a message.
fn resolve_include(
    from: &SourceFile,
    origin: Origin,
    name: &str,
    search: &[std::path::PathBuf],
) -> Result<(SourceFile, Origin, String), String> {
    if origin == Origin::Disk {
        let dir = Path::new(&*from.path).parent().unwrap_or(Path::new(""));
        let next = dir.join(name);
        let found = std::iter::once(next)
            .chain(search.iter().map(|d| d.join(name)))
            .find(|p| p.is_file());
        if let Some(path) = found {
            let shown = path.to_string_lossy().into_owned();
            let src = SourceFile::read(&shown).map_err(|e| format!("cannot read {e}"))?;
            return Ok((src, Origin::Disk, disk_identity(&shown)));
        }
    }
    match super::builtin_file(name) {
        Some((path, text)) => Ok((
            SourceFile::new(path, text),
            Origin::Builtin,
            builtin_identity(name),
        )),
        None => Err(match origin {
            Origin::Disk => format!(
                "cannot include `{name}`: no such file next to `{}` and no compiled-in file of that name",
                from.path
            ),
            Origin::Builtin => format!("cannot include `{name}`: no compiled-in file of that name"),
        }),
    }
}

struct P<'l> {
    src: SourceFile,
    /// Index of `src` in the loader's files.
    file: usize,
    origin: Origin,
    toks: Vec<(T, Span)>,
    pos: usize,
    depth: usize,
    /// The number of herd's `if "VARIANT" … end` blocks being read (their
    /// items end at `else` or `end`).
    if_depth: usize,
    ld: &'l mut Loader,
}

impl P<'_> {
    fn peek(&self) -> &T {
        &self.toks[self.pos].0
    }
    fn span(&self) -> Span {
        self.toks[self.pos].1
    }
    fn bump(&mut self) -> (T, Span) {
        let t = self.toks[self.pos].clone();
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
        t
    }
    fn is_sym(&self, s: &str) -> bool {
        matches!(self.peek(), T::Sym(x) if *x == s)
    }
    fn is_kw(&self, s: &str) -> bool {
        matches!(self.peek(), T::Name(x) if x == s)
    }
    fn expect_sym(&mut self, s: &str) -> Result<Span, Error> {
        if self.is_sym(s) {
            Ok(self.bump().1)
        } else {
            Err(self.src.error(
                self.span(),
                format!("expected `{s}`, found {}", describe(self.peek())),
            ))
        }
    }
    fn name(&mut self) -> Result<(String, Span), Error> {
        match self.bump() {
            (T::Name(n), sp) if !is_keyword(&n) => Ok((n, sp)),
            (t, sp) => Err(self
                .src
                .error(sp, format!("expected a name, found {}", describe(&t)))),
        }
    }
    /// An operand of `*` (product): herd's `_` there is the set of every
    /// event (`domain(_)`), not the universal relation.
    fn universe_set(&mut self, n: Node) -> Node {
        if matches!(n.kind, ExprKind::Base(Builtin::Rel(BaseRel::Univ))) {
            let span = n.span;
            self.node(ExprKind::Domain(Box::new(n)), span)
        } else {
            n
        }
    }

    fn node(&mut self, kind: ExprKind, span: Span) -> Node {
        use ExprKind::*;
        let h = |n: &Node| self.ld.heights.get(n.id).copied().unwrap_or(0);
        let height = 1 + match &kind {
            Union(a, b) | Inter(a, b) | Seq(a, b) | Diff(a, b) | Cart(a, b) => h(a).max(h(b)),
            Compl(a) | Plus(a) | Star(a) | Opt(a) | Inv(a) | Bracket(a) | Domain(a) | Range(a)
            | FenceRel(a) => h(a),
            Name(_) | Base(_) | Empty => 0,
        };
        self.ld.heights.push(height);
        if height > MAX_TREE_HEIGHT && self.ld.too_high.is_none() {
            self.ld.too_high = Some(span);
        }
        self.ld.next_id += 1;
        Node {
            id: self.ld.next_id - 1,
            kind,
            span,
            file: self.file,
            ty: Ty::Rel,
        }
    }

    /// `include "name"` at `at`: reads the file and appends its items.
    fn include(&mut self, name: &str, at: Span) -> Result<(), Error> {
        let (src, origin, identity) =
            resolve_include(&self.src, self.origin, name, self.ld.herd.path()).map_err(|m| {
                self.src.error_help(
                    at,
                    m,
                    format!(
                        "an include names a file relative to the including file, or a compiled-in file: {}",
                        super::builtin_file_names().join(", ")
                    ),
                )
            })?;
        if let Some(i) = self.ld.stack.iter().position(|(id, _)| *id == identity) {
            let chain: Vec<&str> = self.ld.stack[i..]
                .iter()
                .map(|(_, shown)| shown.as_str())
                .chain([&*src.path])
                .collect();
            return Err(self
                .src
                .error(at, format!("`include` cycle: {}", chain.join(" includes "))));
        }
        if self.ld.stack.len() >= MAX_INCLUDE_DEPTH {
            return Err(self.src.error(
                at,
                format!(
                    "`include` nested too deeply (more than {MAX_INCLUDE_DEPTH} files open at once)"
                ),
            ));
        }
        self.ld.file(src, origin, identity)?;
        Ok(())
    }

    /// Errors: an expression tree higher than [`MAX_TREE_HEIGHT`] was built
    /// (a long chain of `|`, `;`, postfix operators…): every pass over the
    /// tree recurses on it, so it is refused before it can overflow the
    /// stack.
    fn check_height(&mut self) -> Result<(), Error> {
        match self.ld.too_high.take() {
            Some(sp) => Err(self.src.error_help(
                sp,
                format!("expression nested too deeply (more than {MAX_TREE_HEIGHT} levels)"),
                "split it with `let` definitions",
            )),
            None => Ok(()),
        }
    }

    fn expr(&mut self) -> Result<Node, Error> {
        self.depth += 1;
        if self.depth > 200 {
            return Err(self.src.error(self.span(), "expression nested too deeply"));
        }
        let r = self.binary(0);
        self.depth -= 1;
        r
    }

    fn binary(&mut self, level: usize) -> Result<Node, Error> {
        const OPS: [&str; 5] = ["|", ";", "\\", "&", "*"];
        if level == OPS.len() {
            return self.unary();
        }
        let mut lhs = self.binary(level + 1)?;
        loop {
            if !self.is_sym(OPS[level]) {
                break;
            }
            if OPS[level] == "*" && !self.starts_atom(1) {
                break;
            }
            self.bump();
            let rhs = self.binary(level + 1)?;
            let span = lhs.span.join(rhs.span);
            let (l, r) = if OPS[level] == "*" {
                (self.universe_set(lhs), self.universe_set(rhs))
            } else {
                (lhs, rhs)
            };
            let (a, b) = (Box::new(l), Box::new(r));
            let kind = match OPS[level] {
                "|" => ExprKind::Union(a, b),
                ";" => ExprKind::Seq(a, b),
                "\\" => ExprKind::Diff(a, b),
                "&" => ExprKind::Inter(a, b),
                _ => ExprKind::Cart(a, b),
            };
            lhs = self.node(kind, span);
            self.check_height()?;
        }
        Ok(lhs)
    }

    fn starts_atom(&self, ahead: usize) -> bool {
        match &self.toks.get(self.pos + ahead).map(|t| &t.0) {
            Some(T::Name(n)) => !is_keyword(n),
            Some(T::Sym(s)) => matches!(*s, "(" | "[" | "~" | "0"),
            _ => false,
        }
    }

    fn unary(&mut self) -> Result<Node, Error> {
        if self.is_sym("~") {
            let sp = self.bump().1;
            self.depth += 1;
            if self.depth > 200 {
                return Err(self.src.error(sp, "expression nested too deeply"));
            }
            let a = self.unary()?;
            self.depth -= 1;
            let span = sp.join(a.span);
            return Ok(self.node(ExprKind::Compl(Box::new(a)), span));
        }
        let mut a = self.atom()?;
        loop {
            let (kind_fn, sp): (fn(Box<Node>) -> ExprKind, Span) =
                if self.is_sym("+") || self.is_sym("^+") {
                    (ExprKind::Plus, self.span())
                } else if self.is_sym("^*") || (self.is_sym("*") && !self.starts_atom(1)) {
                    (ExprKind::Star, self.span())
                } else if self.is_sym("?") {
                    (ExprKind::Opt, self.span())
                } else if self.is_sym("^-1") {
                    (ExprKind::Inv, self.span())
                } else {
                    break;
                };
            self.bump();
            let span = a.span.join(sp);
            a = self.node(kind_fn(Box::new(a)), span);
            self.check_height()?;
        }
        Ok(a)
    }

    fn atom(&mut self) -> Result<Node, Error> {
        let (t, sp) = self.bump();
        match t {
            T::Sym("0") => Ok(self.node(ExprKind::Empty, sp)),
            T::Sym("(") => {
                let e = self.expr()?;
                self.expect_sym(")")?;
                Ok(e)
            }
            T::Sym("[") => {
                let e = self.expr()?;
                let end = self.expect_sym("]")?;
                Ok(self.node(ExprKind::Bracket(Box::new(e)), sp.join(end)))
            }
            T::Name(n)
                if matches!(n.as_str(), "domain" | "range" | "fencerel") && self.is_sym("(") =>
            {
                self.bump();
                let e = self.expr()?;
                let end = self.expect_sym(")")?;
                let b = Box::new(e);
                let kind = match n.as_str() {
                    "domain" => ExprKind::Domain(b),
                    "range" => ExprKind::Range(b),
                    _ => ExprKind::FenceRel(b),
                };
                Ok(self.node(kind, sp.join(end)))
            }
            T::Name(n) if matches!(n.as_str(), "let" | "if" | "try") || !is_keyword(&n) => {
                match self.herd_atom(&n, sp)? {
                    Some(e) => Ok(e),
                    None => Ok(self.node(ExprKind::Name(n), sp)),
                }
            }
            t => Err(self.src.error(
                sp,
                format!("expected an expression, found {}", describe(&t)),
            )),
        }
    }

    /// A top-level `let` after the keyword: a group of definitions (of
    /// relations, sets, sets of relations or functions), or a `let rec`
    /// group.
    fn top_let(&mut self) -> Result<(), Error> {
        let rec = if self.is_kw("rec") {
            self.bump();
            true
        } else {
            false
        };
        let mut binds = Vec::new();
        loop {
            let (n, nsp) = self.name()?;
            if !rec && !self.is_sym("=") {
                let f = self.fun_def(nsp)?;
                self.ld.herd.define_fun(n, f);
            } else {
                self.expect_sym("=")?;
                if rec {
                    binds.push((n, self.expr()?));
                } else {
                    let v = self.value()?;
                    self.define_top(n, v);
                }
            }
            if self.is_kw("and") {
                self.bump();
            } else {
                break;
            }
        }
        if rec {
            self.define_top_rec(&binds);
            self.ld.stmts.push(Stmt::Let { rec: true, binds });
        }
        Ok(())
    }

    fn items(&mut self) -> Result<(), Error> {
        loop {
            match self.peek().clone() {
                T::Eof => return Ok(()),
                T::Name(k) if self.if_depth > 0 && matches!(k.as_str(), "else" | "end") => {
                    return Ok(())
                }
                T::Name(k) if k == "if" && self.variant_block()? => {}
                T::Name(k) if k == "let" => {
                    self.bump();
                    self.top_let()?;
                }
                T::Name(k) if matches!(k.as_str(), "acyclic" | "irreflexive" | "empty") => {
                    let sp = self.bump().1;
                    let kind = match k.as_str() {
                        "acyclic" => AxiomKind::Acyclic,
                        "irreflexive" => AxiomKind::Irreflexive,
                        _ => AxiomKind::Empty,
                    };
                    let expr = self.expr()?;
                    self.ld.checks += 1;
                    let name = if self.is_kw("as") {
                        self.bump();
                        self.name()?.0
                    } else {
                        format!("{k}{}", self.ld.checks)
                    };
                    let span = sp.join(expr.span);
                    self.ld.stmts.push(Stmt::Check {
                        kind,
                        expr,
                        name,
                        span,
                    });
                }
                T::Name(k) if matches!(k.as_str(), "show" | "unshow") => {
                    self.bump();
                    self.name()?;
                    while self.is_sym(",") {
                        self.bump();
                        self.name()?;
                    }
                }
                T::Name(k) if k == "include" => {
                    let sp = self.bump().1;
                    match self.bump() {
                        (T::Str(name), _) if self.native_include(&name) => {}
                        (T::Str(name), end) => self.include(&name, sp.join(end))?,
                        (t, sp) => {
                            return Err(self.src.error(
                                sp,
                                format!(
                                    "expected a file name in quotes after `include`, found {}",
                                    describe(&t)
                                ),
                            ))
                        }
                    }
                }
                T::Name(k) if self.herd_item(&k)? => {}
                T::Name(k) if herd_item(&k).is_some() => {
                    return Err(self.src.error(
                        self.span(),
                        format!(
                            "`{k}` ({}) is not supported yet",
                            herd_item(&k).unwrap_or_default()
                        ),
                    ))
                }
                t => {
                    return Err(self.src.error_help(
                        self.span(),
                        format!(
                            "expected `let`, `acyclic`, `irreflexive` or `empty`, found {}",
                            describe(&t)
                        ),
                        "a model is a sequence of `let` definitions and axioms",
                    ))
                }
            }
        }
    }
}

/// The statements of herd's cat language this dialect does not read
/// yet, with what they are (for the refusal).
fn herd_item(n: &str) -> Option<&'static str> {
    Some(match n {
        "procedure" | "call" => "herd's procedures",
        "forall" => "herd's iteration over a set",
        "if" => "herd's variant conditionals",
        "events" | "relations" => "herd's bell declarations",
        _ => return None,
    })
}

fn is_keyword(n: &str) -> bool {
    matches!(
        n,
        "in" | "if"
            | "then"
            | "else"
            | "try"
            | "with"
            | "from"
            | "flag"
            | "undefined_unless"
            | "enum"
            | "instructions"
            | "let"
            | "rec"
            | "and"
            | "as"
            | "acyclic"
            | "irreflexive"
            | "empty"
            | "show"
            | "unshow"
            | "include"
    )
}

fn describe(t: &T) -> String {
    match t {
        T::Name(n) => format!("`{n}`"),
        T::Str(s) => format!("string \"{s}\""),
        T::Sym(s) => format!("`{s}`"),
        T::Eof => "end of file".into(),
    }
}

/// What a name denotes where it is used.
#[derive(Clone, Debug)]
enum Binding {
    /// A base set or relation.
    Base(Builtin),
    /// A `let` binding: its type and unique key `name#k`.
    Let(Ty, String),
}

/// Resolves the names of `n` in `env` and type-checks it, filling `n.ty`.
fn check(src: &SourceFile, n: &mut Node, env: &HashMap<String, Binding>) -> Result<Ty, Error> {
    use ExprKind::*;
    let want = |src: &SourceFile, got: Ty, want: Ty, sp: Span, what: &str| -> Result<(), Error> {
        if got == want {
            Ok(())
        } else {
            Err(src.error(
                sp,
                format!("{what} expects a {}, found a {}", tyname(want), tyname(got)),
            ))
        }
    };
    let span = n.span;
    if let Name(s) = &n.kind {
        if let Some(Binding::Base(b)) = env.get(s.as_str()) {
            n.kind = Base(*b);
        }
    }
    let ty = match &mut n.kind {
        Name(s) => match env.get(s.as_str()) {
            Some(Binding::Let(t, key)) => {
                *s = key.clone();
                *t
            }
            Some(Binding::Base(_)) => unreachable!("resolved above"),
            None => {
                let names = |v: Vec<&str>| v.join(" ");
                return Err(src.error_help(
                    span,
                    format!("unknown name `{s}`"),
                    format!(
                        "built-in sets: {}; relations: {}",
                        names(SETS.iter().map(|e| e.name).collect()),
                        names(RELS.iter().map(|e| e.name).collect())
                    ),
                ));
            }
        },
        Base(b) => b.ty(),
        Empty => Ty::Rel,
        Union(a, b) | Inter(a, b) | Diff(a, b) => {
            let ta = check(src, a, env)?;
            let tb = check(src, b, env)?;
            want(src, tb, ta, b.span, "this operator")?;
            ta
        }
        Seq(a, b) => {
            let ta = check(src, a, env)?;
            want(src, ta, Ty::Rel, a.span, "`;`")?;
            let tb = check(src, b, env)?;
            want(src, tb, Ty::Rel, b.span, "`;`")?;
            Ty::Rel
        }
        Cart(a, b) => {
            let ta = check(src, a, env)?;
            want(src, ta, Ty::Set, a.span, "`*` (product)")?;
            let tb = check(src, b, env)?;
            want(src, tb, Ty::Set, b.span, "`*` (product)")?;
            Ty::Rel
        }
        Compl(a) => check(src, a, env)?,
        Plus(a) | Star(a) | Opt(a) | Inv(a) => {
            let ta = check(src, a, env)?;
            want(src, ta, Ty::Rel, a.span, "a closure or inverse")?;
            Ty::Rel
        }
        Bracket(a) | FenceRel(a) => {
            let ta = check(src, a, env)?;
            want(src, ta, Ty::Set, a.span, "`[...]`")?;
            Ty::Rel
        }
        Domain(a) | Range(a) => {
            let ta = check(src, a, env)?;
            want(src, ta, Ty::Rel, a.span, "domain/range")?;
            Ty::Set
        }
    };
    n.ty = ty;
    Ok(ty)
}

/// The first occurrence of one of `keys` in negative position (under an
/// odd number of `~` and right-hand sides of `\`) in `n`, with its span:
/// a `let rec` group with one is not monotone in its own names, and
/// Kleene iteration need not reach a least fixed point; herd iterates it
/// anyway (`eval`'s herd iteration).
pub(crate) fn negative_use(n: &Node, keys: &[String], pos: bool) -> Option<(String, Span)> {
    use ExprKind::*;
    match &n.kind {
        Name(k) => (!pos && keys.contains(k)).then(|| (k.clone(), n.span)),
        Base(_) | Empty => None,
        Diff(a, b) => negative_use(a, keys, pos).or_else(|| negative_use(b, keys, !pos)),
        Union(a, b) | Inter(a, b) | Seq(a, b) | Cart(a, b) => {
            negative_use(a, keys, pos).or_else(|| negative_use(b, keys, pos))
        }
        Compl(a) => negative_use(a, keys, !pos),
        Plus(a) | Star(a) | Opt(a) | Inv(a) | Bracket(a) | Domain(a) | Range(a) | FenceRel(a) => {
            negative_use(a, keys, pos)
        }
    }
}

/// The first `r^-1` whose `r` is reads-from or a union with it (through
/// `let` names): the inverse of rf, which relates a read of an initial
/// value to herd's initial write: the model needs initial writes as
/// events ([`crate::cat::init`]).
fn inverse_of_rf(stmts: &[Stmt]) -> Option<&Node> {
    use ExprKind::*;
    let defs: HashMap<&str, &Node> = stmts
        .iter()
        .flat_map(|st| match st {
            Stmt::Let { binds, .. } => binds.iter().map(|(k, e)| (k.as_str(), e)).collect(),
            Stmt::Check { .. } => Vec::new(),
        })
        .collect();
    fn has_rf<'a>(n: &'a Node, defs: &HashMap<&str, &'a Node>, seen: &mut Vec<&'a str>) -> bool {
        match &n.kind {
            Base(Builtin::Rel(BaseRel::Rf)) => true,
            Name(k) if !seen.contains(&k.as_str()) => {
                seen.push(k);
                defs.get(k.as_str()).is_some_and(|d| has_rf(d, defs, seen))
            }
            Union(a, b) => has_rf(a, defs, seen) || has_rf(b, defs, seen),
            _ => false,
        }
    }
    fn walk<'a>(n: &'a Node, defs: &HashMap<&str, &'a Node>) -> Option<&'a Node> {
        match &n.kind {
            Inv(x) if has_rf(x, defs, &mut Vec::new()) => Some(n),
            Base(_) | Empty | Name(_) => None,
            Union(a, b) | Inter(a, b) | Seq(a, b) | Diff(a, b) | Cart(a, b) => {
                walk(a, defs).or_else(|| walk(b, defs))
            }
            Compl(a) | Plus(a) | Star(a) | Opt(a) | Inv(a) | Bracket(a) | Domain(a) | Range(a)
            | FenceRel(a) => walk(a, defs),
        }
    }
    stmts.iter().find_map(|st| match st {
        Stmt::Let { binds, .. } => binds.iter().find_map(|(_, e)| walk(e, &defs)),
        Stmt::Check { expr, .. } => walk(expr, &defs),
    })
}

fn tyname(t: Ty) -> &'static str {
    match t {
        Ty::Set => "set",
        Ty::Rel => "relation",
    }
}

/// Parses, resolves and type-checks a model read from disk (or given as
/// text with a path): its `include`s are found as [`Origin::Disk`] says.
/// The model starts with the stdlib (herd's usual abbreviations: po-loc,
/// rfe, rfi, coe, coi, fre, fri, com; `encodings/stdlib.cat`).
///
/// Errors: see [`parse_model_from`].
pub fn parse_model(src: &SourceFile) -> Result<Model, Error> {
    parse_model_from(src, Origin::Disk)
}

/// Parses, resolves and type-checks a model whose file comes from
/// `origin`: first the stdlib, then `src`, each `include` replaced by the
/// items of the file it names.
///
/// Errors, all located (`file:line:column` in the file at fault, an
/// included file's own line and column for an error inside it): syntax
/// errors; unknown names; set/relation mismatches; a `let rec` that is
/// not monotone; no axiom; an `include` of a file that cannot be found
/// or read, that closes a cycle of includes, or that nests more than
/// [`MAX_INCLUDE_DEPTH`] files.
pub fn parse_model_from(src: &SourceFile, origin: Origin) -> Result<Model, Error> {
    parse_model_files(&[], src, origin, &herd::Options::default())
}

/// Parses, resolves and type-checks a model made of the files `before`
/// (a bell file: herd's `-conf` `bell` key) followed by `src`, read with
/// herd's `opts` (variants, search path of `include`).
///
/// Errors: see [`parse_model_from`]; and the first construct of herd's
/// language the engines cannot evaluate yet (located, named).
pub fn parse_model_files(
    before: &[SourceFile],
    src: &SourceFile,
    origin: Origin,
    opts: &herd::Options,
) -> Result<Model, Error> {
    let mut ld = Loader {
        files: Vec::new(),
        stmts: Vec::new(),
        checks: 0,
        next_id: 0,
        heights: Vec::new(),
        too_high: None,
        stack: Vec::new(),
        herd: herd::State::new(opts),
    };
    ld.file(
        SourceFile::new("encodings/stdlib.cat", STDLIB),
        Origin::Builtin,
        builtin_identity("stdlib.cat"),
    )?;
    let identity = match origin {
        Origin::Disk => disk_identity(&src.path),
        Origin::Builtin => builtin_identity(
            &Path::new(&*src.path)
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_default(),
        ),
    };
    for b in before {
        ld.file(b.clone(), Origin::Disk, disk_identity(&b.path))?;
    }
    let title = ld.file(src.clone(), origin, identity)?;
    if let Some((file, span, what)) = ld.herd.unsupported.take() {
        return Err(ld.files[file].error(span, what));
    }
    let name = title.unwrap_or_else(|| {
        Path::new(&*src.path)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    });
    let flag_reads = std::mem::take(&mut ld.herd.flags);
    let co0 = ld.herd.co0.take();
    let Loader {
        files,
        mut stmts,
        next_id: mut nodes,
        ..
    } = ld;
    herd::sets_in_rec_groups(&mut stmts, &mut nodes);
    // Resolve and type-check.
    let mut env: HashMap<String, Binding> = HashMap::default();
    for b in Builtin::all() {
        env.insert(b.name().to_string(), Binding::Base(b));
    }
    // Every `let` binding gets a unique key `name#k`, so that shadowing
    // resolves by position and explanations find the right definition.
    let mut k = 0usize;
    for st in stmts.iter_mut() {
        match st {
            Stmt::Let { rec: false, binds } => {
                for (n, e) in binds.iter_mut() {
                    let t = check(&files[e.file], e, &env)?;
                    k += 1;
                    let key = format!("{n}#{k}");
                    env.insert(n.clone(), Binding::Let(t, key.clone()));
                    *n = key;
                }
            }
            Stmt::Let { rec: true, binds } => {
                for (n, _) in binds.iter_mut() {
                    k += 1;
                    let key = format!("{n}#{k}");
                    env.insert(n.clone(), Binding::Let(Ty::Rel, key.clone()));
                    *n = key;
                }
                for (n, e) in binds.iter_mut() {
                    let file = &files[e.file];
                    let t = check(file, e, &env)?;
                    if t != Ty::Rel {
                        return Err(
                            file.error(e.span, format!("`let rec {n}` must define a relation"))
                        );
                    }
                }
                // A group not monotone in its own names (herd's rcu-rscs
                // matching) is evaluated by herd's own iteration
                // (`eval::Evaluator`; engines that need monotone groups,
                // the z3 encoder, refuse it).
            }
            Stmt::Check { expr, kind, .. } => {
                let file = &files[expr.file];
                let t = check(file, expr, &env)?;
                if t == Ty::Set && *kind != AxiomKind::Empty {
                    return Err(file.error(
                        expr.span,
                        "`acyclic` and `irreflexive` expect a relation, found a set",
                    ));
                }
            }
        }
    }
    check_eval_depth(&files, &stmts)?;
    // herd's initial writes are events when the model inverts rf (a
    // read of an initial value is then in rf^-1, and in herd's
    // `rf^-1 ; co`) or reads `co0`.
    let init_writes = inverse_of_rf(&stmts).map(|n| (n.file, n.span)).or(co0);
    if !stmts.iter().any(|s| matches!(s, Stmt::Check { .. })) {
        return Err(src.error(
            Span::new(0, 0),
            "the model has no axiom (`acyclic`, `irreflexive` or `empty`)",
        ));
    }
    let mut defs = HashMap::default();
    for (si, st) in stmts.iter().enumerate() {
        if let Stmt::Let { binds, .. } = st {
            for (bi, (key, _)) in binds.iter().enumerate() {
                defs.insert(key.clone(), (si, bi));
            }
        }
    }
    // The hidden bindings of the flags' expressions, in order.
    let keys = stmts.iter().flat_map(|st| match st {
        Stmt::Let { rec: false, binds } => binds
            .iter()
            .filter(|(k, _)| k.starts_with(herd::FLAG_PREFIX))
            .map(|(k, e)| (k.clone(), e.file))
            .collect(),
        _ => Vec::new(),
    });
    let flags = flag_reads
        .into_iter()
        .zip(keys)
        .map(
            |((name, span, different_values), (key, file))| super::Flag {
                name,
                key,
                span,
                file,
                different_values,
            },
        )
        .collect();
    Ok(Model {
        name,
        stmts,
        nodes,
        source: src.clone(),
        files,
        defs,
        flags,
        init_writes,
        uid: super::next_model_uid(),
        used: std::sync::OnceLock::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cat::base::BaseRel;

    fn parse(s: &str) -> Result<Model, Error> {
        parse_model(&SourceFile::new("m.cat", s))
    }

    #[test]
    fn precedence_and_postfix() {
        let m = parse("\"t\" let a = po | rf ; co \\ fr & loc\nlet b = (po;rf)* ; [R] ; po^-1 ; rf+ ; co?\nlet c = R * W\nacyclic a | b | c as x").unwrap();
        assert_eq!(m.name, "t");
        let Stmt::Let { binds, .. } = &m.stmts[8] else {
            panic!()
        };
        // union at the top: po | (rf ; ((co \ (fr & loc))))
        assert!(matches!(binds[0].1.kind, ExprKind::Union(..)));
        let Stmt::Let { binds, .. } = &m.stmts[9] else {
            panic!()
        };
        assert!(matches!(binds[0].1.kind, ExprKind::Seq(..)));
        let Stmt::Let { binds, .. } = &m.stmts[10] else {
            panic!()
        };
        assert!(matches!(binds[0].1.kind, ExprKind::Cart(..)));
        assert!(m.uses(BaseRel::Rf));
        assert!(!m.uses(BaseRel::Addr));
        // Base names resolve to the table's values; `let`s to their keys.
        let Stmt::Check { expr, .. } = &m.stmts[11] else {
            panic!()
        };
        let ExprKind::Union(ab, _) = &expr.kind else {
            panic!()
        };
        let ExprKind::Union(a, _) = &ab.kind else {
            panic!()
        };
        assert!(matches!(&a.kind, ExprKind::Name(k) if k == "a#9"), "{a:?}");
        let Stmt::Let { binds, .. } = &m.stmts[0] else {
            panic!()
        };
        let ExprKind::Inter(po, _) = &binds[0].1.kind else {
            panic!()
        };
        assert!(matches!(po.kind, ExprKind::Base(Builtin::Rel(BaseRel::Po))));
    }

    #[test]
    fn let_rec_and_errors() {
        parse("let rec a = po | b ; a and b = rf\nacyclic a").unwrap();
        let e = parse("let a = po | nope\nacyclic a")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("m.cat:1:14: error: unknown name `nope`"),
            "{e}"
        );
        // Groups that are not monotone are read (herd iterates them).
        parse("let rec a = po \\ a\nacyclic a").unwrap();
        parse("let rec a = po | b and b = ~(a ; rf)\nacyclic a").unwrap();
        parse("let rec a = po | (rf \\ a)\nacyclic a").unwrap();
        parse("let rec a = po | (a \\ ~rf) | (rf \\ ~a)\nacyclic a").unwrap();
        parse("let rec a = po | (rf \\ (po \\ a))\nacyclic a").unwrap();
        let e = parse("acyclic R").unwrap_err().to_string();
        assert!(e.contains("expect a relation"), "{e}");
        let e = parse("let a = po").unwrap_err().to_string();
        assert!(e.contains("no axiom"), "{e}");
        let e = parse("acyclic (po").unwrap_err().to_string();
        assert!(e.contains("expected `)`"), "{e}");
        let e = parse("(* open").unwrap_err().to_string();
        assert!(e.contains("unterminated comment"), "{e}");
        let deep = format!("acyclic {}po{}", "(".repeat(5000), ")".repeat(5000));
        assert!(parse(&deep).unwrap_err().to_string().contains("too deeply"));
    }

    /// Writes `files` (relative path, text) under a fresh directory.
    fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let p = dir.path().join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        dir
    }

    fn load(dir: &tempfile::TempDir, path: &str) -> Result<Model, Error> {
        let p = dir.path().join(path);
        parse_model(&SourceFile::read(p.to_str().unwrap())?)
    }

    /// The user's names of the axioms, in order.
    fn axioms(m: &Model) -> Vec<&str> {
        m.stmts
            .iter()
            .filter_map(|s| match s {
                Stmt::Check { name, .. } => Some(name.as_str()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn include_builtin_file() {
        let m = parse("\"mine\"\ninclude \"tso.cat\"\nacyclic po as extra").unwrap();
        // The included title is ignored; tso's axioms come first.
        assert_eq!(m.name, "mine");
        assert_eq!(axioms(&m), ["tso", "sc-per-location", "atomic", "extra"]);
        assert_eq!(m.acyclic_contains_hb(), None);
        let files: Vec<&str> = m.files.iter().map(|f| &*f.path).collect();
        assert_eq!(
            files,
            ["encodings/stdlib.cat", "m.cat", "encodings/tso.cat"]
        );
        // Same statements as the built-in model itself, then one more.
        assert_eq!(
            m.stmts.len(),
            crate::cat::builtin("tso").unwrap().stmts.len() + 1
        );
        // Nodes of the included file know their file.
        let Stmt::Check { expr, .. } = &m.stmts[m.stmts.len() - 2] else {
            panic!()
        };
        assert_eq!(m.file_of(expr).path.as_ref(), "encodings/tso.cat");
    }

    #[test]
    fn include_stdlib_again_is_harmless() {
        let plain = parse("acyclic po-loc | com as x").unwrap();
        let again = parse("include \"stdlib.cat\"\nacyclic po-loc | com as x").unwrap();
        // The stdlib's definitions are made once more; the axiom reads the
        // second ones, which mean the same.
        assert_eq!(again.stmts.len(), plain.stmts.len() + 8);
        assert_eq!(axioms(&again), ["x"]);
        let Stmt::Check { expr, .. } = again.stmts.last().unwrap() else {
            panic!()
        };
        let ExprKind::Union(a, _) = &expr.kind else {
            panic!()
        };
        assert!(
            matches!(&a.kind, ExprKind::Name(k) if k == "po-loc#9"),
            "{a:?}"
        );
        // A compiled-in file includes compiled-in files only.
        let e = parse_model_from(
            &SourceFile::new("encodings/x.cat", "include \"m.cat\"\nacyclic po"),
            Origin::Builtin,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.starts_with(
                "encodings/x.cat:1:1: error: cannot include `m.cat`: no compiled-in file"
            ),
            "{e}"
        );
    }

    #[test]
    fn include_relative_paths() {
        let dir = tree(&[
            (
                "m.cat",
                "\"top\"\ninclude \"lib/defs.cat\"\nacyclic hb as a\n",
            ),
            // Relative to lib/, not to the directory of m.cat.
            ("lib/defs.cat", "include \"more.cat\"\nlet hb = ppo | com\n"),
            ("lib/more.cat", "(* helper *)\nlet ppo = po \\ (W * R)\n"),
            ("more.cat", "this file must not be read"),
        ]);
        let m = load(&dir, "m.cat").unwrap();
        assert_eq!(m.name, "top");
        assert_eq!(axioms(&m), ["a"]);
        assert!(m.defs.contains_key("ppo#9") && m.defs.contains_key("hb#10"));
        assert_eq!(m.files.len(), 4);
        assert!(
            m.files[3].path.ends_with("lib/more.cat"),
            "{:?}",
            m.files[3].path
        );
        // A file next to the model shadows a compiled-in one of that name.
        let dir = tree(&[
            ("m.cat", "include \"tso.cat\"\nacyclic mine as b"),
            ("tso.cat", "let mine = po"),
        ]);
        let m = load(&dir, "m.cat").unwrap();
        assert_eq!(axioms(&m), ["b"]);
        // Unknown file: located at the `include`, the help lists the
        // compiled-in files.
        let err = parse("let a = po\n  include \"nope.cat\"\nacyclic a").unwrap_err();
        let e = err.to_string();
        assert!(
            e.starts_with("m.cat:2:3: error: cannot include `nope.cat`"),
            "{e}"
        );
        let Error::Input(ie) = err else { panic!() };
        assert!(ie
            .help
            .unwrap()
            .ends_with("stdlib.cat, sc.cat, tso.cat, pso.cat, rmo.cat, power.cat, pgas.cat, aarch64.cat, riscv.cat, sc-instr.cat"));
        let e = parse("include tso\nacyclic po").unwrap_err().to_string();
        assert!(
            e.starts_with("m.cat:1:9: error: expected a file name in quotes after `include`"),
            "{e}"
        );
    }

    #[test]
    fn include_cycle_is_a_located_error() {
        let dir = tree(&[
            ("a.cat", "let x = po\ninclude \"b.cat\"\nacyclic x"),
            ("b.cat", "(* b *)\n  include \"a.cat\"\n"),
            ("self.cat", "include \"self.cat\"\nacyclic po"),
        ]);
        let e = load(&dir, "a.cat").unwrap_err().to_string();
        let b = dir.path().join("b.cat");
        let want = format!("{}:2:3: error: `include` cycle: ", b.display());
        assert!(e.starts_with(&want), "{e}");
        assert!(e.contains("a.cat includes"), "{e}");
        let e = load(&dir, "self.cat").unwrap_err().to_string();
        assert!(e.contains("self.cat:1:1: error: `include` cycle"), "{e}");
        // A diamond is not a cycle: d.cat is read twice.
        let dir = tree(&[
            ("top.cat", "include \"l.cat\"\ninclude \"r.cat\"\nacyclic d"),
            ("l.cat", "include \"d.cat\""),
            ("r.cat", "include \"d.cat\""),
            ("d.cat", "let d = po"),
        ]);
        let m = load(&dir, "top.cat").unwrap();
        assert_eq!(m.files.len(), 6);
    }

    #[test]
    fn include_depth_is_limited() {
        // f0 includes f1 includes ... f29: too deep, long before the end.
        let texts: Vec<(String, String)> = (0..30)
            .map(|i| {
                let text = if i < 29 {
                    format!("include \"f{}.cat\"\nacyclic po", i + 1)
                } else {
                    "acyclic po".to_string()
                };
                (format!("f{i}.cat"), text)
            })
            .collect();
        let files: Vec<(&str, &str)> = texts
            .iter()
            .map(|(p, t)| (p.as_str(), t.as_str()))
            .collect();
        let dir = tree(&files);
        let e = load(&dir, "f0.cat").unwrap_err().to_string();
        // The model's file and 15 nested includes are open when f15 tries.
        let at = dir.path().join(format!("f{}.cat", MAX_INCLUDE_DEPTH - 1));
        assert!(
            e.starts_with(&format!(
                "{}:1:1: error: `include` nested too deeply",
                at.display()
            )),
            "{e}"
        );
        // Within the limit it loads.
        let m = load(&dir, &format!("f{}.cat", 30 - MAX_INCLUDE_DEPTH)).unwrap();
        assert_eq!(axioms(&m).len(), MAX_INCLUDE_DEPTH);
    }

    #[test]
    fn errors_inside_included_files_point_there() {
        let dir = tree(&[
            ("m.cat", "include \"sub.cat\"\nacyclic x"),
            ("sub.cat", "(* defs *)\n\nlet x = po | nope\n"),
            ("syn.cat", "include \"bad.cat\"\nacyclic po"),
            ("bad.cat", "let y =\n  (po"),
            ("ty.cat", "include \"tbad.cat\"\nacyclic po"),
            ("tbad.cat", "let z = po\nacyclic R"),
        ]);
        let path = |f: &str| dir.path().join(f).display().to_string();
        let e = load(&dir, "m.cat").unwrap_err().to_string();
        assert!(
            e.starts_with(&format!(
                "{}:3:14: error: unknown name `nope`",
                path("sub.cat")
            )),
            "{e}"
        );
        let e = load(&dir, "syn.cat").unwrap_err().to_string();
        assert!(
            e.starts_with(&format!("{}:2:6: error: expected `)`", path("bad.cat"))),
            "{e}"
        );
        let e = load(&dir, "ty.cat").unwrap_err().to_string();
        assert!(
            e.starts_with(&format!(
                "{}:2:9: error: `acyclic` and `irreflexive` expect",
                path("tbad.cat")
            )),
            "{e}"
        );
    }
}
