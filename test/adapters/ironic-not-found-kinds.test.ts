import http from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { createIronicClient, IronicError } from '../../src/adapters/ironic/client/index.ts';
import { createIronicProvisioner } from '../../src/adapters/ironic/provisioner/index.ts';
import type { HostData } from '../../src/ports/index.ts';

// Ironic answers 404 for more than a missing node. The API routes a power, provision, validate or
// RAID call to a conductor first (conductor/rpcapi.py get_topic_for): with none registered for the
// node's driver (a conductor restarting, a hardware type not enabled) it raises NoValidHost, a
// NotFound (common/exception.py) that node.py passes on as 404 for those calls; a driver without
// the RAID interface is UnsupportedDriverExtension, turned into 404 by PUT states/raid. Neither
// means the node is gone: taken for a lost node, the host was registered again and again.

const NODE = { uuid: '4bb0758a-5254-4827-8c9e-d649c887c84c', name: 'ns~h1', provision_state: 'active', power_state: 'power off', target_power_state: null, target_provision_state: null, maintenance: false, last_error: null, driver: 'ipmi' };
const NO_CONDUCTOR = 'No valid host was found. Reason: No conductor service registered which supports driver ipmi for conductor group "".';
const NO_RAID = 'Driver ipmi does not support raid (disabled or not implemented).';

function fault(message: string): string {
  return JSON.stringify({ error_message: JSON.stringify({ faultcode: 'Client', faultstring: message, debuginfo: null }) });
}

async function fakeIronic(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const range = { 'X-OpenStack-Ironic-API-Minimum-Version': '1.1', 'X-OpenStack-Ironic-API-Maximum-Version': '1.82', 'Content-Type': 'application/json' };
      const path = req.url ?? '';
      if (path === '/' || path === '/v1/') {
        res.writeHead(200, range).end(JSON.stringify({ id: 'v1', version: { id: 'v1', min_version: '1.1', version: '1.82' }, versions: [{ id: 'v1', min_version: '1.1', version: '1.82' }] }));
      } else if (req.method === 'GET' && path.startsWith('/v1/nodes/')) {
        res.writeHead(200, range).end(JSON.stringify(NODE));
      } else if (path.endsWith('/states/raid')) {
        res.writeHead(404, range).end(fault(NO_RAID));
      } else {
        res.writeHead(404, range).end(fault(NO_CONDUCTOR));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

test('ironic client - a 404 for want of a conductor is unavailable and retryable, not a missing node', async (t) => {
  const fake = await fakeIronic();
  const c = createIronicClient({ endpoint: fake.url });
  t.teardown(async () => {
    c.close();
    await fake.close();
  });
  const e = await t.throwsAsync(c.setProvisionState(NODE.uuid, 'deleted'), { instanceOf: IronicError });
  t.like(e, { code: 'unavailable', retryable: true, status: 404, ironicMessage: NO_CONDUCTOR });
  const raid = await t.throwsAsync(c.setTargetRaidConfig(NODE.uuid, { logical_disks: [] }), { instanceOf: IronicError });
  t.like(raid, { code: 'bad-request', retryable: false, status: 404, ironicMessage: NO_RAID });
});

test('ironic provisioner - a power request Ironic cannot route is a transient failure that quotes it, not a lost node', async (t) => {
  const fake = await fakeIronic();
  const c = createIronicClient({ endpoint: fake.url });
  t.teardown(async () => {
    c.close();
    await fake.close();
  });
  const p = createIronicProvisioner({ client: c, imageCheck: { enabled: false }, polls: { shortMs: 3, longMs: 10 } });
  const host: HostData = {
    key: 'ns/h1', namespace: 'ns', name: 'h1', uid: 'u1', provisionerId: NODE.uuid, credentials: { username: 'admin', password: 'pw' },
    spec: { online: true, bootMode: 'UEFI', automatedCleaningMode: 'metadata', bmc: { address: 'ipmi://10.0.0.1', credentialsName: 'c' } },
  };
  const r = await p.powerOn(host, { op: 'powerOn', force: false });
  t.is(r.kind, 'transient');
  t.regex((r as { message: string }).message, /No conductor service registered which supports driver ipmi/);
});
