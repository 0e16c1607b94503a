import { z } from 'zod';

// The API server's words for an object with neither (reference/kube-api.md §8).
const NAME_REQUIRED = 'name or generateName is required';

// Kubernetes OwnerReference. The API server requires uid too, but objects we generate or are
// applied from a manifest name their owner before it exists, so only kind and name are required
// (what the MAAS actors follow: a MaasMachine's Machine, a MaasCluster's Cluster).
export const OwnerReference = z.looseObject({
  apiVersion: z.string().optional(),
  kind: z.string().min(1),
  name: z.string().min(1),
  uid: z.string().optional(),
  controller: z.boolean().optional(),
  blockOwnerDeletion: z.boolean().optional(),
});
export type OwnerReference = z.infer<typeof OwnerReference>;

// The subset of Kubernetes ObjectMeta metalfleet reads or writes; unknown fields pass through so a
// manifest round-trips unchanged. The one metadata schema: every kind's schema, the object store
// on KV and the Kubernetes object parser use it, so a namespace defaults and owner references
// survive the same way on every path.
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
  ownerReferences: z.array(OwnerReference).optional(),
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

// Any namespaced object as the stores keep it: its own schema (a kind's validator, the CRD)
// checks spec and status; this checks what every store and actor relies on.
export const ApiObject = z.looseObject({
  apiVersion: z.string(),
  kind: z.string(),
  metadata: ObjectMeta,
  spec: z.record(z.string(), z.unknown()).optional(),
  status: z.record(z.string(), z.unknown()).optional(),
});
export type ApiObject = z.infer<typeof ApiObject>;

export const Condition = z.object({
  type: z.string(),
  status: z.enum(['True', 'False', 'Unknown']),
  reason: z.string().optional(),
  message: z.string().optional(),
  lastTransitionTime: z.string().optional(),
  observedGeneration: z.number().int().optional(),
});
export type Condition = z.infer<typeof Condition>;
