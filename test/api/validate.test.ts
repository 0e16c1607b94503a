import test, { type ExecutionContext } from 'ava';
import { validateBareMetalHost } from '../../src/api/bmh/validate.ts';
import type { FieldError } from '../../src/api/field-error.ts';
import { host, withStatus } from '../support/admission-host.ts';

// One failing host per webhook rule of reference/bmo.md §2.3, each a valid host with one change.



function only(t: ExecutionContext, errors: FieldError[], path: string, reason: string | RegExp) {
  t.is(errors.length, 1, JSON.stringify(errors, null, 2));
  const [e] = errors;
  t.is(e?.path, path);
  if (typeof reason === 'string') t.is(e?.reason, reason);
  else t.regex(e?.reason ?? '', reason);
}

test('validate - a fully valid host has no errors', (t) => {
  t.deepEqual(validateBareMetalHost(host()), []);
});

test('validate - a valid host with every optional part has no errors', (t) => {
  const h = host((h) => {
    h.metadata.annotations = {
      'reboot.metal3.io': '',
      'reboot.metal3.io/phase1': '{"mode":"hard","force":true}',
      'inspect.metal3.io': 'disabled',
      'inspect.metal3.io/hardwaredetails': '{"cpu":{"arch":"x86_64","count":8},"ramMebibytes":65536,"nics":[{"name":"eth0","mac":"52:54:00:aa:bb:cc"}]}',
      'baremetalhost.metal3.io/status': '{"operationalStatus":"OK","errorMessage":"","poweredOn":true,"provisioning":{"state":"provisioned","ID":"x"},"operationHistory":{"register":{"start":null,"end":null}},"errorCount":0}',
      'baremetalhost.metal3.io/paused': 'metal3.io/capm3',
    };
    h.spec.inspectionMode = 'disabled';
    h.spec.raid = { softwareRAIDVolumes: [{ level: '1', rootVolume: true }, { level: '0' }] };
    delete h.spec.rootDeviceHints;
    h.spec.networkInterfaces = [{ name: 'eth0' }, { macAddress: '52:54:00:aa:bb:cd' }];
    h.spec.disablePowerOff = true;
    h.spec.bootMode = 'UEFISecureBoot';
  });
  t.deepEqual(validateBareMetalHost(h), []);
});

// Structure

test('validate - structural errors carry dotted paths and the zod message', (t) => {
  const errors = validateBareMetalHost(host((h) => {
    h.spec.online = 'yes';
    h.spec.image = { checksum: 'x' };
  }));
  t.deepEqual(errors.map((e) => [e.path, e.type]), [['spec.online', 'TypeInvalid'], ['spec.image.url', 'Required'], ['spec.image.url', 'Invalid']]);
  t.is(errors[0]?.reason, 'Invalid input: expected boolean, received string');
});

test('validate - array indices render in brackets', (t) => {
  const errors = validateBareMetalHost(host((h) => {
    h.spec.raid = { hardwareRAIDVolumes: [{ level: '1' }, { level: '7' }] };
  }));
  t.deepEqual(errors.map((e) => e.path), ['spec.raid.hardwareRAIDVolumes[1].level']);
  t.is(errors[0]?.type, 'NotSupported');
});

test('validate - a non-object is one root error', (t) => {
  const errors = validateBareMetalHost('not a host');
  t.is(errors.length, 1);
  t.is(errors[0]?.path, '(root)');
});

// Rule 1

test('validate - rule 1: an unknown BMC scheme', (t) => {
  only(t, validateBareMetalHost(host((h) => { h.spec.bmc.address = 'ilo4://192.0.2.10'; })), 'spec.bmc.address', /^Unknown BMC type 'ilo4' for address ilo4:\/\/192\.0\.2\.10/);
});

test('validate - rule 1: an unparseable BMC address', (t) => {
  only(t, validateBareMetalHost(host((h) => { h.spec.bmc.address = '[fe80::1]'; })), 'spec.bmc.address',
    'failed to parse BMC address information: parse "[fe80::1]": first path segment in URL cannot contain colon');
});

test('validate - rule 1: a bad BMC hostname, reported once', (t) => {
  only(t, validateBareMetalHost(host((h) => { h.spec.bmc.address = 'redfish://my-.example.com/redfish/v1'; })), 'spec.bmc.address',
    /^failed to parse BMC address information: BMC address hostname\/IP : \[my-\.example\.com\] is invalid/);
});

