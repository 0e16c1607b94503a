// The introspection commands as functions: (Transport, query, options) -> what to print. They ask
// the nodes (src/cluster/introspect/client.ts), flatten the replies into rows and lay them out.
import { z } from 'zod';
import { Condition, MAAS_MACHINE_STATES, PROVISIONING_STATES } from '../../api/index.ts';
import { RemoteError } from '../../bus/index.ts';
import { HostKey } from '../../bus/messages/index.ts';
import type { Gathered, HostBackend, IntrospectReply, IntrospectRequest } from '../../cluster/introspect/index.ts';
import { announcedShardCount, gather, inspectHost, listNodes, NotFound, storedHosts, unheldShards } from '../../cluster/introspect/index.ts';
import { BusError, type Transport } from '../../ports/index.ts';
import { CliError } from '../cli-error.ts';
import { formatBytes, formatDuration, formatStall, oneLine, renderFields, renderTable, truncate, type Column } from './format.ts';
import type { ActorRow, BackendCallRow, HostRow, InfoReply, InspectedHost, OnNode, PoolRow, ShardRow } from './rows.ts';
import { inUseOf, usageText, waitingOf } from './rows.ts';
import { noAnswer, output, partialWarnings, seconds, type CommandOutput, type GatheredLike, type ViewOptions } from './session.ts';

function gatherOptions(options: ViewOptions): { timeoutMs: number; nodes?: readonly string[] } {
  return { timeoutMs: options.timeoutMs, ...(options.nodes && options.nodes.length > 0 ? { nodes: options.nodes } : {}) };
}

/** Throws the "nobody answered" error, or returns the warnings for a partial answer. */
function checked<T>(gathered: GatheredLike<T>, options: ViewOptions): string[] {
  const failure = noAnswer(gathered, options);
  if (failure) throw failure;
  return partialWarnings(gathered, options.timeoutMs);
}

function flatten<T, R>(gathered: GatheredLike<T>, rows: (value: T) => readonly R[]): Array<OnNode<R>> {
  return gathered.replies.flatMap(({ node, value }) => rows(value).map((r) => ({ ...r, node })));
}

const KIND_SHORT: Record<string, string> = { BareMetalHost: 'bmh', MaasMachine: 'maas' };

// ---- hosts ----------------------------------------------------------------------------------

/** What `--state` takes: BareMetalHost provisioning states and MaasMachine MAAS states. */
export const HOST_STATES: readonly string[] = [...PROVISIONING_STATES.filter((s) => s !== ''), ...Object.values(MAAS_MACHINE_STATES)];

export interface HostsQuery {
  readonly state?: string;
  readonly backend?: HostBackend;
  readonly errors?: boolean;
  /** `-o wide`: the table gains the hosts' conditions. */
  readonly wide?: boolean;
  /** `-o name`: one `kind/namespace/name` per line (kubectl's KIND/NAME), the form `host ACTION` takes. */
  readonly names?: boolean;
}

/** A row with its conditions, from nodes that send them (type, status and reason only). */
export type WideHostRow = HostRow & { readonly conditions?: ReadonlyArray<{ readonly type: string; readonly status: string; readonly reason?: string }> };
type ConditionBrief = NonNullable<WideHostRow['conditions']>[number];

function conditionCell(c: ConditionBrief | undefined): string {
  if (!c) return '-';
  return c.reason ? `${c.status} (${c.reason})` : c.status;
}

// `-o wide`: Ready and Progressing (BMO's; a MaasMachine has Ready only), then the others.
function conditionColumns(): Array<Column<OnNode<WideHostRow>>> {
  const find = (h: WideHostRow, type: string): ConditionBrief | undefined => h.conditions?.find((c) => c.type === type);
  return [
    { header: 'READY', value: (h) => conditionCell(find(h, 'Ready')), max: 32 },
    { header: 'PROGRESSING', value: (h) => conditionCell(find(h, 'Progressing')), max: 32 },
    {
      header: 'CONDITIONS',
      value: (h) => h.conditions?.filter((c) => c.type !== 'Ready' && c.type !== 'Progressing').map((c) => `${c.type}=${c.status}`).join(' ') || '-',
      max: 96,
    },
  ];
}

// A message without an error type is shown too: a host waiting for a user-data Secret (BMO's
// transient wait, `delayed` with no errorType) or one whose store record does not parse says why
// only there, and '-' hid it.
function errorCell(h: HostRow): string {
  if (h.errorType) return `${h.errorType}${h.errorMessage ? `: ${h.errorMessage}` : ''}`;
  return h.errorMessage || '-';
}

