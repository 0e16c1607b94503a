import test from 'ava';
import type { BareMetalHostStatus } from '../../src/api/index.ts';
import { openLocalStore, type LocalStore } from '../../src/adapters/store/index.ts';
import { createMemoryBus } from '../../src/bus/index.ts';
import { HostCommand, HostCommandError, HostCommandReply, type HostCommandInput } from '../../src/bus/messages/index.ts';
import { handleCommand, type CommandOutcome } from '../../src/cluster/commands/index.ts';
import { StoreError, type ResourceStore } from '../../src/ports/index.ts';
import type { HostEvent } from '../../src/adapters/store/host-records.ts';
import { bmh, secret, startTestNode } from '../support/node.ts';
import { waitFor, waitUntil } from '../support/wait.ts';

const image = { url: 'http://images/os.qcow2', checksum: 'abc', checksumType: 'sha256' as const };

function status(state: BareMetalHostStatus['provisioning']['state']): BareMetalHostStatus {
  return {
    operationalStatus: 'OK', errorMessage: '', errorCount: 0, poweredOn: true, provisioningFailCount: 0,
    provisioning: { state, ID: 'node-1', ...(state === 'provisioned' ? { image } : {}) },
  } as BareMetalHostStatus;
}

async function storeWith(state: BareMetalHostStatus['provisioning']['state'] | null, o: Parameters<typeof bmh>[1] = {}): Promise<LocalStore> {
  const store = await openLocalStore(createMemoryBus().connect('test'));
  const r = await store.applyObjects([secret(), bmh('h-1', o)]);
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  if (state !== null) await store.writeStatus('lab/h-1', status(state));
  return store;
}

// The one store a node hands its command server, over the host records alone.
const one = (local: LocalStore): ResourceStore => local.resources;

// A command without its host (the fixture host is filled in); distributes over the union.
type Body = HostCommandInput extends infer C ? (C extends unknown ? Omit<C, 'host'> & { host?: string } : never) : never;

function cmd(c: Body): HostCommand {
  return HostCommand.parse({ host: 'lab/h-1', ...c });
}

function replyOf(t: { fail: (m: string) => void }, o: CommandOutcome): HostCommandReply {
  if (!o.ok) {
    t.fail(`expected a reply, got ${o.error.code}: ${o.error.message}`);
    throw new Error('unreachable');
  }
  // What goes on the wire must match the published schema.
  return HostCommandReply.parse(o.reply);
}

function errorOf(t: { fail: (m: string) => void }, o: CommandOutcome): HostCommandError {
  if (o.ok) {
    t.fail(`expected an error, got a reply: ${o.reply.message}`);
    throw new Error('unreachable');
  }
  return HostCommandError.parse(o.error);
}

// ---- against the embedded store -------------------------------------------------------------------

test('handle command - an unknown host is notFound, not retryable', async (t) => {
  const store = await storeWith('provisioned');
  const e = errorOf(t, await handleCommand(one(store), cmd({ type: 'powerOff', host: 'lab/nope' })));
  t.deepEqual(e, {
    code: 'notFound',
    message: 'BareMetalHost lab/nope not found (never applied, or deleted); check the namespace and name; the command named no kind, so it was for a BareMetalHost: name the kind to reach another (metalfleet host ACTION --kind KIND NAMESPACE/NAME)',
    retryable: false,
  });
  const named = errorOf(t, await handleCommand(one(store), cmd({ type: 'powerOff', host: 'lab/nope', kind: 'BareMetalHost' })));
  t.is(named.message, 'BareMetalHost lab/nope not found (never applied, or deleted); check the namespace and name');
});

