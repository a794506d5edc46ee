//! The command line: flags ([`args`]), one file per command ([`check`],
//! [`litmus`], [`diff`], [`explicit`]), and what commands share (inputs,
//! batches, expectations, verdict words). Only the binary uses this
//! module; the library does not depend on clap.
//!
//! Exit status (docs/behaviour.md): 0 no violation / goal unreachable,
//! 1 violation / goal reachable, 2 input or usage error, 3 unknown
//! (timeout, limit).

pub mod args;
pub mod batch;
pub mod check;
pub mod diff;
pub mod expect;
pub mod explicit;
pub mod inputs;
pub mod litmus;
pub mod render;

pub use args::Cli;

use args::{Command, DiffArgs, Engine};
use bmc_rmm::bounded::{CheckKind, SolverKind};
use bmc_rmm::diag::Error;
use bmc_rmm::program::Width;

/// Runs the parsed command line; returns the exit status.
pub fn run(cli: Cli) -> Result<i32, Error> {
    match cli.command {
        Some(Command::Parse(a)) => check::run_parse(&a),
        Some(Command::Reach(a)) => check::run_checks(&a, &[CheckKind::Reach]),
        Some(Command::Robust(a)) if a.engine == Engine::Explicit => explicit::run_robust(&a),
        Some(Command::Robust(a)) => check::run_checks(&a, &[CheckKind::Robust]),
        Some(Command::Fences(a)) => explicit::run_fences(&a),
        Some(Command::Crosscheck(a)) => match &a.solvers {
            Some(solvers) => diff::run(&DiffArgs {
                files: a.input.files.clone(),
                models: None,
                solvers: Some(solvers.clone()),
                model: Some(a.model.clone()),
                solver: SolverKind::Varisat,
                bound: a.bound,
                width: (a.input.width != Width::DEFAULT.0).then_some(a.input.width),
                timeout: a.timeout.unwrap_or(args::DEFAULT_TIMEOUT),
                verdicts_only: false,
                json: a.input.json,
                batch: args::BatchArgs {
                    quiet: a.quiet,
                    jobs: a.jobs,
                },
                pgas: a.pgas.clone(),
            }),
            None => explicit::run_crosscheck(&a),
        },
        Some(Command::Litmus(a)) => litmus::run(&a),
        Some(Command::Diff(a)) => diff::run(&a),
        None => check::run_checks(&cli.check, &[CheckKind::Reach, CheckKind::Robust]),
    }
}
