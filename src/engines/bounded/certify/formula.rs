//! The certified formula of a query: its derivation from the program, the
//! model, the bound and the lemmas (the same function for the run that
//! writes a certificate and for the checker that re-derives it), and its
//! DIMACS text with the origin of every clause.
//!
//! The derivation is deterministic (the encoder's hash maps have a fixed
//! hasher): the varisat encoder in recording mode ([`Cnf::recording`]) with
//! the settings of [`encoder`], the query's condition built as the query
//! builds it, then per lemma its facts mapped to the encoding's literals
//! (gates defined on first use, as in the run) and the clause "not all of
//! them"; then, for a litmus test's final states, per recorded state the
//! clause excluding it (as the enumeration blocked it); last, the
//! condition's literals as unit clauses.

use crate::cat::Model;
use crate::diag::{Error, SourceFile, Span};
use crate::engines::bounded::varisat::cnf::Cnf;
use crate::engines::bounded::varisat::lemmas::{Item, Lemma};
use crate::engines::bounded::varisat::{Encoder, Lit, VarisatSession};
use crate::engines::bounded::{CheckKind, Deadline, Session};
use crate::engines::Switches;
use crate::program::{GExpr, Program};

/// Where a clause of the certified formula comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// The encoding of the program and the model, and the query's
    /// condition (its gates).
    Encoding,
    /// Lemma `k` (0-based, the order of `lemmas.txt`): the definitions of
    /// the gates its facts need, then its clause.
    Lemma(usize),
    /// Final state `k` (0-based, the order of [`super::Manifest::states`])
    /// excluded: "not a final execution, or another value observed".
    Block(usize),
    /// The query's condition asserted (unit clauses).
    Query,
}

/// The question a certified formula answers.
#[derive(Clone, Copy, Debug)]
pub enum Question<'a> {
    /// `reach` or `robust`.
    Check(CheckKind),
    /// A litmus test's final states: is there a final execution (every
    /// thread terminated, `filter` nonzero) whose values of `observed`
    /// are none of `states`? (The enumeration's last, unsatisfiable
    /// query, `crate::engines::bounded::queries::enumerate_final`.)
    FinalStates {
        /// The test's filter.
        filter: Option<&'a GExpr>,
        /// The observed expressions (final registers and memory).
        observed: &'a [GExpr],
        /// The final states found (values of `observed`, signed W-bit).
        states: &'a [Vec<i64>],
    },
}

impl Question<'_> {
    /// The manifest's name of the question (`reach`, `robust`,
    /// `final-states`).
    pub fn name(&self) -> &'static str {
        match self {
            Question::Check(k) => k.name(),
            Question::FinalStates { .. } => "final-states",
        }
    }
}

/// A CNF over variables `1..=vars` with the origin of each clause.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Formula {
    /// Number of variables.
    pub vars: usize,
    /// The clauses, in order.
    pub clauses: Vec<Vec<Lit>>,
    /// The origin of each clause (same length as `clauses`).
    pub origins: Vec<Origin>,
}

/// The switches of a certified run: the defaults, with the CFG
/// pre-filter's static robustness proof off (it answers without a
/// formula; `escape_cfg`, docs/models.md), so that every negative answer
/// rests on a solved formula.
pub fn switches() -> Switches {
    Switches {
        escape_cfg: false,
        ..Switches::default()
    }
}

/// The encoder of a certified run and of its re-derivation into `cnf`:
/// lazy (not eager), the switches of [`switches`], the plain hb-cycle
/// query.
pub fn encoder<'a>(
    cnf: Cnf,
    prog: &'a Program,
    model: &'a Model,
    bound: u32,
    width: u32,
    limit: Option<Deadline>,
) -> Encoder<'a> {
    let mut enc = Encoder::limited_in(cnf, prog, model, bound, width, false, limit, switches());
    enc.shortest_cycles = false;
    enc
}

/// The literal of `item` in `enc` (`None`: the item is never present).
pub fn item_lit(enc: &mut Encoder, item: Item) -> Option<Lit> {
    match item {
        Item::Exec(e) => Some(enc.exec_lit(e)),
        Item::Set(s, e) => enc.set_lit(s, e),
        Item::Rel(r, a, b) => enc.rel_lit(r, a, b),
    }
}

