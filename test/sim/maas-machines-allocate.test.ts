// allocate with the constraints MAAS takes (AcquireNodeForm) and constraints_by_type as gomaasapi's
// AllocateMachine reads it (controller.go parseAllocateConstraintsResponse), and the GET machines/
// filters of ReadNodesForm.
import test from 'ava';
import type { MaasSim } from '../../src/sim/maas/index.ts';
import { startMaasSim } from '../../src/sim/maas/index.ts';
import type { Form } from '../support/maas-http.ts';
import { call, idOf, ok } from '../support/maas-http.ts';

interface Machine {
  system_id: string;
  hostname: string;
  status_name: string;
  owner: string | null;
  agent_name?: string;
  interface_set: Array<{ id: number; name: string }>;
  physicalblockdevice_set: Array<{ id: number; name: string }>;
  constraints_by_type?: Record<string, unknown>;
}

async function started(t: { teardown(fn: () => Promise<void>): void }): Promise<MaasSim> {
  const sim = await startMaasSim({ deployMs: 0, releaseMs: 0 });
  t.teardown(() => sim.stop());
  return sim;
}

const allocate = (sim: MaasSim, form: Form) => call(sim, 'POST', 'machines/', [['op', 'allocate'], ...form]);
const hostnames = (ms: Machine[]) => ms.map((m) => m.hostname).sort();

test('maas machines allocate - storage: the root disk and a labelled data disk, returned by label as block device ids', async (t) => {
  const sim = await started(t);
  const m = ok<Machine>(await allocate(sim, [['storage', 'root:100,data:1500(rotary)']]));
  t.is(m.hostname, 'node-04');
  const [root, data] = m.physicalblockdevice_set;
  t.deepEqual(m.constraints_by_type, { storage: { root: [root?.id], data: [data?.id] } });
  t.is(data?.name, 'sdb');
});

test('maas machines allocate - storage: unlabelled constraints still filter but are not reported; a malformed one is 400', async (t) => {
  const sim = await started(t);
  const m = ok<Machine>(await allocate(sim, [['storage', '400,3000(nvme)']]));
  t.is(m.hostname, 'gpu-02');
  t.deepEqual(m.constraints_by_type, {});
  const bad = await allocate(sim, [['storage', 'root:lots']]);
  t.is(bad.status, 400);
  t.deepEqual(JSON.parse(bad.text), { storage: ['Malformed storage constraint, "root:lots".'] });
  const none = await allocate(sim, [['storage', '100000']]);
  t.is(none.status, 409);
});

test('maas machines allocate - interfaces: label → matching interface ids; link_speed narrows; unknown keys are 400', async (t) => {
  const sim = await started(t);
  const m = ok<Machine>(await allocate(sim, [['interfaces', 'fast:link_speed=10000'], ['zone', 'az2']]));
  t.is(m.hostname, 'node-07');
  const fast = m.interface_set.find((i) => i.name === 'eth1');
  t.deepEqual(m.constraints_by_type, { interfaces: { fast: [fast?.id] } });
  // The space is the network model's (places): whatever the zone's VLAN is in.
  const spaceName = ok<{ boot_interface: { vlan: { space: string } } }>(await call(sim, 'GET', `machines/${idOf(sim, 'node-01')}/`)).boot_interface.vlan.space;
  const space = ok<Machine>(await allocate(sim, [['interfaces', `boot:space=${spaceName},name=eth0`]]));
  t.deepEqual(space.constraints_by_type, { interfaces: { boot: [space.interface_set[0]?.id] } });
  t.is((await allocate(sim, [['interfaces', 'boot:space=nowhere']])).status, 409);
  const bad = await allocate(sim, [['interfaces', 'x:colour=red']]);
  t.is(bad.status, 400);
  t.deepEqual(JSON.parse(bad.text), { interfaces: ["Unknown interfaces constraint: 'colour"] });
});

test('maas machines allocate - name, system_id, arch, cpu_count, mem, tags, not_tags, zones and pools combine with AND', async (t) => {
  const sim = await started(t);
  t.is(ok<Machine>(await allocate(sim, [['name', 'node-06.maas'], ['dry_run', 'true']])).hostname, 'node-06');
  const id = idOf(sim, 'node-02');
  t.is(ok<Machine>(await allocate(sim, [['system_id', id], ['dry_run', 'true']])).system_id, id);
  const m = ok<Machine>(await allocate(sim, [['arch', 'amd64'], ['cpu_count', '8'], ['mem', '16000'], ['tags', 'ssd'], ['not_tags', 'gpu'], ['not_in_zone', 'az1'], ['not_in_pool', 'gpu'], ['dry_run', 'true']]));
  t.is(m.hostname, 'node-06');
  t.is(sim.machine('node-06')?.status_name, 'Ready', 'dry_run allocates nothing');
  const taken = ok<Machine>(await allocate(sim, [['system_id', id], ['agent_name', 'juju-1'], ['comment', 'for a test']]));
  t.is(taken.status_name, 'Allocated');
  const again = await allocate(sim, [['system_id', id]]);
  t.is(again.status, 409);
  t.is(again.text, `No machine with system ID ${id} available.`);
  const arch = await allocate(sim, [['arch', 'sparc']]);
  t.deepEqual(JSON.parse(arch.text), { arch: ['Architecture not recognised.'] });
});

