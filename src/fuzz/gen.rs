//! Seeded random programs for differential testing: a fixed SplitMix64
//! generator ([`Rng`], no dependency, the same numbers on every machine),
//! native programs ([`Gen`]: 2–4 threads over a few shared variables with
//! loops, branches, read-modify-writes (`cas`, `xchg`, fetch-and-add as an
//! `atomic` step), atomic sections over several variables, locks, fences of
//! every model, assertions and a final-state goal; under `pgas` SPMD
//! programs with remote operations and barriers) as a small syntax tree
//! ([`Prog`]) that the shrinker edits and [`Prog::render`] prints in the
//! native language (docs/language.md), and the same kind of program in
//! Trencher's text format ([`trencher_program`]) for the engines' tests.

use std::fmt::Write as _;

/// SplitMix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number
/// generators", OOPSLA 2014).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// The generator for `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    /// One element of `xs` (not empty).
    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len() as u64) as usize]
    }
}

/// The shape of the generated programs (both formats).
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    /// Threads: `min_threads..=max_threads`.
    pub min_threads: u64,
    /// See `min_threads`.
    pub max_threads: u64,
    /// Statements per thread (top level, before loops): `1..=max_instrs`.
    pub max_instrs: u64,
    /// Shared variables (addresses `0..addrs`).
    pub addrs: u64,
    /// Values written: `1..=values` (memory starts at 0).
    pub values: u64,
    /// Percent chance of a loop per thread (Trencher) or per statement
    /// (native).
    pub loops: u64,
    /// Percent chance of a fence per statement.
    pub fences: u64,
    /// Percent chance of a read-modify-write per statement.
    pub rmws: u64,
}

impl Default for Shape {
    /// 2–4 threads of up to 4 instructions over 3 addresses and values 1–2,
    /// loops 30 %, fences 10 %, read-modify-writes 8 %.
    fn default() -> Self {
        Shape {
            min_threads: 2,
            max_threads: 4,
            max_instrs: 4,
            addrs: 3,
            values: 2,
            loops: 30,
            fences: 10,
            rmws: 8,
        }
    }
}

/// The program of `seed` with shape `shape`, as Trencher text: per thread
/// writes, reads, `mfence` and exchanges (`lock; read; write; unlock`),
/// and a spin back edge on the last value read.
pub fn trencher_program(seed: u64, shape: &Shape) -> String {
    let mut rng = Rng::new(seed);
    let threads = shape.min_threads + rng.below(shape.max_threads - shape.min_threads + 1);
    let mut s = format!("# random program, seed {seed}\n");
    for t in 0..threads {
        s.push_str(&format!("thread t{t}\ninitial q0\n"));
        let n = 1 + rng.below(shape.max_instrs);
        let mut q = 0;
        let mut read_reg = None;
        let tr = |s: &mut String, from: u64, to: u64, what: String| {
            s.push_str(&format!("transition q{from} q{to} {what}\n"));
        };
        for _ in 0..n {
            let a = rng.below(shape.addrs);
            let v = 1 + rng.below(shape.values);
            if rng.chance(shape.fences) {
                tr(&mut s, q, q + 1, "mfence".into());
                q += 1;
            }
            if rng.chance(shape.rmws) {
                // An atomic exchange: r := mem[a]; mem[a] := v.
                tr(&mut s, q, q + 1, "lock".into());
                tr(&mut s, q + 1, q + 2, format!("read x {a}"));
                tr(&mut s, q + 2, q + 3, format!("write {v} {a}"));
                tr(&mut s, q + 3, q + 4, "unlock".into());
                q += 4;
                read_reg = Some("x");
            } else if rng.chance(50) {
                tr(&mut s, q, q + 1, format!("write {v} {a}"));
                q += 1;
            } else {
                tr(&mut s, q, q + 1, format!("read r {a}"));
                q += 1;
                read_reg = Some("r");
            }
        }
        if let Some(r) = read_reg.filter(|_| rng.chance(shape.loops)) {
            // Spin: go back while the last value read is 0, go on else.
            let back = rng.below(q);
            tr(&mut s, q, back, format!("check == {r} 0"));
            tr(&mut s, q, q + 1, format!("check != {r} 0"));
        }
        s.push_str("end\n");
    }
    s
}

