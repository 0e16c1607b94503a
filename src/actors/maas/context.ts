import type { z } from 'zod';
import type { Condition } from '../../api/index.ts';
import { CapiCluster, CapiMachine, CLUSTER_LABEL, formatFieldError, MaasCluster, MaasMachine, MetalfleetError, pruneNulls, secretValue } from '../../api/index.ts';
import { structuralErrors } from '../../api/maas/structural.ts';
import type { MaasClusterWorld } from '../../machines/maas-cluster/index.ts';
import type { MaasMachineWorld } from '../../machines/maas-machine/index.ts';
import { conditionOf, setCondition } from '../../machines/maas-machine/index.ts';
import { clusterNameOf } from '../../machines/cluster-key.ts';
import type { Fence, Logger, ResourceStore, StoredObject } from '../../ports/index.ts';

export { CLUSTER_LABEL, CONTROL_PLANE_LABEL } from '../../api/index.ts';
export { clusterNameOf } from '../../machines/cluster-key.ts';

// The actors read the Cluster API side from the one ResourceStore and hand the machines typed objects:
// each is parsed with its schema here, and one that does not parse counts as absent (with a
// warning naming its fields, once per version), so a machine never sees an untyped record.

// The objects whose problems were last logged, per logger (a node's actors share theirs): one
// object is read by its own actor and by the actors around it on every wake-up, and its status
// writes give it new versions; its problems are said once per spec version and text.
const warned = new WeakMap<Logger, Map<string, string>>();
const WARNED_MAX = 10_000;

/**
 * What is wrong with an object that does not parse, one `path: reason` per problem in the words
 * `metalfleet validate` uses (api/maas/structural.ts); null when it parses.
 */
export function objectProblems(schema: z.ZodType, object: StoredObject): string | null {
  const errors = structuralErrors(schema, pruneNulls(object));
  return errors.length === 0 ? null : errors.map(formatFieldError).join('; ');
}

function parse<T>(schema: z.ZodType<T>, object: StoredObject | undefined, log: Logger): T | null {
  if (!object) return null;
  const r = schema.safeParse(object);
  const key = `${object.kind}:${object.metadata.namespace}/${object.metadata.name}`;
  let seen = warned.get(log);
  // Kept for objects that stay invalid (a deleted one is not told apart): bounded, a full map starts over.
  if (seen === undefined || seen.size >= WARNED_MAX) warned.set(log, (seen = new Map<string, string>()));
  if (r.success) {
    seen.delete(key);
    return r.data;
  }
  const problems = objectProblems(schema, object) ?? 'invalid';
  const version = `${String(object.metadata.generation ?? object.metadata.resourceVersion ?? '')} ${problems}`;
  if (seen.get(key) !== version) {
    seen.set(key, version);
    log.warn({ kind: object.kind, key: `${object.metadata.namespace}/${object.metadata.name}`, problems }, `ignoring a ${object.kind} that does not parse: ${problems}`);
  }
  return null;
}

/** The Ready reason of a MAAS object whose spec the CRD accepted but metalfleet cannot read (no webhook ran). */
export const INVALID_SPEC = 'InvalidSpec';

/**
 * Marks an object that does not parse on itself, as a crashed actor's is (markMaasCrashed): a
 * Ready=False condition, reason InvalidSpec, naming each field and what is wrong with it. Written
 * only when that condition is not there already: a status write is a new version, which wakes the
 * actor again. Nothing else of the status is touched.
 */
export async function markInvalidSpec(store: ResourceStore, kind: 'MaasMachine' | 'MaasCluster', object: StoredObject, problems: string, now: number, fence?: Fence): Promise<void> {
  const raw = object.status;
  const status: Record<string, unknown> = raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? { ...(raw as Record<string, unknown>) } : {};
  const list = Array.isArray(status['conditions']) ? (status['conditions'] as Condition[]) : [];
  const message = `${kind} is not valid, so metalfleet does not act on it (no admission webhook refused it): ${problems}`;
  const ready = conditionOf(list, 'Ready');
  if (ready?.status === 'False' && ready.reason === INVALID_SPEC && ready.message === message) return;
  const key = `${object.metadata.namespace}/${object.metadata.name}`;
  await store.writeStatus(kind, key, { ...status, conditions: setCondition(list, 'Ready', { status: 'False', reason: INVALID_SPEC, message }, now) }, fence);
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
