//! A mutational smoke fuzz of the front-ends on stable Rust, with no
//! dependency: a fixed number of mutations of the bundled inputs
//! (`examples/**/*.rmm`, a few Trencher programs written here,
//! `tests/litmus/**/*.litmus`, `encodings/*.cat`, `examples/c/*.c`, and
//! `tests/fuzz_seeds/TARGET/` for herd's C litmus tests with their macro
//! files, bell files, herd configurations and SV-COMP task files), from
//! a fixed seed, fed through the library API. The real fuzzing (coverage-guided, AFL++) is
//! in `fuzz/` (fuzz/README.md); this test keeps the cheap part of it in
//! `cargo test`.
//!
//! Each input must give a value or one located error: any panic fails the
//! test, which names the mutated input (written to
//! `$TMPDIR/bmc-rmm-fuzz-smoke/`, and shown escaped). The checks are the
//! ones of `fuzz/src/lib.rs`: a native or Trencher program that parses is
//! printed back in the native language and must re-parse to the same
//! program; a litmus test that parses has its condition printed and
//! evaluated; a cat model that parses is evaluated on a small candidate.
//!
//! Crash classes that are known and not fixed yet are listed in
//! [`KNOWN_CLASSES`]; whoever fixes one removes its line, and from then on
//! the test fails on any occurrence. A panic of a listed class is counted
//! and skipped; any other panic fails. A stack overflow cannot be caught
//! (it aborts the whole test binary), so the deep-nesting classes are
//! not *generated* while listed: litmus (resp. cat) inputs nested deeper
//! than [`SHALLOW`] are dropped before parsing. Once a class is removed,
//! its inputs are generated with repetitions up to 100,000 and must parse
//! on the 2 MiB stack of a test thread. Before parsing an input deeper
//! than [`SHALLOW`], the test writes it to
//! `$TMPDIR/bmc-rmm-fuzz-smoke/TARGET-current.EXT`: if the binary aborts
//! with "has overflowed its stack", that file is the input.

use std::cell::RefCell;
use std::fmt::Write as _;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::Once;

/// A crash class known and not fixed yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Known {
    /// The cat lexer slices its input inside a multi-byte UTF-8 character
    /// after a symbol: a panic "byte index N is not a char boundary" in
    /// `src/cat/`.
    CatLexerUtf8,
    /// Deep nesting overflows the stack in the litmus `exists` condition
    /// parser (3,000 nested `(`, 10,000 `\/`, 100,000 `~`).
    LitmusConditionDepth,
    /// Deep nesting overflows the stack in the cat parser/evaluator
    /// (`acyclic po | po | …` with 20,000 terms; same with `;`, `^-1`).
    CatDepth,
}

/// The known classes: remove a line when its class is fixed.
const KNOWN_CLASSES: &[Known] = &[];

/// Mutated inputs per front-end (fewer for the slow ones: [`Target::iterations`]).
const ITERATIONS: usize = 10_000;

/// Mutations applied to one input: 1 to this many.
const MAX_MUTATIONS: usize = 4;

/// The nesting an input of a front-end with a listed deep-nesting class
/// may have ([`nesting`]); deeper ones are not parsed. Far below what
/// overflows a 2 MiB stack today.
const SHALLOW: usize = 64;

/// The repetition counts of the "very long repetition" mutation.
const LONG: &[usize] = &[100, 300, 1_000, 3_000, 10_000, 20_000, 100_000];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    Native,
    Trencher,
    Litmus,
    Cat,
    CProgram,
    CLitmus,
    Bell,
    Conf,
    SvcompTask,
}

