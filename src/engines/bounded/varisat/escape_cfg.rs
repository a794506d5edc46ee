//! CFG pre-filter of the escape candidates of the narrowed hb-cycle query
//! ([`super::eager::encode_escape`]): which program-order pairs of a
//! thread are in the chosen axiom's relation `X` (through `X+`) on every
//! control path between them, decided on the thread's control-flow graph
//! and the model itself, with no solver call.
//!
//! An escape candidate (a, b) within a thread, a po-before b, can be
//! dropped when (a, b) ∈ X+ in every execution where both happen: a
//! shortest hb cycle of a consistent execution has an edge outside X+
//! (else X would be cyclic), so that edge is never a dropped one. Under
//! TSO these are the Shasha–Snir delays that cannot happen: a write →
//! read pair with an `mfence` or a locked instruction on every path
//! between them (thesis 003 §2.4.2, Table 2.2: the store buffer is
//! drained by `mfence`, `lock` and `unlock`; §5.2–5.3 for PSO's
//! `membar` masks). The table of which instructions order which pairs is
//! not written here: it is the model's, evaluated on small executions.
//!
//! How. Per thread, per pair of candidate instructions p (at a's step i)
//! and q (at b's step j), the control paths p.to → q.from of exactly
//! j − i − 1 instructions are summarized by the set of *ordering
//! instructions* on them (every instruction whose slots are not plain
//! reads or writes: fences, locked/atomic instructions, annotated or
//! exclusive accesses; at most [`MAX_CLASSES`] distinct shapes per
//! thread). For each summary, a small execution is built: p's events,
//! one copy of each ordering instruction's events, q's events, program
//! order p → intermediates → q (the intermediates unordered among
//! themselves), loc only where it must hold (same event, both on the lock
//! cell, or the same constant address), no rf, co, fr or dependencies; the model's relation of the
//! axiom is evaluated on it with [`crate::cat::eval`] and (a, b) must be
//! in its transitive closure. Data guards are ignored (every control
//! path counts), so this over-approximates the paths.
//!
//! Soundness rests on monotonicity ([`monotone`]): the small execution's
//! sets equal the real ones on its events and its relations are subsets
//! of the real ones, so a relation built from them by union,
//! intersection, sequence, closures, inverse, `fencerel` and the left
//! side of `\` can only be smaller; subtracted and complemented parts
//! (`\ (W * R)`) must depend on the pair alone (sets, products of sets,
//! id, int, ext, univ), where the small execution is exact. A model
//! whose axiom does not pass the check gets no pre-filter (all kept).

use super::unroll::{slot_shapes, SlotShape};
use super::Encoder;
use crate::cat::base::{BaseRel, BaseSet, Builtin};
use crate::cat::eval::{Base, Bits, Evaluator, Mat};
use crate::cat::{ExprKind, Model, Node, Stmt};
use crate::collections::{HashMap, HashSet};

/// Most distinct ordering-instruction shapes a thread may have for the
/// pre-filter (path summaries are bit masks over them); a thread with
/// more keeps all its candidates.
pub const MAX_CLASSES: usize = 16;

/// For each pair (a, b) of event ids: `true` when (a, b) is in the
/// transitive closure of the relation of the `acyclic` axiom at
/// statement `stmt` of `model` in every execution where both happen
/// (same thread, a po-before b, checked on the control-flow graph as
/// the module says); `false` = unknown (keep the candidate). All `false`
/// when the axiom's expression is not [`monotone`].
pub fn always_ordered(
    enc: &Encoder,
    model: &Model,
    stmt: usize,
    pairs: &[(usize, usize)],
) -> Vec<bool> {
    // The control-path summaries are evaluated without herd's initial
    // writes: no claim for a model that needs them.
    if model.init_writes.is_some() {
        return vec![false; pairs.len()];
    }
    match Orderer::new(enc, model, stmt) {
        Some(mut o) => pairs.iter().map(|&(a, b)| o.ordered(a, b)).collect(),
        None => vec![false; pairs.len()],
    }
}

/// The per-pair decision of [`always_ordered`] for one axiom, with the
/// threads' control-flow summaries built on demand. Past the encoder's
/// resource limit every answer is `false` (unknown: the candidate is
/// kept, which is always sound), so a limit stops the pre-filter at once.
struct Orderer<'e, 'a> {
    enc: &'e Encoder<'a>,
    model: &'e Model,
    stmt: usize,
    threads: HashMap<u32, Option<ThreadPaths>>,
}

