#!/usr/bin/env python3
"""Writes random C litmus tests (herd's C dialect, the Linux kernel's
macros of tools/memory-model/linux-kernel.def) built from cycles of
relaxations as herd's diy7 builds them, for the differential test
against herd7 under the kernel's model (bench/c11_diff.py --conf).

The cycle and its values come from bench/gen_litmus.py (gen_cycle, build:
2 to 4 threads, each maximal same-location stretch a fresh location, the
k-th write of a location writes k, a read reads the latest write before
it on the stretch), drawn from these edges:
  communication  Rfe, Fre, Coe (to the next thread), Rfi, Fri, Coi;
  program order  Pos/Pod XY (same / different location);
  fences         smp_mb(), smp_rmb(), smp_wmb(), smp_mb__before_atomic(),
                 smp_mb__after_atomic(), synchronize_rcu() between the two
                 accesses (edge names Mb, Rmb, Wmb, BeforeAtomic,
                 AfterAtomic, SyncRcu, then s/d and the directions);
  dependencies   from a read (DpAddr/DpData/DpCtrl, d or s):
                 addr  the target's address is `x + E` with E an
                       expression of the value read that is 0 for every
                       value of the test (`r1 & 128`, `r1 - r1`,
                       `r1 ^ r1`), in the access or through a local
                       pointer (`r9 = x + (r1 & 128);` then `*r9`);
                 data  the value written is `E + v`;
                 ctrl  the target sits in `if (r1 == k) { }`, `if (r1 !=
                       99)` or `if (r1 >= 0)` (k the value the cycle reads),
                       or in the else branch of the negated condition
                       (the other branch assigns a register), or in `if
                       (r9 == 1)` after `if (...) { r9 = 1; } else { r9 =
                       2; }` (herd's ctrl passes through r9).
Each access is its own statement (herd gives the events of one statement
one po index; bmc-rmm refuses a statement with two events). Access kinds:
a read is READ_ONCE, smp_load_acquire, rcu_dereference, atomic_read,
atomic_read_acquire, a plain `*x`, a failing cmpxchg (any ordering,
expecting 99: its read alone) or a failing atomic_add_unless (its limit
the value read: value 0); a write is WRITE_ONCE, smp_store_release,
rcu_assign_pointer, smp_store_mb, atomic_set, atomic_set_release, a plain
`*x = v`,
xchg and cmpxchg (all four orderings, also as atomic_xchg/atomic_cmpxchg;
cmpxchg expects the value the cycle reads, so it succeeds there),
atomic_inc, atomic_add, atomic_add_return, atomic_fetch_add,
atomic_inc_return, atomic_fetch_inc, atomic_fetch_sub (of -1),
atomic_add_negative with their _relaxed/_acquire/_release forms,
atomic_add_unless (limit 99: value 1), atomic_inc_and_test (the k-th
write of a location follows a read of k-1: adding 1 writes k). An RMW's
returned value is observed. Before smp_mb__before_atomic() and after
smp_mb__after_atomic() the access is mostly an RMW. A location touched by
an atomic_t operation is an `atomic_t *`. With probability 1/4 one
location (not read as a dependency's source) holds pointers: its k-th
write writes the address of another location (of the test or a fresh
u0, u1, ...), initially the 0-th; its accesses are READ_ONCE,
smp_load_acquire, rcu_dereference, plain, WRITE_ONCE, smp_store_release,
rcu_assign_pointer, xchg, cmpxchg; a read of it is often followed by a
read through the pointer read, observed by `locations`.

Also, at random: a thread's body between rcu_read_lock() and
rcu_read_unlock(), or srcu_read_lock(ss) and srcu_read_unlock(ss, r)
(then, with probability 1/2, a program-order edge of another thread gets
a synchronize_rcu() or synchronize_srcu(ss) between its accesses); a
stretch of a thread's statements between spin_lock(s) and
spin_unlock(s) of one lock shared by the test, or under `if (r =
spin_trylock(s))` (the condition asks r=1), with
smp_mb__after_spinlock() or smp_mb__after_unlock_lock() after the lock
at random, and a spin_is_locked(s) observed by `locations`; the final
values of the other locations in `locations`; an access through a
pointer read from memory (`r9 = READ_ONCE(*px); WRITE_ONCE(*r9, v);`
with `int *px = x;` initially; the condition asks `r9=x`); and, for 3 in
10 data dependencies from a READ_ONCE statement into a WRITE_ONCE (about
one test in 150), the two accesses as one statement with two events
(`WRITE_ONCE(*y, (READ_ONCE(*x) & 128) + 1);`, the read's register then
not observed), which bmc-rmm refuses, located.

The condition is the cycle's: every observed register's value and, for
a location written twice or more, its final value.

Deterministic: the same arguments write the same files.

Usage: bench/gen_lkmm.py --count N [--seed S] [--max-edges E] OUTDIR
  --max-edges E  cycles of at most E edges (default 6)
"""
import argparse, os, random, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from gen_litmus import Edge, build, gen_cycle, LOCNAMES  # noqa: E402

