import type { MaasContext } from '../../machines/maas-machine/index.ts';
import type { ObjectStore, StoredObject } from '../../ports/index.ts';
import { secretValue } from '../../api/secret.ts';

export const CLUSTER_LABEL = 'cluster.x-k8s.io/cluster-name';
export const CONTROL_PLANE_LABEL = 'cluster.x-k8s.io/control-plane';

// The CAPI Machine that owns a MaasMachine: by owner reference, else by its infrastructureRef.
export async function ownerMachine(store: ObjectStore, mm: StoredObject): Promise<StoredObject | undefined> {
  const ns = mm.metadata.namespace;
  const owner = mm.metadata.ownerReferences?.find((r) => r.kind === 'Machine');
  if (owner) return store.get('Machine', `${ns}/${owner.name}`);
  const machines = await store.list('Machine');
  return machines.find((m) => m.metadata.namespace === ns && (m.spec?.['infrastructureRef'] as { name?: string } | undefined)?.name === mm.metadata.name);
}

export async function resolveContext(store: ObjectStore, mm: StoredObject): Promise<MaasContext & { bootstrapSecret: string | null }> {
  const machine = await ownerMachine(store, mm);
  const spec = (machine?.spec ?? {}) as { bootstrap?: { dataSecretName?: string }; clusterName?: string; failureDomain?: string };
  const secretName = spec.bootstrap?.dataSecretName ?? null;
  const secret = secretName ? await store.getSecret(mm.metadata.namespace, secretName) : undefined;
  const labels = { ...(machine?.metadata.labels ?? {}), ...(mm.metadata.labels ?? {}) };
  return {
    bootstrapReady: secret !== undefined && secretValue(secret, 'value') !== undefined,
    bootstrapSecret: secretName,
    controlPlane: CONTROL_PLANE_LABEL in labels,
    clusterName: labels[CLUSTER_LABEL] ?? spec.clusterName ?? null,
    failureDomain: spec.failureDomain ?? null,
  };
}

// CAPMAAS sends the bootstrap Secret's "value", standard base64. Read just before the deploy.
export async function bootstrapData(store: ObjectStore, namespace: string, secretName: string | null): Promise<string | undefined> {
  if (!secretName) return undefined;
  const secret = await store.getSecret(namespace, secretName);
  const value = secret ? secretValue(secret, 'value') : undefined;
  return value === undefined ? undefined : Buffer.from(value, 'utf8').toString('base64');
}
