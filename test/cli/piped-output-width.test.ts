// `metalfleet hosts | grep x` and `metalfleet hosts > out.txt`: kubectl never cuts what it writes
// to a pipe or a file. Ours cut every line at 120 characters when stdout was not a terminal, so a
// long error message (or a long name with columns after it) was lost to grep. Only a terminal's
// own width limits a line.
import test from 'ava';
import { connectNats } from '../../src/bus/index.ts';
import { outputWidth, renderFields, renderTable, type Column } from '../../src/cli/introspect/index.ts';
import { serveIntrospection } from '../../src/cluster/introspect/index.ts';
import type { HostRow, IntrospectionSource } from '../../src/cluster/introspect/index.ts';
import { startNatsServer } from '../support/nats-server.ts';
import { lines, metalfleet } from './run.ts';

const LONG_MESSAGE = `image checksum mismatch: expected sha256 ${'0123456789abcdef'.repeat(8)} from http://images.example.com/ubuntu-22.04.qcow2.sha256sum`;

test('piped width - not a terminal: a table line and a field line are never cut', (t) => {
  const width = outputWidth({ isTTY: false, columns: 80 });
  const columns: Array<Column<{ m: string }>> = [{ header: 'NAME', value: () => 'fleet/h-0' }, { header: 'ERROR', value: (r) => r.m }];
  const table = renderTable(columns, [{ m: LONG_MESSAGE }], { width });
  t.true(table[1]!.endsWith(LONG_MESSAGE), table[1]);
  t.true(renderFields([['error', LONG_MESSAGE]], width)[0]!.endsWith(LONG_MESSAGE));
  t.true(renderTable(columns, [{ m: LONG_MESSAGE }], { width: outputWidth({}) })[1]!.endsWith(LONG_MESSAGE), 'a stream that says nothing of a terminal is not one');
});

test('piped width - a terminal still cuts each line at its width', (t) => {
  t.is(outputWidth({ isTTY: true, columns: 80 }), 80);
  const columns: Array<Column<{ m: string }>> = [{ header: 'ERROR', value: (r) => r.m }];
  for (const line of renderTable(columns, [{ m: LONG_MESSAGE }], { width: outputWidth({ isTTY: true, columns: 80 }) })) t.true([...line].length <= 80, line);
});

const host: HostRow = {
  key: 'fleet/host-with-a-rather-long-name-for-a-rack-scheme-0001', kind: 'BareMetalHost', backend: 'fixture', state: 'provisioning',
  poweredOn: true, operationalStatus: 'error', errorType: 'provisioning error', errorMessage: LONG_MESSAGE, shard: 3, stateSinceMs: 1_000,
};

test('piped width - `metalfleet hosts` into a pipe prints the whole error message', async (t) => {
  const nats = await startNatsServer();
  const transport = await connectNats({ servers: nats.url, name: 'fake-node' });
  const source = { hosts: async () => [host], close: () => undefined } as unknown as IntrospectionSource;
  const service = serveIntrospection(transport, source, { node: 'x' });
  try {
    const r = await metalfleet('hosts', '--nats', nats.url, '--node', 'x', '--timeout', '10');
    t.is(r.code, 0, r.stderr);
    const rows = lines(r.stdout).filter((l) => l.startsWith(`${host.key} `));
    t.is(rows.length, 1, r.stdout);
    t.true(rows[0]!.endsWith(`provisioning error: ${LONG_MESSAGE}`), rows[0]);
    const wide = lines((await metalfleet('hosts', '--nats', nats.url, '--node', 'x', '--timeout', '10', '-o', 'wide')).stdout);
    t.true(wide.some((l) => l.endsWith(LONG_MESSAGE)), wide.join('\n'));
  } finally {
    await service.close();
    await transport.close();
    await nats.dispose();
  }
});

test('piped width - not a terminal: a column with a most width is not cut either (-o wide conditions)', (t) => {
  const conditions = Array.from({ length: 12 }, (_, i) => `Condition${i}=True`).join(' ');
  const columns: Array<Column<{ c: string }>> = [{ header: 'CONDITIONS', value: (r) => r.c, max: 32 }, { header: 'ERROR', value: () => '-' }];
  t.true(renderTable(columns, [{ c: conditions }], { width: outputWidth({ isTTY: false }) })[1]!.startsWith(`${conditions}  -`));
  // On a terminal the column keeps its most width.
  t.true(renderTable(columns, [{ c: conditions }], { width: outputWidth({ isTTY: true, columns: 200 }) })[1]!.startsWith(`${conditions.slice(0, 31)}…  -`));
});
