import type { BareMetalHost, ProvisioningState } from '../../api/index.ts';
import {
  DETACHED_ANNOTATION, INSPECT_ANNOTATION, INSPECT_DISABLED, PAUSED_ANNOTATION, PAUSED_BY_CAPM3, REBOOT_ANNOTATION,
  REPROVISION_ANNOTATION, SERVICE_ANNOTATION, isDetached, isPaused, parseDetachedAnnotation, parseRebootAnnotation, rebootAnnotations,
} from '../../api/index.ts';
import type { CommandIntent, KindCommand, StoreWrite } from '../command-intent.ts';
import { hasImage, provisioningCancelled } from './images.ts';

// A command as the change to a host's spec or annotations that BMO (and our machine) would act
// on, so a command is exactly as durable as `kubectl annotate` or `kubectl edit` — and a user
// can see and undo it the same way. Pure: the host in, a decision out.

/** A user's intent for a host, as a spec or annotation change records it. */
export interface BmhIntent {
  /** null removes the annotation. */
  readonly annotations?: Readonly<Record<string, string | null>>;
  readonly online?: boolean;
}

type HostIntent = BmhIntent;
type HostCommand = KindCommand;
type RebootMode = 'soft' | 'hard';

export type BmhCommandIntent =
  | {
      readonly ok: true;
      /** What to record; `{}` (nothing) when alreadyApplied, except that a repeated delete stays 'delete'. */
      readonly intent: HostIntent | 'delete';
      /** The intent was already recorded: a repeat, nothing needs writing. */
      readonly alreadyApplied: boolean;
      /** For the reply: what was (or already had been) asked of the host. */
      readonly message: string;
    }
  | { readonly ok: false; readonly code: 'invalid' | 'conflict'; readonly message: string };

/** Who wrote the paused annotation is not recorded by BMO; the value is free. */
export const PAUSED_BY_COMMAND = '';

type Host = BareMetalHost;

const REBOOTABLE: ReadonlySet<ProvisioningState> = new Set(['available', 'ready', 'provisioned', 'externally provisioned']);
const PROVISIONED_LIKE: ReadonlySet<ProvisioningState> = new Set(['provisioned', 'externally provisioned']);
// Where a detach without force acts at once (reference/bmo.md §1.7); elsewhere it waits.
const DETACH_SETTLED: ReadonlySet<ProvisioningState> = new Set(['available', 'ready', 'provisioned', 'externally provisioned']);

export function intentFor(host: Host, cmd: HostCommand): BmhCommandIntent {
  const key = `${host.metadata.namespace}/${host.metadata.name}`;
  if (cmd.host !== key) {
    return refuse('invalid', `command for ${cmd.host} was matched to host ${key}; send it again naming the host it is for`);
  }
  if (host.metadata.deletionTimestamp) {
    if (cmd.type === 'attach') return attach(host, key);
    if (cmd.type === 'delete') return already('delete', `${key} is already being deleted (since ${host.metadata.deletionTimestamp}); watch for it to disappear`);
    return refuse('conflict', `${key} is being deleted (since ${host.metadata.deletionTimestamp}); ${cmd.type} is refused — recreate the host once it is gone if you still need it`);
  }
  switch (cmd.type) {
    case 'powerOn':
    case 'powerOff':
      return power(host, key, cmd.type === 'powerOn');
    case 'reboot':
      return reboot(host, key, cmd.mode);
    case 'inspect':
      return inspect(host, key);
    case 'reprovision':
      return reprovision(host, key, cmd.requestId);
    case 'service':
      return service(host, key, cmd.requestId);
    case 'pause':
      return isPaused(host.metadata.annotations)
        ? already({}, `${key} is already paused (${PAUSED_ANNOTATION} is set); send unpause to resume it`)
        : accept({ annotations: { [PAUSED_ANNOTATION]: PAUSED_BY_COMMAND } }, `${key} paused: reconciliation stops until unpause`);
    case 'unpause':
      return unpause(host, key);
    case 'detach':
      return detach(host, key);
    case 'attach':
      return attach(host, key);
    case 'delete':
      return accept('delete', deleteMessage(host, key));
    case 'release':
      return refuse('invalid', `${key} is a BareMetalHost; release applies to MaasMachines only — to give this host back, remove spec.image (it deprovisions) or send delete`);
  }
}

function power(host: Host, key: string, online: boolean): BmhCommandIntent {
  const word = online ? 'on' : 'off';
  if (!online && host.spec.disablePowerOff) {
    // The webhook rejects disablePowerOff with online false (reference/bmo.md §2.3 rule 11).
    return refuse('invalid', `${key} has spec.disablePowerOff set, so spec.online cannot be false; send reboot instead, or clear spec.disablePowerOff first`);
  }
  const notes = deferredNotes(host, 'its power is not managed');
  if (host.spec.online === online) return already({}, `${key} is already to be powered ${word} (spec.online is ${online})${notes}`);
  return accept({ online }, `${key} set to power ${word} (spec.online: ${online})${notes}`);
}

