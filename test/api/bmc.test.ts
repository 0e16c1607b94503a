import test, { type ExecutionContext } from 'ava';
import { BMC_TYPES, needsBootMac, parseBmcAddress, redactUrl, type BmcAccess, type BmcDriver, type BmcType } from '../../src/api/bmc/index.ts';

function parse(address: string): BmcAccess {
  const r = parseBmcAddress(address);
  if (!r.ok) throw new Error(`expected ${address} to parse: ${r.error.message}`);
  return r.bmc;
}

function parseError(address: string) {
  const r = parseBmcAddress(address);
  if (r.ok) throw new Error(`expected ${address} to be rejected`);
  return r.error;
}

// reference/bmo.md §2.2, one row per scheme: driver, interfaces, needs MAC, virtual media, secure
// boot, RAID, out-of-band inspect, provisioning network.
type Row = {
  driver: BmcDriver;
  interfaces: Record<string, string>;
  needsMac: boolean;
  vmedia: boolean;
  secureBoot: boolean;
  oobInspect: boolean;
  provisioningNetwork: boolean;
};

const IDRAC = { bios: 'idrac-redfish', management: 'idrac-redfish', power: 'idrac-redfish', raid: 'idrac-redfish', vendor: 'idrac-redfish', inspect: 'redfish', firmware: 'redfish' };
const REDFISH_IFACES = { raid: 'redfish', inspect: 'redfish', firmware: 'redfish' };

const TABLE: Record<BmcType, Row> = {
  ipmi: { driver: 'ipmi', interfaces: { boot: 'ipxe', raid: 'no-raid', inspect: 'agent' }, needsMac: false, vmedia: false, secureBoot: false, oobInspect: false, provisioningNetwork: true },
  libvirt: { driver: 'ipmi', interfaces: { boot: 'ipxe', raid: 'no-raid', inspect: 'agent' }, needsMac: true, vmedia: false, secureBoot: false, oobInspect: false, provisioningNetwork: true },
  redfish: { driver: 'redfish', interfaces: { boot: 'ipxe', ...REDFISH_IFACES }, needsMac: false, vmedia: false, secureBoot: true, oobInspect: true, provisioningNetwork: true },
  'ilo5-redfish': { driver: 'redfish', interfaces: { boot: 'ipxe', ...REDFISH_IFACES }, needsMac: false, vmedia: false, secureBoot: true, oobInspect: true, provisioningNetwork: true },
  'idrac-redfish': { driver: 'idrac', interfaces: { boot: 'ipxe', ...IDRAC }, needsMac: false, vmedia: false, secureBoot: true, oobInspect: true, provisioningNetwork: true },
  'redfish-virtualmedia': { driver: 'redfish', interfaces: { boot: 'redfish-virtual-media', ...REDFISH_IFACES }, needsMac: false, vmedia: true, secureBoot: true, oobInspect: true, provisioningNetwork: false },
  'ilo5-virtualmedia': { driver: 'redfish', interfaces: { boot: 'redfish-virtual-media', ...REDFISH_IFACES }, needsMac: false, vmedia: true, secureBoot: true, oobInspect: true, provisioningNetwork: false },
  'idrac-virtualmedia': { driver: 'idrac', interfaces: { boot: 'idrac-redfish-virtual-media', ...IDRAC }, needsMac: false, vmedia: true, secureBoot: true, oobInspect: true, provisioningNetwork: false },
  'redfish-uefihttp': { driver: 'redfish', interfaces: { boot: 'redfish-https', ...REDFISH_IFACES }, needsMac: false, vmedia: true, secureBoot: true, oobInspect: true, provisioningNetwork: false },
};

function assertRow(t: ExecutionContext, bmc: BmcAccess, row: Row) {
  t.is(bmc.driver, row.driver);
  t.deepEqual(bmc.interfaces, row.interfaces);
  t.is(bmc.needsMac, row.needsMac);
  t.is(bmc.supportsVirtualMedia, row.vmedia);
  t.is(bmc.supportsSecureBoot, row.secureBoot);
  t.is(bmc.supportsOutOfBandInspect, row.oobInspect);
  t.is(bmc.needsProvisioningNetwork, row.provisioningNetwork);
}

test('bmc - the type table covers every scheme of the reference', (t) => {
  t.deepEqual([...BMC_TYPES].sort(), Object.keys(TABLE).sort());
});

