#!/usr/bin/env bash
# A plugin author's path: install scfw into a prefix, build the installed copy of
# examples/plugins/mean_max as its own CMake project with find_package(scfw), and run the
# installed app with --plugin-path.
SCFW=$1 BUILD=$2 SOURCE=$3 CMAKE=${4:-cmake}
source "$(dirname "$0")/lib.sh"

prefix=$SCRATCH/prefix
"$CMAKE" --install "$BUILD" --prefix "$prefix" >install.log 2>&1 || fail "cmake --install failed:
$(tail -n 20 install.log)"
for f in bin/scfw lib/libscfw_sdk.so lib/libscfw_core.so lib/scfw/plugins/libscfw_max.so \
         lib/scfw/plugins/libscfw_clp.so include/scfw/scfw.hpp include/scfw/plugin.hpp \
         include/scfw/core/solver.hpp lib/cmake/scfw/scfwConfig.cmake \
         lib/cmake/scfw/scfwConfigVersion.cmake lib/cmake/scfw/scfwTargets.cmake \
         lib/cmake/scfw/scfwPluginHelpers.cmake share/doc/scfw/plugins.md \
         share/scfw/examples/plugins/mean_max/mean_max.cpp share/scfw/examples/plugins/mean_max/CMakeLists.txt \
         share/scfw/examples/plugins/step_decay/step_decay.cpp; do
  [[ -e "$prefix/$f" ]] || fail "the install has no $f"
done

# The example as the install ships it (docs/plugins.md points there), not the source tree's.
"$CMAKE" -S "$prefix/share/scfw/examples/plugins/mean_max" -B plugin-build -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE=Release >configure.log 2>&1 || fail "configuring mean_max failed:
$(tail -n 30 configure.log)"
"$CMAKE" --build plugin-build >build.log 2>&1 || fail "building mean_max failed:
$(tail -n 30 build.log)"
[[ -f plugin-build/libscfw_mean_max.so ]] || fail "no plugin-build/libscfw_mean_max.so"

# The SDK's conformance check, run out of tree with the installed clp GLMO and box domain.
run plugin-build/check_mean_max plugin-build
expect_rc 0 "check_mean_max"
expect_contains "$OUT" "check_outer_model passed" "check_mean_max"

write_problem mm.json '{ "plugin": "mean_max", "lambda": 0.25 }' 100
run "$prefix/bin/scfw" run mm.json --plugin-path plugin-build
expect_rc 0 "run with mean_max"
expect_contains "$OUT" "status" "run with mean_max prints the summary"
expect_contains "$OUT" "objective" "run with mean_max prints the summary"
[[ -z "$ERR" ]] || fail "run with mean_max: unexpected stderr: $ERR"

run "$prefix/bin/scfw" validate mm.json --plugin-path plugin-build
expect_rc 0 "validate with mean_max"
expect_contains "$OUT" "outer mean_max" "validate with mean_max"

run "$prefix/bin/scfw" describe mean_max --plugin-path plugin-build
expect_rc 0 "describe mean_max"
expect_contains "$OUT" "lambda" "describe mean_max"

# SCFW_PLUGIN_PATH finds it as well.
run env SCFW_PLUGIN_PATH="$SCRATCH/plugin-build" "$prefix/bin/scfw" validate mm.json
expect_rc 0 "validate with SCFW_PLUGIN_PATH"

# lambda is declared in [0, 1].
write_problem bad.json '{ "plugin": "mean_max", "lambda": 1.5 }' 100
run "$prefix/bin/scfw" validate bad.json --plugin-path plugin-build
expect_rc 2 "lambda out of range"
expect_stderr "error: bad.json: /outer/lambda: expected a number in [0, 1], got 1.5" "lambda out of range"

# Without --plugin-path the installed app knows only its own plugins.
run "$prefix/bin/scfw" run mm.json
expect_rc 2 "run without --plugin-path"
expect_contains "$ERR" 'error: mm.json: /outer/plugin: unknown outer plugin "mean_max"' "run without --plugin-path"
[[ $(wc -l <<<"$ERR") == 1 ]] || fail "run without --plugin-path: expected one stderr line, got:
$ERR"
# A user-written schedule, examples/plugins/step_decay, built the same way: its gamma is in the
# trace, gamma_k = gamma0 / sqrt(1 + floor(k / period)).
"$CMAKE" -S "$SOURCE/examples/plugins/step_decay" -B schedule-build -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE=Release >configure2.log 2>&1 || fail "configuring step_decay failed:
$(tail -n 30 configure2.log)"
"$CMAKE" --build schedule-build >build2.log 2>&1 || fail "building step_decay failed:
$(tail -n 30 build2.log)"
cat >sd.json <<'JSON'
{
  "seed": 2,
  "iterations": 25,
  "oracle": { "plugin": "least_squares_tasks",
              "synthetic": { "tasks": 3, "dim": 8, "rows_per_task": 20, "sparsity": 2 } },
  "outer": { "plugin": "max" },
  "domain": { "plugin": "l1_ball", "radius": 2 },
  "tracker": { "plugin": "momentum" },
  "schedule": { "plugin": "step_decay", "gamma0": 0.5, "period": 10, "beta": 0.25, "rho": 0.25 },
  "report": { "every": 1, "trace": "sd.csv" }
}
JSON
run "$prefix/bin/scfw" run sd.json --plugin-path schedule-build --quiet
expect_rc 0 "run with step_decay"
# iteration i ran with k = i - 1: gamma = 0.5 for i <= 10, 0.5/sqrt(2) for 11..20, 0.5/sqrt(3) after.
got=$(awk -F, 'NR == 2 || NR == 11 || NR == 12 || NR == 22 { printf "%s:%.9f ", $1, $6 }' sd.csv)
[[ "$got" == "1:0.500000000 10:0.500000000 11:0.353553391 21:0.288675135 " ]] || fail "step_decay gammas in the trace: $got"
echo "cli_out_of_tree: ok"
