//! The Program IR: the one representation every front-end produces and
//! every engine consumes.
//!
//! Thesis `003_…` §2.3 (programs as sequences of threads, threads as
//! automata over commands), §2.4.2 (`mfence`, locked instructions), §4.1
//! (Power barriers `sync`, `lwsync`, `isync`), ch. 5 (SPARC `membar`
//! masks), §7.1.1 (locks), §8.1.2 (PGAS commands).
//!
//! * A [`Program`] is a sequence of [`Thread`]s plus named shared variables,
//!   initial memory and goals.
//! * A [`Thread`] is an automaton: control states, an initial state and
//!   instructions `q --cmd--> q'` ([`Instr`]); branching may be
//!   nondeterministic and cycles are allowed. Every state is final
//!   (computations are prefix-closed).
//! * Values and addresses are W-bit integers ([`Width`]); registers start
//!   at 0 unless the thread gives an initial value.
//! * Names (threads, registers, states, variables) are interned once in
//!   [`Program::names`].

pub mod buffers;
pub mod concrete;
pub mod expr;
pub mod intern;
pub mod liveness;
pub mod pgas;
pub mod regfile;
pub mod render;
pub mod simplify;
pub mod specialize;
pub mod values;

pub use expr::{BinOp, Expr, Spmd, UnOp, Width};

use crate::diag::{SourceFile, Span};
use crate::program::intern::{Interner, Sym};
use std::collections::BTreeMap;

/// Index of a thread in [`Program::threads`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct ThreadId(pub u32);

/// Index of a control state in [`Thread::states`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct StateId(pub u32);

/// Index of a register in [`Thread::regs`] (registers are thread-local).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub struct RegId(pub u32);

/// An expression inside a thread: its variables are the thread's registers.
pub type LExpr = Expr<RegId>;

/// A variable of a goal condition: a register of some thread, or the final
/// value of a memory cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
pub enum GVar {
    /// Register `reg` of thread `thread`.
    Reg(ThreadId, RegId),
    /// The memory cell at this address.
    Mem(i64),
}

/// An expression of a goal condition.
pub type GExpr = Expr<GVar>;

/// SPARC `membar` mask bits (thesis ch. 5): which pairs of accesses the
/// barrier orders. `LL` = #LoadLoad, `LS` = #LoadStore, `SL` = #StoreLoad,
/// `SS` = #StoreStore.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub struct MembarMask(pub u8);

impl MembarMask {
    /// #LoadLoad
    pub const LL: u8 = 1;
    /// #LoadStore
    pub const LS: u8 = 2;
    /// #StoreLoad
    pub const SL: u8 = 4;
    /// #StoreStore
    pub const SS: u8 = 8;
    /// The names of the bits, in bit order.
    pub const NAMES: [(&'static str, u8); 4] = [
        ("#LoadLoad", Self::LL),
        ("#LoadStore", Self::LS),
        ("#StoreLoad", Self::SL),
        ("#StoreStore", Self::SS),
    ];

    /// True if the barrier orders a `first`-kind access before a
    /// `second`-kind access (`true` = store, `false` = load).
    pub fn orders(self, first_is_store: bool, second_is_store: bool) -> bool {
        let bit = match (first_is_store, second_is_store) {
            (false, false) => Self::LL,
            (false, true) => Self::LS,
            (true, false) => Self::SL,
            (true, true) => Self::SS,
        };
        self.0 & bit != 0
    }
}

/// A memory barrier.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Fence {
    /// x86 `mfence` (full barrier: store buffer drained).
    MFence,
    /// Power `sync` (hwsync): cumulative full barrier.
    Sync,
    /// Power `lwsync`: orders all pairs except store→load.
    LwSync,
    /// Power `isync`: with a control dependency, orders later loads.
    ISync,
    /// Power `eieio`: orders store→store.
    Eieio,
    /// SPARC `membar` with a mask.
    Membar(MembarMask),
    /// Arm `DMB SY` (and every full-domain form: `DMB ISH`, `OSH`, `NSH`;
    /// `DSB` of the same kinds, which orders explicit memory accesses
    /// alike): orders every pair of accesses (Arm ARM B2.3.7,
    /// "Barrier-ordered-before"; herd's aarch64hwreqs.cat, DSB-ob).
    Dmb,
    /// Arm `DMB LD` (`ISHLD`, …; `DSB LD` alike): orders reads before
    /// every later access.
    DmbLd,
    /// Arm `DMB ST` (`ISHST`, …): orders writes before later writes.
    DmbSt,
    /// Arm `DSB ST` (`ISHST`, …): orders writes before every later
    /// access — a DSB completes before any later instruction executes
    /// (Arm ARM B2.3.7, "DSB-ordered-before"; herd's aarch64hwreqs.cat,
    /// `[Exp & W]; po; [dsb.st]; po`).
    DsbSt,
    /// Arm `ISB`: with a control or address dependency, orders later reads.
    Isb,
    /// A fence event that orders nothing by itself: herd's C `__fence{tag}`
    /// (`smp_mb()`, `rcu_read_lock()`, …), whose meaning is only the tags
    /// of the enclosing [`Command::Tagged`], read by the model (herd's C
    /// semantics: an `F` event carrying an annotation set).
    Marker,
    /// RISC-V `fence pred,succ` (and `fence.tso`): the access pairs it
    /// orders, as the bits of a [`MembarMask`] (`LL` = r→r, `LS` = r→w,
    /// `SL` = w→r, `SS` = w→w). `fence r,rw` has `LL | LS`, `fence.tso`
    /// has `LL | LS | SS` (RISC-V unprivileged ISA, "Memory Ordering
    /// Instructions" and RVWMO rule 4).
    RvFence(MembarMask),
    /// An event with a location that is neither a read, a write nor a
    /// fence of the `F` set: herd's C `__srcu{tag}(p)` (`synchronize_srcu`,
    /// herd's `SRCU` action of `herd/CAction.ml`), whose location is the
    /// value of the register (an address) and which has no value. The
    /// model sees it through its tags and `loc` (with the accesses of its
    /// location), `po`, `int`/`ext`; no dependency, rf or co.
    Located(RegId),
}

