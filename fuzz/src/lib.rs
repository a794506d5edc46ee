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
    match e {
        Error::Input(ie) => {
            let shown = e.to_string();
            let want = format!("{}:", src.path);
            assert!(
                shown.starts_with(&want) && shown.contains(": error: "),
                "badly rendered error: {shown}"
            );
            assert!(
                ie.span.start <= ie.span.end && ie.span.start <= src.text.len(),
                "span {:?} starts outside the input ({} bytes): {shown}",
                ie.span,
                src.text.len()
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
            Err(e) => located(&src, &e),
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
