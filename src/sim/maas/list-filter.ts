import { validationError } from './api-error.ts';
import type { Candidate, Catalog } from './candidate.ts';
import { splitTags, unknownNamesMessage, unknownTagsMessage } from './candidate.ts';
import type { Params } from './params.ts';

// GET /machines/ filters (ReadNodesForm): each repeatable, a machine matches any value given.
// Parameters this simulator does not model are ignored.

/** A machine as the list filters see it: the allocation constraints' fields and the agent name. */
export interface Listed extends Candidate {
  readonly agentName: string;
}

export function parseListFilter(params: Params, catalog: Catalog): (m: Listed) => boolean {
  const errors: Record<string, string[]> = {};
  const tests: Array<(m: Listed) => boolean> = [];
  const values = (key: string) => params.getAll(key).filter((v) => v !== '');
  const anyOf = (key: string, pick: (m: Candidate) => string | null) => {
    const wanted = values(key);
    if (wanted.length > 0) tests.push((m) => wanted.includes(pick(m) ?? ''));
  };
  const noneOf = (key: string, pick: (m: Candidate) => string) => {
    const unwanted = values(key);
    if (unwanted.length > 0) tests.push((m) => !unwanted.includes(pick(m)));
  };

  anyOf('hostname', (m) => m.hostname);
  noneOf('not_hostname', (m) => m.hostname);
  anyOf('id', (m) => m.systemId);
  noneOf('not_id', (m) => m.systemId);
  anyOf('domain', (m) => m.domain);
  noneOf('not_domain', (m) => m.domain);
  // Simulated machines are never VMs of a parent host.
  anyOf('parent', () => null);
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
  // filtered_nodes_list_from_request: request.GET.get('agent_name') (the last one given), matched
  // exactly, '' included. MAAS keeps a machine's agent_name from allocate until it is released.
  const agentName = params.get('agent_name');
  if (agentName !== undefined) tests.push((m) => m.agentName === agentName);

  if (Object.keys(errors).length > 0) throw validationError(errors);
  return (m) => tests.every((t) => t(m));
}
