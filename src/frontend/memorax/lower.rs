//! Memorax AST → Program IR.
//!
//! * Memory: the global `data` variables at addresses 0, 1, … in
//!   declaration order (so `[e]` is address e, guarded by
//!   `assume(0 <= e < G)` when e is not constant); then every per-process
//!   array `x` (declared in a process's `data`) with one cell per process,
//!   named `x[p]` (p = the owner's process number).
//! * Processes: one thread `P<p>` per copy (`process(N)` gives N), in
//!   order. `x[my]` is the cell of p; `x[k]` from process p is owner k if
//!   k < p, else k + 1 (the k-th *other* process).
//! * Statements: structured code → automaton as in the native language
//!   (`if`/`while` as `assume` branches, `either` as branching at the
//!   same state, `goto` as `nop`); a label names the state before its
//!   statement. `read: m = e` is a load into register `tmp` then
//!   `assume(tmp == e)`; `cas(m, a, b)` is `atomic { tmp = m; assume(tmp
//!   == a); m = b }` (it blocks unless m holds a); `locked write` and each
//!   alternative of `locked { … or … }` are one `atomic` (a full fence
//!   under TSO, as in Memorax); `fence` is `mfence`, `ssfence` is
//!   `membar #StoreStore`, `llfence` is `membar #LoadLoad`.
//! * `*` initial values: a register whose initial value can be read gets a
//!   choice of every value of its finite domain before its first
//!   statement (an infinite domain `Z` is an error then); a memory cell
//!   with `*` is written by an extra thread `init` (one store per value of
//!   the domain, then `mfence` and a store `init_done = 1`), and every
//!   process starts with `atomic { go = init_done; assume(go == 1) }`.
//! * Domains `[lo:hi]` bound only the `*` choices: values are the W-bit
//!   integers of `--width` (docs/memorax.md).
//! * `forbidden` rows → goals `P0@L0, P1@L1, …` (`*` entries omitted).

use super::{Decl, File, Init, LStmt, MExpr, MemLoc, Process, Stmt};
use crate::collections::HashMap;
use crate::diag::{Error, SourceFile, Span};
use crate::program::{
    BinOp, Command, Expr, Fence, Goal, GoalAt, GoalKind, Instr, LExpr, MembarMask, Program, RegId,
    SharedVar, StateId, Thread, ThreadId, UnOp, Width,
};

/// The most values a `*` choice enumerates.
pub const MAX_CHOICES: i64 = 4096;

struct Cell {
    addr: i64,
    init: Init,
    domain: Option<(i64, i64)>,
    span: Span,
}

struct Ctx<'a> {
    src: &'a SourceFile,
    width: Width,
    globals: HashMap<String, usize>,
    n_globals: i64,
    /// Per-process array name → its index.
    arrays: HashMap<String, usize>,
    n_procs: i64,
}

impl Ctx<'_> {
    fn array_addr(&self, a: usize, owner: i64) -> i64 {
        self.n_globals + a as i64 * self.n_procs + owner
    }

    fn constant(&self, v: i64, span: Span) -> Result<i64, Error> {
        if !self.width.fits(v) {
            return Err(self.src.error_help(
                span,
                format!("constant {v} does not fit in {} bits", self.width.0),
                self.width.raise_hint(),
            ));
        }
        Ok(self.width.wrap(v))
    }
}

struct ThreadBuilder<'a, 'c> {
    cx: &'c Ctx<'a>,
    prog: &'c mut Program,
    t: Thread,
    p: i64,
    labels: HashMap<String, (StateId, Option<Span>)>,
    used_names: crate::collections::HashSet<String>,
    fresh: usize,
}

impl ThreadBuilder<'_, '_> {
    fn fresh(&mut self) -> StateId {
        loop {
            let n = format!("q{}", self.fresh);
            self.fresh += 1;
            if !self.used_names.contains(&n) {
                let s = self.prog.names.intern(&n);
                return self.t.state(s);
            }
        }
    }