impl MembarMask {
    /// The RISC-V `pred` × `succ` mask (`r` = 1, `w` = 2 in each).
    pub fn rv(pred: u8, succ: u8) -> MembarMask {
        let mut m = 0;
        for (p, s, bit) in [
            (1, 1, Self::LL),
            (1, 2, Self::LS),
            (2, 1, Self::SL),
            (2, 2, Self::SS),
        ] {
            if pred & p != 0 && succ & s != 0 {
                m |= bit;
            }
        }
        MembarMask(m)
    }

    /// The mask of `fence.tso`: every pair but w→r.
    pub const TSO: MembarMask = MembarMask(Self::LL | Self::LS | Self::SS);

    /// The RISC-V spelling of a fence mask: `fence.tso`, `fence r,rw`, …;
    /// `None` when the mask is no product `pred × succ` and not TSO's
    /// (then it is written `membar`-style by the caller).
    pub fn rv_text(self) -> Option<String> {
        if self == Self::TSO {
            return Some("fence.tso".to_string());
        }
        let names = ["", "r", "w", "rw"];
        for p in 1..4u8 {
            for s in 1..4u8 {
                if Self::rv(p, s) == self {
                    return Some(format!("fence {},{}", names[p as usize], names[s as usize]));
                }
            }
        }
        None
    }
}

/// Ordering annotations of a memory access (a bit set): Arm's
/// load-acquire (`LDAR`, the `A` forms of atomics), load-acquirePC
/// (`LDAPR`), store-release (`STLR`, the `L` forms), and RISC-V's `.aq` /
/// `.rl` (acquire / release). Arm ARM B2.3 (the sets A, Q, L of
/// "Barrier-ordered-before"); RISC-V unprivileged ISA, RVWMO rules 5–7.
/// One bit, [`Ann::PICK`], annotates an assignment instead (its
/// dependencies, not its ordering).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, serde::Serialize)]
pub struct Ann(pub u16);

impl Ann {
    /// Acquire (`LDAR`, `.aq`).
    pub const ACQ: u16 = 1;
    /// AcquirePC (`LDAPR`).
    pub const ACQPC: u16 = 2;
    /// Release (`STLR`, `.rl`).
    pub const REL: u16 = 4;
    /// The read of an Arm atomic that returns no data (destination
    /// `WZR`/`XZR`, the `ST<op>` forms): `DMB LD` does not order it (Arm
    /// ARM B2.3.6, Barrier-ordered-before; herd's `NoRet`).
    pub const NORET: u16 = 8;
    /// On an assignment (not an access): every dependency path from a
    /// read to the assigned register becomes a *pick* path (Arm ARM
    /// B2.3.2: the register written by a successful compare-and-swap
    /// depends on its read only through the comparison).
    pub const PICK: u16 = 16;
    /// On a store-conditional: its flag register depends on its write
    /// when it succeeds (RISC-V RVWMO, "syntactic dependencies": an SC's
    /// destination register is a dependency source, so rules 9–13 order
    /// later accesses after the SC; herd's RISC-V `sc.w`).
    pub const SCDEP: u16 = 32;
    /// On a load: an instruction fetch (herd's `Variant=ifetch`; Simner
    /// et al., "ARMv8-A system semantics: instruction fetch in relaxed
    /// architectures", ESOP 2020): the read of a modifiable instruction
    /// from its code address before the instruction executes.
    pub const IFETCH: u16 = 64;
    /// On a load or store: a byte access that continues the byte accesses
    /// of the access before it (herd's mixed-size variant, where an access
    /// to a byte-addressed location is a set of byte events; Flur et al.,
    /// "Mixed-size concurrency: ARM, POWER, C/C++11, and SC", POPL 2017).
    /// An access without this bit followed by a straight line of accesses
    /// with it are the byte events of one instruction, which the base
    /// relation `si` relates ([`Thread::si_groups`]).
    pub const SI: u16 = 128;
    /// On a store-conditional: its value register gives pick
    /// dependencies only, no data dependency (herd's AArch64 `STXR`/`STXP`
    /// read the stored register on no data port and write only under the
    /// success check, so aarch64.cat's `data` and `pick-data-dep`, which
    /// need `ii_data`, have no edge into a store-exclusive, while its
    /// `pick-basic-dep` through the check does: a read the stored value
    /// depends on is ordered before the writes that a local ordering puts
    /// after the store-exclusive, herd's `pick-lob`).
    pub const NODATA: u16 = 256;
    /// The native keyword of each bit, in bit order.
    pub const NAMES: [(&'static str, u16); 9] = [
        ("acq", Self::ACQ),
        ("acqpc", Self::ACQPC),
        ("rel", Self::REL),
        ("noret", Self::NORET),
        ("pick", Self::PICK),
        ("scdep", Self::SCDEP),
        ("ifetch", Self::IFETCH),
        ("si", Self::SI),
        ("nodata", Self::NODATA),
    ];

    /// Every bit [`Ann::NAMES`] defines.
    pub const ALL: u16 = 511;

    /// Whether bit `b` is set.
    pub fn has(self, b: u16) -> bool {
        self.0 & b != 0
    }
}

/// herd's tags of one event (an annotation set, herd's C semantics): tag
/// names as the macro file writes them (`ONCE`, `MB`, `rcu-lock`), sorted
/// and without duplicates. A model sees an event in the set a tag names
/// (with herd's capitalization, `Once`, `Rcu-lock`; docs/models.md).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default, serde::Serialize)]
pub struct Tags(Vec<String>);

impl Tags {
    /// The tag set of `names` (sorted, duplicates dropped).
    pub fn new<S: Into<String>>(names: impl IntoIterator<Item = S>) -> Tags {
        let mut v: Vec<String> = names.into_iter().map(Into::into).collect();
        v.sort();
        v.dedup();
        Tags(v)
    }

    /// The tag names, sorted.
    pub fn names(&self) -> &[String] {
        &self.0
    }

    /// Whether tag `name` is in the set.
    pub fn has(&self, name: &str) -> bool {
        self.0.iter().any(|t| t == name)
    }
}

impl Fence {
    /// The keyword used in the native language.
    pub fn keyword(self) -> &'static str {
        match self {
            Fence::MFence => "mfence",
            Fence::Sync => "sync",
            Fence::LwSync => "lwsync",
            Fence::ISync => "isync",
            Fence::Eieio => "eieio",
            Fence::Membar(_) => "membar",
            Fence::Dmb => "dmb",
            Fence::DmbLd => "dmb ld",
            Fence::DmbSt => "dmb st",
            Fence::DsbSt => "dsb st",
            Fence::Isb => "isb",
            Fence::RvFence(_) => "fence",
            Fence::Marker => "marker",
            Fence::Located(_) => "located",
        }
    }
}

