import type { BareMetalHost } from '../../api/index.ts';
import { secretRefsOf } from '../../machines/bmh/index.ts';

/** The Secrets a host names, as "<namespace>/<name>": BMC credentials and user/network/meta data. */
export function secretsNamedBy(host: BareMetalHost): string[] {
  return secretRefsOf(host).map((ref) => ref.key);
}

/** Hosts that name the Secret `secretKey`: a change to it is what their last failure waited for. */
export function hostsNamingSecret(hosts: Iterable<BareMetalHost>, secretKey: string): BareMetalHost[] {
  const out: BareMetalHost[] = [];
  for (const host of hosts) if (secretsNamedBy(host).includes(secretKey)) out.push(host);
  return out;
}
