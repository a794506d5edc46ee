//! Incremental cycle detection over labelled edges: Pearce and Kelly's
//! dynamic topological order ("A dynamic topological sort algorithm for
//! directed acyclic graphs", JEA 2006), with edges removed in the reverse
//! order of their insertion (a SAT solver's backtracking).
//!
//! Adding edge a → b when a is already before b costs nothing; otherwise
//! only the nodes between b and a in the order are visited (forward from
//! b, backward from a) and reordered. An edge that closes a cycle is not
//! added; the cycle is returned as the labels of its edges (for the
//! propagator: the literals of a conflict).

/// A directed graph on nodes `0..n` with a topological order, labels `L`
/// on edges.
pub struct Graph<L = batsat::Lit> {
    ord: Vec<usize>,
    node_at: Vec<usize>,
    out: Vec<Vec<(usize, L)>>,
    inc: Vec<Vec<(usize, L)>>,
    stack: Vec<(usize, usize)>,
    mark: Vec<u32>,
    epoch: u32,
    parent: Vec<(usize, Option<L>)>,
}

impl<L: Copy> Graph<L> {
    /// The empty graph on `n` nodes.
    pub fn new(n: usize) -> Graph<L> {
        Graph {
            ord: (0..n).collect(),
            node_at: (0..n).collect(),
            out: vec![Vec::new(); n],
            inc: vec![Vec::new(); n],
            stack: Vec::new(),
            mark: vec![0; n],
            epoch: 0,
            parent: Vec::new(),
        }
    }

    /// Number of edges.
    pub fn edges(&self) -> usize {
        self.stack.len()
    }

    fn bump(&mut self) {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.mark.iter_mut().for_each(|m| *m = 0);
            self.epoch = 1;
        }
    }

    /// Adds edge `a → b` labelled `l`.
    ///
    /// Errors: the edge would close a cycle; the labels of the cycle's
    /// edges (the new edge's last), and the graph is unchanged.
    pub fn add_edge(&mut self, a: usize, b: usize, l: L) -> Result<(), Vec<L>> {
        if a == b {
            return Err(vec![l]);
        }
        let (lb, ub) = (self.ord[b], self.ord[a]);
        if lb > ub {
            self.push(a, b, l);
            return Ok(());
        }
        // Forward from b over nodes ordered at most ub.
        self.bump();
        let ep = self.epoch;
        if self.parent.len() < self.ord.len() {
            self.parent = vec![(usize::MAX, None); self.ord.len()];
        }
        let mut fwd = Vec::new();
        let mut todo = vec![b];
        self.mark[b] = ep;
        self.parent[b] = (usize::MAX, None);
        while let Some(x) = todo.pop() {
            fwd.push(x);
            for i in 0..self.out[x].len() {
                let (y, ly) = self.out[x][i];
                if y == a {
                    // Cycle: b →* x → a → b.
                    let mut labels = vec![ly];
                    let mut cur = x;
                    while cur != b {
                        let (p, pl) = self.parent[cur];
                        labels.push(pl.expect("tree edge"));
                        cur = p;
                    }
                    labels.reverse();
                    labels.push(l);
                    return Err(labels);
                }
                if self.mark[y] != ep && self.ord[y] <= ub {
                    self.mark[y] = ep;
                    self.parent[y] = (x, Some(ly));
                    todo.push(y);
                }
            }
        }
        // Backward from a over nodes ordered at least lb.
        let mut bwd = Vec::new();
        let mut todo = vec![a];
        self.bump();
        let ep2 = self.epoch;
        self.mark[a] = ep2;
        while let Some(x) = todo.pop() {
            bwd.push(x);
            for &(y, _) in &self.inc[x] {
                if self.mark[y] != ep2 && self.ord[y] >= lb {
                    self.mark[y] = ep2;
                    todo.push(y);
                }
            }
        }
        // Reorder: the backward set, then the forward set, into their
        // combined positions.
        bwd.sort_by_key(|&x| self.ord[x]);
        fwd.sort_by_key(|&x| self.ord[x]);
        let mut pos: Vec<usize> = bwd.iter().chain(&fwd).map(|&x| self.ord[x]).collect();
        pos.sort_unstable();
        for (x, p) in bwd.into_iter().chain(fwd).zip(pos) {
            self.ord[x] = p;
            self.node_at[p] = x;
        }
        self.push(a, b, l);
        Ok(())
    }

    fn push(&mut self, a: usize, b: usize, l: L) {
        self.out[a].push((b, l));
        self.inc[b].push((a, l));
        self.stack.push((a, b));
    }

    /// Removes the most recently added edge (the order stays valid).
    pub fn pop_edge(&mut self) {
        if let Some((a, b)) = self.stack.pop() {
            self.out[a].pop();
            self.inc[b].pop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_cycles_and_backtracks() {
        let mut g: Graph<u32> = Graph::new(5);
        assert!(g.add_edge(3, 2, 0).is_ok());
        assert!(g.add_edge(2, 1, 1).is_ok());
        assert!(g.add_edge(1, 0, 2).is_ok());
        let c = g.add_edge(0, 3, 3).unwrap_err();
        let mut s = c.clone();
        s.sort();
        assert_eq!(s, vec![0, 1, 2, 3]);
        assert_eq!(*c.last().unwrap(), 3);
        assert_eq!(g.edges(), 3);
        g.pop_edge();
        assert!(g.add_edge(0, 3, 4).is_ok());
        assert!(g.add_edge(4, 4, 5).is_err());
        let c = g.add_edge(3, 0, 6).unwrap_err();
        assert_eq!(c, vec![4, 6]);
    }

    #[test]
    fn random_against_reachability() {
        // Pseudo-random edges: a cycle is reported iff b reaches a.
        let n = 12;
        let mut seed = 7u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize
        };
        for _ in 0..50 {
            let mut g: Graph<usize> = Graph::new(n);
            let mut edges: Vec<(usize, usize)> = Vec::new();
            for k in 0..40 {
                let (a, b) = (next() % n, next() % n);
                let reach = |from: usize, to: usize, es: &[(usize, usize)]| {
                    let mut seen = vec![false; n];
                    let mut st = vec![from];
                    while let Some(x) = st.pop() {
                        if x == to {
                            return true;
                        }
                        if !std::mem::replace(&mut seen[x], true) {
                            st.extend(es.iter().filter(|e| e.0 == x).map(|e| e.1));
                        }
                    }
                    false
                };
                let cyc = reach(b, a, &edges);
                match g.add_edge(a, b, k) {
                    Ok(()) => {
                        assert!(!cyc);
                        edges.push((a, b));
                    }
                    Err(ls) => {
                        assert!(cyc);
                        assert_eq!(*ls.last().unwrap(), k);
                    }
                }
                if next() % 5 == 0 && !edges.is_empty() {
                    edges.pop();
                    g.pop_edge();
                }
            }
        }
    }
}
