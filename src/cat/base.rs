//! The vocabulary of the model language: which base sets and base
//! relations a candidate execution provides, what each one means, and the
//! rules that decide the ones that are static. This is the one table of
//! names ([`SETS`], [`RELS`]); the parser resolves a model's names against
//! it into [`Builtin`] values, and every backend (the varisat encoder and
//! its concrete evaluator base, its eager encoder, the z3 encoder) reads
//! the candidate execution through `match`es on [`BaseSet`] / [`BaseRel`],
//! so a new base name makes the compiler point at each backend that must
//! give it a meaning.
//!
//! Sources of the meanings: the thesis (`../shared/seeds/003_b8302a5fa90518a8.txt`,
//! cited as "thesis 003 §…": §2.7 traces with program, coherence, source
//! and conflict order; §4.1–4.2 Power barriers and dependencies; §5.1
//! SPARC `membar`; §7.1.4 atomic instructions; §8.1.2 and §8.2 PGAS) and
//! herd's cat language (Alglave, Maranget, Tautschnig, *Herding cats*,
//! TOPLAS 2014; the herd7 manual), whose names the dialect keeps.
//!
//! Conventions every backend follows (docs/models.md): relations and sets
//! only contain *executed* events; initial writes are implicit (a read
//! without rf source reads the initial value of its location).

use super::Ty;
use crate::program::{Fence, MembarMask};

/// A base set: a set of events every model may name.
///
/// The declaration order is the order of [`SETS`] (checked at compile
/// time), which is the order error messages list the names in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BaseSet {
    /// `R`: reads.
    R,
    /// `W`: writes.
    W,
    /// `M`: memory accesses, `R ∪ W`.
    M,
    /// `F`: every fence.
    F,
    /// `IW`: initial writes (always empty: initial writes are implicit).
    IW,
    /// `A`: accesses of atomic / locked instructions.
    A,
    /// `MFENCE`: x86 `mfence`.
    MFence,
    /// `SYNC`: Power `sync`.
    Sync,
    /// `LWSYNC`: Power `lwsync`.
    LwSync,
    /// `ISYNC`: Power `isync`.
    ISync,
    /// `EIEIO`: Power `eieio`.
    Eieio,
    /// `MEMBAR`: SPARC `membar` with any mask.
    Membar,
    /// `MembarLL`: `membar` with `#LoadLoad`.
    MembarLL,
    /// `MembarLS`: `membar` with `#LoadStore`.
    MembarLS,
    /// `MembarSL`: `membar` with `#StoreLoad`.
    MembarSL,
    /// `MembarSS`: `membar` with `#StoreStore`.
    MembarSS,
    /// `ISSUE`: PGAS remote-operation issue events.
    Issue,
    /// `POPA`: PGAS popa events.
    PopA,
    /// `POPB`: PGAS popb events.
    PopB,
    /// `BAR`: PGAS barrier events.
    Bar,
    /// `DMB`: Arm full barrier (`DMB SY`, `ISH`, …; `DSB`).
    Dmb,
    /// `DMBLD`: Arm `DMB LD`.
    DmbLd,
    /// `DMBST`: Arm `DMB ST`.
    DmbSt,
    /// `DSBST`: Arm `DSB ST`.
    DsbSt,
    /// `ISB`: Arm instruction barrier.
    Isb,
    /// `FenceRR`: RISC-V fence ordering reads before reads.
    FenceRR,
    /// `FenceRW`: RISC-V fence ordering reads before writes.
    FenceRW,
    /// `FenceWR`: RISC-V fence ordering writes before reads.
    FenceWR,
    /// `FenceWW`: RISC-V fence ordering writes before writes.
    FenceWW,
    /// `ACQ`: acquire accesses.
    Acq,
    /// `ACQPC`: acquirePC accesses.
    AcqPC,
    /// `REL`: release accesses.
    Rel,
    /// `X`: exclusive accesses.
    X,
    /// `NORET`: reads of atomics that return no data.
    NoRet,
    /// `IF`: instruction fetches (herd's ifetch variant).
    IFetch,
    /// The events carrying one of herd's tags (an annotation of herd's C
    /// semantics, declared by a model's `enum`: `'ONCE`, `'rcu-lock`, …),
    /// named in the model by the tag with its first letter upper-cased
    /// (`ONCE`, `Rcu-lock`). Not in [`SETS`]: a model declares its tags.
    Tag(Tag),
    /// The memory accesses of a location the test observes
    /// ([`crate::program::Program::observed`]; every access when the
    /// program has no such list). Not in [`SETS`] (no model names it):
    /// herd's `FW` of C is read as its final writes within this set.
    Observed,
}

