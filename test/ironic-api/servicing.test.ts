import test from 'ava';
import { createIronicClient, IronicError } from '../../src/adapters/ironic/client/index.ts';
import { startIronicApiServer } from '../support/ironic-api/index.ts';
import type { IronicApiServer } from '../support/ironic-api/index.ts';
import { raw } from '../support/ironic-api/raw.ts';

// Servicing (API 1.87, Ironic 23.0.0): PUT .../states/provision {"target": "service",
// "service_steps": [...]} on an active node, following api/controllers/v1/node.py provision()
// and conductor/servicing.py.

const APPLY = { interface: 'bios', step: 'apply_configuration', args: { settings: [{ name: 'LogicalProc', value: 'Disabled' }] } };
const FIRMWARE = { interface: 'firmware', step: 'update', args: { settings: [{ component: 'bmc', url: 'http://images.example/bmc-2.11.0.bin' }] } };

async function activeNode(t: { teardown(fn: () => unknown): void }, maxVersion: string, name = 'svc'): Promise<{ s: IronicApiServer; uuid: string; version: string }> {
  const s = await startIronicApiServer({ maxVersion, clock: 'manual' });
  t.teardown(() => s.close());
  const created = await raw(s.url, 'POST', '/v1/nodes', { version: maxVersion, body: { name, driver: 'redfish', firmware_interface: 'redfish', bios_interface: 'redfish' } });
  const uuid = (created.json as { uuid: string }).uuid;
  for (const target of ['manage', 'provide', 'active']) {
    const a = await raw(s.url, 'PUT', `/v1/nodes/${name}/states/provision`, { version: maxVersion, body: { target } });
    if (a.status !== 202) throw new Error(`${target}: ${a.status} ${a.message}`);
    s.settle();
  }
  return { s, uuid, version: maxVersion };
}

const service = (s: IronicApiServer, version: string, steps: unknown[], extra: Record<string, unknown> = {}) =>
  raw(s.url, 'PUT', '/v1/nodes/svc/states/provision', { version, body: { target: 'service', service_steps: steps, ...extra } });

test('ironic-api servicing - active -> servicing -> service wait -> servicing -> active, the BIOS changed', async (t) => {
  const { s } = await activeNode(t, '1.87');
  const a = await service(s, '1.87', [APPLY]);
  t.is(a.status, 202);
  const states: [string, string | null][] = [[s.node('svc')?.provisionState ?? '', s.node('svc')?.targetProvisionState ?? null]];
  while (s.advance('svc') > 0) states.push([s.node('svc')?.provisionState ?? '', s.node('svc')?.targetProvisionState ?? null]);
  t.deepEqual(states, [
    ['servicing', 'active'],
    ['service wait', 'active'], // prepare_service boots the ramdisk (servicing.py: prepare_result SERVICEWAIT)
    ['servicing', 'active'],
    ['servicing', 'active'], // the step ran
    ['active', null],
  ]);
  t.is(s.node('svc')?.bios.LogicalProc, 'Disabled');
  t.deepEqual(s.node('svc')?.fields.service_step, {});
  t.is(s.node('svc')?.fields.last_error, null);
});

