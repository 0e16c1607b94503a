// Draining a subscription waits for the server's PONG: with NATS gone, for a reconnect that may
// never come. A node stopping after its NATS server died waited seconds in each service's drain.
// With the connection down there is nothing left to drain but our side: it ends at once.
import test from 'ava';
import { connectNats } from '../../src/bus/nats-transport.ts';
import type { BusStatus } from '../../src/ports/index.ts';
import { natsServerInstalled, startNatsServer } from '../support/nats-server.ts';
import { waitFor } from '../support/wait.ts';

const withNats = natsServerInstalled() ? test : test.skip;

// Well below the client's reconnect wait (2 s) and request timeouts, with room for a loaded machine.
const PROMPT_MS = 1_000;

withNats('nats drain - a subscription drains at once while the server is gone, and the connection closes', async (t) => {
  const server = await startNatsServer();
  t.teardown(() => server.dispose());
  const transport = await connectNats({ servers: server.url, name: 'drain-down' });
  t.teardown(() => transport.close());
  const statuses: BusStatus[] = [];
  transport.onStatus((s) => statuses.push(s));
  const sub = transport.subscribe('drain.down', () => undefined);
  await server.kill();
  await waitFor(() => statuses.includes('disconnected') || statuses.includes('reconnecting'), 10_000, 'the client sees the server gone');

  const started = performance.now();
  await sub.drain();
  const drainedMs = performance.now() - started;
  t.true(drainedMs < PROMPT_MS, `drained after ${Math.round(drainedMs)} ms`);

  const closing = performance.now();
  await transport.close();
  const closedMs = performance.now() - closing;
  t.true(closedMs < PROMPT_MS, `closed after ${Math.round(closedMs)} ms`);
});
