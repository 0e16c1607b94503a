import type { FirmwareChanges } from '../../../api/index.ts';
import type { BiosSetting } from '../client/index.ts';

type Step = Readonly<Record<string, unknown>>;

/**
 * The BIOS and firmware steps that make `changes` (BMO's buildManualCleaningSteps and
 * buildServiceSteps, pkg/provisioner/ironic/ironic.go and servicing.go): one
 * `bios.apply_configuration` with the settings that differ from what the node has now, and one
 * `firmware.update` with every image to flash. The same steps serve manual cleaning and servicing.
 * `current`: the node's settings as Ironic has them (with registry fields where it has them).
 */
export function firmwareSteps(changes: FirmwareChanges | undefined, current: readonly BiosSetting[]): Step[] {
  if (changes === undefined) return [];
  const steps: Step[] = [];
  const settings = changedSettings(changes.settings, current);
  if (settings.length > 0) steps.push({ interface: 'bios', step: 'apply_configuration', args: { settings } });
  if (changes.updates.length > 0) {
    steps.push({ interface: 'firmware', step: 'update', args: { settings: changes.updates.map((u) => ({ component: u.component, url: u.url })) } });
  }
  return steps;
}

// Only what differs goes out (BMO's getNewFirmwareSettings): applying a BIOS setting costs the
// host a reboot. A registry's Integer attribute goes out as a number, as BMO sends an IntOrString
// holding an int: a Redfish BMC refuses a string for an integer attribute.
function changedSettings(wanted: Readonly<Record<string, string>>, current: readonly BiosSetting[]): { name: string; value: string | number }[] {
  const byName = new Map(current.map((s) => [s.name, s]));
  return Object.entries(wanted)
    .filter(([name, value]) => byName.get(name)?.value !== value)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, value]) => {
      const integer = byName.get(name)?.attribute_type === 'Integer' && /^-?\d+$/.test(value);
      return { name, value: integer ? Number(value) : value };
    });
}

/** Whether the steps hold a BIOS step (which a node with bios_interface "no-bios" cannot run). */
export function hasBiosStep(steps: readonly Step[]): boolean {
  return steps.some((s) => s['interface'] === 'bios');
}

/** Whether `changes` asks for anything at all (BMO's HasFirmwareSpec). */
export function asksForChanges(changes: FirmwareChanges | undefined): boolean {
  return changes !== undefined && (Object.keys(changes.settings).length > 0 || changes.updates.length > 0);
}
