// A ClusterRole from a flat list of permissions (one resource, its verbs), so the role applied in
// a cluster is generated from the list the code keeps, never written beside it by hand.

export interface ResourcePermission {
  /** "" for the core group. */
  readonly apiGroup: string;
  /** A resource or `resource/subresource`, e.g. `baremetalhosts/status`. */
  readonly resource: string;
  readonly verbs: readonly string[];
}

export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

export interface ClusterRole {
  apiVersion: 'rbac.authorization.k8s.io/v1';
  kind: 'ClusterRole';
  metadata: { name: string; labels?: Record<string, string> };
  rules: PolicyRule[];
}

/**
 * One rule per API group and set of verbs, resources and verbs sorted as controller-gen sorts
 * them, so the output depends only on what is permitted, not on the order it was listed in.
 */
export function policyRules(permissions: readonly ResourcePermission[]): PolicyRule[] {
  const byGroup = new Map<string, Map<string, Set<string>>>();
  for (const p of permissions) {
    // A wildcard grants what nobody listed; least privilege means naming each one.
    if (p.apiGroup === '*' || p.resource.includes('*') || p.verbs.includes('*')) {
      throw new Error(`permission ${p.apiGroup || 'core'}/${p.resource}: a wildcard is not allowed; name each resource and verb`);
    }
    if (p.verbs.length === 0) throw new Error(`permission ${p.apiGroup || 'core'}/${p.resource}: no verbs`);
    const resources = byGroup.get(p.apiGroup) ?? new Map<string, Set<string>>();
    byGroup.set(p.apiGroup, resources);
    const verbs = resources.get(p.resource) ?? new Set<string>();
    resources.set(p.resource, verbs);
    for (const verb of p.verbs) verbs.add(verb);
  }
  const rules: PolicyRule[] = [];
  for (const group of [...byGroup.keys()].sort()) {
    const byVerbs = new Map<string, string[]>();
    for (const [resource, verbs] of byGroup.get(group) ?? []) {
      const key = [...verbs].sort().join(',');
      byVerbs.set(key, [...(byVerbs.get(key) ?? []), resource]);
    }
    const groupRules = [...byVerbs].map(([verbs, resources]) => ({ apiGroups: [group], resources: resources.sort(), verbs: verbs.split(',') }));
    rules.push(...groupRules.sort((a, b) => (a.resources[0] ?? '').localeCompare(b.resources[0] ?? '')));
  }
  return rules;
}

export function clusterRole(name: string, permissions: readonly ResourcePermission[], labels?: Readonly<Record<string, string>>): ClusterRole {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name, ...(labels ? { labels: { ...labels } } : {}) },
    rules: policyRules(permissions),
  };
}
