//! Fixed-width two's-complement bit-vectors over [`Cnf`] literals
//! (LSB first). The operators implement exactly
//! [`BinOp::apply`](crate::program::BinOp::apply): wrap-around arithmetic,
//! signed and unsigned comparisons, signed truncating and unsigned
//! division with `x / 0 = 0` and `x % 0 = x`, shifts where an amount ≥ W
//! shifts every bit out.

use super::cnf::Cnf;
use crate::program::{BinOp, UnOp};
use varisat::Lit;

/// A bit-vector: `bits[0]` is the least significant bit.
pub type Bv = Vec<Lit>;

impl Cnf {
    /// The W-bit constant `v` (wrapped).
    pub fn bv_const(&self, v: i64, w: u32) -> Bv {
        (0..w).map(|i| self.constant((v >> i) & 1 == 1)).collect()
    }

    /// The value of `x` in the last model, sign-extended.
    pub fn bv_value(&self, x: &Bv) -> i64 {
        fold_bits(x.iter().map(|&b| self.value(b)), x.len())
    }

    /// The value of `x` (at most 128 bits: an address with its lock
    /// flag) in the last model, sign-extended; unlike [`Cnf::bv_value`]
    /// exact for the 65 bits of an address at width 64.
    pub fn bv_value_wide(&self, x: &Bv) -> i128 {
        let mut v: i128 = 0;
        for (i, &b) in x.iter().enumerate().take(128) {
            if self.value(b) {
                v |= 1i128 << i;
            }
        }
        let s = 128 - x.len().min(128) as u32;
        (v << s) >> s
    }

    /// The constant value of `x` if all its bits are constants.
    pub fn bv_as_const(&self, x: &Bv) -> Option<i64> {
        if !x.iter().all(|&b| self.is_const(b)) {
            return None;
        }
        Some(fold_bits(x.iter().map(|&b| self.is_true(b)), x.len()))
    }

    /// `x == y` as a literal.
    pub fn bv_eq(&mut self, x: &Bv, y: &Bv) -> Lit {
        let bits: Vec<Lit> = x.iter().zip(y).map(|(a, b)| self.iff(*a, *b)).collect();
        self.and_all(&bits)
    }

    /// `x != 0` as a literal.
    pub fn bv_nonzero(&mut self, x: &Bv) -> Lit {
        self.or_all(x)
    }

    /// Bitwise ite.
    pub fn bv_ite(&mut self, c: Lit, x: &Bv, y: &Bv) -> Bv {
        x.iter().zip(y).map(|(a, b)| self.ite(c, *a, *b)).collect()
    }

    /// A 0/1 bit-vector from a literal.
    pub fn bv_from_bool(&self, l: Lit, w: u32) -> Bv {
        let mut v = vec![self.ff(); w as usize];
        v[0] = l;
        v
    }

    fn full_add(&mut self, a: Lit, b: Lit, c: Lit) -> (Lit, Lit) {
        let ab = self.xor(a, b);
        let s = self.xor(ab, c);
        let t1 = self.and(a, b);
        let t2 = self.and(ab, c);
        (s, self.or(t1, t2))
    }

    /// `x + y + carry` (wrapping); returns the sum and the carry out.
    fn bv_add_carry(&mut self, x: &Bv, y: &Bv, carry: Lit) -> (Bv, Lit) {
        let mut c = carry;
        let mut out = Vec::with_capacity(x.len());
        for (a, b) in x.iter().zip(y) {
            let (s, c2) = self.full_add(*a, *b, c);
            out.push(s);
            c = c2;
        }
        (out, c)
    }

    /// `x + y` (wrapping).
    pub fn bv_add(&mut self, x: &Bv, y: &Bv) -> Bv {
        let ff = self.ff();
        self.bv_add_carry(x, y, ff).0
    }

    /// `x - y` (wrapping).
    pub fn bv_sub(&mut self, x: &Bv, y: &Bv) -> Bv {
        let ny: Bv = y.iter().map(|l| !*l).collect();
        let tt = self.tt();
        self.bv_add_carry(x, &ny, tt).0
    }

