#!/usr/bin/env bash
# Build scfw (installing missing Debian packages first) and solve one problem:
#   ./run.sh                                   examples/minimax_synthetic.json
#   ./run.sh my_problem.json --iterations 500  any `scfw run` options pass through
# Paths in the arguments (and a relative trace path) are taken from the current directory.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
(cd "$ROOT" && source .ci/build.sh)
problem=${1:-$ROOT/examples/minimax_synthetic.json}
if [[ $# -gt 0 ]]; then shift; fi
exec "$ROOT/build/bin/scfw" run "$problem" "$@"
