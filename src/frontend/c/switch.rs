//! `switch` statements (C11 §6.8.4.2): the controlling expression is
//! evaluated once and compared with the `case` constants in source order
//! (one branch each, so a constant controlling value takes one case
//! statically); every comparison's true side jumps to its label in the
//! body, the last false side to `default` (or past the switch). The body
//! is then lowered as ordinary code starting unreachable: a `case` or
//! `default` label places its jump target, so fall-through, `default`
//! anywhere and cases inside nested blocks and `if`s follow from the
//! builder's forward labels. `break` leaves the switch (an entry of the
//! frame's break/continue stack without a continue target, so `continue`
//! goes to the enclosing loop). A case label inside a loop of its switch
//! body (Duff's device) is a located error: the loop body is lowered once
//! per iteration, so such a label has no single place.

use super::builder::LabelId;
use super::ctx::Ctx;
use crate::diag::Error;
use crate::program::{BinOp, Command, Expr, LExpr};
use lang_c::ast::{BlockItem, Expression, Label, Statement, SwitchStatement};
use lang_c::span::{Node, Span};
use std::collections::HashMap;

/// A label of a switch body found before lowering it.
struct CaseLabel<'a> {
    /// The labeled statement's label node.
    span: Span,
    /// `None`: `default`; else the constants `low..=high` (`case k`: `k..=k`).
    range: Option<(&'a Node<Expression>, Option<&'a Node<Expression>>)>,
}

impl<'a> Ctx<'a> {
    /// Lowers `switch (e) body`.
    ///
    /// Errors: a `case` constant that is not an integer constant
    /// expression or does not fit `--width`, two cases (or two `default`s)
    /// with the same value, a case label inside a loop of the body; the
    /// errors of the controlling expression and the body.
    pub fn lower_switch(&mut self, sw: &'a Node<SwitchStatement>) -> Result<(), Error> {
        let mut labels = Vec::new();
        self.collect_cases(&sw.node.statement, &mut labels, false, 0)?;
        // The case values, checked before any code is emitted.
        let mut seen: HashMap<i64, Span> = HashMap::new();
        let mut default: Option<Span> = None;
        let mut cases: Vec<(i64, i64, LabelId)> = Vec::new();
        let mut targets: HashMap<(usize, usize), LabelId> = HashMap::new();
        let mut default_label = None;
        for l in &labels {
            let label = self.b.label();
            targets.insert((l.span.start, l.span.end), label);
            let Some((lo, hi)) = l.range else {
                if let Some(first) = default {
                    return Err(self.err(
                        l.span,
                        format!(
                            "a second `default` label in one switch (the first is at line {})",
                            self.src.line(first)
                        ),
                    ));
                }
                default = Some(l.span);
                default_label = Some(label);
                continue;
            };
            let low = self.case_value(lo)?;
            let high = match hi {
                Some(h) => self.case_value(h)?,
                None => low,
            };
            if high < low {
                return Err(self.err(l.span, format!("empty case range {low} ... {high}")));
            }
            if high - low > 4096 {
                return Err(self.err(
                    l.span,
                    format!("case range {low} ... {high} has more than 4096 values"),
                ));
            }
            for v in low..=high {
                if let Some(first) = seen.insert(v, l.span) {
                    return Err(self.err(
                        l.span,
                        format!(
                            "duplicate case value {v} (first at line {})",
                            self.src.line(first)
                        ),
                    ));
                }
            }
            cases.push((low, high, label));
        }
        // Evaluate the controlling expression once; a value that is not a
        // register or a constant goes to a temporary, so that constant
        // propagation learns it on each case's side.
        let mark = self.b.mark();
        let val = match self.case_draw(&sw.node.expression, &cases)? {
            Some(v) => v,
            None => self.rvalue(&sw.node.expression)?,
        };
        // A range compares as the controlling value's type (docs/c.md,
        // "Signedness").
        let le = if val.ty.is_unsigned() {
            BinOp::Le.unsigned()
        } else {
            BinOp::Le
        };
        let v = self.b.fold(&val.e);
        let v: LExpr = match v {
            Expr::Var(_) | Expr::Const(_) => v,
            v => {
                let t = self.b.temp();
                self.emit(
                    Command::Assign { reg: t, value: v },
                    sw.node.expression.span,
                )?;
                Expr::Var(t)
            }
        };
        let exit = self.b.label();
        let at = self.span(sw.node.expression.span);
        for (low, high, label) in cases {
            let c = if low == high {
                Expr::bin(BinOp::Eq, v.clone(), Expr::Const(low))
            } else {
                Expr::bin(
                    BinOp::And,
                    Expr::bin(le, Expr::Const(low), v.clone()),
                    Expr::bin(le, v.clone(), Expr::Const(high)),
                )
            };
            let (t, e) = self.b.branch(&c, at)?;
            self.b.jump_from(t, label);
            self.b.goto_pos(e);
        }
        self.b.jump(default_label.unwrap_or(exit));
        self.b.release(mark);
        // The body, entered only through its labels.
        self.frame().switches.push(targets);
        self.frame().loops.push((exit, None));
        let r = self.stmt(&sw.node.statement);
        self.frame().loops.pop();
        self.frame().switches.pop();
        r?;
        self.b.place(exit);
        Ok(())
    }

