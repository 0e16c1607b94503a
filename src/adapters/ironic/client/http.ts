import http from 'node:http';
import https from 'node:https';
import type { IronicTls } from './options.ts';

// One keep-alive connection pool per client; TLS settings live on the https agent.

export interface RawRequest {
  readonly method: string;
  /** Path and query, e.g. `/v1/nodes?fields=uuid,name`. */
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
  readonly timeoutMs: number;
}

export interface RawResponse {
  readonly status: number;
  readonly statusText: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

export type RawFailure =
  | { readonly kind: 'timeout'; readonly timeoutMs: number }
  | { readonly kind: 'network'; readonly error: Error & { code?: string } };

export class TransportError extends Error {
  constructor(readonly failure: RawFailure, options?: ErrorOptions) {
    super(failure.kind === 'timeout' ? `no complete answer within ${failure.timeoutMs} ms` : failure.error.message, options);
    this.name = 'TransportError';
  }
}

export interface Transport {
  send(req: RawRequest): Promise<RawResponse>;
  close(): void;
}

// Enough parallel connections for a shard's worth of hosts; more only queue in the agent.
const MAX_SOCKETS = 64;
// Ironic answers are small; a larger body is not Ironic (and not worth buffering).
const MAX_BODY_BYTES = 32 * 1024 * 1024;

export function createTransport(base: URL, tls: IronicTls | undefined): Transport {
  const secure = base.protocol === 'https:';
  const agent = secure
    ? new https.Agent({
      keepAlive: true,
      maxSockets: MAX_SOCKETS,
      ...(tls?.ca !== undefined ? { ca: tls.ca } : {}),
      ...(tls?.cert !== undefined ? { cert: tls.cert } : {}),
      ...(tls?.key !== undefined ? { key: tls.key } : {}),
      rejectUnauthorized: tls?.insecure !== true,
    })
    : new http.Agent({ keepAlive: true, maxSockets: MAX_SOCKETS });
  const request = secure ? https.request : http.request;
  const prefix = base.pathname.replace(/\/+$/, '');

  function once(req: RawRequest): Promise<{ response: RawResponse } | { retryOnFreshSocket: true }> {
    return new Promise((resolve, reject) => {
      let settled = false;
      const finish = (fn: () => void): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        fn();
      };
      const r = request({
        protocol: base.protocol,
        hostname: base.hostname.replace(/^\[|\]$/g, ''),
        port: base.port === '' ? undefined : Number(base.port),
        method: req.method,
        path: prefix + req.path,
        headers: req.body === undefined ? req.headers : { ...req.headers, 'Content-Length': String(Buffer.byteLength(req.body)) },
        agent,
      }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_BODY_BYTES) {
            res.destroy(new Error(`answer larger than ${MAX_BODY_BYTES} bytes`));
            return;
          }
          chunks.push(c);
        });
        res.on('error', (err) => finish(() => reject(new TransportError({ kind: 'network', error: err }, { cause: err }))));
        res.on('end', () => finish(() => resolve({
          response: { status: res.statusCode ?? 0, statusText: res.statusMessage ?? '', headers: res.headers, body: Buffer.concat(chunks).toString('utf8') },
        })));
      });
      const timer = setTimeout(() => {
        finish(() => reject(new TransportError({ kind: 'timeout', timeoutMs: req.timeoutMs })));
        r.destroy();
      }, req.timeoutMs);
      r.on('error', (err: Error & { code?: string }) => {
        // A kept-alive socket the server closed while idle fails at once with a reset; the
        // request never reached Ironic, so it is safe to send it again on a new connection.
        if (r.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE')) finish(() => resolve({ retryOnFreshSocket: true }));
        else finish(() => reject(new TransportError({ kind: 'network', error: err }, { cause: err })));
      });
      r.end(req.body);
    });
  }

  return {
    async send(req) {
      const first = await once(req);
      if ('response' in first) return first.response;
      const second = await once(req);
      if ('response' in second) return second.response;
      throw new TransportError({ kind: 'network', error: Object.assign(new Error('connection reset twice'), { code: 'ECONNRESET' }) });
    },
    close() {
      agent.destroy();
    },
  };
}
