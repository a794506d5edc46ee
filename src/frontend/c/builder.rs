//! One thread's automaton under construction.
//!
//! Code is emitted at the current position (a control state, or none when
//! the code is unreachable). Every jump is forward: a [`LabelId`] collects
//! the positions that jump to it and, when placed, merges their states
//! into one (union–find), so jumps, `break`, `continue`, `return` and
//! joins of branches cost no instruction. The result is acyclic (its
//! longest path is the default `--bound`) unless the cyclic lowering
//! closes a loop with [`Builder::jump_back`].
//!
//! Registers known to hold a constant on every path to the current
//! position are propagated (`env`): expressions are folded, branches on
//! constants take one side only, and `assume` of a constant is dropped
//! (true) or ends the path (false). This is what unrolls loops with
//! constant bounds completely (docs/c.md).
//!
//! In thread `main` before it creates a thread ([`Builder::init_mem`]),
//! a load of a cell that no instruction lowered so far stores to yields
//! the cell's initial value: no other thread exists yet, so under every
//! model the load reads the initial memory.

use crate::diag::{Error, Span};
use crate::engines::bounded::Deadline;
use crate::program::intern::Interner;
use crate::program::{BinOp, Command, Expr, Instr, LExpr, RegId, StateId, Thread, UnOp, Width};
use std::collections::HashMap;

/// Most instructions one thread may have after unwinding and inlining.
pub const MAX_INSTRS: usize = 200_000;

/// Constant values of registers at a position (`None`: unknown).
pub type Env = Vec<Option<i64>>;

/// A position: a control state and what is known there.
pub type Pos = Option<(u32, Env)>;

/// A forward jump target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LabelId(usize);

/// A label's incoming jumps.
#[derive(Default)]
struct Label {
    pending: Vec<(u32, Env)>,
    placed: bool,
}

/// The automaton of one thread being built.
pub struct Builder {
    /// The value width (folding wraps to it).
    pub width: Width,
    states: Vec<String>,
    parent: Vec<u32>,
    /// Register names ([`RegId`] indexes this).
    pub regs: Vec<String>,
    instrs: Vec<(u32, u32, Command, Span)>,
    /// The current position's state (`None`: unreachable code).
    pub cur: Option<u32>,
    /// The constants known at the current position.
    pub env: Env,
    labels: Vec<Label>,
    temps: Vec<RegId>,
    temps_used: usize,
    line: usize,
    /// Thread `main` before its first `pthread_create`: the cells (address
    /// → initial value) that no instruction emitted so far stores to, on
    /// any path; a load of one of them gives a known register. Stores
    /// only remove cells (a store on one branch removes the cell for the
    /// code after the join too); a store to an unknown address, or the
    /// creation of a thread, turns this off (`None`). Sound because the
    /// lowering emits the instructions of every path in path order (all
    /// jumps are forward) and no other thread runs yet.
    pub init_mem: Option<HashMap<i64, i64>>,
}

impl Builder {
    /// A builder whose initial state is the current position.
    pub fn new(width: Width) -> Builder {
        Builder {
            width,
            states: vec!["start".into()],
            parent: vec![0],
            regs: Vec::new(),
            instrs: Vec::new(),
            cur: Some(0),
            env: Vec::new(),
            labels: Vec::new(),
            temps: Vec::new(),
            temps_used: 0,
            line: 0,
            init_mem: None,
        }
    }

    /// Sets the source line used to name new states.
    pub fn at_line(&mut self, line: usize) {
        if line > 0 {
            self.line = line;
        }
    }

    /// True when the current position is reachable.
    pub fn live(&self) -> bool {
        self.cur.is_some()
    }

    /// The number of instructions so far.
    pub fn len(&self) -> usize {
        self.instrs.len()
    }

    /// True when no instruction was emitted.
    pub fn is_empty(&self) -> bool {
        self.instrs.is_empty()
    }

    fn new_state(&mut self) -> u32 {
        let n = self.states.len();
        self.states.push(format!("l{}_{}", self.line, n));
        self.parent.push(n as u32);
        n as u32
    }

    fn find(&mut self, mut s: u32) -> u32 {
        while self.parent[s as usize] != s {
            let p = self.parent[s as usize];
            self.parent[s as usize] = self.parent[p as usize];
            s = p;
        }
        s
    }

