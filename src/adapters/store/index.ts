// The embedded default's host store: the KV store a cluster uses, on the in-memory KV, with the
// Secrets of the applied manifests beside it (see local-store.ts); `--persist` snapshots its KV.
export { openLocalStore } from './local-store.ts';
export type { LocalStore } from './local-store.ts';
export type { ApplyResult } from './apply-result.ts';
export type { NatsApplyResult } from './nats-store.ts';
export { formatApplyIssue } from './validate.ts';
export type { ApplyIssue } from './validate.ts';
export { createMemoryObjectStore } from './object-store.ts';
export type { MemoryObjectStore, ObjectIssue, ObjectValidator } from './object-store.ts';
