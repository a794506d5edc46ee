//! The C subset's pointer-heavy constructs (docs/c.md): dynamic memory
//! (`malloc`/`calloc`/`free`, `memset`/`memcpy`), function pointers,
//! string literals, structs declared before their definition and
//! incomplete structs, recursion unwound by `--unwind`, calls of functions
//! declared but not defined, variadic functions, `extern` objects,
//! `atexit`. Each: a safe and a buggy inline program
//! under sc, tso and pso with the SAT engine and SMC, and located errors
//! (exit 2) for the uses outside the subset.

use crate::c_common;

use c_common::cpp_available;

/// `reach -q -m MODEL ARGS` on `text` ([`c_common::reach_c`]).
fn reach_text(text: &str, model: &str, args: &[&str]) -> (i32, String, String) {
    c_common::reach_c(text, &[&["-m", model], args].concat())
}

fn word(code: i32) -> &'static str {
    match code {
        0 => "safe",
        1 => "bug",
        _ => "error",
    }
}

/// Checks each (name, program, expected under sc, tso, pso) with the SAT
/// engine and with SMC; returns the mismatches.
fn mismatches(cases: &[(&str, &str, [&str; 3])]) -> Vec<String> {
    let mut bad = Vec::new();
    for (name, text, exp) in cases {
        for (m, e) in ["sc", "tso", "pso"].iter().zip(exp) {
            for engine in [&[][..], &["--engine", "smc"][..]] {
                let (code, out, _) = reach_text(text, m, engine);
                if word(code) != *e {
                    bad.push(format!(
                        "{name} {m} {engine:?}: expected {e}, got {} ({out})",
                        word(code)
                    ));
                }
            }
        }
    }
    bad
}

/// Message passing through a struct on the heap: the writer fills the
/// data field, then the flag; the reader checks the data once it sees the
/// flag. PSO may reorder the two stores unless a fence separates them.
fn heap_mp(fence: bool) -> String {
    format!(
        "#include <stdlib.h>\n#include <pthread.h>\n#include <assert.h>\n\
         struct msg {{ int data; int flag; }};\n\
         void *writer(void *arg) {{ struct msg *p = arg; p->data = 1; {} p->flag = 1; return 0; }}\n\
         void *reader(void *arg) {{ struct msg *p = arg; if (p->flag) assert(p->data == 1); return 0; }}\n\
         int main() {{\n  struct msg *m = calloc(1, sizeof(struct msg));\n  pthread_t a, b;\n\
         pthread_create(&a, 0, writer, m);\n  pthread_create(&b, 0, reader, m);\n  return 0;\n}}\n",
        if fence { "__sync_synchronize();" } else { "" }
    )
}

