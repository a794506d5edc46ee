//! The command line (clap): flags, subcommands and dispatch to the engines.
//!
//! Exit status (DESIGN.md): 0 no violation / goal unreachable, 1 violation
//! / goal reachable, 2 input or usage error, 3 unknown (timeout, limit).

use crate::backend::SolverKind;
use crate::check;
use crate::diag::Error;
use crate::frontend::{self, Format};
use crate::program::Width;
use clap::{Args, Parser, Subcommand};

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
    /// Run the explicit engine (unbounded) and the SAT engine (bounded) and
    /// compare; with `--solvers varisat,z3`, compare the two solver
    /// backends instead, replaying every witness on the other backend.
    Crosscheck(CrosscheckArgs),
    /// Run every input under two models (or, with `--solvers`, on two
    /// solver backends) and list the inputs whose verdict or set of final
    /// states differs (exit 1 if any differs).
    Diff(DiffArgs),
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
    /// Memory model (only tso without --solvers).
    #[arg(long, short = 'm', default_value = "tso")]
    pub model: String,
    /// Bound of the bounded engine (default 20; 12 for litmus tests with
    /// --solvers).
    #[arg(long, short = 'k')]
    pub bound: Option<u32>,
    /// Time limit in seconds per input and engine.
    #[arg(long)]
    pub timeout: Option<f64>,
    /// Cross-check two solver backends instead of the explicit engine
    /// against the SAT engine: `--solvers varisat,z3` runs both on every
    /// input (programs: reach and robust; litmus tests: final states),
    /// lists every disagreement and replays each witness on the other
    /// backend (same as `diff --solvers`; formats are detected from the
    /// file names).
    #[arg(long, value_delimiter = ',', value_name = "A,B")]
    pub solvers: Option<Vec<String>>,
    /// No progress bar (with --solvers).
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Worker threads (with --solvers; default: all cores).
    #[arg(long, short = 'j')]
    pub jobs: Option<usize>,
    /// PGAS (with --solvers): run SPMD programs on N nodes (overrides
    /// `nodes N;`).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub nodes: Option<u32>,
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
    /// Solver backend: the embedded SAT solver, or z3 (builds with
    /// `--features z3`, docs/solvers.md).
    #[arg(long, value_enum, default_value_t = SolverKind::Varisat)]
    pub solver: SolverKind,
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
    /// Compare each verdict with an expectations file (`arch file model
    /// verdict`, tab-separated); exit 1 on any mismatch.
    #[arg(long, value_name = "FILE.tsv")]
    pub expect: Option<String>,
    /// Record the verdicts in an expectations file (same format).
    #[arg(long, value_name = "FILE")]
    pub write_expect: Option<String>,
}

/// `bmc-rmm diff` options.
#[derive(Args, Debug, Clone)]
pub struct DiffArgs {
    /// Inputs: litmus tests (final states) and programs (reach and robust
    /// verdicts); files, directories (every .litmus/.rmm/.txt inside) or
    /// @list files.
    #[arg(value_name = "FILE")]
    pub files: Vec<String>,
    /// The two models, comma-separated: built-in names (sc, tso) or .cat
    /// files, e.g. `--models sc,tso` or `--models tso,my.cat`.
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "A,B",
        required_unless_present = "solvers",
        conflicts_with = "solvers"
    )]
    pub models: Option<Vec<String>>,
    /// Compare two solver backends instead of two models, e.g. `--solvers
    /// varisat,z3` (with `--model`); every witness is replayed on the
    /// other backend.
    #[arg(long, value_delimiter = ',', value_name = "A,B")]
    pub solvers: Option<Vec<String>>,
    /// The model of a `--solvers` comparison (name or .cat file).
    #[arg(long, short = 'm', requires = "solvers")]
    pub model: Option<String>,
    /// Solver backend of a `--models` comparison.
    #[arg(long, value_enum, default_value_t = SolverKind::Varisat)]
    pub solver: SolverKind,
    /// Unrolling bound (steps per thread); default 12 for litmus tests, 20
    /// for programs.
    #[arg(long, short = 'k')]
    pub bound: Option<u32>,
    /// Bit-width of values; default: automatic for litmus tests, 16 for
    /// programs.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=32))]
    pub width: Option<u32>,
    /// Per-input, per-model time limit in seconds ("unknown" when exceeded).
    #[arg(long, default_value_t = 60.0)]
    pub timeout: f64,
    /// Only inputs whose verdict differs (not those whose verdicts agree
    /// but whose final states differ).
    #[arg(long)]
    pub verdicts_only: bool,
    /// One JSON record per differing input instead of the table.
    #[arg(long)]
    pub json: bool,
    /// No progress bar.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Worker threads (default: all cores).
    #[arg(long, short = 'j')]
    pub jobs: Option<usize>,
    /// PGAS: run SPMD programs on N nodes (overrides `nodes N;`).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub nodes: Option<u32>,
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

