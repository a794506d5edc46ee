//! The text and JSON of an SMC answer: the verdict with the numbers of
//! executions and traces, the notes on what cut a path, the cycle of a
//! robustness violation and the witness execution step by step.

use bmc_rmm::engines::smc::{SmcCheck, SmcOptions, SmcResult, SmcVerdict};
use bmc_rmm::program::Program;

/// The verdict word and exit status of an answer.
pub fn word(v: &SmcVerdict) -> (&'static str, i32) {
    match v {
        SmcVerdict::Reachable { .. } => ("reachable", 1),
        SmcVerdict::Unreachable => ("unreachable", 0),
        SmcVerdict::NotRobust { .. } => ("not robust", 1),
        SmcVerdict::Robust => ("robust", 0),
        SmcVerdict::Unknown(_) => ("unknown", 3),
    }
}

/// Which limits cut a path, as notes: the bound (instructions per
/// thread) and what the front-end cut (C: `--unwind`).
fn limit_notes(p: &Program, o: &SmcOptions, r: &SmcResult) -> Vec<String> {
    let mut v = Vec::new();
    if r.stats.bound_cut {
        v.push(format!(
            "--bound {} (instructions per thread) cut some paths; the answer holds up to that bound only",
            o.bound
        ));
    }
    v.extend(p.notes.iter().cloned());
    if r.stats.reduction == "states" {
        v.push(
            "a goal is not determined by the trace (it reads memory or several threads' running states): explored every configuration instead of one execution per trace"
                .into(),
        );
    }
    v
}

/// One input's answer as a batch record (text, JSON, word, status).
/// `skipped`: a note on read-only regions replaced before the check.
pub fn record(
    f: &str,
    p: &Program,
    o: &SmcOptions,
    r: &SmcResult,
    skipped: Option<String>,
) -> crate::cli::shard::Record {
    let (w, status) = word(&r.verdict);
    let check = match o.check {
        SmcCheck::Reach => "reach",
        SmcCheck::Robust => "robust",
    };
    let m = o.model.name();
    let secs = r.stats.time_us as f64 / 1e6;
    let gname = |g: usize| {
        p.goals
            .get(g)
            .and_then(|x| x.name.clone())
            .unwrap_or_else(|| format!("#{}", g + 1))
    };
    let numbers = format!(
        "{} executions, {} Shasha–Snir traces, {} sleep-set blocked, {secs:.3} s",
        r.stats.executions, r.stats.traces, r.stats.sleep_blocked
    );
    let mut notes = limit_notes(p, o, r);
    notes.extend(skipped);
    let mut text = String::new();
    let steps: Option<&Vec<bmc_rmm::engines::smc::semantics::Step>> = match &r.verdict {
        SmcVerdict::Reachable { goal, steps } => {
            text.push_str(&format!(
                "{f}: reach [{m}, smc]: REACHABLE: goal `{}` is reachable ({numbers})\n",
                gname(*goal)
            ));
            Some(steps)
        }
        SmcVerdict::Unreachable => {
            text.push_str(&format!(
                "{f}: reach [{m}, smc]: unreachable: no goal is reachable within bound {} ({numbers})\n",
                o.bound
            ));
            None
        }
        SmcVerdict::NotRobust {
            steps,
            cycle,
            edges,
        } => {
            text.push_str(&format!(
                "{f}: robust [{m}, smc]: NOT ROBUST: an execution whose trace has a cyclic happens-before (po ∪ rf ∪ co ∪ fr) ({numbers})\n"
            ));
            let mut line = String::new();
            for (e, l) in cycle.iter().zip(edges) {
                line.push_str(&format!("{e}  -{l}->  "));
            }
            line.push_str(cycle.first().map_or("", String::as_str));
            text.push_str(&format!("  cycle: {line}\n"));
            Some(steps)
        }
        SmcVerdict::Robust => {
            text.push_str(&format!(
                "{f}: robust [{m}, smc]: robust: every trace is an SC trace within bound {} ({numbers})\n",
                o.bound
            ));
            None
        }
        SmcVerdict::Unknown(why) => {
            text.push_str(&format!(
                "{f}: {check} [{m}, smc]: unknown: {why} ({numbers})\n"
            ));
            None
        }
    };
    if status != 1 {
        for n in &notes {
            text.push_str(&format!("  note: {n}\n"));
        }
    }
    let texts: Option<Vec<String>> = steps.map(|s| s.iter().map(|x| x.describe(p)).collect());
    if let Some(t) = &texts {
        text.push_str(&format!(
            "  execution ({} steps; `flush` = a buffered store reaches memory):\n",
            t.len()
        ));
        for (i, s) in t.iter().enumerate() {
            text.push_str(&format!("    #{:<4} {s}\n", i + 1));
        }
    }
    let mut rec = crate::cli::shard::record(f, status);
    rec.checks = vec![(check.into(), w.into())];
    rec.summary = vec![w.into()];
    let (goal, cycle, edges, reason) = match &r.verdict {
        SmcVerdict::Reachable { goal, .. } => (Some(gname(*goal)), None, None, None),
        SmcVerdict::NotRobust { cycle, edges, .. } => {
            (None, Some(cycle.clone()), Some(edges.clone()), None)
        }
        SmcVerdict::Unknown(why) => (None, None, None, Some(why.clone())),
        _ => (None, None, None, None),
    };
    rec.json = vec![serde_json::json!({
        "file": f, "check": check, "model": m, "engine": "smc", "bound": o.bound,
        "verdict": w, "goal": goal, "cycle": cycle, "edges": edges, "reason": reason, "witness": texts,
        "notes": notes, "stats": r.stats, "time": secs,
    })];
    rec.text = text;
    rec
}
