// The CLI's side of introspection: who is in the cluster (the membership bucket), and the same
// question put to every node at once with one deadline. A node that does not answer in time is
// named, not waited for. The embedded mode passes `nodes: ['embedded']` on its in-memory bus.
import type { Subjects } from '../../bus/index.ts';
import { call, jetStreamMissing, RemoteError, subjects as defaultSubjects } from '../../bus/index.ts';
import { HostKey } from '../../bus/messages/command.ts';
import type { InspectReply, InspectRequest, IntrospectReply, IntrospectRequest, IntrospectVerb } from '../../bus/messages/introspect.ts';
import { HostKind, INTROSPECT } from '../../bus/messages/introspect.ts';
import { shardOf, MetalfleetError, errorMessage } from '../../api/index.ts';
import type { KvBucket, Transport } from '../../ports/index.ts';
import { BusError } from '../../ports/index.ts';
import { parseHeartbeat } from '../membership.ts';

// 1,000 pages of ~512 KB: half a gigabyte of host rows from one node, far past any real one.
const MAX_HOST_PAGES = 1_000;

/** The verbs whose replies come in pages, and the list each page carries. */
const PAGED: Partial<Record<IntrospectVerb, 'hosts' | 'clusters' | 'actors'>> = { hosts: 'hosts', clusters: 'clusters', actors: 'actors' };
type Paged = { next?: string | undefined } & Partial<Record<'hosts' | 'clusters' | 'actors', unknown[]>>;

/** The bucket nodes heartbeat into (keys `node.<id>`); its TTL drops a dead node's key. */
export const MEMBER_BUCKET = 'mf-members';
const MEMBER_PREFIX = 'node.';

export interface GatherOptions {
  /** Deadline of each node's answer, all its pages included (all are asked at once). */
  timeoutMs: number;
  /** Ask these nodes; default the live members of the cluster. */
  nodes?: readonly string[];
  subjects?: Subjects;
}

export interface Gathered<T> {
  /** Sorted by node. */
  replies: Array<{ node: string; value: T }>;
  /** Nodes that answered with an error (or whose answer could not be read). */
  errors: Array<{ node: string; message: string }>;
  /** Nodes that did not answer in time (or no longer listen: a dead node until it leaves membership). */
  missing: string[];
}

/** The cluster could not be asked at all (NATS or its KV unreachable). */
export class IntrospectUnavailable extends MetalfleetError {
  constructor(message: string, options?: ErrorOptions) {
    super('introspectUnavailable', message, true, undefined, options);
    this.name = 'IntrospectUnavailable';
  }
}

/** No node owns or knows the host. `retryable` when some node did not answer (it may be the owner). */
export class NotFound extends MetalfleetError {
  constructor(readonly host: string, message: string, retryable: boolean) {
    super('notFound', message, retryable);
    this.name = 'NotFound';
  }
}

/** The live members of the cluster, from their heartbeats; sorted by node. */
export async function listNodes(transport: Transport): Promise<Array<{ node: string; lastSeenMs: number; info?: Record<string, string> }>> {
  const bucket = await openMembers(transport);
  let keys: string[];
  try {
    keys = await bucket.keys(`${MEMBER_PREFIX}*`);
  } catch (err) {
    throw unavailable(transport, `listing ${MEMBER_BUCKET}`, err);
  }
  const now = Date.now();
  const out: Array<{ node: string; lastSeenMs: number; info?: Record<string, string> }> = [];
  await Promise.all(keys.map(async (key) => {
    let entry;
    try {
      entry = await bucket.get(key);
    } catch (err) {
      throw unavailable(transport, `reading ${MEMBER_BUCKET}/${key}`, err);
    }
    if (!entry) return; // expired or left between the listing and the read
    const hb = parseHeartbeat(entry.value);
    if (!hb || `${MEMBER_PREFIX}${hb.node}` !== key) return;
    // The writer's clock: skew between machines shows up here, and only here.
    out.push({ node: hb.node, lastSeenMs: Math.max(0, now - hb.at), ...(hb.info ? { info: hb.info } : {}) });
  }));
  return out.sort((a, b) => a.node.localeCompare(b.node));
}

