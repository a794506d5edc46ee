//! Diagnostics: source files, byte spans, and the one error type every
//! front-end and the CLI report through.
//!
//! An [`InputError`] always carries the file, the byte span and a message;
//! [`InputError::render`] prints `file:line:column: error: message` once,
//! followed by the line (clipped) with a caret at the spot. Line and
//! column are 1-based; the column counts characters (not bytes).

use std::fmt;
use std::sync::Arc;

/// A byte range `[start, end)` in a source file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Span {
    /// Byte offset of the first character.
    pub start: usize,
    /// Byte offset one past the last character.
    pub end: usize,
}

impl Span {
    /// A span from `start` to `end` (byte offsets).
    pub fn new(start: usize, end: usize) -> Span {
        Span { start, end }
    }
    /// The smallest span covering both.
    pub fn join(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }
}

/// A source text with the path it was read from (shared, cheap to clone).
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// The path as the user gave it.
    pub path: Arc<str>,
    /// The whole text (invalid UTF-8 replaced by U+FFFD).
    pub text: Arc<str>,
}

impl SourceFile {
    /// Wraps a text with its path.
    pub fn new(path: impl Into<String>, text: impl Into<String>) -> SourceFile {
        SourceFile {
            path: Arc::from(path.into()),
            text: Arc::from(text.into()),
        }
    }

    /// Reads a file; non-UTF-8 bytes are replaced, never rejected silently:
    /// the front-ends then report the replacement character as an error.
    ///
    /// Errors: the file cannot be read ([`Error::Io`]).
    pub fn read(path: &str) -> Result<SourceFile, Error> {
        let bytes = std::fs::read(path).map_err(|e| Error::Io {
            path: path.to_string(),
            message: e.to_string(),
        })?;
        Ok(SourceFile::new(
            path,
            String::from_utf8_lossy(&bytes).into_owned(),
        ))
    }

    /// 1-based (line, column) of a byte offset; column counts characters.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        let mut off = offset;
        while !self.text.is_char_boundary(off) {
            off -= 1;
        }
        let before = &self.text[..off];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
        let col = self.text[line_start..off].chars().count() + 1;
        (line, col)
    }

    /// Builds an error at `span` in this file.
    pub fn error(&self, span: Span, message: impl Into<String>) -> Error {
        Error::Input(Box::new(InputError {
            file: self.clone(),
            span,
            message: message.into(),
            help: None,
        }))
    }

    /// Builds an error at `span` with a help line.
    pub fn error_help(
        &self,
        span: Span,
        message: impl Into<String>,
        help: impl Into<String>,
    ) -> Error {
        Error::Input(Box::new(InputError {
            file: self.clone(),
            span,
            message: message.into(),
            help: Some(help.into()),
        }))
    }
}

/// Characters of the offending line that an error shows (clipped
/// around the error's column).
pub const SNIPPET_WIDTH: usize = 100;

/// An error in a user's input file, located at a span.
#[derive(Debug, Clone)]
pub struct InputError {
    /// The file the error is in.
    pub file: SourceFile,
    /// Where.
    pub span: Span,
    /// What is wrong, one sentence.
    pub message: String,
    /// Optional hint.
    pub help: Option<String>,
}

impl InputError {
    /// `path:line:column` of the error's start.
    pub fn location(&self) -> String {
        let (l, c) = self.file.line_col(self.span.start);
        format!("{}:{}:{}", self.file.path, l, c)
    }

