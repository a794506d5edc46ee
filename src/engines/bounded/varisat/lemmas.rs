//! The lemma log of the lazy loop: for each clause a refinement adds
//! ([`Encoder::refute`]), the axiom that failed and the facts of the
//! candidate (base items with their polarity) whose conjunction the
//! clause forbids. Kept only when asked ([`Encoder::lemma_log`]), for the
//! certificates of negative answers (`engines::bounded::certify`), which
//! map the facts back to literals of a re-derived encoding and re-check
//! each lemma with the cat evaluator.

use super::Encoder;
use crate::cat::base::{BaseRel, BaseSet};
use crate::cat::eval::{Base, Bits, Mat};
use varisat::Lit;

/// The name a lemma of the built-in rule "co is a strict order per
/// location" carries (not an axiom of the model: the encoding leaves co's
/// transitivity to the lazy loop).
pub const CO_ORDER: &str = "co-order";

/// A base item of a candidate execution: an event, a base set's member, a
/// base relation's pair (events are indices into the unrolling's events).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Item {
    /// "event `e` is executed".
    Exec(usize),
    /// "event `e` is in set `s`".
    Set(BaseSet, usize),
    /// "`(a, b)` is in relation `r`".
    Rel(BaseRel, usize, usize),
}

/// One fact of a lemma: an item and whether the candidate had it
/// (`present`) or not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Fact {
    /// The item.
    pub item: Item,
    /// Present (true) or absent (false) in the candidate.
    pub present: bool,
}

/// One refinement lemma: the clause "not all of `facts`", learnt because
/// the facts make `axiom` fail ([`CO_ORDER`] for a co cycle).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Lemma {
    /// The failed axiom's name.
    pub axiom: String,
    /// The facts, sorted, without duplicates.
    pub facts: Vec<Fact>,
}

/// A fact with its literal: the explanation fact type while logging
/// (ordered by literal first, so a clause sorts as the plain one does).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct Tagged {
    lit: Lit,
    fact: Fact,
}

impl std::ops::Not for Tagged {
    type Output = Tagged;
    fn not(self) -> Tagged {
        Tagged {
            lit: !self.lit,
            fact: Fact {
                item: self.fact.item,
                present: !self.fact.present,
            },
        }
    }
}

/// A [`Base`] whose facts are literals, seen with the item each stands for.
pub(super) struct Logged<B>(pub B);

impl<B: Base<Fact = Lit>> Logged<B> {
    fn tag(l: Option<Lit>, item: Item) -> Option<Tagged> {
        l.map(|lit| Tagged {
            lit,
            fact: Fact {
                item,
                present: true,
            },
        })
    }
}

impl<B: Base<Fact = Lit>> Base for Logged<B> {
    type Fact = Tagged;

    fn n(&self) -> usize {
        self.0.n()
    }

    fn executed(&mut self) -> Bits {
        self.0.executed()
    }

    fn set(&mut self, s: BaseSet) -> Bits {
        self.0.set(s)
    }

    fn rel(&mut self, r: BaseRel) -> Mat {
        self.0.rel(r)
    }

    fn exec_fact(&mut self, e: usize) -> Option<Tagged> {
        Self::tag(self.0.exec_fact(e), Item::Exec(e))
    }

    fn set_fact(&mut self, s: BaseSet, e: usize) -> Option<Tagged> {
        Self::tag(self.0.set_fact(s, e), Item::Set(s, e))
    }

    fn rel_fact(&mut self, r: BaseRel, a: usize, b: usize) -> Option<Tagged> {
        Self::tag(self.0.rel_fact(r, a, b), Item::Rel(r, a, b))
    }
}

/// The clause of one logged refutation (the negated literals, each once)
/// and its lemma.
pub(super) fn logged(axiom: String, facts: Vec<Tagged>) -> (Vec<Lit>, Lemma) {
    let mut clause: Vec<Lit> = facts.iter().map(|t| !t.lit).collect();
    clause.sort();
    clause.dedup();
    let mut fs: Vec<Fact> = facts.into_iter().map(|t| t.fact).collect();
    fs.sort();
    fs.dedup();
    (clause, Lemma { axiom, facts: fs })
}

impl Encoder<'_> {
    /// Starts logging every refinement lemma (read them with
    /// [`Encoder::lemmas`]).
    pub fn log_lemmas(&mut self) {
        self.lemma_log.get_or_insert_with(Vec::new);
    }

    /// The lemmas logged so far, in the order they were added (empty when
    /// not logging).
    pub fn lemmas(&self) -> &[Lemma] {
        self.lemma_log.as_deref().unwrap_or(&[])
    }
}
