// A RAID controller's drives hold only so much: a volume takes its share of each of its drives, and a
// new volume fits in what the others left, as on a real controller (which refuses a volume on drives
// already full). Ironic's redfish raid interface counts free space from the drive sizes alone, so it
// relies on the BMC to refuse a configuration that does not fit beside the volumes already there.
import test from 'ava';
import { startRedfishSim } from '../../src/sim/redfish/index.ts';
import type { SimSystemInfo } from '../../src/sim/redfish/index.ts';

const basic = (s: SimSystemInfo) => `Basic ${Buffer.from(`${s.username}:${s.password}`).toString('base64')}`;
const GB = 1_000_000_000;

async function call(url: string, info: SimSystemInfo, method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url + path, { method, headers: { authorization: basic(info), 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  const text = await res.text();
  return { status: res.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

type Info = { MessageId: string; Message: string; RelatedProperties?: string[] };
const messageOf = (body: Record<string, unknown>): Info | undefined => ((body.error as { '@Message.ExtendedInfo'?: Info[] } | undefined)?.['@Message.ExtendedInfo'] ?? [])[0];

test('redfish volume space - a volume fits in what the volumes already on its drives left, and a deleted one frees its share', async (t) => {
  const sim = await startRedfishSim({ systems: [{ id: 'n1' }] });
  t.teardown(() => sim.stop());
  const a = sim.systems[0] as SimSystemInfo;
  const vols = `${a.systemPath}/Storage/1/Volumes`;
  const on = (...ids: string[]) => ({ Drives: ids.map((id) => ({ '@odata.id': `${a.systemPath}/Storage/1/Drives/${id}` })) });
  const volumes = () => sim.system('n1').state.volumes.map((v) => [v.raidType, v.capacityBytes]);

  // Disk0 and Disk1 are 480 GB SSDs: a full-size mirror leaves nothing on either.
  t.is((await call(sim.url, a, 'POST', vols, { RAIDType: 'RAID1', CapacityBytes: 480 * GB, Links: on('Disk0', 'Disk1') })).status, 201);
  const full = await call(sim.url, a, 'POST', vols, { RAIDType: 'RAID1', CapacityBytes: 1 * GB, Links: on('Disk0', 'Disk1') });
  t.is(full.status, 400, 'a second mirror on full drives');
  t.like(messageOf(full.body), { MessageId: 'Base.1.8.PropertyValueConflict', RelatedProperties: ['#/CapacityBytes'] });
  t.regex(messageOf(full.body)?.Message ?? '', /Disk0/);
  const single = await call(sim.url, a, 'POST', vols, { RAIDType: 'RAID0', Links: on('Disk1') });
  t.is(single.status, 400, 'a volume of the whole free space of a full drive');
  t.deepEqual(volumes(), [['RAID1', 480 * GB]], 'the refusals made nothing');

  // Disk2 and Disk3 are 1920 GB: a 1000 GB stripe takes 500 GB of each; a mirror of the rest fits,
  // and with no CapacityBytes it is the rest.
  t.is((await call(sim.url, a, 'POST', vols, { RAIDType: 'RAID0', CapacityBytes: 1000 * GB, Links: on('Disk2', 'Disk3') })).status, 201);
  t.is((await call(sim.url, a, 'POST', vols, { RAIDType: 'RAID1', CapacityBytes: 1421 * GB, Links: on('Disk2', 'Disk3') })).status, 400, 'more than the 1420 GB left');
  const rest = await call(sim.url, a, 'POST', vols, { RAIDType: 'RAID1', Links: on('Disk2', 'Disk3') });
  t.is(rest.status, 201);
  t.is(rest.body.CapacityBytes, 1420 * GB);

  // Deleting the first mirror frees Disk0 and Disk1 again.
  t.is((await call(sim.url, a, 'DELETE', `${vols}/1`)).status, 204);
  t.is((await call(sim.url, a, 'POST', vols, { RAIDType: 'RAID1', CapacityBytes: 480 * GB, Links: on('Disk0', 'Disk1') })).status, 201);
  t.deepEqual(volumes(), [['RAID0', 1000 * GB], ['RAID1', 1420 * GB], ['RAID1', 480 * GB]]);
});