/// Loads a program for checking: parses it, instantiates an SPMD (PGAS)
/// program per rank (`nodes`: `--nodes`, else the file's `nodes N;`,
/// src/pgas.rs), and checks that `model` gives PGAS programs a meaning.
///
/// Errors: the file's errors; a PGAS program under a model without `op`.
pub fn load_for_check(
    f: &str,
    format: Option<Format>,
    w: Width,
    nodes: Option<u32>,
    model: &crate::cat::Model,
    model_name: &str,
) -> Result<crate::program::Program, Error> {
    let p = frontend::load_program(f, format, w)?;
    let p = crate::pgas::prepare(p, nodes, w)?;
    if p.nodes.is_some() && !model.uses("op") {
        return Err(Error::Usage(format!(
            "{f}: model `{model_name}` has no PGAS semantics (it does not use `op`); use --model pgas or sc"
        )));
    }
    Ok(p)
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
    /// Solver backend: the embedded SAT solver, or z3 (an independent SMT
    /// encoding; builds with `--features z3`, docs/solvers.md).
    #[arg(long, value_enum, default_value_t = SolverKind::Varisat)]
    pub solver: SolverKind,
    /// Encode the model's `acyclic` axioms eagerly with clocks instead of
    /// lazily (solve, check the candidate, block the cycle, re-solve).
    #[arg(long)]
    pub eager: bool,
    /// Write witness graphs (DOT): to FILE for a single input, or one
    /// `<stem>.<check>.dot` per violation into DIR (an existing directory,
    /// a path ending in `/`, or any path when there are several inputs).
    /// Render with `dot -Tsvg FILE.dot -o FILE.svg`.
    #[arg(long, value_name = "FILE|DIR")]
    pub dot: Option<String>,
    /// Compare each verdict with an expectations file (`arch file model
    /// verdict`, tab-separated; reachable/unreachable, robust/not-robust);
    /// exit 1 on any mismatch, else 0 (3 if some unmatched input is unknown).
    #[arg(long, value_name = "FILE.tsv")]
    pub expect: Option<String>,
    /// Record the verdicts in an expectations file (same format).
    #[arg(long, value_name = "FILE")]
    pub write_expect: Option<String>,
    /// No progress bar.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Worker threads (default: all cores).
    #[arg(long, short = 'j')]
    pub jobs: Option<usize>,
    /// PGAS: run the (SPMD) program on N nodes; overrides `nodes N;` in
    /// the file (src/pgas.rs, docs/language.md).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub nodes: Option<u32>,
}

impl CheckArgs {
    /// Validates the numeric options and their combinations.
    ///
    /// Errors: bound 0, a non-positive timeout, no input file, `--eager` or
    /// `--engine explicit` with `--solver z3`.
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
        if self.solver == SolverKind::Z3 && self.eager {
            return Err(Error::Usage(
                "--eager applies to --solver varisat (z3 encodes every axiom eagerly)".into(),
            ));
        }
        if self.solver == SolverKind::Z3 && self.engine == Engine::Explicit {
            return Err(Error::Usage(
                "--solver chooses the backend of the bounded engine; --engine explicit uses none"
                    .into(),
            ));
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
        Some(Command::Crosscheck(a)) => match &a.solvers {
            Some(solvers) => crate::diff_cmd::run(&DiffArgs {
                files: a.input.files.clone(),
                models: None,
                solvers: Some(solvers.clone()),
                model: Some(a.model.clone()),
                solver: SolverKind::Varisat,
                bound: a.bound,
                width: (a.input.width != Width::DEFAULT.0).then_some(a.input.width),
                timeout: a.timeout.unwrap_or(60.0),
                verdicts_only: false,
                json: a.input.json,
                quiet: a.quiet,
                jobs: a.jobs,
                nodes: a.nodes,
            }),
            None => crate::explicit_cmd::run_crosscheck(&a),
        },
        Some(Command::Litmus(a)) => crate::litmus_cmd::run(&a),
        Some(Command::Diff(a)) => crate::diff_cmd::run(&a),
        None => run_checks(
            &cli.check,
            &[check::CheckKind::Reach, check::CheckKind::Robust],
        ),
    }
}

