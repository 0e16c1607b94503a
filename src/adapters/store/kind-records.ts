import { formatFieldPath } from '../../api/field-error.ts';
import { errorMessage } from '../../api/index.ts';
import type { Fence, NewObject, OwnerRef, ResourceIntent, StoredObject } from '../../ports/index.ts';
import { judgeFence, patchedAnnotations, StaleFence, StoreError } from '../../ports/index.ts';
import { compact, deepEqual } from './object-helpers.ts';
import { shownKey } from './nats-keys.ts';
import { checkValueSize } from './write-limits.ts';
import { encodeKvRecord } from './kv-value.ts';
import { compareAndSet, kubeTimestamp, type CasOptions } from './kv-record.ts';
import type { SpecRecord, StatusRecord } from './kv-layouts.ts';
import { planApplied, type ApplyOutcome } from './apply-plan.ts';
import { KindCache, ResourceNotFound, type Current, type StatusSlot } from './kind-cache.ts';

export { ResourceNotFound, type KindRecordsOptions } from './kind-cache.ts';

// The one KV record engine (issue 29.1): one kind's records in the layout every kind shares
// (kv-layouts.ts), kept by KindCache. Every write is a compare-and-set on the key's revision,
// re-read and retried on conflict. A fenced write is judged (ports/fence.ts) against the later
// fence of the two records and refused (StaleFence) when older; within one record the
// compare-and-set makes that exact, across the two a newer owner's write landing between our read
// of one and our write of the other goes unseen (a window of one round trip at a hand-off).

type Change = { op: 'none' } | { op: 'put'; spec: SpecRecord } | { op: 'delete' };
// `object`: the object as written (or found), built when asked: only applyIntent returns it, and
// the finalizer, annotation and create writes of every host's actor would each build one for nothing.
export type Mutated = { op: 'none' | 'put'; object: () => StoredObject } | { op: 'delete' };
interface MutateOptions {
  /** Read past the cache first (a fenced write's second pass). */
  readonly fresh?: boolean;
  /** A record nobody can read is written over at its revision (apply does so). */
  readonly replaceMalformed?: boolean;
  /** The object's own actor wrote this: its change is not told back to it. */
  readonly own?: boolean;
}

function sameFence(recorded: Fence | undefined, fence: Fence): boolean {
  return recorded !== undefined && recorded.epoch === fence.epoch && recorded.shard === fence.shard && recorded.holder === fence.holder;
}

function withMeta(spec: SpecRecord, patch: Partial<SpecRecord['metadata']>): SpecRecord {
  return { ...spec, metadata: compact({ ...spec.metadata, ...patch }) };
}

export class KindRecords extends KindCache {
  // ---- writes ----

  async writeStatus(key: string, status: Record<string, unknown>, fence?: Fence): Promise<void> {
    const kvKey = this.kvKey(key);
    const found = this.specSlot(key)?.spec ?? (await this.readSpec(key))?.spec;
    if (!found) throw new ResourceNotFound(this.kind, key);
    let spec: SpecRecord = found;
    // The cached record is the first guess; the compare-and-set tells when it was stale.
    const cached = this.statusSlot(key);
    let current: StatusSlot | undefined = cached?.record ? cached : undefined;
    let fresh = false;
    const written = await compareAndSet(this.cas(`writing the status of ${this.kind} ${shownKey(key)}`), async () => {
      // A fence judged stale on the cache is judged once more on fresh reads of both records.
      for (;;) {
        const uid = spec.metadata.uid;
        // A record of an earlier object of the same name carries no fence over to this one.
        const seen = current?.record?.uid === undefined || current.record.uid === uid ? current?.record?.fence : undefined;
        // A finalizer or annotation write of a newer owner counts as much as its status writes.
        const verdict = judgeFence(this.recordedFence(spec, current), fence);
        if (verdict.kind === 'stale') {
          if (fresh) throw this.o.refusals.refused(new StaleFence(key, fence!, verdict.current, `writing the status of ${this.kind} ${key}`));
          current = await this.readStatus(key);
          const read = (await this.readSpec(key))?.spec;
          if (!read) throw new ResourceNotFound(this.kind, key);
          spec = read;
          fresh = true;
          continue;
        }
        const keep = verdict.kind === 'claim' ? verdict.fence : fence ? { epoch: fence.epoch, shard: fence.shard, holder: fence.holder } : seen;
        // Built as a literal (no compact): every status record of every kind keeps one V8 shape.
        const record: StatusRecord = keep === undefined ? (uid === undefined ? { status } : { uid, status }) : (uid === undefined ? { status, fence: keep } : { uid, status, fence: keep });
        const value = encodeKvRecord(record);
        checkValueSize(`the status of ${this.kind} ${shownKey(key)}`, value, this.o.maxValueBytes);
        const done = this.statusRecords.writing(key, value, record, false);
        try {
          const revision = current ? await this.o.statuses.update(kvKey, value, current.revision) : await this.o.statuses.create(kvKey, value);
          this.tellStatus(key, this.statusRecords.set(key, revision, record));
          return revision;
        } finally {
          done();
        }
      }
    }, async () => {
      current = await this.readStatus(key);
      fresh = true;
    });
    // The object may have been deleted (and its status with it) while this write was on its way:
    // take back the orphan so a deleted object leaves nothing behind.
    if (!this.specSlot(key)?.spec && !(await this.readSpec(key))) {
      await this.o.statuses.delete(kvKey, { revision: written }).catch(() => undefined);
      throw new ResourceNotFound(this.kind, key);
    }
  }

