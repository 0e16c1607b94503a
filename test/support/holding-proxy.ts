import http from 'node:http';
import type { AddressInfo } from 'node:net';

// An HTTP proxy in front of a test backend (the Ironic API test server, the MAAS simulator) that
// holds the requests `hold` picks until release(), and notes every request that reached it: a
// test fills a client's connection pool with held requests and then checks what got through.
export interface HoldingProxy {
  /** The proxy's origin, http://127.0.0.1:PORT; paths pass through unchanged. */
  readonly url: string;
  /** `METHOD path` of every request that reached the proxy, in order. */
  readonly seen: readonly string[];
  /** How many requests are held now. */
  readonly holding: number;
  /** Lets every held request (and any later one) through. */
  release(): void;
  close(): Promise<void>;
}

export async function startHoldingProxy(upstream: string, hold: (method: string, path: string) => boolean): Promise<HoldingProxy> {
  const target = new URL(upstream);
  const seen: string[] = [];
  let held: (() => void)[] = [];
  let released = false;
  const agent = new http.Agent({ keepAlive: true });
  const forward = (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer): void => {
    const out = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers, agent }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    out.on('error', () => res.destroy());
    out.end(body);
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const method = req.method ?? '';
      const path = req.url ?? '';
      seen.push(`${method} ${path}`);
      const go = (): void => forward(req, res, Buffer.concat(chunks));
      if (!released && hold(method, path)) held.push(go);
      else go();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    get holding() {
      return held.length;
    },
    release() {
      released = true;
      const go = held;
      held = [];
      for (const g of go) g();
    },
    async close() {
      agent.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
