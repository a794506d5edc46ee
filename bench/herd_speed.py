#!/usr/bin/env python3
"""Speed against herd7: each litmus collection in one process on each side.

For each collection (the Dat3M AArch64 / AArch64 mixed / RISC-V / PPC / X86
suites of ../shared/corpus/litmus-dat3m, the PPC / X86 / X86_64 folders of
../shared/corpus/litmus, the AArch64 / RISC-V folders of
../shared/corpus/litmus-arm, the C tests of ../shared/corpus/lkmm under the
kernel's model files there) it runs herd7 once with every file of the
collection on its command line (`-variant mixed` for the mixed suite,
`-I model -conf linux-kernel.cfg` for lkmm) and `BIN litmus --json -j 1`
(lkmm: `BIN litmus --json --conf … -I LIBDIR -j 1`) once on the
same files (an @list), one after the
other, and prints: collection, tests, the CPU time (user + system of the
child process) and wall time of each, and the CPU ratio herd7 / bmc-rmm.
Both sides get the same per-test limit (--timeout, default 10 s; herd7's
`-timeout` skips the test, bmc-rmm answers unknown), counted in the time
spent. Then it lists the tests where bmc-rmm took more than 10 s (or hit
the limit) while herd7 answered in under 1 s, from herd7's `Time` lines and
bmc-rmm's JSON `time` field, matched by test name; for lkmm, every test
with 8 or more processes with both times and their ratio.

Usage: bench/herd_speed.py BIN [--timeout S] [--only NAME]... [--sample N]
  --only NAME  run only the collections whose name contains NAME
  --sample N   every N-th file of each collection (by sorted path)
Skips with a message (exit 0) when herd7 or the corpus is absent.
"""
import argparse, json, os, re, resource, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.path.join(HERE, "..", "..", "shared")
TOOLS = os.path.join(SHARED, "tools", "herd7")
CORPUS = os.path.join(SHARED, "corpus")
COLLECTIONS = [  # (name, folder under corpus/, excluded subfolder, bmc-rmm model, herd cat, mixed)
    ("dat3m AArch64", "litmus-dat3m/AARCH64", "mixed", "arm", "aarch64.cat", False),
    ("dat3m AArch64 mixed", "litmus-dat3m/AARCH64/mixed", None, "arm", "aarch64.cat", True),
    ("dat3m RISC-V", "litmus-dat3m/RISCV", None, "riscv", "riscv.cat", False),
    ("dat3m PPC", "litmus-dat3m/PPC", None, "power", "ppc.cat", False),
    ("dat3m X86", "litmus-dat3m/X86", None, "tso", "x86tso.cat", False),
    ("litmus PPC", "litmus/PPC", None, "power", "ppc.cat", False),
    ("litmus X86", "litmus/X86", None, "tso", "x86tso.cat", False),
    ("litmus X86_64", "litmus/X86_64", None, "tso", "x86tso-mixed.cat", False),
    ("litmus-arm AArch64", "litmus-arm/AArch64", None, "arm", "aarch64.cat", False),
    ("litmus-arm RISC-V", "litmus-arm/RISCV", None, "riscv", "riscv.cat", False),
    # The kernel's model: herd7 `-I model -conf linux-kernel.cfg`, bmc-rmm
    # `litmus --conf … -I herd's libdir` (the model column is unused).
    ("lkmm", "lkmm", "model", None, "linux-kernel.cfg", False),
]


def files_of(folder, exclude):
    base = os.path.join(CORPUS, folder)
    out = []
    for d, subs, fs in os.walk(base):
        if exclude:
            subs[:] = [s for s in subs if os.path.join(d, s) != os.path.join(base, exclude)]
        out += [os.path.join(d, f) for f in fs if f.endswith(".litmus")]
    return sorted(out)


