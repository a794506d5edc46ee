//! The text and JSON of the normal-form engine's robustness report: the
//! verdict (unbounded), the witness of a violation (cycle, profile,
//! computation part by part, execution), the profile and state counts.

use bmc_rmm::answer::Verdict;
use bmc_rmm::engines::normal_form::{Report, Verdict as NfVerdict};

/// The record of the report `r` (verdict `v`) on the input `f`.
pub fn record(f: &str, v: Verdict, r: &Report) -> crate::cli::shard::Record {
    let model = r.model.name();
    let text = match &r.verdict {
        NfVerdict::Robust => "robust (unbounded)".to_string(),
        NfVerdict::NotRobust(w) => format!(
            "NOT ROBUST: a computation with a cyclic happens-before ({} steps per thread)\n{w}",
            w.steps_per_thread()
        ),
        NfVerdict::Unknown(why) => format!("unknown: {why}"),
    };
    let w = match &r.verdict {
        NfVerdict::NotRobust(w) => Some(w.to_string()),
        _ => None,
    };
    let json = serde_json::json!({"file": f, "model": model, "engine": "normal-form",
        "check": "robust", "verdict": v, "witness": w,
        "time": r.stats.time_us as f64 / 1e6, "stats": r.stats});
    let text = format!(
        "{f}: robust [{model}, normal-form engine]: {text}\n  profiles: {}, states visited: {}, guess candidates: {}, {:.3}s\n",
        r.stats.profiles,
        r.stats.states,
        r.stats.candidates,
        r.stats.time_us as f64 / 1e6
    );
    super::robust_record(f, v, json, text)
}
