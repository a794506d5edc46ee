//! The library's one entry point for a question about a program: given
//! the program, the model, the questions (reachability of the goals,
//! robustness), the limits and an engine choice (`auto` or a named
//! engine), [`ask`] picks and runs the engines — the explicit engine's
//! unbounded TSO robustness proof before the bounded one, the race of two
//! solvers or of two hb-cycle queries on a machine with a core to spare —
//! and returns one [`Reply`] per question: the shared
//! [`Answer`](crate::answer::Answer) and the engine's own result
//! ([`Detail`]) for rendering its witness. The command line parses its
//! arguments into a [`Request`], calls [`ask`] and renders; batch,
//! shards and crosscheck go through the same call.
//!
//! Engines (docs/engines.md): [`EngineChoice::Bounded`] (SAT/SMT, every
//! model, up to the bound), [`EngineChoice::Explicit`] (TSO robustness,
//! unbounded; thesis 003 §6; PSO robustness through the normal-form
//! engine), [`EngineChoice::NormalForm`] (PSO and TSO robustness,
//! unbounded; thesis 003 ch. 3, 5), [`EngineChoice::Smc`] (stateless model
//! checking under sc/tso/pso), [`EngineChoice::Lazy`] and
//! [`EngineChoice::Kround`] (TSO reachability beyond the bound),
//! [`EngineChoice::Simulator`] (TSO reachability by explicit search).

use crate::answer::{Answer, Scope, Verdict, ROUNDS, STEPS_PER_THREAD};
use crate::cat::Model;
use crate::diag::Error;
use crate::engines::bounded::varisat::enumerate::DEFAULT_BUDGET;
use crate::engines::bounded::{self, CheckKind, CheckResult, Deadline, Limits, SolverKind};
use crate::engines::derived::fence_synth::{self, Costs, Menu};
use crate::engines::explicit::{self, FenceReport, RobustnessReport};
use crate::engines::normal_form;
use crate::engines::smc::{self, SmcCheck, SmcOptions, SmcResult};
use crate::engines::tso_reach::kround::{self, KroundResult};
use crate::engines::Switches;
use crate::frontend::litmus::LitmusTest;
use crate::litmus::run::LitmusResult;
use crate::program::{Program, Width};
use std::time::{Duration, Instant};

/// A question about a program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Question {
    /// Is a goal reachable? (`reach`)
    Reach,
    /// Is every execution's happens-before po ∪ rf ∪ co ∪ fr acyclic?
    /// (`robust`, thesis §2.8)
    Robust,
    /// Is every control state reachable under the model reachable under
    /// SC? (`robust --state`, thesis §2.6, Problem 2.10; the bounded
    /// engine.)
    StateRobust,
    /// Is the program robust against TSO for any number of copies of its
    /// templates (thesis §6.3; the parameterized engine)? `every_thread`:
    /// every thread is a template, else the threads marked `thread t *`.
    ParameterizedRobust {
        /// Every thread a template.
        every_thread: bool,
    },
    /// Which final states does the litmus test [`Request::litmus`]
    /// reach, and what does herd say of its condition (`litmus`; the
    /// bounded engine enumerates the states, [`crate::litmus::run`])?
    /// The answer is a violation when some final state satisfies the
    /// condition's proposition (herd's `Sometimes` or `Always`).
    Outcomes,
    /// A minimum-cost set of fences that makes the program robust
    /// (`fences`): with [`EngineChoice::Explicit`], the explicit engine's
    /// fence insertion against TSO (unbounded, thesis §6.5); with the
    /// bounded engine, the bounded synthesis for the built-in model up to
    /// the bound ([`crate::engines::derived::fence_synth`]; under tso the
    /// explicit engine's answer with the same costs beside it). The
    /// costs are [`Request::fence_costs`]. The answer is "no violation"
    /// when a fence set makes the program robust, a violation when a
    /// cycle no fence breaks remains.
    Fences,
}

impl Question {
    /// The bounded check this question is, if it is one.
    pub fn check(self) -> Option<CheckKind> {
        match self {
            Question::Reach => Some(CheckKind::Reach),
            Question::Robust => Some(CheckKind::Robust),
            _ => None,
        }
    }
}

impl From<CheckKind> for Question {
    fn from(k: CheckKind) -> Question {
        match k {
            CheckKind::Reach => Question::Reach,
            CheckKind::Robust => Question::Robust,
        }
    }
}

/// Which engine answers. `Bounded(None)` is `--solver auto`: the
/// explicit engine's robustness proof first under tso, the races on an
/// idle core, varisat otherwise ([`ask`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineChoice {
    /// The bounded engine with this solver, or the automatic choice.
    Bounded(Option<SolverKind>),
    /// The explicit-state engine: TSO robustness by attacks (unbounded);
    /// under pso the normal-form engine.
    Explicit,
    /// The normal-form engine: PSO and TSO robustness by normal-form
    /// computations (unbounded, thesis 003 ch. 3 and 5).
    NormalForm,
    /// Stateless model checking (sc, tso, pso), reachability and
    /// robustness within the bound.
    Smc,
    /// Lazy TSO reachability (unbounded; at most this many refinements
    /// when given).
    Lazy(Option<u32>),
    /// TSO reachability within this many rounds per thread.
    Kround(u32),
    /// The same question as [`EngineChoice::Kround`] asked of the
    /// k-round translation P′ ([`kround::translate`]: a program whose SC
    /// executions are the TSO computations of this many rounds per
    /// thread) with the bounded engine (varisat) under sc, within the
    /// request's bound: an oracle for the k-round engine's explicit SC
    /// search of P′ (`crosscheck --reach`). A witness is an execution of
    /// P′.
    KroundBounded(u32),
    /// The explicit TSO simulator: reachability by breadth-first search
    /// of the TSO configurations (buffers of at most 8 entries; a
    /// configuration beyond makes the answer unknown).
    Simulator,
}