FENCES = {"Mb": "smp_mb();", "Rmb": "smp_rmb();", "Wmb": "smp_wmb();",
          "BeforeAtomic": "smp_mb__before_atomic();", "AfterAtomic": "smp_mb__after_atomic();",
          "SyncRcu": "synchronize_rcu();"}
DEP_NAMES = {"addr": "DpAddr", "data": "DpData", "ctrl": "DpCtrl"}
ORD = ["", "_relaxed", "_acquire", "_release"]
READS = ["once"] * 6 + ["acquire", "acquire", "deref", "aread", "aread_acquire", "plain",
                        "cmpxchg_fail", "atomic_cmpxchg_fail", "atomic_add_unless_fail"]
WRITES = ["once"] * 12 + ["release", "release", "assign", "aset", "aset_release", "plain",
                          "xchg", "atomic_xchg", "cmpxchg", "atomic_cmpxchg", "atomic_inc",
                          "atomic_add", "atomic_add_return", "atomic_fetch_add",
                          "atomic_inc_return", "atomic_fetch_inc", "atomic_fetch_sub",
                          "atomic_add_unless", "atomic_inc_and_test", "atomic_add_negative",
                          "store_mb"]
RMW_READS = ["cmpxchg_fail", "atomic_cmpxchg_fail", "atomic_add_unless_fail"]
RMW_WRITES = [k for k in WRITES if k.startswith(("xchg", "cmpxchg", "atomic_"))]
# Kinds with the four orderings (`xchg`, `xchg_relaxed`, ...).
ORDERED = {"cmpxchg_fail", "atomic_cmpxchg_fail", "xchg", "atomic_xchg", "cmpxchg",
           "atomic_cmpxchg", "atomic_add_return", "atomic_fetch_add", "atomic_inc_return",
           "atomic_fetch_inc", "atomic_fetch_sub", "atomic_add_negative"}


def c_edges():
    """The C edges (internal, external), as gen_litmus.edges for an arch."""
    ext = [Edge("Rfe", "W", "R", True, True, "com"), Edge("Fre", "R", "W", True, True, "com"),
           Edge("Coe", "W", "W", True, True, "com")]
    inter = [Edge("Rfi", "W", "R", False, True, "com"), Edge("Fri", "R", "W", False, True, "com"),
             Edge("Coi", "W", "W", False, True, "com")]
    for x in "RW":
        for y in "RW":
            for _ in range(2):
                inter.append(Edge(f"Pod{x}{y}", x, y, False, False, "po"))
            inter.append(Edge(f"Pos{x}{y}", x, y, False, True, "po"))
            for name, f in FENCES.items():
                inter.append(Edge(f"{name}d{x}{y}", x, y, False, False, "fence", f))
                if name in ("Mb", "SyncRcu"):
                    continue
                inter.append(Edge(f"{name}s{x}{y}", x, y, False, True, "fence", f))
    for d, name in DEP_NAMES.items():
        for y in "RW":
            if d == "data" and y == "R":
                continue
            for _ in range(4):
                inter.append(Edge(f"{name}d{y}", "R", y, False, False, d))
            inter.append(Edge(f"{name}s{y}", "R", y, False, True, d))
    return inter, ext


