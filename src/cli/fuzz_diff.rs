//! `bmc-rmm fuzz-diff`: the differential runner ([`bmc_rmm::fuzz::run`])
//! on `--count` generated programs from `--seed`; prints each
//! disagreement (shrunk, and written to `--out`) and the summary table.

use super::args::FuzzDiffArgs;
use bmc_rmm::ask::Question;
use bmc_rmm::diag::Error;
use bmc_rmm::fuzz::lang::Lang;
use bmc_rmm::fuzz::run::{Options, Runner, Summary};
use std::time::{Duration, Instant};

/// Runs `bmc-rmm fuzz-diff`: exit 1 on any disagreement or engine
/// failure, else 0.
///
/// Errors: an unknown language, model or check name (usage).
pub fn run(a: &FuzzDiffArgs) -> Result<i32, Error> {
    let lang = Lang::from_name(&a.lang)
        .ok_or_else(|| Error::Usage(format!("--lang takes native or c, not `{}`", a.lang)))?;
    let (models, checks, width) = match lang {
        Lang::Native => ("sc,tso,pso,rmo,power,pgas", "reach,robust", 4),
        Lang::C => ("sc,tso,pso", "reach", 6),
    };
    let or = |given: &[String], default: &str| -> Vec<String> {
        if given.is_empty() {
            default.split(',').map(String::from).collect()
        } else {
            given.to_vec()
        }
    };
    let (models, checks) = (or(&a.models, models), or(&a.checks, checks));
    let questions = checks
        .iter()
        .map(|c| match c.as_str() {
            "reach" => Ok(Question::Reach),
            "robust" => Ok(Question::Robust),
            o => Err(Error::Usage(format!(
                "--checks takes reach and robust, not `{o}`"
            ))),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let runner = Runner::new(Options {
        seed: a.seed,
        models,
        questions,
        bound: a.bound,
        rounds: a.rounds,
        width: a.width.unwrap_or(width),
        lang,
        unwind: a.unwind,
        timeout: Duration::from_secs_f64(a.timeout),
        out: a.out.as_ref().map(Into::into),
        ..Options::default()
    })
    .map_err(|e| match e {
        Error::UnknownName(m) => Error::Usage(m),
        e => e,
    })?;
    let start = Instant::now();
    let mut summary = Summary::default();
    let mut failures_seen = 0;
    for i in a.start..a.start + a.count {
        if let Some(dir) = &a.emit {
            emit(&runner, dir, a.seed, i)?;
        }
        for f in runner.check(i, &mut summary) {
            println!(
                "DISAGREEMENT program {} (seed {}) {} {}: {} ({} / {}); shrunk to {} statement(s){}",
                f.index,
                f.seed,
                f.model,
                bmc_rmm::fuzz::run::question_name(f.question),
                f.pair,
                f.shrunk_said.0,
                f.shrunk_said.1,
                f.shrunk.size(),
                f.file
                    .as_ref()
                    .map(|p| format!(": {}", p.display()))
                    .unwrap_or_default()
            );
            if f.file.is_none() {
                print!("{}", f.shrunk.render());
            }
        }
        for x in &summary.failures[failures_seen..] {
            println!("FAILURE {x}");
        }
        failures_seen = summary.failures.len();
        let done = i - a.start + 1;
        if done.is_multiple_of(100) && !super::quiet() {
            eprintln!(
                "{done}/{} programs, {} disagreement(s), {:.0} s",
                a.count,
                summary.disagreements(),
                start.elapsed().as_secs_f64()
            );
        }
    }
    print!("{}", summary.table());
    println!("{:.1} s", start.elapsed().as_secs_f64());
    Ok(i32::from(
        summary.disagreements() > 0 || !summary.failures.is_empty(),
    ))
}

/// Writes program `i` of the run into `dir`.
///
/// Errors: the directory or file cannot be written.
fn emit(runner: &Runner, dir: &str, seed: u64, i: u64) -> Result<(), Error> {
    let (_, model, p) = runner.program(i);
    let path = std::path::Path::new(dir).join(format!("seed{seed}-{i}-{model}.{}", p.extension()));
    let io = |e: std::io::Error| Error::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    };
    std::fs::create_dir_all(dir).map_err(io)?;
    std::fs::write(&path, p.render()).map_err(io)
}