    /// `-x` (wrapping).
    pub fn bv_neg(&mut self, x: &Bv) -> Bv {
        let z = self.bv_const(0, x.len() as u32);
        self.bv_sub(&z, x)
    }

    /// `x <u y` (unsigned).
    fn bv_ult(&mut self, x: &Bv, y: &Bv) -> Lit {
        // x < y  iff  x - y borrows: carry out of x + ~y + 1 is 0.
        let ny: Bv = y.iter().map(|l| !*l).collect();
        let tt = self.tt();
        let (_, c) = self.bv_add_carry(x, &ny, tt);
        !c
    }

    /// `x <u y` (unsigned), for clocks.
    pub fn bv_ult_pub(&mut self, x: &Bv, y: &Bv) -> Lit {
        self.bv_ult(x, y)
    }

    /// `x <s y` (signed).
    pub fn bv_slt(&mut self, x: &Bv, y: &Bv) -> Lit {
        // Flip the sign bits and compare unsigned.
        let mut a = x.clone();
        let mut b = y.clone();
        let n = a.len() - 1;
        a[n] = !a[n];
        b[n] = !b[n];
        self.bv_ult(&a, &b)
    }

    /// `x * y` (wrapping, shift-and-add).
    pub fn bv_mul(&mut self, x: &Bv, y: &Bv) -> Bv {
        let w = x.len();
        let mut acc = self.bv_const(0, w as u32);
        for (i, &yi) in y.iter().enumerate() {
            if self.is_false(yi) {
                continue;
            }
            let mut shifted = vec![self.ff(); w];
            for j in i..w {
                shifted[j] = self.and(x[j - i], yi);
            }
            acc = self.bv_add(&acc, &shifted);
        }
        acc
    }

    /// Unsigned division and remainder (restoring); divisor ≠ 0 assumed
    /// by the caller.
    fn bv_udivrem(&mut self, x: &Bv, y: &Bv) -> (Bv, Bv) {
        let w = x.len();
        let mut rem = self.bv_const(0, w as u32);
        let mut q = vec![self.ff(); w];
        for i in (0..w).rev() {
            // rem = (rem << 1) | x[i], on w+1 bits to avoid overflow.
            let mut r2 = vec![x[i]];
            r2.extend_from_slice(&rem);
            let mut y2 = y.clone();
            y2.push(self.ff());
            let lt = self.bv_ult(&r2, &y2);
            let diff = self.bv_sub(&r2, &y2);
            let next = self.bv_ite(lt, &r2, &diff);
            q[i] = !lt;
            rem = next[..w].to_vec();
        }
        (q, rem)
    }

    /// `x / y` and `x % y`, signed truncating; `x / 0 = 0`, `x % 0 = x`.
    pub fn bv_sdivrem(&mut self, x: &Bv, y: &Bv) -> (Bv, Bv) {
        let n = x.len() - 1;
        let (sx, sy) = (x[n], y[n]);
        let nx = self.bv_neg(x);
        let ny = self.bv_neg(y);
        let ax = self.bv_ite(sx, &nx, x);
        let ay = self.bv_ite(sy, &ny, y);
        let (uq, ur) = self.bv_udivrem(&ax, &ay);
        let qs = self.xor(sx, sy);
        let nq = self.bv_neg(&uq);
        let q = self.bv_ite(qs, &nq, &uq);
        let nr = self.bv_neg(&ur);
        let r = self.bv_ite(sx, &nr, &ur);
        let yz = self.bv_nonzero(y);
        let zero = self.bv_const(0, x.len() as u32);
        (self.bv_ite(yz, &q, &zero), self.bv_ite(yz, &r, x))
    }

    /// `x / y` and `x % y`, unsigned; `x / 0 = 0`, `x % 0 = x`.
    fn bv_udivrem_total(&mut self, x: &Bv, y: &Bv) -> (Bv, Bv) {
        let (q, r) = self.bv_udivrem(x, y);
        let yz = self.bv_nonzero(y);
        let zero = self.bv_const(0, x.len() as u32);
        (self.bv_ite(yz, &q, &zero), self.bv_ite(yz, &r, x))
    }