for (const type of BMC_TYPES) {
  test(`bmc - ${type} row: driver, interfaces, MAC, virtual media, secure boot, inspect, network`, (t) => {
    const bmc = parse(`${type}://192.0.2.10`);
    t.is(bmc.type, type);
    t.is(bmc.scheme, type);
    t.is(bmc.transport, null);
    assertRow(t, bmc, TABLE[type]);
  });

  const acceptsTransport = type !== 'ipmi' && type !== 'libvirt';
  for (const transport of ['http', 'https'] as const) {
    if (acceptsTransport) {
      test(`bmc - ${type}+${transport} is the ${type} row over ${transport}`, (t) => {
        const bmc = parse(`${type}+${transport}://bmc.example.com:8443/redfish/v1/Systems/1`);
        t.is(bmc.type, type);
        t.is(bmc.scheme, `${type}+${transport}`);
        t.is(bmc.transport, transport);
        assertRow(t, bmc, TABLE[type]);
        t.is(bmc.driverInfo({ username: 'u', password: 'p' }).redfish_address, `${transport}://bmc.example.com:8443`);
      });
    } else {
      test(`bmc - ${type}+${transport} is an unknown type`, (t) => {
        const error = parseError(`${type}+${transport}://192.0.2.10`);
        t.is(error.code, 'unknown-type');
        t.is(error.scheme, `${type}+${transport}`);
        t.regex(error.message, new RegExp(`^Unknown BMC type '${type}\\+${transport}' for address`));
      });
    }
  }
}

test('bmc - a bare IPv4 address is IPMI', (t) => {
  const bmc = parse('192.168.122.1');
  t.like(bmc, { type: 'ipmi', scheme: 'ipmi', host: '192.168.122.1', port: null, path: '' });
});

test('bmc - a bare DNS name is IPMI', (t) => {
  const bmc = parse('my.favoritebmc.com');
  t.like(bmc, { type: 'ipmi', host: 'my.favoritebmc.com', port: null });
});

test('bmc - an IPv4 host:port is IPMI with that port', (t) => {
  t.like(parse('192.168.122.1:6233'), { type: 'ipmi', host: '192.168.122.1', port: 6233 });
});

test('bmc - a bracketed IPv6 with port is IPMI', (t) => {
  const bmc = parse('[fe80::1]:623');
  t.like(bmc, { type: 'ipmi', host: 'fe80::1', port: 623 });
  t.is(bmc.driverInfo({ username: 'u', password: 'p' }).ipmi_address, 'fe80::1');
});

test('bmc - a bracketed IPv6 without a port is rejected', (t) => {
  const error = parseError('[fe80::fc33:62ff:fe83:8a76]');
  t.is(error.code, 'unparseable');
  t.is(error.message, 'failed to parse BMC address information: parse "[fe80::fc33:62ff:fe83:8a76]": first path segment in URL cannot contain colon');
});

test('bmc - opaque scheme:host is scheme://host', (t) => {
  t.like(parse('ipmi:192.168.122.1'), { type: 'ipmi', host: '192.168.122.1', port: null });
  t.like(parse('ipmi:192.168.122.1:6233'), { type: 'ipmi', host: '192.168.122.1', port: 6233 });
  t.like(parse('redfish:192.168.122.1'), { type: 'redfish', host: '192.168.122.1' });
});

test('bmc - redfish with IPv6, port and system path', (t) => {
  t.like(parse('redfish://[fe80::fc33:62ff:fe83:8a76]:6233/foo'), { host: 'fe80::fc33:62ff:fe83:8a76', port: 6233, path: '/foo' });
});

test('bmc - the scheme is case-insensitive', (t) => {
  t.like(parse('Redfish-VirtualMedia://192.0.2.1'), { type: 'redfish-virtualmedia', scheme: 'redfish-virtualmedia' });
});

test('bmc - libvirt keeps path and query', (t) => {
  t.like(parse('libvirt://192.168.122.1:6233/?abc=def'), { type: 'libvirt', port: 6233, path: '/', needsMac: true });
});

test('bmc - an unknown scheme is named in the error', (t) => {
  const error = parseError('foo://192.0.2.1');
  t.is(error.code, 'unknown-type');
  t.is(error.scheme, 'foo');
  t.true(error.message.startsWith("Unknown BMC type 'foo' for address foo://192.0.2.1"));
});

