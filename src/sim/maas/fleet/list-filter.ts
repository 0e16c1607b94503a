import { badRequest, validationError } from '../http/api-error.ts';
import type { Candidate, Catalog } from './candidate.ts';
import { splitTags, unknownNamesMessage, unknownTagsMessage } from './candidate.ts';
import type { Params } from '../http/params.ts';
import type { NodeStatusCode } from './status.ts';
import { SIMPLE_STATUSES, simpleStatus, STATUS_SHORT_LABELS } from './status.ts';

// GET /machines/ filters (ReadNodesForm in node_constraint_filter_forms.py): each repeatable
// (gomaasapi sends id=a&id=b), a machine matches any value given; not_* exclude any. Filters on
// things the simulator does not model (fabrics, subnets, vlans, devices) are ignored. Any other
// query key is "No such constraint." (the form is strict: ignore_unknown_constraints is False).

/** A machine as the list filters see it. */
export interface Listed extends Candidate {
  readonly agentName: string;
  readonly status: NodeStatusCode;
  readonly owner: string | null;
}

// MAC_FIELD_RE: six hex pairs with ':' or '-'.
const MAC = /^([0-9a-f]{2}[:-]){5}[0-9a-f]{2}$/i;
const NUMBER = /^\s*[+-]?(\d+(\.\d*)?|\.\d+)\s*$/;

type Test = (m: Listed) => boolean;

// ReadNodesForm's fields in MAAS 3.5, FilterNodeForm's included: every key GET machines/ knows.
const READ_NODES_FIELDS = new Set([
  'id', 'not_id', 'hostname', 'not_hostname', 'mac_address', 'domain', 'not_domain', 'agent_name', 'not_agent_name',
  'status', 'not_status', 'simple_status', 'not_simple_status',
  'arch', 'not_arch', 'tags', 'not_tags', 'fabrics', 'not_fabrics', 'fabric_classes', 'not_fabric_classes', 'subnets', 'not_subnets',
  'link_speed', 'vlans', 'not_vlans', 'zone', 'not_in_zone', 'system_id', 'pool', 'not_in_pool', 'storage', 'interfaces', 'devices',
  'cpu_count', 'cpu_speed', 'mem', 'pod', 'not_pod', 'pod_type', 'not_pod_type', 'owner', 'not_owner', 'power_state', 'not_power_state',
  'deployment_target', 'not_deployment_target',
]);

function invalidChoice(value: string): string {
  return `Select a valid choice. ${value} is not one of the available choices.`;
}

