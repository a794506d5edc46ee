//! `reach --engine kround --rounds K` (TSO reachability within K rounds
//! per thread, by reduction to SC: `bmc_rmm::engines::tso_reach::kround`), `reach
//! --engine lazy` (lazy TSO reachability: `bmc_rmm::engines::tso_reach::lazy`).

use super::args::CheckArgs;
use bmc_rmm::ask::{EngineChoice, Question};
use bmc_rmm::diag::Error;

/// Runs `reach --engine kround|lazy` on every input (files, directories,
/// `@list`s; `--shard`/`--jsonl`/`--resume` as every batch command), in
/// parallel (`-j`), each input with its own `--timeout`; prints the
/// answers in input order, then a summary on stderr when there are
/// several inputs. Exit status: 1 if a goal is reachable in some input,
/// else 3 if some answer is unknown, else 0.
///
/// Errors: a model other than tso; `--expect`/`--write-expect`/`--dot`
/// (bounded engine only); unreadable or malformed inputs; programs the
/// engine does not model (exit 2).
pub fn run_reach(a: &CheckArgs) -> Result<i32, Error> {
    if a.input.files.is_empty() {
        return Err(Error::Usage("no input FILE given".into()));
    }
    if a.expectations.expect.is_some() || a.expectations.write_expect.is_some() || a.dot.is_some() {
        return Err(Error::Usage(
            "--expect, --write-expect and --dot apply to the bounded engine, not --engine kround/lazy"
                .into(),
        ));
    }
    let engine = super::check::engine_choice(a);
    let builtin = super::check::builtin_model(a);
    bmc_rmm::ask::validate(engine, builtin, &[Question::Reach])?;
    let cat = bmc_rmm::cat::builtin("tso")?;
    crate::cli::batch::run_records(a, "reach", "tso", |f, p| answer(f, p, a, &cat, engine))
}

/// One input's `reach --engine kround|lazy` answer as a record (text,
/// JSON, verdict word, exit status).
///
/// Errors: the program uses what the engine does not model.
fn answer(
    f: &str,
    p: &bmc_rmm::program::Program,
    a: &CheckArgs,
    cat: &bmc_rmm::cat::Model,
    engine: EngineChoice,
) -> Result<crate::cli::shard::Record, Error> {
    let t0 = std::time::Instant::now();
    let mut req = super::check::request(a, p, cat, &[Question::Reach], false);
    req.engine = engine;
    let reply = bmc_rmm::ask::ask(&req)
        .map_err(|e| match e {
            Error::Unsupported(m) => Error::Unsupported(format!("{f}: {m}")),
            e => e,
        })?
        .remove(0);
    let mut ctx = super::render::Context::new(f, p, "tso");
    ctx.engine = engine;
    ctx.rounds = a.rounds;
    ctx.secs = t0.elapsed().as_secs_f64();
    Ok(super::render::show(&ctx, &reply))
}