function reboot(host: Host, key: string, mode: RebootMode): BmhCommandIntent {
  const state = stateOf(host);
  if (!host.spec.online) return refuse('conflict', `${key} is meant to be off (spec.online is false); send powerOn to start it instead of reboot`);
  if (!REBOOTABLE.has(state)) {
    return refuse('conflict', `${key} is ${describe(state)}; its power is managed only when available, provisioned or externally provisioned — wait until it is, then send reboot again`);
  }
  if (isDetached(host.metadata.annotations)) return refuse('conflict', detachedRefusal(key, 'reboot'));
  const holds = rebootAnnotations(host.metadata.annotations).filter((a) => a.suffix !== null);
  if (holds.length > 0) {
    // Phased reboot (BMO #3271): suffixed annotations keep the host off until their writer removes them.
    return refuse('conflict', `${key} is held off by ${holds.map((h) => h.key).join(', ')} (a phased reboot); whoever set it powers the host back on by removing it — send reboot after that`);
  }
  // On an available host BMO honours only forced reboot requests (reference/bmo.md §1.8).
  const forced = !PROVISIONED_LIKE.has(state);
  const pendingValue = host.metadata.annotations?.[REBOOT_ANNOTATION];
  if (pendingValue !== undefined) {
    const pending = parseRebootAnnotation(pendingValue);
    const counts = !forced || pending.force;
    if (counts && (pending.mode === 'hard' || mode === 'soft')) {
      return already({}, `${key} already has a ${pending.mode} reboot pending (${REBOOT_ANNOTATION}); it powers on again once it has been off`);
    }
  }
  const value = JSON.stringify(forced ? { mode, force: true } : { mode });
  // A host that may never be off reboots in place (BMO's provisioner turns its power-off into a reboot).
  const how = host.spec.disablePowerOff ? 'it reboots in place (spec.disablePowerOff) and the annotation is removed' : 'it powers off, the annotation is removed and it powers on again';
  return accept(
    { annotations: { [REBOOT_ANNOTATION]: value } },
    `${key} will reboot (${mode}): ${REBOOT_ANNOTATION} set to ${value}; ${how}${deferredNotes(host, '')}`,
  );
}

function inspect(host: Host, key: string): BmhCommandIntent {
  const state = stateOf(host);
  if (host.spec.inspectionMode === 'disabled') {
    return refuse('conflict', `${key} has inspection disabled (spec.inspectionMode: disabled); set spec.inspectionMode to agent to allow inspect`);
  }
  if (host.metadata.annotations?.[INSPECT_ANNOTATION] === INSPECT_DISABLED) {
    return refuse('conflict', `${key} has inspection disabled (${INSPECT_ANNOTATION}: ${INSPECT_DISABLED}); remove that annotation to allow inspect`);
  }
  if (isDetached(host.metadata.annotations)) return refuse('conflict', detachedRefusal(key, 'inspect'));
  if (state === 'inspecting') return already({}, `${key} is already inspecting; its hardware details are refreshed when it finishes`);
  if (state !== 'available' && state !== 'ready') {
    const hint = PROVISIONED_LIKE.has(state) || state === 'provisioning'
      ? 'remove spec.image to deprovision it first'
      : 'wait until it is available';
    return refuse('conflict', `${key} is ${describe(state)}; hosts are re-inspected only from available — ${hint}, then send inspect again`);
  }
  if (host.metadata.annotations?.[INSPECT_ANNOTATION] === '') {
    return already({}, `${key} already has an inspection requested (${INSPECT_ANNOTATION}); it starts when a capacity slot is free`);
  }
  return accept({ annotations: { [INSPECT_ANNOTATION]: '' } }, `${key} will be inspected again: ${INSPECT_ANNOTATION} set; it starts when a capacity slot is free${deferredNotes(host, '')}`);
}

