// Network data a host's Secret holds that does not parse fails the deployment with BMO's words
// (getConfigDrive: "failed to unmarshal network_data.json from secret") in the host's status,
// and nothing is deployed; once the Secret is fixed the next attempt deploys with it.
import test from 'ava';
import { startIronic } from '../support/ironic.ts';
import type { IronicServer } from '../support/ironic.ts';
import { startRecorder } from '../support/ironic-recorder.ts';
import type { Recorder } from '../support/ironic-recorder.ts';
import { bmcSecret, ironicHost, startIronicNode } from '../support/ironic-node.ts';
import type { IronicTestNode } from '../support/ironic-node.ts';
import { waitFor, waitUntil } from '../support/wait.ts';

let ironic: IronicServer;
let recorder: Recorder;
let t0: IronicTestNode;

test.before(async () => {
  ironic = await startIronic();
  recorder = await startRecorder(ironic.url);
  t0 = await startIronicNode({ url: recorder.url });
  const applied = await t0.store.applyObjects([bmcSecret()]);
  if (!applied.ok) throw new Error(`Secret refused: ${JSON.stringify(applied.issues)}`);
});
test.after.always(async () => {
  await t0?.stop();
  await recorder?.stop();
  await ironic?.stop();
});

const networkSecret = (networkData: string): unknown => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'nd', namespace: 'lab' }, stringData: { networkData } });

function hostWithNetworkData(name: string): unknown {
  const h = ironicHost(name) as { spec: Record<string, unknown> };
  return { ...h, spec: { ...h.spec, networkData: { name: 'nd', namespace: 'lab' } } };
}

const deploys = (name: string) => recorder.calls.filter((c) => c.node === `lab~${name}` && c.route.endsWith('/states/provision') && (c.body as { target?: string }).target === 'active');

test('ironic network data - unparsable network data is a provisioning error with BMO wording; a fixed Secret deploys', async (t) => {
  t.true((await t0.store.applyObjects([networkSecret('links: [\n  - id: eth0\n  password: never-shown'), hostWithNetworkData('nd1')])).ok);
  let message = '';
  await waitUntil(async () => {
    const snap = await t0.node.snapshot('lab/nd1');
    message = snap?.status.errorMessage ?? '';
    return snap?.status.errorType === 'provisioning error';
  }, 60_000, 'a provisioning error');
  t.regex(message, /^failed to unmarshal network_data\.json from secret \(spec\.networkData\): .+ at line \d+, column \d+$/);
  t.false(message.includes('never-shown'));
  const snap = await t0.node.snapshot('lab/nd1');
  t.is(snap?.status.operationalStatus, 'error');
  t.deepEqual(deploys('nd1'), [], 'nothing deployed');
  t.false(recorder.calls.some((c) => c.node === 'lab~nd1' && c.method === 'PATCH' && JSON.stringify(c.body).includes('instance_info')), 'no instance_info written');

  t.true((await t0.store.applyObjects([networkSecret('links:\n  - id: eth0\n    type: phy\n')])).ok);
  await waitFor(() => t0.node.stats.hosts.get('lab/nd1')?.state === 'provisioned', 60_000, 'provisioned');
  const deploy = deploys('nd1')[0];
  t.deepEqual((deploy?.body as { configdrive?: { network_data?: unknown } }).configdrive?.network_data, { links: [{ id: 'eth0', type: 'phy' }] });
  t.is((await t0.client.getNode('lab~nd1'))?.provision_state, 'active');
});