/// PGAS commands (thesis §8.1.2, Table 8.1). Remote operations copy one
/// cell between the local memory and the memory of node `rank`, through
/// queue `queue`; operations of one (rank, queue) complete in order.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum PgasCmd {
    /// `read(local, rank, remote, queue)`: local[local] := mem_rank[remote].
    Read {
        /// Local destination address.
        local: LExpr,
        /// Remote node (1..N).
        rank: LExpr,
        /// Remote source address.
        remote: LExpr,
        /// Queue identifier.
        queue: LExpr,
    },
    /// `write(local, rank, remote, queue)`: mem_rank[remote] := local[local].
    Write {
        /// Local source address.
        local: LExpr,
        /// Remote node (1..N).
        rank: LExpr,
        /// Remote destination address.
        remote: LExpr,
        /// Queue identifier.
        queue: LExpr,
    },
    /// Global barrier of all nodes.
    Barrier,
}

impl PgasCmd {
    /// The operands `(local, rank, remote, queue)` of a remote operation,
    /// in source order; `None` for `barrier`.
    pub fn operands(&self) -> Option<[&LExpr; 4]> {
        match self {
            PgasCmd::Read {
                local,
                rank,
                remote,
                queue,
            }
            | PgasCmd::Write {
                local,
                rank,
                remote,
                queue,
            } => Some([local, rank, remote, queue]),
            PgasCmd::Barrier => None,
        }
    }
}

/// A command labelling an instruction (thesis §2.3 CMD, extended).
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Command {
    /// `reg <- mem[addr]`
    Load {
        /// Destination register.
        reg: RegId,
        /// Address expression.
        addr: LExpr,
    },
    /// `mem[addr] <- value`
    Store {
        /// Address expression.
        addr: LExpr,
        /// Value expression.
        value: LExpr,
    },
    /// `reg <- value` (local assignment).
    Assign {
        /// Destination register.
        reg: RegId,
        /// Value expression.
        value: LExpr,
    },
    /// `assume(e)`: blocks unless e ≠ 0.
    Assume(LExpr),
    /// A memory barrier.
    Fence(Fence),
    /// Takes the global lock (blocks while another thread holds it); under
    /// TSO it first drains the store buffer (Trencher semantics, §7.1.1).
    Lock,
    /// Releases the global lock (after draining the store buffer).
    Unlock,
    /// A sequence of loads, stores, assignments and assumes executed in
    /// one indivisible step (e.g. CAS, x86 `XCHG`, locked instructions). Its
    /// accesses are related by `rmw` and act as a full fence under TSO.
    Atomic(Vec<Command>),
    /// No operation (`assume(1)`).
    Nop,
    /// Power `lwarx`: a load that takes a reservation on its address.
    LoadReserve {
        /// Destination register.
        reg: RegId,
        /// Address expression.
        addr: LExpr,
    },
    /// Power `stwcx.`: stores only if the reservation of the po-latest
    /// `LoadReserve` of this thread still holds (no other write to that
    /// address came between them in co); then the two accesses form an
    /// `rmw` pair. Sets `flag` to 1 on success and 0 on failure; a failing
    /// store-conditional performs no write.
    StoreCond {
        /// Address expression.
        addr: LExpr,
        /// Value expression.
        value: LExpr,
        /// Register receiving 1 (stored) or 0 (failed).
        flag: RegId,
    },
    /// A PGAS command.
    Pgas(PgasCmd),
    /// A memory access (`Load`, `Store`, `LoadReserve`, `StoreCond`) with
    /// ordering annotations; inside `Atomic` each access carries its own
    /// (Arm `SWPAL`: acquire read, release write). Or an `Assign` with
    /// [`Ann::PICK`] (its value's dependencies become pick dependencies).
    Ann(Ann, Box<Command>),
    /// A memory access or fence carrying herd's tags (the annotation set
    /// of an event of herd's C semantics: `Once`, `Acquire`, `Mb`,
    /// `Rcu-lock`, …, named by the macro file, declared by the model's
    /// `enum`s). Inside `Atomic` each access carries its own.
    Tagged(Tags, Box<Command>),
    /// `assume(e)` without a control dependency: blocks unless e ≠ 0, but
    /// later events do not depend on `e`'s registers (the comparison of a
    /// compare-and-swap, the alternatives of a conditional select: herd's
    /// Arm semantics has no control dependency there).
    Guard(LExpr),
    /// `reg := cond ? then : else_` (Arm `CSEL` and its relatives): `reg`
    /// depends on `cond`'s registers and on the selected operand's only
    /// (the "pick" dependencies of Arm ARM B2.3.2).
    Select {
        /// Destination register.
        reg: RegId,
        /// The condition (≠ 0 selects `then`).
        cond: LExpr,
        /// Value when the condition holds.
        then: LExpr,
        /// Value otherwise.
        else_: LExpr,
    },
}

impl Command {
    /// Calls `f` on this command and on every command inside it (the
    /// steps of an `Atomic`, the command an `Ann` or `Tagged` wraps),
    /// outermost first.
    pub fn for_each(&self, f: &mut impl FnMut(&Command)) {
        f(self);
        match self {
            Command::Atomic(cs) => cs.iter().for_each(|c| c.for_each(f)),
            Command::Ann(_, c) | Command::Tagged(_, c) => c.for_each(f),
            _ => {}
        }
    }

    /// The address expressions of an access (a load, store, reservation,
    /// annotated access, or each access inside an `Atomic`), in order;
    /// empty for other commands.
    pub fn access_addrs(&self) -> Vec<&LExpr> {
        match self {
            Command::Load { addr, .. } | Command::Store { addr, .. } => vec![addr],
            Command::LoadReserve { addr, .. } | Command::StoreCond { addr, .. } => vec![addr],
            Command::Ann(_, c) | Command::Tagged(_, c) => c.access_addrs(),
            Command::Atomic(cs) => cs.iter().flat_map(Command::access_addrs).collect(),
            _ => Vec::new(),
        }
    }

