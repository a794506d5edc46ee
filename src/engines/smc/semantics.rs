//! The operational semantics the SMC engine explores (seed `001_…` §3 and
//! Appendix 0.A.2 / 0.C.1; thesis `003_…` §2.4.2): SC, TSO with one FIFO
//! store buffer per thread, PSO with one FIFO per thread and address.
//!
//! A step is taken by an *actor*: a program thread (its next instruction)
//! or an auxiliary update thread (the paper's `upd_p`, TSO; `upd_{p,x}`,
//! PSO) that moves the oldest buffered store (of one address, PSO) to
//! memory. Every step reports its [`Effect`] (what it read and wrote and
//! where a load took its value), which the chronological trace
//! ([`super::chrono`]) and the Shasha–Snir trace ([`super::trace`]) are
//! built from.
//!
//! Rules (the same as [`crate::engines::tso_reach::tso`], which is the TSO witness
//! checker; this module is a separate twin because it also runs SC and
//! PSO, mutates in place and reports per-step effects, see
//! docs/architecture.md):
//! * a store enters the buffer (SC: memory); a load reads the thread's
//!   newest buffered store to its address, else memory;
//! * commands of [`crate::program::buffers::drains_buffer`] (`mfence`, `lock`,
//!   `unlock`, atomics) need the thread's buffers empty; an atomic runs in
//!   one step on memory;
//! * PSO: a `membar` with #StoreStore (and without #StoreLoad) starts a
//!   new *epoch*: a buffered store may reach memory only when no store of
//!   an earlier epoch of its thread is buffered (the `pso.cat` reading of
//!   the barrier);
//! * the global lock (thesis §7.1.1): while another thread holds it a
//!   thread cannot read memory, run an atomic, take the lock or have its
//!   stores reach memory;
//! * `--bound K`: a thread executes at most K instructions.

use crate::program::buffers::drains_buffer;
use crate::program::{Command, Fence, GVar, GoalAt, LExpr, Program, RegId, Spmd, ThreadId, Width};
use std::collections::BTreeMap;

/// The memory model of the operational semantics.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Model {
    /// Sequential consistency: stores reach memory at once.
    Sc,
    /// Total store order: one FIFO store buffer per thread.
    Tso,
    /// Partial store order: one FIFO store buffer per thread and address.
    Pso,
}

impl Model {
    /// The model's name (`sc`, `tso`, `pso`).
    pub fn name(self) -> &'static str {
        match self {
            Model::Sc => "sc",
            Model::Tso => "tso",
            Model::Pso => "pso",
        }
    }

    /// The model named `s` (`sc`, `tso`, `pso`; `x86-tso` and `sparc-pso`
    /// are not accepted here: the CLI resolves aliases).
    pub fn from_name(s: &str) -> Option<Model> {
        match s {
            "sc" => Some(Model::Sc),
            "tso" => Some(Model::Tso),
            "pso" => Some(Model::Pso),
            _ => None,
        }
    }
}

/// A location as the race and trace bookkeeping ([`super::chrono`],
/// [`super::dpor`], [`super::trace`]) keys it: a program address (an
/// `i64`, W ≤ 64 bits) or the lock's pseudo-address [`LOCK_ADDR`].
pub type Loc = i128;

/// The pseudo-address of the global lock in effects: outside the `i64`
/// range, so no program address equals it, even at `--width 64`.
pub const LOCK_ADDR: Loc = i128::MIN;

/// A step: a thread's instruction or an update from a store buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub enum Step {
    /// Thread `thread` executes instruction `instr` (index into
    /// `Thread::instrs`).
    Instr {
        /// The thread.
        thread: u32,
        /// Index into the thread's instructions.
        instr: u32,
    },
    /// The oldest buffered store of `thread` (TSO: `addr` is `None`; PSO:
    /// the oldest to `addr`) reaches memory.
    Flush {
        /// The thread owning the buffer.
        thread: u32,
        /// PSO: the address of the buffer.
        addr: Option<i64>,
    },
}

/// Who takes a step: the paper's real and auxiliary threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Actor {
    /// A program thread.
    Thread(u32),
    /// TSO: the update thread of a thread's buffer.
    Upd(u32),
    /// PSO: the update thread of a thread's buffer for one address.
    UpdVar(u32, i64),
}

