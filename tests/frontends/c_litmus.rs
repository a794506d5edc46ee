//! herd's C litmus dialect (`frontend::c_litmus`): tests read with a
//! macro file written here (never the kernel's), the IR they lower to
//! (tags on accesses and fences, atomic steps, branches), a changed macro
//! file changing the tags, and malformed tests and macro files giving one
//! located error. The CLI's `litmus --conf` with exit status 2 on a model
//! it refuses.

use crate::common;
use bmc_rmm::diag::SourceFile;
use bmc_rmm::frontend::c_litmus::{parse, MacroFile};
use bmc_rmm::program::{render, ThreadId};

/// A small macro file in herd's `.def` syntax.
const DEF: &str = "\
// loads and stores
LOAD(X) __load{once}(X)
STORE(X,V) { __store{once}(X,V); }
STORE_REL(X,V) { __store{release}(*X,V); }
full() { __fence{mb}; }
swap(X,V) __xchg{mb}(X,V)
cas(X,V,W) __cmpxchg{relaxed}(X,V,W)
inc(X) { __atomic_op{noreturn}(X,+,1); }
fetch_add(V,X) __atomic_fetch_op{mb}(X,+,V)
load_via(X) LOAD(*X)
lock(X) { __lock(X); }
unlock(X) { __unlock(X); }
trylock(X) __trylock(X)
is_locked(X) __islocked(X)
lock_value(X) __lock(X)
";

const MP: &str = "\
C MP+test

{
x=0;
y=0;
}

P0(int *x, int *y)
{
\tSTORE(*x, 1);
\tfull();
\tSTORE_REL(y, 1);
}

P1(int *x, int *y)
{
\tint r0;
\tint r1;

\tr0 = load_via(y);
\tif (r0 == 1)
\t\tr1 = LOAD(*x);
\telse
\t\tr1 = *x;
}

exists (1:r0=1 /\\ 1:r1=0)
";

fn macros(text: &str) -> MacroFile {
    MacroFile::parse(&SourceFile::new("t.def", text)).expect("macro file")
}

/// The rendered commands of thread `t`, in instruction order.
fn cmds(p: &bmc_rmm::program::Program, t: u32) -> Vec<String> {
    p.threads[t as usize]
        .instrs
        .iter()
        .map(|i| render::command(p, ThreadId(t), &i.cmd))
        .collect()
}

#[test]
fn mp_lowers_with_tags() {
    let t = parse(&SourceFile::new("mp.litmus", MP), &macros(DEF)).expect("parses");
    assert_eq!(t.name, "MP+test");
    assert_eq!(t.quantifier, "exists");
    assert_eq!(t.program.threads.len(), 2);
    let p0 = cmds(&t.program, 0);
    assert_eq!(p0.len(), 3, "{p0:?}");
    assert!(
        p0[0].starts_with("tagged(once) ") && p0[0].contains("= 1"),
        "{p0:?}"
    );
    assert_eq!(p0[1], "tagged(mb) marker");
    assert!(p0[2].starts_with("tagged(release) "), "{p0:?}");
    let p1 = cmds(&t.program, 1).join("\n");
    // load_via(y) = LOAD(*y): one tagged load; the else branch's `*x` is
    // a plain load (no tag); the branch is two assumes.
    assert_eq!(p1.matches("tagged(once)").count(), 2, "{p1}");
    assert!(p1.contains("assume("), "{p1}");
    let plain = cmds(&t.program, 1)
        .into_iter()
        .filter(|c| !c.starts_with("tagged") && c.contains('['))
        .count();
    assert_eq!(plain, 1, "{p1}");
}

#[test]
fn changed_macro_file_changes_the_tags() {
    let def = DEF.replace("__load{once}", "__load{acquire}");
    let t = parse(&SourceFile::new("mp.litmus", MP), &macros(&def)).expect("parses");
    let p1 = cmds(&t.program, 1).join("\n");
    assert_eq!(p1.matches("tagged(acquire)").count(), 2, "{p1}");
    assert!(!p1.contains("tagged(once)"), "{p1}");
}

#[test]
fn read_modify_writes_are_atomic_steps() {
    let test = "C RMW\n{ }\nP0(int *x)\n{\n\tint r0;\n\tint r1;\n\tint r2;\n\tr0 = swap(x, 2);\n\tr1 = cas(x, 2, 3);\n\tinc(x);\n\tr2 = fetch_add(5, x);\n}\nexists (0:r0=0)\n";
    let t = parse(&SourceFile::new("rmw.litmus", test), &macros(DEF)).expect("parses");
    let c = cmds(&t.program, 0);
    let atomics: Vec<&String> = c.iter().filter(|s| s.starts_with("atomic {")).collect();
    // swap, cas (success and failure: two instructions), inc, fetch_add.
    assert_eq!(atomics.len(), 5, "{c:?}");
    assert_eq!(atomics[0].matches("tagged(mb)").count(), 2, "{c:?}");
    let cas: Vec<&&String> = atomics
        .iter()
        .filter(|s| s.contains("tagged(relaxed)"))
        .collect();
    assert_eq!(cas.len(), 2, "{c:?}");
    assert!(
        cas.iter()
            .any(|s| s.matches("tagged(relaxed)").count() == 1),
        "failed cas: read alone"
    );
    assert!(atomics[3].matches("tagged(noreturn)").count() == 2, "{c:?}");
}

/// A located error `file:line:col: error: …msg…`.
fn located(e: &bmc_rmm::diag::Error, file: &str, line: usize, col: usize, msg: &str) {
    let s = e.to_string();
    assert!(
        s.starts_with(&format!("{file}:{line}:{col}: error: ")),
        "{s}"
    );
    assert!(s.contains(msg), "{s}");
    assert_eq!(e.exit_code(), 2, "{s}");
}

fn bad(test: &str, line: usize, col: usize, msg: &str) {
    let e = parse(&SourceFile::new("bad.litmus", test), &macros(DEF)).expect_err("refused");
    located(&e, "bad.litmus", line, col, msg);
}

#[test]
fn bad_tests_are_located() {
    let head = "C bad\n{ }\nP0(int *x)\n{\n";
    bad(
        &format!("{head}\tnope(x);\n}}\n"),
        5,
        2,
        "`nope` is not a macro of the macro file t.def",
    );
    bad(
        &format!("{head}\tint r0 = lock_value(x);\n}}\n"),
        5,
        11,
        "`lock_value` (herd's `__lock`) is a statement in herd's C, not a value",
    );
    bad(
        &format!("{head}\twhile (1) {{ }}\n}}\n"),
        5,
        2,
        "`while` in a C litmus test is not supported",
    );
    bad(
        &format!("{head}\tint r0;\n\tr0 = LOAD(*x) +;\n}}\n"),
        6,
        17,
        "expected an expression",
    );
    bad(
        &format!("{head}\tint r0 = swap(x);\n}}\n"),
        5,
        11,
        "`swap` takes 2 arguments",
    );
    // herd looks a statement up among the statement macros only, a value
    // among the expression macros only ("Unknown macro").
    bad(
        &format!("{head}\tswap(x, 1);\n}}\n"),
        5,
        2,
        "`swap` is an expression macro of the macro file (t.def:6:1), used as a statement",
    );
    bad(
        &format!("{head}\tint r0 = full();\n}}\n"),
        5,
        11,
        "`full` is a statement macro of the macro file (t.def:5:1), used as a value",
    );
    bad(&format!("{head}\t3 = 1;\n}}\n"), 5, 2, "cannot assign");
    bad(
        "C bad\n{ }\nP1(int *x)\n{\n}\n",
        6,
        1,
        "expected the thread function `P0",
    );
    bad(
        "X86 bad\n{ }\nP0(int *x)\n{\n}\n",
        1,
        1,
        "a C litmus test starts with `C NAME`",
    );
}