export function hostColumns(wide = false): Array<Column<OnNode<WideHostRow>>> {
  const columns: Array<Column<OnNode<WideHostRow>>> = [
    // Names (and actor paths, holders, node names below) are never cut: hosts of one scheme share
    // long prefixes, and a cut name told no row from the next. The line is still cut at the width.
    { header: 'NAME', value: (h) => h.key },
    { header: 'KIND', value: (h) => KIND_SHORT[h.kind] ?? h.kind },
    { header: 'BACKEND', value: (h) => h.backend },
    { header: 'STATE', value: (h) => h.state || 'none', max: 26 },
    { header: 'POWER', value: (h) => (h.poweredOn ? 'on' : 'off') },
    { header: 'STATUS', value: (h) => h.operationalStatus || '-' },
    { header: 'SHARD', value: (h) => String(h.shard), align: 'right' },
    { header: 'NODE', value: (h) => h.node },
    { header: 'IN STATE', value: (h) => formatDuration(h.stateSinceMs), align: 'right' },
    { header: 'ERROR', value: errorCell },
  ];
  // The error stays last: it is the one column of unbounded width.
  return wide ? [...columns.slice(0, -1), ...conditionColumns(), ...columns.slice(-1)] : columns;
}

/** How many ownerless shards the warning names before "and N more". */
const OWNERLESS_SHOWN = 10;

/**
 * The shards of the cluster's `shardCount` that no node that answered owns: during a hand-off the
 * moving shard is answered by neither node, so its objects are missing from the listing. Empty when
 * the count is unknown or some node did not answer either ask (its shards are unknown, not
 * ownerless: the missing-node warning already says so).
 */
export function ownerlessShards<T>(
  listed: GatheredLike<T>,
  shardsOf: (value: T) => readonly number[],
  shards: GatheredLike<{ shards: ReadonlyArray<{ shard: number }> }> | null,
  shardCount: number | undefined,
): number[] {
  if (shardCount === undefined || shards === null) return [];
  if ([listed, shards].some((g) => g.missing.length > 0 || g.errors.length > 0)) return [];
  return unheldShards(listed, shardsOf, shards, shardCount);
}

/**
 * kubectl's line for an empty listing, narrowed when a node did not answer or answered with an
 * error: its hosts (a node killed a moment ago still holds its shards' leases) are not "none".
 */
export function noResources<T>(gathered: GatheredLike<T>): string {
  return gathered.missing.length + gathered.errors.length > 0 ? 'No resources found on the nodes that answered' : 'No resources found';
}

/** `what`: what the shards hold that the listing leaves out ("hosts", "MaasClusters"). */
export function ownerlessWarning(ownerless: readonly number[], what = 'hosts'): string {
  const shown = ownerless.slice(0, OWNERLESS_SHOWN).join(', ');
  const more = ownerless.length > OWNERLESS_SHOWN ? ` and ${ownerless.length - OWNERLESS_SHOWN} more` : '';
  const [shard, their] = ownerless.length === 1 ? ['shard', 'its'] : ['shards', 'their'];
  return `warning: ${shard} ${shown}${more} had no owner when asked (moving between nodes): ${their} ${what} are not listed; try again`;
}

/**
 * Asks `verb` of the members, and their shards beside it when the whole cluster is asked (--node
 * leaves the other nodes out on purpose: their shards would look ownerless). One member list for
 * both asks, so the shards are asked of exactly the nodes whose objects are listed.
 */
export async function gatherWithShards<V extends 'hosts' | 'clusters'>(
  transport: Transport,
  verb: V,
  request: IntrospectRequest<V>,
  options: ViewOptions,
): Promise<{ gathered: Gathered<IntrospectReply<V>>; shards: Gathered<IntrospectReply<'shards'>> | null; shardCount: number | undefined }> {
  const members = options.nodes && options.nodes.length > 0 ? null : await listNodes(transport);
  const shardCount = announcedShardCount(members);
  const ask = members ? { timeoutMs: options.timeoutMs, nodes: members.map((m) => m.node) } : gatherOptions(options);
  const [gathered, shards] = await Promise.all([
    gather(transport, verb, request, ask),
    shardCount === undefined ? null : gather(transport, 'shards', {}, ask),
  ]);
  return { gathered, shards, shardCount };
}

