import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RouteContext } from './context.ts';
import { rootDocument, v1Document } from './discovery.ts';
import { IronicFault, fault, pecanAbort } from './faults.ts';
import { MAX_HEADER, MIN_HEADER, VERSION, readJson, writeAnswer, writeFault } from './http-io.ts';
import { route } from './routes.ts';
import { MIN_VERSION, negotiateRequest, text } from './versions.ts';

// One HTTP request: discovery, version negotiation (the hook every /v1 request passes through:
// v1/__init__.py Controller._add_version_attributes), then the route.

export type Shared = Omit<RouteContext, 'version' | 'query'>;

export async function handle(req: IncomingMessage, res: ServerResponse, shared: Shared): Promise<void> {
  const url = new URL(req.url ?? '/', shared.base);
  const parts = url.pathname.split('/').filter((p) => p !== '');
  const method = req.method ?? 'GET';
  const max = shared.max;
  const range = { [MIN_HEADER]: text(MIN_VERSION), [MAX_HEADER]: text(max) };
  try {
    if (parts.length === 0) {
      if (method !== 'GET') throw pecanAbort(405);
      writeAnswer(res, { status: 200, json: rootDocument(shared.base, max) }, {});
      return;
    }
    // root.py _lookup: a path without /v1 is routed as if it had it.
    const v1 = parts[0] === 'v1' ? parts.slice(1) : parts;
    const n = negotiateRequest(header(req, VERSION), max);
    if (!n.ok) {
      const headers = n.withRangeHeaders ? range : {};
      // GET /v1/ raises from index() (a wsme fault); deeper paths from _lookup (webob's body). Seen on 21.4.
      if (v1.length === 0) writeFault(res, fault(406, n.description), headers);
      else writeFault(res, pecanAbort(406, n.description), {}, headers);
      return;
    }
    const versionHeaders = { ...range, [VERSION]: text(n.version) };
    if (v1.length === 0) {
      if (method !== 'GET') throw pecanAbort(405);
      writeAnswer(res, { status: 200, json: v1Document(shared.base, max) }, versionHeaders);
      return;
    }
    const body = method === 'GET' || method === 'DELETE' ? undefined : await readJson(req);
    const ctx: RouteContext = { ...shared, version: n.version, query: url.searchParams };
    try {
      writeAnswer(res, route(ctx, method, v1, body), versionHeaders);
    } catch (err) {
      if (err instanceof IronicFault) writeFault(res, err, versionHeaders);
      else throw err;
    }
  } catch (err) {
    if (err instanceof IronicFault) {
      writeFault(res, err, {});
      return;
    }
    // A bug in the server: answer like Ironic's unexpected-exception path, and keep the detail.
    const message = err instanceof Error ? err.message : String(err);
    if (!res.headersSent) writeFault(res, fault(500, `ironic-api test server error: ${message}`), {});
  }
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}

