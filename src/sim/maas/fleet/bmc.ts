import type { MachineRecord, PowerState } from './machine.ts';
import { listNames } from './faults.ts';

// The machines' BMCs as MAAS sees them: what MAAS reads for a machine's power (the machine's own
// power, unless a BMC outage makes it read `error` or `unknown`), and the power commands MAAS sent
// each one, so a test can count them (a BMC outage must cost no power action).

/** What MAAS reads for a machine whose BMC does not answer: `error` after a failed query, `unknown` before any. */
export type UnreadablePower = Extract<PowerState, 'error' | 'unknown'>;

/** The power commands MAAS sent one machine's BMC through the API, since start or resetCounts(). */
export interface PowerActionCounts {
  /** op=power_on of a machine that was off. */
  powerOn: number;
  /** op=power_off. */
  powerOff: number;
  /**
   * op=power_on of a machine that was already on: MAAS's IPMI driver runs power_on as `ipmipower
   * --cycle --on-if-off` (Launchpad #1730089), so a running machine is hard-cycled.
   */
  cycle: number;
}

export type PowerAction = keyof PowerActionCounts;

/** power_state as MAAS reports it (machine JSON, op=query_power_state). */
export function powerRead(m: Pick<MachineRecord, 'powerState' | 'bmcOutage'>): PowerState {
  return m.bmcOutage ?? m.powerState;
}

/** faults.bmcOutage applied: the machines it names read its power state, every other reads its own again. */
export function applyBmcOutage(machines: readonly MachineRecord[], outage: Readonly<Record<string, UnreadablePower>>): void {
  const names = Object.keys(outage);
  for (const m of machines) {
    const name = names.find((n) => listNames([n], m.systemId, m.hostname));
    if (name === undefined) delete m.bmcOutage;
    else m.bmcOutage = outage[name];
  }
}

export class PowerActionLog {
  private readonly bySystemId = new Map<string, PowerActionCounts>();

  record(systemId: string, action: PowerAction): void {
    const counts = this.bySystemId.get(systemId) ?? { powerOn: 0, powerOff: 0, cycle: 0 };
    counts[action] += 1;
    this.bySystemId.set(systemId, counts);
  }

  of(systemId: string): PowerActionCounts {
    return { powerOn: 0, powerOff: 0, cycle: 0, ...this.bySystemId.get(systemId) };
  }

  reset(): void {
    this.bySystemId.clear();
  }
}
