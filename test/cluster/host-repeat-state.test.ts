// `metalfleet host` with a request id already taken printed `request rid-1 ... was already taken
// ... (state none)` of a provisioned host: the node answers a repeat from its request ledger,
// without the host's state, and the CLI printed that missing state as "none". Now the node reads
// the host's state for that answer too.
import test from 'ava';
import { openNatsStoreOn } from '../../src/adapters/store/nats-store.ts';
import { createMemoryBus } from '../../src/bus/index.ts';
import { buildHostCommands, sendHostCommands } from '../../src/cli/commands/host.ts';
import { startCommandServer } from '../../src/cluster/command-server.ts';
import { openRequestLedger } from '../../src/cluster/request-ledger.ts';
import { silentLogger } from '../../src/ports/index.ts';
import { makeHost } from '../support/bmh.ts';

const SHARDS = 16;

test('host repeat - a repeated request id of a provisioned host answers with its state, not "(state none)"', async (t) => {
  const bus = createMemoryBus();
  const transport = bus.connect('a');
  const store = await openNatsStoreOn(transport);
  const commands = startCommandServer({ transport, store: store.resources, shardCount: SHARDS, log: silentLogger, requests: await openRequestLedger(transport) });
  const client = bus.connect('cli');
  t.teardown(async () => {
    await commands.close();
    await store.close();
    await transport.close();
    await client.close();
  });
  const host = makeHost({ status: { provisioning: { state: 'provisioned', ID: 'n-7' }, poweredOn: true } });
  const applied = await store.apply([{ ...host, metadata: { name: 'host-7', namespace: 'fleet' } }], 'test');
  t.true(applied.ok, JSON.stringify(applied.issues));
  await store.writeStatus('fleet/host-7', host.status!);

  const send = async () => (await sendHostCommands(client, buildHostCommands('power-off', ['fleet/host-7'], { requestId: 'rid-1' }), SHARDS, 5_000))[0]!;
  const first = await send();
  t.true(first.ok, first.line);
  t.regex(first.line, / \(state provisioned\)$/);
  t.is(first.result.state, 'provisioned');

  const again = await send();
  t.true(again.ok, again.line);
  t.regex(again.line, /^fleet\/host-7: request rid-1 \(powerOff fleet\/host-7\) was already taken/);
  t.notRegex(again.line, /state none/);
  t.regex(again.line, /nothing more was done \(state provisioned\)$/);
  t.is(again.result.state, 'provisioned');
});
