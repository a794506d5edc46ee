//! `bmc-rmm litmus`: runs many litmus tests in one process, in parallel
//! ([`crate::cli::batch`]), each with its own timeout; prints herd-format blocks
//! (or JSON records) in input order, a summary line, and with `--expect`
//! the comparison with an expectations file.

use super::args::LitmusArgs;
use super::batch::setup;
pub use super::render::litmus::Parts;
use crate::cli::expect;
use bmc_rmm::ask;
use bmc_rmm::diag::{Error, SourceFile};
use bmc_rmm::frontend::litmus::LitmusTest;
use bmc_rmm::program::Width;

/// Parses one test and asks for its outcomes ([`bmc_rmm::ask`],
/// [`Question::Outcomes`](bmc_rmm::ask::Question::Outcomes)): `width`
/// (default: automatic per test), `bound` steps per thread, `timeout`
/// seconds, on the `solver` backend, enumerating candidates within
/// `budget`.
///
/// Errors: the file cannot be read or parsed; the backend cannot encode it.
pub fn run_one(
    file: &str,
    model: &bmc_rmm::cat::Model,
    o: &RunOptions,
) -> Result<(LitmusTest, ask::Reply), Error> {
    let src = SourceFile::read(file)?;
    let t = bmc_rmm::frontend::litmus::parse(&src, Width(o.width.unwrap_or(Width::MAX.0)))?;
    let mut req = ask::Request::outcomes(&t, model, o.bound);
    req.engine = ask::EngineChoice::Bounded(Some(o.solver));
    if let Some(w) = o.width {
        req.width = w;
    }
    req.timeout = Some(std::time::Duration::from_secs_f64(o.timeout));
    req.alone = false;
    req.budget = o.budget;
    req.switches = o.switches;
    let reply = ask::ask(&req)?.remove(0);
    Ok((t, reply))
}

/// How [`run_one`] runs a test.
pub struct RunOptions {
    /// Steps per thread (before [`bmc_rmm::litmus::run::effective_bound`]).
    pub bound: u32,
    /// Bit-width of values; `None`: [`bmc_rmm::litmus::run::auto_width`].
    pub width: Option<u32>,
    /// Seconds from the start of the run.
    pub timeout: f64,
    /// The backend.
    pub solver: bmc_rmm::engines::bounded::SolverKind,
    /// The enumeration engine's budget ([`bmc_rmm::litmus::run::run_with`]).
    pub budget: Option<usize>,
    /// Developer switches (`BMC_*` variables).
    pub switches: bmc_rmm::engines::Switches,
}

impl RunOptions {
    /// The options `litmus` gives on its command line.
    pub fn of(a: &LitmusArgs) -> RunOptions {
        RunOptions {
            bound: a.bound,
            width: a.width,
            timeout: a.timeout,
            solver: a.solver,
            budget: a.enumerate.budget(),
            switches: a.switches,
        }
    }
}

/// The record of one test's outcome ([`crate::cli::shard::Record`]):
/// its verdict word, JSON record, herd block (text output), herd-log
/// block (with `Hash=`), each only when `parts` asks for it, or its
/// error.
pub fn present(
    f: &str,
    r: &Result<(LitmusTest, ask::Reply), Error>,
    model_name: &str,
    solver: bmc_rmm::engines::bounded::SolverKind,
    parts: Parts,
) -> crate::cli::shard::Record {
    match r {
        Ok((t, reply)) => {
            let mut ctx = super::render::Context::new(f, &t.program, model_name);
            ctx.solver = solver;
            ctx.litmus = Some((t, parts));
            super::render::show(&ctx, reply)
        }
        Err(e) => {
            let mut rec = crate::cli::shard::record(f, 2);
            rec.summary = vec!["errors".into()];
            rec.error = Some(e.to_string());
            rec.json = vec![serde_json::json!({"file": f, "error": e.to_string()})];
            rec
        }
    }
}

