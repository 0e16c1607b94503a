#!/usr/bin/env bash
# The project's test command (README: `npm test`): installs what is missing (node modules,
# Ironic), type-checks and lints, runs every ava test, and ends with one line "N passed, M failed".
set -uo pipefail
cd "$(dirname "$0")/.."

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund >&2 || { echo "0 passed, 1 failed"; exit 1; }
fi

failed_checks=0
# Services the tests start for themselves (each test file its own, on free ports) must exist.
echo "== ensuring Ironic is installed" >&2
if ! bash scripts/ironic-install.sh >&2; then
  echo "could not install Ironic: the Ironic integration tests will fail" >&2
fi

echo "== ensuring nats-server is installed" >&2
if ! bash scripts/nats-install.sh >&2; then
  echo "could not install nats-server: the cluster tests will fail" >&2
fi

echo "== npm run check (tsc + eslint)" >&2
if ! npm run --silent check >&2; then
  echo "check failed: see the type or lint errors above" >&2
  failed_checks=1
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
echo "== ava" >&2
npx ava --tap "$@" 2>&1 | tee "$log" >&2
status=${PIPESTATUS[0]}

pass=$(grep -E '^# pass [0-9]+' "$log" | tail -1 | awk '{print $3}')
fail=$(grep -E '^# fail [0-9]+' "$log" | tail -1 | awk '{print $3}')
pass=${pass:-0}
fail=${fail:-0}
# A runner that died before its summary counts as a failure, never as a pass.
if [ "$status" -ne 0 ] && [ "$fail" -eq 0 ]; then fail=1; fi
fail=$((fail + failed_checks))
echo "${pass} passed, ${fail} failed"
[ "$fail" -eq 0 ]
