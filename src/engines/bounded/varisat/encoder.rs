//! The bounded engine: encodes an unrolled program and a model for the SAT
//! solver and answers `reach`, `robust` and litmus outcome queries.
//!
//! * Eager part (CNF): control flow and dataflow of the unrolling
//!   ([`unroll`]), `rf` (each executed read reads from exactly one write to
//!   the same address with the same value, or from the initial memory),
//!   `co` (one orientation literal per pair of writes that may share an
//!   address).
//! * Lazy part: the model's axioms. A candidate from the solver is checked
//!   concretely ([`crate::cat::eval`]); a failed axiom yields a clause
//!   (the negated explanation) and the solver runs again, incrementally.
//!   `co` transitivity is checked the same way (a co cycle is blocked).
//!   docs/models.md explains the choice and its measurements.
//!
//! Built-in restriction (all shipped models imply it, SC-per-location): a
//! read never reads from a po-later write of its own thread, and `co`
//! agrees with `po` on writes of one thread.

use super::analysis::Analysis;
use super::bv::Bv;
use super::cnf::Cnf;
use super::tso_witness::{self, TsoWitness};
use super::unroll::{self, unroll, UnrollOpts, Unrolled};
use super::{extract, lemmas, pgas};
use crate::cat::base::{BaseRel, BaseSet};
use crate::cat::eval::{Base, Bits, Evaluator, Mat};
use crate::cat::init::{InitWrites, Located};
use crate::cat::Model;
use crate::collections::HashMap;
use crate::diag::Error;
use crate::engines::bounded::{Deadline, EventInfo, Execution, Stats};
use crate::engines::Switches;
use crate::program::{GExpr, GVar, GoalAt, Program, ThreadId};
use std::rc::Rc;
use std::time::Instant;
use varisat::Lit;

/// Literals stating that the bit-vector `bv` equals `v` (two's complement;
/// `v` must fit in `bv.len()` bits as a signed or an unsigned number).
fn bits_equal(bv: &[Lit], v: i64) -> Result<Vec<Lit>, String> {
    let w = bv.len() as u32;
    if w == 0 {
        return if v == 0 {
            Ok(Vec::new())
        } else {
            Err(format!("{v} does not fit in 0 bits"))
        };
    }
    if w < 64 && (v >> w) != 0 && (v >> (w - 1)) != -1 {
        return Err(format!("{v} does not fit in {w} bits"));
    }
    Ok(bv
        .iter()
        .enumerate()
        .map(|(i, &b)| if (v >> i.min(63)) & 1 == 1 { b } else { !b })
        .collect())
}

/// The encoding of one program under one model and bound.
pub struct Encoder<'a> {
    /// The program.
    pub prog: &'a Program,
    /// The model.
    pub model: &'a Model,
    /// The model as the user gave it when [`Encoder::model`] is its
    /// contraction over the program's indivisible sections
    /// ([`crate::engines::bounded::Query::encoded_model`]): the static
    /// acyclicity proof reads its axioms (each contracted axiom implies
    /// the plain one, so a proof from them holds for every execution the
    /// encoding admits). `None`: the same as [`Encoder::model`].
    pub plain_model: Option<&'a Model>,
    /// The CNF.
    pub cnf: Cnf,
    /// The unrolling.
    pub un: Unrolled,
    /// The static relation analysis of the unrolling: literals exist only
    /// for its may-pairs.
    pub analysis: Analysis,
    /// rf literal by (write, read).
    pub rf: HashMap<(usize, usize), Lit>,
    /// Per read: its rf sources (write, literal), built on first use
    /// from [`Encoder::rf`] once that is complete.
    rf_by_read: Option<Vec<Vec<(usize, Lit)>>>,
    /// Per read: the "reads the initial value" literal.
    pub rf_init: Vec<Option<Lit>>,
    /// co orientation: (a, b) with a < b → "a co-before b" (if both are writes to one address).
    pub(super) co_var: HashMap<(usize, usize), Lit>,
    gates: HashMap<(u8, usize, usize), Lit>,
    pub(super) deps: HashMap<(u8, usize, usize), Lit>,
    pub(super) robust_act: Option<Lit>,
    /// The axiom by which `escape_cfg::statically_acyclic` showed, before
    /// solving, that no consistent execution has an hb cycle (the hb-cycle
    /// query is then the constant false).
    pub static_robust: Option<String>,
    /// The hb-cycle constraints' successor literals (a, b, "b is a's
    /// successor on the cycle"), once [`Encoder::robust_act`] built them
    /// (empty for PGAS).
    pub robust_succ: Vec<(usize, usize, Lit)>,
    /// With indivisible sections, the hb-cycle constraints' hand-overs
    /// (a, x, "a is on the cycle and leaves it by x, another event of its
    /// section"), once [`Encoder::robust_act`] built them: the cycle's
    /// steps that are no hb edge (`eager::encode_escape` counts each as
    /// an escape).
    pub robust_handover: Vec<(usize, usize, Lit)>,
    /// Narrow the hb-cycle constraints to shortest cycles (at most two
    /// events per thread; with `eager::encode_escape`, an edge outside
    /// an `acyclic` axiom's relation). The answer is the same either
    /// way (docs/models.md); off by default (it made some checks much
    /// faster and others much slower, docs/performance.md), on with
    /// [`Switches::shortest_cycles`] or by setting it before
    /// [`Encoder::robust_act`].
    pub shortest_cycles: bool,
    /// Solves the escape-edge probe of the narrowed query may spend on the
    /// clauses alone (`eager::encode_escape`; 0 = no probe): from
    /// [`Switches::escape_probe`], default 32.
    pub escape_probe: usize,
    /// Drop the escape candidates the model orders on every control path
    /// before the probe (`escape_cfg`, the CFG pre-filter): on unless
    /// [`Switches::escape_cfg`] is off.
    pub escape_cfg: bool,
    /// The developer switches of this encoding ([`Encoder::set_switches`];
    /// the default until then): the three fields above start from them,
    /// the rest (debug output, probe rounds, the TSO-witness restriction)
    /// are read where they apply.
    pub switches: Switches,
    /// Give up the narrowed query (the encoding answers unknown,
    /// [`Encoder::aborted`]) when more escape edges than this may be
    /// realized (found by the probe's first phase, or left when it
    /// stops): the raced narrowed query leaves such programs to the
    /// plain one (`queries::check_race`). `None`: never.
    pub escape_yield: Option<usize>,
    /// The TSO-witness restriction of the hb-cycle query (one attacker,
    /// thesis 003 §6.1; [`tso_witness`]), once
    /// [`Encoder::enable_tso_witness`] built it.
    pub tso_witness: Option<TsoWitness>,
    final_mem: HashMap<i64, Bv>,
    /// Statistics.
    pub stats: Stats,
    /// Axioms encoded eagerly (the rest are checked lazily).
    pub eager: Vec<String>,
    /// PGAS relations (`op`, `fifo`, `bar`) when the program is SPMD.
    pub pgas: Option<pgas::PgasEnc>,
    /// `stxn`: per ordered pair of different events of one thread that
    /// may belong to one indivisible section
    /// ([`Program::indivisible_sections`]: one atomic step over several
    /// locations, or a lock section), the literal "both execute, in one
    /// section". Built only when the model reads `stxn` or the program
    /// has such a section.
    stxn: HashMap<(usize, usize), Lit>,
    /// The hb-cycle query contracts the indivisible sections: some section
    /// may hold more than one memory event
    /// ([`Program::sections_hold_one_access`] is false) and [`Encoder::stxn`]
    /// is not empty.
    contract_hb: bool,
    /// Per event that may be in a lock section its thread never leaves
    /// (it stops holding the lock): the literal "it is".
    open_sections: Vec<(usize, Lit)>,
    /// Resource limits of the encoding (`None`: unchecked).
    pub limit: Option<Deadline>,
    /// The limit that stopped the encoding, if any (then it is incomplete
    /// and [`Encoder::solve`] answers with this error).
    pub aborted: Option<Error>,
    /// Another solver that answers [`Encoder::solve`] instead of the lazy
    /// loop (the CDCL(T) backend, `bounded::cdclt`).
    pub external: Option<Box<dyn ExternalSolve + 'a>>,
    /// The refinement lemmas, in order, when logging them
    /// ([`Encoder::log_lemmas`]; `None`: not logged).
    pub(super) lemma_log: Option<Vec<lemmas::Lemma>>,
    /// The static may values of the model's bindings over this
    /// encoding, with the initial writes' locations when the model has
    /// them ([`Encoder::static_may`]), computed at the first refutation;
    /// `Some(None)`: not known.
    pub(super) static_may: Option<Option<Rc<StaticMayOf>>>,
    /// Set when the enumeration found that no flag of the model holds on
    /// any candidate (with its root propagation), for the solver that
    /// takes over above its budget.
    pub(super) flags_never: bool,
}

/// A solver that answers [`Encoder::solve`] for an encoding recorded with
/// [`Cnf::recording`]: on `Ok(true)` it has installed its model with
/// [`Cnf::set_model`], so that extraction and values read it as usual.
pub trait ExternalSolve {
    /// Is there a model-consistent candidate under `assumptions`?
    ///
    /// Errors: [`Error::Unknown`] when the deadline passes.
    fn solve(
        &mut self,
        enc: &mut Encoder<'_>,
        assumptions: &[Lit],
        deadline: Deadline,
    ) -> Result<bool, Error>;

    /// Is there an assignment of the encoding's clauses alone (the model's
    /// axioms not checked) under `assumptions`? On `Ok(true)` the
    /// assignment is installed as in [`ExternalSolve::solve`]. Clauses the
    /// solver learns are consequences of the encoding and stay.
    ///
    /// Errors: [`Error::Unknown`] when the deadline passes.
    fn solve_boolean(
        &mut self,
        enc: &mut Encoder<'_>,
        assumptions: &[Lit],
        deadline: Deadline,
    ) -> Result<bool, Error>;
}

/// Violations learned per axiom from one inconsistent candidate (cycles
/// found one after another, each with its last edge removed). 64 instead
/// of 4 halves the refinements and cuts the CPU time by 10–70% on the
/// safe Nidhugg rows (`stack_safe` tso 6.9 → 3.7 s, `lamport` sc 1.2 →
/// 0.6 s); 256 gains nothing more (docs/performance.md).
const LEMMAS_PER_AXIOM: usize = 64;

/// The most co triangles encoded eagerly
/// ([`Encoder::encode_co_transitivity`]): two clauses each, plus the co
/// gates of their pairs. Over the limit none is encoded and the lazy
/// loop learns co's order one cycle per refinement: at bounds 30–40 the
/// Trencher programs with looping writers have 20,000–200,000 triangles
/// (`memorax/clh` tso bound 30: 117 refinements at the full bound with
/// 20,000, 7 with 200,000, 8.7 → 1.9 s of CPU; `lock-free-stack` pso:
/// 180 → 49 refinements). The Nidhugg `indexer`, which needs no
/// refinement, grows by a fifth: 0.8 → 1.5 s (docs/performance.md).
const CO_TRIANGLES: usize = 200_000;

