// Text in the tables comes from outside: a backend's error (Ironic's last_error carries what a BMC
// said), an actor's last error. The tables turned only C0 controls into spaces, so a C1 control
// (U+009B is CSI: "\u009b2J" clears the screen on terminals that take 8-bit controls) or a bidi
// override (U+202E shows the rest of the line reversed, so a row reads as another) reached the
// operator's terminal as is, in `hosts`, `actors`, `inspect` and `top`.
import test from 'ava';
import { createMemoryBus } from '../../src/bus/index.ts';
import { actorsView, hostsView, renderFrame, renderTable, summarize, type ViewOptions } from '../../src/cli/introspect/index.ts';
import { serveIntrospection } from '../../src/cluster/introspect/index.ts';
import type { ActorRow, HostRow, IntrospectionSource } from '../../src/cluster/introspect/index.ts';

// C1 controls, the Unicode line and paragraph separators, and the bidi controls.
const UNSAFE = /[\u0080-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
const HOSTILE = 'BMC said: \u009b2J\u009b31mpower \u202efailed\u202c\u2028next \u2066x\u2069 \u0085end';

const host: HostRow = {
  key: 'lab/h-1', kind: 'BareMetalHost', backend: 'ironic', state: 'registering', poweredOn: false,
  operationalStatus: 'error', errorType: 'registration error', errorMessage: HOSTILE, shard: 3, stateSinceMs: 5_000,
};
const actor: ActorRow = {
  path: '/shard-3-e1/lab~h-1', parent: '/shard-3-e1', kind: 'host', mailboxDepth: 0, highWater: 1, processed: 4, restarts: 1,
  busy: false, lastError: HOSTILE,
};

test('introspect controls - hosts and actors tables show no C1, separator or bidi control', async (t) => {
  const bus = createMemoryBus();
  const source = { hosts: async () => [host], actors: async () => [actor], close: () => undefined } as unknown as IntrospectionSource;
  const service = serveIntrospection(bus.connect('node'), source, { node: 'a' });
  const client = bus.connect('cli');
  const options: ViewOptions = { format: 'table', width: 400, timeoutMs: 2_000, natsUrl: 'memory', nodes: ['a'] };
  try {
    for (const out of [await hostsView(client, {}, options), await actorsView(client, {}, options)]) {
      t.log(out.stdout);
      t.false(UNSAFE.test(out.stdout), JSON.stringify(out.stdout));
      // Still one row, and what the controls were is shown escaped, not dropped.
      t.is(out.stdout.trim().split('\n').length, 2);
      t.true(out.stdout.includes('\\x9b2J'), out.stdout);
      t.true(out.stdout.includes('\\u{202e}failed'), out.stdout);
    }
  } finally {
    await service.close();
    await client.close();
  }
});

test('introspect controls - a table cell and a top frame escape them too', (t) => {
  const table = renderTable([{ header: 'ERROR', value: (r: { e: string }) => r.e }], [{ e: HOSTILE }], { width: 200 });
  t.false(UNSAFE.test(table.join('\n')), JSON.stringify(table));
  const data = summarize({ at: Date.UTC(2026, 0, 1), nodes: ['a'], missing: [], hosts: [{ ...host, node: 'a' }], actors: [{ ...actor, node: 'a' }], pools: [], problem: HOSTILE });
  const frame = renderFrame(data, { width: 200, height: 30, sort: 'depth', filter: '' });
  t.false(UNSAFE.test(frame.join('\n')), JSON.stringify(frame));
  t.true(frame.some((l) => l.includes('\\x9b2J')), frame.join('\n'));
});
