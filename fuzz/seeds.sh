#!/usr/bin/env bash
# Builds the seed corpora of the fuzz targets: fuzz/seeds/{native,trencher,
# litmus,cat}/ (ignored by git; rebuilt from scratch on every run).
#
#   fuzz/seeds.sh [OUT_DIR]
#
# Sources: the repository's examples/ (native), encodings/*.cat (cat),
# tests/litmus/ (litmus), a few hand-written Trencher programs, and, when
# present, the shared test corpus ../shared/corpus beside the repository
# (or $SHARED_CORPUS): trencher/*.txt, memorax/*.rmm (rejected by the
# native front-end: exercises the Memorax check), litmus/**/*.litmus and
# litmus-arm/**/*.litmus. The corpus is test data: it is only copied into
# the ignored seed directory, never into the repository.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
out=${1:-$here/seeds}
shared=${SHARED_CORPUS:-$root/../shared/corpus}
if [ -d "$shared" ]; then shared=$(cd "$shared" && pwd); fi

rm -rf "$out"
mkdir -p "$out"/native "$out"/trencher "$out"/litmus "$out"/cat

# copy TARGET FILE...: one seed per file, named after its path.
copy() {
  local target=$1 f name
  shift
  for f in "$@"; do
    [ -f "$f" ] || continue
    case $f in
      "$shared"/*) name=corpus/${f#"$shared"/} ;;
      *) name=${f#"$root"/} ;;
    esac
    cp "$f" "$out/$target/$(printf '%s' "$name" | tr '/ ' '__')"
  done
}
# copy_found TARGET DIR PATTERN: every file under DIR whose name matches.
copy_found() {
  local target=$1 dir=$2 pattern=$3 f
  [ -d "$dir" ] || return 0
  while IFS= read -r -d '' f; do
    copy "$target" "$f"
  done < <(find "$dir" -type f -name "$pattern" -print0 | sort -z)
}

copy native "$root"/examples/*.rmm "$root"/examples/pgas/*.rmm
copy cat "$root"/encodings/*.cat
copy_found litmus "$root/tests/litmus" '*.litmus'

# Trencher programs (prefix expressions, comments, every command).
cat > "$out/trencher/sb.txt" <<'TXT'
# store buffering
thread t0
initial q0
transition q0 q1 write 1 0
transition q1 q2 read r 1
end
thread t1
initial q0
transition q0 q1 write 1 1
transition q1 q2 read r 0
end
TXT
cat > "$out/trencher/commands.txt" <<'TXT'
thread p
initial a
transition a b local r + 1 -1
transition b c check == r ! 0
transition c d write * r 2 % 7 3
transition d e mfence
transition e f lock
transition f g unlock
transition g a noop
transition a h read x && || < r 2 >= 1 0 != x -32768
end
TXT

if [ -d "$shared" ]; then
  copy_found trencher "$shared/trencher" '*.txt'
  copy_found native "$shared/memorax" '*.rmm'
  copy_found litmus "$shared/litmus" '*.litmus'
  copy_found litmus "$shared/litmus-arm" '*.litmus'
else
  echo "seeds.sh: no shared corpus at $shared (only the repository's seeds)" >&2
fi

for t in native trencher litmus cat; do
  printf '%-9s %5d seeds\n' "$t" "$(find "$out/$t" -type f | wc -l)"
done
