//! `switch` statements in C programs (docs/c.md, "The subset";
//! `frontend::c::switch`): fall-through, `default` in the middle, no
//! `default`, nested switches, case ranges and enumerators, case labels
//! inside an `if` of the body, a switch in an atomic function, a switch in
//! an unwound loop (`continue` goes to the loop, `break` leaves the
//! switch), the controlling expression evaluated once, and the located
//! errors (exit 2) for case labels that are not constants, duplicates,
//! two `default`s, Duff's device and a `case` outside a switch. Each
//! program asserts what C computes and is checked under sc with the SAT
//! engine and SMC; a mutant asserting a wrong value must be a bug.

use crate::c_common;

use c_common::cpp_available;

/// `reach -q -m sc ARGS` on `text` ([`c_common::reach_c`]).
fn reach_text(text: &str, args: &[&str]) -> (i32, String, String) {
    c_common::reach_c(text, &[&["-m", "sc"], args].concat())
}

/// Checks `text` with the SAT engine and SMC: exit 0 (safe) when `safe`,
/// else exit 1 (the assertion fails).
fn check(name: &str, text: &str, args: &[&str], safe: bool) {
    for engine in [&[][..], &["--engine", "smc"][..]] {
        let all: Vec<&str> = args.iter().chain(engine).copied().collect();
        let (code, out, _) = reach_text(text, &all);
        assert_eq!(
            code,
            if safe { 0 } else { 1 },
            "{name} {all:?}: {text}\n{out}"
        );
    }
}

/// A program whose `main` asserts `claim` after the switches below, `x`
/// any value in -2..=8.
fn cases(claim: &str) -> String {
    format!(
        "#include <assert.h>\nenum color {{ RED, GREEN = 5, BLUE }};\n\
         int main() {{\n  int x = __VERIFIER_nondet_int();\n  int r = 0, n = 0, m = 0;\n\
         __VERIFIER_assume(x >= -2 && x <= 8);\n\
         switch (x) {{\n    case 1: r += 1;\n    case 2: r += 2; break;\n\
             default: r = 100;\n    case 3: r += 3;\n  }}\n\
         switch (x) {{ case 0: n = 1; break; case 4: n = 2; }}\n\
         switch (x) {{\n  case GREEN:\n    switch (x - 5) {{ case 0: m = 10; break; default: m = 20; }}\n\
             m++;\n    break;\n  case 6 ... 8: m = 30; break;\n  case 'a': m = 40;\n  }}\n\
         {claim}\n  return 0;\n}}\n"
    )
}

#[test]
fn switch_follows_c_semantics() {
    if !cpp_available() {
        eprintln!("skipped: no C preprocessor on PATH");
        return;
    }
    // What C computes: fall-through from 1 into 2; `default` in the middle
    // falls into 3; no `default` leaves `n` alone; the nested switch's
    // `break` leaves only the inner one; a case range.
    let truth =
        "assert(x != 1 || r == 3);\n  assert(x != 2 || r == 2);\n  assert(x != 3 || r == 3);\n  \
                 assert(x == 1 || x == 2 || x == 3 || r == 103);\n  \
                 assert(n == (x == 0 ? 1 : x == 4 ? 2 : 0));\n  \
                 assert(m == (x == 5 ? 11 : x >= 6 ? 30 : 0));";
    check("switch truth", &cases(truth), &[], true);
    // Each wrong claim is found.
    for wrong in [
        "assert(x != 1 || r == 1);",    // no fall-through
        "assert(x != -1 || r == 100);", // default not falling into case 3
        "assert(x != 4 || n == 0);",    // case 4 not taken
        "assert(x != 5 || m == 10);",   // inner break leaving both switches
        "assert(x != 8 || m == 0);",    // case range end
    ] {
        check(wrong, &cases(wrong), &[], false);
    }
}

/// A switch in a loop of `n` iterations: `continue` goes to the loop,
/// `break` leaves the switch only. `s` is 211 after exactly 3 iterations.
const LOOP: &str = "#include <assert.h>\nint main() {\n  int n = __VERIFIER_nondet_int();\n  int s = 0, i;\n\
  for (i = 0; i < n; i++) {\n    switch (i % 3) {\n      case 0: continue;\n      case 1: s += 10; break;\n\
        default: s += 1;\n    }\n    s += 100;\n  }\n  assert(s != 211);\n  return 0;\n}\n";

