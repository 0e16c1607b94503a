// BMO's companion kinds: the schemas read BMO's samples (as its Go types read them), and the
// settings, component and URL rules give BMO's verdicts in BMO's words
// (firmwareschema_types.go SettingSchema.Validate, hostfirmwaresettings_controller.go,
// hostfirmwarecomponents_types.go, internal/webhooks/.../hostfirmwarecomponents_validation.go).
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import test from 'ava';
import { parse } from 'yaml';
import {
  BMH_COMPANION_RESOURCES, FirmwareSchema, HostFirmwareSettings, componentNameError, settingValueError, updateUrlError,
  validateObject, validateSettings, validateUpdateComponents, validatedKindOf,
} from '../../src/api/index.ts';
import type { SettingSchema } from '../../src/api/index.ts';
import { ROOT } from '../cli/run.ts';

type Obj = Record<string, unknown>;

const FIXTURES = join(ROOT, 'test/fixtures/bmo-companions');
const fixture = async (name: string): Promise<Obj> => parse(await readFile(join(FIXTURES, name), 'utf8')) as Obj;

const FILES = ['hardwaredata.yaml', 'firmwareschema.yaml', 'hostfirmwaresettings.yaml', 'hostfirmwarecomponents.yaml', 'hostupdatepolicy.yaml'];

test('bmh companions - each kind\'s schema reads BMO\'s sample, and validation finds nothing wrong with it', async (t) => {
  t.deepEqual(BMH_COMPANION_RESOURCES.map((r) => r.kind), ['HardwareData', 'FirmwareSchema', 'HostFirmwareSettings', 'HostFirmwareComponents', 'HostUpdatePolicy']);
  for (const [i, file] of FILES.entries()) {
    const object = await fixture(file);
    const resource = BMH_COMPANION_RESOURCES[i];
    t.is(object.kind, resource?.kind, file);
    const read = resource?.schema.safeParse(object);
    t.true(read?.success, `${file}: ${JSON.stringify(read?.error?.issues)}`);
    t.deepEqual(validateObject(object), { kind: object.kind, errors: [] }, file);
  }
  // What the schemas make of the values: int-or-string kept as written, the registry's rules typed.
  const schema = FirmwareSchema.parse(await fixture('firmwareschema.yaml'));
  t.deepEqual(schema.spec?.schema.ProcCPUCores, { attribute_type: 'Integer', lower_bound: 1, upper_bound: 100, read_only: true });
  const hfs = HostFirmwareSettings.parse({ ...(await fixture('hostfirmwaresettings.yaml')), spec: { settings: { NetworkBootRetryCount: 20, SRIOV: 'Enabled' } } });
  t.deepEqual(hfs.spec?.settings, { NetworkBootRetryCount: 20, SRIOV: 'Enabled' });
});

const INTEGER: SettingSchema = { attribute_type: 'Integer', lower_bound: 1, upper_bound: 100 };
const STRING: SettingSchema = { attribute_type: 'String', min_length: 3, max_length: 16 };

// Each of SettingSchema.Validate's refusals, with BMO's message.
const REFUSED: readonly [string, string | number, SettingSchema, string][] = [
  ['ProcCPUCores', '10', { ...INTEGER, read_only: true }, 'Setting ProcCPUCores is invalid, it is ReadOnly'],
  ['AdminPassword', 'x', { attribute_type: 'String' }, 'Setting AdminPassword is invalid, Password fields can\'t be set'],
  ['ProcVirtualization', 'Maybe', { attribute_type: 'Enumeration', allowable_values: ['Enabled', 'Disabled'] }, 'Setting ProcVirtualization is invalid, unknown enumeration value - Maybe'],
  ['BootMode', 1, { attribute_type: 'Enumeration', allowable_values: ['Uefi'] }, 'Setting BootMode is invalid, unknown enumeration value - 1'],
  ['Cores', 'ten', INTEGER, 'Setting Cores is invalid, String ten entered while integer expected'],
  ['Cores', '9223372036854775808', INTEGER, 'Setting Cores is invalid, String 9223372036854775808 entered while integer expected'],
  ['Cores', 0, INTEGER, 'Setting Cores is invalid, integer 0 is below minimum value 1'],
  ['Cores', '101', INTEGER, 'Setting Cores is invalid, integer 101 is above maximum value 100'],
  ['Cores', '-5', INTEGER, 'Setting Cores is invalid, integer -5 is below minimum value 1'],
  ['Asset', 'ab', STRING, 'Setting Asset is invalid, string ab length is below minimum length 3'],
  ['Asset', '12345678901234567', STRING, 'Setting Asset is invalid, string 12345678901234567 length is above maximum length 16'],
  // Go's len() counts bytes: 6 two-byte letters are 12 bytes, over 10.
  ['Asset', 'éééééé', { attribute_type: 'String', max_length: 10 }, 'Setting Asset is invalid, string éééééé length is above maximum length 10'],
  ['Turbo', 'yes', { attribute_type: 'Boolean' }, 'Setting Turbo is invalid, yes is not a boolean'],
  ['Turbo', 'True', { attribute_type: 'Boolean' }, 'Setting Turbo is invalid, True is not a boolean'],
  ['BootPin', '1234', { attribute_type: 'Password' }, 'Setting BootPin is invalid, passwords are immutable'],
];