const G_EQADDR: u8 = 0;
const G_CO: u8 = 1;
const G_FR: u8 = 2;
const G_PO: u8 = 3;
const G_LOC: u8 = 4;
const G_UNIV: u8 = 5;
const G_HB: u8 = 6;
const G_STXN: u8 = 7;
/// "event e is a read / write / memory access at address x": the gate
/// kinds of [`Encoder::access_at`] (keyed by `x` as `usize`).
const G_AT_R: u8 = 8;
const G_AT_W: u8 = 9;
const G_AT_M: u8 = 10;
/// "read r reads the initial value of x" (keyed by `x` as `usize`).
const G_INIT_AT: u8 = 11;
/// "event e is an access of an observed location" ([`BaseSet::Observed`]).
const G_OBS: u8 = 12;

/// The index of a dependency-like base relation in `Encoder::deps`:
/// addr 0, data 1, ctrl 2, rmw 3, pick-addr 4, pick-data 5, pick-ctrl 6,
/// si 7 (its pairs of distinct events; the unrolling's lists).
pub(super) fn dep_kind(r: BaseRel) -> u8 {
    dep_code(r).unwrap_or_else(|| unreachable!("{} is not a dependency relation", r.name()))
}

/// The key of `r` in [`Encoder::deps`] when the unrolling computes it
/// (addr, data, ctrl, rmw, the pick dependencies, si), else `None`.
pub(super) fn dep_code(r: BaseRel) -> Option<u8> {
    Some(match r {
        BaseRel::Addr => 0,
        BaseRel::Data => 1,
        BaseRel::Ctrl => 2,
        BaseRel::Rmw => 3,
        BaseRel::PickAddr => 4,
        BaseRel::PickData => 5,
        BaseRel::PickCtrl => 6,
        BaseRel::Si => 7,
        _ => return None,
    })
}

pub(super) fn same_po(un: &Unrolled, a: usize, b: usize) -> bool {
    let (x, y) = (&un.events[a], &un.events[b]);
    // PGAS popa/popb events are outside program order (thesis §8.2).
    x.thread == y.thread && (x.step, x.slot) < (y.step, y.slot) && !x.pop && !y.pop
}

