import test from 'ava';
import { parseBmcAddress } from '../../src/api/index.ts';
import type { HostData } from '../../src/ports/index.ts';
import { createNodeBody } from '../../src/adapters/ironic/provisioner/node-spec.ts';

const creds = { username: 'admin', password: 'pw-not-for-logs' };

function host(address: string, extra: Partial<HostData['spec']> = {}): HostData {
  return {
    key: 'ns/h1', namespace: 'ns', name: 'h1', uid: 'u1', provisionerId: '', credentials: creds,
    spec: { online: true, bootMode: 'UEFI', automatedCleaningMode: 'metadata', bmc: { address, credentialsName: 'c' }, bootMACAddress: '52:54:00:00:00:01', ...extra },
  };
}

function body(address: string, override = false, extra: Partial<HostData['spec']> = {}): Record<string, unknown> {
  const parsed = parseBmcAddress(address);
  if (!parsed.ok) throw new Error(parsed.error.message);
  return createNodeBody(host(address, extra), parsed.bmc, creds, { override: override ? { hardwareType: 'fake-hardware' } : null, deploy: { kernelUrl: 'http://x/k', ramdiskUrl: 'http://x/r', isoUrl: 'http://x/iso' } });
}

// reference/bmo.md §2.2 and §5.2: driver and interfaces per scheme.
const rows: Array<[string, string, Record<string, string>]> = [
  ['ipmi://10.0.0.1', 'ipmi', { boot_interface: 'ipxe', raid_interface: 'no-raid', inspect_interface: 'agent', deploy_interface: 'direct' }],
  ['libvirt://10.0.0.1', 'ipmi', { boot_interface: 'ipxe', raid_interface: 'no-raid' }],
  ['redfish://10.0.0.1/redfish/v1/Systems/1', 'redfish', { boot_interface: 'ipxe', raid_interface: 'redfish', firmware_interface: 'redfish' }],
  ['ilo5-redfish://10.0.0.1/redfish/v1/Systems/1', 'redfish', { boot_interface: 'ipxe', raid_interface: 'redfish' }],
  ['idrac-redfish://10.0.0.1/redfish/v1/Systems/1', 'idrac', { boot_interface: 'ipxe', raid_interface: 'idrac-redfish', bios_interface: 'idrac-redfish', management_interface: 'idrac-redfish', power_interface: 'idrac-redfish', vendor_interface: 'idrac-redfish' }],
  ['redfish-virtualmedia://10.0.0.1/redfish/v1/Systems/1', 'redfish', { boot_interface: 'redfish-virtual-media', raid_interface: 'redfish' }],
  ['ilo5-virtualmedia://10.0.0.1/redfish/v1/Systems/1', 'redfish', { boot_interface: 'redfish-virtual-media' }],
  ['idrac-virtualmedia://10.0.0.1/redfish/v1/Systems/1', 'idrac', { boot_interface: 'idrac-redfish-virtual-media', raid_interface: 'idrac-redfish' }],
  ['redfish-uefihttp://10.0.0.1/redfish/v1/Systems/1', 'redfish', { boot_interface: 'redfish-https' }],
];

for (const [address, driver, interfaces] of rows) {
  test(`ironic node spec - ${address.split(':')[0]} gets driver ${driver} and its interfaces`, (t) => {
    const b = body(address);
    t.is(b['driver'], driver);
    for (const [k, v] of Object.entries(interfaces)) t.is(b[k], v, k);
    t.is(b['name'], 'ns~h1');
    t.deepEqual(b['properties'], { capabilities: 'boot_mode:uefi' });
  });
}

test('ironic node spec - the fake-hardware override keeps the real driver_info', (t) => {
  const real = body('redfish-virtualmedia://10.0.0.1:8443/redfish/v1/Systems/7');
  const fake = body('redfish-virtualmedia://10.0.0.1:8443/redfish/v1/Systems/7', true);
  t.is(fake['driver'], 'fake-hardware');
  for (const k of ['boot_interface', 'deploy_interface', 'power_interface', 'management_interface', 'inspect_interface']) t.is(fake[k], 'fake', k);
  t.deepEqual(fake['driver_info'], real['driver_info']);
  const info = fake['driver_info'] as Record<string, unknown>;
  t.is(info['redfish_address'], 'https://10.0.0.1:8443');
  t.is(info['redfish_system_id'], '/redfish/v1/Systems/7');
  t.is(info['deploy_iso'], 'http://x/iso');
});

test('ironic node spec - ipmi driver_info, deploy images, secure boot and fast inspection', (t) => {
  const info = body('ipmi://10.0.0.1:6230')['driver_info'] as Record<string, unknown>;
  t.is(info['ipmi_address'], '10.0.0.1');
  t.is(info['ipmi_port'], 6230);
  t.is(info['deploy_kernel'], 'http://x/k');
  t.is(info['deploy_iso'], undefined);
  t.deepEqual(body('redfish://10.0.0.1/redfish/v1/Systems/1', false, { bootMode: 'UEFISecureBoot' })['properties'], { capabilities: 'boot_mode:uefi,secure_boot:true' });
  t.is(body('redfish://10.0.0.1/redfish/v1/Systems/1', false, { inspectionMode: 'fast' })['inspect_interface'], 'redfish');
  t.is(body('ipmi://10.0.0.1', false, { bootMode: 'legacy', image: { url: 'http://i/x.iso', format: 'live-iso' } })['deploy_interface'], 'ramdisk');
});
