//! The state space: packed SC states of a program, possibly instrumented
//! for an attack (thesis `003_…` §6.2), the successor relation of SC with
//! locks / restricted SC with locks (Tables 7.1, 7.2), live-register reset
//! (§7.1.3), and the iterative search.

use super::{ExplicitError, Limits, Options, SearchOrder, Stats};
use crate::collections::HashMap;
use crate::program::{Command, Expr, GExpr, GVar, GoalAt, LExpr, Program, RegId, ThreadId, Width};
use crate::program::{Fence, Spmd};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

// ---------------------------------------------------------------------------
// States.

/// Control mode of a thread (packed into the low 2 bits of its pc).
pub(crate) const ORIG: u32 = 0;
/// Hat copy: attacker delaying stores / helper on the hb path.
pub(crate) const HAT: u32 = 1;
/// Attacker after the attack's load (state `q_w` of rule (6.5)).
pub(crate) const WAIT: u32 = 2;

/// One SC state of the (instrumented) program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct St {
    /// Per thread: `state << 2 | mode`.
    pub pc: Vec<u32>,
    /// All registers, thread after thread (offsets in [`Machine::reg_off`]).
    pub regs: Vec<i64>,
    /// Memory cells that differ from their initial value, sorted by address.
    pub mem: Vec<(i64, i64)>,
    /// Shadow cells `(a, d)`: the attacker's last delayed store per address.
    pub shadow: Vec<(i64, i64)>,
    /// Access levels `(a, hb)`: 1 = load, 2 = store.
    pub hb: Vec<(i64, i64)>,
    /// The attacker's register `r_a` (address of the first delayed store).
    pub ra: i64,
    /// Lock owner + 1 (0 = free).
    pub lock: u32,
    /// Favourite thread + 1 (0 = any), Table 7.2.
    pub fav: u32,
    /// Access levels `(a, hb)` pending in an indivisible section: the
    /// accesses a helper not (yet) on the hb path made in its current
    /// lock section or atomic step. Robustness contracts the section to
    /// one node (docs/models.md, "Robustness and indivisible sections"),
    /// so when a later access of the section joins the hb path, these
    /// earlier ones join it too ([`Machine::join_hb`]). Empty outside a
    /// section.
    pub sec: Vec<(i64, i64)>,
}

pub(crate) fn get(map: &[(i64, i64)], a: i64) -> Option<i64> {
    map.binary_search_by_key(&a, |e| e.0).ok().map(|i| map[i].1)
}

pub(crate) fn set(map: &mut Vec<(i64, i64)>, a: i64, v: i64, default: i64) {
    match map.binary_search_by_key(&a, |e| e.0) {
        Ok(i) => {
            if v == default {
                map.remove(i);
            } else {
                map[i].1 = v;
            }
        }
        Err(i) => {
            if v != default {
                map.insert(i, (a, v));
            }
        }
    }
}

fn put_var(buf: &mut Vec<u8>, v: i64) {
    let mut z = ((v << 1) ^ (v >> 63)) as u64;
    loop {
        let b = (z & 0x7f) as u8;
        z >>= 7;
        if z == 0 {
            buf.push(b);
            return;
        }
        buf.push(b | 0x80);
    }
}

impl St {
    /// Packs the state into bytes (zig-zag varints).
    pub fn encode(&self, buf: &mut Vec<u8>) {
        buf.clear();
        for &p in &self.pc {
            put_var(buf, p as i64);
        }
        for &r in &self.regs {
            put_var(buf, r);
        }
        for m in [&self.mem, &self.shadow, &self.hb, &self.sec] {
            put_var(buf, m.len() as i64);
            for &(a, v) in m.iter() {
                put_var(buf, a);
                put_var(buf, v);
            }
        }
        put_var(buf, self.ra);
        put_var(buf, self.lock as i64);
        put_var(buf, self.fav as i64);
    }

    fn approx_bytes(&self) -> usize {
        64 + 8
            * (self.pc.len()
                + self.regs.len()
                + 2 * (self.mem.len() + self.shadow.len() + self.hb.len() + self.sec.len()))
    }
}

/// A step label: which thread executed which instruction, and which
/// instrumented variant (`kind` 0 = the instruction itself or its hat copy,
/// 1 = the attack's entry (6.1) / exit (6.5) variant).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Step {
    pub thread: u32,
    pub instr: u32,
    pub kind: u8,
}

// ---------------------------------------------------------------------------
// The machine: a program, optionally instrumented for an attack.

