# Sourced by .ci/build.sh and .ci/sanitize.sh: install the Debian packages a script needs.
#   ensure_packages NAME PACKAGE...
# installs those of PACKAGE... that dpkg does not list (one `apt-get update`, then
# `apt-get install -y`) when run as root; otherwise prints the command to run and exits with 1.
# NAME starts the messages ("scfw: installing ...").
# missing_packages PACKAGE...: sets the array `missing` to those of PACKAGE... dpkg does not list.
missing_packages() {
  local p
  missing=()
  for p in "$@"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
}

# apt_update_once: `apt-get update` at most once per shell, however many of the functions
# below install something.
apt_update_once() {
  [[ -n ${scfw_apt_updated:-} ]] && return 0
  apt-get update && scfw_apt_updated=1
}

ensure_packages() {
  local name=$1 missing
  shift
  missing_packages "$@"
  [[ ${#missing[@]} -eq 0 ]] && return 0
  if [[ $(id -u) -eq 0 ]]; then
    echo "$name: installing ${missing[*]}" >&2
    apt_update_once
    DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
  else
    echo "$name: missing Debian packages; install them with:" >&2
    echo "sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
}

# offer_packages NAME PACKAGE...: the optional ones (MPI). As root, installs those missing and
# goes on with a warning when that fails; otherwise prints the command and goes on. scfw builds
# without them (CMake leaves the feature out).
offer_packages() {
  local name=$1 missing
  shift
  missing_packages "$@"
  [[ ${#missing[@]} -eq 0 ]] && return 0
  if [[ $(id -u) -eq 0 ]]; then
    echo "$name: installing the optional ${missing[*]}" >&2
    if ! (apt_update_once && DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"); then
      echo "$name: could not install ${missing[*]}; building without them" >&2
    fi
  else
    echo "$name: optional Debian packages missing (building without them); to add them:" >&2
    echo "sudo apt-get install -y ${missing[*]}" >&2
  fi
  return 0
}
