//! The text and JSON of the bounded engine's result: the verdict line
//! with the bound, the notes on paths the bound or the front-end cut, the
//! hb cycle and TSO attack of a robustness violation, the execution.

use super::{verdict_word, Context};
use bmc_rmm::engines::bounded::{CheckKind, CheckResult, Verdict};
use bmc_rmm::program::Program;

/// The record of the result `r` in context `c` (its bound, width, the
/// backend named on the command line).
pub fn record(c: &Context, r: &CheckResult) -> crate::cli::shard::Record {
    let word = verdict_word(r.check, r.verdict);
    let mut rec = crate::cli::shard::record(c.file, r.verdict.exit_code());
    rec.checks = vec![(r.check.name().into(), word.into())];
    rec.summary = vec![word.into()];
    rec.json = vec![json(c, r)];
    rec.text = text(c.program, c.file, c.model, c.bound, r);
    rec
}

/// The `--json` record of one check result.
pub fn json(c: &Context, r: &CheckResult) -> serde_json::Value {
    let (f, p, model_name) = (c.file, c.program, c.model);
    serde_json::json!({
        "file": f, "model": model_name, "solver": r.stats.solver.unwrap_or(c.solver), "bound": c.bound, "notes": p.notes, "width": c.width,
        "check": r.check, "verdict": r.verdict, "time": r.time,
        "goal": r.goal.map(|g| p.goals[g].name.clone().unwrap_or_else(|| format!("#{}", g + 1))),
        "cycle": r.cycle.as_ref().zip(r.witness.as_ref()).map(|(c, x)| x.render_cycle(c)),
        "attack": r.attack.and_then(|(w, l)| {
            let x = r.witness.as_ref()?;
            Some(serde_json::json!({"store": x.event(w)?.label, "load": x.event(l)?.label}))
        }),
        "truncated": r.truncated, "reason": r.reason, "witness": r.witness, "stats": r.stats,
    })
}

/// The text of the bounded result `r` on the program `p` (the input
/// `file`) under the model named `model` at `bound`: the verdict line,
/// notes on the bound and the front-end's cuts, the hb cycle, the TSO
/// attack, the execution.
pub fn text(p: &Program, file: &str, model: &str, bound: u32, r: &CheckResult) -> String {
    let mut s = String::new();
    let what = r.check.name();
    let verdict = match (r.check, r.verdict) {
        (CheckKind::Reach, Verdict::Violation) => {
            let g = r.goal.map(|g| &p.goals[g]);
            let name = g
                .map(|g| match (&g.name, g.kind) {
                    (Some(n), _) => format!("goal `{n}`"),
                    (None, bmc_rmm::program::GoalKind::Assertion) => {
                        "an assertion failure".to_string()
                    }
                    (None, _) => format!("goal #{}", r.goal.unwrap_or(0) + 1),
                })
                .unwrap_or_default();
            format!("REACHABLE: {name} is reachable within bound {bound}")
        }
        (CheckKind::Reach, Verdict::NoViolation) => match &r.reason {
            Some(why) => format!("unreachable ({why})"),
            None => format!("unreachable: no goal is reachable up to bound {bound}"),
        },
        (CheckKind::Robust, Verdict::Violation) => {
            format!(
                "NOT ROBUST: an execution with a cyclic happens-before exists within bound {bound}"
            )
        }
        (CheckKind::Robust, Verdict::NoViolation) => {
            format!("robust: no happens-before cycle up to bound {bound}")
        }
        (_, Verdict::Unknown) => format!(
            "unknown: {}",
            r.reason
                .as_deref()
                .unwrap_or_default()
                .trim_start_matches("unknown: ")
        ),
    };
    s.push_str(&format!("{file}: {what} [{model}]: {verdict}\n"));
    if !r.truncated.is_empty() && r.verdict != Verdict::Violation {
        s.push_str(&format!(
            "  note: the bound cut some paths of thread(s) {}; the answer holds up to bound {bound} only\n",
            r.truncated.join(", ")
        ));
    }
    if let (CheckKind::Robust, Verdict::NoViolation, Some(why)) = (r.check, r.verdict, &r.reason) {
        s.push_str(&format!("  note: {why}\n"));
    }
    if r.verdict != Verdict::Violation {
        for n in &p.notes {
            s.push_str(&format!("  note: {n}\n"));
        }
    }
    if let (Some(x), Some(c)) = (&r.witness, &r.cycle) {
        s.push_str(&format!("  cycle: {}\n", x.render_cycle(c)));
        if let Some((w, rd)) = r.attack {
            let (lw, lr) = (
                x.event(w).map(|e| e.label.clone()),
                x.event(rd).map(|e| e.label.clone()),
            );
            s.push_str(&format!(
                "  attack: the store {} is delayed (store buffer) past the load {} of the same thread\n",
                lw.unwrap_or_default(),
                lr.unwrap_or_default()
            ));
        }
    }
    if let Some(x) = &r.witness {
        s.push_str("  execution:\n");
        s.push_str(&x.render(p));
    }
    s
}