#[test]
fn bad_macro_files_are_located() {
    let e = MacroFile::parse(&SourceFile::new("m.def", "A(X) __load{once}(X)\nB(X { }\n"))
        .expect_err("refused");
    located(&e, "m.def", 2, 5, "expected");
    let e = MacroFile::parse(&SourceFile::new("m.def", "A(X) 1\nA(Y) 2\n")).expect_err("refused");
    located(&e, "m.def", 2, 1, "macro `A` defined twice");
}

/// A bell file whose tags the model reads, and a flag.
const BELL: &str = "\
\"b\"
enum Tags = 'once || 'mb || 'release || 'relaxed || 'noreturn
instructions R[Tags]
instructions W[Tags]
instructions F[Tags]
let Full = Mb
";

/// A model over the bell's tags: the full fence, release stores and
/// control dependencies order; a flag on ONCE writes.
const CAT: &str = "\
\"m\"
acyclic po-loc | rf | co | fr as coherence
empty rmw & (fre ; coe) as atomic
let ord = ([M] ; po ; [Full] ; po ; [M]) | ([M] ; po ; [Release & W]) | ctrl | rmw
acyclic ord | rfe | co | fr as order
flag ~empty [Once & W] as once-write
flag ~empty [Noreturn] as no-return
";

/// The configuration of herd's C tests: macro file, bell, model.
fn conf(d: &std::path::Path, cat: &str) -> String {
    std::fs::write(d.join("m.def"), DEF).unwrap();
    std::fs::write(d.join("m.bell"), BELL).unwrap();
    std::fs::write(d.join("m.cat"), cat).unwrap();
    std::fs::write(
        d.join("m.cfg"),
        "macros m.def\nbell m.bell\nmodel m.cat\nvariant v1\n",
    )
    .unwrap();
    d.join("m.cfg").to_string_lossy().into_owned()
}

#[test]
fn litmus_conf_answers_with_tags_and_flags() {
    let dir = tempfile::tempdir().expect("temp dir");
    let d = dir.path();
    let cfg = conf(d, CAT);
    std::fs::write(d.join("mp.litmus"), MP).unwrap();
    let t = d.join("mp.litmus").to_string_lossy().into_owned();
    let (code, out, err) = common::run(&["litmus", "--conf", &cfg, &t]);
    assert_eq!(code, 0, "{out}{err}");
    // The fence tagged `mb` and the `release` store order P0, the
    // control dependency P1: MP is forbidden.
    assert!(out.contains("Observation MP+test Never 0 3"), "{out}");
    assert!(out.contains("Flag once-write\nCondition"), "{out}");
    assert!(!out.contains("no-return"), "{out}");
    // Without the fence's tag in the model, MP is observed.
    let cfg = conf(
        d,
        &CAT.replace("[Full]", "[Noreturn]")
            .replace("[Release & W]", "[Noreturn]"),
    );
    let (code, out, err) = common::run(&["litmus", "--conf", &cfg, &t]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("Observation MP+test Sometimes 1 3"), "{out}");
    // An atomic increment: its read and write carry `noreturn`; RMW is
    // the set of both.
    let inc =
        "C inc\n{ x=0; }\nP0(int *x)\n{\n\tinc(x);\n}\nP1(int *x)\n{\n\tinc(x);\n}\nexists (x=1)\n";
    std::fs::write(d.join("inc.litmus"), inc).unwrap();
    let cfg = conf(
        d,
        &format!("{CAT}flag ~empty RMW \\ (domain(rmw) | range(rmw)) as failed\n"),
    );
    let t = d.join("inc.litmus").to_string_lossy().into_owned();
    let (code, out, err) = common::run(&["litmus", "--conf", &cfg, &t]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("Observation inc Never 0 1"), "{out}");
    assert!(out.contains("Flag no-return\n"), "{out}");
    assert!(!out.contains("failed"), "{out}");
}

#[test]
fn litmus_conf_refuses_an_unread_model_construct() {
    let dir = tempfile::tempdir().expect("temp dir");
    let d = dir.path();
    std::fs::write(d.join("m.def"), DEF).unwrap();
    std::fs::write(
        d.join("m.bell"),
        "// a bell file\n\"b\"\nenum Tags = 'once || 'mb\nlet Full = Mb\nflag acyclic po as f\n",
    )
    .unwrap();
    std::fs::write(d.join("m.cat"), "\"m\"\nacyclic po | rf as sc\n").unwrap();
    std::fs::write(
        d.join("m.cfg"),
        "macros m.def\nbell m.bell\nmodel m.cat\nvariant v1\n",
    )
    .unwrap();
    std::fs::write(d.join("mp.litmus"), MP).unwrap();
    let cfg = d.join("m.cfg").to_string_lossy().into_owned();
    let t = d.join("mp.litmus").to_string_lossy().into_owned();
    let (code, _, err) = common::run(&["litmus", "--conf", &cfg, &t]);
    assert_eq!(code, 2, "{err}");
    // Only `flag ~empty` is read.
    assert!(
        err.contains("m.bell:5:6: error: `flag acyclic … as f`"),
        "{err}"
    );
    // A missing file named by the configuration: located at its key.
    std::fs::write(d.join("m.cfg"), "macros m.def\nmodel missing.cat\n").unwrap();
    let (code, _, err) = common::run(&["litmus", "--conf", &cfg, &t]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("m.cfg:2:1: error: `missing.cat` is not in"),
        "{err}"
    );
    // The search path: the cfg's folder, then -I.
    let inc = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        inc.path().join("missing.cat"),
        "\"m\"\nacyclic po | rf as sc\n",
    )
    .unwrap();
    let i = inc.path().to_string_lossy().into_owned();
    let (code, out, err) = common::run(&["litmus", "--conf", &cfg, "-I", &i, &t]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("is not in"), "{err}");
    assert!(out.contains("Observation MP+test"), "{out}");
}

