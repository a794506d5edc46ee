//! `robust --engine explicit` and `robust --engine normal-form`:
//! unbounded robustness against TSO (attacks, or normal-form
//! computations), PSO, RMO, Power and PGAS (normal-form computations).

use super::args::CheckArgs;
use bmc_rmm::ask::Question;
use bmc_rmm::diag::Error;
use bmc_rmm::engines::bounded::Verdict;

/// `bmc-rmm robust --engine explicit|normal-form`: unbounded robustness
/// against TSO, PSO, RMO, Power or PGAS.
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
    let engine = super::check::engine_choice(a);
    bmc_rmm::ask::validate(engine, builtin, &[Question::Robust])?;
    let model = builtin.unwrap_or("tso");
    let cat = bmc_rmm::cat::builtin(model)?;
    let aliases = super::expect::model_aliases(model, None);
    let describe = crate::cli::shard::Describe {
        command: "robust",
        what: "results",
        words: &[],
        model,
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
        // A PGAS program runs lowered for its ranks (`--nodes`, else the
        // file's `nodes N;`); under a CPU model the engines refuse it.
        let lowered = bmc_rmm::program::pgas::prepare(
            p.clone(),
            a.pgas.nodes,
            bmc_rmm::program::Width(a.input.width),
        )?;
        let p = &lowered;
        let mut req = super::check::request(a, p, &cat, &[Question::Robust], false);
        req.engine = engine;
        let reply = bmc_rmm::ask::ask(&req)?.remove(0);
        let v = reply.answer.verdict;
        let rec = super::render::show(&super::render::Context::new(f, p, model), &reply);
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
