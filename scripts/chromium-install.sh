#!/usr/bin/env bash
# Installs Debian's chromium for the dashboard's browser tests (test/ui), which drive it with
# playwright-core (never `npx playwright install`: no browser download at test time). Idempotent
# and quiet when it is there.
set -euo pipefail

if [ -x /usr/bin/chromium ]; then exit 0; fi

if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "chromium-install: /usr/bin/chromium is missing; as root run: apt-get install -y chromium" >&2
  exit 1
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium >"$log" 2>&1; then
  apt-get update >>"$log" 2>&1 || true
  if ! DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium >>"$log" 2>&1; then
    tail -20 "$log" >&2
    echo "chromium-install: apt-get install chromium failed" >&2
    exit 1
  fi
fi
echo "chromium-install: installed $(/usr/bin/chromium --version 2>/dev/null || echo chromium)" >&2