    /// True for an atomic step (`Atomic`) that the model's read-modify-write
    /// rule does not make atomic: its accesses name two different addresses
    /// (as expressions: `x` and `y`, or `a[i]` and `a[j]`), or name one
    /// address but are not one read followed by one write (`atomic { x = 2;
    /// r = x; }`: herd's `rmw` relates a read to the write after it only,
    /// so another thread's write could come between). The bounded engine
    /// makes the events of one execution of such a step one node of every
    /// `acyclic` axiom (the base relation `stxn`,
    /// [`crate::cat::atomic_steps`]); a read-then-write step at one
    /// location (CAS, exchange, increment, `lock`) keeps herd's semantics
    /// of read-modify-writes (the `rmw` relation and the model's `atomic`
    /// axiom). A block whose every access carries an ordering annotation
    /// (`Ann`) is one hardware instruction's accesses (AArch64 `STILP` /
    /// `LDIAPP` pairs of a litmus test): herd's events of one instruction,
    /// ordered by the model alone, not an atomic step. So is a block with
    /// byte accesses ([`Ann::SI`]: an LSE atomic at a byte-addressed
    /// location, herd's read and write of its bytes, atomic per byte
    /// through `rmw`).
    pub fn is_atomic_step(&self) -> bool {
        let Command::Atomic(cs) = self else {
            return false;
        };
        let bytes = |c: &Command| matches!(c, Command::Ann(a, _) if a.has(Ann::SI));
        if cs
            .iter()
            .all(|c| matches!(c, Command::Ann(..)) || !c.accesses_memory())
            || cs.iter().any(bytes)
        {
            return false;
        }
        let addrs = self.access_addrs();
        if addrs.iter().any(|a| *a != addrs[0]) {
            return true;
        }
        // One address: atomic by `rmw` only as one read, then one write.
        let mut kinds = Vec::new();
        self.for_each(&mut |c: &Command| match c {
            Command::Load { .. } | Command::LoadReserve { .. } => kinds.push(false),
            Command::Store { .. } | Command::StoreCond { .. } => kinds.push(true),
            _ => {}
        });
        kinds.len() >= 2 && kinds != [false, true]
    }

    /// `Some(true)` for `lock`, `Some(false)` for `unlock` (through
    /// annotations), `None` for every other command: the bounds of a lock
    /// section ([`Program::indivisible_sections`]).
    pub fn lock_bound(&self) -> Option<bool> {
        match self {
            Command::Lock => Some(true),
            Command::Unlock => Some(false),
            Command::Ann(_, c) | Command::Tagged(_, c) => c.lock_bound(),
            _ => None,
        }
    }

    /// True for commands that access shared memory (loads, stores,
    /// atomics, PGAS remote operations).
    pub fn accesses_memory(&self) -> bool {
        match self {
            Command::Load { .. } | Command::Store { .. } => true,
            Command::LoadReserve { .. } | Command::StoreCond { .. } => true,
            Command::Atomic(cs) => cs.iter().any(Command::accesses_memory),
            Command::Ann(_, c) | Command::Tagged(_, c) => c.accesses_memory(),
            Command::Pgas(PgasCmd::Read { .. } | PgasCmd::Write { .. }) => true,
            _ => false,
        }
    }
}

/// An instruction `from --cmd--> to` of a thread.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Instr {
    /// Source control state.
    pub from: StateId,
    /// Target control state.
    pub to: StateId,
    /// The command.
    pub cmd: Command,
    /// Where it was written (for messages and witnesses).
    #[serde(skip)]
    pub span: Span,
}

/// A thread of which a program may run any number of copies: every
/// store of 1 to `start_flag` starts one more copy at the thread's
/// initial state (a `pthread_create` in a loop kept as a cycle,
/// [`crate::frontend::c::Options::replicate`]). The copies share memory
/// except `owned`: cells `[lo, hi)` every copy has its own of (its locals
/// whose address is taken, its thread-local objects), initially as in
/// [`Program::init`]. Read by the counting abstraction
/// ([`crate::engines::explicit::counting`]); the other engines run the
/// program with one copy and must not be given one with such threads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Replicated {
    /// The thread whose copies these are.
    pub thread: ThreadId,
    /// The cell a creation stores 1 to (the thread waits for it).
    pub start_flag: i64,
    /// The cells each copy has its own of, as ranges `[lo, hi)`.
    pub owned: Vec<(i64, i64)>,
}

/// A thread: an automaton over commands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Thread {
    /// The thread's name.
    pub name: Sym,
    /// Control-state names; [`StateId`] indexes this.
    pub states: Vec<Sym>,
    /// The initial control state.
    pub initial: StateId,
    /// Register names; [`RegId`] indexes this.
    pub regs: Vec<Sym>,
    /// Initial register values (`reg_init[r]`, default 0).
    pub reg_init: Vec<i64>,
    /// The instructions, in source order.
    pub instrs: Vec<Instr>,
    /// Registers whose final value the IR no longer keeps: the
    /// simplifier turned a write to them into `nop` because nothing used
    /// the value (`simplify::remove_dead`). Witnesses do not print their
    /// final values (they could be stale). Empty for unsimplified threads.
    pub unkept: Vec<RegId>,
    /// herd's C `if` (`herd/CSem.ml`, `choiceT`: `ctrl` from a
    /// condition's reads reaches the events of its branches only): when
    /// set, the thread's ctrl prefix is this register's taint — an
    /// `assume` adds its condition's reads to it, and the front-end saves
    /// and restores it around a branch by assignments, so the events
    /// after the join carry no `ctrl` from the condition. `None` (every
    /// other front-end): the reads of every executed `assume` reach every
    /// later event (thesis §4.1).
    pub ctrl_reg: Option<RegId>,
    /// Where the thread was declared.
    pub span: Span,
}