/// One of herd's tags (herd's C semantics: the annotation of an access or
/// fence, `__load{ONCE}`, `__fence{rcu-lock}`), interned: herd compares
/// tags without regard to case (its C front-end lower-cases the
/// annotations of the macro file, `lib/CLexer.mll`; its bell reads
/// `'ONCE`), so the tag is kept lower-cased. Shape: a static string
/// `'tag` (the quote keeps it apart from every base set name).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Tag(&'static str);

impl Tag {
    /// The tag `name` (`ONCE`, `'ONCE`, `once`: one tag).
    pub fn new(name: &str) -> Tag {
        use std::sync::Mutex;
        static TAGS: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());
        let key = format!("'{}", name.trim_start_matches('\'').to_lowercase());
        let mut tags = TAGS.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(t) = tags.iter().find(|t| **t == key) {
            return Tag(t);
        }
        let t: &'static str = Box::leak(key.into_boxed_str());
        tags.push(t);
        Tag(t)
    }

    /// The name events carry for it (`'once`), as [`BaseSet::name`].
    pub fn key(self) -> &'static str {
        self.0
    }

    /// The tag, lower-cased, without its quote (`once`).
    pub fn name(self) -> &'static str {
        &self.0[1..]
    }
}

/// A base relation: a binary relation over events every model may name.
///
/// The declaration order is the order of [`RELS`] (checked at compile
/// time).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BaseRel {
    /// `po`: program order.
    Po,
    /// `rf`: reads-from.
    Rf,
    /// `co`: coherence order.
    Co,
    /// `fr`: from-read.
    Fr,
    /// `loc`: same location.
    Loc,
    /// `int`: same thread.
    Int,
    /// `ext`: different threads.
    Ext,
    /// `id`: identity.
    Id,
    /// `addr`: address dependency.
    Addr,
    /// `data`: data dependency.
    Data,
    /// `ctrl`: control dependency.
    Ctrl,
    /// `pick-addr`: pick address dependency (through a select's condition).
    PickAddr,
    /// `pick-data`: pick data dependency.
    PickData,
    /// `pick-ctrl`: pick control dependency.
    PickCtrl,
    /// `rmw`: read-modify-write pairs.
    Rmw,
    /// `univ`: every pair.
    Univ,
    /// `op`: PGAS issue → popa → popb.
    Op,
    /// `fifo`: PGAS queue order.
    Fifo,
    /// `bar`: PGAS barrier matching.
    Bar,
    /// `stxn`: two events of one execution of an atomic step over several
    /// locations.
    Stxn,
    /// `si`: two memory events of one instruction (herd's
    /// single-copy-atomic groups), reflexive on memory events.
    Si,
}

/// One row of the vocabulary table: the value, the name models use and
/// its meaning (with its source).
#[derive(Clone, Copy, Debug)]
pub struct Entry<T> {
    /// The value.
    pub base: T,
    /// The name in the model language.
    pub name: &'static str,
    /// What it means, one line, with its source.
    pub doc: &'static str,
}

const fn set(base: BaseSet, name: &'static str, doc: &'static str) -> Entry<BaseSet> {
    Entry { base, name, doc }
}

const fn rel(base: BaseRel, name: &'static str, doc: &'static str) -> Entry<BaseRel> {
    Entry { base, name, doc }
}

