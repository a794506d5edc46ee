//! The C/pthreads front-end (docs/c.md): own examples (examples/c/: SB,
//! MP, Dekker, Peterson with and without fences) under sc, tso and pso;
//! located errors (exit 2) for malformed C, unsupported constructs,
//! deep nesting and a missing preprocessor; and the Nidhugg
//! benchmarks of `../shared/corpus/nidhugg` against their EXPECTED.tsv
//! (skipped when the corpus is absent).

use crate::c_common;

use c_common::{bin, cpp_available};
use std::path::Path;
use std::process::Command;

/// Runs `bmc-rmm reach -q -m MODEL ARGS FILE`; returns (exit code, stdout + stderr).
fn reach(model: &str, file: &str, args: &[&str]) -> (i32, String) {
    let out = Command::new(bin())
        .args(["reach", "-q", "-m", model])
        .args(args)
        .arg(file)
        .output()
        .expect("run bmc-rmm");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), text)
}

fn word(code: i32) -> &'static str {
    match code {
        0 => "safe",
        1 => "bug",
        _ => "error",
    }
}

#[test]
fn litmus_shapes_in_c_under_sc_tso_pso() {
    if !cpp_available() {
        eprintln!("skipped: no C preprocessor on PATH");
        return;
    }
    // (file, -D flags, expected under sc, tso, pso): the textbook answers
    // (SB and Dekker need store→load order, MP store→store order, the
    // critical sections' stores must not be overtaken under PSO).
    let cases: &[(&str, &[&str], [&str; 3])] = &[
        ("sb.c", &[], ["safe", "bug", "bug"]),
        ("sb.c", &["-D", "FENCE"], ["safe", "safe", "safe"]),
        ("mp.c", &[], ["safe", "safe", "bug"]),
        ("mp.c", &["-D", "FENCE"], ["safe", "safe", "safe"]),
        ("dekker.c", &[], ["safe", "bug", "bug"]),
        ("dekker.c", &["-D", "FENCE"], ["safe", "safe", "safe"]),
        ("peterson.c", &[], ["safe", "bug", "bug"]),
        ("peterson.c", &["-D", "TSO_FENCE"], ["safe", "safe", "bug"]),
        (
            "peterson.c",
            &["-D", "TSO_FENCE", "-D", "PSO_FENCE"],
            ["safe", "safe", "safe"],
        ),
    ];
    let bad = table_mismatches(cases, &[&[]]);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Runs each (file of examples/c, -D flags, expected under sc, tso, pso)
/// with each engine's arguments; returns the rows that answer otherwise.
fn table_mismatches(cases: &[(&str, &[&str], [&str; 3])], engines: &[&[&str]]) -> Vec<String> {
    let mut bad = Vec::new();
    for (f, d, exp) in cases {
        let path = format!("examples/c/{f}");
        for (m, e) in ["sc", "tso", "pso"].iter().zip(exp) {
            for engine in engines {
                let args: Vec<&str> = engine.iter().chain(d.iter()).copied().collect();
                let (code, text) = reach(m, &path, &args);
                if word(code) != *e {
                    bad.push(format!(
                        "{f} {args:?} {m}: expected {e}, got {} ({text})",
                        word(code)
                    ));
                }
            }
        }
    }
    bad
}

#[test]
fn c11_atomics_follow_their_memory_orders() {
    if !cpp_available() {
        eprintln!("skipped: no C preprocessor on PATH");
        return;
    }
    // (file, -D flags, expected under sc, tso, pso), with <stdatomic.h>:
    // relaxed and release stores are plain (x86/SPARC mappings), a
    // release store follows `membar #LoadStore|#StoreStore`, a seq_cst
    // store is locked, a seq_cst fence is full and an acq_rel one is not.
    let cases: &[(&str, &[&str], [&str; 3])] = &[
        (
            "c11_sb.c",
            &["-D", "ORDER=memory_order_relaxed"],
            ["safe", "bug", "bug"],
        ),
        (
            "c11_sb.c",
            &[
                "-D",
                "ORDER=memory_order_release",
                "-D",
                "LOAD_ORDER=memory_order_acquire",
            ],
            ["safe", "bug", "bug"],
        ),
        ("c11_sb.c", &[], ["safe", "safe", "safe"]),
        (
            "c11_sb.c",
            &[
                "-D",
                "ORDER=memory_order_relaxed",
                "-D",
                "FENCE=memory_order_seq_cst",
            ],
            ["safe", "safe", "safe"],
        ),
        (
            "c11_sb.c",
            &[
                "-D",
                "ORDER=memory_order_relaxed",
                "-D",
                "FENCE=memory_order_acq_rel",
            ],
            ["safe", "bug", "bug"],
        ),
        (
            "c11_mp.c",
            &["-D", "ORDER=memory_order_relaxed"],
            ["safe", "safe", "bug"],
        ),
        ("c11_mp.c", &[], ["safe", "safe", "safe"]),
        (
            "c11_mp.c",
            &["-D", "ORDER=memory_order_relaxed", "-D", "GENERIC"],
            ["safe", "safe", "bug"],
        ),
        ("c11_mp.c", &["-D", "GENERIC"], ["safe", "safe", "safe"]),
    ];
    let bad = table_mismatches(cases, &[&[], &["--engine", "smc"]]);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    // Too few arguments: a located error naming the built-in.
    let (code, out, _) = reach_text(
        "#include <stdatomic.h>\natomic_int x;\nint main(void) {\n  atomic_store_explicit(&x);\n  return 0;\n}\n",
        &[],
    );
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("t.c:4:") && out.contains("atomic_store_explicit"),
        "{out}"
    );
}