    /// `x << y` (`left`), else `x >> y` with `fill` shifted in (the sign
    /// bit: arithmetic, false: logical). A barrel shifter: stage `i`
    /// shifts by 2^i when bit `i` of `y` is set; a set bit with
    /// 2^i ≥ W shifts every bit out, and so does a sum of smaller stages
    /// reaching W (each stage shifts `fill` in).
    fn bv_shift(&mut self, x: &Bv, y: &Bv, left: bool, fill: Lit) -> Bv {
        let w = x.len();
        let fills = vec![fill; w];
        let mut cur = x.clone();
        for (i, &bit) in y.iter().enumerate() {
            if i >= 63 || (1usize << i) >= w {
                cur = self.bv_ite(bit, &fills, &cur);
                continue;
            }
            let k = 1usize << i;
            let shifted: Bv = (0..w)
                .map(|j| {
                    if left {
                        if j >= k {
                            cur[j - k]
                        } else {
                            fill
                        }
                    } else if j + k < w {
                        cur[j + k]
                    } else {
                        fill
                    }
                })
                .collect();
            cur = self.bv_ite(bit, &shifted, &cur);
        }
        cur
    }

    /// Applies a binary operator (same semantics as `BinOp::apply`).
    pub fn bv_binop(&mut self, op: BinOp, x: &Bv, y: &Bv) -> Bv {
        let w = x.len() as u32;
        if let (Some(a), Some(b)) = (self.bv_as_const(x), self.bv_as_const(y)) {
            return self.bv_const(op.apply(a, b, crate::program::Width(w)), w);
        }
        let b = |c: &mut Cnf, l: Lit| c.bv_from_bool(l, w);
        match op {
            BinOp::Add => self.bv_add(x, y),
            BinOp::Sub => self.bv_sub(x, y),
            BinOp::Mul => self.bv_mul(x, y),
            BinOp::Div => self.bv_sdivrem(x, y).0,
            BinOp::Rem => self.bv_sdivrem(x, y).1,
            BinOp::BitAnd => x.iter().zip(y).map(|(a, b)| self.and(*a, *b)).collect(),
            BinOp::BitOr => x.iter().zip(y).map(|(a, b)| self.or(*a, *b)).collect(),
            BinOp::BitXor => x.iter().zip(y).map(|(a, b)| self.xor(*a, *b)).collect(),
            BinOp::Eq => {
                let l = self.bv_eq(x, y);
                b(self, l)
            }
            BinOp::Ne => {
                let l = self.bv_eq(x, y);
                b(self, !l)
            }
            BinOp::Lt => {
                let l = self.bv_slt(x, y);
                b(self, l)
            }
            BinOp::Le => {
                let l = self.bv_slt(y, x);
                b(self, !l)
            }
            BinOp::Gt => {
                let l = self.bv_slt(y, x);
                b(self, l)
            }
            BinOp::Ge => {
                let l = self.bv_slt(x, y);
                b(self, !l)
            }
            BinOp::And => {
                let p = self.bv_nonzero(x);
                let q = self.bv_nonzero(y);
                let l = self.and(p, q);
                b(self, l)
            }
            BinOp::Or => {
                let p = self.bv_nonzero(x);
                let q = self.bv_nonzero(y);
                let l = self.or(p, q);
                b(self, l)
            }
            BinOp::Ult => {
                let l = self.bv_ult(x, y);
                b(self, l)
            }
            BinOp::Ule => {
                let l = self.bv_ult(y, x);
                b(self, !l)
            }
            BinOp::Ugt => {
                let l = self.bv_ult(y, x);
                b(self, l)
            }
            BinOp::Uge => {
                let l = self.bv_ult(x, y);
                b(self, !l)
            }
            BinOp::Udiv => self.bv_udivrem_total(x, y).0,
            BinOp::Urem => self.bv_udivrem_total(x, y).1,
            BinOp::Shl => {
                let ff = self.ff();
                self.bv_shift(x, y, true, ff)
            }
            BinOp::Shr => {
                let ff = self.ff();
                self.bv_shift(x, y, false, ff)
            }
            BinOp::Sar => {
                let sign = x[x.len() - 1];
                self.bv_shift(x, y, false, sign)
            }
        }
    }

