import test from 'ava';
import type { BareMetalHost } from '../../src/api/index.ts';
import { HostCommand, type HostCommandInput } from '../../src/bus/messages/index.ts';
import { intentFor, type CommandIntent } from '../../src/cluster/commands/index.ts';
import { initialState, step } from '../../src/machines/bmh/index.ts';
import type { HostIntent } from '../../src/adapters/store/host-records.ts';
import { calls, makeHost, T0, type HostOverrides } from '../support/bmh.ts';

const KEY = 'metal3/worker-0';
const image = makeHost().spec.image;
type State = NonNullable<BareMetalHost['status']>['provisioning']['state'];

function host(state: State, o: HostOverrides = {}): BareMetalHost {
  const deployed = state === 'provisioned' || state === 'externally provisioned' ? { image } : {};
  // The hints registration recorded (BMO matchProfile), as on any registered host.
  const hints = { rootDeviceHints: { deviceName: '/dev/sda' } };
  return makeHost({ ...o, status: { poweredOn: true, ...o.status, provisioning: { state, ID: 'node-1', ...hints, ...deployed, ...o.status?.provisioning } } });
}

// A command without its host (the fixture host is filled in); distributes over the union.
type Body = HostCommandInput extends infer C ? (C extends unknown ? Omit<C, 'host'> & { host?: string } : never) : never;

function cmd(c: Body): HostCommand {
  return HostCommand.parse({ host: KEY, ...c });
}

