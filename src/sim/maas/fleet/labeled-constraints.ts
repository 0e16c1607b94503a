// The two labelled allocate constraints (node_constraint_filter_forms.py):
//   storage=    "label:size(tag,tag),label2:size"  sizes in GB, the first one the root disk
//   interfaces= "label:key=value,key2=value;label2:key=value"  (parse_labeled_constraint_map)

export interface StorageConstraint {
  readonly label: string;
  readonly bytes: number;
  readonly tags: readonly string[] | undefined;
}

const STORAGE_ITEM = /(?:([a-zA-Z0-9]+):)?([0-9.]+)(?:\(([^)]+)\))?/g;

/** Parsed and ordered as get_storage_constraints_from_string: the head, then the most tagged first. */
export function parseStorage(value: string): StorageConstraint[] | string {
  const groups = [...value.matchAll(STORAGE_ITEM)];
  const rendered = groups.map(([, label, size, tags]) => `${label ? `${label}:` : ''}${size ?? ''}${tags ? `(${tags})` : ''}`);
  if (groups.length === 0 || rendered.join(',') !== value) return `Malformed storage constraint, "${value}".`;
  const all = groups.map(([, label, size, tags]) => ({ label: label ?? '', bytes: Math.trunc(Number(size) * 1000 ** 3), tags: tags ? tags.split(',') : undefined }));
  const [head, ...tail] = all;
  const tagCount = (c: StorageConstraint) => c.tags?.length ?? 0;
  return head ? [head, ...tail.sort((a, b) => tagCount(b) - tagCount(a))] : [];
}

export const INTERFACE_KEYS = new Set([
  'id', 'not_id', 'fabric', 'not_fabric', 'fabric_class', 'not_fabric_class', 'ip', 'not_ip', 'mode', 'name', 'not_name',
  'hostname', 'not_hostname', 'subnet', 'not_subnet', 'space', 'not_space', 'subnet_cidr', 'not_subnet_cidr', 'type', 'vlan',
  'not_vlan', 'vid', 'not_vid', 'tag', 'not_tag', 'link_speed',
]);

export type InterfaceConstraints = Map<string, Map<string, string[]>>;

const LABEL = /^[a-zA-Z0-9]+[a-zA-Z0-9_-]*$/;

/** The label → key → values map, or the error text MAAS gives. */
export function parseInterfaces(value: string): InterfaceConstraints | string {
  const result: InterfaceConstraints = new Map();
  if (value.length <= 1) return result;
  for (const constraint of value.split(';')) {
    const colon = constraint.indexOf(':');
    if (colon === -1) return `Malformed constraint: '${constraint}' (required format: '<label>:<key>=<value>[,<key2>=<value2>[,...]]')`;
    const label = constraint.slice(0, colon);
    if (!LABEL.test(label)) return `Invalid constraint label: '${label}'`;
    if (result.has(label)) return `Constraint label defined more than once: '${label}'`;
    const pairs = new Map<string, string[]>();
    for (const kvp of constraint.slice(colon + 1).split(',')) {
      const eq = kvp.indexOf('=');
      if (eq === -1) return `Malformed key/value pair in constraint: '${kvp}'`;
      const key = kvp.slice(0, eq);
      // The missing closing quote is MAAS's own (interfaces_validator).
      if (!INTERFACE_KEYS.has(key)) return `Unknown interfaces constraint: '${key}`;
      pairs.set(key, [...(pairs.get(key) ?? []), kvp.slice(eq + 1)]);
    }
    result.set(label, pairs);
  }
  return result;
}
