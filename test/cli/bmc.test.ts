import test from 'ava';
import { lines, metalfleet } from './run.ts';

test('cli bmc - --json prints one object with driver, interfaces, MAC and virtual media', async (t) => {
  const r = await metalfleet('bmc', 'idrac-virtualmedia+http://192.0.2.30:8000/redfish/v1/Systems/System.Embedded.1', '--json');
  t.is(r.code, 0);
  t.is(lines(r.stdout).length, 1);
  const out = JSON.parse(r.stdout) as Record<string, unknown>;
  t.like(out, {
    scheme: 'idrac-virtualmedia+http',
    type: 'idrac-virtualmedia',
    transport: 'http',
    host: '192.0.2.30',
    port: 8000,
    path: '/redfish/v1/Systems/System.Embedded.1',
    driver: 'idrac',
    interfaces: {
      boot: 'idrac-redfish-virtual-media', bios: 'idrac-redfish', management: 'idrac-redfish', power: 'idrac-redfish',
      raid: 'idrac-redfish', vendor: 'idrac-redfish', inspect: 'redfish', firmware: 'redfish',
    },
    needsMac: false,
    bootMac: 'when inspection is disabled',
    supportsVirtualMedia: true,
    needsProvisioningNetwork: false,
    driverInfo: { redfish_address: 'http://192.0.2.30:8000', redfish_system_id: '/redfish/v1/Systems/System.Embedded.1' },
  });
});

test('cli bmc - a bare IP is IPMI on the default port', async (t) => {
  const r = await metalfleet('bmc', '192.0.2.31', '--json');
  t.is(r.code, 0);
  t.like(JSON.parse(r.stdout), { type: 'ipmi', driver: 'ipmi', port: null, supportsVirtualMedia: false, driverInfo: { ipmi_port: 623, ipmi_priv_level: 'ADMINISTRATOR' } });
});

test('cli bmc - text output lists the parsed parts', async (t) => {
  const r = await metalfleet('bmc', 'libvirt://192.168.122.1:6233/');
  t.is(r.code, 0);
  const out = lines(r.stdout);
  t.true(out.some((l) => /^driver:\s+ipmi$/.test(l)));
  t.true(out.some((l) => /^boot MAC needed:\s+always$/.test(l)));
  t.true(out.some((l) => /^virtual media:\s+no$/.test(l)));
  t.true(out.some((l) => /^interfaces:\s+boot=ipxe raid=no-raid inspect=agent$/.test(l)));
});

test('cli bmc - an unknown scheme exits 1 with the error and no password', async (t) => {
  const r = await metalfleet('bmc', 'ilo4://root:bmc-pass-1234@192.0.2.32');
  t.is(r.code, 1);
  t.is(r.stdout, '');
  t.regex(r.stderr, /^metalfleet: Unknown BMC type 'ilo4' for address ilo4:\/\/xxxxx@192\.0\.2\.32/);
  t.false(r.stderr.includes('bmc-pass-1234'));
});

test('cli bmc - --json errors are JSON too, and credentials never appear', async (t) => {
  const r = await metalfleet('bmc', 'redfish://root:bmc-pass-1234@my-.bad.host/redfish/v1', '--json');
  t.is(r.code, 1);
  const out = JSON.parse(r.stdout) as { error: { code: string; message: string } };
  t.is(out.error.code, 'invalid-host');
  t.false(r.stdout.includes('bmc-pass-1234'));
  t.false(r.stderr.includes('bmc-pass-1234'));
});

test('cli bmc - a successful parse of an address with userinfo shows it redacted', async (t) => {
  const r = await metalfleet('bmc', 'redfish://root:bmc-pass-1234@192.0.2.33/redfish/v1/Systems/1', '--json');
  t.is(r.code, 0);
  t.like(JSON.parse(r.stdout), { address: 'redfish://xxxxx@192.0.2.33/redfish/v1/Systems/1', host: '192.0.2.33' });
  t.false(r.stdout.includes('bmc-pass-1234'));
  t.false(r.stdout.includes('root'));
});
