import { MaasMachine as MaasMachineSchema } from '../../api/index.ts';
import type { HostCommandName, MaasMachine } from '../../api/index.ts';
import type { CommandIntent, KindCommand } from '../command-intent.ts';
import { ACTOR_CRASHED } from './failure.ts';
import { typedIntent } from '../command-intent.ts';
import {
  CAPI_PAUSED_ANNOTATION, POWER_OFF_ANNOTATION, RELEASE_ANNOTATION, powerOffRequested, releaseRequested,
} from './intents.ts';

// A command on a MaasMachine as the annotation its actor reads (machines/maas-machine/intents.ts),
// so it is exactly as durable as `kubectl annotate`, and undone the same way. Pure: the typed
// MaasMachine in, a decision out.

export type MaasCommandIntent =
  | {
      readonly ok: true;
      /** Annotations to set (string) or remove (null); `{}` when alreadyApplied. */
      readonly annotations: Readonly<Record<string, string | null>>;
      readonly alreadyApplied: boolean;
      readonly message: string;
    }
  | { readonly ok: false; readonly code: 'invalid' | 'conflict'; readonly message: string };

type HostCommand = KindCommand;

/** What a MaasMachine takes, in the words of `metalfleet host`: its kind.ts declares these. */
export const MAAS_MACHINE_COMMANDS: readonly HostCommandName[] = ['powerOn', 'powerOff', 'release', 'pause', 'unpause'];

const HINTS: Partial<Record<HostCommand['type'], string>> = {
  reboot: 'send powerOff, then powerOn',
  delete: 'delete its Cluster API Machine, which deletes the MaasMachine and releases its MAAS machine',
  reprovision: 'send release: Cluster API replaces the Machine with one deployed afresh',
};

export function maasIntentFor(mm: MaasMachine, cmd: HostCommand): MaasCommandIntent {
  const key = `${mm.metadata.namespace}/${mm.metadata.name}`;
  if (cmd.host !== key) return refuse('invalid', `command for ${cmd.host} was matched to MaasMachine ${key}; send it again naming the machine it is for`);
  if (!MAAS_MACHINE_COMMANDS.includes(cmd.type)) return notTaken(key, cmd.type);
  switch (cmd.type) {
    case 'pause':
      return mm.metadata.annotations?.[CAPI_PAUSED_ANNOTATION] !== undefined
        ? already(`MaasMachine ${key} is already paused (${CAPI_PAUSED_ANNOTATION} is set); send unpause to resume it`)
        : accept({ [CAPI_PAUSED_ANNOTATION]: '' }, `MaasMachine ${key} paused (${CAPI_PAUSED_ANNOTATION} set): no MAAS call until unpause`);
    case 'unpause':
      return mm.metadata.annotations?.[CAPI_PAUSED_ANNOTATION] === undefined
        ? already(`MaasMachine ${key} has no ${CAPI_PAUSED_ANNOTATION}; nothing to do (a paused Cluster pauses its machines too: unpause the Cluster)`)
        : accept({ [CAPI_PAUSED_ANNOTATION]: null }, `MaasMachine ${key} unpaused: ${CAPI_PAUSED_ANNOTATION} removed, reconciliation resumes`);
    case 'powerOn':
    case 'powerOff':
    case 'release':
      return driven(mm, key, cmd.type, cmd.requestId);
    default:
      return notTaken(key, cmd.type);
  }
}

function notTaken(key: string, type: HostCommand['type']): MaasCommandIntent {
  const hint = HINTS[type];
  return refuse('invalid', `${key} is a MaasMachine, which takes ${MAAS_MACHINE_COMMANDS.join(', ')}; ${type} applies to BareMetalHosts only${hint ? ` — ${hint}` : ''}`);
}

function driven(mm: MaasMachine, key: string, type: 'powerOn' | 'powerOff' | 'release', requestId: string | undefined): MaasCommandIntent {
  const cmd = { type, requestId };
  if (mm.metadata.deletionTimestamp) {
    return refuse('conflict', `MaasMachine ${key} is being deleted (since ${mm.metadata.deletionTimestamp}), which releases its MAAS machine; ${cmd.type} is refused`);
  }
  const failure = mm.status?.failureReason;
  // A crash marker is not a failure of the machine: the command's write changes the object, which
  // starts its actor again (failure.ts, ACTOR_CRASHED), and the command is acted on then.
  if (failure && failure !== ACTOR_CRASHED) {
    return refuse('conflict', `MaasMachine ${key} has failed (${failure}: ${mm.status?.failureMessage ?? 'no message'}) and is not driven any more; Cluster API's MachineHealthCheck replaces it, or delete its Machine`);
  }
  const releasing = releaseRequested(mm);
  if (releasing !== null) {
    const by = releasing ? ` by request ${releasing}` : '';
    if (cmd.type === 'release') return already(`MaasMachine ${key} already has a release pending (${RELEASE_ANNOTATION}${by}); it is released and marked failed`);
    return refuse('conflict', `MaasMachine ${key} is being released (${RELEASE_ANNOTATION}${by}); ${cmd.type} is refused — it is marked failed and replaced`);
  }
  const notes = paused(mm);
  switch (cmd.type) {
    case 'powerOff': {
      if (powerOffRequested(mm)) return already(`MaasMachine ${key} is already held powered off (${POWER_OFF_ANNOTATION}); send powerOn to start it${notes}`);
      const when = mm.status?.initialization?.provisioned === true ? 'it is powered off and kept off' : 'it is powered off once deployed, and kept off';
      return accept({ [POWER_OFF_ANNOTATION]: '' }, `MaasMachine ${key} will be held powered off (${POWER_OFF_ANNOTATION} set): ${when} until powerOn${notes}`);
    }
    case 'powerOn':
      if (!powerOffRequested(mm)) return already(`MaasMachine ${key} is not held off (no ${POWER_OFF_ANNOTATION}); a deployed machine is kept powered on${notes}`);
      return accept({ [POWER_OFF_ANNOTATION]: null }, `MaasMachine ${key} will be powered on: ${POWER_OFF_ANNOTATION} removed, so a deployed machine found off is powered on${notes}`);
    case 'release':
      return accept(
        { [RELEASE_ANNOTATION]: cmd.requestId ?? '' },
        `MaasMachine ${key} will be released (${RELEASE_ANNOTATION} set): its MAAS machine goes back to MAAS when a capacity slot is free, then the MaasMachine is marked failed (providerID kept) so Cluster API replaces it${notes}`,
      );
  }
}

function paused(mm: MaasMachine): string {
  return mm.metadata.annotations?.[CAPI_PAUSED_ANNOTATION] !== undefined ? `; it is paused (${CAPI_PAUSED_ANNOTATION}), so nothing happens until it is unpaused` : '';
}

function accept(annotations: Record<string, string | null>, message: string): MaasCommandIntent {
  return { ok: true, annotations, alreadyApplied: false, message };
}

function already(message: string): MaasCommandIntent {
  return { ok: true, annotations: {}, alreadyApplied: true, message };
}

function refuse(code: 'invalid' | 'conflict', message: string): MaasCommandIntent {
  return { ok: false, code, message };
}

/** MaasMachine's commands as the kind declares them: annotations on the object, typed with its schema first. */
export const MAAS_MACHINE_COMMAND_INTENT: CommandIntent = typedIntent('MaasMachine', MaasMachineSchema, (mm, command) => {
  const decision = maasIntentFor(mm, command);
  return decision.ok ? { ok: true, write: { annotations: decision.annotations }, alreadyApplied: decision.alreadyApplied, message: decision.message } : decision;
}, (mm) => mm.status?.machineState ?? '');