function reprovision(host: Host, key: string, requestId: string | undefined): BmhCommandIntent {
  const state = stateOf(host);
  const pending = host.metadata.annotations?.[REPROVISION_ANNOTATION];
  if (pending !== undefined) {
    const by = pending ? ` by request ${pending}` : '';
    return already({}, `${key} already has a reprovision pending (${REPROVISION_ANNOTATION}${by}); it deprovisions and deploys spec.image again`);
  }
  if (state === 'externally provisioned') {
    return refuse('conflict', `${key} was provisioned outside metalfleet (spec.externallyProvisioned); set spec.externallyProvisioned to false so it is managed as provisioned, then send reprovision again`);
  }
  if (state !== 'provisioned') {
    const busy = state === 'deprovisioning' || state === 'provisioning';
    const retry = busy ? ' If you sent reprovision for it before, that one is under way.' : '';
    return refuse('conflict', `${key} is ${describe(state)}; only a provisioned host can be reprovisioned — wait until it is provisioned, then send reprovision again.${retry}`);
  }
  if (!hasImage(host)) {
    return refuse('conflict', `${key} has no spec.image (nor spec.customDeploy), so there is nothing to deploy again; set spec.image to the image it should run`);
  }
  if (!host.spec.online) {
    return refuse('conflict', `${key} is meant to be off (spec.online is false) and would be left deprovisioned; send powerOn first, then reprovision`);
  }
  if (isDetached(host.metadata.annotations)) return refuse('conflict', detachedRefusal(key, 'reprovision'));
  if (imageChanged(host)) {
    return already({}, `${key} has a spec.image that differs from the deployed one, so it is already being deprovisioned and deployed with the new image`);
  }
  return accept(
    { annotations: { [REPROVISION_ANNOTATION]: requestId ?? '' } },
    `${key} will be reprovisioned: ${REPROVISION_ANNOTATION} set; it deprovisions (when a capacity slot is free) and deploys ${host.spec.customDeploy?.method ? 'spec.customDeploy' : 'spec.image'} again${deferredNotes(host, '')}`,
  );
}

// What the host alone shows is checked here; whether it has firmware changes its HostUpdatePolicy
// allows is its machine's to know (the companions are read by its actor): a request with none is
// removed there with a ServiceRefused event that says why (machines/bmh/servicing.ts).
function service(host: Host, key: string, requestId: string | undefined): BmhCommandIntent {
  const state = stateOf(host);
  const pending = host.metadata.annotations?.[SERVICE_ANNOTATION];
  if (pending !== undefined) {
    const by = pending ? ` by request ${pending}` : '';
    return already({}, `${key} already has a service request pending (${SERVICE_ANNOTATION}${by}); it reboots and applies its pending firmware changes`);
  }
  if (!PROVISIONED_LIKE.has(state)) {
    const hint = state === 'available' || state === 'ready'
      ? 'an available host applies its firmware changes by itself (it goes to preparing)'
      : 'wait until it is provisioned';
    return refuse('conflict', `${key} is ${describe(state)}; only a provisioned host is serviced — ${hint}`);
  }
  if (host.status?.operationalStatus === 'servicing') return already({}, `${key} is being serviced already; its firmware changes are being applied`);
  if (!host.spec.online) {
    return refuse('conflict', `${key} is meant to be off (spec.online is false); a provisioned host is serviced as it powers on — send powerOn instead`);
  }
  if (host.spec.disablePowerOff) {
    return refuse('conflict', `${key} has spec.disablePowerOff set, so it is never off and is never serviced (BMO services a host as it powers on); clear spec.disablePowerOff first`);
  }
  if (isDetached(host.metadata.annotations)) return refuse('conflict', detachedRefusal(key, 'service'));
  return accept(
    { annotations: { [SERVICE_ANNOTATION]: requestId ?? '' } },
    `${key} will be serviced: ${SERVICE_ANNOTATION} set; it powers off and, as it powers on, applies the firmware changes its HostUpdatePolicy allows (onReboot) when a capacity slot is free — with none, the request is refused by a ServiceRefused event${deferredNotes(host, '')}`,
  );
}

function unpause(host: Host, key: string): BmhCommandIntent {
  const value = host.metadata.annotations?.[PAUSED_ANNOTATION];
  if (value === undefined) return already({}, `${key} is not paused; nothing to do`);
  if (value === PAUSED_BY_CAPM3) {
    return refuse('conflict', `${key} was paused by Cluster API Provider Metal3 (${PAUSED_ANNOTATION}: ${PAUSED_BY_CAPM3}) while it moves the host; CAPM3 removes the annotation itself — leave it, or remove it by hand only if that move was abandoned`);
  }
  return accept({ annotations: { [PAUSED_ANNOTATION]: null } }, `${key} unpaused: ${PAUSED_ANNOTATION} removed, reconciliation resumes`);
}

