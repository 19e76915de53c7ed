# Sourced by run.sh and test.sh, in a subshell, from the repository root: make sure the Debian
# packages are there, configure build/ (Release) the first time only, then build what changed.
# The caller may set, before sourcing:
#   build_target   the CMake target (default: all). run.sh builds scfw_runtime, the app and the
#                  plugins; test.sh everything (tests and benchmarks too).
#   build_quiet=1  cmake's output goes to build/build.log, printed only when the build fails; one
#                  line says when something is compiled. Nothing is printed when nothing changed.
# CMAKE_BUILD_PARALLEL_LEVEL, when set, is the number of parallel jobs (default: nproc).

# python3: the command-line tests check `scfw plugins --json` with it.
# gnuplot-nox: `scfw compare` renders its plots (SVG, PNG) with it.
# python3-dev, pybind11-dev, python3-numpy: the Python module (apps/python, docs/python.md);
# python3-matplotlib: its example (examples/python/cvar_portfolio.py), run by the tests.
packages=(g++ make cmake pkg-config libboost-dev libboost-program-options-dev libeigen3-dev
          coinor-libclp-dev nlohmann-json3-dev doctest-dev python3 gnuplot-nox
          python3-dev pybind11-dev python3-numpy python3-matplotlib)
# Optional: MPI (docs/scaling.md). Without them scfw builds and runs as one process.
optional_packages=(libopenmpi-dev openmpi-bin libboost-mpi-dev)
source .ci/packages.sh
ensure_packages scfw "${packages[@]}"
offer_packages scfw "${optional_packages[@]}"

build_target=${build_target:-all}
build_jobs=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}
first_build=0
[[ -f build/CMakeCache.txt ]] || first_build=1

scfw_build() {
  if [[ $first_build == 1 ]]; then
    cmake -S . -B build -DCMAKE_BUILD_TYPE=Release || return  # (set -e does not hold under `if`)
  fi
  cmake --build build --target "$build_target" -j"$build_jobs"
}

if [[ ${build_quiet:-0} != 1 ]]; then
  scfw_build
else
  mkdir -p build
  build_log=build/build.log
  : >"$build_log"
  if [[ $first_build == 1 ]]; then
    echo "scfw: building the app and its plugins in build/ (a first build takes about 4 minutes on 2 cores; log: $build_log)" >&2
  fi
  # Every line goes to the log; the first compile or link line (not the first build's: that one
  # was announced) prints one line, so that a rebuild is not a silent wait.
  log_build() {
    local said=$first_build line
    while IFS= read -r line; do
      printf '%s\n' "$line" >>"$build_log"
      if [[ $said == 0 && ( $line == *"Building CXX"* || $line == *"Linking"* ) ]]; then
        echo "scfw: rebuilding what changed (log: $build_log)" >&2
        said=1
      fi
    done
  }
  if ! scfw_build 2>&1 | log_build; then
    cat "$build_log" >&2
    echo "scfw: the build failed (the output above is in $build_log)" >&2
    exit 1
  fi
fi