    /// The register named `name` (created with initial value 0).
    pub fn reg(&mut self, name: &str) -> RegId {
        match self.regs.iter().position(|r| r == name) {
            Some(i) => RegId(i as u32),
            None => {
                self.regs.push(name.to_string());
                RegId(self.regs.len() as u32 - 1)
            }
        }
    }

    /// True when a register of that name exists.
    pub fn has_reg(&self, name: &str) -> bool {
        self.regs.iter().any(|r| r == name)
    }

    /// A temporary register, free until [`Builder::release`] of an
    /// earlier [`Builder::mark`].
    pub fn temp(&mut self) -> RegId {
        if self.temps_used == self.temps.len() {
            let r = self.reg(&format!("tmp.{}", self.temps.len()));
            self.temps.push(r);
        }
        let r = self.temps[self.temps_used];
        self.temps_used += 1;
        self.set_env(r, None);
        r
    }

    /// The temporaries in use now.
    pub fn mark(&self) -> usize {
        self.temps_used
    }

    /// Frees the temporaries taken since `mark`.
    pub fn release(&mut self, mark: usize) {
        self.temps_used = mark.min(self.temps_used);
    }

    fn set_env(&mut self, r: RegId, v: Option<i64>) {
        let i = r.0 as usize;
        if self.env.len() <= i {
            if v.is_none() {
                return;
            }
            self.env.resize(i + 1, None);
        }
        self.env[i] = v;
    }

    /// The constant a register holds here, if known.
    pub fn known(&self, r: RegId) -> Option<i64> {
        self.env.get(r.0 as usize).copied().flatten()
    }

    /// `e` with known registers replaced and constants folded.
    pub fn fold(&self, e: &LExpr) -> LExpr {
        fold(e, &self.env, self.width)
    }

    /// Emits `cmd` at the current position (nothing when unreachable).
    /// Folds its expressions; `assume` of a constant is dropped or ends
    /// the path; assignments of constants update what is known.
    ///
    /// Errors: the thread outgrows [`MAX_INSTRS`] (a resource limit).
    pub fn emit(&mut self, cmd: Command, span: Span) -> Result<(), Error> {
        let Some(from) = self.cur else {
            return Ok(());
        };
        let cmd = self.fold_cmd(cmd);
        if let Command::Assume(c) = &cmd {
            match c.as_const(self.width) {
                Some(0) => {
                    self.cur = None;
                    return Ok(());
                }
                Some(_) => return Ok(()),
                None => {}
            }
        }
        self.update_env(&cmd);
        let to = self.new_state();
        self.push(from, to, cmd, span)?;
        self.cur = Some(to);
        Ok(())
    }

    fn push(&mut self, from: u32, to: u32, cmd: Command, span: Span) -> Result<(), Error> {
        if self.init_mem.is_some() {
            self.forget_stores(&cmd);
        }
        if self.instrs.len() >= MAX_INSTRS {
            return Err(Error::Unknown(format!(
                "a thread of the C program has more than {MAX_INSTRS} instructions after unwinding and inlining (lower --unwind)"
            )));
        }
        self.instrs.push((from, to, cmd, span));
        Ok(())
    }

    /// Removes the cells `cmd` may store to from [`Builder::init_mem`]
    /// (all of them, turning it off, for an unknown address).
    fn forget_stores(&mut self, cmd: &Command) {
        match cmd {
            Command::Store { addr, .. } => match addr.as_const(self.width) {
                Some(a) => {
                    if let Some(m) = &mut self.init_mem {
                        m.remove(&a);
                    }
                }
                None => self.init_mem = None,
            },
            Command::Atomic(cs) => cs.iter().for_each(|c| self.forget_stores(c)),
            Command::StoreCond { .. } | Command::Pgas(_) => self.init_mem = None,
            _ => {}
        }
    }

    fn fold_cmd(&self, cmd: Command) -> Command {
        match cmd {
            Command::Atomic(cs) => {
                // Inside, registers written by earlier parts are not known.
                let mut env = self.env.clone();
                let mut out = Vec::new();
                for c in cs {
                    let c2 = map_exprs(c, |e| fold(e, &env, self.width));
                    if let Command::Load { reg, .. } | Command::Assign { reg, .. } = &c2 {
                        if let Some(x) = env.get_mut(reg.0 as usize) {
                            *x = None;
                        }
                    }
                    out.push(c2);
                }
                Command::Atomic(out)
            }
            c => map_exprs(c, |e| fold(e, &self.env, self.width)),
        }
    }

