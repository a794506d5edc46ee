//! The properties the fuzz targets check, one function per front-end.
//!
//! Each takes raw bytes (decoded as lossy UTF-8, as `SourceFile::read`
//! does) and returns normally when the front-end behaved: either a value
//! or one located error (`Error::Input`, rendered without panicking). Any
//! other outcome panics (a finding): a panic inside the front-end, a
//! non-located error, a printed program that does not re-parse or that
//! re-parses to a different program. Stack overflows and aborts are
//! caught by the fuzzer itself (the process dies).

use bmc_rmm::cat::base::{BaseRel, BaseSet};
use bmc_rmm::cat::eval::{Base, Bits, Evaluator, Mat};
use bmc_rmm::diag::{Error, SourceFile};
use bmc_rmm::frontend::{self, Format};
use bmc_rmm::program::Width;

/// The text of an input, as the command line reads a file.
fn text(data: &[u8]) -> String {
    String::from_utf8_lossy(data).into_owned()
}

/// An error must be located in `src` and render without panicking.
fn located(src: &SourceFile, e: &Error) {
    located_as(src, e, true)
}

/// An error must be located in `src` and render without panicking; it
/// is shown under `src`'s path when `same_path` (a preprocessed C file's
/// line markers name the files its lines came from: any path then).
fn located_as(src: &SourceFile, e: &Error, same_path: bool) {
    match e {
        Error::Input(ie) => {
            let shown = e.to_string();
            let want = format!("{}:", src.path);
            assert!(
                (!same_path || shown.starts_with(&want)) && shown.contains(": error: "),
                "badly rendered error: {shown}"
            );
            // The span is in the error's own file: `src`, or the file a
            // preprocessed line came from.
            let file = if same_path { src } else { &ie.file };
            assert!(
                ie.span.start <= ie.span.end && ie.span.start <= file.text.len(),
                "span {:?} starts outside the input ({} bytes): {shown}",
                ie.span,
                file.text.len()
            );
        }
        other => panic!("an error that is not located in the input: {other}"),
    }
}

/// The widths an input is parsed at: the default (16 bits) and one picked
/// by the input's length in 1..=32 (the range `--width` accepts), so that
/// range checks and wrap-around are fuzzed at every width.
fn widths(data: &[u8]) -> Vec<Width> {
    let other = Width(1 + (data.len() % 32) as u32);
    if other == Width::DEFAULT {
        vec![Width::DEFAULT]
    } else {
        vec![Width::DEFAULT, other]
    }
}

/// A native or Trencher program: parse (format detected from the path,
/// as the command line does); when it parses, print it in the native
/// language, which must re-parse (at the same width) to the same program.
fn program(path: &str, data: &[u8]) {
    let src = SourceFile::new(path, text(data));
    let same_path = !path.ends_with(".i");
    for width in widths(data) {
        match frontend::parse_program(&src, None, width) {
            Ok(p) => {
                let printed = bmc_rmm::program::render::native(&p);
                let again = SourceFile::new("printed.rmm", printed.clone());
                match frontend::parse_program(&again, Some(Format::Native), width) {
                    Ok(q) => assert_eq!(
                        p.fingerprint(),
                        q.fingerprint(),
                        "the printed program re-parses to a different one (width {}):\n{printed}",
                        width.0
                    ),
                    Err(e) => panic!(
                        "the printed program does not re-parse (width {}): {e}\n{printed}",
                        width.0
                    ),
                }
            }
            Err(e) => located_as(&src, &e, same_path),
        }
    }
}

/// The native `.rmm` front-end (with the Memorax check of
/// `parse_program`).
pub fn native(data: &[u8]) {
    program("fuzz.rmm", data)
}

/// Trencher's `.txt` front-end.
pub fn trencher(data: &[u8]) {
    program("fuzz.txt", data)
}

