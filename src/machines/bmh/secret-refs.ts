import type { BareMetalHost } from '../../api/index.ts';

export const CREDENTIALS_FIELD = 'spec.bmc.credentialsName';
export const DATA_FIELDS = ['userData', 'networkData', 'metaData'] as const;

/** A Secret a host names: `namespace/name`, and the spec field that names it. */
export interface SecretRef {
  readonly key: string;
  readonly field: string;
}

/**
 * The Secrets a host names: BMC credentials (in the host's namespace) and user, network and meta
 * data (in the reference's namespace, else the host's).
 */
export function secretRefsOf(host: Pick<BareMetalHost, 'metadata' | 'spec'>): SecretRef[] {
  const ns = host.metadata.namespace;
  const spec = host.spec;
  const refs: SecretRef[] = [];
  if (spec.bmc?.credentialsName) refs.push({ key: `${ns}/${spec.bmc.credentialsName}`, field: CREDENTIALS_FIELD });
  for (const field of DATA_FIELDS) {
    const ref = spec[field];
    if (ref) refs.push({ key: `${ref.namespace || ns}/${ref.name}`, field: `spec.${field}` });
  }
  return refs;
}
