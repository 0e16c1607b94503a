// Every admission rule through the webhook: each BareMetalHost webhook rule of reference/bmo.md §2.3
// and each MAAS immutability rule of reference/capmaas.md §1.2, one valid object with one change.
// The denial carries the rule's message, and equals what validateObject (what `metalfleet
// validate` runs) returns for the same object.
import test, { type ExecutionContext } from 'ava';
import { formatFieldError, validateObject } from '../../src/api/index.ts';
import type { AdmissionReviewResponse } from '../../src/adapters/kube/webhook/index.ts';
import { admissionReview, fileTls, review, serve } from './support.ts';
import { host, withStatus, type Host } from '../support/admission-host.ts';

type Obj = Record<string, unknown>;

const MAAS_API = 'infrastructure.cluster.x-k8s.io/v1beta1';
const machineSpec = (): Obj => ({ image: 'custom/u-2204-0-k-1243-0', minCPU: 4, minMemory: 8192, tags: ['ssd'] });
function machine(patch: (spec: Obj) => void = () => {}): Obj {
  const spec = machineSpec();
  patch(spec);
  return { apiVersion: MAAS_API, kind: 'MaasMachine', metadata: { name: 'cp-0', namespace: 'lab' }, spec };
}
function template(patch: (spec: Obj) => void = () => {}): Obj {
  const spec = machineSpec();
  patch(spec);
  return { apiVersion: MAAS_API, kind: 'MaasMachineTemplate', metadata: { name: 'cp', namespace: 'lab' }, spec: { template: { spec } } };
}
function cluster(patch: (spec: Obj) => void = () => {}): Obj {
  const spec: Obj = { dnsDomain: 'maas', failureDomains: ['az1'] };
  patch(spec);
  return { apiVersion: MAAS_API, kind: 'MaasCluster', metadata: { name: 'c1', namespace: 'lab' }, spec };
}

/** One rule: the object (and the stored one, for an update rule) and the single error it must give. */
type Case = { rule: string; object: Obj | Host; old?: Obj | Host; path: string; reason: string | RegExp };

const image = (h: Host) => h.spec.image as Obj;

