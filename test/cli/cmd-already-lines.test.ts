// `metalfleet host` on a host where the command changes nothing prints what the node said, not
// "already requested": attach of a host that is not detached, or unpause of one not paused, was
// printed "already requested (state provisioned)", as if an attach or unpause were pending, and
// the node's reason (and its notes, such as a paused host's power change waiting for unpause) was lost.
import test, { type ExecutionContext } from 'ava';
import { createMemoryBus } from '../../src/bus/index.ts';
import { openNatsStoreOn } from '../../src/adapters/store/nats-store.ts';
import { buildHostCommands, sendHostCommands } from '../../src/cli/commands/host.ts';
import { startCommandServer } from '../../src/cluster/command-server.ts';
import { openRequestLedger } from '../../src/cluster/request-ledger.ts';
import { silentLogger, type Transport } from '../../src/ports/index.ts';
import { makeHost } from '../support/bmh.ts';

const SHARDS = 16;

async function world(t: ExecutionContext, annotations: Record<string, string> = {}, status?: ReturnType<typeof makeHost>['status']): Promise<{ client: Transport; send: (action: string, requestId?: string) => Promise<{ ok: boolean; line: string; result: { state: string | null } }> }> {
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
  const applied = await store.apply([{ apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', metadata: { name: 'h-0', namespace: 'fleet', annotations }, spec: { online: true, bmc: { address: 'redfish://192.0.2.1/redfish/v1/Systems/1', credentialsName: 'bmc' } } }], 'test');
  t.true(applied.ok);
  if (status) await store.writeStatus('fleet/h-0', status);
  const send = async (action: string, requestId?: string) => {
    const [outcome] = await sendHostCommands(client, buildHostCommands(action, ['fleet/h-0'], requestId === undefined ? {} : { requestId }), SHARDS, 5_000);
    return outcome!;
  };
  return { client, send };
}

test('host - a command that changes nothing prints the node\'s reason, not "already requested"', async (t) => {
  const { send } = await world(t);
  const attach = await send('attach');
  t.true(attach.ok, attach.line);
  t.notRegex(attach.line, /already requested/);
  t.regex(attach.line, /^fleet\/h-0: fleet\/h-0 has no baremetalhost\.metal3\.io\/detached, so it is attached already; nothing to do \(state /);
  const unpause = await send('unpause');
  t.regex(unpause.line, /^fleet\/h-0: fleet\/h-0 is not paused; nothing to do \(state /);
});

test('host - a repeat keeps its notes: power-on of a paused host that is already on says it waits for unpause', async (t) => {
  const { send } = await world(t, { 'baremetalhost.metal3.io/paused': '' });
  const on = await send('power-on');
  t.true(on.ok, on.line);
  t.regex(on.line, /already to be powered on/);
  t.regex(on.line, /paused/);
});

test('host - a retry of a request already taken says so', async (t) => {
  const { send } = await world(t);
  t.regex((await send('power-off', 'same-1')).line, /set to power off/);
  const again = await send('power-off', 'same-1');
  t.true(again.ok, again.line);
  t.regex(again.line, /request same-1 \(powerOff fleet\/h-0\) was already taken/);
});

// A copy of a request already taken is answered from the request ledger; it printed
// "(state none)" for a provisioned host until the node read the host's state for it too.
test('host repeat - a repeated request id of a provisioned host answers with its state, not "(state none)"', async (t) => {
  const { send } = await world(t, {}, makeHost({ status: { provisioning: { state: 'provisioned', ID: 'n-7' }, poweredOn: true } }).status);
  const first = await send('power-off', 'rid-1');
  t.true(first.ok, first.line);
  t.regex(first.line, / \(state provisioned\)$/);
  t.is(first.result.state, 'provisioned');

  const again = await send('power-off', 'rid-1');
  t.true(again.ok, again.line);
  t.regex(again.line, /^fleet\/h-0: request rid-1 \(powerOff fleet\/h-0\) was already taken/);
  t.notRegex(again.line, /state none/);
  t.regex(again.line, /nothing more was done \(state provisioned\)$/);
  t.is(again.result.state, 'provisioned');
});
