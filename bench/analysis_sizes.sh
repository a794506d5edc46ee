#!/usr/bin/env bash
# Encoding sizes with and without the static relation analysis,
# side by side in one run: every Trencher corpus program (and memorax/)
# under `robust --solver cdclt --model M --bound K`, the plain hb-cycle
# query, the OLD binary (before the analysis) and the NEW one. Prints the
# CNF's variables and clauses (the recorded encoding: unrolling, rf/co,
# base-relation gates, hb-cycle constraints; no learnt clauses), which do
# not depend on machine load, and their new/old ratios; each run stops
# after TIMEOUT seconds (the sizes are known before the search).
# Usage: bench/analysis_sizes.sh OLD_BIN NEW_BIN [K=20] [MODEL=tso] [TIMEOUT=1]
#        [DIR=../shared/corpus/trencher]
set -euo pipefail
cd "$(dirname "$0")/.."
OLD=$1; NEW=$2; K=${3:-20}; MODEL=${4:-tso}; TIMEOUT=${5:-1}
DIR=${6:-../shared/corpus/trencher}
[ -d "$DIR" ] || { echo "corpus not found at $DIR" >&2; exit 0; }
python3 - "$OLD" "$NEW" "$K" "$MODEL" "$TIMEOUT" "$DIR" <<'PY'
import glob, json, os, subprocess, sys
old, new, k, model, timeout, d = sys.argv[1:7]
files = sorted(glob.glob(f"{d}/*.txt")) + sorted(glob.glob(f"{d}/memorax/*.txt"))
def size(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    s = json.loads(p.stdout.splitlines()[0])["stats"]
    return s["vars"], s["clauses"]
print("| file | old vars | new vars | new/old | old clauses | new clauses | new/old |")
print("|---|---:|---:|---:|---:|---:|---:|")
tot = [0, 0, 0, 0]
for f in files:
    base = ["robust", "--json", "--solver", "cdclt", "--model", model, "--bound", k,
            "--timeout", timeout, f]
    ov, oc = size([old] + base)
    nv, nc = size([new] + base + ["--hb-query", "plain"])
    tot = [tot[0] + ov, tot[1] + nv, tot[2] + oc, tot[3] + nc]
    print(f"| {os.path.relpath(f, d)} | {ov} | {nv} | {nv / max(ov, 1):.2f} | {oc} | {nc} | {nc / max(oc, 1):.2f} |", flush=True)
print(f"\nbound {k}, {model}, {len(files)} files: variables {tot[0]} → {tot[1]} ({tot[1] / max(tot[0], 1):.2f}), "
      f"clauses {tot[2]} → {tot[3]} ({tot[3] / max(tot[2], 1):.2f})")
PY
