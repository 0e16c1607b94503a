// Host commands against a running cluster: `--nodes` `metalfleet node` processes, `--hosts` hosts
// on 256 shards, `--requests` commands sent at `--concurrency` from this process over its own NATS
// connection, each timed from request to decoded reply. The same run times a bare NATS echo
// (a responder in this process that answers at once, same payload sizes) as the floor a command
// reply cannot beat: ratioP99 = p99Ms / rawNatsP99Ms.
//
// It also times the floor of any durable command on this machine: one plain NATS responder per
// node (bench/kv-floor-responder.ts, no metalfleet code) that writes a host-sized KV value and
// then answers. kvFloorRatioP99 = kvFloorP99Ms / rawNatsP99Ms is what the platform alone costs;
// a command path cannot come in under it.
//
// The hosts are applied paused, so no node does provisioning work while commands are measured.
// The commands alternate powerOff / powerOn by round over the hosts (each host gets one per
// round, rounds 10,000 requests apart, so one host never has two in flight): every one changes
// spec.online, so every reply is real store work on the owning node — a cache read, a KV read and
// a compare-and-set write of the host — and every write reaches the nodes' host watches. A paused
// host's actor takes the change and does nothing with it.
import { shardOf } from '../src/api/index.ts';
import { LEASE_BUCKET } from '../src/node/index.ts';
import { connectNats, decode, encode, replyEnvelope, subjects } from '../src/bus/index.ts';
import { HostCommandReply } from '../src/bus/messages/index.ts';
import type { HostCommandInput } from '../src/bus/messages/index.ts';
import { sendCommand } from '../src/cluster/command-client.ts';
import type { Transport } from '../src/ports/index.ts';
import { startCluster } from '../test/support/cluster.ts';
import { closedLoop, currentOwners, fleetHosts, pollUntil, progress, round, type LoadResult } from './cluster-support.ts';
import { BenchFlagError, intFlag, percentile } from './support.ts';
import { startKvFloor } from './kv-floor.ts';

const SHARDS = 256;
const REQUEST_TIMEOUT_MS = 10_000;
const ECHO_SUBJECT = 'bench.echo';

