//! Certificates of negative bounded answers (`--certify DIR`,
//! `bmc-rmm certify-check DIR`; docs/reliability.md states what a
//! certificate proves and what it assumes).
//!
//! A negative answer of the varisat backend ("unreachable", "robust up to
//! the bound") says that the query's formula — the encoding of the
//! program and the model up to the bound, the query's condition, and the
//! lemmas the lazy loop learnt from the model's axioms — is
//! unsatisfiable. Its certificate is a directory:
//!
//! * `formula.cnf`: that formula in DIMACS, each run of clauses preceded
//!   by a comment naming its origin (`c encoding`, `c lemma K`,
//!   `c block K` — final state K excluded —, `c query`) — [`formula`];
//! * `proof.varisat`: a proof of its unsatisfiability in varisat's own
//!   proof format, checked by the `varisat-checker` crate — [`proof`];
//! * `lemmas.txt`: per lemma, the axiom it comes from and the facts of the
//!   candidate execution (events, set members, relation pairs, present or
//!   absent) whose conjunction it forbids — [`lemmas`], re-checked by
//!   [`justify`] with the cat interval evaluator alone;
//! * `manifest.json`: the input and how it is read, the model, the check,
//!   the bound and the answer the files belong to (for a litmus test's
//!   final states, the states found), with SHA-256 digests of the input and of
//!   the model's files — [`Manifest`].
//!
//! [`produce`] runs a check and writes certificates; [`check`] re-checks a
//! directory: it re-derives the formula from the input and the model named
//! in the manifest (the same encoder, deterministic) and the lemmas, and
//! compares it clause by clause with `formula.cnf`.

pub mod check;
pub mod formula;
pub mod justify;
pub mod lemmas;
pub mod produce;
pub mod proof;

use serde::{Deserialize, Serialize};

/// The manifest's file name.
pub const MANIFEST: &str = "manifest.json";
/// The formula's file name (DIMACS).
pub const FORMULA: &str = "formula.cnf";
/// The proof's file name (varisat's proof format).
pub const PROOF: &str = "proof.varisat";
/// The lemmas' file name.
pub const LEMMAS: &str = "lemmas.txt";
/// The certificate format this build writes and reads
/// ([`Manifest::format`]).
pub const FORMAT: &str = "bmc-rmm certificate 2";

/// What a certificate is about: written as `manifest.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// [`FORMAT`].
    pub format: String,
    /// The input file, as given on the command line.
    pub input: String,
    /// SHA-256 of the input file's bytes (hex).
    pub input_sha256: String,
    /// The model as given: a built-in name or a `.cat` file
    /// ([`crate::cat::load_model_spec`]).
    pub model: String,
    /// SHA-256 (hex) of the model's files' texts, in the order they were
    /// read ([`crate::cat::Model::files`]).
    pub model_sha256: String,
    /// How the input is read: its format and the front-end's options
    /// (what the checker needs to read it into the same program).
    #[serde(default)]
    pub reading: Reading,
    /// The check: `reach`, `robust` or `final-states` (a litmus test's
    /// final states, [`formula::Question::FinalStates`]).
    pub check: String,
    /// Steps per thread.
    pub bound: u32,
    /// Bits per value.
    pub width: u32,
    /// The certified answer ("no violation"; for `final-states`, that no
    /// final state lies outside [`Manifest::states`]).
    pub answer: String,
    /// `final-states`: the observed values (signed, at the width) of each
    /// final state found, in the order found; the formula excludes each
    /// (`c block K`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub states: Option<Vec<Vec<i64>>>,
    /// The backend that answered.
    pub solver: String,
    /// Variables of `formula.cnf`.
    pub vars: usize,
    /// Clauses of `formula.cnf`.
    pub clauses: usize,
    /// Lemmas of `lemmas.txt`.
    pub lemmas: usize,
    /// The proof format (`varisat`) and the checker that reads it.
    pub proof: String,
}

/// How a certificate's input is read ([`Manifest::reading`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reading {
    /// The input format's name (`crate::frontend::Format::name`: `native`,
    /// `trencher`, `memorax`, `litmus`, `c`), detected or forced.
    pub format: String,
    /// C: loop iterations per loop on a path (`--unwind`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unwind: Option<u32>,
    /// C: the macro definitions (`-D`), in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub defines: Vec<String>,
    /// C: spin loops kept as loops (`--no-spin-assume`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_spin_assume: bool,
    /// Litmus: the width the test was parsed at (its values are then
    /// encoded at [`Manifest::width`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parse_width: Option<u32>,
}

impl Reading {
    /// The reading in one line (the question line of `formula.cnf`).
    pub fn describe(&self) -> String {
        let mut s = format!("format {}", self.format);
        if let Some(u) = self.unwind {
            s.push_str(&format!(" unwind {u}"));
        }
        for d in &self.defines {
            s.push_str(&format!(" -D {d}"));
        }
        if self.no_spin_assume {
            s.push_str(" no-spin-assume");
        }
        if let Some(w) = self.parse_width {
            s.push_str(&format!(" parse-width {w}"));
        }
        s
    }
}

/// The first line of `formula.cnf`: the question the formula answers (the
/// check, bound, width, the input's reading, the number of recorded final
/// states and the digests of the input and the model), so
/// that a manifest naming another question does not match the formula
/// even where that question's formula would be the same.
pub fn question_line(m: &Manifest) -> String {
    let states = m
        .states
        .as_ref()
        .map_or(String::new(), |s| format!(" states {}", s.len()));
    format!(
        "c question: {} bound {} width {} {}{states} input {} model {}",
        m.check,
        m.bound,
        m.width,
        m.reading.describe(),
        m.input_sha256,
        m.model_sha256
    )
}

/// SHA-256 of `bytes` in lower-case hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    let d = sha2::Sha256::digest(bytes);
    d.iter().map(|b| format!("{b:02x}")).collect()
}

/// The digest of a model recorded in [`Manifest::model_sha256`].
pub fn model_digest(model: &crate::cat::Model) -> String {
    let mut all = Vec::new();
    for f in &model.files {
        all.extend_from_slice(f.text.as_bytes());
        all.push(0);
    }
    sha256_hex(&all)
}
