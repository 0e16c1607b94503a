import test from 'ava';
import type { FieldError } from '../../src/api/field-error.ts';
import {
  validateMaasCluster, validateMaasMachine, validateMaasMachineTemplate, validateObject, validatedKindOf,
} from '../../src/api/maas/index.ts';

// Admission for the MAAS kinds: the CRD schema, the providerID, and on update CAPMAAS's webhook
// (image, minCPU, minMemory and dnsDomain never change). Each failing case is a valid object with
// one change.

const API = 'infrastructure.cluster.x-k8s.io/v1beta1';
type Obj = Record<string, unknown>;

function machineSpec(): Obj {
  return { image: 'custom/u-2204-0-k-1243-0', minCPU: 4, minMemory: 8192, tags: ['ssd'] };
}
function machine(patch: (spec: Obj, root: Obj) => void = () => {}): Obj {
  const spec = machineSpec();
  const root: Obj = { apiVersion: API, kind: 'MaasMachine', metadata: { name: 'cp-0', namespace: 'lab' }, spec };
  patch(spec, root);
  return root;
}
function template(patch: (spec: Obj, root: Obj) => void = () => {}): Obj {
  const spec = machineSpec();
  const root: Obj = { apiVersion: API, kind: 'MaasMachineTemplate', metadata: { name: 'cp', namespace: 'lab' }, spec: { template: { spec } } };
  patch(spec, root);
  return root;
}
function cluster(patch: (spec: Obj, root: Obj) => void = () => {}): Obj {
  const spec: Obj = { dnsDomain: 'maas', failureDomains: ['az1'] };
  const root: Obj = { apiVersion: API, kind: 'MaasCluster', metadata: { name: 'c1', namespace: 'lab' }, spec };
  patch(spec, root);
  return root;
}
const pairs = (errors: FieldError[]) => errors.map((e) => [e.path, e.reason]);

test('maas validate - valid objects have no errors', (t) => {
  t.deepEqual(validateMaasMachine(machine()), []);
  t.deepEqual(validateMaasMachineTemplate(template()), []);
  t.deepEqual(validateMaasCluster(cluster()), []);
  t.deepEqual(validateMaasMachine(machine((s) => { s.providerID = 'maas:///az1/4y3h7n'; s.systemID = '4y3h7n'; })), []);
  // An empty providerID is CAPMAAS's "not allocated yet".
  t.deepEqual(validateMaasMachine(machine((s) => { s.providerID = ''; })), []);
});

const MACHINE_REQUIRED: Array<[string, (spec: Obj, root: Obj) => void]> = [
  ['apiVersion', (_s, r) => { delete r.apiVersion; }],
  ['kind', (_s, r) => { delete r.kind; }],
  ['metadata', (_s, r) => { delete r.metadata; }],
  ['metadata.name', (_s, r) => { r.metadata = { namespace: 'lab' }; }],
  ['spec', (_s, r) => { delete r.spec; }],
  ['spec.minCPU', (s) => { delete s.minCPU; }],
  ['spec.minMemory', (s) => { delete s.minMemory; }],
];
for (const [path, patch] of MACHINE_REQUIRED) {
  test(`maas validate - MaasMachine without ${path}`, (t) => {
    const errors = validateMaasMachine(machine(patch));
    // The API server's ValidateObjectMeta words a missing name its own way.
    const reason = path === 'metadata.name' ? 'Required value: name or generateName is required' : 'Required value';
    t.deepEqual(errors, [{ path, reason, type: 'Required' }]);
  });
}

const TEMPLATE_REQUIRED: Array<[string, (spec: Obj, root: Obj) => void]> = [
  ['spec.template', (_s, r) => { r.spec = {}; }],
  ['spec.template.spec', (_s, r) => { r.spec = { template: {} }; }],
  ['spec.template.spec.minCPU', (s) => { delete s.minCPU; }],
  ['spec.template.spec.minMemory', (s) => { delete s.minMemory; }],
];
for (const [path, patch] of TEMPLATE_REQUIRED) {
  test(`maas validate - MaasMachineTemplate without ${path}`, (t) => {
    t.deepEqual(validateMaasMachineTemplate(template(patch)), [{ path, reason: 'Required value', type: 'Required' }]);
  });
}

test('maas validate - MaasCluster without spec, dnsDomain, or an endpoint port', (t) => {
  t.deepEqual(pairs(validateMaasCluster(cluster((_s, r) => { delete r.spec; }))), [['spec', 'Required value']]);
  t.deepEqual(pairs(validateMaasCluster(cluster((s) => { delete s.dnsDomain; }))), [['spec.dnsDomain', 'Required value']]);
  t.deepEqual(pairs(validateMaasCluster(cluster((s) => { s.controlPlaneEndpoint = { host: 'c1.maas' }; }))), [['spec.controlPlaneEndpoint.port', 'Required value']]);
});