/// How the bounded engine looks for an hb cycle (`--hb-query`): `Auto`
/// races the plain and narrowed queries under cdclt when the question is
/// alone, else plain; `Race` always races; `Shortest` asks for the
/// shortest cycle; `Plain` for any cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum HbQuery {
    /// As described above.
    #[default]
    Auto,
    /// The two queries raced.
    Race,
    /// The shortest cycle.
    Shortest,
    /// Any cycle.
    Plain,
}

/// One question about one program.
#[derive(Clone, Copy)]
pub struct Request<'a> {
    /// The program (after PGAS lowering, for the bounded engine).
    pub program: &'a Program,
    /// The memory model (cat) of the bounded engine.
    pub model: &'a Model,
    /// The canonical name of the built-in model (`sc`, `tso`, `pso`, …),
    /// `None` for a model file; the operational engines need it.
    pub builtin: Option<&'a str>,
    /// The questions, answered in this order.
    pub questions: &'a [Question],
    /// The engine.
    pub engine: EngineChoice,
    /// The hb-cycle query of the bounded engine.
    pub hb_query: HbQuery,
    /// The bounded engine's eager encoding (`--eager`).
    pub eager: bool,
    /// Instructions per thread (K).
    pub bound: u32,
    /// Value width W in bits.
    pub width: u32,
    /// Wall-clock time limit of the whole request.
    pub timeout: Option<Duration>,
    /// The only request of this process: the automatic choice may race
    /// engines on a core to spare.
    pub alone: bool,
    /// SMC reachability explores read-only regions (spin loops whose
    /// loads nothing reads afterwards) instead of one `nop` each.
    pub smc_keep_reads: bool,
    /// Developer switches ([`Switches`]; `explicit_first` turns off the
    /// explicit engine's proof before the bounded robustness query).
    pub switches: Switches,
    /// The litmus test of [`Question::Outcomes`] (`program` is its
    /// program); `None` for the other questions.
    pub litmus: Option<&'a LitmusTest>,
    /// The candidate budget of [`Question::Outcomes`]: the varisat
    /// backend visits the candidate executions when there are at most
    /// this many, else solves once per final state; `None`: always solve
    /// ([`crate::litmus::run::run_with`]).
    pub budget: Option<usize>,
    /// The fence costs of [`Question::Fences`] (`None`: the defaults of
    /// the model's fence kinds). The explicit engine reads the first
    /// kind's cost as its default and the per-location costs.
    pub fence_costs: Option<&'a Costs>,
}

/// The engine's own result behind an [`Answer`], for rendering its
/// witness and statistics.
#[derive(Clone, Debug)]
pub enum Detail {
    /// The bounded engine (or the explicit engine's proof reported in
    /// its vocabulary, `reason` saying so).
    Bounded(Box<CheckResult>),
    /// The explicit engine's robustness report.
    Explicit(Box<RobustnessReport>),
    /// The normal-form engine's robustness report.
    NormalForm(Box<normal_form::Report>),
    /// SMC's result with the options it ran under and, when read-only
    /// regions were replaced, the program it explored (its steps refer
    /// to that program).
    Smc(Box<SmcReply>),
    /// The lazy or k-round engine's result.
    TsoReach(KroundResult),
    /// State-robustness's report.
    StateRobust(Box<crate::engines::derived::state_robust::StateReport>),
    /// The parameterized engine's report.
    Parameterized(Box<crate::engines::parameterized::Report>),
    /// The explicit TSO simulator's verdict.
    Simulator(crate::engines::tso_reach::tso::SimVerdict),
    /// A litmus test's final states, herd's observation and the run's
    /// statistics.
    Outcomes(Box<LitmusResult>),
    /// The explicit engine's fence insertion against TSO.
    FenceInsertion(Box<FenceReport>),
    /// The bounded fence synthesis.
    FenceSynthesis(Box<FenceSynthesis>),
}

/// The bounded fence synthesis' part of a [`Detail`].
#[derive(Clone, Debug)]
pub struct FenceSynthesis {
    /// The model's fence kinds and the synthesis' report; `None` under
    /// sc (every program is robust, there is nothing to place).
    pub synthesis: Option<(Menu, fence_synth::Report)>,
    /// Under tso, the explicit engine's unbounded answer with the same
    /// costs, or why it gives none (a construct it does not model).
    pub explicit: Option<Result<FenceReport, String>>,
}

/// SMC's part of a [`Detail`].
#[derive(Clone, Debug)]
pub struct SmcReply {
    /// The result.
    pub result: SmcResult,
    /// The options it ran under.
    pub options: SmcOptions,
    /// The program explored when it differs from the request's.
    pub explored: Option<Program>,
}

/// The answer to one question of a [`Request`].
#[derive(Clone, Debug)]
pub struct Reply {
    /// The question.
    pub question: Question,
    /// The answer in the shared vocabulary.
    pub answer: Answer,
    /// The engine's own result.
    pub detail: Detail,
    /// Notes on how the question was answered (regions skipped, ...).
    pub notes: Vec<String>,
}

