# ./run.sh and ./test.sh install what they need through .ci/build.sh: a missing optional MPI
# package that cannot be installed leaves a warning and the build goes on (scfw builds without
# MPI); a missing required one still stops it. dpkg, apt-get, id and cmake are stand-ins here.
# Takes the source folder.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
SRC=$1

mkdir -p fake repo/.ci
cp "$SRC/.ci/build.sh" "$SRC/.ci/packages.sh" repo/.ci/
cat >fake/dpkg <<'SH'
#!/usr/bin/env bash
# "dpkg -s NAME": installed unless NAME is listed in $MISSING
[[ " $MISSING " == *" $2 "* ]] && exit 1 || exit 0
SH
cat >fake/apt-get <<'SH'
#!/usr/bin/env bash
[[ $1 == update ]] && exit 0
echo "E: Unable to locate package" >&2
exit 100
SH
printf '#!/usr/bin/env bash\necho 0\n' >fake/id
printf '#!/usr/bin/env bash\necho "cmake $*" >>"$CMAKE_LOG"\n' >fake/cmake
chmod +x fake/*
export CMAKE_LOG=$SCRATCH/cmake.log

build() {  # as run.sh does: a subshell that sources .ci/build.sh under set -euo pipefail
  run env PATH="$SCRATCH/fake:$PATH" MISSING="$1" bash -c 'set -euo pipefail; cd repo && build_target=scfw_runtime && source .ci/build.sh'
}

build "libopenmpi-dev libboost-mpi-dev"
expect_rc 0 "optional MPI packages that cannot be installed"
expect_contains "$ERR" "scfw: could not install libopenmpi-dev libboost-mpi-dev; building without them" \
  "optional MPI packages that cannot be installed"
grep -q -- "--build build --target scfw_runtime" "$CMAKE_LOG" || fail "the build did not run: $(cat "$CMAKE_LOG")"

: >"$CMAKE_LOG"
build "libeigen3-dev"
[[ $RC != 0 ]] || fail "a required package that cannot be installed did not stop the build"
[[ ! -s $CMAKE_LOG ]] || fail "the build ran without a required package: $(cat "$CMAKE_LOG")"
echo "cli_packages: ok"
