// BMO's Adopt on every steady-state pass, against a real Ironic: a provisioned host whose node
// was put back into manageable (a re-created node, a restored database, an operator's hands) is
// adopted again on the next power read, and never deployed a second time.
import test from 'ava';
import { ironicHost, useIronicNode } from '../support/ironic-node.ts';
import { waitUntil } from '../support/wait.ts';

const it = useIronicNode(test);

const state = async (uuid: string) => (await it.client.getNode(uuid))?.provision_state;

test('readopt - a provisioned host whose node went back to manageable is adopted to active again, not redeployed', async (t) => {
  t.true((await it.store.applyObjects([ironicHost('readopt-1')])).ok);
  await waitUntil(async () => (await it.node.snapshot('lab/readopt-1'))?.state === 'provisioned', 60_000, 'provisioned');
  const uuid = (await it.client.getNode('lab~readopt-1'))?.uuid ?? '';
  t.truthy(uuid);
  const deploys = it.client.stats.byRoute['PUT /v1/nodes/{node}/states/provision'] ?? 0;

  // Someone takes the node out of service behind metalfleet's back: undeploy, then manage. The
  // host is paused meanwhile so its own power reads do not race the hand-made moves.
  await it.store.applyObjects([ironicHost('readopt-1', { annotations: { 'baremetalhost.metal3.io/paused': '' } })]);
  await it.client.setProvisionState(uuid, 'deleted');
  await waitUntil(async () => (await state(uuid)) === 'available', 60_000, 'undeployed');
  await it.client.setProvisionState(uuid, 'manage');
  await waitUntil(async () => (await state(uuid)) === 'manageable', 60_000, 'manageable');
  const handMade = (it.client.stats.byRoute['PUT /v1/nodes/{node}/states/provision'] ?? 0) - deploys;

  const unpaused = Date.now();
  t.true((await it.store.applyObjects([ironicHost('readopt-1')])).ok);
  await waitUntil(async () => (await state(uuid)) === 'active', 60_000, 'adopted back to active');
  const snap = await it.node.snapshot('lab/readopt-1');
  t.is(snap?.state, 'provisioned');
  const since = snap?.recent.filter((e) => e.at >= unpaused).map((e) => e.reason) ?? [];
  t.true(since.includes('AdoptNeeded'), since.join(','));
  t.false(since.includes('ProvisioningStarted') || since.includes('DeprovisioningStarted'), since.join(','));
  // One adopt request beside the two made by hand: no deploy.
  t.is((it.client.stats.byRoute['PUT /v1/nodes/{node}/states/provision'] ?? 0) - deploys - handMade, 1);
});
