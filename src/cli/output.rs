//! Writing output files (`--dot`, `--write-expect`, `fences --emit`), one
//! way for every command:
//!
//! * a regular file (or a new path) is replaced atomically: the text goes
//!   to a hidden temporary sibling (`.NAME.PID.tmp`), is flushed to disk,
//!   and is renamed over the file, so an error or an interrupted run never
//!   leaves a half-written file; a symbolic link is followed, so the link
//!   stays and its target is replaced;
//! * anything else that exists (a character device such as `/dev/stdout`
//!   or `/dev/null`, a FIFO) is written in place, never replaced;
//! * every write error (ENOSPC on `/dev/full`, a missing directory, no
//!   permission) is an [`Error::Io`] naming the path (exit 2);
//! * a run interrupted by SIGINT, SIGTERM or SIGHUP while a temporary file
//!   exists removes it before exiting (`install_cleanup`); only SIGKILL
//!   can leave one behind (the target is never half-written either way),
//!   and the next write of the same file removes it (`remove_stale`, on
//!   Linux: a `.NAME.PID.tmp` whose process is gone).

use bmc_rmm::diag::Error;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, Once};

/// Temporary files being written, removed if the run is interrupted.
static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Installs (once, when the first temporary file is made, so that runs
/// writing no file pay nothing) the handler that removes pending
/// temporary files and exits with status 130 on SIGINT, SIGTERM or
/// SIGHUP; a failure to install it is not an error (the files stay
/// atomic).
fn install_cleanup() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(|| {
        let _ = ctrlc::set_handler(|| {
            if let Ok(files) = PENDING.lock() {
                for f in files.iter() {
                    let _ = std::fs::remove_file(f);
                }
            }
            std::process::exit(130);
        });
    });
}

/// Writes `text` to `path` (module docs).
///
/// Errors: [`Error::Io`] with the path and the OS error.
pub fn write_file(path: &str, text: &str) -> Result<(), Error> {
    let io = |e: std::io::Error| Error::Io {
        path: path.to_string(),
        message: e.to_string(),
    };
    // Follow symbolic links to the file they name (the link itself stays).
    let target: PathBuf = match std::fs::canonicalize(path) {
        Ok(t) => t,
        Err(_) => match std::fs::read_link(path) {
            // A dangling link: create its target.
            Ok(t) => Path::new(path).parent().unwrap_or(Path::new(".")).join(t),
            Err(_) => PathBuf::from(path),
        },
    };
    match std::fs::metadata(&target) {
        Ok(m) if !m.is_file() => {
            if m.is_dir() {
                return Err(io(std::io::Error::other("is a directory")));
            }
            // A device or FIFO: write through it.
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .open(&target)
                .map_err(io)?;
            f.write_all(text.as_bytes()).map_err(io)?;
            f.flush().map_err(io)
        }
        _ => replace_atomically(&target, text).map_err(io),
    }
}

/// Writes `text` to a temporary sibling of `target` and renames it over
/// `target`; the temporary file is removed on any error.
fn replace_atomically(target: &Path, text: &str) -> std::io::Result<()> {
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".into());
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    remove_stale(&dir, &name);
    install_cleanup();
    if let Ok(mut p) = PENDING.lock() {
        p.push(tmp.clone());
    }
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        std::fs::rename(&tmp, target)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    if let Ok(mut p) = PENDING.lock() {
        p.retain(|f| f != &tmp);
    }
    result
}

/// Removes the temporary siblings `.NAME.PID.tmp` of `dir/NAME` left by
/// earlier runs that were killed by SIGKILL (the one signal
/// [`install_cleanup`] cannot catch): those whose process no longer
/// exists. Only where `/proc` tells which processes live (Linux); a
/// failure is ignored (the stale file stays, the write goes on).
fn remove_stale(dir: &Path, name: &str) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let prefix = format!(".{name}.");
    for e in entries.flatten() {
        let file = e.file_name();
        let Some(pid) = file
            .to_str()
            .and_then(|f| f.strip_prefix(&prefix))
            .and_then(|f| f.strip_suffix(".tmp"))
            .filter(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        if pid != std::process::id().to_string() && !Path::new("/proc").join(pid).exists() {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_regular_files_and_keeps_symlinks() {
        let d = tempfile::tempdir().unwrap();
        let f = d.path().join("out.txt");
        write_file(f.to_str().unwrap(), "one").unwrap();
        write_file(f.to_str().unwrap(), "two").unwrap();
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "two");
        #[cfg(unix)]
        {
            let l = d.path().join("link.txt");
            std::os::unix::fs::symlink(&f, &l).unwrap();
            write_file(l.to_str().unwrap(), "three").unwrap();
            assert!(std::fs::symlink_metadata(&l)
                .unwrap()
                .file_type()
                .is_symlink());
            assert_eq!(std::fs::read_to_string(&f).unwrap(), "three");
        }
        // No temporary file is left behind.
        let names: Vec<_> = std::fs::read_dir(d.path()).unwrap().collect();
        assert!(names.len() <= 2, "{names:?}");
    }

    #[test]
    fn removes_temporary_files_of_killed_runs_only() {
        if !Path::new("/proc/self").exists() {
            return;
        }
        let d = tempfile::tempdir().unwrap();
        // Above any pid_max: no such process.
        let dead = d.path().join(".out.txt.999999999.tmp");
        // Process 1 lives; another file's leftover is not ours to remove.
        let alive = d.path().join(".out.txt.1.tmp");
        let other = d.path().join(".other.txt.999999999.tmp");
        for f in [&dead, &alive, &other] {
            std::fs::write(f, "partial").unwrap();
        }
        write_file(d.path().join("out.txt").to_str().unwrap(), "done").unwrap();
        assert!(!dead.exists());
        assert!(alive.exists());
        assert!(other.exists());
    }

    #[test]
    fn reports_errors_and_writes_through_devices() {
        assert!(matches!(
            write_file("/nonexistent-dir/x.dot", "x"),
            Err(Error::Io { .. })
        ));
        if Path::new("/dev/null").exists() {
            write_file("/dev/null", "discarded").unwrap();
            assert!(!std::fs::metadata("/dev/null").unwrap().is_file());
        }
        if Path::new("/dev/full").exists() {
            assert!(matches!(
                write_file("/dev/full", "x"),
                Err(Error::Io { .. })
            ));
            assert!(!std::fs::metadata("/dev/full").unwrap().is_file());
        }
    }
}
