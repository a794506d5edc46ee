//! The command line's grammar (clap): the subcommands, their options,
//! and the option groups they share (`#[command(flatten)]`). Defaults are
//! the library's named constants ([`bmc_rmm::engines::bounded::DEFAULT_BOUND`]…).

use bmc_rmm::diag::Error;
use bmc_rmm::engines::bounded::{SolverKind, DEFAULT_LITMUS_BOUND};
use bmc_rmm::engines::Switches;
use bmc_rmm::frontend::Format;
use bmc_rmm::program::Width;
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use clap::{Args, Parser, Subcommand};

/// bmc-rmm: bounded model checking of concurrent programs under relaxed
/// memory models (SC, x86-TSO, PSO, RMO, Power, PGAS, ARMv8, RISC-V).
///
/// Without a subcommand, runs `reach` and `robust` on each FILE and prints
/// both verdicts.
#[derive(Parser, Debug)]
#[command(name = "bmc-rmm", version = VERSION, args_conflicts_with_subcommands = true)]
pub struct Cli {
    /// What to do; default: reach + robust.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Options for the default check.
    #[command(flatten)]
    pub check: CheckArgs,
    /// Memory budget in MB for the whole run; a check that outgrows it
    /// answers "unknown" (exit 3). Default: 3/4 of the physical memory
    /// (at most a third of what `ulimit -v` leaves beyond the process's
    /// own mappings).
    #[arg(long, global = true, value_name = "MB", value_parser = clap::value_parser!(u64).range(1..))]
    pub memory: Option<u64>,
    /// Output verbosity and colour (every command).
    #[command(flatten)]
    pub verbosity: Verbosity,
}

/// `-q`, `-v`, `--color`: the same meaning on every command
/// (docs/behaviour.md).
#[derive(Args, Debug, Clone, Default)]
pub struct Verbosity {
    /// Quiet: no progress bar, no summary line, no warnings on stderr
    /// (results, `--expect`'s comparison and errors are still printed).
    #[arg(long, short = 'q', global = true, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Verbose: also a line on stderr as each input completes (its verdict
    /// words).
    #[arg(long, short = 'v', global = true)]
    pub verbose: bool,
    /// When to colour help and error messages: auto (a terminal, unless
    /// NO_COLOR is set), always, never.
    #[arg(long, global = true, value_enum, value_name = "WHEN", default_value_t = ColorWhen::Auto)]
    pub color: ColorWhen,
}

/// `--color WHEN`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorWhen {
    /// Colour on a terminal, unless the NO_COLOR variable is set (non-empty).
    #[default]
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
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
    /// A minimum-cost set of fences that makes the program robust: against
    /// TSO unbounded (explicit engine, mfence), against any model up to
    /// --bound (bounded engine, the model's fence kinds).
    Fences(FencesArgs),
    /// Run the explicit engine (unbounded) and the SAT engine (bounded) and
    /// compare; with `--solvers varisat,z3`, compare the two solver
    /// backends instead, replaying every witness on the other backend; with
    /// `--reach`, compare the TSO reachability engines (SAT, lazy, kround,
    /// simulator).
    Crosscheck(CrosscheckArgs),
    /// Print the k-round translation P' of each FILE (native syntax): TSO
    /// reachability within K rounds per thread of FILE = SC reachability of P'.
    Translate(TranslateArgs),
    /// Run every input under two models (or, with `--solvers`, on two
    /// solver backends) and list the inputs whose verdict or set of final
    /// states differs (exit 1 if any differs).
    Diff(DiffArgs),
    /// Print the man page (troff) on stdout, or with `--dir DIR` one page
    /// per command into DIR (e.g. `bmc-rmm man --dir ~/.local/share/man/man1`).
    Man(ManArgs),
    /// Print the shell completion script for SHELL (bash, zsh, fish,
    /// elvish, powershell) on stdout.
    Completions(CompletionsArgs),
    /// Combine the `--jsonl` record files of a sharded run (`--shard I/N`)
    /// into one report, in input order; fails on a missing shard, a
    /// missing input or an input recorded twice (docs/batch.md).
    Merge(MergeArgs),
    /// Answer SV-COMP tasks (TASK.yml, unreach-call): TRUE, FALSE (with a
    /// witness) or UNKNOWN; several tasks: a table with SV-COMP's score.
    Svcomp(super::svcomp::SvcompArgs),
    /// Re-check certificates written by `--certify` (the proof with
    /// varisat-checker, every lemma with the cat evaluator, the formula
    /// re-derived from the input and the model); exit 1 if one is rejected.
    CertifyCheck(CertifyCheckArgs),
    /// Generate seeded random programs (native, or C with `--lang c`) and
    /// ask every applicable engine and backend the same questions; compare
    /// the answers, replay every witness, shrink each disagreement to a
    /// reproducer (exit 1 if any).
    FuzzDiff(FuzzDiffArgs),
    /// herd7's command line (-conf, -model, -I, -set-libdir, -timeout,
    /// -variant mixed, files): prints herd's log, so that scripts written
    /// for herd7 run with bmc-rmm in its place; also what the binary does
    /// when run under the name `herd7` (docs/litmus.md).
    Herd7(super::herd7::Herd7Args),
}