  async addFinalizer(key: string, finalizer: string, fence?: Fence): Promise<void> {
    await this.fencedMutate(key, fence, `adding finalizer ${finalizer} to ${this.kind} ${key}`, (current) => {
      if (!current) throw new ResourceNotFound(this.kind, key);
      const finalizers = current.spec.metadata.finalizers ?? [];
      if (finalizers.includes(finalizer)) return { op: 'none' };
      // As the API server: an object being deleted takes no new finalizers.
      if (current.spec.metadata.deletionTimestamp) {
        throw new StoreError(`${this.kind} ${key} is being deleted; finalizer ${finalizer} cannot be added`, false);
      }
      return { op: 'put', spec: withMeta(current.spec, { finalizers: [...finalizers, finalizer] }) };
    });
  }

  async removeFinalizer(key: string, finalizer: string, fence?: Fence): Promise<void> {
    await this.fencedMutate(key, fence, `removing finalizer ${finalizer} from ${this.kind} ${key}`, (current) => {
      if (!current) throw new ResourceNotFound(this.kind, key);
      const finalizers = current.spec.metadata.finalizers ?? [];
      if (!finalizers.includes(finalizer)) return { op: 'none' };
      const rest = finalizers.filter((f) => f !== finalizer);
      // The last finalizer of an object being deleted: it goes, as the API server deletes it.
      if (current.spec.metadata.deletionTimestamp && rest.length === 0) return { op: 'delete' };
      return { op: 'put', spec: withMeta(current.spec, { finalizers: rest.length > 0 ? rest : undefined }) };
    });
  }

  /** Annotations and spec fields, under the owner's fence when given; true when the object changed. */
  async patch(key: string, intent: ResourceIntent, doing: string, fence?: Fence): Promise<boolean> {
    const result = await this.fencedMutate(key, fence, `${doing} ${this.kind} ${key}`, (current) => this.intentChange(key, intent, current));
    return result.op !== 'none';
  }

  /** A controller's create (ResourceStore.createObject): nothing is written over an object of that name. */
  async create(key: string, object: NewObject, fence?: Fence): Promise<'created' | 'exists'> {
    let created = false;
    await this.fencedMutate(key, fence, `creating ${this.kind} ${key}`, (current) => {
      if (current) return { op: 'none' };
      created = true;
      return { op: 'put', spec: planApplied(undefined, object as unknown as SpecRecord, this.o.now).spec };
    });
    return created ? 'created' : 'exists';
  }

  /** Adds an owner unless one of its kind and name is there (ResourceStore.addOwnerReference). */
  async addOwnerReference(key: string, owner: OwnerRef, fence?: Fence): Promise<boolean> {
    const result = await this.fencedMutate(key, fence, `adding owner ${owner.kind} ${owner.name} to ${this.kind} ${key}`, (current) => {
      if (!current) throw new ResourceNotFound(this.kind, key);
      const owners = current.spec.metadata.ownerReferences ?? [];
      if (owners.some((o) => o.kind === owner.kind && o.name === owner.name)) return { op: 'none' };
      return { op: 'put', spec: withMeta(current.spec, { ownerReferences: [...owners, { ...owner }] }) };
    });
    return result.op !== 'none';
  }

