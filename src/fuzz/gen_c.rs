//! Seeded random C programs in the subset of the C front-end (docs/c.md)
//! for differential testing (`fuzz-diff --lang c`): `main` creates 2–3
//! threads with `pthread_create` (and sometimes joins them and asserts
//! over the globals), each thread runs a few statements over the globals
//! `g0`, `g1` (`int`), `arr` (`int[2]`, indexed by constants and by
//! `rK & 1`), `ptr` (`int *`, pointing to `g0` or `g1`) and `c`
//! (`atomic_int`): loads and stores, `if`/`else`, `for` loops of one or
//! two iterations and `while` loops bounded by a counter, calls of
//! `__VERIFIER_atomic_*` functions and `__VERIFIER_atomic_begin()`/`end()`
//! regions over one or two globals, `pthread_mutex_lock`/`unlock`
//! sections, C11 atomics (`atomic_load/store/fetch_add/exchange/
//! compare_exchange_strong_explicit` and `atomic_thread_fence` with every
//! order each accepts, plain accesses of the `_Atomic` object), GCC's
//! `__sync_fetch_and_add`/`__sync_val_compare_and_swap`,
//! `__VERIFIER_nondet_int()` bounded by `__VERIFIER_assume` to a range of
//! at most three values, and the goals `assert(…)` and
//! `if (…) reach_error();`. The program is a small syntax tree
//! ([`CProg`]) that the shrinker edits and [`CProg::render`] prints as C.
//! Values stay small (0–3), so `--width 6` holds every value and the
//! program's memory (globals, the threads' start and done flags).

use super::gen::Rng;
use std::fmt::Write as _;

/// Registers (locals `r0`..) per thread.
pub const CREGS: usize = 3;

/// A global of `int` cells the statements access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// `g0` or `g1`.
    Global(usize),
    /// `arr[K]`, a constant index (0 or 1).
    Elem(usize),
    /// `arr[rREG & 1]`, an index read from a register.
    ElemAt(usize),
    /// `*ptr` (`ptr` holds `&g0` or `&g1`).
    Deref,
}

/// A value written: `K`, or `rREG + K`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Val {
    /// The register added, if any.
    pub reg: Option<usize>,
    /// The constant.
    pub add: i64,
}

/// One comparison `LHS OP K` of a condition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Atom {
    /// `Some(r)`: the register `rR`; `None`: the global `gG` of `global`.
    pub reg: Option<usize>,
    /// The global read when `reg` is `None`.
    pub global: usize,
    /// `==`, `!=` or `<`.
    pub op: &'static str,
    /// The constant.
    pub value: i64,
}

/// A condition: the conjunction of its atoms (one or two).
pub type Cond = Vec<Atom>;

/// A C11 memory order (`memory_order_*`).
pub const ORDERS: &[&str] = &[
    "relaxed", "consume", "acquire", "release", "acq_rel", "seq_cst",
];