/// Registers per thread of a native program (`r0`..).
pub const REGS: usize = 3;

/// A comparison of a register with a constant: `rREG == VALUE` (or `!=`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cond {
    /// The register.
    pub reg: usize,
    /// `==` when true, `!=` otherwise.
    pub eq: bool,
    /// The constant.
    pub value: i64,
}

/// One command inside an `atomic { … }` section.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Access {
    /// `rREG = VAR;`
    Load {
        /// Register.
        reg: usize,
        /// Shared variable.
        var: usize,
    },
    /// `VAR = VALUE;` (a constant) or `VAR = rREG + ADD;` (`from`).
    Store {
        /// Shared variable.
        var: usize,
        /// The value written: a constant, or a register plus a constant.
        value: i64,
        /// The register added to `value`, if any.
        from: Option<usize>,
    },
}

/// A statement of a native thread.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stmt {
    /// A store, a load or an atomic section's command on its own.
    Access(Access),
    /// A fence, as its native text (`mfence`, `lwsync`, `dmb ld`, …).
    Fence(&'static str),
    /// `rREG = cas(VAR, OLD, NEW);`
    Cas {
        /// Register.
        reg: usize,
        /// Shared variable.
        var: usize,
        /// Expected value.
        old: i64,
        /// New value.
        new: i64,
    },
    /// `rREG = xchg(VAR, VALUE);`
    Xchg {
        /// Register.
        reg: usize,
        /// Shared variable.
        var: usize,
        /// Value written.
        value: i64,
    },
    /// `atomic { … }`: one atomic step (a fetch-and-add, or accesses to
    /// several variables).
    Atomic(Vec<Access>),
    /// `lock;` … `unlock;` around a body.
    Locked(Vec<Stmt>),
    /// `if (COND) { … } else { … }`.
    If(Cond, Vec<Stmt>, Vec<Stmt>),
    /// `while (COND) { … }` (the body ends with a load of the register).
    While(Cond, Vec<Stmt>),
    /// `assert(COND);`
    Assert(Cond),
    /// A PGAS remote operation (thesis 003 §8.1.1): `read(&xLOCAL, RANK,
    /// &xREMOTE, QUEUE);` (local cell := the remote rank's cell) or
    /// `write(…)` (the remote rank's cell := the local cell).
    Remote {
        /// `write` when true, `read` otherwise.
        write: bool,
        /// The local cell (a shared variable of the thread's own rank).
        local: usize,
        /// The remote rank.
        rank: Rank,
        /// The remote cell.
        remote: usize,
        /// The queue (0 or 1).
        queue: u8,
    },
    /// `barrier;` (PGAS).
    Barrier,
    /// `rREG = rank;` (PGAS: the node's id, so later branches depend on
    /// it).
    RankOf(usize),
}

/// The remote rank of a PGAS operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rank {
    /// A constant rank in `1..=nodes`.
    Const(u32),
    /// `rank % nodes + 1`: the next rank, cyclically.
    Next,
}

/// One conjunct of the final-state goal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Atom {
    /// `tTHREAD.rREG == VALUE`
    Reg {
        /// Thread (index in [`Prog::threads`] at generation).
        thread: usize,
        /// Register.
        reg: usize,
        /// Value.
        value: i64,
    },
    /// `VAR == VALUE` (final memory).
    Mem {
        /// Shared variable.
        var: usize,
        /// Value.
        value: i64,
    },
}

