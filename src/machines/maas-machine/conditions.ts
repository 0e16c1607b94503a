import type { Condition } from '../../api/index.ts';

export type ConditionStatus = 'True' | 'False' | 'Unknown';
export interface ConditionValue {
  readonly status: ConditionStatus;
  readonly reason: string;
  readonly message?: string;
}

/** Sets one condition; lastTransitionTime moves only when the status does (Kubernetes' rule). */
export function setCondition(list: readonly Condition[] | undefined, type: string, value: ConditionValue, now: number): Condition[] {
  const prev = list?.find((c) => c.type === type);
  const lastTransitionTime = prev && prev.status === value.status && prev.lastTransitionTime ? prev.lastTransitionTime : new Date(now).toISOString();
  const next: Condition = { type, status: value.status, reason: value.reason, ...(value.message ? { message: value.message } : {}), lastTransitionTime };
  if (prev && prev.status === next.status && prev.reason === next.reason && (prev.message ?? '') === (next.message ?? '')) return [...(list ?? [])];
  return [...(list ?? []).filter((c) => c.type !== type), next];
}

export function removeCondition(list: readonly Condition[] | undefined, type: string): Condition[] {
  return (list ?? []).filter((c) => c.type !== type);
}

export function conditionOf(list: readonly Condition[] | undefined, type: string): Condition | undefined {
  return list?.find((c) => c.type === type);
}

/**
 * Cluster API's summary: the first of `types` that is not True gives Ready its status, reason and
 * message; all of those present True makes Ready True, and none present sets no Ready.
 */
export function summarise(list: readonly Condition[] | undefined, types: readonly string[], now: number): Condition[] {
  const present = types.map((t) => conditionOf(list, t)).filter((c): c is Condition => c !== undefined);
  // None of them set yet (a paused machine that never started): CAPI's SetSummary sets nothing
  // from no conditions (util/conditions merge returns nil), so no Ready, never a Ready=True.
  if (present.length === 0) return list === undefined ? [] : [...list];
  const bad = present.find((c) => c.status === 'False') ?? present.find((c) => c.status === 'Unknown');
  const value: ConditionValue = bad
    ? { status: bad.status, reason: bad.reason ?? bad.type, ...(bad.message ? { message: bad.message } : {}) }
    : { status: 'True', reason: present[0]?.reason ?? 'Ready' };
  return setCondition(list, 'Ready', value, now);
}
