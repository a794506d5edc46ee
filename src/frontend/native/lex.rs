//! Lexer of the native language: identifiers, backquoted names, integers
//! (decimal and `0x` hex), `#Mask` words and punctuation; `//` and `/* */`
//! comments are skipped.

use crate::diag::{Error, SourceFile, Span};

/// A token kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum T {
    /// `[A-Za-z_][A-Za-z0-9_]*` (keywords included).
    Ident(String),
    /// A backquoted name: never a keyword.
    Quoted(String),
    /// An integer literal: its value (`None` when it overflows `i64`) and
    /// its text (kept for state names like `007`).
    Int(Option<i64>, String),
    /// `#Word` (membar masks).
    Hash(String),
    /// Punctuation.
    P(&'static str),
    /// End of input.
    Eof,
}

/// A token with its span.
#[derive(Clone, Debug)]
pub(super) struct Tok {
    pub t: T,
    pub span: Span,
}

impl T {
    /// How the token is shown in messages.
    pub fn show(&self) -> String {
        match self {
            T::Ident(s) => format!("`{s}`"),
            T::Quoted(s) => format!("`` `{s}` ``"),
            T::Int(_, s) => format!("`{s}`"),
            T::Hash(s) => format!("`#{s}`"),
            T::P(s) => format!("`{s}`"),
            T::Eof => "end of file".to_string(),
        }
    }
}

const PUNCT: [&str; 32] = [
    "->", "==", "!=", "<<", ">>", "<=", ">=", "&&", "||", "{", "}", "(", ")", "[", "]", ";", ",",
    ":", "=", "<", ">", "+", "-", "*", "/", "%", "&", "|", "^", "!", "@", ".",
];

/// The unsigned operators (docs/language.md): a `u` right after the
/// symbol, not followed by an identifier character (`a<u1` is `a < u1`,
/// `a <u 1` and `a<u(b)` are unsigned). Longest first.
const UNSIGNED_OPS: [&str; 7] = [">>u", "<=u", ">=u", "<u", ">u", "/u", "%u"];

fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Splits `src` into tokens (the last one is [`T::Eof`]).
///
/// Errors: an unexpected character (including U+FFFD from invalid UTF-8
/// and control characters), an unterminated `/* */` comment or backquoted
/// name, an empty backquoted name.
pub(super) fn tokenize(src: &SourceFile) -> Result<Vec<Tok>, Error> {
    let text: &str = &src.text;
    let mut toks = Vec::new();
    let mut it = text.char_indices().peekable();
    while let Some(&(i, c)) = it.peek() {
        if c.is_whitespace() {
            it.next();
            continue;
        }
        let rest = &text[i..];
        if rest.starts_with("//") {
            while let Some(&(_, c)) = it.peek() {
                if c == '\n' {
                    break;
                }
                it.next();
            }
            continue;
        }
        if let Some(body) = rest.strip_prefix("/*") {
            match body.find("*/") {
                Some(k) => {
                    let end = i + 2 + k + 2;
                    while let Some(&(j, _)) = it.peek() {
                        if j >= end {
                            break;
                        }
                        it.next();
                    }
                    continue;
                }
                None => {
                    return Err(src.error(Span::new(i, i + 2), "unterminated `/*` comment"));
                }
            }
        }
        if is_ident_start(c) {
            let end = ident_end(&mut it, i);
            toks.push(Tok {
                t: T::Ident(text[i..end].to_string()),
                span: Span::new(i, end),
            });
            continue;
        }
        if c.is_ascii_digit() {
            let end = ident_end(&mut it, i);
            toks.push(number(src, i, end)?);
            continue;
        }
        if c == '`' {
            toks.push(quoted(src, &mut it, i)?);
            continue;
        }
        if c == '#' {
            it.next();
            let mut end = i + 1;
            while let Some(&(j, c)) = it.peek() {
                if !is_ident_char(c) {
                    break;
                }
                end = j + c.len_utf8();
                it.next();
            }
            if end == i + 1 {
                return Err(src.error_help(
                    Span::new(i, i + 1),
                    "expected a mask name after `#`",
                    "masks are #LoadLoad, #LoadStore, #StoreLoad, #StoreStore",
                ));
            }
            toks.push(Tok {
                t: T::Hash(text[i + 1..end].to_string()),
                span: Span::new(i, end),
            });
            continue;
        }
        let unsigned = UNSIGNED_OPS
            .iter()
            .find(|p| rest.starts_with(**p) && !rest[p.len()..].starts_with(is_ident_char));
        if let Some(p) = unsigned.or_else(|| PUNCT.iter().find(|p| rest.starts_with(**p))) {
            for _ in 0..p.len() {
                it.next();
            }
            toks.push(Tok {
                t: T::P(p),
                span: Span::new(i, i + p.len()),
            });
            continue;
        }
        let what = if c == '\u{fffd}' {
            "unexpected character (invalid UTF-8 replaced by U+FFFD; is this a text file?)"
                .to_string()
        } else {
            format!("unexpected character {c:?}")
        };
        return Err(src.error(Span::new(i, i + c.len_utf8()), what));
    }
    let n = text.len();
    toks.push(Tok {
        t: T::Eof,
        span: Span::new(n, n),
    });
    Ok(toks)
}

