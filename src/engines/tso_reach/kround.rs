//! K-round TSO reachability by reduction to SC (Atig, Bouajjani, Parlato,
//! CAV 2011; lecture `shared/seeds/002_…` §9): a code-to-code translation
//! P ↦ P' with the same instruction set such that a goal is reachable in
//! P under TSO by a computation in which every thread has at most K
//! rounds (maximal segments where only it moves, its buffer flushes
//! included) iff it is reachable in P' under SC.
//!
//! P' makes each round of a thread atomic with the global lock (the
//! lecture's "one makes rounds atomic") and replaces the store buffer by
//! registers, per address `a` of the finite address set A (declared
//! variables, initialised cells, constant addresses):
//!
//! * `k.rnd` — the current round (−1 before the first), `k.cur` — the
//!   round in which the stores issued now reach memory (FIFO: it only
//!   grows, and is at least `k.rnd`);
//! * `k.m<j>.<a>`, `k.v<j>.<a>` (the lecture's mask_j, queue_j) — whether
//!   a store to a is delayed to round j and the value of the last one;
//!   round K means "never reaches memory";
//! * `k.lv.<a>` — the value of the thread's last store to a (its view of a
//!   while a store to a is pending).
//!
//! A store either goes to memory now (`k.cur == k.rnd`) or is delayed to a
//! round j > `k.rnd`, j ≥ `k.cur` (then `k.cur := j`); a load of a reads
//! `k.lv.a` if a store to a is pending, else memory; `mfence` and atomics
//! need nothing pending (`k.cur == k.rnd`). At any state q the thread may
//! end its round (`k.pc := q; unlock`); at the start of round j it applies
//! the stores delayed to j to memory, then returns to `k.pc`. The memory
//! seen at a round start is whatever the other threads' rounds left (the
//! "guessed" memory of the sequential presentation is, in P', the real
//! shared memory, because P' keeps the threads concurrent under SC).
//!
//! Size: per thread O(|instr|·K·|A_e| + K·|A| + |states|) instructions,
//! where |A_e| is 1 for a constant address and |A| otherwise. Limits:
//! `lock`/`unlock` in P (P' uses the lock), goal conditions on memory, and
//! a delayed store to an address outside A are not modelled.

use super::tso::TsoStep;
use super::{unsupported, ReachError};
use crate::engines::explicit::{sc_reach, Options, ReachVerdict};
use crate::program::buffers::drains_buffer;
use crate::program::buffers::reads_memory;
use crate::program::{
    BinOp, Command, Expr, GExpr, GVar, Goal, GoalAt, Instr, LExpr, Program, RegId, StateId, Thread,
    ThreadId, Width,
};
use std::collections::BTreeSet;

/// Most goals of P' (a `final` goal becomes one goal per combination of
/// terminal states).
pub const MAX_GOALS: usize = 4096;

/// What an instruction of P' stands for (used to map an SC computation
/// of P' back to a TSO computation of P).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Instruction `instr` of P executed as it is (loads from memory,
    /// loads from the thread's own pending store, local commands, fences,
    /// atomics).
    Same(usize),
    /// Store `instr` of P reaching memory at once.
    StoreNow(usize),
    /// Store `instr` of P delayed to round `j` (K = never).
    StoreDelayed(usize, u32),
    /// The start of round `j` of the thread.
    RoundStart(u32),
    /// Bookkeeping (saving `k.pc`, unlock/lock, applying delayed stores,
    /// returning to `k.pc`).
    Internal,
}

/// The translation P' of a program.
#[derive(Clone, Debug)]
pub struct Translation {
    /// P'.
    pub program: Program,
    /// For each goal of P', the goal of P it stands for.
    pub goal_of: Vec<usize>,
    /// For each thread of P' and each of its instructions, its origin.
    pub origin: Vec<Vec<Origin>>,
    /// K.
    pub rounds: u32,
}

