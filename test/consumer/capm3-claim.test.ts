// The fields external controllers use, exercised the way Cluster API's Metal3 provider (CAPM3)
// uses them: it claims an available host by writing consumerRef, image, userData and online,
// waits for provisioned, pauses the host with its own annotation value while it moves things,
// and releases the host by clearing what it wrote. All through the store, as CAPM3 goes through
// the API server; the controller side sees only spec in and status out.
import test from 'ava';
import type { HostData, Provisioner } from '../../src/ports/index.ts';
import { generateMaasCluster } from '../../src/cli/demo/maas-fleet.ts';
import { parseProviderId } from '../../src/api/index.ts';
import { maasReady, startMaasNode } from '../support/maas-node.ts';
import { bmh, secret, startTestNode } from '../support/node.ts';
import { waitUntil } from '../support/wait.ts';

const KEY = 'lab/worker-0';
const PAUSED = 'baremetalhost.metal3.io/paused';

test('consumer - CAPM3 claims an available host, sees it provisioned with its user data, pauses and resumes it, and releases it', async (t) => {
  const deployed: Array<{ image: string | undefined; userData: string | undefined }> = [];
  const { node, store, fixture } = await startTestNode({
    provisioner: (f) => Object.assign(Object.create(f) as Provisioner, {
      provision(host: HostData, args: Parameters<Provisioner['provision']>[1]) {
        deployed.push({ image: host.spec.image?.url, userData: host.userData });
        return f.provision(host, args);
      },
    }),
  });
  t.teardown(() => node.stop());
  const state = async (): Promise<string | undefined> => (await store.get(KEY))?.status?.provisioning.state;

  // A host in the pool: inspected and available, unclaimed, off.
  const pool = bmh('worker-0', { image: false, online: false }) as { spec: Record<string, unknown>; metadata: Record<string, unknown> };
  t.true((await store.applyObjects([secret(), pool])).ok);
  await waitUntil(async () => (await state()) === 'available', 5_000, 'available');
  t.deepEqual(deployed, []);

  // Claim: consumerRef, image, userData and online, in one update.
  const claimed = {
    ...pool,
    spec: {
      ...pool.spec,
      online: true,
      consumerRef: { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'Metal3Machine', name: 'm-0', namespace: 'lab' },
      image: { url: 'http://images/ubuntu-24.04.qcow2', checksum: 'http://images/ubuntu-24.04.qcow2.sha256sum', checksumType: 'sha256', format: 'qcow2' },
      userData: { name: 'worker-0-user-data', namespace: 'lab' },
    },
  };
  t.true((await store.applyObjects([secret('worker-0-user-data', 'lab', { userData: '#cloud-config\nhostname: worker-0\n' }), claimed])).ok);
  await waitUntil(async () => (await state()) === 'provisioned', 5_000, 'provisioned');
  const provisioned = await store.get(KEY);
  t.is(provisioned?.status?.provisioning.image?.url, 'http://images/ubuntu-24.04.qcow2', 'status says which image is on it');
  t.is(provisioned?.status?.poweredOn, true);
  t.deepEqual(provisioned?.spec.consumerRef, claimed.spec.consumerRef, 'the controller never touches consumerRef');
  t.deepEqual(deployed, [{ image: 'http://images/ubuntu-24.04.qcow2', userData: '#cloud-config\nhostname: worker-0\n' }]);

  // Paused by CAPM3 (its value, not BMO's default): a spec change waits until the pause is lifted.
  t.true((await store.applyObjects([{ ...claimed, metadata: { ...claimed.metadata, annotations: { [PAUSED]: 'metal3.io/capm3' } }, spec: { ...claimed.spec, online: false } }])).ok);
  await waitUntil(async () => (await node.snapshot(KEY))?.recent.some((e) => e.reason === 'Paused') ?? false, 5_000, 'the host to see the pause');
  t.is((await store.get(KEY))?.status?.poweredOn, true, 'still on while paused');
  t.is(fixture.node(KEY)?.power, true);
  t.true((await store.applyObjects([{ ...claimed, spec: { ...claimed.spec, online: false } }])).ok);
  await waitUntil(async () => (await store.get(KEY))?.status?.poweredOn === false, 5_000, 'powered off once unpaused');
  t.is(fixture.node(KEY)?.power, false);

  // Release: CAPM3 clears image, userData and consumerRef; the host is deprovisioned back to the pool.
  const { consumerRef: _c, image: _i, userData: _u, ...released } = claimed.spec;
  t.true((await store.applyObjects([{ ...claimed, spec: { ...released, online: false } }])).ok);
  await waitUntil(async () => (await state()) === 'available', 5_000, 'available again');
  const back = await store.get(KEY);
  t.is(back?.status?.provisioning.image, undefined, 'no image recorded once deprovisioned');
  t.is(back?.spec.consumerRef, undefined);
  t.is(fixture.node(KEY)?.provisionCount, 1, 'deployed once');
});

test('consumer - the Cluster API side reads MaasMachine providerID and ready as CAPMAAS documents them', async (t) => {
  const it = await startMaasNode();
  t.teardown(() => it.stop());
  // What CAPI's Machine controller observes: every version of the MaasMachine it is given.
  const seen: Array<{ providerID?: string; ready?: boolean }> = [];
  const unwatch = it.store.watch((e) => {
    if (e.type === 'upsert' && e.kind === 'MaasMachine' && e.key === 'capi/demo-cp-0') {
      seen.push({ providerID: (e.object.spec as { providerID?: string }).providerID, ready: (e.object.status as { ready?: boolean } | undefined)?.ready });
    }
  });
  t.teardown(unwatch);
  t.true((await it.apply(generateMaasCluster({ controlPlane: 1, workers: 0 }))).ok);
  await waitUntil(() => maasReady(it.store, 'capi/demo-cp-0'), 20_000, 'ready');
  const spec = (await it.store.get('MaasMachine', 'capi/demo-cp-0'))?.spec as { providerID?: string; systemID?: string };
  const parsed = parseProviderId(spec.providerID ?? '');
  t.true(parsed.ok, spec.providerID ?? '(no providerID)');
  if (parsed.ok) t.is(parsed.systemId, spec.systemID ?? '', 'providerID names the machine MAAS deployed');
  // Ready never comes before the providerID, and a providerID once given never changes.
  t.false(seen.some((s) => s.ready === true && !s.providerID), JSON.stringify(seen));
  const ids = [...new Set(seen.flatMap((s) => (s.providerID === undefined ? [] : [s.providerID])))];
  t.deepEqual(ids, [spec.providerID]);
});
