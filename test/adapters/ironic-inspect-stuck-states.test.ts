// Inspection of a node in a state it cannot start from and Ironic does not leave by itself (an
// active node left by an earlier run, a failed deploy, a hold): a failure naming the node, its
// state and what to do, never a poll without end and without a word. Flows Ironic ends by itself
// are polled.
import test from 'ava';
import { provisionerOnNode as withNode, stubHost as host } from '../support/ironic-node-stub.ts';

const inspectArgs = { op: 'inspect', restartOnFailure: false, refresh: false } as const;

test('ironic inspect - an active node fails the inspection naming the node, its state and what to do', async (t) => {
  const { p, writes } = withNode({ provision_state: 'active', uuid: 'node-1', name: 'ns~h1' });
  const r = await p.inspect(host(), inspectArgs);
  if (r.kind !== 'failed') return t.fail(JSON.stringify(r));
  t.regex(r.message, /Ironic node ns~h1 \(node-1\)/);
  t.regex(r.message, /provision state "active"/);
  t.regex(r.message, /externallyProvisioned/);
  t.regex(r.message, /undeploy/);
  t.is(r.retryAfterMs, undefined, 'the normal backoff: the user acts, the retry sees it');
  t.deepEqual(writes, []);
  // The retry meets the same answer, not a silent poll.
  t.is((await p.inspect(host(), { ...inspectArgs, restartOnFailure: true })).kind, 'failed');
});

for (const state of ['deploy failed', 'error', 'clean failed', 'adopt failed', 'rescue', 'service failed', 'clean hold', 'deploy hold']) {
  test(`ironic inspect - a node in ${state} fails the inspection with its state`, async (t) => {
    const { p, writes } = withNode({ provision_state: state, last_error: 'something broke' });
    const r = await p.inspect(host(), inspectArgs);
    if (r.kind !== 'failed') return t.fail(JSON.stringify(r));
    t.regex(r.message, new RegExp(`Ironic node ns~h1 .*provision state "${state}"`));
    t.regex(r.message, /last error: something broke/);
    t.deepEqual(writes, []);
  });
}

for (const state of ['cleaning', 'clean wait', 'deploying', 'wait call-back', 'deleting', 'adopting', 'verifying', 'servicing']) {
  test(`ironic inspect - a node in ${state} (a flow Ironic ends itself) is polled`, async (t) => {
    const { p } = withNode({ provision_state: state });
    t.deepEqual(await p.inspect(host(), inspectArgs), { kind: 'continuing', afterMs: 3 });
  });
}

test('ironic inspect - a node back in enroll goes to registration (which manages it)', async (t) => {
  const { p } = withNode({ provision_state: 'enroll' });
  t.deepEqual(await p.inspect(host(), inspectArgs), { kind: 'needsRegistration' });
});