test('validate - rule 1: an empty BMC address is an unmanaged host, not an error', (t) => {
  t.deepEqual(validateBareMetalHost(host((h) => { h.spec.bmc.address = ''; })), []);
});

// Rule 2

test('validate - rule 2: spec.firmware is no longer supported', (t) => {
  only(t, validateBareMetalHost(host((h) => { h.spec.firmware = { simultaneousMultithreadingEnabled: true }; })), 'spec.firmware',
    'the Firmware field is no longer supported, use HostFirmwareSettings resource instead');
});

// Rule 3

test('validate - rule 3: user data Secret in another namespace is forbidden', (t) => {
  const errors = validateBareMetalHost(host((h) => { h.spec.userData = { name: 'ud', namespace: 'other' }; }));
  only(t, errors, 'spec.userData.namespace', /^userData: cross-namespace Secret references are not allowed/);
  t.is(errors[0]?.type, 'Forbidden');
});

test('validate - rule 3: network and meta data Secrets in another namespace are forbidden', (t) => {
  const errors = validateBareMetalHost(host((h) => {
    h.spec.networkData = { name: 'nd', namespace: 'other' };
    h.spec.metaData = { name: 'md', namespace: 'kube-system' };
  }));
  t.deepEqual(errors.map((e) => e.path), ['spec.networkData.namespace', 'spec.metaData.namespace']);
  t.regex(errors[1]?.reason ?? '', /^metaData: cross-namespace Secret references are not allowed/);
});

test('validate - rule 3: a Secret reference without a namespace is the host namespace', (t) => {
  t.deepEqual(validateBareMetalHost(host((h) => { h.spec.userData = { name: 'ud' }; })), []);
});

// Rule 4

test('validate - rule 4: hardware and software RAID together', (t) => {
  only(t, validateBareMetalHost(host((h) => {
    h.spec.raid = { hardwareRAIDVolumes: [{ level: '1' }], softwareRAIDVolumes: [{ level: '1' }] };
  })), 'spec.raid', 'hardwareRAIDVolumes and softwareRAIDVolumes can not be set at the same time');
});

test('validate - rule 4: physicalDisks without controller', (t) => {
  only(t, validateBareMetalHost(host((h) => {
    h.spec.raid = { hardwareRAIDVolumes: [{ level: '1', physicalDisks: ['disk0', 'disk1'] }] };
  })), 'spec.raid.hardwareRAIDVolumes[0].controller', "'physicalDisks' specified without 'controller' in hardware RAID volume 0");
});

test('validate - rule 4: numberOfPhysicalDisks differs from physicalDisks', (t) => {
  only(t, validateBareMetalHost(host((h) => {
    h.spec.raid = { hardwareRAIDVolumes: [{ level: '1', controller: 'RAID.Integrated.1-1', numberOfPhysicalDisks: 3, physicalDisks: ['d0', 'd1'] }] };
  })), 'spec.raid.hardwareRAIDVolumes[0].numberOfPhysicalDisks', "the 'numberOfPhysicalDisks'[3] and number of 'physicalDisks'[2] is not same for volume 0");
});

test('validate - rule 4: more than one software root volume', (t) => {
  const errors = validateBareMetalHost(host((h) => {
    delete h.spec.rootDeviceHints;
    h.spec.raid = { softwareRAIDVolumes: [{ level: '1', rootVolume: true }, { level: '1', rootVolume: true }] };
  }));
  only(t, errors, 'spec.raid.softwareRAIDVolumes', 'softwareRAIDVolumes[*].rootVolume can only be set once');
});

test('validate - rule 4: a software root volume with rootDeviceHints', (t) => {
  only(t, validateBareMetalHost(host((h) => {
    h.spec.raid = { softwareRAIDVolumes: [{ level: '1', rootVolume: true }] };
  })), 'spec.rootDeviceHints', 'softwareRAIDVolumes[*].rootVolume and rootDeviceHints can not be set at the same time');
});

test('validate - rule 4: a software root volume that is not RAID-1', (t) => {
  only(t, validateBareMetalHost(host((h) => {
    delete h.spec.rootDeviceHints;
    h.spec.raid = { softwareRAIDVolumes: [{ level: '0' }, { level: '1+0', rootVolume: true }] };
  })), 'spec.raid.softwareRAIDVolumes[1].level', 'softwareRAIDVolumes[1] with rootVolume set must use RAID level 1');
});

// Rule 5

