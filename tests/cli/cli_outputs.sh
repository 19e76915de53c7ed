#!/usr/bin/env bash
# `scfw run`'s outputs (docs/outputs.md): the solution file (CSV and JSON, names, f, the matrix
# grid, the best-gap iterate), the JSON summary, warm starts and their refusals, the gap
# tolerance that cannot fire, SIGTERM/SIGHUP, outputs that cannot be written, --progress.
SCFW=$1
source "$(dirname "$0")/lib.sh"

json() {  # json FILE EXPR: a Python expression over the parsed document `d`
  python3 -c "import json,sys; d = json.load(open(sys.argv[1])); print(($2))" "$1"
}

# Task 2's shape on synthetic data: 3 assets, 4 scenario groups, the VaR coordinate last.
cat >pf.json <<'JSON'
{ "name": "pf", "seed": 2, "iterations": 40, "report": { "every": 10 },
  "oracle": { "plugin": "portfolio_returns", "groups": 4, "synthetic": { "assets": 3, "days": 40 } },
  "outer": { "plugin": "cvar_ru", "alpha": 0.9 },
  "domain": { "plugin": "simplex_interval", "lower": -1, "upper": 1 },
  "glmo": { "plugin": "clp" } }
JSON
run "$SCFW" run pf.json --solution out/sol.csv --summary-json out/summary.json --best-iterate
expect_rc 0 "run --solution"
[[ "$(head -n1 out/sol.csv)" == "kind,name,value" ]] || fail "solution CSV header: $(cat out/sol.csv)"
[[ "$(grep '^x,' out/sol.csv | cut -d, -f2 | paste -sd' ')" == "asset 1 asset 2 asset 3 VaR" ]] ||
  fail "solution CSV: x names $(grep '^x,' out/sol.csv)"
[[ "$(grep '^f,' out/sol.csv | cut -d, -f2 | paste -sd' ')" == "group 1 group 2 group 3 group 4" ]] ||
  fail "solution CSV: f names $(grep '^f,' out/sol.csv)"
[[ $(grep -c '^best_x,' out/sol.csv) == 4 ]] || fail "--best-iterate: no best_x rows"
# The weights are on the simplex: they sum to 1 (to rounding).
python3 - out/sol.csv <<'PY' || fail "solution CSV: the weights do not sum to 1"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1], newline='')))
w = [float(r['value']) for r in rows if r['kind'] == 'x' and r['name'] != 'VaR']
sys.exit(0 if abs(sum(w) - 1) < 1e-12 and min(w) >= -1e-12 else 1)
PY
# One plain table that a CSV reader takes with no options: every value a number, the kinds in
# order, the best iterate's report named by its rows; the best gap is the summary's.
python3 - out/sol.csv out/summary.json <<'PY' || fail "solution CSV: not one plain table: $(cat out/sol.csv)"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1], newline='')))
values = [float(r['value']) for r in rows]
kinds = []
for r in rows:
    if not kinds or kinds[-1] != r['kind']:
        kinds.append(r['kind'])
assert kinds == ['objective', 'x', 'f', 'best', 'best_x'], kinds
best = {r['name']: float(r['value']) for r in rows if r['kind'] == 'best'}
assert sorted(best) == ['gap', 'iteration'] and best['gap'] == json.load(open(sys.argv[2]))['best_gap'], best
PY
# The JSON summary: status, the iteration count, the objective the solution recomputes from f(y_K).
[[ "$(json out/summary.json 'd["status"], d["iterations"], d["seed"], d["plugins"][0]["name"]')" == "('iteration_limit', 40, 2, 'portfolio_returns')" ]] ||
  fail "summary JSON: $(cat out/summary.json)"
objective=$(sed -n 's/^objective,,//p' out/sol.csv)
[[ "$(json out/summary.json "d['objective'] == float('$objective')")" == True ]] ||
  fail "the solution's objective differs from the summary's: $objective, $(json out/summary.json 'd["objective"]')"

