// HostFirmwareComponents after a user edits spec.updates that were already flashed. BMO's
// hostfirmwarecomponents_controller.go sets ChangeDetected from reflect.DeepEqual(status.updates,
// spec.updates) (order matters; both empty: no change), and its next preparing or servicing copies
// spec.updates into status.updates whole (saveHostFirmwareComponents), an empty list too, which
// turns ChangeDetected False. Here nothing is left to flash, so no preparing runs for it: the
// judgement records what that step would, and ChangeDetected must not stay True until a flash.
import test from 'ava';
import type { FirmwareUpdate, HostFirmwareComponents, HostFirmwareComponentsStatus, MetaCondition } from '../../src/api/index.ts';
import { componentsUpdatesStatus } from '../../src/machines/host-firmware-components/updates-status.ts';
import { firmwareIntentOf } from '../../src/machines/host-firmware-settings/firmware-intent.ts';
import { preparingChanges } from '../../src/machines/bmh/firmware-intent.ts';

const T0 = '2026-12-07T10:00:00Z';
const T1 = '2026-12-07T10:05:00Z';
const bios = { component: 'bios', url: 'https://fw/bios-2.0.bin' };
const bmc = { component: 'bmc', url: 'https://fw/bmc-5.1.bin' };
const components = [{ component: 'bios', initialVersion: '1.0', currentVersion: '2.0' }];

const hfc = (updates: FirmwareUpdate[], status?: HostFirmwareComponentsStatus, generation = 2): HostFirmwareComponents => ({
  apiVersion: 'metal3.io/v1alpha1', kind: 'HostFirmwareComponents', metadata: { name: 'h1', namespace: 'lab', generation }, spec: { updates },
  ...(status ? { status } : {}),
});
const changeDetected = (status: HostFirmwareComponentsStatus | undefined): MetaCondition | undefined => status?.conditions?.find((c) => c.type === 'ChangeDetected');

// bios and bmc flashed by a finished preparing: status.updates [bios, bmc], ChangeDetected False.
const flashed = (): HostFirmwareComponentsStatus => {
  const status = componentsUpdatesStatus(hfc([bios, bmc]), { components, applied: [bios, bmc] }, T0)?.status;
  if (!status) throw new Error('the flash recorded nothing');
  return status;
};

for (const [name, edited] of [['removed', [bios]], ['reordered', [bmc, bios]], ['emptied', []]] as const) {
  test(`applied updates edited - ${name}: nothing to flash, status.updates is the spec as BMO's next step copies it, ChangeDetected False`, (t) => {
    const before = flashed();
    t.like(changeDetected(before), { status: 'False' });
    const spec = [...edited];
    // Nothing of the edited spec needs a flash, so no preparing runs to copy it.
    t.deepEqual(preparingChanges({ firmware: firmwareIntentOf(undefined, hfc(spec, before, 3), undefined, undefined), firmwareApplied: null }).updates, []);
    const change = componentsUpdatesStatus(hfc(spec, before, 3), {}, T1);
    t.deepEqual(change?.status.updates ?? [], spec);
    // omitempty, as BMO's Go type writes an emptied list.
    if (spec.length === 0) t.false(change !== null && 'updates' in change.status);
    t.like(changeDetected(change?.status), { status: 'False', reason: 'OK', observedGeneration: 3, lastTransitionTime: T0 });
    t.is(componentsUpdatesStatus(hfc(spec, change?.status, 3), {}, T1), null, 'judged again: nothing to write');
  });
}

test('applied updates edited - an update not flashed yet keeps the record as it is and ChangeDetected True (BMO compares exactly)', (t) => {
  const before = flashed();
  const newer = { component: 'bmc', url: 'https://fw/bmc-5.2.bin' };
  for (const spec of [[bios, newer], [newer], [bios, bmc, { component: 'nic:1', url: 'https://fw/nic.bin' }]]) {
    const change = componentsUpdatesStatus(hfc(spec, before, 3), {}, T1);
    t.deepEqual(change?.status.updates, [bios, bmc], 'the record still says what was flashed');
    t.like(changeDetected(change?.status), { status: 'True', lastTransitionTime: T1 });
  }
});
