import net from 'node:net';
import { readFileSync } from 'node:fs';

// Loopback ports for a local Ironic: a free one to start on, and whether one is taken.

/** A port nobody listens on right now: bind port 0 on loopback and give it back. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Whether anything accepts connections on 127.0.0.1:port. */
export function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.connect({ host: '127.0.0.1', port });
    sock.once('connect', () => {
      sock.destroy();
      resolve(true);
    });
    sock.once('error', () => resolve(false));
  });
}

// eventlet listens with SO_REUSEPORT, so a second Ironic on a taken port does not fail: both
// listen and the kernel splits the connections between them. Count the listeners instead.
export function listenersOn(port: number): number | null {
  let table: string;
  try {
    table = readFileSync('/proc/net/tcp', 'utf8');
  } catch {
    return null;
  }
  const hex = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  return table.split('\n').slice(1).filter((line) => {
    const cols = line.trim().split(/\s+/);
    return cols[1]?.endsWith(hex) === true && cols[3] === '0A';
  }).length;
}