impl<'a> Encoder<'a> {
    /// Unrolls and encodes the base constraints into `cnf`: events, rf,
    /// co (with its transitivity), the dependency relations; no axiom of
    /// the model (`Encoder::lazy_in` adds the clauses the model implies).
    /// `limit` is checked at the growth points of the encoding.
    pub(super) fn base_in(
        mut cnf: Cnf,
        prog: &'a Program,
        model: &'a Model,
        bound: u32,
        width: u32,
        limit: Option<Deadline>,
    ) -> Encoder<'a> {
        // Dependencies are computed when the model reads them, and for a
        // user's model (not a compiled-in file), where they also find
        // values out of thin air (`Encoder::thin_air`): every compiled-in
        // model that reads none orders each read before the later writes,
        // so an rf and data cycle never occurs there.
        let deps = BaseRel::DEPENDENCIES.into_iter().any(|r| model.uses(r))
            || !model.source.path.starts_with("encodings/");
        let switches = Switches::default();
        let opts = UnrollOpts {
            bound,
            width,
            deps,
            limit,
        };
        let mut un = unroll(prog, &mut cnf, opts);
        let aborted = un.aborted.take();
        let analysis = Analysis::new(&un);
        let mut enc = Encoder {
            prog,
            model,
            cnf,
            un,
            analysis,
            rf: HashMap::default(),
            rf_by_read: None,
            rf_init: Vec::new(),
            co_var: HashMap::default(),
            gates: HashMap::default(),
            deps: HashMap::default(),
            robust_act: None,
            static_robust: None,
            robust_succ: Vec::new(),
            robust_handover: Vec::new(),
            shortest_cycles: switches.shortest_cycles,
            escape_probe: switches.escape_probe,
            escape_cfg: switches.escape_cfg,
            switches,
            escape_yield: None,
            tso_witness: None,
            final_mem: HashMap::default(),
            stats: Stats::default(),
            eager: Vec::new(),
            pgas: None,
            stxn: HashMap::default(),
            open_sections: Vec::new(),
            contract_hb: false,
            plain_model: None,
            limit,
            aborted,
            external: None,
            lemma_log: None,
            static_may: None,
            flags_never: false,
        };
        if prog.nodes.is_some() {
            enc.pgas = Some(pgas::PgasEnc::build(&mut enc.cnf, &enc.un));
        }
        if model.uses(BaseRel::Stxn) || prog.atomic_step_thread().is_some() {
            enc.encode_stxn();
        }
        enc.contract_hb = !enc.stxn.is_empty() && !prog.sections_hold_one_access();
        enc.encode_rf_co();
        enc.encode_open_sections();
        let dep_lists: [(u8, Vec<unroll::DepEdge>); 8] = [
            (0, std::mem::take(&mut enc.un.addr_dep)),
            (1, std::mem::take(&mut enc.un.data_dep)),
            (2, std::mem::take(&mut enc.un.ctrl_dep)),
            (3, std::mem::take(&mut enc.un.rmw)),
            (4, std::mem::take(&mut enc.un.pick_addr_dep)),
            (5, std::mem::take(&mut enc.un.pick_data_dep)),
            (6, std::mem::take(&mut enc.un.pick_ctrl_dep)),
            (7, std::mem::take(&mut enc.un.si)),
        ];
        for (k, list) in dep_lists {
            let mut m: HashMap<(usize, usize), Vec<Lit>> = HashMap::default();
            for (a, b, l) in &list {
                m.entry((*a, *b)).or_default().push(*l);
            }
            for ((a, b), ls) in m {
                let l = enc.cnf.or_all(&ls);
                enc.deps.insert((k, a, b), l);
            }
            match k {
                0 => enc.un.addr_dep = list,
                1 => enc.un.data_dep = list,
                2 => enc.un.ctrl_dep = list,
                3 => enc.un.rmw = list,
                4 => enc.un.pick_addr_dep = list,
                5 => enc.un.pick_data_dep = list,
                6 => enc.un.pick_ctrl_dep = list,
                _ => enc.un.si = list,
            }
        }
        enc.stats.events = enc.un.events.len();
        enc
    }

    /// Fills [`Encoder::stxn`] from the unrolling's selectors, as
    /// [`Program::indivisible_sections`] states it along one path: per
    /// thread and step, `held(s)` ("the thread holds the lock when step s
    /// starts": `held(s+1) = held(s) ∧ ¬unlock(s) ∨ lock(s)`) and
    /// `sect(s) = held(s) ∨ lock(s)`; steps s1 < s2 are in one lock
    /// section iff `sect(s1) ∧ held(s1+1) ∧ … ∧ held(s2)` (an `unlock`
    /// between them clears `held`, and one step cannot both unlock and
    /// lock). Two events of one step are in one section when the step is
    /// an atomic step over several locations or in a lock section.
    fn encode_stxn(&mut self) {
        let ev = &self.un.events;
        let mut by_thread: Vec<Vec<usize>> = vec![Vec::new(); self.un.threads.len()];
        for (i, e) in ev.iter().enumerate() {
            by_thread[e.thread.0 as usize].push(i);
        }
        for (t, tu) in self.un.threads.iter().enumerate() {
            let instrs = &self.prog.threads[t].instrs;
            let sels = |f: &dyn Fn(&crate::program::Command) -> bool| -> Vec<Vec<Lit>> {
                (tu.sel.iter())
                    .map(|sel| {
                        (sel.iter())
                            .filter(|(i, _)| f(&instrs[*i].cmd))
                            .map(|&(_, l)| l)
                            .collect()
                    })
                    .collect()
            };
            let atomic = sels(&|c| c.is_atomic_step());
            let lock = sels(&|c| c.lock_bound() == Some(true));
            let unlock = sels(&|c| c.lock_bound() == Some(false));
            let steps = tu.sel.len();
            let (mut held, mut sect, mut at) = (Vec::new(), Vec::new(), Vec::new());
            let mut h = self.cnf.ff();
            for s in 0..steps {
                let l = self.cnf.or_all(&lock[s]);
                let u = self.cnf.or_all(&unlock[s]);
                held.push(h);
                sect.push(self.cnf.or(h, l));
                at.push(self.cnf.or_all(&atomic[s]));
                let kept = self.cnf.and(h, !u);
                h = self.cnf.or(kept, l);
            }
            // still[s]: the lock held when step s starts is held to the
            // thread's end (still[steps] = held after the last step).
            let mut still = vec![h; steps + 1];
            for s in (0..steps).rev() {
                let ends = self.cnf.or(!tu.exec[s], still[s + 1]);
                still[s] = self.cnf.and(held[s], ends);
            }
            for &a in &by_thread[t] {
                let sa = ev[a].step as usize;
                let open = self.cnf.and(sect[sa], still[sa + 1]);
                if !self.cnf.is_false(open) {
                    self.open_sections.push((a, open));
                }
            }
            // same[s1][s2 - s1]: steps s1 ≤ s2 are in one section.
            let mut same: Vec<Vec<Lit>> = Vec::with_capacity(steps);
            for s1 in 0..steps {
                let mut row = vec![self.cnf.or(sect[s1], at[s1])];
                let mut acc = sect[s1];
                for &h in &held[s1 + 1..] {
                    acc = self.cnf.and(acc, h);
                    row.push(acc);
                    if self.cnf.is_false(acc) {
                        break;
                    }
                }
                same.push(row);
            }
            let evs = &by_thread[t];
            for (x, &a) in evs.iter().enumerate() {
                for &b in &evs[x + 1..] {
                    let (sa, sb) = (ev[a].step as usize, ev[b].step as usize);
                    let Some(&one) = same[sa].get(sb - sa) else {
                        continue;
                    };
                    if self.cnf.is_false(one) {
                        continue;
                    }
                    let l = self.cnf.and_all(&[ev[a].exec, ev[b].exec, one]);
                    self.stxn.insert((a, b), l);
                    self.stxn.insert((b, a), l);
                }
            }
        }
    }

    /// A thread that stops holding the lock (blocked or cut by the bound
    /// inside a lock section) blocks every other thread's load and store
    /// from the `lock` on (thesis 003 §7.1.1, Table 7.1): no hb edge
    /// leaves such a section for another thread. Every hb path from the
    /// section to another thread starts with such an edge (the thread has
    /// no event after it), so the other threads' events all come before.
    fn encode_open_sections(&mut self) {
        let open = std::mem::take(&mut self.open_sections);
        let n = self.un.events.len();
        'sections: for &(a, o) in &open {
            let t = self.un.events[a].thread;
            for b in 0..n {
                // Each pair builds hb and fr gates: the limit is checked
                // as in the rf and co loops.
                if b % 256 == 0 && self.over_limit() {
                    break 'sections;
                }
                if self.un.events[b].thread == t {
                    continue;
                }
                if let Some(hb) = self.hb_lit(a, b) {
                    self.cnf.clause(&[!o, !hb]);
                }
            }
        }
        self.open_sections = open;
    }

    /// The pairs that may be in `stxn` (one indivisible section,
    /// [`Encoder::stxn`]), sorted.
    pub(super) fn stxn_pairs(&self) -> Vec<(usize, usize)> {
        let mut out: Vec<(usize, usize)> = self.stxn.keys().copied().collect();
        out.sort_unstable();
        out
    }

    /// True when the program may execute an indivisible section
    /// ([`Encoder::stxn`] is not empty) of which some may hold more than
    /// one memory event ([`Program::sections_hold_one_access`]): the
    /// hb-cycle query then contracts them, its escape edges count the
    /// contracted edges (`eager::encode_escape`), and the static
    /// acyclicity proof, which reasons on plain hb edges, is not used.
    /// Sections of at most one access are indivisible by themselves; the
    /// query takes hb over events.
    pub(super) fn has_sections(&self) -> bool {
        self.contract_hb
    }

    /// The literal of `stxn(a, b)` ([`Encoder::stxn`]), `None` when the
    /// pair can never be in one section.
    pub(super) fn stxn_lit(&self, a: usize, b: usize) -> Option<Lit> {
        self.stxn.get(&(a, b)).copied()
    }

    /// Sets the developer switches of this encoding, and the settings that
    /// start from them ([`Encoder::shortest_cycles`],
    /// [`Encoder::escape_probe`], [`Encoder::escape_cfg`]). Call it before
    /// [`Encoder::enable_tso_witness`] and the hb-cycle query.
    pub fn set_switches(&mut self, switches: Switches) {
        self.shortest_cycles = switches.shortest_cycles;
        self.escape_probe = switches.escape_probe;
        self.escape_cfg = switches.escape_cfg;
        self.switches = switches;
    }

    /// Turns on the TSO-witness restriction of the hb-cycle query where
    /// it applies ([`tso_witness::applies`]). Call it before anything
    /// reads the set `A` (the eager axioms, cdclt's tables).
    pub fn enable_tso_witness(&mut self) {
        if self.tso_witness.is_none() && tso_witness::applies(self.model, self.prog, &self.switches)
        {
            self.tso_witness = Some(TsoWitness::build(&mut self.cnf, &self.un));
        }
    }

    pub(super) fn eqaddr(&mut self, a: usize, b: usize) -> Lit {
        let key = (G_EQADDR, a.min(b), a.max(b));
        if let Some(l) = self.gates.get(&key) {
            return *l;
        }
        let (x, y) = (
            self.un.events[a].addr.clone(),
            self.un.events[b].addr.clone(),
        );
        let l = self.cnf.bv_eq(&x, &y);
        self.gates.insert(key, l);
        l
    }

    /// The literal of "`e`'s address is `x`".
    fn addr_is(&mut self, e: usize, x: i128) -> Lit {
        let w = self.un.width;
        let mut ab = self.cnf.bv_const(x as i64, w);
        ab.push(self.cnf.ff());
        let addr = self.un.events[e].addr.clone();
        self.cnf.bv_eq(&addr, &ab)
    }

    /// The literal of "`e` is a `kind` access (`R`, `W`, else `M`) of
    /// address `x`", `None` when constant (for herd's initial writes,
    /// [`crate::cat::init`]).
    fn access_at(&mut self, e: usize, kind: BaseSet, x: i128) -> Option<Lit> {
        let g = match kind {
            BaseSet::R => G_AT_R,
            BaseSet::W => G_AT_W,
            _ => G_AT_M,
        };
        let key = (g, e, x as usize);
        let l = match self.gates.get(&key) {
            Some(l) => *l,
            None => {
                let k = match kind {
                    BaseSet::R => self.un.events[e].read,
                    BaseSet::W => self.un.events[e].write,
                    _ => self.has_loc_lit(e),
                };
                let at = self.addr_is(e, x);
                let l = self.cnf.and(k, at);
                self.gates.insert(key, l);
                l
            }
        };
        (!self.cnf.is_const(l)).then_some(l)
    }

    /// The literal of "`r` reads the initial value of address `x`",
    /// `None` when constant.
    fn reads_init_at(&mut self, r: usize, x: i128) -> Option<Lit> {
        let key = (G_INIT_AT, r, x as usize);
        let l = match self.gates.get(&key) {
            Some(l) => *l,
            None => {
                let li = self.rf_init.get(r).copied().flatten()?;
                let at = self.addr_is(r, x);
                let l = self.cnf.and(li, at);
                self.gates.insert(key, l);
                l
            }
        };
        (!self.cnf.is_const(l)).then_some(l)
    }

    /// True once a resource limit is reached (recorded in
    /// [`Encoder::aborted`]).
    pub(super) fn over_limit(&mut self) -> bool {
        if self.aborted.is_none() {
            if let Some(Err(e)) = self.limit.map(|d| d.check()) {
                self.aborted = Some(e);
            }
        }
        self.aborted.is_some()
    }

    fn encode_rf_co(&mut self) {
        let n = self.un.events.len();
        let w = self.un.width;
        self.rf_init = vec![None; n];
        let reads: Vec<usize> = (0..n).filter(|&i| self.un.events[i].may_read).collect();
        let writes: Vec<usize> = (0..n).filter(|&i| self.un.events[i].may_write).collect();
        for &r in &reads {
            if self.over_limit() {
                return;
            }
            let mut srcs = Vec::new();
            for (j, &wr) in writes.iter().enumerate() {
                // Thousands of writes per read (long unrolled loops) make
                // one read's sources seconds of encoding.
                if j % 64 == 63 && self.over_limit() {
                    return;
                }
                if !self.analysis.may_rf(wr, r) {
                    continue;
                }
                let eq = self.eqaddr(wr, r);
                if self.cnf.is_false(eq) {
                    continue;
                }
                let l = self.cnf.fresh();
                let (ew, er) = (self.un.events[wr].write, self.un.events[r].read);
                self.cnf.implies(l, ew);
                self.cnf.implies(l, er);
                self.cnf.implies(l, eq);
                let (vw, vr) = (
                    self.un.events[wr].value.clone(),
                    self.un.events[r].value.clone(),
                );
                for (x, y) in vw.iter().zip(&vr) {
                    self.cnf.clause(&[!l, !*x, *y]);
                    self.cnf.clause(&[!l, *x, !*y]);
                }
                self.rf.insert((wr, r), l);
                srcs.push(l);
            }
            // Initial value: a function of the address.
            let li = self.cnf.fresh();
            let er = self.un.events[r].read;
            self.cnf.implies(li, er);
            let addr = self.un.events[r].addr.clone();
            let vr = self.un.events[r].value.clone();
            let mut known = Vec::new();
            for (&a, &v) in &self.prog.init {
                let mut ab = self.cnf.bv_const(a, w);
                ab.push(self.cnf.ff());
                let is_a = self.cnf.bv_eq(&addr, &ab);
                if self.cnf.is_false(is_a) {
                    continue;
                }
                known.push(is_a);
                let vb = self.cnf.bv_const(v, w);
                let eqv = self.cnf.bv_eq(&vr, &vb);
                let c = self.cnf.and(li, is_a);
                self.cnf.implies(c, eqv);
            }
            let any_known = self.cnf.or_all(&known);
            let zero = self.cnf.bv_const(0, w);
            let eqz = self.cnf.bv_eq(&vr, &zero);
            let c = self.cnf.and(li, !any_known);
            self.cnf.implies(c, eqz);
            self.rf_init[r] = Some(li);
            srcs.push(li);
            // Exactly one source for an executed read.
            let mut cl = srcs.clone();
            cl.push(!er);
            self.cnf.clause(&cl);
            self.cnf.at_most_one(&srcs);
        }
        for (i, &a) in writes.iter().enumerate() {
            if self.over_limit() {
                return;
            }
            for &b in &writes[i + 1..] {
                if !self.analysis.may_alias(a, b) {
                    continue;
                }
                let eq = self.eqaddr(a, b);
                if self.cnf.is_false(eq) {
                    continue;
                }
                let l = if same_po(&self.un, a, b) {
                    self.cnf.tt()
                } else if same_po(&self.un, b, a) {
                    self.cnf.ff()
                } else {
                    self.cnf.fresh()
                };
                self.co_var.insert((a, b), l);
            }
        }
        self.encode_co_transitivity();
    }

    /// co's transitivity, eagerly, when the may-co pairs form at most
    /// [`CO_TRIANGLES`] triangles: for writes a < b < c pairwise in
    /// [`Encoder::co_var`], the two clauses that forbid the 3-cycles
    /// a → b → c → a and a → c → b → a of co. In a tournament (co orders
    /// every two executed writes to one address) a cycle implies a
    /// 3-cycle, so these clauses make every candidate's co a strict order
    /// per address, which the lazy loop ([`Encoder::refute`]) otherwise
    /// learns one cycle per refinement (`pgsql.c` under sc: 806 of its
    /// 1,082 refinements). Over the limit co cycles stay lazy.
    fn encode_co_transitivity(&mut self) {
        let mut adj: HashMap<usize, Vec<usize>> = HashMap::default();
        for &(a, b) in self.co_var.keys() {
            adj.entry(a).or_default().push(b);
        }
        let mut firsts: Vec<usize> = adj.keys().copied().collect();
        firsts.sort_unstable();
        let mut triangles = Vec::new();
        for a in firsts {
            let mut bs = adj[&a].clone();
            bs.sort_unstable();
            for (i, &b) in bs.iter().enumerate() {
                for &c in &bs[i + 1..] {
                    if self.co_var.contains_key(&(b, c)) {
                        if triangles.len() >= CO_TRIANGLES {
                            return;
                        }
                        triangles.push((a, b, c));
                    }
                }
            }
        }
        for (a, b, c) in triangles {
            let (ab, bc, ac) = (
                self.co_var[&(a, b)],
                self.co_var[&(b, c)],
                self.co_var[&(a, c)],
            );
            // Three orientations fixed by po are consistent already.
            if self.cnf.is_const(ab) && self.cnf.is_const(bc) && self.cnf.is_const(ac) {
                continue;
            }
            for (x, y, z) in [(a, b, c), (a, c, b)] {
                let cyc = [self.co_lit(x, y), self.co_lit(y, z), self.co_lit(z, x)];
                if let [Some(p), Some(q), Some(r)] = cyc {
                    self.cnf.clause(&[!p, !q, !r]);
                }
            }
        }
    }

    /// The raw co orientation literal of two writes: "`a` before `b` if
    /// both are writes to one address" ([`Encoder::co_var`] read in the
    /// direction asked); `None` when the two can never be co-related (or
    /// `a == b`). [`Encoder::co_lit`] adds "both are writes to one
    /// address".
    pub(super) fn co_order(&self, a: usize, b: usize) -> Option<Lit> {
        let v = *self.co_var.get(&(a.min(b), a.max(b)))?;
        Some(if a < b { v } else { !v })
    }

    /// `co(a, b)` literal (None when a and b can never be co-related).
    pub fn co_lit(&mut self, a: usize, b: usize) -> Option<Lit> {
        let o = self.co_order(a, b)?;
        let key = (G_CO, a, b);
        if let Some(l) = self.gates.get(&key) {
            return Some(*l);
        }
        let (wa, wb) = (self.un.events[a].write, self.un.events[b].write);
        let eq = self.eqaddr(a, b);
        let l = self.cnf.and_all(&[o, wa, wb, eq]);
        self.gates.insert(key, l);
        Some(l)
    }

    /// `fr(r, w)` literal.
    pub fn fr_lit(&mut self, r: usize, w: usize) -> Option<Lit> {
        if !self.analysis.may_fr(r, w) {
            return None;
        }
        let key = (G_FR, r, w);
        if let Some(l) = self.gates.get(&key) {
            return Some(*l);
        }
        let mut terms = Vec::new();
        let srcs = self.sources(r);
        for (wp, l) in srcs {
            if let Some(c) = self.co_lit(wp, w) {
                let t = self.cnf.and(l, c);
                terms.push(t);
            }
        }
        if let Some(li) = self.rf_init[r] {
            let eq = self.eqaddr(r, w);
            let ww = self.un.events[w].write;
            let t = self.cnf.and_all(&[li, ww, eq]);
            terms.push(t);
        }
        let l = self.cnf.or_all(&terms);
        self.gates.insert(key, l);
        if self.cnf.is_false(l) {
            None
        } else {
            Some(l)
        }
    }

    /// The literal of "a →hb b" (po, rf, co or fr between two executed
    /// memory events), `None` when the pair can never be related.
    pub(super) fn hb_lit(&mut self, a: usize, b: usize) -> Option<Lit> {
        self.gate2(G_HB, a, b)
    }

    fn gate2(&mut self, kind: u8, a: usize, b: usize) -> Option<Lit> {
        if let Some(l) = self.gates.get(&(kind, a, b)) {
            return Some(*l);
        }
        let (ea, eb) = (&self.un.events[a], &self.un.events[b]);
        let l = match kind {
            G_PO => {
                if !same_po(&self.un, a, b) {
                    return None;
                }
                let (x, y) = (ea.exec, eb.exec);
                self.cnf.and(x, y)
            }
            G_LOC => {
                if !self.analysis.may_loc(a, b) {
                    return None;
                }
                let ma = self.has_loc_lit(a);
                let mb = self.has_loc_lit(b);
                let eq = self.eqaddr(a, b);
                self.cnf.and_all(&[ma, mb, eq])
            }
            G_UNIV => {
                let (x, y) = (ea.exec, eb.exec);
                self.cnf.and(x, y)
            }
            G_HB => {
                let po = self.gate2(G_PO, a, b);
                let rf = self.rf.get(&(a, b)).copied();
                let co = self.co_lit(a, b);
                let fr = self.fr_lit(a, b);
                let ls: Vec<Lit> = [po, rf, co, fr].into_iter().flatten().collect();
                let any = self.cnf.or_all(&ls);
                let (ma, mb) = (self.mem_lit(a), self.mem_lit(b));
                self.cnf.and_all(&[any, ma, mb])
            }
            G_STXN => self.stxn_lit(a, b)?,
            _ => unreachable!(),
        };
        self.gates.insert((kind, a, b), l);
        Some(l)
    }

    fn mem_lit(&mut self, e: usize) -> Lit {
        let (r, w) = (self.un.events[e].read, self.un.events[e].write);
        self.cnf.or(r, w)
    }

    /// "`e` is an access of a location the test observes"
    /// ([`BaseSet::Observed`]; any access when the program has no list).
    fn observed_lit(&mut self, e: usize) -> Lit {
        if let Some(l) = self.gates.get(&(G_OBS, e, 0)) {
            return *l;
        }
        let m = self.mem_lit(e);
        let l = match self.prog.observed.clone() {
            None => m,
            Some(xs) => {
                let at: Vec<Lit> = (xs.iter()).map(|&x| self.addr_is(e, x as i128)).collect();
                let any = self.cnf.or_all(&at);
                self.cnf.and(m, any)
            }
        };
        self.gates.insert((G_OBS, e, 0), l);
        l
    }

    /// "`e` has a location": a memory access or a located event
    /// (herd's `__srcu`, [`crate::program::Fence::Located`]), the events
    /// `loc` relates.
    fn has_loc_lit(&mut self, e: usize) -> Lit {
        let m = self.mem_lit(e);
        let l = self.un.events[e].located;
        self.cnf.or(m, l)
    }

    /// Literal for "event `e` is executed".
    pub fn exec_lit(&self, e: usize) -> Lit {
        self.un.events[e].exec
    }

    /// Literal for a base set membership (None = never).
    pub fn set_lit(&mut self, s: BaseSet, e: usize) -> Option<Lit> {
        let ev = &self.un.events[e];
        Some(match s {
            BaseSet::R => ev.read,
            BaseSet::W => ev.write,
            BaseSet::M => return Some(self.mem_lit(e)),
            BaseSet::Observed => return Some(self.observed_lit(e)),
            BaseSet::A => match &self.tso_witness {
                Some(w) => w.a[e],
                None => ev.atomic,
            },
            BaseSet::IW => return None,
            // The unrolling tags fence and PGAS events with the set names.
            BaseSet::F
            | BaseSet::MFence
            | BaseSet::Sync
            | BaseSet::LwSync
            | BaseSet::ISync
            | BaseSet::Eieio
            | BaseSet::Membar
            | BaseSet::MembarLL
            | BaseSet::MembarLS
            | BaseSet::MembarSL
            | BaseSet::MembarSS
            | BaseSet::Issue
            | BaseSet::PopA
            | BaseSet::PopB
            | BaseSet::Bar
            | BaseSet::Dmb
            | BaseSet::DmbLd
            | BaseSet::DmbSt
            | BaseSet::DsbSt
            | BaseSet::Isb
            | BaseSet::FenceRR
            | BaseSet::FenceRW
            | BaseSet::FenceWR
            | BaseSet::FenceWW
            // Access annotations and exclusives are tagged the same way.
            | BaseSet::Acq
            | BaseSet::AcqPC
            | BaseSet::Rel
            | BaseSet::X
            | BaseSet::NoRet
            | BaseSet::IFetch
            // herd's tags (C litmus tests), by their key.
            | BaseSet::Tag(_) => return pgas::set_of(ev, s),
        })
    }

    /// Literal for a base relation pair (None = never).
    pub fn rel_lit(&mut self, r: BaseRel, a: usize, b: usize) -> Option<Lit> {
        match r {
            BaseRel::Po => self.gate2(G_PO, a, b),
            BaseRel::Rf => self.rf.get(&(a, b)).copied(),
            BaseRel::Co => self.co_lit(a, b),
            BaseRel::Fr => self.fr_lit(a, b),
            BaseRel::Loc => self.gate2(G_LOC, a, b),
            BaseRel::Int | BaseRel::Ext | BaseRel::Id | BaseRel::Univ => {
                let same_thread = self.un.events[a].thread == self.un.events[b].thread;
                if r.static_pair(a == b, same_thread) != Some(true) {
                    None
                } else if r == BaseRel::Id {
                    Some(self.un.events[a].exec)
                } else {
                    // Both executed.
                    self.gate2(G_UNIV, a, b)
                }
            }
            BaseRel::Op | BaseRel::Fifo | BaseRel::Bar => self.pgas.as_ref()?.rel_lit(r, a, b),
            BaseRel::Stxn => self.gate2(G_STXN, a, b),
            // herd's si is reflexive on memory events.
            BaseRel::Si if a == b => Some(self.mem_lit(a)),
            BaseRel::Addr
            | BaseRel::Data
            | BaseRel::Ctrl
            | BaseRel::Rmw
            | BaseRel::PickAddr
            | BaseRel::PickData
            | BaseRel::PickCtrl
            | BaseRel::Si => self.deps.get(&(dep_kind(r), a, b)).copied(),
        }
    }

    /// Value of a literal in the current model (None = constant false).
    fn val(&self, l: Option<Lit>) -> bool {
        l.is_some_and(|l| self.cnf.value(l))
    }

    /// Concrete addresses of the events in the current model: all W+1
    /// bits (the lock flag included), so at W = 64 the lock cell and the
    /// program address 2^63 stay distinct.
    fn concrete_addrs(&self) -> Vec<i128> {
        self.un
            .events
            .iter()
            .map(|e| self.cnf.bv_value_wide(&e.addr))
            .collect()
    }

    /// The final value of memory cell `addr` (the co-last write, else the
    /// initial value), as a bit-vector.
    pub fn final_mem(&mut self, addr: i64) -> Bv {
        if let Some(v) = self.final_mem.get(&addr) {
            return v.clone();
        }
        let w = self.un.width;
        let mut ab = self.cnf.bv_const(addr, w);
        ab.push(self.cnf.ff());
        let writes: Vec<usize> = (0..self.un.events.len())
            .filter(|&i| self.un.events[i].may_write)
            .collect();
        let mut hits = Vec::new();
        let mut acc = self.cnf.bv_const(0, w);
        for &wr in &writes {
            let ad = self.un.events[wr].addr.clone();
            let is_a = self.cnf.bv_eq(&ad, &ab);
            if self.cnf.is_false(is_a) {
                continue;
            }
            let mut later = Vec::new();
            for &o in &writes {
                if let Some(c) = self.co_lit(wr, o) {
                    later.push(c);
                }
            }
            let any_later = self.cnf.or_all(&later);
            let ww = self.un.events[wr].write;
            let hit = self.cnf.and_all(&[ww, is_a, !any_later]);
            hits.push(hit);
            let val = self.un.events[wr].value.clone();
            for (k, bit) in val.iter().enumerate() {
                let t = self.cnf.and(hit, *bit);
                acc[k] = self.cnf.or(acc[k], t);
            }
        }
        let any = self.cnf.or_all(&hits);
        let init = self.cnf.bv_const(self.prog.init_value(addr), w);
        let v = self.cnf.bv_ite(any, &acc, &init);
        self.final_mem.insert(addr, v.clone());
        v
    }

    /// Encodes a goal condition over the final state.
    pub fn gexpr(&mut self, e: &GExpr) -> Bv {
        let w = self.un.width;
        match e {
            crate::program::Expr::Const(c) => self.cnf.bv_const(*c, w),
            crate::program::Expr::Var(GVar::Reg(t, r)) => {
                self.un.threads[t.0 as usize].regs_end[r.0 as usize].clone()
            }
            crate::program::Expr::Var(GVar::Mem(a)) => self.final_mem(*a),
            crate::program::Expr::Un(op, a) => {
                let x = self.gexpr(a);
                self.cnf.bv_unop(*op, &x)
            }
            crate::program::Expr::Bin(op, a, b) => {
                let x = self.gexpr(a);
                let y = self.gexpr(b);
                self.cnf.bv_binop(*op, &x, &y)
            }
            crate::program::Expr::Rank | crate::program::Expr::Nodes => self.cnf.bv_const(0, w),
        }
    }

    /// "Every thread has terminated" (at a state without outgoing instructions).
    pub fn all_final(&mut self) -> Lit {
        let mut per = Vec::new();
        for (ti, t) in self.prog.threads.iter().enumerate() {
            let out = t.outgoing();
            let finals: Vec<crate::program::StateId> = (0..t.states.len() as u32)
                .map(crate::program::StateId)
                .filter(|q| out[q.0 as usize].is_empty())
                .collect();
            let ls: Vec<Lit> = finals
                .into_iter()
                .map(|q| self.un.threads[ti].end_lit(&mut self.cnf, q))
                .collect();
            let l = self.cnf.or_all(&ls);
            per.push(l);
        }
        self.cnf.and_all(&per)
    }

    /// The literal of goal `g`: its control states and condition hold at
    /// the end of the execution.
    pub fn goal_lit(&mut self, g: usize) -> Lit {
        let goal = self.prog.goals[g].clone();
        let at = match &goal.at {
            GoalAt::Final => self.all_final(),
            GoalAt::States(v) => {
                let mut ls = Vec::new();
                for (t, q) in v {
                    let l = self.un.threads[t.0 as usize].end_lit(&mut self.cnf, *q);
                    ls.push(l);
                }
                self.cnf.and_all(&ls)
            }
        };
        let c = match &goal.cond {
            Some(e) => {
                let v = self.gexpr(e);
                self.cnf.bv_nonzero(&v)
            }
            None => self.cnf.tt(),
        };
        self.cnf.and(at, c)
    }

    /// Each read's rf sources (write, literal), built on first use.
    pub(super) fn sources(&mut self, r: usize) -> Vec<(usize, Lit)> {
        if self.rf_by_read.is_none() {
            // Each read's sources, in the map's order (one pass, instead
            // of a scan of every rf pair per read).
            let mut by_read = vec![Vec::new(); self.un.events.len()];
            for (&(wp, rr), &l) in &self.rf {
                by_read[rr].push((wp, l));
            }
            self.rf_by_read = Some(by_read);
        }
        (self.rf_by_read.as_ref())
            .map(|v| v[r].clone())
            .unwrap_or_default()
    }

    /// The hb-cycle query's edge `a →hb b` in one direction only
    /// (Plaisted–Greenbaum): literals whose disjunction, together with
    /// "a and b are executed memory accesses", implies that
    /// po ∪ rf ∪ co ∪ fr relates a to b — empty when po alone does (a
    /// before b in one thread), `None` when the pair can never be related.
    /// The cycle's successor literals are the only users and need only
    /// "successor ⇒ edge", so fr gets no gate per pair: its literal `f`
    /// gets `f ⇒ R(a) ∧ W(b) ∧ loc(a, b)` and, per rf source `w'` of `a`,
    /// `f ∧ rf(w', a) ⇒ co(w', b)` on the raw co orientation (the same
    /// address follows from the rf and loc literals), instead of the
    /// equivalence `fr ⇔ ∨ rf(w', a) ∧ co(w', b)` with an and-gate per
    /// source ([`Encoder::fr_lit`], which the model's relations keep).
    fn cycle_edge(&mut self, a: usize, b: usize) -> Option<Vec<Lit>> {
        if same_po(&self.un, a, b) {
            return Some(Vec::new());
        }
        let mut opts = Vec::new();
        if let Some(&l) = self.rf.get(&(a, b)) {
            opts.push(l);
        }
        if let Some(l) = self.co_lit(a, b) {
            if !self.cnf.is_false(l) {
                opts.push(l);
            }
        }
        if let Some(&l) = self.gates.get(&(G_FR, a, b)) {
            // The model's fr literal exists already (e.g. cdclt's tables):
            // reuse it.
            if !self.cnf.is_false(l) {
                opts.push(l);
            }
        } else if self.analysis.may_fr(a, b)
            && self.un.events[a].may_read
            && self.un.events[b].may_write
        {
            let eq = self.eqaddr(a, b);
            if !self.cnf.is_false(eq) {
                let f = self.cnf.fresh();
                let (ra, wb) = (self.un.events[a].read, self.un.events[b].write);
                self.cnf.implies(f, ra);
                self.cnf.implies(f, wb);
                self.cnf.implies(f, eq);
                for (wp, l) in self.sources(a) {
                    match self.co_order(wp, b) {
                        Some(o) => self.cnf.clause(&[!f, !l, o]),
                        None => self.cnf.clause(&[!f, !l]),
                    }
                }
                opts.push(f);
            }
        }
        (!opts.is_empty()).then_some(opts)
    }

    /// Activation literal of the hb-cycle constraints (built on first use):
    /// a nonempty set of memory events each with an hb-successor in the set.
    pub fn robust_act(&mut self) -> Lit {
        if let Some(a) = self.robust_act {
            return a;
        }
        if self.pgas.is_some() {
            let act = pgas::robust_act(self);
            self.robust_act = Some(act);
            return act;
        }
        let act = self.cnf.fresh();
        if let Some(w) = &self.tso_witness {
            w.restrict(&mut self.cnf, act);
        }
        // Only events on a cycle of the may-graph of hb, and only edges
        // inside one of its components (static relation analysis). With
        // indivisible sections the graph also joins the events of one
        // section both ways (a contracted cycle passes through them).
        let comp = if !self.contract_hb {
            self.analysis.hb_components()
        } else {
            let mut m = self.analysis.may_hb();
            self.stxn.keys().for_each(|&(a, b)| m.set(a, b));
            super::analysis::cyclic_components(&m)
        };
        let ev = &self.un.events;
        let mem: Vec<usize> = (0..ev.len())
            .filter(|&i| comp[i].is_some())
            // The stxn pairs put a section's fences (lock, unlock) in a
            // component too; they are no accesses.
            .filter(|&i| !self.contract_hb || ev[i].may_read || ev[i].may_write)
            .collect();
        let ins: HashMap<usize, Lit> = mem.iter().map(|&e| (e, self.cnf.fresh())).collect();
        // An event in the set is a memory access (hb relates those only).
        for &e in &mem {
            let (r, w) = (self.un.events[e].read, self.un.events[e].write);
            self.cnf.clause(&[!ins[&e], r, w]);
        }
        let all: Vec<Lit> = mem.iter().map(|e| ins[e]).collect();
        let mut c = all.clone();
        c.push(!act);
        self.cnf.clause(&c);
        // A shortest hb cycle has at most two events per thread
        // (Shasha–Snir's critical cycles): two events a, b of one thread
        // that are not adjacent on a cycle split it into a → P1 → b → P2
        // → a, and po(a, b) (or po(b, a)) closes the shorter cycle
        // a → b → P2 → a (or b → a → P1 → b); hb contains po between
        // memory events. Restricting the set to such cycles keeps the
        // query's answer and removes most of its candidates.
        let mut per_thread: HashMap<u32, Vec<Lit>> = HashMap::default();
        for &e in &mem {
            per_thread
                .entry(self.un.events[e].thread.0)
                .or_default()
                .push(ins[&e]);
        }
        let mut threads: Vec<u32> = per_thread.keys().copied().collect();
        threads.sort_unstable();
        for t in threads.into_iter().filter(|_| self.shortest_cycles) {
            self.cnf.at_most_two(&per_thread[&t]);
        }
        if !self.contract_hb {
            self.cycle_successors(&mem, &comp, &ins, &ins);
        } else {
            self.contracted_successors(&mem, &comp, &ins);
        }
        self.robust_act = Some(act);
        act
    }

    /// The successor constraints of the hb-cycle query over `mem` (edges
    /// only inside one of the components `comp`): every event `a` with
    /// `from[a]` ("a leaves the cycle by an hb edge") has a successor `b`
    /// with `ins[b]` and the edge `a →hb b` ([`Encoder::cycle_edge`]), and
    /// every event with `ins[b]` a predecessor. Without contracted
    /// sections ([`Encoder::has_sections`]) `from` is `ins`; with them ([`Encoder::contracted_successors`])
    /// an edge inside a section is no successor (it stays in one node of
    /// the contracted graph). Records the successor literals in
    /// [`Encoder::robust_succ`].
    fn cycle_successors(
        &mut self,
        mem: &[usize],
        comp: &[Option<usize>],
        from: &HashMap<usize, Lit>,
        ins: &HashMap<usize, Lit>,
    ) {
        let mut preds: HashMap<usize, Vec<Lit>> = HashMap::default();
        for &a in mem {
            if self.over_limit() {
                break;
            }
            let mut succ = vec![!from[&a]];
            for &b in mem {
                if a == b || comp[a] != comp[b] {
                    continue;
                }
                let same = (self.stxn.get(&(a, b)).copied()).filter(|_| self.contract_hb);
                if same.is_some_and(|l| self.cnf.is_true(l)) {
                    continue;
                }
                let Some(hb) = self.cycle_edge(a, b) else {
                    continue;
                };
                let s = self.cnf.fresh();
                if !hb.is_empty() {
                    let mut c = hb;
                    c.push(!s);
                    self.cnf.clause(&c);
                }
                if let Some(same) = same {
                    self.cnf.clause(&[!s, !same]);
                }
                self.cnf.implies(s, from[&a]);
                self.cnf.implies(s, ins[&b]);
                succ.push(s);
                preds.entry(b).or_default().push(s);
                self.robust_succ.push((a, b, s));
            }
            self.cnf.clause(&succ);
        }
        for &b in mem {
            let mut c = preds.remove(&b).unwrap_or_default();
            c.push(!ins[&b]);
            self.cnf.clause(&c);
        }
    }

    /// The successor constraints of the hb-cycle query with the program's
    /// indivisible sections contracted (docs/models.md, "Robustness and
    /// indivisible sections"): a cycle of the graph in which each section
    /// is one node. Each event `a` of the set `ins` (the events by which
    /// the cycle enters a node) hands over to an event `x` of its section
    /// (`stxn(a, x)`, or `x = a`), which leaves the node by a plain hb edge
    /// `x → b` to an event `b` of the set outside the section
    /// ([`Encoder::cycle_successors`] with `from` = "x leaves"). Every
    /// walk of such steps changes node at each hb edge, so a closed one is
    /// a cycle of the contracted graph; conversely a cycle of it gives one
    /// entry event per node, the same number per thread, so the
    /// shortest-cycle restriction to two per thread holds. Literals:
    /// events² successors plus one hand-over per `stxn` pair, instead of
    /// one lifted edge per pair of events and pair of section members.
    fn contracted_successors(
        &mut self,
        mem: &[usize],
        comp: &[Option<usize>],
        ins: &HashMap<usize, Lit>,
    ) {
        let on: crate::collections::HashSet<usize> = mem.iter().copied().collect();
        let mut partners: HashMap<usize, Vec<usize>> = HashMap::default();
        for (&(a, x), &l) in &self.stxn {
            let both = on.contains(&a) && on.contains(&x);
            if both && comp[a] == comp[x] && !self.cnf.is_false(l) {
                partners.entry(a).or_default().push(x);
            }
        }
        let mut from: HashMap<usize, Lit> = HashMap::default();
        for &a in mem {
            let Some(xs) = partners.get_mut(&a) else {
                from.insert(a, ins[&a]);
                continue;
            };
            xs.sort_unstable();
            // "a leaves the cycle": a is an executed memory access.
            let f = self.cnf.fresh();
            let (r, w) = (self.un.events[a].read, self.un.events[a].write);
            self.cnf.clause(&[!f, r, w]);
            from.insert(a, f);
        }
        let mut handover: Vec<(usize, usize, Lit)> = Vec::new();
        for &a in mem {
            let Some(xs) = partners.get(&a) else {
                continue;
            };
            let mut c = vec![!ins[&a], from[&a]];
            for &x in xs {
                let h = self.cnf.fresh();
                self.cnf.implies(h, self.stxn[&(a, x)]);
                self.cnf.implies(h, from[&x]);
                c.push(h);
                handover.push((a, x, h));
            }
            self.cnf.clause(&c);
        }
        self.robust_handover = handover;
        self.cycle_successors(mem, comp, &from, ins);
    }

    /// Is there a model-consistent candidate under `assumptions`?
    /// Refines lazily; on `true` the solver's model is that candidate
    /// (read it with [`extract::extract`]).
    ///
    /// Errors: [`Error::Unknown`] when the deadline passes.
    pub fn solve(&mut self, assumptions: &[Lit], deadline: Deadline) -> Result<bool, Error> {
        if let Some(e) = &self.aborted {
            return Err(e.clone());
        }
        if let Some(mut x) = self.external.take() {
            let r = x.solve(self, assumptions, deadline);
            self.external = Some(x);
            return r;
        }
        // An encoding recorded for the enumeration engine: varisat takes
        // over (no-op otherwise).
        self.cnf.stop_recording();
        loop {
            deadline.check()?;
            self.stats.solves += 1;
            let t0 = Instant::now();
            let sat = self.cnf.solve_until(assumptions, deadline)?;
            self.stats.solve_time += t0.elapsed().as_secs_f64();
            if !sat {
                let (v, c) = self.cnf.stats();
                self.stats.vars = v;
                self.stats.clauses = c;
                return Ok(false);
            }
            let t1 = Instant::now();
            let refuted = self.refute();
            self.stats.check_time += t1.elapsed().as_secs_f64();
            match refuted {
                Some(clauses) => {
                    self.stats.refinements += 1;
                    for c in clauses {
                        self.cnf.clause(&c);
                    }
                }
                None => {
                    let (v, c) = self.cnf.stats();
                    self.stats.vars = v;
                    self.stats.clauses = c;
                    return Ok(true);
                }
            }
        }
    }

    /// Does an assignment of the encoding's clauses alone satisfy
    /// `assumptions`, the model's axioms not checked (a candidate
    /// execution, consistent or not)? `Ok(false)` means that no execution
    /// at all, consistent or not, satisfies them. On `true` the values are
    /// read with [`Cnf::value`].
    ///
    /// Errors: [`Error::Unknown`] when the deadline passes.
    pub fn solve_boolean(
        &mut self,
        assumptions: &[Lit],
        deadline: Deadline,
    ) -> Result<bool, Error> {
        if let Some(e) = &self.aborted {
            return Err(e.clone());
        }
        deadline.check()?;
        if let Some(mut x) = self.external.take() {
            let r = x.solve_boolean(self, assumptions, deadline);
            self.external = Some(x);
            return r;
        }
        self.cnf.stop_recording();
        self.cnf.solve_until(assumptions, deadline)
    }

    /// [`Encoder::solve`], returning the execution found. Ok(None) = none
    /// exists (within the bound).
    ///
    /// Errors: [`Error::Unknown`] when the deadline passes.
    pub fn find(
        &mut self,
        assumptions: &[Lit],
        deadline: Deadline,
    ) -> Result<Option<Execution>, Error> {
        Ok(self
            .solve(assumptions, deadline)?
            .then(|| extract::extract(self)))
    }

    /// Assumption literals that make thread `t` execute exactly the
    /// instructions `paths[t]` (indices into its `instrs`, one per step)
    /// and then stop; threads beyond `paths.len()` are free. Values, rf
    /// and co stay free. Used by [`Encoder::pin`] and by the `robust`
    /// query along another engine's witness (`queries::robust_along`).
    ///
    /// Errors: a path longer than the unrolling (the bound), an
    /// instruction that is not a candidate at its step.
    pub fn follow(&mut self, paths: &[Vec<usize>]) -> Result<Vec<Lit>, String> {
        if paths.len() > self.un.threads.len() {
            return Err(format!(
                "{} paths for {} threads",
                paths.len(),
                self.un.threads.len()
            ));
        }
        let tname = |t: usize| self.prog.thread_name(ThreadId(t as u32)).to_string();
        let mut lits = Vec::new();
        for (t, path) in paths.iter().enumerate() {
            let tu = &self.un.threads[t];
            if path.len() > tu.sel.len() {
                return Err(format!(
                    "thread {}: a path of {} steps, but the unrolling (bound {}) has {}",
                    tname(t),
                    path.len(),
                    self.un.bound,
                    tu.sel.len()
                ));
            }
            for (s, &i) in path.iter().enumerate() {
                match tu.sel[s].iter().find(|c| c.0 == i) {
                    Some(&(_, l)) => lits.push(l),
                    None => {
                        return Err(format!(
                            "thread {}: instruction {i} is not a candidate at step {s}",
                            tname(t)
                        ))
                    }
                }
            }
            if let Some(&l) = tu.exec.get(path.len()) {
                lits.push(!l);
            }
        }
        Ok(lits)
    }

    /// Assumption literals that force the solver's candidate to be exactly
    /// the execution `x` (witness replay: `x` may come from another
    /// backend, e.g. the z3 encoding, with its own event ids).
    ///
    /// Contract:
    /// * Events are matched by their backend-independent name (`thread`,
    ///   `step`, `ord`), never by `id`: the event of `x` named (t, s, o) is
    ///   the `o`-th event that instruction `x.path[t][s]` produces at step
    ///   `s` of thread `t` (its non-pop events in slot order, then its PGAS
    ///   pops, as [`extract::extract`] numbers them). `x`'s ids are only
    ///   used to resolve `rf`, `rf_init` and `co`.
    /// * Thread `t` executes exactly `x.path[t]` (the sel literal of each
    ///   step, and no step after the path).
    /// * Each event of `x` is executed with the same kind (`R`, `W` or the
    ///   fence/PGAS set named by `kind`), and for reads and writes the same
    ///   address (the lock cell when `lock`) and value; an `ISSUE` event
    ///   keeps its value (the queue). Other fences' values and addresses
    ///   are not compared.
    /// * An event the path's instruction produces at that step but absent
    ///   from `x` is neither a read, a write nor a fence (a failing
    ///   store-conditional).
    /// * Every rf edge and initial read of `x` holds; every read of `x` has
    ///   one of the two; for consecutive writes `a`, `b` of each chain of
    ///   `x.co`, `co(a, b)` holds.
    ///
    /// Registers, final states and labels are not compared (the path and
    /// the events determine them). Then `find(&lits, _)` returns `Some`
    /// iff `x` is an execution of the program consistent with the
    /// encoder's model within its bound (and then the extraction is `x` up
    /// to ids and labels).
    ///
    /// Errors (a reason, no panic) when `x` cannot be mapped onto this
    /// unrolling: a different number of threads, `steps` disagreeing with
    /// `path`, a path longer than the unrolling (the bound), an instruction
    /// that is not a candidate at its step, an event at a step outside the
    /// path or of another instruction, no event of that name, two events of
    /// one name or id, an unknown fence kind, a read/write without address,
    /// a value or address that does not fit the width, an rf/co edge
    /// naming an unknown event or a pair that can never be rf/co related,
    /// a read without source.
    pub fn pin(&mut self, x: &Execution) -> Result<Vec<Lit>, String> {
        let nt = self.un.threads.len();
        if x.path.len() != nt {
            return Err(format!(
                "the execution has {} threads, the program {nt}",
                x.path.len()
            ));
        }
        let tname = |t: usize| self.prog.thread_name(ThreadId(t as u32)).to_string();
        for (t, path) in x.path.iter().enumerate() {
            if x.steps.get(t).is_some_and(|&n| n != path.len()) {
                return Err(format!(
                    "thread {}: {} steps but a path of {}",
                    tname(t),
                    x.steps[t],
                    path.len()
                ));
            }
        }
        let mut lits = self.follow(&x.path)?;
        let produced = self.produced(&x.path);
        let mut map: HashMap<usize, usize> = HashMap::default();
        let mut used: crate::collections::HashSet<usize> = Default::default();
        for e in &x.events {
            let name = format!("t{}:{}:{} ({})", e.thread, e.step, e.ord, e.label);
            let path = x
                .path
                .get(e.thread as usize)
                .ok_or_else(|| format!("event {name}: no such thread"))?;
            match path.get(e.step as usize) {
                None => return Err(format!("event {name}: step outside the thread's path")),
                Some(&i) if i != e.instr => {
                    return Err(format!(
                        "event {name}: instruction {} but the path executes {i}",
                        e.instr
                    ))
                }
                _ => {}
            }
            let sat = produced[&(e.thread, e.step)]
                .get(e.ord as usize)
                .copied()
                .ok_or_else(|| format!("event {name}: the instruction produces no such event"))?;
            if !used.insert(sat) {
                return Err(format!("event {name}: named twice"));
            }
            if map.insert(e.id, sat).is_some() {
                return Err(format!("event {name}: id {} used twice", e.id));
            }
            let ev = &self.un.events[sat];
            lits.push(ev.exec);
            lits.extend(self.pin_labels(e, ev, &name)?);
        }
        // Produced but absent: no access, no fence (a failing store-conditional).
        for ids in produced.values() {
            for &id in ids.iter().filter(|id| !used.contains(id)) {
                let ev = &self.un.events[id];
                lits.push(!ev.read);
                lits.push(!ev.write);
                lits.extend(ev.fences.iter().map(|f| !f.1));
            }
        }
        lits.extend(self.pin_rf_co(x, &map)?);
        Ok(lits)
    }

    /// The events each path step's instruction produces (`paths[t][s]`
    /// the instruction of thread `t` at step `s`), by (thread, step), in
    /// `ord` order: ordinary events first, then PGAS pops.
    fn produced(&self, paths: &[Vec<usize>]) -> HashMap<(u32, u32), Vec<usize>> {
        let mut produced: HashMap<(u32, u32), Vec<usize>> = HashMap::default();
        for (t, path) in paths.iter().enumerate() {
            for (s, &i) in path.iter().enumerate() {
                let of_step: Vec<&unroll::Event> = self
                    .un
                    .events
                    .iter()
                    .filter(|e| {
                        e.thread.0 as usize == t
                            && e.step as usize == s
                            && e.instrs.iter().any(|c| c.0 == i)
                    })
                    .collect();
                let mut v: Vec<usize> = of_step.iter().filter(|e| !e.pop).map(|e| e.id).collect();
                v.extend(of_step.iter().filter(|e| e.pop).map(|e| e.id));
                produced.insert((t as u32, s as u32), v);
            }
        }
        produced
    }

    /// [`Encoder::pin`] for the labels of one event `e` (named `name` in
    /// errors) mapped to `ev`: read or write with its address (or the
    /// lock) and value, or the fence set it belongs to (an `ISSUE` with its
    /// value), and not the other kinds.
    ///
    /// Errors: an access without address, a value or address that does not
    /// fit the width, a fence kind `ev` cannot be.
    fn pin_labels(
        &self,
        e: &EventInfo,
        ev: &unroll::Event,
        name: &str,
    ) -> Result<Vec<Lit>, String> {
        let w = self.un.width as usize;
        let mut out = Vec::new();
        match e.kind.as_str() {
            "R" | "W" => {
                let (yes, no) = if e.kind == "R" {
                    (ev.read, ev.write)
                } else {
                    (ev.write, ev.read)
                };
                out.push(yes);
                out.push(!no);
                let low = &ev.addr[..w];
                let top = ev.addr[w];
                if e.lock {
                    out.push(top);
                    out.extend(bits_equal(low, 0).map_err(|m| format!("event {name}: {m}"))?);
                } else {
                    let a = e
                        .addr
                        .ok_or_else(|| format!("event {name}: an access without address"))?;
                    out.push(!top);
                    out.extend(
                        bits_equal(low, a).map_err(|m| format!("event {name}: address {m}"))?,
                    );
                }
                out.extend(
                    bits_equal(&ev.value, e.value)
                        .map_err(|m| format!("event {name}: value {m}"))?,
                );
            }
            f => {
                let l = ev
                    .fences
                    .iter()
                    .find(|(n, _)| *n == f)
                    .map(|x| x.1)
                    .ok_or_else(|| format!("event {name}: cannot be a `{f}`"))?;
                out.push(l);
                out.push(!ev.read);
                out.push(!ev.write);
                if f == "ISSUE" {
                    out.extend(
                        bits_equal(&ev.value, e.value)
                            .map_err(|m| format!("event {name}: value {m}"))?,
                    );
                }
            }
        }
        Ok(out)
    }

    /// [`Encoder::pin`] for the rf and co edges of `x` (`map`: event ids
    /// of `x` to events of the unrolling).
    ///
    /// Errors: an edge naming an event not in the execution, a pair that
    /// can never be rf/co related, a read without source.
    fn pin_rf_co(
        &mut self,
        x: &Execution,
        map: &HashMap<usize, usize>,
    ) -> Result<Vec<Lit>, String> {
        let mut out = Vec::new();
        let get = |id: usize, what: &str| {
            map.get(&id)
                .copied()
                .ok_or_else(|| format!("{what} names event #{id}, not in the execution"))
        };
        let mut has_src: crate::collections::HashSet<usize> = Default::default();
        for &(wr, r) in &x.rf {
            let (a, b) = (get(wr, "an rf edge")?, get(r, "an rf edge")?);
            let l =
                self.rf.get(&(a, b)).copied().ok_or_else(|| {
                    format!("rf #{wr} -> #{r}: these events can never be rf-related")
                })?;
            out.push(l);
            has_src.insert(r);
        }
        for &r in &x.rf_init {
            let b = get(r, "rf_init")?;
            let l = self.rf_init[b]
                .ok_or_else(|| format!("rf_init #{r}: this event can never be a read"))?;
            out.push(l);
            has_src.insert(r);
        }
        if let Some(e) = x
            .events
            .iter()
            .find(|e| e.kind == "R" && !has_src.contains(&e.id))
        {
            return Err(format!("read #{} ({}) has no rf source", e.id, e.label));
        }
        for chain in &x.co {
            for pair in chain.windows(2) {
                let (a, b) = (get(pair[0], "co")?, get(pair[1], "co")?);
                let l = self.co_lit(a, b).ok_or_else(|| {
                    format!(
                        "co #{} -> #{}: these events can never be co-related",
                        pair[0], pair[1]
                    )
                })?;
                out.push(l);
            }
        }
        Ok(out)
    }

    /// Checks the current candidate: co must be acyclic, then the model's
    /// axioms. Returns blocking clauses (several lemmas per axiom) if the
    /// candidate is inconsistent; with [`Encoder::lemma_log`] on, each
    /// clause's lemma is logged too.
    pub(super) fn refute(&mut self) -> Option<Vec<Vec<Lit>>> {
        let logging = self.lemma_log.is_some();
        let may = if logging {
            None
        } else {
            self.static_may_values()
        };
        let addrs = self.concrete_addrs();
        let model = self.model;
        let base = CandBase {
            enc: self,
            addrs,
            cache: HashMap::default(),
        };
        let lemmas: Vec<Vec<Lit>> = if logging {
            // Certificates refuse models with initial writes as events
            // (`certify::produce`): lemmas are justified on the
            // backend's events alone.
            let found = refutations(model, lemmas::Logged(base), None);
            let mut clauses = Vec::with_capacity(found.len());
            for (axiom, facts) in found {
                let (c, lemma) = lemmas::logged(axiom, facts);
                clauses.push(c);
                self.lemma_log.get_or_insert_with(Vec::new).push(lemma);
            }
            clauses
        } else {
            let found = if model.init_writes.is_some() {
                let iw = InitWrites::new(base);
                // The static values number the initial writes by every
                // location an access may name: usable when this
                // candidate's locations are those.
                let may = may.filter(|m| m.cells.as_deref() == Some(iw.cells()));
                refutations(model, iw, may)
            } else {
                refutations(model, base, may)
            };
            (found.into_iter())
                .map(|(_, facts)| facts.into_iter().map(|l| !l).collect())
                .collect()
        };
        if lemmas.is_empty() {
            None
        } else {
            Some(lemmas)
        }
    }

    /// Which of the model's flags (indices into [`Model::flags`], among
    /// `which`) hold on the solver's current candidate: their expression
    /// is non-empty there. With `explain`, also a clause that every
    /// candidate on which none of the others can hold falsifies: the
    /// negation of the facts that make each of their expressions empty
    /// here ([`Evaluator::explain_empty`]); `None` when some flag holds
    /// on no pair yet has no such explanation (a `different-values`
    /// flag whose relation has pairs of one value).
    ///
    /// A flag whose expression is herd's `different-values(r)`
    /// ([`crate::cat::Flag::different_values`]: the binding is `r`) holds when
    /// `r` has a pair of events that do not have one value (herd's
    /// `lib/interpreter.ml`, `different_values`; `event.ml`,
    /// `same_value`: both have a value, equal): a read's value is the
    /// value read, a write's the value written, an initial write's the
    /// location's initial value; other events (fences, located events)
    /// have none.
    pub(super) fn flags_holding(
        &mut self,
        which: &[usize],
        explain: bool,
    ) -> (Vec<usize>, Option<Vec<Lit>>) {
        let may = if explain {
            self.static_may_values()
        } else {
            None
        };
        let addrs = self.concrete_addrs();
        let mut values = self.concrete_values();
        let model = self.model;
        let mask = match self.un.width {
            w if w >= 64 => -1i64,
            w => (1i64 << w) - 1,
        };
        let init = self.prog.init.clone();
        let base = CandBase {
            enc: self,
            addrs,
            cache: HashMap::default(),
        };
        let differ = move |values: &[Option<i64>], a: usize, b: usize| match (values[a], values[b])
        {
            (Some(x), Some(y)) => (x ^ y) & mask != 0,
            _ => true,
        };
        let negate = |facts: Option<Vec<Lit>>| facts.map(|f| f.into_iter().map(|l| !l).collect());
        if model.init_writes.is_some() {
            let iw = InitWrites::new(base);
            // Initial write `n0 + i` writes `cells[i]` (herd's
            // `mk_init_write`: the location's initial value).
            values.extend(
                (iw.cells().iter()).map(|&x| Some(init.get(&(x as i64)).copied().unwrap_or(0))),
            );
            let may = may.filter(|m| m.cells.as_deref() == Some(iw.cells()));
            let mut ev = with_may(Evaluator::new(model, iw), may);
            let (holding, facts) = holding(model, &mut ev, which, explain, &|a, b| {
                differ(&values, a, b)
            });
            return (holding, negate(facts));
        }
        let mut ev = with_may(Evaluator::new(model, base), may);
        let (holding, facts) = holding(model, &mut ev, which, explain, &|a, b| {
            differ(&values, a, b)
        });
        (holding, negate(facts))
    }

    /// The static may values of the model's bindings
    /// ([`Encoder::static_may`]), computed once per encoding.
    fn static_may_values(&mut self) -> Option<Rc<StaticMayOf>> {
        let m = (self.static_may.take()).unwrap_or_else(|| self.static_may().map(Rc::new));
        self.static_may = Some(m.clone());
        m
    }

    /// Per event of the current model's candidate: its value when it is
    /// a read (the value read) or a write (the value written), else
    /// `None`.
    fn concrete_values(&self) -> Vec<Option<i64>> {
        (self.un.events.iter())
            .map(|e| {
                let access = self.cnf.value(e.read) || self.cnf.value(e.write);
                access.then(|| self.cnf.bv_value(&e.value))
            })
            .collect()
    }

    /// Concrete base relation of the current model's candidate (for
    /// witnesses).
    pub fn concrete_rel(&mut self, r: BaseRel) -> Mat {
        let addrs = self.concrete_addrs();
        let mut base = CandBase {
            enc: self,
            addrs,
            cache: HashMap::default(),
        };
        base.rel(r)
    }

    /// On the current model's candidate: why its values are not all
    /// determined — a cycle of rf and data dependencies (a value read
    /// that flows, through writes and reads, into the write it reads
    /// from), whose values herd keeps symbolic (`S…` in its States, never
    /// equal to a constant) while this encoding lets them take any value
    /// ("out of thin air"); `None` when there is no such cycle.
    pub fn thin_air(&mut self) -> Option<Error> {
        if self.deps.keys().all(|k| k.0 != dep_kind(BaseRel::Data)) {
            return None;
        }
        let rf = self.concrete_rel(BaseRel::Rf);
        let data = self.concrete_rel(BaseRel::Data);
        let n = rf.n();
        let mut m = Mat::new(n);
        for a in 0..n {
            for b in rf.0[a].iter().chain(data.0[a].iter()) {
                m.set(a, b);
            }
        }
        let cycle = m.find_cycle()?;
        let mut names: Vec<&str> = (cycle.iter())
            .map(|&e| self.prog.thread_name(self.un.events[e].thread))
            .collect();
        names.dedup();
        let msg = format!(
            "values out of thin air: an execution the model allows has a cycle of rf and data dependencies (through threads {}), whose values herd keeps symbolic and this tool does not (not modelled)",
            names.join(", ")
        );
        // Located at the instruction of the cycle's first event.
        let ev = &self.un.events[cycle[0]];
        let span = (ev.instrs.iter())
            .find(|&&(_, l)| self.cnf.value(l))
            .and_then(|&(i, _)| self.prog.threads.get(ev.thread.0 as usize)?.instrs.get(i))
            .map(|ins| ins.span);
        Some(match (&self.prog.source, span) {
            (Some(src), Some(sp)) => src.error(sp, msg),
            _ => Error::Unsupported(msg),
        })
    }

    /// True when some thread's paths were cut by the bound.
    pub fn truncated(&self) -> Vec<ThreadId> {
        self.un
            .threads
            .iter()
            .enumerate()
            .filter(|(_, t)| t.truncated)
            .map(|(i, _)| ThreadId(i as u32))
            .collect()
    }
}

