import { z } from 'zod';
import { ObjectMeta } from '../../meta.ts';
import { BMH_API_VERSION, HardwareDetails } from '../schema.ts';

// HardwareData (BMO apis/metal3.io/v1alpha1/hardwaredata_types.go): what inspection found in a
// host, kept apart from the host (same name and namespace) so it outlives a re-registration.

export const HARDWARE_DATA_KIND = 'HardwareData';

export const HardwareDataSpec = z.object({
  hardware: HardwareDetails.optional(),
}).describe('The hardware found in the host by its inspection.');
export type HardwareDataSpec = z.infer<typeof HardwareDataSpec>;

export const HardwareData = z.object({
  apiVersion: z.literal(BMH_API_VERSION),
  kind: z.literal(HARDWARE_DATA_KIND),
  metadata: ObjectMeta,
  spec: HardwareDataSpec.optional(),
});
export type HardwareData = z.infer<typeof HardwareData>;
