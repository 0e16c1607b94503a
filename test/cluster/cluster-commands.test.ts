// Host commands against a running cluster: sent by any NATS client or by `metalfleet host`,
// answered by whichever node takes them (one queue group over every shard's subject), also while
// a shard moves; refused with a useful error when wrong, never fatal to a node, whatever arrives
// on the subject.
import test from 'ava';
import { connect } from '@nats-io/transport-node';
import { RequestError, type NatsConnection } from '@nats-io/nats-core';
import { pack, Packr, unpack } from 'msgpackr';
import { shardOf } from '../../src/api/index.ts';
import type { BareMetalHost } from '../../src/api/index.ts';
import { RemoteError } from '../../src/bus/index.ts';
import { sendCommand } from '../../src/cluster/command-client.ts';
import type { OwnershipRecord } from '../../src/cluster/index.ts';
import { findOverlaps, toIntervals } from '../../src/cluster/index.ts';
import type { Cluster, ClusterOptions } from '../support/cluster.ts';
import { withCluster } from '../support/cluster.ts';
import { natsServerInstalled } from '../support/nats-server.ts';
import { relay } from '../support/tcp-relay.ts';
import { waitUntil } from '../support/wait.ts';
import { lines, metalfleet } from '../cli/run.ts';

const cluster = natsServerInstalled() ? test.serial : test.skip;

const SHARDS = 32;
const OPTIONS: ClusterOptions = { shards: SHARDS, fixture: { latencyMs: 0, demoBehaviours: false } };
const subject = (shard: number): string => `mf.cmd.${shard}`;


/** Two nodes, `count` hosts, every one provisioned and every shard owned. */
async function provisionedCluster(c: Cluster, count: number): Promise<string[]> {
  const keys = await c.applyHosts(count);
  await Promise.all(['a', 'b'].map((n) => c.startNode(n)));
  await waitUntil(async () => [...(await c.statesOf(keys)).values()].every((s) => s === 'provisioned'), 60_000, `${count} hosts provisioned`, 100);
  await waitUntil(async () => owners(await c.ownership()).size === SHARDS, 30_000, 'every shard owned', 100);
  return keys;
}

/** The current owner of each owned shard, from the nodes' ownership logs. */
function owners(records: readonly OwnershipRecord[]): Map<number, string> {
  const out = new Map<number, string>();
  for (const r of [...records].sort((x, y) => x.at - y.at)) {
    if (r.kind === 'acquired') out.set(r.shard, r.node);
    else if (out.get(r.shard) === r.node) out.delete(r.shard);
  }
  return out;
}

async function status(c: Cluster, key: string): Promise<BareMetalHost['status']> {
  return (await c.store.get(key))?.status;
}

type Envelope = { ok: true; value: Record<string, unknown> } | { ok: false; error: { kind: string; message: string; retryable: boolean } };

/** A request as any NATS client sends it: plain MessagePack in, the envelope out. */
async function rawRequest(nc: NatsConnection, subj: string, payload: Uint8Array, timeout = 10_000): Promise<Envelope> {
  const reply = await nc.request(subj, payload, { timeout });
  return unpack(reply.data) as Envelope;
}

async function httpStatus(url: string): Promise<{ status: number; body: string }> {
  const res = await fetch(url);
  return { status: res.status, body: await res.text() };
}

cluster('commands - a plain NATS client powers a provisioned host off; a repeat changes nothing', async (t) => {
  await withCluster(t, OPTIONS, async (c) => {
    const keys = await provisionedCluster(c, 20);
    const key = keys[3]!;
    t.true((await status(c, key))?.poweredOn, 'provisioned hosts are on');
    const nc = await connect({ servers: c.nats.url });
    try {
      const cmd = pack({ type: 'powerOff', host: key, requestId: 'raw-1', reason: 'test' });
      const first = await rawRequest(nc, subject(shardOf(key, SHARDS)), cmd);
      t.true(first.ok, JSON.stringify(first));
      if (!first.ok) return;
      t.like(first.value, { host: key, command: 'powerOff', applied: true, state: 'provisioned' });
      await waitUntil(async () => (await status(c, key))?.poweredOn === false, 20_000, `${key} powered off in status`);
      t.is(c.fixture.fixture.node(key)?.power, false, 'the backend node is off');

      const again = await rawRequest(nc, subject(shardOf(key, SHARDS)), cmd);
      t.true(again.ok && again.value.applied === false, JSON.stringify(again));
      // The others were not touched.
      t.is(c.fixture.fixture.node(keys[4]!)?.power, true);
    } finally {
      await nc.close();
    }
  });
});

