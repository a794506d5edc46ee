//! The C preprocessor: finding it (`cpp`, else `gcc -E`, `cc -E`,
//! `clang -E` on `PATH`), running it on the source text, and mapping
//! offsets of its output back to the original file through its line
//! markers (`# LINE "FILE" FLAGS`, GNU cpp manual §9 "Preprocessor
//! Output"), so that every error names the user's `file:line:column`.

use super::Options;
use crate::diag::{Error, SourceFile, Span};
use std::collections::HashMap;
use std::io::Write;
use std::process::{Command, Stdio};

/// Deepest nesting of brackets and longest run of prefix operators
/// accepted before parsing (the parser recurses on both).
pub const MAX_NESTING: usize = 256;

/// Longest run of adjacent `+`/`-` characters accepted before parsing:
/// the C parser backtracks exponentially in it on a syntax error (30 take
/// half a second, 36 ten seconds); C needs three (`x---y`).
pub const MAX_SIGNS: usize = 20;

/// The candidates tried in order when no preprocessor is given.
const CANDIDATES: [(&str, &[&str]); 4] = [
    ("cpp", &[]),
    ("gcc", &["-E"]),
    ("cc", &["-E"]),
    ("clang", &["-E"]),
];

/// The first candidate preprocessor on `PATH`: the command and its
/// arguments (`["gcc", "-E"]`).
pub fn find() -> Option<Vec<String>> {
    let path = std::env::var_os("PATH")?;
    for (cmd, args) in CANDIDATES {
        if std::env::split_paths(&path).any(|d| d.join(cmd).is_file()) {
            let mut v = vec![cmd.to_string()];
            v.extend(args.iter().map(|a| a.to_string()));
            return Some(v);
        }
    }
    None
}

/// The headers bmc-rmm ships (`stdatomic.h`: the C11 atomics as calls
/// the front-end lowers, docs/c.md), as (file name, text).
const BUNDLED: [(&str, &str); 1] = [("stdatomic.h", include_str!("stdatomic.h"))];

/// A directory holding the [`BUNDLED`] headers: `bmc-rmm-VERSION-include`
/// in the system's temporary directory, written on first use (each file
/// through a temporary sibling and a rename, so concurrent runs never see
/// a partial header). `None` when it cannot be written: the system's
/// headers are used then.
fn bundled_include_dir() -> Option<std::path::PathBuf> {
    let dir = std::env::temp_dir().join(format!("bmc-rmm-{}-include", env!("CARGO_PKG_VERSION")));
    std::fs::create_dir_all(&dir).ok()?;
    for (name, text) in BUNDLED {
        let path = dir.join(name);
        if std::fs::read_to_string(&path).ok().as_deref() == Some(text) {
            continue;
        }
        let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
        std::fs::write(&tmp, text).ok()?;
        if std::fs::rename(&tmp, &path).is_err() {
            let _ = std::fs::remove_file(&tmp);
            return None;
        }
    }
    Some(dir)
}

