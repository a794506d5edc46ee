//! SC reachability for programs that run any number of copies of some
//! threads ([`Replicated`]: a `pthread_create` in a loop that never ends),
//! by the counting abstraction (German and Sistla, "Reasoning about
//! systems with many processes", JACM 1992): the copies of a thread are
//! interchangeable, so a state records how many copies are in each local
//! state (control state, registers, the copy's own cells) instead of
//! which. The other threads and the shared memory form the exact part of
//! the state. The counts make an infinite state space a vector addition
//! system with states; [`counting_reach`] computes a finite set `D` of
//! states whose counts may be ω ("any number") such that the initial
//! state is in `D` and every successor of every state of `D` is covered
//! by a state of `D` (Karp and Miller's acceleration, "Parallel program
//! schemata", JCSS 1969, keeps `D` finite: a state that covers an earlier
//! one with the same exact part gets ω wherever it has more).
//!
//! `D` is then an inductive invariant: every reachable state is below a
//! state of `D` (successors are monotone in the counts). When no state of
//! `D` covers an error state, no error state is reachable with any number
//! of copies: a proof. When one does, the answer is unknown — the
//! acceleration over-approximates (it compares with any earlier state,
//! not only with ancestors), so a violation is left to the engines that
//! produce a replayable witness with a fixed number of threads.
//!
//! The semantics of a step is that of [`super::sc_reach`] (plain SC with
//! locks, atomic sequences in one step, live-register reset); a copy is
//! one thread of the program loaded with the copy's local state. The
//! engine refuses (unknown, with the reason) what the abstraction does
//! not model: copies that take the IR's lock, goals that name a copy
//! together with another thread or a condition, a constant equal to a
//! copy's own cell stored or assigned anywhere (the cell's address could
//! reach another thread), an access of a copy's own cell by another
//! thread, a thread-start flag stored to other than by a constant store
//! of 1.

use super::state_space::{set, validate, GoalSpec, Machine, St};
use super::{ExplicitError, Options, Stats};
use crate::collections::HashMap;
use crate::program::{Command, Expr, GVar, GoalAt, LExpr, Program, Replicated};
use std::time::Instant;

/// "Any number" of copies.
const OMEGA: u32 = u32::MAX;

/// What [`counting_reach`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CountingVerdict {
    /// No goal is reachable, for any number of copies of the replicated
    /// threads.
    Unreachable,
    /// No answer: the reason (a limit, a construct outside the
    /// abstraction, or a goal covered by the over-approximation).
    Unknown(String),
}

/// The verdict of [`counting_reach`] and its effort.
#[derive(Clone, Debug)]
pub struct CountingResult {
    /// The verdict.
    pub verdict: CountingVerdict,
    /// `states_visited`: states of the invariant `D` built.
    pub stats: Stats,
}

/// One local state of a copy: its thread's control state (packed as in
/// the state space), registers and own cells.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Local {
    family: usize,
    pc: u32,
    regs: Vec<i64>,
    owned: Vec<i64>,
}

/// A replicated thread as the engine uses it.
struct Family {
    thread: usize,
    flag: i64,
    cells: Vec<i64>,
    /// The program counter of the thread's own slot while no copy is
    /// loaded: past its states, so that it never steps or meets a goal.
    park: u32,
    init: u32,
}

/// Counts per local state (sorted by local-state id; no zero counts).
type Tokens = Vec<(u32, u32)>;

/// The engine's fixed data: the machine, the families, interned locals.
struct Counting<'p> {
    m: Machine<'p>,
    families: Vec<Family>,
    family_of: Vec<Option<usize>>,
    locals: Vec<Local>,
    ids: HashMap<Local, u32>,
}

