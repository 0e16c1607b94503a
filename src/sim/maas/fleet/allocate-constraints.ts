import type { Candidate, Catalog } from './candidate.ts';
import { splitTags, unknownNamesMessage, unknownTagsMessage } from './candidate.ts';
import { pyFloat } from '../http/py-format.ts';
import { matchInterfaces, matchStorage } from './constraint-match.ts';
import type { InterfaceConstraints, StorageConstraint } from './labeled-constraints.ts';
import { parseInterfaces, parseStorage } from './labeled-constraints.ts';

// One allocate constraint read, as AcquireNodeForm's fields and its filter read it: the test a
// machine must pass, the text describe_constraints() shows, or the form error.

export type Test = (m: Candidate) => boolean;

/** What reading an allocate body's constraints gathers, key by key. */
export interface ConstraintReading {
  readonly tests: Test[];
  /** describe_constraints() by field. */
  readonly resolved: Map<string, string>;
  storage: StorageConstraint[] | undefined;
  interfaces: InterfaceConstraints | undefined;
  readonly fail: (field: string, message: string) => void;
}

interface Field {
  readonly key: string;
  /** Every value sent, empty ones included. */
  readonly raw: readonly string[];
  /** The values sent, without the empty ones. */
  readonly values: readonly string[];
  readonly catalog: Catalog;
  readonly describe: (text: string) => void;
}

// Real MAAS constraints this simulator has nothing to match against: accepted and described,
// but they filter nothing. (subnets and not_subnets too, where the catalog has no network.)
const UNMODELLED = new Set([
  'devices', 'subnets', 'not_subnets', 'fabrics', 'not_fabrics', 'fabric_classes', 'not_fabric_classes', 'vlans', 'not_vlans',
  'owner', 'not_owner', 'power_state', 'not_power_state',
]);

