// The embedded default's host store: the KV store a cluster uses, on the in-memory KV, with the
// Secrets of the applied manifests beside it (see local-store.ts); `--persist` snapshots its KV.
export { openLocalStore } from './local-store.ts';
export type { LocalStore } from './local-store.ts';
export type { ApplyResult } from './apply-result.ts';
export type { NatsApplyResult } from './nats-store.ts';
export { formatApplyIssue } from './validate.ts';
export type { ApplyIssue } from './validate.ts';
// The one KV store of every kind, on the process's own KV (openLocalStore's `resources`) or on NATS.
export { openKvStore, openKvStoreOn } from './kv-store.ts';
export type { KvStore } from './kv-store.ts';
export { MAAS_VALIDATORS } from './object-apply.ts';
export type { HostEvent, HostIntent, HostStore } from './host-records.ts';
export type { ObjectApplyResult, ObjectIssue, ObjectValidator } from './object-apply.ts';
