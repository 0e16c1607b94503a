// CAPMAAS's state sets (reference/capmaas.md §2.3).
export const KNOWN = new Set(['Allocated', 'Deploying', 'Deployed', 'Disk erasing', 'Releasing', 'Ready', 'New']);
export const RUNNING = new Set(['Deploying', 'Deployed']);
export const TERMINATED = new Set(['Disk erasing', 'Releasing', 'New']);
// A deploy that can no longer succeed on this machine: give it back and take another.
export const DEAD_END = new Set(['Failed deployment', 'Broken', 'Failed disk erasing', 'Releasing failed', 'Missing', 'Retired']);
