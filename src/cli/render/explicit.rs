//! The text and JSON of the explicit engine's robustness report: the
//! verdict (unbounded), the attack and TSO witness of a violation, the
//! attack and state counts.

use bmc_rmm::answer::Verdict;
use bmc_rmm::engines::explicit::{Robustness, RobustnessReport};

/// The record of the report `r` (verdict `v`) on the input `f`.
pub fn record(f: &str, v: Verdict, r: &RobustnessReport) -> crate::cli::shard::Record {
    let text = match &r.verdict {
        Robustness::Robust => "robust (unbounded)".to_string(),
        Robustness::NotRobust(w) => format!("NOT ROBUST: attack {}\n{w}", w.attack_text),
        Robustness::Unknown(why) => format!("unknown: {why}"),
    };
    let w = match &r.verdict {
        Robustness::NotRobust(w) => Some(w.to_string()),
        _ => None,
    };
    let json = serde_json::json!({"file": f, "model": "tso", "engine": "explicit", "check": "robust",
            "verdict": v, "witness": w, "time": r.stats.time_us as f64 / 1e6, "stats": r.stats});
    let text = format!(
        "{f}: robust [tso, explicit engine]: {text}\n  attacks: {} ({} answered without search), states visited: {}, {:.3}s\n",
        r.stats.attacks_total,
        r.stats.answered_without_search,
        r.stats.states_visited,
        r.stats.time_us as f64 / 1e6
    );
    super::robust_record(f, v, json, text)
}
