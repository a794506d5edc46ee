//! The differential runner behind `bmc-rmm fuzz-diff`: every engine and
//! backend that answers a question (reachability of the goals,
//! robustness) under a built-in model, on each generated program
//! ([`super::gen`]); every pair of answers compared with
//! [`Answer::compare`] (bounded answers at the same bound; a violation
//! beyond what the other's "no violation" covers is consistent); every
//! bounded witness replayed on the other SAT backends
//! ([`bounded::replay`]); a disagreement shrunk ([`super::shrink`]) and
//! written as a reproducer. An engine that does not model a program (or
//! the question) is "n/a" for it and one that ends unknown is "unknown":
//! neither is counted as compared. The programs are native ([`super::gen`])
//! or C ([`super::gen_c`], lowered by the C front-end with its loops
//! unwound; under sc the SV-COMP runner's explicit-state search of the
//! program with its loops kept as cycles answers too,
//! [`crate::svcomp::explicit::search`]).

use super::gen::Gen;
use super::gen_c::CGen;
use super::lang::{Generated, Lang};
use crate::answer::{Agreement, Answer, Scope, Verdict};
use crate::ask::{self, Detail, EngineChoice, Question};
use crate::cat::Model;
use crate::diag::{Error, SourceFile};
use crate::engines::bounded::{self, Deadline, Execution, Limits, SolverKind};
use crate::engines::Switches;
use crate::program::{Program, Width};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// A stand-in engine given as a function (a test's deliberately wrong
/// engine, to show that the runner detects and shrinks a disagreement).
#[derive(Clone, Copy, Debug)]
pub struct Stub {
    /// Its name in the table.
    pub name: &'static str,
    /// Its answer on a program, under a built-in model, to a question;
    /// `None`: it does not apply.
    pub answer: fn(&Program, &str, Question) -> Option<Answer>,
}

/// One engine (or backend) of the runner.
#[derive(Clone, Copy, Debug)]
pub enum Engine {
    /// The bounded engine on this SAT/SMT backend.
    Sat(SolverKind),
    /// Stateless model checking (sc, tso, pso).
    Smc,
    /// The explicit engine: TSO robustness by attacks (unbounded).
    Explicit,
    /// The normal-form engine: TSO/PSO robustness (unbounded).
    NormalForm,
    /// The explicit TSO simulator (reachability).
    Simulator,
    /// Lazy TSO reachability (unbounded).
    Lazy,
    /// TSO reachability within this many rounds per thread.
    Kround(u32),
    /// The k-round translation checked by varisat under sc.
    KroundSat(u32),
    /// The SV-COMP runner's explicit-state search of a C program with its
    /// loops kept as cycles (sc; [`crate::svcomp::explicit::search`]).
    SvExplicit,
    /// A stand-in ([`Stub`]).
    Stub(Stub),
}

impl Engine {
    /// The engine's name in the table and in reproducers.
    pub fn name(&self) -> String {
        match self {
            Engine::Sat(s) => s.name().to_string(),
            Engine::Smc => "smc".into(),
            Engine::Explicit => "explicit".into(),
            Engine::NormalForm => "normal-form".into(),
            Engine::Simulator => "simulator".into(),
            Engine::Lazy => "lazy".into(),
            Engine::Kround(k) => format!("kround{k}"),
            Engine::KroundSat(k) => format!("kround{k}-P'-sat"),
            Engine::SvExplicit => "svcomp-explicit".into(),
            Engine::Stub(s) => s.name.into(),
        }
    }

    /// The `bmc-rmm` options that ask this engine the question (for the
    /// reproducer's comment).
    fn options(&self) -> String {
        match self {
            Engine::Sat(s) => format!("--engine sat --solver {}", s.name()),
            Engine::Smc => "--engine smc".into(),
            Engine::Explicit => "--engine explicit".into(),
            Engine::NormalForm => "--engine normal-form".into(),
            Engine::Simulator => "(crosscheck --reach: simulator)".into(),
            Engine::Lazy => "--engine lazy".into(),
            Engine::Kround(k) => format!("--engine kround --rounds {k}"),
            Engine::KroundSat(k) => format!("(crosscheck --reach --rounds {k}: P' sat-sc)"),
            Engine::SvExplicit => "(svcomp --engine explicit on a task of FILE)".into(),
            Engine::Stub(s) => format!("(the stand-in {})", s.name),
        }
    }

