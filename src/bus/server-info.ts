import { z } from 'zod';

// The INFO line a nats-server sends first, in plain text, on every client connection (before any
// TLS upgrade): what it demands is known before the client commits to a handshake. Read by
// nats-greeting.ts.

/** The fields of a server's INFO that we act on; the rest is kept as sent. */
export const ServerInfo = z.looseObject({
  tls_required: z.boolean().optional(),
  /** The server verifies client certificates: a client without one is dropped after the TLS handshake. */
  tls_verify: z.boolean().optional(),
});
export type ServerInfo = z.infer<typeof ServerInfo>;

/** A server's first line as its INFO, or null when it is not one. */
export function parseInfo(line: string): ServerInfo | null {
  const m = /^INFO\s+(\{.*\})\s*$/.exec(line);
  if (!m?.[1]) return null;
  try {
    const parsed = ServerInfo.safeParse(JSON.parse(m[1]));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

export interface HostPort {
  readonly host: string;
  readonly port: number;
}

// nats://host:port, tls://host:port or a bare host[:port], as the NATS client takes them; the
// userinfo is already gone (withoutUserinfo).
export function hostPort(server: string): HostPort | null {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(server) ? server : `nats://${server}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    return null;
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!host) return null;
  const port = url.port === '' ? 4222 : Number(url.port);
  return Number.isInteger(port) && port > 0 ? { host, port } : null;
}
