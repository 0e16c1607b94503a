import { secretValue } from '../../api/index.ts';
import type { ObjectEvent, ObjectKind, ObjectStore, StoredObject } from '../../ports/index.ts';
import { CLUSTER_LABEL, clusterNameOf } from './context.ts';

// What one shard's MAAS router has seen of the store: every MaasMachine, MaasCluster, Machine and
// Cluster routed to it (the seed listing, then each watch event), and who depends on whom. A
// wake-up builds its world from here and reads the store only for what is never routed (the
// bootstrap Secret), and the objects a change wakes are looked up here, never listed: a shard
// holds whole Cluster API clusters, so everything a machine's world names is routed to it. Of a
// bootstrap Secret it keeps only whether it holds data (never the data), until the Secret changes.

/** The kinds a router sees: all of them route by `namespace/cluster`. */
export const SEEN_KINDS: readonly ObjectKind[] = ['MaasCluster', 'MaasMachine', 'Machine', 'Cluster'];

interface MachineLinks {
  /** `ns/<MaasMachine>` its infrastructureRef names. */
  readonly target: string | undefined;
  /** `ns/<bootstrap Secret>`. */
  readonly secret: string | undefined;
}

export class SeenObjects {
  private readonly objects = new Map<ObjectKind, Map<string, StoredObject>>(SEEN_KINDS.map((k) => [k, new Map()]));
  // Machine key to what it links, so a changed or deleted Machine drops its old links.
  private readonly links = new Map<string, MachineLinks>();
  // `ns/<MaasMachine>` to the Machine key whose infrastructureRef names it.
  private readonly machineByTarget = new Map<string, string>();
  // `ns/<Secret>` to the MaasMachine key whose bootstrap data it holds.
  private readonly bySecret = new Map<string, string>();
  // `ns/<cluster>` to its MaasMachine and MaasCluster keys; a key to its `ns/<cluster>`.
  private readonly machinesOf = new Groups();
  private readonly clustersOf = new Groups();
  // `ns/<Secret>` to whether it holds bootstrap data, as last read; a Secret event forgets it,
  // and a read begun before any Secret event since is not kept (`secretEvents`).
  private readonly secretReady = new Map<string, boolean>();
  private secretEvents = 0;

  /** Keeps the index up to date with one store event of a seen kind; other kinds are ignored. */
  apply(e: ObjectEvent): void {
    if (e.kind === 'Secret') {
      this.secretEvents += 1;
      this.secretReady.delete(e.key);
      return;
    }
    const objects = this.objects.get(e.kind);
    if (!objects) return;
    if (e.type === 'deleted') {
      objects.delete(e.key);
      if (e.kind === 'Machine') this.link(e.key, undefined);
      if (e.kind === 'MaasMachine') this.machinesOf.remove(e.key);
      if (e.kind === 'MaasCluster') this.clustersOf.remove(e.key);
      return;
    }
    objects.set(e.key, e.object);
    const ns = namespaceOf(e.key);
    if (e.kind === 'Machine') this.link(e.key, e.object);
    if (e.kind === 'MaasCluster') this.clustersOf.put(e.key, `${ns}/${clusterNameOf(e.object)}`);
    if (e.kind === 'MaasMachine') {
      // Its label names its cluster; without one, the Machine that points at it does.
      const label = e.object.metadata.labels?.[CLUSTER_LABEL];
      const owner = this.ownerMachine(e.object);
      const cluster = label ?? clusterNameOfMachine(owner);
      if (cluster) this.machinesOf.put(e.key, `${ns}/${cluster}`);
    }
  }

  get(kind: ObjectKind, key: string): StoredObject | undefined {
    return this.objects.get(kind)?.get(key);
  }

  all(kind: ObjectKind): StoredObject[] {
    return [...(this.objects.get(kind)?.values() ?? [])];
  }

  /** The Machine whose infrastructureRef names this MaasMachine (`ns/name`). */
  machineFor(maasMachineKey: string): StoredObject | undefined {
    const key = this.machineByTarget.get(maasMachineKey);
    return key === undefined ? undefined : this.get('Machine', key);
  }

  /** The owner Machine of a MaasMachine: by owner reference, else by infrastructureRef. */
  ownerMachine(mm: Pick<StoredObject, 'metadata'>): StoredObject | undefined {
    const ns = mm.metadata.namespace;
    const owner = mm.metadata.ownerReferences?.find((r) => r.kind === 'Machine');
    return owner ? this.get('Machine', `${ns}/${owner.name}`) : this.machineFor(`${ns}/${mm.metadata.name}`);
  }

  /** The MaasMachine (key) a Machine or a bootstrap Secret change concerns. */
  dependentOf(kind: ObjectKind, key: string): string | undefined {
    if (kind === 'Secret') return this.bySecret.get(key);
    return kind === 'Machine' ? this.links.get(key)?.target : undefined;
  }

