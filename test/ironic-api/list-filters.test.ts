import test from 'ava';
import { createIronicClient } from '../../src/adapters/ironic/client/index.ts';
import { startIronicApiServer } from '../support/ironic-api/index.ts';
import { raw } from '../support/ironic-api/raw.ts';

// Ironic's `next` link (api/controllers/v1/collection.py get_next) carries sort_key, sort_dir,
// associated, maintenance, retired, detail and fields, never a filter such as provision_state
// (node.py _get_nodes_collection builds `parameters` without them) or node/address (port.py).
// A client that follows only `next` lists every node from page two on.

test('ironic-api nodes - a next link drops the provision_state filter, as Ironic\'s get_next does', async (t) => {
  const s = await startIronicApiServer({ maxVersion: '1.82' });
  const c = createIronicClient({ endpoint: s.url });
  t.teardown(async () => {
    c.close();
    await s.close();
  });
  for (let i = 0; i < 3; i++) await c.createNode({ name: `f-${i}`, driver: 'fake-hardware' });
  const page = await raw(s.url, 'GET', '/v1/nodes?provision_state=enroll&detail=true&limit=2');
  const next = (page.json as { next?: string }).next ?? '';
  t.regex(next, /\/v1\/nodes\?sort_key=id&sort_dir=asc&detail=True&limit=2&marker=[0-9a-f-]{36}$/);
});

test('ironic client - listNodes keeps its provision_state filter on every page', async (t) => {
  const s = await startIronicApiServer({ maxVersion: '1.82', clock: 'manual' });
  const c = createIronicClient({ endpoint: s.url });
  t.teardown(async () => {
    c.close();
    await s.close();
  });
  for (let i = 0; i < 5; i++) await c.createNode({ name: `f-${i}`, driver: 'fake-hardware' });
  // Two of the five leave enroll; the other three stay.
  for (const name of ['f-1', 'f-3']) await c.setProvisionState(name, 'manage');
  s.settle();
  const enrolled = await c.listNodes({ provisionState: 'enroll', limit: 2 });
  t.deepEqual(enrolled.map((n) => n.name), ['f-0', 'f-2', 'f-4']);
  const withFields = await c.listNodes({ provisionState: 'manageable', fields: ['name'], limit: 1 });
  t.deepEqual(withFields.map((n) => n.name), ['f-1', 'f-3']);
});
