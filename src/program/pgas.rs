//! SPMD lowering of PGAS programs (thesis 003 §8.1.2): a program `P` run
//! on N nodes becomes an ordinary multi-thread program that the bounded
//! engine unrolls and encodes like any other.
//!
//! * Every thread `t` of `P` is instantiated once per rank r ∈ 1..N as
//!   thread `t@r`, with `rank` := r and `nodes` := N substituted.
//! * Each node has its own memory. The W-bit address space is split into
//!   2^b partitions, b = ⌈log2 N⌉, of S = 2^(W−b) cells: cell `a` of rank r
//!   is the global address `(a mod S) + (r−1)·S` (computed as
//!   `(a & (S−1)) + (r−1)·S`, so a computed address wraps around *inside*
//!   its node's memory). Shared variables and initial cells are copied to
//!   every rank (variable `x` of rank r is named `x@r`); they must lie in
//!   0..S (located error otherwise).
//! * Loads and stores access the executing rank's memory. A remote
//!   `read(l, k, m, q)` / `write(l, k, m, q)` keeps its form, with `l`
//!   rewritten to the local global address and `m` to rank k's global
//!   address (k may be computed at run time). The unrolling
//!   (`bounded/varisat/unroll/`) turns it into issue, popa and popb
//!   events; a remote rank outside 1..N blocks the operation (the process
//!   stops there). A *constant* remote rank outside 1..N is an input
//!   error at the command.
//! * Goals and assertions are checked on every rank: goal g becomes N
//!   goals, the r-th one reading thread `t@r`'s registers and rank r's
//!   memory (`rank` := r).
//! * Queues are per (rank, thread instance); every thread instance takes
//!   part in every barrier (rule (bar) of Table 8.1). The k-th barrier
//!   executed by each instance synchronises, whichever `barrier` command it
//!   is, so a barrier that some ranks skip matches their next one; if some
//!   rank never reaches it, the ranks waiting there block (docs/language.md).

use crate::diag::Error;
use crate::program::{
    BinOp, Command, Expr, GExpr, GVar, Goal, GoalAt, LExpr, PgasCmd, Program, SharedVar, ThreadId,
    Width,
};

/// True when `p` uses PGAS commands, `rank`/`nodes`, or declares `nodes N`.
pub fn is_spmd(p: &Program) -> bool {
    fn cmd(c: &Command) -> bool {
        match c {
            Command::Pgas(_) => true,
            Command::Load { addr, .. } | Command::LoadReserve { addr, .. } => addr.mentions_spmd(),
            Command::Store { addr, value } | Command::StoreCond { addr, value, .. } => {
                addr.mentions_spmd() || value.mentions_spmd()
            }
            Command::Assign { value, .. } => value.mentions_spmd(),
            Command::Assume(e) => e.mentions_spmd(),
            Command::Atomic(cs) => cs.iter().any(cmd),
            _ => false,
        }
    }
    p.nodes.is_some()
        || p.threads
            .iter()
            .any(|t| t.instrs.iter().any(|i| cmd(&i.cmd)))
        || p.goals
            .iter()
            .any(|g| g.cond.as_ref().is_some_and(|c| c.mentions_spmd()))
}

/// The address layout of a lowered program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// N.
    pub nodes: u32,
    /// Cells per node (S = 2^(W−b)).
    pub stride: i64,
    /// W.
    pub width: Width,
}

impl Layout {
    /// The layout for N nodes at width W.
    ///
    /// Errors: N = 0, or W too small to give each node at least 2 cells.
    pub fn new(nodes: u32, width: Width) -> Result<Layout, Error> {
        if nodes == 0 {
            return Err(Error::Unsupported(
                "the number of nodes must be at least 1".into(),
            ));
        }
        if width.0 > 32 {
            return Err(Error::Unsupported(format!(
                "PGAS programs need --width at most 32 (got {})",
                width.0
            )));
        }
        let b = 32 - (nodes - 1).leading_zeros(); // ⌈log2 N⌉
        if b + 1 > width.0 {
            return Err(Error::Unsupported(format!(
                "{nodes} nodes need a width of at least {} bits (--width {})",
                b + 1,
                width.0
            )));
        }
        Ok(Layout {
            nodes,
            stride: 1i64 << (width.0 - b),
            width,
        })
    }

