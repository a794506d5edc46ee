//! Violation witnesses in SV-COMP's witness format 2.0 (YAML, one
//! `violation_sequence` entry; sosy-lab's sv-witnesses specification) and
//! their replay on the operational SC semantics of the SMC engine.
//!
//! Content of a witness written here, in the order of the interleaving:
//! * a segment per run of one thread (its steps between two context
//!   switches): an `assumption` waypoint with the constraint `1` at the
//!   location of the run's first step, carrying `thread_id` (the
//!   concurrency extension of the format: the thread taking the steps;
//!   0 is `main`, then threads in creation order);
//! * a segment per value of a `__VERIFIER_nondet_*()` call: a
//!   `function_return` waypoint with the constraint `\result == V`
//!   (`acsl_expression`) at the call;
//! * the final segment: the `target` waypoint at the error call.
//!
//! A segment is passed when its thread is about to execute a step at the
//! waypoint's location (an assumption holds at the sequence point before
//! its location); steps between two waypoints belong to the thread of
//! the last waypoint passed. [`replay`] follows exactly this reading,
//! and, as this module writes them, expects a `function_return` waypoint
//! before every value a thread draws: a draw (the front-end's bit-by-bit
//! choices of one call) starts only right after its thread passed one,
//! and follows its value.

use super::task::Task;
use crate::engines::smc::semantics::{Model, Semantics, State, Step};
use crate::program::{Command, Program, RegId, Thread, Width};
use sha2::{Digest, Sha256};
use yaml_rust2::yaml::Hash;
use yaml_rust2::{Yaml, YamlEmitter, YamlLoader};

/// SV-COMP's specification text of `unreach-call`.
pub const SPECIFICATION: &str = "CHECK( init(main()), LTL(G ! call(reach_error())) )";

/// What a waypoint says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The thread runs from here (`assumption`, constraint `1`).
    Run,
    /// The nondeterministic call here returns this value.
    Returns(i64),
    /// The error call (`target`).
    Target,
}

/// One waypoint of a witness, as [`read`] gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Waypoint {
    /// What it says.
    pub kind: Kind,
    /// The thread (`thread_id`).
    pub thread: u32,
    /// 1-based line and column.
    pub at: (usize, usize),
}

/// The 1-based (line, column) of instruction `i` of thread `t` in the
/// program's source ((0, 0) without one).
fn location(p: &Program, t: usize, i: usize) -> (usize, usize) {
    match &p.source {
        Some(src) => src.line_col(p.threads[t].instrs[i].span.start),
        None => (0, 0),
    }
}

/// The register a nondeterministic choice writes: instruction `i` of `th`
/// is one of exactly two alternatives from its state, at one location,
/// one an assignment to a register and the other `nop` (how the C
/// front-end draws a `__VERIFIER_nondet_*()` value bit by bit).
pub fn nondet_choice(th: &Thread, i: usize) -> Option<RegId> {
    let from = th.instrs[i].from;
    let alts: Vec<usize> = (0..th.instrs.len())
        .filter(|&x| th.instrs[x].from == from)
        .collect();
    nondet_choice_among(th, &alts)
}

/// [`nondet_choice`] of the state whose outgoing instructions are `alts`
/// (indices into `th.instrs`, [`Thread::outgoing`]): for a caller that
/// asks about every instruction, without a scan of the thread per
/// question.
pub fn nondet_choice_among(th: &Thread, alts: &[usize]) -> Option<RegId> {
    let [a, b] = alts else {
        return None;
    };
    let (a, b) = (&th.instrs[*a], &th.instrs[*b]);
    if a.span != b.span {
        return None;
    }
    match (&a.cmd, &b.cmd) {
        (Command::Assign { reg, .. }, Command::Nop)
        | (Command::Nop, Command::Assign { reg, .. }) => Some(*reg),
        _ => None,
    }
}

