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
pub mod output;
pub mod render;
pub mod tso_reach;

pub use args::Cli;

use args::{Command, DiffArgs, Engine};
use bmc_rmm::bounded::{CheckKind, SolverKind};
use bmc_rmm::diag::Error;
use bmc_rmm::program::Width;

/// Parses the command line `argv` (program name first) as users of git
/// or cargo expect: options may come before the subcommand
/// (`bmc-rmm --json reach x.rmm` is `bmc-rmm reach --json x.rmm`), and a
/// word that is neither a subcommand nor an existing file but close to a
/// subcommand's name is an error that suggests it (`robst` → `robust`).
///
/// Errors: clap's usage errors (exit 2; `--help`/`--version` exit 0).
pub fn parse_args(argv: Vec<std::ffi::OsString>) -> Result<Cli, clap::Error> {
    use clap::{CommandFactory, FromArgMatches};
    let mut cmd = Cli::command();
    let first = cmd.clone().try_get_matches_from(&argv)?;
    let cli = Cli::from_arg_matches(&first)?;
    if cli.command.is_some() {
        return Ok(cli);
    }
    let names: Vec<String> = cmd
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect();
    // The first input (never an option's value) names a subcommand:
    // options came first; move it to the front and parse again.
    let first_input = cli.check.input.files.first();
    if let Some(word) =
        first_input.filter(|f| names.contains(f) && !std::path::Path::new(f).exists())
    {
        let pos = argv
            .iter()
            .skip(1)
            .rposition(|a| a.to_str() == Some(word.as_str()));
        if let Some(pos) = pos {
            let mut moved = argv;
            let sub = moved.remove(pos + 1);
            moved.insert(1, sub);
            return Cli::from_arg_matches(&cmd.try_get_matches_from_mut(moved)?);
        }
    }
    for f in &cli.check.input.files {
        let looks_like_word = !f.contains(['.', '/', std::path::MAIN_SEPARATOR]);
        if !looks_like_word || std::path::Path::new(f).exists() {
            continue;
        }
        if let Some(n) = names
            .iter()
            .find(|n| strsim::damerau_levenshtein(n, f) <= 2)
        {
            let mut e = clap::Error::new(clap::error::ErrorKind::InvalidSubcommand).with_cmd(&cmd);
            e.insert(
                clap::error::ContextKind::InvalidSubcommand,
                clap::error::ContextValue::String(f.clone()),
            );
            e.insert(
                clap::error::ContextKind::SuggestedSubcommand,
                clap::error::ContextValue::String(n.clone()),
            );
            return Err(e);
        }
    }
    Ok(cli)
}

/// Runs the parsed command line; returns the exit status.
pub fn run(cli: Cli) -> Result<i32, Error> {
    let budget = match cli.memory {
        Some(mb) => usize::try_from(mb.saturating_mul(1 << 20)).ok(),
        None => bmc_rmm::resources::default_memory_limit(),
    };
    bmc_rmm::resources::set_memory_limit(budget.unwrap_or(usize::MAX));
    match cli.command {
        Some(Command::Parse(a)) => check::run_parse(&a),
        Some(Command::Reach(a)) if matches!(a.engine, Engine::Kround | Engine::Lazy) => {
            a.validate()?;
            tso_reach::run_reach(&a)
        }
        Some(Command::Reach(a)) => check::run_checks(&a, &[CheckKind::Reach]),
        Some(Command::Translate(a)) => tso_reach::run_translate(&a),
        Some(Command::Robust(a)) if a.engine == Engine::Explicit => explicit::run_robust(&a),
        Some(Command::Robust(a)) if matches!(a.engine, Engine::Kround | Engine::Lazy) => Err(
            bmc_rmm::diag::Error::Usage("--engine kround/lazy answer `reach` only".into()),
        ),
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
            None if a.reach => tso_reach::run_crosscheck(&a),
            None => explicit::run_crosscheck(&a),
        },
        Some(Command::Litmus(a)) => litmus::run(&a),
        Some(Command::Diff(a)) => diff::run(&a),
        None => check::run_checks(&cli.check, &[CheckKind::Reach, CheckKind::Robust]),
    }
}
