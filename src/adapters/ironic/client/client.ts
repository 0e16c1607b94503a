import { setTimeout as sleep } from 'node:timers/promises';
import type { z } from 'zod';
import { lockedRetryDelay } from './backoff.ts';
import { RootDocument, V1Document } from './discovery.ts';
import { ironicErrorMessage } from './error-body.ts';
import { classifyStatus, IronicError } from './errors.ts';
import type { IronicErrorCode } from './errors.ts';
import type { Feature, Negotiated } from './features.ts';
import { featureShortfall, NODE_FIELD_FEATURES, versionSupports } from './features.ts';
import type { RawResponse } from '../../http/index.ts';
import { createTransport, TransportError } from '../../http/index.ts';
import type { CreateNode, JsonPatch, NodeInventory as NodeInventoryT, ValidationResult } from './node.ts';
import { IronicNode, NodeInventory, NodeList, ValidateResult } from './node.ts';
import type { IronicClientOptions } from './options.ts';
import { authHeaders, authSecrets, resolveOptions } from './options.ts';
import { IronicPort, PortList } from './port.ts';
import { collectSecrets, createRedactor } from './redact.ts';
import type { CallStats } from '../../http/index.ts';
import { createCallStats } from '../../http/index.ts';
import type { PowerTarget, ProvisionExtra, ProvisionTarget } from './states.ts';
import type { ApiVersion, ServerVersions } from './version.ts';
import { negotiate, parseApiVersion } from './version.ts';

export interface IronicClient {
  /** The endpoint without a trailing /v1, e.g. http://127.0.0.1:6385. */
  readonly endpoint: string;
  /** GET / and GET /v1/; negotiates min(server max, maxVersion); refuses below 1.81. */
  connect(): Promise<ApiVersion>;
  /** The negotiated version, null before the first call. */
  readonly version: ApiVersion | null;
  supports(feature: Feature): boolean;
  /**
   * The negotiated version and the server's maximum, negotiating first when none is known (or
   * it is older than versionTtlMs), as any call does. Rejects like a call when Ironic is down.
   */
  negotiated(): Promise<Negotiated>;
  createNode(body: CreateNode): Promise<IronicNode>;
  /** By UUID or name; null when Ironic has no such node. */
  getNode(ref: string): Promise<IronicNode | null>;
  /** Every page (follows `next`). `limit` is the page size; `fields` always gains uuid and provision_state. */
  listNodes(q?: { fields?: string[]; provisionState?: string; limit?: number; detail?: boolean }): Promise<IronicNode[]>;
  patchNode(ref: string, ops: JsonPatch[]): Promise<IronicNode>;
  /** A node that is already gone is fine. */
  deleteNode(ref: string): Promise<void>;
  createPort(p: { nodeUuid: string; address: string; pxeEnabled?: boolean }): Promise<IronicPort>;
  /** With `node`, the ports of that node ([] when the node is gone); with `address`, the port with that MAC. */
  listPorts(q: { node?: string; address?: string }): Promise<IronicPort[]>;
  validateNode(ref: string): Promise<ValidationResult>;
  setProvisionState(ref: string, target: ProvisionTarget, extra?: ProvisionExtra): Promise<void>;
  setPowerState(ref: string, target: PowerTarget, timeoutSeconds?: number): Promise<void>;
  /** The RAID a node's next RAID clean steps build (`PUT states/raid`: Ironic refuses a PATCH of target_raid_config). */
  setTargetRaidConfig(ref: string, config: Readonly<Record<string, unknown>>): Promise<void>;
  setMaintenance(ref: string, reason: string): Promise<void>;
  unsetMaintenance(ref: string): Promise<void>;
  /** What inspection stored; null when there is none (404). A missing node still throws not-found. */
  getInventory(ref: string): Promise<NodeInventoryT | null>;
  readonly stats: CallStats;
  /** Closes the kept-alive connections. */
  close(): void;
}

const VERSION_HEADER = 'X-OpenStack-Ironic-API-Version';
// OpenSSL's verification failures as Node reports them.
const TLS_VERIFY = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER|ALTNAME/;
// A list that keeps paging past this is not converging (a marker that does not advance).
const MAX_PAGES = 10_000;
// Both a missing node and missing inventory answer 404; Ironic's texts tell them apart
// ("Node inventory record for node 7 could not be found." vs "Node x could not be found.").
function nodeIsMissing(e: IronicError): boolean {
  const m = e.ironicMessage ?? '';
  return /could not be found/.test(m) && !/inventory/i.test(m);
}

