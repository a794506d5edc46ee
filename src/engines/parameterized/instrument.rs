//! The parameterized program instrumented for one attack, as a Petri net
//! (thesis `003_…` Lemma 2.8 for the net of SC with threads as tokens;
//! §6.2 for the instrumentation; §6.3 for its parameterized form).
//!
//! Places:
//! * `t@q{regs}` and `t@^q{regs}`: copies of thread `t` at control state
//!   `q` with that register valuation (dead registers reset, §7.1.3; `+L`
//!   when the copy holds the global lock), running the original code or its
//!   hat copy (a helper on the happens-before path, rules (6.7)–(6.11));
//! * `mem[a]=v`: the shared memory (one token per address);
//! * `hb[a]=l`: the access level `(a, hb)` of §6.2 (0 none, 1 load, 2
//!   store; one token per address);
//! * `free`: the global lock is free (§7.1.1);
//! * `flag`: no copy has become the attacker yet (the global flag of §6.3);
//! * `A@q{regs}{shadow}`: the one attacker delaying stores (rules
//!   (6.1)–(6.4)); its shadow cells `(a, d)` and register `r_a` live in its
//!   place, as only the attacker reads them; `A:wait`: after the attack's
//!   load (rule (6.5)); `goal`: rule (6.6).
//!
//! Transitions are generated for the places reachable in the net's graph
//! from the initial places (ignoring token counts), with memory values
//! from a sound over-approximation: per address, every value any copy can
//! store when loads may read any value already found ([`MemValues`]). The
//! data domain is the W-bit values of `--width`; it must stay small for
//! the net to be built (a limit otherwise).
//!
//! Each thread copy (and the attacker) is one token; a single thread (not a
//! template) starts with one token, a template with ω. The target is one
//! token in `goal`.

use super::coverability::{Conflict, Group, LimitHit};
use super::petri::{marking, Marking, Net, Place, OMEGA};
use crate::engines::explicit::Attack;
use crate::program::buffers::drains_buffer;
use crate::program::{Command, LExpr, Program, RegId, Spmd, Width};
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::time::Instant;

/// The local state of a thread copy: control state, registers (dead ones
/// reset to 0), whether it holds the global lock.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct Local {
    pub q: u32,
    pub regs: Vec<i64>,
    pub lock: bool,
}

/// Per address, the values the cell may hold in any instance (a sound
/// over-approximation; the initial value included).
pub(crate) type MemValues = BTreeMap<i64, BTreeSet<i64>>;

/// Most values one memory cell may take in the over-approximation
/// ([`Ctx::memory_values`]) before the net is given up (a limit).
pub(crate) const MAX_CELL_VALUES: usize = 1024;

/// How a command runs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Plain SC (the over-approximation).
    Plain,
    /// A helper; `true` = in its hat copy.
    Helper(bool),
    /// The attacker delaying stores (rules (6.2)–(6.4)).
    Attacker,
}

/// One outcome of a command in a local state.
#[derive(Clone, Debug)]
struct Out {
    regs: Vec<i64>,
    /// `(address, value before, value after)`.
    mem: Vec<(i64, i64, i64)>,
    /// `(address, level before, level after)`.
    hb: Vec<(i64, u8, u8)>,
    hat: bool,
    shadow: Vec<(i64, i64)>,
    /// A memory access while not holding the lock: needs `free`.
    needs_free: bool,
    lock: bool,
    /// 0 none, 1 takes the lock, 2 releases it.
    lock_op: u8,
}

/// What the net builder and the over-approximation share.
pub(crate) struct Ctx<'p> {
    pub p: &'p Program,
    pub w: Width,
    /// `live[t][q][r]` (`program::liveness`, the strong liveness of §7.1.3's reset).
    pub live: Vec<Vec<Vec<bool>>>,
    pub deadline: Option<Instant>,
    /// Most places (or over-approximated local states) before a limit.
    pub max_places: usize,
}

fn shadow_get(s: &[(i64, i64)], a: i64) -> Option<i64> {
    s.iter().find(|e| e.0 == a).map(|e| e.1)
}

