//! The operational TSO semantics (thesis `003_…` §2.4.2): every thread
//! has a FIFO store buffer; a store enters the buffer, a load reads the
//! thread's latest buffered store to its address or else memory, a flush
//! moves the oldest buffered store of a thread to memory; `mfence` (and
//! every command of [`crate::program::buffers::drains_buffer`]) and atomics need
//! an empty buffer; atomics run in one step on memory. With a global lock
//! (§7.1.1): `lock`/`unlock` need an empty buffer, and while another
//! thread holds the lock a thread cannot read memory, run an atomic or
//! flush.
//!
//! Used as the witness checker ([`check_witness`]: replay a TSO
//! computation step by step and test the goal) and as an explicit search
//! ([`explore`]) bounded by rounds per thread and buffer length — the
//! "explicit TSO simulator" of `crosscheck` and the oracle of the k-round
//! tests. Goal conditions that read memory are tested only when every
//! buffer is empty; other goals at any state (buffers may be non-empty).

use crate::collections::HashMap;
use crate::program::buffers::drains_buffer;
use crate::program::{Command, GVar, GoalAt, LExpr, Program, RegId, Spmd, ThreadId, Width};
use std::collections::{BTreeMap, VecDeque};
use std::time::Instant;

/// One step of a TSO computation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum TsoStep {
    /// Thread `thread` executes its instruction `instr` (index into
    /// `Thread::instrs`).
    Instr {
        /// The thread.
        thread: ThreadId,
        /// Index into the thread's instructions.
        instr: usize,
    },
    /// The oldest store in `thread`'s buffer reaches memory.
    Flush {
        /// The thread.
        thread: ThreadId,
    },
}

impl TsoStep {
    /// The thread that moves (the owner of the buffer for a flush).
    pub fn thread(&self) -> ThreadId {
        match self {
            TsoStep::Instr { thread, .. } | TsoStep::Flush { thread } => *thread,
        }
    }

    /// Readable form, e.g. `t0: q0 -> q1  x = 1` or `t0: flush`.
    pub fn describe(&self, p: &Program) -> String {
        match *self {
            TsoStep::Instr { thread, instr } => {
                let ins = &p.threads[thread.0 as usize].instrs[instr];
                format!(
                    "{}: {} -> {}  {}",
                    p.thread_name(thread),
                    p.state_name(thread, ins.from),
                    p.state_name(thread, ins.to),
                    crate::program::render::command(p, thread, &ins.cmd)
                )
            }
            TsoStep::Flush { thread } => format!("{}: flush", p.thread_name(thread)),
        }
    }
}

/// A TSO configuration: control states, registers, memory (cells
/// written so far; others hold their initial value), buffers (oldest
/// first), the lock holder, and the round count of each thread.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TsoState {
    /// Control state per thread.
    pub pc: Vec<u32>,
    /// Registers per thread.
    pub regs: Vec<Vec<i64>>,
    /// Memory cells that differ from the initial memory or were written.
    pub mem: BTreeMap<i64, i64>,
    /// Store buffers `(address, value)`, oldest first.
    pub buf: Vec<VecDeque<(i64, i64)>>,
    /// The thread holding the global lock.
    pub lock: Option<u32>,
    /// The thread that moved last.
    pub last: Option<u32>,
    /// Rounds used per thread.
    pub rounds: Vec<u32>,
}

/// The initial configuration of `p`.
pub fn initial(p: &Program) -> TsoState {
    let n = p.threads.len();
    TsoState {
        pc: p.threads.iter().map(|t| t.initial.0).collect(),
        regs: p.threads.iter().map(|t| t.reg_init.clone()).collect(),
        mem: p.init.clone(),
        buf: vec![VecDeque::new(); n],
        lock: None,
        last: None,
        rounds: vec![0; n],
    }
}

fn eval(w: Width, regs: &[i64], e: &LExpr) -> i64 {
    e.eval(w, Spmd::default(), &mut |r: RegId| regs[r.0 as usize])
}

fn mem_get(s: &TsoState, a: i64) -> i64 {
    s.mem.get(&a).copied().unwrap_or(0)
}

