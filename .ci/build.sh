# Sourced by run.sh and test.sh, in a subshell, from the repository root: make sure the Debian
# packages are there, configure build/ (Release) the first time only, then build what changed.

# python3: the command-line tests check `scfw plugins --json` with it.
# gnuplot-nox: `scfw compare` renders its plots (SVG, PNG) with it.
packages=(g++ make cmake pkg-config libboost-dev libboost-program-options-dev libeigen3-dev
          coinor-libclp-dev nlohmann-json3-dev doctest-dev python3 gnuplot-nox)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  if [[ $(id -u) -eq 0 ]]; then
    echo "scfw: installing ${missing[*]}" >&2
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
  else
    echo "scfw: missing Debian packages; install them with:" >&2
    echo "sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi

if [[ ! -f build/CMakeCache.txt ]]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
fi
cmake --build build -j"$(nproc)"
