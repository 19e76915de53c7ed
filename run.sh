#!/usr/bin/env bash
# Build the scfw app and its plugins (installing missing Debian packages first; not the tests and
# benchmarks, which ./test.sh builds) and solve one problem. The build says nothing when nothing
# changed; its output is in build/build.log, printed only when it fails.
#
#   ./run.sh                                   examples/minimax_synthetic.json
#   ./run.sh my_problem.json --iterations 500  any `scfw run` options pass through
#   ./run.sh --quiet                           options alone: the default problem
# Paths in the arguments (and a relative trace path) are taken from the current directory.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
(cd "$ROOT" && build_target=scfw_runtime && build_quiet=1 && source .ci/build.sh)
problem=$ROOT/examples/minimax_synthetic.json
if [[ $# -gt 0 && $1 != -* ]]; then  # options alone (./run.sh --quiet) run the default problem
  problem=$1
  shift
fi
exec "$ROOT/build/bin/scfw" run "$problem" "$@"
