#!/usr/bin/env bash
# `scfw validate --check` (docs/plugins.md, "Checking a composed problem") and the host's check of
# the GLMO's value at gap reports: a third-party plugin set (tests/fixtures/wrong) with one fault
# at a time. Each fault that used to pass validation
# silently is one located line naming the plugin and the check, exit 1; without a fault every
# check passes, and an oracle without exact evaluation has the checks that need it skipped.
SCFW=$1
FIXTURES=$2
source "$(dirname "$0")/lib.sh"
PLUGINS="$FIXTURES/wrong"

# problem NAME ORACLE_EXTRA OUTER_FAULT DOMAIN_FAULT : NAME.json over the fixture plugins.
problem() {
  cat >"$1.json" <<JSON
{
  "seed": 1,
  "iterations": 20,
  "oracle": { "plugin": "fixture_linear"$2 },
  "outer": { "plugin": "fixture_max", "fault": "$3" },
  "domain": { "plugin": "fixture_box", "fault": "$4" }
}
JSON
}

check() {  # check NAME : runs validate --check on NAME.json
  run "$SCFW" validate --check --plugin-path "$PLUGINS" "$1.json"
}

problem sound '' none none
check sound
expect_rc 0 "no fault"
[[ -z "$ERR" ]] || fail "no fault: stderr: $ERR"
expect_contains "$OUT" "check: oracle fixture_linear: finite differences of exact f vs exact J: ok, worst discrepancy" "no fault"
expect_contains "$OUT" "check: domain fixture_box: LMO vs the minimum of <g, x> over the domain's LP model: ok" "no fault"
expect_contains "$OUT" "check: state glmo dense_simplex: save / load / continue: y_6 of a run resumed after iteration 3 vs the run not stopped (bitwise): ok" "no fault"
expect_contains "$OUT" "sound.json: 18 checks passed, 1 skipped" "no fault"

problem sparse ', "sparse": true' none none
check sparse
expect_rc 0 "a sparse Jacobian"
expect_contains "$OUT" "check: oracle fixture_linear: sparse path: J~ in its pattern vs its dense copy: ok" "a sparse Jacobian"

problem sample_only ', "exact": false' none none
check sample_only
expect_rc 0 "no exact evaluation"
expect_contains "$OUT" 'check: oracle fixture_linear: finite differences of exact f vs exact J: skipped: the oracle has no exact evaluation (capability "exact")' "no exact evaluation"
expect_contains "$OUT" 'check: oracle fixture_linear: unbiasedness (sample mean vs exact, 2000 samples, 6 standard errors): skipped: the oracle has no exact evaluation (capability "exact")' "no exact evaluation"
expect_contains "$OUT" "sample_only.json: 16 checks passed, 3 skipped" "no exact evaluation"

problem jacobian ', "fault": "jacobian"' none none
check jacobian
expect_rc 1 "a wrong Jacobian"
expect_stderr "error: jacobian.json: check failed: oracle fixture_linear: finite differences of exact f vs exact J: J(1, 2): finite difference -0.9999999999 vs Jacobian 0 (difference -0.9999999999, allowed 3e-05)" "a wrong Jacobian"
expect_contains "$OUT" "check: oracle fixture_linear: finite differences of exact f vs exact J: FAILED, worst discrepancy 1 (allowed 3e-05)" "a wrong Jacobian"

problem sample_jacobian ', "fault": "jacobian", "exact": false' none none
check sample_jacobian
expect_rc 1 "a wrong Jacobian, no exact evaluation"
expect_stderr "error: sample_jacobian.json: check failed: oracle fixture_linear: finite differences of f~(.; xi) vs J~(.; xi) for one sample: J(1, 2): finite difference -0.9999999999 vs Jacobian 0 (difference -0.9999999999, allowed 3e-05)" "a wrong Jacobian, no exact evaluation"

problem pattern ', "fault": "pattern"' none none
check pattern
expect_rc 1 "a sparse pattern that misses an entry"
expect_stderr "error: pattern.json: check failed: oracle fixture_linear: sparse path: J~ in its pattern vs its dense copy: J(1, 2): outside the Jacobian pattern (so 0), but the finite difference is -0.9999999999 (allowed 3e-05)" "a sparse pattern that misses an entry"

problem f_size ', "fault": "f_size"' none none
check f_size
expect_rc 1 "f of the wrong size"
expect_stderr "error: f_size.json: check failed: oracle fixture_linear: calls that return (no exception): the oracle threw: fixture_linear: exact: left f with size 3, expected n = 2" "f of the wrong size"

problem outer_model '' model none
check outer_model
expect_rc 1 "an outer model above its value"
expect_stderr "error: outer_model.json: check failed: outer fixture_max: GLMO minimum over {x} vs value(u, x): point 0: GLMO value -1.681557782 vs value(u, x) -2.181557782 at u = (-2.196740136, -2.181557782), x = (-0.2927105769, -2.873854629, -0.8946113173)" "an outer model above its value"

problem outside '' none outside
check outside
expect_rc 1 "an LMO outside the domain"
expect_stderr "error: outside.json: check failed: domain fixture_box: LMO answers in the domain (contains): direction 0: the LMO answer is not in the domain by its own contains() (tolerance 2e-07; largest |s_j| = 2)" "an LMO outside the domain"

problem not_optimal '' none not_optimal
check not_optimal
expect_rc 1 "an LMO that does not minimise"
expect_stderr "error: not_optimal.json: check failed: domain fixture_box: LMO optimality: <g, s> <= <g, p> at 20 sampled domain points and the other answers: direction 0: <g, s> = 0.2605919208 but the initial point gives <g, p> = 0.1302959604 (allowed 1e-07)" "an LMO that does not minimise"

problem domain_model '' none model
check domain_model
expect_rc 1 "an LP model that is not the LMO's set"
expect_stderr "error: domain_model.json: check failed: domain fixture_box: LMO vs the minimum of <g, x> over the domain's LP model: direction 0: the LMO gives <g, s> = -0.4262317184, the minimum over the LP model is -0.8524634368 (allowed 1e-07)" "an LP model that is not the LMO's set"

problem counter ', "fault": "counter"' none none
check counter
expect_rc 1 "an oracle that keeps state"
expect_stderr "error: counter.json: check failed: state glmo dense_simplex: save / load / continue: y_6 of a run resumed after iteration 3 vs the run not stopped (bitwise): 1 of 3 coordinates differ (max |difference| 0.00585): the state saved by glmo dense_simplex does not continue the run, or a plugin keeps state it does not declare" "an oracle that keeps state"

# The host's check at each gap report (core/src/solver.cpp, check_glmo_value): the GLMO's value
# against the outer function's value at the point it returned. The model 0.5 above the value
# used to give a run with exit 0 and every gap 0.5 off; now the run fails at its first report.
run "$SCFW" run --quiet --plugin-path "$PLUGINS" outer_model.json
expect_rc 1 "a run over an outer model above its value"
expect_stderr "error: iteration 20 (gap report): dense_simplex: the GLMO's value 0.4 at the point it returned disagrees with the outer function fixture_max's value -0.1 there (difference 0.5, allowed 1e-06): the outer function's model is not the function, or the GLMO solved it wrongly; \`scfw validate --check\` checks the model" \
  "a run over an outer model above its value"
run "$SCFW" run --quiet --plugin-path "$PLUGINS" sound.json
expect_rc 0 "a run over sound plugins"

# Without --check nothing of this is looked at: the faulty file validates.
run "$SCFW" validate --plugin-path "$PLUGINS" jacobian.json
expect_rc 0 "validate without --check"
echo "cli_check: ok"