impl Thread {
    /// True when the lock section entered at state `q` (the instructions
    /// reachable from `q` without passing an `unlock`) accesses memory at
    /// most once on every path, or once by a load and then once by a
    /// store of one address expression, with no access on a loop of the
    /// section ([`Program::section_beyond_rmw`]).
    fn lock_section_is_rmw(&self, q: StateId) -> bool {
        // The section's instructions: reachable from q, not past an unlock.
        let mut seen = vec![q];
        let mut todo = vec![q];
        let mut inside: Vec<usize> = Vec::new();
        while let Some(s) = todo.pop() {
            for (j, ins) in self.instrs.iter().enumerate().filter(|(_, i)| i.from == s) {
                inside.push(j);
                if ins.cmd.lock_bound().is_some() {
                    continue;
                }
                if !seen.contains(&ins.to) {
                    seen.push(ins.to);
                    todo.push(ins.to);
                }
            }
        }
        let reach = |from: StateId, to: StateId| {
            let (mut seen, mut todo) = (vec![from], vec![from]);
            while let Some(s) = todo.pop() {
                if s == to {
                    return true;
                }
                for ins in inside.iter().map(|&j| &self.instrs[j]) {
                    if ins.from == s && ins.cmd.lock_bound().is_none() && !seen.contains(&ins.to) {
                        seen.push(ins.to);
                        todo.push(ins.to);
                    }
                }
            }
            false
        };
        let acc: Vec<&Instr> = (inside.iter())
            .map(|&j| &self.instrs[j])
            .filter(|i| i.cmd.lock_bound().is_none() && i.cmd.accesses_memory())
            .collect();
        if acc.iter().any(|i| reach(i.to, i.from)) {
            return false;
        }
        let plain = |c: &Command| match c {
            Command::Ann(_, c) | Command::Tagged(_, c) => c.as_ref().clone(),
            c => c.clone(),
        };
        match acc.as_slice() {
            [] => true,
            [a] => !a.cmd.is_atomic_step(),
            [a, b] => {
                let (l, s) = match (plain(&a.cmd), plain(&b.cmd)) {
                    (Command::Load { .. }, Command::Store { .. }) => (a, b),
                    (Command::Store { .. }, Command::Load { .. }) => (b, a),
                    _ => return false,
                };
                l.cmd.access_addrs() == s.cmd.access_addrs()
                    && reach(l.to, s.from)
                    && !reach(s.to, l.from)
            }
            _ => false,
        }
    }

    /// A new thread with one state `initial` and no instructions.
    pub fn new(name: Sym, initial: Sym, span: Span) -> Thread {
        Thread {
            name,
            states: vec![initial],
            initial: StateId(0),
            regs: Vec::new(),
            reg_init: Vec::new(),
            instrs: Vec::new(),
            unkept: Vec::new(),
            ctrl_reg: None,
            span,
        }
    }

    /// The state named `name`, adding it if new.
    pub fn state(&mut self, name: Sym) -> StateId {
        match self.states.iter().position(|s| *s == name) {
            Some(i) => StateId(i as u32),
            None => {
                self.states.push(name);
                StateId(self.states.len() as u32 - 1)
            }
        }
    }

    /// The state named `name` if it exists.
    pub fn find_state(&self, name: Sym) -> Option<StateId> {
        self.states
            .iter()
            .position(|s| *s == name)
            .map(|i| StateId(i as u32))
    }

    /// The register named `name`, adding it (initial value 0) if new.
    pub fn reg(&mut self, name: Sym) -> RegId {
        match self.regs.iter().position(|s| *s == name) {
            Some(i) => RegId(i as u32),
            None => {
                self.regs.push(name);
                self.reg_init.push(0);
                RegId(self.regs.len() as u32 - 1)
            }
        }
    }

    /// The register named `name` if it exists.
    pub fn find_reg(&self, name: Sym) -> Option<RegId> {
        self.regs
            .iter()
            .position(|s| *s == name)
            .map(|i| RegId(i as u32))
    }

    /// For each state, the indices (into [`Thread::instrs`]) of its
    /// outgoing instructions, in source order. Shape: `states.len()` lists.
    pub fn outgoing(&self) -> Vec<Vec<usize>> {
        let mut out = vec![Vec::new(); self.states.len()];
        for (i, ins) in self.instrs.iter().enumerate() {
            out[ins.from.0 as usize].push(i);
        }
        out
    }

    /// True when the bound cuts some path of the thread: a control state
    /// reachable in exactly `bound` steps (by the control flow alone,
    /// values ignored, as the unrollings select a step's candidates) has
    /// an outgoing instruction. False when every path ends before step
    /// `bound`, so that unrolling to `bound` steps or to any more gives
    /// the same thread.
    pub fn cut_by(&self, bound: u32) -> bool {
        let out = self.outgoing();
        let mut cur = std::collections::BTreeSet::from([self.initial]);
        for _ in 0..bound {
            cur = (cur.iter())
                .flat_map(|q| out[q.0 as usize].iter().map(|&i| self.instrs[i].to))
                .collect();
            if cur.is_empty() {
                return false;
            }
        }
        cur.iter().any(|q| !out[q.0 as usize].is_empty())
    }

    /// herd's single-copy-atomic groups of byte events (its `sca`, whose
    /// pairs are the base relation `si`; herd's mixed-size variant): per
    /// instruction (index into [`Thread::instrs`]), `Some((group, k))`
    /// when it is byte `k` of group `group` (an index into the second
    /// result, the groups' instructions in order). A group is an access
    /// without [`Ann::SI`] followed by the straight line (each state with
    /// one outgoing instruction) of accesses with it; groups of one
    /// access are left out (their `si` is the identity).
    pub fn si_groups(&self) -> SiGroups {
        let is_si = |i: usize| matches!(&self.instrs[i].cmd, Command::Ann(a, _) if a.has(Ann::SI));
        let out = self.outgoing();
        let mut of = vec![None; self.instrs.len()];
        let mut groups = Vec::new();
        for first in (0..self.instrs.len()).filter(|&i| !is_si(i)) {
            if !self.instrs[first].cmd.accesses_memory() {
                continue;
            }
            let mut g = vec![first];
            loop {
                let next = &out[self.instrs[g[g.len() - 1]].to.0 as usize];
                match next[..] {
                    [j] if is_si(j) && !g.contains(&j) => g.push(j),
                    _ => break,
                }
            }
            if g.len() > 1 {
                for (k, &i) in g.iter().enumerate() {
                    of[i] = Some((groups.len(), k as u32));
                }
                groups.push(g);
            }
        }
        (of, groups)
    }
}

/// [`Thread::si_groups`]: per instruction, its group and byte number
/// (`None` outside groups of two or more accesses); per group, its
/// instructions in order.
pub type SiGroups = (Vec<Option<(usize, u32)>>, Vec<Vec<usize>>);

/// A named shared variable: a name for an address, with an initial value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SharedVar {
    /// The name.
    pub name: Sym,
    /// Its address.
    pub addr: i64,
    /// Its initial value (default 0).
    pub init: i64,
    /// Where it was declared.
    pub span: Span,
}

