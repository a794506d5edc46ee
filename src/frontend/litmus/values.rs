//! The values a register may hold at each instruction of a lowered
//! litmus test, as finite sets (a value-set analysis over every thread
//! and the byte-addressed memory of herd's mixed-size variant), and from
//! them the addresses an access may use when its address is computed
//! from values read.
//!
//! herd evaluates an address per candidate execution: `LDR W2,[X1,W4,SXTW]`
//! with `W4 = (W0 & 2) + 4` accesses the byte `x + W4` of the value read
//! in that execution. The set of values a load can read in a test is
//! finite — the initial bytes and the bytes its stores write — so the set
//! of locations such an access may address is too. The analysis computes
//! a superset of it: per memory byte, the byte values some store (or the
//! initial state) may put there; per register and control state, the
//! values some path may give it (loads combine the bytes they read
//! little-endian, assignments are evaluated on every combination of
//! their operands' values, a store-conditional's flag is 0 or 1); the
//! threads and memory are iterated to a fixpoint. A set that would grow
//! beyond [`SET_CAP`] values is "any value" (then no address is
//! derived). Guards and branch conditions are ignored (a superset).
//!
//! Used by [`super::lower`] to find every location such an access may
//! address (each then lowered as herd's mixed-size semantics says).

use super::ctx::Vars;
use super::flow::{access_states, forward};
use crate::diag::Span;
use crate::program::{Command, LExpr, Program, RegId, Thread, Width};
use std::collections::{BTreeMap, BTreeSet};

/// The most values a set holds before it becomes "any value".
pub(super) const SET_CAP: usize = 256;

/// The most operand combinations an expression is evaluated on.
const PRODUCT_CAP: usize = 4096;

/// A finite set of values, or `None`: any value.
pub(super) type Set = Option<BTreeSet<i64>>;

/// Per register, its value set (`None` at a state: no path reaches it).
type Regs = Vec<Set>;

/// Per memory byte (absolute address), the byte values it may hold.
type Mem = BTreeMap<i64, Option<BTreeSet<u8>>>;

/// The result of the analysis: per thread and control state, the
/// registers' value sets before its outgoing instructions.
pub(super) struct ValueSets {
    at: Vec<Vec<Option<Regs>>>,
    mem: Mem,
    width: Width,
}

/// Joins `b` into `a`; true when `a` changed.
fn join(a: &mut Set, b: &Set) -> bool {
    match (a.as_mut(), b) {
        (None, _) => false,
        (Some(_), None) => {
            *a = None;
            true
        }
        (Some(x), Some(y)) => {
            let n = x.len();
            x.extend(y.iter().copied());
            if x.len() > SET_CAP {
                *a = None;
                return true;
            }
            x.len() != n
        }
    }
}

/// The value set of `e` given the registers' sets: `e` evaluated (at
/// `width`) on every combination of its registers' values.
fn eval(e: &LExpr, regs: &Regs, width: Width) -> Set {
    let mut vars: Vec<RegId> = Vec::new();
    e.for_each_var(&mut |r| {
        if !vars.contains(&r) {
            vars.push(r);
        }
    });
    let mut sets: Vec<Vec<i64>> = Vec::new();
    let mut product = 1usize;
    for r in &vars {
        let s = regs.get(r.0 as usize)?.as_ref()?;
        product = product.saturating_mul(s.len().max(1));
        if product > PRODUCT_CAP {
            return None;
        }
        sets.push(s.iter().copied().collect());
    }
    let mut out = BTreeSet::new();
    let mut idx = vec![0usize; vars.len()];
    if sets.iter().any(|s| s.is_empty()) {
        return Some(out);
    }
    loop {
        let v = e.eval(width, Default::default(), &mut |r| {
            let i = vars.iter().position(|x| *x == r).unwrap_or(0);
            sets[i][idx[i]]
        });
        out.insert(v);
        if out.len() > SET_CAP {
            return None;
        }
        // Next combination.
        let mut k = 0;
        loop {
            if k == idx.len() {
                return Some(out);
            }
            idx[k] += 1;
            if idx[k] < sets[k].len() {
                break;
            }
            idx[k] = 0;
            k += 1;
        }
    }
}

