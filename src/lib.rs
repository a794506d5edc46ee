//! bmc-rmm: bounded model checking of concurrent programs under relaxed
//! memory models (SC, x86-TSO, PSO, RMO, Power, PGAS).
//!
//! Pipeline (see `../shared/DESIGN.md` and docs/): source text
//! → [`frontend`] → [`program`] (the IR) → engines → verdicts and witnesses.

pub mod backend;
pub mod batch;
pub mod cat;
pub mod check;
pub mod cli;
pub mod diag;
pub mod diff_cmd;
pub mod engine;
pub mod expect;
pub mod explicit;
pub mod explicit_cmd;
pub mod frontend;
pub mod inputs;
pub mod intern;
pub mod litmus;
pub mod litmus_cmd;
pub mod pgas;
pub mod print;
pub mod program;
pub mod sat;
#[cfg(feature = "z3")]
pub mod smt;
