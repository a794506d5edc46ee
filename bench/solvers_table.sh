#!/usr/bin/env bash
# Backend comparison table: the same suites on the varisat and
# the z3 backend, one run each (the z3 build), wall time and the ratio
# z3 / varisat.
#   litmus suites: bmc-rmm litmus -q --solver S --model M CORPUS/litmus/SUITE
#   Trencher:      bmc-rmm -q --solver S --model tso --bound 10 (reach+robust)
# Usage: bench/solvers_table.sh [CORPUS_DIR]   (default ../shared/corpus)
# Needs libz3-dev and libclang-dev (docs/solvers.md) and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus="${1:-../shared/corpus}"
if [ ! -d "$corpus" ]; then
  echo "corpus not found: $corpus" >&2
  exit 2
fi
cargo build --release --quiet --features z3
bin=target/release/bmc-rmm
timed() {
  python3 - "$@" <<'PY'
import subprocess, sys, time
t0 = time.monotonic()
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(f"{time.monotonic() - t0:.2f}")
PY
}
printf '%-20s %6s %10s %8s %8s\n' suite inputs varisat_s z3_s z3/varisat
row() {
  local name=$1 n=$2; shift 2
  local a b
  a=$(timed "$bin" "$@" --solver varisat)
  b=$(timed "$bin" "$@" --solver z3)
  printf '%-20s %6d %10s %8s %8s\n' "$name" "$n" "$a" "$b" "$(python3 -c "print(f'{$b / max($a, 1e-9):.1f}')")"
}
for r in "X86 tso" "X86 sc" "PPC power"; do
  set -- $r
  n=$(find "$corpus/litmus/$1" -name '*.litmus' | wc -l)
  row "litmus $1 $2" "$n" litmus -q --model "$2" "$corpus/litmus/$1"
done
mapfile -t tr < <(find "$corpus/trencher" -name '*.txt' | sort)
row "trencher tso k=10" "${#tr[@]}" -q --model tso --bound 10 "${tr[@]}"
mapfile -t pg < <(find examples/pgas -name '*.rmm' | sort)
row "pgas examples n=3" "${#pg[@]}" -q --model pgas --nodes 3 --bound 10 "${pg[@]}"