impl<'e, 'a> Orderer<'e, 'a> {
    /// `None` when statement `stmt` is not an axiom or its relation is not
    /// [`monotone`].
    fn new(enc: &'e Encoder<'a>, model: &'e Model, stmt: usize) -> Option<Orderer<'e, 'a>> {
        let Some(Stmt::Check { expr, .. }) = model.stmts.get(stmt) else {
            return None;
        };
        monotone(model, expr).then(|| Orderer {
            enc,
            model,
            stmt,
            threads: HashMap::default(),
        })
    }

    /// Whether (a, b) is in the axiom's X+ in every execution where both
    /// happen ([`always_ordered`]); `false` = unknown.
    fn ordered(&mut self, a: usize, b: usize) -> bool {
        let (enc, model, stmt) = (self.enc, self.model, self.stmt);
        if enc.limit.is_some_and(|d| d.check().is_err()) {
            return false;
        }
        let ev = &enc.un.events;
        let (ea, eb) = (&ev[a], &ev[b]);
        if ea.thread != eb.thread || ea.pop || eb.pop || a == b {
            return false;
        }
        let backward = (ea.step, ea.slot) > (eb.step, eb.slot);
        let tp = self
            .threads
            .entry(ea.thread.0)
            .or_insert_with(|| ThreadPaths::new(enc, ea.thread.0 as usize, enc.un.bound as usize));
        let Some(tp) = tp else {
            return false;
        };
        let (sa, sb) = (ea.slot as usize, eb.slot as usize);
        if backward {
            // b po-before a: the hb edge is rf, co or fr within the
            // thread; drop it when that alone breaks an axiom.
            let all = (ea.instrs.iter()).all(|&(p, _)| {
                (eb.instrs.iter()).all(|&(q, _)| {
                    (ea.step == eb.step && p != q) || tp.backward_inconsistent(model, p, sa, q, sb)
                })
            });
            if !all && enc.switches.escape_cfg_debug {
                eprintln!(
                    "kept back t{} {}.{} {:?} -> {}.{} {:?}",
                    ea.thread.0, ea.step, ea.slot, ea.instrs, eb.step, eb.slot, eb.instrs
                );
            }
            return all;
        }
        let all = (ea.instrs.iter()).all(|&(p, _)| {
            (eb.instrs.iter()).all(|&(q, _)| {
                if ea.step == eb.step {
                    return p != q || tp.tiny_in_x(model, stmt, p, sa, None, sb);
                }
                let d = (eb.step - ea.step - 1) as usize;
                (tp.masks(p, d, q).into_iter())
                    .all(|m| tp.tiny_in_x(model, stmt, p, sa, Some((m, q)), sb))
            })
        });
        if !all && enc.switches.escape_cfg_debug {
            eprintln!(
                "kept t{} {}.{} {:?} -> {}.{} {:?}",
                ea.thread.0,
                ea.step,
                ea.slot,
                ea.instrs.iter().map(|x| x.0).collect::<Vec<_>>(),
                eb.step,
                eb.slot,
                eb.instrs.iter().map(|x| x.0).collect::<Vec<_>>()
            );
        }
        all
    }
}

/// A proof without solving that no execution consistent with `model` has
/// a cyclic hb (po ∪ rf ∪ co ∪ fr over memory events) within the
/// unrolling: some `acyclic` axiom's relation X is [`monotone`],
/// contains rf, co and fr between threads ([`covers_ext_com`]:
/// every hb edge between threads is in X) and every pair of events of one
/// thread that may lie on an hb cycle together (one component of the
/// may-hb graph, `Analysis::hb_components`) is [`always_ordered`]: in X+
/// when po-forward, no consistent edge when backward. Then every hb cycle
/// of a consistent execution would be a cycle of X+. Returns the axiom's
/// name; `None` = not shown (solve). Not for PGAS programs (their hb is
/// taken on the trace).
pub fn statically_acyclic(enc: &Encoder, model: &Model) -> Option<String> {
    if enc.prog.nodes.is_some() || enc.pgas.is_some() || model.init_writes.is_some() {
        return None;
    }
    let comp = enc.analysis.hb_components();
    let ev = &enc.un.events;
    let mut pairs = Vec::new();
    for a in 0..ev.len() {
        for b in 0..ev.len() {
            if a != b && ev[a].thread == ev[b].thread && comp[a].is_some() && comp[a] == comp[b] {
                pairs.push((a, b));
            }
        }
    }
    model.stmts.iter().enumerate().find_map(|(i, st)| match st {
        Stmt::Check {
            kind: crate::cat::AxiomKind::Acyclic,
            expr,
            name,
            ..
        } if covers_ext_com(model, expr)
            && Orderer::new(enc, model, i)
                .is_some_and(|mut o| pairs.iter().all(|&(a, b)| o.ordered(a, b))) =>
        {
            Some(name.clone())
        }
        _ => None,
    })
}

