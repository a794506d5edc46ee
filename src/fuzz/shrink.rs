//! Shrinking a generated program ([`super::gen::Prog`]) while a property
//! holds (a disagreement persists): greedy one-step reductions — drop a
//! thread, a goal conjunct, a statement, an access of an atomic section;
//! replace a branch, loop or locked block by its body — each kept when
//! the property still holds, until none applies or the budget of tried
//! candidates is spent.

use super::gen::{Access, Prog, Stmt};

/// The smallest program reached from `p` by one-step reductions that keep
/// `still` true, trying at most `budget` candidates. `still(p)` is
/// assumed.
pub fn shrink(p: &Prog, still: &dyn Fn(&Prog) -> bool, budget: usize) -> Prog {
    let mut cur = p.clone();
    let mut tried = 0;
    'outer: loop {
        for c in candidates(&cur) {
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

/// One-step reductions of a statement list.
fn list_variants(list: &[Stmt]) -> Vec<Vec<Stmt>> {
    let mut out = Vec::new();
    for i in 0..list.len() {
        let mut v = list.to_vec();
        v.remove(i);
        out.push(v);
        let inner: Vec<Vec<Stmt>> = match &list[i] {
            Stmt::If(_, t, e) => vec![t.clone(), e.clone()],
            Stmt::While(_, b) | Stmt::Locked(b) => vec![b.clone()],
            _ => Vec::new(),
        };
        for body in inner {
            let mut v = list.to_vec();
            v.splice(i..=i, body);
            out.push(v);
        }
        for s in stmt_variants(&list[i]) {
            let mut v = list.to_vec();
            v[i] = s;
            out.push(v);
        }
    }
    out
}

/// One-step reductions inside a statement.
fn stmt_variants(s: &Stmt) -> Vec<Stmt> {
    match s {
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
        Stmt::Atomic(xs) if xs.len() > 1 => (0..xs.len())
            .map(|i| {
                let mut v: Vec<Access> = xs.clone();
                v.remove(i);
                Stmt::Atomic(v)
            })
            .collect(),
        _ => Vec::new(),
    }
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
