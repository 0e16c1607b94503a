// The host machine against the fixture backend (issue 31 parts 1-2): every call the machine makes
// goes to the fixture provisioner, which keeps BIOS settings and firmware per node; the firmware
// companions are played as the host actor reports them (settings the HostFirmwareSettings ask
// that differ from the last firmware read, and its HostUpdatePolicy). Proves the two sides agree:
// preparing applies the changes before the host is deployed, servicing applies them under a
// deployed host without deploying it again, and a setting the BMC refuses is a servicing error
// that a fixed ask recovers.
import test from 'ava';
import { createFixtureProvisioner } from '../../src/adapters/fixture/index.ts';
import type { FixtureProvisioner } from '../../src/adapters/fixture/index.ts';
import type { BareMetalHost, FirmwareIntent, FirmwareReport } from '../../src/api/index.ts';
import { REBOOT_ANNOTATION } from '../../src/api/index.ts';
import type { BmhEvent, BmhState, CallArgs, Step } from '../../src/machines/bmh/index.ts';
import { initialState, step } from '../../src/machines/bmh/index.ts';
import type { HostData } from '../../src/ports/index.ts';
import { invoke } from '../../src/ports/index.ts';
import { makeHost, T0 } from '../support/bmh.ts';

interface Companions {
  /** HostFirmwareSettings spec.settings. */
  want: Record<string, string>;
  onReboot: { settings: boolean; updates: boolean };
}

interface World {
  readonly fixture: FixtureProvisioner;
  companions: Companions | null;
  report: FirmwareReport | null;
  now: number;
  readonly calls: CallArgs[];
  readonly events: Array<{ reason: string; message: string }>;
}

function hostData(s: BmhState): HostData {
  const h = s.host;
  return {
    key: `${h.metadata.namespace}/${h.metadata.name}`, namespace: h.metadata.namespace, name: h.metadata.name, uid: h.metadata.uid ?? '',
    provisionerId: h.status.provisioning.ID, spec: h.spec, credentials: { username: 'admin', password: 'pw' },
  };
}

// What the host actor tells the machine of the companions: the asked settings that differ from
// what the backend last reported (all of them before any report), and the policy.
function intentOf(w: World): FirmwareIntent | null {
  if (!w.companions) return null;
  const current = w.report?.settings ?? {};
  const settings = Object.fromEntries(Object.entries(w.companions.want).filter(([k, v]) => current[k] !== v));
  return { settings, updates: [], valid: true, onReboot: w.companions.onReboot };
}

// Plays the host actor until `until` holds: calls go to the fixture, slots are granted, requeues
// advance the clock, and a changed companion view is told to the machine.
async function run(w: World, start: Step, until: (s: BmhState) => boolean, max = 200): Promise<Step> {
  let cur = start;
  // The machine holds no intent at first: the first view of the companions is told.
  let told = JSON.stringify(start.state.firmware);
  for (let i = 0; i < max; i++) {
    for (const e of cur.effects) if (e.type === 'event') w.events.push({ reason: e.reason, message: e.message });
    if (until(cur.state) && cur.state.inFlight === null) return cur;
    const call = cur.effects.find((e) => e.type === 'call');
    let event: BmhEvent;
    if (call && call.type === 'call') {
      w.calls.push(call.args);
      const result = await invoke(w.fixture, hostData(cur.state), call.args);
      if (result.kind === 'done' && result.firmware) w.report = result.firmware;
      event = { type: 'result', seq: call.seq, result, jitter: 0 };
    } else if (cur.effects.some((e) => e.type === 'requestSlot')) {
      event = { type: 'slotGranted', grantId: `g${i}` };
    } else {
      const requeue = cur.effects.find((e) => e.type === 'requeue');
      w.now += requeue && requeue.type === 'requeue' ? Math.max(requeue.afterMs, 1) : 60_000;
      event = { type: 'tick' };
    }
    cur = step(cur.state, event, w.now);
    const intent = intentOf(w);
    if (intent && JSON.stringify(intent) !== told) {
      told = JSON.stringify(intent);
      for (const e of cur.effects) if (e.type === 'event') w.events.push({ reason: e.reason, message: e.message });
      const next = step(cur.state, { type: 'firmwareIntent', intent }, w.now);
      // What the step before asked (a call to answer, a slot) is still to be done.
      cur = { state: next.state, effects: [...cur.effects.filter((e) => e.type !== 'event'), ...next.effects] };
    }
  }
  throw new Error(`${w.calls.slice(-8).map((c) => c.op).join(",")} not reached in ${max} turns: ${cur.state.host.status.provisioning.state} / ${cur.state.host.status.operationalStatus}`);
}

function world(companions: Companions | null): World {
  return { fixture: createFixtureProvisioner({ latencyMs: 0, demoBehaviours: false }), companions, report: null, now: T0, calls: [], events: [] };
}

