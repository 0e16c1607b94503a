// Small HTTP helpers shared by the agent's API, its Ironic client and the image server.
import type http from 'node:http';

/** Listen on a free loopback port; resolves to the port. */
export function listen(server: http.Server, host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => {
      const addr = server.address();
      resolve(typeof addr === 'object' && addr !== null ? addr.port : 0);
    });
  });
}

/** Close a server and its connections at once; resolves when it is closed (at once if it was). */
export function closeServer(server: http.Server): Promise<void> {
  return new Promise<void>((done) => {
    if (!server.listening) return done();
    server.close(() => done());
    server.closeAllConnections();
  });
}

export function readBody(req: http.IncomingMessage, limit = 64 * 1024 * 1024): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        reject(new Error(`request body over ${limit} bytes`));
        req.destroy();
      } else chunks.push(c);
    });
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

export function sendJson(res: http.ServerResponse, status: number, value: unknown): void {
  const data = Buffer.from(JSON.stringify(value));
  res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': data.length });
  res.end(data);
}

/** GET a URL into memory, failing on a non-2xx answer. */
export async function fetchBytes(url: string, timeoutMs = 60_000): Promise<Buffer> {
  const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  if (!res.ok) throw new Error(`GET ${url} answered ${res.status}`);
  return Buffer.from(await res.arrayBuffer());
}
