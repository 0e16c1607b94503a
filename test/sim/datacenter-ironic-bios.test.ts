// The installed, real Ironic reads the simulated BIOS attribute registry through its redfish bios
// interface (API 1.74 registry fields) and applies and resets BIOS settings in manual cleans,
// which the simulated firmware takes at the reboot Ironic does; its management interface's
// update_firmware clean step flashes through the simulated UpdateService. None of this differs
// between Debian 12's 21.4 and Debian 13's 29.0: at both tags redfish/bios.py apply_configuration
// passes each value through untyped, and redfish/management.py update_firmware is the same clean
// step that verifies a checksum only for an image it copies, not for an http image served from
// where it is (firmware_source=http, the default).
import test from 'ava';
import { HAVE_IRONIC, startDatacenterIronic } from './datacenter/fixture.ts';
import type { DatacenterIronic } from './datacenter/fixture.ts';
import { ironicExpectationsAt } from '../support/ironic-expect.ts';
import { raw } from '../support/ironic-api/raw.ts';

const run = HAVE_IRONIC ? test : test.skip;
let env: DatacenterIronic;

interface Setting { name: string; value: string | null; attribute_type?: string | null; allowable_values?: string[] | null; lower_bound?: number | null; upper_bound?: number | null; min_length?: number | null; max_length?: number | null; read_only?: boolean | null; reset_required?: boolean | null; unique?: boolean | null }

test.before(async () => {
  if (!HAVE_IRONIC) return;
  env = await startDatacenterIronic({ systems: [{ id: 'registry' }, { id: 'apply' }, { id: 'typed' }, { id: 'other-model', model: 'SIM-2' }, { id: 'flash' }, { id: 'fw-iface' }],
    sushyRegistries: true,
    // Ironic polls a firmware update's task every 60 s by default.
    ironicConfig: '[redfish]\nfirmware_update_status_interval = 1\nfirmware_update_fail_interval = 1\n',
  });
});
test.after.always(async () => {
  await env?.stop();
});

function systemInfo(id: string) {
  const sys = env.dc.systems.find((s) => s.id === id);
  if (sys === undefined) throw new Error(`no system ${id}`);
  return sys;
}

async function managed(id: string): Promise<string> {
  const { uuid } = await env.api.enrol(env.dc, systemInfo(id), { name: id, boot: 'ipxe' });
  await env.api.provision(uuid, 'manage');
  await env.api.waitProvision(uuid, 'manageable');
  return uuid;
}

async function settings(uuid: string): Promise<Record<string, Setting>> {
  const { bios } = await env.api.call<{ bios: Setting[] }>('GET', `/nodes/${uuid}/bios?detail=True`);
  return Object.fromEntries(bios.map((s) => [s.name, s]));
}

run('datacenter ironic bios - a managed node\'s BIOS settings carry the registry fields (API 1.74)', async (t) => {
  const uuid = await managed('registry');
  const s = await settings(uuid);
  const system = env.dc.server('registry').system;
  t.deepEqual(Object.keys(s).sort(), system.model.registry.attributes.map((a) => a.name).sort());
  t.like(s.ProcVirtualization, { value: 'Enabled', attribute_type: 'Enumeration', allowable_values: ['Enabled', 'Disabled'], read_only: false, reset_required: true, unique: false });
  t.like(s.BootDelaySeconds, { value: '0', attribute_type: 'Integer', lower_bound: 0, upper_bound: 60 });
  t.like(s.SerialNumber, { value: system.hardware.serial, attribute_type: 'String', read_only: true, unique: true, max_length: 32 });
  t.like(s.AssetTag, { attribute_type: 'String', min_length: 0, max_length: 16 });
  t.like(s.AdminPassword, { attribute_type: 'Password', min_length: 8, max_length: 32 });
  t.like(s.SecureBootAllowed, { attribute_type: 'Boolean' });
});

run('datacenter ironic bios - apply_configuration in a manual clean changes the simulated BIOS at Ironic\'s reboot; factory_reset restores the defaults', async (t) => {
  const { api, dc } = env;
  const uuid = await managed('apply');
  const system = dc.server('apply').system;
  const bootsBefore = system.state.boots;
  // Ironic (21.4 as 29.0) sends each value as given: an Integer attribute needs a JSON number (see the next test).
  const wanted = [{ name: 'ProcVirtualization', value: 'Disabled' }, { name: 'BootDelaySeconds', value: 7 }, { name: 'AssetTag', value: 'rack-7' }, { name: 'SecureBootAllowed', value: false }];
  await api.provision(uuid, 'clean', { clean_steps: [{ interface: 'bios', step: 'apply_configuration', args: { settings: wanted } }] });
  let node = await api.waitProvision(uuid, 'manageable', 120_000);
  t.is(node.last_error, null);
  t.like(system.state.bios.current, { ProcVirtualization: 'Disabled', BootDelaySeconds: 7, AssetTag: 'rack-7', SecureBootAllowed: false });
  t.deepEqual(system.state.bios.pending, {}, 'applied at a boot, nothing left pending');
  t.true(system.state.boots > bootsBefore, 'the simulated server rebooted');
  // Ironic re-read the BIOS after the step (its cache_bios_settings decorator).
  let s = await settings(uuid);
  t.like(s, { ProcVirtualization: { value: 'Disabled' }, BootDelaySeconds: { value: '7' }, AssetTag: { value: 'rack-7' }, SecureBootAllowed: { value: '0' } });
  t.is(s.BootDelaySeconds?.upper_bound, 60, 'registry fields kept after the update');

  await api.provision(uuid, 'clean', { clean_steps: [{ interface: 'bios', step: 'factory_reset' }] });
  node = await api.waitProvision(uuid, 'manageable', 120_000);
  t.is(node.last_error, null);
  t.like(system.state.bios.current, { ProcVirtualization: 'Enabled', BootDelaySeconds: 0, AssetTag: '', SecureBootAllowed: true, SerialNumber: system.hardware.serial });
  s = await settings(uuid);
  t.like(s, { ProcVirtualization: { value: 'Enabled' }, BootDelaySeconds: { value: '0' }, AssetTag: { value: '' }, SecureBootAllowed: { value: '1' } });
});