function detach(host: Host, key: string): BmhCommandIntent {
  if (isDetached(host.metadata.annotations)) {
    return already({}, `${key} already has ${DETACHED_ANNOTATION}; remove that annotation to attach it again`);
  }
  const state = stateOf(host);
  const when = DETACH_SETTLED.has(state)
    ? 'it is removed from the backend without deprovisioning'
    : `it is ${describe(state)} and is removed from the backend, without deprovisioning, once available or provisioned`;
  // "" is BMO's plain detach: deleting the detached host later skips deprovisioning.
  return accept({ annotations: { [DETACHED_ANNOTATION]: '' } }, `${key} will be detached (${DETACHED_ANNOTATION} set): ${when}; remove the annotation to attach it again${deferredNotes(host, '')}`);
}

function attach(host: Host, key: string): BmhCommandIntent {
  if (host.metadata.annotations?.[DETACHED_ANNOTATION] === undefined) {
    return already({}, `${key} has no ${DETACHED_ANNOTATION}, so it is attached already; nothing to do`);
  }
  const then = host.metadata.deletionTimestamp
    ? 'it is being deleted, so the deletion goes on with the backend: deprovisioned if needed, then removed'
    : `it is registered with the backend again and adopted as ${describe(stateOf(host))}, without deprovisioning`;
  return accept({ annotations: { [DETACHED_ANNOTATION]: null } }, `${key} attached: ${DETACHED_ANNOTATION} removed; ${then}${deferredNotes(host, '')}`);
}

function deleteMessage(host: Host, key: string): string {
  const value = host.metadata.annotations?.[DETACHED_ANNOTATION];
  const detach = value === undefined ? null : parseDetachedAnnotation(value);
  if (detach?.ok && detach.value.deleteAction === 'delay') {
    return `${key} marked for deletion; it is detached with deleteAction delay, so it stays until ${DETACHED_ANNOTATION} is removed`;
  }
  if (detach) return `${key} marked for deletion; it is detached, so it is removed without deprovisioning`;
  return `${key} marked for deletion; it is deprovisioned if needed and removed from the backend, then from the store`;
}

// A host whose deployed image is not spec's is about to deprovision anyway, which redeploys it.
function imageChanged(host: Host): boolean {
  return host.status !== undefined && provisioningCancelled({ ...host, status: host.status });
}

function deferredNotes(host: Host, detachedWhat: string): string {
  const notes: string[] = [];
  if (isPaused(host.metadata.annotations)) notes.push(`it is paused (${PAUSED_ANNOTATION}), so nothing happens until it is unpaused`);
  if (detachedWhat && isDetached(host.metadata.annotations)) notes.push(`it is detached, so ${detachedWhat} until ${DETACHED_ANNOTATION} is removed`);
  return notes.length > 0 ? `; ${notes.join('; ')}` : '';
}

function detachedRefusal(key: string, command: string): string {
  return `${key} is detached (${DETACHED_ANNOTATION}), so the backend does not manage it; remove that annotation to attach it again, then send ${command}`;
}

function stateOf(host: Host): ProvisioningState {
  return host.status?.provisioning.state ?? '';
}

function describe(state: ProvisioningState): string {
  return state === '' ? 'new (not registered yet)' : state;
}

function accept(intent: HostIntent | 'delete', message: string): BmhCommandIntent {
  return { ok: true, intent, alreadyApplied: false, message };
}

function already(intent: HostIntent | 'delete', message: string): BmhCommandIntent {
  return { ok: true, intent, alreadyApplied: true, message };
}

function refuse(code: 'invalid' | 'conflict', message: string): BmhCommandIntent {
  return { ok: false, code, message };
}

/**
 * BareMetalHost's commands as the kind declares them: the host store parses every host with
 * BareMetalHost on the way in, so the stored value is a host (checked for its shape only, as a
 * command's cost is mostly this decision); `online` is its one spec field a command sets.
 */
export const BMH_COMMAND_INTENT: CommandIntent = {
  noun: 'host',
  decide(stored, command) {
    if (!isHost(stored)) return { ok: false, code: 'conflict', message: `BareMetalHost ${command.host} has no spec in the store, so its machine cannot act on ${command.type}; apply a valid BareMetalHost first` };
    const decision = intentFor(stored, command);
    if (!decision.ok) return decision;
    return { ok: true, write: decision.intent === 'delete' ? 'delete' : asWrite(decision.intent), alreadyApplied: decision.alreadyApplied, message: decision.message };
  },
  state: (stored) => (isHost(stored) ? stateOf(stored) : ''),
};

function asWrite(intent: BmhIntent): StoreWrite {
  return {
    ...(intent.annotations ? { annotations: intent.annotations } : {}),
    ...(intent.online === undefined ? {} : { spec: { online: intent.online } }),
  };
}

function isHost(value: unknown): value is Host {
  const v = value as Partial<Host> | null;
  return typeof v === 'object' && v !== null && typeof v.metadata === 'object' && typeof v.spec === 'object';
}
