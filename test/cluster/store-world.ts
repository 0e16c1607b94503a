// One real nats-server with what a node runs for `metalfleet apply` and `metalfleet delete` (its
// store server, signed requests only, the audit), without the controllers, so objects stay as the
// CLI leaves them; the CLI is run as a user runs it, with an operator's key.
import type { ExecutionContext } from 'ava';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openKvStoreOn } from '../../src/adapters/store/kv-store.ts';
import { storedKindOf } from '../../src/adapters/store/kv-layouts.ts';
import { ResourceNotFound, openNatsStoreOn, type NatsStore } from '../../src/adapters/store/nats-store.ts';
import { MAAS_VALIDATORS } from '../../src/adapters/store/object-apply.ts';
import { connectNats, subjects } from '../../src/bus/index.ts';
import { startStoreServer } from '../../src/cluster/commands/index.ts';
import { silentLogger, type KvBucket, type Transport } from '../../src/ports/index.ts';
import { openAuditLog, openNonceLedger, parseAuthorizedKeys, signedGuard, writeNewSigningKey, type AuditLog } from '../../src/security/index.ts';
import { metalfleet, type Run } from '../cli/run.ts';
import { startNatsServer, type NatsServer } from '../support/nats-server.ts';

export interface StoreWorld {
  server: NatsServer;
  /** The node's host store (its cache, as the node sees it). */
  store: NatsStore;
  audit: AuditLog;
  /** A connection of the test's own: audit reads, raw KV writes. */
  client: Transport;
  bucket(name: string): Promise<KvBucket>;
  /** metalfleet with the operator's --signing-key and --nats. */
  mf(...args: string[]): Promise<Run>;
  file(name: string, ...docs: string[]): Promise<string>;
}

export function hostYaml(name: string, namespace = 'fleet', online = true): string {
  return [
    'apiVersion: metal3.io/v1alpha1',
    'kind: BareMetalHost',
    'metadata:',
    `  name: ${name}`,
    `  namespace: ${namespace}`,
    'spec:',
    `  online: ${online}`,
    '  bmc:',
    '    address: redfish://192.0.2.10/redfish/v1/Systems/1',
    `    credentialsName: ${name}-bmc`,
  ].join('\n');
}

export function maasMachineYaml(name: string, namespace = 'fleet', image = 'ubuntu'): string {
  return [
    'apiVersion: infrastructure.cluster.x-k8s.io/v1beta1',
    'kind: MaasMachine',
    'metadata:',
    `  name: ${name}`,
    `  namespace: ${namespace}`,
    'spec:',
    '  minCPU: 1',
    '  minMemory: 1024',
    `  image: ${image}`,
  ].join('\n');
}

export async function storeWorld(t: ExecutionContext): Promise<StoreWorld> {
  const server = await startNatsServer();
  t.teardown(() => server.dispose());
  const dir = await mkdtemp(join(tmpdir(), 'mf-store-world-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const seed = join(dir, 'operator.seed');
  const allowList = `operator ${await writeNewSigningKey(seed)} olivia\n`;
  const node = await connectNats({ servers: server.url, name: 'node' });
  t.teardown(() => node.close());
  const store = await openNatsStoreOn(node);
  t.teardown(() => store.close());
  const objects = openKvStoreOn(node, { hosts: false, validators: MAAS_VALIDATORS });
  t.teardown(async () => (await objects).close());
  const audit = await openAuditLog(node, subjects(), silentLogger);
  const storeServer = startStoreServer({
    transport: node, store, objects: () => objects, node: 'node-a', log: silentLogger,
    guard: signedGuard({ keys: parseAuthorizedKeys(allowList, 'keys'), nonces: await openNonceLedger(node, 120_000) }),
    audit,
    isObject: (object) => storedKindOf(object) !== null,
    isNotFound: (error) => error instanceof ResourceNotFound,
  });
  t.teardown(() => storeServer.close());
  const client = await connectNats({ servers: server.url, name: 'test' });
  t.teardown(() => client.close());
  return {
    server, store, audit, client,
    bucket: (name) => client.kv(name),
    mf: (...args) => metalfleet(...args, '--nats', server.url, '--signing-key', seed),
    async file(name, ...docs) {
      const path = join(dir, name);
      await writeFile(path, docs.join('\n---\n'));
      return path;
    },
  };
}
