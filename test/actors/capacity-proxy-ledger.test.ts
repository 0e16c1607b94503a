// The capacity proxy's ledger on its own: proxyStep(ledger, event, now) -> effects, read like a
// table of what the node's proxy does. The proxy through actors and a bus is in capacity-*.test.ts.
import test from 'ava';
import type { SlotNotice } from '../../src/actors/capacity/index.ts';
import { keyOf, newProxyLedger, proxyStep } from '../../src/actors/capacity/cluster/proxy-ledger.ts';
import type { ProxyEffect, ProxyLedger } from '../../src/actors/capacity/cluster/proxy-ledger.ts';

const POOL = 'ironic:http://127.0.0.1:6385';
const HOLDER = 'ns/host-1';
const KEY = keyOf(HOLDER, POOL);
const timings = { ttlMs: 1_000, renewEveryMs: 166, lossMarginMs: 100 };

function holder(l: ProxyLedger, now: number): { heard: SlotNotice[]; effects: readonly ProxyEffect[] } {
  const heard: SlotNotice[] = [];
  const effects = proxyStep(l, { type: 'acquire', holder: HOLDER, pool: POOL, operation: 'provisioning', exempt: false, notify: (n) => heard.push(n) }, now);
  return { heard, effects };
}

const notices = (effects: readonly ProxyEffect[]): SlotNotice[] => effects.flatMap((e) => (e.type === 'notify' ? [e.notice] : []));
const types = (effects: readonly ProxyEffect[]): string[] => effects.map((e) => e.type);

test('capacity proxy ledger - an acquire is sent, queued, then granted by a push, and the loss timer comes forward to its deadline', (t) => {
  const l = newProxyLedger(timings);
  const { effects } = holder(l, 10);
  t.deepEqual(types(effects), ['sendAcquire']);
  const sent = effects[0] as Extract<ProxyEffect, { type: 'sendAcquire' }>;
  const queued = proxyStep(l, { type: 'acquireDone', key: KEY, holder: HOLDER, pool: POOL, gen: sent.gen, sentAt: 10, reply: { epoch: 1, status: 'queued', position: 3 } }, 20);
  t.deepEqual(notices(queued), [{ type: 'slotQueued', pool: POOL, position: 3 }]);
  const push = { type: 'slotGranted', epoch: 1, holder: HOLDER, pool: POOL, grantId: 'e1-1', operation: 'provisioning', waitedMs: 40, validForMs: 1_000 } as const;
  const granted = proxyStep(l, { type: 'push', push, at: 50 }, 50);
  t.deepEqual(notices(granted), [{ type: 'slotGranted', grantId: 'e1-1', pool: POOL, operation: 'provisioning', waitedMs: 40 }]);
  t.deepEqual(granted.at(-1), { type: 'lossTickBy', at: 50 + 1_000 - 100 });
});

test('capacity proxy ledger - an acquire waits for the same holder\'s release in flight, so the broker sees them in order', (t) => {
  const l = newProxyLedger(timings);
  holder(l, 0);
  t.deepEqual(types(proxyStep(l, { type: 'release', holder: HOLDER, pool: POOL }, 1)), ['sendRelease']);
  t.deepEqual(types(holder(l, 2).effects), [], 'deferred: nothing sent while the release is on its way');
  const after = proxyStep(l, { type: 'released', key: KEY }, 3);
  t.deepEqual(types(after), ['sendAcquire']);
});

