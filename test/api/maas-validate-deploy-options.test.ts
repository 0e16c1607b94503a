import test from 'ava';
import { imageOf, validateMaasMachine, validateMaasMachineTemplate } from '../../src/api/index.ts';

// Admission of metalfleet's deploy options on a MaasMachine and its template (issue 32): the image
// named once (image, or osSystem with distroSeries), a static address that is an address, and
// the new deploy fields as immutable as CAPMAAS's image.

type Obj = Record<string, unknown>;
const machine = (spec: Obj): Obj => ({
  apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'MaasMachine', metadata: { name: 'm', namespace: 'lab' },
  spec: { minCPU: 1, minMemory: 1024, ...spec },
});
const template = (spec: Obj): Obj => ({
  apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'MaasMachineTemplate', metadata: { name: 't', namespace: 'lab' },
  spec: { template: { spec: { minCPU: 1, minMemory: 1024, ...spec } } },
});
const pairs = (errors: Array<{ path: string; reason: string }>) => errors.map((e) => [e.path, e.reason]);

test('maas validate options - image, or osSystem with distroSeries, is valid with the kernel, hw sync and static address', (t) => {
  t.deepEqual(validateMaasMachine(machine({ image: 'custom/my-image' })), []);
  t.deepEqual(validateMaasMachine(machine({
    osSystem: 'ubuntu', distroSeries: 'noble', hweKernel: 'hwe-24.04', minHweKernel: 'hwe-22.04', enableHwSync: true,
    staticAddress: { interface: 'eno1', subnet: '10.10.1.0/24', address: '10.10.1.200', defaultGateway: true },
  })), []);
  t.deepEqual(validateMaasMachineTemplate(template({ osSystem: 'custom', distroSeries: 'my-image', staticAddress: { subnet: 'lab' } })), []);
  t.deepEqual(imageOf({ osSystem: 'custom', distroSeries: 'my-image' }), { osystem: 'custom', distroSeries: 'my-image' });
  t.deepEqual(imageOf({ image: 'u-2204' }), { osystem: 'custom', distroSeries: 'u-2204' });
  t.is(imageOf({}), null);
});

test('maas validate options - both, neither, or half of osSystem/distroSeries is refused at the field', (t) => {
  t.deepEqual(pairs(validateMaasMachine(machine({ image: 'ubuntu/jammy', osSystem: 'ubuntu', distroSeries: 'jammy' }))), [
    ['spec.image', 'image and osSystem and distroSeries are both set; give either image (e.g. ubuntu/jammy) or osSystem with distroSeries, not both'],
  ]);
  t.deepEqual(pairs(validateMaasMachine(machine({}))), [['spec.image', 'Required value: give image (e.g. ubuntu/jammy or custom/my-image), or osSystem with distroSeries']]);
  t.deepEqual(pairs(validateMaasMachine(machine({ osSystem: 'rhel' }))), [['spec.distroSeries', 'osSystem rhel needs distroSeries (the release, e.g. jammy, or the custom image\'s name)']]);
  t.deepEqual(pairs(validateMaasMachine(machine({ distroSeries: 'jammy' }))), [['spec.osSystem', 'distroSeries jammy needs osSystem (e.g. ubuntu, or custom for a custom image)']]);
  t.deepEqual(pairs(validateMaasMachineTemplate(template({}))), [['spec.template.spec.image', 'Required value: give image (e.g. ubuntu/jammy or custom/my-image), or osSystem with distroSeries']]);
});

test('maas validate options - a static address must be an IPv4 address, and its subnet is required', (t) => {
  t.deepEqual(pairs(validateMaasMachine(machine({ image: 'ubuntu/jammy', staticAddress: { subnet: '10.10.1.0/24', address: '10.10.1.300' } }))), [
    ['spec.staticAddress.address', '"10.10.1.300" is not an IPv4 address'],
  ]);
  t.deepEqual(validateMaasMachine(machine({ image: 'ubuntu/jammy', staticAddress: { address: '10.10.1.3' } })).map((e) => e.path), ['spec.staticAddress.subnet']);
});

