//! `--certify DIR` of `reach`/`robust` (the bounded engine's answers with
//! certificates, one directory `<stem>.<check>` per input and check) and
//! of `litmus` (the final states, `<stem>.final-states`), and
//! `bmc-rmm certify-check DIR...` (docs/reliability.md).

use super::args::{CertifyCheckArgs, CheckArgs, LitmusArgs};
use bmc_rmm::ask::{Detail, Reply};
use bmc_rmm::diag::{Error, SourceFile};
use bmc_rmm::engines::bounded::certify::{check, produce, Manifest, Reading};
use bmc_rmm::engines::bounded::{CheckKind, Deadline, Limits, Query, SolverKind};
use bmc_rmm::frontend::litmus::LitmusTest;
use bmc_rmm::frontend::Format;
use bmc_rmm::program::Width;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The name of the certificate directory's suffix for a litmus test's
/// final states (`<stem>.final-states`).
const FINAL_STATES: &str = "final-states";

/// The usage errors of `litmus --certify` with other flags.
///
/// Errors: a backend other than varisat; `--conf` (C litmus tests under
/// herd's configurations are not certified).
pub fn validate_litmus(a: &LitmusArgs) -> Result<(), Error> {
    if a.certify.is_none() {
        return Ok(());
    }
    if a.solver != SolverKind::Varisat {
        return Err(Error::Usage(
            "--certify: only --solver varisat writes certificates".into(),
        ));
    }
    if a.conf.is_some() {
        return Err(Error::Usage(
            "--certify: C litmus tests under --conf are not certified".into(),
        ));
    }
    Ok(())
}

/// The usage errors of `--certify` with other flags.
///
/// Errors: a backend other than varisat, `--eager`, another engine.
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
    Ok(())
}

/// How `--certify` read input `f` ([`Reading`]): the forced or detected
/// format, and for C the front-end's options.
///
/// Errors: the input cannot be read.
fn reading(f: &str, a: &CheckArgs) -> Result<Reading, Error> {
    let format = match a.input.format {
        Some(x) => x,
        None => Format::detect(f, &SourceFile::read(f)?.text),
    };
    let mut r = Reading {
        format: format.name().into(),
        ..Reading::default()
    };
    if format == Format::C {
        let o = a.input.c.options();
        r.unwind = Some(o.unwind);
        r.defines = o.defines;
        r.no_spin_assume = !o.spin_assume;
    }
    Ok(r)
}

/// The certificate directory of input `f` (one of `files`) and `check`
/// under `dir`: `<stem>.<check>`, with `-<index+1>` after the stem when
/// another input has the same stem.
fn dir_for(dir: &str, files: &[String], f: &str, check: &str) -> PathBuf {
    let stem = |f: &str| {
        Path::new(f)
            .file_stem()
            .map_or_else(|| "input".into(), |s| s.to_string_lossy().into_owned())
    };
    let s = stem(f);
    let dup = files.iter().filter(|g| stem(g) == s).count() > 1;
    let i = files.iter().position(|g| g == f).unwrap_or(0);
    let name = if dup {
        format!("{s}-{}.{check}", i + 1)
    } else {
        format!("{s}.{check}")
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
        reading: reading(f, a)?,
        dirs: kinds
            .iter()
            .map(|&k| dir_for(dir, files, f, k.name()))
            .collect(),
    };
    let out = produce::run(&q, kinds, &target)?;
    let mut replies = Vec::new();
    for (r, outcome) in out {
        tell(f, r.check.name(), &outcome);
        replies.push(Reply {
            question: r.check.into(),
            answer: r.answer(bound),
            detail: Detail::Bounded(Box::new(r)),
            notes: Vec::new(),
        });
    }
    Ok(replies)
}

/// Says on stderr where the certificate of `check` on `f` went, or why
/// the answer is not certified.
fn tell(f: &str, check: &str, outcome: &produce::Outcome) {
    match outcome {
        produce::Outcome::Certified(w) if !super::quiet() => {
            eprintln!("{f}: {check} certified: {}", w.dir.display())
        }
        produce::Outcome::Refused(why) => eprintln!("{f}: {check} not certified: {why}"),
        _ => {}
    }
}

