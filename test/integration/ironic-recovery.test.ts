import test from 'ava';
import { startIronic } from '../support/ironic.ts';
import { startRecorder } from '../support/ironic-recorder.ts';
import { bmcSecret, ironicHost, startIronicNode } from '../support/ironic-node.ts';
import { waitFor, waitUntil } from '../support/wait.ts';

test('ironic - Ironic losing its database: hosts are registered again and adopted, deployed once', async (t) => {
  const ironic = await startIronic();
  const recorder = await startRecorder(ironic.url);
  const it = await startIronicNode({ url: recorder.url, machine: { powerPollMs: 300 } });
  try {
    const names = ['db-1', 'db-2', 'db-3'];
    t.true((await it.store.applyObjects([bmcSecret(), ...names.map((n) => ironicHost(n))])).ok);
    await waitFor(() => names.every((n) => it.node.stats.hosts.get(`lab/${n}`)?.state === 'provisioned'), 90_000, 'provisioned');
    const deployCalls = () => recorder.calls.filter((c) => c.method === 'PUT' && c.route.endsWith('/states/provision') && (c.body as { target?: string } | undefined)?.target === 'active').length;
    t.is(deployCalls(), 3);
    await ironic.restartEmpty();
    t.deepEqual(await it.client.listNodes(), []);
    await waitUntil(async () => {
      const nodes = await it.client.listNodes({ fields: ['name', 'provision_state'] });
      return nodes.length === 3 && nodes.every((n) => n.provision_state === 'active');
    }, 60_000, 'nodes registered again and adopted');
    t.is(deployCalls(), 3, 'no host was deployed a second time');
    t.true(recorder.calls.some((c) => c.method === 'PUT' && (c.body as { target?: string } | undefined)?.target === 'adopt'));
    for (const n of names) t.is(it.node.stats.hosts.get(`lab/${n}`)?.state, 'provisioned');
  } finally {
    await it.stop();
    await recorder.stop();
    await ironic.stop();
  }
});

test('ironic - more hosts than slots: Ironic never has more than the limit busy', async (t) => {
  const ironic = await startIronic();
  const limit = 3;
  const it = await startIronicNode({ url: ironic.url, limit });
  let maxBusy = 0;
  let maxInUse = 0;
  let sampling = true;
  const busy = new Set(['inspecting', 'inspect wait', 'cleaning', 'clean wait', 'deploying', 'wait call-back', 'deleting']);
  const sampler = (async () => {
    while (sampling) {
      const nodes = await it.client.listNodes({ fields: ['uuid', 'provision_state'] });
      maxBusy = Math.max(maxBusy, nodes.filter((n) => busy.has(n.provision_state)).length);
      const figures = await it.node.capacity();
      maxInUse = Math.max(maxInUse, figures.totals.inUse);
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  try {
    const names = Array.from({ length: 10 }, (_, i) => `cap-${i}`);
    t.true((await it.store.applyObjects([bmcSecret(), ...names.map((n) => ironicHost(n, { address: `ipmi://10.1.0.${names.indexOf(n) + 1}` }))])).ok);
    await waitFor(() => names.every((n) => it.node.stats.hosts.get(`lab/${n}`)?.state === 'provisioned'), 120_000, 'all provisioned');
  } finally {
    sampling = false;
    await sampler;
    await it.stop();
    await ironic.stop();
  }
  t.true(maxBusy <= limit, `Ironic had ${maxBusy} nodes busy at once`);
  t.is(maxInUse, limit);
});

