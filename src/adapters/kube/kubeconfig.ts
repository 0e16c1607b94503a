import { KubeConfig } from '@kubernetes/client-node';
import { StoreError } from '../../ports/index.ts';

export type KubeConfigSource = { readonly kind: 'file'; readonly path: string } | { readonly kind: 'in-cluster' };

// What a system error code on reading the file means to the person who gave the path.
const FILE_PROBLEMS: Readonly<Record<string, string>> = {
  ENOENT: 'the file does not exist',
  EACCES: 'the file is not readable by this process',
  EISDIR: 'it is a directory, not a file',
};

/**
 * A kubeconfig file, or the pod's service account (token and CA mounted by Kubernetes). The
 * client reads credentials from the file as needed; they never pass through our code or logs.
 */
export function loadKubeConfig(source: KubeConfigSource): KubeConfig {
  const config = new KubeConfig();
  const what = source.kind === 'file' ? `kubeconfig ${source.path}` : 'the in-cluster service account';
  try {
    if (source.kind === 'file') config.loadFromFile(source.path);
    else config.loadFromCluster();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const problem = code ? `${code}${FILE_PROBLEMS[code] ? ` (${FILE_PROBLEMS[code]})` : ''}` : error instanceof Error ? error.message.split('\n')[0] : 'unreadable';
    throw new StoreError(`cannot load ${what}: ${problem}`, false, { cause: error });
  }
  const problem = currentContextProblem(config);
  if (problem) throw new StoreError(`${what}: ${problem}`, false);
  return config;
}

// client-node resolves a current-context that names nothing to "no cluster" and a missing user
// to anonymous requests; both are typos in the file, said here by name. Names only, never a value.
function currentContextProblem(config: KubeConfig): string | null {
  const current = config.getCurrentContext();
  const names = (items: ReadonlyArray<{ name: string }>): string => (items.length > 0 ? items.map((i) => `"${i.name}"`).join(', ') : 'none');
  if (!current) return `no current-context is set (contexts: ${names(config.getContexts())}); set one with kubectl config use-context`;
  const context = config.getContextObject(current);
  if (!context) return `current-context "${current}" is not defined in its contexts (defined: ${names(config.getContexts())})`;
  if (!config.getCluster(context.cluster)) return `context "${current}" names cluster "${context.cluster}", which is not defined in its clusters (defined: ${names(config.getClusters())})`;
  if (context.user && !config.getUser(context.user)) return `context "${current}" names user "${context.user}", which is not defined in its users (defined: ${names(config.getUsers())})`;
  return null;
}