impl Step {
    /// The actor taking the step.
    pub fn actor(&self) -> Actor {
        match *self {
            Step::Instr { thread, .. } => Actor::Thread(thread),
            Step::Flush { thread, addr: None } => Actor::Upd(thread),
            Step::Flush {
                thread,
                addr: Some(a),
            } => Actor::UpdVar(thread, a),
        }
    }

    /// The program thread the step belongs to (the buffer's owner for an
    /// update).
    pub fn thread(&self) -> u32 {
        match *self {
            Step::Instr { thread, .. } | Step::Flush { thread, .. } => thread,
        }
    }

    /// Readable form, e.g. `t0: q0 -> q1  x = 1` or `t0: flush x`.
    pub fn describe(&self, p: &Program) -> String {
        match *self {
            Step::Instr { thread, instr } => {
                let tid = ThreadId(thread);
                let ins = &p.threads[thread as usize].instrs[instr as usize];
                format!(
                    "{}: {} -> {}  {}",
                    p.thread_name(tid),
                    p.state_name(tid, ins.from),
                    p.state_name(tid, ins.to),
                    crate::program::render::command(p, tid, &ins.cmd)
                )
            }
            Step::Flush { thread, addr: None } => {
                format!("{}: flush", p.thread_name(ThreadId(thread)))
            }
            Step::Flush {
                thread,
                addr: Some(a),
            } => format!(
                "{}: flush {}",
                p.thread_name(ThreadId(thread)),
                p.addr_name(a)
            ),
        }
    }
}

/// What a step did (the input of the trace builders).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Effect {
    /// No shared access (assignments, assumes, no-op fences, nops).
    Local,
    /// A fence that needed the thread's buffers empty.
    Fence,
    /// A store entered the buffer (TSO, PSO).
    Buffered {
        /// Address.
        addr: i64,
        /// Value.
        val: i64,
        /// PSO #StoreStore epoch of the store (0 under TSO).
        epoch: u32,
    },
    /// A load took its value from memory.
    LoadMem {
        /// Address.
        addr: i64,
        /// Value.
        val: i64,
    },
    /// A load took its value from the thread's own buffer entry at
    /// position `pos` (buffer forwarding).
    LoadFwd {
        /// Address.
        addr: i64,
        /// Value.
        val: i64,
        /// Position of the entry in the thread's buffer.
        pos: usize,
    },
    /// The buffer entry at position `pos` reached memory.
    Update {
        /// Address.
        addr: i64,
        /// Value.
        val: i64,
        /// Position of the entry in the thread's buffer (before removal).
        pos: usize,
    },
    /// A store straight to memory (SC) or an atomic's accesses, in order:
    /// `(address, value, is_write)`.
    Direct(Accesses),
    /// The global lock was taken.
    Lock,
    /// The global lock was released.
    Unlock,
}

/// A direct step's accesses, in order: `(address, value, is_write)`
/// (inline: an atomic makes few).
pub type Accesses = smallvec::SmallVec<[(i64, i64, bool); 3]>;

/// One buffered store.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Entry {
    /// Address.
    pub addr: i64,
    /// Value.
    pub val: i64,
    /// PSO #StoreStore epoch of the store.
    pub epoch: u32,
}

/// A configuration: control states, registers, memory, buffers (oldest
/// first; PSO keeps one list per thread and picks per address), epochs,
/// lock holder and instructions executed per thread.
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct State {
    /// Control state per thread.
    pub pc: Vec<u32>,
    /// Registers per thread.
    pub regs: Vec<Vec<i64>>,
    /// Memory cells written or initialised (others hold 0), sorted by
    /// address (a flat list: copying a configuration reuses its storage).
    pub mem: Vec<(i64, i64)>,
    /// Store buffers per thread, oldest first.
    pub buf: Vec<Vec<Entry>>,
    /// PSO: current #StoreStore epoch per thread.
    pub epoch: Vec<u32>,
    /// The thread holding the global lock.
    pub lock: Option<u32>,
    /// Instructions executed per thread.
    pub steps: Vec<u32>,
}

impl Clone for State {
    fn clone(&self) -> State {
        State {
            pc: self.pc.clone(),
            regs: self.regs.clone(),
            mem: self.mem.clone(),
            buf: self.buf.clone(),
            epoch: self.epoch.clone(),
            lock: self.lock,
            steps: self.steps.clone(),
        }
    }

