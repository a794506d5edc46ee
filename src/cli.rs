//! The command line (clap): flags, subcommands and dispatch to the engines.
//!
//! Exit status (DESIGN.md): 0 no violation / goal unreachable, 1 violation
//! / goal reachable, 2 input or usage error, 3 unknown (timeout, limit).

use crate::check;
use crate::diag::Error;
use crate::engine::{Deadline, Encoder};
use crate::frontend::{self, Format};
use crate::program::Width;
use clap::{Args, Parser, Subcommand};
use std::time::{Duration, Instant};

/// bmc-rmm: bounded model checking of concurrent programs under relaxed
/// memory models (SC, x86-TSO, PSO, RMO, Power, PGAS).
///
/// Without a subcommand, runs `reach` and `robust` on each FILE and prints
/// both verdicts.
#[derive(Parser, Debug)]
#[command(name = "bmc-rmm", version, args_conflicts_with_subcommands = true)]
pub struct Cli {
    /// What to do; default: reach + robust.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Options for the default check.
    #[command(flatten)]
    pub check: CheckArgs,
}

/// Subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Parse FILE(s) and print the Program IR back in native syntax.
    Parse(ParseArgs),
    /// Is a goal state / assertion failure reachable within the bound?
    Reach(CheckArgs),
    /// Is there an execution with a cyclic happens-before (po ∪ rf ∪ co ∪ fr)?
    Robust(CheckArgs),
    /// Run herd litmus tests: every reachable final state, herd's output format.
    Litmus(LitmusArgs),
    /// A minimal set of mfence locations that makes the program robust against TSO.
    Fences(FencesArgs),
    /// Run the explicit engine (unbounded) and the SAT engine (bounded) and compare.
    Crosscheck(CrosscheckArgs),
}

/// The engine answering `robust`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Engine {
    /// Bounded SAT engine (any model, up to --bound).
    Sat,
    /// Explicit-state engine: unbounded robustness against TSO by attacks.
    Explicit,
}

/// `bmc-rmm fences` options.
#[derive(Args, Debug, Clone)]
pub struct FencesArgs {
    /// Inputs.
    #[command(flatten)]
    pub input: InputArgs,
    /// Memory model (only tso).
    #[arg(long, short = 'm', default_value = "tso")]
    pub model: String,
    /// Fence costs: lines `THREAD STATE COST` and `default COST` (default cost 1).
    #[arg(long, value_name = "FILE")]
    pub cost: Option<String>,
    /// Write the fenced program (native syntax) to FILE (one input only).
    #[arg(long, value_name = "FILE")]
    pub emit: Option<String>,
    /// Time limit in seconds per input ("unknown" when exceeded).
    #[arg(long)]
    pub timeout: Option<f64>,
}

/// `bmc-rmm crosscheck` options.
#[derive(Args, Debug, Clone)]
pub struct CrosscheckArgs {
    /// Inputs.
    #[command(flatten)]
    pub input: InputArgs,
    /// Memory model (only tso).
    #[arg(long, short = 'm', default_value = "tso")]
    pub model: String,
    /// Bound of the SAT engine.
    #[arg(long, short = 'k', default_value_t = 20)]
    pub bound: u32,
    /// Time limit in seconds per input and engine.
    #[arg(long)]
    pub timeout: Option<f64>,
}

/// `bmc-rmm litmus` options.
#[derive(Args, Debug, Clone)]
pub struct LitmusArgs {
    /// Litmus files, directories (every .litmus inside) or @list files.
    #[arg(value_name = "FILE")]
    pub files: Vec<String>,
    /// Memory model: a built-in name (sc, tso).
    #[arg(long, short = 'm', default_value = "tso")]
    pub model: String,
    /// Load the memory model from a cat file instead of a built-in one.
    #[arg(long, value_name = "FILE")]
    pub model_file: Option<String>,
    /// Loop unrolling bound (steps per thread) for tests with retry loops.
    #[arg(long, short = 'k', default_value_t = 12)]
    pub bound: u32,
    /// Bit-width of values; default: the narrowest width ≥ 8 that holds
    /// every constant and address of the test.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=32))]
    pub width: Option<u32>,
    /// Per-test time limit in seconds (the test's answer is "unknown").
    #[arg(long, default_value_t = 60.0)]
    pub timeout: f64,
    /// One JSON record per test instead of herd blocks.
    #[arg(long)]
    pub json: bool,
    /// No progress bar.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Worker threads (default: all cores).
    #[arg(long, short = 'j')]
    pub jobs: Option<usize>,
}

