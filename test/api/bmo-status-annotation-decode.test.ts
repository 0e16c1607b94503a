// The baremetalhost.metal3.io/status annotation decoded as BMO decodes it: encoding/json into its
// BareMetalHostStatus (webhook validateStatusAnnotation: json.Decoder with DisallowUnknownFields;
// controller unmarshalStatusAnnotation: json.Unmarshal). Go's int takes a negative number; a key
// given twice is decoded twice, into the same field: every occurrence must fit the field's type
// (a type error is kept and returned even when a later occurrence fits), the last one sets a
// scalar or a list, and an object is decoded into the struct the earlier one filled (merged).
// BMO's checks on operationalStatus and errorType look at the decoded status: the last value.
import test from 'ava';
import { STATUS_ANNOTATION, parseStatusAnnotation } from '../../src/api/bmh/annotations.ts';
import { BareMetalHostStatus } from '../../src/api/index.ts';
import { validateBareMetalHost } from '../../src/api/bmh/validate.ts';
import { host } from '../support/admission-host.ts';

const reason = (value: string): string | null => {
  const r = parseStatusAnnotation(value);
  return r.ok ? null : r.error.reason;
};
const value = (text: string) => {
  const r = parseStatusAnnotation(text);
  if (!r.ok) throw new Error(r.error.reason);
  return r.value;
};
const webhook = (text: string) => validateBareMetalHost(host((h) => { h.metadata.annotations = { [STATUS_ANNOTATION]: text }; })).map((e) => e.reason);

test('bmo status annotation - a negative errorCount is an int to Go: restored as it is', (t) => {
  t.is(value('{"operationalStatus":"error","errorCount":-3}')?.errorCount, -3);
  t.is(value('{"provisioningFailCount":-1}')?.provisioningFailCount, -1);
  t.deepEqual(webhook('{"operationalStatus":"OK","errorCount":-1}'), []);
  // A status with one stays readable wherever metalfleet reads it (the KV store, the API server).
  t.true(BareMetalHostStatus.safeParse({ operationalStatus: 'OK', errorMessage: '', errorCount: -1, poweredOn: false, provisioning: { state: '', ID: '' }, provisioningFailCount: 0 }).success);
});

test('bmo status annotation - the last of a key given twice sets the field', (t) => {
  t.is(value('{"errorCount":1,"errorCount":2}')?.errorCount, 2);
  t.is(value('{"errorMessage":"a","ErrorMessage":"b"}')?.errorMessage, 'b');
  t.is(value('{"operationalStatus":"servicing","operationalStatus":"OK"}')?.operationalStatus, 'OK', 'checkStatusAnnotation sees the decoded (last) value');
  t.is(reason('{"operationalStatus":"OK","operationalStatus":"servicing"}'), `invalid operationalStatus 'servicing' in the ${STATUS_ANNOTATION} annotation`);
  t.deepEqual(value('{"conditions":[{"type":"A","status":"True"}],"conditions":[{"type":"B","status":"False"}]}')?.conditions, [{ type: 'B', status: 'False' }], 'a list is replaced');
});

test('bmo status annotation - every occurrence of a key is decoded: a type error in an earlier one refuses the status', (t) => {
  t.is(reason('{"errorCount":"three","errorCount":3}'), 'error decoding status annotation: errorCount: cannot unmarshal string into Go struct field BareMetalHostStatus.errorCount of type int');
  t.regex(reason('{"poweredOn":1,"poweredOn":true}') ?? '', /^error decoding status annotation: poweredOn: cannot unmarshal number into .* of type bool$/);
  t.regex(reason('{"errorCount":1.5,"errorCount":1}') ?? '', /^error decoding status annotation: errorCount: cannot unmarshal number 1\.5 into .* of type int$/);
  t.regex(reason('{"provisioning":{"state":"available","ID":"x"},"provisioning":"none"}') ?? '', /^error decoding status annotation: provisioning: .*expected object, received string$/, 'the last one is wrong itself');
  t.regex(reason('{"provisioning":7,"provisioning":{"state":"available","ID":"x"}}') ?? '', /cannot unmarshal number into .* of type/);
  t.regex(reason('{"lastUpdated":"yesterday","lastUpdated":"2026-01-01T00:00:00Z"}') ?? '', /lastUpdated: parsing time "yesterday"/);
  t.regex(reason('{"conditions":{},"conditions":[]}') ?? '', /cannot unmarshal object into .* of type/);
  // Unknown fields, DisallowUnknownFields: refused in an earlier occurrence too.
  t.is(reason('{"provisioning":{"bogus":1},"provisioning":{"state":"available","ID":"x"}}'), 'error decoding status annotation: unknown field "provisioning.bogus"');
  t.is(reason('{"hardware":{"bogus":1},"hardware":{"hostname":"h"}}'), 'error decoding status annotation: unknown field "hardware.bogus"');
  // An earlier value of the right type but a value BMO would not keep is overwritten, not judged.
  t.is(value('{"provisioning":{"state":"no such state","ID":"x"},"provisioning":{"state":"available"}}')?.provisioning.state, 'available');
});

