#!/usr/bin/env python3
"""Differential test against herd7: same Observation, same States.

Runs herd7 (../shared/tools/herd7, 7.58) and `BIN litmus --json` on the
given litmus files, directories (every .litmus inside) or @lists, and
prints each test where they differ: the Observation words, and the final
states only one of them reaches. herd7 runs with `-variant mixed` on
AArch64 tests of the mixed-size collections (a path with `mixed` in it, or
a `Variant=mixed` line) or always with --mixed. A test that bmc-rmm
refuses (a located error) is counted as refused, not as a disagreement
(herd7 is not run on it); a test herd7 does not answer within --herd-timeout is skipped.

Usage: bench/herd_diff.py BIN [--model M] [--herd-model CAT] [--mixed]
       [--herd-timeout S] [--jobs J] [--quiet] INPUT...
  --model M        bmc-rmm's model (default by architecture: X86 tso,
                   PPC power, AArch64 arm, RISCV riscv)
  --herd-model CAT herd's cat file (default by architecture, as herd7's:
                   X86 x86tso.cat, X86_64 x86tso-mixed.cat, PPC ppc.cat,
                   AArch64 aarch64.cat, RISCV riscv.cat)
Exit 0 when no test disagrees, 1 otherwise. Skips with a message (exit 0)
when herd7 is absent.
Generate tests with herd's generators, e.g.
  T=../shared/tools/herd7/bin; mkdir g && $T/diycross7 -arch RISCV -o g \
     'PodWW,Fence.rw.rwdWW' Rfe 'DpDatadW,DpAddrdR' Fre
"""
import argparse, concurrent.futures as cf, json, os, re, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.join(HERE, "..", "..", "shared", "tools", "herd7")
DEFAULTS = {"X86": ("tso", "x86tso.cat"), "X86_64": ("tso", "x86tso-mixed.cat"),
            "PPC": ("power", "ppc.cat"), "AArch64": ("arm", "aarch64.cat"),
            "RISCV": ("riscv", "riscv.cat")}


def inputs(args):
    out = []
    for a in args:
        if a.startswith("@"):
            out += [l.strip() for l in open(a[1:]) if l.strip()]
        elif os.path.isdir(a):
            for d, _, fs in os.walk(a):
                out += [os.path.join(d, f) for f in fs if f.endswith(".litmus")]
        else:
            out.append(a)
    return sorted(out)


def arch_of(path):
    with open(path, errors="replace") as f:
        head = f.read(4096)
    m = re.match(r"\s*(\S+)", head)
    return (m.group(1) if m else "?"), ("Variant=mixed" in head.replace(" ", ""))


def norm_state(s):
    return " ".join(sorted(p.strip() + ";" for p in s.split(";") if p.strip()))


def herd(path, cat, mixed, timeout, scratch):
    cmd = [os.path.join(TOOLS, "bin", "herd7"), "-set-libdir", os.path.join(TOOLS, "libdir"),
           "-model", cat]
    if mixed:
        cmd += ["-variant", "mixed"]
    try:
        p = subprocess.run(cmd + [os.path.abspath(path)], cwd=scratch, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    obs, states, lines = None, set(), p.stdout.splitlines()
    for i, l in enumerate(lines):
        if l.startswith("States "):
            n = int(l.split()[1])
            states = {norm_state(x) for x in lines[i + 1:i + 1 + n]}
        m = re.match(r"Observation \S+ (\w+)", l)
        if m:
            obs = m.group(1)
    if obs is None:
        return ("error", p.stdout.strip().splitlines()[-1:] if p.stdout.strip() else [""])
    return (obs, states)


def ours(binary, path, model):
    p = subprocess.run([binary, "litmus", "--json", "-q", "-j", "1", "--model", model, path],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    for line in p.stdout.splitlines():
        if line.startswith("{"):
            r = json.loads(line)
            if "error" in r:
                return ("refused", r["error"].splitlines()[0])
            if r.get("unknown"):
                return ("unknown", r["unknown"])
            return (r["observation"], {norm_state(s) for s in r.get("states", [])})
    return ("refused", p.stdout.strip()[:200])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("inputs", nargs="+")
    ap.add_argument("--model")
    ap.add_argument("--herd-model")
    ap.add_argument("--mixed", action="store_true")
    ap.add_argument("--herd-timeout", type=float, default=30)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--quiet", action="store_true")
    a = ap.parse_args()
    if not os.path.isfile(os.path.join(TOOLS, "bin", "herd7")):
        print(f"herd7 not found under {TOOLS}; skipped")
        return 0
    files = inputs(a.inputs)
    scratch = tempfile.mkdtemp(prefix="herd_diff.")

    def one(path):
        arch, variant = arch_of(path)
        model, cat = DEFAULTS.get(arch, ("sc", "sc.cat"))
        model, cat = a.model or model, a.herd_model or cat
        mixed = a.mixed or variant or (arch == "AArch64" and "mixed" in path)
        o = ours(a.bin, path, model)
        # A test bmc-rmm refuses is counted as refused whatever herd7 says.
        h = ("skipped-herd", None) if o[0] == "refused" else herd(path, cat, mixed, a.herd_timeout, scratch)
        return path, h, o

    agree = refused = skipped = herd_err = 0
    bad = []
    with cf.ThreadPoolExecutor(a.jobs) as ex:
        for path, h, o in ex.map(one, files):
            if h is None:
                skipped += 1
                if not a.quiet:
                    print(f"skipped {path}: herd7 took over {a.herd_timeout} s")
                continue
            if h[0] == "error":
                herd_err += 1
                if o[0] not in ("refused",):
                    bad.append(path)
                    print(f"DISAGREE {path}: herd7 refuses ({h[1]}), bmc-rmm answers {o[0]}")
                continue
            if o[0] == "refused":
                refused += 1
                if not a.quiet:
                    print(f"refused {path}: {o[1]}")
                continue
            if o[0] == "unknown":
                skipped += 1
                if not a.quiet:
                    print(f"skipped {path}: bmc-rmm unknown ({o[1]})")
                continue
            if h[0] == o[0] and h[1] == o[1]:
                agree += 1
                continue
            bad.append(path)
            print(f"DISAGREE {path}: herd7 {h[0]}, bmc-rmm {o[0]}")
            for s in sorted(h[1] - o[1]):
                print(f"  only herd7:   {s}")
            for s in sorted(o[1] - h[1]):
                print(f"  only bmc-rmm: {s}")
    print(f"tests {len(files)}: agree {agree}, disagree {len(bad)}, refused by bmc-rmm {refused}, "
          f"refused by herd7 {herd_err}, skipped (timeout/unknown) {skipped}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
