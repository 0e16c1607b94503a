import type { FirmwareChanges } from '../../api/index.ts';
import { SERVICE_ANNOTATION } from '../../api/index.ts';
import { hasChanges, nothingToService, servicingChanges } from './firmware-intent.ts';
import type { Turn } from './turn.ts';

// Servicing: firmware changes on a provisioned host, its workload kept (never deprovisioned or
// provisioned for it), as BMO's manageHostPower and doServiceIfNeeded do it
// (internal/controller/metal3.io/baremetalhost_controller.go). BMO services only while a
// provisioned host that should be on is off, i.e. as it powers on after a reboot or power-off —
// HostUpdatePolicy's "onReboot" — and keeps servicing while operationalStatus says servicing or
// errorType says servicing error. The provisioning state stays; operationalStatus is
// `servicing` while it runs. Unlike BMO, a service call holds a capacity slot: it boots the
// ramdisk and flashes firmware, as heavy on the backend as a deploy.

/** A service is running, or waiting for its slot: it goes on before anything else of the host. */
export function servicingUnderWay(t: Turn): boolean {
  const slot = t.s.slot;
  return t.status.operationalStatus === 'servicing' || (slot.phase !== 'none' && slot.op === 'service');
}

/** Carries on a service under way (a poll, or a slot still to come). */
export function continueServicing(t: Turn): boolean {
  return serviceStep(t, servicingChanges(t.s));
}

/**
 * BMO's doServiceIfNeeded once the power is known: null when there is nothing to service (power
 * management goes on), else the step taken. A servicing error is retried (after its backoff) with
 * restartOnFailure; with the changes withdrawn, the call carries none, which tells the backend
 * to abort the failed servicing and return the host to service (BMO's abortServicing).
 */
export function serviceIfNeeded(t: Turn): boolean | null {
  const failed = t.status.errorType === 'servicing error';
  const poweringOn = !t.status.poweredOn && t.host.spec.online;
  if (!poweringOn && !failed) return null;
  const changes = servicingChanges(t.s);
  if (!hasChanges(changes) && !failed) return null;
  return serviceStep(t, changes);
}

function serviceStep(t: Turn, changes: FirmwareChanges): boolean {
  if (!t.ensureSlot('service')) return false;
  // Asked before this turn: whoever asked (this actor, or the shard's previous owner) sent it.
  const started = t.status.operationalStatus === 'servicing';
  if (!started) {
    t.patchStatus({ operationalStatus: 'servicing' });
    t.event('Normal', 'ServicingStarted', hasChanges(changes) ? `Servicing started: ${describe(changes)}` : 'Servicing aborted: the firmware changes were withdrawn');
  }
  // The request is served: the next one is a new request.
  t.removeAnnotation(SERVICE_ANNOTATION);
  t.call({ op: 'service', restartOnFailure: t.status.errorType === 'servicing error', firmware: changes, started });
  return false;
}

/**
 * `metalfleet host service` (the service annotation): power the host off so that it is serviced
 * as it powers on again. True while that is wanted; a request with nothing to do is removed with
 * a Warning that says why (the command checks what the host alone shows; the companions are
 * known here).
 */
export function serviceRequested(t: Turn): boolean {
  const value = t.host.metadata.annotations?.[SERVICE_ANNOTATION];
  if (value === undefined) return false;
  const request = value ? ` (request ${value})` : '';
  const refusal = !t.host.spec.online
    ? 'spec.online is false, and a host is serviced as it powers on; send powerOn instead'
    : t.host.spec.disablePowerOff
      ? 'spec.disablePowerOff is set, so the host is never off and is never serviced'
      : nothingToService(t.s);
  if (refusal === null) return true;
  t.removeAnnotation(SERVICE_ANNOTATION);
  t.event('Warning', 'ServiceRefused', `service${request} refused: ${refusal}`);
  return false;
}

/**
 * A service request on an available host (set by hand, or left from before a deprovisioning):
 * such a host applies its firmware changes by preparing, so the request is removed with a reason.
 */
export function refuseService(t: Turn): false {
  const value = t.host.metadata.annotations?.[SERVICE_ANNOTATION];
  if (value === undefined) return false;
  t.removeAnnotation(SERVICE_ANNOTATION);
  t.event('Warning', 'ServiceRefused', `service${value ? ` (request ${value})` : ''} refused: the host is ${t.state}, not provisioned; an available host applies its firmware changes by preparing`);
  return false;
}

/** For events: what servicing changes, by name (values and URLs may be sensitive). */
export function describe(changes: FirmwareChanges): string {
  const settings = Object.keys(changes.settings);
  const parts = [
    settings.length > 0 ? `BIOS settings ${settings.join(', ')}` : null,
    changes.updates.length > 0 ? `firmware of ${changes.updates.map((u) => u.component).join(', ')}` : null,
  ];
  return parts.filter((p) => p !== null).join('; ');
}