export async function hostsView(transport: Transport, query: HostsQuery, options: ViewOptions): Promise<CommandOutput> {
  const request = {
    ...(query.state !== undefined ? { state: query.state } : {}),
    ...(query.backend !== undefined ? { backend: query.backend } : {}),
    ...(query.errors ? { errors: true } : {}),
    // Rows carry conditions only when asked: the dashboard samples every host each second.
    ...(query.wide ? { conditions: true } : {}),
  };
  const { gathered, shards: owned, shardCount } = await gatherWithShards(transport, 'hosts', request, options);
  const warnings = checked(gathered, options);
  const stored = await storedHosts(transport, request, gathered, owned, shardCount, options);
  if (stored && stored.hosts.length > 0) {
    warnings.push(`warning: ${stored.hosts.length} host(s) on shards no answering node holds are shown as ${stored.from}'s store last had them (NODE -), not as driven now; their shards move to the live nodes within the lease time`);
  }
  // Said only when the store could not be asked: otherwise the shards' hosts are in the listing.
  const ownerless = stored ? [] : ownerlessShards(gathered, (v) => v.hosts.map((h) => h.shard), owned, shardCount);
  if (ownerless.length > 0) warnings.push(ownerlessWarning(ownerless));
  const rows: Array<OnNode<WideHostRow>> = [...flatten(gathered, (v) => v.hosts), ...(stored?.hosts ?? []).map((h) => ({ ...h, node: '-' }))]
    .sort((a, b) => a.key.localeCompare(b.key));
  // As kubectl: no rows is nothing on stdout (a pipe counts no host) and a line on stderr; JSON and YAML say it by their empty lists.
  if (rows.length === 0 && options.format === 'table') warnings.push(noResources(gathered));
  const table = (): readonly string[] => {
    if (rows.length === 0) return [];
    return query.names ? rows.map((h) => `${h.kind.toLowerCase()}/${h.key}`) : renderTable(hostColumns(query.wide), rows, { width: options.width });
  };
  return output(stored ? { ...gathered, stored } : gathered, table, options, warnings);
}

// ---- actors ---------------------------------------------------------------------------------

export interface ActorsQuery {
  readonly tree?: boolean;
  readonly prefix?: string;
}

// One collator for every comparison: localeCompare with options builds one per call, which cost
// more than the rest of a 60,000-actor listing.
const byPath = new Intl.Collator('en', { numeric: true }).compare;

/** Actors in depth-first order under their parents, each with its depth (for --tree). */
export function actorTree<R extends { path: string; parent: string | null; node: string }>(rows: readonly R[]): Array<{ row: R; depth: number }> {
  // Appended in place: copying the list for each row made a 20,000-actor cluster take seconds.
  const byNode = new Map<string, R[]>();
  for (const r of rows) {
    const list = byNode.get(r.node);
    if (list) list.push(r);
    else byNode.set(r.node, [r]);
  }
  const out: Array<{ row: R; depth: number }> = [];
  for (const node of [...byNode.keys()].sort()) {
    const list = byNode.get(node) ?? [];
    const paths = new Set(list.map((r) => r.path));
    const children = new Map<string | null, R[]>();
    for (const r of list) {
      // An actor whose parent is not in the listing (a --prefix cut) is a root here.
      const parent = r.parent !== null && paths.has(r.parent) ? r.parent : null;
      const siblings = children.get(parent);
      if (siblings) siblings.push(r);
      else children.set(parent, [r]);
    }
    const walk = (parent: string | null, depth: number): void => {
      for (const r of (children.get(parent) ?? []).sort((a, b) => byPath(a.path, b.path))) {
        out.push({ row: r, depth });
        walk(r.path, depth + 1);
      }
    };
    walk(null, 0);
  }
  return out;
}

function relativePath(path: string, parent: string | null): string {
  return parent !== null && path.startsWith(`${parent}/`) ? path.slice(parent.length + 1) : path;
}

export function actorColumns(pathOf: (a: OnNode<ActorRow>) => string = (a) => a.path): Array<Column<OnNode<ActorRow>>> {
  return [
    { header: 'PATH', value: pathOf },
    { header: 'KIND', value: (a) => a.kind, max: 16 },
    { header: 'MAILBOX', value: (a) => String(a.mailboxDepth), align: 'right' },
    { header: 'HIGH', value: (a) => String(a.highWater), align: 'right' },
    { header: 'PROCESSED', value: (a) => String(a.processed), align: 'right' },
    { header: 'RESTARTS', value: (a) => String(a.restarts), align: 'right' },
    { header: 'STATE', value: (a) => (a.busy ? 'busy' : 'idle') },
    { header: 'NODE', value: (a) => a.node },
    { header: 'LAST ERROR', value: (a) => a.lastError ?? '-' },
  ];
}

