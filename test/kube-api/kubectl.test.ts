// The real kubectl 1.32 against the test server (strict namespaces, as a cluster): installing
// CRDs, explain from /openapi/v3, Table columns, namespaces and secrets (protobuf bodies), field
// validation, and server-side apply conflicts.
import test from 'ava';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { BMH_CRD, DEPLOY_CRDS, hostYaml, rows, withKubectl } from './kubectl-support.ts';

test('kubectl - apply -f installs CRDs; discovery follows at once; re-apply is unchanged; delete crd stops serving', async (t) => {
  const k = await withKubectl(t);
  const files = (await readdir(DEPLOY_CRDS)).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml').map((f) => join(DEPLOY_CRDS, f));
  const applied = await k.ok('apply', ...files.flatMap((f) => ['-f', f]));
  t.regex(applied, /customresourcedefinition\.apiextensions\.k8s\.io\/baremetalhosts\.metal3\.io created/);
  t.regex(applied, /customresourcedefinition\.apiextensions\.k8s\.io\/maasmachines\.infrastructure\.cluster\.x-k8s\.io created/);
  t.regex(await k.ok('apply', '-f', BMH_CRD), /baremetalhosts\.metal3\.io unchanged/);

  const crds = rows(await k.ok('get', 'crd'));
  t.deepEqual(crds[0], ['NAME', 'CREATED AT']);
  t.true(crds.some((r) => r[0] === 'baremetalhosts.metal3.io'));
  const resources = rows(await k.ok('api-resources', '--api-group=metal3.io'));
  t.deepEqual(resources[1], ['baremetalhosts', 'bmh,bmhost', 'metal3.io/v1alpha1', 'true', 'BareMetalHost']);

  await k.ok('apply', '-f', await k.file('h1.yaml', hostYaml('h1', 'default', '  online: true\n')));
  t.regex(await k.ok('delete', 'crd', 'baremetalhosts.metal3.io'), /deleted/);
  const gone = await k.run('get', 'baremetalhosts');
  t.is(gone.code, 1);
  t.regex(gone.stderr, /the server doesn't have a resource type "baremetalhosts"/);

  // An unknown kind: kubectl falls back to /openapi/v2 (protobuf) for validation, then fails mapping.
  const unknown = await k.run('apply', '-f', await k.file('foo.yaml', 'apiVersion: example.com/v1\nkind: Foo\nmetadata:\n  name: a\n'));
  t.is(unknown.code, 1);
  t.regex(unknown.stderr, /resource mapping not found for name: "a" namespace: "" from ".*foo\.yaml": no matches for kind "Foo" in version "example\.com\/v1"/);
});

test('kubectl - explain prints the CRD field descriptions from /openapi/v3; built-ins too', async (t) => {
  const k = await withKubectl(t, { crdDir: DEPLOY_CRDS });
  const out = await k.ok('explain', 'bmh.spec.bmc');
  t.regex(out, /KIND:\s+BareMetalHost/);
  t.regex(out, /VERSION:\s+v1alpha1/);
  t.regex(out, /How to reach and log in to the host's baseboard management controller\./);
  t.regex(out, /address\s+<string> -required-/);
  t.regex(await k.ok('explain', 'secrets'), /Secret holds secret data of a certain type/);
  const v2 = await fetch(`${k.server.url}/openapi/v2`, { headers: { Accept: 'application/json' } });
  const doc = (await v2.json()) as { definitions: Record<string, unknown> };
  t.truthy(doc.definitions['io.metal3.v1alpha1.BareMetalHost']);
  t.truthy(doc.definitions['io.k8s.api.core.v1.Namespace']);
});

test('kubectl - get prints the CRD printer columns (wide adds priority 1) and the built-in columns', async (t) => {
  const k = await withKubectl(t, { crdDir: DEPLOY_CRDS });
  k.server.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'lab' } });
  k.server.create({
    apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', metadata: { name: 'h1', namespace: 'lab' },
    spec: { online: true, bmc: { address: 'ipmi://10.0.0.9', credentialsName: 'c' }, consumerRef: { name: 'm1', kind: 'Machine', apiVersion: 'v1' } },
  });
  const hosts = rows(await k.ok('get', 'bmh', '-n', 'lab'));
  t.deepEqual(hosts[0], ['NAME', 'STATE', 'CONSUMER', 'ONLINE', 'ERROR', 'AGE']);
  t.deepEqual(hosts[1]?.slice(0, 3), ['h1', 'm1', 'true']);
  const wide = rows(await k.ok('get', 'bmh', '-n', 'lab', '-o', 'wide'));
  t.deepEqual(wide[0], ['NAME', 'STATUS', 'STATE', 'CONSUMER', 'BMC', 'ONLINE', 'ERROR', 'AGE']);
  t.true(wide[1]?.includes('ipmi://10.0.0.9'));

  const table = await fetch(`${k.server.url}/apis/metal3.io/v1alpha1/namespaces/lab/baremetalhosts`, { headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
  const body = (await table.json()) as { kind: string; columnDefinitions: { name: string; type: string; priority: number }[]; rows: { cells: unknown[] }[] };
  t.is(body.kind, 'Table');
  t.deepEqual(body.columnDefinitions.map((c) => [c.name, c.type, c.priority]), [
    ['Name', 'string', 0], ['Status', 'string', 1], ['State', 'string', 0], ['Consumer', 'string', 0], ['BMC', 'string', 1],
    ['Online', 'string', 0], ['Error', 'string', 0], ['Age', 'date', 0],
  ]);
  t.deepEqual(body.rows[0]?.cells.slice(0, 7), ['h1', null, null, 'm1', 'ipmi://10.0.0.9', 'true', null]);

  const namespaces = rows(await k.ok('get', 'ns'));
  t.deepEqual(namespaces[0], ['NAME', 'STATUS', 'AGE']);
  t.deepEqual(namespaces.slice(1).map((r) => r.slice(0, 2)), [['default', 'Active'], ['kube-public', 'Active'], ['kube-system', 'Active'], ['lab', 'Active']]);
  await k.ok('create', 'secret', 'generic', 's', '--from-literal=a=1', '--from-literal=b=2', '-n', 'lab');
  const secrets = rows(await k.ok('get', 'secrets', '-n', 'lab'));
  t.deepEqual(secrets[0], ['NAME', 'TYPE', 'DATA', 'AGE']);
  t.deepEqual(secrets[1]?.slice(0, 3), ['s', 'Opaque', '2']);
});

test('kubectl - create ns and secret (protobuf bodies); a missing namespace is 404; delete ns empties it, then it goes', async (t) => {
  const k = await withKubectl(t);
  t.regex(await k.ok('create', 'ns', 'x'), /namespace\/x created/);
  t.regex(await k.ok('create', 'secret', 'generic', 's', '--from-literal=username=a', '-n', 'x'), /secret\/s created/);
  const secret = k.server.get({ resource: 'secrets', namespace: 'x', name: 's' }) as { data: Record<string, string>; type: string };
  t.deepEqual(secret.data, { username: Buffer.from('a').toString('base64') });
  t.is(secret.type, 'Opaque');

  const missing = await k.run('create', 'secret', 'generic', 's', '--from-literal=username=a', '-n', 'nope');
  t.is(missing.code, 1);
  t.regex(missing.stderr, /namespaces "nope" not found/);

  t.regex(await k.ok('delete', 'ns', 'x'), /namespace "x" deleted/);
  t.is(k.server.get({ resource: 'namespaces', name: 'x' }), undefined);
  t.is(k.server.get({ resource: 'secrets', namespace: 'x', name: 's' }), undefined);
});

test('kubectl - field validation: Strict refuses an unknown field, Warn warns and prunes, Ignore is silent', async (t) => {
  const k = await withKubectl(t, { crdDir: DEPLOY_CRDS });
  const bad = await k.file('bad.yaml', hostYaml('h1', 'default', '  online: true\n  foo: 1\n'));
  const strict = await k.run('apply', '-f', bad);
  t.is(strict.code, 1);
  t.regex(strict.stderr, /BareMetalHost in version "v1alpha1" cannot be handled as a BareMetalHost: strict decoding error: unknown field "spec\.foo"/);
  t.is(k.server.get({ resource: 'baremetalhosts', namespace: 'default', name: 'h1' }), undefined);

  const warn = await k.run('create', '-f', bad, '--validate=warn');
  t.is(warn.code, 0);
  t.regex(warn.stderr, /Warning: unknown field "spec\.foo"/);
  const host = k.server.get({ resource: 'baremetalhosts', namespace: 'default', name: 'h1' }) as { spec: Record<string, unknown> };
  t.false('foo' in host.spec);

  const ignore = await k.run('apply', '-f', bad, '--validate=false');
  t.is(ignore.code, 0);
  t.notRegex(ignore.stderr, /unknown field/);
});

test('kubectl - apply --server-side: managedFields, a 409 conflict naming the manager and field, --force-conflicts takes it', async (t) => {
  const k = await withKubectl(t, { crdDir: DEPLOY_CRDS });
  await k.ok('apply', '-f', await k.file('on.yaml', hostYaml('h1', 'default', '  online: true\n')));
  const off = await k.file('off.yaml', hostYaml('h1', 'default', '  online: false\n'));
  const conflict = await k.run('apply', '--server-side', '-f', off);
  t.is(conflict.code, 1);
  t.regex(conflict.stderr, /Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using metal3\.io\/v1alpha1 at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ: \.spec\.online/);
  t.regex(conflict.stderr, /--force-conflicts/);

  // The same value is no conflict: both managers own it.
  t.regex(await k.ok('apply', '--server-side', '--field-manager=other', '-f', await k.file('same.yaml', hostYaml('h1', 'default', '  online: true\n'))), /serverside-applied/);
  t.regex(await k.ok('apply', '--server-side', '--force-conflicts', '-f', off), /serverside-applied/);
  const host = JSON.parse(await k.ok('get', 'bmh', 'h1', '-o', 'json', '--show-managed-fields')) as {
    spec: { online: boolean };
    metadata: { managedFields: { manager: string; operation: string; fieldsV1: { 'f:spec'?: Record<string, unknown> } }[] };
  };
  t.false(host.spec.online);
  const owners = (field: string): string[] => host.metadata.managedFields.filter((m) => m.fieldsV1['f:spec']?.[field] !== undefined).map((m) => `${m.manager}/${m.operation}`);
  t.deepEqual(owners('f:online'), ['kubectl/Apply']);
  // After a server-side apply kubectl rewrites managedFields (csaupgrade): what client-side apply
  // owned moves to the `kubectl` applier; the server takes the managedFields a request sends.
  t.deepEqual(owners('f:bmc').sort(), ['kubectl/Apply', 'other/Apply']);
  t.false(host.metadata.managedFields.some((m) => m.manager === 'kubectl-client-side-apply'));

  const undeclared = await k.run('apply', '--server-side', '-f', await k.file('foo.yaml', hostYaml('h1', 'default', '  online: false\n  foo: 1\n')));
  t.is(undeclared.code, 1);
  t.regex(undeclared.stderr, /Error from server: failed to create typed patch object \(metal3\.io\/v1alpha1, Kind=BareMetalHost\): \.spec\.foo: field not declared in schema/);
});

// kubectl get --watch asks for Tables on the watch too; the real server sends each event's object
// as a Table row, the column definitions only in the first (handlers/watch.go), and kubectl prints
// the rows under the header it printed from the list (printers/tableprinter.go). Plain objects
// instead made kubectl print a new `NAME AGE` header and lose the printer columns.
test('kubectl - get --watch prints each change as a row of the printer columns, under the one header', async (t) => {
  const k = await withKubectl(t, { crdDir: DEPLOY_CRDS });
  k.server.create({
    apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', metadata: { name: 'h1', namespace: 'default' },
    spec: { online: true, bmc: { address: 'ipmi://10.0.0.9', credentialsName: 'c' } },
  });
  const status = { operationalStatus: 'OK', provisioning: { state: 'available', ID: '' }, errorType: '', errorMessage: '', poweredOn: true, errorCount: 0, provisioningFailCount: 0 };
  let updated = false;
  const out = await k.stream(['get', 'bmh', '--watch'], (stdout) => {
    if (!updated && stdout.includes('h1')) {
      updated = true;
      k.server.updateStatus({ apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', metadata: { name: 'h1', namespace: 'default' }, status });
    }
    return /available/.test(stdout);
  });
  const lines = rows(out);
  t.deepEqual(lines[0], ['NAME', 'STATE', 'CONSUMER', 'ONLINE', 'ERROR', 'AGE']);
  t.deepEqual(lines[1]?.slice(0, 2), ['h1', 'true']);
  t.deepEqual(lines[2]?.slice(0, 3), ['h1', 'available', 'true']);
  t.is(lines.length, 3);

  // On the wire: a Table per event, column definitions in the first only.
  const list = (await (await fetch(`${k.server.url}/apis/metal3.io/v1alpha1/namespaces/default/baremetalhosts`)).json()) as { metadata: { resourceVersion: string } };
  const abort = new AbortController();
  t.teardown(() => abort.abort());
  const watch = await fetch(`${k.server.url}/apis/metal3.io/v1alpha1/namespaces/default/baremetalhosts?watch=true&resourceVersion=${list.metadata.resourceVersion}`, {
    headers: { Accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' }, signal: abort.signal,
  });
  const reader = watch.body!.getReader();
  k.server.patch({ resource: 'baremetalhosts', namespace: 'default', name: 'h1' }, { metadata: { labels: { a: '1' } } });
  k.server.patch({ resource: 'baremetalhosts', namespace: 'default', name: 'h1' }, { metadata: { labels: { a: '2' } } });
  let text = '';
  while (text.split('\n').length < 3) text += new TextDecoder().decode((await reader.read()).value);
  const events = text.trim().split('\n').map((l) => JSON.parse(l) as { type: string; object: { kind: string; columnDefinitions?: unknown[]; rows: { cells: unknown[]; object: { kind: string; metadata: { labels: Record<string, string> } } }[] } });
  t.deepEqual(events.map((e) => [e.type, e.object.kind, e.object.columnDefinitions?.length ?? 0]), [['MODIFIED', 'Table', 8], ['MODIFIED', 'Table', 0]]);
  t.deepEqual(events.map((e) => [e.object.rows[0]?.cells.slice(0, 3), e.object.rows[0]?.object.kind, e.object.rows[0]?.object.metadata.labels]), [
    [['h1', 'OK', 'available'], 'PartialObjectMetadata', { a: '1' }],
    [['h1', 'OK', 'available'], 'PartialObjectMetadata', { a: '2' }],
  ]);
});

// A CR's metadata goes through a typed ObjectMeta (schema/objectmeta Coerce: GetObjectMeta, then
// SetObjectMeta's ToUnstructured), whose omitempty drops empty labels, annotations, finalizers and
// ownerReferences: removing the last label leaves no `labels: {}`, and an empty list sent where
// none is stored changes nothing (no new resourceVersion, kubectl says "no change").
test('kubectl - empty labels, finalizers and ownerReferences are not stored; writing them empty is no change', async (t) => {
  const k = await withKubectl(t, { crdDir: DEPLOY_CRDS });
  await k.ok('apply', '-f', await k.file('h1.yaml', hostYaml('h1', 'default', '  online: true\n')));
  await k.ok('label', 'bmh', 'h1', 'rack=r1');
  await k.ok('label', 'bmh', 'h1', 'rack-');
  const meta = (): Record<string, unknown> => (JSON.parse(JSON.stringify(k.server.get({ resource: 'baremetalhosts', namespace: 'default', name: 'h1' }))) as { metadata: Record<string, unknown> }).metadata;
  t.false('labels' in meta());
  const rv = meta().resourceVersion;
  t.regex(await k.ok('patch', 'bmh', 'h1', '--type=merge', '-p', '{"metadata":{"finalizers":[],"ownerReferences":[],"labels":{}}}'), /patched \(no change\)/);
  t.is(meta().resourceVersion, rv);
  t.false('finalizers' in meta());
  t.false('ownerReferences' in meta());

  await k.ok('patch', 'bmh', 'h1', '--type=merge', '-p', '{"metadata":{"finalizers":["metal3.io/x"]}}');
  await k.ok('patch', 'bmh', 'h1', '--type=json', '-p', '[{"op":"remove","path":"/metadata/finalizers/0"}]');
  t.false('finalizers' in meta());
});

// A CR's status scope is a shallow copy of its main request scope (apiextensions'
// customresource_handler.go), TableConvertor included: GET of /status as a Table has the CRD's
// printer columns, so `kubectl get --subresource=status` prints them, not a bare NAME and AGE.
test('kubectl - get --subresource=status prints the printer columns', async (t) => {
  const k = await withKubectl(t, { crdDir: DEPLOY_CRDS });
  k.server.create({
    apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', metadata: { name: 'h1', namespace: 'default' },
    spec: { online: true, bmc: { address: 'ipmi://10.0.0.9', credentialsName: 'c' } },
  });
  k.server.updateStatus({
    apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', metadata: { name: 'h1', namespace: 'default' },
    status: { operationalStatus: 'OK', provisioning: { state: 'available', ID: '' }, errorType: '', errorMessage: '', poweredOn: true, errorCount: 0, provisioningFailCount: 0 },
  });
  const status = rows(await k.ok('get', 'bmh', 'h1', '--subresource=status', '-o', 'wide'));
  t.deepEqual(status[0], ['NAME', 'STATUS', 'STATE', 'CONSUMER', 'BMC', 'ONLINE', 'ERROR', 'AGE']);
  t.deepEqual(status[1]?.slice(0, 5), ['h1', 'OK', 'available', 'ipmi://10.0.0.9', 'true']);
});