/// A model that inverts rf (herd's `cos-opt.cat`: `fr = rf^-1 ; co`)
/// sees herd's initial writes as events: the read of the initial value
/// after the thread's own write is fr-before that write, so coherence
/// forbids it; `IW` and `co0` are the initial writes and their co pairs.
/// cdclt refuses such a model, located at the inversion.
#[test]
fn litmus_conf_initial_writes_are_events() {
    let dir = tempfile::tempdir().expect("temp dir");
    let d = dir.path();
    let cat = "\"m\"\nlet invrf = rf^-1\nlet fr2 = (invrf ; co) \\ id\n\
               acyclic po-loc | rf | co | fr2 as coherence\n\
               flag ~empty [IW] ; co ; [W] as iw-co\n\
               flag ~empty (co0 \\ ([IW] ; co)) | (([IW] ; co) \\ co0) as co0-differs\n\
               flag ~empty (IW * IW) & (ext | int | po) as iw-thread\n";
    let cfg = conf(d, cat);
    let cowr =
        "C CoWR\n{ x=0; }\nP0(int *x)\n{\n\tint r0;\n\tSTORE(*x, 1);\n\tr0 = LOAD(*x);\n}\nexists (0:r0=0)\n";
    std::fs::write(d.join("cowr.litmus"), cowr).unwrap();
    let t = d.join("cowr.litmus").to_string_lossy().into_owned();
    let (code, out, err) = common::run(&["litmus", "--conf", &cfg, &t]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("Observation CoWR Never 0 1"), "{out}");
    assert!(out.contains("Flag iw-co\n"), "{out}");
    assert!(!out.contains("co0-differs"), "{out}");
    assert!(!out.contains("iw-thread"), "{out}");
    // Without the inversion (the base fr), the same answer.
    let cfg = conf(d, "\"m\"\nacyclic po-loc | rf | co | fr as coherence\n");
    let (code, out, err) = common::run(&["litmus", "--conf", &cfg, &t]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("Observation CoWR Never 0 1"), "{out}");
    // cdclt has no initial writes as events: refused at `rf^-1`.
    let cfg = conf(d, cat);
    let (code, _, err) = common::run(&["litmus", "--solver", "cdclt", "--conf", &cfg, &t]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("m.cat:2:13: error: unsupported with `--solver cdclt`"),
        "{err}"
    );
}

/// herd's C `if` (`herd/CSem.ml`) gives ctrl from the condition's reads
/// to the events of its branches only: LB with a write after the `if` is
/// observed, with the write inside the branch it is not (herd7 7.58 with
/// this file's macro file, bell and model: `Sometimes 1 2` and `Never 0
/// 1`).
#[test]
fn litmus_conf_ctrl_reaches_the_branches_of_an_if_only() {
    let dir = tempfile::tempdir().expect("temp dir");
    let d = dir.path();
    let cfg = conf(d, CAT);
    let post = "C post\n{ x=0; y=0; z=0; }\nP0(int *x, int *y, int *z)\n{\n\tint r0;\n\tr0 = LOAD(*x);\n\tif (r0 == 1)\n\t\tSTORE(*z, 1);\n\tSTORE(*y, 1);\n}\nP1(int *x, int *y)\n{\n\tint r1;\n\tr1 = LOAD(*y);\n\tif (r1 == 1)\n\t\tSTORE(*x, 1);\n}\nexists (0:r0=1 /\\ 1:r1=1)\n";
    let inside = post.replace("C post", "C in").replace(
        "\t\tSTORE(*z, 1);\n\tSTORE(*y, 1);",
        "\t\tSTORE(*y, 1);\n\tSTORE(*z, 1);",
    );
    for (name, text, want) in [
        ("post", post.to_string(), "Observation post Sometimes 1 2"),
        ("in", inside, "Observation in Never 0 1"),
    ] {
        let p = d.join(format!("{name}.litmus"));
        std::fs::write(&p, text).unwrap();
        let (code, out, err) = common::run(&["litmus", "--conf", &cfg, &p.to_string_lossy()]);
        assert_eq!(code, 0, "{out}{err}");
        assert!(out.contains(want), "{out}");
    }
}

/// `ATOMIC_INIT(v)` in the init block is the value v (herd7 7.58:
/// `atomic_t x = ATOMIC_INIT(2);` then `x=2`).
#[test]
fn atomic_init_is_its_value() {
    let dir = tempfile::tempdir().expect("temp dir");
    let d = dir.path();
    let cfg = conf(d, CAT);
    let t = "C ai\n{\n  atomic_t x = ATOMIC_INIT(2);\n}\nP0(atomic_t *x)\n{\n\tint r0;\n\tr0 = LOAD(*x);\n}\nexists (0:r0=2)\n";
    let p = d.join("ai.litmus");
    std::fs::write(&p, t).unwrap();
    let (code, out, err) = common::run(&["litmus", "--conf", &cfg, &p.to_string_lossy()]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("Observation ai Always 1 0"), "{out}");
}

/// A small C11 model written here (not herd's): release/acquire
/// synchronisation through herd's C sets, and herd's data race as
/// `undefined_unless`.
const C11_CAT: &str = "C small-c11
let hb = (po | [REL | SC] ; rf ; [ACQ | SC])+
let fr = rf^-1 ; co
irreflexive hb ; (rf | co | fr)? as coherence
let cnf = ((W * _) | (_ * W)) & loc \\ ((IW * _) | (_ * IW))
undefined_unless empty (cnf & ext) \\ (hb | hb^-1 | A * A) as Dr
";

/// An MP test of C11 with the orders of its flag write and read.
fn c11_mp(w: &str, r: &str) -> String {
    format!(
        "C mp\n{{ [x] = 0; [y] = 0; }}\n\n// a comment before P0\nP0 (atomic_int* x, atomic_int* y) {{\n  \
         atomic_store_explicit(x, 1, memory_order_relaxed);\n  \
         atomic_store_explicit(y, 1, memory_order_{w});\n}}\n\
         P1 (atomic_int* x, atomic_int* y) {{\n  int r0 = atomic_load_explicit(y, memory_order_{r});\n  \
         int r1 = atomic_load_explicit(x, memory_order_relaxed);\n}}\nexists (1:r0=1 /\\ 1:r1=0)\n"
    )
}

/// herd's C11 built-ins: each access or fence tagged with its memory
/// order, whatever the macro file.
#[test]
fn c11_builtins_lower_to_accesses_tagged_with_their_order() {
    let src = c11_mp("release", "acquire").replace(
        "  int r1",
        "  atomic_thread_fence(memory_order_seq_cst);\n  int r1",
    );
    let t = parse(&SourceFile::new("mp.litmus", &src), &macros("")).expect("parses");
    let p0 = cmds(&t.program, 0);
    assert!(p0[0].starts_with("tagged(rlx) "), "{p0:?}");
    assert!(p0[1].starts_with("tagged(rel) "), "{p0:?}");
    let p1 = cmds(&t.program, 1).join("\n");
    assert!(p1.contains("tagged(acq) "), "{p1}");
    assert!(p1.contains("tagged(sc) marker"), "{p1}");
}