    /// The global address of cell `a` (0 ≤ a < S) of rank `r`, wrapped to W bits.
    pub fn global(&self, r: u32, a: i64) -> i64 {
        self.width
            .wrap((a & (self.stride - 1)) + (r as i64 - 1) * self.stride)
    }

    /// The (rank, cell) of a global address (inverse of [`Layout::global`]).
    pub fn split(&self, g: i64) -> (u32, i64) {
        let u = self.width.unsigned(g) as i64;
        ((u / self.stride) as u32 + 1, u % self.stride)
    }

    fn global_expr<V: Copy>(&self, rank: Expr<V>, a: Expr<V>) -> Expr<V> {
        let cell = Expr::bin(BinOp::BitAnd, a, Expr::Const(self.stride - 1));
        let base = match rank.as_const(self.width) {
            Some(r) => Expr::Const(self.width.wrap((r - 1) * self.stride)),
            None => Expr::bin(
                BinOp::Mul,
                Expr::bin(BinOp::Sub, rank, Expr::Const(1)),
                Expr::Const(self.width.wrap(self.stride)),
            ),
        };
        Expr::bin(BinOp::Add, cell, base)
    }
}

/// Replaces `rank`/`nodes` by constants and folds constant subexpressions.
fn subst<V: Copy>(e: &Expr<V>, r: u32, n: u32, w: Width) -> Expr<V> {
    let out = match e {
        Expr::Rank => Expr::Const(r as i64),
        Expr::Nodes => Expr::Const(n as i64),
        Expr::Const(c) => Expr::Const(*c),
        Expr::Var(v) => Expr::Var(*v),
        Expr::Un(op, a) => Expr::un(*op, subst(a, r, n, w)),
        Expr::Bin(op, a, b) => Expr::bin(*op, subst(a, r, n, w), subst(b, r, n, w)),
    };
    match out.as_const(w) {
        Some(c) if !matches!(out, Expr::Const(_)) => Expr::Const(c),
        _ => out,
    }
}

/// Lowers the SPMD program `p` for `nodes` ranks at width `w` (module
/// docs). The result has `nodes = Some(N)`; its PGAS commands carry global
/// addresses and are meant for the bounded engine only.
///
/// Errors (located in `p`'s source when known): a variable or initial cell
/// outside 0..S; a constant remote rank outside 1..N; too many nodes for
/// the width.
pub fn lower(p: &Program, nodes: u32, w: Width) -> Result<Program, Error> {
    let lay = Layout::new(nodes, w)?;
    let err = |span, msg: String| match &p.source {
        Some(src) => src.error(span, msg),
        None => Error::Unsupported(msg),
    };
    let mut out = Program {
        names: p.names.clone(),
        nodes: Some(nodes),
        source: p.source.clone(),
        ..Program::default()
    };
    for v in &p.vars {
        if v.addr < 0 || v.addr >= lay.stride {
            return Err(err(
                v.span,
                format!(
                    "variable `{}` is at address {}, outside the {} cells of a node's memory \
                     ({} nodes at width {})",
                    p.name(v.name),
                    v.addr,
                    lay.stride,
                    nodes,
                    w.0
                ),
            ));
        }
    }
    for &a in p.init.keys() {
        if a < 0 || a >= lay.stride {
            return Err(Error::Unsupported(format!(
                "initialised cell {a} lies outside the {} cells of a node's memory",
                lay.stride
            )));
        }
    }
    for r in 1..=nodes {
        for v in &p.vars {
            let name = format!("{}@{r}", p.name(v.name));
            let sym = out.names.intern(&name);
            out.vars.push(SharedVar {
                name: sym,
                addr: lay.global(r, v.addr),
                init: v.init,
                span: v.span,
            });
        }
        for (&a, &val) in &p.init {
            out.init.insert(lay.global(r, a), val);
        }
    }
    let nt = p.threads.len() as u32;
    for r in 1..=nodes {
        for t in &p.threads {
            let mut t2 = t.clone();
            t2.name = out.names.intern(&format!("{}@{r}", p.name(t.name)));
            for ins in &mut t2.instrs {
                ins.cmd = lower_cmd(&ins.cmd, r, &lay).map_err(|m| err(ins.span, m))?;
            }
            out.threads.push(t2);
        }
    }
    for g in &p.goals {
        for r in 1..=nodes {
            let tmap = |t: ThreadId| ThreadId((r - 1) * nt + t.0);
            let at = match &g.at {
                GoalAt::Final => GoalAt::Final,
                GoalAt::States(v) => {
                    GoalAt::States(v.iter().map(|(t, q)| (tmap(*t), *q)).collect())
                }
            };
            let cond = g.cond.as_ref().map(|c| {
                let c: GExpr = subst(c, r, nodes, w);
                c.map_vars(&mut |v| match v {
                    GVar::Reg(t, reg) => Expr::Var(GVar::Reg(tmap(t), reg)),
                    GVar::Mem(a) => Expr::Var(GVar::Mem(lay.global(r, a))),
                })
            });
            out.goals.push(Goal {
                name: g.name.as_ref().map(|n| format!("{n}@{r}")),
                kind: g.kind,
                at,
                cond,
                span: g.span,
            });
        }
    }
    Ok(out)
}