test('validate - rule 5: hardware RAID on a driver without RAID', (t) => {
  only(t, validateBareMetalHost(host((h) => {
    h.spec.bmc.address = 'ipmi://192.0.2.10';
    h.spec.raid = { hardwareRAIDVolumes: [{ level: '1' }] };
  })), 'spec.raid.hardwareRAIDVolumes', 'BMC driver ipmi does not support configuring RAID');
});

test('validate - rule 5: libvirt without a boot MAC', (t) => {
  const errors = validateBareMetalHost(host((h) => {
    h.spec.bmc.address = 'libvirt://192.168.122.1:6233/';
    delete h.spec.bootMACAddress;
  }));
  only(t, errors, 'spec.bootMACAddress', 'BMC driver libvirt requires a BootMACAddress value');
  t.is(errors[0]?.type, 'Required');
});

test('validate - rule 5: no boot MAC with inspection disabled, on any driver', (t) => {
  only(t, validateBareMetalHost(host((h) => {
    delete h.spec.bootMACAddress;
    h.spec.inspectionMode = 'disabled';
  })), 'spec.bootMACAddress', 'BMC driver redfish-virtualmedia requires a BootMACAddress value when inspection is disabled');
  only(t, validateBareMetalHost(host((h) => {
    delete h.spec.bootMACAddress;
    h.spec.bmc.address = 'ipmi://192.0.2.10';
    h.metadata.annotations = { 'inspect.metal3.io': 'disabled' };
  })), 'spec.bootMACAddress', 'BMC driver ipmi requires a BootMACAddress value when inspection is disabled');
});

test('validate - rule 5: no boot MAC is fine when it can be inspected', (t) => {
  t.deepEqual(validateBareMetalHost(host((h) => { delete h.spec.bootMACAddress; h.spec.bmc.address = 'ipmi://192.0.2.10'; })), []);
});

test('validate - rule 5: an invalid boot MAC', (t) => {
  only(t, validateBareMetalHost(host((h) => { h.spec.bootMACAddress = '52:54:00:aa:bb'; })), 'spec.bootMACAddress', 'address 52:54:00:aa:bb: invalid MAC address');
  // BMO's webhook would take these, but its CRD's MAC pattern refuses them before the webhook runs.
  t.is(validateBareMetalHost(host((h) => { h.spec.bootMACAddress = '52-54-00-AA-BB-CC'; })).length, 1);
  t.is(validateBareMetalHost(host((h) => { h.spec.bootMACAddress = '5254.00aa.bbcc'; })).length, 1);
  t.is(validateBareMetalHost(host((h) => { h.spec.bootMACAddress = '52:54-00:aa:bb:cc'; })).length, 1);
});

test('validate - rule 5: UEFISecureBoot on IPMI', (t) => {
  only(t, validateBareMetalHost(host((h) => {
    h.spec.bmc.address = 'ipmi://192.0.2.10';
    h.spec.bootMode = 'UEFISecureBoot';
  })), 'spec.bootMode', 'BMC driver ipmi does not support secure boot');
});

// Rule 6

test('validate - rule 6: a name with characters outside [A-Za-z0-9._-]', (t) => {
  only(t, validateBareMetalHost(host((h) => { h.metadata.name = 'worker:0'; })), 'metadata.name',
    'BareMetalHost resource name cannot contain characters other than [A-Za-z0-9._-]');
});

test('validate - rule 6: a UUID name', (t) => {
  only(t, validateBareMetalHost(host((h) => { h.metadata.name = '2f8e6a3c-1c4b-4a55-9d1e-0c9d8d2b7f10'; })), 'metadata.name', 'BareMetalHost resource name cannot be a UUID');
  t.is(validateBareMetalHost(host((h) => { h.metadata.name = '2f8e6a3c1c4b4a559d1e0c9d8d2b7f10'; }))[0]?.reason, 'BareMetalHost resource name cannot be a UUID');
});

// Rule 7

test('validate - rule 7: a root device name outside /dev', (t) => {
  only(t, validateBareMetalHost(host((h) => { h.spec.rootDeviceHints = { deviceName: 'sda' }; })), 'spec.rootDeviceHints.deviceName',
    'device name of root device hint must be a /dev/ path, not "sda"');
});

test('validate - rule 7: a root device name in a /dev subdirectory other than by-path', (t) => {
  only(t, validateBareMetalHost(host((h) => { h.spec.rootDeviceHints = { deviceName: '/dev/disk/by-id/wwn-0x5000' }; })), 'spec.rootDeviceHints.deviceName',
    'device name of root device hint must be path in /dev/ or /dev/disk/by-path/, not "/dev/disk/by-id/wwn-0x5000"');
  t.deepEqual(validateBareMetalHost(host((h) => { h.spec.rootDeviceHints = { deviceName: '/dev/disk/by-path/pci-0000:01:00.0-scsi-0:2:0:0' }; })), []);
});