const settled = (state: string) => (s: BmhState) => s.host.status.provisioning.state === state && s.host.status.operationalStatus === 'OK' && s.host.status.poweredOn === s.host.spec.online && s.slot.phase === 'none';

async function provisionedHost(w: World): Promise<Step> {
  const s0 = initialState(makeHost());
  return run(w, step(s0, { type: 'tick' }, w.now), settled('provisioned'));
}

function reboot(s: BmhState, now: number): Step {
  const h: BareMetalHost = { ...s.host, metadata: { ...s.host.metadata, annotations: { ...s.host.metadata.annotations, [REBOOT_ANNOTATION]: '' } } };
  return step(s, { type: 'observed', host: h }, now);
}

test('bmh firmware with the fixture - settings asked before deployment are applied while preparing, read back, and deployed on once', async (t) => {
  const w = world({ want: { ProcTurboMode: 'Disabled', NumCoresPerProc: '16' }, onReboot: { settings: false, updates: false } });
  const done = await provisionedHost(w);
  const prepare = w.calls.find((c) => c.op === 'prepare');
  t.deepEqual(prepare?.op === 'prepare' ? prepare.firmware : null, { settings: { ProcTurboMode: 'Disabled', NumCoresPerProc: '16' }, updates: [] });
  t.like(w.report?.settings, { ProcTurboMode: 'Disabled', NumCoresPerProc: '16' });
  t.deepEqual(intentOf(w)?.settings, {}, 'the companions show nothing pending any more');
  t.is(w.calls.filter((c) => c.op === 'prepare').length, 1, 'prepared once');
  t.is(w.fixture.starts(hostData(done.state).key).provision, 1);
});

test('bmh firmware with the fixture - a deployed host is serviced on its next reboot when its policy allows: settings applied, never deployed again, the slot given back', async (t) => {
  const w = world({ want: {}, onReboot: { settings: true, updates: true } });
  const deployed = await provisionedHost(w);
  const key = hostData(deployed.state).key;
  const before = w.calls.length;
  w.companions = { want: { ProcVirtualization: 'Disabled' }, onReboot: { settings: true, updates: true } };
  // Told; the host is on, so nothing happens until it reboots.
  const told = step(deployed.state, { type: 'firmwareIntent', intent: intentOf(w)! }, w.now);
  t.deepEqual(told.effects.filter((e) => e.type === 'call'), []);
  const back = await run(w, reboot(told.state, w.now), (s) => settled('provisioned')(s) && !(REBOOT_ANNOTATION in (s.host.metadata.annotations ?? {})) && w.calls.slice(before).some((c) => c.op === 'powerOn'));
  const ops = w.calls.slice(before).map((c) => c.op).filter((op) => op !== 'hardwareState');
  t.deepEqual(ops, ['powerOff', 'service', 'firmware', 'powerOn']);
  t.is(w.report?.settings['ProcVirtualization'], 'Disabled');
  t.is(w.fixture.starts(key).provision, 1, 'deployed once');
  t.is(w.fixture.calls(key).deprovision, 0);
  t.is(back.state.host.status.provisioning.state, 'provisioned');
  t.is(back.state.slot.phase, 'none');
  t.true(w.events.some((e) => e.reason === 'ServicingComplete'));
});

test('bmh firmware with the fixture - a setting the BMC refuses is a servicing error; the fixed ask recovers it without a reboot of its own', async (t) => {
  const w = world({ want: {}, onReboot: { settings: true, updates: false } });
  const deployed = await provisionedHost(w);
  w.companions = { want: { NumCoresPerProc: '99' }, onReboot: { settings: true, updates: false } };
  const told = step(deployed.state, { type: 'firmwareIntent', intent: intentOf(w)! }, w.now);
  const failed = await run(w, reboot(told.state, w.now), (s) => s.host.status.errorType === 'servicing error');
  t.is(failed.state.host.status.errorCount, 1);
  t.regex(failed.state.host.status.errorMessage, /NumCoresPerProc" must be a whole number from 0 to 64/);
  t.is(failed.state.host.status.poweredOn, false, 'BMO powers it on only once servicing is through');
  t.is(failed.state.slot.phase, 'none');
  // Fixed: serviced at once, then powered on.
  w.companions = { want: { NumCoresPerProc: '32' }, onReboot: { settings: true, updates: false } };
  const fixed = step(failed.state, { type: 'firmwareIntent', intent: intentOf(w)! }, w.now);
  const ok = await run(w, fixed, settled('provisioned'));
  t.is(w.report?.settings['NumCoresPerProc'], '32');
  t.is(ok.state.host.status.errorType ?? '', '');
  t.is(ok.state.host.status.errorCount, 0);
  t.is(w.fixture.starts(hostData(ok.state).key).provision, 1);
});
