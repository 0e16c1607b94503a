// Host commands on MaasMachines: recorded as annotations on the MaasMachine through the object
// store (the KV store on a memory KV here, as the embedded default runs it), exactly as
// `kubectl annotate` would; the MaasMachine's actor acts on them.
import test from 'ava';
import { openLocalStore, type LocalStore } from '../../src/adapters/store/index.ts';
import type { KvStore } from '../../src/adapters/store/kv-store.ts';
import { openNatsStoreOn } from '../../src/adapters/store/nats-store.ts';
import { validateMaasMachine } from '../../src/api/index.ts';
import { createMemoryBus } from '../../src/bus/index.ts';
import { HostCommand, HostCommandError, HostCommandReply, type HostCommandInput } from '../../src/bus/messages/index.ts';
import { handleCommand, MAAS_MACHINE_COMMANDS, type CommandOutcome } from '../../src/cluster/commands/index.ts';
import type { ObjectKind, ResourceEvent } from '../../src/ports/index.ts';
import { OBJECT_KINDS } from '../../src/ports/index.ts';
import { bmh, secret } from '../support/node.ts';

const KEY = 'capi/demo-worker-0';

function maasMachine(o: { annotations?: Record<string, string>; status?: Record<string, unknown> } = {}): unknown {
  return {
    apiVersion: 'infrastructure.cluster.x-k8s.io/v1beta1', kind: 'MaasMachine',
    metadata: { name: 'demo-worker-0', namespace: 'capi', labels: { 'cluster.x-k8s.io/cluster-name': 'demo' }, ...(o.annotations ? { annotations: o.annotations } : {}) },
    spec: { minCPU: 1, minMemory: 1024, image: 'ubuntu/jammy', providerID: 'maas:///az1/abc123', systemID: 'abc123' },
    ...(o.status ? { status: o.status } : {}),
  };
}

async function stores(o: Parameters<typeof maasMachine>[0] = {}): Promise<{ hosts: LocalStore; objects: KvStore; transport: ReturnType<ReturnType<typeof createMemoryBus>['connect']> }> {
  const transport = createMemoryBus().connect('test');
  // The one store, hosts and MAAS kinds together, as the embedded default opens it.
  const hosts = await openLocalStore(transport, { maas: { validators: { MaasMachine: validateMaasMachine } } });
  const objects = hosts.resources;
  const r = await objects.apply([maasMachine(o)]);
  if (!r.ok) throw new Error(JSON.stringify(r.issues));
  if (o.status) await objects.writeStatus('MaasMachine', KEY, o.status);
  return { hosts, objects, transport };
}

// Each command names its kind: only that kind's store is asked (one without a kind is for a BareMetalHost).
const cmd = (c: Omit<HostCommandInput, 'host'> & { host?: string }): HostCommand => HostCommand.parse({ host: KEY, kind: 'MaasMachine', ...c });

function replyOf(t: { fail: (m: string) => void }, o: CommandOutcome): HostCommandReply {
  if (!o.ok) {
    t.fail(`expected a reply, got ${o.error.code}: ${o.error.message}`);
    throw new Error('unreachable');
  }
  return HostCommandReply.parse(o.reply);
}

function errorOf(t: { fail: (m: string) => void }, o: CommandOutcome): HostCommandError {
  if (o.ok) {
    t.fail(`expected an error, got a reply: ${o.reply.message}`);
    throw new Error('unreachable');
  }
  return HostCommandError.parse(o.error);
}

const annotations = async (objects: KvStore) => (await objects.get('MaasMachine', KEY))?.metadata.annotations ?? {};

const DEPLOYED = { ready: true, machineState: 'Deployed', machinePowered: true, initialization: { provisioned: true } };

