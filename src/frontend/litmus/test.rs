//! What a litmus test is once read: its architecture, its program in the
//! IR, the locations it observes, its condition and quantifier
//! ([`LitmusTest`]), and herd's integer notation ([`parse_int`]).

use crate::program::{
    BinOp, Expr, GExpr, GVar, Goal, GoalAt, GoalKind, Instr, LExpr, Program, RegId, ThreadId, Width,
};

/// The architecture named in a test's header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Arch {
    /// `X86`: 32-bit Intel syntax (`MOV [x],$1`, `MOV EAX,[y]`).
    X86,
    /// `X86_64`: AT&T syntax (`movl $1,(x)`, `movl (y),%eax`).
    X86_64,
    /// `PPC`: Power (`lwz r1,0(r2)`, `stw`, `sync`, `lwsync`, ...).
    Ppc,
    /// `AArch64`: Armv8-A (`LDR W0,[X1]`, `STLR`, `DMB SY`, ...).
    AArch64,
    /// `RISCV`: RV64 (`lw x5,0(x6)`, `sw.rl`, `fence rw,rw`, ...).
    RiscV,
    /// `C`: herd's C dialect (`P0(int *x) { WRITE_ONCE(*x, 1); }`), read
    /// by the C litmus front-end with a macro file.
    C,
}

impl Arch {
    /// The architecture a header keyword names (`AArch64` also as
    /// `AARCH64`, `RISCV` also as `RISC-V`); `None` for any other word.
    pub fn from_keyword(word: &str) -> Option<Arch> {
        Some(match word {
            "X86" => Arch::X86,
            "X86_64" => Arch::X86_64,
            "PPC" => Arch::Ppc,
            "AArch64" | "AARCH64" => Arch::AArch64,
            "RISCV" | "RISC-V" => Arch::RiscV,
            "C" => Arch::C,
            _ => return None,
        })
    }

    /// The header keyword (`X86`, `X86_64`, `PPC`).
    pub fn keyword(self) -> &'static str {
        match self {
            Arch::X86 => "X86",
            Arch::X86_64 => "X86_64",
            Arch::Ppc => "PPC",
            Arch::AArch64 => "AArch64",
            Arch::RiscV => "RISCV",
            Arch::C => "C",
        }
    }
}

/// The quantifier of a test's final condition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Quantifier {
    /// `exists P` (also the old `final P with ...` form).
    Exists,
    /// `~exists P`.
    NotExists,
    /// `forall P` (also used when a test has no condition: `forall (true)`).
    Forall,
}

impl Quantifier {
    /// The keyword herd prints (`exists`, `~exists`, `forall`).
    pub fn keyword(self) -> &'static str {
        match self {
            Quantifier::Exists => "exists",
            Quantifier::NotExists => "~exists",
            Quantifier::Forall => "forall",
        }
    }
}

/// What an observed location is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum LocKind {
    /// Register `reg` of thread `thread` (final value).
    Reg {
        /// The thread.
        thread: ThreadId,
        /// The register.
        reg: RegId,
    },
    /// The memory cell at `addr` (final value).
    Mem {
        /// The address (of a variable in [`Program::vars`]).
        addr: i64,
    },
}

/// A location whose final value herd prints.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Location {
    /// Register or memory cell.
    pub kind: LocKind,
    /// herd's name for it: `0:EAX`, `1:r1`, `0:rax`, `[x]`.
    pub name: String,
    /// True when the location may hold an address: its values that are
    /// addresses of variables are then printed as the variable's name.
    pub holds_address: bool,
    /// The bits of the unsigned type the init block gives the location
    /// (`uint32_t 0:X1` → 32): herd prints its values as unsigned numbers
    /// of that size (`4294967295`, not `-1`).
    pub unsigned: Option<u32>,
    /// The bits of the location's type: the init block's type (`int64_t
    /// 0:X1` → 64, `int8_t x` → 8), else herd's default `int` (32). herd
    /// prints and compares a location's values in its type (an untyped
    /// AArch64 register holding −1 in 64 bits equals `0xffffffff`).
    pub bits: u32,
    /// The memory cells the value is made of: 1 (one cell), or n > 1 for a
    /// location of herd's mixed-size variant held as byte cells (the n
    /// bytes from the address, little-endian).
    pub cells: u32,
}

