#!/usr/bin/env bash
# Installs nats-server (Debian 12: 2.9) for the cluster tests, which start their own servers on
# free ports. Idempotent and quiet when it is there.
set -euo pipefail

if command -v nats-server >/dev/null 2>&1; then exit 0; fi

if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "nats-install: nats-server is missing; as root run: apt-get install -y nats-server (or put a nats-server >= 2.9 binary on PATH)" >&2
  exit 1
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nats-server >"$log" 2>&1; then
  apt-get update >>"$log" 2>&1 || true
  if ! DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nats-server >>"$log" 2>&1; then
    tail -20 "$log" >&2
    echo "nats-install: apt-get install nats-server failed" >&2
    exit 1
  fi
fi
# Debian starts a system service on 4222; the tests never use it.
echo "nats-install: installed $(nats-server --version)" >&2