/// The attack a machine is instrumented for.
#[derive(Clone, Debug)]
pub(crate) struct AttackCfg {
    pub thread: usize,
    pub store: usize,
    pub load: usize,
    /// States of the attacker where a fence was (virtually) inserted: the
    /// hat copy cannot leave them (§6.5).
    pub fenced: Vec<bool>,
}

/// What the search is looking for.
#[derive(Clone, Debug)]
pub(crate) enum GoalSpec {
    /// The attacker reached `q_f` (rule (6.6)).
    Attack,
    /// One of the program's goals (index into `Program::goals`).
    Program,
}

pub(crate) struct Machine<'p> {
    pub prog: &'p Program,
    pub w: Width,
    pub out: Vec<Vec<Vec<usize>>>,
    pub reg_off: Vec<usize>,
    /// `live[t][q][r]`: register r of thread t is live at q.
    pub live: Vec<Vec<Vec<bool>>>,
    pub restricted: bool,
    pub live_opt: bool,
    pub attack: Option<AttackCfg>,
    pub goal: GoalSpec,
    /// When `Some`, every memory access a step makes is appended here:
    /// `(address, is_store)` (the counting abstraction reads it).
    pub accesses: Option<std::cell::RefCell<Vec<(i64, bool)>>>,
}

/// Role of the executing thread for one command.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    /// Plain SC (no attack, or the attacker before delaying).
    Plain,
    /// A helper; `true` = in its hat copy.
    Helper(bool),
    /// The attacker delaying stores.
    AttackerHat,
}

/// Checks that every command is one the engines model.
pub(crate) fn validate(p: &Program, w: Width) -> Result<(), ExplicitError> {
    if w.0 == 0 || w.0 > 32 {
        return Err(ExplicitError::BadWidth(w.0));
    }
    if p.nodes.is_some() {
        return Err(ExplicitError::Pgas);
    }
    for (ti, t) in p.threads.iter().enumerate() {
        for ins in &t.instrs {
            let bad = |what: &str| ExplicitError::Unsupported {
                thread: p.thread_name(ThreadId(ti as u32)).to_string(),
                from: p.state_name(ThreadId(ti as u32), ins.from).to_string(),
                to: p.state_name(ThreadId(ti as u32), ins.to).to_string(),
                what: what.to_string(),
            };
            check_cmd(&ins.cmd, false).map_err(|w| bad(&w))?;
            if ins.from.0 as usize >= t.states.len() || ins.to.0 as usize >= t.states.len() {
                return Err(bad("a dangling control state"));
            }
        }
        if t.initial.0 as usize >= t.states.len() || t.reg_init.len() != t.regs.len() {
            return Err(ExplicitError::Unsupported {
                thread: p.thread_name(ThreadId(ti as u32)).to_string(),
                from: String::new(),
                to: String::new(),
                what: "a malformed thread (initial state or register table)".into(),
            });
        }
    }
    Ok(())
}

/// Checks one command (`inside_atomic`: it is part of an `Atomic`
/// sequence); `Err` says what is unsupported.
pub(crate) fn check_cmd(c: &Command, inside_atomic: bool) -> Result<(), String> {
    let spmd = |e: &LExpr| {
        if e.mentions_spmd() {
            Err("`rank`/`nodes`".to_string())
        } else {
            Ok(())
        }
    };
    match c {
        Command::Load { addr, .. } => spmd(addr),
        Command::Store { addr, value } => spmd(addr).and(spmd(value)),
        Command::Assign { value, .. } => spmd(value),
        Command::Assume(e) | Command::Guard(e) => spmd(e),
        Command::Select {
            cond, then, else_, ..
        } => spmd(cond).and(spmd(then)).and(spmd(else_)),
        // Annotations order nothing more under SC and TSO.
        Command::Ann(_, c) | Command::Tagged(_, c) => check_cmd(c, inside_atomic),
        Command::Fence(_) | Command::Nop => Ok(()),
        Command::Lock | Command::Unlock if inside_atomic => {
            Err("lock/unlock inside an atomic sequence".into())
        }
        Command::Lock | Command::Unlock => Ok(()),
        Command::Atomic(cs) => {
            if inside_atomic {
                return Err("a nested atomic sequence".into());
            }
            cs.iter().try_for_each(|c| check_cmd(c, true))
        }
        Command::LoadReserve { .. } => Err("`lwarx` (LoadReserve)".into()),
        Command::StoreCond { .. } => Err("`stwcx.` (StoreCond)".into()),
        Command::Pgas(_) => Err("a PGAS command".into()),
    }
}

