//! The solver backends behind `--solver`: the embedded SAT solver
//! (varisat, [`crate::engine`]: lazy axioms over a bit-blasted encoding)
//! and z3 ([`crate::smt`], Cargo feature `z3`: an independent eager SMT
//! encoding). Every command that solves goes through this module, so
//! `reach`, `robust`, `litmus` and `crosscheck --solvers` accept both.

use crate::cat::Model;
use crate::check::{self, CheckKind, CheckResult};
use crate::diag::Error;
use crate::engine::{Deadline, Encoder, Execution};
use crate::litmus::run::FinalStates;
use crate::program::{GExpr, Program, Width};

/// A solver backend.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SolverKind {
    /// The embedded SAT solver (pure Rust; always available).
    #[default]
    Varisat,
    /// z3 through libz3 (builds with `--features z3`).
    Z3,
}

impl SolverKind {
    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            SolverKind::Varisat => "varisat",
            SolverKind::Z3 => "z3",
        }
    }

    /// Errors: [`Error::Usage`] when this build lacks the backend.
    pub fn available(self) -> Result<(), Error> {
        if self == SolverKind::Z3 && !cfg!(feature = "z3") {
            return no_z3();
        }
        Ok(())
    }

    /// Parses a comma-separated list such as `varisat,z3`.
    ///
    /// Errors: an unknown name.
    pub fn parse_list(s: &str) -> Result<Vec<SolverKind>, Error> {
        s.split(',')
            .map(|n| match n.trim() {
                "varisat" | "sat" => Ok(SolverKind::Varisat),
                "z3" => Ok(SolverKind::Z3),
                other => Err(Error::Usage(format!(
                    "unknown solver `{other}`; solvers: varisat, z3"
                ))),
            })
            .collect()
    }
}

/// The bound (steps per thread), value width (bits) and deadline of a
/// query.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// K.
    pub bound: u32,
    /// W.
    pub width: u32,
    /// When to give up (`unknown`).
    pub deadline: Deadline,
}

/// The error of a build without the z3 backend.
fn no_z3<T>() -> Result<T, Error> {
    Err(Error::Usage(
        "this bmc-rmm was built without z3; rebuild with `cargo build --release --features z3` \
         (needs libz3-dev and libclang-dev, docs/solvers.md)"
            .into(),
    ))
}

/// Checks that `solver` can encode `model` (once, before a batch starts,
/// so that nothing is half-printed).
///
/// Errors: the backend is not built in; z3 and a model construct its
/// encoding does not support.
pub fn validate(solver: SolverKind, model: &Model) -> Result<(), Error> {
    solver.available()?;
    #[cfg(feature = "z3")]
    if solver == SolverKind::Z3 {
        crate::smt::query::validate_model(model)?;
    }
    let _ = model;
    Ok(())
}

/// Runs the checks `kinds` on `prog` (one encoding for all of them).
///
/// Errors: see [`validate`]; timeouts are `Unknown` verdicts, not errors.
pub fn check(
    solver: SolverKind,
    prog: &Program,
    model: &Model,
    lim: Limits,
    eager: bool,
    kinds: &[CheckKind],
) -> Result<Vec<CheckResult>, Error> {
    match solver {
        SolverKind::Varisat => {
            let mut enc = Encoder::new(prog, model, lim.bound, lim.width, eager);
            Ok(kinds
                .iter()
                .map(|k| match k {
                    CheckKind::Reach => check::reach(&mut enc, lim.deadline),
                    CheckKind::Robust => check::robust(&mut enc, lim.deadline),
                })
                .collect())
        }
        #[cfg(feature = "z3")]
        SolverKind::Z3 => crate::smt::query::check(prog, model, lim, kinds),
        #[cfg(not(feature = "z3"))]
        SolverKind::Z3 => no_z3(),
    }
}

/// Enumerates final states (litmus) with `solver`; see
/// [`crate::litmus::run::enumerate_final`].
///
/// Errors: see [`validate`].
#[allow(clippy::too_many_arguments)]
pub fn enumerate_final(
    solver: SolverKind,
    prog: &Program,
    model: &Model,
    bound: u32,
    width: Width,
    filter: Option<&GExpr>,
    exprs: &[GExpr],
    deadline: Deadline,
) -> Result<FinalStates, Error> {
    match solver {
        SolverKind::Varisat => Ok(crate::litmus::run::enumerate_final(
            prog, model, bound, width, filter, exprs, deadline,
        )),
        #[cfg(feature = "z3")]
        SolverKind::Z3 => {
            crate::smt::query::enumerate_final(prog, model, bound, width, filter, exprs, deadline)
        }
        #[cfg(not(feature = "z3"))]
        SolverKind::Z3 => no_z3(),
    }
}

/// Replays an execution found by some backend on `solver`: `Ok(Ok(()))`
/// when it is an execution of `prog` consistent with `model` within
/// `bound`, `Ok(Err(why))` when it is not (or cannot be mapped onto this
/// backend's unrolling).
///
/// Errors: see [`validate`]; the deadline passing.
pub fn replay(
    solver: SolverKind,
    prog: &Program,
    model: &Model,
    lim: Limits,
    x: &Execution,
) -> Result<Result<(), String>, Error> {
    match solver {
        SolverKind::Varisat => {
            let mut enc = Encoder::new(prog, model, lim.bound, lim.width, false);
            let pins = match enc.pin(x) {
                Ok(p) => p,
                Err(why) => return Ok(Err(why)),
            };
            Ok(match enc.find(&pins, lim.deadline)? {
                Some(_) => Ok(()),
                None => Err("not an execution consistent with the model".into()),
            })
        }
        #[cfg(feature = "z3")]
        SolverKind::Z3 => crate::smt::query::replay(prog, model, lim, x),
        #[cfg(not(feature = "z3"))]
        SolverKind::Z3 => no_z3(),
    }
}