/// Where `--dot` writes: one file, or one file per input and check in a
/// directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DotTarget {
    /// `--dot FILE` with a single input.
    File(String),
    /// `--dot DIR`: `DIR/<stem>.<check>.dot`.
    Dir(std::path::PathBuf),
}

impl DotTarget {
    /// Interprets `--dot PATH` for `inputs` inputs: a directory when PATH
    /// is an existing directory, ends with `/`, or there are several
    /// inputs (created if missing); else a file.
    ///
    /// Errors: the directory cannot be created ([`Error::Io`]).
    pub fn resolve(path: &str, inputs: usize) -> Result<DotTarget, Error> {
        let p = std::path::Path::new(path);
        let is_dir = p.is_dir() || path.ends_with('/') || path.ends_with(std::path::MAIN_SEPARATOR);
        if !is_dir && inputs <= 1 {
            return Ok(DotTarget::File(path.to_string()));
        }
        std::fs::create_dir_all(p).map_err(|e| Error::Io {
            path: path.to_string(),
            message: e.to_string(),
        })?;
        Ok(DotTarget::Dir(p.to_path_buf()))
    }

    /// The file for input number `index` of `files` and `check`: the
    /// stem of the input's file name, with `-<index+1>` appended when
    /// another input has the same stem.
    pub fn path_for(&self, files: &[String], index: usize, check: &str) -> String {
        match self {
            DotTarget::File(f) => f.clone(),
            DotTarget::Dir(d) => {
                let stem = |f: &str| {
                    std::path::Path::new(f)
                        .file_stem()
                        .map(|s| s.to_string_lossy().into_owned())
                        .unwrap_or_else(|| "input".into())
                };
                let s = stem(&files[index]);
                let dup = files.iter().filter(|f| stem(f) == s).count() > 1;
                let name = if dup {
                    format!("{s}-{}.{check}.dot", index + 1)
                } else {
                    format!("{s}.{check}.dot")
                };
                d.join(name).to_string_lossy().into_owned()
            }
        }
    }
}

/// The verdict word of a check result (`reachable`, `unreachable`,
/// `not-robust`, `robust`, `unknown`), as in expectations files.
pub fn verdict_word(k: check::CheckKind, v: check::Verdict) -> &'static str {
    use check::{CheckKind as K, Verdict as V};
    match (k, v) {
        (_, V::Unknown) => "unknown",
        (K::Reach, V::Violation) => "reachable",
        (K::Reach, V::NoViolation) => "unreachable",
        (K::Robust, V::Violation) => "not-robust",
        (K::Robust, V::NoViolation) => "robust",
    }
}

/// The `arch` column recorded for a program input: its format.
fn format_name(file: &str, forced: Option<Format>) -> &'static str {
    match forced.unwrap_or_else(|| Format::detect(file, "")) {
        Format::Native => "native",
        Format::Trencher => "trencher",
        Format::Litmus => "litmus",
    }
}

