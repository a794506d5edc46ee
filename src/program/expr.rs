//! Expressions over constants, variables and operators, and their
//! evaluation on fixed-width two's-complement bit-vectors.
//!
//! Thesis `003_…` §2.3: expressions over constants from DOM, registers and
//! functions. Here DOM is the set of W-bit values ([`Width`]); every engine
//! evaluates through [`BinOp::apply`] / [`UnOp::apply`] so that they agree
//! on the arithmetic (wrap-around, signed comparisons, division by zero).

use std::fmt;

/// The bit-width W of values and addresses (`--width`). Values are stored
/// as `i64` sign-extended from W bits. 1 ≤ W ≤ 64.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Width(pub u32);

impl Width {
    /// The default width: 16 bits. The largest constant in the Trencher
    /// corpus is 6183; litmus tests use small values.
    pub const DEFAULT: Width = Width(16);

    /// The largest width `--width` accepts.
    pub const MAX: Width = Width(64);

    /// The hint of a "does not fit" error: raise `--width` (naming its
    /// maximum), or, at the maximum already, that no width fits.
    pub fn raise_hint(self) -> String {
        if self.0 < Width::MAX.0 {
            format!("raise --width (at most {})", Width::MAX.0)
        } else {
            format!("{} bits is the largest --width", Width::MAX.0)
        }
    }

    /// Reduces `v` to W bits and sign-extends (wrap-around arithmetic).
    pub fn wrap(self, v: i64) -> i64 {
        let s = 64 - self.0;
        (v << s) >> s
    }

    /// True when the constant `v` is representable in W bits, either as a
    /// signed value (−2^(W−1) ≤ v < 2^(W−1)) or as an unsigned one
    /// (v < 2^W, read back as its signed wrap-around).
    /// At 64 bits every `i64` fits (an unsigned 64-bit constant is
    /// stored as its signed wrap-around by the front-ends).
    pub fn fits(self, v: i64) -> bool {
        self.0 >= 64 || (v >= self.min() && (v as i128) <= self.umax() as i128)
    }

    /// Smallest value (signed).
    pub fn min(self) -> i64 {
        if self.0 >= 64 {
            i64::MIN
        } else {
            -(1i64 << (self.0 - 1))
        }
    }

    /// Largest value (signed).
    pub fn max(self) -> i64 {
        if self.0 >= 64 {
            i64::MAX
        } else {
            (1i64 << (self.0 - 1)) - 1
        }
    }

    /// Largest value read as unsigned (2^W − 1).
    pub fn umax(self) -> u64 {
        if self.0 >= 64 {
            u64::MAX
        } else {
            (1u64 << self.0) - 1
        }
    }

    /// `v`'s W-bit pattern read as an unsigned number.
    pub fn unsigned(self, v: i64) -> u64 {
        (v as u64) & self.umax()
    }
}

impl Default for Width {
    fn default() -> Self {
        Width::DEFAULT
    }
}

/// Unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum UnOp {
    /// Logical not: 1 if the operand is 0, else 0.
    Not,
    /// Two's-complement negation.
    Neg,
}

