import { badRequest } from '../http/api-error.ts';
import type { SimEvent } from './events.ts';
import { LOG_LEVELS } from './events.ts';
import { API_PREFIX } from './machine-json.ts';
import type { Params } from '../http/params.ts';

// GET events/?op=query, as EventsHandler.query in api/events.py: newest first, `limit` of them,
// paged with `before`/`after` ids, and next_uri/prev_uri that fetch the neighbouring pages.

const MAX_EVENT_LOG_COUNT = 1000;
const DEFAULT_LIMIT = 100;
// The parameters carried into next_uri/prev_uri (EventsHandler.all_params).
const CARRIED = new Set(['agent_name', 'domain', 'hostname', 'level', 'limit', 'mac_address', 'op', 'zone', 'owner', 'id']);

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** strftime("%a, %d %b. %Y %H:%M:%S") in UTC, MAAS's DATETIME_FORMAT. */
export function formatEventTime(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${DAYS[d.getUTCDay()]}, ${two(d.getUTCDate())} ${MONTHS[d.getUTCMonth()]}. ${d.getUTCFullYear()} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`;
}

// formencode's Int: an optional integer parameter, 400 naming it otherwise.
function optionalInt(params: Params, key: string): number | undefined {
  const text = params.get(key);
  if (text === undefined) return undefined;
  if (!/^\s*[+-]?\d+\s*$/.test(text)) throw badRequest(`Invalid ${key}: Please enter an integer value`);
  return Number(text.trim());
}

function uri(params: Params, change: Record<string, string | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of params.pairs) if (CARRIED.has(k)) q.append(k, v);
  for (const [k, v] of Object.entries(change)) if (v !== undefined) q.set(k, v);
  return `${API_PREFIX}/events/?${q.toString()}`;
}

function eventJson(e: SimEvent) {
  return { username: e.username, node: e.systemId, hostname: e.hostname, id: e.id, level: e.level, created: formatEventTime(e.created), type: e.type, description: e.description };
}

/** `events` oldest first; `visible` the system_ids the node filters kept. */
export function queryEvents(events: readonly SimEvent[], visible: ReadonlySet<string>, params: Params) {
  const after = optionalInt(params, 'after');
  const before = optionalInt(params, 'before');
  const level = params.get('level') ?? 'INFO';
  let limit = optionalInt(params, 'limit') ?? DEFAULT_LIMIT;
  if (limit > MAX_EVENT_LOG_COUNT) throw badRequest(`Requested number of events ${limit} is greater than limit: ${MAX_EVENT_LOG_COUNT}`);
  limit = Math.max(limit, 1);
  if (!(level in LOG_LEVELS)) throw badRequest(`Unrecognised log level: ${level}`);
  const threshold = LOG_LEVELS[level as keyof typeof LOG_LEVELS];
  const owner = params.get('owner');
  const wanted = events.filter(
    (e) => visible.has(e.systemId) && (level === 'AUDIT' ? LOG_LEVELS[e.level] === 0 : LOG_LEVELS[e.level] >= threshold) && (owner === undefined || e.username === owner),
  );
  let page: SimEvent[];
  if (after !== undefined && before !== undefined) throw badRequest('There is undetermined behaviour when both `after` and `before` are specified.');
  if (after !== undefined) page = wanted.filter((e) => e.id > after).slice(0, limit).reverse();
  else page = wanted.filter((e) => before === undefined || e.id < before).reverse().slice(0, limit);

  const newest = page[0];
  const oldest = page[page.length - 1];
  const nextUri = newest ? uri(params, { after: String(newest.id) }) : uri(params, { after: before === undefined ? undefined : String(before - 1) });
  const prevUri = oldest ? uri(params, { before: String(oldest.id) }) : after === undefined ? null : uri(params, { before: String(after + 1) });
  return { count: page.length, events: page.map(eventJson), next_uri: nextUri, prev_uri: prevUri };
}
