//! The fence menu of each built-in model: which fence kinds the synthesis
//! may insert, which pairs of accesses (read/write before read/write) each
//! kind orders, which pairs the model can leave unordered (only those need
//! a fence), the default cost of each kind, and the kinds' names in cost
//! files.
//!
//! Sources: x86-TSO `mfence` (thesis 003 §2.4.2); SPARC `membar` masks
//! (thesis ch. 5, SPARC V9 manual); Power `sync` / `lwsync` (thesis §4.1,
//! Herding cats §6); Arm `DMB SY` / `DMB LD` / `DMB ST` (Arm ARM B2.3.6,
//! Barrier-ordered-before); RISC-V `fence pred,succ` (unprivileged ISA,
//! RVWMO rule 4). The pair each kind orders is what the model files in
//! `encodings/` give it.

use crate::program::{Fence, MembarMask};

/// Read→read (`MembarMask::LL`).
pub const RR: u8 = MembarMask::LL;
/// Read→write.
pub const RW: u8 = MembarMask::LS;
/// Write→read.
pub const WR: u8 = MembarMask::SL;
/// Write→write.
pub const WW: u8 = MembarMask::SS;
/// Every pair.
pub const ALL: u8 = RR | RW | WR | WW;

/// The pair bit of an access pair (`true` = write).
pub fn pair(first_is_write: bool, second_is_write: bool) -> u8 {
    match (first_is_write, second_is_write) {
        (false, false) => RR,
        (false, true) => RW,
        (true, false) => WR,
        (true, true) => WW,
    }
}

/// One fence kind of a menu.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kind {
    /// The fence inserted.
    pub fence: Fence,
    /// Its name in cost files and answers (one word): `mfence`, `sync`,
    /// `lwsync`, `#StoreLoad`, `dmb.sy`, `dmb.ld`, `fence.rw.rw`, …
    pub name: &'static str,
    /// The access pairs it orders (bits [`RR`], [`RW`], [`WR`], [`WW`]).
    pub orders: u8,
    /// Default cost (cost units; `--cost` overrides).
    pub cost: u64,
}

/// The fence kinds of one model.
#[derive(Clone, Debug)]
pub struct Menu {
    /// The built-in model's name (`tso`, `pso`, `rmo`, `power`,
    /// `aarch64`, `riscv`).
    pub model: &'static str,
    /// The kinds, cheapest first.
    pub kinds: Vec<Kind>,
    /// The pairs the model may reorder: a po edge of a cycle between
    /// other pairs gets no candidate (TSO: only write→read; PSO:
    /// write→read and write→write; the others: every pair, because
    /// dependencies and cumulativity make any pair matter).
    pub relaxed: u8,
}

impl Menu {
    /// Kind `k` orders at least every pair kind `j` orders (a stronger or
    /// equal fence at the same point makes `j` useless there).
    pub fn dominates(&self, k: usize, j: usize) -> bool {
        let (a, b) = (self.kinds[k].orders, self.kinds[j].orders);
        a & b == b && same_family(self.kinds[k].fence, self.kinds[j].fence)
    }

    /// The kind named `name` (cost-file spelling).
    pub fn find(&self, name: &str) -> Option<usize> {
        self.kinds.iter().position(|k| k.name == name)
    }

    /// The names of the kinds, for messages.
    pub fn names(&self) -> String {
        let n: Vec<&str> = self.kinds.iter().map(|k| k.name).collect();
        n.join(", ")
    }
}

/// Masks merge into one instruction (SPARC, RISC-V); the dominance of
/// two different mask bits is never claimed across families.
fn same_family(a: Fence, b: Fence) -> bool {
    std::mem::discriminant(&a) == std::mem::discriminant(&b)
        || matches!(
            (a, b),
            (Fence::Sync, Fence::LwSync)
                | (Fence::Dmb, Fence::DmbLd | Fence::DmbSt)
                | (Fence::LwSync, Fence::Sync)
                | (Fence::DmbLd | Fence::DmbSt, Fence::Dmb)
        )
}

/// Default cost of a full fence where the model also has lighter ones.
pub const FULL_COST: u64 = 2;

