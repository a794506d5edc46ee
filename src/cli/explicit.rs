//! CLI commands backed by the explicit-state engine (issue 4):
//! `robust --engine explicit`, `fences`, and `crosscheck` (explicit vs
//! bounded SAT engine on the same inputs).

use super::args::{CheckArgs, CrosscheckArgs, FencesArgs};
use super::render::robustness_phrase;
use bmc_rmm::diag::{Error, SourceFile};
use bmc_rmm::engines::bounded::{self, Verdict};
use bmc_rmm::engines::bounded::{CheckKind, SolverKind};
use bmc_rmm::engines::explicit::{
    self, FenceCosts, FenceLocation, FenceVerdict, Limits, Options, Robustness,
};
use bmc_rmm::program::{Program, Width};
use std::time::Duration;

/// The explicit engine's options for `--width` and `--timeout`.
pub fn options(width: u32, timeout: Option<f64>) -> Options {
    let mut o = Options {
        width: Width(width),
        ..Options::default()
    };
    o.limits = Limits {
        timeout: timeout.map(Duration::from_secs_f64),
        ..Limits::default()
    };
    o
}

fn require_tso(model: &str, model_file: Option<&str>) -> Result<(), Error> {
    if model_file.is_some() || bmc_rmm::cat::builtin_name(model) != Some("tso") {
        return Err(Error::Usage(
            "the explicit engine decides robustness against TSO only (--model tso)".into(),
        ));
    }
    Ok(())
}

/// Exit status of one verdict (1 violation, 3 unknown, 0).
fn status(v: Verdict) -> i32 {
    match v {
        Verdict::Violation => 1,
        Verdict::Unknown => 3,
        Verdict::NoViolation => 0,
    }
}

/// The explicit verdict as a [`Verdict`] and a text.
fn explicit_robust(
    p: &Program,
    o: &Options,
) -> Result<(Verdict, String, explicit::RobustnessReport), Error> {
    let r = explicit::check_robustness(p, o).map_err(|e| Error::Usage(e.to_string()))?;
    let (v, text) = match &r.verdict {
        Robustness::Robust => (Verdict::NoViolation, "robust (unbounded)".to_string()),
        Robustness::NotRobust(w) => (
            Verdict::Violation,
            format!("NOT ROBUST: attack {}\n{w}", w.attack_text),
        ),
        Robustness::Unknown(why) => (Verdict::Unknown, format!("unknown: {why}")),
    };
    Ok((v, text, r))
}

/// `bmc-rmm robust --engine explicit`: unbounded TSO robustness by attacks.
pub fn run_robust(a: &CheckArgs) -> Result<i32, Error> {
    a.validate()?;
    if a.dot.is_some() {
        return Err(Error::Usage(
            "--dot draws witnesses of the bounded engine; the explicit engine's witness \
             (a TSO computation) is printed in the text output"
                .into(),
        ));
    }
    require_tso(&a.model.model, a.model.model_file.as_deref())?;
    let aliases = super::expect::model_aliases("tso", None);
    let describe = crate::cli::shard::Describe {
        command: "robust",
        what: "results",
        words: &[],
        model: "tso",
        aliases: &aliases,
        meta: serde_json::Value::Null,
    };
    let (shard, progs) = crate::cli::inputs::load_sharded(
        &a.input.files,
        a.input.format,
        a.input.width,
        &a.input.c.options(),
        &a.batch.shard,
        describe,
    )?;
    let mut worst = Verdict::NoViolation;
    for (f, p) in &progs {
        let (v, text, r) = explicit_robust(p, &options(a.input.width, a.timeout))?;
        let w = match &r.verdict {
            Robustness::NotRobust(w) => Some(w.to_string()),
            _ => None,
        };
        let mut rec = crate::cli::shard::record(f, status(v));
        let word = super::render::verdict_word(CheckKind::Robust, v);
        rec.checks = vec![("robust".into(), word.into())];
        rec.summary = vec![word.into()];
        rec.json = vec![
            serde_json::json!({"file": f, "model": "tso", "engine": "explicit", "check": "robust",
                "verdict": v, "witness": w, "time": r.stats.time_us as f64 / 1e6, "stats": r.stats}),
        ];
        rec.text = format!(
            "{f}: robust [tso, explicit engine]: {text}\n  attacks: {} ({} answered without search), states visited: {}, {:.3}s\n",
            r.stats.attacks_total,
            r.stats.answered_without_search,
            r.stats.states_visited,
            r.stats.time_us as f64 / 1e6
        );
        if a.input.json {
            println!("{}", rec.json[0]);
        } else {
            print!("{}", rec.text);
        }
        shard.record(rec)?;
        worst = merge(worst, v);
    }
    Ok(worst.exit_code())
}

