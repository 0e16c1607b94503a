import http from 'node:http';
import https from 'node:https';
import { MetalfleetError } from '../../api/index.ts';
import { withAmbientCheck } from './leave-check.ts';


// The HTTP under the Ironic and MAAS clients: one keep-alive connection pool per client, TLS
// settings on the https agent, bounded bodies, timeouts, and a note of whether a failed request
// ever fully left (a POST that did not may be sent again).

export interface TransportTls {
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
  readonly insecure?: boolean;
}

export interface RawRequest {
  readonly method: string;
  /** Absolute URL, query included. */
  readonly url: URL;
  readonly headers: Record<string, string>;
  readonly body?: string;
  readonly timeoutMs: number;
  /**
   * Asked once a connection is ready to carry the request, right before it is written: null keeps
   * it from leaving (send() rejects with RequestWithheld, nothing reached the server); otherwise
   * headers to add. A request may wait in the connection pool after its caller last checked that
   * it may be sent (a shard lease, issue 30): this is the check at the moment it leaves.
   */
  readonly beforeLeaving?: () => Readonly<Record<string, string>> | null;
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

// Retryable as a failure of the network is; whether the call may be repeated (`sent`, the method)
// is the client's to decide.
export class TransportError extends MetalfleetError {
  /**
   * Whether the whole request was handed to the network. When it was not, the server cannot have
   * acted on it, so even a POST may be sent again.
   */
  readonly sent: boolean;

  constructor(readonly failure: RawFailure, sent: boolean, options?: ErrorOptions) {
    super(failure.kind, failure.kind === 'timeout' ? `no complete answer within ${failure.timeoutMs} ms` : failure.error.message, true, undefined, options);
    this.name = 'TransportError';
    this.sent = sent;
  }
}

/** beforeLeaving said no once a connection was ready: the request was never written. */
export class RequestWithheld extends MetalfleetError {
  readonly sent = false;

  constructor(url: URL) {
    super('withheld', `${url.pathname}: withheld by its caller when a connection was ready; nothing was sent`, true);
    this.name = 'RequestWithheld';
  }
}

export interface Transport {
  send(req: RawRequest): Promise<RawResponse>;
  close(): void;
}

// Enough parallel connections for a shard's worth of hosts; more only queue in the agent.
const MAX_SOCKETS = 64;

// maxBodyBytes: answers are small JSON; a larger body is not the API we expect.
export function createTransport(secure: boolean, tls: TransportTls | undefined, maxBodyBytes: number): Transport {
  const MAX_BODY_BYTES = maxBodyBytes;
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

  function once(req: RawRequest): Promise<{ response: RawResponse } | { retryOnFreshSocket: true }> {
    return new Promise((resolve, reject) => {
      let settled = false;
      let sent = false;
      const finish = (fn: () => void): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        fn();
      };
      const r = request(req.url, {
        method: req.method,
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
        res.on('error', (err) => finish(() => reject(new TransportError({ kind: 'network', error: err }, true, { cause: err }))));
        res.on('end', () => finish(() => resolve({
          response: { status: res.statusCode ?? 0, statusText: res.statusMessage ?? '', headers: res.headers, body: Buffer.concat(chunks).toString('utf8') },
        })));
      });
      r.on('finish', () => {
        sent = true;
      });
      const timer = setTimeout(() => {
        finish(() => reject(new TransportError({ kind: 'timeout', timeoutMs: req.timeoutMs }, sent)));
        r.destroy();
      }, req.timeoutMs);
      r.on('error', (err: Error & { code?: string }) => {
        // A kept-alive socket the server closed while idle fails at once with a reset; the
        // request never reached the server, so it is safe to send it again on a new connection.
        if (r.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE')) finish(() => resolve({ retryOnFreshSocket: true }));
        else finish(() => reject(new TransportError({ kind: 'network', error: err }, sent, { cause: err })));
      });
      const leave = req.beforeLeaving;
      if (leave === undefined) {
        r.end(req.body);
        return;
      }
      // Nothing is written before end(): the request waits here, unsent, for its connection.
      r.once('socket', () => {
        if (settled) return;
        let extra: Readonly<Record<string, string>> | null;
        try {
          extra = leave();
        } catch (err) {
          finish(() => reject(err));
          r.destroy();
          return;
        }
        if (extra === null) {
          finish(() => reject(new RequestWithheld(req.url)));
          r.destroy();
          return;
        }
        for (const [name, value] of Object.entries(extra)) r.setHeader(name, value);
        r.end(req.body);
      });
    });
  }

  return {
    async send(asked) {
      // Read here, in the caller's context: the connection's 'socket' event runs in another's.
      const req = withAmbientCheck(asked);
      const first = await once(req);
      if ('response' in first) return first.response;
      const second = await once(req);
      if ('response' in second) return second.response;
      throw new TransportError({ kind: 'network', error: Object.assign(new Error('connection reset twice'), { code: 'ECONNRESET' }) }, false);
    },
    close() {
      agent.destroy();
    },
  };
}
