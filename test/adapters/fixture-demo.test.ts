import test from 'ava';
import type { BareMetalHost } from '../../src/api/index.ts';
import { createFixtureProvisioner, DEMO_HOST_NAMES, demoExpectation, meetsDemoExpectation, type FixtureProvisioner } from '../../src/adapters/fixture/index.ts';
import { initialState, step } from '../../src/machines/bmh/index.ts';
import type { BmhState, CallArgs, OpResult, Step } from '../../src/machines/bmh/index.ts';
import type { HostData } from '../../src/ports/index.ts';

const T0 = Date.parse('2026-01-01T00:00:00Z');

function bmh(name: string): BareMetalHost {
  return {
    apiVersion: 'metal3.io/v1alpha1',
    kind: 'BareMetalHost',
    metadata: { name, namespace: 'demo', uid: `uid-${name}`, generation: 1 },
    spec: {
      online: true,
      bootMode: 'UEFI',
      automatedCleaningMode: 'metadata',
      bmc: { address: 'redfish://192.0.2.1/redfish/v1/Systems/1', credentialsName: `${name}-bmc` },
      bootMACAddress: '00:00:5e:00:53:aa',
      image: { url: 'http://images/os.qcow2', checksum: 'abc', checksumType: 'sha256' },
    },
  };
}

function hostData(s: BmhState): HostData {
  const h = s.host;
  return {
    key: `${h.metadata.namespace}/${h.metadata.name}`, namespace: h.metadata.namespace, name: h.metadata.name,
    uid: h.metadata.uid ?? '', provisionerId: h.status.provisioning.ID, spec: h.spec,
    credentials: { username: 'admin', password: 'secret' },
  };
}

// Plays the host actor against the fixture: runs calls, grants every slot at once and jumps the
// clock to each requeue, for a bounded number of steps (stuck hosts never finish).
async function drive(p: FixtureProvisioner, host: BareMetalHost, steps = 400): Promise<BmhState> {
  let now = T0;
  let cur: Step = step(initialState(host), { type: 'observed', host }, now);
  for (let i = 0; i < steps; i++) {
    const callEffect = cur.effects.find((e) => e.type === 'call');
    if (callEffect?.type === 'call') {
      const fn = p[callEffect.args.op] as (h: HostData, a: CallArgs) => Promise<OpResult>;
      const result = await fn.call(p, hostData(cur.state), callEffect.args);
      cur = step(cur.state, { type: 'result', seq: callEffect.seq, result, jitter: 0 }, now);
      continue;
    }
    if (cur.effects.some((e) => e.type === 'requestSlot')) {
      cur = step(cur.state, { type: 'slotGranted', grantId: `g${i}` }, now);
      continue;
    }
    const waits = cur.effects.flatMap((e) => (e.type === 'requeue' ? [e.afterMs] : []));
    const retryAt = cur.state.retryAt;
    const next = waits.length > 0 ? now + Math.min(...waits) : retryAt !== null && Number.isFinite(retryAt) ? retryAt : null;
    if (next === null) break;
    now = Math.max(next, now + 1);
    cur = step(cur.state, { type: 'tick' }, now);
  }
  return cur.state;
}

for (const name of DEMO_HOST_NAMES) {
  test(`fixture - the machine driven by the fixture settles ${name} as demoExpectation says`, async (t) => {
    const p = createFixtureProvisioner({ pollMs: 1000 });
    const state = await drive(p, bmh(name));
    const status = state.host.status;
    t.true(meetsDemoExpectation(name, status), `${name}: expected ${JSON.stringify(demoExpectation(name))}, got state ${status.provisioning.state} errorType ${status.errorType ?? ''}`);
  });
}

test('fixture - the machine driven by the fixture provisions an ordinary host', async (t) => {
  const p = createFixtureProvisioner({ inspectPasses: 2, provisionPasses: 3 });
  const state = await drive(p, bmh('worker-0'), 60);
  t.is(state.host.status.provisioning.state, 'provisioned');
  t.is(state.host.status.provisioning.ID, 'fixture-uid-worker-0');
  t.is(state.host.status.hardware?.ramMebibytes, 131072);
  t.true(state.host.status.poweredOn);
  t.like(p.node('demo/worker-0'), { provisionState: 'active', power: true, provisionCount: 1 });
  t.is(p.busy(), 0);
});