impl Ctx<'_> {
    fn eval(&self, regs: &[i64], e: &LExpr) -> i64 {
        e.eval(self.w, Spmd::default(), &mut |r: RegId| {
            regs.get(r.0 as usize).copied().unwrap_or(0)
        })
    }

    fn init_val(&self, a: i64) -> i64 {
        self.w.wrap(self.p.init_value(a))
    }

    /// The initial local state of thread `t`.
    pub fn initial(&self, t: usize) -> Local {
        let th = &self.p.threads[t];
        let mut l = Local {
            q: th.initial.0,
            regs: th.reg_init.iter().map(|v| self.w.wrap(*v)).collect(),
            lock: false,
        };
        self.reset_dead(t, &mut l);
        l
    }

    fn reset_dead(&self, t: usize, l: &mut Local) {
        let live = self.live[t].get(l.q as usize);
        for (r, v) in l.regs.iter_mut().enumerate() {
            if !live.is_some_and(|x| x.get(r).copied().unwrap_or(false)) {
                *v = 0;
            }
        }
    }

    fn check(&self, n: usize) -> Result<(), LimitHit> {
        if n > self.max_places {
            return Err(LimitHit(format!(
                "net limit ({n} places): the data domain is too large for the Petri net \
                 (try a smaller --width)"
            )));
        }
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(LimitHit("time limit reached".into()));
        }
        crate::resources::check_memory().map_err(LimitHit)?;
        Ok(())
    }

    /// Every outcome of `cmd` run by thread `t` in local state `l`, mode
    /// `mode`, attacker shadow `shadow`, memory values `mv`. Iterative over
    /// the commands of an atomic sequence (nested ones are rejected by
    /// validation), branching over the values a load may read.
    fn step(
        &self,
        l: &Local,
        cmd: &Command,
        mode: Mode,
        shadow: &[(i64, i64)],
        mv: &MemValues,
    ) -> Vec<Out> {
        self.step_tracked(l, cmd, mode, shadow, mv, &mut Vec::new())
    }

    /// [`Ctx::step`], also listing in `accessed` every address a branch
    /// reads or writes — including branches that block later (an
    /// `assume` after a load inside an atomic sequence), whose outcome
    /// may change when the cell gains a value.
    fn step_tracked(
        &self,
        l: &Local,
        cmd: &Command,
        mode: Mode,
        shadow: &[(i64, i64)],
        mv: &MemValues,
        accessed: &mut Vec<i64>,
    ) -> Vec<Out> {
        let mut flat: Vec<&Command> = Vec::new();
        let mut todo: Vec<&Command> = vec![cmd];
        while let Some(c) = todo.pop() {
            match c {
                Command::Ann(_, c) | Command::Tagged(_, c) => todo.push(c),
                Command::Atomic(cs) => todo.extend(cs.iter().rev()),
                c => flat.push(c),
            }
        }
        let start = Out {
            regs: l.regs.clone(),
            mem: Vec::new(),
            hb: Vec::new(),
            hat: mode == Mode::Helper(true),
            shadow: shadow.to_vec(),
            needs_free: false,
            lock: l.lock,
            lock_op: 0,
        };
        let mut outs = vec![start];
        for c in flat {
            let mut next = Vec::new();
            for o in outs {
                if let Command::Load { addr, .. } | Command::Store { addr, .. } = c {
                    accessed.push(self.eval(&o.regs, addr));
                }
                self.apply(c, o, mode, mv, &mut next);
            }
            outs = next;
        }
        outs
    }

    /// Values cell `a` may hold before this step (already touched: its
    /// current value).
    fn read_mem(&self, o: &Out, a: i64, mv: &MemValues) -> Vec<(i64, bool)> {
        if let Some(e) = o.mem.iter().find(|e| e.0 == a) {
            return vec![(e.2, false)];
        }
        match mv.get(&a) {
            Some(vs) => vs.iter().map(|&v| (v, true)).collect(),
            None => vec![(self.init_val(a), true)],
        }
    }

    fn hb_levels(o: &Out, a: i64) -> Vec<(u8, bool)> {
        if let Some(e) = o.hb.iter().find(|e| e.0 == a) {
            return vec![(e.2, false)];
        }
        vec![(0, true), (1, true), (2, true)]
    }

    fn set_hb(o: &mut Out, a: i64, before: u8, fresh: bool, after: u8) {
        if fresh {
            o.hb.push((a, before, after));
        } else if let Some(e) = o.hb.iter_mut().find(|e| e.0 == a) {
            e.2 = after;
        }
    }

    /// The hb-level outcomes of an access to `a` by a helper (rules
    /// (6.7)–(6.10)), in a *lax* form: every guard and the goal are
    /// monotone in the levels, so a run that skips raising a level can be
    /// replayed by the exact semantics (which raises it) step by step, and
    /// the goal stays reachable exactly when it was; skipping a raise
    /// needs no test of the current level, which keeps the backward basis
    /// small. In the hat copy the access may raise the level (load: 0 → 1,
    /// store: 0 or 1 → 2) or leave it; in the original code the copy may
    /// stay there, or enter its hat copy when the level allows (load:
    /// level 2; store: level ≥ 1, raised to 2).
    fn helper_access(&self, o: Out, a: i64, store: bool, next: &mut Vec<Out>) {
        let levels = Self::hb_levels(&o, a);
        if o.hat {
            for (lvl, fresh) in levels {
                let after = if store { 2 } else { 1 };
                if lvl < after {
                    let mut n = o.clone();
                    Self::set_hb(&mut n, a, lvl, fresh, after);
                    next.push(n);
                }
            }
        } else {
            for (lvl, fresh) in levels {
                let enters = if store { lvl >= 1 } else { lvl == 2 };
                if enters {
                    let mut n = o.clone();
                    n.hat = true;
                    Self::set_hb(&mut n, a, lvl, fresh, if store { 2 } else { lvl });
                    next.push(n);
                }
            }
        }
        next.push(o);
    }

    fn apply(&self, c: &Command, mut o: Out, mode: Mode, mv: &MemValues, next: &mut Vec<Out>) {
        match c {
            Command::Load { reg, addr } => {
                let a = self.eval(&o.regs, addr);
                if !o.lock {
                    o.needs_free = true;
                }
                let vals: Vec<(i64, bool)> = match (mode, shadow_get(&o.shadow, a)) {
                    (Mode::Attacker, Some(v)) => vec![(v, false)],
                    _ => self.read_mem(&o, a, mv),
                };
                for (v, fresh) in vals {
                    let mut n = o.clone();
                    if fresh {
                        n.mem.push((a, v, v));
                    }
                    if let Some(x) = n.regs.get_mut(reg.0 as usize) {
                        *x = self.w.wrap(v);
                    }
                    if matches!(mode, Mode::Helper(_)) {
                        self.helper_access(n, a, false, next);
                    } else {
                        next.push(n);
                    }
                }
            }
            Command::Store { addr, value } => {
                let a = self.eval(&o.regs, addr);
                let v = self.eval(&o.regs, value);
                if !o.lock {
                    o.needs_free = true;
                }
                if mode == Mode::Attacker {
                    match o.shadow.iter_mut().find(|e| e.0 == a) {
                        Some(e) => e.1 = v,
                        None => {
                            o.shadow.push((a, v));
                            o.shadow.sort_unstable();
                        }
                    }
                    next.push(o);
                    return;
                }
                for (old, fresh) in self.read_mem(&o, a, mv) {
                    let mut n = o.clone();
                    if fresh {
                        n.mem.push((a, old, v));
                    } else if let Some(e) = n.mem.iter_mut().find(|e| e.0 == a) {
                        e.2 = v;
                    }
                    if matches!(mode, Mode::Helper(_)) {
                        self.helper_access(n, a, true, next);
                    } else {
                        next.push(n);
                    }
                }
            }
            Command::Assign { reg, value } => {
                let v = self.eval(&o.regs, value);
                if let Some(x) = o.regs.get_mut(reg.0 as usize) {
                    *x = v;
                }
                next.push(o);
            }
            Command::Assume(e) | Command::Guard(e) => {
                if self.eval(&o.regs, e) != 0 {
                    next.push(o);
                }
            }
            Command::Select {
                reg,
                cond,
                then,
                else_,
            } => {
                let c = self.eval(&o.regs, cond);
                let v = self.eval(&o.regs, if c != 0 { then } else { else_ });
                if let Some(x) = o.regs.get_mut(reg.0 as usize) {
                    *x = v;
                }
                next.push(o);
            }
            Command::Fence(_) | Command::Nop => next.push(o),
            Command::Lock => {
                if !o.lock {
                    o.lock = true;
                    o.lock_op = 1;
                    next.push(o);
                }
            }
            Command::Unlock => {
                if o.lock {
                    o.lock = false;
                    o.lock_op = 2;
                    next.push(o);
                }
            }
            // Rejected by validation (crate::engines::explicit::check_cmd).
            Command::Ann(..)
            | Command::Tagged(..)
            | Command::Atomic(_)
            | Command::LoadReserve { .. }
            | Command::StoreCond { .. }
            | Command::Pgas(_) => {}
        }
    }

    /// Merges outcomes that differ only in the value a pure read of one
    /// cell found, when every value of the cell gives the same effect: the
    /// read's value does not matter (e.g. a dead register), and as the
    /// cell always holds exactly one of its values, one transition without
    /// the test stands for all of them.
    fn collapse(&self, mut outs: Vec<(Out, Local)>, mv: &MemValues) -> Vec<(Out, Local)> {
        let addrs: BTreeSet<i64> = outs
            .iter()
            .flat_map(|(o, _)| o.mem.iter().filter(|e| e.1 == e.2).map(|e| e.0))
            .collect();
        for a in addrs {
            let n_vals = mv.get(&a).map_or(1, BTreeSet::len);
            // Outcomes keyed by everything but the read of `a`.
            let key = |o: &Out, l: &Local| {
                let mem: Vec<(i64, i64, i64)> =
                    o.mem.iter().filter(|e| e.0 != a).copied().collect();
                format!(
                    "{:?}|{:?}|{:?}|{}|{:?}|{}|{}|{}",
                    l, mem, o.hb, o.hat, o.shadow, o.needs_free, o.lock, o.lock_op
                )
            };
            let mut groups: HashMap<String, Vec<usize>> = HashMap::new();
            for (i, (o, l)) in outs.iter().enumerate() {
                if o.mem.iter().any(|e| e.0 == a && e.1 == e.2) {
                    groups.entry(key(o, l)).or_default().push(i);
                }
            }
            let mut drop = vec![false; outs.len()];
            let mut merged = Vec::new();
            for (_, idx) in groups {
                let vals: BTreeSet<i64> = idx
                    .iter()
                    .filter_map(|&i| outs[i].0.mem.iter().find(|e| e.0 == a).map(|e| e.1))
                    .collect();
                if vals.len() == n_vals && n_vals > 1 {
                    let (mut o, l) = outs[idx[0]].clone();
                    o.mem.retain(|e| e.0 != a);
                    for &i in &idx {
                        drop[i] = true;
                    }
                    merged.push((o, l));
                }
            }
            let mut k = 0;
            outs.retain(|_| {
                k += 1;
                !drop[k - 1]
            });
            outs.extend(merged);
        }
        outs
    }

    fn after(&self, t: usize, to: u32, o: &Out) -> Local {
        let mut l = Local {
            q: to,
            regs: o.regs.clone(),
            lock: o.lock,
        };
        self.reset_dead(t, &mut l);
        l
    }

    /// The memory over-approximation: starting from the initial values,
    /// explore every thread's local states under plain SC where a load
    /// reads any value found so far for its cell, adding every stored
    /// value, until nothing changes.
    ///
    /// Errors: [`LimitHit`] when the local states or values exceed
    /// `max_places`, or the deadline / memory budget passes.
    pub fn memory_values(&self) -> Result<MemValues, LimitHit> {
        let mut mv: MemValues = MemValues::new();
        for (&a, &v) in &self.p.init {
            mv.entry(self.w.wrap(a)).or_default().insert(self.w.wrap(v));
        }
        let n = self.p.threads.len();
        let mut locals: Vec<std::collections::HashSet<Local>> = (0..n)
            .map(|t| std::iter::once(self.initial(t)).collect())
            .collect();
        let outs: Vec<Vec<Vec<usize>>> = self.p.threads.iter().map(|t| t.outgoing()).collect();
        // Semi-naive: a local state is explored again only when a cell its
        // steps access gains a value.
        let mut work: VecDeque<(usize, Local)> = (0..n).map(|t| (t, self.initial(t))).collect();
        let mut readers: HashMap<i64, std::collections::HashSet<(usize, Local)>> = HashMap::new();
        let mut total = n;
        let mut steps = 0u64;
        while let Some((t, l)) = work.pop_front() {
            steps += 1;
            if steps.is_multiple_of(64) {
                self.check(total)?;
            }
            let Some(out) = outs[t].get(l.q as usize) else {
                continue;
            };
            let mut grown: Vec<i64> = Vec::new();
            let mut accessed: Vec<i64> = Vec::new();
            for &i in out {
                let ins = &self.p.threads[t].instrs[i];
                accessed.clear();
                let outs = self.step_tracked(&l, &ins.cmd, Mode::Plain, &[], &mv, &mut accessed);
                for &a in &accessed {
                    readers.entry(a).or_default().insert((t, l.clone()));
                }
                for o in outs {
                    for &(a, _, v) in &o.mem {
                        let cell = mv
                            .entry(a)
                            .or_insert_with(|| std::iter::once(self.init_val(a)).collect());
                        if cell.insert(v) {
                            total += 1;
                            grown.push(a);
                            if cell.len() > MAX_CELL_VALUES {
                                return Err(LimitHit(format!(
                                    "{} takes more than {MAX_CELL_VALUES} values: the data \
                                     domain is too large for the Petri net (try a smaller \
                                     --width)",
                                    self.p.addr_name(a)
                                )));
                            }
                        }
                    }
                    let nl = self.after(t, ins.to.0, &o);
                    if locals[t].insert(nl.clone()) {
                        total += 1;
                        self.check(total)?;
                        work.push_back((t, nl));
                    }
                }
            }
            grown.sort_unstable();
            grown.dedup();
            for a in grown {
                if let Some(rs) = readers.get(&a) {
                    work.extend(rs.iter().cloned());
                }
            }
        }
        Ok(mv)
    }
}

