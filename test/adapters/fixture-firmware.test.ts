import test from 'ava';
import type { BareMetalHostSpec, FirmwareChanges } from '../../src/api/index.ts';
import { createFixtureProvisioner, startFixtureServer, createRemoteFixtureProvisioner } from '../../src/adapters/fixture/index.ts';
import type { FixtureProvisioner } from '../../src/adapters/fixture/index.ts';
import { createRoutedProvisioner } from '../../src/adapters/routed/index.ts';
import type { HostData, Provisioner } from '../../src/ports/index.ts';
import { invoke } from '../../src/ports/index.ts';

// The fixture's BIOS settings and firmware: a canned registry, prepare with firmware changes,
// servicing an active host in place, the firmware read, failure injection for both, and the same
// over the remote fixture's wire and through the routed provisioner.

function hostData(name: string): HostData {
  const spec: BareMetalHostSpec = {
    online: true, bootMode: 'UEFI', automatedCleaningMode: 'metadata',
    bmc: { address: 'redfish://192.0.2.1/redfish/v1/Systems/1', credentialsName: `${name}-bmc` },
    image: { url: 'http://images/os.qcow2', checksum: 'abc', checksumType: 'sha256' },
  };
  return { key: `metal3/${name}`, namespace: 'metal3', name, uid: `uid-${name}`, provisionerId: '', spec, credentials: { username: 'admin', password: 'pw-secret' } };
}

const NONE: FirmwareChanges = { settings: {}, updates: [] };
const prepare = (firmware?: FirmwareChanges) => ({ op: 'prepare', restartOnFailure: false, raid: { target: null, actual: null }, ...(firmware ? { firmware } : {}) }) as const;
const service = (firmware: FirmwareChanges, restartOnFailure = false) => ({ op: 'service', restartOnFailure, firmware }) as const;
const PROVISION = { op: 'provision', image: { url: 'http://images/os.qcow2', checksum: 'abc' }, customDeploy: undefined, bootMode: 'UEFI', rootDeviceHints: undefined } as const;

async function provisioned(p: Provisioner, h: HostData, firmware?: FirmwareChanges): Promise<void> {
  await p.register(h, { op: 'register', restartOnFailure: false, credentialsChanged: false });
  await p.inspect(h, { op: 'inspect', restartOnFailure: false, refresh: false });
  const prepared = await p.prepare(h, prepare(firmware));
  if (prepared.kind !== 'done') throw new Error(`prepare: ${JSON.stringify(prepared)}`);
  await p.provision(h, PROVISION);
}

test('fixture firmware - the read gives canned settings, their registry, vendor, model and components', async (t) => {
  const p = createFixtureProvisioner();
  const h = hostData('fw-0');
  t.deepEqual(await p.firmware(h, { op: 'firmware' }), { kind: 'needsRegistration' });
  await p.register(h, { op: 'register', restartOnFailure: false, credentialsChanged: false });
  const r = await p.firmware(h, { op: 'firmware' });
  if (r.kind !== 'done' || !r.firmware) return t.fail(JSON.stringify(r));
  t.is(r.firmware.settings['ProcVirtualization'], 'Enabled');
  t.deepEqual(r.firmware.schema?.['ProcVirtualization'], { attribute_type: 'Enumeration', allowable_values: ['Enabled', 'Disabled'], read_only: false });
  t.like(r.firmware, { vendor: 'metalfleet', model: 'Fixture Server' });
  t.deepEqual(r.firmware.components?.map((c) => [c.component, c.currentVersion]), [['bios', '1.0'], ['bmc', '1.0']]);
  // A read changes nothing.
  t.is(p.starts(h.key).firmware, 0);
  t.is(p.calls(h.key).firmware, 2);
});

test('fixture firmware - prepare applies settings and updates before the host is available', async (t) => {
  const p = createFixtureProvisioner({ clock: { setTimeout: (fn) => setTimeout(fn, 0), now: () => Date.UTC(2026, 0, 2) } });
  const h = hostData('fw-1');
  await provisioned(p, h, { settings: { ProcTurboMode: 'Disabled', NumCoresPerProc: '16' }, updates: [{ component: 'bmc', url: 'http://fw.lab/bmc-2.1.bin' }] });
  const r = await p.firmware(h, { op: 'firmware' });
  t.like(r, { kind: 'done', firmware: { settings: { ProcTurboMode: 'Disabled', NumCoresPerProc: '16', BootMode: 'Uefi' } } });
  const bmc = r.kind === 'done' ? r.firmware?.components?.find((c) => c.component === 'bmc') : undefined;
  t.deepEqual(bmc, { component: 'bmc', initialVersion: '1.0', currentVersion: 'bmc-2.1', lastVersionFlashed: 'bmc-2.1', updatedAt: '2026-01-02T00:00:00.000Z' });
  // Another host still has the canned settings.
  const other = hostData('fw-1b');
  await p.register(other, { op: 'register', restartOnFailure: false, credentialsChanged: false });
  t.like(await p.firmware(other, { op: 'firmware' }), { kind: 'done', firmware: { settings: { ProcTurboMode: 'Enabled' } } });
});

