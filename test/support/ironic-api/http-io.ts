import type { IncomingMessage, ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { IronicFault } from './faults.ts';
import { errorBody, fault } from './faults.ts';
import { pyJson } from './py-json.ts';

// Reading a request body and writing Ironic's answers, headers included.

export const VERSION = 'X-OpenStack-Ironic-API-Version';
export const MIN_HEADER = 'X-OpenStack-Ironic-API-Minimum-Version';
export const MAX_HEADER = 'X-OpenStack-Ironic-API-Maximum-Version';

const MAX_BODY = 16 * 1024 * 1024;

export async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > MAX_BODY) throw fault(413, 'Request entity too large');
    chunks.push(c as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    // ironic/api/method.py: a body that is not JSON is a client error.
    throw fault(400, 'Invalid JSON in request body');
  }
}

export interface Answer {
  readonly status: number;
  readonly json?: unknown;
  readonly headers?: Record<string, string>;
}

export function writeAnswer(res: ServerResponse, a: Answer, versionHeaders: Record<string, string>): void {
  const headers: Record<string, string> = { ...versionHeaders, 'Openstack-Request-Id': `req-${randomUUID()}`, ...(a.headers ?? {}) };
  if (a.json === undefined) {
    res.writeHead(a.status, headers).end();
    return;
  }
  const body = pyJson(a.json);
  res.writeHead(a.status, { ...headers, 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) }).end(body);
}

/**
 * pecan aborts lose the headers the version hook set (seen on 21.4: a 404 for an unknown route
 * carries none, a 406 from negotiation only the range headers in `bare`); wsme faults keep them.
 */
export function writeFault(res: ServerResponse, f: IronicFault, versionHeaders: Record<string, string>, bare: Record<string, string> = {}): void {
  const body = errorBody(f);
  const headers = f.versioned ? { ...versionHeaders, 'Openstack-Request-Id': `req-${randomUUID()}` } : bare;
  res.writeHead(f.status, { ...headers, 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) }).end(body);
}