    fn update_env(&mut self, cmd: &Command) {
        match cmd {
            Command::Assign { reg, value } => {
                let v = value.as_const(self.width);
                self.set_env(*reg, v);
            }
            Command::Load { reg, addr } => {
                let v = self
                    .init_mem
                    .as_ref()
                    .and_then(|m| addr.as_const(self.width).and_then(|a| m.get(&a).copied()));
                self.set_env(*reg, v)
            }
            Command::Atomic(cs) => cs.iter().for_each(|c| self.update_env_atomic(c)),
            _ => {}
        }
    }

    fn update_env_atomic(&mut self, c: &Command) {
        if let Command::Load { reg, .. } | Command::Assign { reg, .. } = c {
            self.set_env(*reg, None);
        }
    }

    /// Splits the current position on `cond`: the positions where it
    /// holds and where it does not (`None` for a side that a constant
    /// condition rules out). The current position becomes unreachable;
    /// continue with [`Builder::goto_pos`].
    ///
    /// Errors: see [`Builder::emit`].
    pub fn branch(&mut self, cond: &LExpr, span: Span) -> Result<(Pos, Pos), Error> {
        let Some(from) = self.cur.take() else {
            return Ok((None, None));
        };
        let c = self.fold(cond);
        let env = std::mem::take(&mut self.env);
        if let Some(v) = c.as_const(self.width) {
            return Ok(if v != 0 {
                (Some((from, env)), None)
            } else {
                (None, Some((from, env)))
            });
        }
        let t = self.new_state();
        let e = self.new_state();
        let mut tenv = env.clone();
        let mut eenv = env;
        if let Expr::Bin(op @ (BinOp::Eq | BinOp::Ne), a, b) = &c {
            if let (Expr::Var(r), Expr::Const(k)) = (&**a, &**b) {
                let target = if *op == BinOp::Eq {
                    &mut tenv
                } else {
                    &mut eenv
                };
                if target.len() <= r.0 as usize {
                    target.resize(r.0 as usize + 1, None);
                }
                target[r.0 as usize] = Some(*k);
            }
        }
        self.push(from, t, Command::Assume(c.clone()), span)?;
        self.push(from, e, Command::Assume(negate(c)), span)?;
        Ok((Some((t, tenv)), Some((e, eenv))))
    }

    /// Several commands from the current position to one new state (a
    /// nondeterministic choice); registers they write become unknown.
    ///
    /// Errors: see [`Builder::emit`].
    pub fn choice(&mut self, cmds: Vec<Command>, span: Span) -> Result<(), Error> {
        let Some(from) = self.cur else {
            return Ok(());
        };
        let to = self.new_state();
        let mut written = Vec::new();
        for c in cmds {
            let c = self.fold_cmd(c);
            collect_written(&c, &mut written);
            self.push(from, to, c, span)?;
        }
        for r in written {
            self.set_env(r, None);
        }
        self.cur = Some(to);
        Ok(())
    }

    /// Several alternative commands from the current position, each to
    /// its own new state: the positions after each (what they assign as a
    /// constant is known there).
    ///
    /// Errors: see [`Builder::emit`].
    pub fn split(&mut self, cmds: Vec<Command>, span: Span) -> Result<Vec<Pos>, Error> {
        let Some(from) = self.cur.take() else {
            return Ok(cmds.iter().map(|_| None).collect());
        };
        let env = std::mem::take(&mut self.env);
        let mut out = Vec::new();
        for c in cmds {
            self.env = env.clone();
            let c = self.fold_cmd(c);
            self.update_env(&c);
            let to = self.new_state();
            self.push(from, to, c, span)?;
            out.push(Some((to, std::mem::take(&mut self.env))));
        }
        Ok(out)
    }

    /// Makes `p` the current position.
    pub fn goto_pos(&mut self, p: Pos) {
        match p {
            Some((s, env)) => {
                self.cur = Some(s);
                self.env = env;
            }
            None => {
                self.cur = None;
                self.env = Vec::new();
            }
        }
    }

    /// The current position (leaves it in place).
    pub fn pos(&self) -> Pos {
        self.cur.map(|s| (s, self.env.clone()))
    }

