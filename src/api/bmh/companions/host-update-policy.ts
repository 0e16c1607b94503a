import { z } from 'zod';
import { ObjectMeta } from '../../meta.ts';
import { BMH_API_VERSION } from '../schema.ts';

// HostUpdatePolicy (BMO apis/metal3.io/v1alpha1/hostupdatepolicy_types.go): whether a host's
// firmware settings and updates may be applied to it while provisioned, on reboot (servicing),
// rather than only while it is prepared. Its status is an empty object in BMO.

export const HOST_UPDATE_POLICY_KIND = 'HostUpdatePolicy';

export const UpdatePolicy = z.enum(['onPreparing', 'onReboot']);
export type UpdatePolicy = z.infer<typeof UpdatePolicy>;

export const HostUpdatePolicySpec = z.object({
  firmwareSettings: UpdatePolicy.optional().describe('When firmware settings may change: onPreparing or onReboot.'),
  firmwareUpdates: UpdatePolicy.optional().describe('When firmware may be updated: onPreparing or onReboot.'),
}).describe('When the host\'s firmware may change.');
export type HostUpdatePolicySpec = z.infer<typeof HostUpdatePolicySpec>;

export const HostUpdatePolicy = z.object({
  apiVersion: z.literal(BMH_API_VERSION),
  kind: z.literal(HOST_UPDATE_POLICY_KIND),
  metadata: ObjectMeta,
  spec: HostUpdatePolicySpec.optional(),
  status: z.object({}).optional().describe('Nothing yet; BMO keeps the field for later use.'),
});
export type HostUpdatePolicy = z.infer<typeof HostUpdatePolicy>;
