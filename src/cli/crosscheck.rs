//! `bmc-rmm crosscheck`: the same inputs answered by several engines and
//! their answers compared. Three forms: robustness under TSO (the
//! explicit engine unbounded, the bounded SAT engine and SMC up to K);
//! `--reach`, reachability under TSO (SAT, lazy, kround and its P', the
//! explicit simulator, SMC); `--solvers A,B`, the bounded engine under two
//! solvers (the comparison of `diff`, [`super::diff`]).

use super::args::{CrosscheckArgs, DiffArgs};
use super::render::robustness_phrase;
use bmc_rmm::answer::{Agreement, STEPS_PER_THREAD};
use bmc_rmm::ask::{self, Detail, EngineChoice, Question};
use bmc_rmm::diag::Error;
use bmc_rmm::engines::bounded::{CheckKind, SolverKind, Verdict};
use bmc_rmm::engines::explicit::Robustness;
use bmc_rmm::program::Width;
use std::time::Duration;

/// Runs `bmc-rmm crosscheck` in the form its flags ask for.
///
/// Errors: as each form (a model other than tso without `--solvers`;
/// unreadable, malformed or unsupported inputs).
pub fn run(a: &CrosscheckArgs) -> Result<i32, Error> {
    match &a.solvers {
        Some(solvers) => super::diff::run(&DiffArgs {
            files: a.input.files.clone(),
            models: None,
            include: Vec::new(),
            solvers: Some(solvers.clone()),
            model: Some(a.model.clone()),
            solver: SolverKind::Varisat,
            bound: a.bound,
            width: (a.input.width != Width::DEFAULT.0).then_some(a.input.width),
            timeout: a.timeout.unwrap_or(super::args::DEFAULT_TIMEOUT),
            verdicts_only: false,
            json: a.input.json,
            batch: super::args::BatchArgs {
                quiet: a.quiet,
                jobs: a.jobs,
                shard: a.shard.clone(),
            },
            pgas: a.pgas.clone(),
            switches: a.input.switches,
        }),
        None if a.reach => run_reach(a),
        None => run_robust(a),
    }
}

/// `bmc-rmm crosscheck`: the explicit engine (unbounded) and the bounded
/// SAT engine (up to K) on each input; reports agreement and, for a
/// disagreement, what the violating side's witness shows.
fn run_robust(a: &CrosscheckArgs) -> Result<i32, Error> {
    let bound = a.bound.unwrap_or(bmc_rmm::engines::bounded::DEFAULT_BOUND);
    ask::validate(
        EngineChoice::Explicit,
        bmc_rmm::cat::builtin_name(&a.model),
        &[Question::Robust],
    )?;
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
    let (shard, progs) = load(a, &head, &["yes", "yes (beyond bound)", "NO", "unknown"])?;
    let model = bmc_rmm::cat::builtin("tso")?;
    let (mut disagreements, mut unknowns) = (0, 0);
    for (f, p) in &progs {
        let ask = |engine| answer_with(p, &model, "tso", CheckKind::Robust, engine, bound, a);
        let explicit_reply = ask(EngineChoice::Explicit)?;
        let (ea, Detail::Explicit(re)) = (explicit_reply.answer, explicit_reply.detail) else {
            unreachable!("the explicit engine replies with its report")
        };
        let ve = ea.verdict;
        let sat_reply = ask(EngineChoice::Bounded(Some(SolverKind::Varisat)))?;
        let (ra, Detail::Bounded(rs)) = (sat_reply.answer, sat_reply.detail) else {
            unreachable!("the bounded engine replies with its result")
        };
        let smc_reply = ask(EngineChoice::Smc)?;
        let (sa, Detail::Smc(sm)) = (smc_reply.answer, smc_reply.detail) else {
            unreachable!("the SMC engine replies with its result")
        };
        let sm = sm.result;
        let vs = sa.verdict;
        // A violation beyond the bound is no disagreement: robust up to K
        // is implied by robust.
        let mut agree = match ea.compare(&ra) {
            Agreement::Unknown => "unknown",
            Agreement::Agree => "yes",
            Agreement::Beyond => "yes (beyond bound)",
            Agreement::Disagree => "NO",
        };
        // SMC and SAT decide the same bounded question; SMC without a
        // path cut by the bound decides the unbounded one.
        let smc_disagrees = [sa.compare(&ra), sa.compare(&ea)].contains(&Agreement::Disagree);
        if smc_disagrees {
            agree = "NO";
        } else if vs == Verdict::Unknown && agree != "NO" {
            agree = "unknown";
        }
        unknowns += usize::from(agree == "unknown");
        disagreements += usize::from(agree == "NO");
        let witness = ea.witness.clone().or(ra.witness);
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
            "explicit": ve, "bounded": ra.verdict, "smc": vs, "agree": agree,
            "witness": (agree == "NO").then_some(witness).flatten(),
        })];
        let mut text = format!(
            "{:<44} {:<22} {:<26} {:<26} {agree}\n",
            f,
            robustness_phrase(ve),
            robustness_phrase(ra.verdict),
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
                    let steps = ea.stat(STEPS_PER_THREAD).unwrap_or(0);
                    text.push_str(&format!("  explicit witness ({steps} steps in the longest thread; the SAT engine found no cycle up to bound {bound}):\n{w}\n"));
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
    Ok(finish(progs.len(), disagreements, unknowns, a.input.json))
}

