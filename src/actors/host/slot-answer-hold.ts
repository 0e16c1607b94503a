import type { BareMetalHostStatus } from '../../api/index.ts';
import type { BmhState } from '../../machines/bmh/index.ts';

/**
 * How long a host's status may wait for the broker's answer to its slot request before it is
 * written anyway: the answer (queued or granted) comes within the same burst of turns; a broker
 * slow to answer (a busy node, a remote broker) must not keep the status from the store.
 */
export const SLOT_ANSWER_HOLD_MS = 1_000;

// What a reader of a host's status watches (BMO's states, conditions, operational status and
// errors, the power state): a step that changes one of them is written before the host waits on
// anything. Conditions are rebuilt only when one of them changed (machines/bmh/step.ts), so
// their identity tells.
function observableChange(from: BareMetalHostStatus, to: BareMetalHostStatus): boolean {
  if (from === to) return false;
  return from.provisioning.state !== to.provisioning.state
    || from.operationalStatus !== to.operationalStatus
    || from.errorType !== to.errorType
    || from.errorMessage !== to.errorMessage
    || from.errorCount !== to.errorCount
    || from.poweredOn !== to.poweredOn
    || from.conditions !== to.conditions;
}

/**
 * Whether a host's turn may leave its staged status for the next turn (issue 30: 7 status writes
 * a host in the scale bench). A turn that asked for a slot and did nothing else that waits (no
 * backend call) hears the broker's answer next, and that answer's turn writes again (`delayed`,
 * or the operation it starts): a status whose only news is bookkeeping (the provisioning ID, the
 * credentials tried, a timestamp) goes out with that write instead of one of its own. Any
 * observable change, a backend call or a timer asked for in the turn writes at its end as before.
 */
export class SlotAnswerHold {
  private askedSlot = false;
  private mustWrite = false;

  /** One step of the turn, from its state before to its state after. */
  stepped(before: BmhState, after: BmhState): void {
    if (after.slot.phase === 'waiting' && before.slot.phase !== 'waiting') this.askedSlot = true;
    if (observableChange(before.host.status, after.host.status)) this.mustWrite = true;
  }

  /** The turn made a backend call or asked for a timer: the host waits on it, so its status goes out. */
  waits(): void {
    this.mustWrite = true;
  }

  /** At the turn's end: true when its status may wait for the slot's answer. Starts the next turn afresh. */
  turnEnded(): boolean {
    const hold = this.askedSlot && !this.mustWrite;
    this.askedSlot = false;
    this.mustWrite = false;
    return hold;
  }
}