#[test]
fn switch_in_an_unwound_loop() {
    if !cpp_available() {
        eprintln!("skipped: no C preprocessor on PATH");
        return;
    }
    check("loop, unwind 2", LOOP, &["--unwind", "2"], true);
    check("loop, unwind 3", LOOP, &["--unwind", "3"], false);
    // The controlling expression is evaluated once; a shared value read
    // by another thread's switch takes one case per execution.
    let once = "#include <assert.h>\nint main() {\n  int x = __VERIFIER_nondet_int(), r = 0, y = x;\n\
                switch (x++) { case 0: r = 1; break; case 1: r = 2; break; }\n\
                assert(x == y + 1);\n  assert(y != 0 || r == 1);\n  assert(y != 1 || r == 2);\n  return 0;\n}\n";
    check("evaluated once", once, &[], true);
    let shared = |claim: &str| {
        format!(
            "#include <assert.h>\n#include <pthread.h>\nint g;\n\
             void *w(void *a) {{ g = 1; g = 2; return 0; }}\n\
             int main() {{\n  pthread_t t;\n  int r = 0;\n  pthread_create(&t, 0, w, 0);\n\
             switch (g) {{ case 0: r = 10; case 1: r++; break; default: r = g; }}\n  {claim}\n  return 0;\n}}\n"
        )
    };
    check(
        "shared switch",
        &shared("assert(r == 11 || r == 1 || r == 2);"),
        &[],
        true,
    );
    check(
        "shared switch, wrong",
        &shared("assert(r != 1);"),
        &[],
        false,
    );
}

/// A case label inside an `if` of the switch body, and a switch inside
/// an `__VERIFIER_atomic_*` function (one atomic step per path).
const NESTED: &str = "#include <assert.h>\nint g;\n\
  void __VERIFIER_atomic_set(int v) { switch (v) { case 0: g = 10; break; default: g = v; } }\n\
  int main() {\n  int x = __VERIFIER_nondet_int(), y = __VERIFIER_nondet_int(), r = 0;\n\
  switch (x) {\n  case 0:\n    if (y) {\n  case 1:\n      r = 5;\n    }\n    break;\n  }\n\
  __VERIFIER_atomic_set(x);\n  assert(x != 1 || r == 5);\n  assert(x != 0 || r == (y ? 5 : 0));\n\
  assert(x != 0 || g == 10);\n  assert(x == 0 || g == x);\n  CLAIM;\n  return 0;\n}\n";

#[test]
fn case_labels_in_nested_statements() {
    if !cpp_available() {
        eprintln!("skipped: no C preprocessor on PATH");
        return;
    }
    // SAT engine only: SMC would enumerate both 16-bit nondeterministic
    // values bit by bit.
    let (code, out, _) = reach_text(&NESTED.replace("CLAIM", "assert(1)"), &[]);
    assert_eq!(code, 0, "{out}");
    let (code, out, _) = reach_text(&NESTED.replace("CLAIM", "assert(x != 1 || r == 0)"), &[]);
    assert_eq!(code, 1, "{out}");
}

#[test]
fn bad_switches_are_located_errors() {
    if !cpp_available() {
        eprintln!("skipped: no C preprocessor on PATH");
        return;
    }
    // (program, the message's words, line:column)
    let cases: &[(&str, &str, &str)] = &[
        (
            "int main() {\n  int x = 1, y = 2;\n  switch (x) { case y: break; }\n  return 0;\n}\n",
            "must be an integer constant expression",
            ":3:21",
        ),
        (
            "int main() {\n  int x = 1;\n  switch (x) {\n  case 1: break;\n  case 2-1: break;\n  }\n  return 0;\n}\n",
            "duplicate case value 1",
            ":5:3",
        ),
        (
            "int main() {\n  int x = 1;\n  switch (x) { default: break; default: x = 2; }\n  return 0;\n}\n",
            "a second `default`",
            ":3:32",
        ),
        (
            "int main() {\n  int x = 1, n = 0;\n  switch (x) {\n  case 0: while (n < 2) {\n  case 1: n++;\n  }\n  }\n  return 0;\n}\n",
            "Duff's device",
            ":5:3",
        ),
        (
            "int main() {\n  int x = 1;\n  case 3: x = 2;\n  return 0;\n}\n",
            "outside the statements of a switch",
            ":3:3",
        ),
        (
            "int main() {\n  int x = 1;\n  switch (x) { case 100000: x = 3; }\n  return 0;\n}\n",
            "does not fit --width 16",
            ":3:21",
        ),
        (
            "int main() {\n  int x = 1;\n  switch (x) { case 5 ... 1: x = 3; }\n  return 0;\n}\n",
            "empty case range",
            ":3:16",
        ),
        (
            "int main() {\n  int x = 1;\n  switch (x) { case 1: break; }\n  break;\n}\n",
            "`break` outside a loop or switch",
            ":4:3",
        ),
        (
            "int main() {\n  int x = 1;\n  switch (x) { case 1: continue; }\n  return 0;\n}\n",
            "`continue` outside a loop",
            ":3:24",
        ),
    ];
    c_common::assert_located_errors(cases, &["-m", "sc"]);
}
