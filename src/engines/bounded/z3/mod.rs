//! The z3 backend (`--solver z3`, Cargo feature `z3`): a second bounded
//! engine, independent of the varisat path below the Program IR and the
//! cat AST, so that a bug in one encoding is not repeated in the other.
//!
//! Differences from [`crate::engines::bounded`] (varisat):
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
use crate::program::{BinOp, UnOp};
use z3::ast::{Ast, Bool, BV};
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

/// `x op y` on W-bit terms with the semantics of [`BinOp::apply`] (the
/// reference every engine matches): SMT-LIB's `bvsdiv`/`bvudiv` by zero
/// are replaced by 0 and `bvsrem`/`bvurem` by zero by `x`; SMT-LIB's
/// shifts already read the amount as unsigned and shift everything out
/// at amounts ≥ W (SMT-LIB FixedSizeBitVectors, `bvshl`/`bvlshr`/
/// `bvashr`); comparisons and `&&`/`||` give 0 or 1.
pub fn binop(ctx: &'static Context, op: BinOp, x: &ZBv, y: &ZBv) -> ZBv {
    let w = x.get_size();
    let one = BV::from_i64(ctx, 1, w);
    let zero = BV::from_i64(ctx, 0, w);
    let b2v = |b: ZBool| b.ite(&one, &zero);
    let yz = y._eq(&zero);
    match op {
        BinOp::Add => x.bvadd(y),
        BinOp::Sub => x.bvsub(y),
        BinOp::Mul => x.bvmul(y),
        BinOp::Div => yz.ite(&zero, &x.bvsdiv(y)),
        BinOp::Rem => yz.ite(x, &x.bvsrem(y)),
        BinOp::Udiv => yz.ite(&zero, &x.bvudiv(y)),
        BinOp::Urem => yz.ite(x, &x.bvurem(y)),
        BinOp::BitAnd => x.bvand(y),
        BinOp::BitOr => x.bvor(y),
        BinOp::BitXor => x.bvxor(y),
        BinOp::Shl => x.bvshl(y),
        BinOp::Sar => x.bvashr(y),
        BinOp::Shr => x.bvlshr(y),
        BinOp::Eq => b2v(x._eq(y)),
        BinOp::Ne => b2v(x._eq(y).not()),
        BinOp::Lt => b2v(x.bvslt(y)),
        BinOp::Le => b2v(x.bvsle(y)),
        BinOp::Gt => b2v(x.bvsgt(y)),
        BinOp::Ge => b2v(x.bvsge(y)),
        BinOp::Ult => b2v(x.bvult(y)),
        BinOp::Ule => b2v(x.bvule(y)),
        BinOp::Ugt => b2v(x.bvugt(y)),
        BinOp::Uge => b2v(x.bvuge(y)),
        BinOp::And => b2v(Bool::and(ctx, &[&x._eq(&zero).not(), &yz.not()])),
        BinOp::Or => b2v(Bool::or(ctx, &[&x._eq(&zero).not(), &yz.not()])),
    }
}

/// `op x` on a W-bit term with the semantics of [`UnOp::apply`].
pub fn unop(ctx: &'static Context, op: UnOp, x: &ZBv) -> ZBv {
    let w = x.get_size();
    match op {
        UnOp::Neg => x.bvneg(),
        UnOp::Not => x
            ._eq(&BV::from_i64(ctx, 0, w))
            .ite(&BV::from_i64(ctx, 1, w), &BV::from_i64(ctx, 0, w)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::expr::sample_pairs;
    use crate::program::Width;

    /// z3's terms of every operator on constant operands simplify to
    /// `BinOp::apply`'s value, at widths 1, 16, 63 and 64 (and every pair
    /// at widths 2 and 3).
    #[test]
    fn z3_ops_match_reference_semantics() {
        let ctx: &'static Context = Box::leak(Box::new(Context::new(&z3::Config::new())));
        let value = |t: &ZBv, w: Width| w.wrap(t.simplify().as_u64().expect("a numeral") as i64);
        for w in [1u32, 2, 3, 16, 63, 64] {
            let width = Width(w);
            let mut pairs = sample_pairs(width, 30);
            if w <= 3 {
                let vals: Vec<i64> = (width.min()..=width.max()).collect();
                pairs.extend(vals.iter().flat_map(|&a| vals.iter().map(move |&b| (a, b))));
            }
            for (a, b) in pairs {
                let (x, y) = (BV::from_i64(ctx, a, w), BV::from_i64(ctx, b, w));
                for op in BinOp::ALL {
                    let got = value(&binop(ctx, op, &x, &y), width);
                    assert_eq!(got, op.apply(a, b, width), "{a} {op} {b} at {w}");
                }
                for op in [UnOp::Neg, UnOp::Not] {
                    assert_eq!(value(&unop(ctx, op, &x), width), op.apply(a, width));
                }
            }
        }
    }
}