/// Derives the certified formula of `question` on `prog` under `model`
/// (the model the backend encodes, [`crate::engines::bounded::Query::encoded_model`])
/// with `lemmas`; returns it with the encoder (whose literals the
/// lemmas' facts were mapped to).
///
/// Errors: a fact naming an event beyond the unrolling or an item the
/// encoding has no literal for (the lemma cannot be of this encoding); a
/// `reach` on a program without goals; a recorded final state with
/// another number of values than observed expressions.
pub fn derive<'a>(
    prog: &'a Program,
    model: &'a Model,
    (bound, width): (u32, u32),
    question: Question,
    lemmas: &[Lemma],
) -> Result<(Formula, Encoder<'a>), String> {
    let enc = encoder(Cnf::recording(), prog, model, bound, width, None);
    let mut s = VarisatSession::new(enc);
    let cond = match question {
        Question::Check(CheckKind::Robust) => s.hb_cycle(),
        Question::Check(CheckKind::Reach) => {
            if prog.goals.is_empty() {
                return Err("the program declares no goal".into());
            }
            let goals: Vec<_> = (0..prog.goals.len()).map(|g| s.goal(g)).collect();
            s.any_of(&goals)
        }
        Question::FinalStates {
            filter, observed, ..
        } => {
            let c = s.final_state(filter);
            s.observe(observed);
            c
        }
    };
    let assumptions = s.lits(cond).to_vec();
    let mut origins = vec![Origin::Encoding; s.enc.cnf.clauses_since(0).len()];
    add_lemmas(&mut s.enc, &mut origins, lemmas)?;
    if let Question::FinalStates {
        observed, states, ..
    } = question
    {
        for (k, v) in states.iter().enumerate() {
            if v.len() != observed.len() {
                return Err(format!(
                    "final state {}: {} values, the test observes {}",
                    k + 1,
                    v.len(),
                    observed.len()
                ));
            }
            s.exclude_observed(cond, v);
            origins.resize(s.enc.cnf.clauses_since(0).len(), Origin::Block(k));
        }
    }
    let mut enc = s.enc;
    for &l in &assumptions {
        enc.cnf.clause(&[l]);
    }
    let clauses = enc.cnf.clauses_since(0).to_vec();
    origins.resize(clauses.len(), Origin::Query);
    let f = Formula {
        vars: enc.cnf.num_vars(),
        clauses,
        origins,
    };
    Ok((f, enc))
}

/// Adds each lemma's clause (after the gates its facts need) to `enc`;
/// extends `origins` (one per clause of `enc`) to cover them.
///
/// Errors: see [`derive`].
fn add_lemmas(
    enc: &mut Encoder,
    origins: &mut Vec<Origin>,
    lemmas: &[Lemma],
) -> Result<(), String> {
    let n = enc.un.events.len();
    for (k, lemma) in lemmas.iter().enumerate() {
        let mut clause = Vec::with_capacity(lemma.facts.len());
        for f in &lemma.facts {
            let events = match f.item {
                Item::Exec(e) | Item::Set(_, e) => [e, e],
                Item::Rel(_, a, b) => [a, b],
            };
            if events.iter().any(|&e| e >= n) {
                return Err(format!(
                    "lemma {}: a fact names event {}, the unrolling has {n}",
                    k + 1,
                    events[0].max(events[1])
                ));
            }
            let l = item_lit(enc, f.item).ok_or_else(|| {
                format!(
                    "lemma {}: the fact {} has no literal in the encoding",
                    k + 1,
                    super::lemmas::fact_text(f)
                )
            })?;
            clause.push(if f.present { !l } else { l });
        }
        clause.sort();
        clause.dedup();
        enc.cnf.clause(&clause);
        let len = enc.cnf.clauses_since(0).len();
        origins.resize(len, Origin::Lemma(k));
    }
    Ok(())
}

impl Formula {
    /// The DIMACS text: a header comment, `p cnf`, then the clauses, each
    /// run of one origin after a comment line naming it (`c encoding`,
    /// `c lemma K` and `c block K` with K from 1, `c query`).
    pub fn to_dimacs(&self) -> String {
        let mut out = String::with_capacity(self.clauses.len() * 16);
        out.push_str("c bmc-rmm certified formula\n");
        out.push_str(&format!("p cnf {} {}\n", self.vars, self.clauses.len()));
        let mut last = None;
        for (c, &o) in self.clauses.iter().zip(&self.origins) {
            if last != Some(o) {
                match o {
                    Origin::Encoding => out.push_str("c encoding\n"),
                    Origin::Lemma(k) => out.push_str(&format!("c lemma {}\n", k + 1)),
                    Origin::Block(k) => out.push_str(&format!("c block {}\n", k + 1)),
                    Origin::Query => out.push_str("c query\n"),
                }
                last = Some(o);
            }
            for l in c {
                out.push_str(&l.to_dimacs().to_string());
                out.push(' ');
            }
            out.push_str("0\n");
        }
        out
    }

