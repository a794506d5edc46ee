//! Running `reach`/`robust`, or the final-state enumeration of a litmus
//! test, on the varisat backend with certificates: the queries of
//! `engines::bounded::queries` on an encoder that logs its lemmas
//! ([`formula::encoder`], the settings the checker re-derives), then for
//! each negative answer its certificate written to a directory (the
//! module's files, [`super`]).

use super::formula::{self, Formula, Question};
use super::{justify, lemmas, proof, Manifest, Reading};
use crate::cat::Model;
use crate::diag::Error;
use crate::engines::bounded::varisat::lemmas::Lemma;
use crate::engines::bounded::varisat::VarisatSession;
use crate::engines::bounded::{
    queries, Backend, CheckKind, CheckResult, FinalStates, Query, Session, Verdict,
};
use crate::program::GExpr;
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What was certified of one answer.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// The certificate was written.
    Certified(Written),
    /// The answer is negative but not certified: why.
    Refused(String),
    /// The answer is a violation or unknown: nothing to certify (a
    /// violation's witness is replayed instead).
    NotNegative,
}

/// A written certificate's directory and sizes.
#[derive(Clone, Debug)]
pub struct Written {
    /// The directory.
    pub dir: PathBuf,
    /// Variables and clauses of the formula.
    pub vars: usize,
    /// Clauses of the formula.
    pub clauses: usize,
    /// Lemmas.
    pub lemmas: usize,
    /// Bytes of `formula.cnf`, `proof.varisat`, `lemmas.txt`.
    pub bytes: [u64; 3],
    /// Seconds spent deriving the formula and writing the proof.
    pub seconds: f64,
}

/// Where and about what certificates are written.
pub struct Target<'a> {
    /// The input file as given ([`Manifest::input`]).
    pub input: &'a str,
    /// The model as given ([`Manifest::model`]).
    pub model: &'a str,
    /// How the input was read ([`Manifest::reading`]).
    pub reading: Reading,
    /// Per check of the run, its certificate's directory (created).
    pub dirs: Vec<PathBuf>,
}

/// The varisat backend with the certified settings and the lemma log.
struct Logging {
    lemmas: RefCell<Vec<Lemma>>,
    /// The sessions' budget of candidates to enumerate directly
    /// ([`VarisatSession::enumerate`]; the encoding is then recorded
    /// first); `None`: solve.
    enumerate: Option<usize>,
}

impl Backend for Logging {
    fn validate(&self, model: &Model) -> Result<(), Error> {
        model.refuse_init_writes("certificates")
    }

    fn session(
        &self,
        q: &Query,
        f: &mut dyn FnMut(&mut dyn Session) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let model = q.encoded_model();
        self.validate(&model)?;
        use crate::engines::bounded::varisat::cnf::Cnf;
        let cnf = match self.enumerate {
            Some(_) => Cnf::recording(),
            None => Cnf::new(),
        };
        let (b, w, d) = (q.limits.bound, q.limits.width, q.limits.deadline);
        let mut enc = formula::encoder(cnf, q.program, &model, b, w, Some(d));
        enc.log_lemmas();
        let mut s = VarisatSession::new(enc);
        s.enumerate = self.enumerate;
        let r = f(&mut s);
        *self.lemmas.borrow_mut() = distinct(s.enc.lemmas());
        r
    }
}

/// `lemmas` each once, in the order first learnt: the solve that closes
/// a direct enumeration learns again lemmas the enumeration learnt (its
/// explanations are not handed to the solver), and a clause twice in a
/// formula adds nothing to it.
fn distinct(lemmas: &[Lemma]) -> Vec<Lemma> {
    let mut seen = crate::collections::HashSet::default();
    lemmas.iter().filter(|l| seen.insert(*l)).cloned().collect()
}

