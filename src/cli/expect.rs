//! Expectations files (`--expect FILE.tsv`, `--write-expect FILE`): the
//! corpus's `arch file model verdict` format (tab-separated, a header
//! line, extra columns ignored).
//!
//! * `file` is relative to the TSV's directory; an input matches a row by
//!   that path, or else by its base name.
//! * `model` is herd's name (`x86tso.cat`, `sc.cat`, `ppc.cat`) or ours
//!   (`tso`, `sc`, `power`); a model file matches by its file name.
//! * `verdict` is herd's word for litmus tests (`Allowed`, `Forbidden`)
//!   and ours for programs (`reachable`/`unreachable` for reach,
//!   `robust`/`not-robust` for robust; `violation`/`no-violation` are
//!   accepted for either), or `unknown`. Case, `_` and spaces are ignored.

use super::render::verdict_word;
use bmc_rmm::diag::{Error, SourceFile, Span};
use bmc_rmm::engines::bounded::CheckKind;
use bmc_rmm::litmus::herd::Verdict;
use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

/// The question a verdict answers: a litmus test's condition, or a check
/// of a program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    /// A litmus test's verdict (herd's `Allowed`/`Forbidden`).
    Litmus,
    /// `reach` or `robust` on a program.
    Program(CheckKind),
}

impl Check {
    /// Every question, in the order rows are looked up.
    pub const ALL: [Check; 3] = [
        Check::Litmus,
        Check::Program(CheckKind::Reach),
        Check::Program(CheckKind::Robust),
    ];

    /// The check's name as printed (`litmus`, `reach`, `robust`).
    pub fn name(self) -> &'static str {
        match self {
            Check::Litmus => "litmus",
            Check::Program(k) => k.name(),
        }
    }
}

impl From<CheckKind> for Check {
    fn from(k: CheckKind) -> Check {
        Check::Program(k)
    }
}

/// The canonical spelling of `word` as a verdict of `check`, or `None`
/// when the word is not in that check's vocabulary: herd's words for
/// litmus tests, [`verdict_word`]'s for programs, case-insensitive, `_`
/// and spaces read as `-`, and `violation` / `no-violation` accepted for
/// either program check.
pub fn canonical(word: &str, check: Check) -> Option<&'static str> {
    let n: String = word
        .trim()
        .chars()
        .map(|c| match c {
            '_' | ' ' => '-',
            c => c.to_ascii_lowercase(),
        })
        .collect();
    match check {
        Check::Litmus => [Some(Verdict::Allowed), Some(Verdict::Forbidden), None]
            .into_iter()
            .map(|v| v.map_or("Unknown", Verdict::as_str))
            .find(|w| w.to_ascii_lowercase() == n),
        Check::Program(k) => {
            use bmc_rmm::engines::bounded::Verdict as V;
            [V::Violation, V::NoViolation, V::Unknown]
                .into_iter()
                .find(|&v| {
                    let generic = match v {
                        V::Violation => "violation",
                        V::NoViolation => "no-violation",
                        V::Unknown => "unknown",
                    };
                    n == verdict_word(k, v) || n == generic
                })
                .map(|v| verdict_word(k, v))
        }
    }
}

/// The names a model may have in an expectations file: for a built-in
/// model, herd's file name first (`tso` → `x86tso.cat`, `sc` → `sc.cat`,
/// `power` → `ppc.cat`) then ours; for a model file, its file name and
/// stem. The first name is the one `--write-expect` records.
pub fn model_aliases(model: &str, model_file: Option<&str>) -> Vec<String> {
    if let Some(f) = model_file {
        let p = Path::new(f);
        let mut v = vec![p
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| f.to_string())];
        if let Some(s) = p.file_stem() {
            v.push(s.to_string_lossy().into_owned());
        }
        return v;
    }
    let names: &[&str] = match bmc_rmm::cat::builtin_name(&model.to_ascii_lowercase()) {
        Some("tso") => &[
            "x86tso.cat",
            "tso",
            "x86tso",
            "x86-tso",
            "tso.cat",
            // herd's x86-TSO for mixed-size accesses (X86_64 tests).
            "x86tso-mixed.cat",
        ],
        Some("sc") => &["sc.cat", "sc"],
        Some("power") => &["ppc.cat", "power", "ppc", "power.cat"],
        _ => &[],
    };
    if names.is_empty() {
        vec![model.to_string(), format!("{model}.cat")]
    } else {
        names.iter().map(|s| s.to_string()).collect()
    }
}

/// One row of an expectations file (its first column, `arch`, is
/// informational: rows are matched by file and model).
#[derive(Clone, Debug)]
pub struct Row {
    /// Second column: path relative to the file's directory.
    pub file: String,
    /// Third column: the model's name.
    pub model: String,
    /// Fourth column: the verdict word as written.
    pub verdict: String,
    /// 1-based line number in the TSV.
    pub line: usize,
}

