//! Re-checking a lemma with the cat evaluator alone: do its facts make
//! its axiom fail in *every* candidate execution that has them?
//!
//! A lemma's facts fix some base items (present or absent) and leave the
//! rest open. The check is one interval evaluation of the model
//! ([`crate::cat::bounds`]) over the bounds the facts give each base item
//! (a base set's members, a base relation's pairs, the executed events):
//! *must* holds the present facts and what the encoding makes always
//! true, *may* everything but the absent facts and what it makes always
//! false. Every operator maps the operands' bounds to bounds of its
//! result (`a \ b` is `[must(a) \ may(b), may(a) \ must(b)]`, `~a`
//! complements the other bound, a `let rec` group is iterated on both
//! bounds; the module doc of `cat::bounds` gives every rule), so an
//! item that occurs both positively and negatively in the axiom (power's
//! `R`, which the encoding leaves open: an event's kind holds only when
//! it executes) is read at its lower bound where it makes the axiom's
//! relation grow and at its upper bound where it makes it shrink. The
//! axiom then fails on every completion of the facts when its relation's
//! *must* value fails it over events every completion executes: a cycle
//! (`acyclic`), a pair `(e, e)` (`irreflexive`), a pair or member
//! (`empty`). When no kind of item occurs in both polarities this is the
//! single evaluation on the extreme execution (positive kinds at their
//! lower bound, negative ones at their upper bound).
//!
//! The events every completion executes are the executed facts, the
//! events the encoding always executes, and the events of the present set
//! and relation facts: the encoding's literal of a set member or a
//! relation pair implies that its events are executed (the evaluator's
//! [`crate::cat::eval::Base`] contract, which the interval rules rest on
//! too).
//!
//! The lemmas of the built-in rule "co is a strict order" ([`CO_ORDER`])
//! are checked directly: their present co facts form a cycle.

use crate::cat::base::{BaseRel, BaseSet};
use crate::cat::bounds::{Bound, Bounds, BoundsBase};
use crate::cat::eval::{Bits, Mat, Val};
use crate::cat::{AxiomKind, Model, Stmt};
use crate::collections::HashMap;
use crate::engines::bounded::varisat::lemmas::{Fact, Item, Lemma, CO_ORDER};
use crate::engines::bounded::varisat::Encoder;

/// A kind of base item.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Kind {
    /// The executed events (the universe of `~`, `*`, `?`).
    Executed,
    /// A base set.
    Set(BaseSet),
    /// A base relation.
    Rel(BaseRel),
}

impl Kind {
    fn of(item: Item) -> Kind {
        match item {
            Item::Exec(_) => Kind::Executed,
            Item::Set(s, _) => Kind::Set(s),
            Item::Rel(r, _, _) => Kind::Rel(r),
        }
    }
}

/// The statements of `model` that check the axiom named `axiom`.
fn axiom_stmts<'m>(model: &'m Model, axiom: &'m str) -> impl Iterator<Item = usize> + 'm {
    (model.stmts.iter().enumerate())
        .filter(move |(_, st)| matches!(st, Stmt::Check { name, .. } if name == axiom))
        .map(|(si, _)| si)
}

/// Whether every lemma of `lemmas` can be re-checked: each names an axiom
/// of `model` or [`CO_ORDER`].
///
/// Errors: the first lemma naming no axiom of the model.
pub fn certifiable(model: &Model, lemmas: &[Lemma]) -> Result<(), String> {
    match (lemmas.iter())
        .find(|l| l.axiom != CO_ORDER && axiom_stmts(model, &l.axiom).next().is_none())
    {
        Some(l) => Err(format!("the model has no axiom named `{}`", l.axiom)),
        None => Ok(()),
    }
}

/// What the encoding fixes, per kind, as bounds (must: the items it makes
/// always true; may: all but those it makes always false), computed on
/// first use.
struct Constants<'e, 'a> {
    enc: &'e mut Encoder<'a>,
    sets: HashMap<Kind, Bound<Bits>>,
    rels: HashMap<BaseRel, Bound<Mat>>,
}

