#!/usr/bin/env python3
"""C11 litmus tests against herd7: same States, same Ok/No/Undef, same
Flag lines, same Observation word (herd counts executions in its
Positive/Negative numbers, bmc-rmm states, so the numbers are not
compared).

herd7 runs as `herd7 -set-libdir LIBDIR -model CAT T.litmus` (its C11
built-ins need no macro file); bmc-rmm as `bmc-rmm litmus --conf CFG -I
LIBDIR T.litmus` with a configuration naming the same model. A test
bmc-rmm refuses (a located error) counts as refused, one it leaves unknown
(timeout) as unknown; herd7's errors are reported too.

With --gen DIR, first writes small C11 tests into DIR, one per
combination below, covering each construct bmc-rmm reads: loads, stores
and fences of every memory order, non-atomic accesses (data races, herd's
`Undef`), `if` on a value read; read-modify-writes of every kind and order in
fixed shapes (`gen_rmw`) and in 200 random tests of a fixed seed
(`gen_random`). Then compares DIR. herd7 gets --herd-timeout seconds a
test (some random tests with many seq_cst RMWs take it minutes).

With --conf CFG (a herd configuration, e.g. the kernel's
linux-kernel.cfg), both tools read it instead of --model: herd7 as
`herd7 -set-libdir LIBDIR -conf CFG -I DIR(CFG) T.litmus`, bmc-rmm as
`bmc-rmm litmus --conf CFG -I LIBDIR T.litmus`. The refusals are counted
by their message (the text after `error:`) at the end.

Usage: bench/c11_diff.py BIN [--model rc11.cat | --conf CFG] [--timeout S]
                          [--herd-timeout S] [--gen DIR] [INPUT...]
e.g.   bench/c11_diff.py target/release/bmc-rmm --gen /tmp/c11gen
       bench/c11_diff.py target/release/bmc-rmm ../shared/corpus/litmus-dat3m/C11
       bench/c11_diff.py --herd-timeout 5 --conf ../shared/corpus/lkmm/model/linux-kernel.cfg \
           target/release/bmc-rmm DIR      # DIR: tests of bench/gen_lkmm.py
"""
import argparse, itertools, os, re, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from herd_diff import inputs  # files, directories, @lists
TOOLS = os.path.join(HERE, "..", "..", "shared", "tools", "herd7")
LIB = os.path.join(TOOLS, "libdir")

LOADS = ["relaxed", "acquire", "seq_cst", "na"]
STORES = ["relaxed", "release", "seq_cst", "na"]
FENCES = ["", "acquire", "release", "acq_rel", "seq_cst"]


def load(x, mo):
    return f"*{x}" if mo == "na" else f"atomic_load_explicit({x}, memory_order_{mo})"


def store(x, v, mo):
    if mo == "na":
        return f"*{x} = {v};"
    return f"atomic_store_explicit({x}, {v}, memory_order_{mo});"


def fence(mo):
    return f"  atomic_thread_fence(memory_order_{mo});\n" if mo else ""


