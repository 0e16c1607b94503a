import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { BareMetalHost, BareMetalHostSpec, BareMetalHostStatus, validateBareMetalHost, errorMessage } from '../../api/index.ts';
import { formatFieldPath } from '../../api/field-error.ts';
import { readManifests } from '../../api/manifest.ts';
import type { Secret } from '../../api/secret.ts';
import type { Fence, FenceOptions, ResourceEvent, KvBucket, KvBucketOptions, KvEvent, Logger, Transport } from '../../ports/index.ts';
import type { HostEvent, HostIntent, HostStore, WatchOptions } from './host-records.ts';
import { FenceRefusals, judgeFence, laterFence, patchedAnnotations, silentLogger, StaleFence, StoreError } from '../../ports/index.ts';
import { HostEvents } from './events.ts';
import type { ApplyResult } from './apply-result.ts';
import { compact, deepEqual, union } from './object-helpers.ts';
import { hostKeyFromKv, hostKvKey, shownKey } from './nats-keys.ts';
import { checkValueSize, MAX_VALUE_BYTES } from './write-limits.ts';
import { encodeKvRecord } from './kv-value.ts';
import { compareAndSet, replayBuckets, kubeTimestamp, RecordProblems, type CasOptions } from './kv-record.ts';
import type { SecretSource } from './nats-secrets.ts';
import { formatApplyIssue, validateDocuments, type ApplyIssue, type SourceDocument } from './validate.ts';
import { nameDocuments } from './generated-names.ts';
import { declaredBucket } from './kind-buckets.ts';
import { RecordSlots, type SeenChange } from './record-slots.ts';

// The cluster's HostStore, on NATS KV alone.
//
// Layout: two buckets, the same key in both (`<namespace>.<name>`, escaped: see nats-keys.ts),
// values msgpackr records (JSON ones of older nodes are read too: kv-value.ts).
//   mf-hosts   the host without status: apiVersion, kind, metadata (uid, generation,
//              creationTimestamp, labels, annotations, finalizers, deletionTimestamp), spec,
//              and fence?: {epoch, shard, holder}, the highest fence that has written this
//              record (a finalizer or an annotation the controller removed). resourceVersion is
//              not stored: it is the entry's KV revision.
//   mf-status  {uid?, status, fence?: {epoch, shard, holder}}: the last status and the highest
//              fence epoch that has written it.
// Status writes therefore never wake a spec watcher. Every write is a compare-and-set on the
// key's revision, re-read and retried on conflict. A fenced write is judged against the higher
// epoch of the two records and refused (StaleFence) when older; within one record the
// compare-and-set makes that exact, across the two a newer owner's write landing between our read
// of one and our write of the other goes unseen (a window of one round trip at a hand-off).
// Secrets are never written to either bucket: each node reads its own from files (SecretSource).

// The buckets BareMetalHost declares (machines/bmh/kind.ts `buckets`), read from its declaration.
export const NATS_HOSTS_BUCKET = declaredBucket('BareMetalHost', 'spec');
export const NATS_STATUS_BUCKET = declaredBucket('BareMetalHost', 'status');

export interface NatsStoreOptions extends FenceOptions {
  /** Spec and metadata: NATS_HOSTS_BUCKET in a cluster. */
  readonly specs: KvBucket;
  /** Status and fence epochs: NATS_STATUS_BUCKET in a cluster. */
  readonly status: KvBucket;
  /** This node's Secrets (see loadSecretFiles); without one getSecret finds nothing. */
  readonly secrets?: SecretSource;
  /** BMC address schemes of loaded provisioner plugins, accepted by admission (their plugin checks them). */
  readonly pluginBmcSchemes?: readonly string[];
  readonly log?: Logger;
  /** How long open waits for the buckets' current contents. Default 30 s. */
  readonly readyTimeoutMs?: number;
  /** Compare-and-set attempts per write before it fails (retryable). Default 16. */
  readonly maxAttempts?: number;
  /** The clock for creation and deletion timestamps. */
  readonly now?: () => number;
  /** The largest record written (bytes); larger is refused as permanent. Default MAX_VALUE_BYTES. */
  readonly maxValueBytes?: number;
}

export type ApplyOutcome = 'created' | 'updated' | 'unchanged';

export interface NatsApplyResult extends ApplyResult {
  /** Every host applied, in input order (the later of two documents naming one host). */
  readonly hosts: readonly { readonly key: string; readonly outcome: ApplyOutcome }[];
}

