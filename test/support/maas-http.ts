// Raw HTTP to the simulated MAAS with PLAINTEXT OAuth written here (no client of ours), and a clock
// the test moves by hand: what the test/sim/maas-*.test.ts files share.
import http from 'node:http';
import type { MaasSim, SeedMachine, SimClock } from '../../src/sim/maas/index.ts';
import { startMaasSim } from '../../src/sim/maas/index.ts';

export interface Answer {
  status: number;
  type: string | null;
  text: string;
}

export type Form = Array<[string, string]>;

function authorization(key: string): string {
  const [ck = '', tk = '', ts = ''] = key.split(':');
  return `OAuth oauth_version="1.0", oauth_signature_method="PLAINTEXT", oauth_consumer_key="${ck}", oauth_token="${tk}", oauth_signature="%26${ts}", oauth_nonce="${Math.random().toString(36).slice(2)}", oauth_timestamp="${Math.floor(Date.now() / 1000)}"`;
}

/** `path` is below /MAAS/api/2.0/; a form is sent urlencoded, a string as it is (a malformed body, say). */
export function call(sim: MaasSim, method: string, path: string, form?: Form | string, key = sim.adminKey): Promise<Answer> {
  const headers: Record<string, string> = { Authorization: authorization(key), Accept: 'application/json' };
  const body = typeof form === 'string' ? form : form?.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
  if (body !== undefined) {
    headers['Content-Type'] = 'application/x-www-form-urlencoded';
    headers['Content-Length'] = String(Buffer.byteLength(body));
  }
  return new Promise((resolve, reject) => {
    const req = http.request(`${sim.url}/api/2.0/${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'] ?? null, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The JSON body of a 200, or a thrown error naming the status and body. */
export function ok<T>(a: Answer): T {
  if (a.status !== 200) throw new Error(`expected 200, got ${a.status}: ${a.text}`);
  return JSON.parse(a.text) as T;
}

export function idOf(sim: MaasSim, hostname: string): string {
  const m = sim.machine(hostname);
  if (!m) throw new Error(`no machine ${hostname}`);
  return m.system_id;
}

export interface ManualClock extends SimClock {
  advance(ms: number): void;
}

/** Timers fire only when the test advances the clock, in due order. */
export function manualClock(start = Date.UTC(2026, 0, 2, 3, 4, 5)): ManualClock {
  let now = start;
  let nextId = 1;
  const timers = new Map<number, { at: number; fn: () => void }>();
  return {
    now: () => now,
    setTimeout(fn, ms) {
      const id = nextId++;
      timers.set(id, { at: now + Math.max(ms, 0), fn });
      return id;
    },
    clearTimeout(handle) {
      timers.delete(handle as number);
    },
    advance(ms) {
      const end = now + ms;
      for (;;) {
        const due = [...timers.entries()].filter(([, tm]) => tm.at <= end).sort(([ai, a], [bi, b]) => a.at - b.at || ai - bi)[0];
        if (!due) break;
        timers.delete(due[0]);
        now = due[1].at;
        due[1].fn();
      }
      now = end;
    },
  };
}

/** Runs `fn` against a simulator holding `machines`, and stops it whatever happens. */
export async function withSim(machines: SeedMachine[], fn: (sim: MaasSim) => Promise<void>): Promise<void> {
  const sim = await startMaasSim({ machines });
  try {
    await fn(sim);
  } finally {
    await sim.stop();
  }
}
