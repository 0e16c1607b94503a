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

echo "== ensuring chromium is installed" >&2
if ! bash scripts/chromium-install.sh >&2; then
  echo "could not install chromium: the dashboard's browser tests will fail" >&2
fi

echo "== ensuring kubectl is installed (the kubectl end-to-end tests)" >&2
if ! bash scripts/kubectl-install.sh >&2; then
  echo "could not install kubectl: the kubectl tests will fail" >&2
fi

echo "== ensuring Go and juju's gomaasapi are installed (the MAAS simulator's client test)" >&2
if ! bash scripts/go-maas-install.sh >&2; then
  echo "could not install golang-go / gomaasapi: the gomaasapi test will fail" >&2
fi

echo "== ensuring python3-requests-oauthlib is installed (the MAAS simulator's python checks)" >&2
if ! bash scripts/python-maas-install.sh >&2; then
  echo "could not install python3-requests-oauthlib: the MAAS python checks will fail" >&2
fi

# The package runs dist/ (npm ci builds it through prepare); build again so it is the tree's.
# The build and `npm run check` share nothing (neither tsc -p . nor eslint reads dist/) and each
# step is one thread: two lanes, one a core, take 45 s where one after the other took 80. Each
# lane's output is printed whole once both ended, so their errors never interleave.
echo "== npm run build (dist/) and npm run check (tsc + eslint), in two lanes" >&2
types_log=$(mktemp)
build_log=$(mktemp)
npm run --silent check:types >"$types_log" 2>&1 &
types_pid=$!
{ npm run --silent build && echo "== npm run check:lint" && npm run --silent check:lint; } >"$build_log" 2>&1 &
build_pid=$!
wait "$types_pid"
types_status=$?
wait "$build_pid"
build_status=$?
cat "$build_log" "$types_log" >&2
rm -f "$types_log" "$build_log"
if [ "$build_status" -ne 0 ]; then
  echo "build or lint failed: see the type or lint errors above" >&2
  failed_checks=1
fi
if [ "$types_status" -ne 0 ]; then
  echo "check failed: see the type errors above" >&2
  failed_checks=1
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
pass=0
fail=0
skip=0
# Runs one ava pass under a time limit and adds its counts; a runner that died or was stopped
# before its summary counts what it reported and one failure more, never a pass it did not see.
# The limit is a backstop: ava waits without a deadline for a test process that will not exit.
run_ava() {
  local limit=$1
  shift
  : >"$log"
  timeout --kill-after=20 "$limit" npx ava --tap "$@" 2>&1 | tee "$log" >&2
  local status=${PIPESTATUS[0]}
  local p f
  p=$(grep -E '^# pass [0-9]+' "$log" | tail -1 | awk '{print $3}')
  f=$(grep -E '^# fail [0-9]+' "$log" | tail -1 | awk '{print $3}')
  k=$(grep -E '^# skip [0-9]+' "$log" | tail -1 | awk '{print $3}')
  # Skipped tests by name: under CI a missing real server must show, never pass quietly.
  grep -E '^ok [0-9]+ .*# SKIP' "$log" | sed 's/^/skipped: /' >&2
  if [ -z "$p" ]; then
    p=$(grep -cE '^ok [0-9]+' "$log")
    f=$(grep -cE '^not ok [0-9]+' "$log")
  fi
  p=${p:-0}
  f=${f:-0}
  k=${k:-0}
  if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
    echo "ava did not finish within ${limit} s and was stopped" >&2
    f=$((f + 1))
  elif [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then
    f=1
  fi
  pass=$((pass + p))
  fail=$((fail + f))
  skip=$((skip + k))
}

if [ "$#" -gt 0 ]; then
  echo "== ava $*" >&2
  run_ava 1500 "$@"
else
  # Whole clusters of node processes run last and one file at a time: on 2 cores they would
  # otherwise starve the timing-sensitive tests running beside them (and be starved by them).
  echo "== ava (everything but the multi-process cluster tests)" >&2
  # 2,500 tests took 24-26 min on 2 slow cores: 1500 s stopped one clean run 2,309 tests in,
  # none failing. 3,000 took 28.8 min (1,730 s) on a slow day, too near 2,000 s; 3,100 took 33
  # min (1,978 s) on a slower one, too near 2,250; 3,250 were stopped at 2,400 s, 3,158 in
  # (two failing, since fixed), on a machine that had slowed by a third during the session. The limit only
  # catches a test process that never exits: past the 40-minute budget, where such a machine
  # lands, a slow pass still reports what it ran (and its time says the budget was missed).
  run_ava 2900 'test/**/*.test.ts' 'examples/*/test/**/*.test.ts' '!test/cluster/cluster-*.test.ts'
  echo "== ava (cluster tests: metalfleet node processes, one file at a time)" >&2
  run_ava 900 --concurrency 1 'test/cluster/cluster-*.test.ts'
fi
fail=$((fail + failed_checks))
# Under CI every real part the tests need is there (or their failure says which is not): a skip
# there is a test that did not run, so it counts as a failure too.
if [ "${CI:-}" = true ] && [ "$skip" -gt 0 ]; then
  echo "CI: ${skip} skipped test(s) count as failed (listed above)" >&2
  fail=$((fail + skip))
fi
echo "${pass} passed, ${fail} failed, ${skip} skipped"
[ "$fail" -eq 0 ]
