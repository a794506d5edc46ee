#!/usr/bin/env bash
# Old binary vs new on `robust --model tso --bound K` (default solver
# unless ARGS say otherwise), side by side in one run, interleaved per
# input so that machine load hits both alike. Measures CPU time
# (user+system of the child), limited per run by RLIMIT_CPU = CPU seconds
# (a killed run prints ">CPU"), so that a loaded machine does not turn
# into wall-clock timeouts. Prints the rows where either side used over
# 1 s of CPU, then counts: rows over 1 s / 2 s of CPU per side, killed
# runs, verdicts per side, verdict differences (unknown/killed excluded).
# Inputs: every *.txt of DIR and DIR/memorax (e.g. the Trencher corpus, or
# a directory made by `python3 bench/gen_trencher.py 7 300 DIR`).
# Environment: ARGS (extra arguments for both sides), NEW_ENV (NAME=VALUE
# pairs for the new side only, e.g. NEW_ENV="BMC_EXPLICIT_FIRST=0").
# Usage: bench/tso_witness_table.sh OLD_BIN NEW_BIN DIR [K=20] [CPU=10]
set -euo pipefail
OLD=$1; NEW=$2; DIR=$3; K=${4:-20}; CPU=${5:-10}
[ -d "$DIR" ] || { echo "no inputs at $DIR" >&2; exit 0; }
python3 - "$OLD" "$NEW" "$DIR" "$K" "$CPU" <<'PY'
import glob, json, os, resource, subprocess, sys
old, new, d, k, cpu_limit = sys.argv[1:6]
cpu_limit = int(cpu_limit)
files = sorted(glob.glob(f"{d}/*.txt")) + sorted(glob.glob(f"{d}/memorax/*.txt"))
args = os.environ.get("ARGS", "").split()
new_env = dict(os.environ)
for kv in os.environ.get("NEW_ENV", "").split():
    n, _, v = kv.partition("=")
    new_env[n] = v
def cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime
def limit():
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_limit, cpu_limit))
def run(binary, f, env):
    cmd = [binary, "robust", "--model", "tso", "--bound", k, "--json", *args, f]
    c0 = cpu()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                       text=True, preexec_fn=limit, env=env)
    c = cpu() - c0
    try:
        rec = json.loads(p.stdout.splitlines()[-1])
        return c, rec["verdict"], rec.get("reason") or ""
    except Exception:
        return c, "killed", ""
rows, diffs = [], []
for f in files:
    o = run(old, f, dict(os.environ))
    n = run(new, f, new_env)
    name = os.path.relpath(f, d)
    rows.append((name, o, n))
    if "killed" not in (o[1], n[1]) and "unknown" not in (o[1], n[1]) and o[1] != n[1]:
        diffs.append(name)
def show(x):
    return f">{cpu_limit}" if x[1] == "killed" else f"{x[0]:.2f}"
print(f"| input | old verdict | new verdict | old cpu s | new cpu s | new by |")
print("|---|---|---|---:|---:|---|")
for name, o, n in rows:
    if o[0] > 1 or n[0] > 1:
        by = "explicit" if "explicit engine" in n[2] else "bounded"
        print(f"| {name} | {o[1]} | {n[1]} | {show(o)} | {show(n)} | {by} |")
for side, i in (("old", 1), ("new", 2)):
    xs = [r[i] for r in rows]
    over1 = sum(1 for x in xs if x[0] > 1)
    over2 = sum(1 for x in xs if x[0] > 2)
    killed = sum(1 for x in xs if x[1] == "killed")
    total = sum(x[0] for x in xs)
    verdicts = {}
    for x in xs:
        verdicts[x[1]] = verdicts.get(x[1], 0) + 1
    print(f"{side}: {len(xs)} inputs, over 1 s cpu {over1}, over 2 s cpu {over2}, "
          f"killed at {cpu_limit} s cpu {killed}, total cpu {total:.1f} s, verdicts {verdicts}")
by_explicit = sum(1 for r in rows if "explicit engine" in r[2][2])
print(f"new answered by the explicit engine: {by_explicit}")
print(f"verdict differences: {len(diffs)} {' '.join(diffs)}")
PY
