#!/usr/bin/env bash
# Parameterized robustness against TSO (docs/parameterized.md): the
# examples of examples/parameterized/ (median of RUNS runs) side by side
# with the finite explicit engine on N = 1..4 copies of every template
# (verdict R/NR and seconds), then the Trencher corpus with every thread a
# template (skipped when ../shared/corpus is absent). Prints Markdown.
# Usage: bench/parameterized_table.sh [RUNS=3] [TIMEOUT_S=10]
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run --release --quiet --example parameterized_table -- "${1:-3}" "${2:-10}"
