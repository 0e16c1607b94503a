#!/usr/bin/env bash
# Makes sure kubectl is on the PATH for the kubectl end-to-end and kustomize tests
# (test/e2e/kubectl.test.ts, test/kube-api/kubectl.test.ts, test/deploy/manifests.test.ts).
# Installs Debian's kubernetes-client with apt when it is missing; does nothing when it is there.
# Needs root (or sudo) only in that case.
set -euo pipefail
. "$(dirname "$0")/lib/apt.sh"

if command -v kubectl >/dev/null; then
  exit 0
fi
apt_install kubectl-install kubernetes-client
command -v kubectl >/dev/null
