// The service-account controller of kube-controller-manager: every active namespace has a
// ServiceAccount `default`; a new namespace gets one, and a deleted one comes back. Only in strict
// mode, where namespaces are real (in implicit mode none exist).
import type { Registry } from './registry.ts';
import type { Store, StoreEvent } from './store.ts';
import { metaOf, objectKey, str } from './types.ts';
import { createObject, storeKey } from './writes.ts';

const NAMESPACES = 'namespaces';
const NAME = 'default';

/** Creates `default` in the namespace unless it is there or the namespace is gone or terminating. */
export function ensureDefaultServiceAccount(store: Store, registry: Registry, namespace: string): void {
  const ns = store.peek(NAMESPACES, namespace);
  if (!ns || metaOf(ns).deletionTimestamp) return;
  const target = registry.resolve('serviceaccounts');
  if (store.peek(storeKey(target.res), objectKey(namespace, NAME))) return;
  createObject({ store, ...target, namespace, dryRun: false }, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: NAME, namespace } });
}

/** The namespaces whose `default` ServiceAccount this event may call for. */
export function serviceAccountNamespaces(e: StoreEvent): string[] {
  if (e.resource === NAMESPACES && e.type === 'ADDED') return [str(metaOf(e.object).name)];
  if (e.resource === 'serviceaccounts' && e.type === 'DELETED' && metaOf(e.object).name === NAME) return [str(metaOf(e.object).namespace)];
  return [];
}