export async function actorsView(transport: Transport, query: ActorsQuery, options: ViewOptions): Promise<CommandOutput> {
  const gathered = await gather(transport, 'actors', query.prefix !== undefined ? { prefix: query.prefix } : {}, gatherOptions(options));
  const warnings = checked(gathered, options);
  const rows = flatten(gathered, (v) => v.actors);
  const table = (): string[] => {
    if (rows.length === 0) return ['no actors'];
    if (!query.tree) {
      const sorted = [...rows].sort((a, b) => a.node.localeCompare(b.node) || byPath(a.path, b.path));
      return renderTable(actorColumns(), sorted, { width: options.width });
    }
    const tree = actorTree(rows);
    const depth = new Map(tree.map(({ row, depth: d }) => [row, d]));
    const paths = new Set(rows.map((r) => `${r.node}\u0000${r.path}`));
    const pathOf = (a: OnNode<ActorRow>): string => {
      const d = depth.get(a) ?? 0;
      const shown = d > 0 && a.parent !== null && paths.has(`${a.node}\u0000${a.parent}`) ? relativePath(a.path, a.parent) : a.path;
      return `${'  '.repeat(d)}${shown}`;
    };
    return renderTable(actorColumns(pathOf), tree.map((t) => t.row), { width: options.width });
  };
  return output(gathered, table, options, warnings);
}

// ---- shards ---------------------------------------------------------------------------------

export function shardColumns(): Array<Column<OnNode<ShardRow>>> {
  return [
    { header: 'SHARD', value: (s) => String(s.shard), align: 'right' },
    { header: 'NODE', value: (s) => s.node },
    { header: 'EPOCH', value: (s) => String(s.epoch), align: 'right' },
    { header: 'HOSTS', value: (s) => String(s.hosts), align: 'right' },
    { header: 'LEASE AGE', value: (s) => formatDuration(s.leaseAgeMs), align: 'right' },
    // Issue 30: fenced writes refused as stale, and the give-ups that retook the shard above.
    { header: 'FENCE REFUSED', value: (s) => fenceRefusedText(s), max: 48 },
  ];
}

function fenceRefusedText(s: ShardRow): string {
  if (!s.fenceRefused) return '-';
  const last = s.lastRetake ? `; retaken ${s.fenceRetakes ?? 0}x, last: epoch ${s.lastRetake.epoch} refused by ${s.lastRetake.by} at ${s.lastRetake.lostTo}, ${formatDuration(s.lastRetake.agoMs)} ago` : '';
  return `${s.fenceRefused}${last}`;
}

export async function shardsView(transport: Transport, options: ViewOptions): Promise<CommandOutput> {
  const gathered = await gather(transport, 'shards', {}, gatherOptions(options));
  const warnings = checked(gathered, options);
  const rows = flatten(gathered, (v) => v.shards).sort((a, b) => a.shard - b.shard || a.node.localeCompare(b.node));
  // As hosts (and kubectl): no rows is nothing on stdout and a line on stderr.
  if (rows.length === 0 && options.format === 'table') warnings.push(noResources(gathered));
  return output(gathered, () => (rows.length === 0 ? [] : renderTable(shardColumns(), rows, { width: options.width })), options, warnings);
}

// ---- capacity -------------------------------------------------------------------------------

/** `provision=3 deprovision=2`: slots by operation. */
export function operationCounts(entries: ReadonlyArray<{ operation: string }>): string {
  const counts = new Map<string, number>();
  for (const e of entries) counts.set(e.operation, (counts.get(e.operation) ?? 0) + 1);
  return counts.size === 0 ? '-' : [...counts].map(([op, n]) => `${op}=${n}`).join(' ');
}

