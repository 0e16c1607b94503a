// Kubernetes' name rules where objects enter, in the API server's words (issue 19.5: a
// 5,000-character name was taken, then retried at the store forever).
import test from 'ava';
import { dns1123LabelProblems, dns1123SubdomainProblems, labelValueProblems, objectMetaErrors, qualifiedNameProblems } from '../../src/api/names.ts';
import { validateObject } from '../../src/api/maas/index.ts';

const SUBDOMAIN = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name', or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

function bmh(metadata: Record<string, unknown>): unknown {
  return {
    apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', metadata,
    spec: { online: true, bootMACAddress: '00:11:22:33:44:55', bmc: { address: 'redfish://10.0.0.1/redfish/v1/Systems/1', credentialsName: 'c' } },
  };
}

test('names - DNS-1123 subdomain and label, as apimachinery words them', (t) => {
  t.deepEqual(dns1123SubdomainProblems('worker-0.rack-1'), []);
  t.deepEqual(dns1123SubdomainProblems('Worker'), [SUBDOMAIN]);
  t.deepEqual(dns1123SubdomainProblems('a'.repeat(254)), ['must be no more than 253 characters']);
  t.deepEqual(dns1123SubdomainProblems('a'.repeat(253)), []);
  t.deepEqual(dns1123LabelProblems('metal3'), []);
  t.deepEqual(dns1123LabelProblems('a.b'), ['must not contain dots']);
  t.deepEqual(dns1123LabelProblems('-a'), [LABEL]);
  t.deepEqual(dns1123LabelProblems('a'.repeat(64)), ['must be no more than 63 characters']);
});

test('names - qualified names and label values', (t) => {
  t.deepEqual(qualifiedNameProblems('example.com/My_name'), []);
  t.deepEqual(qualifiedNameProblems('/x'), ['prefix part must be non-empty']);
  t.deepEqual(qualifiedNameProblems('Example.com/x'), [`prefix part ${SUBDOMAIN}`]);
  t.is(qualifiedNameProblems('a/b/c').length, 1);
  t.regex(qualifiedNameProblems('a/b/c')[0]!, /^a qualified name must consist of .* with an optional DNS subdomain prefix and '\/' \(e\.g\. 'example\.com\/MyName'\)$/);
  t.deepEqual(qualifiedNameProblems('x/'), ['name part must be non-empty', "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName', or 'my.name', or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"]);
  t.deepEqual(labelValueProblems(''), []);
  t.deepEqual(labelValueProblems('v1.2_x'), []);
  t.is(labelValueProblems('a b').length, 1);
  t.deepEqual(labelValueProblems('a'.repeat(64)), ['must be no more than 63 characters']);
});

test('names - a 5,000-character name is refused where it enters, on metadata.name, the value cut', (t) => {
  const errors = validateObject(bmh({ name: 'a'.repeat(5000), namespace: 'metal3' }))?.errors ?? [];
  t.deepEqual(errors.map((e) => e.path), ['metadata.name']);
  t.is(errors[0]?.reason, `Invalid value: "${'a'.repeat(80)}"... (5000 characters): must be no more than 253 characters`);
});

test('names - namespace, labels and annotations of every kind', (t) => {
  const errors = objectMetaErrors({ metadata: { name: 'ok', namespace: 'Metal3', labels: { 'bad key!': 'ok', good: 'bad value!' }, annotations: { 'Example.com/Capital': 'fine', 'no//way': 'x' } } });
  t.deepEqual(errors.map((e) => e.path), ['metadata.namespace', 'metadata.labels', 'metadata.labels', 'metadata.annotations']);
  t.is(errors[0]?.reason, `Invalid value: "Metal3": ${LABEL}`);
  t.regex(errors[1]?.reason ?? '', /^Invalid value: "bad key!": name part must consist of/);
  t.regex(errors[2]?.reason ?? '', /^Invalid value: "bad value!": a valid label must be an empty string/);
  t.regex(errors[3]?.reason ?? '', /^Invalid value: "no\/\/way": a qualified name must consist/);
  const big = objectMetaErrors({ metadata: { name: 'ok', annotations: { a: 'x'.repeat(256 * 1024) } } });
  t.deepEqual(big, [{ path: 'metadata.annotations', reason: 'Too long: must have at most 262144 bytes', type: 'TooLong' }]);
  const machine = { apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'MaasMachine', metadata: { name: 'M_1' }, spec: { minCPU: 1, minMemory: 1, image: 'x' } };
  t.deepEqual(validateObject(machine)?.errors.map((e) => e.path), ['metadata.name']);
});