impl Translation {
    /// Checks that P′'s bookkeeping registers tell their values apart in
    /// `width`-bit values: `k.pc` holds a control state of its thread
    /// (state ids `0..n`), `k.rnd` a round (`-1..=K`). With more than
    /// 2^W states two of them share a value and a thread resuming a round
    /// could jump to the wrong one.
    ///
    /// Errors: [`ReachError::Unsupported`] naming the thread, its number
    /// of states and the least width that fits.
    pub fn check_width(&self, p: &Program, width: Width) -> Result<(), ReachError> {
        let fits = |n: u64| width.0 >= 64 || n <= 1u64 << width.0;
        for t in &self.program.threads {
            let n = t.states.len() as u64;
            if !fits(n) || !fits(u64::from(self.rounds) + 2) {
                let need = (64 - (n.max(u64::from(self.rounds) + 2) - 1).leading_zeros()).max(1);
                return Err(ReachError::Unsupported(format!(
                    "thread {}: the k-round translation has {n} control states, which its \
                     `k.pc` register cannot tell apart in {}-bit values (use --width {need} or more)",
                    p.name(t.name),
                    width.0
                )));
            }
        }
        Ok(())
    }
}

fn c(v: i64) -> LExpr {
    Expr::Const(v)
}
fn r(x: RegId) -> LExpr {
    Expr::Var(x)
}
fn b(op: BinOp, x: LExpr, y: LExpr) -> LExpr {
    Expr::bin(op, x, y)
}

struct Regs {
    /// `lv[a]`, `m[j-1][a]`, `v[j-1][a]` (j = 1..=K), indexed like `addrs`.
    lv: Vec<RegId>,
    m: Vec<Vec<RegId>>,
    v: Vec<Vec<RegId>>,
    /// `k.rnd`, `k.cur`, `k.pc`.
    rnd: RegId,
    cur: RegId,
    pc: RegId,
}

fn fresh_reg(p: &mut Program, t: &mut Thread, base: &str) -> RegId {
    let mut n = base.to_string();
    while p.names.get(&n).is_some_and(|s| t.find_reg(s).is_some()) {
        n.push('\'');
    }
    let s = p.names.intern(&n);
    t.reg(s)
}

fn fresh_state(p: &mut Program, t: &mut Thread, base: &str) -> StateId {
    let mut n = base.to_string();
    while p.names.get(&n).is_some_and(|s| t.find_state(s).is_some()) {
        n.push('\'');
    }
    let s = p.names.intern(&n);
    t.state(s)
}

/// The address set A: declared variables, initialised cells and the
/// constant addresses of loads and stores.
pub fn addresses(p: &Program) -> Vec<i64> {
    let mut a: BTreeSet<i64> = p.vars.iter().map(|v| v.addr).collect();
    a.extend(p.init.keys().copied());
    fn walk(cmd: &Command, a: &mut BTreeSet<i64>, w: crate::program::Width) {
        match cmd {
            Command::Load { addr, .. } | Command::Store { addr, .. } => {
                if let Some(v) = addr.as_const(w) {
                    a.insert(v);
                }
            }
            Command::Atomic(cs) => cs.iter().for_each(|c| walk(c, a, w)),
            _ => {}
        }
    }
    for t in &p.threads {
        for i in &t.instrs {
            walk(&i.cmd, &mut a, crate::program::Width::MAX);
        }
    }
    a.into_iter().collect()
}

/// Builds P' for K rounds (K ≥ 1).
///
/// Errors: K = 0; `lock`/`unlock`, `lwarx`/`stwcx`, PGAS commands in P;
/// a goal condition on memory; more than [`MAX_GOALS`] goals in P'.
pub fn translate(p: &Program, k: u32) -> Result<Translation, ReachError> {
    if k == 0 {
        return Err(ReachError::Unsupported(
            "the number of rounds must be at least 1".into(),
        ));
    }
    if let Some(m) = unsupported(p) {
        return Err(ReachError::Unsupported(m));
    }
    if let Some(g) = p.goals.iter().find(|g| reads_memory(g)) {
        return Err(ReachError::Unsupported(format!(
            "goal {}: a condition on memory is not supported by the k-round engine (conditions on registers are)",
            g.name.clone().unwrap_or_default()
        )));
    }
    let addrs = addresses(p);
    let mut q = p.clone();
    q.threads.clear();
    q.goals.clear();
    let mut origin = Vec::new();
    let mut waits = Vec::new();
    for ti in 0..p.threads.len() {
        let (t, org, wait) = translate_thread(p, &mut q, ThreadId(ti as u32), &addrs, k)?;
        waits.push(wait);
        origin.push(org);
        q.threads.push(t);
    }
    let goal_of = translate_goals(p, &mut q, &waits)?;
    Ok(Translation {
        program: q,
        goal_of,
        origin,
        rounds: k,
    })
}

/// One thread of P' under construction: its instructions and their
/// origins, all located at the span of the thread of P.
struct Emit {
    t: Thread,
    org: Vec<Origin>,
    span: crate::diag::Span,
}