cluster('commands - metalfleet host power-off, power-on, reboot and reprovision, observed in status and backend', async (t) => {
  await withCluster(t, OPTIONS, async (c) => {
    const keys = await provisionedCluster(c, 20);
    const [k1, k2, k3] = [keys[0]!, keys[1]!, keys[2]!];
    const fixture = c.fixture.fixture;
    const nats = ['--nats', c.nats.url, '--shards', String(SHARDS), '--timeout', '20'];

    const off = await metalfleet('host', 'power-off', k1, k2, ...nats);
    t.is(off.code, 0, off.stderr);
    t.deepEqual(lines(off.stdout).map((l) => l.split(':')[0]), [k1, k2], off.stdout);
    t.regex(off.stdout, /\(state provisioned\)/);
    await waitUntil(async () => (await status(c, k1))?.poweredOn === false && (await status(c, k2))?.poweredOn === false, 20_000, 'powered off');

    const on = await metalfleet('host', 'power-on', k1, ...nats);
    t.is(on.code, 0, on.stderr);
    t.regex(on.stdout, new RegExp(`^${k1}: .*\\(state provisioned\\)\\n$`));
    await waitUntil(async () => (await status(c, k1))?.poweredOn === true, 20_000, `${k1} powered on`);
    t.is(fixture.node(k1)?.power, true);
    const repeat = await metalfleet('host', 'power-on', k1, ...nats);
    t.is(repeat.code, 0, repeat.stderr);
    t.is(repeat.stdout, `${k1}: ${k1} is already to be powered on (spec.online is true) (state provisioned)\n`);

    // A reboot is an off and an on at the backend, then the annotation is gone.
    const before = fixture.starts(k3);
    const reboot = await metalfleet('host', 'reboot', k3, '--mode', 'hard', '--reason', 'cluster test', ...nats);
    t.is(reboot.code, 0, reboot.stderr);
    t.regex(reboot.stdout, /will reboot \(hard\)/);
    await waitUntil(async () => {
      const h = await c.store.get(k3);
      const after = fixture.starts(k3);
      return h?.metadata.annotations?.['reboot.metal3.io'] === undefined && h?.status?.poweredOn === true
        && after.powerOff > before.powerOff && after.powerOn > before.powerOn;
    }, 20_000, `${k3} rebooted`);
    t.is(fixture.node(k3)?.power, true);

    t.is(fixture.node(k3)?.provisionCount, 1);
    const re = await metalfleet('host', 'reprovision', k3, '--request-id', 'rp-1', ...nats);
    t.is(re.code, 0, re.stderr);
    t.regex(re.stdout, /will be reprovisioned/);
    await waitUntil(async () => fixture.node(k3)?.provisionCount === 2 && (await status(c, k3))?.provisioning.state === 'provisioned', 30_000, `${k3} deployed again`, 50);
    t.is((await c.store.get(k3))?.metadata.annotations?.['metalfleet.io/reprovision'], undefined, 'the reprovision request is done');
  });
});

