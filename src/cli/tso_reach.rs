//! `reach --engine kround --rounds K` (TSO reachability within K rounds
//! per thread, by reduction to SC: `bmc_rmm::engines::tso_reach::kround`), `reach
//! --engine lazy` (lazy TSO reachability: `bmc_rmm::engines::tso_reach::lazy`).

use super::args::CheckArgs;
use bmc_rmm::ask::{Detail, EngineChoice, Question, Reply};
use bmc_rmm::diag::Error;
use bmc_rmm::engines::tso_reach::kround::Answer;

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
    let (lazy, k) = match engine {
        EngineChoice::Kround(k) => (false, k),
        _ => (true, 0),
    };
    let (tag, scope) = if lazy {
        ("lazy".to_string(), String::new())
    } else {
        (
            format!("kround {k}"),
            format!(" within {k} rounds per thread"),
        )
    };
    let mut req = super::check::request(a, p, cat, &[Question::Reach], false);
    req.engine = engine;
    let reply = bmc_rmm::ask::ask(&req).map_err(|e| match e {
        Error::Unsupported(m) => Error::Unsupported(format!("{f}: {m}")),
        e => e,
    })?;
    let Some(Reply {
        detail: Detail::TsoReach(r),
        ..
    }) = reply.into_iter().next()
    else {
        unreachable!("the lazy and k-round engines reply with their result")
    };
    let secs = t0.elapsed().as_secs_f64();
    let (word, status, goal) = match &r.answer {
        Answer::Reachable { goal, .. } => ("reachable", 1, Some(*goal)),
        Answer::Unreachable => ("unreachable", 0, None),
        Answer::Unknown(_) => ("unknown", 3, None),
    };
    let gname = |g: usize| {
        p.goals[g]
            .name
            .clone()
            .unwrap_or_else(|| format!("#{}", g + 1))
    };
    let mut rec = crate::cli::shard::record(f, status);
    rec.checks = vec![("reach".into(), word.into())];
    rec.summary = vec![word.into()];
    let witness: Option<Vec<String>> = match &r.answer {
        Answer::Reachable { witness, .. } => Some(witness.iter().map(|s| s.describe(p)).collect()),
        _ => None,
    };
    let reason = match &r.answer {
        Answer::Unknown(why) => Some(why.clone()),
        _ => None,
    };
    rec.json = vec![serde_json::json!({
        "file": f, "model": "tso", "engine": if lazy { "lazy" } else { "kround" },
        "rounds": if lazy { a.rounds } else { Some(k) }, "check": "reach",
        "verdict": word, "goal": goal.map(gname), "reason": reason,
        "witness": witness, "states": r.states, "time": secs,
    })];
    rec.text = match &r.answer {
        Answer::Reachable { goal, witness } => {
            let mut t = format!(
                "{f}: reach [tso, {tag}]: REACHABLE: goal `{}` is reachable{scope} ({secs:.3} s)\n",
                gname(*goal)
            );
            t.push_str(&format!(
                "TSO witness ({} steps, replayed on the TSO semantics):\n",
                witness.len()
            ));
            for (i, s) in witness.iter().enumerate() {
                t.push_str(&format!("  #{:<3} {}\n", i + 1, s.describe(p)));
            }
            t
        }
        Answer::Unreachable => format!(
            "{f}: reach [tso, {tag}]: unreachable: no goal is reachable{scope} ({} states, {secs:.3} s)\n",
            r.states
        ),
        Answer::Unknown(why) => format!("{f}: reach [tso, {tag}]: unknown: {why}\n"),
    };
    Ok(rec)
}
