import type { RebootAnnotation } from '../../api/index.ts';
import { REBOOT, rebootRequests } from './annotations.ts';
import { continueServicing, refuseService, serviceIfNeeded, serviceRequested, servicingUnderWay } from './servicing.ts';
import type { Turn } from './turn.ts';

// manageHostPower (reference/bmo.md §1.8) for available, provisioned and externally provisioned
// hosts. Returns true when it changed something the caller should look at again this step.
export function managePower(t: Turn, provisionedLike: boolean): boolean {
  if (provisionedLike && servicingUnderWay(t)) return continueServicing(t);
  // At rest: a slot asked for a transition that is no longer wanted (the image went back, the
  // inspect request was withdrawn) goes back to the pool; one held for work the backend still runs
  // (backendBusy) is kept until a read finds it over.
  if (!t.s.backendBusy) t.releaseSlot();
  if (t.s.powerCheckAt === null || t.now >= t.s.powerCheckAt) {
    t.call({ op: 'hardwareState' });
    return false;
  }
  // Work an earlier owner started still runs at the backend: no power change under it, only reads.
  if (t.s.backendBusy) {
    t.requeue(t.s.powerCheckAt - t.now);
    return false;
  }
  // BMO's manageHostPower: a host found off has had the reboot the plain annotation asked for,
  // whatever the state and whether or not it was forced (an available host ignores an unforced
  // one, but must not carry it into provisioned, where it would reboot the new deployment).
  // Suffixed ones hold the host off until whoever set them removes them (phased reboots).
  if (!t.status.poweredOn && t.host.metadata.annotations?.[REBOOT] !== undefined) {
    t.removeAnnotation(REBOOT);
    return true;
  }
  // BMO services a provisioned host as it powers on, before the power-on itself.
  const serviced = provisionedLike ? serviceIfNeeded(t) : null;
  if (serviced !== null) return serviced;
  const service = provisionedLike ? serviceRequested(t) : refuseService(t);
  const reboots = rebootRequests(t.host).filter((r) => provisionedLike || r.force);
  for (const r of reboots) if (r.malformed) t.event('Warning', 'InvalidAnnotationValue', `${r.key}: value is not valid JSON; treated as a soft reboot`);
  if (t.host.spec.disablePowerOff) return rebootInPlace(t, reboots);
  const poweredOn = t.status.poweredOn;
  // A service request powers the host off; it is serviced and powered on again (serviceIfNeeded).
  const target = reboots.length > 0 || service ? false : t.host.spec.online;
  const force = t.status.errorType === 'power management error';
  if (poweredOn === target) {
    t.requeue(t.s.powerCheckAt - t.now);
    return false;
  }
  if (target) {
    t.call({ op: 'powerOn', force });
  } else {
    t.call({ op: 'powerOff', mode: powerOffMode(t, reboots), force });
  }
  return false;
}

// BMO: power-off is soft unless a reboot asks for hard or the host already has errors.
function powerOffMode(t: Turn, reboots: readonly RebootAnnotation[]): 'soft' | 'hard' {
  return reboots.some((r) => r.mode === 'hard') || t.status.errorCount > 0 ? 'hard' : 'soft';
}

/**
 * spec.disablePowerOff (Ironic's disable_power_off): the host may never be off, so a reboot
 * request is one reboot in place (the provisioner's power-off reboots such a host, as BMO's
 * does). BMO then removes the plain annotation; a suffixed one cannot hold this host off, so it
 * is served once and remembered (BMO would reboot it again on every pass while it stays).
 */
function rebootInPlace(t: Turn, reboots: readonly RebootAnnotation[]): boolean {
  const present = new Set(reboots.map((r) => r.key));
  const served = t.s.rebootsServed.filter((k) => present.has(k));
  if (served.length !== t.s.rebootsServed.length) t.s.rebootsServed = served;
  const pending = reboots.filter((r) => !served.includes(r.key));
  const force = t.status.errorType === 'power management error';
  if (!t.status.poweredOn && t.host.spec.online) {
    t.call({ op: 'powerOn', force });
    return false;
  }
  if (pending.length === 0 || !t.status.poweredOn) {
    t.requeue((t.s.powerCheckAt ?? t.now) - t.now);
    return false;
  }
  t.call({ op: 'powerOff', mode: powerOffMode(t, pending), force });
  return false;
}

/** After a power-off call of a disablePowerOff host, which rebooted it: its requests are served. */
export function rebootedInPlace(t: Turn): void {
  const reboots = rebootRequests(t.host);
  t.s.rebootsServed = [...t.s.rebootsServed, ...reboots.filter((r) => r.suffix !== null && !t.s.rebootsServed.includes(r.key)).map((r) => r.key)];
  if (reboots.some((r) => r.suffix === null)) t.removeAnnotation(REBOOT);
  t.event('Normal', 'Rebooted', 'Host rebooted (spec.disablePowerOff: power-off is a reboot)');
}
