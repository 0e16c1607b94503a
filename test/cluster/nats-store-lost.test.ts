// A single nats-server restarted without its store, its buckets then made again: their revisions
// start over, so a node's watches (which resume after the last revision they saw) and its caches
// (which keep the newest revision per key) would never see the writes made since, silently. The
// node finds the streams made anew when it reconnects, and says it must be restarted: /healthz
// (the liveness probe) and /readyz fail with the reason, and its log says so. A restart that kept
// the store is no such thing.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import type { BareMetalHost } from '../../src/api/index.ts';
import { connectNats } from '../../src/bus/index.ts';
import { openNatsStoreOn } from '../../src/adapters/store/nats-store.ts';
import { BMC_PASSWORD, withCluster } from '../support/cluster.ts';
import { natsServerInstalled } from '../support/nats-server.ts';
import { waitUntil } from '../support/wait.ts';

const cluster = natsServerInstalled() ? test.serial : test.skip;

async function probe(url: string): Promise<{ status: number; body: string }> {
  try {
    const res = await fetch(url);
    return { status: res.status, body: await res.text() };
  } catch (error) {
    return { status: 0, body: String(error) };
  }
}

function bmh(name: string, i: number): BareMetalHost {
  return {
    apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', metadata: { name, namespace: 'fleet' },
    spec: {
      online: true, bootMode: 'UEFI', automatedCleaningMode: 'metadata', inspectionMode: 'disabled',
      bmc: { address: `ipmi://10.9.0.${i}`, credentialsName: 'bmc' }, bootMACAddress: `52:54:00:09:00:${i.toString(16).padStart(2, '0')}`,
      image: { url: 'http://images/os.qcow2', checksum: 'abc', checksumType: 'sha256' },
    },
  } as BareMetalHost;
}

cluster('nats-server restarted with its store kept: the node carries on; restarted without it: the node says it must be restarted', async (t) => {
  await withCluster(t, { shards: 8, leaseTtlMs: 3_000 }, async (c) => {
    const keys = await c.applyHosts(4);
    const a = await c.startNode('a');
    const health = a.health!;
    await waitUntil(async () => [...(await c.statesOf(keys)).values()].every((s) => s === 'provisioned'), 60_000, 'every host provisioned', 200);

    // Kept: the node reconnects to the same streams and sees what is written after.
    await c.nats.restart();
    await waitUntil(async () => (await probe(`${health}/readyz`)).status === 200, 30_000, 'ready again after a restart that kept the store', 100);
    // The test's own client reconnects on its own schedule (its reads time out until then).
    await waitUntil(async () => (await c.statesOf(keys).catch(() => null)) !== null, 30_000, 'the test client reads again', 100);
    // Applied again until it lands: one read of the apply may still time out on a loaded machine.
    let later: string | undefined;
    await waitUntil(async () => (later = (await c.applyHosts(1, { prefix: 'later' }).catch(() => null))?.[0]) !== undefined, 30_000, 'a host applied after the restart', 200);
    await waitUntil(async () => (await c.statesOf([later!]).catch(() => new Map<string, string>())).get(later!) === 'provisioned', 60_000, 'a host applied after the restart is provisioned', 200);
    t.is((await probe(`${health}/healthz`)).status, 200, 'still live');

    // Lost: killed, its store folder removed, started again; a client makes the buckets again.
    await c.nats.kill();
    await rm(join(c.nats.dir, 'js'), { recursive: true, force: true });
    await c.nats.start();
    const fresh = await connectNats({ servers: c.natsUrls, name: 'test-after-loss' });
    try {
      // JetStream may take a moment after the server listens: the buckets are made once it answers.
      let store: Awaited<ReturnType<typeof openNatsStoreOn>> | null = null;
      await waitUntil(async () => (store = await openNatsStoreOn(fresh, {}).catch(() => null)) !== null, 30_000, 'the buckets made again', 200);
      await waitUntil(async () => (await store!.apply([bmh('after-loss', 1)], 'test').catch(() => ({ ok: false }))).ok, 30_000, 'a host applied to the new buckets', 200);
      let live = { status: 0, body: '' };
      await waitUntil(async () => (live = await probe(`${health}/healthz`)).status === 503, 30_000, 'the node says it must be restarted', 100);
      t.regex(live.body, /^restart needed: the stream of KV bucket mf-[a-z-]+ was created again at .* its NATS server lost its store.*restart the node/);
      const ready = await probe(`${health}/readyz`);
      t.is(ready.status, 503);
      t.regex(ready.body, /not ready: the stream of KV bucket mf-/);
      await waitUntil(() => /"level":"error".*the stream of KV bucket mf-[a-z-]+ was created again/.test(a.stderr()) || /"level":50.*the stream of KV bucket/.test(a.stderr()), 10_000, 'the node logs it as an error', 100);
      t.false(a.stderr().includes(BMC_PASSWORD), 'no credential in the log');
      await store!.close?.();
    } finally {
      await fresh.close();
    }
  }, 180_000);
});