test('ironic-api servicing - the API refuses what node.py refuses', async (t) => {
  const { s, uuid } = await activeNode(t, '1.87');
  const missing = await raw(s.url, 'PUT', '/v1/nodes/svc/states/provision', { version: '1.87', body: { target: 'service' } });
  t.is(missing.status, 400);
  t.is(missing.message, '"service_steps" is required when setting target provision state to service');
  const older = await service(s, '1.86', [APPLY]);
  t.is(older.status, 406, 'allow_service_verb: the request version must be 1.87');
  t.is(older.message, 'Request not acceptable.');
  const wrongVerb = await raw(s.url, 'PUT', '/v1/nodes/svc/states/provision', { version: '1.87', body: { target: 'deleted', service_steps: [APPLY] } });
  t.is(wrongVerb.message, '"service_steps" is only valid when setting target provision state to service');
  const badStep = await service(s, '1.87', [{ interface: 'bogus', step: 'x' }]);
  t.is(badStep.status, 400);
  t.regex(badStep.message ?? '', /^Invalid service_steps: 'bogus' is not one of \[/);
  // Only an active node is serviced.
  await raw(s.url, 'POST', '/v1/nodes', { version: '1.87', body: { name: 'idle', driver: 'fake-hardware' } });
  const idle = await raw(s.url, 'PUT', '/v1/nodes/idle/states/provision', { version: '1.87', body: { target: 'service', service_steps: [APPLY] } });
  t.is(idle.status, 400);
  t.regex(idle.message ?? '', /^The requested action "service" can not be performed on node "[0-9a-f-]+" while it is in state "enroll"\.$/);
  t.is(s.node('svc')?.provisionState, 'active', 'nothing started');
  t.truthy(uuid);
});

test('ironic-api servicing - a failing step: service failed with maintenance, fault and Ironic\'s last_error; a new service retries', async (t) => {
  const { s, uuid } = await activeNode(t, '1.87');
  const clear = s.failStep('bios.apply_configuration', { kind: 'service', message: 'Attribute LogicalProc is read only' });
  t.is((await service(s, '1.87', [APPLY])).status, 202);
  s.settle();
  const n = s.node('svc');
  t.is(n?.provisionState, 'service failed');
  t.is(n?.targetProvisionState, 'active');
  t.is(n?.fields.last_error, `Node ${uuid} failed step {'interface': 'bios', 'step': 'apply_configuration', 'args': {'settings': [{'name': 'LogicalProc', 'value': 'Disabled'}]}}: Attribute LogicalProc is read only`);
  t.like(n?.fields ?? {}, { maintenance: true, fault: 'service failure', service_step: {} });
  t.is(n?.bios.LogicalProc, 'Enabled', 'the failed step changed nothing');

  clear();
  const inMaintenance = await service(s, '1.87', [APPLY]);
  t.is(inMaintenance.status, 400);
  t.is(inMaintenance.message, `The service operation can't be performed on node ${uuid} because it's in maintenance mode.`, 'manager.py do_node_service');
  await raw(s.url, 'DELETE', '/v1/nodes/svc/maintenance', { version: '1.87' });
  const noRamdisk = await service(s, '1.87', [APPLY], { disable_ramdisk: true });
  t.is(noRamdisk.status, 400, 'utils.py check_allow_clean_disable_ramdisk (23.0.0): not for a service before 1.108');
  t.is(noRamdisk.message, 'disable_ramdisk is supported only with manual cleaning');
  t.is((await service(s, '1.87', [APPLY])).status, 202, 'states.py: service failed --service--> servicing');
  s.settle();
  t.is(s.node('svc')?.provisionState, 'active');
  t.is(s.node('svc')?.fields.last_error, null, 'a new action clears last_error');
  t.is(s.node('svc')?.bios.LogicalProc, 'Disabled');
});

test('ironic-api servicing - abort in service wait: service failed, as the plain state machine event of 23.0-29.0', async (t) => {
  const { s } = await activeNode(t, '1.87');
  await service(s, '1.87', [APPLY]);
  s.advance('svc');
  t.is(s.node('svc')?.provisionState, 'service wait');
  const a = await raw(s.url, 'PUT', '/v1/nodes/svc/states/provision', { version: '1.87', body: { target: 'abort' } });
  t.is(a.status, 202);
  t.is(s.node('svc')?.provisionState, 'service failed');
  t.is(s.node('svc')?.targetProvisionState, 'active');
  t.is(s.advance('svc'), 0, 'the service stopped');
  t.is(s.node('svc')?.bios.LogicalProc, 'Enabled');
  const again = await raw(s.url, 'PUT', '/v1/nodes/svc/states/provision', { version: '1.87', body: { target: 'abort' } });
  t.is(again.status, 400, '23.0.0 has no service failed --abort-->');
  const del = await raw(s.url, 'PUT', '/v1/nodes/svc/states/provision', { version: '1.87', body: { target: 'deleted' } });
  t.is(del.status, 400, 'nor service failed --delete--> (29.0.0 adds it)');
});

test('ironic-api servicing - firmware.update is a service step from 26.1 (1.93) only', async (t) => {
  const old = await activeNode(t, '1.87');
  t.is((await service(old.s, '1.87', [FIRMWARE])).status, 202, 'the API passes it; the conductor refuses it');
  old.s.settle();
  t.is(old.s.node('svc')?.provisionState, 'service failed');
  t.is(old.s.node('svc')?.fields.last_error, `Cannot service node ${old.uuid}: node does not support this service step: {'interface': 'firmware', 'step': 'update', 'args': {'settings': [{'component': 'bmc', 'url': 'http://images.example/bmc-2.11.0.bin'}]}}`);
  t.false(old.s.node('svc')?.fields.maintenance, 'a refused step list sets no maintenance');

  const { s } = await activeNode(t, '1.93');
  t.is((await service(s, '1.93', [FIRMWARE])).status, 202);
  const states: string[] = [s.node('svc')?.provisionState ?? ''];
  while (s.advance('svc') > 0) states.push(s.node('svc')?.provisionState ?? '');
  t.deepEqual(states, ['servicing', 'service wait', 'servicing', 'service wait', 'servicing', 'active'], 'the update is asynchronous: a second wait');
  const fw = await raw(s.url, 'GET', '/v1/nodes/svc/firmware', { version: '1.93' });
  const bmc = (fw.json as { firmware: Record<string, unknown>[] }).firmware.find((c) => c.component === 'bmc');
  t.like(bmc ?? {}, { initial_version: '1.0.0', current_version: '2.11.0', last_version_flashed: '2.11.0' });
});

test('ironic-api servicing - metalfleet\'s client negotiates 1.87 and its gate lets the service verb through', async (t) => {
  const { s } = await activeNode(t, '1.87');
  const c = createIronicClient({ endpoint: s.url });
  t.teardown(() => c.close());
  t.is((await c.connect()).text, '1.87');
  t.true(c.supports('service'));
  t.true(c.supports('firmware-interface'));
  // The client cannot send service_steps yet (another change adds them): the server's answer
  // proves the verb passed the client's gate and reached node.py's check.
  const e = await t.throwsAsync(c.setProvisionState('svc', 'service'), { instanceOf: IronicError });
  t.is(e?.ironicMessage, '"service_steps" is required when setting target provision state to service');
});
