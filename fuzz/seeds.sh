#!/usr/bin/env bash
# Builds the seed corpora of the fuzz targets: fuzz/seeds/TARGET/ (ignored
# by git; rebuilt from scratch on every run).
#
#   fuzz/seeds.sh [OUT_DIR]
#
# Sources: the repository's examples/ (native; examples/c/*.c preprocessed
# for c_program), encodings/*.cat (cat), tests/litmus/ (litmus),
# tests/fuzz_seeds/TARGET/ (c_litmus, bell, conf, svcomp_task), a few
# hand-written Trencher programs, and, when present, the shared test
# corpus ../shared/corpus beside the repository (or $SHARED_CORPUS):
# trencher/*.txt, memorax/*.rmm (rejected by the native front-end:
# exercises the Memorax check), litmus/**/*.litmus, litmus-arm/**/*.litmus,
# svcomp/ (task files; the .i files under 40 KB), lkmm/ (the .cfg, the
# kernel's bell and cat files, 300 C tests each after the kernel's macro
# file). The corpus is test data: it is only copied into the ignored seed
# directory, never into the repository.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
out=${1:-$here/seeds}
shared=${SHARED_CORPUS:-$root/../shared/corpus}
if [ -d "$shared" ]; then shared=$(cd "$shared" && pwd); fi

rm -rf "$out"
targets="native trencher litmus cat c_program c_litmus bell conf svcomp_task"
for t in $targets; do mkdir -p "$out/$t"; done

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
for t in c_litmus bell conf svcomp_task; do
  copy_found "$t" "$root/tests/fuzz_seeds/$t" '*'
done
# C programs, preprocessed (the c_program target reads `.i` files).
for f in "$root"/examples/c/*.c; do
  cpp -P -x c "$f" -o "$out/c_program/$(basename "$f" .c).i" 2>/dev/null || true
done
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
  copy_found svcomp_task "$shared/svcomp" '*.yml'
  copy_found conf "$shared/lkmm" '*.cfg'
  # SV-COMP tasks, the smaller ones (AFL++ prefers small seeds).
  while IFS= read -r -d '' f; do
    [ "$(wc -c < "$f")" -lt 40000 ] && copy c_program "$f"
  done < <(find "$shared/svcomp" -type f -name '*.i' -print0 | sort -z)
  # The kernel's bell and cat files, one input (`BELL %% CAT`).
  m=$shared/lkmm/model
  if [ -f "$m/linux-kernel.bell" ] && [ -f "$m/linux-kernel.cat" ]; then
    { cat "$m/linux-kernel.bell"; printf '\n%%%%\n'; cat "$m/linux-kernel.cat"; } \
      > "$out/bell/lkmm-bell-cat.txt"
    cp "$m/linux-kernel.bell" "$out/bell/lkmm.bell"
  fi
  # The kernel's C tests, each after the kernel's macro file (`DEF %% TEST`).
  if [ -f "$m/linux-kernel.def" ]; then
    n=0
    while IFS= read -r -d '' f; do
      n=$((n + 1)); [ $n -gt 300 ] && break
      { cat "$m/linux-kernel.def"; printf '\n%%%%\n'; cat "$f"; } \
        > "$out/c_litmus/$(printf '%s' "${f#"$shared"/}" | tr '/ ' '__')"
    done < <(find "$shared/lkmm" -type f -name '*.litmus' -print0 | sort -z)
  fi
else
  echo "seeds.sh: no shared corpus at $shared (only the repository's seeds)" >&2
fi

for t in $targets; do
  printf '%-11s %5d seeds\n' "$t" "$(find "$out/$t" -type f | wc -l)"
done
