// Admission of MaasMachine (and template) fields that MAAS, or metalfleet's own client, would
// only refuse later, after apply, leaving the machine retrying an allocation or deploy that can
// never pass. Each is refused at apply instead, naming the field and what to write.
import test from 'ava';
import { openLocalStoreWithMaas } from '../support/maas-node.ts';
import { createMemoryBus } from '../../src/bus/index.ts';
import { validateMaasMachine, validateMaasMachineTemplate } from '../../src/api/index.ts';

const machine = (spec: Record<string, unknown>): unknown => ({
  apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'MaasMachine',
  metadata: { name: 'w0', namespace: 'capi' },
  spec: { minCPU: 1, minMemory: 1024, image: 'ubuntu/jammy', ...spec },
});

const template = (spec: Record<string, unknown>): unknown => ({
  apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'MaasMachineTemplate',
  metadata: { name: 't0', namespace: 'capi' },
  spec: { template: { spec: { minCPU: 1, minMemory: 1024, image: 'ubuntu/jammy', ...spec } } },
});

const paths = (errors: Array<{ path: string }>): string[] => errors.map((e) => e.path);

test('maas admission - a tag with a comma or a space, or an empty one, is refused naming its index', (t) => {
  const errors = validateMaasMachine(machine({ tags: ['ssd', 'gpu,nvidia', '10g fast', ''] }));
  t.deepEqual(paths(errors), ['spec.tags[1]', 'spec.tags[2]', 'spec.tags[3]']);
  t.regex(errors[0]?.reason ?? '', /^Invalid value: "gpu,nvidia": .*no spaces or commas.*each tag as its own item/);
  t.regex(errors[2]?.reason ?? '', /^Invalid value: "": .*empty/);
  t.deepEqual(paths(validateMaasMachineTemplate(template({ tags: ['a b'] }))), ['spec.template.spec.tags[0]']);
  t.deepEqual(validateMaasMachine(machine({ tags: ['ssd', '10g', 'gpu-01_x.y'] })), []);
});

test('maas admission - an image with an empty half is refused', (t) => {
  for (const image of ['/jammy', 'ubuntu/', '/']) {
    const errors = validateMaasMachine(machine({ image }));
    t.deepEqual(paths(errors), ['spec.image'], image);
    t.regex(errors[0]?.reason ?? '', /e\.g\. ubuntu\/jammy/, image);
  }
  // A bare name is a custom image, as CAPMAAS reads it.
  t.deepEqual(validateMaasMachine(machine({ image: 'u-2204-0-k-1243-0' })), []);
  t.deepEqual(validateMaasMachine(machine({ image: 'custom/u-2204-0-k-1243-0' })), []);
});

test('maas admission - a systemID that is no MAAS system id, or that names another machine than the providerID, is refused', (t) => {
  const other = validateMaasMachine(machine({ systemID: 'abc123', providerID: 'maas:///az1/xyz789' }));
  t.deepEqual(paths(other), ['spec.systemID']);
  t.regex(other[0]?.reason ?? '', /xyz789/);
  t.deepEqual(paths(validateMaasMachine(machine({ systemID: 'a/b' }))), ['spec.systemID']);
  t.deepEqual(paths(validateMaasMachine(machine({ systemID: 'abc 123' }))), ['spec.systemID']);
  // Empty is "not allocated yet", as an empty providerID is.
  t.deepEqual(validateMaasMachine(machine({ systemID: '', providerID: '' })), []);
  t.deepEqual(validateMaasMachine(machine({ systemID: 'xyz789', providerID: 'maas:///az1/xyz789' })), []);
  t.deepEqual(validateMaasMachine(machine({ systemID: 'xyz789' })), []);
});

test('maas admission - apply refuses such a MaasMachine, naming the field', async (t) => {
  const local = await openLocalStoreWithMaas(createMemoryBus().connect('test'));
  try {
    const applied = await local.applyObjects([machine({ tags: ['ssd,10g'] })]);
    t.false(applied.ok);
    t.true(JSON.stringify(applied.issues).includes('spec.tags[0]'), JSON.stringify(applied.issues));
    t.is(await local.objects.get('MaasMachine', 'capi/w0'), undefined);
  } finally {
    await local.objects.close();
  }
});

test('maas admission - an object stored before these rules stays writable while the field is unchanged; changing the field to a bad value is refused', (t) => {
  const stored = machine({ tags: ['ssd,10g'], image: 'ubuntu/jammy' }) as { metadata: Record<string, unknown>; spec: Record<string, unknown> };
  const annotated = { ...stored, metadata: { ...stored.metadata, annotations: { a: 'b' } } };
  t.deepEqual(validateMaasMachine(annotated, stored), []);
  const worse = { ...stored, spec: { ...stored.spec, tags: ['ssd,10g', 'a b'] } };
  t.deepEqual(paths(validateMaasMachine(worse, stored)), ['spec.tags[0]', 'spec.tags[1]']);
  const fixed = { ...stored, spec: { ...stored.spec, tags: ['ssd', '10g'] } };
  t.deepEqual(validateMaasMachine(fixed, stored), []);
});
