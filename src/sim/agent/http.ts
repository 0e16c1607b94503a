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

/** A URL as it may be shown: a password in it (http://user:pass@host/) becomes "***". */
export function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password === '') return url;
    u.password = '***';
    return u.toString();
  } catch {
    return url;
  }
}

/** What a GET answered that was not the whole body with an acceptable status. */
export class HttpGetError extends Error {
  constructor(
    /** The URL, its password masked. */
    readonly url: string,
    /** The status answered, 0 when there was no answer (or it broke off). */
    readonly status: number,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'HttpGetError';
  }

  /** Worth trying again: no answer, a cut-off body or a 5xx (IPA retries these, never a 4xx). */
  get retryable(): boolean {
    return this.status === 0 || this.status >= 500;
  }
}

export interface HttpGetOptions {
  readonly timeoutMs?: number;
  /** Statuses taken as success; default 200 only (IPA's image and checksum downloads). */
  readonly accept?: (status: number) => boolean;
}

/**
 * GET a URL into memory as IPA's requests session would: credentials in the URL
 * (http://user:pass@host/…) go as HTTP basic auth (fetch refuses such a URL), redirects are
 * followed, and a body shorter than its Content-Length is a failure that says how much came.
 * Every message names the URL with its password masked.
 */
export async function httpGet(url: string, o: HttpGetOptions = {}): Promise<{ status: number; body: Buffer }> {
  const shown = shownUrl(url);
  let target: URL;
  try {
    target = new URL(url);
  } catch (err) {
    throw new HttpGetError(shown, 0, `${shown} is not a URL`, { cause: err });
  }
  const headers: Record<string, string> = {};
  if (target.username !== '' || target.password !== '') {
    const user = decodeURIComponent(target.username);
    const password = decodeURIComponent(target.password);
    headers['Authorization'] = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    target.username = '';
    target.password = '';
  }
  let res: Response;
  try {
    res = await fetch(target, { headers, signal: AbortSignal.timeout(o.timeoutMs ?? 60_000) });
  } catch (err) {
    throw new HttpGetError(shown, 0, `GET ${shown} failed: ${causeOf(err)}`, { cause: err });
  }
  const accept = o.accept ?? ((s: number) => s === 200);
  if (!accept(res.status)) {
    const text = (await res.text().catch(() => '')).slice(0, 200).trim();
    throw new HttpGetError(shown, res.status, `Received status code ${res.status} from ${shown}, expected 200. Response body: ${text}`);
  }
  const declared = Number(res.headers.get('content-length') ?? NaN);
  const chunks: Buffer[] = [];
  let received = 0;
  try {
    if (res.body !== null) {
      for await (const chunk of res.body) {
        chunks.push(Buffer.from(chunk));
        received += chunk.length;
      }
    }
  } catch (err) {
    const of = Number.isFinite(declared) ? ` of ${declared}` : '';
    throw new HttpGetError(shown, 0, `GET ${shown}: the connection closed after ${received}${of} bytes (${causeOf(err)})`, { cause: err });
  }
  return { status: res.status, body: Buffer.concat(chunks) };
}

// fetch says "fetch failed" or "terminated"; what happened is in its cause (ECONNREFUSED, ...).
function causeOf(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const cause = err instanceof Error && err.cause instanceof Error ? err.cause.message : null;
  return cause !== null && cause !== message ? `${message}: ${cause}` : message;
}
