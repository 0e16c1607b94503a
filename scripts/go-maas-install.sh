#!/usr/bin/env bash
# Installs Go and juju's MAAS client (gomaasapi) from Debian for the MAAS simulator's client test
# (test/sim/maas-gomaasapi.test.ts builds test/sim/gomaasapi/main.go in GOPATH mode against
# /usr/share/gocode, so nothing is fetched from the network). Idempotent and quiet when both are there.
set -euo pipefail

GOMAASAPI=/usr/share/gocode/src/github.com/juju/gomaasapi/controller.go
if command -v go >/dev/null 2>&1 && [ -f "$GOMAASAPI" ]; then exit 0; fi

if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "go-maas-install: go or gomaasapi is missing; as root run: apt-get install -y golang-go golang-github-juju-gomaasapi-dev" >&2
  exit 1
fi

packages=(golang-go golang-github-juju-gomaasapi-dev)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${packages[@]}" >"$log" 2>&1; then
  apt-get update >>"$log" 2>&1 || true
  if ! DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${packages[@]}" >>"$log" 2>&1; then
    tail -20 "$log" >&2
    echo "go-maas-install: apt-get install ${packages[*]} failed" >&2
    exit 1
  fi
fi
if ! command -v go >/dev/null 2>&1 || [ ! -f "$GOMAASAPI" ]; then
  echo "go-maas-install: installed ${packages[*]} but go or $GOMAASAPI is still missing" >&2
  exit 1
fi
echo "go-maas-install: installed $(go version)" >&2
