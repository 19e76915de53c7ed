# Shared by the cli_*.sh tests: a scratch folder, a runner that captures exit code, stdout and
# stderr, and assertions that print what they saw when they fail.
set -euo pipefail
unset SCFW_PLUGIN_PATH  # only the plugins this build ships (or the test's own --plugin-path)

# The shared data folder (a9a, ...): SCFW_DATA_DIR, or ../shared/data beside the source tree.
DATA_DIR=$(realpath -m "${SCFW_DATA_DIR:-$(dirname "${BASH_SOURCE[0]}")/../../../shared/data}")
# The exit code ctest reads as "skipped" (SKIP_RETURN_CODE in CMakeLists.txt).
SKIP_CODE=77

SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/scfw-cli.XXXXXX")
trap 'rm -rf "$SCRATCH"' EXIT
cd "$SCRATCH"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# run CMD... : sets RC, OUT (stdout) and ERR (stderr) without stopping on a failure.
run() {
  set +e
  "$@" >"$SCRATCH/.out" 2>"$SCRATCH/.err"
  RC=$?
  set -e
  OUT=$(cat "$SCRATCH/.out")
  ERR=$(cat "$SCRATCH/.err")
}

# expect_rc CODE WHAT
expect_rc() {
  [[ "$RC" == "$1" ]] || fail "$2: exit code $RC, expected $1
--- stdout:
$OUT
--- stderr:
$ERR"
}

# expect_stderr LINE WHAT : stderr is exactly LINE (one line).
expect_stderr() {
  [[ "$ERR" == "$1" ]] || fail "$2: stderr differs
--- expected:
$1
--- got:
$ERR"
}

# expect_contains HAYSTACK NEEDLE WHAT
expect_contains() {
  [[ "$1" == *"$2"* ]] || fail "$3: expected to find '$2' in:
$1"
}

# check NAME RC EXPECTED_STDERR COMMAND... : the command's exit code and its one stderr line.
check() {
  local name=$1 rc=$2 expected=$3
  shift 3
  run "$@"
  expect_rc "$rc" "$name"
  expect_stderr "$expected" "$name"
}

# strip_seconds TRACE : the trace's columns but the wall time (the fifth).
strip_seconds() { cut -d, -f1-4,6- "$1"; }

# A small problem of the paper's Task 1 shape that solves in well under a second.
# write_problem FILE OUTER_BLOCK [ITERATIONS] [REPORT_BLOCK]
write_problem() {
  local iterations=100 report='{ "every": 50 }'
  if [[ $# -ge 3 ]]; then iterations=$3; fi
  if [[ $# -ge 4 ]]; then report=$4; fi
  cat >"$1" <<JSON
{
  "name": "cli test",
  "seed": 3,
  "iterations": $iterations,
  "oracle": { "plugin": "least_squares_tasks",
              "synthetic": { "tasks": 4, "dim": 20, "rows_per_task": 40 },
              "batch": 1 },
  "outer": $2,
  "domain": { "plugin": "l1_ball", "radius": 2 },
  "glmo": { "plugin": "clp" },
  "tracker": { "plugin": "momentum", "value": "taylor" },
  "schedule": { "plugin": "nonconvex", "r": 2 },
  "report": $report
}
JSON
}

# example_problem FILE : an example that reads the shared data names it as "../../shared/data/X"
# (relative to examples/). Sets PROBLEM to FILE itself, or for such an example to a copy in the
# scratch folder whose data paths point into DATA_DIR, and returns 0; returns 1 with MISSING set
# to the first data file DATA_DIR lacks.
example_problem() {
  local needs f
  PROBLEM=$1
  needs=$(grep -o '"\.\./\.\./shared/data/[^"]*"' "$1" | tr -d '"' | sed 's|^\.\./\.\./shared/data/||') || true
  [[ -n "$needs" ]] || return 0
  for f in $needs; do
    if [[ ! -f "$DATA_DIR/$f" ]]; then
      MISSING="$DATA_DIR/$f"
      return 1
    fi
  done
  PROBLEM="$SCRATCH/data-$(basename "$1")"
  sed "s|\"\.\./\.\./shared/data/|\"$DATA_DIR/|g" "$1" >"$PROBLEM"
}

# example_or_skip FILE : example_problem FILE; an example without its shared data is named on
# stdout, added to the array `skipped`, and returns 1 (the caller goes on to the next example).
skipped=()
example_or_skip() {
  example_problem "$1" && return 0
  echo "skipped: example $(basename "$1" .json): $MISSING not found (set SCFW_DATA_DIR to the shared data folder)"
  skipped+=("$(basename "$1" .json)")
  return 1
}
