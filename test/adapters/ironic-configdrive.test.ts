import test from 'ava';
import type { IronicClient } from '../../src/adapters/ironic/client/index.ts';
import { createIronicProvisioner } from '../../src/adapters/ironic/provisioner/index.ts';
import { configDrive } from '../../src/adapters/ironic/provisioner/configdrive.ts';
import type { HostData } from '../../src/ports/index.ts';

// Network and meta data from the host's Secrets: parsed as YAML (JSON is YAML), and a text that
// does not parse fails the deployment with BMO's words instead of being dropped.

const SECRET_WORD = 'hunter2-in-network-data';

function host(extra: Partial<HostData> = {}): HostData {
  return {
    key: 'ns/h1', namespace: 'ns', name: 'h1', uid: 'u1', provisionerId: 'node-1', credentials: { username: 'admin', password: 'pw' },
    spec: { online: true, bootMode: 'UEFI', automatedCleaningMode: 'metadata', bmc: { address: 'ipmi://10.0.0.1', credentialsName: 'c' }, bootMACAddress: '52:54:00:00:00:01', image: { url: 'http://images/x.qcow2', checksum: 'a'.repeat(64), checksumType: 'sha256' } },
    ...extra,
  };
}

test('ironic configdrive - YAML and JSON network data become objects, empty data is left out', (t) => {
  const yaml = configDrive(host({ networkData: 'links:\n  - id: eth0\n    type: phy\n', userData: '#cloud-config\n' }));
  t.true(yaml.ok);
  if (!yaml.ok) return;
  t.deepEqual(yaml.drive['network_data'], { links: [{ id: 'eth0', type: 'phy' }] });
  t.is(yaml.drive['user_data'], '#cloud-config\n');
  const json = configDrive(host({ networkData: '{"links": [], "networks": []}', metaData: '{"role": "worker", "name": "custom"}' }));
  t.true(json.ok);
  if (!json.ok) return;
  t.deepEqual(json.drive['network_data'], { links: [], networks: [] });
  const meta = json.drive['meta_data'] as Record<string, unknown>;
  t.is(meta['role'], 'worker');
  t.is(meta['name'], 'custom');
  t.is(meta['metal3-name'], 'h1');
  for (const empty of ['', '  \n', 'null']) {
    const r = configDrive(host({ networkData: empty }));
    t.true(r.ok && !('network_data' in r.drive), JSON.stringify(empty));
  }
});

test('ironic configdrive - network data that does not parse fails with BMO words and no secret text', (t) => {
  const r = configDrive(host({ networkData: `links: [\n  password: ${SECRET_WORD}` }));
  t.false(r.ok);
  if (r.ok) return;
  t.regex(r.message, /^failed to unmarshal network_data\.json from secret \(spec\.networkData\): .+ at line \d+, column \d+$/);
  t.false(r.message.includes(SECRET_WORD));
});

test('ironic configdrive - network data that is not a mapping fails', (t) => {
  const list = configDrive(host({ networkData: `- ${SECRET_WORD}\n- b\n` }));
  t.deepEqual(list, { ok: false, message: 'failed to unmarshal network_data.json from secret (spec.networkData): expected a mapping (an object), got a list' });
  const scalar = configDrive(host({ networkData: SECRET_WORD }));
  t.deepEqual(scalar, { ok: false, message: 'failed to unmarshal network_data.json from secret (spec.networkData): expected a mapping (an object), got a string' });
});

test('ironic configdrive - meta data that does not parse fails too', (t) => {
  const r = configDrive(host({ metaData: '{"a": 1' }));
  t.false(r.ok);
  if (!r.ok) t.regex(r.message, /^failed to unmarshal metadata from secret \(spec\.metaData\): Flow map must end with a \}/);
});

test('ironic configdrive - provision fails with that message before calling Ironic', async (t) => {
  const calls: string[] = [];
  const client = new Proxy({ endpoint: 'http://ironic.test', stats: { byRouteStatus: {} } } as unknown as IronicClient, {
    get: (target, prop) => (prop in target ? Reflect.get(target, prop) : (...args: unknown[]) => {
      calls.push(String(prop));
      return Promise.reject(new Error(`unexpected call ${String(prop)}(${JSON.stringify(args)})`));
    }),
  });
  const p = createIronicProvisioner({ client, imageCheck: { enabled: false } });
  const h = host({ networkData: 'links: [' });
  const r = await p.provision(h, { op: 'provision', image: h.spec.image, customDeploy: undefined, bootMode: 'UEFI', rootDeviceHints: undefined });
  t.is(r.kind, 'failed');
  t.regex(r.kind === 'failed' ? r.message : '', /^failed to unmarshal network_data\.json from secret \(spec\.networkData\)/);
  t.deepEqual(calls, []);
});