/// C11 tests under a model with herd's C sets and `undefined_unless`:
/// release/acquire forbids MP, relaxed allows it; a race between
/// non-atomic accesses prints herd's `Undef` and `Flag *undef*`.
#[test]
fn litmus_conf_answers_c11_tests_and_data_races() {
    let dir = tempfile::tempdir().expect("temp dir");
    let d = dir.path();
    std::fs::write(d.join("c11.cat"), C11_CAT).unwrap();
    std::fs::write(d.join("c11.cfg"), "model c11.cat\n").unwrap();
    let cfg = d.join("c11.cfg").to_string_lossy().into_owned();
    let run = |name: &str, text: &str| {
        let p = d.join(name);
        std::fs::write(&p, text).unwrap();
        common::run(&["litmus", "--conf", &cfg, &p.to_string_lossy()])
    };
    let (code, out, err) = run("ra.litmus", &c11_mp("release", "acquire"));
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("\nNo\n") && out.contains("Observation mp Never 0 3"),
        "{out}"
    );
    assert!(!out.contains("Flag"), "{out}");
    let (code, out, err) = run("rlx.litmus", &c11_mp("relaxed", "relaxed"));
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("\nOk\n") && out.contains("Observation mp Sometimes 1 3"),
        "{out}"
    );
    // Non-atomic x: P1 may read it while P0 writes it (a data race).
    let na = c11_mp("release", "acquire")
        .replace(
            "atomic_store_explicit(x, 1, memory_order_relaxed);",
            "*x = 1;",
        )
        .replace("atomic_load_explicit(x, memory_order_relaxed)", "*x");
    let (code, out, err) = run("na.litmus", &na);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("\nUndef\n"), "{out}");
    assert!(out.contains("Flag *undef*\nCondition"), "{out}");
    assert!(out.contains("Observation mp Never 0 3"), "{out}");
}

/// Malformed C11 uses: one located error each (the read-modify-writes'
/// are `c11_rmw`'s).
#[test]
fn bad_c11_tests_are_located() {
    let t = |body: &str| {
        format!("C bad\n{{ [x] = 0; }}\nP0 (atomic_int* x) {{\n  {body}\n}}\nexists (x=1)\n")
    };
    let bad = |body: &str, col: usize, msg: &str| {
        let e = parse(&SourceFile::new("bad.litmus", t(body)), &macros("")).expect_err("refused");
        located(&e, "bad.litmus", 4, col, msg);
    };
    bad(
        "atomic_store_explicit(x, 1, memory_order_strong);",
        31,
        "expected a memory order",
    );
    bad(
        "atomic_store_explicit(x, 1);",
        3,
        "`atomic_store_explicit` takes 3 arguments, found 2",
    );
    // The CLI: exit status 2, the error on stderr.
    let dir = tempfile::tempdir().expect("temp dir");
    let d = dir.path();
    std::fs::write(d.join("c11.cat"), C11_CAT).unwrap();
    std::fs::write(d.join("c11.cfg"), "model c11.cat\n").unwrap();
    let p = d.join("bad.litmus");
    std::fs::write(&p, t("atomic_thread_fence(memory_order_foo);")).unwrap();
    let (code, _, err) = common::run(&[
        "litmus",
        "--conf",
        &d.join("c11.cfg").to_string_lossy(),
        &p.to_string_lossy(),
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("bad.litmus:4:23: error: expected a memory order"),
        "{err}"
    );
}

/// herd's spinlock primitives: lock events tagged with herd's set names,
/// accesses of the lock's value (free 0, held 1).
#[test]
fn spinlocks_lower_to_tagged_lock_events() {
    let test = "C L\n{ }\nP0(int *x)\n{\n\tint r0;\n\tlock(x);\n\tr0 = trylock(x);\n\tunlock(x);\n\tr0 = is_locked(x);\n}\nexists (0:r0=0)\n";
    let c = parse(&SourceFile::new("l.litmus", test), &macros(DEF)).expect("parses");
    let all = cmds(&c.program, 0).join("\n");
    for tag in ["LKR", "LKW", "UL", "LF", "RL", "RU"] {
        assert!(all.contains(tag), "{tag} missing in\n{all}");
    }
}

/// The kernel's model (its lock.cat unchanged) on lock tests, against
/// herd7 7.58's answers (run on these tests with the corpus' model
/// files): Observation and the counts of states.
#[test]
fn kernel_model_answers_lock_tests_as_herd() {
    let Some(model) = common::corpus("lkmm/model") else {
        return;
    };
    let libdir = model.join("../../../tools/herd7/libdir");
    let dir = tempfile::tempdir().expect("temp dir");
    let body = |name: &str, code: &str, cond: &str| {
        format!("C {name}\n{{}}\nP0(spinlock_t *x)\n{{\n\tint r0;\n\tint r1;\n\tint r2;\n{code}}}\nexists ({cond})\n")
    };
    // (test, herd7's Observation line).
    let cases = [
        (
            body("b", "\tspin_lock(x);\n\tspin_unlock(x);\n\tr0 = spin_is_locked(x);\n", "0:r0=0"),
            "Observation b Always 1 0",
        ),
        (
            body("c", "\tspin_lock(x);\n\tr0 = spin_is_locked(x);\n\tspin_unlock(x);\n", "0:r0=1"),
            "Observation c Always 1 0",
        ),
        (
            body(
                "coww",
                "\tr0 = spin_is_locked(x);\n\tspin_lock(x);\n\tr1 = spin_is_locked(x);\n\tspin_unlock(x);\n\tr2 = spin_is_locked(x);\n",
                "0:r0=0 /\\ 0:r1=1 /\\ 0:r2=0",
            ),
            "Observation coww Always 1 0",
        ),
    ];
    for (test, want) in cases {
        let t = dir.path().join("t.litmus");
        std::fs::write(&t, &test).unwrap();
        let (code, out, err) = run_kernel(&model, &libdir, &t);
        assert_eq!(code, 0, "{test}\n{out}{err}");
        assert!(out.contains(want), "{test}\n{out}");
    }
}

/// herd's flags hold when some consistent execution has them, whatever
/// its final state: here every execution ends in the one state `y=1`,
/// and the data race (a plain write of `x` against `P1`'s marked read)
/// happens only on the branch `r0 == 1`, which the search for final
/// states need not visit; with the write marked there is none. herd7
/// 7.58's answers on these tests with the corpus' model files.
#[test]
fn kernel_model_flags_do_not_depend_on_the_states_found() {
    let Some(model) = common::corpus("lkmm/model") else {
        return;
    };
    let libdir = model.join("../../../tools/herd7/libdir");
    let dir = tempfile::tempdir().expect("temp dir");
    let test = |write: &str| {
        format!(
            "C late\n{{}}\nP0(int *x, int *y, int *z)\n{{\n\tint r0 = READ_ONCE(*y);\n\tif (r0 == 1) {{\n\t\t{write}\n\t}} else {{\n\t\tWRITE_ONCE(*z, 1);\n\t}}\n}}\nP1(int *x, int *y)\n{{\n\tWRITE_ONCE(*y, 1);\n\tint r1 = READ_ONCE(*x);\n}}\nexists (y=1)\n"
        )
    };
    for (write, race) in [("*x = 2;", true), ("WRITE_ONCE(*x, 2);", false)] {
        let t = dir.path().join("t.litmus");
        std::fs::write(&t, test(write)).unwrap();
        let (code, out, err) = run_kernel(&model, &libdir, &t);
        assert_eq!(code, 0, "{write}\n{out}{err}");
        assert!(out.contains("Observation late Always"), "{write}\n{out}");
        assert_eq!(out.contains("Flag data-race"), race, "{write}\n{out}");
    }
}

/// herd's C scoping, `atomic_add_unless` and symbolic values under the
/// kernel's model, against herd7 7.58's answers on these tests (run with
/// the corpus' model files): the States lines and the Observation word.
/// A name that is not the thread's parameter is a register holding 0
/// (`x` below is `P1`'s, not `P0`'s); a dereference of it is herd's "Non
/// symbolic address", refused; a register holding a pointer prints it by
/// name.
#[test]
fn kernel_model_answers_scoping_add_unless_and_pointers_as_herd() {
    let Some(model) = common::corpus("lkmm/model") else {
        return;
    };
    let libdir = model.join("../../../tools/herd7/libdir");
    let dir = tempfile::tempdir().expect("temp dir");
    // (test, herd7's States lines, Observation word).
    let cases: [(&str, &[&str], &str); 5] = [
        (
            "C S2\n{}\nP0(int *y) { WRITE_ONCE(*y, x); }\nP1(int *x, int *y) { int r0; r0 = READ_ONCE(*y); }\nexists (1:r0=0)\n",
            &["1:r0=0;"],
            "Always",
        ),
        (
            "C AU-2\n{ atomic_t y = ATOMIC_INIT(1); }\nP0(atomic_t *y) { int r0; r0 = atomic_add_unless(y, 1, 1); }\nP1(atomic_t *y) { int r0; r0 = atomic_add_unless(y, -1, 0); }\nexists (0:r0=1 /\\ 1:r0=1)\n",
            &["0:r0=0; 1:r0=1;", "0:r0=1; 1:r0=1;"],
            "Sometimes",
        ),
        (
            "C AU-LB-data\n{}\nP0(int *x, atomic_t *y, int *z) { int r0; int r1; r0 = READ_ONCE(*x); r1 = atomic_add_unless(y, r0, 7); WRITE_ONCE(*z, r1); }\nP1(int *x, int *z) { int r0; r0 = READ_ONCE(*z); smp_wmb(); WRITE_ONCE(*x, r0); }\nexists (0:r0=1 /\\ 1:r0=1)\n",
            &["0:r0=0; 1:r0=0;", "0:r0=0; 1:r0=1;"],
            "Never",
        ),
        (
            "C AU-LB-ctrl\n{}\nP0(int *x, atomic_t *y, int *z) { int r0; int r1; r0 = READ_ONCE(*x); r1 = atomic_add_unless(y, 1, r0); if (r1) WRITE_ONCE(*z, 1); }\nP1(int *x, int *z) { int r0; r0 = READ_ONCE(*z); smp_mb(); WRITE_ONCE(*x, 1); }\nexists (0:r0=1 /\\ 1:r0=1)\n",
            &["0:r0=0; 1:r0=0;", "0:r0=1; 1:r0=0;"],
            "Never",
        ),
        (
            "C MP+o-a+a-o\n{\nint x = 0;\nint *p = &x;\nint * 1:r1;\n}\nP0(int **p, int *y) { WRITE_ONCE(*y, 1); rcu_assign_pointer(*p, (void *)0); }\nP1(int **p, int *y) { int *r1; int r2; r1 = smp_load_acquire(p); r2 = READ_ONCE(*y); }\nexists (1:r1=0 /\\ 1:r2=0)\n",
            &["1:r1=0; 1:r2=1;", "1:r1=x; 1:r2=0;", "1:r1=x; 1:r2=1;"],
            "Never",
        ),
    ];
    for (test, states, obs) in cases {
        assert_kernel_answer(&model, &libdir, dir.path(), test, states, obs);
    }
    // `x` is P1's parameter: in P0 a register holding 0.
    let t = dir.path().join("t.litmus");
    std::fs::write(
        &t,
        "C S1\n{}\nP0(int *y) { int r0; WRITE_ONCE(*y, 1); r0 = READ_ONCE(*x); }\nP1(int *x, int *y) { int r0; WRITE_ONCE(*x, 1); r0 = READ_ONCE(*y); }\nexists (0:r0=0 /\\ 1:r0=0)\n",
    )
    .unwrap();
    let (code, _, err) = run_kernel(&model, &libdir, &t);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("t.litmus:3:46: error: access at an integer address"),
        "{err}"
    );
}

