// The baremetalhost.metal3.io/status annotation is decoded as BMO decodes it: encoding/json with
// DisallowUnknownFields, which still matches a key to a field without regard to case (an exact
// match first, later keys winning). Only a key no field matches is unknown.
import test from 'ava';
import { STATUS_ANNOTATION, parseStatusAnnotation } from '../../src/api/bmh/annotations.ts';
import { validateBareMetalHost } from '../../src/api/bmh/validate.ts';
import { admitValidation } from '../../src/adapters/kube/webhook/index.ts';
import { host } from '../support/admission-host.ts';

const annotated = (value: string) => host((h) => { h.metadata.annotations = { [STATUS_ANNOTATION]: value }; });

test('status annotation - keys in another case are the fields BMO matches, at every depth', (t) => {
  const value = JSON.stringify({
    OperationalStatus: 'OK', errormessage: '', PoweredOn: true,
    Provisioning: { State: 'provisioned', id: 'abc', Image: { URL: 'http://x/y.img', Checksum: 'c' } },
    GoodCredentials: { Credentials: { Name: 'bmc', Namespace: 'metal3' }, CredentialsVersion: '12' },
    OperationHistory: { Provision: { Start: '2026-01-01T00:00:00Z' } },
  });
  t.deepEqual(validateBareMetalHost(annotated(value)), []);
  const r = parseStatusAnnotation(value);
  t.true(r.ok);
  if (r.ok) {
    t.like(r.value, {
      operationalStatus: 'OK', poweredOn: true,
      provisioning: { state: 'provisioned', ID: 'abc', image: { url: 'http://x/y.img', checksum: 'c' } },
      goodCredentials: { credentials: { name: 'bmc', namespace: 'metal3' }, credentialsVersion: '12' },
      operationHistory: { provision: { start: '2026-01-01T00:00:00Z' } },
    });
  }
});

test('status annotation - a value refused under its field name is refused under any case, the later key winning', (t) => {
  const reason = (value: string) => validateBareMetalHost(annotated(value)).map((e) => e.reason);
  t.deepEqual(reason('{"OperationalStatus":"servicing"}'), [`invalid operationalStatus 'servicing' in the ${STATUS_ANNOTATION} annotation`]);
  t.deepEqual(reason('{"errortype":"detach error"}'), [`invalid errorType 'detach error' in the ${STATUS_ANNOTATION} annotation`]);
  t.deepEqual(reason('{"operationalStatus":"OK","OPERATIONALSTATUS":"servicing"}'), [`invalid operationalStatus 'servicing' in the ${STATUS_ANNOTATION} annotation`]);
  t.deepEqual(reason('{"Provisioning":{"State":"nonsense"}}').length, 1);
  // Still strict: a key no field matches, in any case, is unknown.
  t.deepEqual(reason('{"OperationalStatus":"OK","Extra":1}'), ['error decoding status annotation: unknown field "Extra"']);
});

test('status annotation - a __proto__ key is an unknown field, as BMO has it, not silently dropped', (t) => {
  const reason = (value: string) => validateBareMetalHost(annotated(value)).map((e) => e.reason);
  t.deepEqual(reason('{"provisioning":{"__proto__":{"state":"available"}}}'), ['error decoding status annotation: unknown field "provisioning.__proto__"']);
  t.deepEqual(reason('{"__proto__":{"operationalStatus":"OK"}}'), ['error decoding status annotation: unknown field "__proto__"']);
});

test('status annotation - the webhook admits a host whose saved status uses other cases', (t) => {
  const object = annotated('{"OperationalStatus":"OK","Provisioning":{"State":"available","ID":"x"}}');
  const verdict = admitValidation({
    uid: 'u1', operation: 'CREATE', name: 'worker-0', namespace: 'metal3',
    kind: { group: 'metal3.io', version: 'v1alpha1', kind: 'BareMetalHost' },
    resource: { group: 'metal3.io', version: 'v1alpha1', resource: 'baremetalhosts' },
    object,
  });
  t.deepEqual(verdict, { allowed: true });
});
