//! Eager encoding of `acyclic` axioms: the axiom's relation is evaluated
//! symbolically (one literal per event pair, sparse) and its acyclicity is
//! encoded with timestamps: every event gets a ⌈log2 n⌉-bit clock and each
//! edge literal implies `clock(a) < clock(b)`.
//!
//! This complements the lazy check of [`crate::cat::eval`]: axioms whose
//! relation uses `let rec` names or a transitive closure below the top
//! level stay lazy. The lazy check still runs on every candidate, so eager
//! axioms are checked twice (a cheap cross-check of this module).
//! docs/models.md records the measurements behind the choice.

use super::analysis;
pub use super::escape_cfg::covers_ext_com;
use super::{escape_cfg, Encoder};
use crate::cat::base::{BaseRel, Builtin};
use crate::cat::{AxiomKind, ExprKind, Model, Node, Stmt};
use crate::collections::HashMap;
use crate::diag::Error;
use crate::engines::bounded::Deadline;
use std::collections::BTreeMap;
use std::time::Instant;
use varisat::Lit;

/// A sparse symbolic relation: row a → (b → literal), no false entries.
#[derive(Clone, Debug, Default)]
pub struct SRel(pub Vec<BTreeMap<usize, Lit>>);

#[derive(Clone, Debug)]
enum SVal {
    Set(Vec<Lit>),
    Rel(SRel),
}

struct Sym<'e, 'a> {
    enc: &'e mut Encoder<'a>,
    n: usize,
    env: HashMap<String, SVal>,
    base: HashMap<Builtin, SVal>,
    rec: crate::collections::HashSet<String>,
    budget: usize,
}

impl Sym<'_, '_> {
    fn empty(&self) -> SRel {
        SRel(vec![BTreeMap::new(); self.n])
    }

    fn base_rel(&mut self, rel: BaseRel) -> SRel {
        let n = self.n;
        let mut r = self.empty();
        let all_pairs = (0..n).flat_map(|a| (0..n).map(move |b| (a, b)));
        // The pairs that may be related; `rel_lit` decides each one.
        let pairs: Vec<(usize, usize)> = match rel {
            BaseRel::Rf => self.enc.rf.keys().copied().collect(),
            BaseRel::Co => self
                .enc
                .co_var
                .keys()
                .flat_map(|&(a, b)| [(a, b), (b, a)])
                .collect(),
            BaseRel::Po => all_pairs
                .filter(|&(a, b)| super::encoder::same_po(&self.enc.un, a, b))
                .collect(),
            BaseRel::Addr
            | BaseRel::Data
            | BaseRel::Ctrl
            | BaseRel::Rmw
            | BaseRel::PickAddr
            | BaseRel::PickData
            | BaseRel::PickCtrl => {
                let k = super::encoder::dep_kind(rel);
                self.enc
                    .deps
                    .keys()
                    .filter(|x| x.0 == k)
                    .map(|x| (x.1, x.2))
                    .collect()
            }
            BaseRel::Int | BaseRel::Ext | BaseRel::Id | BaseRel::Univ => {
                let ev = &self.enc.un.events;
                all_pairs
                    .filter(|&(a, b)| {
                        rel.static_pair(a == b, ev[a].thread == ev[b].thread) == Some(true)
                    })
                    .collect()
            }
            BaseRel::Op | BaseRel::Fifo | BaseRel::Bar => self
                .enc
                .pgas
                .as_ref()
                .map(|p| p.pairs(rel))
                .unwrap_or_default(),
            BaseRel::Stxn => self.enc.stxn_pairs(),
            BaseRel::Si => {
                let k = super::encoder::dep_kind(rel);
                let ds = self.enc.deps.keys().filter(|x| x.0 == k);
                let ids = (0..self.enc.un.events.len()).map(|a| (a, a));
                ds.map(|x| (x.1, x.2)).chain(ids).collect()
            }
            BaseRel::Fr | BaseRel::Loc => all_pairs.collect(),
        };
        for (a, b) in pairs {
            if let Some(l) = self.enc.rel_lit(rel, a, b) {
                if !self.enc.cnf.is_false(l) {
                    r.0[a].insert(b, l);
                }
            }
        }
        r
    }

