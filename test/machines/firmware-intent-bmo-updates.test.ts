// HostFirmwareComponents as BMO's BareMetalHost controller takes them (baremetalhost_controller.go
// getHostFirmwareComponents and getUpdatesDifference): an update whose component BMO's
// ValidateHostFirmwareComponents refuses makes the HFC not Valid and none of its updates is sent;
// an update status.updates already records (same component, same URL) is not flashed again.
import test from 'ava';
import type { FirmwareUpdate, HostFirmwareComponents } from '../../src/api/index.ts';
import { firmwareIntentOf } from '../../src/machines/host-firmware-settings/firmware-intent.ts';
import { firmwareSchemaName } from '../../src/machines/firmware-schema/schema-name.ts';

const meta = { name: 'h1', namespace: 'lab', generation: 3 };
const hfc = (updates: FirmwareUpdate[], applied?: FirmwareUpdate[]): HostFirmwareComponents => ({
  apiVersion: 'metal3.io/v1alpha1', kind: 'HostFirmwareComponents', metadata: meta, spec: { updates },
  ...(applied ? { status: { updates: applied } } : {}),
});
const bios = { component: 'bios', url: 'https://fw/bios-2.0.bin' };
const bmc = { component: 'bmc', url: 'https://fw/bmc-5.1.bin' };

test('firmware intent - an update of a component BMO does not know (not bios, bmc or nic:<id>) sends no update at all', (t) => {
  const intent = firmwareIntentOf(undefined, hfc([bios, { component: 'raid', url: 'https://fw/raid.bin' }]), undefined, undefined);
  t.deepEqual(intent.updates, []);
  // nic:<id> is a component BMO knows.
  t.deepEqual(firmwareIntentOf(undefined, hfc([{ component: 'nic:NIC.Slot.1-1', url: 'https://fw/nic.bin' }]), undefined, undefined).updates, [{ component: 'nic:NIC.Slot.1-1', url: 'https://fw/nic.bin' }]);
});

test('firmware intent - updates status.updates already records are not flashed again; a new URL for a component is', (t) => {
  // Every update applied (as BMO records it after preparing): nothing to send.
  t.deepEqual(firmwareIntentOf(undefined, hfc([bios, bmc], [bios, bmc]), undefined, undefined).updates, []);
  // The bmc's URL changed: only the bmc is flashed.
  const newer = { component: 'bmc', url: 'https://fw/bmc-5.2.bin' };
  t.deepEqual(firmwareIntentOf(undefined, hfc([bios, newer], [bios, bmc]), undefined, undefined).updates, [newer]);
  // An applied update the spec no longer lists changes nothing to send.
  t.deepEqual(firmwareIntentOf(undefined, hfc([bios], [bios, bmc]), undefined, undefined).updates, []);
});

test('firmware schema - named as BMO names the registry of its own controller test (schema-4bcc035f)', (t) => {
  // hostfirmwaresettings_test.go getCurrentSchemaSettings, with its schemaName.
  const string = (rest: object) => ({ attribute_type: 'String' as const, min_length: 0, max_length: 20, ...rest });
  const registry = {
    AssetTag: string({ unique: true }),
    CustomPostMessage: string({ unique: false, read_only: false }),
    L2Cache: string({ read_only: true }),
    NetworkBootRetryCount: { attribute_type: 'Integer' as const, lower_bound: 0, upper_bound: 20, read_only: false },
    ProcVirtualization: { attribute_type: 'Enumeration' as const, allowable_values: ['Enabled', 'Disabled'], read_only: false },
    SecureBoot: { attribute_type: 'Enumeration' as const, allowable_values: ['Enabled', 'Disabled'], read_only: true },
  };
  t.is(firmwareSchemaName(registry), 'schema-4bcc035f');
});
