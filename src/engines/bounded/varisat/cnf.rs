//! The propositional layer over varisat: literals with constant folding,
//! hash-consed Tseitin gates (and, or, xor, ite), and fixed-width
//! bit-vectors ([`bv`]).
//!
//! Every gate is encoded with full equivalence (both directions), so a
//! gate literal can be used in any polarity (needed when a relation is
//! asserted as present, as in the cycle search of `robust`, and as absent,
//! as in the blocking clauses of the lazy model check).

use crate::collections::HashMap;
use std::time::Instant;
use varisat::{ExtendFormula, Lit, Solver};

pub use varisat::Lit as SatLit;

/// A CNF under construction inside an incremental varisat solver.
pub struct Cnf {
    solver: Solver<'static>,
    tt: Lit,
    ands: HashMap<(Lit, Lit), Lit>,
    xors: HashMap<(Lit, Lit), Lit>,
    model: Vec<bool>,
    nvars: usize,
    nclauses: usize,
    /// Recording mode ([`Cnf::recording`]): the clauses, for another
    /// solver; varisat then only numbers the variables.
    log: Option<Vec<Vec<Lit>>>,
    /// A solve passed its deadline and its solver was left running
    /// ([`Cnf::solve_until`]).
    abandoned: bool,
}

/// A solver moved to the thread that runs one solve
/// ([`Cnf::solve_until`]) and back.
struct Moved(Solver<'static>);

// SAFETY: varisat's `Solver` is not `Send` only because it may hold proof
// writers and processors (`Box<dyn Write>`, `dyn ProofProcessor`); a
// `Cnf` never installs any, so the solver owns plain data. It is moved
// whole to one thread and back (or dropped there), never shared.
unsafe impl Send for Moved {}

impl Default for Cnf {
    fn default() -> Self {
        Cnf::new()
    }
}

impl Cnf {
    /// A new, empty CNF with the constant-true literal defined.
    pub fn new() -> Cnf {
        let mut solver = Solver::new();
        let tt = solver.new_lit();
        solver.add_clause(&[tt]);
        Cnf {
            solver,
            tt,
            ands: HashMap::default(),
            xors: HashMap::default(),
            model: Vec::new(),
            nvars: 1,
            nclauses: 1,
            log: None,
            abandoned: false,
        }
    }

    /// A CNF whose clauses are recorded for another SAT solver (read them
    /// with [`Cnf::clauses_since`]; install that solver's model with
    /// [`Cnf::set_model`]) instead of being added to varisat's.
    pub fn recording() -> Cnf {
        let mut c = Cnf::new();
        c.log = Some(vec![vec![c.tt]]);
        c
    }

    /// Recording mode: the clauses added since the first `from` (in order).
    pub fn clauses_since(&self, from: usize) -> &[Vec<Lit>] {
        self.log.as_deref().map_or(&[], |l| &l[from.min(l.len())..])
    }

    /// Whether clauses are being recorded ([`Cnf::recording`]).
    pub fn is_recording(&self) -> bool {
        self.log.is_some()
    }

    /// Ends recording mode: every recorded clause is added to varisat's
    /// solver, and later clauses go straight to it, so that
    /// [`Cnf::solve`] answers for the whole CNF (the enumeration engine's
    /// fallback, `varisat::enumerate`). No-op when not recording.
    pub fn stop_recording(&mut self) {
        if let Some(log) = self.log.take() {
            for c in &log {
                self.solver.add_clause(c);
            }
        }
    }

    /// The model vector that [`Cnf::value`] reads (by variable index), to
    /// be overwritten in place by a solver other than varisat.
    pub fn model_mut(&mut self) -> &mut Vec<bool> {
        &mut self.model
    }

    /// The number of variables (literal indices are below it).
    pub fn num_vars(&self) -> usize {
        self.nvars
    }

    /// Installs a model found by another solver: `value(v)` of variable
    /// index `v` (index 0 unused by varisat's numbering is allowed).
    pub fn set_model(&mut self, values: Vec<bool>) {
        self.model = values;
    }

    /// The constant true literal.
    pub fn tt(&self) -> Lit {
        self.tt
    }

    /// The constant false literal.
    pub fn ff(&self) -> Lit {
        !self.tt
    }

    /// The constant literal for `b`.
    pub fn constant(&self, b: bool) -> Lit {
        if b {
            self.tt
        } else {
            !self.tt
        }
    }

    /// True when `l` is the constant true.
    pub fn is_true(&self, l: Lit) -> bool {
        l == self.tt
    }

    /// True when `l` is the constant false.
    pub fn is_false(&self, l: Lit) -> bool {
        l == !self.tt
    }

    /// True when `l` is a constant.
    pub fn is_const(&self, l: Lit) -> bool {
        l.var() == self.tt.var()
    }

    /// A fresh unconstrained literal.
    pub fn fresh(&mut self) -> Lit {
        self.nvars += 1;
        self.solver.new_lit()
    }

    /// Adds a clause; constant literals are simplified away.
    pub fn clause(&mut self, lits: &[Lit]) {
        if lits.iter().any(|l| self.is_true(*l)) {
            return;
        }
        let c: smallvec::SmallVec<[Lit; 8]> = lits
            .iter()
            .copied()
            .filter(|l| !self.is_false(*l))
            .collect();
        self.nclauses += 1;
        if let Some(log) = &mut self.log {
            log.push(if c.is_empty() {
                vec![!self.tt]
            } else {
                c.into_vec()
            });
        } else if c.is_empty() {
            self.solver.add_clause(&[!self.tt]);
        } else {
            self.solver.add_clause(&c);
        }
    }

    /// Asserts `l`.
    pub fn assert(&mut self, l: Lit) {
        self.clause(&[l]);
    }

    /// Asserts `a → b`.
    pub fn implies(&mut self, a: Lit, b: Lit) {
        self.clause(&[!a, b]);
    }

    /// `a ∧ b` (hash-consed, folded).
    pub fn and(&mut self, a: Lit, b: Lit) -> Lit {
        if self.is_false(a) || self.is_false(b) || a == !b {
            return self.ff();
        }
        if self.is_true(a) || a == b {
            return b;
        }
        if self.is_true(b) {
            return a;
        }
        let key = if a.code() < b.code() { (a, b) } else { (b, a) };
        if let Some(l) = self.ands.get(&key) {
            return *l;
        }
        let g = self.fresh();
        self.clause(&[!g, a]);
        self.clause(&[!g, b]);
        self.clause(&[g, !a, !b]);
        self.ands.insert(key, g);
        g
    }

    /// `a ∨ b`.
    pub fn or(&mut self, a: Lit, b: Lit) -> Lit {
        !self.and(!a, !b)
    }

    /// `a ⊕ b`.
    pub fn xor(&mut self, a: Lit, b: Lit) -> Lit {
        if self.is_const(a) {
            return if self.is_true(a) { !b } else { b };
        }
        if self.is_const(b) {
            return if self.is_true(b) { !a } else { a };
        }
        if a == b {
            return self.ff();
        }
        if a == !b {
            return self.tt();
        }
        // Normalise polarity: xor(!a, b) = !xor(a, b).
        let mut neg = false;
        let (mut x, mut y) = (a, b);
        if x.is_negative() {
            x = !x;
            neg = !neg;
        }
        if y.is_negative() {
            y = !y;
            neg = !neg;
        }
        let key = if x.code() < y.code() { (x, y) } else { (y, x) };
        let g = match self.xors.get(&key) {
            Some(g) => *g,
            None => {
                let g = self.fresh();
                self.clause(&[!g, x, y]);
                self.clause(&[!g, !x, !y]);
                self.clause(&[g, !x, y]);
                self.clause(&[g, x, !y]);
                self.xors.insert(key, g);
                g
            }
        };
        if neg {
            !g
        } else {
            g
        }
    }

    /// `a ↔ b`.
    pub fn iff(&mut self, a: Lit, b: Lit) -> Lit {
        !self.xor(a, b)
    }

    /// `if c then a else b`.
    pub fn ite(&mut self, c: Lit, a: Lit, b: Lit) -> Lit {
        if self.is_true(c) || a == b {
            return a;
        }
        if self.is_false(c) {
            return b;
        }
        let x = self.and(c, a);
        let y = self.and(!c, b);
        self.or(x, y)
    }

    /// Conjunction of many.
    pub fn and_all(&mut self, lits: &[Lit]) -> Lit {
        let mut acc = self.tt;
        for &l in lits {
            acc = self.and(acc, l);
            if self.is_false(acc) {
                break;
            }
        }
        acc
    }

    /// Disjunction of many (one gate with a long clause, not a chain).
    pub fn or_all(&mut self, lits: &[Lit]) -> Lit {
        let mut c: Vec<Lit> = Vec::with_capacity(lits.len());
        for &l in lits {
            if self.is_true(l) {
                return self.tt;
            }
            if !self.is_false(l) && !c.contains(&l) {
                c.push(l);
            }
        }
        match c.len() {
            0 => self.ff(),
            1 => c[0],
            2 => self.or(c[0], c[1]),
            _ => {
                let g = self.fresh();
                for &l in &c {
                    self.clause(&[!l, g]);
                }
                c.push(!g);
                self.clause(&c);
                g
            }
        }
    }

    /// Asserts that at most one of `lits` is true (pairwise for small
    /// sets, a sequential counter otherwise).
    pub fn at_most_one(&mut self, lits: &[Lit]) {
        let lits: Vec<Lit> = lits
            .iter()
            .copied()
            .filter(|l| !self.is_false(*l))
            .collect();
        if lits.len() <= 6 {
            for i in 0..lits.len() {
                for j in i + 1..lits.len() {
                    self.clause(&[!lits[i], !lits[j]]);
                }
            }
            return;
        }
        let mut prev = lits[0];
        for &l in &lits[1..] {
            self.clause(&[!prev, !l]);
            let s = self.fresh();
            self.clause(&[!prev, s]);
            self.clause(&[!l, s]);
            prev = s;
        }
    }

    /// Asserts that at most two of `lits` are true (Sinz's sequential
    /// counter: `one[i]`/`two[i]` = at least one/two of the first i+1).
    pub fn at_most_two(&mut self, lits: &[Lit]) {
        let lits: Vec<Lit> = lits
            .iter()
            .copied()
            .filter(|l| !self.is_false(*l))
            .collect();
        if lits.len() <= 2 {
            return;
        }
        let (mut one, mut two) = (lits[0], self.ff());
        for &l in &lits[1..] {
            // No third: l with two earlier.
            self.clause(&[!l, !two]);
            let (o, t) = (self.fresh(), self.fresh());
            self.clause(&[!one, o]);
            self.clause(&[!l, o]);
            self.clause(&[!two, t]);
            self.clause(&[!l, !one, t]);
            one = o;
            two = t;
        }
    }

    /// Solves under assumptions. `Ok(true)` = satisfiable (model stored).
    ///
    /// Errors: the solver failed (reported as a message).
    pub fn solve(&mut self, assumptions: &[Lit]) -> Result<bool, String> {
        self.solve_until(assumptions, None)
    }

    /// [`Cnf::solve`] that gives up at `deadline`. varisat cannot be
    /// interrupted inside a solve, so with a deadline the solve runs on a
    /// thread of its own and this one waits for it until the deadline;
    /// past it the solver is left to finish alone (its answer is dropped)
    /// and the CNF can no longer be solved: every later solve fails too.
    ///
    /// Errors: "time limit reached"; the solver failed (a message).
    pub fn solve_until(
        &mut self,
        assumptions: &[Lit],
        deadline: Option<Instant>,
    ) -> Result<bool, String> {
        if self.abandoned {
            return Err("time limit reached".into());
        }
        let a: Vec<Lit> = assumptions
            .iter()
            .copied()
            .filter(|l| !self.is_true(*l))
            .collect();
        if a.iter().any(|l| self.is_false(*l)) {
            return Ok(false);
        }
        self.solver.assume(&a);
        let r = match deadline {
            None => self.solver.solve().map_err(|e| e.to_string())?,
            Some(d) => {
                let mut moved = Moved(std::mem::take(&mut self.solver));
                let (tx, rx) = std::sync::mpsc::channel();
                std::thread::spawn(move || {
                    let r = moved.0.solve().map_err(|e| e.to_string());
                    let _ = tx.send((moved, r));
                });
                match rx.recv_timeout(d.saturating_duration_since(Instant::now())) {
                    Ok((moved, r)) => {
                        self.solver = moved.0;
                        r?
                    }
                    Err(_) => {
                        self.abandoned = true;
                        return Err("time limit reached".into());
                    }
                }
            }
        };
        if r {
            let m = self.solver.model().unwrap_or_default();
            self.model.clear();
            self.model.resize(self.nvars + 1, false);
            for l in m {
                let i = l.index();
                if i >= self.model.len() {
                    self.model.resize(i + 1, false);
                }
                self.model[i] = l.is_positive();
            }
        }
        Ok(r)
    }

    /// The value of `l` in the last model.
    pub fn value(&self, l: Lit) -> bool {
        let v = self.model.get(l.index()).copied().unwrap_or(false);
        v ^ l.is_negative()
    }

    /// Number of variables and clauses so far.
    pub fn stats(&self) -> (usize, usize) {
        (self.nvars, self.nclauses)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gates_are_equivalences() {
        let mut c = Cnf::new();
        let a = c.fresh();
        let b = c.fresh();
        let g = c.and(a, b);
        let x = c.xor(a, b);
        assert_eq!(c.and(b, a), g);
        for (va, vb) in [(false, false), (false, true), (true, false), (true, true)] {
            let la = if va { a } else { !a };
            let lb = if vb { b } else { !b };
            assert!(c.solve(&[la, lb]).unwrap());
            assert_eq!(c.value(g), va && vb);
            assert_eq!(c.value(x), va ^ vb);
            // And the gates cannot take the other value.
            let ng = if va && vb { !g } else { g };
            assert!(!c.solve(&[la, lb, ng]).unwrap());
        }
    }

    #[test]
    fn folding_and_amo() {
        let mut c = Cnf::new();
        let a = c.fresh();
        let t = c.tt();
        assert_eq!(c.and(a, t), a);
        let z = c.and(a, !a);
        assert!(c.is_false(z));
        let ls: Vec<Lit> = (0..9).map(|_| c.fresh()).collect();
        c.at_most_one(&ls);
        assert!(!c.solve(&[ls[2], ls[7]]).unwrap());
        assert!(c.solve(&[ls[8]]).unwrap());
        let o = c.or_all(&ls);
        assert!(c.solve(&[o]).unwrap());
    }
}
