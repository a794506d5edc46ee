//! Batch machinery shared by `reach`, `robust`, `litmus` and `diff`:
//! a rayon pool built per run (`-j N`), a progress bar on a terminal
//! (indicatif), per-input deadlines (`--timeout`), results in input order
//! whatever the parallelism, and a final summary (counts per verdict,
//! time).

use bmc_rmm::diag::Error;
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use std::io::IsTerminal;
use std::time::Instant;

/// How a batch runs.
#[derive(Clone, Copy, Debug, Default)]
pub struct BatchOptions {
    /// Worker threads; `None`: one per core.
    pub jobs: Option<usize>,
    /// Show a progress bar on stderr.
    pub progress: bool,
}

impl BatchOptions {
    /// Options for a command: the progress bar is shown only when stderr
    /// is a terminal, `quiet` is not set and `-v` (a line per input) is
    /// not given.
    pub fn new(jobs: Option<usize>, quiet: bool) -> BatchOptions {
        BatchOptions {
            jobs,
            progress: !quiet && !super::verbose() && std::io::stderr().is_terminal(),
        }
    }
}

/// What a batch of checks loads before anything runs (so that a bad
/// model, expectations file or input list stops the run before any
/// output): the model, validated for the solver; the expectations; the
/// expanded inputs.
pub struct Setup {
    /// The model and its names.
    pub model: super::args::LoadedModel,
    /// `--expect`'s rows, if given.
    pub expectations: Option<super::expect::Expectations>,
    /// The input files ([`super::inputs::expand`] with `exts`).
    pub files: Vec<String>,
}

impl Setup {
    /// The parts: model, its printed name, its names in expectations
    /// files, the expectations, the inputs.
    pub fn into_parts(
        self,
    ) -> (
        bmc_rmm::cat::Model,
        String,
        Vec<String>,
        Option<super::expect::Expectations>,
        Vec<String>,
    ) {
        let m = self.model;
        (m.model, m.name, m.aliases, self.expectations, self.files)
    }
}

/// Loads a batch's [`Setup`].
///
/// Errors: those of [`super::args::ModelArgs::load_for`],
/// [`super::args::ExpectArgs::read`] and [`super::inputs::expand`].
pub fn setup(
    model: &super::args::ModelArgs,
    solver: bmc_rmm::engines::bounded::SolverKind,
    expectations: &super::args::ExpectArgs,
    inputs: &[String],
    exts: &[&str],
) -> Result<Setup, Error> {
    Ok(Setup {
        model: model.load_for(solver)?,
        expectations: expectations.read()?,
        files: super::inputs::expand(inputs, exts)?,
    })
}

/// Runs `f` on every item on a fresh pool of `opts.jobs` threads (the
/// global rayon pool is never configured, so runs with different `-j`
/// in one process do not interfere) and returns the results in the
/// order of `items`.
///
/// Errors: `-j 0`, or the pool cannot be created ([`Error::Usage`]).
pub fn run<T, R, F>(items: &[T], opts: &BatchOptions, f: F) -> Result<Vec<R>, Error>
where
    T: Sync,
    R: Send,
    F: Fn(&T) -> R + Sync + Send,
{
    let mut builder = rayon::ThreadPoolBuilder::new();
    if let Some(j) = opts.jobs {
        if j == 0 {
            return Err(Error::Usage("-j/--jobs must be at least 1".into()));
        }
        builder = builder.num_threads(j);
    }
    let pool = builder
        .build()
        .map_err(|e| Error::Usage(format!("cannot start worker threads: {e}")))?;
    let bar = opts.progress.then(|| {
        let b = ProgressBar::new(items.len() as u64);
        b.set_style(
            ProgressStyle::with_template("{bar:40} {pos}/{len} {elapsed} {msg}")
                .unwrap_or(ProgressStyle::default_bar()),
        );
        b
    });
    let out = pool.install(|| {
        items
            .par_iter()
            .map(|it| {
                let r = f(it);
                if let Some(b) = &bar {
                    b.inc(1);
                }
                r
            })
            .collect()
    });
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    Ok(out)
}

/// [`run`], starting the heaviest items first (by `weight`, e.g. a file's
/// size) and returning the results in the order of `items`. A batch's
/// wall time is at least its longest item's: started last, one long item
/// leaves the other workers idle at the end (on X86's litmus suite one
/// test of 525 takes a quarter of the work: `-j 2` was 1.5× faster than
/// `-j 1`, started first 1.8×).
///
/// Errors: those of [`run`].
pub fn run_heaviest_first<T, R, F>(
    items: &[T],
    weight: impl Fn(&T) -> u64,
    opts: &BatchOptions,
    f: F,
) -> Result<Vec<R>, Error>
where
    T: Sync,
    R: Send,
    F: Fn(&T) -> R + Sync + Send,
{
    let mut order: Vec<usize> = (0..items.len()).collect();
    let w: Vec<u64> = items.iter().map(weight).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(w[i]));
    let mut out: Vec<(usize, R)> = run(&order, opts, |&i| (i, f(&items[i])))?;
    out.sort_by_key(|x| x.0);
    Ok(out.into_iter().map(|x| x.1).collect())
}

