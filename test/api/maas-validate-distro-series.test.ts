import test from 'ava';
import { validateMaasMachine, validateMaasMachineTemplate } from '../../src/api/index.ts';

// With osSystem given, distroSeries is the release alone: the deploy asks MAAS for
// `<osSystem>/<distroSeries>`, so `osSystem: ubuntu` with `distroSeries: ubuntu/jammy` would ask
// for ubuntu/ubuntu/jammy and fail every minute. Admission refuses it at spec.distroSeries; the
// `<osystem>/<release>` form stays image's.

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