test('bmo status annotation - an object given twice is decoded into the same struct: the fields of both, the later winning', (t) => {
  t.deepEqual(value('{"provisioning":{"state":"available","ID":"a"},"provisioning":{"ID":"b","bootMode":"UEFI"}}')?.provisioning, { state: 'available', ID: 'b', bootMode: 'UEFI' });
  t.deepEqual(value('{"hardware":{"hostname":"h","cpu":{"count":2}},"hardware":{"cpu":{"arch":"x86_64"}}}')?.hardware, { hostname: 'h', cpu: { count: 2, arch: 'x86_64' } });
  t.deepEqual(value('{"goodCredentials":{"credentials":{"name":"a","namespace":"n"}},"GoodCredentials":{"credentialsVersion":"7"}}')?.goodCredentials, { credentials: { name: 'a', namespace: 'n' }, credentialsVersion: '7' });
});

test('bmo status annotation - a later null leaves a struct, a string or a number as it was and sets a pointer, a list or a time to nil', (t) => {
  const s = value('{"errorMessage":"kept","errorMessage":null,"provisioning":{"state":"available","ID":"x"},"provisioning":null,"lastUpdated":"2026-01-01T00:00:00Z","lastUpdated":null,"hardware":{"hostname":"h"},"hardware":null}');
  t.is(s?.errorMessage, 'kept');
  t.deepEqual(s?.provisioning, { state: 'available', ID: 'x' });
  t.is(s?.lastUpdated, undefined);
  t.is(s?.hardware, undefined);
  t.deepEqual(value('{"provisioning":{"state":"available","ID":"x","rootDeviceHints":{"deviceName":"/dev/sda","rotational":true}},"provisioning":{"rootDeviceHints":{"rotational":null}}}')?.provisioning.rootDeviceHints, { deviceName: '/dev/sda' }, 'rotational is a *bool');
});

test('bmo status annotation - the webhook refuses what the decode refuses, duplicates included', (t) => {
  t.deepEqual(webhook('{"errorCount":"three","errorCount":3}'), ['error decoding status annotation: errorCount: cannot unmarshal string into Go struct field BareMetalHostStatus.errorCount of type int']);
  t.deepEqual(webhook('{"operationalStatus":"servicing","operationalStatus":"OK"}'), []);
});

test('bmo status annotation - an int written with a fraction or an exponent is no int to Go (strconv.ParseInt on the literal), in any occurrence', (t) => {
  t.is(reason('{"errorCount":1.0}'), 'error decoding status annotation: errorCount: cannot unmarshal number 1.0 into Go struct field BareMetalHostStatus.errorCount of type int');
  t.regex(reason('{"provisioningFailCount":1e2}') ?? '', /provisioningFailCount: cannot unmarshal number 1e2 into .* of type int$/);
  t.regex(reason('{"errorCount":2.0,"errorCount":2}') ?? '', /errorCount: cannot unmarshal number 2\.0/);
  t.regex(reason('{"provisioning":{"state":"available","ID":"x","rootDeviceHints":{"minSizeGigabytes":20.0}}}') ?? '', /provisioning\.rootDeviceHints\.minSizeGigabytes: cannot unmarshal number 20\.0 into .* of type int$/);
  t.regex(reason('{"conditions":[{"type":"Ready","status":"True","observedGeneration":3.0}]}') ?? '', /conditions\[0\]\.observedGeneration: cannot unmarshal number 3\.0/);
  // A float64 field takes any number; a string holding digits is a string.
  t.is(value('{"hardware":{"cpu":{"clockMegahertz":2400.0}}}')?.hardware?.cpu?.clockMegahertz, 2400);
  t.is(value('{"errorMessage":"1.0"}')?.errorMessage, '1.0');
});

test('bmo hardwaredetails annotation - a key given twice is decoded twice there too: a type error in either refuses it, objects merge', async (t) => {
  const { parseHardwareDetailsAnnotation } = await import('../../src/api/bmh/annotations.ts');
  const refused = (text: string): string | null => {
    const r = parseHardwareDetailsAnnotation(text);
    return r.ok ? null : r.error.reason;
  };
  t.regex(refused('{"ramMebibytes":"lots","ramMebibytes":1024}') ?? '', /ramMebibytes: cannot unmarshal string into .* of type int$/);
  t.regex(refused('{"cpu":{"bogus":1},"cpu":{"count":2}}') ?? '', /unknown field "cpu\.bogus"/);
  const r = parseHardwareDetailsAnnotation('{"hostname":"a","hostname":"b","cpu":{"count":2},"cpu":{"arch":"x86_64"}}');
  t.deepEqual(r.ok ? r.value : r.error.reason, { hostname: 'b', cpu: { count: 2, arch: 'x86_64' } });
});