test('handle command maas - each command records its annotation; a repeat is applied: false and writes nothing', async (t) => {
  const rows: Array<{ input: Omit<HostCommandInput, 'host'>; before?: Record<string, string>; after: Record<string, string>; message: RegExp }> = [
    { input: { type: 'powerOff' }, after: { 'metalfleet.io/power-off': '' }, message: /will be held powered off \(metalfleet\.io\/power-off set\): it is powered off and kept off until powerOn/ },
    { input: { type: 'powerOn' }, before: { 'metalfleet.io/power-off': '' }, after: {}, message: /will be powered on: metalfleet\.io\/power-off removed/ },
    { input: { type: 'release', requestId: 'rma-7' }, after: { 'metalfleet.io/release': 'rma-7' }, message: /will be released \(metalfleet\.io\/release set\).*marked failed \(providerID kept\)/ },
    { input: { type: 'release' }, after: { 'metalfleet.io/release': '' }, message: /will be released/ },
    { input: { type: 'pause' }, after: { 'cluster.x-k8s.io/paused': '' }, message: /paused \(cluster\.x-k8s\.io\/paused set\)/ },
    { input: { type: 'unpause' }, before: { 'cluster.x-k8s.io/paused': '' }, after: {}, message: /unpaused: cluster\.x-k8s\.io\/paused removed/ },
  ];
  for (const row of rows) {
    const name = `${row.input.type} ${JSON.stringify(row.before ?? {})}`;
    const { hosts, objects } = await stores({ ...(row.before ? { annotations: row.before } : {}), status: DEPLOYED });
    const events: ResourceEvent<ObjectKind>[] = [];
    objects.watch((e) => events.push(e), { kinds: OBJECT_KINDS });
    const first = replyOf(t, await handleCommand(hosts.resources, cmd(row.input as HostCommandInput)));
    t.true(first.applied, name);
    t.is(first.state, 'Deployed', name);
    t.is(first.command, row.input.type, name);
    t.regex(first.message, row.message, name);
    t.deepEqual(await annotations(objects), row.after, name);
    t.is(events.filter((e) => e.type === 'upsert' && e.change === 'spec').length, 1, `${name}: one watch event for the actor`);
    const again = replyOf(t, await handleCommand(hosts.resources, cmd(row.input as HostCommandInput)));
    t.false(again.applied, `${name} repeated`);
    t.deepEqual(await annotations(objects), row.after, `${name} unchanged by the repeat`);
    t.is(events.length, 1, `${name}: the repeat wrote nothing`);
  }
});

test('handle command maas - a second release keeps the first request id', async (t) => {
  const { hosts, objects } = await stores();
  t.true(replyOf(t, await handleCommand(hosts.resources, cmd({ type: 'release', requestId: 'first' }))).applied);
  const second = replyOf(t, await handleCommand(hosts.resources, cmd({ type: 'release', requestId: 'second' })));
  t.false(second.applied);
  t.regex(second.message, /already has a release pending \(metalfleet\.io\/release by request first\)/);
  t.deepEqual(await annotations(objects), { 'metalfleet.io/release': 'first' });
  t.is(second.state, '', 'no MAAS state recorded yet');
});

test('handle command maas - commands that do not apply are invalid, naming the kind and what it supports', async (t) => {
  const { hosts, objects } = await stores({ status: DEPLOYED });
  for (const type of ['reboot', 'inspect', 'reprovision', 'detach', 'attach', 'delete'] as const) {
    const e = errorOf(t, await handleCommand(hosts.resources, cmd({ type })));
    t.is(e.code, 'invalid', type);
    t.false(e.retryable);
    t.true(e.message.startsWith(`${KEY} is a MaasMachine, which takes ${MAAS_MACHINE_COMMANDS.join(', ')}; ${type} applies to BareMetalHosts only`), e.message);
  }
  t.regex(errorOf(t, await handleCommand(hosts.resources, cmd({ type: 'delete' }))).message, /delete its Cluster API Machine/);
  t.deepEqual(await annotations(objects), {}, 'nothing recorded');
});