/// The herd litmus front-end; a test that parses also has its condition
/// printed and evaluated on the all-zero final state (as `bmc-rmm litmus`
/// does on every state it finds).
pub fn litmus(data: &[u8]) {
    let src = SourceFile::new("fuzz.litmus", text(data));
    for width in widths(data) {
        match frontend::litmus::parse(&src, width) {
            Ok(t) => {
                let zeros = vec![0; t.observed.len()];
                let _ = t.condition_text();
                let _ = t.state_line(&zeros);
                let _ = bmc_rmm::litmus::herd::observe(&t, &[zeros]);
            }
            Err(e) => located(&src, &e),
        }
    }
}

/// The cat front-end: parse (and check) a model; when it parses,
/// evaluate every axiom on a small fixed candidate execution.
pub fn cat(data: &[u8]) {
    let src = SourceFile::new("fuzz.cat", text(data));
    match bmc_rmm::cat::parse::parse_model(&src) {
        Ok(model) => {
            let mut ev = Evaluator::new(&model, Fixed);
            let _ = ev.check_all(2);
        }
        Err(e) => located(&src, &e),
    }
}

/// The C front-end (`frontend::c`) on preprocessed C (`.i`, as SV-COMP
/// ships its tasks: the preprocessor is not run, so the fuzzer spends its
/// time in the parser and the lowering): the same property as the native
/// one (a program that parses prints back in the native language and
/// re-parses to the same program).
pub fn c_program(data: &[u8]) {
    program("fuzz.i", data)
}

/// The line that splits a two-file input: the first file before it, the
/// second after it; an input without it is the second file alone.
pub const SPLIT: &str = "\n%%\n";

/// Splits `text` at [`SPLIT`]: `(Some(first), second)`, or `(None, text)`.
fn split(text: &str) -> (Option<&str>, &str) {
    match text.find(SPLIT) {
        Some(i) => (Some(&text[..i]), &text[i + SPLIT.len()..]),
        None => (None, text),
    }
}

/// An error located in one of `srcs` that renders without panicking.
fn located_in(srcs: &[&SourceFile], e: &Error) {
    let shown = e.to_string();
    let src = srcs
        .iter()
        .find(|s| shown.starts_with(&format!("{}:", s.path)))
        .unwrap_or_else(|| panic!("an error located in none of the inputs: {shown}"));
    located(src, e)
}

/// A macro file in herd's `.def` syntax (written for the fuzz targets):
/// the second file of a [`c_litmus`] input that has no macro file of its
/// own.
pub const DEF: &str = "\
READ(X) __load{once}(X)
WRITE(X,V) { __store{once}(X,V); }
ACQ(X) __load{acquire}(*X)
REL(X,V) { __store{release}(*X,V); }
mb() { __fence{mb}; }
xchg(X,V) __xchg{mb}(X,V)
cmpxchg(X,V,W) __cmpxchg{mb}(X,V,W)
add(V,X) { __atomic_op(X,+,V); }
add_return(V,X) __atomic_op_return{mb}(X,+,V)
fetch_add(V,X) __atomic_fetch_op{mb}(X,+,V)
lock(X) { __lock(X); }
unlock(X) { __unlock(X); }
trylock(X) __trylock(X)
";

/// herd's C litmus dialect (`frontend::c_litmus`) with its macro file:
/// the input is `DEF %% TEST` ([`SPLIT`]) or a test read with [`DEF`].
/// The macro file, then the test, give a value or one error located in
/// one of them; a test that parses has its condition printed and
/// evaluated on the all-zero final state.
pub fn c_litmus(data: &[u8]) {
    use bmc_rmm::frontend::c_litmus::{parse, MacroFile};
    let text = text(data);
    let (def, test) = split(&text);
    let def_src = SourceFile::new("fuzz.def", def.unwrap_or(DEF).to_string());
    let macros = match MacroFile::parse(&def_src) {
        Ok(m) => m,
        Err(e) => return located(&def_src, &e),
    };
    let src = SourceFile::new("fuzz.litmus", test.to_string());
    match parse(&src, &macros) {
        Ok(t) => {
            let zeros = vec![0; t.test.observed.len()];
            let _ = t.test.condition_text();
            let _ = t.test.state_line(&zeros);
            let _ = bmc_rmm::litmus::herd::observe(&t.test, &[zeros]);
        }
        Err(e) => located_in(&[&src, &def_src], &e),
    }
}

