//! Unrolling: Program IR + bound K → symbolic events over a [`Cnf`].
//!
//! Each thread is unrolled for K steps (at most K instructions executed
//! per thread, DESIGN.md "Bound"). Step i selects at most one instruction
//! among those enabled at the control states reachable in i steps
//! (`sel(i, ins)`); a thread may stop after any prefix (`exec(i+1) →
//! exec(i)`), so computations are prefix-closed (thesis §2.4). Register
//! values are bit-vectors per step (SSA); loads take the value of their
//! event, which the encoder ties to a write through `rf`.
//!
//! An instruction yields one event per memory access or fence, in slots
//! 0, 1, … of its step; an event's kind (read, write, fence), address and
//! value are literals/bit-vectors that depend on which instruction the
//! step selected. `lock` is a locked read-modify-write of a reserved lock
//! cell that must read 0 and writes 1; `unlock` a locked write of 0 to it
//! (Trencher's global lock, thesis §7.1.1); the lock cell lives outside
//! the program's address space (an extra address bit).
//!
//! Dependencies (thesis §4.1 addrdep/datadep/ctrldep) follow register
//! dataflow syntactically: a register is tainted by the reads whose value
//! flowed into it through loads and assignments (`xor r,r,r` keeps the
//! taint); `ctrl` goes from a read to every event po-after an `assume`
//! whose condition is tainted by it. A path through a select's condition
//! is a second kind of taint, giving `pick-addr`/`pick-data`/`pick-ctrl`
//! instead (Arm ARM B2.3.2; `deps`).
//!
//! The phases of a step run in this order (the order in which they create
//! variables and clauses is part of the encoding):
//!
//! 1. selection (`control`): a sel literal per candidate instruction, the
//!    step's exec literal;
//! 2. slot layout (`events`): a fresh read value per event slot, the
//!    store-conditional success literal;
//! 3. execution (`dataflow`): each candidate's micro-ops (`micro`) run
//!    symbolically on the registers, giving its slot contributions;
//! 4. events (`events`), each followed by its addr/data/ctrl edges
//!    (`deps`);
//! 5. rmw pairs of atomic instructions, then store-conditional against the
//!    reservations (`rmw`);
//! 6. ctrl prefix, registers, taint (`deps`, `dataflow`), and the
//!    control states after the step (`control`).

mod control;
mod dataflow;
mod deps;
mod events;
mod micro;
mod rmw;
mod si;

use crate::diag::Error;
use crate::engines::bounded::varisat::bv::Bv;
use crate::engines::bounded::varisat::cnf::Cnf;
use crate::engines::bounded::Deadline;
use crate::program::{Program, StateId, Thread, ThreadId};
use varisat::Lit;

pub use events::SlotShape;

