//! The engines: each decides a question about a program (and a model).
//! Everything here builds on the layers below (`program`, `cat`, `diag`,
//! `collections`, `resources`); nothing below imports an engine, and no
//! engine imports a front-end.
//!
//! | engine | decides |
//! |---|---|
//! | [`bounded`] | reachability, robustness and litmus outcomes up to a bound, for every model (SAT or SMT) |
//! | [`explicit`] | SC reachability, TSO robustness (thesis ch. 6 attacks) and optimal TSO fences, unbounded |
//! | [`tso_reach`] | TSO reachability beyond the bound (lazy and k-round) |
//! | [`smc`] | reachability under SC/TSO/PSO and TSO/PSO robustness by stateless model checking |
//! | [`parameterized`] | robustness against TSO of a template for any number of threads |
//! | [`derived`] | questions answered by driving the bounded engine repeatedly: fence synthesis, state-robustness |
//!
//! [`switches`] holds the developer switches (`BMC_*` variables) the
//! caller passes to the engines.

pub mod bounded;
pub mod derived;
pub mod explicit;
pub mod normal_form;
pub mod parameterized;
pub mod smc;
pub mod switches;
pub mod tso_reach;

pub use switches::Switches;