impl Target {
    fn name(self) -> &'static str {
        match self {
            Target::Native => "native",
            Target::Trencher => "trencher",
            Target::Litmus => "litmus",
            Target::Cat => "cat",
            Target::CProgram => "c_program",
            Target::CLitmus => "c_litmus",
            Target::Bell => "bell",
            Target::Conf => "conf",
            Target::SvcompTask => "svcomp_task",
        }
    }
    fn ext(self) -> &'static str {
        match self {
            Target::Native => "rmm",
            Target::Trencher => "txt",
            Target::Litmus => "litmus",
            Target::Cat => "cat",
            Target::CProgram => "c",
            Target::CLitmus => "litmus",
            Target::Bell => "bell",
            Target::Conf => "cfg",
            Target::SvcompTask => "yml",
        }
    }
    /// Mutated inputs of this front-end: [`ITERATIONS`], a tenth for
    /// the C front-end (a seed is 40 KB once preprocessed) and a fifth
    /// for C litmus tests (each is lowered), so each smoke test takes
    /// seconds.
    fn iterations(self) -> usize {
        match self {
            Target::CProgram => ITERATIONS / 10,
            Target::CLitmus => ITERATIONS / 5,
            _ => ITERATIONS,
        }
    }
    /// Deep inputs of this front-end are not parsed while its
    /// deep-nesting class is listed.
    fn shallow_only(self) -> bool {
        match self {
            Target::Litmus => KNOWN_CLASSES.contains(&Known::LitmusConditionDepth),
            Target::Cat => KNOWN_CLASSES.contains(&Known::CatDepth),
            _ => false,
        }
    }
    /// Tokens worth inserting (once or repeated very many times).
    #[rustfmt::skip]
    fn tokens(self) -> &'static [&'static str] {
        match self {
            Target::Native => &[
                "(", ")", "{", "}", "[", "]", "!", "-", "~", ";", "if (r) {", "while (r) {",
                "choose {", "} or {", "atomic {", "mem[", "r = ", "x = ", "== ", "&& ", "+ ", "-> ",
                "shared x;", "thread t {", "goal final where ", "`", "`a\\`b`", "#", "@", "0x",
                "9223372036854775808", "-32768", "/*", "*/", "//",
            ],
            Target::Trencher => &[
                "! ", "+ ", "- ", "== ", "&& ", "* 1 ", "thread ", "initial ", "transition ",
                "end ", "read ", "write ", "local ", "check ", "-32768 ", "9223372036854775808 ",
                "+ 1 ", "# ", "`", "\\", "007 ",
            ],
            Target::Litmus => &[
                "(", ")", "~", "\\/", "/\\", "not ", "exists ", "forall ", "~exists ", "0:EAX=1 ",
                "x=1 ", "[x]=1 ", "true ", "|", ";", "{", "}", "P0", "MOV EAX,[x]", "lwz r1,0(r2)",
                "0:r1=1 /\\ ", "(x=1 \\/ ", "locations [", "filter ", "(*", "*)", "\"",
            ],
            Target::Cat => &[
                "(", ")", "[", "]", "~", "|", ";", "&", "\\", "*", "+", "?", "^-1", "^+", "^*",
                "| po ", "; po ", "po^-1", "~po ", "(po ", "let ", "rec ", "and ", "acyclic ",
                "irreflexive ", "empty ", "as ", "domain(", "range(", "fencerel(", "(*", "*)", "\"",
                "0", "let x = x ", "include \"a.cat\" ",
            ],
            Target::CProgram => &[
                "(", ")", "{", "}", "[", "]", "*", "&", ";", "if (r) ", "while (1) ", "for (;;) ",
                "goto L; ", "L: ", "int x; ", "pthread_create(&t, 0, f, 0); ", "return 0; ",
                "__VERIFIER_atomic_begin(); ", "__VERIFIER_atomic_end(); ", "assert(x); ",
                "__VERIFIER_nondet_int()", "switch (x) { case 1: ", "break; ", "struct s { int a; }; ",
                "/*", "*/", "//", "#", "4294967296", "-2147483648",
            ],
            Target::CLitmus => &[
                "(", ")", "{", "}", "*", "&", ";", "%%\n", "P0(int *x) ", "int r0; ", "r0 = ",
                "READ(*x)", "WRITE(*x, 1); ", "mb(); ", "xchg(x, 1)", "if (r0) ", "else ",
                "__load{once}(X)", "__store{once}(X,V)", "__fence{mb}", "X(Y) ", "{ ", "} ",
                "exists (", "0:r0=1 /\\ ", "x=1 ", "(*", "*)", "atomic_t y = ATOMIC_INIT(1); ",
            ],
            Target::Bell => &[
                "%%\n", "enum T = 'a || 'b ", "instructions R[T] ", "instructions W[T] ",
                "let ", "rec ", "and ", "in ", "(", ")", "[", "]", "|", ";", "&", "\\", "^-1",
                "acyclic ", "empty ", "flag ~empty ", "as x ", "fun ", "match ", "with ",
                "if \"v\" then ", "else ", "end ", "domain(", "range(", "include \"a.cat\" ",
                "(*", "*)", "\"",
            ],
            Target::Conf => &[
                "macros ", "bell ", "model ", "variant ", "a.cat", "/", "..", "#", "//", ",",
            ],
            Target::SvcompTask => &[
                "format_version: '2.0'\n", "input_files: ", "properties:\n", "  - ",
                "property_file: ", "expected_verdict: ", "true", "false", "options:\n",
                "  data_model: ", "ILP32", "LP64", "language: C\n", "[", "]", "{", "}", ": ",
                "'", "&a ", "*a", "!!int ", "---\n", "...\n",
            ],
        }
    }
}

