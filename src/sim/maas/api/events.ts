import type { Resource } from '../backend.ts';

// events/?op=query.
export const EVENT_RESOURCES: readonly Resource[] = [];
