//! Parameterized robustness against TSO (thesis `003_…` §6.3, Problem
//! 6.11): is every instance of a parameterized program — any number of
//! copies of each template thread — robust against TSO?
//!
//! The decision procedure is the thesis' reduction, run once per attack:
//!
//! 1. the attacks `(template, store, load)` of the template program
//!    ([`crate::engines::explicit::enumerate_attacks`], §6.1; attacks whose store
//!    and load are separated by a draining instruction on every path need
//!    no search);
//! 2. the parameterized program instrumented for the attack (§6.2, with
//!    the global flag of §6.3 so that exactly one copy becomes the
//!    attacker), as a Petri net whose tokens are thread copies
//!    ([`instrument`], Lemma 2.8);
//! 3. parameterized SC reachability of the goal state as coverability
//!    ([`coverability`], backward, with minimal bases): a template's
//!    initial place holds ω tokens.
//!
//! By Theorem 6.12 the program is robust for every number of copies iff no
//! attack's goal is coverable. Non-robustness is upward closed in the
//! instance (extra copies may stay idle), so the answer is exact: the
//! minimal instances (copies per template) from which the goal is
//! coverable are read off the basis of the backward fixpoint. For the
//! smallest one, the net's computation is mapped to thread copies and
//! replayed on the finite explicit engine
//! ([`crate::engines::explicit::witness_from_steps`]: the instrumented SC machine
//! of that instance), which also turns it into a TSO witness; the finite
//! engine's own [`crate::engines::explicit::check_robustness`] on the instance is
//! run as a cross-check.
//!
//! Limits: the data domain must be finite and small — values are the
//! W-bit integers of `--width`, and a place exists per (template, control
//! state, register valuation) and per (address, value); too many places,
//! basis elements, time or memory give `Unknown`. Refused with a located
//! error: PGAS programs, `rank`/`nodes`, `lwarx`/`stwcx.`, locks inside or
//! nested atomic sequences, and atomic steps over several addresses or lock
//! sections beyond one load then one store of one address
//! ([`crate::program::Program::section_beyond_rmw`]: robustness contracts
//! such a section, this engine's attacks take hb over events; the finite
//! explicit engine's attacks contract it and decide the instances).

pub mod coverability;
pub(crate) mod instrument;
pub mod petri;

use crate::diag::Error;
use crate::engines::explicit::{self, Attack, Robustness, TsoWitness};
use crate::engines::Switches;
use crate::program::{Program, ThreadId, Width};
use coverability::{backward, Basis, Budget};
use instrument::{Built, Ctx};
use petri::tokens;
use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// Options of [`check`].
#[derive(Clone, Debug)]
pub struct Options {
    /// Bit-width W of values and addresses (the data domain, 1..=32).
    pub width: Width,
    /// Wall-clock budget of the whole call (`None` = unlimited).
    pub timeout: Option<Duration>,
    /// Most places of one attack's net.
    pub max_places: usize,
    /// Most basis elements of one backward fixpoint.
    pub max_elements: usize,
    /// Developer switches ([`Switches::param_debug`]: progress on stderr).
    pub switches: Switches,
}

impl Default for Options {
    /// Width 16, 60 s, 200 000 places, 2 000 000 basis elements.
    fn default() -> Self {
        Options {
            width: Width::DEFAULT,
            timeout: Some(Duration::from_secs(60)),
            max_places: 200_000,
            max_elements: 2_000_000,
            switches: Switches::default(),
        }
    }
}

/// What was found out about one attack.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub enum AttackOutcome {
    /// Store and load separated by a draining instruction on every path.
    SeparatedByFence,
    /// The goal is not coverable: no instance has a witness for it.
    Infeasible,
    /// Feasible from these minimal instances (copies per template, in the
    /// order of [`Report::templates`]).
    Feasible(Vec<Vec<u32>>),
    /// A limit was hit.
    Unknown(String),
}