/// `bmc-rmm man` options.
#[derive(Args, Debug, Clone)]
pub struct ManArgs {
    /// Write `bmc-rmm.1` and one page per command into DIR (created if
    /// missing) instead of printing `bmc-rmm.1`.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<String>,
}

/// `bmc-rmm completions` options.
#[derive(Args, Debug, Clone)]
pub struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// `bmc-rmm certify-check` options.
#[derive(Args, Debug, Clone)]
pub struct CertifyCheckArgs {
    /// Certificate directories (written by `--certify`); a directory
    /// without `manifest.json` is searched for certificates below it.
    #[arg(value_name = "DIR", required = true)]
    pub dirs: Vec<String>,
}

/// `bmc-rmm merge` options.
#[derive(Args, Debug, Clone)]
pub struct MergeArgs {
    /// The shards' record files (`--jsonl OUT`), in any order.
    #[arg(value_name = "OUT", required = true)]
    pub files: Vec<String>,
    /// Compare the verdicts with an expectations file (as `--expect` of
    /// the command that wrote the records).
    #[arg(long, value_name = "FILE.tsv")]
    pub expect: Option<String>,
    /// Print herd7's log (litmus records): one block per test, `Hash=`
    /// lines included, in input order.
    #[arg(long, conflicts_with = "json")]
    pub herd: bool,
    /// Print the JSON records the command's `--json` prints.
    #[arg(long)]
    pub json: bool,
}

/// The engine answering `robust` (`--engine`): the word "engine" means
/// only this choice in bmc-rmm.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Engine {
    /// Bounded SAT engine (any model, up to --bound).
    #[value(name = "sat", alias = "bounded")]
    Bounded,
    /// Explicit-state engine: unbounded robustness against TSO by attacks
    /// (against PSO, RMO, Power and PGAS by normal-form computations).
    Explicit,
    /// Unbounded robustness against Power (two threads, `sync`, `isync`),
    /// RMO, PSO, TSO and PGAS (`--nodes N`) by normal-form computations
    /// (thesis ch. 3–5 and 8).
    #[value(name = "normal-form", alias = "nf")]
    NormalForm,
    /// `reach` under TSO within --rounds K rounds per thread, by reduction
    /// to SC (the translated program is checked by the explicit SC search).
    Kround,
    /// `reach` under TSO, unbounded: lazy TSO reachability (SC search +
    /// robustness oracle + refinement; a semi-decision: --rounds caps the
    /// refinements, --timeout the time; "unknown" when hit).
    Lazy,
    /// Stateless model checking (`reach`, `robust`) under sc, tso or pso
    /// within --bound: Source-DPOR over chronological traces.
    Smc,
}

/// How `litmus` finds a test's final states (`--enumerate`,
/// docs/litmus.md "Two ways to the final states").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Enumerate {
    /// Visit the candidate executions directly when a test has at most
    /// [`bmc_rmm::engines::bounded::varisat::enumerate::DEFAULT_BUDGET`] of them, else solve.
    #[default]
    Auto,
    /// Always visit every candidate execution (herd's way).
    Always,
    /// Always one SAT solve per final state (and per refinement).
    Never,
    /// Visit them when there are at most this many.
    Budget(usize),
}

impl Enumerate {
    /// The candidate budget of [`bmc_rmm::litmus::run::run_with`].
    pub fn budget(self) -> Option<usize> {
        match self {
            Enumerate::Auto => Some(bmc_rmm::engines::bounded::varisat::enumerate::DEFAULT_BUDGET),
            Enumerate::Always => Some(usize::MAX),
            Enumerate::Never => None,
            Enumerate::Budget(n) => Some(n),
        }
    }
}

/// `--enumerate`: `auto`, `always`, `never` or a number of candidates.
fn parse_enumerate(s: &str) -> Result<Enumerate, String> {
    match s.trim() {
        "auto" => Ok(Enumerate::Auto),
        "always" => Ok(Enumerate::Always),
        "never" => Ok(Enumerate::Never),
        n => n
            .parse()
            .map(Enumerate::Budget)
            .map_err(|_| format!("`{s}` is not auto, always, never or a number of candidates")),
    }
}

/// How `robust` poses its hb-cycle query to the bounded engine
/// (`--hb-query`, docs/models.md "hb-cycle query").
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum HbQuery {
    /// Race (two threads) with `--solver cdclt` and a single input;
    /// otherwise plain (docs/performance.md: under load the varisat race
    /// was up to 2.7× slower on some rows, cdclt's at most 1.7×).
    Auto,
    /// Any hb cycle.
    Plain,
    /// Shortest cycles only: at most two events per thread and an edge
    /// outside the model's main `acyclic` relation (same answer).
    Shortest,
    /// Both queries on two threads; the first answer wins.
    Race,
}

