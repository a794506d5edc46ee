//! `bmc-rmm [reach|robust]` (the default command) with the bounded
//! engine: loading programs for checking, running the checks in a batch, and
//! writing the results (text, JSON, DOT, expectations).

use super::args::{CheckArgs, Engine};
use super::batch::setup;
use super::render;
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

/// The bound of a check: `--bound`, else the longest path of a program
/// the front-end made acyclic (C), else [`bmc_rmm::engines::bounded::DEFAULT_BOUND`].
pub fn effective_bound(given: Option<u32>, p: &bmc_rmm::program::Program) -> u32 {
    given
        .or(p.max_path)
        .unwrap_or(bmc_rmm::engines::bounded::DEFAULT_BOUND)
}

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

/// The `--json` record of one check result.
fn json_record(
    f: &str,
    p: &bmc_rmm::program::Program,
    r: &bmc_rmm::engines::bounded::CheckResult,
    a: &CheckArgs,
    model_name: &str,
) -> serde_json::Value {
    serde_json::json!({
        "file": f, "model": model_name, "solver": r.stats.solver.unwrap_or(a.solver.kind()), "bound": effective_bound(a.bound, p), "notes": p.notes, "width": a.input.width,
        "check": r.check, "verdict": r.verdict, "time": r.time,
        "goal": r.goal.map(|g| p.goals[g].name.clone().unwrap_or_else(|| format!("#{}", g + 1))),
        "cycle": r.cycle.as_ref().zip(r.witness.as_ref()).map(|(c, x)| x.render_cycle(c)),
        "attack": r.attack.and_then(|(w, l)| {
            let x = r.witness.as_ref()?;
            Some(serde_json::json!({"store": x.event(w)?.label, "load": x.event(l)?.label}))
        }),
        "truncated": r.truncated, "reason": r.reason, "witness": r.witness, "stats": r.stats,
    })
}

/// The record of one input's check results ([`crate::cli::shard::Record`]).
fn present(
    f: &str,
    p: &bmc_rmm::program::Program,
    rs: &[bmc_rmm::engines::bounded::CheckResult],
    a: &CheckArgs,
    model_name: &str,
) -> crate::cli::shard::Record {
    let mut rec = crate::cli::shard::record(f, 0);
    for r in rs {
        let word = render::verdict_word(r.check, r.verdict);
        rec.checks.push((r.check.name().into(), word.into()));
        rec.summary.push(word.into());
        rec.status = crate::cli::shard::worst(
            rec.status,
            match r.verdict {
                Verdict::Violation => 1,
                Verdict::Unknown => 3,
                Verdict::NoViolation => 0,
            },
        );
        rec.json.push(json_record(f, p, r, a, model_name));
        rec.text.push_str(&render::render(
            p,
            f,
            model_name,
            effective_bound(a.bound, p),
            r,
        ));
    }
    rec
}

/// True when the machine has a core to spare for a race of backends:
/// the 1-minute load average (`/proc/loadavg`) is below the number of
/// cores minus one half (one core idle on average; the margin absorbs
/// the average's lag behind a single-threaded job that just ended, which
/// keeps it near 1.1–1.2 during a sequential script on 2 cores). Where
/// the load is unknown (not Linux), true.
fn idle_core() -> bool {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse::<f64>().ok());
    cores >= 2 && load.is_none_or(|l| l < cores as f64 - 0.5)
}

