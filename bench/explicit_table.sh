#!/bin/sh
# Runs the explicit TSO robustness checker (-r) and fence insertion (-f) on
# every Trencher corpus file in release mode and prints a Markdown table
# (median of RUNS runs). Usage: bench/explicit_table.sh [CORPUS_DIR] [RUNS] [TIMEOUT_S]
set -e
cd "$(dirname "$0")/.."
DIR=${1:-../shared/corpus/trencher}
RUNS=${2:-3}
TIMEOUT=${3:-20}
cargo build --release --quiet --example explicit_table
exec ./target/release/examples/explicit_table "$DIR" "$RUNS" "$TIMEOUT"
