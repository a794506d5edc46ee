//! The per-thread lowering context shared by the instruction lowerings:
//! the variable table of the two lowering passes ([`Vars`]: names seen,
//! then their addresses), the current thread and its registers ([`Ctx`]),
//! integer constants checked against the value width ([`check_fits`]), and
//! [`push_instr`], which adds one transition to a thread.

use crate::diag::{Error, SourceFile, Span};
use crate::frontend::litmus::Arch;
use crate::program::{Expr, Instr, RegId, StateId, Thread, Width};
use std::collections::{BTreeMap, BTreeSet};

/// `v[k]` or `v{k}` → (`v`, k).
pub(crate) fn array_element(name: &str) -> Option<(&str, usize)> {
    let (open, close) = if name.ends_with(']') {
        ('[', ']')
    } else if name.ends_with('}') {
        ('{', '}')
    } else {
        return None;
    };
    let i = name.find(open)?;
    let k = name[i + 1..name.len() - 1].trim().parse().ok()?;
    let _ = close;
    Some((&name[..i], k))
}

/// Variable table shared by the two lowering passes: pass 1 records names
/// and constants, pass 2 uses the final addresses.
pub(crate) struct Vars {
    /// Final addresses (pass 2), by name.
    pub fixed: Option<BTreeMap<String, i64>>,
    /// Names seen, with their first span.
    pub seen: BTreeMap<String, Span>,
    /// The names the init block and the code mention (the names seen
    /// before the first pass reads the condition): herd refuses a
    /// condition that names another ([`super::lower`]).
    pub prog_syms: Option<BTreeSet<String>>,
    /// Largest absolute integer constant seen.
    pub max_const: i64,
    /// True when a negative constant was seen.
    pub negative: bool,
    /// The width the test needs at least (64 once a 32-bit load of a
    /// 64-bit PPC register extends a value that may be negative).
    pub min_width: u32,
    /// The arrays of the init block: name → (elements, bytes per
    /// element). Element k of `v` is at `v`'s address + k × bytes (herd's
    /// byte offsets); every access to it has the element's size.
    pub arrays: BTreeMap<String, (usize, u32)>,
    /// Code addresses (labels as values, return addresses).
    pub code: CodeMap,
    /// The memory accesses of the thread being lowered with their sizes
    /// (second pass, AArch64), checked against the sizes of the locations
    /// they address once the thread is lowered (`lower::check_sizes`).
    pub accesses: Vec<SizedAccess>,
    /// Instruction values (`ins_t`: `instr:"B .+4"`, `NOP`, and, when the
    /// test has them and code addresses, the instructions of its code) by
    /// their text ([`super::syntax::instr_text`]); each is an opaque value
    /// `instr_base + rank` above every address and code address.
    pub instrs: std::collections::BTreeSet<String>,
    /// The first instruction value (0 in the first pass).
    pub instr_base: i64,
    /// True when a memory location is typed wider than 32 bits: a 32-bit
    /// store then writes its low word zero-extended, which shows only at
    /// 64 bits ([`Vars::store32`]).
    pub mem64: bool,
    /// True when a register is typed wider than 32 bits in the init block
    /// (`int64_t 0:X2`): a W-register result written there is
    /// zero-extended, which shows only at 64 bits ([`Vars::result32`]).
    pub reg64: bool,
    /// herd's mixed-size variant: the locations held as byte cells, by
    /// name → (bytes in all, bytes per element); every access to one is
    /// a sequence of byte accesses ([`Vars::split_spans`]). Set after the
    /// second lowering pass (`lower::plan_bytes`), used by the third.
    pub split: BTreeMap<String, (i64, u32)>,
    /// The instructions (by span: start, end) whose access is to a location of
    /// [`Vars::split`].
    pub split_spans: BTreeSet<(usize, usize)>,
    /// The located error for a location of [`Vars::split`] accessed by
    /// two threads, reported when the test runs under a model without
    /// `si` (`LitmusTest::shared_bytes`).
    pub shared_bytes: Option<crate::diag::Error>,
    /// The first load or store pair (`LDP`/`STP`) of the test, by its
    /// mnemonic's span (`LitmusTest::pair_access`).
    pub pair_access: Option<Span>,
    /// The accesses of a `Variant=mixed` test with the location each
    /// addresses (second pass, `lower::check_sizes`), from which
    /// `lower::plan_bytes` chooses [`Vars::split`].
    pub targets: Vec<Target>,
    /// True in a test of herd's mixed-size variant (`Variant=mixed`):
    /// memory is byte-addressed, a scalar location occupies its declared
    /// bytes ([`Vars::scalar_bytes`]; 4 for `int`), and immediate offsets
    /// address bytes.
    pub mixed: bool,
    /// Set by the lowering of a test read outside the variant when an
    /// access has a size other than its location's: the test is read
    /// again in the variant.
    pub mixed_needed: bool,
    /// In a mixed-size test, the bytes of the scalar locations the init
    /// block types (others are `int`, 4 bytes).
    pub scalar_bytes: BTreeMap<String, i64>,
    /// herd's instruction-fetch variant: the code addresses of the
    /// modifiable instructions (those a register of the init block
    /// points to) → the value of the instruction there; each is fetched
    /// (a read of its code address annotated `IFETCH`) before it runs.
    pub fetch: BTreeMap<i64, i64>,
    /// The instruction values of the init block (`ins_t`: value, text),
    /// which a fetch may read instead of the original.
    pub fetch_alts: Vec<(i64, String)>,
}