    fn label(&mut self, l: &str) -> StateId {
        if let Some((s, _)) = self.labels.get(l) {
            return *s;
        }
        let sym = self.prog.names.intern(l);
        let s = self.t.state(sym);
        self.labels.insert(l.to_string(), (s, None));
        s
    }

    fn add(&mut self, from: StateId, to: StateId, cmd: Command, span: Span) {
        self.t.instrs.push(Instr {
            from,
            to,
            cmd,
            span,
        });
    }

    fn reg(&mut self, r: &str, span: Span) -> Result<RegId, Error> {
        let sym = self.prog.names.intern(&format!("${r}"));
        self.t.find_reg(sym).ok_or_else(|| {
            self.cx.src.error(
                span,
                format!("unknown register `${r}` (declare it under `registers`)"),
            )
        })
    }

    fn tmp(&mut self) -> RegId {
        let sym = self.prog.names.intern("tmp");
        self.t.reg(sym)
    }

    fn expr(&mut self, e: &MExpr) -> Result<LExpr, Error> {
        Ok(match e {
            MExpr::Const(v, s) => Expr::Const(self.cx.constant(*v, *s)?),
            MExpr::Reg(r, s) => Expr::Var(self.reg(r, *s)?),
            MExpr::Neg(a) => Expr::un(UnOp::Neg, self.expr(a)?),
            MExpr::Not(a) => Expr::un(UnOp::Not, self.expr(a)?),
            MExpr::Bin(op, a, b) => Expr::bin(*op, self.expr(a)?, self.expr(b)?),
        })
    }

    /// The address of a location, and a guard (`0 <= e < G`) for a
    /// non-constant pointer.
    fn addr(&mut self, m: &MemLoc) -> Result<(LExpr, Option<LExpr>), Error> {
        let cx = self.cx;
        let err = |s: Span, msg: String| Err(cx.src.error(s, msg));
        match m {
            MemLoc::Global(n, s) => match cx.globals.get(n) {
                Some(i) => Ok((Expr::Const(*i as i64), None)),
                None if cx.arrays.contains_key(n) => err(
                    *s,
                    format!("`{n}` is a per-process array: write `{n}[my]` or `{n}[k]`"),
                ),
                None => err(*s, format!("unknown variable `{n}`")),
            },
            MemLoc::Mine(n, s) | MemLoc::Other(n, _, s) => {
                let Some(a) = cx.arrays.get(n) else {
                    return err(*s, format!("`{n}` is not a per-process array"));
                };
                let owner = match m {
                    MemLoc::Other(_, k, _) if *k < self.p => *k,
                    MemLoc::Other(_, k, _) => k + 1,
                    _ => self.p,
                };
                if owner >= cx.n_procs {
                    return err(
                        *s,
                        format!(
                            "`{n}[{}]` names no process (there are {} processes)",
                            owner - (owner > self.p) as i64,
                            cx.n_procs
                        ),
                    );
                }
                Ok((Expr::Const(cx.array_addr(*a, owner)), None))
            }
            MemLoc::Pointer(e, s) => {
                let x = self.expr(e)?;
                match x.as_const(cx.width) {
                    Some(v) if (0..cx.n_globals).contains(&v) => Ok((Expr::Const(v), None)),
                    Some(v) => err(
                        *s,
                        format!(
                            "pointer [{v}] names no global variable (there are {})",
                            cx.n_globals
                        ),
                    ),
                    None => {
                        let g = Expr::bin(
                            BinOp::And,
                            Expr::bin(BinOp::Ge, x.clone(), Expr::Const(0)),
                            Expr::bin(BinOp::Lt, x.clone(), Expr::Const(cx.n_globals)),
                        );
                        Ok((x, Some(g)))
                    }
                }
            }
        }
    }

    /// A guarded access: `s -assume(g)-> m -cmd-> x` (or `s -cmd-> x`).
    fn access(&mut self, s: StateId, x: StateId, guard: Option<LExpr>, cmd: Command, span: Span) {
        match guard {
            Some(g) => {
                let m = self.fresh();
                self.add(s, m, Command::Assume(g), span);
                self.add(m, x, cmd, span);
            }
            None => self.add(s, x, cmd, span),
        }
    }