/// A C11 or GCC atomic operation on `c` (or on `g0`/`g1` for `__sync_*`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AtomicOp {
    /// `rREG = atomic_load_explicit(&c, ORDER);`
    Load(usize, &'static str),
    /// `atomic_store_explicit(&c, VALUE, ORDER);`
    Store(i64, &'static str),
    /// `rREG = atomic_fetch_add_explicit(&c, VALUE, ORDER);`
    FetchAdd(usize, i64, &'static str),
    /// `rREG = atomic_exchange_explicit(&c, VALUE, ORDER);`
    Exchange(usize, i64, &'static str),
    /// `eN = OLD; rREG = atomic_compare_exchange_strong_explicit(&c, &eN,
    /// NEW, ORDER, memory_order_relaxed);` (the failure order relaxed).
    Cmpxchg(usize, i64, i64, &'static str),
    /// `atomic_thread_fence(ORDER);`
    Fence(&'static str),
    /// `c = VALUE;` (a seq_cst store to an `_Atomic` object).
    Assign(i64),
    /// `rREG = c;` (a load of the `_Atomic` object).
    Read(usize),
    /// `rREG = __sync_fetch_and_add(&gG, VALUE);`
    SyncAdd(usize, usize, i64),
    /// `rREG = __sync_val_compare_and_swap(&gG, OLD, NEW);`
    SyncCas(usize, usize, i64, i64),
}

/// One access inside an atomic function or region: `t = gG;` (the
/// section's local `t`) or `gG = K` / `gG = t + K`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SectionAccess {
    /// `t = gG;`
    Load(usize),
    /// `gG = VAL;` (`VAL.reg`, if any, stands for `t`).
    Store(usize, Val),
}

/// A statement of a thread (or of `main`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CStmt {
    /// `rREG = PLACE;`
    Load(usize, Place),
    /// `PLACE = VAL;`
    Store(Place, Val),
    /// `ptr = &gG;`
    Point(usize),
    /// `if (COND) { … } else { … }`
    If(Cond, Vec<CStmt>, Vec<CStmt>),
    /// `for (int iD = 0; iD < N; iD++) { … }` (D the nesting depth).
    For(u32, Vec<CStmt>),
    /// `int wD = 0; while (gG != K && wD < 2) { …; wD++; }`
    While(usize, i64, Vec<CStmt>),
    /// A call of a generated `__VERIFIER_atomic_aN` function with this
    /// body.
    AtomicFn(Vec<SectionAccess>),
    /// `__VERIFIER_atomic_begin(); { int t = 0; … } __VERIFIER_atomic_end();`
    Region(Vec<SectionAccess>),
    /// `pthread_mutex_lock(&m); … pthread_mutex_unlock(&m);`
    Locked(Vec<CStmt>),
    /// A C11 or GCC atomic operation.
    Atomic(AtomicOp),
    /// `rREG = __VERIFIER_nondet_int(); __VERIFIER_assume(rREG >= LO &&
    /// rREG <= HI);`
    Nondet(usize, i64, i64),
    /// `assert(COND);`
    Assert(Cond),
    /// `if (COND) reach_error();`
    Reach(Cond),
}

/// A generated C program: worker threads `t0`.. (named by their index at
/// generation, kept when the shrinker drops others), `main`'s statements
/// between the creations (`before[k]` runs before creating the k-th
/// thread), the threads it joins at the end and its statements after
/// them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CProg {
    /// Threads: (name index, body).
    pub threads: Vec<(usize, Vec<CStmt>)>,
    /// `main`'s statements before creating each thread (parallel to
    /// `threads`).
    pub before: Vec<Vec<CStmt>>,
    /// Threads joined at the end of `main` (name indices).
    pub joins: Vec<usize>,
    /// `main`'s statements after the joins.
    pub after: Vec<CStmt>,
    /// A header comment (seed, index).
    pub header: String,
}

/// The generator of C programs.
#[derive(Clone, Debug)]
pub struct CGen {
    /// Worker threads: `min_threads..=max_threads`.
    pub min_threads: u64,
    /// See `min_threads`.
    pub max_threads: u64,
    /// Statements per thread (top level): `1..=max_stmts`.
    pub max_stmts: u64,
    /// Percent chance of a goal (`assert` or `reach_error`) per statement.
    pub goals: u64,
    /// Percent chance of a compound statement (branch, loop, section) per
    /// statement.
    pub compound: u64,
    /// Percent chance of an atomic operation per statement.
    pub atomics: u64,
}

impl Default for CGen {
    /// 2–3 threads of up to 4 statements; goals 15 %, compound statements
    /// 30 %, atomic operations 20 % per statement.
    fn default() -> Self {
        CGen {
            min_threads: 2,
            max_threads: 3,
            max_stmts: 4,
            goals: 15,
            compound: 30,
            atomics: 20,
        }
    }
}

impl CGen {
    /// The program of `seed` (the same program on every machine).
    pub fn program(&self, seed: u64) -> CProg {
        let mut rng = Rng::new(seed);
        let n = self.min_threads + rng.below(self.max_threads - self.min_threads + 1);
        let mut threads = Vec::new();
        let mut before = Vec::new();
        for t in 0..n as usize {
            let k = 1 + rng.below(self.max_stmts);
            let mut body: Vec<CStmt> = (0..k).map(|_| self.stmt(&mut rng, 2)).collect();
            if !body.iter().any(CStmt::has_goal) && rng.chance(60) {
                body.push(self.goal(&mut rng));
            }
            threads.push((t, body));
            before.push(if rng.chance(20) {
                vec![self.simple(&mut rng)]
            } else {
                Vec::new()
            });
        }
        let joins: Vec<usize> = if rng.chance(40) {
            (0..n as usize).filter(|_| rng.chance(70)).collect()
        } else {
            Vec::new()
        };
        let mut after = Vec::new();
        if !joins.is_empty() {
            after.push(CStmt::Assert(vec![
                self.global_atom(&mut rng),
                self.global_atom(&mut rng),
            ]));
        }
        CProg {
            threads,
            before,
            joins,
            after,
            header: format!("program {seed} of fuzz-diff's C generator"),
        }
    }

    fn value(rng: &mut Rng) -> i64 {
        1 + rng.below(2) as i64
    }

    fn reg(rng: &mut Rng) -> usize {
        rng.below(CREGS as u64) as usize
    }

    fn val(rng: &mut Rng) -> Val {
        if rng.chance(25) {
            Val {
                reg: Some(Self::reg(rng)),
                add: rng.below(2) as i64,
            }
        } else {
            Val {
                reg: None,
                add: Self::value(rng),
            }
        }
    }

    fn place(rng: &mut Rng) -> Place {
        match rng.below(10) {
            0..=4 => Place::Global(rng.below(2) as usize),
            5 | 6 => Place::Elem(rng.below(2) as usize),
            7 => Place::ElemAt(Self::reg(rng)),
            _ => Place::Deref,
        }
    }

    fn atom(&self, rng: &mut Rng) -> Atom {
        Atom {
            reg: Some(Self::reg(rng)),
            global: 0,
            op: rng.pick::<&str>(&["==", "==", "!=", "<"]),
            value: rng.below(3) as i64,
        }
    }

    fn global_atom(&self, rng: &mut Rng) -> Atom {
        Atom {
            reg: None,
            global: rng.below(2) as usize,
            op: rng.pick::<&str>(&["==", "!="]),
            value: rng.below(3) as i64,
        }
    }

    fn cond(&self, rng: &mut Rng) -> Cond {
        let mut c = vec![self.atom(rng)];
        if rng.chance(40) {
            c.push(self.atom(rng));
        }
        c
    }

    fn goal(&self, rng: &mut Rng) -> CStmt {
        let mut c = self.cond(rng);
        if rng.chance(50) {
            // An assertion fails when its condition is false: `!=` keeps
            // the failing case as rare as a `reach_error` under `==`.
            for a in &mut c {
                a.op = if a.op == "==" { "!=" } else { a.op };
            }
            CStmt::Assert(c)
        } else {
            CStmt::Reach(c)
        }
    }

    /// A load, a store or a pointer update.
    fn simple(&self, rng: &mut Rng) -> CStmt {
        match rng.below(10) {
            0..=3 => CStmt::Load(Self::reg(rng), Self::place(rng)),
            4..=8 => CStmt::Store(Self::place(rng), Self::val(rng)),
            _ => CStmt::Point(rng.below(2) as usize),
        }
    }

    fn section(rng: &mut Rng) -> Vec<SectionAccess> {
        let n = 1 + rng.below(3);
        (0..n)
            .map(|_| {
                let g = rng.below(2) as usize;
                if rng.chance(45) {
                    SectionAccess::Load(g)
                } else {
                    let add = rng.below(3) as i64;
                    let reg = rng.chance(50).then_some(0);
                    SectionAccess::Store(g, Val { reg, add })
                }
            })
            .collect()
    }

    fn atomic_op(rng: &mut Rng) -> AtomicOp {
        let r = Self::reg(rng);
        let v = Self::value(rng);
        let order = |rng: &mut Rng, allowed: &[&'static str]| *rng.pick(allowed);
        match rng.below(10) {
            0 => AtomicOp::Load(r, order(rng, &["relaxed", "acquire", "consume", "seq_cst"])),
            1 => AtomicOp::Store(v, order(rng, &["relaxed", "release", "seq_cst"])),
            2 => AtomicOp::FetchAdd(r, v, order(rng, ORDERS)),
            3 => AtomicOp::Exchange(r, v, order(rng, ORDERS)),
            4 => AtomicOp::Cmpxchg(r, rng.below(3) as i64, v, order(rng, ORDERS)),
            5 => AtomicOp::Fence(order(rng, ORDERS)),
            6 => AtomicOp::Assign(v),
            7 => AtomicOp::Read(r),
            8 => AtomicOp::SyncAdd(r, rng.below(2) as usize, v),
            _ => AtomicOp::SyncCas(r, rng.below(2) as usize, rng.below(3) as i64, v),
        }
    }

    fn stmt(&self, rng: &mut Rng, depth: u32) -> CStmt {
        if rng.chance(self.goals) {
            return self.goal(rng);
        }
        if rng.chance(self.atomics) {
            return CStmt::Atomic(Self::atomic_op(rng));
        }
        if rng.chance(8) {
            let lo = rng.below(2) as i64;
            return CStmt::Nondet(Self::reg(rng), lo, lo + rng.below(3) as i64);
        }
        if depth > 0 && rng.chance(self.compound) {
            let block = |rng: &mut Rng, g: &CGen| -> Vec<CStmt> {
                (0..1 + rng.below(2))
                    .map(|_| g.stmt(rng, depth - 1))
                    .collect()
            };
            return match rng.below(7) {
                0 | 1 => {
                    let t = block(rng, self);
                    let e = if rng.chance(50) {
                        block(rng, self)
                    } else {
                        Vec::new()
                    };
                    CStmt::If(self.cond(rng), t, e)
                }
                2 => CStmt::For(1 + rng.below(2) as u32, block(rng, self)),
                3 => CStmt::While(rng.below(2) as usize, rng.below(3) as i64, block(rng, self)),
                4 => CStmt::AtomicFn(Self::section(rng)),
                5 => CStmt::Region(Self::section(rng)),
                _ => CStmt::Locked(block(rng, self)),
            };
        }
        self.simple(rng)
    }
}

impl Place {
    fn render(&self) -> String {
        match self {
            Place::Global(g) => format!("g{g}"),
            Place::Elem(k) => format!("arr[{k}]"),
            Place::ElemAt(r) => format!("arr[r{r} & 1]"),
            Place::Deref => "*ptr".into(),
        }
    }
}

impl Val {
    fn render(&self, reg: &str) -> String {
        match self.reg {
            Some(r) if reg.is_empty() => format!("r{r} + {}", self.add),
            Some(_) => format!("{reg} + {}", self.add),
            None => self.add.to_string(),
        }
    }
}

fn cond_text(c: &Cond) -> String {
    let atoms: Vec<String> = c
        .iter()
        .map(|a| match a.reg {
            Some(r) => format!("r{r} {} {}", a.op, a.value),
            None => format!("g{} {} {}", a.global, a.op, a.value),
        })
        .collect();
    atoms.join(" && ")
}

fn section_text(xs: &[SectionAccess]) -> String {
    let mut s = String::from("int t = 0;");
    for x in xs {
        match x {
            SectionAccess::Load(g) => {
                let _ = write!(s, " t = g{g};");
            }
            SectionAccess::Store(g, v) => {
                let _ = write!(s, " g{g} = {};", v.render("t"));
            }
        }
    }
    s
}

impl AtomicOp {
    fn render(&self, cmpxchg: &mut usize) -> String {
        let mo = |o: &str| format!("memory_order_{o}");
        match *self {
            AtomicOp::Load(r, o) => format!("r{r} = atomic_load_explicit(&c, {});", mo(o)),
            AtomicOp::Store(v, o) => format!("atomic_store_explicit(&c, {v}, {});", mo(o)),
            AtomicOp::FetchAdd(r, v, o) => {
                format!("r{r} = atomic_fetch_add_explicit(&c, {v}, {});", mo(o))
            }
            AtomicOp::Exchange(r, v, o) => {
                format!("r{r} = atomic_exchange_explicit(&c, {v}, {});", mo(o))
            }
            AtomicOp::Cmpxchg(r, old, new, o) => {
                let e = *cmpxchg;
                *cmpxchg += 1;
                format!(
                    "int e{e} = {old}; r{r} = atomic_compare_exchange_strong_explicit(&c, &e{e}, {new}, {}, memory_order_relaxed);",
                    mo(o)
                )
            }
            AtomicOp::Fence(o) => format!("atomic_thread_fence({});", mo(o)),
            AtomicOp::Assign(v) => format!("c = {v};"),
            AtomicOp::Read(r) => format!("r{r} = c;"),
            AtomicOp::SyncAdd(r, g, v) => format!("r{r} = __sync_fetch_and_add(&g{g}, {v});"),
            AtomicOp::SyncCas(r, g, old, new) => {
                format!("r{r} = __sync_val_compare_and_swap(&g{g}, {old}, {new});")
            }
        }
    }
}

/// What rendering numbers across a program: the atomic functions (their
/// definitions, printed before the threads) and the compare-exchange
/// locals.
#[derive(Default)]
struct Names {
    functions: Vec<String>,
    cmpxchg: usize,
}

impl CStmt {
    fn render(&self, out: &mut String, indent: usize, depth: usize, names: &mut Names) {
        let pad = "  ".repeat(indent);
        let block = |out: &mut String, b: &[CStmt], names: &mut Names| {
            for s in b {
                s.render(out, indent + 1, depth + 1, names);
            }
        };
        match self {
            CStmt::Load(r, p) => {
                let _ = writeln!(out, "{pad}r{r} = {};", p.render());
            }
            CStmt::Store(p, v) => {
                let _ = writeln!(out, "{pad}{} = {};", p.render(), v.render(""));
            }
            CStmt::Point(g) => {
                let _ = writeln!(out, "{pad}ptr = &g{g};");
            }
            CStmt::If(c, t, e) => {
                let _ = writeln!(out, "{pad}if ({}) {{", cond_text(c));
                block(out, t, names);
                if e.is_empty() {
                    let _ = writeln!(out, "{pad}}}");
                } else {
                    let _ = writeln!(out, "{pad}}} else {{");
                    block(out, e, names);
                    let _ = writeln!(out, "{pad}}}");
                }
            }
            CStmt::For(n, b) => {
                let _ = writeln!(
                    out,
                    "{pad}for (int i{depth} = 0; i{depth} < {n}; i{depth}++) {{"
                );
                block(out, b, names);
                let _ = writeln!(out, "{pad}}}");
            }
            CStmt::While(g, k, b) => {
                let _ = writeln!(out, "{pad}int w{depth} = 0;");
                let _ = writeln!(out, "{pad}while (g{g} != {k} && w{depth} < 2) {{");
                block(out, b, names);
                let _ = writeln!(out, "{pad}  w{depth}++;");
                let _ = writeln!(out, "{pad}}}");
            }
            CStmt::AtomicFn(xs) => {
                let n = names.functions.len();
                names.functions.push(format!(
                    "void __VERIFIER_atomic_a{n}(void) {{ {} }}",
                    section_text(xs)
                ));
                let _ = writeln!(out, "{pad}__VERIFIER_atomic_a{n}();");
            }
            CStmt::Region(xs) => {
                let _ = writeln!(
                    out,
                    "{pad}__VERIFIER_atomic_begin(); {{ {} }} __VERIFIER_atomic_end();",
                    section_text(xs)
                );
            }
            CStmt::Locked(b) => {
                let _ = writeln!(out, "{pad}pthread_mutex_lock(&m);");
                block(out, b, names);
                let _ = writeln!(out, "{pad}pthread_mutex_unlock(&m);");
            }
            CStmt::Atomic(op) => {
                let _ = writeln!(out, "{pad}{{ {} }}", op.render(&mut names.cmpxchg));
            }
            CStmt::Nondet(r, lo, hi) => {
                let _ = writeln!(
                    out,
                    "{pad}r{r} = __VERIFIER_nondet_int(); __VERIFIER_assume(r{r} >= {lo} && r{r} <= {hi});"
                );
            }
            CStmt::Assert(c) => {
                let _ = writeln!(out, "{pad}assert({});", cond_text(c));
            }
            CStmt::Reach(c) => {
                let _ = writeln!(out, "{pad}if ({}) reach_error();", cond_text(c));
            }
        }
    }

    fn has_goal(&self) -> bool {
        match self {
            CStmt::Assert(_) | CStmt::Reach(_) => true,
            CStmt::If(_, t, e) => t.iter().chain(e).any(CStmt::has_goal),
            CStmt::For(_, b) | CStmt::While(_, _, b) | CStmt::Locked(b) => {
                b.iter().any(CStmt::has_goal)
            }
            _ => false,
        }
    }

    /// Statements in this statement (itself included).
    pub fn size(&self) -> usize {
        1 + match self {
            CStmt::For(_, b) | CStmt::While(_, _, b) | CStmt::Locked(b) => {
                b.iter().map(CStmt::size).sum()
            }
            CStmt::If(_, t, e) => t.iter().chain(e).map(CStmt::size).sum(),
            _ => 0,
        }
    }
}

/// The declarations every generated program starts with.
const PRELUDE: &str = "#include <pthread.h>
#include <stdatomic.h>
#include <assert.h>
extern int __VERIFIER_nondet_int(void);
extern void __VERIFIER_assume(int);
extern void __VERIFIER_atomic_begin(void);
extern void __VERIFIER_atomic_end(void);
void reach_error(void);

int g0, g1;
int arr[2];
int *ptr = &g0;
atomic_int c;
pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
";

impl CProg {
    /// The program as C (docs/c.md's subset).
    pub fn render(&self) -> String {
        let mut names = Names::default();
        let mut bodies = String::new();
        let regs = "  int r0 = 0, r1 = 0, r2 = 0;\n";
        for (t, body) in &self.threads {
            let _ = writeln!(bodies, "\nvoid *t{t}(void *arg) {{");
            bodies.push_str(regs);
            for s in body {
                s.render(&mut bodies, 1, 0, &mut names);
            }
            bodies.push_str("  return 0;\n}\n");
        }
        let _ = writeln!(bodies, "\nint main(void) {{");
        bodies.push_str(regs);
        let handles: Vec<String> = self.threads.iter().map(|t| format!("h{}", t.0)).collect();
        if !handles.is_empty() {
            let _ = writeln!(bodies, "  pthread_t {};", handles.join(", "));
        }
        for ((t, _), pre) in self.threads.iter().zip(&self.before) {
            for s in pre {
                s.render(&mut bodies, 1, 0, &mut names);
            }
            let _ = writeln!(bodies, "  pthread_create(&h{t}, 0, t{t}, 0);");
        }
        for j in &self.joins {
            if self.threads.iter().any(|t| t.0 == *j) {
                let _ = writeln!(bodies, "  pthread_join(h{j}, 0);");
            }
        }
        for s in &self.after {
            s.render(&mut bodies, 1, 0, &mut names);
        }
        bodies.push_str("  return 0;\n}\n");
        let mut s = format!("// {}\n{PRELUDE}", self.header);
        for f in &names.functions {
            let _ = writeln!(s, "{f}");
        }
        s.push_str(&bodies);
        s
    }

    /// Statements in all threads and in `main` (nested ones included).
    pub fn size(&self) -> usize {
        let list = |b: &[CStmt]| b.iter().map(CStmt::size).sum::<usize>();
        self.threads.iter().map(|t| list(&t.1)).sum::<usize>()
            + self.before.iter().map(|b| list(b)).sum::<usize>()
            + list(&self.after)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_gives_one_c_program() {
        let g = CGen::default();
        assert_eq!(g.program(7).render(), g.program(7).render());
        assert_ne!(g.program(7).render(), g.program(8).render());
    }
}