fn merge(a: Verdict, b: Verdict) -> Verdict {
    match (a, b) {
        (Verdict::Violation, _) | (_, Verdict::Violation) => Verdict::Violation,
        (Verdict::Unknown, _) | (_, Verdict::Unknown) => Verdict::Unknown,
        _ => Verdict::NoViolation,
    }
}

/// The largest fence cost a cost file may give (2⁴⁰): sums over any
/// realistic number of fences never saturate, so "optimal" stays exact.
pub const MAX_FENCE_COST: u64 = 1 << 40;

/// Reads a fence cost file: lines `THREAD STATE COST` (`#` comments);
/// `default COST` sets the cost of every other location.
///
/// Errors (located at the offending word): unknown thread or state, a
/// cost that is not a number or exceeds [`MAX_FENCE_COST`], a malformed
/// line.
pub fn read_costs(path: &str, p: &Program) -> Result<FenceCosts, Error> {
    let src = SourceFile::read(path)?;
    let mut costs = FenceCosts {
        per_location: Default::default(),
        default: 1,
    };
    for (span, words) in super::fences::cost_lines(&src) {
        match words.as_slice() {
            [] => {}
            [("default", _), c] => costs.default = super::fences::cost_word(&src, *c)?,
            [t, q, c] => {
                let (thread, state) = super::fences::location(&src, p, *t, *q)?;
                costs.per_location.insert(
                    FenceLocation { thread, state },
                    super::fences::cost_word(&src, *c)?,
                );
            }
            _ => {
                return Err(src.error_help(
                    span,
                    "malformed cost line",
                    "expected `THREAD STATE COST` or `default COST`",
                ))
            }
        }
    }
    Ok(costs)
}

/// `bmc-rmm fences`: a minimal-cost valid fence set per input (thesis
/// §6.5), the fenced program with `--emit`; with `--bound` or a model
/// other than tso, the bounded synthesis ([`super::fences::run`]).
pub fn run_fences(a: &FencesArgs) -> Result<i32, Error> {
    if a.bound.is_some() || bmc_rmm::cat::builtin_name(&a.model) != Some("tso") {
        return super::fences::run(a);
    }
    if a.input.files.is_empty() {
        return Err(Error::Usage("no input FILE given".into()));
    }
    if a.emit.is_some() && a.input.files.len() > 1 {
        return Err(Error::Usage("--emit FILE takes a single input".into()));
    }
    let describe = crate::cli::shard::Describe {
        command: "fences",
        what: "inputs",
        words: &[],
        model: "tso",
        aliases: &[],
        meta: serde_json::Value::Null,
    };
    let no_shard = crate::cli::args::ShardArgs::default();
    let (_, progs) = crate::cli::inputs::load_sharded(
        &a.input.files,
        a.input.format,
        a.input.width,
        &a.input.c.options(),
        &no_shard,
        describe,
    )?;
    let mut code = 0;
    for (f, p) in &progs {
        let costs = match &a.cost {
            Some(c) => read_costs(c, p)?,
            None => FenceCosts {
                per_location: Default::default(),
                default: 1,
            },
        };
        let r = explicit::fence_insertion(p, &options(a.input.width, a.timeout), &costs)
            .map_err(|e| Error::Usage(e.to_string()))?;
        let locs: Vec<FenceLocation> = match &r.verdict {
            FenceVerdict::Robust => Vec::new(),
            FenceVerdict::Fences(l) => l.clone(),
            FenceVerdict::Unknown(why) => {
                println!("{f}: fences [tso]: unknown: {why}");
                code = 3;
                continue;
            }
        };
        let names: Vec<String> = locs.iter().map(|l| l.describe(p)).collect();
        if a.input.json {
            println!(
                "{}",
                serde_json::json!({"file": f, "model": "tso", "fences": names, "count": locs.len(),
                    "cost": r.cost, "optimal": r.optimal, "time": r.stats.time_us as f64 / 1e6, "stats": r.stats})
            );
        } else if locs.is_empty() {
            println!("{f}: fences [tso]: robust, no fence needed");
        } else {
            println!(
                "{f}: fences [tso]: {} fence(s), cost {}{}: {}",
                locs.len(),
                r.cost,
                if r.optimal {
                    " (optimal)"
                } else {
                    " (best found within limits)"
                },
                names.join(" ")
            );
        }
        if let Some(out) = &a.emit {
            let pairs: Vec<_> = locs.iter().map(|l| (l.thread, l.state)).collect();
            let fenced = explicit::insert_fences(p, &pairs);
            let text = bmc_rmm::program::render::native(&fenced);
            super::output::write_file(out, &text)?;
        }
    }
    Ok(code)
}