/// The base sets, in [`BaseSet`] order.
pub const SETS: [Entry<BaseSet>; 35] = [
    set(BaseSet::R, "R", "reads: loads, the read of an atomic instruction, PGAS popa (thesis 003 §2.3, §8.1.2)"),
    set(BaseSet::W, "W", "writes: stores, the write of an atomic instruction or successful stwcx., PGAS popb (thesis 003 §2.3, §8.1.2)"),
    set(BaseSet::M, "M", "memory accesses, R ∪ W (herd manual)"),
    set(BaseSet::F, "F", "fences: every event of a fence instruction (herd manual)"),
    set(BaseSet::IW, "IW", "initial writes: always empty, initial writes are implicit (docs/models.md)"),
    set(BaseSet::A, "A", "accesses of atomic/locked instructions: atomic { }, cas, xchg, lock, unlock, x86 XCHG (thesis 003 §7.1.4)"),
    set(BaseSet::MFence, "MFENCE", "x86 mfence (thesis 003 §2.4.2; Herding cats §4.7)"),
    set(BaseSet::Sync, "SYNC", "Power sync (thesis 003 §4.1)"),
    set(BaseSet::LwSync, "LWSYNC", "Power lwsync (thesis 003 §4.1)"),
    set(BaseSet::ISync, "ISYNC", "Power isync (thesis 003 §4.1)"),
    set(BaseSet::Eieio, "EIEIO", "Power eieio (herd's Power fences)"),
    set(BaseSet::Membar, "MEMBAR", "SPARC membar, any mask (thesis 003 §5.1)"),
    set(BaseSet::MembarLL, "MembarLL", "SPARC membar whose mask has #LoadLoad (thesis 003 §5.1)"),
    set(BaseSet::MembarLS, "MembarLS", "SPARC membar whose mask has #LoadStore (thesis 003 §5.1)"),
    set(BaseSet::MembarSL, "MembarSL", "SPARC membar whose mask has #StoreLoad (thesis 003 §5.1)"),
    set(BaseSet::MembarSS, "MembarSS", "SPARC membar whose mask has #StoreStore (thesis 003 §5.1)"),
    set(BaseSet::Issue, "ISSUE", "PGAS: a remote read/write is issued, in po; its value is the queue (thesis 003 §8.1.2, Table 8.1)"),
    set(BaseSet::PopA, "POPA", "PGAS popa: reads the source cell, not in po (thesis 003 §8.1.2, §8.2)"),
    set(BaseSet::PopB, "POPB", "PGAS popb: writes the destination with popa's value, not in po (thesis 003 §8.1.2, §8.2)"),
    set(BaseSet::Bar, "BAR", "PGAS barrier events (thesis 003 §8.1.2, rule (bar))"),
    set(BaseSet::Dmb, "DMB", "Arm full barrier: DMB SY/ISH/OSH/NSH, DSB of those kinds (Arm ARM B2.3.7)"),
    set(BaseSet::DmbLd, "DMBLD", "Arm DMB LD (ISHLD, …): reads before later accesses (Arm ARM B2.3.7)"),
    set(BaseSet::DmbSt, "DMBST", "Arm DMB ST (ISHST, …): writes before later writes (Arm ARM B2.3.7)"),
    set(BaseSet::DsbSt, "DSBST", "Arm DSB ST (ISHST, …): writes before every later access (Arm ARM B2.3.7, DSB-ordered-before)"),
    set(BaseSet::Isb, "ISB", "Arm ISB: context synchronization (Arm ARM B2.3.7, with ctrl or addr)"),
    set(BaseSet::FenceRR, "FenceRR", "RISC-V fence with r in pred and succ (RVWMO rule 4)"),
    set(BaseSet::FenceRW, "FenceRW", "RISC-V fence with r in pred, w in succ (fence.tso too; RVWMO rule 4)"),
    set(BaseSet::FenceWR, "FenceWR", "RISC-V fence with w in pred, r in succ (RVWMO rule 4)"),
    set(BaseSet::FenceWW, "FenceWW", "RISC-V fence with w in pred and succ (fence.tso too; RVWMO rule 4)"),
    set(BaseSet::Acq, "ACQ", "acquire accesses: Arm LDAR, LDAXR, A-forms of atomics; RISC-V .aq (Arm ARM B2.3; RVWMO rule 5)"),
    set(BaseSet::AcqPC, "ACQPC", "Arm acquirePC reads: LDAPR (Arm ARM B2.3)"),
    set(BaseSet::Rel, "REL", "release accesses: Arm STLR, STLXR, L-forms of atomics; RISC-V .rl (Arm ARM B2.3; RVWMO rule 6)"),
    set(BaseSet::X, "X", "exclusive accesses: Power lwarx/stwcx., Arm LDXR/STXR, RISC-V LR/SC (herd's X)"),
    set(BaseSet::NoRet, "NORET", "reads of Arm atomics that return no data (destination WZR/XZR, ST<op>): not ordered by DMB LD (Arm ARM B2.3.6; herd's NoRet)"),
    set(BaseSet::IFetch, "IF", "instruction fetches of modifiable instructions, reads of their code addresses (herd's Variant=ifetch; Simner et al., ESOP 2020)"),
];

