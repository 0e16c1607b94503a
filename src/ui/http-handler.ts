// The dashboard's HTTP surface, mountable on any node.js HTTP server (the `metalfleet ui` server,
// or a node's health/metrics port): the page and its bundle, the fleet picture as JSON and as a
// server-sent-events stream, one host in depth, and host commands behind the command gate.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Transport } from '../ports/index.ts';
import type { SigningKey } from '../security/index.ts';
import { loadAssets } from './assets.ts';
import { CommandRequest, TOKEN_HEADER, type CommandGate } from './command-gate.ts';
import { recentCommands } from './host-commands.ts';
import { hostAllowed } from './host-check.ts';
import { hostDetail } from './host-detail.ts';
import { KIND_ACTIONS } from './kind-actions.ts';
import { PAGE_CSP, PAGE_HTML } from './page-html.ts';
import { PictureSampler } from './sampler.ts';
import { sendHostCommand } from './send-command.ts';
import { errorMessage } from '../api/index.ts';
import { HostKind } from '../bus/messages/introspect.ts';

export interface UiHandlerOptions {
  readonly transport: Transport;
  readonly gate: CommandGate;
  readonly shardCount: number;
  readonly signingKey?: SigningKey | undefined;
  /** Ask only these nodes (the embedded node: ['embedded']); default the live members. */
  readonly nodes?: readonly string[];
  readonly intervalMs?: number;
  readonly timeoutMs?: number;
  /** The address the server listens on: on loopback, requests for other names are refused (host-check.ts). */
  readonly bind?: string;
}

export interface UiHandler {
  /** Answers the request if its path is the dashboard's; false leaves it to the caller. */
  handle(req: IncomingMessage, res: ServerResponse): boolean;
  readonly sampler: PictureSampler;
  close(): void;
}

const BODY_LIMIT = 4_096;
/** The paths that are only read (GET, HEAD). */
const PAGES = new Set(['/', '/ui', '/ui/', '/assets/app.js', '/assets/app.css', '/api/config', '/api/fleet', '/api/events']);
const HOST_PATH = /^\/api\/hosts\/([^/]+)\/([^/]+)(\/command|\/commands)?$/;

