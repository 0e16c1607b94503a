import test from 'ava';
import { startIronicApiServer } from '../support/ironic-api/index.ts';
import type { IronicApiServer } from '../support/ironic-api/index.ts';
import { firmwareVersionFromUrl } from '../support/ironic-api/firmware-version.ts';
import { raw } from '../support/ironic-api/raw.ts';

// GET /v1/nodes/{node}/firmware (1.86, api/controllers/v1/firmware.py), GET .../bios
// (bios.py, ?detail=True from 1.74), and the firmware.update clean step (redfish/firmware.py).

const V = '1.86';

async function manageable(t: { teardown(fn: () => unknown): void }, body: Record<string, unknown>): Promise<IronicApiServer> {
  const s = await startIronicApiServer({ maxVersion: V, clock: 'manual', hardware: { firmware: { bios: '1.0.0', bmc: '5.10' } } });
  t.teardown(() => s.close());
  await raw(s.url, 'POST', '/v1/nodes', { version: V, body: { name: 'fw', driver: 'redfish', ...body } });
  await raw(s.url, 'PUT', '/v1/nodes/fw/states/provision', { version: V, body: { target: 'manage' } });
  s.settle();
  return s;
}

const clean = (s: IronicApiServer, steps: unknown[]) => raw(s.url, 'PUT', '/v1/nodes/fw/states/provision', { version: V, body: { target: 'clean', clean_steps: steps } });
const update = (component: string, url: string) => ({ interface: 'firmware', step: 'update', args: { settings: [{ component, url }] } });

test('ironic-api firmware - the version rule: the first dotted number of the file name, else the name', (t) => {
  t.is(firmwareVersionFromUrl('http://fw.example/bmc-2.11.0.bin'), '2.11.0');
  t.is(firmwareVersionFromUrl('https://fw.example/v3/BIOS_v1.4.img'), '1.4', 'the path before the file name is ignored');
  t.is(firmwareVersionFromUrl('http://fw.example/latest'), 'latest');
});

test('ironic-api firmware - verification caches the components; GET answers them with their fields', async (t) => {
  const s = await manageable(t, { firmware_interface: 'redfish' });
  const a = await raw(s.url, 'GET', '/v1/nodes/fw/firmware', { version: V });
  t.is(a.status, 200);
  const list = (a.json as { firmware: Record<string, unknown>[] }).firmware;
  t.deepEqual(list.map((c) => c.component), ['bios', 'bmc'], 'redfish/firmware.py cache_firmware_components: bios and bmc');
  t.deepEqual(Object.keys(list[0] ?? {}).sort(), ['component', 'created_at', 'current_version', 'initial_version', 'last_version_flashed', 'updated_at']);
  t.like(list[1] ?? {}, { initial_version: '5.10', current_version: '5.10', last_version_flashed: null });
  const none = await manageable(t, {});
  t.deepEqual((await raw(none.url, 'GET', '/v1/nodes/fw/firmware', { version: V })).json, { firmware: [] }, 'no-firmware: nothing cached');
  t.is((await raw(s.url, 'GET', '/v1/nodes/nope/firmware', { version: V })).message, 'Node nope could not be found.');
});

test('ironic-api firmware - a firmware.update clean step flashes, asynchronously, and records the version', async (t) => {
  const s = await manageable(t, { firmware_interface: 'redfish' });
  t.is((await clean(s, [update('bmc', 'http://fw.example/bmc-6.0.1.bin')])).status, 202);
  const states: string[] = [s.node('fw')?.provisionState ?? ''];
  while (s.advance('fw') > 0) states.push(s.node('fw')?.provisionState ?? '');
  t.deepEqual(states, ['cleaning', 'clean wait', 'cleaning', 'clean wait', 'cleaning', 'manageable']);
  const bmc = s.node('fw')?.firmware.find((c) => c.component === 'bmc');
  t.like(bmc ?? {}, { initial_version: '5.10', current_version: '6.0.1', last_version_flashed: '6.0.1' });
  t.truthy(bmc?.updated_at);
});

test('ironic-api firmware - an unknown component fails the step; a missing argument fails validation', async (t) => {
  const s = await manageable(t, { firmware_interface: 'redfish' });
  await clean(s, [update('nic', 'http://fw.example/nic-1.2.bin')]);
  s.settle();
  t.is(s.node('fw')?.provisionState, 'clean failed');
  t.regex(String(s.node('fw')?.fields.last_error), /^Node [0-9a-f-]+ failed step \{'interface': 'firmware', 'step': 'update', .*\}: Firmware component 'nic' not found/);
  t.is(s.node('fw')?.fields.maintenance, true, 'a failed step sets maintenance');
  await raw(s.url, 'PUT', '/v1/nodes/fw/states/provision', { version: V, body: { target: 'manage' } });
  t.is((await clean(s, [{ interface: 'firmware', step: 'update' }])).status, 400, 'manager.py do_node_clean: not in maintenance');
  await raw(s.url, 'DELETE', '/v1/nodes/fw/maintenance', { version: V });
  t.is((await clean(s, [{ interface: 'firmware', step: 'update' }])).status, 202);
  s.settle();
  t.regex(String(s.node('fw')?.fields.last_error), /clean step \{'interface': 'firmware', 'step': 'update'\} is missing these required arguments: settings \(A list of dicts with firmware components to be updated\)$/);
});

