#!/usr/bin/env bash
# Bad input ends with exactly one line "error: <where>: <what>" on stderr and exit code 2.
SCFW=$1
source "$(dirname "$0")/lib.sh"

check "missing file" 2 "error: missing.json: cannot open file (No such file or directory)" "$SCFW" run missing.json

# Malformed JSON: the parser's line and column (line 3, the ',' in column 17).
printf '{\n  "seed": 1,\n  "iterations": ,\n  "outer": { "plugin": "max" }\n}\n' >malformed.json
check "malformed JSON" 2 "error: malformed.json: line 3, column 17: syntax error while parsing value - unexpected ','; expected '[', '{', or a literal" "$SCFW" run malformed.json
run "$SCFW" validate malformed.json
expect_rc 2 "validate malformed JSON"

# A number a double cannot hold: located by line and column, exit 2 (not the parser's exception).
printf '{\n  "seed": 1,\n  "iterations": 1e400,\n  "outer": { "plugin": "max" }\n}\n' >overflow.json
check "number overflow" 2 "error: overflow.json: line 3, column 21: number overflow parsing '1e400'" "$SCFW" validate overflow.json

# A key given twice in one object is refused at its pointer, not silently replaced.
printf '{ "domain": { "plugin": "l1_ball", "radius": -1, "radius": 5 } }\n' >twice.json
check "duplicate key" 2 "error: twice.json: /domain/radius: duplicate key (a JSON object names each key once)" "$SCFW" validate twice.json

# Nesting is limited at parse time (a document nested 50000 levels deep would exhaust the stack of
# whatever walks it), with a shortened pointer.
python3 -c "print('{\"seed\": ' + '[' * 50000 + ']' * 50000 + '}')" >deep.json
check "deep nesting" 2 "error: deep.json: /seed/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/...: objects and arrays nested deeper than 256 levels" "$SCFW" validate deep.json

# A parameter out of its declared range.
write_problem ok.json '{ "plugin": "max" }'
sed 's/"radius": 2/"radius": -1/' ok.json >bad_radius.json
check "radius out of range" 2 "error: bad_radius.json: /domain/radius: expected a number in (0, 1e10], got -1" "$SCFW" run bad_radius.json
[[ -z "$OUT" ]] || fail "radius out of range: stdout should be empty, got: $OUT"

# An integer that does not fit the plugin's int is refused, never truncated: 2^32 + 1 would
# otherwise run as batch 1.
sed 's/"batch": 1/"batch": 4294967297/' ok.json >big_batch.json
grep -q '"batch": 4294967297' big_batch.json || fail "big batch: the sed did not apply"
check "batch out of int range" 2 "error: big_batch.json: /oracle/batch: expected an integer <= 2147483647 (it is read as an int), got 4294967297" "$SCFW" run big_batch.json
[[ -z "$OUT" ]] || fail "batch out of int range: stdout should be empty, got: $OUT"

# An unknown plugin name, with the closest one.
write_problem typo.json '{ "plugin": "maxx" }'
run "$SCFW" validate typo.json
expect_rc 2 "unknown plugin"
expect_contains "$ERR" 'error: typo.json: /outer/plugin: unknown outer plugin "maxx"; closest: "max"' "unknown plugin"
[[ $(wc -l <<<"$ERR") == 1 ]] || fail "unknown plugin: expected one stderr line, got: $ERR"

# An override out of range.
run "$SCFW" run ok.json --iterations 0
expect_rc 2 "--iterations 0"

# A trace that cannot be written.
check "unwritable trace" 2 "error: /dev/null/trace.csv: cannot write the trace file (Not a directory)" "$SCFW" run ok.json --trace /dev/null/trace.csv

