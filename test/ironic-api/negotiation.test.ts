import test from 'ava';
import { startIronicApiServer } from '../support/ironic-api/index.ts';
import { raw } from '../support/ironic-api/raw.ts';

// Version negotiation as ironic/api/controllers/base.py (Version.parse_headers) and
// v1/__init__.py (Controller._check_version, _add_version_attributes) do it, and fields or
// routes newer than the request's version refused as node.py does.

test('ironic-api negotiation - GET / and /v1 report the configured range; /v1 echoes the version asked', async (t) => {
  const s = await startIronicApiServer({ maxVersion: '1.87' });
  t.teardown(() => s.close());
  const root = await raw(s.url, 'GET', '/', { version: null });
  t.is(root.status, 200);
  t.like(root.json, { default_version: { id: 'v1', min_version: '1.1', version: '1.87' } });
  t.is(root.headers['x-openstack-ironic-api-maximum-version'], undefined, 'GET / passes no version hook');
  const v1 = await raw(s.url, 'GET', '/v1', { version: null });
  t.like(v1.json, { version: { min_version: '1.1', version: '1.87' } });
  t.is(v1.headers['x-openstack-ironic-api-minimum-version'], '1.1');
  t.is(v1.headers['x-openstack-ironic-api-maximum-version'], '1.87');
  t.is(v1.headers['x-openstack-ironic-api-version'], '1.1', 'no header: the minimum');
  const latest = await raw(s.url, 'GET', '/v1/nodes', { version: 'latest' });
  t.is(latest.headers['x-openstack-ironic-api-version'], '1.87', '"latest": the maximum');
  const asked = await raw(s.url, 'GET', '/v1/nodes', { version: '1.85' });
  t.is(asked.headers['x-openstack-ironic-api-version'], '1.85');
});

test('ironic-api negotiation - versions outside the range answer 406 with Ironic\'s texts and bodies', async (t) => {
  const s = await startIronicApiServer({ maxVersion: '1.82' });
  t.teardown(() => s.close());
  const above = await raw(s.url, 'GET', '/v1/nodes', { version: '1.87' });
  t.is(above.status, 406);
  t.is(above.message, 'Version 1.87 was requested but the minor version is not supported by this service. The supported version range is: [1.1, 1.82].');
  t.like(JSON.parse((above.json as { error_message: string }).error_message), { code: 406, title: 'Not Acceptable' });
  t.is(above.headers['x-openstack-ironic-api-maximum-version'], '1.82');
  t.is(above.headers['x-openstack-ironic-api-version'], undefined);
  // GET /v1/ refuses from index(): a wsme fault, not webob's body.
  const index = await raw(s.url, 'GET', '/v1/', { version: '1.99' });
  t.is(index.status, 406);
  t.like(JSON.parse((index.json as { error_message: string }).error_message), { faultcode: 'Client', debuginfo: null });
  const major = await raw(s.url, 'GET', '/v1/nodes', { version: '2.1' });
  t.regex(major.message ?? '', /^Mutually exclusive versions requested\. Version 2\.1 requested/);
  const garbage = await raw(s.url, 'GET', '/v1/nodes', { version: 'x' });
  t.is(garbage.message, 'Invalid value for X-OpenStack-Ironic-API-Version header');
  t.is(garbage.headers['x-openstack-ironic-api-maximum-version'], undefined, 'parse failure: no range headers');
  const below = await raw(s.url, 'GET', '/v1/nodes', { version: '1.0' });
  t.is(below.status, 406);
});

test('ironic-api negotiation - a node field newer than the request is 406; one the server lacks is a schema error', async (t) => {
  const s = await startIronicApiServer({ maxVersion: '1.87' });
  t.teardown(() => s.close());
  const older = await raw(s.url, 'POST', '/v1/nodes', { version: '1.85', body: { driver: 'redfish', firmware_interface: 'redfish' } });
  t.is(older.status, 406);
  t.is(older.message, 'Request not acceptable.');
  const ok = await raw(s.url, 'POST', '/v1/nodes', { version: '1.86', body: { name: 'fw', driver: 'redfish', firmware_interface: 'redfish' } });
  t.is(ok.status, 201);
  t.is((ok.json as { firmware_interface: string }).firmware_interface, 'redfish');
  const hidden = await raw(s.url, 'GET', '/v1/nodes/fw', { version: '1.85' });
  t.false('firmware_interface' in (hidden.json as object), 'hidden below 1.86');
  t.false('service_step' in (hidden.json as object), 'hidden below 1.87');
  const patch = await raw(s.url, 'PATCH', '/v1/nodes/fw', { version: '1.85', body: [{ op: 'replace', path: '/firmware_interface', value: 'no-firmware' }] });
  t.is(patch.status, 406);

  const old = await startIronicApiServer({ maxVersion: '1.82' });
  t.teardown(() => old.close());
  const unknown = await raw(old.url, 'POST', '/v1/nodes', { version: '1.82', body: { driver: 'redfish', firmware_interface: 'redfish' } });
  t.is(unknown.status, 400);
  t.is(unknown.message, "Schema error for node: Additional properties are not allowed ('firmware_interface' was unexpected)");
});

test('ironic-api negotiation - routes newer than the request: bare 404 on a server that has them, 21.4\'s 400 on one that lacks them', async (t) => {
  const s = await startIronicApiServer({ maxVersion: '1.87' });
  t.teardown(() => s.close());
  await raw(s.url, 'POST', '/v1/nodes', { version: '1.87', body: { name: 'n', driver: 'fake-hardware' } });
  const fw = await raw(s.url, 'GET', '/v1/nodes/n/firmware', { version: '1.85' });
  t.is(fw.status, 404);
  t.deepEqual(JSON.parse((fw.json as { error_message: string }).error_message), { code: 404, title: 'Not Found', description: '' });
  t.is(fw.headers['x-openstack-ironic-api-version'], undefined, 'a pecan abort carries no version headers');
  t.is((await raw(s.url, 'GET', '/v1/nodes/n/firmware', { version: '1.86' })).status, 200);
  t.is((await raw(s.url, 'GET', '/v1/nodes/n/inventory', { version: '1.80' })).status, 404);
  const bogus = await raw(s.url, 'GET', '/v1/bogus', { version: '1.87' });
  t.is(bogus.status, 404);

  const old = await startIronicApiServer({ maxVersion: '1.82' });
  t.teardown(() => old.close());
  await raw(old.url, 'POST', '/v1/nodes', { body: { name: 'n', driver: 'fake-hardware' } });
  const none = await raw(old.url, 'GET', '/v1/nodes/n/firmware');
  t.is(none.status, 400);
  t.is(none.message, 'Field firmware is not a valid field.');
});

test('ironic-api negotiation - maxVersion must name a modelled release, 1.82 to 1.96', async (t) => {
  await t.throwsAsync(startIronicApiServer({ maxVersion: '1.81' }), { message: /maxVersion must be from 1\.82 \(Ironic 21\.4\) to 1\.96/ });
  await t.throwsAsync(startIronicApiServer({ maxVersion: '1.110' }), { message: /to 1\.96 \(29\.0\)/ });
  await t.throwsAsync(startIronicApiServer({ maxVersion: 'latest' }), { message: /maxVersion/ });
});