    /// `a ∪ b`, `a ∩ b` or `a \ b` (`kind`) of two sets or two
    /// relations, pointwise over the literals; `None` for mixed operands.
    fn combine(&mut self, kind: &ExprKind, a: SVal, b: SVal) -> Option<SVal> {
        use ExprKind::*;
        let n = self.n;
        let cnf = &mut self.enc.cnf;
        Some(match (a, b) {
            (SVal::Set(p), SVal::Set(q)) => SVal::Set(
                p.iter()
                    .zip(&q)
                    .map(|(u, v)| match kind {
                        Union(..) => cnf.or(*u, *v),
                        Inter(..) => cnf.and(*u, *v),
                        _ => cnf.and(*u, !*v),
                    })
                    .collect(),
            ),
            (SVal::Rel(p), SVal::Rel(q)) => {
                let mut out = SRel(vec![BTreeMap::new(); n]);
                for a in 0..n {
                    match kind {
                        Union(..) => {
                            let mut row = p.0[a].clone();
                            for (&b, &l) in &q.0[a] {
                                let e = row.entry(b).or_insert(cnf.ff());
                                *e = cnf.or(*e, l);
                            }
                            out.0[a] = row;
                        }
                        Inter(..) => {
                            for (&b, &l) in &p.0[a] {
                                if let Some(&m) = q.0[a].get(&b) {
                                    out.0[a].insert(b, cnf.and(l, m));
                                }
                            }
                        }
                        _ => {
                            for (&b, &l) in &p.0[a] {
                                let v = match q.0[a].get(&b) {
                                    Some(&m) => cnf.and(l, !m),
                                    None => l,
                                };
                                out.0[a].insert(b, v);
                            }
                        }
                    }
                    out.0[a].retain(|_, l| !cnf.is_false(*l));
                }
                SVal::Rel(out)
            }
            _ => return None,
        })
    }

    /// `p ; q`: per pair, the disjunction over the middle events of both
    /// edges; `None` once the gate budget runs out.
    fn seq(&mut self, p: &SRel, q: &SRel) -> Option<SVal> {
        let n = self.n;
        let mut out = self.empty();
        for a in 0..n {
            let mut terms: BTreeMap<usize, Vec<Lit>> = BTreeMap::new();
            for (&c, &l) in &p.0[a] {
                for (&b, &m) in &q.0[c] {
                    let t = self.enc.cnf.and(l, m);
                    terms.entry(b).or_default().push(t);
                }
            }
            for (b, ts) in terms {
                let l = self.enc.cnf.or_all(&ts);
                if !self.enc.cnf.is_false(l) {
                    out.0[a].insert(b, l);
                }
            }
            if self.budget < n {
                return None;
            }
            self.budget -= 1;
        }
        Some(SVal::Rel(out))
    }

    /// `fencerel(s)`: `po; [s]; po` — pairs with an event of set `s`
    /// between them in program order.
    fn fence_rel(&mut self, s: &[Lit]) -> SVal {
        let n = self.n;
        let po = self.base_rel(BaseRel::Po);
        let mut out = self.empty();
        for a in 0..n {
            let mut terms: BTreeMap<usize, Vec<Lit>> = BTreeMap::new();
            for (&c, &l) in &po.0[a] {
                if self.enc.cnf.is_false(s[c]) {
                    continue;
                }
                for (&b, &m) in &po.0[c] {
                    let t = self.enc.cnf.and_all(&[l, s[c], m]);
                    terms.entry(b).or_default().push(t);
                }
            }
            for (b, ts) in terms {
                let l = self.enc.cnf.or_all(&ts);
                out.0[a].insert(b, l);
            }
        }
        SVal::Rel(out)
    }