impl From<HbQuery> for bmc_rmm::ask::HbQuery {
    fn from(q: HbQuery) -> bmc_rmm::ask::HbQuery {
        match q {
            HbQuery::Auto => bmc_rmm::ask::HbQuery::Auto,
            HbQuery::Plain => bmc_rmm::ask::HbQuery::Plain,
            HbQuery::Shortest => bmc_rmm::ask::HbQuery::Shortest,
            HbQuery::Race => bmc_rmm::ask::HbQuery::Race,
        }
    }
}

/// `bmc-rmm translate` options.
#[derive(Args, Debug, Clone)]
pub struct TranslateArgs {
    /// Inputs.
    #[command(flatten)]
    pub input: InputArgs,
    /// The number of rounds per thread K (≥ 1).
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(1..=64))]
    pub kround: u32,
}

/// `bmc-rmm fences` options.
#[derive(Args, Debug, Clone)]
pub struct FencesArgs {
    /// Inputs.
    #[command(flatten)]
    pub input: InputArgs,
    /// Memory model: tso, pso, rmo, power, arm (aarch64), riscv. tso
    /// without --bound uses the explicit engine (unbounded, mfence);
    /// otherwise the bounded engine synthesizes fences up to --bound, and
    /// under tso, pso, rmo and power the normal-form engine checks the
    /// fenced program for every bound.
    #[arg(long, short = 'm', default_value = "tso")]
    pub model: String,
    /// Bounded synthesis up to K instructions per thread (default 20 for
    /// models other than tso; docs/fences.md).
    #[arg(long, short = 'k', value_parser = clap::value_parser!(u32).range(1..))]
    pub bound: Option<u32>,
    /// Fence costs: lines `kind KIND COST`, `THREAD STATE [KIND] COST`
    /// and `default COST` (docs/fences.md).
    #[arg(long, value_name = "FILE")]
    pub cost: Option<String>,
    /// Write the fenced program (native syntax) to FILE (one input only).
    #[arg(long, value_name = "FILE")]
    pub emit: Option<String>,
    /// Time limit in seconds per input ("unknown" when exceeded); also
    /// the limit of the check for every bound (default 10).
    #[arg(long, value_name = "SECONDS", value_parser = parse_timeout)]
    pub timeout: Option<f64>,
    /// Solver backend of the bounded synthesis.
    #[arg(long, default_value = "varisat", value_parser = solver_parser())]
    pub solver: SolverKind,
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
    #[arg(long, value_name = "SECONDS", value_parser = parse_timeout)]
    pub timeout: Option<f64>,
    /// Cross-check two solver backends instead of the explicit engine
    /// against the SAT engine: `--solvers varisat,z3` runs both on every
    /// input (programs: reach and robust; litmus tests: final states),
    /// lists every disagreement and replays each witness on the other
    /// backend (same as `diff --solvers`; formats are detected from the
    /// file names).
    #[arg(long, value_delimiter = ',', value_name = "A,B")]
    pub solvers: Option<Vec<String>>,
    /// Cross-check the TSO reachability engines instead of robustness:
    /// SAT at --bound, lazy, kround --rounds K (its P' also with the SAT
    /// engine under sc), and the explicit TSO simulator where it
    /// terminates; exit 1 on a disagreement.
    #[arg(long, conflicts_with = "solvers")]
    pub reach: bool,
    /// Rounds per thread of the kround engine with --reach (default 2).
    #[arg(long, value_name = "K", requires = "reach", value_parser = clap::value_parser!(u32).range(1..=64))]
    pub rounds: Option<u32>,
    /// The global `-q` ([`Verbosity`]), copied here by `cli::run`.
    #[arg(skip)]
    pub quiet: bool,
    /// Worker threads (with --solvers; default: all cores).
    #[arg(long, short = 'j')]
    pub jobs: Option<usize>,
    /// Sharding and record files.
    #[command(flatten)]
    pub shard: super::shard::ShardArgs,
    /// PGAS node count.
    #[command(flatten)]
    pub pgas: PgasArgs,
}