    /// Reads a DIMACS formula written by [`Formula::to_dimacs`] (origins
    /// from its comments; clauses before any origin comment are
    /// [`Origin::Encoding`]).
    ///
    /// Errors (located in `file`): no or a malformed `p cnf` line, a token
    /// that is not an integer, a literal beyond the declared variables, a
    /// clause not ended by `0`, a clause count other than the declared
    /// one, a malformed origin comment.
    pub fn parse(file: &SourceFile) -> Result<Formula, Error> {
        let text: &str = &file.text;
        let mut header: Option<(usize, usize)> = None;
        let mut f = Formula {
            vars: 0,
            clauses: Vec::new(),
            origins: Vec::new(),
        };
        let mut origin = Origin::Encoding;
        let mut cur: Vec<Lit> = Vec::new();
        let mut open_at = None;
        let mut offset = 0;
        for line in text.split_inclusive('\n') {
            let start = offset;
            offset += line.len();
            let body = line.trim_end();
            let at = |from: usize, len: usize| Span::new(start + from, start + from + len.max(1));
            if body.is_empty() {
                continue;
            }
            if let Some(c) = body.strip_prefix('c') {
                let c = c.trim();
                if c == "encoding" {
                    origin = Origin::Encoding;
                } else if c == "query" {
                    origin = Origin::Query;
                } else if let Some((word, k)) = c.split_once(' ') {
                    let make: fn(usize) -> Origin = match word {
                        "lemma" => Origin::Lemma,
                        "block" => Origin::Block,
                        _ => continue,
                    };
                    let k: usize = k.trim().parse().ok().filter(|&k| k > 0).ok_or_else(|| {
                        file.error(
                            at(0, body.len()),
                            format!("malformed origin comment: expected `c {word} K` with K ≥ 1"),
                        )
                    })?;
                    origin = make(k - 1);
                }
                continue;
            }
            if let Some(p) = body.strip_prefix("p ") {
                let w: Vec<&str> = p.split_whitespace().collect();
                let nums = (w.len() == 3 && w[0] == "cnf")
                    .then(|| Some((w[1].parse().ok()?, w[2].parse().ok()?)))
                    .flatten();
                match (nums, header) {
                    (Some(h), None) => {
                        header = Some(h);
                        f.vars = h.0;
                    }
                    (_, Some(_)) => {
                        return Err(file.error(at(0, body.len()), "a second `p cnf` line"))
                    }
                    (None, None) => {
                        return Err(file.error(
                            at(0, body.len()),
                            "malformed header: expected `p cnf VARS CLAUSES`",
                        ))
                    }
                }
                continue;
            }
            let Some(_) = header else {
                return Err(file.error(at(0, body.len()), "clause before the `p cnf` header"));
            };
            let mut col = 0;
            for tok in body.split_whitespace() {
                let from = body[col..].find(tok).map_or(col, |i| col + i);
                col = from + tok.len();
                let v: isize = tok.parse().map_err(|_| {
                    file.error(
                        at(from, tok.len()),
                        format!("`{tok}` is not an integer literal"),
                    )
                })?;
                if v == 0 {
                    f.clauses.push(std::mem::take(&mut cur));
                    f.origins.push(origin);
                    open_at = None;
                } else if v.unsigned_abs() > f.vars {
                    return Err(file.error(
                        at(from, tok.len()),
                        format!("literal {v} beyond the {} declared variables", f.vars),
                    ));
                } else {
                    cur.push(Lit::from_dimacs(v));
                    open_at.get_or_insert(at(from, tok.len()));
                }
            }
        }
        let Some((_, n)) = header else {
            return Err(file.error(Span::new(0, 1), "no `p cnf` header"));
        };
        if let Some(sp) = open_at {
            return Err(file.error(sp, "clause not ended by 0"));
        }
        if f.clauses.len() != n {
            return Err(file.error(
                Span::new(0, 1),
                format!(
                    "the header declares {n} clauses, the file has {}",
                    f.clauses.len()
                ),
            ));
        }
        Ok(f)
    }

    /// The first difference between this (re-derived) formula and
    /// `other` (read from a certificate), in words; `None` when equal.
    pub fn first_difference(&self, other: &Formula) -> Option<String> {
        if self.vars != other.vars {
            return Some(format!(
                "the certificate's formula has {} variables, the re-derived one {}",
                other.vars, self.vars
            ));
        }
        for (i, (a, b)) in self.clauses.iter().zip(&other.clauses).enumerate() {
            if a != b || self.origins[i] != other.origins[i] {
                return Some(format!(
                    "clause {} ({}) differs from the re-derived clause ({})",
                    i + 1,
                    describe(other.origins[i]),
                    describe(self.origins[i])
                ));
            }
        }
        (self.clauses.len() != other.clauses.len()).then(|| {
            format!(
                "the certificate's formula has {} clauses, the re-derived one {}",
                other.clauses.len(),
                self.clauses.len()
            )
        })
    }
}

fn describe(o: Origin) -> String {
    match o {
        Origin::Encoding => "encoding".into(),
        Origin::Lemma(k) => format!("lemma {}", k + 1),
        Origin::Block(k) => format!("block {}", k + 1),
        Origin::Query => "query".into(),
    }
}
