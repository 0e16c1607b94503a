// How server-side apply treats each list (structured-merge-diff's schema, from the OpenAPI
// `x-kubernetes-list-type`): `map` lists merge and are owned per element, keyed by
// `x-kubernetes-list-map-keys`; `set` lists per value; every other list is atomic, and so are the
// objects marked `x-kubernetes-map-type: atomic` (label selectors, a Service's selector). The built-in
// kinds' entries are the Go types' `+listType`/`+listMapKey` markers (k8s.io/api, 1.34); a key
// field with a `+default` (a port's protocol) takes it when the element leaves it out. CRDs declare
// theirs in the schema. A path names fields from the root, list elements transparent, as in
// patch-strategies.ts (`spec.template.spec.containers.env`).
import type { JsonSchema } from './schema.ts';
import type { BuiltinKind, ResourceDef, VersionDef } from './types.ts';

export type ListType =
  | { readonly type: 'map'; readonly keys: readonly string[]; readonly defaults?: Readonly<Record<string, unknown>> }
  | { readonly type: 'set' }
  /** An object owned and replaced whole (`+structType=atomic`, `+mapType=atomic`). */
  | { readonly type: 'atomic' };

export type ListTypes = (path: readonly string[]) => ListType | undefined;

const map = (...keys: string[]): ListType => ({ type: 'map', keys });
const set: ListType = { type: 'set' };
const atomic: ListType = { type: 'atomic' };
const tcp = (...keys: string[]): ListType => ({ type: 'map', keys, defaults: { protocol: 'TCP' } });

const objectMeta = (at: string): Record<string, ListType> => ({ [`${at}.finalizers`]: set, [`${at}.ownerReferences`]: map('uid') });

function container(at: string): Record<string, ListType> {
  return {
    [at]: map('name'), [`${at}.ports`]: tcp('containerPort', 'protocol'), [`${at}.env`]: map('name'),
    [`${at}.volumeMounts`]: map('mountPath'), [`${at}.volumeDevices`]: map('devicePath'),
  };
}

function podTemplate(at: string): Record<string, ListType> {
  const spec = `${at}.spec`;
  return {
    ...objectMeta(`${at}.metadata`),
    ...container(`${spec}.containers`), ...container(`${spec}.initContainers`), ...container(`${spec}.ephemeralContainers`),
    [`${spec}.volumes`]: map('name'), [`${spec}.imagePullSecrets`]: map('name'), [`${spec}.hostAliases`]: map('ip'),
    [`${spec}.topologySpreadConstraints`]: map('topologyKey', 'whenUnsatisfiable'), [`${spec}.resourceClaims`]: map('name'),
    [`${spec}.schedulingGates`]: map('name'), [`${spec}.topologySpreadConstraints.labelSelector`]: atomic,
  };
}

const conditions = (at: string): Record<string, ListType> => ({ [`${at}.conditions`]: map('type') });

// LabelSelector is `+structType=atomic`.
const webhooks: Record<string, ListType> = {
  webhooks: map('name'), 'webhooks.matchConditions': map('name'), 'webhooks.namespaceSelector': atomic, 'webhooks.objectSelector': atomic,
};

const BY_KIND: Partial<Record<BuiltinKind, Record<string, ListType>>> = {
  namespaces: conditions('status'),
  deployments: { 'spec.selector': atomic, ...podTemplate('spec.template'), ...conditions('status') },
  daemonsets: { 'spec.selector': atomic, ...podTemplate('spec.template'), ...conditions('status') },
  replicasets: { 'spec.selector': atomic, ...podTemplate('spec.template'), ...conditions('status') },
  statefulsets: { 'spec.selector': atomic, ...podTemplate('spec.template'), ...conditions('status') },
  jobs: { 'spec.selector': atomic, ...podTemplate('spec.template'), ...conditions('status') },
  cronjobs: podTemplate('spec.jobTemplate.spec.template'),
  services: { 'spec.ports': tcp('port', 'protocol'), 'spec.selector': atomic, ...conditions('status') },
  serviceaccounts: { secrets: map('name') },
  poddisruptionbudgets: { 'spec.selector': atomic, ...conditions('status') },
  // NetworkPolicySpec: podSelector is a LabelSelector (atomic); ingress, egress and policyTypes are
  // `+listType=atomic`, as lists are here unless marked otherwise.
  networkpolicies: { 'spec.podSelector': atomic },
  validatingwebhookconfigurations: webhooks,
  mutatingwebhookconfigurations: webhooks,
};

const cache = new WeakMap<VersionDef, Record<string, ListType>>();

/** The list types of a resource's version: the built-in table, or the CRD schema's markers. */
export function listTypesOf(res: ResourceDef, version: VersionDef): ListTypes {
  let table = res.builtin ? undefined : cache.get(version);
  if (!table) {
    table = { ...objectMeta('metadata'), ...(res.builtin ? BY_KIND[res.builtin] : fromSchema(version.schema)) };
    if (!res.builtin) cache.set(version, table);
  }
  const found = table;
  return (path) => found[path.join('.')];
}

function fromSchema(schema: JsonSchema | undefined): Record<string, ListType> {
  const out: Record<string, ListType> = {};
  const walk = (s: JsonSchema | undefined, path: readonly string[]): void => {
    if (!s) return;
    if (s.type === 'array') {
      const t = s['x-kubernetes-list-type'];
      if (t === 'set') out[path.join('.')] = set;
      if (t === 'map') out[path.join('.')] = map(...(s['x-kubernetes-list-map-keys'] ?? []));
      walk(s.items, path);
      return;
    }
    if (s['x-kubernetes-map-type'] === 'atomic') out[path.join('.')] = atomic;
    for (const [k, v] of Object.entries(s.properties ?? {})) walk(v, [...path, k]);
  };
  walk(schema, []);
  return out;
}
