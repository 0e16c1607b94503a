import type { ProvisioningState } from '../../api/index.ts';
import { parseBmcAddress } from '../../api/bmc/index.ts';
import { detachRequest, inspectionDisabled, inspectionRequested, rebootRequests, REPROVISION, reprovisionRequest } from './annotations.ts';
import { INSPECTION_SKIPPED } from './bmo-events.ts';
import { hasImage, provisioningCancelled, sameImage, wantsProvisioning } from './images.ts';
import { effectiveRootDeviceHints } from './hardware-profile.ts';
import { clearProvisioningSettings, desiredRaid, provisioningSettingsChanged, raidOf } from './provisioning-settings.ts';
import { managePower } from './power.ts';
import { hasChanges, preparingChanges } from './firmware-intent.ts';
import { servicingUnderWay } from './servicing.ts';
import type { Turn } from './turn.ts';

// One handler per provisioning state, as BMO's host_state_machine.go has it. A handler either
// issues one backend call, asks for a capacity slot, or transitions; it returns true after a
// transition so the next state's handler runs in the same step.
type Handler = (t: Turn) => boolean;

export const HANDLERS: Record<ProvisioningState, Handler> = {
  '': (t) => {
    if (hasBmcDetails(t)) {
      t.patchStatus({ operationalStatus: 'OK' });
      t.transition('registering', 'BMC details present');
    } else {
      t.patchStatus({ operationalStatus: 'discovered' });
      t.transition('unmanaged', 'no BMC details');
    }
    return true;
  },
  unmanaged: (t) => {
    if (!hasBmcDetails(t)) return false;
    t.patchStatus({ operationalStatus: t.okOrError() });
    t.transition('registering', 'BMC details added');
    return true;
  },
  registering: register,
  'match profile': (t) => {
    // BMO's handleMatchProfile: leaving the legacy state starts a fresh error count.
    if (t.status.errorCount !== 0) t.patchStatus({ errorCount: 0 });
    t.transition('preparing', 'legacy state');
    return true;
  },
  inspecting: (t) => {
    if (!t.ensureSlot('inspect')) return false;
    // The request stays until the backend starts the inspection (results.ts): a node that must be
    // moved to manageable first is asked again with it, or it would answer with the old data.
    const refresh = inspectionRequested(t.host);
    // An inspection this host aborted for a forced reboot is started again, not reported failed.
    const restartOnFailure = t.status.errorType === 'inspection error' || t.s.inspectionAborted;
    const forceReboot = forcedRebootPending(t);
    t.call({ op: 'inspect', restartOnFailure, refresh, ...(forceReboot ? { forceReboot } : {}) });
    return false;
  },
  preparing: (t) => {
    // BMO's actionPreparing: valid pending BIOS settings and firmware updates go as clean steps.
    const firmware = preparingChanges(t.s);
    // BMO's PrepareData.RootDeviceHints: what updateRootDeviceHints gives for the host as it is
    // now (on a copy of it), the profile's hints included, not the spec's alone.
    const rootDeviceHints = effectiveRootDeviceHints(t.host);
    // BMO: a manual clean that failed may have left the RAID half built, so its retry compares
    // the target with no RAID at all and builds it again.
    const failed = t.status.errorType === 'preparation error';
    t.call({
      op: 'prepare', restartOnFailure: failed, raid: { target: desiredRaid(t.host), actual: failed ? null : raidOf(t.status.provisioning.raid) },
      ...(hasChanges(firmware) ? { firmware } : {}),
      ...(rootDeviceHints ? { rootDeviceHints } : {}),
    });
    return false;
  },
  // The deprecated name of available, as older BMO wrote it: handled as available and left as it
  // is (BMO's handlers() map it to handleAvailable), so kubectl shows what it showed before.
  ready: available,
  available,
  provisioning: (t) => {
    // BMO's handleProvisioning: any recorded error ends this attempt (and counts it); so does an
    // image or custom deploy the spec no longer asks for.
    const failed = Boolean(t.status.errorType);
    if (failed || provisioningCancelled(t.host)) {
      return toDeprovisioning(t, failed ? 'provisioning failed' : 'image changed or removed', failed ? { provisioningFailCount: t.status.provisioningFailCount + 1 } : {});
    }
    if (!t.ensureSlot('provision')) return false;
    const spec = t.host.spec;
    // What this attempt deploys, recorded before the call as BMO does: the retry limit compares it.
    if (spec.image && !sameImage(spec.image, t.status.lastAttemptedImage)) t.patchStatus({ lastAttemptedImage: spec.image });
    // The spec's hints, else the hardware profile's, recorded in status as BMO records the ones it sends.
    const rootDeviceHints = effectiveRootDeviceHints(t.host);
    t.recordRootDeviceHints(rootDeviceHints);
    // BMO's actionProvisioning passes hasRebootAnnotation(info, true) as Provision's forceReboot.
    const forceReboot = forcedRebootPending(t);
    t.call({ op: 'provision', image: spec.image, customDeploy: spec.customDeploy?.method, bootMode: spec.bootMode, rootDeviceHints, ...(forceReboot ? { forceReboot } : {}) });
    return false;
  },
  provisioned: (t) => {
    // A service under way finishes first: the backend cannot deprovision a host it is servicing.
    if (servicingUnderWay(t)) return managePower(t, true);
    if (provisioningCancelled(t.host)) {
      if (!t.ensureSlot('deprovision')) return false;
      // Deploying the new image (or none) is itself the redeploy a pending reprovision asked for.
      t.removeAnnotation(REPROVISION);
      t.transition('deprovisioning', 'image removed or changed');
      return true;
    }
    if (reprovisionRequest(t.host) !== null) return reprovision(t);
    return managePower(t, true);
  },
  'externally provisioned': (t) => {
    if (!t.host.spec.externallyProvisioned) {
      t.patchProvisioning({ image: t.host.spec.image, customDeploy: t.host.spec.customDeploy });
      t.transition('provisioned', 'no longer externally provisioned');
      return true;
    }
    return managePower(t, true);
  },
  deprovisioning: (t) => {
    if (!t.ensureSlot('deprovision')) return false;
    t.call({ op: 'deprovision', restartOnFailure: t.status.errorType === 'provisioning error', automatedCleaning: t.host.spec.automatedCleaningMode !== 'disabled' });
    return false;
  },
  // Both are only entered under deletion, which handleDeletion drives; without a deletion
  // timestamp (the delete was withdrawn by a restore) the host registers again.
  'powering off before delete': (t) => backToRegistering(t),
  deleting: (t) => backToRegistering(t),
};

