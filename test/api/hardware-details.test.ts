import test from 'ava';
import { parseHardwareDetailsAnnotation, parseStatusAnnotation } from '../../src/api/index.ts';
import { validateBareMetalHost } from '../../src/api/bmh/validate.ts';
import { admitValidation } from '../../src/adapters/kube/webhook/validating.ts';
import type { AdmissionRequest } from '../../src/adapters/kube/webhook/admission-review.ts';
import { host } from '../support/admission-host.ts';

// BMO decodes inspect.metal3.io/hardwaredetails with encoding/json and DisallowUnknownFields, in
// its webhook and its controller (reference/bmo.md §2.3 rule 9, §1.7): validate, apply, the
// webhook and the machine must refuse and accept the same values.

const KEY = 'inspect.metal3.io/hardwaredetails';
const PATH = `metadata.annotations[${KEY}]`;

function withDetails(value: string) {
  return host((h) => {
    h.spec.inspectionMode = 'disabled';
    h.metadata.annotations = { [KEY]: value };
  });
}

function reasonOf(value: string): string | undefined {
  const r = parseHardwareDetailsAnnotation(value);
  return r.ok ? undefined : r.error.reason;
}

// Every field of BMO's HardwareDetails (apis/metal3.io/v1alpha1/hardwaredata_types.go).
const EVERY_FIELD = {
  systemVendor: { manufacturer: 'Dell', productName: 'R650', serialNumber: 'S1' },
  firmware: { bios: { date: '2024-01-01', vendor: 'Dell', version: '1.2' } },
  ramMebibytes: 65536,
  nics: [{
    name: 'eth0', model: '0x8086 0x1572', mac: '52:54:00:aa:bb:cc', ip: '192.0.2.5', speedGbps: 25,
    vlans: [{ id: 10, name: 'v10' }], vlanId: 10, pxe: true,
    lldp: { switchID: 'sw1', portID: 'p1', switchSystemName: 'tor-1' }, pciAddress: '0000:01:00.0',
  }],
  storage: [{
    name: '/dev/disk/by-path/pci-0', alternateNames: ['/dev/sda'], rotational: false, type: 'SSD', sizeBytes: 480_000_000_000,
    vendor: 'v', model: 'm', serialNumber: 's', wwn: 'w', wwnVendorExtension: 'x', wwnWithExtension: 'y', hctl: '0:0:0:0',
  }],
  cpu: { arch: 'x86_64', model: 'Xeon', clockMegahertz: 2400.5, flags: ['avx'], count: 32 },
  hostname: 'worker-0',
};

test('hardware details - BMO rule 9: an unknown top-level key is refused, naming the key', (t) => {
  t.deepEqual(validateBareMetalHost(withDetails('{"ramMebibytes":1024,"gpu":{"count":1}}')), [
    { path: PATH, reason: `error decoding the ${KEY} annotation: unknown field "gpu"`, type: 'Invalid' },
  ]);
});

test('hardware details - BMO rule 9: unknown keys at any depth of the Go structs are refused with their path', (t) => {
  const cases: Array<[string, string]> = [
    ['{"cpu":{"arch":"x86_64","cores":4}}', 'cpu.cores'],
    ['{"systemVendor":{"vendor":"x"}}', 'systemVendor.vendor'],
    ['{"firmware":{"bios":{"release":"1"}}}', 'firmware.bios.release'],
    ['{"firmware":{"bmc":{}}}', 'firmware.bmc'],
    ['{"nics":[{"name":"eth0"},{"name":"eth1","speed":10}]}', 'nics[1].speed'],
    ['{"nics":[{"vlans":[{"id":1,"tag":2}]}]}', 'nics[0].vlans[0].tag'],
    ['{"nics":[{"lldp":{"switchID":"a","chassis":"b"}}]}', 'nics[0].lldp.chassis'],
    ['{"storage":[{"name":"/dev/sda","sizeGB":1}]}', 'storage[0].sizeGB'],
  ];
  for (const [value, path] of cases) {
    t.is(reasonOf(value), `error decoding the ${KEY} annotation: unknown field "${path}"`, value);
    t.is(validateBareMetalHost(withDetails(value)).length, 1, value);
  }
});

test('hardware details - BMO rule 9: every field of BMO\'s struct is accepted, keys matched without case as encoding/json does', (t) => {
  const r = parseHardwareDetailsAnnotation(JSON.stringify(EVERY_FIELD));
  t.true(r.ok);
  if (r.ok) t.deepEqual(r.value, EVERY_FIELD);
  t.deepEqual(validateBareMetalHost(withDetails(JSON.stringify(EVERY_FIELD))), []);
  // Go matches "Hostname" and "CPU" to the fields hostname and cpu: not unknown.
  const folded = parseHardwareDetailsAnnotation('{"Hostname":"w0","CPU":{"Count":2}}');
  t.deepEqual(folded, { ok: true, value: { hostname: 'w0', cpu: { count: 2 } } });
});

