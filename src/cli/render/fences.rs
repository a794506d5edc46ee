//! The text and JSON of a fence placement: the explicit engine's
//! insertion against TSO (unbounded) and the bounded synthesis (the
//! fences, the cycle no fence breaks, the counters, the explicit
//! engine's answer beside it under tso).

use bmc_rmm::ask::FenceSynthesis;
use bmc_rmm::engines::derived::fence_synth::Outcome;
use bmc_rmm::engines::explicit::{FenceReport, FenceVerdict};
use bmc_rmm::program::Program;

/// The record of the explicit engine's insertion `r` on the input `f`:
/// exit status 3 when unknown (then no JSON record: the text line is
/// printed in either mode), else 0.
pub fn insertion(f: &str, p: &Program, r: &FenceReport) -> crate::cli::shard::Record {
    let locs = match &r.verdict {
        FenceVerdict::Robust => Vec::new(),
        FenceVerdict::Fences(l) => l.clone(),
        FenceVerdict::Unknown(why) => {
            let mut rec = crate::cli::shard::record(f, 3);
            rec.text = format!("{f}: fences [tso]: unknown: {why}\n");
            return rec;
        }
    };
    let mut rec = crate::cli::shard::record(f, 0);
    let names: Vec<String> = locs.iter().map(|l| l.describe(p)).collect();
    rec.json = vec![
        serde_json::json!({"file": f, "model": "tso", "fences": names, "count": locs.len(),
            "cost": r.cost, "optimal": r.optimal, "time": r.stats.time_us as f64 / 1e6, "stats": r.stats}),
    ];
    rec.text = if locs.is_empty() {
        format!("{f}: fences [tso]: robust, no fence needed\n")
    } else {
        format!(
            "{f}: fences [tso]: {} fence(s), cost {}{}: {}\n",
            locs.len(),
            r.cost,
            if r.optimal {
                " (optimal)"
            } else {
                " (best found within limits)"
            },
            names.join(" ")
        )
    };
    rec
}

/// The record of the bounded synthesis `s` on the input `f` at `bound`:
/// exit status 0 robust, 1 a cycle no fence breaks, 3 unknown; under sc
/// (nothing to place) no JSON record (the text line is printed in either
/// mode).
pub fn synthesis(
    f: &str,
    p: &Program,
    s: &FenceSynthesis,
    bound: u32,
    status: i32,
) -> crate::cli::shard::Record {
    let mut rec = crate::cli::shard::record(f, status);
    let (text, json) = synthesis_text(f, p, s, bound);
    rec.text = text;
    rec.json = json.into_iter().collect();
    rec
}

/// The explicit engine's answer for TSO (unbounded, thesis §6.5) with the
/// same costs, printed beside the bounded one: JSON `{verdict, cost,
/// optimal, text}`.
fn explicit_json(r: &Result<FenceReport, String>) -> serde_json::Value {
    match r {
        Err(e) => serde_json::json!({"verdict": "unsupported", "text": e}),
        Ok(r) => {
            let (v, text) = match &r.verdict {
                FenceVerdict::Robust => ("robust", "robust, no fence needed".to_string()),
                FenceVerdict::Fences(l) => (
                    "fences",
                    format!(
                        "{} fence(s), cost {}{}",
                        l.len(),
                        r.cost,
                        if r.optimal { " (optimal)" } else { "" }
                    ),
                ),
                FenceVerdict::Unknown(w) => ("unknown", format!("unknown: {w}")),
            };
            serde_json::json!({"verdict": v, "cost": r.cost, "optimal": r.optimal, "text": text})
        }
    }
}

/// The text and JSON record of the synthesis `s` on `p` (the input `f`):
/// the verdict line, the counters, the explicit engine's answer under tso
/// and a note on paths the bound cut; under sc one line and no JSON.
fn synthesis_text(
    f: &str,
    p: &Program,
    s: &FenceSynthesis,
    bound: u32,
) -> (String, Option<serde_json::Value>) {
    let Some((m, r)) = &s.synthesis else {
        let t = format!("{f}: fences [sc, bound {bound}]: robust, no fence needed\n");
        return (t, None);
    };
    let mname = m.model;
    let explicit = s.explicit.as_ref().map(explicit_json);
    let names: Vec<String> = r.fences.iter().map(|x| x.describe(p, m)).collect();
    let word = match &r.outcome {
        Outcome::Robust => "robust",
        Outcome::Unfixable => "unfixable",
        Outcome::Unknown(_) => "unknown",
    };
    let truncated = r
        .last
        .as_ref()
        .map(|l| l.truncated.clone())
        .unwrap_or_default();
    let reason = match &r.outcome {
        Outcome::Unknown(w) => Some(w.clone()),
        _ => None,
    };
    let j = serde_json::json!({"file": f, "model": mname, "engine": "sat", "bound": bound,
        "verdict": word, "fences": names, "count": r.fences.len(), "cost": r.cost,
        "optimal": r.optimal, "checks": r.checks, "cycles": r.cycles,
        "candidates": r.candidates, "truncated": truncated, "reason": reason,
        "time": r.time, "explicit": explicit});
    let head = format!("{f}: fences [{mname}, bound {bound}]");
    let mut t = match &r.outcome {
        Outcome::Robust if r.fences.is_empty() => {
            format!("{head}: robust up to bound {bound}, no fence needed\n")
        }
        Outcome::Robust => format!(
            "{head}: robust up to bound {bound} with {} fence(s), cost {}{}: {}\n",
            r.fences.len(),
            r.cost,
            if r.optimal {
                " (optimal for the bound)"
            } else {
                ""
            },
            names.join(" ")
        ),
        Outcome::Unfixable => {
            let cyc = r
                .last
                .as_ref()
                .and_then(|l| Some(l.witness.as_ref()?.render_cycle(l.cycle.as_ref()?)))
                .unwrap_or_default();
            format!(
                "{head}: NOT ROBUST, and no fence of {mname} breaks this cycle{}:\n  {cyc}\n",
                if names.is_empty() {
                    String::new()
                } else {
                    format!(" (with {})", names.join(" "))
                }
            )
        }
        Outcome::Unknown(why) => format!("{head}: unknown: {why}\n"),
    };
    t.push_str(&format!(
        "  {} robustness check(s), {} cycle(s), {} candidate placement(s), {:.3}s\n",
        r.checks, r.cycles, r.candidates, r.time
    ));
    if let Some(e) = &explicit {
        t.push_str(&format!(
            "  explicit engine (unbounded): {}\n",
            e["text"].as_str().unwrap_or("")
        ));
    }
    if !truncated.is_empty() {
        t.push_str(&format!(
            "  note: the bound cut some paths of thread(s) {}; the answer holds up to bound {bound} only\n",
            truncated.join(", ")
        ));
    }
    (t, Some(j))
}