/// `bmc-rmm litmus` options.
#[derive(Args, Debug, Clone)]
pub struct LitmusArgs {
    /// Litmus files, directories (every .litmus inside) or @list files.
    #[arg(value_name = "FILE")]
    pub files: Vec<String>,
    /// Memory model.
    #[command(flatten)]
    pub model: ModelArgs,
    /// herd's configuration file (herd7 `-conf`, e.g. the kernel's
    /// `linux-kernel.cfg`): its `macros`, `bell`, `model` and `variant`
    /// keys give the meaning of C litmus tests (docs/litmus.md).
    #[arg(long, value_name = "CFG", conflicts_with = "model_file")]
    pub conf: Option<String>,
    /// A folder searched for the files of `--conf` after the
    /// configuration's own folder, in order (herd7 `-I`).
    #[arg(short = 'I', value_name = "DIR", requires = "conf")]
    pub include: Vec<String>,
    /// Solver backend: the embedded SAT solver (varisat), the same CNF
    /// with the model as a theory (cdclt), or z3 (builds with `--features
    /// z3`, docs/solvers.md).
    #[arg(long, value_parser = solver_parser(), default_value = "varisat")]
    pub solver: SolverKind,
    /// varisat: find the final states by visiting the candidate executions
    /// (paths × rf × co) and checking the model on each, instead of one
    /// SAT solve per state: `auto` (when a test has at most 30000
    /// candidates and the search needs at most 4096), `always`, `never`,
    /// or a number of candidates. Same states either way (docs/litmus.md).
    #[arg(long, value_name = "WHEN", value_parser = parse_enumerate, default_value = "auto")]
    pub enumerate: Enumerate,
    /// Loop unrolling bound (steps per thread) for tests with retry loops.
    #[arg(long, short = 'k', default_value_t = DEFAULT_LITMUS_BOUND)]
    pub bound: u32,
    /// Bit-width of values; default: the narrowest width ≥ 8 that holds
    /// every constant and address of the test.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=Width::MAX.0 as i64))]
    pub width: Option<u32>,
    /// Per-test time limit in seconds (the test's answer is "unknown").
    #[arg(long, value_name = "SECONDS", default_value_t = DEFAULT_TIMEOUT, value_parser = parse_timeout)]
    pub timeout: f64,
    /// Certify each test's final states: the states are enumerated as
    /// `--enumerate` says (candidates visited directly, or one SAT query
    /// per state, each state found then excluded), then the query with
    /// every state found excluded is solved and, unsatisfiable ("no
    /// execution the model allows reaches a final state outside those
    /// printed"), written to
    /// DIR/<stem>.final-states: the formula with the excluded states
    /// (`c block K`), a proof, the lemmas' justifications and a manifest
    /// with the states. This certifies Never (no state satisfies the
    /// condition) and the "every state" side of Always; the states
    /// printed are witnessed by the search. Re-check with `bmc-rmm
    /// certify-check DIR` (docs/reliability.md). Varisat only; not with
    /// --conf.
    #[arg(long, value_name = "DIR")]
    pub certify: Option<String>,
    /// One JSON record per test instead of herd blocks.
    #[arg(long, conflicts_with = "herd_log")]
    pub json: bool,
    /// herd7's log format, `Hash=` lines included, for herd's tools
    /// (mcompare7, msort7; docs/litmus.md).
    #[arg(long)]
    pub herd_log: bool,
    /// Progress bar and worker threads.
    #[command(flatten)]
    pub batch: BatchArgs,
    /// Expectations files.
    #[command(flatten)]
    pub expectations: ExpectArgs,
    /// Developer switches (`BMC_*` variables), set by `cli::run`.
    #[arg(skip)]
    pub switches: Switches,
}

/// `bmc-rmm diff` options.
#[derive(Args, Debug, Clone)]
pub struct DiffArgs {
    /// Inputs: litmus tests (final states) and programs (reach and robust
    /// verdicts); files, directories (every .litmus/.rmm/.txt inside) or
    /// @list files.
    #[arg(value_name = "FILE")]
    pub files: Vec<String>,
    /// The two models, comma-separated: built-in names (sc, tso), .cat
    /// files, or herd configurations (.cfg: C litmus tests under their
    /// model and macro file; a change of the model's flags is listed
    /// too), e.g. `--models sc,tso`, `--models tso,my.cat` or `--models
    /// A/linux-kernel.cfg,B/linux-kernel.cfg`.
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "A,B",
        required_unless_present = "solvers",
        conflicts_with = "solvers"
    )]
    pub models: Option<Vec<String>>,
    /// A folder of herd's search path for the `.cfg` models' files
    /// (after each configuration's own folder), in order; as herd7's `-I`.
    #[arg(short = 'I', value_name = "DIR")]
    pub include: Vec<String>,
    /// Compare two solver backends instead of two models, e.g. `--solvers
    /// varisat,z3` (with `--model`); every witness is replayed on the
    /// other backend.
    #[arg(long, value_delimiter = ',', value_name = "A,B")]
    pub solvers: Option<Vec<String>>,
    /// The model of a `--solvers` comparison (name or .cat file).
    #[arg(long, short = 'm', requires = "solvers")]
    pub model: Option<String>,
    /// Solver backend of a `--models` comparison.
    #[arg(long, value_parser = solver_parser(), default_value = "varisat")]
    pub solver: SolverKind,
    /// Unrolling bound (steps per thread); default 12 for litmus tests, 20
    /// for programs.
    #[arg(long, short = 'k')]
    pub bound: Option<u32>,
    /// Bit-width of values; default: automatic for litmus tests, 16 for
    /// programs.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=Width::MAX.0 as i64))]
    pub width: Option<u32>,
    /// Per-input, per-model time limit in seconds ("unknown" when exceeded).
    #[arg(long, value_name = "SECONDS", default_value_t = DEFAULT_TIMEOUT, value_parser = parse_timeout)]
    pub timeout: f64,
    /// Only inputs whose verdict differs (not those whose verdicts agree
    /// but whose final states differ).
    #[arg(long)]
    pub verdicts_only: bool,
    /// One JSON record per differing input instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Progress bar and worker threads.
    #[command(flatten)]
    pub batch: BatchArgs,
    /// PGAS node count.
    #[command(flatten)]
    pub pgas: PgasArgs,
    /// Developer switches (`BMC_*` variables), set by `cli::run`.
    #[arg(skip)]
    pub switches: Switches,
}

