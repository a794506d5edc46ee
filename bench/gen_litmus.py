#!/usr/bin/env python3
"""Writes random litmus tests (herd syntax) built from cycles of
relaxations, the way herd's diy7 builds them (Alglave and Maranget, "diy"),
for the differential test against herd7 (bench/herd_diff.py).

A cycle is a sequence of edges between memory events, each edge with a
source and a target direction (R or W):
  communication edges  Rf (W->R), Fr (R->W), Co (W->W), external (`e`: the
                       target is on the next thread) or internal (`i`);
  program-order edges  Po[sd]XY (s: same location, d: a different one),
                       fences between them (AArch64 DMB.SY/LD/ST, DMB.ISH*,
                       ISB; RISC-V fence r,r ... fence rw,rw, fence.tso;
                       PPC sync, lwsync, eieio, isync; X86 MFENCE),
                       dependencies DpAddr[sd]X, DpData[sd]W, DpCtrl[sd]X,
                       (AArch64) DpCtrlIsb[sd]X and (PPC) DpCtrlIsync[sd]X
                       from a read (none on X86).
Each event gets an access kind: AArch64 LDR, LDAR, LDAPR, LDXR, LDAXR for a
read; STR, STLR, LDXR/STXR and LDAXR/STLXR pairs, SWP, CAS, LDADD (plain,
A, L, AL) and STADD for a write (the read part of an atomic is observed);
RISC-V lw, lr.w(.aq/.aqrl) for a read; sw, lr.w/sc.w pairs, amoswap.w and
amoadd.w (plain, .aq, .rl, .aqrl) for a write; PPC lwz, lwarx for a
read, stw and lwarx/stwcx. pairs for a write (the pair branches over
`li rF,1` when the stwcx. fails, and the condition asks rF=1); X86 MOV
for a read, MOV of an immediate or a register, XCHG with memory (both
operand orders, with and without LOCK), LOCK ADD, LOCK INC and LOCK XOR
for a write (herd7's X86 has no XADD or CMPXCHG and refuses LOCK OR;
--x86-unlocked also draws ADD and INC to memory without LOCK, whose read
and write herd relates by no po). The cycle has 2 to 4
external edges (threads) and at least one edge to a different location;
at least two edges to a different location (one would
return to the location it leaves); each maximal same-location stretch of the cycle gets a fresh location.
Values follow the cycle along each stretch: the k-th write of a location
writes k, a read reads the latest write before it on the stretch (0 at
its start), so the final condition is the cycle's (the reads' values and,
for a location written twice or more, its final value).

With --mixed (AArch64), every location is a 64-bit cell and each access
has a size (B, H, W, X) and an aligned byte offset, as in the Dat3M
mixed-size tests; the k-th write of a location writes the byte k in each
of its bytes, values are computed per byte, and the writes' values sit in
initialised registers. Run these with herd7's `-variant mixed` (herd_diff
does when the path contains `mixed`).

Deterministic: the same arguments write the same files.

Dependencies set a register to 0 from the value read in one of several
ways (EOR/xor or SUB/sub/subf of the register with itself, or AND/andi(.) with
#128, a bit no value of the test has: the address is then not known
statically, only from the values the test's loads can read); with
--mixed a quarter of the address dependencies into a plain access also
add an offset that depends on the value read (0 or the access' size,
AND #1 then LSL), which herd evaluates per execution.

Usage: bench/gen_litmus.py --arch aarch64|riscv|ppc|x86 [--mixed]
       [--x86-unlocked] --count N [--seed S] [--max-edges E] OUTDIR
  --max-edges E  cycles of at most E edges (default 7; herd7's time grows
                 fast with the events, 5 keeps most tests under a second)
"""
import argparse, os, random, sys

SIZES = {"B": 1, "H": 2, "W": 4, "X": 8}


class Edge:
    """One edge of a cycle: name, directions, external?, same location?,
    kind ('com', 'po', 'fence', 'addr', 'data', 'ctrl', 'ctrlisb'), fence."""

    def __init__(self, name, src, dst, ext, same, kind, fence=None):
        self.name, self.src, self.dst, self.ext, self.same = name, src, dst, ext, same
        self.kind, self.fence = kind, fence


