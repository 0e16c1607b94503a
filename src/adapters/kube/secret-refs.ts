import type { BareMetalHost } from '../../api/index.ts';

/** The Secrets a host names, as "<namespace>/<name>": BMC credentials and user/network/meta data. */
export function secretsNamedBy(host: BareMetalHost): string[] {
  const ns = host.metadata.namespace;
  const spec = host.spec;
  const keys: string[] = [];
  if (spec.bmc?.credentialsName) keys.push(`${ns}/${spec.bmc.credentialsName}`);
  for (const field of ['userData', 'networkData', 'metaData'] as const) {
    const ref = spec[field];
    if (ref) keys.push(`${ref.namespace || ns}/${ref.name}`);
  }
  return keys;
}

/** Hosts that name the Secret `secretKey`: a change to it is what their last failure waited for. */
export function hostsNamingSecret(hosts: Iterable<BareMetalHost>, secretKey: string): BareMetalHost[] {
  const out: BareMetalHost[] = [];
  for (const host of hosts) if (secretsNamedBy(host).includes(secretKey)) out.push(host);
  return out;
}