/// `reach -q -m sc ARGS` on `text` ([`c_common::reach_c`]).
fn reach_text(text: &str, args: &[&str]) -> (i32, String, String) {
    c_common::reach_c(text, &[&["-m", "sc"], args].concat())
}

#[test]
fn bad_c_is_a_located_error() {
    if !cpp_available() {
        eprintln!("skipped: no C preprocessor on PATH");
        return;
    }
    // (program, the message's words, line:column)
    let cases: &[(&str, &str, &str)] = &[
        ("int main() {\n  int x = ;\n}\n", "syntax error", ":2:"),
        (
            "int main() {\n  float f = 1;\n  return 0;\n}\n",
            "floating-point",
            ":2:3",
        ),
        (
            "int main() {\n  int x = 1;\n  switch (x) { case x: break; }\n}\n",
            "`case` label must be an integer constant",
            ":3:21",
        ),
        (
            "#include <stdlib.h>\nint main() {\n  int *p = malloc(4);\n  p = realloc(p, 8);\n  return 0;\n}\n",
            "`realloc` is not supported",
            ":4:",
        ),
        (
            "int main() {\n  return y;\n}\n",
            "undeclared identifier `y`",
            ":2:10",
        ),
        ("int main() {\n  foo(1);\n}\n", "call of `foo`", ":2:3"),
        ("int x;\n", "no `main` function", ":1:1"),
        (
            "#include \"missing.h\"\nint main() { return 0; }\n",
            "preprocessor",
            ":1:",
        ),
        (
            "int main() {\n  __asm__ volatile(\"nop\");\n  return 0;\n}\n",
            "inline assembly `nop`",
            ":2:",
        ),
        // A preprocessor error without a column.
        (
            "int x;\n#ifdef X\nint main() { return 0; }\n",
            "preprocessor: unterminated #ifdef",
            ":2:1",
        ),
    ];
    c_common::assert_located_errors(cases, &["-m", "sc"]);
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    if !cpp_available() {
        eprintln!("skipped: no C preprocessor on PATH");
        return;
    }
    let deep = format!(
        "int main() {{\n  int x = {}1{};\n  return x;\n}}\n",
        "(".repeat(5000),
        ")".repeat(5000)
    );
    let (code, out, _) = reach_text(&deep, &[]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("nested deeper"), "{out}");
    let unary = format!(
        "int main() {{\n  int x = {}1;\n  return x;\n}}\n",
        "- ".repeat(5000)
    );
    let (code, out, _) = reach_text(&unary, &[]);
    assert_eq!(code, 2, "{out}");
    // Statements nested without brackets: the lowering's depth limit.
    let ifs = format!(
        "int main() {{\n  int x = 0;\n  {}x = 1;\n  return x;\n}}\n",
        "if (x) ".repeat(2000)
    );
    let (code, out, _) = reach_text(&ifs, &[]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("nested deeper than"), "{out}");
}

