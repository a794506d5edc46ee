//! Expanding the command line's inputs: plain files, directories (every
//! file inside with a known extension, sorted by name) and `@list` files
//! (one path per line, relative to the list's directory; `#` comments).

use bmc_rmm::diag::{Error, SourceFile, Span};
use std::path::{Path, PathBuf};

/// Expands the inputs (`.rmm`/`.txt` in directories), selects this
/// shard's ([`crate::cli::shard::Shard::select`]) and loads them; a bad
/// input stops the run before any check.
///
/// Errors: those of [`expand`], [`crate::cli::shard::Shard::select`] and
/// [`bmc_rmm::frontend::load_program`].
pub fn load_sharded(
    files: &[String],
    format: Option<bmc_rmm::frontend::Format>,
    width: u32,
    copts: &bmc_rmm::frontend::c::Options,
    shard: &crate::cli::shard::ShardArgs,
    describe: crate::cli::shard::Describe,
) -> Result<
    (
        crate::cli::shard::Shard,
        Vec<(String, bmc_rmm::program::Program)>,
    ),
    Error,
> {
    let files = expand(files, &["rmm", "txt"])?;
    let (shard, files) = crate::cli::shard::Shard::select(shard, describe, files)?;
    let width = bmc_rmm::program::Width(width);
    let progs = files
        .into_iter()
        .map(|f| bmc_rmm::frontend::load_program_with(&f, format, width, copts).map(|p| (f, p)))
        .collect::<Result<_, _>>()?;
    Ok((shard, progs))
}

/// Deepest nesting of `@list` files inside `@list` files.
pub const MAX_LIST_DEPTH: usize = 32;

/// Expands `args` into a list of files, keeping the given order (each
/// directory's files sorted by name).
///
/// Errors: a missing file or directory, an unreadable `@list`; a list that
/// includes itself (directly or not) or lists nested deeper than
/// [`MAX_LIST_DEPTH`] (located at the offending line).
pub fn expand(args: &[String], exts: &[&str]) -> Result<Vec<String>, Error> {
    let mut out = Vec::new();
    expand_into(args, exts, &mut Vec::new(), &mut out)?;
    Ok(out)
}

/// One argument of [`expand`]: where it came from, for errors.
type Origin<'a> = Option<(&'a SourceFile, Span)>;

fn expand_into(
    args: &[String],
    exts: &[&str],
    chain: &mut Vec<PathBuf>,
    out: &mut Vec<String>,
) -> Result<(), Error> {
    let items: Vec<(String, Origin)> = args.iter().map(|a| (a.clone(), None)).collect();
    expand_items(items, exts, chain, out)
}

fn expand_items(
    args: Vec<(String, Origin)>,
    exts: &[&str],
    chain: &mut Vec<PathBuf>,
    out: &mut Vec<String>,
) -> Result<(), Error> {
    for (a, origin) in args {
        let a = &a;
        if let Some(list) = a.strip_prefix('@') {
            let canon = Path::new(list)
                .canonicalize()
                .unwrap_or_else(|_| list.into());
            let nested = |msg: String| match origin {
                Some((src, span)) => src.error(span, msg),
                None => Error::Usage(msg),
            };
            if chain.contains(&canon) {
                return Err(nested(format!("the list `{list}` includes itself")));
            }
            if chain.len() >= MAX_LIST_DEPTH {
                return Err(nested(format!(
                    "lists nested deeper than {MAX_LIST_DEPTH} levels at `{list}`"
                )));
            }
            let src = SourceFile::read(list)?;
            let base = Path::new(list).parent().unwrap_or(Path::new(""));
            let mut items = Vec::new();
            let mut offset = 0;
            for raw in src.text.split_inclusive('\n') {
                let l = raw.trim();
                let start = offset + (raw.len() - raw.trim_start().len());
                offset += raw.len();
                if l.is_empty() || l.starts_with('#') {
                    continue;
                }
                let path = if Path::new(l.trim_start_matches('@')).is_absolute() {
                    l.to_string()
                } else if let Some(inner) = l.strip_prefix('@') {
                    format!("@{}", base.join(inner).to_string_lossy())
                } else {
                    base.join(l).to_string_lossy().into_owned()
                };
                items.push((path, Span::new(start, start + l.len())));
            }
            chain.push(canon);
            let items = (items.into_iter())
                .map(|(p, sp)| (p, Some((&src, sp))))
                .collect();
            let r = expand_items(items, exts, chain, out);
            chain.pop();
            r?;
            continue;
        }
        let p = Path::new(a);
        if p.is_dir() {
            let mut files: Vec<String> = std::fs::read_dir(p)
                .map_err(|e| Error::Io {
                    path: a.clone(),
                    message: e.to_string(),
                })?
                .filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|f| {
                    f.is_file() && f.extension().is_some_and(|x| exts.iter().any(|e| x == *e))
                })
                .map(|f| f.to_string_lossy().into_owned())
                .collect();
            files.sort();
            out.extend(files);
        } else if p.exists() {
            out.push(a.clone());
        } else {
            return Err(Error::Io {
                path: a.clone(),
                message: "No such file or directory".into(),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expands_dirs_and_lists() {
        let d = tempfile::tempdir().unwrap();
        let dp = d.path();
        std::fs::write(dp.join("b.litmus"), "").unwrap();
        std::fs::write(dp.join("a.litmus"), "").unwrap();
        std::fs::write(dp.join("c.txt"), "").unwrap();
        std::fs::write(dp.join("list"), "# tests\nb.litmus\n\nc.txt\n").unwrap();
        let got = expand(&[dp.to_string_lossy().into_owned()], &["litmus"]).unwrap();
        assert_eq!(got.len(), 2);
        assert!(got[0].ends_with("a.litmus") && got[1].ends_with("b.litmus"));
        let got = expand(&[format!("@{}", dp.join("list").display())], &["litmus"]).unwrap();
        assert!(got[0].ends_with("b.litmus") && got[1].ends_with("c.txt"));
        assert!(expand(&["/nonexistent/x".into()], &[]).is_err());
    }

    #[test]
    fn self_including_lists_are_located_errors() {
        let d = tempfile::tempdir().unwrap();
        let dp = d.path();
        std::fs::write(dp.join("a.litmus"), "").unwrap();
        std::fs::write(dp.join("self.lst"), "a.litmus\n@self.lst\n").unwrap();
        std::fs::write(dp.join("x.lst"), "@y.lst\n").unwrap();
        std::fs::write(dp.join("y.lst"), "a.litmus\n  @x.lst\n").unwrap();
        for (list, line_col) in [("self.lst", ":2:1"), ("x.lst", ":2:3")] {
            let arg = format!("@{}", dp.join(list).display());
            match expand(&[arg], &["litmus"]) {
                Err(Error::Input(e)) => {
                    assert!(e.message.contains("includes itself"), "{}", e.message);
                    assert!(e.location().ends_with(line_col), "{}", e.location());
                }
                other => panic!("{list}: {other:?}"),
            }
        }
        // Nested lists that do not cycle are expanded.
        std::fs::write(dp.join("outer.lst"), "@inner.lst\n").unwrap();
        std::fs::write(dp.join("inner.lst"), "a.litmus\n").unwrap();
        let got = expand(&[format!("@{}", dp.join("outer.lst").display())], &[]).unwrap();
        assert_eq!(got.len(), 1);
    }
}
