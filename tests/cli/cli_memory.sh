#!/usr/bin/env bash
# Memory known before it is spent (docs/memory.md): sizes the machine cannot hold are refused by
# `validate`, `run` and `compare` with exit 2 and one line naming the block, the figure and the
# limit, before anything of that size is allocated. Every refusal runs under `ulimit -v` of 2 GiB:
# had the plugin allocated first, it would fail with std::bad_alloc (exit 1) instead.
SCFW=$1
source "$(dirname "$0")/lib.sh"
export -n SCFW_MEMORY_LIMIT 2>/dev/null || true
unset SCFW_MEMORY_LIMIT

# limited CMD...: CMD under a 2 GiB address-space limit. Not in the sanitizer build
# (.ci/sanitize.sh sets SCFW_SANITIZED=1): AddressSanitizer reserves terabytes of address space
# for its shadow memory at start-up and cannot run under `ulimit -v`; the g++ build checks it.
if [[ -n ${SCFW_SANITIZED:-} ]]; then
  limited() { run "$@"; }
else
  limited() { run bash -c 'ulimit -v 2097152 && exec "$@"' limited "$@"; }
fi

HOW="(set it with --memory-limit or SCFW_MEMORY_LIMIT)"
# refused_at_4GiB WHAT FILE NEED : `validate --memory-limit 4GiB FILE` exits 2 with the line
# "error: FILE: /oracle: needs NEED; the memory limit is 4.0 GiB (...)".
refused_at_4GiB() {
  limited "$SCFW" validate --memory-limit 4GiB "$2"
  expect_rc 2 "$1"
  expect_stderr "error: $2: /oracle: needs $3; the memory limit is 4.0 GiB $HOW" "$1"
}

problem() {  # problem FILE ORACLE DOMAIN
  cat >"$1" <<JSON
{ "iterations": 10, "oracle": $2, "outer": { "plugin": "max" }, "domain": $3 }
JSON
}

# 1. A 3-line LIBSVM file with feature index 2^30: d = 1073741824, V = 2 x d doubles = 16 GiB.
printf '1 1:0.5 1073741824:1\n-1 2:1\n1 3:2\n' >wide.svm
problem libsvm.json '{ "plugin": "least_squares_tasks", "file": "wide.svm", "tasks": 2 }' \
  '{ "plugin": "l1_ball", "radius": 1 }'
refused_at_4GiB "LIBSVM index 2^30" libsvm.json "16.0 GiB for V (2 x 1073741824)"
# The same refusal from `run`, and with the limit from the environment.
limited "$SCFW" run --memory-limit 4GiB libsvm.json
expect_rc 2 "run: LIBSVM index 2^30"
expect_stderr "error: libsvm.json: /oracle: needs 16.0 GiB for V (2 x 1073741824); the memory limit is 4.0 GiB $HOW" \
  "run: LIBSVM index 2^30"
SCFW_MEMORY_LIMIT=4GiB limited "$SCFW" run libsvm.json
expect_rc 2 "SCFW_MEMORY_LIMIT"
expect_stderr "error: libsvm.json: /oracle: needs 16.0 GiB for V (2 x 1073741824); the memory limit is 4.0 GiB $HOW" \
  "SCFW_MEMORY_LIMIT"

# 2. A 2-line u.data and a 46340 x 46340 nuclear ball: d = 2147395600, V = 2 x d doubles = 32 GiB.
printf '1\t1\t5\t881250949\n46340\t46340\t3\t891717742\n' >u.data
problem movielens.json '{ "plugin": "matrix_completion", "file": "u.data", "groups": 0 }' \
  '{ "plugin": "nuclear_ball", "rows": 46340, "cols": 46340, "radius": 1 }'
refused_at_4GiB "u.data 46340 x 46340" movielens.json "32.0 GiB for V (2 x 2147395600)"

# 3. batch 1e9 rows for each of 3 tasks: the sample alone is 3e9 indices of 8 bytes = 22.4 GiB.
problem batch.json '{ "plugin": "least_squares_tasks", "batch": 1000000000,
                      "synthetic": { "tasks": 3, "dim": 20, "rows_per_task": 40 } }' \
  '{ "plugin": "l1_ball", "radius": 1 }'
refused_at_4GiB "batch 1e9" batch.json "22.4 GiB for a sample of batch rows per task (tasks x batch = 3 x 1000000000)"

