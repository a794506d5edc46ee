#!/usr/bin/env bash
# Runs one fuzz target under AFL++ (cargo afl), one job, until it has done
# EXECS executions (default 1,000,000) or SECONDS seconds (default 1800),
# whichever comes first; findings go to fuzz/out/TARGET/default/
# {crashes,hangs}/.
#
#   fuzz/run.sh TARGET [EXECS [SECONDS]]
#     TARGET: native trencher litmus cat c_program c_litmus bell conf svcomp_task
#
# Builds the targets (`cargo afl build --release`) and, when absent, the
# seed corpus (seeds.sh). Extra afl-fuzz options can be passed in
# $AFL_ARGS.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
target=${1:?usage: run.sh TARGET [EXECS [SECONDS]]}
execs=${2:-1000000}
secs=${3:-1800}
case $target in native | trencher | litmus | cat | c_program | c_litmus | bell | conf | svcomp_task) ;; *)
  echo "run.sh: unknown target $target (native, trencher, litmus, cat, c_program, c_litmus, bell, conf, svcomp_task)" >&2
  exit 2
  ;;
esac
cargo afl build --release
[ -d seeds/"$target" ] || ./seeds.sh
in=seeds/$target
mkdir -p out
# A resumed run keeps its queue: `-i -` (AFL++) when out/TARGET exists.
if [ -d out/"$target"/default/queue ]; then in=-; fi
export AFL_SKIP_CPUFREQ=1 AFL_NO_AFFINITY=1 AFL_NO_UI=1
# Several developers share the machine's cores: never ask for a free one.
exec cargo afl fuzz -i "$in" -o out/"$target" -x dict/"$target".dict \
  -E "$execs" -V "$secs" ${AFL_ARGS:-} target/release/"$target"