/// The base relations, in [`BaseRel`] order.
pub const RELS: [Entry<BaseRel>; 21] = [
    rel(BaseRel::Po, "po", "program order: events of one thread in execution order (step, then position in the instruction); PGAS pops are in no pair (thesis 003 §2.7, §8.2)"),
    rel(BaseRel::Rf, "rf", "reads-from: the write a read takes its value from, same location; none for a read of the initial value (thesis 003 §2.7, source order)"),
    rel(BaseRel::Co, "co", "coherence: a strict total order of the writes to each location (thesis 003 §2.7)"),
    rel(BaseRel::Fr, "fr", "from-read: a read to the writes co-after its source, or to every write of its location when it reads the initial value (thesis 003 §2.7, conflict order; herd: rf^-1; co)"),
    rel(BaseRel::Loc, "loc", "memory accesses (M) to the same location (herd manual)"),
    rel(BaseRel::Int, "int", "executed events of the same thread (herd manual)"),
    rel(BaseRel::Ext, "ext", "executed events of different threads (herd manual)"),
    rel(BaseRel::Id, "id", "the identity on executed events (herd manual)"),
    rel(BaseRel::Addr, "addr", "address dependency: a read to a po-later access whose address is computed from its value (thesis 003 §4.1, §4.2)"),
    rel(BaseRel::Data, "data", "data dependency: a read to a po-later write whose value is computed from its value (thesis 003 §4.1, §4.2)"),
    rel(BaseRel::Ctrl, "ctrl", "control dependency: a read to every event po-after a branch whose condition depends on it (thesis 003 §4.1)"),
    rel(BaseRel::PickAddr, "pick-addr", "pick address dependency: like addr, but the value reaches the address through the condition of a select (Arm CSEL) or the comparison of a compare-and-swap on the way (Arm ARM B2.3.2 \"Pick Address dependency\"); a pair with paths of both kinds is in both"),
    rel(BaseRel::PickData, "pick-data", "pick data dependency: like data, through a select's condition or a compare-and-swap's comparison (Arm ARM B2.3.2 \"Pick Data dependency\"); a pair with paths of both kinds is in both"),
    rel(BaseRel::PickCtrl, "pick-ctrl", "pick control dependency: like ctrl, for a branch whose condition depends on the read through a select's condition or a compare-and-swap's comparison (Arm ARM B2.3.2 \"Pick Control dependency\"); a pair with paths of both kinds is in both"),
    rel(BaseRel::Rmw, "rmw", "the read and the write of one atomic instruction or of a successful lwarx/stwcx. pair (thesis 003 §7.1.4; herd's rmw)"),
    rel(BaseRel::Univ, "univ", "every pair of executed events"),
    rel(BaseRel::Op, "op", "PGAS: issue → popa → popb (and issue → popb) of one remote operation (thesis 003 §8.1.2, Table 8.1)"),
    rel(BaseRel::Fifo, "fifo", "PGAS: pops of two remote operations of one rank and queue in issue order, popa → popa and popb → popb (thesis 003 §8.1.2, queues fa/fb)"),
    rel(BaseRel::Bar, "bar", "PGAS: the k-th barrier events of different ranks, both ways (thesis 003 §8.1.2 rule (bar), §8.2)"),
    rel(BaseRel::Stxn, "stxn", "same atomic step: two different executed events of one execution of an atomic step that rmw does not make atomic: over several locations, or not a read then a write (Command::is_atomic_step), both ways; every model's acyclic axioms are checked with each such step contracted (docs/models.md; the stxn of Chong, Sorensen, Wickerson, PLDI 2018)"),
    rel(BaseRel::Si, "si", "same instruction: memory events of one access's bytes (herd's mixed-size variant, where an access to a byte-addressed location is one event per byte; its single-copy-atomic group, Thread::si_groups), both ways, and every executed memory event with itself (herd's si and sm; Flur et al., POPL 2017)"),
];