export async function run(flags: Record<string, string>): Promise<object> {
  const nodeCount = intFlag(flags, 'nodes', 2);
  const hostCount = intFlag(flags, 'hosts', 10_000);
  const requests = intFlag(flags, 'requests', 50_000);
  const concurrency = intFlag(flags, 'concurrency', 64);
  const rawRequests = intFlag(flags, 'raw-requests', requests);
  const warmup = intFlag(flags, 'warmup', 5_000);
  if (hostCount < concurrency) throw new BenchFlagError(`--hosts ${hostCount}: needs at least --concurrency (${concurrency}) hosts, so one host never has two commands in flight`);

  const c = await startCluster({ shards: SHARDS, limit: 0, fixture: { latencyMs: 0, demoBehaviours: false } });
  const connections: Transport[] = [];
  try {
    const hosts = fleetHosts(hostCount, { paused: true });
    const keys = hosts.map((h) => `${h.metadata.namespace}/${h.metadata.name}`);
    progress(`applying ${hostCount} paused hosts`);
    const applied = await c.store.apply(hosts, 'bench-commands');
    if (!applied.ok) throw new Error(`apply failed: ${JSON.stringify(applied).slice(0, 500)}`);

    progress(`starting ${nodeCount} nodes`);
    const names = Array.from({ length: nodeCount }, (_, i) => `n${i + 1}`);
    for (const name of names) await c.startNode(name);
    // Every shard owned, by every node, and no ownership change for 2 s: the shards have settled.
    let lastCount = -1;
    let stableSince = Date.now();
    await pollUntil(async () => {
      const records = await c.ownership();
      const owners = currentOwners(records);
      if (records.length !== lastCount) {
        lastCount = records.length;
        stableSince = Date.now();
      }
      return owners.size === SHARDS && new Set(owners.values()).size === nodeCount && Date.now() - stableSince > 2_000;
    }, 120_000, `all ${SHARDS} shards owned by the ${nodeCount} nodes`, 250);
    // The bench is a client, not a node: it does not watch the whole store while it measures.
    await c.store.close();

    const client = await connectNats({ servers: c.nats.url, name: 'bench-commands' });
    const responder = await connectNats({ servers: c.nats.url, name: 'bench-echo' });
    connections.push(client, responder);
    const s = subjects();
    const envelope = replyEnvelope(HostCommandReply);

    progress('every shard answers');
    for (let shard = 0; shard < SHARDS; shard++) {
      const key = keys.find((k) => shardOf(k, SHARDS) === shard);
      if (key) await sendCommand(client, { type: 'powerOn', host: key, requestId: `probe-${shard}` }, { shardCount: SHARDS, deadlineMs: 60_000 });
    }

    const commandFor = (i: number): HostCommandInput => {
      const host = keys[i % hostCount]!;
      const type = Math.floor(i / hostCount) % 2 === 0 ? 'powerOff' : 'powerOn';
      return { type, host, requestId: `bench-${i}` };
    };
    let notApplied = 0;
    let firstRefusal: string | null = null;
    const sendOne = async (cmd: HostCommandInput, expectApplied: boolean): Promise<boolean> => {
      const subject = s.command(shardOf(cmd.host, SHARDS));
      const raw = await client.request(subject, encode(cmd), { timeoutMs: REQUEST_TIMEOUT_MS });
      const decoded = decode(subject, raw, envelope);
      if (!decoded.ok) throw decoded.error;
      if (!decoded.value.ok) {
        firstRefusal ??= `${decoded.value.error.kind}: ${decoded.value.error.message}`;
        return false;
      }
      if (expectApplied && !decoded.value.value.applied) notApplied += 1;
      return true;
    };

    // The echo answers with as many bytes as a command reply has.
    const sample = await client.request(s.command(shardOf(keys[0]!, SHARDS)), encode({ type: 'powerOn', host: keys[0]!, requestId: 'bench-0' }), { timeoutMs: REQUEST_TIMEOUT_MS });
    const echoReply = new Uint8Array(sample.length).fill(0x61);
    responder.subscribe(ECHO_SUBJECT, (msg) => void msg.respond(echoReply));

    progress(`warm-up: ${warmup} echo and ${warmup} read-only commands (powerOn on hosts already on)`);
    await closedLoop(warmup, concurrency, async (i) => {
      await client.request(ECHO_SUBJECT, encode(commandFor(i)), { timeoutMs: REQUEST_TIMEOUT_MS });
      return true;
    });
    const warm = await closedLoop(warmup, concurrency, (i) => sendOne({ type: 'powerOn', host: keys[i % hostCount]!, requestId: `warm-${i}` }, false));
    if (warm.errors > 0) progress(`warm-up: ${warm.errors} errors, first: ${firstRefusal ?? warm.firstError}`);

    progress(`raw NATS echo: ${rawRequests} requests at concurrency ${concurrency}`);
    const raw = await closedLoop(rawRequests, concurrency, async (i) => {
      await client.request(ECHO_SUBJECT, encode(commandFor(i)), { timeoutMs: REQUEST_TIMEOUT_MS });
      return true;
    });

    progress(`commands: ${requests} powerOff/powerOn at concurrency ${concurrency}`);
    const cmds = await closedLoop(requests, concurrency, (i) => sendOne(commandFor(i), true));

    progress(`KV floor: ${nodeCount} plain responders, ${warmup} warm-up and ${rawRequests} requests at concurrency ${concurrency}`);
    const floor = await startKvFloor({ url: c.nats.url, responders: nodeCount, valueBytes: encode(hosts[0]!).length, replyBytes: echoReply.length });
    let floorLoad: LoadResult;
    try {
      const floorOne = async (i: number): Promise<boolean> => (await client.request(`${floor.prefix}.${i % hostCount}`, encode(commandFor(i)), { timeoutMs: REQUEST_TIMEOUT_MS })).length === echoReply.length;
      await closedLoop(warmup, concurrency, floorOne);
      floorLoad = await closedLoop(rawRequests, concurrency, floorOne);
    } finally {
      await floor.stop();
    }
    progress(`commands: ${cmds.seconds.toFixed(1)} s, ${cmds.errors} errors${cmds.errors ? ` (first: ${firstRefusal ?? cmds.firstError})` : ''}, ${notApplied} replies with applied false; echo: ${raw.seconds.toFixed(1)} s, ${raw.errors} errors; KV floor: ${floorLoad.seconds.toFixed(1)} s, ${floorLoad.errors} errors`);
    // The broker lease holder, for whoever reads the profile of each node.
    const leases = await client.kv(LEASE_BUCKET, { ttlMs: c.options.leaseTtlMs });
    const broker = await leases.get('broker');
    if (broker) progress(`broker lease: ${new TextDecoder().decode(broker.value)}`);

    const p99Ms = percentile(cmds.latenciesMs, 99);
    const rawNatsP99Ms = percentile(raw.latenciesMs, 99);
    const kvFloorP99Ms = percentile(floorLoad.latenciesMs, 99);
    return {
      nodes: nodeCount,
      hosts: hostCount,
      requests,
      concurrency,
      commandsPerSecond: Math.round(cmds.latenciesMs.length / cmds.seconds),
      p50Ms: round(percentile(cmds.latenciesMs, 50), 2),
      p99Ms: round(p99Ms, 2),
      rawNatsP50Ms: round(percentile(raw.latenciesMs, 50), 2),
      rawNatsP99Ms: round(rawNatsP99Ms, 2),
      ratioP99: round(p99Ms / rawNatsP99Ms, 2),
      kvFloorP50Ms: round(percentile(floorLoad.latenciesMs, 50), 2),
      kvFloorP99Ms: round(kvFloorP99Ms, 2),
      kvFloorRatioP99: round(kvFloorP99Ms / rawNatsP99Ms, 2),
      errors: cmds.errors + raw.errors + notApplied + floorLoad.errors,
    };
  } finally {
    await Promise.all(connections.map((t) => t.close().catch(() => undefined)));
    // SIGTERM rather than dispose's kill -9, so a node run with --cpu-prof (CLUSTER_NODE_FLAGS) writes its profile.
    await Promise.all([...c.nodes.keys()].map((name) => Promise.race([
      c.stopNode(name),
      new Promise((resolve) => setTimeout(resolve, 20_000)),
    ])));
    await c.dispose();
  }
}
