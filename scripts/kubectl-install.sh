#!/usr/bin/env bash
# Makes sure kubectl is on the PATH for the kubectl end-to-end and kustomize tests
# (test/e2e/kubectl.test.ts, test/kube-api/kubectl.test.ts, test/deploy/manifests.test.ts).
# Installs Debian's kubernetes-client with apt when it is missing; does nothing when it is there.
# Needs root (or sudo) only in that case.
set -euo pipefail

if command -v kubectl >/dev/null; then
  exit 0
fi

if ! command -v apt-get >/dev/null; then
  echo "kubectl-install: kubectl is not installed and apt-get is not here; install kubectl (1.23 or later) yourself" >&2
  exit 1
fi

SUDO=()
if [ "$(id -u)" != 0 ]; then SUDO=(sudo); fi
echo "kubectl-install: installing kubernetes-client" >&2
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends kubernetes-client >&2 ||
  { "${SUDO[@]}" apt-get update >&2 && "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends kubernetes-client >&2; }
command -v kubectl >/dev/null