    /// The commands of a statement inside `locked { … }` (an atomic block).
    fn atomic_cmds(&mut self, st: &LStmt, out: &mut Vec<Command>) -> Result<(), Error> {
        let cx = self.cx;
        if let Some((_, s)) = st.labels.first() {
            return Err(cx.src.error(*s, "labels are not allowed inside `locked`"));
        }
        let guard = |out: &mut Vec<Command>, g: Option<LExpr>| {
            if let Some(g) = g {
                out.push(Command::Assume(g));
            }
        };
        match &st.stmt {
            Stmt::Nop => out.push(Command::Nop),
            Stmt::Assign(r, e) => {
                let reg = self.reg(r, st.span)?;
                out.push(Command::Assign {
                    reg,
                    value: self.expr(e)?,
                });
            }
            Stmt::Assume(e) => out.push(Command::Assume(self.expr(e)?)),
            Stmt::Load(r, m) => {
                let reg = self.reg(r, st.span)?;
                let (addr, g) = self.addr(m)?;
                guard(out, g);
                out.push(Command::Load { reg, addr });
            }
            Stmt::ReadEq(m, e) => {
                let (addr, g) = self.addr(m)?;
                let v = self.expr(e)?;
                let reg = self.tmp();
                guard(out, g);
                out.push(Command::Load { reg, addr });
                out.push(Command::Assume(Expr::bin(BinOp::Eq, Expr::Var(reg), v)));
            }
            Stmt::Store(m, e) | Stmt::LockedWrite(m, e) => {
                let (addr, g) = self.addr(m)?;
                let value = self.expr(e)?;
                guard(out, g);
                out.push(Command::Store { addr, value });
            }
            Stmt::Cas(m, a, b) => {
                let (addr, g) = self.addr(m)?;
                let (a, b) = (self.expr(a)?, self.expr(b)?);
                let reg = self.tmp();
                guard(out, g);
                out.push(Command::Load {
                    reg,
                    addr: addr.clone(),
                });
                out.push(Command::Assume(Expr::bin(BinOp::Eq, Expr::Var(reg), a)));
                out.push(Command::Store { addr, value: b });
            }
            Stmt::Block(b) => {
                for s in b {
                    self.atomic_cmds(s, out)?;
                }
            }
            _ => return Err(cx.src.error(
                st.span,
                "only reads, writes, assignments, assumes and `cas` are allowed inside `locked`",
            )),
        }
        Ok(())
    }

    fn seq(&mut self, b: &[LStmt], s: StateId, x: StateId) -> Result<(), Error> {
        let mut cur = s;
        for (i, st) in b.iter().enumerate() {
            let next = match b.get(i + 1) {
                None => x,
                Some(n) => match n.labels.first() {
                    Some((l, _)) => self.label(l),
                    None => self.fresh(),
                },
            };
            self.lstmt(st, cur, next)?;
            cur = next;
        }
        if b.is_empty() && s != x {
            self.add(s, x, Command::Nop, Span::default());
        }
        Ok(())
    }

    fn lstmt(&mut self, st: &LStmt, mut s: StateId, x: StateId) -> Result<(), Error> {
        for (l, span) in &st.labels {
            let ls = self.label(l);
            match self.labels.get_mut(l) {
                Some((_, Some(_))) => {
                    return Err(self.cx.src.error(*span, format!("duplicate label `{l}`")))
                }
                Some(e) => e.1 = Some(*span),
                None => {}
            }
            if ls != s {
                self.add(s, ls, Command::Nop, *span);
            }
            s = ls;
        }
        self.stmt(&st.stmt, st.span, s, x)
    }