test('capacity proxy ledger - a grant not renewed in time is lost, and a late push of it is neither believed nor released', (t) => {
  const l = newProxyLedger(timings);
  const { effects } = holder(l, 0);
  const { gen } = effects[0] as Extract<ProxyEffect, { type: 'sendAcquire' }>;
  proxyStep(l, { type: 'acquireDone', key: KEY, holder: HOLDER, pool: POOL, gen, sentAt: 0, reply: { epoch: 1, status: 'granted', grantId: 'e1-1', waitedMs: 0, validForMs: 1_000 } }, 5);
  const lost = proxyStep(l, { type: 'lossTick' }, 900);
  t.deepEqual(notices(lost).map((n) => n.type), ['slotLost']);
  t.deepEqual(lost.at(-1), { type: 'lossTickAt', at: null }, 'no grant left: no loss timer');
  const push = { type: 'slotGranted', epoch: 1, holder: HOLDER, pool: POOL, grantId: 'e1-1', operation: 'provisioning', waitedMs: 0, validForMs: 1_000 } as const;
  // The backend work under it may still run: the slot is left to lapse or to be adopted.
  t.deepEqual(proxyStep(l, { type: 'push', push, at: 950 }, 950), []);
});

// Issue 30.1: the holder's next incarnation on this node (its actor restarted) gives back the grant
// the one before it abandoned, wherever it was made; an acquire of that earlier incarnation that a
// release overtook is dropped, and a late grant for it is no longer kept for anybody.
test('capacity proxy ledger - an inherited release goes to the broker for any node, and a late grant of the earlier incarnation is released', (t) => {
  const l = newProxyLedger(timings);
  const first = holder(l, 0).effects[0] as Extract<ProxyEffect, { type: 'sendAcquire' }>;
  proxyStep(l, { type: 'abandon', holder: HOLDER, pool: POOL }, 1);
  const released = proxyStep(l, { type: 'release', holder: HOLDER, pool: POOL, gen: 99, inherited: true }, 2);
  t.deepEqual(released, [{ type: 'sendRelease', key: KEY, holder: HOLDER, pool: POOL, inherited: true }]);
  proxyStep(l, { type: 'released', key: KEY }, 3);
  // The earlier incarnation's acquire, answered late with a grant: given back, not kept.
  const late = proxyStep(l, { type: 'acquireDone', key: KEY, holder: HOLDER, pool: POOL, gen: first.gen, sentAt: 0, reply: { epoch: 1, status: 'granted', grantId: 'e1-1', waitedMs: 0, validForMs: 1_000 } }, 4);
  t.deepEqual(types(late), ['sendRelease']);
  t.is((late[0] as Extract<ProxyEffect, { type: 'sendRelease' }>).inherited, undefined, 'its own node\'s grant: a plain release');
});

test('capacity proxy ledger - a gone holder is released in every pool, its abandoned grant is no longer kept, and a host of the same name created at once asks only after that release is answered', (t) => {
  const l = newProxyLedger(timings);
  const first = holder(l, 0).effects[0] as Extract<ProxyEffect, { type: 'sendAcquire' }>;
  proxyStep(l, { type: 'abandon', holder: HOLDER, pool: POOL }, 1);
  t.true(l.abandoned.has(KEY), 'kept for a next owner to adopt');
  t.deepEqual(proxyStep(l, { type: 'releaseGone', holder: HOLDER, gen: first.gen + 1 }, 2), [{ type: 'sendReleaseGone', holder: HOLDER }]);
  t.false(l.abandoned.has(KEY));
  // The acquire of the stopped incarnation, answered late: nobody's, so it goes back.
  const late = proxyStep(l, { type: 'acquireDone', key: KEY, holder: HOLDER, pool: POOL, gen: first.gen, sentAt: 0, reply: { epoch: 1, status: 'granted', grantId: 'e1-1', waitedMs: 0, validForMs: 1_000 } }, 3);
  t.deepEqual(types(late), ['sendRelease']);
  proxyStep(l, { type: 'released', key: KEY }, 4);
  // Re-created under the same name: its acquire waits for the gone release, then goes.
  t.deepEqual(types(proxyStep(l, { type: 'acquire', holder: HOLDER, pool: POOL, operation: 'provisioning', exempt: false, notify: () => undefined, gen: first.gen + 2 }, 5)), []);
  t.deepEqual(types(proxyStep(l, { type: 'releasedGone', holder: HOLDER }, 6)), ['sendAcquire']);
});
