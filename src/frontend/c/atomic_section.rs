//! Atomic sections (`__VERIFIER_atomic_*` functions): the section's body,
//! lowered apart into an acyclic automaton (loops unwound, calls inlined
//! as anywhere else), becomes one straight-line `Atomic` step without
//! enumerating its paths — if-conversion: every state of the automaton
//! gets an "active" register (1 when the step's path goes through it),
//! every transition's commands run predicated on the transition being
//! taken (a register assignment keeps the old value when not taken, a
//! load or store not taken accesses a cell no program object uses, an
//! `assume` not taken holds), and the step ends with `assume(done ||
//! fail)`. A state whose transitions are a condition and its negation
//! takes the one whose condition holds; any other choice (a
//! nondeterministic value, a compare-and-swap's alternatives) reads a
//! selector register that the thread chooses before the step — a
//! thread-local choice, which commutes with every other thread's steps,
//! so choosing it first gives the same executions.

use super::builder::{negate, Builder};
use crate::program::{BinOp, Command, Expr, LExpr, RegId, UnOp};
use std::collections::HashMap;

/// The straight-line form of an atomic section.
pub struct Straight {
    /// The choices the thread makes before the step: each register takes
    /// one value of `0..n`.
    pub selectors: Vec<(RegId, usize)>,
    /// The step's commands.
    pub body: Vec<Command>,
    /// 1 after the step when its path reached the section's end.
    pub done: LExpr,
    /// 1 after the step when its path reached the section's error state.
    pub fail: LExpr,
}

/// `p ? a : b` for `p` ∈ {0, 1}, with bitwise operations only
/// (`(-p & a) | ((p - 1) & b)`).
fn ite(p: &LExpr, a: LExpr, b: LExpr) -> LExpr {
    if a == b || *p == Expr::Const(1) {
        return a;
    }
    Expr::bin(
        BinOp::BitOr,
        Expr::bin(BinOp::BitAnd, Expr::un(UnOp::Neg, p.clone()), a),
        Expr::bin(
            BinOp::BitAnd,
            Expr::bin(BinOp::Sub, p.clone(), Expr::Const(1)),
            b,
        ),
    )
}

/// `a && b` on 0/1 values, with constants folded.
fn and(a: &LExpr, b: LExpr) -> LExpr {
    match a {
        Expr::Const(0) => Expr::Const(0),
        Expr::Const(_) => b,
        _ => Expr::bin(BinOp::And, a.clone(), b),
    }
}

