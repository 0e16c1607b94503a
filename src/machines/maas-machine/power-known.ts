import { nextDelay } from '../../api/index.ts';
import type { Turn } from './turn.ts';
import type { MaasView } from './types.ts';

// A machine MAAS cannot read the power of is left alone. CAPMAAS powered on a Deployed machine
// whenever power_state was anything but "on" (spectrocloud-public/cluster-api-provider-maas
// PR #379, controllers/maasmachine_controller.go): MAAS reads `error` or `unknown` when it cannot
// reach the BMC, and its IPMI driver runs power_on as `ipmipower --cycle --on-if-off` (Launchpad
// #1730089), so a running machine is hard-cycled; a brief BMC outage rebooted healthy nodes. Only
// a confirmed "on" or "off" is acted on: MAAS must reach the BMC to power anything, and when it
// can it reads on or off again, so a machine that is really off is powered on at that read.

/** MaasMachine condition: False while MAAS reads neither on nor off for the machine's power. */
export const MACHINE_POWER_KNOWN = 'MachinePowerKnown';

export const POWER_KNOWN_REASONS = {
  /** MAAS reads `error`: its last power query failed (the BMC did not answer, or refused). */
  PowerStateError: 'PowerStateError',
  /** MAAS reads `unknown` (or nothing): it has no answer from the BMC. */
  PowerStateUnknown: 'PowerStateUnknown',
} as const;

/** MAAS has read the BMC and it said on or off: the only power a machine is acted on by. */
export function powerConfirmed(view: Pick<MaasView, 'powerState'>): boolean {
  return view.powerState === 'on' || view.powerState === 'off';
}

/**
 * The machine's power reads neither on nor off: no power action; MachinePowerKnown=False says why,
 * and power is read again after a backoff (powerRecheckMs doubling to powerRecheckMaxMs) — or,
 * while deploying, at the deploy poll, since the deploy's progress must still be followed.
 */
export function waitForKnownPower(t: Turn, view: MaasView): void {
  const deploying = t.phase === 'deploying';
  t.s.powerRereads += 1;
  const { powerRecheckMs, powerRecheckMaxMs, deployingPollMs } = t.s.config;
  const ms = deploying
    ? deployingPollMs
    : nextDelay({ initialMs: powerRecheckMs, maxMs: Math.max(powerRecheckMaxMs, powerRecheckMs), factor: 2, jitter: 'none' }, t.s.powerRereads, () => 0);
  const error = view.powerState === 'error';
  const read = view.powerState === '' ? 'nothing' : `'${view.powerState}'`;
  const why = error ? 'its BMC may be unreachable' : 'MAAS has no answer from its BMC';
  const what = deploying ? 'leaving the deploying machine\'s power alone' : 'not powering on a deployed machine, which MAAS would hard-cycle';
  const message = `MAAS reads power ${read} for machine ${view.systemId} (${why}); ${what}; re-reading in ${seconds(ms)}`;
  if (t.s.powerRereads === 1) t.event('Warning', error ? POWER_KNOWN_REASONS.PowerStateError : POWER_KNOWN_REASONS.PowerStateUnknown, message);
  t.condition(MACHINE_POWER_KNOWN, { status: 'False', reason: error ? POWER_KNOWN_REASONS.PowerStateError : POWER_KNOWN_REASONS.PowerStateUnknown, message });
  t.pollIn(ms);
}

/** Power reads on or off again: the condition goes, and the next outage starts its backoff afresh. */
export function powerKnownAgain(t: Turn, view: MaasView): void {
  if (t.s.powerRereads > 0) t.event('Normal', 'PowerStateKnown', `MAAS reads power '${view.powerState}' for machine ${view.systemId} again`);
  t.s.powerRereads = 0;
  t.dropCondition(MACHINE_POWER_KNOWN);
}

function seconds(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10}s` : `${ms}ms`;
}