// What the store does with an intent (annotations set or removed, spec.online, a delete stamp).
function applied(h: BareMetalHost, intent: HostIntent | 'delete'): BareMetalHost {
  if (intent === 'delete') return { ...h, metadata: { ...h.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' } };
  const annotations: Record<string, string> = { ...h.metadata.annotations };
  for (const [k, v] of Object.entries(intent.annotations ?? {})) {
    if (v === null) delete annotations[k];
    else annotations[k] = v;
  }
  return { ...h, metadata: { ...h.metadata, annotations }, spec: intent.online === undefined ? h.spec : { ...h.spec, online: intent.online } };
}

function accepted(t: { true: (v: boolean, m?: string) => void }, r: CommandIntent): asserts r is Extract<CommandIntent, { ok: true }> {
  t.true(r.ok, r.ok ? '' : `refused: ${r.message}`);
}

// The machine reading the host as the command left it: its first effects.
function machineTick(h: BareMetalHost) {
  return step({ ...initialState(h), powerCheckAt: T0 + 60_000 }, { type: 'tick' }, T0);
}

// ---- every command, and its repeat ----------------------------------------------------------

const everyCommand: Array<{ c: Body; on: BareMetalHost; intent: HostIntent | 'delete' }> = [
  { c: { type: 'powerOn' }, on: host('provisioned', { spec: { online: false } }), intent: { online: true } },
  { c: { type: 'powerOff' }, on: host('provisioned'), intent: { online: false } },
  { c: { type: 'reboot', requestId: 'r-1' }, on: host('provisioned'), intent: { annotations: { 'reboot.metal3.io': '{"mode":"soft"}' } } },
  { c: { type: 'reboot', mode: 'hard' }, on: host('provisioned'), intent: { annotations: { 'reboot.metal3.io': '{"mode":"hard"}' } } },
  { c: { type: 'inspect' }, on: host('available'), intent: { annotations: { 'inspect.metal3.io': '' } } },
  { c: { type: 'reprovision', requestId: 'rp-7' }, on: host('provisioned'), intent: { annotations: { 'metalfleet.io/reprovision': 'rp-7' } } },
  { c: { type: 'service', requestId: 'sv-1' }, on: host('provisioned'), intent: { annotations: { 'metalfleet.io/service': 'sv-1' } } },
  { c: { type: 'pause' }, on: host('provisioned'), intent: { annotations: { 'baremetalhost.metal3.io/paused': '' } } },
  { c: { type: 'unpause' }, on: host('provisioned', { annotations: { 'baremetalhost.metal3.io/paused': '' } }), intent: { annotations: { 'baremetalhost.metal3.io/paused': null } } },
  { c: { type: 'detach' }, on: host('provisioned'), intent: { annotations: { 'baremetalhost.metal3.io/detached': '' } } },
  { c: { type: 'attach' }, on: host('provisioned', { annotations: { 'baremetalhost.metal3.io/detached': '{"deleteAction":"delete"}' } }), intent: { annotations: { 'baremetalhost.metal3.io/detached': null } } },
  { c: { type: 'delete' }, on: host('provisioned'), intent: 'delete' },
];

for (const { c, on, intent } of everyCommand) {
  const label = `${c.type}${'mode' in c ? ` ${c.mode}` : ''}`;
  test(`command intent - ${label} maps to its intent, and a repeat reports already applied`, (t) => {
    const first = intentFor(on, cmd(c));
    accepted(t, first);
    t.false(first.alreadyApplied);
    t.deepEqual(first.intent, intent);
    t.true(first.message.includes(KEY), first.message);

    const again = intentFor(applied(on, first.intent), cmd(c));
    accepted(t, again);
    t.true(again.alreadyApplied, again.message);
    t.true(again.message.includes(KEY), again.message);
    // Nothing to write on a repeat (a repeated delete stays a no-op delete).
    t.deepEqual(again.intent, intent === 'delete' ? 'delete' : {});
  });
}

// ---- power ------------------------------------------------------------------------------------

test('command intent - powerOff is invalid on a host that may not be powered off', (t) => {
  const r = intentFor(host('provisioned', { spec: { disablePowerOff: true } }), cmd({ type: 'powerOff' }));
  t.deepEqual(r.ok ? null : r.code, 'invalid');
  t.regex(r.message, /metal3\/worker-0 has spec\.disablePowerOff set.*send reboot instead/);
});

test('command intent - power commands on a paused or detached host are recorded and say when they take effect', (t) => {
  const paused = intentFor(host('provisioned', { annotations: { 'baremetalhost.metal3.io/paused': '' } }), cmd({ type: 'powerOff' }));
  accepted(t, paused);
  t.regex(paused.message, /paused.*until it is unpaused/);
  const detached = intentFor(host('provisioned', { annotations: { 'baremetalhost.metal3.io/detached': '' } }), cmd({ type: 'powerOff' }));
  accepted(t, detached);
  t.regex(detached.message, /detached, so its power is not managed until baremetalhost\.metal3\.io\/detached is removed/);
});

// ---- reboot -------------------------------------------------------------------------------------

test('command intent - reboot uses the plain annotation, which the machine removes once the host is off', (t) => {
  const h = host('provisioned');
  const r = intentFor(h, cmd({ type: 'reboot', mode: 'hard', requestId: 'abc' }));
  accepted(t, r);
  // Never reboot.metal3.io/<id>: a suffixed annotation holds the host off until its writer removes it.
  t.deepEqual(Object.keys((r.intent as HostIntent).annotations ?? {}), ['reboot.metal3.io']);
  const s = machineTick(applied(h, r.intent));
  t.deepEqual(calls(s.effects), [{ op: 'powerOff', mode: 'hard', force: false }]);
});

test('command intent - reboot of an available host is forced, the only kind BMO honours there', (t) => {
  const h = host('available', { spec: { image: undefined } });
  const r = intentFor(h, cmd({ type: 'reboot' }));
  accepted(t, r);
  t.deepEqual(r.intent, { annotations: { 'reboot.metal3.io': '{"mode":"soft","force":true}' } });
  const s = machineTick(applied(h, r.intent));
  t.deepEqual(calls(s.effects), [{ op: 'powerOff', mode: 'soft', force: false }]);
  // An unforced request someone left on it does not count: the command still forces one.
  const stale = intentFor(host('available', { annotations: { 'reboot.metal3.io': '' } }), cmd({ type: 'reboot' }));
  accepted(t, stale);
  t.false(stale.alreadyApplied);
});

test('command intent - a pending soft reboot is raised to hard; a pending hard one covers a soft request', (t) => {
  const soft = intentFor(host('provisioned', { annotations: { 'reboot.metal3.io': '' } }), cmd({ type: 'reboot', mode: 'hard' }));
  accepted(t, soft);
  t.false(soft.alreadyApplied);
  t.deepEqual(soft.intent, { annotations: { 'reboot.metal3.io': '{"mode":"hard"}' } });
  const hard = intentFor(host('provisioned', { annotations: { 'reboot.metal3.io': '{"mode":"hard"}' } }), cmd({ type: 'reboot', mode: 'soft' }));
  accepted(t, hard);
  t.true(hard.alreadyApplied);
  t.regex(hard.message, /already has a hard reboot pending/);
});

test('command intent - a host with disablePowerOff takes a reboot, which it does in place', (t) => {
  const r = intentFor(host('provisioned', { spec: { disablePowerOff: true } }), cmd({ type: 'reboot' }));
  t.true(r.ok, r.message);
  t.regex(r.message, /reboots in place \(spec\.disablePowerOff\)/);
});

test('command intent - reboot refusals name the host and what to do', (t) => {
  const cases: Array<[BareMetalHost, RegExp]> = [
    [host('provisioned', { spec: { online: false } }), /spec\.online is false\); send powerOn/],
    [host('inspecting'), /is inspecting; its power is managed only when available, provisioned or externally provisioned/],
    [host('provisioned', { annotations: { 'reboot.metal3.io/phase-1': '' } }), /held off by reboot\.metal3\.io\/phase-1.*removing it/],
    [host('provisioned', { annotations: { 'baremetalhost.metal3.io/detached': '' } }), /is detached.*remove that annotation.*send reboot/],
  ];
  for (const [h, re] of cases) {
    const r = intentFor(h, cmd({ type: 'reboot' }));
    t.is(r.ok ? null : r.code, 'conflict', r.message);
    t.true(r.message.startsWith(`${KEY} `), r.message);
    t.regex(r.message, re);
  }
});

// ---- inspect ------------------------------------------------------------------------------------

test('command intent - inspect on an available host sets the annotation the machine inspects on', (t) => {
  const h = host('available', { spec: { image: undefined } });
  const r = intentFor(h, cmd({ type: 'inspect' }));
  accepted(t, r);
  const s = machineTick(applied(h, r.intent));
  t.deepEqual(s.effects.filter((e) => e.type === 'requestSlot'), [{ type: 'requestSlot', op: 'inspect' }]);
});

test('command intent - inspect while inspecting is already applied', (t) => {
  const r = intentFor(host('inspecting'), cmd({ type: 'inspect' }));
  accepted(t, r);
  t.true(r.alreadyApplied);
  t.deepEqual(r.intent, {});
});

test('command intent - inspect is refused when inspection is disabled or the state does not allow it', (t) => {
  const cases: Array<[BareMetalHost, RegExp]> = [
    [host('available', { spec: { inspectionMode: 'disabled' } }), /inspection disabled \(spec\.inspectionMode: disabled\); set spec\.inspectionMode to agent/],
    [host('available', { annotations: { 'inspect.metal3.io': 'disabled' } }), /inspection disabled \(inspect\.metal3\.io: disabled\); remove that annotation/],
    [host('provisioned'), /is provisioned; hosts are re-inspected only from available — remove spec\.image to deprovision it first/],
    [host('preparing'), /is preparing; .* wait until it is available/],
    [host(''), /is new \(not registered yet\)/],
  ];
  for (const [h, re] of cases) {
    const r = intentFor(h, cmd({ type: 'inspect' }));
    t.is(r.ok ? null : r.code, 'conflict', r.message);
    t.regex(r.message, re);
    t.true(r.message.startsWith(`${KEY} `));
  }
});

// ---- reprovision --------------------------------------------------------------------------------

test('command intent - reprovision without a request id records an empty value; the machine starts it', (t) => {
  const h = host('provisioned');
  const r = intentFor(h, cmd({ type: 'reprovision' }));
  accepted(t, r);
  t.deepEqual(r.intent, { annotations: { 'metalfleet.io/reprovision': '' } });
  t.regex(r.message, /deploys spec\.image again/);
  // Deprovisioning starts once a slot is free (BMO's capacity check keeps it provisioned until then).
  const s = machineTick(applied(h, r.intent));
  t.true(s.effects.some((e) => e.type === 'requestSlot'));
  t.is(step(s.state, { type: 'slotGranted', grantId: 'g' }, T0).state.host.status.provisioning.state, 'deprovisioning');
});

test('command intent - a second reprovision while one is pending is already applied, whatever its id', (t) => {
  const r = intentFor(host('provisioned', { annotations: { 'metalfleet.io/reprovision': 'first' } }), cmd({ type: 'reprovision', requestId: 'second' }));
  accepted(t, r);
  t.true(r.alreadyApplied);
  t.regex(r.message, /already has a reprovision pending \(metalfleet\.io\/reprovision by request first\)/);
});

test('command intent - reprovision of a host whose image changed is already under way', (t) => {
  const r = intentFor(host('provisioned', { spec: { image: { url: 'http://images/other.qcow2', checksum: 'x', checksumType: 'sha256' } } }), cmd({ type: 'reprovision' }));
  accepted(t, r);
  t.true(r.alreadyApplied);
  t.regex(r.message, /already being deprovisioned and deployed with the new image/);
});

test('command intent - reprovision refusals: not provisioned, no image, offline, externally provisioned, detached', (t) => {
  const noImage = host('provisioned', { spec: { image: undefined } });
  const cases: Array<[BareMetalHost, RegExp]> = [
    [host('available'), /is available; only a provisioned host can be reprovisioned — wait until it is provisioned/],
    [host('deprovisioning'), /If you sent reprovision for it before, that one is under way/],
    [noImage, /has no spec\.image.*set spec\.image/],
    [host('provisioned', { spec: { online: false } }), /spec\.online is false\) and would be left deprovisioned; send powerOn first/],
    [host('externally provisioned', { spec: { externallyProvisioned: true } }), /set spec\.externallyProvisioned to false/],
    [host('provisioned', { annotations: { 'baremetalhost.metal3.io/detached': '' } }), /is detached.*send reprovision/],
  ];
  for (const [h, re] of cases) {
    const r = intentFor(h, cmd({ type: 'reprovision', requestId: 'x' }));
    t.is(r.ok ? null : r.code, 'conflict', r.message);
    t.regex(r.message, re);
    t.true(r.message.startsWith(`${KEY} `));
  }
});