/// Options shared by every command that reads programs.
#[derive(Args, Debug, Clone)]
pub struct InputArgs {
    /// Input files (native .rmm, Trencher .txt, herd .litmus, C .c).
    #[arg(value_name = "FILE")]
    pub files: Vec<String>,
    /// Force the input format instead of detecting it from the extension.
    #[arg(long, value_parser = format_parser())]
    pub format: Option<Format>,
    /// Bit-width of values and addresses (1..=64); constants must fit.
    #[arg(long, default_value_t = Width::DEFAULT.0, value_parser = clap::value_parser!(u32).range(1..=Width::MAX.0 as i64))]
    pub width: u32,
    /// Print one JSON record per result instead of text.
    #[arg(long)]
    pub json: bool,
    /// C front-end options.
    #[command(flatten)]
    pub c: CArgs,
    /// Developer switches (`BMC_*` variables), set by `cli::run`.
    #[arg(skip)]
    pub switches: Switches,
}

/// Options of the C front-end (`.c` inputs, docs/c.md).
#[derive(Args, Debug, Clone, Default)]
pub struct CArgs {
    /// C: define a preprocessor macro, as `cc -D` (`-D NAME`,
    /// `-D NAME=VALUE`; repeatable).
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    pub define: Vec<String>,
    /// C: run every loop body at most N times on a path (CBMC's
    /// `--unwind`; loops whose condition constants decide are unrolled
    /// completely). The answer names the loops it cut. Default 10.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub unwind: Option<u32>,
    /// C: keep spin loops `while (c);` as loops (by default they become
    /// the loads of `c` and `assume(!c)`, as in the SMC-for-TSO paper).
    #[arg(long)]
    pub no_spin_assume: bool,
}