/// `litmus --certify DIR`: the final states of test `f` under `model`,
/// enumerated by solving (`--enumerate` does not apply: same states),
/// with the certificate of the enumeration's last, unsatisfiable query
/// ("no final state outside those found") written to
/// `DIR/<stem>.final-states`; the reply is that of the plain run.
///
/// `a` gives the bound, the width (`None`: automatic), the timeout and the
/// switches.
///
/// Errors: the test cannot be read or parsed; those of
/// [`produce::final_states`].
pub fn litmus_reply(
    f: &str,
    model: &bmc_rmm::cat::Model,
    a: &LitmusArgs,
    (dir, files): (&str, &[String]),
) -> Result<(LitmusTest, Reply), Error> {
    use bmc_rmm::litmus::run;
    let src = SourceFile::read(f)?;
    let parse_width = a.width.unwrap_or(Width::MAX.0);
    let t = bmc_rmm::frontend::litmus::parse(&src, Width(parse_width))?;
    let herd = run::herd_model(&t, model)?;
    // herd's sc on AArch64 is the built-in `sc-instr` (run::herd_model).
    let spec = if std::ptr::eq(herd, model) {
        model.source.path.to_string()
    } else {
        "sc-instr".to_string()
    };
    let spec = builtin_name(&spec).unwrap_or(spec);
    let target = produce::Target {
        input: f,
        model: &spec,
        reading: Reading {
            format: Format::Litmus.name().into(),
            parse_width: Some(parse_width),
            ..Reading::default()
        },
        dirs: vec![dir_for(dir, files, f, FINAL_STATES)],
    };
    let start = Instant::now();
    let lim = Limits {
        bound: a.bound,
        width: a.width.unwrap_or_else(|| run::auto_width(&t).0),
        deadline: Deadline(Some(start + Duration::from_secs_f64(a.timeout))),
        switches: a.switches,
    };
    let mut outcome = produce::Outcome::NotNegative;
    let r = run::run_by(
        &t,
        model,
        (lim, SolverKind::Varisat),
        &mut |q, filter, obs| {
            let (fs, out) = produce::final_states(q, (filter, obs), a.enumerate.budget(), &target)?;
            outcome = out;
            Ok(fs)
        },
    )?;
    tell(f, FINAL_STATES, &outcome);
    let reply = Reply {
        question: bmc_rmm::ask::Question::Outcomes,
        answer: r.answer(run::effective_bound(&t, a.bound)),
        detail: Detail::Outcomes(Box::new(r)),
        notes: Vec::new(),
    };
    Ok((t, reply))
}

/// The built-in name of a model whose source is `path`
/// (`encodings/NAME.cat`), so that the manifest names it as `--model`
/// does; `None` for a model file.
fn builtin_name(path: &str) -> Option<String> {
    let name = path.strip_prefix("encodings/")?.strip_suffix(".cat")?;
    bmc_rmm::cat::builtin(name).ok().map(|_| name.to_string())
}

/// Loads a certificate's input as `--certify` did: as its reading says
/// (the format, the C options; a litmus test at its parse width), at the
/// manifest's width, no PGAS nodes.
///
/// Errors: an unknown format name; those of the front-end.
fn load(m: &Manifest) -> Result<check::Input, Error> {
    let w = Width(m.width);
    let format = match m.reading.format.as_str() {
        "" => None,
        name => Some(name.parse::<Format>().map_err(|e| Error::Io {
            path: m.input.clone(),
            message: format!("the manifest's reading: {e}"),
        })?),
    };
    if m.check == FINAL_STATES {
        let src = SourceFile::read(&m.input)?;
        let pw = Width(m.reading.parse_width.unwrap_or(Width::MAX.0));
        let t = bmc_rmm::frontend::litmus::parse(&src, pw)?;
        return Ok(check::Input {
            observed: t.observed.iter().map(|l| l.expr()).collect(),
            filter: t.filter_expr,
            program: t.program,
        });
    }
    let copts = bmc_rmm::frontend::c::Options {
        defines: m.reading.defines.clone(),
        unwind: (m.reading.unwind).unwrap_or(bmc_rmm::frontend::c::DEFAULT_UNWIND),
        spin_assume: !m.reading.no_spin_assume,
        ..Default::default()
    };
    let p = bmc_rmm::frontend::load_program_with(&m.input, format, w, &copts)?;
    Ok(check::Input {
        program: bmc_rmm::program::pgas::prepare(p, None, w)?,
        filter: None,
        observed: Vec::new(),
    })
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
                "accepted {}: {} {} bound {} under {}{} ({} clauses, {} lemmas) in {:.3} s",
                d.display(),
                x.manifest.check,
                x.manifest.input,
                x.manifest.bound,
                x.manifest.model,
                (x.manifest.states.as_ref()).map_or(String::new(), |s| format!(
                    ": no final state outside the {} recorded",
                    s.len()
                )),
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
