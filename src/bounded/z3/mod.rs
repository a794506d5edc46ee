//! The z3 backend (`--solver z3`, Cargo feature `z3`): a second bounded
//! engine, independent of the varisat path below the Program IR and the
//! cat AST, so that a bug in one encoding is not repeated in the other.
//!
//! Differences from [`crate::bounded`] (varisat):
//! * unrolling ([`unroll`]): a transition relation over integer program
//!   counters and per-step bit-vector registers (fresh constants with
//!   frame conditions) instead of one-hot selection literals and
//!   functional bit-blasted dataflow;
//! * `rf`: one integer source selector per read (`-1` = initial value)
//!   instead of one literal per (write, read) pair;
//! * `co`: integer clocks per write instead of orientation literals with
//!   lazily learned transitivity;
//! * the model ([`cat`]): every axiom is encoded eagerly and symbolically
//!   (acyclicity by integer clocks, closures and `let rec` by fresh
//!   relation variables) instead of lazily from a concrete evaluation.
//!
//! Everything lives in one leaked z3 context per thread (`'static`
//! terms); the solver of a thread is reused across the queries of a batch
//! with push/pop.

pub mod cat;
pub mod enc;
pub mod pgas;
pub mod session;

pub mod unroll;

pub use session::Z3;

use crate::cat::base::{BaseRel, BaseSet};
use crate::collections::HashMap;
use z3::ast::{Bool, BV};
use z3::Context;

/// A z3 Boolean term (in the thread's context).
pub type ZBool = Bool<'static>;
/// A z3 bit-vector term.
pub type ZBv = BV<'static>;

/// A relation over events, sparse: pairs absent from the map are false.
pub type ZRel = HashMap<(usize, usize), ZBool>;

/// A set of events: per event, `None` = not a member.
pub type ZSet = Vec<Option<ZBool>>;

/// The base sets and relations of the symbolic candidate execution, as
/// the model encoder ([`cat`]) reads them.
pub trait ZBase {
    /// The z3 context.
    fn ctx(&self) -> &'static z3::Context;
    /// Number of events (ids `0..n`).
    fn n(&self) -> usize;
    /// The executed events.
    fn executed(&mut self) -> ZSet;
    /// A base set ([`crate::cat::base`]).
    fn set(&mut self, s: BaseSet) -> ZSet;
    /// A base relation ([`crate::cat::base`]).
    fn rel(&mut self, r: BaseRel) -> ZRel;
}

/// Disjunction of `v` (false when empty).
pub fn or(ctx: &'static Context, v: &[ZBool]) -> ZBool {
    match v.len() {
        0 => Bool::from_bool(ctx, false),
        1 => v[0].clone(),
        _ => Bool::or(ctx, &v.iter().collect::<Vec<_>>()),
    }
}

/// Conjunction of `v` (true when empty).
pub fn and(ctx: &'static Context, v: &[ZBool]) -> ZBool {
    match v.len() {
        0 => Bool::from_bool(ctx, true),
        1 => v[0].clone(),
        _ => Bool::and(ctx, &v.iter().collect::<Vec<_>>()),
    }
}
