//! The text and JSON of state-robustness's report: the control states
//! reachable under the model but not under SC within the bound, each with
//! its witness, and those a limit left undecided.

use super::Context;
use bmc_rmm::engines::derived::state_robust::StateReport;
use std::fmt::Write;

/// The record of the report `r` in context `c` (its model name and
/// bound): exit status 1 when a state is reachable under the model
/// only, else 3 when a state is undecided, else 0.
pub fn record(c: &Context, r: &StateReport) -> crate::cli::shard::Record {
    let (f, p, model, bound) = (c.file, c.program, c.model, c.bound);
    let status = if !r.violations.is_empty() {
        1
    } else if !r.unknown.is_empty() {
        3
    } else {
        0
    };
    let mut rec = crate::cli::shard::record(f, status);
    let loc = |t, q| format!("{} {}", p.thread_name(t), p.state_name(t, q));
    let v: Vec<_> = r
        .violations
        .iter()
        .map(|v| {
            serde_json::json!({"thread": p.thread_name(v.thread),
                "state": p.state_name(v.thread, v.state), "witness": v.witness})
        })
        .collect();
    let u: Vec<_> = r
        .unknown
        .iter()
        .map(|(t, q, why)| {
            serde_json::json!({"thread": p.thread_name(*t),
                "state": p.state_name(*t, *q), "reason": why})
        })
        .collect();
    let verdict = ["state-robust", "not-state-robust", "", "unknown"][status as usize];
    rec.checks = vec![("robust".into(), verdict.into())];
    rec.summary = vec![verdict.into()];
    rec.json = vec![
        serde_json::json!({"file": f, "model": model, "check": "state-robust",
            "bound": bound, "verdict": verdict, "states": v, "unknown": u,
            "asked": r.asked, "sc_reachable": r.sc_reachable, "time": r.time}),
    ];
    let head = format!("{f}: robust --state [{model}]");
    let mut s = match status {
        0 => format!(
            "{head}: state-robust up to bound {bound}: every control state reachable under {model} is reachable under SC\n"
        ),
        1 => format!(
            "{head}: NOT STATE-ROBUST: {} control state(s) reachable under {model} but not under SC within bound {bound}\n",
            r.violations.len(),
        ),
        _ => format!("{head}: unknown\n"),
    };
    for v in &r.violations {
        let _ = writeln!(
            s,
            "  {}: reachable under {model} only; witness:",
            loc(v.thread, v.state)
        );
        for line in v.witness.render(p).lines() {
            let _ = writeln!(s, "  {line}");
        }
    }
    for (t, q, why) in &r.unknown {
        let _ = writeln!(s, "  {}: unknown: {why}", loc(*t, *q));
    }
    let _ = writeln!(
        s,
        "  {} control state(s) asked, {} reachable under SC, {:.3}s",
        r.asked, r.sc_reachable, r.time
    );
    rec.text = s;
    rec
}