AARCH64_FENCES = ["DMB SY", "DMB LD", "DMB ST", "DMB ISH", "DMB ISHLD", "DMB ISHST", "ISB"]
RISCV_FENCES = ["fence rw,rw", "fence r,r", "fence w,w", "fence r,w", "fence w,r", "fence r,rw",
                "fence rw,r", "fence w,rw", "fence rw,w", "fence.tso"]
# PPC and X86 fences with diy7's edge names (`diyone7 -arch PPC -show fences`).
PPC_FENCES = {"sync": "Sync", "lwsync": "LwSync", "eieio": "Eieio", "isync": "ISync"}
X86_FENCES = {"MFENCE": "MFence"}
DEPS = {"aarch64": ["addr", "data", "ctrl", "ctrlisb"], "riscv": ["addr", "data", "ctrl"],
        "ppc": ["addr", "data", "ctrl", "ctrlisync"], "x86": []}
DEP_NAMES = {"addr": "DpAddr", "data": "DpData", "ctrl": "DpCtrl", "ctrlisb": "DpCtrlIsb",
             "ctrlisync": "DpCtrlIsync"}


def fence_name(arch, f):
    """diy7's name of fence f of arch (DMB.SY, Fence.rw.rw, LwSync, MFence)."""
    if arch == "aarch64":
        return f.replace(" ", ".").replace(",", ".").upper()
    if arch == "riscv":
        return "Fence." + f.split()[-1].replace(",", ".") if " " in f else "Fence.tso"
    return (PPC_FENCES if arch == "ppc" else X86_FENCES)[f]


def edges(arch):
    """The internal edges (program order, fences, dependencies, internal
    communications) and the external ones for arch."""
    ext = [Edge("Rfe", "W", "R", True, True, "com"), Edge("Fre", "R", "W", True, True, "com"),
           Edge("Coe", "W", "W", True, True, "com")]
    inter = [Edge("Rfi", "W", "R", False, True, "com"), Edge("Fri", "R", "W", False, True, "com"),
             Edge("Coi", "W", "W", False, True, "com")]
    fences = {"aarch64": AARCH64_FENCES, "riscv": RISCV_FENCES, "ppc": list(PPC_FENCES),
              "x86": list(X86_FENCES)}[arch]
    for x in "RW":
        for y in "RW":
            inter.append(Edge(f"Pod{x}{y}", x, y, False, False, "po"))
            inter.append(Edge(f"Pos{x}{y}", x, y, False, True, "po"))
            for f in fences:
                n = fence_name(arch, f)
                inter.append(Edge(f"{n}d{x}{y}", x, y, False, False, "fence", f))
                inter.append(Edge(f"{n}s{x}{y}", x, y, False, True, "fence", f))
    for d in DEPS[arch]:
        for y in "RW":
            if d == "data" and y == "R":
                continue
            name = DEP_NAMES[d]
            # Dependencies appear three times: they are the edges of interest.
            for _ in range(3):
                inter.append(Edge(f"{name}d{y}", "R", y, False, False, d))
            inter.append(Edge(f"{name}s{y}", "R", y, False, True, d))
    return inter, ext


def gen_cycle(rng, arch, max_edges=7, pool=None):
    """A random cycle of at most max_edges edges: a list of edges, thread 0
    starting at edge 0's source. pool: (internal, external) edges to draw
    from instead of arch's (bench/gen_lkmm.py passes the C edges)."""
    inter, ext = pool if pool else edges(arch)
    while True:
        nthreads = rng.choice([2, 2, 2, 3, 3, 4])
        start = rng.choice("RW")
        cur, cyc = start, []
        for t in range(nthreads):
            n = rng.choice([0, 1, 1, 1, 2, 2]) if nthreads <= 3 else rng.choice([0, 1, 1])
            for _ in range(n):
                cands = [e for e in inter if e.src == cur]
                e = rng.choice(cands)
                cyc.append(e)
                cur = e.dst
            last = t == nthreads - 1
            cands = [e for e in ext if e.src == cur and (not last or e.dst == start)]
            if not cands:
                break
            e = rng.choice(cands)
            cyc.append(e)
            cur = e.dst
        else:
            # herd7's time grows fast with the events: diy's sizes.
            if sum(not e.same for e in cyc) >= 2 and len(cyc) <= min(6 + (nthreads == 2), max_edges):
                return cyc