# validate: the composed problem in one line, then what a run will hold (docs/memory.md).
run "$SCFW" validate --memory-limit 1GiB ok.json
expect_rc 0 "validate"
[[ "$OUT" == "ok.json: ok (oracle least_squares_tasks d=20 n=4, outer max, domain l1_ball, glmo clp, tracker momentum, schedule nonconvex)
memory: about 61.9 KiB held by the run (limit 1.0 GiB)" ]] ||
  fail "validate printed: $OUT"
[[ -z "$ERR" ]] || fail "validate: unexpected stderr: $ERR"

# describe: unknown names get the closest ones; known ones their parameters.
run "$SCFW" describe l1ball
expect_rc 2 "describe unknown"
expect_contains "$ERR" 'error: unknown plugin "l1ball"; did you mean "l1_ball"' "describe unknown"
run "$SCFW" describe l1_ball
expect_rc 0 "describe l1_ball"
expect_contains "$OUT" "l1_ball (domain" "describe l1_ball"
grep -Eq '^ +radius +number +1 +\(0, 1e10\] +radius' <<<"$OUT" || fail "describe l1_ball: no radius row in:
$OUT"
# product is composed by the host, not a plugin: describe still answers, with its one parameter.
run "$SCFW" describe product
expect_rc 0 "describe product"
expect_contains "$OUT" 'product (domain, JSON block "domain")' "describe product"
grep -Eq '^ +factors +array +- +length >= 1 +the factor domains' <<<"$OUT" || fail "describe product: no factors row in:
$OUT"
# Hostile inputs (issue #12): a problem path that is a folder or a device, a file over 64 MiB,
# a price CSV without its header row, and compare --check with an output folder that cannot be
# created (nothing is left behind).
mkdir -p adir
check "validate a folder" 2 "error: adir: is a directory" "$SCFW" validate adir
check "validate /dev/zero" 2 "error: /dev/zero: is not a regular file (a character device)" "$SCFW" validate /dev/zero
truncate -s 67108865 big.json
check "validate a 64 MiB + 1 file" 2 "error: big.json: the file has 67108865 bytes; problem and experiment files are limited to 67108864 bytes (64 MiB): put large data in a data file the plugin reads" "$SCFW" validate big.json
printf '2020-01-02,101.5,20\n2020-01-03,102,21\n2020-01-06,103,22\n' >headless.csv
cat >prices.json <<'JSON'
{ "oracle": { "plugin": "portfolio_returns", "file": "headless.csv", "groups": 1 },
  "outer": { "plugin": "cvar_ru", "alpha": 0.9 }, "domain": { "plugin": "simplex" } }
JSON
check "a price CSV without its header" 2 "error: headless.csv:1: expected a header row date,<asset>,..., got a row of numbers (\"2020-01-02,101.5,20\")" "$SCFW" validate prices.json
# A file that cannot be opened: the message says why, in the system's words (each data reader,
# the problem file, --start, --resume; a name longer than the file system allows).
cat >no_prices.json <<'JSON'
{ "oracle": { "plugin": "portfolio_returns", "file": "nope.csv", "groups": 1 },
  "outer": { "plugin": "cvar_ru", "alpha": 0.9 }, "domain": { "plugin": "simplex" } }
JSON
cat >no_svm.json <<'JSON'
{ "oracle": { "plugin": "least_squares_tasks", "file": "nope.svm", "tasks": 2 },
  "outer": { "plugin": "max" }, "domain": { "plugin": "l1_ball" } }
JSON
cat >no_ratings.json <<'JSON'
{ "oracle": { "plugin": "matrix_completion", "file": "nope.data", "rows": 4, "cols": 3, "groups": 2 },
  "outer": { "plugin": "norm" }, "domain": { "plugin": "nuclear_ball", "rows": 4, "cols": 3 } }
JSON
cat >no_polytope.json <<'JSON'
{ "oracle": { "plugin": "least_squares_tasks", "synthetic": { "tasks": 2, "dim": 3, "rows_per_task": 10, "sparsity": 3 } },
  "outer": { "plugin": "max" }, "domain": { "plugin": "polytope", "file": "nope.csv" } }
JSON
# A data file that is not there: the problem file and pointer, the folder looked in (relative
# paths resolve against the problem file's folder, not the current one) and a near name in it.
here=$(pwd -P)
for f in no_prices:/oracle:nope.csv no_svm:/oracle:nope.svm no_ratings:/oracle:nope.data no_polytope:/domain:nope.csv; do
  IFS=: read -r name pointer file <<<"$f"
  check "$name" 2 "error: $name.json: $pointer/file: no file '$file' in $here" "$SCFW" validate "$name.json"
done
mkdir -p data sub
printf '1 1:1\n-1 2:1\n' >data/a9a.txt
cat >sub/near.json <<'JSON'
{ "oracle": { "plugin": "grouped_logistic", "file": "../data/a9a.tx", "batch": 1 },
  "outer": { "plugin": "max" }, "domain": { "plugin": "l1_ball" } }
JSON
check "a data file with a near name" 2 "error: sub/near.json: /oracle/file: no file 'a9a.tx' in $here/data (did you mean 'a9a.txt'?)" "$SCFW" validate sub/near.json
sed 's|"../data/a9a.tx"|"data/a9a.txt"|' sub/near.json >sub/no_folder.json
check "a data file in a missing folder" 2 "error: sub/no_folder.json: /oracle/file: no folder $here/sub/data (the file 'data/a9a.txt' resolved against $here/sub)" "$SCFW" validate sub/no_folder.json
cat >no_task_file.json <<'JSON'
{ "oracle": { "plugin": "least_squares_tasks", "files": "data/a9a.txt, data/A9A.tx" },
  "outer": { "plugin": "max" }, "domain": { "plugin": "l1_ball" } }
JSON
check "a missing file in a list of data files" 2 "error: no_task_file.json: /oracle/files: no file 'A9A.tx' in $here/data (did you mean 'a9a.txt'?)" "$SCFW" validate no_task_file.json
long=$(printf 'n%.0s' {1..300}).json
check "a 304-byte file name" 2 "error: $long: cannot open file (File name too long)" "$SCFW" validate "$long"
check "--start, no such file" 2 "error: nope_start.csv: cannot open file (No such file or directory)" "$SCFW" run ok.json --start nope_start.csv
check "--resume, no such file" 2 "error: nope.ckpt: cannot open checkpoint (No such file or directory)" "$SCFW" run ok.json --resume nope.ckpt

cat >exp.json <<'JSON'
{ "name": "e", "out": "blocker/out",
  "oracle": { "plugin": "least_squares_tasks", "synthetic": { "tasks": 2, "dim": 12, "rows_per_task": 10 } },
  "outer": { "plugin": "max" }, "domain": { "plugin": "l1_ball" },
  "methods": [ { "label": "m", "tracker": { "plugin": "momentum" }, "schedule": { "plugin": "nonconvex" } } ],
  "iterations": [10], "seeds": 1 }
JSON
echo x >blocker
check "compare --check, a file in the way" 2 "error: blocker/out: cannot create the output folder ($PWD/blocker is not a folder)" "$SCFW" compare exp.json --check
rm blocker
before=$(ls -A | sort)
run "$SCFW" compare exp.json --check --out fresh/folder
expect_rc 0 "compare --check, a folder that can be made"
[[ "$(ls -A | sort)" == "$before" ]] || fail "compare --check left something behind: $(ls -A)"

# Issue #12, numbers that reach a solver: values that made Clp abort the process (Assertion
# fabs(obj[i]) < 1.0e25) or failed at iteration 1 are refused by `validate`, one line, exit 2.
hostile() {  # hostile NAME OUTER_BLOCK DOMAIN_BLOCK EXPECTED_STDERR
  write_problem "$1.json" "$2"
  sed -i "s|\"domain\": { \"plugin\": \"l1_ball\", \"radius\": 2 }|\"domain\": $3|" "$1.json"
  grep -qF "\"domain\": $3" "$1.json" || fail "$1: the sed did not apply"
  check "$1" 2 "$4" "$SCFW" validate "$1.json"
  [[ -z "$OUT" ]] || fail "$1: stdout should be empty, got: $OUT"
}
L1='{ "plugin": "l1_ball", "radius": 2 }'
hostile cvar_alpha '{ "plugin": "cvar", "alpha": 1e-300 }' "$L1" \
  "error: cvar_alpha.json: /outer/alpha: expected a number in [1e-6, 1), got 1e-300"
hostile penalty_lambda '{ "plugin": "penalty", "lambda": 1e308 }' "$L1" \
  "error: penalty_lambda.json: /outer/lambda: expected a number in (0, 1e8], got 1e+308"
hostile dro_rho '{ "plugin": "dro_chi2", "rho": 1e308 }' "$L1" \
  "error: dro_rho.json: /outer/rho: expected a number in (0, 1e6], got 1e+308"
hostile regularized_c '{ "plugin": "regularized", "c": 1e308 }' "$L1" \
  "error: regularized_c.json: /outer/c: expected an array of numbers in [-1e8, 1e8], got 1e+308"
hostile l1_radius '{ "plugin": "max" }' '{ "plugin": "l1_ball", "radius": 1e308 }' \
  "error: l1_radius.json: /domain/radius: expected a number in (0, 1e10], got 1e+308"
hostile l2_radius '{ "plugin": "max" }' '{ "plugin": "l2_ball", "radius": 1e308 }' \
  "error: l2_radius.json: /domain/radius: expected a number in (0, 1e10], got 1e+308"
hostile box_lower '{ "plugin": "max" }' '{ "plugin": "box", "lower": -1e308, "upper": 1e308 }' \
  "error: box_lower.json: /domain/lower: expected an array of numbers in [-1e10, 1e10], got -1e+308"
# A numerical failure of Clp on an always-feasible LP (l1 ball, data entries ~1e10) is a run-time
# failure, exit 1, said to be numerical (it used to read "the GLMO LP is infeasible").
python3 -c "
import random
random.seed(1)
for i in range(60):
    print(random.choice([1, 2]), ' '.join('%d:%.6g' % (j, random.uniform(-1, 1) * 1e10) for j in range(1, 9)))
" >big.svm
cat >big.json <<'JSON'
{ "seed": 1, "iterations": 50,
  "oracle": { "plugin": "least_squares_tasks", "file": "big.svm", "tasks": 2, "batch": 1 },
  "outer": { "plugin": "max" }, "domain": { "plugin": "l1_ball", "radius": 5 },
  "glmo": { "plugin": "clp" }, "report": { "every": 10 } }
JSON
run "$SCFW" run big.json
expect_rc 1 "clp numerical failure"
expect_contains "$ERR" "error: iteration 1 (GLMO): clp: Clp declared the GLMO LP infeasible; over a nonempty domain, with an outer model feasible for every u (every shipped outer function's is), this is a numerical failure (the largest LP entry is " "clp numerical failure"
expect_contains "$ERR" " in magnitude); hint: scale the data so that f and its Jacobian are of moderate size, or shrink the domain" "clp numerical failure"
# An unknown key of 100 000 bytes (and a carriage return) is cut to 40 bytes in the pointer, and
# no did-you-mean is computed over it.
python3 -c "
import json
k = 'q' * 100000 + chr(13)
print(json.dumps({'oracle': {'plugin': 'least_squares_tasks', 'synthetic': {'tasks': 1, 'dim': 2, 'rows_per_task': 3, 'sparsity': 2}},
                  'outer': {'plugin': 'max', k: 1}, 'domain': {'plugin': 'l1_ball'}}))" >longkey.json
check "a 100 000-byte unknown key" 2 "error: longkey.json: /outer/qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq... (100001 bytes): unknown parameter of max; it takes no parameters" "$SCFW" validate longkey.json
# An experiment file given to `scfw run`: pointed to compare, not to a typo.
printf '{ "name": "e", "oracle": { "plugin": "least_squares_tasks" }, "outer": { "plugin": "max" },\n  "domain": { "plugin": "l1_ball" }, "methods": [ { "label": "a" } ], "seeds": [1] }\n' >experiment.json
check "an experiment file to run" 2 "error: experiment.json: /methods: an experiment file's key: \`scfw compare\` runs experiment files (scfw.compare in Python); \`scfw run\` takes a problem file, without \"methods\" or \"seeds\"" "$SCFW" run experiment.json
echo "cli_input_errors: ok"