/// The number token `text[i..end]` of `src`: decimal or `0x` hexadecimal
/// (its value `None` when it does not fit an `i64`).
///
/// Errors: a malformed hexadecimal number; digits followed by letters.
fn number(src: &SourceFile, i: usize, end: usize) -> Result<Tok, Error> {
    let text: &str = &src.text;
    let word = &text[i..end];
    let value = if let Some(h) = word.strip_prefix("0x").or(word.strip_prefix("0X")) {
        if h.is_empty() || !h.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(src.error(
                Span::new(i, end),
                format!("malformed hexadecimal number `{word}`"),
            ));
        }
        i64::from_str_radix(h, 16).ok()
    } else if word.bytes().all(|b| b.is_ascii_digit()) {
        word.parse::<i64>().ok()
    } else {
        return Err(src.error_help(
            Span::new(i, end),
            format!("malformed number `{word}`"),
            "names cannot start with a digit; write unusual names in backquotes",
        ));
    };
    Ok(Tok {
        t: T::Int(value, word.to_string()),
        span: Span::new(i, end),
    })
}

/// The backquoted name starting at byte `i` of `src` (`it` at its opening
/// backquote): `` \` `` and `\\` are its escapes; it ends at the closing
/// backquote, on the same line.
///
/// Errors: an unknown escape, a control character, an unterminated or
/// empty name.
fn quoted(
    src: &SourceFile,
    it: &mut std::iter::Peekable<std::str::CharIndices<'_>>,
    i: usize,
) -> Result<Tok, Error> {
    it.next();
    let mut name = String::new();
    let mut closed = None;
    while let Some((j, c)) = it.next() {
        match c {
            '`' => {
                closed = Some(j + 1);
                break;
            }
            '\\' => match it.next() {
                Some((_, e @ ('`' | '\\'))) => name.push(e),
                Some((k, _)) => {
                    return Err(src.error_help(
                        Span::new(j, k + 1),
                        "unknown escape in a backquoted name",
                        "only \\` and \\\\ are escapes",
                    ))
                }
                None => break,
            },
            '\n' | '\r' => break,
            c if c.is_control() || c == '\u{fffd}' => {
                return Err(src.error(
                    Span::new(j, j + c.len_utf8()),
                    format!("unexpected character {c:?} in a backquoted name"),
                ))
            }
            c => name.push(c),
        }
    }
    let Some(end) = closed else {
        return Err(src.error(Span::new(i, i + 1), "unterminated backquoted name"));
    };
    if name.is_empty() {
        return Err(src.error(Span::new(i, end), "empty backquoted name"));
    }
    Ok(Tok {
        t: T::Quoted(name),
        span: Span::new(i, end),
    })
}

/// Consumes the identifier characters after the one at byte `start`;
/// returns the byte offset just past the last.
fn ident_end(it: &mut std::iter::Peekable<std::str::CharIndices<'_>>, start: usize) -> usize {
    let mut end = start;
    while let Some(&(j, c)) = it.peek() {
        if !is_ident_char(c) {
            break;
        }
        end = j + c.len_utf8();
        it.next();
    }
    end
}