    fn stmt(&mut self, stmt: &Stmt, span: Span, s: StateId, x: StateId) -> Result<(), Error> {
        match stmt {
            Stmt::Nop => self.add(s, x, Command::Nop, span),
            Stmt::Fence => self.add(s, x, Command::Fence(Fence::MFence), span),
            Stmt::SsFence => self.add(
                s,
                x,
                Command::Fence(Fence::Membar(MembarMask(MembarMask::SS))),
                span,
            ),
            Stmt::LlFence => self.add(
                s,
                x,
                Command::Fence(Fence::Membar(MembarMask(MembarMask::LL))),
                span,
            ),
            Stmt::Assign(r, e) => {
                let reg = self.reg(r, span)?;
                let value = self.expr(e)?;
                self.add(s, x, Command::Assign { reg, value }, span);
            }
            Stmt::Assume(e) => {
                let e = self.expr(e)?;
                self.add(s, x, Command::Assume(e), span);
            }
            Stmt::Load(r, m) => {
                let reg = self.reg(r, span)?;
                let (addr, g) = self.addr(m)?;
                self.access(s, x, g, Command::Load { reg, addr }, span);
            }
            Stmt::ReadEq(m, e) => {
                let (addr, g) = self.addr(m)?;
                let v = self.expr(e)?;
                let reg = self.tmp();
                let mid = self.fresh();
                self.access(s, mid, g, Command::Load { reg, addr }, span);
                let eq = Expr::bin(BinOp::Eq, Expr::Var(reg), v);
                self.add(mid, x, Command::Assume(eq), span);
            }
            Stmt::Store(m, e) => {
                let (addr, g) = self.addr(m)?;
                let value = self.expr(e)?;
                self.access(s, x, g, Command::Store { addr, value }, span);
            }
            Stmt::LockedWrite(..) | Stmt::Cas(..) => {
                let mut cmds = Vec::new();
                let st = LStmt {
                    labels: Vec::new(),
                    stmt: stmt.clone(),
                    span,
                };
                self.atomic_cmds(&st, &mut cmds)?;
                self.add(s, x, Command::Atomic(cmds), span);
            }
            Stmt::Locked(alts) => {
                for alt in alts {
                    let mut cmds = Vec::new();
                    for st in alt {
                        self.atomic_cmds(st, &mut cmds)?;
                    }
                    self.add(s, x, Command::Atomic(cmds), span);
                }
            }
            Stmt::Either(alts) => {
                for alt in alts {
                    // A branch whose first statement is a loop head or a
                    // goto target gets its own entry state, so that the
                    // loop cannot come back into the choice.
                    let own = alt.first().is_some_and(|f| {
                        !f.labels.is_empty() || matches!(f.stmt, Stmt::While(..) | Stmt::Block(_))
                    });
                    let e = if own {
                        let e = self.fresh();
                        self.add(s, e, Command::Nop, span);
                        e
                    } else {
                        s
                    };
                    self.seq(alt, e, x)?;
                }
            }
            Stmt::Goto(l, _) => {
                let t = self.label(l);
                self.add(s, t, Command::Nop, span);
            }
            Stmt::Block(b) => self.seq(b, s, x)?,
            Stmt::If(c, a, b) => {
                let c = self.expr(c)?;
                let ea = self.entry(a);
                self.add(s, ea, Command::Assume(c.clone()), span);
                self.lstmt(a, ea, x)?;
                let not = Expr::un(UnOp::Not, c);
                match b {
                    Some(b) => {
                        let eb = self.entry(b);
                        self.add(s, eb, Command::Assume(not), span);
                        self.lstmt(b, eb, x)?;
                    }
                    None => self.add(s, x, Command::Assume(not), span),
                }
            }
            Stmt::While(c, body) => {
                let c = self.expr(c)?;
                let eb = self.entry(body);
                self.add(s, eb, Command::Assume(c.clone()), span);
                self.lstmt(body, eb, s)?;
                self.add(s, x, Command::Assume(Expr::un(UnOp::Not, c)), span);
            }
        }
        Ok(())
    }

    /// The entry state of a statement: its first label's state or a fresh one.
    fn entry(&mut self, st: &LStmt) -> StateId {
        match st.labels.first() {
            Some((l, _)) => self.label(l),
            None => self.fresh(),
        }
    }
}