/// herd's C `ctrl` passes through a register written inside a branch:
/// herd's `control` relates a condition's register reads to every event
/// of the branch, register writes included, and its `ctrl` is the
/// closure of register data flow and `control` out of reads
/// (`herd/modelUtils.ml`, `make_procrels_nodeps`), while `addr` and
/// `data` follow register data flow only. So a later `if` on a register
/// set in both branches of an `if` on `r0` puts its branch under `ctrl`
/// from the read of `r0` (LB ordered: Never), and the same register as
/// a stored value or an address gives no dependency (LB: Sometimes). The
/// expected States and Observation words are herd7 7.58's on these tests
/// with the corpus' model files (`herd7 -set-libdir HERD/libdir -I
/// lkmm/model -conf lkmm/model/linux-kernel.cfg`); the last case is the
/// smallest form of a generated test (`bench/gen_lkmm.py`) where the
/// register is read from memory in the `else` branch.
#[test]
fn kernel_model_ctrl_passes_through_registers_written_in_a_branch() {
    let Some(model) = common::corpus("lkmm/model") else {
        return;
    };
    let libdir = model.join("../../../tools/herd7/libdir");
    let dir = tempfile::tempdir().expect("temp dir");
    let p1 = "P1(int *x, int *y) { int r2; r2 = READ_ONCE(*y); smp_mb(); WRITE_ONCE(*x, 1); }\nexists (0:r0=1 /\\ 1:r2=1)\n";
    let all4: &[&str] = &[
        "0:r0=0; 1:r2=0;",
        "0:r0=0; 1:r2=1;",
        "0:r0=1; 1:r2=0;",
        "0:r0=1; 1:r2=1;",
    ];
    // (test, herd7's States lines, Observation word).
    let cases: [(String, &[&str], &str); 4] = [
        (
            format!("C LB-branch-ctrl\n{{}}\nP0(int *x, int *y) {{ int r0; int r1; r0 = READ_ONCE(*x); if (r0 == 1) {{ r1 = 1; }} else {{ r1 = 1; }} if (r1 == 1) {{ WRITE_ONCE(*y, 1); }} }}\n{p1}"),
            &all4[..3],
            "Never",
        ),
        (
            format!("C LB-branch-data\n{{}}\nP0(int *x, int *y) {{ int r0; int r1; r0 = READ_ONCE(*x); if (r0 == 1) {{ r1 = 1; }} else {{ r1 = 1; }} WRITE_ONCE(*y, r1); }}\n{p1}"),
            all4,
            "Sometimes",
        ),
        (
            format!("C LB-branch-addr\n{{}}\nP0(int *x, int *y) {{ int r0; int *r1; r0 = READ_ONCE(*x); if (r0 == 1) {{ r1 = y; }} else {{ r1 = y; }} WRITE_ONCE(*r1, 1); }}\n{p1}"),
            all4,
            "Sometimes",
        ),
        (
            "C R-branch-read\n{ y = 7; }\nP0(int *x, int *z) { WRITE_ONCE(*z, 2); smp_mb(); WRITE_ONCE(*x, 1); }\nP1(int *x, int *y, int *z) { int r0; int r1; r0 = READ_ONCE(*x); if (r0 == 99) { r0 = 5; } else { r1 = READ_ONCE(*y); } if (r1 == 7) { WRITE_ONCE(*z, 1); } }\nexists (1:r0=1 /\\ z=2)\n".to_string(),
            &["1:r0=0; [z]=1;", "1:r0=0; [z]=2;", "1:r0=1; [z]=1;"],
            "Never",
        ),
    ];
    for (test, states, obs) in cases {
        assert_kernel_answer(&model, &libdir, dir.path(), &test, states, obs);
    }
}

