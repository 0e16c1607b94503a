import { connect as dial, type Socket } from 'node:net';
import { hostPort, parseInfo, type HostPort, type ServerInfo } from './server-info.ts';

// What is at the other end of each server address, found before the NATS client dials: a
// nats-server says INFO in plain text as soon as it accepts a connection (before any TLS), so one
// short-lived TCP connection tells a NATS server (and what it demands: TLS, a client certificate)
// from a port that accepts and then says nothing (a proxy holding the connection, a stalled
// server), an HTTP server (nats-server's monitoring port is a common slip) or another service.
// The NATS client tells none of these apart: it waits out its whole connect timeout, then says
// "timeout". No configuration of nats.js gives it a shorter wait for the greeting alone.

export type GreetingOutcome =
  /** Refused, unresolvable, or reset before it was accepted: left for the client to report. */
  | { readonly kind: 'unreachable'; readonly address: string }
  /** Accepted, and said nothing within the wait (nor to an HTTP request). */
  | { readonly kind: 'silent'; readonly address: string; readonly waitedMs: number }
  /** Accepted, then closed without a word. */
  | { readonly kind: 'closed'; readonly address: string }
  | { readonly kind: 'http'; readonly address: string }
  /** Said something that is not INFO; `said` is its first line, printable characters only, cut short. */
  | { readonly kind: 'other'; readonly address: string; readonly said: string };

export type Greeting =
  | { readonly kind: 'nats'; readonly address: string; readonly info: ServerInfo }
  | { readonly kind: 'none'; readonly outcomes: readonly GreetingOutcome[] };

// A server sends INFO at once; a line this long is not one.
const MAX_INFO_BYTES = 64 * 1024;
// After the greeting wait, how long an HTTP server gets to answer a request.
const HTTP_ASK_MS = 500;
// A request any HTTP server answers (nats-server's monitoring port with its index page).
const HTTP_REQUEST = 'GET / HTTP/1.0\r\n\r\n';

/**
 * The greeting of the first of `servers` that greets as NATS within `withinMs`, else what each
 * one did. Resolves within `withinMs` plus half a second; never rejects.
 */
export function serverGreeting(servers: readonly string[], withinMs: number): Promise<Greeting> {
  const targets = servers.map(hostPort).filter((t): t is HostPort => t !== null);
  if (targets.length === 0) return Promise.resolve({ kind: 'none', outcomes: [] });
  return new Promise((resolve) => {
    const outcomes: GreetingOutcome[] = [];
    const sockets: Socket[] = [];
    let settled = false;
    const finish = (greeting: Greeting): void => {
      if (settled) return;
      settled = true;
      clearTimeout(overall);
      for (const socket of sockets) socket.destroy();
      resolve(greeting);
    };
    // A host that never answers the TCP handshake (a black-holed address) would hold its socket
    // for the system's connect timeout, minutes: what has not been accepted by then is unreachable.
    const addresses = targets.map(addressOf);
    const overall = setTimeout(() => {
      const seen = new Set(outcomes.map((o) => o.address));
      finish({ kind: 'none', outcomes: [...outcomes, ...addresses.filter((a) => !seen.has(a)).map((address) => ({ kind: 'unreachable' as const, address }))] });
    }, withinMs + HTTP_ASK_MS + 250);
    for (const target of targets) {
      const address = addressOf(target);
      const socket = dial({ host: target.host, port: target.port });
      sockets.push(socket);
      let accepted = false;
      let asked = false;
      let heard = '';
      let timer: NodeJS.Timeout | undefined;
      let ended = false;
      const done = (outcome: GreetingOutcome | null, info?: ServerInfo): void => {
        if (ended) return;
        ended = true;
        clearTimeout(timer);
        socket.destroy();
        if (info) return finish({ kind: 'nats', address, info });
        if (outcome) outcomes.push(outcome);
        if (outcomes.length === targets.length) finish({ kind: 'none', outcomes });
      };
      socket.setEncoding('latin1');
      socket.once('connect', () => {
        accepted = true;
        timer = setTimeout(() => {
          if (heard !== '') return done({ kind: 'other', address, said: printable(heard) });
          // Silent so far. An HTTP server waits for a request: asked one, it shows itself.
          asked = true;
          socket.write(HTTP_REQUEST, () => undefined);
          timer = setTimeout(() => done({ kind: 'silent', address, waitedMs: withinMs }), HTTP_ASK_MS);
        }, withinMs);
      });
      socket.on('data', (chunk: string) => {
        heard += chunk;
        if (asked) {
          if (/^HTTP\/\d/.test(heard)) done({ kind: 'http', address });
          else if (heard.length >= 5) done({ kind: 'silent', address, waitedMs: withinMs });
          return;
        }
        const end = heard.indexOf('\r\n');
        if (end < 0 && heard.length < MAX_INFO_BYTES) return;
        const line = end < 0 ? heard : heard.slice(0, end);
        const info = parseInfo(line);
        if (info) done(null, info);
        else if (/^HTTP\/\d/.test(line)) done({ kind: 'http', address });
        else done({ kind: 'other', address, said: printable(line) });
      });
      socket.on('error', () => undefined);
      socket.once('close', () => {
        if (!accepted) return done({ kind: 'unreachable', address });
        if (asked) return done({ kind: 'silent', address, waitedMs: withinMs });
        done(heard === '' ? { kind: 'closed', address } : { kind: 'other', address, said: printable(heard) });
      });
    }
  });
}

/** The start of what a server said, as it may be shown on one line. */
function printable(text: string): string {
  const line = text.split(/\r?\n/)[0] ?? '';
  const shown = line.replace(/[^\x20-\x7e]/g, '?');
  return shown.length > 60 ? `${shown.slice(0, 60)}...` : shown;
}

function addressOf(target: HostPort): string {
  return target.host.includes(':') ? `[${target.host}]:${target.port}` : `${target.host}:${target.port}`;
}
