// A BareMetalHost and a MaasMachine both named capi/twin on one node on a real nats-server, each
// sent commands (one naming no kind), and an audit record from before records had a kind.
import type { ExecutionContext } from 'ava';
import { connectNats, subjects } from '../../src/bus/index.ts';
import { sendCommand } from '../../src/cluster/command-client.ts';
import { startCommandServer } from '../../src/cluster/command-server.ts';
import { silentLogger, type Transport } from '../../src/ports/index.ts';
import { openAuditLog, type AuditRecord } from '../../src/security/index.ts';
import { maasMachineObject, openLocalStoreWithMaas } from '../support/maas-node.ts';
import { startNatsServer } from '../support/nats-server.ts';
import { bmh, secret } from '../support/node.ts';

export const SHARDS = 8;
export const KEY = 'capi/twin';
const OLD_AT = '2026-01-01T00:00:00.000Z';

/** One node on a real nats-server with a BareMetalHost and a MaasMachine both named capi/twin, one command each (and a release naming no kind), and a record from before records had a kind. */
export async function twins(t: ExecutionContext): Promise<{ url: string; client: Transport }> {
  const nats = await startNatsServer();
  t.teardown(() => nats.dispose());
  const node = await connectNats({ servers: nats.url, name: 'node-a' });
  t.teardown(() => node.close());
  const hosts = await openLocalStoreWithMaas(node);
  t.teardown(() => hosts.resources.close());
  const applied = await hosts.applyObjects([secret('bmc', 'capi'), bmh('twin', { namespace: 'capi' }), maasMachineObject('twin')]);
  t.true(applied.ok, JSON.stringify(applied));
  t.truthy(await hosts.resources.get('BareMetalHost', KEY));
  t.truthy(await hosts.resources.get('MaasMachine', KEY));
  const audit = await openAuditLog(node, subjects(), silentLogger);
  const server = startCommandServer({ transport: node, store: hosts.resources, shardCount: SHARDS, log: silentLogger, audit, node: 'node-a' });
  t.teardown(() => server.close());
  const client = await connectNats({ servers: nats.url, name: 'cli' });
  t.teardown(() => client.close());

  // As written before records had a kind.
  const old: AuditRecord = {
    at: OLD_AT, node: 'node-a', action: 'command', command: 'reboot', host: KEY, requestId: 'old-1',
    caller: { kind: 'trusted' }, signedAt: null, outcome: 'applied', code: null, reason: null,
  };
  const ack = JSON.parse(new TextDecoder().decode(await client.request(subjects().audit('command'), new TextEncoder().encode(JSON.stringify(old)), { timeoutMs: 5_000 }))) as { error?: unknown };
  t.is(ack.error, undefined);

  const send = async (cmd: Parameters<typeof sendCommand>[1]): Promise<void> => {
    // The outcome does not matter here (a release of a MaasMachine with no MAAS machine is refused): each is audited.
    await sendCommand(client, cmd, { shardCount: SHARDS, timeoutMs: 5_000 }).catch(() => undefined);
  };
  await send({ type: 'powerOff', host: KEY, requestId: 'bmh-off' }); // no kind: the BareMetalHost
  await send({ type: 'pause', host: KEY, kind: 'MaasMachine', requestId: 'maas-pause' });
  await send({ type: 'release', host: KEY, requestId: 'maas-release' }); // no kind: only a MaasMachine takes release
  return { url: nats.url, client };
}

