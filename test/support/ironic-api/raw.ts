import { ironicErrorMessage } from '../../../src/adapters/ironic/client/error-body.ts';

// A bare HTTP call to an Ironic API, for tests that look at what metalfleet's client does not
// expose (headers, error bodies, bodies the client cannot send yet). Not part of the server.

export interface RawAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly json: unknown;
  /** The faultstring / description, as metalfleet's client reads it. */
  readonly message: string | null;
}

export async function raw(url: string, method: string, path: string, opts: { version?: string | null; body?: unknown } = {}): Promise<RawAnswer> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  const version = opts.version === undefined ? '1.82' : opts.version;
  if (version !== null) headers['X-OpenStack-Ironic-API-Version'] = version;
  if (opts.body !== undefined) headers['Content-Type'] = 'application/json';
  const r = await fetch(url + path, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const body = await r.text();
  const h: Record<string, string> = {};
  r.headers.forEach((v, k) => (h[k] = v));
  let json: unknown = null;
  try {
    json = body === '' ? null : JSON.parse(body);
  } catch {
    json = null;
  }
  return { status: r.status, headers: h, body, json, message: r.status >= 400 ? ironicErrorMessage(body) : null };
}

/** Polls the node until `done` holds, failing with its last state after the deadline. */
export async function waitForState(url: string, ref: string, state: string, version = '1.82', timeoutMs = 20_000): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const a = await raw(url, 'GET', `/v1/nodes/${ref}`, { version });
    const n = a.json as Record<string, unknown> | null;
    if (n && n.provision_state === state && !n.target_provision_state && !n.reservation) return n;
    if (Date.now() > deadline) throw new Error(`${ref}: not settled in ${state} after ${timeoutMs} ms; last ${String(n?.provision_state)} -> ${String(n?.target_provision_state)}, last_error ${String(n?.last_error)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