test('fixture firmware - a setting the registry refuses fails preparation and changes nothing', async (t) => {
  const p = createFixtureProvisioner();
  const h = hostData('fw-2');
  await p.register(h, { op: 'register', restartOnFailure: false, credentialsChanged: false });
  const cases: [FirmwareChanges, string][] = [
    [{ settings: { ProcTurboMode: 'Maybe' }, updates: [] }, 'BIOS setting "ProcTurboMode" cannot be "Maybe" (allowed: Enabled, Disabled)'],
    [{ settings: { NumCoresPerProc: '65' }, updates: [] }, 'BIOS setting "NumCoresPerProc" must be a whole number from 0 to 64, not "65"'],
    [{ settings: { SerialNumber: 'X' }, updates: [] }, 'BIOS setting "SerialNumber" is read-only'],
    [{ settings: { Nope: '1' }, updates: [] }, 'BIOS setting "Nope" is not in the BIOS registry (known: BootMode, ProcVirtualization, ProcTurboMode, NumCoresPerProc, AssetTag, SerialNumber)'],
    [{ settings: { ProcTurboMode: 'Disabled' }, updates: [{ component: 'nic:1', url: 'http://fw/nic.bin' }] }, 'firmware component "nic:1" is not one this BMC has (bios, bmc)'],
  ];
  for (const [changes, why] of cases) {
    t.deepEqual(await p.prepare(h, prepare(changes)), { kind: 'failed', message: `preparation of metal3/fw-2 failed: ${why}` });
  }
  t.is(p.node(h.key)?.provisionState, 'manageable');
  t.like(await p.firmware(h, { op: 'firmware' }), { kind: 'done', firmware: { settings: { ProcTurboMode: 'Enabled' } } });
});

test('fixture firmware - servicing keeps an active host active, deployed once, and changes its firmware', async (t) => {
  const p = createFixtureProvisioner();
  const h = hostData('fw-3');
  await provisioned(p, h);
  t.like(p.node(h.key), { provisionState: 'active', provisionCount: 1, power: true });
  t.deepEqual(await p.service(h, service({ settings: { ProcVirtualization: 'Disabled' }, updates: [{ component: 'bios', url: 'http://fw.lab/bios-1.2.bin' }] })), { kind: 'done', poweredOn: true });
  t.like(p.node(h.key), { provisionState: 'active', provisionCount: 1, power: true });
  const r = await p.firmware(h, { op: 'firmware' });
  t.like(r, { kind: 'done', firmware: { settings: { ProcVirtualization: 'Disabled' } } });
  t.is(r.kind === 'done' ? r.firmware?.components?.find((c) => c.component === 'bios')?.currentVersion : undefined, 'bios-1.2');
  t.is(p.starts(h.key).service, 1);
  // The same changes again: nothing left to do, nothing started, still deployed once.
  t.deepEqual(await p.service(h, service({ settings: { ProcVirtualization: 'Disabled' }, updates: [] })), { kind: 'done', poweredOn: true });
  t.is(p.starts(h.key).service, 1);
  t.deepEqual(p.deployedTwice(), []);
});

test('fixture firmware - servicing a host that is not provisioned fails; a refused setting leaves it active', async (t) => {
  const p = createFixtureProvisioner();
  const h = hostData('fw-4');
  await p.register(h, { op: 'register', restartOnFailure: false, credentialsChanged: false });
  t.deepEqual(await p.service(h, service({ settings: { ProcVirtualization: 'Disabled' }, updates: [] })), { kind: 'failed', message: 'servicing metal3/fw-4 needs a provisioned host; its node is manageable' });
  await p.inspect(h, { op: 'inspect', restartOnFailure: false, refresh: false });
  await p.prepare(h, prepare());
  await p.provision(h, PROVISION);
  t.deepEqual(await p.service(h, service({ settings: { BootMode: 'Legacy' }, updates: [] })), { kind: 'failed', message: 'servicing of metal3/fw-4 failed: BIOS setting "BootMode" cannot be "Legacy" (allowed: Uefi, Bios)' });
  t.like(p.node(h.key), { provisionState: 'active', provisionCount: 1 });
  // Fixed, it succeeds.
  t.like(await p.service(h, service({ settings: { BootMode: 'Bios' }, updates: [] }, true)), { kind: 'done' });
});