test('command intent - service on a provisioned host sets the annotation; the machine powers it off to service it, or refuses with an event when it has no allowed changes', (t) => {
  const h = host('provisioned');
  const r = intentFor(h, cmd({ type: 'service' }));
  accepted(t, r);
  t.deepEqual(r.intent, { annotations: { 'metalfleet.io/service': '' } });
  t.regex(r.message, /HostUpdatePolicy allows \(onReboot\)/);
  // Without companions the machine has nothing to service: the request goes, with a reason.
  const s = machineTick(applied(h, r.intent));
  t.deepEqual(calls(s.effects), []);
  t.true(s.effects.some((e) => e.type === 'removeAnnotation' && e.key === 'metalfleet.io/service'));
  t.true(s.effects.some((e) => e.type === 'event' && e.reason === 'ServiceRefused' && /no pending firmware changes/.test(e.message)));
  // With changes its policy allows, it powers off to be serviced as it powers on.
  const off = step({ ...initialState(applied(h, r.intent)), powerCheckAt: T0 + 60_000 }, { type: 'firmwareIntent', intent: { settings: { ProcTurboMode: 'Disabled' }, updates: [], valid: true, onReboot: { settings: true, updates: false } } }, T0);
  t.deepEqual(calls(off.effects).map((c) => c.op), ['powerOff']);
});

