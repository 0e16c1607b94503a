// `metalfleet ui`'s own HTTP server: the dashboard handler on a port and address of its own.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createUiHandler, type UiHandler, type UiHandlerOptions } from './http-handler.ts';

export interface UiServer {
  readonly url: string;
  readonly port: number;
  readonly handler: UiHandler;
  close(): Promise<void>;
}

export async function startUiServer(o: UiHandlerOptions & { port: number; bind: string }): Promise<UiServer> {
  let handler: UiHandler | null = null;
  const server: Server = createServer((req, res) => {
    if (!handler?.handle(req, res)) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'not found' }));
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.bind, () => resolve());
  });
  const { port, address } = server.address() as AddressInfo;
  // The DNS-rebinding check by the address listened on, not as --bind spelled it: a name or a
  // short form the resolver makes loopback ('127.1', a host's own name on Debian) is loopback.
  // Made before this function returns, so before any request can be answered.
  const ready = createUiHandler({ ...o, bind: address });
  handler = ready;
  const host = o.bind.includes(':') ? `[${o.bind}]` : o.bind === '0.0.0.0' ? '127.0.0.1' : o.bind;
  return {
    url: `http://${host}:${port}/`,
    port,
    handler: ready,
    async close() {
      ready.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
