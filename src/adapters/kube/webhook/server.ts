import type http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../../../ports/index.ts';
import { HttpError, type RouteReply, type RouteTable } from './route.ts';
import { webhookRoutes } from './routes.ts';
import { failureStatus } from './status.ts';
import { loadTlsPair, watchTlsPair, type TlsPair } from './tls-files.ts';

// The admission webhook over HTTPS (node:https, HTTP/1.1; the API server falls back to it from
// HTTP/2). Errors are answered as a metav1.Status, which the API server quotes when a call fails.

export interface WebhookServerOptions {
  readonly port: number;
  /** Default 127.0.0.1; in a cluster, 0.0.0.0 so the Service reaches it. */
  readonly host?: string;
  /** PEM certificate (chain first the server's own) and key; re-read when they change. */
  readonly certFile: string;
  readonly keyFile: string;
  /** One line per admission (kind, namespace, name, uid, operation, verdict), never object contents. */
  readonly log: Logger;
  /** Default 7 MiB. */
  readonly maxBodyBytes?: number;
  /** Re-read the certificate files at least this often, besides watching them. Default 10 s. */
  readonly certPollMs?: number;
  /** BMC address schemes of the provisioner plugins the controllers load: admitted, not unknown. */
  readonly pluginBmcSchemes?: readonly string[];
}

export interface WebhookServer {
  readonly port: number;
  readonly url: string;
  close(): Promise<void>;
}

// The API server accepts request bodies up to 3 MiB, and an UPDATE's review carries two objects
// (new and old) plus the envelope; controller-runtime settles on 7 MiB for the same reason.
export const DEFAULT_MAX_BODY_BYTES = 7 * 1024 * 1024;
// controller-runtime's certwatcher polls every 10 s as well.
const DEFAULT_CERT_POLL_MS = 10_000;
// The API server's HTTP client drops idle connections after 90 s. The server must be the one that
// waits longer: a POST sent on a connection the server is just closing is not retried, and with
// failurePolicy Fail the user's request fails.
const KEEP_ALIVE_MS = 100_000;
const HEADERS_TIMEOUT_MS = KEEP_ALIVE_MS + 5_000;
// The API server waits at most 30 s for a webhook; a body slower than this is not the API server.
const REQUEST_TIMEOUT_MS = 120_000;
// Reviews take milliseconds; at close, in-flight ones get this long before their sockets are cut.
const CLOSE_GRACE_MS = 5_000;

function mib(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}

function tooLarge(max: number): HttpError {
  // Closing the connection stops the client sending the rest for nothing.
  return new HttpError(413, `body: larger than ${mib(max)}`, { connection: 'close' });
}

function readBody(req: http.IncomingMessage, max: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > max) return Promise.reject(tooLarge(max));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onError);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > max) {
        // What else arrives is read and dropped until the response has gone and the socket closes.
        done();
        req.resume();
        reject(tooLarge(max));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      done();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (): void => {
      done();
      reject(new HttpError(400, 'body: the request was aborted'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    // A client gone before the end: 'close' without 'end'.
    req.on('close', onError);
  });
}

function send(res: http.ServerResponse, status: number, type: string, body: string, headers: Readonly<Record<string, string>> = {}): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { ...headers, 'content-type': type, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

function sendReply(res: http.ServerResponse, reply: RouteReply): void {
  if ('json' in reply) send(res, reply.status, 'application/json', JSON.stringify(reply.json));
  else send(res, reply.status, 'text/plain; charset=utf-8', reply.text);
}

function sendError(res: http.ServerResponse, err: HttpError): void {
  send(res, err.status, 'application/json', JSON.stringify({ kind: 'Status', apiVersion: 'v1', ...failureStatus(err.status, err.message) }), err.headers);
}

function pathOf(url: string | undefined): string {
  // The API server calls `<path>?timeout=10s`.
  const raw = (url ?? '/').split('?')[0] ?? '/';
  return raw.length > 256 ? `${raw.slice(0, 256)}...` : raw;
}

function createHandler(routes: RouteTable, maxBodyBytes: number, log: Logger) {
  const known = [...routes.keys()].join(', ');
  return async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const path = pathOf(req.url);
    const method = req.method ?? '';
    try {
      const route = routes.get(path);
      if (!route) throw new HttpError(404, `no route ${JSON.stringify(path)}; this webhook serves ${known}`);
      if (!route.methods.includes(method)) {
        const allow = route.methods.join(', ');
        throw new HttpError(405, `method ${method} not allowed on ${path}; use ${allow}`, { allow });
      }
      sendReply(res, await route.handle({ method, path, body: () => readBody(req, maxBodyBytes) }));
    } catch (err) {
      if (err instanceof HttpError) {
        if (err.status >= 500) log.error({ path, status: err.status }, 'webhook: request failed');
        else log.debug({ path, method, status: err.status, reason: err.message }, 'webhook: request refused');
        sendError(res, err);
        return;
      }
      // Whatever the error says may quote the request; the log gets its name only.
      log.error({ path, err: { name: (err as Error)?.name ?? 'Error' } }, 'webhook: internal error');
      sendError(res, new HttpError(500, 'internal error'));
    }
  };
}

function urlOf(host: string, port: number): string {
  return `https://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/**
 * Starts the webhook on HTTPS and resolves once it listens. Rejects with WebhookTlsError when the
 * certificate or key cannot be used, or with the listen error (EADDRINUSE, ...).
 */
export async function startWebhookServer(options: WebhookServerOptions): Promise<WebhookServer> {
  const { certFile, keyFile, log } = options;
  const host = options.host ?? '127.0.0.1';
  const pair = await loadTlsPair(certFile, keyFile);
  const routes = webhookRoutes(log, { pluginBmcSchemes: new Set(options.pluginBmcSchemes ?? []) });
  const handler = createHandler(routes, options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES, log);

  const server = https.createServer(
    { cert: pair.cert, key: pair.key, requestTimeout: REQUEST_TIMEOUT_MS, headersTimeout: HEADERS_TIMEOUT_MS },
    (req, res) => void handler(req, res),
  );
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  // An API server that does not trust the certificate shows up here as an alert from its side.
  server.on('tlsClientError', (err: NodeJS.ErrnoException) => log.debug({ err: { code: err.code ?? err.name } }, 'webhook: TLS handshake failed'));

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });

  const logPair = (p: TlsPair, msg: string): void => log.info({ cert: certFile, ...p.info }, msg);
  logPair(pair, 'webhook certificate loaded');
  const watcher = watchTlsPair({
    certFile,
    keyFile,
    current: pair,
    pollMs: options.certPollMs ?? DEFAULT_CERT_POLL_MS,
    onReload(next) {
      // New handshakes get the new pair; open connections keep the one they agreed on.
      server.setSecureContext({ cert: next.cert, key: next.key });
      logPair(next, 'webhook certificate reloaded');
    },
    onError(err) {
      log.warn({ file: err.file, path: err.path, reason: err.reason }, 'webhook certificate not reloaded; serving the previous one');
    },
  });

  const port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | null = null;
  return {
    port,
    url: urlOf(host, port),
    close() {
      closing ??= new Promise<void>((resolve) => {
        watcher.close();
        const cut = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
        cut.unref();
        server.close(() => {
          clearTimeout(cut);
          resolve();
        });
        server.closeIdleConnections();
      });
      return closing;
    },
  };
}