/// A macro file with the kernel's SRCU macros (`linux-kernel.def`) and
/// herd's `__srcu` forms this front-end refuses.
const SRCU_DEF: &str = "\
srcu_read_lock(X) __load{srcu-lock}(*X)
srcu_read_unlock(X,Y) { __store{srcu-unlock}(*X,Y); }
synchronize_srcu(X) { __srcu{sync-srcu}(X); }
old_lock(X) __srcu{srcu-lock}(X)
old_unlock(X,Y) { __srcu{srcu-unlock}(X,Y); }
sync_deref(X) { __srcu{sync-srcu}(*X); }
";

/// SRCU as herd's C gives it: `srcu_read_lock` a read of the
/// `srcu_struct` tagged `srcu-lock`, `srcu_read_unlock` a write of its
/// argument tagged `srcu-unlock`, `synchronize_srcu` a located event
/// (herd's `SRCU` action: a location, no value) tagged `sync-srcu`.
#[test]
fn srcu_lowers_to_tagged_accesses_and_a_located_event() {
    let test = "C S\n{ }\nP0(int *x, struct srcu_struct *s)\n{\n\tint r0;\n\tr0 = srcu_read_lock(s);\n\tsrcu_read_unlock(s, r0);\n\tsynchronize_srcu(s);\n}\nexists (0:r0=0)\n";
    let t = parse(&SourceFile::new("s.litmus", test), &macros(SRCU_DEF)).expect("parses");
    let all = cmds(&t.program, 0).join("\n");
    for want in ["srcu-lock", "srcu-unlock", "sync-srcu", "located("] {
        assert!(all.contains(want), "{want} missing in\n{all}");
    }
    let p = &t.program.threads[0];
    let located = p.instrs.iter().any(|i| {
        let mut any = false;
        i.cmd.for_each(&mut |c| {
            any |= matches!(
                c,
                bmc_rmm::program::Command::Fence(bmc_rmm::program::Fence::Located(_))
            )
        });
        any
    });
    assert!(located, "{all}");
}

/// The forms of SRCU this front-end refuses, each one located error
/// naming the macro: a wrong number of arguments, herd's `__srcu` with a
/// value or `__srcu{srcu-lock}` (values herd makes up), a location that
/// is not a name.
#[test]
fn bad_srcu_uses_are_located() {
    let head = "C bad\n{ }\nP0(int *x, struct srcu_struct *s)\n{\n\tint r0;\n";
    let bad = |body: &str, line, col, msg: &str| {
        let test = format!("{head}{body}}}\n");
        let e =
            parse(&SourceFile::new("bad.litmus", &test), &macros(SRCU_DEF)).expect_err("refused");
        located(&e, "bad.litmus", line, col, msg);
    };
    bad(
        "\tr0 = srcu_read_lock(s);\n\tsrcu_read_unlock(s);\n",
        7,
        2,
        "`srcu_read_unlock` takes 2 arguments",
    );
    bad(
        "\tr0 = old_lock(s);\n",
        6,
        7,
        "`old_lock` (herd's `__srcu{srcu-lock}`) is not supported",
    );
    bad(
        "\told_unlock(s, 0);\n",
        6,
        2,
        "`old_unlock` (herd's `__srcu{srcu-unlock}`) is not supported",
    );
    bad(
        "\tsync_deref(x);\n",
        6,
        2,
        "its location must be a parameter or a variable's name",
    );
}

/// The kernel's model on SRCU tests (`tests/c_litmus/srcu/`: each rule
/// of the bell's SRCU part — matching through data, nesting, unmatched
/// locks and unlocks, a bad value match, several matches, grace periods
/// of the same and of another `srcu_struct`, `invalid-sleep`,
/// `lock-final`, `mixed-lock-accesses`), against herd7 7.58's answers
/// recorded by running it on these files with the corpus' model files
/// (`herd7 -set-libdir HERD/libdir -I lkmm/model -conf
/// lkmm/model/linux-kernel.cfg FILE`): the number of States, the
/// Observation word and the Flag lines.
#[test]
fn kernel_model_answers_srcu_tests_as_herd() {
    let Some(model) = common::corpus("lkmm/model") else {
        return;
    };
    let libdir = model.join("../../../tools/herd7/libdir");
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c_litmus/srcu");
    // (file, herd7's States count, Observation word, Flag lines).
    let cases: [(&str, usize, &str, &[&str]); 15] = [
        ("C-srcu-bad-value", 1, "Always", &["srcu-bad-value-match"]),
        ("C-srcu-carry", 2, "Sometimes", &[]),
        (
            "C-srcu-down-up",
            1,
            "Always",
            &["unmatched-srcu-lock", "unmatched-srcu-unlock"],
        ),
        ("C-srcu-if", 3, "Never", &[]),
        ("C-srcu-invalid-sleep", 2, "Sometimes", &["invalid-sleep"]),
        ("C-srcu-lock-final", 1, "Always", &["lock-final"]),
        ("C-srcu-mb-after", 3, "Never", &[]),
        ("C-srcu-mixed", 1, "Always", &["mixed-lock-accesses"]),
        ("C-srcu-mp-gp-other", 4, "Sometimes", &[]),
        ("C-srcu-mp-gp", 3, "Never", &[]),
        ("C-srcu-multiple", 1, "Always", &["multiple-srcu-matches"]),
        ("C-srcu-nested-data", 3, "Never", &[]),
        (
            "C-srcu-unmatched-lock",
            2,
            "Sometimes",
            &["unmatched-srcu-lock"],
        ),
        (
            "C-srcu-unmatched-unlock",
            1,
            "Always",
            &["unmatched-srcu-lock", "unmatched-srcu-unlock"],
        ),
        (
            "C-srcu-value-from-unlock",
            2,
            "Sometimes",
            &["srcu-bad-value-match"],
        ),
    ];
    for (name, states, obs, flags) in cases {
        let f = dir.join(format!("{name}.litmus"));
        let (code, out, err) = run_kernel(&model, &libdir, &f);
        assert_eq!(code, 0, "{name}\n{out}{err}");
        assert!(out.contains(&format!("States {states}\n")), "{name}\n{out}");
        let word = out.lines().find_map(|l| l.strip_prefix("Observation "));
        let word = word.and_then(|l| l.split_whitespace().nth(1));
        assert_eq!(word, Some(obs), "{name}\n{out}");
        let got: Vec<&str> = (out.lines())
            .filter_map(|l| l.strip_prefix("Flag "))
            .collect();
        let mut got = got;
        got.sort_unstable();
        assert_eq!(got, flags, "{name}\n{out}");
    }
}

