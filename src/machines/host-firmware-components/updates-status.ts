import type { FirmwareComponentStatus, FirmwareUpdate, HostFirmwareComponents, HostFirmwareComponentsStatus, MetaConditionValue } from '../../api/index.ts';
import { deepEqual, FIRMWARE_COMPONENTS_CONDITIONS, INVALID_COMPONENT_REASON, invalidComponentsMessage, setMetaCondition, VALID_COMPONENT_REASON } from '../../api/index.ts';
import { componentsStatus } from './components-status.ts';

// A HostFirmwareComponents' status as BMO keeps it:
// - status.updates: the updates flashed. BMO's saveHostFirmwareComponents (baremetalhost_
//   controller.go) copies spec.updates there for the preparing or servicing that sends them;
//   here it is written once that step finished, so a step that failed records nothing. When the
//   spec asks nothing that is not flashed (updates removed, reordered, or none left), no step
//   runs here to copy it, so status.updates becomes the spec at once, as BMO's next step makes it.
// - status.components: what the backend lists (components-status.ts).
// - conditions, as its updateHostFirmware (hostfirmwarecomponents_controller.go) sets them:
//   ChangeDetected True while spec.updates differ from status.updates (both empty: no change),
//   and then Valid False (InvalidComponent) when a component is not one BMO knows; otherwise
//   Valid True and ChangeDetected False; reason OK but for the invalid case. metav1's
//   SetStatusCondition: lastTransitionTime moves only when a condition's status flips, and any
//   change of a condition (its observedGeneration too) is a change to write.
// Written only when something changed, lastUpdated then the time of the write.

export interface ComponentsStatusChange {
  readonly status: HostFirmwareComponentsStatus;
  /** Why spec.updates are not valid (the Valid message, BMO's ValidationFailed event); null when they are. */
  readonly invalid: string | null;
}

/** What was learnt: the components the backend lists (a firmware read), the updates a finished step flashed. */
export interface ComponentsSeen {
  readonly components?: readonly FirmwareComponentStatus[];
  readonly applied?: readonly FirmwareUpdate[];
}

/** The new status, or null when BMO would write none. `now`: RFC 3339. */
export function componentsUpdatesStatus(hfc: HostFirmwareComponents, seen: ComponentsSeen, now: string): ComponentsStatusChange | null {
  const read = seen.components ? componentsStatus(hfc, seen.components, now) : null;
  let status: HostFirmwareComponentsStatus = read ?? { ...hfc.status };
  let dirty = read !== null;
  const wanted = hfc.spec?.updates ?? [];
  const flashed = seen.applied && seen.applied.length > 0 ? appliedUpdates(wanted, status.updates ?? [], seen.applied) : status.updates ?? [];
  // Every update wanted flashed already (some removed, reordered, or none left): no preparing or
  // servicing runs for it here, so the copy of spec.updates BMO's next one makes is made now.
  const updates = allFlashed(wanted, flashed) ? wanted.map((u) => ({ component: u.component, url: u.url })) : flashed;
  if (!deepEqual(updates, status.updates ?? [])) {
    const { updates: _old, ...rest } = status;
    // omitempty, as BMO's Go type writes it.
    status = updates.length > 0 ? { ...rest, updates } : rest;
    dirty = true;
  }
  const recorded = status.updates ?? [];
  const mismatch = !(wanted.length === 0 && recorded.length === 0) && !deepEqual(wanted, recorded);
  const invalid = mismatch ? invalidComponentsMessage(wanted) : null;
  const judged: MetaConditionValue[] = mismatch
    ? [
        { type: FIRMWARE_COMPONENTS_CONDITIONS.changeDetected, status: 'True', reason: VALID_COMPONENT_REASON, message: '' },
        invalid === null
          ? { type: FIRMWARE_COMPONENTS_CONDITIONS.valid, status: 'True', reason: VALID_COMPONENT_REASON, message: '' }
          : { type: FIRMWARE_COMPONENTS_CONDITIONS.valid, status: 'False', reason: INVALID_COMPONENT_REASON, message: invalid },
      ]
    : [
        { type: FIRMWARE_COMPONENTS_CONDITIONS.valid, status: 'True', reason: VALID_COMPONENT_REASON, message: '' },
        { type: FIRMWARE_COMPONENTS_CONDITIONS.changeDetected, status: 'False', reason: VALID_COMPONENT_REASON, message: '' },
      ];
  const generation = hfc.metadata.generation ?? 0;
  let conditions = status.conditions;
  for (const value of judged) {
    const change = setMetaCondition(conditions, value, generation, now);
    conditions = change.conditions;
    dirty ||= change.changed;
  }
  if (!dirty) return null;
  return { status: { ...status, ...(conditions ? { conditions } : {}), lastUpdated: now }, invalid };
}

/** Each wanted update (same component, same URL) is among those flashed: nothing left to flash. */
function allFlashed(wanted: readonly FirmwareUpdate[], flashed: readonly FirmwareUpdate[]): boolean {
  return wanted.every((u) => flashed.some((a) => a.component === u.component && a.url === u.url));
}

/**
 * What status.updates holds once `sent` was flashed: the spec's updates that are flashed now —
 * recorded before (same component, same URL) or just sent — in the spec's order, so that it is
 * the spec once all of it is (BMO copies spec.updates). An update sent that the spec no longer
 * asks for (its URL changed while the step ran) is not recorded: the spec's URL is still to flash.
 */
export function appliedUpdates(wanted: readonly FirmwareUpdate[], recorded: readonly FirmwareUpdate[], sent: readonly FirmwareUpdate[]): FirmwareUpdate[] {
  const done = (u: FirmwareUpdate, list: readonly FirmwareUpdate[]): boolean => list.some((a) => a.component === u.component && a.url === u.url);
  return wanted.filter((u) => done(u, sent) || done(u, recorded)).map((u) => ({ component: u.component, url: u.url }));
}
