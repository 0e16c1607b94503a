// A node that takes over hosts a dead node drove (here: a node started again on the same KV and
// the same backend) adopts a provisioned, powered-on host without announcing a power change:
// BMO publishes PowerOn/PowerOff when the power it drives or observes changes, and nothing
// changed. A real change after the takeover still has its event.
import test from 'ava';
import { bmh, secret, startTestNode } from '../support/node.ts';
import { waitFor } from '../support/wait.ts';

const KEY = 'lab/t-1';

test('takeover - adopting a powered-on provisioned host emits no "Host powered on"; a real power change still does', async (t) => {
  const first = await startTestNode({ objects: [secret(), bmh('t-1')], machine: { powerPollMs: 10 } });
  await waitFor(() => first.node.stats.hosts.get(KEY)?.state === 'provisioned', 10_000, 'provisioned');
  await waitFor(() => first.fixture.node(KEY)?.power === true, 10_000, 'powered on at the backend');
  const stored = await first.store.get(KEY);
  t.is(stored?.status?.poweredOn, true, 'the stored status says powered on');
  await first.node.stop();
  const powerOnsBefore = first.fixture.totals().powerOn;

  // Same KV (the durable truth), same backend: the host is on and stays on.
  const next = await startTestNode({ kv: first.substrate.memoryKv!, objects: [secret()], provisioner: () => first.fixture, machine: { powerPollMs: 10 } });
  try {
    const inspect = async () => {
      const r = await next.node.introspection.inspect(KEY);
      if (!r.ok) throw new Error(`inspect ${KEY}: ${r.kind}`);
      return r.host;
    };
    // Several power reads past the takeover (powerPollMs 10): the first one is where it happened.
    const reads = first.fixture.totals().hardwareState;
    await waitFor(() => next.node.stats.hosts.get(KEY)?.state === 'provisioned', 10_000, 'provisioned again');
    const readsNow = async (n: number) => {
      const deadline = Date.now() + 10_000;
      while (first.fixture.totals().hardwareState < reads + n) {
        if (Date.now() > deadline) throw new Error(`fewer than ${n} power reads after the takeover`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    };
    await readsNow(5);
    const taken = await inspect();
    t.is(taken.state, 'provisioned');
    t.is(taken.status['poweredOn'], true);
    t.deepEqual(taken.recent.filter((e) => e.reason === 'PowerOn' || e.reason === 'PowerOff').map((e) => `${e.reason}: ${e.message}`), [], 'no power event: the power did not change');
    t.is(first.fixture.totals().powerOn, powerOnsBefore, 'and no power-on call');

    // A real change after the takeover: off, then on again, each with its event.
    await next.store.resources.patchSpec('BareMetalHost', KEY, { online: false });
    await waitFor(() => first.fixture.node(KEY)?.power === false, 10_000, 'powered off');
    await waitFor(() => next.node.stats.hosts.get(KEY) !== undefined, 10_000, 'host known');
    let host = await inspect();
    for (let i = 0; i < 2000 && !host.recent.some((e) => e.reason === 'PowerOff'); i++) host = await inspect();
    t.true(host.recent.some((e) => e.reason === 'PowerOff' && e.message === 'Host powered off'), 'the power-off has its event');
    await next.store.resources.patchSpec('BareMetalHost', KEY, { online: true });
    await waitFor(() => first.fixture.node(KEY)?.power === true, 10_000, 'powered on again');
    host = await inspect();
    for (let i = 0; i < 2000 && !host.recent.some((e) => e.reason === 'PowerOn'); i++) host = await inspect();
    t.deepEqual(host.recent.filter((e) => e.reason === 'PowerOn' || e.reason === 'PowerOff').map((e) => e.reason), ['PowerOff', 'PowerOn'], 'one event per real change');
  } finally {
    await next.node.stop();
  }
});
