//! `bmc-rmm diff --models A,B INPUTS`: runs every input under two models
//! and lists the inputs whose answers differ. `diff --solvers varisat,z3
//! --model M` (also `crosscheck --solvers`) compares the two solver
//! backends under one model instead, and replays every witness (an
//! execution reaching a goal or with a cyclic hb) found by one backend on
//! the other as a concrete execution: a witness the other backend rejects
//! is listed as a difference too.
//!
//! * Litmus tests: the verdict (herd's `Allowed`/`Forbidden`) and the set
//!   of final states; the states one model allows and the other forbids
//!   are printed under the row.
//! * Programs (`.rmm`, `.txt`): the `reach` and `robust` verdicts.
//! * Under herd configurations (`--models A.cfg,B.cfg`): C litmus tests
//!   (`.litmus`), read with each configuration's macro file, compared as
//!   litmus tests and by the model's flags that hold (herd's `Flag`
//!   lines).
//!
//! The table has up to three sections, in input order: inputs whose
//! verdict differs, inputs whose verdicts agree but whose final states
//! differ (not with `--verdicts-only`), and inputs with an unknown answer
//! (timeout). Exit status: 2 if an input could not be read, else 1 if a
//! listed difference exists, else 3 if an answer is unknown, else 0.

use super::args::DiffArgs;
use super::render::{litmus_verdict_word, verdict_word};
use crate::cli::batch::{self, BatchOptions, Summary};
use bmc_rmm::answer::Agreement;
use bmc_rmm::ask::Question;
use bmc_rmm::cat::load_model_spec;
use bmc_rmm::cat::Model;
use bmc_rmm::diag::Error;
use bmc_rmm::engines::bounded::Execution;
use bmc_rmm::engines::bounded::SolverKind;
use bmc_rmm::engines::bounded::{CheckKind, CheckResult, Verdict, DEFAULT_LITMUS_BOUND};
use bmc_rmm::frontend::Format;
use bmc_rmm::program::Width;

/// The answers of one input under one model.
#[derive(Clone, Debug)]
enum Answer {
    /// A litmus test: verdict word, final states (herd's state lines)
    /// and, under a herd configuration, the model's flags that hold.
    Litmus {
        verdict: String,
        states: Vec<String>,
        flags: Vec<String>,
    },
    /// A program: (check, answer) for reach and robust, and the
    /// witnesses' replays on the other side (when comparing solvers).
    Program(Vec<(CheckKind, bmc_rmm::answer::Answer)>, Vec<Replay>),
}

/// A witness of one side replayed on the other side's solver.
#[derive(Clone, Debug)]
pub struct Replay {
    /// The check whose witness it is.
    pub check: CheckKind,
    /// `Err(why)` when the other side rejects the execution.
    pub result: Result<(), String>,
    /// The witness (its cycle or events, for the report).
    pub witness: String,
}

/// One side of a comparison: a model on a solver backend.
pub struct Side {
    /// The column title (`tso`, `z3`, …).
    pub label: String,
    /// The model.
    pub model: Model,
    /// The model's name or file (for messages).
    pub model_name: String,
    /// The backend.
    pub solver: SolverKind,
    /// A herd configuration (`.cfg`): C litmus tests are read with its
    /// macro file and `model` is its model.
    pub conf: Option<super::litmus::ConfModel>,
}

impl Answer {
    fn unknown(&self) -> bool {
        match self {
            Answer::Litmus { verdict, .. } => verdict == "Unknown",
            Answer::Program(v, _) => v.iter().any(|(_, x)| x.verdict == Verdict::Unknown),
        }
    }
}

fn is_litmus(file: &str) -> bool {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    Format::detect(file, &text) == Format::Litmus
}

