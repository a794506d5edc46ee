//! Malformed native inputs through the `bmc-rmm parse` binary: each must
//! give a `file:line:column` message on stderr and exit status 2, never a
//! panic or a crash (stack overflow included).

use crate::common;

use std::path::Path;

/// Writes `content` to a temp `.rmm` file and runs `bmc-rmm parse` on it
/// with extra `args`; returns (exit code, stderr, file path).
fn run(name: &str, content: &[u8], args: &[&str]) -> (i32, String, String) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join(name);
    std::fs::write(&path, content).expect("write temp file");
    let path_s = path.to_string_lossy().into_owned();
    let out = common::bin()
        .arg("parse")
        .args(args)
        .arg(&path_s)
        .output()
        .expect("run bmc-rmm");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "panic on {name}: {stderr}");
    (out.status.code().unwrap_or(-1), stderr, path_s)
}

/// Runs and checks exit 2 and a message starting `path:LINE:COL: error: `
/// followed by `msg`.
fn bad(name: &str, content: &[u8], args: &[&str], line: usize, col: usize, msg: &str) {
    let (code, err, path) = run(name, content, args);
    assert_eq!(code, 2, "exit status for {name}: {err}");
    let want = format!("{path}:{line}:{col}: error: ");
    assert!(
        err.starts_with(&want),
        "{name}: expected `{want}...`, got:\n{err}"
    );
    assert!(err.contains(msg), "{name}: expected `{msg}` in:\n{err}");
}

#[test]
fn good_file_parses_with_status_0() {
    let (code, err, _) = run(
        "ok.rmm",
        b"shared x, y;\nthread t0 { x = 1; r1 = y; }\nthread t1 { y = 1; r2 = x; }\ngoal final where t0.r1 == 0 && t1.r2 == 0;\n",
        &[],
    );
    assert_eq!(code, 0, "{err}");
}

#[test]
fn truncated_files() {
    bad(
        "trunc1.rmm",
        b"shared x;\nthread t {\n  x = 1;\n",
        &[],
        4,
        1,
        "unexpected end of file",
    );
    bad(
        "trunc2.rmm",
        b"shared x;\nthread t { r = x",
        &[],
        2,
        17,
        "unexpected end of file, expected `;`",
    );
    bad("trunc3.rmm", b"shared", &[], 1, 7, "unexpected end of file");
}

#[test]
fn binary_garbage() {
    bad(
        "garbage.rmm",
        &[0x00, 0xff, 0xfe, 0x13, 0x37, 0x80, 0x81],
        &[],
        1,
        1,
        "unexpected character",
    );
    bad(
        "garbage2.rmm",
        b"shared x;\nthread t { x = 1; \xc3\x28 }",
        &[],
        2,
        19,
        "invalid UTF-8",
    );
}

/// Malformed unsigned operators and shifts (docs/language.md).
#[test]
fn malformed_unsigned_operators_and_shifts() {
    bad(
        "ult.rmm",
        b"thread t {\n  r = a <u;\n}\n",
        &[],
        2,
        11,
        "expected an expression, found `;`",
    );
    bad(
        "shl3.rmm",
        b"thread t {\n  r = a <<< 2;\n}\n",
        &[],
        2,
        11,
        "expected an expression, found `<`",
    );
    bad(
        "usuffix.rmm",
        b"thread t {\n  r = a >>u >>u 1;\n}\n",
        &[],
        2,
        13,
        "expected an expression, found `>>u`",
    );
}

#[test]
fn huge_numbers() {
    bad(
        "huge.rmm",
        b"thread t {\n  r = 123456789012345678901234567890;\n}\n",
        &[],
        2,
        7,
        "does not fit in 16 bits",
    );
}

#[test]
fn constant_too_wide_for_width() {
    bad(
        "w8.rmm",
        b"shared x;\nthread t { x = 300; }\n",
        &["--width", "8"],
        2,
        16,
        "constant 300 does not fit in 8 bits",
    );
    // The same file is fine at the default width.
    let (code, err, _) = run("w16.rmm", b"shared x;\nthread t { x = 300; }\n", &[]);
    assert_eq!(code, 0, "{err}");
}

