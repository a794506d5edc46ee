#!/usr/bin/env bash
# Same answers, old binary and new: runs `litmus --json --model M SUITE`
# with both on the litmus corpora (X86 tso and sc, X86_64 sc and tso, PPC
# power, AArch64 arm, RISCV riscv), drops the times (the `time` field, the
# stats' check_time/solve_time and the summary's seconds) and compares the
# rest line by line: verdicts, observations, state sets, widths, errors
# and the solver statistics (solves, refinements, variables, clauses).
# Prints one line per suite and the total; exits 1 on any difference.
# Usage: bench/litmus_diff.sh OLD_BIN NEW_BIN [CORPUS_ROOT=../shared/corpus]
# Environment: ANSWERS_ONLY=1 drops the solver statistics too (engines that
# reach the same states with different work, e.g. `--enumerate`);
# OLD_ARGS / NEW_ARGS: extra `litmus` options for each side, e.g.
#   ANSWERS_ONLY=1 OLD_ARGS="--enumerate never" NEW_ARGS="--enumerate always" \
#     bench/litmus_diff.sh BIN BIN
set -euo pipefail
cd "$(dirname "$0")/.."
OLD=$1; NEW=$2; ROOT=${3:-../shared/corpus}
if [ ! -d "$ROOT/litmus" ] && [ ! -d "$ROOT/litmus-arm" ]; then
  echo "corpus not found under $ROOT (litmus/, litmus-arm/)" >&2
  exit 0
fi
python3 - "$OLD" "$NEW" "$ROOT" <<'PY'
import json, os, re, subprocess, sys
old, new, root = sys.argv[1:4]
answers_only = os.environ.get("ANSWERS_ONLY") == "1"
rows = [("litmus/X86", "tso"), ("litmus/X86", "sc"), ("litmus/X86_64", "sc"),
        ("litmus/X86_64", "tso"), ("litmus/PPC", "power"),
        ("litmus-arm/AArch64", "arm"), ("litmus-arm/RISCV", "riscv")]

def answers(b, model, d, args):
    p = subprocess.run([b, "litmus", "--json", "--model", model, *args, d],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out = []
    for line in p.stdout.splitlines():
        try:
            r = json.loads(line) if line.startswith("{") else None
        except ValueError:
            r = None
        if r is None:
            out.append(re.sub(r" in [0-9.]+s$", "", line))
            continue
        r.pop("time", None)
        if answers_only:
            r.pop("stats", None)
        elif isinstance(r.get("stats"), dict):
            for k in ("check_time", "solve_time"):
                r["stats"].pop(k, None)
        out.append(json.dumps(r, sort_keys=True))
    return sorted(out)

total = 0
for sub, model in rows:
    d = os.path.join(root, sub)
    if not os.path.isdir(d):
        continue
    a = answers(old, model, d, os.environ.get("OLD_ARGS", "").split())
    b = answers(new, model, d, os.environ.get("NEW_ARGS", "").split())
    diff = len(set(a) ^ set(b)) + abs(len(a) - len(b))
    total += diff
    print(f"{sub} {model}: {len(b)} lines, {diff} differing")
print(f"differences: {total}")
sys.exit(1 if total else 0)
PY