/// Runs the bounded checks of one input: `reach` alone of a single input
/// with `--solver auto` on a machine with a core to spare ([`idle_core`])
/// races varisat and cdclt
/// ([`bmc_rmm::engines::bounded::queries::check_race_solvers`]); `robust` alone of
/// a single input (auto, `--hb-query auto`, not `--eager`, not PGAS) on
/// such a machine runs cdclt with its two hb-cycle queries raced
/// ([`bmc_rmm::engines::bounded::queries::check_race`]); otherwise the
/// backend `--solver` names (varisat for `auto`) with the hb-cycle query
/// `--hb-query` asks for (`auto`: raced with `--solver cdclt` when the
/// input is the only one, `single`; otherwise as `BMC_SHORTEST_CYCLES`
/// says, plain unless set).
///
/// Errors: those of [`bmc_rmm::engines::bounded::check`].
fn check_with_query(
    a: &CheckArgs,
    p: &bmc_rmm::program::Program,
    model: &bmc_rmm::cat::Model,
    lim: bmc_rmm::engines::bounded::Limits,
    kinds: &[CheckKind],
    single: bool,
) -> Result<Vec<bmc_rmm::engines::bounded::CheckResult>, Error> {
    use crate::cli::args::HbQuery;
    use bmc_rmm::engines::bounded::{backend_with, queries};
    if let Some(proved) = explicit_robust_first(a, p, model, &lim, kinds) {
        // The rest (reach) on the bounded engine as usual.
        let rest: Vec<CheckKind> = kinds
            .iter()
            .copied()
            .filter(|&k| k != CheckKind::Robust)
            .collect();
        let mut out = if rest.is_empty() {
            Vec::new()
        } else {
            check_with_query(a, p, model, lim, &rest, single)?
        };
        // `out` holds the other kinds' results in order; put the proof in
        // at the positions of `robust` so results follow `kinds`.
        for (i, &k) in kinds.iter().enumerate() {
            if k == CheckKind::Robust {
                out.insert(i.min(out.len()), proved.clone());
            }
        }
        return Ok(out);
    }
    // None: as BMC_SHORTEST_CYCLES says (plain unless set).
    let solver = a.solver.kind();
    if a.solver.0.is_none() && single && kinds == [CheckKind::Reach] && idle_core() {
        return queries::check_race_solvers(p, model, lim, a.eager, kinds);
    }
    let auto_robust = a.solver.0.is_none()
        && single
        && kinds == [CheckKind::Robust]
        && matches!(a.hb_query, HbQuery::Auto)
        && !a.eager
        && p.nodes.is_none();
    if auto_robust && idle_core() {
        // cdclt with its plain and narrowed hb-cycle queries raced: on the
        // Trencher corpus never slower than varisat by more than 0.1 s on a
        // quiet machine, 5 → 2 rows over 1 s (docs/solvers.md).
        let cdclt = bmc_rmm::engines::bounded::SolverKind::Cdclt;
        let mut r = queries::check_race(cdclt, p, model, lim, false, kinds)?;
        for x in &mut r {
            x.stats.solver.get_or_insert(cdclt);
        }
        return Ok(r);
    }
    let shortest = match a.hb_query {
        HbQuery::Race => return queries::check_race(solver, p, model, lim, a.eager, kinds),
        HbQuery::Auto if single && solver == bmc_rmm::engines::bounded::SolverKind::Cdclt => {
            return queries::check_race(solver, p, model, lim, a.eager, kinds)
        }
        HbQuery::Auto => None,
        HbQuery::Shortest => Some(true),
        HbQuery::Plain => Some(false),
    };
    let q = bmc_rmm::engines::bounded::Query {
        program: p,
        model,
        limits: lim,
    };
    queries::check_on(&*backend_with(solver, a.eager, shortest, None)?, &q, kinds)
}

/// Time budget of the explicit engine's robustness proof before a
/// bounded `robust` check under tso ([`explicit_robust_first`]).
const EXPLICIT_FIRST_TIME: std::time::Duration = std::time::Duration::from_millis(300);

/// States one attack's search of that proof may visit.
const EXPLICIT_FIRST_STATES: usize = 200_000;