test('handle command - powerOff records spec.online durably with a watch event; a repeat is not applied again', async (t) => {
  const store = await storeWith('provisioned');
  const events: HostEvent[] = [];
  store.watch((e) => events.push(e));
  const first = replyOf(t, await handleCommand(one(store), cmd({ type: 'powerOff', requestId: 'p-1' })));
  t.deepEqual(first, { host: 'lab/h-1', command: 'powerOff', applied: true, state: 'provisioned', message: 'lab/h-1 set to power off (spec.online: false)' });
  t.false((await store.get('lab/h-1'))?.spec.online);
  t.is(events.length, 1);
  t.is(events[0]?.type, 'upsert');

  const again = replyOf(t, await handleCommand(one(store), cmd({ type: 'powerOff', requestId: 'p-1' })));
  t.false(again.applied);
  t.regex(again.message, /already to be powered off/);
  t.is(events.length, 1);
});

test('handle command - two commands with different ids at the same moment: only the one whose write changed the host is applied', async (t) => {
  const store = await storeWith('provisioned');
  const replies = await Promise.all([
    handleCommand(one(store), cmd({ type: 'powerOff', requestId: 'p-a' })),
    handleCommand(one(store), cmd({ type: 'powerOff', requestId: 'p-b' })),
  ]);
  const applied = replies.map((r) => replyOf(t, r).applied);
  t.deepEqual(applied.filter(Boolean).length, 1, `applied: ${JSON.stringify(applied)}`);
  t.false((await store.get('lab/h-1'))?.spec.online);
});

test('handle command - reprovision sets the annotation with the request id; the same request again is not applied', async (t) => {
  const store = await storeWith('provisioned');
  const first = replyOf(t, await handleCommand(one(store), cmd({ type: 'reprovision', requestId: 'rp-1' })));
  t.true(first.applied);
  t.is(first.state, 'provisioned');
  t.is((await store.get('lab/h-1'))?.metadata.annotations?.['metalfleet.io/reprovision'], 'rp-1');
  const again = replyOf(t, await handleCommand(one(store), cmd({ type: 'reprovision', requestId: 'rp-1' })));
  t.false(again.applied);
  t.regex(again.message, /by request rp-1/);
});

test('handle command - reboot, inspect, pause, unpause and detach write the annotations BMO reads', async (t) => {
  const store = await storeWith('provisioned');
  const annotations = async () => (await store.get('lab/h-1'))?.metadata.annotations ?? {};
  t.true(replyOf(t, await handleCommand(one(store), cmd({ type: 'reboot', mode: 'hard' }))).applied);
  t.is((await annotations())['reboot.metal3.io'], '{"mode":"hard"}');
  t.true(replyOf(t, await handleCommand(one(store), cmd({ type: 'pause' }))).applied);
  t.is((await annotations())['baremetalhost.metal3.io/paused'], '');
  t.true(replyOf(t, await handleCommand(one(store), cmd({ type: 'unpause' }))).applied);
  t.false('baremetalhost.metal3.io/paused' in (await annotations()));
  t.true(replyOf(t, await handleCommand(one(store), cmd({ type: 'detach' }))).applied);
  t.is((await annotations())['baremetalhost.metal3.io/detached'], '');

  const available = await storeWith('available', { image: false });
  t.true(replyOf(t, await handleCommand(one(available), cmd({ type: 'inspect' }))).applied);
  t.is((await available.get('lab/h-1'))?.metadata.annotations?.['inspect.metal3.io'], '');
});

test('handle command - a refusal is a conflict the sender should not retry unchanged', async (t) => {
  const store = await storeWith('provisioned');
  const e = errorOf(t, await handleCommand(one(store), cmd({ type: 'inspect' })));
  t.is(e.code, 'conflict');
  t.false(e.retryable);
  t.regex(e.message, /^lab\/h-1 is provisioned; hosts are re-inspected only from available/);
  t.deepEqual((await store.get('lab/h-1'))?.metadata.annotations ?? {}, {});
});

