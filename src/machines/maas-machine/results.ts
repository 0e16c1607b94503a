import { formatProviderId, MACHINE_DEPLOYED_REASONS as R } from '../../api/index.ts';
import { applyEarlierAllocation } from './adopt.ts';
import { finishDeletion, heldByUnnamedUser, releaseRefusedRead } from './deleting.ts';
import { failMachine, failReleased } from './failure.ts';
import { powerOffRequested, releaseRequested } from './intents.ts';
import { heldByAnotherUser, releaseRefusedRead as commandReleaseRefusedRead } from './release.ts';
import type { Turn } from './turn.ts';
import { successResetsBackoff } from '../retry-reads.ts';
import { imageFound, imageMissing, staticLinked, staticLinkFailed } from './deploy-options.ts';
import type { DnsLookupResult, MaasFailureReason, MaasOp, MaasResult, MaasView } from './types.ts';

// What a backend call's result does to the machine.
export function applyResult(t: Turn, op: MaasOp, r: MaasResult): void {
  if (r.kind === 'transient' || r.kind === 'failed') t.s.failedOp = op;
  if (r.kind === 'transient') {
    // A change whose answer was lost (a timeout after the request went out) may have reached
    // MAAS: the machine is read before anything is asked again, as the client's error says to.
    // A second deploy would meet MAAS's 409 "Can't deploy a machine that is in the 'Deploying'
    // state" and fail a deploy that is running. (A lost allocate is looked for by agent name.)
    if (CHANGES.has(op)) {
      t.s.fresh = false;
      t.s.nextPollAt = Math.min(t.s.nextPollAt, t.now);
    }
    t.backoff();
    return;
  }
  if (op === 'findAllocated' && (r.kind === 'listed' || r.kind === 'done')) {
    succeeded(t, op);
    applyEarlierAllocation(t, r.kind === 'listed' ? r.machines : r.machine ? [r.machine] : []);
    return;
  }
  if (r.kind === 'listed') {
    // Only findAllocated lists; a list for another call is the driver's bug: retried, not trusted.
    t.event('Warning', 'MachineCallFailed', `${op} answered with a list of machines`);
    t.backoff();
    return;
  }
  if (r.kind === 'notFound' && op === 'findAllocated') {
    failed(t, op, 'MAAS answered 404 to a machines listing', undefined);
    return;
  }
  if (r.kind === 'notFound') {
    if (t.phase === 'deleting') finishDeletion(t, `MAAS machine ${t.s.systemId ?? ''} is already gone`);
    else if (op === 'get' && commandRefused(t)) commandReleaseRefusedRead(t, undefined, true);
    else if (op === 'release') failReleased(t, releaseRequested(t.s.object) ?? '', null, true);
    else failMachine(t, 'notFound');
    return;
  }
  if (r.kind === 'failed' && r.reason === 'imageNotFound') {
    imageMissing(t, r.message);
    return;
  }
  if (r.kind === 'failed') {
    failed(t, op, r.message, r.reason);
    return;
  }
  succeeded(t, op);
  switch (op) {
    case 'allocate':
      if (!r.machine) {
        t.backoff();
        return;
      }
      imageFound(t);
      allocated(t, r.machine);
      return;
    case 'swapOff':
      t.s.swapped = true;
      see(t, r.machine);
      return;
    case 'setMinHweKernel':
      t.s.minKernelSet = true;
      see(t, r.machine);
      return;
    case 'linkStatic':
      staticLinked(t, r.machine?.ipAddresses ?? []);
      see(t, r.machine);
      return;
    case 'deploy':
      imageFound(t);
      see(t, r.machine);
      t.deployed('False', R.MachineDeploying);
      t.transition('deploying');
      return;
    case 'release':
      // Not deleting: a release asked for by command (release.ts).
      if (t.phase === 'deleting') finishDeletion(t, `released MAAS machine ${t.s.systemId ?? ''}`);
      else failReleased(t, releaseRequested(t.s.object) ?? '', r.machine ?? null);
      return;
    case 'powerOn':
    case 'powerOff': {
      see(t, r.machine);
      if (op === 'powerOff' && r.machine) t.setStatus({ machinePowered: r.machine.powerState === 'on' });
      // Looked at again after the power requeue, or at once when the intent changed meanwhile.
      const asked = powerOffRequested(t.s.object) === (op === 'powerOff');
      t.pollIn(asked ? t.s.config.powerOnRequeueMs : 0);
      return;
    }
    case 'get':
      see(t, r.machine);
      if (t.phase === 'deleting' && t.s.releaseRefused) releaseRefusedRead(t, r.machine);
      else if (commandRefused(t)) commandReleaseRefusedRead(t, r.machine);
      return;
    case 'findAllocated':
      // Answered above.
  }
}

// The read after a release asked by command that MAAS refused (409 or 403) is in flight (release.ts).
function commandRefused(t: Turn): boolean {
  return t.phase !== 'deleting' && t.s.releaseRefused && releaseRequested(t.s.object) !== null;
}

// The calls that change a machine MAAS holds for us.
const CHANGES: ReadonlySet<MaasOp> = new Set(['swapOff', 'setMinHweKernel', 'linkStatic', 'deploy', 'release', 'powerOn', 'powerOff']);

