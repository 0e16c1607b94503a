// What the webhook answers per operation and kind: the review envelope, CREATE/UPDATE/DELETE/CONNECT,
// kinds it does not manage, the fixtures `metalfleet validate` is tested with, and what it logs.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { formatFieldError, readManifests, validateObject } from '../../src/api/index.ts';
import type { AdmissionReviewResponse } from '../../src/adapters/kube/webhook/index.ts';
import { ROOT } from '../cli/run.ts';
import { admissionReview, call, fileTls, review, serve } from './support.ts';

type Obj = Record<string, unknown>;

const tls = fileTls();

function bmh(spec: Obj = {}, metadata: Obj = {}, status?: Obj): Obj {
  return {
    apiVersion: 'metal3.io/v1alpha1',
    kind: 'BareMetalHost',
    metadata: { name: 'worker-0', namespace: 'metal3', uid: '5c9e1f0e-0000-4000-8000-000000000001', ...metadata },
    spec: {
      online: true,
      bootMACAddress: '52:54:00:aa:bb:cc',
      bmc: { address: 'redfish://192.0.2.10/redfish/v1/Systems/1', credentialsName: 'worker-0-bmc' },
      image: { url: 'http://images.example.com/ubuntu.qcow2', checksum: 'http://images.example.com/ubuntu.qcow2.sha256sum', checksumType: 'sha256' },
      ...spec,
    },
    ...(status ? { status } : {}),
  };
}

function maasMachine(spec: Obj = {}, status?: Obj): Obj {
  return {
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1',
    kind: 'MaasMachine',
    metadata: { name: 'cp-0', namespace: 'lab' },
    spec: { image: 'custom/u-2204-0-k-1243-0', minCPU: 4, minMemory: 8192, ...spec },
    ...(status ? { status } : {}),
  };
}

const uidOf = (body: Obj) => (body.request as { uid: string }).uid;

test('webhook admission - the answer is an admission.k8s.io/v1 AdmissionReview echoing the request uid', async (t) => {
  const { server } = await serve(t, tls.files);
  const body = admissionReview('CREATE', bmh(), null, '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0');
  const answer = await call(server.url, tls.pki.ca, { body: JSON.stringify(body) });
  t.is(answer.status, 200);
  t.is(answer.headers['content-type'], 'application/json');
  t.deepEqual(answer.json(), {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    response: { uid: '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0', allowed: true },
  });
  // The API server adds ?timeout=; the path still matches.
  const withTimeout = await call(server.url, tls.pki.ca, { path: '/validate?timeout=10s', body: JSON.stringify(admissionReview('CREATE', bmh(), null, 'u-2')) });
  t.is(withTimeout.json<AdmissionReviewResponse>().response.uid, 'u-2');
});

test('webhook admission - a denial is a 422 Invalid Status with one cause per field', async (t) => {
  const { server } = await serve(t, tls.files);
  const body = admissionReview('CREATE', bmh({ image: { url: 'http://images/x.qcow2' }, online: false, disablePowerOff: true }));
  const { response } = await review(server.url, tls.pki.ca, body);
  t.deepEqual(response, {
    uid: uidOf(body),
    allowed: false,
    status: {
      metadata: {},
      status: 'Failure',
      message: 'BareMetalHost.metal3.io "worker-0" is invalid: [spec.image.checksum: checksum is required for normal images, '
        + "spec.disablePowerOff: node can't simultaneously have online set to false and have power off disabled]",
      reason: 'Invalid',
      details: {
        name: 'worker-0',
        group: 'metal3.io',
        kind: 'BareMetalHost',
        causes: [
          { reason: 'FieldValueRequired', message: 'checksum is required for normal images', field: 'spec.image.checksum' },
          { reason: 'FieldValueForbidden', message: "node can't simultaneously have online set to false and have power off disabled", field: 'spec.disablePowerOff' },
        ],
      },
      code: 422,
    },
  });
});

