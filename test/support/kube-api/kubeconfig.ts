// A kubeconfig for the test server: plain http needs `insecure-skip-tls-verify: true` and a user
// entry, or client-node refuses it (kube-api.md §0).
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { stringify } from 'yaml';

export const KUBECONFIG_CONTEXT = 'metalfleet-test';

export function kubeconfigYaml(url: string, namespace = 'default'): string {
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'kube-api-test', cluster: { server: url, 'insecure-skip-tls-verify': true } }],
    users: [{ name: 'test', user: { token: 'metalfleet-test-token' } }],
    contexts: [{ name: KUBECONFIG_CONTEXT, context: { cluster: 'kube-api-test', user: 'test', namespace } }],
    'current-context': KUBECONFIG_CONTEXT,
  });
}

export async function writeKubeconfig(dir: string, url: string): Promise<string> {
  const path = join(dir, 'kubeconfig.yaml');
  await writeFile(path, kubeconfigYaml(url), { mode: 0o600 });
  return path;
}

/** A fresh KubeConfig loaded from the file, as a program given that path would load it. */
export function loadKubeConfig(path: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(path);
  return kc;
}
