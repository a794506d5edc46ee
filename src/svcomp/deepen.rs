//! Complete answers for C programs by deepening the loop unwinding: the
//! C front-end unwinds every loop (and recursion) `--unwind` times and
//! reports which loops the bound cut ([`crate::frontend::c::Lowered`]:
//! paths needing more iterations end there, so no behaviour is added and
//! a violation found at any unwinding is real). Checking at increasing
//! unwindings until one cuts nothing makes "no violation" a proof for
//! programs whose loops are bounded; otherwise the answer stays bounded
//! and says so.
//!
//! Each unwinding is checked under SC (the `sc` cat model) with the
//! bound at the program's longest path, so that no engine cuts a path
//! either:
//! * first by the bounded engine ([`crate::engines::bounded`], varisat
//!   unless told otherwise), which encodes a `__VERIFIER_nondet_*` value
//!   as one free value; its violation is turned into an SC interleaving
//!   of the program's operational semantics ([`super::witness::interleave`])
//!   before it counts, so every FALSE has a replayable execution;
//! * then, under `Engine::Auto`, by the SMC engine
//!   ([`crate::engines::smc`]) where it is the better choice: when the
//!   bounded engine ran out of its share of the time and the program draws
//!   few nondeterministic bits ([`smc_suits`]; the SMC engine executes
//!   every value of a nondeterministic int one by one, docs/c.md, "Atomic
//!   sections"), or when the bounded engine's execution has no SC
//!   interleaving.
//!
//! Either engine's "no violation" is complete for the unwound program;
//! it is a proof for the C program only when the unwinding cut no loop.

use crate::ask::{Detail, EngineChoice, Question, Reply, Request};
use crate::diag::{Error, SourceFile};
use crate::engines::bounded::{self, SolverKind};
use crate::engines::smc::semantics::Step;
use crate::engines::smc::SmcVerdict;
use crate::program::{Program, Width};
use std::time::Instant;

/// The first unwinding tried.
pub const FIRST_UNWIND: u32 = 2;

/// The largest unwinding tried by default.
pub const DEFAULT_MAX_UNWIND: u32 = 64;

/// At most this many nondeterministic bit choices (over every thread of
/// the unwound program) for the SMC engine to be tried after the bounded
/// engine ([`smc_suits`]): a few `__VERIFIER_nondet_bool()` calls, no
/// 32-bit value.
pub const SMC_MAX_CHOICES: usize = 16;

/// Which engines check each unwinding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Engine {
    /// The explicit-state search of the cyclic program with a share of
    /// the time ([`super::explicit`]), then the bounded engine, the SMC
    /// engine where it suits (module doc).
    #[default]
    Auto,
    /// The bounded engine only.
    Bounded,
    /// The SMC engine only.
    Smc,
    /// The explicit-state search of the program with its loops kept as
    /// cycles ([`super::explicit`]) only; a violation whose witness does
    /// not replay is reproduced by deepening with the bounded engine.
    Explicit,
}

impl Engine {
    /// The name used on the command line (`auto`, `bounded`, `smc`,
    /// `explicit`).
    pub fn name(self) -> &'static str {
        match self {
            Engine::Auto => "auto",
            Engine::Bounded => "bounded",
            Engine::Smc => "smc",
            Engine::Explicit => "explicit",
        }
    }
}

/// Options of [`deepen`].
#[derive(Clone, Debug)]
pub struct DeepenOptions {
    /// The C front-end's options; `c.unwind` is the first unwinding.
    pub c: crate::frontend::c::Options,
    /// The last unwinding tried (the unwinding doubles up to it).
    pub max_unwind: u32,
    /// Width of values (bits).
    pub width: Width,
    /// When to give up (the lowering included).
    pub deadline: Option<Instant>,
    /// The engines.
    pub engine: Engine,
    /// The bounded engine's solver (varisat or cdclt).
    pub solver: SolverKind,
}

