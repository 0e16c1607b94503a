import { ociRegistryHost } from '../../api/index.ts';
import { secretContent, type Secret } from '../../api/secret.ts';

// spec.image.ociAuthSecretName, as BMO reads it (ImageAuthValidator): a docker config Secret in
// the host's namespace, of which only the entry for the image's registry is used, passed to
// Ironic's instance_info.image_pull_secret as base64 "username:password" — never the whole config.

const DOCKER_CONFIG_JSON = 'kubernetes.io/dockerconfigjson';
const DOCKER_CFG = 'kubernetes.io/dockercfg';

export type RegistryCredentials = { ok: true; pullSecret: string } | { ok: false; reason: string };

interface AuthEntry {
  readonly auth?: unknown;
  readonly username?: unknown;
  readonly password?: unknown;
}

/**
 * The pull secret for `imageUrl` from `secret`, or why there is none. Reasons name the Secret,
 * its type or keys and the registry, never a value: they become the host's error message.
 */
export function registryCredentials(secret: Secret, name: string, imageUrl: string): RegistryCredentials {
  const type = secret.type ?? '';
  if (type !== DOCKER_CONFIG_JSON && type !== DOCKER_CFG) {
    return { ok: false, reason: `secret "${name}" has unsupported type "${type}" (expected ${DOCKER_CONFIG_JSON} or ${DOCKER_CFG})` };
  }
  const host = ociRegistryHost(imageUrl);
  if (host === '') return { ok: false, reason: `failed to extract registry host from image URL` };
  const auths = authsOf(secret);
  if (!auths.ok) return { ok: false, reason: `failed to extract credentials from secret "${name}": ${auths.reason}` };
  const entry = lookUp(auths.auths, host);
  const pair = entry ? userAndPassword(entry) : null;
  if (!pair) return { ok: false, reason: `failed to extract credentials from secret "${name}": registry ${host} not found in auth config` };
  return { ok: true, pullSecret: Buffer.from(`${pair.username}:${pair.password}`, 'utf8').toString('base64') };
}

type Auths = { ok: true; auths: Record<string, AuthEntry> } | { ok: false; reason: string };

// .dockerconfigjson holds {"auths": {...}}; the legacy .dockercfg is that map alone.
function authsOf(secret: Secret): Auths {
  const json = secretContent(secret, '.dockerconfigjson');
  const cfg = json === undefined ? secretContent(secret, '.dockercfg') : undefined;
  if (json === undefined && cfg === undefined) return { ok: false, reason: 'secret does not contain .dockerconfigjson or .dockercfg key' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(json ?? cfg ?? '');
  } catch {
    return { ok: false, reason: `failed to parse ${json !== undefined ? 'dockerconfigjson' : 'dockercfg'}: not JSON` };
  }
  const map = json !== undefined ? (isObject(parsed) ? parsed['auths'] : undefined) : parsed;
  return { ok: true, auths: isObject(map) ? (map as Record<string, AuthEntry>) : {} };
}

// Docker's own lookup: the bare host, or a key written as a URL of it (https://host/v1/), with
// Docker Hub under any of its names.
function lookUp(auths: Record<string, AuthEntry>, host: string): AuthEntry | undefined {
  const hub = host === 'docker.io' || host === 'index.docker.io' || host === 'registry-1.docker.io';
  for (const [key, entry] of Object.entries(auths)) {
    const keyHost = key.replace(/^[a-z]+:\/\//i, '').split('/')[0] ?? '';
    if (keyHost === host) return entry;
    if (hub && (keyHost === 'docker.io' || keyHost === 'index.docker.io' || keyHost === 'registry-1.docker.io')) return entry;
  }
  return undefined;
}

function userAndPassword(entry: AuthEntry): { username: string; password: string } | null {
  if (typeof entry.auth === 'string' && entry.auth !== '') {
    const decoded = Buffer.from(entry.auth, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon > 0) return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
  }
  const username = typeof entry.username === 'string' ? entry.username : '';
  const password = typeof entry.password === 'string' ? entry.password : '';
  return username === '' && password === '' ? null : { username, password };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