class Event:
    def __init__(self, i, d):
        self.i, self.dir = i, d
        self.thread = self.loc = None
        self.kind = "P"          # access kind
        self.size, self.off = "W", 0
        self.value = None        # written value (W)
        self.read = None         # value read (R, or the read part of an atomic W)


def read_bytes(mem, ev):
    return sum(mem.get(ev.off + b, 0) << (8 * b) for b in range(SIZES[ev.size]))


def pattern(k, size):
    return sum(k << (8 * b) for b in range(SIZES[size]))


AARCH64_R = ["P"] * 6 + ["A", "Q", "X", "XA"]
AARCH64_W = ["P"] * 12 + ["L", "L", "X", "XL", "XA", "XAL", "SWP", "SWPA", "SWPL", "SWPAL", "CAS",
             "CASA", "CASL", "CASAL", "LDADD", "LDADDA", "LDADDL", "LDADDAL", "STADD", "STADDL"]
AARCH64_MIXED_R = ["P", "P", "P", "P", "A", "Q", "X", "XA"]
AARCH64_MIXED_W = ["P", "P", "P", "P", "L", "SWP", "SWPAL", "LDADD", "X", "XAL", "CAS", "CASAL"]
RISCV_R = ["P"] * 6 + ["X", "X.aq", "X.aqrl"]
RISCV_W = ["P"] * 10 + ["X", "X.rl", "X.aqrl", "SWP", "SWP.aq", "SWP.rl", "SWP.aqrl", "ADD",
           "ADD.aq", "ADD.rl", "ADD.aqrl"]
ATOMIC_W = ("SWP", "CAS", "LDADD", "STADD", "ADD", "X")
# PPC: lwz/stw, lwarx alone (a read), lwarx/stwcx. pairs (a write).
PPC_R = ["P"] * 6 + ["X"]
PPC_W = ["P"] * 3 + ["X"]
# X86: MOV of an immediate or of a register; XCHG with memory (either
# operand order, with and without LOCK); LOCK ADD/INC/XOR. The forms
# herd7's X86 parser and semantics take: no XADD, CMPXCHG or LOCK OR
# there. With --x86-unlocked also ADD/INC to memory without LOCK (a read
# and a write of one instruction, which herd relates by no po).
X86_R = ["P"]
X86_W = ["P"] * 6 + ["PR"] * 2 + ["XCHG", "XCHGR", "LXCHG", "LADD", "LINC", "LXOR"]
X86_UNLOCKED = ["UADD", "UINC"]
X86_REGS = ["EAX", "EBX", "ECX", "EDX", "ESI", "EDI"]


def has_read_part(kind):
    """A write kind that also reads the location into a register."""
    return kind.startswith(("SWP", "CAS", "LDADD", "ADD"))