fn collect_labels(b: &[LStmt], out: &mut crate::collections::HashSet<String>) {
    for st in b {
        for (l, _) in &st.labels {
            out.insert(l.clone());
        }
        match &st.stmt {
            Stmt::Locked(a) | Stmt::Either(a) => a.iter().for_each(|x| collect_labels(x, out)),
            Stmt::Block(x) => collect_labels(x, out),
            Stmt::If(_, a, b) => {
                collect_labels(std::slice::from_ref(a), out);
                if let Some(b) = b {
                    collect_labels(std::slice::from_ref(b), out);
                }
            }
            Stmt::While(_, a) => collect_labels(std::slice::from_ref(a), out),
            _ => {}
        }
    }
}

/// True if some path from `q0` uses register `r` before assigning it.
fn read_before_written(t: &Thread, q0: StateId, r: RegId) -> bool {
    fn uses(e: &LExpr, r: RegId) -> bool {
        let mut u = false;
        e.for_each_var(&mut |v| u |= v == r);
        u
    }
    /// `Some(true)`: used first; `Some(false)`: defined first; `None`: neither.
    fn cmd(c: &Command, r: RegId) -> Option<bool> {
        match c {
            Command::Load { reg, addr } => {
                if uses(addr, r) {
                    Some(true)
                } else {
                    (*reg == r).then_some(false)
                }
            }
            Command::Assign { reg, value } => {
                if uses(value, r) {
                    Some(true)
                } else {
                    (*reg == r).then_some(false)
                }
            }
            Command::Store { addr, value } => (uses(addr, r) || uses(value, r)).then_some(true),
            Command::Assume(e) => uses(e, r).then_some(true),
            Command::Atomic(cs) => cs.iter().find_map(|c| cmd(c, r)),
            _ => None,
        }
    }
    let out = t.outgoing();
    let mut seen = vec![false; t.states.len()];
    let mut stack = vec![q0];
    while let Some(q) = stack.pop() {
        if std::mem::replace(&mut seen[q.0 as usize], true) {
            continue;
        }
        for &i in &out[q.0 as usize] {
            match cmd(&t.instrs[i].cmd, r) {
                Some(true) => return true,
                Some(false) => {}
                None => stack.push(t.instrs[i].to),
            }
        }
    }
    false
}

fn choices(src: &SourceFile, d: &Decl, what: &str) -> Result<(i64, i64), Error> {
    match d.domain {
        Some((lo, hi)) if hi - lo < MAX_CHOICES => Ok((lo, hi)),
        Some(_) => Err(src.error(
            d.span,
            format!("the domain of `*` {what} has more than {MAX_CHOICES} values"),
        )),
        None => Err(src.error_help(
            d.span,
            format!("`*` {what} needs a finite domain `: [lo:hi]`"),
            "an initial value over the infinite domain Z cannot be enumerated",
        )),
    }
}

/// Builds the Program IR of a parsed Memorax file.
///
/// Errors: duplicate or unknown names and labels, undefined `goto`
/// targets, `forbidden` rows of the wrong length, constants or addresses
/// that do not fit `width`, `*` over an infinite domain where the value
/// can be read (located).
pub fn lower(src: &SourceFile, f: &File, width: Width) -> Result<Program, Error> {
    let mut prog = Program {
        source: Some(src.clone()),
        ..Program::default()
    };
    let (cx, procs, array_names) = layout(src, f, width)?;
    let top = cx.array_addr(array_names.len(), 0);
    let any_cells = memory(&mut prog, &cx, f, &procs, &array_names)?;
    // The flag the `init` thread raises once it has chosen the `*` cells.
    let done_addr = top;
    let mut label_maps = Vec::new();
    for (p, &pi) in procs.iter().enumerate() {
        let labels = lower_process(&mut prog, &cx, &f.processes[pi], p, &any_cells, done_addr)?;
        label_maps.push(labels);
    }
    if !any_cells.is_empty() {
        let t = init_thread(&mut prog, &any_cells, done_addr);
        prog.threads.push(t);
    }
    forbidden_goals(&mut prog, src, f, cx.n_procs, &label_maps)?;
    Ok(prog)
}