impl Location {
    /// Value `v` converted to the location's type: sign-extended from
    /// [`Location::bits`] (read back unsigned by the printer when the type
    /// is unsigned).
    pub fn typed(&self, v: i64) -> i64 {
        if self.bits >= 64 || self.bits == 0 {
            v
        } else {
            crate::program::Width(self.bits).wrap(v)
        }
    }

    /// The goal expression of this location's value: its goal variable
    /// ([`Location::gvar`]), or for byte cells (`cells` = n > 1) the sum
    /// of byte k · 2^(8k) over the n cells (wrapping at the run's width).
    pub fn expr(&self) -> GExpr {
        match self.kind {
            LocKind::Mem { addr } if self.cells > 1 => (0..self.cells)
                .map(|k| {
                    let b = Expr::Var(GVar::Mem(addr + i64::from(k)));
                    if k == 0 {
                        b
                    } else {
                        Expr::bin(
                            crate::program::BinOp::Mul,
                            b,
                            Expr::Const(1i64.wrapping_shl(8 * k)),
                        )
                    }
                })
                .reduce(|a, b| Expr::bin(crate::program::BinOp::BitOr, a, b))
                .unwrap_or(Expr::Const(0)),
            _ => Expr::Var(self.gvar()),
        }
    }

    /// The goal variable for this location (the first cell of byte cells).
    pub fn gvar(&self) -> GVar {
        match self.kind {
            LocKind::Reg { thread, reg } => GVar::Reg(thread, reg),
            LocKind::Mem { addr } => GVar::Mem(addr),
        }
    }
}

/// A proposition of a condition, over the test's observed locations.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Prop {
    /// `true`
    True,
    /// `false`
    False,
    /// `loc=value`: `loc` indexes [`LitmusTest::observed`]; `symbolic`
    /// is true when the value was written as a variable name (an address).
    Eq {
        /// Index into [`LitmusTest::observed`].
        loc: usize,
        /// The value (an address when `symbolic`).
        value: i64,
        /// Written as a name.
        symbolic: bool,
    },
    /// `loc=loc'`: the two observed locations (indices into
    /// [`LitmusTest::observed`]) hold the same final value (herd's
    /// `0:r1=1:r2`, `x=[y]`).
    Same {
        /// Index of the left location.
        a: usize,
        /// Index of the right location.
        b: usize,
    },
    /// `not P` (`~P`; `loc<>v` is `not (loc=v)`).
    Not(Box<Prop>),
    /// `P /\ Q /\ ...` (flattened).
    And(Vec<Prop>),
    /// `P \/ Q \/ ...` (flattened).
    Or(Vec<Prop>),
    /// `P => Q`.
    Implies(Box<Prop>, Box<Prop>),
}

impl Prop {
    /// `a=b` between two observed locations, negated when `neq` (`<>`).
    pub fn same(a: usize, b: usize, neq: bool) -> Prop {
        let p = Prop::Same { a, b };
        if neq {
            Prop::Not(Box::new(p))
        } else {
            p
        }
    }

    /// The locations it names (indices into the observed locations),
    /// added to `out`.
    pub fn collect_locs(&self, out: &mut std::collections::BTreeSet<usize>) {
        match self {
            Prop::Eq { loc, .. } => {
                out.insert(*loc);
            }
            Prop::Same { a, b } => {
                out.insert(*a);
                out.insert(*b);
            }
            Prop::Not(a) => a.collect_locs(out),
            Prop::And(v) | Prop::Or(v) => v.iter().for_each(|x| x.collect_locs(out)),
            Prop::Implies(a, b) => {
                a.collect_locs(out);
                b.collect_locs(out);
            }
            Prop::True | Prop::False => {}
        }
    }