test('webhook admission - one error is not bracketed, and structural errors deny too', async (t) => {
  const { server } = await serve(t, tls.files);
  const { response } = await review(server.url, tls.pki.ca, admissionReview('CREATE', bmh({ online: 'yes' })));
  t.is(response.status?.message, 'BareMetalHost.metal3.io "worker-0" is invalid: spec.online: Invalid input: expected boolean, received string');
  // A MAAS kind of a version metalfleet does not serve is still its kind, and named as unsupported.
  const old = { ...maasMachine(), apiVersion: 'infrastructure.cluster.x-k8s.io/v1alpha4' };
  const denied = await review(server.url, tls.pki.ca, admissionReview('CREATE', old));
  t.deepEqual(denied.response.status?.details?.causes.map((c) => c.field), ['apiVersion']);
});

test('webhook admission - UPDATE: an immutable field changed is denied, what controllers write is allowed', async (t) => {
  const { server } = await serve(t, tls.files);
  const stored = maasMachine();
  const written = maasMachine({ providerID: 'maas:///az1/4y3h7n', systemID: '4y3h7n', failureDomain: 'az1' }, { ready: true, machineState: 'Deployed', machinePowered: true });
  t.true((await review(server.url, tls.pki.ca, admissionReview('UPDATE', written, stored))).response.allowed);

  const body = admissionReview('UPDATE', maasMachine({ minMemory: 16384 }), stored);
  const { response } = await review(server.url, tls.pki.ca, body);
  t.is(response.uid, uidOf(body));
  t.false(response.allowed);
  t.is(response.status?.message, 'MaasMachine.infrastructure.cluster.x-k8s.io "cp-0" is invalid: spec.minMemory: maas machine min memory change is not allowed, old=8192 MB, new=16384 MB');

  // A host: power and image may change; the boot MAC may not.
  const host = bmh({}, {}, { operationalStatus: 'OK', errorMessage: '', errorCount: 0, poweredOn: true, provisioningFailCount: 0, provisioning: { state: 'provisioned', ID: 'n1' } });
  const powered = structuredClone(host);
  (powered.spec as Obj).online = false;
  t.true((await review(server.url, tls.pki.ca, admissionReview('UPDATE', powered, host))).response.allowed);
  const remac = structuredClone(host);
  (remac.spec as Obj).bootMACAddress = '52:54:00:aa:bb:dd';
  const denied = await review(server.url, tls.pki.ca, admissionReview('UPDATE', remac, host));
  t.deepEqual(denied.response.status?.details?.causes, [{ reason: 'FieldValueForbidden', message: 'bootMACAddress can not be changed once it is set', field: 'spec.bootMACAddress' }]);
});

test('webhook admission - DELETE and CONNECT are allowed, whatever the object', async (t) => {
  const { server } = await serve(t, tls.files);
  const invalid = bmh({ bmc: { address: 'ilo4://192.0.2.1', credentialsName: 'x' } });
  const del = admissionReview('DELETE', null, invalid);
  t.deepEqual((await review(server.url, tls.pki.ca, del)).response, { uid: uidOf(del), allowed: true });
  const connect = admissionReview('CONNECT', null, null);
  const request = connect.request as Obj;
  request.kind = { group: '', version: 'v1', kind: 'PodExecOptions' };
  request.resource = { group: '', version: 'v1', resource: 'pods' };
  request.subResource = 'exec';
  t.deepEqual((await review(server.url, tls.pki.ca, connect)).response, { uid: uidOf(connect), allowed: true });
});

test('webhook admission - a kind metalfleet does not validate is allowed with a warning', async (t) => {
  const { server, log } = await serve(t, tls.files);
  const machine = { apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Machine', metadata: { name: 'm0', namespace: 'lab' }, spec: { clusterName: 'c1' } };
  const body = admissionReview('CREATE', machine);
  const { response } = await review(server.url, tls.pki.ca, body);
  t.deepEqual(response, {
    uid: uidOf(body),
    allowed: true,
    warnings: ['metalfleet does not validate cluster.x-k8s.io/v1beta1 Machine; admitted without checks (check the webhook configuration\'s rules)'],
  });
  const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'lab' }, stringData: { password: 'p' } };
  t.deepEqual((await review(server.url, tls.pki.ca, admissionReview('UPDATE', secret, secret))).response.warnings, [
    'metalfleet does not validate v1 Secret; admitted without checks (check the webhook configuration\'s rules)',
  ]);
  t.true(log.lines.some((l) => l.level === 'warn' && l.obj.kind === 'Machine' && l.obj.allowed === true));
});

