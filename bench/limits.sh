#!/usr/bin/env bash
# Do limits stop the work? Runs inputs that each time out and prints, for
# each binary given (old and new side by side), one table row per
# measurement:
#
#   batch      20 inputs with `-j 2 --timeout 1`: wall and CPU time (user +
#              system of the process and its threads), CPU/wall ratio
#              (at most 2 means no core beyond `-j 2` was kept busy), exit
#              status (3: every answer unknown)
#   alone max  each input alone with `--timeout 1`: the longest wall time
#              (an answer should arrive within the limit + 0.5 s)
#   ulimit -v  the batch again under an address-space limit of 4 GiB:
#              exit status (3 = unknown; 134 would be an abort)
#
#   bench/limits.sh BIN...
#
# Inputs: the Memorax corpus programs that time out under
# `robust --model pso --bound 80` (../shared/corpus/memorax), each twice,
# first 20. Exit 0; skips with a note when the corpus is absent.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
corpus="$here/../../shared/corpus/memorax"
if [ ! -d "$corpus" ]; then
    echo "limits.sh: $corpus not found; skipped"
    exit 0
fi
[ $# -ge 1 ] || { echo "usage: bench/limits.sh BIN..." >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
args=(robust --model pso --bound 80 --timeout 1)
n=0
for round in 1 2; do
    for f in "$corpus"/*.rmm; do
        case "$(basename "$f")" in burns.rmm | sense_rev_bar.rmm) continue ;; esac
        [ $n -lt 20 ] || break
        cp "$f" "$tmp/$round-$(basename "$f")"
        n=$((n + 1))
    done
done

# Wall and CPU seconds of a command, and its exit status: "wall cpu status".
measure() {
    python3 - "$@" <<'EOF'
import resource, subprocess, sys, time
t0 = time.monotonic()
r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
p = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
print(f"{time.monotonic() - t0:.2f} {cpu:.2f} {p.returncode}")
EOF
}

printf '%-28s %-10s %8s %8s %6s %6s\n' binary measure wall_s cpu_s cpu/wall exit
for bin in "$@"; do
    name=$(basename "$bin")
    read -r wall cpu st < <(measure "$bin" "${args[@]}" -j 2 "$tmp"/*.rmm)
    ratio=$(python3 -c "print(f'{$cpu / max($wall, 0.01):.2f}')")
    printf '%-28s %-10s %8s %8s %6s %6s\n' "$name" "batch($n)" "$wall" "$cpu" "$ratio" "$st"
    worst=0
    for f in "$tmp"/1-*.rmm; do
        read -r w _ _ < <(measure "$bin" "${args[@]}" "$f")
        worst=$(python3 -c "print(max($worst, $w))")
    done
    printf '%-28s %-10s %8s %8s %6s %6s\n' "$name" "alone max" "$worst" - - -
    read -r wall cpu st < <(ulimit -v 4194304; measure "$bin" "${args[@]}" -j 2 "$tmp"/*.rmm)
    printf '%-28s %-10s %8s %8s %6s %6s\n' "$name" "ulimit -v" "$wall" "$cpu" - "$st"
done