export function capacityColumns(): Array<Column<OnNode<PoolRow>>> {
  return [
    { header: 'POOL', value: (p) => p.pool, max: 32 },
    { header: 'LIMIT', value: (p) => (p.limit === null ? 'none' : String(p.limit)), align: 'right' },
    // The slots the limit (the column before) bounds; exempt holders (virtual media) beside them.
    { header: 'IN USE', value: (p) => usageText(p), align: 'right' },
    { header: 'HOSTS', value: (p) => String(p.inUseCount ?? new Set(p.inUse.map((u) => u.holder)).size), align: 'right' },
    { header: 'WAITING', value: (p) => String(waitingOf(p)), align: 'right' },
    { header: 'LONGEST WAIT', value: (p) => (waitingOf(p) === 0 ? '-' : formatDuration(p.longestWaitMs)), align: 'right' },
    // Time with a free slot beside a waiting request and nothing granted: anything but 0 is a stall.
    { header: 'STALLED', value: (p) => formatStall(p.stallSeconds), align: 'right' },
    { header: 'BROKER', value: (p) => p.node },
    { header: 'OPERATIONS', value: (p) => operationCounts(p.inUse) },
  ];
}

export async function capacityView(transport: Transport, options: ViewOptions): Promise<CommandOutput> {
  const gathered = await gather(transport, 'capacity', {}, gatherOptions(options));
  const warnings = checked(gathered, options);
  const brokers = gathered.replies.filter((r) => r.value.broker);
  if (brokers.length === 0) warnings.push('warning: none of the nodes that answered holds the capacity broker; it may be moving (try again)');
  const rows = flatten({ ...gathered, replies: brokers }, (v) => v.pools).sort((a, b) => a.pool.localeCompare(b.pool));
  const calls = flatten(gathered, (v) => v.calls ?? []).sort((a, b) => a.backend.localeCompare(b.backend) || a.node.localeCompare(b.node));
  // As hosts (and kubectl): nothing to list is a line on stderr, so a pipe sees no pool rows.
  if (rows.length === 0 && brokers.length > 0 && options.format === 'table') warnings.push('No pools in use yet (no host has asked for a slot)');
  const table = (): string[] => {
    const pools = rows.length === 0 ? [] : [...renderTable(capacityColumns(), rows, { width: options.width }), ...rows.flatMap((p) => poolDetail(p, options.width))];
    if (calls.length === 0) return pools;
    return [...pools, ...(pools.length > 0 ? [''] : []), 'backend calls without a slot, per node', ...renderTable(callColumns(), calls, { width: options.width })];
  };
  return output(gathered, table, options, warnings);
}

// Each node bounds its own calls that hold no slot (registration, power, reads), per backend.
export function callColumns(): Array<Column<OnNode<BackendCallRow>>> {
  return [
    { header: 'BACKEND', value: (c) => c.backend, max: 32 },
    { header: 'NODE', value: (c) => c.node },
    { header: 'LIMIT', value: (c) => (c.limit === null ? 'none' : String(c.limit)), align: 'right' },
    { header: 'IN FLIGHT', value: (c) => String(c.inFlight), align: 'right' },
    { header: 'WAITING', value: (c) => String(c.waiting), align: 'right' },
    { header: 'LONGEST WAIT', value: (c) => (c.waiting === 0 ? '-' : formatDuration(c.longestWaitMs)), align: 'right' },
    // Calls of slot holders run beside the bound: the slot bounds them.
    { header: 'SLOT HOLDERS', value: (c) => String(c.slotHolderInFlight), align: 'right' },
    { header: 'MOST', value: (c) => String(c.maxInFlight), align: 'right' },
  ];
}

/** How many waiters the table lists per pool; --json / -o yaml give the whole queue. */
export const WAITING_SHOWN = 10;

