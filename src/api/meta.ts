import { z } from 'zod';

// The subset of Kubernetes ObjectMeta metalfleet reads or writes; unknown fields pass through so a
// manifest round-trips unchanged.
export const ObjectMeta = z.looseObject({
  name: z.string().min(1, 'name is required'),
  namespace: z.string().min(1).default('default'),
  uid: z.string().optional(),
  resourceVersion: z.string().optional(),
  generation: z.number().int().optional(),
  creationTimestamp: z.string().optional(),
  deletionTimestamp: z.string().optional(),
  labels: z.record(z.string(), z.string()).optional(),
  annotations: z.record(z.string(), z.string()).optional(),
  finalizers: z.array(z.string()).optional(),
});
export type ObjectMeta = z.infer<typeof ObjectMeta>;

export const SecretReference = z.object({
  name: z.string().min(1),
  namespace: z.string().optional(),
});
export type SecretReference = z.infer<typeof SecretReference>;

export const ObjectReference = z.looseObject({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  name: z.string().optional(),
  namespace: z.string().optional(),
  uid: z.string().optional(),
});
export type ObjectReference = z.infer<typeof ObjectReference>;

export const Condition = z.object({
  type: z.string(),
  status: z.enum(['True', 'False', 'Unknown']),
  reason: z.string().optional(),
  message: z.string().optional(),
  lastTransitionTime: z.string().optional(),
  observedGeneration: z.number().int().optional(),
});
export type Condition = z.infer<typeof Condition>;
