//! SV-COMP's conventions for concurrent C programs: task definitions
//! ([`task`]), answers and scoring ([`score`]), complete answers by
//! deepening the loop unwinding ([`deepen`]), and violation witnesses in
//! witness format 2.0 with their replay ([`witness`]). [`verify`] answers
//! one task the way the `svcomp` command prints it.
//!
//! The property is `unreach-call` (no call of `reach_error()`, or of the
//! older `__VERIFIER_error()`), which the C front-end turns into the
//! program's goals; programs run under sequential consistency (SV-COMP's
//! pthread semantics) on the bounded (SAT) engine and, where it suits,
//! the SMC engine ([`deepen`]); both execute every `__VERIFIER_atomic_*`
//! step indivisibly.

pub mod deepen;
pub mod explicit;
pub mod score;
pub mod task;
pub mod witness;

use crate::diag::{Error, SourceFile};
use score::Answer;
use std::time::{Duration, Instant};

/// Limits and choices of one [`verify`] call.
#[derive(Clone, Debug)]
pub struct VerifyOptions {
    /// Wall-clock budget of the task (the deepening stops when it runs out).
    pub timeout: Duration,
    /// `Some(n)`: unwind loops exactly `n` times (one run, "safe" is
    /// bounded when a loop was cut); `None`: deepen ([`deepen`]).
    pub unwind: Option<u32>,
    /// The largest unwinding the deepening tries.
    pub max_unwind: u32,
    /// The engines that check each unwinding.
    pub engine: deepen::Engine,
    /// The bounded engine's solver.
    pub solver: crate::engines::bounded::SolverKind,
    /// The C front-end's options other than the unwinding (`-D`, the
    /// preprocessor, spin loops).
    pub c: crate::frontend::c::Options,
}

impl Default for VerifyOptions {
    fn default() -> VerifyOptions {
        VerifyOptions {
            timeout: Duration::from_secs(900),
            unwind: None,
            max_unwind: deepen::DEFAULT_MAX_UNWIND,
            engine: deepen::Engine::Auto,
            solver: crate::engines::bounded::SolverKind::Varisat,
            c: crate::frontend::c::Options::default(),
        }
    }
}

/// The answer to one task.
#[derive(Clone, Debug)]
pub struct Verdict {
    /// TRUE, FALSE or UNKNOWN.
    pub answer: Answer,
    /// Why (a proof, the violation, or the limit that was reached).
    pub reason: String,
    /// The witness (format 2.0 YAML text) of a FALSE answer.
    pub witness: Option<String>,
    /// Wall-clock seconds.
    pub time: f64,
}

/// Answers `task`'s `unreach-call` property: deepens the unwinding
/// (or runs the one unwinding `opts.unwind` gives) and, for FALSE, writes
/// the violation witness. A task this runner cannot answer (another
/// property, several input files, a construct the C front-end refuses) is
/// UNKNOWN with the reason; it is never guessed.
///
/// Errors: the input file cannot be read ([`Error::Io`]).
pub fn verify(task: &task::Task, opts: &VerifyOptions) -> Result<Verdict, Error> {
    let t0 = Instant::now();
    let unknown = |reason: String| Verdict {
        answer: Answer::Unknown,
        reason,
        witness: None,
        time: t0.elapsed().as_secs_f64(),
    };
    if task.reach_property().is_none() {
        return Ok(unknown(format!(
            "unsupported property: only {} is checked",
            task::UNREACH_CALL
        )));
    }
    if task.language != "C" {
        return Ok(unknown(format!(
            "unsupported language `{}` (C only)",
            task.language
        )));
    }
    let [input] = task.input_files.as_slice() else {
        return Ok(unknown(format!(
            "{} input files; one is supported",
            task.input_files.len()
        )));
    };
    let src = SourceFile::read(&input.to_string_lossy())?;
    let mut c = opts.c.clone();
    let (start, max) = match opts.unwind {
        Some(n) => (n, n),
        None => (deepen::FIRST_UNWIND.min(opts.max_unwind), opts.max_unwind),
    };
    c.unwind = start;
    let explicit_note = match explicit_phase(task, &src, &c, opts, t0)? {
        Ok(v) => return Ok(v),
        Err(note) => note,
    };
    let o = deepen::DeepenOptions {
        c,
        max_unwind: max,
        width: task.data_model.width(),
        deadline: Some(t0 + opts.timeout),
        engine: opts.engine,
        solver: opts.solver,
    };
    let d = match deepen::deepen(&src, &o) {
        Ok(d) => d,
        Err(Error::Io { path, message }) => return Err(Error::Io { path, message }),
        Err(e) => {
            return Ok(unknown(format!(
                "not handled: {}",
                one_line(&e.to_string())
            )))
        }
    };
    let time = || t0.elapsed().as_secs_f64();
    Ok(match d {
        deepen::Deepened::Violation {
            unwind,
            program,
            goal,
            steps,
            engine,
        } => {
            let w = witness::write(task, &program, goal, &steps, unwind);
            let threads = {
                let mut ts: Vec<u32> = steps.iter().map(|s| s.thread()).collect();
                ts.sort_unstable();
                ts.dedup();
                ts.len()
            };
            Verdict {
                answer: Answer::False,
                reason: format!(
                    "{} reachable at --unwind {unwind} ({} steps of {threads} thread(s); {engine})",
                    program.goals[goal]
                        .name
                        .clone()
                        .unwrap_or_else(|| "the error call".into()),
                    steps.len()
                ),
                witness: Some(w),
                time: time(),
            }
        }
        deepen::Deepened::Proof {
            unwind,
            engine,
            how,
        } => Verdict {
            answer: Answer::True,
            reason: format!(
                "proof: no path reaches the error call, and --unwind {unwind} {how} ({engine})"
            ),
            witness: None,
            time: time(),
        },
        deepen::Deepened::Bounded { unwind, cut } => unknown(format!(
            "bounded: no violation up to --unwind {unwind}, but {cut}{}",
            explicit_note
                .map(|n| format!("; explicit: {n}"))
                .unwrap_or_default()
        )),
        deepen::Deepened::Unknown { reason, bounded } => unknown(
            match bounded {
                Some(k) => format!("{reason}; bounded: no violation up to --unwind {k}"),
                None => reason,
            } + &explicit_note
                .map(|n| format!("; explicit: {n}"))
                .unwrap_or_default(),
        ),
    })
}