  /** The MaasMachine keys of a cluster (`ns`, cluster name). */
  maasMachinesOf(ns: string, cluster: string): readonly string[] {
    return this.machinesOf.members(`${ns}/${cluster}`);
  }

  /** The MaasCluster keys of a cluster: those it owns and the one it names as infrastructure. */
  maasClustersOf(ns: string, cluster: string): readonly string[] {
    const keys = new Set(this.clustersOf.members(`${ns}/${cluster}`));
    const ref = (this.get('Cluster', `${ns}/${cluster}`)?.spec?.['infrastructureRef'] ?? undefined) as { kind?: string; name?: string } | undefined;
    if (ref?.kind === 'MaasCluster' && ref.name && this.get('MaasCluster', `${ns}/${ref.name}`)) keys.add(`${ns}/${ref.name}`);
    return [...keys];
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

  /** The cluster (`ns/name`) a MaasMachine was last seen in. */
  clusterOfMachine(maasMachineKey: string): string | undefined {
    return this.machinesOf.groupOf(maasMachineKey);
  }

  private link(machineKey: string, machine: StoredObject | undefined): void {
    const old = this.links.get(machineKey);
    if (old?.target !== undefined && this.machineByTarget.get(old.target) === machineKey) this.machineByTarget.delete(old.target);
    if (old?.secret !== undefined && this.bySecret.get(old.secret) === old.target) this.bySecret.delete(old.secret);
    this.links.delete(machineKey);
    if (!machine) return;
    const ns = namespaceOf(machineKey);
    const spec = (machine.spec ?? {}) as { infrastructureRef?: { name?: unknown }; bootstrap?: { dataSecretName?: unknown } };
    const name = spec.infrastructureRef?.name;
    const target = typeof name === 'string' ? `${ns}/${name}` : undefined;
    const secretName = spec.bootstrap?.dataSecretName;
    const secret = typeof secretName === 'string' && target ? `${ns}/${secretName}` : undefined;
    this.links.set(machineKey, { target, secret });
    if (!target) return;
    this.machineByTarget.set(target, machineKey);
    if (secret) this.bySecret.set(secret, target);
    // A MaasMachine without a cluster label is in the cluster its Machine names.
    const mm = this.get('MaasMachine', target);
    const cluster = clusterNameOfMachine(machine);
    if (mm && !mm.metadata.labels?.[CLUSTER_LABEL] && cluster) this.machinesOf.put(target, `${ns}/${cluster}`);
  }
}

/**
 * The store as a MAAS actor of this shard reads it: the seen kinds answered from the index (no
 * store read), whether bootstrap data is there from the last read until the Secret changes,
 * Secrets themselves (the deploy's user data) and every write from the store. `onRead` hears each MaasMachine read (one
 * per MaasMachine wake-up).
 */
export function seenStore(store: ObjectStore, seen: SeenObjects, onMachineRead?: () => void): ObjectStore & Pick<SeenObjects, 'ownerMachine' | 'maasMachinesOf'> & { bootstrapDataReady(namespace: string, name: string): Promise<boolean> } {
  const indexed = (kind: ObjectKind): boolean => SEEN_KINDS.includes(kind);
  return {
    get: (kind, key) => {
      if (kind === 'MaasMachine') onMachineRead?.();
      return indexed(kind) ? Promise.resolve(seen.get(kind, key)) : store.get(kind, key);
    },
    list: (kind) => (indexed(kind) ? Promise.resolve(seen.all(kind)) : store.list(kind)),
    getSecret: (ns, name) => store.getSecret(ns, name),
    watch: (listener) => store.watch(listener),
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

/** Members by group and each member's group, one group per member. */
class Groups {
  private readonly byGroup = new Map<string, Set<string>>();
  private readonly groupOfMember = new Map<string, string>();

  put(member: string, group: string): void {
    if (this.groupOfMember.get(member) === group) return;
    this.remove(member);
    this.groupOfMember.set(member, group);
    const set = this.byGroup.get(group) ?? new Set<string>();
    set.add(member);
    this.byGroup.set(group, set);
  }

  remove(member: string): void {
    const group = this.groupOfMember.get(member);
    if (group === undefined) return;
    this.groupOfMember.delete(member);
    const set = this.byGroup.get(group);
    set?.delete(member);
    if (set?.size === 0) this.byGroup.delete(group);
  }

  members(group: string): readonly string[] {
    return [...(this.byGroup.get(group) ?? [])];
  }

  groupOf(member: string): string | undefined {
    return this.groupOfMember.get(member);
  }
}

function clusterNameOfMachine(machine: StoredObject | undefined): string | undefined {
  const name = (machine?.spec as { clusterName?: unknown } | undefined)?.clusterName;
  return typeof name === 'string' ? name : undefined;
}

function namespaceOf(key: string): string {
  return key.split('/')[0] ?? 'default';
}
