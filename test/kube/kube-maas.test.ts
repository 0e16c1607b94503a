// MaasMachines and MaasClusters in Kubernetes, driven by the MAAS actors of an embedded node
// against the MAAS simulator: the same actors as the embedded memory store, unchanged.
import test from 'ava';
import { generateMaasCluster } from '../../src/cli/demo/maas-fleet.ts';
import { waitUntil } from '../support/wait.ts';
import type { KubeApiServer, KubeObject } from '../support/kube-api/index.ts';
import { applyFile, createWithOwners, startApi, startKubeNode } from './support/kube-node.ts';
import type { KubeTestNode } from './support/kube-node.ts';

type MachineStatus = { ready?: boolean; machineState?: string; addresses?: Array<{ type: string; address: string }> };
type Obj = { metadata: { finalizers?: string[]; uid?: string; deletionTimestamp?: string }; spec?: Record<string, unknown>; status?: Record<string, unknown> };

const get = (api: KubeApiServer, resource: string, key: string): Obj | undefined => {
  const [namespace, name] = key.split('/') as [string, string];
  return api.get({ resource, namespace, name }) as Obj | undefined;
};
const machineStatus = (api: KubeApiServer, key: string) => get(api, 'maasmachines', key)?.status as MachineStatus | undefined;

async function withMaas(fn: (api: KubeApiServer, it: KubeTestNode) => Promise<void>): Promise<void> {
  const api = await startApi();
  const it = await startKubeNode(api, { maas: true });
  try {
    await fn(api, it);
  } finally {
    await it.stop();
    await api.close();
  }
}

test('kube maas - the CAPMAAS example (MaasCluster, MaasMachineTemplate, Machine and MaasMachine) applies and reconciles', async (t) => {
  await withMaas(async (api, it) => {
    await applyFile(api, 'capmaas-example.yaml');
    const key = 'capmaas/c1-control-plane-x7k2p';
    await waitUntil(() => machineStatus(api, key)?.ready === true, 30_000, 'the MaasMachine is ready');
    const mm = get(api, 'maasmachines', key)!;
    t.regex(String(mm.spec?.['providerID']), /^maas:\/\/\/az[12]\/[a-z0-9]{6}$/);
    t.deepEqual(mm.metadata.finalizers, ['maasmachine.infrastructure.cluster.x-k8s.io']);
    t.is(it.sim?.machine(String(mm.spec?.['systemID']))?.status_name, 'Deployed');
    await waitUntil(() => (get(api, 'maasclusters', 'capmaas/c1')?.status as { ready?: boolean } | undefined)?.ready === true, 20_000, 'the MaasCluster is ready');
    const cluster = get(api, 'maasclusters', 'capmaas/c1')!;
    t.deepEqual(cluster.metadata.finalizers, ['maascluster.infrastructure.cluster.x-k8s.io']);
    const ip = machineStatus(api, key)?.addresses?.find((a) => a.type === 'ExternalIP')?.address;
    await waitUntil(() => (it.sim?.dnsResources()[0]?.ips ?? []).includes(ip ?? '?'), 20_000, 'DNS holds the control-plane IP');
    t.regex(String((cluster.spec?.['controlPlaneEndpoint'] as { host?: string } | undefined)?.host), /^c1-[0-9a-f]{6}\.maas$/);
    // The template is applied and left alone: metalfleet does not reconcile templates.
    t.truthy(get(api, 'maasmachinetemplates', 'capmaas/c1-control-plane'));
  });
});

test('kube maas - create, update and delete drive the MAAS actors: a late bootstrap Secret starts the deploy, a delete releases', async (t) => {
  await withMaas(async (api, it) => {
    const objects = generateMaasCluster({ namespace: 'capi', controlPlane: 1, workers: 1 });
    const bootstrap = objects.find((o) => (o as KubeObject).kind === 'Secret' && String((o as KubeObject).metadata?.name).startsWith('demo-worker-0')) as KubeObject;
    createWithOwners(api, objects.filter((o) => o !== bootstrap));
    await waitUntil(() => machineStatus(api, 'capi/demo-cp-0')?.ready === true, 30_000, 'control plane ready');
    // The worker waits for its bootstrap data: nothing deploys without it.
    t.not(machineStatus(api, 'capi/demo-worker-0')?.ready, true);
    t.falsy(get(api, 'maasmachines', 'capi/demo-worker-0')?.spec?.['systemID']);
    api.create(bootstrap);
    await waitUntil(() => machineStatus(api, 'capi/demo-worker-0')?.ready === true, 30_000, 'worker ready once its Secret exists');
    const systemId = String(get(api, 'maasmachines', 'capi/demo-worker-0')?.spec?.['systemID']);
    t.is(it.sim?.machine(systemId)?.status_name, 'Deployed');

    api.delete({ resource: 'maasmachines', namespace: 'capi', name: 'demo-worker-0' });
    await waitUntil(() => get(api, 'maasmachines', 'capi/demo-worker-0') === undefined, 20_000, 'worker gone');
    await waitUntil(() => it.sim?.machine(systemId)?.status_name === 'Ready', 20_000, 'its machine released back to Ready');

    // The cluster goes last: its DNS record with it, then its finalizer.
    api.delete({ resource: 'maasmachines', namespace: 'capi', name: 'demo-cp-0' });
    api.delete({ resource: 'maasclusters', namespace: 'capi', name: 'demo' });
    await waitUntil(() => get(api, 'maasclusters', 'capi/demo') === undefined, 30_000, 'MaasCluster gone');
    t.deepEqual(it.sim?.dnsResources() ?? [], []);
    const used = [...it.adapter.calls.used];
    t.true(used.includes('patch infrastructure.cluster.x-k8s.io/maasmachines/status'));
    t.true(used.includes('list cluster.x-k8s.io/machines'));
  });
});