/// The answer of one input on `side`; with `other` (comparing solvers),
/// each witness is replayed on that backend.
fn answer(
    file: &str,
    side: &Side,
    other: Option<SolverKind>,
    a: &DiffArgs,
) -> Result<Answer, Error> {
    if let Some(cm) = &side.conf {
        let o = litmus_options(side, a);
        let (t, r) = super::litmus::run_c(file, cm, &o)?;
        return Ok(Answer::Litmus {
            verdict: litmus_verdict_word(&r).to_string(),
            states: r.states.iter().map(|s| t.state_line(s)).collect(),
            flags: super::litmus::fired_flags(&r).unwrap_or_default(),
        });
    }
    if is_litmus(file) {
        let o = litmus_options(side, a);
        let (t, reply) = super::litmus::run_one(file, &side.model, &o)?;
        let bmc_rmm::ask::Detail::Outcomes(r) = reply.detail else {
            unreachable!("the outcomes question is answered with the litmus result")
        };
        return Ok(Answer::Litmus {
            verdict: litmus_verdict_word(&r).to_string(),
            states: r.states.iter().map(|s| t.state_line(s)).collect(),
            flags: Vec::new(),
        });
    }
    let w = a.width.unwrap_or(Width::DEFAULT.0);
    let p = super::check::load_for_check(
        file,
        None,
        Width(w),
        &bmc_rmm::frontend::c::Options::default(),
        a.pgas.nodes,
        &side.model,
        &side.model_name,
    )?;
    let mut req = bmc_rmm::ask::Request::new(
        &p,
        &side.model,
        None,
        &[Question::Reach, Question::Robust],
        super::check::effective_bound(a.bound, &p),
    );
    req.engine = bmc_rmm::ask::EngineChoice::Bounded(Some(side.solver));
    req.width = w;
    req.timeout = Some(std::time::Duration::from_secs_f64(a.timeout));
    req.alone = false;
    req.switches = a.switches;
    let start = std::time::Instant::now();
    let replies = bmc_rmm::ask::ask(&req)?;
    let answers = (replies.iter())
        .map(|r| (r.question.check().expect("a check"), r.answer.clone()))
        .collect();
    let results: Vec<CheckResult> = (replies.into_iter())
        .filter_map(bmc_rmm::ask::Reply::into_bounded)
        .collect();
    let lim = bmc_rmm::engines::bounded::Limits {
        bound: req.bound,
        width: w,
        deadline: bmc_rmm::engines::bounded::Deadline(req.timeout.map(|t| start + t)),
        switches: a.switches,
    };
    let mut replays = Vec::new();
    if let Some(o) = other {
        for r in &results {
            let Some(x) = &r.witness else { continue };
            let result = bmc_rmm::engines::bounded::replay(o, &p, &side.model, lim, x)?;
            replays.push(Replay {
                check: r.check,
                result,
                witness: describe(x, r),
            });
        }
    }
    Ok(Answer::Program(answers, replays))
}

/// How a litmus test runs on `side`.
fn litmus_options(side: &Side, a: &DiffArgs) -> super::litmus::RunOptions {
    super::litmus::RunOptions {
        bound: a.bound.unwrap_or(DEFAULT_LITMUS_BOUND),
        width: a.width,
        timeout: a.timeout,
        solver: side.solver,
        budget: Some(bmc_rmm::engines::bounded::varisat::enumerate::DEFAULT_BUDGET),
        switches: a.switches,
    }
}

/// A one-line summary of a witness: its hb cycle, else its events.
fn describe(x: &Execution, r: &CheckResult) -> String {
    match &r.cycle {
        Some(c) => x.render_cycle(c),
        None => x
            .events
            .iter()
            .map(|e| e.label.as_str())
            .collect::<Vec<_>>()
            .join("; "),
    }
}

/// How the two answers for one input compare.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Some verdict differs.
    Verdict,
    /// Same verdicts, different final states.
    Outcomes,
    /// A witness of one side is rejected by the other side.
    Replay,
    /// An answer is unknown (timeout).
    Unknown,
    /// Same answers.
    Same,
}

/// The summary's words of `diff`, in order.
const WORDS: [&str; 6] = [
    "verdict differs",
    "witness rejected",
    "outcomes differ",
    "same",
    "unknown",
    "errors",
];

impl Kind {
    /// The summary's word.
    fn word(&self) -> &'static str {
        match self {
            Kind::Verdict => "verdict differs",
            Kind::Replay => "witness rejected",
            Kind::Outcomes => "outcomes differ",
            Kind::Unknown => "unknown",
            Kind::Same => "same",
        }
    }

    /// Listed in the table and the JSON output.
    fn listed(&self, verdicts_only: bool) -> bool {
        match self {
            Kind::Verdict | Kind::Replay | Kind::Unknown => true,
            Kind::Outcomes => !verdicts_only,
            Kind::Same => false,
        }
    }

    /// The exit status this row alone gives.
    fn status(&self, verdicts_only: bool) -> i32 {
        match self {
            Kind::Unknown => 3,
            Kind::Same => 0,
            k if k.listed(verdicts_only) => 1,
            _ => 0,
        }
    }
}

