// A recording HTTP proxy in front of a real Ironic: tests point a client at `url` and read back
// what was called, per node and per route, and how many operations overlapped. It shares no code
// with the client it watches, so a bug in the client's routing shows here instead of hiding.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedCall {
  /** When the request arrived and when the answer was complete (ms since the epoch). */
  readonly at: number;
  endAt: number;
  readonly method: string;
  /** Path and query as sent. */
  readonly path: string;
  /** Ids and names replaced, no query: `GET /v1/nodes/{node}`. */
  readonly route: string;
  /** HTTP status from Ironic; 0 until answered, 502 when Ironic could not be reached. */
  status: number;
  /** The parsed JSON request body, if any. */
  readonly body?: unknown;
  /** The X-OpenStack-Ironic-API-Version the request asked for, if any. */
  readonly version?: string;
  /** The node id or name in the path, if any. */
  readonly nodeRef?: string;
  /** The node's name when the recorder has seen it (so uuid and name calls count together), else nodeRef. */
  node?: string;
  /** From a node in the answer (GET/PATCH/POST of one node): its states after the call. */
  state?: { provision_state?: string; target_provision_state?: string | null; power_state?: string | null };
}

export interface Recorder {
  readonly url: string;
  readonly calls: RecordedCall[];
  /** The most requests that were in flight at once. */
  readonly peakInFlight: number;
  /** Forget the calls recorded so far. */
  clear(): void;
  stop(): Promise<void>;
}

// Collections whose next path segment is an id or name.
const COLLECTIONS: Record<string, string> = {
  nodes: '{node}', ports: '{port}', portgroups: '{portgroup}', drivers: '{driver}', chassis: '{chassis}',
  allocations: '{allocation}', conductors: '{conductor}', deploy_templates: '{template}', runbooks: '{runbook}',
  vifs: '{vif}', traits: '{trait}', bios: '{setting}', history: '{event}', connectors: '{connector}', targets: '{target}',
};
export function routeOf(method: string, path: string): { route: string; nodeRef?: string } {
  const parts = (path.split('?')[0] ?? '').split('/');
  let nodeRef: string | undefined;
  for (let i = 1; i < parts.length; i++) {
    const placeholder = COLLECTIONS[parts[i - 1] ?? ''];
    const part = parts[i] ?? '';
    // `detail` follows a collection but names no object (/v1/nodes/detail).
    if (placeholder === undefined || part === '' || part === 'detail') continue;
    if (placeholder === '{node}' && nodeRef === undefined) nodeRef = decodeURIComponent(part);
    parts[i] = placeholder;
  }
  return { route: `${method} ${parts.join('/')}`, ...(nodeRef === undefined ? {} : { nodeRef }) };
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export async function startRecorder(target: string): Promise<Recorder> {
  const upstream = new URL(target);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const calls: RecordedCall[] = [];
  const names = new Map<string, string>(); // uuid -> name
  let inFlight = 0;
  let peakInFlight = 0;

  const learn = (n: unknown): void => {
    if (typeof n !== 'object' || n === null) return;
    const { uuid, name } = n as { uuid?: unknown; name?: unknown };
    if (typeof uuid === 'string' && typeof name === 'string') names.set(uuid, name);
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const method = req.method ?? 'GET';
      const path = req.url ?? '/';
      const { route, nodeRef } = routeOf(method, path);
      const body = parseJson(raw.toString('utf8'));
      const version = req.headers['x-openstack-ironic-api-version'];
      const call: RecordedCall = {
        at: Date.now(), endAt: 0, method, path, route, status: 0,
        ...(body === undefined ? {} : { body }),
        ...(typeof version === 'string' ? { version } : {}),
        ...(nodeRef === undefined ? {} : { nodeRef, node: names.get(nodeRef) ?? nodeRef }),
      };
      calls.push(call);
      inFlight += 1;
      peakInFlight = Math.max(peakInFlight, inFlight);
      const done = (): void => {
        inFlight -= 1;
        call.endAt = Date.now();
      };
      const headers = { ...req.headers, host: upstream.host };
      const out = http.request({ hostname: upstream.hostname, port: upstream.port, method, path, headers, agent }, (up) => {
        const answer: Buffer[] = [];
        up.on('data', (c: Buffer) => answer.push(c));
        up.on('end', () => {
          const text = Buffer.concat(answer);
          call.status = up.statusCode ?? 0;
          const parsed = parseJson(text.toString('utf8'));
          if (typeof parsed === 'object' && parsed !== null && 'provision_state' in parsed) {
            learn(parsed);
            const p = parsed as RecordedCall['state'] & { uuid?: string };
            call.state = { provision_state: p?.provision_state, target_provision_state: p?.target_provision_state, power_state: p?.power_state };
            if (nodeRef !== undefined) call.node = names.get(nodeRef) ?? nodeRef;
          }
          done();
          res.writeHead(up.statusCode ?? 502, up.headers);
          res.end(text);
        });
      });
      out.on('error', (err) => {
        call.status = 502;
        done();
        res.writeHead(502, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ error_message: JSON.stringify({ faultstring: `recorder: Ironic unreachable: ${err.message}` }) }));
      });
      out.end(raw);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    get peakInFlight() {
      return peakInFlight;
    },
    clear() {
      calls.length = 0;
      peakInFlight = inFlight;
    },
    async stop() {
      agent.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Calls per node (by name when known), optionally only those of one route. */
export function callsPerNode(calls: readonly RecordedCall[], route?: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const c of calls) if (c.node !== undefined && (route === undefined || c.route === route)) out.set(c.node, (out.get(c.node) ?? 0) + 1);
  return out;
}

export function callsPerRoute(calls: readonly RecordedCall[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const c of calls) out[c.route] = (out[c.route] ?? 0) + 1;
  return out;
}

/**
 * The most nodes that had a provision operation with `target` outstanding at once: from an
 * accepted `PUT /v1/nodes/{node}/states/provision {target}` until the client next saw that node
 * with no target_provision_state (or sent it another provision request).
 */
export function peakOutstanding(calls: readonly RecordedCall[], target: string): number {
  const open = new Set<string>();
  let peak = 0;
  for (const c of [...calls].sort((a, b) => a.at - b.at)) {
    if (c.node === undefined) continue;
    if (c.route === 'PUT /v1/nodes/{node}/states/provision' && c.status >= 200 && c.status < 300) {
      if ((c.body as { target?: unknown } | undefined)?.target === target) open.add(c.node);
      else open.delete(c.node);
    } else if (c.state !== undefined && !c.state.target_provision_state) {
      open.delete(c.node);
    }
    peak = Math.max(peak, open.size);
  }
  return peak;
}
