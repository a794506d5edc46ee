//! `bmc-rmm fences`: a minimal-cost set of fences that makes each input
//! robust. Under tso without `--bound`, the explicit engine's fence
//! insertion (unbounded, thesis §6.5); with `--model M --bound K`, the
//! bounded fence synthesis for every built-in model
//! ([`bmc_rmm::engines::derived::fence_synth`]). Both read the same cost
//! files and print text or JSON answers and, with `--emit`, the fenced
//! program.

use super::args::FencesArgs;
use bmc_rmm::cat;
use bmc_rmm::diag::{Error, SourceFile, Span};
use bmc_rmm::engines::bounded::{Limits, DEFAULT_BOUND};
use bmc_rmm::engines::derived::fence_synth::{self, Costs, Menu, Outcome};
use bmc_rmm::engines::explicit::{self, FenceCosts, FenceLocation, FenceVerdict};
use bmc_rmm::frontend;
use bmc_rmm::program::{Program, StateId, ThreadId, Width};

/// The largest fence cost a cost file may give (2⁴⁰): sums over any
/// realistic number of fences never saturate, so "optimal" stays exact.
pub const MAX_FENCE_COST: u64 = 1 << 40;

/// Reads a fence cost file: lines `THREAD STATE COST` (`#` comments);
/// `default COST` sets the cost of every other location.
///
/// Errors (located at the offending word): unknown thread or state, a
/// cost that is not a number or exceeds [`MAX_FENCE_COST`], a malformed
/// line.
pub fn read_costs(path: &str, p: &Program) -> Result<FenceCosts, Error> {
    let src = SourceFile::read(path)?;
    let mut costs = FenceCosts {
        per_location: Default::default(),
        default: 1,
    };
    for (span, words) in cost_lines(&src) {
        match words.as_slice() {
            [] => {}
            [("default", _), c] => costs.default = cost_word(&src, *c)?,
            [t, q, c] => {
                let (thread, state) = location(&src, p, *t, *q)?;
                costs
                    .per_location
                    .insert(FenceLocation { thread, state }, cost_word(&src, *c)?);
            }
            _ => {
                return Err(src.error_help(
                    span,
                    "malformed cost line",
                    "expected `THREAD STATE COST` or `default COST`",
                ))
            }
        }
    }
    Ok(costs)
}

/// `bmc-rmm fences`: a minimal-cost valid fence set per input (thesis
/// §6.5), the fenced program with `--emit`; with `--bound` or a model
/// other than tso, the bounded synthesis ([`run_bounded`]).
pub fn run(a: &FencesArgs) -> Result<i32, Error> {
    if a.bound.is_some() || bmc_rmm::cat::builtin_name(&a.model) != Some("tso") {
        return run_bounded(a);
    }
    if a.input.files.is_empty() {
        return Err(Error::Usage("no input FILE given".into()));
    }
    if a.emit.is_some() && a.input.files.len() > 1 {
        return Err(Error::Usage("--emit FILE takes a single input".into()));
    }
    let describe = crate::cli::shard::Describe {
        command: "fences",
        what: "inputs",
        words: &[],
        model: "tso",
        aliases: &[],
        meta: serde_json::Value::Null,
    };
    let no_shard = crate::cli::shard::ShardArgs::default();
    let (_, progs) = crate::cli::inputs::load_sharded(
        &a.input.files,
        a.input.format,
        a.input.width,
        &a.input.c.options(),
        &no_shard,
        describe,
    )?;
    let mut code = 0;
    for (f, p) in &progs {
        let costs = match &a.cost {
            Some(c) => read_costs(c, p)?,
            None => FenceCosts {
                per_location: Default::default(),
                default: 1,
            },
        };
        let r = explicit::fence_insertion(
            p,
            &super::explicit::options(a.input.width, a.timeout),
            &costs,
        )
        .map_err(|e| Error::Usage(e.to_string()))?;
        let locs: Vec<FenceLocation> = match &r.verdict {
            FenceVerdict::Robust => Vec::new(),
            FenceVerdict::Fences(l) => l.clone(),
            FenceVerdict::Unknown(why) => {
                println!("{f}: fences [tso]: unknown: {why}");
                code = 3;
                continue;
            }
        };
        let names: Vec<String> = locs.iter().map(|l| l.describe(p)).collect();
        if a.input.json {
            println!(
                "{}",
                serde_json::json!({"file": f, "model": "tso", "fences": names, "count": locs.len(),
                    "cost": r.cost, "optimal": r.optimal, "time": r.stats.time_us as f64 / 1e6, "stats": r.stats})
            );
        } else if locs.is_empty() {
            println!("{f}: fences [tso]: robust, no fence needed");
        } else {
            println!(
                "{f}: fences [tso]: {} fence(s), cost {}{}: {}",
                locs.len(),
                r.cost,
                if r.optimal {
                    " (optimal)"
                } else {
                    " (best found within limits)"
                },
                names.join(" ")
            );
        }
        if let Some(out) = &a.emit {
            let pairs: Vec<_> = locs.iter().map(|l| (l.thread, l.state)).collect();
            let fenced = explicit::insert_fences(p, &pairs);
            let text = bmc_rmm::program::render::native(&fenced);
            super::output::write_file(out, &text)?;
        }
    }
    Ok(code)
}

