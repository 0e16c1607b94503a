// The introspection commands' text, without a cluster: tables, durations, the top frame, its keys.
import test from 'ava';
import { formatBytes, formatDuration, handleKeys, INITIAL_KEYS, renderFrame, renderTable, summarize, truncate } from '../../src/cli/introspect/index.ts';
import type { Column, TopData } from '../../src/cli/introspect/index.ts';
import { actorTree, noAnswer, partialWarnings } from '../../src/cli/introspect/index.ts';

test('format - durations read like 3m12s', (t) => {
  t.is(formatDuration(0), '0ms');
  t.is(formatDuration(950), '950ms');
  t.is(formatDuration(42_300), '42s');
  t.is(formatDuration(192_000), '3m12s');
  t.is(formatDuration(5 * 3_600_000 + 7 * 60_000), '5h07m');
  t.is(formatDuration(2 * 86_400_000 + 3 * 3_600_000), '2d03h');
  t.is(formatDuration(null), '-');
  t.is(formatBytes(512), '512B');
  t.is(formatBytes(3 * 1024 * 1024), '3.0MiB');
});

test('format - a table has fixed columns and every line is cut to the width', (t) => {
  type R = { name: string; n: number; note: string };
  const columns: Array<Column<R>> = [
    { header: 'NAME', value: (r) => r.name, max: 12 },
    { header: 'N', value: (r) => String(r.n), align: 'right' },
    { header: 'NOTE', value: (r) => r.note },
  ];
  const rows: R[] = [
    { name: 'short', n: 1, note: 'ok' },
    { name: 'a-very-long-host-name-indeed', n: 12345, note: 'line one\nline two '.repeat(10) },
  ];
  const wide = renderTable(columns, rows, { width: 200 });
  t.is(wide[0], 'NAME              N  NOTE');
  t.is(wide[1], 'short             1  ok');
  t.true(wide[2]!.startsWith('a-very-long…  12345  line one line two'), wide[2]);
  const narrow = renderTable(columns, rows, { width: 30 });
  for (const line of narrow) t.true(line.length <= 30, line);
  t.true(narrow[2]!.endsWith('…'));
  t.is(truncate('abcdef', 4), 'abc…');
  t.is(truncate('abc', 4), 'abc');
});

test('format - --tree orders actors under their parents', (t) => {
  const row = (path: string, parent: string | null) => ({ path, parent, node: 'a' });
  const tree = actorTree([row('/s-1/h~b', '/s-1'), row('/s-10', null), row('/s-1', null), row('/s-1/h~a', '/s-1'), row('/broker', null)]);
  t.deepEqual(tree.map((x) => `${x.depth}:${x.row.path}`), ['0:/broker', '0:/s-1', '1:/s-1/h~a', '1:/s-1/h~b', '0:/s-10']);
});

test('format - nobody answering is one clear error; a partial answer is a warning', (t) => {
  const none = noAnswer({ replies: [], errors: [], missing: [] }, { timeoutMs: 2_000, natsUrl: 'nats://x:4222' });
  t.is(none?.message, 'no metalfleet node answered within 2s; is a node running with --nats nats://x:4222?');
  t.is(noAnswer({ replies: [{ node: 'a', value: 1 }], errors: [], missing: ['b'] }, { timeoutMs: 2_000, natsUrl: 'n' }), null);
  t.deepEqual(partialWarnings({ replies: [{ node: 'a', value: 1 }], errors: [], missing: ['b', 'c'] }, 1_500), ['warning: no answer from node(s) b, c within 1.5s']);
});

function sample(hosts = 120, actors = 60, errors = 12): TopData {
  const states = ['available', 'provisioning', 'provisioned', 'inspecting', 'preparing', 'registering', 'deprovisioning'];
  return summarize({
    at: Date.UTC(2025, 0, 1, 12, 0, 0),
    nodes: ['a', 'b'],
    missing: ['c'],
    hosts: Array.from({ length: hosts }, (_, i) => ({
      key: `fleet/host-with-a-long-name-${i}`, kind: 'BareMetalHost' as const, backend: 'fixture' as const,
      state: states[i % states.length]!, poweredOn: true, operationalStatus: i < errors ? 'error' : 'OK',
      errorType: i < errors ? 'provisioning error' : '', ...(i < errors ? { errorMessage: `image checksum mismatch on disk ${i} `.repeat(4) } : {}),
      shard: i % 16, stateSinceMs: i * 1_000, node: i % 2 ? 'a' : 'b',
    })),
    actors: Array.from({ length: actors }, (_, i) => ({
      path: `/shard-${i % 16}-e3/fleet~host-with-a-long-name-${i}`, kind: i % 10 === 0 ? 'capacity-cluster-broker' : 'host', parent: `/shard-${i % 16}-e3`,
      mailboxDepth: (i * 7) % 13, highWater: (i * 5) % 17, processed: i * 3, restarts: i % 4, lastError: null, busy: i % 3 === 0, node: i % 2 ? 'a' : 'b',
    })),
    pools: ['fixture:default', 'ironic:http://ironic-1.example.com:6385', 'maas:rack-2', 'maas:rack-3'].map((pool, i) => ({
      pool, limit: i === 2 ? null : 5, node: 'a', longestWaitMs: 65_000,
      inUse: Array.from({ length: 5 }, (_, j) => ({ holder: `fleet/h-${j}`, operation: 'provision', sinceMs: 1_000 })),
      waiting: Array.from({ length: 15 }, (_, j) => ({ holder: `fleet/w-${j}`, operation: 'provision', waitingMs: 1_000 * j })),
    })),
  });
}

