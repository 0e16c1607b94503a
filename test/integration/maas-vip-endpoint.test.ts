// Issue 32's endpoint choices end to end against the MAAS simulator over HTTP: a VIP cluster and a
// DNS cluster come up side by side on machines with two NICs each; the DNS cluster publishes its
// control plane's eth1 addresses (spec.apiServerInterface by subnet) and drops a deleted one; the
// VIP cluster reserves its VIP in MAAS, puts the kube-vip static pod in its control-plane user
// data, keeps the VIP while a control-plane machine goes, and releases it when the cluster goes.
import test from 'ava';
import { parse as parseYaml } from 'yaml';
import { generateMaasCluster } from '../../src/cli/demo/maas-fleet.ts';
import type { SeedMachine } from '../../src/sim/maas/index.ts';
import { startMaasNode } from '../support/maas-node.ts';
import { waitUntil } from '../support/wait.ts';

type Node = Awaited<ReturnType<typeof startMaasNode>>;
type Obj = { kind: string; metadata: { name: string }; spec: Record<string, unknown> };
const API_NET = '10.20.0.0/24';
const FLEET: SeedMachine[] = Array.from({ length: 8 }, (_, i) => ({
  hostname: `node-${i}`, zone: i % 2 === 0 ? 'az1' : 'az2', cpuCount: 4, memoryMb: 8192,
  nics: [{ name: 'eth0' }, { name: 'eth1', subnet: API_NET, tags: ['api'] }],
}));

function cluster(name: string, spec: Record<string, unknown>): unknown[] {
  return generateMaasCluster({ cluster: name, controlPlane: 2, workers: 1 }).map((o) => {
    const obj = o as Obj;
    return obj.kind === 'MaasCluster' ? { ...obj, spec: { ...obj.spec, ...spec } } : obj;
  });
}

const machine = async (it: Node, name: string) => it.store.get('MaasMachine', `capi/${name}`);
const systemIdOf = async (it: Node, name: string) => ((await machine(it, name))?.spec as { systemID?: string } | undefined)?.systemID ?? '';
const ready = async (it: Node) => {
  const all = await it.store.list('MaasMachine');
  return all.length === 6 && all.every((m) => (m.status as { ready?: boolean } | undefined)?.ready === true);
};
// The simulator keeps the user data decoded, as MAAS stores it.
const userData = (it: Node, systemId: string) => String((it.sim.machine(systemId) as { user_data?: string } | undefined)?.user_data ?? '');
const eth1Of = (it: Node, systemId: string) => (it.sim.machine(systemId)?.ip_addresses ?? []).find((ip) => ip.startsWith('10.20.0.')) ?? '';
const record = (it: Node, prefix: string) => it.sim.dnsResources().find((d) => d.fqdn.startsWith(prefix));