/// `v` (wrapped to `w`) as a signed C value.
fn signed(v: i64, w: Width) -> i64 {
    let v = w.wrap(v);
    if w.0 < 64 && v >= 1i64 << (w.0 - 1) {
        v - (1i64 << w.0)
    } else {
        v
    }
}

/// The waypoints of the interleaving `steps` (SMC steps of `p` under SC)
/// reaching goal `goal` (module doc).
pub fn waypoints(p: &Program, w: Width, goal: usize, steps: &[Step]) -> Vec<Waypoint> {
    let sem = Semantics::new(p, Model::Sc, w, u32::MAX);
    let mut s = sem.initial();
    let mut out = Vec::new();
    let mut last_thread: Option<u32> = None;
    // Per thread: the open nondet group (waypoint index, register).
    let mut group: Vec<Option<(usize, RegId, crate::diag::Span)>> = vec![None; p.threads.len()];
    for &st in steps {
        let Step::Instr { thread, instr } = st else {
            let _ = sem.apply(&mut s, st);
            continue;
        };
        let (t, i) = (thread as usize, instr as usize);
        let at = location(p, t, i);
        if last_thread != Some(thread) {
            out.push(Waypoint {
                kind: Kind::Run,
                thread,
                at,
            });
            last_thread = Some(thread);
        }
        let span = p.threads[t].instrs[i].span;
        match nondet_choice(&p.threads[t], i) {
            Some(reg) if group[t].is_none_or(|(_, _, sp)| sp != span) => {
                group[t] = Some((out.len(), reg, span));
                out.push(Waypoint {
                    kind: Kind::Returns(0),
                    thread,
                    at,
                });
            }
            Some(_) => {}
            None => group[t] = None,
        }
        let _ = sem.apply(&mut s, st);
        if let Some((k, reg, _)) = group[t] {
            let v = s.regs[t].get(reg.0 as usize).copied().unwrap_or(0);
            out[k].kind = Kind::Returns(signed(v, w));
        }
    }
    let at = match &p.source {
        Some(src) => src.line_col(p.goals[goal].span.start),
        None => (0, 0),
    };
    out.push(Waypoint {
        kind: Kind::Target,
        thread: last_thread.unwrap_or(0),
        at,
    });
    out
}

