#!/usr/bin/env bash
# Compares the answers of two bmc-rmm binaries, byte for byte with times
# stripped: the same commands on the same inputs, stdout and exit status,
# in `--json` and in text. Used to show that a refactoring changed no
# answer and no output.
#
#   bench/compare_answers.sh OLD_BIN NEW_BIN [--full]
#
# Corpora (under ../shared/corpus; a missing corpus is skipped with a
# note): trencher and memorax (robust and reach under every engine, the
# `--solver auto` race, `fences`, `robust --state`, `robust
# --parameterized`, `crosscheck`), nidhugg (C programs: reach with SAT and
# SMC), litmus (X86, PPC, X86_64, AArch64, RISC-V: `litmus` in text and
# JSON). The default run samples every corpus with small bounds and takes
# a few minutes on an idle machine; `--full` runs every file at larger
# bounds.
#
# Prints one line per corpus with the number of commands run, the number
# of differences and the number of timing-dependent pairs (one side or
# both answered "unknown", with different output — a timeout under load:
# not counted as differences, listed after the differences; rerun with a
# larger COMPARE_TIMEOUT to settle them), then the differing commands (first lines of a diff
# each). Exit status: 0 no difference, 1 some difference. COMPARE_TIMEOUT
# sets the per-command timeout (default 5 s, 20 s with --full).
#
# Times are stripped from the output before comparison: JSON keys that
# name a time (`time`, `time_us`, `*_ms`, `elapsed`, ...) are removed at
# any depth; in text, numbers followed by a time unit (s, ms, us, µs) are
# replaced by `<t>`, and `Time ...` lines (herd's) are dropped.
set -uo pipefail
cd "$(dirname "$0")/.."
OLD=${1:?usage: bench/compare_answers.sh OLD_BIN NEW_BIN [--full]}
NEW=${2:?usage: bench/compare_answers.sh OLD_BIN NEW_BIN [--full]}
FULL=${3:-}
C=../shared/corpus
T=${COMPARE_TIMEOUT:-20}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

if [ "$FULL" = "--full" ]; then
    K=8; KS=6; PICK=100000; LPICK=100000
else
    K=4; KS=3; PICK=4; LPICK=15
    T=${COMPARE_TIMEOUT:-5}
fi

# normalize: stdin -> stdout with times stripped.
normalize() {
    python3 -c '
import json, re, sys
TIMEKEY = re.compile(r"(^|_)(time|times|elapsed|seconds|secs|ms|us|wall)(_|$)|_time$|^time_", re.I)
def strip(v):
    if isinstance(v, dict):
        return {k: strip(x) for k, x in v.items() if not TIMEKEY.search(k)}
    if isinstance(v, list):
        return [strip(x) for x in v]
    return v
UNIT = re.compile(r"\d+(\.\d+)?(e-?\d+)?\s*(ms|us|µs|s)\b")
for line in sys.stdin:
    line = line.rstrip("\n")
    if line.startswith("Time "):
        continue
    s = line.strip()
    if s.startswith("{") or s.startswith("["):
        try:
            print(json.dumps(strip(json.loads(s)), sort_keys=True))
            continue
        except ValueError:
            pass
    print(UNIT.sub("<t>", line))
'
}

# pick N FILES...: the N smallest files (all with --full), in name order.
pick() {
    local n=$1; shift
    ls -S -r "$@" | head -n "$n" | sort
}

TOTAL_DIFFS=0
REPORT="$WORK/report"
: >"$REPORT"

# run_cmd CORPUS ARGS...: runs both binaries with ARGS, compares.
run_cmd() {
    local corpus=$1; shift
    local o n
    o=$(cd "$C/.." && timeout $((T * 6 + 30)) "$OLD" "$@" 2>/dev/null; echo "exit $?")
    n=$(cd "$C/.." && timeout $((T * 6 + 30)) "$NEW" "$@" 2>/dev/null; echo "exit $?")
    o=$(printf '%s\n' "$o" | normalize)
    n=$(printf '%s\n' "$n" | normalize)
    echo "$corpus" >>"$WORK/runs"
    if [ "$o" != "$n" ] && printf '%s\n%s\n' "$o" "$n" | grep -qi 'timeout\|time limit\|timed out\|unknown'; then
        echo "$corpus" >>"$WORK/timeouts"
        echo "timing-dependent [$corpus]: bmc-rmm $*" >>"$WORK/timing"
    elif [ "$o" != "$n" ]; then
        echo "$corpus" >>"$WORK/diffs"
        {
            echo "--- DIFF [$corpus]: bmc-rmm $*"
            diff <(printf '%s\n' "$o") <(printf '%s\n' "$n") | head -n 12
        } >>"$REPORT"
    fi
}

# both forms: text and --json.
run_both() {
    local corpus=$1; shift
    run_cmd "$corpus" "$@"
    run_cmd "$corpus" --json "$@"
}

OLD=$(realpath "$OLD"); NEW=$(realpath "$NEW")
: >"$WORK/runs"; : >"$WORK/diffs"; : >"$WORK/timeouts"
declare -a CORPORA=()

