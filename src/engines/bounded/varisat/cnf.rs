//! The propositional layer over varisat: literals with constant folding,
//! hash-consed Tseitin gates (and, or, xor, ite), and fixed-width
//! bit-vectors ([`bv`]).
//!
//! Every gate is encoded with full equivalence (both directions), so a
//! gate literal can be used in any polarity (needed when a relation is
//! asserted as present, as in the cycle search of `robust`, and as absent,
//! as in the blocking clauses of the lazy model check).

use crate::collections::HashMap;
use crate::diag::Error;
use crate::engines::bounded::Deadline;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::sync::Arc;
use std::time::{Duration, Instant};
use varisat::{ExtendFormula, Lit, ProofFormat, Solver};

pub use varisat::Lit as SatLit;

/// A CNF under construction inside an incremental varisat solver.
pub struct Cnf {
    /// The solver, made at its first use ([`Cnf::sat`]): a recording CNF
    /// whose candidates the enumeration engine decides alone never needs
    /// one.
    solver: Option<Solver<'static>>,
    tt: Lit,
    ands: HashMap<(Lit, Lit), Lit>,
    xors: HashMap<(Lit, Lit), Lit>,
    model: Vec<bool>,
    nvars: usize,
    nclauses: usize,
    /// Recording mode ([`Cnf::recording`]): the clauses, for another
    /// solver; varisat then only numbers the variables.
    log: Option<Vec<Vec<Lit>>>,
    /// Set to stop the solver's running solve ([`StopSink`]; `None`: the
    /// solver has no such target, [`Cnf::new`]).
    stop: Option<Arc<AtomicBool>>,
    /// Why a solve was stopped ([`Cnf::solve_until`]): the solver is then
    /// unusable and every later solve fails with this error.
    stopped: Option<Error>,
}

/// The proof target of a [`Cnf`]'s solver, there only to stop a solve:
/// varisat 0.2 has no interrupt, but a solve ends (with
/// `SolverError::ProofIoError`, after which the solver is unusable) at
/// the first write to its proof target that fails. This target discards
/// the proof (binary DRAT, which varisat writes in blocks of 8 KB: a
/// block every few hundred conflicts) and fails once its flag is set (by
/// the thread waiting for the solve, at the deadline or on cancellation)
/// or the process's memory budget is exceeded ([`crate::resources`]).
struct StopSink(Arc<AtomicBool>);

