//! `bmc-rmm [reach|robust]` (the default command) with the bounded
//! engine: loading programs for checking, running the checks in a batch, and
//! writing the results (text, JSON, DOT, expectations).

use super::args::{CheckArgs, Engine};
use super::batch::setup;
use super::render;
use bmc_rmm::ask::Reply;
use bmc_rmm::diag::Error;
use bmc_rmm::engines::bounded::{CheckKind, Verdict};
use bmc_rmm::frontend::{self, Format};
use bmc_rmm::program::Width;

/// Loads a program for checking: parses it, instantiates an SPMD (PGAS)
/// program per rank (`nodes`: `--nodes`, else the file's `nodes N;`,
/// src/program/pgas.rs), and checks that `model` gives PGAS programs a meaning.
///
/// Errors: the file's errors; a PGAS program under a model without `op`.
pub fn load_for_check(
    f: &str,
    format: Option<Format>,
    w: Width,
    copts: &bmc_rmm::frontend::c::Options,
    nodes: Option<u32>,
    model: &bmc_rmm::cat::Model,
    model_name: &str,
) -> Result<bmc_rmm::program::Program, Error> {
    let p = frontend::load_program_with(f, format, w, copts)?;
    let p = bmc_rmm::program::pgas::prepare(p, nodes, w)?;
    if p.nodes.is_some() && !model.uses(bmc_rmm::cat::base::BaseRel::Op) {
        return Err(Error::Usage(format!(
            "{f}: model `{model_name}` has no PGAS semantics (it does not use `op`); use --model pgas or sc"
        )));
    }
    Ok(p)
}

pub use bmc_rmm::ask::effective_bound;

/// Where `--dot` writes: one file, or one file per input and check in a
/// directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DotTarget {
    /// `--dot FILE` with a single input; with both checks (the default
    /// command) `FILE` less its `.dot` becomes `<FILE>.reach.dot` and
    /// `<FILE>.robust.dot`, so neither witness overwrites the other.
    File(String, bool),
    /// `--dot DIR`: `DIR/<stem>.<check>.dot`.
    Dir(std::path::PathBuf),
}

impl DotTarget {
    /// Interprets `--dot PATH` for `inputs` inputs and `checks` checks
    /// per input: a directory when PATH is an existing directory, ends
    /// with `/`, or there are several inputs (created if missing); else a
    /// file (one per check when `checks > 1`).
    ///
    /// Errors: the directory cannot be created ([`Error::Io`]).
    pub fn resolve(path: &str, inputs: usize, checks: usize) -> Result<DotTarget, Error> {
        let p = std::path::Path::new(path);
        let is_dir = p.is_dir() || path.ends_with('/') || path.ends_with(std::path::MAIN_SEPARATOR);
        if !is_dir && inputs <= 1 {
            return Ok(DotTarget::File(path.to_string(), checks > 1));
        }
        std::fs::create_dir_all(p).map_err(|e| Error::Io {
            path: path.to_string(),
            message: e.to_string(),
        })?;
        Ok(DotTarget::Dir(p.to_path_buf()))
    }

    /// The file for input number `index` of `files` and `check`: the
    /// stem of the input's file name, with `-<index+1>` appended when
    /// another input has the same stem.
    pub fn path_for(&self, files: &[String], index: usize, check: &str) -> String {
        match self {
            DotTarget::File(f, false) => f.clone(),
            DotTarget::File(f, true) => {
                format!("{}.{check}.dot", f.strip_suffix(".dot").unwrap_or(f))
            }
            DotTarget::Dir(d) => {
                let stem = |f: &str| {
                    std::path::Path::new(f)
                        .file_stem()
                        .map(|s| s.to_string_lossy().into_owned())
                        .unwrap_or_else(|| "input".into())
                };
                let s = stem(&files[index]);
                let dup = files.iter().filter(|f| stem(f) == s).count() > 1;
                let name = if dup {
                    format!("{s}-{}.{check}.dot", index + 1)
                } else {
                    format!("{s}.{check}.dot")
                };
                d.join(name).to_string_lossy().into_owned()
            }
        }
    }
}

/// The `arch` column recorded for a program input: its format.
fn format_name(file: &str, forced: Option<Format>) -> &'static str {
    forced.unwrap_or_else(|| Format::detect(file, "")).name()
}