/// Runs `reach` and/or `robust` on every input (files, directories of
/// `.rmm`/`.txt` files, `@list`s) with the bounded engine, in parallel
/// (`-j`), each input with its own `--timeout`; prints the results in
/// input order, then a summary on stderr (several inputs, `--expect` or
/// `--write-expect`).
///
/// Exit status: with `--expect`, 1 on any mismatch, else 3 if an input
/// without expectation is unknown, else 0; without, 1 if any violation,
/// else 3 if any unknown, else 0.
///
/// Errors: usage errors, unreadable or malformed inputs (before any check
/// runs), a bad model file, a malformed expectations file, an unwritable
/// `--dot` or `--write-expect` path.
pub fn run_checks(a: &CheckArgs, kinds: &[check::CheckKind]) -> Result<i32, Error> {
    use crate::expect::{self, Check, Compared};
    a.validate()?;
    if a.engine == Engine::Explicit {
        return Err(Error::Usage(
            "--engine explicit answers `robust` only".into(),
        ));
    }
    let model = check::load_model(&a.model, a.model_file.as_deref())?;
    crate::backend::validate(a.solver, &model)?;
    let model_name = match &a.model_file {
        Some(f) => f.clone(),
        None => a.model.clone(),
    };
    let aliases = expect::model_aliases(&a.model, a.model_file.as_deref());
    let exp = a
        .expect
        .as_deref()
        .map(expect::Expectations::read)
        .transpose()?;
    let files = crate::inputs::expand(&a.input.files, &["rmm", "txt"])?;
    if files.is_empty() {
        return Err(Error::Usage("no input file found".into()));
    }
    let dot = a
        .dot
        .as_deref()
        .map(|d| DotTarget::resolve(d, files.len()))
        .transpose()?;
    // Parse everything first: a bad input stops the run before any output.
    let mut progs = Vec::new();
    for f in &files {
        let w = Width(a.input.width);
        let p = load_for_check(f, a.input.format, w, a.nodes, &model, &model_name)?;
        progs.push((f.clone(), p));
    }
    let opts = crate::batch::BatchOptions::new(a.jobs, a.quiet || a.input.json);
    let mut summary = crate::batch::Summary::new("results", &[]);
    let results = crate::batch::run(&progs, &opts, |(_, p)| {
        let lim = crate::backend::Limits {
            bound: a.bound,
            width: a.input.width,
            deadline: crate::batch::deadline(a.timeout),
        };
        crate::backend::check(a.solver, p, &model, lim, a.eager, kinds)
    })?
    .into_iter()
    .collect::<Result<Vec<_>, Error>>()?;
    let mut cmp = expect::Comparison::default();
    let mut records = Vec::new();
    let (mut violation, mut unknown, mut unknown_unmatched) = (false, false, false);
    let mut out = String::new();
    for (i, ((f, p), rs)) in progs.iter().zip(&results).enumerate() {
        for r in rs {
            let word = verdict_word(r.check, r.verdict);
            summary.add(word);
            let ck = match r.check {
                check::CheckKind::Reach => Check::Reach,
                check::CheckKind::Robust => Check::Robust,
            };
            let compared = exp
                .as_ref()
                .map(|e| cmp.compare(e, f, &model_name, &aliases, ck, word));
            if a.write_expect.is_some() {
                records.push(expect::Record {
                    arch: format_name(f, a.input.format).into(),
                    file: f.clone(),
                    model: aliases[0].clone(),
                    verdict: word.into(),
                });
            }
            if a.input.json {
                let mut rec = serde_json::json!({
                    "file": f, "model": model_name, "solver": a.solver, "bound": a.bound, "width": a.input.width,
                    "check": r.check, "verdict": r.verdict, "time": r.time,
                    "goal": r.goal.map(|g| p.goals[g].name.clone().unwrap_or_else(|| format!("#{}", g + 1))),
                    "cycle": r.cycle.as_ref().zip(r.witness.as_ref()).map(|(c, x)| x.render_cycle(c)),
                    "attack": r.attack.and_then(|(w, l)| {
                        let x = r.witness.as_ref()?;
                        Some(serde_json::json!({"store": x.event(w)?.label, "load": x.event(l)?.label}))
                    }),
                    "truncated": r.truncated, "reason": r.reason, "witness": r.witness, "stats": r.stats,
                });
                if let Some(c) = &compared {
                    c.annotate(&mut rec, word);
                }
                out.push_str(&rec.to_string());
                out.push('\n');
            } else {
                out.push_str(&check::render(p, f, &model_name, a.bound, r));
            }
            if let (Some(t), Some(x)) = (&dot, &r.witness) {
                let path = t.path_for(&files, i, word_check(r.check));
                let text = x.to_dot(p, r.cycle.as_ref(), &r.fr);
                std::fs::write(&path, text).map_err(|e| Error::Io {
                    path: path.clone(),
                    message: e.to_string(),
                })?;
            }
            match r.verdict {
                check::Verdict::Violation => violation = true,
                check::Verdict::Unknown => {
                    unknown = true;
                    if matches!(compared, None | Some(Compared::Missing)) {
                        unknown_unmatched = true;
                    }
                }
                check::Verdict::NoViolation => {}
            }
        }
    }
    if let Some(e) = &exp {
        if !a.input.json {
            for m in &cmp.mismatches {
                out.push_str(m);
                out.push('\n');
            }
        }
        let _ = e;
    }
    print!("{out}");
    if let Some(path) = &a.write_expect {
        expect::write(path, &records)?;
    }
    if files.len() > 1 || exp.is_some() || a.write_expect.is_some() {
        eprintln!("{}", summary.render());
    }
    if let Some(e) = &exp {
        eprintln!("{}", cmp.render(e));
        return Ok(if !cmp.mismatches.is_empty() {
            1
        } else if unknown_unmatched {
            3
        } else {
            0
        });
    }
    Ok(if violation {
        1
    } else if unknown {
        3
    } else {
        0
    })
}

fn word_check(k: check::CheckKind) -> &'static str {
    match k {
        check::CheckKind::Reach => "reach",
        check::CheckKind::Robust => "robust",
    }
}
