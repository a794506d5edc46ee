#!/usr/bin/env bash
# Table 1 of "Stateless model checking for TSO and PSO" (TACAS 2015) on the
# Nidhugg benchmarks of ../shared/corpus/nidhugg: per row (file, fences,
# loop bound) and model (sc, tso, pso), the wall time of
#   reach --model M --unwind B [-D ENABLE_{TSO,PSO}_FENCES]                (SAT engine)
#   reach --engine smc --model M --unwind B [-D ENABLE_{TSO,PSO}_FENCES]   (SMC engine)
# with their answers (bug/safe; `!` marks a disagreement with
# EXPECTED.tsv, `?` unknown or timeout), the executions and distinct
# Shasha–Snir traces SMC explored, next to the paper's Nidhugg and CBMC
# times and the ratios ours/paper. The paper's machine: 3 GHz Intel i7,
# 6 GB RAM, 2015 (slower than this one, so a ratio is a rough comparison,
# not a speed-up measurement). `*` in the paper's columns: time to the
# first error; t/o: timeout. A second table lists SMC's executions per
# row under sc, tso and pso side by side (for a robust program the paper
# expects tso and pso to explore as many as sc). The `cpu` columns are
# each run's CPU time (user + system, all its threads: `--solver auto`
# races two backends); the load average is printed at the start and end
# (the machine may be shared).
# Usage: bench/nidhugg_table.sh [TIMEOUT_S=60]   (ENGINES="sat smc" by default;
#        ENGINES=smc runs the SMC engine only; OLD=path/to/bmc-rmm adds a
#        column `old` with that binary's SAT engine time on the same row,
#        run right before ours, for before/after tables in one run;
#        SAT_ARGS="--solver varisat" passes extra options to the SAT engine
#        of both binaries; OLD_ENGINE=smc makes the `old` column that
#        binary's SMC engine instead, for before/after tables of SMC: its
#        executions are then checked against ours, `≠` marks a difference
#        (none is checked when either run was cut by the timeout);
#        SMC_ARGS passes extra options to our SMC engine)
set -euo pipefail
cd "$(dirname "$0")/.."
TIMEOUT=${1:-60}
CORPUS=../shared/corpus/nidhugg
if [ ! -f "$CORPUS/EXPECTED.tsv" ]; then
  echo "skipped: $CORPUS/EXPECTED.tsv is absent"; exit 0
fi
cargo build --release --quiet
ENGINES=${ENGINES:-"sat smc"} OLD=${OLD:-} OLD_ENGINE=${OLD_ENGINE:-sat} SAT_ARGS=${SAT_ARGS:-} SMC_ARGS=${SMC_ARGS:-} python3 - "$TIMEOUT" "$CORPUS" <<'PY'
import json, os, subprocess, sys, time
timeout, corpus = float(sys.argv[1]), sys.argv[2]
engines = os.environ["ENGINES"].split()
BIN = "./target/release/bmc-rmm"
OLD = os.environ["OLD"]
SAT_ARGS = os.environ["SAT_ARGS"].split()
SMC_ARGS = os.environ["SMC_ARGS"].split()
OLD_SMC = os.environ["OLD_ENGINE"] == "smc"
if OLD:
    engines = ["old", *engines]
rows = [l.rstrip("\n").split("\t") for l in open(f"{corpus}/EXPECTED.tsv")][1:]

def secs(x):
    try:
        return float(x.lstrip("*"))
    except ValueError:
        return None

def ratio(ours, paper):
    p = secs(paper)
    return f"{ours / p:.2f}" if p and ours is not None else "-"

def run(cmd):
    t0, c0 = time.monotonic(), os.times()
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout + 10)
        code, out = r.returncode, r.stdout
    except subprocess.TimeoutExpired:
        code, out = 3, ""
    c1 = os.times()
    cpu = (c1.children_user - c0.children_user) + (c1.children_system - c0.children_system)
    return code, out, time.monotonic() - t0, cpu

def load():
    return "load average %.2f %.2f %.2f" % os.getloadavg()