impl Reply {
    /// The bounded engine's result behind this reply, if the bounded
    /// engine (or the explicit proof reported in its vocabulary) gave it.
    pub fn into_bounded(self) -> Option<CheckResult> {
        match self.detail {
            Detail::Bounded(x) => Some(*x),
            _ => None,
        }
    }
}

impl<'a> Request<'a> {
    /// A request with the defaults of the command line: the automatic
    /// engine, `--hb-query auto`, not eager, no time limit, alone, the
    /// developer switches unset.
    pub fn new(
        program: &'a Program,
        model: &'a Model,
        builtin: Option<&'a str>,
        questions: &'a [Question],
        bound: u32,
    ) -> Request<'a> {
        Request {
            program,
            model,
            builtin,
            questions,
            engine: EngineChoice::Bounded(None),
            hb_query: HbQuery::Auto,
            eager: false,
            bound,
            width: Width::DEFAULT.0,
            timeout: None,
            alone: true,
            smc_keep_reads: false,
            switches: Switches::default(),
            litmus: None,
            budget: Some(DEFAULT_BUDGET),
            fence_costs: None,
        }
    }

    /// A request for the final states of the litmus test `t`
    /// ([`Question::Outcomes`]) under `model`, loops unrolled to `bound`
    /// steps per thread (raised to each thread's loop-free depth,
    /// [`crate::litmus::run::effective_bound`]), at the test's own width
    /// ([`crate::litmus::run::auto_width`]) on varisat; otherwise the
    /// defaults of [`Request::new`].
    pub fn outcomes(t: &'a LitmusTest, model: &'a Model, bound: u32) -> Request<'a> {
        let mut r = Request::new(&t.program, model, None, OUTCOMES, bound);
        r.engine = EngineChoice::Bounded(Some(SolverKind::Varisat));
        r.width = crate::litmus::run::auto_width(t).0;
        r.litmus = Some(t);
        r
    }

    fn deadline(&self, start: Instant) -> Deadline {
        Deadline(self.timeout.map(|t| start + t))
    }

    fn limits(&self, start: Instant) -> Limits {
        Limits {
            bound: self.bound,
            width: self.width,
            deadline: self.deadline(start),
            switches: self.switches,
        }
    }
}

/// The one question of [`Request::outcomes`].
const OUTCOMES: &[Question] = &[Question::Outcomes];

/// The bound of a check: `given` (`--bound`), else the longest path of
/// a program the front-end made acyclic (C: every loop unwound), else
/// [`bounded::DEFAULT_BOUND`].
pub fn effective_bound(given: Option<u32>, p: &Program) -> u32 {
    given.or(p.max_path).unwrap_or(bounded::DEFAULT_BOUND)
}

/// Answers every question of `req` with the engine it names (or the
/// automatic choice), one [`Reply`] per question in order.
///
/// Errors: a question the engine does not answer (the explicit engine:
/// robustness under tso only; lazy/k-round: reachability under tso only;
/// SMC: sc, tso, pso, robustness under tso/pso) and programs the engine
/// does not model; a resource limit of the bounded engine before any
/// answer (`Error::Unknown`).
pub fn ask(req: &Request) -> Result<Vec<Reply>, Error> {
    validate(req.engine, req.builtin, req.questions)?;
    let checks: Vec<CheckKind> = req.questions.iter().filter_map(|q| q.check()).collect();
    let mut answered = if checks.is_empty() {
        Vec::new()
    } else {
        check_replies(req, &checks)?
    }
    .into_iter();
    let mut replies = req
        .questions
        .iter()
        .map(|&q| match q {
            Question::Reach | Question::Robust => {
                Ok(answered.next().expect("one reply per check, in order"))
            }
            Question::StateRobust => state_robust_reply(req),
            Question::ParameterizedRobust { every_thread } => {
                parameterized_reply(req, every_thread)
            }
            Question::Outcomes => outcomes_reply(req),
            Question::Fences => fences_reply(req),
        })
        .collect::<Result<Vec<Reply>, Error>>()?;
    for r in &mut replies {
        size_witness(req, r);
    }
    Ok(replies)
}

/// Adds to a violation's answer the size of its witness, so that answers
/// of different engines compare ([`Answer::contradicts`]): at most the
/// bound of instructions per thread for the bounded engine and SMC (they
/// search within it), the most instructions one thread executes in the
/// explicit engine's and the lazy engine's witness
/// ([`STEPS_PER_THREAD`]); the rounds for the k-round engine and the
/// k-round translation ([`ROUNDS`]: a witness of P′ is a TSO computation
/// of that many rounds; its steps are P′'s, not the program's).
fn size_witness(req: &Request, r: &mut Reply) {
    use crate::engines::tso_reach::kround::Answer as Reach;
    if r.answer.verdict != Verdict::Violation {
        return;
    }
    let stat = match (&r.detail, req.engine) {
        (_, EngineChoice::KroundBounded(k) | EngineChoice::Kround(k)) => (ROUNDS, u64::from(k)),
        (Detail::Bounded(_) | Detail::Smc(_), _) => (STEPS_PER_THREAD, u64::from(req.bound)),
        (Detail::Explicit(x), _) => match &x.verdict {
            explicit::Robustness::NotRobust(w) => {
                let events = w.events.iter();
                let instrs =
                    events.filter(|e| !matches!(e.kind, explicit::TsoEventKind::DelayedFlush));
                (
                    STEPS_PER_THREAD,
                    most_per_thread(instrs.map(|e| e.thread.0)),
                )
            }
            _ => return,
        },
        (Detail::TsoReach(x), EngineChoice::Lazy(_)) => match &x.answer {
            Reach::Reachable { witness, .. } => {
                let threads = witness.iter().filter_map(|s| match s {
                    crate::engines::tso_reach::tso::TsoStep::Instr { thread, .. } => Some(thread.0),
                    _ => None,
                });
                (STEPS_PER_THREAD, most_per_thread(threads))
            }
            _ => return,
        },
        _ => return,
    };
    r.answer.stats.push(stat);
}

