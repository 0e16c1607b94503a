// The embedded HostStore: hosts and Secrets from manifests, in memory, optionally persisted.
export { createMemoryStore } from './memory-store.ts';
export type { ApplyResult, LoadResult, MemoryStore, MemoryStoreOptions, StoreClock } from './memory-store.ts';
export { formatApplyIssue } from './validate.ts';
export type { ApplyIssue } from './validate.ts';
export { createMemoryObjectStore } from './object-store.ts';
export type { MemoryObjectStore, ObjectIssue, ObjectValidator } from './object-store.ts';
