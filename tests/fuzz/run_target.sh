#!/usr/bin/env bash
# Runs one fuzz target of a libFuzzer build (cmake -DSCFW_FUZZ=ON, see .ci/sanitize.sh) up to a
# number of executions or a time, whichever comes first, and restarts it after each finding so
# that one finding does not end the run; prints one summary line (executions, coverage,
# findings). The corpus grows in WORK/corpus/<target> (not in the repository), reproducers go to
# WORK/artifacts/<target>-*.
#   tests/fuzz/run_target.sh BUILD TARGET RUNS SECONDS WORK
# e.g. tests/fuzz/run_target.sh build-san udata 1000000 3600 "$WORK" (a folder outside the repository)
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=$1 target=$2 runs=$3 seconds=$4 work=$5
declare -A max_len=([problem_json]=4096 [experiment_json]=4096 [libsvm]=1024 [price_csv]=1024 [udata]=1024 [polytope_csv]=512 [checkpoint]=131072)
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
mkdir -p "$work/corpus/$target" "$work/artifacts" "$work/logs"
done_runs=0 findings=0 cov=0 ft=0 round=0
end=$((SECONDS + seconds))
while ((done_runs < runs && SECONDS < end)); do
  round=$((round + 1))
  log=$work/logs/$target-$round.log
  "$build/bin/fuzz_$target" -runs=$((runs - done_runs)) -max_total_time=$((end - SECONDS)) \
    -max_len="${max_len[$target]}" -timeout=30 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$work/artifacts/$target-" "$work/corpus/$target" "$here/corpus/$target" >"$log" 2>&1
  rc=$?
  n=$(grep -a 'stat::number_of_executed_units' "$log" | tail -1 | awk '{print $2}')
  done_runs=$((done_runs + ${n:-0}))
  # The last status line libFuzzer printed: "#N ... cov: C ft: F ...".
  last=$(grep -a -E '^#[0-9]+' "$log" | grep -a 'cov:' | tail -1)
  if [[ -n $last ]]; then
    cov=$(sed -E 's/.* cov: ([0-9]+).*/\1/' <<<"$last")
    ft=$(sed -E 's/.* ft: ([0-9]+).*/\1/' <<<"$last")
  fi
  if ((rc != 0)); then
    findings=$((findings + 1))
    echo "run_target $target: finding in round $round (exit $rc), see $log:" >&2
    grep -a -E "^fuzz $target|ERROR|SUMMARY|Test unit written" "$log" | cut -c1-400 >&2
    [[ -n $n ]] || break  # no statistics: the target could not start
  fi
done
echo "run_target $target: $done_runs executions in $round rounds, coverage $cov edges, $ft features, $findings findings"
