import type { ControlPlaneMember } from './dns-plan.ts';
import type { IpCallResult } from './types.ts';

// A control-plane machine another MAAS user holds: MAAS (3.x, RBAC off) lets a non-admin key view
// only unowned machines and its own, so its read of the machine (and of its interfaces) is a 403
// with no text, and MAAS does not say whose the machine is.

/** DNSAttached's reason, and the Warning event's, naming such a machine (the MaasMachine's is the same). */
export const HELD_BY_ANOTHER_USER = 'MachineHeldByAnotherUser';

/** What the driver says of such a machine. */
export function heldByAnotherUserMessage(systemId: string): string {
  return `MAAS machine ${systemId} is held by another MAAS user: MAAS refuses this API key's user a read of it (403) and leaves it out of the user's machines, so it does not say whose it is. `
    + 'Only its owner or a MAAS admin can release it; give metalfleet an admin key if it should manage machines other users hold';
}

/** Whether a failed read of the interfaces of `systemId` found it held by another MAAS user. */
export function heldByAnotherUser(r: Extract<IpCallResult, { kind: 'failed' }>): boolean {
  return r.reason === 'heldByAnotherUser';
}

/** DNSAttached's message for a running member another MAAS user holds; `read` when its NICs were read while it was ours. */
export function heldMemberMessage(m: ControlPlaneMember, read: boolean): string {
  return `another MAAS user holds MAAS machine ${m.systemId ?? ''} (MaasMachine ${m.name ?? m.key}); this API key's user may not read it, `
    + (read ? 'so the address last read from it stays in the record while its MaasMachine is running' : 'so no address of it is published')
    + '. Only its owner or a MAAS admin can release it; delete the MaasMachine\'s Machine to replace it';
}