/// A violation: the smallest instance and its witness.
#[derive(Clone, Debug)]
pub struct Violation {
    /// Copies per template (order of [`Report::templates`]) of the
    /// reported instance: a minimal one with the fewest copies.
    pub instance: Vec<u32>,
    /// Every minimal non-robust instance found (the non-robust instances
    /// are exactly those covering one of them, if `minimal_exact`).
    pub minimal: Vec<Vec<u32>>,
    /// False when some attack was undecided (a limit), so smaller
    /// instances might exist.
    pub minimal_exact: bool,
    /// The attack, on the template program.
    pub attack: Attack,
    /// The attack in readable form.
    pub attack_text: String,
    /// The instance as a finite program: a template with `n` copies
    /// becomes threads `name#1` … `name#n`.
    pub program: Program,
    /// The net's computation replayed on the instance's instrumented SC
    /// machine (finite explicit engine) as a TSO witness; `Err` says why
    /// the replay failed (an internal error).
    pub witness: Result<TsoWitness, String>,
    /// The finite explicit engine's own verdict on the instance (must be
    /// not robust).
    pub finite: Robustness,
}

/// The verdict.
#[derive(Clone, Debug)]
pub enum Verdict {
    /// Every instance is robust against TSO.
    Robust,
    /// Some instance is not.
    NotRobust(Box<Violation>),
    /// A limit was hit before an answer.
    Unknown(String),
}

/// Sizes and time of one call.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Stats {
    /// Attacks of the template program.
    pub attacks_total: usize,
    /// Attacks answered without a net.
    pub answered_without_search: usize,
    /// Largest net: places.
    pub max_places: usize,
    /// Largest net: transitions.
    pub max_transitions: usize,
    /// Basis elements created, summed over attacks.
    pub basis_elements: u64,
    /// Pre-images computed, summed over attacks.
    pub pre_images: u64,
    /// Wall-clock time in microseconds.
    pub time_us: u64,
}

/// Result of [`check`].
#[derive(Clone, Debug)]
pub struct Report {
    /// The verdict.
    pub verdict: Verdict,
    /// The templates (threads with any number of copies, ≥ 0), in order;
    /// every other thread runs exactly once.
    pub templates: Vec<ThreadId>,
    /// Every attack with its outcome.
    pub attacks: Vec<(Attack, AttackOutcome)>,
    /// Statistics.
    pub stats: Stats,
}

impl Report {
    /// This report as an [`Answer`](crate::answer::Answer) holding for
    /// every number of copies: robust is no violation; an instance not
    /// robust is a violation when its witness replayed on the explicit
    /// engine, else unknown (the replay's failure is the reason).
    pub fn answer(&self) -> crate::answer::Answer {
        use crate::answer::{Answer, Scope, Verdict as V};
        match &self.verdict {
            Verdict::Robust => Answer::new(V::NoViolation, Scope::Complete),
            Verdict::NotRobust(v) => match &v.witness {
                Ok(_) => Answer::new(V::Violation, Scope::Complete),
                Err(why) => Answer {
                    reason: Some(why.to_string()),
                    ..Answer::new(V::Unknown, Scope::Complete)
                },
            },
            Verdict::Unknown(why) => Answer {
                reason: Some(why.clone()),
                ..Answer::new(V::Unknown, Scope::Complete)
            },
        }
    }
}