/// What a goal stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum GoalKind {
    /// A user-declared goal (`goal ...`): reaching it is the question.
    Goal,
    /// The failure state of an `assert`: reaching it is a violation.
    Assertion,
}

/// Where threads must be for a goal to count.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GoalAt {
    /// Listed threads at listed states; other threads anywhere.
    States(Vec<(ThreadId, StateId)>),
    /// Every thread terminated (at a state without outgoing instructions),
    /// as for a litmus test's final state.
    Final,
}

/// A goal: a combination of control states, optionally with a condition
/// on registers and memory evaluated in that state (memory = the final
/// value of each cell, all stores having reached memory).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Goal {
    /// Optional name (shown in witnesses).
    pub name: Option<String>,
    /// Goal or assertion failure.
    pub kind: GoalKind,
    /// Control-state part.
    pub at: GoalAt,
    /// Condition on registers and memory (`None` = true).
    pub cond: Option<GExpr>,
    /// Where it was declared.
    pub span: Span,
}

/// A whole program.
#[derive(Clone, Debug, Default)]
pub struct Program {
    /// All names, interned once.
    pub names: Interner,
    /// Named shared variables, in declaration order.
    pub vars: Vec<SharedVar>,
    /// Initial memory: address → value; every other cell is 0. Contains
    /// the initial values of [`Program::vars`].
    pub init: BTreeMap<i64, i64>,
    /// The threads; [`ThreadId`] indexes this.
    pub threads: Vec<Thread>,
    /// Goals and assertion failures.
    pub goals: Vec<Goal>,
    /// PGAS: the number of nodes if the program is SPMD (`None` otherwise).
    pub nodes: Option<u32>,
    /// The memory locations a C litmus test observes (herd's
    /// `observed`: those of its `locations` list, condition and filter),
    /// `None` for other programs. herd's final writes (`FW`) are those
    /// of these locations only (herd computes final values only for the
    /// observed locations when the model does not enumerate co,
    /// `herd/mem.ml`, `observed_finals_only`).
    pub observed: Option<Vec<i64>>,
    /// The source the program was read from (for messages).
    pub source: Option<SourceFile>,
    /// What the front-end cut or replaced, said with every answer (C:
    /// loops cut by `--unwind`, spin loops replaced by `assume`).
    pub notes: Vec<String>,
    /// Templates of a parameterized program (thesis §2.5, §6.3): threads
    /// that stand for any number of copies (`thread t *` in the native
    /// language), in increasing order. Only parameterized robustness
    /// (`crate::engines::parameterized`) reads it; every other engine runs one copy
    /// of each thread.
    pub templates: Vec<ThreadId>,
    /// The longest path of any thread (instructions) when the front-end
    /// made every thread acyclic (C: loops unwound, calls inlined): the
    /// default `--bound`, which then cuts no path.
    pub max_path: Option<u32>,
}

impl Program {
    /// The first thread with an indivisible section that the model's
    /// read-modify-write rule does not cover: an atomic step over several
    /// locations ([`Command::is_atomic_step`]) or a `lock` (its lock
    /// section, [`Program::indivisible_sections`]). Every engine executes
    /// such a section indivisibly; the bounded engine then checks the
    /// model contracted over the sections ([`crate::cat::atomic_steps`])
    /// and contracts them in its hb-cycle query, which costs nothing for
    /// programs without one.
    pub fn atomic_step_thread(&self) -> Option<ThreadId> {
        self.threads.iter().enumerate().find_map(|(t, th)| {
            (th.instrs.iter())
                .any(|i| i.cmd.is_atomic_step() || i.cmd.lock_bound() == Some(true))
                .then_some(ThreadId(t as u32))
        })
    }

    /// The first indivisible section of the program over which a
    /// happens-before cycle can pass without being a cycle of its events:
    /// `(thread, instruction index, what)`, `None` when there is none. An
    /// engine whose robustness check takes hb over events (the normal-form
    /// engine, the parameterized engine) refuses such a program: a
    /// computation is robust iff it is equivalent to an SC computation in
    /// which every indivisible section is indivisible, i.e. hb with each
    /// section contracted is acyclic (docs/models.md, "Robustness and
    /// indivisible sections"). The sections it names are an atomic step
    /// over several addresses ([`Command::is_atomic_step`]; at one address
    /// the step's accesses read and write one value in coherence order, so
    /// a cycle entering at one access and leaving at another also passes
    /// through an event edge between them), and a lock section (from a
    /// `lock` to an `unlock`, over every path of the thread's control
    /// graph) whose accesses are not at most one access, or one load then
    /// one store of one address (Trencher's compare-and-swap shape), each
    /// executed at most once.
    pub fn section_beyond_rmw(&self) -> Option<(ThreadId, usize, String)> {
        for (t, th) in self.threads.iter().enumerate() {
            for (i, ins) in th.instrs.iter().enumerate() {
                let tid = ThreadId(t as u32);
                if ins.cmd.is_atomic_step() {
                    let addrs = ins.cmd.access_addrs();
                    if addrs.iter().any(|a| *a != addrs[0]) {
                        return Some((tid, i, "an atomic step over several addresses".into()));
                    }
                }
                if ins.cmd.lock_bound() == Some(true) && !th.lock_section_is_rmw(ins.to) {
                    return Some((
                        tid,
                        i,
                        "a lock section with accesses other than one load then one store \
                         of one address"
                            .into(),
                    ));
                }
            }
        }
        None
    }