/// A parsed expectations file, indexed for lookups.
#[derive(Clone, Debug)]
pub struct Expectations {
    /// The path it was read from.
    pub path: String,
    /// The rows, in file order.
    pub rows: Vec<Row>,
    by_path: HashMap<PathBuf, Vec<usize>>,
    by_name: HashMap<String, Vec<usize>>,
}

const HEADER: [&str; 4] = ["arch", "file", "model", "verdict"];

fn fields(line: &str) -> Vec<(usize, &str)> {
    // (byte offset in the line, field); tabs if any, else whitespace.
    let mut out = Vec::new();
    if line.contains('\t') {
        let mut off = 0;
        for f in line.split('\t') {
            let t = f.trim();
            let lead = f.len() - f.trim_start().len();
            out.push((off + lead, t));
            off += f.len() + 1;
        }
    } else {
        let mut off = 0;
        for f in line.split(' ') {
            if !f.is_empty() {
                out.push((off, f));
            }
            off += f.len() + 1;
        }
    }
    out
}

impl Expectations {
    /// Reads and parses an expectations file.
    ///
    /// Errors: the file cannot be read ([`Error::Io`]); a malformed line
    /// (fewer than 4 columns, an empty field, an unknown verdict word),
    /// located at file:line:column ([`Error::Input`]).
    pub fn read(path: &str) -> Result<Expectations, Error> {
        Expectations::parse(&SourceFile::read(path)?)
    }

    /// Parses the text of an expectations file (see [`Expectations::read`]).
    /// Blank lines and lines starting with `#` are skipped; a first line
    /// `arch file model verdict` is the header.
    ///
    /// Errors: as [`Expectations::read`].
    pub fn parse(src: &SourceFile) -> Result<Expectations, Error> {
        let mut rows = Vec::new();
        let mut off = 0;
        let mut first = true;
        for (i, raw) in src.text.split_inclusive('\n').enumerate() {
            let start = off;
            off += raw.len();
            let line = raw.trim_end_matches(['\n', '\r']);
            if line.trim().is_empty() || line.trim_start().starts_with('#') {
                continue;
            }
            let fs = fields(line);
            if first {
                first = false;
                let is_header = fs.len() >= 4
                    && fs
                        .iter()
                        .zip(HEADER)
                        .all(|((_, f), h)| f.eq_ignore_ascii_case(h));
                if is_header {
                    continue;
                }
            }
            if fs.len() < 4 {
                let at = start + line.len();
                return Err(src.error_help(
                    Span::new(at, at),
                    format!(
                        "expected 4 columns `arch file model verdict`, found {}",
                        fs.len()
                    ),
                    "columns are separated by tabs; extra columns are ignored",
                ));
            }
            for (k, (o, f)) in fs.iter().take(4).enumerate() {
                if f.is_empty() {
                    return Err(src.error(
                        Span::new(start + o, start + o),
                        format!("empty `{}` column", HEADER[k]),
                    ));
                }
            }
            let (vo, v) = fs[3];
            if Check::ALL.iter().all(|c| canonical(v, *c).is_none()) {
                return Err(src.error_help(
                    Span::new(start + vo, start + vo + v.len()),
                    format!("unknown verdict `{v}`"),
                    "verdicts: Allowed, Forbidden (litmus); reachable, unreachable (reach); robust, not-robust (robust); unknown",
                ));
            }
            rows.push(Row {
                file: fs[1].1.to_string(),
                model: fs[2].1.to_string(),
                verdict: v.to_string(),
                line: i + 1,
            });
        }
        let dir = Path::new(&*src.path)
            .parent()
            .unwrap_or(Path::new(""))
            .to_path_buf();
        let mut by_path: HashMap<PathBuf, Vec<usize>> = HashMap::new();
        let mut by_name: HashMap<String, Vec<usize>> = HashMap::new();
        for (k, r) in rows.iter().enumerate() {
            by_path.entry(key(&dir.join(&r.file))).or_default().push(k);
            if let Some(n) = Path::new(&r.file).file_name() {
                by_name
                    .entry(n.to_string_lossy().into_owned())
                    .or_default()
                    .push(k);
            }
        }
        Ok(Expectations {
            path: src.path.to_string(),
            rows,
            by_path,
            by_name,
        })
    }