const ACCEPTED: readonly [string, string | number, SettingSchema][] = [
  ['ProcVirtualization', 'Enabled', { attribute_type: 'Enumeration', allowable_values: ['Enabled', 'Disabled'] }],
  ['Cores', 100, INTEGER],
  ['Cores', '+05', INTEGER],
  ['Asset', 'abc', STRING],
  ['Turbo', 'false', { attribute_type: 'Boolean' }],
  // No type: BMO allows the set, the BIOS registry may not have said.
  ['SRIOV', 'anything', { allowable_values: ['Enabled', 'Disabled'] }],
];

test('bmh companions - a setting\'s value is refused as SettingSchema.Validate refuses it, in its words', (t) => {
  for (const [name, value, schema, message] of REFUSED) t.is(settingValueError(name, value, schema), message, `${name}=${value}`);
  for (const [name, value, schema] of ACCEPTED) t.is(settingValueError(name, value, schema), null, `${name}=${value}`);
});

test('bmh companions - validateSettings: BMO\'s controller checks against the schema and the host\'s settings, one error per setting', async (t) => {
  const schema = FirmwareSchema.parse(await fixture('firmwareschema.yaml')).spec?.schema;
  const hfs = HostFirmwareSettings.parse(await fixture('hostfirmwaresettings.yaml'));
  // BMO's own sample wants NetworkBootRetryCount, which its sample schema does not have: BMO's
  // controller would set Valid False (ConfigurationError) on it too.
  t.deepEqual(validateSettings(hfs.spec?.settings ?? {}, schema, hfs.status?.settings), [
    { path: 'spec.settings.NetworkBootRetryCount', reason: 'Setting NetworkBootRetryCount is invalid, it is not in the associated schema', type: 'NotSupported' },
  ]);
  const wanted = { SRIOV: 'Enabled', ProcCPUCores: 8, 'Proc.Turbo': 'On', BiosPassword: 'x', ProcVirtualization: 'Maybe', SerialNumber: '12345678901234567' };
  const current = { SRIOV: 'Disabled', ProcCPUCores: '100', ProcVirtualization: 'Enabled', SerialNumber: '22654891' };
  t.deepEqual(validateSettings(wanted, schema, current), [
    { path: 'spec.settings.BiosPassword', reason: 'cannot set Password field', type: 'Forbidden' },
    // In name order, code unit by code unit: "." sorts before letters.
    { path: 'spec.settings[Proc.Turbo]', reason: 'setting Proc.Turbo is not in the Status field', type: 'NotSupported' },
    { path: 'spec.settings.ProcCPUCores', reason: 'Setting ProcCPUCores is invalid, it is ReadOnly', type: 'Invalid' },
    { path: 'spec.settings.ProcVirtualization', reason: 'Setting ProcVirtualization is invalid, unknown enumeration value - Maybe', type: 'Invalid' },
    { path: 'spec.settings.SerialNumber', reason: 'Setting SerialNumber is invalid, string 12345678901234567 length is above maximum length 16', type: 'Invalid' },
  ]);
  // Without a registry (schema nil in BMO) only the Password and status checks remain.
  t.deepEqual(validateSettings(wanted, undefined, current).map((e) => e.path), ['spec.settings.BiosPassword', 'spec.settings[Proc.Turbo]']);
  t.deepEqual(validateSettings({ SRIOV: 'Enabled' }, schema, current), []);
});

test('bmh companions - component names: bios, bmc and nic:<id> only, in BMO\'s words; the URL as BMO\'s webhook checks it', (t) => {
  for (const ok of ['bios', 'bmc', 'nic:', 'nic:AD0700']) t.is(componentNameError(ok), null, ok);
  t.is(componentNameError('BIOS'), 'component BIOS is invalid, only \'bmc\', \'bios\', or names starting with \'nic:\' are allowed as update names');
  t.deepEqual(validateUpdateComponents([{ component: 'bios', url: 'http://f/1' }, { component: 'raid', url: 'http://f/2' }]), [
    { path: 'spec.updates[1].component', reason: 'component raid is invalid, only \'bmc\', \'bios\', or names starting with \'nic:\' are allowed as update names', type: 'NotSupported' },
  ]);
  // BMO's webhook test cases (hostfirmwarecomponents_validation_test.go), word for word.
  t.is(updateUrlError({ component: 'test1', url: 'abc' }), 'invalid URL "abc" in FirmwareUpdate in component "test1": parse "abc": invalid URI for request');
  t.is(updateUrlError({ component: 'test1', url: 'unix://example.com' }), 'invalid URL "unix://example.com" in FirmwareUpdate in component "test1": invalid scheme in URL, "unix" not allowed');
  t.is(updateUrlError({ component: 'test1', url: '' }), 'invalid URL "" in FirmwareUpdate in component "test1": parse "": empty url');
  t.is(updateUrlError({ component: '', url: 'http://example.com' }), null);
  for (const scheme of ['http', 'https', 'ftp', 'gopher', 'oci']) t.is(updateUrlError({ component: 'bmc', url: `${scheme}://fw.example.com/bmc.bin` }), null, scheme);
  // A password in the URL is never repeated.
  const withCredentials = updateUrlError({ component: 'bios', url: 'file://admin:s3cret@fw.example.com/bios.bin' });
  t.regex(withCredentials ?? '', /invalid scheme in URL, "file" not allowed/);
  t.false(withCredentials?.includes('s3cret'));
  // Nor one holding a "/", which Go reads as the end of the host: its start would be the "port".
  const slashed = updateUrlError({ component: 'bios', url: 'http://admin:pw/Fw8-secret@fw.example.com/bios.bin' });
  t.is(slashed, 'invalid URL "http://xxxxx@fw.example.com/bios.bin" in FirmwareUpdate in component "bios": parse "http://xxxxx@fw.example.com/bios.bin": invalid port "xxxxx" after host');
});