/** Asks every node (the members, unless `options.nodes`) in parallel, each within `timeoutMs`. */
export async function gather<V extends IntrospectVerb>(
  transport: Transport,
  verb: V,
  request: IntrospectRequest<V>,
  options: GatherOptions,
): Promise<Gathered<IntrospectReply<V>>> {
  const parsed = INTROSPECT[verb].request.safeParse(request);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new RangeError(`introspect ${verb}: invalid request at ${issue?.path.map(String).join('.') || '(request)'}: ${issue?.message ?? ''}`);
  }
  const nodes = [...new Set(options.nodes ?? (await listNodes(transport)).map((n) => n.node))].sort();
  const subs = options.subjects ?? defaultSubjects();
  const result: Gathered<IntrospectReply<V>> = { replies: [], errors: [], missing: [] };
  // One deadline per node for all its pages: each page given the whole timeout again held the
  // caller for pages × timeout on a slow node of many pages before naming it missing.
  const deadline = Date.now() + options.timeoutMs;
  await Promise.all(nodes.map(async (node) => {
    try {
      const ask = (req: unknown): Promise<IntrospectReply<V>> => {
        const subject = subs.introspectVerb(node, verb);
        const left = deadline - Date.now();
        if (left <= 0) return Promise.reject(new BusError('timeout', subject, `${node}: its pages did not all come within ${options.timeoutMs} ms`));
        return call(transport, subject, req, INTROSPECT[verb].reply, { timeoutMs: left }) as Promise<IntrospectReply<V>>;
      };
      let value = await ask(parsed.data);
      // A big node answers its hosts (clusters, actors) a page at a time (host-pages.ts): follow the pages.
      const list = PAGED[verb];
      for (let pages = 1; list !== undefined && typeof (value as Paged).next === 'string'; pages++) {
        if (pages > MAX_HOST_PAGES) throw new Error(`${node}: ${verb} did not end after ${MAX_HOST_PAGES} pages`);
        const prev = value as Paged;
        const more = await ask({ ...(parsed.data as object), after: prev.next }) as Paged;
        value = { ...more, [list]: [...(prev[list] ?? []), ...(more[list] ?? [])] } as IntrospectReply<V>;
      }
      result.replies.push({ node, value });
    } catch (err) {
      if (err instanceof BusError && (err.kind === 'timeout' || err.kind === 'noResponders')) result.missing.push(node);
      else result.errors.push({ node, message: errorMessage(err) });
    }
  }));
  result.replies.sort((a, b) => a.node.localeCompare(b.node));
  result.errors.sort((a, b) => a.node.localeCompare(b.node));
  result.missing.sort();
  return result;
}

/** The shard count the running nodes announce in their heartbeats, when they all agree on one. */
export function announcedShardCount(members: ReadonlyArray<{ info?: Record<string, string> }> | null): number | undefined {
  const counts = new Set((members ?? []).map((m) => Number(m.info?.shards)));
  const [only] = counts;
  return counts.size === 1 && only !== undefined && Number.isInteger(only) && only > 0 ? only : undefined;
}

/**
 * The owner's view of one object of one kind (no kind: the BareMetalHost): asks every node,
 * returns the one that owns it. A kind inspect does not show is a RangeError naming the ones it does.
 */
export async function inspectHost(
  transport: Transport,
  key: string,
  options: GatherOptions & { shardCount: number; kind?: string | undefined },
): Promise<{ node: string; value: InspectReply }> {
  const valid = HostKey.safeParse(key);
  if (!valid.success) throw new RangeError(`inspect: host ${valid.error.issues[0]?.message ?? 'is not "<namespace>/<name>"'}`);
  const kind = options.kind ?? 'BareMetalHost';
  const request = INTROSPECT.inspect.request.safeParse({ host: key, kind });
  if (!request.success) throw new RangeError(`inspect: kind ${JSON.stringify(kind)} is not one inspect shows: ${HostKind.options.join(', ')} (MaasClusters: see clusters)`);
  const members = options.nodes ? null : await listNodes(transport);
  const shard = shardOf(key, announcedShardCount(members) ?? options.shardCount);
  // Each node once, however the caller built the list.
  const nodes = [...new Set(options.nodes ?? (members ?? []).map((n) => n.node))];
  const subs = options.subjects ?? defaultSubjects();
  const owners: Array<{ node: string; value: InspectReply }> = [];
  const notOwners: string[] = [];
  const notFound: string[] = [];
  const errors: string[] = [];
  const missing: string[] = [];
  await Promise.all(nodes.map(async (node) => {
    try {
      const value = await call(transport, subs.introspectVerb(node, 'inspect'), request.data, INTROSPECT.inspect.reply, { timeoutMs: options.timeoutMs });
      owners.push({ node, value });
    } catch (err) {
      if (err instanceof RemoteError && err.kind === 'notOwner') {
        notOwners.push(node);
        return;
      }
      if (err instanceof RemoteError && err.kind === 'notFound') notFound.push(node);
      else if (err instanceof BusError && (err.kind === 'timeout' || err.kind === 'noResponders')) missing.push(node);
      else errors.push(`${node}: ${errorMessage(err)}`);
    }
  }));
  // During a hand-off two nodes may both answer for a moment: the later lease is the owner.
  const best = owners.sort((a, b) => b.value.host.epoch - a.value.host.epoch)[0];
  if (best) return best;
  // No node drives it now (its owner killed a moment ago keeps the lease until its TTL, or the
  // shard is moving): it is shown as an answering node's store last had it. A BareMetalHost's
  // shard says which nodes do not own it; a MaasMachine's is its cluster's, so every node that
  // does not drive it said notFound, and their stores are asked. A BareMetalHost its owner says
  // it does not know is not there: no store is asked.
  const fromStores = options.nodes ? [] : kind !== 'BareMetalHost' ? notFound : notFound.length === 0 ? notOwners : [];
  const stored = await storedAnswer(transport, subs, request.data, fromStores, options.timeoutMs);
  if (stored) return stored;
  if (notFound.length > 0) {
    const nodesAsked = notFound.sort().join(', ');
    const who = kind === 'BareMetalHost' ? `${nodesAsked} (owner of shard ${shard}) knows no BareMetalHost` : `no node (${nodesAsked}) drives a ${kind}`;
    throw new NotFound(key, `host ${key} not found: ${who} of that name; check the kind, namespace and name`, false);
  }
  const parts = [`no node answered for host ${key} (shard ${shard})`];
  if (missing.length > 0) parts.push(`did not answer within ${options.timeoutMs} ms: ${missing.sort().join(', ')} (the owner may be among them; retry)`);
  if (errors.length > 0) parts.push(`failed: ${errors.sort().join('; ')}`);
  if (missing.length === 0 && errors.length === 0) parts.push(nodes.length === 0 ? 'no node is running' : `asked ${[...nodes].sort().join(', ')}; the shard may be moving, retry`);
  throw new NotFound(key, parts.join('; '), missing.length > 0 || errors.length > 0 || nodes.length > 0);
}