export interface NatsStore extends HostStore {
  /** Annotations to set or remove (null), under the owner's fence; true when the host changed. */
  patchAnnotations(key: string, annotations: Readonly<Record<string, string | null>>, fence?: Fence): Promise<boolean>;
  /** Top-level spec fields to set (each checked against its schema) or remove (null). */
  patchSpec(key: string, spec: Readonly<Record<string, unknown>>, fence?: Fence): Promise<void>;
  /** Validates every document first; any issue (a Secret among them) and nothing is written. */
  applyManifests(text: string, file: string): Promise<NatsApplyResult>;
  apply(objects: readonly unknown[], file?: string): Promise<NatsApplyResult>;
  /** Documents of several files, validated and applied as one. */
  applyDocuments(docs: readonly SourceDocument[]): Promise<NatsApplyResult>;
  /** The host as the buckets hold it now, past this node's cache. */
  getFresh(key: string): Promise<BareMetalHost | undefined>;
  /** Fenced writes refused with StaleFence since the store opened (each also told to onStaleFence). */
  staleFenceRefusals(): number;
  /**
   * Why the newest record of the host in either bucket cannot be read, for a user (bucket,
   * revision, reason; never the value); undefined when both read. Cleared by a good value.
   */
  recordProblem(key: string): string | undefined;
  recordProblems(): ReadonlyMap<string, string>;
  close(): Promise<void>;
}

/** Opens the store on the cluster's buckets (created when absent) through a transport. */
export async function openNatsStoreOn(
  transport: Pick<Transport, 'kv'>,
  options: Omit<NatsStoreOptions, 'specs' | 'status'> & { readonly kv?: KvBucketOptions } = {},
): Promise<NatsStore> {
  const { kv, ...rest } = options;
  const specs = await transport.kv(NATS_HOSTS_BUCKET, kv);
  const status = await transport.kv(NATS_STATUS_BUCKET, kv);
  return openNatsStore({ ...rest, specs, status });
}

/** Replays both buckets into the cache, then serves list/get from it and keeps it current. */
export async function openNatsStore(options: NatsStoreOptions): Promise<NatsStore> {
  const store = new NatsHostStore(options);
  await store.start();
  return store;
}

/** A host's upsert as both HostEvent and the one store's ResourceEvent: one object per change. */
export function hostUpsert(key: string, host: BareMetalHost): HostEvent & ResourceEvent<'BareMetalHost'> {
  return { type: 'upsert', kind: 'BareMetalHost', key, object: host, host, change: 'spec' };
}

function hostDeleted(key: string): HostEvent & ResourceEvent<'BareMetalHost'> {
  return { type: 'deleted', kind: 'BareMetalHost', key };
}

// ---- records ----

const FenceRecord = z.object({ epoch: z.number().int(), shard: z.number().int(), holder: z.string() });
type FenceRecord = z.infer<typeof FenceRecord>;
const SpecRecord = BareMetalHost.omit({ status: true }).extend({ fence: FenceRecord.optional() });
type SpecHost = z.infer<typeof SpecRecord>;

// uid ties a status to one incarnation of the host: a status left behind by a deleted host of the
// same name is never shown as the status of its successor.
const StatusRecord = z.object({
  uid: z.string().optional(),
  status: BareMetalHostStatus,
  fence: FenceRecord.optional(),
});
type StatusRecord = z.infer<typeof StatusRecord>;

// Both buckets hold msgpackr records; a JSON value an older node wrote still reads (kv-value.ts).
const encode = encodeKvRecord;

// What a write starts from: the status record cached or read, none when it does not parse (a
// write replaces it at its revision).
interface StatusSlot {
  readonly revision: number;
  readonly record?: StatusRecord | undefined;
}

type Current = { readonly revision: number; readonly host: SpecHost };
type Change = { op: 'none' } | { op: 'put'; host: SpecHost } | { op: 'delete' };
type Mutated = { op: 'none' | 'put'; host: BareMetalHost } | { op: 'delete' };

/** The host named is not in the store (deleted, or never applied). */
export class HostNotFound extends StoreError {
  constructor(readonly key: string) {
    super(`BareMetalHost ${key} not found (it was deleted or never applied)`, false);
    this.name = 'HostNotFound';
  }
}

function notFound(key: string): StoreError {
  return new HostNotFound(key);
}

function sameFence(recorded: FenceRecord | undefined, fence: Fence): boolean {
  return recorded !== undefined && recorded.epoch === fence.epoch && recorded.shard === fence.shard && recorded.holder === fence.holder;
}

function withMeta(host: SpecHost, patch: Partial<SpecHost['metadata']>): SpecHost {
  return { ...host, metadata: compact({ ...host.metadata, ...patch }) };
}

function isSecretDocument(object: unknown): boolean {
  return object !== null && typeof object === 'object' && (object as { kind?: unknown }).kind === 'Secret';
}

function secretKeyOf(object: unknown): string | undefined {
  const metadata = (object as { metadata?: { name?: unknown; namespace?: unknown } }).metadata;
  if (typeof metadata?.name !== 'string' || metadata.name === '') return undefined;
  return `${typeof metadata.namespace === 'string' && metadata.namespace !== '' ? metadata.namespace : 'default'}/${metadata.name}`;
}