    fn choice(&self) -> Option<EngineChoice> {
        Some(match *self {
            Engine::Sat(s) => EngineChoice::Bounded(Some(s)),
            Engine::Smc => EngineChoice::Smc,
            Engine::Explicit => EngineChoice::Explicit,
            Engine::NormalForm => EngineChoice::NormalForm,
            Engine::Simulator => EngineChoice::Simulator,
            Engine::Lazy => EngineChoice::Lazy(None),
            Engine::Kround(k) => EngineChoice::Kround(k),
            Engine::KroundSat(k) => EngineChoice::KroundBounded(k),
            Engine::SvExplicit | Engine::Stub(_) => return None,
        })
    }
}

/// The SAT/SMT backends of this build: varisat, cdclt, and z3 when built
/// with the `z3` feature.
pub fn backends() -> Vec<SolverKind> {
    [SolverKind::Varisat, SolverKind::Cdclt, SolverKind::Z3]
        .into_iter()
        .filter(|s| s.available().is_ok())
        .collect()
}

/// The engines that answer `question` under the built-in `model`: every
/// SAT backend; SMC under sc, tso, pso (robustness: tso, pso); for
/// reachability under tso the simulator, the lazy engine, the k-round
/// engine at `rounds` and its translation on varisat; for robustness the
/// explicit engine (tso) and the normal-form engine (tso, pso, power,
/// pgas; under power it refuses most generated programs: n/a).
pub fn engines(model: &str, question: Question, rounds: u32) -> Vec<Engine> {
    let mut v: Vec<Engine> = backends().into_iter().map(Engine::Sat).collect();
    match (question, model) {
        (Question::Reach, "sc" | "pso") => v.push(Engine::Smc),
        (Question::Reach, "tso") => v.extend([
            Engine::Smc,
            Engine::Simulator,
            Engine::Lazy,
            Engine::Kround(rounds),
            Engine::KroundSat(rounds),
        ]),
        (Question::Robust, "tso") => v.extend([Engine::Explicit, Engine::NormalForm, Engine::Smc]),
        (Question::Robust, "pso") => v.extend([Engine::NormalForm, Engine::Smc]),
        (Question::Robust, "power" | "pgas") => v.push(Engine::NormalForm),
        _ => {}
    }
    v
}

/// What one engine said.
#[derive(Clone, Debug)]
pub enum Said {
    /// A definitive answer (a violation, or none within its scope).
    Answer(Answer),
    /// Unknown (a limit; the reason).
    Unknown(String),
    /// The engine does not model the program or question (why).
    NotApplicable(String),
    /// The engine failed otherwise (an error or a panic: a bug).
    Failed(String),
}

impl Said {
    /// A short word for tables and reproducers.
    pub fn word(&self) -> String {
        match self {
            Said::Answer(a) => {
                let scope = match a.scope {
                    Scope::Complete => String::new(),
                    Scope::Bound(k) => format!(" (bound {k})"),
                    Scope::Rounds(k) => format!(" ({k} rounds)"),
                };
                match a.verdict {
                    Verdict::Violation => "violation".into(),
                    Verdict::NoViolation => format!("no violation{scope}"),
                    Verdict::Unknown => "unknown".into(),
                }
            }
            Said::Unknown(why) => format!("unknown ({why})"),
            Said::NotApplicable(why) => format!("n/a ({why})"),
            Said::Failed(why) => format!("FAILED ({why})"),
        }
    }
}

/// The runner's options.
#[derive(Clone, Debug)]
pub struct Options {
    /// The run's seed; program `i` has seed [`program_seed`]`(seed, i)`.
    pub seed: u64,
    /// Built-in models, program `i` checked under `models[i % len]`.
    pub models: Vec<String>,
    /// The questions asked of every program.
    pub questions: Vec<Question>,
    /// The bound K (instructions per thread) of the bounded engines and
    /// SMC.
    pub bound: u32,
    /// Rounds of the k-round engine.
    pub rounds: u32,
    /// Value width W in bits (C programs need 6: their memory, the
    /// threads' start and done flags included, must fit the addresses).
    pub width: u32,
    /// Time limit of each engine on each question.
    pub timeout: Duration,
    /// The language of the programs.
    pub lang: Lang,
    /// The program generator (native).
    pub gen: Gen,
    /// The program generator (C).
    pub c_gen: CGen,
    /// The C front-end's `--unwind` (C programs; the generated loops run
    /// at most 2 iterations, so 3 cuts none).
    pub unwind: u32,
    /// A stand-in engine added to every question it answers.
    pub stub: Option<Stub>,
    /// Where reproducers are written (`None`: nowhere).
    pub out: Option<PathBuf>,
    /// At most this many candidate programs tried while shrinking one
    /// disagreement.
    pub shrink_budget: usize,
}