# 4. synthetic dim 1e9: x*, indices and one dense row of 1e9 coordinates, 36e9 bytes = 33.5 GiB.
problem dim.json '{ "plugin": "least_squares_tasks",
                    "synthetic": { "tasks": 1, "dim": 1000000000, "rows_per_task": 1 } }' \
  '{ "plugin": "l1_ball", "radius": 1 }'
refused_at_4GiB "synthetic dim 1e9" dim.json "33.5 GiB for the synthetic data (tasks x rows_per_task x dim = 1 x 1 x 1000000000)"

# 5. synthetic portfolio of 30000 assets x 30000 days: the returns, 7.2e9 bytes (+ the loadings) = 6.7 GiB.
problem portfolio.json '{ "plugin": "portfolio_returns", "groups": 10,
                          "synthetic": { "assets": 30000, "days": 30000 } }' \
  '{ "plugin": "simplex", "dim": 30001 }'
refused_at_4GiB "portfolio 30000 x 30000" portfolio.json "6.7 GiB for the synthetic returns (days x assets = 30000 x 30000)"

# compare: the limit is shared by the workers, each composing its own problem.
cat >batch_compare.json <<'JSON'
{ "name": "batch", "oracle": { "plugin": "least_squares_tasks", "batch": 1000000000,
                               "synthetic": { "tasks": 3, "dim": 20, "rows_per_task": 40 } },
  "outer": { "plugin": "max" }, "domain": { "plugin": "l1_ball", "radius": 1 },
  "methods": [ { "label": "m", "tracker": { "plugin": "momentum" }, "schedule": { "plugin": "nonconvex" } } ],
  "seeds": [1, 2], "iterations": [10] }
JSON
limited "$SCFW" compare --memory-limit 40GiB --jobs 2 -q batch_compare.json
expect_rc 2 "compare --jobs 2"
expect_stderr "error: batch_compare.json: /oracle: needs 22.4 GiB for a sample of batch rows per task (tasks x batch = 3 x 1000000000); the memory limit is 20.0 GiB (a worker's share of 40.0 GiB over 2 workers (--jobs); set it with --memory-limit or SCFW_MEMORY_LIMIT)" \
  "compare --jobs 2"

# A bad size is refused like any bad option.
run "$SCFW" validate --memory-limit lots libsvm.json
expect_rc 2 "bad --memory-limit"
expect_stderr "error: --memory-limit: expected a size such as 512MiB, 8GiB or 1e9, got 'lots'" "bad --memory-limit"

# The estimate against the measured peak: the peak resident size of a run with 240 MB of data,
# less that of the same plugins on a tiny problem (the program's own baseline), is within
# [0.8, 1.25] of the estimate in the JSON summary (docs/memory.md, "Measured").
if [[ ! -x /usr/bin/time ]]; then
  echo "skipped: the estimate against the peak needs /usr/bin/time"
  exit 0
fi
if [[ -n ${SCFW_SANITIZED:-} ]]; then
  echo "skipped: the estimate against the peak (AddressSanitizer's shadow memory and quarantine add to it)"
  exit 0
fi
peak_problem() {  # peak_problem FILE TASKS DIM ROWS
  cat >"$1" <<JSON
{ "iterations": 5, "seed": 1,
  "oracle": { "plugin": "least_squares_tasks", "synthetic": { "tasks": $2, "dim": $3, "rows_per_task": $4 } },
  "outer": { "plugin": "max" }, "domain": { "plugin": "l1_ball", "radius": 5 }, "glmo": { "plugin": "clp" } }
JSON
}
peak_problem tiny.json 10 10 10
peak_problem big.json 10 1000 2000
/usr/bin/time -f %M -o tiny.rss "$SCFW" run -q --summary-json tiny_summary.json tiny.json >/dev/null
/usr/bin/time -f %M -o big.rss "$SCFW" run -q --summary-json big_summary.json big.json >/dev/null
python3 - <<'PY' || fail "the estimate against the peak"
import json
tiny = int(open("tiny.rss").read().split()[-1]) * 1024
big = int(open("big.rss").read().split()[-1]) * 1024
est = json.load(open("big_summary.json"))["memory"]["estimate_bytes"]
est0 = json.load(open("tiny_summary.json"))["memory"]["estimate_bytes"]
ratio = (big - tiny) / (est - est0)
print(f"peak {big} B, baseline {tiny} B, estimate {est} B (tiny {est0} B): growth / estimate = {ratio:.3f}")
assert 0.8 <= ratio <= 1.25, ratio
PY