test('handle command maas - an unknown key is notFound naming its kind; without an object store a MaasMachine is not looked for', async (t) => {
  const { hosts, transport } = await stores();
  t.deepEqual(errorOf(t, await handleCommand(hosts.resources, cmd({ type: 'powerOff', host: 'capi/nope' }))), {
    code: 'notFound', message: 'MaasMachine capi/nope not found (never applied, or deleted); check the namespace and name', retryable: false,
  });
  // The same KV, opened for hosts only (a node that runs no MAAS kind): the MaasMachine is not looked for.
  const hostsOnly = await openNatsStoreOn(transport);
  t.teardown(() => hostsOnly.close());
  t.is(errorOf(t, await handleCommand(hostsOnly.resources, cmd({ type: 'powerOff' }))).code, 'notFound');
});

test('handle command maas - commands dispatch by kind: a BareMetalHost and a MaasMachine of one name are each reachable, and neither is a fallback for the other', async (t) => {
  const { hosts, objects } = await stores({ status: DEPLOYED });
  const local = hosts as Awaited<ReturnType<typeof openLocalStore>>;
  // A BareMetalHost with the MaasMachine's very name.
  t.true((await local.applyObjects([secret('bmc', 'capi'), bmh('demo-worker-0', { namespace: 'capi' })])).ok);

  // No kind: the BareMetalHost, as before commands named kinds; the MaasMachine is untouched.
  const host = replyOf(t, await handleCommand(hosts.resources, HostCommand.parse({ type: 'powerOff', host: KEY })));
  t.regex(host.message, /spec\.online: false/);
  t.false((await hosts.get(KEY))?.spec.online);
  t.deepEqual(await annotations(objects), {});

  // kind MaasMachine: the MaasMachine, paused by its own annotation; the BareMetalHost is untouched.
  const hostBefore = await hosts.get(KEY);
  const machine = replyOf(t, await handleCommand(hosts.resources, cmd({ type: 'pause' })));
  t.true(machine.applied);
  t.deepEqual(await annotations(objects), { 'cluster.x-k8s.io/paused': '' });
  t.deepEqual((await hosts.get(KEY))?.metadata.annotations, hostBefore?.metadata.annotations);

  // A kind with nothing of that name is notFound, whatever the other store holds.
  t.true((await local.applyObjects([bmh('only-a-host', { namespace: 'capi' })])).ok);
  const e = errorOf(t, await handleCommand(hosts.resources, cmd({ type: 'pause', host: 'capi/only-a-host' })));
  t.is(e.code, 'notFound');
  t.regex(e.message, /^MaasMachine capi\/only-a-host not found/);
});

test('handle command maas - an unknown kind is invalid, naming it and the known kinds; a kind that takes no commands says so', async (t) => {
  const { hosts } = await stores();
  const unknown = errorOf(t, await handleCommand(hosts.resources, cmd({ type: 'pause', kind: 'Pod' })));
  t.deepEqual(unknown, { code: 'invalid', message: 'unknown kind "Pod" for capi/demo-worker-0: the kinds are BareMetalHost, MaasMachine, MaasCluster', retryable: false });
  const cluster = errorOf(t, await handleCommand(hosts.resources, cmd({ type: 'pause', kind: 'MaasCluster' })));
  t.is(cluster.code, 'invalid');
  t.regex(cluster.message, /^MaasCluster capi\/demo-worker-0 takes no commands \(it follows its Cluster: pause that\)/);
  // On the wire a kind is spelled as in manifests.
  t.false(HostCommand.safeParse({ type: 'pause', host: KEY, kind: 'maas machine' }).success);
});

test('handle command maas - release without a kind is for a MaasMachine, the one kind that takes it', async (t) => {
  const { hosts, objects } = await stores({ status: DEPLOYED });
  const r = replyOf(t, await handleCommand(hosts.resources, HostCommand.parse({ type: 'release', host: KEY, requestId: 'r-1' })));
  t.true(r.applied);
  t.is((await annotations(objects))['metalfleet.io/release'], 'r-1');
});

