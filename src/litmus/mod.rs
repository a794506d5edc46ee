//! What a herd litmus test's results mean: its final states through the
//! bounded engine ([`run`]) and herd's semantics and output ([`herd`]).
//! The test itself ([`crate::frontend::litmus::LitmusTest`]) is the
//! front-end's.
//!
//! * [`crate::frontend::litmus`] reads a `.litmus` file and lowers it to a
//!   [`crate::frontend::litmus::LitmusTest`] (one IR thread per column, a final goal with the
//!   condition's proposition).
//! * [`run`] enumerates a test's final states with a bounded backend;
//!   [`herd`] prints herd's result block for a set of final states and
//!   evaluates conditions; [`herd::log`] reads herd7 logs and
//!   `EXPECTED.tsv` files (used by the tests).
//!
//! See `docs/litmus.md` for the supported syntax and the lowering.

pub mod herd;
pub mod run;