test('bmc - schemes BMO dropped are unknown', (t) => {
  for (const scheme of ['ilo4', 'irmc', 'ibmc', 'idrac']) t.is(parseError(`${scheme}://192.0.2.1`).code, 'unknown-type');
});

test('bmc - a DNS name with a port but no scheme reads as a scheme and gets a hint', (t) => {
  const error = parseError('bmc.example.com:623');
  t.is(error.code, 'unknown-type');
  t.is(error.message, "Unknown BMC type 'bmc.example.com' for address bmc.example.com:623; to give a port, write a scheme first, e.g. ipmi://bmc.example.com:623");
});

test('bmc - a hostname that is neither IP nor DNS name is rejected', (t) => {
  const error = parseError('my-.examplehost.com');
  t.is(error.code, 'invalid-host');
  t.true(error.message.startsWith('failed to parse BMC address information: BMC address hostname/IP : [my-.examplehost.com] is invalid'));
  t.is(parseError('redfish://bad_host.example.com/redfish/v1').code, 'invalid-host');
  t.is(parseError('[fe80::fc33:62ff:fe33:8xff]:6223').code, 'invalid-host');
});

test('bmc - an empty address is missing', (t) => {
  const error = parseError('');
  t.is(error.code, 'missing');
  t.is(error.message, 'missing BMC address');
});

test('bmc - a scheme without a host is rejected', (t) => {
  t.is(parseError('redfish://').code, 'missing-host');
  t.is(parseError('redfish:///redfish/v1/Systems/1').code, 'missing-host');
});

test('bmc - a port outside 1-65535 is rejected', (t) => {
  t.is(parseError('ipmi://192.0.2.1:70000').code, 'invalid-port');
  t.is(parseError('ipmi://192.0.2.1:0').code, 'invalid-port');
});

test('bmc - an invalid port after the host is unparseable', (t) => {
  t.is(parseError('redfish://192.0.2.1:https/x').code, 'unparseable');
});

test('bmc - errors never echo the password of a URL with userinfo', (t) => {
  for (const address of ['foo://admin:s3cret-pw@192.0.2.1', 'redfish://admin:s3cret-pw@bad_host', 'ipmi://admin:s3cret-pw@a b', 'admin:s3cret-pw@192.0.2.1:623']) {
    const error = parseError(address);
    t.false(error.message.includes('s3cret-pw'), error.message);
    t.false(error.address.includes('s3cret-pw'));
  }
});

// Go ends the authority at the first "/", "?" or "#", so a password holding one is read as host
// and port: the error then quotes the "port" (the password's start) and the rest as the path.
test('bmc - errors never echo a password that holds a "/", "?" or "#"', (t) => {
  for (const sep of ['/', '?', '#']) {
    for (const address of [`redfish://admin:pw${sep}s3cret-tail@192.0.2.1/redfish/v1/Systems/1`, `ipmi://admin:pw${sep}s3cret-tail@192.0.2.1`, `foo://admin:99${sep}s3cret-tail@192.0.2.1`, `ipmi://admin:99999${sep}s3cret-tail@192.0.2.1`]) {
      const error = parseError(address);
      for (const shown of [error.message, error.address]) {
        t.false(shown.includes('s3cret-tail'), shown);
        t.false(shown.includes('pw') || shown.includes('99'), shown);
      }
    }
  }
});

test('bmc - userinfo in an address is not the host', (t) => {
  t.like(parse('redfish://admin:pw@192.0.2.1/redfish/v1/Systems/1'), { host: '192.0.2.1', port: null });
});

test('bmc - redactUrl replaces userinfo only', (t) => {
  t.is(redactUrl('redfish://admin:pw@host/x'), 'redfish://xxxxx@host/x');
  t.is(redactUrl('redfish://host/x@y'), 'redfish://host/x@y');
  t.is(redactUrl('http://u:p@images/x.img'), 'http://xxxxx@images/x.img');
});

// driver_info

const creds = { username: 'admin', password: 'pw' };

test('bmc - ipmi driver_info: address, default port 623, ADMINISTRATOR, credentials', (t) => {
  t.deepEqual(parse('ipmi://192.0.2.1').driverInfo(creds, { disableCertificateVerification: false }), {
    ipmi_address: '192.0.2.1', ipmi_port: 623, ipmi_priv_level: 'ADMINISTRATOR', ipmi_username: 'admin', ipmi_password: 'pw',
  });
});