/// A place of the instrumented net (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Key {
    Thread(usize, Local, bool),
    Attacker(Local, Vec<(i64, i64)>, i64),
    Wait(i64, bool),
    Mem(i64, i64),
    Hb(i64, u8),
    Free,
    Flag,
    Goal,
}

/// What a transition does to the thread copies: the copy token moving
/// from `from` to `to`, executing instruction `instr` of `thread`
/// (`variant`: the attack's entry (6.1) or exit (6.5)); `goal` for the
/// final check (6.6), which moves no copy.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Label {
    pub instr: usize,
    pub variant: bool,
    pub from: Place,
    pub to: Place,
    pub goal: bool,
}

/// The net of one attack with its initial marking, target and invariants.
pub(crate) struct Built {
    pub net: Net,
    pub labels: Vec<Label>,
    /// Initial marking: ω on template initial places.
    pub init: Marking,
    pub target: Marking,
    pub groups: Vec<Group>,
    /// Before the attacker's load (rule (6.5)) every access level is 0 and
    /// no helper is in its hat copy.
    pub conflicts: Vec<Conflict>,
    /// Per thread, its initial place.
    pub start: Vec<Place>,
}

struct Builder<'c, 'p> {
    cx: &'c Ctx<'p>,
    net: Net,
    labels: Vec<Label>,
    index: HashMap<Key, Place>,
    keys: Vec<Key>,
    work: VecDeque<Place>,
    /// The attacker's thread.
    attacker: usize,
}

