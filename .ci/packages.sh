# Sourced by .ci/build.sh and .ci/sanitize.sh: install the Debian packages a script needs.
#   ensure_packages NAME PACKAGE...
# installs those of PACKAGE... that dpkg does not list (one `apt-get update`, then
# `apt-get install -y`) when run as root; otherwise prints the command to run and exits with 1.
# NAME starts the messages ("scfw: installing ...").
ensure_packages() {
  local name=$1 p
  shift
  local missing=()
  for p in "$@"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  [[ ${#missing[@]} -eq 0 ]] && return 0
  if [[ $(id -u) -eq 0 ]]; then
    echo "$name: installing ${missing[*]}" >&2
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
  else
    echo "$name: missing Debian packages; install them with:" >&2
    echo "sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
}
