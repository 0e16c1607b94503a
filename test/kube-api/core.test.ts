import test from 'ava';
import { CoordinationV1Api, PatchStrategy, V1MicroTime, setHeaderOptions } from '@kubernetes/client-node';
import { NS, failure, raw, withApi } from './helpers.ts';

test('core - Secrets: stringData folds into base64 data, type defaults to Opaque, PUT needs no RV', async (t) => {
  const { server, core } = await withApi(t);
  const created = await raw(server, 'POST', `/api/v1/namespaces/${NS}/secrets`, { metadata: { name: 'bmc' }, data: { username: 'YWRtaW4=' }, stringData: { password: 'p@ss' } });
  t.is(created.status, 201);
  t.deepEqual(Object.keys(created.json()), ['kind', 'apiVersion', 'metadata', 'data', 'type'], 'Go field order');
  t.deepEqual(created.json().data, { username: 'YWRtaW4=', password: Buffer.from('p@ss').toString('base64') });
  t.is(created.json().type, 'Opaque');
  t.false('generation' in (created.json().metadata as object));
  const read = await core.readNamespacedSecret({ namespace: NS, name: 'bmc' });
  t.is(Buffer.from(read.data?.password ?? '', 'base64').toString(), 'p@ss');

  const replaced = await core.replaceNamespacedSecret({ namespace: NS, name: 'bmc', body: { metadata: { name: 'bmc' }, stringData: { token: 't' } } });
  t.deepEqual(replaced.data, { token: 'dA==' }, 'last write wins without an RV');
  const stale = await failure(core.replaceNamespacedSecret({ namespace: NS, name: 'bmc', body: { metadata: { name: 'bmc', resourceVersion: '1' } } }));
  t.is(stale.code, 409);

  const b64 = await raw(server, 'POST', `/api/v1/namespaces/${NS}/secrets`, { metadata: { name: 'x' }, data: { a: 'no!' } });
  t.deepEqual([b64.status, b64.json().message], [400, 'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 2']);
  const key = await raw(server, 'POST', `/api/v1/namespaces/${NS}/secrets`, { metadata: { name: 'x' }, stringData: { 'bad key': 'v' } });
  t.deepEqual([key.status, key.json().message], [422,
    "Secret \"x\" is invalid: data[bad key]: Invalid value: \"bad key\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"]);
  t.deepEqual(key.json().details, { name: 'x', kind: 'Secret', causes: [{ reason: 'FieldValueInvalid', message: "Invalid value: \"bad key\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')", field: 'data[bad key]' }] });
  const tls = await raw(server, 'POST', `/api/v1/namespaces/${NS}/secrets`, { metadata: { name: 'x' }, type: 'kubernetes.io/tls' });
  t.is(tls.json().message, 'Secret "x" is invalid: [data[tls.key]: Required value, data[tls.crt]: Required value]');
});