impl Builder<'_, '_> {
    fn place(&mut self, k: Key) -> Result<Place, LimitHit> {
        if let Some(&p) = self.index.get(&k) {
            return Ok(p);
        }
        let name = self.name(&k);
        let p = self.net.add_place(name);
        self.index.insert(k.clone(), p);
        let explore = matches!(k, Key::Thread(..) | Key::Attacker(..) | Key::Wait(..));
        self.keys.push(k);
        if explore {
            self.work.push_back(p);
        }
        if self.keys.len().is_multiple_of(256) {
            self.cx.check(self.keys.len())?;
        }
        Ok(p)
    }

    fn name(&self, k: &Key) -> String {
        let p = self.cx.p;
        let local = |t: usize, l: &Local| {
            let th = &p.threads[t];
            let regs: Vec<String> = l
                .regs
                .iter()
                .enumerate()
                .filter(|(_, v)| **v != 0)
                .map(|(r, v)| format!("{}={v}", p.name(th.regs[r])))
                .collect();
            format!(
                "{}{{{}}}{}",
                p.name(th.states[l.q as usize]),
                regs.join(","),
                if l.lock { "+L" } else { "" }
            )
        };
        match k {
            Key::Thread(t, l, hat) => format!(
                "{}@{}{}",
                p.name(p.threads[*t].name),
                if *hat { "^" } else { "" },
                local(*t, l)
            ),
            Key::Attacker(l, sh, ra) => {
                let sh: Vec<String> = sh
                    .iter()
                    .map(|(a, v)| format!("{}:={v}", p.addr_name(*a)))
                    .collect();
                format!("A@{}[{}]ra={ra}", local(self.attacker, l), sh.join(","))
            }
            Key::Wait(ra, lock) => format!("A:wait(ra={ra}){}", if *lock { "+L" } else { "" }),
            Key::Mem(a, v) => format!("{}={v}", p.addr_name(*a)),
            Key::Hb(a, l) => format!("hb[{}]={l}", p.addr_name(*a)),
            Key::Free => "free".into(),
            Key::Flag => "flag".into(),
            Key::Goal => "goal".into(),
        }
    }

