#!/usr/bin/env bash
# Bounded SAT engine on every Trencher corpus file: robust --model tso at a
# bound, lazy (default) axioms; prints a table with the median wall time of
# RUNS runs and the verdict. Usage: bench/sat_table.sh [BOUND] [TIMEOUT] [RUNS] [--eager]
set -euo pipefail
cd "$(dirname "$0")/.."
BOUND=${1:-20}; TIMEOUT=${2:-60}; RUNS=${3:-3}; EXTRA=${4:-}
CORPUS=../shared/corpus/trencher
[ -d "$CORPUS" ] || { echo "corpus not found at $CORPUS" >&2; exit 0; }
cargo build --release -q
BIN=target/release/bmc-rmm
printf '| file | expected | verdict (bound %s) | median s | solves | refinements |\n|---|---|---|---:|---:|---:|\n' "$BOUND"
for f in "$CORPUS"/*.txt "$CORPUS"/memorax/*.txt; do
  rel=${f#"$CORPUS"/}
  exp=$(awk -F'\t' -v f="$rel" '$1==f{print $2}' "$CORPUS/EXPECTED.tsv")
  times=(); line=""
  for _ in $(seq "$RUNS"); do
    line=$($BIN robust --json --model tso --bound "$BOUND" --timeout "$TIMEOUT" $EXTRA "$f" || true)
    times+=("$(echo "$line" | python3 -c 'import sys,json; print(json.loads(sys.stdin.read())["time"])')")
    v=$(echo "$line" | python3 -c 'import sys,json; print(json.loads(sys.stdin.read())["verdict"])')
    [ "$v" = unknown ] && break
  done
  med=$(printf '%s\n' "${times[@]}" | sort -g | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}')
  echo "$line" | python3 -c "
import sys,json
d=json.loads(sys.stdin.read()); s=d['stats']
print('| $rel | $exp | %s | %.3f | %d | %d |' % (d['verdict'], $med, s['solves'], s['refinements']))"
done