test('maas validate - minimums, lengths and types', (t) => {
  t.deepEqual(pairs(validateMaasMachine(machine((s) => { s.minCPU = -1; s.minMemory = -2; s.minDiskSize = -3; s.image = ''; }))), [
    ['spec.minCPU', 'Invalid value: -1: should be greater than or equal to 0'],
    ['spec.minMemory', 'Invalid value: -2: should be greater than or equal to 0'],
    ['spec.minDiskSize', 'Invalid value: -3: should be greater than or equal to 0'],
    ['spec.image', 'Invalid value: "": should be at least 1 chars long'],
  ]);
  t.deepEqual(pairs(validateMaasMachine(machine((s) => { s.minCPU = '4'; s.minMemory = 8192.5; s.tags = 'ssd'; s.deployInMemory = 'yes'; }))), [
    ['spec.minCPU', 'Invalid value: "4": must be of type integer'],
    ['spec.minMemory', 'Invalid value: 8192.5: must be of type integer'],
    ['spec.tags', 'Invalid value: "ssd": must be of type array'],
    ['spec.deployInMemory', 'Invalid value: "yes": must be of type boolean'],
  ]);
  t.deepEqual(pairs(validateMaasCluster(cluster((s) => { s.dnsDomain = ''; s.failureDomains = ['az1', 2]; }))), [
    ['spec.dnsDomain', 'Invalid value: "": should be at least 1 chars long'],
    ['spec.failureDomains[1]', 'Invalid value: 2: must be of type string'],
  ]);
  t.deepEqual(pairs(validateMaasCluster(cluster((s) => { s.lxdConfig = { nicType: 'ovs' }; }))), [
    ['spec.lxdConfig.nicType', 'Unsupported value: "ovs": supported values: "bridge", "macvlan"'],
  ]);
  t.deepEqual(pairs(validateMaasMachine(machine((_s, r) => { r.apiVersion = 'infrastructure.cluster.x-k8s.io/v1alpha4'; }))), [
    ['apiVersion', 'Unsupported value: "infrastructure.cluster.x-k8s.io/v1alpha4": supported values: "infrastructure.cluster.x-k8s.io/v1beta1"'],
  ]);
  t.deepEqual(pairs(validateMaasMachine('not an object')), [['(root)', 'Invalid value: "not an object": must be of type object']]);
});

test('maas validate - every problem at once', (t) => {
  const errors = validateMaasMachine(machine((s) => { delete s.minCPU; s.minMemory = -1; s.providerID = 'maas:///az1/'; }));
  t.deepEqual(errors.map((e) => e.path), ['spec.minCPU', 'spec.minMemory', 'spec.providerID']);
});

test('maas validate - a bad providerID names its form', (t) => {
  const form = '<provider>://<optional>/<segments>/<id> (for MAAS maas:///<zone>/<system_id>)';
  for (const [value, why] of [
    ['4y3h7n', 'there is no "://" after the provider name'],
    ['maas:/az1/4y3h7n', 'there is no "://" after the provider name'],
    [':///az1/4y3h7n', 'there is no provider name before "://"'],
    ['maas://', 'there is nothing after "://"'],
    ['maas:///az1/', 'it ends with "/", so it names no id'],
  ]) {
    t.deepEqual(pairs(validateMaasMachine(machine((s) => { s.providerID = value; }))), [['spec.providerID', `providerID ${JSON.stringify(value)} must be of the form ${form}: ${why}`]], value);
  }
  t.deepEqual(pairs(validateMaasMachine(machine((s) => { s.providerID = 'aws:///us-east-1a/i-0abc'; }))), [
    ['spec.providerID', 'providerID "aws:///us-east-1a/i-0abc" names provider "aws"; a MaasMachine\'s providerID is maas:///<zone>/<system_id>'],
  ]);
  t.deepEqual(validateMaasMachineTemplate(template((s) => { s.providerID = 'maas:'; })).map((e) => e.path), ['spec.template.spec.providerID']);
});

test('maas validate - MaasMachine update: image, minCPU and minMemory are immutable', (t) => {
  const old = machine();
  t.deepEqual(pairs(validateMaasMachine(machine((s) => { s.image = 'custom/u-2404-0-k-1312-0'; }), old)), [
    ['spec.image', 'maas machine image change is not allowed, old=custom/u-2204-0-k-1243-0, new=custom/u-2404-0-k-1312-0'],
  ]);
  t.deepEqual(pairs(validateMaasMachine(machine((s) => { s.minCPU = 8; }), old)), [
    ['spec.minCPU', 'maas machine min cpu count change is not allowed, old=4, new=8'],
  ]);
  t.deepEqual(pairs(validateMaasMachine(machine((s) => { s.minMemory = 16384; }), old)), [
    ['spec.minMemory', 'maas machine min memory change is not allowed, old=8192 MB, new=16384 MB'],
  ]);
  const all = validateMaasMachine(machine((s) => { s.image = 'ubuntu/noble'; s.minCPU = 0; s.minMemory = 1; }), old);
  t.deepEqual(all.map((e) => [e.path, e.type]), [['spec.image', 'Forbidden'], ['spec.minCPU', 'Forbidden'], ['spec.minMemory', 'Forbidden']]);
});