# Programs (Trencher, Memorax): every engine on each file.
programs() {
    local corpus=$1; shift
    local files=("$@")
    [ ${#files[@]} -gt 0 ] || return
    CORPORA+=("$corpus")
    local rel=()
    for f in "${files[@]}"; do rel+=("corpus/${f#"$C"/}"); done
    for f in "${rel[@]}"; do
        run_both "$corpus" robust --model tso --bound "$K" --timeout "$T" "$f"
        run_both "$corpus" robust --model pso --bound "$KS" --timeout "$T" "$f"
        run_both "$corpus" reach --model tso --bound "$K" --timeout "$T" "$f"
        run_both "$corpus" --model tso --bound "$KS" --timeout "$T" "$f"
        run_both "$corpus" robust --model tso --bound "$K" --solver auto --timeout "$T" "$f"
        run_both "$corpus" reach --model sc --bound "$K" --solver auto --timeout "$T" "$f"
        run_both "$corpus" robust --engine explicit --timeout "$T" "$f"
        run_both "$corpus" robust --engine smc --model tso --bound "$KS" --timeout "$T" "$f"
        run_both "$corpus" reach --engine smc --model tso --bound "$KS" --timeout "$T" "$f"
        run_both "$corpus" reach --engine lazy --timeout "$T" "$f"
        run_both "$corpus" reach --engine kround --rounds 2 --timeout "$T" "$f"
        run_both "$corpus" robust --state --model tso --bound "$KS" --timeout "$T" "$f"
        run_both "$corpus" fences --timeout "$T" "$f"
        run_both "$corpus" fences --model pso --bound "$KS" --timeout "$T" "$f"
    done
    # Batch forms: several inputs in one run (summary lines, crosscheck).
    run_both "$corpus" robust --model tso --bound "$KS" --timeout "$T" -j 1 "${rel[@]}"
    run_both "$corpus" crosscheck --bound "$KS" --timeout "$T" "${rel[@]}"
    run_both "$corpus" crosscheck --reach --bound "$KS" --timeout "$T" "${rel[@]}"
    run_both "$corpus" robust --parameterized --timeout "$T" "${rel[@]}"
}

if [ -d "$C/trencher" ]; then
    mapfile -t F < <(pick "$PICK" "$C"/trencher/*.txt)
    programs trencher "${F[@]}"
else
    echo "trencher: corpus missing, skipped"
fi
if [ -d "$C/memorax" ]; then
    mapfile -t F < <(pick "$PICK" "$C"/memorax/*.rmm)
    programs memorax "${F[@]}"
else
    echo "memorax: corpus missing, skipped"
fi

# C programs: reach with SAT and SMC.
if [ -d "$C/nidhugg" ]; then
    CORPORA+=(nidhugg)
    mapfile -t F < <(pick "$PICK" "$C"/nidhugg/*.c)
    for f in "${F[@]}"; do
        f="corpus/${f#"$C"/}"
        run_both nidhugg reach --model sc --bound "$KS" --timeout "$T" "$f"
        run_both nidhugg reach --model tso --bound "$KS" --timeout "$T" "$f"
        run_both nidhugg reach --engine smc --model tso --bound "$KS" --timeout "$T" "$f"
    done
else
    echo "nidhugg: corpus missing, skipped"
fi

# Litmus tests: final states, text (herd's format) and JSON.
litmus() {
    local name=$1 dir=$2; shift 2
    if [ ! -d "$C/$dir" ]; then
        echo "$name: corpus missing, skipped"
        return
    fi
    CORPORA+=("$name")
    mapfile -t F < <(pick "$LPICK" $(find "$C/$dir" -name '*.litmus'))
    local rel=()
    for f in "${F[@]}"; do rel+=("corpus/${f#"$C"/}"); done
    for m in "$@"; do
        run_both "$name" litmus -j 1 --model "$m" --timeout "$T" "${rel[@]}"
    done
}
litmus litmus-x86 litmus/X86 tso sc
litmus litmus-ppc litmus/PPC power
litmus litmus-x86_64 litmus/X86_64 tso
litmus litmus-aarch64 litmus-arm/AArch64 arm
litmus litmus-riscv litmus-arm/RISCV riscv

for c in "${CORPORA[@]}"; do
    runs=$(grep -cx -- "$c" "$WORK/runs")
    diffs=$(grep -cx -- "$c" "$WORK/diffs")
    touts=$(grep -cx -- "$c" "$WORK/timeouts")
    printf '%-16s %4d commands, %d difference(s), %d timing-dependent\n' "$c" "$runs" "$diffs" "$touts"
    TOTAL_DIFFS=$((TOTAL_DIFFS + diffs))
done
cat "$REPORT"
[ -s "$WORK/timing" ] && cat "$WORK/timing"
echo "total: $TOTAL_DIFFS difference(s)"
[ "$TOTAL_DIFFS" -eq 0 ]