    /// A new, unplaced label.
    pub fn label(&mut self) -> LabelId {
        self.labels.push(Label::default());
        LabelId(self.labels.len() - 1)
    }

    /// When the current position is live, jumps to the label in `slot`,
    /// creating it (with `span`, the first place that jumps there) on
    /// first use: one shared target per kind of violation of a thread
    /// (assertion failed, out-of-bounds index, invalid function pointer,
    /// undefined function), placed later by the thread's epilogue.
    pub fn jump_shared(&mut self, slot: &mut Option<(LabelId, Span)>, span: Span) {
        if !self.live() {
            return;
        }
        let l = match *slot {
            Some((l, _)) => l,
            None => {
                let l = self.label();
                *slot = Some((l, span));
                l
            }
        };
        self.jump(l);
    }

    /// True once `l` was placed.
    pub fn placed(&self, l: LabelId) -> bool {
        self.labels[l.0].placed
    }

    /// Jumps from the current position to `l` (forward only); the current
    /// position becomes unreachable.
    pub fn jump(&mut self, l: LabelId) {
        if let Some(s) = self.cur.take() {
            let env = std::mem::take(&mut self.env);
            self.labels[l.0].pending.push((s, env));
        }
    }

    /// Adds position `p` to the jumps into `l`.
    pub fn jump_from(&mut self, p: Pos, l: LabelId) {
        if let Some(x) = p {
            self.labels[l.0].pending.push(x);
        }
    }

    /// Places `l` here: the current position (falling through) and every
    /// jump to `l` become one state, where the constants on which all of
    /// them agree are known.
    pub fn place(&mut self, l: LabelId) {
        let mut pending = std::mem::take(&mut self.labels[l.0].pending);
        self.labels[l.0].placed = true;
        if let Some(s) = self.cur.take() {
            pending.insert(0, (s, std::mem::take(&mut self.env)));
        }
        let mut it = pending.into_iter();
        let Some((s0, mut env)) = it.next() else {
            self.cur = None;
            self.env = Vec::new();
            return;
        };
        let root = self.find(s0);
        for (s, e) in it {
            let r = self.find(s);
            if r != root {
                self.parent[r as usize] = root;
            }
            for (i, v) in env.iter_mut().enumerate() {
                if e.get(i).copied().flatten() != *v {
                    *v = None;
                }
            }
        }
        self.cur = Some(root);
        self.env = env;
    }

    /// Makes the current position the head of a loop kept as a cycle
    /// (the C front-end's cyclic lowering, [`super::Options::cyclic`]):
    /// nothing is known there any more (a later iteration reaches it with
    /// other values), and loads no longer read the initial memory
    /// ([`Builder::init_mem`] assumes every jump is forward). Returns the
    /// head's state (`None` when the position is unreachable).
    pub fn loop_head(&mut self) -> Option<u32> {
        self.env = Vec::new();
        self.init_mem = None;
        self.cur
    }

    /// Jumps from the current position back to `head` (a state of
    /// [`Builder::loop_head`]): the two become one state, closing the
    /// cycle; the current position becomes unreachable.
    pub fn jump_back(&mut self, head: u32) {
        if let Some(s) = self.cur.take() {
            self.env = Vec::new();
            let (r, h) = (self.find(s), self.find(head));
            if r != h {
                self.parent[r as usize] = h;
            }
        }
    }

    /// The final state id of a state (after the merges so far).
    pub fn resolve(&mut self, s: u32) -> u32 {
        self.find(s)
    }

    /// A builder for an atomic section of this one: the same registers,
    /// temporaries and known constants, a fresh automaton.
    pub fn sub(&self) -> Builder {
        let mut b = Builder::new(self.width);
        b.regs = self.regs.clone();
        b.temps = self.temps.clone();
        b.temps_used = self.temps_used;
        b.env = self.env.clone();
        b.line = self.line;
        b.init_mem = self.init_mem.clone();
        b
    }

    /// Takes back the registers a sub-builder created.
    pub fn adopt_regs(&mut self, sub: &Builder) {
        self.regs = sub.regs.clone();
        self.temps = sub.temps.clone();
    }

