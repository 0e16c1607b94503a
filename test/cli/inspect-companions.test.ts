// `metalfleet inspect` of a BareMetalHost shows its companions (issue 31.3), one line each.
import test from 'ava';
import { companionLines } from '../../src/cli/introspect/views.ts';

test('inspect companions - HardwareData, settings (valid, changes, schema), components and policy, and what is absent', (t) => {
  const lines = companionLines({
    hardwareData: true,
    settings: { reported: 6, asked: 1, valid: false, changeDetected: true, schema: 'schema-0123abcd' },
    components: { versions: [{ component: 'bios', version: '1.1' }, { component: 'bmc', version: '1.0' }], updatesAsked: 1 },
    updatePolicy: { firmwareSettings: 'onReboot' },
  });
  t.deepEqual(lines, [
    '  HardwareData:           present',
    '  HostFirmwareSettings:   6 reported, 1 asked; valid no, changes yes; schema schema-0123abcd',
    '  HostFirmwareComponents: bios 1.1, bmc 1.0; 1 update(s) asked',
    '  HostUpdatePolicy:       firmwareSettings onReboot, firmwareUpdates onPreparing',
  ]);
  t.deepEqual(companionLines({ hardwareData: false }), [
    '  HardwareData:           none',
    '  HostFirmwareSettings:   none',
    '  HostFirmwareComponents: none',
    '  HostUpdatePolicy:       none (changes only while preparing)',
  ]);
});