// Rule 8

test('validate - rule 8: an image URL with a scheme that is not allowed', (t) => {
  only(t, validateBareMetalHost(host((h) => { (h.spec.image as Record<string, unknown>).url = 's3://bucket/ubuntu.qcow2'; })), 'spec.image.url',
    'image URL s3://bucket/ubuntu.qcow2 is invalid: invalid scheme in URL, "s3" not allowed');
});

test('validate - rule 8: an image URL that is not a URL', (t) => {
  only(t, validateBareMetalHost(host((h) => { (h.spec.image as Record<string, unknown>).url = 'ubuntu.qcow2'; })), 'spec.image.url',
    'image URL ubuntu.qcow2 is invalid: invalid URI for request');
});

test('validate - rule 8: an image URL never shows its password', (t) => {
  const errors = validateBareMetalHost(host((h) => { (h.spec.image as Record<string, unknown>).url = 'sftp://user:img-pass@images/x.qcow2'; }));
  only(t, errors, 'spec.image.url', 'image URL sftp://xxxxx@images/x.qcow2 is invalid: invalid scheme in URL, "sftp" not allowed');
});

test('validate - rule 8: an image URL whose password holds a "/" shows none of it', (t) => {
  // Go ends the authority at the "/": the reason quotes the password's start as a port.
  const errors = validateBareMetalHost(host((h) => { (h.spec.image as Record<string, unknown>).url = 'https://user:pw/img-Tz5-secret@images/x.qcow2'; }));
  only(t, errors, 'spec.image.url', 'image URL https://xxxxx@images/x.qcow2 is invalid: invalid port "xxxxx" after host');
});

test('validate - rule 8: a missing checksum', (t) => {
  only(t, validateBareMetalHost(host((h) => { h.spec.image = { url: 'https://images/x.qcow2' }; })), 'spec.image.checksum', 'checksum is required for normal images');
});

test('validate - rule 8: live-iso and OCI images need no checksum', (t) => {
  t.deepEqual(validateBareMetalHost(host((h) => { h.spec.image = { url: 'https://images/x.iso', format: 'live-iso' }; })), []);
  t.deepEqual(validateBareMetalHost(host((h) => { h.spec.image = { url: 'oci://quay.io/org/image:tag' }; })), []);
});

test('validate - rule 8: a checksum on an OCI image', (t) => {
  only(t, validateBareMetalHost(host((h) => { h.spec.image = { url: 'oci://quay.io/org/image:tag', checksum: 'abc' }; })), 'spec.image.checksum',
    'spec.image.checksum must be empty for OCI images (oci:// images have embedded checksums)');
});

test('validate - rule 8: an unknown checksumType, in BMO words rather than the enum', (t) => {
  only(t, validateBareMetalHost(host((h) => { (h.spec.image as Record<string, unknown>).checksumType = 'crc32'; })), 'spec.image.checksumType',
    'unknown checksumType crc32, supported are auto, md5, sha256, sha512');
});

// Rule 9

test('validate - rule 9: a status annotation that is not JSON', (t) => {
  only(t, validateBareMetalHost(host((h) => { h.metadata.annotations = { 'baremetalhost.metal3.io/status': '{operationalStatus: OK}' }; })),
    'metadata.annotations[baremetalhost.metal3.io/status]', /^error decoding status annotation: invalid JSON/);
});

test('validate - rule 9: a status annotation with an unknown field', (t) => {
  only(t, validateBareMetalHost(host((h) => { h.metadata.annotations = { 'baremetalhost.metal3.io/status': '{"operationalStatus":"OK","provisioning":{"state":"available","ID":"x","colour":"red"}}' }; })),
    'metadata.annotations[baremetalhost.metal3.io/status]', 'error decoding status annotation: unknown field "provisioning.colour"');
});

test('validate - rule 9: a status annotation with operationalStatus servicing', (t) => {
  only(t, validateBareMetalHost(host((h) => { h.metadata.annotations = { 'baremetalhost.metal3.io/status': '{"operationalStatus":"servicing"}' }; })),
    'metadata.annotations[baremetalhost.metal3.io/status]', "invalid operationalStatus 'servicing' in the baremetalhost.metal3.io/status annotation");
});