impl CArgs {
    /// The library's C front-end options.
    pub fn options(&self) -> bmc_rmm::frontend::c::Options {
        bmc_rmm::frontend::c::Options {
            defines: self.define.clone(),
            unwind: self.unwind.unwrap_or(bmc_rmm::frontend::c::DEFAULT_UNWIND),
            spin_assume: !self.no_spin_assume,
            cpp: None,
            cyclic: false,
            replicate: false,
            deadline: None,
        }
    }
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
    /// Memory model.
    #[command(flatten)]
    pub model: ModelArgs,
    /// Unrolling bound: at most K instructions executed per thread (≥ 1;
    /// default 20, for C input the longest path of the unwound program,
    /// which cuts nothing).
    #[arg(long, short = 'k')]
    pub bound: Option<u32>,
    /// Per-input time limit in seconds; "unknown" (exit 3) when exceeded.
    #[arg(long, value_name = "SECONDS", value_parser = parse_timeout)]
    pub timeout: Option<f64>,
    /// Engine: the bounded SAT engine; the explicit-state engine (`robust`
    /// only, unbounded, TSO); kround (`reach` only, TSO within --rounds);
    /// lazy (`reach` only, TSO, unbounded); smc (`reach`, `robust`: sc,
    /// tso, pso within --bound). docs/engines.md.
    #[arg(long, value_enum, default_value_t = Engine::Bounded)]
    pub engine: Engine,
    /// `reach --engine smc`: explore read-only regions (loops and
    /// branches that only load shared memory into registers nothing reads
    /// afterwards, e.g. bounded spin loops) instead of replacing each by
    /// one `nop` (same reachable goals; the executions and traces
    /// counted are the original program's; docs/engines.md).
    #[arg(long)]
    pub smc_keep_reads: bool,
    /// Rounds per thread of `--engine kround` (1..=64, default 2); most
    /// refinements of `--engine lazy` (default: unbounded).
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(0..=1_000_000))]
    pub rounds: Option<u32>,
    /// Solver backend: the embedded SAT solver (varisat), the same CNF
    /// with the model as a theory (cdclt), z3 (an independent SMT
    /// encoding; builds with `--features z3`), or auto: `reach` of a
    /// single input on a machine with an idle core (load average <
    /// cores − 0.5) races varisat and cdclt on two threads (first answer wins;
    /// cdclt starts 0.5 s later), `robust` of a single input on such a
    /// machine uses cdclt (its two hb-cycle queries raced), everything
    /// else uses varisat; under the built-in tso model `robust` first
    /// gives the explicit engine 300 ms to prove robustness for every
    /// bound or find a TSO witness that fits the bound (docs/solvers.md).
    #[arg(long, value_parser = auto_solver_parser(), default_value = "auto")]
    pub solver: SolverArg,
    /// Encode the model's `acyclic` axioms eagerly with clocks instead of
    /// lazily (solve, check the candidate, block the cycle, re-solve).
    #[arg(long)]
    pub eager: bool,
    /// `robust` with the sat engine (varisat, cdclt): the hb-cycle query,
    /// plain, narrowed to shortest cycles (same answer, faster on some
    /// programs and slower on others), or both raced on two threads
    /// (first answer wins); `auto` races with `--solver cdclt` for a
    /// single input and is plain otherwise (a batch already uses the
    /// cores).
    #[arg(long, value_enum, default_value_t = HbQuery::Auto)]
    pub hb_query: HbQuery,
    /// `robust` only: state-robustness (thesis §2.6) instead of trace
    /// robustness: list every (thread, control state) reachable under the
    /// model but not under SC within the bound, with a witness each.
    #[arg(long)]
    pub state: bool,
    /// `robust` only: parameterized robustness against TSO (thesis §6.3):
    /// every thread is a template that may run in any number of copies;
    /// without the flag, threads marked `thread t *` are the templates.
    /// Explicit engine; docs/parameterized.md.
    #[arg(long)]
    pub parameterized: bool,
    /// Write witness graphs (DOT): to FILE for a single input, or one
    /// `<stem>.<check>.dot` per violation into DIR (an existing directory,
    /// a path ending in `/`, or any path when there are several inputs).
    /// Render with `dot -Tsvg FILE.dot -o FILE.svg`.
    #[arg(long, value_name = "FILE|DIR")]
    pub dot: Option<String>,
    /// Write a certificate of each negative answer into DIR, one
    /// directory `<stem>.<check>` per input and check: the formula
    /// (DIMACS, every clause tagged with its origin), a proof of its
    /// unsatisfiability, each lemma's justification and a manifest.
    /// Re-check with `bmc-rmm certify-check DIR` (docs/reliability.md).
    /// Varisat backend, lazy encoding.
    #[arg(long, value_name = "DIR")]
    pub certify: Option<String>,
    /// Expectations files.
    #[command(flatten)]
    pub expectations: ExpectArgs,
    /// Progress bar and worker threads.
    #[command(flatten)]
    pub batch: BatchArgs,
    /// PGAS node count.
    #[command(flatten)]
    pub pgas: PgasArgs,
}

impl CheckArgs {
    /// Validates the numeric options and their combinations.
    ///
    /// Errors: bound 0, no input file, `--eager` or
    /// `--engine explicit` with `--solver z3`.
    pub fn validate(&self) -> Result<(), Error> {
        if self.bound == Some(0) {
            return Err(Error::Usage("--bound must be at least 1".into()));
        }
        if self.input.files.is_empty() {
            return Err(Error::Usage("no input FILE given".into()));
        }
        if self.rounds.is_some() && !matches!(self.engine, Engine::Kround | Engine::Lazy) {
            return Err(Error::Usage(
                "--rounds applies to --engine kround and lazy".into(),
            ));
        }
        if !matches!(self.solver.0, None | Some(SolverKind::Varisat)) && self.eager {
            return Err(Error::Usage(
                "--eager applies to --solver varisat (z3 encodes every axiom eagerly)".into(),
            ));
        }
        if self.solver.0.is_some_and(|k| k != SolverKind::Varisat) && self.engine != Engine::Bounded
        {
            return Err(Error::Usage(
                "--solver chooses the backend of the bounded engine; --engine explicit/kround use none"
                    .into(),
            ));
        }
        Ok(())
    }
}

/// `--version`: the version, the solver backends and the Cargo features
/// built in, e.g. `0.1.0 (solvers: varisat, cdclt, z3; features: cli, z3)`.
pub const VERSION: &str = if cfg!(feature = "z3-bundled") {
    concat!(
        env!("CARGO_PKG_VERSION"),
        " (solvers: varisat, cdclt, z3; features: cli, z3, z3-bundled)"
    )
} else if cfg!(feature = "z3") {
    concat!(
        env!("CARGO_PKG_VERSION"),
        " (solvers: varisat, cdclt, z3; features: cli, z3)"
    )
} else {
    concat!(
        env!("CARGO_PKG_VERSION"),
        " (solvers: varisat, cdclt; features: cli)"
    )
};

/// Default per-input time limit of `litmus` and `diff` (seconds).
pub const DEFAULT_TIMEOUT: f64 = 60.0;

/// Rounds per thread of `--engine kround` when `--rounds` is not given.
pub const DEFAULT_ROUNDS: u32 = 2;