    /// True when every indivisible section of the program holds at most
    /// one memory event on every path: no atomic step over several
    /// locations ([`Command::is_atomic_step`]), every lock section's
    /// accesses (between a `lock` and the `unlock` that releases it, over
    /// every path of the thread's control graph, loops included) are at
    /// most one plain load or store, and every `unlock` runs while its
    /// thread holds the lock. Such a section is indivisible by itself for
    /// robustness: its lock events are accesses to the lock cell, whose
    /// coherence order then takes the sections one after the other, so a
    /// happens-before cycle that enters the section at a later event and
    /// leaves it at an earlier one also enters at the `lock` or leaves at
    /// the `unlock`, and hb over events has a cycle iff hb with each
    /// section contracted has one (docs/models.md, "Robustness and
    /// indivisible sections"). The bounded hb-cycle query then takes hb
    /// over events; the model's axioms are still contracted
    /// ([`Program::atomic_step_thread`]).
    pub fn sections_hold_one_access(&self) -> bool {
        let plain = |c: &Command| match c {
            Command::Ann(_, c) | Command::Tagged(_, c) => {
                matches!(c.as_ref(), Command::Load { .. } | Command::Store { .. })
            }
            c => matches!(c, Command::Load { .. } | Command::Store { .. }),
        };
        self.threads.iter().all(|th| {
            // Facts per state: (lock held, accesses since the lock).
            let out = th.outgoing();
            let mut seen = crate::collections::HashSet::default();
            let mut todo = vec![(th.initial, false, 0u8)];
            seen.insert(todo[0]);
            while let Some((q, held, n)) = todo.pop() {
                for ins in out[q.0 as usize].iter().map(|&i| &th.instrs[i]) {
                    let next = match ins.cmd.lock_bound() {
                        _ if ins.cmd.is_atomic_step() => return false,
                        Some(true) if held => continue,
                        Some(true) => (ins.to, true, 0),
                        Some(false) if !held => return false,
                        Some(false) => (ins.to, false, 0),
                        None if !held || !ins.cmd.accesses_memory() => (ins.to, held, n),
                        None if n == 0 && plain(&ins.cmd) => (ins.to, true, 1),
                        None => return false,
                    };
                    if seen.insert(next) {
                        todo.push(next);
                    }
                }
            }
            true
        })
    }

    /// The indivisible sections along a path of thread `t` (the
    /// instructions it executes, in order, as indices into
    /// `Thread::instrs`): per step, the number of its section, `None`
    /// for a step in none. A section is either one atomic step over
    /// several locations ([`Command::is_atomic_step`]) or a lock section:
    /// a `lock`, the steps after it and the `unlock` that releases it
    /// (to the end of the path when none does). Thesis 003 §7.1.1, Table
    /// 7.1: `lock` takes an exclusive lock on memory, and while a thread
    /// holds it the other threads' loads and stores block, so no other
    /// thread's access comes between two of the section's. Sections are
    /// numbered from 0 in path order; an atomic step inside a lock
    /// section belongs to the lock section.
    pub fn indivisible_sections(&self, t: ThreadId, path: &[usize]) -> Vec<Option<u32>> {
        let instrs = &self.threads[t.0 as usize].instrs;
        let mut out = Vec::with_capacity(path.len());
        let (mut next, mut held) = (0u32, None);
        for &i in path {
            let cmd = &instrs[i].cmd;
            match (cmd.lock_bound(), held) {
                (Some(true), None) => {
                    held = Some(next);
                    next += 1;
                    out.push(held);
                }
                (Some(false), Some(s)) => {
                    out.push(Some(s));
                    held = None;
                }
                (_, Some(s)) => out.push(Some(s)),
                (_, None) if cmd.is_atomic_step() => {
                    out.push(Some(next));
                    next += 1;
                }
                _ => out.push(None),
            }
        }
        out
    }

    /// The name of a symbol.
    pub fn name(&self, s: Sym) -> &str {
        self.names.name(s)
    }

    /// The thread's name.
    pub fn thread_name(&self, t: ThreadId) -> &str {
        self.name(self.threads[t.0 as usize].name)
    }

    /// The state's name.
    pub fn state_name(&self, t: ThreadId, q: StateId) -> &str {
        self.name(self.threads[t.0 as usize].states[q.0 as usize])
    }

    /// The register's name.
    pub fn reg_name(&self, t: ThreadId, r: RegId) -> &str {
        self.name(self.threads[t.0 as usize].regs[r.0 as usize])
    }

    /// The shared variable at `addr`, if one is named there.
    pub fn var_at(&self, addr: i64) -> Option<&SharedVar> {
        self.vars.iter().find(|v| v.addr == addr)
    }

    /// A printable name for an address: the variable name or `mem[a]`.
    pub fn addr_name(&self, addr: i64) -> String {
        match self.var_at(addr) {
            Some(v) => self.name(v.name).to_string(),
            None => format!("mem[{addr}]"),
        }
    }

    /// The initial value of the cell at `addr`.
    pub fn init_value(&self, addr: i64) -> i64 {
        self.init.get(&addr).copied().unwrap_or(0)
    }

    /// Thread ids in order.
    pub fn thread_ids(&self) -> impl Iterator<Item = ThreadId> {
        (0..self.threads.len() as u32).map(ThreadId)
    }

    /// The largest absolute value of any constant in the program (initial
    /// memory and registers, addresses of variables, expressions, goals).
    /// Used to pick the narrowest width that represents a litmus test.
    pub fn max_abs_constant(&self) -> i64 {
        // |v|, with |i64::MIN| saturated to i64::MAX (`abs` would wrap).
        fn mag(v: i64) -> i64 {
            v.unsigned_abs().min(i64::MAX as u64) as i64
        }
        fn walk<V: Copy>(e: &Expr<V>, m: &mut i64) {
            match e {
                Expr::Const(c) => *m = (*m).max(mag(*c)),
                Expr::Un(_, a) => walk(a, m),
                Expr::Bin(_, a, b) => {
                    walk(a, m);
                    walk(b, m);
                }
                _ => {}
            }
        }
        fn cmd(c: &Command, m: &mut i64) {
            match c {
                Command::Load { addr, .. } | Command::LoadReserve { addr, .. } => walk(addr, m),
                Command::Store { addr, value } | Command::StoreCond { addr, value, .. } => {
                    walk(addr, m);
                    walk(value, m);
                }
                Command::Assign { value, .. } => walk(value, m),
                Command::Assume(e) => walk(e, m),
                Command::Atomic(cs) => cs.iter().for_each(|c| cmd(c, m)),
                Command::Ann(_, c) | Command::Tagged(_, c) => cmd(c, m),
                Command::Pgas(p) => {
                    for e in p.operands().into_iter().flatten() {
                        walk(e, m);
                    }
                }
                _ => {}
            }
        }
        let mut m = 0i64;
        for (a, v) in &self.init {
            m = m.max(mag(*a)).max(mag(*v));
        }
        for v in &self.vars {
            m = m.max(mag(v.addr)).max(mag(v.init));
        }
        for t in &self.threads {
            for v in &t.reg_init {
                m = m.max(mag(*v));
            }
            for i in &t.instrs {
                cmd(&i.cmd, &mut m);
            }
        }
        for g in &self.goals {
            if let Some(c) = &g.cond {
                walk(c, &mut m);
            }
        }
        m
    }