interface Call {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path and query under the endpoint, e.g. /v1/nodes/ns~a/states/provision. */
  readonly path: string;
  /** The route for stats and errors, e.g. PUT /v1/nodes/{node}/states/provision. */
  readonly route: string;
  readonly body?: unknown;
  /** Discovery calls go out before a version is known, and without one. */
  readonly unversioned?: boolean;
}

interface Answer {
  readonly status: number;
  readonly json: unknown;
  readonly raw: RawResponse;
}

/** The features a node body's (or patch's) top-level fields need beyond the baseline. */
function nodeFieldNeeds(fields: readonly string[]): [string, Feature][] {
  return fields.flatMap((f): [string, Feature][] => {
    const feature = NODE_FIELD_FEATURES[f];
    return feature === undefined ? [] : [[`node field ${f}`, feature]];
  });
}

/** The features a provision-state change needs: its verb and the extras it carries. */
function provisionNeeds(target: ProvisionTarget, extra: ProvisionExtra): [string, Feature][] {
  const needs: [string, Feature][] = [];
  if (target === 'service') needs.push(['provision target "service"', 'service']);
  if (target === 'unhold') needs.push(['provision target "unhold"', 'unhold']);
  if (typeof extra.configdrive === 'object') {
    needs.push(['a config drive given as an object', 'configdrive-dict']);
    if (extra.configdrive['vendor_data'] !== undefined) needs.push(['config drive vendor_data', 'configdrive-vendor-data']);
  }
  if (extra.deploySteps !== undefined) needs.push(['deploy_steps', 'deploy-steps']);
  if (extra.disableRamdisk !== undefined) needs.push(['disable_ramdisk', target === 'service' ? 'service-disable-ramdisk' : 'clean-disable-ramdisk']);
  return needs;
}

function seg(ref: string): string {
  if (ref === '') throw new Error('ironic client: empty node or port reference');
  return encodeURIComponent(ref);
}

