//! Shrinking a generated program while a property holds (a disagreement
//! persists): greedy one-step reductions ([`Reduce`]), each kept when the
//! property still holds, until none applies or the budget of tried
//! candidates is spent. The native programs' reductions
//! ([`super::gen::Prog`]): drop a thread, a goal conjunct, a statement,
//! an access of an atomic section; replace a branch, loop or locked block
//! by its body (the C programs': [`super::shrink_c`]).

use super::gen::{Prog, Stmt};

/// A program the shrinker reduces.
pub trait Reduce: Clone {
    /// The one-step reductions of the program, the largest first.
    fn reductions(&self) -> Vec<Self>;
}

impl Reduce for Prog {
    fn reductions(&self) -> Vec<Prog> {
        candidates(self)
    }
}

/// The smallest program reached from `p` by one-step reductions that keep
/// `still` true, trying at most `budget` candidates. `still(p)` is
/// assumed.
pub fn shrink<P: Reduce>(p: &P, still: &dyn Fn(&P) -> bool, budget: usize) -> P {
    let mut cur = p.clone();
    let mut tried = 0;
    'outer: loop {
        for c in cur.reductions() {
            if tried >= budget {
                break 'outer;
            }
            tried += 1;
            if still(&c) {
                cur = c;
                continue 'outer;
            }
        }
        break;
    }
    cur
}

/// The one-step reductions of `p`, the largest first (threads, then
/// goal conjuncts, then statements).
pub fn candidates(p: &Prog) -> Vec<Prog> {
    let mut out = Vec::new();
    if p.threads.len() > 1 {
        for i in 0..p.threads.len() {
            let mut c = p.clone();
            c.threads.remove(i);
            out.push(c);
        }
    }
    for i in 0..p.goal.len() {
        let mut c = p.clone();
        c.goal.remove(i);
        out.push(c);
    }
    for (i, (_, body)) in p.threads.iter().enumerate() {
        for b in list_variants(body) {
            let mut c = p.clone();
            c.threads[i].1 = b;
            out.push(c);
        }
    }
    out
}

/// A statement with nested blocks, for the one-step reductions of a
/// statement list ([`list_variants`]).
pub trait Nested: Clone {
    /// The blocks that may replace the statement (a branch's sides, a
    /// loop's or a locked block's body).
    fn bodies(&self) -> Vec<Vec<Self>>;
    /// The statement with one of its parts reduced (by
    /// [`list_variants`] of a nested block, or an access dropped).
    fn within(&self) -> Vec<Self>;
}

/// One-step reductions of a statement list: drop a statement, replace it
/// by one of its [`Nested::bodies`], or reduce it ([`Nested::within`]).
pub fn list_variants<S: Nested>(list: &[S]) -> Vec<Vec<S>> {
    let mut out = Vec::new();
    for i in 0..list.len() {
        let mut v = list.to_vec();
        v.remove(i);
        out.push(v);
        for body in list[i].bodies() {
            let mut v = list.to_vec();
            v.splice(i..=i, body);
            out.push(v);
        }
        for s in list[i].within() {
            let mut v = list.to_vec();
            v[i] = s;
            out.push(v);
        }
    }
    out
}

impl Nested for Stmt {
    fn bodies(&self) -> Vec<Vec<Stmt>> {
        match self {
            Stmt::If(_, t, e) => vec![t.clone(), e.clone()],
            Stmt::While(_, b) | Stmt::Locked(b) => vec![b.clone()],
            _ => Vec::new(),
        }
    }

    fn within(&self) -> Vec<Stmt> {
        match self {
            Stmt::If(c, t, e) => {
                let mut out: Vec<Stmt> = list_variants(t)
                    .into_iter()
                    .map(|t2| Stmt::If(c.clone(), t2, e.clone()))
                    .collect();
                out.extend(
                    list_variants(e)
                        .into_iter()
                        .map(|e2| Stmt::If(c.clone(), t.clone(), e2)),
                );
                out
            }
            Stmt::While(c, b) => list_variants(b)
                .into_iter()
                .map(|b2| Stmt::While(c.clone(), b2))
                .collect(),
            Stmt::Locked(b) => list_variants(b).into_iter().map(Stmt::Locked).collect(),
            Stmt::Atomic(xs) => drop_one(xs).into_iter().map(Stmt::Atomic).collect(),
            _ => Vec::new(),
        }
    }
}

/// `xs` without one of its elements, for each element (none when `xs`
/// has one element or none: an empty section is not a reduction).
pub fn drop_one<T: Clone>(xs: &[T]) -> Vec<Vec<T>> {
    if xs.len() < 2 {
        return Vec::new();
    }
    (0..xs.len())
        .map(|i| {
            let mut v = xs.to_vec();
            v.remove(i);
            v
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzz::gen::Gen;

    #[test]
    fn shrinking_keeps_the_property_and_reaches_a_minimum() {
        let g = Gen::default();
        let p = (0..200)
            .map(|s| g.program(s, "tso"))
            .find(|p| p.threads.len() >= 3 && p.size() >= 6)
            .expect("a program of 3 threads");
        // The property: some thread has at least one statement.
        let still = |c: &Prog| c.threads.iter().any(|t| !t.1.is_empty());
        let s = shrink(&p, &still, 10_000);
        assert!(still(&s));
        assert_eq!(s.threads.len(), 1);
        assert_eq!(s.size(), 1);
        assert!(s.goal.is_empty());
    }
}
