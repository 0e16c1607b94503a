// Reading request bodies and writing responses the way client-node needs them (kube-api.md §0):
// JSON always with `Content-Type: application/json`; plain-text 404 for unknown paths.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { apiErrors } from './errors.ts';
import type { KubeApiError } from './errors.ts';

// apiserver's MaxRequestBodyBytes.
const MAX_BODY = 3 * 1024 * 1024;

export async function readBody(req: IncomingMessage): Promise<string> {
  return (await readBytes(req)).toString('utf8');
}

export async function readBytes(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw apiErrors.requestTooLarge(`limit is ${MAX_BODY}`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

export function sendJson(res: ServerResponse, code: number, body: unknown, headers: Record<string, string | string[]> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private', 'Content-Length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export function sendError(res: ServerResponse, err: KubeApiError): void {
  sendJson(res, err.code, err.status, err.headers);
}

export function sendNotFound(res: ServerResponse): void {
  const text = '404 page not found\n';
  res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8', 'X-Content-Type-Options': 'nosniff', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/** `Warning: 299 - "unknown field \"spec.foo\""`, one header value per warning. */
export function warningHeaders(warnings: readonly string[]): Record<string, string[]> {
  if (warnings.length === 0) return {};
  return { Warning: warnings.map((w) => `299 - ${JSON.stringify(w)}`) };
}