test('maas machines list - filters: status, mac_address, agent_name, arch, owner and repeated ids', async (t) => {
  const sim = await started(t);
  const a = idOf(sim, 'node-01');
  const b = idOf(sim, 'node-05');
  ok(await allocate(sim, [['system_id', a], ['agent_name', 'juju-7']]));
  ok(await call(sim, 'POST', `machines/${b}/`, [['op', 'deploy']]));
  const list = async (query: string) => ok<Machine[]>(await call(sim, 'GET', `machines/?${query}`));
  t.deepEqual(hostnames(await list('status=allocated')), ['node-01']);
  t.deepEqual(hostnames(await list('status=allocated&status=deploying&status=deployed')), ['node-01', 'node-05']);
  t.is((await list('not_status=ready')).length, 2);
  t.deepEqual(hostnames(await list('agent_name=juju-7')), ['node-01']);
  t.deepEqual(hostnames(await list(`id=${a}&id=${b}`)), ['node-01', 'node-05']);
  t.deepEqual(hostnames(await list('owner=admin')), ['node-01', 'node-05']);
  t.is((await list('arch=amd64')).length, 12);
  const mac = ok<Array<{ interface_set: Array<{ mac_address: string }> }>>(await call(sim, 'GET', `machines/?id=${a}`))[0]?.interface_set[0]?.mac_address ?? '';
  t.deepEqual(hostnames(await list(`mac_address=${encodeURIComponent(mac.toUpperCase())}`)), ['node-01']);
  const badStatus = await call(sim, 'GET', 'machines/?status=sleeping');
  t.is(badStatus.status, 400);
  t.deepEqual(JSON.parse(badStatus.text), { status: ['Select a valid choice. sleeping is not one of the available choices.'] });
  const badMac = await call(sim, 'GET', 'machines/?mac_address=nope');
  t.deepEqual(JSON.parse(badMac.text), { mac_address: ['Invalid parameter: invalid MAC address format'] });
});

// AcquireNodeForm's subnets (_match_all) and not_subnets (_match_any exclude) look at the subnets
// of a machine's interface addresses (a Ready machine's boot NIC has an AUTO link on its zone's
// subnet); a specifier matching no subnet is "No matching subnets found.". gomaasapi's NotSpace
// sends not_subnets=space:<name>.
test('maas machines allocate - subnets and not_subnets filter by the subnets of the machine\'s links; unknown ones are 400', async (t) => {
  const sim = await started(t);
  const subnets = ok<Array<{ id: number; cidr: string }>>(await call(sim, 'GET', 'subnets/'));
  const az1 = subnets.find((s) => s.cidr === '10.10.1.0/24');
  const az2 = subnets.find((s) => s.cidr === '10.10.2.0/24');
  if (!az1 || !az2) return t.fail(`zone subnets: ${JSON.stringify(subnets)}`);
  const dry = (form: Form) => allocate(sim, [...form, ['dry_run', 'true']]);

  const inAz2 = ok<Machine>(await dry([['subnets', az2.cidr]]));
  t.is(sim.machine(inAz2.hostname)?.zone, 'az2');
  t.is(sim.machine(ok<Machine>(await dry([['subnets', `id:${az1.id}`]])).hostname)?.zone, 'az1');
  t.is(sim.machine(ok<Machine>(await dry([['not_subnets', az1.cidr]])).hostname)?.zone, 'az2');
  const both = await dry([['subnets', az1.cidr], ['subnets', az2.cidr]]);
  t.is(both.status, 409, 'no machine is on both zone subnets');
  t.regex(both.text, /\(resolved to "subnets=\d+,\d+"\)$/);
  const noSpace = await dry([['not_subnets', 'space:space-0']]);
  t.is(noSpace.status, 409, 'every machine has a link in space-0');
  t.is(noSpace.text, `No available machine matches constraints: [('not_subnets', ['space:space-0']), ('dry_run', ['true'])] (resolved to "not_subnets=${[az1.id, az2.id, ...subnets.map((s) => s.id)].filter((v, i, a) => a.indexOf(v) === i).sort((a, b) => a - b).join(',')}")`);
  for (const [field, spec] of [['subnets', 'space:nosuch'], ['not_subnets', '192.0.2.0/24']] as const) {
    const r = await dry([[field, spec]]);
    t.deepEqual([r.status, JSON.parse(r.text) as unknown], [400, { [field]: ['No matching subnets found.'] }], spec);
  }
});