// The tables are indexed by the enums' discriminants.
const _: () = {
    let mut i = 0;
    while i < RELS.len() {
        assert!(RELS[i].base as usize == i);
        i += 1;
    }
};

impl BaseSet {
    /// Every base set, in table order.
    pub fn all() -> impl Iterator<Item = BaseSet> {
        SETS.iter().map(|e| e.base)
    }

    /// Its row of [`SETS`]; `None` for a tag.
    fn entry(self) -> Option<&'static Entry<BaseSet>> {
        SETS.iter().find(|e| e.base == self)
    }

    /// Its name in the model language (`R`, `MFENCE`, …); for a tag, the
    /// name events carry for it ([`Tag::key`], `'once`).
    pub fn name(self) -> &'static str {
        match self {
            BaseSet::Tag(t) => t.key(),
            _ => self.entry().map_or("", |e| e.name),
        }
    }

    /// Its meaning, one line with the source.
    pub fn doc(self) -> &'static str {
        match self {
            BaseSet::Tag(_) => {
                "the events carrying this tag of herd's C semantics (herd's annotation sets)"
            }
            _ => self.entry().map_or("", |e| e.doc),
        }
    }

    /// The sets an access is in by its annotation bits ([`BaseSet::ann_bit`]).
    pub const ANNOTATED: [BaseSet; 5] = [
        BaseSet::Acq,
        BaseSet::AcqPC,
        BaseSet::Rel,
        BaseSet::NoRet,
        BaseSet::IFetch,
    ];

    /// For the access-annotation sets (`ACQ`, `ACQPC`, `REL`, `NORET`, `IF`): the bit of
    /// [`crate::program::Ann`] an access must carry. `None` for the others.
    pub fn ann_bit(self) -> Option<u16> {
        use crate::program::Ann;
        match self {
            BaseSet::Acq => Some(Ann::ACQ),
            BaseSet::AcqPC => Some(Ann::ACQPC),
            BaseSet::Rel => Some(Ann::REL),
            BaseSet::NoRet => Some(Ann::NORET),
            BaseSet::IFetch => Some(Ann::IFETCH),
            _ => None,
        }
    }

    /// The base set a model-language name denotes (case-sensitive).
    pub fn from_name(name: &str) -> Option<BaseSet> {
        SETS.iter().find(|e| e.name == name).map(|e| e.base)
    }

    /// For `F` and the fence sets: whether an event of fence instruction
    /// `f` belongs to it (`F`: every fence; `MembarXY`: a membar whose mask
    /// has that bit). `None` for the other sets, which are not decided by
    /// the fence kind.
    pub fn contains_fence(self, f: Fence) -> Option<bool> {
        let membar_bit = |bit: u8| matches!(f, Fence::Membar(m) if m.0 & bit != 0);
        let rv_bit = |bit: u8| matches!(f, Fence::RvFence(m) if m.0 & bit != 0);
        Some(match self {
            // herd's located events (`__srcu`) are not in F.
            BaseSet::F => !matches!(f, Fence::Located(_)),
            BaseSet::MFence => f == Fence::MFence,
            BaseSet::Sync => f == Fence::Sync,
            BaseSet::LwSync => f == Fence::LwSync,
            BaseSet::ISync => f == Fence::ISync,
            BaseSet::Eieio => f == Fence::Eieio,
            BaseSet::Membar => matches!(f, Fence::Membar(_)),
            BaseSet::MembarLL => membar_bit(MembarMask::LL),
            BaseSet::MembarLS => membar_bit(MembarMask::LS),
            BaseSet::MembarSL => membar_bit(MembarMask::SL),
            BaseSet::MembarSS => membar_bit(MembarMask::SS),
            BaseSet::Dmb => f == Fence::Dmb,
            BaseSet::DmbLd => f == Fence::DmbLd,
            BaseSet::DmbSt => f == Fence::DmbSt,
            BaseSet::DsbSt => f == Fence::DsbSt,
            BaseSet::Isb => f == Fence::Isb,
            BaseSet::FenceRR => rv_bit(MembarMask::LL),
            BaseSet::FenceRW => rv_bit(MembarMask::LS),
            BaseSet::FenceWR => rv_bit(MembarMask::SL),
            BaseSet::FenceWW => rv_bit(MembarMask::SS),
            BaseSet::Acq
            | BaseSet::AcqPC
            | BaseSet::Rel
            | BaseSet::X
            | BaseSet::NoRet
            | BaseSet::IFetch
            | BaseSet::Tag(_)
            | BaseSet::Observed => return None,
            BaseSet::R
            | BaseSet::W
            | BaseSet::M
            | BaseSet::IW
            | BaseSet::A
            | BaseSet::Issue
            | BaseSet::PopA
            | BaseSet::PopB
            | BaseSet::Bar => return None,
        })
    }
}

