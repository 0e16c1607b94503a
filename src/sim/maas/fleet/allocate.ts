import { validationError } from '../http/api-error.ts';
import type { Candidate, Catalog } from './candidate.ts';
import { splitTags, unknownNamesMessage, unknownTagsMessage } from './candidate.ts';
import type { Params } from '../http/params.ts';
import { parseStringBool } from '../http/params.ts';
import { pyFloat, pyKeyLists } from '../http/py-format.ts';
import { matchInterfaces, matchStorage, storageByLabel } from './constraint-match.ts';
import type { InterfaceConstraints, StorageConstraint } from './labeled-constraints.ts';
import { parseInterfaces, parseStorage } from './labeled-constraints.ts';

// POST /machines/ op=allocate, as AcquireNodeForm (node_constraint_filter_forms.py) reads it.

export interface Allocation {
  matches(machine: Candidate): boolean;
  /** constraints_by_type for the chosen machine: storage and interfaces label matches (verbose adds the raw maps). */
  constraintsByType(machine: Candidate): Record<string, unknown>;
  /** describe_constraints(): `cpu_count=4.0 mem=8192.0 tags=a,b zone=az1`, fields sorted; '' when none. */
  readonly resolved: string;
  /** str(input_constraints): every body key but op, in the order sent, with all its values. */
  readonly input: string;
  readonly dryRun: boolean;
  readonly agentName: string | undefined;
  readonly comment: string | undefined;
  /** The system_id asked for, which changes the no-match text. */
  readonly systemId: string | undefined;
}

// Not constraints: allocation options the form skips (IGNORED_FIELDS).
const IGNORED = new Set(['comment', 'bridge_all', 'bridge_type', 'bridge_stp', 'bridge_fd', 'dry_run', 'verbose', 'op', 'agent_name']);

// Real MAAS constraints this simulator has nothing to match against (no subnets, VLANs or
// devices of their own on its machines): accepted and described, but they filter nothing.
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

type Test = (m: Candidate) => boolean;

