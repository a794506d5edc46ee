#!/usr/bin/env bash
# The experiments of the lazy TSO reachability paper ("Lazy TSO reachability", FASE 2015, section 5)
# on examples/lazy/: per family and N, the wall time of
#   reach --engine lazy            (unbounded, semi-decision)
#   reach --engine kround --rounds 2 and --rounds 3
#   reach --model tso --bound 20   (the SAT engine)
# each with a per-run timeout (median of RUNS runs), with the verdict
# letter (R reachable, U unreachable / not within the bound, ? unknown or
# timeout), next to what the paper reports for the same family. The
# paper's figures are graphs; their text gives only the quoted
# statements. Paper's machine: a QEMU virtual machine @ 2.67 GHz (16
# cores) with 8 GB RAM, GNU/Linux.
# Usage: bench/lazy_table.sh [TIMEOUT_S=10] [RUNS=1]
set -euo pipefail
cd "$(dirname "$0")/.."
TIMEOUT=${1:-10}; RUNS=${2:-1}
cargo build --release --quiet
python3 - "$TIMEOUT" "$RUNS" <<'PY'
import statistics, subprocess, sys, time
timeout, runs = float(sys.argv[1]), int(sys.argv[2])
BIN = "./target/release/bmc-rmm"
ENGINES = [("lazy", ["reach", "--engine", "lazy"]),
           ("kround 2", ["reach", "--engine", "kround", "--rounds", "2"]),
           ("kround 3", ["reach", "--engine", "kround", "--rounds", "3"]),
           ("SAT k=20", ["reach", "--model", "tso", "--bound", "20"])]
PAPER = {
    "lamport": "Fig. 6: CBMC fastest; Trencher slightly faster than Memorax for N=2,3, Memorax faster at N=4; both out of memory at N=5",
    "dekker_diamond": "Fig. 9/10: Trencher faster than Memorax; Memorax 1 min 24 s at N=50",
    "loop": "Fig. 8/10: Trencher needs 3 SC queries for every N; CBMC 8 min 35 s at N=20",
}
FAMILIES = [("lamport", [2, 3, 4, 5, 6]), ("dekker_diamond", [1, 2, 8, 32, 50]), ("loop", [2, 8, 20])]

def run(cmd):
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           text=True, timeout=timeout + 5)
        code = p.returncode
    except subprocess.TimeoutExpired:
        code = 3
    dt = time.monotonic() - t0
    return dt, {1: "R", 0: "U"}.get(code, "?")

print(f"per-run timeout {timeout:g} s, median of {runs} run(s); R = reachable, U = unreachable/not within, ? = unknown")
print()
print("| family | N | " + " | ".join(e for e, _ in ENGINES) + " |")
print("|---|---|" + "---|" * len(ENGINES))
for fam, ns in FAMILIES:
    for n in ns:
        f = f"examples/lazy/{fam}{n}.rmm"
        cells = []
        for _, args in ENGINES:
            ts, v = [], "?"
            for _ in range(runs):
                dt, v = run([BIN] + args + ["--timeout", f"{timeout:g}", f])
                ts.append(dt)
            cells.append(f"{statistics.median(ts):.3f} s {v}")
        print(f"| {fam} | {n} | " + " | ".join(cells) + " |")
print()
for fam, txt in PAPER.items():
    print(f"* paper, {fam}: {txt}")
print("* paper's machine: QEMU virtual machine @ 2.67 GHz, 16 cores, 8 GB RAM")
PY
