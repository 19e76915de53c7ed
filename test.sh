#!/usr/bin/env bash
# Build scfw (installing missing Debian packages first) and run every test with ctest:
#   ./test.sh                 all tests
#   ./test.sh -R cli          extra arguments go to ctest
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
(cd "$ROOT" && source .ci/build.sh)
exec ctest --test-dir "$ROOT/build" --output-on-failure -j2 "$@"