/// The largest number of times one thread occurs in `threads`.
fn most_per_thread(threads: impl Iterator<Item = u32>) -> u64 {
    let mut n: std::collections::BTreeMap<u32, u64> = Default::default();
    for t in threads {
        *n.entry(t).or_default() += 1;
    }
    n.values().copied().max().unwrap_or(0)
}

/// The replies to the bounded checks `kinds` (in order) by the request's
/// engine.
fn check_replies(req: &Request, kinds: &[CheckKind]) -> Result<Vec<Reply>, Error> {
    let reply = |question: CheckKind, answer, detail| Reply {
        question: question.into(),
        answer,
        detail,
        notes: Vec::new(),
    };
    match req.engine {
        EngineChoice::Bounded(solver) => {
            let rs = bounded_answers(req, kinds, solver, req.limits(Instant::now()))?;
            Ok(rs
                .into_iter()
                .map(|r| reply(r.check, r.answer(req.bound), Detail::Bounded(Box::new(r))))
                .collect())
        }
        EngineChoice::Explicit if req.builtin != Some("tso") => {
            kinds.iter().map(|_| normal_form_reply(req)).collect()
        }
        EngineChoice::Explicit => kinds.iter().map(|_| explicit_reply(req)).collect(),
        EngineChoice::NormalForm => kinds.iter().map(|_| normal_form_reply(req)).collect(),
        EngineChoice::Smc => kinds.iter().map(|&q| smc_reply(req, q)).collect(),
        EngineChoice::Lazy(_) | EngineChoice::Kround(_) => {
            kinds.iter().map(|_| tso_reach_reply(req)).collect()
        }
        EngineChoice::KroundBounded(k) => {
            let tr =
                kround::translate(req.program, k).map_err(|e| Error::Unsupported(e.to_string()))?;
            tr.check_width(req.program, Width(req.width))
                .map_err(|e| Error::Unsupported(e.to_string()))?;
            let sc = crate::cat::builtin("sc")?;
            let mut on_translation = *req;
            on_translation.program = &tr.program;
            on_translation.model = &sc;
            on_translation.builtin = Some("sc");
            on_translation.engine = EngineChoice::Bounded(Some(SolverKind::Varisat));
            check_replies(&on_translation, kinds)
        }
        EngineChoice::Simulator => Ok(kinds
            .iter()
            .map(|&q| {
                let v = crate::engines::tso_reach::tso::explore(
                    req.program,
                    &crate::engines::tso_reach::tso::SimOptions {
                        width: Width(req.width),
                        deadline: req.timeout.map(|t| Instant::now() + t),
                        ..Default::default()
                    },
                );
                reply(q, v.answer(None), Detail::Simulator(v))
            })
            .collect()),
    }
}

/// State-robustness on the bounded engine (varisat for the automatic
/// choice).
fn state_robust_reply(req: &Request) -> Result<Reply, Error> {
    let EngineChoice::Bounded(solver) = req.engine else {
        unreachable!("validated: the bounded engine decides state-robustness")
    };
    let r = crate::engines::derived::state_robust::state_robustness(
        solver.unwrap_or(SolverKind::Varisat),
        req.program,
        req.model,
        req.limits(Instant::now()),
    )?;
    Ok(Reply {
        question: Question::StateRobust,
        answer: r.answer(req.bound),
        detail: Detail::StateRobust(Box::new(r)),
        notes: Vec::new(),
    })
}

/// The final states of the request's litmus test on the bounded engine
/// (varisat for the automatic choice).
///
/// Errors: no litmus test in the request; those of
/// [`crate::litmus::run::run_with`].
fn outcomes_reply(req: &Request) -> Result<Reply, Error> {
    let (Some(t), EngineChoice::Bounded(solver)) = (req.litmus, req.engine) else {
        return Err(Error::Unsupported(
            "litmus outcomes are asked of a litmus test, on the bounded engine".into(),
        ));
    };
    let r = crate::litmus::run::run_with(
        t,
        req.model,
        req.limits(Instant::now()),
        solver.unwrap_or(SolverKind::Varisat),
        req.budget,
    )?;
    Ok(Reply {
        question: Question::Outcomes,
        answer: r.answer(crate::litmus::run::effective_bound(t, req.bound)),
        detail: Detail::Outcomes(Box::new(r)),
        notes: Vec::new(),
    })
}

/// At most this many robustness checks in one bounded fence synthesis
/// (then its answer is unknown).
const FENCE_ITERATIONS: usize = 1000;