/// Tokens inserted into every kind of input.
#[rustfmt::skip]
const COMMON: &[&str] = &[
    "é", "€", "𝄞", "\u{301}", "\u{feff}", "\u{2028}", "\u{85}", "\u{fffd}", "\0", "\t", "\r", "\n",
    " ", "\"", "'", "\\", "0", "-1", "65536", "-9223372036854775808", "99999999999999999999",
];

/// Multi-byte UTF-8 characters (2, 3 and 4 bytes; a combining mark,
/// a BOM, a line separator, the replacement character).
#[rustfmt::skip]
const MULTI_BYTE: &[&str] = &[
    "é", "€", "𝄞", "\u{301}", "\u{feff}", "\u{2028}", "\u{fffd}", "ß",
];

/// xorshift64* (fixed seed: every run mutates the same way).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// Uniform-ish in `0..n` (n > 0).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}

/// Applies one random mutation to `data`; returns its description.
fn mutate(rng: &mut Rng, target: Target, data: &mut Vec<u8>, others: &[Vec<u8>]) -> String {
    let len = data.len();
    let at = rng.below(len + 1);
    match rng.below(9) {
        0 if len > 0 => {
            let i = rng.below(len);
            let bit = rng.below(8);
            data[i] ^= 1 << bit;
            format!("flip bit {bit} of byte {i}")
        }
        1 if len > 0 => {
            let i = rng.below(len);
            let b = *rng.pick(b"(){}[];|~\\/^-!`\"#\n\x00\x7f\x80\xc3\xe2\xf0\xff");
            data[i] = b;
            format!("set byte {i} to {b:#04x}")
        }
        2 | 3 => {
            let tok = if rng.below(3) == 0 {
                rng.pick(COMMON)
            } else {
                rng.pick(target.tokens())
            };
            data.splice(at..at, tok.bytes());
            format!("insert {tok:?} at {at}")
        }
        4 if len > 0 => {
            let max = if rng.below(4) == 0 { len } else { len.min(16) };
            let n = 1 + rng.below(max);
            let from = rng.below(len - n + 1);
            data.drain(from..from + n);
            format!("delete {n} bytes at {from}")
        }
        5 if len > 0 => {
            let n = 1 + rng.below(len.min(256));
            let from = rng.below(len - n + 1);
            let slice = data[from..from + n].to_vec();
            let times = 1 + rng.below(4);
            for _ in 0..times {
                data.splice(at..at, slice.iter().copied());
            }
            format!("copy {n} bytes from {from} to {at}, {times} times")
        }
        6 => {
            let tok = rng.pick(target.tokens());
            let times = *rng.pick(LONG);
            let rep = tok.repeat(times);
            data.splice(at..at, rep.bytes());
            format!("insert {tok:?} x {times} at {at}")
        }
        7 if rng.below(2) == 0 => {
            // A multi-byte character right after punctuation (lexers that
            // look ahead by bytes).
            let punct: Vec<usize> = (0..len)
                .filter(|&i| data[i].is_ascii_punctuation())
                .collect();
            let at = if punct.is_empty() {
                at
            } else {
                rng.pick(&punct) + 1
            };
            let ch = rng.pick(MULTI_BYTE);
            data.splice(at..at, ch.bytes());
            format!("insert {ch:?} at {at}")
        }
        7 if !others.is_empty() => {
            let other = rng.pick(others);
            if other.is_empty() {
                return "nothing".to_string();
            }
            let n = 1 + rng.below(other.len().min(512));
            let from = rng.below(other.len() - n + 1);
            data.splice(at..at, other[from..from + n].iter().copied());
            format!("splice {n} bytes of another input at {at}")
        }
        _ => {
            data.truncate(at);
            format!("truncate to {at} bytes")
        }
    }
}

