#!/usr/bin/env bash
# Makes sure Debian's python3 can import requests_oauthlib, which test/sim/python/check_maas.py
# (run by test/sim/maas-python.test.ts) needs. Installs python3-requests-oauthlib with apt when it
# is missing; does nothing when it is there. Needs root (or sudo) only in that case.
set -euo pipefail
. "$(dirname "$0")/lib/apt.sh"

PYTHON=${MAAS_PYTHON:-/usr/bin/python3}

if "$PYTHON" -c 'import requests_oauthlib' 2>/dev/null; then
  exit 0
fi
apt_install python-maas-install python3-requests-oauthlib
"$PYTHON" -c 'import requests_oauthlib'