/// The failed rules of a candidate with their explanations: a co cycle
/// ([`lemmas::CO_ORDER`]; co must be a strict order per location, a
/// tournament without cycles) alone if there is one, else the model's
/// failed axioms ([`LEMMAS_PER_AXIOM`] per axiom).
///
/// `may`: the static may values of the model's bindings over the
/// candidate's events ([`Evaluator::with_static_may`]), when known.
fn refutations<B: Base>(
    model: &Model,
    mut base: B,
    may: Option<Rc<StaticMayOf>>,
) -> Vec<(String, Vec<B::Fact>)> {
    let co = base.rel(BaseRel::Co);
    if let Some(cyc) = co.find_cycle() {
        let mut facts = Vec::new();
        for i in 0..cyc.len() {
            let (a, b) = (cyc[i], cyc[(i + 1) % cyc.len()]);
            if let Some(l) = base.rel_fact(BaseRel::Co, a, b) {
                facts.push(l);
            }
        }
        return vec![(lemmas::CO_ORDER.to_string(), facts)];
    }
    let mut ev = with_may(Evaluator::new(model, base), may);
    (ev.check_all(LEMMAS_PER_AXIOM).into_iter())
        .map(|v| (v.axiom, v.facts))
        .collect()
}

/// The base relations of the solver's current candidate.
struct CandBase<'e, 'a> {
    enc: &'e mut Encoder<'a>,
    addrs: Vec<i128>,
    cache: HashMap<BaseRel, Mat>,
}

