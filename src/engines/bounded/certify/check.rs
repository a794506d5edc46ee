//! `certify-check`: re-checking a certificate's directory without the
//! solver that answered. In order: the manifest's input and model are
//! read again and must have the recorded digests; the formula is
//! re-derived from them (read as the manifest's reading says), the check,
//! the bound, the recorded final states and `lemmas.txt`
//! ([`formula::derive`]) and must equal `formula.cnf` clause by clause;
//! every lemma is re-checked with the cat evaluator ([`justify`]); the
//! proof is checked by `varisat-checker` ([`proof::check`]).

use super::formula::{self, Formula, Question};
use super::{justify, lemmas, proof, Manifest};
use crate::diag::{Error, SourceFile, Span};
use crate::engines::bounded::{CheckKind, Limits, Query};
use std::path::Path;
use std::time::Instant;

/// A certificate's input as read again by the caller (engines read no
/// input): the program and, for `final-states`, the test's filter and
/// observed expressions.
pub struct Input {
    /// The program (for a litmus test, its lowering).
    pub program: crate::program::Program,
    /// `final-states`: the test's filter.
    pub filter: Option<crate::program::GExpr>,
    /// `final-states`: the observed expressions, in the test's order.
    pub observed: Vec<crate::program::GExpr>,
}

/// A certificate that passed every check.
#[derive(Clone, Debug)]
pub struct Accepted {
    /// Its manifest.
    pub manifest: Manifest,
    /// Seconds the check took.
    pub seconds: f64,
}

/// The verdict on one certificate.
#[derive(Clone, Debug)]
pub enum Checked {
    /// Every check passed.
    Accepted(Box<Accepted>),
    /// A check failed: which and why.
    Rejected(String),
}

/// Checks the certificate in `dir`; `load` reads the manifest's input as
/// the certifying run did, by its [`super::Reading`] (the caller's
/// front-ends: engines read none).
///
/// Errors (bad input, not a rejection): a missing or unreadable file, a
/// malformed manifest, DIMACS formula or lemma file (located), an input
/// or model that no longer loads.
pub fn check_dir(
    dir: &Path,
    load: &dyn Fn(&Manifest) -> Result<Input, Error>,
) -> Result<Checked, Error> {
    let start = Instant::now();
    let read = |name: &str| SourceFile::read(&dir.join(name).display().to_string());
    let mf = read(super::MANIFEST)?;
    let manifest: Manifest = serde_json::from_str(&mf.text).map_err(|e| {
        let off = offset_of(&mf.text, e.line(), e.column());
        mf.error(Span::new(off, off + 1), format!("malformed manifest: {e}"))
    })?;
    if manifest.format != super::FORMAT {
        return Err(mf.error(
            Span::new(0, 1),
            format!(
                "certificate format `{}`, this build reads `{}`",
                manifest.format,
                super::FORMAT
            ),
        ));
    }
    let check = match manifest.check.as_str() {
        "reach" => Some(CheckKind::Reach),
        "robust" => Some(CheckKind::Robust),
        "final-states" if manifest.states.is_some() => None,
        "final-states" => {
            return Err(mf.error(
                Span::new(0, 1),
                "check `final-states` without the recorded `states`",
            ));
        }
        other => {
            return Err(mf.error(Span::new(0, 1), format!("unknown check `{other}`")));
        }
    };
    let cnf_file = read(super::FORMULA)?;
    let cnf = Formula::parse(&cnf_file)?;
    let lemmas = lemmas::parse(&read(super::LEMMAS)?)?;
    let proof_path = dir.join(super::PROOF);
    if !proof_path.is_file() {
        return Err(Error::Io {
            path: proof_path.display().to_string(),
            message: "no such file".into(),
        });
    }
    let reject = |m: String| Ok(Checked::Rejected(m));
    if cnf_file.text.lines().next() != Some(super::question_line(&manifest).as_str()) {
        return reject(format!(
            "{}: its first line does not name the manifest's question ({} bound {} width {}, the input's and the model's digests)",
            super::FORMULA,
            manifest.check,
            manifest.bound,
            manifest.width
        ));
    }
    // The input and the model, as recorded.
    let bytes = std::fs::read(&manifest.input).map_err(|e| Error::Io {
        path: manifest.input.clone(),
        message: e.to_string(),
    })?;
    if super::sha256_hex(&bytes) != manifest.input_sha256 {
        return reject(format!(
            "the input {} is not the certified one (SHA-256 differs)",
            manifest.input
        ));
    }
    let model = crate::cat::load_model_spec(&manifest.model)?;
    if super::model_digest(&model) != manifest.model_sha256 {
        return reject(format!(
            "the model {} is not the certified one (SHA-256 differs)",
            manifest.model
        ));
    }
    let input = load(&manifest)?;
    let prog = &input.program;
    let q = Query {
        program: prog,
        model: &model,
        limits: Limits {
            bound: manifest.bound,
            width: manifest.width,
            deadline: crate::engines::bounded::Deadline(None),
            switches: formula::switches(),
        },
    };
    let encoded = q.encoded_model();
    // The formula: the query's plus the lemmas, nothing else.
    let question = match check {
        Some(k) => Question::Check(k),
        None => Question::FinalStates {
            filter: input.filter.as_ref(),
            observed: &input.observed,
            states: manifest.states.as_deref().unwrap_or_default(),
        },
    };
    let (derived, mut enc) = match formula::derive(
        prog,
        &encoded,
        (manifest.bound, manifest.width),
        question,
        &lemmas,
    ) {
        Ok(x) => x,
        Err(why) => return reject(why),
    };
    if let Some(diff) = derived.first_difference(&cnf) {
        return reject(format!("{}: {diff}", super::FORMULA));
    }
    // Each lemma follows from the model's axiom.
    let mut j = justify::Justifier::new(&mut enc, &encoded);
    for (k, l) in lemmas.iter().enumerate() {
        if let Err(why) = j.check(k, l) {
            return reject(format!("{}: {why}", super::LEMMAS));
        }
    }
    // The formula is unsatisfiable.
    if let Err(why) = proof::check(&cnf, &proof_path) {
        return reject(why);
    }
    Ok(Checked::Accepted(Box::new(Accepted {
        manifest,
        seconds: start.elapsed().as_secs_f64(),
    })))
}

/// The byte offset of 1-based `line` and `column` in `text` (serde's
/// error position).
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let mut off = 0;
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if i + 1 == line {
            return (off + column.saturating_sub(1)).min(text.len().saturating_sub(1));
        }
        off += l.len();
    }
    text.len().saturating_sub(1)
}