impl Default for Options {
    /// Seed 0; sc, tso, pso, rmo, power, pgas; both questions; bound 6, 2
    /// rounds, width 4, 2 s per engine; native programs from the default
    /// generator (C: the default C generator, unwinding 3); no stub; no
    /// reproducers; 400 shrinking candidates.
    fn default() -> Self {
        Options {
            seed: 0,
            models: ["sc", "tso", "pso", "rmo", "power", "pgas"]
                .map(String::from)
                .to_vec(),
            questions: vec![Question::Reach, Question::Robust],
            bound: 6,
            rounds: 2,
            width: 4,
            timeout: Duration::from_secs(2),
            lang: Lang::Native,
            gen: Gen::default(),
            c_gen: CGen::default(),
            unwind: 3,
            stub: None,
            out: None,
            shrink_budget: 400,
        }
    }
}

/// The seed of program `index` of a run with seed `seed`.
pub fn program_seed(seed: u64, index: u64) -> u64 {
    super::gen::Rng::new(seed.wrapping_mul(0x0100_0000_01b3) ^ index).next_u64()
}

/// Counts of one row of the summary (one model, question and pair of
/// engines, or a witness replayed from one backend on another).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Both answered definitively.
    pub compared: usize,
    /// ... and agree (the same verdict, or a violation beyond what the
    /// other's "no violation" covers).
    pub agree: usize,
    /// ... and disagree.
    pub disagree: usize,
    /// One of them ended unknown (or failed).
    pub unknown: usize,
    /// One of them does not apply.
    pub not_applicable: usize,
}

/// The summary of a run.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Programs checked.
    pub programs: usize,
    /// Programs per model.
    pub per_model: BTreeMap<String, usize>,
    /// Rows: (model, question, "A / B") → counts.
    pub rows: BTreeMap<(String, String, String), Counts>,
    /// Engine failures (errors other than "unsupported", panics), one line
    /// each.
    pub failures: Vec<String>,
    /// Why engines did not apply or ended unknown: (engine, what it said,
    /// clipped) → how often.
    pub reasons: BTreeMap<(String, String), usize>,
}

impl Summary {
    /// Disagreements over all rows.
    pub fn disagreements(&self) -> usize {
        self.rows.values().map(|c| c.disagree).sum()
    }

    /// The table: one row per model, question and engine pair.
    pub fn table(&self) -> String {
        let mut s = format!(
            "{:<8} {:<7} {:<34} {:>9} {:>9} {:>9} {:>9} {:>9}\n",
            "model", "check", "engines", "compared", "agree", "disagree", "unknown", "n/a"
        );
        for ((m, q, pair), c) in &self.rows {
            let _ = writeln!(
                s,
                "{m:<8} {q:<7} {pair:<34} {:>9} {:>9} {:>9} {:>9} {:>9}",
                c.compared, c.agree, c.disagree, c.unknown, c.not_applicable
            );
        }
        for ((e, why), n) in &self.reasons {
            let _ = writeln!(s, "  {n:>6} x {e}: {why}");
        }
        let models: Vec<String> = self
            .per_model
            .iter()
            .map(|(m, n)| format!("{m} {n}"))
            .collect();
        let _ = writeln!(
            s,
            "{} program(s) ({}), {} disagreement(s), {} engine failure(s)",
            self.programs,
            models.join(", "),
            self.disagreements(),
            self.failures.len()
        );
        s
    }

    fn row(&mut self, model: &str, q: Question, pair: String) -> &mut Counts {
        self.rows
            .entry((model.to_string(), question_name(q).into(), pair))
            .or_default()
    }
}

/// `reach` or `robust`.
pub fn question_name(q: Question) -> &'static str {
    match q {
        Question::Robust => "robust",
        _ => "reach",
    }
}

