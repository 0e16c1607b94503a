import test from 'ava';
import { generatedName, GENERATED_NAME_ALPHABET, validateObject } from '../../src/api/index.ts';
import { validateBareMetalHost } from '../../src/api/bmh/validate.ts';
import { admitValidation } from '../../src/adapters/kube/webhook/validating.ts';
import type { AdmissionRequest } from '../../src/adapters/kube/webhook/admission-review.ts';
import { host } from '../support/admission-host.ts';

// metadata.generateName as the API server treats it (reference/kube-api.md §5, §8): an object
// with a generateName and no name is a create, named then; the generateName is checked as a name
// prefix; an object with neither is refused in the API server's words.

function named(metadata: Record<string, unknown>) {
  return host((h) => {
    h.metadata = metadata as typeof h.metadata;
  });
}

test('generateName - a host named only by generateName is a valid create', (t) => {
  t.deepEqual(validateBareMetalHost(named({ generateName: 'worker-', namespace: 'metal3' })), []);
  t.deepEqual(validateObject(named({ generateName: 'worker-', namespace: 'metal3' }))?.errors, []);
});

test('generateName - with neither name nor generateName: Required, "name or generateName is required"', (t) => {
  t.deepEqual(validateBareMetalHost(named({ namespace: 'metal3' })), [
    { path: 'metadata.name', reason: 'name or generateName is required', type: 'Required' },
  ]);
});

test('generateName - an invalid generateName is one error at metadata.generateName, in the API server\'s words', (t) => {
  const errors = validateBareMetalHost(named({ generateName: 'Worker_', namespace: 'metal3' }));
  t.is(errors.length, 1, JSON.stringify(errors));
  t.is(errors[0]?.path, 'metadata.generateName');
  t.regex(errors[0]?.reason ?? '', /^Invalid value: "Worker_": a lowercase RFC 1123 subdomain must consist of/);
});

test('generateName - a trailing dash is masked as the API server masks it (maskTrailingDash)', (t) => {
  t.deepEqual(validateBareMetalHost(named({ generateName: 'w-', namespace: 'metal3' })), []);
  // The mask drops two characters and appends 'a': "a.-" checks as "aa", as upstream.
  t.deepEqual(validateBareMetalHost(named({ generateName: 'a.-', namespace: 'metal3' })), []);
  t.is(validateBareMetalHost(named({ generateName: '-', namespace: 'metal3' }))[0]?.path, 'metadata.generateName');
});

test('generateName - a generateName given beside a name is checked too; the name is the name', (t) => {
  const errors = validateBareMetalHost(named({ name: 'worker-0', generateName: 'Bad_', namespace: 'metal3' }));
  t.deepEqual(errors.map((e) => e.path), ['metadata.generateName']);
});

test('generateName - a generated name is the generateName cut to 58 characters and five of the API server\'s alphabet', (t) => {
  t.is(GENERATED_NAME_ALPHABET, 'bcdfghjklmnpqrstvwxz2456789');
  let i = 0;
  t.is(generatedName('worker-', () => i++), 'worker-bcdfg');
  const long = generatedName('a'.repeat(100), () => 0);
  t.is(long, `${'a'.repeat(58)}bbbbb`);
  t.is(long.length, 63);
});

test('generateName - MAAS kinds named only by generateName are valid creates too', (t) => {
  const machine = {
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'MaasMachine',
    metadata: { generateName: 'cp-', namespace: 'default' }, spec: { minCPU: 2, minMemory: 4096, image: 'ubuntu/jammy' },
  };
  t.deepEqual(validateObject(machine)?.errors, []);
  t.deepEqual(validateObject({ ...machine, metadata: { namespace: 'default' } })?.errors.map((e) => e.reason), ['Required value: name or generateName is required']);
});

test('generateName - the webhook admits a CREATE named only by generateName, and refuses a bad prefix', (t) => {
  const review = (object: unknown) => ({ uid: 'u', kind: { group: 'metal3.io', version: 'v1alpha1', kind: 'BareMetalHost' }, operation: 'CREATE', namespace: 'metal3', name: '', object }) as unknown as AdmissionRequest;
  t.deepEqual(admitValidation(review(named({ generateName: 'worker-', namespace: 'metal3' }))), { allowed: true });
  const denied = admitValidation(review(named({ generateName: 'Worker-', namespace: 'metal3' })));
  t.false(denied.allowed);
  t.deepEqual(denied.status?.details?.causes.map((c) => c.field), ['metadata.generateName']);
});
