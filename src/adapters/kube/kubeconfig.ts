import { KubeConfig } from '@kubernetes/client-node';
import { StoreError } from '../../ports/index.ts';

export type KubeConfigSource = { readonly kind: 'file'; readonly path: string } | { readonly kind: 'in-cluster' };

/**
 * A kubeconfig file, or the pod's service account (token and CA mounted by Kubernetes). The
 * client reads credentials from the file as needed; they never pass through our code or logs.
 */
export function loadKubeConfig(source: KubeConfigSource): KubeConfig {
  const config = new KubeConfig();
  try {
    if (source.kind === 'file') config.loadFromFile(source.path);
    else config.loadFromCluster();
  } catch (error) {
    const what = source.kind === 'file' ? `kubeconfig ${source.path}` : 'the in-cluster service account';
    const code = (error as NodeJS.ErrnoException).code;
    throw new StoreError(`cannot load ${what}: ${code ?? (error instanceof Error ? error.message.split('\n')[0] : 'unreadable')}`, false, { cause: error });
  }
  const cluster = config.getCurrentCluster();
  if (!cluster) throw new StoreError(`${source.kind === 'file' ? `kubeconfig ${source.path}` : 'in-cluster config'} names no current cluster (current-context: "${config.getCurrentContext()}")`, false);
  return config;
}
