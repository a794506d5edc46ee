//! The text and JSON of the lazy and k-round engines' answer: the
//! verdict (within the rounds for k-round), the TSO witness replayed step
//! by step, the states explored.

use bmc_rmm::ask::EngineChoice;
use bmc_rmm::engines::tso_reach::kround::{Answer, KroundResult};
use bmc_rmm::program::Program;

/// The record of `r` on the input `f` (program `p`), answered by
/// `engine` (lazy or k-round) in `secs` seconds; `rounds` is `--rounds`
/// as given (the lazy engine's JSON reports it).
pub fn record(
    f: &str,
    p: &Program,
    r: &KroundResult,
    engine: EngineChoice,
    rounds: Option<u32>,
    secs: f64,
) -> crate::cli::shard::Record {
    let (lazy, k) = match engine {
        EngineChoice::Kround(k) => (false, k),
        _ => (true, 0),
    };
    let (tag, scope) = if lazy {
        ("lazy".to_string(), String::new())
    } else {
        (
            format!("kround {k}"),
            format!(" within {k} rounds per thread"),
        )
    };
    let (word, status, goal) = match &r.answer {
        Answer::Reachable { goal, .. } => ("reachable", 1, Some(*goal)),
        Answer::Unreachable => ("unreachable", 0, None),
        Answer::Unknown(_) => ("unknown", 3, None),
    };
    let gname = |g: usize| {
        p.goals[g]
            .name
            .clone()
            .unwrap_or_else(|| format!("#{}", g + 1))
    };
    let mut rec = crate::cli::shard::record(f, status);
    rec.checks = vec![("reach".into(), word.into())];
    rec.summary = vec![word.into()];
    let witness: Option<Vec<String>> = match &r.answer {
        Answer::Reachable { witness, .. } => Some(witness.iter().map(|s| s.describe(p)).collect()),
        _ => None,
    };
    let reason = match &r.answer {
        Answer::Unknown(why) => Some(why.clone()),
        _ => None,
    };
    rec.json = vec![serde_json::json!({
        "file": f, "model": "tso", "engine": if lazy { "lazy" } else { "kround" },
        "rounds": if lazy { rounds } else { Some(k) }, "check": "reach",
        "verdict": word, "goal": goal.map(gname), "reason": reason,
        "witness": witness, "states": r.states, "time": secs,
    })];
    rec.text = match &r.answer {
        Answer::Reachable { goal, witness } => {
            let mut t = format!(
                "{f}: reach [tso, {tag}]: REACHABLE: goal `{}` is reachable{scope} ({secs:.3} s)\n",
                gname(*goal)
            );
            t.push_str(&format!(
                "TSO witness ({} steps, replayed on the TSO semantics):\n",
                witness.len()
            ));
            for (i, s) in witness.iter().enumerate() {
                t.push_str(&format!("  #{:<3} {}\n", i + 1, s.describe(p)));
            }
            t
        }
        Answer::Unreachable => format!(
            "{f}: reach [tso, {tag}]: unreachable: no goal is reachable{scope} ({} states, {secs:.3} s)\n",
            r.states
        ),
        Answer::Unknown(why) => format!("{f}: reach [tso, {tag}]: unknown: {why}\n"),
    };
    rec
}