/// The lines of a cost file as words with their spans (`#` starts a
/// comment), each with the span of the whole line.
pub fn cost_lines(src: &SourceFile) -> Vec<(Span, Vec<(&str, Span)>)> {
    let mut out = Vec::new();
    let mut off = 0;
    for line in src.text.split_inclusive('\n') {
        let body = &line[..comment_start(line)];
        let mut words: Vec<(&str, Span)> = Vec::new();
        let mut i = 0;
        for w in body.split_whitespace() {
            let at = i + body[i..].find(w).unwrap_or(0);
            words.push((w, Span::new(off + at, off + at + w.len())));
            i = at + w.len();
        }
        out.push((Span::new(off, off + line.trim_end().len()), words));
        off += line.len();
    }
    out
}

/// Where the comment of a cost-file line starts: the first `#` that does
/// not begin a SPARC mask name (`#StoreLoad`, …, a fence kind).
fn comment_start(line: &str) -> usize {
    let masks = ["#LoadLoad", "#LoadStore", "#StoreLoad", "#StoreStore"];
    let mut from = 0;
    while let Some(i) = line[from..].find('#').map(|i| i + from) {
        let rest = &line[i..];
        match masks.iter().find(|m| rest.starts_with(**m)) {
            Some(m) => from = i + m.len(),
            None => return i,
        }
    }
    line.len()
}

/// A cost word: a number ≤ [`MAX_FENCE_COST`].
///
/// Errors: located at the word.
pub fn cost_word(src: &SourceFile, (c, sp): (&str, Span)) -> Result<u64, Error> {
    match c.parse::<u64>() {
        Ok(v) if v <= MAX_FENCE_COST => Ok(v),
        Ok(_) => Err(src.error(sp, format!("cost `{c}` exceeds {MAX_FENCE_COST}"))),
        Err(_) => Err(src.error(sp, format!("bad cost `{c}`"))),
    }
}

/// The location named by a thread word and a state word.
///
/// Errors: unknown thread or state, located at the word.
pub fn location(
    src: &SourceFile,
    p: &Program,
    (t, tsp): (&str, Span),
    (q, qsp): (&str, Span),
) -> Result<(ThreadId, StateId), Error> {
    let thread = p
        .thread_ids()
        .find(|&i| p.thread_name(i) == t)
        .ok_or_else(|| src.error(tsp, format!("unknown thread `{t}`")))?;
    let th = &p.threads[thread.0 as usize];
    let state = p
        .names
        .get(q)
        .and_then(|s| th.find_state(s))
        .ok_or_else(|| src.error(qsp, format!("unknown state `{q}` of thread `{t}`")))?;
    Ok((thread, state))
}