/// What [`deepen`] found.
#[derive(Clone, Debug)]
pub enum Deepened {
    /// A goal (error call) is reachable: the program at `unwind`, the
    /// goal (index into `Program::goals`) and the SC steps reaching it.
    Violation {
        /// The unwinding of the program.
        unwind: u32,
        /// The program the steps run on.
        program: Box<Program>,
        /// The goal reached.
        goal: usize,
        /// The interleaving (SMC steps, SC: instructions only).
        steps: Vec<Step>,
        /// The engine that found it (`bounded (varisat)`, `smc`).
        engine: String,
    },
    /// No goal is reachable and the unwinding `unwind` left no execution
    /// out (it cut no loop, or no path reaches a cut): a proof.
    Proof {
        /// The unwinding at which no execution was left out.
        unwind: u32,
        /// The engine that answered.
        engine: String,
        /// Why nothing was left out: the unwinding cut no loop, or no
        /// path reaches the loops it cut.
        how: String,
    },
    /// No goal is reachable up to the largest unwinding, which still cut
    /// loops (`cut`: which).
    Bounded {
        /// The largest unwinding checked.
        unwind: u32,
        /// Which loops it cut (`the loops at FILE:LINE, …`).
        cut: String,
    },
    /// A limit (time, memory) or a refusal at a deeper unwinding ended
    /// the deepening; `bounded`: the largest unwinding with no violation.
    Unknown {
        /// The limit or refusal.
        reason: String,
        /// No violation up to this unwinding (which cut loops).
        bounded: Option<u32>,
    },
}

/// The answer of one engine on one unwound program.
enum Found {
    /// A goal and an SC interleaving reaching it.
    Violation(usize, Vec<Step>),
    /// No goal is reachable in the unwound program.
    None,
    /// No answer (limit, or an execution without an SC interleaving).
    Unknown(String),
}

/// True when the SMC engine is worth trying on `p`: the program makes at
/// most [`SMC_MAX_CHOICES`] thread-local choices — states whose outgoing
/// instructions are two or more register assignments or `nop`s, which is
/// how the C front-end draws a `__VERIFIER_nondet_*` value bit by bit and
/// an atomic section's selector.
pub fn smc_suits(p: &Program) -> bool {
    use crate::program::Command;
    let mut n = 0usize;
    for th in &p.threads {
        let mut outs: crate::collections::HashMap<_, (usize, bool)> = Default::default();
        for ins in &th.instrs {
            let e = outs.entry(ins.from).or_insert((0, true));
            e.0 += 1;
            e.1 &= matches!(ins.cmd, Command::Assign { .. } | Command::Nop);
        }
        n += outs.values().filter(|&&(k, local)| k >= 2 && local).count();
        if n > SMC_MAX_CHOICES {
            return false;
        }
    }
    true
}

/// One reachability reply under SC from `engine` on `p` until
/// `deadline`, through the library's entry point ([`crate::ask::ask`]):
/// the bound is the unwound program's longest path; SMC explores every
/// region (none is skipped as read-only).
///
/// Errors: those of the engine, a limit (`Error::Unknown`) included.
fn ask_sc(
    p: &Program,
    width: Width,
    engine: EngineChoice,
    deadline: Option<Instant>,
) -> Result<Reply, Error> {
    let model = crate::cat::builtin("sc")?;
    let questions = [Question::Reach];
    let bound = p.max_path.unwrap_or(bounded::DEFAULT_BOUND);
    let mut req = Request::new(p, &model, Some("sc"), &questions, bound);
    req.engine = engine;
    req.width = width.0;
    req.timeout = deadline.map(|d| d.saturating_duration_since(Instant::now()));
    req.alone = false;
    req.smc_keep_reads = true;
    Ok(crate::ask::ask(&req)?.remove(0))
}

/// The bounded engine on `p` under SC until `deadline`.
fn run_bounded(
    p: &Program,
    width: Width,
    solver: SolverKind,
    deadline: Option<Instant>,
) -> Result<Found, Error> {
    let r = match ask_sc(p, width, EngineChoice::Bounded(Some(solver)), deadline) {
        Ok(Reply {
            detail: Detail::Bounded(r),
            ..
        }) => *r,
        Ok(_) => return Ok(Found::Unknown("the bounded engine gave no result".into())),
        Err(Error::Unknown(why)) => return Ok(Found::Unknown(why)),
        Err(e) => return Err(e),
    };
    Ok(match r.verdict {
        bounded::Verdict::NoViolation => Found::None,
        bounded::Verdict::Unknown => Found::Unknown(
            r.reason
                .unwrap_or_else(|| "the bounded engine answered unknown".into()),
        ),
        bounded::Verdict::Violation => {
            let steps = r
                .witness
                .as_ref()
                .and_then(|x| super::witness::interleave(p, width, x));
            match steps {
                Some((goal, steps)) => Found::Violation(goal, steps),
                None => {
                    Found::Unknown("the bounded engine's execution has no SC interleaving".into())
                }
            }
        }
    })
}