#[test]
fn deep_parentheses_do_not_overflow_the_stack() {
    let text = format!(
        "thread t {{\n  r = {}1{};\n}}\n",
        "(".repeat(100_000),
        ")".repeat(100_000)
    );
    let (code, err, path) = run("deep.rmm", text.as_bytes(), &[]);
    assert_eq!(code, 2, "{err}");
    assert!(err.starts_with(&format!("{path}:2:")), "{err}");
    assert!(
        err.contains("nesting too deep (more than 256 levels)"),
        "{err}"
    );
}

#[test]
fn unknown_register() {
    bad(
        "reg.rmm",
        b"shared x;\nthread t {\n  x = q + 1;\n}\n",
        &[],
        3,
        7,
        "unknown register `q`",
    );
}

#[test]
fn unknown_state_and_undefined_label() {
    bad(
        "label.rmm",
        b"thread t {\n  nop;\n  goto there;\n}\n",
        &[],
        3,
        3,
        "undefined label `there`",
    );
    bad(
        "state.rmm",
        b"thread t { nop; }\ngoal t@cs;\n",
        &[],
        2,
        8,
        "thread `t` has no state `cs`",
    );
}

#[test]
fn duplicate_thread_name() {
    bad(
        "dup.rmm",
        b"thread a { nop; }\nthread a { nop; }\n",
        &[],
        2,
        8,
        "duplicate thread name `a`",
    );
}

#[test]
fn empty_program() {
    bad("empty.rmm", b"", &[], 1, 1, "empty program");
    bad(
        "comments.rmm",
        b"// just a comment\n/* and another */\n",
        &[],
        3,
        1,
        "empty program",
    );
}

#[test]
fn shared_variable_inside_expression() {
    bad(
        "load.rmm",
        b"shared x;\nthread t { assume(x == 1); }\n",
        &[],
        2,
        19,
        "shared variable `x` used inside an expression",
    );
}

#[test]
fn examples_parse_through_the_binary() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    for name in ["sb.rmm", "dekker.rmm", "peterson.rmm"] {
        let out = common::bin()
            .arg("parse")
            .arg(dir.join(name))
            .output()
            .expect("run bmc-rmm");
        assert_eq!(out.status.code(), Some(0), "{name}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("thread t0 {"), "{text}");
        assert!(text.contains("goal"), "{text}");
    }
}

/// Fuzzing (docs/reliability.md, class N1): at a narrow width, variables
/// allocated past the signed maximum kept their unwrapped address (the
/// 4th variable at 2 bits sat at 3, while `mem[3]` and `@ 3` denote -1),
/// so a variable placed on the same W-bit cell was not reported as
/// overlapping, and the printed program re-parsed to a different one.
#[test]
fn variables_on_the_same_wrapped_address_overlap() {
    bad(
        "wrap-overlap.rmm",
        b"shared a, b, c, d;\nshared e @ -1;\nthread t { a = 1; }\n",
        &["--width", "2"],
        2,
        12,
        "`e` overlaps shared variable `d` (address -1)",
    );
    // An array across the wrap-around: cells 1, 2 (= -2) and 3 (= -1).
    bad(
        "wrap-array.rmm",
        b"shared a[3] @ 1;\nshared b @ -2;\nthread t { a[0] = 1; }\n",
        &["--width", "2"],
        2,
        12,
        "`b` overlaps shared variable `a` (address 1)",
    );
}

/// Class N1, the other face: `bmc-rmm parse` prints the wrapped address,
/// and its output parses back to the same text.
#[test]
fn wrapped_variable_addresses_round_trip() {
    let src =
        b"shared a, b, c, d = 1;\nthread t { r = d; mem[3] = 2; }\ngoal final where d == 2;\n";
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("wrap.rmm");
    std::fs::write(&path, src).expect("write");
    let parse = |file: &str| {
        let out = common::bin()
            .args(["parse", "--width", "2", file])
            .output()
            .expect("run bmc-rmm");
        assert_eq!(out.status.code(), Some(0), "{file}");
        String::from_utf8(out.stdout).expect("UTF-8 output")
    };
    let first = parse(&path.to_string_lossy());
    assert!(first.contains("shared c @ -2;\nshared d = 1;"), "{first}");
    // `mem[3]` is `d`, printed by name (and 2 is -2 in 2 bits).
    assert!(first.contains(": d = -2;"), "{first}");
    let again = dir.path().join("again.rmm");
    std::fs::write(&again, &first).expect("write");
    assert_eq!(parse(&again.to_string_lossy()), first);
}