/// One disagreement, shrunk.
#[derive(Clone, Debug)]
pub struct Finding {
    /// The program's index in the run.
    pub index: u64,
    /// Its seed.
    pub seed: u64,
    /// The model.
    pub model: String,
    /// The question.
    pub question: Question,
    /// The pair (or "A witness → B" for a replay).
    pub pair: String,
    /// What the two sides said on the original program.
    pub said: (String, String),
    /// The program generated.
    pub original: Generated,
    /// The program shrunk (the disagreement persists on it).
    pub shrunk: Generated,
    /// What the two sides say on the shrunk program.
    pub shrunk_said: (String, String),
    /// The reproducer written, if any.
    pub file: Option<PathBuf>,
}

/// What a pair of engines (or a replay) is checked for while shrinking.
#[derive(Clone, Copy, Debug)]
enum Clash {
    /// Two engines' answers disagree.
    Answers(Engine, Engine),
    /// A witness of the first backend is rejected by the second.
    Replay(SolverKind, SolverKind),
}

/// The differential runner.
pub struct Runner {
    /// Its options.
    pub opts: Options,
    models: BTreeMap<String, Model>,
}

/// A generated program read into the IR, with what the runner asks the
/// engines on it.
struct Parsed {
    /// The program.
    program: Program,
    /// The bound of the bounded engines and SMC: [`Options::bound`]; for
    /// C the unwound program's longest path (every path fits).
    bound: u32,
    /// The answers within `bound` hold for every execution of the
    /// generated program: a C program whose loops the unwinding did not
    /// cut.
    complete: bool,
    /// The C source (for the SV-COMP runner's search), `None` for native
    /// programs.
    source: Option<SourceFile>,
}

impl Runner {
    /// A runner; loads the models.
    ///
    /// Errors: a name that is not a built-in model.
    pub fn new(opts: Options) -> Result<Runner, Error> {
        let mut models = BTreeMap::new();
        for m in &opts.models {
            let name = crate::cat::builtin_name(m).ok_or_else(|| {
                Error::UnknownName(format!("fuzz-diff needs built-in models: `{m}`"))
            })?;
            models.insert(name.to_string(), crate::cat::builtin(name)?);
        }
        let mut opts = opts;
        opts.models = opts
            .models
            .iter()
            .map(|m| crate::cat::builtin_name(m).unwrap_or(m).to_string())
            .collect();
        Ok(Runner { opts, models })
    }

    /// Program `index` of the run: its seed, model and program.
    pub fn program(&self, index: u64) -> (u64, String, Generated) {
        let seed = program_seed(self.opts.seed, index);
        let model = self.opts.models[(index % self.opts.models.len() as u64) as usize].clone();
        let mut p = match self.opts.lang {
            Lang::Native => Generated::Native(self.opts.gen.program(seed, &model)),
            Lang::C => Generated::C(self.opts.c_gen.program(seed)),
        };
        p.set_header(format!(
            "fuzz-diff --seed {}: program {index} (generator seed {seed}) under {model}",
            self.opts.seed
        ));
        (seed, model, p)
    }

    fn c_options(&self) -> crate::frontend::c::Options {
        crate::frontend::c::Options {
            unwind: self.opts.unwind,
            ..Default::default()
        }
    }

    fn parse(&self, g: &Generated) -> Result<Parsed, Error> {
        let w = Width(self.opts.width);
        match g {
            Generated::Native(p) => Ok(Parsed {
                // An SPMD program runs on its `nodes N;` ranks.
                program: crate::program::pgas::prepare(
                    crate::frontend::parse_program(
                        &SourceFile::new("fuzz.rmm", p.render()),
                        None,
                        w,
                    )?,
                    None,
                    w,
                )?,
                bound: self.opts.bound,
                complete: false,
                source: None,
            }),
            Generated::C(p) => {
                let src = SourceFile::new("fuzz.c", p.render());
                let l = crate::frontend::c::lower_until(&src, w, &self.c_options(), None, false)?;
                Ok(Parsed {
                    bound: crate::ask::effective_bound(None, &l.program),
                    complete: l.cut_loops.is_empty() && !l.unchecked_cut,
                    program: l.program,
                    source: Some(src),
                })
            }
        }
    }