    /// The row for input `file` under a model with names `aliases` (see
    /// [`model_aliases`]) whose verdict belongs to `check`: by path
    /// (relative to the TSV's directory); only when no row names that path
    /// (under any model), by base name (an input outside the TSV's tree).
    pub fn lookup(&self, file: &str, aliases: &[String], check: Check) -> Option<&Row> {
        let fits = |k: &usize| {
            let r = &self.rows[*k];
            aliases.iter().any(|a| a.eq_ignore_ascii_case(&r.model))
                && canonical(&r.verdict, check).is_some()
        };
        let k = match self.by_path.get(&key(Path::new(file))) {
            Some(ks) => ks.iter().find(|k| fits(k))?,
            None => {
                let name = Path::new(file).file_name()?.to_string_lossy().into_owned();
                self.by_name.get(&name)?.iter().find(|k| fits(k))?
            }
        };
        Some(&self.rows[*k])
    }

    /// `path:line` of a row, for messages.
    pub fn location(&self, r: &Row) -> String {
        format!("{}:{}", self.path, r.line)
    }
}

/// A path normalised for comparison: canonical when it exists, else
/// lexically cleaned and made absolute.
fn key(p: &Path) -> PathBuf {
    if let Ok(c) = p.canonicalize() {
        return c;
    }
    let abs = if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(p)
    };
    let mut out = PathBuf::new();
    for c in abs.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

