//! `bmc-rmm litmus`: runs many litmus tests in one process, in parallel
//! (rayon), each with its own timeout; prints herd-format blocks (or JSON
//! records) in input order and a summary line.

use crate::cli::LitmusArgs;
use crate::diag::{Error, SourceFile};
use crate::engine::Deadline;
use crate::litmus::{self, herd, run::LitmusResult, LitmusTest};
use crate::program::Width;
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// One test's outcome: the parsed test and its result, or a parse error.
pub type Outcome = (String, Result<(LitmusTest, LitmusResult), Error>);

/// Parses and runs every test; results in input order.
pub fn run_all(
    files: &[String],
    a: &LitmusArgs,
    model: &crate::cat::Model,
    progress: bool,
) -> Vec<Outcome> {
    let bar = if progress {
        let b = ProgressBar::new(files.len() as u64);
        b.set_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} {elapsed} {msg}")
                .unwrap_or(ProgressStyle::default_bar()),
        );
        Some(b)
    } else {
        None
    };
    let out: Vec<Outcome> = files
        .par_iter()
        .map(|f| {
            let r = (|| {
                let src = SourceFile::read(f)?;
                let parse_w = Width(a.width.unwrap_or(32));
                let t = litmus::parse(&src, parse_w)?;
                let w = a
                    .width
                    .map(Width)
                    .unwrap_or_else(|| litmus::run::auto_width(&t));
                let deadline = Deadline(Some(Instant::now() + Duration::from_secs_f64(a.timeout)));
                let r = litmus::run::run(&t, model, a.bound, w, deadline);
                Ok((t, r))
            })();
            if let Some(b) = &bar {
                b.inc(1);
            }
            (f.clone(), r)
        })
        .collect();
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    out
}

/// Runs the command; exit status 0, or 2 if some test could not be read,
/// or 3 if some test timed out.
pub fn run(a: &LitmusArgs) -> Result<i32, Error> {
    if a.files.is_empty() {
        return Err(Error::Usage("no input FILE given".into()));
    }
    if a.bound == 0 {
        return Err(Error::Usage("--bound must be at least 1".into()));
    }
    if a.timeout.is_nan() || a.timeout <= 0.0 {
        return Err(Error::Usage(
            "--timeout must be a positive number of seconds".into(),
        ));
    }
    let model = crate::check::load_model(&a.model, a.model_file.as_deref())?;
    let files = crate::inputs::expand(&a.files, &["litmus"])?;
    if let Some(j) = a.jobs {
        let _ = rayon::ThreadPoolBuilder::new()
            .num_threads(j.max(1))
            .build_global();
    }
    let start = Instant::now();
    let progress = !a.quiet && !a.json && std::io::stderr().is_terminal();
    let results = run_all(&files, a, &model, progress);
    let (mut allowed, mut forbidden, mut unknown, mut errors) = (0, 0, 0, 0);
    let mut out = String::new();
    for (f, r) in &results {
        match r {
            Ok((t, res)) => {
                match res.observation {
                    Some(o) if o.verdict() == herd::Verdict::Allowed => allowed += 1,
                    Some(_) => forbidden += 1,
                    None => unknown += 1,
                }
                if a.json {
                    let rec = serde_json::json!({
                        "file": f, "test": t.name, "model": a.model_file.clone().unwrap_or(a.model.clone()),
                        "verdict": res.observation.map(|o| o.verdict().as_str()),
                        "observation": res.observation.map(|o| o.as_str()),
                        "states": res.states.iter().map(|s| t.state_line(s)).collect::<Vec<_>>(),
                        "condition": t.condition_text(), "time": res.time, "width": res.width,
                        "unknown": res.unknown, "stats": res.stats,
                    });
                    out.push_str(&rec.to_string());
                    out.push('\n');
                } else if let Some(why) = &res.unknown {
                    out.push_str(&format!("Test {} unknown: {why}\n\n", t.name));
                } else {
                    out.push_str(&herd::render(t, &res.states, None, res.time));
                    out.push('\n');
                }
            }
            Err(e) => {
                errors += 1;
                if a.json {
                    out.push_str(
                        &serde_json::json!({"file": f, "error": e.to_string()}).to_string(),
                    );
                    out.push('\n');
                } else {
                    eprint!("{e}");
                }
            }
        }
    }
    print!("{out}");
    if !a.json {
        eprintln!(
            "summary: {} tests, {allowed} allowed, {forbidden} forbidden, {unknown} unknown, {errors} errors in {:.2}s",
            results.len(),
            start.elapsed().as_secs_f64()
        );
    }
    Ok(if errors > 0 {
        2
    } else if unknown > 0 {
        3
    } else {
        0
    })
}