/// An SC interleaving of the bounded engine's execution `x` of `p`
/// (values of `w` bits) that reaches a goal on the operational semantics:
/// the goal and the steps up to it. Each thread's steps are its path in
/// `x` (`Execution::path`, nondeterministic choices included); they are
/// ordered by a topological order of program order, rf, co and fr between
/// the steps holding the events (acyclic in an execution the `sc` model
/// allows), keeping a thread running as long as the order lets it (few
/// context switches). The order is then executed on the semantics, so
/// the result is an execution of the program in any case.
///
/// `None`: the relations are cyclic, or the steps do not run (a blocked
/// step), or they reach no goal — the execution has no SC interleaving.
pub fn interleave(
    p: &Program,
    w: Width,
    x: &crate::engines::bounded::Execution,
) -> Option<(usize, Vec<Step>)> {
    use crate::collections::HashMap;
    let n_threads = x.path.len().min(p.threads.len());
    // Node of (thread, step): offset of the thread + step.
    let mut offset = vec![0usize; n_threads + 1];
    for (t, path) in x.path.iter().enumerate().take(n_threads) {
        offset[t + 1] = offset[t] + path.len();
    }
    let nodes = offset[n_threads];
    let idx: HashMap<usize, usize> = x
        .events
        .iter()
        .enumerate()
        .map(|(i, e)| (e.id, i))
        .collect();
    let node_of = |id: usize| -> Option<usize> {
        let e = &x.events[*idx.get(&id)?];
        let t = e.thread as usize;
        (t < n_threads && (e.step as usize) < x.path[t].len()).then(|| offset[t] + e.step as usize)
    };
    let mut succ: Vec<Vec<usize>> = vec![Vec::new(); nodes];
    let mut edge = |a: Option<usize>, b: Option<usize>| {
        if let (Some(a), Some(b)) = (a, b) {
            if a != b {
                succ[a].push(b);
            }
        }
    };
    for (path, &base) in x.path.iter().zip(&offset).take(n_threads) {
        for k in 1..path.len() {
            edge(Some(base + k - 1), Some(base + k));
        }
    }
    // co per location; the location of an event.
    let loc = |id: usize| idx.get(&id).map(|&i| (x.events[i].lock, x.events[i].addr));
    let mut co_of: HashMap<(bool, Option<i64>), usize> = HashMap::default();
    for (c, ws) in x.co.iter().enumerate() {
        for pair in ws.windows(2) {
            edge(node_of(pair[0]), node_of(pair[1]));
        }
        if let Some(l) = ws.first().and_then(|&w0| loc(w0)) {
            co_of.insert(l, c);
        }
    }
    for &(wr, rd) in &x.rf {
        edge(node_of(wr), node_of(rd));
        // fr: the read before every write co-after its source.
        if let Some(c) = loc(wr).and_then(|l| co_of.get(&l)) {
            let ws = &x.co[*c];
            if let Some(pos) = ws.iter().position(|&v| v == wr) {
                for &later in &ws[pos + 1..] {
                    edge(node_of(rd), node_of(later));
                }
            }
        }
    }
    for &rd in &x.rf_init {
        if let Some(c) = loc(rd).and_then(|l| co_of.get(&l)) {
            for &wr in &x.co[*c] {
                edge(node_of(rd), node_of(wr));
            }
        }
    }
    // Kahn's algorithm, staying on the last thread while it can go on.
    let mut indeg = vec![0usize; nodes];
    for s in &succ {
        for &b in s {
            indeg[b] += 1;
        }
    }
    let thread_of = |v: usize| (0..n_threads).find(|&t| v < offset[t + 1]).unwrap_or(0);
    let mut next = offset[..n_threads].to_vec();
    let mut order = Vec::with_capacity(nodes);
    let mut last = 0usize;
    while order.len() < nodes {
        let ready = |t: usize| next[t] < offset[t + 1] && indeg[next[t]] == 0;
        let t = if ready(last) {
            last
        } else {
            (0..n_threads).find(|&t| ready(t))?
        };
        let v = next[t];
        next[t] += 1;
        for &b in &succ[v] {
            indeg[b] -= 1;
        }
        order.push(v);
        last = t;
    }
    // Run it on the semantics up to the first goal.
    let sem = Semantics::new(p, Model::Sc, w, u32::MAX);
    let mut s = sem.initial();
    let mut steps = Vec::new();
    if let Some(g) = sem.goal(&s) {
        return Some((g, steps));
    }
    for v in order {
        let t = thread_of(v);
        let st = Step::Instr {
            thread: t as u32,
            instr: u32::try_from(x.path[t][v - offset[t]]).ok()?,
        };
        sem.can(&s, st).ok()?;
        sem.apply(&mut s, st).ok()?;
        steps.push(st);
        if let Some(g) = sem.goal(&s) {
            return Some((g, steps));
        }
    }
    None
}

fn y(s: &str) -> Yaml {
    Yaml::String(s.to_string())
}

fn map(entries: Vec<(&str, Yaml)>) -> Yaml {
    let mut h = Hash::new();
    for (k, v) in entries {
        h.insert(y(k), v);
    }
    Yaml::Hash(h)
}