/// Words that start a new statement or condition: binary operators are
/// counted from the last one ([`nesting`]).
const STATEMENT_WORDS: &[&[u8]] = &[
    b"let",
    b"and",
    b"acyclic",
    b"irreflexive",
    b"empty",
    b"show",
    b"unshow",
    b"include",
    b"exists",
    b"forall",
    b"filter",
    b"locations",
    b"thread",
    b"goal",
    b"transition",
];

/// How deeply an input may nest a parser: the largest of the depth of
/// brackets, the number of binary-operator and postfix tokens (`|`, `;`,
/// `\/`, `/\`, `&`, `\`, `^`, `+`, `*`, `?`) since the last statement
/// word ([`STATEMENT_WORDS`]), and the longest run of prefix operators
/// (`~`, `!`, `-`, `not`): a conservative stand-in for the depth of a
/// recursive descent.
fn nesting(text: &[u8]) -> usize {
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let (mut depth, mut max_depth, mut ops, mut max_ops) = (0usize, 0, 0, 0);
    let (mut run, mut max_run) = (0usize, 0);
    let mut i = 0;
    while i < text.len() {
        let c = text[i];
        if ident(c) && (i == 0 || !ident(text[i - 1])) {
            let end = (i..text.len())
                .find(|&j| !ident(text[j]))
                .unwrap_or(text.len());
            let word = &text[i..end];
            if STATEMENT_WORDS.contains(&word) {
                ops = 0;
            }
            if word == b"not" {
                run += 1;
                max_run = max_run.max(run);
            } else {
                run = 0;
            }
            i = end;
            continue;
        }
        match c {
            b'(' | b'[' | b'{' => {
                depth += 1;
                max_depth = max_depth.max(depth);
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            b'|' | b';' | b'&' | b'\\' | b'^' | b'+' | b'*' | b'?' => {
                ops += 1;
                max_ops = max_ops.max(ops);
            }
            _ => {}
        }
        if matches!(c, b'~' | b'!' | b'-') {
            run += 1;
            max_run = max_run.max(run);
        } else if !c.is_ascii_whitespace() && c != b'(' {
            run = 0;
        }
        i += 1;
    }
    max_depth.max(max_ops).max(max_run)
}

/// What a panic left: its message and location.
#[derive(Clone, Debug)]
struct PanicInfo {
    message: String,
    file: String,
    line: u32,
}

thread_local! {
    /// The last panic of this thread inside a check.
    static LAST_PANIC: RefCell<Option<PanicInfo>> = const { RefCell::new(None) };
    /// True while this thread runs a check (its panics are not printed).
    static IN_CHECK: RefCell<bool> = const { RefCell::new(false) };
}

/// Installs (once) a panic hook that records panics inside checks
/// instead of printing them, and prints the others as usual.
fn install_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let default = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if IN_CHECK.with(|f| *f.borrow()) {
                let message = if let Some(s) = info.payload().downcast_ref::<&str>() {
                    s.to_string()
                } else if let Some(s) = info.payload().downcast_ref::<String>() {
                    s.clone()
                } else {
                    "(non-string panic payload)".to_string()
                };
                let (file, line) = info
                    .location()
                    .map_or((String::new(), 0), |l| (l.file().to_string(), l.line()));
                LAST_PANIC.with(|p| {
                    *p.borrow_mut() = Some(PanicInfo {
                        message,
                        file,
                        line,
                    })
                });
            } else {
                default(info);
            }
        }));
    });
}

