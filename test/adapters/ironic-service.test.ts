import test from 'ava';
import type { BiosSetting, IronicClient, IronicNode } from '../../src/adapters/ironic/client/index.ts';
import { createIronicProvisioner } from '../../src/adapters/ironic/provisioner/index.ts';
import type { FirmwareChanges } from '../../src/api/index.ts';
import type { HostData } from '../../src/ports/index.ts';

// The Ironic provisioner's servicing as BMO's Service (pkg/provisioner/ironic/servicing.go)
// walks Ironic's service states, against a client whose node the test moves by hand: which
// requests go out in each state, and what the host is told.

function host(): HostData {
  return {
    key: 'ns/h1', namespace: 'ns', name: 'h1', uid: 'u1', provisionerId: 'node-1', credentials: { username: 'admin', password: 'pw' },
    spec: { online: true, bootMode: 'UEFI', automatedCleaningMode: 'metadata', bmc: { address: 'redfish://10.0.0.1/redfish/v1/Systems/1', credentialsName: 'c' }, bootMACAddress: '52:54:00:00:00:01' },
  };
}

const v = (minor: number) => ({ major: 1, minor, text: `1.${minor}` });

/** A client at API 1.`minor` whose one node is `node` (the test changes it); writes are listed. */
function rig(minor: number, node: Partial<IronicNode>, bios: BiosSetting[] = []) {
  const writes: string[] = [];
  const state = { node: { uuid: 'node-1', name: 'ns~h1', provision_state: 'active', driver: 'redfish', bios_interface: 'redfish', ...node } as IronicNode };
  const write = (name: string) => async (...args: unknown[]) => {
    writes.push(`${name} ${JSON.stringify(args.slice(1))}`);
  };
  const client = {
    endpoint: 'http://ironic.test',
    stats: { byRouteStatus: {} },
    version: v(minor),
    negotiated: async () => ({ version: v(minor), serverMax: v(minor) }),
    getNode: async () => state.node,
    getBiosSettings: async () => bios,
    getInventory: async () => null,
    setProvisionState: write('setProvisionState'),
    unsetMaintenance: write('unsetMaintenance'),
  } as unknown as IronicClient;
  const p = createIronicProvisioner({ client, imageCheck: { enabled: false }, polls: { shortMs: 3, longMs: 10 } });
  const move = (n: Partial<IronicNode>) => void (state.node = { ...state.node, ...n });
  return { p, writes, move };
}

const changes: FirmwareChanges = { settings: { ProcVirtualization: 'Disabled', NumCoresPerProc: '8' }, updates: [{ component: 'bmc', url: 'http://fw.lab/bmc.bin' }] };
const svc = (firmware: FirmwareChanges, restartOnFailure = false) => ({ op: 'service', restartOnFailure, firmware }) as const;

test('ironic service - from active: service with the BIOS and firmware steps, wait, and done once active again', async (t) => {
  const bios: BiosSetting[] = [{ name: 'ProcVirtualization', value: 'Enabled', attribute_type: 'Enumeration' }, { name: 'NumCoresPerProc', value: '0', attribute_type: 'Integer' }];
  const { p, writes, move } = rig(93, {}, bios);
  t.deepEqual(await p.service!(host(), svc(changes)), { kind: 'continuing', afterMs: 10 });
  t.deepEqual(writes, [`setProvisionState ${JSON.stringify(['service', { serviceSteps: [
    // An Integer in the registry goes out as a number.
    { interface: 'bios', step: 'apply_configuration', args: { settings: [{ name: 'NumCoresPerProc', value: 8 }, { name: 'ProcVirtualization', value: 'Disabled' }] } },
    { interface: 'firmware', step: 'update', args: { settings: [{ component: 'bmc', url: 'http://fw.lab/bmc.bin' }] } },
  ] }])}`]);
  move({ provision_state: 'servicing', target_provision_state: 'active' });
  t.deepEqual(await p.service!(host(), svc(changes)), { kind: 'continuing', afterMs: 10 });
  move({ provision_state: 'service wait' });
  t.deepEqual(await p.service!(host(), svc(changes)), { kind: 'continuing', afterMs: 10 });
  move({ provision_state: 'active', target_provision_state: null });
  t.deepEqual(await p.service!(host(), svc(changes)), { kind: 'done' });
  t.is(writes.length, 1);
});

test('ironic service - a service a previous owner started (its mark gone with it) is done once active, never sent again', async (t) => {
  const bios: BiosSetting[] = [{ name: 'ProcVirtualization', value: 'Enabled', attribute_type: 'Enumeration' }];
  const { p, writes } = rig(93, {}, bios);
  t.deepEqual(await p.service!(host(), { ...svc(changes), started: true }), { kind: 'done' });
  t.deepEqual(writes, []);
  // Not started before: the same node gets the request.
  t.deepEqual(await p.service!(host(), { ...svc(changes), started: false }), { kind: 'continuing', afterMs: 10 });
  t.is(writes.length, 1);
});

