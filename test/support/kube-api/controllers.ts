// The controllers a real control plane runs that a kubectl user notices at once: CRDs become
// served resources (and their objects go with them), and a deleted namespace is emptied, then
// removed (the namespace controller's `kubernetes` finalizer); every namespace has a `default`
// ServiceAccount (service-accounts.ts).
import { resourceFromCrd } from './crd.ts';
import type { Registry } from './registry.ts';
import { ensureDefaultServiceAccount, serviceAccountNamespaces } from './service-accounts.ts';
import type { Store, StoreEvent } from './store.ts';
import { clone, metaOf, objectKey, str } from './types.ts';
import type { ResourceDef } from './types.ts';
import { deleteObject, storeKey } from './writes.ts';

const CRDS = 'customresourcedefinitions.apiextensions.k8s.io';
const NAMESPACES = 'namespaces';

export function startControllers(store: Store, registry: Registry): () => void {
  let sweepQueued = false;
  const onEvent = (e: StoreEvent): void => {
    if (e.resource === CRDS) syncCrd(e);
    if (store.strictNamespaces) {
      for (const ns of serviceAccountNamespaces(e)) setImmediate(() => ensureDefaultServiceAccount(store, registry, ns));
    }
    if (!sweepQueued) {
      sweepQueued = true;
      // After the write that triggered it, never inside it: the sweep writes too.
      setImmediate(() => {
        sweepQueued = false;
        sweepNamespaces();
      });
    }
  };

  const syncCrd = (e: StoreEvent): void => {
    if (e.type === 'DELETED') {
      const gone = registry.all().find((r) => !r.builtin && `${r.plural}.${r.group}` === str(metaOf(e.object).name));
      if (!gone) return;
      registry.remove(storeKey(gone));
      queueMicrotask(() => {
        for (const o of store.list(storeKey(gone))) store.remove(storeKey(gone), objectKey(str(metaOf(o).namespace), str(metaOf(o).name)));
      });
      return;
    }
    // Validated on write, so this does not throw for a stored CRD.
    registry.set(resourceFromCrd(clone(e.object), str(metaOf(e.object).name)));
  };

  const sweepNamespaces = (): void => {
    for (const ns of store.list(NAMESPACES)) {
      const meta = metaOf(ns);
      if (!meta.deletionTimestamp) continue;
      const name = str(meta.name);
      let remaining = 0;
      for (const res of registry.all().filter((r) => r.namespaced)) {
        for (const o of store.list(storeKey(res)).filter((x) => metaOf(x).namespace === name)) {
          remaining++;
          if (!metaOf(o).deletionTimestamp) deleteIn(res, name, str(metaOf(o).name));
        }
      }
      if (remaining > 0) continue;
      if (store.peek(NAMESPACES, name)) store.remove(NAMESPACES, name);
    }
  };

  const deleteIn = (res: ResourceDef, namespace: string, name: string): void => {
    const version = res.versions.find((v) => v.storage) ?? res.versions[0];
    if (!version) return;
    deleteObject({ store, res, version, namespace, dryRun: false }, name);
  };

  return store.subscribe(onEvent);
}