/// The inputs of this shard of a crosscheck (whose table starts with
/// `head` and whose agreement column says one of `words`), loaded before
/// anything runs; prints `head` unless `--json`.
///
/// Errors: unreadable or malformed inputs, a bad `--shard`/`--jsonl`.
fn load(
    a: &CrosscheckArgs,
    head: &str,
    words: &'static [&'static str],
) -> Result<
    (
        crate::cli::shard::Shard,
        Vec<(String, bmc_rmm::program::Program)>,
    ),
    Error,
> {
    let describe = crate::cli::shard::Describe {
        command: "crosscheck",
        what: "inputs",
        words,
        model: "tso",
        aliases: &[],
        meta: serde_json::json!({ "head": head }),
    };
    let loaded = crate::cli::inputs::load_sharded(
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
    Ok(loaded)
}

/// Prints a crosscheck's summary line (stdout; stderr with `--json`,
/// unless `-q`) and returns its exit status, as everywhere: 1 on a
/// disagreement, else 3 if some answer is unknown, else 0.
fn finish(files: usize, disagreements: usize, unknowns: usize, json: bool) -> i32 {
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

/// One engine's reply to `question` on `p` under the built-in model
/// `name` (`m` its cat model) within the crosscheck's `--bound`,
/// `--width` and `--timeout`, through the library's entry point.
///
/// Errors: those of [`bmc_rmm::ask::ask`].
fn answer_with(
    p: &bmc_rmm::program::Program,
    m: &bmc_rmm::cat::Model,
    name: &str,
    question: CheckKind,
    engine: EngineChoice,
    bound: u32,
    a: &CrosscheckArgs,
) -> Result<ask::Reply, Error> {
    let questions = [question.into()];
    let mut req = ask::Request::new(p, m, Some(name), &questions, bound);
    req.engine = engine;
    req.width = a.input.width;
    req.timeout = a.timeout.map(Duration::from_secs_f64);
    req.alone = false;
    req.switches = a.input.switches;
    Ok(ask::ask(&req)?.remove(0))
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
    /// The engine does not model this input (left out for it).
    NotApplicable,
}

impl Said {
    /// What an engine's answer says about reachability: a "not
    /// reachable" that holds only within a bound or a number of rounds is
    /// [`Said::NotWithin`].
    fn of(a: &bmc_rmm::answer::Answer) -> Said {
        use bmc_rmm::answer::Scope;
        match (a.verdict, a.scope) {
            (Verdict::Violation, _) => Said::Reachable,
            (Verdict::NoViolation, Scope::Complete) => Said::Unreachable,
            (Verdict::NoViolation, _) => Said::NotWithin,
            (Verdict::Unknown, _) => Said::Unknown,
        }
    }

    /// [`Said::of`] each answer, [`Said::NotApplicable`] where `left_out`.
    fn of_all(answers: &[bmc_rmm::answer::Answer; 6], left_out: &[bool; 6]) -> [Said; 6] {
        let mut all = answers.each_ref().map(Said::of);
        for (s, &out) in all.iter_mut().zip(left_out) {
            if out {
                *s = Said::NotApplicable;
            }
        }
        all
    }

    fn word(self) -> &'static str {
        match self {
            Said::Reachable => "reachable",
            Said::Unreachable => "unreachable",
            Said::NotWithin => "not within bound",
            Said::Unknown => "unknown",
            Said::NotApplicable => "n/a",
        }
    }
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
fn run_reach(a: &CrosscheckArgs) -> Result<i32, Error> {
    if bmc_rmm::cat::builtin_name(&a.model) != Some("tso") {
        return Err(Error::Usage(
            "crosscheck --reach compares TSO engines (--model tso)".into(),
        ));
    }
    if a.input.files.is_empty() {
        return Err(Error::Usage("no input FILE given".into()));
    }
    let bound = a.bound.unwrap_or(bmc_rmm::engines::bounded::DEFAULT_BOUND);
    let k = a.rounds.unwrap_or(super::args::DEFAULT_ROUNDS);
    let tso = bmc_rmm::cat::builtin("tso")?;
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
    let (shard, progs) = load(a, &head, &["yes", "NO", "unknown"])?;
    let (mut disagreements, mut unknowns) = (0, 0);
    for (f, p) in &progs {
        // The lazy and k-round engines' errors name the input.
        let said = |p: &bmc_rmm::program::Program, m, name, engine| {
            answer_with(p, m, name, CheckKind::Reach, engine, bound, a).map_err(|e| match e {
                Error::Unsupported(m)
                    if matches!(
                        engine,
                        EngineChoice::Lazy(_)
                            | EngineChoice::Kround(_)
                            | EngineChoice::KroundBounded(_)
                    ) =>
                {
                    Error::Unsupported(format!("{f}: {m}"))
                }
                e => e,
            })
        };
        let sat = EngineChoice::Bounded(Some(SolverKind::Varisat));
        let mut answers = [
            sat,
            EngineChoice::Lazy(None),
            EngineChoice::Kround(k),
            EngineChoice::KroundBounded(k),
            EngineChoice::Simulator,
            EngineChoice::Smc,
        ]
        .map(|engine| said(p, &tso, "tso", engine).map(|r| r.answer));
        if let [.., Ok(smc_answer)] = &mut answers {
            if !p.notes.is_empty() {
                // The front-end cut the program (notes): no answer on it
                // covers the original beyond the bound.
                smc_answer.scope = bmc_rmm::answer::Scope::Bound(bound);
            }
        }
        // An engine that does not model the input (the k-round engine and
        // locks, say) is left out for it; the SAT engine's refusal is the
        // input's error.
        let mut left_out = [false; 6];
        let mut notes = Vec::new();
        for (i, x) in answers.iter_mut().enumerate() {
            if let (true, Err(Error::Unsupported(m))) = (i > 0, &*x) {
                notes.push(format!("  left out: {m}\n"));
                left_out[i] = true;
                *x = Ok(bmc_rmm::answer::Answer::new(
                    Verdict::Unknown,
                    bmc_rmm::answer::Scope::Complete,
                ));
            }
        }
        let answers = answers
            .into_iter()
            .collect::<Result<Vec<_>, Error>>()?
            .try_into()
            .expect("six engines");
        let all @ [s_sat, s_lazy, s_kr, s_psc, s_sim, s_smc] = Said::of_all(&answers, &left_out);
        let why = reach_disagreements(&answers, bound);
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
        text.extend(notes);
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
    Ok(finish(progs.len(), disagreements, unknowns, a.input.json))
}

/// The disagreements between comparable answers of `crosscheck --reach`
/// (`all`: SAT at the bound, lazy, kround, P' with SAT under sc, the
/// simulator, SMC), one sentence each: a violation that an answer's "no
/// violation" covers ([`bmc_rmm::answer::Answer::contradicts`]) between
/// any engine and one that proves absence, lazy and SAT, SMC and SAT,
/// P' and kround.
fn reach_disagreements(all: &[bmc_rmm::answer::Answer; 6], bound: u32) -> Vec<String> {
    let [sat, lazy, kr, psc, _, smc] = all;
    let mut why = Vec::new();
    let any =
        |x: &bmc_rmm::answer::Answer| all.iter().any(|y| y.proves_absence() && x.contradicts(y));
    if all.iter().any(any) {
        why.push("one engine finds a goal reachable, another proves it unreachable".to_string());
    }
    if lazy.contradicts(sat) {
        let lazy_len = lazy.stat(STEPS_PER_THREAD).unwrap_or(0);
        why.push(format!(
            "lazy's witness has {lazy_len} steps per thread at most, but SAT finds nothing within bound {bound}"
        ));
    }
    // SMC and SAT answer the same bounded question.
    if smc.contradicts(sat) || sat.contradicts(smc) {
        why.push(format!(
            "SMC and SAT disagree within bound {bound} ({} / {})",
            Said::of(smc).word(),
            Said::of(sat).word()
        ));
    }
    if psc.contradicts(kr) {
        why.push("SAT finds P' reachable under sc, the explicit SC search of P' does not".into());
    }
    why
}
