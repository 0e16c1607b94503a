import type { StoreWrite } from '../../machines/kind.ts';
import type { HostStore, ObjectKind, ObjectStore } from '../../ports/index.ts';

// Where a command's object is read and its intent written: one kind's objects in the store that
// keeps them. What to write is the kind's (its commandIntent); this only carries it to the store.

export interface CommandTarget {
  /** The store, as a message names it: 'host store'. */
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
  /** As `kubectl delete`; absent where the kind's objects are not deleted by command. */
  requestDelete?(key: string): Promise<'terminating' | 'deleted'>;
}

/** A BareMetalHost store: spec.online and annotations are the intent it records. */
export function hostStoreTarget(store: HostStore): CommandTarget {
  return {
    store: 'host store',
    noun: 'host',
    what: (type, key) => `${type} for ${key}`,
    get: (key) => store.get(key),
    ...(store.getFresh ? { getFresh: (key: string) => store.getFresh?.(key) ?? store.get(key) } : {}),
    async write(key, write) {
      const { online, ...rest } = write.spec ?? {};
      const other = Object.keys(rest);
      if (other.length > 0) throw new TypeError(`the host store records spec.online only, not spec.${other.join(', spec.')}`);
      const object = await store.applyIntent(key, {
        ...(write.annotations ? { annotations: write.annotations } : {}),
        ...(typeof online === 'boolean' ? { online } : {}),
      });
      return { changed: true, object };
    },
    requestDelete: (key) => store.requestDelete(key),
  };
}

/** An object-store kind (a MaasMachine): annotations and top-level spec fields, as `kubectl annotate` and `patch`. */
export function objectStoreTarget(objects: ObjectStore, kind: ObjectKind): CommandTarget {
  return {
    store: 'object store',
    noun: kind,
    what: (type, key) => `${type} for ${kind} ${key}`,
    get: (key) => objects.get(kind, key),
    async write(key, write) {
      let changed = false;
      if (write.spec) {
        await objects.patchSpec(kind, key, { ...write.spec });
        changed = true;
      }
      if (write.annotations) changed = (await objects.patchAnnotations(kind, key, write.annotations)) || changed;
      // The newest state for the reply; the intent is recorded either way.
      const object = await objects.get(kind, key).catch(() => undefined);
      return { changed, object };
    },
  };
}
