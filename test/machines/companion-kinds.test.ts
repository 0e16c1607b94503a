// BareMetalHost's companion kinds (issue 31.3): declared as companions (one folder each), sharded
// with their host, waking it through the dependents index; and the pure rules the host's actor
// keeps them by: the FirmwareSchema name, the HostFirmwareSettings status, the intent.
import test from 'ava';
import type { FirmwareSchema, HostFirmwareComponents, HostFirmwareSettings, HostUpdatePolicy } from '../../src/api/index.ts';
import { DependentsIndex } from '../../src/actors/shard/dependents-index.ts';
import { COMPANION_KINDS, companionNamed, CUSTOM_RESOURCES, KINDS, kindCalled, kindNamed } from '../../src/machines/kinds.ts';
import { firmwareIntentOf } from '../../src/machines/host-firmware-settings/firmware-intent.ts';
import { settingsStatus } from '../../src/machines/host-firmware-settings/settings-status.ts';
import { firmwareSchemaName, firmwareSchemasHashed, firmwareSchemaSpec } from '../../src/machines/firmware-schema/schema-name.ts';
import { componentsStatus } from '../../src/machines/host-firmware-components/components-status.ts';

const meta = { name: 'h1', namespace: 'lab', generation: 2 };
const REGISTRY = {
  ProcTurboMode: { attribute_type: 'Enumeration' as const, allowable_values: ['Enabled', 'Disabled'] },
  NumCores: { attribute_type: 'Integer' as const, lower_bound: 0, upper_bound: 64 },
  AdminPassword: { attribute_type: 'Password' as const },
};
const hfs = (spec: Record<string, string | number>, status?: Record<string, string>): HostFirmwareSettings => ({
  apiVersion: 'metal3.io/v1alpha1', kind: 'HostFirmwareSettings', metadata: meta, spec: { settings: spec },
  ...(status ? { status: { settings: status } } : {}),
});
const schema: FirmwareSchema = { apiVersion: 'metal3.io/v1alpha1', kind: 'FirmwareSchema', metadata: { name: 'schema-x', namespace: 'lab' }, spec: { schema: REGISTRY } };
const hfc: HostFirmwareComponents = { apiVersion: 'metal3.io/v1alpha1', kind: 'HostFirmwareComponents', metadata: meta, spec: { updates: [{ component: 'bios', url: 'https://fw/bios.bin' }] } };
const hup: HostUpdatePolicy = { apiVersion: 'metal3.io/v1alpha1', kind: 'HostUpdatePolicy', metadata: meta, spec: { firmwareSettings: 'onReboot' } };

test('companion kinds - each is declared once, with its own CRD, and found by kubectl\'s names; none is a kind an actor runs', (t) => {
  t.deepEqual(COMPANION_KINDS.map((k) => k.kind), ['HardwareData', 'FirmwareSchema', 'HostFirmwareSettings', 'HostFirmwareComponents', 'HostUpdatePolicy']);
  for (const k of COMPANION_KINDS) {
    t.is(k.resources[0].kind, k.kind);
    t.is(k.hostKind, 'BareMetalHost');
    t.is(kindNamed(k.kind), undefined, `${k.kind} runs no actor of its own`);
    t.true(CUSTOM_RESOURCES.includes(k.resources[0]));
  }
  t.is(kindCalled('hfs')?.kind, 'HostFirmwareSettings');
  t.is(kindCalled('hardwaredata')?.kind, 'HardwareData');
  t.is(kindCalled('hd')?.kind, 'HardwareData');
  t.is(kindCalled('HostUpdatePolicies')?.kind, 'HostUpdatePolicy');
});

test('companion kinds - each lives on its host\'s shard (its shard key is the host\'s), the shared FirmwareSchema on its own', (t) => {
  const host = kindNamed('BareMetalHost')!;
  const object = { metadata: { name: 'h1', namespace: 'lab' } };
  for (const kind of ['HardwareData', 'HostFirmwareSettings', 'HostFirmwareComponents', 'HostUpdatePolicy']) {
    t.is(companionNamed(kind)!.shardKey(object), host.shardKey(object), kind);
    t.deepEqual(companionNamed(kind)!.hostsOf(object), ['lab/h1']);
  }
  const fs = { metadata: { name: 'schema-0123abcd', namespace: 'lab', ownerReferences: [{ kind: 'HostFirmwareSettings', name: 'h1' }, { kind: 'HostFirmwareSettings', name: 'h2' }] } };
  t.is(companionNamed('FirmwareSchema')!.shardKey(fs), 'lab/schema-0123abcd');
  // Its users name it in their status; it names none of them (firmware-schema/kind.ts).
  t.deepEqual(companionNamed('FirmwareSchema')!.hostsOf(fs), []);
});

