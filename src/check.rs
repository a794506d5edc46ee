//! The checks a user runs (`reach`, `robust`) on top of the bounded
//! engine, with their verdicts, witnesses and renderings.
//!
//! * `reach`: is a goal (or assertion failure) reachable in an execution
//!   consistent with the model, within the bound?
//! * `robust`: is there an execution consistent with the model whose
//!   hb = po ∪ rf ∪ co ∪ fr is cyclic (thesis 003 §2.8, Lemma 2.16)?

use crate::cat::Model;
use crate::diag::Error;
use crate::engine::{witness::Cycle, Deadline, Encoder, Execution, Stats};
use crate::program::Program;
use std::time::Instant;

/// The answer of a check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Goal reachable / hb cycle found (exit 1).
    Violation,
    /// None within the bound (exit 0).
    NoViolation,
    /// Timeout or limit (exit 3).
    Unknown,
}

impl Verdict {
    /// Process exit status for this verdict.
    pub fn exit_code(self) -> i32 {
        match self {
            Verdict::Violation => 1,
            Verdict::NoViolation => 0,
            Verdict::Unknown => 3,
        }
    }
}

/// Which check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum CheckKind {
    /// Goal reachability.
    Reach,
    /// Robustness (hb acyclicity).
    Robust,
}

/// Result of one check on one program.
#[derive(Clone, Debug, serde::Serialize)]
pub struct CheckResult {
    /// Which check.
    pub check: CheckKind,
    /// The answer.
    pub verdict: Verdict,
    /// The goal reached (index into `Program::goals`) for `reach`.
    pub goal: Option<usize>,
    /// The witness execution.
    pub witness: Option<Execution>,
    /// The hb cycle for `robust`.
    pub cycle: Option<Cycle>,
    /// The TSO attack pair (delayed store, overtaking load) if any.
    pub attack: Option<(usize, usize)>,
    /// fr edges of the witness (for DOT).
    #[serde(skip)]
    pub fr: Vec<(usize, usize)>,
    /// Threads whose paths the bound cut.
    pub truncated: Vec<String>,
    /// Why unknown.
    pub reason: Option<String>,
    /// Seconds.
    pub time: f64,
    /// Engine statistics.
    pub stats: Stats,
}

/// Runs `reach`: tries each goal in order.
///
/// Errors: none besides solver failures; timeouts give `Unknown`.
pub fn reach(enc: &mut Encoder, deadline: Deadline) -> CheckResult {
    let start = Instant::now();
    let mut res = empty(CheckKind::Reach, enc);
    if enc.prog.goals.is_empty() {
        res.verdict = Verdict::NoViolation;
        res.reason = Some("the program declares no goal or assertion".into());
    }
    for g in 0..enc.prog.goals.len() {
        let l = enc.goal_lit(g);
        match enc.find_shortest(&[l], deadline) {
            Ok(Some(x)) => {
                res.verdict = Verdict::Violation;
                res.goal = Some(g);
                res.witness = Some(x);
                break;
            }
            Ok(None) => res.verdict = Verdict::NoViolation,
            Err(e) => {
                res.verdict = Verdict::Unknown;
                res.reason = Some(e.to_string());
                break;
            }
        }
    }
    res.time = start.elapsed().as_secs_f64();
    res.stats = enc.stats.clone();
    res
}

/// Runs `robust`: searches an execution with a cyclic hb.
pub fn robust(enc: &mut Encoder, deadline: Deadline) -> CheckResult {
    let start = Instant::now();
    let mut res = empty(CheckKind::Robust, enc);
    // PGAS: hb is taken on the trace (popa/popb identified with their
    // issue, thesis §8.2), which `acyclic po | com` does not cover.
    let model_hb = enc
        .model
        .acyclic_contains_hb()
        .filter(|_| enc.pgas.is_none());
    if let Some(ax) = model_hb {
        res.reason = Some(format!(
            "the model's axiom `{ax}` makes po ∪ rf ∪ co ∪ fr acyclic in every execution"
        ));
        res.time = start.elapsed().as_secs_f64();
        return res;
    }
    let act = enc.robust_act();
    match enc.find_shortest(&[act], deadline) {
        Ok(Some(x)) => res.set_cycle_witness(x, enc.pgas.is_some()),
        Ok(None) => res.verdict = Verdict::NoViolation,
        Err(e) => {
            res.verdict = Verdict::Unknown;
            res.reason = Some(e.to_string());
        }
    }
    res.time = start.elapsed().as_secs_f64();
    res.stats = enc.stats.clone();
    res
}

impl CheckResult {
    /// A result of `check` with no violation, no witness and no time yet
    /// (the start of every backend's answer).
    pub fn new(check: CheckKind) -> CheckResult {
        CheckResult {
            check,
            verdict: Verdict::NoViolation,
            goal: None,
            witness: None,
            cycle: None,
            attack: None,
            fr: Vec::new(),
            truncated: Vec::new(),
            reason: None,
            time: 0.0,
            stats: Stats::default(),
        }
    }
}

impl CheckResult {
    /// Records a robustness violation with its witness `x`: the shortest
    /// hb cycle, computed from the execution alone so that every backend
    /// renders it alike (for PGAS, `pgas`, on the trace graph, thesis
    /// 003 §8.2), the TSO attack pair on it, and the fr edges (for DOT).
    pub fn set_cycle_witness(&mut self, x: Execution, pgas: bool) {
        let (cycle, fr) = x.hb_cycle();
        let cycle = if pgas { x.pgas_hb_cycle() } else { cycle };
        self.verdict = Verdict::Violation;
        self.attack = cycle.as_ref().and_then(|c| x.attack_pair(c));
        self.cycle = cycle;
        self.fr = fr;
        self.witness = Some(x);
    }
}