test('webhook admission - a dry run gets the same verdict', async (t) => {
  const { server } = await serve(t, tls.files);
  const body = admissionReview('CREATE', bmh({ bootMACAddress: 'nope' }));
  (body.request as Obj).dryRun = true;
  const { response } = await review(server.url, tls.pki.ca, body);
  t.false(response.allowed);
  t.deepEqual(response.status?.details?.causes.map((c) => c.field), ['spec.bootMACAddress']);
});

test('webhook admission - every fixture of metalfleet validate gets the verdict validateObject gives', async (t) => {
  const { server } = await serve(t, tls.files);
  const seen = { checked: 0, updates: 0, denied: 0, unmanaged: 0 };
  for (const dir of ['test/fixtures/validate', 'test/fixtures/maas']) {
    const names = (await readdir(join(ROOT, dir))).filter((f) => f.endsWith('.yaml')).sort();
    const stored = new Map<string, unknown>();
    if (names.includes('old.yaml')) {
      for (const doc of readManifests(await readFile(join(ROOT, dir, 'old.yaml'), 'utf8'), 'old.yaml')) {
        stored.set(`${doc.kind}/${doc.namespace}/${doc.name}`, doc.object);
      }
    }
    for (const file of names.filter((f) => f !== 'old.yaml')) {
      for (const doc of readManifests(await readFile(join(ROOT, dir, file), 'utf8'), file)) {
        if (doc.yamlError !== undefined || doc.kind === undefined) continue;
        const old = file === 'new.yaml' ? stored.get(`${doc.kind}/${doc.namespace}/${doc.name}`) : undefined;
        const object = doc.object as Obj;
        const body = old === undefined ? admissionReview('CREATE', object) : admissionReview('UPDATE', object, old as Obj);
        if (old !== undefined) seen.updates++;
        const answer = await call(server.url, tls.pki.ca, { body: JSON.stringify(body) });
        const { response } = answer.json<AdmissionReviewResponse>();
        const where = `${dir}/${file}: ${doc.kind}/${doc.name}`;
        const expected = validateObject(doc.object, old);
        if (expected === null) {
          seen.unmanaged++;
          t.true(response.allowed, where);
          t.is(response.warnings?.length, 1, where);
        } else if (expected.errors.length === 0) {
          t.deepEqual(response, { uid: uidOf(body), allowed: true }, where);
        } else {
          seen.denied++;
          t.false(response.allowed, where);
          t.deepEqual(response.status?.details?.causes.map((c) => formatFieldError({ path: c.field, reason: c.message })), expected.errors.map(formatFieldError), where);
        }
        for (const secret of ['fixture-secret-password', 'fixture-url-password']) t.false(answer.text.includes(secret), `${where} leaks ${secret}`);
        seen.checked++;
      }
    }
  }
  t.true(seen.checked >= 15 && seen.updates >= 3 && seen.denied >= 3 && seen.unmanaged >= 2, JSON.stringify(seen));
});