// The reads made before an allocate or deploy is retried (retry-reads.ts).
const READS: ReadonlySet<MaasOp> = new Set(['findAllocated', 'get']);

function succeeded(t: Turn, op: MaasOp): void {
  if (!successResetsBackoff(op, t.s.failedOp, READS)) return;
  t.s.attempts = 0;
  t.s.failedOp = null;
}

export function applyDnsResult(t: Turn, r: DnsLookupResult): void {
  if (r.kind === 'transient') {
    t.backoff();
    return;
  }
  t.s.dnsIps = r.kind === 'found' ? [...r.ips] : [];
  t.s.nextDnsAt = t.now + t.s.config.dnsPollMs;
}

// The providerID is persisted at once: a crash now must not leak an allocated machine.
function allocated(t: Turn, m: MaasView): void {
  t.s.systemId = m.systemId;
  t.s.swapped = false;
  t.s.minKernelSet = false;
  t.s.staticLinked = false;
  see(t, m);
  t.writeIds({ providerID: formatProviderId(m.zone, m.systemId), systemID: m.systemId, failureDomain: m.zone });
  t.event('Normal', 'MachineAllocated', `allocated ${m.hostname} (${m.systemId}) in zone ${m.zone}`);
  t.transition('allocated');
}

function failed(t: Turn, op: MaasOp, message: string, reason: MaasFailureReason | undefined): void {
  const text = `${op} failed: ${message}`;
  switch (op) {
    case 'linkStatic':
      staticLinkFailed(t, message, reason);
      return;
    case 'setMinHweKernel':
      // MAAS validates min_hwe_kernel against its kernels (400), and only an admin may PUT a machine (403).
      deployFailed(t, reason === 'forbidden' ? `${text} (minHweKernel is set on the MAAS machine, which needs an admin key)` : text);
      return;
    case 'swapOff':
      if (reason === 'forbidden') {
        // CAPMAAS #85: only an admin key may turn swap off; deploy with swap rather than never.
        t.s.swapped = true;
        t.event('Warning', 'SwapNotDisabled', `${text}; deploying with swap on (set skipSwap for a non-admin key)`);
        return;
      }
      deployFailed(t, text);
      return;
    case 'allocate':
    case 'deploy':
      deployFailed(t, text);
      return;
    case 'release':
      t.event('Warning', 'MachineReleaseFailed', text);
      // A 409 to a release (capmaas.md §3.2: "Machine cannot be released in its current state
      // ('New')."): MAAS may have taken the machine back, and retrying would never end. It is read
      // at once (deleting.ts for a deletion, release.ts for a release asked by command); the
      // backoff comes after that read if the machine is still ours. A 403 is read too: MAAS
      // answers a non-admin key so when another user holds the machine now (release needs edit
      // permission on it); a machine still this key's own is released again after the backoff.
      if ((reason === 'conflict' || reason === 'forbidden') && (t.phase === 'deleting' || releaseRequested(t.s.object) !== null)) {
        t.s.releaseRefused = true;
        return;
      }
      t.backoff();
      return;
    case 'get':
      // The read after a refused release found the machine held by another MAAS user, whom MAAS
      // does not name to this key (deleting.ts): the deletion is done, never retried.
      if (reason === 'heldByAnotherUser' && t.phase === 'deleting' && t.s.releaseRefused) {
        heldByUnnamedUser(t);
        return;
      }
      // Likewise after a commanded release refused (409 or 403): the MaasMachine fails, never retried.
      if (reason === 'heldByAnotherUser' && commandRefused(t)) {
        heldByAnotherUser(t, releaseRequested(t.s.object) ?? '');
        return;
      }
    // falls through
    case 'findAllocated':
      // CAPMAAS's findMachine: a look at MAAS that fails says so in MachineDeployed (a wrong API
      // key, 401, would otherwise leave the MaasMachine silent). Only refusals that will not
      // pass by themselves come here; a transient one (MAAS down) keeps the last word.
      t.deployed('Unknown', R.MachineNotFound, text);
      t.event('Warning', 'MachineCallFailed', text);
      t.backoff();
      return;
    case 'powerOn':
    case 'powerOff':
      t.event('Warning', 'MachineCallFailed', text);
      // MAAS is read again before the power action is repeated (CAPMAAS's next reconcile reads the
      // machine first): a 409 "Can't start node: it hasn't been allocated." means it was released
      // behind our back, which the view read before the call cannot show.
      t.s.fresh = false;
      t.s.nextPollAt = t.now;
      t.backoff();
  }
}

// CAPMAAS retries a deploy that MAAS refused (its backoff), on the same machine: the providerID
// never changes. The slot is given back while waiting, and MAAS is looked at again first.
function deployFailed(t: Turn, text: string): void {
  t.event('Warning', 'MachineDeployFailed', text);
  t.setStatus({ ready: false });
  t.deployed('False', R.MachineDeployFailed, text);
  t.releaseSlot();
  t.s.fresh = false;
  t.s.nextPollAt = t.now;
  t.backoff();
}

function see(t: Turn, view: MaasView | undefined): void {
  if (!view) return;
  t.s.view = view;
  t.s.fresh = true;
}