impl BaseRel {
    /// Every base relation, in table order.
    pub fn all() -> impl Iterator<Item = BaseRel> {
        RELS.iter().map(|e| e.base)
    }

    /// Its name in the model language (`po`, `rf`, …).
    pub fn name(self) -> &'static str {
        RELS[self as usize].name
    }

    /// Its meaning, one line with the source.
    pub fn doc(self) -> &'static str {
        RELS[self as usize].doc
    }

    /// The dependency relations the unrollers compute by taint (only
    /// when a model uses one of them): addr, data, ctrl and their pick
    /// forms.
    pub const DEPENDENCIES: [BaseRel; 6] = [
        BaseRel::Addr,
        BaseRel::Data,
        BaseRel::Ctrl,
        BaseRel::PickAddr,
        BaseRel::PickData,
        BaseRel::PickCtrl,
    ];

    /// The base relation a model-language name denotes (case-sensitive).
    pub fn from_name(name: &str) -> Option<BaseRel> {
        RELS.iter().find(|e| e.name == name).map(|e| e.base)
    }

    /// The relations whose meaning is a static condition on a pair of
    /// *executed* events decide it here, for every backend: `int` = same
    /// thread, `ext` = different threads, `id` = the same event, `univ` =
    /// any pair (herd manual). Given whether the two events are one event
    /// and whether they belong to one thread, returns whether the pair is
    /// in the relation when both are executed; `None` for the relations
    /// that depend on the candidate execution (po, rf, co, …).
    pub fn static_pair(self, same_event: bool, same_thread: bool) -> Option<bool> {
        match self {
            BaseRel::Int => Some(same_thread),
            BaseRel::Ext => Some(!same_thread),
            BaseRel::Id => Some(same_event),
            BaseRel::Univ => Some(true),
            BaseRel::Po
            | BaseRel::Rf
            | BaseRel::Co
            | BaseRel::Fr
            | BaseRel::Loc
            | BaseRel::Addr
            | BaseRel::Data
            | BaseRel::Ctrl
            | BaseRel::PickAddr
            | BaseRel::PickData
            | BaseRel::PickCtrl
            | BaseRel::Rmw
            | BaseRel::Op
            | BaseRel::Fifo
            | BaseRel::Bar
            | BaseRel::Stxn
            | BaseRel::Si => None,
        }
    }
}

