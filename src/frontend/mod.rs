//! Front-ends: source text → [`Program`](crate::program::Program).
//!
//! The format is picked from the file extension or content
//! ([`Format::detect`]); `--format` forces one.
//! * `.rmm` (or content starting with `shared`/`thread NAME {`): the native
//!   language ([`native`], docs/language.md);
//! * `.txt` (or content with `transition`): Trencher's format ([`trencher`]);
//! * `.litmus`: herd litmus tests (handled by [`crate::litmus`], which also
//!   keeps the final condition);
//! * content whose first word (after comments) is `forbidden`: Memorax's
//!   RMM language ([`memorax`], docs/memorax.md), whatever the extension
//!   (Memorax files are `.rmm` too);
//! * `.c`: C/pthreads programs ([`c`], docs/c.md), through the system's C
//!   preprocessor; `.i`: C already preprocessed (parsed as it is);
//! * any other extension: content that reads as C ([`c::looks_like`]: a
//!   leading `#include` or line marker, or a C declaration keyword) is C.

pub mod c;
pub mod c_litmus;
pub mod litmus;
pub mod memorax;
pub mod native;
pub mod trencher;

use crate::diag::{Error, SourceFile};
use crate::program::{Program, Width};

/// An input format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// The native `.rmm` language.
    Native,
    /// Trencher's `.txt` format.
    Trencher,
    /// A herd litmus test.
    Litmus,
    /// Memorax's RMM language.
    Memorax,
    /// C/pthreads (a subset, docs/c.md).
    C,
}

impl Format {
    /// The name of `--format` and of the `arch` column of expectations
    /// files for programs (`native`, `trencher`, `litmus`).
    pub fn name(self) -> &'static str {
        match self {
            Format::Native => "native",
            Format::Trencher => "trencher",
            Format::Litmus => "litmus",
            Format::Memorax => "memorax",
            Format::C => "c",
        }
    }

    /// Picks the format: Memorax by content (a leading `forbidden`),
    /// else from the extension (`.c`, `.i`, `.litmus`, `.txt`, `.rmm`),
    /// then from the content (litmus header, C, Trencher, else native).
    pub fn detect(path: &str, text: &str) -> Format {
        if memorax::looks_like(text) {
            return Format::Memorax;
        }
        let lower = path.to_ascii_lowercase();
        if c::is_c_path(&lower) {
            return Format::C;
        }
        if lower.ends_with(".litmus") {
            return Format::Litmus;
        }
        if lower.ends_with(".txt") {
            return Format::Trencher;
        }
        if lower.ends_with(".rmm") {
            return Format::Native;
        }
        let first = text
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with("//"))
            .unwrap_or("");
        let mut words = first.split_whitespace();
        match words.next() {
            Some("X86" | "PPC" | "X86_64" | "x86" | "ppc" | "AArch64") => Format::Litmus,
            _ if c::looks_like(text) => Format::C,
            _ if text.contains("transition") && !text.contains('{') => Format::Trencher,
            _ => Format::Native,
        }
    }
}

impl std::str::FromStr for Format {
    type Err = Error;

    /// `native`, `trencher`, `litmus` or `memorax`.
    fn from_str(s: &str) -> Result<Format, Error> {
        [
            Format::Native,
            Format::Trencher,
            Format::Litmus,
            Format::Memorax,
            Format::C,
        ]
        .into_iter()
        .find(|f| f.name() == s)
        .ok_or_else(|| {
            Error::UnknownName(format!(
                "unknown format `{s}`; formats: native, trencher, litmus, memorax, c"
            ))
        })
    }
}

/// Parses `src` as a program of the given (or detected) format.
///
/// Errors: syntax and semantic errors of the front-end, located;
/// [`Format::Litmus`] is lowered through [`crate::litmus`].
pub fn parse_program(
    src: &SourceFile,
    format: Option<Format>,
    width: Width,
) -> Result<Program, Error> {
    parse_program_with(src, format, width, &c::Options::default())
}

/// [`parse_program`] with the C front-end's options (`-D`, `--unwind`,
/// spin loops); other formats ignore them.
///
/// Errors: as [`parse_program`].
pub fn parse_program_with(
    src: &SourceFile,
    format: Option<Format>,
    width: Width,
    copts: &c::Options,
) -> Result<Program, Error> {
    match format.unwrap_or_else(|| Format::detect(&src.path, &src.text)) {
        Format::C => c::parse(src, width, copts),
        Format::Native => native::parse(src, width),
        Format::Trencher => trencher::parse(src, width),
        Format::Litmus => litmus::parse(src, width).map(|t| t.program),
        Format::Memorax => memorax::parse_file(src, width),
    }
}

/// Reads and parses a file.
///
/// Errors: the file cannot be read, or [`parse_program`] fails.
pub fn load_program(path: &str, format: Option<Format>, width: Width) -> Result<Program, Error> {
    load_program_with(path, format, width, &c::Options::default())
}

/// [`load_program`] with the C front-end's options.
///
/// Errors: as [`load_program`].
pub fn load_program_with(
    path: &str,
    format: Option<Format>,
    width: Width,
    copts: &c::Options,
) -> Result<Program, Error> {
    let src = SourceFile::read(path)?;
    parse_program_with(&src, format, width, copts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_by_extension_and_content() {
        assert_eq!(Format::detect("a.txt", ""), Format::Trencher);
        assert_eq!(Format::detect("a.litmus", ""), Format::Litmus);
        assert_eq!(Format::detect("a.rmm", ""), Format::Native);
        assert_eq!(Format::detect("a", "X86 SB\n"), Format::Litmus);
        assert_eq!(
            Format::detect("a", "thread t\ninitial q\ntransition q q noop\nend"),
            Format::Trencher
        );
        assert_eq!(
            Format::detect("a", "shared x;\nthread t { x = 1; }"),
            Format::Native
        );
        assert_eq!(
            Format::detect("a.rmm", "/* c */\nforbidden\n  CS CS\nprocess"),
            Format::Memorax
        );
        assert_eq!(Format::detect("t.i", "int x;"), Format::C);
        assert_eq!(Format::detect("T.I", ""), Format::C);
        assert_eq!(
            Format::detect("a", "/* a\n b */\n#include <pthread.h>\n"),
            Format::C
        );
        assert_eq!(Format::detect("a", "# 1 \"t.c\"\nint x;"), Format::C);
        assert_eq!(
            Format::detect("a", "extern void abort(void);\nint main() {}"),
            Format::C
        );
        assert_eq!(
            Format::detect("a", "__extension__ typedef int t;"),
            Format::C
        );
        assert_eq!(
            Format::detect("a", "// x\nshared x;\nthread t { }"),
            Format::Native
        );
    }
}
