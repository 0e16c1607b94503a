// A host's status writes in the turn that asks for a slot (issue 30): the register answer's
// bookkeeping (its provisioning ID, the credentials tried) goes out with the write of the broker's
// answer, queued (`delayed`) or granted (`inspecting`), rather than in a write of its own that
// the answer supersedes a moment later. What a reader watches is still written before the host
// waits: `registering` before the register call, `delayed` while queued for a slot.
import test from 'ava';
import { createFixtureProvisioner } from '../../src/adapters/fixture/index.ts';
import { openLocalStore } from '../../src/adapters/store/index.ts';
import type { BareMetalHostStatus } from '../../src/api/index.ts';
import { DEFAULT_MACHINE_CONFIG } from '../../src/machines/bmh/index.ts';
import { memorySubstrate } from '../../src/node/index.ts';
import type { ResourceStore } from '../../src/ports/index.ts';
import { startLocalNode } from '../support/local-node.ts';
import { bmh, secret } from '../support/node.ts';
import { waitUntil } from '../support/wait.ts';

type Written = { key: string; state: string; operationalStatus: string; id: string };

// The store, recording every BareMetalHost status written through it.
function recording(store: ResourceStore, written: Written[]): ResourceStore {
  return new Proxy(store, {
    get: (t, prop) => {
      const value: unknown = Reflect.get(t, prop, t);
      if (prop === 'writeStatus') {
        return (kind: string, key: string, status: unknown, ...rest: unknown[]) => {
          if (kind === 'BareMetalHost') {
            const s = status as BareMetalHostStatus;
            written.push({ key, state: s.provisioning.state, operationalStatus: s.operationalStatus, id: s.provisioning.ID });
          }
          return (value as (...a: unknown[]) => Promise<void>).call(t, kind, key, status, ...rest);
        };
      }
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(t) : value;
    },
  });
}

test('host status - the register answer is written with the slot answer: granted, with inspecting; queued, with delayed', async (t) => {
  const substrate = memorySubstrate({});
  const store = await openLocalStore(substrate.transport);
  const applied = await store.applyObjects([secret(), bmh('h1'), bmh('h2')], 'test');
  t.true(applied.ok);
  const written: Written[] = [];
  // One slot: one host is granted it at once, the other is queued behind it. The inspection holds
  // the slot long past both registrations (which take 20 ms), so the second host asks while the
  // first still has it however slowly a loaded machine registers them.
  const latencyMs = { register: 20, inspect: 1_500, prepare: 20, provision: 20, deprovision: 20, hardwareState: 20, powerOn: 20, powerOff: 20 };
  const node = await startLocalNode({
    name: 'slot-answer', shardCount: 16, machine: DEFAULT_MACHINE_CONFIG,
    capacity: { limits: {}, defaultLimit: 1, ttlMs: 30_000 },
    supervision: { maxRestarts: 3, windowMs: 60_000, backoff: { initialMs: 5, maxMs: 20 } },
    askTimeoutMs: 2_000,
  }, { store: recording(store.resources, written), secrets: store.secrets }, { provisioner: createFixtureProvisioner({ demoBehaviours: false, latencyMs }) }, {}, substrate);
  t.teardown(() => node.stop());
  for (const key of ['lab/h1', 'lab/h2']) await waitUntil(async () => (await store.get(key))?.status?.provisioning.state === 'provisioned', 20_000, `${key} provisioned`);

  for (const key of ['lab/h1', 'lab/h2']) {
    const mine = written.filter((w) => w.key === key);
    // Registering is written before the register call, without an ID yet.
    t.like(mine[0], { state: 'registering', id: '' }, key);
    // No write of its own for the answer: the next one is the slot's answer, with the ID.
    t.not(mine[1]?.id, '', key);
    t.false(mine[1]?.state === 'registering' && mine[1]?.operationalStatus === 'OK', `${key}: ${JSON.stringify(mine.slice(0, 3))}`);
  }
  // The host queued for its slot showed it: delayed was written while it waited.
  t.true(written.some((w) => w.operationalStatus === 'delayed'));
});