function register(t: Turn): boolean {
  // Registered and waiting for an inspection slot (BMO keeps such a host in registering, delayed);
  // new credentials register again first.
  if (t.s.slot.phase !== 'none' && !t.s.needsRegistration) return afterRegistration(t);
  const bmc = t.host.spec.bmc;
  if (!bmc?.address) {
    if (t.status.errorMessage !== 'BMC address is empty') t.recordError('registration error', 'BMC address is empty', 0, null);
    return false;
  }
  const parsed = parseBmcAddress(bmc.address);
  const plugin = !parsed.ok && parsed.error.code === 'unknown-type' && parsed.error.scheme !== undefined && (t.s.config.pluginBmcSchemes?.includes(parsed.error.scheme) ?? false);
  if (!parsed.ok && !plugin) {
    const message = `spec.bmc.address: ${parsed.error.message}`;
    if (t.status.errorMessage !== message) t.recordError('registration error', message, 0, null);
    return false;
  }
  t.register();
  return false;
}

/**
 * BMO's handleRegistering, once registration worked: externally provisioned hosts are taken over,
 * hosts without inspection go to preparing, the rest to inspecting when a slot is free (until then
 * they stay in registering, delayed, as BMO's capacity check leaves them).
 */
export function afterRegistration(t: Turn): boolean {
  const { spec } = t.host;
  // BMO's handleRegistering starts every next state with a fresh count: its clearError keeps
  // errorCount, so a count left from failed attempts (or another error type) ends here.
  if (t.status.errorCount !== 0) t.patchStatus({ errorCount: 0 });
  if (spec.externallyProvisioned) {
    t.releaseSlot();
    // Already running an OS: the backend must take it over as deployed, never deploy it.
    t.s.needsAdopt = true;
    t.transition('externally provisioned', 'registered, externally provisioned');
    return true;
  }
  if (inspectionDisabled(t.host)) {
    t.releaseSlot();
    t.event(INSPECTION_SKIPPED.severity, INSPECTION_SKIPPED.reason, INSPECTION_SKIPPED.message);
    t.transition('preparing', 'registered, inspection disabled');
    return true;
  }
  if (!t.ensureSlot('inspect')) return false;
  t.transition('inspecting', 'registered');
  return true;
}