test('ironic-api firmware - an abort during a firmware update waits for the step to end (not abortable)', async (t) => {
  const s = await manageable(t, { firmware_interface: 'redfish' });
  await clean(s, [update('bmc', 'http://fw.example/bmc-7.0.bin'), update('bios', 'http://fw.example/bios-2.0.bin')]);
  s.advance('fw'); // clean wait (ramdisk)
  s.advance('fw'); // cleaning
  s.advance('fw'); // the bmc update started: clean wait
  t.is(s.node('fw')?.provisionState, 'clean wait');
  t.is((await raw(s.url, 'PUT', '/v1/nodes/fw/states/provision', { version: V, body: { target: 'abort' } })).status, 202);
  t.is(s.node('fw')?.provisionState, 'clean wait', 'manager.py _do_abort: only flagged');
  s.settle();
  t.is(s.node('fw')?.provisionState, 'clean failed');
  t.is(s.node('fw')?.fields.last_error, 'By request, the clean operation was aborted during or after the completion of step "firmware.update"');
  t.is(s.node('fw')?.firmware.find((c) => c.component === 'bios')?.current_version, '1.0.0', 'the second update never ran');
});

test('ironic-api bios - settings, the registry with ?detail=True from 1.74, and apply_configuration refusing unknown names', async (t) => {
  const s = await manageable(t, {});
  const plain = await raw(s.url, 'GET', '/v1/nodes/fw/bios', { version: V });
  const first = (plain.json as { bios: Record<string, unknown>[] }).bios[0] ?? {};
  t.deepEqual(Object.keys(first).sort(), ['created_at', 'links', 'name', 'updated_at', 'value']);
  const detail = await raw(s.url, 'GET', '/v1/nodes/fw/bios?detail=True', { version: V });
  const turbo = (detail.json as { bios: Record<string, unknown>[] }).bios.find((b) => b.name === 'ProcTurboMode');
  t.like(turbo ?? {}, { value: 'Enabled', attribute_type: 'Enumeration', allowable_values: ['Enabled', 'Disabled'], read_only: false, lower_bound: null });
  t.deepEqual(Object.keys(turbo ?? {}).sort(), ['allowable_values', 'attribute_type', 'created_at', 'links', 'lower_bound', 'max_length', 'min_length', 'name', 'read_only', 'reset_required', 'unique', 'updated_at', 'upper_bound', 'value'], 'bios.py _DEFAULT_FIELDS_WITH_REGISTRY');
  t.is((await raw(s.url, 'GET', '/v1/nodes/fw/bios?detail=True', { version: '1.73' })).status, 406);
  await clean(s, [{ interface: 'bios', step: 'apply_configuration', args: { settings: [{ name: 'NoSuch', value: 'x' }] } }]);
  s.settle();
  t.is(s.node('fw')?.provisionState, 'clean failed');
  t.regex(String(s.node('fw')?.fields.last_error), /: BIOS attribute NoSuch is not in the registry of this system$/);
});

test('ironic-api bios - apply_configuration is held to the registry: enumerations, bounds, read-only', async (t) => {
  const s = await manageable(t, {});
  const apply = async (name: string, value: string): Promise<unknown> => {
    await raw(s.url, 'DELETE', '/v1/nodes/fw/maintenance', { version: V });
    if (s.node('fw')?.provisionState === 'clean failed') await raw(s.url, 'PUT', '/v1/nodes/fw/states/provision', { version: V, body: { target: 'manage' } });
    await clean(s, [{ interface: 'bios', step: 'apply_configuration', args: { settings: [{ name, value }] } }]);
    s.settle();
    return s.node('fw')?.provisionState === 'manageable' ? 'applied' : String(s.node('fw')?.fields.last_error).replace(/^.*\}: /, '');
  };
  t.is(await apply('ProcTurboMode', 'Sometimes'), "BIOS attribute ProcTurboMode: 'Sometimes' is not one of ['Enabled', 'Disabled']");
  t.is(await apply('NumCores', '65'), 'BIOS attribute NumCores: 65 is outside [1, 64]');
  t.is(await apply('SystemModelName', 'x'), 'BIOS attribute SystemModelName: is read-only');
  t.is(await apply('NumCores', '16'), 'applied');
  t.is(s.node('fw')?.bios.NumCores, '16');
});