const SECRET_REFUSED = 'Secrets are never stored in NATS (their values would travel in KV payloads): give them to each node with --secrets FILE|DIR and apply the hosts without their Secret documents';

/** One issue per Secret document: Secrets are never applied to the NATS store. */
export function secretDocumentIssues(docs: readonly SourceDocument[]): ApplyIssue[] {
  const issues: ApplyIssue[] = [];
  for (const doc of docs) {
    if (doc.yamlError !== undefined || !isSecretDocument(doc.object)) continue;
    const key = secretKeyOf(doc.object);
    issues.push({ file: doc.file, index: doc.index, ...(doc.line !== undefined ? { line: doc.line } : {}), kind: 'Secret', ...(key ? { key } : {}), path: '', message: SECRET_REFUSED });
  }
  return issues;
}

class NatsHostStore implements NatsStore {
  private readonly specs: KvBucket;
  private readonly statusBucket: KvBucket;
  private readonly secrets: SecretSource | undefined;
  private readonly admission: { readonly pluginBmcSchemes: ReadonlySet<string> };
  private readonly log: Logger;
  private readonly events: HostEvents;
  private readonly readyTimeoutMs: number;
  private readonly maxAttempts: number;
  private readonly now: () => number;
  private readonly maxValueBytes: number;
  /**
   * The two buckets' records by host key (record-slots.ts, the object records' cache too): bytes
   * of hosts nobody here watches wait unparsed, a record that does not parse leaves the last good
   * version, and this store's own write seen on the watch before the ack is not parsed again. A
   * spec write of the host's own actor (a finalizer, an annotation it removes), whose change that
   * actor made already, is not told back to it (issue 29.5).
   */
  private readonly specRecords: RecordSlots<typeof SpecRecord>;
  /** Statuses are never parsed as they come: every node sees every host's status writes but reads few. */
  private readonly statusRecords: RecordSlots<typeof StatusRecord>;
  /** The newest record of a host that did not parse, per bucket, until a good one replaces it. */
  private readonly specProblems: RecordProblems;
  private readonly statusProblems: RecordProblems;
  private readonly refusals: FenceRefusals;
  private readonly stops: (() => void)[] = [];
  private ready = false;
  private closed = false;

  constructor(options: NatsStoreOptions) {
    this.specs = options.specs;
    this.statusBucket = options.status;
    this.secrets = options.secrets;
    this.admission = { pluginBmcSchemes: new Set(options.pluginBmcSchemes ?? []) };
    this.log = (options.log ?? silentLogger).child({ component: 'nats-store' });
    this.readyTimeoutMs = options.readyTimeoutMs ?? 30_000;
    this.maxAttempts = options.maxAttempts ?? 16;
    this.now = options.now ?? Date.now;
    this.maxValueBytes = options.maxValueBytes ?? MAX_VALUE_BYTES;
    this.refusals = new FenceRefusals(options.onStaleFence);
    this.specProblems = new RecordProblems(this.log, 'host');
    this.statusProblems = new RecordProblems(this.log, 'host');
    this.specRecords = new RecordSlots(SpecRecord, this.specs, this.specProblems, 'host');
    this.statusRecords = new RecordSlots(StatusRecord, this.statusBucket, this.statusProblems, 'status');
    this.events = new HostEvents((error, event) => {
      const key = event.type === 'deleted' ? event.key : `${event.host.metadata.namespace}/${event.host.metadata.name}`;
      this.log.warn({ host: key, event: event.type, err: error instanceof Error ? error.name : typeof error }, 'a host store watch listener threw; other listeners still got the event');
    });
  }

  async start(): Promise<void> {
    try {
      this.stops.push(...(await replayBuckets([
        { bucket: this.specs, onEvent: (event) => this.onSpecEvent(event) },
        { bucket: this.statusBucket, onEvent: (event) => this.onStatusEvent(event) },
      ], this.readyTimeoutMs, 'the NATS store')));
    } catch (error) {
      this.closed = true;
      throw error;
    }
    this.ready = true;
    this.log.debug({ hosts: this.countHosts() }, 'host store ready');
  }

  private countHosts(): number {
    let n = 0;
    for (const _ of this.specRecords.keys()) n += 1;
    return n;
  }

  // ---- the cache ----

  private onSpecEvent(event: KvEvent): void {
    if (this.closed) return;
    const key = hostKeyFromKv(event.key);
    if (key === undefined) {
      this.log.warn({ bucket: this.specs.name, kvKey: event.key }, 'ignoring a key that does not name a host');
      return;
    }
    // Every node sees every host's changes; parsing one nobody here watches (a host of another
    // node's shard) would be most of a node's work under load. Kept as bytes until read.
    this.tellSpec(key, this.specRecords.seen(key, event, (k) => this.events.wants(k)));
  }