    /// Adds the transition of outcome `o`: the copy moves `from` → `to`.
    fn emit(
        &mut self,
        o: &Out,
        from: Place,
        to: Place,
        extra_pre: &[Place],
        label: (usize, usize, bool),
    ) -> Result<(), LimitHit> {
        let mut pre = vec![(from, 1)];
        let mut post = vec![(to, 1)];
        for &(a, b, c) in &o.mem {
            pre.push((self.place(Key::Mem(a, b))?, 1));
            post.push((self.place(Key::Mem(a, c))?, 1));
        }
        for &(a, b, c) in &o.hb {
            pre.push((self.place(Key::Hb(a, b))?, 1));
            post.push((self.place(Key::Hb(a, c))?, 1));
        }
        let free = self.place(Key::Free)?;
        match o.lock_op {
            1 => pre.push((free, 1)),
            2 => post.push((free, 1)),
            _ if o.needs_free => {
                pre.push((free, 1));
                post.push((free, 1));
            }
            _ => {}
        }
        for &p in extra_pre {
            pre.push((p, 1));
        }
        self.net.add_transition(pre, post);
        self.labels.push(Label {
            instr: label.1,
            variant: label.2,
            from,
            to,
            goal: false,
        });
        Ok(())
    }
}

impl Builder<'_, '_> {
    /// The transitions out of place `pl` of a helper copy of thread `t`
    /// at local state `l` (`hat`: it has read after the attack's load),
    /// and rule (6.1): the copy that becomes the attacker.
    #[allow(clippy::too_many_arguments)]
    fn helper_moves(
        &mut self,
        pl: Place,
        t: usize,
        l: &Local,
        hat: bool,
        outs: &[Vec<Vec<usize>>],
        a: &Attack,
        mv: &MemValues,
        flag: Place,
    ) -> Result<(), LimitHit> {
        let (cx, p) = (self.cx, self.cx.p);
        let b = self;
        let Some(out) = outs[t].get(l.q as usize) else {
            return Ok(());
        };
        for &i in out {
            let ins = &p.threads[t].instrs[i];
            let outs = cx.step(l, &ins.cmd, Mode::Helper(hat), &[], mv);
            let outs: Vec<(Out, Local)> = outs
                .into_iter()
                .map(|o| {
                    let nl = cx.after(t, ins.to.0, &o);
                    (o, nl)
                })
                .collect();
            for (o, nl) in cx.collapse(outs, mv) {
                let to = b.place(Key::Thread(t, nl, o.hat))?;
                b.emit(&o, pl, to, &[], (t, i, false))?;
            }
            // Rule (6.1): this copy becomes the attacker.
            if t == a.thread.0 as usize && i == a.store && !hat {
                if let Command::Store { addr, value } = &ins.cmd {
                    let ad = cx.eval(&l.regs, addr);
                    let v = cx.eval(&l.regs, value);
                    let o = Out {
                        regs: l.regs.clone(),
                        mem: Vec::new(),
                        hb: Vec::new(),
                        hat: false,
                        shadow: vec![(ad, v)],
                        needs_free: !l.lock,
                        lock: l.lock,
                        lock_op: 0,
                    };
                    let nl = cx.after(t, ins.to.0, &o);
                    let to = b.place(Key::Attacker(nl, o.shadow.clone(), ad))?;
                    b.emit(&o, pl, to, &[flag], (t, i, true))?;
                }
            }
        }
        Ok(())
    }