def is_atomic_t(kind):
    return kind.startswith(("atomic", "aread", "aset"))


class Thread:
    """One thread's statements (units: a statement or an `if` block),
    registers, parameters and observed registers."""

    def __init__(self, tid, rng):
        self.tid, self.rng = tid, rng
        self.units, self.ints, self.ptrs, self.params = [], [], [], set()
        self.cond, self.rcu, self.srcu, self.locs = [], False, False, []

    def reg(self, ptr=False):
        r = f"r{len(self.ints) + len(self.ptrs)}"
        (self.ptrs if ptr else self.ints).append(r)
        return r


def zero_of(rng, r):
    """An expression of register r that is 0 for every value of a test."""
    return rng.choice([f"({r} & 128)", f"({r} - {r})", f"({r} ^ {r})"])


def access(th, ev, edge, src, loc_ptr):
    """The statements of event ev (edge: its incoming edge or None, src:
    the source event, loc_ptr: names of locations read through a
    pointer). Returns a list of statements."""
    rng, x = th.rng, LOCNAMES[ev.loc]
    th.params.add(x)
    pre, p = [], x  # p: the pointer expression of the access
    if edge is not None and edge.kind == "addr":
        e = f"{x} + {zero_of(rng, src.reg)}"
        if rng.random() < 0.5:
            p = f"({e})"
        else:
            q = th.reg(ptr=True)
            pre.append(f"{q} = {e};")
            p = q
    elif x in loc_ptr and rng.random() < 0.5:
        q = th.reg(ptr=True)
        th.params.add("p" + x)
        pre.append(f"{q} = READ_ONCE(*p{x});")
        th.cond.append((q, x))
        p = q
    k, o = ev.kind, ev.order
    names = getattr(ev, "names", None)  # a pointer location's values
    val = (lambda k: names[k]) if names else (lambda k: k)
    if edge is not None and edge.kind == "data":
        # The forms without an operand take the value through one.
        k = {"atomic_inc_return": "atomic_add_return", "atomic_fetch_inc": "atomic_fetch_add",
             "atomic_fetch_sub": "atomic_fetch_add", "atomic_inc": "atomic_add",
             "atomic_inc_and_test": "atomic_add_negative"}.get(k, k)
    if ev.dir == "R":
        r = th.reg(ptr=bool(names))
        ev.reg = r
        th.cond.append((r, val(ev.read)))
        rhs = {"once": f"READ_ONCE(*{p})", "acquire": f"smp_load_acquire({p})",
               "deref": f"rcu_dereference(*{p})", "aread": f"atomic_read({p})",
               "aread_acquire": f"atomic_read_acquire({p})", "plain": f"*{p}",
               "cmpxchg_fail": f"cmpxchg{o}({p}, 99, 7)",
               "atomic_cmpxchg_fail": f"atomic_cmpxchg{o}({p}, 99, 7)",
               "atomic_add_unless_fail": f"atomic_add_unless({p}, 1, {ev.read})"}[k]
        if k == "atomic_add_unless_fail":
            th.cond[-1] = (r, 0)  # the value is 0: nothing added
        if names and rng.random() < 0.6:
            # Read through the pointer read (observed by `locations`).
            q = th.reg()
            th.locs.append(q)
            return pre + [f"{r} = {rhs};", f"{q} = READ_ONCE(*{r});"]
        return pre + [f"{r} = {rhs};"]
    v, d = val(ev.value), ev.value - ev.read
    if names:
        th.params.update([v, val(ev.read)])
    if edge is not None and edge.kind == "data":
        v = f"{zero_of(rng, src.reg)} + {v}"
        d = f"{zero_of(rng, src.reg)} + {d}"
    stmt = {"once": f"WRITE_ONCE(*{p}, {v});", "release": f"smp_store_release({p}, {v});",
            "assign": f"rcu_assign_pointer(*{p}, {v});", "aset": f"atomic_set({p}, {v});",
            "aset_release": f"atomic_set_release({p}, {v});", "plain": f"*{p} = {v};",
            "atomic_inc": f"atomic_inc({p});", "atomic_add": f"atomic_add({d}, {p});",
            "store_mb": f"smp_store_mb(*{p}, {v});"}.get(k)
    if stmt:
        return pre + [stmt]
    r = th.reg(ptr=bool(names))
    ev.reg = r
    if k in ("xchg", "atomic_xchg"):
        rhs, ret = f"{k}{o}({p}, {v})", val(ev.read)
    elif k in ("cmpxchg", "atomic_cmpxchg"):
        rhs, ret = f"{k}{o}({p}, {val(ev.read)}, {v})", val(ev.read)
    elif k == "atomic_add_return":
        rhs, ret = f"atomic_add_return{o}({d}, {p})", ev.value
    elif k == "atomic_fetch_add":
        rhs, ret = f"atomic_fetch_add{o}({d}, {p})", ev.read
    elif k == "atomic_fetch_sub":
        rhs, ret = f"atomic_fetch_sub{o}(-1, {p})", ev.read
    elif k == "atomic_inc_return":
        rhs, ret = f"atomic_inc_return{o}({p})", ev.value
    elif k == "atomic_fetch_inc":
        rhs, ret = f"atomic_fetch_inc{o}({p})", ev.read
    elif k == "atomic_add_unless":
        rhs, ret = f"atomic_add_unless({p}, {d}, 99)", 1
    elif k == "atomic_inc_and_test":
        rhs, ret = f"atomic_inc_and_test({p})", 0
    else:  # atomic_add_negative: the values are not negative
        rhs, ret = f"atomic_add_negative{o}({d}, {p})", 0
    th.cond.append((r, ret))
    return pre + [f"{r} = {rhs};"]


