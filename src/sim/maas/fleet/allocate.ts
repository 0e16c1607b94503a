import { validationError } from '../http/api-error.ts';
import type { ConstraintReading } from './allocate-constraints.ts';
import { readConstraint } from './allocate-constraints.ts';
import type { Candidate, Catalog } from './candidate.ts';
import type { Params } from '../http/params.ts';
import { parseStringBool } from '../http/params.ts';
import { pyKeyLists } from '../http/py-format.ts';
import { matchInterfaces, matchStorage, storageByLabel } from './constraint-match.ts';
import type { InterfaceConstraints, StorageConstraint } from './labeled-constraints.ts';

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

export function parseAllocation(body: Params, catalog: Catalog): Allocation {
  const errors: Record<string, string[]> = {};
  const fail = (field: string, message: string) => {
    (errors[field] ??= []).push(message);
  };
  const r: ConstraintReading = { tests: [], resolved: new Map<string, string>(), storage: undefined, interfaces: undefined, fail };

  for (const [key, raw] of body.lists()) {
    if (IGNORED.has(key)) continue;
    readConstraint(key, raw, r, catalog);
  }

  const dryRun = readFlag(body, 'dry_run', fail);
  const verbose = readFlag(body, 'verbose', fail);
  if (Object.keys(errors).length > 0) throw validationError(errors);

  const { tests, resolved, storage, interfaces } = r;
  return {
    matches: (m) => tests.every((t) => t(m)),
    constraintsByType: (m) => constraintsByType(m, storage, interfaces, verbose, catalog),
    resolved: [...resolved.keys()].sort().map((k) => `${k}=${resolved.get(k) ?? ''}`).join(' '),
    input: pyKeyLists(body.lists().filter(([k]) => k !== 'op')),
    dryRun,
    agentName: body.get('agent_name'),
    comment: body.get('comment'),
    systemId: body.get('system_id'),
  };
}

function constraintsByType(m: Candidate, storage: StorageConstraint[] | undefined, interfaces: InterfaceConstraints | undefined, verbose: boolean, catalog: Catalog): Record<string, unknown> {
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
