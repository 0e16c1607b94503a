import type { Resource } from '../backend.ts';

// zones/, resourcepools/, domains/, dnsresourcerecords/.
export const PLACE_RESOURCES: readonly Resource[] = [];