// Under the summary: which hosts hold the pool's slots and for what, and who waits, in order.
function poolDetail(p: OnNode<PoolRow>, width: number): string[] {
  const out: string[] = [];
  if (p.inUse.length > 0) {
    out.push('', `${p.pool}: in use`);
    out.push(...renderTable<PoolRow['inUse'][number]>([
      { header: 'HOST', value: (u) => u.holder },
      { header: 'OPERATION', value: (u) => (u.exempt ? `${u.operation} (exempt)` : u.operation) },
      { header: 'FOR', value: (u) => formatDuration(u.sinceMs), align: 'right' },
    ], p.inUse, { width: width - 2 }).map((l) => `  ${l}`));
    // The broker lists its first holders only: the count says how many the list leaves out.
    const unlisted = inUseOf(p) - p.inUse.length;
    if (unlisted > 0) out.push(`  … and ${unlisted} more (the broker lists its first ${p.inUse.length} holders)`);
  }
  if (p.waiting.length > 0) {
    const shown = p.waiting.slice(0, WAITING_SHOWN);
    out.push('', `${p.pool}: waiting, next first`);
    out.push(...renderTable<{ at: number; w: PoolRow['waiting'][number] }>([
      { header: '#', value: (x) => String(x.at), align: 'right' },
      { header: 'HOST', value: (x) => x.w.holder },
      { header: 'OPERATION', value: (x) => x.w.operation },
      { header: 'WAITING', value: (x) => formatDuration(x.w.waitingMs), align: 'right' },
    ], shown.map((w, i) => ({ at: i + 1, w })), { width: width - 2 }).map((l) => `  ${l}`));
    const all = p.waiting.length === waitingOf(p) ? 'lists them all' : `list the first ${p.waiting.length}`;
    if (waitingOf(p) > shown.length) out.push(`  … and ${waitingOf(p) - shown.length} more (--json or -o yaml ${all})`);
  }
  return out;
}

// ---- nodes ----------------------------------------------------------------------------------

export interface NodeLine {
  readonly node: string;
  readonly lastSeenMs: number | null;
  readonly info: InfoReply | null;
}

export function nodeColumns(): Array<Column<NodeLine>> {
  const i = <T>(f: (info: InfoReply) => T, text: (v: T) => string) => (n: NodeLine): string => (n.info ? text(f(n.info)) : '-');
  return [
    { header: 'NODE', value: (n) => n.node },
    { header: 'UPTIME', value: i((x) => x.uptimeMs, formatDuration), align: 'right' },
    { header: 'HOSTS', value: i((x) => x.hosts, String), align: 'right' },
    { header: 'SHARDS', value: i((x) => x.shards, String), align: 'right' },
    { header: 'VERSION', value: i((x) => x.version, String), max: 16 },
    { header: 'RSS', value: i((x) => x.memory.rss, formatBytes), align: 'right' },
    { header: 'HEAP', value: i((x) => x.memory.heapUsed, formatBytes), align: 'right' },
    { header: 'LOOP LAG', value: i((x) => x.eventLoopLagMs, (v) => `${v.toFixed(1)}ms`), align: 'right' },
    { header: 'BROKER', value: i((x) => x.broker, (b) => (b ? 'yes' : '')) },
    { header: 'PID', value: i((x) => x.pid, String), align: 'right' },
    { header: 'SEEN', value: (n) => (n.info ? 'answered' : n.lastSeenMs === null ? 'no answer' : `no answer, heartbeat ${formatDuration(n.lastSeenMs)} ago`) },
  ];
}

export async function nodesView(transport: Transport, options: ViewOptions): Promise<CommandOutput> {
  const wanted = options.nodes && options.nodes.length > 0 ? new Set(options.nodes) : null;
  // --node narrows the data as it narrows the table: --json must not list members not asked for.
  const members = (await listNodes(transport)).filter((m) => !wanted || wanted.has(m.node));
  const gathered = await gather(transport, 'info', {}, gatherOptions(options));
  const warnings = checked(gathered, options);
  const byName = new Map<string, NodeLine>();
  for (const m of members) byName.set(m.node, { node: m.node, lastSeenMs: m.lastSeenMs, info: null });
  for (const r of gathered.replies) byName.set(r.node, { node: r.node, lastSeenMs: byName.get(r.node)?.lastSeenMs ?? null, info: r.value });
  const lines = [...byName.values()].sort((a, b) => a.node.localeCompare(b.node));
  return output({ members, ...gathered }, () => renderTable(nodeColumns(), lines, { width: options.width }), options, warnings);
}

// ---- inspect --------------------------------------------------------------------------------

export interface InspectQuery {
  readonly host: string;
  /** The object's kind as manifests spell it; absent: BareMetalHost. */
  readonly kind?: string | undefined;
  readonly shardCount: number;
  /** Unix ms, for the ages of transitions (tests pin it). */
  readonly now?: number;
}

/** A host key as the nodes know it, or a CliError (exit 2) saying what is wrong with it. */
export function parseHostKey(key: string): string {
  const parsed = HostKey.safeParse(key);
  if (!parsed.success) throw new CliError(`host ${JSON.stringify(key)}: ${parsed.error.issues.map((i) => i.message).join('; ')}`, 2);
  return parsed.data;
}

