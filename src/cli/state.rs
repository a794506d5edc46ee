//! `bmc-rmm robust --state`: state-robustness (thesis §2.6) on the bounded
//! engine ([`bmc_rmm::engines::derived::state_robust`]): the control states reachable under
//! the model but not under SC within the bound, each with its witness;
//! text and JSON.

use super::args::{CheckArgs, Engine};
use bmc_rmm::diag::Error;
use bmc_rmm::engines::bounded::Limits;
use bmc_rmm::engines::derived::state_robust::state_robustness;
use bmc_rmm::program::Width;

/// Runs `robust --state` on every input. Exit: 0 every input state-robust
/// up to the bound, 1 some state reachable under the model only, 3 a
/// limit left a state undecided (and no violation).
pub fn run(a: &CheckArgs) -> Result<i32, Error> {
    a.validate()?;
    if a.engine != Engine::Bounded {
        return Err(Error::Usage(
            "--state is decided by the bounded engine (--engine sat)".into(),
        ));
    }
    if a.dot.is_some() {
        return Err(Error::Usage(
            "--dot is not supported with --state (witnesses are printed)".into(),
        ));
    }
    let model = a.model.load_for(a.solver.kind())?;
    let files = crate::cli::inputs::expand(&a.input.files, &["rmm", "txt"])?;
    let mut progs = Vec::new();
    for f in &files {
        let w = Width(a.input.width);
        let p = super::check::load_for_check(
            f,
            a.input.format,
            w,
            &a.input.c.options(),
            a.pgas.nodes,
            &model.model,
            &model.name,
        )?;
        progs.push((f, p));
    }
    let mut code = 0;
    for (f, p) in &progs {
        let bound = super::check::effective_bound(a.bound, p);
        let lim = Limits {
            bound,
            width: a.input.width,
            deadline: crate::cli::batch::deadline(a.timeout),
            switches: a.input.switches,
        };
        let r = state_robustness(a.solver.kind(), p, &model.model, lim)?;
        let status = if !r.violations.is_empty() {
            1
        } else if !r.unknown.is_empty() {
            3
        } else {
            0
        };
        code = match (code, status) {
            (1, _) | (_, 1) => 1,
            (3, _) | (_, 3) => 3,
            _ => 0,
        };
        let loc = |t, q| format!("{} {}", p.thread_name(t), p.state_name(t, q));
        if a.input.json {
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
            println!(
                "{}",
                serde_json::json!({"file": f, "model": model.name, "check": "state-robust",
                    "bound": bound, "verdict": verdict, "states": v, "unknown": u,
                    "asked": r.asked, "sc_reachable": r.sc_reachable, "time": r.time})
            );
            continue;
        }
        let head = format!("{f}: robust --state [{}]", model.name);
        match status {
            0 => println!(
                "{head}: state-robust up to bound {}: every control state reachable under {} is reachable under SC",
                bound, model.name
            ),
            1 => println!(
                "{head}: NOT STATE-ROBUST: {} control state(s) reachable under {} but not under SC within bound {}",
                r.violations.len(),
                model.name,
                bound
            ),
            _ => println!("{head}: unknown"),
        }
        for v in &r.violations {
            println!(
                "  {}: reachable under {} only; witness:",
                loc(v.thread, v.state),
                model.name
            );
            for line in v.witness.render(p).lines() {
                println!("  {line}");
            }
        }
        for (t, q, why) in &r.unknown {
            println!("  {}: unknown: {why}", loc(*t, *q));
        }
        println!(
            "  {} control state(s) asked, {} reachable under SC, {:.3}s",
            r.asked, r.sc_reachable, r.time
        );
    }
    Ok(code)
}