/// The longest accepted `--timeout` (seconds; about 31 years).
pub const MAX_TIMEOUT: f64 = 1e9;

/// `--timeout SECONDS`, the one parser of durations for every command: a
/// positive, finite number of seconds up to [`MAX_TIMEOUT`].
///
/// Errors: not a number, `inf`/`NaN`, zero or negative, too large.
pub(crate) fn parse_timeout(s: &str) -> Result<f64, String> {
    let t: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a number of seconds"))?;
    if !t.is_finite() || t <= 0.0 {
        return Err("the timeout must be a positive, finite number of seconds".into());
    }
    if t > MAX_TIMEOUT {
        return Err(format!("the timeout is at most {MAX_TIMEOUT:e} seconds"));
    }
    Ok(t)
}

/// `bmc-rmm fuzz-diff` options.
#[derive(Args, Debug, Clone)]
pub struct FuzzDiffArgs {
    /// The run's seed (the same seed and options give the same programs).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Programs to generate and check.
    #[arg(long, default_value_t = 100)]
    pub count: u64,
    /// The first program's index (to resume or split a run).
    #[arg(long, default_value_t = 0)]
    pub start: u64,
    /// The language of the generated programs: `native`, or `c` (C
    /// programs with pthreads, atomics, arrays and pointers in the C
    /// front-end's subset, docs/c.md; under sc the SV-COMP runner's
    /// explicit-state search answers too).
    #[arg(long, default_value = "native",
          value_parser = clap::builder::PossibleValuesParser::new(["native", "c"]))]
    pub lang: String,
    /// Built-in models, comma-separated; program i is checked under the
    /// (i mod n)-th [default: sc,tso,pso,rmo,power,pgas (under pgas the
    /// programs are SPMD programs on 2 or 3 nodes); with `--lang c`:
    /// sc,tso,pso].
    #[arg(long, value_delimiter = ',')]
    pub models: Vec<String>,
    /// Questions asked of every program: reach, robust or both [default:
    /// reach,robust; with `--lang c`: reach].
    #[arg(long, value_delimiter = ',')]
    pub checks: Vec<String>,
    /// The bound K of the bounded engines and SMC (native programs; a C
    /// program's bound is the longest path of its unwound program).
    #[arg(long, short = 'k', default_value_t = 6, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub bound: u32,
    /// Rounds of the k-round engine.
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub rounds: u32,
    /// Value width W in bits [default: 4; with `--lang c`: 6, which the
    /// C programs' memory needs].
    #[arg(long, short = 'w', value_parser = clap::value_parser!(u32).range(2..=16))]
    pub width: Option<u32>,
    /// Loop unwinding of the C front-end (`--lang c`; the generated
    /// loops run at most 2 iterations).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub unwind: u32,
    /// Time limit of each engine on each question.
    #[arg(long, value_name = "SECONDS", default_value_t = 2.0, value_parser = parse_timeout)]
    pub timeout: f64,
    /// Write each disagreement's shrunk reproducer (`.rmm`, or `.c` with
    /// `--lang c`) into DIR.
    #[arg(long, value_name = "DIR")]
    pub out: Option<String>,
    /// Write every generated program into DIR (`seedS-I-MODEL.rmm` or
    /// `.c`), to look at or rerun one of them.
    #[arg(long, value_name = "DIR")]
    pub emit: Option<String>,
}

/// Options of every batch command: progress bar and worker threads.
#[derive(Args, Debug, Clone, Default)]
pub struct BatchArgs {
    /// The global `-q` ([`Verbosity`]), copied here by `cli::run`.
    #[arg(skip)]
    pub quiet: bool,
    /// Worker threads (default: all cores).
    #[arg(long, short = 'j')]
    pub jobs: Option<usize>,
    /// Sharding and record files.
    #[command(flatten)]
    pub shard: super::shard::ShardArgs,
}

/// `--solver`: the library's [`SolverKind`] names, with their help.
fn solver_parser() -> impl TypedValueParser<Value = SolverKind> {
    PossibleValuesParser::new([
        PossibleValue::new("varisat").help("The embedded SAT solver (pure Rust; always available)"),
        PossibleValue::new("cdclt").help(
            "The same CNF solved by batsat with the model as a theory during search (CDCL(T); pure Rust)",
        ),
        PossibleValue::new("z3").help("z3 through libz3 (builds with `--features z3`)"),
    ])
    .try_map(|s| s.parse::<SolverKind>())
}

/// `--solver` of `reach` and `robust`: a backend, or `None` for `auto`
/// (`reach` of a single input on a machine with an idle core races
/// varisat and cdclt,
/// `bmc_rmm::engines::bounded::queries::check_race_solvers`; otherwise varisat).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SolverArg(pub Option<SolverKind>);

impl SolverArg {
    /// The one backend used where nothing is raced (varisat for `auto`).
    pub fn kind(self) -> SolverKind {
        self.0.unwrap_or(SolverKind::Varisat)
    }
}