function scalar(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (typeof value === 'string') return value === '' ? '""' : value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return value.every((v) => typeof v !== 'object' || v === null) ? value.map(scalar).join(', ') : `[${value.length} items]`;
  return JSON.stringify(value);
}

/** `a.b.c: value` for the leaves of an object, at most `depth` levels down. */
export function leaves(value: unknown, depth = 3, prefix = ''): Array<[string, string]> {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || depth === 0) return [[prefix || 'value', scalar(value)]];
  const out: Array<[string, string]> = [];
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (v !== null && typeof v === 'object' && !Array.isArray(v) && depth > 1) out.push(...leaves(v, depth - 1, key));
    else out.push([key, scalar(v)]);
  }
  return out;
}

function clock(at: number): string {
  return new Date(at).toISOString().replace('T', ' ').slice(0, 19);
}

// A BareMetalHost's status says when it was written (lastUpdated); a MaasMachine's has only its conditions' times.
function storedAge(h: InspectedHost): string {
  return `${h.kind === 'MaasMachine' ? 'its newest condition changed' : 'status last written'} ${formatDuration(h.stateSinceMs)} ago`;
}

export function renderInspect(node: string, h: InspectedHost, width: number, now: number): string[] {
  const slot = h.slot.phase === 'none' ? 'none'
    : h.slot.phase === 'held' ? `held${h.slot.op ? ` for ${h.slot.op}` : ''}`
      : `waiting${h.slot.op ? ` for ${h.slot.op}` : ''}${h.slot.waitingMs !== undefined ? ` since ${formatDuration(h.slot.waitingMs)}` : ''}`;
  const retry = h.retryWaitsForChange ? 'none: the next attempt waits for a change to the host or its Secret'
    : h.retryAt === null && h.nextAttemptInMs === null ? 'none scheduled'
    : `next attempt in ${formatDuration(h.nextAttemptInMs)}${h.retryAt !== null ? ` (at ${clock(h.retryAt)} UTC)` : ''}`;
  // A stored answer (no node drives the host now) knows only what its status last said.
  const driving: Array<[string, string]> = h.stored
    ? [
      ['state', `${h.state || 'none'} (${h.state === 'unreadable' ? 'its record in the store cannot be read: see the warning below' : storedAge(h)})`],
      ['owner', `none answering for shard ${h.shard}: shown as node ${node}'s store last had it; the shard moves to a live node within the lease time`],
      ['in flight', 'unknown (no node drives it now)'],
    ]
    : [
      ['state', `${h.state || 'none'} for ${formatDuration(h.stateSinceMs)}`],
      ['owner', `node ${node}, shard ${h.shard}, epoch ${h.epoch}`],
      ['in flight', h.inFlight ?? 'nothing'],
      ['slot', slot],
      ['backoff', retry],
    ];
  const lines: string[] = [
    ...renderFields([['host', `${h.key}  (${h.kind}, backend ${h.backend})`], ...driving], width),
    '',
    'spec:',
  ];
  const spec = leaves(h.spec);
  lines.push(...(spec.length > 0 ? renderFields(spec, width, '  ') : ['  (empty)']));
  lines.push('', 'status:');
  const status = leaves(h.status).filter(([k, v]) => k !== 'conditions' && v !== '-' && v !== '""');
  lines.push(...(status.length > 0 ? renderFields(status, width, '  ') : ['  (none written yet)']));
  lines.push('', 'conditions:', ...conditionLines(h.status['conditions'], width, now));
  lines.push('', 'recent transitions (newest last):');
  if (h.recent.length === 0) lines.push('  none');
  else {
    lines.push(...renderTable<InspectedHost['recent'][number]>([
      { header: '  AGO', value: (r) => `  ${formatDuration(now - r.at)}`, align: 'right' },
      { header: 'AT (UTC)', value: (r) => clock(r.at) },
      { header: 'TYPE', value: (r) => r.severity },
      { header: 'REASON', value: (r) => r.reason, max: 28 },
      { header: 'MESSAGE', value: (r) => r.message },
    ], h.recent, { width }));
  }
  if (h.companions !== undefined) lines.push('', 'companions:', ...companionLines(h.companions));
  if (h.backendRecord !== undefined) {
    lines.push('', 'backend record:');
    const record = leaves(h.backendRecord, 2);
    lines.push(...renderFields(record.slice(0, 40), width, '  '));
    if (record.length > 40) lines.push(`  ... ${record.length - 40} more (use --json)`);
  }
  return lines.map((l) => truncate(oneLine(l), width));
}

