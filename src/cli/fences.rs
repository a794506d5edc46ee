//! `bmc-rmm fences`: a minimal-cost set of fences that makes each input
//! robust. Under tso without `--bound`, the explicit engine's fence
//! insertion (unbounded, thesis §6.5); with `--model M --bound K`, the
//! bounded fence synthesis for every built-in model
//! ([`bmc_rmm::engines::derived::fence_synth`]). Both read the same cost
//! files and print text or JSON answers and, with `--emit`, the fenced
//! program.

use super::args::FencesArgs;
use bmc_rmm::ask::{self, EngineChoice, Question};
use bmc_rmm::cat;
use bmc_rmm::diag::{Error, SourceFile, Span};
use bmc_rmm::engines::bounded::DEFAULT_BOUND;
use bmc_rmm::engines::derived::fence_synth::{self, Costs, Menu, Outcome};
use bmc_rmm::engines::explicit::{self, FenceVerdict};
use bmc_rmm::engines::normal_form;
use bmc_rmm::frontend;
use bmc_rmm::program::{Program, StateId, ThreadId, Width};

/// The largest fence cost a cost file may give (2⁴⁰): sums over any
/// realistic number of fences never saturate, so "optimal" stays exact.
pub const MAX_FENCE_COST: u64 = 1 << 40;