def gen(d):
    """MP (store; fence; store || load; fence; load), SB and LB shapes."""
    os.makedirs(d, exist_ok=True)
    n = 0
    params = "atomic_int* x, atomic_int* y"
    for (w1, w2, r1, r2) in itertools.product(STORES[:3] + ["na"], STORES, LOADS, LOADS[:3] + ["na"]):
        # MP without fences, every order pair.
        if w1 == "na" and r2 == "na" and (w2, r1) != ("release", "acquire"):
            continue
        body0 = f"  {store('x', 1, w1)}\n  {store('y', 1, w2)}\n"
        body1 = f"  int r0 = {load('y', r1)};\n  int r1 = {load('x', r2)};\n"
        write(d, f"MP+{w1}{w2}+{r1}{r2}", params, body0, body1,
              "exists (1:r0=1 /\\ 1:r1=0)")
        n += 1
    for f0, f1 in itertools.product(FENCES, FENCES):
        for kind in ["MP", "SB"]:
            if kind == "MP":
                b0 = f"  {store('x', 1, 'relaxed')}\n{fence(f0)}  {store('y', 1, 'relaxed')}\n"
                b1 = f"  int r0 = {load('y', 'relaxed')};\n{fence(f1)}  int r1 = {load('x', 'relaxed')};\n"
                cond = "exists (1:r0=1 /\\ 1:r1=0)"
            else:
                b0 = f"  {store('x', 1, 'relaxed')}\n{fence(f0)}  int r0 = {load('y', 'relaxed')};\n"
                b1 = f"  {store('y', 1, 'relaxed')}\n{fence(f1)}  int r0 = {load('x', 'relaxed')};\n"
                cond = "exists (0:r0=0 /\\ 1:r0=0)"
            write(d, f"{kind}+F{f0 or 'no'}+F{f1 or 'no'}", params, b0, b1, cond)
            n += 1
    for r, w in itertools.product(LOADS, STORES):
        # LB with the write under an `if` on the value read.
        b0 = f"  int r0 = {load('x', r)};\n  if (r0) {{\n    {store('y', 1, w)}\n  }}\n"
        b1 = f"  int r0 = {load('y', r)};\n  if (r0) {{\n    {store('x', 1, w)}\n  }}\n"
        write(d, f"LBif+{r}+{w}", params, b0, b1, "exists (0:r0=1 /\\ 1:r0=1)")
        n += 1
    for w in STORES:
        # Coherence of two writes to one location, read twice.
        b0 = f"  {store('x', 1, w)}\n  {store('x', 2, 'relaxed')}\n"
        b1 = f"  int r0 = {load('x', 'relaxed')};\n  int r1 = {load('x', 'relaxed')};\n"
        write(d, f"CoRR+{w}", params, b0, b1, "exists (1:r0=2 /\\ 1:r1=1)")
        n += 1
    return n + gen_rmw(d) + gen_random(d)


def write(d, name, params, b0, b1, cond):
    write_n(d, name, "[x] = 0; [y] = 0;", [(params, b0), (params, b1)], cond)


def write_n(d, name, init, threads, cond):
    """A test of threads [(params, body)], init block `init`."""
    with open(os.path.join(d, name + ".litmus"), "w") as f:
        f.write(f"C {name}\n{{ {init} }}\n\n")
        for k, (params, body) in enumerate(threads):
            f.write(f"P{k} ({params}) {{\n{body}}}\n\n")
        f.write(f"{cond}\n")


ORDERS = ["relaxed", "consume", "acquire", "release", "acq_rel", "seq_cst"]
# herd's read-modify-write keywords (lib/CLexer.mll): the fetch operations,
# exchange, strong and weak compare-exchange (explicit, and SC).
RMWS = ["add", "sub", "or", "xor", "and", "xchg", "cas_s", "cas_w"]


def rmw(kind, x, v, mo, e="e", fail="relaxed"):
    """The call of RMW `kind` on `x` with operand `v` (a compare-exchange's
    desired value, `e` its expected location); `mo` `sc` for the
    compare-exchange without orders."""
    if kind == "xchg":
        return f"atomic_exchange_explicit({x}, {v}, memory_order_{mo})"
    if kind.startswith("cas"):
        s = "strong" if kind == "cas_s" else "weak"
        if mo == "sc":
            return f"atomic_compare_exchange_{s}({x}, {e}, {v})"
        return (f"atomic_compare_exchange_{s}_explicit({x}, {e}, {v}, "
                f"memory_order_{mo}, memory_order_{fail})")
    return f"atomic_fetch_{kind}_explicit({x}, {v}, memory_order_{mo})"