def build(rng, arch, mixed, cyc, unlocked=False, kinds=None):
    """Events with threads, locations, access kinds and values. kinds:
    (read kinds, write kinds) to draw from instead of arch's."""
    n = len(cyc)
    evs = [Event(i, cyc[i].src) for i in range(n)]
    t = 0
    for i, e in enumerate(cyc):
        evs[i].thread = t
        if e.ext:
            t += 1
    nthreads = t
    # Locations: stretches separated by edges to a different location; the
    # stretch that wraps around the cycle's end is one location.
    first_cut = next(i for i, e in enumerate(cyc) if not e.same)
    order = [(first_cut + 1 + k) % n for k in range(n)]
    loc, locs = -1, []
    for k, i in enumerate(order):
        prev_edge = cyc[(i - 1) % n]
        if k == 0 or not prev_edge.same:
            loc += 1
            locs.append([])
        evs[i].loc = loc
        locs[loc].append(i)
    if kinds:
        kinds_r, kinds_w = kinds
    else:
        kinds_r = {"aarch64": AARCH64_MIXED_R if mixed else AARCH64_R, "riscv": RISCV_R,
                   "ppc": PPC_R, "x86": X86_R}[arch]
        kinds_w = {"aarch64": AARCH64_MIXED_W if mixed else AARCH64_W, "riscv": RISCV_W,
                   "ppc": PPC_W, "x86": X86_W + (X86_UNLOCKED if unlocked else [])}[arch]
    for ev in evs:
        ev.kind = rng.choice(kinds_r if ev.dir == "R" else kinds_w)
    if mixed:
        for stretch in locs:
            prev = None
            for i in stretch:
                ev = evs[i]
                if prev is not None and rng.random() < 0.4:
                    ev.size, ev.off = prev.size, prev.off
                else:
                    ev.size = rng.choice("BHWWX")
                    ev.off = rng.randrange(0, 8, SIZES[ev.size])
                if ev.kind != "P" and ev.off:
                    ev.off = 0  # acquire/release/atomic forms take no offset
                prev = ev
    # Values along each stretch.
    finals = {}
    for l, stretch in enumerate(locs):
        mem, k, writes = {}, 0, 0
        for i in stretch:
            ev = evs[i]
            if ev.dir == "R":
                ev.read = read_bytes(mem, ev) if mixed else mem.get(0, 0)
                continue
            k += 1
            writes += 1
            # The value before the write (read by an atomic's read part).
            ev.read = read_bytes(mem, ev) if mixed else mem.get(0, 0)
            if mixed:
                ev.value = pattern(k, ev.size)
                for b in range(SIZES[ev.size]):
                    mem[ev.off + b] = k
            else:
                ev.value = k
                mem[0] = k
        if writes >= 2:
            finals[l] = sum(mem.get(b, 0) << (8 * b) for b in range(8)) if mixed else mem[0]
    return evs, nthreads, len(locs), finals


LOCNAMES = "xyzabcdefghijk"


# Per arch: the first register the generator uses, the end of the range,
# and a register's name (PPC skips r0, which reads as 0 in an address).
REGS = {"aarch64": (0, 29, lambda r: f"X{r}"), "riscv": (5, 32, lambda r: f"x{r}"),
        "ppc": (1, 32, lambda r: f"r{r}"), "x86": (0, len(X86_REGS), lambda r: X86_REGS[r])}


class Thread:
    """Code of one thread: registers, instructions, init items."""

    def __init__(self, tid, arch):
        self.tid, self.arch = tid, arch
        self.next = REGS[arch][0]
        self.code, self.init, self.addr, self.cond, self.types = [], [], {}, [], []

    def reg(self):
        r = self.next
        self.next += 1
        if r >= REGS[self.arch][1]:
            raise OverflowError("out of registers")
        return r

    def address(self, loc):
        if loc not in self.addr:
            r = self.reg()
            self.addr[loc] = r
            self.init.append(f"{self.tid}:{REGS[self.arch][2](r)}={LOCNAMES[loc]}")
        return self.addr[loc]


def dep_zero(rng, t, src, wide):
    """AArch64 instructions that set register t to 0 from register src, a
    value read (a dependency): EOR x,x; SUB x,x; or AND with a bit no
    value of the test has (#128: values are small bytes; the
    address is then not known statically, only from the values read)."""
    R = "X" if wide else "W"
    kind = rng.choice(["eor", "eor", "sub", "andbit"])
    if kind == "eor":
        return [f"EOR {R}{t},{R}{src},{R}{src}"]
    if kind == "sub":
        return [f"SUB {R}{t},{R}{src},{R}{src}"]
    return [f"AND {R}{t},{R}{src},#128"]


