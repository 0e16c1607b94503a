import { createInbox, PermissionViolationError } from '@nats-io/nats-core';
import type { MsgHdrs, Msg, NatsConnection } from '@nats-io/nats-core';
import { BusError } from '../ports/index.ts';

// Requests over one wildcard inbox subscription, answered by token. The client's own request()
// does the same, but after every reply it rejects the request's (already resolved) promise with
// a new RequestError "cancelled": an Error with a captured stack per request, 7% of a node's CPU
// in the commands bench (two requests per command: the KV write and the audit record). Here a
// request is a map entry and a timer, nothing more.

export interface MuxRequestOptions {
  readonly timeoutMs: number;
  readonly headers?: MsgHdrs;
}

export interface RequestMux {
  /** The reply message; rejects with BusError 'timeout' or 'noResponders', or the publish's own error. */
  request(subject: string, data: Uint8Array, options: MuxRequestOptions): Promise<Msg>;
}

interface Pending {
  readonly subject: string;
  readonly resolve: (msg: Msg) => void;
  readonly reject: (error: unknown) => void;
  readonly timer: ReturnType<typeof setTimeout>;
}

// The status a server answers with when nobody subscribes to the request subject.
const NO_RESPONDERS = 503;

/** Subscribes once (lazily, on the first request) under the connection's inbox prefix. */
export function requestMux(nc: NatsConnection, inboxPrefix: string | undefined): RequestMux {
  const pending = new Map<string, Pending>();
  let prefix: string | null = null;
  let next = 0;
  const open = (): string => {
    const base = `${createInbox(inboxPrefix)}.`;
    nc.subscribe(`${base}*`, {
      callback: (err, msg) => {
        if (err) {
          // The subscription ended (connection closed, permission refused): nothing more will be answered.
          for (const [token, p] of pending) settle(token, p, () => p.reject(err));
          prefix = null;
          return;
        }
        const token = msg.subject.slice(base.length);
        const p = pending.get(token);
        if (!p) return; // a reply after its request timed out
        if (msg.data.length === 0 && msg.headers?.code === NO_RESPONDERS) {
          settle(token, p, () => p.reject(new BusError('noResponders', p.subject, 'no subscriber is listening')));
        } else {
          settle(token, p, () => p.resolve(msg));
        }
      },
    });
    return base;
  };
  const settle = (token: string, p: Pending, how: () => void): void => {
    pending.delete(token);
    clearTimeout(p.timer);
    how();
  };
  // A closed connection answers nothing more: its requests fail now rather than at their timeouts.
  void nc.closed().then(() => {
    for (const [token, p] of pending) settle(token, p, () => p.reject(new BusError('closed', p.subject, 'the connection closed before the reply came')));
  });
  // A publish the server's permissions refuse is told on the connection's status, naming the
  // subject, never as a reply: the oldest request to that subject is the one refused (one
  // refusal per publish), at once, as the client's own request() does.
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type !== 'error' || !(s.error instanceof PermissionViolationError) || s.error.operation !== 'publish') continue;
      const refused = s.error;
      for (const [token, p] of pending) {
        if (p.subject !== refused.subject) continue;
        settle(token, p, () => p.reject(refused));
        break;
      }
    }
  })().catch(() => {
    // The status iterator ends (or fails) with the connection; closed() above settles the rest.
  });
  return {
    request(subject, data, options) {
      const base = prefix ??= open();
      const token = (next++).toString(36);
      return new Promise<Msg>((resolve, reject) => {
        const timer = setTimeout(() => {
          const p = pending.get(token);
          if (p) settle(token, p, () => reject(new BusError('timeout', subject, `no reply within ${options.timeoutMs} ms`)));
        }, options.timeoutMs);
        pending.set(token, { subject, resolve, reject, timer });
        try {
          nc.publish(subject, data, { reply: `${base}${token}`, ...(options.headers ? { headers: options.headers } : {}) });
        } catch (error) {
          settle(token, { subject, resolve, reject, timer }, () => reject(error));
        }
      });
    },
  };
}