test('command intent - service while servicing is already applied', (t) => {
  const r = intentFor(host('provisioned', { status: { operationalStatus: 'servicing' } }), cmd({ type: 'service' }));
  accepted(t, r);
  t.true(r.alreadyApplied);
  t.regex(r.message, /being serviced already/);
});

test('command intent - service refusals: not provisioned, offline, disablePowerOff, detached', (t) => {
  const cases: Array<[BareMetalHost, RegExp]> = [
    [host('available'), /is available; only a provisioned host is serviced — an available host applies its firmware changes by itself/],
    [host('provisioning'), /is provisioning; only a provisioned host is serviced — wait until it is provisioned/],
    [host('provisioned', { spec: { online: false } }), /spec\.online is false\); a provisioned host is serviced as it powers on — send powerOn instead/],
    [host('provisioned', { spec: { disablePowerOff: true } }), /disablePowerOff set, so it is never off and is never serviced/],
    [host('provisioned', { annotations: { 'baremetalhost.metal3.io/detached': '' } }), /is detached.*send service/],
  ];
  for (const [h, re] of cases) {
    const r = intentFor(h, cmd({ type: 'service' }));
    t.is(r.ok ? null : r.code, 'conflict', r.message);
    t.regex(r.message, re);
    t.true(r.message.startsWith(`${KEY} `));
  }
});

