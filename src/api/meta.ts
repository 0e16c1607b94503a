import { z } from 'zod';

// The API server's words for an object with neither (reference/kube-api.md §8).
const NAME_REQUIRED = 'name or generateName is required';

// The subset of Kubernetes ObjectMeta metalfleet reads or writes; unknown fields pass through so a
// manifest round-trips unchanged.
export const ObjectMeta = z.looseObject({
  // An object named by generateName gets its name before it is parsed (generate-name.ts).
  name: z.string({ error: (issue) => (issue.input === undefined ? NAME_REQUIRED : undefined) }).min(1, NAME_REQUIRED),
  generateName: z.string().optional(),
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