/// Binary operators. Comparisons and logical operators yield 0 or 1.
/// `<`, `<=`, `>`, `>=`, `/`, `%` and `>>` are signed (two's complement);
/// their `u`-suffixed twins (`<u`, `/u`, `>>u`, …) read both operands as
/// unsigned W-bit numbers (0..2^W). Shift amounts are read as unsigned;
/// an amount ≥ W shifts every bit out (SMT-LIB `bvshl`/`bvlshr`/`bvashr`,
/// docs/language.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/` signed, truncating; `x / 0 = 0`.
    Div,
    /// `%` signed (sign of the dividend); `x % 0 = x`.
    Rem,
    /// `&` bitwise and.
    BitAnd,
    /// `|` bitwise or.
    BitOr,
    /// `^` bitwise xor.
    BitXor,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<` signed.
    Lt,
    /// `<=` signed.
    Le,
    /// `>` signed.
    Gt,
    /// `>=` signed.
    Ge,
    /// `&&` logical (operands compared with 0).
    And,
    /// `||` logical.
    Or,
    /// `<u` unsigned.
    Ult,
    /// `<=u` unsigned.
    Ule,
    /// `>u` unsigned.
    Ugt,
    /// `>=u` unsigned.
    Uge,
    /// `/u` unsigned; `x /u 0 = 0`.
    Udiv,
    /// `%u` unsigned; `x %u 0 = x`.
    Urem,
    /// `<<` shift left, zero fill; an amount ≥ W gives 0.
    Shl,
    /// `>>` arithmetic shift right (sign fill); an amount ≥ W gives 0 or
    /// −1 by the sign.
    Sar,
    /// `>>u` logical shift right (zero fill); an amount ≥ W gives 0.
    Shr,
}

impl BinOp {
    /// Every operator, for generators and tests.
    pub const ALL: [BinOp; 25] = [
        BinOp::Add,
        BinOp::Sub,
        BinOp::Mul,
        BinOp::Div,
        BinOp::Rem,
        BinOp::BitAnd,
        BinOp::BitOr,
        BinOp::BitXor,
        BinOp::Eq,
        BinOp::Ne,
        BinOp::Lt,
        BinOp::Le,
        BinOp::Gt,
        BinOp::Ge,
        BinOp::And,
        BinOp::Or,
        BinOp::Ult,
        BinOp::Ule,
        BinOp::Ugt,
        BinOp::Uge,
        BinOp::Udiv,
        BinOp::Urem,
        BinOp::Shl,
        BinOp::Sar,
        BinOp::Shr,
    ];

    /// The infix symbol.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::And => "&&",
            BinOp::Or => "||",
            BinOp::Ult => "<u",
            BinOp::Ule => "<=u",
            BinOp::Ugt => ">u",
            BinOp::Uge => ">=u",
            BinOp::Udiv => "/u",
            BinOp::Urem => "%u",
            BinOp::Shl => "<<",
            BinOp::Sar => ">>",
            BinOp::Shr => ">>u",
        }
    }

    /// Parses an infix symbol.
    pub fn from_symbol(s: &str) -> Option<BinOp> {
        BinOp::ALL.iter().copied().find(|op| op.symbol() == s)
    }

    /// Binding strength for printing/parsing infix (higher binds tighter),
    /// C-like (C11 6.5.5–6.5.14): `||` 1, `&&` 2, `|` 3, `^` 4, `&` 5,
    /// `== !=` 6, comparisons 7, shifts 8, `+ -` 9, `* / %` (and `/u %u`)
    /// 10.
    pub fn precedence(self) -> u8 {
        match self {
            BinOp::Or => 1,
            BinOp::And => 2,
            BinOp::BitOr => 3,
            BinOp::BitXor => 4,
            BinOp::BitAnd => 5,
            BinOp::Eq | BinOp::Ne => 6,
            BinOp::Lt
            | BinOp::Le
            | BinOp::Gt
            | BinOp::Ge
            | BinOp::Ult
            | BinOp::Ule
            | BinOp::Ugt
            | BinOp::Uge => 7,
            BinOp::Shl | BinOp::Sar | BinOp::Shr => 8,
            BinOp::Add | BinOp::Sub => 9,
            BinOp::Mul | BinOp::Div | BinOp::Rem | BinOp::Udiv | BinOp::Urem => 10,
        }
    }

    /// True for the operators whose value is always 0 or 1 (comparisons,
    /// `&&`, `||`).
    pub fn is_boolean(self) -> bool {
        self.negation().is_some() || matches!(self, BinOp::And | BinOp::Or)
    }

    /// The comparison that holds exactly when `self` does not (`<` ↔
    /// `>=`, `<u` ↔ `>=u`, `==` ↔ `!=`, …); `None` for the other
    /// operators.
    pub fn negation(self) -> Option<BinOp> {
        Some(match self {
            BinOp::Eq => BinOp::Ne,
            BinOp::Ne => BinOp::Eq,
            BinOp::Lt => BinOp::Ge,
            BinOp::Ge => BinOp::Lt,
            BinOp::Gt => BinOp::Le,
            BinOp::Le => BinOp::Gt,
            BinOp::Ult => BinOp::Uge,
            BinOp::Uge => BinOp::Ult,
            BinOp::Ugt => BinOp::Ule,
            BinOp::Ule => BinOp::Ugt,
            _ => return None,
        })
    }

    /// The unsigned twin of a signed operator (`<` → `<u`, `/` → `/u`,
    /// `>>` → `>>u`, …); other operators are returned unchanged (their
    /// result does not depend on signedness).
    pub fn unsigned(self) -> BinOp {
        match self {
            BinOp::Lt => BinOp::Ult,
            BinOp::Le => BinOp::Ule,
            BinOp::Gt => BinOp::Ugt,
            BinOp::Ge => BinOp::Uge,
            BinOp::Div => BinOp::Udiv,
            BinOp::Rem => BinOp::Urem,
            BinOp::Sar => BinOp::Shr,
            op => op,
        }
    }

    /// Applies the operator to two W-bit values; the result is wrapped to
    /// W bits. This is the reference semantics every engine must match.
    pub fn apply(self, a: i64, b: i64, w: Width) -> i64 {
        let r = match self {
            BinOp::Add => a.wrapping_add(b),
            BinOp::Sub => a.wrapping_sub(b),
            BinOp::Mul => a.wrapping_mul(b),
            BinOp::Div => {
                if b == 0 {
                    0
                } else {
                    a.wrapping_div(b)
                }
            }
            BinOp::Rem => {
                if b == 0 {
                    a
                } else {
                    a.wrapping_rem(b)
                }
            }
            BinOp::BitAnd => a & b,
            BinOp::BitOr => a | b,
            BinOp::BitXor => a ^ b,
            BinOp::Eq => (a == b) as i64,
            BinOp::Ne => (a != b) as i64,
            BinOp::Lt => (a < b) as i64,
            BinOp::Le => (a <= b) as i64,
            BinOp::Gt => (a > b) as i64,
            BinOp::Ge => (a >= b) as i64,
            BinOp::And => (a != 0 && b != 0) as i64,
            BinOp::Or => (a != 0 || b != 0) as i64,
            BinOp::Ult => (w.unsigned(a) < w.unsigned(b)) as i64,
            BinOp::Ule => (w.unsigned(a) <= w.unsigned(b)) as i64,
            BinOp::Ugt => (w.unsigned(a) > w.unsigned(b)) as i64,
            BinOp::Uge => (w.unsigned(a) >= w.unsigned(b)) as i64,
            BinOp::Udiv => match w.unsigned(b) {
                0 => 0,
                d => (w.unsigned(a) / d) as i64,
            },
            BinOp::Urem => match w.unsigned(b) {
                0 => a,
                d => (w.unsigned(a) % d) as i64,
            },
            BinOp::Shl | BinOp::Sar | BinOp::Shr => {
                let k = w.unsigned(b);
                let neg = w.wrap(a) < 0;
                if k >= w.0 as u64 {
                    if self == BinOp::Sar && neg {
                        -1
                    } else {
                        0
                    }
                } else {
                    match self {
                        BinOp::Shl => a << k,
                        // `a` is sign-extended: `>>` on i64 fills with the sign.
                        BinOp::Sar => w.wrap(a) >> k,
                        _ => (w.unsigned(a) >> k) as i64,
                    }
                }
            }
        };
        w.wrap(r)
    }
}

impl UnOp {
    /// Applies the operator to a W-bit value.
    pub fn apply(self, a: i64, w: Width) -> i64 {
        match self {
            // Wrapped like every result: at width 1, "true" is -1.
            UnOp::Not => w.wrap((a == 0) as i64),
            UnOp::Neg => w.wrap(a.wrapping_neg()),
        }
    }

    /// The prefix symbol.
    pub fn symbol(self) -> &'static str {
        match self {
            UnOp::Not => "!",
            UnOp::Neg => "-",
        }
    }
}

/// An expression whose variables are of type `V`: [`RegId`](super::RegId)
/// inside a thread, [`GVar`](super::GVar) in goal conditions.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Expr<V> {
    /// A constant (already wrapped to the width by the front-end).
    Const(i64),
    /// A variable.
    Var(V),
    /// A unary operation.
    Un(UnOp, Box<Expr<V>>),
    /// A binary operation.
    Bin(BinOp, Box<Expr<V>>, Box<Expr<V>>),
    /// PGAS: the executing node's rank (1..N).
    Rank,
    /// PGAS: the number of nodes N.
    Nodes,
}

/// Values of the PGAS pseudo-variables while evaluating.
#[derive(Clone, Copy, Debug, Default)]
pub struct Spmd {
    /// `rank`, 1-based.
    pub rank: i64,
    /// `nodes`.
    pub nodes: i64,
}

impl<V: Copy> Expr<V> {
    /// Shorthand for a binary node.
    pub fn bin(op: BinOp, a: Expr<V>, b: Expr<V>) -> Expr<V> {
        Expr::Bin(op, Box::new(a), Box::new(b))
    }

    /// Shorthand for a unary node.
    pub fn un(op: UnOp, a: Expr<V>) -> Expr<V> {
        Expr::Un(op, Box::new(a))
    }

    /// Evaluates with `var` giving the value of each variable.
    pub fn eval(&self, w: Width, spmd: Spmd, var: &mut impl FnMut(V) -> i64) -> i64 {
        match self {
            Expr::Const(c) => w.wrap(*c),
            Expr::Var(v) => w.wrap(var(*v)),
            Expr::Un(op, a) => op.apply(a.eval(w, spmd, var), w),
            Expr::Bin(op, a, b) => {
                let x = a.eval(w, spmd, var);
                let y = b.eval(w, spmd, var);
                op.apply(x, y, w)
            }
            Expr::Rank => w.wrap(spmd.rank),
            Expr::Nodes => w.wrap(spmd.nodes),
        }
    }

    /// Calls `f` on every variable occurrence.
    pub fn for_each_var(&self, f: &mut impl FnMut(V)) {
        match self {
            Expr::Var(v) => f(*v),
            Expr::Un(_, a) => a.for_each_var(f),
            Expr::Bin(_, a, b) => {
                a.for_each_var(f);
                b.for_each_var(f);
            }
            Expr::Const(_) | Expr::Rank | Expr::Nodes => {}
        }
    }

    /// The constant value if the expression has no variables (folded).
    pub fn as_const(&self, w: Width) -> Option<i64> {
        let mut has_var = false;
        self.for_each_var(&mut |_| has_var = true);
        if has_var || self.mentions_spmd() {
            None
        } else {
            Some(self.eval(w, Spmd::default(), &mut |_| 0))
        }
    }

    /// True when `rank` or `nodes` occurs.
    pub fn mentions_spmd(&self) -> bool {
        match self {
            Expr::Rank | Expr::Nodes => true,
            Expr::Un(_, a) => a.mentions_spmd(),
            Expr::Bin(_, a, b) => a.mentions_spmd() || b.mentions_spmd(),
            _ => false,
        }
    }

    /// Maps the variables to another type.
    pub fn map_vars<U>(&self, f: &mut impl FnMut(V) -> Expr<U>) -> Expr<U> {
        match self {
            Expr::Const(c) => Expr::Const(*c),
            Expr::Var(v) => f(*v),
            Expr::Un(op, a) => Expr::Un(*op, Box::new(a.map_vars(f))),
            Expr::Bin(op, a, b) => Expr::Bin(*op, Box::new(a.map_vars(f)), Box::new(b.map_vars(f))),
            Expr::Rank => Expr::Rank,
            Expr::Nodes => Expr::Nodes,
        }
    }

    /// Depth of the expression tree (1 for a leaf).
    pub fn depth(&self) -> usize {
        match self {
            Expr::Un(_, a) => 1 + a.depth(),
            Expr::Bin(_, a, b) => 1 + a.depth().max(b.depth()),
            _ => 1,
        }
    }
}

/// Operand pairs for tests that compare an evaluator or encoder with
/// [`BinOp::apply`] at width `w`: every pair of the edge values (0, ±1,
/// 2, the signed extremes, the shift amounts W−1, W, W+1) and `n`
/// pseudo-random pairs (deterministic xorshift), all wrapped to W bits.
#[cfg(test)]
pub(crate) fn sample_pairs(w: Width, n: usize) -> Vec<(i64, i64)> {
    let k = w.0 as i64;
    let edges = [0, 1, -1, 2, w.min(), w.max(), k - 1, k, k + 1];
    let mut out: Vec<(i64, i64)> = edges
        .iter()
        .flat_map(|&a| edges.iter().map(move |&b| (w.wrap(a), w.wrap(b))))
        .collect();
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d ^ u64::from(w.0);
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed as i64
    };
    for i in 0..n {
        let a = next();
        // Every third pair a small shift amount, so shifts do not almost
        // always shift everything out.
        let b = if i % 3 == 0 {
            next().rem_euclid(k + 2)
        } else {
            next()
        };
        out.push((w.wrap(a), w.wrap(b)));
    }
    out
}

impl fmt::Display for BinOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.symbol())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_and_fit() {
        let w = Width(8);
        assert_eq!(w.wrap(127), 127);
        assert_eq!(w.wrap(128), -128);
        assert_eq!(w.wrap(255), -1);
        assert!(w.fits(255));
        assert!(w.fits(-128));
        assert!(!w.fits(256));
        assert!(!w.fits(-129));
        assert_eq!(Width(16).max(), 32767);
    }

    #[test]
    fn operators() {
        let w = Width(8);
        assert_eq!(BinOp::Add.apply(127, 1, w), -128);
        assert_eq!(BinOp::Div.apply(7, 0, w), 0);
        assert_eq!(BinOp::Rem.apply(7, 0, w), 7);
        assert_eq!(BinOp::Rem.apply(-7, 2, w), -1);
        assert_eq!(BinOp::Lt.apply(-1, 0, w), 1);
        assert_eq!(BinOp::And.apply(2, 3, w), 1);
        assert_eq!(UnOp::Not.apply(5, w), 0);
        assert_eq!(UnOp::Neg.apply(-128, w), -128);
        for op in BinOp::ALL {
            assert_eq!(BinOp::from_symbol(op.symbol()), Some(op));
        }
    }

    #[test]
    fn unsigned_and_shift_operators() {
        let w = Width(8);
        // -1 is 255 unsigned.
        assert_eq!(BinOp::Ult.apply(-1, 0, w), 0);
        assert_eq!(BinOp::Ugt.apply(-1, 0, w), 1);
        assert_eq!(BinOp::Ule.apply(5, 5, w), 1);
        assert_eq!(BinOp::Uge.apply(0, -128, w), 0);
        assert_eq!(BinOp::Udiv.apply(-1, 2, w), 127);
        assert_eq!(BinOp::Urem.apply(-1, 16, w), 15);
        assert_eq!(BinOp::Udiv.apply(-1, 0, w), 0);
        assert_eq!(BinOp::Urem.apply(-3, 0, w), -3);
        assert_eq!(BinOp::Shl.apply(1, 7, w), -128);
        assert_eq!(BinOp::Shl.apply(3, 8, w), 0);
        assert_eq!(BinOp::Sar.apply(-128, 7, w), -1);
        assert_eq!(BinOp::Sar.apply(-128, 200, w), -1);
        assert_eq!(BinOp::Sar.apply(64, 200, w), 0);
        assert_eq!(BinOp::Shr.apply(-128, 7, w), 1);
        assert_eq!(BinOp::Shr.apply(-1, 8, w), 0);
        // The amount is unsigned: -1 is 255, everything shifts out.
        assert_eq!(BinOp::Shl.apply(1, -1, w), 0);
        let w = Width(64);
        assert_eq!(BinOp::Ugt.apply(-1, i64::MAX, w), 1);
        assert_eq!(BinOp::Shr.apply(-1, 63, w), 1);
        assert_eq!(BinOp::Sar.apply(i64::MIN, 64, w), -1);
        assert_eq!(BinOp::Udiv.apply(-2, 2, w), i64::MAX);
        // At width 1 the only values are 0 and -1 (bit pattern 1).
        let w = Width(1);
        assert_eq!(BinOp::Ugt.apply(-1, 0, w), -1);
        assert_eq!(BinOp::Lt.apply(-1, 0, w), -1);
        assert_eq!(UnOp::Not.apply(0, w), -1);
        assert_eq!(BinOp::Sar.apply(-1, 0, w), -1);
        assert_eq!(BinOp::Shl.apply(-1, -1, w), 0);
        for op in BinOp::ALL {
            if let Some(n) = op.negation() {
                assert_eq!(n.negation(), Some(op));
                for (a, b) in sample_pairs(Width(8), 20) {
                    assert_eq!(
                        n.apply(a, b, Width(8)),
                        1 - op.apply(a, b, Width(8)),
                        "{op}"
                    );
                }
            }
            if op.is_boolean() {
                for (a, b) in sample_pairs(Width(8), 20) {
                    assert!(matches!(op.apply(a, b, Width(8)), 0 | 1), "{op}");
                }
            }
        }
    }

    #[test]
    fn eval_with_vars() {
        let e: Expr<u32> = Expr::bin(
            BinOp::Add,
            Expr::Var(0),
            Expr::bin(BinOp::Mul, Expr::Var(1), Expr::Const(3)),
        );
        let v = e.eval(Width(16), Spmd::default(), &mut |i| [2, 5][i as usize]);
        assert_eq!(v, 17);
        assert_eq!(e.as_const(Width(16)), None);
        assert_eq!(
            Expr::<u32>::bin(BinOp::Sub, Expr::Const(1), Expr::Const(3)).as_const(Width(16)),
            Some(-2)
        );
    }
}