/// The record of one input ([`crate::cli::shard::Record`]): its row
/// (`meta.row`, listed or not) or its error.
fn record(
    file: &str,
    (x, y): (&Result<Answer, Error>, &Result<Answer, Error>),
    a: &DiffArgs,
    labels: &[String],
) -> crate::cli::shard::Record {
    let mut rec = crate::cli::shard::record(file, 0);
    match (x, y) {
        (Ok(x), Ok(y)) => {
            let r = compare(file, x, y);
            rec.summary = vec![r.kind.word().into()];
            rec.status = r.kind.status(a.verdicts_only);
            let j = json_row(&r, labels);
            if r.kind.listed(a.verdicts_only) {
                rec.json = vec![j.clone()];
            }
            rec.meta = serde_json::json!({ "row": j });
        }
        (Err(e), _) | (_, Err(e)) => {
            rec.summary = vec!["errors".into()];
            rec.status = 2;
            rec.error = Some(e.to_string());
            rec.json = vec![serde_json::json!({"file": file, "error": e.to_string()})];
        }
    }
    rec
}

/// The text table of merged `diff` records (`bmc-rmm merge`): the rows
/// read back from each record's `meta.row`; `meta` is the shards'
/// header data (column titles, `--verdicts-only`, input count).
pub fn merged_table(meta: &serde_json::Value, recs: &[&crate::cli::shard::Record]) -> String {
    let strs = |v: &serde_json::Value| -> Vec<String> {
        (v.as_array().into_iter().flatten())
            .map(|x| x.as_str().unwrap_or("").to_string())
            .collect()
    };
    let labels = strs(&meta["labels"]);
    let verdicts_only = meta["verdicts_only"].as_bool().unwrap_or(false);
    let inputs = meta["inputs"].as_u64().unwrap_or(recs.len() as u64) as usize;
    let rows: Vec<Row> = (recs.iter())
        .filter_map(|r| row_from_json(r.meta.get("row")?))
        .collect();
    render_table(&rows, &labels, verdicts_only, inputs)
}

/// Reads back a row written by [`json_row`].
fn row_from_json(j: &serde_json::Value) -> Option<Row> {
    let s = |v: &serde_json::Value| v.as_str().unwrap_or("").to_string();
    let kind = match j["kind"].as_str()? {
        "verdict" => Kind::Verdict,
        "witness-rejected" => Kind::Replay,
        "outcomes" => Kind::Outcomes,
        "unknown" => Kind::Unknown,
        _ => Kind::Same,
    };
    let only = |i: usize| -> Vec<String> {
        (j["only"][i].as_array().into_iter().flatten())
            .map(s)
            .collect()
    };
    let rejected = |i: usize| -> Vec<(String, String, String)> {
        (j["rejected"][i].as_array().into_iter().flatten())
            .map(|r| (s(&r["check"]), s(&r["witness"]), s(&r["why"])))
            .collect()
    };
    Some(Row {
        file: s(&j["file"]),
        kind,
        verdicts: (j["verdicts"].as_array()?.iter())
            .map(|v| (s(&v["check"]), [s(&v["verdicts"][0]), s(&v["verdicts"][1])]))
            .collect(),
        only: [only(0), only(1)],
        rejected: [rejected(0), rejected(1)],
    })
}

/// One input's comparison.
#[derive(Clone, Debug)]
pub struct Row {
    /// The input.
    pub file: String,
    /// How the answers compare.
    pub kind: Kind,
    /// Per check (`litmus`, or `reach` and `robust`): the two verdicts.
    pub verdicts: Vec<(String, [String; 2])>,
    /// Final states only the first model allows, only the second allows.
    pub only: [Vec<String>; 2],
    /// Witnesses of side i rejected by the other side: (check, witness,
    /// why).
    pub rejected: [Vec<(String, String, String)>; 2],
}