test('validate - rule 9: a status annotation with a detach or servicing errorType', (t) => {
  for (const errorType of ['detach error', 'servicing error']) {
    only(t, validateBareMetalHost(host((h) => { h.metadata.annotations = { 'baremetalhost.metal3.io/status': JSON.stringify({ operationalStatus: 'error', errorType }) }; })),
      'metadata.annotations[baremetalhost.metal3.io/status]', `invalid errorType '${errorType}' in the baremetalhost.metal3.io/status annotation`);
  }
});

test('validate - rule 9: a reboot annotation with an unknown mode', (t) => {
  only(t, validateBareMetalHost(host((h) => { h.metadata.annotations = { 'reboot.metal3.io/x': '{"mode":"medium"}' }; })),
    'metadata.annotations[reboot.metal3.io/x]', 'invalid mode in the reboot.metal3.io annotation, allowed are "hard", "soft" or ""');
});

test('validate - rule 9: a reboot annotation that is not JSON', (t) => {
  only(t, validateBareMetalHost(host((h) => { h.metadata.annotations = { 'reboot.metal3.io': 'hard' }; })),
    'metadata.annotations[reboot.metal3.io]', /^failed to unmarshal the data from the reboot\.metal3\.io annotation: invalid JSON/);
});

test('validate - rule 9: an inspect annotation other than disabled or empty', (t) => {
  only(t, validateBareMetalHost(host((h) => { h.metadata.annotations = { 'inspect.metal3.io': 'enabled' }; })),
    'metadata.annotations[inspect.metal3.io]', 'invalid value for the inspect.metal3.io annotation, allowed are "disabled" or ""');
});

test('validate - rule 9: hardware details while inspection is enabled', (t) => {
  only(t, validateBareMetalHost(host((h) => { h.metadata.annotations = { 'inspect.metal3.io/hardwaredetails': '{"ramMebibytes":1024}' }; })),
    'metadata.annotations[inspect.metal3.io/hardwaredetails]',
    'when hardware details are provided, inspection must be disabled (either via inspect.metal3.io annotation or inspectionMode field)');
});

test('validate - rule 9: hardware details that do not decode', (t) => {
  only(t, validateBareMetalHost(host((h) => {
    h.spec.inspectionMode = 'disabled';
    h.metadata.annotations = { 'inspect.metal3.io/hardwaredetails': '{"ramMebibytes":"lots"}' };
  })), 'metadata.annotations[inspect.metal3.io/hardwaredetails]', 'error decoding the inspect.metal3.io/hardwaredetails annotation: cannot unmarshal string into ramMebibytes of type int');
});

// Rule 10

test('validate - rule 10: inspect annotation contradicting inspectionMode', (t) => {
  only(t, validateBareMetalHost(host((h) => {
    h.spec.inspectionMode = 'agent';
    h.metadata.annotations = { 'inspect.metal3.io': 'disabled' };
  })), 'spec.inspectionMode', 'inspect.metal3.io annotation and inspectionMode field have contradicting values');
});

test('validate - rule 10: an invalid inspectionMode, in BMO words rather than the enum', (t) => {
  only(t, validateBareMetalHost(host((h) => { h.spec.inspectionMode = 'slow'; })), 'spec.inspectionMode',
    "invalid inspectionMode value: slow, allowed values are 'disabled', 'agent', or 'fast'");
});

test('validate - rule 10: fast inspection on a driver without out-of-band inspection', (t) => {
  only(t, validateBareMetalHost(host((h) => {
    h.spec.bmc.address = 'ipmi://192.0.2.10';
    h.spec.inspectionMode = 'fast';
  })), 'spec.inspectionMode', 'BMC driver ipmi does not support fast (out-of-band) inspection');
  t.deepEqual(validateBareMetalHost(host((h) => { h.spec.inspectionMode = 'fast'; })), []);
});

// Rule 11

test('validate - rule 11: disablePowerOff with online false', (t) => {
  only(t, validateBareMetalHost(host((h) => {
    h.spec.disablePowerOff = true;
    h.spec.online = false;
  })), 'spec.disablePowerOff', "node can't simultaneously have online set to false and have power off disabled");
});

// Rule 12

test('validate - rule 12: a network interface with neither name nor MAC', (t) => {
  only(t, validateBareMetalHost(host((h) => { h.spec.networkInterfaces = [{ name: 'eth0' }, {}]; })), 'spec.networkInterfaces[1]', 'must specify either name or macAddress');
});