test('core - Events: create, patch and list by involvedObject; Go writes its empty fields', async (t) => {
  const { server, core } = await withApi(t);
  const involvedObject = { apiVersion: 'test.metalfleet.io/v1alpha1', kind: 'Widget', namespace: NS, name: 'w1', uid: 'u1' };
  const ev = await core.createNamespacedEvent({ namespace: NS, body: {
    metadata: { name: 'w1.1' }, involvedObject, reason: 'Provisioned', message: 'done', type: 'Normal', count: 1,
    firstTimestamp: new Date('2026-01-02T03:04:05.678Z'), lastTimestamp: new Date('2026-01-02T03:04:05.678Z'), source: { component: 'metalfleet' },
  } });
  t.is(ev.count, 1);
  const rawEvent = (await raw(server, 'GET', `/api/v1/namespaces/${NS}/events/w1.1`)).json();
  t.like(rawEvent, { firstTimestamp: '2026-01-02T03:04:05Z', eventTime: null, reportingComponent: '', reportingInstance: '' });
  const patched = await core.patchNamespacedEvent({ namespace: NS, name: 'w1.1', body: { count: 2, lastTimestamp: '2026-01-02T03:05:00Z' } },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
  t.is(patched.count, 2);
  await core.createNamespacedEvent({ namespace: NS, body: { metadata: { name: 'other.1' }, involvedObject: { ...involvedObject, name: 'w2' }, reason: 'X' } });
  const listed = await core.listNamespacedEvent({ namespace: NS, fieldSelector: 'involvedObject.name=w1,involvedObject.kind=Widget,source=metalfleet' });
  t.deepEqual(listed.items.map((e) => e.metadata.name), ['w1.1']);
  const wrongNs = await raw(server, 'POST', `/api/v1/namespaces/${NS}/events`, { metadata: { name: 'bad' }, involvedObject: { ...involvedObject, namespace: 'elsewhere' } });
  t.deepEqual([wrongNs.status, wrongNs.json().message], [422, 'Event "bad" is invalid: involvedObject.namespace: Invalid value: "elsewhere": does not match event.namespace']);
});

test('core - Leases: PUT creates, RVs are required and checked, MicroTime needs six digits', async (t) => {
  const { server } = await withApi(t);
  const leases = server.kubeConfig().makeApiClient(CoordinationV1Api);
  const now = new V1MicroTime('2026-01-02T03:04:05.123Z');
  const created = await leases.replaceNamespacedLease({ namespace: NS, name: 'shard-1', body: { metadata: { name: 'shard-1' }, spec: { holderIdentity: 'node-a', leaseDurationSeconds: 15, renewTime: now, strategy: 'OldestEmulationVersion' } } });
  t.is(created.spec?.holderIdentity, 'node-a');
  t.is(created.spec?.strategy, undefined, 'dropped while the gate is off');
  const rawLease = (await raw(server, 'GET', `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases/shard-1`)).json() as { spec: Record<string, unknown> };
  t.is(rawLease.spec.renewTime, '2026-01-02T03:04:05.123000Z');

  const noRv = await failure(leases.replaceNamespacedLease({ namespace: NS, name: 'shard-1', body: { metadata: { name: 'shard-1' }, spec: { holderIdentity: 'node-b' } } }));
  t.deepEqual([noRv.code, noRv.status.message], [422, 'leases.coordination.k8s.io "shard-1" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update']);
  const renewed = await leases.replaceNamespacedLease({ namespace: NS, name: 'shard-1', body: { ...created, spec: { ...created.spec, renewTime: new V1MicroTime() } } });
  const lost = await failure(leases.replaceNamespacedLease({ namespace: NS, name: 'shard-1', body: { ...created, spec: { ...created.spec, holderIdentity: 'node-b' } } }));
  t.deepEqual([lost.code, lost.status.message], [409,
    'Operation cannot be fulfilled on leases.coordination.k8s.io "shard-1": the object has been modified; please apply your changes to the latest version and try again']);
  t.not(renewed.metadata?.resourceVersion, created.metadata?.resourceVersion);

  const zero = await failure(leases.createNamespacedLease({ namespace: NS, body: { metadata: { name: 'z' }, spec: { leaseDurationSeconds: 0 } } }));
  t.is(zero.status.message, 'Lease.coordination.k8s.io "z" is invalid: spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0');
  const millis = await raw(server, 'POST', `/apis/coordination.k8s.io/v1/namespaces/${NS}/leases`, { metadata: { name: 'm' }, spec: { renewTime: '2026-01-02T03:04:05.709Z' } });
  t.deepEqual([millis.status, millis.json().message], [400,
    'Lease in version "v1" cannot be handled as a Lease: parsing time "2026-01-02T03:04:05.709Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse ".709Z" as ".000000"']);
  const dup = await failure(leases.createNamespacedLease({ namespace: NS, body: { metadata: { name: 'shard-1' } } }));
  t.is(dup.status.reason, 'AlreadyExists');
});

test('core - Namespaces are implicit, and can also be created and read', async (t) => {
  const { server, core } = await withApi(t);
  await core.createNamespacedSecret({ namespace: 'never-created', body: { metadata: { name: 's' } } });
  const ns = await core.createNamespace({ body: { metadata: { name: 'team-a' } } });
  t.is(ns.status?.phase, 'Active');
  t.deepEqual(ns.spec?.finalizers, ['kubernetes']);
  t.is((await core.readNamespace({ name: 'team-a' })).metadata?.name, 'team-a');
  const bad = await raw(server, 'POST', '/api/v1/namespaces', { metadata: { name: 'Team.A' } });
  t.is(bad.status, 422);
  t.regex(String(bad.json().message), /^Namespace "Team\.A" is invalid: metadata\.name: Invalid value: "Team\.A": a lowercase RFC 1123 label must consist of/);
});
