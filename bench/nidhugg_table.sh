#!/usr/bin/env bash
# Table 1 of seed 001 ("Stateless model checking for TSO and PSO") on the
# Nidhugg benchmarks of ../shared/corpus/nidhugg: per row (file, fences,
# loop bound) and model (sc, tso, pso), the wall time of
#   reach --model M --unwind B [-D ENABLE_{TSO,PSO}_FENCES]   (SAT engine)
# with its answer (bug/safe; `!` marks a disagreement with EXPECTED.tsv,
# `?` unknown or timeout), next to the paper's Nidhugg and CBMC times and
# the ratios ours/paper. The paper's machine: 3 GHz Intel i7, 6 GB RAM,
# 2015 (slower than this one, so a ratio < 1 understates nothing; the
# ratio is a rough comparison, not a speed-up measurement). `*` in the
# paper's columns: time to the first error; t/o: timeout.
# Usage: bench/nidhugg_table.sh [TIMEOUT_S=60]
set -euo pipefail
cd "$(dirname "$0")/.."
TIMEOUT=${1:-60}
CORPUS=../shared/corpus/nidhugg
if [ ! -f "$CORPUS/EXPECTED.tsv" ]; then
  echo "skipped: $CORPUS/EXPECTED.tsv is absent"; exit 0
fi
cargo build --release --quiet
python3 - "$TIMEOUT" "$CORPUS" <<'PY'
import subprocess, sys, time
timeout, corpus = float(sys.argv[1]), sys.argv[2]
BIN = "./target/release/bmc-rmm"
rows = [l.rstrip("\n").split("\t") for l in open(f"{corpus}/EXPECTED.tsv")][1:]

def secs(x):
    try:
        return float(x.lstrip("*"))
    except ValueError:
        return None

def ratio(ours, paper):
    p = secs(paper)
    return f"{ours / p:.2f}" if p and ours is not None else "-"

print(f"{'file':24} {'fence':5} {'LB':4} {'M':3} {'exp':4} {'ours':>9} {'nidhugg':>8} {'cbmc':>8} {'/nidhugg':>8} {'/cbmc':>7}")
for r in rows:
    f, fences, lb = r[0], r[1], r[2]
    if f.startswith("apr_"):
        continue
    unwind = "10" if lb == "-" else lb.strip("()")
    d = {"tso": ["-D", "ENABLE_TSO_FENCES"], "pso": ["-D", "ENABLE_PSO_FENCES"]}.get(fences, [])
    for k, m in enumerate(["sc", "tso", "pso"]):
        exp = r[3 + k]
        nid, cbmc = r[6 + k], r[9 + k]
        cmd = [BIN, "reach", "-q", "--model", m, "--unwind", unwind, "--timeout", str(timeout), *d, f"{corpus}/{f}"]
        t0 = time.monotonic()
        try:
            code = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                  timeout=timeout + 10).returncode
        except subprocess.TimeoutExpired:
            code = 3
        t = time.monotonic() - t0
        got = {0: "safe", 1: "bug"}.get(code, "?")
        mark = "" if got == exp else ("?" if got == "?" else "!")
        print(f"{f:24} {fences:5} {lb:4} {m:3} {exp:4} {t:8.2f}{mark or ' '} {nid:>8} {cbmc:>8} {ratio(t, nid):>8} {ratio(t, cbmc):>7}", flush=True)
PY
