import { secretValue } from '../../api/index.ts';
import type { ObjectKind, ResourceEvent, ResourceKind, ResourceOf, ResourceStore, StoredObject } from '../../ports/index.ts';
import type { DependentsReader } from '../shard/index.ts';

// What one shard's MAAS router has seen of the store: every MaasMachine, MaasCluster, Machine and
// Cluster routed to it (the seed listing, then each watch event). A wake-up builds its world from
// here and reads the store only for what is never routed (the bootstrap Secret); who links to
// whom is the shard's dependents index (actors/shard/dependents-index.ts), built from what the
// MAAS kinds declare, so nothing here is a MAAS-only index. A shard holds whole Cluster API
// clusters, so everything a machine's world names is routed to it. Of a bootstrap Secret it keeps
// only whether it holds data (never the data), until the Secret changes.

/** The kinds a router sees: all of them route by `namespace/cluster`. */
export const SEEN_KINDS: readonly ObjectKind[] = ['MaasCluster', 'MaasMachine', 'Machine', 'Cluster'];

export class SeenObjects {
  private readonly objects = new Map<ObjectKind, Map<string, StoredObject>>(SEEN_KINDS.map((k) => [k, new Map()]));
  // `ns/<Secret>` to whether it holds bootstrap data, as last read; a Secret event forgets it,
  // and a read begun before any Secret event since is not kept (`secretEvents`).
  private readonly secretReady = new Map<string, boolean>();
  private secretEvents = 0;

  constructor(private readonly index: DependentsReader) {}

  /** Keeps the objects up to date with one store event of a seen kind; other kinds are ignored. */
  apply(e: ResourceEvent<ObjectKind>): void {
    if (e.kind === 'Secret') {
      this.secretEvents += 1;
      this.secretReady.delete(e.key);
      return;
    }
    const objects = this.objects.get(e.kind);
    if (!objects) return;
    if (e.type === 'deleted') objects.delete(e.key);
    else objects.set(e.key, e.object);
  }

  get(kind: ObjectKind, key: string): StoredObject | undefined {
    return this.objects.get(kind)?.get(key);
  }

  all(kind: ObjectKind): StoredObject[] {
    return [...(this.objects.get(kind)?.values() ?? [])];
  }

  /** The owner Machine of a MaasMachine: by owner reference, else the one whose infrastructureRef names it. */
  ownerMachine(mm: Pick<StoredObject, 'metadata'>): StoredObject | undefined {
    const ns = mm.metadata.namespace;
    const owner = mm.metadata.ownerReferences?.find((r) => r.kind === 'Machine');
    if (owner) return this.get('Machine', `${ns}/${owner.name}`);
    for (const key of this.index.sourcesOf('MaasMachine', `${ns}/${mm.metadata.name}`, 'Machine')) {
      const machine = this.get('Machine', key);
      if (machine) return machine;
    }
    return undefined;
  }

  /** The MaasMachine keys of a cluster (`ns`, cluster name): those a change of its Cluster wakes. */
  maasMachinesOf(ns: string, cluster: string): readonly string[] {
    return this.index.dependentsOf('Cluster', { metadata: { namespace: ns, name: cluster } }, 'MaasMachine');
  }

  /**
   * Whether a bootstrap Secret holds data: from the last read unless the Secret changed since;
   * `read` asks the store (a Secret is never routed, so its content is never seen).
   */
  async bootstrapDataReady(key: string, read: () => Promise<boolean>): Promise<boolean> {
    const known = this.secretReady.get(key);
    if (known !== undefined) return known;
    const events = this.secretEvents;
    const ready = await read();
    if (events === this.secretEvents) this.secretReady.set(key, ready);
    return ready;
  }
}

/**
 * The store as a MAAS actor of this shard reads it: the seen kinds answered from the router's
 * objects (no store read), whether bootstrap data is there from the last read until the Secret
 * changes, Secrets themselves (the deploy's user data) and every write from the store. `onRead`
 * hears each MaasMachine read (one per MaasMachine wake-up).
 */
export function seenStore(store: ResourceStore, seen: SeenObjects, onMachineRead?: () => void): ResourceStore & Pick<SeenObjects, 'ownerMachine' | 'maasMachinesOf'> & { bootstrapDataReady(namespace: string, name: string): Promise<boolean> } {
  const indexed = (kind: ResourceKind): kind is ObjectKind => (SEEN_KINDS as readonly ResourceKind[]).includes(kind);
  return {
    get: <K extends ResourceKind>(kind: K, key: string): Promise<ResourceOf<K> | undefined> => {
      if (kind === 'MaasMachine') onMachineRead?.();
      return indexed(kind) ? Promise.resolve(seen.get(kind, key) as ResourceOf<K> | undefined) : store.get(kind, key);
    },
    list: <K extends ResourceKind>(kind: K): Promise<ResourceOf<K>[]> => (indexed(kind) ? Promise.resolve(seen.all(kind) as ResourceOf<K>[]) : store.list(kind)),
    getSecret: (ns, name) => store.getSecret(ns, name),
    watch: (listener, options) => store.watch(listener, options),
    applyIntent: (kind, key, intent) => store.applyIntent(kind, key, intent),
    createObject: (kind, object, fence) => store.createObject(kind, object, fence),
    addOwnerReference: (kind, key, owner, fence) => store.addOwnerReference(kind, key, owner, fence),
    requestDelete: (kind, key) => store.requestDelete(kind, key),
    writeStatus: (kind, key, status, fence) => store.writeStatus(kind, key, status, fence),
    patchSpec: (kind, key, patch, fence) => store.patchSpec(kind, key, patch, fence),
    patchAnnotations: (kind, key, annotations, fence) => store.patchAnnotations(kind, key, annotations, fence),
    addFinalizer: (kind, key, finalizer, fence) => store.addFinalizer(kind, key, finalizer, fence),
    removeFinalizer: (kind, key, finalizer, fence) => store.removeFinalizer(kind, key, finalizer, fence),
    ownerMachine: (mm) => seen.ownerMachine(mm),
    maasMachinesOf: (ns, cluster) => seen.maasMachinesOf(ns, cluster),
    bootstrapDataReady: (ns, name) => seen.bootstrapDataReady(`${ns}/${name}`, async () => {
      const secret = await store.getSecret(ns, name);
      return secret !== undefined && secretValue(secret, 'value') !== undefined;
    }),
  };
}
