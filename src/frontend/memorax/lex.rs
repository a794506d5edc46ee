//! Memorax tokens and macro expansion: `/* … */` comments, registers
//! `$name`, the operators of the RMM grammar, and token-level
//! `macro NAME(p, …) tokens endmacro` substitution (nested invocations
//! are expanded again, with a cap on the number of expansions and on the
//! expanded length, so a recursive macro is an error, not a hang).

use crate::collections::HashMap;
use crate::diag::{Error, SourceFile, Span};

/// Kinds of tokens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    /// An identifier or keyword (`[A-Za-z_][A-Za-z0-9_]*`).
    Id(String),
    /// A register `$name`.
    Reg(String),
    /// A natural number.
    Nat(i64),
    /// Punctuation or operator: `:= : ; , ( ) [ ] { } = != < > <= >= + - && || *`.
    Sym(&'static str),
}

impl Tok {
    /// How the token reads in a message.
    pub fn show(&self) -> String {
        match self {
            Tok::Id(s) => format!("`{s}`"),
            Tok::Reg(s) => format!("`${s}`"),
            Tok::Nat(n) => format!("`{n}`"),
            Tok::Sym(s) => format!("`{s}`"),
        }
    }
}

/// A token with its place in the file (for tokens produced by a macro:
/// their place in the macro's body or in the invocation's argument).
#[derive(Clone, Debug)]
pub struct Token {
    /// The token.
    pub tok: Tok,
    /// Where it was written.
    pub span: Span,
}

const SYMBOLS: [&str; 20] = [
    ":=", "!=", "<=", ">=", "&&", "||", ":", ";", ",", "(", ")", "[", "]", "{", "}", "=", "<", ">",
    "+", "-",
];

/// Most macro invocations expanded in one file.
pub const MAX_EXPANSIONS: usize = 10_000;
/// Most tokens after expansion.
pub const MAX_TOKENS: usize = 1_000_000;

/// Splits the text into tokens.
///
/// Errors: an unterminated comment, a number too large, a `$` without a
/// name, any other character (located).
pub fn tokenize(src: &SourceFile) -> Result<Vec<Token>, Error> {
    let text: &str = &src.text;
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if text[i..].starts_with("/*") {
            match text[i + 2..].find("*/") {
                Some(e) => i = i + 2 + e + 2,
                None => return Err(src.error(Span::new(i, i + 2), "unterminated comment")),
            }
            continue;
        }
        let start = i;
        if c.is_ascii_alphabetic() || c == b'_' || c == b'$' {
            i += 1;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let word = &text[start..i];
            let tok = match word.strip_prefix('$') {
                Some("") => {
                    return Err(src.error(Span::new(start, i), "`$` must start a register name"))
                }
                Some(r) => Tok::Reg(r.to_string()),
                None => Tok::Id(word.to_string()),
            };
            out.push(Token {
                tok,
                span: Span::new(start, i),
            });
            continue;
        }
        if c.is_ascii_digit() {
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            let n: i64 = text[start..i]
                .parse()
                .map_err(|_| src.error(Span::new(start, i), "number too large"))?;
            out.push(Token {
                tok: Tok::Nat(n),
                span: Span::new(start, i),
            });
            continue;
        }
        if let Some(s) = SYMBOLS.iter().find(|s| text[i..].starts_with(**s)) {
            i += s.len();
            out.push(Token {
                tok: Tok::Sym(s),
                span: Span::new(start, i),
            });
            continue;
        }
        if c == b'*' {
            i += 1;
            out.push(Token {
                tok: Tok::Sym("*"),
                span: Span::new(start, i),
            });
            continue;
        }
        let ch = text[i..].chars().next().unwrap_or('?');
        return Err(src.error(
            Span::new(i, i + ch.len_utf8()),
            format!("unexpected character {ch:?}"),
        ));
    }
    Ok(out)
}

struct Macro {
    params: Vec<String>,
    body: Vec<Token>,
}

fn is_id(t: &Token, s: &str) -> bool {
    matches!(&t.tok, Tok::Id(x) if x == s)
}