/// The listed class a panic belongs to, if any.
fn known_class(target: Target, p: &PanicInfo) -> Option<Known> {
    let file = p.file.replace('\\', "/");
    let in_cat = file.contains("src/cat/");
    if target == Target::Cat
        && in_cat
        && p.message.contains("is not a char boundary")
        && KNOWN_CLASSES.contains(&Known::CatLexerUtf8)
    {
        return Some(Known::CatLexerUtf8);
    }
    None
}

/// The properties checked on each input: the fuzz targets' own
/// (fuzz/src/lib.rs), so that the smoke test and AFL++ check the same.
#[path = "../../fuzz/src/lib.rs"]
mod targets;

/// Runs `target`'s property on `data` (panics on a finding).
fn check(target: Target, data: &[u8]) {
    match target {
        Target::Native => targets::native(data),
        Target::Trencher => targets::trencher(data),
        Target::Litmus => targets::litmus(data),
        Target::Cat => targets::cat(data),
        Target::CProgram => targets::c_program(data),
        Target::CLitmus => targets::c_litmus(data),
        Target::Bell => targets::bell(data),
        Target::Conf => targets::conf(data),
        Target::SvcompTask => targets::svcomp_task(data),
    }
}

/// Where failing inputs are written.
fn out_dir() -> PathBuf {
    let d = std::env::temp_dir().join("bmc-rmm-fuzz-smoke");
    let _ = std::fs::create_dir_all(&d);
    d
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Files under `dir` (recursively) whose name ends with `ext`, sorted.
fn files(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files(&p, ext, out);
        } else if p.to_string_lossy().ends_with(ext) {
            out.push(p);
        }
    }
}

/// The bundled inputs of a front-end: (name, bytes).
fn seeds(target: Target) -> Vec<(String, Vec<u8>)> {
    let mut paths = Vec::new();
    match target {
        Target::Native => files(&root().join("examples"), ".rmm", &mut paths),
        Target::Litmus => files(&root().join("tests/litmus"), ".litmus", &mut paths),
        Target::Cat => files(&root().join("encodings"), ".cat", &mut paths),
        Target::CProgram => files(&root().join("examples/c"), ".c", &mut paths),
        Target::CLitmus | Target::Bell | Target::Conf | Target::SvcompTask => files(
            &root().join("tests/fuzz_seeds").join(target.name()),
            "",
            &mut paths,
        ),
        Target::Trencher => {
            return vec![
                (
                    "sb.txt".to_string(),
                    b"# store buffering\nthread t0\ninitial q0\ntransition q0 q1 write 1 0\n\
                      transition q1 q2 read r 1\nend\nthread t1\ninitial q0\n\
                      transition q0 q1 write 1 1\ntransition q1 q2 read r 0\nend\n"
                        .to_vec(),
                ),
                (
                    "commands.txt".to_string(),
                    b"thread p\ninitial a\ntransition a b local r + 1 -1\n\
                      transition b c check == r ! 0\ntransition c d write * r 2 % 7 3\n\
                      transition d e mfence\ntransition e f lock\ntransition f g unlock\n\
                      transition g a noop\n\
                      transition a h read x && || < r 2 >= 1 0 != x -32768\nend\n"
                        .to_vec(),
                ),
            ]
        }
    }
    let seeds: Vec<(String, Vec<u8>)> = paths
        .iter()
        .map(|p| {
            let name = p
                .strip_prefix(root())
                .unwrap_or(p)
                .to_string_lossy()
                .into_owned();
            let bytes = std::fs::read(p).expect("read a seed");
            (name, preprocessed(target, p, bytes))
        })
        .collect();
    assert!(!seeds.is_empty(), "no seeds for {}", target.name());
    seeds
}

/// A C seed as the `c_program` target reads it: preprocessed (the
/// target reads `.i` files); as it is when no preprocessor is found.
fn preprocessed(target: Target, path: &Path, bytes: Vec<u8>) -> Vec<u8> {
    use bmc_rmm::diag::SourceFile;
    use bmc_rmm::frontend::c::{preprocess, Options};
    if target != Target::CProgram {
        return bytes;
    }
    let src = SourceFile::new(
        path.to_string_lossy().into_owned(),
        String::from_utf8_lossy(&bytes).into_owned(),
    );
    preprocess::run(&src, &Options::default()).map_or(bytes, String::into_bytes)
}