/// Decides whether a goal of `prog` is reachable under SC with any number
/// of copies of the threads `reps` (module doc). The search stops at the
/// limits of `opts` (unknown); `opts.restricted` is ignored (plain SC:
/// the restricted semantics' favourite thread does not carry over to
/// copies).
///
/// Errors: what [`super::sc_reach`] refuses (an unsupported command, a
/// width over 32 bits).
pub fn counting_reach(
    prog: &Program,
    reps: &[Replicated],
    opts: &Options,
) -> Result<CountingResult, ExplicitError> {
    let start = Instant::now();
    validate(prog, opts.width)?;
    let unknown = |why: String| {
        Ok(CountingResult {
            verdict: CountingVerdict::Unknown(why),
            stats: Stats::default(),
        })
    };
    if let Err(why) = check(prog, reps) {
        return unknown(why);
    }
    let mut m = Machine::new(prog, opts, None, GoalSpec::Program, false);
    m.accesses = Some(Default::default());
    let mut family_of = vec![None; prog.threads.len()];
    let mut families = Vec::new();
    for (k, r) in reps.iter().enumerate() {
        let t = r.thread.0 as usize;
        family_of[t] = Some(k);
        families.push(Family {
            thread: t,
            flag: r.start_flag,
            cells: r.owned.iter().flat_map(|&(lo, hi)| lo..hi).collect(),
            park: (prog.threads[t].states.len() as u32) << 2,
            init: 0,
        });
    }
    let mut c = Counting {
        m,
        families,
        family_of,
        locals: Vec::new(),
        ids: HashMap::default(),
    };
    let mut base = c.m.initial();
    for f in 0..c.families.len() {
        let l = c.unload(&mut base, f);
        c.families[f].init = c.intern(l);
    }
    let r = c.saturate(base, opts, start);
    Ok(CountingResult {
        verdict: match r.0 {
            Ok(()) => CountingVerdict::Unreachable,
            Err(why) => CountingVerdict::Unknown(why),
        },
        stats: Stats {
            states_visited: r.1,
            ..Stats::default()
        },
    })
}

/// The static conditions of the module doc; `Err` names the first that
/// fails.
fn check(prog: &Program, reps: &[Replicated]) -> Result<(), String> {
    let fam: Vec<usize> = reps.iter().map(|r| r.thread.0 as usize).collect();
    if fam.iter().any(|&t| t == 0 || t >= prog.threads.len()) {
        return Err("a replicated thread that is not a created thread".into());
    }
    let owned = |a: i64| {
        reps.iter()
            .any(|r| r.owned.iter().any(|&(lo, hi)| (lo..hi).contains(&a)))
    };
    for g in &prog.goals {
        let GoalAt::States(list) = &g.at else {
            return Err("a goal on the final state, with replicated threads".into());
        };
        let names_copy = list.iter().any(|(t, _)| fam.contains(&(t.0 as usize)));
        if names_copy && (list.len() > 1 || g.cond.is_some()) {
            return Err("a goal naming a replicated thread and more".into());
        }
        let mut bad = false;
        if let Some(c) = &g.cond {
            c.for_each_var(&mut |v| match v {
                GVar::Reg(t, _) => bad |= fam.contains(&(t.0 as usize)),
                GVar::Mem(a) => bad |= owned(a),
            });
        }
        if bad {
            return Err("a goal condition on a replicated thread's registers or cells".into());
        }
    }
    for (ti, t) in prog.threads.iter().enumerate() {
        let mine = reps.iter().find(|r| r.thread.0 as usize == ti);
        let mut why = None;
        // Registers that may hold the address of an own cell (a fixpoint
        // over the assignments); an own cell's address stored to memory
        // could reach another thread or copy.
        let mut held: Vec<bool> = vec![false; t.regs.len()];
        loop {
            let mut grew = false;
            for ins in &t.instrs {
                ins.cmd.for_each(&mut |c| {
                    let (reg, values): (_, Vec<&LExpr>) = match c {
                        Command::Assign { reg, value } => (reg, vec![value]),
                        Command::Select {
                            reg, then, else_, ..
                        } => (reg, vec![then, else_]),
                        _ => return,
                    };
                    let i = reg.0 as usize;
                    if i < held.len() && !held[i] && values.iter().any(|e| holds(e, &owned, &held))
                    {
                        held[i] = true;
                        grew = true;
                    }
                });
            }
            if !grew {
                break;
            }
        }
        for ins in &t.instrs {
            ins.cmd.for_each(&mut |c| match c {
                Command::Lock | Command::Unlock if mine.is_some() => {
                    why = Some("a replicated thread takes the lock");
                }
                Command::Store { addr, value } => {
                    if holds(value, &owned, &held) {
                        why = Some(
                            "the address of a replicated thread's own cell is stored to memory",
                        );
                    }
                    if let Expr::Const(a) = addr {
                        let own = mine
                            .is_some_and(|r| r.owned.iter().any(|&(lo, hi)| (lo..hi).contains(a)));
                        if owned(*a) && !own {
                            why = Some("a thread accesses another's own cell");
                        }
                    }
                }
                _ => {}
            });
        }
        if let Some(w) = why {
            return Err(w.to_string());
        }
    }
    Ok(())
}