/// The menu of built-in model `model` (a name [`crate::cat::builtin_name`]
/// returns); `None` for models without one (`sc`: nothing to fence;
/// `pgas`).
pub fn menu(model: &str) -> Option<Menu> {
    let k = |fence, name, orders, cost| Kind {
        fence,
        name,
        orders,
        cost,
    };
    let membar = |bit| Fence::Membar(MembarMask(bit));
    let sparc = || {
        vec![
            k(membar(RR), "#LoadLoad", RR, 1),
            k(membar(RW), "#LoadStore", RW, 1),
            k(membar(WR), "#StoreLoad", WR, 1),
            k(membar(WW), "#StoreStore", WW, 1),
        ]
    };
    let rv = |bit| Fence::RvFence(MembarMask(bit));
    let (model, kinds, relaxed) = match model {
        "tso" => ("tso", vec![k(Fence::MFence, "mfence", ALL, 1)], WR),
        "pso" => ("pso", sparc(), WR | WW),
        "rmo" => ("rmo", sparc(), ALL),
        "power" => (
            "power",
            vec![
                k(Fence::LwSync, "lwsync", RR | RW | WW, 1),
                k(Fence::Sync, "sync", ALL, FULL_COST),
            ],
            ALL,
        ),
        "aarch64" => (
            "aarch64",
            vec![
                k(Fence::DmbLd, "dmb.ld", RR | RW, 1),
                k(Fence::DmbSt, "dmb.st", WW, 1),
                k(Fence::Dmb, "dmb.sy", ALL, FULL_COST),
            ],
            ALL,
        ),
        "riscv" => (
            "riscv",
            vec![
                k(rv(RR), "fence.r.r", RR, 1),
                k(rv(RW), "fence.r.w", RW, 1),
                k(rv(WR), "fence.w.r", WR, 1),
                k(rv(WW), "fence.w.w", WW, 1),
                k(rv(ALL), "fence.rw.rw", ALL, FULL_COST),
            ],
            ALL,
        ),
        _ => return None,
    };
    Some(Menu {
        model,
        kinds,
        relaxed,
    })
}

/// Merges the fences placed at one program point into the instructions
/// inserted there: SPARC masks into one `membar`, RISC-V masks into one
/// `fence` (when the union is a `pred × succ` product or `fence.tso`,
/// else the widest needed), every other kind kept; a fence dominated by
/// another one at the point is dropped.
pub fn merge_at_point(fences: &[Fence]) -> Vec<Fence> {
    let mut membar = 0u8;
    let mut rvm = 0u8;
    let mut out: Vec<Fence> = Vec::new();
    for &f in fences {
        match f {
            Fence::Membar(m) => membar |= m.0,
            Fence::RvFence(m) => rvm |= m.0,
            f if !out.contains(&f) => out.push(f),
            _ => {}
        }
    }
    if out.contains(&Fence::Sync) {
        out.retain(|f| *f != Fence::LwSync);
    }
    if out.contains(&Fence::Dmb) {
        out.retain(|f| !matches!(f, Fence::DmbLd | Fence::DmbSt));
    }
    if membar != 0 {
        out.push(Fence::Membar(MembarMask(membar)));
    }
    if rvm != 0 {
        let m = MembarMask(rvm);
        let m = if m.rv_text().is_some() {
            m
        } else {
            // The smallest product pred × succ covering the union.
            let pred = (if rvm & (RR | RW) != 0 { 1 } else { 0 })
                | (if rvm & (WR | WW) != 0 { 2 } else { 0 });
            let succ = (if rvm & (RR | WR) != 0 { 1 } else { 0 })
                | (if rvm & (RW | WW) != 0 { 2 } else { 0 });
            MembarMask::rv(pred, succ)
        };
        out.push(Fence::RvFence(m));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn menus_and_dominance() {
        let p = menu("power").unwrap();
        let (lw, s) = (p.find("lwsync").unwrap(), p.find("sync").unwrap());
        assert!(p.dominates(s, lw));
        assert!(!p.dominates(lw, s));
        assert_eq!(p.kinds[lw].orders & WR, 0);
        let r = menu("rmo").unwrap();
        let (ll, sl) = (r.find("#LoadLoad").unwrap(), r.find("#StoreLoad").unwrap());
        assert!(!r.dominates(ll, sl) && !r.dominates(sl, ll));
        assert!(menu("sc").is_none());
        assert_eq!(menu("tso").unwrap().relaxed, WR);
    }

    #[test]
    fn merging_masks() {
        let m = merge_at_point(&[Fence::Membar(MembarMask(WR)), Fence::Membar(MembarMask(WW))]);
        assert_eq!(m, vec![Fence::Membar(MembarMask(WR | WW))]);
        // r→r and w→w: no product; widened to rw,rw.
        let m = merge_at_point(&[
            Fence::RvFence(MembarMask(RR)),
            Fence::RvFence(MembarMask(WW)),
        ]);
        assert_eq!(m, vec![Fence::RvFence(MembarMask(ALL))]);
        assert_eq!(
            merge_at_point(&[Fence::LwSync, Fence::Sync]),
            vec![Fence::Sync]
        );
    }
}