/// A generated native program: threads named `t0`.. by their index at
/// generation (the name is kept when the shrinker drops other threads),
/// shared variables `x0`.., a final-state goal over registers and
/// memory, optionally none (`goal final;`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Prog {
    /// PGAS programs: the number of nodes (`nodes N;`, each runs every
    /// thread); `None` for shared-memory programs.
    pub nodes: Option<u32>,
    /// Shared variables.
    pub vars: usize,
    /// Threads: (name index, body).
    pub threads: Vec<(usize, Vec<Stmt>)>,
    /// The goal's conjuncts.
    pub goal: Vec<Atom>,
    /// A header comment (seed, index).
    pub header: String,
}

/// Fences of every model, by the models whose own fences they are; the
/// generator takes the program's model's fences more often and any
/// model's fences sometimes (each model's cat file says what a foreign
/// fence means).
pub const FENCES: &[(&str, &[&str])] = &[
    ("sc", &["mfence"]),
    ("tso", &["mfence"]),
    (
        "pso",
        &["mfence", "membar #StoreStore", "membar #StoreLoad"],
    ),
    (
        "rmo",
        &[
            "membar #LoadLoad",
            "membar #LoadStore",
            "membar #StoreLoad",
            "membar #StoreStore",
            "membar #StoreLoad | #StoreStore",
        ],
    ),
    ("power", &["sync", "lwsync", "isync", "eieio"]),
    ("aarch64", &["dmb", "dmb ld", "dmb st", "isb"]),
    (
        "riscv",
        &["fence rw,rw", "fence r,rw", "fence w,w", "fence.tso"],
    ),
];

/// The generator of native programs.
#[derive(Clone, Debug)]
pub struct Gen {
    /// The shape.
    pub shape: Shape,
    /// Percent chance of a branch per statement.
    pub branches: u64,
    /// Percent chance of an atomic section over several variables.
    pub atomics: u64,
    /// Percent chance of a `lock` … `unlock` block.
    pub locks: u64,
    /// Percent chance of an assertion.
    pub asserts: u64,
    /// PGAS programs: percent chance of a remote `read`/`write` per
    /// statement.
    pub remotes: u64,
    /// PGAS programs: percent chance of a `barrier`.
    pub barriers: u64,
}

impl Default for Gen {
    /// 2–4 threads of up to 4 statements over 2 variables and values 1–2;
    /// loops 10 %, fences 12 %, read-modify-writes 10 %, branches 10 %,
    /// atomic sections 6 %, locks 3 %, assertions 5 % per statement; for
    /// PGAS programs remote operations 30 %, barriers 10 %.
    fn default() -> Self {
        Gen {
            shape: Shape {
                min_threads: 2,
                max_threads: 4,
                max_instrs: 4,
                addrs: 2,
                values: 2,
                loops: 10,
                fences: 12,
                rmws: 10,
            },
            branches: 10,
            atomics: 6,
            locks: 3,
            asserts: 5,
            remotes: 30,
            barriers: 10,
        }
    }
}

impl Gen {
    /// The program of `seed` for `model` (whose fences come more often; any
    /// name works).
    ///
    /// Under `pgas` the program is an SPMD program (thesis 003 §8.1): 2 or
    /// 3 nodes, one thread (a quarter of the time two), with remote
    /// `read`/`write` operations on two queues, barriers and branches on
    /// the rank, and no read-modify-write, atomic section or lock (the
    /// engines that decide PGAS programs refuse them).
    pub fn program(&self, seed: u64, model: &str) -> Prog {
        let sh = &self.shape;
        let mut rng = Rng::new(seed);
        let pgas = model == "pgas";
        let (threads, nodes) = if pgas {
            let t = if rng.chance(25) { 2 } else { 1 };
            (t, Some(if rng.chance(70) { 2 } else { 3 }))
        } else {
            (
                sh.min_threads + rng.below(sh.max_threads - sh.min_threads + 1),
                None,
            )
        };
        let vars = sh.addrs.max(1) as usize;
        let mut ts = Vec::new();
        for t in 0..threads as usize {
            let n = 1 + rng.below(sh.max_instrs);
            let mut body: Vec<Stmt> = Vec::new();
            if pgas && rng.chance(40) {
                // The rank first, so that branches may depend on it.
                body.push(Stmt::RankOf(rng.below(REGS as u64) as usize));
            }
            body.extend((0..n).map(|_| self.stmt(&mut rng, model, 2)));
            ts.push((t, body));
        }
        let mut goal = Vec::new();
        for _ in 0..rng.below(4) {
            let value = rng.below(sh.values + 1) as i64;
            if rng.chance(70) {
                goal.push(Atom::Reg {
                    thread: rng.below(threads) as usize,
                    reg: rng.below(REGS as u64) as usize,
                    value,
                });
            } else {
                goal.push(Atom::Mem {
                    var: rng.below(vars as u64) as usize,
                    value,
                });
            }
        }
        Prog {
            nodes,
            vars,
            threads: ts,
            goal,
            header: format!("program {seed} of fuzz-diff's generator, for {model}"),
        }
    }

