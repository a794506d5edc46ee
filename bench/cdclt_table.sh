#!/usr/bin/env bash
# Old engine vs new, side by side in one run (interleaved so that machine
# load hits both alike): every Trencher corpus program (and memorax/) under
# CHECKS (robust, reach) and MODELS (tso, pso, power) at --bound K, one
# line per (file, check, model): the OLD binary with its default solver
# (the lazy varisat loop) and the NEW binary with `--solver SOLVER`.
# Prints a Markdown table (median seconds of RUNS runs; TIMEOUT per run,
# a timed-out run counts as TIMEOUT and prints ">T"), verdicts (DIFF when
# the two disagree), and a count of rows over 1 s / 10 s per side.
# The cpu columns are the child's user+system time (a raced query counts
# both threads), less sensitive to other load on the machine than the
# wall-clock seconds. NEW_ARGS (environment) adds arguments to the new
# side's command (e.g. NEW_ARGS="--hb-query shortest"), OLD_ARGS to the
# old side's (e.g. both `--solver varisat` with SOLVER=varisat and
# OLD_ARGS="--solver varisat": the same backend on both sides whatever the
# machine's load, which `--solver auto` reads).
# Usage: bench/cdclt_table.sh OLD_BIN NEW_BIN [K=20] [RUNS=1] [TIMEOUT=60]
#        [MODELS="tso pso power"] [CHECKS="robust reach"] [SOLVER=cdclt]
#        [DIR=../shared/corpus/trencher]
set -euo pipefail
cd "$(dirname "$0")/.."
OLD=$1; NEW=$2; K=${3:-20}; RUNS=${4:-1}; TIMEOUT=${5:-60}
MODELS=${6:-"tso pso power"}; CHECKS=${7:-"robust reach"}; SOLVER=${8:-cdclt}
DIR=${9:-../shared/corpus/trencher}
[ -d "$DIR" ] || { echo "corpus not found at $DIR" >&2; exit 0; }
python3 - "$OLD" "$NEW" "$K" "$RUNS" "$TIMEOUT" "$MODELS" "$CHECKS" "$SOLVER" "$DIR" <<'PY'
import glob, json, os, resource, statistics, subprocess, sys, time
old, new, k, runs, timeout, models, checks, solver, d = sys.argv[1:10]
runs, timeout = int(runs), float(timeout)
files = sorted(glob.glob(f"{d}/*.txt")) + sorted(glob.glob(f"{d}/memorax/*.txt")) + \
        sorted(glob.glob(f"{d}/*.rmm"))
new_args = os.environ.get("NEW_ARGS", "").split()
old_args = os.environ.get("OLD_ARGS", "").split()
def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime
def run(cmd):
    t0 = time.monotonic(); c0 = cpu()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return timeout, cpu() - c0, "timeout"
    t = time.monotonic() - t0
    try:
        return t, cpu() - c0, json.loads(p.stdout.splitlines()[0])["verdict"]
    except Exception:
        return t, cpu() - c0, "error"
print(f"| file | check | model | verdict | old s | new s | new/old | old cpu | new cpu |")
print("|---|---|---|---|---:|---:|---:|---:|---:|")
over = {"old": [0, 0, 0], "new": [0, 0, 0]}; cover = {"old": 0, "new": 0}; worst = {"old": 0.0, "new": 0.0}; diffs = 0
for f in files:
    for m in models.split():
        for c in checks.split():
            base = [c, "--json", "--model", m, "--bound", k, f]
            ts = {"old": [], "new": []}; cs = {"old": [], "new": []}; v = {}
            for _ in range(runs):
                for side, cmd in (("old", [old] + old_args + base), ("new", [new, "--solver", solver] + new_args + base)):
                    t, ct, verdict = run(cmd)
                    ts[side].append(t); cs[side].append(ct); v[side] = verdict
            med = {s: statistics.median(ts[s]) for s in ts}
            mc = {s: statistics.median(cs[s]) for s in cs}
            for s in med:
                over[s][0] += med[s] > 1; over[s][1] += med[s] > 2; over[s][2] += med[s] > 10
                worst[s] = max(worst[s], med[s]); cover[s] += mc[s] > 1
            same = v["old"] == v["new"] or "timeout" in (v["old"], v["new"])
            diffs += not same
            verdict = v["new"] if same and v["new"] != "timeout" else (v["old"] if same else f"DIFF {v['old']}/{v['new']}")
            fmt = lambda s: f">{timeout:.0f}" if v[s] == "timeout" else f"{med[s]:.3f}"
            r = med["new"] / med["old"] if med["old"] > 0 else float("nan")
            print(f"| {os.path.relpath(f, d)} | {c} | {m} | {verdict} | {fmt('old')} | {fmt('new')} | {r:.2f} | {mc['old']:.2f} | {mc['new']:.2f} |", flush=True)
print(f"\nbound {k}, {len(files)} files: rows over 1 s: old {over['old'][0]}, new {over['new'][0]}; over 2 s: old {over['old'][1]}, new {over['new'][1]}; over 10 s: old {over['old'][2]}, new {over['new'][2]}; "
      f"slowest: old {worst['old']:.2f} s, new {worst['new']:.2f} s; rows over 1 s of cpu: old {cover['old']}, new {cover['new']}; verdict differences: {diffs}")
PY
