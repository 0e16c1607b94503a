#!/usr/bin/env bash
# Installs a real Ironic (Debian 12: 21.4, API 1.82) for tests and `npm run ironic:start`.
# Idempotent and quiet when everything is there. genisoimage is what Ironic's deploy
# interfaces use to build a configdrive ISO from a JSON configdrive (openstacksdk tries
# genisoimage, mkisofs, xorrisofs); Debian pulls it in through python3-pycdlib, and it is named
# here so that it stays installed if that dependency changes.
set -euo pipefail

# python3-sushy is the Redfish library of Ironic's redfish hardware type (the virtual datacenter's
# BMCs are driven through it; the simulator's own tests use it as a client too).
packages=(ironic-api ironic-conductor genisoimage python3-sushy)

have() { command -v "$1" >/dev/null 2>&1; }

if have ironic && have ironic-dbsync && python3 -c 'import sushy' 2>/dev/null; then
  if ! have genisoimage && ! have mkisofs && ! have xorrisofs; then
    echo "ironic-install: note: genisoimage is missing; fake-hardware does not need it, real deploys of a JSON configdrive do (apt-get install genisoimage)" >&2
  fi
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "ironic-install: Ironic is missing; as root run: DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${packages[*]}" >&2
  exit 1
fi

if ! have apt-get; then
  echo "ironic-install: no apt-get here; install OpenStack Ironic (ironic and ironic-dbsync on PATH) and genisoimage by other means" >&2
  exit 1
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT

# Refresh the package lists only when they do not know the packages yet (a fresh image).
if ! apt-cache show "${packages[@]}" >/dev/null 2>&1; then
  if ! apt-get update >"$log" 2>&1; then
    cat "$log" >&2
    echo "ironic-install: apt-get update failed" >&2
    exit 1
  fi
fi

if ! DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${packages[@]}" >"$log" 2>&1; then
  tail -n 40 "$log" >&2
  echo "ironic-install: apt-get install ${packages[*]} failed" >&2
  exit 1
fi

if ! { have ironic && have ironic-dbsync; }; then
  echo "ironic-install: the packages installed but ironic/ironic-dbsync are not on PATH" >&2
  exit 1
fi
