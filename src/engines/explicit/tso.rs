//! Robustness against TSO by attacks (thesis `003_…` §6.1–6.2, Theorem
//! 6.10): a program is robust iff no attack has a TSO witness, and an
//! attack has one iff the program instrumented for it reaches its goal
//! state under SC (Theorem 6.9).

use super::state_space::{
    cmd_str, get, search, validate, AttackCfg, Control, GoalSpec, Machine, Outcome, St, Step, HAT,
    ORIG, WAIT,
};
use super::{tid, ExplicitError, Options, Stats};
use crate::program::buffers::drains_buffer;
use crate::program::{Command, Program, StateId, ThreadId};
use rayon::prelude::*;
use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// An attack `(attacker, store instruction, load instruction)` (§6.1):
/// the attacker delays the store past the load, helpers close the
/// happens-before cycle. Instructions are indices into the attacker's
/// `Thread::instrs` (a plain `Store` and a plain `Load`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct Attack {
    /// The attacker thread.
    pub thread: ThreadId,
    /// Index of the delayed store instruction.
    pub store: usize,
    /// Index of the load instruction that overtakes it.
    pub load: usize,
}

impl Attack {
    /// A readable description: `t0: store q0->q1 (x <- 1) / load q1->q2 (r <- y)`.
    pub fn describe(&self, p: &Program) -> String {
        let t = self.thread.0 as usize;
        let Some(th) = p.threads.get(t) else {
            return format!("{self:?}");
        };
        let d = |i: usize| match th.instrs.get(i) {
            Some(ins) => format!(
                "{}->{} ({})",
                p.state_name(self.thread, ins.from),
                p.state_name(self.thread, ins.to),
                cmd_str(p, t, &ins.cmd)
            ),
            None => format!("#{i}"),
        };
        format!(
            "{}: store {} / load {}",
            p.thread_name(self.thread),
            d(self.store),
            d(self.load)
        )
    }
}

/// What was found out about one attack.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub enum AttackStatus {
    /// Every path from the store's target to the load's source passes a
    /// draining instruction: infeasible, answered without a search.
    SeparatedByFence,
    /// The search proved that no TSO witness exists.
    Infeasible,
    /// A TSO witness exists.
    Feasible,
    /// A limit was hit.
    Unknown(String),
    /// Not searched: another attack already showed non-robustness.
    NotChecked,
}

/// Kind of an event of a [`TsoWitness`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum TsoEventKind {
    /// An event executed as under SC (stores reach memory at once).
    Sc,
    /// The first delayed store `e1`: it stays in the attacker's buffer.
    DelayedStore,
    /// A later store of the attacker, also buffered.
    BufferedStore,
    /// A load of the attacker that reads its own buffered store.
    EarlyRead,
    /// The load `e2` that overtakes the delayed store (reads memory).
    OvertakingLoad,
    /// A helper event on the happens-before path from `e2`.
    HbPath,
    /// The flush of `e1` (`e3`): closes the cycle.
    DelayedFlush,
    /// A later flush of the attacker's buffer.
    Flush,
}

/// One event of a TSO witness.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct TsoEvent {
    /// The thread.
    pub thread: ThreadId,
    /// Event kind.
    pub kind: TsoEventKind,
    /// Readable text: `t1: q0 -> q1  y <- 1`.
    pub text: String,
    /// The instruction executed (index into the thread's `instrs`);
    /// `None` for a flush of the attacker's buffer.
    pub instr: Option<usize>,
    /// For happens-before path events: the edge that makes it depend on
    /// `e2`, e.g. `fr from #3` or `po after #4` (numbers are event
    /// positions, 1-based).
    pub hb: Option<String>,
}

/// A TSO witness (§6.1, WIT-A..E): a TSO computation where only the
/// attacker delays stores, with the happens-before cycle
/// `e1 →po e2 →hb+ e3` (store, overtaking load, flush of the store).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct TsoWitness {
    /// The attack.
    pub attack: Attack,
    /// The attack in readable form.
    pub attack_text: String,
    /// The events in computation order.
    pub events: Vec<TsoEvent>,
    /// The attacker's instructions (indices into its `Thread::instrs`)
    /// from the delayed store `e1` to the overtaking load `e2`, both
    /// included, in program order (the path the lazy TSO engine emulates).
    pub attacker_path: Vec<usize>,
}