/// An access of a `Variant=mixed` test and the location it addresses.
#[derive(Clone, Debug)]
pub(crate) struct Target {
    /// The thread.
    pub thread: usize,
    /// The access.
    pub access: SizedAccess,
    /// The location's name.
    pub name: String,
    /// The byte offset of the access in the location (0 when the offset
    /// is a register not known statically).
    pub offset: i64,
    /// The location's declared bits (an array's element type).
    pub decl: u32,
}

/// The size in bits of thread `ti`'s access written at `span`, from the
/// recorded accesses `targets` (`None`: not recorded — outside herd's
/// mixed-size variant accesses are not recorded).
pub(super) fn access_bits(targets: &[Target], ti: usize, span: Span) -> Option<u32> {
    targets
        .iter()
        .find(|t| {
            t.thread == ti
                && span.start <= t.access.span.start
                && t.access.span.start < span.end.max(span.start + 1)
        })
        .map(|t| t.access.bits)
}

/// A memory access of `bits` bits (8, 16, 32, 64) at the address `addr`,
/// written at `span`.
#[derive(Clone, Debug)]
pub(crate) struct SizedAccess {
    pub addr: Expr<RegId>,
    pub bits: u32,
    pub span: Span,
    /// True for a plain load or store (`LDR`, `STR` and their byte,
    /// half-word and sign-extending forms), the accesses a byte-addressed
    /// location may have.
    pub plain: bool,
    /// True for a load-acquire or store-release that is not exclusive
    /// (`LDAR`, `LDAPR`, `STLR` and their byte and half-word forms): a
    /// byte-addressed location may have them too, each byte annotated.
    pub ordered: bool,
    /// True for an LSE atomic read-modify-write (`SWP`, `LD<op>`,
    /// `ST<op>` and their forms): a byte-addressed location may have it,
    /// its read and its write one event per byte.
    pub atomic: bool,
    /// True for an exclusive access (`LDXR`, `LDAXR`, `STXR`, `STLXR` and
    /// their byte and half-word forms): a byte-addressed location may
    /// have it, one event per byte, the bytes of a store-exclusive
    /// written together or not at all.
    pub exclusive: bool,
}

/// Code addresses: when a test uses them (AArch64 `BL`, `BLR`, `BR`,
/// `ADR`, a label as a value `P1:L1` or `label:"P0:L0"`), every position of
/// every thread's code (before instruction k, k = 0..=n) has one, above
/// the variables' addresses (so no value, address or code address
/// collide): `base + offsets[thread] + k`.
#[derive(Clone, Debug, Default)]
pub(crate) struct CodeMap {
    /// True when the test uses code addresses.
    pub enabled: bool,
    /// The first code address (0 in the first lowering pass).
    pub base: i64,
    /// Per thread: its first position's offset from `base`.
    pub offsets: Vec<i64>,
    /// Per thread: its labels → positions.
    pub labels: Vec<BTreeMap<String, usize>>,
    /// Per thread: its number of instructions (positions 0..=n).
    pub counts: Vec<usize>,
}