impl Constants<'_, '_> {
    /// Per item of kind `k` (per event, or per pair as `a * n + b`): always
    /// true, always false, or open (`None`).
    fn fixed(&mut self, k: Kind) -> Vec<Option<bool>> {
        let n = self.enc.un.events.len();
        let cells = if matches!(k, Kind::Rel(_)) { n * n } else { n };
        let enc = &mut *self.enc;
        (0..cells)
            .map(|i| {
                let item = match k {
                    Kind::Executed => Item::Exec(i),
                    Kind::Set(s) => Item::Set(s, i),
                    Kind::Rel(r) => Item::Rel(r, i / n, i % n),
                };
                match super::formula::item_lit(enc, item) {
                    None => Some(false),
                    Some(l) if enc.cnf.is_true(l) => Some(true),
                    Some(l) if enc.cnf.is_false(l) => Some(false),
                    Some(_) => None,
                }
            })
            .collect()
    }

    /// The bounds of a set kind (or the executed events).
    fn set(&mut self, k: Kind) -> Bound<Bits> {
        if let Some(b) = self.sets.get(&k) {
            return b.clone();
        }
        let n = self.enc.un.events.len();
        let mut b = Bound {
            must: Bits::new(n),
            may: Bits::new(n),
        };
        for (e, v) in self.fixed(k).into_iter().enumerate() {
            if v == Some(true) {
                b.must.set(e);
            }
            if v != Some(false) {
                b.may.set(e);
            }
        }
        self.sets.insert(k, b.clone());
        b
    }

    /// The bounds of a base relation.
    fn rel(&mut self, r: BaseRel) -> Bound<Mat> {
        if let Some(b) = self.rels.get(&r) {
            return b.clone();
        }
        let n = self.enc.un.events.len();
        let mut b = Bound {
            must: Mat::new(n),
            may: Mat::new(n),
        };
        for (i, v) in self.fixed(Kind::Rel(r)).into_iter().enumerate() {
            if v == Some(true) {
                b.must.set(i / n, i % n);
            }
            if v != Some(false) {
                b.may.set(i / n, i % n);
            }
        }
        self.rels.insert(r, b.clone());
        b
    }
}

/// Re-checks lemmas against one encoding: caches what the encoding fixes
/// per kind.
pub struct Justifier<'e, 'a> {
    consts: Constants<'e, 'a>,
    model: &'e Model,
}

impl<'e, 'a> Justifier<'e, 'a> {
    /// A justifier over `enc` (the re-derived encoding) and `model` (the
    /// model it encodes).
    pub fn new(enc: &'e mut Encoder<'a>, model: &'e Model) -> Self {
        Justifier {
            consts: Constants {
                enc,
                sets: HashMap::default(),
                rels: HashMap::default(),
            },
            model,
        }
    }

    /// Re-checks `lemma` (number `k` from 0, for messages).
    ///
    /// Errors: why the facts do not make the axiom fail on every
    /// execution that has them (a fact naming an event beyond the
    /// unrolling, an axiom the model does not have).
    pub fn check(&mut self, k: usize, lemma: &Lemma) -> Result<(), String> {
        let n = self.consts.enc.un.events.len();
        if let Some(f) = lemma.facts.iter().find(|f| match f.item {
            Item::Exec(e) | Item::Set(_, e) => e >= n,
            Item::Rel(_, a, b) => a.max(b) >= n,
        }) {
            return Err(format!(
                "lemma {}: fact {} names an event beyond the {n} of the unrolling",
                k + 1,
                super::lemmas::fact_text(f)
            ));
        }
        if lemma.axiom == CO_ORDER {
            let mut co = Mat::new(n);
            for f in lemma.facts.iter().filter(|f| f.present) {
                if let Item::Rel(BaseRel::Co, a, b) = f.item {
                    co.set(a, b);
                }
            }
            return match co.find_cycle() {
                Some(_) => Ok(()),
                None => Err(format!(
                    "lemma {}: its co facts form no cycle ({CO_ORDER})",
                    k + 1
                )),
            };
        }
        let model = self.model;
        let stmts: Vec<usize> = axiom_stmts(model, &lemma.axiom).collect();
        if stmts.is_empty() {
            return Err(format!(
                "lemma {}: the model has no axiom named `{}`",
                k + 1,
                lemma.axiom
            ));
        }
        let mut base = FactBase {
            n,
            consts: &mut self.consts,
            facts: &lemma.facts,
        };
        let executed = base.executed().must;
        let mut bounds = Bounds::new(model, base);
        let failed = stmts.into_iter().any(|si| {
            bounds
                .axiom(si)
                .is_some_and(|(kind, v)| fails_surely(kind, &v.must, &executed))
        });
        if failed {
            Ok(())
        } else {
            Err(format!(
                "lemma {}: its facts do not make axiom `{}` fail on every execution that has them",
                k + 1,
                lemma.axiom
            ))
        }
    }
}