test('handle command maas - a failed or deleting MaasMachine refuses power and release (conflict); pause still works on a failed one', async (t) => {
  const failed = await stores({ status: { ready: false, failureReason: 'UpdateError', failureMessage: 'MAAS machine abc123 was released by command r-1' } });
  for (const type of ['powerOff', 'powerOn', 'release'] as const) {
    const e = errorOf(t, await handleCommand(failed.hosts.resources, cmd({ type })));
    t.is(e.code, 'conflict', type);
    t.regex(e.message, /has failed \(UpdateError: MAAS machine abc123 was released by command r-1\)/);
  }
  t.true(replyOf(t, await handleCommand(failed.hosts.resources, cmd({ type: 'pause' }))).applied);

  const deleting = await stores();
  await deleting.objects.addFinalizer('MaasMachine', KEY, 'maasmachine.infrastructure.cluster.x-k8s.io');
  t.is(await deleting.objects.requestDelete('MaasMachine', KEY), 'terminating');
  const e = errorOf(t, await handleCommand(deleting.hosts.resources, cmd({ type: 'powerOff' })));
  t.is(e.code, 'conflict');
  t.regex(e.message, /is being deleted/);
});

test('handle command maas - power commands while a release is pending are refused', async (t) => {
  const { hosts } = await stores({ annotations: { 'metalfleet.io/release': 'r-9' } });
  const e = errorOf(t, await handleCommand(hosts.resources, cmd({ type: 'powerOff' })));
  t.is(e.code, 'conflict');
  t.regex(e.message, /is being released \(metalfleet\.io\/release by request r-9\)/);
});

test('handle command maas - power-off before the machine is deployed says it applies once deployed; paused is noted', async (t) => {
  const { hosts } = await stores({ annotations: { 'cluster.x-k8s.io/paused': '' } });
  const r = replyOf(t, await handleCommand(hosts.resources, cmd({ type: 'powerOff' })));
  t.regex(r.message, /powered off once deployed/);
  t.regex(r.message, /it is paused \(cluster\.x-k8s\.io\/paused\)/);
});

test('handle command maas - release on a BareMetalHost is invalid, saying what to do instead', async (t) => {
  const { hosts } = await stores();
  const local = hosts as Awaited<ReturnType<typeof openLocalStore>>;
  t.true((await local.applyObjects([secret(), bmh('h-1')])).ok);
  const e = errorOf(t, await handleCommand(hosts.resources, cmd({ type: 'release', host: 'lab/h-1', kind: 'BareMetalHost' })));
  t.is(e.code, 'invalid');
  t.regex(e.message, /lab\/h-1 is a BareMetalHost; release applies to MaasMachines only/);
});

test('handle command maas - on the KV object store (what a NATS cluster shares): recorded by compare-and-set, a repeat is not applied', async (t) => {
  const transport = createMemoryBus().connect('kv');
  // The one store, hosts and MAAS kinds together, as the embedded default opens it.
  const hosts = await openLocalStore(transport, { maas: { validators: { MaasMachine: validateMaasMachine } } });
  const objects = hosts.resources;
  try {
    t.true((await objects.apply([maasMachine()])).ok);
    const generation = (await objects.get('MaasMachine', KEY))?.metadata.generation;
    t.true(replyOf(t, await handleCommand(hosts.resources, cmd({ type: 'powerOff' }))).applied);
    t.false(replyOf(t, await handleCommand(hosts.resources, cmd({ type: 'powerOff' }))).applied);
    const stored = await objects.get('MaasMachine', KEY);
    t.deepEqual(stored?.metadata.annotations, { 'metalfleet.io/power-off': '' });
    t.is(stored?.metadata.generation, generation, 'metadata only: the generation stays');
    t.true(await objects.patchAnnotations('MaasMachine', KEY, { 'metalfleet.io/power-off': null }));
    t.false(await objects.patchAnnotations('MaasMachine', KEY, { 'metalfleet.io/power-off': null }));
    t.is((await objects.get('MaasMachine', KEY))?.metadata.annotations, undefined);
  } finally {
    await objects.close();
  }
});
