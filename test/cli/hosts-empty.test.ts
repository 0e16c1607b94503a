// `metalfleet hosts --state available | wc -l` with no such host: kubectl prints nothing on stdout
// and "No resources found" on stderr, so a pipe sees no rows. Ours printed "no hosts match" on
// stdout, which a script counted as a host (and grep could match).
import test from 'ava';
import { hostsView, shardsView, type ViewOptions } from '../../src/cli/introspect/index.ts';
import type { HostRow, IntrospectionSource } from '../../src/cluster/introspect/index.ts';
import { serveEmbedded } from '../support/embedded-introspection.ts';

const base: ViewOptions = { format: 'table', width: Number.POSITIVE_INFINITY, timeoutMs: 2_000, natsUrl: 'memory', nodes: ['embedded'] };

function withHosts(hosts: HostRow[]) {
  return serveEmbedded({ hosts: async () => hosts, close: () => undefined } as unknown as IntrospectionSource);
}

test('hosts empty - no host: nothing on stdout, "No resources found" on stderr, exit 0', async (t) => {
  const embedded = withHosts([]);
  try {
    for (const query of [{}, { wide: true }, { errors: true }]) {
      const out = await hostsView(embedded.client, query, base);
      t.is(out.stdout, '', JSON.stringify(query));
      t.deepEqual(out.stderr, ['No resources found'], JSON.stringify(query));
      t.is(out.exitCode, 0);
    }
  } finally {
    await embedded.close();
  }
});

test('hosts empty - -o json and -o yaml print the empty data and no message', async (t) => {
  const embedded = withHosts([]);
  try {
    for (const format of ['json', 'yaml'] as const) {
      const out = await hostsView(embedded.client, {}, { ...base, format });
      t.regex(out.stdout, /hosts: \[\]|"hosts": \[\]/, format);
      t.deepEqual(out.stderr, [], format);
    }
  } finally {
    await embedded.close();
  }
});

test('shards empty - a node owning no shard: nothing on stdout, "No resources found" on stderr; JSON keeps its empty list', async (t) => {
  const embedded = serveEmbedded({ shards: async () => [], close: () => undefined } as unknown as IntrospectionSource);
  try {
    const out = await shardsView(embedded.client, base);
    t.is(out.stdout, '');
    t.deepEqual(out.stderr, ['No resources found']);
    t.is(out.exitCode, 0);
    const json = await shardsView(embedded.client, { ...base, format: 'json' });
    t.regex(json.stdout, /"shards": \[\]/);
    t.deepEqual(json.stderr, []);
  } finally {
    await embedded.close();
  }
});

// A node killed a moment ago still holds its shards' leases: its hosts are not listed, and the
// warning said so, but "No resources found" after it read as "there are none".
test('hosts empty - with a node not answering, the line says only the nodes that answered have none', async (t) => {
  const embedded = withHosts([]);
  try {
    const out = await hostsView(embedded.client, {}, { ...base, timeoutMs: 300, nodes: ['embedded', 'ghost'] });
    t.is(out.stdout, '');
    t.deepEqual(out.stderr, ['warning: no answer from node(s) ghost within 0.3s', 'No resources found on the nodes that answered']);
  } finally {
    await embedded.close();
  }
});
