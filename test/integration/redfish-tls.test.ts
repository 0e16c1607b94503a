import test from 'ava';
import { applyRedfishHost, useRedfishNode, waitHost } from '../support/redfish-node.ts';

// Metal3's redfish:// and redfish-virtualmedia:// mean HTTPS: BMCs with a self-signed certificate,
// which a host accepts with disableCertificateVerification (Ironic's redfish_verify_ca=false).
const it = useRedfishNode(test, { systems: 3, tls: true });

const state = (name: string) => it.node.stats.hosts.get(`lab/${name}`);

for (const [i, virtualMedia] of [[0, false], [1, true]] as const) {
  const scheme = virtualMedia ? 'redfish-virtualmedia://' : 'redfish://';
  test(`redfish tls - a ${scheme} host with disableCertificateVerification provisions over HTTPS`, async (t) => {
    const system = it.dc.systems[i]!;
    const name = virtualMedia ? 'tls-vmedia' : 'tls-pxe';
    t.true((virtualMedia ? system.virtualMediaAddress : system.address).startsWith(scheme));
    const server = await applyRedfishHost(it, system, name, { virtualMedia, disableCertificateVerification: true });
    await waitHost(it, name, () => state(name)?.state === 'provisioned', 90_000, `${name} provisioned`, server);
    const node = await it.client.getNode(`lab~${name}`);
    const info = (node?.driver_info ?? {}) as Record<string, unknown>;
    t.is(info['redfish_address'], it.dc.redfish.url, 'Ironic talks to the BMC over https');
    t.true(String(info['redfish_address']).startsWith('https://'));
    t.is(info['redfish_verify_ca'], false);
    t.is(node?.boot_interface, virtualMedia ? 'redfish-virtual-media' : 'ipxe');
    t.is(server.disk.writes.length, 1, 'image written once');
    t.true(server.system.state.on);
  });
}

test('redfish tls - without disableCertificateVerification the self-signed BMC is a registration error', async (t) => {
  const system = it.dc.systems[2]!;
  const server = await applyRedfishHost(it, system, 'tls-strict', {});
  await waitHost(it, 'tls-strict', () => state('tls-strict')?.errorType === 'registration error', 90_000, 'a registration error', server);
  const snap = await it.node.snapshot('lab/tls-strict');
  t.regex(snap?.status.errorMessage ?? '', /certificate|SSL|verify/i);
  t.false((snap?.status.errorMessage ?? '').includes(system.password), 'no password in the message');
  t.is(server.disk.writes.length, 0);
});
