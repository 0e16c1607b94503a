import { connect as dial } from 'node:net';
import { z } from 'zod';

// The INFO line a nats-server sends first, in plain text, on every client connection (before any
// TLS upgrade): what it demands is known before the client commits to a handshake.

/** The fields of a server's INFO that we act on; the rest is kept as sent. */
export const ServerInfo = z.looseObject({
  tls_required: z.boolean().optional(),
  /** The server verifies client certificates: a client without one is dropped after the TLS handshake. */
  tls_verify: z.boolean().optional(),
});
export type ServerInfo = z.infer<typeof ServerInfo>;

// A server sends INFO at once; a line this long is not one.
const MAX_INFO_BYTES = 64 * 1024;

/**
 * The INFO of the first of `servers` that answers within `withinMs`, or null when none does (not
 * reachable, not NATS, a TLS-first listener). Only a hint: the connect that follows reports
 * whatever this could not find out.
 */
export function firstServerInfo(servers: readonly string[], withinMs: number): Promise<ServerInfo | null> {
  const targets = servers.map(hostPort).filter((t): t is HostPort => t !== null);
  if (targets.length === 0) return Promise.resolve(null);
  return new Promise((resolve) => {
    let pending = targets.length;
    const sockets = targets.map(({ host, port }) => {
      const socket = dial({ host, port });
      let buffered = '';
      let ended = false;
      const done = (info: ServerInfo | null): void => {
        if (ended) return;
        ended = true;
        socket.destroy();
        if (info) finish(info);
        else if (--pending === 0) finish(null);
      };
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        buffered += chunk;
        const end = buffered.indexOf('\r\n');
        if (end < 0 && buffered.length < MAX_INFO_BYTES) return;
        socket.removeAllListeners('data');
        done(parseInfo(end < 0 ? '' : buffered.slice(0, end)));
      });
      socket.once('error', () => done(null));
      socket.once('close', () => done(null));
      return socket;
    });
    let settled = false;
    const timer = setTimeout(() => finish(null), withinMs);
    function finish(info: ServerInfo | null): void {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      for (const socket of sockets) socket.destroy();
      resolve(info);
    }
  });
}

function parseInfo(line: string): ServerInfo | null {
  const m = /^INFO\s+(\{.*\})\s*$/.exec(line);
  if (!m?.[1]) return null;
  try {
    const parsed = ServerInfo.safeParse(JSON.parse(m[1]));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

interface HostPort {
  readonly host: string;
  readonly port: number;
}

// nats://host:port, tls://host:port or a bare host[:port], as the NATS client takes them; the
// userinfo is already gone (withoutUserinfo).
function hostPort(server: string): HostPort | null {
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
