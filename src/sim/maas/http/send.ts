import type http from 'node:http';

/** Writes a whole answer, unless one was already sent or the client has gone. */
export function send(res: http.ServerResponse, status: number, body: string | Buffer, contentType: string | undefined, headers: Readonly<Record<string, string>> = {}): void {
  if (res.headersSent || res.destroyed) return;
  const all: Record<string, string | number> = { ...headers };
  if (contentType !== undefined) {
    all['Content-Type'] = contentType;
    all['Content-Length'] = Buffer.byteLength(body);
  }
  res.writeHead(status, all);
  res.end(body);
}