def aarch64_thread(th, items, mixed, labels):
    """items: list of (incoming edge or None, event, source register of a
    dependency or None). Appends AArch64 code to th."""
    W = lambda r, ev=None: (f"X{r}" if ev is not None and ev.size == "X" else f"W{r}")
    for edge, ev, dep_src in items:
        a = th.address(ev.loc)
        base, idx = f"X{a}", None
        if edge is not None and edge.kind == "fence":
            th.code.append(edge.fence)
        if edge is not None and edge.kind in ("ctrl", "ctrlisb"):
            lab = f"LC{labels[0]:02d}"
            labels[0] += 1
            th.code += [f"CBNZ W{dep_src},{lab}", f"{lab}:"]
            if edge.kind == "ctrlisb":
                th.code.append("ISB")
        if edge is not None and edge.kind == "addr":
            t = th.reg()
            th.code += dep_zero(th.rng, t, dep_src, mixed)
            if mixed and th.rng.random() < 0.25 and ev.kind == "P" \
                    and ev.off + 2 * SIZES[ev.size] <= 8:
                # An offset that depends on the value read: 0 or the
                # access' size (herd evaluates it per execution).
                s = th.reg()
                sh = {"B": 0, "H": 1, "W": 2, "X": 3}[ev.size]
                th.code += [f"AND X{s},X{dep_src},#1", f"LSL X{s},X{s},#{sh}",
                            f"ADD X{t},X{t},X{s}"]
            if ev.kind == "P" and ev.off == 0:
                idx = f"X{t}" if mixed else f"W{t},SXTW"
            else:
                n = th.reg()
                th.code.append(f"ADD X{n},X{a},X{t}" if mixed else f"ADD X{n},X{a},W{t},SXTW")
                base = f"X{n}"
        addr = f"[{base},{idx}]" if idx else (f"[{base},#{ev.off}]" if ev.off else f"[{base}]")
        sz = "" if ev.size in ("W", "X") else ev.size
        if ev.dir == "R":
            r = th.reg()
            ev.reg = r
            op = {"P": "LDR", "A": "LDAR", "Q": "LDAPR", "X": "LDXR", "XA": "LDAXR"}[ev.kind]
            th.code.append(f"{op}{sz} {W(r, ev)},{addr}")
            th.cond.append((f"{th.tid}:X{r}", ev.read))
            if ev.size == "X":
                th.types.append(f"uint64_t {th.tid}:X{r};")
            continue
        # The value to write, in register v.
        v = th.reg()
        operand = ev.value - ev.read if ev.kind.startswith(("LDADD", "STADD")) else ev.value
        if edge is not None and edge.kind == "data":
            if mixed:
                c = th.reg()
                th.init.append(f"{th.tid}:X{c}={hex(operand)}")
                th.code += dep_zero(th.rng, v, dep_src, True) + [f"ADD X{v},X{v},X{c}"]
            else:
                th.code += dep_zero(th.rng, v, dep_src, False) + [f"ADD W{v},W{v},#{operand}"]
        elif mixed:
            th.init.append(f"{th.tid}:X{v}={hex(operand)}")
        else:
            th.code.append(f"MOV W{v},#{operand}")
        k = ev.kind
        if k in ("P", "L"):
            th.code.append(f"{'STR' if k == 'P' else 'STLR'}{sz} {W(v, ev)},{addr}")
        elif k.startswith("X"):
            r, s = th.reg(), th.reg()
            ld = "LDAXR" if "A" in k[1:] else "LDXR"
            st = "STLXR" if "L" in k[1:] else "STXR"
            th.code += [f"{ld}{sz} {W(r, ev)},{addr}", f"{st}{sz} W{s},{W(v, ev)},{addr}"]
            th.cond += [(f"{th.tid}:X{r}", ev.read), (f"{th.tid}:X{s}", 0)]
            ev.reg = r
            if ev.size == "X":
                th.types.append(f"uint64_t {th.tid}:X{r};")
        elif k.startswith("CAS"):
            e = th.reg()
            if mixed:
                th.init.append(f"{th.tid}:X{e}={hex(ev.read)}")
            else:
                th.code.append(f"MOV W{e},#{ev.read}")
            th.code.append(f"{k}{sz} {W(e, ev)},{W(v, ev)},{addr}")
            th.cond.append((f"{th.tid}:X{e}", ev.read))
            ev.reg = e
        elif k.startswith("STADD"):
            th.code.append(f"{k}{sz} {W(v, ev)},{addr}")
        else:  # SWP*, LDADD*
            r = th.reg()
            th.code.append(f"{k}{sz} {W(v, ev)},{W(r, ev)},{addr}")
            th.cond.append((f"{th.tid}:X{r}", ev.read))
            ev.reg = r
            if ev.size == "X":
                th.types.append(f"uint64_t {th.tid}:X{r};")