    /// The controlling value of `switch (__VERIFIER_nondet_T())`, drawn
    /// from the case values' range widened by one value above it: the
    /// value is only compared with the cases, so one value per case and
    /// one that is none of them (the greatest case plus one) take every
    /// path that any value takes, and each is a value the call may
    /// return. `None` (the caller draws the whole value) for any other
    /// controlling expression, a `_Bool` draw (one bit already), case
    /// values spanning more than the front-end's bounded draws allow, an
    /// unsigned draw with a case constant above the signed range, or a
    /// greatest case at the top of the range.
    ///
    /// Errors: those of the draw.
    fn case_draw(
        &mut self,
        e: &'a Node<Expression>,
        cases: &[(i64, i64, LabelId)],
    ) -> Result<Option<super::expr::Val>, Error> {
        let Expression::Call(call) = &e.node else {
            return Ok(None);
        };
        let Expression::Identifier(callee) = &call.node.callee.node else {
            return Ok(None);
        };
        let name = callee.node.name.as_str();
        if !self.is_nondet_call(e) || name.ends_with("bool") || cases.is_empty() {
            return Ok(None);
        }
        let unsigned =
            super::types::int_named(name.rsplit("nondet_").next().unwrap_or("")).is_unsigned();
        let lo = cases.iter().map(|c| c.0).min().unwrap_or(0);
        let hi = cases.iter().map(|c| c.1).max().unwrap_or(0);
        let top = (1i64 << (self.width.0 - 1)) - 1;
        let bounds = super::ctx::Bounded {
            name: String::new(),
            lo: Some(lo),
            hi: Some(hi.saturating_add(1)),
        };
        if (unsigned && lo < 0) || hi >= top {
            return Ok(None);
        }
        match bounds.range(unsigned, self.width.0) {
            Some(range) => self.nondet_in(name, e.span, Some(range)).map(Some),
            None => Ok(None),
        }
    }

    /// Places the target of a `case`/`default` label of the innermost
    /// switch (the label at `span`).
    ///
    /// Errors: the label belongs to no switch being lowered (a `case`
    /// outside a switch, or one the switch could not see: inside a
    /// statement expression).
    pub fn case_label(&mut self, span: Span) -> Result<(), Error> {
        let found = self
            .frame()
            .switches
            .last()
            .and_then(|t| t.get(&(span.start, span.end)).copied());
        match found {
            Some(l) => {
                self.b.place(l);
                Ok(())
            }
            None => Err(self.err(
                span,
                "`case`/`default` label outside the statements of a switch body",
            )),
        }
    }

    /// The value of a case constant, wrapped to the width.
    fn case_value(&mut self, e: &'a Node<Expression>) -> Result<i64, Error> {
        let v = self.types.const_int(e, self.src).map_err(|err| match err {
            Error::Input(mut i) => {
                i.message = format!(
                    "a `case` label must be an integer constant expression: {}",
                    i.message
                );
                Error::Input(i)
            }
            other => other,
        })?;
        if !self.width.fits(v) {
            return Err(self.err(
                e.span,
                format!(
                    "case constant {v} does not fit --width {}; {}",
                    self.width.0,
                    self.width.raise_hint()
                ),
            ));
        }
        Ok(self.width.wrap(v))
    }

    /// The `case`/`default` labels of a switch body (not those of nested
    /// switches), in source order.
    ///
    /// Errors: a label inside a loop of the body (Duff's device); nesting
    /// deeper than [`super::ctx::MAX_DEPTH`].
    fn collect_cases(
        &self,
        s: &'a Node<Statement>,
        out: &mut Vec<CaseLabel<'a>>,
        in_loop: bool,
        depth: usize,
    ) -> Result<(), Error> {
        if depth > super::ctx::MAX_DEPTH {
            return Err(self.err(s.span, "statements nested too deeply in a switch body"));
        }
        let d = depth + 1;
        match &s.node {
            Statement::Labeled(l) => {
                let range = match &l.node.label.node {
                    Label::Identifier(_) => None,
                    Label::Case(e) => Some(Some((&**e, None))),
                    Label::CaseRange(r) => Some(Some((&*r.node.low, Some(&*r.node.high)))),
                    Label::Default => Some(None),
                };
                if let Some(range) = range {
                    if in_loop {
                        return Err(self.err(
                            l.node.label.span,
                            "a `case`/`default` label inside a loop of its switch body (Duff's device) is not supported",
                        ));
                    }
                    out.push(CaseLabel {
                        span: l.node.label.span,
                        range,
                    });
                }
                self.collect_cases(&l.node.statement, out, in_loop, d)
            }
            Statement::Compound(items) => {
                for it in items {
                    if let BlockItem::Statement(st) = &it.node {
                        self.collect_cases(st, out, in_loop, d)?;
                    }
                }
                Ok(())
            }
            Statement::If(i) => {
                self.collect_cases(&i.node.then_statement, out, in_loop, d)?;
                if let Some(e) = &i.node.else_statement {
                    self.collect_cases(e, out, in_loop, d)?;
                }
                Ok(())
            }
            Statement::While(w) => self.collect_cases(&w.node.statement, out, true, d),
            Statement::DoWhile(w) => self.collect_cases(&w.node.statement, out, true, d),
            Statement::For(f) => self.collect_cases(&f.node.statement, out, true, d),
            // A nested switch owns its labels.
            _ => Ok(()),
        }
    }
}