impl fmt::Display for TsoWitness {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "TSO witness for attack {}", self.attack_text)?;
        for (i, e) in self.events.iter().enumerate() {
            let tag = match e.kind {
                TsoEventKind::Sc => "",
                TsoEventKind::DelayedStore => "  [e1: store delayed in the buffer]",
                TsoEventKind::BufferedStore => "  [buffered]",
                TsoEventKind::EarlyRead => "  [early read from own buffer]",
                TsoEventKind::OvertakingLoad => "  [e2: load overtakes the delayed store]",
                TsoEventKind::HbPath => "  [hb path]",
                TsoEventKind::DelayedFlush => "  [e3: flush of e1, closes the cycle]",
                TsoEventKind::Flush => "  [flush]",
            };
            write!(f, "  #{:<3} {}{}", i + 1, e.text, tag)?;
            if let Some(h) = &e.hb {
                write!(f, "  ({h})")?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

/// The robustness verdict.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Robustness {
    /// Every TSO computation has an SC trace (no attack is feasible).
    Robust,
    /// A feasible attack, with its TSO witness.
    NotRobust(Box<TsoWitness>),
    /// Some attack could not be decided within the limits, none was
    /// feasible.
    Unknown(String),
}

/// Result of [`check_robustness`].
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct RobustnessReport {
    /// The verdict.
    pub verdict: Robustness,
    /// Every attack with its status (enumeration order).
    pub attacks: Vec<(Attack, AttackStatus)>,
    /// Attack counts, states visited, time.
    pub stats: Stats,
}

/// All attacks of the program: for each thread, each plain `Store` paired
/// with each plain `Load` of the same thread (§6.1). Stores and loads
/// inside atomic sequences cannot be delayed or overtake (they drain the
/// buffer), so they form no attacks.
pub fn enumerate_attacks(p: &Program) -> Vec<Attack> {
    let mut v = Vec::new();
    for (t, th) in p.threads.iter().enumerate() {
        let is = |i: &usize, st: bool| match th.instrs[*i].cmd {
            Command::Store { .. } => st,
            Command::Load { .. } => !st,
            _ => false,
        };
        let n = th.instrs.len();
        for s in (0..n).filter(|i| is(i, true)) {
            for l in (0..n).filter(|i| is(i, false)) {
                v.push(Attack {
                    thread: tid(t),
                    store: s,
                    load: l,
                });
            }
        }
    }
    v
}

/// States of the attacker on paths `dst(store) →* q →* src(load)` that use
/// only non-draining instructions (the hat copy's instructions): the set
/// `D_A` of locations involved in the attack (§6.5.1). Empty when every
/// path passes a draining instruction.
pub(crate) fn involved(p: &Program, a: &Attack) -> Vec<StateId> {
    let none = vec![false; p.threads[a.thread.0 as usize].states.len()];
    let f = hat_reach(p, a, &none, true);
    let b = hat_reach(p, a, &none, false);
    let to = p.threads[a.thread.0 as usize].instrs[a.load].from.0 as usize;
    if !f.get(to).copied().unwrap_or(false) {
        return Vec::new();
    }
    (0..f.len())
        .filter(|&q| f[q] && b[q])
        .map(|q| StateId(q as u32))
        .collect()
}

/// True when fences at the attacker's states `fenced` cut every
/// non-draining path from `dst(store)` to (and out of) `src(load)`: the
/// attack is then eliminated without a search (§6.5.1).
pub(crate) fn is_cut(p: &Program, a: &Attack, fenced: &[bool]) -> bool {
    cut_by(p, a, &hat_reach(p, a, fenced, true), fenced)
}

/// [`is_cut`] given `f`, the forward reachability from `dst(store)` with
/// the states in `fenced` not left.
fn cut_by(p: &Program, a: &Attack, f: &[bool], fenced: &[bool]) -> bool {
    let to = p.threads[a.thread.0 as usize].instrs[a.load].from.0 as usize;
    !f.get(to).copied().unwrap_or(false) || fenced.get(to).copied().unwrap_or(false)
}

/// Forward reachability from `dst(store)` (states in `fenced` are reached
/// but not left), or backward reachability to `src(load)`, over
/// non-draining instructions of the attacker. Linear in the thread's
/// states and instructions.
fn hat_reach(p: &Program, a: &Attack, fenced: &[bool], fwd: bool) -> Vec<bool> {
    let th = &p.threads[a.thread.0 as usize];
    let n = th.states.len();
    let start = if fwd {
        th.instrs[a.store].to.0 as usize
    } else {
        th.instrs[a.load].from.0 as usize
    };
    // Successors (forward) or predecessors (backward) by non-draining
    // instructions.
    let mut next: Vec<Vec<usize>> = vec![Vec::new(); n];
    for i in th.instrs.iter().filter(|i| !drains_buffer(&i.cmd)) {
        let (s, d) = if fwd {
            (i.from.0 as usize, i.to.0 as usize)
        } else {
            (i.to.0 as usize, i.from.0 as usize)
        };
        if s < n && d < n {
            next[s].push(d);
        }
    }
    let mut seen = vec![false; n];
    let mut stack = vec![start];
    seen[start] = true;
    while let Some(q) = stack.pop() {
        if fwd && fenced.get(q).copied().unwrap_or(false) {
            continue;
        }
        for &d in &next[q] {
            if !seen[d] {
                seen[d] = true;
                stack.push(d);
            }
        }
    }
    seen
}

/// Which attacks are separated by draining instructions on every path
/// from `dst(store)` to `src(load)` (§6.5.1: [`involved`] is empty), with
/// the forward reachability computed once per store (a thread of `n`
/// stores and `m` loads has `n·m` attacks).
pub struct Separation<'p> {
    p: &'p Program,
    last: Option<((ThreadId, usize), Vec<bool>)>,
}

