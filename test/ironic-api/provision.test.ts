import test from 'ava';
import { createIronicClient, IronicError } from '../../src/adapters/ironic/client/index.ts';
import type { IronicClient } from '../../src/adapters/ironic/client/index.ts';
import { startIronicApiServer } from '../support/ironic-api/index.ts';
import type { IronicApiServer } from '../support/ironic-api/index.ts';
import { raw } from '../support/ironic-api/raw.ts';

// The provision state machine over HTTP, with a manual clock: every intermediate state is seen.
// Each step cites the conductor code the server follows (see plans.ts).

async function manual(t: { teardown(fn: () => unknown): void }, maxVersion = '1.87'): Promise<{ s: IronicApiServer; c: IronicClient }> {
  const s = await startIronicApiServer({ maxVersion, clock: 'manual' });
  const c = createIronicClient({ endpoint: s.url, lockedRetries: { attempts: 1, baseMs: 1, maxMs: 1 } });
  t.teardown(async () => {
    c.close();
    await s.close();
  });
  return { s, c };
}

const seen = (s: IronicApiServer, ref: string): [string, string | null, unknown] => {
  const n = s.node(ref);
  return [n?.provisionState ?? 'gone', n?.targetProvisionState ?? null, n?.fields.reservation ?? null];
};

test('ironic-api provision - enroll to active and back, one phase per advance', async (t) => {
  const { s, c } = await manual(t);
  await c.createNode({ name: 'n1', driver: 'fake-hardware' });
  t.deepEqual(seen(s, 'n1'), ['enroll', null, null]);

  await c.setProvisionState('n1', 'manage');
  t.deepEqual(seen(s, 'n1'), ['verifying', 'manageable', 'ironic-api-test-server'], 'manager.py: manage from enroll spawns verify');
  s.advance('n1');
  t.deepEqual(seen(s, 'n1'), ['manageable', null, null]);

  await c.setProvisionState('n1', 'provide');
  t.deepEqual(seen(s, 'n1'), ['cleaning', 'available', 'ironic-api-test-server']);
  s.advance('n1');
  t.deepEqual(seen(s, 'n1'), ['available', null, null]);

  await c.setProvisionState('n1', 'active', { configdrive: { meta_data: { uuid: 'x' } } });
  t.deepEqual(seen(s, 'n1'), ['deploying', 'active', 'ironic-api-test-server']);
  s.advance('n1');
  t.deepEqual(seen(s, 'n1'), ['active', null, null]);

  await c.setProvisionState('n1', 'deleted');
  t.deepEqual(seen(s, 'n1'), ['deleting', 'available', 'ironic-api-test-server']);
  s.advance('n1');
  t.deepEqual(seen(s, 'n1'), ['cleaning', 'available', 'ironic-api-test-server']);
  s.advance('n1');
  t.deepEqual(seen(s, 'n1'), ['available', null, null]);

  await c.setProvisionState('n1', 'manage');
  t.deepEqual(seen(s, 'n1'), ['manageable', null, null], 'available --manage--> is a plain event, no worker');
  await c.deleteNode('n1');
  t.is(s.node('n1'), null);
});

test('ironic-api provision - a refused transition is 400 in Ironic\'s words; a busy node is 409 locked', async (t) => {
  const { s, c } = await manual(t);
  const n = await c.createNode({ name: 'n2', driver: 'fake-hardware' });
  const refused = await t.throwsAsync(c.setProvisionState('n2', 'provide'), { instanceOf: IronicError });
  t.is(refused?.status, 400);
  t.is(refused?.ironicMessage, `The requested action "provide" can not be performed on node "${n.uuid}" while it is in state "enroll".`);
  await c.setProvisionState('n2', 'manage');
  const locked = await t.throwsAsync(c.setProvisionState('n2', 'inspect'), { instanceOf: IronicError });
  t.is(locked?.status, 409, 'node.py: not actionable in verifying, but reserved: NodeLocked');
  t.is(locked?.code, 'locked');
  t.is(locked?.ironicMessage, `Node ${n.uuid} is locked by host ironic-api-test-server, please retry after the current operation is completed.`);
  s.settle();
  await c.setProvisionState('n2', 'inspect');
  t.deepEqual(seen(s, 'n2'), ['inspecting', 'manageable', 'ironic-api-test-server']);
  s.settle();
  t.deepEqual(seen(s, 'n2'), ['manageable', null, null]);
  t.is(await c.getInventory('n2'), null, 'the fake inspect interface stores no inventory');
  const gone = await t.throwsAsync(c.setProvisionState('nope', 'manage'), { instanceOf: IronicError });
  t.is(gone?.ironicMessage, 'Node nope could not be found.');
});