/// Applies one step.
///
/// Errors: the step is not enabled (the message says why), or a round
/// limit `max_rounds` would be exceeded.
pub fn apply(
    p: &Program,
    w: Width,
    s: &TsoState,
    step: TsoStep,
    max_rounds: Option<u32>,
) -> Result<TsoState, String> {
    let t = step.thread().0 as usize;
    if t >= p.threads.len() {
        return Err("no such thread".into());
    }
    let other_locked = s.lock.is_some_and(|h| h as usize != t);
    let mut n = s.clone();
    if n.last != Some(t as u32) {
        n.rounds[t] += 1;
        if max_rounds.is_some_and(|k| n.rounds[t] > k) {
            return Err(format!("thread {} would start round {}", t, n.rounds[t]));
        }
        n.last = Some(t as u32);
    }
    match step {
        TsoStep::Flush { .. } => {
            if other_locked {
                return Err("another thread holds the lock".into());
            }
            let (a, v) = n.buf[t].pop_front().ok_or("the buffer is empty")?;
            n.mem.insert(a, v);
        }
        TsoStep::Instr { instr, .. } => {
            let ins = p.threads[t]
                .instrs
                .get(instr)
                .ok_or("no such instruction")?;
            if ins.from.0 != s.pc[t] {
                return Err(format!(
                    "the thread is at {}, not at {}",
                    p.state_name(ThreadId(t as u32), crate::program::StateId(s.pc[t])),
                    p.state_name(ThreadId(t as u32), ins.from)
                ));
            }
            let empty = s.buf[t].is_empty();
            if drains_buffer(&ins.cmd) && !empty {
                return Err("the buffer must be empty".into());
            }
            let regs = &mut n.regs[t];
            match &ins.cmd {
                Command::Load { reg, addr } => {
                    let a = eval(w, regs, addr);
                    let v = match s.buf[t].iter().rev().find(|b| b.0 == a) {
                        Some(&(_, v)) => v,
                        None if other_locked => return Err("another thread holds the lock".into()),
                        None => mem_get(s, a),
                    };
                    regs[reg.0 as usize] = v;
                }
                Command::Store { addr, value } => {
                    let (a, v) = (eval(w, regs, addr), eval(w, regs, value));
                    n.buf[t].push_back((a, v));
                }
                Command::Assign { reg, value } => regs[reg.0 as usize] = eval(w, regs, value),
                Command::Assume(e) => {
                    if eval(w, regs, e) == 0 {
                        return Err("the assumption is false".into());
                    }
                }
                Command::Fence(_) | Command::Nop => {}
                Command::Lock => {
                    if s.lock.is_some() {
                        return Err("the lock is held".into());
                    }
                    n.lock = Some(t as u32);
                }
                Command::Unlock => {
                    if s.lock != Some(t as u32) {
                        return Err("the thread does not hold the lock".into());
                    }
                    n.lock = None;
                }
                Command::Atomic(cs) => {
                    if other_locked {
                        return Err("another thread holds the lock".into());
                    }
                    for c in cs {
                        match c {
                            Command::Load { reg, addr } => {
                                let a = eval(w, regs, addr);
                                regs[reg.0 as usize] = n.mem.get(&a).copied().unwrap_or(0);
                            }
                            Command::Store { addr, value } => {
                                let (a, v) = (eval(w, regs, addr), eval(w, regs, value));
                                n.mem.insert(a, v);
                            }
                            Command::Assign { reg, value } => {
                                regs[reg.0 as usize] = eval(w, regs, value)
                            }
                            Command::Assume(e) => {
                                if eval(w, regs, e) == 0 {
                                    return Err("the assumption is false".into());
                                }
                            }
                            Command::Nop => {}
                            _ => return Err("unsupported command inside atomic".into()),
                        }
                    }
                }
                _ => return Err("command not modelled by the TSO semantics".into()),
            }
            n.pc[t] = ins.to.0;
        }
    }
    Ok(n)
}

/// The first goal of `p` that holds in `s` (memory conditions only with
/// every buffer empty).
pub fn goal(p: &Program, w: Width, s: &TsoState) -> Option<usize> {
    let drained = s.buf.iter().all(VecDeque::is_empty);
    p.goals.iter().position(|g| {
        let at = match &g.at {
            GoalAt::States(l) => l.iter().all(|(t, q)| s.pc[t.0 as usize] == q.0),
            GoalAt::Final => p
                .threads
                .iter()
                .enumerate()
                .all(|(t, th)| th.instrs.iter().all(|i| i.from.0 != s.pc[t])),
        };
        if !at || (crate::program::buffers::reads_memory(g) && !drained) {
            return false;
        }
        g.cond.as_ref().is_none_or(|c| {
            c.eval(w, Spmd::default(), &mut |v| match v {
                GVar::Reg(t, r) => s.regs[t.0 as usize][r.0 as usize],
                GVar::Mem(a) => mem_get(s, a),
            }) != 0
        })
    })
}

