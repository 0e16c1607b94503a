// `metalfleet apply` of an object named only by generateName warns that every apply creates a new
// one. The warning named the object by kindOf's bucket, not its kind: "other named only by
// generateName" for a MaasMachine, which says neither what nor which.
import test from 'ava';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAAS_VALIDATORS } from '../../src/adapters/store/object-apply.ts';
import { ResourceNotFound, openNatsStoreOn } from '../../src/adapters/store/nats-store.ts';
import { openKvStoreOn } from '../../src/adapters/store/kv-store.ts';
import { storedKindOf } from '../../src/adapters/store/kv-layouts.ts';
import { connectNats } from '../../src/bus/index.ts';
import { startStoreServer } from '../../src/cluster/commands/index.ts';
import { runApply } from '../../src/cli/commands/apply.ts';
import { silentLogger } from '../../src/ports/index.ts';
import { trustedGuard } from '../../src/security/index.ts';
import { startNatsServer } from '../support/nats-server.ts';

const MACHINE = [
  'apiVersion: infrastructure.cluster.x-k8s.io/v1beta1',
  'kind: MaasMachine',
  'metadata:',
  '  generateName: worker-',
  '  namespace: lab',
  'spec:',
  '  minCPU: 2',
  '  minMemory: 4096',
  '  image: ubuntu/jammy',
  '',
].join('\n');

test('cli apply - a MaasMachine named only by generateName is warned about by its kind', async (t) => {
  const server = await startNatsServer();
  t.teardown(() => server.dispose());
  const dir = await mkdtemp(join(tmpdir(), 'mf-apply-hunt-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const node = await connectNats({ servers: server.url, name: 'node' });
  t.teardown(() => node.close());
  const hosts = await openNatsStoreOn(node);
  t.teardown(() => hosts.close());
  const objects = openKvStoreOn(node, { hosts: false, validators: MAAS_VALIDATORS });
  t.teardown(async () => (await objects).close());
  const storeServer = startStoreServer({
    transport: node, store: hosts, objects: () => objects, node: 'node', log: silentLogger, guard: trustedGuard(),
    isObject: (object) => storedKindOf(object) !== null,
    isNotFound: (error) => error instanceof ResourceNotFound,
  });
  t.teardown(() => storeServer.close());

  const file = join(dir, 'machine.yaml');
  await writeFile(file, MACHINE);
  const out: string[] = [];
  const err: string[] = [];
  t.true(await runApply([file], { nats: server.url }, { out: (line) => out.push(line), err: (line) => err.push(line) }), err.join('\n'));
  t.is(out.length, 1);
  t.regex(out[0] ?? '', /^maasmachine lab\/worker-\w+ applied$/);
  t.deepEqual(err, [`warning: ${file} document 1: MaasMachine named only by generateName "worker-": every apply creates a new one (as kubectl create); set metadata.name to update it later`]);
});