    /// Checks program `index` (every question, every engine, every
    /// pair, every witness replayed), adds to `summary`, and returns the
    /// disagreements, shrunk (and written when [`Options::out`] is set).
    pub fn check(&self, index: u64, summary: &mut Summary) -> Vec<Finding> {
        let (seed, model, prog) = self.program(index);
        summary.programs += 1;
        *summary.per_model.entry(model.clone()).or_default() += 1;
        let p = match self.parse(&prog) {
            Ok(p) => p,
            Err(e) => {
                summary
                    .failures
                    .push(format!("program {index} (seed {seed}) does not parse: {e}"));
                return Vec::new();
            }
        };
        let at = Origin {
            index,
            seed,
            model: &model,
            prog: &prog,
        };
        let mut found = Vec::new();
        for &q in &self.opts.questions {
            let engines = self.engines(&model, q);
            let said: Vec<(Said, Option<Execution>)> =
                engines.iter().map(|e| self.ask(&p, &model, q, e)).collect();
            note_reasons(summary, &at, q, &engines, &said);
            for i in 0..engines.len() {
                for j in i + 1..engines.len() {
                    let pair = format!("{} / {}", engines[i].name(), engines[j].name());
                    let c = summary.row(&model, q, pair.clone());
                    if count(c, &said[i].0, &said[j].0) {
                        let clash = Clash::Answers(engines[i], engines[j]);
                        let words = (said[i].0.word(), said[j].0.word());
                        found.push(self.finding(&at, q, pair, words, clash));
                    }
                }
            }
            // Every bounded witness replayed on the other backends.
            for (i, e) in engines.iter().enumerate() {
                let (Engine::Sat(a), Some(x)) = (e, &said[i].1) else {
                    continue;
                };
                for b in backends().into_iter().filter(|b| b != a) {
                    let pair = format!("{} witness -> {}", a.name(), b.name());
                    let r = self.replay(&p, &model, b, x);
                    let c = summary.row(&model, q, pair.clone());
                    match r {
                        Ok(()) => {
                            c.compared += 1;
                            c.agree += 1;
                        }
                        Err(Some(why)) => {
                            c.compared += 1;
                            c.disagree += 1;
                            let clash = Clash::Replay(*a, b);
                            let words = ("violation".to_string(), format!("rejects it: {why}"));
                            found.push(self.finding(&at, q, pair, words, clash));
                        }
                        Err(None) => c.unknown += 1,
                    }
                }
            }
        }
        found
    }

    fn engines(&self, model: &str, q: Question) -> Vec<Engine> {
        let mut v = engines(model, q, self.opts.rounds);
        if self.opts.lang == Lang::C && model == "sc" && q == Question::Reach {
            v.push(Engine::SvExplicit);
        }
        if let Some(s) = self.opts.stub {
            v.push(Engine::Stub(s));
        }
        v
    }

