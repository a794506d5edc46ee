//! One renderer for every engine's answer: [`show`] turns a
//! [`Reply`] of the library's entry point — whichever engine gave it —
//! into the record every command prints and writes (verdict word, exit
//! status, text, JSON; herd's blocks for litmus tests), [`dot`] draws its
//! witness where it has one. The verdict words of expectations files and
//! summaries are written here once. One submodule per engine's own
//! result ([`bmc_rmm::ask::Detail`]) says how its witness and statistics
//! read.

pub mod bounded;
pub mod explicit;
pub mod fences;
pub mod litmus;
pub mod normal_form;
pub mod parameterized;
pub mod smc;
pub mod state;
pub mod tso_reach;

use bmc_rmm::ask::{Detail, EngineChoice, Reply};
use bmc_rmm::engines::bounded::{CheckKind, SolverKind, Verdict};
use bmc_rmm::frontend::litmus::LitmusTest;
use bmc_rmm::litmus::run::LitmusResult;
use bmc_rmm::program::{Program, Width};

/// What a reply is rendered with besides itself: the input, its program,
/// the model's name as printed and what the command asked with.
#[derive(Clone, Copy)]
pub struct Context<'a> {
    /// The input's path.
    pub file: &'a str,
    /// Its program (a litmus test's: the test's program).
    pub program: &'a Program,
    /// The model's name as printed.
    pub model: &'a str,
    /// The bound the answer holds for (instructions per thread).
    pub bound: u32,
    /// The value width in bits (`--width`).
    pub width: u32,
    /// The backend named on the command line (the bounded engine's JSON
    /// reports it when the result does not name the one that answered).
    pub solver: SolverKind,
    /// The engine asked (the lazy and k-round engines share a result).
    pub engine: EngineChoice,
    /// `--rounds` as given.
    pub rounds: Option<u32>,
    /// Seconds the command measured for the answer (lazy, k-round).
    pub secs: f64,
    /// A litmus test's test and the parts of its record asked for.
    pub litmus: Option<(&'a LitmusTest, litmus::Parts)>,
}

impl<'a> Context<'a> {
    /// The context of the input `file` (program `program`) under the
    /// model named `model`, the rest at the command line's defaults
    /// (bound 0, default width, varisat, the automatic engine).
    pub fn new(file: &'a str, program: &'a Program, model: &'a str) -> Context<'a> {
        Context {
            file,
            program,
            model,
            bound: 0,
            width: Width::DEFAULT.0,
            solver: SolverKind::Varisat,
            engine: EngineChoice::Bounded(None),
            rounds: None,
            secs: 0.0,
            litmus: None,
        }
    }
}

/// The record of `reply` in context `c`, whichever engine gave it.
pub fn show(c: &Context, reply: &Reply) -> crate::cli::shard::Record {
    let (f, p) = (c.file, c.program);
    match &reply.detail {
        Detail::Bounded(r) => bounded::record(c, r),
        Detail::Explicit(r) => explicit::record(f, reply.answer.verdict, r),
        Detail::NormalForm(r) => normal_form::record(f, reply.answer.verdict, r),
        Detail::Smc(s) => smc::record(
            f,
            s.explored.as_ref().unwrap_or(p),
            &s.options,
            &s.result,
            reply.notes.last().cloned(),
        ),
        Detail::TsoReach(r) => tso_reach::record(f, p, r, c.engine, c.rounds, c.secs),
        Detail::StateRobust(r) => state::record(c, r),
        Detail::Parameterized(r) => {
            let (word, status) = parameterized::word(r);
            let mut rec = crate::cli::shard::record(f, status);
            rec.checks = vec![("robust".into(), word.into())];
            rec.summary = vec![word.into()];
            rec.json = vec![parameterized::json(f, p, r)];
            rec.text = parameterized::text(f, p, r);
            rec
        }
        Detail::Outcomes(r) => match c.litmus {
            Some((t, parts)) => litmus::record(f, t, r, c.model, c.solver, parts),
            None => answer_record(c, reply, "outcomes"),
        },
        Detail::FenceInsertion(r) => fences::insertion(f, p, r),
        Detail::FenceSynthesis(s) => {
            fences::synthesis(f, p, s, c.bound, reply.answer.verdict.exit_code())
        }
        Detail::Simulator(_) => answer_record(c, reply, "simulator"),
    }
}

/// The DOT drawing of `reply`'s witness, if it has one an engine draws
/// (the bounded engine's executions: events, po, rf, co, fr, the hb
/// cycle).
pub fn dot(c: &Context, reply: &Reply) -> Option<String> {
    match &reply.detail {
        Detail::Bounded(r) => Some(
            r.witness
                .as_ref()?
                .to_dot(c.program, r.cycle.as_ref(), &r.fr),
        ),
        _ => None,
    }
}

/// The record of a reply from its shared answer alone (verdict, reason,
/// witness): for the engines no command prints on its own (the
/// simulator's answer appears in `crosscheck --reach`).
fn answer_record(c: &Context, reply: &Reply, engine: &str) -> crate::cli::shard::Record {
    let a = &reply.answer;
    let check = reply.question.check().unwrap_or(CheckKind::Reach);
    let word = verdict_word(check, a.verdict);
    let mut rec = crate::cli::shard::record(c.file, a.verdict.exit_code());
    rec.checks = vec![(check.name().into(), word.into())];
    rec.summary = vec![word.into()];
    rec.json = vec![serde_json::json!({
        "file": c.file, "model": c.model, "engine": engine, "check": check,
        "verdict": word, "reason": a.reason, "witness": a.witness,
    })];
    let why = a
        .reason
        .as_deref()
        .map(|r| format!(" ({r})"))
        .unwrap_or_default();
    rec.text = format!(
        "{}: {} [{}, {engine}]: {word}{why}\n",
        c.file,
        check.name(),
        c.model
    );
    rec
}

/// The record of an unbounded engine's robustness verdict `v` on the
/// input `f`: the check and summary word of `v`, the JSON object `json`
/// and the text `text`.
pub fn robust_record(
    f: &str,
    v: Verdict,
    json: serde_json::Value,
    text: String,
) -> crate::cli::shard::Record {
    let mut rec = crate::cli::shard::record(f, v.exit_code());
    let word = verdict_word(CheckKind::Robust, v);
    rec.checks = vec![("robust".into(), word.into())];
    rec.summary = vec![word.into()];
    rec.json = vec![json];
    rec.text = text;
    rec
}

/// The verdict word of a check result (`reachable`, `unreachable`,
/// `not-robust`, `robust`, `unknown`), as in expectations files.
pub fn verdict_word(k: CheckKind, v: Verdict) -> &'static str {
    use CheckKind as K;
    use Verdict as V;
    match (k, v) {
        (_, V::Unknown) => "unknown",
        (K::Reach, V::Violation) => "reachable",
        (K::Reach, V::NoViolation) => "unreachable",
        (K::Robust, V::Violation) => "not-robust",
        (K::Robust, V::NoViolation) => "robust",
    }
}

/// The word of an explicit-engine robustness verdict, as printed in its
/// text output (`robust`, `not robust`, `unknown`).
pub fn robustness_phrase(v: Verdict) -> &'static str {
    match v {
        Verdict::Violation => "not robust",
        Verdict::NoViolation => "robust",
        Verdict::Unknown => "unknown",
    }
}

/// The verdict word of a litmus result: herd's `Allowed`/`Forbidden`, or
/// `Unknown`.
pub fn litmus_verdict_word(r: &LitmusResult) -> &'static str {
    match r.observation {
        Some(o) => o.verdict().as_str(),
        None => "Unknown",
    }
}
