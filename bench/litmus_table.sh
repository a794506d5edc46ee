#!/usr/bin/env bash
# Litmus throughput table: for each (suite, model) runs
#   bmc-rmm litmus -q --model MODEL CORPUS/SUITE
# three times in one process each and prints the median wall time.
# Usage: bench/litmus_table.sh [CORPUS_DIR]   (default ../shared/corpus/litmus)
# Builds the release binary first. Needs python3 (for timing).
set -euo pipefail
cd "$(dirname "$0")/.."
corpus="${1:-../shared/corpus/litmus}"
if [ ! -d "$corpus" ]; then
  echo "corpus not found: $corpus" >&2
  exit 2
fi
cargo build --release --quiet
bin=target/release/bmc-rmm
printf '%-6s %-6s %6s %10s %9s\n' suite model tests wall_s tests/s
for row in "X86 tso" "X86 sc" "PPC power" "PPC sc"; do
  set -- $row
  suite=$1 model=$2
  n=$(find "$corpus/$suite" -name '*.litmus' | wc -l)
  times=()
  for _ in 1 2 3; do
    t=$(python3 - "$bin" "$model" "$corpus/$suite" <<'PY'
import subprocess, sys, time
t0 = time.monotonic()
subprocess.run([sys.argv[1], "litmus", "-q", "--model", sys.argv[2], sys.argv[3]],
               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(f"{time.monotonic() - t0:.3f}")
PY
)
    times+=("$t")
  done
  med=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 2p)
  rate=$(python3 -c "print(f'{$n / max($med, 1e-9):.0f}')")
  printf '%-6s %-6s %6d %10s %9s\n' "$suite" "$model" "$n" "$med" "$rate"
done