test('top - a frame at 80x24 is 24 lines, none wider than 80, with the header and the state counts', (t) => {
  for (const data of [sample(), sample(0, 0, 0), null]) {
    const frame = renderFrame(data, { width: 80, height: 24, sort: 'depth', filter: '' });
    t.is(frame.length, 24);
    for (const line of frame) t.true([...line].length <= 80, `${line.length}: ${line}`);
    t.regex(frame[0]!, /^metalfleet top/);
    t.regex(frame[23]!, /q quit/);
  }
  const frame = renderFrame(sample(), { width: 80, height: 24, sort: 'depth', filter: '' });
  t.log(`\n${frame.join('\n')}`);
  const text = frame.join('\n');
  t.regex(text, /STATES +registering 17 +inspecting 17/);
  t.regex(text, /THROUGHPUT/);
  t.regex(text, /fixture:default +\[#+\] 5\/5 in use {2}15 waiting/);
  t.regex(text, /RECENT ERRORS {2}12/);
  // Other sizes: tiny and wide.
  for (const [width, height] of [[40, 10], [200, 50], [80, 3]] as const) {
    const f = renderFrame(sample(), { width, height, sort: 'processed', filter: '' });
    t.is(f.length, height);
    for (const line of f) t.true([...line].length <= width);
  }
});

test('top - s cycles the mailbox sort, / filters on Enter, Esc clears, q and Ctrl-C quit', (t) => {
  let k = INITIAL_KEYS;
  t.is(k.sort, 'depth');
  k = handleKeys(k, 's').state;
  t.is(k.sort, 'high');
  k = handleKeys(k, 'sss').state;
  t.is(k.sort, 'depth');
  // Typing a filter: nothing applies until Enter; 's' and 'q' are text while typing.
  k = handleKeys(k, '/name-1q').state;
  t.is(k.editing, 'name-1q');
  t.is(k.filter, '');
  t.regex(renderFrame(sample(), { width: 80, height: 24, sort: k.sort, filter: k.filter, editing: k.editing }).at(-1)!, /^\/name-1q_ +Enter apply/);
  k = handleKeys(k, '\u007f\r').state;
  t.is(k.filter, 'name-1');
  t.is(k.editing, null);
  const filtered = renderFrame(sample(), { width: 80, height: 24, sort: k.sort, filter: k.filter });
  const text = filtered.join('\n');
  // name-1 and name-10 to name-19 match: 11 actors; of the 12 hosts with errors, 1, 10 and 11.
  t.regex(text, /MAILBOXES {2}11 actors/);
  t.regex(text, /RECENT ERRORS {2}3/);
  t.true(filtered.filter((l) => l.startsWith('/shard')).length > 0);
  t.regex(filtered.at(-1)!, /filter \(name-1\)/);
  // Arrow keys are skipped, a lone Esc clears.
  k = handleKeys(k, '\u001b[A').state;
  t.is(k.filter, 'name-1');
  k = handleKeys(k, '\u001b').state;
  t.is(k.filter, '');
  t.true(handleKeys(k, 'q').quit);
  t.true(handleKeys({ ...k, editing: 'abc' }, '\u0003').quit);
  t.false(handleKeys(k, 'x').quit);
  // Sorted by processed, the busiest first.
  const byProcessed = renderFrame(sample(), { width: 80, height: 24, sort: 'processed', filter: '' }).filter((l) => l.startsWith('/shard'));
  const done = byProcessed.map((l) => Number(l.trim().split(/\s+/).at(-3)));
  t.deepEqual(done, [...done].sort((a, b) => b - a));
});