    /// One engine's answer to `q` on `p` (and the bounded engine's
    /// witness); a panic is a failure.
    fn ask(&self, p: &Parsed, model: &str, q: Question, e: &Engine) -> (Said, Option<Execution>) {
        let run = || -> (Said, Option<Execution>) {
            let Some(choice) = e.choice() else {
                return match e {
                    Engine::Stub(s) => match (s.answer)(&p.program, model, q) {
                        Some(a) => (Said::Answer(a), None),
                        None => (Said::NotApplicable("stand-in".into()), None),
                    },
                    _ => (self.search(p), None),
                };
            };
            let questions = [q];
            let m = &self.models[model];
            let mut req = ask::Request::new(&p.program, m, Some(model), &questions, p.bound);
            req.engine = choice;
            req.width = self.opts.width;
            req.timeout = Some(self.opts.timeout);
            req.alone = false;
            req.switches = Switches::default();
            match ask::ask(&req) {
                Ok(mut rs) => {
                    let r = rs.remove(0);
                    let x = match r.detail {
                        Detail::Bounded(b) => b.witness,
                        _ => None,
                    };
                    let a = self.scoped(p, e, r.answer);
                    match a.verdict {
                        Verdict::Unknown => (
                            Said::Unknown(a.reason.unwrap_or_else(|| "no reason".into())),
                            None,
                        ),
                        _ => (Said::Answer(a), x),
                    }
                }
                // The program parsed: a located error from an engine is its
                // refusal of a construct it does not model.
                Err(Error::Unsupported(why)) => (Said::NotApplicable(why), None),
                Err(Error::Input(e)) => (Said::NotApplicable(e.message.clone()), None),
                Err(Error::Unknown(why)) => (Said::Unknown(why), None),
                Err(e) => (Said::Failed(e.to_string()), None),
            }
        };
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)) {
            Ok(x) => x,
            Err(panic) => {
                let msg = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                (Said::Failed(format!("panic: {msg}")), None)
            }
        }
    }

    /// The answer `a` of `e` with the scope it has for the generated
    /// program: SMC's "no violation" on a program the front-end cut holds
    /// within the bound only; the bounded engine's "no violation" on a C
    /// program that nothing cut, at its longest path, holds for every
    /// execution; the k-round translation's "no violation" covers nothing
    /// of the program.
    fn scoped(&self, p: &Parsed, e: &Engine, mut a: Answer) -> Answer {
        let cut = match p.source {
            None => !p.program.notes.is_empty(),
            Some(_) => !p.complete,
        };
        if matches!(e, Engine::Smc) && cut {
            // No answer on the cut program covers the original beyond
            // the bound.
            a.scope = Scope::Bound(p.bound);
        }
        if matches!(e, Engine::Sat(_)) && p.complete && a.verdict == Verdict::NoViolation {
            a.scope = Scope::Complete;
        }
        if matches!(e, Engine::KroundSat(_)) && a.verdict == Verdict::NoViolation {
            // Its bound counts the instructions of P', not of the
            // program: its "no violation" covers no execution of the
            // program that another engine could show (the k-round
            // engine's violations are compared with its own violations
            // only).
            a.scope = Scope::Bound(0);
            a.stats.clear();
        }
        a
    }

    /// The SV-COMP runner's explicit-state search on the C program of
    /// `p` (sc): a proof is "no violation" for every execution, a path
    /// to an error call a violation.
    fn search(&self, p: &Parsed) -> Said {
        use crate::svcomp::explicit::{search, Searched};
        let Some(src) = &p.source else {
            return Said::NotApplicable("a C program only".into());
        };
        let deadline = Some(Instant::now() + self.opts.timeout);
        match search(src, Width(self.opts.width), &self.c_options(), deadline) {
            Ok(Searched::Proof { .. }) => {
                Said::Answer(Answer::new(Verdict::NoViolation, Scope::Complete))
            }
            Ok(Searched::Reachable(_)) => {
                Said::Answer(Answer::new(Verdict::Violation, Scope::Complete))
            }
            Ok(Searched::Unknown(why)) if why.contains("calls no error function") => {
                Said::NotApplicable(why)
            }
            Ok(Searched::Unknown(why)) => Said::Unknown(why),
            Err(e) => Said::Failed(e.to_string()),
        }
    }

    /// `Ok(())`: `b` accepts the witness `x`; `Err(Some(why))`: it
    /// rejects it; `Err(None)`: no answer (a limit, an error).
    fn replay(
        &self,
        p: &Parsed,
        model: &str,
        b: SolverKind,
        x: &Execution,
    ) -> Result<(), Option<String>> {
        let lim = Limits {
            bound: p.bound,
            width: self.opts.width,
            deadline: Deadline(Some(Instant::now() + self.opts.timeout)),
            switches: Switches::default(),
        };
        match bounded::replay(b, &p.program, &self.models[model], lim, x) {
            Ok(Ok(())) => Ok(()),
            Ok(Err(why)) => Err(Some(why)),
            Err(_) => Err(None),
        }
    }

    /// True when `clash` holds on `prog` (it parses, the two sides
    /// disagree); with what each side says.
    fn clashes(
        &self,
        prog: &Generated,
        model: &str,
        q: Question,
        clash: Clash,
    ) -> Option<(String, String)> {
        let p = self.parse(prog).ok()?;
        match clash {
            Clash::Answers(a, b) => {
                let (sa, sb) = (self.ask(&p, model, q, &a).0, self.ask(&p, model, q, &b).0);
                count(&mut Counts::default(), &sa, &sb).then(|| (sa.word(), sb.word()))
            }
            Clash::Replay(a, b) => {
                let (_, x) = self.ask(&p, model, q, &Engine::Sat(a));
                match self.replay(&p, model, b, &x?) {
                    Err(Some(why)) => Some(("violation".into(), format!("rejects it: {why}"))),
                    _ => None,
                }
            }
        }
    }

    fn finding(
        &self,
        at: &Origin,
        q: Question,
        pair: String,
        said: (String, String),
        clash: Clash,
    ) -> Finding {
        let model = at.model;
        let still = |c: &Generated| self.clashes(c, model, q, clash).is_some();
        let shrunk = super::shrink::shrink(at.prog, &still, self.opts.shrink_budget);
        let shrunk_said = self
            .clashes(&shrunk, model, q, clash)
            .unwrap_or_else(|| said.clone());
        let mut f = Finding {
            index: at.index,
            seed: at.seed,
            model: model.to_string(),
            question: q,
            pair,
            said,
            original: at.prog.clone(),
            shrunk,
            shrunk_said,
            file: None,
        };
        if let Some(dir) = &self.opts.out {
            f.file = self.write(dir, &f, clash).ok();
        }
        f
    }

    /// The command line that asks `e` question `q` of `f`'s reproducer.
    fn command(&self, f: &Finding, e: &Engine) -> String {
        let q = question_name(f.question);
        match f.shrunk.lang() {
            Lang::Native => format!(
                "bmc-rmm {q} --model {} --bound {} --width {} {} FILE",
                f.model,
                self.opts.bound,
                self.opts.width,
                e.options()
            ),
            Lang::C => format!(
                "bmc-rmm {q} --model {} --unwind {} --width {} {} FILE",
                f.model,
                self.opts.unwind,
                self.opts.width,
                e.options()
            ),
        }
    }

    /// Writes the reproducer of `f` into `dir`: the shrunk program with a
    /// comment saying what disagrees and how to ask each side.
    fn write(&self, dir: &std::path::Path, f: &Finding, clash: Clash) -> std::io::Result<PathBuf> {
        std::fs::create_dir_all(dir)?;
        let safe: String = f
            .pair
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
            .collect();
        let q = question_name(f.question);
        let path = dir.join(format!(
            "seed{}-{}-{}-{q}-{safe}.{}",
            self.opts.seed,
            f.index,
            f.model,
            f.shrunk.extension()
        ));
        let (a, b) = match clash {
            Clash::Answers(a, b) => (a, b),
            Clash::Replay(a, b) => (Engine::Sat(a), Engine::Sat(b)),
        };
        let mut text = format!(
            "// fuzz-diff disagreement: {} under {}, {q}: {} says {}; {} says {}\n// (generated: {} said {}, {} said {}; shrunk from {} to {} statements)\n// {}\n// {}\n",
            f.pair,
            f.model,
            a.name(),
            f.shrunk_said.0,
            b.name(),
            f.shrunk_said.1,
            a.name(),
            f.said.0,
            b.name(),
            f.said.1,
            f.original.size(),
            f.shrunk.size(),
            self.command(f, &a),
            self.command(f, &b),
        );
        text.push_str(&f.shrunk.render());
        std::fs::write(&path, text)?;
        Ok(path)
    }
}