test('validate - rule 12: a network interface with both name and MAC', (t) => {
  only(t, validateBareMetalHost(host((h) => { h.spec.networkInterfaces = [{ name: 'eth0', macAddress: '52:54:00:aa:bb:cc' }]; })), 'spec.networkInterfaces[0]',
    'name and macAddress are mutually exclusive');
});

test('validate - rule 12: duplicate network interfaces, MACs compared without case', (t) => {
  const errors = validateBareMetalHost(host((h) => { h.spec.networkInterfaces = [{ macAddress: '52:54:00:AA:BB:CC' }, { name: 'eth1' }, { macAddress: '52:54:00:aa:bb:cc' }]; }));
  only(t, errors, 'spec.networkInterfaces[2]', 'duplicate interface selector for "52:54:00:aa:bb:cc"');
  t.is(errors[0]?.type, 'Duplicate');
});

// Rules 13-15 (update)

test('validate - rule 13: the BMC address cannot change on a registered host', (t) => {
  const old = withStatus(host(), 'available');
  const changed = withStatus(host((h) => { h.spec.bmc.address = 'redfish-virtualmedia://192.0.2.11/redfish/v1/Systems/1'; }), 'available');
  only(t, validateBareMetalHost(changed, old), 'spec.bmc.address',
    'BMC address can not be changed if the BMH is not in the Registering state, or if the BMH is not detached');
  t.deepEqual(validateBareMetalHost(changed), [], 'a create has no old address');
});

test('validate - rule 13: the BMC address may change while registering, detached or when it was empty', (t) => {
  const changed = (state: string, op = 'OK') => withStatus(host((h) => { h.spec.bmc.address = 'redfish://192.0.2.11'; }), state, op);
  t.deepEqual(validateBareMetalHost(changed('registering'), withStatus(host(), 'registering')), []);
  t.deepEqual(validateBareMetalHost(changed('provisioned', 'detached'), withStatus(host(), 'provisioned', 'detached')), []);
  t.deepEqual(validateBareMetalHost(changed('available'), withStatus(host((h) => { h.spec.bmc.address = ''; }), 'available')), []);
});

test('validate - rule 14: the boot MAC cannot change once set, case aside', (t) => {
  const old = host();
  only(t, validateBareMetalHost(host((h) => { h.spec.bootMACAddress = '52:54:00:aa:bb:cd'; }), old), 'spec.bootMACAddress', 'bootMACAddress can not be changed once it is set');
  t.deepEqual(validateBareMetalHost(host((h) => { h.spec.bootMACAddress = '52:54:00:AA:BB:CC'; }), old), []);
  t.deepEqual(validateBareMetalHost(host(), host((h) => { delete h.spec.bootMACAddress; })), [], 'setting it the first time is fine');
});

test('validate - rule 15: externallyProvisioned can only be enabled in available', (t) => {
  const old = withStatus(host(), 'provisioned');
  const now = withStatus(host((h) => { h.spec.externallyProvisioned = true; }), 'provisioned');
  only(t, validateBareMetalHost(now, old), 'spec.externallyProvisioned', 'externallyProvisioned can only be enabled when in Available state, currently in provisioned');
  t.deepEqual(validateBareMetalHost(withStatus(host((h) => { h.spec.externallyProvisioned = true; }), 'available'), withStatus(host(), 'available')), []);
});

// All at once

test('validate - every error is returned together, in rule order', (t) => {
  const errors = validateBareMetalHost(host((h) => {
    h.metadata.name = 'Worker 0';
    h.spec.bmc.address = 'ipmi://192.0.2.10';
    h.spec.bootMode = 'UEFISecureBoot';
    h.spec.firmware = {};
    h.spec.userData = { name: 'ud', namespace: 'other' };
    h.spec.image = { url: 'http://images/x.qcow2' };
    h.spec.disablePowerOff = true;
    h.spec.online = false;
    h.metadata.annotations = { 'reboot.metal3.io': '{"mode":"warm"}' };
  }));
  t.deepEqual(errors.map((e) => e.path), [
    'spec.firmware',
    'spec.userData.namespace',
    'spec.bootMode',
    'metadata.name',
    'spec.image.checksum',
    'metadata.annotations[reboot.metal3.io]',
    'spec.disablePowerOff',
  ]);
});

test('validate - structural and rule errors come together', (t) => {
  const errors = validateBareMetalHost(host((h) => {
    h.spec.online = 'yes';
    h.spec.bmc.address = 'foo://192.0.2.1';
  }));
  t.deepEqual(errors.map((e) => e.path), ['spec.online', 'spec.bmc.address']);
});
