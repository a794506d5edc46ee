//! `bmc-rmm fuzz-diff`: the differential runner ([`bmc_rmm::fuzz::run`])
//! on `--count` generated programs from `--seed`; prints each
//! disagreement (shrunk, and written to `--out`) and the summary table.

use super::args::FuzzDiffArgs;
use bmc_rmm::ask::Question;
use bmc_rmm::diag::Error;
use bmc_rmm::fuzz::run::{Options, Runner, Summary};
use std::time::{Duration, Instant};

/// Runs `bmc-rmm fuzz-diff`: exit 1 on any disagreement or engine
/// failure, else 0.
///
/// Errors: an unknown model or check name (usage).
pub fn run(a: &FuzzDiffArgs) -> Result<i32, Error> {
    let questions = a
        .checks
        .iter()
        .map(|c| match c.as_str() {
            "reach" => Ok(Question::Reach),
            "robust" => Ok(Question::Robust),
            o => Err(Error::Usage(format!(
                "--checks takes reach and robust, not `{o}`"
            ))),
        })
        .collect::<Result<Vec<_>, _>>()?;
    if a.models.is_empty() || questions.is_empty() {
        return Err(Error::Usage("--models and --checks need a name".into()));
    }
    let runner = Runner::new(Options {
        seed: a.seed,
        models: a.models.clone(),
        questions,
        bound: a.bound,
        rounds: a.rounds,
        width: a.width,
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
