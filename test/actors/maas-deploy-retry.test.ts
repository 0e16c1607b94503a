// What the MaasMachine actor sends MAAS when a deploy goes wrong on our side of the wire:
// - a deploy whose answer was lost (a timeout after the POST went out) may have reached MAAS; the
//   machine is read before anything is asked again, not deployed a second time into MAAS's 409
//   "Can't deploy a machine that is in the 'Deploying' state" and a MachineDeployFailed;
// - a bootstrap Secret that has no value by the time of the deploy (deleted since the gate read
//   it, the watch not yet delivered) stops the deploy: a machine deployed without its user data
//   never joins the cluster, and no later step can give it the data.
import test from 'ava';
import { openLocalStoreWithMaas } from '../support/maas-node.ts';
import { createFixtureProvisioner } from '../../src/adapters/fixture/index.ts';
import { createMaasClient } from '../../src/adapters/maas/client/index.ts';
import { createMaasDriver } from '../../src/adapters/maas/driver/index.ts';
import type { KvStore } from '../../src/adapters/store/index.ts';
import { generateMaasCluster } from '../../src/cli/demo/maas-fleet.ts';
import { DEFAULT_MACHINE_CONFIG } from '../../src/machines/bmh/index.ts';
import type { MaasCall, MaasMachineConfig, MaasResult } from '../../src/machines/maas-machine/index.ts';
import { memorySubstrate } from '../../src/node/index.ts';
import type { MaasDriver, ResourceStore } from '../../src/ports/index.ts';
import type { MaasSim } from '../../src/sim/maas/index.ts';
import { startMaasSim } from '../../src/sim/maas/index.ts';
import { startLocalNode } from '../support/local-node.ts';
import { waitUntil } from '../support/wait.ts';
import { T0, calls, deploying, grant, maasMachine, noneEarlier, reply, start as startMachine, tick, view, world } from '../machines/maas-fixtures.ts';
import { proxied } from '../support/proxied.ts';

type Status = { ready?: boolean; conditions?: Array<{ type: string; status: string; reason?: string; message?: string }> };

interface Node {
  objects: KvStore;
  /** Applies the demo cluster with one worker, demo-worker-0. */
  apply(): Promise<void>;
  sim: MaasSim;
  stop(): Promise<void>;
}

async function start(o: { driver: (d: MaasDriver) => MaasDriver; store?: (s: ResourceStore) => Partial<Record<keyof ResourceStore, unknown>>; config?: Partial<MaasMachineConfig> }): Promise<Node> {
  const sim = await startMaasSim({ deployMs: 50, releaseMs: 50 });
  const client = createMaasClient({ endpoint: sim.url, apiKey: sim.adminKey });
  const substrate = memorySubstrate();
  const local = await openLocalStoreWithMaas(substrate.transport);
  const store = o.store ? proxied<ResourceStore>(local.resources, o.store(local.resources)) : local.resources;
  const node = await startLocalNode({
    name: `maas-deploy-retry-${Math.random().toString(36).slice(2)}`, shardCount: 4, machine: DEFAULT_MACHINE_CONFIG,
    capacity: { limits: {}, defaultLimit: 50, ttlMs: 30_000 },
    supervision: { maxRestarts: 3, windowMs: 60_000, backoff: { initialMs: 10, maxMs: 100 } }, askTimeoutMs: 5_000,
  }, { store, secrets: local.secrets }, {
    provisioner: createFixtureProvisioner({ demoBehaviours: false }),
    maas: { driver: o.driver(createMaasDriver(client)), clusterResyncMs: 200, config: { deployingPollMs: 30, steadyPollMs: 100, powerOnRequeueMs: 100, backoffBaseMs: 50, backoffMaxMs: 500, ...o.config } },
  }, {}, substrate);
  return {
    objects: local.objects, sim,
    async apply() {
      const applied = await local.applyObjects(generateMaasCluster({ controlPlane: 0, workers: 1 }));
      if (!applied.ok) throw new Error(JSON.stringify(applied.issues));
    },
    async stop() {
      await node.stop();
      await local.objects.close();
      client.close();
      await sim.stop();
    },
  };
}

const KEY = 'capi/demo-worker-0';
const status = async (objects: KvStore): Promise<Status | undefined> => (await objects.get('MaasMachine', KEY))?.status as Status | undefined;
const deployRequests = (sim: MaasSim): number => Object.entries(sim.counts().byRoute).filter(([route]) => route.includes('op=deploy')).reduce((n, [, c]) => n + c, 0);
const userDataOf = (sim: MaasSim): string => {
  const m = sim.machines().find((x) => x.status_name === 'Deployed');
  const raw = String((m as { user_data?: string } | undefined)?.user_data ?? '');
  // As the lifecycle test reads it: the simulator keeps what it was sent, decoded or not.
  const decoded = Buffer.from(raw, 'base64').toString();
  return decoded.includes('#cloud-config') ? decoded : raw;
};