/// Kind-specific literals of an event. Each implies [`Event::exec`].
#[derive(Clone, Debug)]
pub struct Event {
    /// Index in [`Unrolled::events`].
    pub id: usize,
    /// The thread.
    pub thread: ThreadId,
    /// The step (0-based instruction count of the thread).
    pub step: u32,
    /// The slot within the step (access number within the instruction).
    pub slot: u32,
    /// The event happens.
    pub exec: Lit,
    /// It is a read (R).
    pub read: Lit,
    /// It is a write (W). A failing store-conditional is no write.
    pub write: Lit,
    /// It is a fence, by kind (F, MFENCE, SYNC, ...), or a PGAS event
    /// (ISSUE, POPA, POPB, BAR): (set name, literal).
    pub fences: Vec<(&'static str, Lit)>,
    /// A PGAS `popa`/`popb` slot: outside program order (thesis §8.2).
    pub pop: bool,
    /// It belongs to a locked/atomic instruction (set A).
    pub atomic: Lit,
    /// Address: W+1 bits; the top bit marks the lock cell.
    pub addr: Bv,
    /// Value read or written (W bits).
    pub value: Bv,
    /// The instructions that may produce it: (index in `Thread::instrs`, sel literal).
    pub instrs: Vec<(usize, Lit)>,
    /// Can be a read / a write at all (static over-approximation).
    pub may_read: bool,
    /// See `may_read`.
    pub may_write: bool,
    /// It is a located event ([`crate::program::Fence::Located`],
    /// herd's `__srcu`): it has an address ([`Event::addr`]) and is in
    /// `loc` with the accesses of that address, without being a read, a
    /// write or in `F`.
    pub located: Lit,
    /// Can be a located event at all.
    pub may_locate: bool,
    /// The addresses (W+1 bits, as in [`Event::addr`]) it may access when
    /// it is a read or a write, sorted: the constant addresses of the
    /// contributing candidates; `None` when some candidate's address is
    /// not a constant of the encoding (static relation analysis,
    /// `varisat::analysis`).
    pub addr_set: Option<Vec<u128>>,
}

/// The unrolling of one thread.
#[derive(Clone, Debug)]
pub struct ThreadUnroll {
    /// Per step: candidate instructions (index, sel literal).
    pub sel: Vec<Vec<(usize, Lit)>>,
    /// Per step: the step executes.
    pub exec: Vec<Lit>,
    /// Per i = 0 ..= steps unrolled: the control states after exactly i
    /// executed steps, with their literals (`levels[0]` is the initial
    /// state, true). The state at the end: [`ThreadUnroll::end_lit`].
    pub levels: Vec<Vec<(StateId, Lit)>>,
    /// Register values after the last executed step.
    pub regs_end: Vec<Bv>,
    /// True when some path is longer than the bound (a state reachable in
    /// exactly K steps still has outgoing instructions).
    pub truncated: bool,
}

impl ThreadUnroll {
    /// The literal "the thread is at state `q` after its last executed
    /// step": for some i, it reached `q` in exactly i steps and did not
    /// execute step i (steps are prefix-closed, so it executed no later
    /// one either). False when `q` is reachable in no unrolled step.
    pub fn end_lit(&self, cnf: &mut Cnf, q: StateId) -> Lit {
        let mut ends = Vec::new();
        for (i, level) in self.levels.iter().enumerate() {
            if let Some(&(_, l)) = level.iter().find(|(s, _)| *s == q) {
                let e = match self.exec.get(i) {
                    Some(&x) => cnf.and(l, !x),
                    None => l,
                };
                ends.push(e);
            }
        }
        cnf.or_all(&ends)
    }
}

/// A dependency edge from a read to a later event of the same thread.
pub type DepEdge = (usize, usize, Lit);

/// The unrolled program.
pub struct Unrolled {
    /// All events, thread by thread, in po order within a thread.
    pub events: Vec<Event>,
    /// Per thread.
    pub threads: Vec<ThreadUnroll>,
    /// rmw pairs (read, write, literal).
    pub rmw: Vec<DepEdge>,
    /// `si` pairs of distinct events (the byte events of one access;
    /// [`crate::program::Thread::si_groups`]), both ways.
    pub si: Vec<DepEdge>,
    /// addr dependencies (read, event, literal).
    pub addr_dep: Vec<DepEdge>,
    /// data dependencies.
    pub data_dep: Vec<DepEdge>,
    /// ctrl dependencies.
    pub ctrl_dep: Vec<DepEdge>,
    /// pick-addr dependencies (through a select's condition, Arm ARM B2.3.2).
    pub pick_addr_dep: Vec<DepEdge>,
    /// pick-data dependencies.
    pub pick_data_dep: Vec<DepEdge>,
    /// pick-ctrl dependencies.
    pub pick_ctrl_dep: Vec<DepEdge>,
    /// The value width W.
    pub width: u32,
    /// The bound K.
    pub bound: u32,
    /// The resource limit that stopped the unrolling early, if any: the
    /// unrolling is then incomplete and must not be solved.
    pub aborted: Option<Error>,
}

/// Options of the unrolling.
#[derive(Clone, Copy, Debug)]
pub struct UnrollOpts {
    /// K.
    pub bound: u32,
    /// W.
    pub width: u32,
    /// Compute addr/data/ctrl.
    pub deps: bool,
    /// Resource limits checked before each step (`None`: unchecked); the
    /// first one reached stops the unrolling and is kept in
    /// [`Unrolled::aborted`].
    pub limit: Option<Deadline>,
}

/// Unrolls `p` to `opts.bound` steps per thread, adding the control-flow,
/// dataflow and event-kind constraints to `cnf`.
pub fn unroll(p: &Program, cnf: &mut Cnf, opts: UnrollOpts) -> Unrolled {
    let mut un = Unrolled {
        events: Vec::new(),
        threads: Vec::new(),
        rmw: Vec::new(),
        si: Vec::new(),
        addr_dep: Vec::new(),
        data_dep: Vec::new(),
        ctrl_dep: Vec::new(),
        pick_addr_dep: Vec::new(),
        pick_data_dep: Vec::new(),
        pick_ctrl_dep: Vec::new(),
        width: opts.width,
        bound: opts.bound,
        aborted: None,
    };
    for (ti, th) in p.threads.iter().enumerate() {
        let first = un.events.len();
        let t = unroll_thread(th, ThreadId(ti as u32), p.nodes, cnf, opts, &mut un);
        si::pairs(th, &un.events[first..], &mut un.si);
        un.threads.push(t);
    }
    un
}

/// Unrolls thread `th` (id `tid`; `nodes`: `Program::nodes`): runs the
/// phases of each step in order until the bound or until no instruction
/// is enabled. Appends the thread's events, rmw pairs and dependency
/// edges to `un`; returns its selection and exec literals and its state
/// after the last step.
fn unroll_thread(
    th: &Thread,
    tid: ThreadId,
    nodes: Option<u32>,
    cnf: &mut Cnf,
    opts: UnrollOpts,
    un: &mut Unrolled,
) -> ThreadUnroll {
    let code = micro::ThreadCode::new(th, nodes);
    let mut regs = dataflow::initial_regs(cnf, th, opts.width);
    let mut deps = deps::DepState::new(th.regs.len(), th.ctrl_reg);
    let mut reservations = rmw::Reservations::default();
    let mut control = control::Control::new(th, cnf);
    for step in 0..opts.bound {
        if let Some(Err(e)) = opts.limit.map(|d| d.check()) {
            un.aborted.get_or_insert(e);
        }
        if un.aborted.is_some() {
            break;
        }
        let Some(sel) = control.select(cnf) else {
            break;
        };
        let layout = events::SlotLayout::new(cnf, &code, &sel.sels, un.events.len(), opts.width);
        let run = dataflow::execute_step(cnf, &code, &sel.sels, &layout, &regs, &deps.taint, opts);
        for (si, contribs) in run.slots.iter().enumerate() {
            let ev = events::build_event(cnf, &layout, tid, step, si, contribs, opts.width);
            debug_assert_eq!(ev.id, un.events.len());
            if opts.deps {
                deps.event_deps(cnf, &ev, contribs, &run.taints[si], un);
            }
            un.events.push(ev);
        }
        rmw::atomic_pairs(&run.slots, layout.base_id, &mut un.rmw);
        si::step_pairs(&run.slots, layout.base_id, &mut un.si);
        reservations.store_conditional(cnf, &run, &layout, &un.events, &mut un.rmw);
        if opts.deps {
            deps.extend_ctrl_prefix(cnf, &run.assume_taint);
        }
        dataflow::merge_registers(cnf, &mut regs, run.new_regs);
        if opts.deps {
            deps.merge_taint(cnf, run.new_taint);
        }
        control.advance(cnf, sel);
    }
    control.finish(opts.bound, regs)
}

/// Per instruction of `th` (index in `Thread::instrs`): the static shapes
/// of its ordinary slots in slot order, as the unrolling builds its
/// events (set membership when that instruction fills the slot; the
/// escape pre-filter of `varisat::escape_cfg` reads them). `None` when
/// some instruction has PGAS pop slots. `nodes`: `Program::nodes`.
pub fn slot_shapes(th: &Thread, nodes: Option<u32>) -> Option<Vec<Vec<SlotShape>>> {
    let code = micro::ThreadCode::new(th, nodes);
    (0..th.instrs.len())
        .map(|i| events::instr_shapes(&code, i))
        .collect()
}
