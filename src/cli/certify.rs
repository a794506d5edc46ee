//! `--certify DIR` of `reach`/`robust` (the bounded engine's answers with
//! certificates, one directory `<stem>.<check>` per input and check) and
//! `bmc-rmm certify-check DIR...` (docs/reliability.md).

use super::args::{CertifyCheckArgs, CheckArgs};
use bmc_rmm::ask::{Detail, Reply};
use bmc_rmm::diag::Error;
use bmc_rmm::engines::bounded::certify::{check, produce};
use bmc_rmm::engines::bounded::{CheckKind, Deadline, Limits, Query};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The usage errors of `--certify` with other flags.
///
/// Errors: a backend other than varisat, `--eager`, another engine,
/// `--format` (the checker reads inputs by their detected format).
pub fn validate(a: &CheckArgs) -> Result<(), Error> {
    use bmc_rmm::engines::bounded::SolverKind;
    if a.certify.is_none() {
        return Ok(());
    }
    if !matches!(a.solver.0, None | Some(SolverKind::Varisat)) {
        return Err(Error::Usage(
            "--certify: only --solver varisat writes certificates".into(),
        ));
    }
    if a.eager || a.engine != super::args::Engine::Bounded {
        return Err(Error::Usage(
            "--certify applies to the bounded engine's lazy encoding (no --eager, no --engine)"
                .into(),
        ));
    }
    if a.input.format.is_some() {
        return Err(Error::Usage(
            "--certify: inputs are read by their detected format (no --format)".into(),
        ));
    }
    Ok(())
}

/// The certificate directory of input `f` (one of `files`) and `check`
/// under `dir`: `<stem>.<check>`, with `-<index+1>` after the stem when
/// another input has the same stem.
fn dir_for(dir: &str, files: &[String], f: &str, check: CheckKind) -> PathBuf {
    let stem = |f: &str| {
        Path::new(f)
            .file_stem()
            .map_or_else(|| "input".into(), |s| s.to_string_lossy().into_owned())
    };
    let s = stem(f);
    let dup = files.iter().filter(|g| stem(g) == s).count() > 1;
    let i = files.iter().position(|g| g == f).unwrap_or(0);
    let name = if dup {
        format!("{s}-{}.{}", i + 1, check.name())
    } else {
        format!("{s}.{}", check.name())
    };
    Path::new(dir).join(name)
}

/// The replies to `kinds` on input `f` (program `p`) with certificates
/// written under `dir`; each certificate's directory, or why an answer
/// is not certified, on stderr.
///
/// Errors: those of [`produce::run`].
pub fn replies(
    a: &CheckArgs,
    (f, p): (&str, &bmc_rmm::program::Program),
    model: &bmc_rmm::cat::Model,
    kinds: &[CheckKind],
    (dir, files): (&str, &[String]),
) -> Result<Vec<Reply>, Error> {
    let bound = bmc_rmm::ask::effective_bound(a.bound, p);
    let start = Instant::now();
    let q = Query {
        program: p,
        model,
        limits: Limits {
            bound,
            width: a.input.width,
            deadline: Deadline(a.timeout.map(|t| start + Duration::from_secs_f64(t))),
            switches: a.input.switches,
        },
    };
    let model_spec = a.model.model_file.as_deref().unwrap_or(&a.model.model);
    let target = produce::Target {
        input: f,
        model: model_spec,
        dirs: kinds.iter().map(|&k| dir_for(dir, files, f, k)).collect(),
    };
    let out = produce::run(&q, kinds, &target)?;
    let mut replies = Vec::new();
    for (r, outcome) in out {
        match &outcome {
            produce::Outcome::Certified(w) if !super::quiet() => {
                eprintln!("{f}: {} certified: {}", r.check.name(), w.dir.display())
            }
            produce::Outcome::Refused(why) => {
                eprintln!("{f}: {} not certified: {why}", r.check.name())
            }
            _ => {}
        }
        replies.push(Reply {
            question: r.check.into(),
            answer: r.answer(bound),
            detail: Detail::Bounded(Box::new(r)),
            notes: Vec::new(),
        });
    }
    Ok(replies)
}

/// Loads a certificate's input as `--certify` did: by its detected
/// format, at the manifest's width, default C options, no PGAS nodes.
///
/// Errors: those of the front-end.
fn load(
    m: &bmc_rmm::engines::bounded::certify::Manifest,
) -> Result<bmc_rmm::program::Program, Error> {
    let w = bmc_rmm::program::Width(m.width);
    let p = bmc_rmm::frontend::load_program_with(&m.input, None, w, &Default::default())?;
    bmc_rmm::program::pgas::prepare(p, None, w)
}

/// Every certificate directory at or below `dir` (those holding a
/// manifest), sorted.
fn certificates(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), Error> {
    if dir
        .join(bmc_rmm::engines::bounded::certify::MANIFEST)
        .is_file()
    {
        out.push(dir.to_path_buf());
        return Ok(());
    }
    let rd = std::fs::read_dir(dir).map_err(|e| Error::Io {
        path: dir.display().to_string(),
        message: e.to_string(),
    })?;
    let mut subs: Vec<PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    subs.sort();
    for s in subs {
        certificates(&s, out)?;
    }
    Ok(())
}

/// `bmc-rmm certify-check DIR...`: one line per certificate (accepted,
/// or rejected with the reason).
///
/// Exit status: 0 when every certificate is accepted, 1 when one is
/// rejected.
///
/// Errors: a directory without certificates, a missing or malformed
/// certificate file (located), an input or model that no longer loads.
pub fn run(a: &CertifyCheckArgs) -> Result<i32, Error> {
    let mut dirs = Vec::new();
    for d in &a.dirs {
        let before = dirs.len();
        certificates(Path::new(d), &mut dirs)?;
        if dirs.len() == before {
            return Err(Error::Io {
                path: d.clone(),
                message: format!(
                    "no certificate (no {} at or below it)",
                    bmc_rmm::engines::bounded::certify::MANIFEST
                ),
            });
        }
    }
    let mut status = 0;
    for d in &dirs {
        match check::check_dir(d, &load)? {
            check::Checked::Accepted(x) => println!(
                "accepted {}: {} {} bound {} under {} ({} clauses, {} lemmas) in {:.3} s",
                d.display(),
                x.manifest.check,
                x.manifest.input,
                x.manifest.bound,
                x.manifest.model,
                x.manifest.clauses,
                x.manifest.lemmas,
                x.seconds
            ),
            check::Checked::Rejected(why) => {
                println!("REJECTED {}: {why}", d.display());
                status = 1;
            }
        }
    }
    Ok(status)
}