test('maas deploy retry - a deploy whose answer was lost after it reached MAAS is not sent again: MAAS is read, and the machine goes on deploying', async (t) => {
  const deploys: MaasCall[] = [];
  const reasons = new Set<string>();
  const it = await start({
    driver: (d) => proxied(d, {
      run: async (call: MaasCall, userData?: string): Promise<MaasResult> => {
        const result = await d.run(call, userData);
        if (call.op !== 'deploy') return result;
        deploys.push(call);
        // The first deploy reached MAAS, and its answer never came back.
        return deploys.length === 1 ? { kind: 'transient', message: 'POST /machines/{id}/ op=deploy: MAAS gave no complete answer within 30000 ms; the request may have reached MAAS' } : result;
      },
    }),
  });
  try {
    await it.apply();
    await waitUntil(async () => {
      for (const c of (await status(it.objects))?.conditions ?? []) if (c.reason) reasons.add(c.reason);
      return (await status(it.objects))?.ready === true;
    }, 20_000, 'ready', 5);
    t.is(deploys.length, 1, 'deployed once');
    t.is(deployRequests(it.sim), 1);
    t.false(reasons.has('MachineDeployFailed'), [...reasons].join(', '));
    t.is(userDataOf(it.sim).trimEnd(), '#cloud-config\nhostname: demo-worker-0');
  } finally {
    await it.stop();
  }
});

test('maas deploy retry - a bootstrap Secret without its value at deploy time stops the deploy, saying so; the deploy goes once the value is back', async (t) => {
  let gone = false;
  const it = await start({
    config: { skipSwap: true },
    driver: (d) => proxied(d, {
      run: async (call: MaasCall, userData?: string): Promise<MaasResult> => {
        const result = await d.run(call, userData);
        // The Secret is deleted right after the allocation; the node has not heard of it yet.
        if (call.op === 'allocate') gone = true;
        return result;
      },
    }),
    store: (s) => ({
      getSecret: (namespace: string, name: string) => (gone && name === 'demo-worker-0-bootstrap' ? Promise.resolve(undefined) : s.getSecret(namespace, name)),
    }),
  });
  try {
    await it.apply();
    await waitUntil(async () => ((await status(it.objects))?.conditions ?? []).some((c) => c.type === 'MachineDeployed' && (c.message ?? '').includes('demo-worker-0-bootstrap')), 10_000, 'the deploy refused, naming the Secret');
    t.is(deployRequests(it.sim), 0, 'nothing deployed without user data');
    const refused = ((await status(it.objects))?.conditions ?? []).find((c) => c.type === 'MachineDeployed');
    t.is(refused?.status, 'False');
    t.regex(refused?.message ?? '', /bootstrap Secret capi\/demo-worker-0-bootstrap has no value/);
    gone = false;
    await waitUntil(async () => (await status(it.objects))?.ready === true, 20_000, 'ready once the value is back');
    t.is(deployRequests(it.sim), 1);
    t.is(userDataOf(it.sim).trimEnd(), '#cloud-config\nhostname: demo-worker-0');
  } finally {
    await it.stop();
  }
});

test('maas deploy retry - as a step: after a lost deploy or power-on, the first call after the backoff reads the machine', (t) => {
  const allocatedStep = reply(grant(noneEarlier(tick(startMachine(maasMachine({}, {}, false), world(), { skipSwap: true }))).state), { kind: 'done', machine: view('Allocated', 'off') });
  t.deepEqual(calls(allocatedStep).map((c) => c.op), ['deploy']);
  const lost = reply(allocatedStep, { kind: 'transient', message: 'timeout' });
  t.deepEqual(calls(lost), []);
  t.deepEqual(calls(tick(lost.state, T0 + 5_000)), [{ op: 'get', systemId: 'abc123' }]);

  // A Deployed machine found off is powered on; that call's answer is lost too.
  const d = deploying();
  const off = reply(tick(d.state, T0 + 10_000), { kind: 'done', machine: view('Deployed', 'off') }, T0 + 10_000);
  t.deepEqual(calls(off).map((c) => c.op), ['powerOn']);
  const lostOn = reply(off, { kind: 'transient', message: 'timeout' }, T0 + 10_000);
  t.deepEqual(calls(tick(lostOn.state, T0 + 20_000)), [{ op: 'get', systemId: 'abc123' }]);
});
