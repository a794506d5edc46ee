//! The text and JSON of the parameterized engine's report: robust for
//! every number of copies, or the smallest non-robust instance with its
//! TSO witness and the finite explicit engine's answer on it.

use bmc_rmm::engines::explicit::Robustness;
use bmc_rmm::engines::parameterized::{AttackOutcome, Report, Verdict};
use bmc_rmm::program::Program;

/// The verdict word and exit status of a report (a witness that does
/// not replay is an internal error: unknown).
pub fn word(r: &Report) -> (&'static str, i32) {
    match &r.verdict {
        Verdict::Robust => ("robust", 0),
        Verdict::NotRobust(v) if v.witness.is_ok() => ("not robust", 1),
        Verdict::NotRobust(_) | Verdict::Unknown(_) => ("unknown", 3),
    }
}

/// `a = n` words of an instance (`t0=3, t1=0`).
fn instance_text(p: &Program, r: &Report, copies: &[u32]) -> String {
    r.templates
        .iter()
        .zip(copies)
        .map(|(t, n)| format!("{}={n}", p.thread_name(*t)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn instance_json(p: &Program, r: &Report, copies: &[u32]) -> serde_json::Value {
    let m: serde_json::Map<String, serde_json::Value> = r
        .templates
        .iter()
        .zip(copies)
        .map(|(t, n)| (p.thread_name(*t).to_string(), serde_json::json!(n)))
        .collect();
    serde_json::Value::Object(m)
}

fn names(p: &Program, r: &Report) -> String {
    if r.templates.is_empty() {
        return "no templates".into();
    }
    r.templates
        .iter()
        .map(|t| format!("{}*", p.thread_name(*t)))
        .collect::<Vec<_>>()
        .join(" ")
}

fn finite_text(f: &Robustness) -> String {
    match f {
        Robustness::NotRobust(_) => "not robust (agrees)".into(),
        Robustness::Robust => "robust (DISAGREES: internal error)".into(),
        Robustness::Unknown(why) => format!("unknown: {why}"),
    }
}

/// The text of a report on the input `f`.
pub fn text(f: &str, p: &Program, r: &Report) -> String {
    use std::fmt::Write;
    let mut s = format!(
        "{f}: robust [tso, explicit engine, parameterized: {}]: ",
        names(p, r)
    );
    match &r.verdict {
        Verdict::Robust => s.push_str("robust for every number of copies (unbounded)\n"),
        Verdict::Unknown(why) => {
            let _ = writeln!(s, "unknown: {why}");
        }
        Verdict::NotRobust(v) => {
            let _ = writeln!(
                s,
                "NOT ROBUST with {}{}",
                instance_text(p, r, &v.instance),
                if v.minimal_exact && v.minimal.len() == 1 {
                    " (robust with fewer copies)"
                } else {
                    ""
                }
            );
            let mins: Vec<String> = v
                .minimal
                .iter()
                .map(|m| format!("{{{}}}", instance_text(p, r, m)))
                .collect();
            let _ = writeln!(
                s,
                "  minimal non-robust instances{}: {}",
                if v.minimal_exact {
                    ""
                } else {
                    " (some attacks undecided)"
                },
                mins.join(" ")
            );
            let _ = writeln!(s, "  attack {}", v.attack_text);
            match &v.witness {
                Ok(w) => {
                    let _ = writeln!(
                        s,
                        "  witness on the instance ({}), replayed on the finite explicit engine:",
                        instance_text(p, r, &v.instance)
                    );
                    for line in w.to_string().lines() {
                        let _ = writeln!(s, "  {line}");
                    }
                }
                Err(e) => {
                    let _ = writeln!(s, "  internal error: the witness does not replay: {e}");
                }
            }
            let _ = writeln!(
                s,
                "  finite explicit engine on the instance: {}",
                finite_text(&v.finite)
            );
        }
    }
    let n_unknown = r
        .attacks
        .iter()
        .filter(|(_, o)| matches!(o, AttackOutcome::Unknown(_)))
        .count();
    let _ = writeln!(
        s,
        "  attacks: {} ({} answered without search{}), nets up to {} places / {} transitions, {} basis elements, {:.3}s",
        r.stats.attacks_total,
        r.stats.answered_without_search,
        if n_unknown > 0 {
            format!(", {n_unknown} undecided")
        } else {
            String::new()
        },
        r.stats.max_places,
        r.stats.max_transitions,
        r.stats.basis_elements,
        r.stats.time_us as f64 / 1e6
    );
    s
}

/// The JSON record of a report on the input `f`.
pub fn json(f: &str, p: &Program, r: &Report) -> serde_json::Value {
    let templates: Vec<&str> = r.templates.iter().map(|t| p.thread_name(*t)).collect();
    let mut v = serde_json::json!({"file": f, "model": "tso", "engine": "explicit",
        "check": "robust", "parameterized": true, "templates": templates,
        "time": r.stats.time_us as f64 / 1e6, "stats": r.stats});
    match &r.verdict {
        Verdict::Robust => v["verdict"] = "robust".into(),
        Verdict::Unknown(why) => {
            v["verdict"] = "unknown".into();
            v["reason"] = why.clone().into();
        }
        Verdict::NotRobust(x) => {
            v["verdict"] = "not-robust".into();
            v["instance"] = instance_json(p, r, &x.instance);
            v["minimal"] = x
                .minimal
                .iter()
                .map(|m| instance_json(p, r, m))
                .collect::<Vec<_>>()
                .into();
            v["minimal_exact"] = x.minimal_exact.into();
            v["attack"] = x.attack_text.clone().into();
            match &x.witness {
                Ok(w) => v["witness"] = serde_json::to_value(w).unwrap_or_default(),
                Err(e) => v["replay_error"] = e.clone().into(),
            }
            v["finite_verdict"] = match &x.finite {
                Robustness::Robust => "robust",
                Robustness::NotRobust(_) => "not-robust",
                Robustness::Unknown(_) => "unknown",
            }
            .into();
        }
    }
    v
}