fn compare(file: &str, a: &Answer, b: &Answer) -> Row {
    let mut row = Row {
        file: file.to_string(),
        kind: Kind::Same,
        verdicts: Vec::new(),
        only: [Vec::new(), Vec::new()],
        rejected: [Vec::new(), Vec::new()],
    };
    // Herd's verdict words of a litmus test; the answers of a program
    // compared as any two engines' answers are.
    let mut disagree = false;
    match (a, b) {
        (
            Answer::Litmus {
                verdict: va,
                states: sa,
                flags: fa,
            },
            Answer::Litmus {
                verdict: vb,
                states: sb,
                flags: fb,
            },
        ) => {
            row.verdicts
                .push(("litmus".into(), [va.clone(), vb.clone()]));
            disagree = va != vb;
            if fa != fb {
                // herd's `Flag` lines: a changed flag is a changed answer.
                let words = [fa, fb].map(|f| match f.is_empty() {
                    true => "no flag".to_string(),
                    false => f.join(" "),
                });
                row.verdicts.push(("flags".into(), words));
                disagree = true;
            }
            row.only[0] = sa.iter().filter(|s| !sb.contains(s)).cloned().collect();
            row.only[1] = sb.iter().filter(|s| !sa.contains(s)).cloned().collect();
        }
        (Answer::Program(va, ra), Answer::Program(vb, rb)) => {
            for ((k, x), (_, y)) in va.iter().zip(vb) {
                let words = [verdict_word(*k, x.verdict), verdict_word(*k, y.verdict)];
                row.verdicts
                    .push((check_name(*k).into(), words.map(String::from)));
                disagree |= x.compare(y) == Agreement::Disagree;
            }
            for (i, reps) in [ra, rb].into_iter().enumerate() {
                for r in reps {
                    if let Err(why) = &r.result {
                        row.rejected[i].push((
                            check_name(r.check).into(),
                            r.witness.clone(),
                            why.clone(),
                        ));
                    }
                }
            }
        }
        // Cannot happen: both answers come from the same file.
        _ => row.kind = Kind::Unknown,
    }
    if row.kind == Kind::Unknown || a.unknown() || b.unknown() {
        row.kind = Kind::Unknown;
        row.only = [Vec::new(), Vec::new()];
    } else if disagree {
        row.kind = Kind::Verdict;
    } else if !row.rejected[0].is_empty() || !row.rejected[1].is_empty() {
        row.kind = Kind::Replay;
    } else if !row.only[0].is_empty() || !row.only[1].is_empty() {
        row.kind = Kind::Outcomes;
    }
    row
}

fn check_name(k: CheckKind) -> &'static str {
    match k {
        CheckKind::Reach => "reach",
        CheckKind::Robust => "robust",
    }
}

/// The two sides of the comparison: `--models A,B` on `--solver`, or
/// `--solvers A,B` with `--model`.
///
/// Errors: neither or both of two models and two solvers; an unknown
/// model or solver; a solver this build lacks.
fn sides(a: &DiffArgs) -> Result<[Side; 2], Error> {
    match (&a.models, &a.solvers) {
        (Some(ms), None) => {
            if ms.len() != 2 || ms.iter().any(|m| m.trim().is_empty()) {
                return Err(Error::Usage(format!(
                    "--models takes two models separated by a comma (e.g. --models sc,tso), got `{}`",
                    ms.join(",")
                )));
            }
            a.solver.available()?;
            let side = |m: &String| -> Result<Side, Error> {
                // A herd configuration: its model and macro file.
                let conf = match m.ends_with(".cfg") {
                    true => Some(super::litmus::ConfModel::load(m, &a.include)?),
                    false => None,
                };
                let model = match &conf {
                    Some(cm) => cm.model.clone()?,
                    None => load_model_spec(m)?,
                };
                bmc_rmm::engines::bounded::validate(a.solver, &model)?;
                Ok(Side {
                    label: m.clone(),
                    model,
                    model_name: m.clone(),
                    solver: a.solver,
                    conf,
                })
            };
            Ok([side(&ms[0])?, side(&ms[1])?])
        }
        (None, Some(ss)) => {
            let kinds = SolverKind::parse_list(&ss.join(","))?;
            if kinds.len() != 2 {
                return Err(Error::Usage(format!(
                    "--solvers takes two solvers separated by a comma (e.g. --solvers varisat,z3), got `{}`",
                    ss.join(",")
                )));
            }
            let spec = a.model.as_deref().unwrap_or("tso");
            let side = |k: SolverKind| -> Result<Side, Error> {
                let model = load_model_spec(spec)?;
                bmc_rmm::engines::bounded::validate(k, &model)?;
                Ok(Side {
                    label: k.name().into(),
                    model,
                    model_name: spec.to_string(),
                    solver: k,
                    conf: None,
                })
            };
            Ok([side(kinds[0])?, side(kinds[1])?])
        }
        _ => Err(Error::Usage(
            "give either --models A,B (two models) or --solvers A,B with --model M (two solvers)"
                .into(),
        )),
    }
}

