//! The length of every function in `src/`: none over [`LIMIT`] lines.
//!
//! A small brace-aware scanner (comments, string, raw-string, byte and
//! char literals skipped; lifetimes told apart from char literals) finds
//! each `fn NAME` with a body and counts the lines from the line of `fn`
//! to the line of the body's closing brace, both included. A nested
//! function or closure counts in its enclosing function too. The test
//! prints the ten longest and fails on any function over the limit that
//! is not in [`ALLOWED`] or [`PENDING`].

use std::path::{Path, PathBuf};

/// The most lines a function in `src/` may have.
const LIMIT: usize = 150;

/// Generated tables, exempt from the limit: `(file, function)`. None today.
const ALLOWED: &[(&str, &str)] = &[];

/// Functions over the limit whose split is under way: each named,
/// temporary, to be emptied as those splits land. An entry that is no
/// longer over the limit fails the test, so the list cannot go stale.
const PENDING: &[(&str, &str)] = &[
    ("src/cat/parse.rs", "parse_model_files"),
    ("src/cat/eval.rs", "abs"),
];

/// One function found by the scanner.
#[derive(Debug, Clone)]
struct Func {
    /// Path relative to the crate root, with `/` separators.
    file: String,
    name: String,
    /// 1-based line of the `fn` keyword.
    line: usize,
    /// Lines from `fn` to the closing brace, both included.
    lines: usize,
}