/**
 * The first of `nodes` (by name) whose store holds the object, asked as stored; null when none
 * does or answers (the caller's own answer then stands: not found, or retry).
 */
async function storedAnswer(transport: Transport, subs: Subjects, request: InspectRequest, nodes: readonly string[], timeoutMs: number): Promise<{ node: string; value: InspectReply } | null> {
  const answers = await Promise.all([...nodes].sort().map((node) =>
    call(transport, subs.introspectVerb(node, 'inspect'), { ...request, stored: true }, INTROSPECT.inspect.reply, { timeoutMs })
      .then((value) => ({ node, value }), () => null)));
  return answers.find((a) => a !== null) ?? null;
}

// Opening a KV bucket through the Transport creates it when absent: a client must never create
// the membership bucket (it would lack the nodes' TTL), so on NATS ask JetStream first whether it exists.
async function openMembers(transport: Transport): Promise<KvBucket> {
  let exists = true;
  try {
    const raw = await transport.request(`$JS.API.STREAM.INFO.KV_${MEMBER_BUCKET}`, new Uint8Array(0), { timeoutMs: 2_000 });
    const info = JSON.parse(new TextDecoder().decode(raw)) as { error?: { code?: number; description?: string } };
    if (info.error?.code === 404) exists = false;
    else if (info.error) {
      const said = info.error.description ?? String(info.error.code ?? 'an error');
      throw new IntrospectUnavailable(`cannot read the cluster membership (KV bucket ${MEMBER_BUCKET}) on ${transport.name}: ${jetStreamMissing(said) ?? `JetStream said ${said}`}`);
    }
  } catch (err) {
    if (err instanceof IntrospectUnavailable) throw err;
    // No JetStream API to ask: the in-memory bus (its buckets are plain maps, opening one is
    // harmless), or a NATS without JetStream (then opening fails below with a clear error).
    if (!(err instanceof BusError && err.kind === 'noResponders')) throw unavailable(transport, 'asking JetStream for the membership bucket', err);
  }
  if (!exists) return emptyBucket();
  try {
    return await transport.kv(MEMBER_BUCKET);
  } catch (err) {
    throw unavailable(transport, `opening ${MEMBER_BUCKET}`, err);
  }
}

function emptyBucket(): KvBucket {
  const none = (): Promise<never> => Promise.reject(new Error('the membership bucket does not exist'));
  return {
    name: MEMBER_BUCKET,
    get: async () => null,
    keys: async () => [],
    create: none, update: none, put: none, delete: none, watch: none,
  };
}

function unavailable(transport: Transport, what: string, err: unknown): IntrospectUnavailable {
  const detail = errorMessage(err);
  return new IntrospectUnavailable(`cannot list the cluster's nodes (${what} over ${transport.name}): ${detail}. Is NATS reachable and JetStream enabled?`, { cause: err });
}