impl Emit {
    fn add(&mut self, from: StateId, to: StateId, cmd: Command, o: Origin) {
        self.t.instrs.push(Instr {
            from,
            to,
            cmd,
            span: self.span,
        });
        self.org.push(o);
    }
}

/// One translated thread: the thread of P', the origin of each of its
/// instructions, and its waiting state between rounds with its `k.pc`
/// register.
type TranslatedThread = (Thread, Vec<Origin>, (StateId, RegId));

/// The translation of thread `tid` of P ([`TranslatedThread`]).
fn translate_thread(
    p: &Program,
    q: &mut Program,
    tid: ThreadId,
    addrs: &[i64],
    k: u32,
) -> Result<TranslatedThread, ReachError> {
    let orig = &p.threads[tid.0 as usize];
    let mut t = orig.clone();
    t.instrs.clear();
    let rnd = fresh_reg(q, &mut t, "k.rnd");
    let cur = fresh_reg(q, &mut t, "k.cur");
    let pc = fresh_reg(q, &mut t, "k.pc");
    t.reg_init[rnd.0 as usize] = -1;
    t.reg_init[pc.0 as usize] = orig.initial.0 as i64;
    let mut g = Regs {
        lv: Vec::new(),
        m: Vec::new(),
        v: Vec::new(),
        rnd,
        cur,
        pc,
    };
    for a in addrs {
        let x = fresh_reg(q, &mut t, &format!("k.lv.{a}"));
        g.lv.push(x);
    }
    for j in 1..=k {
        let mut ms = Vec::new();
        let mut vs = Vec::new();
        for a in addrs {
            ms.push(fresh_reg(q, &mut t, &format!("k.m{j}.{a}")));
            vs.push(fresh_reg(q, &mut t, &format!("k.v{j}.{a}")));
        }
        g.m.push(ms);
        g.v.push(vs);
    }
    let mut e = Emit {
        t,
        org: Vec::new(),
        span: orig.span,
    };
    for (i, ins) in orig.instrs.iter().enumerate() {
        translate_instr(p, tid, addrs, k, &g, &mut e, i, ins)?;
    }
    let w = round_switches(q, orig, addrs, k, &g, &mut e);
    let Emit { mut t, mut org, .. } = e;
    t.initial = w;
    if orig.instrs.is_empty() {
        // A thread that never moves needs no rounds (goals name
        // only the threads they constrain).
        t.instrs.clear();
        org.clear();
    }
    Ok((t, org, (w, pc)))
}