    /// Field by field, reusing `self`'s storage (the explorer restores
    /// configurations this way).
    fn clone_from(&mut self, o: &State) {
        self.pc.clone_from(&o.pc);
        self.regs.clone_from(&o.regs);
        self.mem.clone_from(&o.mem);
        self.buf.clone_from(&o.buf);
        self.epoch.clone_from(&o.epoch);
        self.lock = o.lock;
        self.steps.clone_from(&o.steps);
    }
}

/// Why a step is not possible.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Blocked {
    /// Never again on this path (an assume on registers is false, the
    /// bound is used up).
    Dead,
    /// Until another actor moves (lock held, atomic's condition on
    /// memory, own buffer not empty).
    Wait,
}

/// The semantics of one program under one model, with a bound.
pub struct Semantics<'p> {
    /// The program.
    pub prog: &'p Program,
    /// The model.
    pub model: Model,
    /// Width of values.
    pub width: Width,
    /// Instructions per thread at most.
    pub bound: u32,
    /// Outgoing instructions per thread and state.
    out: Vec<Vec<Vec<usize>>>,
}

fn eval(w: Width, regs: &[i64], e: &LExpr) -> i64 {
    e.eval(w, Spmd::default(), &mut |r: RegId| {
        regs.get(r.0 as usize).copied().unwrap_or(0)
    })
}

/// Strips ordering annotations (they order nothing more under SC, TSO
/// and PSO).
fn plain(c: &Command) -> &Command {
    match c {
        Command::Ann(_, c) | Command::Tagged(_, c) => plain(c),
        c => c,
    }
}

/// The first command the engine does not model under `model`, as
/// `(thread, instruction index, what)`: `lwarx`/`stwcx.`, PGAS commands,
/// `rank`/`nodes`, locks or fences inside an atomic, nested atomics, and
/// under PSO a `membar` with #StoreLoad but not #StoreStore: the engine
/// drains the buffers at a barrier that orders stores before loads, which
/// under PSO would also keep the later stores from passing the earlier
/// ones (`pso.cat` lets them).
pub fn unsupported(p: &Program, model: Model) -> Option<(usize, usize, String)> {
    let pso = model == Model::Pso;
    let check = |c: &Command, inside: bool| -> Result<(), String> {
        if let Command::Fence(Fence::Membar(m)) = plain(c) {
            if pso && m.orders(true, false) && !m.orders(true, true) {
                return Err(
                    "under PSO, a `membar` with #StoreLoad and without #StoreStore (its later \
                     stores may pass its earlier ones while its later loads wait; the engine's \
                     barriers drain the buffers)"
                        .into(),
                );
            }
        }
        check_command(c, inside)
    };
    unsupported_with(p, &check)
}

fn unsupported_with(
    p: &Program,
    check: &dyn Fn(&Command, bool) -> Result<(), String>,
) -> Option<(usize, usize, String)> {
    if p.nodes.is_some() {
        return Some((0, 0, "a PGAS program".into()));
    }
    for (t, th) in p.threads.iter().enumerate() {
        for (i, ins) in th.instrs.iter().enumerate() {
            if let Err(w) = check(&ins.cmd, false) {
                return Some((t, i, w));
            }
            if ins.from.0 as usize >= th.states.len() || ins.to.0 as usize >= th.states.len() {
                return Some((t, i, "a dangling control state".into()));
            }
        }
    }
    None
}

/// The construct of `c` the engine does not model under any model
/// (`inside`: `c` is in an atomic sequence).
fn check_command(c: &Command, inside: bool) -> Result<(), String> {
    let spmd = |e: &LExpr| {
        if e.mentions_spmd() {
            Err("`rank`/`nodes`".to_string())
        } else {
            Ok(())
        }
    };
    match plain(c) {
        Command::Load { addr, .. } => spmd(addr),
        Command::Store { addr, value } => spmd(addr).and(spmd(value)),
        Command::Assign { value, .. } => spmd(value),
        Command::Assume(e) | Command::Guard(e) => spmd(e),
        Command::Select {
            cond, then, else_, ..
        } => spmd(cond).and(spmd(then)).and(spmd(else_)),
        Command::Nop => Ok(()),
        Command::Fence(_) | Command::Lock | Command::Unlock if inside => {
            Err("a lock or fence inside `atomic`".into())
        }
        Command::Fence(_) | Command::Lock | Command::Unlock => Ok(()),
        Command::Atomic(_) if inside => Err("a nested atomic sequence".into()),
        Command::Atomic(cs) => cs.iter().try_for_each(|c| check_command(c, true)),
        Command::LoadReserve { .. } => Err("`lwarx` (load-reserve)".into()),
        Command::StoreCond { .. } => Err("`stwcx.` (store-conditional)".into()),
        Command::Pgas(_) => Err("a PGAS command".into()),
        Command::Ann(..) | Command::Tagged(..) => Ok(()),
    }
}

