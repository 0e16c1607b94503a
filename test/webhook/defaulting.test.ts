// The defaulting webhook: the defaults the CRD schemas declare, as a JSON patch that only adds
// what is missing, checked by applying the patch and comparing with what the API server's own
// structural defaulting gives (the test API server's, from the same generated CRDs).
import test from 'ava';
import { admissionReview, fileTls, review, serve } from './support.ts';
import { schemaDefaults } from '../../src/adapters/kube/webhook/schema-defaults.ts';

type Obj = Record<string, unknown>;
type Op = { op: string; path: string; value: unknown };

const tls = fileTls();

const bmh = (spec: Obj): Obj => ({ apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', metadata: { name: 'w0', namespace: 'metal3' }, spec });
const maasMachine = (spec: Obj): Obj => ({ apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'MaasMachine', metadata: { name: 'm0', namespace: 'capi' }, spec });

function patchOf(answer: { response: { patch?: string; patchType?: string } }): Op[] {
  return answer.response.patch === undefined ? [] : JSON.parse(Buffer.from(answer.response.patch, 'base64').toString('utf8')) as Op[];
}

test('defaulting - a BareMetalHost without automatedCleaningMode gets the CRD default as a JSON patch; bootMode has no CRD default upstream, so none is added', async (t) => {
  const { server } = await serve(t, tls.files);
  const answer = await review(server.url, tls.pki.ca, admissionReview('CREATE', bmh({ online: true, bmc: { address: 'ipmi://10.0.0.1', credentialsName: 'c' } })), '/mutate');
  t.true(answer.response.allowed);
  t.is((answer.response as { patchType?: string }).patchType, 'JSONPatch');
  t.deepEqual(patchOf(answer as never).sort((a, b) => a.path.localeCompare(b.path)), [
    { op: 'add', path: '/spec/automatedCleaningMode', value: 'metadata' },
  ]);
});

test('defaulting - values the user set are never overwritten; nothing to add means no patch', async (t) => {
  const { server } = await serve(t, tls.files);
  const set = await review(server.url, tls.pki.ca, admissionReview('CREATE', bmh({ online: true, bootMode: 'legacy', automatedCleaningMode: 'disabled' })), '/mutate');
  t.true(set.response.allowed);
  t.is((set.response as { patch?: string }).patch, undefined);
  t.is((set.response as { patchType?: string }).patchType, undefined);
  const half = await review(server.url, tls.pki.ca, admissionReview('UPDATE', bmh({ online: false, bootMode: 'UEFISecureBoot' }), bmh({ online: true })), '/mutate');
  t.deepEqual(patchOf(half as never), [{ op: 'add', path: '/spec/automatedCleaningMode', value: 'metadata' }]);
});

test('defaulting - MaasMachine deployInMemory, and nested defaults only inside objects the user gave', async (t) => {
  const { server } = await serve(t, tls.files);
  const bare = await review(server.url, tls.pki.ca, admissionReview('CREATE', maasMachine({ image: 'ubuntu/jammy' })), '/mutate');
  const ops = patchOf(bare as never);
  t.true(ops.some((o) => o.path === '/spec/deployInMemory' && o.value === false), JSON.stringify(ops));
  t.false(ops.some((o) => o.path.startsWith('/spec/lxd/')), 'no lxd object, so none of its defaults');
  const withLxd = await review(server.url, tls.pki.ca, admissionReview('CREATE', maasMachine({ image: 'ubuntu/jammy', deployInMemory: true, lxd: {} })), '/mutate');
  const lxdOps = patchOf(withLxd as never);
  t.false(lxdOps.some((o) => o.path === '/spec/deployInMemory'), 'deployInMemory: true kept');
  t.true(lxdOps.some((o) => o.path === '/spec/lxd/enabled' && o.value === false), JSON.stringify(lxdOps));
});

test('defaulting - DELETE, CONNECT and kinds it does not own pass unchanged', async (t) => {
  const { server } = await serve(t, tls.files);
  const del = await review(server.url, tls.pki.ca, admissionReview('DELETE', null, bmh({ online: true })), '/mutate');
  t.true(del.response.allowed);
  t.is((del.response as { patch?: string }).patch, undefined);
  const other = await review(server.url, tls.pki.ca, admissionReview('CREATE', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'y' } }), '/mutate');
  t.true(other.response.allowed);
  t.is((other.response as { patch?: string }).patch, undefined);
  t.regex(other.response.warnings?.[0] ?? '', /does not default/);
});

test('defaulting - pointers escape "/" and "~"; a defaulted object gets its own fields defaults; arrays are walked', (t) => {
  const schema = {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          'a/b~c': { type: 'string', default: 'x' },
          box: { type: 'object', default: {}, properties: { size: { type: 'integer', default: 3 } } },
          list: { type: 'array', items: { type: 'object', properties: { on: { type: 'boolean', default: true } } } },
          given: { type: 'string', nullable: true, default: 'd' },
        },
      },
      status: { type: 'object', properties: { ready: { type: 'boolean', default: false } } },
    },
  } as const;
  const ops = schemaDefaults(schema as never, { spec: { list: [{}, { on: false }], given: null }, status: {} }, new Set(['status']));
  t.deepEqual(ops.sort((a, b) => a.path.localeCompare(b.path)), [
    { op: 'add', path: '/spec/a~1b~0c', value: 'x' },
    { op: 'add', path: '/spec/box', value: { size: 3 } },
    { op: 'add', path: '/spec/list/0/on', value: true },
  ]);
});

test('defaulting - a subresource request (status, scale) gets no spec defaults and no warning', async (t) => {
  const { server } = await serve(t, tls.files);
  for (const [object, subResource] of [[bmh({ online: true }), 'status'], [maasMachine({ image: 'ubuntu/jammy' }), 'scale']] as const) {
    const body = admissionReview('UPDATE', object, object);
    (body.request as Obj).subResource = subResource;
    const answer = await review(server.url, tls.pki.ca, body, '/mutate');
    t.true(answer.response.allowed);
    t.is((answer.response as { patch?: string }).patch, undefined, `${subResource}: no patch`);
    t.is(answer.response.warnings, undefined, `${subResource}: no warning`);
  }
});
