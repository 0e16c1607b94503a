// Two nodes' command servers (with the request ledger) on one memory bus, a client beside them,
// and one BareMetalHost `fleet/NAME` applied: for tests of what a command's reply says.
import type { ExecutionContext } from 'ava';
import { shardOf } from '../../src/api/index.ts';
import { createMemoryBus } from '../../src/bus/index.ts';
import { openNatsStoreOn, type NatsStore } from '../../src/adapters/store/nats-store.ts';
import { startCommandServer, type CommandServer } from '../../src/cluster/command-server.ts';
import { openRequestLedger } from '../../src/cluster/request-ledger.ts';
import { silentLogger, type Transport } from '../../src/ports/index.ts';

export const COMMAND_SHARDS = 16;

export interface CommandWorld {
  readonly client: Transport;
  /** `fleet/NAME`, the host applied. */
  readonly key: string;
  /** The command subject of its shard. */
  readonly subject: string;
  readonly servers: ReadonlyArray<{ transport: Transport; store: NatsStore; commands: CommandServer }>;
}

export async function commandWorld(t: ExecutionContext, name: string): Promise<CommandWorld> {
  const bus = createMemoryBus();
  const servers: Array<{ transport: Transport; store: NatsStore; commands: CommandServer }> = [];
  for (const node of ['a', 'b']) {
    const transport = bus.connect(node);
    const store = await openNatsStoreOn(transport);
    const requests = await openRequestLedger(transport);
    servers.push({ transport, store, commands: startCommandServer({ transport, store: store.resources, shardCount: COMMAND_SHARDS, log: silentLogger, requests }) });
  }
  const client = bus.connect('cli');
  t.teardown(async () => {
    for (const s of servers) {
      await s.commands.close();
      await s.store.close();
      await s.transport.close();
    }
    await client.close();
  });
  const key = `fleet/${name}`;
  const applied = await servers[0]!.store.apply([{ apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', metadata: { name, namespace: 'fleet' }, spec: { online: true, bmc: { address: 'redfish://192.0.2.1/redfish/v1/Systems/1', credentialsName: 'bmc' } } }], 'test');
  t.true(applied.ok);
  return { client, key, subject: `mf.cmd.${shardOf(key, COMMAND_SHARDS)}`, servers };
}