/// Reads a fence cost file of the explicit engine: lines `THREAD STATE
/// COST` (`#` comments); `default COST` sets the cost of every other
/// location. Returned as the costs of tso's one fence kind (`mfence`):
/// `default` its kind's cost, the lines its per-location costs.
///
/// Errors (located at the offending word): unknown thread or state, a
/// cost that is not a number or exceeds [`MAX_FENCE_COST`], a malformed
/// line.
pub fn read_costs(path: &str, p: &Program) -> Result<Costs, Error> {
    let src = SourceFile::read(path)?;
    let mut costs = Costs {
        kind: vec![1],
        at: Default::default(),
        at_kind: Default::default(),
    };
    for (span, words) in cost_lines(&src) {
        match words.as_slice() {
            [] => {}
            [("default", _), c] => costs.kind[0] = cost_word(&src, *c)?,
            [t, q, c] => {
                let at = location(&src, p, *t, *q)?;
                costs.at.insert(at, cost_word(&src, *c)?);
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

/// The request of `fences` on `p` under the built-in model `name` (`m`
/// its cat model) with `engine` and `costs` (`None`: the model's
/// defaults), within `--width`,
/// `--timeout`, the bound and the developer switches.
fn request<'a>(
    a: &FencesArgs,
    p: &'a Program,
    (m, name): (&'a cat::Model, &'a str),
    engine: EngineChoice,
    costs: Option<&'a Costs>,
    bound: u32,
) -> ask::Request<'a> {
    const FENCES: &[Question] = &[Question::Fences];
    let mut req = ask::Request::new(p, m, Some(name), FENCES, bound);
    req.engine = engine;
    req.width = a.input.width;
    req.timeout = a.timeout.map(std::time::Duration::from_secs_f64);
    req.alone = false;
    req.switches = a.input.switches;
    req.fence_costs = costs;
    req
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
    let tso = cat::builtin("tso")?;
    let mut code = 0;
    for (f, p) in &progs {
        let costs = match &a.cost {
            Some(c) => read_costs(c, p)?,
            None => Costs::defaults(&fence_synth::menu("tso").expect("tso places fences")),
        };
        let req = request(
            a,
            p,
            (&tso, "tso"),
            EngineChoice::Explicit,
            Some(&costs),
            DEFAULT_BOUND,
        );
        let reply = ask::ask(&req)?.remove(0);
        let rec = super::render::show(&super::render::Context::new(f, p, "tso"), &reply);
        print!("{}", printed(&rec, a.input.json));
        code = code.max(rec.status);
        let locs = match &reply.detail {
            ask::Detail::FenceInsertion(r) => match &r.verdict {
                FenceVerdict::Robust => Vec::new(),
                FenceVerdict::Fences(l) => l.clone(),
                FenceVerdict::Unknown(_) => continue,
            },
            _ => unreachable!("the explicit engine replies with its fence insertion"),
        };
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
    let builtin = cat::builtin_name(&a.model).unwrap_or("");
    let bound = a.bound.unwrap_or(DEFAULT_BOUND);
    let files = crate::cli::inputs::expand(&a.input.files, &["rmm", "txt"])?;
    if a.emit.is_some() && files.len() > 1 {
        return Err(Error::Usage("--emit FILE takes a single input".into()));
    }
    let progs: Vec<(String, Program)> = files
        .into_iter()
        .map(|f| frontend::load_program(&f, a.input.format, Width(a.input.width)).map(|p| (f, p)))
        .collect::<Result<_, _>>()?;
    let mut code = 0;
    for (f, p) in &progs {
        if p.nodes.is_some() {
            return Err(Error::Usage(format!(
                "{f}: fence synthesis does not handle PGAS programs"
            )));
        }
        let costs = match (&a.cost, &m) {
            (Some(c), Some(m)) => Some(read_synth_costs(c, p, m)?),
            _ => None,
        };
        let engine = EngineChoice::Bounded(Some(a.solver));
        let req = request(a, p, (&model, builtin), engine, costs.as_ref(), bound);
        let reply = ask::ask(&req)?.remove(0);
        let mut ctx = super::render::Context::new(f, p, builtin);
        ctx.bound = bound;
        let mut rec = super::render::show(&ctx, &reply);
        code = code.max(rec.status);
        let ask::Detail::FenceSynthesis(s) = reply.detail else {
            unreachable!("the bounded engine replies with its fence synthesis")
        };
        let fenced = match &s.synthesis {
            // SC: every program is robust; nothing to place.
            None => Some(p.clone()),
            Some((m, r)) => {
                matches!(r.outcome, Outcome::Robust).then(|| fence_synth::apply(p, m, &r.fences).0)
            }
        };
        if let (Some(fenced), Some(nf)) = (&fenced, normal_form::Model::from_name(builtin)) {
            let (text, json, violated) = every_bound(fenced, nf, a, bound);
            rec.text.push_str(&text);
            if let Some(serde_json::Value::Object(o)) = rec.json.first_mut() {
                o.insert("every_bound".into(), json);
            }
            if violated {
                code = code.max(1);
            }
        }
        print!("{}", printed(&rec, a.input.json));
        if let (Some(out), Some(fenced)) = (&a.emit, fenced) {
            super::output::write_file(out, &bmc_rmm::program::render::native(&fenced))?;
        }
    }
    Ok(code)
}

/// Whether the fenced program is robust for every bound, by the
/// normal-form engine (thesis ch. 3–5: TSO, PSO, RMO, Power in part):
/// the text line, the JSON value (`verdict`, `reason`, `time`) and
/// whether a cycle longer than the synthesis bound was found (then the
/// fences do not suffice and the exit status is 1). A program outside
/// the engine's class, or a limit (`--timeout`, default 10 s), leaves the
/// answer bounded and says why.
fn every_bound(
    fenced: &Program,
    model: normal_form::Model,
    a: &FencesArgs,
    bound: u32,
) -> (String, serde_json::Value, bool) {
    let opts = normal_form::Options {
        width: Width(a.input.width),
        limits: bmc_rmm::ask::explicit_options(
            a.input.width,
            Some(std::time::Duration::from_secs_f64(
                a.timeout.unwrap_or(10.0),
            )),
        )
        .limits,
        ..normal_form::Options::default()
    };
    let t0 = std::time::Instant::now();
    let (verdict, reason, violated) = match normal_form::check_robustness(fenced, model, &opts) {
        Ok(r) => match r.verdict {
            normal_form::Verdict::Robust => ("robust", String::new(), false),
            normal_form::Verdict::NotRobust(w) => (
                "not robust",
                format!(
                    "a cycle beyond bound {bound} ({} steps per thread):\n{w}",
                    w.steps_per_thread()
                ),
                true,
            ),
            normal_form::Verdict::Unknown(why) => ("unknown", why, false),
        },
        Err(e) => ("not checked", e.to_string(), false),
    };
    let secs = t0.elapsed().as_secs_f64();
    let text = match verdict {
        "robust" => format!(
            "  for every bound: robust with these fences (normal-form engine, {secs:.2}s)\n"
        ),
        "not robust" => format!("  for every bound: NOT robust with these fences: {reason}\n"),
        _ => format!("  for every bound: {verdict} ({reason}); the answer holds up to the bound\n"),
    };
    let json = serde_json::json!({"verdict": verdict, "reason": reason, "time": secs});
    (text, json, violated)
}

/// What `fences` prints of one record: its JSON record with `--json`
/// (when it has one), else its text.
fn printed(rec: &crate::cli::shard::Record, json: bool) -> String {
    match rec.json.first() {
        Some(j) if json => format!("{j}\n"),
        _ => rec.text.clone(),
    }
}