export function createUiHandler(o: UiHandlerOptions): UiHandler {
  const timeoutMs = o.timeoutMs ?? 2_000;
  const sample = { timeoutMs, ...(o.nodes ? { nodes: o.nodes } : {}) };
  const sampler = new PictureSampler(o.transport, { ...sample, intervalMs: o.intervalMs ?? 1_000 });
  const streams = new Set<ServerResponse>();

  const routes = async (req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<void> => {
    // HEAD is GET without the body (node's ServerResponse drops it): a monitor's HEAD is answered.
    const reading = req.method === 'GET' || req.method === 'HEAD';
    if (PAGES.has(path) && !reading) return notAllowed(res, req, path, 'GET, HEAD');
    if (reading && (path === '/' || path === '/ui' || path === '/ui/')) return send(res, 200, 'text/html; charset=utf-8', PAGE_HTML, { 'content-security-policy': PAGE_CSP });
    if (reading && (path === '/assets/app.js' || path === '/assets/app.css')) {
      const assets = await loadAssets();
      const name = path.endsWith('.js') ? 'app.js' : 'app.css';
      return send(res, 200, name === 'app.js' ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8', assets[name]);
    }
    if (reading && path === '/api/config') return json(res, 200, { commands: o.gate.enabled, actions: KIND_ACTIONS });
    if (reading && path === '/api/fleet') return send(res, 200, 'application/json', (await sampler.current()).json);
    if (req.method === 'HEAD' && path === '/api/events') return send(res, 200, 'text/event-stream', '');
    if (req.method === 'GET' && path === '/api/events') return stream(req, res);
    const m = HOST_PATH.exec(path);
    if (m) {
      const key = hostKeyOf(m[1] ?? '', m[2] ?? '');
      if (key === null) return json(res, 400, { error: `${path}: the host is not NAMESPACE/NAME in URL encoding` });
      // `?kind=MaasMachine`: a BareMetalHost and a MaasMachine may share a name. None: the BareMetalHost.
      const named = query.get('kind');
      const kind = named === null ? undefined : HostKind.safeParse(named);
      if ((!m[3] || m[3] === '/commands') && reading && kind && !kind.success) {
        return json(res, 400, { error: `${path}: unknown kind ${JSON.stringify(named)}: a host page shows one of ${HostKind.options.join(', ')}` });
      }
      if (!m[3] && reading) {
        const detail = await hostDetail(o.transport, key, { timeoutMs, shardCount: o.shardCount, kind: kind?.data, ...(o.nodes ? { nodes: o.nodes } : {}) });
        return detail.ok ? json(res, 200, detail.host) : json(res, detail.status, { error: detail.reason });
      }
      if (m[3] === '/commands' && reading) {
        // The commands for the page's object only, as the page itself (no kind: the BareMetalHost's).
        const sent = await recentCommands(o.transport, key, timeoutMs, kind?.data ?? 'BareMetalHost');
        return sent.ok ? json(res, 200, sent) : json(res, 200, { ok: false, commands: [], reason: sent.reason });
      }
      if (m[3] === '/command' && req.method === 'POST') return command(req, res, key);
      return notAllowed(res, req, path, m[3] === '/command' ? 'POST' : 'GET, HEAD');
    }
    return json(res, 404, { error: `no such page: ${path}` });
  };

  const stream = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
    streams.add(res);
    // A reader that stops reading (a stalled tab, a suspended laptop, a slow link) had every
    // picture queued for it in memory, megabytes a second for a big fleet, in the node itself on
    // its health port. Each picture is whole: while the connection is backed up only the newest
    // of each event waits, and goes out once it drains.
    const waiting = new Map<string, string>();
    const emit = (event: string, data: string): void => {
      const frame = `event: ${event}\ndata: ${data}\n\n`;
      if (!res.writableNeedDrain) return void res.write(frame);
      waiting.delete(event); // kept in the order they came: a picture after a problem clears it
      waiting.set(event, frame);
    };
    res.on('drain', () => {
      const frames = [...waiting.values()];
      waiting.clear();
      for (const frame of frames) res.write(frame);
    });
    const push = (_: unknown, body: string): void => emit('picture', body);
    const problem = (message: string): void => emit('problem', JSON.stringify({ message }));
    const unsubscribe = sampler.subscribe(push, problem);
    req.on('close', () => {
      unsubscribe();
      streams.delete(res);
    });
    // The first frame at once, not one interval later.
    const first = await sampler.current().catch(() => null);
    if (first && streams.has(res)) push(null, first.json);
  };

  const command = async (req: IncomingMessage, res: ServerResponse, key: string): Promise<void> => {
    const header = req.headers[TOKEN_HEADER];
    const verdict = o.gate.check(Array.isArray(header) ? header[0] : header);
    if (!verdict.ok) {
      req.resume();
      return json(res, verdict.status, { error: verdict.reason });
    }
    const body = await readBody(req);
    if (body === null) {
      // Answered at once, the rest unread: the connection is closed rather than drained.
      res.once('finish', () => req.destroy());
      return send(res, 413, 'application/json', JSON.stringify({ error: `request body over ${BODY_LIMIT} bytes: send {"action": "power-off"}` }), { connection: 'close' });
    }
    let raw: unknown;
    try {
      raw = JSON.parse(body);
    } catch {
      return json(res, 400, { error: 'request body is not JSON: send {"action": "power-off"}' });
    }
    const parsed = CommandRequest.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return json(res, 400, { error: `command ${issue?.path.map(String).join('.') || '(body)'}: ${issue?.message ?? 'invalid'}` });
    }
    const outcome = await sendHostCommand(o.transport, key, parsed.data, { shardCount: o.shardCount, signingKey: o.signingKey, deadlineMs: 10_000 });
    return outcome.ok ? json(res, 200, outcome) : json(res, outcome.status, { error: outcome.reason, retryable: outcome.retryable });
  };

  return {
    sampler,
    handle(req, res) {
      let url: URL;
      try {
        url = new URL(req.url ?? '/', 'http://ui');
      } catch {
        // An absolute-form target with a broken host (`GET http://[/ HTTP/1.1`): thrown from
        // here, it would end the process that serves the page, the node itself on its health port.
        json(res, 400, { error: 'not a valid request target: ask for a path such as / or /api/fleet' });
        return true;
      }
      const path = url.pathname;
      if (!(path === '/' || path === '/ui' || path === '/ui/' || path.startsWith('/assets/') || path.startsWith('/api/'))) return false;
      if (o.bind !== undefined && !hostAllowed(o.bind, req.headers.host)) {
        json(res, 421, { error: `this dashboard listens on ${o.bind} and answers only requests addressed to a loopback name (127.0.0.1, localhost, [::1]), not ${JSON.stringify(req.headers.host ?? '')}` });
        return true;
      }
      routes(req, res, path, url.searchParams).catch((err: unknown) => {
        const message = errorMessage(err);
        if (!res.headersSent) json(res, 500, { error: message });
        else res.end();
      });
      return true;
    },
    close() {
      sampler.close();
      for (const s of streams) s.end();
      streams.clear();
    },
  };
}

function send(res: ServerResponse, status: number, type: string, body: string | Uint8Array, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', ...headers });
  res.end(body);
}

function notAllowed(res: ServerResponse, req: IncomingMessage, path: string, allow: string): void {
  const verbs = allow === 'POST' ? 'POST' : 'GET';
  send(res, 405, 'application/json', JSON.stringify({ error: `${req.method ?? ''} ${path}: use ${verbs} here${verbs === 'POST' ? ' (a host command)' : ''}` }), { allow });
}

function json(res: ServerResponse, status: number, value: unknown): void {
  send(res, status, 'application/json', JSON.stringify(value));
}

function hostKeyOf(namespace: string, name: string): string | null {
  try {
    return `${decodeURIComponent(namespace)}/${decodeURIComponent(name)}`;
  } catch {
    return null; // a stray '%' (URIError)
  }
}

/** The body as text, or null as soon as it is known to be over the limit (announced or sent). */
function readBody(req: IncomingMessage): Promise<string | null> {
  const announced = Number(req.headers['content-length']);
  if (Number.isFinite(announced) && announced > BODY_LIMIT) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (c: Buffer): void => {
      size += c.length;
      if (size <= BODY_LIMIT) return void chunks.push(c);
      req.off('data', onData);
      req.pause();
      resolve(null);
    };
    req.on('data', onData);
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