/// Which program of the run a disagreement is on.
struct Origin<'a> {
    index: u64,
    seed: u64,
    model: &'a str,
    prog: &'a Generated,
}

/// Adds to `summary` why engines did not apply or ended unknown, and
/// their failures.
fn note_reasons(
    summary: &mut Summary,
    at: &Origin,
    q: Question,
    engines: &[Engine],
    said: &[(Said, Option<Execution>)],
) {
    for (e, (s, _)) in engines.iter().zip(said) {
        if matches!(s, Said::NotApplicable(_) | Said::Unknown(_)) {
            let w: String = s.word().chars().take(110).collect();
            *summary.reasons.entry((e.name(), w)).or_default() += 1;
        }
        if let Said::Failed(why) = s {
            summary.failures.push(format!(
                "program {} (seed {}), {} {}, {}: {why}",
                at.index,
                at.seed,
                at.model,
                question_name(q),
                e.name()
            ));
        }
    }
}

/// Counts one pair of answers into `c`; true on a disagreement.
fn count(c: &mut Counts, a: &Said, b: &Said) -> bool {
    match (a, b) {
        (Said::NotApplicable(_), _) | (_, Said::NotApplicable(_)) => c.not_applicable += 1,
        (Said::Answer(x), Said::Answer(y)) => {
            c.compared += 1;
            match x.compare(y) {
                Agreement::Disagree => {
                    c.disagree += 1;
                    return true;
                }
                Agreement::Unknown => {
                    c.compared -= 1;
                    c.unknown += 1;
                }
                Agreement::Agree | Agreement::Beyond => c.agree += 1,
            }
        }
        _ => c.unknown += 1,
    }
    false
}