/// The source with comments and literals blanked out (newlines kept), so
/// that braces and `fn` in them are not seen.
fn strip(src: &str) -> Vec<u8> {
    let b = src.as_bytes();
    let mut out = b.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            let end = b[i..]
                .iter()
                .position(|&c| c == b'\n')
                .map_or(b.len(), |p| i + p);
            blank(&mut out, i, end);
            i = end;
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            let (mut j, mut depth) = (i + 2, 1);
            while j < b.len() && depth > 0 {
                if b[j] == b'/' && b.get(j + 1) == Some(&b'*') {
                    depth += 1;
                    j += 2;
                } else if b[j] == b'*' && b.get(j + 1) == Some(&b'/') {
                    depth -= 1;
                    j += 2;
                } else {
                    j += 1;
                }
            }
            blank(&mut out, i, j);
            i = j;
        } else if (c == b'r' || (c == b'b' && b.get(i + 1) == Some(&b'r')))
            && (i == 0 || !ident(b[i - 1]))
            && {
                let k = if c == b'b' { i + 2 } else { i + 1 };
                let h = b[k..].iter().take_while(|&&c| c == b'#').count();
                b.get(k + h) == Some(&b'"')
            }
        {
            // Raw string: r"…", r#"…"#, br"…".
            let k = if c == b'b' { i + 2 } else { i + 1 };
            let hashes = b[k..].iter().take_while(|&&c| c == b'#').count();
            let mut close = vec![b'"'];
            close.extend(std::iter::repeat_n(b'#', hashes));
            let start = k + hashes + 1;
            let end = b[start..]
                .windows(close.len())
                .position(|w| w == close.as_slice())
                .map_or(b.len(), |p| start + p + close.len());
            blank(&mut out, i, end);
            i = end;
        } else if c == b'"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != b'"' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(b.len());
            blank(&mut out, i, end);
            i = end;
        } else if c == b'\'' {
            // A char literal ('x', '\n', '\u{..}', '{') or a lifetime ('a).
            let end = if b.get(i + 1) == Some(&b'\\') {
                let mut j = i + 2;
                while j < b.len() && b[j] != b'\'' {
                    j += 1;
                }
                Some(j + 1)
            } else {
                // One (possibly multi-byte) character then a quote.
                let rest = &src[i + 1..];
                rest.chars()
                    .next()
                    .filter(|ch| rest[ch.len_utf8()..].starts_with('\''))
                    .map(|ch| i + 1 + ch.len_utf8() + 1)
            };
            match end {
                Some(e) => {
                    blank(&mut out, i, e.min(b.len()));
                    i = e;
                }
                None => i += 1,
            }
        } else if ident(c) {
            // Skip whole identifiers so `br`/`r` inside names are not
            // taken for raw strings.
            while i < b.len() && ident(b[i]) {
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    out
}

/// Every function with a body in one source file.
fn functions(file: &str, src: &str) -> Vec<Func> {
    let b = strip(src);
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let line_of = |pos: usize| 1 + b[..pos].iter().filter(|&&c| c == b'\n').count();
    let mut out = Vec::new();
    let mut i = 0;
    while i + 2 < b.len() {
        let is_fn =
            &b[i..i + 2] == b"fn" && (i == 0 || !ident(b[i - 1])) && b[i + 2].is_ascii_whitespace();
        if !is_fn {
            i += 1;
            continue;
        }
        let mut j = i + 2;
        while j < b.len() && b[j].is_ascii_whitespace() {
            j += 1;
        }
        let name_start = j;
        while j < b.len() && ident(b[j]) {
            j += 1;
        }
        let name = String::from_utf8_lossy(&b[name_start..j]).into_owned();
        // The body opens at the first `{` outside the signature's
        // brackets; a `;` first means a declaration without a body.
        let mut depth = 0i32;
        let mut open = None;
        while j < b.len() {
            match b[j] {
                b'(' | b'[' | b'<' => depth += 1,
                b')' | b']' => depth -= 1,
                b'>' if b[j - 1] != b'-' && b[j - 1] != b'=' => depth -= 1,
                b'{' if depth <= 0 => {
                    open = Some(j);
                    break;
                }
                b';' if depth <= 0 => break,
                _ => {}
            }
            j += 1;
        }
        if let (Some(open), false) = (open, name.is_empty()) {
            let mut d = 0;
            let mut k = open;
            while k < b.len() {
                match b[k] {
                    b'{' => d += 1,
                    b'}' => {
                        d -= 1;
                        if d == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                k += 1;
            }
            let (first, last) = (line_of(i), line_of(k.min(b.len() - 1)));
            out.push(Func {
                file: file.to_string(),
                name,
                line: first,
                lines: last - first + 1,
            });
        }
        i += 2;
    }
    out
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// Every function in `src/`, longest first.
fn all_functions() -> Vec<Func> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    let mut all = Vec::new();
    for f in files {
        let src = std::fs::read_to_string(&f).expect("source is UTF-8");
        let rel = f.strip_prefix(root).expect("under the crate root");
        let rel = rel.to_string_lossy().replace('\\', "/");
        all.extend(functions(&rel, &src));
    }
    all.sort_by(|a, b| b.lines.cmp(&a.lines).then(a.file.cmp(&b.file)));
    all
}

fn listed(list: &[(&str, &str)], f: &Func) -> bool {
    list.iter()
        .any(|&(file, name)| file == f.file && name == f.name)
}

#[test]
fn no_function_over_the_limit() {
    let all = all_functions();
    println!("the ten longest functions in src/:");
    for f in all.iter().take(10) {
        println!("  {:4} lines  {}:{} {}", f.lines, f.file, f.line, f.name);
    }
    let over: Vec<&Func> = all
        .iter()
        .filter(|f| f.lines > LIMIT && !listed(ALLOWED, f) && !listed(PENDING, f))
        .collect();
    assert!(
        over.is_empty(),
        "functions over {LIMIT} lines (split them by phase or by case):\n{}",
        over.iter()
            .map(|f| format!("  {} lines  {}:{} {}", f.lines, f.file, f.line, f.name))
            .collect::<Vec<_>>()
            .join("\n")
    );
    let stale: Vec<String> = PENDING
        .iter()
        .chain(ALLOWED)
        .filter(|&&(file, name)| {
            !all.iter()
                .any(|f| f.file == file && f.name == name && f.lines > LIMIT)
        })
        .map(|(file, name)| format!("  {file} {name}"))
        .collect();
    assert!(
        stale.is_empty(),
        "listed as over {LIMIT} lines but no longer are (remove them from the list):\n{}",
        stale.join("\n")
    );
}

#[test]
fn scanner_counts_lines_and_skips_literals() {
    let src = "fn a() {\n    let s = \"}\";\n    let c = '{';\n    // }\n    /* { */\n}\n\
               fn b<'x>(v: &'x str) -> Vec<u8> where u8: Copy {\n    let r = r#\"}\"#;\n}\n\
               fn decl();\n";
    let fs = functions("t.rs", src);
    let got: Vec<(&str, usize, usize)> = fs
        .iter()
        .map(|f| (f.name.as_str(), f.line, f.lines))
        .collect();
    assert_eq!(got, vec![("a", 1, 6), ("b", 7, 3)]);
}
