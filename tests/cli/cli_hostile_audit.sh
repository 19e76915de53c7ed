#!/usr/bin/env bash
# Issue #12 (hostile inputs), the bullets that no other command-line test reproduces through the
# app: each case is the issue's own input, checked for its exit code and its exact stderr line.
# docs/journal/reliability-history.md, "Issue #12, bullet by bullet", maps every bullet of the issue to the test
# that covers it (this script, cli_input_errors, cli_memory, cli_outputs, cli_plugins, cli_mpi, the
# doctest suites).
SCFW=$1
source "$(dirname "$0")/lib.sh"

# A problem of least_squares_tasks over an l1 ball with the given oracle and domain blocks.
# problem FILE ORACLE_BLOCK [DOMAIN_BLOCK] [GLMO_BLOCK]
problem() {
  local domain='{ "plugin": "l1_ball", "radius": 1 }' glmo='{ "plugin": "clp" }'
  if [[ $# -ge 3 ]]; then domain=$3; fi
  if [[ $# -ge 4 ]]; then glmo=$4; fi
  cat >"$1" <<JSON
{ "seed": 1, "iterations": 20,
  "oracle": $2,
  "outer": { "plugin": "max" },
  "domain": $domain,
  "glmo": $glmo,
  "report": { "every": 10 } }
JSON
}
SYNTH='{ "plugin": "least_squares_tasks", "synthetic": { "tasks": 2, "dim": 4, "rows_per_task": 5, "sparsity": 2 } }'

# --- Crashes: nesting 55 000 levels deep inside a value, and in an unknown key's object ----------
python3 -c "print('{\"seed\": ' + '[' * 55000 + ']' * 55000 + '}')" >deep_value.json
check "55 000 levels in a value" 2 \
  "error: deep_value.json: /seed/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/...: objects and arrays nested deeper than 256 levels" \
  "$SCFW" validate deep_value.json
python3 -c "print('{\"outer\": {\"plugin\": \"max\", \"junk\": ' + '{\"a\": ' * 55000 + '1' + '}' * 55000 + '}}')" >deep_key.json
check "55 000 levels in an unknown key" 2 \
  "error: deep_key.json: /outer/junk/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/...: objects and arrays nested deeper than 256 levels" \
  "$SCFW" validate deep_key.json

# --- Silent success: integers that do not fit an int are refused, never truncated ---------------
problem batch0.json '{ "plugin": "least_squares_tasks", "batch": 4294967296, "synthetic": { "tasks": 2, "dim": 4, "rows_per_task": 5, "sparsity": 2 } }'
check "batch 2^32 (ran as 0)" 2 \
  "error: batch0.json: /oracle/batch: expected an integer <= 2147483647 (it is read as an int), got 4294967296" \
  "$SCFW" validate batch0.json
problem product_dim.json "$SYNTH" \
  '{ "plugin": "product", "factors": [ { "plugin": "simplex", "dim": 4294967297 }, { "plugin": "box", "dim": 1 } ] }'
check "a product factor's dim 2^32 + 1 (ran as 1)" 2 \
  "error: product_dim.json: /domain/factors/0/dim: expected an integer <= 2147483647 (it is read as an int), got 4294967297" \
  "$SCFW" validate product_dim.json
printf '1 1:1 2:1\n-1 3:1 4:0.5\n' >four.svm
problem features.json '{ "plugin": "least_squares_tasks", "file": "four.svm", "tasks": 2, "features": 4294967300 }'
check "features 2^32 + 4 (ran as 4)" 2 \
  "error: features.json: /oracle/features: expected an integer <= 2147483647 (it is read as an int), got 4294967300" \
  "$SCFW" validate features.json
problem atoms.json "$SYNTH" '{ "plugin": "l1_ball", "radius": 1 }' '{ "plugin": "column_generation", "max_atoms": 4294967297 }'
check "max_atoms 2^32 + 1 (ran as 1)" 2 \
  "error: atoms.json: /glmo/max_atoms: expected an integer <= 2147483647 (it is read as an int), got 4294967297" \
  "$SCFW" validate atoms.json

# --- Silent success: non-finite data are refused with file and line ------------------------------
printf 'date,A,B\nd1,1,1e-300\nd2,2,1e300\nd3,3,1\n' >overflow.csv
problem overflow.json '{ "plugin": "portfolio_returns", "file": "overflow.csv", "groups": 1 }' \
  '{ "plugin": "box", "lower": -1, "upper": 1 }'
check "a price CSV whose returns overflow" 2 \
  "error: overflow.csv:3: column 3 (B): the return p_t / p_{t-1} - 1 overflows (1e+300 after 1e-300)" \
  "$SCFW" validate overflow.json
problem drift.json '{ "plugin": "portfolio_returns", "groups": 1, "synthetic": { "assets": 2, "days": 5, "drift": 1e308 } }' \
  '{ "plugin": "box", "lower": -1, "upper": 1 }'
check "synthetic.drift 1e308" 2 \
  "error: drift.json: /oracle/synthetic/drift: the returns of asset 1 overflow: their sum over days 1..2 is not finite" \
  "$SCFW" validate drift.json
printf '1 1:1\n-1 1:1e400\n' >inf.svm
problem inf.json '{ "plugin": "least_squares_tasks", "file": "inf.svm", "tasks": 1 }'
check "a LIBSVM value 1e400" 2 "error: inf.svm:2: the value is not a finite number: \"1:1e400\"" "$SCFW" validate inf.json

# --- Silent success: compare labels that name the same trace files, or a file name --------------
cat >labels.json <<'JSON'
{ "name": "e",
  "oracle": { "plugin": "least_squares_tasks", "synthetic": { "tasks": 2, "dim": 4, "rows_per_task": 5, "sparsity": 2 } },
  "outer": { "plugin": "max" }, "domain": { "plugin": "l1_ball" },
  "methods": [ { "label": "a b", "tracker": { "plugin": "momentum" }, "schedule": { "plugin": "nonconvex" } },
               { "label": "a_b", "tracker": { "plugin": "momentum" }, "schedule": { "plugin": "nonconvex" } } ],
  "iterations": [10], "seeds": 1 }
JSON
check "compare labels naming the same files" 2 \
  "error: labels.json: /methods/1/label: label \"a_b\" names the same trace files (traces/a_b-K...csv) as /methods/0/label \"a b\"; file names keep a label's letters, digits, '-' and '.', anything else becomes '_'" \
  "$SCFW" compare labels.json --check --out out --jobs 2
sed 's|"label": "a b"|"label": "a/b"|' labels.json >slash.json
check "a compare label with a slash" 2 \
  "error: slash.json: /methods/0/label: label \"a/b\": a label cannot contain '/', '\\', quotes or control characters (it names trace files and is written into CSV files and plot scripts)" \
  "$SCFW" compare slash.json --check --out out --jobs 2
[[ ! -e out ]] || fail "compare --check wrote $(ls -R out)"

# --- No location: a data path that is a folder, a 10 MB token --------------------------------------
mkdir -p folder
for oracle in least_squares_tasks portfolio_returns matrix_completion; do
  extra=', "tasks": 1'
  [[ $oracle == least_squares_tasks ]] || extra=', "groups": 1'
  problem "dir_$oracle.json" "{ \"plugin\": \"$oracle\", \"file\": \"folder\"$extra }" '{ "plugin": "box", "lower": -1, "upper": 1 }'
  check "$oracle: a data path that is a folder" 2 "error: folder: is a directory" "$SCFW" validate "dir_$oracle.json"
done
problem dir_polytope.json "$SYNTH" '{ "plugin": "polytope", "file": "folder" }'
check "polytope: a data path that is a folder" 2 "error: folder: is a directory" "$SCFW" validate dir_polytope.json
python3 -c "print('1 1:' + '7' * 10000000 + 'x')" >token.svm
problem token.json '{ "plugin": "least_squares_tasks", "file": "token.svm", "tasks": 1 }'
check "a 10 MB token" 2 "error: token.svm:1: expected index:value, got \"1:$(printf '7%.0s' {1..38})... (10000003 bytes)\"" \
  "$SCFW" validate token.json

echo "cli_hostile_audit: ok"