/// Replays a TSO computation from the initial configuration and checks
/// that it ends in goal `goal` — the witness checker of the TSO engines.
///
/// Errors: step `i` is not enabled (message names the step and why), or
/// the goal does not hold at the end.
pub fn check_witness(
    p: &Program,
    w: Width,
    steps: &[TsoStep],
    goal_ix: usize,
) -> Result<(), String> {
    let mut s = initial(p);
    for (i, st) in steps.iter().enumerate() {
        s = apply(p, w, &s, *st, None)
            .map_err(|e| format!("step {} ({}): {e}", i + 1, st.describe(p)))?;
    }
    // The goal may need the buffers drained (memory conditions).
    let holds = |s: &TsoState| {
        let g = &p.goals[goal_ix];
        let mut q = p.clone();
        q.goals = vec![g.clone()];
        goal(&q, w, s).is_some()
    };
    if holds(&s) {
        Ok(())
    } else {
        Err(format!(
            "the goal #{} does not hold after the computation",
            goal_ix + 1
        ))
    }
}

/// Limits of [`explore`].
#[derive(Clone, Debug)]
pub struct SimOptions {
    /// Width of values.
    pub width: Width,
    /// At most this many rounds per thread (`None`: unbounded).
    pub max_rounds: Option<u32>,
    /// Stores beyond this many buffered entries are not explored; the
    /// answer is then "unknown" instead of "unreachable".
    pub max_buffer: usize,
    /// Most configurations visited.
    pub max_states: usize,
    /// Wall-clock deadline.
    pub deadline: Option<Instant>,
}

impl Default for SimOptions {
    /// Width 16, no round bound, buffers of 8, 2 million configurations.
    fn default() -> Self {
        SimOptions {
            width: Width::DEFAULT,
            max_rounds: None,
            max_buffer: 8,
            max_states: 2_000_000,
            deadline: None,
        }
    }
}

/// Answer of [`explore`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SimVerdict {
    /// A goal is reachable; the TSO computation reaching it.
    Reachable {
        /// Index into `Program::goals`.
        goal: usize,
        /// The computation.
        steps: Vec<TsoStep>,
    },
    /// No goal is reachable (within `max_rounds` if given; the buffer cap
    /// was never hit).
    Unreachable,
    /// A limit was hit first.
    Unknown(String),
}

/// Breadth-first search of the TSO configurations of `p` (shortest
/// witnesses first), within the limits of `o` and the process's memory
/// budget ([`crate::resources::check_memory`], checked at every state).
pub fn explore(p: &Program, o: &SimOptions) -> SimVerdict {
    let w = o.width;
    let s0 = initial(p);
    let mut index: HashMap<TsoState, usize> = HashMap::default();
    let mut states = vec![s0.clone()];
    let mut parent: Vec<Option<(usize, TsoStep)>> = vec![None];
    index.insert(s0, 0);
    let mut capped = false;
    let mut i = 0;
    while i < states.len() {
        // Every state: one state of many threads has hundreds of
        // successors, each a copy of the state.
        if let Err(why) = crate::resources::check_limits(o.deadline) {
            crate::resources::drop_in_background((index, states, parent));
            return SimVerdict::Unknown(why);
        }
        let s = states[i].clone();
        if let Some(g) = goal(p, w, &s) {
            let mut steps = Vec::new();
            let mut k = i;
            while let Some((pk, st)) = parent[k] {
                steps.push(st);
                k = pk;
            }
            steps.reverse();
            return SimVerdict::Reachable { goal: g, steps };
        }
        let mut cands = Vec::new();
        for t in 0..p.threads.len() {
            let tid = ThreadId(t as u32);
            if !s.buf[t].is_empty() {
                cands.push(TsoStep::Flush { thread: tid });
            }
            for (k, ins) in p.threads[t].instrs.iter().enumerate() {
                if ins.from.0 == s.pc[t] {
                    if matches!(ins.cmd, Command::Store { .. }) && s.buf[t].len() >= o.max_buffer {
                        capped = true;
                        continue;
                    }
                    cands.push(TsoStep::Instr {
                        thread: tid,
                        instr: k,
                    });
                }
            }
        }
        for st in cands {
            if let Ok(mut n) = apply(p, w, &s, st, o.max_rounds) {
                if o.max_rounds.is_none() {
                    // Rounds matter only when bounded.
                    n.last = None;
                    n.rounds.iter_mut().for_each(|r| *r = 0);
                }
                if !index.contains_key(&n) {
                    if states.len() >= o.max_states {
                        return SimVerdict::Unknown(format!(
                            "more than {} TSO configurations",
                            o.max_states
                        ));
                    }
                    index.insert(n.clone(), states.len());
                    states.push(n);
                    parent.push(Some((i, st)));
                }
            }
        }
        i += 1;
    }
    if capped {
        SimVerdict::Unknown(format!("a store buffer exceeded {} entries", o.max_buffer))
    } else {
        SimVerdict::Unreachable
    }
}
