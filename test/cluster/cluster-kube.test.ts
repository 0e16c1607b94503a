// Two `metalfleet node --nats … --kubeconfig …` processes: hosts and Secrets in Kubernetes (the
// API test server), leases, membership and capacity in a private NATS. Every host is driven by
// the owner of its shard only: its backend calls carry that owner's fence, and its owner
// annotation names that owner. MaasMachines and MaasClusters (with --maas) the same way, by the
// shard of their Cluster API cluster.
import test from 'ava';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { shardOf } from '../../src/api/index.ts';
import { startFixtureServer } from '../../src/adapters/fixture/remote/index.ts';
import type { OwnershipInterval } from '../../src/cluster/index.ts';
import { findOverlaps, parseOwnershipLog, toIntervals } from '../../src/cluster/index.ts';
import { ROOT } from '../cli/run.ts';
import { startNatsServer } from '../support/nats-server.ts';
import { bmh, secret } from '../support/node.ts';
import { waitUntil } from '../support/wait.ts';
import type { KubeObject } from '../support/kube-api/index.ts';
import { createWithOwners, startApi, stateOf } from '../kube/support/kube-node.ts';
import { generateMaasCluster } from '../../src/cli/demo/maas-fleet.ts';
import { startMaasSim } from '../../src/sim/maas/index.ts';

const SHARDS = 16;
const HOSTS = 40;

