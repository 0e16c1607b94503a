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
const HOST_PATH = /^\/api\/hosts\/([^/]+)\/([^/]+)(\/command|\/commands)?$/;

export function createUiHandler(o: UiHandlerOptions): UiHandler {
  const timeoutMs = o.timeoutMs ?? 2_000;
  const sample = { timeoutMs, ...(o.nodes ? { nodes: o.nodes } : {}) };
  const sampler = new PictureSampler(o.transport, { ...sample, intervalMs: o.intervalMs ?? 1_000 });
  const streams = new Set<ServerResponse>();

  const routes = async (req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<void> => {
    if (req.method === 'GET' && (path === '/' || path === '/ui' || path === '/ui/')) return send(res, 200, 'text/html; charset=utf-8', PAGE_HTML, { 'content-security-policy': PAGE_CSP });
    if (req.method === 'GET' && (path === '/assets/app.js' || path === '/assets/app.css')) {
      const assets = await loadAssets();
      const name = path.endsWith('.js') ? 'app.js' : 'app.css';
      return send(res, 200, name === 'app.js' ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8', assets[name]);
    }
    if (req.method === 'GET' && path === '/api/config') return json(res, 200, { commands: o.gate.enabled });
    if (req.method === 'GET' && path === '/api/fleet') return send(res, 200, 'application/json', (await sampler.current()).json);
    if (req.method === 'GET' && path === '/api/events') return stream(req, res);
    const m = HOST_PATH.exec(path);
    if (m) {
      const key = hostKeyOf(m[1] ?? '', m[2] ?? '');
      if (key === null) return json(res, 400, { error: `${path}: the host is not NAMESPACE/NAME in URL encoding` });
      if (!m[3] && req.method === 'GET') {
        // `?kind=MaasMachine`: a BareMetalHost and a MaasMachine may share a name. None: the BareMetalHost.
        const named = query.get('kind');
        const kind = named === null ? undefined : HostKind.safeParse(named);
        if (kind && !kind.success) return json(res, 400, { error: `${path}: unknown kind ${JSON.stringify(named)}: a host page shows one of ${HostKind.options.join(', ')}` });
        const detail = await hostDetail(o.transport, key, { timeoutMs, shardCount: o.shardCount, kind: kind?.data, ...(o.nodes ? { nodes: o.nodes } : {}) });
        return detail.ok ? json(res, 200, detail.host) : json(res, detail.status, { error: detail.reason });
      }
      if (m[3] === '/commands' && req.method === 'GET') {
        const sent = await recentCommands(o.transport, key, timeoutMs);
        return sent.ok ? json(res, 200, sent) : json(res, 200, { ok: false, commands: [], reason: sent.reason });
      }
      if (m[3] === '/command' && req.method === 'POST') return command(req, res, key);
      return json(res, 405, { error: `${req.method ?? ''} ${path}: use GET for a host and its /commands, POST for its /command` });
    }
    return json(res, 404, { error: `no such page: ${path}` });
  };

  const stream = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
    streams.add(res);
    const push = (_: unknown, body: string): void => void res.write(`event: picture\ndata: ${body}\n\n`);
    const problem = (message: string): void => void res.write(`event: problem\ndata: ${JSON.stringify({ message })}\n\n`);
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
    if (body === null) return json(res, 413, { error: `request body over ${BODY_LIMIT} bytes` });
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
      const url = new URL(req.url ?? '/', 'http://ui');
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

function readBody(req: IncomingMessage): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= BODY_LIMIT) chunks.push(c);
    });
    req.on('end', () => resolve(size > BODY_LIMIT ? null : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