/// The names and the memory layout: global variables, process copies
/// (the declaration index of each), per-process arrays in order of first
/// declaration. Errors on duplicates and on a layout that does not fit
/// `width`.
fn layout<'a>(
    src: &'a SourceFile,
    f: &File,
    width: Width,
) -> Result<(Ctx<'a>, Vec<usize>, Vec<String>), Error> {
    let mut globals = HashMap::default();
    for (i, d) in f.data.iter().enumerate() {
        if globals.insert(d.name.clone(), i).is_some() {
            return Err(src.error(d.span, format!("duplicate variable `{}`", d.name)));
        }
    }
    // Process copies: (declaration, copy).
    let procs: Vec<usize> = f
        .processes
        .iter()
        .enumerate()
        .flat_map(|(i, p)| std::iter::repeat_n(i, p.copies as usize))
        .collect();
    let n_procs = procs.len() as i64;
    let mut arrays: HashMap<String, usize> = HashMap::default();
    let mut array_names: Vec<String> = Vec::new();
    for p in &f.processes {
        for d in &p.data {
            if globals.contains_key(&d.name) {
                return Err(src.error(d.span, format!("`{}` is already a global variable", d.name)));
            }
            if !arrays.contains_key(&d.name) {
                arrays.insert(d.name.clone(), array_names.len());
                array_names.push(d.name.clone());
            }
        }
    }
    let cx = Ctx {
        src,
        width,
        globals,
        n_globals: f.data.len() as i64,
        arrays,
        n_procs,
    };
    let top = cx.array_addr(array_names.len(), 0);
    if !width.fits(top) {
        return Err(src.error_help(
            Span::default(),
            format!(
                "the program's {top} memory cells do not fit {} bits",
                width.0
            ),
            width.raise_hint(),
        ));
    }
    Ok((cx, procs, array_names))
}

/// The shared variables of the program: globals, then one cell per array
/// and process copy, then (if some cell starts with `*`) the `init_done`
/// flag. Returns the `*` cells as (address, lowest, highest value).
fn memory(
    prog: &mut Program,
    cx: &Ctx,
    f: &File,
    procs: &[usize],
    array_names: &[String],
) -> Result<Vec<(i64, i64, i64)>, Error> {
    let (src, width) = (cx.src, cx.width);
    let top = cx.array_addr(array_names.len(), 0);
    // Memory cells: globals, then arrays.
    let mut cells: Vec<(String, Cell)> = Vec::new();
    for (i, d) in f.data.iter().enumerate() {
        cells.push((
            d.name.clone(),
            Cell {
                addr: i as i64,
                init: d.init,
                domain: d.domain,
                span: d.span,
            },
        ));
    }
    for (a, name) in array_names.iter().enumerate() {
        for (owner, &pi) in procs.iter().enumerate() {
            let d = f.processes[pi].data.iter().find(|d| &d.name == name);
            cells.push((
                format!("{name}[{owner}]"),
                Cell {
                    addr: cx.array_addr(a, owner as i64),
                    init: d.map_or(Init::Value(0), |d| d.init),
                    domain: d.and_then(|d| d.domain),
                    span: d.map_or(Span::default(), |d| d.span),
                },
            ));
        }
    }
    let mut any_cells = Vec::new();
    for (name, c) in &cells {
        let init = match c.init {
            Init::Value(v) => cx.constant(v, c.span)?,
            Init::Any => {
                let d = Decl {
                    name: name.clone(),
                    init: c.init,
                    domain: c.domain,
                    span: c.span,
                };
                let (lo, hi) = choices(src, &d, &format!("for `{name}`"))?;
                any_cells.push((c.addr, cx.constant(lo, c.span)?, cx.constant(hi, c.span)?));
                0
            }
        };
        let sym = prog.names.intern(name);
        prog.vars.push(SharedVar {
            name: sym,
            addr: c.addr,
            init,
            span: c.span,
        });
        if matches!(c.init, Init::Value(_)) {
            prog.init.insert(c.addr, init);
        }
    }
    let done_addr = top;
    if !any_cells.is_empty() {
        if !width.fits(done_addr) {
            return Err(src.error_help(
                Span::default(),
                "too many memory cells",
                width.raise_hint(),
            ));
        }
        let mut name = "init_done".to_string();
        while prog.names.get(&name).is_some() {
            name.push('_');
        }
        let sym = prog.names.intern(&name);
        prog.vars.push(SharedVar {
            name: sym,
            addr: done_addr,
            init: 0,
            span: Span::default(),
        });
    }
    Ok(any_cells)
}