def gen_rmw(d):
    """Read-modify-writes of every kind and memory order: as MP's release
    write and acquire read, compare-exchange's success and failure orders
    (succeeding and failing), in a release sequence of another thread,
    two on one location, their value in a condition and a later store, SB
    under seq_cst, data races with non-atomic accesses."""
    n = 0
    pe = "atomic_int* x, atomic_int* y, atomic_int* e"
    p = "atomic_int* x, atomic_int* y"
    for k, mo in itertools.product(RMWS, ORDERS + ["sc"]):
        if mo == "sc" and not k.startswith("cas"):
            continue
        # MP: the RMW writes the flag (a compare-exchange expecting 0).
        b0 = f"  {store('x', 1, 'relaxed')}\n  int r0 = {rmw(k, 'y', 1, mo)};\n"
        b1 = f"  int r0 = {load('y', 'acquire')};\n  int r1 = {load('x', 'relaxed')};\n"
        write_n(d, f"MPw+{k}+{mo}", "[x] = 0; [y] = 0; [e] = 0;", [(pe, b0), (p, b1)],
                "exists (1:r0=1 /\\ 1:r1=0)")
        # MP: the RMW reads the flag (a compare-exchange expecting 1).
        b0 = f"  {store('x', 1, 'relaxed')}\n  {store('y', 1, 'release')}\n"
        b1 = f"  int r0 = {rmw(k, 'y', 2, mo)};\n  int r1 = {load('x', 'relaxed')};\n"
        write_n(d, f"MPr+{k}+{mo}", "[x] = 0; [y] = 0; [e] = 1;", [(p, b0), (pe, b1)],
                "exists (1:r0=1 /\\ 1:r1=0)")
        n += 2
    for k, s, f in itertools.product(["cas_s", "cas_w"], ORDERS, ORDERS):
        # The reader's compare-exchange expects 0: it fails on the flag
        # (its read tagged with the failure order), writing 1 to e.
        b0 = f"  {store('x', 1, 'relaxed')}\n  {store('y', 1, 'release')}\n"
        b1 = (f"  int r0 = {rmw(k, 'y', 2, s, fail=f)};\n"
              f"  int r1 = {load('x', 'relaxed')};\n  int r2 = *e;\n")
        write_n(d, f"MPcas+{k}+{s}+{f}", "[x] = 0; [y] = 0; [e] = 0;",
                [(p, b0), (pe, b1)], "exists (1:r0=0 /\\ 1:r1=0 /\\ 1:r2=1)")
        n += 1
    for k, mo in itertools.product(RMWS, ORDERS):
        # A release sequence continued by another thread's RMW.
        b0 = f"  {store('x', 1, 'relaxed')}\n  {store('y', 1, 'release')}\n"
        b1 = f"  int r0 = {rmw(k, 'y', 2, mo)};\n"
        b2 = f"  int r0 = {load('y', 'acquire')};\n  int r1 = {load('x', 'relaxed')};\n"
        write_n(d, f"RS+{k}+{mo}", "[x] = 0; [y] = 0; [e] = 1;",
                [(p, b0), (pe, b1), (p, b2)], "exists (2:r0=2 /\\ 2:r1=0)")
        n += 1
    pairs = [(a, b, "relaxed") for a, b in itertools.product(RMWS, RMWS)]
    pairs += [(a, a, mo) for a in ["add", "xchg", "cas_s"] for mo in ORDERS[1:] + ["sc"]
              if mo != "sc" or a.startswith("cas")]
    for a, b, mo in pairs:
        # Two RMWs of one location (x initially 1; e expects 1, f 3).
        b0 = f"  int r0 = {rmw(a, 'x', 3, mo)};\n"
        b1 = f"  int r0 = {rmw(b, 'x', 2, mo, e='f')};\n"
        pf = "atomic_int* x, atomic_int* f"
        write_n(d, f"2RMW+{a}+{b}+{mo}", "[x] = 1; [e] = 1; [f] = 3;",
                [("atomic_int* x, atomic_int* e", b0), (pf, b1)],
                "locations [x; e; f;]\nexists (0:r0=1 /\\ 1:r0=1)")
        n += 1
    for k, mo in itertools.product(RMWS, ["relaxed", "acq_rel"]):
        # The RMW's value in a condition (LB) and in a later store.
        b0 = (f"  int r0 = {rmw(k, 'x', 1, mo)};\n"
              f"  if (r0 == 1) {{\n    {store('y', 1, 'relaxed')}\n  }}\n")
        b1 = f"  int r0 = {load('y', 'relaxed')};\n  if (r0) {{\n    {store('x', 1, 'relaxed')}\n  }}\n"
        write_n(d, f"LBrmw+{k}+{mo}", "[x] = 0; [y] = 0; [e] = 1;", [(pe, b0), (p, b1)],
                "exists (0:r0=1 /\\ 1:r0=1)")
        b0 = f"  int r0 = {rmw(k, 'x', 1, mo)};\n  {store('y', 'r0 + 1', 'release')}\n"
        b1 = f"  int r0 = {load('y', 'acquire')};\n  {store('x', 'r0', 'relaxed')}\n"
        write_n(d, f"DATArmw+{k}+{mo}", "[x] = 0; [y] = 0; [e] = 0;", [(pe, b0), (p, b1)],
                "exists (0:r0=1 /\\ 1:r0=2)")
        n += 2
    for k, mo in itertools.product(RMWS, ["seq_cst", "acq_rel", "sc"]):
        if mo == "sc" and not k.startswith("cas"):
            continue
        # SB with RMWs as the writes.
        b0 = f"  int r1 = {rmw(k, 'x', 1, mo)};\n  int r0 = {load('y', 'seq_cst')};\n"
        b1 = f"  int r1 = {rmw(k, 'y', 1, mo, e='f')};\n  int r0 = {load('x', 'seq_cst')};\n"
        write_n(d, f"SBrmw+{k}+{mo}", "[x] = 0; [y] = 0; [e] = 0; [f] = 0;",
                [(pe, b0), ("atomic_int* x, atomic_int* y, atomic_int* f", b1)],
                "exists (0:r0=0 /\\ 1:r0=0)")
        n += 1
    for k, mo in itertools.product(RMWS, ["relaxed", "release", "acq_rel", "seq_cst"]):
        # A non-atomic write published by an RMW (a data race unless it
        # synchronises), read after another RMW.
        b0 = f"  *x = 1;\n  int r0 = {rmw(k, 'y', 1, mo)};\n"
        b1 = f"  int r0 = {rmw(k, 'y', 2, 'acquire', e='f')};\n  int r1 = *x;\n"
        write_n(d, f"NArmw+{k}+{mo}", "[x] = 0; [y] = 0; [e] = 0; [f] = 1;",
                [(pe, b0), ("atomic_int* x, atomic_int* y, atomic_int* f", b1)],
                "exists (1:r1=0)")
        n += 1
    return n


