// `metalfleet hosts | head` on a big fleet: the reader takes its lines and closes the pipe while
// the command still writes, and the write fails with EPIPE. That used to end in Node's unhandled
// 'error' event: a stack trace on the terminal and exit 1, for a command that did what was asked.
import test from 'ava';
import { connectNats } from '../../src/bus/index.ts';
import { serveIntrospection } from '../../src/cluster/introspect/index.ts';
import type { HostRow, IntrospectionSource } from '../../src/cluster/introspect/index.ts';
import { natsServerInstalled, startNatsServer } from '../support/nats-server.ts';
import { endsQuietlyWhenReaderCloses } from './run.ts';

const withNats = natsServerInstalled() ? test : test.skip;

// 3,000 rows: some 300 KB of table, far past a pipe's 64 KB buffer, so the command is still
// writing when the reader goes away.
const hosts: HostRow[] = Array.from({ length: 3_000 }, (_, i) => ({
  key: `fleet/host-${String(i).padStart(5, '0')}`, kind: 'BareMetalHost', backend: 'fixture', state: 'available',
  poweredOn: false, operationalStatus: 'OK', errorType: '', shard: i % 16, stateSinceMs: 1_000,
}));

withNats('introspect cli - a reader that closes the pipe early ends the command quietly, exit 0', async (t) => {
  const nats = await startNatsServer();
  const transport = await connectNats({ servers: nats.url, name: 'fake-node' });
  const source = { hosts: async () => hosts, close: () => undefined } as unknown as IntrospectionSource;
  const service = serveIntrospection(transport, source, { node: 'x' });
  try {
    await endsQuietlyWhenReaderCloses(t, 'hosts', ['hosts', '--nats', nats.url, '--node', 'x', '--timeout', '10'], [[], ['--json'], ['-o', 'yaml']]);
  } finally {
    await service.close();
    await transport.close();
    await nats.dispose();
  }
});