// ---- pause, detach, delete ----------------------------------------------------------------------

test('command intent - unpause refuses to lift a pause Cluster API Provider Metal3 holds', (t) => {
  const r = intentFor(host('provisioned', { annotations: { 'baremetalhost.metal3.io/paused': 'metal3.io/capm3' } }), cmd({ type: 'unpause' }));
  t.is(r.ok ? null : r.code, 'conflict');
  t.regex(r.message, /paused by Cluster API Provider Metal3.*CAPM3 removes the annotation itself/);
  const notPaused = intentFor(host('provisioned'), cmd({ type: 'unpause' }));
  accepted(t, notPaused);
  t.true(notPaused.alreadyApplied);
});

test('command intent - detach of a host that is not settled is recorded and says it waits', (t) => {
  const r = intentFor(host('preparing'), cmd({ type: 'detach' }));
  accepted(t, r);
  t.deepEqual(r.intent, { annotations: { 'baremetalhost.metal3.io/detached': '' } });
  t.regex(r.message, /it is preparing and is removed from the backend, without deprovisioning, once available or provisioned/);
});

test('command intent - delete describes what a detach annotation does to it', (t) => {
  const delay = intentFor(host('provisioned', { annotations: { 'baremetalhost.metal3.io/detached': '{"deleteAction":"delay"}' } }), cmd({ type: 'delete' }));
  accepted(t, delay);
  t.regex(delay.message, /stays until baremetalhost\.metal3\.io\/detached is removed/);
});

test('command intent - attach removes the detached annotation and says the host is adopted without deprovisioning (BMO: removal re-registers and adopts)', (t) => {
  const r = intentFor(host('provisioned', { annotations: { 'baremetalhost.metal3.io/detached': '' } }), cmd({ type: 'attach' }));
  accepted(t, r);
  t.deepEqual(r.intent, { annotations: { 'baremetalhost.metal3.io/detached': null } });
  t.regex(r.message, /attached: baremetalhost\.metal3\.io\/detached removed; it is registered with the backend again and adopted as provisioned, without deprovisioning/);
  const paused = intentFor(host('available', { annotations: { 'baremetalhost.metal3.io/detached': '', 'baremetalhost.metal3.io/paused': '' } }), cmd({ type: 'attach' }));
  accepted(t, paused);
  t.regex(paused.message, /paused.*nothing happens until it is unpaused/);
});

test('command intent - attach is the one command besides delete a host being deleted takes: it lets a delete held by deleteAction delay go on', (t) => {
  const h = host('provisioned', { deletionTimestamp: '2026-01-01T00:00:00Z', annotations: { 'baremetalhost.metal3.io/detached': '{"deleteAction":"delay"}' } });
  const r = intentFor(h, cmd({ type: 'attach' }));
  accepted(t, r);
  t.false(r.alreadyApplied);
  t.deepEqual(r.intent, { annotations: { 'baremetalhost.metal3.io/detached': null } });
  t.regex(r.message, /being deleted, so the deletion goes on with the backend/);
});

test('command intent - a host being deleted refuses every command but delete', (t) => {
  const h = host('deprovisioning', { deletionTimestamp: '2026-01-01T00:00:00Z' });
  for (const type of ['powerOn', 'powerOff', 'reboot', 'inspect', 'reprovision', 'service', 'pause', 'unpause', 'detach'] as const) {
    const r = intentFor(h, cmd({ type }));
    t.is(r.ok ? null : r.code, 'conflict', type);
    t.regex(r.message, new RegExp(`^metal3/worker-0 is being deleted .*; ${type} is refused`));
  }
  const del = intentFor(h, cmd({ type: 'delete' }));
  accepted(t, del);
  t.true(del.alreadyApplied);
});

test('command intent - a command matched to another host is invalid', (t) => {
  const r = intentFor(host('provisioned'), cmd({ type: 'powerOn', host: 'metal3/worker-1' }));
  t.is(r.ok ? null : r.code, 'invalid');
  t.regex(r.message, /command for metal3\/worker-1 was matched to host metal3\/worker-0/);
});
