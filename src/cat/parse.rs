//! Parser, name resolution and type checking of the cat dialect
//! (grammar in the parent module's docs and docs/models.md).

use super::{CheckKind, ExprKind, Model, Node, Stmt, Ty, BUILTIN_RELS, BUILTIN_SETS, PRELUDE};
use crate::collections::HashMap;
use crate::diag::{Error, SourceFile, Span};

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
        let two = &src.text[i..(i + 3).min(s.len())];
        let sym: Option<&'static str> = if two.starts_with("^-1") {
            Some("^-1")
        } else if two.starts_with("^+") {
            Some("^+")
        } else if two.starts_with("^*") {
            Some("^*")
        } else {
            [
                "|", ";", "\\", "&", "*", "~", "+", "?", "(", ")", "[", "]", "=", ",", "0",
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

struct P<'a> {
    src: &'a SourceFile,
    toks: Vec<(T, Span)>,
    pos: usize,
    next_id: usize,
    depth: usize,
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
    fn node(&mut self, kind: ExprKind, span: Span) -> Node {
        self.next_id += 1;
        Node {
            id: self.next_id - 1,
            kind,
            span,
            ty: Ty::Rel,
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
            let (a, b) = (Box::new(lhs), Box::new(rhs));
            let kind = match OPS[level] {
                "|" => ExprKind::Union(a, b),
                ";" => ExprKind::Seq(a, b),
                "\\" => ExprKind::Diff(a, b),
                "&" => ExprKind::Inter(a, b),
                _ => ExprKind::Cart(a, b),
            };
            lhs = self.node(kind, span);
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
            T::Name(n) if !is_keyword(&n) => Ok(self.node(ExprKind::Name(n), sp)),
            t => Err(self.src.error(
                sp,
                format!("expected an expression, found {}", describe(&t)),
            )),
        }
    }

    fn items(&mut self, stmts: &mut Vec<Stmt>, checks: &mut usize) -> Result<(), Error> {
        loop {
            match self.peek().clone() {
                T::Eof => return Ok(()),
                T::Name(k) if k == "let" => {
                    self.bump();
                    let rec = if self.is_kw("rec") {
                        self.bump();
                        true
                    } else {
                        false
                    };
                    let mut binds = Vec::new();
                    loop {
                        let (n, _) = self.name()?;
                        self.expect_sym("=")?;
                        let e = self.expr()?;
                        binds.push((n, e));
                        if self.is_kw("and") {
                            self.bump();
                        } else {
                            break;
                        }
                    }
                    if !rec {
                        for b in binds {
                            stmts.push(Stmt::Let {
                                rec: false,
                                binds: vec![b],
                            });
                        }
                    } else {
                        stmts.push(Stmt::Let { rec: true, binds });
                    }
                }
                T::Name(k) if matches!(k.as_str(), "acyclic" | "irreflexive" | "empty") => {
                    let sp = self.bump().1;
                    let kind = match k.as_str() {
                        "acyclic" => CheckKind::Acyclic,
                        "irreflexive" => CheckKind::Irreflexive,
                        _ => CheckKind::Empty,
                    };
                    let expr = self.expr()?;
                    *checks += 1;
                    let name = if self.is_kw("as") {
                        self.bump();
                        self.name()?.0
                    } else {
                        format!("{k}{checks}")
                    };
                    let span = sp.join(expr.span);
                    stmts.push(Stmt::Check {
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
                    return Err(self.src.error_help(
                        self.span(),
                        "`include` is not supported",
                        "paste the definitions you need into the model file",
                    ));
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

fn is_keyword(n: &str) -> bool {
    matches!(
        n,
        "let"
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

/// Type-checks `n` in `env` (name → type), filling `n.ty`.
fn check(src: &SourceFile, n: &mut Node, env: &HashMap<String, (Ty, String)>) -> Result<Ty, Error> {
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
    let ty = match &mut n.kind {
        Name(s) => match env.get(s.as_str()) {
            Some((t, key)) => {
                *s = key.clone();
                *t
            }
            None => {
                return Err(src.error_help(
                    span,
                    format!("unknown name `{s}`"),
                    format!(
                        "built-in sets: {}; relations: {}",
                        BUILTIN_SETS.join(" "),
                        BUILTIN_RELS.join(" ")
                    ),
                ))
            }
        },
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
/// a `let rec` group must be monotone in its own names, or Kleene
/// iteration need not reach a fixed point (herd's cat semantics).
fn negative_use(n: &Node, keys: &[String], pos: bool) -> Option<(String, Span)> {
    use ExprKind::*;
    match &n.kind {
        Name(k) => (!pos && keys.contains(k)).then(|| (k.clone(), n.span)),
        Empty => None,
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

fn tyname(t: Ty) -> &'static str {
    match t {
        Ty::Set => "set",
        Ty::Rel => "relation",
    }
}

/// Parses, resolves and type-checks a model (with the prelude of herd's
/// usual abbreviations: po-loc, rfe, rfi, coe, coi, fre, fri, com).
///
/// Errors: syntax errors, unknown names, set/relation mismatches,
/// `include`; all located.
pub fn parse_model(src: &SourceFile) -> Result<Model, Error> {
    let prelude_src = SourceFile::new("<prelude>", PRELUDE);
    let mut stmts = Vec::new();
    let mut checks = 0;
    let mut next_id = 0;
    {
        let mut p = P {
            src: &prelude_src,
            toks: lex(&prelude_src)?,
            pos: 0,
            next_id,
            depth: 0,
        };
        p.items(&mut stmts, &mut checks)?;
        next_id = p.next_id;
    }
    let mut p = P {
        src,
        toks: lex(src)?,
        pos: 0,
        next_id,
        depth: 0,
    };
    let mut name = std::path::Path::new(&*src.path)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    match p.peek().clone() {
        T::Str(s) => {
            name = s;
            p.bump();
        }
        T::Name(n) if !is_keyword(&n) => {
            name = n;
            p.bump();
        }
        _ => {}
    }
    let n_prelude = stmts.len();
    p.items(&mut stmts, &mut checks)?;
    let nodes = p.next_id;
    // Resolve and type-check.
    let mut env: HashMap<String, (Ty, String)> = HashMap::default();
    for s in BUILTIN_SETS {
        env.insert(s.to_string(), (Ty::Set, s.to_string()));
    }
    for r in BUILTIN_RELS {
        env.insert(r.to_string(), (Ty::Rel, r.to_string()));
    }
    // Every `let` binding gets a unique key `name#k`, so that shadowing
    // resolves by position and explanations find the right definition.
    let mut k = 0usize;
    for (i, st) in stmts.iter_mut().enumerate() {
        let file = if i < n_prelude { &prelude_src } else { src };
        match st {
            Stmt::Let { rec: false, binds } => {
                for (n, e) in binds.iter_mut() {
                    let t = check(file, e, &env)?;
                    k += 1;
                    let key = format!("{n}#{k}");
                    env.insert(n.clone(), (t, key.clone()));
                    *n = key;
                }
            }
            Stmt::Let { rec: true, binds } => {
                for (n, _) in binds.iter_mut() {
                    k += 1;
                    let key = format!("{n}#{k}");
                    env.insert(n.clone(), (Ty::Rel, key.clone()));
                    *n = key;
                }
                for (n, e) in binds.iter_mut() {
                    let t = check(file, e, &env)?;
                    if t != Ty::Rel {
                        return Err(
                            file.error(e.span, format!("`let rec {n}` must define a relation"))
                        );
                    }
                }
                let keys: Vec<String> = binds.iter().map(|(n, _)| n.clone()).collect();
                for (n, e) in binds.iter() {
                    if let Some(bad) = negative_use(e, &keys, true) {
                        let user = |k: &str| k.split('#').next().unwrap_or(k).to_string();
                        return Err(file.error(
                            bad.1,
                            format!(
                                "`let rec {}` uses `{}` under `~` or on the right of `\\`: \
                                 the definition is not monotone and has no least fixed point",
                                user(n),
                                user(&bad.0)
                            ),
                        ));
                    }
                }
            }
            Stmt::Check { expr, kind, .. } => {
                let t = check(file, expr, &env)?;
                if t == Ty::Set && *kind != CheckKind::Empty {
                    return Err(file.error(
                        expr.span,
                        "`acyclic` and `irreflexive` expect a relation, found a set",
                    ));
                }
            }
        }
    }
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
    Ok(Model {
        name,
        stmts,
        nodes,
        source: src.clone(),
        defs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(m.uses("rf"));
        assert!(!m.uses("addr"));
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
        let e = parse("let rec a = po \\ a\nacyclic a")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("m.cat:1:18: error: `let rec a` uses `a` under `~`"),
            "{e}"
        );
        let e = parse("let rec a = po | b and b = ~(a ; rf)\nacyclic a")
            .unwrap_err()
            .to_string();
        assert!(e.contains("`let rec b` uses `a`"), "{e}");
        parse("let rec a = po | (rf \\ a)\nacyclic a").unwrap_err();
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
}
