import { formatProviderId, MACHINE_DEPLOYED_REASONS as R, parseProviderId } from '../../api/index.ts';
import { beforeDeploy, deployCall, imageNamed } from './deploy-options.ts';
import { dnsAttachment } from './dns-attach.ts';
import { failMachine } from './failure.ts';
import { gatesOpen } from './gates.ts';
import { POWER_OFF_ANNOTATION, POWERED_OFF_ON_REQUEST, powerOffRequested } from './intents.ts';
import { powerConfirmed, powerKnownAgain, waitForKnownPower } from './power-known.ts';
import { startedUnlessFailed } from './pending.ts';
import { releaseOnRequest } from './release.ts';
import { KNOWN, verdictOf } from './state-table.ts';
import { addressesOf } from './status.ts';
import type { Turn } from './turn.ts';
import type { MaasView } from './types.ts';

// The phases of a machine that is ours (allocated, deploying, deployed). Each looks at MAAS first;
// when MAAS says the machine is elsewhere, it moves there (CAPMAAS's state switch, §2.3 step 8).

export function allocated(t: Turn): boolean {
  if (releaseOnRequest(t)) return false;
  const view = look(t);
  if (!view) return false;
  if (moved(t, view)) return true;
  if (!gatesOpen(t)) return false;
  startedUnlessFailed(t);
  const image = imageNamed(t);
  if (!image) return false;
  if (!t.ensureSlot('deploy')) return false;
  const systemId = view.systemId;
  if (!t.s.swapped && !t.s.config.skipSwap) {
    t.call({ op: 'swapOff', systemId });
    return false;
  }
  if (!beforeDeploy(t, systemId)) return false;
  t.call(deployCall(t.s.object, view, image));
  return false;
}

export function deploying(t: Turn): boolean {
  if (releaseOnRequest(t)) return false;
  const view = look(t);
  if (!view) return false;
  if (moved(t, view)) return true;
  t.setStatus({ ready: false });
  if (!powerConfirmed(view)) {
    t.deployed('False', R.MachineDeploying);
    t.ensureSlot('deploy');
    waitForKnownPower(t, view);
    return false;
  }
  powerKnownAgain(t, view);
  // CAPMAAS checks power before Deploying: a machine MAAS is power-cycling reads as powered off.
  if (view.powerState === 'on') t.deployed('False', R.MachineDeploying);
  else t.deployed('False', R.MachinePoweredOff, `MAAS machine ${view.systemId} is Deploying and powered ${view.powerState}`);
  // Counted against the MAAS limit for as long as MAAS is deploying it.
  t.ensureSlot('deploy');
  t.pollIn(t.s.config.deployingPollMs);
  return false;
}

export function deployed(t: Turn): boolean {
  if (releaseOnRequest(t)) return false;
  const view = look(t);
  if (!view) return false;
  if (moved(t, view)) return true;
  // Neither powered on nor (on request) off while MAAS cannot read its power (power-known.ts).
  if (!powerConfirmed(view)) {
    t.releaseSlot();
    waitForKnownPower(t, view);
    return false;
  }
  powerKnownAgain(t, view);
  if (powerOffRequested(t.s.object)) {
    holdOff(t, view);
    return false;
  }
  if (view.powerState !== 'on') {
    t.setStatus({ ready: false });
    t.deployed('False', R.MachinePoweredOff, `MAAS machine ${view.systemId} is Deployed but powered ${view.powerState}; powering it on`);
    t.event('Normal', 'PoweringOn', `MAAS machine ${view.systemId} is Deployed but off: powering it on`);
    t.call({ op: 'powerOn', systemId: view.systemId });
    return false;
  }
  if (!t.s.status.ready) t.event('Normal', 'MachineReady', `MAAS machine ${view.systemId} deployed and running`);
  t.setStatus({ ready: true, initialization: { provisioned: true } });
  t.deployed('True', R.MachineDeployed);
  t.releaseSlot();
  const dns = dnsAttachment(t);
  if (dns === 'lookup') return false;
  t.pollIn(dns === 'pending' ? Math.min(t.s.config.dnsPollMs, t.s.config.steadyPollMs) : t.s.config.steadyPollMs);
  return false;
}

// Held off on request (metalfleet.io/power-off): powered off, and kept off, instead of CAPMAAS's
// power-on. Not ready while off, as CAPMAAS's own powered-off machine; the reason says it was asked.
function holdOff(t: Turn, view: MaasView): void {
  t.setStatus({ ready: false });
  t.releaseSlot();
  if (view.powerState !== 'off') {
    t.deployed('False', POWERED_OFF_ON_REQUEST, `MAAS machine ${view.systemId} is being powered off on request (${POWER_OFF_ANNOTATION}); send power-on, or remove the annotation, to start it`);
    t.event('Normal', 'PoweringOff', `MAAS machine ${view.systemId} is powered ${view.powerState}: powering it off as asked (${POWER_OFF_ANNOTATION})`);
    t.call({ op: 'powerOff', systemId: view.systemId });
    return;
  }
  t.deployed('False', POWERED_OFF_ON_REQUEST, `MAAS machine ${view.systemId} is powered off on request (${POWER_OFF_ANNOTATION}); send power-on, or remove the annotation, to start it`);
  t.pollIn(t.s.config.steadyPollMs);
}

/** The current view of the machine, or undefined after asking MAAS (or while the next look is not due). */
function look(t: Turn): MaasView | undefined {
  const { view, systemId } = t.s;
  if (t.s.fresh && view) return view;
  if (view && t.now < t.s.nextPollAt) {
    t.requeue(t.s.nextPollAt - t.now);
    return undefined;
  }
  if (systemId) t.call({ op: 'get', systemId });
  return undefined;
}

/**
 * CAPMAAS writes spec.providerID, systemID and failureDomain from MAAS on every reconcile (§2.3
 * step 7). Ours are written at allocation; an object that still lacks one (pinned by systemID or
 * providerID alone, or our write never landed) gets it from MAAS, or Cluster API never copies a
 * providerID to the Machine. A providerID naming this machine is kept as it is (the Node has it).
 */
function writeMissingIds(t: Turn, view: MaasView): void {
  const spec = t.s.object.spec;
  const parsed = spec.providerID ? parseProviderId(spec.providerID) : null;
  const providerID = parsed?.ok && parsed.systemId === view.systemId && spec.providerID ? spec.providerID : formatProviderId(view.zone, view.systemId);
  if (spec.providerID === providerID && spec.systemID === view.systemId && spec.failureDomain === view.zone) return;
  t.writeIds({ providerID, systemID: view.systemId, failureDomain: view.zone });
}

/** Records what MAAS says (CAPMAAS §2.3 steps 7 and 9) and moves to the phase it means; true when it moved. */
function moved(t: Turn, view: MaasView): boolean {
  t.setStatus({
    // Unreadable power keeps the last power read: a BMC outage says nothing about the machine, and
    // a control plane read as off would be taken out of the cluster's DNS record.
    machineState: view.statusName, machinePowered: powerConfirmed(view) ? view.powerState === 'on' : t.s.status.machinePowered ?? false, hostname: view.hostname,
    ...(KNOWN.has(view.statusName) ? { addresses: addressesOf(view) } : {}),
  });
  writeMissingIds(t, view);
  const verdict = verdictOf(view, t.phase);
  if (verdict.phase === t.phase) return false;
  if (verdict.phase === 'failed') failMachine(t, verdict.why);
  else t.transition(verdict.phase);
  return true;
}