test('maas validate options - osSystem, distroSeries and the kernels never change on update', (t) => {
  const old = machine({ osSystem: 'ubuntu', distroSeries: 'jammy', hweKernel: 'hwe-22.04' });
  t.deepEqual(validateMaasMachine(machine({ osSystem: 'ubuntu', distroSeries: 'jammy', hweKernel: 'hwe-22.04', enableHwSync: true }), old), []);
  t.deepEqual(pairs(validateMaasMachine(machine({ osSystem: 'ubuntu', distroSeries: 'noble', minHweKernel: 'hwe-24.04' }), old)), [
    ['spec.distroSeries', 'maas machine distroSeries change is not allowed, old=jammy, new=noble'],
    ['spec.hweKernel', 'maas machine hweKernel change is not allowed, old=hwe-22.04, new='],
    ['spec.minHweKernel', 'maas machine minHweKernel change is not allowed, old=, new=hwe-24.04'],
  ]);
});

// With osSystem given, distroSeries is the release alone: the deploy asks MAAS for
// `<osSystem>/<distroSeries>`, so `osSystem: ubuntu` with `distroSeries: ubuntu/jammy` would ask
// for ubuntu/ubuntu/jammy and fail every minute. Admission refuses it at spec.distroSeries; the
// `<osystem>/<release>` form stays image's.

test('maas validate distroSeries - with osSystem, a slash in distroSeries is refused at spec.distroSeries, saying the fix', (t) => {
  t.deepEqual(pairs(validateMaasMachine(machine({ osSystem: 'ubuntu', distroSeries: 'ubuntu/jammy' }))), [
    ['spec.distroSeries', 'Invalid value: "ubuntu/jammy": with osSystem ubuntu, distroSeries is the release alone, without a slash (e.g. distroSeries: jammy, or image: ubuntu/jammy without osSystem and distroSeries); MAAS would be asked for image ubuntu/ubuntu/jammy, which it does not have'],
  ]);
  t.deepEqual(validateMaasMachineTemplate(template({ osSystem: 'ubuntu', distroSeries: 'ubuntu/jammy' })).map((e) => e.path), ['spec.template.spec.distroSeries']);
  // Another osystem's half: no guess at the fix, still the field and the image MAAS would be asked for.
  const [other] = validateMaasMachine(machine({ osSystem: 'custom', distroSeries: 'ubuntu/jammy' }));
  t.is(other?.path, 'spec.distroSeries');
  t.regex(other?.reason ?? '', /^Invalid value: "ubuntu\/jammy": with osSystem custom, distroSeries is the release alone, without a slash; MAAS would be asked for image custom\/ubuntu\/jammy/);
});

test('maas validate distroSeries - the image form and a release alone stay as they were', (t) => {
  t.deepEqual(validateMaasMachine(machine({ osSystem: 'ubuntu', distroSeries: 'jammy' })), []);
  t.deepEqual(validateMaasMachine(machine({ image: 'ubuntu/jammy' })), []);
  t.deepEqual(validateMaasMachineTemplate(template({ image: 'custom/my-image' })), []);
  // Without osSystem it is only the existing rule's error (osSystem is needed), no second one.
  t.deepEqual(validateMaasMachine(machine({ distroSeries: 'ubuntu/jammy' })).map((e) => e.path), ['spec.osSystem']);
  // With image too, the one error is that both are set.
  t.deepEqual(validateMaasMachine(machine({ image: 'ubuntu/jammy', osSystem: 'ubuntu', distroSeries: 'ubuntu/jammy' })).map((e) => e.path), ['spec.image']);
});

test('maas validate distroSeries - an object stored before the rule stays writable while the fields are unchanged', (t) => {
  const old = machine({ osSystem: 'ubuntu', distroSeries: 'ubuntu/jammy' });
  t.deepEqual(validateMaasMachine(machine({ osSystem: 'ubuntu', distroSeries: 'ubuntu/jammy', enableHwSync: true }), old), []);
});