/// Per number of instructions d: the (control state, class mask) pairs
/// reachable in exactly d instructions.
type Layers = Vec<HashSet<(u32, u32)>>;

/// A small execution: (p, slot of a, the mask and q when not the same
/// instruction, slot of b).
type TinyKey = (usize, usize, Option<(u32, usize)>, usize);

/// One thread's control-flow graph with its ordering instructions.
struct ThreadPaths {
    /// Per instruction: (from, to) states.
    edges: Vec<(u32, u32)>,
    /// Per state: the instructions leaving it.
    out: HashMap<u32, Vec<usize>>,
    /// Per instruction: its slots' shapes.
    shapes: Vec<Vec<SlotShape>>,
    /// Per instruction: its ordering class bit, if it is one.
    class: Vec<Option<u32>>,
    /// Per class bit: an instruction of that class.
    rep: Vec<usize>,
    /// Per start instruction p: per number of instructions d, the
    /// (state, class mask) pairs reachable from p.to.
    layers: std::cell::RefCell<HashMap<usize, Layers>>,
    /// Tiny-execution answers by (p, slot a, q and mask, slot b).
    memo: std::cell::RefCell<HashMap<TinyKey, bool>>,
    bound: usize,
}

impl ThreadPaths {
    /// None when the thread has PGAS pops or too many ordering shapes.
    fn new(enc: &Encoder, t: usize, bound: usize) -> Option<ThreadPaths> {
        let th = enc.prog.threads.get(t)?;
        let shapes = slot_shapes(th, enc.prog.nodes)?;
        let mut keys: Vec<&Vec<SlotShape>> = Vec::new();
        let mut class = Vec::new();
        let mut rep = Vec::new();
        for (i, s) in shapes.iter().enumerate() {
            if s.iter().all(plain) {
                class.push(None);
                continue;
            }
            let k = match keys.iter().position(|k| *k == s) {
                Some(k) => k,
                None => {
                    keys.push(s);
                    rep.push(i);
                    keys.len() - 1
                }
            };
            class.push(Some(k as u32));
        }
        if keys.len() > MAX_CLASSES {
            return None;
        }
        let mut out: HashMap<u32, Vec<usize>> = HashMap::default();
        let edges: Vec<(u32, u32)> = (th.instrs.iter())
            .map(|ins| (ins.from.0, ins.to.0))
            .collect();
        for (i, &(f, _)) in edges.iter().enumerate() {
            out.entry(f).or_default().push(i);
        }
        Some(ThreadPaths {
            edges,
            out,
            shapes,
            class,
            rep,
            layers: Default::default(),
            memo: Default::default(),
            bound,
        })
    }

    /// The class masks of the paths of exactly `d` instructions from
    /// p's target state to q's source state.
    fn masks(&self, p: usize, d: usize, q: usize) -> Vec<u32> {
        let mut layers = self.layers.borrow_mut();
        let ls = layers.entry(p).or_insert_with(|| {
            let mut ls: Layers = vec![[(self.edges[p].1, 0)].into_iter().collect()];
            for _ in 0..self.bound {
                let mut next = HashSet::default();
                for &(s, m) in ls.last().unwrap() {
                    for &i in self.out.get(&s).into_iter().flatten() {
                        let bit = self.class[i].map_or(0, |c| 1 << c);
                        next.insert((self.edges[i].1, m | bit));
                    }
                }
                ls.push(next);
            }
            ls
        });
        let from = self.edges[q].0;
        let mut ms: Vec<u32> = (ls.get(d).into_iter().flatten())
            .filter(|&&(s, _)| s == from)
            .map(|&(_, m)| m)
            .collect();
        ms.sort_unstable();
        ms.dedup();
        ms
    }

