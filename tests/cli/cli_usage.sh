#!/usr/bin/env bash
# Command-line usage: help everywhere (exit 0), bad usage -> a usage message and exit 2.
SCFW=$1
source "$(dirname "$0")/lib.sh"

run "$SCFW"
expect_rc 2 "no command"
expect_contains "$ERR" "usage: scfw <command> [<args>]" "no command"

run "$SCFW" --help
expect_rc 0 "--help"
for c in "run FILE" "validate FILE" "plugins" "describe NAME"; do
  expect_contains "$OUT" "  $c" "--help lists the commands"
done

run "$SCFW" --version
expect_rc 0 "--version"
expect_contains "$OUT" "scfw " "--version"

for c in run validate plugins describe; do
  run "$SCFW" "$c" --help
  expect_rc 0 "$c --help"
  expect_contains "$OUT" "usage: scfw $c" "$c --help"
  expect_contains "$OUT" "--plugin-path" "$c --help"
  run "$SCFW" help "$c"
  expect_rc 0 "help $c"
  expect_contains "$OUT" "usage: scfw $c" "help $c"
done

run "$SCFW" rnu problem.json
expect_rc 2 "unknown command"
[[ "$(head -n1 <<<"$ERR")" == "scfw: unknown command 'rnu'; did you mean 'run'?" ]] ||
  fail "unknown command: first stderr line is '$(head -n1 <<<"$ERR")'"

run "$SCFW" run
expect_rc 2 "run without FILE"
[[ "$(head -n1 <<<"$ERR")" == "scfw run: missing FILE (the problem's JSON file)" ]] ||
  fail "run without FILE: first stderr line is '$(head -n1 <<<"$ERR")'"
expect_contains "$ERR" "usage: scfw run FILE [options]" "run without FILE"

run "$SCFW" run problem.json --bogus
expect_rc 2 "unknown option"
expect_contains "$ERR" "--bogus" "unknown option"
expect_contains "$ERR" "usage: scfw run FILE [options]" "unknown option"

run "$SCFW" run problem.json --iterations abc
expect_rc 2 "--iterations abc"
[[ "$(head -n1 <<<"$ERR")" == "scfw run: --iterations: expected an integer >= 1, got 'abc'" ]] ||
  fail "--iterations abc: first stderr line is '$(head -n1 <<<"$ERR")'"

# An argument holding control characters is shown with '?' for each, on one line.
run "$SCFW" run problem.json --iterations $'1\x7f\n2'
expect_rc 2 "--iterations with control characters"
[[ "$(head -n1 <<<"$ERR")" == "scfw run: --iterations: expected an integer >= 1, got '1??2'" ]] ||
  fail "--iterations with control characters: first stderr line is '$(head -n1 <<<"$ERR")'"
run "$SCFW" run problem.json $'--bo\x1bgus'
expect_rc 2 "an unknown option with an escape"
[[ "$(head -n1 <<<"$ERR")" == "scfw run: unrecognised option '--bo?gus'" ]] ||
  fail "an unknown option with an escape: first stderr line is '$(head -n1 <<<"$ERR")'"

# A file name given to an option, or the problem file's own name, with a control character: one
# line, the character shown as ?, exit 2, nothing written.
for opt in trace solution summary-json start checkpoint resume; do
  run "$SCFW" run problem.json --$opt $'o\nut.csv'
  expect_rc 2 "--$opt with a newline"
  [[ "$(head -n1 <<<"$ERR")" == "scfw run: --$opt: the file name holds a control character (shown as ?): 'o?ut.csv'" ]] ||
    fail "--$opt with a newline: first stderr line is '$(head -n1 <<<"$ERR")'"
  [[ ! -e $'o\nut.csv' ]] || fail "--$opt with a newline wrote the file"
done
run "$SCFW" compare experiment.json --check --out $'c\tmp'
expect_rc 2 "compare --out with a tab"
[[ "$(head -n1 <<<"$ERR")" == "scfw compare: --out: the file name holds a control character (shown as ?): 'c?mp'" ]] ||
  fail "compare --out with a tab: first stderr line is '$(head -n1 <<<"$ERR")'"
# --jobs outside [1, 4096]: the message states the range.
for jobs in 0 4097 two; do
  run "$SCFW" compare experiment.json --check --jobs $jobs
  expect_rc 2 "compare --jobs $jobs"
  [[ "$(head -n1 <<<"$ERR")" == "scfw compare: --jobs: expected an integer in [1, 4096], got '$jobs'" ]] ||
    fail "compare --jobs $jobs: first stderr line is '$(head -n1 <<<"$ERR")'"
done
run "$SCFW" validate $'pro\x7fblem.json'
expect_rc 2 "a problem file name with DEL"
[[ "$ERR" == "error: pro?blem.json: the file name holds a control character (shown as ?); rename the file" ]] ||
  fail "a problem file name with DEL: stderr is '$ERR'"

run "$SCFW" run problem.json --seed -1
expect_rc 2 "--seed -1"

run "$SCFW" validate a.json b.json
expect_rc 2 "two files"

run "$SCFW" describe
expect_rc 2 "describe without NAME"
echo "cli_usage: ok"
