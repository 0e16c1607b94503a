import { parse, YAMLError } from 'yaml';
import type { HostData } from '../../../ports/index.ts';
import { nodeName } from './node-name.ts';

export type ConfigDrive = { ok: true; drive: Record<string, unknown> } | { ok: false; message: string };

// The config drive BMO hands Ironic: user data and network data from the host's Secrets, and
// metadata naming the host. Ironic (API >= 1.56) builds the ISO from this object. It carries
// user data, a secret: it goes to Ironic and nowhere else. Network or meta data that does not
// parse fails the deployment, with BMO's words (getConfigDrive): deployed without it, the host
// would come up without its network and nobody would know why.
export function configDrive(host: HostData): ConfigDrive {
  const meta = parseMapping(host.metaData);
  if (!meta.ok) return { ok: false, message: `failed to unmarshal metadata from secret (spec.metaData): ${meta.error}` };
  const network = parseMapping(host.networkData);
  if (!network.ok) return { ok: false, message: `failed to unmarshal network_data.json from secret (spec.networkData): ${network.error}` };
  return {
    ok: true,
    drive: {
      meta_data: {
        uuid: host.uid,
        'metal3-namespace': host.namespace,
        'metal3-name': host.name,
        'local-hostname': host.name,
        'local_hostname': host.name,
        name: nodeName(host),
        ...meta.value,
      },
      ...(host.userData !== undefined ? { user_data: host.userData } : {}),
      // BMO sends network data only when the Secret has some.
      ...(network.value !== undefined ? { network_data: network.value } : {}),
    },
  };
}

type Parsed = { ok: true; value: Record<string, unknown> | undefined } | { ok: false; error: string };

// Metal3 network data is often YAML (a superset of JSON); Ironic wants an object. Empty text (or
// a YAML null) is no data, as in BMO. The error says where the text breaks but never quotes it:
// the yaml library's message ends with the offending line, and the Secret's text stays secret.
function parseMapping(text: string | undefined): Parsed {
  if (text === undefined || text.trim() === '') return { ok: true, value: undefined };
  let parsed: unknown;
  try {
    parsed = parse(text);
  } catch (err) {
    const said = err instanceof YAMLError ? err.message : 'not YAML or JSON';
    return { ok: false, error: said.split(':\n')[0] ?? said };
  }
  if (parsed === null || parsed === undefined) return { ok: true, value: undefined };
  if (typeof parsed !== 'object' || Array.isArray(parsed)) {
    return { ok: false, error: `expected a mapping (an object), got ${Array.isArray(parsed) ? 'a list' : `a ${typeof parsed}`}` };
  }
  return { ok: true, value: parsed as Record<string, unknown> };
}
