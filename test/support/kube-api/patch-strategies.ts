// The lists a strategic merge patch merges instead of replacing, per built-in kind: the Go types'
// `patchStrategy:"merge"` fields and their `patchMergeKey` (k8s.io/api). A path names fields from
// the object's root, list items transparent (`spec.template.spec.containers.env`); the value is
// the merge key, null for a list of scalars merged as a set (finalizers), or REPLACE for a map
// with `patchStrategy:"replace"` (taken whole from the patch). Every other list is replaced whole,
// as the real server does for lists without a strategy.
import type { BuiltinKind } from './types.ts';

export const REPLACE = '$replace';
export type MergeLists = Readonly<Record<string, string | null>>;

const objectMeta = (at: string): Record<string, string | null> => ({ [`${at}.finalizers`]: null, [`${at}.ownerReferences`]: 'uid' });

function container(at: string): Record<string, string> {
  return { [at]: 'name', [`${at}.ports`]: 'containerPort', [`${at}.env`]: 'name', [`${at}.volumeMounts`]: 'mountPath', [`${at}.volumeDevices`]: 'devicePath' };
}

function podTemplate(at: string): Record<string, string | null> {
  const spec = `${at}.spec`;
  return {
    ...objectMeta(`${at}.metadata`),
    ...container(`${spec}.containers`), ...container(`${spec}.initContainers`), ...container(`${spec}.ephemeralContainers`),
    [`${spec}.volumes`]: 'name', [`${spec}.imagePullSecrets`]: 'name', [`${spec}.hostAliases`]: 'ip',
    [`${spec}.topologySpreadConstraints`]: 'topologyKey', [`${spec}.resourceClaims`]: 'name', [`${spec}.schedulingGates`]: 'name',
  };
}

const conditions = (at: string): Record<string, string> => ({ [`${at}.conditions`]: 'type' });

const BY_KIND: Partial<Record<BuiltinKind, Record<string, string | null>>> = {
  namespaces: conditions('status'),
  deployments: { ...podTemplate('spec.template'), ...conditions('status') },
  daemonsets: { ...podTemplate('spec.template'), ...conditions('status') },
  replicasets: { ...podTemplate('spec.template'), ...conditions('status') },
  statefulsets: { ...podTemplate('spec.template'), ...conditions('status') },
  jobs: { ...podTemplate('spec.template'), ...conditions('status') },
  cronjobs: podTemplate('spec.jobTemplate.spec.template'),
  services: { 'spec.ports': 'port', ...conditions('status') },
  serviceaccounts: { secrets: 'name' },
  poddisruptionbudgets: { 'spec.selector': REPLACE, ...conditions('status') },
  validatingwebhookconfigurations: { webhooks: 'name', 'webhooks.matchConditions': 'name' },
  mutatingwebhookconfigurations: { webhooks: 'name', 'webhooks.matchConditions': 'name' },
};

export function mergeListsOf(kind: BuiltinKind | undefined): MergeLists {
  return { ...objectMeta('metadata'), ...(kind ? BY_KIND[kind] : {}) };
}