    /// A PGAS statement (a remote operation, a barrier, the rank into a
    /// register), or `None` to draw an ordinary one.
    fn pgas_stmt(&self, rng: &mut Rng) -> Option<Stmt> {
        let vars = self.shape.addrs;
        if rng.chance(self.remotes) {
            return Some(Stmt::Remote {
                write: rng.chance(50),
                local: rng.below(vars) as usize,
                rank: match rng.below(3) {
                    0 => Rank::Next,
                    k => Rank::Const(k as u32),
                },
                remote: rng.below(vars) as usize,
                queue: rng.below(2) as u8,
            });
        }
        if rng.chance(self.barriers) {
            return Some(Stmt::Barrier);
        }
        if rng.chance(8) {
            return Some(Stmt::RankOf(rng.below(REGS as u64) as usize));
        }
        None
    }

    fn value(&self, rng: &mut Rng) -> i64 {
        1 + rng.below(self.shape.values) as i64
    }

    fn cond(&self, rng: &mut Rng) -> Cond {
        Cond {
            reg: rng.below(REGS as u64) as usize,
            eq: rng.chance(60),
            value: rng.below(self.shape.values + 1) as i64,
        }
    }

    fn access(&self, rng: &mut Rng, loads_ok: bool) -> Access {
        let var = rng.below(self.shape.addrs) as usize;
        if loads_ok && rng.chance(50) {
            Access::Load {
                reg: rng.below(REGS as u64) as usize,
                var,
            }
        } else {
            Access::Store {
                var,
                value: self.value(rng),
                from: None,
            }
        }
    }

    fn stmt(&self, rng: &mut Rng, model: &str, depth: u32) -> Stmt {
        let sh = &self.shape;
        let var = rng.below(sh.addrs) as usize;
        let reg = rng.below(REGS as u64) as usize;
        let block = |rng: &mut Rng, g: &Gen| -> Vec<Stmt> {
            (0..1 + rng.below(2))
                .map(|_| g.stmt(rng, model, depth - 1))
                .collect()
        };
        let pgas = model == "pgas";
        if pgas {
            if let Some(s) = self.pgas_stmt(rng) {
                return s;
            }
        }
        if rng.chance(sh.fences) {
            let own = FENCES.iter().find(|f| f.0 == model).map(|f| f.1);
            let kinds = match own {
                Some(k) if rng.chance(70) => k,
                _ => rng.pick(FENCES).1,
            };
            return Stmt::Fence(rng.pick::<&str>(kinds));
        }
        if !pgas && rng.chance(sh.rmws) {
            return match rng.below(3) {
                0 => Stmt::Cas {
                    reg,
                    var,
                    old: rng.below(sh.values + 1) as i64,
                    new: self.value(rng),
                },
                1 => Stmt::Xchg {
                    reg,
                    var,
                    value: self.value(rng),
                },
                _ => Stmt::Atomic(vec![
                    Access::Load { reg, var },
                    Access::Store {
                        var,
                        value: 1,
                        from: Some(reg),
                    },
                ]),
            };
        }
        if !pgas && rng.chance(self.atomics) {
            let n = 2 + rng.below(2);
            return Stmt::Atomic((0..n).map(|_| self.access(rng, true)).collect());
        }
        if rng.chance(self.asserts) {
            return Stmt::Assert(self.cond(rng));
        }
        if !pgas && depth > 0 && rng.chance(self.locks) {
            return Stmt::Locked(block(rng, self));
        }
        if depth > 0 && rng.chance(self.branches) {
            let then = block(rng, self);
            let else_ = if rng.chance(50) {
                block(rng, self)
            } else {
                Vec::new()
            };
            return Stmt::If(self.cond(rng), then, else_);
        }
        if depth > 0 && rng.chance(sh.loops) {
            // A spin loop: while the register holds the value, (maybe do
            // something and) load it again.
            let c = self.cond(rng);
            let mut body = if rng.chance(30) {
                block(rng, self)
            } else {
                Vec::new()
            };
            body.push(Stmt::Access(Access::Load { reg: c.reg, var }));
            return Stmt::While(c, body);
        }
        Stmt::Access(self.access(rng, true))
    }
}

