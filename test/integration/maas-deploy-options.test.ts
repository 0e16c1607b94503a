// Issue 32 (3b and 4) through the node against the MAAS simulator: images as MAAS names them,
// kernel options, an image MAAS lacks, and a static address reaching the machine's addresses.
import test from 'ava';
import { generateMaasCluster } from '../../src/cli/demo/maas-fleet.ts';
import { startMaasNode } from '../support/maas-node.ts';
import type { MaasTestNode } from '../support/maas-node.ts';
import { call, ok } from '../support/maas-http.ts';
import { waitUntil } from '../support/wait.ts';

type Condition = { type: string; status: string; reason?: string; message?: string };
type Status = { ready?: boolean; conditions?: Condition[]; addresses?: Array<{ type: string; address: string }> };
type Obj = { kind: string; metadata: { name: string }; spec: Record<string, unknown> };

const status = async (it: MaasTestNode, name: string) => (await it.store.get('MaasMachine', `capi/${name}`))?.status as Status | undefined;
const conditionOf = async (it: MaasTestNode, name: string, type: string) => (await status(it, name))?.conditions?.find((c) => c.type === type);
const systemIdOf = async (it: MaasTestNode, name: string) => ((await it.store.get('MaasMachine', `capi/${name}`))?.spec as { systemID?: string } | undefined)?.systemID ?? '';
const calls = (it: MaasTestNode, suffix: string) => Object.entries(it.sim.counts().byRoute).filter(([route]) => route.endsWith(suffix)).reduce((n, [, c]) => n + c, 0);

/** A cluster of control-plane and worker machines whose MaasMachine specs `patch` changes, by name. */
function cluster(controlPlane: number, workers: number, patch: Record<string, Record<string, unknown>>): unknown[] {
  return generateMaasCluster({ controlPlane, workers }).map((o) => {
    const obj = o as Obj;
    const p = patch[obj.metadata.name];
    if (obj.kind !== 'MaasMachine' || !p) return o;
    const spec = { ...obj.spec, ...p };
    for (const [k, v] of Object.entries(spec)) if (v === undefined) delete spec[k];
    return { ...obj, spec };
  });
}

test('maas deploy options - a custom image and osSystem/distroSeries with an HWE kernel deploy as asked', async (t) => {
  const it = await startMaasNode({ sim: { bootResources: [{ name: 'custom/u-2204-k8s', baseImage: 'ubuntu/jammy' }] } });
  try {
    const applied = await it.apply(cluster(1, 1, {
      'demo-cp-0': { image: 'custom/u-2204-k8s' },
      'demo-worker-0': { image: undefined, osSystem: 'ubuntu', distroSeries: 'noble', hweKernel: 'hwe-24.04', enableHwSync: true },
    }));
    t.true(applied.ok, JSON.stringify(applied));
    await waitUntil(async () => (await status(it, 'demo-cp-0'))?.ready === true && (await status(it, 'demo-worker-0'))?.ready === true, 20_000, 'both ready');
    t.like(it.sim.machine(await systemIdOf(it, 'demo-cp-0')), { status_name: 'Deployed', osystem: 'custom', distro_series: 'u-2204-k8s', hwe_kernel: 'ga-22.04' });
    t.like(it.sim.machine(await systemIdOf(it, 'demo-worker-0')), { status_name: 'Deployed', osystem: 'ubuntu', distro_series: 'noble', hwe_kernel: 'hwe-24.04', enable_hw_sync: true });
    t.like(await conditionOf(it, 'demo-worker-0', 'ImageAvailable'), { status: 'True', reason: 'ImageAvailable' });
    // Two machines, one read of boot-resources/ (the driver's per-MAAS cache).
    t.is(calls(it, 'boot-resources/'), 1);
  } finally {
    await it.stop();
  }
});

test('maas deploy options - an image MAAS lacks: ImageAvailable False naming what MAAS has, nothing allocated or deployed', async (t) => {
  const it = await startMaasNode({ sim: { bootResources: [{ name: 'custom/my-image' }] } });
  try {
    t.true((await it.apply(cluster(1, 0, { 'demo-cp-0': { image: 'rhel/9' } }))).ok);
    await waitUntil(async () => (await conditionOf(it, 'demo-cp-0', 'ImageAvailable'))?.status === 'False', 20_000, 'ImageAvailable False');
    t.like(await conditionOf(it, 'demo-cp-0', 'ImageAvailable'), {
      reason: 'ImageNotFound', message: 'MAAS has no boot resource rhel/9; it has ubuntu/focal, ubuntu/jammy, ubuntu/noble, custom/my-image',
    });
    t.like(await conditionOf(it, 'demo-cp-0', 'Ready'), { status: 'False', reason: 'ImageNotFound' });
    t.is(calls(it, 'op=allocate'), 0);
    t.is(calls(it, 'op=deploy'), 0);
    t.true(it.sim.machines().every((m) => m.status_name === 'Ready'));
  } finally {
    await it.stop();
  }
});

test('maas deploy options - a static address reaches the machine\'s addresses; the same address for another machine is AddressInUse', async (t) => {
  const it = await startMaasNode();
  try {
    const zones = ok<Array<{ id: number; name: string }>>(await call(it.sim, 'GET', 'zones/'));
    const az1 = zones.find((z) => z.name === 'az1')?.id ?? -1;
    const address = `10.10.${az1}.200`;
    const staticAddress = { subnet: `10.10.${az1}.0/24`, address, defaultGateway: true };
    t.true((await it.apply(cluster(1, 2, {
      'demo-cp-0': { failureDomain: 'az1', staticAddress },
      // A second machine wanting the same address waits, saying why.
      'demo-worker-0': { failureDomain: 'az1', staticAddress },
    }))).ok);
    await waitUntil(async () => (await status(it, 'demo-cp-0'))?.ready === true, 20_000, 'cp ready');
    const st = await status(it, 'demo-cp-0');
    t.deepEqual(st?.addresses?.filter((a) => a.type === 'ExternalIP').map((a) => a.address), [address]);
    t.deepEqual(it.sim.machine(await systemIdOf(it, 'demo-cp-0'))?.ip_addresses, [address]);
    t.like(await conditionOf(it, 'demo-cp-0', 'StaticAddress'), { status: 'True', reason: 'StaticAddressAssigned' });
    // The cluster's DNS record holds the static address.
    await waitUntil(() => (it.sim.dnsResources()[0]?.ips ?? []).includes(address), 10_000, 'address in DNS');
    await waitUntil(async () => (await conditionOf(it, 'demo-worker-0', 'StaticAddress'))?.reason === 'AddressInUse', 20_000, 'AddressInUse');
    t.regex((await conditionOf(it, 'demo-worker-0', 'StaticAddress'))?.message ?? '', /IP address is already in use/);
    t.not((await status(it, 'demo-worker-0'))?.ready, true);
    t.not(it.sim.machine(await systemIdOf(it, 'demo-worker-0'))?.status_name, 'Deploying');
    // The worker without a static address deploys as ever.
    await waitUntil(async () => (await status(it, 'demo-worker-1'))?.ready === true, 20_000, 'worker-1 ready');
  } finally {
    await it.stop();
  }
});