/// The values an `n`-byte load at one of `addrs` may read: its bytes'
/// values combined little-endian (any value when a byte is outside every
/// location or may hold any value).
fn read(mem: &Mem, addrs: &Set, n: i64, width: Width) -> Set {
    let mut out = BTreeSet::new();
    for &a in addrs.as_ref()? {
        let mut vals: BTreeSet<i64> = [0].into();
        for k in 0..n {
            let bytes = mem.get(&(a + k))?.as_ref()?;
            let mut next = BTreeSet::new();
            for v in &vals {
                for b in bytes {
                    next.insert(v | (i64::from(*b) << (8 * k)));
                }
            }
            if next.len() > SET_CAP {
                return None;
            }
            vals = next;
        }
        out.extend(vals.into_iter().map(|v| width.wrap(v)));
        if out.len() > SET_CAP {
            return None;
        }
    }
    Some(out)
}

/// Adds what an `n`-byte store of `values` at one of `addrs` may write
/// to `mem` (`n` unknown: 8 bytes of any value); true when it changed.
fn write(mem: &mut Mem, addrs: &Set, values: &Set, n: Option<i64>) -> bool {
    let mut changed = false;
    let Some(addrs) = addrs else {
        // Anywhere: every byte may hold any value.
        for b in mem.values_mut() {
            changed |= b.is_some();
            *b = None;
        }
        return changed;
    };
    for &a in addrs {
        for k in 0..n.unwrap_or(8) {
            let Some(cell) = mem.get_mut(&(a + k)) else {
                continue;
            };
            let Some(bytes) = cell.as_mut() else {
                continue;
            };
            match (values, n) {
                (Some(vs), Some(_)) => {
                    let before = bytes.len();
                    bytes.extend(vs.iter().map(|v| ((v >> (8 * k)) & 255) as u8));
                    changed |= bytes.len() != before;
                }
                _ => {
                    *cell = None;
                    changed = true;
                }
            }
        }
    }
    changed
}

impl ValueSets {
    /// Runs the analysis over every thread of `p` to a fixpoint. `mem`
    /// holds every byte of every location with its initial value;
    /// `bytes(t, span)` is the size in bytes of the access of thread `t`
    /// written at `span` (its instruction's span), `None` when unknown.
    pub(super) fn new(
        p: &Program,
        mem: BTreeMap<i64, u8>,
        width: Width,
        bytes: &dyn Fn(usize, Span) -> Option<i64>,
    ) -> ValueSets {
        let mut mem: Mem = mem
            .into_iter()
            .map(|(a, b)| (a, Some([b].into())))
            .collect();
        let mut at: Vec<Vec<Option<Regs>>> = Vec::new();
        // Memory only grows (to a cap), so this terminates; the bound is
        // a safeguard.
        for _round in 0..64 {
            let mut changed = false;
            at = p
                .threads
                .iter()
                .enumerate()
                .map(|(ti, t)| thread(t, ti, &mut mem, &mut changed, width, bytes))
                .collect();
            if !changed {
                return ValueSets { at, mem, width };
            }
        }
        // No fixpoint within the bound: nothing is known.
        for states in &mut at {
            for regs in states.iter_mut().flatten() {
                regs.iter_mut().for_each(|r| *r = None);
            }
        }
        mem.values_mut().for_each(|b| *b = None);
        ValueSets { at, mem, width }
    }

    /// True when some path of thread `ti` (number of `t`) reaches an
    /// instruction written at `span` that accesses memory (a thread's
    /// control graph may hold code it never runs: the code of other
    /// threads, in a test with code addresses).
    pub(super) fn reaches(&self, t: &Thread, ti: usize, span: Span) -> bool {
        access_states(t, span)
            .any(|q| matches!(self.at.get(ti).and_then(|s| s.get(q)), Some(Some(_))))
    }

    /// The values the expression `e` (an access's address or stored
    /// value) of thread `ti`'s access written at `span` may take: its
    /// value sets before every reachable instruction written there that
    /// accesses memory, joined. `None`: any value, or no such
    /// instruction.
    pub(super) fn at_access(&self, t: &Thread, ti: usize, e: &LExpr, span: Span) -> Set {
        let mut out: Set = Some(BTreeSet::new());
        let mut found = false;
        for q in access_states(t, span) {
            let Some(Some(regs)) = self.at.get(ti).and_then(|s| s.get(q)) else {
                continue;
            };
            found = true;
            join(&mut out, &eval(e, regs, self.width));
        }
        if found {
            out
        } else {
            None
        }
    }