/// `--solver` with `auto` (checking commands).
fn auto_solver_parser() -> impl TypedValueParser<Value = SolverArg> {
    PossibleValuesParser::new([
        PossibleValue::new("auto").help(
            "single input, idle core: reach races varisat and cdclt (first answer wins), robust uses cdclt (two hb-cycle queries raced); otherwise varisat; robust under tso first tries the explicit engine for 300 ms",
        ),
        PossibleValue::new("varisat").help("The embedded SAT solver (pure Rust; always available)"),
        PossibleValue::new("cdclt").help(
            "The same CNF solved by batsat with the model as a theory during search (CDCL(T); pure Rust)",
        ),
        PossibleValue::new("z3").help("z3 through libz3 (builds with `--features z3`)"),
    ])
    .try_map(|s| match s.as_str() {
        "auto" => Ok(SolverArg(None)),
        _ => s.parse::<SolverKind>().map(|k| SolverArg(Some(k))),
    })
}

/// `--format`: the library's [`Format`] names, with their help.
fn format_parser() -> impl TypedValueParser<Value = Format> {
    PossibleValuesParser::new([
        PossibleValue::new("native").help("The native `.rmm` language"),
        PossibleValue::new("trencher").help("Trencher's `.txt` format"),
        PossibleValue::new("litmus").help("A herd litmus test"),
        PossibleValue::new("memorax")
            .help("Memorax's RMM language (detected by a leading `forbidden`)"),
        PossibleValue::new("c").help("C/pthreads (a subset, docs/c.md; detected by `.c`)"),
    ])
    .try_map(|s| s.parse::<Format>())
}

/// `--model NAME` / `--model-file FILE`: the memory model of a run.
#[derive(Args, Debug, Clone)]
pub struct ModelArgs {
    /// Memory model: a built-in name (sc, tso, pso, rmo, power, pgas,
    /// aarch64, riscv, sc-instr; aliases x86tso, ppc, arm, armv8, rvwmo).
    #[arg(
        long,
        short = 'm',
        default_value = "tso",
        conflicts_with = "model_file"
    )]
    pub model: String,
    /// Load the memory model from a cat file instead of a built-in one.
    #[arg(long, value_name = "FILE")]
    pub model_file: Option<String>,
}

/// A loaded model with the names a run prints and records for it.
pub struct LoadedModel {
    /// The model.
    pub model: bmc_rmm::cat::Model,
    /// The name results print: the file, else the name given.
    pub name: String,
    /// Its names in expectations files ([`super::expect::model_aliases`]).
    pub aliases: Vec<String>,
}

impl ModelArgs {
    /// Loads the model ([`bmc_rmm::cat::load_model`]) and checks that
    /// `solver` can encode it ([`bmc_rmm::engines::bounded::validate`]).
    ///
    /// Errors: unknown name; unreadable or malformed file; the backend is
    /// not built in or cannot encode the model.
    pub fn load_for(&self, solver: SolverKind) -> Result<LoadedModel, Error> {
        let m = self.load()?;
        bmc_rmm::engines::bounded::validate(solver, &m.model)?;
        Ok(m)
    }

    /// Loads the model ([`bmc_rmm::cat::load_model`]).
    ///
    /// Errors: unknown name; unreadable or malformed file.
    pub fn load(&self) -> Result<LoadedModel, Error> {
        let file = self.model_file.as_deref();
        Ok(LoadedModel {
            model: bmc_rmm::cat::load_model(&self.model, file)?,
            name: file.unwrap_or(&self.model).to_string(),
            aliases: super::expect::model_aliases(&self.model, file),
        })
    }
}

/// `--nodes N`: the node count of PGAS programs.
#[derive(Args, Debug, Clone, Default)]
pub struct PgasArgs {
    /// PGAS: run SPMD programs on N nodes (overrides the file's `nodes N;`;
    /// docs/language.md).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub nodes: Option<u32>,
}

/// `--expect FILE` / `--write-expect FILE`: expectations files
/// (docs/batch.md).
#[derive(Args, Debug, Clone, Default)]
pub struct ExpectArgs {
    /// Compare each verdict with an expectations file (`arch file model
    /// verdict`, tab-separated; Allowed/Forbidden, reachable/unreachable,
    /// robust/not-robust); exit 1 on any mismatch, else 0 (3 if some
    /// unmatched input is unknown).
    #[arg(long, value_name = "FILE.tsv")]
    pub expect: Option<String>,
    /// Record the verdicts in an expectations file (same format).
    #[arg(long, value_name = "FILE")]
    pub write_expect: Option<String>,
}

impl ExpectArgs {
    /// Reads `--expect`'s file, if given.
    ///
    /// Errors: unreadable or malformed file (located).
    pub fn read(&self) -> Result<Option<super::expect::Expectations>, Error> {
        self.expect
            .as_deref()
            .map(super::expect::Expectations::read)
            .transpose()
    }
}