test('handle command - delete: gone at once without finalizers, terminating with them, and a repeat is not applied', async (t) => {
  const bare = await storeWith(null);
  const gone = replyOf(t, await handleCommand(one(bare), cmd({ type: 'delete' })));
  t.true(gone.applied);
  t.is(gone.state, '');
  t.regex(gone.message, /deleted: it had no finalizers/);
  t.is(await bare.get('lab/h-1'), undefined);

  const held = await storeWith('provisioned');
  await held.addFinalizer('lab/h-1', 'baremetalhost.metal3.io');
  const first = replyOf(t, await handleCommand(one(held), cmd({ type: 'delete' })));
  t.true(first.applied);
  t.is(first.state, 'provisioned');
  t.regex(first.message, /marked for deletion; it is deprovisioned if needed/);
  t.truthy((await held.get('lab/h-1'))?.metadata.deletionTimestamp);
  const again = replyOf(t, await handleCommand(one(held), cmd({ type: 'delete' })));
  t.false(again.applied);
  t.regex(again.message, /already being deleted/);
});

// A store whose calls fail as told, around a real embedded store.
function failing(local: LocalStore, fail: Partial<Record<'get' | 'applyIntent' | 'requestDelete', () => unknown>>): ResourceStore {
  return new Proxy(one(local), {
    get(target, prop, receiver) {
      const f = fail[prop as keyof typeof fail];
      if (f) return async () => { throw await f(); };
      const value = Reflect.get(target, prop, receiver) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

test('handle command - a retryable store failure is unavailable and retryable', async (t) => {
  const store = await storeWith('provisioned');
  const e = errorOf(t, await handleCommand(failing(store, { applyIntent: () => new StoreError('KV timeout', true) }), cmd({ type: 'powerOff' })));
  t.is(e.code, 'unavailable');
  t.true(e.retryable);
  t.regex(e.message, /^powerOff for lab\/h-1: the store failed while recording the intent \(KV timeout\); send the same command again$/);
  const read = errorOf(t, await handleCommand(failing(store, { get: () => new StoreError('KV down', true) }), cmd({ type: 'powerOff' })));
  t.is(read.code, 'unavailable');
  t.regex(read.message, /while reading the host \(KV down\)/);
});

test('handle command - a refused write is a conflict, or notFound when the host went away meanwhile', async (t) => {
  const store = await storeWith('provisioned');
  const refused = errorOf(t, await handleCommand(failing(store, { applyIntent: () => new StoreError('BareMetalHost lab/h-1: invalid spec patch', false) }), cmd({ type: 'powerOff' })));
  t.deepEqual(refused, { code: 'conflict', message: 'powerOff for lab/h-1 was refused by the store while recording the intent: BareMetalHost lab/h-1: invalid spec patch', retryable: false });

  const racing = failing(store, {
    applyIntent: async () => {
      await store.requestDelete('lab/h-1');
      return new StoreError('BareMetalHost lab/h-1 not found', false);
    },
  });
  const e = errorOf(t, await handleCommand(racing, cmd({ type: 'powerOff' })));
  t.is(e.code, 'notFound');
});

test('handle command - an unexpected error is reported, not thrown, and not marked retryable', async (t) => {
  const store = await storeWith('provisioned');
  const outcome = await handleCommand(failing(store, { requestDelete: () => new TypeError('boom') }), cmd({ type: 'delete' }));
  const e = errorOf(t, outcome);
  t.is(e.code, 'unavailable');
  t.false(e.retryable);
  t.regex(e.message, /delete for lab\/h-1 failed unexpectedly while deleting the host \(boom\)/);
  t.true(!outcome.ok && outcome.cause instanceof TypeError);
});

// ---- end to end: an embedded node with the fixture provisioner --------------------------------

test('handle command e2e - powerOff powers a provisioned host off at the backend', async (t) => {
  const { node, store, fixture } = await startTestNode();
  t.true((await store.applyObjects([secret(), bmh('p-1')])).ok);
  await waitFor(() => node.stats.hosts.get('lab/p-1')?.state === 'provisioned' && fixture.node('lab/p-1')?.power === true, 10_000, 'p-1 provisioned and on');
  try {
    const r = replyOf(t, await handleCommand(one(store), HostCommand.parse({ type: 'powerOff', host: 'lab/p-1', requestId: 'off-1' })));
    t.true(r.applied);
    t.is(r.state, 'provisioned');
    await waitFor(() => fixture.node('lab/p-1')?.power === false && node.stats.hosts.get('lab/p-1')?.poweredOn === false, 5_000, 'p-1 powered off');
    await waitUntil(async () => (await store.get('lab/p-1'))?.status?.poweredOn === false, 5_000, 'status poweredOn false');
    t.is(fixture.calls('lab/p-1').powerOff, 1);
    t.is(node.stats.hosts.get('lab/p-1')?.state, 'provisioned');
  } finally {
    await node.stop();
  }
});

test('handle command e2e - reboot powers the host off and on again and the annotation is gone', async (t) => {
  const { node, store, fixture } = await startTestNode();
  t.true((await store.applyObjects([secret(), bmh('b-1')])).ok);
  await waitFor(() => node.stats.hosts.get('lab/b-1')?.state === 'provisioned', 10_000, 'b-1 provisioned');
  try {
    const r = replyOf(t, await handleCommand(one(store), HostCommand.parse({ type: 'reboot', host: 'lab/b-1' })));
    t.true(r.applied);
    await waitFor(() => fixture.calls('lab/b-1').powerOn >= 1 && fixture.node('lab/b-1')?.power === true, 5_000, 'b-1 powered on again');
    await waitUntil(async () => !('reboot.metal3.io' in ((await store.get('lab/b-1'))?.metadata.annotations ?? {})), 5_000, 'reboot annotation removed');
    t.is(fixture.calls('lab/b-1').powerOff, 1);
    t.is(node.stats.hosts.get('lab/b-1')?.state, 'provisioned');
  } finally {
    await node.stop();
  }
});

test('handle command e2e - reprovision deprovisions and deploys the same image once more, ending provisioned', async (t) => {
  const { node, store, fixture } = await startTestNode();
  t.true((await store.applyObjects([secret(), bmh('r-1'), bmh('r-2')])).ok);
  await waitFor(() => node.stats.count('provisioned') === 2, 10_000, 'both provisioned');
  t.is(fixture.calls('lab/r-1').provision, 1);
  t.is(fixture.node('lab/r-1')?.provisionCount, 1);
  const seen: string[] = [];
  const off = node.stats.onChange(() => {
    const s = node.stats.hosts.get('lab/r-1')?.state;
    if (s && seen.at(-1) !== s) seen.push(s);
  });
  try {
    const r = replyOf(t, await handleCommand(one(store), HostCommand.parse({ type: 'reprovision', host: 'lab/r-1', requestId: 'rp-42' })));
    t.true(r.applied);
    t.is(r.state, 'provisioned');
    await waitFor(() => fixture.calls('lab/r-1').provision === 2 && node.stats.hosts.get('lab/r-1')?.state === 'provisioned', 10_000, 'r-1 provisioned again');
    await waitUntil(async () => {
      const h = await store.get('lab/r-1');
      return h?.status?.provisioning.state === 'provisioned' && !('metalfleet.io/reprovision' in (h.metadata.annotations ?? {}));
    }, 5_000, 'stored status provisioned and annotation removed');
    t.is(fixture.calls('lab/r-1').deprovision, 1);
    t.is(fixture.node('lab/r-1')?.provisionCount, 2);
    t.deepEqual(seen, ['deprovisioning', 'available', 'provisioning', 'provisioned']);
    const stored = await store.get('lab/r-1');
    t.deepEqual(stored?.status?.provisioning.image, stored?.spec.image);
    // The other host was left alone.
    t.is(fixture.calls('lab/r-2').provision, 1);
    t.is(fixture.calls('lab/r-2').deprovision, 0);
  } finally {
    off();
    await node.stop();
  }
});
