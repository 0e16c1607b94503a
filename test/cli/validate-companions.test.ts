// `metalfleet validate` on BMO's companion kinds: BMO's samples (as its Go types read them) pass;
// each bad object is named (by name, else generateName or file and line) with the field at
// fault and BMO's words; a misspelled companion kind is caught as a typo.
import test from 'ava';
import { runValidate } from '../../src/cli/commands/validate.ts';

async function validate(paths: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const summary = await runValidate(paths, [], { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { out, err, summary };
}

test('validate companions - BMO\'s samples of every companion kind are valid', async (t) => {
  const dir = 'test/fixtures/bmo-companions';
  const r = await validate(['hardwaredata', 'firmwareschema', 'hostfirmwaresettings', 'hostfirmwarecomponents', 'hostupdatepolicy'].map((f) => `${dir}/${f}.yaml`));
  t.deepEqual(r.out, []);
  t.deepEqual(r.err, ['5 objects checked, 0 invalid']);
});

test('validate companions - each bad object names what and where, in BMO\'s words where BMO has them', async (t) => {
  const file = 'test/fixtures/validate/companions.yaml';
  const r = await validate([file]);
  t.deepEqual(r.out, [
    `${file}:9:5: HostFirmwareComponents default/worker-0: spec.updates[0].url: invalid URL "myfirmware/bios.bin" in FirmwareUpdate in component "bios": parse "myfirmware/bios.bin": invalid URI for request`,
    `${file}:11:5: HostFirmwareComponents default/worker-0: spec.updates[1].url: invalid URL "" in FirmwareUpdate in component "bmc": parse "": empty url`,
    `${file}:18:3: HostFirmwareSettings default/worker-0: spec.settings: Invalid value: object: must be of type object`,
    `${file}:26:3: HostUpdatePolicy default/worker-0: spec.firmwareSettings: Unsupported value: "onBoot": supported values: "onPreparing", "onReboot"`,
    `${file}:35:7: FirmwareSchema default/(generateName "schema-"): spec.schema.ProcVirtualization.attribute_type: Unsupported value: "Enum": supported values: "Enumeration", "String", "Integer", "Boolean", "Password"`,
    // metadata.name is not written: named at the object's start.
    `${file}:37:1: HardwareData (unnamed, document 5): metadata.name: Required value: name or generateName is required`,
    `${file}:42:5: HardwareData (unnamed, document 5): spec.hardware.ramMebibytes: Invalid value: 1.5: must be of type integer`,
    `${file}:45:1: HostFirmwareSetings default/typo: kind: HostFirmwareSetings is not one metalfleet knows; did you mean HostFirmwareSettings?`,
  ]);
  t.deepEqual(r.err, ['6 objects checked, 6 invalid']);
});