test('bmh companions - validateObject: each kind refused on the field at fault, with BMO\'s message', async (t) => {
  const hfc = await fixture('hostfirmwarecomponents.yaml');
  const badUrl = { ...hfc, spec: { updates: [{ component: 'bios', url: 'https://fw/bios.bin' }, { component: 'bmc', url: 'abc' }, { component: 'nic:1' }] } };
  t.deepEqual(validateObject(badUrl), {
    kind: 'HostFirmwareComponents',
    errors: [
      { path: 'spec.updates[2].url', reason: 'Required value', type: 'Required' },
      { path: 'spec.updates[1].url', reason: 'invalid URL "abc" in FirmwareUpdate in component "bmc": parse "abc": invalid URI for request', type: 'Invalid' },
    ],
  });
  // An unknown component is the controller's to report (the Valid condition), not admission's, as in BMO.
  t.deepEqual(validateObject({ ...hfc, spec: { updates: [{ component: 'raid', url: 'http://fw/raid.bin' }] } })?.errors, []);
  const cases: [Obj, string[]][] = [
    [{ ...(await fixture('hostupdatepolicy.yaml')), spec: { firmwareSettings: 'always' } }, ['spec.firmwareSettings: Unsupported value: "always": supported values: "onPreparing", "onReboot"']],
    [{ ...(await fixture('hostfirmwaresettings.yaml')), spec: { settings: [{ SRIOV: 'Enabled' }] } }, ['spec.settings: Invalid value: object: must be of type object']],
    [{ ...(await fixture('hostfirmwaresettings.yaml')), spec: { settings: { SRIOV: true } } }, ['spec.settings.SRIOV: Invalid input']],
    [{ ...(await fixture('firmwareschema.yaml')), spec: { schema: { SRIOV: { attribute_type: 'Enum' } } } }, ['spec.schema.SRIOV.attribute_type: Unsupported value: "Enum": supported values: "Enumeration", "String", "Integer", "Boolean", "Password"']],
    [{ ...(await fixture('firmwareschema.yaml')), spec: { hardwareVendor: 'VendorA' } }, ['spec.schema: Required value']],
    [{ ...(await fixture('hardwaredata.yaml')), spec: { hardware: { ramMebibytes: 'lots' } } }, ['spec.hardware.ramMebibytes: Invalid value: "lots": must be of type integer']],
    [{ ...(await fixture('hostupdatepolicy.yaml')), metadata: { name: 'Bad_Name' } }, ['metadata.name']],
  ];
  for (const [object, expected] of cases) {
    const errors = (validateObject(object)?.errors ?? []).map((e) => `${e.path}: ${e.reason}`);
    t.is(errors.length, expected.length, `${String(object.kind)}: ${JSON.stringify(errors)}`);
    for (const [i, want] of expected.entries()) t.true(errors[i]?.startsWith(want), `${String(object.kind)}: ${errors[i]} should start with ${want}`);
  }
  // BMO's FirmwareSchema sample has `spec:` with no value: the API server prunes the null, and so does validation.
  t.deepEqual(validateObject({ apiVersion: 'metal3.io/v1alpha1', kind: 'FirmwareSchema', metadata: { name: 's' }, spec: null })?.errors, []);
});

test('bmh companions - a companion kind of another metal3.io version is ours and its apiVersion is named; of another group it is not', (t) => {
  t.is(validatedKindOf({ apiVersion: 'metal3.io/v1alpha1', kind: 'HostFirmwareSettings' }), 'HostFirmwareSettings');
  t.is(validatedKindOf({ apiVersion: 'example.com/v1', kind: 'HostFirmwareSettings' }), null);
  const result = validateObject({ apiVersion: 'metal3.io/v1beta1', kind: 'HostUpdatePolicy', metadata: { name: 'p' } });
  t.is(result?.kind, 'HostUpdatePolicy');
  t.deepEqual(result?.errors.map((e) => e.path), ['apiVersion']);
});
