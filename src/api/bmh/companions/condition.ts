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
