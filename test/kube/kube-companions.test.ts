// A host's companions in Kubernetes (BMO's HostFirmwareSettings and HostFirmwareComponents, kept
// by the host's actor): what `kubectl get hostfirmwarecomponents` shows after a firmware read, and
// that they go with the host. The adapter refused calls the actor makes (CALLS_BY_RESOURCE).
import test from 'ava';
import { bmh, secret } from '../support/node.ts';
import { waitUntil } from '../support/wait.ts';
import type { KubeObject } from '../support/kube-api/index.ts';
import { startApi, startKubeNode, stateOf } from './support/kube-node.ts';

const ref = (resource: string, name: string) => ({ resource, namespace: 'lab', name });

test('kube companions - a firmware read creates the host\'s HostFirmwareComponents with its components; both companions go with the host', async (t) => {
  const api = await startApi();
  const it = await startKubeNode(api);
  t.teardown(async () => {
    await it.stop();
    await api.close();
  });
  api.create(secret('bmc', 'lab') as KubeObject);
  api.create(bmh('fw1') as KubeObject);
  await waitUntil(() => stateOf(api, 'lab/fw1') === 'provisioned', 20_000, 'fw1 provisioned');
  type Companion = { metadata: { ownerReferences?: Array<{ kind: string; name: string }> }; status?: { components?: Array<{ component: string }> } };
  await waitUntil(() => (api.get(ref('hostfirmwarecomponents', 'fw1')) as Companion | undefined)?.status?.components !== undefined, 10_000, 'HostFirmwareComponents with components');
  const hfc = api.get(ref('hostfirmwarecomponents', 'fw1')) as Companion;
  t.like(hfc.metadata.ownerReferences?.[0], { kind: 'BareMetalHost', name: 'fw1' });
  t.true((hfc.status?.components ?? []).length > 0);
  t.truthy(api.get(ref('hostfirmwaresettings', 'fw1')));

  api.delete(ref('baremetalhosts', 'fw1'));
  await waitUntil(() => api.get(ref('baremetalhosts', 'fw1')) === undefined, 20_000, 'fw1 gone');
  // The test server has no garbage collector: the host's actor deletes what it owns.
  await waitUntil(() => api.get(ref('hostfirmwaresettings', 'fw1')) === undefined && api.get(ref('hostfirmwarecomponents', 'fw1')) === undefined, 10_000, 'companions gone');
  t.pass();
});