    /// Whether slot `sa` of p and slot `sb` of q are related by the
    /// closure of the axiom's relation in the small execution of p, the
    /// ordering instructions of `mask`, q (`None`: the same instruction
    /// p, one step).
    fn tiny_in_x(
        &self,
        model: &Model,
        stmt: usize,
        p: usize,
        sa: usize,
        mid: Option<(u32, usize)>,
        sb: usize,
    ) -> bool {
        let key = (p, sa, mid, sb);
        if let Some(&v) = self.memo.borrow().get(&key) {
            return v;
        }
        let v = self.eval_tiny(model, stmt, p, sa, mid, sb);
        self.memo.borrow_mut().insert(key, v);
        v
    }

    fn eval_tiny(
        &self,
        model: &Model,
        stmt: usize,
        p: usize,
        sa: usize,
        mid: Option<(u32, usize)>,
        sb: usize,
    ) -> bool {
        // Events: (shape, block); block 0 = p, 1.. = intermediates, last = q.
        let mut evs: Vec<(&SlotShape, usize)> = Vec::new();
        let pa = self.shapes[p].get(sa);
        let ia = evs.len() + sa;
        evs.extend(self.shapes[p].iter().map(|s| (s, 0)));
        let (ib, qshape) = match mid {
            None => (sb, self.shapes[p].get(sb)),
            Some((mask, q)) => {
                let mut blk = 1;
                for (c, &r) in self.rep.iter().enumerate() {
                    if mask & (1 << c) != 0 {
                        // A store-conditional may fail (no event): left out.
                        evs.extend(self.shapes[r].iter().filter(|s| !s.cond).map(|s| (s, blk)));
                        blk += 1;
                    }
                }
                let ib = evs.len() + sb;
                evs.extend(self.shapes[q].iter().map(|s| (s, usize::MAX)));
                (ib, self.shapes[q].get(sb))
            }
        };
        let (Some(pa), Some(qb)) = (pa, qshape) else {
            return false;
        };
        // hb relates memory accesses only (`Encoder::hb_lit`): with a
        // fence in either place there is no edge to escape. (A
        // store-conditional on the hb edge is a write: it succeeded.)
        if !(pa.read || pa.write) || !(qb.read || qb.write) {
            return true;
        }
        // Another store-conditional slot of p or q may be no write: the
        // small execution would not be a lower bound.
        let q = mid.map_or(p, |m| m.1);
        let other_cond = |i: usize, s: usize| {
            (self.shapes[i].iter().enumerate()).any(|(k, sh)| k != s && sh.cond)
        };
        if other_cond(p, sa) || other_cond(q, sb) {
            return false;
        }
        let n = evs.len();
        let mut po = Mat::new(n);
        let mut loc = Mat::new(n);
        for (x, &(sx, bx)) in evs.iter().enumerate() {
            for (y, &(sy, by)) in evs.iter().enumerate() {
                let ordered = if bx == by {
                    x < y
                } else {
                    bx < by && (bx == 0 || by == usize::MAX)
                };
                if ordered {
                    po.set(x, y);
                }
                let access = |s: &SlotShape| s.read || s.write;
                let same =
                    x == y || (sx.lock && sy.lock) || (sx.addr.is_some() && sx.addr == sy.addr);
                if access(sx) && access(sy) && same {
                    loc.set(x, y);
                }
            }
        }
        let tiny = Tiny {
            shapes: evs.iter().map(|e| e.0).collect(),
            po,
            loc,
            extra: None,
        };
        let mut ev = Evaluator::new(model, tiny);
        ev.acyclic_value(stmt).is_some_and(|x| x.plus().get(ia, ib))
    }
}