    /// The transitions of this automaton as (from, to, command), states
    /// given by their representative after the merges so far; and the
    /// representative of the initial state.
    pub fn edges(&mut self) -> (u32, Vec<(u32, u32, Command)>) {
        let raw: Vec<(u32, u32, Command)> = self
            .instrs
            .iter()
            .map(|(f, t, c, _)| (*f, *t, c.clone()))
            .collect();
        let edges = raw
            .into_iter()
            .map(|(f, t, c)| (self.find(f), self.find(t), c))
            .collect();
        (self.find(0), edges)
    }

    /// The finished thread: merged states renumbered in order of first
    /// use (the initial state first), with `map` from build-time states
    /// to final ones, and the longest path (instructions) when the
    /// automaton is acyclic. `deadline` is checked between the passes
    /// (index specialization, simplification, levelling).
    ///
    /// Errors: a limit of `deadline` was reached
    /// ([`check_limits`], [`Error::Unknown`]).
    pub fn finish(
        mut self,
        names: &mut Interner,
        name: &str,
        span: Span,
        deadline: &Deadline,
    ) -> Result<Finished, Error> {
        let n = self.states.len();
        let mut map: Vec<Option<u32>> = vec![None; n];
        let mut order: Vec<u32> = Vec::new();
        let id = |s: u32, map: &mut Vec<Option<u32>>, order: &mut Vec<u32>| -> u32 {
            if let Some(x) = map[s as usize] {
                return x;
            }
            let x = order.len() as u32;
            map[s as usize] = Some(x);
            order.push(s);
            x
        };
        let root0 = self.find(0);
        id(root0, &mut map, &mut order);
        let mut instrs = Vec::new();
        let raw = std::mem::take(&mut self.instrs);
        for (f, t, c, sp) in raw {
            let f = self.find(f);
            let t = self.find(t);
            let f = id(f, &mut map, &mut order);
            let t = id(t, &mut map, &mut order);
            instrs.push(Instr {
                from: StateId(f),
                to: StateId(t),
                cmd: c,
                span: sp,
            });
        }
        let mut full_map = vec![0u32; n];
        for (s, slot) in full_map.iter_mut().enumerate() {
            let r = self.find(s as u32);
            *slot = map[r as usize].unwrap_or(0);
        }
        let tname = names.intern(name);
        let first = names.intern(&self.states[root0 as usize]);
        let mut th = Thread::new(tname, first, span);
        for &s in &order[1..] {
            let sym = names.intern(&self.states[s as usize]);
            th.states.push(sym);
        }
        for r in &self.regs {
            let sym = names.intern(r);
            th.regs.push(sym);
            th.reg_init.push(0);
        }
        th.instrs = instrs;
        // IR simplification (program::simplify) before levelling: states
        // without outgoing instructions (ends, the error state) are kept.
        let out = th.outgoing();
        let ends: Vec<StateId> = (0..th.states.len() as u32)
            .map(StateId)
            .filter(|q| out[q.0 as usize].is_empty())
            .collect();
        // Array indices split by value (docs/c.md) get constant-address
        // accesses per branch (program::specialize); new states come after
        // the old ones, so `full_map` stays valid.
        check_limits(deadline)?;
        crate::program::specialize::specialize(&mut th, self.width, &ends, names);
        check_limits(deadline)?;
        let smap = crate::program::simplify::simplify_thread(&mut th, self.width, &ends, &[]);
        for slot in full_map.iter_mut() {
            *slot = smap[*slot as usize].map_or(0, |q| q.0);
        }
        check_limits(deadline)?;
        level(&mut th, names);
        let longest = longest_path(&th);
        Ok(Finished {
            thread: th,
            map: full_map,
            longest,
        })
    }
}

/// A finished thread with its state map and longest path.
pub struct Finished {
    /// The thread.
    pub thread: Thread,
    /// Build-time state → final state index.
    pub map: Vec<u32>,
    /// Instructions on the longest path (`None`: cyclic).
    pub longest: Option<u32>,
}