  private onStatusEvent(event: KvEvent): void {
    if (this.closed) return;
    const key = hostKeyFromKv(event.key);
    if (key === undefined) return;
    this.statusRecords.seen(key, event, () => false);
  }

  /** The host's spec record, its waiting bytes parsed first. */
  private specSlot(key: string): { readonly revision: number; readonly host: SpecHost | undefined } | undefined {
    const slot = this.specRecords.get(key);
    return slot ? { revision: slot.revision, host: slot.value } : undefined;
  }

  /** The host's status record, its waiting bytes parsed first. */
  private statusSlot(key: string): StatusSlot | undefined {
    const slot = this.statusRecords.get(key);
    return slot ? { revision: slot.revision, record: slot.value } : undefined;
  }

  recordProblems(): ReadonlyMap<string, string> {
    const out = new Map<string, string>();
    for (const key of new Set([...this.specProblems.keys(), ...this.statusProblems.keys()])) {
      const problem = this.recordProblem(key);
      if (problem) out.set(key, problem);
    }
    return out;
  }

  recordProblem(key: string): string | undefined {
    // Bytes waiting to be parsed are parsed now: a problem is found when asked, not only when read.
    this.specSlot(key);
    this.statusSlot(key);
    const spec = this.specProblems.get(key);
    const status = this.statusProblems.get(key);
    const parts: string[] = [];
    if (spec) parts.push(`its record in ${spec.bucket} (revision ${spec.revision}) does not parse: ${spec.reason}; the host runs on its last good version until it is applied again`);
    if (status) parts.push(`its status in ${status.bucket} (revision ${status.revision}) does not parse: ${status.reason}; the next status write replaces it`);
    return parts.length > 0 ? `store: ${parts.join('; ')}` : undefined;
  }

  // Applies a change made by this store, unless a newer one is already in. `own`: the host's
  // actor wrote this change itself, so its node is not woken by it; the echo that comes after the
  // ack carries a revision the cache holds already and is dropped.
  private setSpec(key: string, revision: number, host: SpecHost | undefined, own = false): void {
    this.tellSpec(key, this.specRecords.set(key, revision, host, own));
  }

  private tellSpec(key: string, change: SeenChange<SpecHost>): void {
    if (!this.ready || this.closed) return;
    // Shaped for both the host records' watchers and the one store's (kv-store.ts passes it on).
    if (change.type === 'put' && !change.own) this.events.emit(hostUpsert(key, this.merged(key)!));
    else if (change.type === 'deleted' && change.had) this.events.emit(hostDeleted(key));
  }

  private merged(key: string): BareMetalHost | undefined {
    // Every get and list builds one: the cache's own slot, no wrapper allocated on this path.
    const slot = this.specRecords.get(key);
    if (!slot?.value) return undefined;
    return this.toHost(slot.value, slot.revision, this.statusOf(key, slot.value));
  }

  private statusOf(key: string, host: SpecHost): BareMetalHostStatus | undefined {
    const record = this.statusRecords.value(key);
    if (!record || (record.uid !== undefined && record.uid !== host.metadata.uid)) return undefined;
    return record.status;
  }

  private toHost(stored: SpecHost, revision: number, status: BareMetalHostStatus | undefined): BareMetalHost {
    // Every get builds one; no delete (compact) keeps the object's shape fast. The fence is the
    // store's bookkeeping, not part of the host.
    const { fence: _fence, ...host } = stored;
    const metadata = { ...host.metadata, resourceVersion: String(revision) };
    return status === undefined ? { ...host, metadata } : { ...host, metadata, status };
  }

  /** The later fence of the two records of this incarnation of the host: what judgeFence weighs a write against. */
  private recordedFence(host: SpecHost, status: StatusSlot | undefined): Fence | undefined {
    const record = status?.record;
    const statusFence = record && (record.uid === undefined || record.uid === host.metadata.uid) ? record.fence : undefined;
    return laterFence(host.fence, statusFence);
  }

  // ---- HostStore ----

  async list(): Promise<BareMetalHost[]> {
    const out: BareMetalHost[] = [];
    for (const key of [...this.specRecords.keys()]) {
      const host = this.merged(key);
      if (host) out.push(host);
    }
    return out;
  }

  async get(key: string): Promise<BareMetalHost | undefined> {
    return this.merged(key);
  }

  async getFresh(key: string): Promise<BareMetalHost | undefined> {
    this.checkOpen();
    const [spec, status] = await Promise.all([this.readSpec(key), this.readStatus(key)]);
    if (!spec) return undefined;
    const record = status?.record;
    const matches = record && (record.uid === undefined || record.uid === spec.host.metadata.uid);
    return this.toHost(spec.host, spec.revision, matches ? record.status : undefined);
  }

  watch(listener: (event: HostEvent) => void, options: WatchOptions = {}): () => void {
    return this.events.subscribe(listener, options.keys);
  }

  async getSecret(namespace: string, name: string): Promise<Secret | undefined> {
    return this.secrets?.get(namespace, name);
  }