/// Runs the command; returns the exit status (see the module doc).
///
/// Errors: not exactly two models, an unknown model name, a bad model
/// file, no or missing inputs, bad numeric options, `-j 0`.
pub fn run(a: &DiffArgs) -> Result<i32, Error> {
    if a.files.is_empty() {
        return Err(Error::Usage("no input FILE given".into()));
    }
    if a.bound == Some(0) {
        return Err(Error::Usage("--bound must be at least 1".into()));
    }
    let sides = sides(a)?;
    // Under herd configurations the inputs are C litmus tests.
    let exts: &[&str] = match sides.iter().any(|s| s.conf.is_some()) {
        true => &["litmus"],
        false => &["litmus", "rmm", "txt"],
    };
    let files = crate::cli::inputs::expand(&a.files, exts)?;
    if files.is_empty() {
        return Err(Error::Usage("no input file found".into()));
    }
    let labels: Vec<String> = sides.iter().map(|s| s.label.clone()).collect();
    let describe = crate::cli::shard::Describe {
        command: "diff",
        what: "inputs",
        words: &WORDS,
        model: "",
        aliases: &[],
        meta: serde_json::json!({
            "labels": labels, "verdicts_only": a.verdicts_only, "inputs": files.len(),
        }),
    };
    let (shard, files) = crate::cli::shard::Shard::select(&a.batch.shard, describe, files)?;
    let jobs: Vec<(usize, usize)> = (0..files.len()).flat_map(|i| [(i, 0), (i, 1)]).collect();
    let opts = BatchOptions::new(a.batch.jobs, a.batch.quiet || a.json);
    let mut summary = Summary::new("inputs", &WORDS);
    // Comparing solvers: replay each side's witnesses on the other side.
    let replay = sides[0].solver != sides[1].solver;
    // With --jsonl, an input is recorded when its second side completes.
    let write_error: std::sync::Mutex<Option<Error>> = Default::default();
    let slots: Vec<std::sync::Mutex<Option<Result<Answer, Error>>>> =
        files.iter().map(|_| Default::default()).collect();
    let answers = batch::run(&jobs, &opts, |&(i, m)| {
        let other = replay.then_some(sides[1 - m].solver);
        let ans = answer(&files[i], &sides[m], other, a);
        if shard.records() {
            let mut slot = slots[i].lock().unwrap_or_else(|e| e.into_inner());
            match slot.take() {
                None => *slot = Some(ans.clone()),
                Some(first) => {
                    let pair = if m == 1 {
                        (&first, &ans)
                    } else {
                        (&ans, &first)
                    };
                    if let Err(e) = shard.record(record(&files[i], pair, a, &labels)) {
                        let mut w = write_error.lock().unwrap_or_else(|e| e.into_inner());
                        w.get_or_insert(e);
                    }
                }
            }
        }
        ans
    })?;
    // A record file that cannot be written stops the run.
    if let Some(e) = write_error.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(e);
    }
    let mut rows = Vec::new();
    let mut errors = 0;
    for (i, f) in files.iter().enumerate() {
        match (&answers[2 * i], &answers[2 * i + 1]) {
            (Ok(x), Ok(y)) => {
                let r = compare(f, x, y);
                summary.add(r.kind.word());
                rows.push(r);
            }
            (Err(e), _) | (_, Err(e)) => {
                errors += 1;
                summary.add("errors");
                if a.json {
                    println!("{}", serde_json::json!({"file": f, "error": e.to_string()}));
                } else {
                    eprint!("{e}");
                    if !e.to_string().ends_with('\n') {
                        eprintln!();
                    }
                }
            }
        }
    }
    let listed = |k: &Kind| k.listed(a.verdicts_only);
    if a.json {
        for r in rows.iter().filter(|r| listed(&r.kind)) {
            println!("{}", json_row(r, &labels));
        }
    } else {
        print!(
            "{}",
            render_table(&rows, &labels, a.verdicts_only, files.len())
        );
    }
    if !crate::cli::quiet() {
        eprintln!("{}", summary.render());
    }
    let differs = rows.iter().any(|r| {
        matches!(r.kind, Kind::Verdict | Kind::Replay)
            || (r.kind == Kind::Outcomes && !a.verdicts_only)
    });
    Ok(if errors > 0 {
        2
    } else if differs {
        1
    } else if rows.iter().any(|r| r.kind == Kind::Unknown) {
        3
    } else {
        0
    })
}