/// Pads an acyclic thread with `nop`s so that every state with outgoing
/// instructions is reached after the same number of steps on every path
/// (its depth): an instruction `u → v` with depth(v) > depth(u) + 1
/// becomes `u → p1` (the command) followed by `nop`s `p1 → … → v`. The
/// bounded engine's step i then chooses only among the instructions of
/// depth i. States without outgoing instructions (ends, the error state)
/// are not padded. A cyclic thread is left alone.
pub fn level(t: &mut Thread, names: &mut Interner) {
    let Some(depth) = depths(t) else {
        return;
    };
    let out = t.outgoing();
    let old = std::mem::take(&mut t.instrs);
    let mut pads = 0usize;
    for ins in old {
        let (u, v) = (ins.from.0 as usize, ins.to.0 as usize);
        let gap = depth[v].saturating_sub(depth[u] + 1);
        if gap == 0 || out[v].is_empty() {
            t.instrs.push(ins);
            continue;
        }
        let mut prev = ins.from;
        let span = ins.span;
        let mut cmd = Some(ins.cmd);
        for _ in 0..gap {
            pads += 1;
            let sym = names.intern(&format!("pad{pads}"));
            t.states.push(sym);
            let q = StateId(t.states.len() as u32 - 1);
            let c = cmd.take().unwrap_or(Command::Nop);
            t.instrs.push(Instr {
                from: prev,
                to: q,
                cmd: c,
                span,
            });
            prev = q;
        }
        t.instrs.push(Instr {
            from: prev,
            to: ins.to,
            cmd: Command::Nop,
            span,
        });
    }
}

/// The longest path of an acyclic thread (instructions), `None` if it
/// has a cycle.
pub fn longest_path(t: &Thread) -> Option<u32> {
    depths(t).map(|d| d.into_iter().max().unwrap_or(0))
}

/// Per control state of an acyclic thread, the length (instructions) of
/// the longest path from a state without incoming instructions to it
/// (topological order, Kahn); `None` if the thread has a cycle. Shared by
/// [`level`] and [`longest_path`].
fn depths(t: &Thread) -> Option<Vec<u32>> {
    let n = t.states.len();
    let mut indeg = vec![0usize; n];
    for i in &t.instrs {
        indeg[i.to.0 as usize] += 1;
    }
    let out = t.outgoing();
    let mut queue: Vec<usize> = (0..n).filter(|&s| indeg[s] == 0).collect();
    let mut depth = vec![0u32; n];
    let mut seen = 0;
    while let Some(s) = queue.pop() {
        seen += 1;
        for &i in &out[s] {
            let to = t.instrs[i].to.0 as usize;
            depth[to] = depth[to].max(depth[s] + 1);
            indeg[to] -= 1;
            if indeg[to] == 0 {
                queue.push(to);
            }
        }
    }
    (seen == n).then_some(depth)
}

/// The commands of `c` as parts of one atomic step.
fn collect_written(c: &Command, out: &mut Vec<RegId>) {
    match c {
        Command::Load { reg, .. } | Command::Assign { reg, .. } => out.push(*reg),
        Command::Atomic(cs) => cs.iter().for_each(|c| collect_written(c, out)),
        _ => {}
    }
}

/// `!c`, simplified for comparisons.
pub fn negate(c: LExpr) -> LExpr {
    match c {
        Expr::Bin(op, a, b) => match op.negation() {
            Some(n) => Expr::Bin(n, a, b),
            None => Expr::un(UnOp::Not, Expr::Bin(op, a, b)),
        },
        Expr::Un(UnOp::Not, a) if is_boolean(&a) => *a,
        c => Expr::un(UnOp::Not, c),
    }
}

/// True for expressions whose value is 0 or 1.
pub fn is_boolean(e: &LExpr) -> bool {
    match e {
        Expr::Bin(op, _, _) => op.is_boolean(),
        Expr::Un(UnOp::Not, _) => true,
        Expr::Const(c) => *c == 0 || *c == 1,
        _ => false,
    }
}