/// The rendering context of one input's replies under the command's
/// flags ([`render::Context`]).
fn context<'a>(
    a: &CheckArgs,
    f: &'a str,
    p: &'a bmc_rmm::program::Program,
    model_name: &'a str,
) -> render::Context<'a> {
    let mut c = render::Context::new(f, p, model_name);
    c.bound = effective_bound(a.bound, p);
    c.width = a.input.width;
    c.solver = a.solver.kind();
    c
}

/// The record of one input's replies ([`crate::cli::shard::Record`]):
/// each reply's record ([`render::show`]) in order, the worst status.
fn present(
    f: &str,
    p: &bmc_rmm::program::Program,
    rs: &[Reply],
    a: &CheckArgs,
    model_name: &str,
) -> crate::cli::shard::Record {
    let c = context(a, f, p, model_name);
    let mut rec = crate::cli::shard::record(f, 0);
    for r in rs {
        let one = render::show(&c, r);
        rec.checks.extend(one.checks);
        rec.summary.extend(one.summary);
        rec.status = crate::cli::shard::worst(rec.status, one.status);
        rec.json.extend(one.json);
        rec.text.push_str(&one.text);
    }
    rec
}

/// The canonical name of the built-in model `--model` names, `None` with
/// `--model-file` or a name that is no built-in model.
pub fn builtin_model(a: &CheckArgs) -> Option<&'static str> {
    match a.model.model_file {
        None => bmc_rmm::cat::builtin_name(&a.model.model),
        Some(_) => None,
    }
}

/// The engine `--engine` (with `--solver`, `--rounds`) names.
pub fn engine_choice(a: &CheckArgs) -> bmc_rmm::ask::EngineChoice {
    use bmc_rmm::ask::EngineChoice;
    match a.engine {
        Engine::Bounded => EngineChoice::Bounded(a.solver.0),
        Engine::Explicit => EngineChoice::Explicit,
        Engine::NormalForm => EngineChoice::NormalForm,
        Engine::Smc => EngineChoice::Smc,
        Engine::Lazy => EngineChoice::Lazy(a.rounds),
        Engine::Kround => {
            EngineChoice::Kround(a.rounds.unwrap_or(crate::cli::args::DEFAULT_ROUNDS))
        }
    }
}

/// The library request for `kinds` on one input under the command's
/// flags: the engine of `--engine` ([`engine_choice`]; the bounded one
/// with `--solver auto` is the automatic choice of [`bmc_rmm::ask::ask`]), `--hb-query`, `--eager`, `--bound`,
/// `--width`, `--timeout`; `alone` when the input is the only one (the
/// automatic choice may then race engines); the developer switches
/// (`BMC_EXPLICIT_FIRST=0` turns off the explicit engine's robustness
/// proof before the bounded one).
pub fn request<'a>(
    a: &CheckArgs,
    p: &'a bmc_rmm::program::Program,
    model: &'a bmc_rmm::cat::Model,
    kinds: &'a [bmc_rmm::ask::Question],
    alone: bool,
) -> bmc_rmm::ask::Request<'a> {
    let builtin = builtin_model(a);
    let mut r = bmc_rmm::ask::Request::new(p, model, builtin, kinds, effective_bound(a.bound, p));
    r.engine = engine_choice(a);
    r.hb_query = a.hb_query.into();
    r.eager = a.eager;
    r.width = a.input.width;
    r.timeout = a.timeout.map(std::time::Duration::from_secs_f64);
    r.alone = alone;
    r.smc_keep_reads = a.smc_keep_reads;
    r.switches = a.input.switches;
    r
}

/// The bounded engine's replies to `kinds` on one input, through the
/// library's entry point ([`bmc_rmm::ask::ask`]); `loaded`: the time its
/// loading took, which counts against `--timeout` (a per-input limit).
///
/// Errors: those of [`bmc_rmm::ask::ask`].
fn bounded_results(
    a: &CheckArgs,
    (f, p): (&str, &bmc_rmm::program::Program),
    model: &bmc_rmm::cat::Model,
    kinds: &[CheckKind],
    (alone, files): (bool, &[String]),
    loaded: std::time::Duration,
) -> Result<Vec<Reply>, Error> {
    if let Some(dir) = &a.certify {
        return super::certify::replies(a, (f, p), model, kinds, (dir, files));
    }
    let questions: Vec<bmc_rmm::ask::Question> = kinds.iter().map(|&k| k.into()).collect();
    let mut req = request(a, p, model, &questions, alone);
    req.timeout = req.timeout.map(|t| t.saturating_sub(loaded));
    bmc_rmm::ask::ask(&req)
}