/// A cat model read for herd's C tests (written for the fuzz targets):
/// the second file of a [`bell`] input that has no model of its own.
pub const BELL_MODEL: &str = "\
\"fuzz\"
acyclic po-loc | rf | co | fr as coherence
empty rmw & (fre ; coe) as atomic
acyclic po | rf | co | fr as sc
";

/// A bell file followed by a cat model, read as herd's `-conf` reads
/// them (herd's C sets known, `include`s searched in the working folder):
/// the input is `BELL %% CAT` ([`SPLIT`]) or a bell file read before
/// [`BELL_MODEL`]. A model or one located error; a model is evaluated on
/// the small candidate of [`cat`].
pub fn bell(data: &[u8]) {
    use bmc_rmm::cat::parse::{herd::Options, parse_model_files, Origin};
    let text = text(data);
    let (first, second) = split(&text);
    let (bell, model) = match first {
        Some(b) => (b, second),
        None => (second, BELL_MODEL),
    };
    let bell = SourceFile::new("fuzz.bell", bell.to_string());
    let model = SourceFile::new("fuzz.cat", model.to_string());
    let opts = Options {
        c_sets: true,
        ..Options::default()
    };
    match parse_model_files(std::slice::from_ref(&bell), &model, Origin::Disk, &opts) {
        Ok(m) => {
            let mut ev = Evaluator::new(&m, Fixed);
            let _ = ev.check_all(2);
        }
        Err(e) => located_in(&[&bell, &model], &e),
    }
}

/// herd's configuration files (`cat::conf::HerdConf`): a configuration or
/// one located error (the files it names are looked up in the working
/// folder and mostly absent: a located error too).
pub fn conf(data: &[u8]) {
    let src = SourceFile::new("fuzz.cfg", text(data));
    if let Err(e) = bmc_rmm::cat::conf::HerdConf::parse(src.clone(), &[]) {
        located(&src, &e)
    }
}

/// SV-COMP task files (`svcomp::task::Task`): a task or one located
/// error; a task's property and verdict are read.
pub fn svcomp_task(data: &[u8]) {
    let src = SourceFile::new("fuzz.yml", text(data));
    match bmc_rmm::svcomp::task::Task::parse(&src) {
        Ok(t) => {
            let _ = t.expected();
            let _ = t.data_model.width();
        }
        Err(e) => located(&src, &e),
    }
}

/// A candidate execution of [`EVENTS`] events whose base sets and
/// relations are fixed pseudo-random patterns of their names (enough to
/// make every operator do some work).
pub struct Fixed;

/// Events of [`Fixed`].
pub const EVENTS: usize = 5;

fn name_hash(name: &str) -> u64 {
    // FNV-1a.
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

impl Base for Fixed {
    type Fact = bool;
    fn n(&self) -> usize {
        EVENTS
    }
    fn executed(&mut self) -> Bits {
        let mut b = Bits::new(EVENTS);
        for i in 0..EVENTS {
            b.set(i);
        }
        b
    }
    fn set(&mut self, s: BaseSet) -> Bits {
        let h = name_hash(s.name());
        let mut b = Bits::new(EVENTS);
        for i in 0..EVENTS {
            if h >> i & 1 == 1 {
                b.set(i);
            }
        }
        b
    }
    fn rel(&mut self, r: BaseRel) -> Mat {
        let h = name_hash(r.name());
        let id = r == BaseRel::Id;
        let mut m = Mat::new(EVENTS);
        for a in 0..EVENTS {
            for b in 0..EVENTS {
                if a == b && id || !id && h >> ((a * EVENTS + b) % 64) & 1 == 1 {
                    m.set(a, b);
                }
            }
        }
        m
    }
}
