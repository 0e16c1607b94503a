// Issue 30.1, rolling upgrade: a newer node's sweep for deleted hosts' grants asks the cluster's
// broker for its holders, a request a broker from before it cannot read. That broker refuses it at
// once as an invalid message, for good; the proxy left the asker unanswered, so every page waited
// out its timeout, eight times, and the sweep settled nothing. Now the proxy answers from the older
// broker's figures (each pool's first holders and waiters, in one last page) and says so in a log.
import test from 'ava';
import { z } from 'zod';
import { ok, serve, subjects } from '../../src/bus/index.ts';
import { AcquireRequest, FiguresRequest, ReleaseRequest, RenewRequest, SetLimitRequest, type WireFigures } from '../../src/actors/capacity/cluster/messages.ts';
import { spawnCapacityProxy } from '../../src/actors/capacity/cluster/index.ts';
import type { CapacityMsg, HolderPage } from '../../src/actors/capacity/index.ts';
import type { Logger, ResourceStore } from '../../src/ports/index.ts';
import { releaseGoneHolders } from '../../src/actors/host/gone-grants.ts';
import { silentLogger } from '../../src/ports/index.ts';
import { tell } from '../../src/actors/runtime/index.ts';
import { waitFor } from '../support/wait.ts';
import { harness, POOL } from './capacity-cluster-harness.ts';

// What a broker from before the holders request reads: every request but that one.
const OlderBrokerRequest = z.discriminatedUnion('type', [AcquireRequest, ReleaseRequest, RenewRequest, FiguresRequest, SetLimitRequest]);

const FIGURES: WireFigures = {
  epoch: 3,
  pools: [{
    pool: POOL, limit: 2, inUse: 2, exempt: 0, waiting: 1, longestWaitMs: 10, stallSeconds: 0,
    holders: [
      { holder: 'ns/b', node: 'node-1', operation: 'provisioning', grantId: 'e3-1', exempt: false, sinceMs: 5 },
      { holder: 'MaasMachine:ns/m', node: 'node-1', operation: 'provision', grantId: 'e3-2', exempt: false, sinceMs: 5 },
    ],
    queue: [{ holder: 'ns/a', node: 'node-2', operation: 'provisioning', waitingMs: 10 }],
  }],
};

function recordingLogger(lines: string[]): Logger {
  const logger: Logger = { ...silentLogger, warn: (_fields, message) => void lines.push(message ?? ''), child: () => logger };
  return logger;
}

async function olderCluster(t: { teardown(fn: () => void): void }) {
  const h = await harness({ limit: 2 });
  t.teardown(() => h.stop());
  const asked: string[] = [];
  const older = serve(h.bus.connect('older-broker'), subjects().capacity, OlderBrokerRequest, (req) => {
    asked.push(req.type);
    return Promise.resolve(ok(req.type === 'figures' ? FIGURES : null));
  });
  t.teardown(() => older.unsubscribe());
  const lines: string[] = [];
  const proxy = spawnCapacityProxy(h.system, { transport: h.bus.connect('node-new'), node: 'node-new', ttlMs: h.ttlMs, clock: h.clock, requestTimeoutMs: 2_000, patienceMs: 2_000, logger: recordingLogger(lines) });
  return { h, proxy, asked, lines };
}

function holdersPage(proxy: ReturnType<typeof spawnCapacityProxy>, after?: string): { page: HolderPage | null } {
  const got: { page: HolderPage | null } = { page: null };
  const msg: CapacityMsg = { type: 'holders', ...(after !== undefined ? { after } : {}), reply: (page) => void (got.page = page) };
  tell(proxy, msg);
  return got;
}

test('capacity holders - an older broker that cannot read the request: answered at once from its figures, one last page, and said in a log line', async (t) => {
  const { h, proxy, asked, lines } = await olderCluster(t);
  const got = holdersPage(proxy);
  // Answered, not timed out: a refusal unread is final, so an unanswered page means the old code.
  await waitFor(() => got.page !== null, 5_000, 'the holders page');
  await h.settle();
  t.deepEqual(got.page, { holders: ['MaasMachine:ns/m', 'ns/a', 'ns/b'], next: null }, 'every holder and waiter the figures list, sorted, and no further page');
  t.deepEqual(asked, ['figures'], 'the holders request was refused unread; the figures were asked once');
  t.is(lines.filter((l) => /does not know the holders request/.test(l)).length, 1);
});

test('capacity holders - the fallback page keeps to the names after `after`', async (t) => {
  const { proxy } = await olderCluster(t);
  const got = holdersPage(proxy, 'ns/a');
  await waitFor(() => got.page !== null, 5_000, 'the holders page');
  t.deepEqual(got.page, { holders: ['ns/b'], next: null });
});

test('capacity holders - a new owner\'s sweep against an older broker settles a deleted host it lists, at once, not after a timeout per page', async (t) => {
  const { proxy, asked } = await olderCluster(t);
  // ns/a is deleted; ns/b is present; the MaasMachine is no host's.
  const store = { get: (_kind: string, key: string) => Promise.resolve(key === 'ns/a' ? undefined : {}) } as unknown as ResourceStore;
  const released = await releaseGoneHolders({ broker: proxy, store, log: silentLogger }, new Set(['ns/b']), () => true);
  t.is(released, 1);
  await waitFor(() => asked.includes('release'), 5_000, 'the gone host\'s release');
  t.deepEqual(asked, ['figures', 'release']);
});
