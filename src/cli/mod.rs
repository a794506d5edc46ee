//! The command line: flags ([`args`]), one file per command (the default
//! command and `reach`/`robust` in [`check`] with the engines' forms in
//! [`explicit`], [`smc`], [`tso_reach`], [`state`], [`parameterized`];
//! [`parse`], [`litmus`], [`fences`], [`crosscheck`], [`diff`],
//! [`merge`], [`translate`], `man`/`completions` in [`generate`],
//! herd7's command line in [`herd7`]), and
//! what commands share beside them ([`inputs`], [`batch`], [`shard`],
//! [`output`], [`render`], [`expect`], [`report`]). Only the binary uses this
//! module; the library does not depend on clap.
//!
//! Exit status (docs/behaviour.md): 0 no violation / goal unreachable,
//! 1 violation / goal reachable, 2 input or usage error, 3 unknown
//! (timeout, limit).

pub mod args;
pub mod batch;
pub mod certify;
pub mod check;
pub mod crosscheck;
pub mod diff;
pub mod expect;
pub mod explicit;
pub mod fences;
pub mod fuzz_diff;
pub mod generate;
pub mod herd7;
pub mod inputs;
pub mod litmus;
pub mod merge;
pub mod output;
pub mod parameterized;
pub mod parse;
pub mod render;
pub mod report;
pub mod shard;
pub mod smc;
pub mod state;
pub mod svcomp;
pub mod translate;
pub mod tso_reach;

pub use args::Cli;

use args::{Command, Engine};
use bmc_rmm::diag::Error;
use bmc_rmm::engines::bounded::CheckKind;