test('maas validate - MaasMachine update: what the controller writes may change', (t) => {
  const old = machine();
  const next = machine((s, r) => {
    s.providerID = 'maas:///az1/4y3h7n'; s.systemID = '4y3h7n'; s.failureDomain = 'az1'; s.tags = ['ssd', 'nvme'];
    r.status = { ready: true, machineState: 'Deployed', machinePowered: true };
  });
  t.deepEqual(validateMaasMachine(next, old), []);
});

test('maas validate - a field missing on either side is the schema\'s error, not a change', (t) => {
  t.deepEqual(pairs(validateMaasMachine(machine((s) => { delete s.minCPU; }), machine())), [['spec.minCPU', 'Required value']]);
  t.deepEqual(validateMaasMachine(machine(), machine((s) => { delete s.image; })), []);
  t.deepEqual(validateMaasMachine(machine(), { kind: 'MaasMachine' }), []);
});

test('maas validate - MaasMachineTemplate update: the same three fields under spec.template.spec', (t) => {
  const old = template();
  const errors = validateMaasMachineTemplate(template((s) => { s.image = 'custom/u-2404-0-k-1312-0'; s.minCPU = 8; s.minMemory = 4096; s.tags = []; }), old);
  t.deepEqual(pairs(errors), [
    ['spec.template.spec.image', 'maas machine template image change is not allowed, old=custom/u-2204-0-k-1243-0, new=custom/u-2404-0-k-1312-0'],
    ['spec.template.spec.minCPU', 'maas machine template min cpu count change is not allowed, old=4, new=8'],
    ['spec.template.spec.minMemory', 'maas machine template min memory change is not allowed, old=8192 MB, new=4096 MB'],
  ]);
  t.deepEqual(validateMaasMachineTemplate(template((s) => { s.deployInMemory = true; }), old), []);
});

test('maas validate - MaasCluster update: dnsDomain is immutable, the rest is not', (t) => {
  const old = cluster();
  t.deepEqual(pairs(validateMaasCluster(cluster((s) => { s.dnsDomain = 'lab.maas'; }), old)), [
    ['spec.dnsDomain', 'changing cluster DNS Domain not allowed, old=maas, new=lab.maas'],
  ]);
  const filled = cluster((s, r) => {
    s.controlPlaneEndpoint = { host: 'c1-3f9a2b.maas', port: 6443 }; s.failureDomains = ['az1', 'az2'];
    r.status = { ready: true, network: { dnsName: 'c1-3f9a2b.maas' } };
  });
  t.deepEqual(validateMaasCluster(filled, old), []);
});

test('maas validate - validateObject dispatches by kind', (t) => {
  t.deepEqual(validateObject(machine()), { kind: 'MaasMachine', errors: [] });
  t.deepEqual(validateObject(template()), { kind: 'MaasMachineTemplate', errors: [] });
  t.deepEqual(validateObject(cluster((s) => { s.dnsDomain = 'x'; }), cluster()), {
    kind: 'MaasCluster', errors: [{ path: 'spec.dnsDomain', reason: 'changing cluster DNS Domain not allowed, old=maas, new=x', type: 'Forbidden' }],
  });
  const host = validateObject({ apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', metadata: { name: 'h' }, spec: { online: 'yes' } });
  t.is(host?.kind, 'BareMetalHost');
  t.deepEqual(host?.errors.map((e) => e.path), ['spec.online']);
  // Without apiVersion it is still ours, and the missing field is named.
  t.deepEqual(validateObject(machine((_s, r) => { delete r.apiVersion; }))?.errors.map((e) => e.path), ['apiVersion']);
});

test('maas validate - kinds metalfleet does not own get null', (t) => {
  t.is(validateObject({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' } }), null);
  t.is(validateObject({ apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Machine', metadata: { name: 'm' } }), null);
  t.is(validateObject({ apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Cluster', metadata: { name: 'c' } }), null);
  t.is(validateObject({ apiVersion: 'example.com/v1', kind: 'MaasMachine', metadata: { name: 'm' } }), null);
  t.is(validateObject({ apiVersion: API, kind: 'MaasClusterTemplate', metadata: { name: 'c' } }), null);
  t.is(validateObject({ metadata: { name: 'x' } }), null);
  t.is(validateObject(null), null);
  t.is(validateObject('MaasMachine'), null);
  t.is(validatedKindOf({ apiVersion: 'infrastructure.cluster.x-k8s.io/v1alpha4', kind: 'MaasCluster' }), 'MaasCluster');
  t.is(validatedKindOf({ kind: 'BareMetalHost' }), 'BareMetalHost');
});