    /// The proposition with each location index `i` renamed `m[i]`
    /// (shape: `m` has an entry for every index it names).
    pub fn remap(self, m: &[usize]) -> Prop {
        match self {
            Prop::Eq {
                loc,
                value,
                symbolic,
            } => Prop::Eq {
                loc: m[loc],
                value,
                symbolic,
            },
            Prop::Same { a, b } => Prop::Same { a: m[a], b: m[b] },
            Prop::Not(a) => Prop::Not(Box::new(a.remap(m))),
            Prop::And(v) => Prop::And(v.into_iter().map(|x| x.remap(m)).collect()),
            Prop::Or(v) => Prop::Or(v.into_iter().map(|x| x.remap(m)).collect()),
            Prop::Implies(a, b) => Prop::Implies(Box::new(a.remap(m)), Box::new(b.remap(m))),
            x => x,
        }
    }
}

/// A parsed and lowered litmus test.
#[derive(Clone, Debug)]
pub struct LitmusTest {
    /// The lowered program: threads `P0`, `P1`, ...; shared variables at
    /// sequential addresses (alphabetical order, starting above every
    /// integer constant of the test so that addresses and plain values
    /// never collide); one goal [`GoalAt::Final`] whose condition is the
    /// filter (if any) and the proposition.
    pub program: Program,
    /// The test's name (second word of the header).
    pub name: String,
    /// The architecture.
    pub arch: Arch,
    /// The quoted doc string, if any.
    pub doc: Option<String>,
    /// `key=value` metadata lines, in order.
    pub metadata: Vec<(String, String)>,
    /// The condition's quantifier.
    pub quantifier: Quantifier,
    /// The condition's proposition P (over [`LitmusTest::observed`]).
    pub prop: Prop,
    /// P as a goal expression (1 = holds).
    pub cond: GExpr,
    /// The `filter` proposition, if any.
    pub filter: Option<Prop>,
    /// The filter as a goal expression.
    pub filter_expr: Option<GExpr>,
    /// The observed locations (those of `locations`, the condition and
    /// the filter), in herd's order: registers first by thread and by the
    /// architecture's register order, then memory by name. A final state
    /// is a vector of values in this order.
    pub observed: Vec<Location>,
    /// Per observed location: false when only the `filter` names it
    /// (herd prints neither such a location nor states that differ only
    /// there).
    pub shown: Vec<bool>,
    /// True when some thread's control graph has a cycle (a retry loop;
    /// herd prints `Loop` and unrolls it).
    pub has_loop: bool,
    /// The width the test was lowered with.
    pub width: Width,
    /// Values printed by name, as herd prints them: code addresses that
    /// are labels (`label:"P0:L0"`), when the test uses labels as values
    /// (AArch64 `ADR`, `BL`, `BLR`, init values `P1:L1`), and instruction
    /// values (`ins_t`: `NOP`, `instr:"B .+4"`).
    pub code_labels: std::collections::BTreeMap<i64, String>,
    /// The least width its semantics needs (64 when 32-bit PPC loads
    /// extend possibly negative values; in a `Variant=mixed` test the
    /// width its byte accesses combine at: 32 for a word, 64 beyond;
    /// else 1): `run::auto_width` is at least this.
    pub min_width: Width,
    /// herd's mixed-size variant: the located error for a byte-addressed
    /// location accessed by two threads, when there is one. Its accesses'
    /// bytes are one instruction's events only through the base relation
    /// `si`, so the test runs only under a model that reads it
    /// (`litmus::run::herd_model`).
    pub shared_bytes: Option<crate::diag::Error>,
    /// The located error for a load or store pair (AArch64 `LDP`/`STP`)
    /// in a test of two threads or more: herd's two accesses of a pair
    /// are unordered by po, here two instructions in po, which only
    /// `aarch64.cat` cannot tell apart (`litmus::run::herd_model` refuses
    /// the test under another model).
    pub pair_access: Option<crate::diag::Error>,
    /// The accesses whose address the test's value sets say may be an
    /// integer (a value below every location's address), each as a goal
    /// that holds when the access' thread reaches it with such an
    /// address. herd7 refuses a test in which some candidate execution
    /// makes one ("Non symbolic address"); `litmus::run::run_with`
    /// refuses it when a consistent execution reaches a probe.
    pub address_probes: Vec<AddressProbe>,
    /// Per variable address, the addresses the variable spans (an array's
    /// or a byte-addressed location's bytes, else 1): a value inside a
    /// variable prints as herd prints a symbolic address plus an offset,
    /// `x+8` ([`LitmusTest::addr_text`]). Empty for C tests.
    pub var_sizes: std::collections::BTreeMap<i64, i64>,
}

