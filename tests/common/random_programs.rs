//! Seeded random programs for differential tests: the project's one
//! generator ([`bmc_rmm::fuzz::gen`]), which also feeds `bmc-rmm
//! fuzz-diff` — Trencher text for the engines that read programs through
//! `bmc_rmm::frontend::trencher`, native programs for the rest. The same
//! seed gives the same program on every machine.

#[allow(unused_imports)]
pub use bmc_rmm::fuzz::gen::{trencher_program, Gen, Rng, Shape};