    /// Renders the error once: `file:line:col: error: message`, then the
    /// line with a caret under the span and the help, if any:
    ///
    /// ```text
    /// t.rmm:2:16: error: expected an expression, found `;`
    ///   2 | thread t { x = ; }
    ///     |                ^ here
    ///   = help: …
    /// ```
    ///
    /// The line is clipped to [`SNIPPET_WIDTH`] characters around the
    /// column (`…` marks a cut) and control characters are shown as `?`,
    /// so a 200 KB line or binary garbage prints one short line.
    pub fn render(&self) -> String {
        let text = &self.file.text;
        let mut start = self.span.start.min(text.len());
        while !text.is_char_boundary(start) {
            start -= 1;
        }
        let (line, col) = self.file.line_col(start);
        let mut out = format!("{}: error: {}\n", self.location(), self.message);
        let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
        let mut line_end = text[line_start..]
            .find('\n')
            .map_or(text.len(), |i| line_start + i);
        // A CRLF file: the `\r` is not shown (as `?`).
        if line_end > start && text[..line_end].ends_with('\r') {
            line_end -= 1;
        }
        let chars: Vec<char> = text[line_start..line_end]
            .chars()
            .map(|c| match c {
                '\t' => ' ',
                c if c.is_control() => '?',
                c => c,
            })
            .collect();
        // The caret covers the span's characters on this line (at least one).
        let end = self.span.end.clamp(start, line_end);
        let span_chars = text.get(start..end).map_or(1, |s| s.chars().count()).max(1);
        let col0 = (col - 1).min(chars.len());
        let (lo, hi) = if chars.len() <= SNIPPET_WIDTH {
            (0, chars.len())
        } else {
            let lo = col0.saturating_sub(SNIPPET_WIDTH / 2);
            (lo, (lo + SNIPPET_WIDTH).min(chars.len()))
        };
        let mut shown: String = chars[lo..hi].iter().collect();
        let mut caret_at = col0 - lo;
        if lo > 0 {
            shown.insert(0, '…');
            caret_at += 1;
        }
        if hi < chars.len() {
            shown.push('…');
        }
        let carets = span_chars.min(hi.saturating_sub(col0).max(1));
        let gutter = line.to_string().len();
        out.push_str(&format!("  {line} | {shown}\n"));
        out.push_str(&format!(
            "  {:gutter$} | {}{} here\n",
            "",
            " ".repeat(caret_at),
            "^".repeat(carets)
        ));
        if let Some(h) = &self.help {
            out.push_str(&format!("  = help: {h}\n"));
        }
        out
    }
}

/// Every error the tool reports. Each maps to exit status 2 except
/// [`Error::Unknown`] (3).
#[derive(Debug, Clone, thiserror::Error)]
pub enum Error {
    /// A located error in an input file.
    #[error("{}", .0.render())]
    Input(Box<InputError>),
    /// A file could not be read or written.
    #[error("{path}: {message}")]
    Io {
        /// The path.
        path: String,
        /// The OS error text.
        message: String,
    },
    /// A bad command line (a misspelt option value, conflicting flags,
    /// bound 0, ...): made by the command-line tool only; the library
    /// reports [`Error::Unsupported`], [`Error::UnknownName`] or
    /// [`Error::Tool`].
    #[error("usage error: {0}")]
    Usage(String),
    /// A request the library cannot answer as made: an option value
    /// outside the range an engine or front-end handles (a width, a number
    /// of PGAS nodes, a missing node count), a program or model construct
    /// an engine or backend does not model where the program or model has
    /// no source to locate it in (otherwise it is an [`Error::Input`]), a
    /// backend this build lacks. The message says what and why.
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// A name that names nothing the library knows: a memory model, a
    /// solver backend, an input format. The message lists the known
    /// names.
    #[error("error: {0}")]
    UnknownName(String),
    /// An external program or worker thread a request needs could not run
    /// or failed: no C preprocessor, the preprocessor failed without a
    /// location in the input, the C front-end's thread could not start or
    /// stopped. The message names the program.
    #[error("error: {0}")]
    Tool(String),
    /// A resource limit or timeout ended the check without an answer.
    #[error("unknown: {0}")]
    Unknown(String),
}

impl Error {
    /// The process exit status for this error (DESIGN.md: 2 input, usage,
    /// unsupported requests, unknown names, tool failures; 3 unknown).
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Unknown(_) => 3,
            _ => 2,
        }
    }
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}", self.start, self.end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_chars() {
        let f = SourceFile::new("a.rmm", "ab\nçd x\n");
        assert_eq!(f.line_col(0), (1, 1));
        assert_eq!(f.line_col(3), (2, 1));
        // 'x' is after "çd " where ç is two bytes.
        let x = f.text.find('x').unwrap();
        assert_eq!(f.line_col(x), (2, 4));
    }

    #[test]
    fn render_has_location_and_pointer() {
        let f = SourceFile::new("p.rmm", "thread t\n  foo bar\n");
        let e = f.error(Span::new(11, 14), "unknown command `foo`");
        let s = e.to_string();
        assert!(
            s.starts_with("p.rmm:2:3: error: unknown command `foo`"),
            "{s}"
        );
        assert!(s.contains("here"), "{s}");
        assert_eq!(e.exit_code(), 2);
    }

    #[test]
    fn crlf_lines_show_no_carriage_return() {
        let f = SourceFile::new("p.c", "int x;\r\nfoo *p;\r\n");
        let Error::Input(e) = f.error(Span::new(8, 11), "m") else {
            unreachable!()
        };
        let r = e.render();
        assert!(r.contains("| foo *p;\n"), "{r}");
        assert!(!r.contains('?'), "{r}");
    }
}
