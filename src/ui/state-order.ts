// Hosts per state in lifecycle order (BareMetalHost states, then MAAS states, then unknown by name),
// as `metalfleet top` orders them.
import { MAAS_MACHINE_STATES, PROVISIONING_STATES } from '../api/index.ts';

const STATE_ORDER: readonly string[] = [...PROVISIONING_STATES, ...Object.values(MAAS_MACHINE_STATES)];

function rank(state: string): number {
  const i = STATE_ORDER.indexOf(state);
  return i === -1 ? STATE_ORDER.length : i;
}

export function countStates(hosts: ReadonlyArray<{ readonly state: string }>): Array<[string, number]> {
  const counts = new Map<string, number>();
  for (const h of hosts) counts.set(h.state, (counts.get(h.state) ?? 0) + 1);
  return [...counts].sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b));
}
