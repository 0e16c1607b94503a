// HostFirmwareComponents' status as BMO keeps it (hostfirmwarecomponents_controller.go
// updateHostFirmware, baremetalhost_controller.go saveHostFirmwareComponents): status.updates is
// what was flashed once a preparing or servicing that sent updates finished; ChangeDetected is
// True while spec.updates differ from status.updates; Valid is False (InvalidComponent) naming the
// first update whose component BMO refuses. Conditions follow metav1's SetStatusCondition: their
// lastTransitionTime moves only when their status flips.
import test from 'ava';
import type { FirmwareUpdate, HostFirmwareComponents, HostFirmwareComponentsStatus, MetaCondition } from '../../src/api/index.ts';
import { setMetaCondition } from '../../src/api/index.ts';
import { appliedUpdates, componentsUpdatesStatus } from '../../src/machines/host-firmware-components/updates-status.ts';
import { firmwareIntentOf } from '../../src/machines/host-firmware-settings/firmware-intent.ts';
import { preparingChanges } from '../../src/machines/bmh/firmware-intent.ts';

const T0 = '2026-12-06T10:00:00Z';
const T1 = '2026-12-06T10:05:00Z';
const T2 = '2026-12-06T10:10:00Z';
const bios = { component: 'bios', url: 'https://fw/bios-2.0.bin' };
const bmc = { component: 'bmc', url: 'https://fw/bmc-5.1.bin' };
const components = [{ component: 'bios', initialVersion: '1.0', currentVersion: '1.0' }];

const hfc = (updates: FirmwareUpdate[], status?: HostFirmwareComponentsStatus, generation = 2): HostFirmwareComponents => ({
  apiVersion: 'metal3.io/v1alpha1', kind: 'HostFirmwareComponents', metadata: { name: 'h1', namespace: 'lab', generation }, spec: { updates },
  ...(status ? { status } : {}),
});
const condition = (status: HostFirmwareComponentsStatus | undefined, type: string): MetaCondition | undefined => status?.conditions?.find((c) => c.type === type);

test('components updates status - spec.updates not applied yet: ChangeDetected and Valid True (reason OK), at the generation judged', (t) => {
  const change = componentsUpdatesStatus(hfc([bios]), { components }, T0);
  t.truthy(change);
  t.deepEqual(change?.status.components, components);
  t.is(change?.status.lastUpdated, T0);
  t.is(change?.invalid, null);
  // BMO sets ChangeDetected first when the updates differ.
  t.deepEqual(change?.status.conditions, [
    { type: 'ChangeDetected', status: 'True', reason: 'OK', message: '', observedGeneration: 2, lastTransitionTime: T0 },
    { type: 'Valid', status: 'True', reason: 'OK', message: '', observedGeneration: 2, lastTransitionTime: T0 },
  ]);
  // Judged again with nothing new: nothing to write.
  t.is(componentsUpdatesStatus(hfc([bios], change?.status), { components }, T1), null);
});

test('components updates status - no updates wanted nor applied: Valid True and ChangeDetected False', (t) => {
  const change = componentsUpdatesStatus(hfc([]), { components }, T0);
  t.like(condition(change?.status, 'ChangeDetected'), { status: 'False', reason: 'OK' });
  t.like(condition(change?.status, 'Valid'), { status: 'True', reason: 'OK' });
  t.is(change?.status.updates, undefined);
});

test('components updates status - a component BMO does not know makes Valid False (InvalidComponent), naming it, never its URL', (t) => {
  const raid = { component: 'raid', url: 'https://admin:s3cret@fw/raid.bin' };
  const change = componentsUpdatesStatus(hfc([bios, raid]), { components }, T0);
  const message = "Invalid Firmware Components: [component raid is invalid, only 'bmc', 'bios', or names starting with 'nic:' are allowed as update names]";
  t.like(condition(change?.status, 'Valid'), { status: 'False', reason: 'InvalidComponent', message, observedGeneration: 2, lastTransitionTime: T0 });
  t.like(condition(change?.status, 'ChangeDetected'), { status: 'True', reason: 'OK' });
  t.is(change?.invalid, message);
  t.false(JSON.stringify(change?.status.conditions).includes('s3cret'));
  // Fixed at a later generation: Valid flips, so its lastTransitionTime moves; ChangeDetected
  // stays True, so its lastTransitionTime stays, its observedGeneration follows the spec.
  const fixed = componentsUpdatesStatus(hfc([bios], change?.status, 3), {}, T1);
  t.like(condition(fixed?.status, 'Valid'), { status: 'True', reason: 'OK', message: '', observedGeneration: 3, lastTransitionTime: T1 });
  t.like(condition(fixed?.status, 'ChangeDetected'), { status: 'True', observedGeneration: 3, lastTransitionTime: T0 });
  t.is(fixed?.invalid, null);
});

