//! `robust --engine explicit`: TSO robustness by the explicit-state
//! engine (unbounded).

use super::args::CheckArgs;
use bmc_rmm::ask::{EngineChoice, Question};
use bmc_rmm::diag::Error;
use bmc_rmm::engines::bounded::Verdict;

/// `bmc-rmm robust --engine explicit`: unbounded TSO robustness by attacks.
pub fn run_robust(a: &CheckArgs) -> Result<i32, Error> {
    a.validate()?;
    if a.dot.is_some() {
        return Err(Error::Usage(
            "--dot draws witnesses of the bounded engine; the explicit engine's witness \
             (a TSO computation) is printed in the text output"
                .into(),
        ));
    }
    let builtin = super::check::builtin_model(a);
    bmc_rmm::ask::validate(EngineChoice::Explicit, builtin, &[Question::Robust])?;
    let cat = bmc_rmm::cat::builtin("tso")?;
    let aliases = super::expect::model_aliases("tso", None);
    let describe = crate::cli::shard::Describe {
        command: "robust",
        what: "results",
        words: &[],
        model: "tso",
        aliases: &aliases,
        meta: serde_json::Value::Null,
    };
    let (shard, progs) = crate::cli::inputs::load_sharded(
        &a.input.files,
        a.input.format,
        a.input.width,
        &a.input.c.options(),
        &a.batch.shard,
        describe,
    )?;
    let mut worst = Verdict::NoViolation;
    for (f, p) in &progs {
        let mut req = super::check::request(a, p, &cat, &[Question::Robust], false);
        req.engine = EngineChoice::Explicit;
        let reply = bmc_rmm::ask::ask(&req)?.remove(0);
        let v = reply.answer.verdict;
        let rec = super::render::show(&super::render::Context::new(f, p, "tso"), &reply);
        if a.input.json {
            println!("{}", rec.json[0]);
        } else {
            print!("{}", rec.text);
        }
        shard.record(rec)?;
        worst = merge(worst, v);
    }
    Ok(worst.exit_code())
}

fn merge(a: Verdict, b: Verdict) -> Verdict {
    match (a, b) {
        (Verdict::Violation, _) | (_, Verdict::Violation) => Verdict::Violation,
        (Verdict::Unknown, _) | (_, Verdict::Unknown) => Verdict::Unknown,
        _ => Verdict::NoViolation,
    }
}