/// Checks that the program is one the reduction handles: the explicit
/// engine's commands (TSO with locks and atomic sequences) and a width in
/// 1..=32.
///
/// Errors (exit 2): a located error at the first unsupported instruction
/// (PGAS, `rank`/`nodes`, `lwarx`/`stwcx.`, a lock inside or a nested
/// atomic sequence), a PGAS program, a bad width.
pub fn validate(p: &Program, w: Width) -> Result<(), Error> {
    let err = |span, msg: String| match &p.source {
        Some(src) => src.error(span, msg),
        None => Error::Unsupported(msg),
    };
    if w.0 == 0 || w.0 > 32 {
        return Err(Error::Unsupported(format!(
            "width {} is outside 1..=32",
            w.0
        )));
    }
    if p.nodes.is_some() {
        return Err(Error::Unsupported(
            "parameterized robustness: PGAS (SPMD) programs are not supported".into(),
        ));
    }
    for (ti, t) in p.threads.iter().enumerate() {
        for ins in &t.instrs {
            if let Err(what) = explicit::check_cmd(&ins.cmd, false) {
                return Err(err(
                    ins.span,
                    format!(
                        "parameterized robustness: {what} in thread `{}` is not supported",
                        p.thread_name(ThreadId(ti as u32))
                    ),
                ));
            }
        }
    }
    // This engine's attacks close cycles of hb over events; a section over
    // which a contracted cycle can pass is beyond them
    // (Program::section_beyond_rmw).
    if let Some((t, i, what)) = p.section_beyond_rmw() {
        let ins = &p.threads[t.0 as usize].instrs[i];
        return Err(err(
            ins.span,
            format!(
                "parameterized robustness: {what} in thread `{}` is not supported \
                 (robustness contracts it; the attacks see events)",
                p.thread_name(t)
            ),
        ));
    }
    explicit::validate(p, w).map_err(|e| Error::Unsupported(e.to_string()))
}

/// The instance of `p` with `copies[i]` copies of template `templates[i]`
/// (every other thread once), as a finite program: copy `k` of template
/// `t` is thread `t#k`; goals and template marks are dropped (robustness
/// does not read goals). Also returns, per thread of `p`, the thread ids
/// of its copies in the instance.
pub fn instance(
    p: &Program,
    templates: &[ThreadId],
    copies: &[u32],
) -> (Program, Vec<Vec<ThreadId>>) {
    let mut out = Program {
        names: p.names.clone(),
        vars: p.vars.clone(),
        init: p.init.clone(),
        source: p.source.clone(),
        ..Program::default()
    };
    let mut ids = vec![Vec::new(); p.threads.len()];
    for (t, th) in p.threads.iter().enumerate() {
        let n = match templates.iter().position(|x| x.0 as usize == t) {
            Some(i) => copies.get(i).copied().unwrap_or(0),
            None => 1,
        };
        let tmpl = templates.iter().any(|x| x.0 as usize == t);
        for k in 1..=n {
            let mut c = th.clone();
            if tmpl {
                let name = format!("{}#{k}", p.name(th.name));
                c.name = out.names.intern(&name);
            }
            ids[t].push(ThreadId(out.threads.len() as u32));
            out.threads.push(c);
        }
    }
    (out, ids)
}