/// Thread `P<p>` for process declaration `pd` (pushed onto `prog`):
/// registers, the statements, then a prefix that waits for the `init`
/// thread (if there are `*` cells) and chooses the `*` registers that can
/// be read before written. Returns its labels.
fn lower_process(
    prog: &mut Program,
    cx: &Ctx,
    pd: &Process,
    p: usize,
    any_cells: &[(i64, i64, i64)],
    done_addr: i64,
) -> Result<HashMap<String, StateId>, Error> {
    let src = cx.src;
    let tname = prog.names.intern(&format!("P{p}"));
    let mut used = crate::collections::HashSet::default();
    collect_labels(&pd.text, &mut used);
    let init_sym = match pd.text.first().and_then(|s| s.labels.first()) {
        Some((l, _)) => prog.names.intern(l),
        None => {
            let mut k = 0;
            while used.contains(&format!("q{k}")) {
                k += 1;
            }
            prog.names.intern(&format!("q{k}"))
        }
    };
    let mut t = Thread::new(tname, init_sym, pd.span);
    let mut seen_regs = crate::collections::HashSet::default();
    for d in &pd.regs {
        if !seen_regs.insert(d.name.clone()) {
            return Err(src.error(d.span, format!("duplicate register `${}`", d.name)));
        }
        let r = t.reg(prog.names.intern(&format!("${}", d.name)));
        if let Init::Value(v) = d.init {
            t.reg_init[r.0 as usize] = cx.constant(v, d.span)?;
        }
    }
    let mut b = ThreadBuilder {
        cx,
        prog,
        t,
        p: p as i64,
        labels: HashMap::default(),
        used_names: used,
        fresh: 0,
    };
    let first = StateId(0);
    if let Some((l, _)) = pd.text.first().and_then(|s| s.labels.first()) {
        b.labels.insert(l.clone(), (first, None));
    } else {
        let n = b.prog.name(b.t.states[0]).to_string();
        b.used_names.insert(n.clone());
        b.fresh = n[1..].parse::<usize>().unwrap_or(0) + 1;
    }
    let end = {
        let mut n = "end".to_string();
        while b.used_names.contains(&n) {
            n.push('_');
        }
        let s = b.prog.names.intern(&n);
        b.t.state(s)
    };
    b.seq(&pd.text, first, end)?;
    // Undefined goto targets.
    for (l, (_, def)) in &b.labels {
        if def.is_none() {
            let span = goto_span(&pd.text, l).unwrap_or(pd.span);
            return Err(src.error(span, format!("undefined label `{l}`")));
        }
    }
    // Prefix: `*` registers that can be read, and the start gate.
    let mut prefix: Vec<Vec<Command>> = Vec::new();
    if !any_cells.is_empty() {
        let go = b.t.reg(b.prog.names.intern("go"));
        prefix.push(vec![Command::Atomic(vec![
            Command::Load {
                reg: go,
                addr: Expr::Const(done_addr),
            },
            Command::Assume(Expr::bin(BinOp::Eq, Expr::Var(go), Expr::Const(1))),
        ])]);
    }
    for d in &pd.regs {
        if d.init != Init::Any {
            continue;
        }
        let r = b.reg(&d.name, d.span)?;
        if !read_before_written(&b.t, first, r) {
            continue;
        }
        let (lo, hi) = choices(src, d, &format!("for register `${}`", d.name))?;
        let mut alts = Vec::new();
        for v in lo..=hi {
            alts.push(Command::Assign {
                reg: r,
                value: Expr::Const(cx.constant(v, d.span)?),
            });
        }
        prefix.push(alts);
    }
    let mut next = first;
    for alts in prefix.into_iter().rev() {
        let s = b.fresh();
        for c in alts {
            b.add(s, next, c, pd.span);
        }
        next = s;
    }
    b.t.initial = next;
    let labels: HashMap<String, StateId> =
        b.labels.iter().map(|(k, (s, _))| (k.clone(), *s)).collect();
    let t = b.t;
    prog.threads.push(t);
    Ok(labels)
}

