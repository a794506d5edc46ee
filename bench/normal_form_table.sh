#!/usr/bin/env bash
# The normal-form engine (`robust --engine normal-form`, unbounded) on the
# Trencher corpus (39 programs) and on generated programs, under pso and
# tso, beside the bounded engine at bound BOUND and, under tso, the
# attack-based explicit engine. Prints a Markdown table: per file and
# model the normal-form verdict and time, the bounded verdict and time,
# and whether the bounded engine confirms (a witness: a cycle at its
# steps per thread; "robust": no cycle at BOUND); then the share decided
# within TIMEOUT seconds per model.
# Usage: bench/normal_form_table.sh [BIN=target/release/bmc-rmm] [TIMEOUT=60] [BOUND=20] [GENERATED_DIR]
# GENERATED_DIR: extra Trencher files (e.g. written by the test helper
# `common::random_programs`); none by default.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-target/release/bmc-rmm}; TIMEOUT=${2:-60}; BOUND=${3:-20}; GEN=${4:-}
C=../shared/corpus
[ -d "$C" ] || { echo "corpus not found at $C" >&2; exit 0; }
python3 - "$BIN" "$TIMEOUT" "$BOUND" "$C" "$GEN" <<'PY'
import glob, json, subprocess, sys, time
bin_, timeout, bound, corpus, gen = sys.argv[1:6]
files = sorted(glob.glob(f"{corpus}/trencher/*.txt")) + sorted(glob.glob(f"{corpus}/trencher/memorax/*.txt"))
if gen:
    files += sorted(glob.glob(f"{gen}/*.txt"))

def run(args):
    t0 = time.monotonic()
    p = subprocess.run([bin_] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    dt = time.monotonic() - t0
    try:
        j = json.loads(p.stdout.splitlines()[0])
    except (IndexError, ValueError):
        return dt, "error", None
    return dt, j.get("verdict", "error"), j

def steps_of(j):
    import re
    w = (j or {}).get("witness") or ""
    # "thread X (N steps):" lines of the execution.
    ns = [int(m) for m in re.findall(r"\((\d+) steps\):", w)]
    return max(ns) if ns else None

print(f"| file | model | normal form | time (s) | bounded @{bound} | time (s) | confirmed | attacks (tso) |")
print("|---|---|---|---|---|---|---|---|")
decided = {"pso": 0, "tso": 0}
for f in files:
    name = f.replace(corpus + "/trencher/", "")
    for model in ["pso", "tso"]:
        dt, v, j = run(["robust", "--json", "--engine", "normal-form", "--model", model, "--timeout", timeout, f])
        if v in ("violation", "no-violation"):
            decided[model] += 1
        bt, bv, _ = run(["robust", "--json", "--model", model, "--bound", bound, "--timeout", timeout, f])
        conf = ""
        if v == "violation":
            k = steps_of(j)
            _, cv, _ = run(["robust", "--json", "--model", model, "--bound", str(k or bound), "--timeout", timeout, f])
            conf = "yes" if cv == "violation" else f"NO ({cv} at {k})"
        elif v == "no-violation":
            conf = "yes" if bv == "no-violation" else ("NO" if bv == "violation" else bv)
        att = ""
        if model == "tso":
            _, av, _ = run(["robust", "--json", "--engine", "explicit", "--model", "tso", "--timeout", timeout, f])
            att = av if av == v or "unknown" in (av, v) else f"DIFF ({av})"
        print(f"| {name} | {model} | {v} | {dt:.2f} | {bv} | {bt:.2f} | {conf} | {att} |")
print()
for m, d in decided.items():
    print(f"{m}: {d}/{len(files)} decided within {timeout}s")
PY