impl ThreadPaths {
    /// Whether an internal com edge from slot `sa` of p (a) back to the
    /// po-earlier slot `sb` of q (b) — rf when a writes and b reads, co
    /// when both write, fr when a reads and b writes; none between two
    /// reads — makes the two-event execution {b, a} (po b → a, same
    /// location) break a [`monotone`] `acyclic` axiom of the model (e.g.
    /// `po-loc | com`): then no consistent execution has that edge, the
    /// real one's relations being supersets. p == q: the same
    /// instruction (one step).
    fn backward_inconsistent(
        &self,
        model: &Model,
        p: usize,
        sa: usize,
        q: usize,
        sb: usize,
    ) -> bool {
        let (Some(sha), Some(shb)) = (self.shapes[p].get(sa), self.shapes[q].get(sb)) else {
            return false;
        };
        let rel = match (sha.write, shb.write, sha.read, shb.read) {
            (true, false, _, true) => BaseRel::Rf,
            (true, true, _, _) => BaseRel::Co,
            (false, true, true, _) => BaseRel::Fr,
            // Two reads, or a fence: no hb edge back at all.
            _ => return true,
        };
        // Events: 0 = b, 1 = a.
        let mut po = Mat::new(2);
        po.set(0, 1);
        let mut loc = Mat::new(2);
        (0..2).for_each(|x| (0..2).for_each(|y| loc.set(x, y)));
        let mut com = Mat::new(2);
        com.set(1, 0);
        let tiny = Tiny {
            shapes: vec![shb, sha],
            po,
            loc,
            extra: Some((rel, com)),
        };
        let mut ev = Evaluator::new(model, tiny);
        model.stmts.iter().enumerate().any(|(i, st)| match st {
            Stmt::Check {
                kind: crate::cat::AxiomKind::Acyclic,
                expr,
                ..
            } if monotone(model, expr) => ev.acyclic_value(i).is_some_and(|m| {
                let c = m.plus();
                (0..2).any(|x| c.get(x, x))
            }),
            _ => false,
        })
    }
}

/// A slot that is a plain read or write (not ordering anything itself).
fn plain(s: &SlotShape) -> bool {
    (s.read != s.write) && !s.cond && !s.atomic && !s.lock && s.sets.is_empty()
}

/// The small single-thread execution of [`ThreadPaths::eval_tiny`].
struct Tiny<'s> {
    shapes: Vec<&'s SlotShape>,
    po: Mat,
    loc: Mat,
    /// One more base relation's pairs (a com edge), all others empty.
    extra: Option<(BaseRel, Mat)>,
}

impl Base for Tiny<'_> {
    type Fact = bool;

    fn n(&self) -> usize {
        self.shapes.len()
    }

    fn executed(&mut self) -> Bits {
        let mut b = Bits::new(self.shapes.len());
        (0..self.shapes.len()).for_each(|e| b.set(e));
        b
    }

    fn set(&mut self, s: BaseSet) -> Bits {
        let mut b = Bits::new(self.shapes.len());
        for (e, sh) in self.shapes.iter().enumerate() {
            let inside = match s {
                BaseSet::R => sh.read,
                BaseSet::W => sh.write,
                BaseSet::M => sh.read || sh.write,
                BaseSet::A => sh.atomic,
                BaseSet::IW => false,
                _ => sh.sets.contains(&s.name()),
            };
            if inside {
                b.set(e);
            }
        }
        b
    }

    fn rel(&mut self, r: BaseRel) -> Mat {
        let n = self.shapes.len();
        match r {
            BaseRel::Po => self.po.clone(),
            BaseRel::Loc => self.loc.clone(),
            BaseRel::Int | BaseRel::Ext | BaseRel::Id | BaseRel::Univ => {
                let mut m = Mat::new(n);
                for a in 0..n {
                    for b in 0..n {
                        if r.static_pair(a == b, true) == Some(true) {
                            m.set(a, b);
                        }
                    }
                }
                m
            }
            _ => match &self.extra {
                Some((x, m)) if *x == r => m.clone(),
                _ => Mat::new(n),
            },
        }
    }
}

/// Whether the pre-filter may use `expr` (an axiom's relation): every
/// base relation in a subtracted or complemented position is one that
/// depends on the pair alone (id, int, ext, univ), and no sequence,
/// closure, `domain`, `range` or `fencerel` is there; names are followed
/// through `let` (a `let rec` only in a positive position, as a least
/// fixed point of a monotone body). Depth-limited.
pub fn monotone(model: &Model, expr: &Node) -> bool {
    let mut seen = HashSet::default();
    mono(model, expr, true, &mut seen, 0)
}

