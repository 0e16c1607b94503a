import test from 'ava';
import { parseBmcAddress } from '../../src/api/bmc/index.ts';
import { validateBareMetalHost } from '../../src/api/bmh/validate.ts';
import { host } from '../support/admission-host.ts';

// BMO is built with Go 1.26, whose net/url (since the CVE-2025-47912 fix) takes only an IPv6
// address between square brackets in a URL's host: `ipmi://[192.0.2.1]:623` and
// `redfish://[bmc.example.com]/…` fail url.Parse, so the webhook refuses them. The bare
// `[v6]:port` form never reaches url.Parse's host check (BMO builds its URL by hand), so a bare
// `[192.0.2.1]:623` is still an IPMI address.

function refusal(address: string): string {
  const r = parseBmcAddress(address);
  if (r.ok) throw new Error(`expected ${address} to be refused, got host ${r.bmc.host}`);
  return r.error.message;
}

test('bmc brackets - an IPv4 address in brackets after a scheme is refused', (t) => {
  t.is(refusal('ipmi://[192.0.2.1]:623'), 'failed to parse BMC address information: parse "ipmi://[192.0.2.1]:623": invalid IP-literal');
  t.regex(refusal('redfish-virtualmedia://[192.0.2.1]/redfish/v1/Systems/1'), /invalid IP-literal/);
});

test('bmc brackets - a DNS name in brackets after a scheme is refused', (t) => {
  t.regex(refusal('redfish://[bmc.example.com]/redfish/v1/Systems/1'), /^failed to parse BMC address information: parse "redfish:\/\/\[bmc\.example\.com\]\/redfish\/v1\/Systems\/1": invalid host: /);
  t.regex(refusal('idrac-virtualmedia:[bmc]'), /invalid host: /);
});

test('bmc brackets - IPv6 literals in brackets still parse, IPv4-mapped ones included', (t) => {
  for (const [address, expected] of [
    ['ipmi://[fe80::1]:623', 'fe80::1'],
    ['redfish+https://[2001:db8::1]:8443/redfish/v1/Systems/1', '2001:db8::1'],
    ['ipmi://[::ffff:192.0.2.1]', '::ffff:192.0.2.1'],
    ['[fe80::1]:623', 'fe80::1'],
    // Bare host:port: BMO sets the URL's host itself, so no bracket check runs.
    ['[192.0.2.1]:623', '192.0.2.1'],
  ] as const) {
    const r = parseBmcAddress(address);
    t.true(r.ok, address);
    if (r.ok) t.is(r.bmc.host, expected, address);
  }
});

test('bmc brackets - the webhook refuses the host, and an image URL with a bracketed IPv4 host', (t) => {
  const bmc = validateBareMetalHost(host((h) => { h.spec.bmc.address = 'ipmi://[192.0.2.1]:623'; }));
  t.deepEqual(bmc.map((e) => e.path), ['spec.bmc.address']);
  const image = validateBareMetalHost(host((h) => { h.spec.image = { url: 'http://[192.0.2.1]/ubuntu.qcow2', checksum: 'abc' }; }));
  t.deepEqual(image.map((e) => [e.path, e.reason]), [['spec.image.url', 'image URL http://[192.0.2.1]/ubuntu.qcow2 is invalid: invalid IP-literal']]);
});
