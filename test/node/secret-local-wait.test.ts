// Issue 19.3 on the embedded default (`metalfleet demo -f`, the local store): a user data Secret
// applied after its host lets the waiting host provision; until then nothing is deployed.
import test from 'ava';
import { bmh, secret, startTestNode } from '../support/node.ts';
import { waitUntil } from '../support/wait.ts';

test('local secrets - a host applied before its user data Secret waits, then provisions when the Secret is applied', async (t) => {
  const { node, store, fixture } = await startTestNode({ objects: [secret()], machine: { secretRecheckMs: 3_600_000 } });
  t.teardown(() => node.stop());
  const host = bmh('ud-late') as { spec: Record<string, unknown> };
  host.spec['networkData'] = { name: 'ud-late-network' };
  t.true((await store.applyObjects([host])).ok);
  const status = async () => (await store.get('lab/ud-late'))?.status;
  await waitUntil(async () => (await status())?.operationalStatus === 'delayed', 10_000, 'waiting for the network data');
  t.is((await status())?.errorMessage, 'waiting for Secret lab/ud-late-network (spec.networkData), which does not exist; provisioning continues as soon as it does');
  t.is((await status())?.provisioning.state, 'provisioning');
  t.is(fixture.calls('lab/ud-late').provision, 0);
  t.is(fixture.calls('lab/ud-late').deprovision, 0);

  t.true((await store.applyObjects([secret('ud-late-network', 'lab', { networkData: '{"links": []}' })])).ok);
  await waitUntil(async () => (await status())?.provisioning.state === 'provisioned', 10_000, 'provisioned after the Secret was applied');
  t.is(fixture.calls('lab/ud-late').provision, 1);
  t.is(fixture.calls('lab/ud-late').deprovision, 0);
  t.is((await status())?.errorMessage, '');
});
