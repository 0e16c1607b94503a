import type { HostEvent, HostStore } from './host-store.ts';
import type { ResourceStore } from './resource-store.ts';

// The BareMetalHost shape callers had before the one store port (issue 29.1), as a view of a
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