function available(t: Turn): boolean {
  const { spec } = t.host;
  if (spec.externallyProvisioned) {
    // BMO's handleAvailable: what preparing built for a deploy of ours is not the host's any more.
    clearProvisioningSettings(t);
    t.transition('externally provisioned', 'marked externally provisioned');
    return true;
  }
  if (inspectionRequested(t.host)) {
    if (!t.ensureSlot('inspect')) return false;
    t.transition('inspecting', 'inspection requested');
    return true;
  }
  if (provisioningSettingsChanged(t.host)) {
    t.releaseSlot();
    t.transition('preparing', 'RAID or root device hints changed');
    return true;
  }
  // BMO's handleAvailable: HostFirmwareSettings or HostFirmwareComponents ChangeDetected.
  if (hasChanges(preparingChanges(t.s))) {
    t.releaseSlot();
    t.transition('preparing', 'firmware settings or components changed');
    return true;
  }
  if (t.status.provisioningFailCount > 0 && !spec.image?.url) {
    // BMO's handleAvailable: no image requested, so the failures counted are history.
    t.patchStatus({ provisioningFailCount: 0, lastAttemptedImage: undefined });
    if (t.status.errorType === 'provisioning error') t.clearError();
  }
  if (wantsProvisioning(t.host)) {
    if (t.status.provisioningFailCount > 0 && !sameImage(spec.image, t.status.lastAttemptedImage)) {
      // BMO's actionManageAvailable: a new image (URL, checksum, ...) earns a fresh set of attempts.
      t.patchStatus({ provisioningFailCount: 0 });
      if (t.status.errorType === 'provisioning error') t.clearError();
    }
    const limit = t.s.config.maxProvisioningRetries;
    if (limit > 0 && t.status.provisioningFailCount >= limit) {
      const message = `provisioning failed ${t.status.provisioningFailCount} times (limit ${limit}); change spec.image to try again`;
      // BMO's actionManageAvailable: recordActionFailure on every pass (the count goes up, the
      // next pass waits its backoff) and nothing else, power included, until the image changes
      // (a changed spec ends the wait at once). A step has no jitter: the longest wait of the range.
      t.releaseSlot();
      t.recordError('provisioning error', message, 0);
      return false;
    }
    if (!t.ensureSlot('provision')) return false;
    // BMO clears whatever error the host had before it starts a deploy.
    t.clearError();
    t.transition('provisioning', 'image set');
    return true;
  }
  return managePower(t, false);
}

// metalfleet.io/reprovision on a provisioned host: the normal deprovisioning path (which takes a
// capacity slot), after which available deploys spec.image again. The annotation goes in the
// same step as the transition, so a finished reprovision never starts another.
function reprovision(t: Turn): boolean {
  const id = reprovisionRequest(t.host);
  const request = id ? ` (request ${id})` : '';
  if (!t.host.spec.online || !hasImage(t.host)) {
    t.removeAnnotation(REPROVISION);
    // Offline: deprovisioning would leave the host available and not deploy it again.
    t.event('Warning', 'ReprovisionIgnored', `reprovision${request} ignored: spec.online is false, so the image would not be deployed again; power the host on and ask again`);
    return true;
  }
  if (!t.ensureSlot('deprovision')) return false;
  t.removeAnnotation(REPROVISION);
  // The image is named by field, not URL: a URL may carry credentials.
  t.event('Normal', 'ReprovisionRequested', `reprovision${request}: deprovisioning, then deploying ${t.host.spec.customDeploy?.method ? 'spec.customDeploy' : 'spec.image'} again`);
  t.transition('deprovisioning', 'reprovision requested');
  return true;
}

/**
 * Into deprovisioning once a slot is free; until then the host stays where it is, delayed, as
 * BMO's capacity check leaves it. `patch` is applied with the transition only.
 */
export function toDeprovisioning(t: Turn, reason: string, patch: Partial<Turn['status']> = {}): boolean {
  if (!t.ensureSlot('deprovision')) return false;
  if (Object.keys(patch).length > 0) t.patchStatus(patch);
  t.transition('deprovisioning', reason);
  return true;
}

/**
 * BMO's hasRebootAnnotation(info, true) in actionInspecting and actionProvisioning: a reboot
 * annotation with force:true asks for the inspection or deployment waiting for its agent to be
 * aborted (the host reboots into a new preprovisioning image) and started again. A suffixed one
 * that did so already is served (BmhState.rebootsServed): it stays for whoever set it, but does
 * not abort the restarted operation, nor each one after it.
 */
function forcedRebootPending(t: Turn): boolean {
  const reboots = rebootRequests(t.host);
  const present = new Set(reboots.map((r) => r.key));
  if (t.s.rebootsServed.some((k) => !present.has(k))) t.s.rebootsServed = t.s.rebootsServed.filter((k) => present.has(k));
  return reboots.some((r) => r.force && !t.s.rebootsServed.includes(r.key));
}

function hasBmcDetails(t: Turn): boolean {
  const bmc = t.host.spec.bmc;
  return Boolean(bmc?.address) || Boolean(bmc?.credentialsName);
}

function backToRegistering(t: Turn): boolean {
  t.transition('registering', 'deletion withdrawn');
  return true;
}

export function detachedHost(t: Turn): boolean {
  return detachRequest(t.host) !== null;
}