cluster('commands - keep being answered while the owner of their shard hands it off (SIGTERM)', async (t) => {
  await withCluster(t, OPTIONS, async (c) => {
    const keys = await provisionedCluster(c, 30);
    const own = owners(await c.ownership());
    const victim = own.get(shardOf(keys[0]!, SHARDS))!;
    const theirs = keys.filter((k) => own.get(shardOf(k, SHARDS)) === victim);
    t.true(theirs.length >= 2, `${victim} owns hosts`);

    const exit = c.stopNode(victim);
    let exited = false;
    void exit.then(() => (exited = true));
    // The CLI at the same moment, for another of its hosts.
    const cli = metalfleet('host', 'pause', theirs[1]!, '--nats', c.nats.url, '--shards', String(SHARDS), '--timeout', '20');
    // Commands one after another across the hand-off: before, during and after the owner goes.
    // Each gets its answer at the first attempt: any node records a command, so a shard moving
    // leaves no moment with nobody subscribed (no "no responders", nothing to retry).
    let sent = 0;
    let afterExit = 0;
    const nc = await connect({ servers: c.nats.url });
    try {
      for (let i = 0; afterExit < 3; i++) {
        const key = theirs[i % theirs.length]!;
        const wasExited = exited;
        const reply = await rawRequest(nc, subject(shardOf(key, SHARDS)), pack({ type: 'powerOff', host: key, requestId: `move-${i}` }), 5_000);
        t.true(reply.ok, JSON.stringify(reply));
        if (reply.ok) t.is(reply.value.host, key);
        sent += 1;
        if (wasExited) afterExit += 1;
        t.true(sent < 10_000, 'the node stopped');
      }
    } finally {
      await nc.close();
    }
    t.deepEqual(await exit, { code: 0, signal: null });
    const paused = await cli;
    t.is(paused.code, 0, paused.stderr);
    t.regex(paused.stdout, new RegExp(`^${theirs[1]}: `));
    t.log(`${sent} commands across the hand-off`);

    // The survivor owns the shards now and drives what was asked.
    const survivor = victim === 'a' ? 'b' : 'a';
    const now = owners(await c.ownership());
    t.true(theirs.every((k) => now.get(shardOf(k, SHARDS)) === survivor));
    await waitUntil(async () => (await status(c, theirs[0]!))?.poweredOn === false, 20_000, `${theirs[0]} powered off by ${survivor}`);
    t.truthy((await c.store.get(theirs[1]!))?.metadata.annotations?.['baremetalhost.metal3.io/paused'] !== undefined);
  });
});

cluster('commands - errors: unknown host, reprovision before provisioned, wrong shard subject', async (t) => {
  await withCluster(t, OPTIONS, async (c) => {
    const keys = await provisionedCluster(c, 20);
    // A host with no image stays available: it cannot be reprovisioned.
    const imageless = (await c.store.get(keys[0]!))!;
    const spare: BareMetalHost = {
      apiVersion: imageless.apiVersion, kind: imageless.kind,
      metadata: { name: 'spare-0', namespace: 'fleet' },
      spec: { ...imageless.spec, bootMACAddress: '52:54:00:aa:00:01', bmc: { address: 'ipmi://10.9.9.9', credentialsName: 'bmc' } },
    };
    delete (spare.spec as { image?: unknown }).image;
    const applied = await c.store.apply([spare], 'cluster-test');
    t.true(applied.ok, JSON.stringify(applied));
    await waitUntil(async () => (await status(c, 'fleet/spare-0'))?.provisioning.state === 'available', 30_000, 'fleet/spare-0 available');

    const missing = await sendCommand(c.transport, { type: 'powerOn', host: 'fleet/nope' }, { shardCount: SHARDS, deadlineMs: 10_000 }).catch((e: unknown) => e);
    t.true(missing instanceof RemoteError);
    t.is((missing as RemoteError).kind, 'notFound');
    t.regex((missing as RemoteError).message, /fleet\/nope not found/);

    const cli = await metalfleet('host', 'reprovision', 'fleet/spare-0', keys[1]!, 'fleet/nope', '--nats', c.nats.url, '--shards', String(SHARDS), '--timeout', '20');
    t.is(cli.code, 1, cli.stderr);
    const err = lines(cli.stderr);
    t.is(err.length, 2, cli.stderr);
    t.regex(err[0]!, /^fleet\/spare-0: error conflict: fleet\/spare-0 is .*only a provisioned host can be reprovisioned/);
    t.regex(err[1]!, /^fleet\/nope: error notFound: /);
    // The one that could be done was done.
    t.regex(cli.stdout, new RegExp(`^${keys[1]}: .*will be reprovisioned`));

    const nc = await connect({ servers: c.nats.url });
    try {
      const key = keys[2]!;
      const home = shardOf(key, SHARDS);
      const other = (home + 1) % SHARDS;
      const reply = await rawRequest(nc, subject(other), pack({ type: 'powerOff', host: key }));
      t.false(reply.ok);
      if (!reply.ok) {
        t.is(reply.error.kind, 'invalid');
        t.true(reply.error.message.includes(`publish on ${subject(home)}`), reply.error.message);
      }
      t.true((await status(c, key))?.poweredOn, 'nothing was done');
    } finally {
      await nc.close();
    }
  });
});

