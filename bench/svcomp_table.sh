#!/usr/bin/env bash
# SV-COMP concurrency tasks (../shared/corpus/svcomp, 48 unreach-call
# tasks): SV-COMP score, TRUE/FALSE/UNKNOWN counts, wrong answers and the
# median wall time per task, for an old and a new binary side by side.
#
#   bench/svcomp_table.sh [OLD [NEW]]
#
# OLD (default /work/old-bmc-rmm) may predate the `svcomp` runner: it is
# driven per task as `reach --format c --model sc --width 32`, exit 0
# read as TRUE, 1 as FALSE, anything else as UNKNOWN. NEW (default
# target/release/bmc-rmm) runs `svcomp TASK.yml`, whose first output word
# is the answer. Environment: TIMEOUT (seconds per task, default 20),
# OLD_TIMEOUT (the old side's, default TIMEOUT), ENGINE and SOLVER (the
# new side's --engine auto|bounded|smc|explicit and --solver
# varisat|cdclt|z3, default auto and varisat; z3 needs a binary built
# with --features z3), CORPUS
# (default ../shared/corpus/svcomp), RESULTS (directory of the per-task
# TSVs, default target/svcomp-table), REUSE=1 (keep a binary's TSV from
# an earlier run instead of running it again).
# Scoring (SV-COMP): +2 correct TRUE, +1 correct FALSE, -32 wrong TRUE,
# -16 wrong FALSE, 0 UNKNOWN. A wrong answer against a label the runner
# reports as disputed (docs/svcomp.md, "Disputed labels") still counts
# as wrong; the `disputed` column says how many of the wrong ones are.
# `right<=60s`: correct answers within 60 s of wall time.
set -u
OLD=${1:-/work/old-bmc-rmm}
NEW=${2:-target/release/bmc-rmm}
T=${TIMEOUT:-20}
OT=${OLD_TIMEOUT:-$T}
ENGINE=${ENGINE:-auto}
SOLVER=${SOLVER:-varisat}
CORPUS=${CORPUS:-../shared/corpus/svcomp}
RESULTS=${RESULTS:-target/svcomp-table}
mkdir -p "$RESULTS"

# run SIDE BINARY: one row per task: dir/yml, expected, answer, seconds.
run() {
  local side=$1 bin=$2 out="$RESULTS/$1.tsv"
  if [[ ${REUSE:-0} == 1 && -s $out ]]; then return; fi
  : >"$out"
  tail -n +2 "$CORPUS/TASKS.tsv" | while IFS=$'\t' read -r dir yml input expected _; do
    local t0 t1 ans code text disputed=-
    t0=$(date +%s.%N)
    if [[ $side == old ]]; then
      timeout $((OT + 30)) "$bin" -q reach --format c --model sc --width 32 \
        --timeout "$OT" "$CORPUS/$dir/$input" >/dev/null 2>&1 </dev/null
      code=$?
      case $code in 0) ans=TRUE ;; 1) ans=FALSE ;; *) ans=UNKNOWN ;; esac
    else
      text=$(timeout $((T + 30)) nice -n 10 "$bin" -q svcomp --timeout "$T" \
        --engine "$ENGINE" --solver "$SOLVER" \
        --witness-dir "$RESULTS/witnesses" "$CORPUS/$dir/$yml" 2>/dev/null </dev/null)
      ans=$(awk 'NR == 1 { print $1 }' <<<"$text")
      [[ $ans == TRUE || $ans == FALSE ]] || ans=UNKNOWN
      grep -q 'label `[a-z]*` disputed' <<<"$text" && disputed=disputed
    fi
    t1=$(date +%s.%N)
    printf '%s/%s\t%s\t%s\t%.2f\t%s\n' "$dir" "$yml" "$expected" "$ans" \
      "$(echo "$t1 - $t0" | bc)" "$disputed" >>"$out"
  done
}

# summary SIDE: score, TRUE, FALSE, UNKNOWN, wrong, disputed, right
# within 60 s, median seconds. The disputed labels are those the new
# side's output names (column 5 of new.tsv).
summary() {
  local med
  med=$(cut -f4 "$RESULTS/$1.tsv" | sort -n |
    awk '{ t[NR] = $1 } END { print (NR % 2) ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2 }')
  awk -F'\t' -v med="$med" '
    FNR == NR { if ($5 == "disputed") d[$1] = 1; next }
    $3 == "TRUE" { tr++; if ($2 == "safe") { s += 2; if ($4 <= 60) r++ } else { s -= 32; w++; dw += ($1 in d) } }
    $3 == "FALSE" { fa++; if ($2 == "bug") { s += 1; if ($4 <= 60) r++ } else { s -= 16; w++; dw += ($1 in d) } }
    $3 == "UNKNOWN" { un++ }
    END { printf "%d\t%d\t%d\t%d\t%d\t%d\t%d\t%.2f\n", s, tr, fa, un, w, dw, r, med }' \
    "$RESULTS/new.tsv" "$RESULTS/$1.tsv"
}

run old "$OLD"
run new "$NEW"
echo "SV-COMP tasks: $(tail -n +2 "$CORPUS/TASKS.tsv" | wc -l); old: reach, --timeout $OT s; new: svcomp --engine $ENGINE --solver $SOLVER, --timeout $T s per task"
printf '%-5s %6s %5s %6s %8s %6s %9s %10s %9s\n' side score TRUE FALSE UNKNOWN wrong disputed 'right<=60s' median_s
for side in old new; do
  summary $side | awk -F'\t' -v side=$side \
    '{ printf "%-5s %6d %5d %6d %8d %6d %9d %10d %9.2f\n", side, $1, $2, $3, $4, $5, $6, $7, $8 }'
done
echo
echo "per task (expected; old answer, time; new answer, time):"
join -t $'\t' <(sort "$RESULTS/old.tsv") <(sort "$RESULTS/new.tsv") |
  awk -F'\t' '{ printf "%-55s %-5s %-8s %7.2f  %-8s %7.2f %s\n", $1, $2, $3, $4, $7, $8, ($9 == "disputed" ? "(label disputed)" : "") }'
