import { isOciUrl, type BareMetalHost } from '../../api/index.ts';
import { secretContent, secretValue } from '../../api/secret.ts';
import type { CallArgs, CredentialsUsed, OpResult } from '../../machines/bmh/index.ts';
import { CREDENTIALS_FIELD } from '../../machines/bmh/index.ts';
import type { HostData, ResourceStore } from '../../ports/index.ts';
import { resourceKey as hostKey } from '../../ports/index.ts';
import { registryCredentials } from './registry-credentials.ts';

export type Resolved = { ok: true; data: HostData; credentials?: CredentialsUsed } | { ok: false; result: OpResult };

// Secrets are read just before the call that needs them and live only for that call.
export async function resolveHostData(host: BareMetalHost, args: CallArgs, store: Pick<ResourceStore, 'getSecret'>, missingRetryMs: number): Promise<Resolved> {
  const ns = host.metadata.namespace;
  let data: HostData = {
    key: hostKey(host),
    namespace: ns,
    name: host.metadata.name,
    uid: host.metadata.uid ?? hostKey(host),
    provisionerId: host.status?.provisioning.ID ?? '',
    labels: host.metadata.labels ?? {},
    spec: host.spec,
    credentials: null,
  };
  if (args.op === 'register') {
    const credentialsName = host.spec.bmc?.credentialsName;
    if (!credentialsName) return failed('spec.bmc.credentialsName is empty: name the Secret holding the BMC username and password', null);
    const key = `${ns}/${credentialsName}`;
    const secret = await store.getSecret(ns, credentialsName);
    // Messages as BMO's; the host continues as soon as the Secret appears or changes.
    if (!secret) return waitFor(key, CREDENTIALS_FIELD, `BMC credentials Secret ${key} not found`, missingRetryMs);
    const username = secretValue(secret, 'username');
    const password = secretValue(secret, 'password');
    if (!username) return waitFor(key, CREDENTIALS_FIELD, `BMC credentials Secret ${key}: key "username" is missing or empty`, null);
    if (!password) return waitFor(key, CREDENTIALS_FIELD, `BMC credentials Secret ${key}: key "password" is missing or empty`, null);
    data = { ...data, credentials: { username, password } };
    // Which Secret and which version of it: BMO's triedCredentials/goodCredentials, and how the
    // backend learns the credentials changed (it cannot read a password back to compare).
    const credentials: CredentialsUsed = { name: credentialsName, namespace: ns, version: secret.metadata.resourceVersion ?? '' };
    return { ok: true, data, credentials };
  }
  if (args.op === 'provision') {
    const extra: { userData?: string; networkData?: string; metaData?: string } = {};
    for (const field of ['userData', 'networkData', 'metaData'] as const) {
      const ref = host.spec[field];
      if (!ref) continue;
      const namespace = ref.namespace || ns;
      const secret = await store.getSecret(namespace, ref.name);
      // A wait, not a failure: nothing was deployed, so nothing must be cleaned up.
      if (!secret) return waitFor(`${namespace}/${ref.name}`, `spec.${field}`, `waiting for Secret ${namespace}/${ref.name} (spec.${field}), which does not exist; provisioning continues as soon as it does`);
      const value = secretContent(secret, field) ?? secretContent(secret, 'value') ?? firstValue(secret);
      // BMO refuses such a Secret too (NoDataInSecretError) rather than deploy without the data.
      if (value === undefined) return waitFor(`${namespace}/${ref.name}`, `spec.${field}`, `waiting for Secret ${namespace}/${ref.name} (spec.${field}), which has no key "${field}" or "value"; provisioning continues as soon as it has one`);
      extra[field] = value;
    }
    data = { ...data, ...extra };
    const pull = await pullSecret(host, store);
    if (!pull.ok) return pull;
    if (pull.pullSecret !== undefined) data = { ...data, imagePullSecret: pull.pullSecret };
  }
  return { ok: true, data };
}

// BMO's ImageAuthValidator: only for an oci:// image naming a Secret; a Secret that is missing or
// unusable is this provisioning attempt's error (bmo.md: a bad OCI secret is a provisioning error).
async function pullSecret(host: BareMetalHost, store: Pick<ResourceStore, 'getSecret'>): Promise<{ ok: true; pullSecret?: string } | { ok: false; result: OpResult }> {
  const image = host.spec.image;
  const name = image?.ociAuthSecretName ?? '';
  if (!image || name === '' || !isOciUrl(image.url)) return { ok: true };
  const ns = host.metadata.namespace;
  const secret = await store.getSecret(ns, name);
  if (!secret) return failed(`auth secret "${name}" not found in namespace "${ns}"`, null);
  const found = registryCredentials(secret, name, image.url);
  return found.ok ? { ok: true, pullSecret: found.pullSecret } : failed(found.reason, null);
}

function waitFor(secret: string, field: string, message: string, retryAfterMs?: number | null): Resolved {
  return { ok: false, result: { kind: 'waitForSecret', secret, field, message, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) } };
}

function failed(message: string, retryAfterMs: number | null): Resolved {
  return { ok: false, result: { kind: 'failed', message, retryAfterMs } };
}

function firstValue(secret: Parameters<typeof secretValue>[0]): string | undefined {
  const keys = Object.keys({ ...(secret.data ?? {}), ...(secret.stringData ?? {}) });
  return keys.length === 1 && keys[0] !== undefined ? secretContent(secret, keys[0]) : undefined;
}
