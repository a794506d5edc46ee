#!/usr/bin/env bash
# Litmus throughput in one process, old binary and new side by side
# (issues 14 and 17). For each (suite, model) row, RUNS times and
# interleaved (old, new, old, new, ...) so that machine load hits both
# alike, runs
#   BIN litmus -q -j JOBS --model MODEL CORPUS/SUITE        (wall, CPU)
#   BIN litmus --json -j 1 --model MODEL CORPUS/SUITE       (per-test time)
# and prints a Markdown table of medians: wall seconds, CPU seconds
# (user + system of the process), the median over the suite's tests of the
# in-process time per test (the `time` field of `--json`: running the test,
# without reading and parsing its file), and herd7's time on the same tests
# with the ratio herd7 / ours for wall and CPU time.
#
# herd7 is not installed on this machine: its times are the figures issue
# 14 measured here (X86 tso 2.9 s, PPC power 22 s, one herd7 process per
# suite) and otherwise the sum of the `Time` lines of the corpus' herd7
# logs (herd7-logs/SUITE.CAT.log; herd's start-up per file is not in them,
# so those ratios are lower bounds). The source is printed per row.
#
# Usage: bench/litmus_table.sh [OLD_BIN] [NEW_BIN] [RUNS=3] [JOBS=2]
#        [CORPUS_ROOT=../shared/corpus]
# Without OLD_BIN (or with `-`) only NEW_BIN is measured; NEW_BIN defaults
# to target/release/bmc-rmm (built first). Needs python3.
set -euo pipefail
cd "$(dirname "$0")/.."
OLD=${1:--}; NEW=${2:-}; RUNS=${3:-3}; JOBS=${4:-2}; ROOT=${5:-../shared/corpus}
if [ -z "$NEW" ]; then
  cargo build --release --quiet
  NEW=target/release/bmc-rmm
fi
if [ ! -d "$ROOT/litmus" ] && [ ! -d "$ROOT/litmus-arm" ]; then
  echo "corpus not found under $ROOT (litmus/, litmus-arm/)" >&2
  exit 0
fi
python3 - "$OLD" "$NEW" "$RUNS" "$JOBS" "$ROOT" <<'PY'
import json, os, statistics, subprocess, sys, time
old, new, runs, jobs, root = sys.argv[1:6]
runs = int(runs)
bins = [("old", old), ("new", new)] if old != "-" else [("new", new)]
# (corpus dir, suite, model, herd7 log's cat file, herd7 s measured here or None)
rows = [
    ("litmus", "X86", "tso", "x86tso.cat", 2.9),
    ("litmus", "X86", "sc", "sc.cat", None),
    ("litmus", "PPC", "power", "ppc.cat", 22.0),
    ("litmus", "PPC", "sc", "sc.cat", None),
    ("litmus-arm", "AArch64", "arm", "aarch64.cat", None),
    ("litmus-arm", "AArch64", "sc", "sc.cat", None),
    ("litmus-arm", "RISCV", "riscv", "riscv.cat", None),
    ("litmus-arm", "RISCV", "sc", "sc.cat", None),
]

def timed(cmd):
    """(wall s, user+sys s) of one process."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, ru = os.wait4(p.pid, 0)
    return time.monotonic() - t0, ru.ru_utime + ru.ru_stime

def per_test(cmd):
    """Median of the `time` fields (s) of a --json run."""
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                         text=True).stdout
    ts = []
    for line in out.splitlines():
        if line.startswith("{"):
            try:
                t = json.loads(line).get("time")
            except ValueError:
                continue
            if isinstance(t, (int, float)):
                ts.append(t)
    return statistics.median(ts) if ts else float("nan")

def herd_time(corpus, suite, cat, measured):
    if measured is not None:
        return measured, "static relation analysis"
    log = os.path.join(root, corpus, "herd7-logs", f"{suite}.{cat}.log")
    s = 0.0
    try:
        for line in open(log):
            p = line.split()
            if len(p) >= 3 and p[0] == "Time":
                s += float(p[2])
    except OSError:
        return float("nan"), "none"
    return s, "log Time sum"

load0 = os.getloadavg()[0]
names = [n for n, _ in bins]
head = ["suite", "model", "tests"]
for what in ("wall s", "CPU s", "ms/test"):
    head += [f"{n} {what}" for n in names]
head += ["herd7 s", "herd7 source"]
for n in names:
    head += [f"{n} herd7/wall", f"{n} herd7/CPU"]
print("| " + " | ".join(head) + " |")
print("|" + "|".join("---" if i < 2 or h == "herd7 source" else "---:" for i, h in enumerate(head)) + "|")
for corpus, suite, model, cat, measured in rows:
    d = os.path.join(root, corpus, suite)
    if not os.path.isdir(d):
        continue
    ntests = sum(1 for f in os.listdir(d) if f.endswith(".litmus"))
    res = {n: {"wall": [], "cpu": [], "pt": []} for n in names}
    for _ in range(runs):
        for n, b in bins:
            w, c = timed([b, "litmus", "-q", "-j", jobs, "--model", model, d])
            res[n]["wall"].append(w)
            res[n]["cpu"].append(c)
        for n, b in bins:
            res[n]["pt"].append(per_test([b, "litmus", "--json", "-j", "1", "--model", model, d]))
    med = {n: {k: statistics.median(v) for k, v in res[n].items()} for n in names}
    h, src = herd_time(corpus, suite, cat, measured)
    cells = [suite, model, str(ntests)]
    cells += [f"{med[n]['wall']:.3f}" for n in names]
    cells += [f"{med[n]['cpu']:.3f}" for n in names]
    cells += [f"{1000 * med[n]['pt']:.3f}" for n in names]
    cells += [f"{h:.2f}", src]
    for n in names:
        cells += [f"{h / med[n]['wall']:.1f}x", f"{h / med[n]['cpu']:.1f}x"]
    print("| " + " | ".join(cells) + " |", flush=True)
print(f"\n{runs} runs per binary and row, interleaved; -j {jobs} for wall/CPU, -j 1 for "
      f"ms/test; load average {load0:.1f} at start, {os.getloadavg()[0]:.1f} at end.")
PY