test('companion kinds - a change of a host\'s settings, components or policy wakes that host through the dependents index; HardwareData and schemas wake nobody', (t) => {
  const index = new DependentsIndex(KINDS);
  for (const name of ['h1', 'h2']) index.apply({ kind: 'BareMetalHost', key: `lab/${name}`, object: { metadata: { name, namespace: 'lab' } } });
  for (const kind of ['HostFirmwareSettings', 'HostFirmwareComponents', 'HostUpdatePolicy']) {
    const wakes = index.apply({ kind, key: 'lab/h1', object: { metadata: { name: 'h1', namespace: 'lab' } } });
    t.deepEqual([...(wakes.get('BareMetalHost') ?? [])], ['lab/h1'], kind);
    // Its deletion wakes the host too: it no longer asks anything.
    t.deepEqual([...(index.apply({ kind, key: 'lab/h1', object: null }).get('BareMetalHost') ?? [])], ['lab/h1'], `${kind} deleted`);
  }
  t.false(index.tracks('HardwareData'));
  t.false(index.tracks('FirmwareSchema'));
});

test('firmware schema - named by its contents: the same registry in any order, another for another, as schema-<8 hex>', (t) => {
  const reordered = { NumCores: REGISTRY.NumCores, AdminPassword: REGISTRY.AdminPassword, ProcTurboMode: REGISTRY.ProcTurboMode };
  t.regex(firmwareSchemaName(REGISTRY), /^schema-[0-9a-f]{8}$/);
  t.is(firmwareSchemaName(reordered), firmwareSchemaName(REGISTRY));
  t.not(firmwareSchemaName({ ...REGISTRY, NumCores: { ...REGISTRY.NumCores, upper_bound: 128 } }), firmwareSchemaName(REGISTRY));
  // Kept without password settings, with the hardware it is for.
  const spec = firmwareSchemaSpec({ settings: {}, schema: REGISTRY, vendor: 'Dell', model: 'R640' });
  t.deepEqual(Object.keys(spec?.schema ?? {}).sort(), ['NumCores', 'ProcTurboMode']);
  t.like(spec, { hardwareVendor: 'Dell', hardwareModel: 'R640' });
  t.is(firmwareSchemaSpec({ settings: {} }), null);
});

// Issue 30: every host of a model reads the registry its backend keeps for that model.
test('firmware schema - one registry object is hashed and stripped of passwords once, however many hosts read it; another object of the same contents gets the same name', (t) => {
  const registry = { ...REGISTRY };
  const before = firmwareSchemasHashed();
  const specs = Array.from({ length: 5 }, () => firmwareSchemaSpec({ settings: {}, schema: registry, vendor: 'Dell', model: 'R640' }));
  const names = specs.map((spec) => firmwareSchemaName(spec?.schema ?? {}));
  t.is(firmwareSchemasHashed() - before, 1);
  t.true(specs.every((spec) => spec?.schema === specs[0]?.schema), 'one stored form for the one registry');
  t.is(new Set(names).size, 1);
  const copy = { ...specs[0]?.schema };
  t.is(firmwareSchemaName(copy), names[0] ?? 'none');
  t.is(firmwareSchemasHashed() - before, 2, 'a new object is hashed: its contents may differ');
  t.deepEqual(Object.keys(firmwareSchemaSpec({ settings: {}, schema: copy })?.schema ?? {}).sort(), ['NumCores', 'ProcTurboMode']);
});