/// Runs the preprocessor on `src`'s text (standard input; the file's
/// directory, then the [`BUNDLED`] headers' directory are on the include
/// path, before the system's), with `-D` for each of
/// `opts.defines` and `__BMC_RMM__` defined.
///
/// Errors: no preprocessor ([`Error::Tool`]); the preprocessor failed
/// (its first `file:line:col: error:` line, located in `src` when it
/// names the input, else its message).
pub fn run(src: &SourceFile, opts: &Options) -> Result<String, Error> {
    let cmd = match &opts.cpp {
        Some(c) if !c.is_empty() => c.clone(),
        _ => find().ok_or_else(|| {
            Error::Tool(format!(
                "{}: no C preprocessor found: install `cpp` or `gcc` (tried cpp, gcc -E, cc -E, clang -E on PATH)",
                src.path
            ))
        })?,
    };
    let dir = std::path::Path::new(&*src.path)
        .parent()
        .map(|d| d.to_string_lossy().into_owned())
        .filter(|d| !d.is_empty())
        .unwrap_or_else(|| ".".into());
    let mut c = Command::new(&cmd[0]);
    c.args(&cmd[1..])
        .arg("-D__BMC_RMM__")
        .arg("-I")
        .arg(&dir)
        .args(
            bundled_include_dir()
                .map(|d| vec!["-I".to_string(), d.to_string_lossy().into_owned()])
                .unwrap_or_default(),
        )
        .args(opts.defines.iter().map(|d| format!("-D{d}")))
        .args(["-x", "c", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().map_err(|e| {
        Error::Tool(format!(
            "{}: cannot run the C preprocessor `{}`: {e}",
            src.path, cmd[0]
        ))
    })?;
    let text = src.text.to_string();
    let mut stdin = child.stdin.take().expect("piped stdin");
    let feeder = std::thread::spawn(move || {
        let _ = stdin.write_all(text.as_bytes());
    });
    let out = child.wait_with_output().map_err(|e| Error::Io {
        path: src.path.to_string(),
        message: format!("the C preprocessor failed: {e}"),
    })?;
    let _ = feeder.join();
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(cpp_error(src, &err));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The preprocessor's first error as a located error in `src` (its
/// messages name standard input `<stdin>`: `<stdin>:LINE:COL: error: …`
/// or `<stdin>:LINE: error: …`); an error inside an included file is
/// located at the `#include` of the input that brought it in (`In file
/// included from <stdin>:LINE`). Warnings are skipped.
fn cpp_error(src: &SourceFile, stderr: &str) -> Error {
    // The input's line and column an error in an included file goes back to.
    let mut included_at: Option<(usize, usize)> = None;
    for line in stderr.lines() {
        if let Some(i) = line.find("from <stdin>:") {
            let at = line[i + "from <stdin>:".len()..].trim_end_matches([',', ':']);
            included_at = line_col(&format!("{at}:")).map(|(l, c, _)| (l, c));
            continue;
        }
        let (at, msg, what) = match line.strip_prefix("<stdin>:") {
            Some(rest) => match line_col(rest) {
                Some((l, c, msg)) => ((l, c), msg, ""),
                None => continue,
            },
            None => {
                // `FILE:LINE[:COL]: error: …` in an included file.
                let Some(at) = included_at else { continue };
                let Some(i) = line.find(": ") else { continue };
                (at, line[i + 2..].to_string(), "in an included file: ")
            }
        };
        let msg = msg.trim();
        let msg = msg
            .strip_prefix("fatal error:")
            .or_else(|| msg.strip_prefix("error:"))
            .map(str::trim);
        if let Some(msg) = msg {
            let off = offset_of(&src.text, at.0, at.1);
            let end = (off + 1).min(src.text.len()).max(off);
            return src.error(Span::new(off, end), format!("preprocessor: {what}{msg}"));
        }
    }
    let first = stderr.lines().next().unwrap_or("failed").to_string();
    Error::Tool(format!("{}: the C preprocessor failed: {first}", src.path))
}

/// `LINE:COL: REST` or `LINE: REST` (column 1), as the preprocessor
/// writes a position: (line, column, rest); `None` when `s` does not
/// start with a line number.
fn line_col(s: &str) -> Option<(usize, usize, String)> {
    let (l, rest) = s.split_once(':')?;
    let l = l.trim().parse::<usize>().ok()?;
    if let Some((c, msg)) = rest.split_once(':') {
        if let Ok(c) = c.trim().parse::<usize>() {
            return Some((l, c, msg.to_string()));
        }
    }
    Some((l, 1, rest.to_string()))
}

/// The byte offset of 1-based `line`, `col` in `text` (clamped to the
/// line's end and to the text).
pub fn offset_of(text: &str, line: usize, col: usize) -> usize {
    let mut start = 0;
    for _ in 1..line.max(1) {
        match text[start..].find('\n') {
            Some(i) => start += i + 1,
            None => return text.len(),
        }
    }
    let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    let mut off = start;
    for (n, (i, _)) in text[start..end].char_indices().enumerate() {
        off = start + i;
        if n + 1 >= col {
            return off;
        }
    }
    if col > 1 {
        end
    } else {
        off
    }
}

/// The preprocessed text's lines mapped to the files they came from.
pub struct Sources {
    /// The input file (what the user named).
    pub main: SourceFile,
    /// Byte offset of each preprocessed line's start.
    line_starts: Vec<usize>,
    /// For each preprocessed line: (index into `files`, 1-based line).
    origin: Vec<(u32, u32)>,
    /// File names of the markers (`<stdin>` is the input).
    files: Vec<String>,
    /// Other files (headers) read on demand for messages.
    others: std::sync::Mutex<HashMap<String, SourceFile>>,
    /// (marker file, line) → 1-based line of the input file, for the
    /// lines that the input's *own* line markers attribute to other files
    /// (an input that is itself a preprocessor's output, such as the
    /// Nidhugg `apr_*.c`): errors there point into the input, where the
    /// text really is, not into a file that may not exist.
    input_lines: HashMap<(String, u32), u32>,
    /// Offsets of the text where a keyword was written longer than in
    /// the input ([`thread_keyword`]), sorted: columns after one on its
    /// line are [`WIDENED_BY`] bytes less.
    widened: Vec<usize>,
}

/// How much longer `_Thread_local` is than the `__thread` it replaces.
pub const WIDENED_BY: usize = "_Thread_local".len() - "__thread".len();

impl Sources {
    /// Builds the line map of `pp` (the preprocessor's output for `main`).
    pub fn new(main: SourceFile, pp: &str) -> Sources {
        let mut line_starts = Vec::new();
        let mut origin = Vec::new();
        let mut files: Vec<String> = vec!["<stdin>".into()];
        let mut cur = (0u32, 1u32);
        let mut start = 0usize;
        for line in pp.split_inclusive('\n') {
            line_starts.push(start);
            origin.push(cur);
            start += line.len();
            if let Some((l, f)) = marker(line) {
                let idx = match files.iter().position(|x| *x == f) {
                    Some(i) => i,
                    None => {
                        files.push(f);
                        files.len() - 1
                    }
                };
                cur = (idx as u32, l);
            } else {
                cur.1 = cur.1.saturating_add(1);
            }
        }
        let input_lines = own_markers(&main.text);
        Sources {
            main,
            line_starts,
            origin,
            files,
            others: std::sync::Mutex::new(HashMap::new()),
            input_lines,
            widened: Vec::new(),
        }
    }

    /// Records where the text has keywords written longer than in the
    /// input ([`thread_keyword`]'s offsets), so that columns stay those
    /// of the input.
    pub fn set_widened(&mut self, widened: Vec<usize>) {
        self.widened = widened;
    }

    /// (1-based line, 1-based column) in the input file of a
    /// preprocessed offset: directly, or through the input's own line
    /// markers (`input_lines`); `None` when it lies in a header.
    fn in_main(&self, offset: usize) -> Option<(usize, usize)> {
        let (f, l, c) = self.locate(offset);
        if f == "<stdin>" {
            return Some((l, c));
        }
        let p = *self.input_lines.get(&(f.to_string(), l as u32))?;
        Some((p as usize, c))
    }

    /// (file name, 1-based line, 1-based column) of a preprocessed offset.
    fn locate(&self, offset: usize) -> (&str, usize, usize) {
        let i = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(0) => 0,
            Err(i) => i - 1,
        };
        let Some(&(f, l)) = self.origin.get(i) else {
            return ("<stdin>", 1, 1);
        };
        let start = self.line_starts[i];
        let first = self.widened.partition_point(|&w| w < start);
        let extra: usize = self.widened[first..]
            .iter()
            .take_while(|&&w| w < offset)
            .map(|&w| (offset - w).min(WIDENED_BY))
            .sum();
        let col = offset.saturating_sub(start + extra) + 1;
        (&self.files[f as usize], l as usize, col)
    }

    /// The span of a parser span in the input file, when it lies there
    /// (else the empty span at 0).
    pub fn span(&self, s: lang_c::span::Span) -> Span {
        if s.is_none() {
            return Span::default();
        }
        let Some((l, c)) = self.in_main(s.start) else {
            return Span::default();
        };
        let start = offset_of(&self.main.text, l, c);
        let end = match self.in_main(s.end.max(s.start)) {
            Some((l2, c2)) if l2 == l => offset_of(&self.main.text, l2, c2).max(start + 1),
            _ => start + 1,
        };
        Span::new(start, end.min(self.main.text.len().max(start + 1)))
    }

    /// A located error at parser span `s`: in the input file, or in the
    /// header it comes from.
    pub fn error(&self, s: lang_c::span::Span, msg: impl Into<String>) -> Error {
        let msg = msg.into();
        if s.is_none() {
            return self.main.error(Span::default(), msg);
        }
        if self.in_main(s.start).is_some() {
            return self.main.error(self.span(s), msg);
        }
        let (f, l, c) = self.locate(s.start);
        let mut others = self.others.lock().unwrap_or_else(|p| p.into_inner());
        let file = others
            .entry(f.to_string())
            .or_insert_with(|| {
                SourceFile::read(f).unwrap_or_else(|_| SourceFile::new(f, String::new()))
            })
            .clone();
        let off = offset_of(&file.text, l, c);
        file.error(Span::new(off, off + 1), msg)
    }

    /// The 1-based line in the input file of parser span `s` (0 when it
    /// lies in a header).
    pub fn line(&self, s: lang_c::span::Span) -> usize {
        if s.is_none() {
            return 0;
        }
        self.in_main(s.start).map_or(0, |(l, _)| l)
    }
}

/// The map `Sources::input_lines` of a source text: for each line after
/// one of its own line markers, (the marker's file, the line number the
/// markers give it) → its 1-based line in `text` (the first such line
/// when several share a number).
fn own_markers(text: &str) -> HashMap<(String, u32), u32> {
    let mut map = HashMap::new();
    let mut cur: Option<(String, u32)> = None;
    for (i, line) in text.lines().enumerate() {
        if let Some((l, f)) = marker(line) {
            cur = Some((f, l));
            continue;
        }
        if let Some((f, l)) = &mut cur {
            map.entry((f.clone(), *l)).or_insert(i as u32 + 1);
            *l = l.saturating_add(1);
        }
    }
    map
}

/// A line marker `# LINE "FILE" [FLAGS]`: the line number of the next
/// line and the file.
fn marker(line: &str) -> Option<(u32, String)> {
    let rest = line.strip_prefix('#')?.trim_start();
    let rest = rest.strip_prefix("line").unwrap_or(rest).trim_start();
    let digits = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    let l: u32 = rest[..digits].parse().ok()?;
    let rest = rest[digits..].trim_start();
    let rest = rest.strip_prefix('"')?;
    let end = rest.find('"')?;
    Some((l, rest[..end].to_string()))
}

/// The (start, end) byte ranges of the identifiers and keywords of
/// preprocessed text (`$` counts as an identifier character, as GCC's),
/// outside string and character literals and directive lines (line
/// markers, pragmas).
fn identifiers(bytes: &[u8]) -> Vec<(usize, usize)> {
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b == b'$';
    let mut out = Vec::new();
    let mut i = 0;
    let mut line_start = true;
    while i < bytes.len() {
        let b = bytes[i];
        if line_start && b == b'#' {
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        line_start = b == b'\n';
        if b == b'"' || b == b'\'' {
            i += 1;
            while i < bytes.len() && bytes[i] != b && bytes[i] != b'\n' {
                if bytes[i] == b'\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
            continue;
        }
        if ident(b) && !b.is_ascii_digit() {
            let start = i;
            while i < bytes.len() && ident(bytes[i]) {
                i += 1;
            }
            out.push((start, i));
            continue;
        }
        if b.is_ascii_digit() {
            // A number (its suffix letters are not an identifier).
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'.') {
                i += 1;
            }
            continue;
        }
        i += 1;
    }
    out
}

/// GCC's `$` in identifiers (`y$w_buff0`, as in goto-instrument's
/// output, e.g. SV-COMP's `pthread-wmm` benchmarks), which the parser
/// does not accept: each `$` outside string and character literals and
/// line markers becomes `_`, one byte for one, so every span still points
/// at the original text (an identifier in messages shows `_` for `$`).
///
/// Errors: the renaming would make two identifiers one (`a$b` and `a_b`
/// both present), located at the identifier with `$`.
pub fn dollar_identifiers(pp: String, sources: &Sources) -> Result<String, Error> {
    if !pp.contains('$') {
        return Ok(pp);
    }
    let mut bytes = pp.into_bytes();
    // (start, end) of identifiers with `$`, and every identifier's text.
    let mut renamed: Vec<(usize, usize)> = Vec::new();
    let mut all: std::collections::HashSet<Vec<u8>> = std::collections::HashSet::new();
    for (start, end) in identifiers(&bytes) {
        let word = &bytes[start..end];
        if word.contains(&b'$') {
            renamed.push((start, end));
        } else {
            all.insert(word.to_vec());
        }
    }
    for &(start, end) in &renamed {
        let new: Vec<u8> = bytes[start..end]
            .iter()
            .map(|&c| if c == b'$' { b'_' } else { c })
            .collect();
        if all.contains(&new) {
            return Err(sources.error(
                lang_c::span::Span::span(start, end),
                format!(
                    "identifier `{}` contains `$`, read as `_`, but `{}` is another identifier of the file",
                    String::from_utf8_lossy(&bytes[start..end]),
                    String::from_utf8_lossy(&new)
                ),
            ));
        }
        bytes[start..end].copy_from_slice(&new);
    }
    Ok(String::from_utf8(bytes).unwrap_or_default())
}

/// The text of a file that is already preprocessed (`.i`) with its
/// comments blanked: each character of a `/* … */` or `// …` comment
/// outside string and character literals becomes a space (line breaks
/// kept), so offsets, lines and columns are unchanged (GCC's compiler
/// proper accepts comments in `.i` files; SV-COMP's carry a licence
/// header). The parser of preprocessed text does not.
pub fn blank_comments(text: &str) -> String {
    let mut bytes = text.as_bytes().to_vec();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' | b'\'' => {
                let q = bytes[i];
                i += 1;
                while i < bytes.len() && bytes[i] != q && bytes[i] != b'\n' {
                    if bytes[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                i += 1;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    bytes[i] = b' ';
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let mut end = i + 2;
                while end < bytes.len()
                    && !(bytes[end] == b'*' && bytes.get(end + 1) == Some(&b'/'))
                {
                    end += 1;
                }
                let end = (end + 2).min(bytes.len());
                for b in &mut bytes[i..end] {
                    if *b != b'\n' {
                        *b = b' ';
                    }
                }
                i = end;
            }
            _ => i += 1,
        }
    }
    // Only ASCII bytes were replaced, by ASCII spaces: still UTF-8.
    String::from_utf8(bytes).unwrap_or_else(|_| text.to_string())
}

/// GCC's storage class `__thread`, which the parser does not know, as
/// the C11 keyword `_Thread_local` (GCC manual, "Thread-Local Storage":
/// the same meaning). Returns the new text and the offsets in it where
/// a `_Thread_local` replaced a `__thread` (each 5 bytes longer), for
/// [`Sources::set_widened`] to keep columns exact.
pub fn thread_keyword(pp: String) -> (String, Vec<usize>) {
    if !pp.contains("__thread") {
        return (pp, Vec::new());
    }
    let bytes = pp.as_bytes();
    let mut out = String::with_capacity(pp.len() + 64);
    let mut widened = Vec::new();
    let mut last = 0;
    for (start, end) in identifiers(bytes) {
        if &bytes[start..end] == b"__thread" {
            out.push_str(&pp[last..start]);
            widened.push(out.len());
            out.push_str("_Thread_local");
            last = end;
        }
    }
    out.push_str(&pp[last..]);
    (out, widened)
}

/// Rejects input whose brackets nest deeper than [`MAX_NESTING`] or that
/// has a longer run of prefix operators (the parser recurses on both),
/// located at the offending character.
///
/// Errors: a located error naming the limit.
pub fn check_nesting(pp: &str, sources: &Sources) -> Result<(), Error> {
    let mut depth = 0usize;
    let mut run = 0usize;
    // Adjacent `+`/`-` characters: the C parser's time doubles with each
    // two of them on a syntax error (its `-`/`--` choices backtrack).
    let mut signs = 0usize;
    let bytes = pp.as_bytes();
    let mut i = 0;
    let mut line_start = true;
    while i < bytes.len() {
        let b = bytes[i];
        if line_start && b == b'#' {
            // A line marker or pragma: skip the line.
            while i < bytes.len() && bytes[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        line_start = b == b'\n';
        match b {
            b'"' | b'\'' => {
                // Skip a literal.
                i += 1;
                while i < bytes.len() && bytes[i] != b && bytes[i] != b'\n' {
                    if bytes[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                run = 0;
                signs = 0;
            }
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Err(sources.error(
                        lang_c::span::Span::span(i, i + 1),
                        format!("brackets nested deeper than {MAX_NESTING}"),
                    ));
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            b'-' | b'+' | b'!' | b'~' | b'*' | b'&' => {
                signs = if matches!(b, b'-' | b'+') {
                    signs + 1
                } else {
                    0
                };
                if signs > MAX_SIGNS {
                    return Err(sources.error(
                        lang_c::span::Span::span(i, i + 1),
                        format!("more than {MAX_SIGNS} adjacent `+`/`-` characters"),
                    ));
                }
                run += 1;
                if run > MAX_NESTING {
                    return Err(sources.error(
                        lang_c::span::Span::span(i, i + 1),
                        format!("more than {MAX_NESTING} operators in a row"),
                    ));
                }
            }
            b' ' | b'\t' | b'\n' | b'\r' => signs = 0,
            _ => {
                run = 0;
                signs = 0;
            }
        }
        i += 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_map_lines_back() {
        let main = SourceFile::new("a.c", "int x;\n\nint y;\n");
        let pp =
            "# 1 \"<stdin>\"\n# 1 \"/usr/include/h.h\" 1\nint h;\n# 2 \"<stdin>\" 2\n\nint y;\n";
        let s = Sources::new(main, pp);
        let y = pp.rfind("int y").unwrap();
        assert_eq!(s.locate(y), ("<stdin>", 3, 1));
        let h = pp.find("int h").unwrap();
        assert_eq!(s.locate(h).0, "/usr/include/h.h");
        assert_eq!(offset_of("ab\ncd\n", 2, 2), 4);
    }

    #[test]
    fn own_markers_map_into_the_input() {
        // An input that is itself preprocessed: its markers name a file
        // that does not exist; errors point at the input's own line.
        let text = "# 1 \"a.c\"\n# 1 \"b.h\" 1\nint y;\n# 3 \"a.c\" 2\nfoo *p;\n";
        let main = SourceFile::new("in.c", text);
        let pp = "# 1 \"<stdin>\"\n# 1 \"a.c\"\n# 1 \"b.h\" 1\nint y;\n# 3 \"a.c\" 2\nfoo *p;\n";
        let s = Sources::new(main, pp);
        let foo = pp.find("foo").unwrap();
        let e = s.error(lang_c::span::Span::span(foo, foo + 3), "m");
        let Error::Input(e) = e else { panic!("{e}") };
        assert_eq!(e.location(), "in.c:5:1");
        assert_eq!(s.line(lang_c::span::Span::span(foo, foo + 3)), 5);
        let y = pp.find("int y").unwrap();
        assert_eq!(s.in_main(y), Some((3, 1)));
    }

    #[test]
    fn comments_are_blanked_in_place() {
        let t = "int a; // x \"y\"\n/* b\n c */ int s = \"/*\";\n";
        let b = blank_comments(t);
        assert_eq!(b.len(), t.len());
        assert_eq!(b, "int a;         \n    \n      int s = \"/*\";\n");
    }

    #[test]
    fn deep_nesting_is_an_error() {
        let main = SourceFile::new("a.c", "");
        let pp = format!("int x = {}1{};", "(".repeat(300), ")".repeat(300));
        let s = Sources::new(main, &pp);
        assert!(check_nesting(&pp, &s).is_err());
        let ok = "int x = ((1));";
        assert!(check_nesting(ok, &Sources::new(SourceFile::new("a.c", ""), ok)).is_ok());
    }
}