impl CodeMap {
    /// The code address of position `pos` of thread `t`'s code.
    pub fn pos_addr(&self, t: usize, pos: usize) -> i64 {
        self.base + self.offsets.get(t).copied().unwrap_or(0) + pos as i64
    }
    /// The code address of label `l` of thread `t`.
    pub fn label_addr(&self, t: usize, l: &str) -> Option<i64> {
        let pos = *self.labels.get(t)?.get(l)?;
        Some(self.pos_addr(t, pos))
    }
    /// The (thread, position) of code address `a`.
    pub fn position(&self, a: i64) -> Option<(usize, usize)> {
        if !self.enabled || a < self.base {
            return None;
        }
        let off = a - self.base;
        let t = self.offsets.iter().rposition(|&o| o <= off)?;
        let end = self.offsets.get(t + 1).copied().unwrap_or(self.size());
        (off < end).then(|| (t, (off - self.offsets[t]) as usize))
    }
    /// The number of code addresses.
    pub fn size(&self) -> i64 {
        self.counts.iter().map(|n| *n as i64 + 1).sum()
    }
}

impl Vars {
    /// The address of variable `name` (0 during pass 1); an array
    /// element `v[k]` (or `v{k}`, an element of a whole-array location) is
    /// at `v`'s address + k × the element's bytes.
    pub fn addr(&mut self, name: &str, span: Span) -> i64 {
        if let Some((base, k)) = array_element(name) {
            if let Some(&(_, bytes)) = self.arrays.get(base) {
                let a = self.addr(base, span);
                return a + k as i64 * i64::from(bytes);
            }
        }
        self.seen.entry(name.to_string()).or_insert(span);
        match &self.fixed {
            Some(m) => m.get(name).copied().unwrap_or(0),
            None => 0,
        }
    }
    /// The number of address units variable `name` occupies: its bytes
    /// for an array or a byte-addressed location ([`Vars::split`]), else 1.
    pub fn size(&self, name: &str) -> i64 {
        if let Some(&(bytes, _)) = self.split.get(name) {
            return bytes.max(1);
        }
        match self.arrays.get(name) {
            Some(&(n, b)) => (n as i64 * i64::from(b)).max(1),
            None if self.mixed => self.scalar_bytes.get(name).copied().unwrap_or(4),
            None => 1,
        }
    }
    /// The value of the instruction `text` (0 in the first pass).
    pub fn instr(&mut self, text: &str) -> i64 {
        self.instrs.insert(text.to_string());
        if self.fixed.is_none() {
            return 0;
        }
        self.instr_base + self.instrs.iter().take_while(|x| x.as_str() < text).count() as i64
    }
    /// Notes a 32-bit store (RISC-V `sw`, AArch64 `STR Wn`): in a test
    /// with a location typed wider than 32 bits it runs at 64 bits, where
    /// the store's zero-extension shows (`sw` of −1 into a `uint64_t`
    /// location gives 4294967295, as herd).
    pub fn store32(&mut self) {
        if self.mem64 {
            self.min_width = self.min_width.max(64);
        }
    }
    /// Notes a data-processing result written to a W register (AArch64
    /// `ADD W2,W1,W0`): in a test with a register typed wider than 32 bits
    /// it runs at 64 bits, where the result is zero-extended (Arm ARM
    /// C6.2: a W destination writes `ZeroExtend(result, 64)`; herd's
    /// `ADD02`: −2 + 1 into an `int64_t` gives 4294967295).
    pub fn result32(&mut self) {
        if self.reg64 {
            self.min_width = self.min_width.max(64);
        }
    }
    /// Records an access of `bits` bits at `addr` (second pass only).
    pub fn access(&mut self, addr: &Expr<RegId>, bits: u32, plain: bool, span: Span) {
        self.record(addr, bits, span, (plain, false, false, false));
    }

    /// [`Vars::access`] for a load-acquire or store-release that is not
    /// exclusive ([`SizedAccess::ordered`]).
    pub fn access_ordered(&mut self, addr: &Expr<RegId>, bits: u32, span: Span) {
        self.record(addr, bits, span, (false, true, false, false));
    }

