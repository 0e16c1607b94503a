import type { Resource } from '../backend.ts';

// fabrics/, vlans, spaces/, subnets/, devices/.
export const NETWORK_RESOURCES: readonly Resource[] = [];