// What Python's float() accepts.
const PY_FLOAT = /^\s*[+-]?((\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?|inf(inity)?|nan)\s*$/i;

function pyParseFloat(text: string): number | undefined {
  if (!PY_FLOAT.test(text)) return undefined;
  const t = text.trim().toLowerCase().replace(/^\+/, '');
  if (t.endsWith('inf') || t.endsWith('infinity')) return t.startsWith('-') ? -Infinity : Infinity;
  if (t.endsWith('nan')) return NaN;
  return Number(t);
}

export function readConstraint(key: string, raw: readonly string[], r: ConstraintReading, catalog: Catalog): void {
  const values = raw.filter((v) => v !== '');
  const describe = (text: string) => {
    if (text !== '') r.resolved.set(key, text);
  };
  const f: Field = { key, raw, values, catalog, describe };
  const { tests } = r;
  switch (key) {
    case 'name':
      if (values.length > 0) tests.push((m) => values.some((v) => v === m.hostname || v === `${m.hostname}.${m.domain}`));
      describe(values.join(','));
      break;
    case 'system_id':
      if (values.length > 0) tests.push((m) => values.includes(m.systemId));
      describe(values.join(','));
      break;
    case 'not_system_id':
      tests.push((m) => !values.includes(m.systemId));
      describe(values.join(','));
      break;
    case 'arch':
    case 'not_arch':
      readArch(f, r);
      break;
    case 'storage':
      readStorage(f, r);
      break;
    case 'interfaces':
      readInterfaces(f, r);
      break;
    case 'cpu_count':
    case 'cpu_speed':
    case 'mem':
      readMinimum(f, r);
      break;
    case 'tags':
      readTags(f, r);
      break;
    case 'not_tags':
      tests.push((m) => !values.some((t) => m.tags.includes(t)));
      describe(values.join(','));
      break;
    case 'zone':
    case 'not_in_zone':
    case 'pool':
    case 'not_in_pool':
      readPlace(f, r);
      break;
    case 'subnets':
    case 'not_subnets':
      if (catalog.subnetIds && catalog.linkedSubnets) readSubnets(f, r, catalog.subnetIds, catalog.linkedSubnets);
      else describe(values.join(','));
      break;
    case 'pod':
      // No simulated machine is a pod VM.
      if (values.length > 0) tests.push(() => false);
      describe(values.join(','));
      break;
    case 'not_pod':
      describe(values.join(','));
      break;
    case 'pod_type':
      if (values.length > 0) tests.push((m) => values.includes(m.powerType));
      describe(values.join(','));
      break;
    case 'not_pod_type':
      tests.push((m) => !values.includes(m.powerType));
      describe(values.join(','));
      break;
    default:
      if (UNMODELLED.has(key)) describe(values.join(','));
      else r.fail(key, 'No such constraint.');
  }
}

function readArch({ key, values, catalog, describe }: Field, r: ConstraintReading): void {
  // 'amd64' stands for every amd64 subarchitecture (generate_architecture_wildcards).
  const arches: string[] = [];
  for (const v of values) {
    const expanded = catalog.architectures.has(v) ? [v] : [...catalog.architectures].filter((a) => a.startsWith(`${v}/`));
    if (expanded.length === 0) r.fail(key, 'Architecture not recognised.');
    arches.push(...expanded);
  }
  if (arches.length > 0) r.tests.push(key === 'arch' ? (m) => arches.includes(m.architecture) : (m) => !arches.includes(m.architecture));
  describe(arches.join(','));
}

function readStorage({ key, raw, describe }: Field, r: ConstraintReading): void {
  const value = raw[raw.length - 1] ?? '';
  if (value === '') return;
  const parsed = parseStorage(value);
  if (typeof parsed === 'string') {
    r.fail(key, parsed);
    return;
  }
  r.storage = parsed;
  r.tests.push((m) => matchStorage(m, parsed) !== undefined);
  describe(value);
}

function readInterfaces({ key, raw, catalog, describe }: Field, r: ConstraintReading): void {
  const value = raw[raw.length - 1] ?? '';
  if (value === '') return;
  const parsed = parseInterfaces(value);
  if (typeof parsed === 'string') {
    r.fail(key, parsed);
    return;
  }
  r.interfaces = parsed;
  r.tests.push((m) => matchInterfaces(m, parsed, catalog.placeOf(m)) !== undefined);
  describe(value);
}

function readMinimum({ key, raw, describe }: Field, r: ConstraintReading): void {
  const numbers = raw.map(pyParseFloat);
  if (numbers.some((n) => n === undefined)) {
    r.fail(key, key === 'mem' ? 'Invalid memory: number of MiB required.' : key === 'cpu_count' ? 'Invalid CPU count: number required.' : 'Invalid CPU speed: number required.');
    return;
  }
  const mins = numbers as number[];
  const pick = (m: Candidate) => (key === 'cpu_count' ? m.cpuCount : key === 'cpu_speed' ? m.cpuSpeed : m.memory);
  r.tests.push((m) => mins.every((min) => pick(m) >= min));
  describe(mins.map(pyFloat).join(','));
}

function readTags({ raw, catalog, describe }: Field, r: ConstraintReading): void {
  const tags = new Set(splitTags(raw));
  if (tags.size === 0) return;
  const unknown = unknownTagsMessage(tags, catalog);
  if (unknown) {
    r.fail('tags', unknown);
    return;
  }
  r.tests.push((m) => [...tags].every((t) => m.tags.includes(t)));
  describe([...tags].sort().join(','));
}

function readPlace({ key, values, catalog, describe }: Field, r: ConstraintReading): void {
  const kind = key.endsWith('zone') ? 'zone' : 'pool';
  const unknown = unknownNamesMessage(kind, values, kind === 'zone' ? catalog.zones : catalog.pools);
  if (unknown) {
    r.fail(key, unknown);
    return;
  }
  const pick = (m: Candidate) => (kind === 'zone' ? m.zone : m.pool);
  if (values.length > 0) r.tests.push(key.startsWith('not_') ? (m) => !values.includes(pick(m)) : (m) => values.includes(pick(m)));
  describe(values.join(','));
}

// FilterNodeForm's subnets (every one linked: _match_all) and not_subnets (none linked): the
// specifiers resolve to subnets first; none at all is "No matching subnets found.", and the
// description lists the subnets' ids.
function readSubnets({ key, values, describe }: Field, r: ConstraintReading, subnetIds: NonNullable<Catalog['subnetIds']>, linkedSubnets: NonNullable<Catalog['linkedSubnets']>): void {
  if (values.length === 0) return;
  const ids = subnetIds(values);
  if (ids === undefined) {
    r.fail(key, 'Invalid parameter: list of subnet specifiers required.');
    return;
  }
  if (ids.size === 0) {
    r.fail(key, 'No matching subnets found.');
    return;
  }
  const wanted = [...ids];
  if (key === 'subnets') r.tests.push((m) => wanted.every((id) => linkedSubnets(m).has(id)));
  else r.tests.push((m) => !wanted.some((id) => linkedSubnets(m).has(id)));
  describe(wanted.sort((a, b) => a - b).join(','));
}