/// The `init` thread: stores one value of its domain into each `*` cell,
/// then a fence, then raises the flag at `done_addr`.
fn init_thread(prog: &mut Program, any_cells: &[(i64, i64, i64)], done_addr: i64) -> Thread {
    let name = prog.names.intern("init");
    let q = |prog: &mut Program, i: usize| prog.names.intern(&format!("i{i}"));
    let s0 = q(prog, 0);
    let mut t = Thread::new(name, s0, Span::default());
    let mut cur = StateId(0);
    for (k, (addr, lo, hi)) in any_cells.iter().enumerate() {
        let ns = q(prog, k + 1);
        let next = t.state(ns);
        for v in *lo..=*hi {
            t.instrs.push(Instr {
                from: cur,
                to: next,
                cmd: Command::Store {
                    addr: Expr::Const(*addr),
                    value: Expr::Const(v),
                },
                span: Span::default(),
            });
        }
        cur = next;
    }
    let f1 = q(prog, any_cells.len() + 1);
    let f2 = q(prog, any_cells.len() + 2);
    let (a, b2) = (t.state(f1), t.state(f2));
    for (from, to, cmd) in [
        (cur, a, Command::Fence(Fence::MFence)),
        (
            a,
            b2,
            Command::Store {
                addr: Expr::Const(done_addr),
                value: Expr::Const(1),
            },
        ),
    ] {
        t.instrs.push(Instr {
            from,
            to,
            cmd,
            span: Span::default(),
        });
    }
    t
}

/// One goal per `forbidden` row: the named processes at the named labels.
fn forbidden_goals(
    prog: &mut Program,
    src: &SourceFile,
    f: &File,
    n_procs: i64,
    label_maps: &[HashMap<String, StateId>],
) -> Result<(), Error> {
    for (row, span) in f.forbidden.iter().zip(&f.forbidden_spans) {
        if row.len() as i64 != n_procs {
            return Err(src.error(
                *span,
                format!(
                    "this `forbidden` row names {} control points, but there are {} processes",
                    row.len(),
                    n_procs
                ),
            ));
        }
        let mut at = Vec::new();
        let mut words = Vec::new();
        for (p, e) in row.iter().enumerate() {
            match e {
                None => words.push("*".to_string()),
                Some((l, s)) => {
                    let Some(q) = label_maps[p].get(l) else {
                        return Err(src.error(*s, format!("process P{p} has no label `{l}`")));
                    };
                    at.push((ThreadId(p as u32), *q));
                    words.push(l.clone());
                }
            }
        }
        prog.goals.push(Goal {
            name: Some(format!("forbidden {}", words.join(" "))),
            kind: GoalKind::Goal,
            at: GoalAt::States(at),
            cond: None,
            span: *span,
        });
    }
    Ok(())
}

fn goto_span(b: &[LStmt], l: &str) -> Option<Span> {
    for st in b {
        let found = match &st.stmt {
            Stmt::Goto(x, s) if x == l => Some(*s),
            Stmt::Locked(a) | Stmt::Either(a) => a.iter().find_map(|x| goto_span(x, l)),
            Stmt::Block(x) => goto_span(x, l),
            Stmt::If(_, a, b) => goto_span(std::slice::from_ref(a), l).or_else(|| {
                b.as_ref()
                    .and_then(|b| goto_span(std::slice::from_ref(b), l))
            }),
            Stmt::While(_, a) => goto_span(std::slice::from_ref(a), l),
            _ => None,
        };
        if found.is_some() {
            return found;
        }
    }
    None
}
