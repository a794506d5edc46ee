#!/usr/bin/env bash
# The normal-form engine (`robust --engine normal-form`, unbounded) on the
# Trencher corpus (39 programs) and on generated programs, under pso,
# tso, rmo and power, beside the bounded engine at bound BOUND and, under tso, the
# attack-based explicit engine. Prints a Markdown table: per file and
# model the normal-form verdict and time, the bounded verdict and time,
# and whether the bounded engine confirms (a witness: a cycle at its
# steps per thread; "robust": no cycle at bound 10 nor at BOUND); then the share decided
# within TIMEOUT seconds per model.
# Usage: [OLD=BIN2] [OLD_TIMEOUT=S] [MEMORY=MB] [MODELS="pso tso"] [THREADS=N] bench/normal_form_table.sh [BIN=target/release/bmc-rmm] [TIMEOUT=60] [BOUND=20] [GENERATED_DIR]
# GENERATED_DIR: extra Trencher files (e.g. written by the test helper
# `common::random_programs`); none by default.
# OLD: a second binary (an earlier build) whose normal-form verdict and
# time are printed beside BIN's, in the same run, on the same machine.
# MODELS: the models to run (default all four). Under rmo the bounded
# engine runs `rmo.cat`, the thesis' RMO the engine decides
# (docs/engines.md): a row it does not confirm is an error of one of
# them. Under power the bounded engine runs the built-in Power model
# (herd's ppc.cat); the normal form refuses most of the corpus there
# (more than two threads, locks): those rows read "error". QUICK=1: run the bounded
# engine only to confirm a verdict (not on rows the normal form leaves
# unknown). OLD_TIMEOUT: the earlier build's timeout (default TIMEOUT).
# MEMORY: a memory budget in MB for each normal-form run (`--memory`;
# default: the tool's own). THREADS=N: only the programs with N threads
# (e.g. THREADS=2 for the two-thread programs).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-target/release/bmc-rmm}; TIMEOUT=${2:-60}; BOUND=${3:-20}; GEN=${4:-}
C=../shared/corpus
[ -d "$C" ] || { echo "corpus not found at $C" >&2; exit 0; }
python3 - "$BIN" "$TIMEOUT" "$BOUND" "$C" "$GEN" "${OLD:-}" "${MODELS:-pso tso rmo power}" "${QUICK:-}" "${OLD_TIMEOUT:-$TIMEOUT}" "${MEMORY:-}" "${THREADS:-}" <<'PY'
import glob, json, re, subprocess, sys, time
bin_, timeout, bound, corpus, gen, old, models, quick, old_timeout, memory, threads = sys.argv[1:12]
models = models.split()
files = sorted(glob.glob(f"{corpus}/trencher/*.txt")) + sorted(glob.glob(f"{corpus}/trencher/memorax/*.txt"))
if gen:
    files += sorted(glob.glob(f"{gen}/*.txt"))
if threads:
    files = [f for f in files if len(re.findall(r"^\s*thread\s", open(f).read(), re.M)) == int(threads)]

def run(args, binary=None):
    t0 = time.monotonic()
    p = subprocess.run([binary or bin_] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
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

oldcols = "old normal form | time (s) | " if old else ""
print(f"| file | model | {oldcols}normal form | time (s) | bounded @{bound} | time (s) | confirmed | attacks (tso) |")
print("|---|---|" + ("---|---|" if old else "") + "---|---|---|---|---|---|")
decided = {m: 0 for m in models}
times = {m: [] for m in models}
decided_old = {m: 0 for m in models}
for f in files:
    name = f.replace(corpus + "/trencher/", "")
    for model in models:
        mem = ["--memory", memory] if memory else []
        nf_args = ["robust", "--json", "--engine", "normal-form", "--model", model, "--timeout", timeout] + mem + [f]
        oldcell = ""
        if old:
            old_args = nf_args[:7] + [old_timeout] + nf_args[8:]
            ot, ov, _ = run(old_args, old)
            oldcell = f"{ov} | {ot:.2f} | "
            if ov in ("violation", "no-violation"):
                decided_old[model] += 1
        dt, v, j = run(nf_args)
        if v in ("violation", "no-violation"):
            decided[model] += 1
            times[model].append(dt)
        bt, bv = 0.0, "-"
        if not quick or v in ("violation", "no-violation"):
            bt, bv, _ = run(["robust", "--json", "--model", model, "--bound", bound, "--timeout", timeout, f])
        conf = ""
        if v == "violation":
            k = steps_of(j)
            _, cv, _ = run(["robust", "--json", "--model", model, "--bound", str(k or bound), "--timeout", timeout, f])
            conf = "yes" if cv == "violation" else f"NO ({cv} at {k})"
        elif v == "no-violation":
            # No cycle at bound 10 nor at BOUND.
            _, tv, _ = run(["robust", "--json", "--model", model, "--bound", "10", "--timeout", timeout, f])
            cs = [tv, bv]
            conf = "NO" if "violation" in cs else ("yes" if cs == ["no-violation"] * 2 else "/".join(cs))
        att = ""
        if model == "tso":
            _, av, _ = run(["robust", "--json", "--engine", "explicit", "--model", "tso", "--timeout", timeout, f])
            att = av if av == v or "unknown" in (av, v) else f"DIFF ({av})"
        print(f"| {name} | {model} | {oldcell}{v} | {dt:.2f} | {bv} | {bt:.2f} | {conf} | {att} |", flush=True)
print()
for m, d in decided.items():
    was = f" (old: {decided_old[m]} within {old_timeout}s)" if old else ""
    ts = sorted(times[m])
    med = f", median {ts[len(ts) // 2]:.2f}s of the decided" if ts else ""
    print(f"{m}: {d}/{len(files)} decided within {timeout}s{med}{was}")
PY