test('settings status - a firmware read: the host\'s settings without passwords, the schema, and BMO\'s conditions; unchanged, nothing is written', (t) => {
  const ref = { name: 'schema-x', namespace: 'lab' };
  const report = { settings: { ProcTurboMode: 'Enabled', NumCores: '8', AdminPassword: 'secret' }, schema: REGISTRY };
  const first = settingsStatus(hfs({}), report, ref, REGISTRY, '2026-12-05T06:00:00Z');
  t.deepEqual(first?.status.settings, { ProcTurboMode: 'Enabled', NumCores: '8' });
  t.deepEqual(first?.status.schema, ref);
  t.is(first?.status.lastUpdated, '2026-12-05T06:00:00Z');
  t.deepEqual(first?.status.conditions?.map((c) => [c.type, c.status, c.reason, c.observedGeneration]), [['Valid', 'True', 'Success', 2], ['ChangeDetected', 'False', 'Success', 2]]);
  // The same read again: BMO writes nothing.
  t.is(settingsStatus({ ...hfs({}), status: first!.status }, report, ref, REGISTRY, '2026-12-05T06:05:00Z'), null);

  // A wanted setting that differs: ChangeDetected; valid for the schema.
  const asked = settingsStatus({ ...hfs({ ProcTurboMode: 'Disabled' }), status: first!.status }, report, ref, REGISTRY, '2026-12-05T06:10:00Z');
  t.like(asked?.status.conditions?.find((c) => c.type === 'ChangeDetected'), { status: 'True', reason: 'Success', lastTransitionTime: '2026-12-05T06:10:00Z' });
  // Valid did not change: its transition time stays.
  t.like(asked?.status.conditions?.find((c) => c.type === 'Valid'), { status: 'True', lastTransitionTime: '2026-12-05T06:00:00Z' });
  // An invalid one: Valid False with BMO's reason and message, and why.
  const bad = settingsStatus({ ...hfs({ NumCores: 99 }), status: first!.status }, report, ref, REGISTRY, '2026-12-05T06:15:00Z');
  t.like(bad?.status.conditions?.find((c) => c.type === 'Valid'), { status: 'False', reason: 'ConfigurationError', message: 'Invalid BIOS setting' });
  t.is(bad?.invalid.length, 1);
  t.regex(bad?.invalid[0] ?? '', /NumCores/);
});

test('components status - the components the backend lists, written when they changed', (t) => {
  const components = [{ component: 'bios', initialVersion: '1.0', currentVersion: '1.1' }];
  const status = componentsStatus(hfc, components, '2026-12-05T06:00:00Z');
  t.deepEqual(status, { components, lastUpdated: '2026-12-05T06:00:00Z' });
  t.is(componentsStatus({ ...hfc, status: status! }, components, '2026-12-05T06:01:00Z'), null);
});

test('firmware intent - settings the host does not have yet, only when all are valid; the updates; what the policy allows on reboot', (t) => {
  const current = { ProcTurboMode: 'Enabled', NumCores: '8' };
  t.deepEqual(firmwareIntentOf(hfs({ ProcTurboMode: 'Disabled', NumCores: 8 }, current), hfc, hup, schema), {
    settings: { ProcTurboMode: 'Disabled' },
    updates: [{ component: 'bios', url: 'https://fw/bios.bin' }],
    valid: true,
    onReboot: { settings: true, updates: false },
  });
  // One invalid setting: nothing is asked, and the intent says it is not valid.
  t.like(firmwareIntentOf(hfs({ ProcTurboMode: 'Disabled', NumCores: 99 }, current), undefined, undefined, schema), { settings: {}, valid: false, updates: [] });
  // A setting the host does not have is invalid (BMO: not in the Status field).
  t.false(firmwareIntentOf(hfs({ Unknown: 'x' }, current), undefined, undefined, schema).valid);
  // Not read yet (no status, no schema): nothing can be judged, so nothing is asked, not even a bad one.
  t.like(firmwareIntentOf(hfs({ ProcTurboMode: 'Disabled', NumCores: 99 }), hfc, undefined, undefined), { settings: {}, updates: [{ component: 'bios', url: 'https://fw/bios.bin' }] });
  // No companions: nothing asked, nothing allowed on reboot.
  t.deepEqual(firmwareIntentOf(undefined, undefined, undefined, undefined), { settings: {}, updates: [], valid: true, onReboot: { settings: false, updates: false } });
});