/// Whether `e` mentions an own cell's address or a register in `held`.
fn holds(e: &LExpr, owned: &impl Fn(i64) -> bool, held: &[bool]) -> bool {
    match e {
        Expr::Const(v) => owned(*v),
        Expr::Var(r) => held.get(r.0 as usize).copied().unwrap_or(false),
        Expr::Un(_, a) => holds(a, owned, held),
        Expr::Bin(_, a, b) => holds(a, owned, held) || holds(b, owned, held),
        _ => false,
    }
}

/// Whether `c` is or contains the store `flag := 1` (`Some(true)`), a
/// store to `flag` of another form (`Some(false)`), or no store to it.
fn starts(c: &Command, flag: i64) -> Option<bool> {
    let mut found = None;
    c.for_each(&mut |c| {
        if let Command::Store {
            addr: Expr::Const(a),
            value,
        } = c
        {
            if *a == flag {
                let ok = matches!(value, Expr::Const(1));
                found = Some(found.unwrap_or(true) && ok);
            }
        }
    });
    found
}

/// `a ≥ b` in every count.
fn covers(a: &Tokens, b: &Tokens) -> bool {
    let mut i = 0;
    for &(id, cb) in b {
        while i < a.len() && a[i].0 < id {
            i += 1;
        }
        if i == a.len() || a[i].0 != id || a[i].1 < cb {
            return false;
        }
    }
    true
}

/// Adds `d` (±1) to the count of `id` (ω stays ω).
fn add(t: &mut Tokens, id: u32, inc: bool) {
    match t.binary_search_by_key(&id, |e| e.0) {
        Ok(i) => {
            let c = t[i].1;
            if c == OMEGA {
                return;
            }
            if inc {
                t[i].1 = c.saturating_add(1).min(OMEGA - 1);
            } else if c == 1 {
                t.remove(i);
            } else {
                t[i].1 = c - 1;
            }
        }
        Err(i) => {
            if inc {
                t.insert(i, (id, 1));
            }
        }
    }
}

impl<'p> Counting<'p> {
    fn intern(&mut self, l: Local) -> u32 {
        if let Some(&i) = self.ids.get(&l) {
            return i;
        }
        let i = self.locals.len() as u32;
        self.ids.insert(l.clone(), i);
        self.locals.push(l);
        i
    }

    fn regs(&self, t: usize) -> std::ops::Range<usize> {
        self.m.reg_off[t]..self.m.reg_off[t + 1]
    }

    /// Takes family `f`'s slot out of `s` (parked, registers 0, own
    /// cells at their initial values) and returns the local state it held.
    fn unload(&self, s: &mut St, f: usize) -> Local {
        let fam = &self.families[f];
        let t = fam.thread;
        let regs = self.regs(t);
        let l = Local {
            family: f,
            pc: s.pc[t],
            regs: s.regs[regs.clone()].to_vec(),
            owned: fam.cells.iter().map(|&a| self.m.mem_get(s, a)).collect(),
        };
        s.pc[t] = fam.park;
        s.regs[regs].iter_mut().for_each(|r| *r = 0);
        for &a in &fam.cells {
            let d = self.m.init_val(a);
            set(&mut s.mem, a, d, d);
        }
        l
    }

    /// `base` with the copy `l` loaded into its family's slot.
    fn load(&self, base: &St, l: &Local) -> St {
        let fam = &self.families[l.family];
        let mut s = base.clone();
        s.pc[fam.thread] = l.pc;
        let regs = self.regs(fam.thread);
        s.regs[regs].copy_from_slice(&l.regs);
        for (&a, &v) in fam.cells.iter().zip(&l.owned) {
            set(&mut s.mem, a, v, self.m.init_val(a));
        }
        s
    }

    /// Whether a goal holds in `base` or with one of the copies loaded.
    fn goal(&self, base: &St, tokens: &Tokens) -> bool {
        self.m.goal(base).is_some()
            || tokens.iter().any(|&(id, _)| {
                self.m
                    .goal(&self.load(base, &self.locals[id as usize]))
                    .is_some()
            })
    }

    /// The accesses of the last steps, checked against the own cells:
    /// `Err` when a thread (or a copy of family `by`) touched a cell
    /// another family owns.
    fn check_accesses(&self, by: Option<usize>) -> Result<(), String> {
        let Some(log) = &self.m.accesses else {
            return Ok(());
        };
        let mut log = log.borrow_mut();
        for &(a, _) in log.iter() {
            for (k, f) in self.families.iter().enumerate() {
                if Some(k) != by && f.cells.contains(&a) {
                    return Err("a thread accessed a replicated thread's own cell".into());
                }
            }
        }
        log.clear();
        Ok(())
    }

