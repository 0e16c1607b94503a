// The bounds of a host's status left for its slot's answer (issue 30): an answer slow to come
// does not keep the status from the store past SLOT_ANSWER_HOLD_MS, a drain does not wait for
// the answer at all, and a turn that changes what a reader watches, or makes a backend call,
// writes at its end as before.
import test from 'ava';
import { hostKind } from '../../src/actors/host/host-kind.ts';
import { SLOT_ANSWER_HOLD_MS } from '../../src/actors/host/slot-answer-hold.ts';
import type { HostDeps } from '../../src/actors/host/host.ts';
import { createManualClock } from '../../src/actors/runtime/manual-clock.ts';
import type { BareMetalHostStatus } from '../../src/api/index.ts';
import { DEFAULT_MACHINE_CONFIG } from '../../src/machines/bmh/index.ts';
import type { BmhState } from '../../src/machines/bmh/index.ts';

const KEY = 'lab/h1';

function setup(): { adapter: ReturnType<ReturnType<typeof hostKind>['adapter']>; written: BareMetalHostStatus[]; clock: ReturnType<typeof createManualClock> } {
  const clock = createManualClock(0);
  const written: BareMetalHostStatus[] = [];
  const log = { debug() {}, info() {}, warn() {}, error() {}, child() { return log; } };
  const deps = {
    store: { writeStatus: async (_kind: string, _key: string, status: BareMetalHostStatus) => { written.push(status); } },
    provisioner: {}, broker: {}, clock, config: DEFAULT_MACHINE_CONFIG, log, random: () => 0.5, grantTtlMs: 30_000,
    observer: { statusRead() {}, statusChanged() {}, warning() {} },
  } as unknown as HostDeps;
  const io = { tell() {}, run: () => true, draining: false } as never;
  return { adapter: hostKind(KEY, deps).adapter(io), written, clock };
}

function state(status: Partial<BareMetalHostStatus>, slot: BmhState['slot']): BmhState {
  const full = { operationalStatus: 'OK', errorMessage: '', errorCount: 0, poweredOn: false, provisioningFailCount: 0, provisioning: { state: 'registering', ID: '' }, ...status } as BareMetalHostStatus;
  return { host: { metadata: { name: 'h1', namespace: 'lab' }, spec: { online: true }, status: full }, slot, gone: false, waitingForSecret: null } as unknown as BmhState;
}

const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

// The register answer's step: the ID only (no reader's field), and a slot asked for.
function registerAnswered(adapter: ReturnType<typeof setup>['adapter']): BmhState {
  const before = state({}, { phase: 'none' });
  const after = state({ provisioning: { state: 'registering', ID: 'node-1' } }, { phase: 'waiting', op: 'inspect', since: 0 });
  adapter.perform({ type: 'writeStatus', status: after.host.status }, after);
  adapter.stepped?.(before, after);
  adapter.turnEnded?.();
  return after;
}

test('host status hold - an answer slow to come: the status is written after the hold, once', async (t) => {
  const { adapter, written, clock } = setup();
  registerAnswered(adapter);
  await settle();
  t.is(written.length, 0, 'held for the slot\'s answer');
  clock.advance(SLOT_ANSWER_HOLD_MS - 1);
  await settle();
  t.is(written.length, 0);
  clock.advance(1);
  await settle();
  t.is(written.length, 1);
  t.is(written[0]?.provisioning.ID, 'node-1');
});

test('host status hold - the answer\'s turn writes both; the hold\'s timer then writes nothing more', async (t) => {
  const { adapter, written, clock } = setup();
  const asked = registerAnswered(adapter);
  // slotQueued: delayed, in a turn of its own.
  const delayed = state({ ...asked.host.status, operationalStatus: 'delayed' }, asked.slot);
  adapter.perform({ type: 'writeStatus', status: delayed.host.status }, delayed);
  adapter.stepped?.(asked, delayed);
  adapter.turnEnded?.();
  await settle();
  t.is(written.length, 1);
  t.like(written[0], { operationalStatus: 'delayed', provisioning: { ID: 'node-1' } });
  clock.advance(SLOT_ANSWER_HOLD_MS);
  await settle();
  t.is(written.length, 1);
});

test('host status hold - a drain writes the held status at once', async (t) => {
  const { adapter, written } = setup();
  registerAnswered(adapter);
  await adapter.whenIdle?.();
  t.is(written.length, 1);
});

test('host status hold - a turn that changes what a reader watches, or calls the backend, writes at its end', async (t) => {
  const { adapter, written } = setup();
  // Delayed and a slot asked for together: operationalStatus changed.
  const before = state({}, { phase: 'none' });
  const after = state({ operationalStatus: 'error', errorType: 'registration error', errorCount: 1 }, { phase: 'waiting', op: 'inspect', since: 0 });
  adapter.perform({ type: 'writeStatus', status: after.host.status }, after);
  adapter.stepped?.(before, after);
  adapter.turnEnded?.();
  await settle();
  t.is(written.length, 1);

  // Only bookkeeping and a slot asked for, but a backend call made in the same turn: the host waits on it.
  const next = state({ ...after.host.status, provisioning: { state: 'registering', ID: 'node-2' } }, after.slot);
  adapter.perform({ type: 'writeStatus', status: next.host.status }, next);
  adapter.perform({ type: 'call', seq: 1, args: { op: 'register', restartOnFailure: false, credentialsChanged: false } }, next);
  adapter.stepped?.(state(after.host.status, { phase: 'none' }), next);
  adapter.turnEnded?.();
  await settle();
  t.is(written.length, 2);
});
