// `metalfleet hosts -o name`: kubectl's `get -o name` prints one KIND/NAME per line, for xargs.
// Ours refused it ("-o: unknown format "name""). Each line is the lower-case kind and the host's
// NAMESPACE/NAME, the form `metalfleet host ACTION` takes (baremetalhost/lab/h-0).
import test from 'ava';
import { connectNats } from '../../src/bus/index.ts';
import { buildHostCommands } from '../../src/cli/commands/host.ts';
import { hostsView, type ViewOptions } from '../../src/cli/introspect/index.ts';
import { serveIntrospection } from '../../src/cluster/introspect/index.ts';
import type { HostRow, IntrospectionSource } from '../../src/cluster/introspect/index.ts';
import { serveEmbedded } from '../support/embedded-introspection.ts';
import { startNatsServer } from '../support/nats-server.ts';
import { lines, metalfleet } from './run.ts';

const row = (key: string, kind: HostRow['kind'], errorType = ''): HostRow => ({
  key, kind, backend: kind === 'MaasMachine' ? 'maas' : 'fixture', state: 'provisioned', poweredOn: true,
  operationalStatus: errorType ? 'error' : 'OK', errorType, shard: 1, stateSinceMs: 1_000,
});
const HOSTS = [row('lab/h-1', 'BareMetalHost', 'power management error'), row('lab/h-0', 'BareMetalHost'), row('lab/m-0', 'MaasMachine')];
const base: ViewOptions = { format: 'table', width: 80, timeoutMs: 2_000, natsUrl: 'memory', nodes: ['embedded'] };

test('hosts -o name - one kind/namespace/name per line, sorted, that `host ACTION` takes back', async (t) => {
  const embedded = serveEmbedded({ hosts: async () => HOSTS, close: () => undefined } as unknown as IntrospectionSource);
  try {
    const out = await hostsView(embedded.client, { names: true }, base);
    t.deepEqual(lines(out.stdout), ['baremetalhost/lab/h-0', 'baremetalhost/lab/h-1', 'maasmachine/lab/m-0']);
    t.deepEqual(out.stderr, []);
    const cmds = buildHostCommands('power-off', lines(out.stdout), {});
    t.deepEqual(cmds.map((c) => [c.kind, c.host]), [['BareMetalHost', 'lab/h-0'], ['BareMetalHost', 'lab/h-1'], ['MaasMachine', 'lab/m-0']]);
  } finally {
    await embedded.close();
  }
  const none = serveEmbedded({ hosts: async () => [], close: () => undefined } as unknown as IntrospectionSource);
  try {
    const out = await hostsView(none.client, { names: true }, base);
    t.is(out.stdout, '');
    t.deepEqual(out.stderr, ['No resources found']);
  } finally {
    await none.close();
  }
});

test('hosts -o name - the CLI takes it, with filters, and refuses it beside --json', async (t) => {
  const nats = await startNatsServer();
  const transport = await connectNats({ servers: nats.url, name: 'fake-node' });
  const source = { hosts: async () => HOSTS, close: () => undefined } as unknown as IntrospectionSource;
  const service = serveIntrospection(transport, source, { node: 'x' });
  try {
    const r = await metalfleet('hosts', '-o', 'name', '--nats', nats.url, '--node', 'x', '--timeout', '10');
    t.is(r.code, 0, r.stderr);
    t.deepEqual(lines(r.stdout), ['baremetalhost/lab/h-0', 'baremetalhost/lab/h-1', 'maasmachine/lab/m-0']);
    const both = await metalfleet('hosts', '-o', 'name', '--json', '--nats', nats.url, '--node', 'x');
    t.is(both.code, 2, both.stderr);
    t.regex(both.stderr, /--json and -o name ask for two formats: give one/);
    const bad = await metalfleet('hosts', '-o', 'names', '--nats', nats.url, '--node', 'x');
    t.is(bad.code, 2, bad.stderr);
    t.regex(bad.stderr, /-o: unknown format "names": use table, wide, name, json or yaml/);
  } finally {
    await service.close();
    await transport.close();
    await nats.dispose();
  }
});