test('cluster kube - two nodes on one Kubernetes: each host and each MAAS cluster is driven by the owner of its shard only', async (t) => {
  t.timeout(240_000);
  const dir = await mkdtemp(join(tmpdir(), 'metalfleet-cluster-kube-'));
  const nats = await startNatsServer();
  const fixture = await startFixtureServer({ options: { latencyMs: 5, demoBehaviours: false } });
  const api = await startApi();
  const sim = await startMaasSim({ deployMs: 50, releaseMs: 50 });
  const children: ChildProcess[] = [];
  const stderr = new Map<string, string[]>();
  const start = async (name: string): Promise<{ health: string; exited: Promise<number | null> }> => {
    const child = spawn(process.execPath, [
      'bin/metalfleet.js', 'node', '--nats', nats.url, '--kubeconfig', api.kubeconfigPath, '--name', name,
      '--fixture-url', fixture.url, '--shards', String(SHARDS), '--lease-ttl', '3000', '--heartbeat', '250',
      '--ownership-log', join(dir, `ownership-${name}.jsonl`), '--health-port', '0', '--log-level', 'warn',
      '--maas', sim.url, '--maas-key', sim.adminKey, '--allow-unsigned-commands',
    ], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    const err: string[] = [];
    stderr.set(name, err);
    child.stderr?.on('data', (b: Buffer) => err.push(b.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const line = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout! }).once('line', resolve);
      void exited.then((code) => reject(new Error(`node ${name} exited (${code}):\n${err.join('').slice(-2000)}`)));
    });
    return { health: (JSON.parse(line) as { health: string }).health, exited };
  };
  const intervals = async (): Promise<OwnershipInterval[]> => {
    const records = [];
    for (const name of ['a', 'b']) records.push(...parseOwnershipLog(await readFile(join(dir, `ownership-${name}.jsonl`), 'utf8').catch(() => '')));
    return toIntervals(records);
  };
  const owners = async (): Promise<Map<number, OwnershipInterval>> => new Map((await intervals()).filter((i) => i.end === Number.POSITIVE_INFINITY).map((i) => [i.shard, i]));
  try {
    const a = await start('a');
    const b = await start('b');
    for (const node of [a, b]) await waitUntil(async () => (await fetch(`${node.health}/readyz`)).status === 200, 60_000, 'node ready');
    // Settled: every shard owned, by both nodes between them.
    await waitUntil(async () => {
      const now = await owners();
      return now.size === SHARDS && new Set([...now.values()].map((i) => i.node)).size === 2;
    }, 60_000, 'shards spread over both nodes');
    const settled = await owners();

    api.create(secret('bmc', 'fleet') as KubeObject);
    const keys: string[] = [];
    for (let i = 0; i < HOSTS; i++) {
      api.create(bmh(`k-${i}`, { namespace: 'fleet' }) as KubeObject);
      keys.push(`fleet/k-${i}`);
    }
    await waitUntil(() => keys.every((k) => stateOf(api, k) === 'provisioned'), 120_000, 'every host provisioned', 100);

    const after = await owners();
    t.deepEqual([...after.entries()].map(([s, i]) => [s, i.node, i.epoch]), [...settled.entries()].map(([s, i]) => [s, i.node, i.epoch]), 'no shard moved during the run');
    t.deepEqual(findOverlaps(await intervals()), []);
    const calls = fixture.fixture.callLog();
    const byNode = new Map<string, number>();
    for (const key of keys) {
      const owner = settled.get(shardOf(key, SHARDS))!;
      const mine = calls.filter((c) => c.host === key);
      t.true(mine.length > 0, key);
      t.true(mine.every((c) => c.holder === owner.node && c.epoch === owner.epoch && !c.refused), `${key}: calls from ${[...new Set(mine.map((c) => c.holder))].join(',')}, owner ${owner.node}`);
      const [namespace, name] = key.split('/') as [string, string];
      const annotation = (api.get({ resource: 'baremetalhosts', namespace, name }) as { metadata: { annotations?: Record<string, string> } }).metadata.annotations?.['metalfleet.io/owner'];
      t.is(annotation, `${owner.shard}/${owner.epoch}/${owner.node}`);
      byNode.set(owner.node, (byNode.get(owner.node) ?? 0) + 1);
    }
    t.log(`hosts per node: ${[...byNode].map(([n, c]) => `${n}=${c}`).join(' ')}; shards: ${[...settled.values()].filter((i) => i.node === 'a').length} on a, ${[...settled.values()].filter((i) => i.node === 'b').length} on b`);
    t.is(byNode.size, 2, 'both nodes drove hosts');

    // Two Cluster API clusters on MAAS, each driven whole by the owner of its cluster's shard.
    const clusters = ['m0', 'm1', 'm2'];
    for (const cl of clusters) createWithOwners(api, generateMaasCluster({ namespace: 'capi', cluster: cl, controlPlane: 1, workers: 1 }));
    const machineKeys = clusters.flatMap((cl) => [`${cl}-cp-0`, `${cl}-worker-0`].map((n) => ({ cl, name: n })));
    const mm = (name: string) => api.get({ resource: 'maasmachines', namespace: 'capi', name }) as { spec?: { providerID?: string }; status?: { ready?: boolean }; metadata: { annotations?: Record<string, string> } } | undefined;
    await waitUntil(() => machineKeys.every(({ name }) => mm(name)?.status?.ready === true), 120_000, 'every MaasMachine ready', 100);
    const maasNodes = new Set<string>();
    for (const { cl, name } of machineKeys) {
      const owner = settled.get(shardOf(`capi/${cl}`, SHARDS))!;
      t.is(mm(name)?.metadata.annotations?.['metalfleet.io/owner'], `${owner.shard}/${owner.epoch}/${owner.node}`, `${name}: written by the owner of cluster ${cl}'s shard`);
      maasNodes.add(owner.node);
    }
    t.is(new Set(machineKeys.map(({ name }) => mm(name)?.spec?.providerID)).size, machineKeys.length, 'each MaasMachine has its own MAAS machine');
    t.log(`MAAS clusters on: ${[...maasNodes].join(', ')}`);
    for (const child of children) child.kill('SIGTERM');
    t.deepEqual(await Promise.all([a.exited, b.exited]), [0, 0]);
  } catch (err) {
    for (const [name, err2] of stderr) t.log(`--- ${name} stderr:\n${err2.join('').slice(-2000)}`);
    throw err;
  } finally {
    for (const child of children) child.kill('SIGKILL');
    await api.close();
    await sim.stop();
    await fixture.close();
    await nats.dispose();
    await rm(dir, { recursive: true, force: true });
  }
});