test('webhook admission - the log names kind, namespace, name, uid, operation and verdict, never contents', async (t) => {
  const { server, log } = await serve(t, tls.files);
  const secretValues = ['s3cr3t-bmc-password', 'img-pass-9f2', 'cloud-config-token-77'];
  const host = bmh({
    image: { url: 'sftp://user:img-pass-9f2@images/x.qcow2', checksum: 'abc' },
  }, { annotations: { note: 'cloud-config-token-77' } });
  const denied = admissionReview('CREATE', host, null, 'uid-denied');
  const deniedAnswer = await call(server.url, tls.pki.ca, { body: JSON.stringify(denied) });
  const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'worker-0-bmc', namespace: 'metal3' }, stringData: { username: 'admin', password: 's3cr3t-bmc-password' } };
  await review(server.url, tls.pki.ca, admissionReview('CREATE', secret, null, 'uid-secret'));
  await review(server.url, tls.pki.ca, admissionReview('CREATE', bmh(), null, 'uid-allowed'));

  const line = (uid: string) => log.lines.find((l) => l.obj.uid === uid);
  t.like(line('uid-denied'), {
    level: 'info',
    msg: 'admission denied',
    obj: { webhook: 'validate', uid: 'uid-denied', operation: 'CREATE', kind: 'BareMetalHost', group: 'metal3.io', namespace: 'metal3', name: 'worker-0', allowed: false, fields: ['spec.image.url'] },
  });
  t.like(line('uid-secret'), { level: 'warn', obj: { kind: 'Secret', name: 'worker-0-bmc', allowed: true } });
  t.like(line('uid-allowed'), { level: 'debug', msg: 'admission allowed', obj: { allowed: true } });
  const logged = JSON.stringify(log.lines);
  for (const value of secretValues) t.false(logged.includes(value), `the log holds ${value}`);
  // The answer names the field, with the URL's password masked by the rule.
  t.false(deniedAnswer.text.includes('img-pass-9f2'));
  t.true(deniedAnswer.text.includes('sftp://xxxxx@images/x.qcow2'));
});

// The API server says what it sends in request.kind; the object's own apiVersion/kind is not the authority.
const untyped = (obj: Obj): Obj => {
  const { apiVersion: _apiVersion, kind: _kind, ...rest } = obj;
  return rest;
};

