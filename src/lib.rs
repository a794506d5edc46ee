//! bmc-rmm: bounded model checking of concurrent programs under relaxed
//! memory models (SC, x86-TSO, PSO, RMO, Power, PGAS, ARMv8, RISC-V).
//!
//! The pipeline (docs/architecture.md):
//!
//! ```text
//! source text ─[frontend]→ Program IR [program] ─┬─[engines::bounded]→ verdict, Execution
//!                 model name/file ─[cat]→ Model ─┘   (varisat | cdclt | z3 backend)
//!                                  Program IR ──[engines::explicit]→ unbounded TSO answers
//!                                  Program IR ──[engines::tso_reach]→ TSO reachability (k-round, lazy)
//!                                  Program IR ──[engines::smc]→ stateless model checking
//!     LitmusTest [frontend::litmus] ─[litmus::run]→ final states, herd's output
//! ```
//!
//! The command line lives in the binary (`src/main.rs`, `src/cli/`): the
//! library does not depend on clap.

pub mod answer;
pub mod ask;
pub mod cat;
pub mod collections;
pub mod diag;
pub mod engines;
pub mod frontend;
pub mod fuzz;
pub mod litmus;
pub mod program;
pub mod resources;
pub mod svcomp;
