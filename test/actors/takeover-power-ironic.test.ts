// A node taking over a real Ironic's provisioned, powered-on host (the earlier owner gone, its
// store kept): the host's power did not change, so the new owner neither powers it on nor shows
// "Host powered on" (BMO publishes power events when the power it drives or observes changes).
import test from 'ava';
import { createIronicClient } from '../../src/adapters/ironic/client/index.ts';
import { createIronicProvisioner } from '../../src/adapters/ironic/provisioner/index.ts';
import { openLocalStore } from '../../src/adapters/store/index.ts';
import type { MemoryKvStore } from '../../src/bus/index.ts';
import { DEFAULT_MACHINE_CONFIG } from '../../src/machines/bmh/index.ts';
import { memorySubstrate } from '../../src/node/index.ts';
import { startIronic } from '../support/ironic.ts';
import { bmcSecret, ironicHost } from '../support/ironic-node.ts';
import { startRecorder } from '../support/ironic-recorder.ts';
import { startLocalNode } from '../support/local-node.ts';
import { waitFor, waitUntil } from '../support/wait.ts';

async function ironicNode(url: string, name: string, kv?: MemoryKvStore) {
  const substrate = memorySubstrate(kv ? { kv } : {});
  const store = await openLocalStore(substrate.transport);
  const client = createIronicClient({ endpoint: url, timeoutMs: 10_000 });
  await client.connect();
  const provisioner = createIronicProvisioner({ client, driverOverride: { hardwareType: 'fake-hardware' }, polls: { shortMs: 100, longMs: 200 }, imageCheck: { enabled: false, timeoutMs: 1_000 } });
  const node = await startLocalNode({
    name, shardCount: 16,
    machine: { ...DEFAULT_MACHINE_CONFIG, powerPollMs: 200, backoffUnitMs: 100, transientBaseMs: 50, transientMaxMs: 1_000 },
    capacity: { limits: {}, defaultLimit: 20, ttlMs: 30_000 },
    supervision: { maxRestarts: 3, windowMs: 60_000, backoff: { initialMs: 10, maxMs: 100 } },
    askTimeoutMs: 5_000,
  }, { store: store.resources, secrets: store.secrets }, { provisioner }, {}, substrate);
  const applied = await store.applyObjects([bmcSecret()]);
  if (!applied.ok) throw new Error('Secret refused');
  return { node, store, substrate };
}

const KEY = 'lab/tk-1';

test('takeover - a new owner of a powered-on Ironic host emits no "Host powered on" and calls no power-on', async (t) => {
  const ironic = await startIronic();
  const recorder = await startRecorder(ironic.url);
  try {
    const first = await ironicNode(recorder.url, 'first');
    t.true((await first.store.applyObjects([ironicHost('tk-1')])).ok);
    await waitFor(() => first.node.stats.hosts.get(KEY)?.state === 'provisioned', 90_000, 'provisioned');
    await waitUntil(async () => (await first.store.resources.get('BareMetalHost', KEY))?.status?.poweredOn === true, 30_000, 'stored powered on');
    await first.node.stop();
    const powerPuts = () => recorder.calls.filter((c) => c.method === 'PUT' && c.route.endsWith('/states/power')).map((c) => (c.body as { target?: string }).target);
    const putsBefore = powerPuts().length;
    const from = recorder.calls.length;

    const next = await ironicNode(recorder.url, 'next', first.substrate.memoryKv!);
    try {
      // Several power reads of the new owner (every 200 ms).
      await waitUntil(async () => recorder.calls.slice(from).filter((c) => c.method === 'GET' && c.nodeRef !== undefined).length >= 8, 30_000, 'power reads by the new owner');
      const r = await next.node.introspection.inspect(KEY);
      if (!r.ok) throw new Error(r.kind);
      t.log(r.host.recent.map((e) => `${e.reason}: ${e.message}`).join('\n'));
      t.is(r.host.state, 'provisioned');
      t.deepEqual(r.host.recent.filter((e) => /^Power/.test(e.reason)).map((e) => e.message), [], 'no power event');
      t.deepEqual(powerPuts().slice(putsBefore), [], 'no power request');
    } finally {
      await next.node.stop();
    }
  } finally {
    await recorder.stop();
    await ironic.stop();
  }
});
