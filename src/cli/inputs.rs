//! Expanding the command line's inputs: plain files, directories (every
//! file inside with a known extension, sorted by name) and `@list` files
//! (one path per line, relative to the list's directory; `#` comments).

use bmc_rmm::diag::Error;
use std::path::Path;

/// Expands `args` into a list of files, keeping the given order (each
/// directory's files sorted by name).
///
/// Errors: a missing file or directory, an unreadable `@list`.
pub fn expand(args: &[String], exts: &[&str]) -> Result<Vec<String>, Error> {
    let mut out = Vec::new();
    for a in args {
        if let Some(list) = a.strip_prefix('@') {
            let text = std::fs::read_to_string(list).map_err(|e| Error::Io {
                path: list.to_string(),
                message: e.to_string(),
            })?;
            let base = Path::new(list).parent().unwrap_or(Path::new(""));
            let items: Vec<String> = text
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty() && !l.starts_with('#'))
                .map(|l| {
                    if Path::new(l).is_absolute() {
                        l.to_string()
                    } else {
                        base.join(l).to_string_lossy().into_owned()
                    }
                })
                .collect();
            out.extend(expand(&items, exts)?);
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
    Ok(out)
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
}
