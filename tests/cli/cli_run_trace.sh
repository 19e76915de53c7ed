#!/usr/bin/env bash
# `scfw run`: the summary, the trace CSV (header, rows, flushed as it goes), the seed, and Ctrl-C.
SCFW=$1
source "$(dirname "$0")/lib.sh"
HEADER="iteration,objective,gap,best_gap,seconds,gamma,beta,rho,glmo_value,glmo_iterations"

write_problem p.json '{ "plugin": "max" }' 100 '{ "every": 25 }'
run "$SCFW" run p.json --trace out/nested/t.csv
expect_rc 0 "run --trace"
expect_contains "$OUT" "status" "run prints the summary"
expect_contains "$OUT" "objective" "run prints the summary"
[[ -f out/nested/t.csv ]] || fail "--trace did not create out/nested/t.csv"
[[ "$(head -n1 out/nested/t.csv)" == "$HEADER" ]] || fail "trace header is '$(head -n1 out/nested/t.csv)'"
rows=$(($(wc -l <out/nested/t.csv) - 1))
[[ $rows -ge 4 ]] || fail "trace: expected a row every 25 of 100 iterations, got $rows rows"
awk -F, 'NR > 1 && NF != 10 { bad = 1 } END { exit bad }' out/nested/t.csv || fail "trace rows without 10 fields"
[[ "$(tail -n1 out/nested/t.csv | cut -d, -f1)" == 100 ]] || fail "trace: last row is not iteration 100"

# An exact GLMO prints plain gaps; column generation stopped at a tolerance says its gaps are
# certified upper bounds, and by how much at most.
[[ "$OUT" != *"upper bounds"* ]] || fail "an exact GLMO's summary claims upper-bound gaps:
$OUT"
cat >mc.json <<'JSON'
{ "seed": 1, "iterations": 20,
  "oracle": { "plugin": "matrix_completion", "groups": 20, "synthetic": { "rows": 30, "cols": 20 } },
  "outer": { "plugin": "norm", "p": "1" },
  "domain": { "plugin": "nuclear_ball", "rows": 30, "cols": 20, "radius": 5 },
  "glmo": { "plugin": "column_generation", "tolerance": 0.05 },
  "tracker": { "plugin": "momentum" }, "schedule": { "plugin": "nonconvex" } }
JSON
run "$SCFW" run mc.json
expect_rc 0 "column generation at tolerance 0.05"
expect_contains "$OUT" "upper bounds: the GLMO stops at a certified tolerance, each gap at most" \
  "an inexact GLMO's summary says its gaps are upper bounds"

# The same file and seed give the same trace (all but the seconds column).
run "$SCFW" run p.json --trace again.csv --quiet
expect_rc 0 "second run"
[[ $(wc -l <<<"$OUT") == 1 ]] || fail "--quiet: expected the one-line summary, got:
$OUT"
diff <(cut -d, -f1-4,6- out/nested/t.csv) <(cut -d, -f1-4,6- again.csv) >/dev/null ||
  fail "same seed, different traces"
run "$SCFW" run p.json --trace other.csv --seed 4 --quiet
expect_rc 0 "--seed 4"
! diff <(cut -d, -f2,3 out/nested/t.csv) <(cut -d, -f2,3 other.csv) >/dev/null ||
  fail "--seed 4 gave the trace of seed 3"

# The trace named in the file, relative to the current directory.
write_problem q.json '{ "plugin": "max" }' 50 '{ "every": 10, "trace": "from_file.csv" }'
run "$SCFW" run q.json --iterations 60 --quiet
expect_rc 0 "report.trace"
[[ "$(head -n1 from_file.csv)" == "$HEADER" ]] || fail "report.trace: no trace written"
[[ "$(tail -n1 from_file.csv | cut -d, -f1)" == 60 ]] || fail "--iterations 60 did not override the file"

# Stopping rules: --gap-tolerance stops at the first report at or below it (every 25 here, so at
# 25 with a tolerance no gap exceeds) and the summary names the rule; "stop" in the file does the
# same, and the command line wins over it; the trace ends at the iteration the run stopped after.
run "$SCFW" run p.json --gap-tolerance 1e9 --trace stop.csv
expect_rc 0 "--gap-tolerance"
expect_contains "$OUT" "gap tolerance reached (gap " "the summary names the rule"
expect_contains "$OUT" "<= tolerance 1e+09) after 25 of 100 iterations" "the run stops at the first report"
[[ "$(tail -n1 stop.csv | cut -d, -f1)" == 25 ]] || fail "--gap-tolerance: the trace does not end at iteration 25"
cat >stop.json <<'JSON'
{ "seed": 3, "iterations": 100, "report": { "every": 20 }, "stop": { "gap_tolerance": 1e9 },
  "oracle": { "plugin": "least_squares_tasks", "synthetic": { "tasks": 4, "dim": 20, "rows_per_task": 40 } },
  "outer": { "plugin": "max" }, "domain": { "plugin": "l1_ball", "radius": 2 } }