export function createIronicClient(o: IronicClientOptions): IronicClient {
  const opts = resolveOptions(o);
  // Ironic answers are small; a larger body is not Ironic (and not worth buffering).
  const transport = createTransport(opts.base.protocol === 'https:', opts.tls, 32 * 1024 * 1024);
  const prefix = `${opts.base.origin}${opts.base.pathname.replace(/\/+$/, '')}`;
  const stats = createCallStats();
  const fixedHeaders: Record<string, string> = { Accept: 'application/json', 'User-Agent': 'metalfleet-ironic-client', ...authHeaders(opts.auth) };
  const fixedSecrets = authSecrets(opts.auth);

  let version: ApiVersion | null = null;
  let serverMax: ApiVersion | null = null;
  let negotiatedAt = 0;
  let negotiating: Promise<ApiVersion> | null = null;

  function callText(c: Call): string {
    return `${c.method} ${c.path}`;
  }

  function fail(c: Call, code: IronicErrorCode, retryable: boolean, message: string, extra: { status?: number | null; ironicMessage?: string | null; requestId?: string | null; attempts?: number; cause?: unknown } = {}): IronicError {
    return new IronicError(`${callText(c)}: ${message}`, {
      code,
      retryable,
      status: extra.status ?? null,
      call: callText(c),
      route: c.route,
      ironicMessage: extra.ironicMessage ?? null,
      requestId: extra.requestId ?? null,
      attempts: extra.attempts ?? 1,
    }, extra.cause === undefined ? undefined : { cause: extra.cause });
  }

  async function ensureVersion(): Promise<ApiVersion> {
    if (version !== null && Date.now() - negotiatedAt < opts.versionTtlMs) return version;
    return renegotiate();
  }

  function renegotiate(): Promise<ApiVersion> {
    negotiating ??= discover().finally(() => {
      negotiating = null;
    });
    return negotiating;
  }

  async function discover(): Promise<ApiVersion> {
    const rootCall: Call = { method: 'GET', path: '/', route: 'GET /', unversioned: true };
    const v1Call: Call = { method: 'GET', path: '/v1/', route: 'GET /v1/', unversioned: true };
    const [root, v1] = await Promise.allSettled([request(rootCall), request(v1Call)]);
    if (root.status === 'rejected' && v1.status === 'rejected') throw v1.reason;
    const server = serverVersions(
      root.status === 'fulfilled' ? root.value : null,
      v1.status === 'fulfilled' ? v1.value : null,
    );
    if (server === null) {
      throw fail(v1Call, 'version', false, `Ironic at ${opts.endpoint} reports no API version in GET / or GET /v1/ (is this Ironic?)`);
    }
    const chosen = negotiate(server, opts.maxVersion);
    if (!chosen.ok) throw fail(v1Call, 'version', false, `Ironic at ${opts.endpoint} ${chosen.reason}`);
    version = chosen.version;
    serverMax = server.max;
    negotiatedAt = Date.now();
    return chosen.version;
  }

  async function negotiated(): Promise<Negotiated> {
    const v = await ensureVersion();
    return { version: v, serverMax: serverMax ?? v };
  }

  // A field or call the negotiated version lacks is refused here, before anything is sent:
  // Ironic would answer 400 for the whole request (or, worse, ignore part of it).
  async function gate(c: Call, needs: readonly (readonly [string, Feature])[]): Promise<void> {
    if (needs.length === 0) return;
    const n = await negotiated();
    for (const [what, feature] of needs) {
      const short = featureShortfall(what, feature, n);
      if (short !== null) throw fail(c, 'unsupported', false, short, { attempts: 0 });
    }
  }

  // Prefer GET /v1/'s own version entry, then GET /'s entry for v1, then the range headers.
  function serverVersions(root: Answer | null, v1: Answer | null): ServerVersions | null {
    const candidates: { min?: string; max?: string }[] = [];
    const v1doc = v1 ? V1Document.safeParse(v1.json) : null;
    if (v1doc?.success && v1doc.data.version) candidates.push({ min: v1doc.data.version.min_version, max: v1doc.data.version.version });
    const rootDoc = root ? RootDocument.safeParse(root.json) : null;
    if (rootDoc?.success) {
      const entries = [...(rootDoc.data.versions ?? []), ...(rootDoc.data.default_version ? [rootDoc.data.default_version] : [])];
      const entry = entries.find((e) => e.id === 'v1' && e.version !== undefined);
      if (entry) candidates.push({ min: entry.min_version, max: entry.version });
    }
    for (const a of [v1, root]) {
      const max = header(a?.raw, 'x-openstack-ironic-api-maximum-version');
      if (max !== null) candidates.push({ min: header(a?.raw, 'x-openstack-ironic-api-minimum-version') ?? undefined, max });
    }
    for (const c of candidates) {
      const max = c.max === undefined ? null : parseApiVersion(c.max);
      if (max === null) continue;
      const min = (c.min === undefined ? null : parseApiVersion(c.min)) ?? { major: 1, minor: 1, text: '1.1' };
      if (max.major !== 1) return null;
      return { min, max };
    }
    return null;
  }

  function header(raw: RawResponse | undefined, name: string): string | null {
    const v = raw?.headers[name];
    return typeof v === 'string' ? v : null;
  }

  async function request(c: Call): Promise<Answer> {
    const v = c.unversioned ? null : await ensureVersion();
    const redact = createRedactor([...fixedSecrets, ...collectSecrets(c.body)]);
    const headers: Record<string, string> = { ...fixedHeaders };
    if (v !== null) headers[VERSION_HEADER] = v.text;
    const body = c.body === undefined ? undefined : JSON.stringify(c.body);
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const { attempts } = opts.lockedRetries;

    for (let attempt = 1; ; attempt++) {
      stats.count(c.route);
      let raw: RawResponse;
      try {
        raw = await transport.send({ method: c.method, url: new URL(prefix + c.path), headers, body, timeoutMs: opts.timeoutMs });
      } catch (err) {
        if (!(err instanceof TransportError)) throw err;
        stats.answered(c.route, err.failure.kind === 'timeout' ? 'timeout' : 'network');
        if (err.failure.kind === 'timeout') {
          throw fail(c, 'timeout', true, `Ironic at ${opts.endpoint} gave no complete answer within ${err.failure.timeoutMs} ms`, { attempts: attempt, cause: new Error(redact(err.message)) });
        }
        const e = err.failure.error;
        // A certificate Ironic's TLS does not pass stays bad however often it is tried.
        const tls = TLS_VERIFY.test(e.code ?? '');
        const what = tls ? `TLS verification of Ironic at ${opts.endpoint} failed (${e.code}): check tls.ca` : `cannot reach Ironic at ${opts.endpoint} (${e.code ?? redact(e.message)})`;
        throw fail(c, 'network', !tls, what, { attempts: attempt, cause: e });
      }
      stats.answered(c.route, String(raw.status));
      const requestId = header(raw, 'openstack-request-id') ?? header(raw, 'x-openstack-request-id');
      if (raw.status >= 200 && raw.status < 300) {
        let json: unknown;
        if (raw.body.trim() !== '') {
          try {
            json = JSON.parse(raw.body);
          } catch (err) {
            throw fail(c, 'invalid-response', false, `Ironic's answer (HTTP ${raw.status}) is not JSON`, {
              status: raw.status, requestId, attempts: attempt, cause: new Error(`${redact((err as Error).message)}; answer began: ${redact(raw.body.slice(0, 200))}`),
            });
          }
        }
        return { status: raw.status, json, raw };
      }
      const said = ironicErrorMessage(raw.body);
      const ironicMessage = said === null ? null : redact(said);
      const { code, retryable } = classifyStatus(raw.status, ironicMessage);
      if (code === 'locked' && attempt < attempts) {
        stats.countRetry();
        await sleep(lockedRetryDelay(attempt, opts.lockedRetries));
        continue;
      }
      // A 406 means the version we negotiated is no longer offered (Ironic was rolled back):
      // forget it, so that the next call negotiates again.
      if (code === 'version') version = null;
      const after = attempt > 1 ? ` after ${attempt} attempts` : '';
      const what = ironicMessage ?? (raw.statusText || 'no message');
      throw fail(c, code, code === 'version' ? true : retryable, `Ironic answered HTTP ${raw.status}${after}: ${what}`, {
        status: raw.status,
        ironicMessage,
        requestId,
        attempts: attempt,
        cause: new Error(`HTTP ${raw.status} ${raw.statusText}${requestId ? ` (${requestId})` : ''}: ${redact(said ?? raw.body.slice(0, 500))}`),
      });
    }
  }

  function parse<S extends z.ZodType>(c: Call, schema: S, a: Answer): z.infer<S> {
    const r = schema.safeParse(a.json);
    if (r.success) return r.data;
    const issue = r.error.issues[0];
    const where = issue && issue.path.length > 0 ? issue.path.join('.') : '(body)';
    throw fail(c, 'invalid-response', false, `Ironic's answer (HTTP ${a.status}) has an unexpected shape at ${where}: ${issue?.message ?? 'invalid'}`, {
      status: a.status,
      requestId: header(a.raw, 'openstack-request-id'),
      cause: r.error,
    });
  }

  async function orNullOn404<T>(fn: () => Promise<T>, keep?: (e: IronicError) => boolean): Promise<T | null> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof IronicError && err.code === 'not-found' && !(keep?.(err) ?? false)) return null;
      throw err;
    }
  }

  async function listAll<S extends z.ZodType>(route: string, first: string, schema: S, items: (page: z.infer<S>) => unknown[]): Promise<unknown[]> {
    const out: unknown[] = [];
    let path: string | null = first;
    for (let page = 0; path !== null; page++) {
      if (page >= MAX_PAGES) throw fail({ method: 'GET', path, route }, 'invalid-response', false, `Ironic kept paging past ${MAX_PAGES} pages`);
      const c: Call = { method: 'GET', path, route };
      const parsed = parse(c, schema, await request(c));
      out.push(...items(parsed));
      path = nextPage(first, (parsed as { next?: string }).next);
    }
    return out;
  }

  // Ironic's `next` is an absolute URL built from its own idea of its address (which may be a
  // name this client cannot reach); only its query string is used, on our endpoint.
  function nextPage(first: string, next: string | undefined): string | null {
    if (next === undefined || next === '') return null;
    let query: string;
    try {
      query = new URL(next, opts.endpoint).search;
    } catch {
      return null;
    }
    const base = first.split('?')[0] ?? first;
    return query === '' ? null : `${base}${query}`;
  }

  const client: IronicClient = {
    endpoint: opts.endpoint,
    get version() {
      return version;
    },
    stats,
    connect: () => renegotiate(),
    supports: (feature) => versionSupports(version, feature),
    negotiated,

    async createNode(body) {
      const c: Call = { method: 'POST', path: '/v1/nodes', route: 'POST /v1/nodes', body };
      await gate(c, nodeFieldNeeds(Object.keys(body).filter((k) => body[k] !== undefined)));
      return parse(c, IronicNode, await request(c));
    },

    async getNode(ref) {
      const c: Call = { method: 'GET', path: `/v1/nodes/${seg(ref)}`, route: 'GET /v1/nodes/{node}' };
      return orNullOn404(async () => parse(c, IronicNode, await request(c)));
    },

    async listNodes(q = {}) {
      const params = new URLSearchParams();
      if (q.fields !== undefined && q.fields.length > 0) {
        params.set('fields', [...new Set(['uuid', 'provision_state', ...q.fields])].join(','));
      } else if (q.detail) {
        params.set('detail', 'true');
      }
      if (q.provisionState !== undefined) params.set('provision_state', q.provisionState);
      if (q.limit !== undefined) params.set('limit', String(q.limit));
      const query = params.toString().replace(/%2C/g, ',');
      const nodes = await listAll('GET /v1/nodes', `/v1/nodes${query ? `?${query}` : ''}`, NodeList, (p) => p.nodes);
      return nodes as IronicNode[];
    },

    async patchNode(ref, ops) {
      const c: Call = { method: 'PATCH', path: `/v1/nodes/${seg(ref)}`, route: 'PATCH /v1/nodes/{node}', body: ops };
      await gate(c, nodeFieldNeeds(ops.filter((op) => op.op !== 'remove').map((op) => op.path.split('/')[1] ?? '')));
      return parse(c, IronicNode, await request(c));
    },

    async deleteNode(ref) {
      const c: Call = { method: 'DELETE', path: `/v1/nodes/${seg(ref)}`, route: 'DELETE /v1/nodes/{node}' };
      await orNullOn404(() => request(c));
    },

    async createPort(p) {
      const body = { node_uuid: p.nodeUuid, address: p.address.toLowerCase(), ...(p.pxeEnabled === undefined ? {} : { pxe_enabled: p.pxeEnabled }) };
      const c: Call = { method: 'POST', path: '/v1/ports', route: 'POST /v1/ports', body };
      return parse(c, IronicPort, await request(c));
    },

    async listPorts(q) {
      const params = new URLSearchParams({ detail: 'true' });
      // Ironic ignores `address` when `node` is given, so the address is then matched here.
      if (q.node !== undefined) params.set('node', q.node);
      else if (q.address !== undefined) params.set('address', q.address.toLowerCase());
      const ports = await orNullOn404(() => listAll('GET /v1/ports', `/v1/ports?${params.toString()}`, PortList, (p) => p.ports));
      const all = (ports ?? []) as IronicPort[];
      const address = q.address?.toLowerCase();
      return address === undefined ? all : all.filter((p) => p.address.toLowerCase() === address);
    },

    async validateNode(ref) {
      const c: Call = { method: 'GET', path: `/v1/nodes/${seg(ref)}/validate`, route: 'GET /v1/nodes/{node}/validate' };
      const parsed = parse(c, ValidateResult, await request(c));
      const out: ValidationResult = {};
      for (const [iface, r] of Object.entries(parsed)) out[iface] = { result: r.result, reason: r.reason ?? null };
      return out;
    },

    async setProvisionState(ref, target, extra = {}) {
      const body: Record<string, unknown> = { target };
      if (extra.configdrive !== undefined) body.configdrive = extra.configdrive;
      if (extra.cleanSteps !== undefined) body.clean_steps = extra.cleanSteps;
      if (extra.deploySteps !== undefined) body.deploy_steps = extra.deploySteps;
      if (extra.disableRamdisk !== undefined) body.disable_ramdisk = extra.disableRamdisk;
      const c: Call = { method: 'PUT', path: `/v1/nodes/${seg(ref)}/states/provision`, route: 'PUT /v1/nodes/{node}/states/provision', body };
      await gate(c, provisionNeeds(target, extra));
      await request(c);
    },

    async setPowerState(ref, target, timeoutSeconds) {
      const body = timeoutSeconds === undefined ? { target } : { target, timeout: timeoutSeconds };
      const c: Call = { method: 'PUT', path: `/v1/nodes/${seg(ref)}/states/power`, route: 'PUT /v1/nodes/{node}/states/power', body };
      await request(c);
    },

    async setTargetRaidConfig(ref, config) {
      const c: Call = { method: 'PUT', path: `/v1/nodes/${seg(ref)}/states/raid`, route: 'PUT /v1/nodes/{node}/states/raid', body: config };
      await request(c);
    },

    async setMaintenance(ref, reason) {
      const c: Call = { method: 'PUT', path: `/v1/nodes/${seg(ref)}/maintenance`, route: 'PUT /v1/nodes/{node}/maintenance', body: { reason } };
      await request(c);
    },

    async unsetMaintenance(ref) {
      const c: Call = { method: 'DELETE', path: `/v1/nodes/${seg(ref)}/maintenance`, route: 'DELETE /v1/nodes/{node}/maintenance' };
      await request(c);
    },

    async getInventory(ref) {
      const c: Call = { method: 'GET', path: `/v1/nodes/${seg(ref)}/inventory`, route: 'GET /v1/nodes/{node}/inventory' };
      return orNullOn404(async () => parse(c, NodeInventory, await request(c)), nodeIsMissing);
    },

    close() {
      transport.close();
    },
  };
  return client;
}