/// `bmc-rmm crosscheck`: the explicit engine (unbounded) and the bounded
/// SAT engine (up to K) on each input; reports agreement and, for a
/// disagreement, what the violating side's witness shows.
pub fn run_crosscheck(a: &CrosscheckArgs) -> Result<i32, Error> {
    let bound = a.bound.unwrap_or(bmc_rmm::engines::bounded::DEFAULT_BOUND);
    require_tso(&a.model, None)?;
    if bound == 0 {
        return Err(Error::Usage("--bound must be at least 1".into()));
    }
    let head = format!(
        "{:<44} {:<22} {:<26} {:<26} agree\n",
        "file",
        "explicit (unbounded)",
        format!("sat (bound {})", bound),
        format!("smc (bound {})", bound)
    );
    let describe = crate::cli::shard::Describe {
        command: "crosscheck",
        what: "inputs",
        words: &["yes", "yes (beyond bound)", "NO", "unknown"],
        model: "tso",
        aliases: &[],
        meta: serde_json::json!({ "head": head }),
    };
    let (shard, progs) = crate::cli::inputs::load_sharded(
        &a.input.files,
        a.input.format,
        a.input.width,
        &a.input.c.options(),
        &a.shard,
        describe,
    )?;
    let model = bmc_rmm::cat::builtin("tso")?;
    let (mut disagreements, mut unknowns) = (0, 0);
    if !a.input.json {
        print!("{head}");
    }
    for (f, p) in &progs {
        let (ve, _, re) = explicit_robust(p, &options(a.input.width, a.timeout))?;
        let deadline = super::batch::deadline(a.timeout);
        let lim = bounded::Limits {
            bound,
            width: a.input.width,
            deadline,
        };
        let rs = bounded::check(
            SolverKind::Varisat,
            p,
            &model,
            lim,
            false,
            &[CheckKind::Robust],
        )?
        .remove(0);
        let sm = super::smc::crosscheck_answer(
            p,
            bmc_rmm::engines::smc::semantics::Model::Tso,
            bmc_rmm::engines::smc::SmcCheck::Robust,
            bound,
            a.input.width,
            a.timeout,
        )?;
        let vs = match sm.verdict {
            bmc_rmm::engines::smc::SmcVerdict::NotRobust { .. } => Verdict::Violation,
            bmc_rmm::engines::smc::SmcVerdict::Robust => Verdict::NoViolation,
            _ => Verdict::Unknown,
        };
        let mut agree = match (ve, rs.verdict) {
            (Verdict::Unknown, _) | (_, Verdict::Unknown) => "unknown",
            (x, y) if x == y => "yes",
            // Robust up to K is implied by robust; a violation beyond K is not a disagreement.
            (Verdict::Violation, Verdict::NoViolation) if longest_thread(&re) > bound as usize => {
                "yes (beyond bound)"
            }
            _ => "NO",
        };
        // SMC and SAT decide the same bounded question; SMC without a
        // path cut by the bound decides the unbounded one.
        let smc_disagrees =
            (vs != Verdict::Unknown && rs.verdict != Verdict::Unknown && vs != rs.verdict)
                || (vs == Verdict::Violation && ve == Verdict::NoViolation)
                || (vs == Verdict::NoViolation && !sm.stats.bound_cut && ve == Verdict::Violation);
        if smc_disagrees {
            agree = "NO";
        } else if vs == Verdict::Unknown && agree != "NO" {
            agree = "unknown";
        }
        unknowns += usize::from(agree == "unknown");
        disagreements += usize::from(agree == "NO");
        let witness = match (&re.verdict, &rs.witness, &rs.cycle) {
            (Robustness::NotRobust(w), _, _) => Some(w.to_string()),
            (_, Some(x), Some(c)) => Some(x.render_cycle(c)),
            _ => None,
        };
        let mut rec = crate::cli::shard::record(
            f,
            match agree {
                "NO" => 1,
                "unknown" => 3,
                _ => 0,
            },
        );
        rec.summary = vec![agree.into()];
        rec.json = vec![serde_json::json!({
            "file": f, "model": "tso", "bound": bound,
            "explicit": ve, "bounded": rs.verdict, "smc": vs, "agree": agree,
            "witness": (agree == "NO").then_some(witness).flatten(),
        })];
        let mut text = format!(
            "{:<44} {:<22} {:<26} {:<26} {agree}\n",
            f,
            robustness_phrase(ve),
            robustness_phrase(rs.verdict),
            robustness_phrase(vs)
        );
        if smc_disagrees {
            text.push_str(&format!(
                "  smc: {} ({} executions, {} traces)\n",
                robustness_phrase(vs),
                sm.stats.executions,
                sm.stats.traces
            ));
        }
        if agree == "NO" {
            match (&re.verdict, &rs.witness) {
                (Robustness::NotRobust(w), _) => {
                    text.push_str(&format!("  explicit witness ({} steps in the longest thread; the SAT engine found no cycle up to bound {}):\n{w}\n", longest_thread(&re), bound));
                }
                (_, Some(x)) => {
                    text.push_str("  SAT witness (the explicit engine says robust):\n");
                    if let Some(c) = &rs.cycle {
                        text.push_str(&format!("  cycle: {}\n", x.render_cycle(c)));
                    }
                    text.push_str(&x.render(p));
                }
                _ => {}
            }
        }
        rec.text = text;
        if a.input.json {
            println!("{}", rec.json[0]);
        } else {
            print!("{}", rec.text);
        }
        shard.record(rec)?;
    }
    Ok(finish_crosscheck(
        progs.len(),
        disagreements,
        unknowns,
        a.input.json,
    ))
}

/// Prints a crosscheck's summary line (stdout; stderr with `--json`,
/// unless `-q`) and returns its exit status, as everywhere: 1 on a
/// disagreement, else 3 if some answer is unknown, else 0.
pub fn finish_crosscheck(files: usize, disagreements: usize, unknowns: usize, json: bool) -> i32 {
    let summary = format!("{files} file(s), {disagreements} disagreement(s), {unknowns} unknown");
    if json {
        if !crate::cli::quiet() {
            eprintln!("{summary}");
        }
    } else {
        println!("{summary}");
    }
    if disagreements > 0 {
        1
    } else if unknowns > 0 {
        3
    } else {
        0
    }
}

/// Instructions executed by the busiest thread in the explicit witness.
fn longest_thread(r: &explicit::RobustnessReport) -> usize {
    match &r.verdict {
        Robustness::NotRobust(w) => {
            let mut per: std::collections::HashMap<_, usize> = Default::default();
            for e in &w.events {
                if !matches!(e.kind, explicit::TsoEventKind::DelayedFlush) {
                    *per.entry(e.thread).or_default() += 1;
                }
            }
            per.values().copied().max().unwrap_or(0)
        }
        _ => 0,
    }
}