/// Reads a cost file of the bounded synthesis (docs/fences.md):
/// `kind KIND COST`, `default COST` (every kind without a `kind` line),
/// `THREAD STATE COST` (any kind there), `THREAD STATE KIND COST`.
///
/// Errors (located): a kind the model's menu lacks, unknown thread or
/// state, a bad cost, a malformed line.
pub fn read_synth_costs(path: &str, p: &Program, m: &Menu) -> Result<Costs, Error> {
    let src = SourceFile::read(path)?;
    let mut costs = Costs::defaults(m);
    let mut default = None;
    let mut given = vec![false; m.kinds.len()];
    let kind = |(k, sp): (&str, Span)| -> Result<usize, Error> {
        m.find(k).ok_or_else(|| {
            src.error_help(
                sp,
                format!("fence kind `{k}` is not placed under {}", m.model),
                format!("the kinds of {}: {}", m.model, m.names()),
            )
        })
    };
    for (span, words) in cost_lines(&src) {
        match words.as_slice() {
            [] => {}
            [("default", _), c] => default = Some(cost_word(&src, *c)?),
            [("kind", _), k, c] => {
                let k = kind(*k)?;
                costs.kind[k] = cost_word(&src, *c)?;
                given[k] = true;
            }
            [t, q, c] => {
                let (t, q) = location(&src, p, *t, *q)?;
                costs.at.insert((t, q), cost_word(&src, *c)?);
            }
            [t, q, k, c] => {
                let (t, q) = location(&src, p, *t, *q)?;
                let k = kind(*k)?;
                costs.at_kind.insert((t, q, k), cost_word(&src, *c)?);
            }
            _ => {
                return Err(src.error_help(
                    span,
                    "malformed cost line",
                    "expected `kind KIND COST`, `default COST`, `THREAD STATE COST` or \
                     `THREAD STATE KIND COST`",
                ))
            }
        }
    }
    if let Some(d) = default {
        for (k, g) in given.iter().enumerate() {
            if !g {
                costs.kind[k] = d;
            }
        }
    }
    Ok(costs)
}

/// The menu of a `--model` name.
///
/// Errors: unknown model; a model without fences to synthesize.
fn model_menu(name: &str) -> Result<(cat::Model, Option<Menu>), Error> {
    let model = cat::builtin(name)?;
    let b = cat::builtin_name(name).unwrap_or("");
    match fence_synth::menu(b) {
        Some(m) => Ok((model, Some(m))),
        None if b == "sc" => Ok((model, None)),
        None => Err(Error::Usage(format!(
            "fence synthesis has no fence kinds for model `{name}`; models: tso, pso, rmo, \
             power, arm (aarch64), riscv"
        ))),
    }
}

/// The explicit engine's answer for TSO (unbounded, thesis §6.5) with the
/// same costs (kind `mfence`'s entries), to print beside the bounded one:
/// JSON `{verdict, cost, optimal, text}`.
fn explicit_tso(p: &Program, costs: &Costs, a: &FencesArgs) -> serde_json::Value {
    let mut ec = FenceCosts {
        per_location: Default::default(),
        default: costs.kind[0],
    };
    for (&(thread, state), &c) in &costs.at {
        ec.per_location.insert(FenceLocation { thread, state }, c);
    }
    for (&(thread, state, _), &c) in &costs.at_kind {
        ec.per_location.insert(FenceLocation { thread, state }, c);
    }
    let o = super::explicit::options(a.input.width, a.timeout);
    match explicit::fence_insertion(p, &o, &ec) {
        Err(e) => serde_json::json!({"verdict": "unsupported", "text": e.to_string()}),
        Ok(r) => {
            let (v, text) = match &r.verdict {
                FenceVerdict::Robust => ("robust", "robust, no fence needed".to_string()),
                FenceVerdict::Fences(l) => (
                    "fences",
                    format!(
                        "{} fence(s), cost {}{}",
                        l.len(),
                        r.cost,
                        if r.optimal { " (optimal)" } else { "" }
                    ),
                ),
                FenceVerdict::Unknown(w) => ("unknown", format!("unknown: {w}")),
            };
            serde_json::json!({"verdict": v, "cost": r.cost, "optimal": r.optimal, "text": text})
        }
    }
}

