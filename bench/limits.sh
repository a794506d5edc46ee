#!/usr/bin/env bash
# Do limits stop the work? Runs inputs that each reach a limit and prints,
# for each binary given (old and new side by side), one Markdown table row
# per run: wall seconds, CPU seconds (user + system of the process and
# all its threads), CPU/wall, peak RSS (MB), exit status and the first
# answer line.
#
#   batch20    20 Memorax programs under `robust --model pso --bound 80`
#              with `-j 2 --timeout 1` (at most 2 cores busy: CPU/wall
#              <= 2 once every thread stops at its deadline)
#   alone max  each of them alone with `--timeout 1`: the longest wall
#              time (an answer should arrive within the limit + 0.5 s)
#   fenced4    four copies of Trencher `memorax/lamport_fast.fenced.txt`,
#              same options (the run of the varisat stop)
#   fenced1 -v one copy with `--timeout 1` under `ulimit -v 4194304`
#              (3 = unknown; an abort would be 134)
#   hard6 -j1  six programs whose `reach` is one hard SAT solve (a 20-bit
#              multiplier that cannot give a prime; tests/cli/hardening.rs
#              `hard_solve`) with `-j 1 --timeout 1`: CPU/wall above 1
#              means a solve kept running after its answer
#   hard mem   one of them with `--memory 16 --timeout 20`: a solve that
#              outgrows the budget
#   stack C    `reach --format c --model sc --timeout 5` on SV-COMP's
#              `stack_longer-1.i` when SVCOMP_DIR holds it
#   nf pso     `robust --engine normal-form --model pso --timeout 2` on
#              Trencher `cilk-the-wsq-wrongdoing.txt`
#
#   [SVCOMP_DIR=DIR] bench/limits.sh BIN...
#
# Exit 0; skips with a note when the corpus is absent. Run it under
# `nice -n 10`; CPU/wall is lower on a loaded machine.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
shared="$here/../../shared/corpus"
if [ ! -d "$shared/memorax" ]; then
    echo "limits.sh: $shared/memorax not found; skipped"
    exit 0
fi
[ $# -ge 1 ] || { echo "usage: bench/limits.sh BIN..." >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
args=(robust --model pso --bound 80 --timeout 1)
n=0
for round in 1 2; do
    for f in "$shared"/memorax/*.rmm; do
        case "$(basename "$f")" in burns.rmm | sense_rev_bar.rmm) continue ;; esac
        [ $n -lt 20 ] || break
        cp "$f" "$tmp/$round-$(basename "$f")"
        n=$((n + 1))
    done
done
fenced="$shared/trencher/memorax/lamport_fast.fenced.txt"
for i in 1 2 3 4; do cp "$fenced" "$tmp/fenced$i.txt"; done
python3 - "$tmp" <<'EOF'
import sys
bits = 20
is_prime = lambda n: n > 1 and all(n % d for d in range(2, int(n ** 0.5) + 1))
p = next(n for n in range(1 << (2 * bits - 2), 1 << (2 * bits)) if is_prime(n))
t = "thread t0 {\n  a = 0;\n  b = 0;\n"
for v in "ab":
    t += f"  choose {{ {v} = {v} * 2; }} or {{ {v} = {v} * 2 + 1; }}\n" * bits
t += f"  c = a * b;\n}}\ngoal final where t0.c == {p} && t0.a != 1 && t0.b != 1;\n"
for i in range(6):
    open(f"{sys.argv[1]}/hard{i}.rmm", "w").write(t)
EOF
hard=(reach --solver varisat --model sc --width 48 --bound 100)
stack=""
[ -n "${SVCOMP_DIR:-}" ] && stack=$(find "$SVCOMP_DIR" -name stack_longer-1.i | head -1)

# One table row: NAME RUN [ULIMIT_KB] -- COMMAND...
measure() {
    python3 - "$@" <<'EOF'
import resource, subprocess, sys, time
name, run, limit = sys.argv[1], sys.argv[2], sys.argv[3]
cmd = sys.argv[5:]
def pre():
    if limit != "-":
        kb = int(limit) * 1024
        resource.setrlimit(resource.RLIMIT_AS, (kb, kb))
t0 = time.monotonic()
p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=pre)
wall = time.monotonic() - t0
r = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = r.ru_utime + r.ru_stime
first = (p.stdout.strip().splitlines() or p.stderr.strip().splitlines() or [""])[0]
first = first.split(": ", 1)[-1][:60].replace("|", "/")
print(f"| {name} | {run} | {wall:.2f} | {cpu:.2f} | {cpu / max(wall, 0.01):.2f} | {r.ru_maxrss // 1024} | {p.returncode} | {first} |")
EOF
}

echo "| binary | run | wall s | CPU s | CPU/wall | peak RSS MB | exit | answer |"
echo "|---|---|---|---|---|---|---|---|"
for bin in "$@"; do
    name=$(basename "$bin")
    measure "$name" "batch20" - -- "$bin" "${args[@]}" -j 2 "$tmp"/[12]-*.rmm
    worst=0
    for f in "$tmp"/1-*.rmm; do
        w=$(measure "$name" x - -- "$bin" "${args[@]}" "$f" | cut -d'|' -f4)
        worst=$(python3 -c "print(max($worst, $w))")
    done
    echo "| $name | alone max | $worst | - | - | - | - | - |"
    measure "$name" "fenced4" - -- "$bin" "${args[@]}" -j 2 "$tmp"/fenced*.txt
    measure "$name" "fenced1 -v 4G" 4194304 -- "$bin" "${args[@]}" "$tmp/fenced1.txt"
    measure "$name" "hard6 -j1" - -- "$bin" "${hard[@]}" --timeout 1 -j 1 "$tmp"/hard*.rmm
    measure "$name" "hard mem" - -- "$bin" "${hard[@]}" --memory 16 --timeout 20 "$tmp/hard0.rmm"
    if [ -n "$stack" ]; then
        measure "$name" "stack C t=5" - -- "$bin" reach --format c --model sc --timeout 5 "$stack"
    fi
    measure "$name" "nf pso t=2" - -- "$bin" robust --engine normal-form --model pso --timeout 2 \
        "$shared/trencher/cilk-the-wsq-wrongdoing.txt"
done
