//! `robust --engine explicit`: TSO robustness by the explicit-state
//! engine (unbounded).

use super::args::CheckArgs;
use bmc_rmm::ask::{Detail, EngineChoice, Question};
use bmc_rmm::diag::Error;
use bmc_rmm::engines::bounded::{CheckKind, Verdict};
use bmc_rmm::engines::explicit::{self, Robustness};

/// Exit status of one verdict (1 violation, 3 unknown, 0).
fn status(v: Verdict) -> i32 {
    match v {
        Verdict::Violation => 1,
        Verdict::Unknown => 3,
        Verdict::NoViolation => 0,
    }
}

/// The explicit verdict as a text.
fn explicit_text(r: &explicit::RobustnessReport) -> String {
    match &r.verdict {
        Robustness::Robust => "robust (unbounded)".to_string(),
        Robustness::NotRobust(w) => format!("NOT ROBUST: attack {}\n{w}", w.attack_text),
        Robustness::Unknown(why) => format!("unknown: {why}"),
    }
}

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
        let (v, Detail::Explicit(r)) = (reply.answer.verdict, reply.detail) else {
            unreachable!("the explicit engine replies with its report")
        };
        let text = explicit_text(&r);
        let w = match &r.verdict {
            Robustness::NotRobust(w) => Some(w.to_string()),
            _ => None,
        };
        let mut rec = crate::cli::shard::record(f, status(v));
        let word = super::render::verdict_word(CheckKind::Robust, v);
        rec.checks = vec![("robust".into(), word.into())];
        rec.summary = vec![word.into()];
        rec.json = vec![
            serde_json::json!({"file": f, "model": "tso", "engine": "explicit", "check": "robust",
                "verdict": v, "witness": w, "time": r.stats.time_us as f64 / 1e6, "stats": r.stats}),
        ];
        rec.text = format!(
            "{f}: robust [tso, explicit engine]: {text}\n  attacks: {} ({} answered without search), states visited: {}, {:.3}s\n",
            r.stats.attacks_total,
            r.stats.answered_without_search,
            r.stats.states_visited,
            r.stats.time_us as f64 / 1e6
        );
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
