//! Atomic steps over several locations in every model: the rule that no
//! other event may be placed inside such a step, as a rewriting of the
//! model's `acyclic` axioms ([`contract_atomic_steps`]).
//!
//! An atomic step (`Command::Atomic`, a `__VERIFIER_atomic_*` function,
//! the native `atomic { }`) executes indivisibly in the operational
//! semantics every other engine implements (thesis 003 §7.1.1, Table
//! 7.1: `Atomic` runs in one step). herd's models make a read-modify-write
//! atomic only per location (`empty rmw & (fre; coe)`), which is exact
//! for a single-location step but lets another thread's event come
//! between the accesses of a step over two locations.
//!
//! The rule (transactions in axiomatic models: Chong, Sorensen,
//! Wickerson, "The semantics of transactional memory in modern
//! architectures", PLDI 2018, §3, strong isolation and transaction
//! order): with `stxn` relating the events of one execution of such a
//! step ([`crate::cat::base::BaseRel::Stxn`]), every `acyclic r` axiom
//! of the model must also hold on the graph in which each step is one
//! node, i.e. of the "strong lift" `stxn? ; (r \ stxn) ; stxn?`. The
//! axiom becomes
//!
//! ```text
//! acyclic r | stxn? ; (r \ stxn) ; stxn?
//! ```
//!
//! under its own name (a cycle of this union is a cycle of `r` or a cycle
//! between contracted steps; `acyclic r+` is read as `acyclic r`). It is
//! what `sc.cat` states for the remote operations of PGAS programs
//! (`acyclic (rop; (po | com | barrier); rop) \ rop`), for atomic steps.
//! Under SC it gives exactly the interleavings in which each step's
//! events are adjacent; under TSO and PSO, whose models order the
//! accesses of an atomic step with everything (set `A`, like a locked
//! instruction), the executions of the store-buffer machine that runs
//! the step at once on memory with an empty buffer. Single-location
//! steps are not in `stxn`: they keep herd's semantics (for SC, TSO and
//! PSO the two coincide; for Power, Arm and RISC-V the litmus tests'
//! read-modify-writes are checked against herd).
//!
//! The other axioms (`irreflexive`, `empty`) are left as they are.

use super::base::{BaseRel, Builtin};
use super::{AxiomKind, ExprKind, Model, Node, Stmt, Ty};

/// `model` with every `acyclic` axiom contracted over the atomic steps
/// over several locations, as the module says; the same model (a clone
/// with a new identity for the evaluator's caches) otherwise unchanged.
/// The copied subexpressions keep their node ids (they denote the same
/// relation); the new nodes get fresh ids.
pub fn contract_atomic_steps(model: &Model) -> Model {
    let mut m = model.clone();
    m.renew();
    let mut next = m.nodes;
    let mut node = |kind: ExprKind, at: &Node| {
        let n = Node {
            id: next,
            kind,
            span: at.span,
            file: at.file,
            ty: Ty::Rel,
        };
        next += 1;
        n
    };
    for s in &mut m.stmts {
        let Stmt::Check {
            kind: AxiomKind::Acyclic,
            expr,
            ..
        } = s
        else {
            continue;
        };
        let r = match &expr.kind {
            ExprKind::Plus(a) => (**a).clone(),
            _ => expr.clone(),
        };
        let stxn = || ExprKind::Base(Builtin::Rel(BaseRel::Stxn));
        let s1 = node(stxn(), &r);
        let s2 = node(stxn(), &r);
        let s3 = node(stxn(), &r);
        let opt1 = node(ExprKind::Opt(Box::new(s1)), &r);
        let opt3 = node(ExprKind::Opt(Box::new(s3)), &r);
        let diff = node(ExprKind::Diff(Box::new(r.clone()), Box::new(s2)), &r);
        let left = node(ExprKind::Seq(Box::new(opt1), Box::new(diff)), &r);
        let lift = node(ExprKind::Seq(Box::new(left), Box::new(opt3)), &r);
        *expr = node(ExprKind::Union(Box::new(r), Box::new(lift)), expr);
    }
    m.nodes = next;
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_acyclic_axiom_is_contracted_and_reads_stxn() {
        for name in ["sc", "tso", "pso", "power"] {
            let m = crate::cat::builtin(name).unwrap();
            assert!(!m.uses(BaseRel::Stxn));
            let c = contract_atomic_steps(&m);
            assert!(c.uses(BaseRel::Stxn), "{name}");
            assert_eq!(c.stmts.len(), m.stmts.len());
            assert!(c.nodes > m.nodes);
            assert_ne!(c.uid, m.uid);
        }
    }
}