JSON
run "$SCFW" run stop.json --quiet
expect_rc 0 "stop.gap_tolerance"
expect_contains "$OUT" "gap tolerance reached: 20 iterations" "\"stop\": {\"gap_tolerance\"} in the file"
run "$SCFW" run stop.json --quiet --gap-tolerance 0
expect_rc 0 "--gap-tolerance 0 over the file's"
expect_contains "$OUT" "iteration limit: 100 iterations" "--gap-tolerance 0 turns the file's rule off"
run "$SCFW" run stop.json --time-limit -1
expect_rc 2 "--time-limit -1"
expect_contains "$ERR" "--time-limit: expected a number >= 0, got '-1'" "a negative time limit is refused"

# Ctrl-C: the run stops after the current iteration, prints its summary, exits 130, and the
# trace written so far stays readable.
write_problem long.json '{ "plugin": "max" }' 100000000 '{ "every": 20 }'
"$SCFW" run long.json --trace long.csv >long.out 2>long.err &
pid=$!
for _ in $(seq 1 300); do
  [[ -f long.csv && $(wc -l <long.csv) -ge 3 ]] && break
  sleep 0.1
done
kill -INT "$pid"
set +e
wait "$pid"
rc=$?
set -e
[[ $rc == 130 ]] || fail "SIGINT: exit code $rc, expected 130; stderr: $(cat long.err)"
grep -q "interrupted" long.out || fail "SIGINT: the summary does not say interrupted:
$(cat long.out)"
[[ "$(head -n1 long.csv)" == "$HEADER" ]] || fail "SIGINT: trace header lost"
awk -F, 'NR > 1 && NF != 10 { bad = 1 } END { exit bad }' long.csv || fail "SIGINT: a partial trace row"
# --report-every overrides "report": {"every"} (50 in write_problem): rows at 20, 40, ... and the
# last iteration; y_K does not depend on it (issue 26: report settings never move the iterates).
write_problem every.json '{ "plugin": "max" }' 100
run "$SCFW" run every.json --report-every 20 --trace every20.csv --solution every20_x.csv
expect_rc 0 "--report-every 20"
[[ "$(cut -d, -f1 every20.csv | tail -n +2 | tr '\n' ' ')" == "20 40 60 80 100 " ]] ||
  fail "--report-every 20: iterations of the trace rows: $(cut -d, -f1 every20.csv | tr '\n' ' ')"
# The summary ends by naming the files the run wrote; the JSON summary names the others.
[[ "$(tail -n1 <<<"$OUT")" == "files           trace every20.csv; solution every20_x.csv;" ]] ||
  fail "the summary's last line names the files: '$(tail -n1 <<<"$OUT")'"
run "$SCFW" run every.json --report-every 0 --solution every0_x.csv --summary-json every0.json
expect_rc 0 "--report-every 0"
[[ "$(tail -n1 <<<"$OUT")" == "files           solution every0_x.csv; summary_json every0.json;" ]] ||
  fail "the summary names the JSON summary: '$(tail -n1 <<<"$OUT")'"
python3 -c 'import json, sys; f = json.load(open("every0.json"))["files"]; sys.exit(f != {"solution": "every0_x.csv"})' ||
  fail "the JSON summary's files: $(cat every0.json)"
cmp -s every20_x.csv every0_x.csv || fail "--report-every moved y_K: $(diff every20_x.csv every0_x.csv)"
run "$SCFW" run every.json --report-every -1
expect_rc 2 "--report-every -1"
[[ "$(head -n1 <<<"$ERR")" == "scfw run: --report-every: expected an integer >= 0, got '-1'" ]] ||
  fail "--report-every -1: first stderr line is '$(head -n1 <<<"$ERR")'"
# Under --time-limit the ETA is the time left to the limit when that comes before K (10^7
# iterations take minutes; the limit ends the run within a second).
run "$SCFW" run every.json --iterations 10000000 --time-limit 1 --progress 0.2 --quiet
expect_rc 0 "a time limit with progress lines"
lines=$(grep -c '^progress: ' <<<"$ERR" || true)
[[ $lines -ge 1 ]] || fail "a time limit with progress lines: none in '$ERR'"
[[ $(grep '^progress: ' <<<"$ERR" | grep -c ', ETA [0-9]*s (time limit)$' || true) == "$lines" ]] ||
  fail "the ETA does not honour --time-limit: $ERR"
echo "cli_run_trace: ok"
