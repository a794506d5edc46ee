//! bmc-rmm: bounded model checking of concurrent programs under relaxed
//! memory models (SC, x86-TSO, PSO, RMO, Power, PGAS, ARMv8, RISC-V).
//!
//! The pipeline (docs/architecture.md):
//!
//! ```text
//! source text ─[frontend]→ Program IR [program] ─┬─[bounded]→ verdict, Execution
//!                 model name/file ─[cat]→ Model ─┘   (varisat | z3 backend)
//!                                  Program IR ──[explicit]→ unbounded TSO answers
//!                                  Program IR ──[reach]→ TSO reachability (k-round, lazy)
//!                    LitmusTest [litmus] ─[litmus::run]→ final states, herd's output
//! ```
//!
//! The command line lives in the binary (`src/main.rs`, `src/cli/`): the
//! library does not depend on clap.

pub mod bounded;
pub mod cat;
pub mod collections;
pub mod diag;
pub mod explicit;
pub mod frontend;
pub mod litmus;
pub mod parameterized;
pub mod program;
pub mod reach;
pub mod resources;
pub mod smc;
pub mod state_robust;
pub mod synth;
