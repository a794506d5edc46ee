//! Re-checking a lemma with the cat evaluator alone: do its facts make
//! its axiom fail in *every* candidate execution that has them?
//!
//! A lemma's facts fix some base items (present or absent) and leave the
//! rest open. An axiom (`acyclic r`, `irreflexive r`, `empty r`) fails on
//! more executions as `r` grows, and `r` grows with each base item that
//! occurs in it only positively (not under an odd number of `\` right
//! operands and `~`) and shrinks with each item that occurs only
//! negatively. So when no kind of item (a base set, a base relation, the
//! executed events) occurs in both polarities, one evaluation decides: on
//! the execution whose positive kinds hold only the present facts (and
//! what the encoding makes always true) and whose negative kinds hold
//! everything but the absent facts (and what the encoding makes always
//! false), the axiom fails iff it fails on every completion of the facts.
//! An axiom with a kind of both polarities is refused ([`certifiable`]):
//! its lemmas would need a three-valued evaluation the evaluator does not
//! have.
//!
//! The lemmas of the built-in rule "co is a strict order"
//! ([`CO_ORDER`]) are checked directly: their present co facts form a
//! cycle.

use crate::cat::base::{BaseRel, BaseSet, Builtin};
use crate::cat::eval::{Base, Bits, Evaluator, Mat};
use crate::cat::{ExprKind, Model, Node, Stmt};
use crate::collections::{HashMap, HashSet};
use crate::engines::bounded::varisat::lemmas::{Item, Lemma, CO_ORDER};
use crate::engines::bounded::varisat::Encoder;

/// A kind of base item.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// The executed events (the universe of `~`, `*`, `?`).
    Executed,
    /// A base set.
    Set(BaseSet),
    /// A base relation.
    Rel(BaseRel),
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Executed => "the executed events",
            Kind::Set(s) => s.name(),
            Kind::Rel(r) => r.name(),
        }
    }

    fn of(item: Item) -> Kind {
        match item {
            Item::Exec(_) => Kind::Executed,
            Item::Set(s, _) => Kind::Set(s),
            Item::Rel(r, _, _) => Kind::Rel(r),
        }
    }
}

/// The polarities in which each kind occurs in an axiom's expression:
/// (positively, negatively).
pub type Polarity = HashMap<Kind, (bool, bool)>;

/// The polarity of every kind in the expression of the axiom named
/// `axiom` (through `let` definitions, recursive ones included).
///
/// Errors: the model has no axiom of that name.
pub fn polarity(model: &Model, axiom: &str) -> Result<Polarity, String> {
    let expr = model
        .stmts
        .iter()
        .find_map(|st| match st {
            Stmt::Check { expr, name, .. } if name == axiom => Some(expr),
            _ => None,
        })
        .ok_or_else(|| format!("the model has no axiom named `{axiom}`"))?;
    let mut out = Polarity::default();
    let mut seen = HashSet::default();
    walk(model, expr, true, &mut out, &mut seen);
    Ok(out)
}

fn walk<'m>(
    model: &'m Model,
    node: &'m Node,
    pos: bool,
    out: &mut Polarity,
    seen: &mut HashSet<(&'m str, bool)>,
) {
    use ExprKind::*;
    let mut mark = |k: Kind, p: bool| {
        let e = out.entry(k).or_default();
        if p {
            e.0 = true;
        } else {
            e.1 = true;
        }
    };
    match &node.kind {
        Name(key) => {
            if !seen.insert((key.as_str(), pos)) {
                return;
            }
            if let Some(&(st, bi)) = model.defs.get(key) {
                if let Stmt::Let { binds, .. } = &model.stmts[st] {
                    walk(model, &binds[bi].1, pos, out, seen);
                }
            }
        }
        Base(Builtin::Rel(r)) => mark(Kind::Rel(*r), pos),
        Base(Builtin::Set(s)) => mark(Kind::Set(*s), pos),
        Empty => {}
        Union(x, y) | Inter(x, y) | Seq(x, y) | Cart(x, y) => {
            walk(model, x, pos, out, seen);
            walk(model, y, pos, out, seen);
        }
        Diff(x, y) => {
            walk(model, x, pos, out, seen);
            walk(model, y, !pos, out, seen);
        }
        Compl(x) => {
            mark(Kind::Executed, pos);
            walk(model, x, !pos, out, seen);
        }
        Star(x) | Opt(x) => {
            mark(Kind::Executed, pos);
            walk(model, x, pos, out, seen);
        }
        Plus(x) | Inv(x) | Bracket(x) | Domain(x) | Range(x) => walk(model, x, pos, out, seen),
        FenceRel(x) => {
            mark(Kind::Rel(BaseRel::Po), pos);
            walk(model, x, pos, out, seen);
        }
    }
}

/// Whether every lemma of `lemmas` can be re-checked: each names an axiom
/// of `model` (or [`CO_ORDER`]) in which no kind of item occurs in both
/// polarities.
///
/// Errors: why not, naming the axiom and the kind.
pub fn certifiable(model: &Model, lemmas: &[Lemma]) -> Result<(), String> {
    let mut done: HashSet<&str> = HashSet::default();
    for l in lemmas {
        if l.axiom == CO_ORDER || !done.insert(&l.axiom) {
            continue;
        }
        let p = polarity(model, &l.axiom)?;
        let mut mixed: Vec<&str> = (p.iter())
            .filter(|(_, &(a, b))| a && b)
            .map(|(k, _)| k.name())
            .collect();
        mixed.sort();
        if let Some(k) = mixed.first() {
            return Err(format!(
                "axiom `{}` uses {k} both positively and negatively (under `\\` or `~`): its lemmas rest on absent facts whose effect one evaluation cannot re-derive",
                l.axiom
            ));
        }
    }
    Ok(())
}