test('ironic-api provision - adopt, maintenance, power and delete rules', async (t) => {
  const { s, c } = await manual(t);
  const n = await c.createNode({ name: 'n3', driver: 'fake-hardware' });
  await c.setProvisionState('n3', 'manage');
  s.settle();
  await c.setProvisionState('n3', 'adopt');
  t.deepEqual(seen(s, 'n3'), ['adopting', 'active', 'ironic-api-test-server']);
  s.settle();
  t.deepEqual(seen(s, 'n3'), ['active', null, null]);
  const del = await t.throwsAsync(c.deleteNode('n3'), { instanceOf: IronicError });
  t.is(del?.status, 409);
  t.is(del?.ironicMessage, `Can not delete node "${n.uuid}" while it is in provision state "active". Valid provision states to perform deletion are: "('manageable', 'enroll', 'adopt failed', 'available')", or set the node into maintenance mode`);
  await c.setMaintenance('n3', 'hands off');
  t.like((await c.getNode('n3')) ?? {}, { maintenance: true, maintenance_reason: 'hands off' });
  const inMaint = await t.throwsAsync(c.setProvisionState('n3', 'rebuild'), { instanceOf: IronicError });
  t.is(inMaint?.ironicMessage, `The provisioning operation can't be performed on node ${n.uuid} because it's in maintenance mode.`);
  await c.setPowerState('n3', 'power off');
  t.like((await c.getNode('n3')) ?? {}, { power_state: null, target_power_state: 'power off' });
  s.settle();
  t.like((await c.getNode('n3')) ?? {}, { power_state: 'power off', target_power_state: null });
  const badPower = await raw(s.url, 'PUT', '/v1/nodes/n3/states/power', { body: { target: 'bogus' } });
  t.is(badPower.message, 'The requested action "bogus" can not be performed on node "n3" while it is in state "power off".');
  await c.deleteNode('n3');
  t.is(await c.getNode('n3'), null, 'maintenance allows deleting an active node');
});

test('ironic-api provision - a manual clean runs its steps, waits for the ramdisk, and ends manageable', async (t) => {
  const { s, c } = await manual(t);
  await c.createNode({ name: 'n4', driver: 'fake-hardware' });
  await c.setProvisionState('n4', 'manage');
  s.settle();
  t.is(s.node('n4')?.bios.ProcTurboMode, 'Enabled', 'verification cached the BIOS settings');
  const missing = await t.throwsAsync(c.setProvisionState('n4', 'clean'), { instanceOf: IronicError });
  t.is(missing?.ironicMessage, '"clean_steps" is required when setting target provision state to clean');
  const schema = await t.throwsAsync(c.setProvisionState('n4', 'clean', { cleanSteps: [{ interface: 'bios' }] }), { instanceOf: IronicError });
  t.is(schema?.ironicMessage, "Invalid clean_steps: 'step' is a required property");
  await c.setProvisionState('n4', 'clean', { cleanSteps: [{ interface: 'bios', step: 'apply_configuration', args: { settings: [{ name: 'ProcTurboMode', value: 'Disabled' }] } }] });
  t.deepEqual(seen(s, 'n4'), ['cleaning', 'manageable', 'ironic-api-test-server']);
  s.advance('n4');
  t.deepEqual(seen(s, 'n4'), ['clean wait', 'manageable', null], 'cleaning.py: the ramdisk boots, the conductor waits unlocked');
  s.advance('n4');
  t.deepEqual(seen(s, 'n4'), ['cleaning', 'manageable', 'ironic-api-test-server']);
  s.advance('n4');
  t.like(s.node('n4')?.fields ?? {}, { clean_step: { interface: 'bios', step: 'apply_configuration' } });
  t.is(s.node('n4')?.bios.ProcTurboMode, 'Disabled');
  s.advance('n4');
  t.deepEqual(seen(s, 'n4'), ['manageable', null, null]);
  t.deepEqual(s.node('n4')?.fields.clean_step, {});

  await c.setProvisionState('n4', 'clean', { cleanSteps: [{ interface: 'bios', step: 'factory_reset' }], disableRamdisk: true });
  s.settle();
  t.is(s.node('n4')?.bios.ProcTurboMode, 'Enabled', 'factory_reset restores what verification found');
});