/// Parses the command line `argv` (program name first) as users of git
/// or cargo expect: options may come before the subcommand
/// (`bmc-rmm --json reach x.rmm` is `bmc-rmm reach --json x.rmm`), and a
/// word that is neither a subcommand nor an existing file but close to a
/// subcommand's name is an error that suggests it (`robst` → `robust`).
///
/// Errors: clap's usage errors (exit 2; `--help`/`--version` exit 0).
pub fn parse_args(argv: Vec<std::ffi::OsString>) -> Result<Cli, clap::Error> {
    use clap::{CommandFactory, FromArgMatches};
    let mut cmd = Cli::command().color(color_choice(&argv));
    let names: Vec<String> = cmd
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect();
    // Parsed in place (not on a clone: the command tree of every
    // subcommand is large), and again below for a rearranged line.
    let first = match cmd.try_get_matches_from_mut(&argv) {
        Ok(m) => m,
        Err(e) => {
            // Options before the subcommand that the default command does
            // not know (`bmc-rmm -q diff --models sc,tso x`): move the
            // first word naming a subcommand (not a file) to the front.
            let pos = argv.iter().skip(1).position(|a| {
                a.to_str().is_some_and(|w| {
                    names.iter().any(|n| n == w) && !std::path::Path::new(w).exists()
                })
            });
            let Some(pos) = pos.filter(|&p| p > 0) else {
                return Err(e);
            };
            let mut moved = argv.clone();
            let sub = moved.remove(pos + 1);
            moved.insert(1, sub);
            return match cmd.try_get_matches_from_mut(&moved) {
                Ok(m) => Cli::from_arg_matches(&m),
                Err(_) => Err(e),
            };
        }
    };
    let cli = Cli::from_arg_matches(&first)?;
    if cli.command.is_some() {
        return Ok(cli);
    }
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

/// The global `-q`/`-v` of this run (0 quiet, 1 normal, 2 verbose).
static VERBOSITY: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(1);

/// True under `-q`: no progress bar, summary line or warnings.
pub fn quiet() -> bool {
    VERBOSITY.load(std::sync::atomic::Ordering::Relaxed) == 0
}

/// True under `-v`: a line on stderr per completed input.
pub fn verbose() -> bool {
    VERBOSITY.load(std::sync::atomic::Ordering::Relaxed) >= 2
}

/// The colour choice of `--color WHEN` and `NO_COLOR` (no-color.org: set
/// and non-empty disables colour unless `--color always`), found in
/// `argv` before parsing so that clap's own errors follow it.
pub fn color_choice(argv: &[std::ffi::OsString]) -> clap::ColorChoice {
    let mut when = None;
    let mut it = argv.iter().skip(1).filter_map(|a| a.to_str());
    while let Some(a) = it.next() {
        if a == "--" {
            break;
        }
        if let Some(v) = a.strip_prefix("--color=") {
            when = Some(v.to_string());
        } else if a == "--color" {
            when = it.next().map(str::to_string);
        }
    }
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    match when.as_deref() {
        Some("always") => clap::ColorChoice::Always,
        Some("never") => clap::ColorChoice::Never,
        _ if no_color => clap::ColorChoice::Never,
        _ => clap::ColorChoice::Auto,
    }
}

/// Runs the parsed command line; returns the exit status.
pub fn run(mut cli: Cli) -> Result<i32, Error> {
    let v = &cli.verbosity;
    let level = if v.quiet {
        0
    } else if v.verbose {
        2
    } else {
        1
    };
    VERBOSITY.store(level, std::sync::atomic::Ordering::Relaxed);
    let quiet = v.quiet;
    // The developer switches: read from the environment here only, and
    // handed to the engines through the command's options.
    let switches = bmc_rmm::engines::Switches::from_env();
    match &mut cli.command {
        Some(Command::Reach(a) | Command::Robust(a)) => {
            a.batch.quiet = quiet;
            a.input.switches = switches;
        }
        Some(Command::Litmus(a)) => {
            a.batch.quiet = quiet;
            a.switches = switches;
        }
        Some(Command::Diff(a)) => {
            a.batch.quiet = quiet;
            a.switches = switches;
        }
        Some(Command::Crosscheck(a)) => {
            a.quiet = quiet;
            a.input.switches = switches;
        }
        Some(Command::Fences(a)) => a.input.switches = switches,
        Some(Command::Translate(a)) => a.input.switches = switches,
        Some(Command::Parse(a)) => a.input.switches = switches,
        None => {
            cli.check.batch.quiet = quiet;
            cli.check.input.switches = switches;
        }
        _ => {}
    }
    let budget = match cli.memory {
        Some(mb) => usize::try_from(mb.saturating_mul(1 << 20)).ok(),
        None => bmc_rmm::resources::default_memory_limit(),
    };
    bmc_rmm::resources::set_memory_limit(budget.unwrap_or(usize::MAX));
    match cli.command {
        Some(Command::Parse(a)) => parse::run(&a),
        Some(Command::Reach(a)) if matches!(a.engine, Engine::Kround | Engine::Lazy) => {
            a.validate()?;
            tso_reach::run_reach(&a)
        }
        Some(Command::Reach(a)) if a.parameterized => Err(Error::Usage(
            "--parameterized applies to `robust` (robustness for every number of copies)".into(),
        )),
        Some(Command::Reach(a)) if a.engine == Engine::Smc => {
            smc::run(&a, bmc_rmm::engines::smc::SmcCheck::Reach)
        }
        Some(Command::Reach(a)) => check::run_checks(&a, &[CheckKind::Reach]),
        Some(Command::Translate(a)) => translate::run(&a),
        Some(Command::Robust(a)) if parameterized::wanted(&a)? => parameterized::run(&a),
        Some(Command::Robust(a)) if a.state => state::run(&a),
        Some(Command::Robust(a)) if matches!(a.engine, Engine::Explicit | Engine::NormalForm) => {
            explicit::run_robust(&a)
        }
        Some(Command::Robust(a)) if a.engine == Engine::Smc && !a.state => {
            smc::run(&a, bmc_rmm::engines::smc::SmcCheck::Robust)
        }
        Some(Command::Robust(a)) if matches!(a.engine, Engine::Kround | Engine::Lazy) => Err(
            bmc_rmm::diag::Error::Usage("--engine kround/lazy answer `reach` only".into()),
        ),
        Some(Command::Robust(a)) => check::run_checks(&a, &[CheckKind::Robust]),
        Some(Command::Fences(a)) => fences::run(&a),
        Some(Command::Crosscheck(a)) => crosscheck::run(&a),
        Some(Command::Litmus(a)) => litmus::run(&a),
        Some(Command::Diff(a)) => diff::run(&a),
        Some(Command::Merge(a)) => merge::run(&a),
        Some(Command::Svcomp(a)) => svcomp::run(&a),
        Some(Command::CertifyCheck(a)) => certify::run(&a),
        Some(Command::FuzzDiff(a)) => fuzz_diff::run(&a),
        Some(Command::Herd7(a)) => herd7::run(&a),
        Some(Command::Man(a)) => generate::run_man(&a),
        Some(Command::Completions(a)) => generate::run_completions(&a),
        None => check::run_checks(&cli.check, &[CheckKind::Reach, CheckKind::Robust]),
    }
}