// A small deterministic PRNG: a failure repeats with the same payloads.
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let x = Math.imul(s ^ (s >>> 15), 1 | s);
    x ^= x + Math.imul(x ^ (x >>> 7), 61 | x);
    return ((x ^ (x >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** 10,000 payloads no command server may accept: junk, the wrong shape, the edges of msgpack, the size limit. */
function malformed(count: number, host: string, maxPayload: number): Array<{ kind: string; data: Uint8Array }> {
  const rand = prng(42);
  const int = (n: number): number => Math.floor(rand() * n);
  const bytes = (n: number): Uint8Array => Uint8Array.from({ length: n }, () => int(256));
  const records = new Packr({ useRecords: true });
  const wrongShape: unknown[] = [
    null, 42, 'powerOn', [1, 2, 3], {}, true, { type: 'powerOn' }, { host },
    { type: 'powerOn', host: 42 }, { type: 'fly', host }, { type: 'POWERON', host },
    { type: 'powerOn', host, extra: 1 }, { type: 'powerOn', host, mode: 'hard' },
    { type: 'reboot', host, mode: 'warm' }, { type: 'powerOff', host: host.toUpperCase() },
    { type: 'powerOff', host: `${host}/x` }, { type: 'powerOff', host: '/x' }, { type: 'powerOff', host: 'fleet/' },
    { type: 'powerOn', host, requestId: '' }, { type: 'powerOn', host, requestId: 'has space' },
    { type: 'powerOn', host, requestId: 'x'.repeat(65) }, { type: 'powerOn', host, reason: 'r'.repeat(257) },
    { type: 'powerOn', host, reason: 7 }, { type: ['powerOn'], host }, { type: { $ne: null }, host },
    // An own "__proto__" key (a literal would set the prototype instead and send nothing).
    JSON.parse(`{"type":"powerOn","host":${JSON.stringify(host)},"__proto__":{"admin":true}}`), { type: 'powerOn', host, constructor: 'x' },
    new Map<unknown, unknown>([[1, 'powerOn'], ['host', host]]), { type: 'powerOn', host: new Date(0) },
    { type: 'powerOn', host: new Uint8Array([102, 108]) }, { type: 'delete', host, requestId: '\u0000' },
  ];
  const out: Array<{ kind: string; data: Uint8Array }> = [];
  const big = maxPayload - 1_024;
  for (let i = 0; i < count; i++) {
    const pick = i % 10;
    if (i < 40) {
      // Just under the server's max_payload, which is also the services' own limit.
      const variants = [
        () => pack({ type: 'powerOn', host: `fleet/${'a'.repeat(big)}` }),
        () => pack({ type: 'powerOn', host, reason: 'x'.repeat(big) }),
        () => pack({ type: 'powerOn', host, [`k${'y'.repeat(big)}`]: 1 }),
        () => bytes(big),
      ];
      out.push({ kind: 'oversized', data: variants[i % variants.length]!() });
    } else if (pick < 3) {
      out.push({ kind: 'random', data: bytes(int(200)) });
    } else if (pick < 7) {
      out.push({ kind: 'wrongShape', data: pack(wrongShape[int(wrongShape.length)]) });
    } else if (pick === 7) {
      // A valid command cut short.
      const whole = pack({ type: 'powerOff', host, requestId: `cut-${i}` });
      out.push({ kind: 'truncated', data: whole.subarray(0, int(whole.length)) });
    } else if (pick === 8) {
      const edge = [
        () => new Uint8Array(0),
        () => new Uint8Array(20_000).fill(0x91), // arrays nested 20,000 deep
        () => Uint8Array.from([0xd4, 0x05, 0x00]), // an extension type nobody registered
        () => Uint8Array.from([0xd6, 0xff, 0, 0, 0, 1]), // a timestamp
        () => Uint8Array.from([0xdf, 0xff, 0xff, 0xff, 0xff]), // a map claiming 4 billion entries
        () => Uint8Array.from([0xdb, 0x7f, 0xff, 0xff, 0xff]), // a 2 GB string header
        () => Uint8Array.from([0xc1]), // the byte msgpack never uses
        () => records.pack({ type: 'powerOn', host, extra: true }), // msgpackr records, wrong shape anyway
      ];
      out.push({ kind: 'edge', data: edge[int(edge.length)]!() });
    } else {
      // Many keys: the refusal must not grow with them past what a reply may hold.
      const obj: Record<string, number> = { type: 1 };
      for (let k = 0; k < 2_000; k++) obj[`key-${k}-${'z'.repeat(40)}`] = k;
      out.push({ kind: 'manyKeys', data: pack(obj) });
    }
  }
  return out;
}

cluster('commands - 10,000 malformed requests each get an error reply and the nodes carry on', async (t) => {
  // A longer lease: ten thousand requests on a loaded machine must not turn into shard moves.
  await withCluster(t, { ...OPTIONS, leaseTtlMs: 10_000 }, async (c) => {
    const keys = await provisionedCluster(c, 20);
    const target = keys[5]!;
    // Every node answers every shard's subject.
    const shards = Array.from({ length: SHARDS }, (_, s) => s);
    const payloads = malformed(10_000, target, c.transport.maxPayload);

    const nc = await connect({ servers: c.nats.url });
    const errors = new Map<string, number>();
    const accepted: string[] = [];
    const unanswered: string[] = [];
    let replies = 0;
    let noResponders = 0;
    try {
      let next = 0;
      const worker = async (): Promise<void> => {
        while (next < payloads.length) {
          const i = next++;
          const { kind, data } = payloads[i]!;
          let reply: Envelope | null = null;
          for (let attempt = 0; reply === null; attempt++) {
            try {
              reply = await rawRequest(nc, subject(shards[i % shards.length]!), data, 30_000);
            } catch (e) {
              // Counted, and must not happen: every node subscribes to every shard's subject.
              if (e instanceof RequestError && e.isNoResponders() && attempt < 100) {
                noResponders += 1;
                await new Promise((resolve) => setTimeout(resolve, 50));
                continue;
              }
              unanswered.push(`${kind} #${i}: ${String(e)}`);
              break;
            }
          }
          if (reply === null) continue;
          replies += 1;
          if (reply.ok) accepted.push(`${kind} #${i}: ${JSON.stringify(reply.value).slice(0, 200)}`);
          else errors.set(reply.error.kind, (errors.get(reply.error.kind) ?? 0) + 1);
        }
      };
      await Promise.all(Array.from({ length: 64 }, worker));
    } finally {
      await nc.close();
    }
    t.log(`error replies by kind: ${JSON.stringify(Object.fromEntries(errors))}`);
    t.is(noResponders, 0, 'some requests found nobody subscribed');
    t.deepEqual(unanswered.slice(0, 5), [], `${unanswered.length} malformed requests got no reply`);
    t.is(replies, 10_000);
    t.deepEqual(accepted.slice(0, 5), [], `${accepted.length} malformed requests were accepted`);
    t.is([...errors.values()].reduce((a, b) => a + b, 0), 10_000);

    for (const n of c.nodes.values()) {
      t.is(n.child.exitCode, null, `${n.name} still runs`);
      t.is((await httpStatus(`${n.health}/healthz`)).status, 200);
    }
    const reply = await sendCommand(c.transport, { type: 'powerOff', host: target }, { shardCount: SHARDS, deadlineMs: 10_000 });
    t.true(reply.applied);
    await waitUntil(async () => (await status(c, target))?.poweredOn === false, 20_000, `${target} powered off`);
  });
});

cluster('commands - health endpoints; a node cut off from NATS turns unready and fences itself before its shards move', async (t) => {
  await withCluster(t, OPTIONS, async (c) => {
    const keys = await provisionedCluster(c, 20);
    for (const n of c.nodes.values()) {
      t.truthy(n.health);
      t.is((await httpStatus(`${n.health}/healthz`)).status, 200);
      t.is((await httpStatus(`${n.health}/readyz`)).status, 200);
      const metrics = await httpStatus(`${n.health}/metrics`);
      t.is(metrics.status, 200);
      t.regex(metrics.body, /^metalfleet_shards_owned\{node="[ab]"\} [1-9]\d*$/m);
      t.regex(metrics.body, /^metalfleet_hosts\{state="provisioned",node="[ab]"\} [1-9]\d*$/m);
    }

    const link = await relay(c.nats.port);
    try {
      // The harness passes --nats <server> first; commander keeps the later value.
      const cut = await c.startNode('c', ['--nats', link.url]);
      await waitUntil(async () => [...owners(await c.ownership()).values()].includes('c'), 30_000, 'c owns shards', 100);
      await waitUntil(async () => (await httpStatus(`${cut.health}/readyz`)).status === 200, 10_000, 'c ready');
      const held = [...owners(await c.ownership())].filter(([, n]) => n === 'c').map(([s]) => s);
      t.log(`c owns shards ${held.join(',')}`);

      const cutAt = performance.timeOrigin + performance.now();
      link.blackhole();
      await waitUntil(async () => (await httpStatus(`${cut.health}/readyz`)).status === 503, 20_000, 'c unready', 100);
      const unready = (await httpStatus(`${cut.health}/readyz`)).body;
      t.regex(unready, /not ready: /);
      t.log(`c: ${unready.trim()}`);
      t.is((await httpStatus(`${cut.health}/healthz`)).status, 200, 'alive, only not ready');
      // Only c is cut off: the others stay ready.
      for (const name of ['a', 'b']) t.is((await httpStatus(`${c.nodes.get(name)!.health}/readyz`)).status, 200);

      // The survivors take every shard c had, and c had let go of each before.
      await waitUntil(async () => {
        const now = owners(await c.ownership());
        return held.every((s) => now.get(s) === 'a' || now.get(s) === 'b');
      }, 30_000, 'survivors own the shards c held', 100);
      const records = await c.ownership();
      for (const shard of held) {
        const end = records.find((r) => r.node === 'c' && r.shard === shard && r.kind !== 'acquired' && r.at >= cutAt);
        const next = records.find((r) => r.node !== 'c' && r.shard === shard && r.kind === 'acquired' && r.at >= cutAt);
        t.is(end?.kind, 'lost', `c lost shard ${shard} (not released: it could not reach NATS)`);
        t.true(end !== undefined && next !== undefined && end.at < next.at, `c fenced shard ${shard} before ${next?.node} acquired it`);
      }
      t.deepEqual(findOverlaps(toIntervals(records)).slice(0, 3), [], 'two nodes owned one shard at one instant');

      // The cluster still answers commands for c's former hosts.
      const moved = keys.find((k) => held.includes(shardOf(k, SHARDS)));
      if (moved) {
        const reply = await sendCommand(c.transport, { type: 'powerOff', host: moved }, { shardCount: SHARDS, deadlineMs: 10_000 });
        t.true(reply.applied);
      }
    } finally {
      link.close();
    }
  });
});
