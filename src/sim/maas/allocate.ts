import { validationError } from './api-error.ts';
import type { Candidate, Catalog } from './candidate.ts';
import { splitTags, unknownNamesMessage, unknownTagsMessage } from './candidate.ts';
import type { Params } from './params.ts';
import { parseStringBool } from './params.ts';
import { pyFloat, pyKeyLists } from './py-format.ts';

// POST /machines/ op=allocate, as AcquireNodeForm (node_constraint_filter_forms.py) reads it.

export interface Allocation {
  matches(machine: Candidate): boolean;
  /** describe_constraints(): `cpu_count=4.0 mem=8192.0 tags=a,b zone=az1`, fields sorted; '' when none. */
  readonly resolved: string;
  /** str(input_constraints): every body key but op, in the order sent, with all its values. */
  readonly input: string;
  readonly dryRun: boolean;
  readonly agentName: string | undefined;
}

// Not constraints: allocation options the form skips (IGNORED_FIELDS).
const IGNORED = new Set(['comment', 'bridge_all', 'bridge_type', 'bridge_stp', 'bridge_fd', 'dry_run', 'verbose', 'op', 'agent_name']);

// Real MAAS constraints this simulator has nothing to match against (its machines have no
// interfaces, block devices or pods to speak of): accepted and described, but they filter nothing.
const UNMODELLED = new Set([
  'storage', 'interfaces', 'devices', 'subnets', 'not_subnets', 'fabrics', 'not_fabrics', 'fabric_classes',
  'not_fabric_classes', 'vlans', 'not_vlans', 'link_speed', 'cpu_speed', 'owner', 'not_owner', 'power_state',
  'not_power_state', 'not_arch',
]);

const USABLE_ARCHITECTURES = ['amd64/generic'];
const ARCH_WILDCARDS: Record<string, string[]> = { amd64: ['amd64/generic'] };

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
      case 'arch': {
        const arches: string[] = [];
        for (const v of values) {
          if (USABLE_ARCHITECTURES.includes(v)) arches.push(v);
          else if (ARCH_WILDCARDS[v]) arches.push(...ARCH_WILDCARDS[v]);
          else fail('arch', 'Architecture not recognised.');
        }
        // Every simulated machine is amd64/generic.
        if (arches.length > 0) tests.push(() => arches.includes('amd64/generic'));
        describe(arches.join(','));
        break;
      }
      case 'cpu_count':
      case 'mem': {
        const numbers = raw.map(pyParseFloat);
        if (numbers.some((n) => n === undefined)) {
          fail(key, key === 'cpu_count' ? 'Invalid CPU count: number required.' : 'Invalid memory: number of MiB required.');
          break;
        }
        const mins = numbers as number[];
        tests.push((m) => mins.every((min) => (key === 'cpu_count' ? m.cpuCount : m.memory) >= min));
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

  const dryRunText = body.get('dry_run');
  const dryRun = dryRunText === undefined ? false : parseStringBool(dryRunText);
  if (dryRun === undefined) fail('dry_run', "Value should be 'true' or 'false'");
  if (Object.keys(errors).length > 0) throw validationError(errors);

  return {
    matches: (m) => tests.every((t) => t(m)),
    resolved: [...resolved.keys()].sort().map((k) => `${k}=${resolved.get(k) ?? ''}`).join(' '),
    input: pyKeyLists(body.lists().filter(([k]) => k !== 'op')),
    dryRun: dryRun ?? false,
    agentName: body.get('agent_name'),
  };
}

/** The failed-allocate text (409): which constraints, and what they resolved to. */
export function noMatchMessage(allocation: Allocation): string {
  if (allocation.resolved === '') return 'No machine available.';
  return `No available machine matches constraints: ${allocation.input} (resolved to "${allocation.resolved}")`;
}

/** Cheapest first: cost = cpu_count + memory / 1024, ties in fleet order. */
export function byCost<T extends Candidate>(machines: readonly T[]): T[] {
  return machines
    .map((m, i) => ({ m, i, cost: m.cpuCount + m.memory / 1024 }))
    .sort((a, b) => a.cost - b.cost || a.i - b.i)
    .map(({ m }) => m);
}