  /**
   * A user's intent: one unfenced write, which wakes the object's actor. `changed`: this write
   * changed the object (a compare-and-set on the version judged), not another writer before it.
   */
  async applyIntent(key: string, intent: ResourceIntent): Promise<{ readonly changed: boolean; readonly object: StoredObject }> {
    const result = await this.mutate(key, (current) => this.intentChange(key, intent, current));
    if (result.op === 'delete') throw new ResourceNotFound(this.kind, key);
    return { changed: result.op === 'put', object: result.object() };
  }

  private intentChange(key: string, intent: ResourceIntent, current: Current | undefined): Change {
    if (!current) throw new ResourceNotFound(this.kind, key);
    let spec = current.spec;
    const fields: Record<string, unknown> = { ...((spec.spec as Record<string, unknown> | undefined) ?? {}) };
    for (const [field, value] of Object.entries(intent.spec ?? {})) {
      // Only these fields change, and the rest of the spec was valid when it was stored: each
      // field is checked, not the whole spec parsed again on every power command.
      const parsed = this.o.layout.specField(field)?.safeParse(value === null ? undefined : value);
      if (!parsed?.success) {
        throw new StoreError(`${this.kind} ${key}: invalid spec change: ${formatFieldPath(['spec', field])}: ${parsed?.error.issues[0]?.message ?? 'not a field of the spec'}`, false);
      }
      if (parsed.data === undefined) delete fields[field];
      else fields[field] = parsed.data;
    }
    if (!deepEqual(fields, spec.spec ?? {})) {
      spec = { ...spec, spec: fields, metadata: { ...spec.metadata, generation: (spec.metadata.generation ?? 0) + 1 } };
    }
    // The one annotation rule of every store (ports/resource-store.ts): null removes one.
    const annotations = patchedAnnotations(spec.metadata.annotations, intent.annotations ?? {});
    if (annotations !== null) spec = withMeta(spec, { annotations: Object.keys(annotations).length > 0 ? annotations : undefined });
    return spec === current.spec ? { op: 'none' } : { op: 'put', spec };
  }

  /** As `kubectl delete`: 'terminating' while finalizers remain, 'deleted' once gone. */
  async requestDelete(key: string): Promise<'terminating' | 'deleted' | 'missing'> {
    let missing = false;
    const result = await this.mutate(key, (current) => {
      if (!current) {
        missing = true;
        return { op: 'none' };
      }
      if ((current.spec.metadata.finalizers ?? []).length === 0) return { op: 'delete' };
      if (current.spec.metadata.deletionTimestamp) return { op: 'none' };
      return { op: 'put', spec: withMeta(current.spec, { deletionTimestamp: kubeTimestamp(this.o.now()) }) };
    }, {}, true);
    if (missing) return 'missing';
    return result.op === 'delete' ? 'deleted' : 'terminating';
  }

  /**
   * A user's apply of `desired` (already validated): identity and lifecycle fields stay the
   * store's (apply-plan.ts). `check` runs against the version written over when it is not the one
   * validated (`validatedAt`), and may throw to refuse.
   */
  async apply(key: string, desired: SpecRecord, options: { readonly generated: boolean; readonly validatedAt?: number | undefined; readonly check?: (stored: StoredObject | undefined) => void }): Promise<ApplyOutcome> {
    let outcome: ApplyOutcome = 'unchanged';
    await this.mutate(key, (current) => {
      // A generated name is for a create; the API server answers AlreadyExists, so do we.
      if (options.generated && current) throw new StoreError(`${this.kind} ${key} already exists: the name generated from metadata.generateName is taken; apply again for another`, true);
      if (options.check && current?.revision !== options.validatedAt) {
        options.check(current ? this.toObject(current.spec, current.revision, this.statusOf(key, current.spec)) : undefined);
      }
      const next = planApplied(current?.spec, desired, this.o.now);
      outcome = next.outcome;
      return next.outcome === 'unchanged' ? { op: 'none' } : { op: 'put', spec: next.spec };
    }, { replaceMalformed: true }, true);
    return outcome;
  }
  // ---- compare-and-set ----

