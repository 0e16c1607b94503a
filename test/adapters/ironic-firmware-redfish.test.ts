import test from 'ava';
import { createIronicClient } from '../../src/adapters/ironic/client/index.ts';
import type { IronicClient } from '../../src/adapters/ironic/client/index.ts';
import { createIronicProvisioner } from '../../src/adapters/ironic/provisioner/index.ts';
import type { OpResult } from '../../src/machines/bmh/index.ts';
import type { HostData, Provisioner } from '../../src/ports/index.ts';
import { startVirtualDatacenter } from '../../src/sim/datacenter/index.ts';
import type { VirtualDatacenter } from '../../src/sim/datacenter/index.ts';
import { freePort, startIronic } from '../../src/sim/ironic/index.ts';
import type { IronicServer } from '../../src/sim/ironic/index.ts';
import type { SimSystemInfo } from '../../src/sim/redfish/index.ts';
import { ironicExpectations } from '../support/ironic-expect.ts';
import type { IronicExpectations } from '../support/ironic-expect.ts';

// The firmware read and a BIOS setting through the real `redfish` drivers of the installed
// Ironic (21.4 on Debian 12, 29.0 on Debian 13), on a server of the virtual datacenter: what
// Ironic's redfish BIOS (and, from API 1.86, firmware) interface cached from the simulated BMC is
// what the provisioner reports, and a prepare changes the simulated BIOS.

const it = {} as { dc: VirtualDatacenter; ironic: IronicServer; client: IronicClient; p: Provisioner; want: IronicExpectations };

test.before(async () => {
  const port = await freePort();
  it.dc = await startVirtualDatacenter({ systems: [{ id: 'fw-rf' }], ironicUrl: `http://127.0.0.1:${port}`, heartbeatIntervalMs: 1_000, minHeartbeatGapMs: 200, tls: false });
  it.ironic = await startIronic({ port, bootServer: it.dc.bootServer });
  it.client = createIronicClient({ endpoint: it.ironic.url, timeoutMs: 10_000 });
  await it.client.connect();
  it.want = await ironicExpectations(it.client);
  it.p = createIronicProvisioner({ client: it.client, deploy: it.dc.deployImages, polls: { shortMs: 100, longMs: 200 }, imageCheck: { enabled: false } });
});

test.after.always(async () => {
  it.client?.close();
  await it.ironic?.stop();
  await it.dc?.stop();
});

function hostOf(sys: SimSystemInfo, provisionerId = ''): HostData {
  return {
    key: 'lab/fw-rf', namespace: 'lab', name: 'fw-rf', uid: 'uid-fw-rf', provisionerId, credentials: { username: sys.username, password: sys.password },
    spec: { online: true, bootMode: 'UEFI', automatedCleaningMode: 'disabled', bmc: { address: sys.address, credentialsName: 'bmc-fw-rf' }, bootMACAddress: sys.macs[0] ?? '' },
  };
}

async function settle(op: () => Promise<OpResult>, timeoutMs = 120_000): Promise<OpResult> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const r = await op();
    if (r.kind !== 'continuing') return r;
    if (Date.now() > deadline) throw new Error(`still continuing after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, r.afterMs));
  }
}

test.serial('ironic firmware redfish - the read reports the simulated BIOS as Ironic cached it; prepare changes a setting on the BMC', async (t) => {
  const sys = it.dc.systems[0]!;
  const registered = await settle(() => it.p.register(hostOf(sys), { op: 'register', restartOnFailure: false, credentialsChanged: false }));
  if (registered.kind !== 'done') return t.fail(JSON.stringify(registered));
  const h = hostOf(sys, registered.provisionerId ?? '');
  const read = await it.p.firmware!(h, { op: 'firmware' });
  if (read.kind !== 'done' || !read.firmware) return t.fail(JSON.stringify(read));
  const simulated = it.dc.server(sys.id).system.state.bios.current;
  // Ironic keeps every value as a string (objects/bios.py BIOSSetting.value), a boolean as "1" or "0".
  const asIronicKeeps = (v: unknown): string => (typeof v === 'boolean' ? (v ? '1' : '0') : String(v));
  t.deepEqual(read.firmware.settings, Object.fromEntries(Object.entries(simulated).map(([k, v]) => [k, asIronicKeeps(v)])));
  if (it.want.firmwareComponents) {
    // Ironic's redfish firmware interface caches the System's BiosVersion and the Manager's
    // FirmwareVersion when the node is verified (redfish/firmware.py cache_firmware_components,
    // conductor/utils.py node_cache_firmware_components); NICs are not read up to 29.0.
    const fw = it.dc.server(sys.id).system.state.firmware;
    const seen = (read.firmware.components ?? []).map((c) => [c.component, c.initialVersion, c.currentVersion]).sort();
    t.deepEqual(seen, [['bios', fw.BIOS, fw.BIOS], ['bmc', fw.BMC, fw.BMC]]);
  } else {
    t.is(read.firmware.components, undefined, 'no firmware list before API 1.86');
  }

  const prepared = await settle(() => it.p.prepare(h, { op: 'prepare', restartOnFailure: false, raid: { target: null, actual: null }, firmware: { settings: { LogicalProc: 'Disabled' }, updates: [] } }));
  t.deepEqual(prepared, { kind: 'done' });
  t.is(it.dc.server(sys.id).system.state.bios.current['LogicalProc'], 'Disabled');
  t.like(await it.p.firmware!(h, { op: 'firmware' }), { kind: 'done', firmware: { settings: { LogicalProc: 'Disabled' } } });
});