    /// The symbolic value of `node` (a set: a literal per event; a
    /// relation: per pair), or `None` when it cannot be evaluated
    /// symbolically within the gate budget (recursion, an unevaluated
    /// `let`, an operator without a symbolic form).
    fn eval(&mut self, node: &Node) -> Option<SVal> {
        if self.budget == 0 {
            return None;
        }
        self.budget -= 1;
        use ExprKind::*;
        let n = self.n;
        Some(match &node.kind {
            Name(s) => {
                if self.rec.contains(s) {
                    return None;
                }
                if let Some(v) = self.env.get(s) {
                    return Some(v.clone());
                }
                // A `let` whose definition could not be evaluated
                // symbolically: nothing that reads it can be (reading it as
                // empty would over-constrain under `\` or `~`).
                return None;
            }
            Base(b) => {
                if let Some(v) = self.base.get(b) {
                    return Some(v.clone());
                }
                let v = match *b {
                    Builtin::Set(set) => SVal::Set(
                        (0..n)
                            .map(|e| self.enc.set_lit(set, e).unwrap_or(self.enc.cnf.ff()))
                            .collect(),
                    ),
                    Builtin::Rel(rel) => SVal::Rel(self.base_rel(rel)),
                };
                self.base.insert(*b, v.clone());
                v
            }
            Empty => SVal::Rel(self.empty()),
            Union(x, y) | Inter(x, y) | Diff(x, y) => {
                let (a, b) = (self.eval(x)?, self.eval(y)?);
                self.combine(&node.kind, a, b)?
            }
            Seq(x, y) => {
                let (SVal::Rel(p), SVal::Rel(q)) = (self.eval(x)?, self.eval(y)?) else {
                    return None;
                };
                self.seq(&p, &q)?
            }
            Cart(x, y) => {
                let (SVal::Set(p), SVal::Set(q)) = (self.eval(x)?, self.eval(y)?) else {
                    return None;
                };
                let mut out = self.empty();
                for (a, &pa) in p.iter().enumerate() {
                    if self.enc.cnf.is_false(pa) {
                        continue;
                    }
                    for (b, &qb) in q.iter().enumerate() {
                        let l = self.enc.cnf.and(pa, qb);
                        if !self.enc.cnf.is_false(l) {
                            out.0[a].insert(b, l);
                        }
                    }
                }
                SVal::Rel(out)
            }
            Inv(x) => {
                let SVal::Rel(p) = self.eval(x)? else {
                    return None;
                };
                let mut out = self.empty();
                for a in 0..n {
                    for (&b, &l) in &p.0[a] {
                        out.0[b].insert(a, l);
                    }
                }
                SVal::Rel(out)
            }
            Bracket(x) => {
                let SVal::Set(p) = self.eval(x)? else {
                    return None;
                };
                let mut out = self.empty();
                for (a, &pa) in p.iter().enumerate() {
                    if !self.enc.cnf.is_false(pa) {
                        out.0[a].insert(a, pa);
                    }
                }
                SVal::Rel(out)
            }
            Opt(x) => {
                let SVal::Rel(mut p) = self.eval(x)? else {
                    return None;
                };
                for a in 0..n {
                    let ex = self.enc.un.events[a].exec;
                    let e = p.0[a].entry(a).or_insert(self.enc.cnf.ff());
                    *e = self.enc.cnf.or(*e, ex);
                }
                SVal::Rel(p)
            }
            FenceRel(x) => {
                let SVal::Set(s) = self.eval(x)? else {
                    return None;
                };
                self.fence_rel(&s)
            }
            Domain(_) | Range(_) | Compl(_) | Plus(_) | Star(_) => return None,
        })
    }
}

/// Encodes eagerly every `acyclic` axiom of `model` that can be evaluated
/// symbolically within a gate budget; returns the names of the axioms
/// encoded. The others stay lazy.
pub fn encode_acyclic(enc: &mut Encoder, model: &Model) -> Vec<String> {
    let n = enc.un.events.len();
    let mut done = Vec::new();
    let bits = (usize::BITS - n.max(2).leading_zeros()) as usize;
    for_each_acyclic(enc, model, |sym, r, name, _, _| {
        let clocks: Vec<Vec<Lit>> = (0..n)
            .map(|_| (0..bits).map(|_| sym.enc.cnf.fresh()).collect())
            .collect();
        for a in 0..n {
            for (&b, &l) in &r.0[a] {
                if a == b {
                    sym.enc.cnf.clause(&[!l]);
                    continue;
                }
                let lt = sym.enc.cnf.bv_ult_pub(&clocks[a], &clocks[b]);
                sym.enc.cnf.implies(l, lt);
            }
        }
        done.push(name.to_string());
    });
    done
}

