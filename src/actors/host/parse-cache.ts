import type { ResourceStore, StoredObject } from '../../ports/index.ts';

export type CompanionKind = 'HostFirmwareSettings' | 'HostFirmwareComponents' | 'HostUpdatePolicy' | 'FirmwareSchema';

// One version of an object, as a store hands it out: its spec record's resourceVersion and its
// status. A store builds a new object on every get but keeps the status it holds until the next
// status write replaces it (the KV store's status records, a watch cache's objects), and a spec
// write gives a new resourceVersion: the same pair is the same object, its parse the same.
interface Parsed {
  readonly kind: CompanionKind;
  readonly key: string;
  readonly version: string;
  readonly status: unknown;
  readonly value: unknown;
}

/** Whether `object` is the version whose spec record was `version` and whose status was `status`. */
export function isVersion(object: StoredObject, version: string, status: unknown): boolean {
  return object.metadata.resourceVersion === version && object.status === status;
}

// The newest parse of each object, a few at most: what a zod parse made of a companion, reused
// while the store holds that version. An object without a resourceVersion is parsed every time.
// The parses are shared by every reader, who only read them (the machines are pure).
export class ParseCache {
  private entries: Parsed[] = [];

  constructor(private readonly size = 4) {}

  get(kind: CompanionKind, key: string, object: StoredObject): unknown {
    const version = object.metadata.resourceVersion;
    if (version === undefined) return undefined;
    for (const e of this.entries) {
      if (e.kind === kind && e.key === key) return isVersion(object, e.version, e.status) ? e.value : undefined;
    }
    return undefined;
  }

  set(kind: CompanionKind, key: string, object: StoredObject, value: unknown): void {
    const version = object.metadata.resourceVersion;
    if (version === undefined) return;
    const kept = this.entries.filter((e) => e.kind !== kind || e.key !== key);
    if (kept.length >= this.size) kept.shift();
    kept.push({ kind, key, version, status: object.status, value });
    this.entries = kept;
  }
}

const schemas = new WeakMap<ResourceStore, ParseCache>();

/** The FirmwareSchema parses of one store, shared by its hosts: one schema serves a vendor and model. */
export function schemaParses(store: ResourceStore): ParseCache {
  let cache = schemas.get(store);
  if (cache === undefined) schemas.set(store, (cache = new ParseCache(16)));
  return cache;
}