/// Runs the command. Exit status: 2 if some test could not be read; else
/// with `--expect` 1 on any mismatch; else 3 if some test timed out
/// (without `--expect`, or without a row); else 0.
///
/// Errors: usage errors, a bad model, a malformed expectations file, a
/// missing input, an unwritable `--write-expect` or `--jsonl` file.
pub fn run(a: &LitmusArgs) -> Result<i32, Error> {
    use crate::cli::report::{report, Mode};
    use crate::cli::shard::{Describe, Shard};
    if a.files.is_empty() {
        return Err(Error::Usage("no input FILE given".into()));
    }
    if a.bound == 0 {
        return Err(Error::Usage("--bound must be at least 1".into()));
    }
    super::certify::validate_litmus(a)?;
    if let Some(conf) = &a.conf {
        return run_conf(a, conf);
    }
    let (model, model_name, aliases, exp, files) =
        setup(&a.model, a.solver, &a.expectations, &a.files, &["litmus"])?.into_parts();
    const WORDS: [&str; 3] = ["allowed", "forbidden", "unknown"];
    let describe = Describe {
        command: "litmus",
        what: "tests",
        words: &WORDS,
        model: &model_name,
        aliases: &aliases,
        meta: serde_json::Value::Null,
    };
    let (shard, files) = Shard::select(&a.batch.shard, describe, files)?;
    let opts =
        crate::cli::batch::BatchOptions::new(a.batch.jobs, a.batch.quiet || a.json || a.herd_log);
    let summary = crate::cli::batch::Summary::new("tests", &WORDS);
    // Build only what is printed or written (a record file keeps all).
    let parts = Parts {
        json: a.json || shard.records(),
        text: !(a.json || a.herd_log) || shard.records(),
        herd_log: a.herd_log || shard.records(),
    };
    let size = |f: &String| std::fs::metadata(f).map_or(0, |m| m.len());
    let run_options = RunOptions::of(a);
    let results = crate::cli::batch::run_heaviest_first(&files, size, &opts, |f| {
        let r = match &a.certify {
            Some(dir) => super::certify::litmus_reply(f, &model, a, (dir, &files)),
            None => run_one(f, &model, &run_options),
        };
        let rec = present(f, &r, &model_name, a.solver, parts);
        let written = if shard.records() || crate::cli::verbose() {
            shard.record(rec.clone())
        } else {
            Ok(())
        };
        (rec, written)
    })?;
    let mut recs = Vec::new();
    for (rec, written) in &results {
        written.clone()?;
        recs.push(rec);
    }
    let mode = if a.json {
        Mode::Json
    } else if a.herd_log {
        Mode::Herd
    } else {
        Mode::Text
    };
    let rep = report(&recs, &model_name, &aliases, exp.as_ref(), mode, summary);
    print!("{}", rep.stdout);
    if let Some(path) = &a.expectations.write_expect {
        let records: Vec<expect::Record> = (recs.iter())
            .filter_map(|r| {
                let (_, word) = r.checks.first()?;
                Some(expect::Record {
                    arch: r.meta["arch"].as_str().unwrap_or("").into(),
                    file: r.input.clone(),
                    model: aliases[0].clone(),
                    verdict: word.clone(),
                })
            })
            .collect();
        expect::write(path, &records)?;
    }
    eprint!("{}", rep.stderr);
    Ok(rep.status)
}

/// `litmus --conf CFG [-I DIR]… FILES`: C litmus tests under the model
/// and macro file of herd's configuration `CFG`, each answered with
/// herd's block (`Test`, `States`, `Ok`/`No`, `Witnesses`, herd's `Flag`
/// lines, `Condition`, `Observation`, `Time`), in input order. A test is
/// refused (on stderr, `FILE: LOCATED ERROR`) when it or the model has
/// a construct this tool does not read yet; it is unknown (on stderr,
/// `FILE: unknown: REASON`) when its timeout passes before its flags are
/// decided (a model with flags is answered only by visiting every
/// candidate execution, [`bmc_rmm::litmus::run`]). Exit status 2 when
/// some test is refused, else 3 when some is unknown, else 0.
///
/// Errors: the configuration cannot be read, or names a missing file;
/// the macro file's syntax errors; a missing input.
fn run_conf(a: &LitmusArgs, conf: &str) -> Result<i32, Error> {
    conf_usage(a)?;
    let cm = ConfModel::load(conf, &a.include)?;
    let files = crate::cli::inputs::expand(&a.files, &["litmus"])?;
    let opts =
        crate::cli::batch::BatchOptions::new(a.batch.jobs, a.batch.quiet || a.json || a.herd_log);
    let o = RunOptions::of(a);
    let results = crate::cli::batch::run(&files, &opts, |f| run_c(f, &cm, &o))?;
    let mut status = 0;
    for (f, r) in files.iter().zip(&results) {
        match r {
            Ok((t, r)) => {
                if a.json {
                    println!("{}", conf_json(f, t, &cm.path, r));
                }
                match (&r.unknown, &r.flags) {
                    (None, Some(flags)) if !a.json => print!(
                        "{}",
                        bmc_rmm::litmus::herd::render_flags(t, &r.states, &flags.fired, r.time)
                    ),
                    (None, _) => {}
                    (Some(why), _) => {
                        eprintln!("{f}: unknown: {}", why.trim_start_matches("unknown: "));
                        if status == 0 {
                            status = 3;
                        }
                    }
                }
            }
            Err(e) => {
                if a.json {
                    println!("{}", serde_json::json!({"file": f, "error": e.to_string()}));
                }
                eprintln!("{f}: {e}");
                status = 2;
            }
        }
    }
    Ok(status)
}

