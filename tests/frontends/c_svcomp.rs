//! SV-COMP conventions in C programs (docs/c.md, "SV-COMP conventions
//! and built-ins", "Threads", "Limits"): `reach_error`/`__VERIFIER_error`
//! are the violation even when the file defines them (with an empty
//! body, as the benchmarks do); `main(argc, argv)` runs with `argc` 1;
//! condition variables (waiting may wake spuriously); GCC's `$` in
//! identifiers; `main` reading globals before it creates a thread (their
//! initial values are known: variable-length arrays and `malloc` sizes);
//! variable-length arrays; `strcpy` of a string literal. Each: a safe
//! program and a buggy mutant under
//! sc with the SAT engine and SMC, and located errors (exit 2).

use crate::c_common;

use c_common::cpp_available;

/// `reach -q -m MODEL --unwind 3 ARGS` on `text` ([`c_common::reach_c`]).
fn reach_text(text: &str, model: &str, args: &[&str]) -> (i32, String, String) {
    c_common::reach_c(text, &[&["-m", model, "--unwind", "3"], args].concat())
}

/// Checks each (name, program, safe?) under sc with the SAT engine and
/// SMC (and tso for the threaded ones: the answers here do not depend on
/// the model); panics with every mismatch.
fn check(cases: &[(&str, String, bool)]) {
    let mut bad = Vec::new();
    for (name, text, safe) in cases {
        for m in ["sc", "tso"] {
            for engine in [&[][..], &["--engine", "smc"][..]] {
                let (code, out, _) = reach_text(text, m, engine);
                let want = if *safe { 0 } else { 1 };
                if code != want {
                    bad.push(format!(
                        "{name} {m} {engine:?}: exit {code}, want {want}: {out}"
                    ));
                }
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
fn error_functions_defined_in_the_file_are_violations() {
    if !cpp_available() {
        eprintln!("skipped: no C preprocessor on PATH");
        return;
    }
    let prog = |body: &str, cond: &str| {
        format!(
            "void reach_error() {{{body}}}\nextern void __VERIFIER_error(void);\n\
             extern int __VERIFIER_nondet_int(void);\n\
             int main(int argc, char **argv) {{\n  int x = __VERIFIER_nondet_int();\n\
             if ({cond}) reach_error();\n  return 0;\n}}\n"
        )
    };
    // A backward goto that cannot run (after `abort()`) is no loop.
    let dead_goto = |cond: &str| {
        format!(
            "void reach_error() {{}}\nvoid abort(void);\nextern int __VERIFIER_nondet_int(void);\n\
             int main() {{\n  if ({cond}) {{\n    ERROR: {{ reach_error(); abort(); }}\n    goto ERROR;\n  }}\n  return 0;\n}}\n"
        )
    };
    check(&[
        (
            "dead backward goto",
            dead_goto("__VERIFIER_nondet_int() == 2"),
            false,
        ),
        ("dead backward goto, no error", dead_goto("0"), true),
        ("empty reach_error, reachable", prog("", "x == 3"), false),
        ("empty reach_error, unreachable", prog("", "x != x"), true),
        (
            "reach_error with a body",
            prog(" return; ", "x == 3"),
            false,
        ),
        // argc is 1 and argv NULL (the program runs without arguments).
        ("argc is 1", prog("", "argc != 1 || argv != 0"), true),
        ("argc is not 0", prog("", "argc == 1"), false),
    ]);
}

/// A waiter that checks its predicate with `WAIT` (`while`: correct;
/// `if`: broken by a spurious wakeup, which POSIX allows).
fn condvar(wait: &str) -> String {
    format!(
        "#include <pthread.h>\n#include <assert.h>\n\
         int num = 0;\npthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;\n\
         pthread_cond_t c = PTHREAD_COND_INITIALIZER;\n\
         void *producer(void *a) {{\n  pthread_mutex_lock(&m);\n  num = 1;\n  pthread_mutex_unlock(&m);\n\
         pthread_cond_signal(&c);\n  return 0;\n}}\n\
         int main() {{\n  pthread_t t;\n  pthread_cond_init(&c, 0);\n  pthread_create(&t, 0, producer, 0);\n\
         pthread_mutex_lock(&m);\n  {wait} (num == 0) pthread_cond_wait(&c, &m);\n\
         assert(num == 1);\n  pthread_mutex_unlock(&m);\n  pthread_cond_broadcast(&c);\n\
         pthread_cond_destroy(&c);\n  return 0;\n}}\n"
    )
}

#[test]
fn condition_variables_wait_by_releasing_the_mutex() {
    if !cpp_available() {
        eprintln!("skipped: no C preprocessor on PATH");
        return;
    }
    check(&[
        ("wait in a loop", condvar("while"), true),
        ("wait without a loop", condvar("if"), false),
    ]);
    // The mutex is released while waiting: another thread takes it.
    let handoff = |assertion: &str| {
        format!(
            "#include <pthread.h>\n#include <assert.h>\n\
             int x = 0;\npthread_mutex_t m;\npthread_cond_t c;\n\
             void *t2(void *a) {{ pthread_mutex_lock(&m); x = 1; pthread_mutex_unlock(&m); return 0; }}\n\
             int main() {{\n  pthread_t t;\n  pthread_mutex_lock(&m);\n  pthread_create(&t, 0, t2, 0);\n\
             pthread_cond_wait(&c, &m);\n  {assertion}\n  pthread_mutex_unlock(&m);\n  return 0;\n}}\n"
        )
    };
    check(&[
        (
            "mutex held around the wait",
            handoff("assert(x == 0 || x == 1);"),
            true,
        ),
        (
            "mutex released inside the wait",
            handoff("assert(x == 0);"),
            false,
        ),
    ]);
}

#[test]
fn main_knows_the_initial_memory_until_it_creates_a_thread() {
    if !cpp_available() {
        eprintln!("skipped: no C preprocessor on PATH");
        return;
    }
    // Sizes read from globals before any thread exists.
    let sizes = |check: &str| {
        format!(
            "#include <stdlib.h>\n#include <assert.h>\n\
             const int N = 3;\nstatic int n = 2;\n\
             int main(int argc, char *argv[]) {{\n  if (argc != 1) n = 9;\n  int a[N];\n  int *p = malloc(sizeof(int) * N);\n\
             for (int i = 0; i < N; i++) {{ a[i] = i; p[i] = 2 * i; }}\n  {check}\n  return 0;\n}}\n"
        )
    };
    // A store on one branch makes the cell unknown after the join; a
    // created thread may write any cell.
    let branch = "#include <assert.h>\nextern int __VERIFIER_nondet_int(void);\nint g = 0;\n\
                  int main() {\n  if (__VERIFIER_nondet_int()) g = 1;\n  assert(g == 0);\n  return 0;\n}\n";
    let thread = "#include <assert.h>\n#include <pthread.h>\nint g = 0;\n\
                  void *w(void *a) { g = 1; return 0; }\n\
                  int main() {\n  pthread_t t;\n  pthread_create(&t, 0, w, 0);\n  assert(g == 0);\n  return 0;\n}\n";
    check(&[
        (
            "vla and malloc sized by globals",
            sizes("assert(a[2] == 2 && p[2] == 4);"),
            true,
        ),
        (
            "vla and malloc, wrong value",
            sizes("assert(a[2] == 2 && p[2] == 2);"),
            false,
        ),
        ("store on a branch", branch.to_string(), false),
        ("store by another thread", thread.to_string(), false),
    ]);
    check_errors(&[
        (
            "#include <pthread.h>\nint n = 2;\nvoid *w(void *a) { return 0; }\n\
             int main() {\n  pthread_t t;\n  pthread_create(&t, 0, w, 0);\n  int b[n];\n  return 0;\n}\n",
            "variable-length array `b` whose size is not a constant here",
            ":7:9",
        ),
        (
            "int main() {\n  int n = -1;\n  int b[n];\n  return 0;\n}\n",
            "variable-length array `b` of -1 elements",
            ":3:9",
        ),
    ]);
}

#[test]
fn dollar_signs_in_identifiers() {
    if !cpp_available() {
        eprintln!("skipped: no C preprocessor on PATH");
        return;
    }
    let prog = |v: i32| {
        format!(
            "#include <assert.h>\nint y$w_buff0 = 1;\nint weak$$choice = 2;\n\
             int main() {{\n  char *s = \"a$b\";\n  assert(y$w_buff0 + weak$$choice == {v} && s[1] == '$');\n  return 0;\n}}\n"
        )
    };
    check(&[
        ("dollar identifiers", prog(3), true),
        ("dollar identifiers, wrong sum", prog(4), false),
    ]);
    check_errors(&[(
        "int a$b = 1;\nint a_b = 2;\nint main() {\n  return a$b;\n}\n",
        "identifier `a$b` contains `$`, read as `_`, but `a_b` is another identifier",
        ":1:5",
    )]);
}

#[test]
fn strcpy_of_a_string_literal() {
    if !cpp_available() {
        eprintln!("skipped: no C preprocessor on PATH");
        return;
    }
    // A writer fills a shared buffer while the reader may look at it.
    let prog = |claim: &str| {
        format!(
            "#include <string.h>\n#include <stdlib.h>\n#include <pthread.h>\n#include <assert.h>\n\
             char *v;\nvoid *w(void *a) {{ strcpy(v, \"ab\"); return 0; }}\n\
             int main() {{\n  pthread_t t;\n  v = calloc(4, sizeof(char));\n  pthread_create(&t, 0, w, 0);\n\
             pthread_join(t, 0);\n  {claim}\n  return 0;\n}}\n"
        )
    };
    check(&[
        (
            "strcpy writes the characters and the 0",
            prog("assert(v[0] == 'a' && v[1] == 'b' && v[2] == 0);"),
            true,
        ),
        (
            "strcpy, wrong character",
            prog("assert(v[1] == 'a');"),
            false,
        ),
    ]);
    check_errors(&[(
        "#include <string.h>\nchar a[4], b[4];\nint main() {\n  strcpy(a, b);\n  return 0;\n}\n",
        "`strcpy` from a source that is not a string literal",
        ":4:13",
    )]);
}