/// The if-converted form of the acyclic automaton `sub` from its initial
/// state to `done` (the section's end) and `fail` (its error state);
/// `unused` is a cell no program object uses (the target of accesses not
/// taken).
///
/// Errors: a command that cannot be part of an atomic step (a mutex, an
/// `__VERIFIER_atomic_begin`, a PGAS or Power reservation command), as
/// the message.
pub fn straighten(
    sub: &mut Builder,
    done: Option<u32>,
    fail: Option<u32>,
    unused: i64,
) -> Result<Straight, String> {
    let (start, edges) = sub.edges();
    let done = done.map(|s| sub.resolve(s));
    let fail = fail.map(|s| sub.resolve(s));
    // States that reach `done` or `fail` (others are dead ends: `abort`).
    let mut useful: std::collections::HashSet<u32> = done.iter().chain(&fail).copied().collect();
    loop {
        let before = useful.len();
        for (f, t, _) in &edges {
            if useful.contains(t) {
                useful.insert(*f);
            }
        }
        if useful.len() == before {
            break;
        }
    }
    let mut out: HashMap<u32, Vec<usize>> = HashMap::new();
    let mut inc: HashMap<u32, Vec<usize>> = HashMap::new();
    for (i, (f, t, _)) in edges.iter().enumerate() {
        if useful.contains(f) && useful.contains(t) {
            out.entry(*f).or_default().push(i);
            inc.entry(*t).or_default().push(i);
        }
    }
    // Topological order from the start (the automaton is acyclic).
    let mut order = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut stack = vec![(start, false)];
    while let Some((s, post)) = stack.pop() {
        if post {
            order.push(s);
            continue;
        }
        if !seen.insert(s) {
            continue;
        }
        stack.push((s, true));
        for &e in out.get(&s).into_iter().flatten() {
            if !seen.contains(&edges[e].1) {
                stack.push((edges[e].1, false));
            }
        }
    }
    order.reverse();
    let mut st = Straight {
        selectors: Vec::new(),
        body: Vec::new(),
        done: Expr::Const(0),
        fail: Expr::Const(0),
    };
    let mut active: HashMap<u32, LExpr> = HashMap::new();
    let mut take: Vec<Option<LExpr>> = vec![None; edges.len()];
    let mut loads = 0usize;
    for (k, &s) in order.iter().enumerate() {
        let a = if s == start {
            Expr::Const(1)
        } else {
            let ins: Vec<LExpr> = inc
                .get(&s)
                .into_iter()
                .flatten()
                .filter_map(|&e| take[e].clone())
                .collect();
            match ins.len() {
                0 => Expr::Const(0),
                1 => ins[0].clone(),
                _ => {
                    let r = sub.reg(&format!("atomic.active.{k}"));
                    let v = ins
                        .into_iter()
                        .reduce(|x, y| Expr::bin(BinOp::Or, x, y))
                        .expect("two or more");
                    st.body.push(Command::Assign { reg: r, value: v });
                    Expr::Var(r)
                }
            }
        };
        active.insert(s, a.clone());
        let outs: Vec<usize> = out.get(&s).cloned().unwrap_or_default();
        // A condition and its negation: the transition whose condition holds.
        let cond = match outs.as_slice() {
            [x, y] => match (&edges[*x].2, &edges[*y].2) {
                (Command::Assume(c), Command::Assume(d)) if negate(c.clone()) == *d => {
                    Some(c.clone())
                }
                _ => None,
            },
            _ => None,
        };
        let sel = (outs.len() > 1 && cond.is_none()).then(|| {
            let r = sub.reg(&format!("atomic.choice.{k}"));
            st.selectors.push((r, outs.len()));
            r
        });
        for (j, &e) in outs.iter().enumerate() {
            let t = match (&cond, sel) {
                (Some(c), _) => and(&a, if j == 0 { c.clone() } else { negate(c.clone()) }),
                (None, Some(r)) => and(
                    &a,
                    Expr::bin(BinOp::Eq, Expr::Var(r), Expr::Const(j as i64)),
                ),
                (None, None) => a.clone(),
            };
            let t = match t {
                Expr::Const(_) | Expr::Var(_) => t,
                t => {
                    let r = sub.reg(&format!("atomic.take.{e}"));
                    st.body.push(Command::Assign { reg: r, value: t });
                    Expr::Var(r)
                }
            };
            if cond.is_none() {
                predicated(&t, &edges[e].2, unused, sub, &mut loads, &mut st.body)?;
            }
            take[e] = Some(t);
        }
    }
    st.done = done
        .and_then(|d| active.get(&d).cloned())
        .unwrap_or(Expr::Const(0));
    st.fail = fail
        .and_then(|d| active.get(&d).cloned())
        .unwrap_or(Expr::Const(0));
    st.body.push(Command::Assume(Expr::bin(
        BinOp::Or,
        st.done.clone(),
        st.fail.clone(),
    )));
    Ok(st)
}

/// Appends command `c` run only when `t` (0/1) is 1 (module doc);
/// `nop`s and fences are left out (an atomic step is a full fence).
///
/// Errors: as [`straighten`].
fn predicated(
    t: &LExpr,
    c: &Command,
    unused: i64,
    sub: &mut Builder,
    loads: &mut usize,
    out: &mut Vec<Command>,
) -> Result<(), String> {
    let always = *t == Expr::Const(1);
    match c {
        Command::Nop | Command::Fence(_) => {}
        Command::Atomic(cs) => {
            for c in cs {
                predicated(t, c, unused, sub, loads, out)?;
            }
        }
        _ if always => match c {
            Command::Load { .. }
            | Command::Store { .. }
            | Command::Assign { .. }
            | Command::Assume(_) => out.push(c.clone()),
            _ => return Err(not_atomic(c)),
        },
        Command::Load { reg, addr } => {
            let tmp = sub.reg(&format!("atomic.load.{loads}"));
            *loads += 1;
            out.push(Command::Load {
                reg: tmp,
                addr: ite(t, addr.clone(), Expr::Const(unused)),
            });
            out.push(Command::Assign {
                reg: *reg,
                value: ite(t, Expr::Var(tmp), Expr::Var(*reg)),
            });
        }
        Command::Store { addr, value } => out.push(Command::Store {
            addr: ite(t, addr.clone(), Expr::Const(unused)),
            value: value.clone(),
        }),
        Command::Assign { reg, value } => out.push(Command::Assign {
            reg: *reg,
            value: ite(t, value.clone(), Expr::Var(*reg)),
        }),
        Command::Assume(e) => out.push(Command::Assume(Expr::bin(
            BinOp::Or,
            Expr::un(UnOp::Not, t.clone()),
            e.clone(),
        ))),
        _ => return Err(not_atomic(c)),
    }
    Ok(())
}

/// The message for a command that cannot be part of an atomic step.
fn not_atomic(c: &Command) -> String {
    match c {
        Command::Lock | Command::Unlock => {
            "a mutex or atomic section inside an atomic section".into()
        }
        _ => "a command that cannot be part of an atomic step".into(),
    }
}
