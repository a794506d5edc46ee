//! The C that SV-COMP's concurrency tasks use (docs/c.md): preprocessed
//! `.i` input (parsed as it is, without the preprocessor) and C detected
//! by content; `__thread` objects (one copy per thread); loops made of
//! `goto` (unwound like loops, cuts reported) and a backward `goto
//! ERROR`; atomic sections with many paths and loops (one `Atomic` step,
//! no path limit). Each: a safe program and a buggy mutant under sc with
//! the SAT engine and SMC, and located errors (exit 2).

use crate::c_common;

use c_common::cpp_available;

/// Checks each (name, program, safe?) as `t.c` under sc with the SAT
/// engine and SMC at `--unwind 3`; panics with every mismatch.
fn check(cases: &[(&str, &str, bool)]) {
    check_with(cases, &[&[][..], &["--engine", "smc"][..]]);
}

/// [`check`] with the given engines' arguments only.
fn check_with(cases: &[(&str, &str, bool)], engines: &[&[&str]]) {
    let mut bad = Vec::new();
    for (name, text, safe) in cases {
        for &engine in engines {
            let args = [&["-m", "sc", "--unwind", "3"][..], engine].concat();
            let (code, out, _) = c_common::reach_c(text, &args);
            let want = if *safe { 0 } else { 1 };
            if code != want {
                bad.push(format!(
                    "{name} {engine:?}: exit {code}, want {want}: {out}"
                ));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Located errors: (program, the message's words, line:column).
fn check_errors(cases: &[(&str, &str, &str)]) {
    c_common::assert_located_errors(cases, &["-m", "sc", "--unwind", "3"]);
}

#[test]
fn preprocessed_files_are_c_without_the_preprocessor() {
    // `__BMC_RMM__` is a macro of the preprocessor's run: in a `.i` file
    // it stays an identifier (through cpp it would be `1`).
    let prog = "extern void reach_error(void);\nint __BMC_RMM__ = 5;\nint main() {\n  if (__BMC_RMM__ == 5) reach_error();\n  return 0;\n}\n";
    let (code, out, _) = c_common::reach_named("t.i", prog, &["-m", "sc"]);
    assert_eq!(code, 1, "{out}");
    let safe = prog.replace("== 5)", "== 6)");
    let (code, out, _) = c_common::reach_named("t.i", &safe, &["-m", "sc"]);
    assert_eq!(code, 0, "{out}");
    // A syntax error is located in the `.i` file itself.
    let (code, out, path) =
        c_common::reach_named("t.i", "int x;\nint main() {\n  x = ;\n}\n", &["-m", "sc"]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains(&format!("{path}:3:")), "{out}");
    assert!(!out.contains("panicked"), "{out}");
}

#[test]
fn c_is_detected_by_content() {
    if !cpp_available() {
        eprintln!("skipped: no C preprocessor on PATH");
        return;
    }
    let prog = "#include <assert.h>\nint x;\nint main() { x = 1; assert(x == 2); return 0; }\n";
    let (code, out, _) = c_common::reach_named("prog", prog, &["-m", "sc"]);
    assert_eq!(code, 1, "{out}");
    let prog = "extern void reach_error(void);\nint main() { return 0; }\n";
    let (code, out, _) = c_common::reach_named("prog.src", prog, &["-m", "sc"]);
    assert_eq!(code, 0, "{out}");
}

/// Thread `t` and `main` each change their own copy of the thread-local
/// `x` (initial value 1 in every thread); `p` receives `t`'s copy's
/// address, which is not `main`'s (the copy is not read after `t` ends:
/// its lifetime is over then).
const TLS: &str = r#"
#include <pthread.h>
#include <assert.h>
__thread int x = 1;
static _Thread_local int y;
int seen;
int *p;
void *t(void *a) {
  static __thread int calls;
  calls++;
  x = x + 10;
  y = 7;
  seen = x + calls;
  p = &x;
  return 0;
}
int main() {
  pthread_t h;
  x = 5;
  pthread_create(&h, 0, t, 0);
  pthread_join(h, 0);
  assert(CHECK);
  return 0;
}
"#;

#[test]
fn thread_local_objects_have_one_copy_per_thread() {
    if !cpp_available() {
        eprintln!("skipped: no C preprocessor on PATH");
        return;
    }
    let cases: Vec<(String, bool)> = vec![
        (
            "x == 5 && y == 0 && seen == 12 && p != &x && *p == 11".into(),
            true,
        ),
        // Shared, `x` would be 15 and `y` 7.
        ("x == 15".into(), false),
        ("y == 7".into(), false),
        ("p == &x".into(), false),
        // `t`'s copy starts at the initializer, not at main's value.
        ("seen == 16".into(), false),
    ];
    let progs: Vec<(String, String, bool)> = cases
        .into_iter()
        .map(|(c, safe)| (c.clone(), TLS.replace("CHECK", &c), safe))
        .collect();
    let refs: Vec<(&str, &str, bool)> = progs
        .iter()
        .map(|(n, t, s)| (n.as_str(), t.as_str(), *s))
        .collect();
    check(&refs);
    check_errors(&[
        (
            "int main() { __thread int y = 0; return y; }",
            "thread-local `y` at block scope",
            ":1:27",
        ),
        (
            "__thread int x;\nint *p = &x;\nint main() { return 0; }",
            "thread-local object is not a constant",
            ":2:11",
        ),
    ]);
}

#[test]
fn loops_made_of_goto_are_unwound_like_loops() {
    if !cpp_available() {
        eprintln!("skipped: no C preprocessor on PATH");
        return;
    }
    let counted = "#include <assert.h>\nint main() {\n  int i = 0;\nL: i++;\n  if (i < 3) goto L;\n  assert(i == CHECK);\n  return 0;\n}\n";
    // A goto loop around a condition the program chooses: iterations
    // beyond --unwind are cut and reported at the label's line.
    let open = "extern int __VERIFIER_nondet_int(void);\nextern void reach_error(void);\nint main() {\n  int i = 0, n = __VERIFIER_nondet_int();\nL: i++;\n  if (i == 5) reach_error();\n  if (i < n) goto L;\n  return 0;\n}\n";
    // A backward `goto ERROR` to an earlier `ERROR: reach_error();`.
    let error = "extern int __VERIFIER_nondet_int(void);\nextern void reach_error(void);\nint main() {\n  int a = __VERIFIER_nondet_int();\n  if (a == 7 && a == 8) { ERROR: reach_error(); }\n  if (CHECK) goto ERROR;\n  return 0;\n}\n";
    let c3 = counted.replace("CHECK", "3");
    let c2 = counted.replace("CHECK", "2");
    let e1 = error.replace("CHECK", "a == 3");
    let e0 = error.replace("CHECK", "a == 3 && a == 4");
    check(&[
        ("counted, i == 3", &c3, true),
        ("counted, i == 2", &c2, false),
        ("goto ERROR reachable", &e1, false),
        ("goto ERROR unreachable", &e0, true),
    ]);
    let (code, out, path) = c_common::reach_c(open, &["-m", "sc", "--unwind", "3"]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains(&format!("{path}:5")),
        "the cut is reported: {out}"
    );
    let (code, out, _) = c_common::reach_c(open, &["-m", "sc", "--unwind", "6"]);
    assert_eq!(code, 1, "{out}");
    check_errors(&[(
        "int main() {\n  int i = 0;\n  { L: i++; }\n  if (i < 3) goto L;\n  return 0;\n}",
        "backward `goto L`",
        ":4:19",
    )]);
}

/// An atomic function with a nondeterministic value (2^32 paths), a loop
/// and an assertion, called by a thread while `main` reads.
const ATOMIC: &str = r#"
#include <pthread.h>
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);
int a, b, n;
void __VERIFIER_atomic_step() {
  int k = __VERIFIER_nondet_int();
  if (k > 100) { a = 1; b = 1; } else { a = 2; b = 2; }
  for (int i = 0; i < 2; i++) {
    if (__VERIFIER_nondet_int()) n = n + 1;
  }
  if (COND) reach_error();
}
void *t(void *x) { __VERIFIER_atomic_step(); return 0; }
int main() {
  pthread_t h;
  pthread_create(&h, 0, t, 0);
  pthread_join(h, 0);
  if (CHECK) reach_error();
  return 0;
}
"#;

#[test]
fn atomic_sections_of_any_shape() {
    if !cpp_available() {
        eprintln!("skipped: no C preprocessor on PATH");
        return;
    }
    let prog = |cond: &str, check: &str| ATOMIC.replace("COND", cond).replace("CHECK", check);
    let safe = prog("k == 12345 && a != 1", "a != b || n > 2");
    let fails_inside = prog("k == 12345 && n == 2", "0");
    let reaches_two = prog("0", "n == 2 && a == 2");
    let reaches_one = prog("0", "a == 1");
    // The SAT engine only: the SMC engine explores every value a
    // nondeterministic choice inside an atomic section may take
    // (docs/c.md, "Atomic sections").
    check_with(
        &[
            ("safe", &safe, true),
            ("assertion inside", &fails_inside, false),
            ("both increments", &reaches_two, false),
            ("large value", &reaches_one, false),
        ],
        &[&[][..], &["--solver", "cdclt"][..]],
    );
    check_errors(&[(
        "extern void __VERIFIER_atomic_begin(void);\nint x;\nvoid __VERIFIER_atomic_f() { __VERIFIER_atomic_begin(); x = 1; }\nint main() {\n  __VERIFIER_atomic_f();\n  return 0;\n}",
        "atomic section",
        ":5:3",
    )]);
}