/// Decides parameterized robustness against TSO of `p` whose threads
/// `templates` may run in any number of copies (≥ 0; every other thread
/// runs once) — thesis §6.3, Theorem 6.12. See the module docs for the
/// method; a violation comes with its smallest instance, replayed on the
/// finite explicit engine.
///
/// Errors: [`validate`]'s (exit 2). Limits give [`Verdict::Unknown`].
pub fn check(p: &Program, templates: &[ThreadId], opts: &Options) -> Result<Report, Error> {
    let start = Instant::now();
    validate(p, opts.width)?;
    let deadline = opts.timeout.map(|d| start + d);
    let tmpl: Vec<usize> = templates.iter().map(|t| t.0 as usize).collect();
    let cx = Ctx {
        p,
        w: opts.width,
        live: crate::program::liveness::program_liveness(p, &[]),
        deadline,
        max_places: opts.max_places,
    };
    let attacks = explicit::enumerate_attacks(p);
    let mut stats = Stats {
        attacks_total: attacks.len(),
        ..Stats::default()
    };
    let mut outcomes: Vec<AttackOutcome> = Vec::new();
    // Per feasible attack: its net and basis (for the witness).
    let mut found: Vec<Feasible> = Vec::new();
    let mv = cx.memory_values();
    let mut sep = explicit::Separation::new(p);
    for (ai, a) in attacks.iter().enumerate() {
        // A long thread has millions of attacks: past the deadline the
        // rest are unknown at once.
        if ai % 1024 == 1023 && deadline.is_some_and(|d| Instant::now() >= d) {
            outcomes.push(AttackOutcome::Unknown("timeout".into()));
            break;
        }
        if sep.separated(a) {
            stats.answered_without_search += 1;
            outcomes.push(AttackOutcome::SeparatedByFence);
            continue;
        }
        let mv = match &mv {
            Ok(mv) => mv,
            Err(e) => {
                outcomes.push(AttackOutcome::Unknown(e.0.clone()));
                continue;
            }
        };
        let (built, basis, hits) = match search_attack(&cx, &tmpl, a, mv, opts, &mut stats) {
            Ok(r) => r,
            Err(reason) => {
                outcomes.push(AttackOutcome::Unknown(reason));
                continue;
            }
        };
        if hits.is_empty() {
            outcomes.push(AttackOutcome::Infeasible);
        } else {
            outcomes.push(AttackOutcome::Feasible(minimal(
                hits.iter().map(|h| h.1.clone()).collect(),
            )));
            found.push(Feasible {
                attack: ai,
                built,
                basis,
                hits,
            });
        }
    }
    let unknown = outcomes.iter().find_map(|o| match o {
        AttackOutcome::Unknown(r) => Some(r.clone()),
        _ => None,
    });
    let all: Vec<Vec<u32>> = found
        .iter()
        .flat_map(|f| f.hits.iter().map(|h| h.1.clone()))
        .collect();
    let verdict = if all.is_empty() {
        match unknown {
            Some(r) => Verdict::Unknown(r),
            None => Verdict::Robust,
        }
    } else {
        let mins = minimal(all);
        let best = mins[0].clone();
        let Some((ai, built, basis, e)) = found.iter().find_map(|f| {
            f.hits
                .iter()
                .find(|h| h.1 == best)
                .map(|h| (f.attack, &f.built, &f.basis, h.0))
        }) else {
            return Err(Error::Unknown("internal: no witness element".into()));
        };
        let a = &attacks[ai];
        let (inst, ids) = instance(p, templates, &best);
        let eopts = explicit::Options {
            width: opts.width,
            restricted: false,
            limits: explicit::Limits {
                timeout: opts.timeout.map(|d| d.saturating_sub(start.elapsed())),
                ..explicit::Limits::default()
            },
            ..explicit::Options::default()
        };
        let witness = replay(built, basis, e, a, &ids)
            .and_then(|(ia, steps)| explicit::witness_from_steps(&inst, &eopts, &ia, &steps));
        let finite = match explicit::check_robustness(&inst, &eopts) {
            Ok(r) => r.verdict,
            Err(e) => Robustness::Unknown(e.to_string()),
        };
        Verdict::NotRobust(Box::new(Violation {
            instance: best,
            minimal: mins,
            minimal_exact: unknown.is_none(),
            attack: *a,
            attack_text: a.describe(p),
            program: inst,
            witness,
            finite,
        }))
    };
    stats.time_us = start.elapsed().as_micros() as u64;
    Ok(Report {
        verdict,
        templates: templates.to_vec(),
        attacks: attacks.into_iter().zip(outcomes).collect(),
        stats,
    })
}