/// The instructions of P' for instruction `i` (`ins`) of thread `tid`.
#[allow(clippy::too_many_arguments)]
fn translate_instr(
    p: &Program,
    tid: ThreadId,
    addrs: &[i64],
    k: u32,
    g: &Regs,
    e: &mut Emit,
    i: usize,
    ins: &Instr,
) -> Result<(), ReachError> {
    let ix = |a: i64| addrs.binary_search(&a).ok();
    let (rnd, cur) = (g.rnd, g.cur);
    let pending = |ai: usize| -> LExpr {
        let mut e = b(BinOp::Ne, r(g.m[0][ai]), c(0));
        for j in 1..k as usize {
            e = b(BinOp::Or, e, b(BinOp::Ne, r(g.m[j][ai]), c(0)));
        }
        e
    };
    let nothing_pending = b(BinOp::Eq, r(cur), r(rnd));
    let (from, to) = (ins.from, ins.to);
    let unsup = |what: &str| {
        ReachError::Unsupported(format!(
            "thread `{}`, instruction {} -> {}: {what} is not supported by the k-round engine",
            p.thread_name(tid),
            p.state_name(tid, from),
            p.state_name(tid, to)
        ))
    };
    match &ins.cmd {
        Command::Lock | Command::Unlock => return Err(unsup("`lock`/`unlock`")),
        Command::Store { addr, value } => {
            let now = Command::Atomic(vec![
                Command::Assume(nothing_pending.clone()),
                ins.cmd.clone(),
            ]);
            e.add(from, to, now, Origin::StoreNow(i));
            let konst = addr.as_const(p_width());
            let targets: Vec<usize> = match konst {
                Some(a) => ix(a).into_iter().collect(),
                None => (0..addrs.len()).collect(),
            };
            for ai in targets {
                for j in 1..=k {
                    let ju = j as usize - 1;
                    let mut cond = b(
                        BinOp::And,
                        b(BinOp::Gt, c(j as i64), r(rnd)),
                        b(BinOp::Ge, c(j as i64), r(cur)),
                    );
                    if konst.is_none() {
                        cond = b(BinOp::And, b(BinOp::Eq, addr.clone(), c(addrs[ai])), cond);
                    }
                    let cmd = Command::Atomic(vec![
                        Command::Assume(cond),
                        Command::Assign {
                            reg: g.v[ju][ai],
                            value: value.clone(),
                        },
                        Command::Assign {
                            reg: g.m[ju][ai],
                            value: c(1),
                        },
                        Command::Assign {
                            reg: g.lv[ai],
                            value: r(g.v[ju][ai]),
                        },
                        Command::Assign {
                            reg: cur,
                            value: c(j as i64),
                        },
                    ]);
                    e.add(from, to, cmd, Origin::StoreDelayed(i, j));
                }
            }
        }
        Command::Load { reg, addr } => {
            let konst = addr.as_const(p_width());
            let targets: Vec<usize> = match konst {
                Some(a) => ix(a).into_iter().collect(),
                None => (0..addrs.len()).collect(),
            };
            let mut none_pending = c(1);
            for ai in targets {
                let mut own = pending(ai);
                if konst.is_none() {
                    own = b(BinOp::And, b(BinOp::Eq, addr.clone(), c(addrs[ai])), own);
                }
                none_pending = b(
                    BinOp::And,
                    none_pending,
                    Expr::un(crate::program::UnOp::Not, own.clone()),
                );
                let cmd = Command::Atomic(vec![
                    Command::Assume(own),
                    Command::Assign {
                        reg: *reg,
                        value: r(g.lv[ai]),
                    },
                ]);
                e.add(from, to, cmd, Origin::Same(i));
            }
            let cmd = Command::Atomic(vec![Command::Assume(none_pending), ins.cmd.clone()]);
            e.add(from, to, cmd, Origin::Same(i));
        }
        Command::Atomic(cs) => {
            let mut v = vec![Command::Assume(nothing_pending.clone())];
            v.extend(cs.iter().cloned());
            e.add(from, to, Command::Atomic(v), Origin::Same(i));
        }
        cmd if drains_buffer(cmd) => {
            let cmd = Command::Assume(nothing_pending.clone());
            e.add(from, to, cmd, Origin::Same(i));
        }
        cmd => e.add(from, to, cmd.clone(), Origin::Same(i)),
    }
    Ok(())
}

/// The round switches of a thread of P': from any state q of P, save q
/// in `k.pc` and unlock; wait for a next round, lock, start it (apply the
/// stores delayed to it), and return to `k.pc`. Returns the waiting state.
fn round_switches(
    q: &mut Program,
    orig: &Thread,
    addrs: &[i64],
    k: u32,
    g: &Regs,
    e: &mut Emit,
) -> StateId {
    let (rnd, cur, pc) = (g.rnd, g.cur, g.pc);
    let ki = k as i64;
    let x = fresh_state(q, &mut e.t, "k.end_round");
    let w = fresh_state(q, &mut e.t, "k.wait");
    let w2 = fresh_state(q, &mut e.t, "k.next");
    let s = fresh_state(q, &mut e.t, "k.start");
    let d = fresh_state(q, &mut e.t, "k.resume");
    for st in 0..orig.states.len() {
        let assign = Command::Assign {
            reg: pc,
            value: c(st as i64),
        };
        e.add(StateId(st as u32), x, assign, Origin::Internal);
    }
    e.add(x, w, Command::Unlock, Origin::Internal);
    let more = b(BinOp::Lt, b(BinOp::Add, r(rnd), c(1)), c(ki));
    e.add(w, w2, Command::Assume(more), Origin::Internal);
    e.add(w2, s, Command::Lock, Origin::Internal);
    for j in 0..k {
        let ji = j as i64;
        // cur := max(cur, j)
        let maxed = b(
            BinOp::Add,
            r(cur),
            b(
                BinOp::Mul,
                b(BinOp::Sub, c(ji), r(cur)),
                b(BinOp::Lt, r(cur), c(ji)),
            ),
        );
        let start = Command::Atomic(vec![
            Command::Assume(b(BinOp::Eq, r(rnd), c(ji - 1))),
            Command::Assign {
                reg: rnd,
                value: c(ji),
            },
            Command::Assign {
                reg: cur,
                value: maxed,
            },
        ]);
        if j == 0 || addrs.is_empty() {
            e.add(s, d, start, Origin::RoundStart(j));
            continue;
        }
        let mut f = fresh_state(q, &mut e.t, &format!("k.apply{j}.0"));
        e.add(s, f, start, Origin::RoundStart(j));
        let ju = j as usize - 1;
        for (ai, a) in addrs.iter().enumerate() {
            let next = if ai + 1 == addrs.len() {
                d
            } else {
                fresh_state(q, &mut e.t, &format!("k.apply{j}.{}", ai + 1))
            };
            let (m, v) = (g.m[ju][ai], g.v[ju][ai]);
            let apply = Command::Atomic(vec![
                Command::Assume(b(BinOp::Ne, r(m), c(0))),
                Command::Store {
                    addr: c(*a),
                    value: r(v),
                },
                Command::Assign {
                    reg: m,
                    value: c(0),
                },
            ]);
            e.add(f, next, apply, Origin::Internal);
            let skip = Command::Assume(b(BinOp::Eq, r(m), c(0)));
            e.add(f, next, skip, Origin::Internal);
            f = next;
        }
    }
    for st in 0..orig.states.len() {
        let back = Command::Assume(b(BinOp::Eq, r(pc), c(st as i64)));
        e.add(d, StateId(st as u32), back, Origin::Internal);
    }
    w
}