/// Counts per verdict word, in order of first appearance (so the same
/// inputs always give the same line), and the elapsed time.
#[derive(Clone, Debug)]
pub struct Summary {
    what: String,
    total: usize,
    counts: Vec<(String, usize)>,
    start: Instant,
}

impl Summary {
    /// A summary of `what` (e.g. "tests", "inputs"); the clock starts now.
    /// `words` are listed even with count 0, in this order.
    pub fn new(what: &str, words: &[&str]) -> Summary {
        Summary {
            what: what.to_string(),
            total: 0,
            counts: words.iter().map(|w| (w.to_string(), 0)).collect(),
            start: Instant::now(),
        }
    }

    /// Counts one more result (`total` is the number of results added).
    pub fn add(&mut self, word: &str) {
        self.total += 1;
        match self.counts.iter_mut().find(|(w, _)| w == word) {
            Some((_, n)) => *n += 1,
            None => self.counts.push((word.to_string(), 1)),
        }
    }

    /// The count for `word`.
    #[cfg(test)]
    pub fn count(&self, word: &str) -> usize {
        self.counts
            .iter()
            .find(|(w, _)| w == word)
            .map_or(0, |(_, n)| *n)
    }

    /// `summary: N what: a word, b word, ... in T s`.
    pub fn render(&self) -> String {
        let parts: Vec<String> = self
            .counts
            .iter()
            .map(|(w, n)| format!("{n} {w}"))
            .collect();
        format!(
            "summary: {} {}: {} in {:.2}s",
            self.total,
            self.what,
            parts.join(", "),
            self.start.elapsed().as_secs_f64()
        )
    }
}

/// A batch of `reach`/`robust` inputs whose engine gives one record per
/// input (`--engine smc|lazy|kround`): loads `a`'s inputs (sharded,
/// `--jsonl`), runs `answer` on each (heaviest first, `-j` workers),
/// prints the texts (or JSON lines) in input order and, for several
/// inputs, the summary on stderr. `command` and `model` name the records'
/// check and model (`cli::shard::Describe`).
///
/// Returns the worst exit status. Errors: loading the inputs; those of
/// `answer`; writing the record file.
pub fn run_records(
    a: &super::args::CheckArgs,
    command: &'static str,
    model: &str,
    answer: impl Fn(&str, &bmc_rmm::program::Program) -> Result<super::shard::Record, Error>
        + Sync
        + Send,
) -> Result<i32, Error> {
    let aliases = super::expect::model_aliases(model, None);
    let describe = super::shard::Describe {
        command,
        what: "results",
        words: &[],
        model,
        aliases: &aliases,
        meta: serde_json::Value::Null,
    };
    let (shard, progs) = super::inputs::load_sharded(
        &a.input.files,
        a.input.format,
        a.input.width,
        &a.input.c.options(),
        &a.batch.shard,
        describe,
    )?;
    let opts = BatchOptions::new(a.batch.jobs, a.batch.quiet || a.input.json);
    let mut summary = Summary::new("results", &[]);
    let size = |(f, _): &(String, _)| std::fs::metadata(f).map_or(0, |m| m.len());
    let recs = run_heaviest_first(&progs, size, &opts, |(f, p)| {
        let rec = answer(f, p)?;
        shard.record(rec.clone())?;
        Ok(rec)
    })?
    .into_iter()
    .collect::<Result<Vec<_>, Error>>()?;
    let (mut status, mut out) = (0, String::new());
    for rec in &recs {
        summary.add(&rec.summary[0]);
        status = super::shard::worst(status, rec.status);
        if a.input.json {
            out.push_str(&format!("{}\n", rec.json[0]));
        } else {
            out.push_str(&rec.text);
        }
    }
    print!("{out}");
    if recs.len() > 1 && !super::quiet() {
        eprintln!("{}", summary.render());
    }
    Ok(status)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_input_order_with_any_thread_count() {
        let items: Vec<u64> = (0..200).collect();
        for j in [1, 2, 4] {
            let opts = BatchOptions {
                jobs: Some(j),
                progress: false,
            };
            let out = run(&items, &opts, |x| {
                // Uneven work so that completion order differs from input order.
                std::thread::sleep(std::time::Duration::from_micros((200 - x) % 7 * 50));
                x * 2
            })
            .unwrap();
            assert_eq!(out, items.iter().map(|x| x * 2).collect::<Vec<_>>());
        }
        let bad = BatchOptions {
            jobs: Some(0),
            progress: false,
        };
        assert!(run(&items, &bad, |x| *x).is_err());
    }

    #[test]
    fn summary_counts_in_order() {
        let mut s = Summary::new("tests", &["allowed", "forbidden"]);
        s.add("forbidden");
        s.add("unknown");
        s.add("forbidden");
        assert_eq!(s.count("forbidden"), 2);
        let r = s.render();
        assert!(
            r.starts_with("summary: 3 tests: 0 allowed, 2 forbidden, 1 unknown in "),
            "{r}"
        );
    }
}