/// Runs `kinds` on `q` with the varisat backend and writes a certificate
/// for each negative answer to `t.dirs` (same order as `kinds`). The
/// answers are those of the plain run (the same queries; the lemma log
/// changes no clause).
///
/// Errors: PGAS programs (their queues and barriers are not certified);
/// the backend's errors; a certificate's directory or file cannot be
/// written.
pub fn run(
    q: &Query,
    kinds: &[CheckKind],
    t: &Target,
) -> Result<Vec<(CheckResult, Outcome)>, Error> {
    if q.program.nodes.is_some() {
        return Err(Error::Unsupported(
            "--certify: PGAS programs have no certificates".into(),
        ));
    }
    let b = Logging {
        lemmas: RefCell::new(Vec::new()),
        enumerate: None,
    };
    let results = queries::check_on_one(&b, q, kinds)?;
    let lemmas = b.lemmas.into_inner();
    let model = q.encoded_model();
    let mut out = Vec::new();
    for (res, dir) in results.into_iter().zip(&t.dirs) {
        let outcome = if res.verdict != Verdict::NoViolation {
            Outcome::NotNegative
        } else {
            let question = Question::Check(res.check);
            if res.stats.solves == 0 {
                let why = res
                    .reason
                    .clone()
                    .unwrap_or_else(|| "no formula was solved".into());
                Outcome::Refused(format!("answered without solving: {why}"))
            } else {
                write_one(q, &model, question, &lemmas, (dir, t))?
            }
        };
        out.push((res, outcome));
    }
    Ok(out)
}

/// Enumerates the final states of `q` (every thread terminated, `filter`
/// nonzero; the values of `observed`) with the varisat backend as the
/// plain run does: directly, visiting the candidate executions, when a
/// test has at most `budget` of them (`litmus --enumerate`), else by
/// solving, blocking each state found and solving again; then solves the
/// last query, every state found blocked, and when it is unsatisfiable
/// writes its certificate ("no final state outside those found") to
/// `t.dirs[0]` ([`queries::enumerate_final_on`], closing). The states are
/// those of the plain enumeration (the same search; the lemma log changes
/// no clause).
///
/// Errors: PGAS programs; the backend's errors (a refusal such as values
/// out of thin air); the certificate cannot be written.
pub fn final_states(
    q: &Query,
    (filter, observed): (Option<&GExpr>, &[GExpr]),
    budget: Option<usize>,
    t: &Target,
) -> Result<(FinalStates, Outcome), Error> {
    if q.program.nodes.is_some() {
        return Err(Error::Unsupported(
            "--certify: PGAS programs have no certificates".into(),
        ));
    }
    let b = Logging {
        lemmas: RefCell::new(Vec::new()),
        enumerate: budget,
    };
    let fs = queries::enumerate_final_on(&b, q, (filter, observed), true)?;
    let lemmas = b.lemmas.into_inner();
    let model = q.encoded_model();
    let outcome = if fs.unknown.is_some() || (observed.is_empty() && !fs.states.is_empty()) {
        // Unknown, or nothing observed: the one state found ends the
        // enumeration without a last query.
        Outcome::NotNegative
    } else {
        let question = Question::FinalStates {
            filter,
            observed,
            states: &fs.states,
        };
        write_one(q, &model, question, &lemmas, (&t.dirs[0], t))?
    };
    Ok((fs, outcome))
}

/// Writes the certificate of the negative answer to `question` (its
/// formula solved unsatisfiable in the run), or says why not.
fn write_one(
    q: &Query,
    model: &Model,
    question: Question,
    lemmas: &[Lemma],
    (dir, t): (&Path, &Target),
) -> Result<Outcome, Error> {
    let start = Instant::now();
    if let Err(why) = justify::certifiable(model, lemmas) {
        return Ok(Outcome::Refused(why));
    }
    let (b, w) = (q.limits.bound, q.limits.width);
    let (f, _) = match formula::derive(q.program, model, (b, w), question, lemmas) {
        Ok(x) => x,
        Err(why) => return Ok(Outcome::Refused(why)),
    };
    let Some(proof) = proof::prove(&f)? else {
        return Ok(Outcome::Refused(
            "the re-derived formula is satisfiable (the run and its re-derivation disagree)".into(),
        ));
    };
    let manifest = manifest(q, model, question, &f, lemmas.len(), t)?;
    let text = serde_json::to_string_pretty(&manifest).expect("a manifest serializes");
    let cnf = format!("{}\n{}", super::question_line(&manifest), f.to_dimacs());
    let lemma_text = lemmas::to_text(lemmas);
    write_dir(
        dir,
        &[
            (super::PROOF, &proof),
            (super::FORMULA, cnf.as_bytes()),
            (super::LEMMAS, lemma_text.as_bytes()),
        ],
        text.as_bytes(),
    )?;
    Ok(Outcome::Certified(Written {
        dir: dir.to_path_buf(),
        vars: f.vars,
        clauses: f.clauses.len(),
        lemmas: lemmas.len(),
        bytes: [cnf.len(), proof.len(), lemma_text.len()].map(|n| n as u64),
        seconds: start.elapsed().as_secs_f64(),
    }))
}

