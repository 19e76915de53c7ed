#!/usr/bin/env bash
# Bad input ends with exactly one line "error: <where>: <what>" on stderr and exit code 2.
SCFW=$1
source "$(dirname "$0")/lib.sh"

run "$SCFW" run missing.json
expect_rc 2 "missing file"
expect_stderr "error: missing.json: cannot open file" "missing file"

# Malformed JSON: the parser's line and column (line 3, the ',' in column 17).
printf '{\n  "seed": 1,\n  "iterations": ,\n  "outer": { "plugin": "max" }\n}\n' >malformed.json
run "$SCFW" run malformed.json
expect_rc 2 "malformed JSON"
expect_stderr "error: malformed.json: line 3, column 17: syntax error while parsing value - unexpected ','; expected '[', '{', or a literal" "malformed JSON"
run "$SCFW" validate malformed.json
expect_rc 2 "validate malformed JSON"

# A number a double cannot hold: located by line and column, exit 2 (not the parser's exception).
printf '{\n  "seed": 1,\n  "iterations": 1e400,\n  "outer": { "plugin": "max" }\n}\n' >overflow.json
run "$SCFW" validate overflow.json
expect_rc 2 "number overflow"
expect_stderr "error: overflow.json: line 3, column 21: number overflow parsing '1e400'" "number overflow"

# A key given twice in one object is refused at its pointer, not silently replaced.
printf '{ "domain": { "plugin": "l1_ball", "radius": -1, "radius": 5 } }\n' >twice.json
run "$SCFW" validate twice.json
expect_rc 2 "duplicate key"
expect_stderr "error: twice.json: /domain/radius: duplicate key (a JSON object names each key once)" "duplicate key"

# Nesting is limited at parse time (a document nested 50000 levels deep would exhaust the stack of
# whatever walks it), with a shortened pointer.
python3 -c "print('{\"seed\": ' + '[' * 50000 + ']' * 50000 + '}')" >deep.json
run "$SCFW" validate deep.json
expect_rc 2 "deep nesting"
expect_stderr "error: deep.json: /seed/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/...: objects and arrays nested deeper than 256 levels" "deep nesting"

# A parameter out of its declared range.
write_problem ok.json '{ "plugin": "max" }'
sed 's/"radius": 2/"radius": -1/' ok.json >bad_radius.json
run "$SCFW" run bad_radius.json
expect_rc 2 "radius out of range"
expect_stderr "error: bad_radius.json: /domain/radius: expected a number > 0, got -1" "radius out of range"
[[ -z "$OUT" ]] || fail "radius out of range: stdout should be empty, got: $OUT"

# An integer that does not fit the plugin's int is refused, never truncated: 2^32 + 1 would
# otherwise run as batch 1.
sed 's/"batch": 1/"batch": 4294967297/' ok.json >big_batch.json
grep -q '"batch": 4294967297' big_batch.json || fail "big batch: the sed did not apply"
run "$SCFW" run big_batch.json
expect_rc 2 "batch out of int range"
expect_stderr "error: big_batch.json: /oracle/batch: expected an integer <= 2147483647 (it is read as an int), got 4294967297" "batch out of int range"
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
run "$SCFW" run ok.json --trace /dev/null/trace.csv
expect_rc 2 "unwritable trace"
expect_stderr "error: /dev/null/trace.csv: cannot write trace file" "unwritable trace"

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
grep -Eq '^ +radius +number +1 +\(0, inf\) +radius' <<<"$OUT" || fail "describe l1_ball: no radius row in:
$OUT"
# Hostile inputs (issue #12): a problem path that is a folder or a device, a file over 64 MiB,
# a price CSV without its header row, and compare --check with an output folder that cannot be
# created (nothing is left behind).
mkdir -p adir
run "$SCFW" validate adir
expect_rc 2 "validate a folder"
expect_stderr "error: adir: is a directory" "validate a folder"
run "$SCFW" validate /dev/zero
expect_rc 2 "validate /dev/zero"
expect_stderr "error: /dev/zero: is not a regular file (a character device)" "validate /dev/zero"
truncate -s 67108865 big.json
run "$SCFW" validate big.json
expect_rc 2 "validate a 64 MiB + 1 file"
expect_stderr "error: big.json: the file has 67108865 bytes; problem and experiment files are limited to 67108864 bytes (64 MiB): put large data in a data file the plugin reads" "validate a 64 MiB + 1 file"
printf '2020-01-02,101.5,20\n2020-01-03,102,21\n2020-01-06,103,22\n' >headless.csv
cat >prices.json <<'JSON'
{ "oracle": { "plugin": "portfolio_returns", "file": "headless.csv", "groups": 1 },
  "outer": { "plugin": "cvar_ru", "alpha": 0.9 }, "domain": { "plugin": "simplex" } }
JSON
run "$SCFW" validate prices.json
expect_rc 2 "a price CSV without its header"
expect_stderr "error: headless.csv:1: expected a header row date,<asset>,..., got a row of numbers (\"2020-01-02,101.5,20\")" "a price CSV without its header"
cat >exp.json <<'JSON'
{ "name": "e", "out": "blocker/out",
  "oracle": { "plugin": "least_squares_tasks", "synthetic": { "tasks": 2, "dim": 12, "rows_per_task": 10 } },
  "outer": { "plugin": "max" }, "domain": { "plugin": "l1_ball" },
  "methods": [ { "label": "m", "tracker": { "plugin": "momentum" }, "schedule": { "plugin": "nonconvex" } } ],
  "iterations": [10], "seeds": 1 }
JSON
echo x >blocker
run "$SCFW" compare exp.json --check
expect_rc 2 "compare --check, a file in the way"
expect_stderr "error: blocker/out: cannot create the output folder ($PWD/blocker is not a folder)" "compare --check, a file in the way"
rm blocker
before=$(ls -A | sort)
run "$SCFW" compare exp.json --check --out fresh/folder
expect_rc 0 "compare --check, a folder that can be made"
[[ "$(ls -A | sort)" == "$before" ]] || fail "compare --check left something behind: $(ls -A)"
echo "cli_input_errors: ok"
