import http from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { createIronicClient, featureShortfall, IronicError } from '../../src/adapters/ironic/client/index.ts';
import type { Negotiated } from '../../src/adapters/ironic/client/index.ts';
import { createIronicProvisioner } from '../../src/adapters/ironic/provisioner/index.ts';
import { gateNodeBody } from '../../src/adapters/ironic/provisioner/gating.ts';
import type { HostData, Logger } from '../../src/ports/index.ts';
import { silentLogger } from '../../src/ports/index.ts';
import { freePort } from '../support/ironic.ts';

// Feature gating by the negotiated microversion, against a fake Ironic that only answers version
// discovery (every other request is recorded and refused), and Ironic not being there at all.

const v = (minor: number) => ({ major: 1, minor, text: `1.${minor}` });
const at = (version: number, serverMax = version): Negotiated => ({ version: v(version), serverMax: v(serverMax) });

interface FakeIronic {
  readonly url: string;
  /** Requests other than GET / and GET /v1/. */
  readonly calls: string[];
  stop(): Promise<void>;
}

async function fakeIronic(max: string): Promise<FakeIronic> {
  const calls: string[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    res.setHeader('Content-Type', 'application/json');
    if (req.method === 'GET' && req.url === '/') {
      res.end(JSON.stringify({ versions: [{ id: 'v1', version: max, min_version: '1.1' }] }));
    } else if (req.method === 'GET' && req.url === '/v1/') {
      res.end(JSON.stringify({ id: 'v1', version: { id: 'v1', version: max, min_version: '1.1' } }));
    } else {
      calls.push(`${req.method} ${req.url}`);
      res.statusCode = 404;
      res.end(JSON.stringify({ error_message: JSON.stringify({ faultstring: 'Node could not be found.' }) }));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, calls, stop: () => new Promise((resolve) => server.close(() => resolve())) };
}

function host(address: string, extra: Partial<HostData['spec']> = {}): HostData {
  return {
    key: 'ns/h1', namespace: 'ns', name: 'h1', uid: 'u1', provisionerId: '', credentials: { username: 'admin', password: 'pw-not-for-logs' },
    spec: { online: true, bootMode: 'UEFI', automatedCleaningMode: 'metadata', bmc: { address, credentialsName: 'c' }, bootMACAddress: '52:54:00:00:00:01', ...extra },
  };
}

function recordingLogger(lines: string[]): Logger {
  const log: Logger = { ...silentLogger, debug: (_obj, msg) => void lines.push(msg ?? ''), child: () => log };
  return log;
}

test('ironic gating - a user-asked field names the host field, the version it needs and what Ironic offers', (t) => {
  t.is(featureShortfall('spec.disablePowerOff', 'disable-power-off', at(82)), 'spec.disablePowerOff needs Ironic API 1.95 or later; this Ironic offers up to 1.82');
  t.is(featureShortfall('spec.disablePowerOff', 'disable-power-off', at(95)), null);
  const gated = gateNodeBody({ driver: 'redfish', disable_power_off: true }, at(82), silentLogger);
  t.deepEqual(gated, { ok: false, message: 'spec.disablePowerOff needs Ironic API 1.95 or later; this Ironic offers up to 1.82' });
});

test('ironic gating - a newer Ironic held back by maxVersion says so', (t) => {
  t.is(featureShortfall('spec.disablePowerOff', 'disable-power-off', at(90, 99)), "spec.disablePowerOff needs Ironic API 1.95 or later; this Ironic offers up to 1.99, but the client's maxVersion holds it at 1.90");
});

test('ironic gating - interfaces metalfleet picks are left out below their version (logged at debug) and kept from it', (t) => {
  const body = { driver: 'redfish', firmware_interface: 'redfish', inspect_interface: 'agent', boot_interface: 'ipxe' };
  const lines: string[] = [];
  const old = gateNodeBody(body, at(82), recordingLogger(lines));
  t.deepEqual(old, { ok: true, body: { driver: 'redfish', boot_interface: 'ipxe' } });
  t.is(lines.length, 2);
  t.regex(lines[0] ?? '', /firmware_interface.*1\.86.*1\.82/);
  t.regex(lines[1] ?? '', /inspect_interface "agent".*1\.84/);
  t.deepEqual(gateNodeBody(body, at(84), silentLogger), { ok: true, body: { driver: 'redfish', inspect_interface: 'agent', boot_interface: 'ipxe' } });
  t.deepEqual(gateNodeBody(body, at(86), silentLogger), { ok: true, body });
  t.deepEqual(gateNodeBody({ ...body, disable_power_off: true }, at(95), silentLogger), { ok: true, body: { ...body, disable_power_off: true } });
  // Other inspect interfaces are as old as the baseline.
  t.deepEqual(gateNodeBody({ driver: 'redfish', inspect_interface: 'redfish' }, at(82), silentLogger), { ok: true, body: { driver: 'redfish', inspect_interface: 'redfish' } });
});

test('ironic gating - the client refuses newer fields and calls before sending anything', async (t) => {
  const ironic = await fakeIronic('1.82');
  const c = createIronicClient({ endpoint: ironic.url });
  t.teardown(async () => {
    c.close();
    await ironic.stop();
  });
  const refused = async (p: Promise<unknown>, what: RegExp): Promise<void> => {
    const err = await t.throwsAsync(p, { instanceOf: IronicError });
    t.is(err?.code, 'unsupported');
    t.false(err?.retryable);
    t.regex(err?.message ?? '', what);
  };
  await refused(c.createNode({ driver: 'fake-hardware', disable_power_off: true }), /^POST \/v1\/nodes: node field disable_power_off needs Ironic API 1\.95 or later; this Ironic offers up to 1\.82$/);
  await refused(c.createNode({ driver: 'fake-hardware', firmware_interface: 'redfish' }), /firmware_interface needs Ironic API 1\.86/);
  await refused(c.patchNode('n1', [{ op: 'replace', path: '/disable_power_off', value: true }]), /^PATCH \/v1\/nodes\/n1: node field disable_power_off needs Ironic API 1\.95/);
  await refused(c.setProvisionState('n1', 'service'), /provision target "service" needs Ironic API 1\.87/);
  await refused(c.setProvisionState('n1', 'unhold'), /provision target "unhold" needs Ironic API 1\.85/);
  t.deepEqual(ironic.calls, []);
  // What the version has goes out (and meets the fake's 404).
  await t.throwsAsync(c.patchNode('n1', [{ op: 'remove', path: '/disable_power_off' }]), { instanceOf: IronicError, message: /HTTP 404/ });
  await t.throwsAsync(c.setProvisionState('n1', 'clean', { cleanSteps: [], disableRamdisk: true }), { instanceOf: IronicError, message: /HTTP 404/ });
  t.deepEqual(ironic.calls, ['PATCH /v1/nodes/n1', 'PUT /v1/nodes/n1/states/provision']);
});

test('ironic gating - a newer Ironic gets the fields', async (t) => {
  const ironic = await fakeIronic('1.99');
  const c = createIronicClient({ endpoint: ironic.url });
  t.teardown(async () => {
    c.close();
    await ironic.stop();
  });
  t.deepEqual(await c.negotiated(), { version: v(99), serverMax: v(99) });
  await t.throwsAsync(c.createNode({ driver: 'redfish', disable_power_off: true, firmware_interface: 'redfish' }), { message: /HTTP 404/ });
  t.deepEqual(ironic.calls, ['POST /v1/nodes']);
});

test('ironic gating - a disablePowerOff host on Ironic 1.82 fails registration for good, with nothing sent', async (t) => {
  const ironic = await fakeIronic('1.82');
  const client = createIronicClient({ endpoint: ironic.url });
  const p = createIronicProvisioner({ client, imageCheck: { enabled: false } });
  t.teardown(async () => {
    client.close();
    await ironic.stop();
  });
  const r = await p.register(host('redfish://10.0.0.1/redfish/v1/Systems/1', { disablePowerOff: true }), { op: 'register', restartOnFailure: false, credentialsChanged: false });
  t.deepEqual(r, { kind: 'failed', message: 'spec.disablePowerOff needs Ironic API 1.95 or later; this Ironic offers up to 1.82', retryAfterMs: null });
  t.deepEqual(ironic.calls, []);
});

test('ironic gating - Ironic not reachable: a typed retryable failure, and a transient host result', async (t) => {
  const port = await freePort();
  const client = createIronicClient({ endpoint: `http://127.0.0.1:${port}` });
  const p = createIronicProvisioner({ client, imageCheck: { enabled: false } });
  t.teardown(() => client.close());
  const err = await t.throwsAsync(client.getNode('n1'), { instanceOf: IronicError });
  t.is(err?.code, 'network');
  t.true(err?.retryable);
  t.regex(err?.message ?? '', /ECONNREFUSED/);
  const r = await p.register(host('redfish://10.0.0.1/redfish/v1/Systems/1'), { op: 'register', restartOnFailure: false, credentialsChanged: false });
  t.deepEqual(r, { kind: 'transient', message: `Ironic at http://127.0.0.1:${port} is not reachable: ECONNREFUSED; retrying` });
  const power = await p.hardwareState(host('redfish://10.0.0.1/redfish/v1/Systems/1'), { op: 'hardwareState' });
  t.is(power.kind, 'transient');
});
