// Issue 19.3 in Kubernetes mode: a BareMetalHost whose user data Secret does not exist yet waits
// (no deploy, no deprovision, an Event and a status naming the Secret); creating the Secret
// through the API lets it provision, with no restart.
import test from 'ava';
import { bmh, secret } from '../support/node.ts';
import { waitUntil } from '../support/wait.ts';
import type { KubeObject } from '../support/kube-api/index.ts';
import { hostStatus, startApi, startKubeNode, stateOf } from '../kube/support/kube-node.ts';

const KEY = 'lab/h-ud';

test('kube secrets - a missing userData Secret is a wait with a clear status; the Secret created later lets the host provision', async (t) => {
  const api = await startApi();
  // Rechecks an hour away: only the Secret's appearance can wake the host within the test.
  const it = await startKubeNode(api, { machine: { secretRecheckMs: 3_600_000, missingCredentialsRetryMs: 3_600_000 } });
  t.teardown(async () => {
    await it.stop();
    await api.close();
  });
  api.create(secret('bmc', 'lab') as KubeObject);
  const host = bmh('h-ud') as { spec: Record<string, unknown> };
  host.spec['userData'] = { name: 'h-ud-user-data', namespace: 'lab' };
  api.create(host as KubeObject);

  await waitUntil(() => hostStatus(api, KEY)?.operationalStatus === 'delayed', 20_000, 'the host waiting for its user data');
  const waiting = hostStatus(api, KEY);
  t.is(stateOf(api, KEY), 'provisioning');
  t.is(waiting?.errorMessage, 'waiting for Secret lab/h-ud-user-data (spec.userData), which does not exist; provisioning continues as soon as it does');
  t.is(waiting?.errorType ?? '', '');
  t.is(it.fixture.calls(KEY).provision, 0);
  t.is(it.fixture.calls(KEY).deprovision, 0);
  t.is((await it.node.snapshot(KEY))?.slot.phase, 'none');
  const events = async () => (await api.list('events', { namespace: 'lab' })) as Array<{ reason?: string; type?: string; message?: string; involvedObject?: { name?: string } }>;
  await waitUntil(async () => (await events()).some((e) => e.reason === 'WaitingForSecret' && e.involvedObject?.name === 'h-ud'), 10_000, 'a WaitingForSecret Event');

  api.create(secret('h-ud-user-data', 'lab', { userData: '#cloud-config\npassword: kube-user-data-value\n' }) as KubeObject);
  await waitUntil(() => stateOf(api, KEY) === 'provisioned', 20_000, 'provisioned after the Secret was created');
  const done = hostStatus(api, KEY);
  t.is(done?.operationalStatus, 'OK');
  t.is(done?.errorMessage, '');
  t.is(it.fixture.calls(KEY).provision, 1);
  t.is(it.fixture.calls(KEY).deprovision, 0);
  t.false(JSON.stringify(done).includes('kube-user-data-value'));
  t.false(JSON.stringify(await events()).includes('kube-user-data-value'));
});