# JSON by extension; --summary-json - puts the JSON alone on stdout.
run "$SCFW" run pf.json --solution sol.json --summary-json -
expect_rc 0 "--summary-json -"
[[ "$(python3 -c 'import json,sys; print(json.loads(sys.stdin.read())["status"])' <<<"$OUT")" == iteration_limit ]] ||
  fail "--summary-json -: stdout is not the JSON summary: $OUT"
[[ "$(json sol.json 'd["x"]["names"][-1], len(d["f"]["values"]), d["iterations"]')" == "('VaR', 4, 40)" ]] ||
  fail "solution JSON: $(cat sol.json)"

# Warm start: the CSV and the JSON of the same solution read back as the same start (the traces
# agree but for the seconds), and a start outside X is refused with its distance.
run "$SCFW" run pf.json --start out/sol.csv --trace a.csv --quiet
expect_rc 0 "--start CSV"
run "$SCFW" run pf.json --start sol.json --trace b.csv --quiet
expect_rc 0 "--start JSON"
diff <(cut -d, -f1-4,6- a.csv) <(cut -d, -f1-4,6- b.csv) >/dev/null || fail "--start: CSV and JSON starts differ"
run "$SCFW" run pf.json --trace c.csv --quiet
! diff <(cut -d, -f1-4,6- a.csv) <(cut -d, -f1-4,6- c.csv) >/dev/null || fail "--start made no difference"
cat >far.csv <<'CSV'
kind,name,value
x,asset 1,2
x,asset 2,0
x,asset 3,0
x,VaR,0
CSV
run "$SCFW" run pf.json --start far.csv
expect_rc 2 "a start outside X"
expect_stderr "error: far.csv: the start is outside the domain (simplex_interval): at most 1 away from it (an upper bound from 500 Frank-Wolfe projection steps)" "a start outside X"
sed 's/asset 2/MSFT/' far.csv >named.csv
run "$SCFW" run pf.json --start named.csv
expect_rc 2 "a start with other names"
expect_stderr 'error: named.csv: coordinate 2 is "MSFT" in the start but "asset 2" in the problem' "a start with other names"
head -n3 far.csv >short.csv
run "$SCFW" run pf.json --start short.csv
expect_rc 2 "a short start"
expect_stderr "error: short.csv: the start has 2 coordinates, the problem has d = 4" "a short start"
printf 'kind,name,value\nx,asset 1,nan\nx,asset 2,0\nx,asset 3,1\nx,VaR,0\n' >nan.csv
run "$SCFW" run pf.json --start nan.csv
expect_rc 2 "a start with a NaN"
expect_stderr "error: nan.csv: coordinate 1 (asset 1) is not a finite number" "a start with a NaN"
# "start" and "output" in the file: the start relative to the file's folder.
mkdir -p sub && cp out/sol.csv sub/start.csv
python3 - <<'PY'
import json
d = json.load(open("pf.json"))
d["start"] = "start.csv"
d["output"] = {"solution": "from_file.json", "summary_json": "from_file_summary.json"}
json.dump(d, open("sub/pf.json", "w"))
PY
run "$SCFW" run sub/pf.json --trace d.csv --quiet
expect_rc 0 "\"start\" and \"output\" in the file"
diff <(cut -d, -f1-4,6- a.csv) <(cut -d, -f1-4,6- d.csv) >/dev/null || fail "\"start\" in the file differs from --start"
[[ -f from_file.json && -f from_file_summary.json ]] || fail "\"output\" in the file: no files written"