/// A fence set for the request's program: the explicit engine's
/// insertion, or the bounded synthesis for the built-in model (sc:
/// nothing to place).
///
/// Errors: a model file or a built-in model without fence kinds; a PGAS
/// program; a program the explicit engine does not model (its insertion
/// only); those of [`fence_synth::synthesize`].
fn fences_reply(req: &Request) -> Result<Reply, Error> {
    let p = req.program;
    let menu = fence_synth::menu(req.builtin.unwrap_or(""));
    let costs = match (req.fence_costs, &menu) {
        (Some(c), _) => c.clone(),
        (None, Some(m)) => Costs::defaults(m),
        (None, None) => Costs {
            kind: vec![1],
            at: Default::default(),
            at_kind: Default::default(),
        },
    };
    let reply = |answer, detail| Reply {
        question: Question::Fences,
        answer,
        detail,
        notes: Vec::new(),
    };
    if req.engine == EngineChoice::Explicit {
        let r = explicit::fence_insertion(
            p,
            &explicit_options(req.width, req.timeout),
            &explicit_costs(&costs),
        )
        .map_err(|e| Error::Unsupported(e.to_string()))?;
        return Ok(reply(
            fence_insertion_answer(&r),
            Detail::FenceInsertion(Box::new(r)),
        ));
    }
    if p.nodes.is_some() {
        return Err(Error::Unsupported(
            "fence synthesis does not handle PGAS programs".into(),
        ));
    }
    let Some(m) = menu else {
        if req.builtin == Some("sc") {
            let detail = FenceSynthesis {
                synthesis: None,
                explicit: None,
            };
            let answer = Answer::new(Verdict::NoViolation, Scope::Bound(req.bound));
            return Ok(reply(answer, Detail::FenceSynthesis(Box::new(detail))));
        }
        return Err(Error::Unsupported(
            "fence synthesis has fence kinds for the built-in models tso, pso, rmo, power, arm \
             (aarch64) and riscv"
                .into(),
        ));
    };
    let EngineChoice::Bounded(solver) = req.engine else {
        unreachable!("validated: the explicit or the bounded engine places fences")
    };
    let opts = fence_synth::Options {
        solver: solver.unwrap_or(SolverKind::Varisat),
        limits: req.limits(Instant::now()),
        max_iterations: FENCE_ITERATIONS,
    };
    let r = fence_synth::synthesize(p, req.model, &m, &costs, &opts)?;
    let explicit = (m.model == "tso").then(|| {
        let o = explicit_options(req.width, req.timeout);
        explicit::fence_insertion(p, &o, &explicit_costs(&costs)).map_err(|e| e.to_string())
    });
    let answer = fence_synthesis_answer(&r, req.bound);
    let detail = FenceSynthesis {
        synthesis: Some((m, r)),
        explicit,
    };
    Ok(reply(answer, Detail::FenceSynthesis(Box::new(detail))))
}

/// The explicit engine's costs for the bounded synthesis' `costs`: the
/// first kind's cost (tso's `mfence`) as the default, the per-location
/// entries (of any kind) at their locations.
fn explicit_costs(costs: &Costs) -> explicit::FenceCosts {
    let mut ec = explicit::FenceCosts {
        per_location: Default::default(),
        default: costs.kind.first().copied().unwrap_or(1),
    };
    let at = costs.at.iter().map(|(&(t, q), &c)| (t, q, c));
    let at_kind = costs.at_kind.iter().map(|(&(t, q, _), &c)| (t, q, c));
    for (thread, state, c) in at.chain(at_kind) {
        ec.per_location
            .insert(explicit::FenceLocation { thread, state }, c);
    }
    ec
}

/// The explicit engine's fence insertion as an [`Answer`]: robust (with
/// or without fences) for every execution, or unknown; statistics
/// `fences` and `cost`.
fn fence_insertion_answer(r: &FenceReport) -> Answer {
    let (verdict, fences) = match &r.verdict {
        explicit::FenceVerdict::Robust => (Verdict::NoViolation, 0),
        explicit::FenceVerdict::Fences(l) => (Verdict::NoViolation, l.len()),
        explicit::FenceVerdict::Unknown(_) => (Verdict::Unknown, 0),
    };
    let mut a = Answer::new(verdict, Scope::Complete);
    if let explicit::FenceVerdict::Unknown(why) = &r.verdict {
        a.reason = Some(why.clone());
    }
    a.stats = vec![("fences", fences as u64), ("cost", r.cost)];
    a
}

/// The bounded synthesis as an [`Answer`]: robust up to `bound` with its
/// fences, a violation (the cycle no fence breaks as the witness), or
/// unknown; statistics `fences`, `cost`, `checks`, `cycles`.
fn fence_synthesis_answer(r: &fence_synth::Report, bound: u32) -> Answer {
    let verdict = match &r.outcome {
        fence_synth::Outcome::Robust => Verdict::NoViolation,
        fence_synth::Outcome::Unfixable => Verdict::Violation,
        fence_synth::Outcome::Unknown(_) => Verdict::Unknown,
    };
    let mut a = match (&r.outcome, &r.last) {
        (fence_synth::Outcome::Unfixable, Some(last)) => last.answer(bound),
        _ => Answer::new(verdict, Scope::Bound(bound)),
    };
    a.verdict = verdict;
    if let fence_synth::Outcome::Unknown(why) = &r.outcome {
        a.reason = Some(why.clone());
    }
    a.stats = vec![
        ("fences", r.fences.len() as u64),
        ("cost", r.cost),
        ("checks", r.checks as u64),
        ("cycles", r.cycles as u64),
    ];
    a
}

/// Parameterized robustness against TSO of the templates (every thread
/// when `every_thread`).
fn parameterized_reply(req: &Request, every_thread: bool) -> Result<Reply, Error> {
    use crate::engines::parameterized;
    let p = req.program;
    let width = Width(req.width);
    parameterized::validate(p, width)?;
    let templates: Vec<_> = if every_thread {
        p.thread_ids().collect()
    } else {
        p.templates.clone()
    };
    let opts = parameterized::Options {
        width,
        timeout: req.timeout,
        switches: req.switches,
        ..parameterized::Options::default()
    };
    let r = parameterized::check(p, &templates, &opts)?;
    Ok(Reply {
        question: Question::ParameterizedRobust { every_thread },
        answer: r.answer(),
        detail: Detail::Parameterized(Box::new(r)),
        notes: Vec::new(),
    })
}