def gen_random(d, count=200, seed=11):
    """`count` random tests (fixed seed): 2 or 3 threads of 2 or 3
    instructions each — loads, stores, fences and read-modify-writes of x
    and y with random orders (a compare-exchange with its own expected
    location e<k>, initially 0 or 1) — the final x and y observed."""
    import random
    rnd = random.Random(seed)
    for i in range(count):
        threads, init = [], ["[x] = 0;", "[y] = 0;"]
        for t in range(rnd.choice([2, 3])):
            body, regs = "", 0
            for _ in range(rnd.choice([2, 3])):
                loc, v = rnd.choice("xy"), rnd.choice([1, 2, 3])
                op = rnd.choice(["load", "store", "fence", "rmw", "rmw"])
                if op == "load":
                    mo = rnd.choice(["relaxed", "consume", "acquire", "seq_cst"])
                    body += f"  int r{regs} = {load(loc, mo)};\n"
                    regs += 1
                elif op == "store":
                    mo = rnd.choice(["relaxed", "release", "seq_cst"])
                    body += f"  {store(loc, v, mo)}\n"
                elif op == "fence":
                    body += fence(rnd.choice(FENCES[1:]))
                else:
                    k = rnd.choice(RMWS)
                    mo, fail = rnd.choice(ORDERS + ["sc"]), rnd.choice(ORDERS)
                    mo = "seq_cst" if mo == "sc" and not k.startswith("cas") else mo
                    body += f"  int r{regs} = {rmw(k, loc, v, mo, e=f'e{t}', fail=fail)};\n"
                    regs += 1
            init.append(f"[e{t}] = {rnd.choice([0, 1])};")
            threads.append((f"atomic_int* x, atomic_int* y, atomic_int* e{t}", body))
        write_n(d, f"RND{i:03}", " ".join(init), threads, "locations [x; y;]\nexists (x=1)")
    return count