def rv_zero(rng, t, src):
    """A RISC-V instruction that sets register t to 0 from register src (a
    dependency): xor x,x; sub x,x; or andi with a bit no value of the
    test has."""
    kind = rng.choice(["xor", "xor", "sub", "andi"])
    if kind == "andi":
        return f"andi x{t},x{src},128"
    return f"{kind} x{t},x{src},x{src}"


def riscv_thread(th, items, labels):
    """As aarch64_thread, for RISC-V."""
    for edge, ev, dep_src in items:
        a = th.address(ev.loc)
        base = a
        if edge is not None and edge.kind == "fence":
            th.code.append(edge.fence)
        if edge is not None and edge.kind == "ctrl":
            lab = f"LC{labels[0]:02d}"
            labels[0] += 1
            th.code += [f"bne x{dep_src},x0,{lab}", f"{lab}:"]
        if edge is not None and edge.kind == "addr":
            t, n = th.reg(), th.reg()
            th.code += [rv_zero(th.rng, t, dep_src), f"add x{n},x{a},x{t}"]
            base = n
        k = ev.kind
        ann = k[k.index("."):] if "." in k else ""
        if ev.dir == "R":
            r = th.reg()
            ev.reg = r
            th.code.append(f"lw x{r},0(x{base})" if k == "P" else f"lr.w{ann} x{r},0(x{base})")
            th.cond.append((f"{th.tid}:x{r}", ev.read))
            continue
        v = th.reg()
        operand = ev.value - ev.read if k.startswith("ADD") else ev.value
        if edge is not None and edge.kind == "data":
            th.code += [rv_zero(th.rng, v, dep_src), f"ori x{v},x{v},{operand}"]
        else:
            th.code.append(f"ori x{v},x0,{operand}")
        if k == "P":
            th.code.append(f"sw x{v},0(x{base})")
        elif k.startswith("X"):
            r, s = th.reg(), th.reg()
            lr_ann = ".aq" if ann == ".aqrl" else ""
            th.code += [f"lr.w{lr_ann} x{r},0(x{base})", f"sc.w{ann} x{s},x{v},0(x{base})"]
            th.cond += [(f"{th.tid}:x{r}", ev.read), (f"{th.tid}:x{s}", 0)]
            ev.reg = r
        else:
            r = th.reg()
            op = "amoswap.w" if k.startswith("SWP") else "amoadd.w"
            th.code.append(f"{op}{ann} x{r},x{v},(x{base})")
            th.cond.append((f"{th.tid}:x{r}", ev.read))
            ev.reg = r


def ppc_zero(rng, t, src):
    """A PPC instruction that sets register t to 0 from register src (a
    dependency): xor or subf of the register with itself, or andi. with a
    bit no value of the test has."""
    kind = rng.choice(["xor", "xor", "subf", "andi."])
    if kind == "andi.":
        return f"andi. r{t},r{src},128"
    return f"{kind} r{t},r{src},r{src}"