test('maas endpoint - a VIP cluster and a DNS cluster come up; removals leave DNS; the VIP is reserved until its cluster goes', async (t) => {
  const it = await startMaasNode({ sim: { machines: FLEET } });
  try {
    t.true((await it.apply(cluster('vip', { controlPlaneVIP: { subnet: API_NET, interface: 'eth1' } }))).ok);
    t.true((await it.apply(cluster('dns', { apiServerInterface: { subnet: API_NET } }))).ok);
    await waitUntil(() => ready(it), 30_000, 'all six MaasMachines ready');

    // The VIP: reserved in MAAS on the API network, the endpoint, and no record of machine addresses.
    const vipCluster = await it.store.get('MaasCluster', 'capi/vip');
    const vip = (vipCluster?.status as { controlPlaneVIP?: { address: string; subnet: string } }).controlPlaneVIP;
    t.is(vip?.subnet, API_NET);
    t.regex(vip?.address ?? '', /^10\.20\.0\.\d+$/);
    t.deepEqual(it.sim.reservedIps(), [{ ip: vip?.address ?? '', user: 'admin', subnet: API_NET }]);
    await waitUntil(async () => ((await it.store.get('MaasCluster', 'capi/vip'))?.spec as { controlPlaneEndpoint?: { host?: string } }).controlPlaneEndpoint?.host === vip?.address, 5_000, 'the VIP is the endpoint');
    const vipRecord = record(it, 'vip-');
    t.deepEqual(vipRecord?.ips, [vip?.address], 'the reservation\'s hostname resolves to the VIP and nothing else');
    for (const name of ['vip-cp-0', 'vip-cp-1', 'vip-worker-0', 'dns-cp-0', 'dns-cp-1', 'dns-worker-0']) {
      t.false(it.sim.machine(await systemIdOf(it, name))?.ip_addresses.includes(vip?.address ?? ''), `${name} was not given the VIP`);
    }

    // The kube-vip static pod: in each VIP control-plane machine's user data, nowhere else.
    for (const name of ['vip-cp-0', 'vip-cp-1']) {
      const data = parseYaml(userData(it, await systemIdOf(it, name))) as { hostname: string; write_files: Array<{ path: string; content: string }> };
      t.is(data.hostname, name, 'the bootstrap data is still there');
      const file = data.write_files.find((f) => f.path === '/etc/kubernetes/manifests/kube-vip.yaml');
      const env = Object.fromEntries(((parseYaml(file?.content ?? '') as { spec: { containers: Array<{ env: Array<{ name: string; value: string }> }> } }).spec.containers[0]?.env ?? []).map((e) => [e.name, e.value]));
      t.like(env, { address: vip?.address, port: '6443', vip_interface: 'eth1', vip_arp: 'true', vip_leaderelection: 'true', cp_enable: 'true' });
    }
    for (const name of ['vip-worker-0', 'dns-cp-0']) t.false(userData(it, await systemIdOf(it, name)).includes('kube-vip'), `${name} has no kube-vip`);

    // The DNS cluster publishes each control-plane machine's eth1 address.
    const dnsIps = async () => [eth1Of(it, await systemIdOf(it, 'dns-cp-0')), eth1Of(it, await systemIdOf(it, 'dns-cp-1'))].sort();
    await waitUntil(async () => JSON.stringify([...(record(it, 'dns-')?.ips ?? [])].sort()) === JSON.stringify(await dnsIps()), 10_000, 'DNS holds both eth1 addresses');
    t.deepEqual([...(record(it, 'dns-')?.ips ?? [])].sort(), await dnsIps());

    // A DNS control-plane machine's removal takes its address out of the record before its release.
    const gone = eth1Of(it, await systemIdOf(it, 'dns-cp-1'));
    const goneId = await systemIdOf(it, 'dns-cp-1');
    await it.store.requestDelete('MaasMachine', 'capi/dns-cp-1');
    await waitUntil(async () => (await machine(it, 'dns-cp-1')) === undefined, 15_000, 'dns-cp-1 gone');
    t.deepEqual(record(it, 'dns-')?.ips, [eth1Of(it, await systemIdOf(it, 'dns-cp-0'))]);
    t.false(record(it, 'dns-')?.ips.includes(gone));
    t.not(it.sim.machine(goneId)?.status_name, 'Deployed');

    // A VIP control-plane machine goes: the VIP stays reserved.
    await it.store.requestDelete('MaasMachine', 'capi/vip-cp-1');
    await waitUntil(async () => (await machine(it, 'vip-cp-1')) === undefined, 15_000, 'vip-cp-1 gone');
    t.deepEqual(it.sim.reservedIps().map((r) => r.ip), [vip?.address]);

    // The VIP cluster goes: its machines first, then the VIP is released (and its name with it).
    await it.store.requestDelete('MaasCluster', 'capi/vip');
    await waitUntil(async () => ((await it.store.get('MaasCluster', 'capi/vip'))?.metadata as { deletionTimestamp?: string } | undefined)?.deletionTimestamp !== undefined, 5_000, 'deleting');
    t.deepEqual(it.sim.reservedIps().map((r) => r.ip), [vip?.address], 'held while machines remain');
    for (const name of ['vip-cp-0', 'vip-worker-0']) await it.store.requestDelete('MaasMachine', `capi/${name}`);
    await waitUntil(async () => (await it.store.get('MaasCluster', 'capi/vip')) === undefined, 20_000, 'the VIP cluster gone');
    t.deepEqual(it.sim.reservedIps(), []);
    t.is(record(it, 'vip-'), undefined);
    // The DNS cluster is untouched.
    t.deepEqual(record(it, 'dns-')?.ips, [eth1Of(it, await systemIdOf(it, 'dns-cp-0'))]);
  } finally {
    await it.stop();
  }
});