impl<'p> Semantics<'p> {
    /// The semantics of `prog` under `model`; values are `width` bits;
    /// each thread executes at most `bound` instructions. The program must
    /// pass [`unsupported`] (unsupported commands block).
    pub fn new(prog: &'p Program, model: Model, width: Width, bound: u32) -> Semantics<'p> {
        Semantics {
            prog,
            model,
            width,
            bound,
            out: prog.threads.iter().map(|t| t.outgoing()).collect(),
        }
    }

    /// The initial configuration.
    pub fn initial(&self) -> State {
        let n = self.prog.threads.len();
        State {
            pc: self.prog.threads.iter().map(|t| t.initial.0).collect(),
            regs: self
                .prog
                .threads
                .iter()
                .map(|t| t.reg_init.iter().map(|v| self.width.wrap(*v)).collect())
                .collect(),
            mem: {
                let m: BTreeMap<i64, i64> = self
                    .prog
                    .init
                    .iter()
                    .map(|(a, v)| (*a, self.width.wrap(*v)))
                    .collect();
                m.into_iter().collect()
            },
            buf: vec![Vec::new(); n],
            epoch: vec![0; n],
            lock: None,
            steps: vec![0; n],
        }
    }

    fn mem(s: &State, a: i64) -> i64 {
        match s.mem.binary_search_by_key(&a, |x| x.0) {
            Ok(i) => s.mem[i].1,
            Err(_) => 0,
        }
    }

    fn set_mem(s: &mut State, a: i64, v: i64) {
        match s.mem.binary_search_by_key(&a, |x| x.0) {
            Ok(i) => s.mem[i].1 = v,
            Err(i) => s.mem.insert(i, (a, v)),
        }
    }

    /// The position of the buffer entry a PSO update of `addr` by thread
    /// `t` moves (the oldest to `addr`, if its epoch is the oldest
    /// buffered one); TSO: the oldest entry.
    fn flush_pos(&self, s: &State, t: usize, addr: Option<i64>) -> Option<usize> {
        let b = &s.buf[t];
        match addr {
            None => (!b.is_empty()).then_some(0),
            Some(a) => {
                let min = b.iter().map(|e| e.epoch).min()?;
                let pos = b.iter().position(|e| e.addr == a)?;
                (b[pos].epoch == min).then_some(pos)
            }
        }
    }

    /// Every step possible in `s`, in a fixed order (threads' instructions
    /// by thread and instruction index, then updates). `cut` is set when
    /// the bound stopped a thread that had an instruction to run.
    pub fn enabled(&self, s: &State, cut: &mut bool) -> Vec<Step> {
        let mut v = Vec::new();
        self.enabled_into(s, cut, &mut v);
        v
    }

    /// [`Semantics::enabled`], appended to `v`.
    pub fn enabled_into(&self, s: &State, cut: &mut bool, v: &mut Vec<Step>) {
        for t in 0..self.prog.threads.len() {
            let outs = &self.out[t][s.pc[t] as usize];
            if outs.is_empty() {
                continue;
            }
            if s.steps[t] >= self.bound {
                *cut = true;
                continue;
            }
            for &i in outs {
                let st = Step::Instr {
                    thread: t as u32,
                    instr: i as u32,
                };
                if self.can(s, st).is_ok() {
                    v.push(st);
                }
            }
        }
        self.flushes(s, v);
    }

    /// The update steps possible in `s`, appended to `v`.
    fn flushes(&self, s: &State, v: &mut Vec<Step>) {
        for t in 0..self.prog.threads.len() {
            if s.lock.is_some_and(|h| h as usize != t) {
                continue;
            }
            self.flushes_of(s, t, v);
        }
    }

    /// The update steps of thread `t` that another thread's lock blocks
    /// in `s` (thesis 003 §7.1.1: while a thread holds the lock, the
    /// others' stores do not reach memory), appended to `v`; none when the
    /// lock is free or `t`'s. Used to reverse races with steps that never
    /// ran.
    pub fn flushes_blocked_by_lock(&self, s: &State, t: usize, v: &mut Vec<Step>) {
        if s.lock.is_some_and(|h| h as usize != t) {
            self.flushes_of(s, t, v);
        }
    }

    /// The update steps of thread `t`'s buffer that could run in `s` with
    /// the lock free, appended to `v`.
    fn flushes_of(&self, s: &State, t: usize, v: &mut Vec<Step>) {
        if s.buf[t].is_empty() {
            return;
        }
        match self.model {
            Model::Sc => {}
            Model::Tso => v.push(Step::Flush {
                thread: t as u32,
                addr: None,
            }),
            Model::Pso => {
                let mut seen: Vec<i64> = Vec::new();
                for e in &s.buf[t] {
                    if !seen.contains(&e.addr) {
                        seen.push(e.addr);
                        if self.flush_pos(s, t, Some(e.addr)).is_some() {
                            v.push(Step::Flush {
                                thread: t as u32,
                                addr: Some(e.addr),
                            });
                        }
                    }
                }
            }
        }
    }

    /// Whether `step` is possible in `s` (without running it).
    ///
    /// Errors: why not.
    pub fn can(&self, s: &State, step: Step) -> Result<(), Blocked> {
        if let Step::Instr { thread, instr } = step {
            let t = thread as usize;
            if let Some(ins) = self
                .prog
                .threads
                .get(t)
                .and_then(|th| th.instrs.get(instr as usize))
            {
                if ins.from.0 != s.pc[t] || s.steps[t] >= self.bound {
                    return Err(Blocked::Dead);
                }
                if self.model != Model::Sc && drains_buffer(plain(&ins.cmd)) && !s.buf[t].is_empty()
                {
                    return Err(Blocked::Wait);
                }
                match plain(&ins.cmd) {
                    Command::Assign { .. } | Command::Nop | Command::Select { .. } => return Ok(()),
                    Command::Assume(e) | Command::Guard(e) => {
                        return if eval(self.width, &s.regs[t], e) == 0 {
                            Err(Blocked::Dead)
                        } else {
                            Ok(())
                        }
                    }
                    Command::Store { .. } if self.model != Model::Sc => return Ok(()),
                    Command::Store { .. } | Command::Lock => {
                        return if s.lock.is_some_and(|h| h as usize != t)
                            || (matches!(plain(&ins.cmd), Command::Lock) && s.lock.is_some())
                        {
                            Err(Blocked::Wait)
                        } else {
                            Ok(())
                        }
                    }
                    Command::Load { addr, .. } => {
                        let free = s.lock.is_none_or(|h| h as usize == t);
                        if free || self.model == Model::Sc {
                            return if free { Ok(()) } else { Err(Blocked::Wait) };
                        }
                        let a = eval(self.width, &s.regs[t], addr);
                        return if s.buf[t].iter().any(|e| e.addr == a) {
                            Ok(())
                        } else {
                            Err(Blocked::Wait)
                        };
                    }
                    Command::Fence(_) => {
                        let drains = self.model != Model::Sc && drains_buffer(&ins.cmd);
                        return if drains && !s.buf[t].is_empty() {
                            Err(Blocked::Wait)
                        } else {
                            Ok(())
                        };
                    }
                    _ => {}
                }
            }
        }
        let mut scratch = s.clone();
        self.apply(&mut scratch, step).map(|_| ())
    }

    /// The step of thread `t` in `s` when it is the thread's only
    /// possible step and a local one (an assignment, select, `assume` or
    /// `nop`: no shared access, no effect on buffers), within the bound;
    /// `None` otherwise (an instruction of another kind leaves the state,
    /// or no or several local ones can run). Such a step commutes with
    /// every step of other actors, so Source-DPOR runs it right after the
    /// thread's previous step instead of making it a scheduling point.
    pub fn local_next(&self, s: &State, t: usize) -> Option<Step> {
        let outs = &self.out[t][s.pc[t] as usize];
        if outs.is_empty() || s.steps[t] >= self.bound {
            return None;
        }
        let th = &self.prog.threads[t];
        let mut found = None;
        for &i in outs {
            let on = match plain(&th.instrs[i].cmd) {
                Command::Assign { .. } | Command::Nop | Command::Select { .. } => true,
                Command::Assume(e) | Command::Guard(e) => eval(self.width, &s.regs[t], e) != 0,
                _ => return None,
            };
            if on {
                if found.is_some() {
                    return None;
                }
                found = Some(Step::Instr {
                    thread: t as u32,
                    instr: i as u32,
                });
            }
        }
        found
    }

    /// Whether thread `t` could read memory / take the lock now.
    fn free_for(s: &State, t: usize) -> bool {
        s.lock.is_none_or(|h| h as usize == t)
    }

    /// Runs `step` on `s` in place and reports its effect. On error `s`
    /// may be partly changed (callers run on a copy when unsure: see
    /// [`Semantics::can`]).
    ///
    /// Errors: the step is not possible ([`Blocked`]).
    pub fn apply(&self, s: &mut State, step: Step) -> Result<Effect, Blocked> {
        match step {
            Step::Flush { thread, addr } => {
                let t = thread as usize;
                if t >= s.buf.len() || !Self::free_for(s, t) {
                    return Err(Blocked::Wait);
                }
                let pos = self.flush_pos(s, t, addr).ok_or(Blocked::Wait)?;
                let e = s.buf[t].remove(pos);
                Self::set_mem(s, e.addr, e.val);
                Ok(Effect::Update {
                    addr: e.addr,
                    val: e.val,
                    pos,
                })
            }
            Step::Instr { thread, instr } => {
                let t = thread as usize;
                let ins = self
                    .prog
                    .threads
                    .get(t)
                    .and_then(|th| th.instrs.get(instr as usize))
                    .ok_or(Blocked::Dead)?;
                if ins.from.0 != s.pc[t] || s.steps[t] >= self.bound {
                    return Err(Blocked::Dead);
                }
                let cmd = plain(&ins.cmd);
                let drains = self.model != Model::Sc && drains_buffer(cmd);
                if drains && !s.buf[t].is_empty() {
                    return Err(Blocked::Wait);
                }
                let eff = self.exec(s, t, cmd)?;
                s.pc[t] = ins.to.0;
                s.steps[t] += 1;
                Ok(match eff {
                    Effect::Local if drains => Effect::Fence,
                    e => e,
                })
            }
        }
    }

    /// A load of thread `t` into `reg`: from the thread's own buffer (the
    /// newest store to the address; not under SC), else from memory when
    /// no other thread holds the lock.
    fn load(&self, s: &mut State, t: usize, reg: RegId, addr: &LExpr) -> Result<Effect, Blocked> {
        let w = self.width;
        let a = eval(w, &s.regs[t], addr);
        let fwd = if self.model == Model::Sc {
            None
        } else {
            s.buf[t].iter().rposition(|e| e.addr == a)
        };
        let eff = match fwd {
            Some(pos) => Effect::LoadFwd {
                addr: a,
                val: s.buf[t][pos].val,
                pos,
            },
            None if !Self::free_for(s, t) => return Err(Blocked::Wait),
            None => Effect::LoadMem {
                addr: a,
                val: Self::mem(s, a),
            },
        };
        let v = match eff {
            Effect::LoadFwd { val, .. } | Effect::LoadMem { val, .. } => val,
            _ => 0,
        };
        if let Some(r) = s.regs[t].get_mut(reg.0 as usize) {
            *r = v;
        }
        Ok(eff)
    }

    /// A store of thread `t`: to memory under SC (when no other thread
    /// holds the lock), else into the thread's buffer in its current epoch.
    fn store(
        &self,
        s: &mut State,
        t: usize,
        addr: &LExpr,
        value: &LExpr,
    ) -> Result<Effect, Blocked> {
        let w = self.width;
        let (a, v) = (eval(w, &s.regs[t], addr), eval(w, &s.regs[t], value));
        if self.model == Model::Sc {
            if !Self::free_for(s, t) {
                return Err(Blocked::Wait);
            }
            Self::set_mem(s, a, v);
            Ok(Effect::Direct(smallvec::smallvec![(a, v, true)]))
        } else {
            let epoch = s.epoch[t];
            s.buf[t].push(Entry {
                addr: a,
                val: v,
                epoch,
            });
            Ok(Effect::Buffered {
                addr: a,
                val: v,
                epoch,
            })
        }
    }

    /// An atomic sequence of thread `t`, run at once on memory when no
    /// other thread holds the lock: its accesses in order;
    /// blocked by a false condition (waiting when it read memory) or a
    /// command the engine does not run inside an atomic.
    fn atomic(&self, s: &mut State, t: usize, cs: &[Command]) -> Result<Effect, Blocked> {
        let w = self.width;
        if !Self::free_for(s, t) {
            return Err(Blocked::Wait);
        }
        let mut acc = Accesses::new();
        let mut regs = s.regs[t].clone();
        let mut writes: Vec<(i64, i64)> = Vec::new();
        let read = |s: &State, writes: &[(i64, i64)], a: i64| {
            writes
                .iter()
                .rev()
                .find(|x| x.0 == a)
                .map_or_else(|| Self::mem(s, a), |x| x.1)
        };
        for c in cs {
            match plain(c) {
                Command::Load { reg, addr } => {
                    let a = eval(w, &regs, addr);
                    let v = read(s, &writes, a);
                    acc.push((a, v, false));
                    if let Some(r) = regs.get_mut(reg.0 as usize) {
                        *r = v;
                    }
                }
                Command::Store { addr, value } => {
                    let (a, v) = (eval(w, &regs, addr), eval(w, &regs, value));
                    acc.push((a, v, true));
                    writes.push((a, v));
                }
                Command::Assign { reg, value } => {
                    let v = eval(w, &regs, value);
                    if let Some(r) = regs.get_mut(reg.0 as usize) {
                        *r = v;
                    }
                }
                Command::Select {
                    reg,
                    cond,
                    then,
                    else_,
                } => {
                    let c = eval(w, &regs, cond);
                    let v = eval(w, &regs, if c != 0 { then } else { else_ });
                    if let Some(r) = regs.get_mut(reg.0 as usize) {
                        *r = v;
                    }
                }
                Command::Assume(e) | Command::Guard(e) => {
                    if eval(w, &regs, e) == 0 {
                        // The condition may read memory: another
                        // actor's step may make it true.
                        return Err(if acc.iter().any(|x| !x.2) {
                            Blocked::Wait
                        } else {
                            Blocked::Dead
                        });
                    }
                }
                Command::Nop => {}
                _ => return Err(Blocked::Dead),
            }
        }
        for (a, v) in writes {
            Self::set_mem(s, a, v);
        }
        s.regs[t] = regs;
        Ok(Effect::Direct(acc))
    }

    /// Runs `cmd` for thread `t` in `s` under the model: its effect, or
    /// why it cannot run now ([`Blocked::Wait`]: another actor's step may
    /// enable it; [`Blocked::Dead`]: never in this execution).
    fn exec(&self, s: &mut State, t: usize, cmd: &Command) -> Result<Effect, Blocked> {
        let w = self.width;
        match cmd {
            Command::Load { reg, addr } => self.load(s, t, *reg, addr),
            Command::Store { addr, value } => self.store(s, t, addr, value),
            Command::Assign { reg, value } => {
                let v = eval(w, &s.regs[t], value);
                if let Some(r) = s.regs[t].get_mut(reg.0 as usize) {
                    *r = v;
                }
                Ok(Effect::Local)
            }
            Command::Select {
                reg,
                cond,
                then,
                else_,
            } => {
                let c = eval(w, &s.regs[t], cond);
                let v = eval(w, &s.regs[t], if c != 0 { then } else { else_ });
                if let Some(r) = s.regs[t].get_mut(reg.0 as usize) {
                    *r = v;
                }
                Ok(Effect::Local)
            }
            Command::Assume(e) | Command::Guard(e) => {
                if eval(w, &s.regs[t], e) == 0 {
                    Err(Blocked::Dead)
                } else {
                    Ok(Effect::Local)
                }
            }
            Command::Nop => Ok(Effect::Local),
            Command::Fence(f) => {
                if self.model == Model::Pso && !drains_buffer(cmd) {
                    if let Fence::Membar(m) = f {
                        if m.orders(true, true) {
                            s.epoch[t] += 1;
                        }
                    }
                }
                Ok(Effect::Local)
            }
            Command::Lock => {
                if s.lock.is_some() {
                    return Err(Blocked::Wait);
                }
                s.lock = Some(t as u32);
                Ok(Effect::Lock)
            }
            Command::Unlock => {
                if s.lock != Some(t as u32) {
                    return Err(Blocked::Dead);
                }
                s.lock = None;
                Ok(Effect::Unlock)
            }
            Command::Atomic(cs) => self.atomic(s, t, cs),
            _ => Err(Blocked::Dead),
        }
    }

    /// The first goal of the program that holds in `s` (conditions that
    /// read memory only when every buffer is empty).
    pub fn goal(&self, s: &State) -> Option<usize> {
        let drained = s.buf.iter().all(Vec::is_empty);
        self.prog.goals.iter().position(|g| {
            let at = match &g.at {
                GoalAt::States(l) => l.iter().all(|(t, q)| s.pc.get(t.0 as usize) == Some(&q.0)),
                GoalAt::Final => {
                    (0..self.prog.threads.len()).all(|t| self.out[t][s.pc[t] as usize].is_empty())
                }
            };
            if !at || (crate::program::buffers::reads_memory(g) && !drained) {
                return false;
            }
            g.cond.as_ref().is_none_or(|c| {
                c.eval(self.width, Spmd::default(), &mut |v| match v {
                    GVar::Reg(t, r) => s
                        .regs
                        .get(t.0 as usize)
                        .and_then(|x| x.get(r.0 as usize))
                        .copied()
                        .unwrap_or(0),
                    GVar::Mem(a) => Self::mem(s, a),
                }) != 0
            })
        })
    }

    /// Whether a control state has no outgoing instruction.
    pub fn terminal(&self, t: usize, q: u32) -> bool {
        self.out[t][q as usize].is_empty()
    }
}

impl Semantics<'_> {
    /// The addresses thread `t` waits on in `s`: for each of its next
    /// instructions that waits for another actor ([`Blocked::Wait`]), the
    /// lock's pseudo-address [`LOCK_ADDR`] (lock taken, or held by another
    /// thread) and the addresses an atomic reads. Empty when nothing
    /// waits. Used to reverse races with steps that never ran.
    pub fn waiting_reads(&self, s: &State, t: usize) -> Vec<Loc> {
        let mut v = Vec::new();
        if s.steps[t] >= self.bound {
            return v;
        }
        for &i in &self.out[t][s.pc[t] as usize] {
            let st = Step::Instr {
                thread: t as u32,
                instr: i as u32,
            };
            if self.can(s, st) != Err(Blocked::Wait) {
                continue;
            }
            let cmd = plain(&self.prog.threads[t].instrs[i].cmd);
            if s.lock.is_some_and(|h| h as usize != t) || matches!(cmd, Command::Lock) {
                v.push(LOCK_ADDR);
            }
            if let Command::Atomic(cs) = cmd {
                for c in cs {
                    if let Command::Load { addr, .. } = plain(c) {
                        v.push(Loc::from(eval(self.width, &s.regs[t], addr)));
                    }
                }
            }
        }
        v.sort_unstable();
        v.dedup();
        v
    }

    /// Whether `step` may wait for another actor's step: `lock`, or an
    /// atomic with a condition (a mutex written as a compare-and-swap).
    pub fn may_wait(&self, step: Step) -> bool {
        let Step::Instr { thread, instr } = step else {
            return false;
        };
        let Some(ins) = self
            .prog
            .threads
            .get(thread as usize)
            .and_then(|t| t.instrs.get(instr as usize))
        else {
            return false;
        };
        match plain(&ins.cmd) {
            Command::Lock => true,
            Command::Atomic(cs) => cs
                .iter()
                .any(|c| matches!(plain(c), Command::Assume(_) | Command::Guard(_))),
            _ => false,
        }
    }

    /// Whether thread `t`'s buffered stores wait for the lock (another
    /// thread holds it).
    pub fn flush_waits(&self, s: &State, t: usize) -> bool {
        !s.buf[t].is_empty() && s.lock.is_some_and(|h| h as usize != t)
    }
}