/// Evaluates the model's statements symbolically, in order (each within a
/// gate budget), and calls `f` with the relation of every `acyclic` axiom
/// that evaluates (`acyclic r+` as `acyclic r`), the axiom's name and
/// expression; shared by [`encode_acyclic`] and [`encode_escape`]. The
/// relation keeps only the pairs inside a cyclic component of its
/// may-relation ([`super::bounds::model_bounds`], [`analysis::cyclic_part`]): no
/// other pair can lie on a cycle.
fn for_each_acyclic(
    enc: &mut Encoder,
    model: &Model,
    mut f: impl FnMut(&mut Sym, SRel, &String, &Node, usize),
) {
    let n = enc.un.events.len();
    let bounds = super::bounds::model_bounds(model, enc);
    let mut sym = Sym {
        enc,
        n,
        env: HashMap::default(),
        base: HashMap::default(),
        rec: Default::default(),
        budget: 0,
    };
    for (i, st) in model.stmts.iter().enumerate() {
        sym.budget = 200 * n.max(8) + 10_000;
        match st {
            Stmt::Let { rec: false, binds } => {
                for (name, e) in binds {
                    if let Some(v) = sym.eval(e) {
                        sym.env.insert(name.clone(), v);
                    }
                }
            }
            Stmt::Let { rec: true, binds } => {
                for (name, _) in binds {
                    sym.rec.insert(name.clone());
                }
            }
            Stmt::Check {
                kind: AxiomKind::Acyclic,
                expr,
                name,
                ..
            } => {
                // acyclic r+ = acyclic r.
                let mut e = expr;
                while let ExprKind::Plus(x) = &e.kind {
                    e = x;
                }
                if let Some(SVal::Rel(mut r)) = sym.eval(e) {
                    // Only the pairs that can lie on a cycle of the
                    // relation matter for its acyclicity.
                    if let Some(may) = bounds.acyclic_may(i) {
                        let cyc = analysis::cyclic_part(may);
                        for (a, row) in r.0.iter_mut().enumerate() {
                            row.retain(|&b, _| cyc.get(a, b));
                        }
                    }
                    f(&mut sym, r, name, e, i);
                }
            }
            Stmt::Check { .. } => {}
        }
    }
}

