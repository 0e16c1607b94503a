// The webhook takes the same name and size rules as validate and apply (issue 19.5), in the API
// server's words, so a kubectl user and a `metalfleet validate` user are told the same thing.
import test from 'ava';
import { admitValidation } from '../../src/adapters/kube/webhook/validating.ts';
import type { AdmissionRequest } from '../../src/adapters/kube/webhook/admission-review.ts';

function create(object: Record<string, unknown>): AdmissionRequest {
  return {
    uid: 'u-1', kind: { group: 'metal3.io', version: 'v1alpha1', kind: 'BareMetalHost' },
    resource: { group: 'metal3.io', version: 'v1alpha1', resource: 'baremetalhosts' },
    name: '', namespace: 'metal3', operation: 'CREATE', object, oldObject: null,
  } as unknown as AdmissionRequest;
}

function host(metadata: Record<string, unknown>, spec: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', metadata,
    spec: { online: true, bootMACAddress: '00:11:22:33:44:55', bmc: { address: 'redfish://10.0.0.1/redfish/v1/Systems/1', credentialsName: 'c' }, ...spec },
  };
}

test('webhook limits - a name past 253 characters and a namespace that is no DNS label are denied on their fields', (t) => {
  const verdict = admitValidation(create(host({ name: 'n'.repeat(300), namespace: 'Metal_3' })));
  t.false(verdict.allowed);
  const causes = verdict.status?.details?.causes ?? [];
  t.deepEqual(causes.map((c) => c.field), ['metadata.name', 'metadata.namespace']);
  t.regex(causes[0]?.message ?? '', /must be no more than 253 characters$/);
  t.regex(causes[1]?.message ?? '', /^Invalid value: "Metal_3": a lowercase RFC 1123 label must consist of/);
  t.is(verdict.status?.code, 422);
});

test('webhook limits - an object too big for the stores is denied before its rules run', (t) => {
  const verdict = admitValidation(create(host({ name: 'big', namespace: 'metal3' }, { description: 'x'.repeat(1_000_000) })));
  t.false(verdict.allowed);
  t.deepEqual(verdict.status?.details?.causes?.map((c) => c.field), ['(root)']);
  t.regex(verdict.status?.message ?? '', /^BareMetalHost\.metal3\.io "big" is invalid: \(root\): Too long: the object is/);
});

test('webhook limits - a valid host is still allowed', (t) => {
  t.deepEqual(admitValidation(create(host({ name: 'worker-0.rack-1', namespace: 'metal3', labels: { 'example.com/rack': 'r1' } }))), { allowed: true });
});