#[test]
fn missing_preprocessor_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("t.c");
    std::fs::write(&p, "int main() { return 0; }\n").unwrap();
    let out = Command::new(bin())
        .args(["reach", "-q"])
        .arg(&p)
        .env("PATH", dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no C preprocessor found"), "{err}");
    assert!(err.contains(&*p.to_string_lossy()), "{err}");
}

#[test]
fn unwind_cuts_are_reported_and_constant_loops_unrolled() {
    if !cpp_available() {
        eprintln!("skipped: no C preprocessor on PATH");
        return;
    }
    // A loop with a constant bound of 20 runs completely at --unwind 2.
    let counted = "#include <assert.h>\nint main() {\n  int s = 0;\n  for (int i = 0; i < 20; i++)\n    s = s + 1;\n  assert(s != 20);\n  return 0;\n}\n";
    let (code, out, _) = reach_text(counted, &["--unwind", "2"]);
    assert_eq!(code, 1, "{out}");
    // A loop on shared data is cut, and the answer says where.
    let spin = "#include <assert.h>\nvolatile int x;\nint main() {\n  int n = 0;\n  while (x == 0) {\n    n++;\n  }\n  assert(0);\n  return 0;\n}\n";
    let (code, out, _) = reach_text(spin, &["--unwind", "3"]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("--unwind 3 cut the loops at") && out.contains(":5"),
        "{out}"
    );
    // A spin loop becomes load + assume, and the answer says so.
    let spin2 = "#include <assert.h>\nvolatile int x;\nint main() {\n  while (x == 0);\n  assert(0);\n  return 0;\n}\n";
    let (code, out, _) = reach_text(spin2, &[]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("spin loop"), "{out}");
}