/// Removes `macro … endmacro` definitions and expands their invocations
/// `NAME(arg, …)` (arguments split at top-level commas; an invocation
/// without parentheses is not expanded). A macro is known from its
/// definition on.
///
/// Errors: a malformed definition, a wrong argument count, an
/// unterminated invocation, more than [`MAX_EXPANSIONS`] expansions or
/// [`MAX_TOKENS`] tokens (located).
pub fn expand(src: &SourceFile, toks: Vec<Token>) -> Result<Vec<Token>, Error> {
    let mut macros: HashMap<String, Macro> = HashMap::default();
    // Input as a stack: the next token is on top.
    let mut input: Vec<Token> = toks.into_iter().rev().collect();
    let mut out = Vec::new();
    let mut expansions = 0usize;
    let eof = Span::new(src.text.len(), src.text.len());
    while let Some(t) = input.pop() {
        if is_id(&t, "macro") {
            let name = match input.pop() {
                Some(Token {
                    tok: Tok::Id(n), ..
                }) => n,
                other => {
                    return Err(src.error(
                        other.map(|o| o.span).unwrap_or(eof),
                        "expected the macro's name after `macro`",
                    ))
                }
            };
            let mut params = Vec::new();
            if input.last().is_some_and(|x| x.tok == Tok::Sym("(")) {
                input.pop();
                loop {
                    match input.pop() {
                        Some(Token {
                            tok: Tok::Sym(")"), ..
                        }) if params.is_empty() => break,
                        Some(Token {
                            tok: Tok::Id(p), ..
                        }) => params.push(p),
                        other => {
                            return Err(src.error(
                                other.map(|o| o.span).unwrap_or(eof),
                                "expected a parameter name",
                            ))
                        }
                    }
                    match input.pop() {
                        Some(Token {
                            tok: Tok::Sym(")"), ..
                        }) => break,
                        Some(Token {
                            tok: Tok::Sym(","), ..
                        }) => {}
                        other => {
                            return Err(src.error(
                                other.map(|o| o.span).unwrap_or(eof),
                                "expected `,` or `)` in the macro's parameters",
                            ))
                        }
                    }
                }
            }
            let mut body = Vec::new();
            loop {
                match input.pop() {
                    Some(x) if is_id(&x, "endmacro") => break,
                    Some(x) if is_id(&x, "macro") => {
                        return Err(src.error(x.span, "macro definitions cannot be nested"))
                    }
                    Some(x) => body.push(x),
                    None => return Err(src.error(t.span, "`macro` without `endmacro`")),
                }
            }
            macros.insert(name, Macro { params, body });
            continue;
        }
        let m = match &t.tok {
            Tok::Id(n) if input.last().is_some_and(|x| x.tok == Tok::Sym("(")) => macros.get(n),
            _ => None,
        };
        let Some(m) = m else {
            out.push(t);
            if out.len() > MAX_TOKENS {
                return Err(src.error(
                    t_span(&out),
                    "the program is too large after macro expansion",
                ));
            }
            continue;
        };
        expansions += 1;
        if expansions > MAX_EXPANSIONS {
            return Err(src.error(
                t.span,
                format!("more than {MAX_EXPANSIONS} macro expansions (is a macro recursive?)"),
            ));
        }
        input.pop(); // `(`
        let mut args: Vec<Vec<Token>> = vec![Vec::new()];
        let mut depth = 0usize;
        loop {
            let Some(x) = input.pop() else {
                return Err(src.error(t.span, "unterminated macro invocation (missing `)`)"));
            };
            match x.tok {
                Tok::Sym("(" | "[" | "{") => depth += 1,
                Tok::Sym(")") if depth == 0 => break,
                Tok::Sym(")" | "]" | "}") => depth = depth.saturating_sub(1),
                Tok::Sym(",") if depth == 0 => {
                    args.push(Vec::new());
                    continue;
                }
                _ => {}
            }
            if let Some(a) = args.last_mut() {
                a.push(x);
            }
        }
        if m.params.is_empty() && args.len() == 1 && args[0].is_empty() {
            args.clear();
        }
        if args.len() != m.params.len() {
            return Err(src.error(
                t.span,
                format!(
                    "macro takes {} argument(s), {} given",
                    m.params.len(),
                    args.len()
                ),
            ));
        }
        let mut body = Vec::with_capacity(m.body.len());
        for b in &m.body {
            match &b.tok {
                Tok::Id(n) => match m.params.iter().position(|p| p == n) {
                    Some(i) => body.extend(args[i].iter().cloned()),
                    None => body.push(b.clone()),
                },
                _ => body.push(b.clone()),
            }
        }
        if input.len() + body.len() > MAX_TOKENS {
            return Err(src.error(t.span, "the program is too large after macro expansion"));
        }
        input.extend(body.into_iter().rev());
    }
    Ok(out)
}

fn t_span(out: &[Token]) -> Span {
    out.last().map(|t| t.span).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Result<Vec<Tok>, Error> {
        let src = SourceFile::new("t.rmm", s);
        let t = tokenize(&src)?;
        Ok(expand(&src, t)?.into_iter().map(|t| t.tok).collect())
    }

    #[test]
    fn tokens_and_macros() {
        let t = toks("macro f(a,b) [a+b] endmacro write: f($x,(1)) := 2 /* c */").unwrap();
        let s: Vec<String> = t.iter().map(Tok::show).collect();
        assert_eq!(
            s.join(" "),
            "`write` `:` `[` `$x` `+` `(` `1` `)` `]` `:=` `2`"
        );
        let t = toks("macro N() 2 endmacro macro g(x) N()+x endmacro g(N())").unwrap();
        assert_eq!(t, vec![Tok::Nat(2), Tok::Sym("+"), Tok::Nat(2)]);
    }

    #[test]
    fn macro_errors_are_located() {
        let e = toks("macro f(a) f(a) endmacro f(1)").unwrap_err();
        assert!(e.to_string().contains("macro expansions"), "{e}");
        let e = toks("macro f(a) a endmacro f(1,2)").unwrap_err();
        assert!(e.to_string().contains("1 argument(s), 2 given"), "{e}");
        let e = toks("/* open").unwrap_err();
        assert!(e.to_string().contains("unterminated comment"), "{e}");
        let e = toks("macro f(a) a").unwrap_err();
        assert!(e.to_string().contains("without `endmacro`"), "{e}");
        let e = toks("x # y").unwrap_err();
        assert!(e.to_string().contains("1:3"), "{e}");
    }
}