impl<'p> Separation<'p> {
    /// No store's reachability computed yet.
    pub fn new(p: &'p Program) -> Self {
        Separation { p, last: None }
    }

    /// True when every path of the attacker from `dst(a.store)` to
    /// `src(a.load)` passes a draining instruction. Attacks of one store in
    /// a row share one reachability (as [`enumerate_attacks`] lists them).
    pub fn separated(&mut self, a: &Attack) -> bool {
        let key = (a.thread, a.store);
        if self.last.as_ref().is_none_or(|(k, _)| *k != key) {
            self.last = Some((key, hat_reach(self.p, a, &[], true)));
        }
        cut_by(
            self.p,
            a,
            &self.last.as_ref().expect("just computed").1,
            &[],
        )
    }
}

/// Runs the instrumented search for one attack with the attacker's fenced
/// states `fenced`. Returns the outcome and states visited.
pub(crate) fn search_attack(
    p: &Program,
    opts: &Options,
    a: &Attack,
    fenced: &[bool],
    ctl: &Control,
) -> (Outcome, u64) {
    let cfg = AttackCfg {
        thread: a.thread.0 as usize,
        store: a.store,
        load: a.load,
        fenced: fenced.to_vec(),
    };
    let m = Machine::new(p, opts, Some(cfg), GoalSpec::Attack, opts.restricted);
    search(&m, opts.order, &opts.limits, ctl)
}