impl Base for CandBase<'_, '_> {
    type Fact = Lit;

    fn n(&self) -> usize {
        self.enc.un.events.len()
    }

    fn executed(&mut self) -> Bits {
        let n = self.n();
        let mut s = Bits::new(n);
        for e in 0..n {
            if self.enc.cnf.value(self.enc.exec_lit(e)) {
                s.set(e);
            }
        }
        s
    }

    fn set(&mut self, set: BaseSet) -> Bits {
        let n = self.n();
        let mut s = Bits::new(n);
        for e in 0..n {
            // M is a gate that may be built after the solve: read R and W
            // (and for Observed, the concrete address).
            let present = if matches!(set, BaseSet::M | BaseSet::Observed) {
                let ev = &self.enc.un.events[e];
                let m = self.enc.cnf.value(ev.read) || self.enc.cnf.value(ev.write);
                m && (set == BaseSet::M
                    || (self.enc.prog.observed.as_ref())
                        .is_none_or(|xs| xs.iter().any(|&x| x as i128 == self.addrs[e])))
            } else {
                let l = self.enc.set_lit(set, e);
                self.enc.val(l)
            };
            if present {
                s.set(e);
            }
        }
        s
    }

    fn rel(&mut self, rel: BaseRel) -> Mat {
        if let Some(m) = self.cache.get(&rel) {
            return m.clone();
        }
        let n = self.n();
        let rf_co = (rel == BaseRel::Fr).then(|| (self.rel(BaseRel::Rf), self.rel(BaseRel::Co)));
        let enc = &*self.enc;
        let ev = &enc.un.events;
        let v = |l: Lit| enc.cnf.value(l);
        let mut m = Mat::new(n);
        let exec = |e: usize| v(ev[e].exec);
        let isw = |e: usize| v(ev[e].write);
        let isr = |e: usize| v(ev[e].read);
        let has_loc = |e: usize| isr(e) || isw(e) || v(ev[e].located);
        match rel {
            BaseRel::Po => {
                for a in 0..n {
                    for b in 0..n {
                        if same_po(&enc.un, a, b) && exec(a) && exec(b) {
                            m.set(a, b);
                        }
                    }
                }
            }
            BaseRel::Rf => {
                for (&(w, r), &l) in &enc.rf {
                    if v(l) {
                        m.set(w, r);
                    }
                }
            }
            BaseRel::Co => {
                for (&(a, b), &l) in &enc.co_var {
                    if isw(a) && isw(b) && self.addrs[a] == self.addrs[b] {
                        if v(l) {
                            m.set(a, b);
                        } else {
                            m.set(b, a);
                        }
                    }
                }
            }
            BaseRel::Fr => {
                let (rf, co) = rf_co.expect("computed for fr");
                for r in (0..n).filter(|&r| isr(r)) {
                    let src = (0..n).find(|&w| rf.get(w, r));
                    for w in 0..n {
                        let hit = match src {
                            Some(s) => co.get(s, w),
                            None => isw(w) && self.addrs[w] == self.addrs[r],
                        };
                        if hit {
                            m.set(r, w);
                        }
                    }
                }
            }
            BaseRel::Loc => {
                for a in 0..n {
                    for b in 0..n {
                        if self.addrs[a] == self.addrs[b] && has_loc(a) && has_loc(b) {
                            m.set(a, b);
                        }
                    }
                }
            }
            BaseRel::Int | BaseRel::Ext | BaseRel::Id | BaseRel::Univ => {
                for a in 0..n {
                    for b in 0..n {
                        let ok = rel.static_pair(a == b, ev[a].thread == ev[b].thread);
                        if ok == Some(true) && exec(a) && exec(b) {
                            m.set(a, b);
                        }
                    }
                }
            }
            BaseRel::Addr
            | BaseRel::Data
            | BaseRel::Ctrl
            | BaseRel::Rmw
            | BaseRel::PickAddr
            | BaseRel::PickData
            | BaseRel::PickCtrl
            | BaseRel::Si => {
                let k = dep_kind(rel);
                for (&(kk, a, b), &l) in &enc.deps {
                    if kk == k && v(l) {
                        m.set(a, b);
                    }
                }
                if rel == BaseRel::Si {
                    (0..n)
                        .filter(|&a| isr(a) || isw(a))
                        .for_each(|a| m.set(a, a));
                }
            }
            BaseRel::Op | BaseRel::Fifo | BaseRel::Bar => {
                if let Some(pe) = &enc.pgas {
                    for (a, b) in pe.pairs(rel) {
                        if pe.rel_lit(rel, a, b).is_some_and(v) {
                            m.set(a, b);
                        }
                    }
                }
            }
            BaseRel::Stxn => {
                for (a, b) in enc.stxn_pairs() {
                    if enc.stxn_lit(a, b).is_some_and(v) {
                        m.set(a, b);
                    }
                }
            }
        }
        // Only fr reads other base relations (rf, co) back.
        if matches!(rel, BaseRel::Rf | BaseRel::Co) {
            self.cache.insert(rel, m.clone());
        }
        m
    }