def ppc_thread(th, items, labels):
    """As aarch64_thread, for PPC: an address dependency is an index
    register set to 0 from the value read (lwzx, stwx, or the index of a
    lwarx/stwcx. pair), a data dependency sets the stored register to 0
    from it and adds the value, a control dependency compares the value
    read with itself and branches (beq or bne) to the next instruction,
    isync after it for DpCtrlIsync. A lwarx/stwcx. pair branches over
    `li rF,1` when the stwcx. fails; the condition asks rF=1."""
    for edge, ev, dep_src in items:
        a = th.address(ev.loc)
        off = None  # index register of an address dependency
        if edge is not None and edge.kind == "fence":
            th.code.append(edge.fence)
        if edge is not None and edge.kind in ("ctrl", "ctrlisync"):
            lab = f"LC{labels[0]:02d}"
            labels[0] += 1
            br = th.rng.choice(["beq", "bne"])
            th.code += [f"cmpw r{dep_src},r{dep_src}", f"{br} {lab}", f"{lab}:"]
            if edge.kind == "ctrlisync":
                th.code.append("isync")
        if edge is not None and edge.kind == "addr":
            off = th.reg()
            th.code.append(ppc_zero(th.rng, off, dep_src))
        idx = f"r{off}" if off is not None else "r0"
        if ev.dir == "R":
            r = th.reg()
            ev.reg = r
            if ev.kind == "X":
                th.code.append(f"lwarx r{r},{idx},r{a}")
            elif off is not None:
                th.code.append(f"lwzx r{r},{idx},r{a}")
            else:
                th.code.append(f"lwz r{r},0(r{a})")
            th.cond.append((f"{th.tid}:r{r}", ev.read))
            continue
        v = th.reg()
        if edge is not None and edge.kind == "data":
            th.code += [ppc_zero(th.rng, v, dep_src), f"addi r{v},r{v},{ev.value}"]
        else:
            th.code.append(f"li r{v},{ev.value}")
        if ev.kind == "P":
            th.code.append(f"stwx r{v},{idx},r{a}" if off is not None else f"stw r{v},0(r{a})")
            continue
        r, f = th.reg(), th.reg()
        lab = f"LS{labels[0]:02d}"
        labels[0] += 1
        th.code += [f"lwarx r{r},{idx},r{a}", f"stwcx. r{v},{idx},r{a}", f"bne {lab}",
                    f"li r{f},1", f"{lab}:"]
        th.cond += [(f"{th.tid}:r{r}", ev.read), (f"{th.tid}:r{f}", 1)]
        ev.reg = r


def x86_thread(th, items):
    """As aarch64_thread, for X86 (no dependencies: the edges have none):
    absolute addresses [x], immediates $k; an atomic's read part is
    observed when it lands in a register (XCHG)."""
    for edge, ev, _ in items:
        m = f"[{LOCNAMES[ev.loc]}]"
        if edge is not None and edge.kind == "fence":
            th.code.append(edge.fence)
        k = ev.kind
        if ev.dir == "R":
            r = X86_REGS[th.reg()]
            th.code.append(f"MOV {r},{m}")
            th.cond.append((f"{th.tid}:{r}", ev.read))
            continue
        if k == "P":
            th.code.append(f"MOV {m},${ev.value}")
        elif k == "PR":
            r = X86_REGS[th.reg()]
            th.code += [f"MOV {r},${ev.value}", f"MOV {m},{r}"]
        elif k in ("XCHG", "XCHGR", "LXCHG"):
            r = X86_REGS[th.reg()]
            op = {"XCHG": f"XCHG {m},{r}", "XCHGR": f"XCHG {r},{m}", "LXCHG": f"LOCK XCHG {m},{r}"}
            th.code += [f"MOV {r},${ev.value}", op[k]]
            th.cond.append((f"{th.tid}:{r}", ev.read))
        elif k in ("LADD", "UADD"):
            lock = "LOCK " if k == "LADD" else ""
            th.code.append(f"{lock}ADD {m},${ev.value - ev.read}")
        elif k in ("LINC", "UINC"):
            # The k-th write of a location reads k-1: INC writes k.
            assert ev.value == ev.read + 1
            th.code.append(f"{'LOCK ' if k == 'LINC' else ''}INC {m}")
        else:  # LXOR
            th.code.append(f"LOCK XOR {m},${ev.value ^ ev.read}")