/// The goals of P': every listed thread waiting between rounds with
/// `k.pc` = its state (a thread inside a round can always end it without
/// changing anything else, so this loses nothing). Returns, for each goal
/// of P', the goal of P it stands for.
fn translate_goals(
    p: &Program,
    q: &mut Program,
    waits: &[(StateId, RegId)],
) -> Result<Vec<usize>, ReachError> {
    let mut goal_of = Vec::new();
    for (gi, goal) in p.goals.iter().enumerate() {
        let lists: Vec<Vec<(ThreadId, StateId)>> = match &goal.at {
            GoalAt::States(l) => vec![l.clone()],
            GoalAt::Final => final_combinations(p)?,
        };
        for l in lists {
            let mut at = Vec::new();
            let mut cond: Option<GExpr> = goal.cond.clone();
            for (t, s) in l {
                let (w, pc) = waits[t.0 as usize];
                at.push((t, w));
                let e = Expr::bin(
                    BinOp::Eq,
                    Expr::Var(GVar::Reg(t, pc)),
                    Expr::Const(s.0 as i64),
                );
                cond = Some(match cond {
                    None => e,
                    Some(c0) => Expr::bin(BinOp::And, e, c0),
                });
            }
            q.goals.push(Goal {
                name: goal.name.clone(),
                kind: goal.kind,
                at: GoalAt::States(at),
                cond,
                span: goal.span,
            });
            goal_of.push(gi);
            if goal_of.len() > MAX_GOALS {
                return Err(ReachError::Unsupported(format!(
                    "more than {MAX_GOALS} goals in P'"
                )));
            }
        }
    }
    Ok(goal_of)
}

/// Every combination of one terminal state per thread of P (a `final`
/// goal); at most [`MAX_GOALS`].
fn final_combinations(p: &Program) -> Result<Vec<Vec<(ThreadId, StateId)>>, ReachError> {
    let mut lists = vec![Vec::new()];
    for (ti, th) in p.threads.iter().enumerate() {
        let out = th.outgoing();
        let terms: Vec<StateId> = (0..th.states.len())
            .filter(|s| out[*s].is_empty())
            .map(|s| StateId(s as u32))
            .collect();
        let mut next = Vec::new();
        for l in &lists {
            for s in &terms {
                let mut l2: Vec<(ThreadId, StateId)> = l.clone();
                l2.push((ThreadId(ti as u32), *s));
                next.push(l2);
            }
        }
        lists = next;
        if lists.len() > MAX_GOALS {
            return Err(ReachError::Unsupported(format!(
                "a `final` goal has more than {MAX_GOALS} combinations of terminal states"
            )));
        }
    }
    Ok(lists)
}

/// Constant folding of addresses uses the widest width: addresses are
/// compared after the front-end wrapped them.
fn p_width() -> crate::program::Width {
    crate::program::Width::MAX
}