export function parseListFilter(params: Params, catalog: Catalog): (m: Listed) => boolean {
  const errors: Record<string, string[]> = {};
  const tests: Test[] = [];
  const values = (key: string) => params.getAll(key).filter((v) => v !== '');
  const anyOf = (key: string, pick: (m: Listed) => string | null) => {
    const wanted = values(key);
    if (wanted.length > 0) tests.push((m) => wanted.includes(pick(m) ?? ''));
  };
  const noneOf = (key: string, pick: (m: Listed) => string | null) => {
    const unwanted = values(key);
    if (unwanted.length > 0) tests.push((m) => !unwanted.includes(pick(m) ?? ''));
  };

  anyOf('hostname', (m) => m.hostname);
  noneOf('not_hostname', (m) => m.hostname);
  anyOf('id', (m) => m.systemId);
  noneOf('not_id', (m) => m.systemId);
  anyOf('system_id', (m) => m.systemId);
  anyOf('domain', (m) => m.domain);
  noneOf('not_domain', (m) => m.domain);
  anyOf('owner', (m) => m.owner);
  noneOf('not_owner', (m) => m.owner);

  const macs = values('mac_address');
  if (macs.some((mac) => !MAC.test(mac))) errors.mac_address = ['Invalid parameter: invalid MAC address format'];
  const wantedMacs = macs.map((mac) => mac.toLowerCase().replace(/-/g, ':'));
  if (wantedMacs.length > 0) tests.push((m) => m.nics.some((n) => wantedMacs.includes(n.mac)));

  for (const key of ['status', 'not_status'] as const) {
    const codes: NodeStatusCode[] = [];
    for (const raw of values(key)) {
      const label = raw.replace(/^=/, '');
      const code = STATUS_SHORT_LABELS[label];
      if (code === undefined || label === 'default') (errors[key] ??= []).push(invalidChoice(label));
      else codes.push(code);
    }
    if (codes.length > 0) tests.push(key === 'status' ? (m) => codes.includes(m.status) : (m) => !codes.includes(m.status));
  }
  for (const key of ['simple_status', 'not_simple_status'] as const) {
    const wanted = values(key).map((v) => v.replace(/^=/, ''));
    for (const w of wanted) if (!SIMPLE_STATUSES.includes(w)) (errors[key] ??= []).push(invalidChoice(w));
    if (wanted.length > 0) tests.push(key === 'simple_status' ? (m) => wanted.includes(simpleStatus(m.status)) : (m) => !wanted.includes(simpleStatus(m.status)));
  }

  // arch: 'amd64' matches every amd64 subarchitecture (generate_architecture_wildcards).
  const archMatches = (wanted: string, arch: string) => wanted === arch || arch.startsWith(`${wanted}/`);
  const arches = values('arch');
  if (arches.length > 0) tests.push((m) => arches.some((a) => archMatches(a, m.architecture)));
  const notArches = values('not_arch');
  if (notArches.length > 0) tests.push((m) => !notArches.some((a) => archMatches(a, m.architecture)));

  // cpu_count / mem: at least this much (the smallest machine that fits is what allocate wants).
  for (const key of ['cpu_count', 'mem'] as const) {
    const given = values(key);
    if (given.some((v) => !NUMBER.test(v))) {
      errors[key] = [key === 'cpu_count' ? 'Invalid CPU count: number required.' : 'Invalid memory: number of MiB required.'];
      continue;
    }
    const mins = given.map(Number);
    if (mins.length > 0) tests.push((m) => mins.every((min) => (key === 'cpu_count' ? m.cpuCount : m.memory) >= min));
  }

  for (const key of ['zone', 'not_in_zone', 'pool', 'not_in_pool'] as const) {
    const kind = key.endsWith('zone') ? 'zone' : 'pool';
    const unknown = unknownNamesMessage(kind, values(key), kind === 'zone' ? catalog.zones : catalog.pools);
    if (unknown) errors[key] = [unknown];
    const pick = (m: Candidate) => (kind === 'zone' ? m.zone : m.pool);
    if (key.startsWith('not_')) noneOf(key, pick);
    else anyOf(key, pick);
  }
  const tags = new Set(splitTags(params.getAll('tags')));
  if (tags.size > 0) {
    const unknown = unknownTagsMessage(tags, catalog);
    if (unknown) errors.tags = [unknown];
    tests.push((m) => [...tags].every((t) => m.tags.includes(t)));
  }
  const notTags = values('not_tags');
  if (notTags.length > 0) tests.push((m) => !notTags.some((t) => m.tags.includes(t)));
  // agent_name is matched exactly, '' included: MAAS keeps a machine's agent_name from allocate
  // until it is released, and juju lists its machines by it.
  if (params.has('agent_name')) {
    const names = params.getAll('agent_name');
    tests.push((m) => names.includes(m.agentName));
  }
  noneOf('not_agent_name', (m) => m.agentName);

  // The form's clean() adds these after the fields' own errors; oauth_* fields signed into the
  // query string are keys like any other here.
  for (const key of params.keys()) if (!READ_NODES_FIELDS.has(key)) errors[key] = ['No such constraint.'];
  if (Object.keys(errors).length > 0) throw validationError(errors);
  return (m) => tests.every((t) => t(m));
}

/**
 * The machines events/?op=query looks at (filtered_nodes_list_from_request in api/nodes.py):
 * id, mac_address, hostname, domain lists; zone, pool, agent_name single values.
 */
export function parseEventNodeFilter(params: Params): (m: Listed) => boolean {
  const tests: Test[] = [];
  const list = (key: string) => params.getAll(key);
  const ids = list('id');
  if (ids.length > 0) tests.push((m) => ids.includes(m.systemId));
  const macs = list('mac_address');
  const bad = macs.filter((mac) => !MAC.test(mac));
  if (bad.length > 0) throw badRequest(`Invalid MAC address(es): ${bad.join(', ')}`);
  if (macs.length > 0) tests.push((m) => m.nics.some((n) => macs.map((x) => x.toLowerCase().replace(/-/g, ':')).includes(n.mac)));
  const hostnames = list('hostname');
  if (hostnames.length > 0) tests.push((m) => hostnames.includes(m.hostname));
  const domains = list('domain');
  if (domains.length > 0) tests.push((m) => domains.includes(m.domain));
  for (const [key, pick] of [['zone', (m: Listed) => m.zone], ['pool', (m: Listed) => m.pool], ['agent_name', (m: Listed) => m.agentName]] as const) {
    const value = params.get(key);
    if (value !== undefined) tests.push((m) => pick(m) === value);
  }
  return (m) => tests.every((t) => t(m));
}