fn manifest(
    q: &Query,
    model: &Model,
    question: Question,
    f: &Formula,
    lemmas: usize,
    t: &Target,
) -> Result<Manifest, Error> {
    let input = std::fs::read(t.input).map_err(|e| io(Path::new(t.input), e))?;
    Ok(Manifest {
        format: super::FORMAT.into(),
        input: t.input.into(),
        input_sha256: super::sha256_hex(&input),
        model: t.model.into(),
        model_sha256: super::model_digest(model),
        reading: t.reading.clone(),
        check: question.name().into(),
        bound: q.limits.bound,
        width: q.limits.width,
        answer: match question {
            Question::Check(_) => "no violation".into(),
            Question::FinalStates { states, .. } => {
                format!("no final state outside the {} recorded", states.len())
            }
        },
        states: match question {
            Question::Check(_) => None,
            Question::FinalStates { states, .. } => Some(states.to_vec()),
        },
        solver: "varisat".into(),
        vars: f.vars,
        clauses: f.clauses.len(),
        lemmas,
        proof: "varisat (checked by varisat-checker)".into(),
    })
}

fn io(p: &Path, e: std::io::Error) -> Error {
    Error::Io {
        path: p.display().to_string(),
        message: e.to_string(),
    }
}

/// Writes a certificate's `files` (name, bytes) and then its manifest
/// into `dir` (created, with its parents, when missing): the manifest,
/// which makes a directory a certificate (`certify-check DIR`), is
/// removed first from an existing `dir` and written last, and on an error
/// the files written are removed, so that no directory holds a manifest
/// with files of another run or half of the files.
///
/// Errors: a directory or file cannot be created or written.
fn write_dir(dir: &Path, files: &[(&str, &[u8])], manifest: &[u8]) -> Result<(), Error> {
    match std::fs::create_dir(dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            let m = dir.join(super::MANIFEST);
            match std::fs::remove_file(&m) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(io(&m, e)),
                _ => {}
            }
        }
        Err(_) => std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?,
    }
    let all = files.iter().copied().chain([(super::MANIFEST, manifest)]);
    for (i, (name, bytes)) in all.enumerate() {
        let p = dir.join(name);
        if let Err(e) = std::fs::write(&p, bytes) {
            for (n, _) in &files[..i.min(files.len())] {
                let _ = std::fs::remove_file(dir.join(n));
            }
            return Err(io(&p, e));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A certificate's files are written whole or not at all: over an
    /// earlier certificate the new files and manifest replace the old;
    /// when a file cannot be written (here `lemmas.txt` is a directory)
    /// the error is returned and neither the old manifest nor the files
    /// written before it are left.
    #[test]
    fn certificates_are_written_whole_or_not_at_all() {
        let d = tempfile::tempdir().unwrap();
        let dir = d.path().join("a").join("t.final-states");
        let files: [(&str, &[u8]); 3] = [
            (super::super::PROOF, b"p"),
            (super::super::FORMULA, b"f"),
            (super::super::LEMMAS, b"l"),
        ];
        write_dir(&dir, &files, b"m1").unwrap();
        write_dir(&dir, &files, b"m2").unwrap();
        let read = |n: &str| std::fs::read(dir.join(n)).ok();
        assert_eq!(read(super::super::MANIFEST), Some(b"m2".to_vec()));
        assert_eq!(read(super::super::LEMMAS), Some(b"l".to_vec()));
        std::fs::remove_file(dir.join(super::super::LEMMAS)).unwrap();
        std::fs::create_dir(dir.join(super::super::LEMMAS)).unwrap();
        let e = write_dir(&dir, &files, b"m3").unwrap_err();
        assert!(e.to_string().contains(super::super::LEMMAS), "{e}");
        for n in [
            super::super::MANIFEST,
            super::super::PROOF,
            super::super::FORMULA,
        ] {
            assert!(!dir.join(n).exists(), "{n} left behind");
        }
    }

    /// A lemma learnt twice (by a direct enumeration, then by the solve
    /// that closes it) is kept once, at its first place.
    #[test]
    fn lemmas_learnt_twice_are_kept_once() {
        let l = |a: &str| Lemma {
            axiom: a.into(),
            facts: Vec::new(),
        };
        let kept = distinct(&[l("a"), l("b"), l("a"), l("c"), l("b")]);
        assert_eq!(kept, vec![l("a"), l("b"), l("c")]);
    }
}