/// Options shared by every command that reads programs.
#[derive(Args, Debug, Clone)]
pub struct InputArgs {
    /// Input files (native .rmm, Trencher .txt, herd .litmus).
    #[arg(value_name = "FILE")]
    pub files: Vec<String>,
    /// Force the input format instead of detecting it from the extension.
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Bit-width of values and addresses (1..=32); constants must fit.
    #[arg(long, default_value_t = Width::DEFAULT.0, value_parser = clap::value_parser!(u32).range(1..=32))]
    pub width: u32,
    /// Print one JSON record per result instead of text.
    #[arg(long)]
    pub json: bool,
}

/// `bmc-rmm parse` options.
#[derive(Args, Debug, Clone)]
pub struct ParseArgs {
    /// Inputs.
    #[command(flatten)]
    pub input: InputArgs,
}

/// Options of the checking commands.
#[derive(Args, Debug, Clone)]
pub struct CheckArgs {
    /// Inputs.
    #[command(flatten)]
    pub input: InputArgs,
    /// Memory model: a built-in name (sc, tso, pso, rmo, power, pgas).
    #[arg(long, short = 'm', default_value = "tso")]
    pub model: String,
    /// Unrolling bound: at most K instructions executed per thread (≥ 1).
    #[arg(long, short = 'k', default_value_t = 20)]
    pub bound: u32,
    /// Per-input time limit in seconds; "unknown" (exit 3) when exceeded.
    #[arg(long)]
    pub timeout: Option<f64>,
    /// Load the memory model from a cat file instead of a built-in one.
    #[arg(long, value_name = "FILE")]
    pub model_file: Option<String>,
    /// Engine for `robust`: the bounded SAT engine, or the explicit-state
    /// engine (unbounded, TSO only).
    #[arg(long, value_enum, default_value_t = Engine::Sat)]
    pub engine: Engine,
    /// Encode the model's `acyclic` axioms eagerly with clocks instead of
    /// lazily (solve, check the candidate, block the cycle, re-solve).
    #[arg(long)]
    pub eager: bool,
    /// Write the witness graph (DOT) of a violation to FILE (one input only).
    #[arg(long, value_name = "FILE")]
    pub dot: Option<String>,
    /// PGAS: run the (SPMD) program on N nodes; overrides `nodes N;` in
    /// the file (src/pgas.rs, docs/language.md).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub nodes: Option<u32>,
}

impl CheckArgs {
    /// Validates the numeric options.
    ///
    /// Errors: bound 0, a non-positive timeout, no input file.
    pub fn validate(&self) -> Result<(), Error> {
        if self.bound == 0 {
            return Err(Error::Usage("--bound must be at least 1".into()));
        }
        if let Some(t) = self.timeout {
            if t.is_nan() || t <= 0.0 {
                return Err(Error::Usage(
                    "--timeout must be a positive number of seconds".into(),
                ));
            }
        }
        if self.input.files.is_empty() {
            return Err(Error::Usage("no input FILE given".into()));
        }
        Ok(())
    }
}

/// Runs `bmc-rmm parse`: prints each program in native syntax.
pub fn run_parse(args: &ParseArgs) -> Result<i32, Error> {
    if args.input.files.is_empty() {
        return Err(Error::Usage("no input FILE given".into()));
    }
    let mut out = String::new();
    for f in &args.input.files {
        let p = frontend::load_program(f, args.input.format, Width(args.input.width))?;
        if args.input.json {
            let rec = serde_json::json!({ "file": f, "threads": p.threads.len(), "program": crate::print::native(&p) });
            out.push_str(&rec.to_string());
            out.push('\n');
        } else {
            if args.input.files.len() > 1 {
                out.push_str(&format!("# file: {f}\n"));
            }
            out.push_str(&crate::print::native(&p));
        }
    }
    print!("{out}");
    Ok(0)
}