impl<'p> Machine<'p> {
    pub fn new(
        prog: &'p Program,
        opts: &Options,
        attack: Option<AttackCfg>,
        goal: GoalSpec,
        restricted: bool,
    ) -> Machine<'p> {
        let mut always: Vec<Vec<RegId>> = vec![Vec::new(); prog.threads.len()];
        if matches!(goal, GoalSpec::Program) {
            for g in &prog.goals {
                if let Some(c) = &g.cond {
                    c.for_each_var(&mut |v| {
                        if let GVar::Reg(t, r) = v {
                            if let Some(a) = always.get_mut(t.0 as usize) {
                                a.push(r);
                            }
                        }
                    });
                }
            }
        }
        let mut reg_off = vec![0];
        for t in &prog.threads {
            reg_off.push(reg_off.last().copied().unwrap_or(0) + t.regs.len());
        }
        Machine {
            prog,
            w: opts.width,
            out: prog.threads.iter().map(|t| t.outgoing()).collect(),
            reg_off,
            live: crate::program::liveness::program_liveness(prog, &always),
            restricted,
            live_opt: opts.live_registers,
            attack,
            goal,
            accesses: None,
        }
    }

    pub fn initial(&self) -> St {
        let mut regs = Vec::new();
        for t in &self.prog.threads {
            regs.extend(t.reg_init.iter().map(|v| self.w.wrap(*v)));
        }
        let mut mem: Vec<(i64, i64)> = Vec::new();
        // Initial memory is the program's `init`; cells equal to it are not
        // stored, so the initial state has an empty map.
        let _ = &mut mem;
        let mut s = St {
            pc: self.prog.threads.iter().map(|t| t.initial.0 << 2).collect(),
            regs,
            mem,
            shadow: Vec::new(),
            hb: Vec::new(),
            ra: 0,
            lock: 0,
            fav: 0,
            sec: Vec::new(),
        };
        for t in 0..self.prog.threads.len() {
            self.reset_dead(&mut s, t);
        }
        s
    }

    pub(crate) fn init_val(&self, a: i64) -> i64 {
        self.w.wrap(self.prog.init_value(a))
    }

    pub(crate) fn mem_get(&self, s: &St, a: i64) -> i64 {
        get(&s.mem, a).unwrap_or_else(|| self.init_val(a))
    }

    pub(crate) fn eval(&self, s: &St, t: usize, e: &LExpr) -> i64 {
        let regs = &s.regs[self.reg_off[t]..self.reg_off[t + 1]];
        e.eval(self.w, Spmd::default(), &mut |r: RegId| {
            regs.get(r.0 as usize).copied().unwrap_or(0)
        })
    }

    fn set_reg(&self, s: &mut St, t: usize, r: RegId, v: i64) {
        let i = self.reg_off[t] + r.0 as usize;
        if i < self.reg_off[t + 1] {
            s.regs[i] = self.w.wrap(v);
        }
    }

    fn reset_dead(&self, s: &mut St, t: usize) {
        if !self.live_opt {
            return;
        }
        let pc = s.pc[t];
        let (q, mode) = ((pc >> 2) as usize, pc & 3);
        let base = self.reg_off[t];
        for r in 0..self.reg_off[t + 1] - base {
            let live = mode != WAIT && self.live[t].get(q).is_some_and(|l| l[r]);
            if !live {
                s.regs[base + r] = 0;
            }
        }
    }

    /// Records an access in [`Machine::accesses`] when it is kept.
    fn note(&self, a: i64, store: bool) {
        if let Some(log) = &self.accesses {
            log.borrow_mut().push((a, store));
        }
    }

    fn lock_ok(s: &St, t: usize) -> bool {
        s.lock == 0 || s.lock == t as u32 + 1
    }

    /// The pending accesses of the current indivisible section
    /// ([`St::sec`]) join the hb path: the section, contracted to one
    /// node, has an access on it.
    fn join_hb(s: &mut St) {
        for (a, l) in std::mem::take(&mut s.sec) {
            let lvl = get(&s.hb, a).unwrap_or(0);
            set(&mut s.hb, a, lvl.max(l), 0);
        }
    }

    /// Executes `cmd` for thread `t` in role `role` on `s`; `in_section`:
    /// `cmd` is part of an atomic step. Returns `None` when blocked, else
    /// whether the step was non-local (touched memory or released the
    /// lock, Table 7.2). A helper's accesses in a lock section or atomic
    /// step before it joins the hb path are kept pending ([`St::sec`]).
    fn exec(
        &self,
        s: &mut St,
        t: usize,
        cmd: &Command,
        role: &mut Role,
        in_section: bool,
    ) -> Option<bool> {
        match cmd {
            Command::Load { reg, addr } => {
                if !Self::lock_ok(s, t) {
                    return None;
                }
                let a = self.eval(s, t, addr);
                self.note(a, false);
                let v = match *role {
                    Role::AttackerHat => get(&s.shadow, a).unwrap_or_else(|| self.mem_get(s, a)),
                    Role::Helper(hat) => {
                        let lvl = get(&s.hb, a).unwrap_or(0);
                        if hat {
                            set(&mut s.hb, a, lvl.max(1), 0);
                        } else if lvl == 2 {
                            *role = Role::Helper(true);
                            Self::join_hb(s);
                        } else if in_section || s.lock == t as u32 + 1 {
                            let p = get(&s.sec, a).unwrap_or(0);
                            set(&mut s.sec, a, p.max(1), 0);
                        }
                        self.mem_get(s, a)
                    }
                    Role::Plain => self.mem_get(s, a),
                };
                self.set_reg(s, t, *reg, v);
                Some(true)
            }
            Command::Store { addr, value } => {
                if !Self::lock_ok(s, t) {
                    return None;
                }
                let a = self.eval(s, t, addr);
                self.note(a, true);
                let v = self.eval(s, t, value);
                match *role {
                    Role::AttackerHat => set(&mut s.shadow, a, v, i64::MIN),
                    Role::Helper(hat) => {
                        let lvl = get(&s.hb, a).unwrap_or(0);
                        if hat || lvl != 0 {
                            *role = Role::Helper(true);
                            set(&mut s.hb, a, 2, 0);
                            Self::join_hb(s);
                        } else if in_section || s.lock == t as u32 + 1 {
                            set(&mut s.sec, a, 2, 0);
                        }
                        let d = self.init_val(a);
                        set(&mut s.mem, a, v, d);
                    }
                    Role::Plain => {
                        let d = self.init_val(a);
                        set(&mut s.mem, a, v, d);
                    }
                }
                Some(true)
            }
            Command::Assign { reg, value } => {
                let v = self.eval(s, t, value);
                self.set_reg(s, t, *reg, v);
                Some(false)
            }
            Command::Assume(e) | Command::Guard(e) => (self.eval(s, t, e) != 0).then_some(false),
            Command::Select {
                reg,
                cond,
                then,
                else_,
            } => {
                let c = self.eval(s, t, cond);
                let v = self.eval(s, t, if c != 0 { then } else { else_ });
                self.set_reg(s, t, *reg, v);
                Some(false)
            }
            Command::Ann(_, c) | Command::Tagged(_, c) => self.exec(s, t, c, role, in_section),
            Command::Fence(_) | Command::Nop => Some(false),
            Command::Lock => {
                if s.lock != 0 {
                    return None;
                }
                s.lock = t as u32 + 1;
                Some(false)
            }
            Command::Unlock => {
                if s.lock != t as u32 + 1 {
                    return None;
                }
                s.lock = 0;
                // The section ends off the hb path: its accesses stay off.
                s.sec.clear();
                Some(true)
            }
            Command::Atomic(cs) => {
                if !Self::lock_ok(s, t) {
                    return None;
                }
                let mut nonlocal = false;
                for c in cs {
                    nonlocal |= self.exec(s, t, c, role, true)?;
                }
                if !in_section && s.lock != t as u32 + 1 {
                    s.sec.clear();
                }
                Some(nonlocal)
            }
            // Rejected by `validate`.
            Command::LoadReserve { .. } | Command::StoreCond { .. } | Command::Pgas(_) => None,
        }
    }

    /// Finishes a step of thread `t`: new pc, favourite, dead registers.
    fn finish(&self, s: &mut St, t: usize, pc: u32, nonlocal: bool) {
        s.pc[t] = pc;
        s.fav = if !self.restricted || nonlocal {
            0
        } else {
            t as u32 + 1
        };
        self.reset_dead(s, t);
    }

    /// All successors of `s`, with their step labels.
    pub fn successors(&self, s: &St, out: &mut Vec<(Step, St)>) {
        for t in 0..self.prog.threads.len() {
            self.thread_successors(s, t, out);
        }
    }

    /// The successors of `s` by a step of thread `t`.
    pub fn thread_successors(&self, s: &St, t: usize, out: &mut Vec<(Step, St)>) {
        if self.restricted && s.fav != 0 && s.fav != t as u32 + 1 {
            return;
        }
        // Table 7.2: with a lock held by someone else, nothing moves.
        if self.restricted && !Self::lock_ok(s, t) {
            return;
        }
        let (q, mode) = ((s.pc[t] >> 2) as usize, s.pc[t] & 3);
        let thread = &self.prog.threads[t];
        let atk = self.attack.as_ref().filter(|a| a.thread == t);
        let Some(outs) = self.out[t].get(q) else {
            return;
        };
        match (atk, mode) {
            (Some(_), WAIT) => {}
            (Some(a), HAT) => {
                if a.fenced.get(q).copied().unwrap_or(false) {
                    return;
                }
                for &i in outs {
                    let ins = &thread.instrs[i];
                    if crate::program::buffers::drains_buffer(&ins.cmd) {
                        continue; // rules (6.2)-(6.4): no fences in the copy
                    }
                    let mut n = s.clone();
                    let mut role = Role::AttackerHat;
                    if let Some(nl) = self.exec(&mut n, t, &ins.cmd, &mut role, false) {
                        self.finish(&mut n, t, ins.to.0 << 2 | HAT, nl);
                        out.push((
                            Step {
                                thread: t as u32,
                                instr: i as u32,
                                kind: 0,
                            },
                            n,
                        ));
                    }
                    if i == a.load {
                        // Rule (6.5): the attack's load, not an early read.
                        if let Command::Load { addr, .. } = &ins.cmd {
                            let ad = self.eval(s, t, addr);
                            if get(&s.shadow, ad).is_none() && Self::lock_ok(s, t) {
                                let mut n = s.clone();
                                let lvl = get(&n.hb, ad).unwrap_or(0);
                                set(&mut n.hb, ad, lvl.max(1), 0);
                                self.finish(&mut n, t, ins.to.0 << 2 | WAIT, true);
                                out.push((
                                    Step {
                                        thread: t as u32,
                                        instr: i as u32,
                                        kind: 1,
                                    },
                                    n,
                                ));
                            }
                        }
                    }
                }
            }
            (atk, _) => {
                for &i in outs {
                    let ins = &thread.instrs[i];
                    let mut n = s.clone();
                    let mut role = match (atk, mode) {
                        (None, m) if self.attack.is_some() => Role::Helper(m == HAT),
                        _ => Role::Plain,
                    };
                    if let Some(nl) = self.exec(&mut n, t, &ins.cmd, &mut role, false) {
                        let m = if role == Role::Helper(true) {
                            HAT
                        } else {
                            ORIG
                        };
                        self.finish(&mut n, t, ins.to.0 << 2 | m, nl);
                        out.push((
                            Step {
                                thread: t as u32,
                                instr: i as u32,
                                kind: 0,
                            },
                            n,
                        ));
                    }
                    if let Some(a) = atk {
                        if i == a.store {
                            // Rule (6.1): enter the copy, delaying this store.
                            if let Command::Store { addr, value } = &ins.cmd {
                                if Self::lock_ok(s, t) {
                                    let mut n = s.clone();
                                    let ad = self.eval(s, t, addr);
                                    let v = self.eval(s, t, value);
                                    n.ra = ad;
                                    set(&mut n.shadow, ad, v, i64::MIN);
                                    self.finish(&mut n, t, ins.to.0 << 2 | HAT, true);
                                    out.push((
                                        Step {
                                            thread: t as u32,
                                            instr: i as u32,
                                            kind: 1,
                                        },
                                        n,
                                    ));
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// The goal index reached in `s`, if any.
    pub fn goal(&self, s: &St) -> Option<usize> {
        match self.goal {
            GoalSpec::Attack => {
                let a = self.attack.as_ref()?;
                // Rule (6.6): mem[(r_a, hb)] != 0, read by the attacker.
                (s.pc[a.thread] & 3 == WAIT
                    && get(&s.hb, s.ra).unwrap_or(0) != 0
                    && Self::lock_ok(s, a.thread))
                .then_some(0)
            }
            GoalSpec::Program => self.prog.goals.iter().position(|g| {
                let at_ok = match &g.at {
                    GoalAt::States(list) => list
                        .iter()
                        .all(|(t, q)| s.pc.get(t.0 as usize).is_some_and(|pc| pc >> 2 == q.0)),
                    GoalAt::Final => (0..s.pc.len()).all(|t| {
                        self.out[t]
                            .get((s.pc[t] >> 2) as usize)
                            .is_none_or(|o| o.is_empty())
                    }),
                };
                at_ok && g.cond.as_ref().is_none_or(|c| self.eval_goal(s, c) != 0)
            }),
        }
    }

    fn eval_goal(&self, s: &St, c: &GExpr) -> i64 {
        c.eval(self.w, Spmd::default(), &mut |v| match v {
            GVar::Reg(t, r) => {
                let t = t.0 as usize;
                if t + 1 >= self.reg_off.len() {
                    return 0;
                }
                let i = self.reg_off[t] + r.0 as usize;
                if i < self.reg_off[t + 1] {
                    s.regs[i]
                } else {
                    0
                }
            }
            GVar::Mem(a) => self.mem_get(s, self.w.wrap(a)),
        })
    }

    /// Replays `steps` from the initial state: the states before and after
    /// each step. `None` if a step does not apply (internal error).
    pub fn replay(&self, steps: &[Step]) -> Option<Vec<St>> {
        let mut cur = self.initial();
        let mut states = vec![cur.clone()];
        let mut buf = Vec::new();
        for st in steps {
            buf.clear();
            self.successors(&cur, &mut buf);
            let (_, n) = buf.drain(..).find(|(x, _)| x == st)?;
            cur = n;
            states.push(cur.clone());
        }
        Some(states)
    }
}

// ---------------------------------------------------------------------------
// Search.

pub(crate) enum Outcome {
    /// Goal reached: its index and the steps leading there.
    Found(usize, Vec<Step>),
    /// Whole (reduced) state space explored.
    Exhausted,
    /// A limit was hit.
    Limit(String),
}

/// Shared stop conditions of several searches.
pub(crate) struct Control<'a> {
    pub deadline: Option<Instant>,
    /// `(best, me)`: the search of attack `me` stops when another search
    /// found a witness for an attack with a smaller index (`best < me`),
    /// so that the lowest-index feasible attack is the answer whatever
    /// the scheduling.
    pub cancel: Option<(&'a AtomicUsize, usize)>,
}

impl Control<'_> {
    /// Why a search must stop now: `"timeout"` past the deadline,
    /// `"cancelled"` once a smaller attack was found feasible; `None` to
    /// go on.
    pub fn stopped(&self) -> Option<&'static str> {
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            return Some("timeout");
        }
        self.cancel
            .is_some_and(|(best, me)| best.load(Ordering::Relaxed) < me)
            .then_some("cancelled")
    }
}

/// Iterative BFS/DFS over the machine's states. Returns the outcome and
/// the number of distinct states visited.
pub(crate) fn search(
    m: &Machine,
    order: SearchOrder,
    limits: &Limits,
    ctl: &Control,
) -> (Outcome, u64) {
    let init = m.initial();
    let mut buf = Vec::new();
    init.encode(&mut buf);
    let mut index: HashMap<Box<[u8]>, u32> = HashMap::default();
    index.insert(buf.clone().into_boxed_slice(), 0);
    // parent[i] = (parent index, step into i)
    let mut parent: Vec<(u32, Step)> = vec![(
        u32::MAX,
        Step {
            thread: 0,
            instr: 0,
            kind: 0,
        },
    )];
    let mut bytes = buf.len() + 80;
    let mut frontier: std::collections::VecDeque<(St, u32)> = Default::default();
    let mut frontier_bytes = init.approx_bytes();
    let path = |parent: &Vec<(u32, Step)>, mut i: u32| {
        let mut steps = Vec::new();
        while parent[i as usize].0 != u32::MAX {
            steps.push(parent[i as usize].1);
            i = parent[i as usize].0;
        }
        steps.reverse();
        steps
    };
    if let Some(g) = m.goal(&init) {
        return (Outcome::Found(g, Vec::new()), 1);
    }
    frontier.push_back((init, 0));
    let mut succ = Vec::new();
    // The first state popped checks the limits too: a search started
    // after the deadline (one of many attacks) stops at once instead of
    // after 256 states of hundreds of successors each.
    let mut tick = 255u32;
    // A limit of the time, the cancel flag or the memory budget: why the
    // search stops (every such stop frees the tables in the background).
    let why: String = 'stop: {
        while let Some((s, si)) = match order {
            SearchOrder::Bfs => frontier.pop_front(),
            SearchOrder::Dfs => frontier.pop_back(),
        } {
            frontier_bytes = frontier_bytes.saturating_sub(s.approx_bytes());
            tick = tick.wrapping_add(1);
            if tick.is_multiple_of(256) {
                if let Some(why) = ctl.stopped() {
                    break 'stop why.into();
                }
            }
            succ.clear();
            // The process's memory budget after each thread's successors: a
            // state of a translated program can be megabytes, and one state
            // has a successor per thread. With such large states the time
            // limit is checked there too (each successor is a copy).
            let big = s.approx_bytes() > 1 << 14;
            for t in 0..m.prog.threads.len() {
                m.thread_successors(&s, t, &mut succ);
                let stop = match crate::resources::check_memory() {
                    Err(why) => Some(why),
                    Ok(()) if big => ctl.stopped().map(String::from),
                    Ok(()) => None,
                };
                if let Some(why) = stop {
                    break 'stop why;
                }
            }
            for (k, (step, n)) in succ.drain(..).enumerate() {
                if big && k % 16 == 15 {
                    if let Some(why) = ctl.stopped() {
                        break 'stop why.into();
                    }
                }
                n.encode(&mut buf);
                if index.contains_key(buf.as_slice()) {
                    continue;
                }
                let ni = parent.len() as u32;
                bytes += buf.len() + 80;
                index.insert(buf.clone().into_boxed_slice(), ni);
                parent.push((si, step));
                if let Some(g) = m.goal(&n) {
                    return (Outcome::Found(g, path(&parent, ni)), index.len() as u64);
                }
                if limits.max_states.is_some_and(|x| index.len() > x) {
                    return (
                        Outcome::Limit(format!("state limit ({} states)", index.len() - 1)),
                        index.len() as u64,
                    );
                }
                frontier_bytes += n.approx_bytes();
                if limits
                    .max_memory_bytes
                    .is_some_and(|x| bytes + frontier_bytes > x)
                {
                    return (
                        Outcome::Limit(format!(
                            "memory limit (~{} MiB)",
                            (bytes + frontier_bytes) >> 20
                        )),
                        index.len() as u64,
                    );
                }
                frontier.push_back((n, ni));
            }
        }
        return (Outcome::Exhausted, index.len() as u64);
    };
    let n = index.len() as u64;
    crate::resources::drop_in_background((index, parent, frontier, succ));
    (Outcome::Limit(why), n)
}

// ---------------------------------------------------------------------------
// Printing commands (for witnesses).

pub(crate) fn expr_str(p: &Program, t: usize, e: &LExpr) -> String {
    match e {
        Expr::Const(c) => c.to_string(),
        Expr::Var(r) => p.reg_name(ThreadId(t as u32), *r).to_string(),
        Expr::Un(op, a) => format!("{}{}", op.symbol(), expr_str(p, t, a)),
        Expr::Bin(op, a, b) => format!(
            "({} {} {})",
            expr_str(p, t, a),
            op.symbol(),
            expr_str(p, t, b)
        ),
        Expr::Rank => "rank".into(),
        Expr::Nodes => "nodes".into(),
    }
}

fn addr_str(p: &Program, t: usize, e: &LExpr) -> String {
    match e {
        Expr::Const(c) => p.addr_name(*c),
        _ => format!("mem[{}]", expr_str(p, t, e)),
    }
}

/// A command in a readable form, e.g. `r0 <- x`, `mem[1] <- 1`.
pub(crate) fn cmd_str(p: &Program, t: usize, c: &Command) -> String {
    match c {
        Command::Load { reg, addr } => format!(
            "{} <- {}",
            p.reg_name(ThreadId(t as u32), *reg),
            addr_str(p, t, addr)
        ),
        Command::Store { addr, value } => {
            format!("{} <- {}", addr_str(p, t, addr), expr_str(p, t, value))
        }
        Command::Assign { reg, value } => format!(
            "{} := {}",
            p.reg_name(ThreadId(t as u32), *reg),
            expr_str(p, t, value)
        ),
        Command::Assume(e) => format!("assume {}", expr_str(p, t, e)),
        Command::Fence(f) => match f {
            Fence::Membar(m) => format!("membar {:#x}", m.0),
            f => f.keyword().to_string(),
        },
        Command::Lock => "lock".into(),
        Command::Unlock => "unlock".into(),
        Command::Atomic(cs) => format!(
            "atomic {{ {} }}",
            cs.iter()
                .map(|c| cmd_str(p, t, c))
                .collect::<Vec<_>>()
                .join("; ")
        ),
        Command::Nop => "nop".into(),
        other => format!("{other:?}"),
    }
}

// ---------------------------------------------------------------------------
// Public SC reachability.

/// One step of an SC computation.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ScStep {
    /// The executing thread.
    pub thread: ThreadId,
    /// Index of the instruction in `Thread::instrs`.
    pub instr: usize,
    /// Readable form: `t0: q0 -> q1  r0 <- x  (= 1)`.
    pub text: String,
}

/// The goal reached and how.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct GoalHit {
    /// Index into `Program::goals`.
    pub goal: usize,
    /// The SC computation reaching it (restricted semantics: local steps of
    /// a thread are grouped before its next memory access).
    pub trace: Vec<ScStep>,
}

/// Verdict of [`sc_reach`].
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub enum ReachVerdict {
    /// A goal is reachable under SC.
    Reachable(GoalHit),
    /// No goal is reachable (the whole state space was explored).
    Unreachable,
    /// A limit was hit before an answer.
    Unknown(String),
}

/// Result of [`sc_reach`].
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ReachResult {
    /// The verdict.
    pub verdict: ReachVerdict,
    /// Whether the restricted semantics (Table 7.2) was used.
    pub restricted: bool,
    /// States visited and time (attack fields are 0).
    pub stats: Stats,
}

/// True when the restricted semantics is complete for the program's goals:
/// every goal names control states of at most one thread and its condition
/// mentions only that thread's registers (Theorem 7.1 moves the other
/// threads' trailing local steps away, which could change memory-locking
/// interplay or other threads' positions).
fn restricted_ok(p: &Program) -> bool {
    p.goals.iter().all(|g| {
        let GoalAt::States(list) = &g.at else {
            return false;
        };
        let mut ts: Vec<u32> = list.iter().map(|(t, _)| t.0).collect();
        let mut ok = true;
        if let Some(c) = &g.cond {
            c.for_each_var(&mut |v| match v {
                GVar::Reg(t, _) => ts.push(t.0),
                GVar::Mem(_) => ok = false,
            });
        }
        ts.sort_unstable();
        ts.dedup();
        ok && ts.len() <= 1
    })
}

/// SC reachability of the program's goals (`Program::goals`: control
/// states plus an optional condition on registers and memory) under SC with
/// a global lock (thesis §7.1.1, Table 7.1). All fences are no-ops; `Atomic`
/// runs in one step; `Lock` blocks while another thread holds the lock and
/// loads/stores/atomics block while another thread holds it.
///
/// With `opts.restricted`, the restricted semantics of Table 7.2 is used
/// when it is complete for the goals (each goal about one thread's control
/// state and registers, Theorem 7.1); otherwise plain SC with locks.
/// `opts.live_registers` resets dead registers (registers in goal
/// conditions are kept live). Without goals the whole state space is
/// explored (the state count is in `stats`).
///
/// Errors: [`ExplicitError`] for commands outside SC with locks
/// (`LoadReserve`, `StoreCond`, PGAS) or a width outside 1..=32.
pub fn sc_reach(prog: &Program, opts: &Options) -> Result<ReachResult, ExplicitError> {
    let start = Instant::now();
    validate(prog, opts.width)?;
    let restricted = opts.restricted && restricted_ok(prog);
    let m = Machine::new(prog, opts, None, GoalSpec::Program, restricted);
    let ctl = Control {
        deadline: opts.limits.timeout.map(|d| start + d),
        cancel: None,
    };
    let (out, n) = search(&m, opts.order, &opts.limits, &ctl);
    let mut stats = Stats {
        states_visited: n,
        ..Stats::default()
    };
    let verdict = match out {
        Outcome::Found(g, steps) => {
            stats.searches_reachable = 1;
            let states = m.replay(&steps).unwrap_or_default();
            let trace = steps
                .iter()
                .enumerate()
                .map(|(k, st)| {
                    let t = st.thread as usize;
                    let ins = &prog.threads[t].instrs[st.instr as usize];
                    let mut text = format!(
                        "{}: {} -> {}  {}",
                        prog.thread_name(ThreadId(st.thread)),
                        prog.state_name(ThreadId(st.thread), ins.from),
                        prog.state_name(ThreadId(st.thread), ins.to),
                        cmd_str(prog, t, &ins.cmd)
                    );
                    if let (Command::Load { addr, .. }, Some(before)) = (&ins.cmd, states.get(k)) {
                        let v = m.mem_get(before, m.eval(before, t, addr));
                        text.push_str(&format!("  (reads {v})"));
                    }
                    ScStep {
                        thread: ThreadId(st.thread),
                        instr: st.instr as usize,
                        text,
                    }
                })
                .collect();
            ReachVerdict::Reachable(GoalHit { goal: g, trace })
        }
        Outcome::Exhausted => {
            stats.searches_unreachable = 1;
            ReachVerdict::Unreachable
        }
        Outcome::Limit(r) => {
            stats.searches_unknown = 1;
            ReachVerdict::Unknown(r)
        }
    };
    stats.time_us = start.elapsed().as_micros() as u64;
    Ok(ReachResult {
        verdict,
        restricted,
        stats,
    })
}
