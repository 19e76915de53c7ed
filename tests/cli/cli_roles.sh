#!/usr/bin/env bash
# Compositions that mean what they say (docs/reliability.md, "Compositions"): an auxiliary
# variable of the oracle that the outer function does not read, one the outer function reads
# but the oracle does not declare, one the domain ties to the other coordinates, and a matrix
# domain of another shape than the oracle's are refused with one located line and exit code 2.
SCFW=$1
source "$(dirname "$0")/lib.sh"

portfolio() {  # portfolio FILE ORACLE_EXTRA OUTER DOMAIN
  cat >"$1" <<JSON
{ "iterations": 50,
  "oracle": { "plugin": "portfolio_returns", "groups": 20, "synthetic": { "assets": 5, "days": 200 }$2 },
  "outer": $3,
  "domain": $4 }
JSON
}

# cvar over portfolio_returns' (w, y0): y0 acted as a riskless asset and took the weight.
portfolio cvar.json "" '{ "plugin": "cvar", "alpha": 0.05 }' '{ "plugin": "simplex" }'
run "$SCFW" validate cvar.json
expect_rc 2 "cvar over the threshold"
expect_stderr "error: cvar.json: /outer/plugin: oracle portfolio_returns's x[5] (\"VaR\") is the CVaR threshold y0 (the value at risk of the Rockafellar-Uryasev form), which outer function cvar does not read: it would be a coordinate of x with no meaning; use \"cvar_ru\", which reads it (its alpha is the confidence level: cvar's alpha 0.05 is cvar_ru's 0.95), or set \"threshold\": false in the oracle block for an outer function of the weights only" "cvar over the threshold"
# ... under simplex_interval too, which would have labelled the unread coordinate "VaR".
portfolio cvar_si.json "" '{ "plugin": "cvar", "alpha": 0.05 }' '{ "plugin": "simplex_interval" }'
run "$SCFW" validate cvar_si.json
expect_rc 2 "cvar under simplex_interval"
expect_contains "$ERR" "error: cvar_si.json: /outer/plugin: oracle portfolio_returns's x[5] (\"VaR\") is the CVaR threshold" "cvar under simplex_interval"

# What the message says to write: without the threshold, x = w and cvar is the whole problem.
portfolio weights.json ', "threshold": false' '{ "plugin": "cvar", "alpha": 0.05 }' '{ "plugin": "simplex" }'
run "$SCFW" run weights.json --solution weights.csv
expect_rc 0 "cvar over the weights only"
[[ $(grep -c '^x,' weights.csv) == 5 ]] || fail "cvar over the weights only: expected 5 weights in weights.csv: $(cat weights.csv)"
if grep -q VaR weights.csv; then fail "cvar over the weights only: a VaR row in weights.csv"; fi

# cvar_ru reading a model coordinate of an oracle without the threshold as y0.
cat >ls.json <<'JSON'
{ "oracle": { "plugin": "least_squares_tasks", "synthetic": { "tasks": 4, "dim": 6, "rows_per_task": 20, "sparsity": 3 } },
  "outer": { "plugin": "cvar_ru", "alpha": 0.9 },
  "domain": { "plugin": "box", "dim": 6, "lower": -1, "upper": 1 } }
JSON
run "$SCFW" validate ls.json
expect_rc 2 "cvar_ru over a model coordinate"
expect_stderr "error: ls.json: /outer/plugin: outer function cvar_ru reads x[5] as the CVaR threshold y0, but oracle least_squares_tasks declares no such variable (its x[5] is a coordinate of its model); use \"cvar\", the same CVaR with its threshold inside the outer function (its alpha is the tail fraction: cvar_ru's alpha 0.95 is cvar's 0.05)" "cvar_ru over a model coordinate"

# The threshold inside the simplex: y0 >= 0 and a share of the budget.
portfolio simplex.json "" '{ "plugin": "cvar_ru", "alpha": 0.95 }' '{ "plugin": "simplex" }'
run "$SCFW" validate simplex.json
expect_rc 2 "the threshold in the simplex"
expect_stderr "error: simplex.json: /domain/plugin: domain simplex ties x[5] (\"VaR\"), the CVaR threshold y0 (the value at risk of the Rockafellar-Uryasev form), to the other coordinates; give it bounds of its own: a \"product\" whose factor for it is a one-dimensional \"box\", or \"simplex_interval\" (a simplex over the others, an interval for the last)" "the threshold in the simplex"
portfolio l1.json "" '{ "plugin": "cvar_ru", "alpha": 0.95 }' \
  '{ "plugin": "product", "factors": [ { "plugin": "simplex", "dim": 3 }, { "plugin": "l1_ball", "dim": 3 } ] }'
run "$SCFW" validate l1.json
expect_rc 2 "the threshold in an l1 factor"
expect_contains "$ERR" "error: l1.json: /domain/factors: domain product(simplex[3], l1_ball[3]) ties x[5] (\"VaR\")" "the threshold in an l1 factor"
# The two domains the message names are accepted.
portfolio product.json "" '{ "plugin": "cvar_ru", "alpha": 0.95 }' \
  '{ "plugin": "product", "factors": [ { "plugin": "simplex", "dim": 5 }, { "plugin": "box", "dim": 1, "lower": -1, "upper": 1 } ] }'
run "$SCFW" validate product.json
expect_rc 0 "the threshold in a box factor"
portfolio interval.json "" '{ "plugin": "cvar_ru", "alpha": 0.95 }' '{ "plugin": "simplex_interval" }'
run "$SCFW" validate interval.json
expect_rc 0 "the threshold under simplex_interval"

# A nuclear ball of the transposed shape has the same d and would read another matrix.
cat >mc.json <<'JSON'
{ "oracle": { "plugin": "matrix_completion", "groups": 5, "synthetic": { "rows": 30, "cols": 20, "rank": 3, "density": 0.3, "seed": 1 } },
  "outer": { "plugin": "max" },
  "domain": { "plugin": "nuclear_ball", "rows": 20, "cols": 30, "radius": 5 } }
JSON
run "$SCFW" validate mc.json
expect_rc 2 "a transposed nuclear ball"
expect_stderr "error: mc.json: /domain: domain nuclear_ball is a 20 x 30 matrix, but oracle matrix_completion's x is a 30 x 20 matrix (row-major): write \"rows\": 30, \"cols\": 20" "a transposed nuclear ball"
echo "cli_roles: all checks passed"
