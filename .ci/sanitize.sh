#!/usr/bin/env bash
# The sanitizer and fuzzing job of CI, run by .ci/run after ./test.sh (docs/reliability.md):
#   1. a clang-14 build of the whole tree in build-san/ (libraries, plugins, tests, fuzz targets;
#      no benchmarks) with AddressSanitizer + UndefinedBehaviorSanitizer, any report fatal, and
#      libFuzzer instrumentation: cmake -DSCFW_SANITIZE=ON -DSCFW_FUZZ=ON;
#   2. the suite in that build (ctest; test_no_alloc skips itself, the allocator being ASan's);
#   3. every fuzz target for FUZZ_SECONDS (default 30) from its seed corpus.
# Any failure fails the job. Environment: FUZZ_SECONDS, FUZZ_TARGETS (default: all seven),
# CMAKE_BUILD_PARALLEL_LEVEL (default 2). New inputs found while fuzzing go to
# build-san/fuzz/corpus/<target>/, crash reproducers to build-san/fuzz/artifacts/.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# clang-14 and its runtimes (ASan, UBSan, libFuzzer: libclang-rt-14-dev) on top of the base image.
source .ci/packages.sh
ensure_packages sanitize clang-14 libclang-rt-14-dev

jobs=${CMAKE_BUILD_PARALLEL_LEVEL:-2}
fuzz_seconds=${FUZZ_SECONDS:-30}
read -r -a targets <<<"${FUZZ_TARGETS:-problem_json experiment_json libsvm price_csv udata polytope_csv checkpoint}"
# Largest fuzzed input per target, in bytes: small inputs keep an execution fast.
declare -A max_len=([problem_json]=4096 [experiment_json]=4096 [libsvm]=1024 [price_csv]=1024 [udata]=1024 [polytope_csv]=512 [checkpoint]=131072)

# Every report fatal, with a stack; leaks checked at exit.
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# Tests that limit the address space (ulimit -v) skip the limit here: ASan's shadow memory needs it.
export SCFW_SANITIZED=1

start=$SECONDS
if [[ ! -f build-san/CMakeCache.txt ]]; then
  # Without MPI: the one-process build is checked to compile and pass here (./test.sh builds the
  # MPI one), and OpenMPI's own allocations would be reported by LeakSanitizer.
  # Line tables are all a sanitizer's stack trace needs (file:line); full debug information
  # would make every object and link of the build several times larger.
  cmake -S . -B build-san -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++-14 \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -gline-tables-only -DNDEBUG" -DSCFW_SANITIZE=ON -DSCFW_FUZZ=ON -DSCFW_BUILD_BENCH=OFF -DSCFW_WITH_MPI=OFF
fi
cmake --build build-san -j"$jobs"
built=$SECONDS
echo "sanitize: build $((built - start)) s" >&2

# Not here: cli_out_of_tree and cli_host_api install the build and compile a plugin and a host
# program against it with the system compiler, without the sanitizer runtime; they check the
# packaging, which the g++ run of ./test.sh covers. cli_golden_traces compares every digit of the
# examples' traces with tests/golden/, recorded by the g++ Release build: another compiler may
# round differently in the last bits; ./test.sh runs it. test_trackers_compare (a statistical
# comparison of the trackers over many seeds) took 400 s of the suite's 607 s here, and its code
# (trackers, schedules, GLMOs) is what test_trackers_accel, test_momentum and test_engine run too.
# test_rate (Theorem 1's slope: 18 full runs up to K = 16,000) took 222 s here for the same reason
# and the same code; a statistical check that the sanitizers add nothing to.
# test_checkpoint's long resumes (every example at 2,000 iterations, resumed at three points: 40
# runs of the whole loop) skip themselves under the sanitizer, many times slower there; its
# 80-iteration resumes of every example run here.
ctest --test-dir build-san --output-on-failure -j"$jobs" \
  -E '^(cli_out_of_tree|cli_host_api|cli_golden_traces|test_trackers_compare|test_rate)$'
tested=$SECONDS
echo "sanitize: suite $((tested - built)) s" >&2

mkdir -p build-san/fuzz/artifacts
for t in "${targets[@]}"; do
  # libFuzzer adds what it finds to the first folder: a copy, so that the tree stays clean.
  corpus=build-san/fuzz/corpus/$t
  mkdir -p "$corpus"
  echo "sanitize: fuzzing $t for ${fuzz_seconds} s" >&2
  build-san/bin/fuzz_"$t" -max_total_time="$fuzz_seconds" -max_len="${max_len[$t]}" -timeout=30 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="build-san/fuzz/artifacts/$t-" \
    "$corpus" tests/fuzz/corpus/"$t"
done
echo "sanitize: fuzzing $((SECONDS - tested)) s; total $((SECONDS - start)) s" >&2