def summary(text):
    """(sorted states, verdict, flags, observation word) of one block."""
    lines = text.splitlines()
    try:
        i = next(k for k, l in enumerate(lines) if l.startswith("States "))
    except StopIteration:
        return None
    n = int(lines[i].split()[1])
    states = sorted(" ".join(sorted(p.strip() for p in l.split(";") if p.strip()))
                    for l in lines[i + 1:i + 1 + n])
    verdict = lines[i + 1 + n].split()[-1]
    flags = sorted(l for l in lines if l.startswith("Flag "))
    obs = next((l.split()[2] for l in lines if l.startswith("Observation ")), None)
    return states, verdict, flags, obs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("--model", default="rc11.cat")
    ap.add_argument("--conf", help="a herd configuration both tools read instead of --model")
    ap.add_argument("--timeout", default="20")
    ap.add_argument("--herd-timeout", type=float, default=60,
                    help="seconds herd7 gets per test (then counted herd-timeout)")
    ap.add_argument("--gen")
    ap.add_argument("inputs", nargs="*")
    a = ap.parse_args()
    herd7 = os.path.join(TOOLS, "bin", "herd7")
    if not os.path.exists(herd7):
        print("herd7 absent: skipped")
        return 0
    files = inputs(a.inputs)
    if a.gen:
        print(f"generated {gen(a.gen)} tests in {a.gen}")
        files += inputs([a.gen])
    if a.conf:
        conf = os.path.abspath(a.conf)
        herd_args = ["-conf", conf, "-I", os.path.dirname(conf)]
    else:
        cfg = tempfile.NamedTemporaryFile("w", suffix=".cfg", delete=False)
        cfg.write(f"model {os.path.join(LIB, a.model)}\n")
        cfg.close()
        conf, herd_args = cfg.name, ["-model", a.model]
    reasons = {}
    counts = {"agree": 0, "disagree": 0, "refused": 0, "unknown": 0, "herd-error": 0,
              "herd-timeout": 0}
    t_ours = t_herd = 0.0
    for f in files:
        t0 = time.time()
        try:
            h = subprocess.run([herd7, "-set-libdir", LIB] + herd_args + [f],
                               capture_output=True, text=True, timeout=a.herd_timeout)
        except subprocess.TimeoutExpired:
            h = None
        t1 = time.time()
        o = subprocess.run([a.bin, "litmus", "--timeout", a.timeout, "--conf", conf,
                            "-I", LIB, f], capture_output=True, text=True)
        t2 = time.time()
        t_herd += t1 - t0
        t_ours += t2 - t1
        hs = summary(h.stdout) if h else None
        if h is None:
            counts["herd-timeout"] += 1
            print(f"herd7 timeout: {f}")
        elif hs is None:
            counts["herd-error"] += 1
            print(f"herd7 error: {f}: {(h.stdout + h.stderr).strip()[:200]}")
        if o.returncode == 2:
            counts["refused"] += 1
            first = (o.stderr.strip().splitlines() or ["?"])[0]
            print(f"refused: {first}")
            why = first.split("error: ", 1)[-1]
            reasons[why] = reasons.get(why, 0) + 1
            continue
        if "unknown" in o.stderr:
            counts["unknown"] += 1
            print(f"unknown: {f}")
            continue
        if hs is None:
            continue
        os_ = summary(o.stdout)
        if os_ == hs:
            counts["agree"] += 1
        else:
            counts["disagree"] += 1
            print(f"DIFFER: {f}\n  herd7:   {hs}\n  bmc-rmm: {os_}")
    if not a.conf:
        os.unlink(conf)
    for why, k in sorted(reasons.items(), key=lambda r: -r[1]):
        print(f"refused {k}: {why}")
    print(" ".join(f"{k} {v}" for k, v in counts.items()),
          f"| {len(files)} tests, herd7 {t_herd:.1f} s, bmc-rmm {t_ours:.1f} s (wall, one process per test)")
    return 1 if counts["disagree"] else 0


if __name__ == "__main__":
    sys.exit(main())