/// Statements and expressions nested deeper than the parser's limit are
/// one located error, never a stack overflow (20,000 nested `(`; 10,000
/// nested `if`s).
#[test]
fn deep_nesting_is_a_located_error() {
    let parens = MP.replace(
        "load_via(y)",
        &format!("{}1{}", "(".repeat(20_000), ")".repeat(20_000)),
    );
    let ifs = MP.replace(
        "\tr0 = load_via(y);",
        &format!("{}r0 = 1;", "if (1) ".repeat(10_000)),
    );
    for (text, line) in [(parens, 20), (ifs, 20)] {
        let e = parse(&SourceFile::new("deep.litmus", text), &macros(DEF)).expect_err("refused");
        let shown = e.to_string();
        assert!(
            shown.starts_with(&format!("deep.litmus:{line}:")),
            "{shown}"
        );
        assert!(shown.contains("nested deeper than 256"), "{shown}");
    }
}

/// `bmc-rmm litmus` on `file` with the kernel's configuration in `model`
/// and herd's library `libdir`: (exit status, stdout, stderr).
fn run_kernel(
    model: &std::path::Path,
    libdir: &std::path::Path,
    file: &std::path::Path,
) -> (i32, String, String) {
    common::run(&[
        "litmus",
        "--conf",
        &model.join("linux-kernel.cfg").to_string_lossy(),
        "-I",
        &libdir.to_string_lossy(),
        &file.to_string_lossy(),
    ])
}

/// Runs `test` under the kernel's model (in `dir`) and asserts its
/// States lines are `states` and its Observation word `obs`.
fn assert_kernel_answer(
    model: &std::path::Path,
    libdir: &std::path::Path,
    dir: &std::path::Path,
    test: &str,
    states: &[&str],
    obs: &str,
) {
    let t = dir.join("t.litmus");
    std::fs::write(&t, test).unwrap();
    let (code, out, err) = run_kernel(model, libdir, &t);
    assert_eq!(code, 0, "{test}\n{out}{err}");
    let got: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.starts_with("States "))
        .skip(1)
        .take_while(|l| !matches!(*l, "Ok" | "No"))
        .collect();
    assert_eq!(got, states, "{test}\n{out}");
    assert!(out.contains(&format!(" {obs} ")), "{test}\n{out}");
}

/// A condition may compare two locations (`0:r0=1:r0`, `x=[y]`: herd's
/// location-to-location atoms; a bare name on the right stays the
/// address of that variable), and `litmus --conf --json` prints one
/// record per test with its flags; the options `--conf` does not honour
/// are a usage error.
#[test]
fn litmus_conf_compares_locations_and_prints_json() {
    let dir = tempfile::tempdir().expect("temp dir");
    let d = dir.path();
    let cfg = conf(d, CAT);
    let sb = |cond: &str| {
        format!(
            "C SB\n{{ x=0; y=0; }}\nP0(int *x, int *y)\n{{\n\tSTORE(*x, 1);\n\tint r0 = LOAD(*y);\n}}\nP1(int *x, int *y)\n{{\n\tSTORE(*y, 1);\n\tint r0 = LOAD(*x);\n}}\nexists ({cond})\n"
        )
    };
    // Four final states of the registers (SB without fences), two with
    // equal registers; one final state of the memory.
    for (cond, word) in [
        ("0:r0=1:r0", "Sometimes 2 2"),
        ("~0:r0=1:r0 /\\ 0:r0=0", "Sometimes 1 3"),
        ("x=[y]", "Always 1 0"),
        ("0:r0=1:r0 /\\ 0:r0=2", "Never 0 4"),
    ] {
        std::fs::write(d.join("sb.litmus"), sb(cond)).unwrap();
        let t = d.join("sb.litmus").to_string_lossy().into_owned();
        let (code, out, err) = common::run(&["litmus", "--conf", &cfg, &t]);
        assert_eq!(code, 0, "{cond}\n{out}{err}");
        assert!(
            out.contains(&format!("Observation SB {word}")),
            "{cond}\n{out}"
        );
    }
    let t = d.join("sb.litmus").to_string_lossy().into_owned();
    let (code, out, err) = common::run(&["litmus", "--json", "--conf", &cfg, &t]);
    assert_eq!(code, 0, "{out}{err}");
    let rec: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON record");
    assert_eq!(rec["observation"], "Never", "{out}");
    assert_eq!(rec["states"].as_array().map(Vec::len), Some(4), "{out}");
    assert!(rec["flags"].is_array(), "{out}");
    let (code, _, err) = common::run(&["litmus", "--expect", "e.tsv", "--conf", &cfg, &t]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--expect is not available with --conf"),
        "{err}"
    );
}

