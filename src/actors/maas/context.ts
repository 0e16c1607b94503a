import { CapiCluster, CapiMachine, CLUSTER_LABEL, MaasCluster, MaasMachine, MetalfleetError, secretValue } from '../../api/index.ts';
import type { MaasClusterWorld } from '../../machines/maas-cluster/index.ts';
import type { MaasMachineWorld } from '../../machines/maas-machine/index.ts';
import { clusterNameOf } from '../../machines/cluster-key.ts';
import type { Logger, ResourceStore, StoredObject } from '../../ports/index.ts';

export { CLUSTER_LABEL, CONTROL_PLANE_LABEL } from '../../api/index.ts';
export { clusterNameOf } from '../../machines/cluster-key.ts';

// The actors read the Cluster API side from the one ResourceStore and hand the machines typed objects:
// each is parsed with its schema here, and one that does not parse counts as absent (with a
// warning), so a machine never sees an untyped record.

function parse<T>(schema: { safeParse(v: unknown): { success: true; data: T } | { success: false; error: { message: string } } }, object: StoredObject | undefined, log: Logger): T | null {
  if (!object) return null;
  const r = schema.safeParse(object);
  if (r.success) return r.data;
  log.warn({ kind: object.kind, key: `${object.metadata.namespace}/${object.metadata.name}`, problems: r.error.message }, 'ignoring an object that does not parse');
  return null;
}

export function parseMaasMachine(object: StoredObject, log: Logger): MaasMachine | null {
  return parse(MaasMachine, object, log);
}

export function parseMaasCluster(object: StoredObject, log: Logger): MaasCluster | null {
  return parse(MaasCluster, object, log);
}

/**
 * Where the world is read from: the store, or (as a MAAS router hands its actors) the objects
 * the router has seen, which also answers the two lookups a store could only answer by listing
 * and whether bootstrap data is there without reading the Secret each time.
 */
export type WorldSource = ResourceStore & {
  ownerMachine?(mm: Pick<StoredObject, 'metadata'>): StoredObject | undefined;
  maasMachinesOf?(namespace: string, cluster: string): readonly string[];
  bootstrapDataReady?(namespace: string, name: string): Promise<boolean>;
};

// The CAPI Machine that owns a MaasMachine: by owner reference, else by its infrastructureRef.
export async function ownerMachine(store: WorldSource, mm: Pick<StoredObject, 'metadata'>): Promise<StoredObject | undefined> {
  if (store.ownerMachine) return store.ownerMachine(mm);
  const ns = mm.metadata.namespace;
  const owner = mm.metadata.ownerReferences?.find((r) => r.kind === 'Machine');
  if (owner) return store.get('Machine', `${ns}/${owner.name}`);
  const machines = await store.list('Machine');
  return machines.find((m) => m.metadata.namespace === ns && (m.spec?.['infrastructureRef'] as { name?: string } | undefined)?.name === mm.metadata.name);
}

/** The MaasCluster a Cluster names as its infrastructure, else the one of the same name. */
export async function infraCluster(store: ResourceStore, namespace: string, cluster: CapiCluster | null, clusterName: string | undefined): Promise<StoredObject | undefined> {
  const ref = cluster?.spec?.infrastructureRef;
  const name = ref && ref.kind === 'MaasCluster' ? ref.name : clusterName;
  return name ? store.get('MaasCluster', `${namespace}/${name}`) : undefined;
}

/** Everything a MaasMachine's step needs around it, and the bootstrap Secret's name for the deploy. */
export async function resolveMachineWorld(store: WorldSource, mm: MaasMachine, log: Logger): Promise<{ world: MaasMachineWorld; bootstrapSecret: string | null }> {
  const ns = mm.metadata.namespace;
  const machine = parse(CapiMachine, await ownerMachine(store, mm as unknown as StoredObject), log);
  const clusterName = machine?.spec.clusterName ?? mm.metadata.labels?.[CLUSTER_LABEL];
  const cluster = clusterName ? parse(CapiCluster, await store.get('Cluster', `${ns}/${clusterName}`), log) : null;
  const maasCluster = parse(MaasCluster, await infraCluster(store, ns, cluster, clusterName), log);
  const secretName = machine?.spec.bootstrap.dataSecretName ?? null;
  const ready = secretName ? await (store.bootstrapDataReady ? store.bootstrapDataReady(ns, secretName) : hasBootstrapData(store, ns, secretName)) : false;
  return {
    world: { machine, cluster, maasCluster, bootstrapDataReady: ready },
    bootstrapSecret: secretName,
  };
}

async function hasBootstrapData(store: ResourceStore, namespace: string, name: string): Promise<boolean> {
  const secret = await store.getSecret(namespace, name);
  return secret !== undefined && secretValue(secret, 'value') !== undefined;
}

/** The MaasCluster's Cluster and every MaasMachine of the cluster, typed. */
export async function resolveClusterWorld(store: WorldSource, mc: MaasCluster, log: Logger): Promise<MaasClusterWorld> {
  const ns = mc.metadata.namespace;
  const name = clusterNameOf(mc as unknown as StoredObject);
  const cluster = parse(CapiCluster, await store.get('Cluster', `${ns}/${name}`), log);
  // The seen objects know the cluster's machines; a plain store lists them all.
  const candidates = store.maasMachinesOf
    ? (await Promise.all(store.maasMachinesOf(ns, name).map((key) => store.get('MaasMachine', key)))).filter((m): m is StoredObject => m !== undefined)
    : await store.list('MaasMachine');
  const machines = candidates
    .filter((m) => m.metadata.namespace === ns && m.metadata.labels?.[CLUSTER_LABEL] === name)
    .map((m) => parse(MaasMachine, m, log))
    .filter((m): m is MaasMachine => m !== null);
  return { cluster, machines };
}

// CAPMAAS sends the bootstrap Secret's "value" as it is, standard base64. Read just before the
// deploy. Never trimmed (a cloud-config's final newline is part of it, as a host's user data is,
// secretContent), and `data` is passed on as bytes, not through a string: user data may be gzip.
export async function bootstrapData(store: ResourceStore, namespace: string, secretName: string | null): Promise<string | undefined> {
  if (!secretName) return undefined;
  const secret = await store.getSecret(namespace, secretName);
  const plain = secret?.stringData?.['value'];
  if (plain !== undefined) return Buffer.from(plain, 'utf8').toString('base64');
  const encoded = secret?.data?.['value'];
  return encoded === undefined ? undefined : Buffer.from(encoded, 'base64').toString('base64');
}

/**
 * The DNS domain MAAS said it does not have (the driver's dnsDomainNotFound: 404 "No Domain
 * matches the given query." to a DNS list, capmaas.md §3.2); null for any other failure.
 */
export function domainNotFound(err: unknown): string | null {
  if (!(err instanceof MetalfleetError) || err.code !== 'dnsDomainNotFound') return null;
  const domain: unknown = (err as { domain?: unknown }).domain;
  return typeof domain === 'string' ? domain : '';
}