export function parseAllocation(body: Params, catalog: Catalog): Allocation {
  const errors: Record<string, string[]> = {};
  const resolved = new Map<string, string>();
  const tests: Test[] = [];
  let storage: StorageConstraint[] | undefined;
  let interfaces: InterfaceConstraints | undefined;
  const fail = (field: string, message: string) => {
    (errors[field] ??= []).push(message);
  };

  for (const [key, raw] of body.lists()) {
    if (IGNORED.has(key)) continue;
    const values = raw.filter((v) => v !== '');
    const describe = (text: string) => {
      if (text !== '') resolved.set(key, text);
    };
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
      case 'not_arch': {
        // 'amd64' stands for every amd64 subarchitecture (generate_architecture_wildcards).
        const arches: string[] = [];
        for (const v of values) {
          const expanded = catalog.architectures.has(v) ? [v] : [...catalog.architectures].filter((a) => a.startsWith(`${v}/`));
          if (expanded.length === 0) fail(key, 'Architecture not recognised.');
          arches.push(...expanded);
        }
        if (arches.length > 0) tests.push(key === 'arch' ? (m) => arches.includes(m.architecture) : (m) => !arches.includes(m.architecture));
        describe(arches.join(','));
        break;
      }
      case 'storage': {
        const value = raw[raw.length - 1] ?? '';
        if (value === '') break;
        const parsed = parseStorage(value);
        if (typeof parsed === 'string') {
          fail(key, parsed);
          break;
        }
        storage = parsed;
        tests.push((m) => matchStorage(m, parsed) !== undefined);
        describe(value);
        break;
      }
      case 'interfaces': {
        const value = raw[raw.length - 1] ?? '';
        if (value === '') break;
        const parsed = parseInterfaces(value);
        if (typeof parsed === 'string') {
          fail(key, parsed);
          break;
        }
        interfaces = parsed;
        tests.push((m) => matchInterfaces(m, parsed, catalog.placeOf(m)) !== undefined);
        describe(value);
        break;
      }
      case 'cpu_count':
      case 'cpu_speed':
      case 'mem': {
        const numbers = raw.map(pyParseFloat);
        if (numbers.some((n) => n === undefined)) {
          fail(key, key === 'mem' ? 'Invalid memory: number of MiB required.' : key === 'cpu_count' ? 'Invalid CPU count: number required.' : 'Invalid CPU speed: number required.');
          break;
        }
        const mins = numbers as number[];
        const pick = (m: Candidate) => (key === 'cpu_count' ? m.cpuCount : key === 'cpu_speed' ? m.cpuSpeed : m.memory);
        tests.push((m) => mins.every((min) => pick(m) >= min));
        describe(mins.map(pyFloat).join(','));
        break;
      }
      case 'tags': {
        const tags = new Set(splitTags(raw));
        if (tags.size === 0) break;
        const unknown = unknownTagsMessage(tags, catalog);
        if (unknown) {
          fail('tags', unknown);
          break;
        }
        tests.push((m) => [...tags].every((t) => m.tags.includes(t)));
        describe([...tags].sort().join(','));
        break;
      }
      case 'not_tags':
        tests.push((m) => !values.some((t) => m.tags.includes(t)));
        describe(values.join(','));
        break;
      case 'zone':
      case 'not_in_zone':
      case 'pool':
      case 'not_in_pool': {
        const kind = key.endsWith('zone') ? 'zone' : 'pool';
        const unknown = unknownNamesMessage(kind, values, kind === 'zone' ? catalog.zones : catalog.pools);
        if (unknown) {
          fail(key, unknown);
          break;
        }
        const pick = (m: Candidate) => (kind === 'zone' ? m.zone : m.pool);
        if (values.length > 0) tests.push(key.startsWith('not_') ? (m) => !values.includes(pick(m)) : (m) => values.includes(pick(m)));
        describe(values.join(','));
        break;
      }
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
        else fail(key, 'No such constraint.');
    }
  }

  const dryRun = readFlag(body, 'dry_run', fail);
  const verbose = readFlag(body, 'verbose', fail);
  if (Object.keys(errors).length > 0) throw validationError(errors);

  return {
    matches: (m) => tests.every((t) => t(m)),
    constraintsByType: (m) => {
      const out: Record<string, unknown> = {};
      const storageMatch = storage ? matchStorage(m, storage) : undefined;
      const byLabel = storageMatch ? storageByLabel(storageMatch) : {};
      if (Object.keys(byLabel).length > 0) out.storage = byLabel;
      const interfaceMatch = interfaces ? matchInterfaces(m, interfaces, catalog.placeOf(m)) : undefined;
      if (interfaceMatch) out.interfaces = interfaceMatch;
      if (verbose) {
        out.verbose_storage = storageMatch ? { [m.systemId]: Object.fromEntries(storageMatch) } : {};
        out.verbose_interfaces = interfaceMatch ? Object.fromEntries(Object.entries(interfaceMatch).map(([label, ids]) => [label, { [m.systemId]: ids }])) : {};
      }
      return out;
    },
    resolved: [...resolved.keys()].sort().map((k) => `${k}=${resolved.get(k) ?? ''}`).join(' '),
    input: pyKeyLists(body.lists().filter(([k]) => k !== 'op')),
    dryRun,
    agentName: body.get('agent_name'),
    comment: body.get('comment'),
    systemId: body.get('system_id'),
  };
}

function readFlag(body: Params, key: string, fail: (field: string, message: string) => void): boolean {
  const text = body.get(key);
  if (text === undefined) return false;
  const value = parseStringBool(text);
  if (value === undefined) fail(key, "Value should be 'true' or 'false'");
  return value ?? false;
}

/** The failed-allocate text (409): which constraints, and what they resolved to. */
export function noMatchMessage(allocation: Allocation): string {
  if (allocation.resolved === '') return 'No machine available.';
  if (allocation.systemId !== undefined) return `No machine with system ID ${allocation.systemId} available.`;
  return `No available machine matches constraints: ${allocation.input} (resolved to "${allocation.resolved}")`;
}

/** Cheapest first: cost = cpu_count + memory / 1024, ties in fleet order. */
export function byCost<T extends Candidate>(machines: readonly T[]): T[] {
  return machines
    .map((m, i) => ({ m, i, cost: m.cpuCount + m.memory / 1024 }))
    .sort((a, b) => a.cost - b.cost || a.i - b.i)
    .map(({ m }) => m);
}
