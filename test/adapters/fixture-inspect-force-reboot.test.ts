import test from 'ava';
import type { BareMetalHostSpec } from '../../src/api/index.ts';
import { createFixtureProvisioner, createRemoteFixtureProvisioner, startFixtureServer } from '../../src/adapters/fixture/index.ts';
import type { FixtureProvisioner } from '../../src/adapters/fixture/index.ts';
import type { HostData, Provisioner } from '../../src/ports/index.ts';
import { invoke } from '../../src/ports/index.ts';
import { REBOOT, step } from '../../src/machines/bmh/index.ts';
import type { Step } from '../../src/machines/bmh/index.ts';
import { atState, grant, lastCall, T0, tick } from '../support/bmh.ts';

// reference/bmo.md §1.8: "`force:true` also aborts `inspect wait`/`wait call-back` to reboot into a
// new PPI"; §5.2: "`inspect wait` → poll (or `abort` on force reboot)". The fixture's inspection
// in progress (a pass made, more needed) is its inspect wait: a forced reboot restarts it from
// the first pass and says started, as the Ironic provisioner's abort does.

function hostData(name: string): HostData {
  const spec: BareMetalHostSpec = {
    online: true, bootMode: 'UEFI', automatedCleaningMode: 'metadata',
    bmc: { address: 'redfish://192.0.2.1/redfish/v1/Systems/1', credentialsName: `${name}-bmc` },
  };
  return { key: `metal3/${name}`, namespace: 'metal3', name, uid: `uid-${name}`, provisionerId: '', spec, credentials: { username: 'admin', password: 'pw' } };
}

const REGISTER = { op: 'register', restartOnFailure: false, credentialsChanged: false } as const;
const INSPECT = { op: 'inspect', restartOnFailure: false, refresh: false } as const;

async function forcedDuringInspection(t: { is: (a: unknown, b: unknown, m?: string) => void; deepEqual: (a: unknown, b: unknown, m?: string) => void; like: (a: unknown, b: object) => void }, p: Provisioner, node: () => Promise<unknown>, starts: () => Promise<number>): Promise<void> {
  const h = hostData('worker-0');
  await p.register(h, REGISTER);
  t.deepEqual(await p.inspect(h, INSPECT), { kind: 'continuing', afterMs: 5 });
  t.deepEqual(await p.inspect(h, INSPECT), { kind: 'continuing', afterMs: 5 });
  t.deepEqual(await p.inspect(h, { ...INSPECT, forceReboot: true }), { kind: 'continuing', afterMs: 5, started: true });
  t.like(await node(), { provisionState: 'inspecting', gatedOp: 'inspect' });
  t.is(await starts(), 2, 'the aborted inspection and the one started again');
  // Three more passes from the start (inspectPasses 3), not the one the aborted inspection lacked.
  t.deepEqual(await p.inspect(h, { ...INSPECT, restartOnFailure: true }), { kind: 'continuing', afterMs: 5 });
  t.deepEqual(await p.inspect(h, INSPECT), { kind: 'continuing', afterMs: 5 });
  t.like(await p.inspect(h, INSPECT), { kind: 'done' });
}

test('fixture - a forced reboot restarts an inspection under way and says started', async (t) => {
  const p: FixtureProvisioner = createFixtureProvisioner({ inspectPasses: 3, pollMs: 5 });
  await forcedDuringInspection(t, p, async () => p.node('metal3/worker-0'), async () => p.starts('metal3/worker-0').inspect);
});

test('fixture - a forced reboot does not abort an inspection the same call starts', async (t) => {
  const p = createFixtureProvisioner({ inspectPasses: 3, pollMs: 5 });
  const h = hostData('worker-0');
  await p.register(h, REGISTER);
  t.deepEqual(await p.inspect(h, { ...INSPECT, forceReboot: true }), { kind: 'continuing', afterMs: 5 });
  t.is(p.starts(h.key).inspect, 1);
});

test('fixture remote - the forced reboot and the started answer cross the wire', async (t) => {
  const server = await startFixtureServer({ options: { inspectPasses: 3, pollMs: 5 } });
  const client = await createRemoteFixtureProvisioner({ url: server.url, timeoutMs: 30_000 });
  t.teardown(async () => {
    await client.close();
    await server.close();
  });
  await forcedDuringInspection(t, client, async () => client.node('metal3/worker-0'), async () => server.fixture.starts('metal3/worker-0').inspect);
});

test('bmh + fixture - a forced reboot during inspection restarts it, the annotation goes, and the host goes on to preparing without an error', async (t) => {
  const p = createFixtureProvisioner({ inspectPasses: 3, pollMs: 5 });
  const h = hostData('worker-0');
  await p.register(h, REGISTER);
  // The inspection is under way (one pass made) when the forced reboot annotation arrives.
  await p.inspect(h, INSPECT);
  let s: Step = grant(tick(atState('inspecting', { annotations: { [REBOOT]: JSON.stringify({ mode: 'hard', force: true }) } })).state);
  let now = T0;
  const removed: string[] = [];
  for (let i = 0; i < 20 && s.state.host.status.provisioning.state === 'inspecting'; i++) {
    for (const e of s.effects) if (e.type === 'removeAnnotation') removed.push(e.key);
    const call = lastCall(s);
    if (call === undefined) {
      now = Math.max(now + 1, s.state.retryAt ?? now);
      s = tick(s.state, now);
      continue;
    }
    s = step(s.state, { type: 'result', seq: call.seq, result: await invoke(p, { ...h, provisionerId: 'node-1' }, call.args), jitter: 0 }, now);
  }
  for (const e of s.effects) if (e.type === 'removeAnnotation') removed.push(e.key);
  t.is(s.state.host.status.provisioning.state, 'preparing');
  t.is(s.state.host.status.errorType ?? '', '');
  t.deepEqual(removed, [REBOOT]);
  t.is(p.starts(h.key).inspect, 2, 'the inspection under way and the one started again');
});
