//! `bmc-rmm robust --engine explicit --parameterized` (and programs with
//! `thread t *` templates): parameterized robustness against TSO
//! ([`bmc_rmm::engines::parameterized`], thesis §6.3): robust for every number of
//! copies, or the smallest non-robust instance with its TSO witness,
//! replayed on the finite explicit engine; text and JSON.

use super::args::{CheckArgs, Engine};
use bmc_rmm::ask::Question;
use bmc_rmm::diag::Error;
use bmc_rmm::program::Width;
use std::time::Duration;

/// True when `robust` must run the parameterized check: `--parameterized`,
/// or an `--engine explicit` input marks a template (`thread t *`).
///
/// Errors: an input that cannot be read or parsed.
pub fn wanted(a: &CheckArgs) -> Result<bool, Error> {
    if a.parameterized {
        return Ok(true);
    }
    if a.engine != Engine::Explicit || a.state {
        return Ok(false);
    }
    for f in crate::cli::inputs::expand(&a.input.files, &["rmm", "txt"])? {
        let p = bmc_rmm::frontend::load_program_with(
            &f,
            a.input.format,
            Width(a.input.width),
            &a.input.c.options(),
        )?;
        if !p.templates.is_empty() {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Runs the parameterized check on every input (files, directories,
/// `@lists`; `-j`, `--shard`, `--jsonl` as every batch: the answers in
/// input order). Exit: 0 robust for every number of copies, 1 some
/// instance not robust, 3 unknown (a limit, or a witness that failed to
/// replay — an internal error, reported).
///
/// Errors (exit 2): `--state`, `--dot`, `--expect`/`--write-expect`, a
/// model other than tso, an unreadable or malformed input, a template
/// the instrumentation does not support.
pub fn run(a: &CheckArgs) -> Result<i32, Error> {
    a.validate()?;
    if a.state {
        return Err(Error::Usage(
            "--parameterized and --state are separate questions (state-robustness is bounded)"
                .into(),
        ));
    }
    if a.dot.is_some() {
        return Err(Error::Usage(
            "--dot draws witnesses of the bounded engine; the parameterized witness is printed"
                .into(),
        ));
    }
    if a.expectations.expect.is_some() || a.expectations.write_expect.is_some() {
        return Err(Error::Usage(
            "--expect and --write-expect compare bounded verdicts; the parameterized answer is unbounded"
                .into(),
        ));
    }
    let question = [Question::ParameterizedRobust {
        every_thread: a.parameterized,
    }];
    let engine = super::check::engine_choice(a);
    let builtin = super::check::builtin_model(a);
    bmc_rmm::ask::validate(engine, builtin, &question)?;
    let cat = bmc_rmm::cat::builtin("tso")?;
    crate::cli::batch::run_records(a, "robust", "tso", |f, p| {
        let mut req = super::check::request(a, p, &cat, &question, false);
        req.timeout = Some(Duration::from_secs_f64(
            a.timeout.unwrap_or(super::args::DEFAULT_TIMEOUT),
        ));
        let reply = bmc_rmm::ask::ask(&req)?.remove(0);
        Ok(super::render::show(
            &super::render::Context::new(f, p, "tso"),
            &reply,
        ))
    })
}