impl Translation {
    /// Maps an SC computation of P' (steps `(thread, instruction of P')`)
    /// to a TSO computation of P: delayed stores stay in the buffer until
    /// the start of their round, stores that reach memory at once are
    /// flushed right after they are issued.
    pub fn to_tso(&self, steps: &[(ThreadId, usize)]) -> Vec<TsoStep> {
        let n = self.program.threads.len();
        let mut queue: Vec<std::collections::VecDeque<u32>> = vec![Default::default(); n];
        let mut out = Vec::new();
        for &(t, i) in steps {
            let ti = t.0 as usize;
            match self.origin[ti][i] {
                Origin::Same(k) => out.push(TsoStep::Instr {
                    thread: t,
                    instr: k,
                }),
                Origin::StoreNow(k) => {
                    out.push(TsoStep::Instr {
                        thread: t,
                        instr: k,
                    });
                    out.push(TsoStep::Flush { thread: t });
                }
                Origin::StoreDelayed(k, j) => {
                    out.push(TsoStep::Instr {
                        thread: t,
                        instr: k,
                    });
                    queue[ti].push_back(j);
                }
                Origin::RoundStart(j) => {
                    while queue[ti].front() == Some(&j) {
                        queue[ti].pop_front();
                        out.push(TsoStep::Flush { thread: t });
                    }
                }
                Origin::Internal => {}
            }
        }
        out
    }
}

/// Answer of a TSO reachability engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// Goal `goal` of P is reachable; `witness` is a TSO computation of P
    /// reaching it (checked by [`super::tso::check_witness`]).
    Reachable {
        /// Index into `Program::goals`.
        goal: usize,
        /// The TSO computation.
        witness: Vec<TsoStep>,
    },
    /// No goal is reachable (for k-round: within K rounds).
    Unreachable,
    /// A limit was hit.
    Unknown(String),
}

/// Result of [`kround_reach`].
#[derive(Clone, Debug)]
pub struct KroundResult {
    /// The answer for P.
    pub answer: Answer,
    /// States visited by the SC search of P'.
    pub states: u64,
}

/// Is a goal of P reachable under TSO within K rounds per thread? (First
/// with only the goal threads moving, [`super::goal_threads_only`].) Checks
/// P' ([`translate`]) with the explicit SC search (`opts`: width,
/// limits) and maps its witness back to a TSO computation of P, which is
/// replayed on the TSO semantics before it is returned.
///
/// Errors: see [`translate`]; the SC search's [`crate::engines::explicit::ExplicitError`];
/// a witness that does not replay (an internal error, reported as
/// [`ReachError::Unsupported`] with the replay's message).
pub fn kround_reach(p: &Program, k: u32, opts: &Options) -> Result<KroundResult, ReachError> {
    // The goal threads first (the others frozen): a K-round computation
    // of that program is one of P; then P itself.
    // The time limit is shared: the first run gets half of it.
    let mut states = 0;
    let start = std::time::Instant::now();
    let mut rest = opts.clone();
    if let Some(sub) = super::goal_threads_only(p) {
        let mut half = opts.clone();
        half.limits.timeout = opts.limits.timeout.map(|t| t / 2);
        let r = kround_run(&sub, p, k, &half)?;
        if matches!(r.answer, Answer::Reachable { .. }) {
            return Ok(r);
        }
        states = r.states;
        rest.limits.timeout = opts
            .limits
            .timeout
            .map(|t| t.saturating_sub(start.elapsed()));
    }
    let mut r = kround_run(p, p, k, &rest)?;
    r.states += states;
    Ok(r)
}

/// [`kround_reach`] on `q` (P or P with threads frozen), the witness
/// replayed on `p`.
fn kround_run(
    q: &Program,
    p: &Program,
    k: u32,
    opts: &Options,
) -> Result<KroundResult, ReachError> {
    let tr = translate(q, k)?;
    tr.check_width(q, opts.width)?;
    let res = sc_reach(&tr.program, opts)?;
    let answer = match res.verdict {
        ReachVerdict::Reachable(hit) => {
            let steps: Vec<(ThreadId, usize)> =
                hit.trace.iter().map(|s| (s.thread, s.instr)).collect();
            let witness = tr.to_tso(&steps);
            let goal = tr.goal_of[hit.goal];
            super::tso::check_witness(p, opts.width, &witness, goal).map_err(|e| {
                ReachError::Unsupported(format!(
                    "internal error: the k-round witness does not replay: {e}"
                ))
            })?;
            Answer::Reachable { goal, witness }
        }
        ReachVerdict::Unreachable => Answer::Unreachable,
        ReachVerdict::Unknown(r) => Answer::Unknown(r),
    };
    Ok(KroundResult {
        answer,
        states: res.stats.states_visited,
    })
}
