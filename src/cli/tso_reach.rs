//! `reach --engine kround --rounds K` (TSO reachability within K rounds
//! per thread, by reduction to SC: `bmc_rmm::engines::tso_reach::kround`), `reach
//! --engine lazy` (lazy TSO reachability: `bmc_rmm::engines::tso_reach::lazy`) and
//! `translate --kround K` (prints the translated program P').

use super::args::{CheckArgs, Engine, TranslateArgs};
use bmc_rmm::diag::Error;
use bmc_rmm::engines::explicit::{Limits, Options};
use bmc_rmm::engines::tso_reach::kround::{self, Answer};
use bmc_rmm::frontend;
use bmc_rmm::program::Width;
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

/// Runs `reach --engine kround|lazy` on every input (files, directories,
/// `@list`s; `--shard`/`--jsonl`/`--resume` as every batch command), in
/// parallel (`-j`), each input with its own `--timeout`; prints the
/// answers in input order, then a summary on stderr when there are
/// several inputs. Exit status: 1 if a goal is reachable in some input,
/// else 3 if some answer is unknown, else 0.
///
/// Errors: a model other than tso; `--expect`/`--write-expect`/`--dot`
/// (bounded engine only); unreadable or malformed inputs; programs the
/// engine does not model (exit 2).
pub fn run_reach(a: &CheckArgs) -> Result<i32, Error> {
    if a.input.files.is_empty() {
        return Err(Error::Usage("no input FILE given".into()));
    }
    if a.model.model_file.is_some() || bmc_rmm::cat::builtin_name(&a.model.model) != Some("tso") {
        return Err(Error::Usage(
            "--engine kround/lazy answer reachability under TSO only (--model tso)".into(),
        ));
    }
    if a.expectations.expect.is_some() || a.expectations.write_expect.is_some() || a.dot.is_some() {
        return Err(Error::Usage(
            "--expect, --write-expect and --dot apply to the bounded engine, not --engine kround/lazy"
                .into(),
        ));
    }
    let k = a.rounds.unwrap_or(DEFAULT_ROUNDS);
    if a.engine == Engine::Kround && !(1..=64).contains(&k) {
        return Err(Error::Usage(
            "--rounds of --engine kround must be 1..=64".into(),
        ));
    }
    crate::cli::batch::run_records(a, "reach", "tso", |f, p| answer(f, p, a, k))
}

/// One input's `reach --engine kround|lazy` answer as a record (text,
/// JSON, verdict word, exit status).
///
/// Errors: the program uses what the engine does not model.
fn answer(
    f: &str,
    p: &bmc_rmm::program::Program,
    a: &CheckArgs,
    k: u32,
) -> Result<crate::cli::shard::Record, Error> {
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
        let o = bmc_rmm::engines::tso_reach::lazy::LazyOptions {
            explicit: options(a.input.width, None),
            max_refinements: a.rounds,
            deadline: a
                .timeout
                .map(|t| std::time::Instant::now() + Duration::from_secs_f64(t)),
        };
        let r = bmc_rmm::engines::tso_reach::lazy::lazy_reach(p, &o)
            .map_err(|e| Error::Usage(format!("{f}: {e}")))?;
        kround::KroundResult {
            answer: r.answer,
            states: r.states,
        }
    } else {
        kround::kround_reach(p, k, &options(a.input.width, a.timeout))
            .map_err(|e| Error::Usage(format!("{f}: {e}")))?
    };
    let secs = t0.elapsed().as_secs_f64();
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
        "rounds": if lazy { a.rounds } else { Some(k) }, "check": "reach",
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
    Ok(rec)
}

/// Runs `translate --kround K`: prints P' of each input in native syntax
/// (with `--json`, one record per input: file, rounds, program, threads).
///
/// Errors: unreadable or malformed inputs; programs the translation does
/// not model (exit 2).
pub fn run_translate(a: &TranslateArgs) -> Result<i32, Error> {
    if a.input.files.is_empty() {
        return Err(Error::Usage("no input FILE given".into()));
    }
    let mut out = String::new();
    for f in &a.input.files {
        let p = frontend::load_program_with(
            f,
            a.input.format,
            Width(a.input.width),
            &a.input.c.options(),
        )?;
        let tr = kround::translate(&p, a.kround).map_err(|e| Error::Usage(format!("{f}: {e}")))?;
        if a.input.json {
            let rec = serde_json::json!({
                "file": f, "rounds": a.kround,
                "program": bmc_rmm::program::render::native(&tr.program),
                "threads": tr.program.threads.len(),
            });
            out.push_str(&format!("{rec}\n"));
            continue;
        }
        if a.input.files.len() > 1 {
            out.push_str(&format!("# file: {f}\n"));
        }
        out.push_str(&format!(
            "// {f} translated for {} rounds per thread (TSO within {} rounds = SC of this program)\n",
            a.kround, a.kround
        ));
        out.push_str(&bmc_rmm::program::render::native(&tr.program));
    }
    print!("{out}");
    Ok(0)
}