/// Runs `reach` and/or `robust` on every input (files, directories of
/// `.rmm`/`.txt` files, `@list`s) with the bounded engine, in parallel
/// (`-j`), each input with its own `--timeout`; prints the results in
/// input order, then a summary on stderr (several inputs, `--expect` or
/// `--write-expect`).
///
/// Exit status: with `--expect`, 1 on any mismatch, else 3 if an input
/// without expectation is unknown, else 0; without, 1 if any violation,
/// else 3 if any unknown, else 0.
///
/// Errors: usage errors, unreadable or malformed inputs (before any check
/// runs), a bad model file, a malformed expectations file, an unwritable
/// `--dot` or `--write-expect` path.
pub fn run_checks(a: &CheckArgs, kinds: &[CheckKind]) -> Result<i32, Error> {
    refuse_other_engines(a)?;
    let (model, model_name, aliases, exp, files) = setup(
        &a.model,
        a.solver.kind(),
        &a.expectations,
        &a.input.files,
        &["rmm", "txt"],
    )?
    .into_parts();
    if files.is_empty() {
        return Err(Error::Usage("no input file found".into()));
    }
    let command = match kinds {
        [k] => k.name(),
        _ => "check",
    };
    let describe = crate::cli::shard::Describe {
        command,
        what: "results",
        words: &[],
        model: &model_name,
        aliases: &aliases,
        meta: serde_json::Value::Null,
    };
    let (shard, files) = crate::cli::shard::Shard::select(&a.batch.shard, describe, files)?;
    let dot = a
        .dot
        .as_deref()
        .map(|d| DotTarget::resolve(d, files.len(), kinds.len()))
        .transpose()?;
    // Parse everything first: a bad input stops the run before any output.
    let (progs, loading) = load_all(a, &files, &model, &model_name)?;
    let single = progs.len() == 1;
    let opts = crate::cli::batch::BatchOptions::new(a.batch.jobs, a.batch.quiet || a.input.json);
    let size = |(f, _): &(String, _)| std::fs::metadata(f).map_or(0, |m| m.len());
    let results = crate::cli::batch::run_heaviest_first(&progs, size, &opts, |(f, p)| {
        let loaded = loading.get(f).copied().unwrap_or_default();
        let rs = bounded_results(a, (f, p), &model, kinds, (single, &files), loaded)?;
        shard.record(present(f, p, &rs, a, &model_name))?;
        Ok(rs)
    })?
    .into_iter()
    .collect::<Result<Vec<_>, Error>>()?;
    let report = Report {
        a,
        model_name: &model_name,
        aliases: &aliases,
        exp: exp.as_ref(),
        files: &files,
        dot: dot.as_ref(),
    };
    report.print(&progs, &results)
}

/// The engine and flags of `reach`/`robust`/`check` on the bounded path:
/// the other engines have their own commands.
///
/// Errors: `--state`, or an engine other than the bounded one.
fn refuse_other_engines(a: &CheckArgs) -> Result<(), Error> {
    a.validate()?;
    super::certify::validate(a)?;
    if a.state {
        return Err(Error::Usage("--state applies to `robust` only".into()));
    }
    match a.engine {
        Engine::Explicit | Engine::NormalForm => Err(Error::Usage(
            "--engine explicit/normal-form answer `robust` only".into(),
        )),
        Engine::Kround | Engine::Lazy => Err(Error::Usage(
            "--engine kround/lazy answer `reach` only (use the `reach` command)".into(),
        )),
        Engine::Smc => Err(Error::Usage("--engine smc: use `reach` or `robust`".into())),
        Engine::Bounded => Ok(()),
    }
}

/// The loaded inputs: file name and program, in input order.
type Programs = Vec<(String, bmc_rmm::program::Program)>;

/// The time each input's loading took, by file name.
type Loading = std::collections::HashMap<String, std::time::Duration>;