    fn exec_fact(&mut self, e: usize) -> Option<Lit> {
        Some(self.enc.exec_lit(e))
    }

    fn set_fact(&mut self, s: BaseSet, e: usize) -> Option<Lit> {
        self.enc.set_lit(s, e)
    }

    fn rel_fact(&mut self, r: BaseRel, a: usize, b: usize) -> Option<Lit> {
        self.enc.rel_lit(r, a, b)
    }
}

impl Located for CandBase<'_, '_> {
    /// The program's declared cells and initialised addresses.
    fn cells(&self) -> Vec<i128> {
        let p = self.enc.prog;
        (p.vars.iter().map(|v| v.addr as i128))
            .chain(p.init.keys().map(|&a| a as i128))
            .collect()
    }

    fn address(&mut self, e: usize) -> Option<i128> {
        let ev = &self.enc.un.events[e];
        let v = |l: Lit| self.enc.cnf.value(l);
        (v(ev.read) || v(ev.write) || v(ev.located)).then(|| self.addrs[e])
    }

    fn access_fact(&mut self, e: usize, kind: BaseSet, x: i128) -> Option<Lit> {
        self.enc.access_at(e, kind, x)
    }

    fn reads_init_fact(&mut self, r: usize, x: i128) -> Option<Lit> {
        self.enc.reads_init_at(r, x)
    }
}

