import type { Resource } from '../backend.ts';

// version/, describe/, users/, account/, maas/: what a client asks before anything else.
export const META_RESOURCES: readonly Resource[] = [];