# LIBSVM data: x is named by the 1-based feature indices, f by the tasks; the objective of the
# max outer function is the largest f.
printf '1 1:0.5 3:1\n-1 2:1 3:-0.5\n1 1:1 2:0.25\n-1 3:2\n1 1:-1 2:1 3:0.5\n-1 2:-1\n' >tiny.svm
cat >ls.json <<'JSON'
{ "iterations": 10, "report": { "every": 5 },
  "oracle": { "plugin": "least_squares_tasks", "file": "tiny.svm", "tasks": 2 },
  "outer": { "plugin": "max" }, "domain": { "plugin": "l1_ball", "radius": 1 },
  "output": { "solution": "ls_sol.csv" } }
JSON
run "$SCFW" run ls.json --quiet
expect_rc 0 "LIBSVM solution"
[[ "$(cut -d, -f1,2 ls_sol.csv | paste -sd' ')" == "kind,name objective, x,feature 1 x,feature 2 x,feature 3 f,task 1 f,task 2" ]] ||
  fail "LIBSVM solution: $(cat ls_sol.csv)"
[[ "$(sed -n 's/^objective,,//p' ls_sol.csv)" == "$(grep '^f,' ls_sol.csv | cut -d, -f3 | sort -g | tail -n1)" ]] ||
  fail "LIBSVM solution: the objective is not the largest f: $(cat ls_sol.csv)"
python3 -c "import json; d = json.load(open('ls.json')); d['output'] = {'solutoin': 'x.csv'}; json.dump(d, open('typo.json', 'w'))"
run "$SCFW" run typo.json
expect_rc 2 "a typo in \"output\""
expect_stderr 'error: typo.json: /output/solutoin: unknown parameter of output; did you mean "solution"?' "a typo in \"output\""

# A matrix domain: the JSON solution has the shape and the rows x cols grid.
cat >mc.json <<'JSON'
{ "seed": 1, "iterations": 5,
  "oracle": { "plugin": "matrix_completion", "groups": 5, "synthetic": { "rows": 6, "cols": 4 } },
  "outer": { "plugin": "norm", "p": "1" },
  "domain": { "plugin": "nuclear_ball", "rows": 6, "cols": 4, "radius": 5 } }
JSON
run "$SCFW" run mc.json --solution mc_sol.json --quiet
expect_rc 0 "matrix solution"
[[ "$(json mc_sol.json 'd["shape"], len(d["matrix"]), len(d["matrix"][0]), d["matrix"][1][2] == d["x"]["values"][6], d["x"]["names"][6]')" == "([6, 4], 6, 4, True, 'r2c3')" ]] ||
  fail "matrix solution: $(head -c 400 mc_sol.json)"
# The CSV says the shape in rows of its own, so that x reshapes to X with no other file.
run "$SCFW" run mc.json --solution mc_sol.csv --quiet
expect_rc 0 "matrix solution CSV"
[[ "$(sed -n 3,4p mc_sol.csv | paste -sd' ')" == "shape,rows,6 shape,cols,4" && "$(grep -c '^x,' mc_sol.csv)" == 24 ]] ||
  fail "matrix solution CSV: $(head -n 5 mc_sol.csv)"

# A gap tolerance with no gap report before the last iteration cannot stop the run.
write_problem p.json '{ "plugin": "max" }' 100 '{ "every": 0 }'
run "$SCFW" run p.json --gap-tolerance 1e-3
expect_rc 2 "--gap-tolerance without reports"
expect_stderr 'error: --gap-tolerance: a gap tolerance needs gap reports during the run, but "report": {"every"} is 0 with 100 iterations, so the gap is computed only after the last one; set "report": {"every": N} with N < 100' "--gap-tolerance without reports"