cpus = {}
if OLD:
    print(f"# old: {OLD}, its {'SMC' if OLD_SMC else 'SAT'} engine")
print(f"# start: {load()}; wall seconds, CPU seconds (user+sys of the process, all threads) in the cpu columns")

print(f"{'file':24} {'fence':5} {'LB':4} {'M':3} {'exp':4} " + (f"{'old':>9} " if OLD else "") + f"{'sat':>9} {'smc':>9} " + (f"{'old cpu':>8} " if OLD else "") + f"{'sat cpu':>8} {'smc cpu':>8} {'execs':>8} {'traces':>8} "
      f"{'nidhugg':>8} {'cbmc':>8} {'sat/cbmc':>8} {'smc/nid':>8}")
execs = {}
totals = {}
for r in rows:
    f, fences, lb = r[0], r[1], r[2]
    if f.startswith("apr_"):
        continue
    unwind = "10" if lb == "-" else lb.strip("()")
    d = {"tso": ["-D", "ENABLE_TSO_FENCES"], "pso": ["-D", "ENABLE_PSO_FENCES"]}.get(fences, [])
    for k, m in enumerate(["sc", "tso", "pso"]):
        exp = r[3 + k]
        nid, cbmc = r[6 + k], r[9 + k]
        base = ["reach", "-q", "--model", m, "--unwind", unwind, "--timeout", str(timeout), *d]
        cells, times = {}, {}
        cpus = {e: f"{'-':>8}" for e in ["old", "sat", "smc"]}
        n_exec, n_tr, old_exec = "-", "-", "-"
        for e in ["old", "sat", "smc"]:
            if e not in engines:
                cells[e], times[e] = f"{'-':>9}", None
                continue
            smc = e == "smc" or (e == "old" and OLD_SMC)
            extra = ["--engine", "smc", "--json", *(SMC_ARGS if e == "smc" else [])] if smc else SAT_ARGS
            code, out, t, cpu = run([OLD if e == "old" else BIN, *base, *extra, f"{corpus}/{f}"])
            cpus[e] = f"{cpu:8.2f}"
            tot = totals.setdefault(e, [0.0, 0.0])
            tot[0] += t
            tot[1] += cpu
            got = {0: "safe", 1: "bug"}.get(code, "?")
            mark = "" if got == exp else ("?" if got == "?" else "!")
            cells[e], times[e] = f"{t:8.2f}{mark or ' '}", t
            if smc and out.strip():
                try:
                    st = json.loads(out.splitlines()[0])["stats"]
                    if e == "smc":
                        n_exec, n_tr = st["executions"], st["traces"]
                    else:
                        old_exec = st["executions"]
                except (ValueError, KeyError):
                    pass
        if OLD_SMC and "smc" in engines and "-" not in (n_exec, old_exec) and old_exec != n_exec:
            n_exec = f"≠{n_exec}"
        execs.setdefault((f, fences), {})[m] = (n_exec, exp)
        print(f"{f:24} {fences:5} {lb:4} {m:3} {exp:4} " + (f"{cells['old']} " if OLD else "") + f"{cells['sat']} {cells['smc']} " + (f"{cpus['old']} " if OLD else "") + f"{cpus['sat']} {cpus['smc']} {n_exec:>8} {n_tr:>8} "
              f"{nid:>8} {cbmc:>8} {ratio(times['sat'], cbmc):>8} {ratio(times['smc'], nid):>8}", flush=True)
print(f"# end: {load()}; sums (wall / cpu s): " + ", ".join(f"{e} {w:.1f} / {c:.1f}" for e, (w, c) in totals.items()))
if "smc" in engines:
    print()
    print(f"{'file':24} {'fence':5} {'execs sc':>9} {'execs tso':>9} {'execs pso':>9}  expected (sc/tso/pso)")
    for (f, fences), v in execs.items():
        c = [v.get(m, ("-", "-")) for m in ["sc", "tso", "pso"]]
        print(f"{f:24} {fences:5} {c[0][0]:>9} {c[1][0]:>9} {c[2][0]:>9}  {'/'.join(x[1] for x in c)}")
PY
