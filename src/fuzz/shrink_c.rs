//! The one-step reductions of a generated C program ([`CProg`]) for the
//! shrinker ([`super::shrink`]): drop a thread (its function, its
//! creation and its join), a join, a statement of a thread or of `main`,
//! an access of an atomic function or region, a conjunct of a goal's
//! condition; replace a branch, loop or locked block by its body.

use super::gen_c::{CProg, CStmt};
use super::shrink::{drop_one, list_variants, Nested, Reduce};

impl Reduce for CProg {
    fn reductions(&self) -> Vec<CProg> {
        let mut out = Vec::new();
        if self.threads.len() > 1 {
            for i in 0..self.threads.len() {
                let mut c = self.clone();
                let (t, _) = c.threads.remove(i);
                c.before.remove(i);
                c.joins.retain(|j| *j != t);
                out.push(c);
            }
        }
        for i in 0..self.joins.len() {
            let mut c = self.clone();
            c.joins.remove(i);
            out.push(c);
        }
        for b in list_variants(&self.after) {
            out.push(CProg {
                after: b,
                ..self.clone()
            });
        }
        for (i, (_, body)) in self.threads.iter().enumerate() {
            for b in list_variants(body) {
                let mut c = self.clone();
                c.threads[i].1 = b;
                out.push(c);
            }
        }
        for (i, pre) in self.before.iter().enumerate() {
            for b in list_variants(pre) {
                let mut c = self.clone();
                c.before[i] = b;
                out.push(c);
            }
        }
        out
    }
}

impl Nested for CStmt {
    fn bodies(&self) -> Vec<Vec<CStmt>> {
        match self {
            CStmt::If(_, t, e) => vec![t.clone(), e.clone()],
            CStmt::For(_, b) | CStmt::While(_, _, b) | CStmt::Locked(b) => vec![b.clone()],
            _ => Vec::new(),
        }
    }

    fn within(&self) -> Vec<CStmt> {
        match self {
            CStmt::If(c, t, e) => {
                let mut out: Vec<CStmt> = list_variants(t)
                    .into_iter()
                    .map(|t2| CStmt::If(c.clone(), t2, e.clone()))
                    .collect();
                out.extend(
                    list_variants(e)
                        .into_iter()
                        .map(|e2| CStmt::If(c.clone(), t.clone(), e2)),
                );
                out.extend(
                    drop_one(c)
                        .into_iter()
                        .map(|c2| CStmt::If(c2, t.clone(), e.clone())),
                );
                out
            }
            CStmt::For(n, b) => list_variants(b)
                .into_iter()
                .map(|b2| CStmt::For(*n, b2))
                .collect(),
            CStmt::While(g, k, b) => list_variants(b)
                .into_iter()
                .map(|b2| CStmt::While(*g, *k, b2))
                .collect(),
            CStmt::Locked(b) => list_variants(b).into_iter().map(CStmt::Locked).collect(),
            CStmt::AtomicFn(xs) => drop_one(xs).into_iter().map(CStmt::AtomicFn).collect(),
            CStmt::Region(xs) => drop_one(xs).into_iter().map(CStmt::Region).collect(),
            CStmt::Assert(c) => drop_one(c).into_iter().map(CStmt::Assert).collect(),
            CStmt::Reach(c) => drop_one(c).into_iter().map(CStmt::Reach).collect(),
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::gen_c::CGen;
    use super::super::shrink::shrink;
    use super::*;

    #[test]
    fn a_c_program_shrinks_to_one_statement() {
        let g = CGen::default();
        let p = (0..100)
            .map(|s| g.program(s))
            .find(|p| p.threads.len() == 3 && p.size() >= 6)
            .expect("a program of 3 threads");
        let still = |c: &CProg| c.threads.iter().any(|t| !t.1.is_empty());
        let s = shrink(&p, &still, 10_000);
        assert!(still(&s));
        assert_eq!(s.threads.len(), 1);
        assert_eq!(s.size(), 1, "{}", s.render());
    }
}