/// `bmc-rmm fences --model M --bound K FILE…`.
///
/// Exit: 0 every input robust up to K (with the fences printed), 1 a
/// cycle no fence breaks, 3 unknown.
fn run_bounded(a: &FencesArgs) -> Result<i32, Error> {
    a.solver.available()?;
    if a.input.files.is_empty() {
        return Err(Error::Usage("no input FILE given".into()));
    }
    let (model, m) = model_menu(&a.model)?;
    let bound = a.bound.unwrap_or(DEFAULT_BOUND);
    let files = crate::cli::inputs::expand(&a.input.files, &["rmm", "txt"])?;
    if a.emit.is_some() && files.len() > 1 {
        return Err(Error::Usage("--emit FILE takes a single input".into()));
    }
    let progs: Vec<(String, Program)> = files
        .into_iter()
        .map(|f| frontend::load_program(&f, a.input.format, Width(a.input.width)).map(|p| (f, p)))
        .collect::<Result<_, _>>()?;
    let mname = m.as_ref().map_or("sc", |m| m.model);
    let mut code = 0;
    for (f, p) in &progs {
        if p.nodes.is_some() {
            return Err(Error::Usage(format!(
                "{f}: fence synthesis does not handle PGAS programs"
            )));
        }
        let Some(m) = &m else {
            // SC: every program is robust; nothing to place.
            println!("{f}: fences [sc, bound {bound}]: robust, no fence needed");
            if let Some(out) = &a.emit {
                super::output::write_file(out, &bmc_rmm::program::render::native(p))?;
            }
            continue;
        };
        let costs = match &a.cost {
            Some(c) => read_synth_costs(c, p, m)?,
            None => Costs::defaults(m),
        };
        let opts = fence_synth::Options {
            solver: a.solver,
            limits: Limits {
                bound,
                width: a.input.width,
                deadline: crate::cli::batch::deadline(a.timeout),
                switches: a.input.switches,
            },
            max_iterations: 1000,
        };
        let r = fence_synth::synthesize(p, &model, m, &costs, &opts)?;
        let names: Vec<String> = r.fences.iter().map(|x| x.describe(p, m)).collect();
        let explicit = (m.model == "tso").then(|| explicit_tso(p, &costs, a));
        let (word, status) = match &r.outcome {
            Outcome::Robust => ("robust", 0),
            Outcome::Unfixable => ("unfixable", 1),
            Outcome::Unknown(_) => ("unknown", 3),
        };
        code = code.max(status);
        let truncated = r
            .last
            .as_ref()
            .map(|l| l.truncated.clone())
            .unwrap_or_default();
        if a.input.json {
            let reason = match &r.outcome {
                Outcome::Unknown(w) => Some(w.clone()),
                _ => None,
            };
            println!(
                "{}",
                serde_json::json!({"file": f, "model": mname, "engine": "sat", "bound": bound,
                    "verdict": word, "fences": names, "count": r.fences.len(), "cost": r.cost,
                    "optimal": r.optimal, "checks": r.checks, "cycles": r.cycles,
                    "candidates": r.candidates, "truncated": truncated, "reason": reason,
                    "time": r.time, "explicit": explicit})
            );
        } else {
            let head = format!("{f}: fences [{mname}, bound {bound}]");
            match &r.outcome {
                Outcome::Robust if r.fences.is_empty() => {
                    println!("{head}: robust up to bound {bound}, no fence needed")
                }
                Outcome::Robust => println!(
                    "{head}: robust up to bound {bound} with {} fence(s), cost {}{}: {}",
                    r.fences.len(),
                    r.cost,
                    if r.optimal {
                        " (optimal for the bound)"
                    } else {
                        ""
                    },
                    names.join(" ")
                ),
                Outcome::Unfixable => {
                    let cyc = r
                        .last
                        .as_ref()
                        .and_then(|l| Some(l.witness.as_ref()?.render_cycle(l.cycle.as_ref()?)))
                        .unwrap_or_default();
                    println!(
                        "{head}: NOT ROBUST, and no fence of {} breaks this cycle{}:\n  {cyc}",
                        mname,
                        if names.is_empty() {
                            String::new()
                        } else {
                            format!(" (with {})", names.join(" "))
                        }
                    )
                }
                Outcome::Unknown(why) => println!("{head}: unknown: {why}"),
            }
            println!(
                "  {} robustness check(s), {} cycle(s), {} candidate placement(s), {:.3}s",
                r.checks, r.cycles, r.candidates, r.time
            );
            if let Some(e) = &explicit {
                println!(
                    "  explicit engine (unbounded): {}",
                    e["text"].as_str().unwrap_or("")
                );
            }
            if !truncated.is_empty() {
                println!(
                    "  note: the bound cut some paths of thread(s) {}; the answer holds up to bound {bound} only",
                    truncated.join(", ")
                );
            }
        }
        if let (Some(out), Outcome::Robust) = (&a.emit, &r.outcome) {
            let (fenced, _) = fence_synth::apply(p, m, &r.fences);
            super::output::write_file(out, &bmc_rmm::program::render::native(&fenced))?;
        }
    }
    Ok(code)
}
