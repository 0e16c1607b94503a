// A host whose last error is retried only when the host or its Secret changes (BMO's bad BMC
// credentials, an empty or unknown BMC address): its machine holds no timer for it. `inspect`
// (the CLI, and the page, which asks the same verb) shows it, says the next attempt waits for a
// change, and answers within the verb's schema: an unscheduled retry does not cross the wire
// as a time.
import test from 'ava';
import { createMemoryBus } from '../../src/bus/index.ts';
import { inspectView } from '../../src/cli/introspect/index.ts';
import type { ViewOptions } from '../../src/cli/introspect/index.ts';
import { serveIntrospection } from '../../src/cluster/introspect/index.ts';
import { bmh, secret, startTestNode } from '../support/node.ts';
import { waitUntil } from '../support/wait.ts';

test('inspect - a host in registration error that waits for its Secret to change: shown, backoff says it waits for a change, no time on the wire', async (t) => {
  const { node, store } = await startTestNode({ fixture: { latencyMs: 1 } });
  const bus = createMemoryBus();
  const service = serveIntrospection(bus.connect('embedded'), node.introspection, { node: 'embedded' });
  const client = bus.connect('cli');
  const base: ViewOptions = { format: 'table', width: 100, timeoutMs: 2_000, natsUrl: 'memory', nodes: ['embedded'] };
  try {
    // A Secret without a password: the fixture refuses registration until the Secret changes.
    const applied = await store.applyObjects([secret('bmc', 'lab', { username: 'admin' }), bmh('nopw')]);
    t.true(applied.ok, JSON.stringify(applied));
    await waitUntil(async () => (await store.get('lab/nopw'))?.status?.errorType === 'registration error', 15_000, 'registration error');

    const json = await inspectView(client, { host: 'lab/nopw', shardCount: 16 }, { ...base, format: 'json' });
    t.is(json.exitCode, 0, json.stderr.join('\n'));
    const host = (JSON.parse(json.stdout) as { value: { host: { retryAt: number | null; nextAttemptInMs: number | null; retryWaitsForChange?: boolean; status: { errorType?: string } } } }).value.host;
    t.is(host.status.errorType, 'registration error');
    t.is(host.retryAt, null);
    t.is(host.nextAttemptInMs, null);
    t.true(host.retryWaitsForChange);

    const table = await inspectView(client, { host: 'lab/nopw', shardCount: 16 }, base);
    t.regex(table.stdout, /^backoff: +none: the next attempt waits for a change to the host or its Secret$/m);

    // The Secret mended: registered, and nothing waits any more.
    t.true((await store.applyObjects([secret('bmc', 'lab', { username: 'admin', password: 'mended-Pw1' })])).ok);
    await waitUntil(async () => !(await store.get('lab/nopw'))?.status?.errorType, 15_000, 'the error cleared');
    const after = JSON.parse((await inspectView(client, { host: 'lab/nopw', shardCount: 16 }, { ...base, format: 'json' })).stdout) as { value: { host: { retryWaitsForChange?: boolean } } };
    t.is(after.value.host.retryWaitsForChange, undefined);
  } finally {
    await service.close();
    await node.stop();
  }
});
