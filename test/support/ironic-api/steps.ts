import { firmwareVersionFromUrl } from './firmware-version.ts';
import type { BiosRegistry, NodeRecord } from './node.ts';
import { pyRepr } from './py-repr.ts';

// The clean and service steps the server runs, following the redfish interfaces' step decorators
// (ironic/drivers/modules/redfish/bios.py, firmware.py): which interface a step is on, whether it
// is a clean and/or service step and since which release (as its maximum API minor), and what
// its required arguments are. Steps not listed here are unknown to the "driver": the conductor
// refuses them as ironic/conductor/steps.py _validate_user_steps does.

export type StepKind = 'clean' | 'service';

export interface UserStep {
  interface: string;
  step: string;
  args?: Record<string, unknown>;
  [k: string]: unknown;
}

interface StepDef {
  /** The release (maximum minor) from which it is a clean / service step; absent: never. */
  readonly clean?: number;
  readonly service?: number;
  readonly required: readonly string[];
  /**
   * Runs out of band and reports back later (the redfish firmware update polls a task monitor:
   * the node waits in `clean wait` / `service wait` meanwhile).
   */
  readonly async: boolean;
  run(node: NodeRecord, args: Record<string, unknown>, now: string): void;
}

const SETTINGS_DESC: Record<string, string> = {
  'bios.apply_configuration': 'A list of BIOS settings to be applied',
  'firmware.update': 'A list of dicts with firmware components to be updated',
};

const STEPS: Readonly<Record<string, StepDef>> = {
  // bios.py: @clean_step and @deploy_step since before 21.4; @service_step from 23.0.0.
  'bios.apply_configuration': { clean: 0, service: 87, required: ['settings'], async: false, run: applyBios },
  // bios.py: @clean_step only (no @service_step up to 29.0.0).
  'bios.factory_reset': { clean: 0, required: [], async: false, run: resetBios },
  // firmware.py (22.1.0): @clean_step; @service_step from 26.1.0 (API 1.93).
  'firmware.update': { clean: 86, service: 93, required: ['settings'], async: true, run: updateFirmware },
  // metalfleet's RAID steps (raid-steps.ts): accepted and run as no-ops.
  'raid.delete_configuration': { clean: 0, required: [], async: false, run: () => undefined },
  'raid.create_configuration': { clean: 0, required: [], async: false, run: () => undefined },
  'deploy.erase_devices_metadata': { clean: 0, required: [], async: false, run: () => undefined },
};

export const stepId = (s: UserStep): string => `${s.interface}.${s.step}`; // steps.py step_id

/** The step's definition if the server (maximum minor `serverMax`) has it as a `kind` step. */
export function stepDef(s: UserStep, kind: StepKind, serverMax: number): StepDef | null {
  const def = STEPS[stepId(s)];
  const since = def?.[kind];
  return def !== undefined && since !== undefined && since <= serverMax ? def : null;
}

/** The conductor's refusals of the user's steps (steps.py _validate_user_steps / _validate_user_step), or []. */
export function validateUserSteps(steps: readonly UserStep[], kind: StepKind, serverMax: number): string[] {
  const errors: string[] = [];
  for (const s of steps) {
    const def = stepDef(s, kind, serverMax);
    if (def === null) {
      errors.push(`node does not support this ${kind} step: ${pyRepr(s)}`);
      continue;
    }
    const args = s.args ?? {};
    const unexpected = Object.keys(args).filter((a) => !def.required.includes(a));
    if (unexpected.length > 0) errors.push(`${kind} step ${pyRepr(s)} has these unexpected arguments: ${unexpected.join(', ')}`);
    const missing = def.required.filter((a) => !(a in args)).map((a) => (SETTINGS_DESC[stepId(s)] ? `${a} (${SETTINGS_DESC[stepId(s)]})` : a));
    if (missing.length > 0) errors.push(`${kind} step ${pyRepr(s)} is missing these required arguments: ${missing.join(', ')}`);
  }
  return errors;
}

/** Thrown by a step that fails; the conductor words it as "Node X failed step Y: <message>". */
export class StepFailure extends Error {}

function settingsOf(args: Record<string, unknown>): Record<string, unknown>[] {
  const s = args.settings;
  if (!Array.isArray(s)) throw new StepFailure(`Invalid settings: ${pyRepr(s)}`);
  return s as Record<string, unknown>[];
}

function applyBios(node: NodeRecord, args: Record<string, unknown>): void {
  for (const { name, value } of settingsOf(args)) {
    if (typeof name !== 'string') throw new StepFailure(`Invalid BIOS setting name: ${pyRepr(name)}`);
    const known = node.bios.find((b) => b.name === name);
    // A real BMC refuses attributes its registry lacks (redfish bios.py: "Attribute ... not found").
    if (known === undefined) throw new StepFailure(`BIOS attribute ${name} is not in the registry of this system`);
    const text = value === null || value === undefined ? null : String(value);
    const refused = registryRefusal(known.registry, text);
    if (refused !== null) throw new StepFailure(`BIOS attribute ${name}: ${refused}`);
    known.value = text;
  }
}

function resetBios(node: NodeRecord): void {
  for (const b of node.bios) b.value = b.factory;
}

function updateFirmware(node: NodeRecord, args: Record<string, unknown>, now: string): void {
  for (const { component, url } of settingsOf(args)) {
    const c = node.firmware.find((f) => f.component === component);
    if (c === undefined) throw new StepFailure(`Firmware component ${pyRepr(component)} not found on node ${node.fields.uuid}`);
    if (typeof url !== 'string') throw new StepFailure(`Invalid firmware image URL for ${String(component)}: ${pyRepr(url)}`);
    const version = firmwareVersionFromUrl(url);
    c.current_version = version;
    c.last_version_flashed = version;
    c.updated_at = now;
  }
}

// What a BMC checks against its registry before it takes a value (the Redfish BIOS attribute
// registry Ironic copies into BIOSSetting).
function registryRefusal(r: BiosRegistry, value: string | null): string | null {
  if (r.read_only) return 'is read-only';
  if (value === null) return null;
  if (r.attribute_type === 'Enumeration' && r.allowable_values && !r.allowable_values.includes(value)) return `${pyRepr(value)} is not one of ${pyRepr(r.allowable_values)}`;
  if (r.attribute_type === 'Integer') {
    const n = Number(value);
    if (!Number.isInteger(n)) return `${pyRepr(value)} is not an integer`;
    if ((r.lower_bound !== null && n < r.lower_bound) || (r.upper_bound !== null && n > r.upper_bound)) return `${n} is outside [${r.lower_bound ?? ''}, ${r.upper_bound ?? ''}]`;
  }
  if (r.attribute_type === 'String' && ((r.min_length !== null && value.length < r.min_length) || (r.max_length !== null && value.length > r.max_length))) {
    return `the length of ${pyRepr(value)} is outside [${r.min_length ?? 0}, ${r.max_length ?? ''}]`;
  }
  return null;
}
