import type { HostData } from '../../../ports/index.ts';

// BMO names nodes "<namespace>~<name>" so one Ironic can serve hosts of many namespaces.
export function nodeName(host: Pick<HostData, 'namespace' | 'name'>): string {
  return `${host.namespace}~${host.name}`;
}
