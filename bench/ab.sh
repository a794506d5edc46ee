#!/usr/bin/env bash
# A/B timing of two bmc-rmm binaries, side by side in one run (runs are
# interleaved old/new so that machine load hits both alike):
#   * sat rows: `robust --model tso --bound K` on every Trencher corpus file
#     (as bench/sat_table.sh), median of RUNS runs each;
#   * litmus rows: `litmus -q` on the X86 and PPC suites (as
#     bench/litmus_table.sh), median of RUNS runs each.
# Prints a Markdown table with both medians and new/old ratio, and the
# median of the ratios. Verdicts must agree (a row says DIFF otherwise).
# Usage: bench/ab.sh OLD_BIN NEW_BIN [BOUND=20] [RUNS=3] [TIMEOUT=120]
set -euo pipefail
cd "$(dirname "$0")/.."
OLD=$1; NEW=$2; BOUND=${3:-20}; RUNS=${4:-3}; TIMEOUT=${5:-120}
C=../shared/corpus
[ -d "$C" ] || { echo "corpus not found at $C" >&2; exit 0; }
python3 - "$OLD" "$NEW" "$BOUND" "$RUNS" "$TIMEOUT" "$C" <<'PY'
import json, statistics, subprocess, sys, time, glob, os
old, new, bound, runs, timeout, corpus = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5], sys.argv[6]

def timed(cmd):
    t0 = time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return time.monotonic() - t0, p.stdout

rows = []
files = sorted(glob.glob(f"{corpus}/trencher/*.txt")) + sorted(glob.glob(f"{corpus}/trencher/memorax/*.txt"))
for f in files:
    cmd = lambda b: [b, "robust", "--json", "--model", "tso", "--bound", bound, "--timeout", timeout, f]
    ts = {old: [], new: []}; verdict = {}
    for _ in range(runs):
        for b in (old, new):
            t, out = timed(cmd(b))
            ts[b].append(t)
            try:
                verdict[b] = json.loads(out)["verdict"]
            except Exception:
                verdict[b] = "error"
    rows.append((f"robust tso k={bound} {os.path.relpath(f, corpus + '/trencher')}", verdict[old] if verdict[old] == verdict[new] else f"DIFF {verdict[old]}/{verdict[new]}",
                 statistics.median(ts[old]), statistics.median(ts[new])))
for suite, model in [("X86", "tso"), ("X86", "sc"), ("PPC", "power"), ("PPC", "sc")]:
    d = f"{corpus}/litmus/{suite}"
    ts = {old: [], new: []}; outs = {}
    for _ in range(runs):
        for b in (old, new):
            t, out = timed([b, "litmus", "-q", "--model", model, d])
            ts[b].append(t)
            outs[b] = [l for l in out.splitlines() if not l.startswith("Time ")]
    rows.append((f"litmus {suite} {model}", "same" if outs[old] == outs[new] else "DIFF",
                 statistics.median(ts[old]), statistics.median(ts[new])))
print(f"| run | verdicts | old median s | new median s | new/old |")
print("|---|---|---:|---:|---:|")
ratios = []
for name, v, a, b in rows:
    r = b / a if a > 0 else float("nan")
    ratios.append(r)
    print(f"| {name} | {v} | {a:.3f} | {b:.3f} | {r:.2f} |")
print(f"\nmedian new/old ratio over {len(rows)} rows: {statistics.median(ratios):.3f}")
PY
