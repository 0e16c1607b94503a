// Introspection pages were cut at a fixed 512 K characters of JSON, whatever the bus carries. A
// page is sent as one NATS message, so a node on a server with a smaller max_payload, or whose
// rows hold non-ASCII text (a BMC's error message: 2-3 bytes a character in MessagePack's UTF-8,
// one in a JSON length), answered its hosts with `tooLarge` and `metalfleet hosts`, top and the
// dashboard listed none of them. A page now fits the connection's max_payload, in bytes.
import test, { type ExecutionContext } from 'ava';
import type { HostRow } from '../../src/bus/messages/introspect.ts';
import { connectNats } from '../../src/bus/nats-transport.ts';
import { gather, serveIntrospection } from '../../src/cluster/introspect/index.ts';
import type { IntrospectionSource } from '../../src/cluster/introspect/index.ts';
import { startNatsServer } from '../support/nats-server.ts';
import { waitUntil } from '../support/wait.ts';

const row = (i: number, message = ''): HostRow => ({
  key: `fleet/host-${String(i).padStart(5, '0')}`, kind: 'BareMetalHost', backend: 'fixture', state: 'provisioned', poweredOn: true,
  operationalStatus: 'OK', errorType: message ? 'provisioning error' : '', errorMessage: message, shard: i % 256, stateSinceMs: 1_000,
});

async function hostsOver(t: ExecutionContext, config: string, rows: HostRow[]) {
  const server = await startNatsServer({ config });
  t.teardown(() => server.dispose());
  const node = await connectNats({ servers: server.url, name: 'n1' });
  const client = await connectNats({ servers: server.url, name: 'client' });
  t.teardown(async () => {
    await client.close();
    await node.close();
  });
  const source = { hosts: async () => rows } as unknown as IntrospectionSource;
  const introspection = serveIntrospection(node, source, { node: 'n1' });
  t.teardown(() => introspection.close());
  // The server has the node's subscriptions once the client's own request is answered.
  await waitUntil(async () => (await gather(client, 'info', {}, { timeoutMs: 2_000, nodes: ['n1'] })).missing.length === 0, 5_000, 'n1 answers');
  return gather(client, 'hosts', {}, { timeoutMs: 5_000, nodes: ['n1'] });
}

test('introspection pages - a server whose max_payload is 64 KiB: every host is listed, none refused as too large', async (t) => {
  const rows = Array.from({ length: 3_000 }, (_, i) => row(i));
  const got = await hostsOver(t, 'max_payload: 65536', rows);
  t.deepEqual(got.errors, []);
  t.deepEqual(got.missing, []);
  t.is(got.replies[0]?.value.hosts.length, rows.length);
});

test('introspection pages - rows of non-ASCII error text on a default (1 MiB) server: every host is listed', async (t) => {
  // 300 three-byte characters a row: the JSON length counts 300, MessagePack carries 900 bytes.
  const rows = Array.from({ length: 3_000 }, (_, i) => row(i, `BMC 応答なし: ${'€'.repeat(300)}`));
  const got = await hostsOver(t, '', rows);
  t.deepEqual(got.errors, []);
  t.is(got.replies[0]?.value.hosts.length, rows.length);
  t.is(new Set(got.replies[0]?.value.hosts.map((h) => h.key)).size, rows.length);
});