HEADS = {"aarch64": ("AArch64", "A"), "riscv": ("RISCV", "R"), "ppc": ("PPC", "P"),
         "x86": ("X86", "X")}


def render(rng, arch, mixed, idx, seed, max_edges=7, unlocked=False):
    cyc = gen_cycle(rng, arch, max_edges)
    evs, nthreads, nlocs, finals = build(rng, arch, mixed, cyc, unlocked)
    # Dependencies start at reads (edges()), whose register holds the value.
    threads = [Thread(t, arch) for t in range(nthreads)]
    for th in threads:
        th.rng = rng
    labels = [0]
    per = [[] for _ in range(nthreads)]
    n = len(cyc)
    for i, ev in enumerate(evs):
        prev_edge = cyc[(i - 1) % n]
        incoming = None if (i == 0 or prev_edge.ext) else prev_edge
        per[ev.thread].append((incoming, ev, i))
    for t, items in enumerate(per):
        th = threads[t]
        resolved = []
        for incoming, ev, i in items:
            src = evs[(i - 1) % n]
            resolved.append((incoming, ev, src))
        # Registers of dependency sources are known once the source is emitted.
        for incoming, ev, src in resolved:
            dep = getattr(src, "reg", None) if incoming is not None else None
            if arch == "aarch64":
                aarch64_thread(th, [(incoming, ev, dep)], mixed, labels)
            elif arch == "riscv":
                riscv_thread(th, [(incoming, ev, dep)], labels)
            elif arch == "ppc":
                ppc_thread(th, [(incoming, ev, dep)], labels)
            else:
                x86_thread(th, [(incoming, ev, dep)])
    cycle = " ".join(e.name for e in cyc)
    head, letter = HEADS[arch]
    name = f"{letter}{'M' if mixed else ''}{seed}-{idx:05d}"
    out = [f"{head} {name}", f'"{cycle}"', f"Cycle={cycle}", "{"]
    if mixed:
        out.append(" ".join(f"uint64_t {LOCNAMES[l]};" for l in range(nlocs)) + " " +
                   " ".join(x for th in threads for x in th.types))
    out.append(" ".join(f"{x};" for th in threads for x in th.init))
    out.append("}")
    width = max(len(c) for th in threads for c in th.code + [f"P{th.tid}"]) + 1
    rows = max(len(th.code) for th in threads)
    out.append(" " + " | ".join(f"{'P' + str(th.tid):<{width}}" for th in threads) + " ;")
    for r in range(rows):
        cells = [th.code[r] if r < len(th.code) else "" for th in threads]
        out.append(" " + " | ".join(f"{c:<{width}}" for c in cells) + " ;")
    conj = [f"{reg}={hex(v) if mixed else v}" for th in threads for reg, v in th.cond]
    conj += [f"{LOCNAMES[l]}={hex(v) if mixed else v}" for l, v in sorted(finals.items())]
    out.append("exists (" + " /\\ ".join(conj) + ")")
    return name, "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--arch", choices=list(HEADS), required=True)
    ap.add_argument("--mixed", action="store_true")
    ap.add_argument("--count", type=int, required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-edges", type=int, default=7)
    ap.add_argument("--x86-unlocked", action="store_true")
    ap.add_argument("outdir")
    a = ap.parse_args()
    if a.mixed and a.arch != "aarch64":
        sys.exit("--mixed is for --arch aarch64")
    if a.x86_unlocked and a.arch != "x86":
        sys.exit("--x86-unlocked is for --arch x86")
    os.makedirs(a.outdir, exist_ok=True)
    made = 0
    for idx in range(a.count):
        rng = random.Random(f"{a.arch}-{a.mixed}-{a.seed}-{idx}")
        while True:
            try:
                name, text = render(rng, a.arch, a.mixed, idx, a.seed, a.max_edges,
                                    a.x86_unlocked)
                break
            except OverflowError:
                continue
        with open(os.path.join(a.outdir, name + ".litmus"), "w") as f:
            f.write(text)
        made += 1
    print(f"{made} tests in {a.outdir}")


if __name__ == "__main__":
    main()