/// Runs the parsed command line; returns the exit status.
pub fn run(cli: Cli) -> Result<i32, Error> {
    match cli.command {
        Some(Command::Parse(a)) => run_parse(&a),
        Some(Command::Reach(a)) => run_checks(&a, &[check::CheckKind::Reach]),
        Some(Command::Robust(a)) if a.engine == Engine::Explicit => {
            crate::explicit_cmd::run_robust(&a)
        }
        Some(Command::Robust(a)) => run_checks(&a, &[check::CheckKind::Robust]),
        Some(Command::Fences(a)) => crate::explicit_cmd::run_fences(&a),
        Some(Command::Crosscheck(a)) => crate::explicit_cmd::run_crosscheck(&a),
        Some(Command::Litmus(a)) => crate::litmus_cmd::run(&a),
        None => run_checks(
            &cli.check,
            &[check::CheckKind::Reach, check::CheckKind::Robust],
        ),
    }
}

/// Runs `reach` and/or `robust` on every input with the bounded engine;
/// returns the exit status (1 if any violation, else 3 if any unknown,
/// else 0).
///
/// Errors: usage errors, unreadable or malformed inputs, a bad model file.
pub fn run_checks(a: &CheckArgs, kinds: &[check::CheckKind]) -> Result<i32, Error> {
    a.validate()?;
    if a.engine == Engine::Explicit {
        return Err(Error::Usage(
            "--engine explicit answers `robust` only".into(),
        ));
    }
    if a.dot.is_some() && a.input.files.len() > 1 {
        return Err(Error::Usage("--dot FILE takes a single input".into()));
    }
    let model = check::load_model(&a.model, a.model_file.as_deref())?;
    let model_name = match &a.model_file {
        Some(f) => f.clone(),
        None => a.model.clone(),
    };
    // Parse everything first: a bad input stops the run before any output.
    let mut progs = Vec::new();
    for f in &a.input.files {
        let p = frontend::load_program(f, a.input.format, Width(a.input.width))?;
        // PGAS: instantiate the SPMD program per rank (src/pgas.rs).
        let p = crate::pgas::prepare(p, a.nodes, Width(a.input.width))?;
        if p.nodes.is_some() && !model.uses("op") {
            return Err(Error::Usage(format!(
                "{f}: model `{model_name}` has no PGAS semantics (it does not use `op`); use --model pgas or sc"
            )));
        }
        progs.push((f, p));
    }
    let mut code = 0;
    let mut any_unknown = false;
    for (f, p) in &progs {
        let deadline = Deadline(
            a.timeout
                .map(|t| Instant::now() + Duration::from_secs_f64(t)),
        );
        let mut enc = Encoder::new(p, &model, a.bound, a.input.width, a.eager);
        for &k in kinds {
            let r = match k {
                check::CheckKind::Reach => check::reach(&mut enc, deadline),
                check::CheckKind::Robust => check::robust(&mut enc, deadline),
            };
            if a.input.json {
                let rec = serde_json::json!({
                    "file": f, "model": model_name, "bound": a.bound, "width": a.input.width,
                    "check": r.check, "verdict": r.verdict, "time": r.time,
                    "goal": r.goal.map(|g| p.goals[g].name.clone().unwrap_or_else(|| format!("#{}", g + 1))),
                    "cycle": r.cycle.as_ref().zip(r.witness.as_ref()).map(|(c, x)| x.render_cycle(c)),
                    "attack": r.attack.and_then(|(w, l)| {
                        let x = r.witness.as_ref()?;
                        Some(serde_json::json!({"store": x.event(w)?.label, "load": x.event(l)?.label}))
                    }),
                    "truncated": r.truncated, "reason": r.reason, "witness": r.witness, "stats": r.stats,
                });
                println!("{rec}");
            } else {
                print!("{}", check::render(p, f, &model_name, a.bound, &r));
            }
            if let (Some(path), Some(x)) = (&a.dot, &r.witness) {
                let dot = x.to_dot(p, r.cycle.as_ref(), &r.fr);
                std::fs::write(path, dot).map_err(|e| Error::Io {
                    path: path.clone(),
                    message: e.to_string(),
                })?;
            }
            match r.verdict {
                check::Verdict::Violation => code = 1,
                check::Verdict::Unknown => any_unknown = true,
                check::Verdict::NoViolation => {}
            }
        }
    }
    Ok(if code == 1 {
        1
    } else if any_unknown {
        3
    } else {
        0
    })
}
