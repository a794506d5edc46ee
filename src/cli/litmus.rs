//! `bmc-rmm litmus`: runs many litmus tests in one process, in parallel
//! ([`crate::cli::batch`]), each with its own timeout; prints herd-format blocks
//! (or JSON records) in input order, a summary line, and with `--expect`
//! the comparison with an expectations file.

use super::args::LitmusArgs;
use super::batch::setup;
use super::render::litmus_verdict_word as verdict_word;
use crate::cli::expect::{self, Check, Compared};
use bmc_rmm::diag::{Error, SourceFile};
use bmc_rmm::litmus::{self, herd, run::LitmusResult, LitmusTest};
use bmc_rmm::program::Width;

/// One test's outcome: the parsed test and its result, or a parse error.
pub type Outcome = (String, Result<(LitmusTest, LitmusResult), Error>);

/// Parses and runs one test: `width` (default: automatic per test),
/// `bound` steps per thread, `timeout` seconds from the start of the run,
/// on the `solver` backend.
///
/// Errors: the file cannot be read or parsed; the backend cannot encode it.
pub fn run_one(
    file: &str,
    model: &bmc_rmm::cat::Model,
    bound: u32,
    width: Option<u32>,
    timeout: f64,
    solver: bmc_rmm::bounded::SolverKind,
) -> Result<(LitmusTest, LitmusResult), Error> {
    let src = SourceFile::read(file)?;
    let t = bmc_rmm::frontend::litmus::parse(&src, Width(width.unwrap_or(32)))?;
    let w = width
        .map(Width)
        .unwrap_or_else(|| litmus::run::auto_width(&t));
    let deadline = crate::cli::batch::deadline(Some(timeout));
    let r = litmus::run::run(&t, model, bound, w, deadline, solver)?;
    Ok((t, r))
}

/// Parses and runs every test; results in input order.
///
/// Errors: the worker pool cannot be created (`-j 0`).
pub fn run_all(
    files: &[String],
    a: &LitmusArgs,
    model: &bmc_rmm::cat::Model,
    opts: &crate::cli::batch::BatchOptions,
) -> Result<Vec<Outcome>, Error> {
    let size = |f: &String| std::fs::metadata(f).map_or(0, |m| m.len());
    crate::cli::batch::run_heaviest_first(files, size, opts, |f| {
        (
            f.clone(),
            run_one(f, model, a.bound, a.width, a.timeout, a.solver),
        )
    })
}

/// Runs the command. Exit status: 2 if some test could not be read; else
/// with `--expect` 1 on any mismatch; else 3 if some test timed out
/// (without `--expect`, or without a row); else 0.
///
/// Errors: usage errors, a bad model, a malformed expectations file, a
/// missing input, an unwritable `--write-expect` file.
pub fn run(a: &LitmusArgs) -> Result<i32, Error> {
    if a.files.is_empty() {
        return Err(Error::Usage("no input FILE given".into()));
    }
    if a.bound == 0 {
        return Err(Error::Usage("--bound must be at least 1".into()));
    }
    let (model, model_name, aliases, exp, files) =
        setup(&a.model, a.solver, &a.expectations, &a.files, &["litmus"])?.into_parts();
    let opts = crate::cli::batch::BatchOptions::new(a.batch.jobs, a.batch.quiet || a.json);
    let mut summary =
        crate::cli::batch::Summary::new("tests", &["allowed", "forbidden", "unknown"]);
    let results = run_all(&files, a, &model, &opts)?;
    let mut errors = 0;
    let mut unknown_unmatched = false;
    let mut cmp = expect::Comparison::default();
    let mut records = Vec::new();
    let mut out = String::new();
    for (f, r) in &results {
        match r {
            Ok((t, res)) => {
                let word = verdict_word(res);
                summary.add(&word.to_ascii_lowercase());
                let compared = exp
                    .as_ref()
                    .map(|e| cmp.compare(e, f, &model_name, &aliases, Check::Litmus, word));
                if res.observation.is_none() && matches!(compared, None | Some(Compared::Missing)) {
                    unknown_unmatched = true;
                }
                if a.expectations.write_expect.is_some() {
                    records.push(expect::Record {
                        arch: t.arch.keyword().into(),
                        file: f.clone(),
                        model: aliases[0].clone(),
                        verdict: word.into(),
                    });
                }
                if a.json {
                    let mut rec = serde_json::json!({
                        "file": f, "test": t.name, "model": model_name, "solver": a.solver,
                        "verdict": res.observation.map(|o| o.verdict().as_str()),
                        "observation": res.observation.map(|o| o.as_str()),
                        "states": res.states.iter().map(|s| t.state_line(s)).collect::<Vec<_>>(),
                        "condition": t.condition_text(), "time": res.time, "width": res.width,
                        "unknown": res.unknown, "stats": res.stats,
                    });
                    if let Some(c) = &compared {
                        c.annotate(&mut rec, word);
                    }
                    out.push_str(&rec.to_string());
                    out.push('\n');
                } else if let Some(why) = &res.unknown {
                    out.push_str(&format!(
                        "Test {} unknown: {}\n\n",
                        t.name,
                        why.trim_start_matches("unknown: ")
                    ));
                } else {
                    out.push_str(&herd::render(t, &res.states, None, res.time));
                    out.push('\n');
                }
            }
            Err(e) => {
                errors += 1;
                summary.add("errors");
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
    if !a.json {
        for m in &cmp.mismatches {
            out.push_str(m);
            out.push('\n');
        }
    }
    print!("{out}");
    if let Some(path) = &a.expectations.write_expect {
        expect::write(path, &records)?;
    }
    eprintln!("{}", summary.render());
    if let Some(e) = &exp {
        eprintln!("{}", cmp.render(e));
    }
    Ok(if errors > 0 {
        2
    } else if !cmp.mismatches.is_empty() {
        1
    } else if unknown_unmatched {
        3
    } else {
        0
    })
}