/// Whether an axiom of kind `kind` fails on every execution whose value
/// of its expression holds `must` over the events `executed` (which it
/// executes).
fn fails_surely(kind: AxiomKind, must: &Val, executed: &Bits) -> bool {
    match (kind, must) {
        (AxiomKind::Acyclic, Val::Rel(m)) => {
            let mut r = Mat::new(m.n());
            for a in executed.iter() {
                r.0[a] = m.0[a].zip(executed, |p, q| p & q);
            }
            r.find_cycle().is_some()
        }
        (AxiomKind::Irreflexive, Val::Rel(m)) => executed.iter().any(|e| m.get(e, e)),
        (AxiomKind::Empty, Val::Rel(m)) => executed
            .iter()
            .any(|a| !m.0[a].zip(executed, |p, q| p & q).is_empty()),
        (AxiomKind::Empty, Val::Set(s)) => executed.iter().any(|e| s.get(e)),
        _ => false,
    }
}

/// The base items of a lemma's completions as bounds (module doc).
struct FactBase<'j, 'e, 'a> {
    n: usize,
    consts: &'j mut Constants<'e, 'a>,
    facts: &'j [Fact],
}

impl FactBase<'_, '_, '_> {
    /// `b` narrowed by the facts of kind `k` (members of a set kind).
    fn narrow_set(&self, k: Kind, mut b: Bound<Bits>) -> Bound<Bits> {
        for f in self.facts.iter().filter(|f| Kind::of(f.item) == k) {
            if let Item::Exec(e) | Item::Set(_, e) = f.item {
                if f.present {
                    b.must.set(e);
                } else {
                    b.may.clear(e);
                }
            }
        }
        b
    }
}

impl BoundsBase for FactBase<'_, '_, '_> {
    fn n(&self) -> usize {
        self.n
    }

    fn executed(&mut self) -> Bound<Bits> {
        let b = self.consts.set(Kind::Executed);
        let mut b = self.narrow_set(Kind::Executed, b);
        // The events of a present member or pair are executed.
        for f in self.facts.iter().filter(|f| f.present) {
            match f.item {
                Item::Exec(_) => {}
                Item::Set(_, e) => b.must.set(e),
                Item::Rel(_, a, c) => {
                    b.must.set(a);
                    b.must.set(c);
                }
            }
        }
        b
    }

    fn set(&mut self, s: BaseSet) -> Bound<Bits> {
        let b = self.consts.set(Kind::Set(s));
        self.narrow_set(Kind::Set(s), b)
    }

    fn rel(&mut self, r: BaseRel) -> Bound<Mat> {
        let mut b = self.consts.rel(r);
        for f in self.facts.iter() {
            if let Item::Rel(r2, a, c) = f.item {
                if r2 == r && f.present {
                    b.must.set(a, c);
                } else if r2 == r {
                    b.may.0[a].clear(c);
                }
            }
        }
        b
    }
}