fn empty(check: CheckKind, enc: &Encoder) -> CheckResult {
    CheckResult {
        truncated: enc
            .truncated()
            .into_iter()
            .map(|t| enc.prog.thread_name(t).to_string())
            .collect(),
        ..CheckResult::new(check)
    }
}

/// The shortest hb cycle of the encoder's current candidate (over the
/// executed memory events of `x`, its extraction), and its fr edges, from
/// the encoder's concrete relations. [`Execution::hb_cycle`] computes the
/// same from the execution alone and is what [`robust`] uses; this is kept
/// as its reference (tests/replay.rs compares them).
pub fn hb_cycle_enc(enc: &mut Encoder, x: &Execution) -> (Option<Cycle>, Vec<(usize, usize)>) {
    let rels: Vec<(&str, crate::cat::eval::Mat)> = ["po", "rf", "co", "fr"]
        .iter()
        .map(|r| (*r, enc.concrete_rel(r)))
        .collect();
    let mem: Vec<usize> = x
        .events
        .iter()
        .filter(|e| e.kind == "R" || e.kind == "W")
        .map(|e| e.id)
        .collect();
    let fr: Vec<(usize, usize)> = mem
        .iter()
        .flat_map(|&a| mem.iter().map(move |&b| (a, b)))
        .filter(|&(a, b)| rels[3].1.get(a, b))
        .collect();
    let edge = |a: usize, b: usize| {
        rels.iter()
            .find(|(_, m)| m.get(a, b))
            .map(|(n, _)| n.to_string())
    };
    let best =
        crate::engine::witness::shortest_cycle(mem.len(), |i, j| edge(mem[i], mem[j]).is_some())
            .map(|p| p.into_iter().map(|i| mem[i]).collect::<Vec<usize>>());
    let cycle = best.map(|p| Cycle {
        edges: (0..p.len())
            .map(|i| {
                let (a, b) = (p[i], p[(i + 1) % p.len()]);
                (a, edge(a, b).unwrap_or_default(), b)
            })
            .collect(),
    });
    (cycle, fr)
}

/// Parses a model by built-in name or file.
///
/// Errors: unknown name; the file's syntax/type errors.
pub fn load_model(name: &str, file: Option<&str>) -> Result<Model, Error> {
    match file {
        Some(f) => crate::cat::parse::parse_model(&crate::diag::SourceFile::read(f)?),
        None => crate::cat::builtin(name),
    }
}

/// Text rendering of a result.
pub fn render(p: &Program, file: &str, model: &str, bound: u32, r: &CheckResult) -> String {
    let mut s = String::new();
    let what = match r.check {
        CheckKind::Reach => "reach",
        CheckKind::Robust => "robust",
    };
    let verdict = match (r.check, r.verdict) {
        (CheckKind::Reach, Verdict::Violation) => {
            let g = r.goal.map(|g| &p.goals[g]);
            let name = g
                .map(|g| match (&g.name, g.kind) {
                    (Some(n), _) => format!("goal `{n}`"),
                    (None, crate::program::GoalKind::Assertion) => {
                        "an assertion failure".to_string()
                    }
                    (None, _) => format!("goal #{}", r.goal.unwrap_or(0) + 1),
                })
                .unwrap_or_default();
            format!("REACHABLE: {name} is reachable within bound {bound}")
        }
        (CheckKind::Reach, Verdict::NoViolation) => match &r.reason {
            Some(why) => format!("unreachable ({why})"),
            None => format!("unreachable: no goal is reachable up to bound {bound}"),
        },
        (CheckKind::Robust, Verdict::Violation) => {
            format!(
                "NOT ROBUST: an execution with a cyclic happens-before exists within bound {bound}"
            )
        }
        (CheckKind::Robust, Verdict::NoViolation) => {
            format!("robust: no happens-before cycle up to bound {bound}")
        }
        (_, Verdict::Unknown) => format!(
            "unknown: {}",
            r.reason
                .as_deref()
                .unwrap_or_default()
                .trim_start_matches("unknown: ")
        ),
    };
    s.push_str(&format!("{file}: {what} [{model}]: {verdict}\n"));
    if !r.truncated.is_empty() && r.verdict != Verdict::Violation {
        s.push_str(&format!(
            "  note: the bound cut some paths of thread(s) {}; the answer holds up to bound {bound} only\n",
            r.truncated.join(", ")
        ));
    }
    if let (Some(x), Some(c)) = (&r.witness, &r.cycle) {
        s.push_str(&format!("  cycle: {}\n", x.render_cycle(c)));
        if let Some((w, rd)) = r.attack {
            let (lw, lr) = (
                x.event(w).map(|e| e.label.clone()),
                x.event(rd).map(|e| e.label.clone()),
            );
            s.push_str(&format!(
                "  attack: the store {} is delayed (store buffer) past the load {} of the same thread\n",
                lw.unwrap_or_default(),
                lr.unwrap_or_default()
            ));
        }
    }
    if let Some(x) = &r.witness {
        s.push_str("  execution:\n");
        s.push_str(&x.render(p));
    }
    s
}