impl Cond {
    fn render(&self) -> String {
        let op = if self.eq { "==" } else { "!=" };
        format!("r{} {op} {}", self.reg, self.value)
    }
}

impl Access {
    fn render(&self) -> String {
        match self {
            Access::Load { reg, var } => format!("r{reg} = x{var}"),
            Access::Store {
                var,
                value,
                from: None,
            } => format!("x{var} = {value}"),
            Access::Store {
                var,
                value,
                from: Some(r),
            } => format!("x{var} = r{r} + {value}"),
        }
    }
}

impl Stmt {
    fn render(&self, out: &mut String, indent: usize) {
        let pad = "  ".repeat(indent);
        let block = |out: &mut String, b: &[Stmt]| {
            for s in b {
                s.render(out, indent + 1);
            }
        };
        match self {
            Stmt::Access(a) => {
                let _ = writeln!(out, "{pad}{};", a.render());
            }
            Stmt::Fence(f) => {
                let _ = writeln!(out, "{pad}{f};");
            }
            Stmt::Cas { reg, var, old, new } => {
                let _ = writeln!(out, "{pad}r{reg} = cas(x{var}, {old}, {new});");
            }
            Stmt::Xchg { reg, var, value } => {
                let _ = writeln!(out, "{pad}r{reg} = xchg(x{var}, {value});");
            }
            Stmt::Atomic(xs) => {
                let body: Vec<String> = xs.iter().map(|a| format!("{};", a.render())).collect();
                let _ = writeln!(out, "{pad}atomic {{ {} }};", body.join(" "));
            }
            Stmt::Locked(b) => {
                let _ = writeln!(out, "{pad}lock;");
                for s in b {
                    s.render(out, indent);
                }
                let _ = writeln!(out, "{pad}unlock;");
            }
            Stmt::If(c, t, e) => {
                let _ = writeln!(out, "{pad}if ({}) {{", c.render());
                block(out, t);
                if e.is_empty() {
                    let _ = writeln!(out, "{pad}}}");
                } else {
                    let _ = writeln!(out, "{pad}}} else {{");
                    block(out, e);
                    let _ = writeln!(out, "{pad}}}");
                }
            }
            Stmt::While(c, b) => {
                let _ = writeln!(out, "{pad}while ({}) {{", c.render());
                block(out, b);
                let _ = writeln!(out, "{pad}}}");
            }
            Stmt::Assert(c) => {
                let _ = writeln!(out, "{pad}assert({});", c.render());
            }
            Stmt::Remote {
                write,
                local,
                rank,
                remote,
                queue,
            } => {
                let op = if *write { "write" } else { "read" };
                let rank = match rank {
                    Rank::Const(k) => k.to_string(),
                    Rank::Next => "rank % nodes + 1".into(),
                };
                let _ = writeln!(out, "{pad}{op}(&x{local}, {rank}, &x{remote}, {queue});");
            }
            Stmt::Barrier => {
                let _ = writeln!(out, "{pad}barrier;");
            }
            Stmt::RankOf(r) => {
                let _ = writeln!(out, "{pad}r{r} = rank;");
            }
        }
    }