test('webhook admission - the kind is the request\'s: an object without apiVersion/kind is still validated', async (t) => {
  const { server } = await serve(t, tls.files);
  const invalid = bmh({ bootMACAddress: 'nope' });
  const body = admissionReview('CREATE', invalid);
  (body.request as Obj).object = untyped(invalid);
  const { response } = await review(server.url, tls.pki.ca, body);
  t.false(response.allowed);
  t.is(response.warnings, undefined);
  t.like(response.status, { code: 422, reason: 'Invalid', details: { kind: 'BareMetalHost', group: 'metal3.io', name: 'worker-0' } });
  t.deepEqual(response.status?.details?.causes.map((c) => c.field), ['spec.bootMACAddress']);

  // An update is checked against the stored version, which may lack them too.
  const stored = bmh();
  const remac = bmh({ bootMACAddress: '52:54:00:aa:bb:dd' });
  const update = admissionReview('UPDATE', remac, stored);
  Object.assign(update.request as Obj, { object: untyped(remac), oldObject: untyped(stored) });
  t.deepEqual((await review(server.url, tls.pki.ca, update)).response.status?.details?.causes.map((c) => c.field), ['spec.bootMACAddress']);

  // A valid one is allowed, with no warning.
  const valid = admissionReview('CREATE', bmh());
  (valid.request as Obj).object = untyped(bmh());
  t.deepEqual((await review(server.url, tls.pki.ca, valid)).response, { uid: uidOf(valid), allowed: true });

  // A kind metalfleet does not own is still allowed with the warning, named from request.kind.
  const machine = { apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Machine', metadata: { name: 'm0', namespace: 'lab' }, spec: { clusterName: 'c1' } };
  const other = admissionReview('CREATE', machine);
  (other.request as Obj).object = untyped(machine);
  t.deepEqual((await review(server.url, tls.pki.ca, other)).response, {
    uid: uidOf(other),
    allowed: true,
    warnings: ['metalfleet does not validate cluster.x-k8s.io/v1beta1 Machine; admitted without checks (check the webhook configuration\'s rules)'],
  });
});

test('webhook admission - without request.kind the object\'s apiVersion/kind is used', async (t) => {
  const { server } = await serve(t, tls.files);
  const body = admissionReview('CREATE', bmh({ bootMACAddress: 'nope' }));
  delete (body.request as Obj).kind;
  const { response } = await review(server.url, tls.pki.ca, body);
  t.false(response.allowed);
  t.deepEqual(response.status?.details?.causes.map((c) => c.field), ['spec.bootMACAddress']);
  const allowed = admissionReview('CREATE', bmh());
  delete (allowed.request as Obj).kind;
  t.deepEqual((await review(server.url, tls.pki.ca, allowed)).response, { uid: uidOf(allowed), allowed: true });
});

test('webhook admission - a review whose request.kind and object disagree, or that names no kind, is 400', async (t) => {
  const { server } = await serve(t, tls.files);
  const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'lab' }, stringData: { password: 'hunter2-xyz' } };
  const asSecret = admissionReview('CREATE', secret);
  (asSecret.request as Obj).object = bmh({ bootMACAddress: 'nope' });
  const otherVersion = admissionReview('CREATE', bmh());
  ((otherVersion.request as Obj).object as Obj).apiVersion = 'metal3.io/v1beta1';
  const oldDisagrees = admissionReview('UPDATE', bmh(), secret);
  const noKind = admissionReview('CREATE', untyped(bmh()));
  delete (noKind.request as Obj).kind;
  const cases: Array<[Obj, string]> = [
    [asSecret, 'request.object.apiVersion: expected "v1" as request.kind says; request.object.kind: expected "Secret" as request.kind says'],
    [otherVersion, 'request.object.apiVersion: expected "metal3.io/v1alpha1" as request.kind says'],
    [oldDisagrees, 'request.oldObject.apiVersion: expected "metal3.io/v1alpha1" as request.kind says; request.oldObject.kind: expected "BareMetalHost" as request.kind says'],
    [noKind, 'request.kind: required (the object names no kind either)'],
  ];
  for (const [body, message] of cases) {
    const answer = await call(server.url, tls.pki.ca, { body: JSON.stringify(body) });
    t.is(answer.status, 400, answer.text);
    t.like(answer.json<Obj>(), { reason: 'BadRequest', code: 400, message: `body: not an admission.k8s.io/v1 AdmissionReview: ${message}` });
    t.false(answer.text.includes('hunter2-xyz'));
  }
});

test('webhook admission - a subresource request is allowed without validating the spec', async (t) => {
  const { server, log } = await serve(t, tls.files);
  // A status write carries the whole object; its spec is not what changes, so it is not checked.
  const host = bmh({}, {}, { operationalStatus: 'OK', errorMessage: '', errorCount: 0, poweredOn: true, provisioningFailCount: 0, provisioning: { state: 'provisioned', ID: 'n1' } });
  const stored = structuredClone(host);
  (stored.spec as Obj).bootMACAddress = '52:54:00:aa:bb:dd';
  const invalid = structuredClone(host);
  (invalid.spec as Obj).bmc = { address: 'ilo4://192.0.2.1', credentialsName: 'x' };
  for (const [object, old] of [[host, stored], [invalid, host]] as const) {
    const body = admissionReview('UPDATE', object, old);
    (body.request as Obj).subResource = 'status';
    t.deepEqual((await review(server.url, tls.pki.ca, body)).response, { uid: uidOf(body), allowed: true });
    t.true(log.lines.some((l) => l.obj.uid === uidOf(body) && l.level === 'debug' && l.obj.subResource === 'status'));
  }
  // Any other subresource too, e.g. a MaasMachine's scale-like writes.
  const machine = admissionReview('UPDATE', maasMachine({ minMemory: 16384 }), maasMachine());
  (machine.request as Obj).subResource = 'scale';
  t.deepEqual((await review(server.url, tls.pki.ca, machine)).response, { uid: uidOf(machine), allowed: true });
  // The main resource is still checked.
  const main = admissionReview('UPDATE', invalid, host);
  t.false((await review(server.url, tls.pki.ca, main)).response.allowed);
});
