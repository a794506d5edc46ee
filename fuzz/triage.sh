#!/usr/bin/env bash
# Groups the crashes of a fuzz run by class: the panic location (or
# "stack overflow", or the signal), with a count and the smallest input of
# each class.
#
#   fuzz/triage.sh TARGET [DIR]     DIR defaults to fuzz/out/TARGET/default/crashes
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
target=${1:?usage: triage.sh TARGET [DIR]}
dir=${2:-$here/out/$target/default/crashes}
bin=$here/target/release/$target
declare -A count smallest size
for f in "$dir"/id:*; do
  [ -f "$f" ] || continue
  err=$(RUST_BACKTRACE=0 timeout 20 "$bin" < "$f" 2>&1 >/dev/null)
  rc=$?
  if grep -q "has overflowed its stack" <<<"$err"; then
    class="stack overflow"
  elif loc=$(grep -oE "panicked at [^ ]+:[0-9]+:[0-9]+" <<<"$err" | head -1) && [ -n "$loc" ]; then
    msg=$(grep -A1 -E "panicked at" <<<"$err" | sed -n 2p | cut -d';' -f1 | sed -E 's/[0-9]+/N/g' | cut -c1-70)
    class="${loc#panicked at } ${msg}"
  else
    class="exit status $rc"
  fi
  n=$(stat -c %s "$f")
  count[$class]=$(( ${count[$class]:-0} + 1 ))
  if [ -z "${size[$class]:-}" ] || [ "$n" -lt "${size[$class]}" ]; then
    size[$class]=$n
    smallest[$class]=$f
  fi
done
for c in "${!count[@]}"; do
  printf '%5d  %s\n       smallest (%d bytes): %s\n' "${count[$c]}" "$c" "${size[$c]}" "${smallest[$c]}"
done