def emit(th, ev, edge, src, loc_ptr, rcu_used, srcu_used=False):
    """Appends ev's units to th: the fence or synchronize_rcu() of its
    incoming edge, then the access (inside the `if` of a control
    dependency), or a statement with two events (fused data dependency)."""
    rng = th.rng
    if edge is not None and edge.kind == "fence":
        th.units.append(edge.fence)
    if edge is not None and edge.kind == "po" and rcu_used and not th.rcu and rng.random() < 0.5:
        th.units.append("synchronize_rcu();")
    elif edge is not None and edge.kind == "po" and srcu_used and not th.srcu \
            and rng.random() < 0.5:
        th.units.append("synchronize_srcu(ss);")
        th.params.add("ss")
    if (edge is not None and edge.kind == "data" and ev.kind == "once" and src.kind == "once"
            and th.units and th.units[-1] == src.stmt and src.stmt.startswith("r")
            and rng.random() < 0.3):
        # One statement with two events: the read is not observed.
        th.units.pop()
        th.cond = [c for c in th.cond if c[0] != src.reg]
        th.units.append(f"WRITE_ONCE(*{LOCNAMES[ev.loc]}, (READ_ONCE(*{LOCNAMES[src.loc]}) & 128)"
                        f" + {ev.value});")
        th.params.add(LOCNAMES[ev.loc])
        return
    stmts = access(th, ev, edge, src, loc_ptr)
    if edge is not None and edge.kind == "ctrl":
        r = src.reg
        names = getattr(src, "names", None)
        k = names[src.read] if names else src.read
        c = rng.choice([f"{r} == {k}", f"{r} == {k}", f"{r} != 99", f"{r} >= 0"])
        if names:
            c = f"{r} == {k}"
        body = "\n".join("\t\t" + s for s in stmts)
        f = rng.random()
        if f < 0.2:
            # Through a register set in both branches: herd's ctrl passes
            # from the first condition's reads to the second's branch.
            t = th.reg()
            th.units.append(f"if ({c}) {{\n\t\t{t} = 1;\n\t}} else {{\n\t\t{t} = 2;\n\t}}")
            th.units.append(f"if ({t} == 1) {{\n{body}\n\t}}")
        elif f < 0.4:
            # The access in the else branch, a register set in the other.
            c = f"{r} != {k}" if names else rng.choice([f"{r} != {k}", f"{r} == 99", f"{r} < 0"])
            z = f"{r}" if names else "5"
            th.units.append(f"if ({c}) {{\n\t\t{r} = {z};\n\t}} else {{\n{body}\n\t}}")
        else:
            th.units.append(f"if ({c}) {{\n{body}\n\t}}")
    else:
        th.units.extend(stmts)
    ev.stmt = th.units[-1]