test('fixture firmware - service and firmware take injected failures, transients and latency like every call', async (t) => {
  const failing = createFixtureProvisioner({ failHosts: { 'fw-5': ['service', 'firmware'] } });
  const h = hostData('fw-5');
  await provisioned(failing, h);
  t.deepEqual(await failing.service(h, service(NONE)), { kind: 'failed', message: 'injected service failure' });
  t.deepEqual(await failing.firmware(h, { op: 'firmware' }), { kind: 'failed', message: 'injected firmware failure' });
  t.like(failing.node(h.key), { provisionState: 'active', provisionCount: 1 });
  const flaky = createFixtureProvisioner({ transientRate: { service: 1 }, random: () => 0 });
  await provisioned(flaky, h);
  t.deepEqual(await flaky.service(h, service(NONE)), { kind: 'transient', message: 'injected service transient error' });
  const slow = createFixtureProvisioner({ latencyMs: { firmware: 5 } });
  await provisioned(slow, h);
  const started = Date.now();
  t.like(await slow.firmware(h, { op: 'firmware' }), { kind: 'done' });
  t.true(Date.now() - started >= 4);
  t.throws(() => createFixtureProvisioner({ failureRate: { service: 2 } }), { message: /failureRate\.service: must be between 0 and 1/ });
});

test('fixture firmware - the remote fixture carries service and firmware over its wire', async (t) => {
  const server = await startFixtureServer({ options: { demoBehaviours: false } });
  const client = await createRemoteFixtureProvisioner({ url: server.url });
  t.teardown(async () => {
    await client.close?.();
    await server.close();
  });
  const h = hostData('fw-6');
  await provisioned(client, h, { settings: { AssetTag: 'rack-7' }, updates: [] });
  t.like(await client.firmware!(h, { op: 'firmware' }), { kind: 'done', firmware: { settings: { AssetTag: 'rack-7' }, vendor: 'metalfleet' } });
  t.deepEqual(await client.service!(h, service({ settings: { AssetTag: 'rack-8' }, updates: [] })), { kind: 'done', poweredOn: true });
  t.like(await client.firmware!(h, { op: 'firmware' }), { kind: 'done', firmware: { settings: { AssetTag: 'rack-8' } } });
  t.like(server.fixture.node(h.key), { provisionState: 'active', provisionCount: 1 });
});

test('fixture firmware - the routed provisioner passes service and firmware to the host\'s backend, or says it cannot', async (t) => {
  const a: FixtureProvisioner = createFixtureProvisioner();
  // A backend without the optional methods (as an older plugin).
  const older = createFixtureProvisioner();
  const withoutFirmware: Provisioner = {
    name: 'older', capacity: (x) => older.capacity(x), register: (x, y) => older.register(x, y), inspect: (x, y) => older.inspect(x, y),
    prepare: (x, y) => older.prepare(x, y), provision: (x, y) => older.provision(x, y), deprovision: (x, y) => older.deprovision(x, y),
    adopt: (x, y) => older.adopt(x, y), powerOn: (x, y) => older.powerOn(x, y), powerOff: (x, y) => older.powerOff(x, y),
    hardwareState: (x, y) => older.hardwareState(x, y), detach: (x, y) => older.detach(x, y), delete: (x, y) => older.delete(x, y),
  };
  const routed = createRoutedProvisioner({ routes: new Map<string, Provisioner>([['a', a], ['old', withoutFirmware]]), label: 'backend' });
  const h = { ...hostData('fw-7'), labels: { backend: 'a' } };
  await provisioned(routed, h);
  t.like(await invoke(routed, h, { op: 'firmware' }), { kind: 'done', firmware: { vendor: 'metalfleet' } });
  t.like(await invoke(routed, h, service({ settings: { ProcTurboMode: 'Disabled' }, updates: [] })), { kind: 'done' });
  t.is(a.starts(h.key).service, 1);
  const o = { ...hostData('fw-8'), labels: { backend: 'old' } };
  await provisioned(routed, o);
  t.deepEqual(await invoke(routed, o, service(NONE)), { kind: 'failed', message: 'the older provisioner cannot service hosts (firmware changes on a provisioned host)', retryAfterMs: null });
  // No firmware method is no firmware to tell (the plugin contract): nothing read, nothing to warn of.
  t.deepEqual(await invoke(routed, o, { op: 'firmware' }), { kind: 'done' });
});
