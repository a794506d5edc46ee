//! Seeded random programs for differential tests: 2–4 threads over a few
//! addresses and values, with loops, fences and read-modify-writes, in
//! Trencher's text format (so every engine that reads programs reads
//! them, through `bmc_rmm::frontend::trencher`). The same seed gives the
//! same program on every machine (a fixed SplitMix64 generator, no
//! dependency).

/// SplitMix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number
/// generators", OOPSLA 2014).
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
}

/// The shape of the generated programs.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    /// Threads: `min_threads..=max_threads`.
    pub min_threads: u64,
    /// See `min_threads`.
    pub max_threads: u64,
    /// Instructions per thread (before loops): `1..=max_instrs`.
    pub max_instrs: u64,
    /// Addresses `0..addrs`.
    pub addrs: u64,
    /// Values written: `1..=values` (memory starts at 0).
    pub values: u64,
    /// Percent chance of a backward edge (a loop) per thread.
    pub loops: u64,
    /// Percent chance of an `mfence` per instruction.
    pub fences: u64,
    /// Percent chance of a read-modify-write (`lock; read; write;
    /// unlock`) per instruction.
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

/// The program of `seed` with shape `shape`, as Trencher text.
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

#[cfg(test)]
mod tests {
    #[test]
    fn a_seed_gives_one_program() {
        let sh = super::Shape::default();
        assert_eq!(
            super::trencher_program(7, &sh),
            super::trencher_program(7, &sh)
        );
        assert_ne!(
            super::trencher_program(7, &sh),
            super::trencher_program(8, &sh)
        );
    }
}