/// Escaped bytes, clipped to `max` bytes.
fn show_bytes(data: &[u8], max: usize) -> String {
    let shown: String = data[..data.len().min(max)].escape_ascii().to_string();
    if data.len() > max {
        format!("{shown}… ({} bytes in all)", data.len())
    } else {
        shown
    }
}

/// Mutates the seeds of `target` [`ITERATIONS`] times; panics listing
/// every input that made a front-end panic outside the known classes.
fn smoke(target: Target, seed: u64) {
    install_hook();
    let seeds = seeds(target);
    let bytes: Vec<Vec<u8>> = seeds.iter().map(|s| s.1.clone()).collect();
    let mut rng = Rng(seed);
    let mut failures: Vec<String> = Vec::new();
    let (mut ran, mut known, mut too_deep) = (0usize, 0usize, 0usize);
    // The unmutated seeds first.
    for i in 0..target.iterations() + seeds.len() {
        let (name, seed_bytes) = &seeds[i % seeds.len()];
        let mut data = seed_bytes.clone();
        let mut steps = Vec::new();
        if i >= seeds.len() {
            for _ in 0..1 + rng.below(MAX_MUTATIONS) {
                steps.push(mutate(&mut rng, target, &mut data, &bytes));
            }
        }
        let deep = nesting(&data) > SHALLOW;
        if deep && target.shallow_only() {
            too_deep += 1;
            continue;
        }
        if deep {
            // Kept if the stack overflows (an abort ends the binary).
            let _ = std::fs::write(
                out_dir().join(format!("{}-current.{}", target.name(), target.ext())),
                &data,
            );
        }
        ran += 1;
        IN_CHECK.with(|f| *f.borrow_mut() = true);
        LAST_PANIC.with(|p| *p.borrow_mut() = None);
        let result = panic::catch_unwind(AssertUnwindSafe(|| check(target, &data)));
        IN_CHECK.with(|f| *f.borrow_mut() = false);
        if result.is_ok() {
            continue;
        }
        let info = LAST_PANIC
            .with(|p| p.borrow_mut().take())
            .unwrap_or(PanicInfo {
                message: "(no panic information)".to_string(),
                file: String::new(),
                line: 0,
            });
        if known_class(target, &info).is_some() {
            known += 1;
            continue;
        }
        let path = out_dir().join(format!("{}-{i}.{}", target.name(), target.ext()));
        let _ = std::fs::write(&path, &data);
        let mut f = String::new();
        let _ = writeln!(
            f,
            "panic at {}:{}: {}\n  input {} (mutations of {name}: {})\n  bytes: {}",
            info.file,
            info.line,
            info.message,
            path.display(),
            steps.join("; "),
            show_bytes(&data, 600)
        );
        failures.push(f);
        if failures.len() >= 10 {
            break;
        }
    }
    // Not aborted: the deep input kept for a stack overflow is not needed.
    let _ =
        std::fs::remove_file(out_dir().join(format!("{}-current.{}", target.name(), target.ext())));
    eprintln!(
        "{}: {ran} inputs parsed, {known} panics of known classes skipped, \
         {too_deep} deep inputs not parsed (known deep-nesting class)",
        target.name()
    );
    assert!(
        failures.is_empty(),
        "{} front-end panicked on {} input(s) (known classes: {KNOWN_CLASSES:?}):\n{}",
        target.name(),
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn smoke_native() {
    smoke(Target::Native, 0x6e61_7469_7665_0001);
}

#[test]
fn smoke_trencher() {
    smoke(Target::Trencher, 0x7472_656e_6368_0002);
}

#[test]
fn smoke_litmus() {
    smoke(Target::Litmus, 0x6c69_746d_7573_0003);
}

#[test]
fn smoke_cat() {
    smoke(Target::Cat, 0x6361_7400_0000_0004);
}

#[test]
fn smoke_c_program() {
    smoke(Target::CProgram, 0x6370_726f_6700_0005);
}

#[test]
fn smoke_c_litmus() {
    smoke(Target::CLitmus, 0x636c_6974_6d00_0006);
}

#[test]
fn smoke_bell() {
    smoke(Target::Bell, 0x6265_6c6c_0000_0007);
}

#[test]
fn smoke_conf() {
    smoke(Target::Conf, 0x636f_6e66_0000_0008);
}

#[test]
fn smoke_svcomp_task() {
    smoke(Target::SvcompTask, 0x7376_636f_6d70_0009);
}

/// The generator itself: fixed seed, same mutations every run; the
/// nesting measure sees the deep-nesting shapes of the known classes.
#[test]
fn generator_is_deterministic_and_nesting_sees_deep_inputs() {
    let a: Vec<u64> = {
        let mut r = Rng(7);
        (0..4).map(|_| r.next()).collect()
    };
    let b: Vec<u64> = {
        let mut r = Rng(7);
        (0..4).map(|_| r.next()).collect()
    };
    assert_eq!(a, b);
    assert!(nesting(b"exists (0:EAX=1 /\\ x=0)") <= SHALLOW);
    assert!(nesting("(".repeat(3_000).as_bytes()) > SHALLOW);
    assert!(nesting("x=1 \\/ ".repeat(10_000).as_bytes()) > SHALLOW);
    assert!(nesting("~".repeat(100_000).as_bytes()) > SHALLOW);
    assert!(nesting("not ".repeat(1_000).as_bytes()) > SHALLOW);
    assert!(nesting(format!("acyclic po{}", " | po".repeat(20_000)).as_bytes()) > SHALLOW);
    assert!(nesting("po^-1".repeat(1_000).as_bytes()) > SHALLOW);
    for seed in seeds(Target::Litmus).iter().chain(&seeds(Target::Cat)) {
        assert!(
            nesting(&seed.1) <= SHALLOW,
            "seed {} is too deep for the gate",
            seed.0
        );
    }
}

/// AFL++ findings on `c_program` (reproducers reduced): a string literal
/// with a character outside ASCII (the lossy decoding's U+FFFD) printed a
/// variable whose initial value was not wrapped to the width, so the
/// printed program re-parsed to another one; a long run of `-` before a
/// syntax error made the C parser backtrack for minutes (now refused
/// before parsing, located).
#[test]
fn c_program_findings_hold() {
    let pre = "typedef unsigned long pthread_t;\nint g;\n";
    check(
        Target::CProgram,
        format!("{pre}int main(void) {{ char *s = \"\u{fffd}\u{e9}b\"; g = s[1]; return 0; }}\n")
            .as_bytes(),
    );
    let mut dashes = format!("{pre}int main(void) {{ switch (g) {{ default:");
    dashes.push_str(&"-".repeat(60));
    dashes.push('\n');
    check(Target::CProgram, dashes.as_bytes());
    let src = bmc_rmm::diag::SourceFile::new("d.i", dashes.clone());
    let e = bmc_rmm::frontend::parse_program(&src, None, bmc_rmm::program::Width::DEFAULT)
        .expect_err("refused");
    assert!(
        e.to_string()
            .contains("more than 20 adjacent `+`/`-` characters"),
        "{e}"
    );
    // Objects without cells (their printed program overlapped the next
    // object) and a definition that changes an object's size.
    for (decl, want) in [
        ("int c, a[*];", "object `a` has no cells"),
        ("int c, a[ ];", "object `a` has no cells"),
        (
            "int a; int a[4];",
            "defined again with a type of another size",
        ),
    ] {
        let text = format!("{pre}{decl}\nint main(void) {{ a[1] = 2; return 0; }}\n");
        check(Target::CProgram, text.as_bytes());
        let src = bmc_rmm::diag::SourceFile::new("d.i", text);
        let e = bmc_rmm::frontend::parse_program(&src, None, bmc_rmm::program::Width::DEFAULT)
            .expect_err("refused");
        assert!(e.to_string().contains(want), "{decl}: {e}");
    }
}
