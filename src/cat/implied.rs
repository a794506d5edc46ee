//! What a model's axioms imply for every execution, read off the AST
//! (no evaluation): encoders use it to add clauses that the model's
//! axioms imply eagerly, instead of learning them one refinement at a
//! time. Every answer is conservative: `false` whenever the syntax does
//! not show the implication (a difference, a sequence, a recursive `let`
//! hide it), never `true` without it.

use super::base::{BaseRel, Builtin};
use super::{AxiomKind, ExprKind, Model, Node, Stmt};

/// A base relation an expression may be shown to contain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Piece {
    /// `po & loc`: program order between accesses to one location.
    PoLoc,
    /// `rf`
    Rf,
    /// `co`
    Co,
    /// `fr`
    Fr,
}

/// Does the model require SC per location (coherence: `acyclic po-loc |
/// rf | co | fr`, Alglave, Maranget, Tautschnig, *Herding cats*, TOPLAS
/// 2014, §4.1 "SC PER LOCATION") of every consistent execution? True when
/// one `acyclic` axiom's relation contains `po-loc`, `rf`, `co` and `fr`
/// syntactically: through unions, intersections whose both sides contain
/// the piece, closures, non-recursive `let` names, and the base relations
/// that contain it (`po`, `loc`, `int` ⊇ `po-loc`; `loc` ⊇ `rf`, `co`,
/// `fr`; `univ` ⊇ everything). The built-in sc, tso, pso, power, aarch64
/// and riscv models pass; rmo (`po-loc \ (R * R)`) and sc-instr
/// (`po \ amo`) do not, and none of their executions is affected.
pub fn sc_per_location(model: &Model) -> bool {
    model.stmts.iter().any(|s| match s {
        Stmt::Check {
            kind: AxiomKind::Acyclic,
            expr,
            ..
        } => [Piece::PoLoc, Piece::Rf, Piece::Co, Piece::Fr]
            .into_iter()
            .all(|p| contains(model, expr, p)),
        _ => false,
    })
}

/// Is `p` a subset of `node`'s relation in every execution (shown
/// syntactically)?
fn contains(model: &Model, node: &Node, p: Piece) -> bool {
    use ExprKind::*;
    match &node.kind {
        Base(Builtin::Rel(r)) => match r {
            BaseRel::Univ | BaseRel::Loc => true,
            BaseRel::Po | BaseRel::Int => p == Piece::PoLoc,
            BaseRel::Rf => p == Piece::Rf,
            BaseRel::Co => p == Piece::Co,
            BaseRel::Fr => p == Piece::Fr,
            _ => false,
        },
        // `let` names refer to earlier statements (a recursive group is
        // a least fixed point: not looked into), so this terminates.
        Name(k) => match model.defs.get(k).map(|&(s, _)| &model.stmts[s]) {
            Some(Stmt::Let { rec: false, binds }) => binds
                .iter()
                .find(|(name, _)| name == k)
                .is_some_and(|(_, e)| contains(model, e, p)),
            _ => false,
        },
        Union(a, b) => contains(model, a, p) || contains(model, b, p),
        Inter(a, b) => contains(model, a, p) && contains(model, b, p),
        Plus(a) | Star(a) | Opt(a) => contains(model, a, p),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cat::parse::parse_model;
    use crate::diag::SourceFile;

    fn implies(text: &str) -> bool {
        sc_per_location(&parse_model(&SourceFile::new("m.cat", text)).expect("parses"))
    }

    #[test]
    fn coherence_axioms_are_recognized() {
        assert!(implies("acyclic po-loc | com as c"));
        assert!(implies("acyclic po | com as sc"));
        assert!(implies("acyclic po-loc | rf | co | fr as internal"));
        assert!(implies("let x = rf | co\nacyclic (po & loc) | x | fr as c"));
        assert!(implies("acyclic (po-loc | com)+ as c"));
    }

    #[test]
    fn weaker_or_hidden_axioms_are_not() {
        // A piece missing, removed by a difference, or only inside a
        // sequence: not shown.
        assert!(!implies("acyclic po-loc | rf | co as c"));
        assert!(!implies("acyclic (po-loc \\ (R * R)) | com as c"));
        assert!(!implies("acyclic po ; com as c"));
        assert!(!implies("irreflexive po-loc | com as c"));
        assert!(!implies("acyclic rfe | co | fr | ([W]; po; [W]) as c"));
        assert!(!implies("let rec x = po-loc | com | x\nacyclic x as c"));
    }

    #[test]
    fn builtin_models() {
        for (name, expect) in [
            ("sc", true),
            ("tso", true),
            ("pso", true),
            ("power", true),
            ("aarch64", true),
            ("riscv", true),
            ("rmo", false),
        ] {
            let m = crate::cat::builtin(name).expect("built in");
            assert_eq!(sc_per_location(&m), expect, "{name}");
        }
    }
}
