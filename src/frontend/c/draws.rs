//! Bounded draws: the values a `__VERIFIER_nondet_*()` call must be able
//! to return when the very next statement assumes a range for it.
//!
//! `tmp = __VERIFIER_nondet_uint(); if (!(tmp < 5)) abort();` keeps only
//! the values 0..=4: every other value ends its path at `abort()` (SV-COMP:
//! an aborted path is no error and no behaviour). When the target is a
//! register local (no other thread can see it before the assumption), the
//! draw may then choose among those values only — `lo + k` random bits with
//! `2^k > hi - lo` — and keep the assumption: the paths that continue past
//! it are exactly those of the full draw. A draw of 32 bits is 2^32 paths
//! for the explicit-state search; this one is 5.
//!
//! Recognised: the item right after the draw (`x = nondet();` or
//! `T x = nondet();`) is `if (!(C)) abort();` (also with `{ abort(); }`)
//! or `__VERIFIER_assume(C);`, where the conjuncts of `C` (`&&`) include
//! comparisons of `x` with integer constant expressions (`<`, `<=`, `>`,
//! `>=`, `==`, either side); other conjuncts only filter more. An unsigned
//! draw has the lower bound 0 of its type.

use super::ctx::{Bounded, Ctx};
use lang_c::ast::{BinaryOperator as B, BlockItem, Expression, Statement, UnaryOperator as U};
use lang_c::span::Node;

impl<'a> Ctx<'a> {
    /// The bounded draw item `i` of a block makes ([module doc](self)),
    /// if any.
    pub(super) fn bounded_draw(
        &mut self,
        items: &'a [Node<BlockItem>],
        i: usize,
    ) -> Option<Bounded> {
        // `abort` and `__VERIFIER_assume` as the file defines them, if it
        // does, may mean something else.
        if self.funcs.contains_key("abort") || self.funcs.contains_key("__VERIFIER_assume") {
            return None;
        }
        let name = self.draw_target(&items[i])?;
        let BlockItem::Statement(next) = &items.get(i + 1)?.node else {
            return None;
        };
        let cond = assumed(next)?;
        let mut b = Bounded {
            name,
            lo: None,
            hi: None,
        };
        let mut conjuncts = Vec::new();
        flatten_and(cond, &mut conjuncts);
        for c in conjuncts {
            self.bound(&mut b, c);
        }
        (b.lo.is_some() || b.hi.is_some()).then_some(b)
    }

    /// `x` when the item is `x = nondet();` or a declaration of the single
    /// `x` initialized by `nondet()`.
    fn draw_target(&self, it: &Node<BlockItem>) -> Option<String> {
        match &it.node {
            BlockItem::Declaration(d) => {
                let [id] = d.node.declarators.as_slice() else {
                    return None;
                };
                let init = id.node.initializer.as_ref()?;
                let lang_c::ast::Initializer::Expression(e) = &init.node else {
                    return None;
                };
                if !self.is_nondet_call(e) {
                    return None;
                }
                let lang_c::ast::DeclaratorKind::Identifier(n) = &id.node.declarator.node.kind.node
                else {
                    return None;
                };
                Some(n.node.name.clone())
            }
            BlockItem::Statement(st) => {
                let Statement::Expression(Some(e)) = &st.node else {
                    return None;
                };
                let Expression::BinaryOperator(b) = &e.node else {
                    return None;
                };
                if b.node.operator.node != B::Assign || !self.is_nondet_call(&b.node.rhs) {
                    return None;
                }
                ident(&b.node.lhs).map(str::to_string)
            }
            BlockItem::StaticAssert(_) => None,
        }
    }

    /// Narrows `b` by the conjunct `c` when it compares `b.name` with an
    /// integer constant expression.
    fn bound(&mut self, b: &mut Bounded, c: &Node<Expression>) {
        let Expression::BinaryOperator(op) = &c.node else {
            return;
        };
        let (l, r) = (&op.node.lhs, &op.node.rhs);
        // `x OP k`, or `k OP x` read as `x OP' k`.
        let (op, k) = if ident(l) == Some(b.name.as_str()) {
            (op.node.operator.node.clone(), r)
        } else if ident(r) == Some(b.name.as_str()) {
            let flipped = match op.node.operator.node {
                B::Less => B::Greater,
                B::LessOrEqual => B::GreaterOrEqual,
                B::Greater => B::Less,
                B::GreaterOrEqual => B::LessOrEqual,
                B::Equals => B::Equals,
                _ => return,
            };
            (flipped, l)
        } else {
            return;
        };
        let Ok(k) = self.types.const_int(k, self.src) else {
            return;
        };
        let lo = |b: &mut Bounded, v: i64| b.lo = Some(b.lo.map_or(v, |x| x.max(v)));
        let hi = |b: &mut Bounded, v: i64| b.hi = Some(b.hi.map_or(v, |x| x.min(v)));
        match op {
            B::Less => hi(b, k.saturating_sub(1)),
            B::LessOrEqual => hi(b, k),
            B::Greater => lo(b, k.saturating_add(1)),
            B::GreaterOrEqual => lo(b, k),
            B::Equals => {
                lo(b, k);
                hi(b, k);
            }
            _ => {}
        }
    }
}

/// The condition `C` of `if (!(C)) abort();` (the body `abort();` or
/// `{ abort(); }`, no `else`) or of `__VERIFIER_assume(C);`.
fn assumed(st: &Node<Statement>) -> Option<&Node<Expression>> {
    match &st.node {
        Statement::If(i) => {
            if i.node.else_statement.is_some() || !is_abort(&i.node.then_statement) {
                return None;
            }
            let Expression::UnaryOperator(u) = &i.node.condition.node else {
                return None;
            };
            (u.node.operator.node == U::Negate).then_some(&u.node.operand)
        }
        Statement::Expression(Some(e)) => {
            let (callee, args) = call(e)?;
            match args {
                [c] if callee == "__VERIFIER_assume" => Some(c),
                _ => None,
            }
        }
        _ => None,
    }
}

/// `abort();` or `{ abort(); }`.
fn is_abort(st: &Node<Statement>) -> bool {
    match &st.node {
        Statement::Compound(items) => match items.as_slice() {
            [it] => matches!(&it.node, BlockItem::Statement(s) if is_abort(s)),
            _ => false,
        },
        Statement::Expression(Some(e)) => {
            matches!(call(e), Some((name, [])) if name == "abort")
        }
        _ => false,
    }
}

/// The callee's name and the arguments of a call of a named function.
fn call(e: &Node<Expression>) -> Option<(&str, &[Node<Expression>])> {
    let Expression::Call(c) = &e.node else {
        return None;
    };
    Some((ident(&c.node.callee)?, &c.node.arguments))
}

/// The name of an identifier expression.
fn ident(e: &Node<Expression>) -> Option<&str> {
    match &e.node {
        Expression::Identifier(i) => Some(&i.node.name),
        _ => None,
    }
}

/// The operands of a chain of `&&`.
fn flatten_and<'e>(e: &'e Node<Expression>, out: &mut Vec<&'e Node<Expression>>) {
    match &e.node {
        Expression::BinaryOperator(b) if b.node.operator.node == B::LogicalAnd => {
            flatten_and(&b.node.lhs, out);
            flatten_and(&b.node.rhs, out);
        }
        _ => out.push(e),
    }
}