test('bmc - ipmi driver_info: explicit port and ?privilegelevel=', (t) => {
  t.like(parse('ipmi://192.0.2.1:6230?privilegelevel=OPERATOR').driverInfo(creds), { ipmi_port: 6230, ipmi_priv_level: 'OPERATOR' });
  t.like(parse('192.0.2.1:6230').driverInfo(creds), { ipmi_port: 6230, ipmi_priv_level: 'ADMINISTRATOR' });
  t.like(parse('libvirt://192.0.2.1?privilegelevel=USER&x=1').driverInfo(creds), { ipmi_priv_level: 'USER' });
});

test('bmc - ipmi driver_info with certificate verification disabled, as BMO writes it', (t) => {
  t.is(parse('ipmi://192.0.2.1').driverInfo(creds, { disableCertificateVerification: true }).ipmi_verify_ca, false);
});

test('bmc - redfish driver_info: https by default, system id from the path', (t) => {
  t.deepEqual(parse('redfish://192.0.2.1:8000/redfish/v1/Systems/1').driverInfo(creds, { disableCertificateVerification: false }), {
    redfish_address: 'https://192.0.2.1:8000', redfish_system_id: '/redfish/v1/Systems/1', redfish_username: 'admin', redfish_password: 'pw',
  });
});

test('bmc - redfish driver_info: no system id for an empty path or /redfish/v1', (t) => {
  for (const address of ['redfish://192.0.2.1', 'redfish://192.0.2.1/', 'redfish://192.0.2.1/redfish/v1', 'redfish://192.0.2.1/redfish/v1/']) {
    t.false('redfish_system_id' in parse(address).driverInfo(creds), address);
  }
});

test('bmc - redfish driver_info: +http scheme and verify_ca=false', (t) => {
  t.deepEqual(parse('redfish-virtualmedia+http://[fe80::1]:8000/redfish/v1/Systems/1').driverInfo(creds, { disableCertificateVerification: true }), {
    redfish_address: 'http://[fe80::1]:8000', redfish_system_id: '/redfish/v1/Systems/1', redfish_username: 'admin', redfish_password: 'pw',
    redfish_verify_ca: false,
  });
});

test('bmc - idrac driver_info uses the redfish keys of the idrac-redfish interfaces', (t) => {
  for (const type of ['idrac-redfish', 'idrac-virtualmedia']) {
    t.deepEqual(parse(`${type}://192.0.2.1/redfish/v1/Systems/System.Embedded.1`).driverInfo(creds, { disableCertificateVerification: true }), {
      redfish_address: 'https://192.0.2.1', redfish_system_id: '/redfish/v1/Systems/System.Embedded.1', redfish_username: 'admin', redfish_password: 'pw',
      redfish_verify_ca: false,
    });
  }
});

test('bmc - every redfish-family type writes redfish_* keys', (t) => {
  for (const type of BMC_TYPES.filter((x) => x !== 'ipmi' && x !== 'libvirt')) {
    t.deepEqual(Object.keys(parse(`${type}://h/s/1`).driverInfo(creds)).sort(), ['redfish_address', 'redfish_password', 'redfish_system_id', 'redfish_username']);
  }
});

test('bmc - needsBootMac: always for libvirt, otherwise only with inspection disabled', (t) => {
  for (const type of BMC_TYPES) {
    const bmc = parse(`${type}://192.0.2.1`);
    t.is(needsBootMac(bmc, { inspectionDisabled: false }), type === 'libvirt', type);
    t.true(needsBootMac(bmc, { inspectionDisabled: true }), type);
  }
});

// Go's url.Parse unescapes the fragment too: a bad %-escape there fails the parse, and BMO's
// fallbacks then read the whole address as a hostname, which is invalid.
test('bmc - a fragment with a bad %-escape is refused, as BMO refuses it', (t) => {
  for (const address of ['redfish://10.0.0.5/redfish/v1/Systems/1#%zz', 'ipmi://192.0.2.1#%', '192.0.2.1#%']) {
    const error = parseError(address);
    t.is(error.code, 'invalid-host', address);
    t.true(error.message.startsWith('failed to parse BMC address information: BMC address hostname/IP : ['), error.message);
  }
  // A fragment with valid escapes (or none) is dropped, as Go drops it.
  t.is(parse('redfish://10.0.0.5/x#%e2%82').path, '/x');
  t.is(parse('192.0.2.1#%41').host, '192.0.2.1');
});
