#!/usr/bin/env bash
# Every example in examples/ at its own settings gives the trace recorded in tests/golden/<name>.csv,
# every column but the wall-clock seconds: the same file and seed give the same iterates, gaps and
# step sizes on this build as when the golden files were written. A change that moves an iterate
# (a GLMO that breaks ties another way, a reordered sum) shows up here; when it is intended, the
# golden file is re-recorded with
#   tests/cli/cli_golden_traces.sh build/bin/scfw --record
# and the commit says why the numbers moved.
SCFW=$1
MODE=${2:-check}
SOURCE=$(cd "$(dirname "$0")/../.." && pwd)
source "$(dirname "$0")/lib.sh"

# An example that reads the shared data (lib.sh, example_or_skip) runs against SCFW_DATA_DIR;
# without its data it is skipped, named, and the test exits with SKIP_CODE after the others.
for file in "$SOURCE"/examples/*.json; do
  name=$(basename "$file" .json)
  example_or_skip "$file" || continue
  run "$SCFW" run "$PROBLEM" --trace "$name.csv" --quiet
  expect_rc 0 "example $name"
  golden="$SOURCE/tests/golden/$name.csv"
  if [[ "$MODE" == "--record" ]]; then
    strip_seconds "$name.csv" >"$golden"
    echo "recorded $golden"
    continue
  fi
  [[ -f "$golden" ]] || fail "no golden trace for example $name: record it with --record"
  if ! diff <(strip_seconds "$name.csv") "$golden" >diff.txt; then
    fail "example $name: the trace (without seconds) differs from tests/golden/$name.csv:
$(head -n 20 diff.txt)"
  fi
done
if [[ ${#skipped[@]} -gt 0 ]]; then
  echo "golden traces: all other examples match; skipped for want of data: ${skipped[*]}"
  exit "$SKIP_CODE"
fi
echo "golden traces: all examples match"
