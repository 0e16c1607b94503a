// A second run against the same Ironic (the demo run twice): the host's node is there already,
// active. Registration takes it over; inspection cannot start from active and Ironic will not leave
// it, so the host says so (an inspection error naming the node, its state and what to do) instead
// of sitting in inspecting with nothing in its status or the log.
import test from 'ava';
import { startIronic } from '../support/ironic.ts';
import type { IronicServer } from '../support/ironic.ts';
import { bmcSecret, ironicHost, startIronicNode } from '../support/ironic-node.ts';
import { waitFor, waitUntil } from '../support/wait.ts';

let ironic: IronicServer;

test.before(async () => {
  ironic = await startIronic();
});
test.after.always(async () => {
  await ironic?.stop();
});

test('ironic rerun - a host whose node a first run left active fails inspection naming the node and its state', async (t) => {
  const first = await startIronicNode({ url: ironic.url, name: 'first-run' });
  try {
    t.true((await first.store.applyObjects([bmcSecret(), ironicHost('again')])).ok);
    await waitFor(() => first.node.stats.hosts.get('lab/again')?.state === 'provisioned', 60_000, 'provisioned by the first run');
    t.is((await first.client.getNode('lab~again'))?.provision_state, 'active');
  } finally {
    await first.stop();
  }

  const second = await startIronicNode({ url: ironic.url, name: 'second-run' });
  t.teardown(() => second.stop());
  t.true((await second.store.applyObjects([bmcSecret(), ironicHost('again')])).ok);
  await waitFor(() => second.node.stats.hosts.get('lab/again')?.errorType === 'inspection error', 30_000, 'an inspection error');
  let message = '';
  await waitUntil(async () => (message = (await second.node.snapshot('lab/again'))?.status.errorMessage ?? '') !== '', 10_000, 'the error message');
  t.regex(message, /Ironic node lab~again \([0-9a-f-]{36}\) is in provision state "active"/);
  t.regex(message, /externallyProvisioned|undeploy/);
  t.is(second.node.stats.hosts.get('lab/again')?.state, 'inspecting');
});