/// `ev` with the static may values `may` ([`Evaluator::with_static_may`]),
/// when known.
fn with_may<'m, B: Base>(ev: Evaluator<'m, B>, may: Option<Rc<StaticMayOf>>) -> Evaluator<'m, B> {
    match may {
        Some(m) => ev.with_static_may(m.may.clone()),
        None => ev,
    }
}

/// The flags among `which` that hold on `ev`'s candidate
/// ([`Encoder::flags_holding`]; `differ`: two events do not have one
/// value) and, with `explain`, the facts that make the others empty
/// (`None` when one has no explanation).
fn holding<B: crate::cat::eval::Base>(
    model: &Model,
    ev: &mut Evaluator<'_, B>,
    which: &[usize],
    explain: bool,
    differ: &dyn Fn(usize, usize) -> bool,
) -> (Vec<usize>, Option<Vec<B::Fact>>) {
    let mut held = Vec::new();
    let mut facts = explain.then(Vec::new);
    for &i in which {
        let f = &model.flags[i];
        let holds = if f.different_values {
            ev.nonempty_where(&f.key, differ)
        } else {
            ev.nonempty(&f.key)
        };
        if holds {
            held.push(i);
        } else if let Some(acc) = &mut facts {
            // A `different-values` flag holds on no pair of `r` here:
            // explained only when `r` itself is empty.
            match ev.explain_empty(&f.key) {
                Some(fs) => acc.extend(fs),
                None => facts = None,
            }
        }
    }
    (held, facts)
}

/// The static may values of a model's bindings over one encoding
/// ([`Encoder::static_may`]).
#[derive(Debug)]
pub(super) struct StaticMayOf {
    /// The values, over the encoding's events and, with `cells`, the
    /// initial writes.
    pub(super) may: Rc<crate::cat::eval::StaticMay>,
    /// The locations of the initial writes, in event order (initial
    /// write `n0 + i` writes `cells[i]`), when the model has them.
    pub(super) cells: Option<Vec<i128>>,
}