fn json_row(r: &Row, models: &[String]) -> serde_json::Value {
    let kind = match r.kind {
        Kind::Verdict => "verdict",
        Kind::Replay => "witness-rejected",
        Kind::Outcomes => "outcomes",
        Kind::Unknown => "unknown",
        Kind::Same => "same",
    };
    serde_json::json!({
        "file": r.file,
        "kind": kind,
        "models": models,
        "verdict_differs": r.kind == Kind::Verdict,
        "verdicts": r.verdicts.iter().map(|(c, [x, y])| serde_json::json!({"check": c, "verdicts": [x, y]})).collect::<Vec<_>>(),
        "only": [&r.only[0], &r.only[1]],
        "rejected": r.rejected.iter().map(|v| v.iter().map(|(c, w, why)| serde_json::json!({"check": c, "witness": w, "why": why})).collect::<Vec<_>>()).collect::<Vec<_>>(),
    })
}

/// The text table: `diff A vs B` header, then the sections (see the
/// module doc); each row is `FILE  CHECK  VERDICT-A  VERDICT-B`, followed
/// by `only A: state` / `only B: state` lines for litmus tests.
pub fn render_table(rows: &[Row], models: &[String], verdicts_only: bool, inputs: usize) -> String {
    let mut s = format!("diff {} vs {} ({inputs} inputs)\n", models[0], models[1]);
    let mut sections = vec![
        (Kind::Verdict, "verdict differs"),
        (Kind::Replay, "witness rejected by the other side"),
    ];
    if !verdicts_only {
        sections.push((Kind::Outcomes, "same verdict, different final states"));
    }
    sections.push((Kind::Unknown, "unknown (timeout)"));
    let fw = rows.iter().map(|r| r.file.len()).max().unwrap_or(4).max(4);
    let vw = rows
        .iter()
        .flat_map(|r| {
            r.verdicts
                .iter()
                .flat_map(|(_, v)| v.iter().map(|x| x.len()))
        })
        .chain(models.iter().map(|m| m.len()))
        .max()
        .unwrap_or(9);
    for (kind, title) in sections {
        let sel: Vec<&Row> = rows.iter().filter(|r| r.kind == kind).collect();
        if sel.is_empty() {
            if kind == Kind::Verdict {
                s.push_str("\nno verdict differs\n");
            }
            continue;
        }
        s.push_str(&format!("\n{title} ({}):\n", sel.len()));
        s.push_str(&format!(
            "{:fw$}  {:6}  {:vw$}  {}\n",
            "FILE", "CHECK", models[0], models[1]
        ));
        for r in sel {
            for (c, [x, y]) in &r.verdicts {
                if kind == Kind::Verdict && x == y && r.verdicts.len() > 1 {
                    continue;
                }
                s.push_str(format!("{:fw$}  {:6}  {:vw$}  {}\n", r.file, c, x, y).trim_end());
                s.push('\n');
            }
            for (m, only) in models.iter().zip(&r.only) {
                for st in only {
                    s.push_str(&format!("    only {m}: {}\n", st.trim_end()));
                }
            }
            for (i, rej) in r.rejected.iter().enumerate() {
                for (c, w, why) in rej {
                    s.push_str(&format!(
                        "    {c} witness of {} rejected by {}: {why}\n      {w}\n",
                        models[i],
                        models[1 - i]
                    ));
                }
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compares_litmus_answers() {
        let a = Answer::Litmus {
            verdict: "Forbidden".into(),
            states: vec!["0:EAX=1;".into()],
            flags: vec![],
        };
        let b = Answer::Litmus {
            verdict: "Allowed".into(),
            states: vec!["0:EAX=0;".into(), "0:EAX=1;".into()],
            flags: vec![],
        };
        let r = compare("t.litmus", &a, &b);
        assert_eq!(r.kind, Kind::Verdict);
        assert!(r.only[0].is_empty());
        assert_eq!(r.only[1], vec!["0:EAX=0;".to_string()]);
        let t = render_table(&[r], &["sc".into(), "tso".into()], false, 1);
        assert!(t.contains("t.litmus  litmus  Forbidden  Allowed"), "{t}");
        assert!(t.contains("    only tso: 0:EAX=0;"), "{t}");
        let u = Answer::Litmus {
            verdict: "Unknown".into(),
            states: vec![],
            flags: vec![],
        };
        assert_eq!(compare("t", &a, &u).kind, Kind::Unknown);
        assert_eq!(compare("t", &a, &a).kind, Kind::Same);
        // The same states and verdict with another flag: a difference.
        let f = Answer::Litmus {
            verdict: "Forbidden".into(),
            states: vec!["0:EAX=1;".into()],
            flags: vec!["data-race".into()],
        };
        let r = compare("t", &a, &f);
        assert_eq!(r.kind, Kind::Verdict);
        assert_eq!(r.verdicts[1].1, ["no flag".to_string(), "data-race".into()]);
    }

    /// A bounded engine's answer at bound 4.
    fn answer(v: Verdict) -> bmc_rmm::answer::Answer {
        let mut a = bmc_rmm::answer::Answer::new(v, bmc_rmm::answer::Scope::Bound(4));
        if v == Verdict::Violation {
            a.stats.push((bmc_rmm::answer::STEPS_PER_THREAD, 4));
        }
        a
    }

    #[test]
    fn program_verdicts_that_differ_are_listed() {
        let a = Answer::Program(
            vec![(CheckKind::Robust, answer(Verdict::Violation))],
            vec![],
        );
        let b = Answer::Program(
            vec![(CheckKind::Robust, answer(Verdict::NoViolation))],
            vec![],
        );
        let r = compare("p.rmm", &a, &b);
        assert_eq!(r.kind, Kind::Verdict);
        assert_eq!(r.verdicts[0].1, ["not-robust".to_string(), "robust".into()]);
        let u = Answer::Program(vec![(CheckKind::Robust, answer(Verdict::Unknown))], vec![]);
        assert_eq!(compare("p.rmm", &a, &u).kind, Kind::Unknown);
    }

    #[test]
    fn rejected_witnesses_are_listed() {
        let ok = Answer::Program(
            vec![
                (CheckKind::Reach, answer(Verdict::NoViolation)),
                (CheckKind::Robust, answer(Verdict::Violation)),
            ],
            vec![Replay {
                check: CheckKind::Robust,
                result: Ok(()),
                witness: "t0:W x=1 -po-> t0:R y=0".into(),
            }],
        );
        let bad = Answer::Program(
            vec![
                (CheckKind::Reach, answer(Verdict::NoViolation)),
                (CheckKind::Robust, answer(Verdict::Violation)),
            ],
            vec![Replay {
                check: CheckKind::Robust,
                result: Err("not an execution consistent with the model".into()),
                witness: "t1:W y=1 -po-> t1:R x=0".into(),
            }],
        );
        assert_eq!(compare("p.rmm", &ok, &ok).kind, Kind::Same);
        let r = compare("p.rmm", &ok, &bad);
        assert_eq!(r.kind, Kind::Replay);
        assert!(r.rejected[0].is_empty());
        assert_eq!(r.rejected[1].len(), 1);
        let t = render_table(
            std::slice::from_ref(&r),
            &["varisat".into(), "z3".into()],
            false,
            1,
        );
        assert!(t.contains("witness rejected by the other side (1):"), "{t}");
        assert!(
            t.contains("robust witness of z3 rejected by varisat: not an execution"),
            "{t}"
        );
        assert!(t.contains("      t1:W y=1 -po-> t1:R x=0"), "{t}");
        let j = json_row(&r, &["varisat".into(), "z3".into()]);
        assert_eq!(j["kind"], "witness-rejected");
        assert_eq!(j["rejected"][1][0]["check"], "robust");
    }

    #[test]
    fn model_specs() {
        assert!(load_model_spec("sc").is_ok());
        assert!(matches!(
            load_model_spec("nosuch"),
            Err(Error::UnknownName(_))
        ));
        assert!(matches!(
            load_model_spec("nosuch.cat"),
            Err(Error::Io { .. })
        ));
    }
}