/// One attack's search: its instrumented net (thesis §6.3), the backward
/// coverability basis of its goal, and the basis elements the initial
/// marking covers with their instances (copies per template in `tmpl`);
/// counts the net's size and the search's work in `stats`.
///
/// Errors: the limit that stopped the net's construction or the search
/// (the attack's answer is then unknown).
fn search_attack(
    cx: &Ctx,
    tmpl: &[usize],
    a: &Attack,
    mv: &instrument::MemValues,
    opts: &Options,
    stats: &mut Stats,
) -> Result<(Built, Basis, Hits), String> {
    let built = instrument::build(cx, tmpl, a, mv).map_err(|e| e.0)?;
    stats.max_places = stats.max_places.max(built.net.places.len());
    stats.max_transitions = stats.max_transitions.max(built.net.transitions.len());
    let budget = Budget {
        deadline: cx.deadline,
        max_elements: opts.max_elements,
        debug: opts.switches.param_debug,
    };
    let basis = backward(
        &built.net,
        std::slice::from_ref(&built.target),
        &built.groups,
        &built.conflicts,
        budget,
        None,
    )
    .map_err(|e| e.0)?;
    if opts.switches.param_debug {
        eprintln!(
            "attack {}: {} places, {} transitions, {} elements, {} minimal",
            a.describe(cx.p),
            built.net.places.len(),
            built.net.transitions.len(),
            basis.elems.len(),
            basis.minimal.len()
        );
        for &i in basis.minimal.iter().take(40) {
            eprintln!("  {}", built.net.show(&basis.elems[i].marking));
        }
    }
    stats.basis_elements += basis.elems.len() as u64;
    stats.pre_images += basis.pre_images;
    let hits: Vec<(usize, Vec<u32>)> = basis
        .covered_by(&built.init)
        .into_iter()
        .map(|e| {
            let m = &basis.elems[e].marking;
            let inst: Vec<u32> = tmpl.iter().map(|&t| tokens(m, built.start[t])).collect();
            (e, inst)
        })
        .collect();
    Ok((built, basis, hits))
}

/// Basis elements covered by the initial marking, with their instances
/// (copies per template).
type Hits = Vec<(usize, Vec<u32>)>;

/// An attack whose goal is coverable: its net, basis, and the basis
/// elements covered by the initial marking with their instances.
struct Feasible {
    attack: usize,
    built: Built,
    basis: Basis,
    hits: Vec<(usize, Vec<u32>)>,
}

/// Instrumented steps `(copy, instruction, variant)` of an instance.
type Steps = Vec<(ThreadId, usize, bool)>;

/// The minimal vectors of `v` (no other is ≤ them place-wise), sorted by
/// total then lexicographically, without duplicates.
fn minimal(mut v: Vec<Vec<u32>>) -> Vec<Vec<u32>> {
    v.sort_by_key(|x| (x.iter().map(|&c| c as u64).sum::<u64>(), x.clone()));
    v.dedup();
    let mut out: Vec<Vec<u32>> = Vec::new();
    for x in v {
        if !out.iter().any(|m| m.iter().zip(&x).all(|(a, b)| a <= b)) {
            out.push(x);
        }
    }
    out
}

/// Maps the net computation from basis element `e` to thread copies of
/// the instance (`ids[t]`: the copies of thread `t`): the attack on the
/// instance and the instrumented steps `(copy, instruction, variant)`.
fn replay(
    built: &Built,
    basis: &Basis,
    e: usize,
    a: &Attack,
    ids: &[Vec<ThreadId>],
) -> Result<(Attack, Steps), String> {
    let mut queues: std::collections::HashMap<u32, VecDeque<ThreadId>> = Default::default();
    for (t, &s) in built.start.iter().enumerate() {
        queues.entry(s).or_default().extend(ids[t].iter().copied());
    }
    let mut steps = Vec::new();
    let mut attacker = None;
    for tr in basis.path(e) {
        let lab = built.labels[tr];
        if lab.goal {
            break;
        }
        let c = queues
            .get_mut(&lab.from)
            .and_then(|q| q.pop_front())
            .ok_or_else(|| format!("no copy in place {}", built.net.places[lab.from as usize]))?;
        queues.entry(lab.to).or_default().push_back(c);
        if lab.variant && attacker.is_none() {
            attacker = Some(c);
        }
        steps.push((c, lab.instr, lab.variant));
    }
    let thread = attacker.ok_or("the computation has no attacker")?;
    Ok((
        Attack {
            thread,
            store: a.store,
            load: a.load,
        },
        steps,
    ))
}

#[cfg(test)]
mod tests {
    use super::minimal;

    #[test]
    fn minimal_instances() {
        let m = minimal(vec![
            vec![2, 1],
            vec![1, 1],
            vec![3, 0],
            vec![1, 1],
            vec![4, 0],
        ]);
        assert_eq!(m, vec![vec![1, 1], vec![3, 0]]);
    }
}