fn lower_cmd(c: &Command, r: u32, lay: &Layout) -> Result<Command, String> {
    let (n, w) = (lay.nodes, lay.width);
    let s = |e: &LExpr| subst(e, r, n, w);
    let loc = |e: &LExpr| lay.global_expr(Expr::Const(r as i64), subst(e, r, n, w));
    Ok(match c {
        Command::Load { reg, addr } => Command::Load {
            reg: *reg,
            addr: loc(addr),
        },
        Command::LoadReserve { reg, addr } => Command::LoadReserve {
            reg: *reg,
            addr: loc(addr),
        },
        Command::Store { addr, value } => Command::Store {
            addr: loc(addr),
            value: s(value),
        },
        Command::StoreCond { addr, value, flag } => Command::StoreCond {
            addr: loc(addr),
            value: s(value),
            flag: *flag,
        },
        Command::Assign { reg, value } => Command::Assign {
            reg: *reg,
            value: s(value),
        },
        Command::Assume(e) => Command::Assume(s(e)),
        Command::Atomic(cs) => Command::Atomic(
            cs.iter()
                .map(|c| lower_cmd(c, r, lay))
                .collect::<Result<_, _>>()?,
        ),
        Command::Pgas(PgasCmd::Barrier) => Command::Pgas(PgasCmd::Barrier),
        Command::Pgas(pc @ (PgasCmd::Read { .. } | PgasCmd::Write { .. })) => {
            let Some([local, rank, remote, queue]) = pc.operands() else {
                return Ok(c.clone());
            };
            let rk = s(rank);
            if let Some(k) = rk.as_const(w) {
                if k < 1 || k > n as i64 {
                    return Err(format!(
                        "remote rank {k} is outside 1..{n} (the program runs on {n} nodes)"
                    ));
                }
            }
            let (local, remote, queue) =
                (loc(local), lay.global_expr(rk.clone(), s(remote)), s(queue));
            Command::Pgas(match pc {
                PgasCmd::Read { .. } => PgasCmd::Read {
                    local,
                    rank: rk,
                    remote,
                    queue,
                },
                _ => PgasCmd::Write {
                    local,
                    rank: rk,
                    remote,
                    queue,
                },
            })
        }
        other => other.clone(),
    })
}

/// Number of nodes to run `p` on: `--nodes` overrides the file's `nodes N;`.
///
/// Errors: an SPMD program without either.
pub fn nodes_for(p: &Program, cli: Option<u32>) -> Result<Option<u32>, Error> {
    if !is_spmd(p) && cli.is_none() {
        return Ok(None);
    }
    match cli.or(p.nodes) {
        Some(n) => Ok(Some(n)),
        None => Err(Error::Unsupported(
            "the program uses PGAS commands: give the number of nodes (`--nodes N` or `nodes N;` in the file)".into(),
        )),
    }
}

/// Lowers `p` when it is an SPMD program (or `--nodes` is given);
/// otherwise returns it unchanged.
///
/// Errors: see [`lower`] and [`nodes_for`].
pub fn prepare(p: Program, cli_nodes: Option<u32>, w: Width) -> Result<Program, Error> {
    match nodes_for(&p, cli_nodes)? {
        Some(n) => lower(&p, n, w),
        None => Ok(p),
    }
}

/// The rank of a thread of a lowered program (its name is `t@r`).
pub fn rank_of_thread(p: &Program, t: ThreadId) -> Option<u32> {
    let name = p.thread_name(t);
    name.rsplit_once('@').and_then(|(_, r)| r.parse().ok())
}