/// A predefined name of the model language: a base set or a base
/// relation. Name resolution ([`super::parse`]) turns every use of one
/// into [`super::ExprKind::Base`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Builtin {
    /// A base set.
    Set(BaseSet),
    /// A base relation.
    Rel(BaseRel),
}

impl Builtin {
    /// The base set or relation a name denotes (sets first; no name is
    /// both).
    pub fn from_name(name: &str) -> Option<Builtin> {
        BaseSet::from_name(name)
            .map(Builtin::Set)
            .or_else(|| BaseRel::from_name(name).map(Builtin::Rel))
    }

    /// Its name in the model language.
    pub fn name(self) -> &'static str {
        match self {
            Builtin::Set(s) => s.name(),
            Builtin::Rel(r) => r.name(),
        }
    }

    /// Its type.
    pub fn ty(self) -> Ty {
        match self {
            Builtin::Set(_) => Ty::Set,
            Builtin::Rel(_) => Ty::Rel,
        }
    }

    /// Every predefined name: the sets, then the relations, in table
    /// order.
    pub fn all() -> impl Iterator<Item = Builtin> {
        BaseSet::all()
            .map(Builtin::Set)
            .chain(BaseRel::all().map(Builtin::Rel))
    }
}

impl From<BaseSet> for Builtin {
    fn from(s: BaseSet) -> Builtin {
        Builtin::Set(s)
    }
}

impl From<BaseRel> for Builtin {
    fn from(r: BaseRel) -> Builtin {
        Builtin::Rel(r)
    }
}

/// The names of the base sets an event of fence `f` belongs to besides
/// `F`, in table order (`membar #LoadLoad | #StoreStore` is in `MEMBAR`,
/// `MembarLL` and `MembarSS`). The unrollers tag fence events with these
/// names.
pub fn fence_sets(f: Fence) -> Vec<&'static str> {
    BaseSet::all()
        .filter(|&s| s != BaseSet::F && s.contains_fence(f) == Some(true))
        .map(BaseSet::name)
        .collect()
}

/// Whether `model` reads the events of fence `f`: it names `F` or one
/// of the fence's sets ([`fence_sets`]). A fence the model does not read
/// orders nothing under it (herd's semantics: a fence is only the sets
/// its event is in).
pub fn reads_fence(model: &super::Model, f: Fence) -> bool {
    model.uses(BaseSet::F)
        || fence_sets(f)
            .iter()
            .filter_map(|s| BaseSet::from_name(s))
            .any(|s| model.uses(s))
}

