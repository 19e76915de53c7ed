#!/usr/bin/env bash
# A run ended by a stopping rule long before K (docs/formulations.md, "Anytime steps"), made
# deterministic: a gap tolerance no gap can miss stops the run at its first report, iteration
# 3000 of K = 200 000, the way a 1 s time limit did. With the K-sized `nonconvex` schedule the
# run warns and is worse than a plain run of 3000 iterations; the `anytime` schedule does not
# warn, and its y after 3000 iterations is the same bits whatever K is.
SCFW=$1
SOURCE=$(cd "$(dirname "$0")/../.." && pwd)
source "$(dirname "$0")/lib.sh"

# The README's first problem with another schedule and a report every 3000 iterations.
variant() {  # variant FILE SCHEDULE_BLOCK
  python3 - "$SOURCE/examples/minimax_synthetic.json" "$1" "$2" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["schedule"] = json.loads(sys.argv[3])
p["report"] = {"every": 3000}
json.dump(p, open(sys.argv[2], "w"))
PY
}
objective() { python3 -c 'import json, sys; print(repr(json.load(open(sys.argv[1]))["objective"]))' "$1"; }

variant nonconvex.json '{ "plugin": "nonconvex", "r": 2 }'
variant anytime.json '{ "plugin": "anytime" }'

run "$SCFW" run nonconvex.json --iterations 200000 --gap-tolerance 1e9 --quiet --summary-json early.json
expect_rc 0 "nonconvex stopped early"
expect_contains "$OUT" "gap tolerance reached" "nonconvex stopped early"
expect_stderr 'scfw: warning: the gap tolerance ended the run after 3000 of K = 200000 iterations (under half of K) with steps sized for K (gamma = 0.000106 where a run of 3000 iterations takes 0.00247); with a stopping rule use the "anytime" schedule, whose steps do not depend on K, or a K the run can reach' \
  "nonconvex stopped early"
run "$SCFW" run nonconvex.json --iterations 3000 --quiet --summary-json plain.json
expect_rc 0 "nonconvex, K = 3000"
[[ -z "$ERR" ]] || fail "a run that reaches its K warned: $ERR"
# The situation of the issue: steps meant for K = 200 000 leave a worse point at 3000.
python3 - "$(objective early.json)" "$(objective plain.json)" <<'PY' || fail "the early-stopped run is not worse than the plain K = 3000 run"
import sys
early, plain = map(float, sys.argv[1:])
print(f"objective after 3000 iterations: sized for K = 200000: {early}, for K = 3000: {plain}")
sys.exit(0 if early > plain else 1)
PY

# anytime: no warning, and the same y at iteration 3000 for K = 200 000 stopped there and K = 3000.
run "$SCFW" run anytime.json --iterations 200000 --gap-tolerance 1e9 --quiet --solution a_long.csv
expect_rc 0 "anytime stopped early"
[[ -z "$ERR" ]] || fail "anytime warned: $ERR"
run "$SCFW" run anytime.json --iterations 3000 --quiet --solution a_short.csv
expect_rc 0 "anytime, K = 3000"
# (the files' first line, a comment, says how each run ended)
diff <(grep -v '^#' a_long.csv) <(grep -v '^#' a_short.csv) >y.diff || fail "anytime's y after 3000 iterations depends on K:
$(head y.diff)"

# A stop after half of K does not warn: K = 6000 stopped at its first report, 3000.
run "$SCFW" run nonconvex.json --iterations 6000 --gap-tolerance 1e9 --quiet
expect_rc 0 "nonconvex stopped at half of K"
[[ -z "$ERR" ]] || fail "a stop at half of K warned: $ERR"
echo "cli_anytime: ok"