def wrap(th):
    """Wraps a stretch of th's statements in a critical section of the
    lock s (spin_lock, or spin_trylock and an `if` on its value, the
    condition asking it succeeded; smp_mb__after_spinlock() or
    smp_mb__after_unlock_lock() after the lock, at random), adds a
    spin_is_locked(s) whose value is observed by `locations`, then the
    RCU or SRCU read-side section around the whole body."""
    rng = th.rng
    if rng.random() < 0.15 and th.units:
        th.params.add("s")
        a = rng.randrange(len(th.units))
        b = rng.randrange(a, len(th.units)) + 1
        inner = th.units[a:b]
        f = rng.random()
        if f < 0.15:
            inner = ["smp_mb__after_spinlock();"] + inner
        elif f < 0.3:
            inner = ["smp_mb__after_unlock_lock();"] + inner
        if rng.random() < 0.25:
            r = th.reg()
            th.cond.append((r, 1))
            body = "\n".join("\t\t" + u.replace("\n", "\n\t") for u in inner + ["spin_unlock(s);"])
            th.units[a:b] = [f"{r} = spin_trylock(s);", f"if ({r}) {{\n{body}\n\t}}"]
        else:
            th.units[a:b] = ["spin_lock(s);"] + inner + ["spin_unlock(s);"]
        if rng.random() < 0.2:
            r = th.reg()
            th.locs.append(r)
            th.units.insert(rng.randrange(len(th.units) + 1), f"{r} = spin_is_locked(s);")
    if th.rcu:
        th.units = ["rcu_read_lock();"] + th.units + ["rcu_read_unlock();"]
    elif th.srcu:
        r = th.reg()
        th.params.add("ss")
        th.units = [f"{r} = srcu_read_lock(ss);"] + th.units + [f"srcu_read_unlock(ss, {r});"]


PTR_READS = ["once", "acquire", "deref", "deref", "plain"]
PTR_WRITES = ["once", "release", "assign", "assign", "plain", "xchg", "cmpxchg"]


def pointer_location(rng, cyc, evs, nlocs):
    """With probability 1/4, makes one location a pointer: its k-th
    write writes the address of the k-th of other locations (of the test
    or fresh ones u0, u1, ...), initially the 0-th; its accesses take the
    kinds of PTR_READS/PTR_WRITES, and a read of it may be followed by a
    read through the pointer read. Not a location whose read is the
    source of an address or data dependency (their expressions compute
    on integers). Returns the location or None; sets ev.names."""
    bad = {ev.loc for i, ev in enumerate(evs) if cyc[i].kind in ("addr", "data")}
    cands = [l for l in range(nlocs) if l not in bad]
    if not cands or rng.random() >= 0.25:
        return None
    l = rng.choice(cands)
    mine = [ev for ev in evs if ev.loc == l]
    writes = sum(ev.dir == "W" for ev in mine)
    names = [LOCNAMES[m] for m in range(nlocs) if m != l] + [f"u{k}" for k in range(writes + 1)]
    rng.shuffle(names)
    names = names[:writes + 1]
    for ev in mine:
        ev.kind = rng.choice(PTR_READS if ev.dir == "R" else PTR_WRITES)
        ev.names = names
    return l


