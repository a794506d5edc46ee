//! `robust --engine explicit`: TSO robustness by the explicit-state
//! engine (unbounded), and the engine's options for `--width` and
//! `--timeout` that `fences` and `crosscheck` share.

use super::args::CheckArgs;
use bmc_rmm::diag::Error;
use bmc_rmm::engines::bounded::{CheckKind, Verdict};
use bmc_rmm::engines::explicit::{self, Limits, Options, Robustness};
use bmc_rmm::program::{Program, Width};
use std::time::Duration;

/// The explicit engine's options for `--width` and `--timeout`.
pub fn options(width: u32, timeout: Option<f64>) -> Options {
    let mut o = Options {
        width: Width(width),
        ..Options::default()
    };
    o.limits = Limits {
        timeout: timeout.map(Duration::from_secs_f64),
        ..Limits::default()
    };
    o
}

pub fn require_tso(model: &str, model_file: Option<&str>) -> Result<(), Error> {
    if model_file.is_some() || bmc_rmm::cat::builtin_name(model) != Some("tso") {
        return Err(Error::Usage(
            "the explicit engine decides robustness against TSO only (--model tso)".into(),
        ));
    }
    Ok(())
}

/// Exit status of one verdict (1 violation, 3 unknown, 0).
fn status(v: Verdict) -> i32 {
    match v {
        Verdict::Violation => 1,
        Verdict::Unknown => 3,
        Verdict::NoViolation => 0,
    }
}

/// The explicit verdict as a [`Verdict`] and a text.
pub fn explicit_robust(
    p: &Program,
    o: &Options,
) -> Result<(Verdict, String, explicit::RobustnessReport), Error> {
    let r = explicit::check_robustness(p, o).map_err(|e| Error::Usage(e.to_string()))?;
    let (v, text) = match &r.verdict {
        Robustness::Robust => (Verdict::NoViolation, "robust (unbounded)".to_string()),
        Robustness::NotRobust(w) => (
            Verdict::Violation,
            format!("NOT ROBUST: attack {}\n{w}", w.attack_text),
        ),
        Robustness::Unknown(why) => (Verdict::Unknown, format!("unknown: {why}")),
    };
    Ok((v, text, r))
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
    require_tso(&a.model.model, a.model.model_file.as_deref())?;
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
        let (v, text, r) = explicit_robust(p, &options(a.input.width, a.timeout))?;
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
