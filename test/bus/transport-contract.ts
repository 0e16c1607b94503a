// The behaviour every Transport must have, run against the memory bus and a real nats-server so
// the embedded mode cannot drift from the cluster mode.
import test from 'ava';
import type { ExecutionContext } from 'ava';
import type { BusMessage, Transport } from '../../src/ports/index.ts';
import { BusError } from '../../src/ports/index.ts';
import { waitFor } from '../support/wait.ts';

export interface ContractBus {
  connect(name: string): Promise<Transport>;
  dispose(): Promise<void>;
}

/** Both setups use this limit, so the tooLarge test need not push a full megabyte. */
export const CONTRACT_MAX_PAYLOAD = 64 * 1024;

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);
const text = (data: Uint8Array): string => new TextDecoder().decode(data);

export function transportContract(area: string, setup: () => Promise<ContractBus>): void {
  const withBus = (title: string, body: (t: ExecutionContext, bus: ContractBus) => Promise<void>): void => {
    test(`${area} - ${title}`, async (t) => {
      const bus = await setup();
      try {
        await body(t, bus);
      } finally {
        await bus.dispose();
      }
    });
  };

  withBus('a request gets the reply of a subscriber on another connection', async (t, bus) => {
    const [a, b] = [await bus.connect('a'), await bus.connect('b')];
    b.subscribe('svc.echo', (m) => m.respond(bytes(`echo ${text(m.data)}`)));
    await waitForResponder(a, 'svc.echo');
    t.is(text(await a.request('svc.echo', bytes('hi'), { timeoutMs: 2_000 })), 'echo hi');
  });

  withBus('delivery is asynchronous: no handler runs inside publish', async (t, bus) => {
    const a = await bus.connect('a');
    let published = false;
    let seenBeforePublishReturned: boolean | null = null;
    a.subscribe('async.check', () => (seenBeforePublishReturned = !published));
    await settle(a);
    a.publish('async.check', bytes('x'));
    published = true;
    await waitFor(() => seenBeforePublishReturned !== null, 2_000, 'delivery');
    t.false(seenBeforePublishReturned);
  });

  withBus('a queue group splits requests; plain subscribers get every message', async (t, bus) => {
    const [client, m1, m2, watcher] = await Promise.all([bus.connect('client'), bus.connect('m1'), bus.connect('m2'), bus.connect('watcher')]);
    const counts = { m1: 0, m2: 0, watcher: 0 };
    m1.subscribe('work.do', (m) => (counts.m1++, m.respond(bytes('m1'))), { queue: 'workers' });
    m2.subscribe('work.do', (m) => (counts.m2++, m.respond(bytes('m2'))), { queue: 'workers' });
    watcher.subscribe('work.do', () => counts.watcher++);
    await Promise.all([settle(m1), settle(m2), settle(watcher)]);
    const replies = await Promise.all(Array.from({ length: 100 }, () => client.request('work.do', bytes('job'), { timeoutMs: 2_000 })));
    t.is(replies.length, 100);
    await waitFor(() => counts.watcher === 100, 2_000, 'watcher saw all 100');
    t.is(counts.m1 + counts.m2, 100, 'each request went to exactly one member of the group');
    t.true(counts.m1 > 0 && counts.m2 > 0, `both members worked (${counts.m1}/${counts.m2})`);
  });

  withBus('a request nobody listens to fails fast with noResponders', async (t, bus) => {
    const a = await bus.connect('a');
    const started = Date.now();
    const error = await t.throwsAsync(a.request('nobody.here', bytes('x'), { timeoutMs: 5_000 }), { instanceOf: BusError });
    t.is(error?.kind, 'noResponders');
    t.true(error?.retryable);
    t.regex(error?.message ?? '', /nobody\.here/);
    t.true(Date.now() - started < 2_000, 'did not wait for the timeout');
  });

  withBus('a request whose subscriber never answers times out', async (t, bus) => {
    const [a, b] = [await bus.connect('a'), await bus.connect('b')];
    b.subscribe('svc.silent', () => undefined);
    await settle(b);
    const error = await t.throwsAsync(a.request('svc.silent', bytes('x'), { timeoutMs: 150 }), { instanceOf: BusError });
    t.is(error?.kind, 'timeout');
    t.true(error?.retryable);
  });

  withBus('a payload over maxPayload is refused as tooLarge', async (t, bus) => {
    const [a, b] = [await bus.connect('a'), await bus.connect('b')];
    t.is(a.maxPayload, CONTRACT_MAX_PAYLOAD);
    let replied: unknown = null;
    b.subscribe('svc.big', (m) => {
      try {
        m.respond(new Uint8Array(CONTRACT_MAX_PAYLOAD + 1));
      } catch (error) {
        replied = error;
        m.respond(bytes('small'));
      }
    });
    await waitForResponder(a, 'svc.big');
    const big = new Uint8Array(CONTRACT_MAX_PAYLOAD + 1);
    t.is(t.throws(() => a.publish('svc.big', big), { instanceOf: BusError })?.kind, 'tooLarge');
    t.is((await t.throwsAsync(a.request('svc.big', big, { timeoutMs: 1_000 }), { instanceOf: BusError }))?.kind, 'tooLarge');
    // A reply over the limit throws in the responder, which can then answer something smaller.
    t.is(text(await a.request('svc.big', bytes('x'), { timeoutMs: 2_000 })), 'small');
    t.is((replied as BusError).kind, 'tooLarge');
  });

  withBus('wildcards: > matches one or more tokens, * exactly one', async (t, bus) => {
    const [a, b] = [await bus.connect('a'), await bus.connect('b')];
    const rest: string[] = [];
    const one: string[] = [];
    b.subscribe('fleet.>', (m) => rest.push(m.subject));
    b.subscribe('fleet.*', (m) => one.push(m.subject));
    await settle(b);
    for (const s of ['fleet', 'fleet.a', 'fleet.a.b', 'other.a', 'fleet.end']) a.publish(s, bytes(s));
    await waitFor(() => rest.length === 3 && one.length === 2, 2_000, 'wildcard deliveries');
    t.deepEqual(rest.sort(), ['fleet.a', 'fleet.a.b', 'fleet.end']);
    t.deepEqual(one.sort(), ['fleet.a', 'fleet.end']);
  });

  withBus('a handler that throws does not end its subscription', async (t, bus) => {
    const [a, b] = [await bus.connect('a'), await bus.connect('b')];
    b.subscribe('svc.flaky', (m: BusMessage) => {
      if (text(m.data) === 'boom') throw new Error('handler bug');
      m.respond(bytes('fine'));
    });
    await waitForResponder(a, 'svc.flaky');
    a.publish('svc.flaky', bytes('boom'));
    a.publish('svc.flaky', bytes('boom'));
    t.is(text(await a.request('svc.flaky', bytes('ok'), { timeoutMs: 2_000 })), 'fine');
  });

  withBus('a drained subscription hears nothing more', async (t, bus) => {
    const [a, b] = [await bus.connect('a'), await bus.connect('b')];
    let seen = 0;
    const sub = b.subscribe('drain.me', () => seen++);
    await settle(b);
    for (let i = 0; i < 50; i++) a.publish('drain.me', bytes(String(i)));
    await waitFor(() => seen === 50, 2_000, 'all 50 delivered');
    await sub.drain();
    const gone = await t.throwsAsync(a.request('drain.me', bytes('x'), { timeoutMs: 1_000 }), { instanceOf: BusError });
    t.is(gone?.kind, 'noResponders');
  });

  withBus('after close: publish and request fail as closed and status says closed', async (t, bus) => {
    const a = await bus.connect('a');
    const statuses: string[] = [];
    a.onStatus((s) => statuses.push(s));
    await a.close();
    await waitFor(() => statuses.includes('closed'), 2_000, 'closed status');
    t.is(t.throws(() => a.publish('x.y', bytes('x')), { instanceOf: BusError })?.kind, 'closed');
    t.is((await t.throwsAsync(a.request('x.y', bytes('x'), { timeoutMs: 500 }), { instanceOf: BusError }))?.kind, 'closed');
    t.false((await t.throwsAsync(a.kv('any'), { instanceOf: BusError }))?.retryable);
  });
}

/** Waits until a request on `subject` stops failing with noResponders (the subscription is live). */
export async function waitForResponder(client: Transport, subject: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    try {
      await client.request(subject, new Uint8Array(0), { timeoutMs: 200 });
      return;
    } catch (error) {
      if (!(error instanceof BusError) || error.kind !== 'noResponders') return;
      if (Date.now() > deadline) throw new Error(`no responder on ${subject} within 5 s`, { cause: error });
    }
  }
}

/**
 * Makes sure a subscription is live before publishing to it: a round trip through the same
 * connection is a barrier (NATS handles a connection's protocol lines in order).
 */
async function settle(conn: Transport): Promise<void> {
  const probe = `settle.${Math.random().toString(36).slice(2)}`;
  const sub = conn.subscribe(probe, (m) => m.respond(new Uint8Array(0)));
  try {
    await conn.request(probe, new Uint8Array(0), { timeoutMs: 2_000 });
  } finally {
    sub.unsubscribe();
  }
}
