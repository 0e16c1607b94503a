import { REBOOT, rebootRequests } from './annotations.ts';
import type { Turn } from './turn.ts';

// manageHostPower (reference/bmo.md §1.8) for available, provisioned and externally provisioned
// hosts. Returns true when it changed something the caller should look at again this step.
export function managePower(t: Turn, provisionedLike: boolean): boolean {
  if (t.s.powerCheckAt === null || t.now >= t.s.powerCheckAt) {
    t.call({ op: 'hardwareState' });
    return false;
  }
  const reboots = rebootRequests(t.host).filter((r) => provisionedLike || r.force);
  const poweredOn = t.status.poweredOn;
  if (reboots.length > 0 && t.host.spec.disablePowerOff) {
    // Power-off is forbidden on this host; drop the plain request rather than hold it forever.
    t.event('Warning', 'RebootIgnored', 'reboot requested but spec.disablePowerOff forbids powering off');
    if (reboots.some((r) => r.suffix === null)) {
      t.removeAnnotation(REBOOT);
      return true;
    }
  }
  for (const r of reboots) if (r.malformed) t.event('Warning', 'InvalidAnnotationValue', `${r.key}: value is not valid JSON; treated as a soft reboot`);
  const target = reboots.length > 0 && !t.host.spec.disablePowerOff ? false : t.host.spec.online;
  const force = t.status.errorType === 'power management error';
  if (poweredOn === target) {
    // Off for a reboot: the plain annotation has done its job; suffixed ones hold the host off
    // until whoever set them removes them (phased reboots).
    if (!poweredOn && reboots.some((r) => r.suffix === null)) {
      t.removeAnnotation(REBOOT);
      return true;
    }
    t.requeue(t.s.powerCheckAt - t.now);
    return false;
  }
  if (target) {
    t.call({ op: 'powerOn', force });
  } else {
    const hard = reboots.some((r) => r.mode === 'hard') || t.status.errorCount > 0;
    t.call({ op: 'powerOff', mode: hard ? 'hard' : 'soft', force });
  }
  return false;
}
