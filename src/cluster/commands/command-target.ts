import type { StoreWrite } from '../../machines/kind.ts';
import type { ResourceKind, ResourceStore } from '../../ports/index.ts';

// Where a command's object is read and its intent written: one kind's objects in the one store.
// What to write is the kind's (its commandIntent); this only carries it to the store.

export interface CommandTarget {
  /** The store, as a message names it: 'store'. */
  readonly store: string;
  /** The object, as "while reading the …" names it: 'host', 'MaasMachine'. */
  readonly noun: string;
  /** The command, as a failure message opens: 'powerOff for lab/h-1'. */
  what(type: string, key: string): string;
  get(key: string): Promise<unknown>;
  /** The object past any cache (which may lag another node's write by a watch delivery). */
  getFresh?(key: string): Promise<unknown>;
  /** Records the write; `changed` false when the object already was so. */
  write(key: string, write: StoreWrite): Promise<{ readonly changed: boolean; readonly object: unknown }>;
  /** As `kubectl delete`, when the kind's intent says a command deletes. */
  requestDelete(key: string): Promise<'terminating' | 'deleted'>;
}

/**
 * A kind's objects in `store`: the write is the kind's annotations and top-level spec fields as
 * one intent (`kubectl annotate` and `patch`). A kind that declares its own noun (its
 * commandIntent's) is named by its key alone in messages, as before kinds were named; any other
 * by its kind. Whether a command deletes is the kind's intent's to say, not the target's.
 */
export function storeTarget(store: ResourceStore, kind: ResourceKind, noun?: string): CommandTarget {
  const getFresh = store.getFresh?.bind(store);
  return {
    store: 'store',
    noun: noun ?? kind,
    what: (type, key) => (noun ? `${type} for ${key}` : `${type} for ${kind} ${key}`),
    get: (key) => store.get(kind, key),
    ...(getFresh ? { getFresh: (key: string) => getFresh(kind, key) } : {}),
    async write(key, write) {
      // The store says whether this write changed the object: comparing versions before and after
      // told two commands of different ids, recorded at one moment, that both had.
      return store.applyIntent(kind, key, {
        ...(write.annotations ? { annotations: write.annotations } : {}),
        ...(write.spec ? { spec: write.spec } : {}),
      });
    },
    async requestDelete(key) {
      const outcome = await store.requestDelete(kind, key);
      return outcome === 'missing' ? 'deleted' : outcome;
    },
  };
}
