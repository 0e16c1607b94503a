import type { HostEvent, HostStore } from './host-store.ts';
import type { ObjectEvent, ObjectStore } from './object-store.ts';
import type { ObjectKind, ResourceStore } from './resource-store.ts';

// The two per-family shapes callers had before the one store port (issue 29.1), as views of a
// ResourceStore: what a caller not yet moved to kind-keyed calls is handed. Each call is one call
// of the store; nothing is kept here.

const HOST = 'BareMetalHost';

/** The BareMetalHost family of `store`, as HostStore. */
export function hostStoreOf(store: ResourceStore): HostStore {
  const view: HostStore = {
    list: () => store.list(HOST),
    get: (key) => store.get(HOST, key),
    watch: (listener, options) => store.watch<'BareMetalHost'>((event) => {
      const told: HostEvent = event.type === 'deleted' ? { type: 'deleted', key: event.key } : { type: 'upsert', host: event.object };
      listener(told);
    }, { kinds: [HOST], ...(options?.keys ? { keys: options.keys } : {}) }),
    getSecret: (namespace, name) => store.getSecret(namespace, name),
    writeStatus: (key, status, fence) => store.writeStatus(HOST, key, status, fence),
    addFinalizer: (key, finalizer, fence) => store.addFinalizer(HOST, key, finalizer, fence),
    removeFinalizer: (key, finalizer, fence) => store.removeFinalizer(HOST, key, finalizer, fence),
    removeAnnotation: async (key, annotation, fence) => {
      await store.patchAnnotations(HOST, key, { [annotation]: null }, fence);
    },
    applyIntent: (key, intent) => store.applyIntent(HOST, key, {
      ...(intent.annotations ? { annotations: intent.annotations } : {}),
      ...(intent.online !== undefined || intent.spec ? { spec: { ...intent.spec, ...(intent.online !== undefined ? { online: intent.online } : {}) } } : {}),
    }),
    requestDelete: async (key) => {
      const outcome = await store.requestDelete(HOST, key);
      return outcome === 'missing' ? 'deleted' : outcome;
    },
  };
  const getFresh = store.getFresh?.bind(store);
  const recordEvent = store.recordEvent?.bind(store);
  const refusals = store.staleFenceRefusals?.bind(store);
  const recordProblem = store.recordProblem?.bind(store);
  const recordProblems = store.recordProblems?.bind(store);
  const close = store.close?.bind(store);
  return {
    ...view,
    ...(getFresh ? { getFresh: (key: string) => getFresh(HOST, key) } : {}),
    ...(recordEvent ? { recordEvent: (key: string, severity: 'Normal' | 'Warning', reason: string, message: string) => recordEvent(HOST, key, severity, reason, message) } : {}),
    ...(refusals ? { staleFenceRefusals: refusals } : {}),
    ...(recordProblem ? { recordProblem: (key: string) => recordProblem(HOST, key) } : {}),
    ...(recordProblems ? { recordProblems: () => recordProblems(HOST) } : {}),
    ...(close ? { close } : {}),
  };
}

/** The Cluster API family of `store`, as ObjectStore. */
export function objectStoreOf(store: ResourceStore): ObjectStore {
  const refusals = store.staleFenceRefusals?.bind(store);
  return {
    list: (kind) => store.list(kind),
    get: (kind, key) => store.get(kind, key),
    getSecret: (namespace, name) => store.getSecret(namespace, name),
    watch: (listener) => store.watch<ObjectKind>((event) => listener(event as ObjectEvent), { kinds: OBJECT_KINDS }),
    writeStatus: (kind, key, status, fence) => store.writeStatus(kind, key, status, fence),
    patchSpec: (kind, key, patch, fence) => store.patchSpec(kind, key, patch, fence),
    patchAnnotations: (kind, key, annotations, fence) => store.patchAnnotations(kind, key, annotations, fence),
    addFinalizer: (kind, key, finalizer, fence) => store.addFinalizer(kind, key, finalizer, fence),
    removeFinalizer: (kind, key, finalizer, fence) => store.removeFinalizer(kind, key, finalizer, fence),
    ...(refusals ? { staleFenceRefusals: refusals } : {}),
  };
}

const OBJECT_KINDS: readonly ObjectKind[] = ['MaasMachine', 'MaasCluster', 'Machine', 'Cluster', 'Secret'];