    /// The values an `n`-byte load at one of `addrs` may read once every
    /// store has been accounted for (the fixpoint's memory; `None`: any
    /// value).
    pub(super) fn loaded(&self, addrs: &Set, n: i64) -> Set {
        read(&self.mem, addrs, n, self.width)
    }
}

/// Every byte of every location with its initial value (the init block's
/// value of a scalar or array element at its address), the memory the
/// value-set analysis ([`ValueSets`]) starts from.
pub(super) fn initial_bytes(
    p: &Program,
    vars: &Vars,
    fixed: &BTreeMap<String, i64>,
) -> BTreeMap<i64, u8> {
    let mut mem = BTreeMap::new();
    for (name, &a) in fixed {
        let size = vars.size(name);
        let elem = match vars.arrays.get(name) {
            Some(&(_, b)) => i64::from(b).max(1),
            None => size,
        };
        let mut e = a;
        while e < a + size {
            let v = p.init.get(&e).copied().unwrap_or(0);
            for k in 0..elem.min(a + size - e) {
                mem.insert(e + k, ((v >> (8 * k).min(63)) & 255) as u8);
            }
            e += elem;
        }
    }
    mem
}

/// The value sets at each control state of thread `t` (number `ti`)
/// given the memory `mem`, to which its stores are added (`changed` set
/// when the memory grew).
fn thread(
    t: &Thread,
    ti: usize,
    mem: &mut Mem,
    changed: &mut bool,
    width: Width,
    bytes: &dyn Fn(usize, Span) -> Option<i64>,
) -> Vec<Option<Regs>> {
    let init: Regs = (0..t.regs.len())
        .map(|r| Some([t.reg_init.get(r).copied().unwrap_or(0)].into()))
        .collect();
    forward(
        t,
        init,
        |ins, regs| *changed |= transfer(&ins.cmd, regs, mem, bytes(ti, ins.span), width),
        |old, new| {
            let mut grew = false;
            for (a, b) in old.iter_mut().zip(&new) {
                grew |= join(a, b);
            }
            grew
        },
    )
}

/// Applies `c` (an access of `n` bytes) to the registers and the memory;
/// true when the memory grew.
fn transfer(c: &Command, regs: &mut Regs, mem: &mut Mem, n: Option<i64>, width: Width) -> bool {
    let set = |regs: &mut Regs, r: RegId, v: Set| {
        if let Some(x) = regs.get_mut(r.0 as usize) {
            *x = v;
        }
    };
    match c {
        Command::Assign { reg, value } => {
            let v = eval(value, regs, width);
            set(regs, *reg, v);
            false
        }
        Command::Select {
            reg, then, else_, ..
        } => {
            let mut v = eval(then, regs, width);
            join(&mut v, &eval(else_, regs, width));
            set(regs, *reg, v);
            false
        }
        Command::Load { reg, addr } | Command::LoadReserve { reg, addr } => {
            let v = match n {
                Some(n) => read(mem, &eval(addr, regs, width), n, width),
                None => None,
            };
            set(regs, *reg, v);
            false
        }
        Command::Store { addr, value } => {
            let (a, v) = (eval(addr, regs, width), eval(value, regs, width));
            write(mem, &a, &v, n)
        }
        Command::StoreCond { addr, value, flag } => {
            let (a, v) = (eval(addr, regs, width), eval(value, regs, width));
            set(regs, *flag, Some([0, 1].into()));
            write(mem, &a, &v, n)
        }
        Command::Atomic(cs) => {
            let mut g = false;
            for c in cs {
                g |= transfer(c, regs, mem, n, width);
            }
            g
        }
        Command::Ann(_, c) | Command::Tagged(_, c) => transfer(c, regs, mem, n, width),
        Command::Pgas(_) => {
            // Not in litmus tests; any register may change.
            regs.iter_mut().for_each(|r| *r = None);
            false
        }
        Command::Assume(_)
        | Command::Guard(_)
        | Command::Fence(_)
        | Command::Lock
        | Command::Unlock
        | Command::Nop => false,
    }
}
