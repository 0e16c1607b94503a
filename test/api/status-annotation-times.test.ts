import test from 'ava';
import { validateBareMetalHost } from '../../src/api/bmh/validate.ts';
import { parseStatusAnnotation } from '../../src/api/bmh/annotations.ts';
import { host } from '../support/admission-host.ts';

// BMO decodes the status annotation into BareMetalHostStatus, whose times are metav1.Time: each
// is parsed with time.Parse(time.RFC3339, …), so a value that is not an RFC 3339 time fails the
// decode and the webhook refuses the host (reference/bmo.md §2.3 rule 9).

const PATH = 'metadata.annotations[baremetalhost.metal3.io/status]';

function withStatusAnnotation(status: unknown) {
  return host((h) => { h.metadata.annotations = { 'baremetalhost.metal3.io/status': JSON.stringify(status) }; });
}

test('validate - rule 9: a status annotation whose times are not RFC 3339 is refused', (t) => {
  const cases: Array<[unknown, RegExp]> = [
    [{ operationalStatus: 'OK', lastUpdated: 'yesterday' }, /lastUpdated: parsing time "yesterday"/],
    [{ operationalStatus: 'OK', lastUpdated: '' }, /lastUpdated: parsing time ""/],
    [{ operationalStatus: 'OK', lastUpdated: '2026-12-05 10:00:00Z' }, /lastUpdated: parsing time/],
    [{ operationalStatus: 'OK', lastUpdated: '2026-02-30T10:00:00Z' }, /lastUpdated: parsing time/],
    [{ operationalStatus: 'OK', operationHistory: { provision: { start: '2026-12-05' } } }, /operationHistory\.provision\.start: parsing time "2026-12-05"/],
    [{ operationalStatus: 'OK', operationHistory: { register: { start: '2026-12-05T10:00:00Z', end: 'soon' } } }, /operationHistory\.register\.end: parsing time "soon"/],
    [{ operationalStatus: 'OK', conditions: [{ type: 'Ready', status: 'True', reason: 'Ok', message: '', lastTransitionTime: '10:00' }] }, /conditions\[0\]\.lastTransitionTime: parsing time "10:00"/],
  ];
  for (const [status, reason] of cases) {
    const errors = validateBareMetalHost(withStatusAnnotation(status));
    t.is(errors.length, 1, JSON.stringify({ status, errors }));
    t.is(errors[0]?.path, PATH);
    t.regex(errors[0]?.reason ?? '', /^error decoding status annotation: /);
    t.regex(errors[0]?.reason ?? '', reason);
  }
});

test('validate - rule 9: a status annotation with RFC 3339 times, or null ones, is accepted', (t) => {
  const status = {
    operationalStatus: 'OK',
    lastUpdated: '2026-12-05T10:00:00.123456789+02:00',
    operationHistory: {
      register: { start: '2026-12-05T10:00:00Z', end: '2026-12-05T10:01:00.5Z' },
      provision: { start: '2024-02-29T23:59:59-05:30', end: null },
    },
    conditions: [{ type: 'Ready', status: 'True', reason: 'Ok', message: '', lastTransitionTime: '2026-12-05T10:00:00Z' }],
  };
  t.deepEqual(validateBareMetalHost(withStatusAnnotation(status)), []);
  t.true(parseStatusAnnotation(JSON.stringify(status)).ok);
});