/// Restricts the hb-cycle constraints ([`Encoder::robust_act`]) to
/// cycles that leave an `acyclic` axiom's relation `X`: some chosen
/// successor edge (a, b) of the cycle is not in `X` (its escape literal
/// is `succ(a, b) ∧ ¬X(a, b)`; `act` enables the clause). This keeps the
/// answer of `robust`: a shortest hb cycle of a consistent execution has
/// an edge outside every `X` (else `X` would be cyclic); it lets the
/// solver refute the cycles a model forbids by propagation instead of
/// one theory lemma per cycle (docs/models.md). Of the axioms whose
/// relation evaluates symbolically (as in [`encode_acyclic`]), the one
/// that contains the most candidate edges is used, one clause only (the
/// main order of the shipped models, e.g. TSO's `ghb`; adding the
/// coherence axiom's escape too made the search slower,
/// docs/performance.md). When `X` contains rf, co and fr between threads
/// as union members ([`covers_ext_com`]; TSO's `ghb` has `rfe | co |
/// fr`), an hb edge between threads is always in `X`, so only the
/// edges within a thread are escape candidates (a shorter clause).
/// Edges in `X;X` through an event of the same thread are in `X+` and
/// are no escape either (TSO's write → unlock → read). The candidates no
/// execution consistent with the model realizes are dropped
/// ([`feasible_escapes`], at most [`Encoder::escape_probe`] solves).
/// With indivisible sections the query contracts them
/// ([`Encoder::has_sections`]; docs/models.md, "Robustness and
/// indivisible sections"): its cycle is hb edges and hand-overs from one
/// event of a section to another ([`Encoder::robust_handover`]); one
/// without hand-overs is a cycle of hb edges (then one is outside `X`, as
/// above), so every hand-over is a candidate too.
/// Returns the axiom used and the clause's size, `None` when there is no
/// candidate edge or no axiom evaluates symbolically.
pub fn encode_escape(enc: &mut Encoder, model: &Model, act: Lit) -> Option<Escape> {
    let succ = enc.robust_succ.clone();
    if succ.is_empty() {
        return None;
    }
    let mut best: Option<(usize, SRel, String, bool, usize)> = None;
    for_each_acyclic(enc, model, |_, r, name, expr, stmt| {
        let size = (succ.iter())
            .filter(|&&(a, b, _)| r.0[a].contains_key(&b))
            .count();
        if best.as_ref().is_none_or(|x| size > x.0) {
            best = Some((size, r, name.clone(), covers_ext_com(model, expr), stmt));
        }
    });
    let (_, r, name, po_only, stmt) = best?;
    // The candidates: (successor literal, "a →hb b and (a, b) ∉ X").
    let mut cands: Vec<(Lit, Lit)> = Vec::new();
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    for &(a, b, s) in &succ {
        let same_thread = enc.un.events[a].thread == enc.un.events[b].thread;
        // Between threads every hb edge is in X: no escape there.
        if po_only && !same_thread {
            continue;
        }
        let Some(hb) = enc.hb_lit(a, b) else {
            continue;
        };
        // In X, or in X;X through an event of the same thread (e.g. a
        // write → unlock → read under TSO's `implied`): such an edge is in
        // X+, so a cycle of them alone is a cycle of X.
        let mut inside: Vec<Lit> = r.0[a].get(&b).copied().into_iter().collect();
        if same_thread {
            for (&c, &xac) in &r.0[a] {
                if c == a || c == b || enc.un.events[c].thread != enc.un.events[a].thread {
                    continue;
                }
                if let Some(&xcb) = r.0[c].get(&b) {
                    inside.push(enc.cnf.and(xac, xcb));
                }
            }
        }
        let out = if inside.is_empty() {
            hb
        } else {
            let x = enc.cnf.or_all(&inside);
            enc.cnf.and(hb, !x)
        };
        if !enc.cnf.is_false(out) {
            cands.push((s, out));
            pairs.push((a, b));
        }
    }
    let found = cands.len();
    // The CFG pre-filter: pairs the model orders on every control path.
    let cfg_start = Instant::now();
    if enc.escape_cfg {
        let ordered = escape_cfg::always_ordered(enc, model, stmt, &pairs);
        let mut it = ordered.iter();
        cands.retain(|_| !*it.next().unwrap_or(&false));
    }
    if enc.switches.cdclt_debug {
        eprintln!(
            "escape cfg pre-filter: {found} candidates, {} left, {:.3} s",
            cands.len(),
            cfg_start.elapsed().as_secs_f64()
        );
    }
    // The hand-overs inside sections are no hb edges: past the CFG
    // pre-filter, probed with the others.
    let static_ordered = found - cands.len();
    let found = found + enc.robust_handover.len();
    let tt = enc.cnf.tt();
    cands.extend(enc.robust_handover.iter().map(|&(_, _, h)| (h, tt)));
    let keep = feasible_escapes(enc, &cands, enc.escape_probe);
    let kept = keep.iter().filter(|k| **k).count();
    if let Some(limit) = enc.escape_yield.filter(|&l| kept > l) {
        enc.aborted = Some(Error::Unknown(format!(
            "narrowed hb-cycle query: {kept} escape edges may happen (over {limit}); \
             left to the plain query"
        )));
    }
    let mut clause = vec![!act];
    for (&(s, out), k) in cands.iter().zip(keep) {
        if k {
            let esc = enc.cnf.and(s, out);
            clause.push(esc);
        }
    }
    enc.cnf.clause(&clause);
    Some(Escape {
        axiom: name,
        candidates: found,
        static_ordered,
        kept: clause.len() - 1,
    })
}

/// What [`encode_escape`] built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Escape {
    /// The name of the `acyclic` axiom whose relation `X` the escape
    /// edge leaves.
    pub axiom: String,
    /// Candidate escape edges (hb edges that may lie outside `X`).
    pub candidates: usize,
    /// Candidates the CFG pre-filter dropped ([`escape_cfg`]: ordered by
    /// the axiom's relation on every control path; no solver call).
    pub static_ordered: usize,
    /// Those left after the probe ([`Encoder::escape_probe`]): the
    /// clause's length without its activation literal; 0 = no hb cycle.
    pub kept: usize,
}