#[test]
fn dynamic_memory_holds_shared_structs() {
    if !cpp_available() {
        eprintln!("skipped: no C preprocessor on PATH");
        return;
    }
    let mp = heap_mp(false);
    let mp_fenced = heap_mp(true);
    // Two allocations are distinct objects; memset/memcpy write cells.
    let distinct = |bug: bool| {
        format!(
            "#include <stdlib.h>\n#include <string.h>\n#include <assert.h>\n\
             int main() {{\n  int *a = malloc(3 * sizeof(int));\n  int *b = malloc(3 * sizeof(int));\n\
             memset(a, 0, 3 * sizeof(int));\n  a[2] = 7;\n  memcpy(b, a, 3 * sizeof(int));\n  a[2] = 1;\n\
             assert(a != b);\n  assert(b[2] == {});\n  free(a);\n  return 0;\n}}\n",
            if bug { 1 } else { 7 }
        )
    };
    let (d_ok, d_bug) = (distinct(false), distinct(true));
    let cases: &[(&str, &str, [&str; 3])] = &[
        ("heap mp", &mp, ["safe", "safe", "bug"]),
        ("heap mp fenced", &mp_fenced, ["safe", "safe", "safe"]),
        ("distinct objects", &d_ok, ["safe", "safe", "safe"]),
        (
            "distinct objects, wrong value",
            &d_bug,
            ["bug", "bug", "bug"],
        ),
    ];
    let bad = mismatches(cases);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// A global function pointer set by one thread and called by another;
/// the called function's effect is checked. `op` starts as `inc`; the
/// setter switches it to `dbl`.
fn funptr_threads(expect: &str) -> String {
    format!(
        "#include <pthread.h>\n#include <assert.h>\n\
         typedef int (*op_t)(int);\n\
         int inc(int x) {{ return x + 1; }}\nint dbl(int x) {{ return 2 * x; }}\n\
         struct ops {{ op_t f; int unused; }} o = {{ inc, 0 }};\n\
         void *setter(void *arg) {{ o.f = dbl; return 0; }}\n\
         int main() {{\n  pthread_t t;\n  pthread_create(&t, 0, setter, 0);\n\
         int r = o.f(3);\n  int s = (*o.f)(3);\n  assert({expect});\n  return 0;\n}}\n"
    )
}

#[test]
fn calls_through_function_pointers_reach_every_target() {
    if !cpp_available() {
        eprintln!("skipped: no C preprocessor on PATH");
        return;
    }
    let ok = funptr_threads("(r == 4 || r == 6) && (s == 4 || s == 6)");
    let bug = funptr_threads("r == 4");
    // A pointer that may be null: the call is a violation of its own.
    let null = "#include <assert.h>\nint inc(int x) { return x + 1; }\n\
                int main() {\n  int (*f)(int) = 0;\n  if (__VERIFIER_nondet_int()) f = inc;\n\
                return f(1);\n}\n";
    let cases: &[(&str, &str, [&str; 3])] = &[
        ("function pointer", &ok, ["safe", "safe", "safe"]),
        ("function pointer, wrong value", &bug, ["bug", "bug", "bug"]),
        ("null function pointer", null, ["bug", "bug", "bug"]),
    ];
    let bad = mismatches(cases);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    let (_, out, _) = reach_text(null, "sc", &[]);
    assert!(
        out.contains("call through an invalid function pointer"),
        "{out}"
    );
}

#[test]
fn strings_recursion_incomplete_structs_and_external_calls() {
    if !cpp_available() {
        eprintln!("skipped: no C preprocessor on PATH");
        return;
    }
    let string = |k: usize| {
        format!(
            "#include <assert.h>\nconst char *s = \"ab\\n\";\nchar t[] = \"xy\";\n\
             int main() {{\n  const char *u = \"ab\\n\";\n  assert(s[{k}] == 'b' && t[2] == 0 && sizeof(t) == 3 && u == s);\n  return 0;\n}}\n"
        )
    };
    let (s_ok, s_bug) = (string(1), string(0));
    let fact = |v: i32| {
        format!(
            "#include <assert.h>\nint fact(int n) {{ return n <= 1 ? 1 : n * fact(n - 1); }}\n\
             int main() {{\n  assert(fact(4) == {v});\n  return 0;\n}}\n"
        )
    };
    let (f_ok, f_bug) = (fact(24), fact(25));
    // A struct used through pointers before its definition, and a tag
    // that is never defined (an opaque handle).
    let opaque = "#include <assert.h>\ntypedef struct node node_t;\nstruct handle;\n\
                  node_t *head;\nstruct handle *h;\n\
                  struct node { node_t *next; int v; };\nnode_t n1 = { 0, 5 };\n\
                  int main() {\n  head = &n1;\n  assert(head->v == 5 && h == 0);\n  return 0;\n}\n";
    let ext = |call: bool| {
        format!(
            "int ext(int);\nint main() {{\n  int c = {};\n  if (c) ext(1);\n  return 0;\n}}\n",
            if call { "__VERIFIER_nondet_int()" } else { "0" }
        )
    };
    let (e_ok, e_bug) = (ext(false), ext(true));
    // Variadic functions defined in the file (the extra arguments are
    // evaluated, not read), `extern` objects the file does not define
    // (a cell of their own, 0 at the start), `atexit` (not run).
    let misc = |v: i32| {
        format!(
            "#include <stdlib.h>
#include <assert.h>
extern int ext_obj;
int calls;
             void bye(void) {{ assert(0); }}
             int first(int n, ...) {{ calls++; return n; }}
             int main() {{
  atexit(bye);
  int k = 0;
  int r = first(2, k++, 6);
             assert(r == {v} && k == 1 && calls == 1 && ext_obj == 0);
  return 0;
}}
"
        )
    };
    let (m_ok, m_bug) = (misc(2), misc(6));
    let cases: &[(&str, &str, [&str; 3])] = &[
        ("string", &s_ok, ["safe", "safe", "safe"]),
        ("string, wrong character", &s_bug, ["bug", "bug", "bug"]),
        ("recursion", &f_ok, ["safe", "safe", "safe"]),
        ("recursion, wrong value", &f_bug, ["bug", "bug", "bug"]),
        ("incomplete struct", opaque, ["safe", "safe", "safe"]),
        ("external call not reached", &e_ok, ["safe", "safe", "safe"]),
        ("external call reached", &e_bug, ["bug", "bug", "bug"]),
        ("variadic, extern, atexit", &m_ok, ["safe", "safe", "safe"]),
        ("variadic, wrong value", &m_bug, ["bug", "bug", "bug"]),
    ];
    let bad = mismatches(cases);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    // Recursion deeper than --unwind: the path is cut and the answer says so.
    let (code, out, _) = reach_text(&f_bug, "sc", &["--unwind", "2"]);
    assert_eq!(code, 0, "{out}");
    let (_, out, _) = reach_text(&f_bug, "sc", &["--unwind", "2"]);
    assert!(out.contains("cut"), "{out}");
    let (_, out, _) = reach_text(&e_bug, "sc", &[]);
    assert!(out.contains("declared but not defined"), "{out}");
}

#[test]
fn pointer_constructs_outside_the_subset_are_located_errors() {
    if !cpp_available() {
        eprintln!("skipped: no C preprocessor on PATH");
        return;
    }
    // (program, the message's words, line:column)
    let cases: &[(&str, &str, &str)] = &[
        (
            "#include <stdlib.h>\nint main() {\n  int n = __VERIFIER_nondet_int();\n  int *p = malloc(n);\n  return 0;\n}\n",
            "not a constant here",
            ":4:",
        ),
        (
            "#include <stdlib.h>\nint main() {\n  int *p = malloc(2);\n  p = realloc(p, 4);\n  return 0;\n}\n",
            "`realloc` is not supported",
            ":4:",
        ),
        (
            "#include <string.h>\nint a[4];\nint main() {\n  int n = __VERIFIER_nondet_int();\n  memset(a, 0, n);\n  return 0;\n}\n",
            "`memset` of a size that is not a constant",
            ":5:",
        ),
        (
            "struct s;\nstruct s *p;\nint main() {\n  return p->x;\n}\n",
            "incomplete type `struct s`",
            ":4:10",
        ),
        (
            "struct s;\nint main() {\n  return sizeof(struct s);\n}\n",
            "`sizeof` of the incomplete type `struct s`",
            ":3:10",
        ),
        (
            "struct s;\nstruct s x;\nint main() {\n  return 0;\n}\n",
            "incomplete type `struct s`",
            ":2:",
        ),
        (
            "int f(int);\nint main() {\n  int (*p)(int) = f;\n  return p(1);\n}\n",
            "not defined in the file",
            ":4:10",
        ),
    ];
    c_common::assert_located_errors(cases, &["-m", "sc"]);
}
