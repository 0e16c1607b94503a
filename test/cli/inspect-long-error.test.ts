// A host whose backend keeps failing with a long reason (Ironic's last_error carries the agent's
// traceback: tens of KB). The host's recent transitions keep 16 events, each with that text, so
// the inspect reply grew past the bus's 1 MiB and could not be sent: `metalfleet inspect` and the
// host page said no node answered. The reply now carries each transition's message cut to a
// bound; the error itself stays whole in status.errorMessage.
import test from 'ava';
import { createMemoryBus } from '../../src/bus/index.ts';
import { inspectView } from '../../src/cli/introspect/index.ts';
import type { ViewOptions } from '../../src/cli/introspect/index.ts';
import { serveIntrospection } from '../../src/cluster/introspect/index.ts';
import { hostDetail } from '../../src/ui/host-detail.ts';
import type { Provisioner } from '../../src/ports/index.ts';
import { bmh, secret, startTestNode } from '../support/node.ts';
import { waitUntil } from '../support/wait.ts';

test('inspect - a host that failed 16 times with a 64 KB backend reason is still shown, each transition cut, the error whole in its status', async (t) => {
  const reason = `deploy failed: ${'agent traceback line, long as Ironic keeps it. '.repeat(1_400)}end of reason`;
  let failures = 0;
  // The fixture, but every registration fails with that reason (as an Ironic that keeps refusing).
  const failing = (fixture: Provisioner): Provisioner => new Proxy(fixture, {
    get(target, prop) {
      if (prop === 'register') return async () => { failures++; return { kind: 'failed', message: reason }; };
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  // Backoff of a millisecond, so sixteen failures come at once.
  const { node, store } = await startTestNode({ fixture: { latencyMs: 1 }, machine: { backoffUnitMs: 1, backoffMaxExponent: 1 }, provisioner: failing });
  const bus = createMemoryBus();
  const service = serveIntrospection(bus.connect('embedded'), node.introspection, { node: 'embedded' });
  const client = bus.connect('cli');
  const base: ViewOptions = { format: 'table', width: 120, timeoutMs: 2_000, natsUrl: 'memory', nodes: ['embedded'] };
  try {
    t.true((await store.applyObjects([secret('bmc', 'lab', { username: 'admin', password: 'Long-Reason-Pw1' }), bmh('loud')])).ok);
    await waitUntil(() => failures >= 20, 30_000, 'twenty failed registrations');

    const json = await inspectView(client, { host: 'lab/loud', shardCount: 16 }, { ...base, format: 'json' });
    t.is(json.exitCode, 0, json.stderr.join('\n'));
    const host = (JSON.parse(json.stdout) as { value: { host: { status: { errorType?: string; errorMessage?: string }; recent: Array<{ reason: string; message: string }> } } }).value.host;
    t.is(host.status.errorType, 'registration error');
    t.is(host.status.errorMessage, reason, 'the error itself is whole');
    const errors = host.recent.filter((r) => r.reason === 'RegistrationError');
    t.true(errors.length >= 15, `${errors.length} registration errors among the transitions`);
    for (const r of errors) {
      t.true(r.message.length < 5_000, `a transition of ${r.message.length} characters`);
      t.true(r.message.startsWith('deploy failed: agent traceback line'));
      t.regex(r.message, /… \(\d+ more characters; the whole text is in status\.errorMessage or the host's events\)$/);
    }

    const table = await inspectView(client, { host: 'lab/loud', shardCount: 16 }, base);
    t.regex(table.stdout, /^host: +lab\/loud +\(BareMetalHost, backend fixture\)$/m);
    // The page asks the same verb.
    const page = await hostDetail(client, 'lab/loud', { timeoutMs: 2_000, shardCount: 16, nodes: ['embedded'] });
    t.true(page.ok, page.ok ? '' : page.reason);
  } finally {
    await service.close();
    await node.stop();
  }
});
