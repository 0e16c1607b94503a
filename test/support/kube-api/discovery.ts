// Legacy (application/json) discovery documents for core v1 and every served group (kube-api.md
// §11); client-go picks the parser by Content-Type, so this is enough for it and for kubectl.
import type { Registry } from './registry.ts';
import { hasScale } from './scale.ts';
import type { ResourceDef } from './types.ts';

const CR_VERBS = ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'];
const BUILTIN_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
const NAMESPACE_VERBS = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];

// Kubernetes version priority: GA over beta over alpha, then the higher number.
function versionRank(v: string): [number, number, number] {
  const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
  if (!m) return [0, 0, 0];
  return [m[2] === undefined ? 3 : m[2] === 'beta' ? 2 : 1, Number(m[1]), Number(m[3] ?? 0)];
}

function byPriority(a: string, b: string): number {
  const [x, y] = [versionRank(a), versionRank(b)];
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return (y[i] as number) - (x[i] as number);
  return a < b ? -1 : 1;
}

export function apiVersions(hostPort: string): object {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress: hostPort }] };
}

function groupDoc(registry: Registry, group: string): { name: string; versions: object[]; preferredVersion: object } {
  const versions = [...new Set(registry.all().filter((r) => r.group === group).flatMap((r) => r.versions.map((v) => v.name)))].sort(byPriority);
  const entry = (version: string): object => ({ groupVersion: `${group}/${version}`, version });
  return { name: group, versions: versions.map(entry), preferredVersion: entry(versions[0] as string) };
}

export function apiGroupList(registry: Registry): object {
  const groups = [...new Set(registry.all().map((r) => r.group).filter((g) => g !== ''))];
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: groups.map((g) => groupDoc(registry, g)) };
}

export function apiGroup(registry: Registry, group: string): object {
  return { kind: 'APIGroup', apiVersion: 'v1', ...groupDoc(registry, group) };
}

export function apiResourceList(registry: Registry, group: string, version: string): object {
  const resources: object[] = [];
  for (const res of registry.all()) {
    const v = res.group === group ? res.versions.find((x) => x.name === version) : undefined;
    if (!v) continue;
    resources.push(entry(res));
    if (v.status) resources.push({ name: `${res.plural}/status`, singularName: '', namespaced: res.namespaced, kind: res.kind, verbs: ['get', 'patch', 'update'] });
    if (hasScale(res)) resources.push({ name: `${res.plural}/scale`, singularName: '', namespaced: res.namespaced, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] });
  }
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: group ? `${group}/${version}` : version, resources };
}

function entry(res: ResourceDef): object {
  const verbs = !res.builtin ? CR_VERBS : res.builtin === 'namespaces' ? NAMESPACE_VERBS : BUILTIN_VERBS;
  const out: Record<string, unknown> = { name: res.plural, singularName: res.singular, namespaced: res.namespaced, kind: res.kind, verbs };
  if (res.shortNames.length > 0) out.shortNames = res.shortNames;
  if (res.categories.length > 0) out.categories = res.categories;
  return out;
}

export const VERSION_INFO = {
  major: '1', minor: '34', emulationMajor: '1', emulationMinor: '34', minCompatibilityMajor: '1', minCompatibilityMinor: '33',
  gitVersion: 'v1.34.0', gitCommit: '0000000000000000000000000000000000000000', gitTreeState: 'clean', buildDate: '2025-08-27T00:00:00Z',
  goVersion: 'go1.24.6', compiler: 'gc', platform: 'linux/amd64',
};