/// One engine's answer in `crosscheck --reach`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Said {
    /// A goal is reachable under TSO (definitive).
    Reachable,
    /// No goal is reachable under TSO (definitive).
    Unreachable,
    /// No goal within the engine's bound (bound, rounds).
    NotWithin,
    /// No answer.
    Unknown,
}

impl Said {
    fn word(self) -> &'static str {
        match self {
            Said::Reachable => "reachable",
            Said::Unreachable => "unreachable",
            Said::NotWithin => "not within bound",
            Said::Unknown => "unknown",
        }
    }
}

/// The most instructions one thread executes in a TSO computation.
fn longest(w: &[bmc_rmm::engines::tso_reach::tso::TsoStep]) -> usize {
    let mut n: std::collections::BTreeMap<u32, usize> = Default::default();
    for s in w {
        if let bmc_rmm::engines::tso_reach::tso::TsoStep::Instr { thread, .. } = s {
            *n.entry(thread.0).or_default() += 1;
        }
    }
    n.values().copied().max().unwrap_or(0)
}

/// Runs `crosscheck --reach`: on every input, the SAT engine at `--bound`
/// under tso, the lazy engine, the kround engine (and its P' with the SAT
/// engine under sc) and the explicit TSO simulator; prints one row per
/// input and every disagreement between comparable answers (a definitive
/// "reachable" against a definitive "unreachable"; the lazy engine's
/// witness within the bound against SAT's "not within bound"; kround's
/// exhaustive "not within K rounds" against SAT finding P' reachable).
///
/// Exit status: 1 on a disagreement, else 3 if some answer is unknown,
/// else 0.
///
/// Errors: a model other than tso; unreadable, malformed or unsupported
/// inputs (exit 2).
pub fn run_crosscheck(a: &super::args::CrosscheckArgs) -> Result<i32, Error> {
    use bmc_rmm::engines::bounded::{self, CheckKind, SolverKind, Verdict};
    if bmc_rmm::cat::builtin_name(&a.model) != Some("tso") {
        return Err(Error::Usage(
            "crosscheck --reach compares TSO engines (--model tso)".into(),
        ));
    }
    if a.input.files.is_empty() {
        return Err(Error::Usage("no input FILE given".into()));
    }
    let bound = a.bound.unwrap_or(bmc_rmm::engines::bounded::DEFAULT_BOUND);
    let k = a.rounds.unwrap_or(DEFAULT_ROUNDS);
    let w = a.input.width;
    let tso = bmc_rmm::cat::builtin("tso")?;
    let sc = bmc_rmm::cat::builtin("sc")?;
    let sat = |p: &bmc_rmm::program::Program, m: &bmc_rmm::cat::Model| -> Result<Said, Error> {
        let lim = bounded::Limits {
            bound,
            width: w,
            deadline: super::batch::deadline(a.timeout),
        };
        let r =
            bounded::check(SolverKind::Varisat, p, m, lim, false, &[CheckKind::Reach])?.remove(0);
        Ok(match r.verdict {
            Verdict::Violation => Said::Reachable,
            Verdict::NoViolation => Said::NotWithin,
            Verdict::Unknown => Said::Unknown,
        })
    };
    let head = format!(
        "{:<36} {:<17} {:<17} {:<17} {:<17} {:<17} {:<17} agree\n",
        "file",
        format!("sat (bound {bound})"),
        "lazy",
        format!("kround {k}"),
        format!("P' sat-sc ({bound})"),
        "simulator",
        format!("smc ({bound})")
    );
    let describe = crate::cli::shard::Describe {
        command: "crosscheck",
        what: "inputs",
        words: &["yes", "NO", "unknown"],
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
    if !a.input.json {
        print!("{head}");
    }
    let (mut disagreements, mut unknowns) = (0, 0);
    for (f, p) in &progs {
        let p = p.clone();
        let bad = |e: bmc_rmm::engines::tso_reach::ReachError| Error::Usage(format!("{f}: {e}"));
        let s_sat = sat(&p, &tso)?;
        let lo = bmc_rmm::engines::tso_reach::lazy::LazyOptions {
            explicit: options(w, None),
            max_refinements: None,
            deadline: a
                .timeout
                .map(|t| std::time::Instant::now() + Duration::from_secs_f64(t)),
        };
        let lz = bmc_rmm::engines::tso_reach::lazy::lazy_reach(&p, &lo).map_err(bad)?;
        let (s_lazy, lazy_len) = match &lz.answer {
            Answer::Reachable { witness, .. } => (Said::Reachable, longest(witness)),
            Answer::Unreachable => (Said::Unreachable, 0),
            Answer::Unknown(_) => (Said::Unknown, 0),
        };
        let kr = kround::kround_reach(&p, k, &options(w, a.timeout)).map_err(bad)?;
        let s_kr = match kr.answer {
            Answer::Reachable { .. } => Said::Reachable,
            Answer::Unreachable => Said::NotWithin,
            Answer::Unknown(_) => Said::Unknown,
        };
        let tr = kround::translate(&p, k).map_err(bad)?;
        let s_psc = sat(&tr.program, &sc)?;
        let sim = bmc_rmm::engines::tso_reach::tso::explore(
            &p,
            &bmc_rmm::engines::tso_reach::tso::SimOptions {
                width: Width(w),
                deadline: a
                    .timeout
                    .map(|t| std::time::Instant::now() + Duration::from_secs_f64(t)),
                ..Default::default()
            },
        );
        let s_sim = match sim {
            bmc_rmm::engines::tso_reach::tso::SimVerdict::Reachable { .. } => Said::Reachable,
            bmc_rmm::engines::tso_reach::tso::SimVerdict::Unreachable => Said::Unreachable,
            bmc_rmm::engines::tso_reach::tso::SimVerdict::Unknown(_) => Said::Unknown,
        };
        let sm = super::smc::crosscheck_answer(
            &p,
            bmc_rmm::engines::smc::semantics::Model::Tso,
            bmc_rmm::engines::smc::SmcCheck::Reach,
            bound,
            w,
            a.timeout,
        )?;
        let s_smc = match sm.verdict {
            bmc_rmm::engines::smc::SmcVerdict::Reachable { .. } => Said::Reachable,
            bmc_rmm::engines::smc::SmcVerdict::Unreachable
                if sm.stats.bound_cut || !p.notes.is_empty() =>
            {
                Said::NotWithin
            }
            bmc_rmm::engines::smc::SmcVerdict::Unreachable => Said::Unreachable,
            _ => Said::Unknown,
        };
        let all = [s_sat, s_lazy, s_kr, s_psc, s_sim, s_smc];
        let mut why = Vec::new();
        if all.contains(&Said::Reachable) && all.contains(&Said::Unreachable) {
            why.push(
                "one engine finds a goal reachable, another proves it unreachable".to_string(),
            );
        }
        if s_lazy == Said::Reachable && s_sat == Said::NotWithin && lazy_len <= bound as usize {
            why.push(format!(
                "lazy's witness has {lazy_len} steps per thread at most, but SAT finds nothing within bound {bound}"
            ));
        }
        // SMC and SAT answer the same bounded question.
        if (s_smc == Said::Reachable && s_sat == Said::NotWithin)
            || (s_sat == Said::Reachable && matches!(s_smc, Said::NotWithin | Said::Unreachable))
        {
            why.push(format!(
                "SMC and SAT disagree within bound {bound} ({} / {})",
                s_smc.word(),
                s_sat.word()
            ));
        }
        if s_kr == Said::NotWithin && s_psc == Said::Reachable {
            why.push(
                "SAT finds P' reachable under sc, the explicit SC search of P' does not".into(),
            );
        }
        let agree = if !why.is_empty() {
            disagreements += 1;
            "NO"
        } else if all.contains(&Said::Unknown) {
            unknowns += 1;
            "unknown"
        } else {
            "yes"
        };
        let mut text = format!(
            "{:<36} {:<17} {:<17} {:<17} {:<17} {:<17} {:<17} {agree}\n",
            f,
            s_sat.word(),
            s_lazy.word(),
            s_kr.word(),
            s_psc.word(),
            s_sim.word(),
            s_smc.word()
        );
        for x in &why {
            text.push_str(&format!("  disagreement: {x}\n"));
        }
        let status = match agree {
            "NO" => 1,
            "unknown" => 3,
            _ => 0,
        };
        let mut rec = crate::cli::shard::record(f, status);
        rec.summary = vec![agree.into()];
        rec.json = vec![serde_json::json!({
            "file": f, "model": "tso", "bound": bound, "rounds": k,
            "sat": s_sat.word(), "lazy": s_lazy.word(), "kround": s_kr.word(),
            "translated_sat_sc": s_psc.word(), "simulator": s_sim.word(), "smc": s_smc.word(),
            "agree": agree, "disagreements": why,
        })];
        rec.text = text;
        if a.input.json {
            println!("{}", rec.json[0]);
        } else {
            print!("{}", rec.text);
        }
        shard.record(rec)?;
    }
    Ok(super::explicit::finish_crosscheck(
        progs.len(),
        disagreements,
        unknowns,
        a.input.json,
    ))
}