const CASES: Case[] = [
  // BareMetalHost, create and update (reference/bmo.md §2.3, rules 1-12)
  { rule: '1: an unknown BMC type', object: host((h) => { h.spec.bmc.address = 'ilo4://192.0.2.10'; }), path: 'spec.bmc.address', reason: /^Unknown BMC type 'ilo4' for address ilo4:\/\/192\.0\.2\.10 \(supported: / },
  { rule: '1: an unparseable BMC address', object: host((h) => { h.spec.bmc.address = '[fe80::1]'; }), path: 'spec.bmc.address', reason: 'failed to parse BMC address information: parse "[fe80::1]": first path segment in URL cannot contain colon' },
  { rule: '1: a bad %-escape in the BMC address\'s fragment', object: host((h) => { h.spec.bmc.address = 'redfish://192.0.2.10/redfish/v1/Systems/1#%zz'; }), path: 'spec.bmc.address', reason: /^failed to parse BMC address information: BMC address hostname\/IP : \[redfish:\/\/192\.0\.2\.10\/redfish\/v1\/Systems\/1#%zz\] is invalid/ },
  { rule: '1: a bad BMC hostname', object: host((h) => { h.spec.bmc.address = 'redfish://my-.example.com/redfish/v1'; }), path: 'spec.bmc.address', reason: /^failed to parse BMC address information: BMC address hostname\/IP : \[my-\.example\.com\] is invalid/ },
  { rule: '2: spec.firmware', object: host((h) => { h.spec.firmware = { simultaneousMultithreadingEnabled: true }; }), path: 'spec.firmware', reason: 'the Firmware field is no longer supported, use HostFirmwareSettings resource instead' },
  { rule: '3: a Secret in another namespace', object: host((h) => { h.spec.networkData = { name: 'nd', namespace: 'other' }; }), path: 'spec.networkData.namespace', reason: 'networkData: cross-namespace Secret references are not allowed (Secret in "other", host in "metal3")' },
  { rule: '4: hardware and software RAID together', object: host((h) => { h.spec.raid = { hardwareRAIDVolumes: [{ level: '1' }], softwareRAIDVolumes: [{ level: '1' }] }; }), path: 'spec.raid', reason: 'hardwareRAIDVolumes and softwareRAIDVolumes can not be set at the same time' },
  { rule: '4: physicalDisks without controller', object: host((h) => { h.spec.raid = { hardwareRAIDVolumes: [{ level: '1', physicalDisks: ['d0', 'd1'] }] }; }), path: 'spec.raid.hardwareRAIDVolumes[0].controller', reason: "'physicalDisks' specified without 'controller' in hardware RAID volume 0" },
  { rule: '4: numberOfPhysicalDisks differs from physicalDisks', object: host((h) => { h.spec.raid = { hardwareRAIDVolumes: [{ level: '1', controller: 'RAID.Integrated.1-1', numberOfPhysicalDisks: 3, physicalDisks: ['d0', 'd1'] }] }; }), path: 'spec.raid.hardwareRAIDVolumes[0].numberOfPhysicalDisks', reason: "the 'numberOfPhysicalDisks'[3] and number of 'physicalDisks'[2] is not same for volume 0" },
  { rule: '4: two software root volumes', object: host((h) => { delete h.spec.rootDeviceHints; h.spec.raid = { softwareRAIDVolumes: [{ level: '1', rootVolume: true }, { level: '1', rootVolume: true }] }; }), path: 'spec.raid.softwareRAIDVolumes', reason: 'softwareRAIDVolumes[*].rootVolume can only be set once' },
  { rule: '4: a software root volume with rootDeviceHints', object: host((h) => { h.spec.raid = { softwareRAIDVolumes: [{ level: '1', rootVolume: true }] }; }), path: 'spec.rootDeviceHints', reason: 'softwareRAIDVolumes[*].rootVolume and rootDeviceHints can not be set at the same time' },
  { rule: '4: a software root volume that is not RAID-1', object: host((h) => { delete h.spec.rootDeviceHints; h.spec.raid = { softwareRAIDVolumes: [{ level: '0' }, { level: '1+0', rootVolume: true }] }; }), path: 'spec.raid.softwareRAIDVolumes[1].level', reason: 'softwareRAIDVolumes[1] with rootVolume set must use RAID level 1' },
  { rule: '5: hardware RAID on a driver without RAID', object: host((h) => { h.spec.bmc.address = 'ipmi://192.0.2.10'; h.spec.raid = { hardwareRAIDVolumes: [{ level: '1' }] }; }), path: 'spec.raid.hardwareRAIDVolumes', reason: 'BMC driver ipmi does not support configuring RAID' },
  { rule: '5: libvirt without a boot MAC', object: host((h) => { h.spec.bmc.address = 'libvirt://192.168.122.1:6233/'; delete h.spec.bootMACAddress; }), path: 'spec.bootMACAddress', reason: 'BMC driver libvirt requires a BootMACAddress value' },
  { rule: '5: no boot MAC with inspection disabled', object: host((h) => { delete h.spec.bootMACAddress; h.spec.inspectionMode = 'disabled'; }), path: 'spec.bootMACAddress', reason: 'BMC driver redfish-virtualmedia requires a BootMACAddress value when inspection is disabled' },
  { rule: '5: an invalid boot MAC', object: host((h) => { h.spec.bootMACAddress = '52:54:00:aa:bb'; }), path: 'spec.bootMACAddress', reason: 'address 52:54:00:aa:bb: invalid MAC address' },
  { rule: '5: UEFISecureBoot on IPMI', object: host((h) => { h.spec.bmc.address = 'ipmi://192.0.2.10'; h.spec.bootMode = 'UEFISecureBoot'; }), path: 'spec.bootMode', reason: 'BMC driver ipmi does not support secure boot' },
  { rule: '6: a name outside [A-Za-z0-9._-]', object: host((h) => { h.metadata.name = 'worker:0'; }), path: 'metadata.name', reason: 'BareMetalHost resource name cannot contain characters other than [A-Za-z0-9._-]' },
  { rule: '6: a UUID name', object: host((h) => { h.metadata.name = '2f8e6a3c-1c4b-4a55-9d1e-0c9d8d2b7f10'; }), path: 'metadata.name', reason: 'BareMetalHost resource name cannot be a UUID' },
  { rule: '7: a root device outside /dev', object: host((h) => { h.spec.rootDeviceHints = { deviceName: 'sda' }; }), path: 'spec.rootDeviceHints.deviceName', reason: 'device name of root device hint must be a /dev/ path, not "sda"' },
  { rule: '7: a root device in a /dev subdirectory other than by-path', object: host((h) => { h.spec.rootDeviceHints = { deviceName: '/dev/disk/by-id/wwn-0x5000' }; }), path: 'spec.rootDeviceHints.deviceName', reason: 'device name of root device hint must be path in /dev/ or /dev/disk/by-path/, not "/dev/disk/by-id/wwn-0x5000"' },
  { rule: '8: an image URL scheme that is not allowed', object: host((h) => { image(h).url = 's3://bucket/ubuntu.qcow2'; }), path: 'spec.image.url', reason: 'image URL s3://bucket/ubuntu.qcow2 is invalid: invalid scheme in URL, "s3" not allowed' },
  { rule: '8: a missing checksum', object: host((h) => { h.spec.image = { url: 'https://images/x.qcow2' }; }), path: 'spec.image.checksum', reason: 'checksum is required for normal images' },
  { rule: '8: a checksum on an OCI image', object: host((h) => { h.spec.image = { url: 'oci://quay.io/org/image:tag', checksum: 'abc' }; }), path: 'spec.image.checksum', reason: 'spec.image.checksum must be empty for OCI images (oci:// images have embedded checksums)' },
  { rule: '8: an unknown checksumType', object: host((h) => { image(h).checksumType = 'crc32'; }), path: 'spec.image.checksumType', reason: 'unknown checksumType crc32, supported are auto, md5, sha256, sha512' },
  { rule: '9: a status annotation that is not JSON', object: host((h) => { h.metadata.annotations = { 'baremetalhost.metal3.io/status': '{operationalStatus: OK}' }; }), path: 'metadata.annotations[baremetalhost.metal3.io/status]', reason: /^error decoding status annotation: invalid JSON/ },
  { rule: '9: a status annotation with operationalStatus servicing', object: host((h) => { h.metadata.annotations = { 'baremetalhost.metal3.io/status': '{"operationalStatus":"servicing"}' }; }), path: 'metadata.annotations[baremetalhost.metal3.io/status]', reason: "invalid operationalStatus 'servicing' in the baremetalhost.metal3.io/status annotation" },
  { rule: '9: a status annotation with errorType detach error', object: host((h) => { h.metadata.annotations = { 'baremetalhost.metal3.io/status': '{"operationalStatus":"error","errorType":"detach error"}' }; }), path: 'metadata.annotations[baremetalhost.metal3.io/status]', reason: "invalid errorType 'detach error' in the baremetalhost.metal3.io/status annotation" },
  { rule: '9: a reboot annotation with an unknown mode', object: host((h) => { h.metadata.annotations = { 'reboot.metal3.io/x': '{"mode":"medium"}' }; }), path: 'metadata.annotations[reboot.metal3.io/x]', reason: 'invalid mode in the reboot.metal3.io annotation, allowed are "hard", "soft" or ""' },
  { rule: '9: an inspect annotation other than disabled or empty', object: host((h) => { h.metadata.annotations = { 'inspect.metal3.io': 'enabled' }; }), path: 'metadata.annotations[inspect.metal3.io]', reason: 'invalid value for the inspect.metal3.io annotation, allowed are "disabled" or ""' },
  { rule: '9: hardware details while inspection is enabled', object: host((h) => { h.metadata.annotations = { 'inspect.metal3.io/hardwaredetails': '{"ramMebibytes":1024}' }; }), path: 'metadata.annotations[inspect.metal3.io/hardwaredetails]', reason: 'when hardware details are provided, inspection must be disabled (either via inspect.metal3.io annotation or inspectionMode field)' },
  { rule: '10: inspect annotation contradicting inspectionMode', object: host((h) => { h.spec.inspectionMode = 'agent'; h.metadata.annotations = { 'inspect.metal3.io': 'disabled' }; }), path: 'spec.inspectionMode', reason: 'inspect.metal3.io annotation and inspectionMode field have contradicting values' },
  { rule: '10: an invalid inspectionMode', object: host((h) => { h.spec.inspectionMode = 'slow'; }), path: 'spec.inspectionMode', reason: "invalid inspectionMode value: slow, allowed values are 'disabled', 'agent', or 'fast'" },
  { rule: '10: fast inspection without out-of-band inspection', object: host((h) => { h.spec.bmc.address = 'ipmi://192.0.2.10'; h.spec.inspectionMode = 'fast'; }), path: 'spec.inspectionMode', reason: 'BMC driver ipmi does not support fast (out-of-band) inspection' },
  { rule: '11: disablePowerOff with online false', object: host((h) => { h.spec.disablePowerOff = true; h.spec.online = false; }), path: 'spec.disablePowerOff', reason: "node can't simultaneously have online set to false and have power off disabled" },
  { rule: '12: a network interface with neither name nor MAC', object: host((h) => { h.spec.networkInterfaces = [{ name: 'eth0' }, {}]; }), path: 'spec.networkInterfaces[1]', reason: 'must specify either name or macAddress' },
  { rule: '12: a network interface with both name and MAC', object: host((h) => { h.spec.networkInterfaces = [{ name: 'eth0', macAddress: '52:54:00:aa:bb:cc' }]; }), path: 'spec.networkInterfaces[0]', reason: 'name and macAddress are mutually exclusive' },
  { rule: '12: duplicate network interfaces', object: host((h) => { h.spec.networkInterfaces = [{ macAddress: '52:54:00:AA:BB:CC' }, { macAddress: '52:54:00:aa:bb:cc' }]; }), path: 'spec.networkInterfaces[1]', reason: 'duplicate interface selector for "52:54:00:aa:bb:cc"' },
  // BareMetalHost, update only (rules 13-15)
  { rule: '13: the BMC address of a registered host', old: withStatus(host(), 'available'), object: withStatus(host((h) => { h.spec.bmc.address = 'redfish-virtualmedia://192.0.2.11/redfish/v1/Systems/1'; }), 'available'), path: 'spec.bmc.address', reason: 'BMC address can not be changed if the BMH is not in the Registering state, or if the BMH is not detached' },
  { rule: '14: the boot MAC once set', old: host(), object: host((h) => { h.spec.bootMACAddress = '52:54:00:aa:bb:cd'; }), path: 'spec.bootMACAddress', reason: 'bootMACAddress can not be changed once it is set' },
  { rule: '15: externallyProvisioned outside available', old: withStatus(host(), 'provisioned'), object: withStatus(host((h) => { h.spec.externallyProvisioned = true; }), 'provisioned'), path: 'spec.externallyProvisioned', reason: 'externallyProvisioned can only be enabled when in Available state, currently in provisioned' },
  // MAAS immutability (reference/capmaas.md §1.2)
  { rule: 'image changed', old: machine(), object: machine((s) => { s.image = 'custom/u-2404-0-k-1312-0'; }), path: 'spec.image', reason: 'maas machine image change is not allowed, old=custom/u-2204-0-k-1243-0, new=custom/u-2404-0-k-1312-0' },
  { rule: 'minCPU changed', old: machine(), object: machine((s) => { s.minCPU = 8; }), path: 'spec.minCPU', reason: 'maas machine min cpu count change is not allowed, old=4, new=8' },
  { rule: 'minMemory changed', old: machine(), object: machine((s) => { s.minMemory = 16384; }), path: 'spec.minMemory', reason: 'maas machine min memory change is not allowed, old=8192 MB, new=16384 MB' },
  { rule: 'image changed', old: template(), object: template((s) => { s.image = 'ubuntu/noble'; }), path: 'spec.template.spec.image', reason: 'maas machine template image change is not allowed, old=custom/u-2204-0-k-1243-0, new=ubuntu/noble' },
  { rule: 'minCPU changed', old: template(), object: template((s) => { s.minCPU = 2; }), path: 'spec.template.spec.minCPU', reason: 'maas machine template min cpu count change is not allowed, old=4, new=2' },
  { rule: 'minMemory changed', old: template(), object: template((s) => { s.minMemory = 4096; }), path: 'spec.template.spec.minMemory', reason: 'maas machine template min memory change is not allowed, old=8192 MB, new=4096 MB' },
  { rule: 'dnsDomain changed', old: cluster(), object: cluster((s) => { s.dnsDomain = 'lab.maas'; }), path: 'spec.dnsDomain', reason: 'changing cluster DNS Domain not allowed, old=maas, new=lab.maas' },
  // MAAS, create: the providerID form
  { rule: 'providerID of another provider', object: machine((s) => { s.providerID = 'aws:///us-east-1a/i-0abc'; }), path: 'spec.providerID', reason: 'providerID "aws:///us-east-1a/i-0abc" names provider "aws"; a MaasMachine\'s providerID is maas:///<zone>/<system_id>' },
];

const tls = fileTls();

const name = (obj: Obj | Host) => (obj.metadata as { name: string }).name;

/** The denial validateObject implies for the object: the message and causes the webhook must answer. */
function expectedDenial(c: Case) {
  const result = validateObject(c.object, c.old);
  if (result === null) throw new Error(`${c.rule}: not a validated kind`);
  const lines = result.errors.map(formatFieldError);
  const group = String(c.object.apiVersion).split('/')[0];
  return {
    message: `${result.kind}.${group} ${JSON.stringify(name(c.object))} is invalid: ${lines.length === 1 ? lines[0] : `[${lines.join(', ')}]`}`,
    causes: result.errors.map((e) => [e.path, e.reason]),
  };
}

function assertDenied(t: ExecutionContext, c: Case, answer: AdmissionReviewResponse, uid: string) {
  const { response } = answer;
  t.is(response.uid, uid);
  t.false(response.allowed);
  t.like(response.status, { status: 'Failure', reason: 'Invalid', code: 422 });
  const causes = response.status?.details?.causes ?? [];
  // The rule's own error, and only it: the base object is valid.
  t.is(causes.length, 1, JSON.stringify(causes));
  t.is(causes[0]?.field, c.path);
  if (typeof c.reason === 'string') t.is(causes[0]?.message, c.reason);
  else t.regex(causes[0]?.message ?? '', c.reason);
  t.true(response.status?.message.includes(`${c.path}: ${causes[0]?.message}`), response.status?.message);
  // Cross-check: exactly what validateObject (and so `metalfleet validate`) says.
  const expected = expectedDenial(c);
  t.is(response.status?.message, expected.message);
  t.deepEqual(causes.map((x) => [x.field, x.message]), expected.causes);
  t.like(response.status?.details, { name: name(c.object), kind: String(c.object.kind) });
}

for (const c of CASES) {
  const operation = c.old ? 'UPDATE' : 'CREATE';
  test(`webhook rules - ${String(c.object.kind)} ${/^\d/.test(c.rule) ? 'rule ' : ''}${c.rule}: ${operation} denied with its message`, async (t) => {
    const { server } = await serve(t, tls.files);
    const body = admissionReview(operation, c.object, c.old ?? null);
    const uid = (body.request as { uid: string }).uid;
    assertDenied(t, c, await review(server.url, tls.pki.ca, body), uid);
  });
}

test('webhook rules - the valid base objects are allowed, as create and as an unchanged update', async (t) => {
  const { server } = await serve(t, tls.files);
  for (const obj of [host(), machine(), template(), cluster()]) {
    t.deepEqual(validateObject(obj)?.errors, [], 'the base object is valid');
    for (const body of [admissionReview('CREATE', obj), admissionReview('UPDATE', obj, structuredClone(obj))]) {
      const { response } = await review(server.url, tls.pki.ca, body);
      t.deepEqual(response, { uid: (body.request as { uid: string }).uid, allowed: true }, String(obj.kind));
    }
  }
});

test('webhook rules - an update rule does not apply to a create of the same object', async (t) => {
  const { server } = await serve(t, tls.files);
  for (const c of CASES.filter((x) => x.old)) {
    const { response } = await review(server.url, tls.pki.ca, admissionReview('CREATE', c.object));
    t.true(response.allowed, c.rule);
  }
});

test('webhook rules - several errors are all listed, in validateObject order', async (t) => {
  const { server } = await serve(t, tls.files);
  const c: Case = {
    rule: 'many',
    object: host((h) => {
      h.metadata.name = 'Worker 0';
      h.spec.bmc.address = 'ipmi://192.0.2.10';
      h.spec.bootMode = 'UEFISecureBoot';
      h.spec.image = { url: 'http://images/x.qcow2' };
      h.spec.disablePowerOff = true;
      h.spec.online = false;
    }),
    path: '',
    reason: '',
  };
  const { response } = await review(server.url, tls.pki.ca, admissionReview('CREATE', c.object));
  const expected = expectedDenial(c);
  t.is(response.status?.message, expected.message);
  t.deepEqual(response.status?.details?.causes.map((x) => x.field), ['spec.bootMode', 'metadata.name', 'spec.image.checksum', 'spec.disablePowerOff']);
  t.regex(response.status?.message ?? '', /^BareMetalHost\.metal3\.io "Worker 0" is invalid: \[spec\.bootMode: BMC driver ipmi does not support secure boot, metadata\.name: /);
  t.deepEqual(response.status?.details?.causes.map((x) => x.reason), ['FieldValueNotSupported', 'FieldValueInvalid', 'FieldValueRequired', 'FieldValueForbidden']);
});
