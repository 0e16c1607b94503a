import type { Logger } from '../../../ports/index.ts';
import type { CreateNode, Feature, Negotiated } from '../client/index.ts';
import { featureShortfall, NODE_FIELD_FEATURES } from '../client/index.ts';

// Node fields that exist only because the user asked for them, with the host field that asked.
// Such a field the server lacks fails the host (silently dropped, it would be a promise broken:
// a disablePowerOff host that Ironic powers off). Every other field newer than the baseline is
// one metalfleet picks by default (firmware_interface from the BMC type) and is left out.
const ASKED_BY: Readonly<Record<string, string>> = {
  disable_power_off: 'spec.disablePowerOff',
};

// Interface values newer than the baseline that metalfleet picks: Ironic's own inspection
// ("agent", which BMO defaults to) came with the inspection callback (1.84); an older Ironic does
// not know the interface, and left out, the node gets the inspect interface Ironic defaults to.
const PICKED_VALUES: Readonly<Record<string, Readonly<Record<string, Feature>>>> = {
  inspect_interface: { agent: 'inspection-callback' },
};

export type GatedBody = { ok: true; body: CreateNode } | { ok: false; message: string };

/** `body` fitted to what this Ironic speaks, or the message of the user-asked field it lacks. */
export function gateNodeBody(body: CreateNode, n: Negotiated, log: Logger): GatedBody {
  const out: CreateNode = { ...body };
  for (const [field, feature] of Object.entries(NODE_FIELD_FEATURES)) {
    if (out[field] === undefined) continue;
    const hostField = ASKED_BY[field];
    const short = featureShortfall(hostField ?? `node field ${field}`, feature, n);
    if (short === null) continue;
    if (hostField !== undefined) return { ok: false, message: short };
    log.debug({ field, value: out[field], version: n.version.text }, `left out ${field}: ${short}`);
    delete out[field];
  }
  for (const [field, values] of Object.entries(PICKED_VALUES)) {
    const value = out[field];
    const feature = typeof value === 'string' ? values[value] : undefined;
    if (feature === undefined) continue;
    const short = featureShortfall(`${field} "${String(value)}"`, feature, n);
    if (short === null) continue;
    log.debug({ field, value, version: n.version.text }, `left out ${field}: ${short}`);
    delete out[field];
  }
  return { ok: true, body: out };
}