/// The SMC engine on `p` under SC until `deadline`.
fn run_smc(p: &Program, width: Width, deadline: Option<Instant>) -> Result<Found, Error> {
    let Detail::Smc(s) = ask_sc(p, width, EngineChoice::Smc, deadline)?.detail else {
        return Err(Error::Unsupported(
            "the SMC engine answered another check".into(),
        ));
    };
    let (r, bound) = (s.result, s.options.bound);
    Ok(match r.verdict {
        SmcVerdict::Reachable { goal, steps } => Found::Violation(goal, steps),
        SmcVerdict::Unknown(why) => Found::Unknown(why),
        SmcVerdict::Unreachable if r.stats.bound_cut => {
            Found::Unknown(format!("the bound {bound} cut paths"))
        }
        SmcVerdict::Unreachable => Found::None,
        SmcVerdict::NotRobust { .. } | SmcVerdict::Robust => {
            return Err(Error::Unsupported(
                "the SMC engine answered another check".into(),
            ))
        }
    })
}

/// Checks one unwound program with the engines `o.engine` names; the
/// answer and the engine that gave it.
fn check_unwound(p: &Program, o: &DeepenOptions) -> Result<(Found, String), Error> {
    let sat = format!("bounded ({})", o.solver.name());
    match o.engine {
        Engine::Bounded | Engine::Explicit => {
            Ok((run_bounded(p, o.width, o.solver, o.deadline)?, sat))
        }
        Engine::Smc => Ok((run_smc(p, o.width, o.deadline)?, "smc".into())),
        Engine::Auto => {
            let suits = smc_suits(p);
            // The bounded engine's share: all of the time unless the SMC
            // engine may take over, then half of what is left.
            let share = match (suits, o.deadline) {
                (true, Some(d)) => {
                    let now = Instant::now();
                    Some(now + d.saturating_duration_since(now) / 2)
                }
                (_, d) => d,
            };
            let first = run_bounded(p, o.width, o.solver, share)?;
            match first {
                Found::Unknown(why) if suits || why.contains("SC interleaving") => {
                    if o.deadline.is_some_and(|d| Instant::now() >= d) {
                        return Ok((Found::Unknown(why), sat));
                    }
                    match run_smc(p, o.width, o.deadline)? {
                        Found::Unknown(w2) => {
                            Ok((Found::Unknown(format!("{why}; smc: {w2}")), sat))
                        }
                        f => Ok((f, "smc".into())),
                    }
                }
                f => Ok((f, sat)),
            }
        }
    }
}

/// The program of `l` with its error goals only (`unwinding == false`:
/// the program whose violations [`deepen`] reports and whose witnesses
/// replay), or with its unwinding goals only.
pub fn goals_of(l: &crate::frontend::c::Lowered, unwinding: bool) -> Program {
    let mut p = l.program.clone();
    p.goals = (0..l.program.goals.len())
        .filter(|g| l.unwind_goals.contains(g) == unwinding)
        .map(|g| l.program.goals[g].clone())
        .collect();
    p
}

/// The program [`deepen`] checks for violations at unwinding `c.unwind`
/// (lowered with unwinding goals, error goals kept): the program a
/// witness written at that unwinding replays on. The lowering gives up at
/// `c.deadline`.
///
/// Errors: the front-end's, including a limit reached
/// ([`Error::Unknown`]).
pub fn program_at(
    src: &SourceFile,
    width: Width,
    c: &crate::frontend::c::Options,
) -> Result<Program, Error> {
    let l = crate::frontend::c::lower_until(src, width, c, c.deadline, true)?;
    Ok(goals_of(&l, false))
}

