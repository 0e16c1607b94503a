import test from 'ava';
import { createIronicClient, IronicError } from '../../src/adapters/ironic/client/index.ts';
import { startIronicApiServer } from '../support/ironic-api/index.ts';
import { raw } from '../support/ironic-api/raw.ts';

// Nodes and ports as metalfleet's client reads and writes them: listing with fields and pages,
// PATCH, driver_info masking, ports by node and MAC, inventory after inspection.

test('ironic-api nodes - the client pages through a long list by following next', async (t) => {
  const s = await startIronicApiServer({ maxVersion: '1.87' });
  const c = createIronicClient({ endpoint: s.url });
  t.teardown(async () => {
    c.close();
    await s.close();
  });
  for (let i = 0; i < 5; i++) await c.createNode({ name: `page-${i}`, driver: 'fake-hardware' });
  const page = await raw(s.url, 'GET', '/v1/nodes?fields=name&limit=2', { version: '1.87' });
  const next = (page.json as { next?: string }).next ?? '';
  t.regex(next, /\/v1\/nodes\?sort_key=id&sort_dir=asc&fields=name&limit=2&marker=[0-9a-f-]{36}$/, 'collection.py get_next');
  t.deepEqual(Object.keys((page.json as { nodes: object[] }).nodes[0] ?? {}), ['name', 'links']);
  const all = await c.listNodes({ fields: ['name'], limit: 2 });
  t.deepEqual(all.map((n) => n.name), ['page-0', 'page-1', 'page-2', 'page-3', 'page-4']);
  t.is((await c.listNodes({ provisionState: 'enroll' })).length, 5);
  const bad = await raw(s.url, 'GET', '/v1/nodes?fields=nope', { version: '1.87' });
  t.is(bad.message, 'Field nope is not a valid field.');
});

test('ironic-api nodes - PATCH applies JSON patch with Ironic\'s refusals; driver_info secrets come back masked', async (t) => {
  const s = await startIronicApiServer({ maxVersion: '1.87' });
  const c = createIronicClient({ endpoint: s.url });
  t.teardown(async () => {
    c.close();
    await s.close();
  });
  await c.createNode({ name: 'p', driver: 'redfish', driver_info: { redfish_address: 'https://bmc', redfish_username: 'u', redfish_password: 'secret-pw' } });
  await c.createNode({ name: 'q', driver: 'fake-hardware' });
  const n = await c.patchNode('p', [{ op: 'add', path: '/extra/owner', value: 'me' }, { op: 'replace', path: '/driver_info', value: { redfish_address: 'https://bmc2', redfish_password: 'other-pw' } }]);
  t.deepEqual(n.extra, { owner: 'me' });
  t.deepEqual(n.driver_info, { redfish_address: 'https://bmc2', redfish_password: '******' });
  t.is(s.node('p')?.fields.driver_info && (s.node('p')?.fields.driver_info as Record<string, unknown>).redfish_password, 'other-pw', 'kept, only masked in answers');
  const dup = await t.throwsAsync(c.patchNode('p', [{ op: 'replace', path: '/name', value: 'q' }]), { instanceOf: IronicError });
  t.is(dup?.status, 409);
  t.is(dup?.ironicMessage, 'A node with name q already exists.');
  t.is(s.node('p')?.fields.name, 'p', 'a refused patch changes nothing');
  const iface = await t.throwsAsync(c.patchNode('p', [{ op: 'replace', path: '/firmware_interface', value: 'nope' }]), { instanceOf: IronicError });
  t.regex(iface?.ironicMessage ?? '', /^Could not find the following interface in the 'ironic.hardware.interfaces.firmware' entrypoint: nope\./);
  t.is((await c.patchNode('p', [{ op: 'replace', path: '/firmware_interface', value: 'redfish' }])).firmware_interface, 'redfish');
});

test('ironic-api ports - created on a node, found by node and by MAC, gone with the node', async (t) => {
  const s = await startIronicApiServer({ maxVersion: '1.87' });
  const c = createIronicClient({ endpoint: s.url });
  t.teardown(async () => {
    c.close();
    await s.close();
  });
  const n = await c.createNode({ name: 'withport', driver: 'fake-hardware' });
  const p = await c.createPort({ nodeUuid: n.uuid, address: '52:54:00:AB:CD:EF' });
  t.like(p, { address: '52:54:00:ab:cd:ef', node_uuid: n.uuid, pxe_enabled: true });
  t.deepEqual((await c.listPorts({ node: 'withport' })).map((x) => x.uuid), [p.uuid]);
  t.deepEqual((await c.listPorts({ address: '52:54:00:ab:cd:ef' })).map((x) => x.node_uuid), [n.uuid]);
  const noNode = await t.throwsAsync(c.createPort({ nodeUuid: '00000000-0000-0000-0000-000000000000', address: '52:54:00:00:00:01' }), { instanceOf: IronicError });
  t.is(noNode?.status, 404);
  await c.deleteNode('withport');
  t.deepEqual(await c.listPorts({ address: '52:54:00:ab:cd:ef' }), []);
});

test('ironic-api inventory - inspection stores what the inventory option gives; the client reads it', async (t) => {
  const s = await startIronicApiServer({
    maxVersion: '1.87',
    clock: 'manual',
    inventory: (node) => ({ inventory: { cpu: { count: 8 }, interfaces: [{ name: 'eth0', mac_address: '52:54:00:00:00:aa' }], node: node.fields.name } }),
  });
  const c = createIronicClient({ endpoint: s.url });
  t.teardown(async () => {
    c.close();
    await s.close();
  });
  const n = await c.createNode({ name: 'inv', driver: 'fake-hardware' });
  const missing = await raw(s.url, 'GET', '/v1/nodes/inv/inventory', { version: '1.87' });
  t.is(missing.status, 404);
  t.is(missing.message, `Node inventory record for node ${s.node('inv')?.id} could not be found.`, 'NodeInventoryNotFound names the database id');
  t.is(await c.getInventory('inv'), null);
  await c.setProvisionState('inv', 'manage');
  s.settle();
  await c.setProvisionState('inv', 'inspect');
  s.settle();
  t.deepEqual(await c.getInventory(n.uuid), { inventory: { cpu: { count: 8 }, interfaces: [{ name: 'eth0', mac_address: '52:54:00:00:00:aa' }], node: 'inv' }, plugin_data: {} });
});