/// `path` relative to directory `base` (with `..` where needed), both
/// normalised first; `/`-separated.
fn relative_to(path: &Path, base: &Path) -> String {
    let (p, b) = (key(path), key(base));
    let pc: Vec<_> = p.components().collect();
    let bc: Vec<_> = b.components().collect();
    let common = pc.iter().zip(&bc).take_while(|(x, y)| x == y).count();
    if common == 0 {
        return p.to_string_lossy().into_owned();
    }
    let mut parts: Vec<String> = vec!["..".to_string(); bc.len() - common];
    parts.extend(
        pc[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    parts.join("/")
}

/// One result to record with `--write-expect`.
#[derive(Clone, Debug)]
pub struct Record {
    /// `arch` column (litmus architecture, or the program's format).
    pub arch: String,
    /// The input path as given on the command line.
    pub file: String,
    /// The model's name (first of [`model_aliases`]).
    pub model: String,
    /// The verdict word.
    pub verdict: String,
}

/// Writes `records` to `path` in the `arch file model verdict` format
/// (file paths relative to `path`'s directory), atomically: a temporary
/// file in the same directory is written, then renamed over `path`.
///
/// Errors: the file cannot be written or renamed ([`Error::Io`]).
pub fn write(path: &str, records: &[Record]) -> Result<(), Error> {
    let p = Path::new(path);
    let dir = match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut text = String::from("arch\tfile\tmodel\tverdict\n");
    for r in records {
        text.push_str(&format!(
            "{}\t{}\t{}\t{}\n",
            r.arch,
            relative_to(Path::new(&r.file), &dir),
            r.model,
            r.verdict
        ));
    }
    super::output::write_file(path, &text)
}

/// The comparison of a run's results with an expectations file.
#[derive(Clone, Debug, Default)]
pub struct Comparison {
    /// Results equal to their row.
    pub matched: usize,
    /// Results without a row.
    pub missing: usize,
    /// Text lines `file [model] check: expected X (tsv:line), got Y`.
    pub mismatches: Vec<String>,
}

/// What one result's comparison gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Compared {
    /// Same verdict as the row.
    Match,
    /// A different verdict: the row's word and its location.
    Mismatch {
        /// The expected verdict (canonical spelling).
        expected: String,
        /// `tsv:line`.
        location: String,
    },
    /// No row for this input and model.
    Missing,
}

impl Compared {
    /// Adds `expected` (the row's verdict, or null) and `match` to a JSON
    /// record whose own verdict word is `word`.
    pub fn annotate(&self, rec: &mut serde_json::Value, word: &str) {
        rec["expected"] = match self {
            Compared::Match => serde_json::json!(word),
            Compared::Mismatch { expected, .. } => serde_json::json!(expected),
            Compared::Missing => serde_json::Value::Null,
        };
        rec["match"] = serde_json::json!(!matches!(self, Compared::Mismatch { .. }));
    }
}

impl Comparison {
    /// Compares one result (`got`, a verdict word of `check`) for input
    /// `file` under `model` (display name) with names `aliases`, and
    /// records the outcome.
    pub fn compare(
        &mut self,
        exp: &Expectations,
        file: &str,
        model: &str,
        aliases: &[String],
        check: Check,
        got: &str,
    ) -> Compared {
        let Some(row) = exp.lookup(file, aliases, check) else {
            self.missing += 1;
            return Compared::Missing;
        };
        let want = canonical(&row.verdict, check).unwrap_or("unknown");
        let have = canonical(got, check).unwrap_or("unknown");
        if want == have {
            self.matched += 1;
            Compared::Match
        } else {
            let location = exp.location(row);
            self.mismatches.push(format!(
                "mismatch: {file} [{model}] {}: expected {want} ({location}), got {have}",
                check.name()
            ));
            Compared::Mismatch {
                expected: want.to_string(),
                location,
            }
        }
    }

    /// `expect: N matched, M mismatches, K without expectation (tsv)`.
    pub fn render(&self, exp: &Expectations) -> String {
        format!(
            "expect: {} matched, {} mismatches, {} without expectation ({})",
            self.matched,
            self.mismatches.len(),
            self.missing,
            exp.path
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_looks_up() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir(d.path().join("X86")).unwrap();
        std::fs::write(d.path().join("X86/SB.litmus"), "").unwrap();
        let tsv = d.path().join("E.tsv");
        std::fs::write(
            &tsv,
            "arch\tfile\tmodel\tverdict\textra\nX86\tX86/SB.litmus\tx86tso.cat\tAllowed\tz\nX86\tX86/SB.litmus\tsc.cat\tForbidden\nnative\tp.rmm\ttso\tnot-robust\nnative\tp.rmm\ttso\treachable\n",
        )
        .unwrap();
        let e = Expectations::read(&tsv.to_string_lossy()).unwrap();
        assert_eq!(e.rows.len(), 4);
        let sb = d
            .path()
            .join("X86/SB.litmus")
            .to_string_lossy()
            .into_owned();
        let tso = model_aliases("tso", None);
        let r = e.lookup(&sb, &tso, Check::Litmus).unwrap();
        assert_eq!((r.verdict.as_str(), r.line), ("Allowed", 2));
        let r = e
            .lookup(
                "elsewhere/SB.litmus",
                &model_aliases("sc", None),
                Check::Litmus,
            )
            .unwrap();
        assert_eq!(r.verdict, "Forbidden");
        assert!(e
            .lookup(&sb, &model_aliases("power", None), Check::Litmus)
            .is_none());
        let p = e
            .lookup("p.rmm", &tso, Check::Program(CheckKind::Reach))
            .unwrap();
        assert_eq!(p.verdict, "reachable");
        let p = e
            .lookup("p.rmm", &tso, Check::Program(CheckKind::Robust))
            .unwrap();
        assert_eq!(p.verdict, "not-robust");
        let mut c = Comparison::default();
        assert_eq!(
            c.compare(&e, &sb, "tso", &tso, Check::Litmus, "allowed"),
            Compared::Match
        );
        assert!(matches!(
            c.compare(
                &e,
                "p.rmm",
                "tso",
                &tso,
                Check::Program(CheckKind::Robust),
                "robust"
            ),
            Compared::Mismatch { .. }
        ));
        assert_eq!(
            c.compare(
                &e,
                "q.rmm",
                "tso",
                &tso,
                Check::Program(CheckKind::Robust),
                "robust"
            ),
            Compared::Missing
        );
        assert_eq!((c.matched, c.mismatches.len(), c.missing), (1, 1, 1));
    }

    #[test]
    fn malformed_lines_are_located() {
        let src = SourceFile::new(
            "E.tsv",
            "arch\tfile\tmodel\tverdict\nX86\tA.litmus\tsc.cat\n",
        );
        let e = Expectations::parse(&src).unwrap_err().to_string();
        assert!(e.starts_with("E.tsv:2:"), "{e}");
        assert!(e.contains("expected 4 columns"), "{e}");
        let src = SourceFile::new("E.tsv", "X86\tA.litmus\tsc.cat\tMaybe\n");
        let e = Expectations::parse(&src).unwrap_err().to_string();
        assert!(
            e.starts_with("E.tsv:1:21: error: unknown verdict `Maybe`"),
            "{e}"
        );
    }

    #[test]
    fn writes_relative_paths_atomically() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir(d.path().join("t")).unwrap();
        std::fs::write(d.path().join("t/a.litmus"), "").unwrap();
        let out = d.path().join("out.tsv");
        let rec = Record {
            arch: "X86".into(),
            file: d.path().join("t/a.litmus").to_string_lossy().into_owned(),
            model: "x86tso.cat".into(),
            verdict: "Allowed".into(),
        };
        write(&out.to_string_lossy(), &[rec]).unwrap();
        let text = std::fs::read_to_string(&out).unwrap();
        assert_eq!(
            text,
            "arch\tfile\tmodel\tverdict\nX86\tt/a.litmus\tx86tso.cat\tAllowed\n"
        );
        let names: Vec<_> = std::fs::read_dir(d.path()).unwrap().collect();
        assert_eq!(names.len(), 2, "no temporary file left");
        assert!(write("/nonexistent-dir/x.tsv", &[]).is_err());
    }
}
