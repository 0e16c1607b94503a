# Sourced by the install scripts: apt_install TOOL PACKAGE... installs Debian packages with apt-get
# (through sudo when not root), running apt-get update once if the first try fails. TOOL names
# the caller in messages. Returns non-zero, with a line saying what to do, when it cannot.
apt_install() {
  local tool=$1
  shift
  if ! command -v apt-get >/dev/null; then
    echo "$tool: apt-get is not here; install $* yourself" >&2
    return 1
  fi
  local sudo=()
  if [ "$(id -u)" != 0 ]; then sudo=(sudo); fi
  echo "$tool: installing $*" >&2
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$@" >&2 ||
    { "${sudo[@]}" apt-get update >&2 && "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "$@" >&2; }
}
