# Shared helpers for the scripts (sourced).
step() { printf '\n\033[1m==> %s\033[0m\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# A free TCP port on loopback (the kernel's choice).
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Installs the Debian packages that are missing (as root, or with sudo);
# returns non-zero if it cannot. One install at a time across the scripts:
# test.sh and run.sh set up the local model beside the rest, and apt takes
# one lock (a second apt-get fails at once rather than waiting).
need_apt() {
  local missing=() pkg sudo=""
  for pkg in "$@"; do dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  if ! command -v apt-get >/dev/null; then
    printf 'error: apt-get not found; install %s yourself, then run this again\n' "${missing[*]}" >&2
    return 1
  fi
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { printf 'error: need root (or sudo) to install %s\n' "${missing[*]}" >&2; return 1; }
    sudo="sudo"
  fi
  step "installing ${missing[*]} (Debian packages)"
  (
    flock 9
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
  ) 9>"${TMPDIR:-/tmp}/imprint-apt.lock"
}