    /// The transitions out of place `pl` of the attacker at local state
    /// `l` with its delayed stores `shadow` (attack address `ra`), and
    /// rule (6.5): the attack's load reading memory.
    #[allow(clippy::too_many_arguments)]
    fn attacker_moves(
        &mut self,
        pl: Place,
        l: &Local,
        shadow: &[(i64, i64)],
        ra: i64,
        outs: &[Vec<Vec<usize>>],
        a: &Attack,
        mv: &MemValues,
    ) -> Result<(), LimitHit> {
        let (cx, p) = (self.cx, self.cx.p);
        let t_a = a.thread.0 as usize;
        let b = self;
        let Some(out) = outs[t_a].get(l.q as usize) else {
            return Ok(());
        };
        for &i in out {
            let ins = &p.threads[t_a].instrs[i];
            if drains_buffer(&ins.cmd) {
                continue; // no fences in the attacker's copy
            }
            let outs = cx.step(l, &ins.cmd, Mode::Attacker, shadow, mv);
            let outs: Vec<(Out, Local)> = outs
                .into_iter()
                .map(|o| {
                    let nl = cx.after(t_a, ins.to.0, &o);
                    (o, nl)
                })
                .collect();
            for (o, nl) in cx.collapse(outs, mv) {
                let to = b.place(Key::Attacker(nl, o.shadow.clone(), ra))?;
                b.emit(&o, pl, to, &[], (t_a, i, false))?;
            }
            // Rule (6.5): the attack's load, not an early read.
            if i == a.load {
                if let Command::Load { addr, .. } = &ins.cmd {
                    let ad = cx.eval(&l.regs, addr);
                    if shadow_get(shadow, ad).is_none() {
                        let to = b.place(Key::Wait(ra, l.lock))?;
                        // Lax (see `helper_access`): raise 0 → 1, or not.
                        for hb in [vec![(ad, 0, 1)], Vec::new()] {
                            let o = Out {
                                regs: l.regs.clone(),
                                mem: Vec::new(),
                                hb,
                                hat: false,
                                shadow: Vec::new(),
                                needs_free: !l.lock,
                                lock: l.lock,
                                lock_op: 0,
                            };
                            b.emit(&o, pl, to, &[], (t_a, i, true))?;
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// Rule (6.6): from the waiting place `pl`, the goal once a helper
    /// has raised the level of `ra`.
    fn wait_moves(
        &mut self,
        pl: Place,
        ra: i64,
        lock: bool,
        a: &Attack,
        goal: Place,
        free: Place,
    ) -> Result<(), LimitHit> {
        let b = self;
        // Rule (6.6): mem[(r_a, hb)] ≠ 0.
        for lvl in 1..3u8 {
            let h = b.place(Key::Hb(ra, lvl))?;
            let mut pre = vec![(pl, 1), (h, 1)];
            let mut post = vec![(goal, 1), (h, 1)];
            if !lock {
                pre.push((free, 1));
                post.push((free, 1));
            }
            b.net.add_transition(pre, post);
            b.labels.push(Label {
                instr: a.load,
                variant: false,
                from: pl,
                to: goal,
                goal: true,
            });
        }
        Ok(())
    }
}

/// Builds the net of the parameterized program `cx.p` (templates
/// `templates`) instrumented for attack `a` (an attack of the template
/// program, §6.3), with memory values `mv` from [`Ctx::memory_values`].
///
/// Errors: [`LimitHit`] when the net exceeds `cx.max_places` places or
/// the deadline / memory budget passes.
pub(crate) fn build(
    cx: &Ctx,
    templates: &[usize],
    a: &Attack,
    mv: &MemValues,
) -> Result<Built, LimitHit> {
    let p = cx.p;
    let mut b = Builder {
        cx,
        net: Net::default(),
        labels: Vec::new(),
        index: HashMap::new(),
        keys: Vec::new(),
        work: VecDeque::new(),
        attacker: a.thread.0 as usize,
    };
    let outs: Vec<Vec<Vec<usize>>> = p.threads.iter().map(|t| t.outgoing()).collect();
    let flag = b.place(Key::Flag)?;
    let free = b.place(Key::Free)?;
    let goal = b.place(Key::Goal)?;
    let mut start = Vec::new();
    for t in 0..p.threads.len() {
        start.push(b.place(Key::Thread(t, cx.initial(t), false))?);
    }
    while let Some(pl) = b.work.pop_front() {
        cx.check(b.keys.len())?;
        let key = b.keys[pl as usize].clone();
        match key {
            Key::Thread(t, l, hat) => b.helper_moves(pl, t, &l, hat, &outs, a, mv, flag)?,
            Key::Attacker(l, shadow, ra) => b.attacker_moves(pl, &l, &shadow, ra, &outs, a, mv)?,
            Key::Wait(ra, lock) => b.wait_moves(pl, ra, lock, a, goal, free)?,
            _ => {}
        }
    }
    // Initial marking.
    let mut init = vec![(flag, 1), (free, 1)];
    for (t, &s) in start.iter().enumerate() {
        init.push((s, if templates.contains(&t) { OMEGA } else { 1 }));
    }
    let addrs: BTreeSet<i64> = b
        .keys
        .iter()
        .filter_map(|k| match k {
            Key::Mem(a, _) | Key::Hb(a, _) => Some(*a),
            _ => None,
        })
        .collect();
    for &ad in &addrs {
        init.push((b.place(Key::Mem(ad, cx.init_val(ad)))?, 1));
        init.push((b.place(Key::Hb(ad, 0))?, 1));
    }
    // Place invariants.
    let mut groups: Vec<Group> = Vec::new();
    let mut by_addr: BTreeMap<(i64, bool), Vec<Place>> = BTreeMap::new();
    let mut lock_group = vec![free];
    let mut attack_group = vec![flag, goal];
    let mut per_thread: Vec<Vec<Place>> = vec![Vec::new(); p.threads.len()];
    let mut before_load = vec![flag];
    let mut after_load = Vec::new();
    for (i, k) in b.keys.iter().enumerate() {
        let pl = i as Place;
        match k {
            Key::Mem(a, _) => by_addr.entry((*a, false)).or_default().push(pl),
            Key::Hb(a, l) => {
                by_addr.entry((*a, true)).or_default().push(pl);
                if *l > 0 {
                    after_load.push(pl);
                }
            }
            Key::Thread(t, l, hat) => {
                per_thread[*t].push(pl);
                if l.lock {
                    lock_group.push(pl);
                }
                if *hat {
                    after_load.push(pl);
                }
            }
            Key::Attacker(l, ..) => {
                before_load.push(pl);
                attack_group.push(pl);
                if l.lock {
                    lock_group.push(pl);
                }
            }
            Key::Wait(_, lock) => {
                attack_group.push(pl);
                if *lock {
                    lock_group.push(pl);
                }
            }
            _ => {}
        }
    }
    for (_, places) in by_addr {
        groups.push(Group { places, bound: 1 });
    }
    groups.push(Group {
        places: lock_group,
        bound: 1,
    });
    groups.push(Group {
        places: attack_group,
        bound: 1,
    });
    for (t, places) in per_thread.into_iter().enumerate() {
        if !templates.contains(&t) {
            groups.push(Group { places, bound: 1 });
        }
    }
    Ok(Built {
        net: b.net,
        labels: b.labels,
        init: marking(init),
        target: vec![(goal, 1)],
        groups,
        conflicts: vec![Conflict {
            left: before_load,
            right: after_load,
        }],
        start,
    })
}
