// A MaasMachine actor that keeps crashing is given up and marked (failureReason ActorCrashed),
// and its message says to fix the cause and change the MaasMachine to retry. That retry must
// drive it again: the crash marker is not a MAAS verdict, and the actor started for the change
// used to read it as the terminal failure (failureReason set) and never call MAAS again.
import test from 'ava';
import { openLocalStoreWithMaas } from '../support/maas-node.ts';
import { createFixtureProvisioner } from '../../src/adapters/fixture/index.ts';
import { createMaasClient } from '../../src/adapters/maas/client/index.ts';
import { createMaasDriver } from '../../src/adapters/maas/driver/index.ts';
import { generateMaasCluster } from '../../src/cli/demo/maas-fleet.ts';
import { DEFAULT_MACHINE_CONFIG } from '../../src/machines/bmh/index.ts';
import { initialMaasMachineState, DEFAULT_MAAS_MACHINE_CONFIG } from '../../src/machines/maas-machine/index.ts';
import { MaasMachine } from '../../src/api/index.ts';
import { maasIntentFor } from '../../src/machines/maas-machine/command-intent.ts';
import { memorySubstrate } from '../../src/node/index.ts';
import type { ResourceStore } from '../../src/ports/index.ts';
import { startMaasSim } from '../../src/sim/maas/index.ts';
import { startLocalNode } from '../support/local-node.ts';
import { waitUntil } from '../support/wait.ts';

type Status = { ready?: boolean; failureReason?: string; failureMessage?: string; conditions?: Array<{ type: string; status: string; reason?: string }> };

test('maas crash recovery - a MaasMachine marked ActorCrashed is driven again once it is changed, and the marker goes', async (t) => {
  const sim = await startMaasSim({ deployMs: 50, releaseMs: 50 });
  const client = createMaasClient({ endpoint: sim.url, apiKey: sim.adminKey });
  const substrate = memorySubstrate();
  const local = await openLocalStoreWithMaas(substrate.transport);
  const one = local.resources;
  // Reading the machine's bootstrap Secret fails while `broken` is set: its actor crashes on every wake-up.
  let broken = true;
  const store = new Proxy(one, {
    get(target, prop) {
      if (prop === 'getSecret') {
        return (namespace: string, name: string) => {
          if (broken && name === 'demo-worker-0-bootstrap') throw new Error('secret index corrupt');
          return target.getSecret(namespace, name);
        };
      }
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  }) as ResourceStore;
  const node = await startLocalNode({
    name: 'maas-crash-recovery', shardCount: 4, machine: DEFAULT_MACHINE_CONFIG,
    capacity: { limits: {}, defaultLimit: 50, ttlMs: 30_000 },
    supervision: { maxRestarts: 2, windowMs: 60_000, backoff: { initialMs: 5, maxMs: 20 } }, askTimeoutMs: 5_000,
  }, { store, secrets: local.secrets }, {
    provisioner: createFixtureProvisioner({ demoBehaviours: false }),
    maas: { driver: createMaasDriver(client), clusterResyncMs: 200, config: { deployingPollMs: 30, steadyPollMs: 100, powerOnRequeueMs: 100, backoffBaseMs: 50, backoffMaxMs: 500 } },
  }, {}, substrate);
  const key = 'capi/demo-worker-0';
  const status = async (): Promise<Status | undefined> => (await local.objects.get('MaasMachine', key))?.status as Status | undefined;
  try {
    t.true((await local.applyObjects(generateMaasCluster({ controlPlane: 0, workers: 1 }))).ok);
    await waitUntil(async () => (await status())?.failureReason === 'ActorCrashed', 10_000, 'marked ActorCrashed');
    t.regex((await status())?.failureMessage ?? '', /fix the cause, then change the MaasMachine/);

    // The cause is fixed, and the MaasMachine changed as its message says.
    broken = false;
    await local.objects.patchAnnotations('MaasMachine', key, { 'example.com/retry': '1' });
    await waitUntil(async () => (await status())?.ready === true, 20_000, 'deployed and ready after the retry');
    const after = await status();
    t.is(after?.failureReason, undefined);
    t.is(after?.failureMessage, undefined);
    t.like(after?.conditions?.find((c) => c.type === 'Ready'), { status: 'True' });
    t.is(sim.machines().filter((m) => m.status_name === 'Deployed').length, 1);
  } finally {
    await node.stop();
    await local.objects.close();
    client.close();
    await sim.stop();
  }
});

test('maas crash recovery - a machine resumed from a crash marker is not failed; a MAAS failure stays failed', (t) => {
  const object = (status: Record<string, unknown>): MaasMachine => MaasMachine.parse({
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'MaasMachine',
    metadata: { name: 'm', namespace: 'capi' },
    spec: { minCPU: 1, minMemory: 1024, image: 'ubuntu/jammy', providerID: 'maas:///az1/abc123', systemID: 'abc123' },
    status,
  });
  const crashed = initialMaasMachineState(object({ ready: false, failureReason: 'ActorCrashed', failureMessage: 'MaasMachine actor crashed 3 times' }), DEFAULT_MAAS_MACHINE_CONFIG);
  t.is(crashed.phase, 'allocated');
  t.is(crashed.status.failureReason, undefined);
  t.is(crashed.status.failureMessage, undefined);
  const failed = initialMaasMachineState(object({ ready: false, failureReason: 'UpdateError', failureMessage: 'MAAS machine abc123 is Releasing: MAAS took it back' }), DEFAULT_MAAS_MACHINE_CONFIG);
  t.is(failed.phase, 'failed');
  t.is(failed.status.failureReason, 'UpdateError');
});

test('maas crash recovery - a command to a MaasMachine marked ActorCrashed is taken (its write restarts the actor); one to a failed machine is refused', (t) => {
  const mm = (failureReason: string): MaasMachine => MaasMachine.parse({
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'MaasMachine',
    metadata: { name: 'm', namespace: 'capi' },
    spec: { minCPU: 1, minMemory: 1024, image: 'ubuntu/jammy' },
    status: { ready: false, failureReason, failureMessage: 'x' },
  });
  const crashed = maasIntentFor(mm('ActorCrashed'), { type: 'powerOff', host: 'capi/m', requestId: 'r1' });
  t.true(crashed.ok);
  t.like(crashed, { annotations: { 'metalfleet.io/power-off': '' }, alreadyApplied: false });
  const failed = maasIntentFor(mm('UpdateError'), { type: 'powerOff', host: 'capi/m', requestId: 'r2' });
  t.like(failed, { ok: false, code: 'conflict' });
});