fn mono(
    model: &Model,
    n: &Node,
    pos: bool,
    seen: &mut HashSet<(String, bool)>,
    depth: usize,
) -> bool {
    if depth > 256 {
        return false;
    }
    let d = depth + 1;
    use ExprKind::*;
    match &n.kind {
        Name(k) => {
            if !seen.insert((k.clone(), pos)) {
                return true;
            }
            let Some(&(si, bi)) = model.defs.get(k) else {
                return false;
            };
            match model.stmts.get(si) {
                Some(Stmt::Let { rec, binds }) if pos || !*rec => binds
                    .get(bi)
                    .is_some_and(|(_, e)| mono(model, e, pos, seen, d)),
                _ => false,
            }
        }
        // The small execution has no observed access (its addresses are
        // not resolved): Observed is only a lower bound there.
        Base(Builtin::Set(s)) => pos || *s != BaseSet::Observed,
        Empty => true,
        Base(Builtin::Rel(r)) => {
            pos || matches!(r, BaseRel::Id | BaseRel::Int | BaseRel::Ext | BaseRel::Univ)
        }
        Union(x, y) | Inter(x, y) | Cart(x, y) => {
            mono(model, x, pos, seen, d) && mono(model, y, pos, seen, d)
        }
        Seq(x, y) => pos && mono(model, x, pos, seen, d) && mono(model, y, pos, seen, d),
        Diff(x, y) => mono(model, x, pos, seen, d) && mono(model, y, !pos, seen, d),
        Compl(x) => mono(model, x, !pos, seen, d),
        Opt(x) | Inv(x) | Bracket(x) => mono(model, x, pos, seen, d),
        Plus(x) | Star(x) | Domain(x) | Range(x) | FenceRel(x) => {
            pos && mono(model, x, pos, seen, d)
        }
    }
}

/// True when `expr` contains, as members of a union (through non-recursive
/// `let` names), each of rf, co and fr either whole or restricted to
/// `ext` (`rfe`, `coe`, `fre`): then every hb edge between two threads is
/// in the relation. Depth-limited like the model's other walks.
pub fn covers_ext_com(model: &Model, expr: &Node) -> bool {
    let defs = model.let_defs();
    // A name or base relation as a base relation (through `let` names).
    let resolve = |n: &Node| -> Option<BaseRel> {
        let mut n = n;
        for _ in 0..64 {
            match &n.kind {
                ExprKind::Base(Builtin::Rel(r)) => return Some(*r),
                ExprKind::Name(s) => n = defs.get(s.as_str())?,
                _ => return None,
            }
        }
        None
    };
    // The base relations `r` that `expr` contains as union members, whole
    // or as `r & ext`.
    let mut found = Vec::new();
    crate::cat::union_members(expr, &defs, &mut |m| match &m.kind {
        ExprKind::Base(Builtin::Rel(r)) => found.push(*r),
        ExprKind::Inter(a, b) => {
            if let (Some(x), Some(y)) = (resolve(a), resolve(b)) {
                if y == BaseRel::Ext {
                    found.push(x);
                } else if x == BaseRel::Ext {
                    found.push(y);
                }
            }
        }
        _ => {}
    });
    [BaseRel::Rf, BaseRel::Co, BaseRel::Fr]
        .iter()
        .all(|r| found.contains(r))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn axiom(src: &str) -> (Model, usize) {
        let m =
            crate::cat::parse::parse_model(&crate::diag::SourceFile::new("t.cat", src)).unwrap();
        let i = (m.stmts.iter())
            .rposition(|s| matches!(s, Stmt::Check { .. }))
            .unwrap();
        (m, i)
    }

    fn expr(m: &Model, i: usize) -> &Node {
        match &m.stmts[i] {
            Stmt::Check { expr, .. } => expr,
            _ => unreachable!(),
        }
    }

    #[test]
    fn monotonicity_check_accepts_the_shipped_orders_and_rejects_subtracted_order() {
        for name in ["tso", "pso", "sc"] {
            let m = crate::cat::builtin(name).unwrap();
            let i = (m.stmts.iter())
                .position(|s| matches!(s, Stmt::Check { .. }))
                .unwrap();
            assert!(monotone(&m, expr(&m, i)), "{name}");
        }
        // A subtracted fence order: more fences, fewer pairs.
        let (m, i) = axiom("let x = po \\ fencerel(MFENCE)\nacyclic x | rfe | co | fr");
        assert!(!monotone(&m, expr(&m, i)));
        let (m, i) = axiom("acyclic ~(po; [MFENCE]; po) & po");
        assert!(!monotone(&m, expr(&m, i)));
        // A pair-local subtraction is fine.
        let (m, i) = axiom("acyclic (po \\ (W * R)) | ~(W * W) & rfe");
        assert!(monotone(&m, expr(&m, i)));
        let (m, i) = axiom("acyclic po \\ loc");
        assert!(!monotone(&m, expr(&m, i)));
    }
}
