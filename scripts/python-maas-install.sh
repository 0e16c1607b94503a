#!/usr/bin/env bash
# Makes sure Debian's python3 can import requests_oauthlib, which test/sim/python/check_maas.py
# (run by test/sim/maas-python.test.ts) needs. Installs python3-requests-oauthlib with apt when it
# is missing; does nothing when it is there. Needs root (or sudo) only in that case.
set -euo pipefail

PYTHON=${MAAS_PYTHON:-/usr/bin/python3}

if "$PYTHON" -c 'import requests_oauthlib' 2>/dev/null; then
  exit 0
fi

if ! command -v apt-get >/dev/null; then
  echo "python-maas-install: $PYTHON cannot import requests_oauthlib and apt-get is not here; install python3-requests-oauthlib (or pip install requests-oauthlib) yourself" >&2
  exit 1
fi

SUDO=()
if [ "$(id -u)" != 0 ]; then SUDO=(sudo); fi
echo "python-maas-install: installing python3-requests-oauthlib" >&2
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3-requests-oauthlib >&2 ||
  { "${SUDO[@]}" apt-get update >&2 && "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3-requests-oauthlib >&2; }
"$PYTHON" -c 'import requests_oauthlib'