    /// Statements in this statement (itself included).
    pub fn size(&self) -> usize {
        1 + match self {
            Stmt::Locked(b) | Stmt::While(_, b) => b.iter().map(Stmt::size).sum(),
            Stmt::If(_, t, e) => t.iter().chain(e).map(Stmt::size).sum(),
            _ => 0,
        }
    }
}

impl Prog {
    /// The program in the native language.
    pub fn render(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "// {}", self.header);
        if let Some(n) = self.nodes {
            let _ = writeln!(s, "nodes {n};");
        }
        let vars: Vec<String> = (0..self.vars).map(|v| format!("x{v}")).collect();
        let _ = writeln!(s, "shared {};", vars.join(", "));
        for (t, body) in &self.threads {
            let _ = writeln!(s, "\nthread t{t} {{");
            let regs: Vec<String> = (0..REGS).map(|r| format!("r{r}")).collect();
            let _ = writeln!(s, "  reg {};", regs.join(", "));
            for st in body {
                st.render(&mut s, 1);
            }
            let _ = writeln!(s, "}}");
        }
        let live: Vec<String> = self
            .goal
            .iter()
            .filter_map(|a| match a {
                Atom::Reg { thread, reg, value } => self
                    .threads
                    .iter()
                    .any(|t| t.0 == *thread)
                    .then(|| format!("t{thread}.r{reg} == {value}")),
                Atom::Mem { var, value } => Some(format!("x{var} == {value}")),
            })
            .collect();
        if live.is_empty() {
            let _ = writeln!(s, "\ngoal final;");
        } else {
            let _ = writeln!(s, "\ngoal final where {};", live.join(" && "));
        }
        s
    }

    /// Statements in all threads (nested ones included).
    pub fn size(&self) -> usize {
        self.threads
            .iter()
            .map(|t| t.1.iter().map(Stmt::size).sum::<usize>())
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_gives_one_program() {
        let sh = Shape::default();
        assert_eq!(trencher_program(7, &sh), trencher_program(7, &sh));
        assert_ne!(trencher_program(7, &sh), trencher_program(8, &sh));
        let g = Gen::default();
        assert_eq!(g.program(7, "tso"), g.program(7, "tso"));
        assert_ne!(g.program(7, "tso"), g.program(8, "tso"));
    }

    #[test]
    fn pgas_programs_are_spmd_programs_that_lower() {
        let g = Gen::default();
        let mut remote = 0;
        for seed in 0..200 {
            let p = g.program(seed, "pgas");
            assert!(matches!(p.nodes, Some(2 | 3)));
            let text = p.render();
            remote += text.contains("read(&") as usize + text.contains("write(&") as usize;
            let src = crate::diag::SourceFile::new(format!("p{seed}.rmm"), text.clone());
            let w = crate::program::Width(4);
            let parsed = crate::frontend::parse_program(&src, None, w)
                .and_then(|q| crate::program::pgas::prepare(q, None, w));
            if let Err(e) = parsed {
                panic!("seed {seed}: {e}\n{text}");
            }
        }
        assert!(remote > 100, "{remote} remote operations in 200 programs");
    }

    #[test]
    fn native_programs_parse() {
        let g = Gen::default();
        for seed in 0..300 {
            let text = g.program(seed, "power").render();
            let src = crate::diag::SourceFile::new(format!("p{seed}.rmm"), text.clone());
            if let Err(e) = crate::frontend::parse_program(&src, None, crate::program::Width(4)) {
                panic!("seed {seed}: {e}\n{text}");
            }
        }
    }
}
