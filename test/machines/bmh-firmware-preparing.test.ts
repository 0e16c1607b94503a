import test from 'ava';
import type { FirmwareIntent } from '../../src/api/index.ts';
import type { BmhState, CallArgs, OpResult } from '../../src/machines/bmh/index.ts';
import { step } from '../../src/machines/bmh/index.ts';
import { atState, calls, done, reply, settle, T0, tick } from '../support/bmh.ts';

// Issue 31 part 1: an available host whose HostFirmwareSettings/HostFirmwareComponents ask for
// changes goes to preparing and the prepare call carries them (BMO's handleAvailable and
// actionPreparing); an invalid HostFirmwareSettings is never applied; the firmware is read back
// after inspection and after preparing, so the companions' status is refreshed.

export function intent(o: Partial<FirmwareIntent> = {}): FirmwareIntent {
  return { settings: {}, updates: [], valid: true, onReboot: { settings: false, updates: false }, ...o };
}

export function told(s: BmhState, i: FirmwareIntent, now = T0) {
  return step(s, { type: 'firmwareIntent', intent: i }, now);
}

const BIOS = { settings: { ProcTurboMode: 'Disabled' } };
const FLASH = { updates: [{ component: 'bmc', url: 'http://fw/bmc-2.bin' }] };
const ops = (args: readonly CallArgs[]): string[] => args.map((a) => a.op);

test('bmh firmware - an available host told of new BIOS settings goes to preparing, and prepare carries them', (t) => {
  const s = told(atState('available', { spec: { image: undefined } }), intent(BIOS));
  t.is(s.state.host.status.provisioning.state, 'preparing');
  const prepare = calls(s.effects).find((c) => c.op === 'prepare');
  t.deepEqual(prepare && prepare.op === 'prepare' ? prepare.firmware : null, { settings: { ProcTurboMode: 'Disabled' }, updates: [] });
  t.false(s.effects.some((e) => e.type === 'requestSlot'), 'preparing takes no slot, as for RAID');
});

test('bmh firmware - firmware updates go to preparing as well, with the components and URLs', (t) => {
  const s = told(atState('available', { spec: { image: undefined } }), intent(FLASH));
  const prepare = calls(s.effects).find((c) => c.op === 'prepare');
  t.deepEqual(prepare && prepare.op === 'prepare' ? prepare.firmware : null, { settings: {}, updates: FLASH.updates });
});

test('bmh firmware - an invalid HostFirmwareSettings is never applied: no preparing, and nothing sent when preparing for other reasons', (t) => {
  const s = told(atState('available', { spec: { image: undefined } }), intent({ ...BIOS, valid: false }));
  t.is(s.state.host.status.provisioning.state, 'available');
  t.false(calls(s.effects).some((c) => c.op === 'prepare'));
  // In preparing anyway (after inspection): the prepare call carries no firmware.
  const preparing = told(atState('preparing'), intent({ ...BIOS, valid: false }));
  const prepare = calls(preparing.effects).find((c) => c.op === 'prepare');
  t.truthy(prepare);
  t.false(prepare !== undefined && prepare.op === 'prepare' && prepare.firmware !== undefined);
});

test('bmh firmware - a host with no companions prepares without firmware and reads none', (t) => {
  const run = settle(tick(atState('preparing', { spec: { image: undefined } })));
  t.deepEqual(ops(calls(run.all)), ['prepare', 'powerOn']);
  const prepare = calls(run.all)[0];
  t.false(prepare?.op === 'prepare' && prepare.firmware !== undefined);
});

test('bmh firmware - after preparing the firmware is read back once, and the same changes are not applied a second time before the companions are refreshed', (t) => {
  const s = told(atState('available', { spec: { image: undefined } }), intent(BIOS));
  const run = settle(s);
  t.deepEqual(ops(calls(run.all)), ['prepare', 'firmware', 'powerOn']);
  t.is(run.last.state.host.status.provisioning.state, 'available');
  // The companions told again, not refreshed yet: still the same ask. No second preparing.
  const again = told(run.last.state, intent(BIOS), T0 + 1);
  t.is(again.state.host.status.provisioning.state, 'available');
  t.false(calls(again.effects).some((c) => c.op === 'prepare'));
  // Refreshed (the setting now matches), then asked again for the same value: applied again.
  const refreshed = told(again.state, intent(), T0 + 2);
  const changedOnHost = told(refreshed.state, intent(BIOS), T0 + 3);
  t.is(changedOnHost.state.host.status.provisioning.state, 'preparing');
});

test('bmh firmware - after inspection the firmware is read before preparing, for a host with companions', (t) => {
  const inspecting = told(atState('inspecting'), intent());
  const run = settle(inspecting, () => done);
  const seen = ops(calls(run.all));
  t.deepEqual(seen.slice(0, 3), ['inspect', 'firmware', 'prepare']);
});

test('bmh firmware - a failed preparing is a preparation error; a new ask from the companions retries it at once with the new changes', (t) => {
  const s = told(atState('available', { spec: { image: undefined } }), intent(BIOS));
  const failed = reply(s, { kind: 'failed', message: 'clean failed: bios.apply_configuration' } as OpResult, T0);
  t.is(failed.state.host.status.errorType, 'preparation error');
  t.is(failed.state.host.status.errorCount, 1);
  t.true((failed.state.retryAt ?? 0) > T0, 'backed off');
  t.deepEqual(calls(tick(failed.state, T0 + 1).effects), [], 'nothing before the backoff ends');
  const fixed = told(failed.state, intent({ settings: { ProcTurboMode: 'Enabled' } }), T0 + 2);
  const prepare = calls(fixed.effects).find((c) => c.op === 'prepare');
  t.true(prepare?.op === 'prepare' && prepare.restartOnFailure);
  t.deepEqual(prepare?.op === 'prepare' ? prepare.firmware : null, { settings: { ProcTurboMode: 'Enabled' }, updates: [] });
});

test('bmh firmware - a failed firmware read warns and does not mark the host', (t) => {
  const s = told(atState('available', { spec: { image: undefined } }), intent(BIOS));
  const prepared = reply(s, done);
  const read = calls(prepared.effects).at(-1);
  t.is(read?.op, 'firmware');
  const failed = reply(prepared, { kind: 'failed', message: 'the fixture provisioner cannot read firmware settings or components', retryAfterMs: null }, T0 + 1);
  t.is(failed.state.host.status.errorType ?? '', '');
  t.is(failed.state.host.status.operationalStatus, 'OK');
  t.false(failed.state.firmwareReadDue);
  t.true(failed.effects.some((e) => e.type === 'event' && e.reason === 'FirmwareReadFailed'));
  t.false(calls(failed.effects).some((c) => c.op === 'firmware'), 'not read again in a loop');
});