# Outputs that would destroy something are refused before the run: exit 2, one line.
write_problem q.json '{ "plugin": "max" }' 20 '{ "every": 5 }'
run "$SCFW" run q.json --trace /dev/full --quiet
expect_rc 2 "--trace /dev/full"
expect_stderr "error: /dev/full: is a character device, not a regular file: the trace cannot be written there" "--trace /dev/full"
run "$SCFW" run q.json --checkpoint /dev/null --quiet
expect_rc 2 "--checkpoint /dev/null"
expect_stderr "error: /dev/null: is a character device, not a regular file: the checkpoint cannot be written there" "--checkpoint /dev/null"
mkfifo pipe
run "$SCFW" run q.json --summary-json pipe --quiet
expect_rc 2 "--summary-json FIFO"
expect_stderr "error: pipe: is a FIFO, not a regular file: the summary cannot be written there" "--summary-json FIFO"
run "$SCFW" run q.json --solution ./q.json --quiet
expect_rc 2 "--solution onto the problem"
expect_stderr "error: ./q.json: the solution would overwrite the problem file, an input of this run" "--solution onto the problem"
run "$SCFW" run q.json --trace same.csv --solution same.csv --quiet
expect_rc 2 "trace and solution on one path"
expect_stderr "error: same.csv: the trace and the solution name the same file; give each its own" "trace and solution on one path"
[[ ! -e same.csv && "$(cat q.json | head -c 1)" == "{" ]] || fail "a refused run wrote something"

# Inputs that are not regular files are refused before a byte is read (/dev/zero would never end).
run "$SCFW" run q.json --resume /dev/zero --quiet
expect_rc 2 "--resume /dev/zero"
expect_stderr "error: /dev/zero: is not a regular file (a character device)" "--resume /dev/zero"
run "$SCFW" run q.json --start pipe --quiet
expect_rc 2 "--start FIFO"
expect_stderr "error: pipe: is not a regular file (a FIFO)" "--start FIFO"

# A write that fails (here a file-size limit, as a full disk): exit 1, one line naming the file,
# and the previous file is kept whole.
sed 's/"dim": 20/"dim": 200/' q.json >wide.json
run "$SCFW" run wide.json --solution kept.csv --quiet
expect_rc 0 "a first solution"
cp kept.csv kept.before
[[ $(stat -c %s kept.csv) -gt 1024 ]] || fail "the solution is too small to test a 1 KiB limit"
run bash -c "trap '' XFSZ; ulimit -f 1; exec \"\$0\" run q.json --trace big.csv --iterations 2000 --quiet" "$SCFW"
expect_rc 1 "a trace beyond the file size limit"
expect_stderr "error: big.csv: cannot write the trace file (File too large)" "a trace beyond the file size limit"
run bash -c "trap '' XFSZ; ulimit -f 1; exec \"\$0\" run wide.json --solution kept.csv --quiet" "$SCFW"
expect_rc 1 "a solution beyond the file size limit"
expect_stderr "error: kept.csv: cannot write the solution file (File too large)" "a solution beyond the file size limit"
cmp -s kept.csv kept.before || fail "the previous solution was not kept whole"
[[ ! -e big.csv && -z "$(find . -name '.big.csv.*' -o -name '.kept.csv.*')" ]] || fail "a partial output or a temporary was left"

# --progress off a terminal: plain lines, the first after the first iteration with a tiny interval.
run "$SCFW" run q.json --progress 1e-9 --quiet
expect_rc 0 "--progress"
[[ "$(head -n1 <<<"$ERR")" == "progress: iteration 1/20 (5%), elapsed 0s, ETA 0s" ]] || fail "--progress: $ERR"
[[ "$(tail -n1 <<<"$ERR")" == "progress: iteration 20/20 (100%), objective "*", gap "*", elapsed 0s" ]] || fail "--progress: $ERR"
run "$SCFW" run q.json --progress 0
expect_rc 2 "--progress 0"

