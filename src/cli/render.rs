//! The words and text of verdicts, written once: the verdict words of
//! expectations files and summaries, and the text rendering of a check
//! result (verdict line, bound note, hb cycle, TSO attack, execution).

use bmc_rmm::engines::bounded::{CheckKind, CheckResult, Verdict};
use bmc_rmm::litmus::run::LitmusResult;
use bmc_rmm::program::Program;

/// The verdict word of a check result (`reachable`, `unreachable`,
/// `not-robust`, `robust`, `unknown`), as in expectations files.
pub fn verdict_word(k: CheckKind, v: Verdict) -> &'static str {
    use CheckKind as K;
    use Verdict as V;
    match (k, v) {
        (_, V::Unknown) => "unknown",
        (K::Reach, V::Violation) => "reachable",
        (K::Reach, V::NoViolation) => "unreachable",
        (K::Robust, V::Violation) => "not-robust",
        (K::Robust, V::NoViolation) => "robust",
    }
}

/// The word of an explicit-engine robustness verdict, as printed in its
/// text output (`robust`, `not robust`, `unknown`).
pub fn robustness_phrase(v: Verdict) -> &'static str {
    match v {
        Verdict::Violation => "not robust",
        Verdict::NoViolation => "robust",
        Verdict::Unknown => "unknown",
    }
}

/// Text rendering of a result.
pub fn render(p: &Program, file: &str, model: &str, bound: u32, r: &CheckResult) -> String {
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

/// The verdict word of a litmus result: herd's `Allowed`/`Forbidden`, or
/// `Unknown`.
pub fn litmus_verdict_word(r: &LitmusResult) -> &'static str {
    match r.observation {
        Some(o) => o.verdict().as_str(),
        None => "Unknown",
    }
}
