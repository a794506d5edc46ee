//! What the C test files share: the binary, the preprocessor check, and
//! running `reach` on a C text written to a temporary file.

use std::process::Command;

pub(crate) use crate::common;

/// The `bmc-rmm` binary under test.
pub use common::bin_path as bin;

/// Is a C preprocessor on `PATH` (else the C tests skip)?
pub fn cpp_available() -> bool {
    bmc_rmm::frontend::c::preprocess::find().is_some()
}

/// Writes `text` to `t.c` in a fresh temporary directory and runs
/// `bmc-rmm reach -q ARGS t.c`; returns (exit code, stdout then stderr,
/// the file's path, for checking error locations; the directory is gone
/// once this returns).
pub fn reach_c(text: &str, args: &[&str]) -> (i32, String, String) {
    reach_named("t.c", text, args)
}

/// [`reach_c`] with the file named `name` (its extension chooses the
/// front-end: `.i`, `.c`, or none).
pub fn reach_named(name: &str, text: &str, args: &[&str]) -> (i32, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join(name);
    std::fs::write(&p, text).unwrap();
    let path = p.to_string_lossy().into_owned();
    let out = Command::new(bin())
        .args(["reach", "-q"])
        .args(args)
        .arg(&path)
        .output()
        .expect("run bmc-rmm");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), text, path)
}

/// Each (program, words of the message, `:line:column`) must be refused
/// by `reach -q ARGS` with exit 2, an error naming those words at that
/// place of the file, and no panic.
pub fn assert_located_errors(cases: &[(&str, &str, &str)], args: &[&str]) {
    for (text, what, loc) in cases {
        let (code, out, path) = reach_c(text, args);
        assert_eq!(code, 2, "{text}: {out}");
        assert!(out.contains(what), "{text}: expected `{what}` in: {out}");
        assert!(
            out.contains(&format!("{path}{loc}")),
            "{text}: expected {path}{loc} in: {out}"
        );
        assert!(!out.contains("panicked"), "{out}");
    }
}