test('ironic-api provision - a failing clean step: clean failed, maintenance, Ironic\'s last_error', async (t) => {
  const { s, c } = await manual(t);
  const n = await c.createNode({ name: 'n5', driver: 'fake-hardware' });
  await c.setProvisionState('n5', 'manage');
  s.settle();
  s.failStep('bios.factory_reset', { message: 'BMC said no' });
  await c.setProvisionState('n5', 'clean', { cleanSteps: [{ interface: 'bios', step: 'factory_reset' }] });
  s.settle();
  const failed = s.node('n5');
  t.is(failed?.provisionState, 'clean failed');
  t.is(failed?.targetProvisionState, 'manageable', 'utils.cleaning_error_handler: a manual clean keeps target manageable');
  t.is(failed?.fields.last_error, `Node ${n.uuid} failed step {'interface': 'bios', 'step': 'factory_reset'}: BMC said no`);
  t.like(failed?.fields ?? {}, { maintenance: true, fault: 'clean failure', maintenance_reason: failed?.fields.last_error, clean_step: {} });
  await c.setProvisionState('n5', 'manage');
  t.deepEqual(seen(s, 'n5'), ['manageable', null, null]);
  const inMaintenance = await t.throwsAsync(c.setProvisionState('n5', 'clean', { cleanSteps: [{ interface: 'bios', step: 'factory_reset' }] }), { instanceOf: IronicError });
  t.is(inMaintenance?.ironicMessage, `The cleaning operation can't be performed on node ${n.uuid} because it's in maintenance mode.`, 'manager.py do_node_clean');
  await c.unsetMaintenance('n5');
  t.like(s.node('n5')?.fields ?? {}, { maintenance: false, fault: null, maintenance_reason: null });

  await c.setProvisionState('n5', 'clean', { cleanSteps: [{ interface: 'bios', step: 'no_such_step' }], disableRamdisk: true });
  s.settle();
  t.is(s.node('n5')?.fields.last_error, `Cannot clean node ${n.uuid}: node does not support this clean step: {'interface': 'bios', 'step': 'no_such_step'}`);
});

test('ironic-api provision - abort in clean wait fails the clean with Ironic\'s last_error', async (t) => {
  const { s, c } = await manual(t);
  await c.createNode({ name: 'n6', driver: 'fake-hardware' });
  await c.setProvisionState('n6', 'manage');
  s.settle();
  await c.setProvisionState('n6', 'clean', { cleanSteps: [{ interface: 'bios', step: 'factory_reset' }] });
  s.advance('n6');
  t.is(s.node('n6')?.provisionState, 'clean wait');
  await c.setProvisionState('n6', 'abort');
  t.deepEqual(seen(s, 'n6'), ['clean failed', 'manageable', null]);
  t.is(s.node('n6')?.fields.last_error, 'By request, the clean operation was aborted');
  t.is(s.advance('n6'), 0, 'the aborted clean runs no further');
});

test('ironic-api provision - auto clock settles on its own', async (t) => {
  const s = await startIronicApiServer({ maxVersion: '1.82', phaseDelayMs: 1 });
  const c = createIronicClient({ endpoint: s.url });
  t.teardown(async () => {
    c.close();
    await s.close();
  });
  await c.createNode({ name: 'a', driver: 'fake-hardware' });
  await c.setProvisionState('a', 'manage');
  const deadline = Date.now() + 5_000;
  while ((await c.getNode('a'))?.provision_state !== 'manageable') {
    if (Date.now() > deadline) throw new Error('not manageable after 5 s');
    await new Promise((r) => setTimeout(r, 5));
  }
  t.deepEqual(seen(s, 'a'), ['manageable', null, null]);
});