/// Checks, before any input is read, that `engine` answers `questions`
/// under the built-in model `builtin` (`None`: a model file): the
/// explicit engine decides robustness under tso; the lazy and k-round
/// engines and the simulator reachability under tso (k-round: 1 to 64
/// rounds); SMC runs sc,
/// tso and pso (robustness under tso and pso).
///
/// Errors: the first question the engine does not answer, as a usage
/// error naming the model or engine to use.
pub fn validate(
    engine: EngineChoice,
    builtin: Option<&str>,
    questions: &[Question],
) -> Result<(), Error> {
    for &question in questions {
        let q = match question {
            Question::Reach => CheckKind::Reach,
            Question::Robust => CheckKind::Robust,
            Question::StateRobust => {
                if !matches!(engine, EngineChoice::Bounded(_)) {
                    return Err(Error::Unsupported(
                        "--state is decided by the bounded engine (--engine sat)".into(),
                    ));
                }
                continue;
            }
            Question::ParameterizedRobust { .. } => {
                if matches!(
                    engine,
                    EngineChoice::Lazy(_)
                        | EngineChoice::Kround(_)
                        | EngineChoice::KroundBounded(_)
                ) {
                    return Err(Error::Unsupported(
                        "--parameterized is decided by the explicit engine (--engine explicit)"
                            .into(),
                    ));
                }
                if builtin != Some("tso") {
                    return Err(Error::Unsupported(
                        "parameterized robustness is decided against TSO only (--model tso)".into(),
                    ));
                }
                continue;
            }
            Question::Fences => {
                if !matches!(engine, EngineChoice::Bounded(_) | EngineChoice::Explicit) {
                    return Err(Error::Unsupported(
                        "fences are placed by the explicit engine (tso, unbounded) or the \
                         bounded engine (--engine sat)"
                            .into(),
                    ));
                }
                if engine == EngineChoice::Explicit && builtin != Some("tso") {
                    return Err(Error::Unsupported(
                        "the explicit engine inserts fences against TSO only (--model tso)".into(),
                    ));
                }
                continue;
            }
            Question::Outcomes => {
                if !matches!(engine, EngineChoice::Bounded(_)) {
                    return Err(Error::Unsupported(
                        "litmus outcomes are enumerated by the bounded engine (--engine sat)"
                            .into(),
                    ));
                }
                continue;
            }
        };
        match engine {
            EngineChoice::Bounded(_) => {}
            EngineChoice::Explicit => {
                if !matches!(builtin, Some("tso" | "pso" | "rmo" | "power" | "pgas"))
                    || q != CheckKind::Robust
                {
                    return Err(Error::Unsupported(
                        "the explicit engine decides robustness against TSO, PSO, RMO, \
                         Power and PGAS only (--model tso|pso|rmo|power|pgas)"
                            .into(),
                    ));
                }
            }
            EngineChoice::NormalForm => {
                if builtin.and_then(normal_form::Model::from_name).is_none()
                    || q != CheckKind::Robust
                {
                    return Err(Error::Unsupported(
                        "the normal-form engine decides robustness against TSO, PSO, RMO, \
                         Power and PGAS only (--model tso|pso|rmo|power|pgas)"
                            .into(),
                    ));
                }
            }
            EngineChoice::Smc => {
                smc_model(builtin, q)?;
            }
            EngineChoice::Lazy(_)
            | EngineChoice::Kround(_)
            | EngineChoice::KroundBounded(_)
            | EngineChoice::Simulator => {
                if builtin != Some("tso") || q != CheckKind::Reach {
                    return Err(Error::Unsupported(
                        "--engine kround/lazy answer reachability under TSO only (--model tso)"
                            .into(),
                    ));
                }
                if matches!(engine, EngineChoice::Kround(k) | EngineChoice::KroundBounded(k)
                    if !(1..=64).contains(&k))
                {
                    return Err(Error::Unsupported(
                        "--rounds of --engine kround must be 1..=64".into(),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// The explicit engine's options for `width` and a time limit.
pub fn explicit_options(width: u32, timeout: Option<Duration>) -> explicit::Options {
    explicit::Options {
        width: Width(width),
        limits: explicit::Limits {
            timeout,
            ..explicit::Limits::default()
        },
        ..explicit::Options::default()
    }
}

fn explicit_reply(req: &Request) -> Result<Reply, Error> {
    let r = explicit::check_robustness(req.program, &explicit_options(req.width, req.timeout))
        .map_err(|e| Error::Unsupported(e.to_string()))?;
    Ok(Reply {
        question: Question::Robust,
        answer: Answer::from(&r),
        detail: Detail::Explicit(Box::new(r)),
        notes: Vec::new(),
    })
}

/// The normal-form engine's reply (robustness against the request's
/// built-in model: tso, pso, rmo, power or pgas).
fn normal_form_reply(req: &Request) -> Result<Reply, Error> {
    let model = req
        .builtin
        .and_then(normal_form::Model::from_name)
        .ok_or_else(|| {
            Error::Unsupported(
                "the normal-form engine decides tso, pso, rmo, power and pgas".into(),
            )
        })?;
    let opts = normal_form::Options {
        width: Width(req.width),
        limits: explicit_options(req.width, req.timeout).limits,
        ..normal_form::Options::default()
    };
    let r = normal_form::check_robustness(req.program, model, &opts)?;
    Ok(Reply {
        question: Question::Robust,
        answer: Answer::from(&r),
        detail: Detail::NormalForm(Box::new(r)),
        notes: Vec::new(),
    })
}

/// The SMC engine's model for the built-in model `builtin` and question
/// `q`.
///
/// Errors: a model other than sc, tso, pso; sc for robustness.
pub fn smc_model(builtin: Option<&str>, q: CheckKind) -> Result<smc::semantics::Model, Error> {
    let m = builtin
        .and_then(smc::semantics::Model::from_name)
        .ok_or_else(|| {
            Error::Unsupported(
                "--engine smc runs the operational sc, tso and pso semantics (--model sc|tso|pso)"
                    .into(),
            )
        })?;
    if q == CheckKind::Robust && m == smc::semantics::Model::Sc {
        return Err(Error::Unsupported(
            "robust --engine smc compares tso or pso traces with sc (--model tso|pso)".into(),
        ));
    }
    Ok(m)
}

fn smc_reply(req: &Request, q: CheckKind) -> Result<Reply, Error> {
    let options = SmcOptions {
        model: smc_model(req.builtin, q)?,
        width: Width(req.width),
        bound: req.bound,
        check: match q {
            CheckKind::Reach => SmcCheck::Reach,
            CheckKind::Robust => SmcCheck::Robust,
        },
        reduction: smc::Reduction::Dpor,
        deadline: req.timeout.map(|t| Instant::now() + t),
        collect: false,
    };
    let skipped = match q {
        CheckKind::Reach if !req.smc_keep_reads => {
            smc::regions::skip_read_only(req.program, options.bound)
        }
        _ => None,
    };
    let mut notes = Vec::new();
    let explored = skipped.map(|(p, n)| {
        notes.push(format!(
            "{n} read-only region(s) (loads into registers nothing reads afterwards, e.g. bounded spin loops) explored as one `nop` each; --smc-keep-reads explores them"
        ));
        p
    });
    let result = smc::check(explored.as_ref().unwrap_or(req.program), &options)?;
    Ok(Reply {
        question: q.into(),
        answer: result.answer(req.bound),
        detail: Detail::Smc(Box::new(SmcReply {
            result,
            options,
            explored,
        })),
        notes,
    })
}

fn tso_reach_reply(req: &Request) -> Result<Reply, Error> {
    let (r, answer) = match req.engine {
        EngineChoice::Lazy(max) => {
            let o = crate::engines::tso_reach::lazy::LazyOptions {
                explicit: explicit_options(req.width, None),
                max_refinements: max,
                deadline: req.timeout.map(|t| Instant::now() + t),
            };
            let r = crate::engines::tso_reach::lazy::lazy_reach(req.program, &o)
                .map_err(|e| Error::Unsupported(e.to_string()))?;
            let answer = Answer::from(&r);
            let r = KroundResult {
                answer: r.answer,
                states: r.states,
            };
            (r, answer)
        }
        EngineChoice::Kround(k) => {
            let r = kround::kround_reach(req.program, k, &explicit_options(req.width, req.timeout))
                .map_err(|e| Error::Unsupported(e.to_string()))?;
            let answer = r.answer(k);
            (r, answer)
        }
        _ => unreachable!("tso_reach_reply is called for the lazy and k-round engines"),
    };
    Ok(Reply {
        question: Question::Reach,
        answer,
        detail: Detail::TsoReach(r),
        notes: Vec::new(),
    })
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

/// The bounded engine's results, one per question: with the automatic
/// choice (`solver` `None`), `robust` under tso first by the explicit
/// engine's proof ([`explicit_robust_first`]); `reach` alone on a
/// machine with a core to spare ([`idle_core`]) races varisat and cdclt
/// ([`bounded::queries::check_race_solvers`]); `robust` alone (not
/// eager, not PGAS, `HbQuery::Auto`) on such a machine runs cdclt with
/// its two hb-cycle queries raced ([`bounded::queries::check_race`]);
/// otherwise the named backend (varisat for auto) with the hb-cycle
/// query the request asks for (`Auto`: raced under cdclt when alone,
/// plain otherwise).
///
/// Errors: those of [`bounded::queries::check_on`].
fn bounded_answers(
    req: &Request,
    kinds: &[CheckKind],
    solver: Option<SolverKind>,
    lim: Limits,
) -> Result<Vec<CheckResult>, Error> {
    use bounded::queries;
    let (p, model) = (req.program, req.model);
    if solver.is_none() {
        if let Some(proved) = explicit_robust_first(req, kinds, &lim) {
            // The rest (reach) on the bounded engine as usual, the proof
            // at the positions of `robust` so results follow the questions.
            let rest: Vec<CheckKind> = kinds
                .iter()
                .copied()
                .filter(|&k| k != CheckKind::Robust)
                .collect();
            let mut out = if rest.is_empty() {
                Vec::new()
            } else {
                bounded_answers(req, &rest, solver, lim)?
            };
            for (i, &k) in kinds.iter().enumerate() {
                if k == CheckKind::Robust {
                    out.insert(i.min(out.len()), proved.clone());
                }
            }
            return Ok(out);
        }
    }
    let kind = solver.unwrap_or(SolverKind::Varisat);
    // cdclt and z3 refuse models with initial writes as events
    // (`Model::refuse_init_writes`): the automatic choice keeps varisat.
    let raceable = model.init_writes.is_none();
    if solver.is_none() && raceable && req.alone && kinds == [CheckKind::Reach] && idle_core() {
        return queries::check_race_solvers(p, model, lim, req.eager, kinds);
    }
    let auto_robust = solver.is_none()
        && req.alone
        && kinds == [CheckKind::Robust]
        && req.hb_query == HbQuery::Auto
        && !req.eager
        && raceable
        && p.nodes.is_none();
    if auto_robust && idle_core() {
        // cdclt with its plain and narrowed hb-cycle queries raced: on the
        // Trencher corpus never slower than varisat by more than 0.1 s on a
        // quiet machine (docs/solvers.md).
        let cdclt = SolverKind::Cdclt;
        let mut r = queries::check_race(cdclt, p, model, lim, false, kinds)?;
        for x in &mut r {
            x.stats.solver.get_or_insert(cdclt);
        }
        return Ok(r);
    }
    let shortest = match req.hb_query {
        HbQuery::Race => return queries::check_race(kind, p, model, lim, req.eager, kinds),
        HbQuery::Auto if req.alone && kind == SolverKind::Cdclt => {
            return queries::check_race(kind, p, model, lim, req.eager, kinds)
        }
        HbQuery::Auto => None,
        HbQuery::Shortest => Some(true),
        HbQuery::Plain => Some(false),
    };
    let q = bounded::Query {
        program: p,
        model,
        limits: lim,
    };
    queries::check_on(
        &*bounded::backend_with(kind, req.eager, shortest, None)?,
        &q,
        kinds,
    )
}

/// Time budget of the explicit engine's robustness proof before a
/// bounded `robust` check under tso ([`explicit_robust_first`]).
const EXPLICIT_FIRST_TIME: Duration = Duration::from_millis(300);

/// States one attack's search of that proof may visit.
const EXPLICIT_FIRST_STATES: usize = 200_000;

/// `robust` under the built-in tso model with the automatic choice (not
/// eager, not PGAS, the switch `explicit_first` on): first the explicit
/// engine's robustness check by attacks (TSO witnesses, thesis 003
/// §6.1–6.2, Theorem 6.10; [`explicit::check_robustness`]) within
/// [`EXPLICIT_FIRST_TIME`] and [`EXPLICIT_FIRST_STATES`]. When it proves
/// the program robust — no TSO computation at all has a cyclic
/// happens-before — no execution within the bound has one either, and
/// that is the answer (`reason` says so). When it finds a TSO witness
/// whose threads' paths fit the bound, one bounded solve along those
/// paths ([`bounded::queries::robust_along`]), encoded at the paths'
/// length rather than the bound, gives the bounded witness (an execution
/// of the bounded engine, not necessarily the shortest).
/// `None` otherwise (out of budget, unsupported, paths longer than the
/// bound, or no bounded cycle along them): the bounded query runs as
/// usual. docs/performance.md, "TSO witnesses".
fn explicit_robust_first(req: &Request, kinds: &[CheckKind], lim: &Limits) -> Option<CheckResult> {
    let p = req.program;
    if !req.switches.explicit_first
        || req.eager
        || p.nodes.is_some()
        || !kinds.contains(&CheckKind::Robust)
        || !bounded::varisat::tso_witness::is_tso(req.model)
    {
        return None;
    }
    let start = Instant::now();
    let left = lim
        .deadline
        .0
        .map(|d| d.saturating_duration_since(start))
        .unwrap_or(EXPLICIT_FIRST_TIME);
    let opts = explicit::Options {
        width: Width(req.width),
        limits: explicit::Limits {
            timeout: Some(left.min(EXPLICIT_FIRST_TIME)),
            max_states: Some(EXPLICIT_FIRST_STATES),
            // Within the user's memory budget.
            max_memory_bytes: Some((256usize << 20).min(crate::resources::memory_limit())),
        },
        ..explicit::Options::default()
    };
    let report = explicit::check_robustness(p, &opts).ok()?;
    if let explicit::Robustness::NotRobust(w) = &report.verdict {
        // Its paths, when they fit the bound: one solve along them.
        let mut paths = vec![Vec::new(); p.threads.len()];
        for e in &w.events {
            if let (Some(i), Some(path)) = (e.instr, paths.get_mut(e.thread.0 as usize)) {
                path.push(i);
            }
        }
        let depth = paths.iter().map(|x| x.len()).max().unwrap_or(0);
        if depth > lim.bound as usize {
            return None;
        }
        // Encoded at the witness's depth, not the user's bound: an
        // execution within the smaller bound is one within the larger.
        let q = bounded::Query {
            program: p,
            model: req.model,
            limits: Limits {
                bound: (depth as u32).max(1),
                ..*lim
            },
        };
        let b = bounded::backend_with(SolverKind::Varisat, false, None, None).ok()?;
        let mut r = bounded::queries::robust_along(&*b, &q, &paths).ok()??;
        r.time = start.elapsed().as_secs_f64();
        return Some(r);
    }
    if report.verdict != explicit::Robustness::Robust {
        return None;
    }
    let mut r = CheckResult::new(CheckKind::Robust);
    r.reason = Some(format!(
        "proved for every bound by the explicit engine: none of the {} attacks has a TSO witness (thesis 003 Theorem 6.10)",
        report.stats.attacks_total
    ));
    r.time = start.elapsed().as_secs_f64();
    Some(r)
}