/// Checks robustness of `prog` against TSO (§6.2, Theorem 6.10; Trencher's
/// `-r`). Attacks whose store and load are separated by draining
/// instructions on every path are answered without a search; the others
/// are searched in parallel (rayon), stopping early at the first feasible
/// attack. Under TSO `mfence`, `sync`, `membar #StoreLoad`, `lock`,
/// `unlock` and atomic instructions drain the store buffer.
///
/// Errors: [`ExplicitError`] for commands outside TSO with locks.
pub fn check_robustness(prog: &Program, opts: &Options) -> Result<RobustnessReport, ExplicitError> {
    let start = Instant::now();
    validate(prog, opts.width)?;
    let attacks = enumerate_attacks(prog);
    let mut stats = Stats {
        attacks_total: attacks.len(),
        ..Stats::default()
    };
    let no_fence: Vec<Vec<bool>> = prog
        .threads
        .iter()
        .map(|t| vec![false; t.states.len()])
        .collect();
    let deadline = opts.limits.timeout.map(|d| start + d);
    let mut sep = Separation::new(prog);
    let mut status: Vec<AttackStatus> = Vec::with_capacity(attacks.len());
    for (i, a) in attacks.iter().enumerate() {
        // Millions of attacks in a long thread: the limits are checked
        // here too.
        if i % 4096 == 4095 {
            if let Err(why) = crate::resources::check_limits(deadline) {
                stats.time_us = start.elapsed().as_micros() as u64;
                let why = format!("{why} while sorting out the {} attacks", attacks.len());
                status.resize(attacks.len(), AttackStatus::NotChecked);
                return Ok(RobustnessReport {
                    verdict: Robustness::Unknown(why),
                    attacks: attacks.into_iter().zip(status).collect(),
                    stats,
                });
            }
        }
        status.push(if sep.separated(a) {
            AttackStatus::SeparatedByFence
        } else {
            AttackStatus::NotChecked
        });
    }
    stats.answered_without_search = status
        .iter()
        .filter(|s| **s == AttackStatus::SeparatedByFence)
        .count();
    // The answer is the feasible attack with the smallest index: a search
    // stops only when an attack with a smaller index was found feasible,
    // and the results of attacks after the first feasible one are
    // dropped, so verdict, witness and counts do not depend on the
    // scheduling of the parallel searches.
    let best = AtomicUsize::new(usize::MAX);
    let todo: Vec<usize> = (0..attacks.len())
        .filter(|&i| status[i] == AttackStatus::NotChecked)
        .collect();
    let results: Vec<(usize, Outcome, u64)> = todo
        .par_iter()
        .map(|&i| {
            let ctl = Control {
                deadline,
                cancel: Some((&best, i)),
            };
            if let Some(why) = ctl.stopped() {
                return (i, Outcome::Limit(why.into()), 0);
            }
            let a = &attacks[i];
            let (o, n) = search_attack(prog, opts, a, &no_fence[a.thread.0 as usize], &ctl);
            if matches!(o, Outcome::Found(..)) {
                best.fetch_min(i, Ordering::Relaxed);
            }
            (i, o, n)
        })
        .collect();
    let first = best.load(Ordering::Relaxed);
    let mut witness: Option<(usize, Vec<Step>)> = None;
    let mut unknown: Option<String> = None;
    for (i, o, n) in results {
        if i > first {
            continue;
        }
        stats.states_visited += n;
        status[i] = match o {
            Outcome::Found(_, steps) => {
                stats.searches_reachable += 1;
                witness = Some((i, steps));
                AttackStatus::Feasible
            }
            Outcome::Exhausted => {
                stats.searches_unreachable += 1;
                AttackStatus::Infeasible
            }
            Outcome::Limit(r) => {
                stats.searches_unknown += 1;
                unknown
                    .get_or_insert_with(|| format!("{r} on attack {}", attacks[i].describe(prog)));
                AttackStatus::Unknown(r)
            }
        };
    }
    let verdict = match witness {
        Some((i, steps)) => {
            Robustness::NotRobust(Box::new(build_witness(prog, opts, &attacks[i], &steps)))
        }
        None => match unknown {
            Some(r) => Robustness::Unknown(r),
            None => Robustness::Robust,
        },
    };
    stats.time_us = start.elapsed().as_micros() as u64;
    Ok(RobustnessReport {
        verdict,
        attacks: attacks.into_iter().zip(status).collect(),
        stats,
    })
}