    /// Successors of `(base, tokens)`; `Err`: outside the abstraction.
    fn successors(
        &mut self,
        base: &St,
        tokens: &Tokens,
        out: &mut Vec<(St, Tokens)>,
    ) -> Result<(), String> {
        let mut buf = Vec::new();
        for t in 0..self.m.prog.threads.len() {
            if self.family_of[t].is_some() {
                continue;
            }
            buf.clear();
            self.m.thread_successors(base, t, &mut buf);
            self.check_accesses(None)?;
            for (step, n) in buf.drain(..) {
                let mut tk = tokens.clone();
                self.spawn(t, step.instr as usize, &mut tk)?;
                out.push((n, tk));
            }
        }
        for &(id, _) in tokens {
            let l = self.locals[id as usize].clone();
            let f = l.family;
            let t = self.families[f].thread;
            let s = self.load(base, &l);
            buf.clear();
            self.m.thread_successors(&s, t, &mut buf);
            self.check_accesses(Some(f))?;
            for (step, mut n) in buf.drain(..) {
                let l2 = self.unload(&mut n, f);
                let id2 = self.intern(l2);
                let mut tk = tokens.clone();
                add(&mut tk, id, false);
                add(&mut tk, id2, true);
                self.spawn(t, step.instr as usize, &mut tk)?;
                out.push((n, tk));
            }
        }
        Ok(())
    }

    /// The copies instruction `i` of thread `t` starts.
    fn spawn(&self, t: usize, i: usize, tk: &mut Tokens) -> Result<(), String> {
        let cmd = &self.m.prog.threads[t].instrs[i].cmd;
        for f in &self.families {
            match starts(cmd, f.flag) {
                Some(true) => add(tk, f.init, true),
                Some(false) => return Err("a thread-start flag stored to other than 1".into()),
                None => {}
            }
        }
        Ok(())
    }

    /// Builds the invariant `D` from `base` (module doc): `Ok` when no
    /// state of it covers a goal; with the number of states of `D` made.
    fn saturate(&mut self, base: St, opts: &Options, start: Instant) -> (Result<(), String>, u64) {
        let mut d: HashMap<Vec<u8>, Vec<Tokens>> = HashMap::default();
        let mut work: std::collections::VecDeque<(St, Tokens)> = Default::default();
        let mut key = Vec::new();
        let mut made = 0u64;
        let mut bytes = 0usize;
        let deadline = opts.limits.timeout.map(|t| start + t);
        base.encode(&mut key);
        d.insert(key.clone(), vec![Vec::new()]);
        work.push_back((base, Vec::new()));
        let mut out = Vec::new();
        while let Some((s, tk)) = work.pop_front() {
            s.encode(&mut key);
            if !d.get(&key).is_some_and(|l| l.contains(&tk)) {
                continue; // covered by a later state since
            }
            if self.goal(&s, &tk) {
                return (
                    Err("the counting abstraction reaches an error state (no proof)".into()),
                    made,
                );
            }
            if deadline.is_some_and(|x| Instant::now() >= x) {
                return (Err("timeout".into()), made);
            }
            if opts.limits.max_states.is_some_and(|m| made as usize >= m)
                || opts.limits.max_memory_bytes.is_some_and(|m| bytes >= m)
            {
                return (Err("state or memory limit".into()), made);
            }
            out.clear();
            if let Err(why) = self.successors(&s, &tk, &mut out) {
                return (Err(why), made);
            }
            for (n, mut ntk) in out.drain(..) {
                n.encode(&mut key);
                let list = d.entry(key.clone()).or_default();
                if list.iter().any(|x| covers(x, &ntk)) {
                    continue;
                }
                // Acceleration: more than an earlier state with the same
                // exact part — any number more.
                for x in list.iter() {
                    if covers(&ntk, x) {
                        for e in ntk.iter_mut() {
                            let before =
                                x.binary_search_by_key(&e.0, |y| y.0).map_or(0, |i| x[i].1);
                            if e.1 > before {
                                e.1 = OMEGA;
                            }
                        }
                    }
                }
                list.retain(|x| !covers(&ntk, x));
                list.push(ntk.clone());
                made += 1;
                bytes += key.len() + 16 * ntk.len() + 64;
                work.push_back((n, ntk));
            }
        }
        (Ok(()), made)
    }
}