/// Checks `src` (C) at unwindings `c.unwind`, twice that, … up to
/// `max_unwind`, stopping at the first violation, the first unwinding
/// that leaves no execution out, or a limit. Each unwinding is lowered
/// with unwinding goals ([`crate::frontend::c::lower_until`]): first the
/// error goals are checked (the cut paths end), then, when loops were
/// cut, the unwinding goals alone — unreachable, the cuts removed
/// nothing (CBMC's unwinding assertions), and "no violation" is a proof.
///
/// Errors: the front-end's errors at the first unwinding (a syntax
/// error, an unsupported construct: located, exit 2); an engine's
/// refusal of a command. Errors at a deeper unwinding end the deepening
/// as [`Deepened::Unknown`].
pub fn deepen(src: &SourceFile, o: &DeepenOptions) -> Result<Deepened, Error> {
    let mut unwind = o.c.unwind.max(1);
    let mut bounded: Option<u32> = None;
    loop {
        let mut c = o.c.clone();
        c.unwind = unwind;
        let unknown = |reason: String| Deepened::Unknown { reason, bounded };
        if o.deadline.is_some_and(|d| Instant::now() >= d) {
            return Ok(unknown(format!(
                "time limit reached before --unwind {unwind}"
            )));
        }
        let l = match crate::frontend::c::lower_until(src, o.width, &c, o.deadline, true) {
            Ok(l) => l,
            Err(Error::Unknown(why)) => return Ok(unknown(format!("{why} at --unwind {unwind}"))),
            Err(e) if bounded.is_some() => {
                let msg = e.to_string();
                let first = msg.lines().next().unwrap_or("").trim().to_string();
                return Ok(unknown(format!("at --unwind {unwind}: {first}")));
            }
            Err(e) => return Err(e),
        };
        // The error goals alone, then the unwinding goals alone.
        let with_goals = |keep_unwinding: bool| goals_of(&l, keep_unwinding);
        let p = with_goals(false);
        let refused = |e: Error, bounded: Option<u32>| -> Result<Deepened, Error> {
            if bounded.is_none() {
                return Err(e);
            }
            let msg = e.to_string();
            let first = msg.lines().next().unwrap_or("").trim().to_string();
            Ok(Deepened::Unknown {
                reason: format!("at --unwind {unwind}: {first}"),
                bounded,
            })
        };
        let (found, engine) = if p.goals.is_empty() {
            (Found::None, "no error call".to_string())
        } else {
            match check_unwound(&p, o) {
                Ok(x) => x,
                Err(e) => return refused(e, bounded),
            }
        };
        match found {
            Found::Violation(goal, steps) => {
                return Ok(Deepened::Violation {
                    unwind,
                    program: Box::new(p),
                    goal,
                    steps,
                    engine,
                })
            }
            Found::Unknown(why) => return Ok(unknown(format!("{why} at --unwind {unwind}"))),
            Found::None => {}
        }
        if l.cut_loops.is_empty() {
            return Ok(Deepened::Proof {
                unwind,
                engine,
                how: "cut no loop".into(),
            });
        }
        // Loops were cut: a proof still when no path reaches a cut
        // (CBMC's unwinding assertions hold).
        if !l.unchecked_cut && !l.unwind_goals.is_empty() {
            let q = with_goals(true);
            let (found, engine) = match check_unwound(&q, o) {
                Ok(x) => x,
                Err(e) => return refused(e, bounded),
            };
            match found {
                Found::None => {
                    return Ok(Deepened::Proof {
                        unwind,
                        engine,
                        how: "cut loops no path reaches (unwinding assertions hold)".into(),
                    })
                }
                Found::Unknown(_) if o.deadline.is_some_and(|d| Instant::now() >= d) => {
                    bounded = Some(unwind);
                    return Ok(Deepened::Unknown {
                        reason: format!("time limit reached checking the unwinding assertions at --unwind {unwind}"),
                        bounded,
                    });
                }
                Found::Violation(..) | Found::Unknown(_) => {}
            }
        }
        let file = &src.path;
        let cut = format!(
            "--unwind {unwind} cut the loops at {}",
            l.cut_loops
                .iter()
                .map(|line| format!("{file}:{line}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        bounded = Some(unwind);
        if unwind >= o.max_unwind {
            return Ok(Deepened::Bounded { unwind, cut });
        }
        unwind = unwind.saturating_mul(2).min(o.max_unwind);
    }
}