/// Replays an SC computation of the program instrumented for attack `a`
/// (§6.2: plain SC with locks, not the restricted semantics) and turns it
/// into the TSO witness it stands for (proof of Theorem 6.9). `steps` are
/// `(thread, instruction index, variant)`, where `variant` is true for the
/// attack's entry (rule (6.1), on `a.store`) and exit (rule (6.5), on
/// `a.load`) and false for every other step (an instruction or its hat
/// copy; a helper enters its copy as soon as the hb levels allow).
///
/// Errors: a step that does not apply in the state reached, or a
/// computation that does not end in the goal state of rule (6.6) (the
/// text names the step).
pub fn witness_from_steps(
    p: &Program,
    opts: &Options,
    a: &Attack,
    steps: &[(ThreadId, usize, bool)],
) -> Result<TsoWitness, String> {
    validate(p, opts.width).map_err(|e| e.to_string())?;
    let t_a = a.thread.0 as usize;
    if t_a >= p.threads.len() {
        return Err(format!("no thread {t_a}"));
    }
    let cfg = AttackCfg {
        thread: t_a,
        store: a.store,
        load: a.load,
        fenced: vec![false; p.threads[t_a].states.len()],
    };
    let m = Machine::new(p, opts, Some(cfg), GoalSpec::Attack, false);
    let steps: Vec<Step> = steps
        .iter()
        .map(|&(t, i, v)| Step {
            thread: t.0,
            instr: i as u32,
            kind: v as u8,
        })
        .collect();
    let mut cur = m.initial();
    let mut succ = Vec::new();
    for (k, st) in steps.iter().enumerate() {
        succ.clear();
        m.successors(&cur, &mut succ);
        match succ.drain(..).find(|(x, _)| x == st) {
            Some((_, n)) => cur = n,
            None => return Err(format!("step {} ({st:?}) does not apply", k + 1)),
        }
    }
    if m.goal(&cur).is_none() {
        return Err("the computation does not reach the goal state (6.6)".into());
    }
    let plain = Options {
        restricted: false,
        ..opts.clone()
    };
    Ok(build_witness(p, &plain, a, &steps))
}

/// Turns the SC computation of the instrumented program into the TSO
/// witness it stands for (proof of Theorem 6.9, soundness part).
pub(crate) fn build_witness(p: &Program, opts: &Options, a: &Attack, steps: &[Step]) -> TsoWitness {
    let t_a = a.thread.0 as usize;
    let cfg = AttackCfg {
        thread: t_a,
        store: a.store,
        load: a.load,
        fenced: vec![false; p.threads[t_a].states.len()],
    };
    let m = Machine::new(p, opts, Some(cfg), GoalSpec::Attack, opts.restricted);
    let states: Vec<St> = m.replay(steps).unwrap_or_default();
    let mut events: Vec<TsoEvent> = Vec::new();
    let mut buffer: Vec<(String, i64)> = Vec::new(); // (text, address), FIFO
    let mut track = HbTrack::default();
    let mut attacker_path: Vec<usize> = Vec::new();
    let mut path_done = false;
    for (k, st) in steps.iter().enumerate() {
        let (Some(before), Some(after)) = (states.get(k), states.get(k + 1)) else {
            break;
        };
        let t = st.thread as usize;
        let tt = ThreadId(st.thread);
        if t == t_a && !path_done {
            let ins = &p.threads[t].instrs[st.instr as usize];
            let delayed = st.kind == 1 && matches!(ins.cmd, Command::Store { .. });
            if delayed || !attacker_path.is_empty() {
                attacker_path.push(st.instr as usize);
            }
            if st.kind == 1 && matches!(ins.cmd, Command::Load { .. }) {
                path_done = true;
            }
        }
        let ins = &p.threads[t].instrs[st.instr as usize];
        let head = format!(
            "{}: {} -> {}  {}",
            p.thread_name(tt),
            p.state_name(tt, ins.from),
            p.state_name(tt, ins.to),
            cmd_str(p, t, &ins.cmd)
        );
        let mode_b = before.pc[t] & 3;
        let mode_a = after.pc[t] & 3;
        let num = events.len() + 1;
        let addr_of = |e: &crate::program::LExpr| m.eval(before, t, e);
        // The event's text: the instruction with the value it reads or writes.
        let plain_text = |cmd: &Command| match cmd {
            Command::Load { addr, .. } => {
                format!("{head}  (reads {})", m.mem_get(before, addr_of(addr)))
            }
            Command::Store { value, .. } => {
                format!("{head}  (value {})", m.eval(before, t, value))
            }
            _ => head.clone(),
        };
        let (kind, text, hb) = match (&ins.cmd, t == t_a, st.kind, mode_b) {
            (Command::Store { addr, value }, true, 1, _) => {
                let ad = addr_of(addr);
                buffer.push((format!("{} (value {})", head, m.eval(before, t, value)), ad));
                (
                    TsoEventKind::DelayedStore,
                    format!("{head}  (value {})", m.eval(before, t, value)),
                    None,
                )
            }
            (Command::Load { addr, .. }, true, 1, _) => {
                let ad = addr_of(addr);
                track.acc.insert(ad, (num, false));
                (
                    TsoEventKind::OvertakingLoad,
                    format!("{head}  (reads {} from memory)", m.mem_get(before, ad)),
                    None,
                )
            }
            (Command::Store { addr, value }, true, _, HAT) => {
                buffer.push((
                    format!("{} (value {})", head, m.eval(before, t, value)),
                    addr_of(addr),
                ));
                (
                    TsoEventKind::BufferedStore,
                    format!("{head}  (value {})", m.eval(before, t, value)),
                    None,
                )
            }
            (Command::Load { addr, .. }, true, _, HAT) => {
                let ad = addr_of(addr);
                match get(&before.shadow, ad) {
                    Some(v) => (
                        TsoEventKind::EarlyRead,
                        format!("{head}  (reads {v})"),
                        None,
                    ),
                    None => (
                        TsoEventKind::Sc,
                        format!("{head}  (reads {})", m.mem_get(before, ad)),
                        None,
                    ),
                }
            }
            (cmd, false, _, _) if mode_a == HAT => {
                let _ = mode_b == ORIG;
                let why = track.helper_event(p, &m, before, t, cmd, num);
                (TsoEventKind::HbPath, plain_text(cmd), why)
            }
            (cmd, _, _, _) => (TsoEventKind::Sc, plain_text(cmd), None),
        };
        let _ = WAIT;
        if t != t_a {
            let mut accs = Vec::new();
            collect_accesses(&m, before, t, &ins.cmd, &mut accs);
            let joined = kind == TsoEventKind::HbPath && mode_b != HAT;
            track.section_step(&mut events, t, &ins.cmd, kind, joined, accs);
        }
        events.push(TsoEvent {
            thread: tt,
            kind,
            text,
            instr: Some(st.instr as usize),
            hb,
        });
    }
    flush_events(p, a.thread, buffer, &track.acc, &mut events);
    TsoWitness {
        attacker_path,
        attack: *a,
        attack_text: a.describe(p),
        events,
    }
}

