import { parse } from 'yaml';
import type { HostData } from '../../../ports/index.ts';
import { nodeName } from './node-name.ts';

// The config drive BMO hands Ironic: user data and network data from the host's Secrets, and
// metadata naming the host. Ironic (API >= 1.56) builds the ISO from this object. It carries
// user data, a secret: it goes to Ironic and nowhere else.
export function configDrive(host: HostData): Record<string, unknown> {
  const meta = parseJson(host.metaData);
  return {
    meta_data: {
      uuid: host.uid,
      'metal3-namespace': host.namespace,
      'metal3-name': host.name,
      'local-hostname': host.name,
      'local_hostname': host.name,
      name: nodeName(host),
      ...meta,
    },
    ...(host.userData !== undefined ? { user_data: host.userData } : {}),
    ...(host.networkData !== undefined ? { network_data: parseJson(host.networkData) ?? {} } : {}),
  };
}

// Metal3 network data is often YAML (a superset of JSON); Ironic wants an object. Text that is
// not a mapping is left out rather than sent malformed.
function parseJson(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  try {
    const parsed: unknown = parse(text);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