test('hardware details - BMO rule 9: a value of the wrong Go type is refused; null leaves a field unset', (t) => {
  t.is(reasonOf('{"cpu":{"count":1.5}}'), `error decoding the ${KEY} annotation: cannot unmarshal number 1.5 into cpu.count of type int`);
  t.is(reasonOf('{"nics":[{"vlanId":3000000000}]}'), `error decoding the ${KEY} annotation: cannot unmarshal number 3000000000 into nics[0].vlanId of type int32`);
  t.is(reasonOf('{"hostname":5}'), `error decoding the ${KEY} annotation: cannot unmarshal number into hostname of type string`);
  t.is(reasonOf('{"storage":{"name":"/dev/sda"}}'), `error decoding the ${KEY} annotation: cannot unmarshal object into storage of type []Storage`);
  t.deepEqual(parseHardwareDetailsAnnotation('{"hostname":null,"cpu":{"arch":"arm64","model":null}}'), { ok: true, value: { cpu: { arch: 'arm64' } } });
});

test('hardware details - BMO rule 9: the webhook refuses an unknown key as validate does', (t) => {
  const request = { uid: 'u1', kind: { group: 'metal3.io', version: 'v1alpha1', kind: 'BareMetalHost' }, operation: 'CREATE', namespace: 'metal3', name: 'worker-0', object: withDetails('{"ram":1}') } as unknown as AdmissionRequest;
  const verdict = admitValidation(request);
  t.false(verdict.allowed);
  t.deepEqual(verdict.status?.details?.causes.map((c) => [c.field, c.message]), [[PATH, `error decoding the ${KEY} annotation: unknown field "ram"`]]);
});

test('hardware details - BMO rule 9: status.hardware in a saved status annotation is BMO\'s struct too: unknown keys refused', (t) => {
  const saved = { operationalStatus: 'OK', errorMessage: '', errorCount: 0, poweredOn: true, provisioningFailCount: 0, provisioning: { state: 'provisioned', ID: 'x' } };
  const bad = parseStatusAnnotation(JSON.stringify({ ...saved, hardware: { cpu: { count: 2, cores: 1 } } }));
  t.deepEqual(bad, { ok: false, error: { path: 'metadata.annotations[baremetalhost.metal3.io/status]', reason: 'error decoding status annotation: unknown field "hardware.cpu.cores"', type: 'Invalid' } });
  const good = parseStatusAnnotation(JSON.stringify({ ...saved, hardware: { CPU: { count: 2 }, nics: [{ name: 'eth0', pxe: true }] } }));
  t.true(good.ok);
  if (good.ok) t.deepEqual(good.value?.hardware, { cpu: { count: 2 }, nics: [{ name: 'eth0', pxe: true }] });
});

// encoding/json decodes an int field with strconv.ParseInt on the literal: 1.0 and 1e3 are
// refused although their values are whole (Python's json.dumps writes a float as 480103981056.0).
// A float64 field (clockMegahertz) takes them.
test('hardware details - BMO rule 9: an int field refuses a whole number written with a fraction or exponent', (t) => {
  t.is(reasonOf('{"storage":[{"sizeBytes":480103981056.0}]}'), `error decoding the ${KEY} annotation: cannot unmarshal number 480103981056.0 into storage[0].sizeBytes of type int`);
  t.is(reasonOf('{"RAMMebibytes":1e3}'), `error decoding the ${KEY} annotation: cannot unmarshal number 1e3 into ramMebibytes of type int`);
  t.is(reasonOf('{"nics":[{"vlans":[{"id":10.0}]}]}'), `error decoding the ${KEY} annotation: cannot unmarshal number 10.0 into nics[0].vlans[0].id of type int32`);
  t.true(parseHardwareDetailsAnnotation('{"cpu":{"clockMegahertz":2.4e3,"count":8},"ramMebibytes":-0,"hostname":"1.0"}').ok);
  const saved = { operationalStatus: 'OK', errorMessage: '', errorCount: 0, poweredOn: true, provisioningFailCount: 0, provisioning: { state: 'provisioned', ID: 'x' } };
  const text = JSON.stringify({ ...saved, hardware: { cpu: { count: 2 } } }).replace('"count":2', '"count":2.0');
  t.deepEqual(parseStatusAnnotation(text), { ok: false, error: { path: 'metadata.annotations[baremetalhost.metal3.io/status]', reason: 'error decoding status annotation: cannot unmarshal number 2.0 into hardware.cpu.count of type int', type: 'Invalid' } });
});