/// Substitutes known registers and folds constants (with the identities
/// `0 && x = 0`, `1 || x = 1`, `x * 0 = 0`, `x + 0 = x`).
pub fn fold(e: &LExpr, env: &Env, w: Width) -> LExpr {
    match e {
        Expr::Var(r) => match env.get(r.0 as usize).copied().flatten() {
            Some(v) => Expr::Const(v),
            None => e.clone(),
        },
        Expr::Const(_) | Expr::Rank | Expr::Nodes => e.clone(),
        Expr::Un(op, a) => {
            let a = fold(a, env, w);
            match a {
                Expr::Const(v) => Expr::Const(op.apply(v, w)),
                a => Expr::un(*op, a),
            }
        }
        Expr::Bin(op, a, b) => {
            let a = fold(a, env, w);
            let b = fold(b, env, w);
            match (op, &a, &b) {
                (_, Expr::Const(x), Expr::Const(y)) => Expr::Const(op.apply(*x, *y, w)),
                (BinOp::And, Expr::Const(0), _) | (BinOp::And, _, Expr::Const(0)) => Expr::Const(0),
                (BinOp::Or, Expr::Const(x), _) | (BinOp::Or, _, Expr::Const(x)) if *x != 0 => {
                    Expr::Const(1)
                }
                (BinOp::And, Expr::Const(_), x)
                | (BinOp::And, x, Expr::Const(_))
                | (BinOp::Or, Expr::Const(0), x)
                | (BinOp::Or, x, Expr::Const(0)) => {
                    if is_boolean(x) {
                        x.clone()
                    } else {
                        Expr::bin(BinOp::Ne, x.clone(), Expr::Const(0))
                    }
                }
                (BinOp::Mul, Expr::Const(0), _) | (BinOp::Mul, _, Expr::Const(0)) => Expr::Const(0),
                (BinOp::Add, Expr::Const(0), x)
                | (BinOp::Add, x, Expr::Const(0))
                | (BinOp::Sub, x, Expr::Const(0)) => x.clone(),
                _ => Expr::bin(*op, a, b),
            }
        }
    }
}

/// `cmd` with `f` applied to the expressions of a load, store, assignment
/// or assumption; every other command unchanged.
fn map_exprs(cmd: Command, f: impl Fn(&LExpr) -> LExpr) -> Command {
    match cmd {
        Command::Load { reg, addr } => Command::Load {
            reg,
            addr: f(&addr),
        },
        Command::Store { addr, value } => Command::Store {
            addr: f(&addr),
            value: f(&value),
        },
        Command::Assign { reg, value } => Command::Assign {
            reg,
            value: f(&value),
        },
        Command::Assume(e) => Command::Assume(f(&e)),
        c => c,
    }
}

/// [`Deadline::check`] for the C front-end: the limit's message says
/// that it was reached while lowering.
///
/// Errors: [`Error::Unknown`] ("time limit reached while lowering the C
/// program", or the memory budget's message likewise).
pub fn check_limits(deadline: &Deadline) -> Result<(), Error> {
    deadline.check().map_err(|e| match e {
        Error::Unknown(m) => Error::Unknown(format!("{m} while lowering the C program")),
        e => e,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_merge_states_and_envs() {
        let mut b = Builder::new(Width(16));
        let r = b.reg("r");
        let x = b.reg("x");
        b.emit(
            Command::Load {
                reg: x,
                addr: Expr::Const(1),
            },
            Span::default(),
        )
        .unwrap();
        let (t, e) = b.branch(&Expr::Var(x), Span::default()).unwrap();
        let join = b.label();
        b.goto_pos(t);
        b.emit(
            Command::Assign {
                reg: r,
                value: Expr::Const(1),
            },
            Span::default(),
        )
        .unwrap();
        b.jump(join);
        b.goto_pos(e);
        b.emit(
            Command::Assign {
                reg: r,
                value: Expr::Const(1),
            },
            Span::default(),
        )
        .unwrap();
        b.place(join);
        assert_eq!(b.known(r), Some(1));
        let mut names = Interner::default();
        let f = b
            .finish(&mut names, "t", Span::default(), &Deadline(None))
            .expect("no limit");
        // `finish` simplifies (program::simplify): both assignments are
        // dead, so each branch is its `assume` straight to the join.
        assert_eq!(f.longest, Some(2));
        // start, after load, one join state.
        assert_eq!(f.thread.states.len(), 3);
        let ends: Vec<_> = f.thread.instrs[1..].iter().map(|i| i.to).collect();
        assert_eq!(ends.len(), 2);
        assert_eq!(ends[0], ends[1], "both branches end at the join");
    }

    #[test]
    fn constant_conditions_take_one_side() {
        let mut b = Builder::new(Width(16));
        let r = b.reg("r");
        b.emit(
            Command::Assign {
                reg: r,
                value: Expr::Const(2),
            },
            Span::default(),
        )
        .unwrap();
        let c = Expr::bin(BinOp::Lt, Expr::Var(r), Expr::Const(3));
        let (t, e) = b.branch(&c, Span::default()).unwrap();
        assert!(t.is_some() && e.is_none());
        b.goto_pos(t);
        b.emit(Command::Assume(Expr::Const(0)), Span::default())
            .unwrap();
        assert!(!b.live());
    }
}