test('components updates status - once the updates sent were applied, status.updates holds them and ChangeDetected turns False', (t) => {
  const before = componentsUpdatesStatus(hfc([bios, bmc]), { components }, T0)?.status;
  const after = componentsUpdatesStatus(hfc([bios, bmc], before), { applied: [bios, bmc] }, T1);
  t.deepEqual(after?.status.updates, [bios, bmc]);
  t.deepEqual(after?.status.components, components, 'the components stay');
  t.is(after?.status.lastUpdated, T1);
  t.like(condition(after?.status, 'ChangeDetected'), { status: 'False', reason: 'OK', lastTransitionTime: T1 });
  t.like(condition(after?.status, 'Valid'), { status: 'True', lastTransitionTime: T0 });
  // The same updates applied again change nothing.
  t.is(componentsUpdatesStatus(hfc([bios, bmc], after?.status), { applied: [bios] }, T2), null);
});

test('applied updates - the spec\'s updates already recorded or just sent, in spec order; a URL sent that the spec no longer asks is not recorded', (t) => {
  // bmc was flashed before; bios now.
  t.deepEqual(appliedUpdates([bios, bmc], [bmc], [bios]), [bios, bmc]);
  // The bmc's URL changed in the spec while bios was flashed: the old bmc record does not stand for the new URL.
  const newer = { component: 'bmc', url: 'https://fw/bmc-5.2.bin' };
  t.deepEqual(appliedUpdates([bios, newer], [bmc], [bios]), [bios]);
  // The spec moved on to another bios while the old one was flashed: nothing of the spec is applied.
  t.deepEqual(appliedUpdates([{ component: 'bios', url: 'https://fw/bios-3.0.bin' }], [], [bios]), []);
});

test('components updates status - what status.updates records is not flashed again after a restart; a new URL for a component is', (t) => {
  const applied = componentsUpdatesStatus(hfc([bios, bmc]), { components, applied: [bios, bmc] }, T0)?.status;
  // A restarted host: nothing remembered in memory, only the HFC as stored.
  const intent = firmwareIntentOf(undefined, hfc([bios, bmc], applied), undefined, undefined);
  t.deepEqual(preparingChanges({ firmware: intent, firmwareApplied: null }).updates, []);
  const newer = { component: 'bmc', url: 'https://fw/bmc-5.2.bin' };
  const changed = firmwareIntentOf(undefined, hfc([bios, newer], applied, 3), undefined, undefined);
  t.deepEqual(preparingChanges({ firmware: changed, firmwareApplied: null }).updates, [newer]);
  // And the change shows: the spec differs from what was applied.
  t.like(condition(componentsUpdatesStatus(hfc([bios, newer], applied, 3), {}, T1)?.status, 'ChangeDetected'), { status: 'True', observedGeneration: 3, lastTransitionTime: T1 });
});

test('meta condition - metav1 SetStatusCondition: appended when absent; lastTransitionTime moves only on a status flip; any field changed counts', (t) => {
  const first = setMetaCondition(undefined, { type: 'Valid', status: 'True', reason: 'OK', message: '' }, 1, T0);
  t.deepEqual(first, { conditions: [{ type: 'Valid', status: 'True', reason: 'OK', message: '', observedGeneration: 1, lastTransitionTime: T0 }], changed: true, flipped: true });
  const same = setMetaCondition(first.conditions, { type: 'Valid', status: 'True', reason: 'OK', message: '' }, 1, T1);
  t.false(same.changed);
  t.deepEqual(same.conditions, first.conditions, 'unchanged');
  const regenerated = setMetaCondition(first.conditions, { type: 'Valid', status: 'True', reason: 'OK', message: '' }, 2, T1);
  t.like(regenerated, { changed: true, flipped: false });
  t.like(regenerated.conditions[0], { observedGeneration: 2, lastTransitionTime: T0 });
  const flipped = setMetaCondition([...regenerated.conditions, { type: 'Other', status: 'True', reason: 'X', message: '', lastTransitionTime: T0 }], { type: 'Valid', status: 'False', reason: 'Bad', message: 'why' }, 2, T2);
  t.like(flipped, { changed: true, flipped: true });
  // Updated in place: the list keeps its order.
  t.deepEqual(flipped.conditions.map((c) => [c.type, c.status, c.lastTransitionTime]), [['Valid', 'False', T2], ['Other', 'True', T0]]);
});