test('ironic service - nothing differs: done without a request', async (t) => {
  const { p, writes } = rig(87, {}, [{ name: 'ProcVirtualization', value: 'Disabled' }]);
  t.deepEqual(await p.service!(host(), svc({ settings: { ProcVirtualization: 'Disabled' }, updates: [] })), { kind: 'done' });
  t.deepEqual(writes, []);
});

test('ironic service - service failed: last_error without restart; with it, maintenance cleared, then service again', async (t) => {
  const { p, writes, move } = rig(93, { provision_state: 'service failed', maintenance: true, fault: 'service failure', last_error: 'BMC refused the BIOS settings' });
  t.deepEqual(await p.service!(host(), svc(changes)), { kind: 'failed', message: 'servicing failed: BMC refused the BIOS settings (Ironic fault: service failure)' });
  t.deepEqual(writes, []);
  t.deepEqual(await p.service!(host(), svc(changes, true)), { kind: 'continuing', afterMs: 3 });
  t.deepEqual(writes, ['unsetMaintenance []']);
  move({ maintenance: false, fault: null });
  t.deepEqual(await p.service!(host(), svc(changes, true)), { kind: 'continuing', afterMs: 10 });
  t.regex(writes[1] ?? '', /^setProvisionState \["service",\{"serviceSteps":\[/);
});

test('ironic service - changes withdrawn: a failed or waiting service is aborted', async (t) => {
  const none = { settings: {}, updates: [] };
  // service failed --abort--> active is Ironic 32.0's (API 1.101; "Fix the ability to escape
  // service fail"): 23.0 to 31.x answer 400 to it, so it is not sent there, and the host says why.
  const failed = rig(101, { provision_state: 'service failed' });
  t.deepEqual(await failed.p.service!(host(), svc(none)), { kind: 'continuing', afterMs: 3 });
  t.deepEqual(failed.writes, ['setProvisionState ["abort"]']);
  for (const minor of [87, 96]) {
    const old = rig(minor, { provision_state: 'service failed', last_error: 'BMC refused the BIOS settings' });
    t.deepEqual(await old.p.service!(host(), svc(none)), {
      kind: 'failed',
      message: `aborting a failed servicing needs Ironic API 1.101 or later; this Ironic offers up to 1.${minor}: node ns~h1 stays in service failed (BMC refused the BIOS settings) until servicing is asked for again`,
      retryAfterMs: null,
    });
    t.deepEqual(old.writes, []);
  }
  const waiting = rig(87, { provision_state: 'service wait' });
  t.deepEqual(await waiting.p.service!(host(), svc(none)), { kind: 'continuing', afterMs: 3 });
  t.deepEqual(waiting.writes, ['setProvisionState ["abort"]']);
});

test('ironic service - a node not active is transient; BIOS settings on a node without a BIOS interface fail for good', async (t) => {
  const deploying = rig(93, { provision_state: 'deploying' });
  t.deepEqual(await deploying.p.service!(host(), svc(changes)), { kind: 'transient', message: 'servicing found Ironic node ns~h1 in state "deploying", not active or servicing' });
  const noBios = rig(93, { bios_interface: 'no-bios', driver: 'ipmi' });
  t.deepEqual(await noBios.p.service!(host(), svc(changes)), { kind: 'failed', message: 'BIOS settings are defined, but the node\'s driver ipmi has no BIOS interface (bios_interface "no-bios")', retryAfterMs: null });
  t.deepEqual([...deploying.writes, ...noBios.writes], []);
});

test('ironic service - refused below 1.87 (firmware updates below 1.93) naming the version, and prepare refuses updates below 1.86, nothing sent', async (t) => {
  const old = rig(86, {});
  t.deepEqual(await old.p.service!(host(), svc(changes)), { kind: 'failed', message: 'servicing needs Ironic API 1.87 or later; this Ironic offers up to 1.86', retryAfterMs: null });
  // Ironic 23.0 (1.87) services, but runs firmware.update as a service step only from 26.1 (1.93).
  const noFirmwareStep = rig(87, {});
  t.deepEqual(await noFirmwareStep.p.service!(host(), svc(changes)), { kind: 'failed', message: 'a firmware update while servicing needs Ironic API 1.93 or later; this Ironic offers up to 1.87', retryAfterMs: null });
  t.deepEqual(noFirmwareStep.writes, []);
  const older = rig(85, { provision_state: 'manageable' });
  t.deepEqual(await older.p.prepare(host(), { op: 'prepare', restartOnFailure: false, raid: { target: null, actual: null }, firmware: changes }), { kind: 'failed', message: 'a firmware update needs Ironic API 1.86 or later; this Ironic offers up to 1.85', retryAfterMs: null });
  t.deepEqual([...old.writes, ...older.writes], []);
});