/// An event of a helper's lock section not (yet) on a witness's hb path:
/// its index in the witness and its accesses `(address, is store)`.
type PendingEvent = (usize, Vec<(i64, bool)>);

/// The hb path of a witness so far: per address, the number of the
/// hb-dependent access and whether it was a store; per helper thread, its
/// last hb-dependent event.
#[derive(Default)]
struct HbTrack {
    acc: HashMap<i64, (usize, bool)>,
    thread: HashMap<usize, usize>,
    /// Per helper thread in a lock section: its events there not (yet)
    /// on the hb path.
    open: HashMap<usize, Vec<PendingEvent>>,
}

impl HbTrack {
    /// Helper thread `t`'s step `cmd` with accesses `accs`, about to be
    /// event `events.len() + 1` of kind `kind`: a section (lock to
    /// unlock) off the hb path so far keeps its accessing events; when
    /// the section joins the path (`joined`: this event is the first of
    /// the thread on it), they join it too (the section is one node).
    fn section_step(
        &mut self,
        events: &mut [TsoEvent],
        t: usize,
        cmd: &Command,
        kind: TsoEventKind,
        joined: bool,
        accs: Vec<(i64, bool)>,
    ) {
        match cmd {
            Command::Lock => {
                self.open.insert(t, Vec::new());
            }
            Command::Unlock => {
                self.open.remove(&t);
            }
            _ if kind == TsoEventKind::Sc && !accs.is_empty() => {
                if let Some(list) = self.open.get_mut(&t) {
                    list.push((events.len(), accs));
                }
            }
            _ => {}
        }
        if joined {
            let num = events.len() + 1;
            for (i, accs) in self
                .open
                .get_mut(&t)
                .map(std::mem::take)
                .unwrap_or_default()
            {
                events[i].kind = TsoEventKind::HbPath;
                events[i].hb = Some(format!("in the section of #{num} (contracted)"));
                for (ad, is_store) in accs {
                    self.acc.entry(ad).or_insert((i + 1, is_store));
                }
            }
        }
    }

