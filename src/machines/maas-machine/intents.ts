import type { MaasMachine } from '../../api/index.ts';

// What a user (or `metalfleet host ...`) asks of a MaasMachine, recorded on the object as
// annotations so it is as durable as `kubectl annotate` and undone the same way. The machine reads
// them on every step; nothing about a command lives only in memory.

/**
 * Present (any value, "" by the command): keep the deployed machine powered off. CAPMAAS powers a
 * Deployed machine back on whenever it finds it off; this annotation suspends that for this
 * machine only. A machine not deployed yet deploys first, then is powered off. Removing it (the
 * power-on command) lets the keep-on loop power it on again.
 */
export const POWER_OFF_ANNOTATION = 'metalfleet.io/power-off';

/**
 * Present: release the MAAS machine back to MAAS (with a release slot, as delete does) and mark
 * this MaasMachine failed, keeping its providerID, so Cluster API's MachineHealthCheck replaces
 * it. The value is the request id of the command that asked (it is named in failureMessage).
 */
export const RELEASE_ANNOTATION = 'metalfleet.io/release';

/** Cluster API's pause of one object; the machine stops all work while it is set (world.ts). */
export { CAPI_PAUSED_ANNOTATION } from '../../api/index.ts';

/**
 * MachineDeployed's reason (and the Warning event's) when a release asked by RELEASE_ANNOTATION is
 * refused because another MAAS user holds the machine; the deletion's event has the same name.
 */
export const HELD_BY_ANOTHER_USER = 'MachineHeldByAnotherUser';

/** MachineDeployed's reason while the machine is held off by POWER_OFF_ANNOTATION. */
export const POWERED_OFF_ON_REQUEST = 'MachinePoweredOffOnRequest';

type Annotated = Pick<MaasMachine, 'metadata'>;

export function powerOffRequested(o: Annotated): boolean {
  return o.metadata.annotations?.[POWER_OFF_ANNOTATION] !== undefined;
}

/** The request id of an asked-for release ("" when none was given), or null when none is asked. */
export function releaseRequested(o: Annotated): string | null {
  return o.metadata.annotations?.[RELEASE_ANNOTATION] ?? null;
}

/** Whether the intents differ between two versions of the object (a command arrived or was undone). */
export function intentsChanged(before: Annotated, after: Annotated): boolean {
  return powerOffRequested(before) !== powerOffRequested(after) || releaseRequested(before) !== releaseRequested(after);
}

/** How failureMessage names the command that released the machine. */
export function releasedBy(requestId: string): string {
  return requestId ? `command ${requestId}` : 'command (no request id)';
}