/// One check of the Nidhugg corpus: (file, `-D` flags, `--unwind`,
/// model, expected `bug`/`safe`).
type NidhuggJob = (String, Vec<&'static str>, String, String, String);

/// The corpus directory and every row of its EXPECTED.tsv but `apr_*`
/// under sc, tso and pso (the row's loop bound, 10 where it is `-`; the
/// fence flags of the fenced rows). `None`, with a message, when the
/// corpus or a C preprocessor is absent.
fn nidhugg_jobs() -> Option<(std::path::PathBuf, Vec<NidhuggJob>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/nidhugg");
    let tsv = dir.join("EXPECTED.tsv");
    c_common::common::corpus("nidhugg/EXPECTED.tsv")?;
    if !cpp_available() {
        eprintln!("skipped: no C preprocessor on PATH");
        return None;
    }
    let text = std::fs::read_to_string(&tsv).unwrap();
    let (mut rows, mut jobs) = (0, Vec::new());
    for line in text.lines().skip(1) {
        let c: Vec<&str> = line.split('\t').collect();
        if c.len() < 6 || c[0].starts_with("apr_") {
            continue;
        }
        rows += 1;
        let unwind = match c[2].trim_matches(|c| c == '(' || c == ')') {
            "-" => "10".to_string(),
            n => n.to_string(),
        };
        let defines: Vec<&str> = match c[1] {
            "tso" => vec!["-D", "ENABLE_TSO_FENCES"],
            "pso" => vec!["-D", "ENABLE_PSO_FENCES"],
            _ => vec![],
        };
        for (k, m) in ["sc", "tso", "pso"].iter().enumerate() {
            jobs.push((
                c[0].to_string(),
                defines.clone(),
                unwind.clone(),
                m.to_string(),
                c[3 + k].to_string(),
            ));
        }
    }
    assert!(rows >= 20, "EXPECTED.tsv has {rows} rows");
    Some((dir, jobs))
}

/// Every row of the Nidhugg corpus' Table 1 under sc, tso and pso (about
/// 6 CPU-minutes).
#[test]
fn nidhugg_corpus_matches_expected() {
    let Some((dir, jobs)) = nidhugg_jobs() else {
        return;
    };
    use rayon::prelude::*;
    let bad: Vec<String> = jobs
        .par_iter()
        .filter_map(|(file, d, u, m, e)| {
            let path = dir.join(file).to_string_lossy().into_owned();
            let mut args: Vec<&str> = d.clone();
            args.extend(["--unwind", u.as_str(), "--timeout", "600"]);
            let (code, out) = reach(m, &path, &args);
            (word(code) != e).then(|| {
                format!(
                    "{file} {d:?} {m}: expected {e}, got {} ({})",
                    word(code),
                    out.lines().next().unwrap_or("")
                )
            })
        })
        .collect();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn printed_c_programs_give_the_same_answers() {
    use bmc_rmm::diag::SourceFile;
    use bmc_rmm::engines::bounded::{check, CheckKind, Deadline, Limits, SolverKind};
    use bmc_rmm::frontend::{self, Format};
    use bmc_rmm::program::Width;
    if !cpp_available() {
        eprintln!("skipped: no C preprocessor on PATH");
        return;
    }
    let w = Width(16);
    for f in ["sb", "mp", "dekker", "peterson"] {
        let c = frontend::load_program(&format!("examples/c/{f}.c"), None, w).unwrap();
        let text = bmc_rmm::program::render::native(&c);
        let back = frontend::parse_program(
            &SourceFile::new("printed.rmm", text),
            Some(Format::Native),
            w,
        )
        .unwrap_or_else(|e| panic!("{f}: the printed program does not parse: {e}"));
        let bound = c.max_path.expect("C programs are acyclic");
        for m in ["sc", "tso", "pso"] {
            let model = bmc_rmm::cat::load_model(m, None).unwrap();
            let lim = Limits {
                bound,
                width: w.0,
                deadline: Deadline(None),
                switches: Default::default(),
            };
            let a = check(
                SolverKind::Varisat,
                &c,
                &model,
                lim,
                false,
                &[CheckKind::Reach],
            )
            .unwrap();
            let b = check(
                SolverKind::Varisat,
                &back,
                &model,
                lim,
                false,
                &[CheckKind::Reach],
            )
            .unwrap();
            assert_eq!(a[0].verdict, b[0].verdict, "{f} under {m}");
        }
    }
}

#[test]
fn verifier_atomic_functions_are_one_step() {
    if !cpp_available() {
        eprintln!("skipped: no C preprocessor on PATH");
        return;
    }
    let prog = "#include <assert.h>\n#include <pthread.h>\nvolatile int x;\nvoid NAME(void) { int t = x; if (t < 100) x = t + 1; else assert(0); }\nvoid *f(void *a) { NAME(); return 0; }\nint main(void) {\n  pthread_t a, b;\n  pthread_create(&a, 0, f, 0);\n  pthread_create(&b, 0, f, 0);\n  pthread_join(a, 0);\n  pthread_join(b, 0);\n  assert(x == 2);\n  return 0;\n}\n";
    // Atomic: the two increments never interleave.
    let (code, out, _) = reach_text(&prog.replace("NAME", "__VERIFIER_atomic_inc"), &[]);
    assert_eq!(code, 0, "{out}");
    // The same function without the prefix loses an increment.
    let (code, out, _) = reach_text(&prog.replace("NAME", "inc"), &[]);
    assert_eq!(code, 1, "{out}");
    // An assertion inside an atomic function is still a violation.
    let (code, out, _) = reach_text(
        &prog
            .replace("NAME", "__VERIFIER_atomic_inc")
            .replace("t < 100", "t < 1"),
        &[],
    );
    assert_eq!(code, 1, "{out}");
}

/// Every row of the Nidhugg corpus' Table 1 under sc, tso and pso with
/// `reach --engine smc` (about 25 CPU-seconds since the engine restores
/// nodes by undo logs; most of it `pgsql_bnd.c`, 3.4·10^5 executions per
/// model, and `fib_bench_true.c` under tso and pso, 6·10^5 each).
#[test]
fn nidhugg_corpus_smc_matches_expected() {
    let Some((dir, jobs)) = nidhugg_jobs() else {
        return;
    };
    assert!(jobs.len() >= 70, "{} rows", jobs.len());
    use rayon::prelude::*;
    let bad: Vec<String> = jobs
        .par_iter()
        .filter_map(|(file, d, u, m, e)| {
            let path = dir.join(file).to_string_lossy().into_owned();
            let mut args: Vec<&str> = vec!["--engine", "smc"];
            args.extend(d.iter().copied());
            args.extend(["--unwind", u.as_str(), "--timeout", "300"]);
            let (code, out) = reach(m, &path, &args);
            (word(code) != e).then(|| {
                format!(
                    "{file} {d:?} {m} smc: expected {e}, got {} ({})",
                    word(code),
                    out.lines().next().unwrap_or("")
                )
            })
        })
        .collect();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// docs/c.md, "Array indices": a non-constant index outside its array is
/// a violation (`out-of-bounds index in T`), an index inside it reads and
/// writes exactly that element, under both engines; `&a[n]` (one past the
/// end) is not an access.
#[test]
fn array_indices_are_checked_and_exact() {
    if !cpp_available() {
        eprintln!("skipped: no C preprocessor on PATH");
        return;
    }
    let prog = |bound: &str, check: &str| {
        format!(
            "int a[4]; int g;\nint main() {{\n  int i = __VERIFIER_nondet_int();\n  \
             __VERIFIER_assume(i >= 0 && i < {bound});\n  a[i] = i + 1;\n  \
             int *e = &a[i + 1];\n  {check}\n  return 0;\n}}\n"
        )
    };
    for engine in [&[][..], &["--engine", "smc"][..]] {
        // In bounds: the element written is the one read back, g untouched.
        let (code, out, _) = reach_text(
            &prog(
                "4",
                "assert(a[i] == i + 1 && g == 0 && e == &a[0] + i + 1);",
            ),
            engine,
        );
        assert_eq!(code, 0, "{out}");
        // Index 4 is reachable: a violation at the index, not a silent
        // write to `g`.
        let (code, out, _) = reach_text(&prog("5", ""), engine);
        assert_eq!(code, 1, "{out}");
        assert!(out.contains("out-of-bounds index in main"), "{out}");
        // The assertion still fails where it should.
        let (code, out, _) = reach_text(&prog("4", "assert(a[i] != 3);"), engine);
        assert_eq!(code, 1, "{out}");
        assert!(out.contains("assertion in main"), "{out}");
        // `&&` and `||` do not evaluate an index C would not evaluate.
        let safe = "int a[4];\nint main() {\n  int i = __VERIFIER_nondet_int();\n  \
                    __VERIFIER_assume(i >= 0 && i <= 4);\n  \
                    if (i < 4 && a[i] != 0) { assert(0); }\n  \
                    assert(i >= 4 || a[i] == 0);\n  return 0;\n}\n";
        let (code, out, _) = reach_text(safe, engine);
        assert_eq!(code, 0, "{out}");
    }
}

/// Signedness (docs/c.md, "Signedness"): comparisons, `/`, `%` and `>>`
/// are unsigned when an operand is `unsigned`, `size_t` or a `U` (or too
/// large) constant; shifts by a variable amount. The values come from
/// another thread (`g`: 0 or 2^32−1, `s`: 0 or −1, `k`: 0 or 31), so
/// nothing folds to a constant (and the SMC engine has few values to
/// enumerate). Each verdict follows from C's rules at 32 bits (the
/// comment says why); "was" marks the cases the front-end's earlier
/// signed reading answered wrongly.
#[test]
fn unsigned_comparisons_division_and_shifts() {
    if !cpp_available() {
        eprintln!("skipped: no C preprocessor on PATH");
        return;
    }
    let prog = |check: &str| {
        format!(
            "#include <pthread.h>\n#include <assert.h>\n#include <stddef.h>\n\
             unsigned g; int s; unsigned amt;\n\
             void *t(void *a) {{ g = 4294967295U; s = -1; amt = 31; return 0; }}\n\
             int main() {{\n  pthread_t h;\n  pthread_create(&h, 0, t, 0);\n  \
             unsigned v = g; int w = s; unsigned k = amt;\n  {check}\n  return 0;\n}}\n"
        )
    };
    // (check, expected exit: 0 safe, 1 violation)
    let cases: &[(&str, i32)] = &[
        // 2^32−1 > 0 unsigned (was: -1 > 0 fails).
        ("if (v != 0) assert(v > 0);", 0),
        // A signed -1 is not > 0.
        ("if (w != 0) assert(w > 0);", 1),
        // Mixed: `w` converts to unsigned, so -1 < 1U is false (C11 6.3.1.8; was: true).
        ("if (w != 0) assert(!(w < 1U));", 0),
        // Every unsigned value is <= 4294967295U (was: v <= -1 fails for 0).
        ("assert(v <= 4294967295U);", 0),
        // 0xFFFFFFFF does not fit int: unsigned (C11 6.4.4.1p5; was: signed).
        ("assert(v <= 0xFFFFFFFF);", 0),
        // size_t is unsigned (was: signed).
        ("size_t z = v; if (z) assert(z >= 1);", 0),
        // Unsigned division and remainder: (2^32−1)/2 = 2^31−1, (2^32−1)%10 = 5.
        ("if (v) assert(v / 2u == 2147483647U && v % 10u == 5);", 0),
        // Signed: -1 / 2 = 0, -1 % 10 = -1.
        ("if (w) assert(w / 2 == 0 && w % 10 == -1);", 0),
        // Logical shift of an unsigned, arithmetic of a signed (was: -1/2^4 = 0).
        (
            "if (v && w) assert((v >> 4) == 268435455U && (w >> 4) == -1);",
            0,
        ),
        // A variable amount: 1U << k is never 0 for k in {0, 31} ...
        ("assert((1U << k) != 0);", 0),
        // ... and is 2^31 at k = 31 (was: an error, shift by a variable).
        ("assert((1U << k) != 2147483648U);", 1),
        // -1 >> k stays -1 (arithmetic); 2^32−1 >> 31 is 1 (logical).
        ("assert((s >> k) == 0 || (s >> k) == -1);", 0),
        ("if (v) assert((v >> k) == v);", 1),
        ("if (v && k) assert((v >> k) == 1);", 0),
        // Amounts of 32 or more (undefined in C) shift everything out.
        (
            "unsigned k2 = k + 4; if (k) assert((1U << k2) == 0 && (w >> k2) == (w < 0 ? -1 : 0));",
            0,
        ),
        // Compound assignments keep the left operand's signedness.
        (
            "unsigned x = v; x >>= 31; int y = w; y >>= 31; if (v && w) assert(x == 1 && y == -1);",
            0,
        ),
        (
            "unsigned x = v; x /= 3u; if (v) assert(x == 1431655765U);",
            0,
        ),
    ];
    let mut bad = Vec::new();
    for (check, want) in cases {
        let text = prog(check);
        for engine in [&[][..], &["--engine", "smc"][..]] {
            for model in ["sc", "tso"] {
                let dir = tempfile::tempdir().unwrap();
                let p = dir.path().join("u.c");
                std::fs::write(&p, &text).unwrap();
                let mut args = vec!["--width", "32", "--unwind", "2"];
                args.extend_from_slice(engine);
                let (code, out) = reach(model, &p.to_string_lossy(), &args);
                if code != *want {
                    bad.push(format!(
                        "{check} {engine:?} {model}: got {code}, want {want}: {out}"
                    ));
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
    // A constant shift amount outside 0..W is a located error.
    let (code, out, path) = reach_text(
        "int main() {\n  unsigned x = 1;\n  x = x << 40;\n  return 0;\n}\n",
        &["--width", "32"],
    );
    assert_eq!(code, 2, "{out}");
    assert!(out.contains(&format!("{path}:3:")), "{out}");
    assert!(out.contains("shift by 40"), "{out}");
}