run('datacenter ironic bios - Ironic passes an integer given as a string to the BMC, which refuses it: the clean fails naming the attribute', async (t) => {
  const { api, dc } = env;
  const uuid = await managed('typed');
  const system = dc.server('typed').system;
  await api.provision(uuid, 'clean', { clean_steps: [{ interface: 'bios', step: 'apply_configuration', args: { settings: [{ name: 'BootDelaySeconds', value: '7' }] } }] });
  const node = await api.waitNode(uuid, (n) => n.provision_state === 'clean failed', 'clean to fail', 120_000);
  t.regex(node.last_error ?? '', /Redfish BIOS apply configuration failed/);
  t.regex(node.last_error ?? '', /returned code 400/);
  t.regex(node.last_error ?? '', /PropertyValueTypeError/);
  t.regex(node.last_error ?? '', /BootDelaySeconds/);
  t.is(system.state.bios.current.BootDelaySeconds, 0);
  t.deepEqual(system.state.bios.pending, {});
});

run('datacenter ironic bios - a server of another model brings its own registry', async (t) => {
  const uuid = await managed('other-model');
  const s = await settings(uuid);
  t.like(s.PowerProfile, { value: 'Balanced', attribute_type: 'Enumeration', allowable_values: ['MaxPerformance', 'Balanced', 'PowerSaving'] });
  t.like(s.BootRetryCount, { value: '3', attribute_type: 'Integer', lower_bound: 0, upper_bound: 10 });
  t.like(s.AssetTag, { max_length: 64 });
  t.is(s.SriovGlobalEnable, undefined);
});

run('datacenter ironic firmware - the update_firmware clean step flashes the BMC through SimpleUpdate; FirmwareInventory, Manager and System show the new versions', async (t) => {
  const { api, dc } = env;
  const uuid = await managed('flash');
  const system = dc.server('flash').system;
  const before = { ...system.state.firmware };
  // Ironic requires a checksum but, serving the image from its own URL (firmware_source=http), never checks it.
  const image = 'http://firmware.example/sim-bmc-5.01.bin';
  await api.provision(uuid, 'clean', { clean_steps: [{ interface: 'management', step: 'update_firmware', args: { firmware_images: [{ url: image, checksum: 'not-checked-for-http' }] } }] });
  const node = await api.waitProvision(uuid, 'manageable', 180_000);
  t.is(node.last_error, null);
  t.not(system.state.firmware.BMC, before.BMC);
  t.is(system.state.firmware.BIOS, before.BIOS, 'only the BMC image was flashed');
  t.is(node.driver_internal_info.firmware_updates, undefined, 'Ironic finished the update');
  const sys = systemInfo('flash');
  const auth = { authorization: `Basic ${Buffer.from(`${sys.username}:${sys.password}`).toString('base64')}` };
  const get = async (path: string) => (await (await fetch(`${sys.redfishAddress}${path}`, { headers: auth })).json()) as Record<string, unknown>;
  t.is((await get('/redfish/v1/UpdateService/FirmwareInventory/BMC-flash')).Version, system.state.firmware.BMC);
  t.is((await get('/redfish/v1/Managers/flash')).FirmwareVersion, system.state.firmware.BMC);
  t.is((await get(sys.systemPath)).BiosVersion, before.BIOS);
});

run('datacenter ironic firmware - firmware.update: a clean step of the redfish firmware interface from API 1.86 that flashes the BIOS, refused by the API before it', async (t) => {
  const { api, dc } = env;
  const want = await ironicExpectationsAt(env.ironic.url);
  const uuid = await managed('fw-iface');
  const system = dc.server('fw-iface').system;
  const before = { ...system.state.firmware };
  const step = { interface: 'firmware', step: 'update', args: { settings: [{ component: 'bios', url: 'http://firmware.example/sim-bios-7.02.bin' }] } };
  const asked = await raw(env.ironic.url, 'PUT', `/v1/nodes/${uuid}/states/provision`, { version: want.version, body: { target: 'clean', clean_steps: [step] } });
  if (!want.firmwareUpdate) {
    // 21.4's clean_steps schema knows no firmware interface (conductor/steps.py CLEANING_INTERFACE_PRIORITY).
    t.is(asked.status, 400);
    t.regex(asked.message ?? '', /'firmware' is not one of/);
    t.deepEqual(system.state.firmware, before, 'nothing flashed');
    return;
  }
  // From 22.1/23.0 the redfish firmware interface (the default for redfish nodes where it is
  // enabled, src/sim/ironic/config.ts) runs firmware.update through SimpleUpdate, in the ramdisk
  // (redfish/firmware.py update: requires_ramdisk), and caches the components again after it.
  t.is(asked.status, 202, asked.message ?? '');
  const node = await api.waitProvision(uuid, 'manageable', 300_000);
  t.is(node.last_error, null);
  t.not(system.state.firmware.BIOS, before.BIOS);
  t.is(system.state.firmware.BMC, before.BMC, 'only the BIOS image was flashed');
  const listed = await raw(env.ironic.url, 'GET', `/v1/nodes/${uuid}/firmware`, { version: want.version });
  const bios = (listed.json as { firmware: { component: string; current_version: string; initial_version: string }[] }).firmware.find((c) => c.component === 'bios');
  t.like(bios, { current_version: system.state.firmware.BIOS, initial_version: before.BIOS });
});
