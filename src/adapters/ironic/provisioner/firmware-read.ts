import type { FirmwareComponentStatus, FirmwareReport, SettingSchema } from '../../../api/index.ts';
import type { OpResult } from '../../../machines/bmh/index.ts';
import type { HostData } from '../../../ports/index.ts';
import type { BiosSetting, FirmwareComponent, IronicNode } from '../client/index.ts';
import { versionSupports } from '../client/index.ts';
import type { StepContext } from './context.ts';
import { findNode } from './find-node.ts';
import { done, needsRegistration } from './outcome.ts';

// A host's firmware as Ironic knows it (BMO's GetFirmwareSettings and GetFirmwareComponents,
// pkg/provisioner/ironic/ironic.go): the cached BIOS settings, their registry where this Ironic
// (1.74) and the BMC give one, the vendor and model the schema is known by, and the firmware
// components where this Ironic (1.86) lists them.
export async function readFirmware(ctx: StepContext, host: HostData): Promise<OpResult> {
  const node = await findNode(ctx, host);
  if (!node) return needsRegistration;
  const { version } = await ctx.client.negotiated();
  const registry = versionSupports(version, 'bios-registry');
  const bios = await ctx.client.getBiosSettings(node.uuid, { registry });
  const schema = registry ? schemaOf(bios) : undefined;
  const components = versionSupports(version, 'firmware-interface') ? componentsOf(await ctx.client.getFirmwareComponents(node.uuid)) : undefined;
  const report: FirmwareReport = {
    settings: Object.fromEntries(bios.filter(shown).map((s) => [s.name, s.value ?? ''])),
    ...(schema ? { schema } : {}),
    ...(await hardwareOf(ctx, node)),
    ...(components ? { components } : {}),
  };
  return done({ firmware: report });
}

// BMO's HostFirmwareSettings controller keeps password settings out of status and schema: a
// BMC may hand their (encrypted) values back, and status is no place for them.
function shown(s: BiosSetting): boolean {
  return !s.name.includes('Password') && s.attribute_type !== 'Password';
}

const ATTRIBUTE_TYPES = new Set(['Enumeration', 'String', 'Integer', 'Boolean', 'Password']);

// A BMC without a registry leaves every registry field null: there is then no schema, not an empty one.
function schemaOf(bios: readonly BiosSetting[]): Record<string, SettingSchema> | undefined {
  if (!bios.some((s) => s.attribute_type != null)) return undefined;
  const schema: Record<string, SettingSchema> = {};
  for (const s of bios.filter(shown)) {
    const type = s.attribute_type != null && ATTRIBUTE_TYPES.has(s.attribute_type) ? (s.attribute_type as SettingSchema['attribute_type']) : undefined;
    schema[s.name] = {
      ...(type ? { attribute_type: type } : {}),
      ...(s.allowable_values != null ? { allowable_values: s.allowable_values } : {}),
      ...(s.lower_bound != null ? { lower_bound: s.lower_bound } : {}),
      ...(s.upper_bound != null ? { upper_bound: s.upper_bound } : {}),
      ...(s.min_length != null ? { min_length: s.min_length } : {}),
      ...(s.max_length != null ? { max_length: s.max_length } : {}),
      ...(s.read_only != null ? { read_only: s.read_only } : {}),
      ...(s.unique != null ? { unique: s.unique } : {}),
    };
  }
  return schema;
}

// BMO reports bios, bmc and NICs only (metal3api.NICComponentPrefix "nic:").
function componentsOf(list: readonly FirmwareComponent[]): FirmwareComponentStatus[] {
  return list
    .filter((c) => c.component === 'bios' || c.component === 'bmc' || c.component.startsWith('nic:'))
    .map((c) => ({
      component: c.component,
      initialVersion: c.initial_version,
      ...(c.current_version != null ? { currentVersion: c.current_version } : {}),
      ...(c.last_version_flashed != null ? { lastVersionFlashed: c.last_version_flashed } : {}),
      ...(c.updated_at != null ? { updatedAt: c.updated_at } : {}),
    }));
}

// BMO names a FirmwareSchema's hardware by the host's inspected system vendor
// (hostfirmwaresettings_controller.go getOrCreateFirmwareSchema): the inventory's when inspection
// stored one, else what out-of-band inspection left in the node's properties.
async function hardwareOf(ctx: StepContext, node: IronicNode): Promise<{ vendor?: string; model?: string }> {
  // Only an inspection stores an inventory: a node never inspected (every host enrolled with
  // inspection disabled) would answer 404, one request per host for nothing (issue 30).
  const stored = node.inspection_finished_at === null ? null : (await ctx.client.getInventory(node.uuid)) as { inventory?: { system_vendor?: { manufacturer?: unknown; product_name?: unknown } } } | null;
  const sv = stored?.inventory?.system_vendor;
  const props = node.properties ?? {};
  const vendor = text(sv?.manufacturer) ?? text(props['vendor']);
  const model = text(sv?.product_name) ?? text(props['model']);
  return { ...(vendor ? { vendor } : {}), ...(model ? { model } : {}) };
}

function text(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}
