import type { RawObject } from './raw-object.ts';

// BMO's claim on a BMC Secret (pkg/secretutils): the label that puts it in the operator's cache
// and a finalizer while a BareMetalHost uses it, so `kubectl delete secret` cannot pull the
// credentials from under a host that still needs them (to deprovision, for one). Pure.

export const SECRET_ENVIRONMENT_LABEL = 'environment.metal3.io';
export const SECRET_ENVIRONMENT_VALUE = 'baremetal';
export const SECRET_FINALIZER = 'baremetalhost.metal3.io/secret';

/**
 * The merge patch that brings a Secret's claim in line with the hosts naming it as their BMC
 * credentials, or null when it already is. Used: the label (kept afterwards, as BMO keeps it)
 * and the finalizer; unused: the finalizer removed, and only ours. A Secret being deleted gets no
 * new finalizer (the API server forbids adding one) but keeps ours while a host still uses it.
 * The patch carries the resourceVersion it was computed from: a stale cache meets a 409.
 */
export function secretClaimPatch(secret: RawObject, usedByHosts: number): Record<string, unknown> | null {
  const meta = secret.metadata;
  const finalizers = meta.finalizers ?? [];
  const has = finalizers.includes(SECRET_FINALIZER);
  const metadata: Record<string, unknown> = {};
  if (usedByHosts > 0) {
    if (meta.labels?.[SECRET_ENVIRONMENT_LABEL] !== SECRET_ENVIRONMENT_VALUE) metadata['labels'] = { [SECRET_ENVIRONMENT_LABEL]: SECRET_ENVIRONMENT_VALUE };
    if (!has && meta.deletionTimestamp === undefined) metadata['finalizers'] = [...finalizers, SECRET_FINALIZER];
  } else if (has) {
    metadata['finalizers'] = finalizers.filter((f) => f !== SECRET_FINALIZER);
  }
  if (Object.keys(metadata).length === 0) return null;
  return { metadata: { ...metadata, ...(meta.resourceVersion ? { resourceVersion: meta.resourceVersion } : {}) } };
}

/** The BMC Secret a BareMetalHost names (`spec.bmc.credentialsName`, same namespace), as a cache key. */
export function credentialsKeyOf(host: RawObject): string | null {
  const spec = (host as { spec?: unknown }).spec;
  if (typeof spec !== 'object' || spec === null) return null;
  const bmc = (spec as { bmc?: unknown }).bmc;
  if (typeof bmc !== 'object' || bmc === null) return null;
  const name = (bmc as { credentialsName?: unknown }).credentialsName;
  if (typeof name !== 'string' || name === '') return null;
  return `${host.metadata.namespace ?? 'default'}/${name}`;
}
