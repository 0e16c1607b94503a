// `metalfleet audit | head -1` on a cluster with a long audit, or `metalfleet host pause <400
// hosts> | head -1`: the reader takes its line and closes the pipe while the command still writes.
// That ended in Node's unhandled 'error' event, a stack trace and exit 1, as `metalfleet hosts |
// head` once did.
import { z } from 'zod';
import test from 'ava';
import { connectNats, ok, serve, subjects } from '../../src/bus/index.ts';
import { silentLogger } from '../../src/ports/index.ts';
import { openAuditLog, type AuditRecord } from '../../src/security/index.ts';
import { natsServerInstalled, startNatsServer } from '../support/nats-server.ts';
import { endsQuietlyWhenReaderCloses } from './run.ts';

const withNats = natsServerInstalled() ? test : test.skip;

withNats('audit - a reader that closes the pipe early ends the command quietly, exit 0', async (t) => {
  const nats = await startNatsServer();
  const transport = await connectNats({ servers: nats.url, name: 'audit-writer' });
  try {
    const audit = await openAuditLog(transport, subjects(), silentLogger);
    // 1,500 records of some 250 bytes each: far past a pipe's 64 KB buffer, so the command is
    // still writing when the reader goes away.
    const at = Date.UTC(2026, 0, 1);
    for (let i = 0; i < 1_500; i += 100) {
      await Promise.all(Array.from({ length: 100 }, (_, j): Promise<void> => {
        const n = i + j;
        const record: AuditRecord = {
          at: new Date(at + n).toISOString(), node: 'a', action: 'command', command: 'powerOff',
          host: `fleet/host-${String(n).padStart(5, '0')}`, requestId: `r-${n}`, caller: { kind: 'unsigned' }, signedAt: null,
          outcome: 'refused', code: 'notFound', reason: `BareMetalHost fleet/host-${n} not found (never applied, or deleted); check the namespace and name`,
        };
        return audit.record(record);
      }));
    }
    await endsQuietlyWhenReaderCloses(t, 'audit', ['audit', '--nats', nats.url], [[], ['--json']]);
  } finally {
    await transport.close();
    await nats.dispose();
  }
});

withNats('host - a reader that closes the pipe early ends the command quietly, exit 0', async (t) => {
  const nats = await startNatsServer();
  const transport = await connectNats({ servers: nats.url, name: 'fake-node' });
  // A node that takes every command: 400 hosts answer some 300 bytes each, past a pipe's 64 KB.
  const Command = z.object({ host: z.string(), type: z.string() });
  const service = serve(transport, subjects().commands, Command, async (cmd) => ok({
    host: cmd.host, command: cmd.type, applied: true, state: 'provisioned',
    message: `${cmd.host} paused: reconciliation stops until unpause; ${'the node keeps its record of this request for retries. '.repeat(4)}`,
  }));
  const hosts = Array.from({ length: 400 }, (_, i) => `fleet/host-${String(i).padStart(5, '0')}`);
  try {
    await endsQuietlyWhenReaderCloses(t, 'host pause', ['host', 'pause', ...hosts, '--nats', nats.url, '--shards', '16', '--timeout', '30'], [[], ['--json']]);
  } finally {
    await service.drain();
    await transport.close();
    await nats.dispose();
  }
});