# SIGTERM and SIGHUP end a run like Ctrl-C: summary, solution, the final point in the trace,
# exit 128 + the signal.
write_problem long.json '{ "plugin": "max" }' 100000000 '{ "every": 20 }'
for sig in TERM HUP; do
  "$SCFW" run long.json --trace long_$sig.csv --solution long_$sig.csv.sol.csv >long.out 2>long.err &
  pid=$!
  for _ in $(seq 1 300); do
    [[ -f long_$sig.csv && $(wc -l <long_$sig.csv) -ge 3 ]] && break
    sleep 0.1
  done
  kill -$sig "$pid"
  set +e
  wait "$pid"
  rc=$?
  set -e
  expected=$((128 + $(kill -l $sig)))
  [[ $rc == "$expected" ]] || fail "SIG$sig: exit code $rc, expected $expected; stderr: $(cat long.err)"
  grep -q "^status          interrupted" long.out || fail "SIG$sig: the summary does not say interrupted: $(cat long.out)"
  [[ "$(cat long.err)" == "scfw: interrupted by SIG$sig" ]] || fail "SIG$sig: stderr $(cat long.err)"
  k=$(sed -n 's/.* after \([0-9]*\) of 100000000 iterations.*/\1/p' long.out)
  last=$(tail -n1 long_$sig.csv)
  [[ "${last%%,*}" == "$k" ]] || fail "SIG$sig: the trace ends at '$last', the run at iteration $k"
  [[ "$(cut -d, -f3 <<<"$last")" != "" ]] || fail "SIG$sig: the final point has no gap: $last"
  [[ "$(grep -c '^x,' long_$sig.csv.sol.csv)" == 20 ]] || fail "SIG$sig: no solution written"
done

# compare: a JSON summary per run in summaries/, and off a terminal one progress line per run.
cat >ex.json <<'JSON'
{ "name": "tiny", "oracle": { "plugin": "portfolio_returns", "groups": 4, "synthetic": { "assets": 3, "days": 40 } },
  "outer": { "plugin": "cvar_ru", "alpha": 0.9 }, "domain": { "plugin": "simplex_interval", "lower": -1, "upper": 1 },
  "methods": [ { "label": "I", "tracker": { "plugin": "momentum" }, "schedule": { "plugin": "nonconvex" } } ],
  "seeds": 2, "iterations": [20, 40], "report": { "points": 4 } }
JSON
run "$SCFW" compare ex.json --out cmp --jobs 1 --no-plots
expect_rc 0 "compare"
[[ "$(ls cmp/summaries | paste -sd' ')" == "I-K20-seed1.json I-K20-seed2.json I-K40-seed1.json I-K40-seed2.json" ]] ||
  fail "compare: summaries $(ls cmp/summaries)"
[[ "$(json cmp/summaries/I-K40-seed2.json 'd["status"], d["iterations"], d["seed"]')" == "('iteration_limit', 40, 2)" ]] ||
  fail "compare: $(cat cmp/summaries/I-K40-seed2.json)"
[[ $(grep -c '^compare: [1-4]/4 runs done, .* elapsed, ETA ' <<<"$ERR") == 4 ]] || fail "compare progress: $ERR"
[[ ! -e cmp/solutions ]] || fail "compare kept solutions without --solutions"
# --solutions keeps each run's y_K: the solution CSV of scfw run, whose objective is the summary's.
run "$SCFW" compare ex.json --out cmp2 --jobs 2 --no-plots -q --solutions
expect_rc 0 "compare --solutions"
[[ "$(ls cmp2/solutions | paste -sd' ')" == "I-K20-seed1.csv I-K20-seed2.csv I-K40-seed1.csv I-K40-seed2.csv" ]] ||
  fail "compare --solutions: $(ls cmp2/solutions)"
[[ "$(grep -c '^x,' cmp2/solutions/I-K40-seed2.csv)" == 4 ]] || fail "compare --solutions: $(cat cmp2/solutions/I-K40-seed2.csv)"
objective=$(sed -n 's/^objective,,//p' cmp2/solutions/I-K40-seed2.csv)
[[ "$(json cmp2/summaries/I-K40-seed2.json "d['objective'] == float('$objective')")" == True ]] ||
  fail "compare --solutions: the objective $objective is not the summary's $(json cmp2/summaries/I-K40-seed2.json 'd["objective"]')"

echo "cli_outputs: ok"