def render(rng, idx, seed, max_edges):
    """(name, text) of one test."""
    cyc = gen_cycle(rng, "c", max_edges, pool=c_edges())
    evs, nthreads, nlocs, finals = build(rng, "c", False, cyc, kinds=(READS, WRITES))
    n = len(cyc)
    for i, e in enumerate(cyc):
        # smp_mb__{before,after}_atomic() order an RMW after (before) them:
        # mostly give that access an RMW kind.
        j = (i + 1) % n if e.fence == FENCES["BeforeAtomic"] else i
        if e.fence in (FENCES["BeforeAtomic"], FENCES["AfterAtomic"]) and rng.random() < 0.7:
            ev = evs[j]
            ev.kind = rng.choice(RMW_READS if ev.dir == "R" else RMW_WRITES)
    for ev in evs:
        ev.order = rng.choice(ORD) if ev.kind in ORDERED else ""
        ev.reg = None
    ptrloc = pointer_location(rng, cyc, evs, nlocs)
    atomic = {ev.loc for ev in evs if is_atomic_t(ev.kind)}
    # Locations also reached through a pointer read from memory.
    loc_ptr = {LOCNAMES[l] for l in range(nlocs)
               if l not in atomic and l != ptrloc and rng.random() < 0.1}
    threads = [Thread(t, rng) for t in range(nthreads)]
    for th in threads:
        th.rcu = rng.random() < 0.12
        th.srcu = not th.rcu and rng.random() < 0.08
    rcu_used = any(th.rcu for th in threads)
    srcu_used = any(th.srcu for th in threads)
    sync = {ev.thread for i, ev in enumerate(evs) if cyc[(i - 1) % n].fence == FENCES["SyncRcu"]}
    for t in sync:
        threads[t].rcu = False  # no synchronize_rcu() in a read-side section
    for i, ev in enumerate(evs):
        prev = cyc[(i - 1) % n]
        edge = None if (i == 0 or prev.ext) else prev
        emit(threads[ev.thread], ev, edge, evs[(i - 1) % n], loc_ptr, rcu_used, srcu_used)
    for th in threads:
        wrap(th)
    cycle = " ".join(e.name for e in cyc)
    name = f"LK{seed}-{idx:05d}"
    out = [f"C {name}", f'"{cycle}"', f"Cycle={cycle}", "", "{"]
    out += [f"int *p{x} = {x};" for x in sorted(loc_ptr)]
    if ptrloc is not None:
        names = evs[[ev.loc for ev in evs].index(ptrloc)].names
        out.append(f"int *{LOCNAMES[ptrloc]} = {names[0]};")
    out.append("}")
    for th in threads:
        params = []
        for p in sorted(th.params):
            if p == "s":
                params.append("spinlock_t *s")
            elif p == "ss":
                params.append("struct srcu_struct *ss")
            elif p.startswith("p") or (p in LOCNAMES and LOCNAMES.index(p) == ptrloc):
                params.append(f"int **{p}")
            elif p not in LOCNAMES:
                params.append(f"int *{p}")
            else:
                t = "atomic_t" if LOCNAMES.index(p) in atomic else "int"
                params.append(f"{t} *{p}")
        out.append("")
        out.append(f"P{th.tid}({', '.join(params)})")
        out.append("{")
        out += [f"\tint {r};" for r in th.ints] + [f"\tint *{r};" for r in th.ptrs]
        if th.ints or th.ptrs:
            out.append("")
        out += ["\t" + u for u in th.units]
        out.append("}")
    conj = [f"{th.tid}:{r}={v}" for th in threads for r, v in th.cond]
    for l, v in sorted(finals.items()):
        if l == ptrloc:
            v = evs[[ev.loc for ev in evs].index(l)].names[v]
        conj.append(f"{LOCNAMES[l]}={v}")
    out.append("")
    shown = [f"{th.tid}:{r}" for th in threads for r in th.locs]
    if rng.random() < 0.3:
        shown += [LOCNAMES[l] for l in range(nlocs) if l not in finals]
    if shown:
        out.append("locations [" + " ".join(f"{x};" for x in shown) + "]")
    out.append("exists (" + " /\\ ".join(conj) + ")")
    return name, "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-edges", type=int, default=6)
    ap.add_argument("outdir")
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    for idx in range(a.count):
        rng = random.Random(f"lkmm-{a.seed}-{idx}")
        name, text = render(rng, idx, a.seed, a.max_edges)
        with open(os.path.join(a.outdir, name + ".litmus"), "w") as f:
            f.write(text)
    print(f"{a.count} tests in {a.outdir}")


if __name__ == "__main__":
    main()