  async writeStatus(key: string, status: BareMetalHostStatus, fence?: Fence): Promise<void> {
    this.checkOpen();
    const kvKey = hostKvKey(key);
    const found = this.specSlot(key)?.host ?? (await this.readSpec(key))?.host;
    if (!found) throw notFound(key);
    let host: SpecHost = found;
    // The cached record is the first guess; the compare-and-set tells when it was stale.
    const cached = this.statusSlot(key);
    let current: StatusSlot | undefined = cached?.record ? cached : undefined;
    let fresh = false;
    const written = await compareAndSet(this.cas(`writing the status of BareMetalHost ${shownKey(key)}`), async () => {
      // A fence judged stale on the cache is judged once more on fresh reads of both records.
      for (;;) {
        const uid = host.metadata.uid;
        // A record of an earlier host of the same name carries no fence over to this one.
        const seen = current?.record?.uid === undefined || current.record.uid === uid ? current?.record?.fence : undefined;
        // A finalizer or annotation write of a newer owner counts as much as its status writes.
        const verdict = judgeFence(this.recordedFence(host, current), fence);
        if (verdict.kind === 'stale') {
          if (fresh) throw this.refusals.refused(new StaleFence(key, fence!, verdict.current));
          current = await this.readStatus(key);
          const read = (await this.readSpec(key))?.host;
          if (!read) throw notFound(key);
          host = read;
          fresh = true;
          continue;
        }
        const keep = verdict.kind === 'claim' ? verdict.fence : fence ? { epoch: fence.epoch, shard: fence.shard, holder: fence.holder } : seen;
        const record: StatusRecord = compact({ uid, status, fence: keep });
        const value = encode(record);
        checkValueSize(`the status of BareMetalHost ${shownKey(key)}`, value, this.maxValueBytes);
        const done = this.statusRecords.writing(key, value, record, false);
        try {
          const revision = current ? await this.statusBucket.update(kvKey, value, current.revision) : await this.statusBucket.create(kvKey, value);
          this.statusRecords.set(key, revision, record);
          return revision;
        } finally {
          done();
        }
      }
    }, async () => {
      current = await this.readStatus(key);
      fresh = true;
    });
    // The host may have been deleted (and its status with it) while this write was on its way:
    // take back the orphan so a deleted host leaves nothing behind.
    if (!this.specSlot(key)?.host && !(await this.readSpec(key))) {
      await this.statusBucket.delete(kvKey, { revision: written }).catch(() => undefined);
      throw notFound(key);
    }
  }

  async addFinalizer(key: string, finalizer: string, fence?: Fence): Promise<void> {
    await this.fencedMutate(key, fence, `adding finalizer ${finalizer} to BareMetalHost ${key}`, (current) => {
      if (!current) throw notFound(key);
      const finalizers = current.host.metadata.finalizers ?? [];
      if (finalizers.includes(finalizer)) return { op: 'none' };
      // As the API server: an object being deleted takes no new finalizers.
      if (current.host.metadata.deletionTimestamp) {
        throw new StoreError(`BareMetalHost ${key} is being deleted; finalizer ${finalizer} cannot be added`, false);
      }
      return { op: 'put', host: withMeta(current.host, { finalizers: [...finalizers, finalizer] }) };
    });
  }

  async removeFinalizer(key: string, finalizer: string, fence?: Fence): Promise<void> {
    await this.fencedMutate(key, fence, `removing finalizer ${finalizer} from BareMetalHost ${key}`, (current) => {
      if (!current) throw notFound(key);
      const finalizers = current.host.metadata.finalizers ?? [];
      if (!finalizers.includes(finalizer)) return { op: 'none' };
      const rest = finalizers.filter((f) => f !== finalizer);
      if (current.host.metadata.deletionTimestamp && rest.length === 0) return { op: 'delete' };
      return { op: 'put', host: withMeta(current.host, { finalizers: rest.length > 0 ? rest : undefined }) };
    });
  }

  async removeAnnotation(key: string, annotation: string, fence?: Fence): Promise<void> {
    await this.fencedMutate(key, fence, `removing annotation ${annotation} from BareMetalHost ${key}`, (current) => this.intentChange(key, { annotations: { [annotation]: null } }, current));
  }

  async patchAnnotations(key: string, annotations: Readonly<Record<string, string | null>>, fence?: Fence): Promise<boolean> {
    const result = await this.fencedMutate(key, fence, `annotating BareMetalHost ${key}`, (current) => this.intentChange(key, { annotations }, current));
    return result.op !== 'none';
  }

  async patchSpec(key: string, spec: Readonly<Record<string, unknown>>, fence?: Fence): Promise<void> {
    await this.fencedMutate(key, fence, `patching the spec of BareMetalHost ${key}`, (current) => this.intentChange(key, { spec }, current));
  }

