#!/usr/bin/env bash
# The normal-form engine under PGAS (`robust --engine normal-form --model
# pgas --nodes N`, unbounded) on the PGAS examples (examples/pgas: the
# thesis' OneToOne program and its fixed version, message passing over
# two queues, a blocking get) for N = 2, 3, 4, beside the bounded engine
# at bounds 10 and BOUND. Prints a Markdown table: the normal-form
# verdict, time and states, the bounded verdicts and times, and whether
# the bounded engine confirms (a witness: a cycle at its steps per
# thread; "robust": no cycle at 10 nor at BOUND).
# Usage: bench/normal_form_pgas.sh [BIN=target/release/bmc-rmm] [TIMEOUT=60] [BOUND=20]
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-target/release/bmc-rmm}; TIMEOUT=${2:-60}; BOUND=${3:-20}
python3 - "$BIN" "$TIMEOUT" "$BOUND" <<'PY'
import glob, json, re, subprocess, sys, time
bin_, timeout, bound = sys.argv[1:4]

def run(args):
    t0 = time.monotonic()
    p = subprocess.run([bin_] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    dt = time.monotonic() - t0
    try:
        return dt, json.loads(p.stdout.splitlines()[0])
    except (IndexError, ValueError):
        return dt, {"verdict": "error"}

def steps_of(j):
    ns = [int(m) for m in re.findall(r"\((\d+) steps\):", j.get("witness") or "")]
    return max(ns) if ns else None

print(f"| program | N | normal form | time (s) | states | bounded @10 | time (s) | bounded @{bound} | time (s) | confirmed |")
print("|---|---|---|---|---|---|---|---|---|---|")
for f in sorted(glob.glob("examples/pgas/*.rmm")):
    for n in (2, 3, 4):
        common = ["--model", "pgas", "--nodes", str(n), "--json", f]
        t, j = run(["robust", "--engine", "normal-form", "--timeout", timeout] + common)
        v, states = j.get("verdict"), (j.get("stats") or {}).get("states", "")
        t10, b10 = run(["robust", "--bound", "10"] + common)
        tb, bb = run(["robust", "--bound", bound] + common)
        if v == "violation":
            k = steps_of(j)
            _, c = run(["robust", "--bound", str(k)] + common)
            ok = "yes" if c.get("verdict") == "violation" else "NO"
        elif v == "no-violation":
            ok = "yes" if b10.get("verdict") == bb.get("verdict") == "no-violation" else "NO"
        else:
            ok = "-"
        print(f"| {f.split('/')[-1]} | {n} | {v} | {t:.2f} | {states} | {b10.get('verdict')} | {t10:.2f} | {bb.get('verdict')} | {tb:.2f} | {ok} |")
PY