    /// The program with fences inserted at control states (thesis §6.5,
    /// generalised to every fence kind): for each `(thread, q, fence)` a
    /// fresh state `q_x` takes over all outgoing instructions of `q`, and
    /// `q --fence--> q_x` is added, so the fence runs before whatever
    /// leaves `q`. Several fences at one `q` form a chain in the given
    /// order (`q --f1--> q_fence --f2--> q_fence1`). Locations naming a missing thread or state are ignored;
    /// duplicates are inserted once. The fresh state is named `<q>_fence`
    /// (with a numeric suffix if taken).
    ///
    /// Returns the new program and, per thread, the original state of
    /// every state of the new program (`origin[t][s]`; a fresh state maps
    /// to the `q` it was inserted at; shape: threads × new states).
    /// Instruction indices below the old count keep their meaning.
    pub fn insert_fences(
        &self,
        locs: &[(ThreadId, StateId, Fence)],
    ) -> (Program, Vec<Vec<StateId>>) {
        let mut p = self.clone();
        let mut origin: Vec<Vec<StateId>> = p
            .threads
            .iter()
            .map(|t| (0..t.states.len() as u32).map(StateId).collect())
            .collect();
        let mut seen: Vec<(ThreadId, StateId, Fence)> = Vec::new();
        // The last state of the chain inserted at each (thread, q).
        let mut tail: BTreeMap<(ThreadId, StateId), StateId> = BTreeMap::new();
        for &(t, q, f) in locs {
            let Some(th) = p.threads.get(t.0 as usize) else {
                continue;
            };
            if q.0 as usize >= th.states.len() || seen.contains(&(t, q, f)) {
                continue;
            }
            seen.push((t, q, f));
            let at = tail.get(&(t, q)).copied().unwrap_or(q);
            let base = format!("{}_fence", p.state_name(t, q));
            let mut name = base.clone();
            let mut k = 1;
            while p
                .names
                .get(&name)
                .is_some_and(|s| p.threads[t.0 as usize].states.contains(&s))
            {
                name = format!("{base}{k}");
                k += 1;
            }
            let sym = p.names.intern(&name);
            let th = &mut p.threads[t.0 as usize];
            th.states.push(sym);
            origin[t.0 as usize].push(q);
            let qx = StateId(th.states.len() as u32 - 1);
            for ins in th.instrs.iter_mut().filter(|i| i.from == at) {
                ins.from = qx;
            }
            th.instrs.push(Instr {
                from: at,
                to: qx,
                cmd: Command::Fence(f),
                span: Span::default(),
            });
            tail.insert((t, q), qx);
        }
        (p, origin)
    }

    /// A structural fingerprint independent of symbol numbering and spans:
    /// names are resolved to strings. Two programs with equal fingerprints
    /// are the same IR (used by the round-trip tests).
    pub fn fingerprint(&self) -> String {
        use std::fmt::Write;
        let mut s = String::new();
        for v in &self.vars {
            let _ = writeln!(s, "var {} @{} = {}", self.name(v.name), v.addr, v.init);
        }
        let _ = writeln!(s, "init {:?}", self.init);
        let _ = writeln!(s, "nodes {:?}", self.nodes);
        let _ = writeln!(s, "templates {:?}", self.templates);
        for t in &self.threads {
            let _ = writeln!(s, "thread {}", self.name(t.name));
            let st: Vec<&str> = t.states.iter().map(|q| self.name(*q)).collect();
            let _ = writeln!(
                s,
                "  states {:?} initial {}",
                st,
                self.name(t.states[t.initial.0 as usize])
            );
            let rg: Vec<(&str, i64)> = t
                .regs
                .iter()
                .zip(&t.reg_init)
                .map(|(r, v)| (self.name(*r), *v))
                .collect();
            let _ = writeln!(s, "  regs {rg:?}");
            for i in &t.instrs {
                let _ = writeln!(s, "  {} -> {}: {:?}", i.from.0, i.to.0, i.cmd);
            }
        }
        for g in &self.goals {
            let _ = writeln!(s, "goal {:?} {:?} {:?} {:?}", g.name, g.kind, g.at, g.cond);
        }
        s
    }
}

/// Test helper shared by the passes' unit tests: a thread `t` with
/// states q0..q(n-1) (q0 initial), registers r0..r(k-1) (names interned
/// in `names`) and the given instructions `(from, to, command)`.
#[cfg(test)]
pub(crate) fn test_thread(
    names: &mut intern::Interner,
    n: u32,
    k: u32,
    instrs: Vec<(u32, u32, Command)>,
) -> Thread {
    let mut t = Thread::new(names.intern("t"), names.intern("q0"), Span::default());
    for q in 1..n {
        t.state(names.intern(&format!("q{q}")));
    }
    for r in 0..k {
        t.reg(names.intern(&format!("r{r}")));
    }
    t.instrs = instrs
        .into_iter()
        .map(|(f, to, cmd)| Instr {
            from: StateId(f),
            to: StateId(to),
            cmd,
            span: Span::default(),
        })
        .collect();
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states_and_regs_are_interned_per_thread() {
        let mut p = Program::default();
        let n = p.names.intern("t0");
        let q0 = p.names.intern("q0");
        let q1 = p.names.intern("q1");
        let r = p.names.intern("r");
        let mut t = Thread::new(n, q0, Span::default());
        assert_eq!(t.state(q0), StateId(0));
        assert_eq!(t.state(q1), StateId(1));
        assert_eq!(t.state(q1), StateId(1));
        assert_eq!(t.reg(r), RegId(0));
        assert_eq!(t.reg_init, vec![0]);
        t.instrs.push(Instr {
            from: StateId(0),
            to: StateId(1),
            cmd: Command::Nop,
            span: Span::default(),
        });
        assert_eq!(t.outgoing(), vec![vec![0], vec![]]);
        p.threads.push(t);
        assert_eq!(p.state_name(ThreadId(0), StateId(1)), "q1");
    }

    #[test]
    fn membar_mask_orders() {
        let m = MembarMask(MembarMask::SL | MembarMask::SS);
        assert!(m.orders(true, false));
        assert!(m.orders(true, true));
        assert!(!m.orders(false, false));
    }
}