    /// Records event `num`, helper thread `t`'s `cmd` in state `before`, on
    /// the hb path; returns why it is there: po after the thread's last hb
    /// event, else rf/co/fr from the last hb access to an address it
    /// touches.
    fn helper_event(
        &mut self,
        p: &Program,
        m: &Machine,
        before: &St,
        t: usize,
        cmd: &Command,
        num: usize,
    ) -> Option<String> {
        let mut why = self.thread.get(&t).map(|e| format!("po after #{e}"));
        let mut accs: Vec<(i64, bool)> = Vec::new();
        collect_accesses(m, before, t, cmd, &mut accs);
        for (ad, is_store) in &accs {
            if why.is_none() {
                if let Some(&(e, prev_store)) = self.acc.get(ad) {
                    let rel = match (prev_store, *is_store) {
                        (true, false) => "rf",
                        (true, true) => "co",
                        (false, _) => "fr",
                    };
                    why = Some(format!("{rel} from #{e} on {}", p.addr_name(*ad)));
                }
            }
            let prev = self.acc.get(ad).copied();
            if *is_store || prev.is_none() || prev.is_some_and(|x| !x.1) {
                self.acc.insert(*ad, (num, *is_store));
            }
        }
        self.thread.insert(t, num);
        why
    }
}

/// e3 and τ4 of a witness: the `attacker`'s `buffer` (event text and
/// address) drains in FIFO order; the first flush follows (co after / fr
/// from) the last hb access to its address (`acc`).
fn flush_events(
    p: &Program,
    attacker: ThreadId,
    buffer: Vec<(String, i64)>,
    acc: &HashMap<i64, (usize, bool)>,
    events: &mut Vec<TsoEvent>,
) {
    for (i, (text, ad)) in buffer.into_iter().enumerate() {
        let hb = if i == 0 {
            acc.get(&ad).map(|&(e, st)| {
                let rel = if st { "co after" } else { "fr from" };
                format!("{rel} #{e} on {}", p.addr_name(ad))
            })
        } else {
            None
        };
        events.push(TsoEvent {
            thread: attacker,
            instr: None,
            kind: if i == 0 {
                TsoEventKind::DelayedFlush
            } else {
                TsoEventKind::Flush
            },
            text: format!(
                "{}: flush {}",
                p.thread_name(attacker),
                text.split_once("  ").map_or(text.as_str(), |x| x.1)
            ),
            hb,
        });
    }
}

fn collect_accesses(m: &Machine, s: &St, t: usize, c: &Command, out: &mut Vec<(i64, bool)>) {
    match c {
        Command::Load { addr, .. } => out.push((m.eval(s, t, addr), false)),
        Command::Store { addr, .. } => out.push((m.eval(s, t, addr), true)),
        Command::Atomic(cs) => cs.iter().for_each(|c| collect_accesses(m, s, t, c, out)),
        _ => {}
    }
}

/// The attacker states that the hat copy *leaves* in the instrumented
/// computation `steps` (sources of its delaying steps and of the attack's
/// load). A fence set that avoids all of them keeps this witness alive.
pub(crate) fn hat_left_states(p: &Program, a: &Attack, steps: &[Step]) -> Vec<bool> {
    let th = &p.threads[a.thread.0 as usize];
    let mut left = vec![false; th.states.len()];
    let mut hat = false;
    for st in steps.iter().filter(|s| s.thread == a.thread.0) {
        let ins = &th.instrs[st.instr as usize];
        if hat {
            left[ins.from.0 as usize] = true;
            if st.kind == 1 {
                break;
            }
        } else if st.kind == 1 {
            hat = true;
            // The entry step ends in dst(store), which the copy must leave
            // (or load from), so dst(store) is recorded by the next step.
        }
    }
    left
}