  async applyIntent(key: string, intent: HostIntent): Promise<BareMetalHost> {
    const result = await this.mutate(key, (current) => this.intentChange(key, intent, current));
    if (result.op === 'delete') throw notFound(key);
    return result.host;
  }

  staleFenceRefusals(): number {
    return this.refusals.total;
  }

  private intentChange(key: string, intent: HostIntent, current: Current | undefined): Change {
    if (!current) throw notFound(key);
    let host = current.host;
    const fields = intent.online !== undefined ? { ...intent.spec, online: intent.online } : intent.spec ?? {};
    const spec: Record<string, unknown> = { ...host.spec };
    for (const [field, value] of Object.entries(fields)) {
      // Only these fields change, and the rest of the spec was valid when it was stored: each
      // field is checked, not the whole spec parsed again on every power command.
      const schema = (BareMetalHostSpec.shape as Record<string, z.ZodType | undefined>)[field];
      const parsed = schema?.safeParse(value === null ? undefined : value);
      if (!parsed?.success) {
        throw new StoreError(`BareMetalHost ${key}: invalid spec change: ${formatFieldPath(['spec', field])}: ${parsed?.error.issues[0]?.message ?? 'not a field of the spec'}`, false);
      }
      if (parsed.data === undefined) delete spec[field];
      else spec[field] = parsed.data;
    }
    if (!deepEqual(spec, host.spec)) {
      host = { ...host, spec: spec as SpecHost['spec'], metadata: { ...host.metadata, generation: (host.metadata.generation ?? 0) + 1 } };
    }
    // The one annotation rule of every store (ports/resource-store.ts): null removes one.
    const annotations = patchedAnnotations(host.metadata.annotations, intent.annotations ?? {});
    if (annotations !== null) host = withMeta(host, { annotations: Object.keys(annotations).length > 0 ? annotations : undefined });
    return host === current.host ? { op: 'none' } : { op: 'put', host };
  }


