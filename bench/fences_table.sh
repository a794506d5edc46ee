#!/usr/bin/env bash
# Bounded fence synthesis (`fences --model M --bound K`, docs/fences.md)
# on a set of inputs: per file and model, the fences chosen, their cost,
# the robustness checks run and the wall time (median of RUNS runs), with
# a per-run timeout. For tso the explicit engine's optimal (unbounded)
# cost is printed beside the bounded one.
# Usage: bench/fences_table.sh [MODELS=pso,power] [BOUND=16] [TIMEOUT_S=60] [RUNS=1] [FILES…]
# (default FILES: every .txt of ../shared/corpus/trencher and its memorax/).
set -euo pipefail
cd "$(dirname "$0")/.."
MODELS=${1:-pso,power}; BOUND=${2:-16}; TIMEOUT=${3:-60}; RUNS=${4:-1}
shift $(( $# < 4 ? $# : 4 )) || true
cargo build --release --quiet
python3 - "$MODELS" "$BOUND" "$TIMEOUT" "$RUNS" "$@" <<'PY'
import glob, json, statistics, subprocess, sys, time
models, bound, timeout, runs = sys.argv[1].split(","), sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
files = sys.argv[5:] or sorted(glob.glob("../shared/corpus/trencher/*.txt")) + sorted(glob.glob("../shared/corpus/trencher/memorax/*.txt"))
BIN = "./target/release/bmc-rmm"
def run(args):
    t = time.time()
    try:
        out = subprocess.run([BIN] + args, capture_output=True, text=True, timeout=timeout).stdout
    except subprocess.TimeoutExpired:
        return None, timeout
    return out, time.time() - t
print(f"bound {bound}, timeout {timeout:.0f} s, median of {runs} run(s)\n")
hdr = "| file | model | fences | cost | checks | cycles | s |"
if "tso" in models:
    hdr += " explicit cost |"
print(hdr)
print("|" + "---|" * (hdr.count("|") - 1))
for f in files:
    name = f.split("trencher/")[-1]
    for m in models:
        times, rec = [], None
        for _ in range(runs):
            out, dt = run(["fences", "--json", "--model", m, "--bound", bound, "--timeout", str(timeout), f])
            times.append(dt)
            if out:
                rec = json.loads(out.splitlines()[0])
        med = statistics.median(times)
        if rec is None:
            row = f"| {name} | {m} | timeout | | | | >{timeout:.0f} |"
        else:
            fences = " ".join(rec["fences"]) if rec["verdict"] == "robust" else rec["verdict"]
            row = f"| {name} | {m} | {fences or '—'} | {rec['cost']} | {rec['checks']} | {rec['cycles']} | {med:.2f} |"
        if "tso" in models:
            ex = ""
            if m == "tso":
                out, _ = run(["fences", "--json", "--model", "tso", "--timeout", str(timeout), f])
                if out:
                    ex = str(json.loads(out.splitlines()[0]).get("cost", "?"))
            row += f" {ex} |"
        print(row, flush=True)
PY