/// `robust` under the built-in tso model with `--solver auto` (not
/// `--eager`, not PGAS, `BMC_EXPLICIT_FIRST` not `0`): first the explicit
/// engine's robustness check by attacks (TSO witnesses, thesis 003 §6.1–6.2,
/// Theorem 6.10; `bmc_rmm::engines::explicit::check_robustness`) within
/// [`EXPLICIT_FIRST_TIME`] and [`EXPLICIT_FIRST_STATES`]. When it proves
/// the program robust — no TSO computation at all has a cyclic
/// happens-before — no execution within the bound has one either, and
/// that is the answer (`reason` says so). When it finds a TSO witness
/// whose threads' paths fit the bound, one bounded solve along those
/// paths ([`bmc_rmm::engines::bounded::queries::robust_along`]) gives the bounded
/// witness (an execution of the bounded engine, not necessarily the
/// shortest). `None` otherwise (out of budget, unsupported, paths longer
/// than the bound, or no bounded cycle along them): the bounded query
/// runs as before. docs/performance.md, "TSO witnesses".
fn explicit_robust_first(
    a: &CheckArgs,
    p: &bmc_rmm::program::Program,
    model: &bmc_rmm::cat::Model,
    lim: &bmc_rmm::engines::bounded::Limits,
    kinds: &[CheckKind],
) -> Option<bmc_rmm::engines::bounded::CheckResult> {
    use bmc_rmm::engines::explicit::{check_robustness, Limits, Options, Robustness};
    let on = std::env::var("BMC_EXPLICIT_FIRST").map_or(true, |v| v != "0");
    if !on
        || a.solver.0.is_some()
        || a.eager
        || p.nodes.is_some()
        || !kinds.contains(&CheckKind::Robust)
        || !bmc_rmm::engines::bounded::varisat::tso_witness::is_tso(model)
    {
        return None;
    }
    let start = std::time::Instant::now();
    let left = lim
        .deadline
        .0
        .map(|d| d.saturating_duration_since(start))
        .unwrap_or(EXPLICIT_FIRST_TIME);
    let opts = Options {
        width: Width(a.input.width),
        limits: Limits {
            timeout: Some(left.min(EXPLICIT_FIRST_TIME)),
            max_states: Some(EXPLICIT_FIRST_STATES),
            // Within the user's budget (`--memory`, or the default).
            max_memory_bytes: Some((256usize << 20).min(bmc_rmm::resources::memory_limit())),
        },
        ..Options::default()
    };
    let report = check_robustness(p, &opts).ok()?;
    if let Robustness::NotRobust(w) = &report.verdict {
        // Its paths, when they fit the bound: one solve along them.
        let mut paths = vec![Vec::new(); p.threads.len()];
        for e in &w.events {
            if let (Some(i), Some(path)) = (e.instr, paths.get_mut(e.thread.0 as usize)) {
                path.push(i);
            }
        }
        if paths.iter().any(|x| x.len() > lim.bound as usize) {
            return None;
        }
        let q = bmc_rmm::engines::bounded::Query {
            program: p,
            model,
            limits: *lim,
        };
        let b = bmc_rmm::engines::bounded::backend_with(a.solver.kind(), false, None, None).ok()?;
        let mut r = bmc_rmm::engines::bounded::queries::robust_along(&*b, &q, &paths).ok()??;
        r.time = start.elapsed().as_secs_f64();
        return Some(r);
    }
    if report.verdict != Robustness::Robust {
        return None;
    }
    let mut r = bmc_rmm::engines::bounded::CheckResult::new(CheckKind::Robust);
    r.reason = Some(format!(
        "proved for every bound by the explicit engine: none of the {} attacks has a TSO witness (thesis 003 Theorem 6.10)",
        report.stats.attacks_total
    ));
    r.time = start.elapsed().as_secs_f64();
    Some(r)
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
    use crate::cli::expect::{self, Check, Compared};
    a.validate()?;
    if a.state {
        return Err(Error::Usage("--state applies to `robust` only".into()));
    }
    match a.engine {
        Engine::Explicit => {
            return Err(Error::Usage(
                "--engine explicit answers `robust` only".into(),
            ))
        }
        Engine::Kround | Engine::Lazy => {
            return Err(Error::Usage(
                "--engine kround/lazy answer `reach` only (use the `reach` command)".into(),
            ))
        }
        Engine::Smc => return Err(Error::Usage("--engine smc: use `reach` or `robust`".into())),
        Engine::Bounded => {}
    }
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
    let mut progs = Vec::new();
    for f in &files {
        let w = Width(a.input.width);
        let copts = a.input.c.options();
        let p = load_for_check(
            f,
            a.input.format,
            w,
            &copts,
            a.pgas.nodes,
            &model,
            &model_name,
        )?;
        for what in bmc_rmm::cat::base::ignored_constructs(&model, &p) {
            if !crate::cli::quiet() {
                eprintln!("warning: {f}: model `{model_name}` gives no meaning to {what}");
            }
        }
        progs.push((f.clone(), p));
    }
    let single = progs.len() == 1;
    let opts = crate::cli::batch::BatchOptions::new(a.batch.jobs, a.batch.quiet || a.input.json);
    let mut summary = crate::cli::batch::Summary::new("results", &[]);
    let size = |(f, _): &(String, _)| std::fs::metadata(f).map_or(0, |m| m.len());
    let results = crate::cli::batch::run_heaviest_first(&progs, size, &opts, |(f, p)| {
        let lim = bmc_rmm::engines::bounded::Limits {
            bound: effective_bound(a.bound, p),
            width: a.input.width,
            deadline: crate::cli::batch::deadline(a.timeout),
            switches: a.input.switches,
        };
        let rs = check_with_query(a, p, &model, lim, kinds, single)?;
        shard.record(present(f, p, &rs, a, &model_name))?;
        Ok(rs)
    })?
    .into_iter()
    .collect::<Result<Vec<_>, Error>>()?;
    let mut cmp = expect::Comparison::default();
    let mut records = Vec::new();
    let (mut violation, mut unknown, mut unknown_unmatched) = (false, false, false);
    let mut out = String::new();
    for (i, ((f, p), rs)) in progs.iter().zip(&results).enumerate() {
        for r in rs {
            let word = render::verdict_word(r.check, r.verdict);
            summary.add(word);
            let ck = Check::from(r.check);
            let compared = exp
                .as_ref()
                .map(|e| cmp.compare(e, f, &model_name, &aliases, ck, word));
            if a.expectations.write_expect.is_some() {
                records.push(expect::Record {
                    arch: format_name(f, a.input.format).into(),
                    file: f.clone(),
                    model: aliases[0].clone(),
                    verdict: word.into(),
                });
            }
            if a.input.json {
                let mut rec = json_record(f, p, r, a, &model_name);
                if let Some(c) = &compared {
                    c.annotate(&mut rec, word);
                }
                out.push_str(&rec.to_string());
                out.push('\n');
            } else {
                out.push_str(&render::render(
                    p,
                    f,
                    &model_name,
                    effective_bound(a.bound, p),
                    r,
                ));
            }
            if let (Some(t), Some(x)) = (&dot, &r.witness) {
                let path = t.path_for(&files, i, r.check.name());
                let text = x.to_dot(p, r.cycle.as_ref(), &r.fr);
                super::output::write_file(&path, &text)?;
            }
            match r.verdict {
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
    if let Some(e) = &exp {
        if !a.input.json {
            for m in &cmp.mismatches {
                out.push_str(m);
                out.push('\n');
            }
        }
        let _ = e;
    }
    print!("{out}");
    if let Some(path) = &a.expectations.write_expect {
        expect::write(path, &records)?;
    }
    let quiet = crate::cli::quiet();
    if !quiet && (files.len() > 1 || exp.is_some() || a.expectations.write_expect.is_some()) {
        eprintln!("{}", summary.render());
    }
    if let Some(e) = &exp {
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