/// Which candidate escape edges (`cands`: the successor literal and the
/// literal "a →hb b and (a, b) is outside the axiom's relation") some
/// execution realizes, within the bound; one flag per candidate, `true`
/// = keep it.
///
/// Two phases, each a loop of solves of the encoder's own solver under a
/// fresh activation literal for "one of the still unknown candidates is
/// realized": every candidate true in the answer may be realized, and
/// the question is asked again for the rest, until the solver answers no
/// (no execution realizes the rest: they are dropped) or the rounds run
/// out (the rest are kept). First over the clauses alone
/// ([`Encoder::solve_boolean`], any candidate execution, consistent or
/// not; at most `rounds` solves, cheap), then once with the model
/// checked ([`Encoder::solve`]) for what the first phase kept. Dropping
/// an edge no consistent execution realizes keeps the query's answer: a
/// shortest hb cycle of a consistent execution has an escape edge, which
/// that execution realizes. On the fenced loops of the Trencher corpus
/// every program-order write → read pair has a fence (or a locked
/// instruction) between it on every path, so the clause becomes empty
/// and `robust` answers after the probe (docs/models.md).
/// `rounds == 0`: no probe, everything kept. The encoder's deadline
/// stops a phase (the rest kept).
fn feasible_escapes(enc: &mut Encoder, cands: &[(Lit, Lit)], rounds: usize) -> Vec<bool> {
    let start = Instant::now();
    let deadline = enc.limit.unwrap_or(Deadline(None));
    let all: Vec<usize> = (0..cands.len()).collect();
    let mut stats = [0usize; 4];
    // Phase 1: the clauses alone (cheap solves, no model checks).
    let (maybe, r1) = if rounds == 0 {
        (all, 0)
    } else {
        harvest(enc, cands, all, deadline, rounds, true)
    };
    let over = enc.escape_yield.is_some_and(|l| maybe.len() > l);
    stats[0] = maybe.len();
    stats[1] = r1;
    // Phase 2: consistent executions only, a few rounds (each is a search
    // for a consistent execution, as costly as the query's own).
    let (keep_idx, r2) = if rounds == 0 || maybe.is_empty() || over {
        (maybe, 0)
    } else {
        let rounds2 = enc.switches.escape_rounds;
        harvest(enc, cands, maybe, deadline, rounds2, false)
    };
    stats[2] = keep_idx.len();
    stats[3] = r2;
    let mut keep = vec![false; cands.len()];
    for i in keep_idx {
        keep[i] = true;
    }
    if enc.switches.cdclt_debug {
        eprintln!(
            "escape probe: {} candidates, {} after {} boolean rounds, {} kept after {} consistent rounds, {:.3} s",
            cands.len(),
            stats[0],
            stats[1],
            stats[2],
            stats[3],
            start.elapsed().as_secs_f64()
        );
    }
    keep
}

/// One phase of [`feasible_escapes`]: asks at most `rounds` times whether
/// one of `unknown` is realized (by any assignment of the clauses when
/// `boolean`, else by a consistent execution); returns the candidates
/// that may be realized (those seen in an answer, and all still unknown
/// when the rounds or the deadline ran out) and the number of rounds.
/// Stops early once more than [`Encoder::escape_yield`] were seen (the
/// narrowed query then gives up anyway).
fn harvest(
    enc: &mut Encoder,
    cands: &[(Lit, Lit)],
    mut unknown: Vec<usize>,
    deadline: Deadline,
    rounds: usize,
    boolean: bool,
) -> (Vec<usize>, usize) {
    let mut seen = Vec::new();
    let mut n = 0;
    let enough = enc.escape_yield.unwrap_or(usize::MAX);
    while !unknown.is_empty() && n < rounds && !deadline.passed() && seen.len() <= enough {
        n += 1;
        let probe = enc.cnf.fresh();
        let mut clause = vec![!probe];
        clause.extend(unknown.iter().map(|&i| cands[i].1));
        enc.cnf.clause(&clause);
        let r = if boolean {
            enc.solve_boolean(&[probe], deadline)
        } else {
            enc.solve(&[probe], deadline)
        };
        enc.cnf.assert(!probe);
        match r {
            Ok(true) => {
                let before = unknown.len();
                unknown.retain(|&i| {
                    let hit = enc.cnf.value(cands[i].1);
                    if hit {
                        seen.push(i);
                    }
                    !hit
                });
                if unknown.len() == before {
                    // The model names none (cannot happen with an exact
                    // model): stop rather than loop.
                    break;
                }
            }
            Ok(false) => unknown.clear(),
            Err(_) => break,
        }
    }
    seen.extend(unknown);
    seen.sort_unstable();
    (seen, n)
}