/// Now as ISO 8601 UTC (`2026-11-27T10:53:01Z`).
fn now_utc() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs()) as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil date from days since 1970-01-01 (proleptic Gregorian).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let yr = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{yr:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// An RFC 9562 UUID (version 8, custom) from the SHA-256 of `seed`.
fn uuid_of(seed: &str) -> String {
    let h = Sha256::digest(seed.as_bytes());
    let mut b: [u8; 16] = h[..16].try_into().unwrap_or([0; 16]);
    b[6] = (b[6] & 0x0f) | 0x80;
    b[8] = (b[8] & 0x3f) | 0x80;
    let x: String = b.iter().map(|v| format!("{v:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &x[..8],
        &x[8..12],
        &x[12..16],
        &x[16..20],
        &x[20..]
    )
}

/// The witness (YAML text) of goal `goal` reached by `steps` in `p`
/// (the program of `task`'s input at `--unwind unwind`).
pub fn write(task: &Task, p: &Program, goal: usize, steps: &[Step], unwind: u32) -> String {
    let w = task.data_model.width();
    let wps = waypoints(p, w, goal, steps);
    let file = task.input_names.first().cloned().unwrap_or_default();
    let hash = task
        .input_files
        .first()
        .map(|f| super::task::sha256_file(f))
        .unwrap_or_default();
    let function = |t: u32| -> String {
        if (t as usize) < p.threads.len() {
            p.thread_name(crate::program::ThreadId(t)).to_string()
        } else {
            "main".into()
        }
    };
    let segment = |wp: &Waypoint| {
        let (ty, constraint) = match &wp.kind {
            Kind::Run => (
                "assumption",
                Some(map(vec![("value", y("1")), ("format", y("c_expression"))])),
            ),
            Kind::Returns(v) => (
                "function_return",
                Some(map(vec![
                    ("value", y(&format!("\\result == {v}"))),
                    ("format", y("acsl_expression")),
                ])),
            ),
            Kind::Target => ("target", None),
        };
        let mut e = vec![("type", y(ty)), ("action", y("follow"))];
        if let Some(c) = constraint {
            e.push(("constraint", c));
        }
        e.push((
            "location",
            map(vec![
                ("file_name", y(&file)),
                ("line", Yaml::Integer(wp.at.0 as i64)),
                ("column", Yaml::Integer(wp.at.1 as i64)),
                ("function", y(&function(wp.thread))),
            ]),
        ));
        e.push(("thread_id", Yaml::Integer(i64::from(wp.thread))));
        map(vec![(
            "segment",
            Yaml::Array(vec![map(vec![("waypoint", map(e))])]),
        )])
    };
    let content: Vec<Yaml> = wps.iter().map(segment).collect();
    let mut hashes = Hash::new();
    hashes.insert(y(&file), y(&hash));
    let seed = format!("{}{hash}{:?}", task.path.display(), wps);
    let entry = map(vec![
        ("entry_type", y("violation_sequence")),
        (
            "metadata",
            map(vec![
                ("format_version", y("2.0")),
                ("uuid", y(&uuid_of(&seed))),
                ("creation_time", y(&now_utc())),
                (
                    "producer",
                    map(vec![
                        ("name", y("bmc-rmm")),
                        ("version", y(env!("CARGO_PKG_VERSION"))),
                        ("configuration", y(&format!("svcomp --unwind {unwind}"))),
                    ]),
                ),
                (
                    "task",
                    map(vec![
                        ("input_files", Yaml::Array(vec![y(&file)])),
                        ("input_file_hashes", Yaml::Hash(hashes)),
                        ("specification", y(SPECIFICATION)),
                        ("data_model", y(task.data_model.name())),
                        ("language", y("C")),
                    ]),
                ),
            ]),
        ),
        ("content", Yaml::Array(content)),
    ]);
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = YamlEmitter::new(&mut out).dump(&Yaml::Array(vec![entry]));
    out.push('\n');
    out
}

/// The waypoints of a witness's first `violation_sequence` entry and the
/// unwinding its producer configuration names (`--unwind N`).
///
/// Errors: not YAML, no such entry, or a waypoint without a location or
/// thread (the message says which).
pub fn read(text: &str) -> Result<(Vec<Waypoint>, Option<u32>), String> {
    let docs = YamlLoader::load_from_str(text).map_err(|e| format!("YAML: {e}"))?;
    let entries = docs
        .first()
        .and_then(Yaml::as_vec)
        .ok_or("not a list of entries")?;
    let entry = entries
        .iter()
        .find(|e| e["entry_type"].as_str() == Some("violation_sequence"))
        .ok_or("no violation_sequence entry")?;
    let unwind = entry["metadata"]["producer"]["configuration"]
        .as_str()
        .and_then(|c| c.split("--unwind ").nth(1))
        .and_then(|n| n.split_whitespace().next()?.parse().ok());
    let mut out = Vec::new();
    for seg in entry["content"].as_vec().ok_or("no content")? {
        for wp in seg["segment"]
            .as_vec()
            .ok_or("a segment without waypoints")?
        {
            let wp = &wp["waypoint"];
            let loc = &wp["location"];
            let at = (
                loc["line"].as_i64().ok_or("a waypoint without line")? as usize,
                loc["column"].as_i64().unwrap_or(0) as usize,
            );
            let thread = wp["thread_id"]
                .as_i64()
                .ok_or("a waypoint without thread_id")? as u32;
            let kind = match wp["type"].as_str() {
                Some("target") => Kind::Target,
                Some("function_return") => {
                    let c = wp["constraint"]["value"].as_str().unwrap_or("");
                    let v = c
                        .strip_prefix("\\result == ")
                        .and_then(|v| v.trim().parse().ok())
                        .ok_or_else(|| format!("unsupported constraint `{c}`"))?;
                    Kind::Returns(v)
                }
                Some("assumption") => Kind::Run,
                other => return Err(format!("unsupported waypoint type {other:?}")),
            };
            out.push(Waypoint { kind, thread, at });
        }
    }
    Ok((out, unwind))
}

/// Replays the witness `wps` on `p` under the operational SC semantics
/// (values of `w` bits): searches for an execution that passes the
/// waypoints in order (module doc) — only the thread of the last waypoint
/// passed moves, and nondeterministic choices follow the value of that
/// thread's last `function_return` waypoint — and reaches a goal once
/// every waypoint before the target is passed. Returns the goal reached.
///
/// Errors: no execution matches (the witness is rejected), with the
/// number of waypoints the best attempt passed.
pub fn replay(p: &Program, w: Width, wps: &[Waypoint]) -> Result<usize, String> {
    // The search recurses once per step: run it on a thread with a large
    // stack, as the C front-end does.
    std::thread::scope(|sc| {
        std::thread::Builder::new()
            .name("witness-replay".into())
            .stack_size(crate::frontend::c::PIPELINE_STACK)
            .spawn_scoped(sc, || replay_here(p, w, wps))
            .map_err(|e| format!("cannot start the replay: {e}"))?
            .join()
            .unwrap_or_else(|_| Err("the replay failed".into()))
    })
}

/// [`replay`] on the current thread.
fn replay_here(p: &Program, w: Width, wps: &[Waypoint]) -> Result<usize, String> {
    let sem = Semantics::new(p, Model::Sc, w, u32::MAX);
    let end = wps
        .iter()
        .position(|x| x.kind == Kind::Target)
        .unwrap_or(wps.len());
    let mut ctl = Control {
        best: 0,
        budget: REPLAY_BUDGET,
        seen: crate::collections::HashSet::default(),
    };
    let init = Node {
        s: sem.initial(),
        next: 0,
        mover: None,
        value: vec![None; p.threads.len()],
        draw: vec![None; p.threads.len()],
    };
    let r = search(&sem, wps, end, init, &mut ctl);
    r.ok_or_else(|| {
        format!(
            "no execution follows the witness (passed {} of {end} waypoints{})",
            ctl.best,
            if ctl.budget == 0 {
                "; search budget used up"
            } else {
                ""
            }
        )
    })
}

/// Configurations [`replay`] visits at most.
const REPLAY_BUDGET: u64 = 2_000_000;

/// The replay's bookkeeping: the most waypoints passed, the configurations
/// left to visit, and those visited.
struct Control {
    best: usize,
    budget: u64,
    seen: crate::collections::HashSet<Node>,
}

/// A configuration of the replay: the machine state, the next waypoint,
/// the thread allowed to move, and each thread's current nondet value.
#[derive(Clone, PartialEq, Eq, Hash)]
struct Node {
    s: State,
    next: usize,
    mover: Option<u32>,
    value: Vec<Option<i64>>,
    /// Per thread: the call (span start) whose value it is drawing,
    /// once it took a choice since its last `function_return` waypoint.
    draw: Vec<Option<usize>>,
}

fn search(
    sem: &Semantics,
    wps: &[Waypoint],
    end: usize,
    n: Node,
    ctl: &mut Control,
) -> Option<usize> {
    ctl.best = ctl.best.max(n.next);
    if ctl.budget == 0 || !ctl.seen.insert(n.clone()) {
        return None;
    }
    ctl.budget -= 1;
    if n.next == end {
        if let Some(g) = sem.goal(&n.s) {
            return Some(g);
        }
    }
    let p = sem.prog;
    let mut cut = false;
    let enabled = sem.enabled(&n.s, &mut cut);
    // Pass the next waypoint: its thread has a step at its location.
    if n.next < end {
        let wp = &wps[n.next];
        let here = enabled.iter().any(|st| match *st {
            Step::Instr { thread, instr } => {
                thread == wp.thread && location(p, thread as usize, instr as usize) == wp.at
            }
            Step::Flush { .. } => false,
        });
        if here {
            let mut m = n.clone();
            m.next += 1;
            m.mover = Some(wp.thread);
            if let Kind::Returns(v) = wp.kind {
                m.value[wp.thread as usize] = Some(v);
                m.draw[wp.thread as usize] = None;
            }
            if let Some(g) = search(sem, wps, end, m, ctl) {
                return Some(g);
            }
        }
    }
    // A step of the moving thread.
    let mover = n.mover?;
    for st in enabled {
        let Step::Instr { thread, instr } = st else {
            continue;
        };
        if thread != mover {
            continue;
        }
        let (t, i) = (thread as usize, instr as usize);
        let mut s = n.s.clone();
        if sem.apply(&mut s, st).is_err() {
            continue;
        }
        let mut value = n.value.clone();
        let mut draw = n.draw.clone();
        let at = p.threads[t].instrs[i].span.start;
        let choice = nondet_choice(&p.threads[t], i);
        if choice.is_none() && draw[t].is_some() {
            // The draw is over: its value is used up.
            value[t] = None;
            draw[t] = None;
        }
        if choice.is_some() {
            // A draw starts only after its `function_return` waypoint
            // (the writer names every one), and one call at a time.
            if value[t].is_none() || draw[t].is_some_and(|d| d != at) {
                continue;
            }
            draw[t] = Some(at);
        }
        if let (Some(reg), Some(v)) = (choice, value[t]) {
            // The bits drawn so far must be those of the value: the mask
            // up to the highest bit the assignment alternative sets.
            let got = s.regs[t].get(reg.0 as usize).copied().unwrap_or(0);
            let alt = p.threads[t]
                .instrs
                .iter()
                .find(|x| x.from == p.threads[t].instrs[i].from && x.cmd != Command::Nop)
                .map(|x| match &x.cmd {
                    Command::Assign { value, .. } => {
                        let regs = &n.s.regs[t];
                        sem.width.wrap(value.eval(
                            sem.width,
                            crate::program::Spmd::default(),
                            &mut |r: RegId| regs.get(r.0 as usize).copied().unwrap_or(0),
                        ))
                    }
                    _ => 0,
                })
                .unwrap_or(0);
            let top = 64 - (alt as u64).leading_zeros();
            let mask = if top >= 64 { -1i64 } else { (1i64 << top) - 1 };
            if (got ^ sem.width.wrap(v)) & mask != 0 {
                continue;
            }
        }
        let m = Node {
            s,
            next: n.next,
            mover: n.mover,
            value,
            draw,
        };
        if let Some(g) = search(sem, wps, end, m, ctl) {
            return Some(g);
        }
    }
    None
}