/** A BareMetalHost's HardwareData, firmware settings, components and update policy, one line each. */
export function companionLines(c: NonNullable<InspectedHost['companions']>): string[] {
  const yesNo = (v: boolean | null): string => (v === null ? 'unknown' : v ? 'yes' : 'no');
  const lines = [`  HardwareData:           ${c.hardwareData ? 'present' : 'none'}`];
  const s = c.settings;
  lines.push(s ? `  HostFirmwareSettings:   ${s.reported} reported, ${s.asked} asked; valid ${yesNo(s.valid)}, changes ${yesNo(s.changeDetected)}${s.schema ? `; schema ${s.schema}` : ''}` : '  HostFirmwareSettings:   none');
  const fc = c.components;
  lines.push(fc ? `  HostFirmwareComponents: ${fc.versions.map((v) => `${v.component} ${v.version}`).join(', ') || 'none listed'}; ${fc.updatesAsked} update(s) asked` : '  HostFirmwareComponents: none');
  const p = c.updatePolicy;
  lines.push(p ? `  HostUpdatePolicy:       firmwareSettings ${p.firmwareSettings ?? 'onPreparing'}, firmwareUpdates ${p.firmwareUpdates ?? 'onPreparing'}` : '  HostUpdatePolicy:       none (changes only while preparing)');
  return lines;
}

const Conditions = z.array(Condition);

/** status.conditions as a table; AGE is since lastTransitionTime, MESSAGE only when one has one. */
export function conditionLines(raw: unknown, width: number, now: number): string[] {
  if (raw === undefined) return ['  none'];
  const parsed = Conditions.safeParse(raw);
  if (!parsed.success) return ['  (not a list of conditions; see --json)'];
  if (parsed.data.length === 0) return ['  none'];
  const columns: Array<Column<Condition>> = [
    { header: '  TYPE', value: (c) => `  ${c.type}`, max: 42 },
    { header: 'STATUS', value: (c) => c.status },
    { header: 'REASON', value: (c) => c.reason || '-', max: 32 },
    { header: 'AGE', value: (c) => formatDuration(c.lastTransitionTime ? now - Date.parse(c.lastTransitionTime) : null), align: 'right' },
  ];
  if (parsed.data.some((c) => c.message)) columns.push({ header: 'MESSAGE', value: (c) => c.message ?? '' });
  return renderTable(columns, parsed.data, { width });
}

export async function inspectView(transport: Transport, query: InspectQuery, options: ViewOptions): Promise<CommandOutput> {
  const key = parseHostKey(query.host);
  let found: { node: string; value: { node: string; host: InspectedHost } };
  try {
    found = await inspectHost(transport, key, { ...gatherOptions(options), shardCount: query.shardCount, kind: query.kind });
  } catch (error) {
    throw inspectError(error, key, options);
  }
  return output(found, () => renderInspect(found.node, found.value.host, options.width, query.now ?? Date.now()), options);
}

function inspectError(error: unknown, key: string, options: ViewOptions): Error {
  if (error instanceof CliError) return error;
  // A kind the nodes do not show (a MaasCluster: see `clusters`), or one that is not a kind's name.
  if (error instanceof RangeError) return new CliError(oneLine(error.message), 2);
  if (error instanceof NotFound && error.message.includes('no node is running')) {
    return new CliError(`no metalfleet node answered for host ${key}; is a node running with --nats ${options.natsUrl}?`);
  }
  if (error instanceof NotFound && !error.retryable) {
    return new CliError(`unknown host ${key}: ${oneLine(error.message).replace(`host ${key} not found: `, '')}`);
  }
  if (error instanceof NotFound) return new CliError(oneLine(error.message));
  if (error instanceof RemoteError && error.kind === 'notFound') return new CliError(`unknown host ${key}: ${oneLine(error.message)}`);
  if (error instanceof RemoteError) return new CliError(`host ${key}: ${error.kind}: ${oneLine(error.message)}`);
  if (error instanceof BusError && (error.kind === 'noResponders' || error.kind === 'timeout')) {
    return new CliError(`no metalfleet node answered for host ${key} within ${seconds(options.timeoutMs)}; is a node running with --nats ${options.natsUrl}?`);
  }
  if (error instanceof BusError) return new CliError(`host ${key}: ${oneLine(error.message)}`);
  return error instanceof Error ? error : new Error(String(error));
}