  /**
   * Reads the object, asks `change` what to do, and writes that only if nobody wrote the key in
   * between; otherwise reads again and asks again. `change` may throw to refuse. `absentOk`: a
   * `none` for an object that is not there is an answer (requestDelete), not a missing object.
   */
  private async mutate(key: string, change: (current: Current | undefined) => Change, options: MutateOptions = {}, absentOk = false): Promise<Mutated> {
    const kvKey = this.kvKey(key);
    // The cache is the first guess (on the owning node it is current): the compare-and-set says
    // when it was stale. A no-op judged on the cache is confirmed with a read before it is told.
    let cachedFirst = !options.fresh && this.specSlot(key)?.spec !== undefined;
    return compareAndSet(this.cas(`writing ${this.kind} ${shownKey(key)}`), async () => {
      let slot = cachedFirst ? this.specSlot(key) : undefined;
      cachedFirst = false;
      let malformed: { revision?: number } | undefined = options.replaceMalformed ? {} : undefined;
      let current = slot?.spec ? { revision: slot.revision, spec: slot.spec } : await this.readSpec(key, malformed);
      let next = change(current);
      if (slot?.spec && next.op === 'none') {
        slot = undefined;
        malformed = options.replaceMalformed ? {} : undefined;
        current = await this.readSpec(key, malformed);
        next = change(current);
      }
      if (next.op === 'none') {
        if (!current) {
          if (absentOk) return { op: 'delete' };
          throw new ResourceNotFound(this.kind, key);
        }
        const found = current;
        return { op: 'none', object: () => this.toObject(found.spec, found.revision, this.statusOf(key, found.spec)) };
      }
      if (next.op === 'put') return this.put(key, kvKey, next.spec, current?.revision ?? malformed?.revision, options.own === true);
      if (!current) throw new ResourceNotFound(this.kind, key);
      await this.o.specs.delete(kvKey, { revision: current.revision });
      // Any later put of this key is a new object: a revision above the deleted one.
      this.tellSpec(key, this.specRecords.set(key, current.revision, undefined));
      await this.deleteStatus(key);
      return { op: 'delete' };
    });
  }

  private async put(key: string, kvKey: string, spec: SpecRecord, over: number | undefined, own: boolean): Promise<Mutated> {
    const value = encodeKvRecord(spec);
    checkValueSize(`${this.kind} ${shownKey(key)}`, value, this.o.maxValueBytes);
    const done = this.specRecords.writing(key, value, spec, own);
    let revision: number;
    try {
      revision = over !== undefined ? await this.o.specs.update(kvKey, value, over) : await this.o.specs.create(kvKey, value);
    } finally {
      done();
    }
    // Applied unless a newer one is in already. `own`: the object's actor wrote this change
    // itself, so its node is not woken by it; the echo after the ack is dropped by its revision.
    this.tellSpec(key, this.specRecords.set(key, revision, spec, own));
    return { op: 'put', object: () => this.toObject(spec, revision, this.statusOf(key, spec)) };
  }

  private cas(doing: string): CasOptions {
    return { doing, store: 'the KV store', maxAttempts: this.o.maxAttempts };
  }

  /**
   * mutate for a write of the shard's owner: refused (StaleFence) when either record shows an
   * epoch newer than `fence`, judged again on fresh reads of both before it is refused; a write
   * that goes through records `fence` in the spec record, in the same compare-and-set.
   */
  private async fencedMutate(key: string, fence: Fence | undefined, write: string, change: (current: Current | undefined) => Change): Promise<Mutated> {
    // Only a fenced write is an actor's own (an actor always writes under its shard's fence): an
    // unfenced one is a user's (removing the detached annotation, say) and must wake the object.
    if (fence === undefined) return this.mutate(key, change);
    let status = this.statusSlot(key);
    for (let pass = 0; ; pass++) {
      const seenStatus = status;
      try {
        return await this.mutate(key, (current) => {
          const verdict = current ? judgeFence(this.recordedFence(current.spec, seenStatus), fence) : undefined;
          if (verdict?.kind === 'stale') throw new StaleFence(key, fence, verdict.current, write);
          const next = change(current);
          if (next.op !== 'put' || sameFence(next.spec.fence, fence)) return next;
          return { op: 'put', spec: { ...next.spec, fence: { epoch: fence.epoch, shard: fence.shard, holder: fence.holder } } };
        }, { fresh: pass > 0, own: true });
      } catch (error) {
        if (!(error instanceof StaleFence)) throw error;
        if (pass > 0) throw this.o.refusals.refused(error);
        status = await this.readStatus(key);
      }
    }
  }

  private async deleteStatus(key: string): Promise<void> {
    try {
      await this.o.statuses.delete(this.kvKey(key));
    } catch (error) {
      // The object is gone already; an orphaned status is harmless (never listed) and is
      // overwritten if the object comes back.
      this.o.log.warn({ kind: this.kind, key, err: errorMessage(error) }, 'could not delete the status of a deleted object');
    }
  }
}