/// The explicit-state search of the cyclic program, run before deepening
/// (under `auto` with half of the time, alone under `--engine explicit`):
/// a proof for programs whose loops do not end but whose states are few.
/// `Ok(Ok(v))`: the final answer; `Ok(Err(note))`: deepening goes on, and
/// `note` (what the search found, if it ran) joins its reason.
///
/// Errors: those of the C front-end on the program.
fn explicit_phase(
    task: &task::Task,
    src: &SourceFile,
    c: &crate::frontend::c::Options,
    opts: &VerifyOptions,
    t0: Instant,
) -> Result<Result<Verdict, Option<String>>, Error> {
    let unknown = |reason: String| Verdict {
        answer: Answer::Unknown,
        reason,
        witness: None,
        time: t0.elapsed().as_secs_f64(),
    };
    let mut explicit_note = None;
    if matches!(opts.engine, deepen::Engine::Auto | deepen::Engine::Explicit) {
        let share = match opts.engine {
            deepen::Engine::Auto => opts.timeout / 2,
            _ => opts.timeout,
        };
        match explicit::search(src, task.data_model.width(), c, Some(t0 + share))? {
            explicit::Searched::Proof {
                states,
                cyclic_threads,
                replicated,
            } => {
                let reason = if replicated == 0 {
                    format!(
                        "proof: no path reaches the error call; the explicit-state SC search \
                         visited all {states} reachable states of the program with its loops \
                         kept as cycles ({cyclic_threads} cyclic thread(s); complete: the state \
                         space is finite and nothing was cut)"
                    )
                } else {
                    format!(
                        "proof: no path reaches the error call with any number of threads; \
                         the counting abstraction of the {replicated} thread(s) created in \
                         endless loops has an inductive invariant of {states} states that \
                         covers no error state ({cyclic_threads} cyclic thread(s))"
                    )
                };
                return Ok(Ok(Verdict {
                    answer: Answer::True,
                    reason,
                    witness: None,
                    time: t0.elapsed().as_secs_f64(),
                }));
            }
            explicit::Searched::Reachable(path) => {
                if let Some(v) = explicit_violation(task, src, c, &path, t0, opts.timeout) {
                    return Ok(Ok(v));
                }
                explicit_note = Some("the explicit-state search reached the error call".into())
            }
            explicit::Searched::Unknown(why) => explicit_note = Some(why),
        }
        if opts.engine == deepen::Engine::Explicit
            && explicit_note.as_deref() != Some("the explicit-state search reached the error call")
        {
            return Ok(Ok(unknown(format!(
                "explicit: {}",
                explicit_note.unwrap_or_default()
            ))));
        }
    }
    Ok(Err(explicit_note))
}

/// The FALSE answer of the explicit search's execution `path`: its
/// witness, written from the cyclic program (waypoints name source
/// locations, threads and values, the same in every lowering of the
/// program), counts only once it replays on the program unwound
/// `path.unwind` times — the program a reader of the witness checks.
/// `None` when it does not, or when that lowering reaches the task's
/// time limit (`t0 + timeout`; the runner then deepens, which stops at
/// the same limit).
fn explicit_violation(
    task: &task::Task,
    src: &SourceFile,
    c: &crate::frontend::c::Options,
    path: &explicit::Path,
    t0: Instant,
    timeout: Duration,
) -> Option<Verdict> {
    let w = task.data_model.width();
    let text = witness::write(task, &path.program, path.goal, &path.steps, path.unwind);
    let (wps, _) = witness::read(&text).ok()?;
    let mut cu = c.clone();
    cu.unwind = path.unwind;
    cu.deadline = Some(t0 + timeout);
    let unwound = deepen::program_at(src, w, &cu).ok()?;
    witness::replay(&unwound, w, &wps).ok()?;
    let threads = {
        let mut ts: Vec<u32> = path.steps.iter().map(|s| s.thread()).collect();
        ts.sort_unstable();
        ts.dedup();
        ts.len()
    };
    Some(Verdict {
        answer: Answer::False,
        reason: format!(
            "{} reachable ({} steps of {threads} thread(s); explicit-state search, the witness \
             replays at --unwind {})",
            path.program.goals[path.goal]
                .name
                .clone()
                .unwrap_or_else(|| "the error call".into()),
            path.steps.len(),
            path.unwind
        ),
        witness: Some(text),
        time: t0.elapsed().as_secs_f64(),
    })
}

/// The first line of a (possibly multi-line, rendered) error message.
fn one_line(s: &str) -> String {
    s.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" | ")
}