/// Every input loaded for the bounded engine (in order), with a warning
/// on stderr for each construct the model gives no meaning to, and the
/// time each file's loading took (C lowering can take seconds). With
/// `--timeout` and one input, the C front-end gives up at the limit.
///
/// Errors: the first unreadable, malformed or unsupported input; the
/// limit passed while lowering the only input ([`Error::Unknown`]).
fn load_all(
    a: &CheckArgs,
    files: &[String],
    model: &bmc_rmm::cat::Model,
    model_name: &str,
) -> Result<(Programs, Loading), Error> {
    let mut progs = Vec::new();
    let mut loading = std::collections::HashMap::new();
    for f in files {
        let w = Width(a.input.width);
        let start = std::time::Instant::now();
        let mut copts = a.input.c.options();
        if files.len() == 1 {
            copts.deadline = a
                .timeout
                .map(|t| start + std::time::Duration::from_secs_f64(t));
        }
        let p = load_for_check(
            f,
            a.input.format,
            w,
            &copts,
            a.pgas.nodes,
            model,
            model_name,
        )?;
        for what in bmc_rmm::cat::base::ignored_constructs(model, &p) {
            if !crate::cli::quiet() {
                eprintln!("warning: {f}: model `{model_name}` gives no meaning to {what}");
            }
        }
        loading.insert(f.clone(), start.elapsed());
        progs.push((f.clone(), p));
    }
    Ok((progs, loading))
}

/// What the results of a `reach`/`robust`/`check` run are printed and
/// compared against.
struct Report<'a> {
    a: &'a CheckArgs,
    model_name: &'a str,
    aliases: &'a [String],
    exp: Option<&'a crate::cli::expect::Expectations>,
    files: &'a [String],
    dot: Option<&'a DotTarget>,
}

impl Report<'_> {
    /// Prints the results in input order (text or JSON, `--dot` files,
    /// mismatches with `--expect`), writes `--write-expect`, prints the
    /// summary on stderr and returns the exit status of [`run_checks`].
    ///
    /// Errors: an unwritable `--dot` or `--write-expect` path.
    fn print(
        &self,
        progs: &[(String, bmc_rmm::program::Program)],
        results: &[Vec<Reply>],
    ) -> Result<i32, Error> {
        use crate::cli::expect::{self, Check, Compared};
        let (a, model_name, aliases, exp) = (self.a, self.model_name, self.aliases, self.exp);
        let mut summary = crate::cli::batch::Summary::new("results", &[]);
        let mut cmp = expect::Comparison::default();
        let mut records = Vec::new();
        let (mut violation, mut unknown, mut unknown_unmatched) = (false, false, false);
        let mut out = String::new();
        for (i, ((f, p), rs)) in progs.iter().zip(results).enumerate() {
            let c = context(a, f, p, model_name);
            for r in rs {
                let shown = render::show(&c, r);
                let (check, verdict) = (r.question.check(), r.answer.verdict);
                let word = shown.checks[0].1.as_str();
                summary.add(word);
                let ck = Check::from(check.expect("reach and robust are checks"));
                let compared = exp.map(|e| cmp.compare(e, f, model_name, aliases, ck, word));
                if a.expectations.write_expect.is_some() {
                    records.push(expect::Record {
                        arch: format_name(f, a.input.format).into(),
                        file: f.clone(),
                        model: aliases[0].clone(),
                        verdict: word.into(),
                    });
                }
                if a.input.json {
                    let mut rec = shown.json[0].clone();
                    if let Some(c) = &compared {
                        c.annotate(&mut rec, word);
                    }
                    out.push_str(&rec.to_string());
                    out.push('\n');
                } else {
                    out.push_str(&shown.text);
                }
                if let (Some(t), Some(dot)) = (self.dot, render::dot(&c, r)) {
                    let name = check.map_or("check", CheckKind::name);
                    super::output::write_file(&t.path_for(self.files, i, name), &dot)?;
                }
                match verdict {
                    Verdict::Violation => violation = true,
                    Verdict::Unknown => {
                        unknown = true;
                        if matches!(compared, None | Some(Compared::Missing)) {
                            unknown_unmatched = true;
                        }
                    }
                    Verdict::NoViolation => {}
                }
            }
        }
        if exp.is_some() && !a.input.json {
            for m in &cmp.mismatches {
                out.push_str(m);
                out.push('\n');
            }
        }
        print!("{out}");
        if let Some(path) = &a.expectations.write_expect {
            expect::write(path, &records)?;
        }
        let quiet = crate::cli::quiet();
        if !quiet
            && (self.files.len() > 1 || exp.is_some() || a.expectations.write_expect.is_some())
        {
            eprintln!("{}", summary.render());
        }
        if let Some(e) = exp {
            eprintln!("{}", cmp.render(e));
            return Ok(if !cmp.mismatches.is_empty() {
                1
            } else if unknown_unmatched {
                3
            } else {
                0
            });
        }
        Ok(if violation {
            1
        } else if unknown {
            3
        } else {
            0
        })
    }
}
