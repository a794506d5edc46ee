//! `reach --engine kround --rounds K` (TSO reachability within K rounds
//! per thread, by reduction to SC: `bmc_rmm::reach::kround`), `reach
//! --engine lazy` (lazy TSO reachability: `bmc_rmm::reach::lazy`) and
//! `translate --kround K` (prints the translated program P').

use super::args::{CheckArgs, Engine, TranslateArgs};
use bmc_rmm::diag::Error;
use bmc_rmm::explicit::{Limits, Options};
use bmc_rmm::frontend;
use bmc_rmm::program::Width;
use bmc_rmm::reach::kround::{self, Answer};
use std::time::Duration;

/// Rounds when `--rounds` is not given.
pub const DEFAULT_ROUNDS: u32 = 2;

fn options(width: u32, timeout: Option<f64>) -> Options {
    Options {
        width: Width(width),
        limits: Limits {
            timeout: timeout.map(Duration::from_secs_f64),
            ..Limits::default()
        },
        ..Options::default()
    }
}

/// Runs `reach --engine kround|lazy` on every input. Exit status: 1 if a goal
/// is reachable in some input, else 3 if some answer is unknown, else 0.
///
/// Errors: a model other than tso; unreadable or malformed inputs;
/// programs the k-round engine does not model (exit 2).
pub fn run_reach(a: &CheckArgs) -> Result<i32, Error> {
    if a.input.files.is_empty() {
        return Err(Error::Usage("no input FILE given".into()));
    }
    if a.model.model_file.is_some() || bmc_rmm::cat::builtin_name(&a.model.model) != Some("tso") {
        return Err(Error::Usage(
            "--engine kround/lazy answer reachability under TSO only (--model tso)".into(),
        ));
    }
    let k = a.rounds.unwrap_or(DEFAULT_ROUNDS);
    let (mut reachable, mut unknown) = (false, false);
    let mut out = String::new();
    for f in &a.input.files {
        let p = frontend::load_program(f, a.input.format, Width(a.input.width))?;
        let t0 = std::time::Instant::now();
        let lazy = a.engine == Engine::Lazy;
        let (tag, scope) = if lazy {
            ("lazy".to_string(), String::new())
        } else {
            (
                format!("kround {k}"),
                format!(" within {k} rounds per thread"),
            )
        };
        let r = if lazy {
            let o = bmc_rmm::reach::lazy::LazyOptions {
                explicit: options(a.input.width, None),
                max_refinements: a.rounds,
                deadline: a
                    .timeout
                    .map(|t| std::time::Instant::now() + Duration::from_secs_f64(t)),
            };
            let r = bmc_rmm::reach::lazy::lazy_reach(&p, &o)
                .map_err(|e| Error::Usage(format!("{f}: {e}")))?;
            kround::KroundResult {
                answer: r.answer,
                states: r.states,
            }
        } else {
            kround::kround_reach(&p, k, &options(a.input.width, a.timeout))
                .map_err(|e| Error::Usage(format!("{f}: {e}")))?
        };
        let secs = t0.elapsed().as_secs_f64();
        let (word, goal) = match &r.answer {
            Answer::Reachable { goal, .. } => {
                reachable = true;
                ("reachable", Some(*goal))
            }
            Answer::Unreachable => ("unreachable", None),
            Answer::Unknown(_) => {
                unknown = true;
                ("unknown", None)
            }
        };
        let gname = |g: usize| {
            p.goals[g]
                .name
                .clone()
                .unwrap_or_else(|| format!("#{}", g + 1))
        };
        if a.input.json {
            let witness: Option<Vec<String>> = match &r.answer {
                Answer::Reachable { witness, .. } => {
                    Some(witness.iter().map(|s| s.describe(&p)).collect())
                }
                _ => None,
            };
            let reason = match &r.answer {
                Answer::Unknown(why) => Some(why.clone()),
                _ => None,
            };
            let rec = serde_json::json!({
                "file": f, "model": "tso", "engine": if lazy { "lazy" } else { "kround" },
                "rounds": if lazy { a.rounds } else { Some(k) }, "check": "reach",
                "verdict": word, "goal": goal.map(gname), "reason": reason,
                "witness": witness, "states": r.states, "time": secs,
            });
            out.push_str(&format!("{rec}\n"));
            continue;
        }
        match &r.answer {
            Answer::Reachable { goal, witness } => {
                out.push_str(&format!(
                    "{f}: reach [tso, {tag}]: REACHABLE: goal `{}` is reachable{scope} ({secs:.3} s)\n",
                    gname(*goal)
                ));
                out.push_str(&format!(
                    "TSO witness ({} steps, replayed on the TSO semantics):\n",
                    witness.len()
                ));
                for (i, s) in witness.iter().enumerate() {
                    out.push_str(&format!("  #{:<3} {}\n", i + 1, s.describe(&p)));
                }
            }
            Answer::Unreachable => out.push_str(&format!(
                "{f}: reach [tso, {tag}]: unreachable: no goal is reachable{scope} ({} states, {secs:.3} s)\n",
                r.states
            )),
            Answer::Unknown(why) => {
                out.push_str(&format!("{f}: reach [tso, {tag}]: unknown: {why}\n"))
            }
        }
    }
    print!("{out}");
    Ok(if reachable {
        1
    } else if unknown {
        3
    } else {
        0
    })
}

/// Runs `translate --kround K`: prints P' of each input in native syntax.
///
/// Errors: unreadable or malformed inputs; programs the translation does
/// not model (exit 2).
pub fn run_translate(a: &TranslateArgs) -> Result<i32, Error> {
    if a.input.files.is_empty() {
        return Err(Error::Usage("no input FILE given".into()));
    }
    let mut out = String::new();
    for f in &a.input.files {
        let p = frontend::load_program(f, a.input.format, Width(a.input.width))?;
        let tr = kround::translate(&p, a.kround).map_err(|e| Error::Usage(format!("{f}: {e}")))?;
        if a.input.files.len() > 1 {
            out.push_str(&format!("# file: {f}\n"));
        }
        out.push_str(&format!(
            "// {f} translated for {} rounds per thread (TSO within {} rounds = SC of this program)\n",
            a.kround, a.kround
        ));
        out.push_str(&frontend::native::print::native(&tr.program));
    }
    print!("{out}");
    Ok(0)
}
