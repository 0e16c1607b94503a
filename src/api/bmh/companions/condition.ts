import { z } from 'zod';

// Timestamps: the API server checks date-time its own (lenient) way; zod's datetime would add a stricter pattern.

// metav1.Condition, as the companion kinds' status.conditions carry it (BMO's CRDs
// config/base/crds/bases/metal3.io_hostfirmware{settings,components}.yaml): unlike the
// BareMetalHost's own conditions, every field but observedGeneration is required, and the API
// server checks reason and type against these patterns.
export const MetaCondition = z.object({
  type: z.string().max(316).regex(/^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$/)
    .describe('Condition type, e.g. Valid or ChangeDetected.'),
  status: z.enum(['True', 'False', 'Unknown']).describe('True, False or Unknown.'),
  reason: z.string().min(1).max(1024).regex(/^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/)
    .describe('A CamelCase word saying why the condition has its status.'),
  message: z.string().max(32768).describe('Details, for people; may be empty.'),
  lastTransitionTime: z.string().meta({ format: 'date-time' }).describe('When the status last changed (RFC 3339).'),
  observedGeneration: z.number().int().min(0).optional().describe('The metadata.generation the condition was computed for.'),
}).describe('One aspect of the object\'s state.');
export type MetaCondition = z.infer<typeof MetaCondition>;

/** The condition list: one per type, as `+listType=map +listMapKey=type` makes the API server keep it. */
export const MetaConditions = z.array(MetaCondition)
  .refine((list) => new Set(list.map((c) => c.type)).size === list.length, { message: 'each condition type may appear once' });

/** A condition as a controller judges it; the rest (observedGeneration, lastTransitionTime) follows. */
export interface MetaConditionValue {
  readonly type: string;
  readonly status: MetaCondition['status'];
  readonly reason: string;
  readonly message: string;
}

/** What setMetaCondition did: the list (the very one given when nothing changed), and how it changed. */
export interface MetaConditionChange {
  readonly conditions: MetaCondition[];
  /** A field of the condition changed (or it is new): metav1's SetStatusCondition returns true. */
  readonly changed: boolean;
  /** Its status changed (or it is new): lastTransitionTime is then `now`. */
  readonly flipped: boolean;
}

/**
 * metav1's meta.SetStatusCondition (k8s.io/apimachinery pkg/api/meta), as BMO's companion
 * controllers call it: a condition of a new type is appended; one of a known type is updated in
 * place, its lastTransitionTime moving only when its status changes, its reason, message and
 * observedGeneration taken as given. `now`: RFC 3339.
 */
export function setMetaCondition(list: readonly MetaCondition[] | undefined, value: MetaConditionValue, generation: number, now: string): MetaConditionChange {
  const conditions = list ?? [];
  const index = conditions.findIndex((c) => c.type === value.type);
  const before = index === -1 ? undefined : conditions[index];
  const flipped = before?.status !== value.status;
  const changed = flipped || before.reason !== value.reason || before.message !== value.message || before.observedGeneration !== generation;
  if (!changed) return { conditions: [...conditions], changed, flipped };
  const condition: MetaCondition = { type: value.type, status: value.status, reason: value.reason, message: value.message, observedGeneration: generation, lastTransitionTime: flipped ? now : before.lastTransitionTime };
  const next = index === -1 ? [...conditions, condition] : conditions.map((c, i) => (i === index ? condition : c));
  return { conditions: next, changed, flipped };
}
