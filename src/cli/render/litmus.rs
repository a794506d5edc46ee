//! The record of a litmus test's outcomes: herd's verdict word, the JSON
//! record, herd's result block (text output) and herd-log block
//! (`--herd-log`, with the test's `Hash=`), each only when asked for.

use bmc_rmm::diag::SourceFile;
use bmc_rmm::engines::bounded::SolverKind;
use bmc_rmm::frontend::litmus::LitmusTest;
use bmc_rmm::litmus::{herd, run::LitmusResult};

/// Which parts of a test's record the run prints or writes
/// ([`record`]).
#[derive(Clone, Copy)]
pub struct Parts {
    /// The JSON record (`--json`, record files).
    pub json: bool,
    /// The herd block of the text output.
    pub text: bool,
    /// The herd-log block (`--herd-log`, record files).
    pub herd_log: bool,
}

/// The record of the outcomes `res` of the test `t` (the file `f`) under
/// the model `model_name` on `solver`, with the `parts` asked for.
pub fn record(
    f: &str,
    t: &LitmusTest,
    res: &LitmusResult,
    model_name: &str,
    solver: SolverKind,
    parts: Parts,
) -> crate::cli::shard::Record {
    let mut rec = crate::cli::shard::record(f, 0);
    let word = super::litmus_verdict_word(res);
    rec.checks = vec![("litmus".into(), word.into())];
    rec.summary = vec![word.to_ascii_lowercase()];
    rec.meta = serde_json::json!({ "arch": t.arch.keyword() });
    if parts.json {
        rec.json = vec![serde_json::json!({
            "file": f, "test": t.name, "model": model_name, "solver": solver,
            "verdict": res.observation.map(|o| o.verdict().as_str()),
            "observation": res.observation.map(|o| o.as_str()),
            "states": res.states.iter().map(|s| t.state_line(s)).collect::<Vec<_>>(),
            "condition": t.condition_text(), "time": res.time, "width": res.width,
            "unknown": res.unknown, "stats": res.stats,
        })];
    }
    if let Some(why) = &res.unknown {
        rec.status = 3;
        rec.text = format!(
            "Test {} unknown: {}\n\n",
            t.name,
            why.trim_start_matches("unknown: ")
        );
    } else if parts.text {
        rec.text = format!("{}\n", herd::render(t, &res.states, None, res.time));
    }
    if res.unknown.is_none() && parts.herd_log {
        let hash = SourceFile::read(f)
            .and_then(|src| bmc_rmm::frontend::litmus::herd_hash(&src))
            .unwrap_or_default();
        rec.herd = Some(herd::render_log(t, &res.states, res.time, &hash));
    }
    rec
}