impl std::io::Write for StopSink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.0.load(Ordering::Relaxed) || crate::resources::over_memory_limit() {
            return Err(std::io::Error::other("solve stopped"));
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A solver moved to the thread that runs one solve
/// ([`Cnf::solve_until`]) and back.
struct Moved(Solver<'static>);

// SAFETY: varisat's `Solver` is not `Send` only because it may hold proof
// writers and processors (`Box<dyn Write>`, `dyn ProofProcessor`); a
// `Cnf` installs no processor and one writer, a [`StopSink`], which is
// `Send` (an `Arc<AtomicBool>`), so the solver owns plain data. It is
// moved whole to one thread and back (or dropped there), never shared.
unsafe impl Send for Moved {}

/// The thread that runs the solves with a deadline of the threads' CNFs
/// ([`Cnf::solve_until`]): one per thread that solves, started at its
/// first such solve and reused by the next ones (a thread started per
/// solve cost more than a small solve, litmus tests solving ten times
/// each), ended when that thread ends or when a solve is given up
/// ([`abandon`]: the solve keeps it, and the next solve starts another).
mod solving_thread {
    use super::Moved;
    use std::cell::RefCell;
    use std::sync::mpsc::{channel, Receiver, Sender};

    /// What a solve sends back: the solver and its answer.
    pub(super) type Solved = (Moved, Result<bool, varisat::solver::SolverError>);

    /// A solver to solve, and where to send it back.
    type Job = (Moved, Sender<Solved>);

    thread_local! {
        /// The jobs channel of this thread's solving thread.
        static JOBS: RefCell<Option<Sender<Job>>> = const { RefCell::new(None) };
        /// How many solving threads this thread started (for the tests).
        pub(super) static STARTED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    /// Solves `moved` on this thread's solving thread (started if there is
    /// none or it ended); the solver and the answer arrive on the receiver.
    pub(super) fn solve(moved: Moved) -> Receiver<Solved> {
        let (tx, rx) = channel();
        JOBS.with(|jobs| {
            let mut jobs = jobs.borrow_mut();
            let mut job = (moved, tx);
            if let Some(s) = jobs.as_ref() {
                match s.send(job) {
                    Ok(()) => return,
                    Err(std::sync::mpsc::SendError(j)) => job = j,
                }
            }
            let (jtx, jrx) = channel::<Job>();
            STARTED.set(STARTED.get() + 1);
            std::thread::spawn(move || {
                for (mut moved, back) in jrx {
                    let r = moved.0.solve();
                    let _ = back.send((moved, r));
                }
            });
            jtx.send(job)
                .expect("a new solving thread waits for its first job");
            *jobs = Some(jtx);
        });
        rx
    }

    /// Leaves this thread's solving thread to the solve it runs: it ends
    /// after that solve (its answer, no longer awaited, dropped), and the
    /// next solve starts another.
    pub(super) fn abandon() {
        JOBS.with(|jobs| jobs.borrow_mut().take());
    }
}

/// How often the thread waiting for a solve checks the cancel flag and
/// the memory budget ([`Deadline::check`]) before the deadline.
const POLL: Duration = Duration::from_millis(20);

impl Default for Cnf {
    fn default() -> Self {
        Cnf::new()
    }
}

impl Cnf {
    /// A new, empty CNF with the constant-true literal defined.
    pub fn new() -> Cnf {
        Cnf::with_stop(None)
    }

    /// A new, empty CNF whose solves stop at their deadline and on the
    /// memory budget, not only answer then ([`Cnf::solve_until`]): its
    /// solver writes a proof in varisat's own format into a
    /// [`StopSink`] (DRAT has no assumptions nor clauses added between
    /// solves). The proof costs about 5–15 % of the solving time (clause
    /// hashes in conflict analysis), so only a query with a time limit
    /// pays it.
    pub fn stoppable() -> Cnf {
        let stop = Arc::new(AtomicBool::new(false));
        Cnf::with_stop(Some(stop))
    }

    /// [`Cnf::stoppable`] for a query whose limits give a time
    /// ([`Deadline`]), else [`Cnf::new`].
    pub fn for_limit(limit: Option<Deadline>) -> Cnf {
        match limit {
            Some(Deadline(Some(_))) => Cnf::stoppable(),
            _ => Cnf::new(),
        }
    }

    fn with_stop(stop: Option<Arc<AtomicBool>>) -> Cnf {
        let mut c = Cnf::unsolved(stop);
        let tt = c.tt;
        c.sat().add_clause(&[tt]);
        c
    }

    /// A CNF with the constant-true literal (variable 0) and no solver
    /// yet.
    fn unsolved(stop: Option<Arc<AtomicBool>>) -> Cnf {
        Cnf {
            solver: None,
            tt: Lit::from_index(0, true),
            ands: HashMap::default(),
            xors: HashMap::default(),
            model: Vec::new(),
            nvars: 1,
            nclauses: 1,
            log: None,
            stop,
            stopped: None,
        }
    }

    /// A CNF whose clauses are recorded for another SAT solver (read them
    /// with [`Cnf::clauses_since`]; install that solver's model with
    /// [`Cnf::set_model`]) instead of being added to varisat's.
    pub fn recording() -> Cnf {
        let mut c = Cnf::unsolved(None);
        c.log = Some(vec![vec![c.tt]]);
        c
    }

    /// The solver, made at the first call: a stoppable CNF's gets its
    /// proof target, then the variables numbered so far are created in
    /// order (the same numbering as when each was created at once).
    fn sat(&mut self) -> &mut Solver<'static> {
        self.solver.get_or_insert_with(|| {
            let mut solver = Solver::new();
            if let Some(stop) = &self.stop {
                // Before any clause: varisat takes a proof target only then.
                solver.write_proof(StopSink(stop.clone()), ProofFormat::Varisat);
            }
            for _ in 0..self.nvars {
                solver.new_lit();
            }
            solver
        })
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
            let solver = self.sat();
            for c in &log {
                solver.add_clause(c);
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
        match &mut self.solver {
            Some(solver) => solver.new_lit(),
            // Numbered as the solver will number it ([`Cnf::sat`]).
            None => Lit::from_index(self.nvars - 1, true),
        }
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
            let ff = !self.tt;
            self.sat().add_clause(&[ff]);
        } else {
            self.sat().add_clause(&c);
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
    /// Errors: those of [`Cnf::solve_until`] without a deadline.
    pub fn solve(&mut self, assumptions: &[Lit]) -> Result<bool, Error> {
        self.solve_until(assumptions, Deadline(None))
    }

    /// [`Cnf::solve`] that gives up at `deadline` ([`Deadline::check`]:
    /// its time, the cancel flag of this thread's query, the memory
    /// budget). varisat cannot be interrupted from outside a solve, so
    /// with a deadline the solve runs on another thread (this thread's
    /// [`solving_thread`], reused from solve to solve) and this one
    /// waits for it until the deadline, checking the cancel flag and the
    /// budget every [`POLL`]; when it gives up it answers at once and,
    /// for a [`Cnf::stoppable`] CNF, stops the solve through its proof
    /// target ([`StopSink`]), which also stops a solve that outgrows the
    /// memory budget (a solve of a [`Cnf::new`] CNF is left to finish
    /// alone on its thread, which no later solve uses). A CNF whose solve
    /// was given up cannot solve again: every later solve fails with the
    /// same error.
    ///
    /// Errors: [`Error::Unknown`] naming the limit reached; the solver
    /// failed ([`Error::Tool`]).
    pub fn solve_until(&mut self, assumptions: &[Lit], deadline: Deadline) -> Result<bool, Error> {
        if let Some(e) = &self.stopped {
            return Err(e.clone());
        }
        let a: Vec<Lit> = assumptions
            .iter()
            .copied()
            .filter(|l| !self.is_true(*l))
            .collect();
        if a.iter().any(|l| self.is_false(*l)) {
            return Ok(false);
        }
        self.sat().assume(&a);
        let solved = match deadline.0 {
            None => self.sat().solve(),
            Some(d) => {
                // Made by `sat()` above.
                let rx = solving_thread::solve(Moved(self.solver.take().unwrap_or_default()));
                loop {
                    let wait = d.saturating_duration_since(Instant::now()).min(POLL);
                    match rx.recv_timeout(wait) {
                        Ok((moved, r)) => {
                            self.solver = Some(moved.0);
                            break r;
                        }
                        Err(RecvTimeoutError::Timeout) => {
                            if let Err(e) = deadline.check() {
                                if let Some(stop) = &self.stop {
                                    stop.store(true, Ordering::Relaxed);
                                }
                                // The solving thread is left to the solve.
                                solving_thread::abandon();
                                self.stopped = Some(e.clone());
                                return Err(e);
                            }
                        }
                        Err(RecvTimeoutError::Disconnected) => {
                            let e = Error::Tool("varisat: the solving thread failed".into());
                            self.stopped = Some(e.clone());
                            return Err(e);
                        }
                    }
                }
            }
        };
        let r = match solved {
            Ok(r) => r,
            Err(varisat::solver::SolverError::ProofIoError { .. }) => {
                // Only the memory budget stops a solve that this thread
                // still waits for.
                let e = Error::Unknown(
                    crate::resources::check_memory()
                        .err()
                        .unwrap_or_else(|| "memory limit reached".into()),
                );
                self.stopped = Some(e.clone());
                return Err(e);
            }
            Err(e) => {
                let e = Error::Tool(format!("varisat: {e}"));
                self.stopped = Some(e.clone());
                return Err(e);
            }
        };
        if r {
            let m = self.sat().model().unwrap_or_default();
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

    /// A recording CNF makes no solver until its clauses go to one, and
    /// numbers its variables as the solver then does: the same literals
    /// as an eager CNF, and solves (with and without a deadline) that see
    /// every recorded clause.
    #[test]
    fn recording_makes_the_solver_late_with_the_same_numbering() {
        let mut eager = Cnf::new();
        let mut rec = Cnf::recording();
        let ea: Vec<Lit> = (0..5).map(|_| eager.fresh()).collect();
        let ra: Vec<Lit> = (0..5).map(|_| rec.fresh()).collect();
        assert_eq!(ea, ra);
        let g = rec.and(ra[0], ra[1]);
        rec.clause(&[g]);
        rec.clause(&[!ra[2], ra[3]]);
        rec.clause(&[ra[2]]);
        assert!(rec.solver.is_none());
        rec.stop_recording();
        let more = rec.fresh();
        assert_eq!(more.index(), rec.num_vars() - 1);
        assert!(rec.solve(&[!more]).unwrap());
        assert!(rec.value(ra[0]) && rec.value(ra[1]) && rec.value(ra[3]));
        assert!(!rec.value(more));
        let later = Deadline(Some(Instant::now() + Duration::from_secs(60)));
        assert!(!rec.solve_until(&[!ra[3]], later).unwrap());
        assert!(rec.solve_until(&[ra[4]], later).unwrap());
        assert!(rec.value(ra[4]));
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

    /// Pigeonhole: `n + 1` pigeons in `n` holes (unsatisfiable, hard for
    /// resolution when `n` grows).
    fn pigeonhole(c: &mut Cnf, n: usize) {
        let p: Vec<Vec<Lit>> = (0..=n)
            .map(|_| (0..n).map(|_| c.fresh()).collect())
            .collect();
        for row in &p {
            c.clause(row);
        }
        for h in 0..n {
            let col: Vec<Lit> = p.iter().map(|row| row[h]).collect();
            c.at_most_one(&col);
        }
    }

    /// Solves with a deadline share one solving thread per calling thread;
    /// a solve given up at its deadline keeps its thread and the next
    /// solve, of another CNF, answers on a new one without waiting for it.
    #[test]
    fn solves_with_a_deadline_reuse_their_thread() {
        let started = || solving_thread::STARTED.get();
        let soon = |ms| Deadline(Some(Instant::now() + Duration::from_millis(ms)));
        let before = started();
        for _ in 0..20 {
            let mut c = Cnf::new();
            let (a, b) = (c.fresh(), c.fresh());
            c.clause(&[a, b]);
            assert!(c.solve_until(&[!a], soon(60_000)).unwrap());
            assert!(c.value(b));
            assert!(!c.solve_until(&[!a, !b], soon(60_000)).unwrap());
        }
        assert_eq!(started() - before, 1);
        // A solve that outlasts its deadline (not stoppable: it runs on).
        let mut hard = Cnf::new();
        pigeonhole(&mut hard, 11);
        let e = hard.solve_until(&[], soon(50)).unwrap_err();
        assert!(matches!(e, Error::Unknown(_)), "{e:?}");
        assert!(hard.solve(&[]).is_err(), "a given-up CNF stays stopped");
        let t0 = Instant::now();
        let mut c = Cnf::new();
        pigeonhole(&mut c, 3);
        assert!(!c.solve_until(&[], soon(20_000)).unwrap());
        assert!(t0.elapsed() < Duration::from_secs(10));
        assert_eq!(started() - before, 2);
    }
}
