// Reads a watch response line by line with plain fetch, for tests that check the wire format
// and event order exactly (client-node's Watch drops what it cannot parse).
import type { KubeApiServer } from '../support/kube-api/index.ts';

export interface WatchEvent {
  type: string;
  object: Record<string, unknown> & { metadata?: Record<string, unknown> };
}

export interface WatchStream {
  readonly status: number;
  readonly headers: Headers;
  /** Every line received so far, as text. */
  readonly lines: string[];
  /** The next event; rejects after timeoutMs, or when the stream ended first. */
  next(timeoutMs?: number): Promise<WatchEvent>;
  /** Resolves when the server ends the body cleanly; rejects if the connection breaks. */
  readonly ended: Promise<void>;
  close(): void;
}

export async function openWatch(server: KubeApiServer, path: string, headers: Record<string, string> = {}): Promise<WatchStream> {
  const abort = new AbortController();
  const res = await fetch(server.url + path, { signal: abort.signal, headers });
  const lines: string[] = [];
  const queue: WatchEvent[] = [];
  let wake: (() => void) | undefined;
  let done = false;
  const ended = (async () => {
    const reader = res.body?.getReader();
    if (!reader) return;
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for (;;) {
        const { value, done: finished } = await reader.read();
        if (finished) break;
        buffer += decoder.decode(value, { stream: true });
        let nl: number;
        while ((nl = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          lines.push(line);
          queue.push(JSON.parse(line) as WatchEvent);
          wake?.();
        }
      }
    } finally {
      done = true;
      wake?.();
    }
  })();
  ended.catch(() => undefined);
  return {
    status: res.status,
    headers: res.headers,
    lines,
    ended,
    close: () => abort.abort(),
    async next(timeoutMs = 3_000) {
      const deadline = Date.now() + timeoutMs;
      while (queue.length === 0) {
        if (done) throw new Error(`watch ended; lines so far: ${lines.join(' | ')}`);
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no watch event within ${timeoutMs} ms; lines so far: ${lines.join(' | ')}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        wake = undefined;
      }
      return queue.shift() as WatchEvent;
    },
  };
}