def timed(cmd, cwd):
    """Runs cmd; returns (stdout, CPU seconds of the child, wall seconds)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.time()
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    wall = time.time() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return p.stdout, cpu, wall


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("--timeout", type=float, default=10)
    ap.add_argument("--only", action="append")
    ap.add_argument("--sample", type=int, default=1)
    a = ap.parse_args()
    if not os.path.isfile(os.path.join(TOOLS, "bin", "herd7")) or not os.path.isdir(CORPUS):
        print(f"herd7 or the corpus not found under {SHARED}; skipped")
        return 0
    scratch = tempfile.mkdtemp(prefix="herd_speed.")
    rows, slow, big = [], [], []
    print(f"{'collection':<22} {'tests':>6} {'herd7 cpu s':>12} {'bmc-rmm cpu s':>14} {'ratio':>7}"
          f" {'herd7 wall':>11} {'bmc-rmm wall':>13} {'herd7 t/o':>9} {'ours unk/refused':>16}", flush=True)
    for name, folder, exclude, model, cat, mixed in COLLECTIONS:
        if a.only and not any(o in name for o in a.only):
            continue
        files = files_of(folder, exclude)[::a.sample]
        if not files:
            continue
        lkmm = cat.endswith(".cfg")
        model_dir = os.path.join(CORPUS, folder, "model")
        herd_cmd = [os.path.join(TOOLS, "bin", "herd7"), "-set-libdir", os.path.join(TOOLS, "libdir"),
                    "-timeout", str(a.timeout)] + (["-variant", "mixed"] if mixed else [])
        herd_cmd += ["-I", model_dir, "-conf", os.path.join(model_dir, cat)] if lkmm else ["-model", cat]
        hout, hcpu, hwall = timed(herd_cmd + [os.path.abspath(f) for f in files], scratch)
        htime = {}
        for l in hout.splitlines():
            m = re.match(r"Time (\S+) ([0-9.]+)", l)
            if m:
                htime.setdefault(m.group(1), float(m.group(2)))
        lst = os.path.join(scratch, "list")
        with open(lst, "w") as f:
            f.write("\n".join(os.path.abspath(x) for x in files) + "\n")
        ours = [os.path.abspath(a.bin), "litmus", "-q", "-j", "1", "--json", "--timeout", str(a.timeout)]
        if lkmm:
            ours += ["--conf", os.path.join(model_dir, cat), "-I", os.path.join(TOOLS, "libdir")]
        else:
            ours += ["--model", model]
        oout, ocpu, owall = timed(ours + ["@" + lst], scratch)
        unknown = refused = 0
        for l in oout.splitlines():
            if not l.startswith("{"):
                continue
            r = json.loads(l)
            t = r.get("time") or 0.0
            if r.get("error"):
                refused += 1
                continue
            if r.get("unknown"):
                unknown += 1
                t = max(t, a.timeout)
            h = htime.get(r.get("test"))
            if lkmm:
                text = open(r["file"], errors="replace").read()
                procs = len(set(re.findall(r"^\s*P(\d+)\s*\(", text, re.M)))
                if procs >= 8:
                    big.append((r["file"], procs, t, h))
            if t > 10 and h is not None and h < 1:
                slow.append((name, r.get("file"), t, h))
        ratio = hcpu / ocpu if ocpu > 0 else float("inf")
        print(f"{name:<22} {len(files):>6} {hcpu:>12.1f} {ocpu:>14.1f} {ratio:>6.1f}x"
              f" {hwall:>11.1f} {owall:>13.1f} {len(files) - len(htime):>9} {f'{unknown}/{refused}':>16}", flush=True)
    if big:
        # The kernel's tests with 8 processes or more (herd7's time, `-`
        # over its limit; bmc-rmm's, the limit when unknown).
        print(f"lkmm tests with 8 or more processes: {len(big)}")
        for f, procs, t, h in sorted(big, key=lambda x: -x[2]):
            hs = f"{h:.2f}" if h is not None else "-"
            ratio = f"{h / t:.0f}x" if h is not None and t > 0 else "-"
            print(f"  {os.path.relpath(f, CORPUS)} ({procs} processes): herd7 {hs} s, bmc-rmm {t:.2f} s, {ratio}")
    print(f"tests where bmc-rmm takes > 10 s and herd7 < 1 s: {len(slow)}")
    for name, f, t, h in slow:
        print(f"  {name}: {f} bmc-rmm {t:.1f} s, herd7 {h:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
