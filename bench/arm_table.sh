#!/usr/bin/env bash
# AArch64 / RISC-V litmus table: for each (suite, model) runs
#   bmc-rmm litmus -q --model MODEL CORPUS/SUITE
# three times, one process each, and prints the median wall time next to
# herd7's time on the same tests: the sum of the `Time NAME t` lines of
# CORPUS/herd7-logs/SUITE.HERDMODEL.log (herd7 run once per file; its
# process start-up is not in those lines, so the ratio is a lower bound).
# Usage: bench/arm_table.sh [CORPUS_DIR]   (default ../shared/corpus/litmus-arm)
# Builds the release binary first. Needs python3 (for timing).
set -euo pipefail
cd "$(dirname "$0")/.."
corpus="${1:-../shared/corpus/litmus-arm}"
if [ ! -d "$corpus" ]; then
  echo "corpus not found: $corpus" >&2
  exit 2
fi
cargo build --release --quiet
bin=target/release/bmc-rmm
printf '%-8s %-6s %6s %10s %9s %10s %8s\n' suite model tests wall_s tests/s herd7_s ratio
for row in "AArch64 arm aarch64.cat" "AArch64 sc sc.cat" "RISCV riscv riscv.cat" "RISCV sc sc.cat"; do
  set -- $row
  suite=$1 model=$2 herd=$3
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
  herd_s=$(awk '/^Time /{s+=$3} END{printf "%.2f", s}' "$corpus/herd7-logs/$suite.$herd.log")
  ratio=$(python3 -c "print(f'{$herd_s / max($med, 1e-9):.1f}x')")
  printf '%-8s %-6s %6d %10s %9s %10s %8s\n' "$suite" "$model" "$n" "$med" "$rate" "$herd_s" "$ratio"
done