/// The items of one kind the encoding makes always true and always false
/// (per event, or per pair as `a * n + b`).
#[derive(Default)]
struct Fixed {
    tt: Vec<bool>,
    ff: Vec<bool>,
}

/// Re-checks lemmas against one encoding: caches what the encoding fixes
/// per kind.
pub struct Justifier<'e, 'a> {
    enc: &'e mut Encoder<'a>,
    model: &'e Model,
    fixed: HashMap<Kind, Fixed>,
    polarity: HashMap<String, Polarity>,
}

impl<'e, 'a> Justifier<'e, 'a> {
    /// A justifier over `enc` (the re-derived encoding) and `model` (the
    /// model it encodes).
    pub fn new(enc: &'e mut Encoder<'a>, model: &'e Model) -> Self {
        Justifier {
            enc,
            model,
            fixed: HashMap::default(),
            polarity: HashMap::default(),
        }
    }

    fn fixed(&mut self, k: Kind) -> &Fixed {
        let n = self.enc.un.events.len();
        let enc = &mut *self.enc;
        self.fixed.entry(k).or_insert_with(|| {
            let cells = if matches!(k, Kind::Rel(_)) { n * n } else { n };
            let mut f = Fixed {
                tt: vec![false; cells],
                ff: vec![false; cells],
            };
            for i in 0..cells {
                let item = match k {
                    Kind::Executed => Item::Exec(i),
                    Kind::Set(s) => Item::Set(s, i),
                    Kind::Rel(r) => Item::Rel(r, i / n, i % n),
                };
                match super::formula::item_lit(enc, item) {
                    None => f.ff[i] = true,
                    Some(l) if enc.cnf.is_true(l) => f.tt[i] = true,
                    Some(l) if enc.cnf.is_false(l) => f.ff[i] = true,
                    Some(_) => {}
                }
            }
            f
        })
    }

    /// Re-checks `lemma` (number `k` from 0, for messages).
    ///
    /// Errors: why the facts do not make the axiom fail on every
    /// execution that has them.
    pub fn check(&mut self, k: usize, lemma: &Lemma) -> Result<(), String> {
        let n = self.enc.un.events.len();
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
        if !self.polarity.contains_key(&lemma.axiom) {
            let p =
                polarity(self.model, &lemma.axiom).map_err(|e| format!("lemma {}: {e}", k + 1))?;
            self.polarity.insert(lemma.axiom.clone(), p);
        }
        let pol = self.polarity[&lemma.axiom].clone();
        let mut w = World {
            n,
            executed: Bits::new(n),
            sets: HashMap::default(),
            rels: HashMap::default(),
        };
        for (&kind, &(p, q)) in &pol {
            if p && q {
                return Err(format!(
                    "lemma {}: axiom `{}` uses {} in both polarities",
                    k + 1,
                    lemma.axiom,
                    kind.name()
                ));
            }
            let cells = if matches!(kind, Kind::Rel(_)) {
                n * n
            } else {
                n
            };
            let fixed = self.fixed(kind);
            // Positive kind: the present facts and what is always true;
            // negative kind: all but the absent facts and what is always
            // false.
            let mut v: Vec<bool> = if p {
                fixed.tt.clone()
            } else {
                fixed.ff.iter().map(|&x| !x).collect()
            };
            for f in lemma.facts.iter().filter(|f| Kind::of(f.item) == kind) {
                let i = match f.item {
                    Item::Exec(e) | Item::Set(_, e) => e,
                    Item::Rel(_, a, b) => a * n + b,
                };
                if i < cells && f.present == p {
                    v[i] = p;
                }
            }
            match kind {
                Kind::Executed => w.executed = bits(&v),
                Kind::Set(s) => {
                    w.sets.insert(s, bits(&v));
                }
                Kind::Rel(r) => {
                    let mut m = Mat::new(n);
                    for (i, _) in v.iter().enumerate().filter(|(_, &x)| x) {
                        m.set(i / n, i % n);
                    }
                    w.rels.insert(r, m);
                }
            }
        }
        let mut ev = Evaluator::new(self.model, w);
        let failed = ev.check_all(1).into_iter().any(|v| v.axiom == lemma.axiom);
        if failed {
            Ok(())
        } else {
            Err(format!(
                "lemma {}: its facts do not make axiom `{}` fail",
                k + 1,
                lemma.axiom
            ))
        }
    }
}

fn bits(v: &[bool]) -> Bits {
    let mut b = Bits::new(v.len());
    for (i, _) in v.iter().enumerate().filter(|(_, &x)| x) {
        b.set(i);
    }
    b
}

/// The execution a lemma is evaluated on: each kind the axiom uses at its
/// extreme value under the facts; the kinds it does not use empty.
struct World {
    n: usize,
    executed: Bits,
    sets: HashMap<BaseSet, Bits>,
    rels: HashMap<BaseRel, Mat>,
}

impl Base for World {
    type Fact = bool;

    fn n(&self) -> usize {
        self.n
    }

    fn executed(&mut self) -> Bits {
        self.executed.clone()
    }

    fn set(&mut self, s: BaseSet) -> Bits {
        self.sets
            .get(&s)
            .cloned()
            .unwrap_or_else(|| Bits::new(self.n))
    }

    fn rel(&mut self, r: BaseRel) -> Mat {
        self.rels
            .get(&r)
            .cloned()
            .unwrap_or_else(|| Mat::new(self.n))
    }
}