/// The constructs of `prog` to which `model` gives no meaning, one
/// phrase each (e.g. "`mfence` (the model reads none of the sets F,
/// MFENCE): it orders nothing"): fences whose sets ([`fence_sets`]) and
/// `F` the model never reads, and locked or atomic instructions (`lock`,
/// `unlock`, `atomic { … }`, which `cas`/`xchg` desugar to) when the
/// model never reads `A`. A front-end or CLI warns once per program
/// (docs/models.md lists what each shipped model orders). Empty for a
/// model that orders every access already (its `acyclic` axiom contains
/// po ∪ rf ∪ co ∪ fr, as SC's): fences mean nothing more there.
pub fn ignored_constructs(model: &super::Model, prog: &crate::program::Program) -> Vec<String> {
    use crate::program::Command;
    if model.acyclic_contains_hb().is_some() {
        return Vec::new();
    }
    let mut fences: Vec<Fence> = Vec::new();
    let mut locked = false;
    let mut stack: Vec<&Command> = prog
        .threads
        .iter()
        .flat_map(|t| t.instrs.iter().map(|i| &i.cmd))
        .collect();
    while let Some(c) = stack.pop() {
        match c {
            Command::Fence(f) if !fences.contains(f) => fences.push(*f),
            Command::Lock | Command::Unlock => locked = true,
            Command::Atomic(cs) => {
                locked = true;
                stack.extend(cs.iter());
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for f in fences {
        if !reads_fence(model, f) {
            out.push(format!(
                "`{}` (the model reads none of the sets F, {}): it orders nothing beyond what the model orders without it",
                f.keyword(),
                fence_sets(f).join(", ")
            ));
        }
    }
    if locked && !model.uses(BaseSet::A) {
        out.push(
            "locked and atomic instructions (`lock`, `unlock`, `atomic`, `cas`, `xchg`; \
             the model never reads the set A): they are not fences"
                .to_string(),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for s in BaseSet::all() {
            assert_eq!(BaseSet::from_name(s.name()), Some(s));
            assert_eq!(Builtin::from_name(s.name()), Some(Builtin::Set(s)));
            assert!(!s.doc().is_empty());
        }
        for r in BaseRel::all() {
            assert_eq!(BaseRel::from_name(r.name()), Some(r));
            assert_eq!(Builtin::from_name(r.name()), Some(Builtin::Rel(r)));
            assert!(!r.doc().is_empty());
        }
        assert_eq!(BaseSet::all().count(), SETS.len());
        assert_eq!(BaseRel::all().count(), RELS.len());
        assert_eq!(Builtin::all().count(), SETS.len() + RELS.len());
        // No name is both a set and a relation (`BAR` vs `bar` differ in case).
        for s in BaseSet::all() {
            assert_eq!(BaseRel::from_name(s.name()), None, "{}", s.name());
        }
        assert_eq!(Builtin::from_name("po-loc"), None);
        assert_eq!(Builtin::from_name("PO"), None);
        assert_eq!(Builtin::from_name("_E"), None);
        assert_eq!(Builtin::Rel(BaseRel::Po).ty(), Ty::Rel);
        assert_eq!(Builtin::Set(BaseSet::W).ty(), Ty::Set);
    }

    #[test]
    fn static_relations() {
        use BaseRel::*;
        // (same_event, same_thread): the same event is of the same thread.
        for (ev, th) in [(true, true), (false, true), (false, false)] {
            assert_eq!(Int.static_pair(ev, th), Some(th));
            assert_eq!(Ext.static_pair(ev, th), Some(!th));
            assert_eq!(Id.static_pair(ev, th), Some(ev));
            assert_eq!(Univ.static_pair(ev, th), Some(true));
        }
        let statics: Vec<BaseRel> = BaseRel::all()
            .filter(|r| r.static_pair(false, false).is_some())
            .collect();
        assert_eq!(statics, vec![Int, Ext, Id, Univ]);
    }

    #[test]
    fn fences_and_their_sets() {
        let m = |bits| Fence::Membar(MembarMask(bits));
        assert_eq!(fence_sets(Fence::MFence), vec!["MFENCE"]);
        assert_eq!(fence_sets(Fence::Sync), vec!["SYNC"]);
        assert_eq!(fence_sets(Fence::LwSync), vec!["LWSYNC"]);
        assert_eq!(fence_sets(Fence::ISync), vec!["ISYNC"]);
        assert_eq!(fence_sets(Fence::Eieio), vec!["EIEIO"]);
        assert_eq!(fence_sets(m(0)), vec!["MEMBAR"]);
        assert_eq!(
            fence_sets(m(MembarMask::LL | MembarMask::SS)),
            vec!["MEMBAR", "MembarLL", "MembarSS"]
        );
        assert_eq!(
            fence_sets(m(MembarMask::LL
                | MembarMask::LS
                | MembarMask::SL
                | MembarMask::SS)),
            vec!["MEMBAR", "MembarLL", "MembarLS", "MembarSL", "MembarSS"]
        );
        assert_eq!(BaseSet::F.contains_fence(Fence::Eieio), Some(true));
        assert_eq!(BaseSet::Sync.contains_fence(Fence::LwSync), Some(false));
        assert_eq!(BaseSet::W.contains_fence(Fence::Sync), None);
        assert_eq!(BaseSet::Bar.contains_fence(Fence::Sync), None);
    }
}