/// A changed model file changes the answers, and `diff` between two
/// herd configurations lists exactly the tests whose answers change: a
/// copy of the kernel's model without its `propagation` axiom allows SB
/// with full barriers (herd7 7.58 on the two copies: Never, then
/// Sometimes) and leaves MP with release/acquire forbidden (its
/// happens-before axiom still holds); a copy without the `data-race` flag
/// changes only the flags of a racy test.
#[test]
fn diff_between_two_kernel_models_lists_the_changed_tests() {
    let Some(model) = common::corpus("lkmm/model") else {
        return;
    };
    let libdir = model.join("../../../tools/herd7/libdir");
    let lkmm = model.join("..");
    let dir = tempfile::tempdir().expect("temp dir");
    let copy = |name: &str, edit: &dyn Fn(&str) -> String| {
        let d = dir.path().join(name);
        std::fs::create_dir_all(&d).unwrap();
        for e in std::fs::read_dir(&model).unwrap() {
            let p = e.unwrap().path();
            let text = std::fs::read_to_string(&p).unwrap();
            let text = match p.file_name().and_then(|n| n.to_str()) {
                Some("linux-kernel.cat") => edit(&text),
                _ => text,
            };
            std::fs::write(d.join(p.file_name().unwrap()), text).unwrap();
        }
        d.join("linux-kernel.cfg").to_string_lossy().into_owned()
    };
    let orig = model
        .join("linux-kernel.cfg")
        .to_string_lossy()
        .into_owned();
    let no_pb = copy("no-pb", &|t| {
        assert!(t.contains("acyclic pb as propagation"));
        t.replace("acyclic pb as propagation", "")
    });
    let sb = lkmm.join("kernel/SB+fencembonceonces.litmus");
    let mp = lkmm.join("kernel/MP+pooncerelease+poacquireonce.litmus");
    let (sb, mp) = (sb.to_string_lossy(), mp.to_string_lossy());
    let lib = libdir.to_string_lossy();
    // The changed model alone: SB's outcome becomes reachable.
    let (code, out, err) = common::run(&["litmus", "--conf", &no_pb, "-I", &lib, &sb]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("Observation SB+fencembonceonces Sometimes"),
        "{out}"
    );
    let models = format!("{orig},{no_pb}");
    let (code, out, err) =
        common::run(&["diff", "--json", "--models", &models, "-I", &lib, &sb, &mp]);
    assert_eq!(code, 1, "{out}{err}");
    let rows: Vec<serde_json::Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), 1, "{out}");
    assert!(
        rows[0]["file"]
            .as_str()
            .unwrap()
            .ends_with("SB+fencembonceonces.litmus"),
        "{out}"
    );
    // Without the data-race flag: a racy test's flags change, nothing else.
    let no_race = copy("no-race", &|t| {
        assert!(t.contains("as data-race"));
        t.replace("flag ~empty (ww-race | wr-race | rw-race) as data-race", "")
    });
    let racy = lkmm.join("dat3m/auto/C-LB-Lrw+R-Oc+R-D+R-D.litmus");
    let racy = racy.to_string_lossy();
    let models = format!("{orig},{no_race}");
    let (code, out, err) = common::run(&["diff", "--models", &models, "-I", &lib, &racy, &mp]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("verdict differs (1)"), "{out}");
    assert!(out.contains("flags") && out.contains("data-race"), "{out}");
    assert!(!out.contains("MP+pooncerelease"), "{out}");
}

/// herd7's command line: `bmc-rmm herd7 -conf CFG FILE` prints herd's
/// block of a C test with its `Flag` lines and no summary; the binary run
/// under the name `herd7` (a link, as a script finds it on its PATH)
/// answers an X86 test under herd's default model of its architecture
/// with herd's log (`Hash=`); an option herd7 has and this mode does not
/// translate is a usage error naming it.
#[test]
fn herd7_command_line_runs_in_herd7s_place() {
    let dir = tempfile::tempdir().expect("temp dir");
    let d = dir.path();
    let cfg = conf(d, CAT);
    std::fs::write(d.join("mp.litmus"), MP).unwrap();
    let t = d.join("mp.litmus").to_string_lossy().into_owned();
    let (code, out, err) = common::run(&["herd7", "-conf", &cfg, &t]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.starts_with("Test MP+test Allowed\n"), "{out}");
    assert!(out.contains("Flag once-write\nCondition"), "{out}");
    assert!(out.contains("Observation MP+test Never 0 3"), "{out}");
    assert!(!err.contains("summary"), "{err}");
    #[cfg(unix)]
    {
        let link = d.join("herd7");
        std::os::unix::fs::symlink(common::bin_path(), &link).unwrap();
        let sb =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/litmus/X86-SB.litmus");
        let mut c = std::process::Command::new(&link);
        c.args(["-timeout", "20", &sb.to_string_lossy()]);
        let (code, out, err) = common::output(c);
        assert_eq!(code, 0, "{out}{err}");
        assert!(out.contains("Observation SB Sometimes"), "{out}");
        assert!(out.contains("Hash="), "{out}");
        let (code, _, err) = common::run(&["herd7", "-o", "out", &t]);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains("herd7 option -o is not supported"), "{err}");
    }
}

/// The time limit stops the enumeration of a C litmus test even while
/// its search meets only conflicts and no candidate: Dat3M's lock-free
/// `ABA` test under the kernel's model (herd7 7.58 does not finish it in
/// 60 s) is unknown at `--timeout 0.5`, exit status 3, well before the
/// 15 s its search took before the limit was checked between leaves
/// (the bound below leaves room for a loaded machine).
#[test]
fn the_time_limit_stops_a_search_without_leaves() {
    let Some(model) = common::corpus("lkmm/model") else {
        return;
    };
    let libdir = model.join("../../../tools/herd7/libdir");
    let aba = model.join("../dat3m/lockfree/ABA.litmus");
    let start = std::time::Instant::now();
    let (code, out, err) = common::run(&[
        "litmus",
        "--timeout",
        "0.5",
        "--conf",
        &model.join("linux-kernel.cfg").to_string_lossy(),
        "-I",
        &libdir.to_string_lossy(),
        &aba.to_string_lossy(),
    ]);
    let took = start.elapsed().as_secs_f64();
    assert_eq!(code, 3, "{out}{err}");
    assert!(
        err.contains("ABA.litmus: unknown: time limit reached"),
        "{err}"
    );
    assert!(took < 6.0, "answered after {took:.1} s");
}

/// herd gives every event of one C statement one program-order index
/// (`herd/CSem.ml`): they are unordered in `po`, which the lowering (events
/// in sequence) does not model, so a statement with two events is
/// refused at the statement. herd7 7.58 with `rc11.cat` answers the first
/// test `Ok` (the relaxed load of `y` may read 0 after the acquire load
/// read 1); ordering the two loads would answer `No`. One event per
/// statement, a read-modify-write's own read and write, and a
/// compare-exchange are accepted.
#[test]
fn two_events_in_one_statement_are_refused_at_the_statement() {
    let t = |body: &str| {
        format!(
            "C two\n{{ [x] = 0; [y] = 0; }}\nP0 (atomic_int* x, atomic_int* y, int* e) {{\n  {body}\n}}\nexists (x=1)\n"
        )
    };
    let bad = |body: &str, col: usize| {
        let e = parse(&SourceFile::new("two.litmus", t(body)), &macros("")).expect_err("refused");
        located(&e, "two.litmus", 4, col, "a statement with 2 memory events");
    };
    bad("int r0 = atomic_load_explicit(x, memory_order_acquire) + 2 * atomic_load_explicit(y, memory_order_relaxed);", 7);
    bad("atomic_store_explicit(y, atomic_load_explicit(x, memory_order_relaxed), memory_order_relaxed);", 3);
    bad("*y = *x;", 3);
    bad("if (atomic_load_explicit(x, memory_order_relaxed) == atomic_load_explicit(y, memory_order_relaxed)) { *y = 1; }", 3);
    for ok in [
        "int r0 = atomic_load_explicit(x, memory_order_acquire); int r1 = *y + r0;",
        "int r0 = atomic_fetch_add_explicit(x, 1, memory_order_relaxed);",
        "int r0 = atomic_compare_exchange_strong_explicit(x, e, 1, memory_order_relaxed, memory_order_relaxed);",
        "if (atomic_load_explicit(x, memory_order_relaxed) == 1) { *y = 1; }",
    ] {
        if let Err(e) = parse(&SourceFile::new("ok.litmus", t(ok)), &macros("")) {
            panic!("{ok}: {e}");
        }
    }
}