/// The usage errors of `litmus --conf`: the options it does not honour
/// (expectations files, shards and record files, herd's log format) are
/// refused rather than ignored.
///
/// Errors: one of `--expect`, `--write-expect`, `--shard`, `--jsonl`,
/// `--herd-log` given with `--conf`.
fn conf_usage(a: &LitmusArgs) -> Result<(), Error> {
    let given = [
        ("--expect", a.expectations.expect.is_some()),
        ("--write-expect", a.expectations.write_expect.is_some()),
        ("--shard", a.batch.shard.shard.is_some()),
        ("--jsonl", a.batch.shard.jsonl.is_some()),
        ("--herd-log", a.herd_log),
    ];
    match given.iter().find(|(_, on)| *on) {
        Some((flag, _)) => Err(Error::Usage(format!(
            "{flag} is not available with --conf (C litmus tests print herd's blocks or, with --json, one record per test)"
        ))),
        None => Ok(()),
    }
}

/// herd's configuration read for C litmus tests ([`run_c`]): its macro
/// file and its model (a model error is kept and given for each test).
pub struct ConfModel {
    /// The configuration's path as given.
    pub path: String,
    /// The macro file (empty when the configuration names none).
    pub macros: bmc_rmm::frontend::c_litmus::MacroFile,
    /// The model of its `bell` and `model` files.
    pub model: Result<bmc_rmm::cat::Model, Error>,
}

impl ConfModel {
    /// Reads the configuration `conf` with herd's search path (its
    /// folder, then each of `include`), and its macro file.
    ///
    /// Errors: the configuration cannot be read or names a missing file;
    /// the macro file's syntax errors.
    pub fn load(conf: &str, include: &[String]) -> Result<ConfModel, Error> {
        use bmc_rmm::frontend::c_litmus::MacroFile;
        let hc = bmc_rmm::cat::conf::HerdConf::read(conf, include)?;
        let macros = match &hc.macros {
            Some(m) => MacroFile::parse(&SourceFile::read(&m.to_string_lossy())?)?,
            None => MacroFile::parse(&SourceFile::new(hc.source.path.to_string(), ""))?,
        };
        Ok(ConfModel {
            path: conf.to_string(),
            macros,
            model: hc.load_model(),
        })
    }
}

/// Parses the C litmus test `file` with the configuration's macros and
/// enumerates its final states and the model's flags under `o` (width
/// automatic unless given). Under a model with flags the enumeration has
/// no budget: a flag is decided only by visiting the candidates
/// ([`bmc_rmm::litmus::run`]); the result is unknown (`unknown` set) when
/// they are not decided in time.
///
/// Errors: the file cannot be read or parsed; the model's error; a C11
/// read-modify-write under a model other than herd's RC11
/// ([`bmc_rmm::frontend::c_litmus::CLitmus::check_model`]); the backend
/// cannot encode the test.
pub fn run_c(
    file: &str,
    cm: &ConfModel,
    o: &RunOptions,
) -> Result<(LitmusTest, bmc_rmm::litmus::run::LitmusResult), Error> {
    use bmc_rmm::engines::bounded::{Deadline, Limits};
    let src = SourceFile::read(file)?;
    let c = bmc_rmm::frontend::c_litmus::parse(&src, &cm.macros)?;
    let model = cm.model.as_ref().map_err(Clone::clone)?;
    c.check_model(&model.name)?;
    let start = std::time::Instant::now();
    let lim = Limits {
        bound: o.bound,
        width: o
            .width
            .unwrap_or_else(|| bmc_rmm::litmus::run::auto_width(&c.test).0),
        deadline: Deadline(Some(start + std::time::Duration::from_secs_f64(o.timeout))),
        switches: o.switches,
    };
    let budget = if model.flags.is_empty() {
        o.budget
    } else {
        Some(o.budget.unwrap_or(usize::MAX))
    };
    let mut r = bmc_rmm::litmus::run::run_with(&c.test, model, lim, o.solver, budget)?;
    if r.unknown.is_none() && r.flags.is_none() {
        r.unknown = Some("the model's flags need every candidate execution visited".into());
    }
    Ok((c.test, r))
}

/// The model's flags that hold in a decided result, sorted, each once
/// (`None` while unknown).
pub fn fired_flags(r: &bmc_rmm::litmus::run::LitmusResult) -> Option<Vec<String>> {
    let fl = r.flags.as_ref().filter(|_| r.unknown.is_none())?;
    let mut v = fl.fired.clone();
    v.sort();
    v.dedup();
    Some(v)
}

/// The JSON record of one C litmus test under `--conf` (the keys of the
/// other litmus records, with `flags`: [`fired_flags`]).
fn conf_json(
    f: &str,
    t: &LitmusTest,
    conf: &str,
    r: &bmc_rmm::litmus::run::LitmusResult,
) -> serde_json::Value {
    let observation = r.observation.filter(|_| r.unknown.is_none());
    serde_json::json!({
        "file": f, "test": t.name, "model": conf,
        "verdict": observation.map(|o| o.verdict().as_str()),
        "observation": observation.map(|o| o.as_str()),
        "states": r.states.iter().map(|s| t.state_line(s)).collect::<Vec<_>>(),
        "condition": t.condition_text(), "flags": fired_flags(r), "time": r.time,
        "unknown": r.unknown,
    })
}