    /// Applies a unary operator.
    pub fn bv_unop(&mut self, op: UnOp, x: &Bv) -> Bv {
        match op {
            UnOp::Neg => self.bv_neg(x),
            UnOp::Not => {
                let nz = self.bv_nonzero(x);
                self.bv_from_bool(!nz, x.len() as u32)
            }
        }
    }
}

/// The integer of `len` bits (least significant first), sign-extended.
/// An address bit-vector has one bit more than the width (the lock flag,
/// `unroll::events::address`); at width 64 that 65th bit cannot be
/// sign-extended into an `i64`, and a set one gives the low 64 bits with
/// the top bit set (so a flagged address differs from the plain one).
pub(super) fn fold_bits(bits: impl Iterator<Item = bool>, len: usize) -> i64 {
    let mut v: i64 = 0;
    let mut high = false;
    for (i, b) in bits.enumerate() {
        if b {
            if i < 64 {
                v |= 1i64 << i;
            } else {
                high = true;
            }
        }
    }
    if len >= 64 {
        return if high { v | i64::MIN } else { v };
    }
    let s = 64 - len as u32;
    (v << s) >> s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::program::Width;

    /// Address vectors have one bit more than the width: at width 64 the
    /// 65th (lock) bit neither wraps the shift nor collapses addresses
    /// to their parity (x + 1 and x + 3 stayed distinct only by luck).
    #[test]
    fn values_of_65_bit_address_vectors() {
        let bits = |v: i64, extra: bool| (0..64).map(move |i| (v >> i) & 1 == 1).chain([extra]);
        for a in [16909073i64, 16909075, 0, 1, i64::MAX] {
            assert_eq!(fold_bits(bits(a, false), 65), a);
        }
        assert_ne!(fold_bits(bits(0, true), 65), 0);
        assert_eq!(fold_bits([true, true, false].into_iter(), 3), 3);
        assert_eq!(fold_bits([true, true, true].into_iter(), 3), -1);
    }

    /// Every operator on symbolic operands, fixed by assumptions to the
    /// given pairs, agrees with `BinOp::apply` at width `w`.
    fn check_ops_at(w: u32, pairs: &[(i64, i64)]) {
        let width = Width(w);
        let mut c = Cnf::new();
        let x: Bv = (0..w).map(|_| c.fresh()).collect();
        let y: Bv = (0..w).map(|_| c.fresh()).collect();
        let outs: Vec<(BinOp, Bv)> = BinOp::ALL
            .iter()
            .map(|op| (*op, c.bv_binop(*op, &x, &y)))
            .collect();
        let neg = c.bv_unop(UnOp::Neg, &x);
        let not = c.bv_unop(UnOp::Not, &x);
        for &(a, b) in pairs {
            let (a, b) = (width.wrap(a), width.wrap(b));
            let mut assume = Vec::new();
            for i in 0..w as usize {
                assume.push(if (a >> i) & 1 == 1 { x[i] } else { !x[i] });
                assume.push(if (b >> i) & 1 == 1 { y[i] } else { !y[i] });
            }
            assert!(c.solve(&assume).unwrap());
            for (op, o) in &outs {
                assert_eq!(c.bv_value(o), op.apply(a, b, width), "{a} {op} {b} at {w}");
            }
            assert_eq!(c.bv_value(&neg), UnOp::Neg.apply(a, width));
            assert_eq!(c.bv_value(&not), UnOp::Not.apply(a, width));
        }
    }

    /// Every operator on every pair of values of widths 1 to 4, and on
    /// random pairs (with the edge values 0, ±1, the extremes and shift
    /// amounts around W) at widths 16, 63 and 64, agrees with
    /// `BinOp::apply`.
    #[test]
    fn bv_ops_match_reference_semantics() {
        for w in 1..=4u32 {
            let vals: Vec<i64> = (Width(w).min()..=Width(w).max()).collect();
            let pairs: Vec<(i64, i64)> = vals
                .iter()
                .flat_map(|&a| vals.iter().map(move |&b| (a, b)))
                .collect();
            check_ops_at(w, &pairs);
        }
        for w in [16u32, 63, 64] {
            check_ops_at(w, &crate::program::expr::sample_pairs(Width(w), 40));
        }
    }
}
