import test from 'ava';
import { connectNats, decode } from '../../src/bus/index.ts';
import type { Transport } from '../../src/ports/index.ts';
import { SlotLease, type SlotNotice } from '../../src/actors/capacity/index.ts';
import {
  CAPACITY_BUCKET, createManualLeadership, inUse, PoolRecord, spawnCapacityProxy, startClusterBroker,
} from '../../src/actors/capacity/cluster/index.ts';
import { startSystem, systemClock } from '../../src/actors/runtime/index.ts';
import { natsServerInstalled, startNatsServer } from '../support/nats-server.ts';
import { waitFor } from '../support/wait.ts';

const POOL = 'ironic:http://127.0.0.1:6385';
const LIMIT = 3;
const TTL = 3_000;

(natsServerInstalled() ? test : test.skip)('capacity cluster - on nats-server: two nodes share a limit of 3 through a broker failover and every holder is served', async (t) => {
  const server = await startNatsServer();
  const transports: Transport[] = [];
  const connect = async (name: string): Promise<Transport> => {
    const tr = await connectNats({ servers: server.url, name });
    transports.push(tr);
    return tr;
  };
  const system = startSystem({ name: 'capacity-nats', onError: (f) => violations.push(`actor failure ${f.path}: ${f.message}`) });
  const violations: string[] = [];
  t.teardown(async () => {
    system.stop();
    for (const tr of transports) await tr.close().catch(() => undefined);
    await server.dispose();
  });

  // Every version of the record is checked as it is written.
  const observer = await connect('observer');
  const watchKv = await observer.kv(CAPACITY_BUCKET);
  let versions = 0;
  await watchKv.watch({
    key: 'pool.>',
    onEvent: (e) => {
      if (e.op !== 'put') return;
      const d = decode('kv', e.value, PoolRecord);
      if (!d.ok) return void violations.push(d.error.message);
      versions++;
      const used = inUse(d.value, Date.now());
      if (used > LIMIT) violations.push(`revision ${e.revision}: ${used} in use`);
    },
  });

  const brokerNode = async (name: string) => {
    const transport = await connect(name);
    const leadership = createManualLeadership();
    const broker = startClusterBroker(system, { transport, kv: await transport.kv(CAPACITY_BUCKET), leadership, defaultLimit: LIMIT, ttlMs: TTL, name });
    return { transport, leadership, broker };
  };
  const a = await brokerNode('broker-a');
  const b = await brokerNode('broker-b');
  a.leadership.elect(1);
  await waitFor(() => a.broker.epoch === 1, 5_000, 'broker A serving');

  const proxies = await Promise.all(['node-1', 'node-2'].map(async (node) =>
    spawnCapacityProxy(system, { transport: await connect(node), node, ttlMs: TTL, name: `proxy-${node}`, requestTimeoutMs: 500, patienceMs: TTL })));

  const believers = new Set<string>();
  const served: string[] = [];
  const holders = Array.from({ length: 10 }, (_, i) => {
    const key = `default/host-${i}`;
    const lease: SlotLease = new SlotLease(proxies[i % 2]!, key, systemClock, TTL, () => lease.renew());
    const notify = (n: SlotNotice): void => {
      if (n.type === 'slotGranted' && !served.includes(key)) {
        believers.add(key);
        if (believers.size > LIMIT) violations.push(`${believers.size} holders hold a slot at once`);
        // Hold the slot a while, as a deploy would, then give it back.
        setTimeout(() => {
          believers.delete(key);
          served.push(key);
          lease.release();
        }, 150);
      } else if (n.type === 'slotLost') believers.delete(key);
    };
    return { key, lease, notify };
  });
  for (const x of holders) x.lease.request(POOL, 'provisioning', false, x.notify);

  await waitFor(() => served.length >= 3, 15_000, 'the first holders served');
  // Failover mid-run: A loses its lease and its node goes away; B is elected.
  const waitingAtFailover = holders.length - served.length - believers.size;
  a.leadership.depose('lease lost');
  a.broker.stop();
  await a.transport.close();
  b.leadership.elect(2);

  await waitFor(() => served.length === holders.length, 30_000, 'every holder served');
  t.true(waitingAtFailover > 0, 'some holders were still queued at A when it went away');
  t.deepEqual([...served].sort(), holders.map((x) => x.key).sort());
  t.true(versions > 0);
  t.deepEqual(violations, []);
  t.is(b.broker.epoch, 2);
});