  async requestDelete(key: string): Promise<'terminating' | 'deleted'> {
    const result = await this.mutate(key, (current) => {
      if (!current) throw notFound(key);
      if ((current.host.metadata.finalizers ?? []).length === 0) return { op: 'delete' };
      if (current.host.metadata.deletionTimestamp) return { op: 'none' };
      return { op: 'put', host: withMeta(current.host, { deletionTimestamp: kubeTimestamp(this.now()) }) };
    });
    return result.op === 'delete' ? 'deleted' : 'terminating';
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const stop of this.stops.splice(0)) {
      try {
        stop();
      } catch {
        // A watch of a closed connection has nothing left to stop.
      }
    }
  }

  // ---- apply ----

  applyManifests(text: string, file: string): Promise<NatsApplyResult> {
    return this.applyDocuments(readManifests(text, file));
  }

  apply(objects: readonly unknown[], file = '(objects)'): Promise<NatsApplyResult> {
    return this.applyDocuments(objects.map((object, index) => ({ file, index, object })));
  }

  async applyDocuments(docs: readonly SourceDocument[]): Promise<NatsApplyResult> {
    this.checkOpen();
    const refused = secretDocumentIssues(docs);
    // Hosts named only by generateName get their name now, once, as the API server names them.
    const hostDocs = nameDocuments(docs.filter((doc) => doc.yamlError !== undefined || !isSecretDocument(doc.object)), (key) => this.specSlot(key)?.host !== undefined);
    // Update rules run against the cached version here, and again inside the write when the
    // stored version turns out to have moved on since.
    const validatedAt = new Map<string, number | undefined>();
    const { valid, issues } = validateDocuments(hostDocs, (key) => {
      validatedAt.set(key, this.specRecords.revision(key));
      return this.merged(key);
    }, this.admission);
    if (issues.length > 0 || refused.length > 0) {
      // In document order, whichever check found them.
      const position = (issue: ApplyIssue): number => docs.findIndex((d) => d.file === issue.file && d.index === issue.index);
      const all = [...issues, ...refused].sort((a, b) => position(a) - position(b));
      return { ok: false, issues: all, created: [], updated: [], unchanged: [], secrets: [], skipped: [], warnings: [], hosts: [] };
    }
    const warnings: string[] = [];
    const skipped: { index: number; kind: string; key?: string }[] = [];
    const plan = new Map<string, { host: BareMetalHost; source: SourceDocument }>();
    for (const doc of valid) {
      if (doc.type === 'skipped') {
        skipped.push({ index: doc.source.index, kind: doc.kind, ...(doc.key ? { key: doc.key } : {}) });
        continue;
      }
      if (doc.type !== 'host') continue;
      const earlier = plan.get(doc.key);
      if (earlier) {
        warnings.push(`BareMetalHost ${doc.key} is given twice (${earlier.source.file} document ${earlier.source.index} and ${doc.source.file} document ${doc.source.index}); the later one wins`);
        plan.delete(doc.key);
      }
      plan.set(doc.key, { host: doc.host, source: doc.source });
    }
    const hosts: { key: string; outcome: ApplyOutcome }[] = [];
    for (const [key, { host, source }] of plan) {
      let outcome: ApplyOutcome = 'unchanged';
      try {
        await this.mutate(key, (current) => {
          // A generated name is for a create; the API server answers AlreadyExists, so do we.
          if (source.generated && current) throw new StoreError(`BareMetalHost ${key} already exists: the name generated from metadata.generateName is taken; apply again for another`, true);
          if (current?.revision !== validatedAt.get(key)) this.revalidate(key, source, current);
          const next = this.planHost(current?.host, host);
          outcome = next.outcome;
          return next.outcome === 'unchanged' ? { op: 'none' } : { op: 'put', host: next.host };
        }, { replaceMalformed: true });
      } catch (error) {
        if (hosts.length === 0 || !(error instanceof StoreError)) throw error;
        const done = hosts.map((h) => `${h.key} ${h.outcome}`).join(', ');
        throw new StoreError(`${error.message} (already applied: ${done})`, error.retryable, { cause: error });
      }
      hosts.push({ key, outcome });
    }
    const of = (o: ApplyOutcome) => hosts.filter((h) => h.outcome === o).map((h) => h.key);
    return { ok: true, issues: [], created: of('created'), updated: of('updated'), unchanged: of('unchanged'), secrets: [], skipped, warnings, hosts };
  }

  private revalidate(key: string, source: SourceDocument, current: Current | undefined): void {
    const stored = current ? this.toHost(current.host, current.revision, this.statusOf(key, current.host)) : undefined;
    const errors = validateBareMetalHost(source.object, stored, this.admission);
    if (errors.length === 0) return;
    const issues = errors.map((e) => formatApplyIssue({ file: source.file, index: source.index, ...(source.line !== undefined ? { line: source.line } : {}), kind: 'BareMetalHost', key, path: e.path, message: e.reason }));
    throw new StoreError(`BareMetalHost ${key} changed while it was applied and the new version refuses this update: ${issues.join('; ')}`, false);
  }

  // As the memory store: identity and lifecycle fields belong to the store, not the manifest;
  // finalizers are the union of stored and given; a status in the manifest is ignored.
  private planHost(old: SpecHost | undefined, parsed: BareMetalHost): { host: SpecHost; outcome: ApplyOutcome } {
    const { status: _ignored, ...desired } = parsed;
    const { uid: _uid, resourceVersion: _rv, generation: _gen, creationTimestamp: _ct, deletionTimestamp: _dt, finalizers, ...rest } = desired.metadata;
    if (old === undefined) {
      const metadata = compact({
        ...rest,
        uid: randomUUID(),
        generation: 1,
        creationTimestamp: kubeTimestamp(this.now()),
        finalizers: union(undefined, finalizers),
      });
      return { host: { ...desired, metadata }, outcome: 'created' };
    }
    const specChanged = !deepEqual(old.spec, desired.spec);
    const metadata = compact({
      ...rest,
      uid: old.metadata.uid,
      generation: (old.metadata.generation ?? 1) + (specChanged ? 1 : 0),
      creationTimestamp: old.metadata.creationTimestamp,
      finalizers: union(old.metadata.finalizers, finalizers),
      deletionTimestamp: old.metadata.deletionTimestamp,
    });
    const oldMeta = { ...old.metadata, resourceVersion: undefined };
    if (!specChanged && deepEqual(oldMeta, metadata) && old.apiVersion === desired.apiVersion) return { host: old, outcome: 'unchanged' };
    // The owner's fence is the store's, not the manifest's: it stays.
    return { host: old.fence ? { ...desired, metadata, fence: old.fence } : { ...desired, metadata }, outcome: 'updated' };
  }

  // ---- compare-and-set ----

  private async readSpec(key: string, malformed?: { revision?: number }): Promise<Current | undefined> {
    const read = await this.specRecords.read(key, hostKvKey(key), `reading BareMetalHost ${shownKey(key)}`, 'the NATS store', 'a host record read does not parse');
    if (!read) return undefined;
    if (read.value === undefined) {
      // An apply replaces what nobody can read: the caller writes over this revision.
      if (malformed) {
        malformed.revision = read.revision;
        return undefined;
      }
      const reason = this.specProblems.get(key)?.reason ?? 'the record';
      throw new StoreError(`BareMetalHost ${key} in bucket ${this.specs.name} (revision ${read.revision}) does not parse: ${reason}; apply the host again or delete its key`, false);
    }
    return { revision: read.revision, host: read.value };
  }

  private async readStatus(key: string): Promise<StatusSlot | undefined> {
    // A record nobody can read is overwritten rather than blocking every later status write;
    // its fence epoch is lost with it, which the warning says.
    const read = await this.statusRecords.read(key, hostKvKey(key), `reading the status of BareMetalHost ${shownKey(key)}`, 'the NATS store', 'overwriting a status record that does not parse (its fence epoch is lost)');
    return read ? { revision: read.revision, record: read.value } : undefined;
  }

  /**
   * Reads the host, asks `change` what to do, and writes that only if nobody wrote the key in
   * between; otherwise reads again and asks again. `change` may throw to refuse.
   */
  private async mutate(key: string, change: (current: Current | undefined) => Change, options: { readonly fresh?: boolean; readonly replaceMalformed?: boolean; readonly own?: boolean } = {}): Promise<Mutated> {
    this.checkOpen();
    const kvKey = hostKvKey(key);
    // The cache is the first guess (on the owning node it is current): the compare-and-set says
    // when it was stale. A no-op judged on the cache is confirmed with a read before it is told.
    let cachedFirst = !options.fresh && this.specSlot(key)?.host !== undefined;
    return compareAndSet(this.cas(`writing BareMetalHost ${shownKey(key)}`), async () => {
      let slot = cachedFirst ? this.specSlot(key) : undefined;
      cachedFirst = false;
      let malformed: { revision?: number } | undefined = options.replaceMalformed ? {} : undefined;
      let current = slot?.host ? { revision: slot.revision, host: slot.host } : await this.readSpec(key, malformed);
      let next = change(current);
      if (slot?.host && next.op === 'none') {
        slot = undefined;
        malformed = options.replaceMalformed ? {} : undefined;
        current = await this.readSpec(key, malformed);
        next = change(current);
      }
      if (next.op === 'none') {
        // Not there (change did not refuse) cannot happen: every caller refuses absent hosts.
        if (!current) throw notFound(key);
        return { op: 'none', host: this.toHost(current.host, current.revision, this.statusOf(key, current.host)) };
      }
      if (next.op === 'put') {
        const value = encode(next.host);
        checkValueSize(`BareMetalHost ${shownKey(key)}`, value, this.maxValueBytes);
        const own = options.own === true;
        const done = this.specRecords.writing(key, value, next.host, own);
        let revision: number;
        try {
          const over = current?.revision ?? malformed?.revision;
          revision = over !== undefined ? await this.specs.update(kvKey, value, over) : await this.specs.create(kvKey, value);
        } finally {
          done();
        }
        this.setSpec(key, revision, next.host, own);
        return { op: 'put', host: this.toHost(next.host, revision, this.statusOf(key, next.host)) };
      }
      if (!current) throw notFound(key);
      await this.specs.delete(kvKey, { revision: current.revision });
      // Any later put of this key is a new host: a revision above the deleted one.
      this.setSpec(key, current.revision, undefined);
      await this.deleteStatus(key);
      return { op: 'delete' };
    });
  }

  private cas(doing: string): CasOptions {
    return { doing, store: 'the NATS store', maxAttempts: this.maxAttempts };
  }

  /**
   * mutate for a write of the shard's owner: refused (StaleFence) when either record shows an
   * epoch newer than `fence`, judged again on fresh reads of both before it is refused; a write
   * that goes through records `fence` in the host record, in the same compare-and-set.
   */
  private async fencedMutate(key: string, fence: Fence | undefined, write: string, change: (current: Current | undefined) => Change): Promise<Mutated> {
    // Only a fenced write is a host actor's own (an actor always writes under its shard's fence):
    // an unfenced one is a user's (removing the detached annotation, say) and must wake the host.
    if (fence === undefined) return this.mutate(key, change);
    let status = this.statusSlot(key);
    for (let pass = 0; ; pass++) {
      const seenStatus = status;
      try {
        return await this.mutate(key, (current) => {
          const verdict = current ? judgeFence(this.recordedFence(current.host, seenStatus), fence) : undefined;
          if (verdict?.kind === 'stale') throw new StaleFence(key, fence, verdict.current, write);
          const next = change(current);
          if (next.op !== 'put' || sameFence(next.host.fence, fence)) return next;
          return { op: 'put', host: { ...next.host, fence: { epoch: fence.epoch, shard: fence.shard, holder: fence.holder } } };
        }, { fresh: pass > 0, own: true });
      } catch (error) {
        if (!(error instanceof StaleFence)) throw error;
        if (pass > 0) throw this.refusals.refused(error);
        status = await this.readStatus(key);
      }
    }
  }

  private async deleteStatus(key: string): Promise<void> {
    try {
      await this.statusBucket.delete(hostKvKey(key));
    } catch (error) {
      // The host is gone already; an orphaned status is harmless (never listed) and is
      // overwritten if the host comes back.
      this.log.warn({ host: key, err: errorMessage(error) }, 'could not delete the status of a deleted host');
    }
  }

  private checkOpen(): void {
    if (this.closed) throw new StoreError('the NATS host store is closed', false);
  }
}
