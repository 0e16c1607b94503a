import type { ProvisioningState } from '../../api/index.ts';
import { parseBmcAddress } from '../../api/bmc/index.ts';
import { detachRequest, INSPECT, inspectionRequested, REPROVISION, reprovisionRequest } from './annotations.ts';
import { hasImage, provisioningCancelled, sameImage, wantsProvisioning } from './images.ts';
import { effectiveRootDeviceHints } from './hardware-profile.ts';
import { managePower } from './power.ts';
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
    t.transition('preparing', 'legacy state');
    return true;
  },
  inspecting: (t) => {
    if (!t.ensureSlot('inspect')) return false;
    const refresh = inspectionRequested(t.host);
    t.removeAnnotation(INSPECT);
    t.call({ op: 'inspect', restartOnFailure: t.status.errorType === 'inspection error', refresh });
    return false;
  },
  preparing: (t) => {
    t.call({ op: 'prepare', restartOnFailure: t.status.errorType === 'preparation error' });
    return false;
  },
  ready: (t) => {
    t.transition('available', 'ready is the deprecated name of available');
    return true;
  },
  available,
  provisioning: (t) => {
    if (t.status.errorType === 'provisioning error' || !hasImage(t.host) || imageChangedSinceAttempt(t)) {
      t.transition('deprovisioning', t.status.errorType ? 'provisioning failed' : 'image changed or removed');
      return true;
    }
    if (!t.ensureSlot('provision')) return false;
    const spec = t.host.spec;
    // The spec's hints, else the hardware profile's, recorded in status as BMO records the ones it sends.
    const rootDeviceHints = effectiveRootDeviceHints(t.host);
    t.recordRootDeviceHints(rootDeviceHints);
    t.call({ op: 'provision', image: spec.image, customDeploy: spec.customDeploy?.method, bootMode: spec.bootMode, rootDeviceHints });
    return false;
  },
  provisioned: (t) => {
    if (provisioningCancelled(t.host)) {
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

function available(t: Turn): boolean {
  const { spec } = t.host;
  if (spec.externallyProvisioned) {
    t.transition('externally provisioned', 'marked externally provisioned');
    return true;
  }
  if (inspectionRequested(t.host)) {
    if (!t.ensureSlot('inspect')) return false;
    t.transition('inspecting', 'inspection requested');
    return true;
  }
  if (needsPreparation(t)) {
    t.transition('preparing', 'RAID or root device hints changed');
    return true;
  }
  if (t.status.provisioningFailCount > 0 && (!hasImage(t.host) || !sameImage(spec.image, t.status.lastAttemptedImage))) {
    // A new image (or none) earns a fresh set of attempts.
    t.patchStatus({ provisioningFailCount: 0 });
    t.clearError();
  }
  if (wantsProvisioning(t.host)) {
    const limit = t.s.config.maxProvisioningRetries;
    if (limit > 0 && t.status.provisioningFailCount >= limit) {
      const message = `provisioning failed ${t.status.provisioningFailCount} times (limit ${limit}); change spec.image to try again`;
      if (t.status.errorMessage !== message) {
        t.patchStatus({ operationalStatus: 'error', errorType: 'provisioning error', errorMessage: message });
        t.event('Warning', 'ProvisioningRetryLimit', message);
      }
      return managePower(t, false);
    }
    if (!t.ensureSlot('provision')) return false;
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
  t.removeAnnotation(REPROVISION);
  if (!wantsProvisioning(t.host)) {
    // Offline: deprovisioning would leave the host available and not deploy it again.
    t.event('Warning', 'ReprovisionIgnored', `reprovision${request} ignored: spec.online is false, so the image would not be deployed again; power the host on and ask again`);
    return true;
  }
  // The image is named by field, not URL: a URL may carry credentials.
  t.event('Normal', 'ReprovisionRequested', `reprovision${request}: deprovisioning, then deploying ${t.host.spec.customDeploy?.method ? 'spec.customDeploy' : 'spec.image'} again`);
  t.transition('deprovisioning', 'reprovision requested');
  return true;
}

function needsPreparation(t: Turn): boolean {
  const { spec, status } = t.host;
  return JSON.stringify(spec.raid ?? null) !== JSON.stringify(status.provisioning.raid ?? null)
    // Hints the user set and preparation has not seen; the profile's defaults need no pass (BMO).
    || (spec.rootDeviceHints !== undefined && JSON.stringify(spec.rootDeviceHints) !== JSON.stringify(status.provisioning.rootDeviceHints ?? null));
}

function imageChangedSinceAttempt(t: Turn): boolean {
  const attempted = t.status.lastAttemptedImage;
  return t.status.provisioningFailCount > 0 && attempted !== undefined && !sameImage(attempted, t.host.spec.image);
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