/// An access whose address may be an integer ([`LitmusTest::address_probes`]).
#[derive(Clone, Debug)]
pub struct AddressProbe {
    /// Thread `thread` at the access' source state, its address
    /// expression below the lowest location's address.
    pub goal: crate::program::Goal,
    /// The access' instruction.
    pub span: crate::diag::Span,
}

impl AddressProbe {
    /// The probe of the access of instruction `ins` of thread `ti` at
    /// address `addr`: the thread at the instruction's source state with
    /// the address below `lowest` (the least address of a location; every
    /// location lies above the test's integers).
    pub fn below(ti: usize, ins: &Instr, addr: &LExpr, lowest: i64) -> AddressProbe {
        let t = ThreadId(ti as u32);
        let a: GExpr = addr.map_vars(&mut |r| Expr::Var(GVar::Reg(t, r)));
        AddressProbe {
            goal: Goal {
                name: None,
                kind: GoalKind::Goal,
                at: GoalAt::States(vec![(t, ins.from)]),
                cond: Some(Expr::bin(BinOp::Lt, a, Expr::Const(lowest))),
                span: ins.span,
            },
            span: ins.span,
        }
    }
}

impl LitmusTest {
    /// The name of the variable at `addr`, if any.
    pub fn var_name(&self, addr: i64) -> Option<&str> {
        self.program.var_at(addr).map(|v| self.program.name(v.name))
    }

    /// How herd prints address `addr`: the variable's name at its
    /// address, `name+k` at byte k of a variable that spans more than
    /// one address ([`LitmusTest::var_sizes`]); `None` outside every
    /// variable.
    pub fn addr_text(&self, addr: i64) -> Option<String> {
        if let Some(n) = self.var_name(addr) {
            return Some(n.to_string());
        }
        let (&base, &size) = self.var_sizes.range(..=addr).next_back()?;
        let off = addr - base;
        (off < size)
            .then(|| self.var_name(base))
            .flatten()
            .map(|n| format!("{n}+{off}"))
    }

    /// The address of variable `name`.
    pub fn var_addr(&self, name: &str) -> Option<i64> {
        let s = self.program.names.get(name)?;
        self.program
            .vars
            .iter()
            .find(|v| v.name == s)
            .map(|v| v.addr)
    }
}

/// Parses an integer as herd writes it (decimal or `0x` hex, optional
/// sign; the 64-bit unsigned range is read as its wrap-around).
pub fn parse_int(s: &str) -> Option<i64> {
    let s = s.trim();
    let (neg, d) = match s.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let v = if let Some(h) = d.strip_prefix("0x").or_else(|| d.strip_prefix("0X")) {
        if h.is_empty() {
            return None;
        }
        i128::from_str_radix(h, 16).ok()?
    } else {
        if d.is_empty() || !d.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        d.parse::<i128>().ok()?
    };
    let v = if neg { -v } else { v };
    // Accept the 64-bit unsigned range (read back as its wrap-around);
    // the width check happens during lowering.
    if v > u64::MAX as i128 || v < i64::MIN as i128 {
        return None;
    }
    Some(v as i64)
}