    /// [`Vars::access`] for an LSE atomic read-modify-write
    /// ([`SizedAccess::atomic`]).
    pub fn access_atomic(&mut self, addr: &Expr<RegId>, bits: u32, span: Span) {
        self.record(addr, bits, span, (false, false, true, false));
    }

    /// [`Vars::access`] for a load- or store-exclusive
    /// ([`SizedAccess::exclusive`]).
    pub fn access_exclusive(&mut self, addr: &Expr<RegId>, bits: u32, span: Span) {
        self.record(addr, bits, span, (false, false, false, true));
    }

    /// Records an access; `kind`: (plain, ordered, atomic, exclusive).
    fn record(
        &mut self,
        addr: &Expr<RegId>,
        bits: u32,
        span: Span,
        kind: (bool, bool, bool, bool),
    ) {
        if self.fixed.is_some() {
            self.accesses.push(SizedAccess {
                addr: addr.clone(),
                bits,
                span,
                plain: kind.0,
                ordered: kind.1,
                atomic: kind.2,
                exclusive: kind.3,
            });
        }
    }
    /// Records an integer constant.
    pub fn constant(&mut self, v: i64) {
        self.negative |= v < 0;
        self.max_const = self
            .max_const
            .max(v.unsigned_abs().min(i64::MAX as u64) as i64);
    }
}

/// Per-thread lowering context.
pub(crate) struct Ctx<'a> {
    pub src: &'a SourceFile,
    pub width: Width,
    pub names: &'a mut crate::program::intern::Interner,
    pub thread: &'a mut Thread,
    pub vars: &'a mut Vars,
    pub arch: Arch,
    /// Whose code is being lowered (another thread's, inside this one,
    /// when the test uses code addresses: [`CodeMap`]).
    pub seg: usize,
}

impl Ctx<'_> {
    /// The register `name` of the current thread.
    pub fn reg(&mut self, name: &str) -> RegId {
        let s = self.names.intern(name);
        self.thread.reg(s)
    }
    /// True when the test has a constant beyond 32 bits unsigned (it runs at
    /// 64 bits, `run::auto_width`; known in the
    /// second lowering pass): 32-bit operations then truncate and extend
    /// ([`super::ops::ext32`]).
    pub fn wide(&self) -> bool {
        self.vars.fixed.is_some()
            && (self.vars.max_const > u32::MAX as i64 || self.vars.min_width >= 64)
    }
    /// PPC: true when a 32-bit load can differ from a full-register one
    /// (the test has negative constants or constants beyond 31 bits);
    /// such a test then runs at 64 bits (second pass only).
    pub fn word_loads_extend(&mut self) -> bool {
        let on = self.vars.fixed.is_some()
            && (self.vars.negative || self.vars.max_const > i32::MAX as i64);
        if on {
            self.vars.min_width = 64;
        }
        on
    }
    /// A checked integer constant.
    pub fn int(&mut self, v: i64, span: Span) -> Result<Expr<RegId>, Error> {
        check_fits(self.src, self.width, v, span)?;
        self.vars.constant(self.width.wrap(v));
        Ok(Expr::Const(self.width.wrap(v)))
    }
}

/// Checks that the constant `v` (written at `span`) fits in `w` bits.
pub(super) fn check_fits(src: &SourceFile, w: Width, v: i64, span: Span) -> Result<(), Error> {
    if w.0 < 64 && !w.fits(v) {
        // Values above i64::MAX were read as their 64-bit wrap-around;
        // show them as written (unsigned) when the text has no minus sign.
        let written = src.text.get(span.start..span.end).unwrap_or("");
        let shown = if v < 0 && !written.contains('-') {
            (v as u64).to_string()
        } else {
            v.to_string()
        };
        return Err(src.error_help(
            span,
            format!("constant {shown} does not fit in {} bits", w.0),
            w.raise_hint(),
        ));
    }
    Ok(())
}

/// Adds the transition `from → to` running `cmd` to thread `t`.
pub(crate) fn push_instr(
    t: &mut Thread,
    from: StateId,
    to: StateId,
    cmd: crate::program::Command,
    span: Span,
) {
    t.instrs.push(Instr {
        from,
        to,
        cmd,
        span,
    });
}
