import type { FirmwareChanges } from '../../../api/index.ts';
import type { OpResult } from '../../../machines/bmh/index.ts';
import type { IronicNode } from '../client/index.ts';
import { featureShortfall, versionSupports } from '../client/index.ts';
import type { StepContext } from './context.ts';
import { firmwareSteps, hasBiosStep } from './firmware-steps.ts';
import { failed } from './outcome.ts';

type Step = Readonly<Record<string, unknown>>;

/**
 * Why this Ironic cannot make `changes` at all, as a failure not worth retrying, or null: a
 * firmware update needs the firmware interface (API 1.86). Asked before any request that
 * changes the node, so a host that cannot be served is not half-moved (manageable, say).
 */
export async function firmwareShortfall(ctx: StepContext, changes: FirmwareChanges | undefined): Promise<OpResult | null> {
  if (changes === undefined || changes.updates.length === 0) return null;
  const short = featureShortfall('a firmware update', 'firmware-interface', await ctx.client.negotiated());
  return short === null ? null : failed(short, null);
}

/**
 * The BIOS and firmware steps for `changes` on `node`, the settings compared with the node's
 * current ones (read only when settings are asked for); a failure when the node's driver has no
 * BIOS interface to run them.
 */
export async function firmwareStepsFor(ctx: StepContext, node: IronicNode, changes: FirmwareChanges | undefined): Promise<{ steps: Step[] } | { refused: OpResult }> {
  const wantsSettings = changes !== undefined && Object.keys(changes.settings).length > 0;
  // The registry tells which settings are integers; an older Ironic gives names and values only.
  const current = wantsSettings ? await ctx.client.getBiosSettings(node.uuid, { registry: versionSupports((await ctx.client.negotiated()).version, 'bios-registry') }) : [];
  const steps = firmwareSteps(changes, current);
  if (hasBiosStep(steps) && node.bios_interface === 'no-bios') {
    return { refused: failed(`BIOS settings are defined, but the node's driver ${node.driver ?? ''} has no BIOS interface (bios_interface "no-bios")`, null) };
  }
  return { steps };
}
